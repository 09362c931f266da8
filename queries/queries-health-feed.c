/*
 * queries-health-feed.c - a node's facts, read from the store, for the builder.
 *
 * Four streams, each in time order, merged as they are read (memory stays
 * bounded however long the logs are):
 *
 *   audit    the Node object's requests: who wrote its status, who PATCHed
 *            it (taints), who deleted it, a kubelet's 409 on create
 *   lease    the node lease's episodes: a RENEWING run's start and end are
 *            the node's signs of life (every renew in between says nothing new)
 *   lines    the node's own log lines and the controllers' lines about it,
 *            of the kinds the table below turns into facts
 *   evicted  the pods the taint-eviction controller deleted that a kubelet
 *            line of this node names (queries-health-store.c finds them)
 *
 * At RequestResponse level a Node body says more (read from audit_raw with
 * SQLite's JSON functions, only for this node's rows, and never for a
 * Metadata-level row: that level logs no body): the Ready condition
 * and its message, the taints (a node-controller PATCH becomes named adds
 * and removals, diffed against the last body seen) and the boot ID (a new
 * one is a reboot).  At Metadata level a node-controller PATCH is a taint
 * change whose direction the builder infers.  Audit times are corrected by
 * the estimated offset of their apiserver's stream (queries-health-skew.c),
 * so a taint is fed after the status write it answers.
 */
#include "queries-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The users whose writes mean something for node health (and HEALTH_NODE_CONTROLLER). */
#define HEALTH_AUTOSCALER "system:serviceaccount:kube-system:cluster-autoscaler"

/* Deleters of a Node whose instance was going away (the cloud or the autoscaler). */
static const char *const health_cloud_deleters[] = {
    "system:serviceaccount:kube-system:cloud-node-lifecycle-controller",
    "system:serviceaccount:kube-system:cluster-autoscaler",
    "system:serviceaccount:kube-system:node-controller", /* in-tree cloud providers */
    "cluster-autoscaler",
};

/* Log kinds (parser-classify.c) and the fact each one is. */
static const struct {
	const char *log_kind;
	enum queries_health_fact_kind fact;
} health_line_facts[] = {
    {"nlc-not-updated", QUERIES_HF_CTRL_UNKNOWN},
    {"nlc-unresponsive", QUERIES_HF_CTRL_UNKNOWN},
    {"nlc-status-change", QUERIES_HF_CTRL_UNKNOWN}, /* NodeReady: healthy, see below */
    {"nlc-not-ready", QUERIES_HF_CTRL_NOT_READY},
    {"nlc-healthy", QUERIES_HF_HEALTHY},
    {"nlc-taint", QUERIES_HF_TAINT_ADD}, /* "removing": a removal, see below */
    {"nlc-node-deleted", QUERIES_HF_NODE_DELETE},
    {"node-not-ready", QUERIES_HF_KUBELET_NOT_READY},
    {"pleg-unhealthy", QUERIES_HF_PLEG},
    {"runtime-down", QUERIES_HF_RUNTIME_DOWN},
    {"cni-not-ready", QUERIES_HF_CNI},
    {"kubelet-start", QUERIES_HF_KUBELET_START},
    {"kubelet-stop", QUERIES_HF_KUBELET_STOP},
    {"node-boot", QUERIES_HF_BOOT}, /* the journal's boot separator */
    {"nlc-taint-added", QUERIES_HF_TAINT_ADD},
    {"nlc-taint-removed", QUERIES_HF_TAINT_REMOVE},
    {"nlc-ready-now", QUERIES_HF_HEALTHY},
    {"cloud-node-deleted", QUERIES_HF_NODE_DELETE}, /* the instance is gone: by the cloud */
    {"ca-scale-down", QUERIES_HF_SCALE_DOWN},
    {"lease-update-failed", QUERIES_HF_CONN_ERROR}, /* only with a connection error */
    {"lease-ensure-failed", QUERIES_HF_CONN_ERROR},
    {"node-status-error", QUERIES_HF_CONN_ERROR},
    {"node-status-retry-exceeded", QUERIES_HF_CONN_ERROR},
};
#define HEALTH_LINE_KINDS (sizeof health_line_facts / sizeof *health_line_facts)

/* The nodes named by a log line of a kind (?1, its name) that opens a window, into
 * temp.health_cand.  The kind's id is looked up in the statement, so a failure there (SQLite out
 * of memory) is this statement's error: swallowed, it could leave the ingest's transaction rolled
 * back under the rebuild (fault.sweep). */
