/*
 * queries-timeline.c - `leasetrail timeline NODE|NAMESPACE/LEASE`.
 *
 * A node's timeline is its lease's episodes merged in time with what
 * happened to the Node object itself (registrations, deletions, runs of
 * status updates).  Episodes are built on the spot for the one lease, so
 * --gap and --slow overrides apply; with -v each row is followed by the
 * requests it stands for.
 */
#include "queries-int.h"

#include <stdlib.h>
#include <string.h>

struct tl_row {
	int64_t start, end, count;
	const char *kind;
	char *detail;
	int is_node;  /* a Node object row, not a lease episode */
	size_t seq;   /* order of arrival: qsort is not stable */
	char *source; /* a log row's component; NULL for audit rows */
	char *key;    /* a log row's run key: component, kind and message */
};

struct tl {
	struct lt_store *st;
	int64_t ns, lease, node, leases_id, nodes_id; /* strs ids, 0 = none */
	int64_t subject;			      /* what log lines about the target name */
	char state[16];				      /* the lease's, as built (before stale) */
	int64_t last_renew, gap_us;		      /* 0: never renewed */
	int64_t kubelet;			      /* the node's kubelet user, 0 = none */
	struct tl_row *rows;
	size_t n, cap;
};

static void tl_add(struct tl *t, const struct tl_row *r)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 32;
		t->rows = lt_xrealloc(t->rows, t->cap * sizeof *t->rows);
	}
	t->rows[t->n] = *r;
	t->rows[t->n].seq = t->n;
	t->n++;
}

/* "USER from IP" for an episode's actor. */
static void tl_actor(struct tl *t, struct lt_buf *b, int64_t user, int64_t ip)
{
	struct lt_stmt *q;

	if (lt_store_prepare(t->st, &q,
			     "SELECT (SELECT s FROM strs WHERE id = ?1),"
			     " (SELECT s FROM strs WHERE id = ?2)",
			     NULL) != 0)
		return;
	lt_stmt_bind_int(q, 1, user);
	lt_stmt_bind_int(q, 2, ip);
	if (lt_stmt_step(q, NULL) == 1) {
		lt_buf_printf(b, "%s",
			      lt_stmt_text(q, 0, NULL)[0] ? lt_stmt_text(q, 0, NULL) : "?");
		if (lt_stmt_type(q, 1) != LT_COL_NULL)
			lt_buf_printf(b, " from %s", lt_stmt_text(q, 1, NULL));
	}
	lt_stmt_free(q);
}

static void tl_dur(struct lt_buf *b, const char *before, int64_t us)
{
	char d[32];

	lt_format_duration(d, sizeof d, us);
	lt_buf_printf(b, "%s%s", before, d);
}

/* The one-line explanation of an episode. */
static char *tl_detail(struct tl *t, const struct lc_episode *e, int64_t gap_us)
{
	struct lt_buf b;

	lt_buf_init(&b);
	if (strcmp(e->kind, "RENEWING") == 0) {
		lt_buf_printf(&b, "%lld renews by ", (long long)e->count);
		tl_actor(t, &b, e->user, e->ip);
		if (e->median_us >= 0) {
			tl_dur(&b, ", every ", e->median_us);
			tl_dur(&b, " (max ", e->max_us);
			lt_buf_putc(&b, ')');
		}
	} else if (strcmp(e->kind, "GAP") == 0) {
		tl_dur(&b, "no renew for ", e->max_us);
		tl_dur(&b, " (threshold ", gap_us);
		lt_buf_putc(&b, ')');
	} else if (strcmp(e->kind, "HOLDER_CHANGE") == 0) {
		lt_buf_printf(&b, "%s -> %s%s", e->old_holder ? e->old_holder : "?",
			      e->new_holder ? e->new_holder : "?",
			      e->inferred ? " (inferred: a new renewer's source IP)" : "");
		if (e->note)
			lt_buf_printf(&b, ", %s", e->note);
	} else {
		lt_buf_printf(&b, "%s",
			      strcmp(e->kind, "NOT_FOUND") == 0	     ? "asked by "
			      : strcmp(e->kind, "AUTH_FAILURE") == 0 ? "denied "
			      : strcmp(e->kind, "SLOW") == 0	     ? "by "
								     : "by ");
		tl_actor(t, &b, e->user, e->ip);
		if (strcmp(e->kind, "RE-CREATED") == 0)
			tl_dur(&b, ", ", e->max_us), lt_buf_printf(&b, " after it was gone");
		if (strcmp(e->kind, "SLOW") == 0)
			tl_dur(&b, ", slowest ", e->max_us);
		if (e->note)
			lt_buf_printf(&b, ": %s", e->note);
	}
	return b.ptr;
}

