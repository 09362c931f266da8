/*
 * lt_tui.h - the terminal browser: cluster, timeline, event, queries, help.
 *
 * A curses (ncursesw, UTF-8) program over an open store.  It reads the store
 * a page at a time through the query layer's browsing API, so it starts at
 * once on any store size, and it may run while an ingest writes the store
 * (`r` reloads).  Every string from a log is sanitized before it is drawn.
 */
#ifndef LT_TUI_H
#define LT_TUI_H

#include "lt_queries.h"

struct lt_tui_opts {
	int no_color; /* monochrome even on a color terminal ($NO_COLOR also does it) */
	/*
	 * Measurement mode (bench/bench-tui.sh): when bench_out is set, draw the
	 * cluster screen, then move the cursor down bench_steps times and page down
	 * bench_steps times, redrawing each time; write the timings to bench_out
	 * and return.  Needs a terminal like any other run.
	 */
	const char *bench_out;
	int bench_steps;
	int64_t start_ns; /* CLOCK_MONOTONIC when the command started; 0: when lt_tui_run did */
	int no_mouse;	  /* leave the mouse to the terminal (its own selection), no clicks */
};

/*
 * Runs the browser on st (opened read-only is enough) until the user quits.
 * stdin and stdout must be a terminal (LT_ERR_USAGE otherwise).  The
 * terminal is restored on every way out: quitting, an error, SIGINT, SIGTERM
 * or SIGHUP (then LT_ERR_ABORT), and a crash.  Errors of single queries are
 * shown on the status line and do not end the program.
 */
int lt_tui_run(struct lt_store *st, const struct lt_tui_opts *o, struct lt_error *err);

#endif