static const char health_cand_lines_sql[] =
    "INSERT OR IGNORE INTO temp.health_cand(node_id) SELECT v FROM (SELECT g.node_id AS v"
    " FROM lines AS g WHERE g.kind_id = (SELECT id FROM strs WHERE s = ?1) UNION SELECT"
    " g.subject_id FROM lines AS g WHERE g.kind_id = (SELECT id FROM strs WHERE s = ?1))"
    " WHERE v IS NOT NULL";

int queries_health_line_candidates(struct lt_store *st, struct lt_error *err)
{
	struct lt_stmt *q = NULL;
	int rc = lt_store_prepare(st, &q, health_cand_lines_sql, err);

	for (size_t i = 0; rc == 0 && i < HEALTH_LINE_KINDS; i++) {
		if (!queries_health_fact_opens(health_line_facts[i].fact))
			continue;
		lt_stmt_reset(q);
		lt_stmt_bind_text(q, 1, health_line_facts[i].log_kind, (size_t)-1);
		rc = lt_stmt_step(q, err) < 0 ? LT_ERR_DB : 0;
	}
	lt_stmt_free(q);
	return rc;
}

/* Words of a failed request that never reached the apiserver (or got no answer). */
static const char *const health_conn_words[] = {
    "i/o timeout",	     "context deadline exceeded", "Client.Timeout exceeded",
    "connection refused",    "request canceled",	  "connection lost",
    "no route to host",	     "connection reset",	  "use of closed network connection",
    "TLS handshake timeout",
};

#define HEALTH_PEND	  6
#define HEALTH_TAINTS_MAX 512

/* The ids one node's facts are read with, and what its last Node body said. */
struct health_ids {
	int64_t nodes, metadata, kube_node_lease, node, kubelet, node_controller, autoscaler;
	int64_t pods, delete_verb, update_verb, patch_verb;
	int64_t cloud[sizeof health_cloud_deleters / sizeof *health_cloud_deleters];
	int64_t line_kind[HEALTH_LINE_KINDS];
	char text[128]; /* a log line fact's taint name */
	/* from the last RequestResponse body of the Node ("" until one is seen) */
	char taints[HEALTH_TAINTS_MAX]; /* "NAME:EFFECT,..." */
	char ready[16], boot[64];
	int have_body;
};

static int health_has_word(const char *msg, const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(msg, words[i]) != NULL)
			return 1;
	return 0;
}

/* ---- the audit stream ------------------------------------------------------ */

/* A Node body's taints, Ready and boot ID (body: the JSON text of the Node, or NULL). */
#define HEALTH_BODY(body)                                                                          \
	" (SELECT group_concat(json_extract(t.value, '$.key') || ':' ||"                           \
	" json_extract(t.value, '$.effect'), ',') FROM json_each(" body ", '$.spec.taints')"       \
	" AS t), (SELECT json_extract(c.value, '$.status') FROM json_each(" body                   \
	", '$.status.conditions') AS c WHERE json_extract(c.value, '$.type') = 'Ready'),"          \
	" (SELECT json_extract(c.value, '$.message') FROM json_each(" body                         \
	", '$.status.conditions') AS c WHERE json_extract(c.value, '$.type') = 'Ready'),"          \
	" json_extract(" body ", '$.status.nodeInfo.bootID')"

/* The Node a write answered with: an audit Event's responseObject, a GKE entry's response. */
#define HEALTH_NODE QUERIES_RAW_BODY("r", "response")

enum health_audit_col { HA_ID, HA_TS, HA_VERB, HA_SUB, HA_USER, HA_CODE, HA_SOURCE, HA_BODY };
/* the raw record is read only for a write's answer (?4 update, ?5 patch: only a write's body
 * moves or reports anything) at a level with bodies (not Metadata: ?3);
 * the time on its cluster's reference clock: its stream's offset (a file's, or its CloudWatch
 * log stream's) */
