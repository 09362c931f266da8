/*
 * tui-marks.c - marks: `m` on a row of any list (a timeline's rows, its
 * requests or log lines, a query's result) keeps a copy of that row, across
 * screens, until the program ends; `M` lists them in the order they were
 * made, and Enter on one opens what it is about: the timeline at the row's
 * time (on the row of its kind, as a query result's jump does), or the
 * record itself.  `m` there unmarks; `e` exports them all.
 *
 * A mark is a struct tui_row: the row's words, not a pointer into a screen,
 * so a mark outlives the screen it was made on.
 */
#include "tui-int.h"

#include <stdlib.h>
#include <string.h>

static char *marks_dup(const char *s)
{
	return s ? lt_xstrdup(s) : NULL;
}

void tui_row_release(struct tui_row *r)
{
	free(r->subject);
	free(r->source);
	free(r->what);
	free(r->text);
	free((char *)r->about.log_kind);
	memset(r, 0, sizeof *r);
}

void tui_row_copy(struct tui_row *out, const struct tui_row *r)
{
	*out = *r;
	out->subject = marks_dup(r->subject);
	out->source = marks_dup(r->source);
	out->what = marks_dup(r->what);
	out->text = marks_dup(r->text);
	out->about.log_kind = marks_dup(r->about.log_kind);
}

const char *tui_row_kind_name(enum tui_row_kind k)
{
	static const char *const names[] = {
	    [TUI_ROW_TIMELINE] = "timeline",
	    [TUI_ROW_REQUEST] = "request",
	    [TUI_ROW_LINE] = "line",
	    [TUI_ROW_RESULT] = "result",
	};

	return (size_t)k < sizeof names / sizeof *names ? names[k] : "?";
}

static int marks_streq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

static int marks_same(const struct tui_row *a, const struct tui_row *b)
{
	return a->kind == b->kind && a->at_us == b->at_us && a->id == b->id &&
	       marks_streq(a->subject, b->subject) && marks_streq(a->source, b->source) &&
	       marks_streq(a->text, b->text);
}

int tui_marks_toggle(struct tui_marks *m, struct tui_row *r)
{
	for (size_t i = 0; i < m->n; i++) {
		if (!marks_same(&m->v[i], r))
			continue;
		tui_row_release(&m->v[i]);
		memmove(m->v + i, m->v + i + 1, (m->n - i - 1) * sizeof *m->v);
		m->n--;
		tui_row_release(r);
		return 0;
	}
	if (m->n == TUI_MARKS_MAX) {
		tui_row_release(r);
		return -1;
	}
	LT_GROW(m->v, m->cap, m->n + 1);
	m->v[m->n++] = *r;
	memset(r, 0, sizeof *r);
	return 1;
}

void tui_marks_release(struct tui_marks *m)
{
	for (size_t i = 0; i < m->n; i++)
		tui_row_release(&m->v[i]);
	free(m->v);
	memset(m, 0, sizeof *m);
}

/* ---- the marks screen ---------------------------------------------------- */

#define MARKS_KIND_W 9
#define MARKS_TIME_W 23

struct marks {
	struct tui_screen base;
	struct tui_win win;
	int list_y;
};

static void marks_draw(struct tui *t, struct tui_screen *sc, int y0, int h, int cols)
{
	struct marks *s = (struct marks *)sc;
	char head[160];

	s->win.total = t->marks.n;
	s->win.height = h > 1 ? (size_t)(h - 1) : 1;
	tui_win_fix(&s->win);
	snprintf(head, sizeof head,
		 "%-*s %-*s SUBJECT, WHAT, ROW  (%zu %s; Enter: open, m: unmark, e: export)",
		 MARKS_KIND_W, "MARK", MARKS_TIME_W, "TIME", t->marks.n,
		 t->marks.n == 1 ? "mark" : "marks");
	tui_draw_header(y0, cols, head);
	s->list_y = y0 + 1;
	for (size_t k = 0; k < s->win.height && s->win.top + k < t->marks.n; k++) {
		const struct tui_row *r = &t->marks.v[s->win.top + k];
		int sel = s->win.top + k == s->win.cur ? TUI_SEL : 0, y = y0 + 1 + (int)k, x = 0;
		char ts[40];

		tui_fmt_time(ts, sizeof ts, r->at_us, TUI_TIME_DATE | TUI_TIME_MS);
		tui_fill(y, 0, cols, TUI_S_NORMAL | sel);
		x += tui_put(y, x, MARKS_KIND_W, TUI_S_DIM | sel, tui_row_kind_name(r->kind));
		x = MARKS_KIND_W + 1;
		tui_put(y, x, MARKS_TIME_W, TUI_S_NORMAL | sel, ts);
		x += MARKS_TIME_W + 1;
		x += tui_put(y, x, cols - x, TUI_S_HEADING | sel, r->subject ? r->subject : "-");
		x += tui_put(y, x, cols - x, TUI_S_NORMAL | sel, "  ");
		x += tui_put(y, x, cols - x, TUI_S_NORMAL | sel, r->what ? r->what : "");
		x += tui_put(y, x, cols - x, TUI_S_NORMAL | sel, "  ");
		tui_put(y, x, cols - x, TUI_S_DIM | sel, r->text ? r->text : "");
	}
	if (t->marks.n == 0)
		tui_put(
		    y0 + 1, 0, cols, TUI_S_DIM,
		    "no marks yet: m marks the row under the cursor on a timeline, its requests "
		    "or lines, or a query's result");
}

