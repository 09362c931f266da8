/*
 * cmd-report.c - `leasetrail report`: the incident report, as Markdown or HTML.
 *
 * The format is checked before the store is opened, and the output file is
 * opened only once the report is computed, so a wrong command line or an
 * unknown name leaves an existing file as it was.
 */
#include "cli.h"

#include <errno.h>
#include <string.h>

/* The format -o names; without -o, html for a FILE ending in .html or .htm, else md. */
static int report_format(const struct lt_cmd *cmd, const struct cli_query *q,
			 enum lt_report_format *fmt)
{
	const char *dot = q->out_file ? strrchr(q->out_file, '.') : NULL;

	if (q->doc_format != NULL)
		return lt_report_format_parse(fmt, q->doc_format) == 0
			   ? 0
			   : cli_usage_error(cmd, "-o takes md or html");
	*fmt = dot && (strcmp(dot, ".html") == 0 || strcmp(dot, ".htm") == 0) ? LT_REPORT_HTML
									      : LT_REPORT_MD;
	return 0;
}

static int report_write(const struct lt_report *r, const struct cli_query *q,
			enum lt_report_format fmt)
{
	struct lt_error err = {0};
	FILE *f = stdout;
	int rc;

	if (q->out_file != NULL && (f = fopen(q->out_file, "w")) == NULL) {
		lt_error_set(&err, LT_ERR_IO, "%s: %s", q->out_file, strerror(errno));
		return cli_error(LT_EXIT_FAIL, &err);
	}
	rc = lt_report_write(r, fmt, f, &err);
	if (f != stdout && fclose(f) != 0 && rc == 0)
		rc = lt_error_set(&err, LT_ERR_IO, "cannot write the output: %s", strerror(errno));
	if (rc != 0 && f != stdout) {
		struct lt_error named = {0};

		lt_error_set(&named, LT_ERR_IO, "%s: %s", q->out_file, err.msg);
		return cli_error(LT_EXIT_FAIL, &named);
	}
	return rc == 0 ? LT_EXIT_OK : cli_error(LT_EXIT_FAIL, &err);
}

static int report_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct lt_error err = {0};
	enum lt_report_format fmt;
	struct lt_report *r;
	struct cli_query q;
	struct lt_store *st;
	int status, rc;

	if (cli_parse(cmd, argc, argv, &q, &status) != 0)
		return status;
	if ((status = report_format(cmd, &q, &fmt)) != 0)
		return status;
	if ((status = cli_query_open(cmd, &q, &st)) != 0)
		return status;
	rc = lt_report_build(&r, st, q.args, (size_t)q.nargs, &q.opts, &err);
	if (rc != 0) {
		lt_store_free(st);
		return cli_error(LT_EXIT_FAIL, &err);
	}
	status = report_write(r, &q, fmt);
	lt_report_free(r);
	lt_store_free(st);
	return status;
}

const struct lt_cmd lt_cmd_report = {
    .name = "report",
    .usage = "[OPTIONS] [NODE|NAMESPACE/LEASE...]",
    .summary = "An incident report: what happened, timelines and pictures (Markdown or HTML).",
    .help =
	"Options:\n"
	"  --db FILE         the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
	"  -o, --output F    md (Markdown, the default) or html (one page, no script, nothing\n"
	"                    external); html when FILE ends in .html or .htm\n"
	"  -O, --output-file FILE  write the report to FILE (default: standard output)\n"
	"  --since T         RFC 3339, YYYY-MM-DD [HH:MM[:SS]] (UTC), epoch seconds, or a\n"
	"                    duration back from the newest event (2h, 30m)\n"
	"  --until T         likewise\n"
	"  -h, --help        this help\n\n"
	"What happened, in a few sentences from the findings (node and lease deletes and who\n"
	"did them, the garbage collector's lease deletes, orphaned kubelets, re-registrations,\n"
	"re-created leases, NotReady windows and their cause, leader changes, refused\n"
	"requests); the cluster's heartbeat strip; the findings and who did what; then the\n"
	"timeline of each NODE or NAMESPACE/LEASE named, or without one of each subject the\n"
	"findings name (up to 12), each row with the file and line of its record.\n",
    .exits = "0 done; 1 the store could not be read, no node or lease has that name, or FILE\n"
	     "could not be written; 2 usage error (an unknown option or format, --since after\n"
	     "--until).\n",
    .run = report_run,
    .opts = CLI_OPT_OUTPUT | CLI_OPT_RANGE | CLI_OPT_DOCUMENT,
    .min_args = 0,
    .max_args = 64,
};
