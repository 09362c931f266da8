/*
 * queries-emit.h - the questions of the store asked in the clouds' query
 * engines: what queries-emit.c (the table of queries), queries-emit-render.c
 * (the three shapes of query language) and queries-emit-engines.c (the five
 * engines) share.
 *
 * A query is written once, in a small neutral language, and each engine
 * renders it.  A filter is a list of conjuncts over neutral field names
 * (time, resource, namespace, name, verb, code, user, ip, holder, latency,
 * host, severity, text, ...): comparisons (= != < <= > >=), `in (...)`,
 * `~ 'regex'`, and, or, not, parentheses, 'strings' and numbers.  `$slow`
 * is the --slow threshold in seconds; `$N` (N a digit) is the N-th list of
 * values taken from the user (node and lease names), which never passes
 * through the neutral text: the engine quotes each value for its dialect
 * where it renders `$N`.  A query is either a list of records (fields) or a
 * summary (keys, aggregates, a condition on them).  An engine that has no
 * such field (GKE entries carry no stage or receive time) leaves the
 * conjunct or aggregate out and says so in a comment.
 */
#ifndef QUERIES_EMIT_H
#define QUERIES_EMIT_H

#include "lt_queries.h"

#define QUERIES_EMIT_MAX_WHERE	8
#define QUERIES_EMIT_MAX_KEYS	4
#define QUERIES_EMIT_MAX_AGGS	5
#define QUERIES_EMIT_MAX_FIELDS 12
#define QUERIES_EMIT_MAX_LISTS	4

/* What the records are: the apiserver's audit events, or the kubelets' journal lines. */
enum queries_emit_source { QUERIES_SRC_AUDIT, QUERIES_SRC_KUBELET };

enum queries_emit_agg_fn {
	QUERIES_AGG_COUNT,  /* the records */
	QUERIES_AGG_FIRST,  /* the earliest time */
	QUERIES_AGG_LAST,   /* the latest time */
	QUERIES_AGG_MAX,    /* the largest value of field */
	QUERIES_AGG_LATEST, /* field's value in the latest record */
};

struct queries_emit_agg {
	enum queries_emit_agg_fn fn;
	const char *field; /* neutral, for MAX and LATEST */
	const char *as;	   /* the result column */
};

/* A key of a summary: a neutral field, or a time bin of bin_s seconds (field NULL). */
struct queries_emit_key {
	const char *field;
	int bin_s;
};

struct queries_emit_query {
	const char *name;
	enum queries_emit_source source;
	const char *note; /* what no engine computes as the store does, for a comment */
	const char *where[QUERIES_EMIT_MAX_WHERE];   /* conjuncts, NULL-terminated */
	const char *fields[QUERIES_EMIT_MAX_FIELDS]; /* a list: its columns (NULL: a summary) */
	struct queries_emit_key keys[QUERIES_EMIT_MAX_KEYS];
	struct queries_emit_agg aggs[QUERIES_EMIT_MAX_AGGS];
	const char *having; /* a condition on the summary's columns, or NULL */
	const char *sort;   /* the column to sort on */
	int desc;	    /* sort descending */
	int limit;	    /* 0: none */
	int full;	    /* the events query: whole records, every column */
};

/* A list of values taken from the user, which $N in a conjunct stands for. */
struct queries_emit_list {
	const char *const *v;
	size_t n;
};

struct queries_engine;

/* A value in a filter: a neutral literal or a user's value (quoted 1: a string). */
struct queries_emit_val {
	const char *s;
	size_t n;
	int quoted;
};

/* One emission: the query, the engine, the options and the user's values. */
struct queries_emit_ctx {
	const struct queries_emit_query *q;
	const struct queries_engine *eng;
	const struct lt_query_opts *o;
	const struct lt_emit_opts *e;
	int table; /* the engine's table variant (index into its tables) */
	struct queries_emit_list lists[QUERIES_EMIT_MAX_LISTS];
	const char *title; /* the first comment line's "leasetrail ..." */
	struct lt_buf *out;
};

/* How a query language is shaped. */
enum queries_emit_family {
	QUERIES_FAM_PIPE,   /* source | filter | summarize | sort (cwli, kql) */
	QUERIES_FAM_SQL,    /* SELECT ... FROM ... WHERE ... GROUP BY (bigquery, athena) */
	QUERIES_FAM_FILTER, /* a filter only (Cloud Logging) */
};

/* A neutral field as an engine reads it. */
struct queries_emit_field {
	const char *name;    /* neutral */
	const char *expr;    /* the engine's expression; NULL: the records do not carry it */
	const char *prelude; /* pipe engines: a command that makes expr (cwli's parse), or NULL */
};

