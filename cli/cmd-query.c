/* cmd-query.c - `leasetrail query`: the canned troubleshooting queries. */
#include "cli.h"

static int query_do(struct lt_store *st, struct cli_query *q, struct lt_error *err)
{
	int rc = lt_query_canned(st, q->args[0], &q->opts, stdout, err);

	/* an unknown query name is the command line's fault */
	return rc == LT_ERR_NOTFOUND ? LT_ERR_USAGE : rc;
}

static int query_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct cli_query q;
	int status;

	if (cli_parse(cmd, argc, argv, &q, &status) != 0)
		return status;
	if (q.list) {
		for (const struct lt_canned *c = lt_canned_list(); c->name; c++)
			printf("%-20s %s\n", c->name, c->summary);
		return LT_EXIT_OK;
	}
	return cli_run_readonly(cmd, argc, argv, query_do);
}

const struct lt_cmd lt_cmd_query = {
    "query",
    "--list | [OPTIONS] NAME",
    "Run a canned troubleshooting query (`--list` names and explains them).",
    "Options:\n" CLI_QUERY_OPTIONS "  --list            name and explain every query\n",
    query_run,
    CLI_OPT_OUTPUT | CLI_OPT_RANGE | CLI_OPT_THRESHOLDS | CLI_OPT_LIST,
    1,
    1,
};
