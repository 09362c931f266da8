/*
 * tui-timeline.c - one lease's or node's timeline: its episodes merged with
 * its Node object's events, as `leasetrail timeline` tells them.  Enter on a
 * row opens a second pane with what is behind it, read a page at a time:
 * the requests of an episode, or the log lines of a row of log lines (each
 * with the file and line it was read from); Enter there shows one record.
 *
 * The rows are the typed cells `timeline` prints (enum lt_timeline_col):
 * times, counts and kinds are values, formatted here as they are drawn.
 */
#include "tui-int.h"

#include <stdlib.h>
#include <string.h>

/* wide enough for the log kinds (lease-update-fallback), not to starve DETAIL at 80 columns */
#define TL_KIND_W 22

enum { TL_SEARCH = 1 };

#define TL_EVENT_PAGE 512 /* events read per step of a search */

struct timeline {
	struct tui_screen base;
	char *target;
	struct lt_rows tl; /* columns enum lt_timeline_col */
	struct tui_win win;
	int expanded, focus; /* the events pane is open; it has the keys */
	size_t open_row;     /* the row whose events are shown */
	struct tui_win ewin;
	int pane_lines; /* the pane lists log lines (lns), not requests (evs) */
	struct lt_browse_events evs;
	struct lt_browse_lines lns;
	size_t evs_off;
	int evs_loaded;
	struct lt_regex *search_re;
	int64_t at_us;
	int hoff;      /* DETAIL scrolled left by this many columns (h, l) */
	int wrap;      /* w: the selected row's whole detail under the list, as tall as it needs */
	unsigned tfmt; /* tui_time_rows: how a time in a row reads */
	struct tui_filter lfilter, pfilter; /* f on the list, f on the pane */
	struct tl_hit *hits;		    /* the pane's records that pass pfilter */
	size_t nhits, hcap;
	int hits_capped;    /* more passed than TL_HITS_MAX */
	int list_y, pane_y; /* the screen lines of the list's and the pane's first rows (clicks) */
};

/* A record of the pane that passed its filter: what the pane shows and what Enter opens. */
struct tl_hit {
	struct tui_row row; /* row.text: the pane's line */
	int style;
};

#define TL_HITS_MAX 10000 /* a filtered pane keeps the first this many records that pass */

static void tl_filter_list(struct timeline *s);
static void tl_hits_release(struct timeline *s);
static int tl_pane_filtered(const struct timeline *s);

#define TL_HSTEP      16 /* columns h and l scroll DETAIL by */
#define TL_DETAIL_H   2	 /* lines of the selected row's detail under the list */
#define TL_WRAP_SHARE 2	 /* wrapped (w), the detail takes up to 1/TL_WRAP_SHARE of the body */

static void tl_load(struct tui *t, struct timeline *s)
{
	struct lt_error err = {0};

	if (lt_browse_timeline(&s->tl, t->st, s->target, &err) != 0)
		tui_status(t, TUI_ERROR, "%s", err.msg);
	tl_filter_list(s);
	s->win.total = s->tl.nrows;
	tui_win_fix(&s->win);
}

static const struct lt_cell *tl_cell(const struct timeline *s, size_t i, enum lt_timeline_col c)
{
	return lt_rows_cell(&s->tl, i, c);
}

/* A row made of log lines (kubelet, controller-manager...): its kind is the parser's, text. */
static int tl_is_log(const struct timeline *s, size_t i)
{
	return tl_cell(s, i, LT_TL_KIND)->type == LT_CELL_TEXT;
}

/* A row about the Node object, not its lease. */
static int tl_is_node(const struct timeline *s, size_t i)
{
	const struct lt_cell *k = tl_cell(s, i, LT_TL_KIND);

	return k->type == LT_CELL_KIND &&
	       (lt_episode_kind_info((enum lt_episode_kind)k->i)->flags & LT_EPF_NODE_OBJECT);
}

/* Whose requests the row stands for: the lease's or the Node object's. */
static enum lt_browse_object tl_object(const struct timeline *s, size_t i)
{
	return tl_is_node(s, i) ? LT_BROWSE_NODE_OBJECT : LT_BROWSE_LEASE;
}

/* The kind's name, and the style its row is drawn in. */
static const char *tl_kind_name(const struct timeline *s, size_t i)
{
	const struct lt_cell *k = tl_cell(s, i, LT_TL_KIND);

	return k->type == LT_CELL_KIND	 ? lt_episode_kind_name((enum lt_episode_kind)k->i)
	       : k->type == LT_CELL_TEXT ? k->s
					 : "";
}

static int tl_kind_style(const struct timeline *s, size_t i)
{
	const struct lt_cell *k = tl_cell(s, i, LT_TL_KIND);

	return k->type == LT_CELL_KIND ? (int)tui_kind_style((enum lt_episode_kind)k->i)
				       : TUI_S_NORMAL;
}

/* A text cell's text, "" for none. */
static const char *tl_text(const struct timeline *s, size_t i, enum lt_timeline_col c)
{
	const struct lt_cell *v = tl_cell(s, i, c);

	return v->type == LT_CELL_TEXT ? v->s : "";
}

/* The log line a row of log lines rests on (LT_TL_REF is minus its id); 0 for another row. */
static int64_t tl_line_ref(const struct timeline *s, size_t i)
{
	const struct lt_cell *ref = tl_cell(s, i, LT_TL_REF);

	return tl_is_log(s, i) && ref->type == LT_CELL_INT && ref->i < 0 ? -ref->i : 0;
}

/* How many records the pane's page holds. */
static size_t tl_page_n(const struct timeline *s)
{
	return s->pane_lines ? s->lns.n : s->evs.n;
}

static void tl_page_release(struct timeline *s)
{
	lt_browse_events_release(&s->evs);
	lt_browse_lines_release(&s->lns);
}

