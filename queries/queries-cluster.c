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
