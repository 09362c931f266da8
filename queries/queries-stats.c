/* queries-stats.c - `leasetrail stats`: what the store holds, and where it came from. */
#include "queries-int.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STATS_MAX_NODES	  20
#define STATS_MAX_REJECTS 10

/* Node names: node leases in kube-node-lease and node objects, with their activity. */
static const char stats_nodes_sql[] =
    "WITH n AS (SELECT a.name_id AS name_id, a.stage_us AS ts FROM audit AS a"
    "  WHERE a.superseded = 0 AND a.name_id IS NOT NULL AND ("
    "   (a.resource_id = (SELECT id FROM strs WHERE s = 'leases')"
    "    AND a.namespace_id = (SELECT id FROM strs WHERE s = 'kube-node-lease'))"
    "   OR a.resource_id = (SELECT id FROM strs WHERE s = 'nodes')))"
    " SELECT (SELECT s FROM strs WHERE id = n.name_id), min(ts), max(ts), count(*),"
    "  count(*) OVER () FROM n GROUP BY n.name_id ORDER BY 1 LIMIT ?1";

/* Runs sql and prints its rows as a table with the given headers; cols are formatted by kind. */
struct stats_col {
	const char *name;
	char kind; /* 't' text, 'n' number, 'T' time in µs */
};

static const struct stats_col stats_nodes_cols[] = {
    {"node", 't'}, {"first seen", 'T'}, {"last seen", 'T'}, {"requests", 'n'}};

static const char stats_requests_sql[] =
    "SELECT (SELECT s FROM strs WHERE id = resource_id),"
    " (SELECT s FROM strs WHERE id = subresource_id),"
    " (SELECT s FROM strs WHERE id = verb_id), code, count(*)"
    " FROM audit WHERE superseded = 0"
    " GROUP BY resource_id, subresource_id, verb_id, code ORDER BY 1, 2, 3, 4";
static const struct stats_col stats_requests_cols[] = {
    {"resource", 't'}, {"subresource", 't'}, {"verb", 't'}, {"code", 'n'}, {"count", 'n'}};

static const char stats_others_sql[] = "SELECT resource, verb, sum(count) FROM resource_counts"
				       " GROUP BY resource, verb ORDER BY 3 DESC, 1, 2";
static const struct stats_col stats_others_cols[] = {
    {"resource", 't'}, {"verb", 't'}, {"count", 'n'}};

static const char stats_sources_sql[] =
    "SELECT id, path, state, records, stored, duplicates, skipped,"
    " rejected, note FROM sources ORDER BY id";
static const struct stats_col stats_sources_cols[] = {
    {"id", 'n'},	 {"path", 't'},	   {"state", 't'},    {"records", 'n'}, {"stored", 'n'},
    {"duplicates", 'n'}, {"skipped", 'n'}, {"rejected", 'n'}, {"note", 't'}};

static const char stats_logs_sql[] =
    "SELECT source_id, lines, first_us, last_us, year, year_rule"
    " || CASE WHEN year_guess THEN ' (a guess)' ELSE '' END, zone, zone_from,"
    " klog_skew, node FROM log_sources ORDER BY source_id";
static const struct stats_col stats_logs_cols[] = {
    {"source", 'n'}, {"lines", 'n'},	 {"first", 'T'},
    {"last", 'T'},   {"year", 'n'},	 {"year_from", 't'},
    {"zone", 't'},   {"zone_from", 't'}, {"klog_time_differs", 'n'},
    {"node", 't'}};

static const char stats_kinds_sql[] =
    "SELECT coalesce((SELECT s FROM strs WHERE id = component_id), '?'),"
    " (SELECT s FROM strs WHERE id = kind_id), count(*), min(ts_us),"
    " max(ts_us) FROM lines_row INDEXED BY lines_kind WHERE kind_id IS NOT NULL"
    " GROUP BY component_id, kind_id ORDER BY 1, 3 DESC, 2";
static const struct stats_col stats_kinds_cols[] = {
    {"component", 't'}, {"kind", 't'}, {"lines", 'n'}, {"first", 'T'}, {"last", 'T'}};

static const char stats_rejects_sql[] = "SELECT source_id, line, offset, reason FROM rejects"
					" ORDER BY source_id, line LIMIT ?1";
static const struct stats_col stats_rejects_cols[] = {
    {"source", 'n'}, {"line", 'n'}, {"offset", 'n'}, {"reason", 't'}};

#define STATS_NCOLS(a) ((int)(sizeof a / sizeof *a))