/* Reads records off..off+n-1 of open row's pane into the page (released first). */
static int tl_page_read(struct tui *t, struct timeline *s, struct lt_browse_events *evs,
			struct lt_browse_lines *lns, size_t off, size_t n, struct lt_error *err)
{
	size_t row = s->open_row;
	int64_t from = tl_cell(s, row, LT_TL_START)->i, to = tl_cell(s, row, LT_TL_END)->i;

	lt_browse_events_release(evs);
	lt_browse_lines_release(lns);
	if (s->pane_lines)
		return lt_browse_lines(lns, t->st, s->target, tl_line_ref(s, row), from, to, off, n,
				       err);
	return lt_browse_events(evs, t->st, s->target, tl_object(s, row), from, to, off, n, err);
}

/* Reads the pane's page around its window when the one held does not cover it. */
static void tl_load_events(struct tui *t, struct timeline *s)
{
	struct lt_error err = {0};
	size_t off, n;

	if (!s->expanded || s->open_row >= s->tl.nrows || tl_pane_filtered(s))
		return;
	if (s->evs_loaded && !tui_page_want(&s->ewin, s->evs_off, tl_page_n(s), &off, &n))
		return;
	if (!s->evs_loaded)
		tui_page_want(&s->ewin, 0, 0, &off, &n);
	s->evs_loaded = 1;
	s->evs_off = off;
	if (tl_page_read(t, s, &s->evs, &s->lns, off, n, &err) != 0)
		tui_status(t, TUI_ERROR, "%s", err.msg);
	s->ewin.total = s->pane_lines ? s->lns.total : s->evs.total;
	tui_win_fix(&s->ewin);
}

static void tl_row(struct tui *t, struct timeline *s, int y, int cols, size_t i, int sel)
{
	char a[40], b[40], n[24];
	int x = 0, tw = s->tfmt & TUI_TIME_DATE ? 23 : 12;

	(void)t;
	tui_fmt_time(a, sizeof a, tl_cell(s, i, LT_TL_START)->i, s->tfmt);
	tui_fmt_time(b, sizeof b, tl_cell(s, i, LT_TL_END)->i, s->tfmt);
	snprintf(n, sizeof n, "%6lld", (long long)tl_cell(s, i, LT_TL_COUNT)->i);
	tui_fill(y, 0, cols, TUI_S_NORMAL | sel);
	x += tui_put(y, x, tw, TUI_S_NORMAL | sel, a) + 1;
	x += tui_put(y, x, tw, TUI_S_NORMAL | sel, b) + 1;
	tui_put(y, x, TL_KIND_W, tl_kind_style(s, i) | sel, tl_kind_name(s, i));
	x += TL_KIND_W + 1;
	x += tui_put(y, x, 6, TUI_S_NORMAL | sel, n) + 2;
	if (tl_is_log(s, i)) {
		/* a row of log lines: say whose */
		x += tui_put(y, x, cols - x, TUI_S_DIM | sel, "[");
		x += tui_put(y, x, cols - x, TUI_S_DIM | sel, tl_text(s, i, LT_TL_SOURCE));
		x += tui_put(y, x, cols - x, TUI_S_DIM | sel, "] ");
	}
	tui_put_from(y, x, cols - x, TUI_S_NORMAL | sel, tl_text(s, i, LT_TL_DETAIL), s->hoff);
}

/* One request: time, verb(/subresource), code, latency, source, user, id. */
static void tl_event_text(char *buf, size_t size, const struct lt_browse_event *e, unsigned tfmt)
{
	char ts[40], lat[24], verb[64];

	tui_fmt_time(ts, sizeof ts, e->ts_us, tfmt);
	lt_format_duration(lat, sizeof lat, e->latency_us);
	snprintf(verb, sizeof verb, "%s%s%s", e->verb, e->subresource[0] ? "/" : "",
		 e->subresource);
	snprintf(buf, size, "%s  %-13s %3lld %7s  %-15s %s  #%lld", ts, verb, (long long)e->code,
		 lat, e->source_ip, e->user, (long long)e->id);
}

/* One log line: time, where it was read (FILE:LINE, the file's last name), severity, message. */
static void tl_line_text(char *buf, size_t size, const struct lt_browse_line *l, unsigned tfmt)
{
	const char *slash = strrchr(l->file, '/');
	char ts[40];

	tui_fmt_time(ts, sizeof ts, l->ts_us, tfmt);
	snprintf(buf, size, "%s  %s:%lld  %s %s  L%lld", ts, slash ? slash + 1 : l->file,
		 (long long)l->line, l->severity[0] ? l->severity : "-", l->message,
		 (long long)l->id);
}

/* Record i of page (first: its index) as the pane shows it, and its style. */
static int tl_record_text(const struct timeline *s, const struct lt_browse_events *evs,
			  const struct lt_browse_lines *lns, size_t k, char *buf, size_t size)
{
	if (s->pane_lines) {
		const struct lt_browse_line *l = &lns->lines[k];

		tl_line_text(buf, size, l, s->tfmt);
		return l->severity[0] == 'E' || l->severity[0] == 'F' ? TUI_S_404 : TUI_S_NORMAL;
	}
	tl_event_text(buf, size, &evs->evs[k], s->tfmt);
	return evs->evs[k].code >= 400 ? TUI_S_404 : TUI_S_NORMAL;
}

/* Record i of the pane (of its filtered records when f is on): its text, style and id; 0, or -1
 * when it is not in the page held. */
static int tl_pane_at(const struct timeline *s, size_t i, char *buf, size_t size, int *style,
		      int64_t *id)
{
	if (tl_pane_filtered(s)) {
		if (i >= s->nhits)
			return -1;
		snprintf(buf, size, "%s", s->hits[i].row.text);
		*style = s->hits[i].style;
		*id = s->hits[i].row.id;
		return 0;
	}
	if (i < s->evs_off || i - s->evs_off >= tl_page_n(s))
		return -1;
	*style = tl_record_text(s, &s->evs, &s->lns, i - s->evs_off, buf, size);
	*id = s->pane_lines ? s->lns.lines[i - s->evs_off].id : s->evs.evs[i - s->evs_off].id;
	return 0;
}

