/*
 * queries-health.c - a node's NotReady windows, from the facts the logs hold.
 *
 * The builder is pure: it is fed one node's facts in time order (read from
 * audit events and classified log lines elsewhere) and returns windows.
 * How Kubernetes makes them (docs/node-health.md):
 *
 *   node-controller writes nodes/status   Ready=Unknown: the kubelet's lease
 *   ("hasn't been updated", unresponsive)  and status went unrenewed for the
 *                                         grace period: a window opens
 *   the kubelet reports Ready=False       "Node became not ready", a body
 *   (or the controller queues a NotReady   with Ready=False, the controller's
 *   node for tainting; or, at Metadata     NotReady taint queue line, or a
 *   level, answers a status write with     status write answered by a
 *   a taint PATCH)                         PATCH: a window opens, its reason
 *                                         is the kubelet's message
 *   taints added / removed                named when the body or line says
 *   "healthy again", Ready=True, a taint  the window ends at the last taint
 *   removal after the kubelet came back   removal that follows recovery
 *   the Node deleted                      the window ends there
 *
 * A lease gap alone never opens a window: the controller may not have
 * acted (its grace was not crossed, or it was not running), and that stays
 * a GAP on the lease's timeline.  The cause is chosen at the window's end
 * from the evidence seen between the node's last sign of life and then.
 */
#include "queries-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define HEALTH_SEC (1000000LL)
/* Taint removals this long after the recovery still belong to the window:
 * the controller's monitor period is 5 s, and its taint queue retries. */
#define HEALTH_TAINT_TAIL (30 * HEALTH_SEC)
/* A Node deleted this long after its window closed was still lost to it
 * (the cloud controller and the autoscaler act within minutes). */
#define HEALTH_DELETE_AFTER (600 * HEALTH_SEC)
#define HEALTH_MAX_TAINTS   8

static const char *const cause_names[LT_CAUSE_COUNT] = {
    [LT_CAUSE_UNKNOWN] = "unknown",
    [LT_CAUSE_NETWORK_PARTITION] = "network-partition",
    [LT_CAUSE_KUBELET_STOPPED] = "kubelet-stopped",
    [LT_CAUSE_NODE_REBOOTED] = "node-rebooted",
    [LT_CAUSE_RUNTIME_DOWN] = "container-runtime-down",
    [LT_CAUSE_PLEG] = "pleg-unhealthy",
    [LT_CAUSE_CNI] = "cni-not-ready",
    [LT_CAUSE_KUBELET_REPORTED] = "kubelet-reported",
    [LT_CAUSE_INSTANCE_TERMINATED] = "instance-terminated",
};

const char *lt_notready_cause_name(enum lt_notready_cause c)
{
	return c >= 0 && c < LT_CAUSE_COUNT ? cause_names[c] : cause_names[LT_CAUSE_UNKNOWN];
}

/* Which evidence bit a fact sets, by its source. */
static unsigned health_evidence_of(const struct queries_health_fact *f)
{
	return f->source == QUERIES_HEALTH_AUDIT	 ? LT_HEALTH_EV_AUDIT
	       : f->source == QUERIES_HEALTH_KUBELET_LOG ? LT_HEALTH_EV_KUBELET
							 : LT_HEALTH_EV_CONTROLLER;
}

/* Cause words of a kubelet Ready=False message, strongest first. */
static const struct {
	const char *needle;
	enum lt_notready_cause cause;
} health_reasons[] = {
    /* a runtime that is down stalls the PLEG too: the runtime is the root; a status
     * check not yet completed is the kubelet starting, weaker than a stuck PLEG */
    {"container runtime is down", LT_CAUSE_RUNTIME_DOWN},
    {"PLEG is not healthy", LT_CAUSE_PLEG},
    {"container runtime status check may not have completed", LT_CAUSE_RUNTIME_DOWN},
    {"runtime network not ready", LT_CAUSE_CNI},
    {"network plugin", LT_CAUSE_CNI},
    {"cni plugin not initialized", LT_CAUSE_CNI},
    {"cni config uninitialized", LT_CAUSE_CNI},
};