/* A cell of column kind; no value reads "" for text and "-" for the others. */
static struct lt_cell stats_cell(const struct lt_stmt *q, int i, char kind)
{
	if (lt_stmt_type(q, i) == LT_COL_NULL)
		return lt_cell_text(kind == 't' ? "" : "-");
	if (kind == 'T')
		return lt_cell_int(LT_CELL_TIME, lt_stmt_int(q, i));
	if (kind == 'n')
		return lt_cell_int(LT_CELL_INT, lt_stmt_int(q, i));
	return lt_cell_text(lt_stmt_text(q, i, NULL));
}

static int stats_table(struct lt_store *st, FILE *out, const char *title, const char *sql,
		       const struct stats_col *cols, int ncols, int64_t limit, struct lt_error *err)
{
	struct lt_col tcols[16];
	struct lt_cell cells[16];
	struct lt_printer *p = NULL;
	const struct lt_row_sink *sink = NULL;
	struct lt_stmt *q;
	int rc;

	if ((rc = lt_store_prepare(st, &q, sql, err)) != 0)
		return rc;
	if (limit > 0)
		lt_stmt_bind_int(q, 1, limit);
	for (int i = 0; i < ncols; i++)
		tcols[i] = (struct lt_col){.name = cols[i].name,
					   .type = cols[i].kind == 'T'	 ? LT_CELL_TIME
						   : cols[i].kind == 'n' ? LT_CELL_INT
									 : LT_CELL_TEXT};
	while ((rc = lt_stmt_step(q, err)) == 1) {
		if (p == NULL) {
			fprintf(out, "\n%s%s", title, title[0] ? "\n" : "");
			p = lt_printer_new(LT_OUT_TABLE, out);
			sink = lt_printer_sink(p);
			sink->begin(sink->ctx, tcols, ncols);
		}
		for (int i = 0; i < ncols; i++)
			cells[i] = stats_cell(q, i, cols[i].kind);
		sink->row(sink->ctx, cells);
	}
	if (p == NULL && title[0])
		fprintf(out, "\n%s none\n", title);
	if (sink != NULL)
		sink->end(sink->ctx);
	lt_printer_free(p);
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

/* Prints "Time range:  A .. B (D)" and what follows it on the line. */
static void stats_range(FILE *out, int64_t lo, int64_t hi, const char *of)
{
	char a[40], b[40], d[32];

	lt_time_format_zone(a, sizeof a, lo);
	lt_time_format_zone(b, sizeof b, hi);
	lt_format_duration(d, sizeof d, hi - lo);
	fprintf(out, "Time range:  %s .. %s (%s)%s\n", a, b, d, of);
}

/* A store without events: the time range of its log lines, when it has some. */
static int stats_lines_range(struct lt_store *st, FILE *out, struct lt_error *err)
{
	struct lt_stmt *q;
	int rc;

	/* a store of an older leasetrail may lack log_sources: no range to give */
	if (lt_store_prepare(st, &q,
			     "SELECT min(first_us), max(last_us) FROM log_sources"
			     " WHERE first_us IS NOT NULL",
			     NULL) != 0) {
		fputs("Time range:  (no events)\n", out);
		return 0;
	}
	rc = lt_stmt_step(q, err);
	if (rc == 1 && lt_stmt_type(q, 0) != LT_COL_NULL)
		stats_range(out, lt_stmt_int(q, 0), lt_stmt_int(q, 1),
			    ", of log lines (no events)");
	else if (rc >= 0)
		fputs("Time range:  (no events)\n", out);
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

/* The first line: the time range and how many requests it holds. */
static int stats_summary(struct lt_store *st, FILE *out, struct lt_error *err)
{
	struct lt_stmt *q;
	int rc, lines_rc = 0;

	rc = lt_store_prepare(st, &q,
			      "SELECT min(stage_us), max(stage_us), count(*),"
			      " (SELECT count(*) FROM audit), (SELECT count(*) FROM sources)"
			      " FROM audit WHERE superseded = 0",
			      err);
	if (rc != 0)
		return rc;
	if ((rc = lt_stmt_step(q, err)) == 1) {
		fputs("Store:       ", out);
		lt_print_safe(out, lt_store_path(st), strlen(lt_store_path(st)), LT_SAFE_ONE_LINE);
		fputc('\n', out);
		if (lt_stmt_int(q, 2) > 0)
			stats_range(out, lt_stmt_int(q, 0), lt_stmt_int(q, 1), "");
		else
			lines_rc = stats_lines_range(st, out, err);
		fprintf(out, "Requests:    %lld (%lld stored event rows), from %lld sources\n",
			(long long)lt_stmt_int(q, 2), (long long)lt_stmt_int(q, 3),
			(long long)lt_stmt_int(q, 4));
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : lines_rc;
}

static int stats_nodes(struct lt_store *st, FILE *out, struct lt_error *err)
{
	struct lt_stmt *q;
	int64_t total = 0;
	int rc;

	if ((rc = lt_store_prepare(st, &q, stats_nodes_sql, err)) != 0)
		return rc;
	lt_stmt_bind_int(q, 1, 1);
	if ((rc = lt_stmt_step(q, err)) == 1)
		total = lt_stmt_int(q, 4);
	lt_stmt_free(q);
	if (rc < 0)
		return rc;
	fprintf(out, "\nNodes seen:  %lld", (long long)total);
	if (total > STATS_MAX_NODES)
		fprintf(out, " (the first %d by name)", STATS_MAX_NODES);
	if (total == 0) {
		fputc('\n', out);
		return 0;
	}
	return stats_table(st, out, "", stats_nodes_sql, stats_nodes_cols, 4, STATS_MAX_NODES, err);
}

static int stats_requests(struct lt_store *st, FILE *out, struct lt_error *err)
{
	return stats_table(st, out, "Lease and node requests:", stats_requests_sql,
			   stats_requests_cols, STATS_NCOLS(stats_requests_cols), 0, err);
}

static int stats_others(struct lt_store *st, FILE *out, struct lt_error *err)
{
	return stats_table(
	    st, out,
	    "Other resources (counted, not stored; --all-resources keeps them):", stats_others_sql,
	    stats_others_cols, STATS_NCOLS(stats_others_cols), 0, err);
}

static int stats_sources(struct lt_store *st, FILE *out, struct lt_error *err)
{
	return stats_table(st, out, "Sources:", stats_sources_sql, stats_sources_cols,
			   STATS_NCOLS(stats_sources_cols), 0, err);
}

/* True when the store holds text logs: a store of audit events alone says nothing of them. */
static int stats_has_logs(struct lt_store *st)
{
	struct lt_stmt *q;
	int any;

	if (lt_store_prepare(st, &q, "SELECT 1 FROM log_sources LIMIT 1", NULL) != 0)
		return 0;
	any = lt_stmt_step(q, NULL) == 1;
	lt_stmt_free(q);
	return any;
}

/* Text logs: per source, how many lines, which years (and by which rule), what range. */
static int stats_logs(struct lt_store *st, FILE *out, struct lt_error *err)
{
	int rc;

	if (!stats_has_logs(st))
		return 0;
	rc = stats_table(st, out,
			 "Log lines (year, zone: for times written without one; klog_time_differs:"
			 " lines whose klog time is over 2s from the journal's):",
			 stats_logs_sql, stats_logs_cols, STATS_NCOLS(stats_logs_cols), 0, err);
	if (rc != 0)
		return rc;
	return stats_table(st, out, "Log lines by kind:", stats_kinds_sql, stats_kinds_cols,
			   STATS_NCOLS(stats_kinds_cols), 0, err);
}

static int stats_rejects(struct lt_store *st, FILE *out, struct lt_error *err)
{
	return stats_table(st, out, "Rejected records (the first ones):", stats_rejects_sql,
			   stats_rejects_cols, STATS_NCOLS(stats_rejects_cols), STATS_MAX_REJECTS,
			   err);
}

/* A stream's name: [cluster] file, then /stream for a CloudWatch log stream (unsanitized). */
static void stats_stream_name(struct lt_buf *b, const struct queries_health_offset *o)
{
	lt_buf_reset(b);
	if (o->cluster[0] != '\0')
		lt_buf_printf(b, "[%s] ", o->cluster);
	lt_buf_printf(b, "%s%s%s", o->path, o->stream[0] ? "/" : "", o->stream);
}

/* Every audit stream's clock against its cluster's reference (queries-health-skew.c), one a
 * line; only when the store has more than one stream and a causal pair placed one. */
static int stats_offsets(struct lt_store *st, FILE *out, struct lt_error *err)
{
	struct queries_health_offset *off = lt_xcalloc(QUERIES_HEALTH_MAX_STREAMS, sizeof *off);
	int n = queries_health_offsets(st, off, QUERIES_HEALTH_MAX_STREAMS, 1, err);
	struct lt_buf name, safe;
	int placed = 0;

	for (int i = 0; i < n; i++)
		placed |= off[i].state != QUERIES_SKEW_UNKNOWN;
	if (!placed)
		n = n < 0 ? n : 0; /* no causal pair at all: nothing to say */
	lt_buf_init(&name);
	lt_buf_init(&safe);
	if (n > 1)
		fputs("\nAudit stream clock offsets (added to a stream's times to put them on its "
		      "cluster's reference clock; from causal pairs):\n",
		      out);
	for (int i = 0; n > 1 && i < n; i++) {
		const struct queries_health_offset *o = &off[i];

		stats_stream_name(&name, o);
		lt_buf_reset(&safe);
		lt_sanitize(&safe, name.ptr, name.len);
		fprintf(out, "  %.*s ", (int)safe.len, safe.ptr);
		if (o->state == QUERIES_SKEW_REFERENCE)
			fprintf(out, "reference (the reaction time from %lld causal pairs)\n",
				(long long)o->pairs);
		else if (o->state == QUERIES_SKEW_ESTIMATED)
			fprintf(out, "%+.3f s (%lld causal pairs)\n", (double)o->offset_us / 1e6,
				(long long)o->pairs);
		else
			fputs("unknown (no causal pair with a placed stream)\n", out);
	}
	lt_buf_release(&name);
	lt_buf_release(&safe);
	free(off);
	return n < 0 ? n : 0;
}

int lt_query_stats(struct lt_store *st, FILE *out, struct lt_error *err)
{
	int rc = stats_summary(st, out, err);

	if (rc == 0)
		rc = stats_nodes(st, out, err);
	if (rc == 0)
		rc = stats_requests(st, out, err);
	if (rc == 0)
		rc = stats_others(st, out, err);
	if (rc == 0)
		rc = stats_sources(st, out, err);
	if (rc == 0)
		rc = stats_offsets(st, out, err);
	if (rc == 0)
		rc = stats_logs(st, out, err);
	if (rc == 0)
		rc = stats_rejects(st, out, err);
	return rc;
}

/* ---- stats -o json ------------------------------------------------------- */

/* One array of the JSON object: a table of the text form, every row (nodes too). */
struct stats_section {
	const char *key, *sql;
	const struct stats_col *cols;
	int ncols;
	int64_t limit; /* bound to ?1 when the SQL has it */
	int logs;      /* only when the store holds text logs */
};

static const struct stats_section stats_sections[] = {
    {"nodes", stats_nodes_sql, stats_nodes_cols, STATS_NCOLS(stats_nodes_cols), INT64_MAX, 0},
    {"lease_node_requests", stats_requests_sql, stats_requests_cols,
     STATS_NCOLS(stats_requests_cols), 0, 0},
    {"other_resources", stats_others_sql, stats_others_cols, STATS_NCOLS(stats_others_cols), 0, 0},
    {"sources", stats_sources_sql, stats_sources_cols, STATS_NCOLS(stats_sources_cols), 0, 0},
    {"log_sources", stats_logs_sql, stats_logs_cols, STATS_NCOLS(stats_logs_cols), 0, 1},
    {"log_kinds", stats_kinds_sql, stats_kinds_cols, STATS_NCOLS(stats_kinds_cols), 0, 1},
    {"rejects", stats_rejects_sql, stats_rejects_cols, STATS_NCOLS(stats_rejects_cols), INT64_MAX,
     0},
};

/* A section's rows through the JSON printer; column names with '_' for ' '. */
static int stats_json_section(struct lt_store *st, FILE *out, const struct stats_section *sec,
			      struct lt_error *err)
{
	char names[16][32];
	struct lt_col cols[16];
	struct lt_cell cells[16];
	struct lt_printer *p;
	const struct lt_row_sink *sink;
	struct lt_stmt *q;
	int rc;

	assert(sec->ncols <= 16);
	if ((rc = lt_store_prepare(st, &q, sec->sql, err)) != 0)
		return rc;
	if (sec->limit > 0)
		lt_stmt_bind_int(q, 1, sec->limit);
	for (int i = 0; i < sec->ncols; i++) {
		snprintf(names[i], sizeof names[i], "%s", sec->cols[i].name);
		for (char *c = names[i]; *c; c++)
			*c = *c == ' ' ? '_' : *c;
		cols[i] = (struct lt_col){.name = names[i],
					  .type = sec->cols[i].kind == 'T'   ? LT_CELL_TIME
						  : sec->cols[i].kind == 'n' ? LT_CELL_INT
									     : LT_CELL_TEXT};
	}
	fprintf(out, ",\n\"%s\":", sec->key);
	p = lt_printer_new(LT_OUT_JSON, out);
	sink = lt_printer_sink(p);
	sink->begin(sink->ctx, cols, sec->ncols);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		for (int i = 0; i < sec->ncols; i++)
			cells[i] = lt_stmt_type(q, i) == LT_COL_NULL
				       ? lt_cell_null()
				       : stats_cell(q, i, sec->cols[i].kind);
		sink->row(sink->ctx, cells);
	}
	sink->end(sink->ctx);
	lt_printer_free(p);
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

/* A JSON string member "key":"value" (or null), after a comma when not first. */
static void stats_json_string(FILE *out, const char *key, const char *v, int first)
{
	struct lt_buf b;

	lt_buf_init(&b);
	if (v != NULL)
		lt_json_quote(&b, v, strlen(v));
	fprintf(out, "%s\"%s\":%s", first ? "" : ",\n", key, v != NULL ? b.ptr : "null");
	lt_buf_release(&b);
}

/* The summary members: store, first, last, requests, event_rows, source_count. */
static int stats_json_summary(struct lt_store *st, FILE *out, struct lt_error *err)
{
	struct lt_stmt *q;
	char a[40], b[40];
	int rc;

	rc = lt_store_prepare(st, &q,
			      "SELECT min(stage_us), max(stage_us), count(*),"
			      " (SELECT count(*) FROM audit), (SELECT count(*) FROM sources)"
			      " FROM audit WHERE superseded = 0",
			      err);
	if (rc != 0)
		return rc;
	if ((rc = lt_stmt_step(q, err)) == 1) {
		int any = lt_stmt_int(q, 2) > 0;

		lt_time_format_zone(a, sizeof a, lt_stmt_int(q, 0));
		lt_time_format_zone(b, sizeof b, lt_stmt_int(q, 1));
		stats_json_string(out, "store", lt_store_path(st), 1);
		stats_json_string(out, "first", any ? a : NULL, 0);
		stats_json_string(out, "last", any ? b : NULL, 0);
		fprintf(out, ",\n\"requests\":%lld,\"event_rows\":%lld,\"source_count\":%lld",
			(long long)lt_stmt_int(q, 2), (long long)lt_stmt_int(q, 3),
			(long long)lt_stmt_int(q, 4));
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

static const char *const stats_skew_states[] = {
    [QUERIES_SKEW_UNKNOWN] = "unknown",
    [QUERIES_SKEW_REFERENCE] = "reference",
    [QUERIES_SKEW_ESTIMATED] = "estimated",
};

/* "clock_offsets": every audit stream's estimated clock offset (null when unknown). */
static int stats_json_offsets(struct lt_store *st, FILE *out, struct lt_error *err)
{
	struct queries_health_offset *off = lt_xcalloc(QUERIES_HEALTH_MAX_STREAMS, sizeof *off);
	int n = queries_health_offsets(st, off, QUERIES_HEALTH_MAX_STREAMS, 1, err);

	fputs(",\n\"clock_offsets\":[", out);
	for (int i = 0; i < n; i++) {
		const struct queries_health_offset *o = &off[i];

		fprintf(out, "%s{", i ? "," : "");
		stats_json_string(out, "path", o->path, 1);
		stats_json_string(out, "stream", o->stream[0] ? o->stream : NULL, 0);
		stats_json_string(out, "cluster", o->cluster[0] ? o->cluster : NULL, 0);
		stats_json_string(out, "state", stats_skew_states[o->state], 0);
		if (o->state == QUERIES_SKEW_UNKNOWN)
			fputs(",\"offset_s\":null", out);
		else
			fprintf(out, ",\"offset_s\":%.6f", (double)o->offset_us / 1e6);
		fprintf(out, ",\"pairs\":%lld}", (long long)o->pairs);
	}
	fputs("]", out);
	free(off);
	return n < 0 ? n : 0;
}

int lt_query_stats_json(struct lt_store *st, FILE *out, struct lt_error *err)
{
	int logs = stats_has_logs(st), rc;

	fputc('{', out);
	rc = stats_json_summary(st, out, err);
	for (size_t i = 0; rc == 0 && i < sizeof stats_sections / sizeof *stats_sections; i++)
		if (!stats_sections[i].logs || logs)
			rc = stats_json_section(st, out, &stats_sections[i], err);
	if (rc == 0)
		rc = stats_json_offsets(st, out, err);
	fputs("}\n", out);
	return rc;
}
