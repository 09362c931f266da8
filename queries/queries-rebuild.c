/*
 * queries-rebuild.c - the lease lifecycle's tables: lt_leases, lt_episodes and their views,
 * kept in step with the stored events.
 *
 * The registry (queries-registry.c) runs each rebuild inside a transaction
 * that also records how far the tables cover; nothing here begins or
 * commits one, except the read-only overlay for --gap/--slow.
 */
#include "queries-int.h"

#include <stdlib.h>

/* The lease lifecycle's tables and views, for the store (T "") and as TEMP shadows (T "TEMP "). */
#define DERIVED_LEASES(T)                                                                          \
	"CREATE " T "TABLE IF NOT EXISTS lt_leases("                                               \
	" id INTEGER PRIMARY KEY, namespace_id INTEGER NOT NULL, name_id INTEGER NOT NULL,"        \
	" kind TEXT NOT NULL, state TEXT NOT NULL, first_us INTEGER, last_us INTEGER,"             \
	" last_renew_us INTEGER, renews INTEGER NOT NULL DEFAULT 0,"                               \
	" creates INTEGER NOT NULL DEFAULT 0, deletes INTEGER NOT NULL DEFAULT 0,"                 \
	" not_found INTEGER NOT NULL DEFAULT 0, auth_failures INTEGER NOT NULL DEFAULT 0,"         \
	" conflicts INTEGER NOT NULL DEFAULT 0, slow INTEGER NOT NULL DEFAULT 0,"                  \
	" gaps INTEGER NOT NULL DEFAULT 0, max_gap_us INTEGER, holder TEXT,"                       \
	" duration_s INTEGER, gap_us INTEGER NOT NULL," /* schema 5: a lease is of one cluster (0: \
							   none named) */                          \
	" cluster_id INTEGER NOT NULL DEFAULT 0, UNIQUE(cluster_id, namespace_id, name_id))"

#define DERIVED_EPISODES(T)                                                                        \
	"CREATE " T "TABLE IF NOT EXISTS lt_episodes("                                             \
	" id INTEGER PRIMARY KEY, lease_id INTEGER NOT NULL, kind TEXT NOT NULL,"                  \
	" start_us INTEGER NOT NULL, end_us INTEGER NOT NULL, count INTEGER NOT NULL,"             \
	" user_id INTEGER, groups_id INTEGER, source_ip_id INTEGER, user_agent_id INTEGER,"        \
	" first_event INTEGER, last_event INTEGER, cause_event INTEGER,"                           \
	" median_us INTEGER, max_us INTEGER, old_holder TEXT, new_holder TEXT,"                    \
	" inferred INTEGER NOT NULL DEFAULT 0, note TEXT)"

#define DERIVED_EPISODES_BY_LEASE(T)                                                               \
	"CREATE INDEX IF NOT EXISTS lt_episodes_lease ON lt_episodes(lease_id, start_us)"

#define DERIVED_EPISODES_BY_KIND(T)                                                                \
	"CREATE INDEX IF NOT EXISTS lt_episodes_kind ON lt_episodes(kind, start_us)"

/*
 * The end of the logs (LT_LEASES_END: max(last_us)), which every query binds, one index seek
 * instead of a scan of every lease (2 ms of CPU at 3000 leases).  Made at every writable open,
 * like the views: a store built before it gets it at its next ingest or rebuild.
 */
#define DERIVED_LEASES_BY_LAST "CREATE INDEX IF NOT EXISTS lt_leases_last ON lt_leases(last_us)"

/* The states of the leases and nodes views (LT_LEASE_STATE). */
#define DERIVED_LEASE_STATE LT_LEASE_STATE("l.state", "l.last_renew_us", "l.gap_us", LT_LEASES_END)
#define DERIVED_NODE_STATE  LT_LEASE_STATE("n.state", "n.last_renew", "n.gap_us", LT_LEASES_END)

#define DERIVED_LEASES_VIEW(T)                                                                     \
	"CREATE " T "VIEW IF NOT EXISTS leases AS SELECT l.id AS id,"                              \
	" (SELECT s FROM strs WHERE id = l.namespace_id) AS namespace,"                            \
	" (SELECT s FROM strs WHERE id = l.name_id) AS name, l.kind AS kind,"                      \
	" " DERIVED_LEASE_STATE " AS state,"                                                       \
	" l.first_us AS first_us, l.last_us AS last_us, l.last_renew_us AS last_renew_us,"         \
	" l.renews AS renews, l.creates AS creates, l.deletes AS deletes,"                         \
	" l.not_found AS not_found, l.auth_failures AS auth_failures, l.conflicts AS conflicts,"   \
	" l.slow AS slow, l.gaps AS gaps, l.max_gap_us AS max_gap_us, l.holder AS holder,"         \
	" l.duration_s AS duration_s, l.gap_us AS gap_threshold_us,"                               \
	" (SELECT s FROM strs WHERE id = l.cluster_id) AS cluster, l.cluster_id AS cluster_id"     \
	" FROM lt_leases AS l"

