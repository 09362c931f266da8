/*
 * queries-browse.c - what the terminal browser reads, a page at a time.
 *
 * The cluster list is every lease (nodes first, then leader and apiserver
 * leases) plus the Node objects that never had a lease, with a heading row
 * per section, paged by SQLite or read whole (the TUI pages it from memory);
 * the Node objects' deletes are added for the rows shown, once per row.
 * The timeline and the canned queries are the typed rows `timeline` and
 * `query` print (kept whole, lt_rows), so the TUI never tells a different
 * story than the command line; nothing here reads back printed text.
 */
#include "queries-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/*
 * The cluster list.  ?1 sort key (enum lt_browse_sort), ?2 limit (-1: all),
 * ?3 offset.  States are LT_LEASE_STATE's, as in every view; lt_leases is
 * small (one row per lease), so sorting it whole is cheap; the expensive
 * columns are read for the page only.
 */
#define BROWSE_STATE LT_LEASE_STATE("x.state", "x.last_renew_us", "x.gap_us", LT_LEASES_END)

/*
 * NR: a node's NotReady windows (node health's lt_notready), their time (an
 * open one to ?4, the end of the logs) and whether one is still open; a
 * store from before node health has none to read.
 */
#define BROWSE_NR                                                                                  \
	"(SELECT count(*) FROM lt_notready AS w WHERE w.node_id = nm AND sec = 0) AS nr,"          \
	" (SELECT sum(coalesce(w.end_us, max(?4, w.start_us)) - w.start_us) FROM lt_notready AS w" \
	"  WHERE w.node_id = nm AND sec = 0) AS nr_us,"                                            \
	" (SELECT count(*) FROM lt_notready AS w WHERE w.node_id = nm AND sec = 0"                 \
	"  AND w.end_us IS NULL) AS nr_open"
#define BROWSE_NO_NR "0 AS nr, 0 AS nr_us, ?4 - ?4 AS nr_open"

/*
 * LT_BROWSE_BY_PROBLEMS: what an investigation looks at first gets the
 * lowest rank (lt_queries.h says the order).  CASE is lazy: only the sort
 * that asks computes it.
 */
#define BROWSE_PROBLEM_RANK                                                                        \
	"(CASE state WHEN 'not-ready' THEN 0 WHEN 'orphaned' THEN 1 WHEN 'deleted' THEN 2"         \
	" WHEN 'not-found' THEN 2 WHEN 'stale' THEN 3 WHEN 'no-renews' THEN 3"                     \
	" ELSE CASE WHEN gaps > 0 OR nr > 0 THEN 4 WHEN anomalies > 0 THEN 5 ELSE 6 END END)"

/* LT_BROWSE_BY_DELETES: a node's Node object deletes, counted as `nodes` counts them. */
#define BROWSE_NODE_DELETES                                                                        \
	"(CASE WHEN sec = 0 THEN (SELECT count(*) FROM audit AS a"                                 \
	"  WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'nodes')"                          \
	"  AND a.namespace_id IS NULL AND a.name_id = nm"                                          \
	"  AND a.verb_id = (SELECT id FROM strs WHERE s = 'delete')"                               \
	"  AND a.code BETWEEN 200 AND 299 AND a.superseded = 0) ELSE 0 END)"

/*
 * o: the names of the Node objects the audit log has requests about, of any cluster: what
 * the registry keeps in lt_node_names at each ingest (queries-node-names.c, a loose index
 * scan of audit_names), a few thousand rows, not the Node requests again.
 */
#define BROWSE_NODE_NAMES "o AS MATERIALIZED (SELECT DISTINCT name_id FROM lt_node_names)"

/*
 * A node NotReady at the end is `not-ready`, as `nodes` says, unless it is gone.  A node only
 * log lines know (a host its lines map to, a file's --node, a NotReady window's node: no lease,
 * no Node request) is listed `logs-only`, as `nodes` lists it (WINDOW_NODES: the windows'
 * nodes, none on a store from before node health).
 */
