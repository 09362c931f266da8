/*
 * parser-text-year.c - the year and zone of year-less times.  Journal short
 * and klog times carry no year: the first such time of a file picks one
 * (--year, else the dates of journalctl's header line, else the audit
 * events in the store, else the file's mtime, else the clock) and a month
 * going back (Dec -> Jan) moves it on.  Journal short times and klog
 * headers are the host's local time: a journal line with an offset
 * (short-iso) gives it for its klog time too; otherwise --utc-offset does
 * (sink->utc_offset_us), and without it UTC.
 */
#include "parser-text.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *lt_year_rule_name(enum lt_year_rule r)
{
	static const char *const names[] = {"in the log", "--year", "audit events",
					    "file mtime", "clock",  "journal header"};

	return (unsigned)r < sizeof names / sizeof *names ? names[r] : "?";
}

/* The offset for the current line's klog (and zone-less) times. */
int64_t parser_text_zone(const struct parser_textlog *t)
{
	return t->line_zone_set ? t->line_zone_us : t->sink->utc_offset_us;
}

int64_t parser_text_stamp(int year, int mon, int day, int64_t tod)
{
	return lt_time_days_from_civil(year, (unsigned)mon, (unsigned)day) * PARSER_TEXT_DAY_US +
	       tod;
}

/* The year that puts (mon, day, tod) nearest to the time ref. */
int parser_text_year_near(int64_t ref, int mon, int day, int64_t tod)
{
	int y = lt_time_year(ref), best = y;
	int64_t best_d = -1;

	for (int c = y - 1; c <= y + 1; c++) {
		int64_t d = llabs(parser_text_stamp(c, mon, day, tod) - ref);

		if (best_d < 0 || d < best_d)
			best = c, best_d = d;
	}
	return best;
}

/* The year that puts (mon, day, tod) within [lo, hi], or nearest to it. */
static int text_year_within(int64_t lo, int64_t hi, int mon, int day, int64_t tod)
{
	int best = lt_time_year(lo), best_set = 0;
	int64_t best_d = 0;

	for (int c = lt_time_year(lo) - 1; c <= lt_time_year(hi) + 1; c++) {
		int64_t t = parser_text_stamp(c, mon, day, tod);
		int64_t d = t < lo ? lo - t : t > hi ? t - hi : 0;

		if (!best_set || d < best_d)
			best = c, best_d = d, best_set = 1;
	}
	return best;
}

static void text_year_pick(struct parser_textlog *t, int mon, int day, int64_t tod)
{
	const struct lt_sink *s = t->sink;
	int64_t ref;

	if (s->year > 0) {
		t->year = s->year, t->rule = LT_YEAR_GIVEN;
		return;
	}
	if (t->head_hi > 0) {
		t->year = text_year_within(t->head_lo, t->head_hi, mon, day, tod);
		t->rule = LT_YEAR_HEADER;
		return;
	}
	if (s->year_hi_us > 0) {
		t->year = text_year_within(s->year_lo_us, s->year_hi_us, mon, day, tod);
		t->rule = LT_YEAR_AUDIT;
		return;
	}
	t->rule = t->mtime > 0 ? LT_YEAR_MTIME : LT_YEAR_CLOCK;
	ref = (t->mtime > 0 ? t->mtime : (int64_t)time(NULL)) * 1000000;
	/* a log is written before the file's last change: not after it (allow a clock skew) */
	t->year = lt_time_year(ref);
	if (parser_text_stamp(t->year, mon, day, tod) > ref + 2 * PARSER_TEXT_DAY_US)
		t->year--;
}

/* The year of the file's next year-less time; Dec -> Jan moves it on. */
int parser_text_year(struct parser_textlog *t, int mon, int day, int64_t tod)
{
	/* the scanners hand over real dates only */
	assert(mon >= 1 && mon <= 12 && day >= 1 && day <= 31 && tod >= 0);
	if (t->year == 0)
		text_year_pick(t, mon, day, tod);
	else if (t->last_month - mon > 6)
		t->year++;
	else if (mon - t->last_month > 6)
		t->year--; /* a file read newest first (journalctl -r) */
	t->last_month = mon;
	return t->year;
}

/* The first "YYYY-MM-DD HH:MM:SS" in s[0..n) as µs (taken as UTC, like the lines); 0 if none. */
static int64_t text_header_date(const char *s, size_t n, size_t *used)
{
	static const char shape[] = "dddd-dd-dd dd:dd:dd";
	const size_t w = sizeof shape - 1;
	char iso[sizeof shape + 1];
	int64_t us;

	for (size_t i = 0; i + w <= n; i++) {
		size_t k = 0;

		while (k < w && (shape[k] == 'd' ? s[i + k] >= '0' && s[i + k] <= '9'
						 : s[i + k] == shape[k]))
			k++;
		if (k < w)
			continue;
		memcpy(iso, s + i, w);
		iso[w] = 'Z';
		if (lt_time_parse(&us, iso, w + 1) == 0) {
			*used = i + w;
			return us;
		}
	}
	return 0;
}

/*
 * "-- Logs begin at Fri 2024-04-05 05:50:00 UTC, end at Fri 2024-04-05
 * 06:04:39 UTC. --" (or "Journal begins at ..., ends at ..."): the range
 * every line below lies in, which gives year-less times their year.
 * Without an end, the year after the beginning.
 */
void parser_text_header_range(struct parser_textlog *t, const char *s, size_t n)
{
	size_t used = 0, more = 0;
	int64_t lo, hi;

	if (!parser_text_prefix(s, n, "-- Logs begin at") &&
	    !parser_text_prefix(s, n, "-- Journal begins at"))
		return;
	if ((lo = text_header_date(s, n, &used)) <= 0)
		return;
	hi = text_header_date(s + used, n - used, &more);
	t->head_lo = lo;
	t->head_hi = hi >= lo ? hi : lo + 365 * PARSER_TEXT_DAY_US;
}
