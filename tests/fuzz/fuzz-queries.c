/*
 * fuzz-queries.c - the queries and every output writer over a store built
 * from fuzz bytes: `nodes`, every canned query, `timeline` of each node and
 * lease and of a target named by the input, `stats`, `show`, `sql`-style
 * statements, the threshold overlay, the TUI's browsing reads, each result
 * through every printer at once (table, CSV, JSON, JSON lines) into /dev/null.
 *
 * Input: byte 0 the query options (verbose, a time range, thresholds); then
 * up to three files separated by a line "--8<--" (an audit log and node logs
 * together make stores with leases, episodes and log lines), ingested as
 * `leasetrail ingest A B C` does.  A store that names a cluster (an envelope's
 * log group, cluster_name or resourceId) is asked again with --cluster of its
 * first: the store's filter and each engine's own.  Checked, besides memory
 * safety: no query fails on a store that ingest built (only "no such target"
 * is expected).
 */
#define _GNU_SOURCE /* memmem */
#include "fuzz-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define QUERIES_PARTS	3
#define QUERIES_TARGETS 4

static const char queries_sep[] = "\n--8<--\n";

static FILE *queries_null(void)
{
	static FILE *f;

	if (f == NULL && (f = fopen("/dev/null", "w")) == NULL)
		fuzz_fail("cannot open /dev/null", NULL);
	return f;
}

/* A query's failure that a store ingest built must not have. */
static void queries_ok(int rc, const struct lt_error *err, const char *what)
{
	if (rc != 0 && rc != LT_ERR_NOTFOUND)
		fuzz_fail(what, err->msg);
}

/* Writes the input's parts (cut at queries_sep) as files; returns how many. */
static size_t queries_files(struct lt_buf *paths, const uint8_t *data, size_t size)
{
	size_t n = 0;

	while (n < QUERIES_PARTS) {
		const char *sep = n + 1 < QUERIES_PARTS
				      ? memmem(data, size, queries_sep, sizeof queries_sep - 1)
				      : NULL;
		size_t len = sep ? (size_t)((const uint8_t *)sep - data) + 1 : size;
		char name[16];

		snprintf(name, sizeof name, "queries.%zu", n);
		fuzz_path(&paths[n], name);
		fuzz_write(paths[n].ptr, data, len);
		n++;
		if (sep == NULL)
			break;
		data += len + sizeof queries_sep - 2;
		size -= len + sizeof queries_sep - 2;
	}
	return n;
}

/* The targets the cluster list offers (nodes, then other leases): what `timeline` takes. */
static size_t queries_targets(struct lt_store *st, char **out)
{
	struct lt_browse_query q = {.sort = LT_BROWSE_BY_ANOMALIES};
	struct lt_browse_page page = {0};
	struct lt_error err = {0};
	size_t n = 0;

	queries_ok(lt_browse_list(&page, st, &q, 0, 16, &err), &err, "lt_browse_list");
	for (size_t i = 0; i < page.n && n < QUERIES_TARGETS; i++)
		if (!page.items[i].heading && page.items[i].target != NULL)
			out[n++] = lt_xstrdup(page.items[i].target);
	lt_browse_page_release(&page);
	return n;
}

/* The first line of the input (at most 256 bytes), as a user would type a target. */
static char *queries_first_line(const uint8_t *p, size_t n)
{
	const uint8_t *nl = memchr(p, '\n', n);
	size_t len = nl ? (size_t)(nl - p) : n;

	return lt_xstrndup((const char *)p, len < 256 ? len : 256);
}

/* Prints a raw statement's rows as `sql` does: every column as text. */
static void queries_sql(struct lt_store *st, const char *sql, const struct lt_row_sink *out)
{
	struct lt_col cols[LT_MAX_COLS];
	struct lt_cell cells[LT_MAX_COLS];
	struct lt_stmt *q = NULL;
	struct lt_error err = {0};
	int n, rc;

	queries_ok(lt_store_prepare(st, &q, sql, &err), &err, sql);
	n = lt_stmt_columns(q);
	n = n > LT_MAX_COLS ? LT_MAX_COLS : n;
	for (int i = 0; i < n; i++)
		cols[i] = (struct lt_col){.name = lt_stmt_name(q, i), .type = LT_CELL_TEXT};
	out->begin(out->ctx, cols, n);
	while ((rc = lt_stmt_step(q, &err)) == 1) {
		for (int i = 0; i < n; i++) {
			size_t len = 0;
			const char *s = lt_stmt_text(q, i, &len);

			cells[i] = (struct lt_cell){.type = LT_CELL_TEXT, .s = s, .len = len};
		}
		out->row(out->ctx, cells);
	}
	out->end(out->ctx);
	queries_ok(rc, &err, sql);
	lt_stmt_free(q);
}