#define BROWSE_LIST_SQL(NR, WINDOW_NODES)                                                          \
	"WITH RECURSIVE " BROWSE_NODE_NAMES ","                                                    \
	" l AS MATERIALIZED (SELECT CASE x.kind WHEN 'node' THEN 0 WHEN 'leader' THEN 1"           \
	"  ELSE 2 END AS sec, x.id AS lid, x.namespace_id AS ns, x.name_id AS nm,"                 \
	"  " BROWSE_STATE " AS state, x.first_us AS first_us, x.last_us AS last_us,"               \
	"  x.last_renew_us AS last_renew_us, x.renews AS renews, x.not_found AS not_found,"        \
	"  x.deletes AS deletes, x.gaps AS gaps, x.auth_failures AS auth, x.slow AS slow,"         \
	"  x.conflicts AS conflicts FROM lt_leases AS x"                                           \
	" UNION ALL SELECT 0, 0, NULL, o.name_id, 'no-lease', NULL, NULL, NULL, 0, 0, 0, 0, 0, 0," \
	"  0 FROM o WHERE o.name_id NOT IN (SELECT name_id FROM lt_leases WHERE kind = 'node')"    \
	" UNION ALL SELECT 0, 0, NULL, g.id, 'logs-only', NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0"   \
	"  FROM strs AS g WHERE g.id IN (SELECT node_id FROM hosts UNION SELECT id FROM strs"      \
	"  WHERE s IN (SELECT node FROM log_sources WHERE node IS NOT NULL)" WINDOW_NODES ")"      \
	"  AND g.id NOT IN (SELECT name_id FROM lt_leases WHERE kind = 'node')"                    \
	"  AND g.id NOT IN (SELECT name_id FROM o)),"                                              \
	" h AS (SELECT l.*, " NR " FROM l),"                                                       \
	" r AS (SELECT sec, 0 AS head, lid, nm, CASE WHEN sec = 0"                                 \
	"  THEN (SELECT s FROM strs WHERE id = nm) ELSE (SELECT s FROM strs WHERE id = ns)"        \
	"  || '/' || (SELECT s FROM strs WHERE id = nm) END AS target,"                            \
	"  CASE WHEN nr_open > 0 AND state NOT IN ('deleted', 'orphaned') THEN 'not-ready'"        \
	"  ELSE state END AS state, first_us, last_us,"                                            \
	"  last_renew_us, renews, not_found, deletes, gaps, auth, slow, conflicts,"                \
	"  (SELECT count(*) FROM lt_episodes AS e WHERE e.lease_id = lid"                          \
	"   AND e.kind IN ('GAP', 'NOT_FOUND', 'AUTH_FAILURE', 'SLOW')) AS anomalies, 0 AS cnt,"   \
	"  nr, coalesce(nr_us, 0) AS nr_us"                                                        \
	"  FROM h UNION ALL SELECT sec, 1, 0, 0, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0,"  \
	"  0, 0, count(*), 0, 0 FROM l GROUP BY sec)"                                              \
	" SELECT sec, head, lid, nm, target, state, first_us, last_us, last_renew_us, renews,"     \
	" not_found, deletes, gaps, auth, slow, conflicts, anomalies, cnt, nr, nr_us,"             \
	" count(*) OVER () FROM r ORDER BY sec, head DESC,"                                        \
	" CASE ?1 WHEN 1 THEN coalesce(last_renew_us, 0) END,"                                     \
	" CASE ?1 WHEN 2 THEN anomalies END DESC, CASE ?1 WHEN 3 THEN nr_us END DESC,"             \
	" CASE ?1 WHEN 4 THEN " BROWSE_PROBLEM_RANK " END, CASE ?1 WHEN 4 THEN nr_us END DESC,"    \
	" CASE ?1 WHEN 5 THEN state END, CASE ?1 WHEN 6 THEN not_found END DESC,"                  \
	" CASE ?1 WHEN 7 THEN deletes + " BROWSE_NODE_DELETES " END DESC,"                         \
	" target LIMIT ?2 OFFSET ?3"

static const char list_sql[] = BROWSE_LIST_SQL(BROWSE_NR, " UNION SELECT node_id FROM lt_notready");
static const char list_sql_no_health[] = BROWSE_LIST_SQL(BROWSE_NO_NR, "");

enum list_col {
	LIST_SECTION,
	LIST_HEADING,
	LIST_LEASE_ID,
	LIST_NAME_ID,
	LIST_TARGET,
	LIST_STATE,
	LIST_FIRST,
	LIST_LAST,
	LIST_LAST_RENEW,
	LIST_RENEWS,
	LIST_NOT_FOUND,
	LIST_DELETES,
	LIST_GAPS,
	LIST_AUTH,
	LIST_SLOW,
	LIST_CONFLICTS,
	LIST_ANOMALIES,
	LIST_HEADING_COUNT,
	LIST_NOT_READY,
	LIST_NOT_READY_US,
	LIST_TOTAL,
};

/*
 * Successful deletes of the page's Node objects (?1: their name ids as a JSON
 * array): through audit_verbs, the Node deletes alone, where the store has it;
 * else (the planner's choice) one pass over the nodes' part of audit_rtv, whose
 * verb column spares reading any row but the deletes'.
 */
static const char node_deletes_sql[] =
    "SELECT a.name_id, count(*) FROM audit AS a"
    " WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'nodes')"
    " AND a.verb_id = (SELECT id FROM strs WHERE s = 'delete') AND a.namespace_id IS NULL"
    " AND a.code BETWEEN 200 AND 299 AND a.superseded = 0"
    " AND a.name_id IN (SELECT value FROM json_each(?1)) GROUP BY a.name_id";

enum node_deletes_col { NODE_DELETES_NAME_ID, NODE_DELETES_COUNT };

