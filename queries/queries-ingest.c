/*
 * queries-ingest.c - `leasetrail ingest` as one call: files in, every lifecycle current.
 *
 * The order is the contract:
 *
 *   1. every lifecycle's tables exist (a store of a newer leasetrail is
 *      refused here, before anything is written);
 *   2. into an empty store, the secondary indexes are dropped
 *      (lt_store_ingest_begin) to be built once at the end;
 *   3. the paths, text logs last: their year-less times look for the years
 *      of the audit events read before them;
 *   3b. every text source's year and zone weighed again against what the
 *      store now holds, its lines moved when they change (lt_store_redate):
 *      the order files came in does not matter;
 *   4. the deferred indexes; after a bulk load the lifecycles that can
 *      compute their rows meanwhile on a second connection (the
 *      histogram's from the first index on, the lease's beside the lines'
 *      indexes);
 *   5. every lifecycle that is behind the events, in registry order, each
 *      in a transaction that records how far it covers.
 *
 * Each file commits batch by batch with its progress (index-load.c), and
 * step 5 looks at what the store records, not at what this run loaded: a
 * run killed anywhere is finished by the next one, even when every file is
 * then a duplicate.  LEASETRAIL_TEST_DIE_AT (README) kills the process at
 * the named points, for the kill tests.
 */
#include "queries-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One run: the caller's options and hooks, and the text logs put off until the end. */
struct ingest {
	const struct lt_ingest_opts *caller;
	const struct lt_ingest_hooks *hooks;
	struct lt_ingest_totals *totals;
	char **later;
	size_t nlater, later_cap;
	int rc;		      /* the worst outcome so far: 0, LT_ERR_IO, LT_ERR_DB */
	double started;	      /* seconds, monotonic */
	uint64_t done, total; /* on-disk bytes: of the files done, of every path */
};

static double ingest_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void ingest_report(struct ingest *in, int rc, const struct lt_error *err)
{
	if (in->hooks != NULL && in->hooks->on_error != NULL)
		in->hooks->on_error(err, in->hooks->ctx);
	if (in->rc != LT_ERR_DB)
		in->rc = rc == LT_ERR_DB ? LT_ERR_DB : LT_ERR_IO;
}

/* A text log met among the paths: read after everything else. */
static void ingest_defer(const char *path, void *ctx)
{
	struct ingest *in = ctx;

	LT_GROW(in->later, in->later_cap, in->nlater + 1);
	in->later[in->nlater++] = lt_xstrdup(path);
}

static void ingest_on_reject(const struct lt_where *at, const char *reason, void *ctx)
{
	const struct ingest *in = ctx;

	if (in->caller->on_reject != NULL)
		in->caller->on_reject(at, reason, in->caller->ctx);
}

static void ingest_on_file(const struct lt_file_report *r, void *ctx)
{
	struct ingest *in = ctx;

	in->done += r->bytes;
	if (in->caller->on_file != NULL)
		in->caller->on_file(r, in->caller->ctx);
	if (r->status == LT_FILE_INGESTED || r->status == LT_FILE_RESUMED)
		queries_test_die_at("file-complete");
}

static void ingest_on_progress(const struct lt_ingest_progress *p, void *ctx)
{
	const struct ingest *in = ctx;
	struct lt_ingest_meter m = {.done = in->done + p->file_done,
				    .total = in->total,
				    .secs = ingest_now() - in->started,
				    .path = p->path};

	if (in->caller->on_progress != NULL)
		in->caller->on_progress(p, in->caller->ctx);
	if (in->hooks == NULL || in->hooks->on_meter == NULL)
		return;
	m.rate = m.secs > 0 ? (double)(in->totals->records + p->records) / m.secs : 0.0;
	in->hooks->on_meter(&m, in->hooks->ctx);
}

/* Ingests one path; a failure is reported.  0 or the lt_err. */
static int ingest_path(struct lt_store *st, const char *path, const struct lt_ingest_opts *opts,
		       struct ingest *in)
{
	struct lt_error err = {0};
	int rc = lt_store_ingest(st, path, opts, in->totals, &err);

	if (rc != 0)
		ingest_report(in, rc, &err);
	return rc;
}

/* Every path, text logs last; a store failure stops the reading. */
static void ingest_paths(struct lt_store *st, char *const *paths, size_t n, struct ingest *in)
{
	struct lt_ingest_opts first = *in->caller, last;
	int rc = 0;

	first.on_reject = ingest_on_reject;
	first.on_file = ingest_on_file;
	first.on_progress = ingest_on_progress;
	first.on_text_log = ingest_defer;
	first.ctx = in;
	last = first;
	last.on_text_log = NULL;
	for (size_t i = 0; i < n && rc != LT_ERR_DB; i++)
		rc = ingest_path(st, paths[i], &first, in);
	for (size_t i = 0; i < in->nlater && rc != LT_ERR_DB; i++)
		rc = ingest_path(st, in->later[i], &last, in);
	for (size_t i = 0; i < in->nlater; i++)
		free(in->later[i]);
	free(in->later);
	in->later = NULL;
	in->nlater = 0;
}

