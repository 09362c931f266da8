/* base-time.c - RFC 3339 timestamps to and from microseconds since the epoch. */
#include "lt_base.h"

#include <string.h>

/* Howard Hinnant's days_from_civil: exact for every proleptic Gregorian date. */
int64_t lt_time_days_from_civil(int64_t y, unsigned m, unsigned d)
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

/* Reads exactly n digits at s into *out; 0 on success. */
static int time_digits(int *out, const char *s, size_t n)
{
	int v = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

static int time_days_in_month(int y, int m)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 ? 28 + leap : days[m - 1];
}

/* Parses ".ffffff" (any count of digits) at s[*i]; leaves *i after it. */
static int64_t time_fraction(const char *s, size_t len, size_t *i)
{
	int64_t us = 0;
	int digits = 0;

	if (*i >= len || s[*i] != '.')
		return 0;
	for ((*i)++; *i < len && s[*i] >= '0' && s[*i] <= '9'; (*i)++) {
		if (digits < 6) {
			us = us * 10 + (s[*i] - '0');
			digits++;
		}
	}
	while (digits++ < 6)
		us *= 10;
	return us;
}

/* Parses "Z", "+hh:mm", "-hhmm" at s[i..len) into seconds east of UTC. */
static int time_zone(int64_t *out, const char *s, size_t len, size_t i)
{
	int hh, mm;
	int sign;

	if (i == len - 1 && (s[i] == 'Z' || s[i] == 'z')) {
		*out = 0;
		return 0;
	}
	if (i >= len || (s[i] != '+' && s[i] != '-'))
		return -1;
	sign = s[i] == '-' ? -1 : 1;
	/* RFC 3339: hours 00..23, minutes 00..59 (+99:99 is no offset) */
	if (len - i == 6 && s[i + 3] == ':' && time_digits(&hh, s + i + 1, 2) == 0 &&
	    time_digits(&mm, s + i + 4, 2) == 0 && hh <= 23 && mm <= 59) {
		*out = sign * (hh * 3600 + mm * 60);
		return 0;
	}
	if (len - i == 5 && time_digits(&hh, s + i + 1, 2) == 0 &&
	    time_digits(&mm, s + i + 3, 2) == 0 && hh <= 23 && mm <= 59) {
		*out = sign * (hh * 3600 + mm * 60);
		return 0;
	}
	return -1;
}

int lt_time_zone(int64_t *zone_us, const char *s, size_t len)
{
	int64_t sec;

	if (len == 0 || time_zone(&sec, s, len, 0) != 0)
		return LT_ERR_FORMAT;
	*zone_us = sec * 1000000;
	return 0;
}

int lt_time_parse(int64_t *out, const char *s, size_t len)
{
	int64_t zone;

	return lt_time_parse_zone(out, &zone, s, len);
}

int lt_time_parse_zone(int64_t *out, int64_t *zone_us, const char *s, size_t len)
{
	int y, mo, d, h, mi, se;
	int64_t frac, zone, days;
	size_t i = 19;

	if (len < 20 || s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':')
		return LT_ERR_FORMAT;
	if (s[10] != 'T' && s[10] != 't' && s[10] != ' ')
		return LT_ERR_FORMAT;
	if (time_digits(&y, s, 4) || time_digits(&mo, s + 5, 2) || time_digits(&d, s + 8, 2) ||
	    time_digits(&h, s + 11, 2) || time_digits(&mi, s + 14, 2) ||
	    time_digits(&se, s + 17, 2))
		return LT_ERR_FORMAT;
	if (mo < 1 || mo > 12 || d < 1 || d > time_days_in_month(y, mo) || h > 23 || mi > 59 ||
	    se > 60)
		return LT_ERR_FORMAT;
	frac = time_fraction(s, len, &i);
	if (time_zone(&zone, s, len, i) != 0)
		return LT_ERR_FORMAT;
	days = lt_time_days_from_civil(y, (unsigned)mo, (unsigned)d);
	*out = ((days * 86400 + h * 3600 + mi * 60 + se) - zone) * 1000000 + frac;
	*zone_us = zone * 1000000;
	return 0;
}

/* civil_from_days, the inverse of lt_time_days_from_civil */
static void time_civil(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static int64_t time_floor_div(int64_t a, int64_t b)
{
	return a >= 0 ? a / b : (a - b + 1) / b;
}

int lt_time_year(int64_t us)
{
	int64_t y;
	unsigned m, d;

	time_civil(time_floor_div(time_floor_div(us, 1000000), 86400), &y, &m, &d);
	return (int)y;
}

void lt_time_civil(int64_t us, int *year, int *mon, int *day, int64_t *tod_us)
{
	int64_t days = time_floor_div(us, 86400 * 1000000LL), y;
	unsigned m, d;

	time_civil(days, &y, &m, &d);
	*year = (int)y;
	*mon = (int)m;
	*day = (int)d;
	*tod_us = us - days * 86400 * 1000000LL;
}

void lt_time_format(char *buf, size_t size, int64_t us)
{
	int64_t secs = time_floor_div(us, 1000000);
	int64_t frac = us - secs * 1000000;
	int64_t days = time_floor_div(secs, 86400);
	int64_t rem = secs - days * 86400;
	int64_t y;
	unsigned m, d;

	time_civil(days, &y, &m, &d);

	snprintf(buf, size, "%04lld-%02u-%02uT%02d:%02d:%02d.%06lldZ", (long long)y, m, d,
		 (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60), (long long)frac);
}
