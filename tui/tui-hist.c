/*
 * tui-hist.c - the histogram screen (`i`): the store's time cut into round
 * bins, one row each, with the events, errors and NotReady nodes of the
 * cluster in it and a bar of the events (the errors part marked), in the
 * spirit of lnav's histogram.
 *
 * The bins are round times of one step of tui-axis.c's table (1 s .. 7
 * days), laid from the store's first time rounded down in the display
 * zone; `+`/Enter and `-` step the bin length down or up around the bin
 * under the cursor.  Only the rows on screen are counted: one
 * lt_browse_hist call when the window, the step or the store changes.
 */
#include "tui-int.h"

#include <stdlib.h>
#include <string.h>

#define HIST_COUNT_W 9 /* an events column: up to 99,999,999 and a blank */
#define HIST_NR_W    9
#define HIST_BAR_MIN 10 /* a bar narrower than this is left out */

struct hist {
	struct tui_screen base;
	struct tui_win win; /* over every bin of the store's range */
	int step;	    /* tui-axis.c's step: a bin's length */
	int64_t origin;	    /* bin 0's start */
	struct lt_hist h;   /* the bins read: win.top .. */
	size_t h_top;
	int h_step, valid;
};

static int64_t hist_bin_us(const struct hist *s)
{
	return tui_axis_step_us(s->step);
}

/* Lays the bins of s->step over the store's range: origin and how many. */
static void hist_layout(struct tui *t, struct hist *s)
{
	int64_t last = t->last_us > t->first_us ? t->last_us : t->first_us;

	s->origin = tui_axis_floor(t->first_us, s->step);
	s->win.total = (size_t)((last - s->origin) / hist_bin_us(s)) + 1;
	s->valid = 0;
	tui_win_fix(&s->win);
}

/* Counts the bins on screen when those held are not them. */
static void hist_load(struct tui *t, struct hist *s)
{
	size_t n = s->win.total - s->win.top;
	struct lt_error err = {0};

	n = n < s->win.height ? n : s->win.height;
	n = n > LT_HIST_MAX_BINS ? LT_HIST_MAX_BINS : n;
	if (n == 0 || (s->valid && s->h_top == s->win.top && s->h_step == s->step && s->h.n == n))
		return;
	lt_hist_release(&s->h);
	s->valid = 1;
	s->h_top = s->win.top;
	s->h_step = s->step;
	if (lt_browse_hist(&s->h, t->st, s->origin + (int64_t)s->win.top * hist_bin_us(s),
			   hist_bin_us(s), n, &err) != 0)
		tui_status(t, TUI_ERROR, "%s", err.msg);
}

/* A bin's start as every screen writes a time (tui_time_rows), without the ms of round bins. */
static void hist_time(const struct tui *t, char *buf, size_t size, int64_t us)
{
	tui_fmt_time(buf, size, us, tui_time_rows(t->first_us, t->last_us) & ~TUI_TIME_MS);
}

static int64_t hist_max_events(const struct hist *s)
{
	int64_t max = 0;

	for (size_t i = 0; i < s->h.n; i++)
		max = s->h.bins[i].events > max ? s->h.bins[i].events : max;
	return max;
}

/* n scaled to width columns of max, a nonzero n one column at least. */
static int hist_scale(int64_t n, int64_t max, int width)
{
	int w;

	if (n <= 0 || max <= 0 || width <= 0)
		return 0;
	w = (int)((double)n * width / (double)max);
	return w < 1 ? 1 : w > width ? width : w;
}

/* The bar: errors as 'x' in the 404 style, then the other events as '='. */
static void hist_bar(int y, int x, int width, const struct lt_hist_bin *b, int64_t max)
{
	int all = hist_scale(b->events, max, width), err = hist_scale(b->errors, max, width);
	char run[2] = {'x', '\0'};

	err = err > all ? all : err;
	for (int k = 0; k < all; k++) {
		run[0] = k < err ? 'x' : '=';
		tui_put(y, x + k, 1, k < err ? TUI_S_404 : TUI_S_RENEWED, run);
	}
}

static void hist_row(struct tui *t, struct hist *s, int y, int cols, size_t i, int64_t max)
{
	const struct lt_hist_bin *b = &s->h.bins[i - s->h_top];
	int sel = i == s->win.cur ? TUI_SEL : 0, x, tw;
	char ts[40], n[24];

	hist_time(t, ts, sizeof ts, s->origin + (int64_t)i * hist_bin_us(s));
	tw = (int)strlen(ts) + 1;
	tui_fill(y, 0, cols, TUI_S_NORMAL | sel);
	tui_put(y, 0, tw, TUI_S_NORMAL | sel, ts);
	x = tw;
	snprintf(n, sizeof n, "%*lld", HIST_COUNT_W - 1, (long long)b->events);
	x += tui_put(y, x, HIST_COUNT_W, TUI_S_NORMAL | sel, n) + 1;
	snprintf(n, sizeof n, "%*lld", HIST_COUNT_W - 1, (long long)b->errors);
	x += tui_put(y, x, HIST_COUNT_W, (b->errors ? TUI_S_404 : TUI_S_NORMAL) | sel, n) + 1;
	snprintf(n, sizeof n, "%*lld", HIST_NR_W - 1, (long long)b->not_ready);
	x += tui_put(y, x, HIST_NR_W, (b->not_ready ? TUI_S_NOT_READY : TUI_S_NORMAL) | sel, n) + 1;
	if (cols - x >= HIST_BAR_MIN)
		hist_bar(y, x, cols - x, b, max);
}

