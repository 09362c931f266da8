/* cmd-show.c - `leasetrail show ID`: one stored event's raw JSON. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>

static int show_do(struct lt_store *st, struct cli_query *q, struct lt_error *err)
{
	char *end;
	long long id;

	errno = 0;
	id = strtoll(q->args[0], &end, 10);
	if (errno != 0 || *end != '\0' || end == q->args[0] || id <= 0)
		return lt_error_set(err, LT_ERR_USAGE, "show: ID must be a positive number");
	return lt_query_show(st, id, q->opts.verbose, stdout, err);
}

static int show_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	return cli_run_readonly(cmd, argc, argv, show_do);
}

const struct lt_cmd lt_cmd_show = {
    "show",
    "[--db FILE] [-v] ID",
    "Print a stored event's raw JSON exactly as read (-v: its file and line first).",
    "Options:\n"
    "  --db FILE       the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
    "  -v, --verbose   print '# FILE:LINE (byte OFFSET)' before the JSON\n"
    "  -h, --help      this help\n",
    show_run,
    CLI_OPT_VERBOSE,
    1,
    1,
};
