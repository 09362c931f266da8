/*
 * sample-gen-buf.c - lt-gen's memory, buffers and time: allocation that
 * ends the program on failure, gen_grow (the one growth rule, with an
 * overflow check), the append-only gen_buf with JSON string escaping, civil
 * dates, RFC 3339 timestamps written and read, Go durations.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample-gen-sim.h"

/* Ends the program: nothing sensible can follow a failed allocation. */
static void gen_oom(void)
{
	fputs("lt-gen: out of memory\n", stderr);
	exit(2);
}

/* Returns calloc(n, size) or ends the program. */
void *gen_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		gen_oom();
	return p;
}

void gen_grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return;
	size_t n = *cap ? *cap : 16;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			gen_oom(); /* no such size: as good as out of memory */
		n *= 2;
	}
	if (n > SIZE_MAX / size)
		gen_oom();
	void *q = realloc(*p, n * size);
	if (!q)
		gen_oom();
	*p = q;
	*cap = n;
}

/* Appends n bytes of s to b. */
void gen_put(struct gen_buf *b, const char *s, size_t n)
{
	if (b->len + n > b->cap) {
		void *p = b->p;
		gen_grow(&p, &b->cap, b->len + n, 1);
		b->p = p;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

/* Appends the NUL-terminated string s to b. */
void gen_puts(struct gen_buf *b, const char *s)
{
	gen_put(b, s, strlen(s));
}

/* Appends the decimal digits of v to b. */
void gen_put_u64(struct gen_buf *b, uint64_t v)
{
	char t[24];
	size_t i = sizeof t;
	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	gen_put(b, t + i, sizeof t - i);
}

/* Appends s as a JSON string escaped like Go's encoding/json: quotes, backslash,
 * control characters, and also < > & (as \u003c \u003e \u0026). */
void gen_put_json(struct gen_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;
	GEN_LIT(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&')
			continue;
		gen_put(b, run, (size_t)(s - run));
		run = s + 1;
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			gen_put(b, e, 2);
		} else if (c == '\n') {
			GEN_LIT(b, "\\n");
		} else {
			char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			gen_put(b, u, 6);
		}
	}
	gen_put(b, run, (size_t)(s - run));
	GEN_LIT(b, "\"");
}

/* Frees the memory of b and empties it. */
void gen_buf_free(struct gen_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* Converts days since 1970-01-01 to a civil date (H. Hinnant's algorithm). */
void gen_civil(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
	days += 719468;
	int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	unsigned doe = (unsigned)(days - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* Returns the days since 1970-01-01 of a civil date (inverse of gen_civil). */
static int64_t gen_days(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* Writes the n low decimal digits of v, zero-padded, at p. */
void gen_digits(char *p, uint64_t v, int n)
{
	while (n-- > 0) {
		p[n] = (char)('0' + v % 10);
		v /= 10;
	}
}

/* Appends the quoted UTC time of us (µs since the epoch, >= 0): with
 * micro = true as "YYYY-MM-DDTHH:MM:SS.uuuuuuZ", else "YYYY-MM-DDTHH:MM:SSZ".
 * Caches the date part of the last second: most events share it. */
void gen_put_ts(struct gen_buf *b, int64_t us, bool micro)
{
	static int64_t last = -1;
	static char date[21];
	int64_t sec = us / GEN_SEC;
	if (sec != last) {
		int64_t y;
		unsigned m, d;
		int64_t rem = sec % 86400;
		gen_civil(sec / 86400, &y, &m, &d);
		memcpy(date, "\"0000-00-00T00:00:00", 20);
		gen_digits(date + 1, (uint64_t)y, 4);
		gen_digits(date + 6, m, 2);
		gen_digits(date + 9, d, 2);
		gen_digits(date + 12, (uint64_t)(rem / 3600), 2);
		gen_digits(date + 15, (uint64_t)(rem / 60 % 60), 2);
		gen_digits(date + 18, (uint64_t)(rem % 60), 2);
		last = sec;
	}
	gen_put(b, date, 20);
	if (micro) {
		char f[9] = ".000000Z";
		gen_digits(f + 1, (uint64_t)(us % GEN_SEC), 6);
		f[8] = '"';
		gen_put(b, f, 9);
	} else {
		GEN_LIT(b, "Z\"");
	}
}

/* Reads n decimal digits at s into *v; returns false unless all n are digits. */
static bool gen_num(const char *s, int n, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (unsigned)(s[i] - '0');
	}
	return true;
}

/* Reads an optional fraction and the zone ("Z" or ±hh:mm) at s; sets *frac (µs)
 * and *off (seconds east of UTC). Returns false on anything else. */
static bool gen_parse_zone(const char *s, int64_t *frac, int64_t *off)
{
	unsigned hh, mm;
	*frac = 0;
	*off = 0;
	if (*s == '.') {
		int n = 0;
		for (s++; *s >= '0' && *s <= '9'; s++, n++)
			if (n < 6)
				*frac = *frac * 10 + (*s - '0');
		if (n == 0)
			return false;
		for (; n < 6; n++)
			*frac *= 10;
	}
	if ((s[0] == 'Z' || s[0] == 'z') && s[1] == '\0')
		return true;
	if ((s[0] != '+' && s[0] != '-') || !gen_num(s + 1, 2, &hh) || s[3] != ':' ||
	    !gen_num(s + 4, 2, &mm) || s[6] != '\0' || hh > 23 || mm > 59)
		return false;
	*off = (s[0] == '-' ? -1 : 1) * (int64_t)(hh * 3600 + mm * 60);
	return true;
}

/* Parses an RFC 3339 time (1970..9999) into µs since the epoch; returns 0 or -1. */
int gen_parse_time(const char *s, int64_t *out)
{
	unsigned y, mo, d, h, mi, se, m2, d2;
	int64_t y2, frac, off;
	if (strlen(s) < 20 || !gen_num(s, 4, &y) || s[4] != '-' || !gen_num(s + 5, 2, &mo) ||
	    s[7] != '-' || !gen_num(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't') ||
	    !gen_num(s + 11, 2, &h) || s[13] != ':' || !gen_num(s + 14, 2, &mi) || s[16] != ':' ||
	    !gen_num(s + 17, 2, &se) || !gen_parse_zone(s + 19, &frac, &off))
		return -1;
	if (y < 1971 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59)
		return -1;
	int64_t days = gen_days(y, mo, d);
	gen_civil(days, &y2, &m2, &d2);
	if (m2 != mo || d2 != d)
		return -1;
	*out = (days * 86400 + h * 3600 + mi * 60 + se - off) * GEN_SEC + frac;
	return 0;
}

/* Appends a Go time.Duration string of whole seconds ("7m46s", "5m0s"). */
void gen_put_dur(struct gen_buf *b, unsigned secs)
{
	if (secs >= 60) {
		gen_put_u64(b, secs / 60);
		GEN_LIT(b, "m");
	}
	gen_put_u64(b, secs % 60);
	GEN_LIT(b, "s");
}
