/*
 * queries-events.c - `events` (one row per request) and `top --by KEY`
 * (requests counted by one field), under the quick filters of struct
 * lt_filter, as `kubectl-dev_tool audit` users expect them.
 *
 * Both read the stored requests (audit, latest stage only) through one
 * WHERE clause, QUERIES_FILTER_WHERE (queries-int.h; timeline's -v reads it
 * too), whose every value is a bound parameter: a filter left out binds NULL
 * and drops its test.  --resource R is R and its subresources, R/S the one
 * subresource, R/ the object alone, as `kubectl` names them (nodes/status).  A text filter is
 * exact, or a glob where '*' matches any run of characters (`system:node:*`); it is turned into a
 * GLOB pattern with every other GLOB metacharacter ('?',
 * '[') made literal (lt_filter_pattern), and compared with the interned
 * strings, so the strs index serves a pattern with a literal prefix.
 * `top` groups by a column picked from a const table (top_keys[]): no SQL
 * is made of what the user typed.
 */
#include "queries-int.h"

#include <stdlib.h>
#include <string.h>

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
	BEV_SUBRESOURCE,
	BEV_LIMIT = QUERIES_FILTER_NEXT, /* top only */
};
#define EV_WHERE QUERIES_FILTER_WHERE

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
static const char ev_sql[] =
    "SELECT a.stage_us, " EV_VERB ", " EV_RESOURCE ", " EV_NAMESPACE ", " EV_NAME
    ", a.code, " EV_USER ", " EV_IDENTITY ", " EV_IP ", " EV_AGENT
    ", " LT_AUDIT_LATENCY_SQL("a") ", a.id"
				   " FROM audit AS a" EV_WHERE " ORDER BY a.stage_us, a.id";

static const struct lt_col ev_cols[] = {
    COL("ts", TIME),	    COL("verb", TEXT),	COL("resource", TEXT),	  COL("namespace", TEXT),
    COL("name", TEXT),	    COL("code", INT),	COL("user", TEXT),	  FREE("identity"),
    COL("source_ip", TEXT), FREE("user_agent"), COL("latency", DURATION), COL("event", ID),
};

/* One grouping of `top`: its name, its statement, the type of its key. */
#define TOP_SQL(key)                                                                               \
	"SELECT " key ", count(*), sum(a.code >= 400), min(a.stage_us), max(a.stage_us)"           \
	" FROM audit AS a" EV_WHERE " GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?13"

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

void queries_filter_pats_init(struct queries_filter_pats *p)
{
	for (int i = 0; i < QUERIES_FILTER_TEXTS; i++)
		lt_buf_init(&p->pat[i]);
}

void queries_filter_pats_release(struct queries_filter_pats *p)
{
	for (int i = 0; i < QUERIES_FILTER_TEXTS; i++)
		lt_buf_release(&p->pat[i]);
}

/*
 * --resource's two halves: "R" is R with any subresource (sub NULL), "R/S" R's
 * subresource S, "R/" R itself, no subresource (sub ""); *res_len: R's length.
 */
static const char *filter_resource_split(const char *value, size_t *res_len)
{
	const char *slash = strchr(value, '/');

	*res_len = slash != NULL ? (size_t)(slash - value) : strlen(value);
	return slash != NULL ? slash + 1 : NULL;
}

void queries_filter_bind(struct lt_stmt *q, const struct lt_query_opts *o, int64_t since,
			 int64_t until, struct queries_filter_pats *p)
{
	const struct lt_filter *f = &o->filter;
	enum { T_USER, T_VERB, T_RES, T_NS, T_IP, T_SUB };
	static const int param[QUERIES_FILTER_TEXTS] = {
	    [T_USER] = BEV_USER,    [T_VERB] = BEV_VERB,    [T_RES] = BEV_RESOURCE,
	    [T_NS] = BEV_NAMESPACE, [T_IP] = BEV_SOURCE_IP, [T_SUB] = BEV_SUBRESOURCE};
	const char *text[QUERIES_FILTER_TEXTS] = {
	    [T_USER] = f->user, [T_NS] = f->namespace_, [T_VERB] = f->verb, [T_IP] = f->source_ip};
	char *res = NULL;
	size_t res_len;

	if (f->resource != NULL) {
		text[T_SUB] = filter_resource_split(f->resource, &res_len);
		if (res_len > 0) /* "/status": any resource's */
			text[T_RES] = res = lt_xstrndup(f->resource, res_len);
	}
	lt_stmt_bind_int(q, BEV_SINCE, since);
	lt_stmt_bind_int(q, BEV_UNTIL, until ? until : INT64_MAX);
	lt_stmt_bind_int(q, BEV_CLUSTER, o->cluster);
	for (int i = 0; i < QUERIES_FILTER_TEXTS; i++) {
		if (text[i] == NULL) {
			lt_stmt_bind_null(q, param[i]);
			continue;
		}
		lt_filter_pattern(&p->pat[i], text[i]);
		lt_stmt_bind_text(q, param[i], p->pat[i].ptr, p->pat[i].len);
	}
	free(res);
	/* every parameter bound, NULL for "any": a statement reset and bound again keeps none */
	if (f->code != 0)
		lt_stmt_bind_int(q, BEV_CODE, f->code);
	else
		lt_stmt_bind_null(q, BEV_CODE);
	lt_stmt_bind_int(q, BEV_FAILED, f->failed != 0);
	if (f->slower_than_us > 0)
		lt_stmt_bind_int(q, BEV_SLOWER, f->slower_than_us);
	else
		lt_stmt_bind_null(q, BEV_SLOWER);
}