/* The cluster list's statement, ?4 (the end of the logs) bound. */
static int browse_list_prepare(struct lt_store *st, struct lt_stmt **q, struct lt_error *err)
{
	int rc =
	    lt_store_prepare(st, q, queries_has_health(st) ? list_sql : list_sql_no_health, err);

	if (rc == 0)
		lt_stmt_bind_int(*q, 4, lt_store_end_us(st));
	return rc;
}

static char *browse_text(const struct lt_stmt *q, int col)
{
	return lt_stmt_type(q, col) == LT_COL_NULL ? NULL : lt_xstrdup(lt_stmt_text(q, col, NULL));
}

/* One row of list_sql; *name_id gets the row's name (for the Node object's deletes). */
static void browse_read_item(struct lt_browse_item *it, int64_t *name_id, const struct lt_stmt *q)
{
	*it = (struct lt_browse_item){
	    .section = (enum lt_browse_section)lt_stmt_int(q, LIST_SECTION),
	    .heading = (int)lt_stmt_int(q, LIST_HEADING),
	    .lease_id = lt_stmt_int(q, LIST_LEASE_ID),
	    .target = browse_text(q, LIST_TARGET),
	    .state = browse_text(q, LIST_STATE),
	    .first_us = lt_stmt_int(q, LIST_FIRST),
	    .last_us = lt_stmt_int(q, LIST_LAST),
	    .last_renew_us = lt_stmt_int(q, LIST_LAST_RENEW),
	    .renews = lt_stmt_int(q, LIST_RENEWS),
	    .not_found = lt_stmt_int(q, LIST_NOT_FOUND),
	    .deletes = lt_stmt_int(q, LIST_DELETES),
	    .gaps = lt_stmt_int(q, LIST_GAPS),
	    .auth_failures = lt_stmt_int(q, LIST_AUTH),
	    .slow = lt_stmt_int(q, LIST_SLOW),
	    .conflicts = lt_stmt_int(q, LIST_CONFLICTS),
	    .anomalies = lt_stmt_int(q, LIST_ANOMALIES),
	    .count = lt_stmt_int(q, LIST_HEADING_COUNT),
	    .not_ready = lt_stmt_int(q, LIST_NOT_READY),
	    .not_ready_us = lt_stmt_int(q, LIST_NOT_READY_US),
	};
	*name_id = lt_stmt_int(q, LIST_NAME_ID);
}

static void browse_item_release(struct lt_browse_item *it)
{
	free(it->target);
	free(it->state);
}

void lt_browse_page_release(struct lt_browse_page *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->n; i++)
		browse_item_release(&p->items[i]);
	free(p->items);
	free(p->name_ids);
	free(p->deletes_read);
	memset(p, 0, sizeof *p);
}

/*
 * A pass over the list in order, filter applied: each item that stays is
 * handed to visit with its index; visit returns nonzero to stop.  A heading
 * is held back until a row of its section stays.
 */
struct browse_walk {
	const struct lt_browse_query *q;
	int (*visit)(struct browse_walk *w, struct lt_browse_item *it, int64_t name_id);
	void *ctx;
	size_t index;	/* of the next item that stays */
	size_t kept[3]; /* rows kept per section */
	int stopped;	/* visit asked to stop */
	struct lt_browse_item head;
	int head_pending;
};

static int browse_walk_row(struct browse_walk *w, struct lt_browse_item *it, int64_t name_id)
{
	if (it->heading) {
		browse_item_release(&w->head);
		w->head = *it;
		w->head_pending = 1;
		return 0;
	}
	if (w->q->keep != NULL && !w->q->keep(it, w->q->ctx)) {
		browse_item_release(it);
		return 0;
	}
	w->kept[it->section <= 2 ? it->section : 2]++;
	if (w->head_pending) {
		w->head_pending = 0;
		w->stopped = w->visit(w, &w->head, 0);
		w->index++;
		memset(&w->head, 0, sizeof w->head);
		if (w->stopped) {
			browse_item_release(it);
			return 1;
		}
	}
	w->stopped = w->visit(w, it, name_id);
	w->index++;
	return w->stopped;
}

static int browse_walk_run(struct browse_walk *w, struct lt_store *st, struct lt_error *err)
{
	struct lt_stmt *q;
	int rc = browse_list_prepare(st, &q, err);

	if (rc != 0)
		return rc;
	lt_stmt_bind_int(q, 1, w->q->sort);
	lt_stmt_bind_int(q, 2, -1);
	lt_stmt_bind_int(q, 3, 0);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		struct lt_browse_item it;
		int64_t name_id;

		browse_read_item(&it, &name_id, q);
		if (browse_walk_row(w, &it, name_id))
			break;
	}
	browse_item_release(&w->head);
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

/* A page being filled: items [offset, offset + limit), each with its name id. */
struct browse_fill {
	struct lt_browse_page *page;
	size_t offset, limit;
	size_t cap_items, cap_names; /* of page->items and page->name_ids */
};

