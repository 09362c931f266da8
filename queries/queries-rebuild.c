/* queries-rebuild.c - keeping lt_leases and lt_episodes in step with the stored events. */
#include "queries-int.h"

#include <stdlib.h>

static const char rebuild_lease_sql[] =
    "INSERT INTO lt_leases(namespace_id, name_id, kind, state, first_us, last_us,"
    " last_renew_us, renews, creates, deletes, not_found, auth_failures, conflicts, slow, gaps,"
    " max_gap_us, holder, duration_s, gap_us)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)";

static const char rebuild_episode_sql[] =
    "INSERT INTO lt_episodes(lease_id, kind, start_us, end_us, count, user_id, groups_id,"
    " source_ip_id, user_agent_id, first_event, last_event, cause_event, median_us, max_us,"
    " old_holder, new_holder, inferred, note)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";

static const char *const rebuild_kinds[] = {"node", "leader", "apiserver-identity"};

/*
 * How episodes are built, stored in meta 'episodes' (absent: version 1).
 * Bumped when the same events make other episodes (2: RENEWING split at a
 * holder change, RELEASED; 3: orphaned only by the kubelet's own 404s, a
 * node delete logged just after its lease's GC delete is still its cause),
 * so that episodes of two versions never mix.
 */
#define REBUILD_EPISODES "3"

/* Runs one statement that returns nothing. */
static int rebuild_exec(struct lt_store *st, const char *sql, struct lt_error *err)
{
	struct lt_stmt *q;
	int rc = lt_store_prepare(st, &q, sql, err);

	if (rc == 0)
		rc = lt_stmt_step(q, err) < 0 ? LT_ERR_DB : 0;
	lt_stmt_free(q);
	return rc;
}

static void rebuild_bind_opt(struct lt_stmt *q, int idx, int64_t v, int present)
{
	if (present)
		lt_stmt_bind_int(q, idx, v);
}

static void rebuild_bind_text(struct lt_stmt *q, int idx, const char *s)
{
	if (s != NULL)
		lt_stmt_bind_text(q, idx, s, (size_t)-1);
}

/* Replaces the lease's row; returns its new id in *id. */
static int rebuild_lease(struct lt_store *st, int64_t ns, int64_t name, const struct lc_summary *s,
			 int64_t *id, struct lt_error *err)
{
	const int64_t nums[] = {s->first_us,  s->last_us, s->last_renew_us, s->renews,
				s->creates,   s->deletes, s->not_found,	    s->auth_failures,
				s->conflicts, s->slow,	  s->gaps};
	struct lt_stmt *q;
	int rc;

	if ((rc = lt_store_prepare(st, &q, rebuild_lease_sql, err)) != 0)
		return rc;
	lt_stmt_bind_int(q, 1, ns);
	lt_stmt_bind_int(q, 2, name);
	lt_stmt_bind_text(q, 3, rebuild_kinds[s->kind], (size_t)-1);
	lt_stmt_bind_text(q, 4, s->state, (size_t)-1);
	for (int i = 0; i < 11; i++)
		rebuild_bind_opt(q, 5 + i, nums[i], i > 2 || nums[i] != 0);
	rebuild_bind_opt(q, 16, s->max_gap_us, s->max_gap_us > 0);
	rebuild_bind_text(q, 17, s->holder);
	rebuild_bind_opt(q, 18, s->duration_s, s->duration_s >= 0);
	lt_stmt_bind_int(q, 19, s->gap_us);
	rc = lt_stmt_step(q, err) < 0 ? LT_ERR_DB : 0;
	lt_stmt_free(q);
	*id = 0;
	if (rc == 0 && (rc = lt_store_prepare(st, &q, "SELECT last_insert_rowid()", err)) == 0) {
		if (lt_stmt_step(q, err) == 1)
			*id = lt_stmt_int(q, 0);
		lt_stmt_free(q);
	}
	return rc;
}

static void rebuild_bind_episode(struct lt_stmt *q, int64_t lease, const struct lc_episode *e)
{
	const int64_t ids[] = {e->user,	       e->groups,     e->ip,   e->agent,
			       e->first_event, e->last_event, e->cause};

	lt_stmt_bind_int(q, 1, lease);
	lt_stmt_bind_text(q, 2, e->kind, (size_t)-1);
	lt_stmt_bind_int(q, 3, e->start_us);
	lt_stmt_bind_int(q, 4, e->end_us);
	lt_stmt_bind_int(q, 5, e->count);
	for (int i = 0; i < 7; i++)
		rebuild_bind_opt(q, 6 + i, ids[i], ids[i] != 0);
	rebuild_bind_opt(q, 13, e->median_us, e->median_us >= 0);
	rebuild_bind_opt(q, 14, e->max_us, e->max_us >= 0);
	rebuild_bind_text(q, 15, e->old_holder);
	rebuild_bind_text(q, 16, e->new_holder);
	lt_stmt_bind_int(q, 17, e->inferred);
	rebuild_bind_text(q, 18, e->note);
}

