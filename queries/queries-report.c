/*
 * queries-report.c - `leasetrail report`: the incident report, computed.
 *
 * Compute first, print last.  The findings are the canned queries' typed
 * rows (who-deleted, gc-deletes, orphaned-kubelets, node-registrations,
 * recreations, not-ready, leader-changes, auth-failures) read by column
 * name into struct report_finding, one reader per query (report_readers[]);
 * the subjects' timelines are `timeline`'s rows with the record behind each
 * (opts.refs), and every finding and row gets the FILE:LINE its record was
 * read from (as `show -v` says it); the heartbeat strip is the TUI's cluster
 * strip, bucketed over the report's range.  queries-report-print.c prints
 * the result; nothing here formats for a reader but the sentences.
 */
#include "queries-report.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define GC_USER "system:serviceaccount:kube-system:generic-garbage-collector"

/* ---- reading a canned query's rows by column name --------------------------- */

struct rp_rows {
	struct lt_rows t;
	size_t r; /* the row being read */
};

static const struct lt_cell *rp_cell(const struct rp_rows *q, const char *col)
{
	int c = lt_rows_col(&q->t, col);

	assert(c >= 0); /* the readers name columns of their own query */
	return lt_rows_cell(&q->t, q->r, c);
}

/* The text of column col (owned), NULL for no value or an empty one. */
static char *rp_text(const struct rp_rows *q, const char *col)
{
	const struct lt_cell *c = rp_cell(q, col);

	return c->type == LT_CELL_TEXT && c->len > 0 ? lt_xstrndup(c->s, c->len) : NULL;
}

static int rp_text_is(const struct rp_rows *q, const char *col, const char *s)
{
	const struct lt_cell *c = rp_cell(q, col);

	return c->type == LT_CELL_TEXT && c->len == strlen(s) && memcmp(c->s, s, c->len) == 0;
}

/* An integer-valued column (time, duration, count, id); none when no value. */
static int64_t rp_int(const struct rp_rows *q, const char *col, int64_t none)
{
	const struct lt_cell *c = rp_cell(q, col);

	return c->type == LT_CELL_NULL || c->type == LT_CELL_TEXT ? none : c->i;
}

/* "node X" or "lease NS/NAME"; the subject is what `timeline` takes (a node lease: its node). */
static void rp_lease(struct report_finding *f, const struct rp_rows *q, const char *ns_col,
		     const char *name_col)
{
	const struct lt_cell *ns = rp_cell(q, ns_col), *name = rp_cell(q, name_col);
	struct lt_buf b;

	lt_buf_init(&b);
	lt_buf_append(&b, ns->s ? ns->s : "", ns->len);
	lt_buf_putc(&b, '/');
	lt_buf_append(&b, name->s ? name->s : "", name->len);
	if (ns->len == strlen("kube-node-lease") && memcmp(ns->s, "kube-node-lease", ns->len) == 0)
		f->subject = lt_xstrndup(name->s ? name->s : "", name->len);
	else
		f->subject = lt_xstrdup(b.ptr);
	lt_buf_release(&b);
	lt_buf_init(&b);
	lt_buf_printf(&b, "lease ");
	lt_buf_append(&b, ns->s ? ns->s : "", ns->len);
	lt_buf_putc(&b, '/');
	lt_buf_append(&b, name->s ? name->s : "", name->len);
	f->object = lt_buf_detach(&b);
}

static void rp_node(struct report_finding *f, const struct rp_rows *q, const char *col)
{
	struct lt_buf b;

	f->subject = rp_text(q, col);
	if (f->subject == NULL)
		f->subject = lt_xstrdup("?");
	lt_buf_init(&b);
	lt_buf_printf(&b, "node %s", f->subject);
	f->object = lt_buf_detach(&b);
}

/* What a reader may look at besides its row: the store, the findings so far. */
struct rp_ctx {
	struct lt_store *st;
	const struct lt_report *r;
};

/* ---- the record behind a finding the query names no event for ------------------ */