static const char health_audit_sql[] =
    "SELECT a.id, a.stage_us + coalesce((SELECT k.offset_us FROM temp.health_skew AS k"
    " WHERE k.source_id = a.source_id AND k.cluster_id = a.cluster_id AND k.stream = ''),"
    " (SELECT k.offset_us FROM temp.health_skew AS k WHERE k.source_id = a.source_id"
    " AND k.cluster_id = a.cluster_id AND k.stream ="
    " " LT_AUDIT_STREAM_SQL(
	"a.id") "), 0) AS ts, (SELECT s FROM strs "
		"WHERE id = a.verb_id),"
		" coalesce((SELECT s FROM strs WHERE id = a.subresource_id), ''), a.user_id, "
		"a.code,"
		" a.source_id, " HEALTH_NODE
		" FROM audit AS a LEFT JOIN audit_raw AS r ON r.id = a.id"
		" AND a.code BETWEEN 200 AND 299 AND a.level_id IS NOT ?3 AND a.verb_id IN (?4, ?5)"
		" WHERE a.resource_id = ?1 AND a.namespace_id IS NULL AND a.name_id = ?2"
		" AND a.superseded = 0 ORDER BY ts, a.id";

/* What a Node body (?1, the object's JSON text, cut from its record once) says: read apart from
 * the record, which each of these would otherwise parse whole again (issue 14's cost at ingest,
 * bench/RESULTS.md). */
enum health_body_col { HB_NODE, HB_TAINTS, HB_READY, HB_MESSAGE, HB_BOOT };
static const char health_body_sql[] =
    "SELECT json_extract(?1, '$.kind') = 'Node'," HEALTH_BODY("?1");

static int health_is_cloud(const struct health_ids *ids, int64_t user)
{
	for (size_t i = 0; i < sizeof ids->cloud / sizeof *ids->cloud; i++)
		if (ids->cloud[i] != 0 && ids->cloud[i] == user)
			return 1;
	return 0;
}

static enum queries_health_actor health_actor(const struct health_ids *ids, int64_t user)
{
	if (user != 0 && user == ids->node_controller)
		return QUERIES_ACTOR_NODE_CONTROLLER;
	if (user != 0 && user == ids->kubelet)
		return QUERIES_ACTOR_KUBELET;
	if (user != 0 && user == ids->autoscaler)
		return QUERIES_ACTOR_AUTOSCALER;
	return health_is_cloud(ids, user) ? QUERIES_ACTOR_CLOUD : QUERIES_ACTOR_OTHER;
}

/* The audit stream's facts of one row (several when a body names taints). */
struct health_pending {
	struct queries_health_fact f[HEALTH_PEND];
	char text[HEALTH_PEND][512]; /* taint names, or the kubelet's Ready=False message */
	size_t n, next;
};

static struct queries_health_fact *health_pend(struct health_pending *p,
					       const struct queries_health_fact *base,
					       enum queries_health_fact_kind kind)
{
	struct queries_health_fact *f = &p->f[p->n < HEALTH_PEND ? p->n++ : HEALTH_PEND - 1];

	*f = *base;
	f->kind = kind;
	return f;
}

/* Is "NAME:EFFECT" (len n) in the comma list set? */
static int health_taint_in(const char *set, const char *t, size_t n)
{
	for (const char *p = set; *p;) {
		size_t m = strcspn(p, ",");

		if (m == n && memcmp(p, t, n) == 0)
			return 1;
		p += m + (p[m] == ',');
	}
	return 0;
}

/* One fact per taint in a but not in b (adds when a is the new set, removals when b is). */
static void health_taint_diff(struct health_pending *p, const struct queries_health_fact *base,
			      const char *a, const char *b, enum queries_health_fact_kind kind)
{
	for (const char *t = a; *t;) {
		size_t m = strcspn(t, ",");

		if (m > 0 && m < sizeof p->text[0] && !health_taint_in(b, t, m) &&
		    p->n < HEALTH_PEND) {
			struct queries_health_fact *f = health_pend(p, base, kind);

			memcpy(p->text[p->n - 1], t, m);
			p->text[p->n - 1][m] = '\0';
			f->text = p->text[p->n - 1];
			f->text_len = m;
		}
		t += m + (t[m] == ',');
	}
}

