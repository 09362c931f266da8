/*
 * cmd-rebuild.c - `leasetrail rebuild`: recompute every lifecycle's tables from the events,
 * and name them.
 */
#include "cli.h"

static int rebuild_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct lt_error err = {0};
	struct cli_query q;
	struct lt_store *st;
	struct lt_buf built;
	int status, rc;

	if (cli_parse(cmd, argc, argv, &q, &status) != 0)
		return status;
	/* a writable open brings the store's indexes and views up to this binary's; never a new one
	 */
	if (lt_store_open(&st, q.db, LT_STORE_EXISTING, &err) != 0)
		return cli_error(LT_EXIT_FAIL, &err);
	rc = lt_rebuild_all(st, &err);
	lt_store_free(st);
	if (rc != 0)
		return cli_error(LT_EXIT_FAIL, &err);
	/* the registry's names, so that the line names every table however many there are */
	lt_buf_init(&built);
	lt_derived_names(&built);
	printf("rebuilt %s\n", built.ptr);
	lt_buf_release(&built);
	return LT_EXIT_OK;
}

const struct lt_cmd lt_cmd_rebuild = {
    .name = "rebuild",
    .usage = "[--db FILE]",
    .summary = "Recompute the derived tables: episodes, hosts' nodes, NotReady windows, "
	       "histogram counts.",
    .help = "Options:\n"
	    "  --db FILE    the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
	    "  -h, --help   this help\n\n"
	    "`ingest` keeps episodes up to date by itself, and finishes what an interrupted\n"
	    "ingest left; rebuild is for stores made by an older leasetrail, or to start the\n"
	    "derived tables afresh. It also adds any index and view this version uses, and\n"
	    "says which derived tables it rebuilt (\"rebuilt episodes, hosts, ...\").\n",
    .exits = "0 done; 1 there is no store at FILE (none is made), or it could not be\n"
	     "written; 2 usage error.\n",
    .run = rebuild_run,
};
