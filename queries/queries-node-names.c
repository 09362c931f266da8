/*
 * queries-node-names.c - the Node objects the store knows, kept as a small derived table.
 *
 * The nodes view lists the node leases and the Node objects that never had
 * one; the TUI's cluster list lists the same.  Both read lt_node_names, one
 * row per (cluster, Node name), rebuilt whole by the registry after the
 * leases whenever events were added: a loose index scan of audit_names
 * (QUERIES_NODE_NAMES_SQL: one seek per name and cluster), where a DISTINCT
 * over every Node request's entry (330 217 at 10 M events) cost ~60 ms of
 * CPU at every ingest.  A name never leaves it: stored requests are never
 * deleted, and neither reader asked whether a request was superseded.  A
 * store whose table is not current says so like any derived table
 * (lt_derived_check); the read-only overlay of --gap and --slow reads the
 * same scan (QUERIES_NODE_NAMES_SQL), not the table.
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

	(void)since_id; /* every name again: one seek per (name, cluster) in audit_names */
	if ((rc = queries_exec(st, "DELETE FROM lt_node_names", err)) != 0)
		return rc;
	return queries_exec(st, names_fill_sql, err);
}
