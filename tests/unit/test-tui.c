/*
 * test-tui.c - unit tests of the terminal browser's logic, without a
 * terminal: list windows and paging, the time axis, heartbeat buckets,
 * sanitizing and clipping, JSON layout, wrapping, line editing, the key
 * table, result tables and jumping from them; then the browsing
 * API of the query layer on a store built from samples/audit.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <locale.h>

#include "tui-int.h"
#include "test-files.h"

#define SEC 1000000LL

/* ---- windows and paging ------------------------------------------------- */

static void test_win_moves(void **state)
{
	struct tui_win w = {100, 0, 0, 10};

	(void)state;
	tui_win_move(&w, 5);
	assert_int_equal(w.cur, 5);
	assert_int_equal(w.top, 0);
	tui_win_move(&w, 7); /* past the window: it scrolls just enough */
	assert_int_equal(w.cur, 12);
	assert_int_equal(w.top, 3);
	tui_win_move(&w, -100);
	assert_int_equal(w.cur, 0);
	assert_int_equal(w.top, 0);
	assert_true(tui_win_apply(&w, TUI_A_BOTTOM));
	assert_int_equal(w.cur, 99);
	assert_int_equal(w.top, 90);
	assert_true(tui_win_apply(&w, TUI_A_TOP));
	assert_int_equal(w.cur, 0);
	assert_false(tui_win_apply(&w, TUI_A_ENTER));
}

static void test_win_pages(void **state)
{
	struct tui_win w = {25, 0, 2, 10};

	(void)state;
	tui_win_apply(&w, TUI_A_PGDN); /* a whole screen, the cursor keeps its line */
	assert_int_equal(w.top, 10);
	assert_int_equal(w.cur, 12);
	tui_win_apply(&w, TUI_A_PGDN); /* the last screen ends at the last row */
	assert_int_equal(w.top, 15);
	assert_int_equal(w.cur, 22);
	tui_win_apply(&w, TUI_A_PGDN);
	assert_int_equal(w.cur, 24);
	tui_win_apply(&w, TUI_A_PGUP);
	assert_int_equal(w.top, 5);
	assert_int_equal(w.cur, 14);
	tui_win_apply(&w, TUI_A_PGUP);
	tui_win_apply(&w, TUI_A_PGUP);
	assert_int_equal(w.top, 0);
	assert_int_equal(w.cur, 0);
}

static void test_win_edges(void **state)
{
	struct tui_win empty = {0, 0, 0, 10}, short_list = {3, 0, 0, 10};

	(void)state;
	tui_win_apply(&empty, TUI_A_DOWN);
	tui_win_apply(&empty, TUI_A_PGDN);
	tui_win_apply(&empty, TUI_A_BOTTOM);
	assert_int_equal(empty.cur, 0);
	assert_int_equal(empty.top, 0);
	tui_win_apply(&short_list, TUI_A_PGDN);
	assert_int_equal(short_list.cur, 2);
	assert_int_equal(short_list.top, 0);
	/* a list that shrank under the cursor (a reload with a filter) */
	short_list = (struct tui_win){3, 40, 45, 10};
	tui_win_fix(&short_list);
	assert_int_equal(short_list.cur, 2);
	assert_int_equal(short_list.top, 0);
}

static void test_page_want(void **state)
{
	struct tui_win w = {1000, 0, 0, 20};
	size_t off, n;

	(void)state;
	assert_true(tui_page_want(&w, 0, 0, &off, &n)); /* nothing held */
	assert_int_equal(off, 0);
	assert_true(n >= 20);
	assert_false(tui_page_want(&w, 0, n, &off, &n)); /* covered: no query */
	w.top = 500;
	assert_true(tui_page_want(&w, 0, 40, &off, &n));
	assert_true(off <= 500 && off + n >= 520);
	assert_true(n <= 3 * 20); /* a page, not the table */
	/* the end of the list: what exists is enough */
	w.top = 990;
	assert_false(tui_page_want(&w, 980, 20, &off, &n));
}

/* ---- time axis and buckets ---------------------------------------------- */

static void test_axis(void **state)
{
	struct tui_axis a;

	(void)state;
	tui_axis_init(&a, 0, 1000 * SEC);
	tui_axis_zoom(&a, TUI_ZOOM_IN);
	assert_int_equal(a.from, 250 * SEC);
	assert_int_equal(a.to, 750 * SEC);
	tui_axis_pan(&a, 1);
	assert_int_equal(a.from, 375 * SEC);
	for (int i = 0; i < 10; i++)
		tui_axis_pan(&a, 1); /* stops at the end */
	assert_int_equal(a.to, 1000 * SEC);
	assert_int_equal(a.to - a.from, 500 * SEC);
	for (int i = 0; i < 40; i++)
		tui_axis_zoom(&a, TUI_ZOOM_IN); /* stops at the smallest span */
	assert_int_equal(a.to - a.from, TUI_AXIS_MIN_SPAN);
	for (int i = 0; i < 40; i++)
		tui_axis_zoom(&a, TUI_ZOOM_OUT); /* and at the whole range */
	assert_int_equal(a.from, 0);
	assert_int_equal(a.to, 1000 * SEC);
	tui_axis_init(&a, 5, 5); /* an empty store still has an axis */
	assert_true(a.to > a.from);
}

static void cells_string(char *out, const unsigned char *cells, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = tui_cell_symbol((enum tui_cell)cells[i]);
	out[n] = '\0';
}

static void test_buckets(void **state)
{
	/* the deleted node of the samples, in seconds: renewing, node and lease deleted, 404s */
	static const struct lt_browse_episode eps[] = {
	    {.lease_id = 1, .kind = LT_EP_RENEWING, .start_us = 0, .end_us = 355 * SEC},
	    {.lease_id = 1, .kind = LT_EP_DELETED, .start_us = 356 * SEC, .end_us = 356 * SEC},
	    {.lease_id = 1, .kind = LT_EP_NOT_FOUND, .start_us = 365 * SEC, .end_us = 716 * SEC},
	    {.lease_id = 1, .kind = LT_EP_RECREATED, .start_us = 716 * SEC, .end_us = 716 * SEC},
	    {.lease_id = 1, .kind = LT_EP_RENEWING, .start_us = 716 * SEC, .end_us = 890 * SEC},
	};
	unsigned char cells[30];
	char s[31];

	(void)state;
	tui_buckets(cells, 30, 0, 900 * SEC, eps, 5); /* 30 s a bucket */
	cells_string(s, cells, 30);
	assert_string_equal(s, "===========Dxxxxxxxxxxxx======");
	/* a gap and an auth failure are stronger than renewing; a lone delete stays gone */
	{
		static const struct lt_browse_episode more[] = {
		    {.lease_id = 2, .kind = LT_EP_RENEWING, .start_us = 0, .end_us = 300 * SEC},
		    {.lease_id = 2, .kind = LT_EP_GAP, .start_us = 100 * SEC, .end_us = 160 * SEC},
		    {.lease_id = 2,
		     .kind = LT_EP_AUTH_FAILURE,
		     .start_us = 200 * SEC,
		     .end_us = 210 * SEC},
		    {.lease_id = 2,
		     .kind = LT_EP_DELETED,
		     .start_us = 400 * SEC,
		     .end_us = 400 * SEC},
		};

		tui_buckets(cells, 10, 0, 900 * SEC, more, 4); /* 90 s a bucket */
		cells_string(s, cells, 10);
		assert_string_equal(s, "=~A=D-----");
	}
	/* zoomed past the delete: the state the window opens in still shows */
	tui_buckets(cells, 10, 360 * SEC, 364 * SEC, eps, 2);
	cells_string(s, cells, 10);
	assert_string_equal(s, "----------");
	tui_buckets(cells, 10, 0, 900 * SEC, NULL, 0);
	cells_string(s, cells, 10);
	assert_string_equal(s, "          ");
}

/* NotReady time has its own symbol and style: over renewing and gaps, under 404s and deletes. */
static void test_buckets_not_ready(void **state)
{
	static const struct lt_browse_episode eps[] = {
	    {.lease_id = 1, .kind = LT_EP_RENEWING, .start_us = 0, .end_us = 300 * SEC},
	    {.lease_id = 1, .kind = LT_EP_NOT_READY, .start_us = 60 * SEC, .end_us = 149 * SEC},
	    {.lease_id = 1, .kind = LT_EP_GAP, .start_us = 90 * SEC, .end_us = 119 * SEC},
	    {.lease_id = 1, .kind = LT_EP_NOT_READY, .start_us = 210 * SEC, .end_us = 299 * SEC},
	    {.lease_id = 1, .kind = LT_EP_NOT_FOUND, .start_us = 240 * SEC, .end_us = 269 * SEC},
	};
	unsigned char cells[10];
	char s[11];

	(void)state;
	tui_buckets(cells, 10, 0, 300 * SEC, eps, 5); /* 30 s a bucket */
	cells_string(s, cells, 10);
	assert_string_equal(s, "==!!!==!x!");
	assert_int_equal(tui_kind_cell(LT_EP_NOT_READY), TUI_C_NOT_READY);
	assert_int_equal(tui_kind_style(LT_EP_NOT_READY), TUI_S_NOT_READY);
	assert_int_equal(tui_cell_style(TUI_C_NOT_READY), TUI_S_NOT_READY);
	assert_string_equal(tui_cell_name(TUI_C_NOT_READY), "NotReady");
}

/* ---- text --------------------------------------------------------------- */