static enum lt_notready_cause health_reason_cause(const char *msg)
{
	for (size_t i = 0; msg && i < sizeof health_reasons / sizeof *health_reasons; i++)
		if (strstr(msg, health_reasons[i].needle) != NULL)
			return health_reasons[i].cause;
	return msg && *msg ? LT_CAUSE_KUBELET_REPORTED : LT_CAUSE_UNKNOWN;
}

/* The builder's state: at most one window open. */
struct queries_health {
	struct queries_health_result *r;
	struct lt_health_window cur; /* the open window, when open */
	int open;
	int recovered;	     /* open, but the node came back: waiting for taint removals */
	int64_t last_alive;  /* the node's last renew or status write before the window */
	int64_t renew_since; /* a renew after the window opened (0: none) */
	int64_t last_ts;     /* facts come in time order */
	int64_t kstatus;     /* the kubelet's last status write (body unknown), 0: none */
	int64_t kstatus_ref;
	struct queries_health_fact early; /* a PATCH that answered nothing (ts 0: none) */
	unsigned seen;	    /* enum queries_health_saw bits since the last sign of life */
	unsigned seen_from; /* enum lt_health_evidence bits of those facts */
	int64_t evictions;  /* pods evicted while open */
	int err;
};

struct queries_health *queries_health_new(struct queries_health_result *out)
{
	struct queries_health *b = lt_xcalloc(1, sizeof *b);

	memset(out, 0, sizeof *out);
	b->r = out;
	b->last_ts = INT64_MIN; /* a time before 1970 is a time too: it is negative */
	return b;
}

static void health_taint_note(struct lt_health_window *w, const struct queries_health_fact *f,
			      const char *sign)
{
	if (f->text == NULL || f->text_len == 0 || w->ntaints >= HEALTH_MAX_TAINTS)
		return;
	if (w->taints.len > 0)
		lt_buf_putc(&w->taints, ',');
	lt_buf_append(&w->taints, sign, strlen(sign));
	lt_buf_append(&w->taints, f->text, f->text_len);
	w->ntaints++;
}

static void health_open(struct queries_health *b, const struct queries_health_fact *f,
			enum lt_node_condition cond)
{
	struct lt_health_window w = {
	    .start_us = f->ts,
	    .condition = cond,
	    .start_ref = f->ref,
	    .evidence = health_evidence_of(f) | b->seen_from,
	    .alive_before_us = b->last_alive,
	};

	assert(!b->open);
	lt_buf_init(&w.reason);
	lt_buf_init(&w.taints);
	b->cur = w;
	b->open = 1;
	b->recovered = 0;
	b->renew_since = 0;
	b->evictions = 0;
}

/* The cause of the window about to close, from what was seen (bits) and how it ended. */
static enum lt_notready_cause health_cause(const struct queries_health *b, enum lt_health_end why,
					   int deleted_by_cloud)
{
	const struct lt_health_window *w = &b->cur;
	unsigned s = b->seen;

	if (deleted_by_cloud || (why == LT_HEALTH_DELETED && (s & QUERIES_HEALTH_SAW_SCALE_DOWN)))
		return LT_CAUSE_INSTANCE_TERMINATED;
	if (w->condition == LT_CONDITION_FALSE) {
		enum lt_notready_cause c = health_reason_cause(w->reason.ptr);

		if (c != LT_CAUSE_UNKNOWN)
			return c;
	}
	if (s & QUERIES_HEALTH_SAW_PLEG)
		return LT_CAUSE_PLEG;
	if (s & QUERIES_HEALTH_SAW_RUNTIME_DOWN)
		return LT_CAUSE_RUNTIME_DOWN;
	if (s & QUERIES_HEALTH_SAW_CNI)
		return LT_CAUSE_CNI;
	if (s & QUERIES_HEALTH_SAW_BOOT)
		return LT_CAUSE_NODE_REBOOTED;
	/* a start after a stop line: systemd stopped it; a start out of silence: the node went */
	if (s & QUERIES_HEALTH_SAW_KUBELET_START)
		return s & QUERIES_HEALTH_SAW_KUBELET_STOP ? LT_CAUSE_KUBELET_STOPPED
							   : LT_CAUSE_NODE_REBOOTED;
	if (s & QUERIES_HEALTH_SAW_CONN_ERROR)
		return LT_CAUSE_NETWORK_PARTITION;
	if (s & (QUERIES_HEALTH_SAW_REREGISTER | QUERIES_HEALTH_SAW_KUBELET_STOP))
		return LT_CAUSE_KUBELET_STOPPED;
	if (w->condition == LT_CONDITION_FALSE)
		return LT_CAUSE_KUBELET_REPORTED;
	/* heartbeats came back with no restart: the kubelet ran on, unheard */
	return why == LT_HEALTH_RECOVERED && b->renew_since != 0 ? LT_CAUSE_NETWORK_PARTITION
								 : LT_CAUSE_UNKNOWN;
}

