/*
 * cmd-ingest.c - `leasetrail ingest`: options, progress and report; the work is lt_ingest_run.
 *
 * The report is a line per file and a summary, or with --json one JSON
 * object on stdout, streamed (a "files" array as they are done, then
 * "totals").  A store is never created for nothing: when it does not exist
 * yet and no named path does either, ingest says so and stops.
 */
#include "cli.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INGEST_SHOWN_REJECTS 5 /* per file; `stats` lists the rest */

struct ingest_run {
	int quiet, tty, json;
	uint64_t json_files; /* entries of the "files" array printed */
	double secs;	     /* how long reading took, from on_loaded */
	double last_draw;    /* when the progress line was drawn, 0 when it is not */
	uint64_t file_rejects;
	struct lt_buf line;
	/*
	 * The last file that was not a log and its report line, held until the next
	 * report: an error about the same file (one named on the command line) says it
	 * on stderr instead, so it is said once.
	 */
	char not_log[512];
	struct lt_buf not_log_text;
};

/* Prints the held report line of a file that was not a log (unless -q). */
static void ingest_not_log_flush(struct ingest_run *r)
{
	if (r->not_log_text.len > 0 && !r->quiet)
		printf("%s\n", r->not_log_text.ptr);
	lt_buf_reset(&r->not_log_text);
	r->not_log[0] = '\0';
}

/* Prints r->line (and a newline when nl) on f, after clearing the progress line; empties it. */
static void ingest_flush(struct ingest_run *r, FILE *f, int nl)
{
	if (r->tty && r->last_draw > 0)
		fputs("\r\033[K", stderr);
	if (nl)
		lt_buf_putc(&r->line, '\n');
	if (r->line.len > 0)
		fwrite(r->line.ptr, 1, r->line.len, f);
	fflush(f);
	lt_buf_reset(&r->line);
}

static void ingest_on_reject(const struct lt_where *at, const char *reason, void *ctx)
{
	struct ingest_run *r = ctx;

	ingest_not_log_flush(r);
	if (++r->file_rejects <= INGEST_SHOWN_REJECTS) {
		lt_ingest_reject_text(&r->line, at, reason);
		ingest_flush(r, stderr, 1);
	}
}

static void ingest_on_meter(const struct lt_ingest_meter *m, void *ctx)
{
	struct ingest_run *r = ctx;

	if (m->secs - r->last_draw < 0.2)
		return;
	r->last_draw = m->secs;
	lt_ingest_meter_text(&r->line, m);
	ingest_flush(r, stderr, 0);
}

static const char *const ingest_status_names[] = {
    [LT_FILE_INGESTED] = "ingested",   [LT_FILE_RESUMED] = "resumed",
    [LT_FILE_DUPLICATE] = "duplicate", [LT_FILE_TRUNCATED] = "truncated",
    [LT_FILE_NOT_LOG] = "not-log",     [LT_FILE_FAILED] = "failed",
};

/* One element of --json's "files" array (paths and details are JSON-escaped, not sanitized). */
static void ingest_json_file(struct ingest_run *r, const struct lt_file_report *f)
{
	lt_buf_reset(&r->line);
	lt_buf_printf(&r->line, "%s\n{\"path\":", r->json_files++ ? "," : "");
	lt_json_quote(&r->line, f->path, strlen(f->path));
	lt_buf_printf(&r->line, ",\"status\":\"%s\",\"detail\":", ingest_status_names[f->status]);
	lt_json_quote(&r->line, f->detail, strlen(f->detail));
	lt_buf_printf(&r->line,
		      ",\"bytes\":%llu,\"records\":%llu,\"stored\":%llu,\"duplicates\":%llu,"
		      "\"skipped\":%llu,\"rejected\":%llu}",
		      (unsigned long long)f->bytes, (unsigned long long)f->records,
		      (unsigned long long)f->stored, (unsigned long long)f->duplicates,
		      (unsigned long long)f->skipped, (unsigned long long)f->rejected);
	ingest_flush(r, stdout, 0);
}