/*
 * One result into the four printers at once: a query runs once, every writer prints it.
 * Table and CSV go to /dev/null; JSON and JSON lines to memory, checked to be valid JSON
 * in valid UTF-8 (one array; one value a line) whatever bytes the store holds.
 */
struct queries_tee {
	struct lt_printer *p[LT_OUT_JSONL + 1];
	FILE *mem[LT_OUT_JSONL + 1];
	char *text[LT_OUT_JSONL + 1];
	size_t len[LT_OUT_JSONL + 1];
};

static void tee_begin(void *ctx, const struct lt_col *cols, int ncols)
{
	struct queries_tee *t = ctx;

	for (int f = LT_OUT_TABLE; f <= LT_OUT_JSONL; f++)
		lt_printer_sink(t->p[f])->begin(lt_printer_sink(t->p[f])->ctx, cols, ncols);
}

static void tee_row(void *ctx, const struct lt_cell *cells)
{
	struct queries_tee *t = ctx;

	for (int f = LT_OUT_TABLE; f <= LT_OUT_JSONL; f++)
		lt_printer_sink(t->p[f])->row(lt_printer_sink(t->p[f])->ctx, cells);
}

static void tee_end(void *ctx)
{
	struct queries_tee *t = ctx;

	for (int f = LT_OUT_TABLE; f <= LT_OUT_JSONL; f++)
		lt_printer_sink(t->p[f])->end(lt_printer_sink(t->p[f])->ctx);
}

static int tee_in_memory(int f)
{
	return f == LT_OUT_JSON || f == LT_OUT_JSONL;
}

static const struct lt_row_sink *tee_new(struct queries_tee *t, struct lt_row_sink *sink)
{
	*t = (struct queries_tee){0};
	for (int f = LT_OUT_TABLE; f <= LT_OUT_JSONL; f++) {
		FILE *out = queries_null();

		if (tee_in_memory(f) &&
		    (out = t->mem[f] = open_memstream(&t->text[f], &t->len[f])) == NULL)
			fuzz_fail("open_memstream", NULL);
		t->p[f] = lt_printer_new((enum lt_out_format)f, out);
	}
	*sink = (struct lt_row_sink){.begin = tee_begin, .row = tee_row, .end = tee_end, .ctx = t};
	return sink;
}

static void tee_free(struct queries_tee *t, const char *what)
{
	for (int f = LT_OUT_TABLE; f <= LT_OUT_JSONL; f++) {
		lt_printer_free(t->p[f]);
		if (!tee_in_memory(f))
			continue;
		if (fclose(t->mem[f]) != 0)
			fuzz_fail("fclose of a memory stream", what);
		/* nothing at all when the query printed no result (a target not found) */
		if (t->len[f] != 0 &&
		    lt_json_check(t->text[f], t->len[f], f == LT_OUT_JSON ? 1 : 2) != 0)
			fuzz_fail(f == LT_OUT_JSON ? "invalid JSON printed" : "invalid JSON lines",
				  what);
		free(t->text[f]);
	}
}

/* Every printed command, each result through every printer. */
static void queries_print(struct lt_store *st, struct lt_query_opts *o, char **targets, size_t n)
{
	static const char *const sqls[] = {
	    "SELECT * FROM events ORDER BY id DESC LIMIT 32",
	    "SELECT * FROM logs ORDER BY id DESC LIMIT 32",
	    "SELECT * FROM lt_leases LIMIT 32",
	};
	struct lt_error err = {0};
	struct queries_tee tee;
	struct lt_row_sink sink;

#define QUERIES_RUN(call, what)                                                                    \
	do {                                                                                       \
		const struct lt_row_sink *out = tee_new(&tee, &sink);                              \
		queries_ok((call), &err, what);                                                    \
		tee_free(&tee, what);                                                              \
	} while (0)
	QUERIES_RUN(lt_query_nodes(st, o, out, &err), "nodes");
	for (const struct lt_canned *c = lt_canned_list(); c->name != NULL; c++)
		QUERIES_RUN(lt_query_canned(st, c->name, o, out, &err), c->name);
	for (size_t i = 0; i < n; i++)
		QUERIES_RUN(lt_query_timeline(st, targets[i], o, out, &err), "timeline");
	for (size_t i = 0; i < n; i++) { /* under quick filters: a glob, a subresource */
		struct lt_query_opts fo = *o;

		fo.filter = (struct lt_filter){.user = "system:*", .resource = "nodes/status"};
		fo.filter.failed = i % 2;
		QUERIES_RUN(lt_query_timeline(st, targets[i], &fo, out, &err), "timeline --user");
	}
	for (size_t i = 0; i < sizeof sqls / sizeof *sqls; i++)
		QUERIES_RUN((queries_sql(st, sqls[i], out), 0), sqls[i]);
#undef QUERIES_RUN
}

