/*
 * tui-view.c - the browser's logic that needs no terminal: list windows and
 * paging, the time axis, heartbeat buckets, text width, JSON layout,
 * wrapping and line editing.  Everything here is unit-tested.
 */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 600 /* wcwidth */
#endif
#include "tui-int.h"

#include <string.h>
#include <wchar.h>

/* ---- list windows ------------------------------------------------------- */

void tui_win_fix(struct tui_win *w)
{
	size_t h = w->height ? w->height : 1;

	if (w->total == 0) {
		w->cur = w->top = 0;
		return;
	}
	if (w->cur >= w->total)
		w->cur = w->total - 1;
	if (w->cur < w->top)
		w->top = w->cur;
	if (w->cur >= w->top + h)
		w->top = w->cur - h + 1;
	/* no empty screen below the last row when the list could fill it */
	if (w->top + h > w->total)
		w->top = w->total > h ? w->total - h : 0;
}

void tui_win_move(struct tui_win *w, long delta)
{
	if (delta < 0 && (size_t)-delta > w->cur)
		w->cur = 0;
	else if (delta < 0)
		w->cur -= (size_t)-delta;
	else if (w->total == 0 || (size_t)delta >= w->total - w->cur)
		w->cur = w->total ? w->total - 1 : 0;
	else
		w->cur += (size_t)delta;
	tui_win_fix(w);
}

void tui_win_goto(struct tui_win *w, size_t i)
{
	w->cur = i;
	tui_win_fix(w);
}

/* A page scrolls the whole window, as less and vim do, and takes the cursor along. */
/* A page up (TUI_A_PGUP) or down (TUI_A_PGDN). */
static void win_page(struct tui_win *w, enum tui_action a)
{
	size_t h = w->height ? w->height : 1;
	int down = a == TUI_A_PGDN;

	if (down && w->top + h >= w->total) {
		w->cur = w->total ? w->total - 1 : 0; /* the last page: to the last row */
	} else if (down) {
		w->top += h;
		w->cur += h;
	} else if (w->top == 0) {
		w->cur = 0;
	} else {
		w->top = w->top > h ? w->top - h : 0;
		w->cur = w->cur > h ? w->cur - h : 0;
	}
	tui_win_fix(w);
}

int tui_win_apply(struct tui_win *w, enum tui_action a)
{
	switch (a) {
	case TUI_A_UP:
		tui_win_move(w, -1);
		return 1;
	case TUI_A_DOWN:
		tui_win_move(w, 1);
		return 1;
	case TUI_A_PGUP:
		win_page(w, TUI_A_PGUP);
		return 1;
	case TUI_A_PGDN:
		win_page(w, TUI_A_PGDN);
		return 1;
	case TUI_A_TOP:
		tui_win_goto(w, 0);
		return 1;
	case TUI_A_BOTTOM:
		tui_win_goto(w, w->total ? w->total - 1 : 0);
		return 1;
	default:
		return 0;
	}
}

int tui_page_want(const struct tui_win *w, size_t have_off, size_t have_n, size_t *off, size_t *n)
{
	size_t h = w->height ? w->height : 1;
	size_t need_end = w->top + h, margin = h;

	if (w->total != 0 && need_end > w->total)
		need_end = w->total;
	if (have_n > 0 && w->top >= have_off && need_end <= have_off + have_n)
		return 0;
	*off = w->top > margin ? w->top - margin : 0;
	*n = w->top - *off + h + margin;
	return 1;
}

/* ---- the time axis ------------------------------------------------------ */

void tui_axis_init(struct tui_axis *a, int64_t lo, int64_t hi)
{
	if (hi <= lo)
		hi = lo + 1000000;
	a->lo = a->from = lo;
	a->hi = a->to = hi;
}

/* Shifts [from, to] to lie inside [lo, hi], keeping its span when it fits. */
static void axis_clamp(struct tui_axis *a)
{
	int64_t span = a->to - a->from;

	if (span >= a->hi - a->lo) {
		a->from = a->lo, a->to = a->hi;
		return;
	}
	if (a->from < a->lo)
		a->from = a->lo, a->to = a->lo + span;
	if (a->to > a->hi)
		a->to = a->hi, a->from = a->hi - span;
}