static int rebuild_episodes(struct lt_store *st, int64_t lease, const struct lc_result *r,
			    struct lt_error *err)
{
	struct lt_stmt *q;
	int rc;

	if ((rc = lt_store_prepare(st, &q, rebuild_episode_sql, err)) != 0)
		return rc;
	for (size_t i = 0; i < r->n && rc == 0; i++) {
		rebuild_bind_episode(q, lease, &r->eps[i]);
		rc = lt_stmt_step(q, err) < 0 ? LT_ERR_DB : 0;
		lt_stmt_reset(q);
	}
	lt_stmt_free(q);
	return rc;
}

/* Runs a DELETE bound to one lease's (namespace, name). */
static int rebuild_delete(struct lt_store *st, const char *sql, int64_t ns, int64_t name,
			  struct lt_error *err)
{
	struct lt_stmt *q;
	int rc = lt_store_prepare(st, &q, sql, err);

	if (rc != 0)
		return rc;
	lt_stmt_bind_int(q, 1, ns);
	lt_stmt_bind_int(q, 2, name);
	rc = lt_stmt_step(q, err) < 0 ? LT_ERR_DB : 0;
	lt_stmt_free(q);
	return rc;
}

/* Drops what was derived for one lease: its episodes, then its row. */
static int rebuild_forget(struct lt_store *st, int64_t ns, int64_t name, struct lt_error *err)
{
	int rc =
	    rebuild_delete(st,
			   "DELETE FROM lt_episodes WHERE lease_id IN (SELECT id FROM lt_leases"
			   " WHERE namespace_id = ?1 AND name_id = ?2)",
			   ns, name, err);

	if (rc == 0)
		rc = rebuild_delete(
		    st, "DELETE FROM lt_leases WHERE namespace_id = ?1 AND name_id = ?2", ns, name,
		    err);
	return rc;
}

/* Thresholds for a rebuild: 0 takes each lease's defaults. */
struct rebuild_opts {
	int64_t gap_us, slow_us;
	const char *begin; /* BEGIN IMMEDIATE for the store, BEGIN for TEMP tables */
	int mark;	   /* the store's episodes are all this version's after it */
};

static const char rebuild_mark_sql[] =
    "INSERT OR REPLACE INTO meta VALUES('episodes', '" REBUILD_EPISODES "')";

int lt_lifecycle_outdated(struct lt_store *st)
{
	struct lt_stmt *q;
	int old = 0;

	if (lt_store_prepare(st, &q,
			     "SELECT EXISTS (SELECT 1 FROM lt_leases) AND coalesce((SELECT value"
			     " FROM meta WHERE key = 'episodes'), '1') <> ?1",
			     NULL) != 0)
		return 0;
	lt_stmt_bind_text(q, 1, REBUILD_EPISODES, (size_t)-1);
	if (lt_stmt_step(q, NULL) == 1)
		old = lt_stmt_int(q, 0) != 0;
	lt_stmt_free(q);
	return old;
}

static int rebuild_one(struct lt_store *st, int64_t ns, int64_t name, const struct rebuild_opts *o,
		       struct lt_error *err)
{
	struct lc_result r;
	int64_t id;
	int rc = lc_build(st, ns, name, o->gap_us, o->slow_us, &r, err);

	if (rc == 0)
		rc = rebuild_forget(st, ns, name, err);
	if (rc == 0)
		rc = rebuild_lease(st, ns, name, &r.sum, &id, err);
	if (rc == 0)
		rc = rebuild_episodes(st, id, &r, err);
	lc_result_release(&r);
	return rc;
}

/* The leases with events newer than since_id, as (namespace, name) id pairs. */
static int rebuild_dirty(struct lt_store *st, int64_t since_id, int64_t **out, size_t *n,
			 struct lt_error *err)
{
	struct lt_stmt *q;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	rc = lt_store_prepare(
	    st, &q,
	    "SELECT namespace_id, name_id FROM audit WHERE id > ?1"
	    " AND resource_id = (SELECT id FROM strs WHERE s = 'leases')"
	    " AND namespace_id IS NOT NULL AND name_id IS NOT NULL"
	    /* a node deletion (often in another apiserver's file) is the
	     * cause of its lease's deletion: that lease must be rebuilt too */
	    " UNION SELECT l.namespace_id, l.name_id FROM lt_leases AS l"
	    " WHERE l.kind = 'node' AND l.name_id IN (SELECT name_id FROM audit"
	    "  WHERE id > ?1 AND resource_id = (SELECT id FROM strs WHERE s = 'nodes')"
	    "  AND verb_id = (SELECT id FROM strs WHERE s = 'delete'))",
	    err);
	if (rc != 0)
		return rc;
	lt_stmt_bind_int(q, 1, since_id);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			*out = lt_xrealloc(*out, cap * 2 * sizeof **out);
		}
		(*out)[2 * *n] = lt_stmt_int(q, 0);
		(*out)[2 * *n + 1] = lt_stmt_int(q, 1);
		(*n)++;
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