/* The lifecycles' rows computed on a second connection while the store builds its indexes. */
struct ingest_compute {
	const char *db;
	struct queries_computed *computed; /* one per lifecycle */
	struct lt_error err;
	int rc;
	int during; /* 1: the lease's lifecycle too (a bulk load with log lines) */
};

/* Computes the lifecycles whose compute_early is early, on a connection of its own. */
static void ingest_compute(struct ingest_compute *c, int early)
{
	struct lt_store *rd;

	if (c->rc != 0 || (c->rc = lt_store_open(&rd, c->db, LT_STORE_READONLY, &c->err)) != 0)
		return;
	/* it reads nearly in order: a small cache keeps the two connections within budget */
	if ((c->rc = lt_store_set_cache(rd, 2048, &c->err)) != 0) {
		lt_store_free(rd);
		return;
	}
	for (size_t i = 0; i < queries_nlifecycles && c->rc == 0; i++) {
		struct queries_computed *out = &c->computed[i];

		if (queries_lifecycles[i].compute == NULL ||
		    queries_lifecycles[i].compute_early != early)
			continue;
		lt_store_newest(rd, &out->event_id, &out->line_id); /* before: never more */
		c->rc = queries_lifecycles[i].compute(rd, &out->rows, &c->err);
	}
	lt_store_free(rd);
}

static void ingest_compute_early(void *ctx)
{
	ingest_compute(ctx, 1);
}

static void ingest_compute_during(void *ctx)
{
	struct ingest_compute *c = ctx;

	if (c->during)
		ingest_compute(c, 0);
}

/*
 * After the paths: the deferred indexes, then every lifecycle that is
 * behind.  After a bulk load, the counts of the histogram are computed
 * beside the first index builds (they read no index), and with log lines
 * what else can be is computed beside the lines' index builds (the lease
 * lifecycle of Metadata-level logs).  With no line to index the lease's is
 * not: on its second connection's small cache the same work cost more CPU
 * than on this one, with nothing to overlap (bench/RESULTS.md, issue 21).
 */
static int ingest_finish(struct lt_store *st, struct lt_error *err)
{
	struct queries_computed *computed = lt_xcalloc(queries_nlifecycles, sizeof *computed);
	struct ingest_compute c = {.db = lt_store_path(st), .computed = computed};
	const struct lt_ingest_beside beside = {
	    .early = ingest_compute_early, .during = ingest_compute_during, .ctx = &c};
	int64_t event_id, line_id;
	int bulk, rc;

	lt_store_newest(st, &event_id, &line_id);
	bulk = lt_store_bulk_loading(st);
	c.during = line_id > 0;
	rc = lt_store_ingest_end(st, bulk ? &beside : NULL, err);

	/*
	 * computing beside the index build only saves time: if the second
	 * connection failed, what it computed is dropped and the lifecycles are
	 * rebuilt on this one (where a real store failure shows again)
	 */
	for (size_t i = 0; c.rc != 0 && i < queries_nlifecycles; i++)
		if (computed[i].rows != NULL) {
			queries_lifecycles[i].computed_free(computed[i].rows);
			computed[i].rows = NULL;
		}
	if (rc == 0) {
		queries_test_die_at("after-indexes");
		rc = queries_lifecycles_update(st, QUERIES_UPDATE_BEHIND, computed, err);
	}
	for (size_t i = 0; i < queries_nlifecycles; i++)
		if (computed[i].rows != NULL)
			queries_lifecycles[i].computed_free(computed[i].rows);
	free(computed);
	return rc;
}

int lt_ingest_run(struct lt_store *st, char *const *paths, size_t n,
		  const struct lt_ingest_opts *opts, const struct lt_ingest_hooks *hooks,
		  struct lt_ingest_totals *totals, struct lt_error *err)
{
	struct ingest in = {
	    .caller = opts, .hooks = hooks, .totals = totals, .started = ingest_now()};
	struct lt_redate_opts redate = {.note = hooks ? hooks->on_note : NULL,
					.ctx = hooks ? hooks->ctx : NULL};
	const struct lt_derived **readers;
	int rc;

	if ((rc = queries_lifecycles_ensure(st, err)) != 0 ||
	    (rc = lt_store_ingest_begin(st, err)) != 0) {
		ingest_report(&in, rc, err);
		return rc;
	}
	for (size_t i = 0; hooks != NULL && hooks->measure && i < n; i++)
		in.total += lt_ingest_size(paths[i], opts);
	redate.new_since = lt_store_last_source(st);
	ingest_paths(st, paths, n, &in);
	if (hooks != NULL && hooks->on_loaded != NULL)
		hooks->on_loaded(totals, ingest_now() - in.started, hooks->ctx);
	queries_test_die_at("before-redate");
	redate.line_readers = readers = queries_line_readers();
	rc = lt_store_redate(st, &redate, err);
	free(readers);
	if (rc != 0) {
		ingest_report(&in, rc, err);
		return rc;
	}
	queries_test_die_at("after-load");
	if ((rc = ingest_finish(st, err)) != 0) {
		ingest_report(&in, rc, err);
		return rc;
	}
	return in.rc;
}

