/*
 * queries-events.c - `events` (one row per request) and `top --by KEY`
 * (requests counted by one field), under the quick filters of struct
 * lt_filter, as `kubectl-dev_tool audit` users expect them.
 *
 * Both read the stored requests (audit, latest stage only) through one
 * WHERE clause, EV_WHERE, whose every value is a bound parameter: a filter
 * left out binds NULL and drops its test.  A text filter is exact, or a
 * glob where '*' matches any run of characters (`system:node:*`); it is
 * turned into a GLOB pattern with every other GLOB metacharacter ('?',
 * '[') made literal (lt_filter_pattern), and compared with the interned
 * strings, so the strs index serves a pattern with a literal prefix.
 * `top` groups by a column picked from a const table (top_keys[]): no SQL
 * is made of what the user typed.
 */
#include "queries-int.h"

#include <string.h>

/* `top` lists this many rows unless --limit says otherwise. */
#define TOP_DEFAULT_LIMIT 20
/* The text filters, bound as GLOB patterns at BEV_USER.. in this order (ev_bind). */
#define EV_TEXT_FILTERS 5

/*
 * The filters, ?1..?11: range, cluster, the text filters as GLOB patterns,
 * code, failures only, the least latency (stageTimestamp - requestReceived).
 */
#define EV_TEXT(n, col)                                                                            \
	" AND (?" n " IS NULL OR a." col " IN (SELECT id FROM strs WHERE s GLOB ?" n "))"
#define EV_WHERE                                                                                   \
	" WHERE a.superseded = 0 AND a.stage_us BETWEEN ?1 AND ?2"                                 \
	" AND (?3 = 0 OR a.cluster_id = ?3)" EV_TEXT("4", "user_id") EV_TEXT("5", "verb_id")       \
	    EV_TEXT("6", "resource_id") EV_TEXT("7", "namespace_id") EV_TEXT(                      \
		"8",                                                                               \
		"source_ip_id") " AND (?9 IS NULL OR a.code = ?9) AND (?10 = 0 OR a.code >= 400)"  \
				" AND (?11 IS NULL OR a.stage_us - a.received_us >= ?11)"

enum ev_bind {
	BEV_SINCE = 1,
	BEV_UNTIL,
	BEV_CLUSTER,
	BEV_USER,
	BEV_VERB,
	BEV_RESOURCE,
	BEV_NAMESPACE,
	BEV_SOURCE_IP,
	BEV_CODE,
	BEV_FAILED,
	BEV_SLOWER,
	BEV_LIMIT, /* top only */
};

#define EV_STR(col) "(SELECT s FROM strs WHERE id = a." col ")"

#define EV_VERB	     EV_STR("verb_id")
#define EV_RESOURCE  EV_STR("resource_id") " || coalesce('/' || " EV_STR("subresource_id") ", '')"
#define EV_NAMESPACE EV_STR("namespace_id")
#define EV_NAME	     EV_STR("name_id")
#define EV_USER	     EV_STR("user_id")
#define EV_IDENTITY  LT_IDENTITY_SQL("a")
#define EV_IP	     EV_STR("source_ip_id")
#define EV_AGENT     EV_STR("user_agent_id")

/* events: the columns of ev_cols[], in order */
static const char ev_sql[] = "SELECT a.stage_us, " EV_VERB ", " EV_RESOURCE ", " EV_NAMESPACE
			     ", " EV_NAME ", a.code, " EV_USER ", " EV_IDENTITY ", " EV_IP
			     ", " EV_AGENT ", a.stage_us - a.received_us, a.id"
			     " FROM audit AS a" EV_WHERE " ORDER BY a.stage_us, a.id";

static const struct lt_col ev_cols[] = {
    COL("ts", TIME),	    COL("verb", TEXT),	COL("resource", TEXT),	  COL("namespace", TEXT),
    COL("name", TEXT),	    COL("code", INT),	COL("user", TEXT),	  FREE("identity"),
    COL("source_ip", TEXT), FREE("user_agent"), COL("latency", DURATION), COL("event", ID),
};

/* One grouping of `top`: its name, its statement, the type of its key. */
#define TOP_SQL(key)                                                                               \
	"SELECT " key ", count(*), sum(a.code >= 400), min(a.stage_us), max(a.stage_us)"           \
	" FROM audit AS a" EV_WHERE " GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?12"

static const struct top_key {
	const char *name;
	const char *sql;
	enum lt_cell_type type;
} top_keys[] = {
    [LT_TOP_USER] = {"user", TOP_SQL(EV_USER), LT_CELL_TEXT},
    [LT_TOP_VERB] = {"verb", TOP_SQL(EV_VERB), LT_CELL_TEXT},
    [LT_TOP_RESOURCE] = {"resource", TOP_SQL(EV_STR("resource_id")), LT_CELL_TEXT},
    [LT_TOP_CODE] = {"code", TOP_SQL("a.code"), LT_CELL_INT},
    [LT_TOP_SOURCE_IP] = {"source-ip", TOP_SQL(EV_IP), LT_CELL_TEXT},
    [LT_TOP_USER_AGENT] = {"user-agent", TOP_SQL(EV_AGENT), LT_CELL_TEXT},
};

