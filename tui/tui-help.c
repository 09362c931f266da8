/*
 * tui-help.c - every key, printed from the key table itself, and what the
 * heartbeat strip's symbols mean.
 */
#include "tui-int.h"

#include <stdlib.h>
#include <string.h>

struct help {
	struct tui_screen base;
	char **lines;
	size_t n, cap;
	struct tui_win win;
};

static void help_add(struct help *h, const char *text)
{
	LT_GROW(h->lines, h->cap, h->n + 1);
	h->lines[h->n++] = lt_xstrdup(text);
}

static int help_bits(unsigned v)
{
	int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/* The keys of one section: shared ones (3 screens or more) or one screen's own. */
static void help_section(struct help *h, const char *title, unsigned ctx)
{
	char line[256];

	help_add(h, title);
	for (const struct tui_keydef *k = tui_keys(); k->key != TUI_K_NONE; k++) {
		int shared = help_bits(k->ctx) >= 3;

		if (k->help == NULL || (ctx == 0 ? !shared : shared || !(k->ctx & ctx)))
			continue;
		snprintf(line, sizeof line, "  %-22s %s", k->label, k->help);
		help_add(h, line);
	}
	help_add(h, "");
}

/* The `:` commands, from their table; then the mouse. */
static void help_commands(struct help *h)
{
	char line[256];

	help_add(h, "Commands (: then Enter; a command may be shortened: :g 05:56)");
	for (const struct tui_cmd *c = tui_cmds(); c->name != NULL; c++) {
		char name[40];

		snprintf(name, sizeof name, ":%s %s", c->name, c->args);
		snprintf(line, sizeof line, "  %-22s %s", name, c->help);
		help_add(h, line);
	}
	help_add(h,
		 "  Mouse: a click selects a row, the wheel scrolls (tui --no-mouse: the terminal "
		 "keeps the mouse)");
	help_add(h, "");
}

static void help_legend(struct help *h)
{
	char line[128];

	help_add(h, "Heartbeat strip (the time axis cut into one cell per column; a cell shows "
		    "the strongest thing in it)");
	for (int c = TUI_C_COUNT - 1; c >= TUI_C_NONE; c--) {
		snprintf(line, sizeof line, "  '%c'  %s", tui_cell_symbol((enum tui_cell)c),
			 tui_cell_name((enum tui_cell)c));
		help_add(h, line);
	}
	help_add(h, "");
	help_add(h, "States: renewing; stale (no renew for longer than its threshold before the "
		    "newest event); deleted;");
	help_add(h,
		 "  orphaned (its own kubelet still gets 404: its node was deleted); re-created; "
		 "no-lease (a Node object only);");
	help_add(h,
		 "  not-ready (NotReady at the end); logs-only (known from its log lines only).");
	help_add(h, "Columns: 404 = requests answered 404, DEL = deletes of the node and its "
		    "lease, ANOM = GAP, NOT_FOUND,");
	help_add(h, "  AUTH_FAILURE and SLOW episodes.  All log text is shown sanitized "
		    "(\\x1b, \\u{202e}).");
}

static void help_draw(struct tui *t, struct tui_screen *s, int y0, int h, int cols)
{
	struct help *p = (struct help *)s;

	(void)t;
	p->win.height = (size_t)h;
	tui_win_fix(&p->win);
	for (size_t k = 0; k < p->win.height && p->win.top + k < p->n; k++) {
		const char *line = p->lines[p->win.top + k];
		int heading = line[0] != ' ' && line[0] != '\0';

		tui_put(y0 + (int)k, 0, cols, heading ? TUI_S_HEADING : TUI_S_NORMAL, line);
	}
}

static int help_action(struct tui *t, struct tui_screen *s, enum tui_action a)
{
	struct help *p = (struct help *)s;
	size_t top = p->win.top;

	(void)t;
	/* the help scrolls as a page: the cursor is its first line */
	p->win.cur = a == TUI_A_DOWN ? top + p->win.height - 1 : top;
	if (a == TUI_A_BOTTOM)
		p->win.cur = p->n ? p->n - 1 : 0;
	return tui_win_apply(&p->win, a);
}

static void help_free(struct tui_screen *s)
{
	struct help *p = (struct help *)s;

	for (size_t i = 0; i < p->n; i++)
		free(p->lines[i]);
	free(p->lines);
	free(p);
}

static const struct tui_screen_ops help_ops = {
    .name = "Help",
    .ctx = TUI_CTX_HELP,
    .draw = help_draw,
    .action = help_action,
    .free = help_free,
};

struct tui_screen *tui_help_new(struct tui *t)
{
	struct help *h = lt_xcalloc(1, sizeof *h);

	(void)t;
	h->base.ops = &help_ops;
	help_add(h,
		 "Screens: Cluster (every node and lease) -> Timeline (one lease's episodes; "
		 "Enter opens the requests or log lines behind a row) -> Event (the raw record).");
	help_add(h, "  Queries (c): pick a canned query, set its options, Enter on a result row "
		    "opens its timeline on the row it is about.");
	help_add(h,
		 "  Histogram (i): events, errors and NotReady nodes per round time bin, + and - "
		 "for finer or coarser bins.");
	help_add(h, "");
	help_section(h, "Everywhere", 0);
	help_section(h, "Cluster", TUI_CTX_CLUSTER);
	help_section(h, "Timeline", TUI_CTX_TIMELINE);
	help_section(h, "Queries", TUI_CTX_QUERIES);
	help_section(h, "Histogram", TUI_CTX_HIST);
	help_section(h, "Marks (M)", TUI_CTX_MARKS);
	help_commands(h);
	help_legend(h);
	h->win.total = h->n;
	return &h->base;
}