/* ---- what the command line and the report need ---------------------------------------- */

int lt_ingest_year_arg(int *year, const char *s)
{
	char *end;
	long y = strtol(s, &end, 10);

	*year = *s != '\0' && *end == '\0' && y >= 1970 && y <= 9999 ? (int)y : 0;
	return *year != 0 ? 0 : LT_ERR_USAGE;
}

int lt_ingest_offset_arg(int64_t *us, const char *s)
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
		return LT_ERR_USAGE;
	return 0;
}

void lt_ingest_file_text(struct lt_buf *b, const struct lt_file_report *f)
{
	static const char *const names[] = {
	    [LT_FILE_INGESTED] = "ingested",   [LT_FILE_RESUMED] = "resumed",
	    [LT_FILE_DUPLICATE] = "duplicate", [LT_FILE_TRUNCATED] = "truncated",
	    [LT_FILE_NOT_LOG] = "not a log",   [LT_FILE_FAILED] = "failed",
	};

	lt_sanitize(b, f->path, strlen(f->path));
	/* a file that is not a log: its reason says so, once ("not a log leasetrail reads (...)")
	 */
	if (f->status == LT_FILE_NOT_LOG && f->detail[0]) {
		lt_buf_append(b, ": ", 2);
		lt_sanitize(b, f->detail, strlen(f->detail));
		return;
	}
	lt_buf_printf(b, ": %s", names[f->status]);
	if (f->status != LT_FILE_NOT_LOG && f->status != LT_FILE_FAILED)
		lt_buf_printf(b,
			      ", %llu records, %llu stored, %llu duplicates, %llu skipped, "
			      "%llu rejected",
			      (unsigned long long)f->records, (unsigned long long)f->stored,
			      (unsigned long long)f->duplicates, (unsigned long long)f->skipped,
			      (unsigned long long)f->rejected);
	if (f->detail[0] && f->status != LT_FILE_DUPLICATE) {
		lt_buf_append(b, " (", 2);
		lt_sanitize(b, f->detail, strlen(f->detail));
		lt_buf_putc(b, ')');
	}
}

void lt_ingest_totals_text(struct lt_buf *b, const struct lt_ingest_totals *t, double secs)
{
	double mb = (double)t->bytes / 1e6;
	unsigned long long lines = t->lines, events = t->stored - t->lines;

	lt_buf_printf(b,
		      "%llu files (%llu duplicate, %llu not logs, %llu failed, %llu truncated), "
		      "%.1f MB in %.2f s (%.1f MB/s, %.0f records/s): %llu records, ",
		      (unsigned long long)t->files, (unsigned long long)t->files_duplicate,
		      (unsigned long long)t->files_not_log, (unsigned long long)t->files_failed,
		      (unsigned long long)t->files_truncated, mb, secs, secs > 0 ? mb / secs : 0.0,
		      secs > 0 ? (double)t->records / secs : 0.0, (unsigned long long)t->records);
	/* what was stored, by what it is: audit events, log lines, or both */
	if (lines == 0)
		lt_buf_printf(b, "%llu events stored", events);
	else if (events == 0)
		lt_buf_printf(b, "%llu lines stored", lines);
	else
		lt_buf_printf(b, "%llu events and %llu lines stored", events, lines);
	lt_buf_printf(b, ", %llu duplicates, %llu skipped, %llu rejected",
		      (unsigned long long)t->duplicates, (unsigned long long)t->skipped,
		      (unsigned long long)t->rejected);
}

void lt_ingest_reject_text(struct lt_buf *b, const struct lt_where *at, const char *reason)
{
	lt_buf_append(b, "leasetrail: ", 12);
	lt_sanitize(b, at->file, strlen(at->file));
	lt_buf_printf(b, ":%llu: rejected: %s", (unsigned long long)at->line, reason);
}

void lt_ingest_more_rejects_text(struct lt_buf *b, const char *path, uint64_t n)
{
	lt_buf_append(b, "leasetrail: ", 12);
	lt_sanitize(b, path, strlen(path));
	lt_buf_printf(b, ": %llu more rejected records (`leasetrail stats` lists them)",
		      (unsigned long long)n);
}

void lt_ingest_meter_text(struct lt_buf *b, const struct lt_ingest_meter *m)
{
	size_t len = strlen(m->path);

	lt_buf_printf(b, "%.1f / %.1f MB  %.0f records/s  ", (double)m->done / 1e6,
		      (double)m->total / 1e6, m->rate);
	lt_sanitize(b, m->path, len > 60 ? 60 : len);
}
