/* cmd-events.c - `leasetrail events`: the stored requests, one row each, under quick filters. */
#include "cli.h"

static int events_do(struct lt_store *st, struct cli_query *q, struct lt_error *err)
{
	struct lt_printer *p = lt_printer_new(q->opts.fmt, stdout);
	int rc = lt_query_events(st, &q->opts, lt_printer_sink(p), err);

	return cli_printer_done(p, rc, err);
}

static int events_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	return cli_run_readonly(cmd, argc, argv, events_do);
}

const struct lt_cmd lt_cmd_events = {
    .name = "events",
    .usage = "[--db FILE] [-o FORMAT] [--since T] [--until T] [--cluster NAME] [FILTERS]",
    .summary = "The stored requests, one row each, filtered by user, verb, resource, code...",
    .help =
	"Options:\n" CLI_STORE_OPTIONS
	"  --since T         the first time (forms: `timeline --help`)\n"
	"  --until T         the last time\n"
	"  --cluster NAME    only that cluster's requests\n" CLI_FILTER_OPTIONS CLI_ZONE_OPTIONS
	"  -h, --help        this help\n\n"
	"One row per request (its latest stage), in time order: TS, VERB, RESOURCE\n"
	"(RESOURCE/SUBRESOURCE), NAMESPACE, NAME, CODE, USER, IDENTITY (who is behind the user:\n"
	"an IAM ARN, an Azure object id, a token's pod, 'as USER' for an impersonation),\n"
	"SOURCE_IP, USER_AGENT, LATENCY and EVENT (`leasetrail show EVENT` prints the record).\n"
	"The store holds the requests of leases and nodes, and of everything else when ingested\n"
	"with --all-resources. Filters combine: every one given must match.\n",
    .exits = CLI_EXITS_STORE,
    .run = events_run,
    .opts = CLI_OPT_OUTPUT | CLI_OPT_RANGE | CLI_OPT_CLUSTER | CLI_OPT_FILTER,
    .min_args = 0,
    .max_args = 0,
};
