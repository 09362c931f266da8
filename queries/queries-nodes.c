/* queries-nodes.c - `leasetrail nodes`: every node's state at the end of the logs. */
#include "queries-int.h"

/*
 * Nodes are the node leases plus node objects that never had a lease.
 * "stale" is decided here, against the newest event in the store, so a
 * later ingest that extends the time range makes an idle lease stale
 * without rebuilding it.
 */
static const char nodes_sql[] =
    "WITH n AS ("
    " SELECT l.id AS lid, l.name_id AS name_id, l.state AS state, l.last_renew_us AS last_renew,"
    "  l.renews AS renews, l.max_gap_us AS max_gap, l.not_found AS nf, l.deletes AS ldel,"
    "  l.gap_us AS gap_us FROM lt_leases AS l WHERE l.kind = 'node'"
    " UNION ALL"
    " SELECT NULL, o.name_id, 'no-lease', NULL, 0, NULL, 0, 0, 0 FROM (SELECT DISTINCT name_id"
    "  FROM audit WHERE resource_id = (SELECT id FROM strs WHERE s = 'nodes')"
    "  AND namespace_id IS NULL AND name_id IS NOT NULL) AS o"
    "  WHERE o.name_id NOT IN (SELECT name_id FROM lt_leases WHERE kind = 'node'))"
    " SELECT (SELECT s FROM strs WHERE id = n.name_id) AS node,"
    "  CASE WHEN n.state IN ('renewing', 're-created') AND ?1 - n.last_renew > n.gap_us"
    "   THEN 'stale' ELSE n.state END,"
    "  n.last_renew, n.renews, n.max_gap, n.nf,"
    "  n.ldel + (SELECT count(*) FROM audit AS a"
    "   WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'nodes')"
    "   AND a.namespace_id IS NULL AND a.name_id = n.name_id"
    "   AND a.verb_id = (SELECT id FROM strs WHERE s = 'delete')"
    "   AND a.code BETWEEN 200 AND 299 AND a.superseded = 0),"
    "  (SELECT count(*) FROM lt_episodes AS e WHERE e.lease_id = n.lid"
    "   AND e.kind IN ('GAP', 'NOT_FOUND', 'AUTH_FAILURE', 'SLOW'))"
    " FROM n ORDER BY node";

int lt_query_nodes(struct lt_store *st, const struct lt_query_opts *o, FILE *out,
		   struct lt_error *err)
{
	static const struct lt_col cols[] = {
	    {"node", 't'},    {"state", 't'},	  {"last_renew", 'T'}, {"renews", 'n'},
	    {"max_gap", 'D'}, {"not_found", 'n'}, {"deletes", 'n'},    {"anomalies", 'n'}};
	int64_t end = lt_store_end_us(st);

	return lt_run_table(st, nodes_sql, cols, 8, &end, 1, o->fmt, out, err);
}
