/* cmd-top.c - `leasetrail top --by KEY`: the stored requests counted by one field. */
#include "cli.h"

static int top_do(struct lt_store *st, struct cli_query *q, struct lt_error *err)
{
	struct lt_printer *p = lt_printer_new(q->opts.fmt, stdout);
	int rc = lt_query_top(st, q->top_by, q->top_limit, &q->opts, lt_printer_sink(p), err);

	return cli_printer_done(p, rc, err);
}

static int top_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct cli_query q;
	int status;

	if (cli_parse(cmd, argc, argv, &q, &status) != 0)
		return status;
	if (!q.top_by_given)
		return cli_usage_error(cmd, "--by KEY is needed: user, verb, resource, code, "
					    "source-ip or user-agent");
	return cli_run_parsed(cmd, &q, top_do);
}

const struct lt_cmd lt_cmd_top = {
    .name = "top",
    .usage = "--by KEY [--db FILE] [-o FORMAT] [--since T] [--until T] [--limit N] [FILTERS]",
    .summary = "The stored requests counted by user, verb, resource, code, source IP or agent.",
    .help =
	"Options:\n"
	"  --by KEY          what to count by: user, verb, resource, code, source-ip or\n"
	"                    user-agent\n"
	"  --limit N         the N biggest (default 20; 0: every one)\n" CLI_STORE_OPTIONS
	"  --since T         the first time (forms: `timeline --help`)\n"
	"  --until T         the last time\n"
	"  --cluster NAME    only that cluster's requests\n" CLI_FILTER_OPTIONS CLI_ZONE_OPTIONS
	"  -h, --help        this help\n\n"
	"One row per value of KEY among the requests `events` would list with the same options,\n"
	"most requests first: KEY, REQUESTS, FAILURES (answers of 400 and above), FIRST and LAST\n"
	"(times). `top --by user --failed` says who fails; `top --by source-ip --user U` where\n"
	"U calls from.\n",
    .exits = CLI_EXITS_STORE,
    .run = top_run,
    .opts = CLI_OPT_OUTPUT | CLI_OPT_RANGE | CLI_OPT_CLUSTER | CLI_OPT_FILTER | CLI_OPT_TOP,
    .min_args = 0,
    .max_args = 0,
};
