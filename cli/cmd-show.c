/* cmd-show.c - `leasetrail show ID`: one stored event's raw JSON. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>

static int show_do(struct lt_store *st, struct cli_query *q, struct lt_error *err)
{
	const char *digits = q->args[0];
	int is_line = digits[0] == 'L' || digits[0] == 'l';
	char *end;
	long long id;

	digits += is_line;
	errno = 0;
	id = strtoll(digits, &end, 10);
	if (errno != 0 || *end != '\0' || end == digits || id <= 0)
		return lt_error_set(err, LT_ERR_USAGE,
				    "show: ID must be an event number, or L and a log line number");
	return lt_query_show_record(st, id, is_line, q->opts.verbose, stdout, err);
}

static int show_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	return cli_run_readonly(cmd, argc, argv, show_do);
}

const struct lt_cmd lt_cmd_show = {
    .name = "show",
    .usage = "[--db FILE] [-v] ID|LID",
    .summary =
	"Print a stored event's raw JSON, or log line L<id>, exactly as read (-v: where from).",
    .help = "Options:\n"
	    "  --db FILE       the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
	    "  -v, --verbose   print '# FILE:LINE (byte OFFSET)' before the JSON\n"
	    "  -h, --help      this help\n",
    .exits = "0 done; 1 the store could not be read, or there is no such event or line; 2\n"
	     "usage error (ID is not a number or L and a number).\n",
    .run = show_run,
    .opts = CLI_OPT_VERBOSE,
    .min_args = 1,
    .max_args = 1,
};