static void browse_fill_add(struct browse_fill *f, struct lt_browse_item *it, int64_t name_id)
{
	LT_GROW(f->page->items, f->cap_items, f->page->n + 1);
	LT_GROW(f->page->name_ids, f->cap_names, f->page->n + 1);
	f->page->name_ids[f->page->n] = name_id;
	f->page->items[f->page->n++] = *it;
}

static int browse_fill_visit(struct browse_walk *w, struct lt_browse_item *it, int64_t name_id)
{
	struct browse_fill *f = w->ctx;

	if (w->index >= f->offset && w->index - f->offset < f->limit)
		browse_fill_add(f, it, name_id);
	else
		browse_item_release(it);
	return 0; /* on to the end: the total counts every row */
}

/* A JSON array of the n ids want[] asks for (NULL: all), bound as one value: one statement. */
static void browse_id_list(struct lt_buf *b, const int64_t *ids, size_t n, const int *want)
{
	lt_buf_init(b);
	lt_buf_putc(b, '[');
	for (size_t i = 0, k = 0; i < n; i++)
		if (want == NULL || want[i])
			lt_buf_printf(b, "%s%lld", k++ ? "," : "", (long long)ids[i]);
	lt_buf_putc(b, ']');
}

/* Whether item i of p still lacks its Node object's deletes. */
static int browse_deletes_due(const struct lt_browse_page *p, size_t i)
{
	const struct lt_browse_item *it = &p->items[i];

	return !p->deletes_read[i] && !it->heading && it->section == LT_BROWSE_NODES;
}

/* Adds the counts of node_deletes_sql's rows to the items [from, to) it was asked about. */
static int browse_deletes_read(struct lt_browse_page *p, struct lt_stmt *q, const int *ask,
			       size_t from, size_t to, struct lt_error *err)
{
	int rc;

	while ((rc = lt_stmt_step(q, err)) == 1)
		for (size_t i = from; i < to; i++)
			if (ask[i - from] && p->name_ids[i] == lt_stmt_int(q, NODE_DELETES_NAME_ID))
				p->items[i].deletes += lt_stmt_int(q, NODE_DELETES_COUNT);
	return rc < 0 ? rc : 0;
}

int lt_browse_deletes(struct lt_browse_page *p, struct lt_store *st, size_t from, size_t n,
		      struct lt_error *err)
{
	size_t to = from < p->n ? (n < p->n - from ? from + n : p->n) : from;
	int *ask = lt_xcalloc(to > from ? to - from : 1, sizeof *ask);
	struct lt_stmt *q;
	struct lt_buf list;
	size_t nodes = 0;
	int rc = 0;

	if (p->deletes_read == NULL && p->n > 0)
		p->deletes_read = lt_xcalloc(p->n, sizeof *p->deletes_read);
	for (size_t i = from; i < to; i++) {
		ask[i - from] = browse_deletes_due(p, i);
		nodes += (size_t)ask[i - from];
	}
	if (nodes > 0) {
		browse_id_list(&list, p->name_ids + from, to - from, ask);
		if ((rc = lt_store_prepare(st, &q, node_deletes_sql, err)) == 0) {
			lt_stmt_bind_text(q, 1, list.ptr, list.len);
			rc = browse_deletes_read(p, q, ask, from, to, err);
			lt_stmt_free(q);
		}
		lt_buf_release(&list);
	}
	for (size_t i = from; rc == 0 && i < to; i++)
		p->deletes_read[i] = 1;
	free(ask);
	return rc;
}

/* Without a filter: SQLite sorts and pages; the window count is the total. */
static int browse_page_sql(struct browse_fill *f, struct lt_store *st,
			   const struct lt_browse_query *bq, struct lt_error *err)
{
	struct lt_stmt *q;
	int rc = browse_list_prepare(st, &q, err);

	if (rc != 0)
		return rc;
	lt_stmt_bind_int(q, 1, bq->sort);
	lt_stmt_bind_int(q, 2, f->limit > INT64_MAX ? -1 : (int64_t)f->limit);
	lt_stmt_bind_int(q, 3, (int64_t)f->offset);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		struct lt_browse_item it;
		int64_t name_id;

		browse_read_item(&it, &name_id, q);
		f->page->total = (size_t)lt_stmt_int(q, LIST_TOTAL);
		browse_fill_add(f, &it, name_id);
	}
	lt_stmt_free(q);
	if (rc == 0 && f->page->n == 0 && f->offset > 0) {
		/* past the end: the total still matters to the caller */
		struct lt_browse_page all = {0};

		rc = lt_browse_list(&all, st, bq, 0, 1, err);
		f->page->total = all.total;
		lt_browse_page_release(&all);
	}
	return rc < 0 ? rc : 0;
}

/* Items [offset, offset + limit) of q's list into *out, the Node objects' deletes not read. */
static int browse_list_read(struct lt_browse_page *out, struct lt_store *st,
			    const struct lt_browse_query *q, size_t offset, size_t limit,
			    struct lt_error *err)
{
	struct browse_fill f = {.page = out, .offset = offset, .limit = limit};
	struct browse_walk w = {.q = q, .visit = browse_fill_visit, .ctx = &f};
	int rc;

