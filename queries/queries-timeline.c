/*
 * queries-timeline.c - `leasetrail timeline NODE|NAMESPACE/LEASE`.
 *
 * A node's timeline is its lease's episodes merged in time with what
 * happened to the Node object itself (registrations, deletions, runs of
 * status updates by one writer) and its NotReady windows (node health).  Episodes are built on the
 * spot for the one lease, so
 * --gap and --slow overrides apply; with -v each row is followed by the
 * requests it stands for.
 *
 * Under the quick filters of struct lt_filter (timeline --user, --verb, ...), a
 * row is kept when one of the requests -v would list under it passes them all
 * (QUERIES_FILTER_WHERE, bound), and -v lists only those; rows no one request
 * makes (GAP, STALE, NotReady windows, log lines) are left out.
 *
 * Rows are computed first (struct tl_row: times, counts and kinds as values)
 * and handed to a row sink as typed cells (enum lt_timeline_col); printing
 * is the printers' business, and the TUI takes the same cells.
 */
#include "queries-int.h"

#include <stdlib.h>
#include <string.h>

struct tl_row {
	int64_t start, end, count;
	enum lt_episode_kind kind; /* LT_EP_NONE for a log row */
	const char *log_kind;	   /* a log row's kind (static), NULL for the others */
	char *detail;
	size_t seq;   /* order of arrival: qsort is not stable */
	char *source; /* a log row's component; NULL for audit rows */
	char *key;    /* a log row's run key: component, kind and message */
	int64_t user; /* a Node object row's writer (strs id): a run has one */
	int taints;   /* a Node object row that names taints: a row of its own, never a run */
	int64_t ref;  /* the record it rests on: an audit id, -(log line id), 0 = none */
};

/* A row about the Node object, not its lease. */
static int tl_is_node(const struct tl_row *r)
{
	return (lt_episode_kind_info(r->kind)->flags & LT_EPF_NODE_OBJECT) != 0;
}

struct tl {
	struct lt_store *st;
	int64_t ns, lease, node, leases_id, nodes_id; /* strs ids, 0 = none */
	int64_t cluster;			      /* the lease's (queries_lease_cluster) */
	int64_t subject;			      /* what log lines about the target name */
	char state[16];				      /* the lease's, as built (before stale) */
	int64_t last_renew, gap_us;		      /* 0: never renewed */
	int64_t kubelet;			      /* the node's kubelet user, 0 = none */
	int64_t last_renew_event;		      /* the last renew's audit id, 0 = none */
	struct tl_row *rows;
	size_t n, cap;
};

