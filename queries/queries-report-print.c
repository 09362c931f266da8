/*
 * queries-report-print.c - the incident report as Markdown or HTML.
 *
 * One walk over the computed report (struct lt_report), written through a
 * few document primitives (heading, paragraph, list, table, picture) that
 * each format implements: Markdown (CommonMark: pipe tables as GitHub and
 * most wikis take them, pictures as data: SVG images, and the strip again
 * as text in an indented code block) and HTML (one self-contained page: an
 * inline style sheet, inline SVG, no script, no external resource).  Every
 * string from the store is escaped for the format: queries_md_escape, or
 * queries_html_escape (which SVG text goes through too).
 */
#include "queries-report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DOC_FLUSH (64 * 1024) /* bytes buffered before a write */

int lt_report_format_parse(enum lt_report_format *out, const char *name)
{
	if (strcmp(name, "md") == 0 || strcmp(name, "markdown") == 0)
		*out = LT_REPORT_MD;
	else if (strcmp(name, "html") == 0)
		*out = LT_REPORT_HTML;
	else
		return LT_ERR_USAGE;
	return 0;
}

void queries_md_escape(struct lt_buf *b, const char *s, size_t len)
{
	static const char special[] = "\\`*_{}[]<>()#+!|~&";
	struct lt_buf clean;

	lt_buf_init(&clean);
	lt_sanitize(&clean, s, len);
	for (size_t i = 0; i < clean.len; i++) {
		if (clean.ptr[i] != '\0' && strchr(special, clean.ptr[i]) != NULL)
			lt_buf_putc(b, '\\');
		lt_buf_putc(b, clean.ptr[i]);
	}
	lt_buf_release(&clean);
}

/* ---- document primitives --------------------------------------------------------- */

struct doc {
	enum lt_report_format fmt;
	FILE *f;
	struct lt_buf b;
	int failed; /* errno of the first failed write */
};

static void doc_flush(struct doc *d)
{
	if (d->b.len > 0 && !d->failed && fwrite(d->b.ptr, 1, d->b.len, d->f) != d->b.len)
		d->failed = errno ? errno : EIO;
	lt_buf_truncate(&d->b, 0);
}

/* Our own markup, as is. */
static void doc_raw(struct doc *d, const char *s)
{
	lt_buf_printf(&d->b, "%s", s);
	if (d->b.len > DOC_FLUSH)
		doc_flush(d);
}

/* Text from the store (or any text): escaped for the format. */
static void doc_text(struct doc *d, const char *s, size_t len)
{
	if (d->fmt == LT_REPORT_HTML)
		queries_html_escape(&d->b, s, len);
	else
		queries_md_escape(&d->b, s, len);
}

static void doc_str(struct doc *d, const char *s)
{
	doc_text(d, s ? s : "", s ? strlen(s) : 0);
}

static void doc_heading(struct doc *d, int level, const char *text)
{
	if (d->fmt == LT_REPORT_HTML) {
		lt_buf_printf(&d->b, "<h%d>", level);
		doc_str(d, text);
		lt_buf_printf(&d->b, "</h%d>\n", level);
	} else {
		lt_buf_printf(&d->b, "%s%.*s ", level > 1 ? "\n" : "", level, "######");
		doc_str(d, text);
		doc_raw(d, "\n\n");
	}
}

static void doc_para(struct doc *d, const char *text)
{
	doc_raw(d, d->fmt == LT_REPORT_HTML ? "<p>" : "");
	doc_str(d, text);
	doc_raw(d, d->fmt == LT_REPORT_HTML ? "</p>\n" : "\n\n");
}

static void doc_list(struct doc *d, char *const *items, size_t n)
{
	doc_raw(d, d->fmt == LT_REPORT_HTML ? "<ul>\n" : "");
	for (size_t i = 0; i < n; i++) {
		doc_raw(d, d->fmt == LT_REPORT_HTML ? "<li>" : "- ");
		doc_str(d, items[i]);
		doc_raw(d, d->fmt == LT_REPORT_HTML ? "</li>\n" : "\n");
	}
	doc_raw(d, d->fmt == LT_REPORT_HTML ? "</ul>\n" : "\n");
}

static void doc_table(struct doc *d, const char *const *heads, int n)
{
	doc_raw(d, d->fmt == LT_REPORT_HTML ? "<table>\n<tr>" : "|");
	for (int i = 0; i < n; i++) {
		doc_raw(d, d->fmt == LT_REPORT_HTML ? "<th>" : " ");
		doc_str(d, heads[i]);
		doc_raw(d, d->fmt == LT_REPORT_HTML ? "</th>" : " |");
	}
	doc_raw(d, d->fmt == LT_REPORT_HTML ? "</tr>\n" : "\n|");
	for (int i = 0; d->fmt == LT_REPORT_MD && i < n; i++)
		doc_raw(d, " --- |");
	doc_raw(d, d->fmt == LT_REPORT_HTML ? "" : "\n");
}

