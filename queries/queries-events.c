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

#define COL(n, t)                                                                                  \
	{                                                                                          \
		.name = (n), .type = LT_CELL_##t                                                   \
	}
#define FREE(n)                                                                                    \
	{                                                                                          \
		.name = (n), .type = LT_CELL_TEXT, .flags = LT_COL_FREE_TEXT                       \
	}

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
static void ev_bind(struct lt_stmt *q, const struct lt_query_opts *o, struct lt_buf pat[5])
{
	const struct lt_filter *f = &o->filter;
	const char *text[5] = {f->user, f->verb, f->resource, f->namespace_, f->source_ip};

	lt_stmt_bind_int(q, BEV_SINCE, o->since_us);
	lt_stmt_bind_int(q, BEV_UNTIL, o->until_us ? o->until_us : INT64_MAX);
	lt_stmt_bind_int(q, BEV_CLUSTER, o->cluster);
	for (int i = 0; i < 5; i++) {
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
	struct lt_buf pat[5];
	struct lt_stmt *q;
	int rc;

	if ((rc = lt_store_prepare(st, &q, sql, err)) != 0)
		return rc;
	for (int i = 0; i < 5; i++)
		lt_buf_init(&pat[i]);
	ev_bind(q, o, pat);
	if (limit != 0)
		lt_stmt_bind_int(q, BEV_LIMIT, limit);
	rc = queries_run_stmt(q, cols, ncols, out, err);
	lt_stmt_free(q);
	for (int i = 0; i < 5; i++)
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