static void hist_header(struct tui *t, int y, int cols)
{
	char ts[40], line[160];

	hist_time(t, ts, sizeof ts, t->first_us);
	snprintf(line, sizeof line, "%-*s %*s %*s %*s %s", (int)strlen(ts), "TIME",
		 HIST_COUNT_W - 1, "EVENTS", HIST_COUNT_W - 1, "ERRORS", HIST_NR_W - 1, "NOTREADY",
		 "('=' events, 'x' errors)");
	tui_draw_header(y, cols, line);
}

static void hist_legend(struct hist *s, int y, int cols)
{
	char span[32], line[256];

	lt_format_duration(span, sizeof span, hist_bin_us(s));
	snprintf(line, sizeof line,
		 "%zu %s of %s; +/Enter finer, - coarser; events: audit events and log lines, "
		 "errors: answered 400+ or severity E/F",
		 s->win.total, s->win.total == 1 ? "bin" : "bins", span);
	tui_put(y, 0, cols, TUI_S_DIM, line);
}

static void hist_draw(struct tui *t, struct tui_screen *sc, int y0, int h, int cols)
{
	struct hist *s = (struct hist *)sc;
	int64_t max;

	s->win.height = h > 3 ? (size_t)(h - 2) : 1;
	tui_win_fix(&s->win);
	hist_load(t, s);
	max = hist_max_events(s);
	hist_header(t, y0, cols);
	for (size_t r = 0; r < s->win.height && s->h_top + r < s->win.total; r++) {
		size_t i = s->win.top + r;

		if (i < s->h_top || i - s->h_top >= s->h.n)
			break;
		hist_row(t, s, y0 + 1 + (int)r, cols, i, max);
	}
	if (t->first_us == 0)
		tui_put(y0 + 1, 0, cols, TUI_S_DIM, "no events in this store yet (r reloads)");
	hist_legend(s, y0 + h - 1, cols);
}

/* Steps the bin length by dir (-1 finer), the cursor staying on the same time and row. */
static void hist_zoom(struct tui *t, struct hist *s, int dir)
{
	int step = s->step + dir;
	int64_t at = s->origin + (int64_t)s->win.cur * hist_bin_us(s) + hist_bin_us(s) / 2;
	size_t row = s->win.cur - s->win.top, cur;

	if (step < 0 || step >= tui_axis_nsteps()) {
		tui_status(t, TUI_INFO, "bins of %s already", dir < 0 ? "1s" : "7d");
		return;
	}
	s->step = step;
	hist_layout(t, s);
	cur = at > s->origin ? (size_t)((at - s->origin) / hist_bin_us(s)) : 0;
	cur = cur < s->win.total ? cur : s->win.total - 1;
	s->win.cur = cur;
	s->win.top = cur > row ? cur - row : 0;
	tui_win_fix(&s->win);
}

static int hist_action(struct tui *t, struct tui_screen *sc, enum tui_action a)
{
	struct hist *s = (struct hist *)sc;

	if (tui_win_apply(&s->win, a))
		return 1;
	switch (a) {
	case TUI_A_ENTER:
	case TUI_A_ZOOM_IN:
		hist_zoom(t, s, -1);
		return 1;
	case TUI_A_ZOOM_OUT:
		hist_zoom(t, s, 1);
		return 1;
	case TUI_A_LEFT:
	case TUI_A_RIGHT:
		return tui_win_apply(&s->win, a == TUI_A_LEFT ? TUI_A_PGUP : TUI_A_PGDN);
	default:
		return 0;
	}
}

static void hist_reload(struct tui *t, struct tui_screen *sc)
{
	hist_layout(t, (struct hist *)sc);
}

static void hist_free(struct tui_screen *sc)
{
	struct hist *s = (struct hist *)sc;

	lt_hist_release(&s->h);
	free(s);
}

static const struct tui_screen_ops hist_ops = {
    .name = "Histogram",
    .ctx = TUI_CTX_HIST,
    .draw = hist_draw,
    .action = hist_action,
    .reload = hist_reload,
    .free = hist_free,
};

struct tui_screen *tui_hist_new(struct tui *t)
{
	struct hist *s = lt_xcalloc(1, sizeof *s);
	size_t rows = t->rows > 6 ? (size_t)(t->rows - 4) : 1;

	s->base.ops = &hist_ops;
	s->win.height = rows;
	/* the whole range on one screen, in the shortest round bins that allow it */
	s->step = tui_axis_step_pick(t->last_us - t->first_us + 1, (int64_t)rows);
	hist_layout(t, s);
	return &s->base;
}
