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

/* The highest stored event id, 0 when the store is empty. */
int64_t lt_store_last_event_id(struct lt_store *st);

/* `leasetrail show ID`: the event's raw JSON (and, if verbose, where it came from). */
int lt_query_show(struct lt_store *st, int64_t id, int verbose, FILE *out, struct lt_error *err);

#endif