int lt_top_by_parse(enum lt_top_by *out, const char *name)
{
	for (size_t i = 0; i < LT_TOP_COUNT; i++)
		if (strcmp(top_keys[i].name, name) == 0) {
			*out = (enum lt_top_by)i;
			return 0;
		}
	return LT_ERR_USAGE;
}

const char *lt_top_by_name(enum lt_top_by by)
{
	return by < LT_TOP_COUNT ? top_keys[by].name : "?";
}

void lt_filter_pattern(struct lt_buf *out, const char *value)
{
	lt_buf_truncate(out, 0);
	for (const char *c = value; *c; c++) {
		if (*c == '?' || *c == '[')
			lt_buf_printf(out, "[%c]", *c); /* GLOB's own: literal here */
		else
			lt_buf_putc(out, *c);
	}
}

int lt_filter_any(const struct lt_filter *f)
{
	return f->user || f->verb || f->resource || f->namespace_ || f->source_ip || f->code ||
	       f->failed || f->slower_than_us;
}

/* Binds the range, the cluster and every filter of o to q (EV_WHERE's parameters). */
static void ev_bind(struct lt_stmt *q, const struct lt_query_opts *o,
		    struct lt_buf pat[EV_TEXT_FILTERS])
{
	const struct lt_filter *f = &o->filter;
	const char *text[EV_TEXT_FILTERS] = {f->user, f->verb, f->resource, f->namespace_,
					     f->source_ip};

	lt_stmt_bind_int(q, BEV_SINCE, o->since_us);
	lt_stmt_bind_int(q, BEV_UNTIL, o->until_us ? o->until_us : INT64_MAX);
	lt_stmt_bind_int(q, BEV_CLUSTER, o->cluster);
	for (int i = 0; i < EV_TEXT_FILTERS; i++) {
		if (text[i] == NULL)
			continue;
		lt_filter_pattern(&pat[i], text[i]);
		lt_stmt_bind_text(q, BEV_USER + i, pat[i].ptr, pat[i].len);
	}
	if (f->code != 0)
		lt_stmt_bind_int(q, BEV_CODE, f->code);
	lt_stmt_bind_int(q, BEV_FAILED, f->failed != 0);
	if (f->slower_than_us > 0)
		lt_stmt_bind_int(q, BEV_SLOWER, f->slower_than_us);
}

/* Prepares sql, binds o's filters (and the limit, when >= BEV_LIMIT), runs it into out. */
static int ev_run(struct lt_store *st, const char *sql, const struct lt_col *cols, int ncols,
		  const struct lt_query_opts *o, int64_t limit, const struct lt_row_sink *out,
		  struct lt_error *err)
{
	struct lt_buf pat[EV_TEXT_FILTERS];
	struct lt_stmt *q;
	int rc;

	if ((rc = lt_store_prepare(st, &q, sql, err)) != 0)
		return rc;
	for (int i = 0; i < EV_TEXT_FILTERS; i++)
		lt_buf_init(&pat[i]);
	ev_bind(q, o, pat);
	if (limit != 0)
		lt_stmt_bind_int(q, BEV_LIMIT, limit);
	rc = queries_run_stmt(q, cols, ncols, out, err);
	lt_stmt_free(q);
	for (int i = 0; i < EV_TEXT_FILTERS; i++)
		lt_buf_release(&pat[i]);
	return rc;
}

int lt_query_events(struct lt_store *st, const struct lt_query_opts *o,
		    const struct lt_row_sink *out, struct lt_error *err)
{
	return ev_run(st, ev_sql, ev_cols, (int)(sizeof ev_cols / sizeof *ev_cols), o, 0, out, err);
}

int lt_query_top(struct lt_store *st, enum lt_top_by by, int64_t limit,
		 const struct lt_query_opts *o, const struct lt_row_sink *out, struct lt_error *err)
{
	const struct top_key *k = &top_keys[by < LT_TOP_COUNT ? by : LT_TOP_USER];
	const struct lt_col cols[] = {
	    {.name = k->name,
	     .type = k->type,
	     .flags = k->type == LT_CELL_TEXT ? LT_COL_FREE_TEXT : 0},
	    COL("requests", INT),
	    COL("failures", INT),
	    COL("first", TIME),
	    COL("last", TIME),
	};

	return ev_run(st, k->sql, cols, (int)(sizeof cols / sizeof *cols), o,
		      limit > 0	  ? limit
		      : limit < 0 ? -1
				  : TOP_DEFAULT_LIMIT,
		      out, err);
}

/* ---- the same filters over a result's rows, by column name (query NAME) ---- */