/*
 * Nodes are the node leases plus node objects that never had a lease; states as in leases.
 * The Node objects' names come from NAMES: the store's view reads lt_node_names (the registry
 * keeps it, queries-node-names.c), the read-only overlay the same loose scan of audit_names
 * that fills it (QUERIES_NODE_NAMES_SQL).  Their deletes come from audit_verbs
 * (index-schema.c: a writable open, which writes this view, makes both); the deletes' GROUP BY
 * is on +columns so that the planner does not walk audit_names for its order, reading every
 * Node request's row.
 */
#define DERIVED_NODES_VIEW(T, NAMES)                                                               \
	"CREATE " T "VIEW IF NOT EXISTS nodes AS WITH n AS ("                                      \
	" SELECT l.id AS lid, l.cluster_id AS cluster_id, l.name_id AS name_id, l.state AS state," \
	"  l.last_renew_us AS last_renew,"                                                         \
	"  l.renews AS renews, l.max_gap_us AS max_gap, l.not_found AS nf, l.deletes AS ldel,"     \
	"  l.gap_us AS gap_us FROM lt_leases AS l WHERE l.kind = 'node'"                           \
	" UNION ALL"                                                                               \
	" SELECT NULL, o.cluster_id, o.name_id, 'no-lease', NULL, 0, NULL, 0, 0, 0 FROM (" NAMES   \
	") AS o"                                                                                   \
	"  WHERE (o.cluster_id, o.name_id) NOT IN (SELECT cluster_id, name_id FROM lt_leases"      \
	"  WHERE kind = 'node'))"                                                                  \
	" SELECT (SELECT s FROM strs WHERE id = n.name_id) AS node,"                               \
	"  " DERIVED_NODE_STATE " AS state,"                                                       \
	"  n.last_renew AS last_renew_us, n.renews AS renews, n.max_gap AS max_gap_us,"            \
	"  n.nf AS not_found,"                                                                     \
	"  n.ldel + coalesce(d.n, 0) AS deletes,"                                                  \
	"  (SELECT count(*) FROM lt_episodes AS e WHERE e.lease_id = n.lid"                        \
	"   AND e.kind IN ('GAP', 'NOT_FOUND', 'AUTH_FAILURE', 'SLOW')) AS anomalies,"             \
	"  (SELECT s FROM strs WHERE id = n.cluster_id) AS cluster, n.cluster_id AS cluster_id"    \
	" FROM n LEFT JOIN (SELECT a.cluster_id AS cluster_id, a.name_id AS name_id,"              \
	"  count(*) AS n FROM audit AS a"                                                          \
	"  WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'nodes')"                          \
	"  AND a.verb_id = (SELECT id FROM strs WHERE s = 'delete') AND a.namespace_id IS NULL"    \
	"  AND a.code BETWEEN 200 AND 299 AND a.superseded = 0 GROUP BY +a.cluster_id, "           \
	"+a.name_id)"                                                                              \
	"  AS d ON d.name_id = n.name_id AND d.cluster_id = n.cluster_id"

#define DERIVED_EPISODES_VIEW(T)                                                                   \
	"CREATE " T "VIEW IF NOT EXISTS episodes AS SELECT e.id AS id, e.lease_id AS lease_id,"    \
	" (SELECT s FROM strs WHERE id = l.namespace_id) AS namespace,"                            \
	" (SELECT s FROM strs WHERE id = l.name_id) AS name, l.kind AS lease_kind,"                \
	" e.kind AS kind, e.start_us AS start_us, e.end_us AS end_us,"                             \
	" e.end_us - e.start_us AS duration_us, e.count AS count,"                                 \
	" (SELECT s FROM strs WHERE id = e.user_id) AS user,"                                      \
	" (SELECT s FROM strs WHERE id = e.groups_id) AS groups,"                                  \
	" (SELECT s FROM strs WHERE id = e.source_ip_id) AS source_ip,"                            \
	" (SELECT s FROM strs WHERE id = e.user_agent_id) AS user_agent,"                          \
	" e.first_event AS first_event, e.last_event AS last_event,"                               \
	" e.cause_event AS cause_event, e.median_us AS median_us, e.max_us AS max_us,"             \
	" e.old_holder AS old_holder, e.new_holder AS new_holder, e.inferred AS inferred,"         \
	" e.note AS note, (SELECT s FROM strs WHERE id = l.cluster_id) AS cluster,"                \
	" l.cluster_id AS cluster_id FROM lt_episodes AS e JOIN lt_leases AS l ON l.id = "         \
	"e.lease_id"

