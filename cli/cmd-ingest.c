/* cmd-ingest.c - `leasetrail ingest`: logs into the store, with progress and a summary. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define INGEST_SHOWN_REJECTS 5

struct ingest_run {
	int quiet, tty;
	uint64_t total_size; /* on-disk bytes of every input, for the progress line */
	uint64_t done_size;  /* of the files already finished */
	double started, last_draw;
	uint64_t file_rejects;
	struct lt_ingest_totals totals;
	char **later; /* text logs, read after the rest */
	size_t nlater;
};

static double ingest_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void ingest_clear_line(struct ingest_run *r)
{
	if (r->tty && r->last_draw > 0)
		fputs("\r\033[K", stderr);
}

static void ingest_on_reject(const struct lt_where *at, const char *reason, void *ctx)
{
	struct ingest_run *r = ctx;

	if (++r->file_rejects > INGEST_SHOWN_REJECTS)
		return;
	ingest_clear_line(r);
	fputs("leasetrail: ", stderr);
	lt_print_safe(stderr, at->file, strlen(at->file), 0);
	fprintf(stderr, ":%llu: rejected: %s\n", (unsigned long long)at->line, reason);
}

static void ingest_on_progress(const struct lt_ingest_progress *p, void *ctx)
{
	struct ingest_run *r = ctx;
	double now = ingest_now();
	uint64_t done = r->done_size + p->file_done;
	double secs = now - r->started;

	if (!r->tty || now - r->last_draw < 0.2)
		return;
	r->last_draw = now;
	fprintf(stderr, "\r\033[K%.1f / %.1f MB  %.0f records/s  ", (double)done / 1e6,
		(double)r->total_size / 1e6,
		secs > 0 ? (double)(r->totals.records + p->records) / secs : 0.0);
	lt_print_safe(stderr, p->path, strlen(p->path) > 60 ? 60 : strlen(p->path), 0);
	fflush(stderr);
}

static const char *ingest_status_name(enum lt_file_status s)
{
	static const char *const names[] = {"ingested",	 "resumed",   "duplicate",
					    "truncated", "not a log", "failed"};

	return names[s];
}

static void ingest_on_file(const struct lt_file_report *f, void *ctx)
{
	struct ingest_run *r = ctx;

	r->done_size += f->bytes;
	ingest_clear_line(r);
	if (r->file_rejects > INGEST_SHOWN_REJECTS) {
		fputs("leasetrail: ", stderr);
		lt_print_safe(stderr, f->path, strlen(f->path), 0);
		fprintf(stderr, ": %llu more rejected records (`leasetrail stats` lists them)\n",
			(unsigned long long)(r->file_rejects - INGEST_SHOWN_REJECTS));
	}
	r->file_rejects = 0;
	if (r->quiet && f->status != LT_FILE_FAILED && f->status != LT_FILE_TRUNCATED)
		return;
	lt_print_safe(stdout, f->path, strlen(f->path), 0);
	fprintf(stdout, ": %s", ingest_status_name(f->status));
	if (f->status != LT_FILE_NOT_LOG && f->status != LT_FILE_FAILED)
		fprintf(stdout,
			", %llu records, %llu stored, %llu duplicates, %llu skipped, %llu rejected",
			(unsigned long long)f->records, (unsigned long long)f->stored,
			(unsigned long long)f->duplicates, (unsigned long long)f->skipped,
			(unsigned long long)f->rejected);
	if (f->detail[0] && f->status != LT_FILE_DUPLICATE) {
		fputs(" (", stdout);
		lt_print_safe(stdout, f->detail, strlen(f->detail), 0);
		fputc(')', stdout);
	}
	fputc('\n', stdout);
	fflush(stdout);
}

static void ingest_summary(const struct ingest_run *r)
{
	const struct lt_ingest_totals *t = &r->totals;
	double secs = ingest_now() - r->started;
	double mb = (double)t->bytes / 1e6;

	printf("%llu files (%llu duplicate, %llu not logs, %llu failed, %llu truncated), "
	       "%.1f MB in %.2f s (%.1f MB/s, %.0f records/s): %llu records, %llu events stored, "
	       "%llu duplicates, %llu skipped, %llu rejected\n",
	       (unsigned long long)t->files, (unsigned long long)t->files_duplicate,
	       (unsigned long long)t->files_not_log, (unsigned long long)t->files_failed,
	       (unsigned long long)t->files_truncated, mb, secs, secs > 0 ? mb / secs : 0.0,
	       secs > 0 ? (double)t->records / secs : 0.0, (unsigned long long)t->records,
	       (unsigned long long)t->stored, (unsigned long long)t->duplicates,
	       (unsigned long long)t->skipped, (unsigned long long)t->rejected);
}