static void health_copy(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = 0; /* too long to compare: as if unknown */
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A RequestResponse body: the facts it adds, and the Node as it now is. */
static void health_body_facts(struct health_pending *p, struct health_ids *ids,
			      const struct queries_health_fact *base, const struct lt_stmt *q,
			      int write, int status, int ctrl_patch, int kubelet_status)
{
	const char *taints = lt_stmt_text(q, HB_TAINTS, NULL);
	const char *ready = lt_stmt_text(q, HB_READY, NULL);
	const char *boot = lt_stmt_text(q, HB_BOOT, NULL);

	if (ctrl_patch && ids->have_body) {
		health_taint_diff(p, base, taints, ids->taints, QUERIES_HF_TAINT_ADD);
		health_taint_diff(p, base, ids->taints, taints, QUERIES_HF_TAINT_REMOVE);
	} else if (ctrl_patch) {
		health_pend(p, base, QUERIES_HF_TAINT_PATCH);
	}
	if (kubelet_status && ids->boot[0] && boot[0] && strcmp(boot, ids->boot) != 0)
		health_pend(p, base, QUERIES_HF_BOOT);
	if (kubelet_status && strcmp(ready, "False") == 0 && strcmp(ids->ready, "False") != 0) {
		struct queries_health_fact *f = health_pend(p, base, QUERIES_HF_KUBELET_NOT_READY);
		const char *msg = lt_stmt_text(q, HB_MESSAGE, NULL);

		health_copy(p->text[p->n - 1], sizeof p->text[0], msg);
		f->text = p->text[p->n - 1];
		f->text_len = strlen(f->text);
	} else if (kubelet_status && strcmp(ready, "True") == 0 && ids->ready[0] &&
		   strcmp(ids->ready, "True") != 0) {
		health_pend(p, base, QUERIES_HF_KUBELET_READY);
	}
	/* only a write moves the state, and only the part its writer owns (a status write: Ready
	 * and the boot ID; another write: the taints), or what is not known yet: a spec write
	 * answering a status write (a node-controller PATCH logged by another apiserver, its clock
	 * estimated a few ms off, fed just before it) already shows what that write made, and
	 * taken as the state it would hide that write's change */
	if (!write)
		return;
	if (!kubelet_status)
		health_copy(ids->taints, sizeof ids->taints, taints);
	if (ready[0] && (status || !ids->ready[0]))
		health_copy(ids->ready, sizeof ids->ready, ready);
	if (boot[0] && (status || !ids->boot[0]))
		health_copy(ids->boot, sizeof ids->boot, boot);
	ids->have_body = 1;
}

/* An audit row as facts into p (none when it says nothing about health). */
/* The Node body of row q read by b (stepped on it): 1 when q's row has one, else 0 (b reset). */
static int health_body_read(struct lt_stmt *b, const struct lt_stmt *q)
{
	size_t n;
	const char *body;

	lt_stmt_reset(b);
	if (lt_stmt_type(q, HA_BODY) == LT_COL_NULL)
		return 0;
	body = lt_stmt_text(q, HA_BODY, &n);
	lt_stmt_bind_text(b, 1, body, n);
	return lt_stmt_step(b, NULL) == 1 && lt_stmt_int(b, HB_NODE) == 1;
}

static void health_audit_facts(struct health_pending *p, struct health_ids *ids,
			       const struct lt_stmt *q, struct lt_stmt *b)
{
	const char *verb = lt_stmt_text(q, HA_VERB, NULL);
	int status = strcmp(lt_stmt_text(q, HA_SUB, NULL), "status") == 0;
	int64_t user = lt_stmt_int(q, HA_USER), code = lt_stmt_int(q, HA_CODE);
	int write = strcmp(verb, "update") == 0 || strcmp(verb, "patch") == 0;
	int ok = code >= 200 && code < 300;
	enum queries_health_actor who = health_actor(ids, user);
	struct queries_health_fact base = {.ts = lt_stmt_int(q, HA_TS),
					   .source = QUERIES_HEALTH_AUDIT,
					   .actor = who,
					   .ref = lt_stmt_int(q, HA_ID)};

	p->n = p->next = 0;
	if (strcmp(verb, "create") == 0 && code == 409 && who == QUERIES_ACTOR_KUBELET)
		health_pend(p, &base, QUERIES_HF_REREGISTER);
	if (!ok)
		return;
	if (strcmp(verb, "delete") == 0) {
		health_pend(p, &base, QUERIES_HF_NODE_DELETE)->flags =
		    health_is_cloud(ids, user) ? QUERIES_HEALTH_BY_CLOUD : 0;
		return;
	}
	if (write && who == QUERIES_ACTOR_NODE_CONTROLLER && status)
		health_pend(p, &base, QUERIES_HF_CTRL_UNKNOWN);
	if (write && status && who == QUERIES_ACTOR_KUBELET)
		health_pend(p, &base, QUERIES_HF_KUBELET_STATUS);
	if (write && !status && who == QUERIES_ACTOR_AUTOSCALER)
		health_pend(p, &base, QUERIES_HF_SCALE_DOWN);
	if (health_body_read(b, q))
		health_body_facts(p, ids, &base, b, write, status,
				  write && !status && who == QUERIES_ACTOR_NODE_CONTROLLER,
				  write && status && who == QUERIES_ACTOR_KUBELET);
	else if (write && !status && who == QUERIES_ACTOR_NODE_CONTROLLER)
		health_pend(p, &base, QUERIES_HF_TAINT_PATCH);
}

/* ---- the lines and lease streams ---------------------------------------- */

enum health_lease_col { HL_START, HL_END, HL_FIRST };
static const char health_lease_sql[] =
    "SELECT e.start_us, e.end_us, e.first_event FROM lt_episodes AS e"
    " JOIN lt_leases AS l ON l.id = e.lease_id"
    " WHERE l.namespace_id = ?1 AND l.name_id = ?2"
    " AND e.kind IN ('CREATED', 'RENEWING', 'RE-CREATED') ORDER BY e.start_us, e.id";

/* the line's message (its text, or read from its raw line: schema 8) */
#define HEALTH_FEED_MSG LT_LINE_MESSAGE_SQL("g")
/* its fields (read from its raw line where they are a mark: schema 10) */
#define HEALTH_FEED_FLD LT_LINE_FIELDS_SQL("g")
enum health_line_col { HG_ID, HG_TS, HG_KIND, HG_MESSAGE, HG_FIELDS };
static const char health_line_sql[] =
    "SELECT g.id, g.ts_us, g.kind_id, coalesce(" HEALTH_FEED_MSG ", ''),"
    " coalesce(" HEALTH_FEED_FLD ", '')"
    " FROM lines AS g WHERE (g.node_id = ?1 OR g.subject_id = ?1) AND g.kind_id IS NOT NULL"
    " ORDER BY g.ts_us, g.id";

/* The evicted pods a kubelet line of this node names (temp.health_evicted, when built). */
enum health_evict_col { HE_TS, HE_REF };
static const char health_evict_sql[] =
    "SELECT ts_us, ref FROM temp.health_evicted WHERE node_id = ?1 ORDER BY ts_us";

/* The message of a "Node became not ready" line: in its fields (JSON, or a klog struct
 * "Message:..."); none when the line has none. */
static struct lt_str health_reason(const char *msg, const char *fields)
{
	static const struct {
		const char *key, *stop;
	} keys[] = {
	    {"\\\"message\\\":\\\"", "\\"}, /* a JSON object inside a JSON string */
	    {"\"message\":\"", "\""},
	    {"Message:", "}"},
	};
	const char *src = fields[0] ? fields : msg;

	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		const char *p = strstr(src, keys[i].key);

		if (p != NULL) {
			const char *v = p + strlen(keys[i].key), *e = v;

			while (*e && *e != keys[i].stop[0] && *e != '"' &&
			       strncmp(e, " LastHeartbeat", 14) != 0)
				e++;
			return (struct lt_str){v, (size_t)(e - v)};
		}
	}
	return (struct lt_str){NULL, 0}; /* "Recording NodeNotReady event ...": no message */
}