/* The first request of the lease's episode of kind nearest ts (within a second). */
static const char rp_episode_sql[] =
    "SELECT e.first_event FROM lt_leases AS l JOIN lt_episodes AS e ON e.lease_id = l.id"
    " WHERE l.namespace_id = (SELECT id FROM strs WHERE s = ?1)"
    " AND l.name_id = (SELECT id FROM strs WHERE s = ?2) AND e.kind = ?3"
    " AND e.start_us BETWEEN ?4 - 1000000 AND ?4 + 1000000 ORDER BY abs(e.start_us - ?4) LIMIT 1";

/* The record a NotReady window starts on: an audit id, or minus a log line's id. */
static const char rp_notready_sql[] =
    "SELECT w.start_ref FROM lt_notready AS w WHERE w.node_id = (SELECT id FROM strs WHERE s = ?1)"
    " AND w.start_us = ?2 ORDER BY w.id LIMIT 1";

static int64_t rp_ref(struct lt_store *st, const char *sql, const struct lt_cell *a,
		      const struct lt_cell *b, const char *kind, int64_t ts)
{
	struct lt_stmt *q;
	int64_t ref = 0;

	if (a->type != LT_CELL_TEXT || lt_store_prepare(st, &q, sql, NULL) != 0)
		return 0; /* a store from before node health: no record to name */
	lt_stmt_bind_text(q, 1, a->s, a->len);
	if (b != NULL) {
		lt_stmt_bind_text(q, 2, b->s ? b->s : "", b->len);
		lt_stmt_bind_text(q, 3, kind, strlen(kind));
		lt_stmt_bind_int(q, 4, ts);
	} else {
		lt_stmt_bind_int(q, 2, ts);
	}
	if (lt_stmt_step(q, NULL) == 1)
		ref = lt_stmt_type(q, 0) == LT_COL_NULL ? 0 : lt_stmt_int(q, 0);
	lt_stmt_free(q);
	return ref;
}

/* The episode of kind behind a finding on lease (ns, name) at ts. */
static int64_t rp_episode_ref(const struct rp_ctx *x, const struct rp_rows *q, const char *ns_col,
			      const char *name_col, enum lt_episode_kind kind, int64_t ts)
{
	return rp_ref(x->st, rp_episode_sql, rp_cell(q, ns_col), rp_cell(q, name_col),
		      lt_episode_kind_name(kind), ts);
}

/* ---- one reader per canned query --------------------------------------------- */

/* Fills f from the row; 0 to skip the row. */
typedef int (*rp_reader)(struct report_finding *f, const struct rp_rows *q, const struct rp_ctx *x);

static int rp_who_deleted(struct report_finding *f, const struct rp_rows *q, const struct rp_ctx *x)
{
	(void)x;
	if (rp_text_is(q, "resource", "leases") && rp_text_is(q, "user", GC_USER))
		return 0; /* gc-deletes says it with the node behind it */
	f->kind = rp_text_is(q, "resource", "nodes") ? REPORT_NODE_DELETED : REPORT_LEASE_DELETED;
	if (f->kind == REPORT_NODE_DELETED)
		rp_node(f, q, "name");
	else
		rp_lease(f, q, "namespace", "name");
	f->ts = rp_int(q, "ts", 0);
	f->code = rp_int(q, "code", 0);
	f->actor = rp_text(q, "user");
	f->what = rp_text(q, "source_ip");
	f->event = rp_int(q, "event", 0);
	return 1;
}

static int rp_gc(struct report_finding *f, const struct rp_rows *q, const struct rp_ctx *x)
{
	f->kind = REPORT_GC_DELETE;
	rp_lease(f, q, "namespace", "lease");
	f->ts = rp_int(q, "lease_deleted", 0);
	f->ts2 = rp_int(q, "node_deleted", 0);
	f->dur_us = rp_int(q, "after", -1);
	f->actor = rp_text(q, "node_deleted_by");
	f->more = rp_text(q, "evidence");
	f->event = rp_episode_ref(x, q, "namespace", "lease", LT_EP_DELETED, f->ts);
	return 1;
}

static int rp_orphaned(struct report_finding *f, const struct rp_rows *q, const struct rp_ctx *x)
{
	f->kind = REPORT_ORPHANED;
	rp_node(f, q, "node");
	f->ts = rp_int(q, "first_404", 0);
	f->end_us = rp_int(q, "last_404", 0);
	f->ts2 = rp_int(q, "re_registered", 0);
	f->count = rp_int(q, "requests", 0);
	f->actor = rp_text(q, "kubelet_user");
	f->again = rp_text_is(q, "still_orphaned", "yes");
	f->more = rp_text(q, "evidence");
	{
		const struct lt_cell ns = lt_cell_text("kube-node-lease");

		f->event = rp_ref(x->st, rp_episode_sql, &ns, rp_cell(q, "node"),
				  lt_episode_kind_name(LT_EP_NOT_FOUND), f->ts);
	}
	return 1;
}

