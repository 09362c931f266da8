/*
 * queries-health-feed.c - a node's facts, read from the store, for the builder.
 *
 * Three streams, each in time order, merged as they are read (memory stays
 * bounded however long the logs are):
 *
 *   audit    the Node object's requests: who wrote its status, who PATCHed
 *            it (taints), who deleted it, a kubelet's 409 on create
 *   lease    the node lease's episodes: a RENEWING run's start and end are
 *            the node's signs of life (every renew in between says nothing new)
 *   lines    the node's own log lines and the controllers' lines about it,
 *            of the kinds the table below turns into facts
 *
 * Nothing here reads a Node body: at Metadata level there is none, and a
 * node-controller PATCH is a taint change whose direction the builder infers.
 */
#include "queries-int.h"

#include <assert.h>
#include <string.h>

/* The users whose writes mean something for node health. */
#define HEALTH_NODE_CONTROLLER "system:serviceaccount:kube-system:node-controller"

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
    {"lease-update-failed", QUERIES_HF_CONN_ERROR}, /* only with a connection error */
    {"lease-ensure-failed", QUERIES_HF_CONN_ERROR},
    {"node-status-error", QUERIES_HF_CONN_ERROR},
    {"node-status-retry-exceeded", QUERIES_HF_CONN_ERROR},
};
#define HEALTH_LINE_KINDS (sizeof health_line_facts / sizeof *health_line_facts)

/* Words of a failed request that never reached the apiserver (or got no answer). */
static const char *const health_conn_words[] = {
    "i/o timeout",	     "context deadline exceeded", "Client.Timeout exceeded",
    "connection refused",    "request canceled",	  "connection lost",
    "no route to host",	     "connection reset",	  "use of closed network connection",
    "TLS handshake timeout",
};

/* The ids one node's facts are read with. */
struct health_ids {
	int64_t nodes, leases, kube_node_lease, node, kubelet, node_controller;
	int64_t cloud[sizeof health_cloud_deleters / sizeof *health_cloud_deleters];
	int64_t line_kind[HEALTH_LINE_KINDS];
};

static int health_has_word(const char *msg, const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(msg, words[i]) != NULL)
			return 1;
	return 0;
}

/* ---- the three streams ---------------------------------------------------- */

enum health_audit_col { HA_ID, HA_TS, HA_VERB, HA_SUB, HA_USER, HA_CODE };
static const char health_audit_sql[] =
    "SELECT a.id, a.stage_us, (SELECT s FROM strs WHERE id = a.verb_id),"
    " coalesce((SELECT s FROM strs WHERE id = a.subresource_id), ''), a.user_id, a.code"
    " FROM audit AS a WHERE a.resource_id = ?1 AND a.namespace_id IS NULL AND a.name_id = ?2"
    " AND a.superseded = 0 ORDER BY a.stage_us, a.id";

enum health_lease_col { HL_START, HL_END, HL_FIRST };
static const char health_lease_sql[] =
    "SELECT e.start_us, e.end_us, e.first_event FROM lt_episodes AS e"
    " JOIN lt_leases AS l ON l.id = e.lease_id"
    " WHERE l.namespace_id = ?1 AND l.name_id = ?2"
    " AND e.kind IN ('CREATED', 'RENEWING', 'RE-CREATED') ORDER BY e.start_us, e.id";

enum health_line_col { HG_ID, HG_TS, HG_KIND, HG_MESSAGE, HG_FIELDS };
static const char health_line_sql[] =
    "SELECT g.id, g.ts_us, g.kind_id, coalesce(g.message, ''), coalesce(g.fields, '')"
    " FROM lines AS g WHERE (g.node_id = ?1 OR g.subject_id = ?1) AND g.kind_id IS NOT NULL"
    " ORDER BY g.ts_us, g.id";

