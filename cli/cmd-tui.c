/* cmd-tui.c - `leasetrail tui`: browse the store in the terminal. */
#include "cli.h"
#include "lt_tui.h"

#include <stdlib.h>
#include <time.h>

static int64_t tui_started_ns;

static int tui_do(struct lt_store *st, struct cli_query *q, struct lt_error *err)
{
	/* hidden: the measurement mode of bench/bench-tui.sh */
	const char *bench = getenv("LEASETRAIL_TUI_BENCH");
	const char *steps = getenv("LEASETRAIL_TUI_BENCH_STEPS");
	struct lt_tui_opts o = {0, NULL, 0, tui_started_ns};

	(void)q;
	if (bench != NULL && bench[0] != '\0') {
		o.bench_out = bench;
		o.bench_steps = steps ? (int)strtol(steps, NULL, 10) : 100;
		if (o.bench_steps < 0 || o.bench_steps > 1000000)
			o.bench_steps = 100;
	}
	return lt_tui_run(st, &o, err);
}

static int tui_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	tui_started_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	return cli_run_readonly(cmd, argc, argv, tui_do);
}

const struct lt_cmd lt_cmd_tui = {
    .name = "tui",
    .usage = "[--db FILE] [--tz ZONE | --utc]",
    .summary = "Browse nodes, lease timelines, events and canned queries in the terminal.",
    .help =
	"Options:\n"
	"  --db FILE   the store (default $LEASETRAIL_DB, else ./leasetrail.db), opened read-only\n"
	"  --tz ZONE   show times in ZONE and read the queries' since and until in it: an IANA\n"
	"              name, local, or +05:30 (default $LEASETRAIL_TZ, else UTC)\n"
	"  --utc       UTC, whatever --tz or $LEASETRAIL_TZ say\n"
	"  -h, --help  this help\n\n"
	"Screens: Cluster (every node and lease, problems first, with a heartbeat strip over the\n"
	"store's time range), Timeline (Enter on a row; Enter again: its requests or log lines),\n"
	"Event (Enter on a request or a line), Queries (c), Help (?: every key).\n"
	"Keys: j/k, PgUp/PgDn, g/G, / n N, Enter, Esc or q back, Tab, + - zoom, h/l move,\n"
	"< > sort, f filter (f state=not-ready, f 404>0), w wrap, r reload.\n"
	"NO_COLOR (or a monochrome terminal) shows states by their symbols only.\n",
    .exits = "0 quit; 1 the store could not be read, or a signal (SIGINT, SIGTERM, SIGHUP)\n"
	     "ended it; 2 usage error, or stdin or stdout is not a terminal.\n",
    .run = tui_run,
    .opts = 0,
    .min_args = 0,
    .max_args = 0,
};
