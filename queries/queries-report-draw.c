/*
 * queries-report-draw.c - the report's pictures: the cluster's heartbeat strip
 * and a subject's timeline, as SVG (queries-svg.c writes the elements).
 *
 * The strip is the TUI's cluster strip: one row per node, the time range
 * cut into REPORT_STRIP_CELLS buckets, each the strongest thing its lease
 * did then (renewed, gap, NotReady, 404, refused, deleted, gone), runs of
 * one cell drawn as one rectangle with a tooltip; the Node's deletes are
 * black marks.  A timeline is one lane per source (lease, Node object,
 * node health, logs) with one bar per row, coloured by the kind's tone.
 */
#include "queries-report.h"

#include <string.h>

#define DRAW_WIDTH     980
#define DRAW_LABEL_W   250 /* the strip's node names */
#define DRAW_LANE_W    90  /* the timeline's lane names */
#define DRAW_ROW_H     14
#define DRAW_ROW_GAP   4
#define DRAW_TOP       26 /* the axis */
#define DRAW_BOTTOM    34 /* the legend */
#define DRAW_TICKS     6
#define DRAW_NAME_MAX  40  /* bytes of a name drawn as a label */
#define DRAW_TITLE_MAX 300 /* bytes of a detail in a tooltip */

/* ---- cells (the TUI's, tui-view.c) ------------------------------------------- */

static const struct {
	char symbol;
	const char *name, *fill;
} draw_cells[REPORT_C_COUNT] = {
    [REPORT_C_NONE] = {' ', "no data", "#f3f4f6"},
    [REPORT_C_GONE] = {'-', "gone", "#d1d5db"},
    [REPORT_C_RENEWED] = {'=', "renewed", "#22c55e"},
    [REPORT_C_GAP] = {'~', "gap", "#f59e0b"},
    [REPORT_C_NOT_READY] = {'!', "NotReady", "#1d4ed8"},
    [REPORT_C_404] = {'x', "404", "#a21caf"},
    [REPORT_C_AUTH] = {'A', "refused", "#ea580c"},
    [REPORT_C_DELETED] = {'D', "deleted", "#dc2626"},
};

enum report_cell queries_report_cell(enum lt_episode_kind k)
{
	static const enum report_cell of_strip[] = {
	    [LT_STRIP_NONE] = REPORT_C_NONE,
	    [LT_STRIP_RENEWED] = REPORT_C_RENEWED,
	    [LT_STRIP_GAP] = REPORT_C_GAP,
	    [LT_STRIP_404] = REPORT_C_404,
	    [LT_STRIP_AUTH] = REPORT_C_AUTH,
	    [LT_STRIP_DELETED] = REPORT_C_DELETED,
	    [LT_STRIP_NOT_READY] = REPORT_C_NOT_READY,
	    [LT_STRIP_HOLDER] = REPORT_C_RENEWED, /* the report's strips mark no holder */
	};

	return of_strip[lt_episode_kind_info(k)->strip];
}

char queries_report_cell_symbol(enum report_cell c)
{
	return c < REPORT_C_COUNT ? draw_cells[c].symbol : '?';
}

const char *queries_report_cell_name(enum report_cell c)
{
	return c < REPORT_C_COUNT ? draw_cells[c].name : "?";
}

/* The bucket holding time t, clamped into [0, n). */
static int draw_bucket_of(int64_t t, int n, int64_t from, int64_t to)
{
	int64_t span = to - from, i;

	if (t <= from || span <= 0)
		return 0;
	if (t >= to)
		return n - 1;
	i = (int64_t)((double)(t - from) * n / (double)span);
	return i >= n ? n - 1 : (int)i;
}

static void draw_mark(unsigned char *cells, int n, int64_t from, int64_t to, int64_t s, int64_t e,
		      enum report_cell c)
{
	if (e < from || s > to || e < s)
		return;
	for (int i = draw_bucket_of(s, n, from, to), last = draw_bucket_of(e, n, from, to);
	     i <= last; i++)
		if (cells[i] < c)
			cells[i] = (unsigned char)c;
}