/* Below this many leases, each is read on its own through the audit_object index. */
#define REBUILD_STREAM_MIN 32
/*
 * At most this many leases are built in one pass over the requests: bounds
 * memory (a builder holds at most some 4.5 KB of renew intervals, so under
 * 20 MB in all), while a cluster of up to 4096 nodes takes one pass.
 */
#define REBUILD_CHUNK 4096

/* A lease being built during a streaming pass, found by (namespace, name). */
struct rebuild_slot {
	int64_t ns, name;
	struct lc *b;	    /* while its requests are read */
	struct lc_result r; /* then its episodes, until written */
	int built;
};

struct rebuild_map {
	struct rebuild_slot *slots;
	size_t cap; /* a power of two, at least twice the leases */
};

static struct rebuild_slot *rebuild_slot(struct rebuild_map *m, int64_t ns, int64_t name)
{
	uint64_t h =
	    ((uint64_t)ns * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)name * 0xc2b2ae3d27d4eb4fULL);
	size_t i = (size_t)(h ^ (h >> 29)) & (m->cap - 1);
	while (m->slots[i].ns != 0 && (m->slots[i].ns != ns || m->slots[i].name != name))
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

static const char rebuild_stream_sql[] =
    "SELECT a.namespace_id, a.name_id, " LC_COLUMNS " FROM audit AS a INDEXED BY audit_rtv"
    " WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'leases') AND a.superseded = 0"
    " ORDER BY a.stage_us, a.id";

/* Ends every builder of the map: their results stay in the slots. */
static void rebuild_finish_map(struct rebuild_map *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		lc_end(m->slots[i].b);
		m->slots[i].b = NULL;
		m->slots[i].built = m->slots[i].built || m->slots[i].ns != 0;
	}
}

/* Writes every built lease of the map through st and releases the results. */
static int rebuild_store_map(struct lt_store *st, struct rebuild_map *m, struct lt_error *err)
{
	int rc = 0;

	rebuild_finish_map(m);
	for (size_t i = 0; i < m->cap; i++) {
		struct rebuild_slot *s = &m->slots[i];
		int64_t id;

		if (!s->built)
			continue;
		s->built = 0;
		if (rc == 0)
			rc = rebuild_forget(st, s->ns, s->name, err);
		if (rc == 0)
			rc = rebuild_lease(st, s->ns, s->name, &s->r.sum, &id, err);
		if (rc == 0)
			rc = rebuild_episodes(st, id, &s->r, err);
		lc_result_release(&s->r);
	}
	return rc;
}

/*
 * Builds n leases in one pass over all lease requests in time order, each
 * request fed to its lease's builder: consecutive requests are close in the
 * table, so pages are read once instead of once per request.  Only reads:
 * st may be a second, read-only connection.  Fills *m (the caller frees).
 */
static int rebuild_compute(struct lt_store *st, const int64_t *dirty, size_t n,
			   const struct rebuild_opts *o, struct rebuild_map *m,
			   struct lt_error *err)
{
	struct lt_stmt *q;
	int rc;

	m->cap = 64;
	while (m->cap < 2 * n)
		m->cap *= 2;
	m->slots = lt_xcalloc(m->cap, sizeof *m->slots);
	for (size_t i = 0; i < n; i++) {
		struct rebuild_slot *s = rebuild_slot(m, dirty[2 * i], dirty[2 * i + 1]);

		s->ns = dirty[2 * i];
		s->name = dirty[2 * i + 1];
		s->b = lc_new(st, s->ns, s->name, o->gap_us, o->slow_us, &s->r);
	}
	if ((rc = lt_store_prepare(st, &q, rebuild_stream_sql, err)) == 0) {
		while ((rc = lt_stmt_step(q, err)) == 1) {
			struct rebuild_slot *s =
			    rebuild_slot(m, lt_stmt_int(q, 0), lt_stmt_int(q, 1));

			if (s->b != NULL)
				lc_feed(s->b, q, 2);
		}
		lt_stmt_free(q);
	}
	rebuild_finish_map(m);
	return rc;
}