/* Controllers' kinds (the node lifecycle, cloud and autoscaler) come from controller logs. */
static enum queries_health_source health_line_source(const char *kind)
{
	static const char *const ctrl[] = {"nlc-", "cloud-", "ca-"};

	for (size_t i = 0; i < sizeof ctrl / sizeof *ctrl; i++)
		if (strncmp(kind, ctrl[i], strlen(ctrl[i])) == 0)
			return QUERIES_HEALTH_CTRL_LOG;
	return QUERIES_HEALTH_KUBELET_LOG;
}

/* "NAME:EFFECT" of the first "Key:NAME,...,Effect:EFFECT" (a v1.Taint printed by klog) in s. */
static size_t health_taint_text(const char *s, char *out, size_t size)
{
	const char *k = strstr(s, "Key:"), *e = k ? strstr(k, "Effect:") : NULL;
	size_t kn, en;

	if (k == NULL || e == NULL)
		return 0;
	k += 4;
	e += 7;
	kn = strcspn(k, ",}");
	en = strcspn(e, ",}");
	if (kn + en + 2 > size || kn == 0 || en == 0)
		return 0;
	memcpy(out, k, kn);
	out[kn] = ':';
	memcpy(out + kn + 1, e, en);
	out[kn + 1 + en] = '\0';
	return kn + 1 + en;
}