/* One stored episode row (see lt_episodes) as the builder would have made it. */
static void tl_stored_row(const struct lt_stmt *q, struct lc_result *r)
{
	struct lc_episode e = {0};
	e.kind = lc_kind_name(lt_stmt_text(q, 0, NULL));
	e.start_us = lt_stmt_int(q, 1);
	e.end_us = lt_stmt_int(q, 2);
	e.count = lt_stmt_int(q, 3);
	e.user = lt_stmt_int(q, 4);
	e.ip = lt_stmt_int(q, 5);
	e.median_us = lt_stmt_type(q, 6) == LT_COL_NULL ? -1 : lt_stmt_int(q, 6);
	e.max_us = lt_stmt_type(q, 7) == LT_COL_NULL ? -1 : lt_stmt_int(q, 7);
	e.old_holder =
	    lt_stmt_type(q, 8) == LT_COL_NULL ? NULL : lt_xstrdup(lt_stmt_text(q, 8, NULL));
	e.new_holder =
	    lt_stmt_type(q, 9) == LT_COL_NULL ? NULL : lt_xstrdup(lt_stmt_text(q, 9, NULL));
	e.inferred = (int)lt_stmt_int(q, 10);
	e.note = lt_stmt_type(q, 11) == LT_COL_NULL ? NULL : lt_xstrdup(lt_stmt_text(q, 11, NULL));
	r->sum.gap_us = lt_stmt_int(q, 12);
	r->sum.last_renew_us = lt_stmt_int(q, 14);
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->eps = lt_xrealloc(r->eps, r->cap * sizeof *r->eps);
	}
	r->eps[r->n++] = e;
}

