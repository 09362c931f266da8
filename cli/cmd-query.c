/* cmd-query.c - `leasetrail query`: the canned troubleshooting queries. */
#include "cli.h"

static void query_list(void)
{
	for (const struct lt_canned *c = lt_canned_list(); c->name; c++)
		printf("%-20s %s\n", c->name, c->summary);
}

static int query_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct lt_error err = {0};
	struct cli_query q;
	struct lt_store *st;
	int rc;

	if ((rc = cli_query_parse(cmd, argc, argv, &q)) != 0 || q.help)
		return rc;
	if (q.list) {
		query_list();
		return LT_EXIT_OK;
	}
	if (q.nargs != 1)
		return cli_usage_error(cmd, "needs one query NAME (`--list` names them)");
	if ((rc = cli_query_open(cmd, &q, &st)) != 0)
		return rc;
	rc = lt_query_canned(st, q.args[0], &q.opts, stdout, &err);
	lt_store_free(st);
	if (rc == LT_ERR_NOTFOUND)
		return cli_error(LT_EXIT_USAGE, &err);
	return rc ? cli_error(LT_EXIT_FAIL, &err) : LT_EXIT_OK;
}

const struct lt_cmd lt_cmd_query = {
    "query",
    "--list | [OPTIONS] NAME",
    "Run a canned troubleshooting query (`--list` names and explains them).",
    "Options:\n" CLI_QUERY_OPTIONS "  --list            name and explain every query\n",
    query_run,
};