/* A log line as a fact; 0 when its kind or words say nothing about health. */
static int health_line_fact(struct queries_health_fact *f, struct health_ids *ids,
			    const struct lt_stmt *q)
{
	int64_t kind_id = lt_stmt_int(q, HG_KIND);
	const char *msg = lt_stmt_text(q, HG_MESSAGE, NULL);
	const char *fields = lt_stmt_text(q, HG_FIELDS, NULL);
	size_t k = 0;

	while (k < HEALTH_LINE_KINDS && ids->line_kind[k] != kind_id)
		k++;
	if (k == HEALTH_LINE_KINDS)
		return 0;
	*f = (struct queries_health_fact){.ts = lt_stmt_int(q, HG_TS),
					  .kind = health_line_facts[k].fact,
					  .source =
					      health_line_source(health_line_facts[k].log_kind),
					  .ref = -lt_stmt_int(q, HG_ID)};
	switch (f->kind) {
	case QUERIES_HF_CONN_ERROR:
		return health_has_word(msg, health_conn_words,
				       sizeof health_conn_words / sizeof *health_conn_words) ||
		       health_has_word(fields, health_conn_words,
				       sizeof health_conn_words / sizeof *health_conn_words);
	case QUERIES_HF_CTRL_UNKNOWN:
		if (strstr(msg, "NodeReady") != NULL || strstr(fields, "\"NodeReady\"") != NULL)
			f->kind = QUERIES_HF_HEALTHY;
		return 1;
	case QUERIES_HF_TAINT_ADD:
	case QUERIES_HF_TAINT_REMOVE:
		if (strncmp(msg, "Removing", 8) == 0 || strncmp(msg, "removing", 8) == 0)
			f->kind = QUERIES_HF_TAINT_REMOVE;
		f->text_len =
		    health_taint_text(fields[0] ? fields : msg, ids->text, sizeof ids->text);
		if (f->text_len == 0)
			f->text_len = health_taint_text(msg, ids->text, sizeof ids->text);
		f->text = f->text_len ? ids->text : NULL;
		/* "Made sure that Node X has no [] Taint": nothing was removed */
		return f->kind == QUERIES_HF_TAINT_ADD || f->text_len > 0 ||
		       strcmp(health_line_facts[k].log_kind, "nlc-taint-removed") != 0;
	case QUERIES_HF_NODE_DELETE:
		f->flags = strncmp(health_line_facts[k].log_kind, "cloud-", 6) == 0
			       ? QUERIES_HEALTH_BY_CLOUD
			       : 0;
		f->actor = f->flags ? QUERIES_ACTOR_CLOUD : QUERIES_ACTOR_NODE_CONTROLLER;
		return 1;
	case QUERIES_HF_KUBELET_NOT_READY: {
		struct lt_str r = health_reason(msg, fields);

		f->text = r.ptr;
		f->text_len = r.len;
		return 1;
	}
	default:
		return 1;
	}
}

/* ---- merging ----------------------------------------------------------------- */

enum { HS_AUDIT, HS_LEASE, HS_LINES, HS_EVICT, HS_COUNT };

/* One stream: its statement, its next fact, whether it has one. */
struct health_stream {
	struct lt_stmt *q;
	struct lt_stmt *body; /* audit stream: its rows' Node bodies read (health_body_sql) */
	struct queries_health_fact next;
	int have;
	int lease_end_pending;	       /* lease stream: the run's end is the next fact */
	int64_t lease_end, lease_last; /* lease stream: its facts never go back in time */
	struct health_pending pend;    /* audit stream: the facts of its current row */
};

static int health_lines_advance(struct health_stream *s, struct health_ids *ids,
				struct lt_error *err)
{
	int rc;

	s->have = 0;
	while ((rc = lt_stmt_step(s->q, err)) == 1)
		if (health_line_fact(&s->next, ids, s->q)) {
			s->have = 1;
			return 0;
		}
	return rc;
}

/* The audit stream: the next pending fact of its row, else of the next row that has one. */
static int health_audit_advance(struct health_stream *s, struct health_ids *ids,
				struct lt_error *err)
{
	int rc;