static void health_push(struct queries_health *b)
{
	struct queries_health_result *r = b->r;

	LT_GROW(r->windows, r->cap, r->n + 1);
	r->windows[r->n++] = b->cur;
	b->open = 0;
	b->recovered = 0;
	b->seen = b->seen_from = 0;
}

/* Ends the open window at ts: recovered (end set), deleted or open at the logs' end. */
static void health_close(struct queries_health *b, int64_t ts, int64_t ref, enum lt_health_end why,
			 int deleted_by_cloud)
{
	assert(b->open);
	b->cur.end = why;
	if (why != LT_HEALTH_OPEN) {
		b->cur.end_us = ts > b->cur.start_us ? ts : b->cur.start_us;
		b->cur.end_ref = ref;
	}
	b->cur.evicted_pods = b->evictions;
	b->cur.cause = health_cause(b, why, deleted_by_cloud);
	health_push(b);
}

/* The node came back (Ready=True, healthy line, taint removal after a renew). */
static void health_recover(struct queries_health *b, const struct queries_health_fact *f)
{
	b->recovered = 1;
	b->cur.end_us = f->ts;
	b->cur.end_ref = f->ref;
	b->cur.evidence |= health_evidence_of(f);
}

/* While recovered, a fact past the taint tail closes the window first. */
static void health_settle(struct queries_health *b, int64_t ts)
{
	if (b->open && b->recovered && ts - b->cur.end_us > HEALTH_TAINT_TAIL)
		health_close(b, b->cur.end_us, b->cur.end_ref, LT_HEALTH_RECOVERED, 0);
}

static void health_on_start(struct queries_health *b, const struct queries_health_fact *f,
			    enum lt_node_condition cond)
{
	if (b->open && b->recovered)
		health_close(b, b->cur.end_us, b->cur.end_ref, LT_HEALTH_RECOVERED, 0);
	if (!b->open) {
		health_open(b, f, cond);
	} else {
		b->cur.evidence |= health_evidence_of(f);
		if (cond == LT_CONDITION_FALSE)
			b->cur.condition = LT_CONDITION_FALSE;
	}
	if (f->kind == QUERIES_HF_KUBELET_NOT_READY && b->cur.reason.len == 0 && f->text)
		lt_buf_append(&b->cur.reason, f->text, f->text_len);
}

/* A node-controller PATCH within this long of the kubelet's status write answers it. */
#define HEALTH_ANSWER (2 * HEALTH_SEC)

static int health_answers_status(const struct queries_health *b,
				 const struct queries_health_fact *f)
{
	return f->kind == QUERIES_HF_TAINT_PATCH && b->kstatus != 0 &&
	       f->ts - b->kstatus <= HEALTH_ANSWER;
}

/* Metadata level: a status write the controller answers with a taint while the lease renews
 * is the kubelet's Ready=False (heartbeats lost make an Unknown write first); in a False
 * window, a later one answered is its Ready=True.  Returns whether f was taken as that
 * answer. */