/* The last delete of node before ts among the findings so far (who-deleted runs first). */
static int64_t rp_deleted_before(const struct lt_report *r, const char *node, int64_t ts)
{
	int64_t last = 0;

	for (size_t i = 0; i < r->nf; i++)
		if (r->f[i].kind == REPORT_NODE_DELETED && r->f[i].code >= 200 &&
		    r->f[i].code < 300 && r->f[i].ts <= ts && strcmp(r->f[i].subject, node) == 0)
			last = r->f[i].ts > last ? r->f[i].ts : last;
	return last;
}

static int rp_registered(struct report_finding *f, const struct rp_rows *q, const struct rp_ctx *x)
{
	f->kind = REPORT_REGISTERED;
	rp_node(f, q, "node");
	f->ts = rp_int(q, "ts", 0);
	f->code = rp_int(q, "code", 0);
	f->ts2 = rp_deleted_before(x->r, f->subject, f->ts);
	f->again = f->ts2 != 0 || f->code == 409;
	f->what = rp_text(q, "result");
	f->actor = rp_text(q, "user");
	f->event = rp_int(q, "event", 0);
	/* a first registration is no finding; one again, or one that failed, is */
	return f->again || (f->code < 200 || f->code >= 300);
}

static int rp_recreated(struct report_finding *f, const struct rp_rows *q, const struct rp_ctx *x)
{
	f->kind = REPORT_RECREATED;
	rp_lease(f, q, "namespace", "lease");
	f->ts = rp_int(q, "recreated", 0);
	f->dur_us = rp_int(q, "after", -1);
	f->actor = rp_text(q, "by");
	f->more = rp_text(q, "gone_user");
	f->event = rp_episode_ref(x, q, "namespace", "lease", LT_EP_RECREATED, f->ts);
	return 1;
}

static int rp_not_ready(struct report_finding *f, const struct rp_rows *q, const struct rp_ctx *x)
{
	f->kind = REPORT_NOT_READY;
	rp_node(f, q, "node");
	f->ts = rp_int(q, "start", 0);
	f->end_us = rp_int(q, "end", 0);
	f->dur_us = rp_int(q, "duration", -1);
	f->what = rp_text(q, "cause");
	f->more = rp_text(q, "ended");
	f->event = rp_ref(x->st, rp_notready_sql, rp_cell(q, "node"), NULL, NULL, f->ts);
	return 1;
}

static int rp_leader(struct report_finding *f, const struct rp_rows *q, const struct rp_ctx *x)
{
	f->kind = REPORT_LEADER_CHANGE;
	rp_lease(f, q, "namespace", "lease");
	f->ts = rp_int(q, "ts", 0);
	f->what = rp_text(q, "old_holder");
	f->more = rp_text(q, "new_holder");
	f->event = rp_episode_ref(x, q, "namespace", "lease", LT_EP_HOLDER_CHANGE, f->ts);
	return 1;
}

static int rp_auth(struct report_finding *f, const struct rp_rows *q, const struct rp_ctx *x)
{
	f->kind = REPORT_AUTH_FAILURE;
	rp_lease(f, q, "namespace", "lease");
	f->ts = rp_int(q, "first", 0);
	f->end_us = rp_int(q, "last", 0);
	f->count = rp_int(q, "requests", 0);
	f->actor = rp_text(q, "user");
	f->what = rp_text(q, "reason");
	f->event = rp_episode_ref(x, q, "namespace", "lease", LT_EP_AUTH_FAILURE, f->ts);
	return 1;
}

