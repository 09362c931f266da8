/*
 * parser-text-year.c - the year and zone of year-less times.  Journal short
 * and klog times carry no year: the first such time of a file picks one
 * (lt_year_pick: --year, else the range of journalctl's header line, else
 * the audit events in the store, else the file's mtime, else the clock; a
 * header with a beginning only bounds the others from below) and a month
 * going back (Dec -> Jan) moves it on.  Journal short times and klog headers
 * are the host's local time: a journal line with an offset (short-iso)
 * gives it for its klog time too; otherwise --utc-offset does, else the
 * zone journalctl's header names ("PST", "+08"), else UTC.  An abbreviation
 * with several meanings ("CST") takes its first until the store's evidence
 * says otherwise (index-redate.c).
 *
 * Every line says which of its times rest on the file's year and zone
 * (LT_BASIS_*) and the basis they were computed with, so that the store can
 * move them when better evidence arrives (lt_time_redate), without parsing
 * the file again.
 */
#include "parser-text.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define YEAR_SKEW_US (2 * PARSER_TEXT_DAY_US) /* a log's last line may pass its mtime a little */

const char *lt_year_rule_name(enum lt_year_rule r)
{
	static const char *const names[] = {[LT_YEAR_NONE] = "in the log",
					    [LT_YEAR_GIVEN] = "--year",
					    [LT_YEAR_AUDIT] = "audit events",
					    [LT_YEAR_MTIME] = "file mtime",
					    [LT_YEAR_CLOCK] = "clock",
					    [LT_YEAR_HEADER] = "journal header",
					    [LT_YEAR_LINE] = "a date in its lines"};

	return (unsigned)r < sizeof names / sizeof *names ? names[r] : "?";
}

int lt_year_rule_guess(enum lt_year_rule r)
{
	return r == LT_YEAR_MTIME || r == LT_YEAR_CLOCK;
}

const char *lt_zone_rule_name(enum lt_zone_rule r)
{
	static const char *const names[] = {[LT_ZONE_ASSUMED] = "assumed UTC",
					    [LT_ZONE_GIVEN] = "--utc-offset",
					    [LT_ZONE_HEADER] = "journal header",
					    [LT_ZONE_EVIDENCE] = "evidence",
					    [LT_ZONE_GUESS] = "a guess"};

	return (unsigned)r < sizeof names / sizeof *names ? names[r] : "?";
}

/* ---- zone words --------------------------------------------------------------- */

#define H(h, m) (((h)*3600LL + (m)*60LL) * 1000000LL)

/*
 * The abbreviations glibc's zone tables make journalctl print, with every
 * meaning each has in them, the usual one first.  CST, IST, AST, BST and
 * others name several zones: the store's evidence picks (index-redate.c).
 */
