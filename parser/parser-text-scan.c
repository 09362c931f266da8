/*
 * parser-text-scan.c - the small scanners of the text reader: a journal
 * short date ("Apr 05 06:04:04[.857303]", or in a glibc locale's month
 * words: "Mär 05", " 5월 13", "мая 13"), an RFC 3339 time as the first
 * word, a syslog "IDENT[PID]: ", journalctl's "-- ... --" lines, a log
 * viewer's time glued before klog (Rancher), a CRI record inside a syslog
 * line and a whole JSON log line.  Pure functions of their bytes: no state,
 * no allocation.
 */
#include "parser-text.h"

#include <string.h>

static const char text_months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

static size_t text_short_date_en(const char *s, size_t n, int *mon, int *day, int64_t *tod);

/*
 * Month abbreviations as glibc's locales write them for %b (LC_TIME abmon, and ab_alt_mon where
 * a locale has one; /usr/share/i18n/locales of Debian 12's locales 2.36, plus the forms older
 * glibc wrote): de_DE, fr_FR, es_ES, it_IT, pt_BR, ru_RU, and English in lower case.  Looked up
 * without a final '.', ASCII letters folded to lower case.  No word names two months.
 */
static const struct text_month_word {
	const char *word;
	int mon;
} text_month_words[] = {
    {"jan", 1},
    {"feb", 2},
    {"mar", 3},
    {"apr", 4},
    {"may", 5},
    {"jun", 6},
    {"jul", 7},
    {"aug", 8},
    {"sep", 9},
    {"oct", 10},
    {"nov", 11},
    {"dec", 12},
    {"m\xc3\xa4r", 3},
    {"mrz", 3},
    {"mai", 5},
    {"okt", 10},
    {"dez", 12},
    {"janv", 1},
    {"f\xc3\xa9vr", 2},
    {"mars", 3},
    {"avr", 4},
    {"avril", 4},
    {"juin", 6},
    {"juil", 7},
    {"ao\xc3\xbbt", 8},
    {"sept", 9},
    {"d\xc3\xa9"
     "c",
     12},
    {"ene", 1},
    {"abr", 4},
    {"ago", 8},
    {"dic", 12},
    {"gen", 1},
    {"mag", 5},
    {"giu", 6},
    {"lug", 7},
    {"set", 9},
    {"ott", 10},
    {"fev", 2},
    {"out", 10},
    {"\xd1\x8f\xd0\xbd\xd0\xb2", 1},  /* янв */
    {"\xd1\x84\xd0\xb5\xd0\xb2", 2},  /* фев */
    {"\xd0\xbc\xd0\xb0\xd1\x80", 3},  /* мар */
    {"\xd0\xb0\xd0\xbf\xd1\x80", 4},  /* апр */
    {"\xd0\xbc\xd0\xb0\xd1\x8f", 5},  /* мая (abmon, glibc 2.27 on) */
    {"\xd0\xbc\xd0\xb0\xd0\xb9", 5},  /* май (ab_alt_mon, older abmon) */
    {"\xd0\xb8\xd1\x8e\xd0\xbd", 6},  /* июн */
    {"\xd0\xb8\xd1\x8e\xd0\xbb", 7},  /* июл */
    {"\xd0\xb0\xd0\xb2\xd0\xb3", 8},  /* авг */
    {"\xd1\x81\xd0\xb5\xd0\xbd", 9},  /* сен */
    {"\xd0\xbe\xd0\xba\xd1\x82", 10}, /* окт */
    {"\xd0\xbd\xd0\xbe\xd1\x8f", 11}, /* ноя */
    {"\xd0\xb4\xd0\xb5\xd0\xba", 12}, /* дек */
};

/* The longest month word looked up (bytes, a final '.' aside). */
#define TEXT_MONTH_WORD 12

/* "5月" (zh_CN, ja_JP), "5월" (ko_KR): the month, 0 when w bytes at s are not one. */
static int text_month_cjk(const char *s, size_t w)
{
	static const char yue[] = "\xe6\x9c\x88", wol[] = "\xec\x9b\x94"; /* 月, 월 */
	size_t d = parser_text_is_digit(s[0]) ? w > 1 && parser_text_is_digit(s[1]) ? 2 : 1 : 0;
	int m;

	if (d == 0 || w != d + 3 || (memcmp(s + d, yue, 3) != 0 && memcmp(s + d, wol, 3) != 0))
		return 0;
	m = d == 2 ? (s[0] - '0') * 10 + (s[1] - '0') : s[0] - '0';
	return m >= 1 && m <= 12 ? m : 0;
}