/* The pane's header says its filter (before the keys, which a narrow screen cuts first). */
static void tl_pane_head(const struct timeline *s, char *line, size_t size)
{
	char *keys = strstr(line, " (Enter"), rest[256];

	if (!tl_pane_filtered(s) || keys == NULL)
		return;
	snprintf(rest, sizeof rest, "%s", keys);
	snprintf(keys, size - (size_t)(keys - line), ", filter %s%s%s", s->pfilter.text,
		 s->hits_capped ? " (the first matches only)" : "", rest);
}

static void tl_draw_events(struct tui *t, struct timeline *s, int y0, int h, int cols)
{
	char line[2048];

	s->ewin.height = h > 1 ? (size_t)(h - 1) : 1;
	tl_load_events(t, s);
	if (tl_pane_filtered(s))
		s->ewin.total = s->nhits;
	if (s->pane_lines)
		snprintf(line, sizeof line,
			 "%zu %s %s of %s [%s] (Enter: the line, Tab: pane, Esc: close)%s",
			 s->ewin.total, s->ewin.total == 1 ? "line" : "lines",
			 tl_kind_name(s, s->open_row), s->target,
			 tl_text(s, s->open_row, LT_TL_SOURCE), s->focus ? " <" : "");
	else
		snprintf(line, sizeof line,
			 "%zu %s of %s %s (Enter: one event, Tab: pane, Esc: close)%s",
			 s->ewin.total, s->ewin.total == 1 ? "request" : "requests",
			 tl_kind_name(s, s->open_row), s->target, s->focus ? " <" : "");
	tl_pane_head(s, line, sizeof line);
	tui_draw_header(y0, cols, line);
	s->pane_y = y0 + 1;
	for (size_t k = 0; k < s->ewin.height; k++) {
		size_t i = s->ewin.top + k;
		int sel = s->focus && i == s->ewin.cur ? TUI_SEL : 0, style;
		int64_t id;

		if (i >= s->ewin.total || tl_pane_at(s, i, line, sizeof line, &style, &id) != 0)
			break;
		tui_fill(y0 + 1 + (int)k, 0, cols, TUI_S_NORMAL | sel);
		tui_put(y0 + 1 + (int)k, 0, cols, style | sel, line);
	}
}

/* The selected row's whole detail, wrapped, under the list. */
static void tl_draw_detail(struct timeline *s, int y0, int h, int cols)
{
	struct tui_span *rows = NULL;
	size_t n = 0, cap = 0;
	struct lt_buf b;

	if (s->win.cur >= s->tl.nrows || h <= 0)
		return;
	lt_buf_init(&b);
	lt_sanitize(&b, tl_text(s, s->win.cur, LT_TL_DETAIL),
		    strlen(tl_text(s, s->win.cur, LT_TL_DETAIL)));
	tui_wrap(&rows, &n, &cap, b.ptr, b.len, cols);
	for (size_t i = 0; i < n && (int)i < h; i++) {
		char *line = lt_xstrndup(b.ptr + rows[i].off, rows[i].len);

		tui_put(y0 + (int)i, 0, cols, TUI_S_DIM, line);
		free(line);
	}
	free(rows);
	lt_buf_release(&b);
}

/* Lines under the list for the selected row's detail: 2, or (w) what it wraps to, bounded. */
static int tl_detail_h(const struct timeline *s, int h, int cols)
{
	struct tui_span *rows = NULL;
	size_t n = 0, cap = 0;
	const char *d;
	struct lt_buf b;
	int max = h / TL_WRAP_SHARE;

	if (!s->wrap || s->win.cur >= s->tl.nrows || max <= TL_DETAIL_H)
		return TL_DETAIL_H;
	d = tl_text(s, s->win.cur, LT_TL_DETAIL);
	lt_buf_init(&b);
	lt_sanitize(&b, d, strlen(d));
	tui_wrap(&rows, &n, &cap, b.ptr, b.len, cols);
	free(rows);
	lt_buf_release(&b);
	return n < TL_DETAIL_H ? TL_DETAIL_H : (int)n > max ? max : (int)n;
}

static void tl_draw(struct tui *t, struct tui_screen *sc, int y0, int h, int cols)
{
	struct timeline *s = (struct timeline *)sc;
	int detail_h = tl_detail_h(s, h, cols);
	int list_h = s->expanded ? (h - 1) / 2 : h - 1 - detail_h, dated;
	char line[1024];

	dated = (s->tfmt & TUI_TIME_DATE) != 0;
	s->win.height = list_h > 1 ? (size_t)list_h : 1;
	tui_win_fix(&s->win);
	snprintf(line, sizeof line, "%-*s %-*s %-*s %6s  DETAIL of %s (%zu %s)%s", dated ? 23 : 12,
		 "START", dated ? 23 : 12, "END", TL_KIND_W, "KIND", "COUNT", s->target,
		 s->tl.nrows, s->tl.nrows == 1 ? "row" : "rows",
		 s->expanded && !s->focus ? " <" : "");
	tui_draw_header(y0, cols, line);
	s->list_y = y0 + 1;
	for (size_t k = 0; k < s->win.height && s->win.top + k < s->tl.nrows; k++) {
		size_t i = s->win.top + k;

		/* the cursor row stays marked while the events pane has the keys: its events */
		tl_row(t, s, y0 + 1 + (int)k, cols, i, i == s->win.cur ? TUI_SEL : 0);
	}
	if (s->tl.nrows == 0)
		tui_put(y0 + 1, 0, cols, TUI_S_DIM, "nothing stored for this name");
	if (s->expanded)
		tl_draw_events(t, s, y0 + 1 + list_h, h - 1 - list_h, cols);
	else
		tl_draw_detail(s, y0 + h - detail_h, detail_h, cols);
}

static void tl_pane_refilter(struct tui *t, struct timeline *s);

