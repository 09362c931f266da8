/*
 * tui-cmd.c - the tools every screen shares, and the `:` command prompt.
 *
 *   m   marks the row under the cursor (again: unmarks it); M lists the marks
 *   e   writes the current view (on M: the marks) to a file, Markdown or CSV
 *   y   copies the row under the cursor to the clipboard through OSC 52
 *   f   filters the current list (the screens that keep their own `f` do)
 *   :   a command: goto TIME, filter TEXT, sort [prev], export FILE, mark,
 *       marks, copy, help, quit (the table below; help prints it)
 *
 * A screen takes part through its optional ops (row, each, filter,
 * goto_time); one without them says so on the status line.
 */
#include "tui-int.h"

#include <stdlib.h>
#include <string.h>

static struct tui_screen *cmd_top(struct tui *t)
{
	return t->stack[t->depth - 1];
}

/* The screen lacks what a tool needs: say which screens have it. */
static void cmd_cannot(struct tui *t, const char *tool, const char *where)
{
	tui_status(t, TUI_ERROR, "%s: not on the %s screen (%s)", tool, cmd_top(t)->ops->name,
		   where);
}

#define CMD_ROWS "on a timeline, its requests or lines, a query's result, the marks"

static void cmd_mark(struct tui *t, const char *arg)
{
	struct tui_screen *s = cmd_top(t);
	struct tui_row r;
	int rc;

	(void)arg;
	if (s->ops->row == NULL || s->ops->ctx == TUI_CTX_MARKS) {
		cmd_cannot(t, "m", CMD_ROWS);
		return;
	}
	if (s->ops->row(t, s, &r) != 0) {
		tui_status(t, TUI_INFO, "no row here to mark");
		return;
	}
	rc = tui_marks_toggle(&t->marks, &r);
	if (rc < 0)
		tui_status(t, TUI_ERROR, "at most %d marks (M lists them; m there unmarks)",
			   TUI_MARKS_MAX);
	else
		tui_status(t, TUI_INFO, "%s (%zu %s; M lists them)", rc ? "marked" : "unmarked",
			   t->marks.n, t->marks.n == 1 ? "mark" : "marks");
}

static void cmd_marks(struct tui *t, const char *arg)
{
	(void)arg;
	if (cmd_top(t)->ops->ctx != TUI_CTX_MARKS)
		tui_push(t, tui_marks_new(t));
}

/* y: the row's words, sanitized (a clipboard is pasted into terminals too), base64 in OSC 52. */
static void cmd_copy(struct tui *t, const char *arg)
{
	struct tui_screen *s = cmd_top(t);
	struct tui_row r;
	struct lt_buf safe;

	(void)arg;
	if (s->ops->row == NULL) {
		cmd_cannot(t, "y", CMD_ROWS);
		return;
	}
	if (s->ops->row(t, s, &r) != 0) {
		tui_status(t, TUI_INFO, "no row here to copy");
		return;
	}
	lt_buf_init(&safe);
	lt_sanitize(&safe, r.text ? r.text : "", r.text ? strlen(r.text) : 0);
	if (tui_term_copy(safe.ptr, safe.len) == 0)
		tui_status(t, TUI_INFO, "copied %zu %s (OSC 52)", safe.len,
			   safe.len == 1 ? "byte" : "bytes");
	else
		tui_status(t, TUI_ERROR,
			   "no clipboard: the terminal does not advertise OSC 52 (terminfo Ms); "
			   "e exports to a file");
	lt_buf_release(&safe);
	tui_row_release(&r);
}

static void cmd_filter(struct tui *t, const char *arg)
{
	struct tui_screen *s = cmd_top(t);

	if (s->ops->filter == NULL) {
		cmd_cannot(t, "filter",
			   "on the cluster, a timeline and its panes, a query's result");
		return;
	}
	s->ops->filter(t, s, arg);
}