static int health_on_answer(struct queries_health *b, const struct queries_health_fact *f)
{
	if (!b->open && health_answers_status(b, f)) {
		struct queries_health_fact start = *f;

		start.ts = b->kstatus;
		start.ref = b->kstatus_ref;
		health_open(b, &start, LT_CONDITION_FALSE);
		b->kstatus = 0;
		return 1;
	}
	if (b->open && !b->recovered && b->cur.condition == LT_CONDITION_FALSE &&
	    health_answers_status(b, f) && b->kstatus > b->cur.start_us + HEALTH_ANSWER) {
		health_recover(b, f);
		return 1;
	}
	return 0;
}

/* A taint change; a PATCH whose body is unknown is an add while the node is away, else a
 * removal. */
static void health_on_taint(struct queries_health *b, const struct queries_health_fact *f,
			    int removal)
{
	if (health_on_answer(b, f))
		return;
	/* it may answer a status write logged by another apiserver whose estimated clock puts
	 * it a few ms later (health_on_alive) */
	if (f->kind == QUERIES_HF_TAINT_PATCH)
		b->early = *f;
	if (!b->open)
		return;
	b->cur.evidence |= health_evidence_of(f);
	/* a node that reports Ready=False keeps renewing: only its recovery says removal */
	if (f->kind == QUERIES_HF_TAINT_PATCH)
		removal = b->recovered ||
			  (b->cur.condition == LT_CONDITION_UNKNOWN && b->renew_since != 0);
	health_taint_note(&b->cur, f, removal ? "-" : "+");
	/* a removal before any sign of life is a swap (not-ready for unreachable): it goes on */
	if (removal &&
	    (b->recovered || (b->cur.condition == LT_CONDITION_UNKNOWN && b->renew_since != 0)))
		health_recover(b, f);
}

static void health_on_alive(struct queries_health *b, const struct queries_health_fact *f)
{
	if (f->kind == QUERIES_HF_KUBELET_STATUS) {
		b->kstatus = f->ts;
		b->kstatus_ref = f->ref;
	}
	if (!b->open) {
		b->last_alive = f->ts;
		b->seen = b->seen_from = 0;
	} else {
		if (b->renew_since == 0)
			b->renew_since = f->ts;
		/* at Metadata level the kubelet's own status write is the only sign of Ready=True
		 */
		if (f->kind == QUERIES_HF_KUBELET_STATUS &&
		    b->cur.condition == LT_CONDITION_UNKNOWN && !b->recovered)
			health_recover(b, f);
	}
	/* a PATCH fed just before: its answer, put first by clocks estimated apart */
	if (f->kind == QUERIES_HF_KUBELET_STATUS && b->early.ts != 0 &&
	    f->ts - b->early.ts <= QUERIES_HEALTH_CLOCK_ERR) {
		struct queries_health_fact answer = b->early;

		b->early.ts = 0;
		health_on_answer(b, &answer);
	}
}

static void health_on_delete(struct queries_health *b, const struct queries_health_fact *f)
{
	int cloud = f->flags & QUERIES_HEALTH_BY_CLOUD;

	if (b->open && !b->recovered) {
		b->cur.evidence |= health_evidence_of(f);
		health_close(b, f->ts, f->ref, LT_HEALTH_DELETED, cloud);
		return;
	}
	if (b->open)
		health_close(b, b->cur.end_us, b->cur.end_ref, LT_HEALTH_RECOVERED, 0);
	/* a window that closed shortly before a cloud delete: the instance was going away */
	if (cloud && b->r->n > 0) {
		struct lt_health_window *w = &b->r->windows[b->r->n - 1];

		if (f->ts - w->end_us <= HEALTH_DELETE_AFTER)
			w->cause = LT_CAUSE_INSTANCE_TERMINATED;
	}
	b->last_alive = 0;
}