static void tl_expand(struct tui *t, struct timeline *s)
{
	if (s->win.cur >= s->tl.nrows)
		return;
	if (tl_is_log(s, s->win.cur) && tl_line_ref(s, s->win.cur) == 0) {
		tui_status(t, TUI_INFO, "this row names no stored line");
		return;
	}
	tl_page_release(s);
	s->pane_lines = tl_is_log(s, s->win.cur);
	s->expanded = s->focus = 1;
	s->open_row = s->win.cur;
	s->evs_loaded = 0;
	s->ewin = (struct tui_win){0, 0, 0, s->ewin.height ? s->ewin.height : 1};
	tl_pane_refilter(t, s);
	tl_load_events(t, s);
}

static int tl_row_matches(const struct timeline *s, size_t i)
{
	const char *kind = tl_kind_name(s, i), *detail = tl_text(s, i, LT_TL_DETAIL);

	return lt_regex_match(s->search_re, kind, strlen(kind)) ||
	       lt_regex_match(s->search_re, detail, strlen(detail));
}

/* The next (or previous) record of the pane matching the search, a page at a time; wraps. */
static int tl_search_events(struct tui *t, struct timeline *s, enum lt_browse_dir dir, size_t *at)
{
	struct lt_browse_events evs = {0};
	struct lt_browse_lines lns = {0};
	size_t total = s->ewin.total, first = 0, have = 0;
	char line[2048];
	int found = 0;

	for (size_t k = 1; k <= total && !found; k++) {
		size_t i = dir == LT_BROWSE_BACKWARD ? (s->ewin.cur + total - k % total) % total
						     : (s->ewin.cur + k) % total;
		struct lt_error err = {0};

		if (have == 0 || i < first || i - first >= have) {
			first = dir == LT_BROWSE_BACKWARD
				    ? (i >= TL_EVENT_PAGE - 1 ? i - (TL_EVENT_PAGE - 1) : 0)
				    : i;
			if (tl_page_read(t, s, &evs, &lns, first, TL_EVENT_PAGE, &err) != 0) {
				tui_status(t, TUI_ERROR, "%s", err.msg);
				break;
			}
			have = s->pane_lines ? lns.n : evs.n;
			if (i - first >= have)
				break; /* the store changed under us */
		}
		tl_record_text(s, &evs, &lns, i - first, line, sizeof line);
		if (lt_regex_match(s->search_re, line, strlen(line)))
			*at = i, found = 1;
	}
	lt_browse_events_release(&evs);
	lt_browse_lines_release(&lns);
	return found;
}

/* The next (or previous) filtered record of the pane matching the search; wraps. */
static int tl_search_hits(const struct timeline *s, enum lt_browse_dir dir, size_t *at)
{
	size_t n = s->nhits;

	for (size_t k = 1; k <= n; k++) {
		size_t i = dir == LT_BROWSE_BACKWARD ? (s->ewin.cur + n - k % n) % n
						     : (s->ewin.cur + k) % n;

		if (lt_regex_match(s->search_re, s->hits[i].row.text,
				   strlen(s->hits[i].row.text))) {
			*at = i;
			return 1;
		}
	}
	return 0;
}

static void tl_search(struct tui *t, struct timeline *s, enum lt_browse_dir dir)
{
	size_t n = s->tl.nrows, at;

	if (s->search_re == NULL) {
		tui_status(t, TUI_INFO, "no search yet: / first");
		return;
	}
	if (s->expanded && s->focus && tl_pane_filtered(s)) {
		if (tl_search_hits(s, dir, &at))
			tui_win_goto(&s->ewin, at);
		else
			tui_status(t, TUI_ERROR, "pattern not found");
		return;
	}
	if (s->expanded && s->focus) {
		if (tl_search_events(t, s, dir, &at))
			tui_win_goto(&s->ewin, at);
		else if (!t->status_error)
			tui_status(t, TUI_ERROR, "pattern not found");
		return;
	}
	for (size_t k = 1; k <= n; k++) {
		size_t i =
		    dir == LT_BROWSE_BACKWARD ? (s->win.cur + n - k) % n : (s->win.cur + k) % n;

		if (tl_row_matches(s, i)) {
			tui_win_goto(&s->win, i);
			return;
		}
	}
	tui_status(t, TUI_ERROR, "pattern not found");
}

static void tl_prompted(struct tui *t, struct tui_screen *sc, int what, const char *text)
{
	struct timeline *s = (struct timeline *)sc;
	struct lt_regex *re;

	if (what != TL_SEARCH || text[0] == '\0' || (re = tui_regex(t, text)) == NULL)
		return;
	lt_regex_free(s->search_re);
	s->search_re = re;
	tl_search(t, s, LT_BROWSE_FORWARD);
}

static int tl_enter(struct tui *t, struct timeline *s)
{
	char line[2048];
	int style;
	int64_t id;

	if (!s->expanded || !s->focus || s->win.cur != s->open_row) {
		tl_expand(t, s);
		return 1;
	}
	if (tl_pane_at(s, s->ewin.cur, line, sizeof line, &style, &id) != 0)
		return 1;
	tui_push(t, tui_event_new(t, id, s->pane_lines ? LT_RECORD_LINE : LT_RECORD_EVENT));
	return 1;
}

static int tl_action(struct tui *t, struct tui_screen *sc, enum tui_action a)
{
	struct timeline *s = (struct timeline *)sc;

	if (s->expanded && s->focus && tui_win_apply(&s->ewin, a)) {
		tl_load_events(t, s);
		return 1;
	}
	if (tui_win_apply(&s->win, a))
		return 1;
	switch (a) {
	case TUI_A_ENTER:
		return tl_enter(t, s);
	case TUI_A_LEFT:
	case TUI_A_RIGHT:
		s->hoff = a == TUI_A_LEFT ? (s->hoff > TL_HSTEP ? s->hoff - TL_HSTEP : 0)
					  : s->hoff + TL_HSTEP;
		if (s->hoff > 0)
			tui_status(t, TUI_INFO, "DETAIL from column %d (h: back)", s->hoff + 1);
		return 1;
	case TUI_A_WRAP:
		s->wrap = !s->wrap;
		tui_status(t, TUI_INFO, "%s",
			   s->wrap ? "the whole detail under the list (w: two lines)"
				   : "two lines of detail (w: all of it)");
		return 1;
	case TUI_A_TAB:
		if (s->expanded)
			s->focus = !s->focus;
		return 1;
	case TUI_A_BACK:
		if (!s->expanded)
			return 0;
		s->expanded = s->focus = 0;
		return 1;
	case TUI_A_SEARCH:
		tui_prompt(t, TL_SEARCH, "/", NULL);
		return 1;
	case TUI_A_NEXT:
	case TUI_A_PREV:
		tl_search(t, s, a == TUI_A_PREV ? LT_BROWSE_BACKWARD : LT_BROWSE_FORWARD);
		return 1;
	default:
		return 0;
	}
}

