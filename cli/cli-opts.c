/* cli-opts.c - the options the commands share, and the frame of a read-only command. */
#include "cli.h"

#include <getopt.h>
#include <string.h>

static const struct option cli_longopts[] = {
    {"db", required_argument, NULL, 'd'},
    {"output", required_argument, NULL, 'o'},
    {"since", required_argument, NULL, 's'},
    {"until", required_argument, NULL, 'u'},
    {"gap", required_argument, NULL, 'g'},
    {"slow", required_argument, NULL, 'S'},
    {"verbose", no_argument, NULL, 'v'},
    {"list", no_argument, NULL, 'l'},
    {"emit", required_argument, NULL, 'e'},
    {"all-resources", no_argument, NULL, 'a'},
    {"year", required_argument, NULL, 'y'},
    {"node", required_argument, NULL, 'n'},
    {"utc-offset", required_argument, NULL, 'z'},
    {"quiet", no_argument, NULL, 'q'},
    {"follow", no_argument, NULL, 'F'},
    {"timeout", required_argument, NULL, 'T'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The enum cli_opt bit an option needs; 0 for the ones every command takes. */
static unsigned cli_opt_bit(int c)
{
	switch (c) {
	case 'o':
		return CLI_OPT_OUTPUT;
	case 's':
	case 'u':
		return CLI_OPT_RANGE;
	case 'g':
	case 'S':
		return CLI_OPT_THRESHOLDS;
	case 'v':
		return CLI_OPT_VERBOSE;
	case 'l':
		return CLI_OPT_LIST;
	case 'e':
		return CLI_OPT_EMIT;
	case 'T':
		return CLI_OPT_TIMEOUT;
	case 'a':
	case 'y':
	case 'n':
	case 'z':
	case 'q':
	case 'F':
		return CLI_OPT_INGEST;
	default:
		return 0;
	}
}

/* An ingest option (CLI_OPT_INGEST), or 'h'. */
static int cli_ingest_opt(const struct lt_cmd *cmd, int c, struct cli_query *q)
{
	switch (c) {
	case 'a':
		q->ingest.all_resources = 1;
		return 0;
	case 'y':
		return lt_ingest_year_arg(&q->ingest.year, optarg) == 0
			   ? 0
			   : cli_usage_error(cmd, "--year takes a year like 2024");
	case 'n':
		q->ingest.node = optarg;
		return 0;
	case 'z':
		q->ingest.utc_offset_given = 1;
		return lt_ingest_offset_arg(&q->ingest.utc_offset_us, optarg) == 0
			   ? 0
			   : cli_usage_error(cmd,
					     "--utc-offset takes an offset like +02:00 or -0500");
	case 'q':
		q->quiet = 1;
		return 0;
	case 'F':
		q->ingest.follow = 1;
		return 0;
	default: /* 'h' */
		q->help = 1;
		return 0;
	}
}

static int cli_one_opt(const struct lt_cmd *cmd, int c, struct cli_query *q)
{
	if (c == '?' || (cli_opt_bit(c) & ~cmd->opts) != 0)
		return cli_usage_error(cmd, "unknown option");
	switch (c) {
	case 'd':
		q->db = optarg;
		return 0;
	case 'o':
		return lt_out_format_parse(&q->opts.fmt, optarg) == 0
			   ? 0
			   : cli_usage_error(cmd, "-o takes table, csv, json or jsonl");
	case 's':
		q->since = optarg;
		return 0;
	case 'u':
		q->until = optarg;
		return 0;
	case 'g':
	case 'S':
		if (lt_duration_parse(c == 'g' ? &q->opts.gap_us : &q->opts.slow_us, optarg) != 0)
			return cli_usage_error(cmd, "a duration is like 40s, 2m, 1h30m or 500ms");
		return 0;
	case 'v':
		q->opts.verbose = 1;
		return 0;
	case 'l':
		q->list = 1;
		return 0;
	case 'e':
		if (strcmp(optarg, "cwli") != 0)
			return cli_usage_error(cmd, "--emit takes cwli");
		q->emit = optarg;
		return 0;
	case 'T':
		q->timeout = optarg;
		return 0;
	default:
		return cli_ingest_opt(cmd, c, q);
	}
}

int cli_parse(const struct lt_cmd *cmd, int argc, char **argv, struct cli_query *q, int *status)
{
	int c;

	memset(q, 0, sizeof *q);
	q->db = lt_store_default_path();
	*status = LT_EXIT_OK;
	optind = 0;
	opterr = 0; /* our own one-line message, not getopt's */
	while ((c = getopt_long(argc, argv, "o:vqh", cli_longopts, NULL)) != -1)
		if ((*status = cli_one_opt(cmd, c, q)) != 0)
			return 1;
	if (q->help) {
		cli_help(cmd, stdout);
		return 1;
	}
	q->args = argv + optind;
	q->nargs = argc - optind;
	if (!q->list && (q->nargs < cmd->min_args || q->nargs > cmd->max_args)) {
		struct lt_buf msg;

		lt_buf_init(&msg);
		lt_buf_printf(&msg, "%s; usage: leasetrail %s %s",
			      cmd->max_args == 0 ? "takes no arguments"
						 : "wrong number of arguments",
			      cmd->name, cmd->usage);
		*status = cli_usage_error(cmd, msg.ptr);
		lt_buf_release(&msg);
		return 1;
	}
	return 0;
}

int cli_query_open(const struct lt_cmd *cmd, struct cli_query *q, struct lt_store **st)
{
	struct lt_error err = {0};
	struct lt_buf why;
	int64_t end;

	if (lt_store_open(st, q->db, LT_STORE_READONLY, &err) != 0)
		return cli_error(LT_EXIT_FAIL, &err);
	if (lt_store_wal_unread(*st))
		fprintf(
		    stderr,
		    "leasetrail: %s: read without its -wal file (it cannot be used from a "
		    "read-only place): the last commits of an unfinished ingest are not shown\n",
		    lt_store_path(*st));
	/* never an answer from half a state without a word */
	if (lt_derived_check(*st, &why) != 0) {
		fputs("leasetrail: ", stderr);
		lt_print_safe(stderr, lt_store_path(*st), strlen(lt_store_path(*st)), 0);
		fprintf(stderr, ": %s\n", why.ptr);
	}
	lt_buf_release(&why);
	end = q->since || q->until ? lt_store_end_us(*st) : 0;
	if ((q->since && lt_time_arg(&q->opts.since_us, q->since, end) != 0) ||
	    (q->until && lt_time_arg(&q->opts.until_us, q->until, end) != 0)) {
		lt_store_free(*st);
		*st = NULL;
		return cli_usage_error(cmd, "--since/--until take RFC 3339 or a duration like 2h");
	}
	return 0;
}

int cli_run_readonly(const struct lt_cmd *cmd, int argc, char **argv,
		     int (*fn)(struct lt_store *st, struct cli_query *q, struct lt_error *err))
{
	struct lt_error err = {0};
	struct cli_query q;
	struct lt_store *st;
	int status, rc;

	if (cli_parse(cmd, argc, argv, &q, &status) != 0)
		return status;
	if ((status = cli_query_open(cmd, &q, &st)) != 0)
		return status;
	rc = fn(st, &q, &err);
	lt_store_free(st);
	if (rc == 0)
		return LT_EXIT_OK;
	return cli_error(rc == LT_ERR_USAGE ? LT_EXIT_USAGE : LT_EXIT_FAIL, &err);
}