/*
 * How episodes are built (the registry records it; before it, meta 'episodes').
 * Bumped when the same events make other episodes (2: RENEWING split at a
 * holder change, RELEASED; 3: orphaned only by the kubelet's own 404s, a
 * node delete logged just after its lease's GC delete is still its cause;
 * 4: changes inside a gap from leaseTransitions/acquireTime, a leader lease
 * renewed again after it expired at Metadata level; 5: a lease with no renew
 * seen is "no-renews", not "renewing"), so that episodes of two versions never
 * mix.
 */
#define REBUILD_EPISODES 5

/* The Node objects' names the store's nodes view reads (queries-node-names.c). */
#define DERIVED_NODE_NAMES "SELECT cluster_id, name_id FROM lt_node_names"

static const char *const rebuild_schema[] = {
    DERIVED_LEASES(""),
    DERIVED_EPISODES(""),
    DERIVED_EPISODES_BY_LEASE(""),
    DERIVED_EPISODES_BY_KIND(""),
    DERIVED_LEASES_BY_LAST,
    "DROP VIEW IF EXISTS leases",
    "DROP VIEW IF EXISTS nodes",
    "DROP VIEW IF EXISTS episodes",
    DERIVED_LEASES_VIEW(""),
    DERIVED_NODES_VIEW("", DERIVED_NODE_NAMES),
    DERIVED_EPISODES_VIEW(""),
    NULL,
};

static const char *const rebuild_overlay_sql[] = {
    DERIVED_LEASES("TEMP "),	    DERIVED_EPISODES("TEMP "),
    DERIVED_LEASES_VIEW("TEMP "),   DERIVED_NODES_VIEW("TEMP ", QUERIES_NODE_NAMES_SQL),
    DERIVED_EPISODES_VIEW("TEMP "), NULL,
};

const struct lt_derived queries_lease_derived = {
    .name = "episodes",
    .version = REBUILD_EPISODES,
    .schema = rebuild_schema,
    .overlay = rebuild_overlay_sql,
};

static const char rebuild_lease_sql[] =
    "INSERT INTO lt_leases(namespace_id, name_id, kind, state, first_us, last_us,"
    " last_renew_us, renews, creates, deletes, not_found, auth_failures, conflicts, slow, gaps,"
    " max_gap_us, holder, duration_s, gap_us, cluster_id)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,"
    " ?20)";

static const char rebuild_episode_sql[] =
    "INSERT INTO lt_episodes(lease_id, kind, start_us, end_us, count, user_id, groups_id,"
    " source_ip_id, user_agent_id, first_event, last_event, cause_event, median_us, max_us,"
    " old_holder, new_holder, inferred, note)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";

/* A lease: its cluster (0: none named), namespace and name, as strs ids. */
struct rebuild_key {
	int64_t cluster, ns, name;
};

static const char *const rebuild_kinds[] = {
    [QUERIES_LEASE_NODE] = "node",
    [QUERIES_LEASE_LEADER] = "leader",
    [QUERIES_LEASE_IDENTITY] = "apiserver-identity",
};

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

/*
 * The statements that write one lease's rows, prepared once for every lease
 * a rebuild writes (preparing them per lease cost more than the writes:
 * 0.8 G instructions for 3000 leases, bench/RESULTS.md).  fresh: the tables
 * were emptied in this transaction, so a lease has no old rows to drop (the
 * two deletes found nothing, two of a lease's four statements: branch writer2).
 */
struct rebuild_writer {
	struct lt_stmt *forget_episodes, *forget_lease, *lease, *episode;
	int fresh;
};

static void rebuild_writer_release(struct rebuild_writer *w)
{
	lt_stmt_free(w->forget_episodes);
	lt_stmt_free(w->forget_lease);
	lt_stmt_free(w->lease);
	lt_stmt_free(w->episode);
	*w = (struct rebuild_writer){0};
}

static int rebuild_writer_init(struct rebuild_writer *w, struct lt_store *st, int fresh,
			       struct lt_error *err)
{
	int rc;

	*w = (struct rebuild_writer){.fresh = fresh};
	rc = lt_store_prepare(st, &w->forget_episodes,
			      "DELETE FROM lt_episodes WHERE lease_id IN (SELECT id FROM lt_leases"
			      " WHERE namespace_id = ?1 AND name_id = ?2 AND cluster_id = ?3)",
			      err);
	if (rc == 0)
		rc = lt_store_prepare(
		    st, &w->forget_lease,
		    "DELETE FROM lt_leases WHERE namespace_id = ?1 AND name_id = ?2"
		    " AND cluster_id = ?3",
		    err);
	if (rc == 0)
		rc = lt_store_prepare(st, &w->lease, rebuild_lease_sql, err);
	if (rc == 0)
		rc = lt_store_prepare(st, &w->episode, rebuild_episode_sql, err);
	if (rc != 0)
		rebuild_writer_release(w);
	return rc;
}

