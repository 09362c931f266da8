/* cmd-tui.c - `leasetrail tui`: browse the store in the terminal. */
#include "cli.h"
#include "lt_tui.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t tui_started_ns;
static int tui_no_mouse; /* --no-mouse: read here, the other options by cli_parse */

static int tui_do(struct lt_store *st, struct cli_query *q, struct lt_error *err)
{
	/* hidden: the measurement mode of bench/bench-tui.sh */
	const char *bench = getenv("LEASETRAIL_TUI_BENCH");
	const char *steps = getenv("LEASETRAIL_TUI_BENCH_STEPS");
	struct lt_tui_opts o = {0, NULL, 0, tui_started_ns, tui_no_mouse};

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

	char **args = lt_xcalloc((size_t)argc + 1, sizeof *args);
	int n = 0, rc, options = 1;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	tui_started_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	/* --no-mouse is this command's own: taken out before the shared options are parsed */
	for (int i = 0; i < argc; i++) {
		if (options && strcmp(argv[i], "--") == 0)
			options = 0;
		if (options && i > 0 && strcmp(argv[i], "--no-mouse") == 0)
			tui_no_mouse = 1;
		else
			args[n++] = argv[i];
	}
	rc = cli_run_readonly(cmd, n, args, tui_do);
	free(args);
	return rc;
}

const struct lt_cmd lt_cmd_tui = {
    .name = "tui",
    .usage = "[--db FILE] [--tz ZONE | --utc] [--no-mouse]",
    .summary = "Browse nodes, lease timelines, events and canned queries in the terminal.",
    .help =
	"Options:\n"
	"  --db FILE   the store (default $LEASETRAIL_DB, else ./leasetrail.db), opened read-only\n"
	"  --tz ZONE   show times in ZONE and read the queries' since and until in it: an IANA\n"
	"              name, local, or +05:30 (default $LEASETRAIL_TZ, else UTC)\n"
	"  --utc       UTC, whatever --tz or $LEASETRAIL_TZ say\n"
	"  --no-mouse  leave the mouse to the terminal (its own selection); by default a click\n"
	"              selects a row and the wheel scrolls, when the terminal reports them\n"
	"  -h, --help  this help\n\n"
	"Screens: Cluster (every node and lease, problems first, with a heartbeat strip over the\n"
	"store's time range), Timeline (Enter on a row; Enter again: its requests or log lines),\n"
	"Event (Enter on a request or a line), Queries (c), Help (?: every key).\n"
	"Keys: j/k, PgUp/PgDn, g/G, / n N, Enter, Esc or q back, Tab, + - zoom, h/l move,\n"
	"< > sort, f filter on any list (f state=not-ready, f 404>0, f code=404), w wrap,\n"
	"r reload, m mark, M marks, e export (Markdown or CSV), y copy (OSC 52), : commands\n"
	"(:goto TIME, :filter, :sort, :export FILE, :report FILE, :help, :quit).\n"
	"NO_COLOR (or a monochrome terminal) shows states by their symbols only.\n",
    .exits = "0 quit; 1 the store could not be read, or a signal (SIGINT, SIGTERM, SIGHUP)\n"
	     "ended it; 2 usage error, or stdin or stdout is not a terminal.\n",
    .run = tui_run,
    .opts = 0,
    .min_args = 0,
    .max_args = 0,
};
