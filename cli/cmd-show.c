/* cmd-show.c - `leasetrail show ID`: one stored event's raw JSON. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

static int show_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {{"db", required_argument, NULL, 'd'},
						 {"verbose", no_argument, NULL, 'v'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	const char *db = lt_store_default_path();
	struct lt_error err = {0};
	struct lt_store *st;
	int c, rc, verbose = 0;
	long long id;
	char *end;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+vh", longopts, NULL)) != -1) {
		if (c == 'd')
			db = optarg;
		else if (c == 'v')
			verbose = 1;
		else if (c == 'h')
			return cli_help(cmd, stdout), LT_EXIT_OK;
		else
			return cli_usage_error(cmd, "unknown option");
	}
	if (optind != argc - 1)
		return cli_usage_error(cmd, "needs exactly one event ID");
	errno = 0;
	id = strtoll(argv[optind], &end, 10);
	if (errno != 0 || *end != '\0' || end == argv[optind] || id <= 0)
		return cli_usage_error(cmd, "ID must be a positive number");
	if (lt_store_open(&st, db, LT_STORE_READONLY, &err) != 0)
		return cli_error(LT_EXIT_FAIL, &err);
	rc = lt_query_show(st, id, verbose, stdout, &err);
	lt_store_free(st);
	return rc ? cli_error(LT_EXIT_FAIL, &err) : LT_EXIT_OK;
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
};
