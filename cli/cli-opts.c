/*
 * cli-opts.c - the options the commands share, and the frame of a read-only command.
 *
 * Every command line goes through cli_parse: an option is known to getopt once
 * (cli_longopts) and taken by the commands whose cmd->opts has its bit; any other
 * option, and an option missing its argument, is a usage error naming it, with the
 * nearest option the command takes when it looks like a typo.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CLI_MAX_WORD	 64 /* cli_suggest compares words up to this length */
#define CLI_MAX_OPTIONS	 48 /* options one --help lists */
#define CLI_MAX_OPT_NAME 32

/* The long options with no letter of their own (getopt_long returns these values). */
enum cli_long_only {
	CLI_LO_USER = 256,
	CLI_LO_VERB,
	CLI_LO_RESOURCE,
	CLI_LO_NAMESPACE,
	CLI_LO_CODE,
	CLI_LO_FAILED,
	CLI_LO_SOURCE_IP,
	CLI_LO_SLOWER,
	CLI_LO_BY,
	CLI_LO_LIMIT,
};

static const struct option cli_longopts[] = {
    {"user", required_argument, NULL, CLI_LO_USER},
    {"verb", required_argument, NULL, CLI_LO_VERB},
    {"resource", required_argument, NULL, CLI_LO_RESOURCE},
    {"namespace", required_argument, NULL, CLI_LO_NAMESPACE},
    {"code", required_argument, NULL, CLI_LO_CODE},
    {"failed", no_argument, NULL, CLI_LO_FAILED},
    {"source-ip", required_argument, NULL, CLI_LO_SOURCE_IP},
    {"slower-than", required_argument, NULL, CLI_LO_SLOWER},
    {"by", required_argument, NULL, CLI_LO_BY},
    {"limit", required_argument, NULL, CLI_LO_LIMIT},
    {"db", required_argument, NULL, 'd'},
    {"output", required_argument, NULL, 'o'},
    {"since", required_argument, NULL, 's'},
    {"until", required_argument, NULL, 'u'},
    {"gap", required_argument, NULL, 'g'},
    {"slow", required_argument, NULL, 'S'},
    {"verbose", no_argument, NULL, 'v'},
    {"list", no_argument, NULL, 'l'},
    {"emit", required_argument, NULL, 'e'},
    {"table", required_argument, NULL, 'b'},
    {"all-resources", no_argument, NULL, 'a'},
    {"year", required_argument, NULL, 'y'},
    {"node", required_argument, NULL, 'n'},
    {"utc-offset", required_argument, NULL, 'z'},
    {"quiet", no_argument, NULL, 'q'},
    {"follow", no_argument, NULL, 'F'},
    {"timeout", required_argument, NULL, 'T'},
    {"json", no_argument, NULL, 'J'},
    {"cluster", required_argument, NULL, 'C'},
    {"output-file", required_argument, NULL, 'O'},
    {"tz", required_argument, NULL, 'Z'},
    {"utc", no_argument, NULL, 'U'},
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
	case 'b':
		return CLI_OPT_EMIT;
	case 'T':
		return CLI_OPT_TIMEOUT;
	case 'C':
		return CLI_OPT_CLUSTER;
	case 'O':
		return CLI_OPT_DOCUMENT;
	case 'a':
	case 'y':
	case 'n':
	case 'z':
	case 'q':
	case 'F':
	case 'J':
		return CLI_OPT_INGEST;
	case CLI_LO_BY:
	case CLI_LO_LIMIT:
		return CLI_OPT_TOP;
	default:
		return c >= CLI_LO_USER && c <= CLI_LO_SLOWER ? CLI_OPT_FILTER : 0;
	}
}

/* A whole decimal number in [lo, hi] into *out; 0, or -1. */
static int cli_number(int64_t *out, const char *s, int64_t lo, int64_t hi)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* A quick filter (CLI_OPT_FILTER) or a `top` option (CLI_OPT_TOP). */
static int cli_filter_opt(const struct lt_cmd *cmd, int c, struct cli_query *q)
{
	struct lt_filter *f = &q->opts.filter;
	const char **text[] = {&f->user, &f->verb, &f->resource, &f->namespace_};
	int64_t n;

	switch (c) {
	case CLI_LO_USER:
	case CLI_LO_VERB:
	case CLI_LO_RESOURCE:
	case CLI_LO_NAMESPACE:
		*text[c - CLI_LO_USER] = optarg;
		return 0;
	case CLI_LO_SOURCE_IP:
		f->source_ip = optarg;
		return 0;
	case CLI_LO_CODE:
		if (cli_number(&n, optarg, 100, 599) != 0)
			return cli_usage_error(cmd, "--code takes an HTTP status, 100 to 599");
		f->code = (int)n;
		return 0;
	case CLI_LO_FAILED:
		f->failed = 1;
		return 0;
	case CLI_LO_SLOWER:
		if (lt_duration_parse(&f->slower_than_us, optarg) != 0)
			return cli_usage_error(cmd, "a duration is like 40s, 2m, 1h30m or 500ms");
		return 0;
	case CLI_LO_BY:
		if (lt_top_by_parse(&q->top_by, optarg) != 0)
			return cli_usage_error(
			    cmd, "--by takes user, verb, resource, code, source-ip or user-agent");
		q->top_by_given = 1;
		return 0;
	default: /* CLI_LO_LIMIT */
		if (cli_number(&n, optarg, 0, INT32_MAX) != 0)
			return cli_usage_error(cmd, "--limit takes a count (0: every row)");
		q->top_limit = n;
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
	case 'J':
		q->json = 1;
		return 0;
	default: /* 'h' */
		q->help = 1;
		return 0;
	}
}

