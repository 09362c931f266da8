/*
 * lt_queries.h - questions asked of the store, and how answers are printed.
 *
 * Every answer is a table: named columns, rows of values.  A table writer
 * prints it aligned for people (times in UTC, log text sanitized), or as
 * CSV, JSON or JSON lines for programs, with stable column names.
 */
#ifndef LT_QUERIES_H
#define LT_QUERIES_H

#include "lt_index.h"

enum lt_out_format { LT_OUT_TABLE, LT_OUT_CSV, LT_OUT_JSON, LT_OUT_JSONL };

/* Parses "table", "csv", "json", "jsonl"; 0 or LT_ERR_USAGE. */
int lt_out_format_parse(enum lt_out_format *out, const char *name);

struct lt_table;

/* A writer of rows with ncols columns to f; names are copied. */
struct lt_table *lt_table_new(enum lt_out_format fmt, FILE *f, int ncols, const char *const *names);

/*
 * Adds one row of ncols values (NULL for none).  A value is a string; when
 * the column is numeric for machines, pass it as digits and it is printed
 * unquoted in JSON.  Table output sanitizes every value.
 */
void lt_table_row(struct lt_table *t, const char *const *values);

/* Prints what is buffered (aligned output waits for all rows) and frees t. */
void lt_table_finish(struct lt_table *t);

/* Writes s to f, made safe for a terminal; newlines kept when keep_newlines. */
void lt_print_safe(FILE *f, const char *s, size_t len, int keep_newlines);

/* "1h2m", "15.2s", "340ms": a duration in microseconds, as kubectl shows ages. */
void lt_format_duration(char *buf, size_t size, int64_t us);

/*
 * `leasetrail stats`: time range, counts per resource/verb/code, nodes seen,
 * other resources counted, and each source with its reject counts.
 */
int lt_query_stats(struct lt_store *st, FILE *out, struct lt_error *err);

/*
 * Recomputes the lease rows and episodes (tables lt_leases, lt_episodes) of
 * every lease with an event whose id is above since_id; 0 rebuilds all.
 * Runs in one transaction: the derived tables are never half updated.
 */
int lt_lifecycle_rebuild(struct lt_store *st, int64_t since_id, struct lt_error *err);

/*
 * Recomputes every lease's episodes with other thresholds (gap_us, slow_us;
 * 0 keeps a default) into TEMP copies of the derived tables, visible to this
 * connection only: the store, even a read-only one, is not written.
 */
int lt_lifecycle_overlay(struct lt_store *st, int64_t gap_us, int64_t slow_us,
			 struct lt_error *err);

/*
 * The two halves of a full rebuild, for running the first beside other
 * work: compute builds every lease's episodes and only reads (st may be a
 * second, read-only connection; it needs the audit_rtv index); write stores
 * them through the writable store in one transaction.
 */
struct lt_lifecycle_batch;
int lt_lifecycle_compute(struct lt_store *st, struct lt_lifecycle_batch **out,
			 struct lt_error *err);
int lt_lifecycle_write(struct lt_store *st, struct lt_lifecycle_batch *b, struct lt_error *err);
void lt_lifecycle_batch_free(struct lt_lifecycle_batch *b);

/* ---- running queries ----------------------------------------------------- */

#define LT_MAX_COLS 24

/* A result column: its stable name and how to print it. */
struct lt_col {
	const char *name;
	char type; /* 't' text, 'n' number, 'T' time (µs since epoch), 'D' duration (µs) */
};

/*
 * Runs sql with binds ?1..?nbinds and prints its rows in fmt: times as RFC
 * 3339 UTC, durations human ("10.4s") in tables and as seconds in CSV/JSON.
 */
int lt_run_table(struct lt_store *st, const char *sql, const struct lt_col *cols, int ncols,
		 const int64_t *binds, int nbinds, enum lt_out_format fmt, FILE *out,
		 struct lt_error *err);

/* "90s", "15m", "2h", "1d", "1h30m", "250ms" to microseconds; 0 or LT_ERR_USAGE. */
int lt_duration_parse(int64_t *out, const char *s);

/*
 * A --since/--until argument: RFC 3339, or a duration counted back from
 * end_us (the newest event in the store: logs are not live, so "2h" means
 * the last two hours of the logs).  0 or LT_ERR_USAGE.
 */
int lt_time_arg(int64_t *out, const char *s, int64_t end_us);

/* The time of the newest stored event, 0 for an empty store. */
int64_t lt_store_end_us(struct lt_store *st);

/* ---- lifecycle commands ------------------------------------------------- */

struct lt_query_opts {
	enum lt_out_format fmt;
	int64_t since_us, until_us; /* 0: open */
	int64_t gap_us, slow_us;    /* 0: the defaults */
	int verbose;
};

/* `leasetrail nodes`: one row per node, in the spirit of `kubectl get nodes`. */
int lt_query_nodes(struct lt_store *st, const struct lt_query_opts *o, FILE *out,
		   struct lt_error *err);

/* `leasetrail timeline NODE|NAMESPACE/LEASE`: episodes (and node events) in time order. */
int lt_query_timeline(struct lt_store *st, const char *target, const struct lt_query_opts *o,
		      FILE *out, struct lt_error *err);

/* The canned troubleshooting queries. */
struct lt_canned {
	const char *name;
	const char *summary;
};

/* The table of canned queries, NULL-name terminated. */
const struct lt_canned *lt_canned_list(void);

/* Runs canned query name; LT_ERR_NOTFOUND when there is no such query. */
int lt_query_canned(struct lt_store *st, const char *name, const struct lt_query_opts *o, FILE *out,
		    struct lt_error *err);

/* `leasetrail show ID`: the event's raw JSON (and, if verbose, where it came from). */
int lt_query_show(struct lt_store *st, int64_t id, int verbose, FILE *out, struct lt_error *err);

#endif