static int health_is_cloud(const struct health_ids *ids, int64_t user)
{
	for (size_t i = 0; i < sizeof ids->cloud / sizeof *ids->cloud; i++)
		if (ids->cloud[i] != 0 && ids->cloud[i] == user)
			return 1;
	return 0;
}

/* An audit row as a fact; 0 when it says nothing about health. */
static int health_audit_fact(struct queries_health_fact *f, const struct health_ids *ids,
			     const struct lt_stmt *q)
{
	const char *verb = lt_stmt_text(q, HA_VERB, NULL);
	int status = strcmp(lt_stmt_text(q, HA_SUB, NULL), "status") == 0;
	int64_t user = lt_stmt_int(q, HA_USER), code = lt_stmt_int(q, HA_CODE);
	int write = strcmp(verb, "update") == 0 || strcmp(verb, "patch") == 0;
	int ok = code >= 200 && code < 300;

	*f = (struct queries_health_fact){.ts = lt_stmt_int(q, HA_TS),
					  .source = QUERIES_HEALTH_AUDIT,
					  .ref = lt_stmt_int(q, HA_ID)};
	if (strcmp(verb, "create") == 0 && code == 409 && user == ids->kubelet && user != 0)
		f->kind = QUERIES_HF_REREGISTER;
	else if (!ok)
		return 0;
	else if (strcmp(verb, "delete") == 0)
		f->kind = QUERIES_HF_NODE_DELETE,
		f->flags = health_is_cloud(ids, user) ? QUERIES_HEALTH_BY_CLOUD : 0;
	else if (write && user == ids->node_controller && user != 0)
		f->kind = status ? QUERIES_HF_CTRL_UNKNOWN : QUERIES_HF_TAINT_PATCH;
	else if (write && status && user == ids->kubelet && user != 0)
		f->kind = QUERIES_HF_KUBELET_STATUS;
	else
		return 0;
	return 1;
}

/* The text after "message"/"Message:" in a "Node became not ready" line, else all of it. */
static struct lt_str health_reason(const char *msg, const char *fields)
{
	static const char *const keys[] = {"\"message\":\"", "Message:"};
	const char *src = fields[0] ? fields : msg;

	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		const char *p = strstr(src, keys[i]);

		if (p != NULL) {
			const char *v = p + strlen(keys[i]), *e = v;

			while (*e && *e != '"' && *e != '}' &&
			       strncmp(e, " LastHeartbeat", 14) != 0)
				e++;
			return (struct lt_str){v, (size_t)(e - v)};
		}
	}
	return (struct lt_str){msg, strlen(msg)};
}

/* A log line as a fact; 0 when its kind or words say nothing about health. */
static int health_line_fact(struct queries_health_fact *f, const struct health_ids *ids,
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
					      strncmp(health_line_facts[k].log_kind, "nlc-", 4) == 0
						  ? QUERIES_HEALTH_CTRL_LOG
						  : QUERIES_HEALTH_KUBELET_LOG,
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
	case QUERIES_HF_TAINT_ADD: {
		if (strncmp(msg, "Removing", 8) == 0 || strncmp(msg, "removing", 8) == 0)
			f->kind = QUERIES_HF_TAINT_REMOVE;
		return 1;
	}
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

/* One stream: its statement, its next fact, whether it has one. */
struct health_stream {
	struct lt_stmt *q;
	struct queries_health_fact next;
	int have;
	int lease_end_pending;	       /* lease stream: the run's end is the next fact */
	int64_t lease_end, lease_last; /* lease stream: its facts never go back in time */
};

static int health_advance(struct health_stream *s, const struct health_ids *ids,
			  int (*fact)(struct queries_health_fact *, const struct health_ids *,
				      const struct lt_stmt *),
			  struct lt_error *err)
{
	int rc;

	s->have = 0;
	while ((rc = lt_stmt_step(s->q, err)) == 1)
		if (fact(&s->next, ids, s->q)) {
			s->have = 1;
			return 0;
		}
	return rc;
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
					       .ref = lt_stmt_int(s->q, HL_FIRST)};
	if (s->next.ts < s->lease_last)
		s->next.ts = s->lease_last;
	s->lease_last = s->next.ts;
	s->lease_end = lt_stmt_int(s->q, HL_END);
	s->lease_end_pending = s->lease_end > s->next.ts;
	s->have = 1;
	return 0;
}