static void cmd_goto(struct tui *t, const char *arg)
{
	struct tui_screen *s = cmd_top(t);
	int64_t at;

	if (s->ops->goto_time == NULL) {
		cmd_cannot(t, "goto",
			   "on the cluster (its axis), a timeline and its panes, a query's result, "
			   "the marks");
		return;
	}
	if (arg[0] == '\0' || lt_time_arg(&at, arg, lt_store_end_us(t->st)) != 0) {
		tui_status(t, TUI_ERROR,
			   "goto TIME: RFC 3339, a time of day (05:56:13), or a duration back from "
			   "the newest event (2h), as --since takes it");
		return;
	}
	s->ops->goto_time(t, s, at);
}

static void cmd_sort(struct tui *t, const char *arg)
{
	struct tui_screen *s = cmd_top(t);
	enum tui_action a = strcmp(arg, "prev") == 0 ? TUI_A_SORT_PREV : TUI_A_SORT;

	if (!(s->ops->ctx & TUI_CTX_CLUSTER) || s->ops->action == NULL || !s->ops->action(t, s, a))
		cmd_cannot(t, "sort", "on the cluster screen");
}

static void cmd_export(struct tui *t, const char *arg)
{
	if (arg[0] == '\0')
		tui_status(t, TUI_ERROR, "export FILE: FILE.md (Markdown) or FILE.csv");
	else
		tui_export(t, arg);
}

/* The marks' subjects, each once, in the order first marked; n of them (owned by the marks). */
static size_t cmd_subjects(const struct tui *t, char **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->marks.n && n < max; i++) {
		const char *s = t->marks.v[i].subject;
		size_t k = 0;

		while (s != NULL && k < n && strcmp(out[k], s) != 0)
			k++;
		if (s != NULL && k == n)
			out[n++] = t->marks.v[i].subject;
	}
	return n;
}

#define CMD_REPORT_SUBJECTS 64 /* subjects a report from the marks takes at most */

/* :report FILE: `leasetrail report` of the marked subjects (FILE.html: HTML, else Markdown). */
static void cmd_report(struct tui *t, const char *arg)
{
	char *subjects[CMD_REPORT_SUBJECTS];
	size_t n = cmd_subjects(t, subjects, CMD_REPORT_SUBJECTS), len = strlen(arg);
	enum lt_report_format fmt = (len > 5 && strcmp(arg + len - 5, ".html") == 0) ||
					    (len > 4 && strcmp(arg + len - 4, ".htm") == 0)
					? LT_REPORT_HTML
					: LT_REPORT_MD;
	struct lt_query_opts o = {0};
	struct lt_error err = {0};
	struct lt_report *r = NULL;
	FILE *f;
	int rc;

	if (arg[0] == '\0' || n == 0) {
		tui_status(t, TUI_ERROR, "%s",
			   n == 0 ? "report FILE: mark rows first (m); the report "
				    "tells their nodes and leases"
				  : "report FILE: FILE.md or FILE.html");
		return;
	}
	if ((rc = lt_report_build(&r, t->st, subjects, n, &o, &err)) != 0) {
		tui_status(t, TUI_ERROR, "%s", err.msg);
		return;
	}
	if ((f = fopen(arg, "w")) == NULL) {
		tui_status(t, TUI_ERROR, "cannot write %s", arg);
	} else {
		rc = lt_report_write(r, fmt, f, &err);
		if (fclose(f) != 0 && rc == 0)
			rc = lt_error_set(&err, LT_ERR_IO, "cannot write %s", arg);
		if (rc != 0)
			tui_status(t, TUI_ERROR, "%s", err.msg);
		else
			tui_status(t, TUI_INFO, "the report of %zu marked %s written to %s", n,
				   n == 1 ? "subject" : "subjects", arg);
	}
	lt_report_free(r);
}