static void test_safe_text(void **state)
{
	/* a record that would retitle the terminal, clear it, move the cursor, reverse text */
	static const char hostile[] = "node\x1b]0;pwned\x07\x1b[2J\x1b[H\r\n\xe2\x80\xae"
				      "evil\xff\xc3(end";
	struct lt_buf out;
	int used;

	(void)state;
	lt_buf_init(&out);
	tui_safe(&out, hostile, sizeof hostile - 1, 1000, &used);
	for (size_t i = 0; i < out.len; i++)
		assert_true((unsigned char)out.ptr[i] >= 0x20 && out.ptr[i] != 0x7f);
	assert_non_null(strstr(out.ptr, "\\x1b]0;pwned\\x07"));
	assert_non_null(strstr(out.ptr, "\\u{202e}evil\\xff\\xc3(end"));
	assert_int_equal(used, (int)out.len); /* all ASCII now */
	/* clipped to whole characters within the width, a cut marked by an ellipsis */
	tui_safe(&out, "caf\xc3\xa9 au lait", 13, 4, &used);
	assert_string_equal(out.ptr, "caf\xe2\x80\xa6");
	assert_int_equal(used, 4);
	tui_safe(&out, "caf\xc3\xa9", 5, 4, &used);
	assert_string_equal(out.ptr, "caf\xc3\xa9"); /* it fits: no ellipsis */
	tui_safe(&out, "\x1b[31m", 5, 3, &used);
	assert_string_equal(out.ptr, "\\x\xe2\x80\xa6"); /* cut inside the escape's text */
	/* scrolled: the columns left out are an ellipsis at the left edge */
	tui_safe_from(&out, "0123456789", 10, 4, 4, &used);
	assert_string_equal(out.ptr, "\xe2\x80\xa6"
				     "56\xe2\x80\xa6");
	assert_int_equal(used, 4);
	tui_safe_from(&out, "0123456789", 10, 4, 10, &used);
	assert_string_equal(out.ptr, "\xe2\x80\xa6"
				     "56789");
	assert_int_equal(used, 6);
	tui_safe_from(&out, "01", 2, 4, 10, &used);
	assert_string_equal(out.ptr, "\xe2\x80\xa6");
	lt_buf_release(&out);
}

static void test_text_width(void **state)
{
	int used;

	(void)state;
	assert_int_equal(tui_text_width("abc", 3), 3);
	assert_int_equal(tui_text_width("caf\xc3\xa9", 5), 4);
	assert_int_equal(tui_text_fit("caf\xc3\xa9", 5, 3, &used), 3);
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		return;
	/* two columns each: a wide character never straddles the edge */
	assert_int_equal(tui_text_width("\xe6\x97\xa5\xe6\x9c\xac", 6), 4);
	assert_int_equal(tui_text_fit("\xe6\x97\xa5\xe6\x9c\xac", 6, 3, &used), 3);
	assert_int_equal(used, 2);
}

static void pretty(char *out, size_t size, const char *json)
{
	struct lt_buf b;

	lt_buf_init(&b);
	tui_json_pretty(&b, json, strlen(json));
	snprintf(out, size, "%s", b.ptr);
	lt_buf_release(&b);
}

static void test_json_pretty(void **state)
{
	char s[512];

	(void)state;
	pretty(s, sizeof s, "{\"a\":1,\"b\":[true,null],\"c\":{},\"d\":[]}");
	assert_string_equal(s, "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ],\n"
			       "  \"c\": {},\n  \"d\": []\n}");
	/* string contents are copied as they are: brackets, commas, escaped quotes */
	pretty(s, sizeof s, " { \"k\" : \"x,{y}\\\"[z]\\u001b\" } ");
	assert_string_equal(s, "{\n  \"k\": \"x,{y}\\\"[z]\\u001b\"\n}");
	/* broken input still comes out, no line lost */
	pretty(s, sizeof s, "{\"a\":\"unterminated");
	assert_string_equal(s, "{\n  \"a\": \"unterminated");
	pretty(s, sizeof s, "]]}");
	assert_string_equal(s, "\n]\n]\n}");
	pretty(s, sizeof s, "");
	assert_string_equal(s, "");
}

static void test_wrap(void **state)
{
	static const char text[] = "abcdefghij\n\nxy";
	struct tui_span *rows = NULL;
	size_t n = 0, cap = 0;

	(void)state;
	tui_wrap(&rows, &n, &cap, text, strlen(text), 4);
	assert_int_equal(n, 5); /* abcd efgh ij, the empty line, xy */
	assert_int_equal(rows[0].off, 0);
	assert_int_equal(rows[0].len, 4);
	assert_int_equal(rows[2].off, 8);
	assert_int_equal(rows[2].len, 2);
	assert_int_equal(rows[3].len, 0);
	assert_int_equal(rows[4].off, 12);
	assert_int_equal(rows[4].len, 2);
	n = 0;
	tui_wrap(&rows, &n, &cap, "", 0, 10);
	assert_int_equal(n, 1);
	free(rows);
}

static void test_line_edit(void **state)
{
	struct tui_line l = {"", 0};

	(void)state;
	assert_int_equal(tui_line_key(&l, 'a'), 0);
	assert_int_equal(tui_line_key(&l, 0xe9), 0); /* é: two bytes */
	assert_int_equal(tui_line_key(&l, 0x1b), 0); /* a control character is not typed */
	assert_int_equal(tui_line_key(&l, 0x9b), 0); /* nor a C1 control */
	assert_string_equal(l.buf, "a\xc3\xa9");
	assert_int_equal(tui_line_key(&l, TUI_K_BACKSPACE), 0); /* the whole é */
	assert_string_equal(l.buf, "a");
	tui_line_key(&l, 'b');
	assert_int_equal(tui_line_key(&l, TUI_CTRL('u')), 0);
	assert_string_equal(l.buf, "");
	assert_int_equal(tui_line_key(&l, TUI_K_BACKSPACE), 0);
	assert_int_equal(tui_line_key(&l, TUI_K_ENTER), 1);
	assert_int_equal(tui_line_key(&l, TUI_K_ESC), -1);
	for (int i = 0; i < 1000; i++)
		tui_line_key(&l, 'x'); /* bounded */
	assert_true(l.len < sizeof l.buf);
}

static void test_fmt_time(void **state)
{
	char s[40];

	(void)state;
	tui_fmt_time(s, sizeof s, 1712296560230965LL, TUI_TIME_MS);
	assert_string_equal(s, "05:56:00.230");
	tui_fmt_time(s, sizeof s, 1712296560230965LL, TUI_TIME_DATE);
	assert_string_equal(s, "2024-04-05 05:56:00");
	tui_fmt_time(s, sizeof s, 0, TUI_TIME_CLOCK);
	assert_string_equal(s, "-");
}

/* ---- round times on an axis (tui-axis.c) ---------------------------------- */

static void test_axis_ticks(void **state)
{
	const int64_t t0 = 1712296200 * SEC; /* 2024-04-05T05:50:00Z */
	struct tui_tick k[TUI_AXIS_MAX_TICKS];
	size_t n;

	(void)state;
	/* 15 min over 60 columns: 1 min would put labels 4 columns apart, 2 min 8 */
	n = tui_axis_ticks(k, TUI_AXIS_MAX_TICKS, t0, t0 + 15 * 60 * SEC, 60);
	assert_int_equal(n, 7); /* 06:04 would end past the last column */
	assert_string_equal(k[6].text, "06:02");
	assert_string_equal(k[0].text, "05:50");
	assert_int_equal(k[0].col, 0);
	assert_string_equal(k[1].text, "05:52");
	assert_int_equal(k[1].col, 8);
	for (size_t i = 1; i < n; i++) {
		assert_true(k[i].col >= k[i - 1].col + (int)strlen(k[i - 1].text) + 2);
		assert_true(k[i].col + (int)strlen(k[i].text) <= 60);
	}
	/* a start between round times: the first tick is the next round one */
	n = tui_axis_ticks(k, TUI_AXIS_MAX_TICKS, t0 + 7 * SEC, t0 + 67 * SEC, 80);
	assert_true(n > 2);
	assert_string_equal(k[0].text, "05:50:10");
	assert_int_equal(k[0].us, t0 + 10 * SEC);
	/* a half-hour zone: ticks at its round hours, midnight says the day */
	assert_int_equal(lt_zone_set("+05:30", NULL), 0);
	n = tui_axis_ticks(k, TUI_AXIS_MAX_TICKS, t0 - 350 * 60 * SEC, t0 + (1440 - 350) * 60 * SEC,
			   96);
	assert_string_equal(k[0].text, "06:00"); /* 00:30Z */
	assert_int_equal(k[0].us, t0 - 320 * 60 * SEC);
	assert_int_equal(k[0].col, 2);
	assert_string_equal(k[n - 3].text, "04-06");
	assert_int_equal(tui_axis_floor(t0, tui_axis_step_pick(3600 * SEC, 1)), t0 - 20 * 60 * SEC);
	lt_zone_set(NULL, NULL);
	/* bins: the shortest round step that fits the span in n */
	assert_int_equal(tui_axis_step_us(tui_axis_step_pick(15 * 60 * SEC, 36)), 30 * SEC);
	assert_int_equal(tui_axis_step_us(tui_axis_step_pick(15 * 60 * SEC, 1000)), SEC);
	assert_int_equal(tui_axis_step_us(tui_axis_step_pick(400 * 86400 * SEC, 2)),
			 7 * 86400 * SEC);
	assert_int_equal(tui_axis_ticks(k, TUI_AXIS_MAX_TICKS, t0, t0, 60), 0);
}

/* One time format in rows: the clock with ms, and the date when the range spans days (in the zone).
 */
static void test_time_rows(void **state)
{
	const int64_t t0 = 1712296200 * SEC; /* 2024-04-05T05:50:00Z */

	(void)state;
	assert_int_equal(tui_time_rows(t0, t0 + 3600 * SEC), TUI_TIME_MS);
	assert_int_equal(tui_time_rows(t0, t0 + 20 * 3600 * SEC), TUI_TIME_MS | TUI_TIME_DATE);
	assert_int_equal(lt_zone_set("+05:30", NULL), 0);
	/* 18:00Z-19:00Z is 23:30-00:30 here: two days; 20:00Z-21:00Z one */
	assert_int_equal(tui_time_rows(t0 + 730 * 60 * SEC, t0 + 790 * 60 * SEC),
			 TUI_TIME_MS | TUI_TIME_DATE);
	assert_int_equal(tui_time_rows(t0 + 850 * 60 * SEC, t0 + 910 * 60 * SEC), TUI_TIME_MS);
	lt_zone_set(NULL, NULL);
}