/* Steps q once and resets it (bindings cleared) for the next lease. */
static int rebuild_step(struct lt_stmt *q, struct lt_error *err)
{
	int rc = lt_stmt_step(q, err) < 0 ? LT_ERR_DB : 0;

	lt_stmt_reset(q);
	return rc;
}

/* Replaces the lease's row; returns its new id in *id. */
static int rebuild_lease(struct rebuild_writer *w, struct rebuild_key k,
			 const struct queries_lease_summary *s, int64_t *id, struct lt_error *err)
{
	const int64_t nums[] = {s->first_us,  s->last_us, s->last_renew_us, s->renews,
				s->creates,   s->deletes, s->not_found,	    s->auth_failures,
				s->conflicts, s->slow,	  s->gaps};
	struct lt_stmt *q = w->lease;
	int rc;

	lt_stmt_bind_int(q, 1, k.ns);
	lt_stmt_bind_int(q, 2, k.name);
	lt_stmt_bind_int(q, 20, k.cluster);
	lt_stmt_bind_text(q, 3, rebuild_kinds[s->kind], (size_t)-1);
	lt_stmt_bind_text(q, 4, s->state, (size_t)-1);
	for (int i = 0; i < 11; i++)
		rebuild_bind_opt(q, 5 + i, nums[i], i > 2 || nums[i] != 0);
	rebuild_bind_opt(q, 16, s->max_gap_us, s->max_gap_us > 0);
	rebuild_bind_text(q, 17, s->holder);
	rebuild_bind_opt(q, 18, s->duration_s, s->duration_s >= 0);
	lt_stmt_bind_int(q, 19, s->gap_us);
	rc = rebuild_step(q, err);
	*id = rc == 0 ? lt_stmt_last_rowid(q) : 0;
	return rc;
}

static void rebuild_bind_episode(struct lt_stmt *q, int64_t lease, const struct queries_episode *e)
{
	const int64_t ids[] = {e->user,	       e->groups,     e->ip,   e->agent,
			       e->first_event, e->last_event, e->cause};

	lt_stmt_bind_int(q, 1, lease);
	lt_stmt_bind_text(q, 2, lt_episode_kind_name(e->kind), (size_t)-1);
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

static int rebuild_episodes(struct rebuild_writer *w, int64_t lease,
			    const struct queries_lease_result *r, struct lt_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < r->n && rc == 0; i++) {
		rebuild_bind_episode(w->episode, lease, &r->eps[i]);
		rc = rebuild_step(w->episode, err);
	}
	return rc;
}

/* Runs a DELETE bound to one lease's (namespace, name, cluster). */
static int rebuild_delete(struct lt_stmt *q, struct rebuild_key k, struct lt_error *err)
{
	lt_stmt_bind_int(q, 1, k.ns);
	lt_stmt_bind_int(q, 2, k.name);
	lt_stmt_bind_int(q, 3, k.cluster);
	return rebuild_step(q, err);
}

/* Writes one lease's result: its old episodes and row dropped, then its row and episodes. */
static int rebuild_write(struct rebuild_writer *w, struct rebuild_key k,
			 const struct queries_lease_result *r, struct lt_error *err)
{
	int64_t id;
	int rc = w->fresh ? 0 : rebuild_delete(w->forget_episodes, k, err);

	if (rc == 0 && !w->fresh)
		rc = rebuild_delete(w->forget_lease, k, err);
	if (rc == 0)
		rc = rebuild_lease(w, k, &r->sum, &id, err);
	if (rc == 0)
		rc = rebuild_episodes(w, id, r, err);
	return rc;
}

/* Thresholds for a rebuild: 0 takes each lease's defaults; fresh: see rebuild_writer. */
struct rebuild_opts {
	int64_t gap_us, slow_us;
	int fresh;
};

static int rebuild_one(struct queries_lease_feed *f, struct rebuild_key k,
		       const struct rebuild_opts *o, struct lt_error *err)
{
	struct queries_lease_result r;
	struct rebuild_writer w;
	int rc =
	    queries_lease_build(f->st, k.cluster, k.ns, k.name, o->gap_us, o->slow_us, &r, err);

	if (rc == 0 && (rc = rebuild_writer_init(&w, f->st, o->fresh, err)) == 0) {
		rc = rebuild_write(&w, k, &r, err);
		rebuild_writer_release(&w);
	}
	queries_lease_result_release(&r);
	return rc;
}