void queries_report_bucket(unsigned char *cells, int ncells, int64_t from, int64_t to,
			   const struct lt_browse_episode *eps, size_t n)
{
	memset(cells, REPORT_C_NONE, (size_t)ncells);
	for (size_t i = 0; i < n; i++) {
		enum report_cell c = queries_report_cell(eps[i].kind);

		draw_mark(cells, ncells, from, to, eps[i].start_us, eps[i].end_us, c);
		if (c == REPORT_C_DELETED) /* gone until its next episode (or the end) */
			draw_mark(cells, ncells, from, to, eps[i].start_us,
				  i + 1 < n ? eps[i + 1].start_us - 1 : to, REPORT_C_GONE);
	}
}

/* ---- shared pieces ------------------------------------------------------------------- */

/* A label of at most DRAW_NAME_MAX bytes, cut at a character boundary, "…" when cut. */
static void draw_name(char *buf, size_t size, const char *s)
{
	size_t len = strlen(s);

	if (len <= DRAW_NAME_MAX || size < DRAW_NAME_MAX + 4) {
		snprintf(buf, size, "%s", s);
		return;
	}
	len = DRAW_NAME_MAX;
	while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
		len--;
	snprintf(buf, size, "%.*s\xe2\x80\xa6", (int)len, s);
}

/* An axis label: the time of day, or the date and minute when the range is over a day. */
static void draw_tick_label(char *buf, size_t size, int64_t us, int64_t span)
{
	char t[40];

	lt_time_format(t, sizeof t, us);
	if (span > 86400LL * 1000000)
		snprintf(buf, size, "%.5s %.5s", t + 5, t + 11);
	else
		snprintf(buf, size, "%.8s", t + 11);
}

static double draw_x(int64_t t, int64_t from, int64_t to, double x0, double w)
{
	if (t <= from)
		return x0;
	if (t >= to)
		return x0 + w;
	return x0 + w * (double)(t - from) / (double)(to - from);
}

static void draw_axis(struct svg *s, int64_t from, int64_t to, double x0, double w, double y_end)
{
	char label[40];

	for (int i = 0; i <= DRAW_TICKS; i++) {
		double x = x0 + w * i / DRAW_TICKS;
		int64_t t = from + (int64_t)((double)(to - from) * i / DRAW_TICKS);

		queries_svg_line(s, x, DRAW_TOP - 6, x, y_end, "#e5e7eb");
		draw_tick_label(label, sizeof label, t, to - from);
		queries_svg_text(s, x, DRAW_TOP - 10, 10,
				 i == 0		   ? "start"
				 : i == DRAW_TICKS ? "end"
						   : "middle",
				 "#374151", label);
	}
}

/* The legend of cells first..last along the bottom. */
static void draw_legend(struct svg *s, const int *cells, size_t n)
{
	double x = 8, y = s->height - 14;

	for (size_t i = 0; i < n; i++) {
		queries_svg_rect(s, x, y - 9, 10, 10, draw_cells[cells[i]].fill, NULL);
		queries_svg_text(s, x + 14, y, 11, "start", "#111827", draw_cells[cells[i]].name);
		x += 24 + 7.0 * (double)strlen(draw_cells[cells[i]].name);
	}
}

/* ---- the heartbeat strip --------------------------------------------------------------- */

static void draw_strip_row(struct svg *s, const struct lt_report *r, const struct report_strip *st,
			   double y)
{
	double x0 = DRAW_LABEL_W, w = DRAW_WIDTH - DRAW_LABEL_W - 10;
	double cw = w / REPORT_STRIP_CELLS;
	char name[DRAW_NAME_MAX + 8], a[40], b[40];
	struct lt_buf title;

	draw_name(name, sizeof name, st->node);
	queries_svg_text(s, x0 - 6, y + DRAW_ROW_H - 3, 11, "end", "#111827", name);
	lt_buf_init(&title);
	for (int i = 0, j; i < REPORT_STRIP_CELLS; i = j) {
		int64_t t0 = r->from + (r->to - r->from) * i / REPORT_STRIP_CELLS, t1;

		for (j = i + 1; j < REPORT_STRIP_CELLS && st->cells[j] == st->cells[i]; j++)
			;
		t1 = r->from + (r->to - r->from) * j / REPORT_STRIP_CELLS;
		queries_report_time(a, sizeof a, t0);
		queries_report_time(b, sizeof b, t1);
		lt_buf_truncate(&title, 0);
		lt_buf_printf(&title, "%s: %s, %s to %s", st->node, draw_cells[st->cells[i]].name,
			      a, b);
		queries_svg_rect(s, x0 + cw * i, y, cw * (j - i), DRAW_ROW_H,
				 draw_cells[st->cells[i]].fill, title.ptr);
	}
	for (size_t k = 0; k < sizeof st->deleted / sizeof *st->deleted && st->deleted[k]; k++) {
		queries_report_time(a, sizeof a, st->deleted[k]);
		lt_buf_truncate(&title, 0);
		lt_buf_printf(&title, "%s: Node deleted at %s", st->node, a);
		queries_svg_rect(s, draw_x(st->deleted[k], r->from, r->to, x0, w) - 1, y - 2, 3,
				 DRAW_ROW_H + 4, "#000000", title.ptr);
	}
	lt_buf_release(&title);
}