/* A holder change has its own cell, stronger than a renew, weaker than a delete. */
static void test_buckets_holder(void **state)
{
	const struct lt_browse_episode eps[] = {
	    {1, LT_EP_RENEWING, 0, 99 * SEC},
	    {1, LT_EP_HOLDER_CHANGE, 50 * SEC, 50 * SEC},
	    {1, LT_EP_RENEWING, 50 * SEC, 99 * SEC},
	};
	unsigned char cells[10];

	(void)state;
	tui_buckets(cells, 10, 0, 100 * SEC, eps, 3);
	assert_int_equal(cells[5], TUI_C_HOLDER);
	assert_int_equal(cells[4], TUI_C_RENEWED);
	assert_int_equal(cells[6], TUI_C_RENEWED);
	assert_int_equal(tui_cell_symbol(TUI_C_HOLDER), 'H');
	assert_true(tui_cell_style(TUI_C_HOLDER) != tui_cell_style(TUI_C_RENEWED));
	assert_true(tui_cell_style(TUI_C_DELETED) != tui_cell_style(TUI_C_AUTH));
	assert_true(TUI_C_HOLDER < TUI_C_DELETED && TUI_C_HOLDER > TUI_C_GAP);
}

/* ---- keys --------------------------------------------------------------- */

static void test_keys(void **state)
{
	(void)state;
	assert_int_equal(tui_key_action('j', TUI_CTX_CLUSTER), TUI_A_DOWN);
	assert_int_equal(tui_key_action(TUI_K_DOWN, TUI_CTX_EVENT), TUI_A_DOWN);
	assert_int_equal(tui_key_action('k', TUI_CTX_TIMELINE), TUI_A_UP);
	assert_int_equal(tui_key_action(TUI_K_PGDN, TUI_CTX_QUERIES), TUI_A_PGDN);
	assert_int_equal(tui_key_action('g', TUI_CTX_HELP), TUI_A_TOP);
	assert_int_equal(tui_key_action('G', TUI_CTX_CLUSTER), TUI_A_BOTTOM);
	assert_int_equal(tui_key_action('/', TUI_CTX_CLUSTER), TUI_A_SEARCH);
	assert_int_equal(tui_key_action('n', TUI_CTX_EVENT), TUI_A_NEXT);
	assert_int_equal(tui_key_action('N', TUI_CTX_TIMELINE), TUI_A_PREV);
	assert_int_equal(tui_key_action(TUI_K_ENTER, TUI_CTX_CLUSTER), TUI_A_ENTER);
	assert_int_equal(tui_key_action(TUI_K_ESC, TUI_CTX_EVENT), TUI_A_BACK);
	assert_int_equal(tui_key_action('q', TUI_CTX_CLUSTER), TUI_A_QUIT_BACK);
	assert_int_equal(tui_key_action(TUI_K_TAB, TUI_CTX_TIMELINE), TUI_A_TAB);
	assert_int_equal(tui_key_action('+', TUI_CTX_CLUSTER), TUI_A_ZOOM_IN);
	assert_int_equal(tui_key_action('-', TUI_CTX_CLUSTER), TUI_A_ZOOM_OUT);
	assert_int_equal(tui_key_action('r', TUI_CTX_TIMELINE), TUI_A_RELOAD);
	assert_int_equal(tui_key_action('?', TUI_CTX_QUERIES), TUI_A_HELP);
	assert_int_equal(tui_key_action(TUI_K_RESIZE, TUI_CTX_EVENT), TUI_A_REDRAW);
	/* bindings are per screen */
	assert_int_equal(tui_key_action('+', TUI_CTX_EVENT), TUI_A_NONE);
	assert_int_equal(tui_key_action('s', TUI_CTX_TIMELINE), TUI_A_NONE);
	assert_int_equal(tui_key_action('x', TUI_CTX_ALL), TUI_A_NONE);
}

/* Every binding is documented (its own line or an earlier key of the same action and
 * screens), and no key means two things on one screen. */
static void test_key_table(void **state)
{
	const struct tui_keydef *keys = tui_keys();

	(void)state;
	for (const struct tui_keydef *k = keys; k->key != TUI_K_NONE; k++) {
		int documented = k->help != NULL && k->label != NULL;

		for (const struct tui_keydef *p = keys; p < k && !documented; p++)
			documented = p->help != NULL && p->action == k->action &&
				     (p->ctx & k->ctx) == k->ctx;
		if (!documented && k->action != TUI_A_REDRAW)
			fail_msg("key %d (action %d) is not in the help", k->key, k->action);
		for (const struct tui_keydef *p = keys; p < k; p++)
			if (p->key == k->key && (p->ctx & k->ctx) != 0 && p->action != k->action)
				fail_msg("key %d bound twice", k->key);
	}
}

/*
 * Whether text has a code span that starts with the key want ("`f" of `f`,
 * `f state=...`, not of `foo`; a punctuation key may go on: `:goto 05:56`).
 */
static int readme_names(const char *text, const char *want)
{
	size_t n = strlen(want);
	int punct = n == 2 && !isalnum((unsigned char)want[1]);

	for (const char *p = strstr(text, want); p != NULL; p = strstr(p + 1, want))
		if (punct || !isalnum((unsigned char)p[n]))
			return 1;
	return 0;
}

/*
 * Every key the help lists is named in the README too: the first name of its
 * label ("PgDn" of "PgDn  Space  Ctrl-F") opens a code span there.
 */
static void test_keys_in_readme(void **state)
{
	FILE *f = fopen(LT_SAMPLES "/../README.md", "r");
	struct lt_buf readme;
	char chunk[4096], want[32];
	size_t n;

	(void)state;
	assert_non_null(f);
	lt_buf_init(&readme);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		lt_buf_append(&readme, chunk, n);
	fclose(f);
	for (const struct tui_keydef *k = tui_keys(); k->key != TUI_K_NONE; k++) {
		size_t len;

		if (k->label == NULL)
			continue;
		len = strcspn(k->label, " ");
		snprintf(want, sizeof want, "`%.*s", (int)len, k->label);
		if (!readme_names(readme.ptr, want))
			fail_msg("the key %s is not in README.md", want + 1);
	}
	lt_buf_release(&readme);
}

/* ---- filters ------------------------------------------------------------- */

static const char *const filter_cols[] = {"name", "state", "404"};

/* A row of the three columns above, as a screen answers for it. */
static const char *filter_row_value(int col, char *buf, size_t size, void *ctx)
{
	(void)buf;
	(void)size;
	return ((const char *const *)ctx)[col];
}

/* 1 when row (three texts) passes filter text; -1 when the text does not parse. */
static int filter_passes(const char *text, const char *name, const char *state, const char *n404)
{
	const char *row[] = {name, state, n404};
	struct tui_filter f;
	char msg[256];
	int r;

	if (tui_filter_parse(&f, text, filter_cols, 3, msg, sizeof msg) != 0)
		return -1;
	r = tui_filter_match(&f, filter_row_value, (void *)row);
	tui_filter_release(&f);
	return r;
}

static void test_filter(void **state)
{
	struct tui_filter f;
	char msg[256];

	(void)state;
	/* a bare regex is the first column's; COL=REGEX any column's, any case */
	assert_int_equal(filter_passes("241-17", "ip-10-0-241-171", "re-created", "41"), 1);
	assert_int_equal(filter_passes("241-17", "ip-10-0-241-74", "re-created", "6"), 0);
	assert_int_equal(filter_passes("state=re-created", "a", "re-created", "0"), 1);
	assert_int_equal(filter_passes("STATE=^not-ready$", "a", "not-ready", "0"), 1);
	assert_int_equal(filter_passes("state=^ready", "a", "not-ready", "0"), 0);
	assert_int_equal(filter_passes("state!=renewing", "a", "renewing", "0"), 0);
	/* smart case, as / */
	assert_int_equal(filter_passes("state=Not", "a", "not-ready", "0"), 0);
	/* numbers; a cell that is not one is neither above nor below */
	assert_int_equal(filter_passes("404>40", "a", "x", "41"), 1);
	assert_int_equal(filter_passes("404>41", "a", "x", "41"), 0);
	assert_int_equal(filter_passes("404<1", "a", "x", "0"), 1);
	assert_int_equal(filter_passes("404<1", "a", "x", ""), 0);
	/* every term must pass; the empty filter passes all */
	assert_int_equal(filter_passes("state=re 404>0 ip-", "ip-1", "re-created", "2"), 1);
	assert_int_equal(filter_passes("state=re 404>5 ip-", "ip-1", "re-created", "2"), 0);
	assert_int_equal(filter_passes("", "a", "b", "c"), 1);
	assert_int_equal(filter_passes("  ", "a", "b", "c"), 1);
	/* an operator first is part of a regex; errors name what is wrong */
	assert_int_equal(filter_passes("=x", "a=x", "", ""), 1);
	assert_int_equal(tui_filter_parse(&f, "zz=1", filter_cols, 3, msg, sizeof msg), -1);
	assert_string_equal(msg, "no column 'zz' here; columns: name, state, 404");
	assert_int_equal(f.n, 0);
	assert_int_equal(tui_filter_parse(&f, "404>many", filter_cols, 3, msg, sizeof msg), -1);
	assert_string_equal(msg, "'many' is not a number");
	assert_int_equal(tui_filter_parse(&f, "state=(", filter_cols, 3, msg, sizeof msg), -1);
	assert_int_equal(tui_filter_parse(&f, "a b c d e f g h i", filter_cols, 3, msg, sizeof msg),
			 -1);
	assert_int_equal(tui_filter_parse(&f, "a b c d e f g h", filter_cols, 3, msg, sizeof msg),
			 0);
	assert_int_equal(f.n, 8);
	assert_string_equal(f.text, "a b c d e f g h");
	tui_filter_release(&f);
}

/* ---- result tables and jumps -------------------------------------------- */