static int queries_same_target(const struct lt_browse_item *it, void *ctx)
{
	return strcmp(it->target, ctx) == 0;
}

/*
 * The cluster list as the TUI holds it (whole, the deletes read for every
 * row) is the paged read's, item for item; a search for each row's target
 * lands on a row of that target.
 */
static void queries_list_whole(struct lt_store *st)
{
	struct lt_browse_query q = {.sort = LT_BROWSE_BY_PROBLEMS};
	struct lt_browse_page all = {0}, paged = {0};
	struct lt_error err = {0};
	size_t at;

	queries_ok(lt_browse_list_all(&all, st, &q, &err), &err, "lt_browse_list_all");
	queries_ok(lt_browse_deletes(&all, st, 0, all.n, &err), &err, "lt_browse_deletes");
	queries_ok(lt_browse_list(&paged, st, &q, 0, LT_BROWSE_LIST_MAX, &err), &err,
		   "lt_browse_list");
	if (all.n != paged.n || all.total != paged.total)
		fuzz_fail("the whole list", "differs from the paged read in length");
	for (size_t i = 0; i < all.n; i++) {
		const struct lt_browse_item *a = &all.items[i], *b = &paged.items[i];

		if (a->heading != b->heading || a->deletes != b->deletes ||
		    (a->target == NULL) != (b->target == NULL) ||
		    (a->target != NULL && strcmp(a->target, b->target) != 0))
			fuzz_fail("the whole list", "differs from the paged read");
		if (a->target != NULL &&
		    (lt_browse_find(&at, &all, i, LT_BROWSE_FORWARD, queries_same_target, a->target,
				    &err) != 0 ||
		     strcmp(all.items[at].target, a->target) != 0))
			fuzz_fail("lt_browse_find", a->target);
	}
	lt_browse_page_release(&all);
	lt_browse_page_release(&paged);
}

/* What the TUI reads: spans, episodes, the histogram, events of each target, its kept timeline. */
static void queries_browse(struct lt_store *st, char **targets, size_t n)
{
	struct lt_error err = {0};
	struct lt_rows rows = {0};
	struct lt_browse_events evs = {0};
	struct lt_browse_episodes eps = {0};
	struct lt_hist hist = {0};
	int64_t first = 0, last = 0, ids[1] = {1};

	queries_list_whole(st);
	queries_ok(lt_browse_span(&first, &last, st, &err), &err, "lt_browse_span");
	queries_ok(lt_browse_episodes(&eps, st, ids, 1, first, last, &err), &err, "episodes");
	lt_browse_episodes_release(&eps);
	/* the histogram (i): its bins over the whole range */
	queries_ok(lt_browse_hist(&hist, st, first, (last - first) / 16 + 1, 16, &err), &err,
		   "lt_browse_hist");
	lt_hist_release(&hist);
	for (size_t i = 0; i < n; i++) {
		queries_ok(lt_browse_timeline(&rows, st, targets[i], &err), &err,
			   "browse timeline");
		for (int obj = LT_BROWSE_LEASE; obj <= LT_BROWSE_NODE_OBJECT; obj++) {
			queries_ok(lt_browse_events(&evs, st, targets[i],
						    (enum lt_browse_object)obj, first, last, 0, 8,
						    &err),
				   &err, "browse events");
			lt_browse_events_release(&evs);
		}
	}
	lt_rows_release(&rows);
}

/* stats, show of the first records, `query NAME --emit ENGINE` for every engine. */
static void queries_misc(struct lt_store *st, const struct lt_query_opts *o, const char *cluster)
{
	struct lt_error err = {0};

	queries_ok(lt_query_stats(st, queries_null(), &err), &err, "stats");
	for (int64_t id = 1; id <= 2; id++) {
		lt_query_show_record(st, id, LT_RECORD_EVENT, LT_SHOW_VERBOSE, queries_null(),
				     &err);
		lt_query_show_record(st, id, LT_RECORD_LINE, 0, queries_null(), &err);
	}
	for (int e = 0; e < LT_ENGINE_COUNT; e++)
		for (const struct lt_canned *c = lt_canned_list(); c->name != NULL; c++)
			queries_ok(
			    lt_emit_canned(c->name, o,
					   &(struct lt_emit_opts){.engine = (enum lt_engine)e,
								  .cluster = cluster},
					   queries_null(), &err),
			    &err, "emit");
}

