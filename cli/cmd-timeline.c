/* cmd-timeline.c - `leasetrail timeline`: one lease's or node's story. */
#include "cli.h"

static int timeline_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct lt_error err = {0};
	struct cli_query q;
	struct lt_store *st;
	int rc;

	if ((rc = cli_query_parse(cmd, argc, argv, &q)) != 0 || q.help)
		return rc;
	if (q.nargs != 1)
		return cli_usage_error(cmd, "needs one NODE or NAMESPACE/LEASE");
	if ((rc = cli_query_open(cmd, &q, &st)) != 0)
		return rc;
	rc = lt_query_timeline(st, q.args[0], &q.opts, stdout, &err);
	lt_store_free(st);
	return rc ? cli_error(LT_EXIT_FAIL, &err) : LT_EXIT_OK;
}

const struct lt_cmd lt_cmd_timeline = {
    "timeline",
    "[OPTIONS] NODE|NAMESPACE/LEASE",
    "The episodes of a lease (and, for a node, its Node object's events) in time order.",
    "Options:\n" CLI_QUERY_OPTIONS "  -v, --verbose     list the requests under each episode\n\n"
    "Episodes: CREATED, RENEWING, GAP, NOT_FOUND, DELETED, RE-CREATED, AUTH_FAILURE, SLOW,\n"
    "HOLDER_CHANGE; node rows: NODE_REGISTERED, NODE_DELETED, NODE_STATUS, NODE_UPDATED.\n",
    timeline_run,
};
