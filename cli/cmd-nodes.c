/* cmd-nodes.c - `leasetrail nodes`: one row per node. */
#include "cli.h"

static int nodes_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct lt_error err = {0};
	struct cli_query q;
	struct lt_store *st;
	int rc;

	if ((rc = cli_query_parse(cmd, argc, argv, &q)) != 0 || q.help)
		return rc;
	if (q.nargs != 0)
		return cli_usage_error(cmd, "takes no arguments");
	if ((rc = cli_query_open(cmd, &q, &st)) != 0)
		return rc;
	rc = lt_query_nodes(st, &q.opts, stdout, &err);
	lt_store_free(st);
	return rc ? cli_error(LT_EXIT_FAIL, &err) : LT_EXIT_OK;
}

const struct lt_cmd lt_cmd_nodes = {
    "nodes",
    "[--db FILE] [-o FORMAT]",
    "One row per node: state, last renew, renews, max gap, 404s, deletes, anomalies.",
    "Options:\n"
    "  --db FILE         the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
    "  -o, --output F    table (default), csv, json or jsonl\n"
    "  --gap D, --slow D recompute episodes with these thresholds (see `timeline --help`)\n\n"
    "STATE is renewing, stale (no renew for longer than the lease's gap threshold before the\n"
    "newest event in the store), deleted, orphaned (its kubelet still gets 404 for the lease:\n"
    "the node was deleted under it), re-created, or no-lease. DELETES counts deletions of the\n"
    "node and of its lease; ANOMALIES counts GAP, NOT_FOUND, AUTH_FAILURE and SLOW episodes.\n",
    nodes_run,
};