static void doc_row(struct doc *d, int begin)
{
	if (d->fmt == LT_REPORT_HTML)
		doc_raw(d, begin ? "<tr>" : "</tr>\n");
	else
		doc_raw(d, begin ? "|" : "\n");
}

/* How a cell reads in HTML: text, a time (one line), a file and line (broken anywhere). */
enum doc_cell_kind { DOC_TEXT, DOC_TIME, DOC_PLACE };

static void doc_cell(struct doc *d, const char *s, size_t len, enum doc_cell_kind kind)
{
	static const char *const td[] = {
	    [DOC_TEXT] = "<td>", [DOC_TIME] = "<td class=\"t\">", [DOC_PLACE] = "<td class=\"r\">"};

	if (d->fmt == LT_REPORT_HTML) {
		doc_raw(d, td[kind]);
		doc_text(d, s ? s : "", s ? len : 0);
		doc_raw(d, "</td>");
	} else {
		doc_raw(d, " ");
		doc_text(d, s ? s : "", s ? len : 0);
		doc_raw(d, " |");
	}
}

static void doc_cell_str(struct doc *d, const char *s, enum doc_cell_kind kind)
{
	doc_cell(d, s, s ? strlen(s) : 0, kind);
}

static void doc_cell_time(struct doc *d, int64_t us)
{
	char t[40];

	if (us == 0) {
		doc_cell(d, "", 0, DOC_TIME);
		return;
	}
	lt_time_format(t, sizeof t, us);
	doc_cell_str(d, t, DOC_TIME);
}

static void doc_table_end(struct doc *d)
{
	doc_raw(d, d->fmt == LT_REPORT_HTML ? "</table>\n" : "\n");
}

static void doc_base64(struct lt_buf *b, const char *s, size_t len)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned char)s[i] << 16;
		size_t n = len - i < 3 ? len - i : 3;

		v |= n > 1 ? (unsigned)(unsigned char)s[i + 1] << 8 : 0;
		v |= n > 2 ? (unsigned)(unsigned char)s[i + 2] : 0;
		lt_buf_putc(b, tab[(v >> 18) & 63]);
		lt_buf_putc(b, tab[(v >> 12) & 63]);
		lt_buf_putc(b, n > 1 ? tab[(v >> 6) & 63] : '=');
		lt_buf_putc(b, n > 2 ? tab[v & 63] : '=');
	}
}

/* A picture: inline SVG in HTML, a data: image in Markdown. */
static void doc_svg(struct doc *d, const struct lt_buf *svg, const char *alt)
{
	if (d->fmt == LT_REPORT_HTML) {
		doc_raw(d, "<div class=\"svg\">\n");
		doc_raw(d, svg->ptr);
		doc_raw(d, "</div>\n");
		return;
	}
	doc_raw(d, "![");
	doc_str(d, alt);
	doc_raw(d, "](data:image/svg+xml;base64,");
	doc_base64(&d->b, svg->ptr, svg->len);
	doc_raw(d, ")\n\n");
}

/* ---- the sections -------------------------------------------------------------------- */

static const char doc_style[] =
    "body{font-family:sans-serif;margin:1.5em;color:#111827;max-width:1200px}"
    "table{border-collapse:collapse;font-size:13px;margin:0.5em 0 1.5em}"
    "th,td{border:1px solid #d1d5db;padding:2px 6px;text-align:left;vertical-align:top}"
    "th{background:#f3f4f6}td.t{white-space:nowrap;font-family:monospace}"
    "td.r{font-family:monospace;word-break:break-all;min-width:16em}"
    ".svg{overflow-x:auto;margin:0.5em 0}li{margin:0.2em 0}";

static void doc_begin(struct doc *d, const struct lt_report *r)
{
	char a[40], b[40];
	struct lt_buf line;

	if (d->fmt == LT_REPORT_HTML) {
		doc_raw(d, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			   "<title>leasetrail incident report</title>\n<style>");
		doc_raw(d, doc_style);
		doc_raw(d, "</style>\n</head>\n<body>\n");
	}
	doc_heading(d, 1, "Incident report");
	queries_report_time(a, sizeof a, r->from);
	queries_report_time(b, sizeof b, r->to);
	lt_buf_init(&line);
	lt_buf_printf(&line,
		      "From %s to %s (UTC), store %s: %zu finding%s. A table's Record column"
		      " names the file and line of the record a row rests on.",
		      a, b, r->store, r->nf + r->f_more, r->nf + r->f_more == 1 ? "" : "s");
	doc_para(d, line.ptr);
	lt_buf_release(&line);
}