/* `report`: of what the findings name, and of the targets; both formats. */
static void queries_report(struct lt_store *st, const struct lt_query_opts *o, char **targets,
			   size_t n)
{
	struct lt_error err = {0};

	for (size_t k = 0; k < 2; k++) {
		struct lt_report *r = NULL;
		int rc = lt_report_build(&r, st, targets, k ? n : 0, o, &err);

		queries_ok(rc, &err, "report");
		for (int f = LT_REPORT_MD; rc == 0 && f <= LT_REPORT_HTML; f++)
			queries_ok(
			    lt_report_write(r, (enum lt_report_format)f, queries_null(), &err),
			    &err, "report write");
		lt_report_free(r);
	}
}

/* lt_cluster_names: keeps the first name. */
static void queries_first_cluster(const char *name, void *ctx)
{
	char **first = ctx;

	if (*first == NULL)
		*first = lt_xstrdup(name);
}

/* `--cluster NAME` of the store's first named cluster: every query, emit and report again. */
static void queries_cluster(struct lt_store *st, const struct lt_query_opts *o, char **targets,
			    size_t n)
{
	struct lt_query_opts co = *o;
	struct lt_error err = {0};
	char *name = NULL;

	queries_ok(lt_cluster_names(st, queries_first_cluster, &name, &err), &err,
		   "lt_cluster_names");
	if (name == NULL)
		return;
	if ((co.cluster = lt_cluster_id(st, name)) == 0)
		fuzz_fail("a cluster lt_cluster_names listed has no id", name);
	queries_print(st, &co, targets, n);
	queries_misc(st, &co, name);
	queries_report(st, &co, targets, n);
	free(name);
}

/* The store's end minus a few hours as --since, thresholds from the options byte. */
static void queries_opts(struct lt_query_opts *o, struct lt_store *st, uint8_t opt)
{
	int64_t end = lt_store_end_us(st);

	*o = (struct lt_query_opts){.verbose = opt & 1};
	if (opt & 2)
		o->since_us = end - (int64_t)(opt >> 4) * 3600000000;
	if (opt & 4)
		o->until_us = end - (int64_t)(opt >> 5) * 60000000;
	if (opt & 8) {
		o->gap_us = (int64_t)(opt >> 4) * 5000000 + 1;
		o->slow_us = (int64_t)(opt >> 3) * 100000 + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lt_buf paths[QUERIES_PARTS], db;
	char *argv[QUERIES_PARTS], *targets[QUERIES_TARGETS + 1];
	struct lt_ingest_opts iopts = {0};
	struct lt_ingest_totals t = {0};
	struct lt_query_opts o;
	struct lt_error err = {0};
	struct lt_store *st;
	size_t nfiles, ntargets;

	if (size < 1)
		return 0;
	for (size_t i = 0; i < QUERIES_PARTS; i++)
		lt_buf_init(&paths[i]);
	lt_buf_init(&db);
	fuzz_path(&db, "queries.db");
	nfiles = queries_files(paths, data + 1, size - 1);
	for (size_t i = 0; i < nfiles; i++)
		argv[i] = paths[i].ptr;
	st = fuzz_store_new(db.ptr);
	if (lt_ingest_run(st, argv, nfiles, &iopts, NULL, &t, &err) == LT_ERR_DB)
		fuzz_fail("lt_ingest_run failed on the store", err.msg);
	queries_opts(&o, st, data[0]);
	ntargets = queries_targets(st, targets);
	targets[ntargets++] = queries_first_line(data + 1, size - 1);
	queries_print(st, &o, targets, ntargets);
	queries_browse(st, targets, ntargets);
	queries_misc(st, &o, NULL);
	queries_report(st, &o, targets, ntargets);
	queries_cluster(st, &o, targets, ntargets);
	if (o.gap_us != 0) { /* thresholds: TEMP episodes, then the same questions of them */
		queries_ok(lt_lifecycle_overlay(st, o.gap_us, o.slow_us, &err), &err, "overlay");
		queries_print(st, &o, targets, ntargets);
	}
	for (size_t i = 0; i < ntargets; i++)
		free(targets[i]);
	lt_store_free(st);
	fuzz_remove_store(db.ptr);
	for (size_t i = 0; i < nfiles; i++)
		unlink(paths[i].ptr);
	for (size_t i = 0; i < QUERIES_PARTS; i++)
		lt_buf_release(&paths[i]);
	lt_buf_release(&db);
	return 0;
}
