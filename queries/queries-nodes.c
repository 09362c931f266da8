/* queries-nodes.c - `leasetrail nodes`: every node's state at the end of the logs. */
#include "queries-int.h"

/* The nodes view (the lease lifecycle's) holds the rows; this orders them and types them. */
static const char nodes_sql[] =
    "SELECT node, state, last_renew_us, renews, max_gap_us, not_found, deletes, anomalies"
    " FROM nodes ORDER BY node";

enum nodes_col {
	NODES_NODE,
	NODES_STATE,
	NODES_LAST_RENEW,
	NODES_RENEWS,
	NODES_MAX_GAP,
	NODES_NOT_FOUND,
	NODES_DELETES,
	NODES_ANOMALIES,
	NODES_NCOLS
};

static const struct lt_col nodes_cols[NODES_NCOLS] = {
    [NODES_NODE] = {.name = "node", .type = LT_CELL_TEXT},
    [NODES_STATE] = {.name = "state", .type = LT_CELL_TEXT},
    [NODES_LAST_RENEW] = {.name = "last_renew", .type = LT_CELL_TIME},
    [NODES_RENEWS] = {.name = "renews", .type = LT_CELL_INT},
    [NODES_MAX_GAP] = {.name = "max_gap", .type = LT_CELL_DURATION},
    [NODES_NOT_FOUND] = {.name = "not_found", .type = LT_CELL_INT},
    [NODES_DELETES] = {.name = "deletes", .type = LT_CELL_INT},
    [NODES_ANOMALIES] = {.name = "anomalies", .type = LT_CELL_INT},
};

int lt_query_nodes(struct lt_store *st, const struct lt_query_opts *o,
		   const struct lt_row_sink *out, struct lt_error *err)
{
	int rc;

	if ((o->gap_us || o->slow_us) &&
	    (rc = lt_lifecycle_overlay(st, o->gap_us, o->slow_us, err)) != 0)
		return rc;
	return lt_run_rows(st, nodes_sql, nodes_cols, NODES_NCOLS, NULL, 0, out, err);
}
