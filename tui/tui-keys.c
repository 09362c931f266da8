/*
 * tui-keys.c - every key binding, in one const table: the screens read
 * actions from it and the help screen prints it, so help never drifts from
 * what the keys do.  Keys follow less and vim.
 */
#include "tui-int.h"

#define ALL TUI_CTX_ALL
#define LISTS                                                                                      \
	(TUI_CTX_CLUSTER | TUI_CTX_TIMELINE | TUI_CTX_EVENT | TUI_CTX_QUERIES | TUI_CTX_HELP |     \
	 TUI_CTX_HIST | TUI_CTX_MARKS)
#define DRILL	 (TUI_CTX_CLUSTER | TUI_CTX_TIMELINE | TUI_CTX_QUERIES | TUI_CTX_HIST | TUI_CTX_MARKS)
#define ROWS	 (TUI_CTX_TIMELINE | TUI_CTX_QUERIES | TUI_CTX_MARKS) /* the tools' rows */
#define FILTERS	 (TUI_CTX_CLUSTER | TUI_CTX_TIMELINE | TUI_CTX_QUERIES)
#define SEARCHES (TUI_CTX_CLUSTER | TUI_CTX_TIMELINE | TUI_CTX_EVENT | TUI_CTX_QUERIES)
#define AXIS	 (TUI_CTX_CLUSTER | TUI_CTX_HIST)

static const struct tui_keydef keydefs[] = {
    {'j', LISTS, TUI_A_DOWN, "j  Down", "down one row"},
    {TUI_K_DOWN, LISTS, TUI_A_DOWN, NULL, NULL},
    {'k', LISTS, TUI_A_UP, "k  Up", "up one row"},
    {TUI_K_UP, LISTS, TUI_A_UP, NULL, NULL},
    {TUI_K_PGDN, LISTS, TUI_A_PGDN, "PgDn  Space  Ctrl-F", "down one page"},
    {' ', LISTS, TUI_A_PGDN, NULL, NULL},
    {TUI_CTRL('f'), LISTS, TUI_A_PGDN, NULL, NULL},
    {TUI_K_PGUP, LISTS, TUI_A_PGUP, "PgUp  b  Ctrl-B", "up one page"},
    {'b', LISTS, TUI_A_PGUP, NULL, NULL},
    {TUI_CTRL('b'), LISTS, TUI_A_PGUP, NULL, NULL},
    {'g', LISTS, TUI_A_TOP, "g  Home", "first row"},
    {TUI_K_HOME, LISTS, TUI_A_TOP, NULL, NULL},
    {'G', LISTS, TUI_A_BOTTOM, "G  End", "last row"},
    {TUI_K_END, LISTS, TUI_A_BOTTOM, NULL, NULL},
    {'/', SEARCHES, TUI_A_SEARCH, "/", "search (PCRE2; caseless unless the pattern has a capital)"},
    {'n', SEARCHES, TUI_A_NEXT, "n", "next match"},
    {'N', SEARCHES, TUI_A_PREV, "N", "previous match"},
    {TUI_K_ENTER, DRILL, TUI_A_ENTER, "Enter",
     "drill in: node -> timeline -> events -> event; histogram: finer bins"},
    {TUI_K_TAB, TUI_CTX_TIMELINE | TUI_CTX_QUERIES, TUI_A_TAB, "Tab", "next pane"},
    {TUI_K_BTAB, TUI_CTX_TIMELINE | TUI_CTX_QUERIES, TUI_A_TAB, NULL, NULL},
    {TUI_K_ESC, ALL, TUI_A_BACK, "Esc", "back (close the events pane, leave a screen)"},
    {'q', ALL, TUI_A_QUIT_BACK, "q", "back; on the cluster screen, quit"},
    {'Q', ALL, TUI_A_QUIT, "Q", "quit"},
    {'+', AXIS, TUI_A_ZOOM_IN, "+",
     "zoom the time axis in (around its middle; histogram: finer bins)"},
    {'=', AXIS, TUI_A_ZOOM_IN, NULL, NULL},
    {'-', AXIS, TUI_A_ZOOM_OUT, "-", "zoom the time axis out (histogram: coarser bins)"},
    {'h', AXIS | TUI_CTX_TIMELINE | TUI_CTX_QUERIES, TUI_A_LEFT, "h  Left",
     "time axis earlier (cluster); DETAIL (timeline), columns (query results) left; a page up "
     "(histogram)"},
    {TUI_K_LEFT, AXIS | TUI_CTX_TIMELINE | TUI_CTX_QUERIES, TUI_A_LEFT, NULL, NULL},
    {'l', AXIS | TUI_CTX_TIMELINE | TUI_CTX_QUERIES, TUI_A_RIGHT, "l  Right",
     "time axis later (cluster); DETAIL (timeline), columns (query results) right; a page down "
     "(histogram)"},
    {TUI_K_RIGHT, AXIS | TUI_CTX_TIMELINE | TUI_CTX_QUERIES, TUI_A_RIGHT, NULL, NULL},
    {'w', TUI_CTX_TIMELINE, TUI_A_WRAP, "w",
     "the selected row's whole detail under the list, wrapped (again: two lines)"},
    {'>', TUI_CTX_CLUSTER, TUI_A_SORT, ">  s",
     "next sort: problems first, name, state, 404, DEL, ANOM, NotReady time, last renew"},
    {'s', TUI_CTX_CLUSTER, TUI_A_SORT, NULL, NULL},
    {'<', TUI_CTX_CLUSTER, TUI_A_SORT_PREV, "<", "sort by the previous column"},
    {'f', FILTERS, TUI_A_FILTER, "f",
     "filter the list (or the focused pane) on its columns: REGEX (the cluster's name, elsewhere "
     "the whole row), COL=REGEX, COL!=REGEX, COL>N, COL<N; all terms pass; empty: all"},
    {'m', ROWS, TUI_A_MARK, "m",
     "mark the row under the cursor: timeline rows, requests, lines, query results (again, or "
     "on M: unmark)"},
    {'M', ALL, TUI_A_MARKS, "M", "the marks, across screens; Enter opens what one is about"},
    {'e', ROWS, TUI_A_EXPORT, "e",
     "export the view (on M: the marks) to a file: FILE.csv is CSV, any other name Markdown"},
    {'y', ROWS, TUI_A_COPY, "y",
     "copy the row to the clipboard (OSC 52; when the terminal's terminfo has Ms)"},
    {':', ALL, TUI_A_COMMAND, ":",
     "command: goto TIME, filter TEXT, sort [prev], export FILE, report FILE, mark, marks, copy, "
     "help, quit"},
    {'c', ALL, TUI_A_QUERIES, "c", "canned queries"},
    {'i', ALL, TUI_A_HIST, "i", "histogram: events, errors, NotReady nodes per time bin"},
    {'r', ALL, TUI_A_RELOAD, "r", "reload from the store (while an ingest runs)"},
    {'?', ALL, TUI_A_HELP, "?", "this help"},
    {TUI_CTRL('l'), ALL, TUI_A_REDRAW, "Ctrl-L", "redraw the screen"},
    {TUI_K_RESIZE, ALL, TUI_A_REDRAW, NULL, NULL},
    {TUI_K_NONE, 0, TUI_A_NONE, NULL, NULL},
};

const struct tui_keydef *tui_keys(void)
{
	return keydefs;
}

enum tui_action tui_key_action(int key, unsigned ctx)
{
	for (const struct tui_keydef *k = keydefs; k->key != TUI_K_NONE; k++)
		if (k->key == key && (k->ctx & ctx) != 0)
			return k->action;
	return TUI_A_NONE;
}