static void tl_reload(struct tui *t, struct tui_screen *sc)
{
	struct timeline *s = (struct timeline *)sc;

	tl_load(t, s);
	s->evs_loaded = 0;
	if (s->open_row >= s->tl.nrows)
		s->expanded = s->focus = 0;
	if (s->expanded)
		tl_pane_refilter(t, s);
}

static void tl_free(struct tui_screen *sc)
{
	struct timeline *s = (struct timeline *)sc;

	lt_rows_release(&s->tl);
	tl_page_release(s);
	tl_hits_release(s);
	tui_filter_release(&s->lfilter);
	tui_filter_release(&s->pfilter);
	lt_regex_free(s->search_re);
	free(s->target);
	free(s);
}

/* ---- the tools: f, m, e, y, :goto, clicks ------------------------------- */

/* What f names on the list, and on the pane of requests or of log lines; "row": all of it. */
enum { TLF_ROW, TLF_START, TLF_END, TLF_KIND, TLF_COUNT, TLF_SOURCE, TLF_DETAIL, TLF_NCOLS };
static const char *const tl_fcols[TLF_NCOLS] = {
    [TLF_ROW] = "row",	   [TLF_START] = "start",   [TLF_END] = "end",	     [TLF_KIND] = "kind",
    [TLF_COUNT] = "count", [TLF_SOURCE] = "source", [TLF_DETAIL] = "detail",
};
enum {
	TLE_ROW,
	TLE_TIME,
	TLE_VERB,
	TLE_CODE,
	TLE_LATENCY,
	TLE_SOURCE,
	TLE_USER,
	TLE_ID,
	TLE_NCOLS
};
static const char *const tl_ecols[TLE_NCOLS] = {
    [TLE_ROW] = "row",	       [TLE_TIME] = "time",	[TLE_VERB] = "verb", [TLE_CODE] = "code",
    [TLE_LATENCY] = "latency", [TLE_SOURCE] = "source", [TLE_USER] = "user", [TLE_ID] = "id",
};
enum { TLL_ROW, TLL_TIME, TLL_FILE, TLL_LINE, TLL_SEVERITY, TLL_MESSAGE, TLL_ID, TLL_NCOLS };
static const char *const tl_lcols[TLL_NCOLS] = {
    [TLL_ROW] = "row",	 [TLL_TIME] = "time",	      [TLL_FILE] = "file",
    [TLL_LINE] = "line", [TLL_SEVERITY] = "severity", [TLL_MESSAGE] = "message",
    [TLL_ID] = "id",
};

#define TL_ROW_TEXT 4096 /* a row's text as f's "row", marks and exports take it */

/* A time as the filter and the marks take it: the date, the time to the microsecond. */
static void tl_time_text(char *buf, size_t size, int64_t us)
{
	if (us == 0)
		snprintf(buf, size, "-");
	else
		lt_time_format_zone(buf, size, us);
}

/* Row i of the list in words: START END KIND COUNT [SOURCE] DETAIL. */
static void tl_row_text(const struct timeline *s, size_t i, char *buf, size_t size)
{
	char a[40], b[40];

	tl_time_text(a, sizeof a, tl_cell(s, i, LT_TL_START)->i);
	tl_time_text(b, sizeof b, tl_cell(s, i, LT_TL_END)->i);
	snprintf(buf, size, "%s %s %s %lld [%s] %s", a, b, tl_kind_name(s, i),
		 (long long)tl_cell(s, i, LT_TL_COUNT)->i, tl_text(s, i, LT_TL_SOURCE),
		 tl_text(s, i, LT_TL_DETAIL));
}

/* A list row or a pane record for tui_filter_match; row: room for the whole row. */
struct tl_fctx {
	const struct timeline *s;
	const struct lt_browse_events *evs;
	const struct lt_browse_lines *lns;
	size_t i;
	char row[TL_ROW_TEXT];
};

static const char *tl_fvalue(int col, char *buf, size_t size, void *ctx)
{
	struct tl_fctx *c = ctx;

	switch (col) {
	case TLF_ROW:
		tl_row_text(c->s, c->i, c->row, sizeof c->row);
		return c->row;
	case TLF_START:
	case TLF_END:
		tl_time_text(buf, size,
			     tl_cell(c->s, c->i, col == TLF_START ? LT_TL_START : LT_TL_END)->i);
		return buf;
	case TLF_KIND:
		return tl_kind_name(c->s, c->i);
	case TLF_COUNT:
		snprintf(buf, size, "%lld", (long long)tl_cell(c->s, c->i, LT_TL_COUNT)->i);
		return buf;
	case TLF_SOURCE:
		return tl_text(c->s, c->i, LT_TL_SOURCE);
	default:
		return tl_text(c->s, c->i, LT_TL_DETAIL);
	}
}