void queries_report_draw_strip(struct lt_buf *b, const struct lt_report *r)
{
	static const int legend[] = {REPORT_C_RENEWED, REPORT_C_GAP,  REPORT_C_NOT_READY,
				     REPORT_C_404,     REPORT_C_AUTH, REPORT_C_DELETED,
				     REPORT_C_GONE,    REPORT_C_NONE};
	int rows = r->nstrip ? (int)r->nstrip : 1;
	int h = DRAW_TOP + rows * (DRAW_ROW_H + DRAW_ROW_GAP) + DRAW_BOTTOM;
	struct svg s;

	queries_svg_begin(&s, b, DRAW_WIDTH, h, "Heartbeats: each node's lease over time");
	draw_axis(&s, r->from, r->to, DRAW_LABEL_W, DRAW_WIDTH - DRAW_LABEL_W - 10,
		  h - DRAW_BOTTOM + 4);
	for (size_t i = 0; i < r->nstrip; i++)
		draw_strip_row(&s, r, &r->strip[i],
			       DRAW_TOP + (double)i * (DRAW_ROW_H + DRAW_ROW_GAP));
	if (r->nstrip == 0)
		queries_svg_text(&s, DRAW_LABEL_W, DRAW_TOP + DRAW_ROW_H - 3, 11, "start",
				 "#6b7280", "no node lease in the store");
	draw_legend(&s, legend, sizeof legend / sizeof *legend);
	queries_svg_text(&s, DRAW_WIDTH - 8, h - 14, 11, "end", "#111827", "| node deleted");
	queries_svg_rect(&s, DRAW_WIDTH - 98, h - 24, 3, 12, "#000000", NULL);
	queries_svg_end(&s);
}

/* ---- a subject's timeline ---------------------------------------------------------------- */

enum draw_lane { LANE_LEASE, LANE_NODE, LANE_HEALTH, LANE_LOGS, LANE_COUNT };

static const char *const draw_lane_names[LANE_COUNT] = {
    [LANE_LEASE] = "lease",
    [LANE_NODE] = "Node object",
    [LANE_HEALTH] = "node health",
    [LANE_LOGS] = "logs",
};

static const char *const draw_tone_fill[] = {
    [LT_TONE_NORMAL] = "#9ca3af",    [LT_TONE_OK] = "#22c55e",	 [LT_TONE_WARN] = "#f59e0b",
    [LT_TONE_NOT_FOUND] = "#a21caf", [LT_TONE_AUTH] = "#ea580c", [LT_TONE_DELETED] = "#dc2626",
    [LT_TONE_NOT_READY] = "#1d4ed8",
};

static enum draw_lane draw_lane(const struct lt_cell *kind)
{
	unsigned flags;

	if (kind->type != LT_CELL_KIND)
		return LANE_LOGS;
	if (kind->i == LT_EP_NOT_READY)
		return LANE_HEALTH;
	flags = lt_episode_kind_info((enum lt_episode_kind)kind->i)->flags;
	return flags & LT_EPF_NODE_OBJECT ? LANE_NODE : LANE_LEASE;
}

static const char *draw_fill(const struct lt_cell *kind)
{
	if (kind->type != LT_CELL_KIND)
		return "#6b7280";
	return draw_tone_fill[lt_episode_kind_info((enum lt_episode_kind)kind->i)->tone];
}