/* The queries the findings come from, in this order (who-deleted before node-registrations). */
static const struct {
	const char *query;
	rp_reader read;
} report_readers[] = {
    {.query = "who-deleted", .read = rp_who_deleted},
    {.query = "gc-deletes", .read = rp_gc},
    {.query = "orphaned-kubelets", .read = rp_orphaned},
    {.query = "node-registrations", .read = rp_registered},
    {.query = "recreations", .read = rp_recreated},
    {.query = "not-ready", .read = rp_not_ready},
    {.query = "leader-changes", .read = rp_leader},
    {.query = "auth-failures", .read = rp_auth},
};

void queries_report_finding_release(struct report_finding *f)
{
	free(f->subject);
	free(f->object);
	free(f->actor);
	free(f->what);
	free(f->more);
	free(f->where);
	free(f->identity);
}

static int rp_findings(struct lt_report *r, struct lt_store *st, const struct lt_query_opts *o,
		       struct lt_error *err)
{
	for (size_t k = 0; k < sizeof report_readers / sizeof *report_readers; k++) {
		struct rp_rows q = {.r = 0};
		const struct rp_ctx x = {.st = st, .r = r};
		struct lt_row_sink sink = lt_rows_sink(&q.t);
		int rc = lt_query_canned(st, report_readers[k].query, o, &sink, err);

		for (q.r = 0; rc == 0 && q.r < q.t.nrows; q.r++) {
			struct report_finding f = {.dur_us = -1};

			if (r->nf == REPORT_MAX_FINDINGS) {
				r->f_more++;
				continue;
			}
			if (report_readers[k].read(&f, &q, &x)) {
				LT_GROW(r->f, r->capf, r->nf + 1);
				r->f[r->nf++] = f;
			} else {
				queries_report_finding_release(&f);
			}
		}
		lt_rows_release(&q.t);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* Findings in time order; at the same time, by kind (a node delete before its lease's), then
 * subject. */
static int rp_by_time(const void *a, const void *b)
{
	const struct report_finding *x = a, *y = b;

	if (x->ts != y->ts)
		return (x->ts > y->ts) - (x->ts < y->ts);
	if (x->kind != y->kind)
		return (x->kind > y->kind) - (x->kind < y->kind);
	return strcmp(x->subject, y->subject);
}

/* ---- provenance ----------------------------------------------------------------- */

/*
 * The identity behind a finding's actor (LT_IDENTITY_SQL: EKS's ARN and session, AKS's
 * object id, GKE's subject or delegation, "as USER"): its request's, when that request is
 * the actor's own (a gc-deletes finding rests on the collector's request, not on the node
 * deleter named as its actor); NULL when none.  q: rp_identity_sql, prepared.
 */
static const char rp_identity_sql[] =
    "SELECT (SELECT s FROM strs WHERE id = a.user_id), " LT_IDENTITY_SQL(
	"a") " FROM audit AS a WHERE a.id = ?1";

/* A gc-deletes finding's actor deleted the node: that delete's finding names the identity. */
static void rp_gc_identity(struct lt_report *r)
{
	for (size_t i = 0; i < r->nf; i++) {
		struct report_finding *g = &r->f[i];

		for (size_t k = 0; g->kind == REPORT_GC_DELETE && g->identity == NULL && k < r->nf;
		     k++) {
			const struct report_finding *d = &r->f[k];

			if (d->kind == REPORT_NODE_DELETED && d->identity != NULL &&
			    d->ts == g->ts2 && g->actor != NULL && d->actor != NULL &&
			    strcmp(d->actor, g->actor) == 0 && strcmp(d->subject, g->subject) == 0)
				g->identity = lt_xstrdup(d->identity);
		}
	}
}

static char *rp_identity(struct lt_stmt *q, const struct report_finding *f)
{
	char *s = NULL;

	if (q == NULL || f->event <= 0 || f->actor == NULL)
		return NULL;
	lt_stmt_reset(q);
	lt_stmt_bind_int(q, 1, f->event);
	if (lt_stmt_step(q, NULL) == 1 && lt_stmt_type(q, 1) != LT_COL_NULL &&
	    strcmp(lt_stmt_text(q, 0, NULL), f->actor) == 0)
		s = lt_xstrdup(lt_stmt_text(q, 1, NULL));
	return s;
}

/* "FILE:LINE" of an audit event (ref > 0) or a log line (ref < 0); NULL when unknown. */
static char *rp_where(struct lt_store *st, int64_t ref)
{
	struct lt_event_origin o;
	char *s = NULL;
	int rc;

	if (ref == 0)
		return NULL;
	lt_buf_init(&o.raw);
	lt_buf_init(&o.file);
	rc = ref > 0 ? lt_store_event_origin(st, ref, &o, NULL)
		     : lt_store_line_origin(st, -ref, &o, NULL);
	if (rc == 0) {
		lt_buf_printf(&o.file, ":%llu", (unsigned long long)o.line);
		s = lt_buf_detach(&o.file);
	}
	lt_buf_release(&o.raw);
	lt_buf_release(&o.file);
	return s;
}

/* ---- subjects ----------------------------------------------------------------------- */

static int rp_has_subject(const struct lt_report *r, const char *target)
{
	for (size_t i = 0; i < r->nsubj; i++)
		if (strcmp(r->subj[i].target, target) == 0)
			return 1;
	return 0;
}

static int rp_subject(struct lt_report *r, struct lt_store *st, const char *target,
		      const struct lt_query_opts *o, struct lt_error *err)
{
	struct lt_query_opts to = *o;
	struct report_subject s = {.target = lt_xstrdup(target)};
	struct lt_row_sink sink = lt_rows_sink(&s.rows);
	int rc;

	to.refs = 1;
	to.verbose = 0;
	if ((rc = lt_query_timeline(st, target, &to, &sink, err)) != 0) {
		lt_rows_release(&s.rows);
		free(s.target);
		return rc;
	}
	s.where = lt_xcalloc(s.rows.nrows ? s.rows.nrows : 1, sizeof *s.where);
	for (size_t i = 0; i < s.rows.nrows && i < REPORT_MAX_ROWS; i++) {
		const struct lt_cell *c = lt_rows_cell(&s.rows, i, LT_TL_REF);

		s.where[i] = c->type == LT_CELL_INT ? rp_where(st, c->i) : NULL;
	}
	LT_GROW(r->subj, r->subj_cap, r->nsubj + 1);
	r->subj[r->nsubj++] = s;
	return 0;
}

/* The subjects asked for, or those the findings name (at most REPORT_MAX_SUBJECTS). */
static int rp_subjects(struct lt_report *r, struct lt_store *st, char *const *targets, size_t n,
		       const struct lt_query_opts *o, struct lt_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++)
		if (!rp_has_subject(r, targets[i]))
			rc = rp_subject(r, st, targets[i], o, err);
	for (size_t i = 0; n == 0 && i < r->nf && rc == 0; i++) {
		if (rp_has_subject(r, r->f[i].subject))
			continue;
		if (r->nsubj == REPORT_MAX_SUBJECTS) {
			r->subj_more++;
			continue;
		}
		rc = rp_subject(r, st, r->f[i].subject, o, err);
		if (rc == LT_ERR_NOTFOUND) /* a name only a log line gave: no timeline */
			rc = 0;
	}
	return rc;
}

/* ---- the heartbeat strip ------------------------------------------------------------ */

static void rp_strip_deletes(struct lt_report *r, struct report_strip *s)
{
	size_t k = 0;

	for (size_t i = 0; i < r->nf && k < sizeof s->deleted / sizeof *s->deleted; i++)
		if (r->f[i].kind == REPORT_NODE_DELETED && r->f[i].code >= 200 &&
		    r->f[i].code < 300 && strcmp(r->f[i].subject, s->node) == 0)
			s->deleted[k++] = r->f[i].ts;
}

static int rp_strip(struct lt_report *r, struct lt_store *st, struct lt_error *err)
{
	struct lt_browse_query bq = {.sort = LT_BROWSE_BY_NAME};
	struct lt_browse_page page = {0};
	struct lt_browse_episodes eps = {0};
	int64_t *ids, listed = 0;
	int rc;

	if ((rc = lt_browse_list(&page, st, &bq, 0, REPORT_STRIP_NODES + 4, err)) != 0)
		return rc;
	ids = lt_xcalloc(page.n ? page.n : 1, sizeof *ids);
	for (size_t i = 0; i < page.n; i++) {
		const struct lt_browse_item *it = &page.items[i];

		if (it->heading && it->section == LT_BROWSE_NODES)
			listed = it->count;
		if (it->heading || it->section != LT_BROWSE_NODES || it->lease_id == 0 ||
		    r->nstrip == REPORT_STRIP_NODES)
			continue;
		LT_GROW(r->strip, r->strip_cap, r->nstrip + 1);
		r->strip[r->nstrip] = (struct report_strip){.node = lt_xstrdup(it->target)};
		ids[r->nstrip++] = it->lease_id;
	}
	/* nodes not drawn: past the limit, or with no lease to draw */
	r->strip_more = listed > (int64_t)r->nstrip ? (size_t)(listed - (int64_t)r->nstrip) : 0;
	rc = r->nstrip ? lt_browse_episodes(&eps, st, ids, r->nstrip, r->from, r->to, err) : 0;
	/* episodes come by lease id, the strip by name: find each lease's run */
	for (size_t i = 0; rc == 0 && i < r->nstrip; i++) {
		size_t first = 0, e;

		while (first < eps.n && eps.eps[first].lease_id != ids[i])
			first++;
		for (e = first; e < eps.n && eps.eps[e].lease_id == ids[i]; e++)
			;
		/* no episode in the range leaves eps.eps NULL: no offset of it (UB) */
		queries_report_bucket(r->strip[i].cells, REPORT_STRIP_CELLS, r->from, r->to,
				      e > first ? eps.eps + first : NULL, e - first);
		rp_strip_deletes(r, &r->strip[i]);
	}
	lt_browse_episodes_release(&eps);
	lt_browse_page_release(&page);
	free(ids);
	return rc;
}

/* ---- the whole -------------------------------------------------------------------------- */

static int rp_range(struct lt_report *r, struct lt_store *st, const struct lt_query_opts *o,
		    struct lt_error *err)
{
	int64_t first = 0, last = 0;
	int rc = lt_browse_span(&first, &last, st, err);

	if (rc != 0)
		return rc;
	if (last == 0)
		last = lt_store_end_us(st);
	r->since = o->since_us;
	r->until = o->until_us;
	r->from = o->since_us ? o->since_us : first;
	r->to = o->until_us ? o->until_us : last;
	if (r->to <= r->from)
		r->to = r->from + 1000000;
	return 0;
}

int lt_report_build(struct lt_report **out, struct lt_store *st, char *const *targets, size_t n,
		    const struct lt_query_opts *o, struct lt_error *err)
{
	struct lt_report *r = lt_xcalloc(1, sizeof *r);
	int rc;

	*out = NULL;
	r->store = lt_store_path(st);
	rc = rp_range(r, st, o, err);
	if (rc == 0)
		rc = rp_findings(r, st, o, err);
	if (rc == 0 && r->nf > 1)
		qsort(r->f, r->nf, sizeof *r->f, rp_by_time);
	for (size_t i = 0; rc == 0 && i < r->nf; i++)
		r->f[i].where = rp_where(st, r->f[i].event);
	if (rc == 0 && r->nf > 0) {
		struct lt_stmt *who = NULL;

		if (lt_store_prepare(st, &who, rp_identity_sql, NULL) != 0)
			who = NULL; /* a store from before identities: none to name */
		for (size_t i = 0; i < r->nf; i++)
			r->f[i].identity = rp_identity(who, &r->f[i]);
		lt_stmt_free(who);
		rp_gc_identity(r);
	}
	if (rc == 0)
		r->nsaid = queries_report_say(&r->said, r->f, r->nf);
	if (rc == 0)
		rc = rp_subjects(r, st, targets, n, o, err);
	if (rc == 0)
		rc = rp_strip(r, st, err);
	if (rc != 0) {
		lt_report_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void lt_report_free(struct lt_report *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->nf; i++)
		queries_report_finding_release(&r->f[i]);
	free(r->f);
	for (size_t i = 0; i < r->nsaid; i++)
		free(r->said[i]);
	free(r->said);
	for (size_t i = 0; i < r->nsubj; i++) {
		for (size_t k = 0; k < r->subj[i].rows.nrows && k < REPORT_MAX_ROWS; k++)
			free(r->subj[i].where[k]);
		free(r->subj[i].where);
		lt_rows_release(&r->subj[i].rows);
		free(r->subj[i].target);
	}
	free(r->subj);
	for (size_t i = 0; i < r->nstrip; i++)
		free(r->strip[i].node);
	free(r->strip);
	free(r);
}
