/* cmd-nodes.c - `leasetrail nodes`: one row per node. */
#include "cli.h"

static int nodes_do(struct lt_store *st, struct cli_query *q, struct lt_error *err)
{
	struct lt_printer *p = lt_printer_new(q->opts.fmt, stdout);
	int rc = lt_query_nodes(st, &q->opts, lt_printer_sink(p), err);

	return cli_printer_done(p, rc, err);
}

static int nodes_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	return cli_run_readonly(cmd, argc, argv, nodes_do);
}

const struct lt_cmd lt_cmd_nodes = {
    .name = "nodes",
    .usage = "[--db FILE] [-o FORMAT] [--gap D] [--slow D] [--tz ZONE | --utc]",
    .summary = "One row per node: state, last renew, renews, max gap, 404s, deletes, anomalies.",
    .help =
	"Options:\n"
	"  --db FILE         the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
	"  -o, --output F    table (default; on a terminal, cut to fit it), wide (a table,\n"
	"                    nothing cut), csv, json or jsonl\n"
	"  --gap D, --slow D recompute episodes with these thresholds (see `timeline --help`)\n"
	"  --cluster NAME    only that cluster's nodes (a store of several clusters shows a\n"
	"                    CLUSTER column)\n" CLI_ZONE_OPTIONS "  -h, --help        this help\n\n"
	"STATE is renewing, stale (no renew for longer than the lease's gap threshold before the\n"
	"newest event in the store), deleted, orphaned (its own kubelet, system:node:NODE, still\n"
	"gets 404 for the lease: the node was deleted under it; anyone else's 404s, such as\n"
	"`kubectl get lease`, leave it deleted), re-created, or no-lease. DELETES counts\n"
	"deletions of the node and of its lease; ANOMALIES counts GAP, NOT_FOUND, AUTH_FAILURE\n"
	"and SLOW episodes.\n",
    .exits = CLI_EXITS_STORE,
    .run = nodes_run,
    .opts = CLI_OPT_OUTPUT | CLI_OPT_THRESHOLDS | CLI_OPT_CLUSTER,
    .min_args = 0,
    .max_args = 0,
};
