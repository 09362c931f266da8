/* cmd-timeline.c - `leasetrail timeline`: one lease's or node's story. */
#include "cli.h"

static int timeline_do(struct lt_store *st, struct cli_query *q, struct lt_error *err)
{
	struct lt_printer *p = lt_printer_new(q->opts.fmt, stdout);
	int rc = lt_query_timeline(st, q->args[0], &q->opts, lt_printer_sink(p), err);

	return cli_printer_done(p, rc, err);
}

/* `timeline --emit ENGINE TARGET`: the query of the records the timeline is made of. */
static int timeline_emit(const struct lt_cmd *cmd, struct cli_query *q)
{
	struct lt_buf title;
	int status;

	lt_buf_init(&title);
	lt_buf_printf(&title, "timeline %s: its lease's and Node's audit events", q->args[0]);
	status = cli_emit_events(cmd, q, title.ptr, q->args, 1);
	lt_buf_release(&title);
	return status;
}

static int timeline_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct cli_query q;
	int status;

	if (cli_parse(cmd, argc, argv, &q, &status) != 0)
		return status;
	if (q.emit != NULL && lt_filter_any(&q.opts.filter))
		return cli_usage_error(cmd,
				       "--user, --verb, --code... filter the store's rows: not "
				       "with --emit");
	if (q.emit != NULL)
		return timeline_emit(cmd, &q);
	return cli_run_parsed(cmd, &q, timeline_do);
}

const struct lt_cmd lt_cmd_timeline = {
    .name = "timeline",
    .usage = "[OPTIONS] NODE|NAMESPACE/LEASE",
    .summary = "The episodes of a lease (and, for a node, its Node object's events) in time order.",
    .help =
	"Options:\n" CLI_QUERY_OPTIONS "  -v, --verbose     list the requests under each episode\n"
	"  --cluster NAME    the lease of that cluster (default: the first cluster that has it;\n"
	"                    with --emit: the engine's own cluster filter)\n" CLI_FILTER_OPTIONS
	    CLI_EMIT_OPTIONS "\n"
	"Episodes: CREATED, RENEWING (one holder's renews), GAP, NOT_FOUND, DELETED, RE-CREATED,\n"
	"AUTH_FAILURE, SLOW, HOLDER_CHANGE, RELEASED (a leader gave the lease up); STALE: no"
	" renew\nsince, up to the end of the logs; node rows: NODE_REGISTERED, NODE_DELETED,"
	" NODE_STATUS,\nNODE_UPDATED. With --emit, the query returns the records the timeline is "
	"made\n"
	"of (a node's lease and Node events), in ENGINE's language (docs/engines.md).\n"
	"With a filter (--user, --verb, ...), only the rows that rest on a request the filters\n"
	"keep: the lease's episodes and the Node's rows with such a request in their span (what\n"
	"-v lists under them, and -v lists only those); GAP, STALE, NotReady windows and log\n"
	"lines, which no one request makes, are left out. COUNT stays the whole row's.\n",
    .run = timeline_run,
    .opts = CLI_OPT_OUTPUT | CLI_OPT_RANGE | CLI_OPT_THRESHOLDS | CLI_OPT_VERBOSE |
	    CLI_OPT_CLUSTER | CLI_OPT_EMIT | CLI_OPT_FILTER,
    .min_args = 1,
    .max_args = 1,
};
