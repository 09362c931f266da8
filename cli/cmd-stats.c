/* cmd-stats.c - `leasetrail stats`: what the store holds. */
#include "cli.h"

static int stats_do(struct lt_store *st, struct cli_query *q, struct lt_error *err)
{
	switch (q->opts.fmt) {
	case LT_OUT_TABLE:
		return lt_query_stats(st, stdout, err);
	case LT_OUT_JSON:
		return lt_query_stats_json(st, stdout, err);
	default: /* csv and jsonl have no shape for a report of several tables */
		return lt_error_set(err, LT_ERR_USAGE, "stats: -o takes table or json");
	}
}

static int stats_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	return cli_run_readonly(cmd, argc, argv, stats_do);
}

const struct lt_cmd lt_cmd_stats = {
    .name = "stats",
    .usage = "[--db FILE] [-o table|json] [--tz ZONE | --utc]",
    .summary = "Show the time range, request counts, nodes seen, and each source with its rejects.",
    .help = "Options:\n"
	    "  --db FILE        the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
	    "  -o, --output F   table (default: a report to read) or json (one object: the\n"
	    "                   summary, then every table in full: nodes, lease_node_requests,\n"
	    "                   other_resources, sources, log_sources, log_kinds, rejects,\n"
	    "                   clock_offsets)\n"
	    "  --tz ZONE        show times in ZONE with its offset: an IANA name, local, or\n"
	    "                   +05:30 (default $LEASETRAIL_TZ, else UTC)\n"
	    "  --utc            show times in UTC, whatever --tz or $LEASETRAIL_TZ say\n"
	    "  -h, --help       this help\n",
    .exits = CLI_EXITS_STORE,
    .run = stats_run,
    .opts = CLI_OPT_OUTPUT,
    .min_args = 0,
    .max_args = 0,
};
