/* cmd-stats.c - `leasetrail stats`: what the store holds. */
#include "cli.h"

static int stats_do(struct lt_store *st, struct cli_query *q, struct lt_error *err)
{
	(void)q;
	return lt_query_stats(st, stdout, err);
}

static int stats_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	return cli_run_readonly(cmd, argc, argv, stats_do);
}

const struct lt_cmd lt_cmd_stats = {
    .name = "stats",
    .usage = "[--db FILE]",
    .summary = "Show the time range, request counts, nodes seen, and each source with its rejects.",
    .help = "Options:\n"
	    "  --db FILE    the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
	    "  -h, --help   this help\n",
    .run = stats_run,
    .opts = 0,
    .min_args = 0,
    .max_args = 0,
};