	memset(out, 0, sizeof *out);
	if (q->keep == NULL) {
		rc = browse_page_sql(&f, st, q, err);
	} else {
		rc = browse_walk_run(&w, st, err);
		out->total = w.index;
		for (size_t i = 0; i < out->n; i++)
			if (out->items[i].heading)
				out->items[i].count = (int64_t)w.kept[out->items[i].section % 3];
	}
	if (rc == 0 && out->n > 0)
		out->deletes_read = lt_xcalloc(out->n, sizeof *out->deletes_read);
	if (rc != 0)
		lt_browse_page_release(out);
	return rc;
}

int lt_browse_list(struct lt_browse_page *out, struct lt_store *st, const struct lt_browse_query *q,
		   size_t offset, size_t limit, struct lt_error *err)
{
	int rc = browse_list_read(out, st, q, offset, limit, err);

	if (rc == 0 && (rc = lt_browse_deletes(out, st, 0, out->n, err)) != 0)
		lt_browse_page_release(out);
	return rc;
}

int lt_browse_list_all(struct lt_browse_page *out, struct lt_store *st,
		       const struct lt_browse_query *q, struct lt_error *err)
{
	return browse_list_read(out, st, q, 0, LT_BROWSE_LIST_MAX, err);
}

/* Whether list item i is a row (not a heading) match() accepts. */
static int browse_hit(const struct lt_browse_page *list, size_t i,
		      int (*match)(const struct lt_browse_item *it, void *ctx), void *ctx)
{
	const struct lt_browse_item *it = &list->items[i];

	return !it->heading && it->target != NULL && match(it, ctx);
}

int lt_browse_find(size_t *out, const struct lt_browse_page *list, size_t from,
		   enum lt_browse_dir dir, int (*match)(const struct lt_browse_item *it, void *ctx),
		   void *ctx, struct lt_error *err)
{
	size_t n = list->n;

	assert(match != NULL);
	/* n steps from the row after (before) from, wrapping: from itself comes last */
	for (size_t k = 1; k <= n; k++) {
		size_t i = dir == LT_BROWSE_FORWARD ? (from + k) % n : (from + n - k % n) % n;

		if (browse_hit(list, i, match, ctx)) {
			*out = i;
			return 0;
		}
	}
	return lt_error_set(err, LT_ERR_NOTFOUND, "no match");
}

int lt_browse_span(int64_t *first_us, int64_t *last_us, struct lt_store *st, struct lt_error *err)
{
	struct lt_stmt *q;
	int rc = lt_store_prepare(
	    st, &q, "SELECT coalesce(min(first_us), 0), coalesce(max(last_us), 0) FROM lt_leases",
	    err);

	*first_us = *last_us = 0;
	if (rc != 0)
		return rc;
	if ((rc = lt_stmt_step(q, err)) == 1) {
		*first_us = lt_stmt_int(q, 0);
		*last_us = lt_stmt_int(q, 1);
		rc = 0;
	}
	lt_stmt_free(q);
	return rc;
}

/* ?1: the leases' ids as a JSON array; ?2, ?3: the window. */
#define BROWSE_EPISODES_SQL(NR)                                                                    \
	"SELECT e.lease_id, e.kind, e.start_us, e.end_us, e.id FROM lt_episodes AS e"              \
	" WHERE e.lease_id IN (SELECT value FROM json_each(?1)) AND e.start_us <= ?3"              \
	" AND (e.end_us >= ?2 OR e.id = (SELECT p.id FROM lt_episodes AS p"                        \
	"  WHERE p.lease_id = e.lease_id AND p.start_us < ?2"                                      \
	"  ORDER BY p.start_us DESC, p.id DESC LIMIT 1))" NR " ORDER BY 1, 3, 5"
/* A node lease's NotReady windows, as NOT_READY episodes (an open one up to ?4, the end). */
#define BROWSE_EPISODES_NR                                                                         \
	" UNION ALL SELECT l.id, 'NOT_READY', w.start_us, coalesce(w.end_us, max(?4, "             \
	"w.start_us)),"                                                                            \
	" 0 FROM lt_notready AS w JOIN lt_leases AS l ON l.name_id = w.node_id AND l.kind = "      \
	"'node'"                                                                                   \
	" WHERE l.id IN (SELECT value FROM json_each(?1)) AND w.start_us <= ?3"                    \
	" AND coalesce(w.end_us, ?4) >= ?2"

static const char episodes_sql[] = BROWSE_EPISODES_SQL(BROWSE_EPISODES_NR);
static const char episodes_sql_no_health[] = BROWSE_EPISODES_SQL(" AND ?4 = ?4");

enum episodes_col { EPISODES_LEASE_ID, EPISODES_KIND, EPISODES_START, EPISODES_END };

