/*
 * queries-cluster.c - the clusters a store holds (schema 5): their names, how many,
 * and the id `--cluster NAME` stands for.
 *
 * The store lists each cluster its rows carry in `clusters` (index-cluster.c):
 * a store "has several clusters" when it lists two, and only then do the
 * answers gain a CLUSTER column.  Names are bound, never spliced.
 */
#include "queries-int.h"

#include <string.h>

int lt_cluster_count(struct lt_store *st)
{
	struct lt_stmt *q;
	int n = 0;

	if (lt_store_prepare(st, &q, "SELECT count(*) FROM clusters", NULL) != 0)
		return 0;
	if (lt_stmt_step(q, NULL) == 1)
		n = (int)lt_stmt_int(q, 0);
	lt_stmt_free(q);
	return n;
}

int lt_cluster_names(struct lt_store *st, void (*fn)(const char *name, void *ctx), void *ctx,
		     struct lt_error *err)
{
	struct lt_stmt *q;
	int rc = lt_store_prepare(st, &q,
				  "SELECT s.s FROM clusters AS c JOIN strs AS s ON s.id = c.id"
				  " ORDER BY s.s",
				  err);

	if (rc != 0)
		return rc;
	while ((rc = lt_stmt_step(q, err)) == 1) {
		size_t len;
		const char *name = lt_stmt_text(q, 0, &len);

		if (lt_cluster_name_ok(name, len)) /* what became a name at ingest, as a rule */
			fn(name, ctx);
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

int64_t lt_cluster_id(struct lt_store *st, const char *name)
{
	struct lt_stmt *q;
	int64_t id = 0;

	if (name == NULL ||
	    lt_store_prepare(st, &q,
			     "SELECT c.id FROM clusters AS c JOIN strs AS s ON s.id = c.id"
			     " WHERE s.s = ?1",
			     NULL) != 0)
		return 0;
	lt_stmt_bind_text(q, 1, name, (size_t)-1);
	if (lt_stmt_step(q, NULL) == 1)
		id = lt_stmt_int(q, 0);
	lt_stmt_free(q);
	return id;
}

/* ?1 --cluster's id, 0 when not given; ?2 ns; ?3 name: the lease's cluster, the given first. */
int64_t queries_lease_cluster(struct lt_store *st, int64_t given, int64_t ns, int64_t name)
{
	struct lt_stmt *q;
	int64_t id = given;

	if (given != 0 ||
	    lt_store_prepare(st, &q,
			     "SELECT cluster_id FROM lt_leases WHERE namespace_id = ?1"
			     " AND name_id = ?2 ORDER BY cluster_id LIMIT 1",
			     NULL) != 0)
		return id;
	lt_stmt_bind_int(q, 1, ns);
	lt_stmt_bind_int(q, 2, name);
	if (lt_stmt_step(q, NULL) == 1)
		id = lt_stmt_int(q, 0);
	lt_stmt_free(q);
	return id;
}

/*
 * --cluster on a read: the lease lifecycle's views (leases, episodes, nodes)
 * narrowed to one cluster for this connection, by TEMP views of the same
 * names over main's (TEMP objects come first when a name is not qualified),
 * the cluster bound into a TEMP table.  After an overlay (--gap/--slow: TEMP
 * tables and views already), the other clusters' rows are deleted from its
 * TEMP tables instead.  The store is never written.
 */
static const char *const scope_views[] = {
    "CREATE TEMP VIEW IF NOT EXISTS leases AS SELECT * FROM main.leases"
    " WHERE cluster_id IN (SELECT id FROM temp.lt_scope)",
    "CREATE TEMP VIEW IF NOT EXISTS episodes AS SELECT * FROM main.episodes"
    " WHERE cluster_id IN (SELECT id FROM temp.lt_scope)",
    "CREATE TEMP VIEW IF NOT EXISTS nodes AS SELECT * FROM main.nodes"
    " WHERE cluster_id IN (SELECT id FROM temp.lt_scope)",
    NULL,
};

static const char *const scope_overlay[] = {
    "DELETE FROM temp.lt_episodes WHERE lease_id IN (SELECT id FROM temp.lt_leases"
    " WHERE cluster_id NOT IN (SELECT id FROM temp.lt_scope))",
    "DELETE FROM temp.lt_leases WHERE cluster_id NOT IN (SELECT id FROM temp.lt_scope)",
    NULL,
};

/* 1 when the TEMP schema has an object of that name. */
static int scope_temp_has(struct lt_store *st, const char *name)
{
	struct lt_stmt *q;
	int has = 0;

	if (lt_store_prepare(st, &q, "SELECT 1 FROM sqlite_temp_master WHERE name = ?1", NULL) != 0)
		return 0;
	lt_stmt_bind_text(q, 1, name, (size_t)-1);
	has = lt_stmt_step(q, NULL) == 1;
	lt_stmt_free(q);
	return has;
}

int queries_clustered(struct lt_store *st, struct lt_error *err)
{
	struct lt_stmt *q;
	int rc =
	    lt_store_prepare(st, &q, "SELECT EXISTS (SELECT 1 FROM clusters WHERE id <> 0)", err);

	if (rc != 0)
		return rc;
	rc = lt_stmt_step(q, err);
	if (rc == 1)
		rc = lt_stmt_int(q, 0) != 0;
	lt_stmt_free(q);
	return rc < 0 ? LT_ERR_DB : rc;
}

int queries_cluster_scope(struct lt_store *st, int64_t cluster, struct lt_error *err)
{
	const char *const *list;
	struct lt_stmt *q;
	int rc;

	if (cluster == 0)
		return 0;
	if ((rc = queries_exec(st,
			       "CREATE TEMP TABLE IF NOT EXISTS lt_scope(id INTEGER PRIMARY KEY)",
			       err)) != 0 ||
	    (rc = queries_exec(st, "DELETE FROM temp.lt_scope", err)) != 0 ||
	    (rc = lt_store_prepare(st, &q, "INSERT INTO temp.lt_scope VALUES(?1)", err)) != 0)
		return rc;
	lt_stmt_bind_int(q, 1, cluster);
	rc = lt_stmt_step(q, err) < 0 ? LT_ERR_DB : 0;
	lt_stmt_free(q);
	list = scope_temp_has(st, "lt_leases") ? scope_overlay : scope_views;
	for (size_t i = 0; rc == 0 && list[i] != NULL; i++)
		rc = queries_exec(st, list[i], err);
	return rc;
}