static const unsigned health_saw[QUERIES_HF_COUNT] = {
    [QUERIES_HF_CONN_ERROR] = QUERIES_HEALTH_SAW_CONN_ERROR,
    [QUERIES_HF_KUBELET_START] = QUERIES_HEALTH_SAW_KUBELET_START,
    [QUERIES_HF_BOOT] = QUERIES_HEALTH_SAW_BOOT,
    [QUERIES_HF_REREGISTER] = QUERIES_HEALTH_SAW_REREGISTER,
    [QUERIES_HF_RUNTIME_DOWN] = QUERIES_HEALTH_SAW_RUNTIME_DOWN,
    [QUERIES_HF_PLEG] = QUERIES_HEALTH_SAW_PLEG,
    [QUERIES_HF_CNI] = QUERIES_HEALTH_SAW_CNI,
    [QUERIES_HF_KUBELET_STOP] = QUERIES_HEALTH_SAW_KUBELET_STOP,
    [QUERIES_HF_SCALE_DOWN] = QUERIES_HEALTH_SAW_SCALE_DOWN,
};

int queries_health_fact_opens(enum queries_health_fact_kind kind)
{
	/* health_on_start's kinds, and a PATCH answering a status write (health_on_taint) */
	static const int opens[QUERIES_HF_COUNT] = {
	    [QUERIES_HF_CTRL_UNKNOWN] = 1,
	    [QUERIES_HF_CTRL_NOT_READY] = 1,
	    [QUERIES_HF_KUBELET_NOT_READY] = 1,
	    [QUERIES_HF_TAINT_PATCH] = 1,
	};

	return kind >= 0 && kind < QUERIES_HF_COUNT && opens[kind];
}

void queries_health_feed(struct queries_health *b, const struct queries_health_fact *f)
{
	if (b->err)
		return;
	if (f->ts < b->last_ts || f->kind < 0 || f->kind >= QUERIES_HF_COUNT) {
		b->err = LT_ERR_USAGE;
		return;
	}
	b->last_ts = f->ts;
	health_settle(b, f->ts);
	if (health_saw[f->kind] != 0) {
		b->seen |= health_saw[f->kind];
		b->seen_from |= health_evidence_of(f);
	}
	switch (f->kind) {
	case QUERIES_HF_CTRL_UNKNOWN:
		health_on_start(b, f, LT_CONDITION_UNKNOWN);
		break;
	case QUERIES_HF_CTRL_NOT_READY:
	case QUERIES_HF_KUBELET_NOT_READY:
		health_on_start(b, f, LT_CONDITION_FALSE);
		break;
	case QUERIES_HF_TAINT_ADD:
	case QUERIES_HF_TAINT_REMOVE:
	case QUERIES_HF_TAINT_PATCH:
		health_on_taint(b, f, f->kind == QUERIES_HF_TAINT_REMOVE);
		break;
	case QUERIES_HF_HEALTHY: /* logged with the last taint removal: the end, even after Ready */
		if (b->open)
			health_recover(b, f);
		break;
	case QUERIES_HF_KUBELET_READY:
		if (b->open && !b->recovered)
			health_recover(b, f);
		break;
	case QUERIES_HF_RENEW:
	case QUERIES_HF_KUBELET_STATUS:
		health_on_alive(b, f);
		break;
	case QUERIES_HF_NODE_DELETE:
		health_on_delete(b, f);
		break;
	case QUERIES_HF_EVICTION:
		if (b->open)
			b->evictions++;
		break;
	default: /* cause evidence only: recorded in seen */
		if (b->open)
			b->cur.evidence |= health_evidence_of(f);
		break;
	}
}

int queries_health_end(struct queries_health *b)
{
	int rc = b->err;

	if (b->open)
		health_close(b, b->recovered ? b->cur.end_us : 0, b->cur.end_ref,
			     b->recovered ? LT_HEALTH_RECOVERED : LT_HEALTH_OPEN, 0);
	free(b);
	return rc;
}

void queries_health_result_release(struct queries_health_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		lt_buf_release(&r->windows[i].reason);
		lt_buf_release(&r->windows[i].taints);
	}
	free(r->windows);
	memset(r, 0, sizeof *r);
}