static const struct zone_word {
	const char *word;
	int n;
	int64_t off[LT_ZONE_MEANINGS];
	const char *where[LT_ZONE_MEANINGS];
} zone_words[] = {
    {"UTC", 1, {0}, {"UTC"}},
    {"GMT", 1, {0}, {"GMT"}},
    {"UCT", 1, {0}, {"UTC"}},
    {"Z", 1, {0}, {"UTC"}},
    {"WET", 1, {0}, {"Western Europe"}},
    {"WEST", 1, {H(1, 0)}, {"Western Europe summer"}},
    {"CET", 1, {H(1, 0)}, {"Central Europe"}},
    {"CEST", 1, {H(2, 0)}, {"Central Europe summer"}},
    {"MET", 1, {H(1, 0)}, {"Middle Europe"}},
    {"MEST", 1, {H(2, 0)}, {"Middle Europe summer"}},
    {"EET", 1, {H(2, 0)}, {"Eastern Europe"}},
    {"EEST", 1, {H(3, 0)}, {"Eastern Europe summer"}},
    {"MSK", 1, {H(3, 0)}, {"Moscow"}},
    {"BST", 2, {H(1, 0), H(6, 0)}, {"British summer", "Bangladesh"}},
    {"IST", 3, {H(5, 30), H(1, 0), H(2, 0)}, {"India", "Irish summer", "Israel"}},
    {"IDT", 1, {H(3, 0)}, {"Israel summer"}},
    {"PKT", 1, {H(5, 0)}, {"Pakistan"}},
    {"WIB", 1, {H(7, 0)}, {"Western Indonesia"}},
    {"ICT", 1, {H(7, 0)}, {"Indochina"}},
    {"CST", 3, {H(8, 0), -H(6, 0), -H(5, 0)}, {"China", "US Central", "Cuba"}},
    {"CDT", 2, {-H(5, 0), -H(4, 0)}, {"US Central summer", "Cuba summer"}},
    {"HKT", 1, {H(8, 0)}, {"Hong Kong"}},
    {"SGT", 1, {H(8, 0)}, {"Singapore"}},
    {"AWST", 1, {H(8, 0)}, {"Western Australia"}},
    {"PHT", 1, {H(8, 0)}, {"Philippines"}},
    {"PST", 1, {-H(8, 0)}, {"US Pacific"}},
    {"KST", 1, {H(9, 0)}, {"Korea"}},
    {"JST", 1, {H(9, 0)}, {"Japan"}},
    {"ACST", 1, {H(9, 30)}, {"Central Australia"}},
    {"ACDT", 1, {H(10, 30)}, {"Central Australia summer"}},
    {"AEST", 1, {H(10, 0)}, {"Eastern Australia"}},
    {"AEDT", 1, {H(11, 0)}, {"Eastern Australia summer"}},
    {"NZST", 1, {H(12, 0)}, {"New Zealand"}},
    {"NZDT", 1, {H(13, 0)}, {"New Zealand summer"}},
    {"HST", 1, {-H(10, 0)}, {"Hawaii"}},
    {"AKST", 1, {-H(9, 0)}, {"Alaska"}},
    {"AKDT", 1, {-H(8, 0)}, {"Alaska summer"}},
    {"PDT", 1, {-H(7, 0)}, {"US Pacific summer"}},
    {"MST", 1, {-H(7, 0)}, {"US Mountain"}},
    {"MDT", 1, {-H(6, 0)}, {"US Mountain summer"}},
    {"EST", 1, {-H(5, 0)}, {"US Eastern"}},
    {"EDT", 1, {-H(4, 0)}, {"US Eastern summer"}},
    {"AST", 2, {-H(4, 0), H(3, 0)}, {"Atlantic", "Arabia"}},
    {"ADT", 1, {-H(3, 0)}, {"Atlantic summer"}},
    {"NST", 1, {-H(3, 30)}, {"Newfoundland"}},
    {"NDT", 1, {-H(2, 30)}, {"Newfoundland summer"}},
    {"BRT", 1, {-H(3, 0)}, {"Brasilia"}},
    {"ART", 1, {-H(3, 0)}, {"Argentina"}},
    {"SAST", 1, {H(2, 0)}, {"South Africa"}},
    {"CAT", 1, {H(2, 0)}, {"Central Africa"}},
    {"EAT", 1, {H(3, 0)}, {"East Africa"}},
    {"WAT", 1, {H(1, 0)}, {"West Africa"}},
};

/* "+08", "-05", "+0530", "-05:00" (glibc prints a numeric word for a zone it has no name for). */
static int zone_numeric(int64_t *off, const char *s, size_t n)
{
	char hhmm[6];

	if (n == 3 && (s[0] == '+' || s[0] == '-')) {
		memcpy(hhmm, s, 3);
		memcpy(hhmm + 3, "00", 2);
		s = hhmm;
		n = 5;
	}
	if ((n != 5 && n != 6) || (s[0] != '+' && s[0] != '-') || lt_time_zone(off, s, n) != 0)
		return LT_ERR_FORMAT;
	return llabs(*off) <= H(14, 0) ? 0 : LT_ERR_FORMAT;
}

int lt_zone_lookup(struct lt_zone_name *out, const char *s, size_t n)
{
	memset(out, 0, sizeof *out);
	if (zone_numeric(&out->off_us[0], s, n) == 0) {
		out->n = 1;
		out->where[0] = "numeric offset";
		return 0;
	}
	for (size_t i = 0; i < sizeof zone_words / sizeof *zone_words; i++) {
		const struct zone_word *w = &zone_words[i];

		if (strlen(w->word) != n || memcmp(w->word, s, n) != 0)
			continue;
		out->n = w->n;
		for (int k = 0; k < w->n; k++) {
			out->off_us[k] = w->off[k];
			out->where[k] = w->where[k];
		}
		return 0;
	}
	return LT_ERR_FORMAT;
}

