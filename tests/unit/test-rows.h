/*
 * test-rows.h - a query's rows as text, for comparing with expectations.
 * Include after <cmocka.h> and lt_index.h.
 */
#ifndef LT_TEST_ROWS_H
#define LT_TEST_ROWS_H

/*
 * Every row of sql (one optional text bind) as "col|col|...\n" lines, NULL
 * shown as NULL; the caller frees the result.
 */
static inline char *q_rows(struct lt_store *st, const char *sql, const char *arg)
{
	struct lt_error err = {0};
	struct lt_stmt *q;
	struct lt_buf b;
	int rc;

	if (lt_store_prepare(st, &q, sql, &err) != 0)
		fail_msg("prepare %s: %s", sql, err.msg);
	if (arg != NULL)
		lt_stmt_bind_text(q, 1, arg, (size_t)-1);
	lt_buf_init(&b);
	lt_buf_append(&b, "", 0);
	while ((rc = lt_stmt_step(q, &err)) == 1) {
		for (int i = 0; i < lt_stmt_columns(q); i++) {
			if (i > 0)
				lt_buf_putc(&b, '|');
			if (lt_stmt_type(q, i) == LT_COL_NULL)
				lt_buf_append(&b, "NULL", 4);
			else
				lt_buf_printf(&b, "%s", lt_stmt_text(q, i, NULL));
		}
		lt_buf_putc(&b, '\n');
	}
	lt_stmt_free(q);
	if (rc < 0) {
		lt_buf_release(&b);
		fail_msg("step %s: %s", sql, err.msg);
	}
	return b.ptr;
}

#endif