/*
 * A result made by hand, as a query hands it over: v holds ncols names,
 * then one row of ncols cells, text except "@<µs>" (a time).
 */
static void rows_of(struct lt_rows *t, int ncols, const char *const *v)
{
	struct lt_col cols[8];
	struct lt_cell cells[8];
	struct lt_row_sink sink = lt_rows_sink(t);

	memset(t, 0, sizeof *t);
	for (int c = 0; c < ncols; c++) {
		const char *x = v[ncols + c];

		cols[c] = (struct lt_col){.name = v[c],
					  .type = x[0] == '@' ? LT_CELL_TIME : LT_CELL_TEXT};
		cells[c] = x[0] == '@' ? lt_cell_int(LT_CELL_TIME, strtoll(x + 1, NULL, 10))
				       : lt_cell_text(x);
	}
	sink.begin(sink.ctx, cols, ncols);
	sink.row(sink.ctx, cells);
	sink.end(sink.ctx);
}

/* The jump from a one-row result: v is ncols names, then the row. */
static void check_jump(int ncols, const char *const *v, const char *target, int64_t at)
{
	struct lt_rows t;
	char *got;

	rows_of(&t, ncols, v);
	got = tui_result_target(&t, 0);
	if (target == NULL)
		assert_null(got);
	else
		assert_string_equal(got, target);
	assert_int_equal(tui_result_time(&t, 0), at);
	free(got);
	lt_rows_release(&t);
}

static void test_result_jump(void **state)
{
	(void)state;
	/* orphaned-kubelets: a node column */
	check_jump(2, (const char *const[]){"node", "first_404", "n1", "@1712296569636568"}, "n1",
		   1712296569636568LL);
	/* gc-deletes: a node lease by namespace and lease */
	check_jump(3,
		   (const char *const[]){"namespace", "lease", "lease_deleted", "kube-node-lease",
					 "n2", "@1712296560230965"},
		   "n2", 1712296560230965LL);
	/* leader-changes: another namespace */
	check_jump(3,
		   (const char *const[]){"namespace", "lease", "ts", "kube-system", "kcm",
					 "@1712296756143847"},
		   "kube-system/kcm", 1712296756143847LL);
	/* who-deleted: a Node object is its node */
	check_jump(4,
		   (const char *const[]){"ts", "resource", "namespace", "name", "@1712296560198927",
					 "nodes", "", "n3"},
		   "n3", 1712296560198927LL);
	/* apiserver-identity: leases without a namespace column live in kube-system */
	check_jump(2, (const char *const[]){"lease", "holder", "apiserver-x", "h"},
		   "kube-system/apiserver-x", 0);
	check_jump(1, (const char *const[]){"count", "3"}, NULL, 0);
	/* a text cell that reads like a time is text: no time to jump to */
	check_jump(2, (const char *const[]){"node", "note", "n4", "2024-04-05T05:56:09.636568Z"},
		   "n4", 0);
}

/* ---- the browsing API on the samples ------------------------------------ */

static struct lt_store *sample_store;