/* A text log met among the paths: read after everything else. */
static void ingest_defer(const char *path, void *ctx)
{
	struct ingest_run *r = ctx;

	r->later = lt_xrealloc(r->later, (r->nlater + 1) * sizeof *r->later);
	r->later[r->nlater++] = lt_xstrdup(path);
}

/* Ingests one path; a failure is reported and makes the status 1.  0 or the lt_err. */
static int ingest_one(struct lt_store *st, const char *path, const struct lt_ingest_opts *opts,
		      struct ingest_run *r, int *status)
{
	struct lt_error err = {0};
	int rc = lt_store_ingest(st, path, opts, &r->totals, &err);

	if (rc != 0) {
		ingest_clear_line(r);
		cli_error(LT_EXIT_FAIL, &err);
		*status = LT_EXIT_FAIL;
	}
	return rc;
}

/*
 * Ingests every path, text logs last (their year-less times look for the
 * audit events' years); the worst outcome decides the exit status.
 */
static int ingest_paths(struct lt_store *st, char **paths, int n, struct ingest_run *r,
			const struct lt_ingest_opts *opts)
{
	struct lt_ingest_opts first = *opts, last = *opts;
	int status = LT_EXIT_OK, rc = 0;

	first.on_text_log = ingest_defer;
	last.on_text_log = NULL;
	for (int i = 0; i < n && rc != LT_ERR_DB; i++)
		rc = ingest_one(st, paths[i], &first, r, &status);
	for (size_t i = 0; i < r->nlater && rc != LT_ERR_DB; i++)
		rc = ingest_one(st, r->later[i], &last, r, &status);
	for (size_t i = 0; i < r->nlater; i++)
		free(r->later[i]);
	free(r->later);
	if (status == LT_EXIT_OK && (r->totals.rejected > 0 || r->totals.files_truncated > 0))
		status = LT_EXIT_PARTIAL;
	return status;
}

/* Episodes computed on a second connection while the store builds its last index. */
struct ingest_episodes {
	const char *db;
	struct lt_lifecycle_batch *batch;
	struct lt_error err;
	int rc;
};

static void ingest_compute(void *ctx)
{
	struct ingest_episodes *e = ctx;
	struct lt_store *rd;
	e->rc = lt_store_open(&rd, e->db, LT_STORE_READONLY, &e->err);
	/* it reads nearly in order: a small cache keeps the two connections within budget */
	if (e->rc == 0 && (e->rc = lt_store_set_cache(rd, 2048, &e->err)) != 0)
		lt_store_free(rd);
	if (e->rc == 0) {
		e->rc = lt_lifecycle_compute(rd, &e->batch, &e->err);
		lt_store_free(rd);
	}
}

/*
 * After the paths: the deferred indexes, then every touched lease's episodes.
 * After a bulk load of Metadata-level logs the episodes are computed beside
 * the last index build (a lease body's duration lookup needs that index).
 */
static int ingest_finish(struct lt_store *st, const char *db, int64_t since, struct lt_error *err)
{
	struct ingest_episodes e = {db, NULL, {0}, 0};
	int rc;

	if (!lt_store_bulk_loading(st) || lt_store_has_lease_bodies(st)) {
		rc = lt_store_ingest_end(st, NULL, NULL, err);
		if (rc == 0)
			rc = lt_lifecycle_rebuild(st, since, err);
		return rc != 0 ? rc : lt_store_map_hosts(st, err);
	}
	rc = lt_store_ingest_end(st, ingest_compute, &e, err);
	if (rc == 0 && e.rc != 0) {
		*err = e.err;
		rc = e.rc;
	}
	if (rc == 0)
		rc = lt_lifecycle_write(st, e.batch, err);
	lt_lifecycle_batch_free(e.batch);
	return rc != 0 ? rc : lt_store_map_hosts(st, err);
}

/* A --year argument: 1970..9999, else 0. */
static int ingest_year(const char *s)
{
	char *end;
	long y = strtol(s, &end, 10);

	return *s != '\0' && *end == '\0' && y >= 1970 && y <= 9999 ? (int)y : 0;
}

/* A --utc-offset argument: Z, UTC, 0, or ±HH, ±HHMM, ±HH:MM up to 14 hours. */
static int ingest_utc_offset(const char *s, int64_t *us)
{
	char hhmm[6];
	size_t n = strlen(s);

	*us = 0;
	if (strcmp(s, "UTC") == 0 || strcmp(s, "0") == 0)
		return 0;
	if (n == 3) { /* ±HH */
		snprintf(hhmm, sizeof hhmm, "%s00", s);
		s = hhmm;
		n = 5;
	}
	if (lt_time_zone(us, s, n) != 0 || (n >= 5 && s[n - 2] > '5') ||
	    llabs(*us) > 14 * 3600 * 1000000LL)
		return -1;
	return 0;
}

