/*
 * tui-queries.c - the canned queries: pick one, set its options (--since,
 * --until, --gap, --slow), and browse its result as a table; Enter on a row
 * opens the timeline of the node or lease it is about, at its time.
 *
 * Three panes, Tab from one to the next: the list of queries, the options,
 * the result.  The result is the typed rows `query` prints, each cell
 * formatted as `query` formats it for a table when it is drawn.
 */
#include "tui-int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { Q_LIST, Q_OPTIONS, Q_RESULT };
enum { Q_EDIT = 1, Q_SEARCH };

#define Q_NOPTS	 4
#define Q_LIST_W 22
#define Q_COL_W	 48 /* the widest a result column gets */

static const char *const q_opt_names[Q_NOPTS] = {"since", "until", "gap", "slow"};
static const char *const q_opt_help[Q_NOPTS] = {
    "RFC 3339, or a duration back from the newest event (2h, 30m)", "likewise",
    "a GAP is a wait between renews longer than this (40s, 2m)",
    "a renew slower than this is SLOW (default 1s)"};

struct queries {
	struct tui_screen base;
	const struct lt_canned *list;
	struct tui_win qwin;
	int pane, opt;
	char opts[Q_NOPTS][64];
	struct lt_rows res;
	int have_res;
	const char *res_name;
	int *widths;
	struct tui_win rwin;
	int col0; /* the first result column shown */
	struct lt_regex *search_re;
	unsigned tfmt;		  /* tui_time_rows: a time cell reads as in the timeline */
	struct tui_filter filter; /* f on the result: "row", then the result's own columns */
	const char **fcols;
	int nfcols;
	int res_y; /* the screen line of the result's first row (clicks) */
};

static void q_filter_rows(struct queries *q);

/* The options as `query` takes them; 0, or a status message and -1. */
static int q_options(struct tui *t, struct queries *q, struct lt_query_opts *o)
{
	int64_t end = lt_store_end_us(t->st);

	memset(o, 0, sizeof *o);
	if ((q->opts[0][0] && lt_time_arg(&o->since_us, q->opts[0], end) != 0) ||
	    (q->opts[1][0] && lt_time_arg(&o->until_us, q->opts[1], end) != 0)) {
		tui_status(t, TUI_ERROR, "since/until take RFC 3339 or a duration like 2h");
		return -1;
	}
	if ((q->opts[2][0] && lt_duration_parse(&o->gap_us, q->opts[2]) != 0) ||
	    (q->opts[3][0] && lt_duration_parse(&o->slow_us, q->opts[3]) != 0)) {
		tui_status(t, TUI_ERROR, "a duration is like 40s, 2m, 1h30m or 500ms");
		return -1;
	}
	return 0;
}

/*
 * Row r's cell of column c as a table shows it ("" for none), a time as every
 * screen writes one (tui_time_rows); buf holds it when formatted.
 */
static const char *q_cell(const struct queries *q, size_t r, int c, char *buf, size_t size)
{
	const struct lt_cell *cell = lt_rows_cell(&q->res, r, c);
	size_t len;
	const char *v;

	if (cell->type == LT_CELL_TIME) {
		tui_fmt_time(buf, size, cell->i, q->tfmt);
		return buf;
	}
	v = lt_cell_format(cell, LT_OUT_TABLE, buf, size, &len);

	return v ? v : "";
}

/* Columns s takes as tui_put draws it: cells are raw log text, "\x01" is 4 columns. */
static int q_cell_width(struct lt_buf *b, const char *s)
{
	int w;

	tui_safe(b, s, strlen(s), Q_COL_W, &w);
	return w;
}

static void q_widths(struct queries *q)
{
	struct lt_buf b;

	free(q->widths);
	q->widths = lt_xcalloc((size_t)(q->res.ncols ? q->res.ncols : 1), sizeof *q->widths);
	lt_buf_init(&b);
	for (int c = 0; c < q->res.ncols; c++) {
		q->widths[c] = q_cell_width(&b, q->res.cols[c].name);
		for (size_t r = 0; r < q->res.nrows; r++) {
			char buf[LT_CELL_BUF];
			int w = q_cell_width(&b, q_cell(q, r, c, buf, sizeof buf));

			q->widths[c] = w > q->widths[c] ? w : q->widths[c];
		}
	}
	lt_buf_release(&b);
}