/* The span the rows cover (to the report's range when one was asked). */
static void draw_span(const struct lt_report *r, const struct lt_rows *t, size_t n, int64_t *from,
		      int64_t *to)
{
	*from = INT64_MAX;
	*to = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		int64_t s = lt_rows_cell(t, i, LT_TL_START)->i;
		const struct lt_cell *e = lt_rows_cell(t, i, LT_TL_END);

		*from = s < *from ? s : *from;
		*to = s > *to ? s : *to;
		*to = e->type == LT_CELL_TIME && e->i > *to ? e->i : *to;
	}
	if (n == 0)
		*from = r->from, *to = r->to;
	if (r->since && *from < r->since)
		*from = r->since;
	if (r->until && *to > r->until)
		*to = r->until;
	if (*to <= *from)
		*to = *from + 1000000;
}

static void draw_bar(struct svg *s, const struct lt_rows *t, size_t i, int64_t from, int64_t to,
		     struct lt_buf *title)
{
	double x0 = DRAW_LANE_W, w = DRAW_WIDTH - DRAW_LANE_W - 10;
	const struct lt_cell *kind = lt_rows_cell(t, i, LT_TL_KIND);
	const struct lt_cell *d = lt_rows_cell(t, i, LT_TL_DETAIL);
	const struct lt_cell *e = lt_rows_cell(t, i, LT_TL_END);
	int64_t start = lt_rows_cell(t, i, LT_TL_START)->i;
	int64_t end = e->type == LT_CELL_TIME ? e->i : start;
	double xs = draw_x(start, from, to, x0, w), xe = draw_x(end, from, to, x0, w);
	double y = DRAW_TOP + draw_lane(kind) * (DRAW_ROW_H + DRAW_ROW_GAP);
	char kbuf[LT_CELL_BUF], a[40];
	size_t klen;
	const char *k = lt_cell_format(kind, LT_OUT_TABLE, kbuf, sizeof kbuf, &klen);

	queries_report_time(a, sizeof a, start);
	lt_buf_truncate(title, 0);
	lt_buf_printf(title, "%.*s at %s: ", (int)klen, k ? k : "", a);
	lt_buf_append(title, d->s ? d->s : "", d->len < DRAW_TITLE_MAX ? d->len : DRAW_TITLE_MAX);
	queries_svg_rect(s, xs, y, xe - xs < 3 ? 3 : xe - xs, DRAW_ROW_H, draw_fill(kind),
			 title->ptr);
}

void queries_report_draw_timeline(struct lt_buf *b, const struct lt_report *r, size_t i)
{
	static const int legend[] = {REPORT_C_RENEWED, REPORT_C_GAP,  REPORT_C_NOT_READY,
				     REPORT_C_404,     REPORT_C_AUTH, REPORT_C_DELETED};
	const struct report_subject *sj = &r->subj[i];
	size_t n = sj->rows.nrows < REPORT_MAX_ROWS ? sj->rows.nrows : REPORT_MAX_ROWS;
	int h = DRAW_TOP + LANE_COUNT * (DRAW_ROW_H + DRAW_ROW_GAP) + DRAW_BOTTOM;
	int64_t from, to;
	struct lt_buf label, title;
	struct svg s;

	lt_buf_init(&label);
	lt_buf_init(&title);
	lt_buf_printf(&label, "Timeline of %s", sj->target);
	draw_span(r, &sj->rows, n, &from, &to);
	queries_svg_begin(&s, b, DRAW_WIDTH, h, label.ptr);
	draw_axis(&s, from, to, DRAW_LANE_W, DRAW_WIDTH - DRAW_LANE_W - 10, h - DRAW_BOTTOM + 4);
	for (int l = 0; l < LANE_COUNT; l++)
		queries_svg_text(&s, DRAW_LANE_W - 6,
				 DRAW_TOP + l * (DRAW_ROW_H + DRAW_ROW_GAP) + DRAW_ROW_H - 3, 11,
				 "end", "#111827", draw_lane_names[l]);
	for (size_t k = 0; k < n; k++)
		draw_bar(&s, &sj->rows, k, from, to, &title);
	draw_legend(&s, legend, sizeof legend / sizeof *legend);
	queries_svg_end(&s);
	lt_buf_release(&label);
	lt_buf_release(&title);
}