static int ingest_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {{"db", required_argument, NULL, 'd'},
						 {"all-resources", no_argument, NULL, 'a'},
						 {"year", required_argument, NULL, 'y'},
						 {"node", required_argument, NULL, 'n'},
						 {"utc-offset", required_argument, NULL, 'u'},
						 {"quiet", no_argument, NULL, 'q'},
						 {"follow", no_argument, NULL, 'F'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	struct ingest_run r = {0};
	struct lt_ingest_opts opts = {.on_reject = ingest_on_reject,
				      .on_file = ingest_on_file,
				      .on_progress = ingest_on_progress,
				      .ctx = &r};
	const char *db = lt_store_default_path();
	struct lt_error err = {0};
	struct lt_store *st;
	int64_t since;
	int c, status;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'a':
			opts.all_resources = 1;
			break;
		case 'y':
			if ((opts.year = ingest_year(optarg)) == 0)
				return cli_usage_error(cmd, "--year takes a year like 2024");
			break;
		case 'n':
			opts.node = optarg;
			break;
		case 'u':
			if (ingest_utc_offset(optarg, &opts.utc_offset_us) != 0)
				return cli_usage_error(
				    cmd, "--utc-offset takes an offset like +02:00 or -0500");
			break;
		case 'q':
			r.quiet = 1;
			break;
		case 'F':
			opts.follow = 1;
			break;
		case 'h':
			cli_help(cmd, stdout);
			return LT_EXIT_OK;
		default:
			return cli_usage_error(cmd, "unknown option");
		}
	}
	if (optind >= argc)
		return cli_usage_error(cmd, "no PATH to ingest");
	if (lt_store_open(&st, db, 0, &err) != 0)
		return cli_error(LT_EXIT_FAIL, &err);
	r.tty = isatty(STDERR_FILENO);
	r.started = ingest_now();
	for (int i = optind; i < argc && r.tty; i++)
		r.total_size += lt_ingest_size(argv[i], &opts);
	since = lt_store_last_event_id(st);
	if (lt_store_ingest_begin(st, &err) != 0) {
		lt_store_free(st);
		return cli_error(LT_EXIT_FAIL, &err);
	}
	status = ingest_paths(st, argv + optind, argc - optind, &r, &opts);
	ingest_clear_line(&r);
	ingest_summary(&r);
	if (ingest_finish(st, db, since, &err) != 0)
		status = cli_error(LT_EXIT_FAIL, &err);
	lt_store_free(st);
	return status;
}

const struct lt_cmd lt_cmd_ingest = {
    "ingest",
    "[--db FILE] [--all-resources] [--year Y] [--utc-offset ±HH:MM] [--node NAME] [--follow] [-q] "
    "PATH...",
    "Read audit, kubelet and controller-manager logs (files, gzip, dirs, -) into the store.",
    "Options:\n"
    "  --db FILE          the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
    "  --all-resources    store events of every resource, not only leases and nodes\n"
    "  --year Y           the year of log times that have none (journal short, klog);\n"
    "                     default: journalctl's header line, else the audit events'\n"
    "                     years, else each file's mtime\n"
    "  --utc-offset ±HH:MM  the nodes' time zone, for log times written without one\n"
    "                     (journal short, rsyslog, klog headers); default UTC.  A\n"
    "                     short-iso journal line's own offset applies to its klog time\n"
    "  --node NAME        the node the log lines of these files come from, whatever\n"
    "                     their host name says (bare klog files have none)\n"
    "  --follow           walk into symbolic links to directories (each directory\n"
    "                     is read once, whatever links lead to it)\n"
    "  -q, --quiet        no line per file; only problems and the summary\n"
    "  -h, --help         this help\n\n"
    "Formats are recognized by content: audit Event JSON lines, pretty-printed and\n"
    "concatenated Events, EventList batches, JSON arrays, journalctl output (short,\n"
    "short-precise, short-iso, short-iso-precise, json), rsyslog files, klog files,\n"
    "CloudWatch Logs exports; any of them gzip-compressed.  Text logs are read after\n"
    "the rest, so that their year-less times take the audit events' years.\n"
    "Re-ingesting a file adds nothing; an interrupted ingest resumes where it stopped.\n\n"
    "Exit status: 0 all stored; 3 stored, but some records were rejected or a gzip\n"
    "was cut short; 1 a path could not be read or the store failed; 2 usage error.\n",
    ingest_run,
    0,
    1,
    1 << 30,
};