/* Leases in (cluster, namespace, name) order, as the store's UNION listed them. */
static int rebuild_key_cmp(const void *a, const void *b)
{
	const struct rebuild_key *x = a, *y = b;

	if (x->cluster != y->cluster)
		return x->cluster < y->cluster ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Appends every row (cluster, namespace, name) of q, bound to since_id, to *out. */
static int rebuild_collect(struct lt_stmt *q, int64_t since_id, struct rebuild_key **out, size_t *n,
			   size_t *cap, struct lt_error *err)
{
	int rc;

	lt_stmt_bind_int(q, 1, since_id);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		LT_GROW(*out, *cap, *n + 1);
		(*out)[(*n)++] = (struct rebuild_key){.cluster = lt_stmt_int(q, 0),
						      .ns = lt_stmt_int(q, 1),
						      .name = lt_stmt_int(q, 2)};
	}
	lt_stmt_reset(q);
	return rc < 0 ? rc : 0;
}

/* Runs one statement listing leases into *out (see rebuild_collect). */
static int rebuild_list(struct lt_store *st, const char *sql, int64_t since_id,
			struct rebuild_key **out, size_t *n, size_t *cap, struct lt_error *err)
{
	struct lt_stmt *q;
	int rc = lt_store_prepare(st, &q, sql, err);

	if (rc == 0) {
		rc = rebuild_collect(q, since_id, out, n, cap, err);
		lt_stmt_free(q);
	}
	return rc;
}

/* Sorts the keys and drops repeats: the set a UNION gives, in its order. */
static void rebuild_unique(struct rebuild_key *k, size_t *n)
{
	size_t kept = 0;

	if (*n > 1)
		qsort(k, *n, sizeof *k, rebuild_key_cmp);
	for (size_t i = 0; i < *n; i++)
		if (kept == 0 || rebuild_key_cmp(&k[kept - 1], &k[i]) != 0)
			k[kept++] = k[i];
	*n = kept;
}

/* The lease requests above ?1, each lease as often as it has requests. */
static const char rebuild_requests_sql[] =
    "SELECT cluster_id, namespace_id, name_id FROM audit WHERE id > ?1"
    " AND resource_id = (SELECT id FROM strs WHERE s = 'leases')"
    " AND namespace_id IS NOT NULL AND name_id IS NOT NULL";

/*
 * Every lease of a store whose events name no cluster (all of cluster 0), each once, in
 * order: the next name in the namespace (rebuild_next_name_sql), else the first of the next
 * namespace (rebuild_next_ns_sql; name_id >= INT64_MIN: not NULL), each one seek of audit_object,
 * which covers the whole WHERE. Listing every lease request instead read each one's row for its
 * cluster, in the index's order, not the table's: 9 % of the writer thread's CPU on bench-speed's
 * audit log (bench/RESULTS.md, branch writer2).  (A row value (namespace_id, name_id) > (?, ?)
 * seeks on the namespace alone in SQLite 3.40: every step walked the namespace from its start.)
 */
static const char rebuild_next_name_sql[] =
    "SELECT namespace_id, name_id FROM audit"
    " WHERE resource_id = (SELECT id FROM strs WHERE s = 'leases')"
    " AND namespace_id = ?1 AND name_id > ?2 ORDER BY name_id LIMIT 1";
static const char rebuild_next_ns_sql[] =
    "SELECT namespace_id, name_id FROM audit"
    " WHERE resource_id = (SELECT id FROM strs WHERE s = 'leases') AND namespace_id > ?1"
    " AND name_id >= ?2 ORDER BY namespace_id, name_id LIMIT 1";

/* Steps q bound to (a, b): 1 with a row (its columns in *ns and *name), 0 without, or < 0. */
static int rebuild_seek(struct lt_stmt *q, int64_t a, int64_t b, int64_t *ns, int64_t *name,
			struct lt_error *err)
{
	int rc;

	lt_stmt_bind_int(q, 1, a);
	lt_stmt_bind_int(q, 2, b);
	if ((rc = lt_stmt_step(q, err)) == 1) {
		*ns = lt_stmt_int(q, 0);
		*name = lt_stmt_int(q, 1);
	}
	lt_stmt_reset(q);
	return rc;
}

/* Appends every lease of a store of no named cluster to *out (see above). */
static int rebuild_all_leases(struct lt_store *st, struct rebuild_key **out, size_t *n, size_t *cap,
			      struct lt_error *err)
{
	struct lt_stmt *same = NULL, *next = NULL;
	int64_t ns = 0, name = 0;
	int rc = lt_store_prepare(st, &same, rebuild_next_name_sql, err);