/* Prepares sql, binds o's filters (and the limit, when not 0), runs it into out. */
static int ev_run(struct lt_store *st, const char *sql, const struct lt_col *cols, int ncols,
		  const struct lt_query_opts *o, int64_t limit, const struct lt_row_sink *out,
		  struct lt_error *err)
{
	struct queries_filter_pats pats;
	struct lt_stmt *q;
	int rc;

	if ((rc = lt_store_prepare(st, &q, sql, err)) != 0)
		return rc;
	queries_filter_pats_init(&pats);
	queries_filter_bind(q, o, o->since_us, o->until_us, &pats);
	if (limit != 0)
		lt_stmt_bind_int(q, BEV_LIMIT, limit);
	rc = queries_run_stmt(q, cols, ncols, out, err);
	lt_stmt_free(q);
	queries_filter_pats_release(&pats);
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

	/* SQLite's LIMIT -1: no bound */
	return ev_run(st, k->sql, cols, (int)(sizeof cols / sizeof *cols), o,
		      limit > 0 ? limit : -1, out, err);
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

/* s[0..n) matches pat[0..pn), whose '*' matches any run of bytes and every other byte itself. */
static int filter_glob(const char *pat, size_t pn, const char *s, size_t n)
{
	const char *star = NULL, *end = pat + pn;
	size_t i = 0, back = 0;

	while (i < n) {
		if (pat < end && *pat == '*') {
			star = ++pat, back = i;
		} else if (pat < end && *pat == s[i]) {
			pat++, i++;
		} else if (star != NULL) {
			pat = star, i = ++back;
		} else {
			return 0;
		}
	}
	while (pat < end && *pat == '*')
		pat++;
	return pat == end;
}

/* The text of cell c (s and *n), or NULL when it holds no text. */
static const char *filter_cell_text(const struct lt_cell *c, size_t *n)
{
	if (c->type != LT_CELL_TEXT || c->s == NULL)
		return NULL;
	*n = c->len ? c->len : strlen(c->s);
	return c->s;
}

static int filter_text_ok(const char *want, const struct lt_cell *c)
{
	size_t n;
	const char *s = filter_cell_text(c, &n);

	return want == NULL || (s != NULL && filter_glob(want, strlen(want), s, n));
}

/* A RESOURCE[/SUBRESOURCE] cell against --resource (as QUERIES_FILTER_WHERE reads it). */
static int filter_resource_ok(const char *want, const struct lt_cell *c)
{
	size_t n, res_len, cell_res;
	const char *s = filter_cell_text(c, &n), *sub, *slash;

	if (want == NULL)
		return 1;
	if (s == NULL)
		return 0;
	sub = filter_resource_split(want, &res_len);
	slash = memchr(s, '/', n);
	cell_res = slash != NULL ? (size_t)(slash - s) : n;
	if (res_len > 0 && !filter_glob(want, res_len, s, cell_res))
		return 0;
	if (sub == NULL)
		return 1;
	if (sub[0] == '\0')
		return slash == NULL;
	return slash != NULL && filter_glob(sub, strlen(sub), slash + 1, n - cell_res - 1);
}

/* Whether a row passes f (the columns located by begin). */
static int filter_row_ok(const struct queries_filter_sink *fs, const struct lt_cell *cells)
{
	const struct lt_filter *f = fs->f;
	const char *text[] = {f->user, f->verb, f->resource, f->namespace_, f->source_ip};
	const struct lt_cell *code = fs->col[FC_CODE] >= 0 ? &cells[fs->col[FC_CODE]] : NULL;
	const struct lt_cell *lat = fs->col[FC_LATENCY] >= 0 ? &cells[fs->col[FC_LATENCY]] : NULL;

	for (int c = FC_USER; c <= FC_IP; c++)
		if (text[c] != NULL && !(c == FC_RESOURCE ? filter_resource_ok : filter_text_ok)(
					   text[c], &cells[fs->col[c]]))
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