static const char *tl_evalue(int col, char *buf, size_t size, void *ctx)
{
	struct tl_fctx *c = ctx;
	const struct lt_browse_event *e = &c->evs->evs[c->i];

	switch (col) {
	case TLE_ROW:
		tl_event_text(c->row, sizeof c->row, e, c->s->tfmt);
		return c->row;
	case TLE_TIME:
		tl_time_text(buf, size, e->ts_us);
		return buf;
	case TLE_VERB:
		snprintf(buf, size, "%s%s%s", e->verb, e->subresource[0] ? "/" : "",
			 e->subresource);
		return buf;
	case TLE_CODE:
		snprintf(buf, size, "%lld", (long long)e->code);
		return buf;
	case TLE_LATENCY:
		snprintf(buf, size, "%.6f", (double)e->latency_us / 1e6);
		return buf;
	case TLE_SOURCE:
		return e->source_ip;
	case TLE_USER:
		return e->user;
	default:
		snprintf(buf, size, "%lld", (long long)e->id);
		return buf;
	}
}

static const char *tl_lvalue(int col, char *buf, size_t size, void *ctx)
{
	struct tl_fctx *c = ctx;
	const struct lt_browse_line *l = &c->lns->lines[c->i];

	switch (col) {
	case TLL_ROW:
		tl_line_text(c->row, sizeof c->row, l, c->s->tfmt);
		return c->row;
	case TLL_TIME:
		tl_time_text(buf, size, l->ts_us);
		return buf;
	case TLL_FILE:
		return l->file;
	case TLL_LINE:
	case TLL_ID:
		snprintf(buf, size, "%lld", (long long)(col == TLL_LINE ? l->line : l->id));
		return buf;
	case TLL_SEVERITY:
		return l->severity;
	default:
		return l->message;
	}
}

static int tl_pane_filtered(const struct timeline *s)
{
	return s->pfilter.n > 0;
}

static void tl_hits_release(struct timeline *s)
{
	for (size_t i = 0; i < s->nhits; i++)
		tui_row_release(&s->hits[i].row);
	free(s->hits);
	s->hits = NULL;
	s->nhits = s->hcap = 0;
	s->hits_capped = 0;
}

static int tl_keep(const struct lt_rows *rows, size_t r, void *ctx)
{
	struct timeline *s = ctx;
	struct tl_fctx *c = lt_xcalloc(1, sizeof *c);
	int keep;

	(void)rows;
	c->s = s, c->i = r;
	keep = tui_filter_match(&s->lfilter, tl_fvalue, c);
	free(c);
	return keep;
}

static void tl_filter_list(struct timeline *s)
{
	if (s->lfilter.n > 0)
		tui_rows_keep(&s->tl, tl_keep, s);
}

/* Record k of a page as a row to mark, export or copy (*out owned by the caller). */
static void tl_record_row(const struct timeline *s, const struct lt_browse_events *evs,
			  const struct lt_browse_lines *lns, size_t k, struct tui_row *out)
{
	char text[TL_ROW_TEXT], src[1200], what[32];

	tl_record_text(s, evs, lns, k, text, sizeof text);
	*out = (struct tui_row){.kind = s->pane_lines ? TUI_ROW_LINE : TUI_ROW_REQUEST};
	if (s->pane_lines) {
		const struct lt_browse_line *l = &lns->lines[k];

		snprintf(src, sizeof src, "%s:%lld", l->file, (long long)l->line);
		snprintf(what, sizeof what, "%s", l->severity);
		out->at_us = l->ts_us, out->id = l->id;
	} else {
		const struct lt_browse_event *e = &evs->evs[k];

		snprintf(src, sizeof src, "%s%s%s", e->verb, e->subresource[0] ? "/" : "",
			 e->subresource);
		snprintf(what, sizeof what, "%lld", (long long)e->code);
		out->at_us = e->ts_us, out->id = e->id;
	}
	out->subject = lt_xstrdup(s->target);
	out->source = lt_xstrdup(src);
	out->what = lt_xstrdup(what);
	out->text = lt_xstrdup(text);
}

/* Whether record k of a page passes the pane's filter. */
static int tl_record_passes(const struct timeline *s, const struct lt_browse_events *evs,
			    const struct lt_browse_lines *lns, size_t k)
{
	struct tl_fctx *c = lt_xcalloc(1, sizeof *c);
	int pass;

	*c = (struct tl_fctx){.s = s, .evs = evs, .lns = lns, .i = k};
	pass = tui_filter_match(&s->pfilter, s->pane_lines ? tl_lvalue : tl_evalue, c);
	free(c);
	return pass;
}

/*
 * Calls fn on each record of the open row's pane, a page at a time, until it
 * says nonzero; 0, or -1 after a status.
 */
static int tl_pane_walk(struct tui *t, struct timeline *s,
			int (*fn)(struct timeline *s, const struct lt_browse_events *evs,
				  const struct lt_browse_lines *lns, size_t k, void *ctx),
			void *ctx)
{
	struct lt_browse_events evs = {0};
	struct lt_browse_lines lns = {0};
	int rc = 0, stop = 0;

	for (size_t off = 0; !stop; off += TL_EVENT_PAGE) {
		struct lt_error err = {0};
		size_t n;

		if (tl_page_read(t, s, &evs, &lns, off, TL_EVENT_PAGE, &err) != 0) {
			tui_status(t, TUI_ERROR, "%s", err.msg);
			rc = -1;
			break;
		}
		n = s->pane_lines ? lns.n : evs.n;
		for (size_t k = 0; k < n && !stop; k++)
			stop = fn(s, &evs, &lns, k, ctx);
		if (n < TL_EVENT_PAGE)
			break;
	}
	lt_browse_events_release(&evs);
	lt_browse_lines_release(&lns);
	return rc != 0 ? rc : stop < 0 ? -1 : 0;
}

static int tl_hit_add(struct timeline *s, const struct lt_browse_events *evs,
		      const struct lt_browse_lines *lns, size_t k, void *ctx)
{
	char line[2048];

	(void)ctx;
	if (!tl_record_passes(s, evs, lns, k))
		return 0;
	if (s->nhits == TL_HITS_MAX) {
		s->hits_capped = 1;
		return 1;
	}
	s->hits = lt_grow(s->hits, &s->hcap, s->nhits + 1, sizeof *s->hits);
	tl_record_row(s, evs, lns, k, &s->hits[s->nhits].row);
	s->hits[s->nhits].style = tl_record_text(s, evs, lns, k, line, sizeof line);
	s->nhits++;
	return 0;
}