	if (rc == 0)
		rc = lt_store_prepare(st, &next, rebuild_next_ns_sql, err);
	if (rc == 0)
		rc = rebuild_seek(next, 0, INT64_MIN, &ns, &name, err);
	while (rc == 1) {
		LT_GROW(*out, *cap, *n + 1);
		(*out)[(*n)++] = (struct rebuild_key){.cluster = 0, .ns = ns, .name = name};
		if ((rc = rebuild_seek(same, ns, name, &ns, &name, err)) == 0)
			rc = rebuild_seek(next, ns, INT64_MIN, &ns, &name, err);
	}
	lt_stmt_free(same);
	lt_stmt_free(next);
	return rc < 0 ? LT_ERR_DB : 0;
}

/*
 * The node leases to rebuild for a node deletion above ?1 (often in another apiserver's file):
 * the deletion is the cause of its lease's deletion.
 */
static const char rebuild_deleted_sql[] =
    "SELECT l.cluster_id, l.namespace_id, l.name_id FROM lt_leases AS l"
    " WHERE l.kind = 'node' AND (l.cluster_id, l.name_id) IN (SELECT cluster_id, name_id"
    "  FROM audit"
    "  WHERE id > ?1 AND resource_id = (SELECT id FROM strs WHERE s = 'nodes')"
    "  AND verb_id = (SELECT id FROM strs WHERE s = 'delete'))";

/*
 * The leases with events newer than since_id, in (cluster, namespace, name) order, each once:
 * with since_id 0 in a store of no named cluster one seek a lease (rebuild_all_leases), else
 * every lease request above since_id.
 */
static int rebuild_dirty(struct lt_store *st, int64_t since_id, struct rebuild_key **out, size_t *n,
			 struct lt_error *err)
{
	size_t cap = 0;
	int rc = since_id == 0 ? queries_clustered(st, err) : 1;

	*out = NULL;
	*n = 0;
	if (rc == 0)
		rc = rebuild_all_leases(st, out, n, &cap, err);
	else if (rc == 1)
		rc = rebuild_list(st, rebuild_requests_sql, since_id, out, n, &cap, err);
	if (rc == 0)
		rc = rebuild_list(st, rebuild_deleted_sql, since_id, out, n, &cap, err);
	if (rc == 0)
		rebuild_unique(*out, n);
	return rc;
}

/* Below this many leases, each is read on its own through the audit_object index. */
#define REBUILD_STREAM_MIN 32
/*
 * At most this many leases are built in one pass over the requests: bounds
 * memory (a builder holds at most some 4.5 KB of renew intervals, so under
 * 20 MB in all), while a cluster of up to 4096 nodes takes one pass.
 */
#define REBUILD_CHUNK 4096

/* A lease being built during a streaming pass, found by its key (ns 0: a free slot). */
struct rebuild_slot {
	struct rebuild_key k;
	struct queries_lease *b;       /* while its requests are read */
	struct queries_lease_result r; /* then its episodes, until written */
	int built;
	int64_t last_us, last_id; /* the request fed last (rebuild_stream_sql) */
	int redo;		  /* two of its requests came out of (stage_us, id) order */
};

struct rebuild_map {
	struct rebuild_slot *slots;
	size_t cap; /* a power of two, at least twice the leases */
};

static struct rebuild_slot *rebuild_slot(struct rebuild_map *m, struct rebuild_key k)
{
	uint64_t h = ((uint64_t)k.ns * 0x9e3779b97f4a7c15ULL) ^
		     ((uint64_t)k.name * 0xc2b2ae3d27d4eb4fULL) ^
		     ((uint64_t)k.cluster * 0x165667b19e3779f9ULL);
	size_t i = (size_t)(h ^ (h >> 29)) & (m->cap - 1);
	while (m->slots[i].k.ns != 0 && (m->slots[i].k.ns != k.ns || m->slots[i].k.name != k.name ||
					 m->slots[i].k.cluster != k.cluster))
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

/*
 * Every lease request in audit_rtv's own order, (stage_us, verb_id, id): no sort.  A lease
 * is built from its requests in (stage_us, id) order; ORDER BY a.stage_us, a.id made SQLite
 * sort each run of equal stage_us apart (a sorter opened, filled and rewound for nearly
 * every row: 0.43 G of the 2.08 G instructions of this pass on bench-speed's 213 000 lease
 * requests, bench/RESULTS.md, branch writer2).  The rare lease with two requests in the same
 * microsecond whose verbs order them against their ids is noticed (rebuild_feed) and built
 * again on its own (rebuild_redo).  Columns 3 and 4 are QUERIES_LEASE_COLUMNS' a.id and
 * a.stage_us.
 */
static const char rebuild_stream_sql[] =
    "SELECT a.namespace_id, a.name_id, a.cluster_id, " QUERIES_LEASE_COLUMNS
    " FROM audit AS a INDEXED BY audit_rtv"
    " WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'leases') AND a.superseded = 0"
    " ORDER BY a.stage_us, a.verb_id, a.id";

/* Feeds the request in q to its lease's builder, noting one out of (stage_us, id) order. */
static void rebuild_feed(struct queries_lease_feed *f, struct rebuild_map *m,
			 const struct lt_stmt *q)
{
	struct rebuild_key k = {
	    .ns = lt_stmt_int(q, 0), .name = lt_stmt_int(q, 1), .cluster = lt_stmt_int(q, 2)};
	struct rebuild_slot *s = rebuild_slot(m, k);
	int64_t id = lt_stmt_int(q, 3), us = lt_stmt_int(q, 4);

	if (s->b == NULL)
		return;
	s->redo = s->redo || (us == s->last_us && id < s->last_id);
	s->last_us = us;
	s->last_id = id;
	queries_lease_feed_row(f, s->b, k.cluster, k.name, q, 3);
}

/* Builds again, each on its own in (stage_us, id) order, the leases rebuild_feed noted. */
static int rebuild_redo(struct queries_lease_feed *f, struct rebuild_map *m,
			const struct rebuild_opts *o, struct lt_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < m->cap && rc == 0; i++) {
		struct rebuild_slot *s = &m->slots[i];

		if (!s->redo || !s->built)
			continue;
		s->redo = 0;
		queries_lease_result_release(&s->r);
		rc = queries_lease_build(f->st, s->k.cluster, s->k.ns, s->k.name, o->gap_us,
					 o->slow_us, &s->r, err);
	}
	return rc;
}