static void doc_said(struct doc *d, const struct lt_report *r)
{
	doc_heading(d, 2, "What happened");
	doc_list(d, r->said, r->nsaid);
}

/* The strip as text, for a wiki that shows no data: image (Markdown only). */
static void doc_strip_text(struct doc *d, const struct lt_report *r)
{
	char a[40], b[40];

	if (r->nstrip == 0)
		return;
	queries_report_time(a, sizeof a, r->from);
	queries_report_time(b, sizeof b, r->to);
	lt_buf_printf(&d->b, "    %-44s %-*s%s\n", "", REPORT_STRIP_CELLS - 20, a, b);
	for (size_t i = 0; i < r->nstrip; i++) {
		struct lt_buf name;

		lt_buf_init(&name);
		lt_sanitize(&name, r->strip[i].node, strlen(r->strip[i].node));
		lt_buf_printf(&d->b, "    %-44.44s |", name.ptr);
		for (int k = 0; k < REPORT_STRIP_CELLS; k++)
			lt_buf_putc(&d->b, queries_report_cell_symbol(r->strip[i].cells[k]));
		doc_raw(d, "|\n");
		lt_buf_release(&name);
	}
	doc_raw(d, "\n");
}

static void doc_strip(struct doc *d, const struct lt_report *r)
{
	struct lt_buf svg, note;

	doc_heading(d, 2, "Heartbeats");
	lt_buf_init(&svg);
	queries_report_draw_strip(&svg, r);
	doc_svg(d, &svg, "Heartbeats: each node's lease over time");
	lt_buf_release(&svg);
	if (d->fmt == LT_REPORT_MD)
		doc_strip_text(d, r);
	lt_buf_init(&note);
	lt_buf_printf(&note,
		      "Each row is a node's lease: %c renewed, %c gap, %c NotReady, %c 404, %c"
		      " refused, %c deleted, %c gone, blank no data; a black mark is a deletion of"
		      " the Node.",
		      '=', '~', '!', 'x', 'A', 'D', '-');
	if (r->strip_more > 0)
		lt_buf_printf(&note, " %zu more node%s not drawn.", r->strip_more,
			      r->strip_more == 1 ? "" : "s");
	doc_para(d, note.ptr);
	lt_buf_release(&note);
}

static void doc_findings(struct doc *d, const struct lt_report *r)
{
	static const char *const heads[] = {"Time", "What",	     "Subject",
					    "Who",  "What happened", "Record"};
	struct lt_buf s;

	if (r->nf == 0)
		return;
	doc_heading(d, 2, "Findings");
	doc_table(d, heads, sizeof heads / sizeof *heads);
	lt_buf_init(&s);
	for (size_t i = 0; i < r->nf; i++) {
		const struct report_finding *f = &r->f[i];

		lt_buf_truncate(&s, 0);
		queries_report_say_one(&s, f);
		doc_row(d, 1);
		doc_cell_time(d, f->ts);
		doc_cell_str(d, queries_report_kind_name(f->kind), DOC_TEXT);
		doc_cell_str(d, f->subject, DOC_TEXT);
		doc_cell_str(d, f->actor, DOC_TEXT);
		doc_cell(d, s.ptr, s.len, DOC_TEXT);
		doc_cell_str(d, f->where, DOC_PLACE);
		doc_row(d, 0);
	}
	lt_buf_release(&s);
	doc_table_end(d);
	if (r->f_more > 0) {
		lt_buf_init(&s);
		lt_buf_printf(&s, "%zu more findings are not listed.", r->f_more);
		doc_para(d, s.ptr);
		lt_buf_release(&s);
	}
}

/* By actor, then time, then place in the findings (qsort is not stable). */
static int doc_by_actor(const void *a, const void *b)
{
	const struct report_finding *x = *(const struct report_finding *const *)a;
	const struct report_finding *y = *(const struct report_finding *const *)b;
	int c = strcmp(x->actor, y->actor);

	if (c != 0)
		return c;
	if (x->ts != y->ts)
		return (x->ts > y->ts) - (x->ts < y->ts);
	return (x > y) - (x < y);
}

