/* cmd-rebuild.c - `leasetrail rebuild`: recompute every lease's episodes from the events. */
#include "cli.h"

static int rebuild_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct lt_error err = {0};
	struct cli_query q;
	struct lt_store *st;
	int status, rc;

	if (cli_parse(cmd, argc, argv, &q, &status) != 0)
		return status;
	/* a writable open brings the store's indexes and views up to this binary's */
	if (lt_store_open(&st, q.db, 0, &err) != 0)
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
    0,
    0,
    0,
};
