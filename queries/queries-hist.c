/*
 * queries-hist.c - the cluster-wide histogram: events, errors and NotReady
 * nodes per time bin (the TUI's `i` screen, in the spirit of lnav's).
 *
 * Events are the audit events kept (not superseded) and the log lines;
 * errors are the events answered 400 or more and the lines of severity E
 * or F.  The store has no index on time alone, so counting them from the
 * rows scans both tables whatever the window; the "hist" lifecycle keeps
 * their counts per second (lt_hist_sec) and per minute (lt_hist_min):
 * after an ingest that only added rows, the new rows' counts are added in
 * (queries_hist_update, minus the older stages they superseded); after
 * anything else (lines re-dated: the table is marked stale; `rebuild`; a
 * new version) they are counted whole (queries_hist_rebuild).  Bins whole minutes long
 * from a whole minute read lt_hist_min, bins whole seconds long from a
 * whole second lt_hist_sec; any other bin, or a store whose counts are not
 * current (an older leasetrail's, an interrupted ingest's), takes the
 * grouped statement over the rows: the numbers are the same either way.
 * The bins are equal and contiguous, so a row's bin is arithmetic, never a
 * lookup.  NotReady nodes come from node health's windows (lt_notready,
 * few), each node counted once per bin however many windows it has there.
 * Memory is the bins (at most LT_HIST_MAX_BINS), whatever the store holds.
 */
#include "queries-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ?1 the first bin's start, ?2 a bin's length, ?3 the number of bins. */
static const char hist_events_sql[] =
    "SELECT b, sum(n), sum(e) FROM ("
    " SELECT (a.stage_us - ?1) / ?2 AS b, count(*) AS n, sum(a.code >= 400) AS e FROM audit AS a"
    " WHERE a.stage_us >= ?1 AND a.stage_us < ?1 + ?2 * ?3 AND a.superseded = 0 GROUP BY 1"
    " UNION ALL"
    " SELECT (g.ts_d - " LT_LINE_TS_D_SQL(
	"?1") ") / ?2, count(*), sum(g.severity IN ('E', 'F'))"
	      " FROM lines_row AS g WHERE g.ts_d >= " LT_LINE_TS_D_SQL(
		  "?1") " AND g.ts_d < " LT_LINE_TS_D_SQL("?1 + ?2 * ?3") " GROUP BY 1"
									  ") GROUP BY b";

#define HIST_SEC_US 1000000
#define HIST_MIN_US (60 * HIST_SEC_US)

/*
 * The counts per second, then per minute (from those); few rows: one per
 * second or minute that has events.  Re-dating a log line moves counts
 * anywhere in time: the lines' readers are rebuilt whole then.
 */
static const char *const hist_schema[] = {
    ("CREATE TABLE IF NOT EXISTS lt_hist_sec(t INTEGER PRIMARY KEY, events INTEGER NOT NULL,"
     " errors INTEGER NOT NULL)"),
    ("CREATE TABLE IF NOT EXISTS lt_hist_min(t INTEGER PRIMARY KEY, events INTEGER NOT NULL,"
     " errors INTEGER NOT NULL)"),
    NULL,
};

/*
 * The second of a line, floored (SQLite's / truncates before 1970), from lines_row.ts_d
 * (schema 13), whose epoch is a whole second: reading ts_us, its virtual column, costs the sum
 * on every use.
 */
#define HIST_LINE_SEC                                                                              \
	"((g.ts_d - (g.ts_d % 1000000 + 1000000) % 1000000) / 1000000 + " LT_LINE_EPOCH_S_SQL ")"

/*
 * Every second's counts, in t order: t is the second since the epoch, floored (SQLite's /
 * truncates before 1970).
 */
#define HIST_SEC_COUNTS                                                                            \
	"SELECT t, sum(n), sum(e) FROM ("                                                          \
	" SELECT (a.stage_us - (a.stage_us % 1000000 + 1000000) % 1000000) / 1000000 AS t,"        \
	" count(*) AS n, coalesce(sum(a.code >= 400), 0) AS e"                                     \
	" FROM audit AS a WHERE a.superseded = 0 GROUP BY 1"                                       \
	" UNION ALL"                                                                               \
	" SELECT " HIST_LINE_SEC ", count(*),"                                                     \
	" coalesce(sum(g.severity IN ('E', 'F')), 0) FROM lines_row AS g GROUP BY 1"               \
	") GROUP BY t"

/* The minutes' counts from the seconds' (t the minute since the epoch, floored). */
#define HIST_MIN_COUNTS                                                                            \
	"INSERT INTO lt_hist_min SELECT (t - (t % 60 + 60) % 60) / 60, sum(events), sum(errors)"   \
	" FROM lt_hist_sec GROUP BY 1"