/* The month a locale's word of w bytes names, 0 if none. */
static int text_month_word(const char *s, size_t w)
{
	char low[TEXT_MONTH_WORD + 1];
	int m = text_month_cjk(s, w);

	if (m != 0)
		return m;
	if (w > 1 && s[w - 1] == '.')
		w--;
	if (w > TEXT_MONTH_WORD)
		return 0;
	for (size_t i = 0; i < w; i++)
		low[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
	low[w] = '\0';
	for (size_t i = 0; i < sizeof text_month_words / sizeof *text_month_words; i++)
		if (strcmp(text_month_words[i].word, low) == 0)
			return text_month_words[i].mon;
	return 0;
}

/*
 * A journal date in another locale ("5月 13 15:33:29", " 5월 13 ...", "Mär 05 ...",
 * "janv. 05 ...", "мая 13 ..."; ja_JP and ko_KR pad a one-digit month with a space).  The date
 * is read as its English twin; the bytes taken are the original's.
 */
static size_t text_short_date_local(const char *s, size_t n, int *mon, int *day, int64_t *tod)
{
	size_t lead = n > 1 && s[0] == ' ' && parser_text_is_digit(s[1]) ? 1 : 0, w = 0, rest, took;
	char en[48];
	int m;

	s += lead;
	n -= lead;
	while (w < n && w <= TEXT_MONTH_WORD + 1 && s[w] != ' ')
		w++;
	/* the shape after the word, " dd hh:" or "  d hh:", before any lookup */
	if (w == 0 || w + 7 > n || s[w + 3] != ' ' || s[w + 6] != ':' ||
	    !parser_text_is_digit(s[w + 2]) || (m = text_month_word(s, w)) == 0)
		return 0;
	memcpy(en, text_months + (m - 1) * 3, 3);
	rest = n - w < sizeof en - 3 ? n - w : sizeof en - 3;
	memcpy(en + 3, s + w, rest);
	took = text_short_date_en(en, rest + 3, mon, day, tod);
	return took > 0 ? took - 3 + w + lead : 0;
}

/* "Apr 05 06:04:04[.857303] " or "Sep  3 07:35:28 " (or "12月 11 ...", "Mär 05 ..."): the bytes
 * taken, 0 if none. */
size_t parser_text_short_date(const char *s, size_t n, int *mon, int *day, int64_t *tod)
{
	size_t took = text_short_date_en(s, n, mon, day, tod);

	return took > 0 ? took : text_short_date_local(s, n, mon, day, tod);
}

/*
 * The month (1-12) whose English name s[0..3) spells as text_months writes it ("Jan"), 0 if
 * none: twelve three-byte compares, where a memmem over the names cost several times more
 * (two dates a journal line).
 */
static int text_month_en(const char *s)
{
	for (int m = 0; m < 12; m++) {
		const char *name = text_months + 3 * m;

		if (name[0] == s[0] && name[1] == s[1] && name[2] == s[2])
			return m + 1;
	}
	return 0;
}

static size_t text_short_date_en(const char *s, size_t n, int *mon, int *day, int64_t *tod)
{
	size_t i = 15;
	int m;
	int64_t us = 0, scale = 1000000;
	int hh, mm, ss;

	if (n < 17 || s[3] != ' ' || s[6] != ' ' || s[9] != ':' || s[12] != ':')
		return 0;
	if ((m = text_month_en(s)) == 0)
		return 0;
	if (!parser_text_is_digit(s[5]) || (s[4] != ' ' && !parser_text_is_digit(s[4])))
		return 0;
	for (size_t k = 7; k < 15; k++)
		if (k != 9 && k != 12 && !parser_text_is_digit(s[k]))
			return 0;
	if (s[i] == '.')
		for (i++; i < n && parser_text_is_digit(s[i]); i++)
			if (scale > 1)
				us += (s[i] - '0') * (scale /= 10);
	if (i >= n || s[i] != ' ')
		return 0;
	hh = (s[7] - '0') * 10 + s[8] - '0';
	mm = (s[10] - '0') * 10 + s[11] - '0';
	ss = (s[13] - '0') * 10 + s[14] - '0';
	/* "25:61:61" is no time of day: it would spill into the next day */
	if (hh > 23 || mm > 59 || ss > 60)
		return 0;
	*mon = m;
	*day = (s[4] == ' ' ? 0 : s[4] - '0') * 10 + (s[5] - '0');
	*tod = ((int64_t)hh * 3600 + mm * 60 + ss) * 1000000 + us;
	return *day >= 1 && *day <= 31 ? i + 1 : 0;
}

/*
 * An RFC 3339 time as the first word: the bytes taken with its space, 0 if
 * none; *zone_us gets its offset (local minus UTC) when zone_us is given.
 */
size_t parser_text_iso(const char *s, size_t n, int64_t *us, int64_t *zone_us)
{
	int64_t zone;

	const char *sp;
	size_t k;

	if (n < 21 || !parser_text_is_digit(s[0]) || s[4] != '-' || s[10] != 'T')
		return 0;
	sp = memchr(s, ' ', n < 48 ? n : 48);
	k = sp ? (size_t)(sp - s) : n;
	if (lt_time_parse_zone(us, zone_us ? zone_us : &zone, s, k) != 0)
		return 0;
	return sp ? k + 1 : k;
}

/* "IDENT[PID]: " or, with no pid allowed, "IDENT: ": the bytes taken, 0 if none. */
size_t parser_text_ident(struct lt_log_line *ln, const char *s, size_t n, int need_pid)
{
	size_t i = 0, p;

	while (i < n && s[i] != '[' && s[i] != ':' && s[i] != ' ')
		i++;
	if (i == 0 || i >= n)
		return 0;
	ln->ident = (struct lt_str){s, i};
	ln->pid = -1;
	if (s[i] == '[') {
		for (p = ++i, ln->pid = 0; i < n && parser_text_is_digit(s[i]) && i - p < 10; i++)
			ln->pid = ln->pid * 10 + (s[i] - '0');
		if (i == p || i + 1 >= n || s[i] != ']')
			return 0;
		i++;
	} else if (need_pid) {
		return 0;
	}
	if (i >= n || s[i] != ':')
		return 0;
	i++;
	return i < n && s[i] == ' ' ? i + 1 : i;
}

int parser_text_jsonlog_line(const char *s, size_t n)
{
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return n >= 2 && s[0] == '{' && s[n - 1] == '}' && parser_jsonlog_probe(s, n);
}

int parser_text_header_line(const char *s, size_t n)
{
	return parser_text_prefix(s, n, "-- Logs begin at") ||
	       parser_text_prefix(s, n, "-- Journal begins at") ||
	       parser_text_prefix(s, n, "-- No entries --") ||
	       parser_text_prefix(s, n, "-- Reboot --") || parser_text_prefix(s, n, "-- Boot ");
}

/* True when s[0..n) starts with shape ('d' a digit, anything else itself). */
static int text_shape(const char *s, size_t n, const char *shape)
{
	size_t k = 0;

	for (; shape[k] != '\0'; k++)
		if (k >= n || (shape[k] == 'd' ? !parser_text_is_digit(s[k]) : s[k] != shape[k]))
			return 0;
	return 1;
}

/* The zone after a said time: "Z", "+07:00", "-0700", " -0700 PDT" (Go); its bytes into iso. */
static size_t text_said_zone(const char *s, size_t n, char *iso, size_t *len)
{
	size_t at = n > 0 && s[0] == ' ' ? 1 : 0;

	if (n > 0 && s[0] == 'Z') {
		iso[(*len)++] = 'Z';
		return 1;
	}
	if (at + 5 > n || (s[at] != '+' && s[at] != '-'))
		return 0;
	if (text_shape(s + at + 1, n - at - 1, "dd:dd") ||
	    text_shape(s + at + 1, n - at - 1, "dddd")) {
		int colon = s[at + 3] == ':';

		iso[(*len)++] = s[at];
		memcpy(iso + *len, s + at + 1, 2);
		iso[*len + 2] = ':';
		memcpy(iso + *len + 3, s + at + 3 + colon, 2);
		*len += 5;
		return at + 5 + (size_t)colon;
	}
	return 0;
}

/* A full date at s ("YYYY-MM-DD[ T]HH:MM:SS[.f][zone]"): 1 with its time, else 0. */
static int text_said_at(const char *s, size_t n, int64_t *us, int *zoned)
{
	char iso[48];
	size_t len = 19, i = 19, f = 0;
	int64_t zone;

	if (!text_shape(s, n, "dddd-dd-dd") || n < 19 || (s[10] != ' ' && s[10] != 'T') ||
	    !text_shape(s + 11, n - 11, "dd:dd:dd") || s[0] < '1' || s[0] > '2')
		return 0;
	memcpy(iso, s, 19);
	iso[10] = 'T';
	if (i < n && s[i] == '.') {
		iso[len++] = '.';
		for (i++; i < n && parser_text_is_digit(s[i]); i++)
			if (f++ < 9)
				iso[len++] = s[i];
		if (f == 0)
			return 0;
	}
	*zoned = text_said_zone(s + i, n - i, iso, &len) > 0;
	if (!*zoned)
		iso[len++] = 'Z';
	return lt_time_parse_zone(us, &zone, iso, len) == 0;
}

int parser_text_said(const char *s, size_t n, int64_t *us, int *zoned)
{
	const char *p = s, *end = s + n;

	/* a date's first dash is its fifth byte */
	while (end - p > 14 && (p = memchr(p + 4, '-', (size_t)(end - p - 4))) != NULL) {
		const char *d = p - 4;

		if ((d == s || !parser_text_is_digit(d[-1])) &&
		    text_said_at(d, (size_t)(end - d), us, zoned))
			return 1;
		p = p - 3;
	}
	return 0;
}

/* Reads 1..max digits at s[*i]; -1 when none. */
static int text_num(const char *s, size_t n, size_t *i, size_t max)
{
	int v = 0;
	size_t k = 0;

	for (; *i < n && k < max && parser_text_is_digit(s[*i]); ++*i, k++)
		v = v * 10 + (s[*i] - '0');
	return k > 0 ? v : -1;
}

/* One field of a UI time: digits, then sep (none for the last), into *out. */
static int text_ui_field(const char *s, size_t n, size_t *i, size_t max, char sep, int *out)
{
	if ((*out = text_num(s, n, i, max)) < 0)
		return 0;
	if (sep == 0)
		return 1;
	if (*i >= n || s[*i] != sep)
		return 0;
	++*i;
	return 1;
}

size_t parser_text_ui_time(const char *s, size_t n, int64_t *us)
{
	int mon, day, year, hh, mm, ss;
	size_t i = 0;

	if (!text_ui_field(s, n, &i, 2, '/', &mon) || !text_ui_field(s, n, &i, 2, '/', &day) ||
	    !text_ui_field(s, n, &i, 4, ' ', &year) || !text_ui_field(s, n, &i, 2, ':', &hh) ||
	    !text_ui_field(s, n, &i, 2, ':', &mm) || !text_ui_field(s, n, &i, 2, 0, &ss))
		return 0;
	if (i + 1 < n && s[i] == ' ' && (s[i + 1] == 'A' || s[i + 1] == 'P') && i + 2 < n &&
	    s[i + 2] == 'M') {
		if (hh < 1 || hh > 12)
			return 0;
		hh = hh % 12 + (s[i + 1] == 'P' ? 12 : 0);
		i += 3;
	}
	if (year < 1970 || mon < 1 || mon > 12 || day < 1 || day > 31 || hh > 23 || mm > 59 ||
	    ss > 60)
		return 0;
	while (i < n && s[i] == ' ')
		i++;
	*us = parser_text_stamp(year, mon, day, ((int64_t)hh * 3600 + mm * 60 + ss) * 1000000);
	return i;
}

size_t parser_text_cri_record(const char *s, size_t n, int64_t *us, int *partial)
{
	size_t took = parser_text_iso(s, n, us, NULL), tag;

	if (took == 0 || (tag = parser_text_cri_tag(s + took, n - took, partial)) == 0)
		return 0;
	return took + tag;
}