static void q_run(struct tui *t, struct queries *q)
{
	const char *name = q->list[q->qwin.cur].name;
	struct lt_error err = {0};
	struct lt_query_opts o;

	if (q_options(t, q, &o) != 0)
		return;
	q->have_res = 0;
	if (q->res_name == NULL || strcmp(q->res_name, name) != 0)
		tui_filter_release(&q->filter); /* another query: other columns */
	lt_rows_release(&q->res);
	if (lt_browse_canned(&q->res, t->st, name, &o, &err) != 0) {
		tui_status(t, TUI_ERROR, "%s", err.msg);
		return;
	}
	q_filter_rows(q);
	q->have_res = 1;
	q->res_name = name;
	q->tfmt = tui_time_rows(t->first_us, t->last_us);
	q->col0 = 0;
	q->rwin = (struct tui_win){.total = q->res.nrows, .height = q->rwin.height};
	q_widths(q);
	q->pane = Q_RESULT;
	tui_status(t, TUI_INFO, "%s: %zu %s%s", name, q->res.nrows,
		   q->res.nrows == 1 ? "row" : "rows",
		   !q->filter.n	       ? ""
		   : q->res.nrows == 1 ? " passes the filter"
				       : " pass the filter");
}

static void q_draw_list(struct queries *q, int y0, int h, int cols)
{
	q->qwin.height = (size_t)h;
	tui_win_fix(&q->qwin);
	for (size_t k = 0; k < q->qwin.height && q->qwin.top + k < q->qwin.total; k++) {
		size_t i = q->qwin.top + k;
		int sel = i == q->qwin.cur ? (q->pane == Q_LIST ? TUI_SEL : TUI_S_HEADING) : 0;

		tui_fill(y0 + (int)k, 0, Q_LIST_W, sel);
		tui_put(y0 + (int)k, 0, Q_LIST_W < cols ? Q_LIST_W : cols, sel, q->list[i].name);
	}
}

static void q_draw_options(struct queries *q, int y0, int h, int x, int cols)
{
	char line[256];
	int y = y0;

	for (int i = 0; i < Q_NOPTS && y < y0 + h; i++, y++) {
		int sel = q->pane == Q_OPTIONS && q->opt == i ? TUI_SEL : 0;

		snprintf(line, sizeof line, "%-6s %-20s %s", q_opt_names[i],
			 q->opts[i][0] ? q->opts[i] : "-", q_opt_help[i]);
		tui_put(y, x, cols - x, TUI_S_NORMAL | sel, line);
	}
	if (y + 1 < y0 + h && q->qwin.cur < q->qwin.total)
		tui_put(y + 1, x, cols - x, TUI_S_DIM, q->list[q->qwin.cur].summary);
	if (y + 2 < y0 + h)
		tui_put(y + 2, x, cols - x, TUI_S_DIM,
			"Enter on a query runs it; Enter on an option edits it; Tab: next pane");
}

