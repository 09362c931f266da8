/*
 * tui-app.c - the browser's frame: a stack of screens, the title and status
 * lines, the prompt, and the main loop that turns keys into actions.
 *
 * A screen draws its body and handles the actions it knows; what it leaves
 * (back, quit, help, queries, reload, redraw) is handled here the same way
 * everywhere.  The loop redraws after each key and polls for signals, so
 * SIGINT and SIGTERM leave through the same door as `q`.
 */
#include "tui-int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void tui_status(struct tui *t, enum tui_status_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->status, sizeof t->status, fmt, ap);
	va_end(ap);
	t->status_error = kind == TUI_ERROR;
}

void tui_prompt(struct tui *t, int what, const char *label, const char *init)
{
	t->prompt.active = 1;
	t->prompt.what = what;
	snprintf(t->prompt.label, sizeof t->prompt.label, "%s", label);
	snprintf(t->prompt.line.buf, sizeof t->prompt.line.buf, "%s", init ? init : "");
	t->prompt.line.len = strlen(t->prompt.line.buf);
}

void tui_push(struct tui *t, struct tui_screen *s)
{
	if (s == NULL)
		return;
	if (t->depth == TUI_MAX_DEPTH) {
		s->ops->free(s);
		tui_status(t, TUI_ERROR, "too many screens open: go back first (Esc)");
		return;
	}
	t->stack[t->depth++] = s;
}

static void app_pop(struct tui *t)
{
	struct tui_screen *s = t->stack[--t->depth];

	s->ops->free(s);
}

struct lt_regex *tui_regex(struct tui *t, const char *pattern)
{
	struct lt_error err = {0};
	struct lt_regex *re;
	int icase = 1;