/* The pane's records that pass its filter, read again (a new row, a new filter, a reload). */
static void tl_pane_refilter(struct tui *t, struct timeline *s)
{
	tl_hits_release(s);
	if (!tl_pane_filtered(s) || !s->expanded || s->open_row >= s->tl.nrows)
		return;
	tl_pane_walk(t, s, tl_hit_add, NULL);
	s->ewin.total = s->nhits;
	tui_win_fix(&s->ewin);
}

/*
 * What tells a row from the others across a new filter: its cells (times,
 * kind, source) and the record it rests on.  Owns its copies of the text.
 */
struct tl_key {
	struct lt_cell cell[4];
	int64_t ref;
};
static const enum lt_timeline_col tl_key_cols[4] = {LT_TL_START, LT_TL_END, LT_TL_KIND,
						    LT_TL_SOURCE};

static void tl_key_of(struct tl_key *k, const struct timeline *s, size_t i)
{
	const struct lt_cell *ref = tl_cell(s, i, LT_TL_REF);

	for (size_t c = 0; c < 4; c++) {
		k->cell[c] = *tl_cell(s, i, tl_key_cols[c]);
		if (k->cell[c].type == LT_CELL_TEXT)
			k->cell[c].s = lt_xstrdup(k->cell[c].s ? k->cell[c].s : "");
	}
	k->ref = ref->type == LT_CELL_INT ? ref->i : 0;
}

static void tl_key_release(struct tl_key *k)
{
	for (size_t c = 0; c < 4; c++)
		if (k->cell[c].type == LT_CELL_TEXT)
			free((char *)k->cell[c].s);
}

static int tl_key_is(const struct tl_key *k, const struct timeline *s, size_t i)
{
	const struct lt_cell *ref = tl_cell(s, i, LT_TL_REF);

	if (k->ref != (ref->type == LT_CELL_INT ? ref->i : 0))
		return 0;
	for (size_t c = 0; c < 4; c++) {
		const struct lt_cell *v = tl_cell(s, i, tl_key_cols[c]);

		if (v->type != k->cell[c].type)
			return 0;
		if (v->type == LT_CELL_TEXT ? strcmp(v->s ? v->s : "", k->cell[c].s) != 0
					    : v->i != k->cell[c].i)
			return 0;
	}
	return 1;
}

/*
 * The list filtered anew with the pane open: the pane stays on its row when
 * the row passes (the cursor on it), else it closes; says which.
 */
static void tl_refilter_list(struct tui *t, struct timeline *s)
{
	int open = s->expanded && s->open_row < s->tl.nrows;
	struct tl_key key;
	size_t at = 0;

	if (open)
		tl_key_of(&key, s, s->open_row);
	lt_rows_release(&s->tl);
	tl_load(t, s);
	while (open && at < s->tl.nrows && !tl_key_is(&key, s, at))
		at++;
	if (open)
		tl_key_release(&key);
	s->expanded = open && at < s->tl.nrows;
	if (!s->expanded)
		s->focus = 0;
	s->open_row = s->expanded ? at : 0;
	tui_win_goto(&s->win, s->open_row);
	tui_status(t, TUI_INFO, "%zu %s%s%s", s->tl.nrows, s->tl.nrows == 1 ? "row" : "rows",
		   !s->lfilter.n      ? ""
		   : s->tl.nrows == 1 ? " passes the filter"
				      : " pass the filter",
		   !open	 ? ""
		   : s->expanded ? "; the open row is one, its pane stays"
				 : "; the open row is not: its pane is closed");
}

static void tl_filter(struct tui *t, struct tui_screen *sc, const char *text)
{
	struct timeline *s = (struct timeline *)sc;
	int pane = s->expanded && s->focus;

	if (pane && !tui_filter_set(t, &s->pfilter, text, s->pane_lines ? tl_lcols : tl_ecols,
				    s->pane_lines ? TLL_NCOLS : TLE_NCOLS))
		return;
	if (pane) {
		s->ewin.cur = s->ewin.top = 0;
		s->evs_loaded = 0;
		tl_pane_refilter(t, s);
		tl_load_events(t, s);
		tui_status(t, TUI_INFO, "%zu %s%s", s->ewin.total,
			   s->pane_lines ? (s->ewin.total == 1 ? "line" : "lines")
					 : (s->ewin.total == 1 ? "request" : "requests"),
			   !tl_pane_filtered(s) ? ""
			   : s->ewin.total == 1 ? " passes the filter"
						: " pass the filter");
		return;
	}
	if (tui_filter_set(t, &s->lfilter, text, tl_fcols, TLF_NCOLS))
		tl_refilter_list(t, s);
}

static const char *tl_filter_text(struct tui_screen *sc)
{
	struct timeline *s = (struct timeline *)sc;

	return s->expanded && s->focus ? s->pfilter.text : s->lfilter.text;
}

/* List row i as a row to mark, export or copy. */
static void tl_list_row(const struct timeline *s, size_t i, struct tui_row *out)
{
	const struct lt_cell *k = tl_cell(s, i, LT_TL_KIND);
	char *text = lt_xmalloc(TL_ROW_TEXT);

	tl_row_text(s, i, text, TL_ROW_TEXT);
	*out = (struct tui_row){
	    .kind = TUI_ROW_TIMELINE,
	    .subject = lt_xstrdup(s->target),
	    .source = lt_xstrdup(tl_text(s, i, LT_TL_SOURCE)),
	    .at_us = tl_cell(s, i, LT_TL_START)->i,
	    .what = lt_xstrdup(tl_kind_name(s, i)),
	    .text = text,
	    .about = {LT_EP_NONE, LT_EP_NONE, NULL},
	};
	if (k->type == LT_CELL_KIND)
		out->about.kind = out->about.also = (enum lt_episode_kind)k->i;
	else if (k->type == LT_CELL_TEXT)
		out->about.log_kind = lt_xstrdup(k->s);
}