/* One row of episodes_sql: the stored kind's name is read back here, once, into the enum. */
static void browse_read_episode(struct lt_browse_episode *e, const struct lt_stmt *q)
{
	size_t len;
	const char *kind = lt_stmt_text(q, EPISODES_KIND, &len);

	*e = (struct lt_browse_episode){
	    .lease_id = lt_stmt_int(q, EPISODES_LEASE_ID),
	    .kind = lt_episode_kind_parse(kind, len),
	    .start_us = lt_stmt_int(q, EPISODES_START),
	    .end_us = lt_stmt_int(q, EPISODES_END),
	};
}

int lt_browse_episodes(struct lt_browse_episodes *out, struct lt_store *st, const int64_t *ids,
		       size_t n, int64_t from_us, int64_t to_us, struct lt_error *err)
{
	struct lt_buf list;
	struct lt_stmt *q;
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof *out);
	browse_id_list(&list, ids, n, NULL);
	rc = lt_store_prepare(st, &q,
			      queries_has_health(st) ? episodes_sql : episodes_sql_no_health, err);
	if (rc == 0) {
		lt_stmt_bind_text(q, 1, list.ptr, list.len);
		lt_stmt_bind_int(q, 4, lt_store_end_us(st));
		lt_stmt_bind_int(q, 2, from_us);
		lt_stmt_bind_int(q, 3, to_us);
		while ((rc = lt_stmt_step(q, err)) == 1) {
			LT_GROW(out->eps, cap, out->n + 1);
			browse_read_episode(&out->eps[out->n++], q);
		}
		lt_stmt_free(q);
	}
	lt_buf_release(&list);
	if (rc < 0)
		lt_browse_episodes_release(out);
	return rc < 0 ? rc : 0;
}

void lt_browse_episodes_release(struct lt_browse_episodes *e)
{
	if (e == NULL)
		return;
	free(e->eps);
	memset(e, 0, sizeof *e);
}

/* ---- canned queries and timelines: typed rows kept whole ----------------- */

int lt_browse_canned(struct lt_rows *out, struct lt_store *st, const char *name,
		     const struct lt_query_opts *o, struct lt_error *err)
{
	struct lt_row_sink sink = lt_rows_sink(out);
	struct lt_store *own = NULL;
	int rc;

	lt_rows_release(out);
	/* other thresholds shadow the derived tables: do that on a connection of its own */
	if (o->gap_us || o->slow_us) {
		if ((rc = lt_store_open(&own, lt_store_path(st), LT_STORE_READONLY, err)) != 0)
			return rc;
	}
	rc = lt_query_canned(own ? own : st, name, o, &sink, err);
	lt_store_free(own);
	if (rc != 0)
		lt_rows_release(out);
	return rc;
}

int lt_browse_timeline(struct lt_rows *out, struct lt_store *st, const char *target,
		       struct lt_error *err)
{
	const struct lt_query_opts o = {.fmt = LT_OUT_TABLE, .refs = 1};
	struct lt_row_sink sink = lt_rows_sink(out);
	int rc;

	lt_rows_release(out);
	if ((rc = lt_query_timeline(st, target, &o, &sink, err)) != 0)
		lt_rows_release(out);
	return rc;
}

/* ---- events ------------------------------------------------------------- */

/* The resource, namespace and name ids of target's lease or Node object; 0 if unknown. */
static void browse_object(struct lt_store *st, const char *target, enum lt_browse_object obj,
			  int64_t id[3])
{
	const char *slash = strchr(target, '/');

	id[0] = queries_str_id(st, obj == LT_BROWSE_NODE_OBJECT ? "nodes" : "leases");
	if (obj == LT_BROWSE_NODE_OBJECT) {
		id[1] = -1; /* NULL: Nodes are cluster-scoped */
		id[2] = queries_str_id(st, target);
	} else if (slash != NULL) {
		char *ns = lt_xstrndup(target, (size_t)(slash - target));

		id[1] = queries_str_id(st, ns);
		id[2] = queries_str_id(st, slash + 1);
		free(ns);
	} else {
		id[1] = queries_str_id(st, "kube-node-lease");
		id[2] = queries_str_id(st, target);
	}
}

#define BROWSE_OBJECT_WHERE                                                                        \
	" FROM audit AS a WHERE a.resource_id = ?1 AND a.namespace_id IS ?2 AND a.name_id = ?3"    \
	" AND a.stage_us BETWEEN ?4 AND ?5 AND a.superseded = 0"

/* An event's latency (schema 9 stores it: lt_index.h). */
#define BROWSE_LATENCY LT_AUDIT_LATENCY_SQL("a")

static const char events_sql[] =
    "SELECT a.id, a.stage_us, " BROWSE_LATENCY ", a.code,"
    " coalesce((SELECT s FROM strs WHERE id = a.verb_id), ''),"
    " coalesce((SELECT s FROM strs WHERE id = a.subresource_id), ''),"
    " coalesce((SELECT s FROM strs WHERE id = a.user_id), ''),"
    " coalesce((SELECT s FROM strs WHERE id = a.source_ip_id), ''),"
    " coalesce((SELECT s FROM strs WHERE id = a.user_agent_id), '')" BROWSE_OBJECT_WHERE
    " ORDER BY a.stage_us, a.id LIMIT ?6 OFFSET ?7";