static void doc_actors(struct doc *d, const struct lt_report *r)
{
	static const char *const heads[] = {"Who", "Identity", "Did", "To", "When", "Record"};
	const struct report_finding **idx = lt_xcalloc(r->nf ? r->nf : 1, sizeof *idx);
	size_t n = 0;

	for (size_t i = 0; i < r->nf; i++)
		if (r->f[i].actor != NULL)
			idx[n++] = &r->f[i];
	if (n > 0) {
		qsort(idx, n, sizeof *idx, doc_by_actor);
		doc_heading(d, 2, "Who did what");
		doc_table(d, heads, sizeof heads / sizeof *heads);
		for (size_t i = 0; i < n; i++) {
			const struct report_finding *f = idx[i];

			doc_row(d, 1);
			doc_cell_str(d, f->actor, DOC_TEXT);
			doc_cell_str(d, f->identity, DOC_TEXT);
			doc_cell_str(d, queries_report_kind_name(f->kind), DOC_TEXT);
			doc_cell_str(d, f->object, DOC_TEXT);
			doc_cell_time(d, f->ts);
			doc_cell_str(d, f->where, DOC_PLACE);
			doc_row(d, 0);
		}
		doc_table_end(d);
	}
	free(idx);
}

static void doc_timeline_rows(struct doc *d, const struct report_subject *sj)
{
	static const char *const heads[] = {"Start", "End",    "Source", "Kind",
					    "Count", "Detail", "Record"};
	size_t n = sj->rows.nrows < REPORT_MAX_ROWS ? sj->rows.nrows : REPORT_MAX_ROWS;

	doc_table(d, heads, sizeof heads / sizeof *heads);
	for (size_t i = 0; i < n; i++) {
		doc_row(d, 1);
		for (int c = LT_TL_START; c < LT_TL_NCOLS; c++) {
			const struct lt_cell *cell = lt_rows_cell(&sj->rows, i, c);
			char buf[LT_CELL_BUF];
			size_t len = 0;
			const char *s = lt_cell_format(cell, LT_OUT_TABLE, buf, sizeof buf, &len);

			doc_cell(d, s, s ? len : 0,
				 c == LT_TL_START || c == LT_TL_END ? DOC_TIME : DOC_TEXT);
		}
		doc_cell_str(d, sj->where[i], DOC_PLACE);
		doc_row(d, 0);
	}
	doc_table_end(d);
}

static void doc_subject(struct doc *d, const struct lt_report *r, size_t i)
{
	const struct report_subject *sj = &r->subj[i];
	struct lt_buf s, svg;

	lt_buf_init(&s);
	lt_buf_printf(&s, "Timeline of %s", sj->target);
	doc_heading(d, 2, s.ptr);
	lt_buf_init(&svg);
	queries_report_draw_timeline(&svg, r, i);
	doc_svg(d, &svg, s.ptr);
	lt_buf_release(&svg);
	if (sj->rows.nrows == 0) {
		doc_para(d, "No rows in the time range.");
	} else {
		doc_timeline_rows(d, sj);
	}
	if (sj->rows.nrows > REPORT_MAX_ROWS) {
		lt_buf_truncate(&s, 0);
		lt_buf_printf(&s, "%zu more rows: leasetrail timeline %s.",
			      sj->rows.nrows - REPORT_MAX_ROWS, sj->target);
		doc_para(d, s.ptr);
	}
	lt_buf_release(&s);
}

static void doc_end(struct doc *d, const struct lt_report *r)
{
	struct lt_buf s;

	lt_buf_init(&s);
	if (r->subj_more > 0) {
		lt_buf_printf(&s,
			      "%zu more subjects the findings name have no timeline here: name them"
			      " on the command line (leasetrail report NODE|NAMESPACE/LEASE...).",
			      r->subj_more);
		doc_para(d, s.ptr);
	}
	lt_buf_release(&s);
	if (d->fmt == LT_REPORT_HTML)
		doc_raw(d, "</body>\n</html>\n");
}

int lt_report_write(const struct lt_report *r, enum lt_report_format fmt, FILE *f,
		    struct lt_error *err)
{
	struct doc d = {.fmt = fmt, .f = f};

	lt_buf_init(&d.b);
	doc_begin(&d, r);
	doc_said(&d, r);
	doc_strip(&d, r);
	doc_findings(&d, r);
	doc_actors(&d, r);
	for (size_t i = 0; i < r->nsubj; i++)
		doc_subject(&d, r, i);
	doc_end(&d, r);
	doc_flush(&d);
	lt_buf_release(&d.b);
	if (!d.failed && fflush(f) != 0)
		d.failed = errno ? errno : EIO;
	/* a reader that went away (SIGPIPE ignored) has read enough: no failure */
	if (d.failed && d.failed != EPIPE)
		return lt_error_set(err, LT_ERR_IO, "cannot write the output: %s",
				    strerror(d.failed));
	if (d.failed)
		clearerr(f);
	return 0;
}
