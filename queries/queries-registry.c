/*
 * queries-registry.c - the lifecycles, in the order they are built, and how they are kept current.
 *
 * A lifecycle turns stored events into derived tables (docs/internals.md,
 * "A lifecycle").  Each is one row of queries_lifecycles[]; ingest and
 * `rebuild` walk the table in order, so a lifecycle may read the tables of
 * those above it.  Each one is rebuilt in a transaction of its own that
 * also records, through lt_store_derived_mark, its version and the newest
 * event and line its rows cover: an interruption anywhere leaves every
 * lifecycle either as it was or up to date, never half written, and the
 * next ingest or `rebuild` sees what is behind and catches up.  Rows that
 * change in place (lines re-dated) mark the tables built from them stale in
 * the transaction that changed them (queries_line_readers): those are then
 * rebuilt from nothing, never updated from what they covered.
 */
#include "queries-int.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* Node health: every node's NotReady windows (queries-health*.c). */
static const struct lt_derived registry_health = {
    .name = "node-health",
    .version = 1,
    .schema = queries_health_schema,
};

static int registry_health_rebuild(struct lt_store *st, int64_t since_id, struct lt_error *err)
{
	(void)since_id; /* every node's windows anew (they read the lease episodes too) */
	return queries_health_rebuild(st, err);
}

const struct queries_lifecycle queries_lifecycles[] = {
    {
	.derived = &queries_lease_derived,
	.rebuild = queries_lease_rebuild,
	.compute = queries_lease_compute,
	.write = queries_lease_write,
	.computed_free = queries_lease_computed_free,
	.no_line_times = 1, /* requests only */
    },
    /* Node objects' names: requests only */
    {.derived = &queries_node_names_derived,
     .rebuild = queries_node_names_rebuild,
     .no_line_times = 1},
    /* the lines' hosts, not their times */
    {.derived = &queries_hosts_derived, .rebuild = queries_hosts_rebuild, .no_line_times = 1},
    {.derived = &registry_health, .rebuild = registry_health_rebuild},
    {.derived = &queries_hist_derived,
     .rebuild = queries_hist_rebuild,
     .compute = queries_hist_compute,
     .write = queries_hist_write,
     .computed_free = queries_hist_computed_free,
     .compute_early = 1, /* two scans: lt_store_ingest_end starts it before the first index */
     .update = queries_hist_update},
};

const size_t queries_nlifecycles = sizeof queries_lifecycles / sizeof *queries_lifecycles;

void queries_test_die_at(const char *point)
{
	const char *want = getenv("LEASETRAIL_TEST_DIE_AT");

	if (want != NULL && strcmp(want, point) == 0)
		raise(SIGKILL);
}

int queries_lifecycles_ensure(struct lt_store *st, struct lt_error *err)
{
	struct lt_derived_state state;

	for (size_t i = 0; i < queries_nlifecycles; i++)
		if (lt_store_derive(st, queries_lifecycles[i].derived, &state, err) != 0)
			return LT_ERR_DB;
	return 0;
}

const struct lt_derived **queries_line_readers(void)
{
	const struct lt_derived **v = lt_xcalloc(queries_nlifecycles + 1, sizeof *v);
	size_t n = 0;

	for (size_t i = 0; i < queries_nlifecycles; i++)
		if (!queries_lifecycles[i].no_line_times)
			v[n++] = queries_lifecycles[i].derived;
	return v;
}

/* How lifecycle d stands against the store's newest event and line. */
enum registry_standing {
	REGISTRY_CURRENT,
	REGISTRY_BEHIND, /* built by this version, but not from the newest events */
	REGISTRY_STALE,	 /* rows it was built from changed since (lt_store_derived_stale) */
	REGISTRY_OLDER,	 /* built by an older leasetrail (or before records were kept) */
	REGISTRY_NEWER,	 /* built by a newer leasetrail */
};

/* The store's newest event and line: what a current lifecycle covers. */
struct registry_newest {
	int64_t event_id, line_id;
};

static struct registry_newest registry_newest(struct lt_store *st)
{
	struct registry_newest n;

	lt_store_newest(st, &n.event_id, &n.line_id);
	return n;
}

static enum registry_standing registry_standing(struct lt_store *st, const struct lt_derived *d,
						struct registry_newest newest,
						struct lt_derived_state *state)
{
	const int64_t event_id = newest.event_id, line_id = newest.line_id;

	lt_store_derived_state(st, d->name, state);
	if (state->known && state->version > d->version)
		return REGISTRY_NEWER;
	if (!state->known && event_id == 0 && line_id == 0)
		return REGISTRY_CURRENT; /* an empty store: nothing to derive */
	if (!state->known || state->version < d->version)
		return REGISTRY_OLDER;
	if (state->event_id == LT_DERIVED_STALE || state->line_id == LT_DERIVED_STALE)
		return REGISTRY_STALE;
	if (state->event_id < event_id || state->line_id < line_id)
		return REGISTRY_BEHIND;
	return REGISTRY_CURRENT;
}

/*
 * The lifecycles after i may read its tables: rewritten from nothing (another
 * version, stale), they no longer stand for them.  Marked in the transaction
 * that rewrote them, so that a run killed before it reached them leaves them
 * said out of date, not current.
 */