enum events_col {
	EVENTS_ID,
	EVENTS_TS,
	EVENTS_LATENCY,
	EVENTS_CODE,
	EVENTS_VERB,
	EVENTS_SUBRESOURCE,
	EVENTS_USER,
	EVENTS_SOURCE_IP,
	EVENTS_USER_AGENT,
};

static const char events_count_sql[] = "SELECT count(*)" BROWSE_OBJECT_WHERE;

static void browse_bind_object(struct lt_stmt *q, const int64_t id[3], int64_t from, int64_t to)
{
	lt_stmt_bind_int(q, 1, id[0]);
	if (id[1] < 0)
		lt_stmt_bind_null(q, 2);
	else
		lt_stmt_bind_int(q, 2, id[1]);
	lt_stmt_bind_int(q, 3, id[2]);
	lt_stmt_bind_int(q, 4, from);
	lt_stmt_bind_int(q, 5, to);
}

static void browse_read_event(struct lt_browse_event *e, const struct lt_stmt *q)
{
	*e = (struct lt_browse_event){
	    .id = lt_stmt_int(q, EVENTS_ID),
	    .ts_us = lt_stmt_int(q, EVENTS_TS),
	    .latency_us = lt_stmt_int(q, EVENTS_LATENCY),
	    .code = lt_stmt_int(q, EVENTS_CODE),
	    .verb = lt_xstrdup(lt_stmt_text(q, EVENTS_VERB, NULL)),
	    .subresource = lt_xstrdup(lt_stmt_text(q, EVENTS_SUBRESOURCE, NULL)),
	    .user = lt_xstrdup(lt_stmt_text(q, EVENTS_USER, NULL)),
	    .source_ip = lt_xstrdup(lt_stmt_text(q, EVENTS_SOURCE_IP, NULL)),
	    .user_agent = lt_xstrdup(lt_stmt_text(q, EVENTS_USER_AGENT, NULL)),
	};
}

int lt_browse_events(struct lt_browse_events *out, struct lt_store *st, const char *target,
		     enum lt_browse_object obj, int64_t from_us, int64_t to_us, size_t offset,
		     size_t limit, struct lt_error *err)
{
	struct lt_stmt *q = NULL, *c = NULL;
	int64_t id[3];
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof *out);
	browse_object(st, target, obj, id);
	if (id[0] == 0 || id[1] == 0 || id[2] == 0)
		return 0; /* a name the store never saw: no events */
	rc = lt_store_prepare(st, &c, events_count_sql, err);
	if (rc == 0)
		rc = lt_store_prepare(st, &q, events_sql, err);
	if (rc == 0) {
		browse_bind_object(c, id, from_us, to_us);
		if ((rc = lt_stmt_step(c, err)) == 1)
			out->total = (size_t)lt_stmt_int(c, 0), rc = 0;
	}
	if (rc == 0) {
		browse_bind_object(q, id, from_us, to_us);
		lt_stmt_bind_int(q, 6, (int64_t)limit);
		lt_stmt_bind_int(q, 7, (int64_t)offset);
		while (out->n < limit && (rc = lt_stmt_step(q, err)) == 1) {
			LT_GROW(out->evs, cap, out->n + 1);
			browse_read_event(&out->evs[out->n++], q);
		}
		rc = rc < 0 ? rc : 0;
	}
	lt_stmt_free(q);
	lt_stmt_free(c);
	if (rc != 0)
		lt_browse_events_release(out);
	return rc;
}

void lt_browse_events_release(struct lt_browse_events *e)
{
	if (e == NULL)
		return;
	for (size_t i = 0; i < e->n; i++) {
		free(e->evs[i].verb);
		free(e->evs[i].subresource);
		free(e->evs[i].user);
		free(e->evs[i].source_ip);
		free(e->evs[i].user_agent);
	}
	free(e->evs);
	memset(e, 0, sizeof *e);
}

/* ---- log lines ----------------------------------------------------------- */

/*
 * The lines of a timeline row of log lines: those of the timeline (its
 * node's, ?2, or naming its subject, ?3) between ?4 and ?5 with the key
 * tl_line (queries-timeline.c) makes a run of: component, kind, severity,
 * message, and the object of a garbage collector's item, as line ?1 has.
 */
