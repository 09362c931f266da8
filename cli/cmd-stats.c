/* cmd-stats.c - `leasetrail stats`: what the store holds. */
#include "cli.h"

#include <getopt.h>

static int stats_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {{"db", required_argument, NULL, 'd'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	const char *db = lt_store_default_path();
	struct lt_error err = {0};
	struct lt_store *st;
	int c, rc;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (c == 'd')
			db = optarg;
		else if (c == 'h')
			return cli_help(cmd, stdout), LT_EXIT_OK;
		else
			return cli_usage_error(cmd, "unknown option");
	}
	if (optind < argc)
		return cli_usage_error(cmd, "takes no arguments");
	if (lt_store_open(&st, db, LT_STORE_READONLY, &err) != 0)
		return cli_error(LT_EXIT_FAIL, &err);
	rc = lt_query_stats(st, stdout, &err);
	lt_store_free(st);
	return rc ? cli_error(LT_EXIT_FAIL, &err) : LT_EXIT_OK;
}

const struct lt_cmd lt_cmd_stats = {
    "stats",
    "[--db FILE]",
    "Show the time range, request counts, nodes seen, and each source with its rejects.",
    "Options:\n"
    "  --db FILE    the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
    "  -h, --help   this help\n",
    stats_run,
};
