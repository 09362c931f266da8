/* cli-opts.c - the options the lifecycle commands share: --db, -o, --since, --until, ... */
#include "cli.h"

#include <getopt.h>
#include <string.h>

static const struct option cli_query_longopts[] = {
    {"db", required_argument, NULL, 'd'},    {"output", required_argument, NULL, 'o'},
    {"since", required_argument, NULL, 's'}, {"until", required_argument, NULL, 'u'},
    {"gap", required_argument, NULL, 'g'},   {"slow", required_argument, NULL, 'S'},
    {"verbose", no_argument, NULL, 'v'},     {"list", no_argument, NULL, 'l'},
    {"help", no_argument, NULL, 'h'},	     {NULL, 0, NULL, 0}};

static int cli_one_opt(const struct lt_cmd *cmd, int c, struct cli_query *q)
{
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
	case 'h':
		cli_help(cmd, stdout);
		q->help = 1;
		return 0;
	default:
		return cli_usage_error(cmd, "unknown option");
	}
}

int cli_query_parse(const struct lt_cmd *cmd, int argc, char **argv, struct cli_query *q)
{
	int c, rc;

	memset(q, 0, sizeof *q);
	q->db = lt_store_default_path();
	optind = 0;
	while ((c = getopt_long(argc, argv, "o:vh", cli_query_longopts, NULL)) != -1)
		if ((rc = cli_one_opt(cmd, c, q)) != 0)
			return rc;
	q->args = argv + optind;
	q->nargs = argc - optind;
	return 0;
}

int cli_query_open(const struct lt_cmd *cmd, struct cli_query *q, struct lt_store **st)
{
	struct lt_error err = {0};
	int64_t end;

	if (lt_store_open(st, q->db, LT_STORE_READONLY, &err) != 0)
		return cli_error(LT_EXIT_FAIL, &err);
	end = lt_store_end_us(*st);
	if ((q->since && lt_time_arg(&q->opts.since_us, q->since, end) != 0) ||
	    (q->until && lt_time_arg(&q->opts.until_us, q->until, end) != 0)) {
		lt_store_free(*st);
		*st = NULL;
		return cli_usage_error(cmd, "--since/--until take RFC 3339 or a duration like 2h");
	}
	return 0;
}
