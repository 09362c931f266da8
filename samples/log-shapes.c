/*
 * log-shapes.c - text logs (klog, journalctl short, audit JSON lines) rewritten in the shapes
 * other tools hand them out in, for tests and benchmarks.  The same story, another shape.
 *
 *   log-shapes --to SHAPE [--year Y] [--width W] [--host H] < in > out
 *
 * SHAPE, for a klog file (kube-controller-manager, kubelet --output=cat):
 *   mixed        kubectl logs of an operator: every second info line becomes a line of
 *                Kubernetes' JSON log format ({"ts":EPOCH,"caller":FILE:LINE,"msg":...,
 *                "v":0,KEY:VALUE...}, the klog time of the year --year; a structured
 *                line's pairs as members, when JSON reads its values alike); the rest
 *                stays klog
 *   rancher      Rancher's UI export: the viewer's local time (UTC-7, M/D/YYYY h:mm:ss AM)
 *                glued before each klog header
 *   rsyslog-cri  rsyslog forwarding a container's CRI log (imfile, RKE2): "RFC3339 HOST TAG:
 *                TIME stderr F LINE", the forwarder's time 0.4 s after the runtime's; a line
 *                over 160 bytes is written as two records, P then F
 * for a journalctl short file (with its "-- Logs begin at" header):
 *   journal-LL   the journal in locale LL (de, fr, es, ru, ko, ja, zh): month abbreviations
 *                and the header's weekdays as glibc's LC_TIME writes them (abmon, abday)
 * for any text log or JSON lines:
 *   wrap         every line hard-wrapped at --width code points (default 100)
 *
 * Plain C11 and libc.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES (16u * 1024 * 1024)

struct opts {
	int year;
	size_t width;
	const char *host;
	const char *locale;
};

/* ---- klog headers ------------------------------------------------------------------ */

static int digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* A klog header "Lmmdd hh:mm:ss.uuuuuu THREAD FILE:N] ": µs of the year, where the location
 * and the message start; -1 when the line has none. */
static int64_t klog_us(const char *s, size_t n, int year, size_t *loc, size_t *msg)
{
	int mo, d, h, mi, se, us;
	size_t i = 21;

	if (n < 24 || strchr("IWEF", s[0]) == NULL || s[5] != ' ' || s[8] != ':' || s[14] != '.')
		return -1;
	mo = digits(s + 1, 2), d = digits(s + 3, 2), h = digits(s + 6, 2);
	mi = digits(s + 9, 2), se = digits(s + 12, 2), us = digits(s + 15, 6);
	if (mo < 1 || d < 1 || h < 0 || mi < 0 || se < 0 || us < 0)
		return -1;
	while (i < n && s[i] == ' ')
		i++;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i >= n || s[i] != ' ')
		return -1;
	*loc = ++i;
	while (i < n && s[i] != ']' && s[i] != ' ')
		i++;
	if (i >= n || s[i] != ']')
		return -1;
	*msg = i + 1 < n && s[i + 1] == ' ' ? i + 2 : i + 1;
	return (
	    (days_from_civil(year, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se) *
		1000000 +
	    us);
}

/* Civil date and time of day of µs since the epoch. */
static void civil(int64_t us, int *y, int *mo, int *d, int *h, int *mi, int *se, int *frac)
{
	int64_t days = us / 86400000000LL, tod = us % 86400000000LL, z, era, doe, yoe, doy, mp;

	if (tod < 0)
		tod += 86400000000LL, days--;
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*mo = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*mo <= 2));
	*h = (int)(tod / 3600000000LL);
	*mi = (int)(tod / 60000000 % 60);
	*se = (int)(tod / 1000000 % 60);
	*frac = (int)(tod % 1000000);
}