	s->have = 0;
	while (s->pend.next >= s->pend.n) {
		if ((rc = lt_stmt_step(s->q, err)) != 1)
			return rc;
		health_audit_facts(&s->pend, ids, s->q, s->body);
	}
	s->next = s->pend.f[s->pend.next++];
	if (s->next.ts < s->lease_last) /* corrected times may tie back: never go back */
		s->next.ts = s->lease_last;
	s->lease_last = s->next.ts;
	s->have = 1;
	return 0;
}

/* The lease stream gives two facts per run: its start, then its end. */
static int health_lease_advance(struct health_stream *s, struct lt_error *err)
{
	int rc;

	if (s->lease_end_pending) {
		s->lease_end_pending = 0;
		s->next.ts = s->lease_last = s->lease_end;
		s->have = 1;
		return 0;
	}
	s->have = 0;
	if ((rc = lt_stmt_step(s->q, err)) != 1)
		return rc;
	s->next = (struct queries_health_fact){.ts = lt_stmt_int(s->q, HL_START),
					       .kind = QUERIES_HF_RENEW,
					       .source = QUERIES_HEALTH_AUDIT,
					       .actor = QUERIES_ACTOR_KUBELET,
					       .ref = lt_stmt_int(s->q, HL_FIRST)};
	if (s->next.ts < s->lease_last)
		s->next.ts = s->lease_last;
	s->lease_last = s->next.ts;
	s->lease_end = lt_stmt_int(s->q, HL_END);
	s->lease_end_pending = s->lease_end > s->next.ts;
	s->have = 1;
	return 0;
}

static int health_evict_advance(struct health_stream *s, struct lt_error *err)
{
	int rc;

	s->have = 0;
	if (s->q == NULL)
		return 0;
	if ((rc = lt_stmt_step(s->q, err)) != 1)
		return rc;
	s->next = (struct queries_health_fact){.ts = lt_stmt_int(s->q, HE_TS),
					       .kind = QUERIES_HF_EVICTION,
					       .source = QUERIES_HEALTH_CTRL_LOG,
					       .actor = QUERIES_ACTOR_NODE_CONTROLLER,
					       .ref = lt_stmt_int(s->q, HE_REF)};
	if (s->next.ref > 0)
		s->next.source = QUERIES_HEALTH_AUDIT;
	s->have = 1;
	return 0;
}

static int health_stream_advance(struct health_stream *s, int which, struct health_ids *ids,
				 struct lt_error *err)
{
	switch (which) {
	case HS_AUDIT:
		return health_audit_advance(s, ids, err);
	case HS_LEASE:
		return health_lease_advance(s, err);
	case HS_LINES:
		return health_lines_advance(s, ids, err);
	default:
		return health_evict_advance(s, err);
	}
}

/* What every node's facts are read with: the store's ids and the prepared statements. */
struct queries_health_ctx {
	struct lt_store *st;
	struct health_ids proto; /* node and kubelet left 0 */
	struct lt_stmt *q[HS_COUNT];
	struct lt_stmt *body;
};

/* Looks up the strs ids every fact is compared against. */
static void health_ids_init(struct health_ids *ids, struct lt_store *st)
{
	memset(ids, 0, sizeof *ids);
	ids->nodes = queries_str_id(st, "nodes");
	ids->metadata = queries_str_id(st, "Metadata");
	ids->update_verb = queries_str_id(st, "update");
	ids->patch_verb = queries_str_id(st, "patch");
	ids->kube_node_lease = queries_str_id(st, "kube-node-lease");
	ids->node_controller = queries_str_id(st, HEALTH_NODE_CONTROLLER);
	ids->autoscaler = queries_str_id(st, HEALTH_AUTOSCALER);
	for (size_t i = 0; i < sizeof ids->cloud / sizeof *ids->cloud; i++)
		ids->cloud[i] = queries_str_id(st, health_cloud_deleters[i]);
	for (size_t i = 0; i < HEALTH_LINE_KINDS; i++)
		ids->line_kind[i] = queries_str_id(st, health_line_facts[i].log_kind);
}

int queries_health_ctx_new(struct queries_health_ctx **out, struct lt_store *st, int evictions,
			   struct lt_error *err)
{
	struct queries_health_ctx *c = lt_xcalloc(1, sizeof *c);
	struct lt_stmt *t = NULL;
	int rc;

