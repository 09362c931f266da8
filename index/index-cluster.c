/*
 * index-cluster.c - the cluster of each record a load stores (schema 5, index-schema.c).
 *
 * A record's cluster is, first to say: --cluster at ingest (which wins over
 * everything the files say), the record's envelope (lt_where.cluster: a
 * CloudWatch log group, GKE's cluster_name, AKS's resourceId), the file's
 * path (an S3 export under "aws/eks/NAME/cluster/"); else none (id 0).
 * Each cluster a load meets is listed in `clusters` once (0 only for audit
 * events: log lines naming no cluster go with any cluster's nodes), and a
 * source whose records all share one named cluster records it.
 */
#include "index-int.h"

#include <string.h>

void index_cluster_init(struct index_cluster *c, const char *given, const char *path)
{
	memset(c, 0, sizeof *c);
	c->given_wins = given != NULL;
	c->given =
	    given != NULL ? (struct lt_str){given, strlen(given)} : lt_cluster_from_path(path);
	c->file_id = -1;
}

void index_cluster_release(struct index_cluster *c)
{
	index_intern_memo_release(&c->memo, 1);
	sqlite3_finalize(c->add);
	c->add = NULL;
}

/* Lists id in clusters unless this load did already. */
static int cluster_note(struct index_cluster *c, struct lt_store *st, int64_t id,
			struct lt_error *err)
{
	size_t n = sizeof c->seen / sizeof *c->seen;
	int rc;

	for (size_t i = 0; i < c->nseen; i++)
		if (c->seen[i] == id)
			return 0;
	if (c->add == NULL &&
	    index_store_prepare_raw(st, &c->add, "INSERT OR IGNORE INTO clusters VALUES(?1)", err))
		return LT_ERR_DB;
	sqlite3_bind_int64(c->add, 1, id);
	rc = sqlite3_step(c->add);
	sqlite3_reset(c->add);
	if (rc != SQLITE_DONE)
		return index_store_db_error(st, err, "cannot record a cluster");
	if (c->nseen < n) /* past that, listed again each time: harmless, and rare */
		c->seen[c->nseen++] = id;
	return 0;
}

int index_cluster_id(struct index_cluster *c, struct lt_store *st, const struct lt_where *at,
		     int audit, int64_t *id, struct lt_error *err)
{
	struct lt_str name = c->given_wins || at->cluster.ptr == NULL ? c->given : at->cluster;

	*id = 0;
	if (name.ptr != NULL && index_intern_id_memo(st, &c->memo, name, id, err) != 0)
		return LT_ERR_DB;
	c->file_id = c->file_id == -1 || c->file_id == *id ? *id : -2;
	return *id != 0 || audit ? cluster_note(c, st, *id, err) : 0;
}

int index_cluster_save(struct index_cluster *c, struct lt_store *st, int64_t source_id,
		       struct lt_error *err)
{
	sqlite3_stmt *q;
	int rc;

	if (c->file_id <= 0) /* none yet, none named, or several */
		return 0;
	if (index_store_prepare_raw(st, &q, "UPDATE sources SET cluster_id = ?2 WHERE id = ?1",
				    err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_int64(q, 1, source_id);
	sqlite3_bind_int64(q, 2, c->file_id);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : index_store_db_error(st, err, "cannot record a cluster");
}