/* The result's header and visible rows, from column col0 on. */
static void q_draw_result(struct queries *q, int y0, int h, int cols)
{
	q->rwin.height = h > 1 ? (size_t)(h - 1) : 1;
	tui_win_fix(&q->rwin);
	tui_draw_header(y0, cols, "");
	q->res_y = y0 + 1;
	for (int c = q->col0, x = 0; c < q->res.ncols && x < cols; c++) {
		char name[64];

		/* column names in capitals, as the timeline and the cluster list write theirs */
		snprintf(name, sizeof name, "%s", q->res.cols[c].name);
		for (char *p = name; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		tui_put(y0, x, q->widths[c] < cols - x ? q->widths[c] : cols - x, TUI_S_HEADER,
			name);
		x += q->widths[c] + 2;
	}
	for (size_t k = 0; k < q->rwin.height && q->rwin.top + k < q->res.nrows; k++) {
		size_t r = q->rwin.top + k;
		int sel = q->pane == Q_RESULT && r == q->rwin.cur ? TUI_SEL : 0,
		    y = y0 + 1 + (int)k;

		tui_fill(y, 0, cols, sel);
		for (int c = q->col0, x = 0; c < q->res.ncols && x < cols; c++) {
			char buf[LT_CELL_BUF];

			tui_put(y, x, q->widths[c] < cols - x ? q->widths[c] : cols - x,
				TUI_S_NORMAL | sel, q_cell(q, r, c, buf, sizeof buf));
			x += q->widths[c] + 2;
		}
	}
	if (q->res.nrows == 0)
		tui_put(y0 + 1, 0, cols, TUI_S_DIM,
			q->filter.n ? "no row passes the filter (f, Enter: all)" : "no rows");
}

static void q_draw(struct tui *t, struct tui_screen *s, int y0, int h, int cols)
{
	struct queries *q = (struct queries *)s;
	int top_h = (int)q->qwin.total + 1 < h / 2 ? (int)q->qwin.total + 1 : h / 2;
	char head[256];

	(void)t;
	snprintf(head, sizeof head, "%-*s%s", Q_LIST_W + 1, q->pane == Q_LIST ? ">QUERY" : " QUERY",
		 q->pane == Q_OPTIONS ? ">OPTIONS" : " OPTIONS");
	tui_draw_header(y0, cols, head);
	q_draw_list(q, y0 + 1, top_h - 1, cols);
	q_draw_options(q, y0 + 1, top_h - 1, Q_LIST_W + 1, cols);
	if (q->have_res)
		q_draw_result(q, y0 + top_h, h - top_h, cols);
	else
		tui_put(y0 + top_h + 1, 0, cols, TUI_S_DIM, "no query run yet");
}

/*
 * What each canned query's rows are about in a timeline, so that Enter lands
 * on that row and not on another that overlaps it in time; a query whose
 * rows name their kind says so with log_kind_col.
 */
static const struct {
	const char *query;
	enum lt_episode_kind kind, also;
	const char *log_kind_col; /* a TEXT column holding a log line's kind */
} q_about[] = {
    {.query = "orphaned-kubelets", .kind = LT_EP_NOT_FOUND},
    {.query = "who-deleted", .kind = LT_EP_NODE_DELETED, .also = LT_EP_DELETED},
    {.query = "gc-deletes", .kind = LT_EP_DELETED},
    {.query = "recreations", .kind = LT_EP_RECREATED},
    {.query = "auth-failures", .kind = LT_EP_AUTH_FAILURE},
    {.query = "leader-changes", .kind = LT_EP_HOLDER_CHANGE},
    {.query = "slow-renewals", .kind = LT_EP_SLOW},
    {.query = "renew-gaps", .kind = LT_EP_GAP},
    {.query = "node-registrations",
     .kind = LT_EP_NODE_REGISTERED,
     .also = LT_EP_NODE_REGISTER_FAILED},
    {.query = "not-ready", .kind = LT_EP_NOT_READY},
    {.query = "kubelet-errors", .log_kind_col = "kind"},
};

/* What row r of the result of query name is about (nothing said: LT_EP_NONE). */
static struct tui_about q_row_about(const struct queries *q, size_t r)
{
	struct tui_about a = {LT_EP_NONE, LT_EP_NONE, NULL};

	for (size_t i = 0; i < sizeof q_about / sizeof *q_about; i++) {
		const struct lt_cell *c;

		if (strcmp(q_about[i].query, q->res_name) != 0)
			continue;
		a.kind = q_about[i].kind;
		a.also = q_about[i].also ? q_about[i].also : q_about[i].kind;
		if (q_about[i].log_kind_col != NULL) {
			c = lt_rows_cell(&q->res, r, lt_rows_col(&q->res, q_about[i].log_kind_col));
			a.log_kind = c->type == LT_CELL_TEXT ? c->s : NULL;
		}
	}
	return a;
}

static void q_jump(struct tui *t, struct queries *q)
{
	struct tui_about about;
	char *target;

	if (!q->have_res || q->rwin.cur >= q->res.nrows)
		return;
	target = tui_result_target(&q->res, q->rwin.cur);
	if (target == NULL) {
		tui_status(t, TUI_ERROR, "this row names no node or lease");
		return;
	}
	about = q_row_about(q, q->rwin.cur);
	tui_push(t, tui_timeline_new(t, target, tui_result_time(&q->res, q->rwin.cur), &about));
	free(target);
}

static int q_row_matches(struct queries *q, size_t r)
{
	for (int c = 0; c < q->res.ncols; c++) {
		char buf[LT_CELL_BUF];
		const char *v = q_cell(q, r, c, buf, sizeof buf);

		if (lt_regex_match(q->search_re, v, strlen(v)))
			return 1;
	}
	return 0;
}

/* In the list pane: the next query whose name or summary matches. */
static void q_search_list(struct tui *t, struct queries *q, enum lt_browse_dir dir)
{
	size_t n = q->qwin.total;

	for (size_t k = 1; k <= n; k++) {
		size_t i =
		    dir == LT_BROWSE_BACKWARD ? (q->qwin.cur + n - k) % n : (q->qwin.cur + k) % n;
		const char *name = q->list[i].name, *sum = q->list[i].summary;

		if (lt_regex_match(q->search_re, name, strlen(name)) ||
		    lt_regex_match(q->search_re, sum, strlen(sum))) {
			tui_win_goto(&q->qwin, i);
			return;
		}
	}
	tui_status(t, TUI_ERROR, "pattern not found");
}

static void q_search(struct tui *t, struct queries *q, enum lt_browse_dir dir)
{
	size_t n = q->res.nrows;

	if (q->search_re != NULL && q->pane == Q_LIST) {
		q_search_list(t, q, dir);
		return;
	}

	if (q->search_re == NULL || !q->have_res) {
		tui_status(t, TUI_INFO, "no search yet: run a query, then /");
		return;
	}
	for (size_t k = 1; k <= n; k++) {
		size_t r =
		    dir == LT_BROWSE_BACKWARD ? (q->rwin.cur + n - k) % n : (q->rwin.cur + k) % n;

		if (q_row_matches(q, r)) {
			q->pane = Q_RESULT;
			tui_win_goto(&q->rwin, r);
			return;
		}
	}
	tui_status(t, TUI_ERROR, "pattern not found");
}

static void q_prompted(struct tui *t, struct tui_screen *s, int what, const char *text)
{
	struct queries *q = (struct queries *)s;
	struct lt_regex *re;

	if (what == Q_EDIT) {
		snprintf(q->opts[q->opt], sizeof q->opts[q->opt], "%s", text);
		return;
	}
	if (text[0] == '\0' || (re = tui_regex(t, text)) == NULL)
		return;
	lt_regex_free(q->search_re);
	q->search_re = re;
	q_search(t, q, LT_BROWSE_FORWARD);
}

static int q_move(struct queries *q, enum tui_action a)
{
	struct tui_win ow = {.total = Q_NOPTS, .cur = (size_t)q->opt, .height = Q_NOPTS};

	if (q->pane == Q_LIST)
		return tui_win_apply(&q->qwin, a);
	if (q->pane == Q_RESULT)
		return tui_win_apply(&q->rwin, a);
	if (!tui_win_apply(&ow, a))
		return 0;
	q->opt = (int)ow.cur;
	return 1;
}

static int q_enter(struct tui *t, struct queries *q)
{
	char label[32];

	if (q->pane == Q_LIST) {
		q_run(t, q);
	} else if (q->pane == Q_OPTIONS) {
		snprintf(label, sizeof label, "%s: ", q_opt_names[q->opt]);
		tui_prompt(t, Q_EDIT, label, q->opts[q->opt]);
	} else {
		q_jump(t, q);
	}
	return 1;
}

static int q_action(struct tui *t, struct tui_screen *s, enum tui_action a)
{
	struct queries *q = (struct queries *)s;

	if (q_move(q, a))
		return 1;
	switch (a) {
	case TUI_A_ENTER:
		return q_enter(t, q);
	case TUI_A_TAB:
		q->pane = (q->pane + 1) % 3;
		if (q->pane == Q_RESULT && !q->have_res)
			q->pane = Q_LIST;
		return 1;
	case TUI_A_LEFT:
		q->col0 = q->col0 > 0 ? q->col0 - 1 : 0;
		return 1;
	case TUI_A_RIGHT:
		q->col0 = q->col0 + 1 < q->res.ncols ? q->col0 + 1 : q->col0;
		return 1;
	case TUI_A_SEARCH:
		tui_prompt(t, Q_SEARCH, "/", NULL);
		return 1;
	case TUI_A_NEXT:
	case TUI_A_PREV:
		q_search(t, q, a == TUI_A_PREV ? LT_BROWSE_BACKWARD : LT_BROWSE_FORWARD);
		return 1;
	default:
		return 0;
	}
}

static void q_reload(struct tui *t, struct tui_screen *s)
{
	struct queries *q = (struct queries *)s;
	size_t cur = q->rwin.cur;
	int pane = q->pane;

	if (!q->have_res)
		return;
	q_run(t, q);
	q->pane = pane;
	tui_win_goto(&q->rwin, cur);
}

static void q_free(struct tui_screen *s)
{
	struct queries *q = (struct queries *)s;

	lt_rows_release(&q->res);
	lt_regex_free(q->search_re);
	tui_filter_release(&q->filter);
	free(q->fcols);
	free(q->widths);
	free(q);
}

/* ---- the tools: f, m, e, y, :goto, clicks on the result ------------------ */

#define Q_ROW_TEXT 4096 /* a result row in words, as f's "row", marks and exports take it */

/* Row r of the result in words: its cells as a table shows them, two spaces apart. */
static void q_row_text(const struct queries *q, size_t r, char *out, size_t size)
{
	size_t at = 0;

	out[0] = '\0';
	for (int c = 0; c < q->res.ncols && at + 1 < size; c++) {
		char buf[LT_CELL_BUF];

		snprintf(out + at, size - at, "%s%s", c ? "  " : "",
			 q_cell(q, r, c, buf, sizeof buf));
		at += strlen(out + at);
	}
}

struct q_fctx {
	const struct queries *q;
	size_t r;
	char row[Q_ROW_TEXT];
};

static const char *q_fvalue(int col, char *buf, size_t size, void *ctx)
{
	struct q_fctx *c = ctx;

	if (col == 0) {
		q_row_text(c->q, c->r, c->row, sizeof c->row);
		return c->row;
	}
	return q_cell(c->q, c->r, col - 1, buf, size);
}

static int q_keep(const struct lt_rows *rows, size_t r, void *ctx)
{
	struct q_fctx *c = lt_xcalloc(1, sizeof *c);
	int keep;

	(void)rows;
	c->q = ctx, c->r = r;
	keep = tui_filter_match(&c->q->filter, q_fvalue, c);
	free(c);
	return keep;
}

/* The names f takes ("row", then the result's columns), and the filter applied. */
static void q_filter_rows(struct queries *q)
{
	free(q->fcols);
	q->nfcols = q->res.ncols + 1;
	q->fcols = lt_xcalloc((size_t)q->nfcols, sizeof *q->fcols);
	q->fcols[0] = "row";
	for (int c = 0; c < q->res.ncols; c++)
		q->fcols[c + 1] = q->res.cols[c].name;
	if (q->filter.n > 0)
		tui_rows_keep(&q->res, q_keep, q);
}

static void q_filter(struct tui *t, struct tui_screen *s, const char *text)
{
	struct queries *q = (struct queries *)s;

	if (!q->have_res) {
		tui_status(t, TUI_ERROR, "f filters a query's result: run one first (Enter)");
		return;
	}
	if (!tui_filter_set(t, &q->filter, text, q->fcols, q->nfcols))
		return;
	q_run(t, q);
}

static const char *q_filter_text(struct tui_screen *s)
{
	return ((struct queries *)s)->filter.text;
}

static void q_result_row(const struct queries *q, size_t r, struct tui_row *out)
{
	const struct lt_cell *kind = lt_rows_cell(&q->res, r, lt_rows_col(&q->res, "kind"));
	struct tui_about a = q_row_about(q, r);
	char *text = lt_xmalloc(Q_ROW_TEXT), buf[LT_CELL_BUF];
	size_t len;
	const char *what = lt_cell_format(kind, LT_OUT_TABLE, buf, sizeof buf, &len);

	q_row_text(q, r, text, Q_ROW_TEXT);
	*out = (struct tui_row){
	    .kind = TUI_ROW_RESULT,
	    .subject = tui_result_target(&q->res, r),
	    .source = lt_xstrdup(q->res_name),
	    .at_us = tui_result_time(&q->res, r),
	    .what = what ? lt_xstrndup(what, len) : NULL,
	    .text = text,
	    .about = a,
	};
	out->about.log_kind = a.log_kind ? lt_xstrdup(a.log_kind) : NULL;
}

static int q_row_get(struct tui *t, struct tui_screen *s, struct tui_row *out)
{
	struct queries *q = (struct queries *)s;

	(void)t;
	if (!q->have_res || q->pane != Q_RESULT || q->rwin.cur >= q->res.nrows)
		return -1;
	q_result_row(q, q->rwin.cur, out);
	return 0;
}

static int q_each(struct tui *t, struct tui_screen *s,
		  int (*emit)(const struct tui_row *r, void *ctx), void *ctx)
{
	struct queries *q = (struct queries *)s;

	if (!q->have_res) {
		tui_status(t, TUI_ERROR, "no result to export: run a query first (Enter)");
		return -1;
	}
	for (size_t r = 0; r < q->res.nrows; r++) {
		struct tui_row row;
		int rc;

		q_result_row(q, r, &row);
		rc = emit(&row, ctx);
		tui_row_release(&row);
		if (rc != 0)
			return -1;
	}
	return 0;
}

static void q_goto_time(struct tui *t, struct tui_screen *s, int64_t at_us)
{
	struct queries *q = (struct queries *)s;
	size_t best = 0;
	uint64_t best_d = UINT64_MAX;

	if (!q->have_res) {
		tui_status(t, TUI_ERROR, "goto moves in a query's result: run one first (Enter)");
		return;
	}
	for (size_t r = 0; r < q->res.nrows; r++) {
		int64_t v = tui_result_time(&q->res, r);
		uint64_t d =
		    v > at_us ? (uint64_t)v - (uint64_t)at_us : (uint64_t)at_us - (uint64_t)v;

		if (v != 0 && d < best_d)
			best = r, best_d = d;
	}
	q->pane = Q_RESULT;
	tui_win_goto(&q->rwin, best);
}

static void q_click(struct tui *t, struct tui_screen *s, int y)
{
	struct queries *q = (struct queries *)s;

	(void)t;
	if (q->have_res && y >= q->res_y && q->rwin.top + (size_t)(y - q->res_y) < q->res.nrows) {
		q->pane = Q_RESULT;
		tui_win_goto(&q->rwin, q->rwin.top + (size_t)(y - q->res_y));
	}
}

static const struct tui_screen_ops queries_ops = {
    .name = "Queries",
    .ctx = TUI_CTX_QUERIES,
    .draw = q_draw,
    .action = q_action,
    .prompted = q_prompted,
    .reload = q_reload,
    .free = q_free,
    .row = q_row_get,
    .each = q_each,
    .filter = q_filter,
    .filter_text = q_filter_text,
    .goto_time = q_goto_time,
    .click = q_click,
};

struct tui_screen *tui_queries_new(struct tui *t)
{
	struct queries *q = lt_xcalloc(1, sizeof *q);

	(void)t;
	q->base.ops = &queries_ops;
	q->list = lt_canned_list();
	while (q->list[q->qwin.total].name != NULL)
		q->qwin.total++;
	return &q->base;
}
