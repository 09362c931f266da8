/*
 * queries-node-names.c - the Node objects the store knows, kept as a small derived table.
 *
 * The nodes view lists the node leases and the Node objects that never had
 * one; the TUI's cluster list lists the same names.  Both read
 * lt_node_names, one row per (cluster, Node name), rebuilt whole by the
 * registry after the leases whenever events were added.  A store whose
 * events are all of no named cluster (the clusters table lists none: every
 * audit event's cluster is listed there) fills it by a loose index scan of
 * audit_object, one seek per name, read from the index alone (names_one_sql);
 * a store of several clusters by the DISTINCT over every Node request
 * (QUERIES_NODE_NAMES_SQL: audit_names gives the cluster, but only with the
 * row, whose namespace its partial WHERE names).  At 10 M events and 3000
 * Nodes: 2-9 ms of CPU against 40-60 ms.  A name never leaves the table:
 * stored requests are never deleted, and neither reader asked whether a
 * request was superseded.  A store whose table is not current says so like
 * any derived table (lt_derived_check); the read-only overlay of --gap and
 * --slow keeps the DISTINCT.
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

/*
 * The Node names of a store of no named cluster: each the next above the last in
 * audit_object (resource_id, namespace_id, name_id, ...), which covers the whole WHERE.
 */
#define NAMES_NODE_REQUEST                                                                         \
	"a.resource_id = (SELECT id FROM strs WHERE s = 'nodes') AND a.namespace_id IS NULL"
static const char names_one_sql[] =
    "INSERT OR IGNORE INTO lt_node_names(cluster_id, name_id)"
    " WITH RECURSIVE o(name_id) AS (SELECT (SELECT a.name_id FROM audit AS a"
    "  WHERE " NAMES_NODE_REQUEST " AND a.name_id IS NOT NULL ORDER BY a.name_id LIMIT 1)"
    " UNION ALL SELECT (SELECT a.name_id FROM audit AS a WHERE " NAMES_NODE_REQUEST
    "  AND a.name_id > o.name_id ORDER BY a.name_id LIMIT 1) FROM o WHERE o.name_id IS NOT NULL)"
    " SELECT 0, name_id FROM o WHERE name_id IS NOT NULL";

int queries_node_names_rebuild(struct lt_store *st, int64_t since_id, struct lt_error *err)
{
	int rc;

	(void)since_id; /* every name again: the stored Node requests' names */
	if ((rc = queries_exec(st, "DELETE FROM lt_node_names", err)) != 0)
		return rc;
	if ((rc = queries_clustered(st, err)) < 0)
		return rc;
	return queries_exec(st, rc ? names_fill_sql : names_one_sql, err);
}