#undef H

/* ---- years -------------------------------------------------------------------- */

int64_t parser_text_stamp(int year, int mon, int day, int64_t tod)
{
	return lt_time_days_from_civil(year, (unsigned)mon, (unsigned)day) * PARSER_TEXT_DAY_US +
	       tod;
}

/*
 * A stamp this near ref in ref's own year is the nearest: the same (mon, day, tod) a year
 * before or after lies 365 or 366 days from it, so at least 215 days from ref.
 */
#define TEXT_YEAR_SURE_US (150 * PARSER_TEXT_DAY_US)

/* The year that puts (mon, day, tod) nearest to the time ref (the earliest on a tie). */
int parser_text_year_near(int64_t ref, int mon, int day, int64_t tod)
{
	int y = lt_time_year(ref), best = y;
	int64_t best_d = -1;

	if (llabs(parser_text_stamp(y, mon, day, tod) - ref) < TEXT_YEAR_SURE_US)
		return y; /* the common case: one stamp, not three */

	for (int c = y - 1; c <= y + 1; c++) {
		int64_t d = llabs(parser_text_stamp(c, mon, day, tod) - ref);

		if (best_d < 0 || d < best_d)
			best = c, best_d = d;
	}
	return best;
}

int lt_year_near(int64_t ref, int mon, int day, int64_t tod)
{
	return parser_text_year_near(ref, mon, day, tod);
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

/* The last year that does not put (mon, day, tod) after ref (a log is written before its mtime). */
static int text_year_before(int64_t ref, int mon, int day, int64_t tod)
{
	int y = lt_time_year(ref);

	return parser_text_stamp(y, mon, day, tod) > ref + YEAR_SKEW_US ? y - 1 : y;
}

/* The year of the rules below a full header range, before a header's beginning bounds it. */
static int text_year_unbounded(const struct lt_year_hints *h, int mon, int day, int64_t tod,
			       enum lt_year_rule *rule)
{
	if (h->audit_hi > 0) {
		*rule = LT_YEAR_AUDIT;
		return text_year_within(h->audit_lo, h->audit_hi, mon, day, tod);
	}
	if (h->said_year > 0) {
		*rule = LT_YEAR_LINE;
		return h->said_year;
	}
	*rule = h->mtime_s > 0 ? LT_YEAR_MTIME : LT_YEAR_CLOCK;
	return text_year_before((h->mtime_s > 0 ? h->mtime_s : h->now_s) * 1000000, mon, day, tod);
}

int lt_year_pick(const struct lt_year_hints *h, int mon, int day, int64_t tod,
		 enum lt_year_rule *rule, int *raised)
{
	int year;

	assert(mon >= 1 && mon <= 12 && day >= 1 && day <= 31 && tod >= 0);
	*raised = 0;
	if (h->given > 0) {
		*rule = LT_YEAR_GIVEN;
		return h->given;
	}
	if (h->head_hi > 0) {
		*rule = LT_YEAR_HEADER;
		return text_year_within(h->head_lo, h->head_hi, mon, day, tod);
	}
	year = text_year_unbounded(h, mon, day, tod, rule);
	/* a journal whose header gives its beginning only: no line lies before that */
	while (h->head_lo > 0 &&
	       parser_text_stamp(year, mon, day, tod) < h->head_lo - YEAR_SKEW_US) {
		year++;
		*raised = 1;
	}
	return year;
}

int64_t lt_time_redate(int64_t us, int year_bit, int zone_bit, int dy, int64_t old_zone,
		       int64_t new_zone)
{
	int64_t local = us + (zone_bit ? old_zone : 0), tod;
	int y, mon, day;

	if (year_bit && dy != 0) {
		lt_time_civil(local, &y, &mon, &day, &tod);
		local = parser_text_stamp(y + dy, mon, day, tod);
	}
	return local - (zone_bit ? new_zone : 0);
}

/* ---- the reader's year and zone ------------------------------------------------ */

/* The offset for the current line's klog (and zone-less) times. */
int64_t parser_text_zone(const struct parser_textlog *t)
{
	return t->line_zone_set ? t->line_zone_us : t->basis.zone_us;
}

void parser_text_basis_init(struct parser_textlog *t)
{
	const struct lt_sink *s = t->sink;

	memset(&t->basis, 0, sizeof t->basis);
	t->basis.mtime_s = t->mtime;
	t->basis.zone_us = s->utc_offset_us;
	t->basis.zone_rule = s->utc_offset_given ? LT_ZONE_GIVEN : LT_ZONE_ASSUMED;
}

static void text_year_pick(struct parser_textlog *t, int mon, int day, int64_t tod)
{
	const struct lt_sink *s = t->sink;
	const struct lt_year_hints h = {.given = s->year,
					.head_lo = t->basis.head_lo,
					.head_hi = t->basis.head_hi,
					.audit_lo = s->year_lo_us,
					.audit_hi = s->year_hi_us,
					.mtime_s = t->mtime,
					.now_s = (int64_t)time(NULL)};

	t->year = lt_year_pick(&h, mon, day, tod, &t->rule, &t->basis.year_raised);
	t->basis.year = t->year;
	t->basis.year_rule = t->rule;
	t->basis.first_local = parser_text_stamp(t->year, mon, day, tod);
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

/* ---- journalctl's header ------------------------------------------------------- */

/* The first "YYYY-MM-DD HH:MM:SS" in s[0..n) as local µs (no zone applied); 0 if none. */
static int64_t text_header_date(const char *s, size_t n, size_t *used)
{
	static const char shape[] = "dddd-dd-dd dd:dd:dd";
	const size_t w = sizeof shape - 1;
	char iso[sizeof shape + 1];
	int64_t us;

	for (size_t i = 0; i + w <= n; i++) {
		size_t k = 0;

		while (k < w &&
		       (shape[k] == 'd' ? parser_text_is_digit(s[i + k]) : s[i + k] == shape[k]))
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

/* The zone word just after a header date ("... 05:50:00 PST, end at"): its bytes, 0 if none. */
static size_t text_header_zone_word(const char *s, size_t n, const char **word)
{
	size_t k = 0;

	if (n < 2 || s[0] != ' ')
		return 0;
	*word = s + 1;
	while (1 + k < n && s[1 + k] != ',' && s[1 + k] != ' ' &&
	       !(s[1 + k] == '.' && (2 + k >= n || s[2 + k] == ' ')))
		k++;
	return k;
}

/*
 * The zone a header names becomes the file's, unless --utc-offset was given
 * or lines were handed out already (a header further down, of another
 * journal pasted after the first, changes nothing already stored).
 */
static void text_header_zone(struct parser_textlog *t, const char *s, size_t n)
{
	struct lt_zone_name z;
	const char *word = NULL;
	size_t k = text_header_zone_word(s, n, &word);

	if (k == 0 || k >= sizeof t->basis.zone_name || lt_zone_lookup(&z, word, k) != 0)
		return;
	if (t->basis.zone_rule != LT_ZONE_ASSUMED || t->index > 0)
		return;
	memcpy(t->basis.zone_name, word, k);
	t->basis.zone_name[k] = '\0';
	t->basis.zone_us = z.off_us[0];
	t->basis.zone_rule = z.n == 1 ? LT_ZONE_HEADER : LT_ZONE_GUESS;
}

/*
 * "-- Logs begin at Fri 2024-04-05 05:50:00 UTC, end at Fri 2024-04-05
 * 06:04:39 UTC. --" (or "Journal begins at ..., ends at ..."): the range
 * every line below lies in, which gives year-less times their year, in the
 * zone the lines below are written in.  A header without an end (journalctl
 * -f) bounds the year from below only.
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
	text_header_zone(t, s + used, n - used);
	hi = text_header_date(s + used, n - used, &more);
	t->basis.head_lo = lo;
	t->basis.head_hi = hi >= lo ? hi : 0;
}