/* The end of --json's object: the totals, the time reading took, the exit status. */
static void ingest_json_end(struct ingest_run *r, const struct lt_ingest_totals *t, int status)
{
	printf("%s],\n\"totals\":{\"files\":%llu,\"files_duplicate\":%llu,"
	       "\"files_not_log\":%llu,\"files_failed\":%llu,\"files_truncated\":%llu,"
	       "\"bytes\":%llu,\"records\":%llu,\"stored\":%llu,\"duplicates\":%llu,"
	       "\"skipped\":%llu,\"rejected\":%llu},\n\"seconds\":%.3f,\"exit_status\":%d}\n",
	       r->json_files ? "\n" : "", (unsigned long long)t->files,
	       (unsigned long long)t->files_duplicate, (unsigned long long)t->files_not_log,
	       (unsigned long long)t->files_failed, (unsigned long long)t->files_truncated,
	       (unsigned long long)t->bytes, (unsigned long long)t->records,
	       (unsigned long long)t->stored, (unsigned long long)t->duplicates,
	       (unsigned long long)t->skipped, (unsigned long long)t->rejected, r->secs, status);
}

static void ingest_on_file(const struct lt_file_report *f, void *ctx)
{
	struct ingest_run *r = ctx;

	if (r->file_rejects > INGEST_SHOWN_REJECTS) {
		lt_ingest_more_rejects_text(&r->line, f->path,
					    r->file_rejects - INGEST_SHOWN_REJECTS);
		ingest_flush(r, stderr, 1);
	}
	r->file_rejects = 0;
	ingest_not_log_flush(r);
	if (r->json) {
		ingest_json_file(r, f);
		return;
	}
	if (f->status == LT_FILE_NOT_LOG) {
		snprintf(r->not_log, sizeof r->not_log, "%s", f->path);
		lt_ingest_file_text(&r->not_log_text, f);
		return;
	}
	if (r->quiet && f->status != LT_FILE_FAILED && f->status != LT_FILE_TRUNCATED)
		return;
	lt_ingest_file_text(&r->line, f);
	ingest_flush(r, stdout, 1);
}

/* Every path is read: the summary, before the indexes and lifecycles are built. */
static void ingest_on_loaded(const struct lt_ingest_totals *t, double secs, void *ctx)
{
	ingest_not_log_flush(ctx);
	((struct ingest_run *)ctx)->secs = secs;
	if (((struct ingest_run *)ctx)->json)
		return;
	lt_ingest_totals_text(&((struct ingest_run *)ctx)->line, t, secs);
	ingest_flush(ctx, stdout, 1);
}

/* A text log's year or zone only guessed, or moved by what this run brought. */
static void ingest_on_note(const char *path, const char *text, void *ctx)
{
	struct ingest_run *r = ctx;

	if (r->quiet)
		return;
	lt_buf_append(&r->line, "leasetrail: ", 12);
	lt_sanitize(&r->line, path, strlen(path));
	lt_buf_append(&r->line, ": ", 2);
	lt_sanitize(&r->line, text, strlen(text));
	ingest_flush(r, stderr, 1);
}

static void ingest_on_error(const struct lt_error *err, void *ctx)
{
	struct ingest_run *r = ctx;

	ingest_flush(r, stderr, 0);
	/* a named file that is not a log: its report line says so, once, as the error */
	if (err->code == LT_ERR_FORMAT && r->not_log[0] && strcmp(err->file, r->not_log) == 0) {
		fprintf(stderr, "leasetrail: %s\n", r->not_log_text.ptr);
		lt_buf_reset(&r->not_log_text);
		r->not_log[0] = '\0';
		return;
	}
	ingest_not_log_flush(r);
	cli_error(LT_EXIT_FAIL, err);
}

/*
 * When the store does not exist and no path named does either, nothing could
 * be stored: each path is reported and 1 returned before a store is made.
 */
static int ingest_nothing_to_read(const char *db, char *const *paths, int n)
{
	struct stat sb;

	if (stat(db, &sb) == 0 || errno != ENOENT)
		return 0;
	for (int i = 0; i < n; i++)
		if (strcmp(paths[i], "-") == 0 || stat(paths[i], &sb) == 0)
			return 0;
	for (int i = 0; i < n; i++) {
		stat(paths[i], &sb);
		fputs("leasetrail: ", stderr);
		lt_print_safe(stderr, paths[i], strlen(paths[i]), 0);
		fprintf(stderr, ": %s\n", strerror(errno));
	}
	fputs("leasetrail: nothing to ingest; no store was made\n", stderr);
	return LT_EXIT_FAIL;
}