static int tl_row_one(struct timeline *s, const struct lt_browse_events *evs,
		      const struct lt_browse_lines *lns, size_t k, void *ctx)
{
	tl_record_row(s, evs, lns, k, ctx);
	return 1;
}

static int tl_row_get(struct tui *t, struct tui_screen *sc, struct tui_row *out)
{
	struct timeline *s = (struct timeline *)sc;
	size_t i = s->ewin.cur;

	if (!(s->expanded && s->focus)) {
		if (s->win.cur >= s->tl.nrows)
			return -1;
		tl_list_row(s, s->win.cur, out);
		return 0;
	}
	if (tl_pane_filtered(s)) {
		if (i >= s->nhits)
			return -1;
		tui_row_copy(out, &s->hits[i].row);
		return 0;
	}
	if (i < s->evs_off || i - s->evs_off >= tl_page_n(s))
		return -1;
	(void)t;
	tl_row_one(s, &s->evs, &s->lns, i - s->evs_off, out);
	return 0;
}

struct tl_emit {
	int (*emit)(const struct tui_row *r, void *ctx);
	void *ctx;
};

static int tl_emit_record(struct timeline *s, const struct lt_browse_events *evs,
			  const struct lt_browse_lines *lns, size_t k, void *ctx)
{
	struct tl_emit *e = ctx;
	struct tui_row r;
	int rc;

	tl_record_row(s, evs, lns, k, &r);
	rc = e->emit(&r, e->ctx);
	tui_row_release(&r);
	return rc != 0 ? -1 : 0;
}

static int tl_each(struct tui *t, struct tui_screen *sc,
		   int (*emit)(const struct tui_row *r, void *ctx), void *ctx)
{
	struct timeline *s = (struct timeline *)sc;
	struct tl_emit e = {emit, ctx};

	if (s->expanded && s->focus && !tl_pane_filtered(s))
		return tl_pane_walk(t, s, tl_emit_record, &e);
	if (s->expanded && s->focus) {
		for (size_t i = 0; i < s->nhits; i++)
			if (emit(&s->hits[i].row, ctx) != 0)
				return -1;
		return 0;
	}
	for (size_t i = 0; i < s->tl.nrows; i++) {
		struct tui_row r;
		int rc;

		tl_list_row(s, i, &r);
		rc = emit(&r, ctx);
		tui_row_release(&r);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* The first record of the pane at or after at_us (they come in time order). */
static int tl_first_at(struct timeline *s, const struct lt_browse_events *evs,
		       const struct lt_browse_lines *lns, size_t k, void *ctx)
{
	int64_t *at = ctx, ts = s->pane_lines ? lns->lines[k].ts_us : evs->evs[k].ts_us;

	if (ts >= at[0])
		return 1;
	at[1]++;
	return 0;
}

static void tl_goto_time(struct tui *t, struct tui_screen *sc, int64_t at_us)
{
	struct timeline *s = (struct timeline *)sc;
	int64_t at[2] = {at_us, 0};
	size_t best = 0;
	uint64_t best_d = UINT64_MAX;

	if (s->expanded && s->focus && tl_pane_filtered(s)) {
		while (best < s->nhits && s->hits[best].row.at_us < at_us)
			best++;
		tui_win_goto(&s->ewin, best);
		return;
	}
	if (s->expanded && s->focus) {
		if (tl_pane_walk(t, s, tl_first_at, at) == 0)
			tui_win_goto(&s->ewin, (size_t)at[1]);
		tl_load_events(t, s);
		return;
	}
	for (size_t i = 0; i < s->tl.nrows; i++) {
		int64_t st = tl_cell(s, i, LT_TL_START)->i;
		uint64_t d =
		    st > at_us ? (uint64_t)st - (uint64_t)at_us : (uint64_t)at_us - (uint64_t)st;

		if (d < best_d)
			best = i, best_d = d;
	}
	tui_win_goto(&s->win, best);
}

static void tl_click(struct tui *t, struct tui_screen *sc, int y)
{
	struct timeline *s = (struct timeline *)sc;

	if (s->expanded && y >= s->pane_y && (size_t)(y - s->pane_y) < s->ewin.height &&
	    s->ewin.top + (size_t)(y - s->pane_y) < s->ewin.total) {
		s->focus = 1;
		tui_win_goto(&s->ewin, s->ewin.top + (size_t)(y - s->pane_y));
		tl_load_events(t, s);
	} else if (y >= s->list_y && (size_t)(y - s->list_y) < s->win.height &&
		   s->win.top + (size_t)(y - s->list_y) < s->tl.nrows) {
		s->focus = 0;
		tui_win_goto(&s->win, s->win.top + (size_t)(y - s->list_y));
	}
}

static const struct tui_screen_ops timeline_ops = {
    .name = "Timeline",
    .ctx = TUI_CTX_TIMELINE,
    .draw = tl_draw,
    .action = tl_action,
    .prompted = tl_prompted,
    .reload = tl_reload,
    .free = tl_free,
    .row = tl_row_get,
    .each = tl_each,
    .filter = tl_filter,
    .filter_text = tl_filter_text,
    .goto_time = tl_goto_time,
    .click = tl_click,
};

struct tui_screen *tui_timeline_new(struct tui *t, const char *target, int64_t at_us,
				    const struct tui_about *about)
{
	struct timeline *s = lt_xcalloc(1, sizeof *s);

	s->base.ops = &timeline_ops;
	s->target = lt_xstrdup(target);
	s->at_us = at_us;
	s->tfmt = tui_time_rows(t->first_us, t->last_us);
	s->win.height = t->rows > 8 ? (size_t)(t->rows - 6) : 1;
	tl_load(t, s);
	/* "at that time": the row the result is about, nearest its time */
	if (at_us != 0 && s->tl.nrows > 0)
		tui_win_goto(&s->win, tui_timeline_pick(&s->tl, at_us, about));
	return &s->base;
}
