/* cmd-sql.c - `leasetrail sql`: read-only ad-hoc SQL over the store's tables and views. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* One row's values as strings for the table writer; bufs hold the numbers. */
static void sql_values(const struct lt_stmt *q, int n, const char **vals, char (*bufs)[40])
{
	for (int i = 0; i < n; i++) {
		switch (lt_stmt_type(q, i)) {
		case LT_COL_NULL:
			vals[i] = NULL;
			break;
		case LT_COL_INT:
			snprintf(bufs[i], 40, "%lld", (long long)lt_stmt_int(q, i));
			vals[i] = bufs[i];
			break;
		case LT_COL_REAL:
			snprintf(bufs[i], 40, "%.17g", lt_stmt_real(q, i));
			vals[i] = bufs[i];
			break;
		case LT_COL_BLOB:
			snprintf(bufs[i], 40, "(blob)");
			vals[i] = bufs[i];
			break;
		case LT_COL_TEXT:
			vals[i] = lt_stmt_text(q, i, NULL);
			break;
		}
	}
}

/* Runs the statement, printing every row; refuses anything that could write. */
static int sql_print(struct lt_store *st, const char *sql, const struct lt_query_opts *o,
		     struct lt_error *err)
{
	struct lt_stmt *q;
	struct lt_table *t;
	const char **names, **vals;
	char(*bufs)[40];
	int n, rc;

	if ((rc = lt_store_prepare(st, &q, sql, err)) != 0)
		return rc;
	if (!lt_stmt_readonly(q)) {
		lt_stmt_free(q);
		return lt_error_set(err, LT_ERR_USAGE, "only read-only statements are allowed");
	}
	n = lt_stmt_columns(q);
	names = lt_xcalloc((size_t)n + 1, sizeof *names);
	vals = lt_xcalloc((size_t)n + 1, sizeof *vals);
	bufs = lt_xcalloc((size_t)n + 1, sizeof *bufs);
	for (int i = 0; i < n; i++)
		names[i] = lt_stmt_name(q, i);
	t = lt_table_new(o, stdout, n, names);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		sql_values(q, n, vals, bufs);
		lt_table_row(t, vals);
	}
	lt_table_finish(t);
	free(names);
	free(vals);
	free(bufs);
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
    "sql",
    "[--db FILE] [-o table|csv|json|jsonl] \"SELECT ...\"",
    "Run one read-only SQL statement over the store (see README: the events view).",
    "Options:\n"
    "  --db FILE       the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"
    "  -o, --output F  table (aligned, sanitized; default), csv, json or jsonl\n"
    "  -h, --help      this help\n\n"
    "The store is opened read-only and statements that could write are refused.\n",
    sql_run,
    CLI_OPT_OUTPUT,
    1,
    1,
};