/* Swaps, insertions, deletions and substitutions from a to b (optimal string alignment). */
static size_t cli_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[3][CLI_MAX_WORD + 1];

	if (la > CLI_MAX_WORD || lb > CLI_MAX_WORD)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *cur = row[i % 3], *prev = row[(i + 2) % 3], *prev2 = row[(i + 1) % 3];

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
	}
	return row[la % 3][lb];
}

const char *cli_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL, *prefixed = NULL;
	size_t best_d = (size_t)-1, len = strlen(word), nprefixed = 0;

	for (size_t i = 0; i < n; i++) {
		size_t d = cli_distance(word, cands[i]);

		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
		if (len >= 2 && strncmp(word, cands[i], len) == 0) {
			prefixed = cands[i];
			nprefixed++;
		}
	}
	if (best != NULL && best_d <= 2 && best_d * 2 < len)
		return best;
	return nprefixed == 1 ? prefixed : NULL; /* "time" for timeline */
}

void cli_help_options(const struct lt_cmd *cmd, void (*fn)(const char *opt, size_t len, void *ctx),
		      void *ctx)
{
	for (const char *line = cmd->help; line != NULL && *line; line += strcspn(line, "\n")) {
		const char *end;

		line += *line == '\n';
		end = line + strcspn(line, "\n");
		if (strncmp(line, "  -", 3) != 0)
			continue;
		for (const char *w = line; w < end;) {
			size_t n;
			int lower = 0;

			w += strspn(w, " ");
			n = strcspn(w, " \n");
			if (n == 0)
				break;
			for (size_t i = 0; i < n; i++)
				lower |= w[i] >= 'a' && w[i] <= 'z';
			if (w[0] == '-' && n > 1)
				fn(w, n - (w[n - 1] == ','), ctx);
			else if (lower)
				break; /* the description */
			w += n;
		}
	}
}

struct cli_opt_names {
	const char *names[CLI_MAX_OPTIONS];
	char buf[CLI_MAX_OPTIONS][CLI_MAX_OPT_NAME];
	size_t n;
};

static void cli_collect_option(const char *opt, size_t len, void *ctx)
{
	struct cli_opt_names *o = ctx;

	if (o->n == CLI_MAX_OPTIONS || len >= CLI_MAX_OPT_NAME)
		return;
	memcpy(o->buf[o->n], opt, len);
	o->buf[o->n][len] = '\0';
	o->names[o->n] = o->buf[o->n];
	o->n++;
}

/*
 * "unknown option '--foo'" (did you mean ...), or "option '--db' needs an
 * argument": the option as the command line spelled it, up to any '='.
 */
static int cli_option_error(const struct lt_cmd *cmd, int missing, const char *spelled, size_t len)
{
	struct cli_opt_names opts = {.n = 0};
	struct lt_buf msg, word;
	const char *near;

	lt_buf_init(&msg);
	lt_buf_init(&word);
	lt_buf_append(&word, spelled, len);
	cli_help_options(cmd, cli_collect_option, &opts);
	near = missing ? NULL : cli_suggest(word.ptr, opts.names, opts.n);
	if (missing)
		lt_buf_printf(&msg, "option '%s' needs an argument", word.ptr);
	else
		lt_buf_printf(&msg, "unknown option '%s'", word.ptr);
	if (near != NULL)
		lt_buf_printf(&msg, "; did you mean '%s'?", near);
	cli_usage_error(cmd, msg.ptr);
	lt_buf_release(&msg);
	lt_buf_release(&word);
	return LT_EXIT_USAGE;
}

/*
 * The option getopt_long just refused or took, as the command line spelled
 * it: a long one by its table name (longindex set) or up to its '=' (an
 * unknown long option, or a long one missing its argument: getopt_long
 * stopped on it); a short one by its letter (optopt after an error, else c).
 */
