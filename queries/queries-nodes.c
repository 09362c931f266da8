/* queries-nodes.c - `leasetrail nodes`: every node's state at the end of the logs. */
#include "queries-int.h"

/* The nodes view (index-schema.c) holds the rows; this orders and prints them. */
static const char nodes_sql[] =
    "SELECT node, state, last_renew_us, renews, max_gap_us, not_found, deletes, anomalies"
    " FROM nodes ORDER BY node";

int lt_query_nodes(struct lt_store *st, const struct lt_query_opts *o, FILE *out,
		   struct lt_error *err)
{
	static const struct lt_col cols[] = {
	    {"node", 't'},    {"state", 't'},	  {"last_renew", 'T'}, {"renews", 'n'},
	    {"max_gap", 'D'}, {"not_found", 'n'}, {"deletes", 'n'},    {"anomalies", 'n'}};
	int rc;

	if ((o->gap_us || o->slow_us) &&
	    (rc = lt_lifecycle_overlay(st, o->gap_us, o->slow_us, err)) != 0)
		return rc;
	return lt_run_table(st, nodes_sql, cols, 8, NULL, 0, o, out, err);
}
