/*
 * queries-node-names.c - the Node objects the store knows, kept as a small derived table.
 *
 * The nodes view lists the node leases and the Node objects that never had
 * one.  The second half was a DISTINCT over every Node request's index
 * entry (audit_names: 330 217 at 10 M events, ~60 ms of CPU in every
 * `nodes`); lt_node_names holds its answer, one row per (cluster, Node
 * name), rebuilt whole by the registry after the leases whenever events
 * were added (the same DISTINCT, once per ingest).  A name never leaves it:
 * stored requests are never deleted, and the view never asked whether a
 * request was superseded.  A store whose table is not current says so like
 * any derived table (lt_derived_check); the read-only overlay of --gap and
 * --slow keeps the DISTINCT, as a store from before this table has none.
 */
#include "queries-int.h"

static const char *const names_schema[] = {
    "CREATE TABLE IF NOT EXISTS lt_node_names(cluster_id INTEGER NOT NULL,"
    " name_id INTEGER NOT NULL, PRIMARY KEY(cluster_id, name_id)) WITHOUT ROWID",
    NULL,
};

const struct lt_derived queries_node_names_derived = {
    .name = "node-names",
    .version = 1,
    .schema = names_schema,
};

static const char names_fill_sql[] =
    "INSERT OR IGNORE INTO lt_node_names(cluster_id, name_id) " QUERIES_NODE_NAMES_SQL;

int queries_node_names_rebuild(struct lt_store *st, int64_t since_id, struct lt_error *err)
{
	int rc;

	(void)since_id; /* every name again: one pass over the Node entries of audit_names */
	if ((rc = queries_exec(st, "DELETE FROM lt_node_names", err)) != 0)
		return rc;
	return queries_exec(st, names_fill_sql, err);
}
