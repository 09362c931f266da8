/*
 * main.c - leasetrail's entry point: finds the subcommand in the table and runs it.
 *
 * `leasetrail COMMAND ...` runs COMMAND; `leasetrail help [COMMAND]`, `--help` and
 * no arguments at all describe them (the last on stderr, exit 2); `--version` is
 * `leasetrail version`.  A word that is no command is a usage error that names it,
 * with the nearest command when it looks like a typo.
 */
#include "cli.h"

#include <errno.h>
#include <string.h>

static int help_run(const struct lt_cmd *cmd, int argc, char **argv);

static const struct lt_cmd cli_cmd_help = {
    .name = "help",
    .usage = "[COMMAND]",
    .summary = "Describe leasetrail, or one command (as `leasetrail COMMAND --help` does).",
    .help = "Options:\n"
	    "  -h, --help   this help\n",
    .exits = "0 done; 2 usage error (COMMAND is no command).\n",
    .run = help_run,
    .min_args = 0,
    .max_args = 1,
};

static const struct lt_cmd *const cli_cmds[] = {
    &lt_cmd_ingest,  &lt_cmd_stats, &lt_cmd_nodes,  &lt_cmd_timeline, &lt_cmd_query,
    &lt_cmd_events,  &lt_cmd_top,   &lt_cmd_report, &lt_cmd_sql,      &lt_cmd_show,
    &lt_cmd_rebuild, &lt_cmd_tui,   &cli_cmd_help,  &lt_cmd_version,  &lt_cmd_complete,
};

#define CLI_NCMDS (sizeof cli_cmds / sizeof *cli_cmds)

const struct lt_cmd *const *cli_commands(size_t *n)
{
	*n = CLI_NCMDS;
	return cli_cmds;
}

int cli_error(int status, const struct lt_error *err)
{
	fputs("leasetrail: ", stderr);
	lt_print_safe(stderr, err->msg, strlen(err->msg), 0);
	fputc('\n', stderr);
	return status;
}

int cli_printer_done(struct lt_printer *p, int rc, struct lt_error *err)
{
	int werr = lt_printer_error(p);

	lt_printer_free(p);
	if (rc == 0 && werr != 0 && werr != EPIPE)
		rc = lt_error_set(err, LT_ERR_IO, "cannot write the output: %s", strerror(werr));
	return rc;
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
	fprintf(f, "usage: leasetrail %s%s%s\n\n%s\n\n%s\nExit status:\n%s", cmd->name,
		cmd->usage[0] ? " " : "", cmd->usage, cmd->summary, cmd->help,
		cmd->exits ? cmd->exits : CLI_EXITS_READ);
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
		if (!cli_cmds[i]->hidden)
			fprintf(f, "  %-8s %s\n", cli_cmds[i]->name, cli_cmds[i]->summary);
	fputs("\nThe store is ./leasetrail.db unless --db FILE or $LEASETRAIL_DB says otherwise.\n"
	      "`leasetrail help COMMAND` (or `leasetrail COMMAND --help`) describes a command;\n"
	      "`man leasetrail` describes them all.\n",
	      f);
}

const struct lt_cmd *cli_find(const char *name)
{
	for (size_t i = 0; i < CLI_NCMDS; i++)
		if (strcmp(cli_cmds[i]->name, name) == 0)
			return cli_cmds[i];
	return NULL;
}

/* "leasetrail: unknown command 'X'; did you mean 'Y'?": a usage error. */
static int cli_unknown_command(const char *word)
{
	const char *names[CLI_NCMDS];
	const char *near;
	size_t n = 0;

	for (size_t i = 0; i < CLI_NCMDS; i++)
		if (!cli_cmds[i]->hidden)
			names[n++] = cli_cmds[i]->name;
	near = cli_suggest(word, names, n);
	fprintf(stderr, "leasetrail: unknown %s '", word[0] == '-' ? "option" : "command");
	lt_print_safe(stderr, word, strlen(word), 0);
	if (near != NULL)
		fprintf(stderr, "'; did you mean '%s'?\n", near);
	else if (word[0] == '-')
		fputs("'; options come after the command (`leasetrail --help` lists them)\n",
		      stderr);
	else
		fputs("'; `leasetrail --help` lists them\n", stderr);
	return LT_EXIT_USAGE;
}

static int help_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	const struct lt_cmd *about;
	struct cli_query q;
	int status;

	if (cli_parse(cmd, argc, argv, &q, &status) != 0)
		return status;
	if (q.nargs == 0) {
		cli_overview(stdout);
		return LT_EXIT_OK;
	}
	if ((about = cli_find(q.args[0])) == NULL || about->hidden)
		return cli_unknown_command(q.args[0]);
	cli_help(about, stdout);
	return LT_EXIT_OK;
}

/*
 * A full disk under `> report.txt` must not pass for success: every command's output is
 * checked once, here, after the command (the printers stop at their first failed write,
 * which leaves stdout's error flag set).  A reader that has read enough (`| head` with
 * SIGPIPE ignored by the caller) is no failure.
 */
static int cli_finish_output(int status)
{
	int failed, e;

	errno = 0;
	failed = fflush(stdout) != 0 || ferror(stdout);
	e = errno != 0 ? errno : EIO;
	if (!failed || e == EPIPE || status != LT_EXIT_OK)
		return status;
	fprintf(stderr, "leasetrail: cannot write the output: %s\n", strerror(e));
	return LT_EXIT_FAIL;
}

int main(int argc, char **argv)
{
	const struct lt_cmd *cmd;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		cli_overview(argc < 2 ? stderr : stdout);
		return argc < 2 ? LT_EXIT_USAGE : cli_finish_output(LT_EXIT_OK);
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
		return cli_finish_output(lt_cmd_version.run(&lt_cmd_version, 1, argv + 1));
	if ((cmd = cli_find(argv[1])) == NULL)
		return cli_unknown_command(argv[1]);
	return cli_finish_output(cmd->run(cmd, argc - 1, argv + 1));
}