static int registry_mark_below(struct lt_store *st, size_t i, struct lt_error *err)
{
	int rc = 0;

	for (size_t j = i + 1; j < queries_nlifecycles && rc == 0; j++)
		rc = lt_store_derived_stale(st, queries_lifecycles[j].derived, err);
	return rc;
}

/*
 * Brings lifecycle i up from what it covers (from; NULL: from nothing) and
 * marks it, in one transaction.  What was computed beforehand is written
 * instead, if the store has not moved on since (another ingest at once):
 * the record must not claim what it lacks.
 */
static int registry_one(struct lt_store *st, size_t i, const struct lt_derived_state *from,
			const struct queries_computed *c, struct lt_error *err)
{
	const struct queries_lifecycle *l = &queries_lifecycles[i];
	struct lt_derived_state covers = {.known = 1, .version = l->derived->version};
	int rc = queries_exec(st, "BEGIN IMMEDIATE", err);

	if (rc != 0)
		return rc;
	lt_store_newest(st, &covers.event_id, &covers.line_id);
	if (c != NULL && c->rows != NULL && c->event_id == covers.event_id &&
	    c->line_id == covers.line_id)
		rc = l->write(st, c->rows, err);
	else if (from != NULL && l->update != NULL)
		rc = l->update(st, from, err);
	else
		rc = l->rebuild(st, from != NULL ? from->event_id : 0, err);
	if (rc == 0 && from == NULL)
		rc = registry_mark_below(st, i, err);
	if (rc == 0)
		rc = lt_store_derived_mark(st, l->derived, &covers, err);
	if (rc == 0) {
		queries_test_die_at("in-rebuild");
		rc = queries_exec(st, "COMMIT", err);
	}
	if (rc != 0)
		queries_exec(st, "ROLLBACK", NULL);
	return rc;
}

int queries_lifecycles_update(struct lt_store *st, enum queries_update how,
			      const struct queries_computed *computed, struct lt_error *err)
{
	const int whole = how == QUERIES_UPDATE_ALL;
	int rc = 0;

	for (size_t i = 0; i < queries_nlifecycles && rc == 0; i++) {
		const struct queries_lifecycle *l = &queries_lifecycles[i];
		struct lt_derived_state state;
		enum registry_standing s =
		    registry_standing(st, l->derived, registry_newest(st), &state);

		if (s == REGISTRY_CURRENT && !whole)
			continue;
		if (s == REGISTRY_NEWER)
			return lt_store_derive(st, l->derived, &state, err);
		rc = registry_one(st, i, s == REGISTRY_BEHIND && !whole ? &state : NULL,
				  computed ? &computed[i] : NULL, err);
		if (rc == 0 && i == 0)
			queries_test_die_at("mid-rebuild");
	}
	return rc;
}

int lt_rebuild_all(struct lt_store *st, struct lt_error *err)
{
	const struct lt_derived **readers = queries_line_readers();
	const struct lt_redate_opts o = {.line_readers = readers};
	int rc = queries_lifecycles_ensure(st, err);

	/* the lines' years and zones first: an ingest killed before it weighed them again
	   leaves lines at a guessed year, and every lifecycle reads their times; marked
	   stale with the move, should this run be killed before it rebuilt them */
	if (rc == 0)
		rc = lt_store_redate(st, &o, err);
	free(readers);
	return rc != 0 ? rc : queries_lifecycles_update(st, QUERIES_UPDATE_ALL, NULL, err);
}

void lt_derived_names(struct lt_buf *out)
{
	for (size_t i = 0; i < queries_nlifecycles; i++)
		lt_buf_printf(out, "%s%s", i > 0 ? ", " : "", queries_lifecycles[i].derived->name);
}

int lt_derived_check(struct lt_store *st, struct lt_buf *why)
{
	static const char *const how[] = {
	    [REGISTRY_BEHIND] = "are behind the stored events (an ingest is still running, or "
				"was interrupted): run the same `leasetrail ingest` again, or "
				"`leasetrail rebuild`",
	    [REGISTRY_STALE] = "are out of date: rows they were built from changed since (an "
			       "ingest that re-dated lines was interrupted): run the same "
			       "`leasetrail ingest` again, or `leasetrail rebuild`",
	    [REGISTRY_OLDER] = "were built by an older leasetrail; `leasetrail rebuild` brings "
			       "them up to date",
	    [REGISTRY_NEWER] = "were built by a newer leasetrail, which this one may misread; "
			       "use that leasetrail",
	};
	enum registry_standing worst = REGISTRY_CURRENT;
	struct lt_derived_state state;
	/* once for every lifecycle: a reader's store does not move under it (4 max() lookups were
	   a tenth of what opening the 10 M-event store cost) */
	const struct registry_newest newest = registry_newest(st);

	lt_buf_init(why);
	for (size_t i = 0; i < queries_nlifecycles; i++) {
		const struct lt_derived *d = queries_lifecycles[i].derived;
		enum registry_standing s = registry_standing(st, d, newest, &state);

		if (s == REGISTRY_CURRENT)
			continue;
		lt_buf_printf(why, "%s%s", worst == REGISTRY_CURRENT ? "derived tables (" : ", ",
			      d->name);
		worst = s > worst ? s : worst;
	}
	if (worst == REGISTRY_CURRENT)
		return 0;
	lt_buf_printf(why, ") %s", how[worst]);
	return 1;
}