/* The episodes ingest stored for the lease: no need to read its requests again. */
static int tl_stored(struct tl *t, struct lc_result *r, struct lt_error *err)
{
	struct lt_stmt *q;
	int rc;

	memset(r, 0, sizeof *r);
	rc = lt_store_prepare(
	    t->st, &q,
	    "SELECT e.kind, e.start_us, e.end_us, e.count, e.user_id, e.source_ip_id,"
	    " e.median_us, e.max_us, e.old_holder, e.new_holder, e.inferred, e.note,"
	    " l.gap_us, l.state, l.last_renew_us"
	    " FROM lt_leases AS l JOIN lt_episodes AS e ON e.lease_id = l.id"
	    " WHERE l.namespace_id = ?1 AND l.name_id = ?2 ORDER BY e.start_us, e.id",
	    err);
	if (rc != 0)
		return rc;
	lt_stmt_bind_int(q, 1, t->ns);
	lt_stmt_bind_int(q, 2, t->lease);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		tl_stored_row(q, r);
		if (t->state[0] == '\0') /* the lease's columns repeat on every row */
			snprintf(t->state, sizeof t->state, "%s", lt_stmt_text(q, 13, NULL));
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

static int tl_lease_rows(struct tl *t, const struct lt_query_opts *o, struct lt_error *err)
{
	struct lc_result r;
	int rc;

	if (t->ns == 0 || t->lease == 0)
		return 0;
	/* other thresholds than ingest used: build the episodes again from the requests */
	if (o->gap_us || o->slow_us)
		rc = lc_build(t->st, t->ns, t->lease, o->gap_us, o->slow_us, &r, err);
	else
		rc = tl_stored(t, &r, err);
	if (rc != 0) {
		lc_result_release(&r);
		return rc;
	}
	if (r.sum.state != NULL) /* built here, not read back */
		snprintf(t->state, sizeof t->state, "%s", r.sum.state);
	t->last_renew = r.sum.last_renew_us;
	t->gap_us = r.sum.gap_us;
	for (size_t i = 0; i < r.n; i++) {
		struct tl_row row = {r.eps[i].start_us,
				     r.eps[i].end_us,
				     r.eps[i].count,
				     r.eps[i].kind,
				     tl_detail(t, &r.eps[i], r.sum.gap_us),
				     0,
				     0,
				     NULL,
				     NULL};

		tl_add(t, &row);
	}
	lc_result_release(&r);
	return 0;
}

/*
 * A lease stale at the end of the logs (LT_LEASE_STATE, as every view says
 * it) ends its timeline with an open STALE row: no GAP can show a wait that
 * no renew ended.
 */
static int tl_stale_row(struct tl *t, struct lt_error *err)
{
	struct lt_stmt *q;
	int64_t end = lt_store_end_us(t->st);
	int rc;

	if (t->state[0] == '\0') /* no lease: a Node object alone */
		return 0;
	rc = lt_store_prepare(t->st, &q,
			      "SELECT " LT_LEASE_STATE("?1", "?2", "?3", "?4") " = 'stale'", err);
	if (rc != 0)
		return rc;
	lt_stmt_bind_text(q, 1, t->state, (size_t)-1);
	if (t->last_renew != 0) /* never renewed: NULL, never stale */
		lt_stmt_bind_int(q, 2, t->last_renew);
	lt_stmt_bind_int(q, 3, t->gap_us);
	lt_stmt_bind_int(q, 4, end);
	if ((rc = lt_stmt_step(q, err)) == 1 && lt_stmt_int(q, 0) == 1) {
		struct tl_row row = {t->last_renew, end, 0, "STALE", NULL, 0, 0, NULL, NULL};
		struct lt_buf b;

		lt_buf_init(&b);
		tl_dur(&b, "no renew for ", end - t->last_renew);
		tl_dur(&b, " before the end of the logs (threshold ", t->gap_us);
		lt_buf_putc(&b, ')');
		row.detail = b.ptr;
		tl_add(t, &row);
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

/*
 * A kubelet restarting on a node that still exists gets 409 AlreadyExists for
 * its create; it then reads the existing Node, reconciles it and counts itself
 * registered (kubelet tryRegisterWithAPIServer).  Anyone else's 409 is not that.
 */
static int tl_reregistered(const struct tl *t, const char *verb, int64_t code, int64_t user)
{
	return code == 409 && t->kubelet != 0 && user == t->kubelet && strcmp(verb, "create") == 0;
}

/* Node object events: registrations and deletions alone, updates as runs. */
static const char *tl_node_kind(const char *verb, const char *sub, int64_t code, int again)
{
	int ok = (code >= 200 && code < 300) || again;

	if (strcmp(verb, "create") == 0)
		return ok ? "NODE_REGISTERED" : "NODE_REGISTER_FAILED";
	if (strcmp(verb, "delete") == 0)
		return ok ? "NODE_DELETED" : "NODE_DELETE_FAILED";
	if (strcmp(verb, "update") == 0 || strcmp(verb, "patch") == 0)
		return strcmp(sub, "status") == 0 ? (ok ? "NODE_STATUS" : "NODE_STATUS_FAILED")
						  : "NODE_UPDATED";
	return NULL;
}

static void tl_node_event(struct tl *t, const struct lt_stmt *q, struct tl_row *run)
{
	const char *verb = lt_stmt_text(q, 1, NULL);
	int again = tl_reregistered(t, verb, lt_stmt_int(q, 3), lt_stmt_int(q, 4));
	const char *kind = tl_node_kind(verb, lt_stmt_text(q, 2, NULL), lt_stmt_int(q, 3), again);
	int64_t ts = lt_stmt_int(q, 0);
	struct lt_buf b;

	if (kind == NULL)
		return;
	if (run->kind != NULL && strcmp(run->kind, kind) == 0 && strstr(kind, "STATUS")) {
		run->end = ts;
		run->count++;
		return;
	}
	if (run->kind != NULL)
		tl_add(t, run);
	lt_buf_init(&b);
	lt_buf_printf(&b, "by ");
	tl_actor(t, &b, lt_stmt_int(q, 4), lt_stmt_int(q, 5));
	if (again)
		lt_buf_printf(&b, ": the node already existed (409), the kubelet took it over");
	*run = (struct tl_row){ts, ts, 1, kind, b.ptr, 1, 0, NULL, NULL};
}

static int tl_node_rows(struct tl *t, struct lt_error *err)
{
	struct tl_row run = {0};
	struct lt_stmt *q;
	int rc;

	if (t->node == 0 || t->nodes_id == 0)
		return 0;
	rc = lt_store_prepare(
	    t->st, &q,
	    "SELECT a.stage_us, (SELECT s FROM strs WHERE id = a.verb_id),"
	    " coalesce((SELECT s FROM strs WHERE id = a.subresource_id), ''),"
	    " a.code, a.user_id, a.source_ip_id FROM audit AS a"
	    " WHERE a.resource_id = ?1 AND a.namespace_id IS NULL AND a.name_id = ?2"
	    " AND a.superseded = 0 ORDER BY a.stage_us, a.id",
	    err);
	if (rc != 0)
		return rc;
	lt_stmt_bind_int(q, 1, t->nodes_id);
	lt_stmt_bind_int(q, 2, t->node);
	while ((rc = lt_stmt_step(q, err)) == 1)
		tl_node_event(t, q, &run);
	if (run.kind != NULL)
		tl_add(t, &run);
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

/*
 * Log lines: the node's own (errors, warnings, what the classification
 * table knows; every line with -v) and the lines of other components about
 * it.  Without -v, a line saying what an earlier one said (same component,
 * kind and message) within TL_RUN_US joins that row as a run.
 */
#define TL_RUN_US (10 * 60 * 1000000LL)

static const char tl_lines_sql[] =
    "SELECT g.ts_us, coalesce((SELECT s FROM strs WHERE id = g.component_id), 'log'),"
    " (SELECT s FROM strs WHERE id = g.kind_id), g.severity, g.message,"
    " CASE WHEN json_valid(g.fields) THEN json_extract(g.fields, '$.err') END, g.id,"
    " (SELECT s FROM strs WHERE id = g.obj_kind_id),"
    " (SELECT s FROM strs WHERE id = g.obj_namespace_id),"
    " (SELECT s FROM strs WHERE id = g.subject_id)"
    " FROM lines AS g WHERE g.id IN ("
    "  SELECT id FROM lines INDEXED BY lines_notable WHERE node_id = ?1"
    "   AND " LT_LINE_NOTABLE " AND ?3 = 0"
    "  UNION ALL SELECT id FROM lines INDEXED BY lines_node WHERE node_id = ?1 AND ?3 = 1"
    "  UNION SELECT id FROM lines INDEXED BY lines_subject WHERE subject_id = ?2)"
    " ORDER BY g.ts_us, g.id";

static const char *tl_line_kind(const struct lt_stmt *q)
{
	const char *sev = lt_stmt_type(q, 3) == LT_COL_NULL ? "" : lt_stmt_text(q, 3, NULL);

	if (lt_stmt_type(q, 2) != LT_COL_NULL) {
		for (const struct lt_log_kind *k = lt_log_kinds(); k->kind; k++)
			if (strcmp(k->kind, lt_stmt_text(q, 2, NULL)) == 0)
				return k->kind;
	}
	return strcmp(sev, "E") == 0 || strcmp(sev, "F") == 0 ? "log-error"
	       : strcmp(sev, "W") == 0			      ? "log-warning"
							      : "log";
}

/* The open run this line belongs to, or NULL. */
static struct tl_row *tl_run_of(struct tl *t, size_t first_log, const char *key, int64_t ts)
{
	for (size_t i = t->n; i-- > first_log;) {
		struct tl_row *r = &t->rows[i];

		if (ts - r->end > TL_RUN_US)
			break; /* rows are in time order: older ones are further still */
		if (r->key && strcmp(r->key, key) == 0)
			return r;
	}
	return NULL;
}

static void tl_line(struct tl *t, const struct lt_stmt *q, size_t first_log, int verbose)
{
	struct tl_row row = {0}, *run;
	struct lt_buf key, detail;
	int64_t ts = lt_stmt_int(q, 0);
	const char *kind = tl_line_kind(q), *msg = lt_stmt_text(q, 4, NULL);

	lt_buf_init(&key);
	lt_buf_init(&detail);
	lt_buf_printf(&detail, "%s", msg);
	if (lt_stmt_type(q, 7) != LT_COL_NULL) /* a garbage collector item */
		lt_buf_printf(&detail, " %s %s%s%s", lt_stmt_text(q, 7, NULL),
			      lt_stmt_text(q, 8, NULL), lt_stmt_text(q, 8, NULL)[0] ? "/" : "",
			      lt_stmt_text(q, 9, NULL));
	lt_buf_printf(&key, "%s\t%s\t%s", lt_stmt_text(q, 1, NULL), kind, detail.ptr);
	if (!verbose && (run = tl_run_of(t, first_log, key.ptr, ts)) != NULL) {
		run->end = ts;
		run->count++;
		lt_buf_release(&key);
		lt_buf_release(&detail);
		return;
	}
	if (lt_stmt_type(q, 5) != LT_COL_NULL)
		lt_buf_printf(&detail, " err=%s", lt_stmt_text(q, 5, NULL));
	lt_buf_printf(&detail, " (line L%lld)", (long long)lt_stmt_int(q, 6));
	row = (struct tl_row){
	    ts, ts, 1, kind, detail.ptr, 0, 0, lt_xstrdup(lt_stmt_text(q, 1, NULL)), key.ptr};
	tl_add(t, &row);
}

static int tl_log_rows(struct tl *t, const struct lt_query_opts *o, struct lt_error *err)
{
	size_t first_log = t->n;
	struct lt_stmt *q;
	int rc;

	if ((t->node == 0 && t->subject == 0) ||
	    (rc = lt_store_prepare(t->st, &q, tl_lines_sql, NULL)) != 0)
		return 0; /* a store from before log lines: nothing to add */
	lt_stmt_bind_int(q, 1, t->node);
	lt_stmt_bind_int(q, 2, t->subject);
	lt_stmt_bind_int(q, 3, o->verbose != 0);
	while ((rc = lt_stmt_step(q, err)) == 1)
		tl_line(t, q, first_log, o->verbose);
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

static int tl_cmp(const void *a, const void *b)
{
	const struct tl_row *x = a, *y = b;

	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	if (x->is_node != y->is_node)
		return y->is_node -
		       x->is_node; /* a node delete before the lease delete it causes */
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Finds what target names: "NS/LEASE", or a node (its kube-node-lease lease and Node). */
static int tl_resolve(struct tl *t, const char *target, struct lt_error *err)
{
	const char *slash = strchr(target, '/');

	t->leases_id = lc_str_id(t->st, "leases");
	t->nodes_id = lc_str_id(t->st, "nodes");
	if (slash != NULL) {
		char *ns = lt_xstrndup(target, (size_t)(slash - target));

		t->ns = lc_str_id(t->st, ns);
		t->lease = lc_str_id(t->st, slash + 1);
		t->subject = lc_str_id(t->st, target); /* leader election lines name NS/NAME */
		free(ns);
	} else {
		t->ns = lc_str_id(t->st, "kube-node-lease");
		t->lease = t->node = t->subject = lc_str_id(t->st, target);
		t->kubelet = lc_kubelet_id(t->st, target);
	}
	if (t->lease == 0 && t->node == 0 && t->subject == 0)
		return lt_error_set(err, LT_ERR_NOTFOUND, "no lease or node named '%s' in %s",
				    target, lt_store_path(t->st));
	return 0;
}

/* The requests behind a row inside [from, to], printed under it with -v. */
static int tl_events(struct tl *t, const struct tl_row *r, int64_t from, int64_t to,
		     struct lt_table *tab, struct lt_error *err)
{
	static const char sql[] =
	    "SELECT e.ts_us, e.verb, e.code, e.user, e.source_ip, e.id FROM events AS e"
	    " WHERE e.id IN (SELECT a.id FROM audit AS a WHERE a.resource_id = ?1"
	    " AND a.namespace_id IS ?2 AND a.name_id = ?3 AND a.stage_us BETWEEN ?4 AND ?5)"
	    " ORDER BY e.ts_us, e.id";
	struct lt_stmt *q;
	char ts[40], buf[512];
	int rc;

	if ((rc = lt_store_prepare(t->st, &q, sql, err)) != 0)
		return rc;
	lt_stmt_bind_int(q, 1, r->is_node ? t->nodes_id : t->leases_id);
	if (!r->is_node)
		lt_stmt_bind_int(q, 2, t->ns);
	lt_stmt_bind_int(q, 3, r->is_node ? t->node : t->lease);
	lt_stmt_bind_int(q, 4, r->start > from ? r->start : from);
	lt_stmt_bind_int(q, 5, r->end < to ? r->end : to);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		const char *vals[6] = {ts, NULL, "audit", "event", NULL, buf};

		lt_time_format(ts, sizeof ts, lt_stmt_int(q, 0));
		snprintf(buf, sizeof buf, "%s %lld %s from %s (event %lld)",
			 lt_stmt_text(q, 1, NULL), (long long)lt_stmt_int(q, 2),
			 lt_stmt_text(q, 3, NULL), lt_stmt_text(q, 4, NULL),
			 (long long)lt_stmt_int(q, 5));
		lt_table_row(tab, vals);
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

static int tl_print(struct tl *t, const struct lt_query_opts *o, FILE *out, struct lt_error *err)
{
	static const char *const names[] = {"start", "end", "source", "kind", "count", "detail"};
	struct lt_table *tab = lt_table_new(o, out, 6, names);
	int64_t until = o->until_us ? o->until_us : INT64_MAX;
	int rc = 0;

	for (size_t i = 0; i < t->n && rc == 0; i++) {
		const struct tl_row *r = &t->rows[i];
		char a[40], b[40], c[24];
		const char *vals[6] = {a,	b, r->source ? r->source : "audit",
				       r->kind, c, r->detail};

		if (r->end < o->since_us || r->start > until)
			continue;
		lt_time_format(a, sizeof a, r->start);
		lt_time_format(b, sizeof b, r->end);
		snprintf(c, sizeof c, "%lld", (long long)r->count);
		lt_table_row(tab, vals);
		if (o->verbose && r->source == NULL)
			rc = tl_events(t, r, o->since_us, until, tab, err);
	}
	lt_table_finish(tab);
	return rc;
}

int lt_query_timeline(struct lt_store *st, const char *target, const struct lt_query_opts *o,
		      FILE *out, struct lt_error *err)
{
	struct tl t = {.st = st};
	int rc = tl_resolve(&t, target, err);

	if (rc == 0)
		rc = tl_lease_rows(&t, o, err);
	if (rc == 0)
		rc = tl_stale_row(&t, err);
	if (rc == 0)
		rc = tl_node_rows(&t, err);
	if (rc == 0)
		rc = tl_log_rows(&t, o, err);
	if (rc == 0) {
		qsort(t.rows, t.n, sizeof *t.rows, tl_cmp);
		rc = tl_print(&t, o, out, err);
	}
	for (size_t i = 0; i < t.n; i++) {
		free(t.rows[i].detail);
		free(t.rows[i].source);
		free(t.rows[i].key);
	}
	free(t.rows);
	return rc;
}