void tui_axis_zoom(struct tui_axis *a, enum tui_zoom z)
{
	int64_t span = a->to - a->from, mid = a->from + span / 2;

	if (z == TUI_ZOOM_IN)
		span = span / 2 < TUI_AXIS_MIN_SPAN
			   ? (span < TUI_AXIS_MIN_SPAN ? span : TUI_AXIS_MIN_SPAN)
			   : span / 2;
	else
		span = span > (a->hi - a->lo) / 2 ? a->hi - a->lo : span * 2;
	a->from = mid - span / 2;
	a->to = a->from + span;
	axis_clamp(a);
}

void tui_axis_center(struct tui_axis *a, int64_t at)
{
	int64_t span = a->to - a->from;

	a->from = at - span / 2;
	a->to = a->from + span;
	axis_clamp(a);
}

void tui_axis_pan(struct tui_axis *a, int dir)
{
	int64_t step = (a->to - a->from) / 4;

	if (step < 1)
		step = 1;
	a->from += dir < 0 ? -step : step;
	a->to += dir < 0 ? -step : step;
	axis_clamp(a);
}

/* ---- heartbeat buckets -------------------------------------------------- */

enum tui_cell tui_kind_cell(enum lt_episode_kind k)
{
	static const enum tui_cell of_strip[] = {
	    [LT_STRIP_NONE] = TUI_C_NONE,
	    [LT_STRIP_RENEWED] = TUI_C_RENEWED,
	    [LT_STRIP_GAP] = TUI_C_GAP,
	    [LT_STRIP_404] = TUI_C_404,
	    [LT_STRIP_AUTH] = TUI_C_AUTH,
	    [LT_STRIP_DELETED] = TUI_C_DELETED,
	    [LT_STRIP_NOT_READY] = TUI_C_NOT_READY,
	    [LT_STRIP_HOLDER] = TUI_C_HOLDER,
	};

	return of_strip[lt_episode_kind_info(k)->strip];
}

enum tui_style tui_kind_style(enum lt_episode_kind k)
{
	static const enum tui_style of_tone[] = {
	    [LT_TONE_NORMAL] = TUI_S_NORMAL,
	    [LT_TONE_OK] = TUI_S_RENEWED,
	    [LT_TONE_WARN] = TUI_S_GAP,
	    [LT_TONE_NOT_FOUND] = TUI_S_404,
	    [LT_TONE_AUTH] = TUI_S_AUTH,
	    [LT_TONE_DELETED] = TUI_S_DELETED,
	    [LT_TONE_NOT_READY] = TUI_S_NOT_READY,
	};

	return of_tone[lt_episode_kind_info(k)->tone];
}

/* The bucket holding time t, clamped into [0, n). */
static int bucket_of(int64_t t, int n, int64_t from, int64_t to)
{
	int64_t span = to - from, i;

	if (t <= from || span <= 0)
		return 0;
	if (t >= to)
		return n - 1;
	if (span <= INT64_MAX / n)
		i = (t - from) * n / span;
	else
		i = (int64_t)((double)(t - from) * n / (double)span);
	return i >= n ? n - 1 : (int)i;
}

/* Marks the buckets [s, e] overlaps with c, where c is stronger than what they hold. */
static void bucket_mark(unsigned char *cells, int n, int64_t from, int64_t to, int64_t s, int64_t e,
			enum tui_cell c)
{
	if (e < from || s > to || e < s)
		return;
	for (int i = bucket_of(s, n, from, to), last = bucket_of(e, n, from, to); i <= last; i++)
		if (cells[i] < c)
			cells[i] = (unsigned char)c;
}

void tui_buckets(unsigned char *cells, int n, int64_t from, int64_t to,
		 const struct lt_browse_episode *eps, size_t neps)
{
	if (n <= 0)
		return;
	memset(cells, TUI_C_NONE, (size_t)n);
	for (size_t i = 0; i < neps; i++) {
		enum tui_cell c = tui_kind_cell(eps[i].kind);

		bucket_mark(cells, n, from, to, eps[i].start_us, eps[i].end_us, c);
		/* a deleted lease stays gone until its next episode (or the end) */
		if (c == TUI_C_DELETED) {
			int64_t until = i + 1 < neps ? eps[i + 1].start_us - 1 : to;

			bucket_mark(cells, n, from, to, eps[i].start_us, until, TUI_C_GONE);
		}
	}
}