/* Ends every builder of the map: their results stay in the slots; the first error. */
static int rebuild_finish_map(struct rebuild_map *m)
{
	int rc = 0;

	for (size_t i = 0; i < m->cap; i++) {
		int e = queries_lease_end(m->slots[i].b);

		rc = rc != 0 ? rc : e;
		m->slots[i].b = NULL;
		m->slots[i].built = m->slots[i].built || m->slots[i].k.ns != 0;
	}
	return rc;
}

/* Writes every built lease of the map through st and releases the results. */
static int rebuild_store_map(struct lt_store *st, struct rebuild_map *m, int fresh,
			     struct lt_error *err)
{
	struct rebuild_writer w = {0};
	int rc;

	rebuild_finish_map(m);
	rc = rebuild_writer_init(&w, st, fresh, err);
	for (size_t i = 0; i < m->cap; i++) {
		struct rebuild_slot *s = &m->slots[i];

		if (!s->built)
			continue;
		s->built = 0;
		if (rc == 0)
			rc = rebuild_write(&w, s->k, &s->r, err);
		queries_lease_result_release(&s->r);
	}
	rebuild_writer_release(&w);
	return rc;
}

/*
 * Builds n leases in one pass over all lease requests in time order, each
 * request fed to its lease's builder: consecutive requests are close in the
 * table, so pages are read once instead of once per request.  Only reads:
 * f's store may be a second, read-only connection.  Fills *m (the caller frees).
 */
static int rebuild_compute(struct queries_lease_feed *f, const struct rebuild_key *dirty, size_t n,
			   const struct rebuild_opts *o, struct rebuild_map *m,
			   struct lt_error *err)
{
	struct lt_stmt *q;
	int rc, order;

	m->cap = 64;
	while (m->cap < 2 * n)
		m->cap *= 2;
	m->slots = lt_xcalloc(m->cap, sizeof *m->slots);
	for (size_t i = 0; i < n; i++) {
		struct rebuild_slot *s = rebuild_slot(m, dirty[i]);

		s->k = dirty[i];
		s->b = queries_lease_feed_begin(f, s->k.cluster, s->k.ns, s->k.name, o->gap_us,
						o->slow_us, &s->r);
	}
	if ((rc = lt_store_prepare(f->st, &q, rebuild_stream_sql, err)) == 0) {
		while ((rc = lt_stmt_step(q, err)) == 1)
			rebuild_feed(f, m, q);
		lt_stmt_free(q);
	}
	order = rebuild_finish_map(m);
	if (rc == 0 && order != 0)
		rc = lt_error_set(err, LT_ERR_USAGE, "lease events out of time order");
	if (rc == 0)
		rc = rebuild_redo(f, m, o, err);
	return rc < 0 ? LT_ERR_DB : rc;
}

/* Releases what a map still holds without writing it. */
static void rebuild_drop_map(struct rebuild_map *m)
{
	rebuild_finish_map(m);
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].built)
			queries_lease_result_release(&m->slots[i].r);
	free(m->slots);
	m->slots = NULL;
}

static int rebuild_stream(struct queries_lease_feed *f, const struct rebuild_key *dirty, size_t n,
			  const struct rebuild_opts *o, struct lt_error *err)
{
	struct rebuild_map m = {NULL, 0};
	int rc = rebuild_compute(f, dirty, n, o, &m, err);

	if (rc == 0)
		rc = rebuild_store_map(f->st, &m, o->fresh, err);
	rebuild_drop_map(&m);
	return rc;
}