static const char *const hist_rebuild_sql[] = {
    "DELETE FROM lt_hist_sec",
    "DELETE FROM lt_hist_min",
    "INSERT INTO lt_hist_sec " HIST_SEC_COUNTS,
    HIST_MIN_COUNTS,
    NULL,
};

const struct lt_derived queries_hist_derived = {
    .name = "hist",
    .version = 1,
    .schema = hist_schema,
};

int queries_hist_rebuild(struct lt_store *st, int64_t since_id, struct lt_error *err)
{
	(void)since_id; /* counts anywhere in time may have moved: all anew */
	for (size_t i = 0; hist_rebuild_sql[i] != NULL; i++) {
		int rc = queries_exec(st, hist_rebuild_sql[i], err);

		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * At most this many seconds' counts are computed beside the index builds (24 bytes each,
 * 3 MiB: a day and a half of busy seconds); a store with more declines, and the rebuild counts
 * them in place, as before.
 */
#define HIST_COMPUTE_MAX (1 << 17)

/* The seconds' counts computed beforehand: t, events, errors. */
struct hist_rows {
	int64_t (*v)[3];
	size_t n, cap;
};

void queries_hist_computed_free(void *computed)
{
	struct hist_rows *r = computed;

	if (r != NULL)
		free(r->v);
	free(r);
}

int queries_hist_compute(struct lt_store *rd, void **out, struct lt_error *err)
{
	struct hist_rows *r;
	struct lt_stmt *q;
	int rc, row;

	*out = NULL;
	if ((rc = lt_store_prepare(rd, &q, HIST_SEC_COUNTS, err)) != 0)
		return rc;
	r = lt_xcalloc(1, sizeof *r);
	while ((row = lt_stmt_step(q, err)) > 0 && r->n < HIST_COMPUTE_MAX) {
		LT_GROW(r->v, r->cap, r->n + 1);
		for (int c = 0; c < 3; c++)
			r->v[r->n][c] = lt_stmt_int(q, c);
		r->n++;
	}
	lt_stmt_free(q);
	if (row != 0) { /* an error, or more seconds than kept here: declined */
		queries_hist_computed_free(r);
		return row < 0 ? LT_ERR_DB : 0;
	}
	*out = r;
	return 0;
}

int queries_hist_write(struct lt_store *st, void *computed, struct lt_error *err)
{
	const struct hist_rows *r = computed;
	struct lt_stmt *q;
	int rc = 0;

	for (size_t i = 0; i < 2 && rc == 0; i++)
		rc = queries_exec(st, hist_rebuild_sql[i], err);
	if (rc != 0 ||
	    (rc = lt_store_prepare(st, &q, "INSERT INTO lt_hist_sec VALUES(?1, ?2, ?3)", err)) != 0)
		return rc;
	for (size_t i = 0; i < r->n && rc == 0; i++) {
		for (int c = 0; c < 3; c++)
			lt_stmt_bind_int(q, c + 1, r->v[i][c]);
		rc = lt_stmt_step(q, err) < 0 ? LT_ERR_DB : 0;
		lt_stmt_reset(q);
	}
	lt_stmt_free(q);
	return rc == 0 ? queries_exec(st, HIST_MIN_COUNTS, err) : rc;
}

/* The second of an event, the minute of a kept second: floored, as above. */
#define HIST_EVENT_SEC "((a.stage_us - (a.stage_us % 1000000 + 1000000) % 1000000) / 1000000)"
#define HIST_MIN       "((t - (t % 60 + 60) % 60) / 60)"

/*
 * An older stage of a request counted when the counts covered up to event
 * ?1 (no higher stage then) and superseded since by a newer stage above ?1:
 * the probes of load_supersede_old_sql (index-load.c), from the new rows,
 * through the akey index (left to itself, SQLite builds an automatic index
 * over every stored event).  None in a store that never held a stage below
 * ResponseComplete (meta partial_stages, index-load.c): nothing is probed.
 */
#define HIST_NEWLY_SUPERSEDED                                                                      \
	"SELECT o.id FROM audit AS n CROSS JOIN audit AS o INDEXED BY audit_key"                   \
	" ON o.akey BETWEEN (n.akey >> 5) << 5 AND ((n.akey >> 5) << 5) + 31"                      \
	" WHERE EXISTS (SELECT 1 FROM meta WHERE key = 'partial_stages')"                          \
	" AND n.id > ?1 AND n.stage_rank > 0 AND n.akey IS NOT NULL AND o.id <= ?1"                \
	" AND o.superseded = 1 AND o.audit_id = n.audit_id AND o.stage_rank < n.stage_rank"        \
	" AND o.cluster_id = n.cluster_id AND NOT EXISTS (SELECT 1 FROM audit AS h"                \
	"  WHERE h.akey BETWEEN (o.akey >> 5) << 5 AND ((o.akey >> 5) << 5) + 31 AND h.id <= ?1"   \
	"  AND h.audit_id = o.audit_id AND h.stage_rank > o.stage_rank"                            \
	"  AND h.cluster_id = o.cluster_id)"

/* One statement of the update, and which of the covered ids it binds (?1 event, ?2 line). */
struct hist_step {
	const char *sql;
	int event, line;
};

/*
 * The update: each second's change into temp.hist_delta, added into both
 * tables, and the seconds and minutes left with no event dropped (a whole
 * count has no such row).  A superseded stage is taken off at its own
 * second, which need not be its newer stage's.
 */
static const struct hist_step hist_update_steps[] = {
    {.sql = ("CREATE TEMP TABLE IF NOT EXISTS hist_delta(t INTEGER NOT NULL,"
	     " events INTEGER NOT NULL, errors INTEGER NOT NULL)")},
    {.sql = "DELETE FROM temp.hist_delta"},
    {.sql = ("INSERT INTO temp.hist_delta SELECT " HIST_EVENT_SEC ", count(*),"
	     " coalesce(sum(a.code >= 400), 0) FROM audit AS a"
	     " WHERE a.id > ?1 AND a.superseded = 0 GROUP BY 1"),
     .event = 1},
    {.sql = ("INSERT INTO temp.hist_delta SELECT " HIST_EVENT_SEC ", -count(*),"
	     " -coalesce(sum(a.code >= 400), 0) FROM audit AS a"
	     " WHERE a.id IN (" HIST_NEWLY_SUPERSEDED ") GROUP BY 1"),
     .event = 1},
    {.sql = ("INSERT INTO temp.hist_delta SELECT " HIST_LINE_SEC ", count(*),"
	     " coalesce(sum(g.severity IN ('E', 'F')), 0) FROM lines_row AS g"
	     " WHERE g.id > ?2 GROUP BY 1"),
     .line = 1},
    {.sql = ("INSERT INTO lt_hist_sec SELECT t, sum(events), sum(errors) FROM temp.hist_delta"
	     " WHERE true GROUP BY t ON CONFLICT(t) DO UPDATE"
	     " SET events = events + excluded.events, errors = errors + excluded.errors")},
    {.sql = ("INSERT INTO lt_hist_min SELECT " HIST_MIN ", sum(events), sum(errors)"
	     " FROM temp.hist_delta WHERE true GROUP BY 1 ON CONFLICT(t) DO UPDATE"
	     " SET events = events + excluded.events, errors = errors + excluded.errors")},
    {.sql = "DELETE FROM lt_hist_sec WHERE events = 0 AND t IN (SELECT t FROM temp.hist_delta)"},
    {.sql = ("DELETE FROM lt_hist_min WHERE events = 0"
	     " AND t IN (SELECT " HIST_MIN " FROM temp.hist_delta)")},
};

/* Runs one step of the update with the ids it binds. */
static int hist_update_step(struct lt_store *st, const struct hist_step *h,
			    const struct lt_derived_state *covers, struct lt_error *err)
{
	struct lt_stmt *q;
	int rc = lt_store_prepare(st, &q, h->sql, err);

	if (rc != 0)
		return rc;
	if (h->event)
		lt_stmt_bind_int(q, 1, covers->event_id);
	if (h->line)
		lt_stmt_bind_int(q, 2, covers->line_id);
	rc = lt_stmt_step(q, err) < 0 ? LT_ERR_DB : 0;
	lt_stmt_free(q);
	return rc;
}

int queries_hist_update(struct lt_store *st, const struct lt_derived_state *covers,
			struct lt_error *err)
{
	const size_t n = sizeof hist_update_steps / sizeof *hist_update_steps;
	int rc = 0;

	assert(covers->event_id >= 0 && covers->line_id >= 0); /* a stale record is rebuilt */
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = hist_update_step(st, &hist_update_steps[i], covers, err);
	return rc;
}

/*
 * The kept counts by unit, the coarsest first: ?4 the unit; the window's
 * ends are whole units, so the divisions are exact.
 */
static const struct hist_table {
	int64_t unit_us;
	const char *sql;
} hist_tables[] = {
    {.unit_us = HIST_MIN_US,
     .sql = ("SELECT (t * ?4 - ?1) / ?2, events, errors FROM lt_hist_min"
	     " WHERE t >= ?1 / ?4 AND t < (?1 + ?2 * ?3) / ?4")},
    {.unit_us = HIST_SEC_US,
     .sql = ("SELECT (t * ?4 - ?1) / ?2, events, errors FROM lt_hist_sec"
	     " WHERE t >= ?1 / ?4 AND t < (?1 + ?2 * ?3) / ?4")},
};

/* The same window; ?4 the end of the logs (an open window lasts up to it). */
static const char hist_notready_sql[] =
    "SELECT node_id, start_us, coalesce(end_us, max(?4, start_us)) FROM lt_notready"
    " WHERE start_us < ?1 + ?2 * ?3 AND coalesce(end_us, max(?4, start_us)) >= ?1"
    " ORDER BY node_id, start_us";

/* The bin of time t, clamped into [0, n). */
static size_t hist_bin(const struct lt_hist *h, int64_t t)
{
	int64_t b;

	if (t <= h->from_us)
		return 0;
	b = (t - h->from_us) / h->bin_us;
	return b >= (int64_t)h->n ? h->n - 1 : (size_t)b;
}

static void hist_bind(struct lt_stmt *q, const struct lt_hist *h)
{
	lt_stmt_bind_int(q, 1, h->from_us);
	lt_stmt_bind_int(q, 2, h->bin_us);
	lt_stmt_bind_int(q, 3, (int64_t)h->n);
}

/* Whether the kept counts are this version's and cover every stored event and line. */
static int hist_kept_current(struct lt_store *st)
{
	struct lt_derived_state state;
	int64_t event_id, line_id;

	lt_store_derived_state(st, queries_hist_derived.name, &state);
	lt_store_newest(st, &event_id, &line_id);
	return state.known && state.version == queries_hist_derived.version &&
	       state.event_id == event_id && state.line_id == line_id;
}

/* The kept counts h's bins can be summed from, or NULL: the rows must be counted. */
static const struct hist_table *hist_table_for(const struct lt_hist *h, struct lt_store *st)
{
	for (size_t i = 0; i < sizeof hist_tables / sizeof *hist_tables; i++) {
		const struct hist_table *k = &hist_tables[i];

		if (h->from_us % k->unit_us == 0 && h->bin_us % k->unit_us == 0)
			return hist_kept_current(st) ? k : NULL;
	}
	return NULL;
}

static int hist_events(struct lt_hist *h, struct lt_store *st, struct lt_error *err)
{
	const struct hist_table *k = hist_table_for(h, st);
	struct lt_stmt *q;
	int rc = lt_store_prepare(st, &q, k != NULL ? k->sql : hist_events_sql, err);

	if (rc != 0)
		return rc;
	hist_bind(q, h);
	if (k != NULL)
		lt_stmt_bind_int(q, 4, k->unit_us);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		int64_t b = lt_stmt_int(q, 0);

		if (b < 0 || b >= (int64_t)h->n)
			continue; /* cannot be: the WHERE keeps the window */
		h->bins[b].events += lt_stmt_int(q, 1);
		h->bins[b].errors += lt_stmt_int(q, 2);
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

/* Windows come ordered by node, then start: a node's bins are marked once each. */
static int hist_notready(struct lt_hist *h, struct lt_store *st, struct lt_error *err)
{
	struct lt_stmt *q;
	int64_t node = -1;
	size_t next = 0; /* the node's first bin not yet counted */
	int rc;

	if (!queries_has_health(st))
		return 0; /* a store from before node health: no windows to read */
	if ((rc = lt_store_prepare(st, &q, hist_notready_sql, err)) != 0)
		return rc;
	hist_bind(q, h);
	lt_stmt_bind_int(q, 4, lt_store_end_us(st));
	while ((rc = lt_stmt_step(q, err)) == 1) {
		size_t a = hist_bin(h, lt_stmt_int(q, 1)), z = hist_bin(h, lt_stmt_int(q, 2));

		if (lt_stmt_int(q, 0) != node)
			node = lt_stmt_int(q, 0), next = 0;
		for (size_t b = a > next ? a : next; b <= z; b++)
			h->bins[b].not_ready++;
		next = z + 1 > next ? z + 1 : next;
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

int lt_browse_hist(struct lt_hist *out, struct lt_store *st, int64_t from_us, int64_t bin_us,
		   size_t nbins, struct lt_error *err)
{
	int rc;

	assert(bin_us > 0 && nbins > 0 && nbins <= LT_HIST_MAX_BINS);
	memset(out, 0, sizeof *out);
	out->bins = lt_xcalloc(nbins, sizeof *out->bins);
	out->n = nbins;
	out->from_us = from_us;
	out->bin_us = bin_us;
	if ((rc = hist_events(out, st, err)) == 0)
		rc = hist_notready(out, st, err);
	if (rc != 0)
		lt_hist_release(out);
	return rc;
}

void lt_hist_release(struct lt_hist *h)
{
	if (h == NULL)
		return;
	free(h->bins);
	memset(h, 0, sizeof *h);
}
