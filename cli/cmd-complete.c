/*
 * cmd-complete.c - `leasetrail __complete WHAT`: the words the bash and zsh
 * completions (contrib/completion/) offer, one a line.  Hidden from --help.
 *
 *   commands            the commands `leasetrail --help` lists
 *   options COMMAND     the options COMMAND's --help lists
 *   queries             the canned query names
 *   names [PREFIX]      nodes and NAMESPACE/LEASE names in the store (--db), from PREFIX
 *   clusters            the cluster names in the store (--db): --cluster's values
 *
 * Quiet by design: a completion must never write over the command line, so
 * anything that goes wrong (no store, an unknown command) is exit 1 and no word.
 */
#include "cli.h"

#include <string.h>

#define COMPLETE_MAX_NAMES 2000 /* a shell shows no more usefully */

static void complete_print(const char *word, size_t len, void *ctx)
{
	(void)ctx;
	printf("%.*s\n", (int)len, word);
}

static int complete_commands(void)
{
	size_t n;
	const struct lt_cmd *const *cmds = cli_commands(&n);

	for (size_t i = 0; i < n; i++)
		if (!cmds[i]->hidden)
			puts(cmds[i]->name);
	return LT_EXIT_OK;
}

static int complete_options(const char *name)
{
	const struct lt_cmd *cmd = cli_find(name);

	if (cmd == NULL || cmd->hidden)
		return LT_EXIT_FAIL;
	cli_help_options(cmd, complete_print, NULL);
	return LT_EXIT_OK;
}

static int complete_queries(void)
{
	for (const struct lt_canned *c = lt_canned_list(); c->name; c++)
		puts(c->name);
	return LT_EXIT_OK;
}

static int complete_names(const char *db, const char *prefix)
{
	struct lt_store *st;
	int rc;

	if (lt_store_open(&st, db, LT_STORE_READONLY, NULL) != 0)
		return LT_EXIT_FAIL;
	rc = lt_query_names(st, prefix, COMPLETE_MAX_NAMES, complete_print, NULL, NULL);
	lt_store_free(st);
	return rc == 0 ? LT_EXIT_OK : LT_EXIT_FAIL;
}

static void complete_cluster(const char *name, void *ctx)
{
	complete_print(name, strlen(name), ctx);
}

/* Names lt_cluster_names hands out pass lt_cluster_name_ok: safe as shell words. */
static int complete_clusters(const char *db)
{
	struct lt_store *st;
	int rc;

	if (lt_store_open(&st, db, LT_STORE_READONLY, NULL) != 0)
		return LT_EXIT_FAIL;
	rc = lt_cluster_names(st, complete_cluster, NULL, NULL);
	lt_store_free(st);
	return rc == 0 ? LT_EXIT_OK : LT_EXIT_FAIL;
}

static int complete_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct cli_query q;
	const char *what;
	int status;

	if (cli_parse(cmd, argc, argv, &q, &status) != 0)
		return status;
	what = q.args[0];
	if (strcmp(what, "commands") == 0 && q.nargs == 1)
		return complete_commands();
	if (strcmp(what, "options") == 0 && q.nargs == 2)
		return complete_options(q.args[1]);
	if (strcmp(what, "queries") == 0 && q.nargs == 1)
		return complete_queries();
	if (strcmp(what, "clusters") == 0 && q.nargs == 1)
		return complete_clusters(q.db);
	if (strcmp(what, "names") == 0)
		return complete_names(q.db, q.nargs == 2 ? q.args[1] : "");
	return LT_EXIT_USAGE;
}

const struct lt_cmd lt_cmd_complete = {
    .name = "__complete",
    .usage = "commands | options COMMAND | queries | names [--db FILE] [PREFIX] | clusters "
	     "[--db FILE]",
    .summary = "The words shell completion offers (for contrib/completion/).",
    .help = "Options:\n"
	    "  --db FILE    the store whose names `names` (and `clusters`) lists\n"
	    "  -h, --help   this help\n",
    .exits = "0 done; 1 no such command, or the store could not be read; 2 usage error.\n",
    .run = complete_run,
    .min_args = 1,
    .max_args = 2,
    .hidden = 1,
};