/* Enter: what the mark is about, opened as it was when it was made. */
static void marks_open(struct tui *t, const struct tui_row *r)
{
	if (r->kind == TUI_ROW_REQUEST || r->kind == TUI_ROW_LINE) {
		tui_push(t,
			 tui_event_new(t, r->id,
				       r->kind == TUI_ROW_LINE ? LT_RECORD_LINE : LT_RECORD_EVENT));
		return;
	}
	if (r->subject == NULL) {
		tui_status(t, TUI_ERROR, "this mark names no node or lease");
		return;
	}
	tui_push(t, tui_timeline_new(t, r->subject, r->at_us, &r->about));
}

static int marks_action(struct tui *t, struct tui_screen *sc, enum tui_action a)
{
	struct marks *s = (struct marks *)sc;

	s->win.total = t->marks.n;
	if (tui_win_apply(&s->win, a))
		return 1;
	if (a != TUI_A_ENTER && a != TUI_A_MARK)
		return 0;
	if (s->win.cur >= t->marks.n)
		return 1;
	if (a == TUI_A_ENTER) {
		marks_open(t, &t->marks.v[s->win.cur]);
	} else {
		struct tui_row r;

		tui_row_copy(&r, &t->marks.v[s->win.cur]);
		tui_marks_toggle(&t->marks, &r);
		tui_status(t, TUI_INFO, "unmarked (%zu %s left)", t->marks.n,
			   t->marks.n == 1 ? "mark" : "marks");
	}
	return 1;
}

static int marks_row(struct tui *t, struct tui_screen *sc, struct tui_row *out)
{
	struct marks *s = (struct marks *)sc;

	if (s->win.cur >= t->marks.n)
		return -1;
	tui_row_copy(out, &t->marks.v[s->win.cur]);
	return 0;
}

static int marks_each(struct tui *t, struct tui_screen *sc,
		      int (*emit)(const struct tui_row *r, void *ctx), void *ctx)
{
	(void)sc;
	for (size_t i = 0; i < t->marks.n; i++)
		if (emit(&t->marks.v[i], ctx) != 0)
			return -1;
	return 0;
}

static void marks_goto_time(struct tui *t, struct tui_screen *sc, int64_t at_us)
{
	struct marks *s = (struct marks *)sc;
	size_t best = 0;
	uint64_t best_d = UINT64_MAX;

	for (size_t i = 0; i < t->marks.n; i++) {
		int64_t v = t->marks.v[i].at_us;
		uint64_t d =
		    v > at_us ? (uint64_t)v - (uint64_t)at_us : (uint64_t)at_us - (uint64_t)v;

		if (d < best_d)
			best = i, best_d = d;
	}
	s->win.total = t->marks.n;
	tui_win_goto(&s->win, best);
}

static void marks_click(struct tui *t, struct tui_screen *sc, int y)
{
	struct marks *s = (struct marks *)sc;

	if (y >= s->list_y && s->win.top + (size_t)(y - s->list_y) < t->marks.n)
		tui_win_goto(&s->win, s->win.top + (size_t)(y - s->list_y));
}

static void marks_free(struct tui_screen *sc)
{
	free(sc);
}

static const struct tui_screen_ops marks_ops = {
    .name = "Marks",
    .ctx = TUI_CTX_MARKS,
    .draw = marks_draw,
    .action = marks_action,
    .free = marks_free,
    .row = marks_row,
    .each = marks_each,
    .goto_time = marks_goto_time,
    .click = marks_click,
};

struct tui_screen *tui_marks_new(struct tui *t)
{
	struct marks *s = lt_xcalloc(1, sizeof *s);

	s->base.ops = &marks_ops;
	s->win.total = t->marks.n;
	return &s->base;
}