static int cli_bad_option(const struct lt_cmd *cmd, int c, int longindex, char **argv)
{
	int missing = c == ':';
	const char *arg = argv[optind - 1];
	char shortopt[3] = {'-', (char)(c == '?' || c == ':' ? optopt : c), '\0'};

	if (longindex >= 0) {
		char longopt[CLI_MAX_OPT_NAME];

		snprintf(longopt, sizeof longopt, "--%s", cli_longopts[longindex].name);
		return cli_option_error(cmd, missing, longopt, strlen(longopt));
	}
	if ((c == '?' && optopt == 0) || (missing && strncmp(arg, "--", 2) == 0))
		return cli_option_error(cmd, missing, arg, strcspn(arg, "="));
	return cli_option_error(cmd, missing, shortopt, 2);
}

/*
 * The zone times are shown and read in: --utc, else --tz ZONE, else
 * $LEASETRAIL_TZ, else UTC (never $TZ alone: a report pasted for teams in
 * other zones must not change with the shell of whoever made it).
 */
static int cli_zone(const struct lt_cmd *cmd, const struct cli_query *q)
{
	const char *env = getenv("LEASETRAIL_TZ");
	const char *tz = q->utc ? NULL : q->tz ? q->tz : env != NULL && env[0] ? env : NULL;
	struct lt_error err = {0};
	struct lt_buf msg;

	if (lt_zone_set(tz, &err) == 0)
		return 0;
	lt_buf_init(&msg);
	lt_buf_printf(&msg, "%s '%s': %s", q->tz ? "--tz" : "LEASETRAIL_TZ", tz, err.msg);
	cli_usage_error(cmd, msg.ptr);
	lt_buf_release(&msg);
	return LT_EXIT_USAGE;
}

static int cli_one_opt(const struct lt_cmd *cmd, int c, struct cli_query *q)
{
	switch (c) {
	case 'd':
		q->db = optarg;
		return 0;
	case 'o':
		if (cmd->opts &
		    CLI_OPT_DOCUMENT) { /* a document's format: the command's to parse */
			q->doc_format = optarg;
			return 0;
		}
		q->wide = strcmp(optarg, "wide") == 0; /* a table, every cell whole */
		if (q->wide)
			q->opts.fmt = LT_OUT_TABLE;
		return q->wide || lt_out_format_parse(&q->opts.fmt, optarg) == 0
			   ? 0
			   : cli_usage_error(cmd, "-o takes table, wide, csv, json or jsonl");
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
		if (lt_engine_parse(&q->emit_opts.engine, optarg) != 0)
			return cli_usage_error(
			    cmd, "--emit takes cwli, kql, logging, bigquery or athena");
		q->emit = optarg;
		return 0;
	case 'b':
		q->emit_opts.table = optarg;
		return 0;
	case 'T':
		q->timeout = optarg;
		return 0;
	case 'C':
		/* a store's filter, an ingest's cluster, and the emitted query's own filter */
		q->cluster = q->ingest.cluster = q->emit_opts.cluster = optarg;
		return 0;
	case 'O':
		q->out_file = optarg;
		return 0;
	case 'Z':
		q->tz = optarg;
		return 0;
	case 'U':
		q->utc = 1;
		return 0;
	default:
		if (c >= CLI_LO_USER)
			return cli_filter_opt(cmd, c, q);
		return cli_ingest_opt(cmd, c, q);
	}
}

