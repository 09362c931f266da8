/*
 * cmd-sql.c - `leasetrail sql`: one read-only SQL statement over the store's
 * tables and views, printed as it is stepped (any result in bounded memory),
 * stopped when the output's reader goes away (`| head`) or when SQLite has
 * worked on it for longer than --timeout.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The longest --timeout: a week, well inside int64 microseconds. */
#define SQL_MAX_TIMEOUT_S (7 * 86400.0)

/* Column i of q's row as a cell of SQLite's own type for it. */
static struct lt_cell sql_cell(const struct lt_stmt *q, int i)
{
	switch (lt_stmt_type(q, i)) {
	case LT_COL_NULL:
		break;
	case LT_COL_INT:
		return lt_cell_int(LT_CELL_INT, lt_stmt_int(q, i));
	case LT_COL_REAL:
		return (struct lt_cell){.type = LT_CELL_REAL, .r = lt_stmt_real(q, i)};
	case LT_COL_BLOB:
		return lt_cell_text("(blob)");
	case LT_COL_TEXT:
		return lt_cell_text(lt_stmt_text(q, i, NULL));
	}
	return lt_cell_null();
}

/* Steps q into out until the last row, an error, or out closes; 0 or the step's error. */
static int sql_rows(struct lt_stmt *q, const struct lt_row_sink *out, struct lt_error *err)
{
	int n = lt_stmt_columns(q), rc;
	struct lt_col *cols = lt_xcalloc((size_t)n + 1, sizeof *cols);
	struct lt_cell *cells = lt_xcalloc((size_t)n + 1, sizeof *cells);

	/* column names come from the query and from data: the printers make them safe */
	for (int i = 0; i < n; i++)
		cols[i] = (struct lt_col){.name = lt_stmt_name(q, i),
					  .type = LT_CELL_TEXT,
					  .flags = lt_col_flags_by_name(lt_stmt_name(q, i))};
	out->begin(out->ctx, cols, n);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		for (int i = 0; i < n; i++)
			cells[i] = sql_cell(q, i);
		out->row(out->ctx, cells);
		if (out->closed != NULL && out->closed(out->ctx))
			break;
	}
	out->end(out->ctx);
	free(cols);
	free(cells);
	return rc < 0 ? rc : 0;
}

/* Runs the statement, printing every row; refuses anything that could write. */
static int sql_print(struct lt_store *st, const char *sql, const struct lt_query_opts *o,
		     struct lt_error *err)
{
	struct lt_printer *p;
	struct lt_stmt *q;
	int rc;

	if ((rc = lt_store_prepare(st, &q, sql, err)) != 0)
		return rc;
	if (!lt_stmt_readonly(q)) {
		lt_stmt_free(q);
		return lt_error_set(err, LT_ERR_USAGE, "only read-only statements are allowed");
	}
	p = lt_printer_new(o->fmt, stdout);
	rc = sql_rows(q, lt_printer_sink(p), err);
	lt_stmt_free(q);
	return cli_printer_done(p, rc, err);
}

/* --timeout: seconds ("30", "2.5") or a duration ("2m", "1m30s"); 0 or LT_ERR_USAGE. */
static int sql_timeout_parse(int64_t *out, const char *s)
{
	char *end;
	double secs;

	errno = 0;
	secs = strtod(s, &end);
	if (end != s && *end == '\0' && errno == 0 && isfinite(secs)) {
		if (secs <= 0 || secs > SQL_MAX_TIMEOUT_S)
			return LT_ERR_USAGE;
		*out = (int64_t)(secs * 1e6);
		return *out > 0 ? 0 : LT_ERR_USAGE;
	}
	if (lt_duration_parse(out, s) != 0 || *out <= 0 || *out > SQL_MAX_TIMEOUT_S * 1e6)
		return LT_ERR_USAGE;
	return 0;
}

static int sql_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct lt_error err = {0};
	struct cli_query q;
	struct lt_store *st;
	int64_t limit = 0;
	int status, rc;

	if (cli_parse(cmd, argc, argv, &q, &status) != 0)
		return status;
	if (q.timeout != NULL && sql_timeout_parse(&limit, q.timeout) != 0)
		return cli_usage_error(cmd, "--timeout takes seconds (30, 2.5) or a duration (2m)");
	if ((status = cli_query_open(cmd, &q, &st)) != 0)
		return status;
	lt_store_set_time_limit(st, limit);
	rc = sql_print(st, q.args[0], &q.opts, &err);
	lt_store_free(st);
	if (rc == LT_ERR_ABORT) {
		fprintf(stderr,
			"leasetrail: sql: stopped: SQLite worked on the query for longer than "
			"--timeout %.6g s (rows before were printed); narrow it (WHERE, LIMIT) or "
			"allow more time\n",
			(double)limit / 1e6);
		return LT_EXIT_TIMEOUT;
	}
	return rc == 0 ? LT_EXIT_OK : cli_error(cli_status(rc), &err);
}

const struct lt_cmd lt_cmd_sql = {
    .name = "sql",
    .usage = "[--db FILE] [-o table|wide|csv|json|jsonl] [--timeout SECONDS] \"SELECT ...\"",
    .summary = "Run one read-only SQL statement over the store (its views: docs/reference.md).",
    .help = "Options:\n"
	    "  --db FILE          the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
	    "  -o, --output F     table (aligned, sanitized; default; on a terminal, free text\n"
	    "                     such as message cut to fit it), wide (a table, nothing cut),\n"
	    "                     csv, json or jsonl\n"
	    "  --timeout SECONDS  stop a query SQLite has worked on for longer (30, 2.5, 2m);\n"
	    "                     exit status 124. Time spent waiting for the output's reader\n"
	    "                     does not count\n"
	    "  -h, --help         this help\n\n"
	    "The store is opened read-only and statements that could write are refused.\n"
	    "Rows print as they come: a table takes its column widths from its first 1000 rows.\n"
	    "On a terminal every format is made safe to show (README: Output).\n",
    .exits = "0 done; 1 the store could not be read, or the statement failed as it ran; 2\n"
	     "usage error, SQL that does not compile, or a statement that could write; 124\n"
	     "stopped by --timeout (the rows before it were printed).\n",
    .run = sql_run,
    .opts = CLI_OPT_OUTPUT | CLI_OPT_TIMEOUT,
    .min_args = 1,
    .max_args = 1,
};