	/* smart case, as in less -i and vim's smartcase */
	for (const char *p = pattern; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			icase = 0;
	if (lt_regex_new(&re, pattern, icase, &err) != 0) {
		tui_status(t, TUI_ERROR, "%s", err.msg);
		return NULL;
	}
	return re;
}

void tui_draw_header(int y, int cols, const char *text)
{
	tui_fill(y, 0, cols, TUI_S_HEADER);
	tui_put(y, 0, cols, TUI_S_HEADER, text);
}

static void app_title(struct tui *t, int cols)
{
	struct tui_screen *s = t->stack[t->depth - 1];
	char a[40], b[40], line[1024];

	tui_fmt_time(a, sizeof a, t->first_us, TUI_TIME_DATE);
	tui_fmt_time(b, sizeof b, t->last_us, TUI_TIME_DATE);
	if (t->first_us == 0)
		snprintf(a, sizeof a, "no leases yet"), b[0] = '\0';
	snprintf(line, sizeof line, " leasetrail | %s | %s%s | %s%s%s%s%s", s->ops->name,
		 lt_store_path(t->st), t->building ? " (still being built)" : "", a,
		 b[0] ? " - " : "", b, b[0] ? " " : "", b[0] ? lt_zone_name() : "");
	tui_fill(0, 0, cols, TUI_S_TITLE);
	tui_put(0, 0, cols, TUI_S_TITLE, line);
}

/* The hints, after the filter in force on the screen (f), when there is one. */
static const char *app_hints(struct tui *t, const char *hints, char *buf, size_t size)
{
	struct tui_screen *s = t->stack[t->depth - 1];
	const char *f = s->ops->filter_text ? s->ops->filter_text(s) : NULL;

	if (f == NULL || f[0] == '\0')
		return hints;
	snprintf(buf, size, " filter %s (f, Enter: off) |%s", f, hints);
	return buf;
}

static void app_status(struct tui *t, int y, int cols)
{
	static const char hints[] =
	    " ? help  q back/quit  Enter drill in  / search  c queries  r reload";
	char line[512];

	if (t->prompt.active) {
		int x;

		tui_fill(y, 0, cols, TUI_S_NORMAL);
		x = tui_put(y, 0, cols, TUI_S_NORMAL, t->prompt.label);
		x += tui_put(y, x, cols - x - 1, TUI_S_NORMAL, t->prompt.line.buf);
		tui_term_cursor(y, x < cols ? x : cols - 1);
		return;
	}
	tui_fill(y, 0, cols, t->status_error ? TUI_S_ERROR : TUI_S_STATUS);
	tui_put(y, 0, cols, t->status_error ? TUI_S_ERROR : TUI_S_STATUS,
		t->status[0] ? t->status : app_hints(t, hints, line, sizeof line));
	tui_term_cursor(-1, 0);
}

static void app_draw(struct tui *t)
{
	struct tui_screen *s = t->stack[t->depth - 1];

	tui_term_size(&t->rows, &t->cols);
	tui_term_clear();
	if (t->rows < 6 || t->cols < 30) {
		tui_put(0, 0, t->cols, TUI_S_NORMAL, "terminal too small");
		tui_term_flush();
		return;
	}
	app_title(t, t->cols);
	s->ops->draw(t, s, 1, t->rows - 2, t->cols);
	app_status(t, t->rows - 1, t->cols);
	tui_term_flush();
}

/*
 * Whether the store's derived tables lag its events (an ingest running, or
 * one interrupted): never a half-built state without a word.  The title says
 * so while it lasts, the status line what lags.
 */
static void app_check(struct tui *t)
{
	struct lt_buf why;

	t->building = lt_derived_check(t->st, &why) != 0;
	if (t->building)
		tui_status(t, TUI_ERROR, "the store is still being built: %s", why.ptr);
	lt_buf_release(&why);
}

static void app_reload(struct tui *t)
{
	struct lt_error err = {0};

	if (lt_browse_span(&t->first_us, &t->last_us, t->st, &err) != 0) {
		tui_status(t, TUI_ERROR, "%s", err.msg);
		return;
	}
	app_check(t);
	/* every screen: going back must not show what was true before the reload */
	for (int i = 0; i < t->depth; i++)
		if (t->stack[i]->ops->reload)
			t->stack[i]->ops->reload(t, t->stack[i]);
	if (!t->status_error)
		tui_status(t, TUI_INFO, "reloaded");
}

/* What no screen took: the same everywhere. */
static void app_generic(struct tui *t, enum tui_action a)
{
	unsigned top = t->stack[t->depth - 1]->ops->ctx; /* which screen is on top */

	switch (a) {
	case TUI_A_BACK:
		if (t->depth > 1)
			app_pop(t);
		break;
	case TUI_A_QUIT_BACK:
		if (t->depth > 1)
			app_pop(t);
		else
			t->quit = 1;
		break;
	case TUI_A_QUIT:
		t->quit = 1;
		break;
	case TUI_A_HELP:
		if (top != TUI_CTX_HELP)
			tui_push(t, tui_help_new(t));
		break;
	case TUI_A_QUERIES:
		if (top != TUI_CTX_QUERIES)
			tui_push(t, tui_queries_new(t));
		break;
	case TUI_A_HIST:
		if (top != TUI_CTX_HIST)
			tui_push(t, tui_hist_new(t));
		break;
	case TUI_A_RELOAD:
		app_reload(t);
		break;
	default:
		tui_tool_action(t, a);
		break;
	}
}

/* A click selects the row under it; the wheel moves the cursor (a few rows a notch). */
#define APP_WHEEL_ROWS 3

static void app_mouse(struct tui *t, struct tui_screen *s, int key)
{
	if (key == TUI_K_CLICK) {
		if (s->ops->click)
			s->ops->click(t, s, tui_term_mouse_y());
		return;
	}
	for (int i = 0; i < APP_WHEEL_ROWS && s->ops->action; i++)
		s->ops->action(t, s, key == TUI_K_WHEEL_UP ? TUI_A_UP : TUI_A_DOWN);
}

static void app_key(struct tui *t, int key)
{
	struct tui_screen *s = t->stack[t->depth - 1];
	enum tui_action a;

	if (t->prompt.active) {
		int r = tui_line_key(&t->prompt.line, key);

		if (r != 0)
			t->prompt.active = 0;
		if (r == 1 && t->prompt.what >= TUI_P_FILTER)
			tui_tool_prompted(t, t->prompt.what, t->prompt.line.buf);
		else if (r == 1 && s->ops->prompted)
			s->ops->prompted(t, s, t->prompt.what, t->prompt.line.buf);
		return;
	}
	if (key != TUI_K_RESIZE)
		t->status[0] = '\0', t->status_error = 0;
	if (key == TUI_K_CLICK || key == TUI_K_WHEEL_UP || key == TUI_K_WHEEL_DOWN) {
		app_mouse(t, s, key);
		return;
	}
	a = tui_key_action(key, s->ops->ctx);
	if (a == TUI_A_NONE || a == TUI_A_REDRAW)
		return; /* the loop redraws everything after every key */
	if (s->ops->action && s->ops->action(t, s, a))
		return;
	app_generic(t, a);
}

static double app_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* The process's CPU time (user and system) in ms: on a loaded machine the steadier figure. */
static double app_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * The measurement mode's phases of the first screen: wall and CPU time at the
 * end of each (the process's CPU from its start), written as differences.
 */
#define APP_PHASES 8
struct app_phases {
	const char *name[APP_PHASES];
	struct timespec wall[APP_PHASES];
	double cpu[APP_PHASES];
	int n;
};

static void app_phase(struct app_phases *p, const char *name)
{
	if (p == NULL || p->n >= APP_PHASES)
		return;
	p->name[p->n] = name;
	clock_gettime(CLOCK_MONOTONIC, &p->wall[p->n]);
	p->cpu[p->n++] = app_cpu_ms();
}

static void app_phases_write(FILE *f, const struct app_phases *p, const struct timespec *start)
{
	for (int i = 0; i < p->n; i++)
		fprintf(f, "phase %s wall_ms %.1f cpu_ms %.1f\n", p->name[i],
			app_ms(i ? &p->wall[i - 1] : start, &p->wall[i]),
			p->cpu[i] - (i ? p->cpu[i - 1] : 0));
}

static int app_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Times n steps of action a (each: the action and a full redraw); writes a
 * summary line: wall time (mean, median, p95, max), then CPU time (median,
 * p95, max).
 */
static void app_bench_steps(struct tui *t, FILE *f, const char *name, enum tui_action a, int n)
{
	double *ms = lt_xcalloc(n > 0 ? (size_t)n : 1, sizeof *ms), sum = 0;
	double *cpu = lt_xcalloc(n > 0 ? (size_t)n : 1, sizeof *cpu);
	struct tui_screen *s = t->stack[t->depth - 1];

	for (int i = 0; i < n; i++) {
		struct timespec t0, t1;
		double c0 = app_cpu_ms();

		clock_gettime(CLOCK_MONOTONIC, &t0);
		s->ops->action(t, s, a);
		app_draw(t);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		cpu[i] = app_cpu_ms() - c0;
		ms[i] = app_ms(&t0, &t1);
		sum += ms[i];
	}
	qsort(ms, (size_t)n, sizeof *ms, app_cmp_double);
	qsort(cpu, (size_t)n, sizeof *cpu, app_cmp_double);
	if (n > 0)
		fprintf(f,
			"%s steps %d mean_ms %.2f median_ms %.2f p95_ms %.2f max_ms %.2f"
			" cpu_median_ms %.2f cpu_p95_ms %.2f cpu_max_ms %.2f\n",
			name, n, sum / n, ms[n / 2], ms[n * 95 / 100], ms[n - 1], cpu[n / 2],
			cpu[n * 95 / 100], cpu[n - 1]);
	free(ms);
	free(cpu);
}

static int app_bench(struct tui *t, const struct lt_tui_opts *o, const struct timespec *start,
		     struct app_phases *ph, struct lt_error *err)
{
	FILE *f = fopen(o->bench_out, "w");
	struct timespec now;

	if (f == NULL)
		return lt_error_set(err, LT_ERR_IO, "cannot write %s", o->bench_out);
	app_draw(t);
	app_phase(ph, "draw");
	clock_gettime(CLOCK_MONOTONIC, &now);
	fprintf(f, "first_screen_ms %.1f first_screen_cpu_ms %.1f rows %d cols %d\n",
		app_ms(start, &now), app_cpu_ms(), t->rows, t->cols);
	app_phases_write(f, ph, start);
	app_bench_steps(t, f, "down", TUI_A_DOWN, o->bench_steps);
	app_bench_steps(t, f, "pgdn", TUI_A_PGDN, o->bench_steps);
	app_bench_steps(t, f, "pgup", TUI_A_PGUP, o->bench_steps);
	fclose(f);
	return 0;
}

static int app_loop(struct tui *t, struct lt_error *err)
{
	int dirty = 1;

	while (!t->quit) {
		int key, sig;

		if (dirty)
			app_draw(t);
		key = tui_term_key(250);
		if ((sig = tui_term_signalled()) != 0)
			return lt_error_set(err, LT_ERR_ABORT, "interrupted by signal %d", sig);
		dirty = key != TUI_K_NONE;
		if (dirty)
			app_key(t, key);
	}
	return 0;
}

/*
 * The TUI's page cache, KiB: SQLite's default size, not the store's 16 MiB.
 * The cluster list's statement reads about 2 MiB of scattered pages once; a
 * bigger cache only gives each page fresh memory (page faults) where a small
 * one reuses it: on the 10 M-event store the statement took 150-225 ms CPU
 * with 16 MiB and 70-115 ms with 2 MiB (bench/RESULTS.md).
 */
#define TUI_CACHE_KIB 2000

int lt_tui_run(struct lt_store *st, const struct lt_tui_opts *o, struct lt_error *err)
{
	struct tui t;
	struct timespec start;
	struct app_phases phases = {0}, *ph = o->bench_out ? &phases : NULL;
	int rc;

	if (o->start_ns > 0)
		start = (struct timespec){o->start_ns / 1000000000, o->start_ns % 1000000000};
	else
		clock_gettime(CLOCK_MONOTONIC, &start);
	memset(&t, 0, sizeof t);
	t.st = st;
	app_phase(ph, "start"); /* the process's start to here: exec, options, the store opened */
	if ((rc = lt_store_set_cache(st, TUI_CACHE_KIB, err)) != 0 ||
	    (rc = lt_browse_span(&t.first_us, &t.last_us, st, err)) != 0)
		return rc;
	app_phase(ph, "span");
	if ((rc = tui_term_open(o->no_color ? TUI_TERM_NO_COLOR : 0, err)) != 0)
		return rc;
	if (!o->no_mouse)
		tui_term_mouse(1);
	tui_term_size(&t.rows, &t.cols);
	app_phase(ph, "terminal");
	app_check(&t);
	app_phase(ph, "check");
	tui_push(&t, tui_cluster_new(&t));
	app_phase(ph, "list");
	rc = o->bench_out ? app_bench(&t, o, &start, ph, err) : app_loop(&t, err);
	while (t.depth > 0)
		app_pop(&t);
	tui_marks_release(&t.marks);
	tui_term_close();
	return rc;
}