static void tl_add(struct tl *t, const struct tl_row *r)
{
	LT_GROW(t->rows, t->cap, t->n + 1);
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

/* What the detail of an episode of the other kinds says before its actor. */
static const char *const tl_actor_intro[LT_EP_COUNT] = {
    [LT_EP_NOT_FOUND] = "asked by ",
    [LT_EP_AUTH_FAILURE] = "denied ",
    [LT_EP_NODE_GONE] = "renewed by ",
};

static void tl_detail_renewing(struct tl *t, struct lt_buf *b, const struct queries_episode *e)
{
	lt_buf_printf(b, "%lld renews by ", (long long)e->count);
	tl_actor(t, b, e->user, e->ip);
	if (e->median_us >= 0) {
		tl_dur(b, ", every ", e->median_us);
		tl_dur(b, " (max ", e->max_us);
		lt_buf_putc(b, ')');
	}
}

static void tl_detail_holder(struct lt_buf *b, const struct queries_episode *e)
{
	static const char *const how[] = {
	    [QUERIES_HOLDER_BODY] = "",
	    [QUERIES_HOLDER_RENEWER] = " (inferred: a new renewer's source IP)",
	    [QUERIES_HOLDER_TRANSITIONS] = " (from the Lease body: a change inside a gap)",
	    [QUERIES_HOLDER_EXPIRY] = " (inferred: renewed again after the lease expired)",
	};
	int i = e->inferred >= 0 && e->inferred <= QUERIES_HOLDER_EXPIRY ? e->inferred : 0;

	lt_buf_printf(b, "%s -> %s%s", e->old_holder ? e->old_holder : "?",
		      e->new_holder ? e->new_holder : "?", how[i]);
	if (e->note)
		lt_buf_printf(b, ", %s", e->note);
}

/* The one-line explanation of an episode of kind k. */
static char *tl_detail(struct tl *t, const struct queries_episode *e, enum lt_episode_kind k,
		       int64_t gap_us)
{
	struct lt_buf b;

	lt_buf_init(&b);
	switch (k) {
	case LT_EP_RENEWING:
		tl_detail_renewing(t, &b, e);
		break;
	case LT_EP_GAP:
		tl_dur(&b, "no renew for ", e->max_us);
		tl_dur(&b, " (threshold ", gap_us);
		lt_buf_putc(&b, ')');
		break;
	case LT_EP_HOLDER_CHANGE:
		tl_detail_holder(&b, e);
		break;
	default:
		lt_buf_printf(&b, "%s", tl_actor_intro[k] ? tl_actor_intro[k] : "by ");
		tl_actor(t, &b, e->user, e->ip);
		if (k == LT_EP_RECREATED)
			tl_dur(&b, ", ", e->max_us), lt_buf_printf(&b, " after it was gone");
		if (k == LT_EP_SLOW)
			tl_dur(&b, ", slowest ", e->max_us);
		if (e->note)
			lt_buf_printf(&b, ": %s", e->note);
		break;
	}
	return b.ptr;
}

/* The episodes ingest stored for the lease, with the lease's own columns on every row. */
static const char tl_stored_sql[] =
    "SELECT e.kind, e.start_us, e.end_us, e.count, e.user_id, e.source_ip_id,"
    " e.median_us, e.max_us, e.old_holder, e.new_holder, e.inferred, e.note,"
    " l.gap_us, l.state, l.last_renew_us, e.first_event, e.last_event"
    " FROM lt_leases AS l JOIN lt_episodes AS e ON e.lease_id = l.id"
    " WHERE l.namespace_id = ?1 AND l.name_id = ?2 AND l.cluster_id = ?3"
    " ORDER BY e.start_us, e.id";

enum tl_stored_col {
	TL_ST_KIND,
	TL_ST_START,
	TL_ST_END,
	TL_ST_COUNT,
	TL_ST_USER,
	TL_ST_IP,
	TL_ST_MEDIAN,
	TL_ST_MAX,
	TL_ST_OLD_HOLDER,
	TL_ST_NEW_HOLDER,
	TL_ST_INFERRED,
	TL_ST_NOTE,
	TL_ST_GAP,
	TL_ST_STATE,
	TL_ST_LAST_RENEW,
	TL_ST_FIRST_EVENT,
	TL_ST_LAST_EVENT,
};

static char *tl_text_or_null(const struct lt_stmt *q, int col)
{
	return lt_stmt_type(q, col) == LT_COL_NULL ? NULL : lt_xstrdup(lt_stmt_text(q, col, NULL));
}

static int64_t tl_int_or(const struct lt_stmt *q, int col, int64_t none)
{
	return lt_stmt_type(q, col) == LT_COL_NULL ? none : lt_stmt_int(q, col);
}

/* A stored episode's kind: its name is looked up here, once. */
static enum lt_episode_kind tl_kind_read(const struct lt_stmt *q)
{
	size_t len;
	const char *name = lt_stmt_text(q, TL_ST_KIND, &len);

	return lt_episode_kind_parse(name, len);
}

/* One stored episode row (see lt_episodes) as the builder would have made it. */
static void tl_stored_row(const struct lt_stmt *q, struct queries_lease_result *r)
{
	struct queries_episode e = {
	    .kind = tl_kind_read(q),
	    .start_us = lt_stmt_int(q, TL_ST_START),
	    .end_us = lt_stmt_int(q, TL_ST_END),
	    .count = lt_stmt_int(q, TL_ST_COUNT),
	    .user = lt_stmt_int(q, TL_ST_USER),
	    .ip = lt_stmt_int(q, TL_ST_IP),
	    .median_us = tl_int_or(q, TL_ST_MEDIAN, -1),
	    .max_us = tl_int_or(q, TL_ST_MAX, -1),
	    .old_holder = tl_text_or_null(q, TL_ST_OLD_HOLDER),
	    .new_holder = tl_text_or_null(q, TL_ST_NEW_HOLDER),
	    .inferred = (int)lt_stmt_int(q, TL_ST_INFERRED),
	    .note = tl_text_or_null(q, TL_ST_NOTE),
	    .first_event = tl_int_or(q, TL_ST_FIRST_EVENT, 0),
	    .last_event = tl_int_or(q, TL_ST_LAST_EVENT, 0),
	};

	r->sum.gap_us = lt_stmt_int(q, TL_ST_GAP);
	r->sum.last_renew_us = lt_stmt_int(q, TL_ST_LAST_RENEW);
	LT_GROW(r->eps, r->cap, r->n + 1);
	r->eps[r->n++] = e;
}

/* The episodes ingest stored for the lease: no need to read its requests again. */
static int tl_stored(struct tl *t, struct queries_lease_result *r, struct lt_error *err)
{
	struct lt_stmt *q;
	int rc;

	memset(r, 0, sizeof *r);
	if ((rc = lt_store_prepare(t->st, &q, tl_stored_sql, err)) != 0)
		return rc;
	lt_stmt_bind_int(q, 1, t->ns);
	lt_stmt_bind_int(q, 2, t->lease);
	lt_stmt_bind_int(q, 3, t->cluster);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		tl_stored_row(q, r);
		if (t->state[0] == '\0') /* the lease's columns repeat on every row */
			snprintf(t->state, sizeof t->state, "%s",
				 lt_stmt_text(q, TL_ST_STATE, NULL));
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

static int tl_lease_rows(struct tl *t, const struct lt_query_opts *o, struct lt_error *err)
{
	struct queries_lease_result r;
	int rc;

	if (t->ns == 0 || t->lease == 0)
		return 0;
	/* other thresholds than ingest used: build the episodes again from the requests */
	if (o->gap_us || o->slow_us)
		rc = queries_lease_build(t->st, t->cluster, t->ns, t->lease, o->gap_us, o->slow_us,
					 &r, err);
	else
		rc = tl_stored(t, &r, err);
	if (rc != 0) {
		queries_lease_result_release(&r);
		return rc;
	}
	if (r.sum.state != NULL) /* built here, not read back */
		snprintf(t->state, sizeof t->state, "%s", r.sum.state);
	t->last_renew = r.sum.last_renew_us;
	t->gap_us = r.sum.gap_us;
	for (size_t i = 0; i < r.n; i++) {
		enum lt_episode_kind k = r.eps[i].kind;
		struct tl_row row = {
		    .start = r.eps[i].start_us,
		    .end = r.eps[i].end_us,
		    .count = r.eps[i].count,
		    .kind = k,
		    .detail = tl_detail(t, &r.eps[i], k, r.sum.gap_us),
		    .ref = r.eps[i].first_event,
		};

		if (k == LT_EP_RENEWING || k == LT_EP_CREATED || k == LT_EP_RECREATED)
			t->last_renew_event = r.eps[i].last_event;
		tl_add(t, &row);
	}
	queries_lease_result_release(&r);
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
		struct tl_row row = {.start = t->last_renew,
				     .end = end,
				     .kind = LT_EP_STALE,
				     .ref = t->last_renew_event};
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
 * registered (kubelet tryRegisterWithAPIServer) if that read works: the row
 * says what the follow-up read got (QUERIES_FOLLOWUP_READ).  Anyone else's
 * 409 is not that.
 */
static int tl_reregistered(const struct tl *t, const char *verb, int64_t code, int64_t user)
{
	return code == 409 && t->kubelet != 0 && user == t->kubelet && strcmp(verb, "create") == 0;
}

/* The rows a Node object's requests make, by verb (and subresource), ok or failed. */
struct tl_node_kind {
	const char *verb;
	int status; /* the status subresource only */
	enum lt_episode_kind ok, failed;
};

static const struct tl_node_kind tl_node_kinds[] = {
    {.verb = "create", .ok = LT_EP_NODE_REGISTERED, .failed = LT_EP_NODE_REGISTER_FAILED},
    {.verb = "delete", .ok = LT_EP_NODE_DELETED, .failed = LT_EP_NODE_DELETE_FAILED},
    {.verb = "update", .status = 1, .ok = LT_EP_NODE_STATUS, .failed = LT_EP_NODE_STATUS_FAILED},
    {.verb = "patch", .status = 1, .ok = LT_EP_NODE_STATUS, .failed = LT_EP_NODE_STATUS_FAILED},
    {.verb = "update", .ok = LT_EP_NODE_UPDATED, .failed = LT_EP_NODE_UPDATED},
    {.verb = "patch", .ok = LT_EP_NODE_UPDATED, .failed = LT_EP_NODE_UPDATED},
};

/* The kinds a request of verb on subresource sub makes; NULL: none (a get, a watch...). */
static const struct tl_node_kind *tl_node_kind(const char *verb, const char *sub)
{
	int status = strcmp(sub, "status") == 0;

	for (size_t i = 0; i < sizeof tl_node_kinds / sizeof *tl_node_kinds; i++)
		if (strcmp(verb, tl_node_kinds[i].verb) == 0 && tl_node_kinds[i].status <= status)
			return &tl_node_kinds[i];
	return NULL;
}

/*
 * The Node object's requests, in time order; at a level that logs bodies (not Metadata: ?3),
 * the taints of the Node a write answered with ("NAME:EFFECT,...", "" for none; NULL: no body,
 * or one without its spec).
 */
static const char tl_node_sql[] =
    "SELECT a.stage_us, (SELECT s FROM strs WHERE id = a.verb_id),"
    " coalesce((SELECT s FROM strs WHERE id = a.subresource_id), ''),"
    " a.code, a.user_id, a.source_ip_id, CASE WHEN a.code = 409 THEN "
    "coalesce(" QUERIES_FOLLOWUP_READ(
	"a") ", -1) END,"
	     /* CASE first: the raw record is read only for a write's answer at a level with bodies
	      */
	     " CASE WHEN a.code BETWEEN 200 AND 299 AND a.level_id IS NOT ?3 THEN (SELECT CASE WHEN"
	     " json_extract(b.body, '$.kind') = 'Node' AND json_type(b.body, '$.spec') IS NOT NULL"
	     " THEN coalesce((SELECT group_concat(json_extract(t.value, '$.key') || ':' ||"
	     " json_extract(t.value, '$.effect'), ',') FROM json_each(b.body, '$.spec.taints') AS "
	     "t),"
	     " '') END FROM (SELECT " QUERIES_RAW_BODY(
		 "r", "response") " AS body FROM audit_raw AS r"
				  " WHERE r.id = a.id) AS b) END, a.id"
				  " FROM audit AS a WHERE a.resource_id = ?1 AND a.namespace_id IS "
				  "NULL AND a.name_id = ?2"
				  " AND a.superseded = 0 ORDER BY a.stage_us, a.id";

enum tl_node_col {
	TL_NODE_TS,
	TL_NODE_VERB,
	TL_NODE_SUB,
	TL_NODE_CODE,
	TL_NODE_USER,
	TL_NODE_IP,
	TL_NODE_FOLLOW, /* a 409's follow-up read: its code, 0 a log line, -1 none seen */
	TL_NODE_TAINTS,
	TL_NODE_ID,
};

/* What a kubelet's 409 came to, by its follow-up read. */
static void tl_reregister_detail(struct lt_buf *b, int64_t follow)
{
	if (follow < 0)
		lt_buf_printf(b,
			      ": the node already existed (409); not confirmed: no follow-up read "
			      "in the audit log (a kubelet's gets of its Node are seldom audited) "
			      "nor 'Successfully registered node' in its log");
	else if (follow == 0)
		lt_buf_printf(b, ": the node already existed (409), the kubelet took it over (its "
				 "log says registered)");
	else if (follow < 300)
		lt_buf_printf(b,
			      ": the node already existed (409), the kubelet took it over (its "
			      "follow-up read got %lld)",
			      (long long)follow);
	else
		lt_buf_printf(b,
			      ": the node already existed (409) and the kubelet's follow-up read "
			      "got %lld: not registered",
			      (long long)follow);
}

/* The Node's taints as its last body said ("NAME:EFFECT,..."), for the next write's diff. */
struct tl_taints {
	char set[512];
	int known; /* a body was seen */
};

/* Appends "; LABEL A, B" for the taints of a not in b ("NAME:EFFECT" comma lists); 1 if any. */
static int tl_taint_diff(struct lt_buf *out, const char *label, const char *a, const char *b)
{
	int first = 1;

	for (const char *p = a; *p;) {
		size_t m = strcspn(p, ",");
		int in = 0;

		for (const char *q = b; *q && !in;) {
			size_t k = strcspn(q, ",");

			in = k == m && memcmp(p, q, m) == 0;
			q += k + (q[k] == ',');
		}
		if (!in && m > 0) {
			lt_buf_printf(out, "%s%.*s", first ? label : ", ", (int)m, p);
			first = 0;
		}
		p += m + (p[m] == ',');
	}
	return !first;
}

/* A write's body: the taints it added and removed (into b), and the Node as it now is. */
static void tl_node_taints(struct tl_taints *tt, struct lt_buf *b, const struct lt_stmt *q,
			   int updated)
{
	const char *now = lt_stmt_text(q, TL_NODE_TAINTS, NULL);
	size_t n = strlen(now);

	if (lt_stmt_type(q, TL_NODE_TAINTS) == LT_COL_NULL)
		return;
	/* worded as a NOT_READY row's: "; taints added A, B; removed C" */
	if (updated && tt->known) {
		int added = tl_taint_diff(b, "; taints added ", now, tt->set);

		tl_taint_diff(b, added ? "; removed " : "; taints removed ", tt->set, now);
	}
	if (n >= sizeof tt->set)
		n = 0; /* too many to follow: as if none */
	memcpy(tt->set, now, n);
	tt->set[n] = '\0';
	tt->known = 1;
}

static void tl_node_event(struct tl *t, struct tl_taints *tt, const struct lt_stmt *q,
			  struct tl_row *run)
{
	const char *verb = lt_stmt_text(q, TL_NODE_VERB, NULL);
	int64_t code = lt_stmt_int(q, TL_NODE_CODE), user = lt_stmt_int(q, TL_NODE_USER);
	int again = tl_reregistered(t, verb, code, user);
	int64_t follow = again ? lt_stmt_int(q, TL_NODE_FOLLOW) : -1;
	const struct tl_node_kind *nk = tl_node_kind(verb, lt_stmt_text(q, TL_NODE_SUB, NULL));
	int64_t ts = lt_stmt_int(q, TL_NODE_TS);
	int write = strcmp(verb, "update") == 0 || strcmp(verb, "patch") == 0;
	enum lt_episode_kind kind;
	struct lt_buf b, taints;

	lt_buf_init(&taints);
	/* only writes move the Node (a read may come from another apiserver, a little late) */
	if (nk != NULL && write)
		tl_node_taints(tt, &taints, q, nk->ok == LT_EP_NODE_UPDATED);
	if (nk == NULL) {
		lt_buf_release(&taints);
		return;
	}
	kind = (code >= 200 && code < 300) || (again && follow < 300) ? nk->ok : nk->failed;
	if (run->kind == kind && run->user == user && taints.len == 0 && !run->taints &&
	    (lt_episode_kind_info(kind)->flags & LT_EPF_RUN)) {
		run->end = ts;
		run->count++;
		lt_buf_release(&taints);
		return;
	}
	if (run->kind != LT_EP_NONE)
		tl_add(t, run);
	lt_buf_init(&b);
	lt_buf_printf(&b, "by ");
	tl_actor(t, &b, user, lt_stmt_int(q, TL_NODE_IP));
	if (again)
		tl_reregister_detail(&b, follow);
	lt_buf_append(&b, taints.ptr, taints.len);
	*run = (struct tl_row){.start = ts,
			       .end = ts,
			       .count = 1,
			       .kind = kind,
			       .detail = b.ptr,
			       .user = user,
			       .taints = taints.len > 0,
			       .ref = lt_stmt_int(q, TL_NODE_ID)};
	lt_buf_release(&taints);
}

static int tl_node_rows(struct tl *t, struct lt_error *err)
{
	struct tl_row run = {0};
	struct tl_taints tt = {.known = 0};
	struct lt_stmt *q;
	int rc;

	if (t->node == 0 || t->nodes_id == 0)
		return 0;
	if ((rc = lt_store_prepare(t->st, &q, tl_node_sql, err)) != 0)
		return rc;
	lt_stmt_bind_int(q, 1, t->nodes_id);
	lt_stmt_bind_int(q, 2, t->node);
	lt_stmt_bind_int(q, 3, queries_str_id(t->st, "Metadata"));
	while ((rc = lt_stmt_step(q, err)) == 1)
		tl_node_event(t, &tt, q, &run);
	if (run.kind != LT_EP_NONE)
		tl_add(t, &run);
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

/* ---- NotReady windows (node health, lt_notready) ---------------------------- */

/*
 * Who wrote a window's first or last fact: an audit event's user, or a log
 * line's kind (the controllers' kinds are prefixed by who logs them) or
 * component.  Matched by prefix; the first row that matches names it.
 */
static const struct {
	const char *prefix;
	const char *who;
} tl_writers[] = {
    {"system:node:", "the kubelet"},
    {"system:serviceaccount:kube-system:node-controller", "node-controller"},
    {"system:serviceaccount:kube-system:cloud-node-lifecycle-controller", "the cloud controller"},
    {"system:serviceaccount:kube-system:cluster-autoscaler", "the autoscaler"},
    {"cluster-autoscaler", "the autoscaler"},
    {"nlc-", "node-controller (its log)"},
    {"cloud-", "the cloud controller (its log)"},
    {"ca-", "the autoscaler (its log)"},
    {"kubelet", "the kubelet (its log)"},
    {"node-", "the kubelet (its log)"},
};

/* ?1: the node; who wrote the start and the end: an audit user, else a line's kind. */
#define TL_WRITER(ref)                                                                             \
	"CASE WHEN " ref " > 0 THEN (SELECT s FROM strs WHERE id = (SELECT user_id FROM audit"     \
	" WHERE id = " ref ")) WHEN " ref " < 0 THEN (SELECT coalesce((SELECT s FROM strs"         \
	" WHERE id = g.kind_id), (SELECT s FROM strs WHERE id = g.component_id)) FROM lines AS g"  \
	" WHERE g.id = -" ref ") END"
static const char tl_health_sql[] =
    "SELECT w.start_us, w.end_us, w.condition, w.cause, w.ended, w.evidence, w.reason,"
    " w.taints, w.evicted_pods, " TL_WRITER("w.start_ref") ", " TL_WRITER(
	"w.end_ref") ", w.start_ref FROM lt_notready AS w WHERE w.node_id = ?1 ORDER BY "
		     "w.start_us, w.id";

enum tl_health_col {
	TL_NR_START,
	TL_NR_END,
	TL_NR_CONDITION,
	TL_NR_CAUSE,
	TL_NR_ENDED,
	TL_NR_EVIDENCE,
	TL_NR_REASON,
	TL_NR_TAINTS,
	TL_NR_EVICTED,
	TL_NR_START_BY,
	TL_NR_END_BY,
	TL_NR_START_REF,
};

/* "WHAT by WHO" for the writer in column col; WHAT alone when unknown, unless bare is 0. */
static void tl_writer(struct lt_buf *b, const char *what, const struct lt_stmt *q, int col,
		      int bare)
{
	const char *s = lt_stmt_type(q, col) == LT_COL_NULL ? NULL : lt_stmt_text(q, col, NULL);
	const char *who = s != NULL && s[0] != '\0' ? s : NULL;

	for (size_t i = 0; who != NULL && i < sizeof tl_writers / sizeof *tl_writers; i++)
		if (strncmp(s, tl_writers[i].prefix, strlen(tl_writers[i].prefix)) == 0) {
			who = tl_writers[i].who;
			break;
		}
	if (who != NULL)
		lt_buf_printf(b, "; %s by %s", what, who);
	else if (bare)
		lt_buf_printf(b, "; %s", what);
}

/* "+NAME:EFFECT,-NAME:EFFECT" as "; taints added NAME:EFFECT, ...; removed ...". */
static void tl_taints(struct lt_buf *b, const char *taints)
{
	static const struct {
		char sign;
		const char *verb;
	} dirs[] = {{'+', "added"}, {'-', "removed"}};
	int groups = 0;

	for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
		int n = 0;

		for (const char *p = taints; *p != '\0';) {
			size_t len = strcspn(p, ",");

			if (p[0] == dirs[d].sign && len > 1) {
				if (n++ == 0)
					lt_buf_printf(b, "; %s%s ", groups++ ? "" : "taints ",
						      dirs[d].verb);
				else
					lt_buf_printf(b, ", ");
				lt_buf_printf(b, "%.*s", (int)(len - 1), p + 1);
			}
			p += len + (p[len] == ',');
		}
	}
}

static char *tl_health_detail(const struct lt_stmt *q)
{
	const char *reason = lt_stmt_text(q, TL_NR_REASON, NULL);
	const char *taints = lt_stmt_text(q, TL_NR_TAINTS, NULL);
	int64_t evicted = lt_stmt_int(q, TL_NR_EVICTED);
	struct lt_buf b;

	lt_buf_init(&b);
	lt_buf_printf(&b, "Ready=%s, cause %s", lt_stmt_text(q, TL_NR_CONDITION, NULL),
		      lt_stmt_text(q, TL_NR_CAUSE, NULL));
	tl_writer(&b, "marked", q, TL_NR_START_BY, 0);
	if (lt_stmt_type(q, TL_NR_END) != LT_COL_NULL)
		tl_writer(&b, lt_stmt_text(q, TL_NR_ENDED, NULL), q, TL_NR_END_BY, 1);
	else
		lt_buf_printf(&b, "; still NotReady at the end of the logs");
	if (reason != NULL && reason[0] != '\0')
		lt_buf_printf(&b, "; kubelet: %s", reason);
	if (taints != NULL)
		tl_taints(&b, taints);
	if (evicted > 0)
		lt_buf_printf(&b, "; %lld pod%s evicted (query evictions)", (long long)evicted,
			      evicted == 1 ? "" : "s");
	lt_buf_printf(&b, " [%s]", lt_stmt_text(q, TL_NR_EVIDENCE, NULL));
	return b.ptr;
}

/* Each NotReady window of the node: one row, open ones up to the end of the logs. */
static int tl_health_rows(struct tl *t, struct lt_error *err)
{
	struct lt_stmt *q;
	int64_t end = lt_store_end_us(t->st);
	int rc;

	if (t->node == 0 || !queries_has_health(t->st))
		return 0;
	if ((rc = lt_store_prepare(t->st, &q, tl_health_sql, err)) != 0)
		return rc;
	lt_stmt_bind_int(q, 1, t->node);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		int64_t start = lt_stmt_int(q, TL_NR_START);
		int open = lt_stmt_type(q, TL_NR_END) == LT_COL_NULL;
		struct tl_row row = {
		    .start = start,
		    .end = open ? (end > start ? end : start) : lt_stmt_int(q, TL_NR_END),
		    .count = 1,
		    .kind = LT_EP_NOT_READY,
		    .detail = tl_health_detail(q),
		    .source = lt_xstrdup("node-health"),
		    .ref = lt_stmt_int(q, TL_NR_START_REF),
		};

		tl_add(t, &row);
	}
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
/* the line's message (its text, or read from its raw line: schema 8) */
#define TL_MSG LT_LINE_MESSAGE_SQL("g")
/* its fields (read from its raw line where they are a mark: schema 10) */
#define TL_FLD LT_LINE_FIELDS_SQL("g")

static const char tl_lines_sql[] =
    "SELECT g.ts_us, coalesce((SELECT s FROM strs WHERE id = g.component_id), 'log'),"
    " (SELECT s FROM strs WHERE id = g.kind_id), g.severity,"
    /* a structured LeaderElection event says what happened in its message field */
    " CASE WHEN g.kind_id = (SELECT id FROM strs WHERE s = 'became-leader')"
    "  AND json_valid(" TL_FLD ") THEN coalesce(json_extract(" TL_FLD ", "
    "'$.message'), " TL_MSG ")"
    "  ELSE " TL_MSG " END,"
    " CASE WHEN json_valid(" TL_FLD ") THEN json_extract(" TL_FLD ", '$.err') END, "
    "g.id,"
    " (SELECT s FROM strs WHERE id = g.obj_kind_id),"
    " (SELECT s FROM strs WHERE id = g.obj_namespace_id),"
    " (SELECT s FROM strs WHERE id = g.subject_id)"
    " FROM lines AS g WHERE g.id IN ("
    "  SELECT id FROM lines_row INDEXED BY lines_notable WHERE node_id = ?1"
    "   AND " LT_LINE_NOTABLE " AND ?3 = 0"
    "  UNION ALL SELECT id FROM lines_row INDEXED BY lines_node WHERE node_id = ?1 AND ?3 = 1"
    "  UNION SELECT id FROM lines_row INDEXED BY lines_subject WHERE subject_id = ?2)"
    " ORDER BY g.ts_us, g.id";

enum tl_line_col {
	TL_LINE_TS,
	TL_LINE_COMPONENT,
	TL_LINE_KIND,
	TL_LINE_SEVERITY,
	TL_LINE_MESSAGE,
	TL_LINE_ERR,
	TL_LINE_ID,
	TL_LINE_OBJ_KIND,
	TL_LINE_OBJ_NAMESPACE,
	TL_LINE_SUBJECT,
};

/* The line's kind as the parser's table names it (a static string), else by severity. */
static const char *tl_line_kind(const struct lt_stmt *q)
{
	const char *sev = lt_stmt_type(q, TL_LINE_SEVERITY) == LT_COL_NULL
			      ? ""
			      : lt_stmt_text(q, TL_LINE_SEVERITY, NULL);

	if (lt_stmt_type(q, TL_LINE_KIND) != LT_COL_NULL) {
		for (const struct lt_log_kind *k = lt_log_kinds(); k->kind; k++)
			if (strcmp(k->kind, lt_stmt_text(q, TL_LINE_KIND, NULL)) == 0)
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

static void tl_line(struct tl *t, const struct lt_stmt *q, size_t first_log,
		    const struct lt_query_opts *o)
{
	struct tl_row row = {0}, *run;
	struct lt_buf key, detail;
	int64_t ts = lt_stmt_int(q, TL_LINE_TS);
	const char *kind = tl_line_kind(q), *msg = lt_stmt_text(q, TL_LINE_MESSAGE, NULL);
	const char *ns = lt_stmt_text(q, TL_LINE_OBJ_NAMESPACE, NULL);
	const char *component = lt_stmt_text(q, TL_LINE_COMPONENT, NULL);

	lt_buf_init(&key);
	lt_buf_init(&detail);
	lt_buf_printf(&detail, "%s", msg);
	if (lt_stmt_type(q, TL_LINE_OBJ_KIND) != LT_COL_NULL) /* a garbage collector item */
		lt_buf_printf(&detail, " %s %s%s%s", lt_stmt_text(q, TL_LINE_OBJ_KIND, NULL), ns,
			      ns[0] ? "/" : "", lt_stmt_text(q, TL_LINE_SUBJECT, NULL));
	lt_buf_printf(&key, "%s\t%s\t%s", component, kind, detail.ptr);
	if (!o->verbose && (run = tl_run_of(t, first_log, key.ptr, ts)) != NULL) {
		run->end = ts;
		run->count++;
		lt_buf_release(&key);
		lt_buf_release(&detail);
		return;
	}
	if (lt_stmt_type(q, TL_LINE_ERR) != LT_COL_NULL)
		lt_buf_printf(&detail, " err=%s", lt_stmt_text(q, TL_LINE_ERR, NULL));
	lt_buf_printf(&detail, " (line L%lld)", (long long)lt_stmt_int(q, TL_LINE_ID));
	row = (struct tl_row){.start = ts,
			      .end = ts,
			      .count = 1,
			      .log_kind = kind,
			      .detail = detail.ptr,
			      .source = lt_xstrdup(component),
			      .key = key.ptr,
			      .ref = -lt_stmt_int(q, TL_LINE_ID)};
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
		tl_line(t, q, first_log, o);
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

static int tl_cmp(const void *a, const void *b)
{
	const struct tl_row *x = a, *y = b;

	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	if (tl_is_node(x) != tl_is_node(y)) /* a node delete before the lease delete it causes */
		return tl_is_node(y) - tl_is_node(x);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Finds what target names: "NS/LEASE", or a node (its kube-node-lease lease and Node). */
static int tl_resolve(struct tl *t, const char *target, struct lt_error *err)
{
	const char *slash = strchr(target, '/');

	t->leases_id = queries_str_id(t->st, "leases");
	t->nodes_id = queries_str_id(t->st, "nodes");
	if (slash != NULL) {
		char *ns = lt_xstrndup(target, (size_t)(slash - target));

		t->ns = queries_str_id(t->st, ns);
		t->lease = queries_str_id(t->st, slash + 1);
		t->subject = queries_str_id(t->st, target); /* leader election lines name NS/NAME */
		free(ns);
	} else {
		t->ns = queries_str_id(t->st, "kube-node-lease");
		t->lease = t->node = t->subject = queries_str_id(t->st, target);
		t->kubelet = queries_kubelet_id(t->st, target);
	}
	if (t->lease == 0 && t->node == 0 && t->subject == 0)
		return lt_error_set(err, LT_ERR_NOTFOUND, "no lease or node named '%s' in %s",
				    target, lt_store_path(t->st));
	return 0;
}

static const struct lt_col tl_cols[LT_TL_NCOLS + 1] = {
    [LT_TL_START] = {.name = "start", .type = LT_CELL_TIME},
    [LT_TL_END] = {.name = "end", .type = LT_CELL_TIME},
    [LT_TL_SOURCE] = {.name = "source", .type = LT_CELL_TEXT},
    [LT_TL_KIND] = {.name = "kind", .type = LT_CELL_KIND},
    [LT_TL_COUNT] = {.name = "count", .type = LT_CELL_INT},
    [LT_TL_DETAIL] = {.name = "detail", .type = LT_CELL_TEXT, .flags = LT_COL_FREE_TEXT},
    [LT_TL_IDENTITY] = {.name = "identity", .type = LT_CELL_TEXT, .flags = LT_COL_FREE_TEXT},
    [LT_TL_REF] = {.name = "ref", .type = LT_CELL_INT},
};

/*
 * The requests behind a row: its object's inside [from, to] (?1, ?2) that the
 * quick filters keep (QUERIES_FILTER_WHERE; none given: all), listed under it
 * with -v; under a filter, a row is shown only when one of them is there.
 */
#define TL_REQS_OF_ROW                                                                             \
	" FROM audit AS a" QUERIES_FILTER_WHERE " AND a.resource_id = ?13"                         \
	" AND a.namespace_id IS ?14 AND a.name_id = ?15"
static const char tl_events_sql[] =
    "SELECT e.ts_us, e.verb, e.code, e.user, e.source_ip, e.id, e.identity FROM events AS e"
    " WHERE e.id IN (SELECT a.id" TL_REQS_OF_ROW ") ORDER BY e.ts_us, e.id";
static const char tl_any_sql[] = "SELECT 1" TL_REQS_OF_ROW " LIMIT 1";

enum tl_req_bind {
	TL_REQ_RESOURCE = QUERIES_FILTER_NEXT,
	TL_REQ_NAMESPACE,
	TL_REQ_NAME,
};

enum tl_event_col {
	TL_EV_TS,
	TL_EV_VERB,
	TL_EV_CODE,
	TL_EV_USER,
	TL_EV_IP,
	TL_EV_ID,
	TL_EV_IDENTITY
};

/* The statements reading a row's requests, prepared once for a timeline. */
struct tl_reqs {
	struct lt_stmt *list; /* -v: tl_events_sql */
	struct lt_stmt *any;  /* a filter: tl_any_sql */
	struct queries_filter_pats pats;
};

static void tl_event_row(const struct lt_stmt *q, const struct lt_row_sink *out)
{
	char buf[512];
	struct lt_cell cells[LT_TL_NCOLS + 1] = {
	    [LT_TL_START] = lt_cell_int(LT_CELL_TIME, lt_stmt_int(q, TL_EV_TS)),
	    [LT_TL_END] = lt_cell_null(),
	    [LT_TL_SOURCE] = lt_cell_text("audit"),
	    [LT_TL_KIND] = lt_cell_text("event"),
	    [LT_TL_COUNT] = lt_cell_null(),
	    [LT_TL_IDENTITY] = lt_stmt_type(q, TL_EV_IDENTITY) == LT_COL_NULL
				   ? lt_cell_null()
				   : lt_cell_text(lt_stmt_text(q, TL_EV_IDENTITY, NULL)),
	    [LT_TL_REF] = lt_cell_int(LT_CELL_INT, lt_stmt_int(q, TL_EV_ID)),
	};

	snprintf(buf, sizeof buf, "%s %lld %s from %s (event %lld)",
		 lt_stmt_text(q, TL_EV_VERB, NULL), (long long)lt_stmt_int(q, TL_EV_CODE),
		 lt_stmt_text(q, TL_EV_USER, NULL), lt_stmt_text(q, TL_EV_IP, NULL),
		 (long long)lt_stmt_int(q, TL_EV_ID));
	cells[LT_TL_DETAIL] = lt_cell_text(buf);
	out->row(out->ctx, cells);
}

/* Binds q to row r's requests inside [from, to] under o's filters, ready to step. */
static void tl_reqs_bind(struct tl *t, struct tl_reqs *rq, struct lt_stmt *q,
			 const struct tl_row *r, const struct lt_query_opts *o, int64_t from,
			 int64_t to)
{
	int node = tl_is_node(r);

	lt_stmt_reset(q);
	queries_filter_bind(q, o, r->start > from ? r->start : from, r->end < to ? r->end : to,
			    &rq->pats);
	lt_stmt_bind_int(q, TL_REQ_RESOURCE, node ? t->nodes_id : t->leases_id);
	if (node) /* a Node has no namespace */
		lt_stmt_bind_null(q, TL_REQ_NAMESPACE);
	else
		lt_stmt_bind_int(q, TL_REQ_NAMESPACE, t->ns);
	lt_stmt_bind_int(q, TL_REQ_NAME, node ? t->node : t->lease);
}

static int tl_events(struct tl *t, struct tl_reqs *rq, const struct tl_row *r,
		     const struct lt_query_opts *o, int64_t from, int64_t to,
		     const struct lt_row_sink *out, struct lt_error *err)
{
	int rc;

	tl_reqs_bind(t, rq, rq->list, r, o, from, to);
	while ((rc = lt_stmt_step(rq->list, err)) == 1)
		tl_event_row(rq->list, out);
	return rc < 0 ? rc : 0;
}

/*
 * Whether row r shows under o's quick filters: always without one; with one,
 * only a row that rests on requests (a lease episode or a Node object row, not
 * a GAP or STALE, which are the absence of requests, nor a log line or a
 * NotReady window) and has one that the filters keep, as -v would list it.
 */
static int tl_filter_keeps(struct tl *t, struct tl_reqs *rq, const struct tl_row *r,
			   const struct lt_query_opts *o, int64_t from, int64_t to,
			   struct lt_error *err)
{
	int rc;

	if (!lt_filter_any(&o->filter))
		return 1;
	if (r->source != NULL || r->kind == LT_EP_GAP || r->kind == LT_EP_STALE)
		return 0;
	tl_reqs_bind(t, rq, rq->any, r, o, from, to);
	rc = lt_stmt_step(rq->any, err);
	return rc; /* 1 a request, 0 none, < 0 an error */
}

/*
 * The kinds whose request has no actor of its own to show: a gap or a stale
 * end is the absence of requests, a holder change and a NotReady window are
 * inferred from several.
 */
static int tl_has_actor(const struct tl_row *r)
{
	return r->source == NULL && r->ref > 0 && r->kind != LT_EP_GAP && r->kind != LT_EP_STALE &&
	       r->kind != LT_EP_HOLDER_CHANGE && r->kind != LT_EP_NOT_READY;
}

/* The identity behind the row's request (LT_IDENTITY_SQL), in q's row; NULL cell when none. */
static struct lt_cell tl_identity(struct lt_stmt *q, const struct tl_row *r)
{
	if (q == NULL || !tl_has_actor(r))
		return lt_cell_null();
	lt_stmt_reset(q);
	lt_stmt_bind_int(q, 1, r->ref);
	if (lt_stmt_step(q, NULL) != 1 || lt_stmt_type(q, 0) == LT_COL_NULL)
		return lt_cell_null();
	return lt_cell_text(lt_stmt_text(q, 0, NULL));
}

/* A row as typed cells: the query layer's kinds as kinds, a log line's as its text. */
static void tl_cells(const struct tl_row *r, struct lt_cell cells[LT_TL_NCOLS + 1])
{
	cells[LT_TL_START] = lt_cell_int(LT_CELL_TIME, r->start);
	cells[LT_TL_END] = lt_cell_int(LT_CELL_TIME, r->end);
	cells[LT_TL_SOURCE] = lt_cell_text(r->source ? r->source : "audit");
	cells[LT_TL_KIND] =
	    r->log_kind ? lt_cell_text(r->log_kind) : lt_cell_int(LT_CELL_KIND, r->kind);
	cells[LT_TL_COUNT] = lt_cell_int(LT_CELL_INT, r->count);
	cells[LT_TL_DETAIL] = lt_cell_text(r->detail);
	cells[LT_TL_REF] = r->ref ? lt_cell_int(LT_CELL_INT, r->ref) : lt_cell_null();
}

static int tl_emit(struct tl *t, const struct lt_query_opts *o, const struct lt_row_sink *out,
		   struct lt_error *err)
{
	int64_t until = o->until_us ? o->until_us : INT64_MAX;
	struct lt_cell cells[LT_TL_NCOLS + 1];
	struct lt_stmt *who = NULL;
	struct tl_reqs rq = {.list = NULL, .any = NULL};
	int begun = 0;
	int rc = lt_store_prepare(
	    t->st, &who, "SELECT " LT_IDENTITY_SQL("a") " FROM audit AS a WHERE a.id = ?1", err);

	queries_filter_pats_init(&rq.pats);
	/* only what will run: a prepare over the events view compiles its every column (~1 ms) */
	if (rc == 0 && o->verbose)
		rc = lt_store_prepare(t->st, &rq.list, tl_events_sql, err);
	if (rc == 0 && lt_filter_any(&o->filter))
		rc = lt_store_prepare(t->st, &rq.any, tl_any_sql, err);
	if (rc == 0) {
		out->begin(out->ctx, tl_cols, LT_TL_NCOLS + (o->refs != 0));
		begun = 1;
	}
	for (size_t i = 0; i < t->n && rc == 0; i++) {
		const struct tl_row *r = &t->rows[i];
		int keep;

		if (r->end < o->since_us || r->start > until)
			continue;
		if ((keep = tl_filter_keeps(t, &rq, r, o, o->since_us, until, err)) <= 0) {
			rc = keep;
			continue;
		}
		tl_cells(r, cells);
		cells[LT_TL_IDENTITY] = tl_identity(who, r);
		out->row(out->ctx, cells);
		if (o->verbose && r->source == NULL)
			rc = tl_events(t, &rq, r, o, o->since_us, until, out, err);
	}
	if (begun)
		out->end(out->ctx);
	lt_stmt_free(who);
	lt_stmt_free(rq.list);
	lt_stmt_free(rq.any);
	queries_filter_pats_release(&rq.pats);
	return rc;
}

int lt_query_timeline(struct lt_store *st, const char *target, const struct lt_query_opts *o,
		      const struct lt_row_sink *out, struct lt_error *err)
{
	struct tl t = {.st = st};
	int rc = tl_resolve(&t, target, err);

	/* the lease's cluster: --cluster's, else the one cluster (the first) that has it */
	t.cluster = queries_lease_cluster(st, o->cluster, t.ns, t.lease);
	if (rc == 0)
		rc = tl_lease_rows(&t, o, err);
	if (rc == 0)
		rc = tl_stale_row(&t, err);
	if (rc == 0)
		rc = tl_node_rows(&t, err);
	if (rc == 0)
		rc = tl_health_rows(&t, err);
	if (rc == 0)
		rc = tl_log_rows(&t, o, err);
	if (rc == 0) {
		if (t.n > 1) /* no rows: t.rows is NULL, which qsort may not be given */
			qsort(t.rows, t.n, sizeof *t.rows, tl_cmp);
		rc = tl_emit(&t, o, out, err);
	}
	for (size_t i = 0; i < t.n; i++) {
		free(t.rows[i].detail);
		free(t.rows[i].source);
		free(t.rows[i].key);
	}
	free(t.rows);
	return rc;
}
