/* main.c - leasetrail's entry point: finds the subcommand in the table and runs it. */
#include "cli.h"

#include <string.h>

static const struct lt_cmd *const cli_cmds[] = {
    &lt_cmd_ingest, &lt_cmd_stats, &lt_cmd_nodes,   &lt_cmd_timeline, &lt_cmd_query,
    &lt_cmd_sql,    &lt_cmd_show,  &lt_cmd_rebuild, &lt_cmd_tui,
};

#define CLI_NCMDS (sizeof cli_cmds / sizeof *cli_cmds)

int cli_error(int status, const struct lt_error *err)
{
	fputs("leasetrail: ", stderr);
	lt_print_safe(stderr, err->msg, strlen(err->msg), 0);
	fputc('\n', stderr);
	return status;
}

int cli_usage_error(const struct lt_cmd *cmd, const char *msg)
{
	fprintf(stderr, "leasetrail %s: ", cmd->name);
	lt_print_safe(stderr, msg, strlen(msg), 0);
	fprintf(stderr, "\nTry `leasetrail %s --help`.\n", cmd->name);
	return LT_EXIT_USAGE;
}

void cli_help(const struct lt_cmd *cmd, FILE *f)
{
	fprintf(f, "usage: leasetrail %s %s\n\n%s\n\n%s", cmd->name, cmd->usage, cmd->summary,
		cmd->help);
}

int cli_status(int rc)
{
	switch (rc) {
	case 0:
		return LT_EXIT_OK;
	case LT_ERR_USAGE:
		return LT_EXIT_USAGE;
	default:
		return LT_EXIT_FAIL;
	}
}

static void cli_overview(FILE *f)
{
	fputs("usage: leasetrail COMMAND [OPTIONS] [ARGS]\n\n"
	      "Offline forensics of Kubernetes lease and node events from audit logs.\n\n"
	      "Commands:\n",
	      f);
	for (size_t i = 0; i < CLI_NCMDS; i++)
		fprintf(f, "  %-8s %s\n", cli_cmds[i]->name, cli_cmds[i]->summary);
	fputs("\nThe store is ./leasetrail.db unless --db FILE or $LEASETRAIL_DB says otherwise.\n"
	      "`leasetrail COMMAND --help` describes a command.\n",
	      f);
}

static const struct lt_cmd *cli_find(const char *name)
{
	for (size_t i = 0; i < CLI_NCMDS; i++)
		if (strcmp(cli_cmds[i]->name, name) == 0)
			return cli_cmds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct lt_cmd *cmd;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		cli_overview(argc < 2 ? stderr : stdout);
		return argc < 2 ? LT_EXIT_USAGE : LT_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		puts("leasetrail " LT_VERSION);
		return LT_EXIT_OK;
	}
	if (strcmp(argv[1], "help") == 0 && argc > 2 && (cmd = cli_find(argv[2])) != NULL) {
		cli_help(cmd, stdout);
		return LT_EXIT_OK;
	}
	cmd = cli_find(argv[1]);
	if (cmd == NULL) {
		fputs("leasetrail: unknown command '", stderr);
		lt_print_safe(stderr, argv[1], strlen(argv[1]), 0);
		fputs("'; `leasetrail --help` lists them\n", stderr);
		return LT_EXIT_USAGE;
	}
	return cmd->run(cmd, argc - 1, argv + 1);
}
