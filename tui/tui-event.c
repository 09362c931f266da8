/*
 * tui-event.c - one stored record, an audit event or a log line: where it
 * was read (file, line, byte, as `show -v` says it) and its raw text, JSON
 * laid out one member a line, sanitized line by line and wrapped to the
 * screen's width.
 */
#include "tui-int.h"

#include <stdlib.h>
#include <string.h>

enum { EVENT_SEARCH = 1 };

struct event {
	struct tui_screen base;
	int64_t id;
	enum lt_record rec;
	char where[1200];      /* "FILE:LINE (byte OFFSET)" */
	struct lt_buf text;    /* the JSON laid out, sanitized: lines separated by '\n' */
	struct tui_span *rows; /* text cut at the width below */
	size_t nrows, cap;
	int width;
	struct tui_win win;
	struct lt_regex *search_re;
};

/* Lays out raw and sanitizes each line into e->text. */
static void event_layout(struct event *e, const char *raw, size_t len)
{
	struct lt_buf pretty;
	size_t i = 0;

	lt_buf_init(&pretty);
	tui_json_pretty(&pretty, raw, len);
	lt_buf_reset(&e->text);
	while (i <= pretty.len) {
		const char *nl = memchr(pretty.ptr + i, '\n', pretty.len - i);
		size_t end = nl ? (size_t)(nl - pretty.ptr) : pretty.len;

		if (i > 0)
			lt_buf_putc(&e->text, '\n');
		lt_sanitize(&e->text, pretty.ptr + i, end - i);
		i = end + 1;
	}
	lt_buf_release(&pretty);
}

/* A record's raw text: JSON laid out; a log line that is not JSON as it is. */
static void event_raw(struct event *e, const char *raw, size_t len)
{
	size_t i = 0;

	while (i < len && (raw[i] == ' ' || raw[i] == '\t'))
		i++;
	if (e->rec == LT_RECORD_EVENT || (i < len && raw[i] == '{')) {
		event_layout(e, raw, len);
		return;
	}
	lt_buf_reset(&e->text);
	lt_sanitize(&e->text, raw, len);
}

static void event_load(struct tui *t, struct event *e)
{
	struct lt_event_origin o = {0};
	struct lt_error err = {0};
	int rc;

	lt_buf_init(&o.raw);
	lt_buf_init(&o.file);
	rc = e->rec == LT_RECORD_LINE ? lt_store_line_origin(t->st, e->id, &o, &err)
				      : lt_store_event_origin(t->st, e->id, &o, &err);
	if (rc != 0) {
		tui_status(t, TUI_ERROR, "%s", err.msg);
		snprintf(e->where, sizeof e->where, "(not found)");
		event_layout(e, "", 0);
	} else {
		snprintf(e->where, sizeof e->where, "%s:%llu (byte %llu)", o.file.ptr,
			 (unsigned long long)o.line, (unsigned long long)o.offset);
		event_raw(e, o.raw.ptr, o.raw.len);
	}
	e->width = 0; /* wrap again */
	lt_buf_release(&o.raw);
	lt_buf_release(&o.file);
}

static void event_wrap(struct event *e, int cols)
{
	if (e->width == cols)
		return;
	e->width = cols;
	e->nrows = 0;
	tui_wrap(&e->rows, &e->nrows, &e->cap, e->text.ptr, e->text.len, cols);
	e->win.total = e->nrows;
	tui_win_fix(&e->win);
}

static void event_draw(struct tui *t, struct tui_screen *s, int y0, int h, int cols)
{
	struct event *e = (struct event *)s;
	char head[1400];

	(void)t;
	event_wrap(e, cols);
	e->win.height = h > 2 ? (size_t)(h - 1) : 1;
	tui_win_fix(&e->win);
	snprintf(head, sizeof head, "%s%lld  from %s",
		 e->rec == LT_RECORD_LINE ? "log line L" : "event ", (long long)e->id, e->where);
	tui_draw_header(y0, cols, head);
	for (size_t k = 0; k < e->win.height && e->win.top + k < e->nrows; k++) {
		size_t i = e->win.top + k;
		char *line = lt_xstrndup(e->text.ptr + e->rows[i].off, e->rows[i].len);

		tui_put(y0 + 1 + (int)k, 0, cols, i == e->win.cur ? TUI_S_NORMAL | TUI_SEL : 0,
			line);
		free(line);
	}
}

static void event_search(struct tui *t, struct event *e, enum lt_browse_dir dir)
{
	size_t n = e->nrows;

	if (e->search_re == NULL) {
		tui_status(t, TUI_INFO, "no search yet: / first");
		return;
	}
	for (size_t k = 1; k <= n; k++) {
		size_t i =
		    dir == LT_BROWSE_BACKWARD ? (e->win.cur + n - k) % n : (e->win.cur + k) % n;

		if (lt_regex_match(e->search_re, e->text.ptr + e->rows[i].off, e->rows[i].len)) {
			tui_win_goto(&e->win, i);
			return;
		}
	}
	tui_status(t, TUI_ERROR, "pattern not found");
}

static void event_prompted(struct tui *t, struct tui_screen *s, int what, const char *text)
{
	struct event *e = (struct event *)s;
	struct lt_regex *re;

	if (what != EVENT_SEARCH || text[0] == '\0' || (re = tui_regex(t, text)) == NULL)
		return;
	lt_regex_free(e->search_re);
	e->search_re = re;
	event_search(t, e, LT_BROWSE_FORWARD);
}

static int event_action(struct tui *t, struct tui_screen *s, enum tui_action a)
{
	struct event *e = (struct event *)s;

	if (tui_win_apply(&e->win, a))
		return 1;
	switch (a) {
	case TUI_A_SEARCH:
		tui_prompt(t, EVENT_SEARCH, "/", NULL);
		return 1;
	case TUI_A_NEXT:
	case TUI_A_PREV:
		event_search(t, e, a == TUI_A_PREV ? LT_BROWSE_BACKWARD : LT_BROWSE_FORWARD);
		return 1;
	default:
		return 0;
	}
}

static void event_reload(struct tui *t, struct tui_screen *s)
{
	event_load(t, (struct event *)s);
}

static void event_free(struct tui_screen *s)
{
	struct event *e = (struct event *)s;

	lt_buf_release(&e->text);
	lt_regex_free(e->search_re);
	free(e->rows);
	free(e);
}

static const struct tui_screen_ops event_ops = {
    .name = "Event",
    .ctx = TUI_CTX_EVENT,
    .draw = event_draw,
    .action = event_action,
    .prompted = event_prompted,
    .reload = event_reload,
    .free = event_free,
};

struct tui_screen *tui_event_new(struct tui *t, int64_t id, enum lt_record rec)
{
	struct event *e = lt_xcalloc(1, sizeof *e);

	e->base.ops = &event_ops;
	e->id = id;
	e->rec = rec;
	lt_buf_init(&e->text);
	event_load(t, e);
	return &e->base;
}
