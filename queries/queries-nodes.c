/*
 * queries-nodes.c - `leasetrail nodes`: every node's state at the end of the logs.
 *
 * The nodes view (the lease lifecycle's) holds the lease columns; node
 * health (lt_notready) adds how many NotReady windows a node had and how
 * long they lasted, an open one counting to the end of the logs.  A node
 * still NotReady at the end is `not-ready`: that is the more urgent fact
 * than its lease renewing, re-created, stale or missing, but a deleted or
 * orphaned node stays so (it is gone, which says more than NotReady).  A
 * node only log lines know (no lease, no Node request) is `logs-only`.
 */
#include "queries-int.h"

/*
 * The nodes view (leases and Node objects) and the nodes only log lines know (`logs-only`:
 * a host its lines map to, a file's --node, a node health window's node: a store of kubelet
 * journals alone).  The hosts and log sources tables are small: no scan of the lines.  The
 * view is read once (nv, materialized): it scans every Node request's index entry, and the
 * logs-only names are the ones it does not hold.
 */
#define NODES_ALL(WINDOW_NODES)                                                                    \
	"(SELECT node, state, last_renew_us, renews, max_gap_us, not_found, deletes, anomalies,"   \
	" cluster, cluster_id FROM nv UNION ALL SELECT s.s, 'logs-only', NULL, 0, NULL, 0, 0,"     \
	" 0, NULL, 0 FROM strs AS s"                                                               \
	" WHERE s.id IN (SELECT node_id FROM hosts UNION SELECT id FROM strs WHERE s IN"           \
	" (SELECT node FROM log_sources WHERE node IS NOT NULL)" WINDOW_NODES ")"                  \
	" AND s.s NOT IN (SELECT node FROM nv WHERE node IS NOT NULL))"

/*
 * ?1: the end of the logs; ?2: --cluster's id, 0 for every cluster (schema 5: a logs-only
 * node is of none).  A store without node health's table reads NULL for its columns.
 * CLUSTER is "" or "n.cluster, " (a store of several clusters: the first column).
 */
#define NODES_SQL(CLUSTER, HEALTH_COLS, HEALTH_JOIN, WINDOW_NODES)                                 \
	"WITH nv AS MATERIALIZED (SELECT * FROM nodes) SELECT " CLUSTER "n.node, " HEALTH_COLS     \
	", n.last_renew_us, n.renews, n.max_gap_us, n.not_found, n.deletes, n.anomalies "          \
	"FROM " NODES_ALL(WINDOW_NODES) " AS n" HEALTH_JOIN " WHERE ?2 = 0 OR n.cluster_id = ?2"   \
					" ORDER BY " CLUSTER "n.node"

#define NODES_HEALTH                                                                               \
	"CASE WHEN h.open > 0 AND n.state NOT IN ('deleted', 'orphaned') THEN 'not-ready'"         \
	" ELSE n.state END, coalesce(h.windows, 0), coalesce(h.span, 0)",                          \
	    " LEFT JOIN (SELECT node_id, count(*) AS windows, sum(end_us IS NULL) AS open,"        \
	    " sum(coalesce(end_us, max(?1, start_us)) - start_us) AS span FROM lt_notready"        \
	    " GROUP BY node_id) AS h ON h.node_id = (SELECT id FROM strs WHERE s = n.node)",       \
	    " UNION SELECT node_id FROM lt_notready"

/* NODES_HEALTH's three arguments expanded before NODES_SQL counts them */
#define NODES_SQL_WITH(...) NODES_SQL(__VA_ARGS__)

/* [several clusters][has health]; without health ?1 is bound and unused (?2 makes it a slot) */
static const char *const nodes_sqls[2][2] = {
    {NODES_SQL("", "n.state, NULL, NULL", "", ""), NODES_SQL_WITH("", NODES_HEALTH)},
    {NODES_SQL("n.cluster, ", "n.state, NULL, NULL", "", ""),
     NODES_SQL_WITH("n.cluster, ", NODES_HEALTH)},
};

enum nodes_col {
	NODES_NODE,
	NODES_STATE,
	NODES_NOT_READY,
	NODES_NOT_READY_FOR,
	NODES_LAST_RENEW,
	NODES_RENEWS,
	NODES_MAX_GAP,
	NODES_NOT_FOUND,
	NODES_DELETES,
	NODES_ANOMALIES,
	NODES_NCOLS
};

static const struct lt_col nodes_cols[1 + NODES_NCOLS] = {
    {.name = "cluster", .type = LT_CELL_TEXT}, /* a store of several clusters: first */
    [1 + NODES_NODE] = {.name = "node", .type = LT_CELL_TEXT},
    [1 + NODES_STATE] = {.name = "state", .type = LT_CELL_TEXT},
    [1 + NODES_NOT_READY] = {.name = "not_ready", .type = LT_CELL_INT},
    [1 + NODES_NOT_READY_FOR] = {.name = "not_ready_for", .type = LT_CELL_DURATION},
    [1 + NODES_LAST_RENEW] = {.name = "last_renew", .type = LT_CELL_TIME},
    [1 + NODES_RENEWS] = {.name = "renews", .type = LT_CELL_INT},
    [1 + NODES_MAX_GAP] = {.name = "max_gap", .type = LT_CELL_DURATION},
    [1 + NODES_NOT_FOUND] = {.name = "not_found", .type = LT_CELL_INT},
    [1 + NODES_DELETES] = {.name = "deletes", .type = LT_CELL_INT},
    [1 + NODES_ANOMALIES] = {.name = "anomalies", .type = LT_CELL_INT},
};

/* Whether the store has node health's windows (a store from before them does not). */
int queries_has_health(struct lt_store *st)
{
	struct lt_stmt *q = NULL;
	int ok = lt_store_prepare(st, &q, "SELECT 1 FROM lt_notready LIMIT 0", NULL) == 0;

	lt_stmt_free(q);
	return ok;
}

/* The end of the logs: the store's (its audit), else its newest log line (logs only). */
static int64_t nodes_end(struct lt_store *st)
{
	struct lt_stmt *q = NULL;
	int64_t end = lt_store_end_us(st);

	if (end == 0 &&
	    lt_store_prepare(st, &q, "SELECT max(last_us) FROM log_sources", NULL) == 0 &&
	    lt_stmt_step(q, NULL) == 1)
		end = lt_stmt_int(q, 0);
	lt_stmt_free(q);
	return end;
}

int lt_query_nodes(struct lt_store *st, const struct lt_query_opts *o,
		   const struct lt_row_sink *out, struct lt_error *err)
{
	int64_t binds[2] = {nodes_end(st), o->cluster};
	int several = lt_cluster_count(st) > 1, rc;

	if ((o->gap_us || o->slow_us) &&
	    (rc = lt_lifecycle_overlay(st, o->gap_us, o->slow_us, err)) != 0)
		return rc;
	/* with several clusters a CLUSTER column comes first; with one, none (as before) */
	return lt_run_rows(st, nodes_sqls[several][queries_has_health(st)],
			   nodes_cols + (several ? 0 : 1), NODES_NCOLS + several, binds, 2, out,
			   err);
}