static int setup_store(void **state)
{
	struct lt_ingest_opts opts = {0};
	struct lt_ingest_totals t = {0};
	struct lt_error err = {0};
	char dir[PATH_SIZE], db[PATH_SIZE], audit[] = LT_SAMPLES "/audit", *paths[] = {audit};

	(void)state;
	case_dir(dir, "browse");
	path_join(db, dir, "s.db");
	if (lt_store_open(&sample_store, db, 0, &err) != 0 ||
	    lt_ingest_run(sample_store, paths, 1, &opts, NULL, &t, &err) != 0) {
		fprintf(stderr, "sample store: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int teardown_store(void **state)
{
	(void)state;
	lt_store_free(sample_store);
	sample_store = NULL;
	return 0;
}

static void test_browse_list(void **state)
{
	struct lt_browse_query q = {LT_BROWSE_BY_NAME, NULL, NULL};
	struct lt_browse_page p;
	struct lt_error err = {0};

	(void)state;
	assert_int_equal(lt_browse_list(&p, sample_store, &q, 0, 100, &err), 0);
	/* 3 nodes, 2 leader leases, 2 apiserver leases, and a heading for each section */
	assert_int_equal(p.total, 10);
	assert_int_equal(p.n, 10);
	assert_true(p.items[0].heading);
	assert_int_equal(p.items[0].count, 3);
	assert_string_equal(p.items[1].target, "ip-10-0-241-171.ec2.internal");
	assert_string_equal(p.items[1].state, "re-created");
	assert_int_equal(p.items[1].not_found, 41);
	assert_int_equal(p.items[1].deletes, 2); /* the Node object and its lease, as `nodes` */
	assert_int_equal(p.items[1].anomalies, 1);
	assert_true(p.items[4].heading);
	assert_int_equal(p.items[4].section, LT_BROWSE_LEADERS);
	assert_string_equal(p.items[5].target, "kube-system/kube-controller-manager");
	assert_int_equal(p.items[5].anomalies, 1); /* its GAP */
	assert_int_equal(p.items[7].section, LT_BROWSE_APISERVERS);
	lt_browse_page_release(&p);
	/* a page: only the rows asked for, the total of the whole list */
	assert_int_equal(lt_browse_list(&p, sample_store, &q, 2, 3, &err), 0);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.total, 10);
	assert_string_equal(p.items[0].target, "ip-10-0-241-227.ec2.internal");
	lt_browse_page_release(&p);
	assert_int_equal(lt_browse_list(&p, sample_store, &q, 50, 10, &err), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.total, 10);
	lt_browse_page_release(&p);
}

static void test_browse_sort(void **state)
{
	struct lt_browse_query q = {LT_BROWSE_BY_ANOMALIES, NULL, NULL};
	struct lt_browse_page p;
	struct lt_error err = {0};

	(void)state;
	assert_int_equal(lt_browse_list(&p, sample_store, &q, 0, 4, &err), 0);
	/* most anomalies first, then by name; sections stay in their order */
	assert_string_equal(p.items[1].target, "ip-10-0-241-171.ec2.internal");
	assert_string_equal(p.items[2].target, "ip-10-0-241-74.ec2.internal");
	assert_string_equal(p.items[3].target, "ip-10-0-241-227.ec2.internal");
	lt_browse_page_release(&p);
	/* problems first: the two re-created nodes with anomalies before the one renewing */
	q.sort = LT_BROWSE_BY_PROBLEMS;
	assert_int_equal(lt_browse_list(&p, sample_store, &q, 0, 4, &err), 0);
	assert_string_equal(p.items[1].target, "ip-10-0-241-171.ec2.internal");
	assert_string_equal(p.items[2].target, "ip-10-0-241-74.ec2.internal");
	assert_string_equal(p.items[3].target, "ip-10-0-241-227.ec2.internal");
	lt_browse_page_release(&p);
	/* most 404s, most deletes (the Node object's counted too): 171 (41, 2), 74 (6, 1) */
	for (q.sort = LT_BROWSE_BY_NOT_FOUND; q.sort <= LT_BROWSE_BY_DELETES; q.sort++) {
		assert_int_equal(lt_browse_list(&p, sample_store, &q, 0, 4, &err), 0);
		assert_string_equal(p.items[1].target, "ip-10-0-241-171.ec2.internal");
		assert_string_equal(p.items[2].target, "ip-10-0-241-74.ec2.internal");
		lt_browse_page_release(&p);
	}
	/* by state's name, then name: re-created before renewing */
	q.sort = LT_BROWSE_BY_STATE;
	assert_int_equal(lt_browse_list(&p, sample_store, &q, 0, 4, &err), 0);
	assert_string_equal(p.items[3].target, "ip-10-0-241-227.ec2.internal");
	lt_browse_page_release(&p);
	q.sort = LT_BROWSE_BY_LAST_RENEW;
	assert_int_equal(lt_browse_list(&p, sample_store, &q, 0, 4, &err), 0);
	assert_string_equal(p.items[1].target, "ip-10-0-241-171.ec2.internal");
	assert_true(p.items[1].last_renew_us <= p.items[2].last_renew_us);
	assert_true(p.items[2].last_renew_us <= p.items[3].last_renew_us);
	lt_browse_page_release(&p);
}

/* samples/notready, ingested: audit and logs, its NotReady windows built by the ingest. */
static struct lt_store *notready_store(void)
{
	struct lt_ingest_opts opts = {0};
	struct lt_ingest_totals t = {0};
	struct lt_error err = {0};
	char dir[PATH_SIZE], db[PATH_SIZE], audit[] = LT_SAMPLES "/notready/audit",
					    logs[] = LT_SAMPLES "/notready/logs",
					    *paths[] = {audit, logs};
	struct lt_store *st = NULL;

	case_dir(dir, "browse-notready");
	path_join(db, dir, "nr.db");
	assert_int_equal(lt_store_open(&st, db, 0, &err), 0);
	assert_int_equal(lt_ingest_run(st, paths, 2, &opts, NULL, &t, &err), 0);
	return st;
}

/*
 * Sorted by NotReady time, the node still NotReady at the end (22 min)
 * comes first, `not-ready`; a node that never was comes last; its strip
 * gets a NOT_READY episode.
 */
static void test_browse_not_ready(void **state)
{
	struct lt_browse_query q = {LT_BROWSE_BY_NOT_READY, NULL, NULL};
	struct lt_store *st = notready_store();
	struct lt_error err = {0};
	struct lt_browse_episodes e;
	struct lt_browse_page p;
	size_t nr = 0;

	(void)state;
	assert_int_equal(lt_browse_list(&p, st, &q, 0, 10, &err), 0);
	assert_true(p.items[0].heading);
	assert_string_equal(p.items[1].target, "ip-10-1-0-10.ec2.internal");
	assert_string_equal(p.items[1].state, "not-ready");
	assert_int_equal(p.items[1].not_ready, 1);
	assert_true(p.items[1].not_ready_us > 20 * 60 * SEC);
	for (size_t i = 2; i < 9; i++)
		assert_true(p.items[i].not_ready_us <= p.items[i - 1].not_ready_us);
	assert_string_equal(p.items[8].target, "ip-10-1-0-17.ec2.internal");
	assert_int_equal(p.items[8].not_ready, 0);
	assert_int_equal(lt_browse_episodes(&e, st, &p.items[1].lease_id, 1, p.items[1].first_us,
					    lt_store_end_us(st), &err),
			 0);
	for (size_t i = 0; i < e.n; i++)
		nr += e.eps[i].kind == LT_EP_NOT_READY;
	assert_int_equal(nr, 1);
	lt_browse_episodes_release(&e);
	lt_browse_page_release(&p);
	/* problems first: the node NotReady at the end, then those with NotReady time */
	q.sort = LT_BROWSE_BY_PROBLEMS;
	assert_int_equal(lt_browse_list(&p, st, &q, 0, 10, &err), 0);
	assert_string_equal(p.items[1].target, "ip-10-1-0-10.ec2.internal");
	assert_string_equal(p.items[8].target, "ip-10-1-0-17.ec2.internal");
	lt_browse_page_release(&p);
	lt_store_free(st);
}

/* One audit event of verb on resource/name (namespace ns, or none), second sec after 05:50. */
static void audit_line(FILE *f, const char *verb, const char *resource, const char *ns,
		       const char *name, int sec, int n)
{
	fprintf(f,
		"{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Metadata\","
		"\"auditID\":\"a0000000-0000-4000-8000-%012d\",\"stage\":\"ResponseComplete\","
		"\"requestURI\":\"/x\",\"verb\":\"%s\",\"user\":{\"username\":\"system:node:%s\"},"
		"\"sourceIPs\":[\"10.0.0.1\"],\"objectRef\":{\"resource\":\"%s\",%s%s%s"
		"\"name\":\"%s\"},\"responseStatus\":{\"code\":200},"
		"\"requestReceivedTimestamp\":\"2024-04-05T05:%02d:%02d.000000Z\","
		"\"stageTimestamp\":\"2024-04-05T05:%02d:%02d.001000Z\"}\n",
		n, verb, name, resource, ns ? "\"namespace\":\"" : "", ns ? ns : "",
		ns ? "\"," : "", name, 50 + sec / 60, sec % 60, 50 + sec / 60, sec % 60);
}

/*
 * Node objects the audit log knows without a lease are listed once each,
 * `no-lease`, in the nodes' section, however many requests name them (the
 * list's loose index scan over their names), as the nodes view lists them.
 */
static void test_browse_no_lease(void **state)
{
	static const char *const names[] = {"n-a", "n-b", "n-c", "n-d"};
	struct lt_browse_query q = {LT_BROWSE_BY_NAME, NULL, NULL};
	struct lt_ingest_opts opts = {0};
	struct lt_ingest_totals t = {0};
	struct lt_error err = {0};
	char dir[PATH_SIZE], db[PATH_SIZE], log[PATH_SIZE], *paths[] = {log};
	struct lt_browse_page p;
	struct lt_store *st = NULL;
	FILE *f;
	int n = 0;

	(void)state;
	case_dir(dir, "browse-no-lease");
	path_join(db, dir, "s.db");
	path_join(log, dir, "audit.log");
	assert_non_null(f = fopen(log, "w"));
	for (int sec = 0; sec < 120; sec += 10) {
		/* n-a renews its lease; n-b, n-c and n-d have Node requests only */
		audit_line(f, "update", "leases", "kube-node-lease", "n-a", sec, n++);
		for (size_t k = 0; k < 4; k++)
			audit_line(f, "patch", "nodes", NULL, names[k], sec + 1, n++);
	}
	fclose(f);
	assert_int_equal(lt_store_open(&st, db, 0, &err), 0);
	assert_int_equal(lt_ingest_run(st, paths, 1, &opts, NULL, &t, &err), 0);
	assert_int_equal(lt_browse_list(&p, st, &q, 0, 100, &err), 0);
	assert_int_equal(p.total, 5); /* the heading and four nodes */
	assert_true(p.items[0].heading);
	assert_int_equal(p.items[0].count, 4);
	for (size_t k = 0; k < 4; k++) {
		assert_string_equal(p.items[k + 1].target, names[k]);
		assert_int_equal(p.items[k + 1].section, LT_BROWSE_NODES);
		assert_string_equal(p.items[k + 1].state, k == 0 ? "renewing" : "no-lease");
	}
	lt_browse_page_release(&p);
	lt_store_free(st);
}

/*
 * The histogram of samples/notready: however the range is cut, the bins add
 * up to the same events and errors; one bin over everything counts each
 * node with NotReady time once, and the end (a node NotReady still) has one.
 */
static void test_browse_hist(void **state)
{
	struct lt_browse_query q = {LT_BROWSE_BY_NAME, NULL, NULL};
	struct lt_store *st = notready_store();
	struct lt_hist whole, cut;
	struct lt_error err = {0};
	struct lt_browse_page p;
	int64_t first, last, bin, ev = 0, er = 0, nodes = 0;

	(void)state;
	assert_int_equal(lt_browse_span(&first, &last, st, &err), 0);
	assert_int_equal(lt_browse_list(&p, st, &q, 0, 100, &err), 0);
	for (size_t i = 0; i < p.n; i++)
		nodes += p.items[i].not_ready > 0;
	lt_browse_page_release(&p);
	assert_int_equal(lt_browse_hist(&whole, st, first, last - first + 1, 1, &err), 0);
	assert_true(whole.bins[0].events > 0);
	assert_true(whole.bins[0].errors > 0);
	assert_true(whole.bins[0].errors < whole.bins[0].events);
	assert_int_equal(whole.bins[0].not_ready, nodes);
	bin = (last - first) / 40 + 1;
	assert_int_equal(lt_browse_hist(&cut, st, first, bin, 40, &err), 0);
	assert_int_equal(cut.n, 40);
	for (size_t i = 0; i < cut.n; i++) {
		ev += cut.bins[i].events;
		er += cut.bins[i].errors;
		assert_true(cut.bins[i].not_ready <= nodes);
	}
	assert_int_equal(ev, whole.bins[0].events);
	assert_int_equal(er, whole.bins[0].errors);
	assert_true(cut.bins[39].not_ready >= 1); /* ip-10-1-0-10 is NotReady at the end */
	lt_hist_release(&cut);
	lt_hist_release(&whole);
	/* a window before everything counts nothing */
	assert_int_equal(lt_browse_hist(&cut, st, first - 100 * SEC, SEC, 10, &err), 0);
	assert_int_equal(cut.bins[0].events + cut.bins[9].events + cut.bins[9].not_ready, 0);
	lt_hist_release(&cut);
	lt_store_free(st);
}

/* Runs one statement to its end on st (the test's own writes). */
static void hist_exec(struct lt_store *st, const char *sql)
{
	struct lt_error err = {0};
	struct lt_stmt *q;

	assert_int_equal(lt_store_prepare(st, &q, sql, &err), 0);
	while (lt_stmt_step(q, &err) == 1)
		;
	lt_stmt_free(q);
}

/* The events and errors of [lo, hi) counted from the rows themselves. */
static void hist_raw(struct lt_store *st, int64_t lo, int64_t hi, int64_t *events, int64_t *errors)
{
	static const char sql[] =
	    "SELECT (SELECT count(*) FROM audit WHERE superseded = 0 AND stage_us >= ?1"
	    " AND stage_us < ?2) + (SELECT count(*) FROM lines WHERE ts_us >= ?1 AND ts_us < ?2),"
	    " (SELECT count(*) FROM audit WHERE superseded = 0 AND code >= 400 AND stage_us >= ?1"
	    " AND stage_us < ?2) + (SELECT count(*) FROM lines WHERE severity IN ('E', 'F')"
	    " AND ts_us >= ?1 AND ts_us < ?2)";
	struct lt_error err = {0};
	struct lt_stmt *q;

	assert_int_equal(lt_store_prepare(st, &q, sql, &err), 0);
	lt_stmt_bind_int(q, 1, lo);
	lt_stmt_bind_int(q, 2, hi);
	assert_int_equal(lt_stmt_step(q, &err), 1);
	*events = lt_stmt_int(q, 0);
	*errors = lt_stmt_int(q, 1);
	lt_stmt_free(q);
}

/* Every bin of the histogram against the rows' own counts; the window's events returned. */
static int64_t hist_check(struct lt_store *st, int64_t from, int64_t bin, size_t n)
{
	struct lt_error err = {0};
	struct lt_hist h;
	int64_t all = 0, ev, er;

	assert_int_equal(lt_browse_hist(&h, st, from, bin, n, &err), 0);
	for (size_t i = 0; i < n; i++) {
		int64_t lo = from + (int64_t)i * bin;

		hist_raw(st, lo, lo + bin, &ev, &er);
		assert_int_equal(h.bins[i].events, ev);
		assert_int_equal(h.bins[i].errors, er);
		all += ev;
	}
	lt_hist_release(&h);
	hist_raw(st, from, from + (int64_t)n * bin, &ev, &er);
	assert_int_equal(all, ev);
	return all;
}

/*
 * The kept counts (lt_hist_min, lt_hist_sec) give each bin the numbers the
 * rows give, whichever is read: minute bins, second bins finer than a
 * minute, and bins of neither (the rows); they are really read (a count
 * altered in the minutes shows in minute bins only), and counts not
 * current are not read at all.
 */
static void hist_kept_check(struct lt_store *st)
{
	struct lt_error err = {0};
	struct lt_hist h;
	int64_t first, last, min0, sec0, total, ev, er;
	size_t nmin;

	assert_int_equal(lt_browse_span(&first, &last, st, &err), 0);
	min0 = first - first % (60 * SEC);
	sec0 = first - first % SEC;
	nmin = (size_t)((last - min0) / (60 * SEC)) + 1;
	assert_true(nmin > 2 && nmin <= LT_HIST_MAX_BINS);
	hist_raw(st, min0, min0 + (int64_t)nmin * 60 * SEC, &total, &er);
	assert_true(total > 0 && er > 0);
	assert_int_equal(hist_check(st, min0, 60 * SEC, nmin), total);
	assert_true(hist_check(st, min0, 5 * 60 * SEC, nmin / 5 + 1) >= total);
	assert_true(hist_check(st, min0 - 60 * SEC, 3600 * SEC, 2) >= total);
	assert_true(hist_check(st, sec0, SEC, 600) > 0);
	assert_true(hist_check(st, sec0 + 30 * SEC, 10 * SEC, 100) > 0);
	assert_true(hist_check(st, sec0 + SEC / 2, SEC, 300) > 0);
	assert_true(hist_check(st, first, (last - first) / 40 + 1, 40) > 0);
	/* the minutes are what minute bins read, and only they */
	hist_exec(st, "UPDATE lt_hist_min SET events = events + 1000");
	assert_int_equal(lt_browse_hist(&h, st, min0, 60 * SEC, 1, &err), 0);
	hist_raw(st, min0, min0 + 60 * SEC, &ev, &er);
	assert_int_equal(h.bins[0].events, ev + 1000);
	lt_hist_release(&h);
	assert_true(hist_check(st, sec0, SEC, 120) > 0);
	/* counts that are not current are not read: the rows are counted */
	hist_exec(st, "UPDATE derived SET line_id = line_id - 1 WHERE name = 'hist'");
	assert_int_equal(hist_check(st, min0, 60 * SEC, nmin), total);
	/* and `rebuild` counts them anew */
	assert_int_equal(lt_rebuild_all(st, &err), 0);
	assert_int_equal(hist_check(st, min0, 60 * SEC, nmin), total);
	hist_exec(st, "UPDATE lt_hist_min SET events = events + 1000");
	hist_exec(st, "UPDATE lt_hist_sec SET events = events + 1000");
	assert_int_equal(lt_rebuild_all(st, &err), 0);
	assert_int_equal(hist_check(st, min0, 60 * SEC, nmin), total);
	assert_true(hist_check(st, sec0, SEC, 120) > 0);
}

static void test_browse_hist_kept(void **state)
{
	struct lt_store *st = notready_store();

	(void)state;
	hist_kept_check(st);
	lt_store_free(st);
}

/*
 * The same on a store of lt-gen's logs that tests/e2e/hist-gen.sh makes and
 * names in LT_HIST_GEN_DB (skipped without it: unit.tui alone has no lt-gen).
 */
static void test_browse_hist_kept_gen(void **state)
{
	const char *db = getenv("LT_HIST_GEN_DB");
	struct lt_error err = {0};
	struct lt_store *st = NULL;

	(void)state;
	if (db == NULL)
		skip();
	assert_int_equal(lt_store_open(&st, db, 0, &err), 0);
	hist_kept_check(st);
	lt_store_free(st);
}

static int match_substr(const struct lt_browse_item *it, void *ctx)
{
	return strstr(it->target, ctx) != NULL;
}

static void test_browse_filter(void **state)
{
	struct lt_browse_query q = {LT_BROWSE_BY_NAME, match_substr, (void *)"kube-system/kube-"};
	struct lt_browse_page p;
	struct lt_error err = {0};

	(void)state;
	assert_int_equal(lt_browse_list(&p, sample_store, &q, 0, 100, &err), 0);
	/* no node matches: no NODES heading; the leader heading counts what is listed */
	assert_int_equal(p.total, 3);
	assert_true(p.items[0].heading);
	assert_int_equal(p.items[0].section, LT_BROWSE_LEADERS);
	assert_int_equal(p.items[0].count, 2);
	assert_string_equal(p.items[2].target, "kube-system/kube-scheduler");
	lt_browse_page_release(&p);
	assert_int_equal(lt_browse_list(&p, sample_store, &q, 1, 1, &err), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.total, 3);
	assert_string_equal(p.items[0].target, "kube-system/kube-controller-manager");
	lt_browse_page_release(&p);
}

static void test_browse_find(void **state)
{
	struct lt_browse_query q = {LT_BROWSE_BY_NAME, NULL, NULL};
	struct lt_browse_page p;
	struct lt_error err = {0};
	size_t at;

	(void)state;
	assert_int_equal(lt_browse_list_all(&p, sample_store, &q, &err), 0);
	assert_int_equal(
	    lt_browse_find(&at, &p, 1, LT_BROWSE_FORWARD, match_substr, (void *)"241-7", &err), 0);
	assert_int_equal(at, 3);
	/* wraps past the end, and backward past the top */
	assert_int_equal(
	    lt_browse_find(&at, &p, 3, LT_BROWSE_FORWARD, match_substr, (void *)"ip-", &err), 0);
	assert_int_equal(at, 1);
	assert_int_equal(
	    lt_browse_find(&at, &p, 1, LT_BROWSE_BACKWARD, match_substr, (void *)"apiserver", &err),
	    0);
	assert_int_equal(at, 9);
	/* the row searched from comes last: found when it is the only match */
	assert_int_equal(lt_browse_find(&at, &p, 5, LT_BROWSE_FORWARD, match_substr,
					(void *)"controller-manager", &err),
			 0);
	assert_int_equal(at, 5);
	assert_int_equal(lt_browse_find(&at, &p, 5, LT_BROWSE_BACKWARD, match_substr,
					(void *)"controller-manager", &err),
			 0);
	assert_int_equal(at, 5);
	/* headings are never found */
	assert_int_equal(
	    lt_browse_find(&at, &p, 0, LT_BROWSE_FORWARD, match_substr, (void *)"nope", &err),
	    LT_ERR_NOTFOUND);
	lt_browse_page_release(&p);
}

/*
 * The whole list held in memory: the same items as the paged read, but a
 * Node object's deletes only once lt_browse_deletes read them, for the rows
 * asked, once.
 */
static void test_browse_list_all(void **state)
{
	struct lt_browse_query q = {LT_BROWSE_BY_NAME, NULL, NULL};
	struct lt_browse_page all, paged;
	struct lt_error err = {0};

	(void)state;
	assert_int_equal(lt_browse_list_all(&all, sample_store, &q, &err), 0);
	assert_int_equal(lt_browse_list(&paged, sample_store, &q, 0, 100, &err), 0);
	assert_int_equal(all.n, paged.n);
	assert_int_equal(all.total, paged.total);
	assert_string_equal(all.items[1].target, "ip-10-0-241-171.ec2.internal");
	assert_int_equal(all.items[1].deletes, 1); /* its lease's delete only, so far */
	/* rows 2..9 first: row 1 keeps its count */
	assert_int_equal(lt_browse_deletes(&all, sample_store, 2, 8, &err), 0);
	assert_int_equal(all.items[1].deletes, 1);
	/* then rows 0..2, and again past the end: each row's Node deletes added once */
	assert_int_equal(lt_browse_deletes(&all, sample_store, 0, 3, &err), 0);
	assert_int_equal(lt_browse_deletes(&all, sample_store, 0, 1000, &err), 0);
	assert_int_equal(lt_browse_deletes(&all, sample_store, 50, 10, &err), 0);
	for (size_t i = 0; i < all.n; i++) {
		assert_int_equal(all.items[i].heading, paged.items[i].heading);
		assert_int_equal(all.items[i].deletes, paged.items[i].deletes);
		assert_int_equal(all.items[i].not_found, paged.items[i].not_found);
	}
	lt_browse_page_release(&all);
	lt_browse_page_release(&paged);
}

static void test_browse_episodes(void **state)
{
	struct lt_browse_query q = {LT_BROWSE_BY_NAME, NULL, NULL};
	struct lt_browse_episodes e;
	struct lt_browse_page p;
	struct lt_error err = {0};
	int64_t first, last, ids[2];
	unsigned char cells[90];
	char s[91];

	(void)state;
	assert_int_equal(lt_browse_span(&first, &last, sample_store, &err), 0);
	assert_int_equal(first, 1712296200460553LL); /* 05:50:00.460553 */
	assert_int_equal(last, 1712297099800856LL);  /* 06:04:59.800856 */
	assert_int_equal(lt_browse_list(&p, sample_store, &q, 1, 1, &err), 0);
	ids[0] = p.items[0].lease_id; /* the deleted node */
	ids[1] = 999999;	      /* no such lease */
	lt_browse_page_release(&p);
	assert_int_equal(lt_browse_episodes(&e, sample_store, ids, 2, first, last, &err), 0);
	assert_int_equal(e.n, 5);
	assert_int_equal(e.eps[1].kind, LT_EP_DELETED);
	tui_buckets(cells, 90, first, last, e.eps, e.n); /* 10 s a bucket */
	cells_string(s, cells, 90);
	/* renewing until 05:55:59, deleted at 05:56:00, 404s until the restart at 06:02:00 */
	assert_string_equal(
	    s, "====================================Dxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	       "=================");
	lt_browse_episodes_release(&e);
	/* a window after the delete: the DELETED episode comes along as the opening state */
	assert_int_equal(lt_browse_episodes(&e, sample_store, ids, 1, first + 362 * SEC,
					    first + 364 * SEC, &err),
			 0);
	assert_int_equal(e.n, 1);
	assert_int_equal(e.eps[0].kind, LT_EP_DELETED);
	lt_browse_episodes_release(&e);
}

/* What the TUI shows for a row of the deleted node's timeline. */
struct want_row {
	int64_t start, end, count;
	enum lt_episode_kind kind;
	int node;
	const char *detail;
};

static void test_browse_timeline(void **state)
{
#define KUBELET "system:node:ip-10-0-241-171.ec2.internal from 10.0.241.171"
	static const struct want_row want[] = {
	    {1712296204164703LL, 1712296559291197LL, 36, LT_EP_RENEWING, 0,
	     "36 renews by " KUBELET ", every 10.1s (max 10.4s)"},
	    {1712296395426354LL, 1712296395426354LL, 1, LT_EP_NODE_STATUS, 1, "by " KUBELET},
	    {1712296560198927LL, 1712296560198927LL, 1, LT_EP_NODE_DELETED, 1,
	     "by kubernetes-admin from 203.0.113.231"},
	    {1712296560230965LL, 1712296560230965LL, 1, LT_EP_DELETED, 0,
	     "by system:serviceaccount:kube-system:generic-garbage-collector from 172.16.33.232: "
	     "32ms after its node was deleted by kubernetes-admin"},
	    {1712296569636568LL, 1712296920258540LL, 41, LT_EP_NOT_FOUND, 0, "asked by " KUBELET},
	    {1712296920033946LL, 1712296920033946LL, 1, LT_EP_NODE_REGISTERED, 1, "by " KUBELET},
	    {1712296920264000LL, 1712296920264000LL, 1, LT_EP_RECREATED, 0,
	     "by " KUBELET ", 6m0s after it was gone"},
	    {1712296920264000LL, 1712297093289776LL, 17, LT_EP_RENEWING, 0,
	     "17 renews by " KUBELET ", every 10.1s (max 10.4s)"},
	    {1712296921644693LL, 1712296921644693LL, 1, LT_EP_NODE_STATUS, 1, "by " KUBELET},
	};
#undef KUBELET
	struct lt_rows t = {0};
	struct lt_error err = {0};

	(void)state;
	assert_int_equal(lt_browse_timeline(&t, sample_store, "ip-10-0-241-171.ec2.internal", &err),
			 0);
	assert_int_equal(t.nrows, sizeof want / sizeof *want);
	for (size_t i = 0; i < t.nrows; i++) {
		const struct lt_cell *kind = lt_rows_cell(&t, i, LT_TL_KIND);

		assert_int_equal(lt_rows_cell(&t, i, LT_TL_START)->type, LT_CELL_TIME);
		assert_int_equal(lt_rows_cell(&t, i, LT_TL_START)->i, want[i].start);
		assert_int_equal(lt_rows_cell(&t, i, LT_TL_END)->i, want[i].end);
		assert_int_equal(lt_rows_cell(&t, i, LT_TL_COUNT)->i, want[i].count);
		assert_int_equal(kind->type, LT_CELL_KIND);
		assert_int_equal(kind->i, want[i].kind);
		assert_int_equal((lt_episode_kind_info((enum lt_episode_kind)kind->i)->flags &
				  LT_EPF_NODE_OBJECT) != 0,
				 want[i].node);
		assert_string_equal(lt_rows_cell(&t, i, LT_TL_DETAIL)->s, want[i].detail);
		/* audit rows only in this store */
		assert_string_equal(lt_rows_cell(&t, i, LT_TL_SOURCE)->s, "audit");
	}
	/* a jump lands on the row of its kind nearest its time, else on the nearest start */
	{
		struct tui_about nf = {LT_EP_NOT_FOUND, LT_EP_NOT_FOUND, NULL},
				 del = {LT_EP_NODE_DELETED, LT_EP_DELETED, NULL},
				 none = {LT_EP_NONE, LT_EP_NONE, NULL};

		assert_int_equal(tui_timeline_pick(&t, 1712296560230965LL, &nf), 4);
		assert_int_equal(tui_timeline_pick(&t, 1712296569636568LL + 5000000, &del), 3);
		assert_int_equal(tui_timeline_pick(&t, 1712296560198927LL, &del), 2);
		assert_int_equal(tui_timeline_pick(&t, 1712296920264000LL, &none), 6);
		assert_int_equal(tui_timeline_pick(&t, 1712296395426354LL, NULL), 1);
	}
	assert_int_equal(lt_browse_timeline(&t, sample_store, "no-such-node", &err),
			 LT_ERR_NOTFOUND);
	assert_int_equal(t.nrows, 0);
	lt_rows_release(&t);
}

static void test_browse_events(void **state)
{
	struct lt_browse_events e;
	struct lt_error err = {0};
	const char *node = "ip-10-0-241-171.ec2.internal";

	(void)state;
	/* the NOT_FOUND run: 41 requests, read a page at a time */
	assert_int_equal(lt_browse_events(&e, sample_store, node, LT_BROWSE_LEASE,
					  1712296569636568LL, 1712296920258540LL, 0, 10, &err),
			 0);
	assert_int_equal(e.total, 41);
	assert_int_equal(e.n, 10);
	assert_int_equal(e.evs[0].code, 404);
	assert_string_equal(e.evs[0].verb, "update");
	assert_true(e.evs[0].ts_us <= e.evs[9].ts_us);
	lt_browse_events_release(&e);
	assert_int_equal(lt_browse_events(&e, sample_store, node, LT_BROWSE_LEASE,
					  1712296569636568LL, 1712296920258540LL, 40, 10, &err),
			 0);
	assert_int_equal(e.n, 1);
	assert_string_equal(e.evs[0].verb, "get");
	lt_browse_events_release(&e);
	/* the Node object: the admin's delete */
	assert_int_equal(lt_browse_events(&e, sample_store, node, LT_BROWSE_NODE_OBJECT,
					  1712296560198927LL, 1712296560198927LL, 0, 10, &err),
			 0);
	assert_int_equal(e.n, 1);
	assert_string_equal(e.evs[0].verb, "delete");
	assert_string_equal(e.evs[0].user, "kubernetes-admin");
	assert_string_equal(e.evs[0].source_ip, "203.0.113.231");
	lt_browse_events_release(&e);
	assert_int_equal(lt_browse_events(&e, sample_store, "kube-system/nope", LT_BROWSE_LEASE, 0,
					  INT64_MAX, 0, 10, &err),
			 0);
	assert_int_equal(e.n, 0);
	lt_browse_events_release(&e);
}

static void test_browse_canned(void **state)
{
	static const char *const names[] = {"namespace",    "lease",	       "lease_deleted",
					    "node_deleted", "node_deleted_by", "source_ip",
					    "user_agent",   "after",	       "evidence"};
	struct lt_query_opts o = {.fmt = LT_OUT_CSV}; /* ignored: cells are values */
	struct lt_rows t = {0};
	struct lt_error err = {0};
	char buf[LT_CELL_BUF];
	size_t len;

	(void)state;
	assert_int_equal(lt_browse_canned(&t, sample_store, "gc-deletes", &o, &err), 0);
	assert_int_equal(t.ncols, 9);
	assert_int_equal(t.nrows, 1);
	for (int c = 0; c < 9; c++)
		assert_string_equal(t.cols[c].name, names[c]);
	assert_string_equal(lt_rows_cell(&t, 0, 1)->s, "ip-10-0-241-171.ec2.internal");
	assert_int_equal(lt_rows_cell(&t, 0, 2)->type, LT_CELL_TIME);
	assert_int_equal(lt_rows_cell(&t, 0, 2)->i, 1712296560230965LL);
	assert_int_equal(lt_rows_cell(&t, 0, 3)->i, 1712296560198927LL);
	/* spaces inside a cell */
	assert_string_equal(lt_rows_cell(&t, 0, 6)->s,
			    "kubectl/v1.29.2 (darwin/arm64) kubernetes/4b8e819");
	/* a duration is microseconds, shown as a table shows it when drawn */
	assert_int_equal(lt_rows_cell(&t, 0, 7)->type, LT_CELL_DURATION);
	assert_int_equal(lt_rows_cell(&t, 0, 7)->i, 32038);
	assert_string_equal(
	    lt_cell_format(lt_rows_cell(&t, 0, 7), LT_OUT_TABLE, buf, sizeof buf, &len), "32ms");
	assert_string_equal(
	    lt_cell_format(lt_rows_cell(&t, 0, 2), LT_OUT_TABLE, buf, sizeof buf, &len),
	    "2024-04-05T05:56:00.230965Z");
	/* no rows: the columns are still there, for the header */
	assert_int_equal(lt_browse_canned(&t, sample_store, "auth-failures", &o, &err), 0);
	assert_int_equal(t.nrows, 0);
	assert_int_equal(t.ncols, 9);
	assert_string_equal(t.cols[8].name, "hint");
	/* other thresholds on a connection of their own: the store's episodes stay */
	o.gap_us = 10350000;
	assert_int_equal(lt_browse_canned(&t, sample_store, "renew-gaps", &o, &err), 0);
	assert_true(t.nrows > 1);
	o.gap_us = 0;
	assert_int_equal(lt_browse_canned(&t, sample_store, "renew-gaps", &o, &err), 0);
	assert_int_equal(t.nrows, 1); /* the controller-manager's gap only */
	assert_int_equal(lt_browse_canned(&t, sample_store, "nope", &o, &err), LT_ERR_NOTFOUND);
	assert_int_equal(t.ncols, 0);
	lt_rows_release(&t);
}

/* ---- the tools: rows kept by a filter, marks, export, base64 ------------- */

static int keep_even(const struct lt_rows *t, size_t r, void *ctx)
{
	(void)ctx;
	return lt_rows_cell(t, r, 0)->i % 2 == 0;
}

static void test_rows_keep(void **state)
{
	struct lt_rows t = {0};
	struct lt_row_sink sink = lt_rows_sink(&t);
	const struct lt_col cols[] = {{"n", LT_CELL_INT, 0}, {"s", LT_CELL_TEXT, 0}};
	char text[24];

	(void)state;
	sink.begin(sink.ctx, cols, 2);
	for (int i = 0; i < 7; i++) {
		struct lt_cell row[2] = {{.type = LT_CELL_INT, .i = i},
					 {.type = LT_CELL_TEXT, .s = text, .len = 2}};

		snprintf(text, sizeof text, "r%d", i);
		sink.row(sink.ctx, row);
	}
	sink.end(sink.ctx);
	tui_rows_keep(&t, keep_even, NULL);
	/* the kept rows in order, their texts intact; the others freed (ASan says) */
	assert_int_equal(t.nrows, 4);
	for (size_t r = 0; r < t.nrows; r++) {
		snprintf(text, sizeof text, "r%zu", r * 2);
		assert_int_equal(lt_rows_cell(&t, r, 0)->i, (int64_t)(r * 2));
		assert_string_equal(lt_rows_cell(&t, r, 1)->s, text);
	}
	lt_rows_release(&t);
}

static struct tui_row row_of(const char *subject, int64_t at, const char *text)
{
	return (struct tui_row){.kind = TUI_ROW_TIMELINE,
				.subject = lt_xstrdup(subject),
				.at_us = at,
				.what = lt_xstrdup("NOT_FOUND"),
				.text = lt_xstrdup(text),
				.about = {LT_EP_NOT_FOUND, LT_EP_NOT_FOUND, NULL}};
}

static void test_marks(void **state)
{
	struct tui_marks m = {0};
	struct tui_row a = row_of("n1", 5, "a"), b = row_of("n1", 6, "b"),
		       a2 = row_of("n1", 5, "a");
	struct tui_row c;

	(void)state;
	assert_int_equal(tui_marks_toggle(&m, &a), 1);
	assert_int_equal(tui_marks_toggle(&m, &b), 1);
	assert_int_equal(m.n, 2);
	assert_null(a.text); /* taken */
	/* the same row again unmarks it; the other stays */
	assert_int_equal(tui_marks_toggle(&m, &a2), 0);
	assert_int_equal(m.n, 1);
	assert_string_equal(m.v[0].text, "b");
	tui_row_copy(&c, &m.v[0]);
	assert_string_equal(c.subject, "n1");
	assert_ptr_not_equal(c.text, m.v[0].text);
	tui_row_release(&c);
	assert_string_equal(tui_row_kind_name(TUI_ROW_LINE), "line");
	tui_marks_release(&m);
	assert_int_equal(m.n, 0);
}

static void test_export(void **state)
{
	struct tui_row r =
	    row_of("ip-1", 1712296560230965LL, "say \"hi\", a|b \x1b]2;pwned\x07 \xe2\x80\xae end");
	struct lt_buf b;

	(void)state;
	assert_int_equal(tui_export_fmt_of("x.csv"), TUI_EXPORT_CSV);
	assert_int_equal(tui_export_fmt_of("x.md"), TUI_EXPORT_MD);
	assert_int_equal(tui_export_fmt_of("csv"), TUI_EXPORT_MD);
	lt_buf_init(&b);
	tui_export_head(&b, TUI_EXPORT_CSV, "t");
	tui_export_row(&b, TUI_EXPORT_CSV, &r);
	/* every field quoted, quotes doubled; log text sanitized: no ESC, BEL or bidi override */
	assert_string_equal(b.ptr, "\"mark\",\"time\",\"subject\",\"source\",\"what\",\"row\"\n"
				   "\"timeline\",\"2024-04-05T05:56:00.230965Z\",\"ip-1\",\"\","
				   "\"NOT_FOUND\",\"say \"\"hi\"\", a|b \\x1b]2;pwned\\x07 "
				   "\\u{202e} end\"\n");
	lt_buf_reset(&b);
	tui_export_head(&b, TUI_EXPORT_MD, "leasetrail marks");
	tui_export_row(&b, TUI_EXPORT_MD, &r);
	assert_non_null(strstr(b.ptr, "# leasetrail marks\n\n| mark | time |"));
	assert_non_null(strstr(b.ptr, "|---|---|---|---|---|---|\n"));
	/* a pipe in a cell is escaped: the table keeps its six columns; so is a backslash */
	assert_non_null(
	    strstr(b.ptr, "| say \"hi\", a\\|b \\\\x1b\\]2;pwned\\\\x07 \\\\u{202e} end |\n"));
	/* a time keeps its - and : (neither leading nor "://") */
	assert_non_null(strstr(b.ptr, "| 2024-04-05T05:56:00.230965Z |"));
	assert_null(strchr(b.ptr, '\x1b'));
	lt_buf_release(&b);
	tui_row_release(&r);
}

/*
 * A cell of hostile text in each format: in Markdown no link, emphasis, code
 * span, entity or HTML can form (a backslash before each character that would
 * start one); in CSV a leading = + - @ is made text with a '.
 */
static void test_export_escapes(void **state)
{
	static const struct {
		const char *text, *md, *csv;
	} cases[] = {
	    {"plain 10.0.0.1 a:b", "plain 10.0.0.1 a:b", "plain 10.0.0.1 a:b"},
	    {"[x](http://evil)", "\\[x\\](http\\://evil)", "[x](http://evil)"},
	    {"<script>alert(1)</script>", "\\<script\\>alert(1)\\</script\\>",
	     "<script>alert(1)</script>"},
	    {"*em* _u_ `code` ~~s~~", "\\*em\\* \\_u\\_ \\`code\\` \\~\\~s\\~\\~",
	     "*em* _u_ `code` ~~s~~"},
	    {"&lt; &#x1b; # h", "\\&lt; \\&\\#x1b; \\# h", "&lt; &#x1b; # h"},
	    {"![i](x) a@b.c WWW.evil.com", "\\!\\[i\\](x) a\\@b.c WWW\\.evil.com",
	     "![i](x) a@b.c WWW.evil.com"},
	    {"back\\slash", "back\\\\slash", "back\\slash"},
	    {"-1 in - list", "\\-1 in - list", "'-1 in - list"},
	    {"+x", "\\+x", "'+x"},
	    {"=HYPERLINK(\"http://e\")", "\\=HYPERLINK(\"http\\://e\")",
	     "'=HYPERLINK(\"\"http://e\"\")"},
	    {"@SUM(A1)", "\\@SUM(A1)", "'@SUM(A1)"},
	    {"a\nb\tc", "a\\\\nb\\\\tc", "a\\nb\\tc"}, /* sanitized: one line */
	};
	struct lt_buf b, want;

	(void)state;
	lt_buf_init(&b);
	lt_buf_init(&want);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct tui_row r = row_of("n", 0, cases[i].text);

		lt_buf_reset(&b);
		lt_buf_reset(&want);
		tui_export_row(&b, TUI_EXPORT_MD, &r);
		lt_buf_printf(&want, "| NOT\\_FOUND | %s |\n", cases[i].md);
		assert_non_null(strstr(b.ptr, want.ptr));
		lt_buf_reset(&b);
		lt_buf_reset(&want);
		tui_export_row(&b, TUI_EXPORT_CSV, &r);
		lt_buf_printf(&want, ",\"NOT_FOUND\",\"%s\"\n", cases[i].csv);
		assert_non_null(strstr(b.ptr, want.ptr));
		tui_row_release(&r);
	}
	lt_buf_release(&b);
	lt_buf_release(&want);
}

static void test_base64(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"", ""},
	    {"f", "Zg=="},
	    {"fo", "Zm8="},
	    {"foo", "Zm9v"},
	    {"foob", "Zm9vYg=="},
	    {"fooba", "Zm9vYmE="},
	    {"foobar", "Zm9vYmFy"},
	    {"\xff\xfe", "//4="},
	};
	struct lt_buf b;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		lt_buf_init(&b);
		tui_base64(&b, cases[i].in, strlen(cases[i].in));
		assert_string_equal(b.ptr, cases[i].out);
		lt_buf_release(&b);
	}
}