static void put_json_string(const char *s, size_t n)
{
	putchar('"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* ---- the shapes -------------------------------------------------------------------- */

/* A klog quoted value at s[0] == '"': its end (after the closing quote), or 0 if none. */
static size_t quoted_end(const char *s, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return 0;
}

/* True for a bare klog value JSON can hold as it is: a number, true, false. */
static int json_bare(const char *s, size_t n)
{
	size_t i = s[0] == '-' ? 1 : 0;

	if ((n == 4 && memcmp(s, "true", 4) == 0) || (n == 5 && memcmp(s, "false", 5) == 0))
		return 1;
	if (i >= n || s[i] < '1' || s[i] > '9')
		return n == 1 && s[0] == '0';
	for (; i < n; i++)
		if ((s[i] < '0' || s[i] > '9') && s[i] != '.')
			return 0;
	return 1;
}

/*
 * The pairs of a structured message (key="quoted" or key=bare, space separated) as JSON
 * members; 0 when they are not all such pairs (the line then stays klog).  Go's %q escapes
 * that JSON reads alike (\" \\ \n \t) are copied; a line with any other stays klog.
 */
static int json_pairs(const char *p, size_t n, char *out, size_t cap)
{
	size_t i = 0, o = 0;

	while (i < n) {
		size_t k = i, v, e;

		while (i < n && p[i] != '=' && p[i] != ' ' && p[i] != '"')
			i++;
		if (i >= n || p[i] != '=' || i == k)
			return 0;
		v = ++i;
		if (v < n && p[v] == '"') {
			if ((e = quoted_end(p + v, n - v)) == 0 || memchr(p + v, '\\', e) != NULL)
				return 0;
			e += v;
		} else {
			for (e = v; e < n && p[e] != ' '; e++)
				if (p[e] == '"' || p[e] == '\\')
					return 0;
		}
		if (o + (e - k) + 8 > cap)
			return 0;
		o += (size_t)snprintf(out + o, cap - o, ",\"%.*s\":", (int)(v - 1 - k), p + k);
		if (p[v] == '"' || json_bare(p + v, e - v)) {
			memcpy(out + o, p + v, e - v);
			o += e - v;
		} else {
			o += (size_t)snprintf(out + o, cap - o, "\"%.*s\"", (int)(e - v), p + v);
		}
		i = e < n && p[e] == ' ' ? e + 1 : e;
	}
	out[o] = '\0';
	return 1;
}

static void mixed(const char *s, size_t n, const struct opts *o, unsigned long long *k)
{
	static char pairs[64 * 1024];
	size_t loc, msg, mend = 0;
	int64_t us = klog_us(s, n, o->year, &loc, &msg);

	pairs[0] = '\0';
	/* info lines: printf messages, or structured ones whose values JSON reads alike */
	if (us >= 0 && msg < n && s[msg] == '"') {
		mend = quoted_end(s + msg, n - msg);
		if (mend == 0 || memchr(s + msg, '\\', mend) != NULL ||
		    !json_pairs(s + msg + mend + (msg + mend < n),
				n - msg - mend - (msg + mend < n), pairs, sizeof pairs))
			us = -1;
	}
	if (us < 0 || s[0] != 'I' || msg >= n || (*k)++ % 2 == 1) {
		fwrite(s, 1, n, stdout);
		putchar('\n');
		return;
	}
	printf("{\"ts\":%lld.%06lld,\"caller\":", (long long)(us / 1000000),
	       (long long)(us % 1000000));
	put_json_string(s + loc, msg - loc - 1 - (s[msg - 1] == ' '));
	printf(",\"msg\":");
	if (mend > 0)
		fwrite(s + msg, 1, mend, stdout);
	else
		put_json_string(s + msg, n - msg);
	printf(",\"v\":0%s}\n", pairs);
}

static void rancher(const char *s, size_t n, const struct opts *o)
{
	size_t loc, msg;
	int64_t us = klog_us(s, n, o->year, &loc, &msg);
	int y, mo, d, h, mi, se, frac;

	if (us >= 0) {
		civil(us - 7 * 3600 * 1000000LL, &y, &mo, &d, &h, &mi, &se, &frac);
		printf("%d/%d/%d %d:%02d:%02d %s", mo, d, y, h % 12 == 0 ? 12 : h % 12, mi, se,
		       h < 12 ? "AM" : "PM");
	}
	fwrite(s, 1, n, stdout);
	putchar('\n');
}

static void iso(int64_t us, int nanos, const char *zone)
{
	int y, mo, d, h, mi, se, frac;

	civil(us, &y, &mo, &d, &h, &mi, &se, &frac);
	printf("%04d-%02d-%02dT%02d:%02d:%02d.%06d%s%s", y, mo, d, h, mi, se, frac,
	       nanos ? "000" : "", zone);
}

static void rsyslog_record(int64_t us, const struct opts *o, const char *tag, const char *s,
			   size_t n)
{
	iso(us + 400000, 0, "+00:00");
	printf(" %s kube-controller-manager.log: ", o->host);
	iso(us, 1, "Z");
	printf(" stderr %s ", tag);
	fwrite(s, 1, n, stdout);
	putchar('\n');
}

static void rsyslog_cri(const char *s, size_t n, const struct opts *o)
{
	size_t loc, msg;
	int64_t us = klog_us(s, n, o->year, &loc, &msg);

	if (us < 0)
		return;
	if (n > 160) {
		rsyslog_record(us, o, "P", s, 100);
		rsyslog_record(us, o, "F", s + 100, n - 100);
	} else {
		rsyslog_record(us, o, "F", s, n);
	}
}

/* glibc 2.36 LC_TIME: abmon (ja_JP, ko_KR pad a one-digit month with a space) and abday. */
static const struct {
	const char *ll;
	const char *mon[12];
	const char *day[7];
} locales[] = {
    {"de",
     {"Jan", "Feb", "M\xc3\xa4r", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez"},
     {"So", "Mo", "Di", "Mi", "Do", "Fr", "Sa"}},
    {"fr",
     {"janv.", "f\xc3\xa9vr.", "mars", "avril", "mai", "juin", "juil.", "ao\xc3\xbbt", "sept.",
      "oct.", "nov.",
      "d\xc3\xa9"
      "c."},
     {"dim.", "lun.", "mar.", "mer.", "jeu.", "ven.", "sam."}},
    {"es",
     {"ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic"},
     {"dom", "lun", "mar", "mi\xc3\xa9", "jue", "vie",
      "s\xc3\xa1"
      "b"}},
    {"ru",
     {"\xd1\x8f\xd0\xbd\xd0\xb2", "\xd1\x84\xd0\xb5\xd0\xb2", "\xd0\xbc\xd0\xb0\xd1\x80",
      "\xd0\xb0\xd0\xbf\xd1\x80", "\xd0\xbc\xd0\xb0\xd1\x8f", "\xd0\xb8\xd1\x8e\xd0\xbd",
      "\xd0\xb8\xd1\x8e\xd0\xbb", "\xd0\xb0\xd0\xb2\xd0\xb3", "\xd1\x81\xd0\xb5\xd0\xbd",
      "\xd0\xbe\xd0\xba\xd1\x82", "\xd0\xbd\xd0\xbe\xd1\x8f", "\xd0\xb4\xd0\xb5\xd0\xba"},
     {"\xd0\x92\xd1\x81", "\xd0\x9f\xd0\xbd", "\xd0\x92\xd1\x82", "\xd0\xa1\xd1\x80",
      "\xd0\xa7\xd1\x82", "\xd0\x9f\xd1\x82", "\xd0\xa1\xd0\xb1"}},
    {"ko",
     {" 1\xec\x9b\x94", " 2\xec\x9b\x94", " 3\xec\x9b\x94", " 4\xec\x9b\x94", " 5\xec\x9b\x94",
      " 6\xec\x9b\x94", " 7\xec\x9b\x94", " 8\xec\x9b\x94", " 9\xec\x9b\x94", "10\xec\x9b\x94",
      "11\xec\x9b\x94", "12\xec\x9b\x94"},
     {"\xec\x9d\xbc", "\xec\x9b\x94", "\xed\x99\x94", "\xec\x88\x98", "\xeb\xaa\xa9",
      "\xea\xb8\x88", "\xed\x86\xa0"}},
    {"ja",
     {" 1\xe6\x9c\x88", " 2\xe6\x9c\x88", " 3\xe6\x9c\x88", " 4\xe6\x9c\x88", " 5\xe6\x9c\x88",
      " 6\xe6\x9c\x88", " 7\xe6\x9c\x88", " 8\xe6\x9c\x88", " 9\xe6\x9c\x88", "10\xe6\x9c\x88",
      "11\xe6\x9c\x88", "12\xe6\x9c\x88"},
     {"\xe6\x97\xa5", "\xe6\x9c\x88", "\xe7\x81\xab", "\xe6\xb0\xb4", "\xe6\x9c\xa8",
      "\xe9\x87\x91", "\xe5\x9c\x9f"}},
    {"zh",
     {"1\xe6\x9c\x88", "2\xe6\x9c\x88", "3\xe6\x9c\x88", "4\xe6\x9c\x88", "5\xe6\x9c\x88",
      "6\xe6\x9c\x88", "7\xe6\x9c\x88", "8\xe6\x9c\x88", "9\xe6\x9c\x88", "10\xe6\x9c\x88",
      "11\xe6\x9c\x88", "12\xe6\x9c\x88"},
     {"\xe6\x97\xa5", "\xe4\xb8\x80", "\xe4\xba\x8c", "\xe4\xb8\x89", "\xe5\x9b\x9b",
      "\xe4\xba\x94", "\xe5\x85\xad"}},
};

static const char en_mon[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
static const char en_day[] = "SunMonTueWedThuFriSat";

static int locale_of(const char *ll)
{
	for (size_t i = 0; i < sizeof locales / sizeof *locales; i++)
		if (strcmp(locales[i].ll, ll) == 0)
			return (int)i;
	return -1;
}

/* "-- Logs begin at Fri 2024-..., end at Fri 2024-... --": each English weekday localized. */
static void journal_header(const char *s, size_t n, int l)
{
	for (size_t i = 0; i < n; i++) {
		const char *d = i + 4 < n && s[i + 3] == ' ' && (i == 0 || s[i - 1] == ' ') &&
					s[i + 4] >= '0' && s[i + 4] <= '9'
				    ? strstr(en_day, (char[4]){s[i], s[i + 1], s[i + 2], 0})
				    : NULL;

		if (d != NULL && (d - en_day) % 3 == 0) {
			fputs(locales[l].day[(d - en_day) / 3], stdout);
			i += 2;
		} else {
			putchar(s[i]);
		}
	}
	putchar('\n');
}

static void journal(const char *s, size_t n, int l)
{
	const char *m =
	    n > 4 && s[3] == ' ' ? strstr(en_mon, (char[4]){s[0], s[1], s[2], 0}) : NULL;

	if (n > 3 && memcmp(s, "-- ", 3) == 0) {
		journal_header(s, n, l);
		return;
	}
	if (m != NULL && (m - en_mon) % 3 == 0) {
		fputs(locales[l].mon[(m - en_mon) / 3], stdout);
		s += 3, n -= 3;
	}
	fwrite(s, 1, n, stdout);
	putchar('\n');
}

/* Hard-wrapped at width code points (a UTF-8 sequence is never split). */
static void wrap(const char *s, size_t n, size_t width)
{
	size_t cps = 0;

	for (size_t i = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			if (cps == width) {
				putchar('\n');
				cps = 0;
			}
			cps++;
		}
		putchar(s[i]);
	}
	putchar('\n');
}

/* ---- main --------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	struct opts o = {.year = 2024, .width = 100, .host = "node-1", .locale = NULL};
	const char *to = NULL;
	char *line = malloc(LINE_MAX_BYTES);
	unsigned long long k = 0;
	int l = -1;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--to") == 0)
			to = argv[i + 1];
		else if (strcmp(argv[i], "--year") == 0)
			o.year = (int)strtol(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--width") == 0)
			o.width = (size_t)strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--host") == 0)
			o.host = argv[i + 1];
	}
	if (to != NULL && strncmp(to, "journal-", 8) == 0)
		l = locale_of(to + 8);
	if (line == NULL || to == NULL || o.width == 0 ||
	    (strcmp(to, "mixed") != 0 && strcmp(to, "rancher") != 0 &&
	     strcmp(to, "rsyslog-cri") != 0 && strcmp(to, "wrap") != 0 && l < 0)) {
		fprintf(stderr,
			"usage: log-shapes --to mixed|rancher|rsyslog-cri|wrap|journal-"
			"{de,fr,es,ru,ko,ja,zh} [--year Y] [--width W] [--host H] <in >out\n");
		free(line);
		return 2;
	}
	while (fgets(line, LINE_MAX_BYTES, stdin) != NULL) {
		size_t n = strcspn(line, "\r\n");

		if (l >= 0)
			journal(line, n, l);
		else if (strcmp(to, "mixed") == 0)
			mixed(line, n, &o, &k);
		else if (strcmp(to, "rancher") == 0)
			rancher(line, n, &o);
		else if (strcmp(to, "rsyslog-cri") == 0)
			rsyslog_cri(line, n, &o);
		else
			wrap(line, n, o.width);
	}
	free(line);
	return ferror(stdout) ? 1 : 0;
}
