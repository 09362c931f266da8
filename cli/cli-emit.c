/*
 * cli-emit.c - `--emit ENGINE`: a query printed for a cloud's engine, no store needed.
 *
 * `query NAME --emit`, `query --emit ENGINE events [TARGET...]` and
 * `timeline --emit ENGINE TARGET` share the range (a duration counts back
 * from the store's newest event when there is a store, else from now, as a
 * console's range does) and the printing of the events query.
 */
#include "cli.h"

#include <string.h>
#include <time.h>

int cli_emit_range(const struct lt_cmd *cmd, struct cli_query *q)
{
	struct lt_store *st = NULL;
	int64_t t, end = 0;

	if ((q->since && lt_time_parse(&t, q->since, strlen(q->since)) != 0) ||
	    (q->until && lt_time_parse(&t, q->until, strlen(q->until)) != 0)) {
		if (lt_store_open(&st, q->db, LT_STORE_READONLY, NULL) == 0)
			end = lt_store_end_us(st);
		lt_store_free(st);
		if (end == 0)
			end = (int64_t)time(NULL) * 1000000;
	}
	if ((q->since && cli_time_arg(cmd, &q->opts.since_us, "--since", q->since, end) != 0) ||
	    (q->until && cli_time_arg(cmd, &q->opts.until_us, "--until", q->until, end) != 0))
		return LT_EXIT_USAGE;
	return cli_range_check(cmd, q);
}

int cli_emit_events(const struct lt_cmd *cmd, struct cli_query *q, const char *title,
		    char **targets, size_t n)
{
	struct lt_error err = {0};
	int status, rc;

	if ((status = cli_emit_range(cmd, q)) != 0)
		return status;
	rc = lt_emit_events(title, (const char *const *)targets, n, &q->opts, &q->emit_opts, stdout,
			    &err);
	if (rc == 0)
		return LT_EXIT_OK;
	return cli_error(rc == LT_ERR_USAGE ? LT_EXIT_USAGE : LT_EXIT_FAIL, &err);
}
