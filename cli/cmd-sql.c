/* cmd-sql.c - `leasetrail sql`: read-only ad-hoc SQL over the store's tables and views. */
#include "cli.h"

#include <getopt.h>
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
static int sql_print(struct lt_store *st, const char *sql, enum lt_out_format fmt,
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
	t = lt_table_new(fmt, stdout, n, names);
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

static int sql_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {{"db", required_argument, NULL, 'd'},
						 {"output", required_argument, NULL, 'o'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	enum lt_out_format fmt = LT_OUT_TABLE;
	const char *db = lt_store_default_path();
	struct lt_error err = {0};
	struct lt_store *st;
	int c, rc;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+o:h", longopts, NULL)) != -1) {
		if (c == 'd')
			db = optarg;
		else if (c == 'o' && lt_out_format_parse(&fmt, optarg) != 0)
			return cli_usage_error(cmd, "-o takes table, csv, json or jsonl");
		else if (c == 'h')
			return cli_help(cmd, stdout), LT_EXIT_OK;
		else if (c != 'o')
			return cli_usage_error(cmd, "unknown option");
	}
	if (optind != argc - 1)
		return cli_usage_error(cmd, "needs exactly one SQL statement (quote it)");
	if (lt_store_open(&st, db, LT_STORE_READONLY, &err) != 0)
		return cli_error(LT_EXIT_FAIL, &err);
	rc = sql_print(st, argv[optind], fmt, &err);
	lt_store_free(st);
	if (rc == LT_ERR_USAGE)
		return cli_error(LT_EXIT_USAGE, &err);
	return rc ? cli_error(LT_EXIT_FAIL, &err) : LT_EXIT_OK;
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
};