	c->st = st;
	health_ids_init(&c->proto, st);
	/* the feed reads temp.health_skew: empty when the offsets were never estimated */
	if ((rc = lt_store_prepare(st, &t, HEALTH_SKEW_TABLE, err)) == 0)
		rc = lt_stmt_step(t, err) < 0 ? LT_ERR_DB : 0;
	lt_stmt_free(t);
	if (rc == 0)
		rc = lt_store_prepare(st, &c->q[HS_AUDIT], health_audit_sql, err);
	if (rc == 0)
		rc = lt_store_prepare(st, &c->body, health_body_sql, err);
	if (rc == 0)
		rc = lt_store_prepare(st, &c->q[HS_LEASE], health_lease_sql, err);
	if (rc == 0)
		rc = lt_store_prepare(st, &c->q[HS_LINES], health_line_sql, err);
	if (rc == 0 && evictions)
		rc = lt_store_prepare(st, &c->q[HS_EVICT], health_evict_sql, err);
	if (rc != 0) {
		queries_health_ctx_free(c);
		c = NULL;
	}
	*out = c;
	return rc;
}

void queries_health_ctx_free(struct queries_health_ctx *c)
{
	if (c == NULL)
		return;
	for (int i = 0; i < HS_COUNT; i++)
		lt_stmt_free(c->q[i]);
	lt_stmt_free(c->body);
	free(c);
}

/* Points the streams at node's rows. */
static void health_bind(struct queries_health_ctx *c, struct health_stream s[HS_COUNT],
			const struct health_ids *ids)
{
	static const int node_col[HS_COUNT] = {
	    [HS_AUDIT] = 2, [HS_LEASE] = 2, [HS_LINES] = 1, [HS_EVICT] = 1};

	memset(s, 0, HS_COUNT * sizeof *s);
	for (int i = 0; i < HS_COUNT; i++) {
		s[i].q = c->q[i];
		if (s[i].q == NULL)
			continue;
		lt_stmt_reset(s[i].q);
		lt_stmt_bind_int(s[i].q, node_col[i], ids->node);
	}
	s[HS_AUDIT].body = c->body;
	lt_stmt_bind_int(s[HS_AUDIT].q, 1, ids->nodes);
	lt_stmt_bind_int(s[HS_AUDIT].q, 3, ids->metadata);
	lt_stmt_bind_int(s[HS_AUDIT].q, 4, ids->update_verb);
	lt_stmt_bind_int(s[HS_AUDIT].q, 5, ids->patch_verb);
	lt_stmt_bind_int(s[HS_LEASE].q, 1, ids->kube_node_lease);
}

/* Feeds the earliest pending fact of the streams until all are done. */
static int health_merge(struct queries_health *b, struct health_stream s[HS_COUNT],
			struct health_ids *ids, struct lt_error *err)
{
	int rc;

	for (int i = 0; i < HS_COUNT; i++)
		if ((rc = health_stream_advance(&s[i], i, ids, err)) < 0)
			return rc;
	for (;;) {
		int pick = -1;

		for (int i = 0; i < HS_COUNT; i++)
			if (s[i].have && (pick < 0 || s[i].next.ts < s[pick].next.ts))
				pick = i;
		if (pick < 0)
			return 0;
		queries_health_feed(b, &s[pick].next);
		if ((rc = health_stream_advance(&s[pick], pick, ids, err)) < 0)
			return rc;
	}
}

int queries_health_node(struct queries_health_ctx *c, int64_t node_id, const char *node,
			struct queries_health_result *out, struct lt_error *err)
{
	struct health_stream s[HS_COUNT];
	struct health_ids *ids = lt_xcalloc(1, sizeof *ids);
	struct queries_health *b = queries_health_new(out);
	int rc = 0, brc;

	*ids = c->proto;
	ids->node = node_id;
	ids->kubelet = queries_kubelet_id(c->st, node);
	if (node_id != 0) {
		health_bind(c, s, ids);
		rc = health_merge(b, s, ids, err);
		for (int i = 0; i < HS_COUNT; i++)
			if (s[i].q != NULL)
				lt_stmt_reset(s[i].q);
	}
	free(ids);
	brc = queries_health_end(b);
	if (rc == 0 && brc != 0) {
		rc = brc;
		lt_error_set(err, rc, "node %s: its facts came out of time order", node);
	}
	return rc;
}