char tui_cell_symbol(enum tui_cell c)
{
	static const char symbols[TUI_C_COUNT] = {
	    [TUI_C_NONE] = ' ', [TUI_C_GONE] = '-',	 [TUI_C_RENEWED] = '=',
	    [TUI_C_GAP] = '~',	[TUI_C_NOT_READY] = '!', [TUI_C_404] = 'x',
	    [TUI_C_AUTH] = 'A', [TUI_C_DELETED] = 'D',	 [TUI_C_HOLDER] = 'H',
	};

	return c < TUI_C_COUNT ? symbols[c] : '?';
}

const char *tui_cell_name(enum tui_cell c)
{
	static const char *const names[TUI_C_COUNT] = {
	    [TUI_C_NONE] = "no data",	      [TUI_C_GONE] = "gone",
	    [TUI_C_RENEWED] = "renewed",      [TUI_C_GAP] = "gap",
	    [TUI_C_NOT_READY] = "NotReady",   [TUI_C_404] = "404",
	    [TUI_C_AUTH] = "auth failure",    [TUI_C_DELETED] = "deleted",
	    [TUI_C_HOLDER] = "holder change",
	};

	return c < TUI_C_COUNT ? names[c] : "?";
}

/* ---- text --------------------------------------------------------------- */

/* The code point at s (1..4 bytes, *n of them); invalid bytes count as one U+FFFD. */
static uint32_t text_decode(const unsigned char *s, size_t len, size_t *n)
{
	uint32_t c = s[0];
	size_t k = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;

	if (k == 0 || k > len) {
		*n = 1;
		return 0xfffd;
	}
	c &= k == 1 ? 0x7f : k == 2 ? 0x1f : k == 3 ? 0x0f : 0x07;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*n = 1;
			return 0xfffd;
		}
		c = (c << 6) | (s[i] & 0x3f);
	}
	*n = k;
	return c;
}

static int text_cp_width(uint32_t cp)
{
	int w = wcwidth((wchar_t)cp);

	return w < 0 ? 1 : w;
}

int tui_text_width(const char *s, size_t len)
{
	int used;

	tui_text_fit(s, len, 1 << 30, &used);
	return used;
}

size_t tui_text_fit(const char *s, size_t len, int width, int *used)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	int cols = 0;

	while (i < len) {
		size_t n;
		int w = text_cp_width(text_decode(p + i, len - i, &n));

		if (cols + w > width)
			break;
		cols += w;
		i += n;
	}
	if (used)
		*used = cols;
	return i;
}

#define TUI_ELLIPSIS "\xe2\x80\xa6" /* U+2026, one column: marks every cut */

/* The byte after the first skip columns of s (whole characters); *cols gets those skipped. */
static size_t safe_skip(const char *s, size_t len, int skip, int *cols)
{
	size_t n = skip > 0 ? tui_text_fit(s, len, skip, cols) : 0;

	if (skip <= 0)
		*cols = 0;
	return n;
}

void tui_safe_from(struct lt_buf *out, const char *s, size_t len, int skip, int width, int *used)
{
	struct lt_buf b;
	size_t start, n;
	int cols = 0, rest;

	lt_buf_init(&b);
	lt_sanitize(&b, s, len);
	lt_buf_reset(out);
	start = safe_skip(b.ptr, b.len, skip, &rest);
	if (skip > 0 && start > 0 && width > 1) { /* scrolled: say that text lies to the left */
		lt_buf_append(out, TUI_ELLIPSIS, sizeof TUI_ELLIPSIS - 1);
		start += tui_text_fit(b.ptr + start, b.len - start, 1, NULL);
		width--, cols++;
	}
	n = tui_text_fit(b.ptr + start, b.len - start, width, &rest);
	if (start + n < b.len && width >= 1) { /* cut: the last column says so */
		n = tui_text_fit(b.ptr + start, b.len - start, width - 1, &rest);
		lt_buf_append(out, b.ptr + start, n);
		lt_buf_append(out, TUI_ELLIPSIS, sizeof TUI_ELLIPSIS - 1);
		rest++;
	} else {
		lt_buf_append(out, b.ptr + start, n);
	}
	if (used)
		*used = cols + rest;
	lt_buf_release(&b);
}