/* Looks up the strs ids every fact is compared against. */
static void health_ids_init(struct health_ids *ids, struct lt_store *st, const char *node)
{
	memset(ids, 0, sizeof *ids);
	ids->nodes = lc_str_id(st, "nodes");
	ids->kube_node_lease = lc_str_id(st, "kube-node-lease");
	ids->node = lc_str_id(st, node);
	ids->kubelet = lc_kubelet_id(st, node);
	ids->node_controller = lc_str_id(st, HEALTH_NODE_CONTROLLER);
	for (size_t i = 0; i < sizeof ids->cloud / sizeof *ids->cloud; i++)
		ids->cloud[i] = lc_str_id(st, health_cloud_deleters[i]);
	for (size_t i = 0; i < HEALTH_LINE_KINDS; i++)
		ids->line_kind[i] = lc_str_id(st, health_line_facts[i].log_kind);
}

static int health_prepare(struct lt_store *st, struct health_stream s[3],
			  const struct health_ids *ids, struct lt_error *err)
{
	int rc;

	if ((rc = lt_store_prepare(st, &s[0].q, health_audit_sql, err)) != 0 ||
	    (rc = lt_store_prepare(st, &s[1].q, health_lease_sql, err)) != 0 ||
	    (rc = lt_store_prepare(st, &s[2].q, health_line_sql, err)) != 0)
		return rc;
	lt_stmt_bind_int(s[0].q, 1, ids->nodes);
	lt_stmt_bind_int(s[0].q, 2, ids->node);
	lt_stmt_bind_int(s[1].q, 1, ids->kube_node_lease);
	lt_stmt_bind_int(s[1].q, 2, ids->node);
	lt_stmt_bind_int(s[2].q, 1, ids->node);
	return 0;
}

/* Feeds the earliest pending fact of the three streams until all are done. */
static int health_merge(struct queries_health *b, struct health_stream s[3],
			const struct health_ids *ids, struct lt_error *err)
{
	int rc;

	if ((rc = health_advance(&s[0], ids, health_audit_fact, err)) < 0 ||
	    (rc = health_lease_advance(&s[1], err)) < 0 ||
	    (rc = health_advance(&s[2], ids, health_line_fact, err)) < 0)
		return rc;
	for (;;) {
		int pick = -1;

		for (int i = 0; i < 3; i++)
			if (s[i].have && (pick < 0 || s[i].next.ts < s[pick].next.ts))
				pick = i;
		if (pick < 0)
			return 0;
		queries_health_feed(b, &s[pick].next);
		rc = pick == 1	 ? health_lease_advance(&s[1], err)
		     : pick == 0 ? health_advance(&s[0], ids, health_audit_fact, err)
				 : health_advance(&s[2], ids, health_line_fact, err);
		if (rc < 0)
			return rc;
	}
}

int queries_health_node(struct lt_store *st, const char *node, struct queries_health_result *out,
			struct lt_error *err)
{
	struct health_stream s[3] = {{0}};
	struct health_ids ids;
	struct queries_health *b = queries_health_new(out);
	int rc, brc;

	health_ids_init(&ids, st, node);
	rc = ids.node == 0 ? 0 : health_prepare(st, s, &ids, err);
	if (rc == 0 && ids.node != 0)
		rc = health_merge(b, s, &ids, err);
	for (int i = 0; i < 3; i++)
		lt_stmt_free(s[i].q);
	brc = queries_health_end(b);
	if (rc == 0 && brc != 0) {
		rc = brc;
		lt_error_set(err, rc, "node %s: its facts came out of time order", node);
	}
	return rc;
}