int cli_parse(const struct lt_cmd *cmd, int argc, char **argv, struct cli_query *q, int *status)
{
	int c;

	memset(q, 0, sizeof *q);
	q->db = lt_store_default_path();
	q->top_limit = LT_TOP_LIMIT;
	*status = LT_EXIT_OK;
	optind = 0;
	opterr = 0; /* our own one-line message, not getopt's */
	for (int longindex = -1;
	     (c = getopt_long(argc, argv, ":o:O:vqh", cli_longopts, &longindex)) != -1;
	     longindex = -1) {
		if (c == '?' || c == ':' || (cli_opt_bit(c) & ~cmd->opts) != 0)
			*status = cli_bad_option(cmd, c, longindex, argv);
		else
			*status = cli_one_opt(cmd, c, q);
		if (*status != 0)
			return 1;
	}
	if (q->help) {
		cli_help(cmd, stdout);
		return 1;
	}
	if ((*status = cli_zone(cmd, q)) != 0)
		return 1;
	lt_printer_fit_terminal(!q->wide);
	if (q->emit == NULL && q->emit_opts.table != NULL) {
		*status = cli_usage_error(cmd, "--table goes with --emit ENGINE");
		return 1;
	}
	/* a name the store could hold; an emitted query quotes whatever it is given */
	if (q->emit == NULL && q->cluster != NULL &&
	    !lt_cluster_name_ok(q->cluster, strlen(q->cluster))) {
		*status = cli_usage_error(cmd, "--cluster takes a cluster's name: letters, digits, "
					       "'-', '_', '.' (at most 100)");
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

int cli_range_check(const struct lt_cmd *cmd, const struct cli_query *q)
{
	if (q->since && q->until && q->opts.since_us > q->opts.until_us)
		return cli_usage_error(cmd, "--since is after --until: the range holds nothing");
	return 0;
}

/* Each cluster's name, as cli_suggest wants them (at most CLI_MAX_CLUSTERS). */
#define CLI_MAX_CLUSTERS 64
struct cli_clusters {
	char *names[CLI_MAX_CLUSTERS];
	size_t n;
};

static void cli_cluster_add(const char *name, void *ctx)
{
	struct cli_clusters *c = ctx;

	if (c->n < CLI_MAX_CLUSTERS)
		c->names[c->n++] = lt_xstrdup(name);
}

/* "no cluster 'X' in DB; did you mean 'Y'?" (names sanitized: the argument is the user's). */
static void cli_unknown_cluster(struct lt_store *st, const char *name)
{
	struct cli_clusters c = {.n = 0};
	const char *near;

	lt_cluster_names(st, cli_cluster_add, &c, NULL);
	near = cli_suggest(name, (const char *const *)c.names, c.n);
	fputs("leasetrail: no cluster '", stderr);
	lt_print_safe(stderr, name, strlen(name), 0);
	fputs("' in ", stderr);
	lt_print_safe(stderr, lt_store_path(st), strlen(lt_store_path(st)), 0);
	if (near != NULL)
		fprintf(stderr, "; did you mean '%s'?\n", near);
	else if (c.n == 0)
		fputs(" (it names no cluster)\n", stderr);
	for (size_t i = 0; near == NULL && i < c.n; i++) /* names pass lt_cluster_name_ok */
		fprintf(stderr, "%s%s%s", i == 0 ? " (its clusters: " : ", ", c.names[i],
			i + 1 == c.n ? ")\n" : "");
	for (size_t i = 0; i < c.n; i++)
		free(c.names[i]);
}

int cli_time_arg(const struct lt_cmd *cmd, int64_t *out, const char *opt, const char *arg,
		 int64_t end_us)
{
	struct lt_buf msg;
	int rc = lt_time_arg(out, arg, end_us);

	if (rc == 0)
		return 0;
	if (rc != LT_ERR_NOTFOUND)
		return cli_usage_error(cmd, CLI_TIME_FORMS);
	lt_buf_init(&msg);
	lt_buf_printf(&msg,
		      "%s %s: no such time in %s (the clocks skipped it: daylight saving began)",
		      opt, arg, lt_zone_name());
	cli_usage_error(cmd, msg.ptr);
	lt_buf_release(&msg);
	return LT_EXIT_USAGE;
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
	if (q->cluster != NULL && (q->opts.cluster = lt_cluster_id(*st, q->cluster)) == 0) {
		cli_unknown_cluster(*st, q->cluster);
		lt_store_free(*st);
		*st = NULL;
		return LT_EXIT_FAIL;
	}
	end = q->since || q->until ? lt_store_end_us(*st) : 0;
	if ((q->since && cli_time_arg(cmd, &q->opts.since_us, "--since", q->since, end) != 0) ||
	    (q->until && cli_time_arg(cmd, &q->opts.until_us, "--until", q->until, end) != 0)) {
		lt_store_free(*st);
		*st = NULL;
		return LT_EXIT_USAGE;
	}
	if (cli_range_check(cmd, q) != 0) {
		lt_store_free(*st);
		*st = NULL;
		return LT_EXIT_USAGE;
	}
	return 0;
}

int cli_run_parsed(const struct lt_cmd *cmd, struct cli_query *q,
		   int (*fn)(struct lt_store *st, struct cli_query *q, struct lt_error *err))
{
	struct lt_error err = {0};
	struct lt_store *st;
	int status, rc;

	if ((status = cli_query_open(cmd, q, &st)) != 0)
		return status;
	rc = fn(st, q, &err);
	lt_store_free(st);
	if (rc == 0)
		return LT_EXIT_OK;
	return cli_error(rc == LT_ERR_USAGE ? LT_EXIT_USAGE : LT_EXIT_FAIL, &err);
}

int cli_run_readonly(const struct lt_cmd *cmd, int argc, char **argv,
		     int (*fn)(struct lt_store *st, struct cli_query *q, struct lt_error *err))
{
	struct cli_query q;
	int status;

	if (cli_parse(cmd, argc, argv, &q, &status) != 0)
		return status;
	return cli_run_parsed(cmd, &q, fn);
}
