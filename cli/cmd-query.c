/* cmd-query.c - `leasetrail query`: the canned troubleshooting queries. */
#include "cli.h"

#include <string.h>
#include <time.h>

static int query_do(struct lt_store *st, struct cli_query *q, struct lt_error *err)
{
	struct lt_printer *p = lt_printer_new(q->opts.fmt, stdout);
	int rc = lt_query_canned(st, q->args[0], &q->opts, lt_printer_sink(p), err);

	/* query_run checked the name: an unknown one is 1, as everywhere */
	return cli_printer_done(p, rc, err);
}

/* `query NAME --emit ENGINE`: the query in the engine's language. */
static int query_emit(const struct lt_cmd *cmd, struct cli_query *q)
{
	struct lt_error err = {0};
	int status, rc;

	if (strcmp(q->args[0], "events") == 0)
		return cli_emit_events(cmd, q, "query events", q->args + 1, (size_t)q->nargs - 1);
	if ((status = cli_emit_range(cmd, q)) != 0)
		return status;
	rc = lt_emit_canned(q->args[0], &q->opts, &q->emit_opts, stdout, &err);
	if (rc == 0)
		return LT_EXIT_OK;
	return cli_error(rc == LT_ERR_USAGE ? LT_EXIT_USAGE : LT_EXIT_FAIL, &err);
}

/* `query --list`: a name and its explanation a line, or rows of name and summary (-o). */
static int query_list(enum lt_out_format fmt)
{
	static const struct lt_col cols[] = {{.name = "name", .type = LT_CELL_TEXT},
					     {.name = "summary", .type = LT_CELL_TEXT}};
	struct lt_printer *p;
	const struct lt_row_sink *out;
	struct lt_error err = {0};

	if (fmt == LT_OUT_TABLE) {
		for (const struct lt_canned *c = lt_canned_list(); c->name; c++)
			printf("%-20s %s\n", c->name, c->summary);
		return LT_EXIT_OK;
	}
	p = lt_printer_new(fmt, stdout);
	out = lt_printer_sink(p);
	out->begin(out->ctx, cols, 2);
	for (const struct lt_canned *c = lt_canned_list(); c->name; c++)
		out->row(out->ctx,
			 (const struct lt_cell[]){lt_cell_text(c->name), lt_cell_text(c->summary)});
	out->end(out->ctx);
	if (cli_printer_done(p, 0, &err) != 0)
		return cli_error(LT_EXIT_FAIL, &err);
	return LT_EXIT_OK;
}

/* An unknown query name, before any store is opened: exit 1, with the nearest name. */
static int query_unknown(const char *name)
{
	const char *names[64];
	const char *near;
	size_t n = 0;

	for (const struct lt_canned *c = lt_canned_list(); c->name; c++)
		if (strcmp(c->name, name) == 0)
			return 0;
		else if (n < sizeof names / sizeof *names)
			names[n++] = c->name;
	near = cli_suggest(name, names, n);
	fputs("leasetrail: no canned query '", stderr);
	lt_print_safe(stderr, name, strlen(name), 0);
	if (near != NULL)
		fprintf(stderr, "'; did you mean '%s'?\n", near);
	else
		fputs("' (`leasetrail query --list` names them)\n", stderr);
	return LT_EXIT_FAIL;
}

static int query_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct cli_query q;
	int status;

	if (cli_parse(cmd, argc, argv, &q, &status) != 0)
		return status;
	if (q.list)
		return query_list(q.opts.fmt);
	if (q.emit != NULL && lt_filter_any(&q.opts.filter))
		return cli_usage_error(cmd,
				       "--user, --verb, --code... filter the store's rows: not "
				       "with --emit");
	if (q.emit != NULL && strcmp(q.args[0], "events") == 0)
		return query_emit(cmd, &q);
	if (q.nargs > 1)
		return cli_usage_error(cmd,
				       "wrong number of arguments; usage: leasetrail query "
				       "[OPTIONS] NAME (several only after --emit ENGINE events)");
	if ((status = query_unknown(q.args[0])) != 0)
		return status;
	if (q.emit != NULL)
		return query_emit(cmd, &q);
	return cli_run_parsed(cmd, &q, query_do);
}

const struct lt_cmd lt_cmd_query = {
    .name = "query",
    .usage = "--list | [OPTIONS] NAME | --emit ENGINE [OPTIONS] NAME | --emit ENGINE [OPTIONS]"
	     " events [NODE|NAMESPACE/LEASE...]",
    .summary = "Run a canned troubleshooting query (`--list` names and explains them).",
    .help =
	"Options:\n" CLI_QUERY_OPTIONS "  --list            name and explain every query\n"
	"  --cluster NAME    only that cluster's leases, episodes and nodes (with --emit: the\n"
	"                    engine's own cluster filter)\n" CLI_FILTER_OPTIONS
	"                    (each keeps the rows whose column of that name matches: a query\n"
	"                    without the column is a usage error)\n" CLI_EMIT_OPTIONS "\n"
	"--emit ENGINE events [NODE|NAMESPACE/LEASE...] prints the query that returns the\n"
	"whole audit records of those nodes (node lease and Node object) and leases, or of\n"
	"every lease and node, in the range: export its result and `leasetrail ingest` it\n"
	"(docs/engines.md).\n\n"
	"With --since/--until, a row is kept when its time span overlaps the range, as in\n"
	"`timeline`: a 404 run, gap or auth failure run that began earlier and goes on into it\n"
	"is shown whole. Single requests and log lines (deletes, registrations, kubelet-errors)\n"
	"count when they fall inside.\n",
    .exits = "0 done; 1 the store could not be read, or NAME is no canned query; 2 usage\n"
	     "error (an unknown option, a missing argument, --since after --until).\n",
    .run = query_run,
    .opts = CLI_OPT_OUTPUT | CLI_OPT_RANGE | CLI_OPT_THRESHOLDS | CLI_OPT_LIST | CLI_OPT_EMIT |
	    CLI_OPT_CLUSTER | CLI_OPT_FILTER,
    .min_args = 1,
    .max_args = 4096, /* several only for --emit ENGINE events (query_run) */
};
