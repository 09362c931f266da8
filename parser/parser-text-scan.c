/*
 * parser-text-scan.c - the small scanners of the text reader: a journal
 * short date ("Apr 05 06:04:04[.857303]"), an RFC 3339 time as the first
 * word, a syslog "IDENT[PID]: " and journalctl's "-- ... --" lines.  Pure
 * functions of their bytes: no state, no allocation.
 */
#define _GNU_SOURCE /* memmem */
#include "parser-text.h"

#include <string.h>

static const char text_months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

static size_t text_short_date_en(const char *s, size_t n, int *mon, int *day, int64_t *tod);

/*
 * A month as a Chinese (zh_CN) locale writes it: "12月 11 23:14:27", "5月 13 15:33:29".  The
 * date is read as its English twin; the bytes taken are the original's.
 */
static size_t text_short_date_zh(const char *s, size_t n, int *mon, int *day, int64_t *tod)
{
	static const char yue[] = "\xe6\x9c\x88"; /* 月 */
	size_t d, took;
	char en[48];
	int m;

	if (n < 8)
		return 0;
	d = parser_text_is_digit(s[0]) ? parser_text_is_digit(s[1]) ? 2 : 1 : 0;
	if (d == 0 || memcmp(s + d, yue, 3) != 0)
		return 0;
	m = d == 2 ? (s[0] - '0') * 10 + (s[1] - '0') : s[0] - '0';
	if (m < 1 || m > 12)
		return 0;
	memcpy(en, text_months + (m - 1) * 3, 3);
	n -= d + 3;
	n = n < sizeof en - 3 ? n : sizeof en - 3;
	memcpy(en + 3, s + d + 3, n);
	took = text_short_date_en(en, n + 3, mon, day, tod);
	return took > 0 ? took - 3 + d + 3 : 0;
}

/* "Apr 05 06:04:04[.857303] " or "Sep  3 07:35:28 " (or "12月 11 ..."): the bytes taken, 0 if none.
 */
size_t parser_text_short_date(const char *s, size_t n, int *mon, int *day, int64_t *tod)
{
	return n > 0 && (unsigned char)s[0] < 0x80 && parser_text_is_digit(s[0])
		   ? text_short_date_zh(s, n, mon, day, tod)
		   : text_short_date_en(s, n, mon, day, tod);
}

static size_t text_short_date_en(const char *s, size_t n, int *mon, int *day, int64_t *tod)
{
	const char *m;
	size_t i = 15;
	int64_t us = 0, scale = 1000000;
	int hh, mm, ss;

	if (n < 17 || s[3] != ' ' || s[6] != ' ' || s[9] != ':' || s[12] != ':')
		return 0;
	if ((m = memmem(text_months, 36, s, 3)) == NULL || (m - text_months) % 3 != 0)
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
	*mon = (int)((m - text_months) / 3) + 1;
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