/* The columns the filters read in a result, by name. */
enum filter_col { FC_USER, FC_VERB, FC_RESOURCE, FC_NAMESPACE, FC_IP, FC_CODE, FC_LATENCY, FC_N };

static const char *const filter_col_names[FC_N] = {
    [FC_USER] = "user",		  [FC_VERB] = "verb",	 [FC_RESOURCE] = "resource",
    [FC_NAMESPACE] = "namespace", [FC_IP] = "source_ip", [FC_CODE] = "code",
    [FC_LATENCY] = "latency",
};

/* Whether filter f needs column c. */
static int filter_needs(const struct lt_filter *f, enum filter_col c)
{
	const int needs[FC_N] = {
	    [FC_USER] = f->user != NULL,	   [FC_VERB] = f->verb != NULL,
	    [FC_RESOURCE] = f->resource != NULL,   [FC_NAMESPACE] = f->namespace_ != NULL,
	    [FC_IP] = f->source_ip != NULL,	   [FC_CODE] = f->code != 0 || f->failed,
	    [FC_LATENCY] = f->slower_than_us != 0,
	};

	return needs[c];
}

int queries_filter_check(const struct lt_filter *f, const struct lt_col *cols, int ncols,
			 const char *what, struct lt_error *err)
{
	for (int c = 0; c < FC_N; c++) {
		int found = 0;

		for (int i = 0; i < ncols; i++)
			found |= strcmp(cols[i].name, filter_col_names[c]) == 0;
		if (filter_needs(f, (enum filter_col)c) && !found)
			return lt_error_set(err, LT_ERR_USAGE,
					    "%s has no column %s to filter (its columns: `query "
					    "--list`; `events` takes every filter)",
					    what, filter_col_names[c]);
	}
	return 0;
}

/* s[0..n) matches pat, whose '*' matches any run of bytes and every other byte itself. */
static int filter_glob(const char *pat, const char *s, size_t n)
{
	const char *star = NULL;
	size_t i = 0, back = 0;

	while (i < n) {
		if (*pat == '*') {
			star = ++pat, back = i;
		} else if (*pat != '\0' && *pat == s[i]) {
			pat++, i++;
		} else if (star != NULL) {
			pat = star, i = ++back;
		} else {
			return 0;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

static int filter_text_ok(const char *want, const struct lt_cell *c)
{
	if (want == NULL)
		return 1;
	return c->type == LT_CELL_TEXT && c->s != NULL &&
	       filter_glob(want, c->s, c->len ? c->len : strlen(c->s));
}

/* Whether a row passes f (the columns located by begin). */
static int filter_row_ok(const struct queries_filter_sink *fs, const struct lt_cell *cells)
{
	const struct lt_filter *f = fs->f;
	const char *text[] = {f->user, f->verb, f->resource, f->namespace_, f->source_ip};
	const struct lt_cell *code = fs->col[FC_CODE] >= 0 ? &cells[fs->col[FC_CODE]] : NULL;
	const struct lt_cell *lat = fs->col[FC_LATENCY] >= 0 ? &cells[fs->col[FC_LATENCY]] : NULL;

	for (int c = FC_USER; c <= FC_IP; c++)
		if (text[c] != NULL && !filter_text_ok(text[c], &cells[fs->col[c]]))
			return 0;
	if ((f->code || f->failed) && (code == NULL || code->type != LT_CELL_INT))
		return 0;
	if ((f->code && code->i != f->code) || (f->failed && code->i < 400))
		return 0;
	return f->slower_than_us == 0 ||
	       (lat != NULL && lat->type == LT_CELL_DURATION && lat->i >= f->slower_than_us);
}

static void filter_begin(void *ctx, const struct lt_col *cols, int ncols)
{
	struct queries_filter_sink *fs = ctx;

	for (int c = 0; c < FC_N; c++) {
		fs->col[c] = -1;
		for (int i = 0; i < ncols; i++)
			if (strcmp(cols[i].name, filter_col_names[c]) == 0)
				fs->col[c] = i;
	}
	fs->next->begin(fs->next->ctx, cols, ncols);
}

static void filter_row(void *ctx, const struct lt_cell *cells)
{
	struct queries_filter_sink *fs = ctx;

	if (filter_row_ok(fs, cells))
		fs->next->row(fs->next->ctx, cells);
}

static void filter_end(void *ctx)
{
	struct queries_filter_sink *fs = ctx;

	fs->next->end(fs->next->ctx);
}

static int filter_closed(void *ctx)
{
	struct queries_filter_sink *fs = ctx;

	return fs->next->closed != NULL && fs->next->closed(fs->next->ctx);
}

struct lt_row_sink queries_filter_sink(struct queries_filter_sink *fs, const struct lt_filter *f,
				       const struct lt_row_sink *next)
{
	fs->f = f;
	fs->next = next;
	return (struct lt_row_sink){.begin = filter_begin,
				    .row = filter_row,
				    .end = filter_end,
				    .ctx = fs,
				    .closed = filter_closed};
}
