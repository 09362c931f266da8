/* queries-run.c - running SQL into typed rows (one declared type a column); time arguments. */
#include "queries-int.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column i of q's current row as a cell of the declared type. */
static struct lt_cell run_cell(const struct lt_stmt *q, int i, enum lt_cell_type type)
{
	const char *s;
	size_t len;
	enum lt_episode_kind k;

	if (lt_stmt_type(q, i) == LT_COL_NULL)
		return lt_cell_null();
	switch (type) {
	case LT_CELL_NULL:
		return lt_cell_null();
	case LT_CELL_TEXT:
		return lt_cell_text(lt_stmt_text(q, i, NULL));
	case LT_CELL_REAL:
		return (struct lt_cell){.type = LT_CELL_REAL, .r = lt_stmt_real(q, i)};
	case LT_CELL_KIND:
		/* a stored kind name, read back here once; one this leasetrail does not know stays
		 * text */
		s = lt_stmt_text(q, i, &len);
		k = lt_episode_kind_parse(s, len);
		return k == LT_EP_NONE ? lt_cell_text(s) : lt_cell_int(LT_CELL_KIND, k);
	case LT_CELL_INT:
	case LT_CELL_ID:
	case LT_CELL_TIME:
	case LT_CELL_DURATION:
		break;
	}
	return lt_cell_int(type, lt_stmt_int(q, i));
}

int queries_exec(struct lt_store *st, const char *sql, struct lt_error *err)
{
	struct lt_stmt *q = NULL;
	int rc = lt_store_prepare(st, &q, sql, err);

	if (rc == 0)
		rc = lt_stmt_step(q, err) < 0 ? LT_ERR_DB : 0;
	lt_stmt_free(q);
	return rc;
}

int queries_run_stmt(struct lt_stmt *q, const struct lt_col *cols, int ncols,
		     const struct lt_row_sink *out, struct lt_error *err)
{
	struct lt_cell cells[LT_MAX_COLS];
	int rc;

	assert(ncols <= LT_MAX_COLS && lt_stmt_columns(q) == ncols);
	out->begin(out->ctx, cols, ncols);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		for (int i = 0; i < ncols; i++)
			cells[i] = run_cell(q, i, cols[i].type);
		out->row(out->ctx, cells);
		if (out->closed != NULL && out->closed(out->ctx)) {
			rc = 0; /* nobody reads on: not an error, no need to go on */
			break;
		}
	}
	out->end(out->ctx);
	return rc < 0 ? rc : 0;
}

int lt_run_rows(struct lt_store *st, const char *sql, const struct lt_col *cols, int ncols,
		const int64_t *binds, int nbinds, const struct lt_row_sink *out,
		struct lt_error *err)
{
	struct lt_stmt *q;
	int rc;

	if (ncols > LT_MAX_COLS)
		return lt_error_set(err, LT_ERR_USAGE, "too many columns");
	if ((rc = lt_store_prepare(st, &q, sql, err)) != 0)
		return rc;
	assert(lt_stmt_columns(q) == ncols); /* the declared columns are the statement's */
	for (int i = 0; i < nbinds; i++)
		lt_stmt_bind_int(q, i + 1, binds[i]);
	rc = queries_run_stmt(q, cols, ncols, out, err);
	lt_stmt_free(q);
	return rc;
}

/* Reads "12" or "12.345" at p into µ-units (value * 1e6); returns the end or NULL. */
static const char *run_number(const char *p, int64_t *micro)
{
	int64_t whole = 0, frac = 0, scale = 1000000;
	const char *q = p;

	while (*q >= '0' && *q <= '9' && whole < 100000000LL)
		whole = whole * 10 + (*q++ - '0');
	if (q == p || (*q >= '0' && *q <= '9'))
		return NULL;
	if (*q == '.') {
		for (q++; *q >= '0' && *q <= '9'; q++)
			if (scale > 1)
				scale /= 10, frac += (*q - '0') * scale;
	}
	*micro = whole * 1000000 + frac;
	return q;
}

/* Longer than any log covers: a century, well inside int64 microseconds. */
#define RUN_MAX_DURATION (36500LL * 86400000000LL)

/* Parses "90s", "10.5s", "15m", "2h", "1.5d", "1h30m", "250ms" into microseconds. */
int lt_duration_parse(int64_t *out, const char *s)
{
	static const struct {
		const char *suffix;
		int64_t us;
	} units[] = {{"ms", 1000},
		     {"s", 1000000},
		     {"m", 60000000LL},
		     {"h", 3600000000LL},
		     {"d", 86400000000LL}};
	int64_t total = 0;
	const char *p = s;

	if (*p == '\0')
		return LT_ERR_USAGE;
	while (*p) {
		int64_t micro;
		size_t i;

		if ((p = run_number(p, &micro)) == NULL)
			return LT_ERR_USAGE;
		for (i = 0; i < sizeof units / sizeof *units; i++)
			if (strncmp(p, units[i].suffix, strlen(units[i].suffix)) == 0)
				break;
		if (i == sizeof units / sizeof *units)
			return LT_ERR_USAGE; /* micro is value * 1e6: check before scaling, so
						nothing can overflow */
		if (micro / 1000 > (RUN_MAX_DURATION - total) / (units[i].us / 1000 + 1))
			return LT_ERR_USAGE;
		total += micro / 1000 * (units[i].us / 1000) + micro % 1000 * units[i].us / 1000000;
		p += strlen(units[i].suffix);
	}
	*out = total;
	return 0;
}