static void test_cmd_table(void **state)
{
	const char *want[] = {"goto", "filter", "sort", "export", "report",
			      "mark", "marks",	"copy", "help",	  "quit"};
	size_t n = 0;

	(void)state;
	for (const struct tui_cmd *c = tui_cmds(); c->name != NULL; c++, n++) {
		assert_true(n < sizeof want / sizeof *want);
		assert_string_equal(c->name, want[n]);
		assert_non_null(c->help);
		assert_non_null(c->run);
	}
	assert_int_equal(n, sizeof want / sizeof *want);
}

int main(void)
{
	const struct CMUnitTest view[] = {
	    cmocka_unit_test(test_win_moves),	   cmocka_unit_test(test_win_pages),
	    cmocka_unit_test(test_win_edges),	   cmocka_unit_test(test_page_want),
	    cmocka_unit_test(test_axis),	   cmocka_unit_test(test_buckets),
	    cmocka_unit_test(test_safe_text),	   cmocka_unit_test(test_text_width),
	    cmocka_unit_test(test_json_pretty),	   cmocka_unit_test(test_wrap),
	    cmocka_unit_test(test_line_edit),	   cmocka_unit_test(test_fmt_time),
	    cmocka_unit_test(test_keys),	   cmocka_unit_test(test_key_table),
	    cmocka_unit_test(test_keys_in_readme), cmocka_unit_test(test_result_jump),
	    cmocka_unit_test(test_filter),	   cmocka_unit_test(test_axis_ticks),
	    cmocka_unit_test(test_buckets_holder), cmocka_unit_test(test_time_rows),
	    cmocka_unit_test(test_rows_keep),	   cmocka_unit_test(test_marks),
	    cmocka_unit_test(test_export),	   cmocka_unit_test(test_export_escapes),
	    cmocka_unit_test(test_base64),	   cmocka_unit_test(test_cmd_table),
	};
	const struct CMUnitTest browse[] = {
	    cmocka_unit_test(test_browse_list),		 cmocka_unit_test(test_browse_sort),
	    cmocka_unit_test(test_buckets_not_ready),	 cmocka_unit_test(test_browse_not_ready),
	    cmocka_unit_test(test_browse_filter),	 cmocka_unit_test(test_browse_find),
	    cmocka_unit_test(test_browse_list_all),	 cmocka_unit_test(test_browse_no_lease),
	    cmocka_unit_test(test_browse_episodes),	 cmocka_unit_test(test_browse_timeline),
	    cmocka_unit_test(test_browse_events),	 cmocka_unit_test(test_browse_canned),
	    cmocka_unit_test(test_browse_hist),		 cmocka_unit_test(test_browse_hist_kept),
	    cmocka_unit_test(test_browse_hist_kept_gen),
	};
	int failed = cmocka_run_group_tests_name("tui view", view, NULL, NULL);

	return failed + cmocka_run_group_tests_name("browse", browse, setup_store, teardown_store);
}