struct queries_engine {
	enum lt_engine id;
	const char *title; /* "Azure Log Analytics (KQL)" */
	enum queries_emit_family family;
	const char *comment;	   /* the comment marker: "#", "//", "--" */
	const char *const *tables; /* the --table values it takes, the default first; NULL: none */
	const char *table_help;	   /* what --table means here, for an error */
	int any_table; /* --table is a name of the user's (a dataset), not one of tables */
	const char *kw_and, *kw_or, *kw_not, *op_eq, *op_ne;
	/* the field map of table variant t and source s; NULL-name terminated */
	const struct queries_emit_field *(*fields)(int t, enum queries_emit_source s);
	/* a string literal of s[0..n) (values are checked for control bytes first) */
	void (*literal)(struct lt_buf *b, const char *s, size_t n);
	/* expr matching the regular expression re (a literal string) */
	void (*regex)(struct lt_buf *b, const char *expr, const char *re, size_t len);
	/* `expr in (values)`: the list's opening, separator and closing; NULL: an OR */
	const char *in_open, *in_sep, *in_close;
	/*
	 * An engine's own rendering of `field op value` (Cloud Logging's
	 * resourceName regexes, GKE's rpc codes); 1 when written, 0 to write
	 * the ordinary comparison.
	 */
	int (*atom)(const struct queries_emit_ctx *c, struct lt_buf *b, const char *field,
		    const char *op, const struct queries_emit_val *v);
	/* the whole text */
	void (*render)(const struct queries_emit_ctx *c);
	/* SQL engines: a time bin of s seconds of time expression t; the latest value of e */
	void (*bin)(struct lt_buf *b, const char *t, int s);
	void (*latest)(struct lt_buf *b, const char *e, const char *t);
};

/* The engine of id. */
const struct queries_engine *queries_engine_of(enum lt_engine id);

/* The field neutral name of c's engine and table, or NULL when it has none. */
const struct queries_emit_field *queries_emit_field(const struct queries_emit_ctx *c,
						    const char *name);

/*
 * Appends conjunct (neutral text) as c's engine writes it.  0, or -1 when
 * it uses a field the engine's records lack (nothing is appended then).
 */
int queries_emit_cond(const struct queries_emit_ctx *c, struct lt_buf *b, const char *conjunct);

/* Does the neutral text use a field with a prelude (a pipe engine's derived field)? */
int queries_emit_derived(const struct queries_emit_ctx *c, const char *text);

/* Appends a comment line (marker, a space, text, newline); text is ours, never the user's. */
void queries_emit_comment(const struct queries_emit_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends the conjuncts of c's query that are (derived 1) or are not (0) derived, joined. */
int queries_emit_where(const struct queries_emit_ctx *c, struct lt_buf *b, int derived,
		       const char *sep);

/* Comments on every conjunct and aggregate the engine leaves out. */
void queries_emit_missing(const struct queries_emit_ctx *c);

/* The head every emission starts with: the title, the engine and what it reads, the note. */
void queries_emit_head(const struct queries_emit_ctx *c, const char *reads);

/*
 * The SQL statement of c's query (bigquery, athena): SELECT what the query
 * lists or sums up (star: what a full query selects), FROM from, WHERE the
 * conditions extra (rendered by the engine: range, cluster, NULL-ended) and
 * the query's conjuncts, GROUP BY, then the condition on the summary, the
 * order and the limit.
 */
void queries_emit_sql(const struct queries_emit_ctx *c, const char *star, const char *from,
		      const char *const *extra);

/* The sort column of c's query as the engine names it: a field's expression, or an alias. */
const char *queries_emit_sort(const struct queries_emit_ctx *c, const char *alias_of_time);

/* Appends s with newline, tab and CR written as \n, \t, \r, for a comment line. */
void queries_emit_comment_value(struct lt_buf *b, const char *s);

extern const struct queries_engine queries_engine_cwli, queries_engine_kql, queries_engine_logging,
    queries_engine_bigquery, queries_engine_athena;

/*
 * s[0..n) between two quote characters, C-style: backslash and quote escaped, tab and line
 * breaks as \t \n \r (Logs Insights, Cloud Logging and BigQuery strings alike).
 */
void queries_emit_c_quote(struct lt_buf *b, const char *s, size_t n, char quote);

/* Seconds as few digits as they need: 1, 0.25, 1.5. */
void queries_emit_seconds(char *buf, size_t size, int64_t us);

/* The range as RFC 3339 (since, until): "" for an open end. */
void queries_emit_range(const struct queries_emit_ctx *c, char *since, char *until, size_t size);

#endif