/* Rebuilds the leases with events above since_id, inside the caller's transaction. */
static int rebuild_run(struct lt_store *st, int64_t since_id, const struct rebuild_opts *o,
		       struct lt_error *err)
{
	struct queries_lease_feed f;
	struct rebuild_key *dirty;
	size_t n;
	int rc = rebuild_dirty(st, since_id, &dirty, &n, err);

	if (rc == 0 && (rc = queries_lease_feed_open(&f, st, err)) == 0) {
		if (n < REBUILD_STREAM_MIN) {
			for (size_t i = 0; i < n && rc == 0; i++)
				rc = rebuild_one(&f, dirty[i], o, err);
		}
		for (size_t i = 0; n >= REBUILD_STREAM_MIN && i < n && rc == 0; i += REBUILD_CHUNK)
			rc = rebuild_stream(&f, dirty + i,
					    n - i < REBUILD_CHUNK ? n - i : REBUILD_CHUNK, o, err);
		queries_lease_feed_close(&f);
	}
	free(dirty);
	return rc;
}

/* Also kept in meta 'episodes', where leasetrail before the registry looked. */
static int rebuild_mark_legacy(struct lt_store *st, struct lt_error *err)
{
	char sql[96];

	snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO meta VALUES('episodes', '%d')",
		 REBUILD_EPISODES);
	return queries_exec(st, sql, err);
}

int queries_lease_rebuild(struct lt_store *st, int64_t since_id, struct lt_error *err)
{
	const struct rebuild_opts o = {.fresh = since_id == 0};
	int rc = since_id == 0 ? queries_exec(st, "DELETE FROM lt_episodes", err) : 0;

	if (rc == 0 && since_id == 0)
		rc = queries_exec(st, "DELETE FROM lt_leases", err);
	if (rc == 0)
		rc = rebuild_run(st, since_id, &o, err);
	return rc == 0 ? rebuild_mark_legacy(st, err) : rc;
}

int lt_lifecycle_overlay(struct lt_store *st, int64_t gap_us, int64_t slow_us, struct lt_error *err)
{
	const struct rebuild_opts o = {.gap_us = gap_us, .slow_us = slow_us};
	int rc = lt_store_derive_overlay(st, &queries_lease_derived, err);

	if (rc == 0)
		rc = queries_exec(st, "BEGIN", err);
	if (rc != 0)
		return rc;
	if ((rc = rebuild_run(st, 0, &o, err)) == 0)
		return queries_exec(st, "COMMIT", err);
	queries_exec(st, "ROLLBACK", NULL);
	return rc;
}

/* Every lease's episodes, built and not yet written. */
struct rebuild_batch {
	struct rebuild_map *maps; /* one per chunk of leases */
	size_t n, cap;
};

int queries_lease_compute(struct lt_store *st, void **out, struct lt_error *err)
{
	const struct rebuild_opts o = {.gap_us = 0};
	struct queries_lease_feed f;
	struct rebuild_batch *b;
	struct rebuild_key *dirty;
	size_t n;
	int rc;

	*out = NULL;
	/* a lease body's duration lookup wants the index built last: after it, not beside it */
	if (lt_store_has_lease_bodies(st))
		return 0;
	if ((rc = queries_lease_feed_open(&f, st, err)) != 0)
		return rc;
	b = lt_xcalloc(1, sizeof *b);
	rc = rebuild_dirty(st, 0, &dirty, &n, err);
	for (size_t i = 0; i < n && rc == 0; i += REBUILD_CHUNK) {
		LT_GROW(b->maps, b->cap, b->n + 1);
		b->maps[b->n] = (struct rebuild_map){NULL, 0};
		rc = rebuild_compute(&f, dirty + i, n - i < REBUILD_CHUNK ? n - i : REBUILD_CHUNK,
				     &o, &b->maps[b->n++], err);
	}
	free(dirty);
	queries_lease_feed_close(&f);
	*out = b;
	return rc;
}

int queries_lease_write(struct lt_store *st, void *computed, struct lt_error *err)
{
	struct rebuild_batch *b = computed;
	int rc = queries_exec(st, "DELETE FROM lt_episodes", err);

	if (rc == 0)
		rc = queries_exec(st, "DELETE FROM lt_leases", err);
	for (size_t i = 0; i < b->n && rc == 0; i++)
		rc = rebuild_store_map(st, &b->maps[i], 1, err);
	return rc == 0 ? rebuild_mark_legacy(st, err) : rc;
}

void queries_lease_computed_free(void *computed)
{
	struct rebuild_batch *b = computed;

	if (b == NULL)
		return;
	for (size_t i = 0; i < b->n; i++)
		rebuild_drop_map(&b->maps[i]);
	free(b->maps);
	free(b);
}