/* the message of the lines rows g and q (its text, or read from its raw line: schema 8) */
#define BROWSE_MSG_G LT_LINE_MESSAGE_SQL("g")
#define BROWSE_MSG_Q LT_LINE_MESSAGE_SQL("q")
/* the bounds ?4 and ?5 as lines_row's ts_d, which its indexes hold (schema 13) */
#define BROWSE_FROM_D LT_LINE_TS_D_SQL("?4")
#define BROWSE_TO_D   LT_LINE_TS_D_SQL("?5")
#define BROWSE_LINES_WHERE                                                                         \
	" FROM lines AS g, (SELECT component_id AS c, kind_id AS k, severity AS sv,"               \
	"  " BROWSE_MSG_Q " AS m, obj_kind_id AS ok, obj_namespace_id AS ons, subject_id AS sj"    \
	"  FROM lines AS q WHERE id = ?1)"                                                         \
	"  AS r WHERE g.id IN (SELECT id FROM lines_row INDEXED BY lines_node WHERE node_id = ?2"  \
	"  AND ts_d BETWEEN " BROWSE_FROM_D " AND " BROWSE_TO_D " UNION SELECT id FROM lines_row"  \
	"  INDEXED BY lines_subject WHERE subject_id = ?3 AND ts_d BETWEEN " BROWSE_FROM_D         \
	"  AND " BROWSE_TO_D ")"                                                                   \
	" AND g.component_id IS r.c AND g.kind_id IS r.k AND g.severity IS r.sv"                   \
	" AND " BROWSE_MSG_G " IS r.m AND g.obj_kind_id IS r.ok AND g.obj_namespace_id IS r.ons"   \
	" AND (r.ok IS NULL OR g.subject_id IS r.sj)"

static const char lines_sql[] =
    "SELECT g.id, g.ts_us, coalesce(g.severity, ''), coalesce(" BROWSE_MSG_G ", ''),"
    " coalesce((SELECT path FROM sources WHERE id = g.source_id), ''), g.line" BROWSE_LINES_WHERE
    " ORDER BY g.ts_us, g.id LIMIT ?6 OFFSET ?7";
static const char lines_count_sql[] = "SELECT count(*)" BROWSE_LINES_WHERE;

enum lines_col { LINES_ID, LINES_TS, LINES_SEVERITY, LINES_MESSAGE, LINES_FILE, LINES_LINE };

static void browse_bind_lines(struct lt_stmt *q, int64_t line_id, const int64_t who[2],
			      int64_t from, int64_t to)
{
	lt_stmt_bind_int(q, 1, line_id);
	lt_stmt_bind_int(q, 2, who[0]);
	lt_stmt_bind_int(q, 3, who[1]);
	lt_stmt_bind_int(q, 4, from);
	lt_stmt_bind_int(q, 5, to);
}

static void browse_read_line(struct lt_browse_line *l, const struct lt_stmt *q)
{
	*l = (struct lt_browse_line){
	    .id = lt_stmt_int(q, LINES_ID),
	    .ts_us = lt_stmt_int(q, LINES_TS),
	    .line = lt_stmt_int(q, LINES_LINE),
	    .severity = lt_xstrdup(lt_stmt_text(q, LINES_SEVERITY, NULL)),
	    .message = lt_xstrdup(lt_stmt_text(q, LINES_MESSAGE, NULL)),
	    .file = lt_xstrdup(lt_stmt_text(q, LINES_FILE, NULL)),
	};
}

int lt_browse_lines(struct lt_browse_lines *out, struct lt_store *st, const char *target,
		    int64_t line_id, int64_t from_us, int64_t to_us, size_t offset, size_t limit,
		    struct lt_error *err)
{
	struct lt_stmt *q = NULL, *c = NULL;
	/* as timeline resolves target: a node's own lines and those naming it; a lease's */
	int64_t who[2] = {strchr(target, '/') ? 0 : queries_str_id(st, target),
			  queries_str_id(st, target)};
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if (line_id <= 0 || (who[0] == 0 && who[1] == 0))
		return 0;
	rc = lt_store_prepare(st, &c, lines_count_sql, err);
	if (rc == 0)
		rc = lt_store_prepare(st, &q, lines_sql, err);
	if (rc == 0) {
		browse_bind_lines(c, line_id, who, from_us, to_us);
		if ((rc = lt_stmt_step(c, err)) == 1)
			out->total = (size_t)lt_stmt_int(c, 0), rc = 0;
	}
	if (rc == 0) {
		browse_bind_lines(q, line_id, who, from_us, to_us);
		lt_stmt_bind_int(q, 6, (int64_t)limit);
		lt_stmt_bind_int(q, 7, (int64_t)offset);
		while (out->n < limit && (rc = lt_stmt_step(q, err)) == 1) {
			LT_GROW(out->lines, cap, out->n + 1);
			browse_read_line(&out->lines[out->n++], q);
		}
		rc = rc < 0 ? rc : 0;
	}
	lt_stmt_free(q);
	lt_stmt_free(c);
	if (rc != 0)
		lt_browse_lines_release(out);
	return rc;
}

void lt_browse_lines_release(struct lt_browse_lines *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->lines[i].severity);
		free(l->lines[i].message);
		free(l->lines[i].file);
	}
	free(l->lines);
	memset(l, 0, sizeof *l);
}
