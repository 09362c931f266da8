/* cmd-sql.c - `leasetrail sql`: read-only ad-hoc SQL over the store's tables and views. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

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

/* Runs the statement, printing every row; refuses anything that could write. */
static int sql_print(struct lt_store *st, const char *sql, const struct lt_query_opts *o,
		     struct lt_error *err)
{
	struct lt_printer *p;
	const struct lt_row_sink *out;
	struct lt_stmt *q;
	struct lt_col *cols;
	struct lt_cell *cells;
	int n, rc;

	if ((rc = lt_store_prepare(st, &q, sql, err)) != 0)
		return rc;
	if (!lt_stmt_readonly(q)) {
		lt_stmt_free(q);
		return lt_error_set(err, LT_ERR_USAGE, "only read-only statements are allowed");
	}
	n = lt_stmt_columns(q);
	cols = lt_xcalloc((size_t)n + 1, sizeof *cols);
	cells = lt_xcalloc((size_t)n + 1, sizeof *cells);
	for (int i = 0; i < n; i++)
		cols[i] = (struct lt_col){.name = lt_stmt_name(q, i), .type = LT_CELL_TEXT};
	p = lt_printer_new(o->fmt, stdout);
	out = lt_printer_sink(p);
	out->begin(out->ctx, cols, n);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		for (int i = 0; i < n; i++)
			cells[i] = sql_cell(q, i);
		out->row(out->ctx, cells);
	}
	out->end(out->ctx);
	lt_printer_free(p);
	free(cols);
	free(cells);
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

static int sql_do(struct lt_store *st, struct cli_query *q, struct lt_error *err)
{
	return sql_print(st, q->args[0], &q->opts, err);
}

static int sql_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	return cli_run_readonly(cmd, argc, argv, sql_do);
}

const struct lt_cmd lt_cmd_sql = {
    .name = "sql",
    .usage = "[--db FILE] [-o table|csv|json|jsonl] \"SELECT ...\"",
    .summary = "Run one read-only SQL statement over the store (see README: the events view).",
    .help = "Options:\n"
	    "  --db FILE       the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
	    "  -o, --output F  table (aligned, sanitized; default), csv, json or jsonl\n"
	    "  -h, --help      this help\n\n"
	    "The store is opened read-only and statements that could write are refused.\n",
    .exits = "0 done; 1 the store could not be read, or the statement failed as it ran; 2\n"
	     "usage error, SQL that does not compile, or a statement that could write.\n",
    .run = sql_run,
    .opts = CLI_OPT_OUTPUT,
    .min_args = 1,
    .max_args = 1,
};