static int ingest_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct ingest_run r = {.tty = isatty(STDERR_FILENO)};
	const struct lt_ingest_hooks hooks = {.on_error = ingest_on_error,
					      .on_loaded = ingest_on_loaded,
					      .on_note = ingest_on_note,
					      .on_meter = r.tty ? ingest_on_meter : NULL,
					      .measure = r.tty,
					      .ctx = &r};
	struct lt_ingest_totals totals = {0};
	struct lt_error err = {0};
	struct cli_query q;
	struct lt_store *st;
	int rc;

	if (cli_parse(cmd, argc, argv, &q, &rc) != 0)
		return rc;
	if (q.nargs == 0)
		return cli_usage_error(cmd, "no PATH to ingest");
	if ((rc = ingest_nothing_to_read(q.db, q.args, q.nargs)) != 0)
		return rc;
	q.ingest.on_reject = ingest_on_reject;
	q.ingest.on_file = ingest_on_file;
	q.ingest.ctx = &r;
	if (lt_store_open(&st, q.db, 0, &err) != 0)
		return cli_error(LT_EXIT_FAIL, &err);
	r.quiet = q.quiet;
	r.json = q.json;
	lt_buf_init(&r.line);
	lt_buf_init(&r.not_log_text);
	if (r.json)
		fputs("{\"files\":[", stdout);
	rc = lt_ingest_run(st, q.args, (size_t)q.nargs, &q.ingest, &hooks, &totals, &err);
	lt_buf_release(&r.not_log_text);
	lt_store_free(st);
	if (rc != 0)
		rc = LT_EXIT_FAIL;
	else
		rc = totals.rejected > 0 || totals.files_truncated > 0 ? LT_EXIT_PARTIAL
								       : LT_EXIT_OK;
	if (r.json)
		ingest_json_end(&r, &totals, rc);
	lt_buf_release(&r.line);
	return rc;
}

const struct lt_cmd lt_cmd_ingest = {
    .name = "ingest",
    .usage = "[--db FILE] [--all-resources] [--year Y] [--utc-offset ±HH:MM] [--node NAME] "
	     "[--follow] [-q] [--json] PATH...",
    .summary = "Read audit, kubelet and controller-manager logs (files, gzip, dirs, -) into the "
	       "store.",
    .help = "Options:\n"
	    "  --db FILE          the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
	    "  --all-resources    store events of every resource, not only leases and nodes\n"
	    "  --year Y           the year of log times that have none (journal short, klog);\n"
	    "                     default: journalctl's header range, else the audit events'\n"
	    "                     years, else a full date in the file's lines, else its mtime\n"
	    "  --utc-offset ±HH:MM  the nodes' time zone, for log times written without one\n"
	    "                     (journal short, rsyslog, klog headers); default: the zone\n"
	    "                     journalctl's header names (PST, +08; CST and other words of\n"
	    "                     several zones by the store's evidence), else UTC.  A\n"
	    "                     short-iso journal line's own offset applies to its klog time\n"
	    "  --node NAME        the node the log lines of these files come from, whatever\n"
	    "                     their host name says (bare klog files have none)\n"
	    "  --cluster NAME     the cluster of every record of these files, over what they\n"
	    "                     name (a CloudWatch log group /aws/eks/NAME/cluster, an S3\n"
	    "                     export under one, GKE's cluster_name, AKS's resourceId)\n"
	    "  --follow           inside a directory, walk into links to directories too\n"
	    "                     (each directory once)\n"
	    "  -q, --quiet        no line per file; only problems and the summary\n"
	    "  --json             the report as one JSON object on stdout: \"files\" (path,\n"
	    "                     status, detail, bytes, records, stored, duplicates, skipped,\n"
	    "                     rejected), \"totals\", \"seconds\", \"exit_status\"\n"
	    "  -h, --help         this help\n\n"
	    "Formats are recognized by content: audit Event JSON lines, pretty-printed and\n"
	    "concatenated Events, EventList batches, JSON arrays, journalctl output (short,\n"
	    "short-precise, short-iso, short-iso-precise, json), rsyslog files, klog files,\n"
	    "CloudWatch Logs exports; any of them gzip-compressed.  Text logs are read after\n"
	    "the rest, so that their year-less times take the audit events' years.\n"
	    "Re-ingesting a file adds nothing; an interrupted ingest resumes where it stopped,\n"
	    "and finishes the episodes it had not built.\n",
    .exits = "0 all stored; 3 stored, but some records were rejected or a gzip was cut\n"
	     "short; 1 a path could not be read or the store failed (no store is made when\n"
	     "there was none and no path exists); 2 usage error.\n",
    .run = ingest_run,
    .opts = CLI_OPT_INGEST | CLI_OPT_CLUSTER,
    .min_args = 0, /* none: "no PATH to ingest" */
    .max_args = 1 << 30,
};