static void cmd_help(struct tui *t, const char *arg)
{
	(void)arg;
	if (cmd_top(t)->ops->ctx != TUI_CTX_HELP)
		tui_push(t, tui_help_new(t));
}

static void cmd_quit(struct tui *t, const char *arg)
{
	(void)arg;
	t->quit = 1;
}

static const struct tui_cmd cmds[] = {
    {"goto", "TIME",
     "the row nearest TIME (any --since form: RFC 3339, 05:56:13, 2h); on the cluster, the axis",
     cmd_goto},
    {"filter", "TEXT", "as f: REGEX, COL=RE, COL!=RE, COL>N, COL<N; no TEXT: all", cmd_filter},
    {"sort", "[prev]", "the cluster's next (previous) sort, as > and <", cmd_sort},
    {"export", "FILE", "as e: the view (on M: the marks) to FILE.md or FILE.csv", cmd_export},
    {"report", "FILE", "leasetrail report of the marked nodes and leases (FILE.html: HTML)",
     cmd_report},
    {"mark", "", "as m: mark or unmark the row under the cursor", cmd_mark},
    {"marks", "", "as M: the marks", cmd_marks},
    {"copy", "", "as y: the row to the clipboard (OSC 52)", cmd_copy},
    {"help", "", "as ?: every key and command", cmd_help},
    {"quit", "", "as Q: quit", cmd_quit},
    {NULL, NULL, NULL, NULL},
};

const struct tui_cmd *tui_cmds(void)
{
	return cmds;
}

void tui_cmd_run(struct tui *t, const char *line)
{
	size_t n;

	line += strspn(line, " \t");
	if (line[0] == '\0')
		return;
	n = strcspn(line, " \t");
	for (const struct tui_cmd *c = cmds; c->name != NULL; c++) {
		const char *arg;

		/* a command may be shortened while it stays one: g, f, e, q... */
		if (n > strlen(c->name) || strncmp(line, c->name, n) != 0)
			continue;
		arg = line + n + strspn(line + n, " \t");
		c->run(t, arg);
		return;
	}
	tui_status(t, TUI_ERROR,
		   "no command '%.*s': goto, filter, sort, export, report, mark, marks, copy, "
		   "help, quit (? lists them)",
		   (int)(n < 40 ? n : 40), line);
}

/* The prompt each tool opens; fresh each time. */
int tui_tool_action(struct tui *t, enum tui_action a)
{
	struct tui_screen *s = cmd_top(t);

	switch (a) {
	case TUI_A_MARK:
		cmd_mark(t, "");
		return 1;
	case TUI_A_MARKS:
		cmd_marks(t, "");
		return 1;
	case TUI_A_COPY:
		cmd_copy(t, "");
		return 1;
	case TUI_A_EXPORT:
		if (s->ops->each == NULL)
			cmd_cannot(t, "e", CMD_ROWS);
		else
			tui_prompt(t, TUI_P_EXPORT,
				   s->ops->ctx == TUI_CTX_MARKS
				       ? "export the marks to (FILE.md, FILE.csv): "
				       : "export this view to (FILE.md, FILE.csv): ",
				   NULL);
		return 1;
	case TUI_A_COMMAND:
		tui_prompt(t, TUI_P_COMMAND, ":", NULL);
		return 1;
	case TUI_A_FILTER:
		if (s->ops->filter == NULL)
			cmd_cannot(t, "f",
				   "on the cluster, a timeline and its panes, a query's result");
		else
			tui_prompt(t, TUI_P_FILTER, TUI_FILTER_PROMPT, NULL);
		return 1;
	default:
		return 0;
	}
}

void tui_tool_prompted(struct tui *t, int what, const char *text)
{
	switch (what) {
	case TUI_P_FILTER:
		cmd_filter(t, text);
		break;
	case TUI_P_EXPORT:
		cmd_export(t, text);
		break;
	case TUI_P_COMMAND:
		tui_cmd_run(t, text);
		break;
	default:
		break;
	}
}
