/* cmd-rebuild.c - `leasetrail rebuild`: recompute every lease's episodes from the events. */
#include "cli.h"

#include <getopt.h>

static int rebuild_run(const struct lt_cmd *cmd, int argc, char **argv)
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
	/* a writable open brings the store's indexes and views up to this binary's */
	if (lt_store_open(&st, db, 0, &err) != 0)
		return cli_error(LT_EXIT_FAIL, &err);
	rc = lt_lifecycle_rebuild(st, 0, &err);
	lt_store_free(st);
	return rc ? cli_error(LT_EXIT_FAIL, &err) : LT_EXIT_OK;
}

const struct lt_cmd lt_cmd_rebuild = {
    "rebuild",
    "[--db FILE]",
    "Recompute every lease's episodes from the stored events (after upgrading leasetrail).",
    "Options:\n"
    "  --db FILE    the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
    "  -h, --help   this help\n\n"
    "`ingest` keeps episodes up to date by itself; rebuild is for stores made by an older\n"
    "leasetrail. It also adds any index this version uses.\n",
    rebuild_run,
};