/* Releases what a map still holds without writing it. */
static void rebuild_drop_map(struct rebuild_map *m)
{
	rebuild_finish_map(m);
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].built)
			lc_result_release(&m->slots[i].r);
	free(m->slots);
	m->slots = NULL;
}

static int rebuild_stream(struct lt_store *st, const int64_t *dirty, size_t n,
			  const struct rebuild_opts *o, struct lt_error *err)
{
	struct rebuild_map m = {NULL, 0};
	int rc = rebuild_compute(st, dirty, n, o, &m, err);

	if (rc == 0)
		rc = rebuild_store_map(st, &m, err);
	rebuild_drop_map(&m);
	return rc;
}

static int rebuild_run(struct lt_store *st, int64_t since_id, const struct rebuild_opts *o,
		       struct lt_error *err)
{
	int64_t *dirty;
	size_t n;
	int rc = rebuild_dirty(st, since_id, &dirty, &n, err);

	if (rc == 0)
		rc = rebuild_exec(st, o->begin, err);
	if (n < REBUILD_STREAM_MIN) {
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = rebuild_one(st, dirty[2 * i], dirty[2 * i + 1], o, err);
	}
	for (size_t i = 0; n >= REBUILD_STREAM_MIN && i < n && rc == 0; i += REBUILD_CHUNK)
		rc = rebuild_stream(st, dirty + 2 * i,
				    n - i < REBUILD_CHUNK ? n - i : REBUILD_CHUNK, o, err);
	if (rc == 0 && o->mark)
		rc = rebuild_exec(st, rebuild_mark_sql, err);
	if (rc == 0)
		rc = rebuild_exec(st, "COMMIT", err);
	else
		rebuild_exec(st, "ROLLBACK", NULL);
	free(dirty);
	return rc;
}

int lt_lifecycle_rebuild(struct lt_store *st, int64_t since_id, struct lt_error *err)
{
	/* episodes of an older leasetrail: rebuild them all, not only the new events' leases */
	int old = lt_lifecycle_outdated(st);
	const struct rebuild_opts o = {0, 0, "BEGIN IMMEDIATE", 1};

	return rebuild_run(st, old ? 0 : since_id, &o, err);
}

int lt_lifecycle_overlay(struct lt_store *st, int64_t gap_us, int64_t slow_us, struct lt_error *err)
{
	const struct rebuild_opts o = {gap_us, slow_us, "BEGIN", 0};
	int rc = lt_store_overlay_derived(st, err);

	return rc != 0 ? rc : rebuild_run(st, 0, &o, err);
}

/* Every lease's episodes, built and not yet written. */
struct lt_lifecycle_batch {
	struct rebuild_map *maps; /* one per chunk of leases */
	size_t n;
};

int lt_lifecycle_compute(struct lt_store *st, struct lt_lifecycle_batch **out, struct lt_error *err)
{
	const struct rebuild_opts o = {0, 0, NULL, 0};
	struct lt_lifecycle_batch *b = lt_xcalloc(1, sizeof *b);
	int64_t *dirty;
	size_t n;
	int rc = rebuild_dirty(st, 0, &dirty, &n, err);

	for (size_t i = 0; i < n && rc == 0; i += REBUILD_CHUNK) {
		b->maps = lt_xrealloc(b->maps, (b->n + 1) * sizeof *b->maps);
		b->maps[b->n] = (struct rebuild_map){NULL, 0};
		rc = rebuild_compute(st, dirty + 2 * i,
				     n - i < REBUILD_CHUNK ? n - i : REBUILD_CHUNK, &o,
				     &b->maps[b->n++], err);
	}
	free(dirty);
	*out = b;
	return rc;
}

int lt_lifecycle_write(struct lt_store *st, struct lt_lifecycle_batch *b, struct lt_error *err)
{
	int rc = rebuild_exec(st, "BEGIN IMMEDIATE", err);

	for (size_t i = 0; i < b->n && rc == 0; i++)
		rc = rebuild_store_map(st, &b->maps[i], err);
	if (rc == 0) /* compute built every lease */
		rc = rebuild_exec(st, rebuild_mark_sql, err);
	if (rc == 0)
		rc = rebuild_exec(st, "COMMIT", err);
	else
		rebuild_exec(st, "ROLLBACK", NULL);
	return rc;
}

void lt_lifecycle_batch_free(struct lt_lifecycle_batch *b)
{
	if (b == NULL)
		return;
	for (size_t i = 0; i < b->n; i++)
		rebuild_drop_map(&b->maps[i]);
	free(b->maps);
	free(b);
}