void tui_safe(struct lt_buf *out, const char *s, size_t len, int width, int *used)
{
	tui_safe_from(out, s, len, 0, width, used);
}

/* ---- JSON layout -------------------------------------------------------- */

static void json_newline(struct lt_buf *out, int depth)
{
	lt_buf_putc(out, '\n');
	for (int i = 0; i < depth && i < 64; i++)
		lt_buf_append(out, "  ", 2);
}

/* Copies the string starting at s[i] (a quote) through its closing quote; returns the end. */
static size_t json_string(struct lt_buf *out, const char *s, size_t len, size_t i)
{
	size_t j = i + 1;

	while (j < len && s[j] != '"')
		j += s[j] == '\\' && j + 1 < len ? 2 : 1;
	j = j < len ? j + 1 : len;
	lt_buf_append(out, s + i, j - i);
	return j;
}

/* The next byte after i that is not JSON whitespace, or len. */
static size_t json_skip(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

void tui_json_pretty(struct lt_buf *out, const char *s, size_t len)
{
	int depth = 0;

	for (size_t i = json_skip(s, len, 0); i < len; i = json_skip(s, len, i)) {
		char c = s[i];
		size_t next;

		if (c == '"') {
			i = json_string(out, s, len, i);
		} else if (c == '{' || c == '[') {
			next = json_skip(s, len, i + 1);
			if (next < len && (s[next] == '}' || s[next] == ']')) {
				/* {} and [] stay on their line */
				lt_buf_putc(out, c);
				lt_buf_putc(out, s[next]);
				i = next + 1;
				continue;
			}
			lt_buf_putc(out, c);
			json_newline(out, ++depth);
			i++;
		} else if (c == '}' || c == ']') {
			json_newline(out, depth > 0 ? --depth : 0);
			lt_buf_putc(out, c);
			i++;
		} else if (c == ',') {
			lt_buf_putc(out, c);
			json_newline(out, depth);
			i++;
		} else if (c == ':') {
			lt_buf_append(out, ": ", 2);
			i++;
		} else {
			lt_buf_putc(out, c);
			i++;
		}
	}
	if (out->ptr == NULL)
		lt_buf_append(out, "", 0);
}

void tui_wrap(struct tui_span **rows, size_t *n, size_t *cap, const char *text, size_t len,
	      int width)
{
	size_t i = 0;

	if (width < 1)
		width = 1;
	while (i <= len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len;

		/* one line: rows of width columns, at least one (an empty line shows) */
		do {
			size_t take = tui_text_fit(text + i, end - i, width, NULL);

			if (take == 0 && i < end)
				take = 1; /* a character wider than the screen */
			*rows = lt_grow(*rows, cap, *n + 1, sizeof **rows);
			(*rows)[(*n)++] = (struct tui_span){i, take};
			i += take;
		} while (i < end);
		if (nl == NULL)
			break;
		i = end + 1;
	}
}

/* ---- line editing ------------------------------------------------------- */

static void line_put(struct tui_line *l, uint32_t cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80)
		u[0] = (char)cp, n = 1;
	else if (cp < 0x800)
		u[0] = (char)(0xc0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
	else if (cp < 0x10000)
		u[0] = (char)(0xe0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
		u[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
	else
		u[0] = (char)(0xf0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), u[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
	if (l->len + n >= sizeof l->buf)
		return;
	memcpy(l->buf + l->len, u, n);
	l->len += n;
	l->buf[l->len] = '\0';
}

int tui_line_key(struct tui_line *l, int key)
{
	switch (key) {
	case TUI_K_ENTER:
		return 1;
	case TUI_K_ESC:
		return -1;
	case TUI_K_BACKSPACE:
	case 0x7f:
	case TUI_CTRL('h'):
		while (l->len > 0 && ((unsigned char)l->buf[--l->len] & 0xc0) == 0x80)
			;
		l->buf[l->len] = '\0';
		return 0;
	case TUI_CTRL('u'):
		l->len = 0;
		l->buf[0] = '\0';
		return 0;
	default:
		/* printable characters only: no control or surrogate goes into a pattern */
		if (key >= 0x20 && key != 0x7f && !(key >= 0x80 && key < 0xa0) &&
		    !(key >= 0xd800 && key < 0xe000) && key < 0x110000)
			line_put(l, (uint32_t)key);
		return 0;
	}
}

void tui_fmt_time(char *buf, size_t size, int64_t us, unsigned fmt)
{
	char iso[40];

	if (us == 0) {
		snprintf(buf, size, "-");
		return;
	}
	lt_time_format_zone(iso, sizeof iso, us); /* 2024-04-05T05:56:00.230965Z, or +02:00 */
	if (fmt & TUI_TIME_DATE)
		snprintf(buf, size, "%.10s %.*s", iso, fmt & TUI_TIME_MS ? 12 : 8, iso + 11);
	else
		snprintf(buf, size, "%.*s", fmt & TUI_TIME_MS ? 12 : 8, iso + 11);
}

/* ---- jumping from a query result ----------------------------------------- */

/* The text of column name in row r ("" when there is no such column or no value). */
static const char *result_text(const struct lt_rows *t, size_t r, const char *name)
{
	const struct lt_cell *c = lt_rows_cell(t, r, lt_rows_col(t, name));

	return c->type == LT_CELL_TEXT ? c->s : "";
}

char *tui_result_target(const struct lt_rows *t, size_t r)
{
	const char *node = result_text(t, r, "node"), *ns = result_text(t, r, "namespace");
	const char *name = result_text(t, r, "lease"), *resource = result_text(t, r, "resource");
	struct lt_buf b;

	if (node[0] != '\0')
		return lt_xstrdup(node);
	if (name[0] == '\0')
		name = result_text(t, r, "name");
	if (name[0] == '\0')
		return NULL;
	if (strcmp(resource, "nodes") == 0 || strcmp(ns, "kube-node-lease") == 0)
		return lt_xstrdup(name); /* a node: its lease and its Node object */
	lt_buf_init(&b);
	/* identity leases are listed without their namespace: they live in kube-system */
	lt_buf_printf(&b, "%s/%s", ns[0] ? ns : "kube-system", name);
	return b.ptr;
}

int64_t tui_result_time(const struct lt_rows *t, size_t r)
{
	for (int c = 0; c < t->ncols; c++) {
		const struct lt_cell *v = lt_rows_cell(t, r, c);

		if (v->type == LT_CELL_TIME)
			return v->i;
	}
	return 0;
}

/* How well timeline row i fits `about`: 2 its kind, 1 the lease's or Node's, 0 a log line. */
static int pick_fit(const struct lt_rows *tl, size_t i, const struct tui_about *about)
{
	const struct lt_cell *k = lt_rows_cell(tl, i, LT_TL_KIND);

	if (k->type == LT_CELL_KIND && about != NULL && about->kind != LT_EP_NONE &&
	    (k->i == (int64_t)about->kind || k->i == (int64_t)about->also))
		return 2;
	if (k->type == LT_CELL_TEXT && about != NULL && about->log_kind != NULL &&
	    strcmp(k->s, about->log_kind) == 0) /* the parser's log kinds: texts, not enums */
		return 2;
	return k->type == LT_CELL_KIND ? 1 : 0;
}

size_t tui_timeline_pick(const struct lt_rows *tl, int64_t at_us, const struct tui_about *about)
{
	size_t best = 0;
	int best_fit = -1;
	uint64_t best_d = UINT64_MAX;

	for (size_t i = 0; i < tl->nrows; i++) {
		int64_t start = lt_rows_cell(tl, i, LT_TL_START)->i;
		uint64_t d = start > at_us ? (uint64_t)start - (uint64_t)at_us
					   : (uint64_t)at_us - (uint64_t)start;
		int fit = pick_fit(tl, i, about);

		if (fit > best_fit || (fit == best_fit && d < best_d))
			best = i, best_fit = fit, best_d = d;
	}
	return best;
}