#define RUN_MAX_TIME_ARG 40		/* "YYYY-MM-DD HH:MM:SS.ffffff+hh:mm" and then some */
#define RUN_MAX_EPOCH	 253402300799LL /* 9999-12-31T23:59:59Z */

/* "1712296560" or "@1712296560": whole seconds since the epoch, UTC.  0 or LT_ERR_USAGE. */
static int run_epoch(int64_t *out, const char *s)
{
	const char *digits = s + (s[0] == '@');
	size_t n = strspn(digits, "0123456789");

	if (n == 0 || n > 12 || digits[n] != '\0')
		return LT_ERR_USAGE;
	*out = 0;
	for (size_t i = 0; i < n; i++)
		*out = *out * 10 + (digits[i] - '0');
	if (*out > RUN_MAX_EPOCH)
		return LT_ERR_USAGE;
	*out *= 1000000;
	return 0;
}

/* "HH:MM", "HH:MM:SS[.ffffff]": a time of day, as µs after midnight.  0 or LT_ERR_USAGE. */
static int run_time_of_day(int64_t *out, const char *s)
{
	char buf[RUN_MAX_TIME_ARG + 8];
	size_t len = strlen(s);

	if (len < 5 || len > 15 || s[2] != ':' || (len > 5 && s[5] != ':'))
		return LT_ERR_USAGE;
	snprintf(buf, sizeof buf, "1970-01-01T%s%sZ", s, len == 5 ? ":00" : "");
	return lt_time_parse(out, buf, strlen(buf)) == 0 ? 0 : LT_ERR_USAGE;
}

/*
 * A wall time without a zone (µs as if UTC), read in the display zone; a
 * time of day (tod set) on the day of end_us there.  0, LT_ERR_NOTFOUND
 * when the clocks skipped it.
 */
static int run_local(int64_t *out, int64_t wall, int tod, int64_t end_us)
{
	if (tod) {
		int64_t day = 86400LL * 1000000, local_end = end_us + lt_zone_offset(end_us);

		wall += (local_end >= 0 ? local_end / day : (local_end - day + 1) / day) * day;
	}
	return lt_zone_to_utc(out, wall);
}

/*
 * The ways people write a time besides RFC 3339: "YYYY-MM-DD HH:MM[:SS[.f]]"
 * (a space or a T; a zone may follow), a date "YYYY-MM-DD" (its midnight), a
 * time of day "HH:MM[:SS[.f]]" (on the day of end_us), epoch seconds.  Each
 * becomes RFC 3339 for lt_time_parse, which checks every field; without a
 * zone it is a wall time of the display zone (lt_zone_set; UTC by default).
 * 0, LT_ERR_USAGE, or LT_ERR_NOTFOUND for a wall time the clocks skipped.
 */
static int run_time_loose(int64_t *out, const char *s, int64_t end_us)
{
	char buf[RUN_MAX_TIME_ARG + 8];
	size_t len = strlen(s);
	int64_t wall;

	if (run_epoch(out, s) == 0)
		return 0;
	if (run_time_of_day(&wall, s) == 0)
		return run_local(out, wall, 1, end_us);
	if (len == 10) {
		snprintf(buf, sizeof buf, "%sT00:00:00Z", s);
		if (lt_time_parse(&wall, buf, strlen(buf)) != 0)
			return LT_ERR_USAGE;
		return run_local(out, wall, 0, end_us);
	}
	if (len < 16 || len > RUN_MAX_TIME_ARG || (s[10] != ' ' && s[10] != 'T'))
		return LT_ERR_USAGE;
	/* no seconds: ":00" after HH:MM */
	snprintf(buf, sizeof buf, "%.10sT%.5s%s%s", s, s + 11, s[16] == ':' ? "" : ":00", s + 16);
	if (lt_time_parse(out, buf, strlen(buf)) == 0)
		return 0; /* it carried its zone */
	len = strlen(buf);
	if (len + 1 >= sizeof buf)
		return LT_ERR_USAGE;
	buf[len] = 'Z'; /* no zone: a wall time of the display zone */
	buf[len + 1] = '\0';
	if (lt_time_parse(&wall, buf, len + 1) != 0)
		return LT_ERR_USAGE;
	return run_local(out, wall, 0, end_us);
}

int lt_time_arg(int64_t *out, const char *s, int64_t end_us)
{
	int64_t d;
	int rc;

	if (lt_time_parse(out, s, strlen(s)) == 0)
		return 0;
	if ((rc = run_time_loose(out, s, end_us)) != LT_ERR_USAGE)
		return rc;
	if (lt_duration_parse(&d, s) == 0) {
		*out = end_us - d;
		return 0;
	}
	return LT_ERR_USAGE;
}

int64_t lt_store_end_us(struct lt_store *st)
{
	struct lt_stmt *q;
	int64_t end = 0;

	/* lt_leases is small: its newest event stands for the store's end, as in LT_LEASE_STATE */
	if (lt_store_prepare(
		st, &q, "SELECT coalesce(" LT_LEASES_END ", (SELECT max(stage_us) FROM audit), 0)",
		NULL) != 0)
		return 0;
	if (lt_stmt_step(q, NULL) == 1)
		end = lt_stmt_int(q, 0);
	lt_stmt_free(q);
	return end;
}
