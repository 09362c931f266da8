/*
 * sample-gen-actor.c - the simulation's machinery: the min-heap of actors
 * keyed by the end of their request in flight, actor slots (reused after a
 * watch ends), scheduling and cancelling, the facts reported to the logs,
 * and the pieces every actor's Event is built from.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample-gen-sim.h"

/* Orders heap entries by end time, then by scheduling order. */
static bool gen_hless(const struct gen_hent *a, const struct gen_hent *b)
{
	return a->t != b->t ? a->t < b->t : a->seq < b->seq;
}

/* Adds h to the min-heap. */
static void gen_heap_push(struct gen_ctx *g, struct gen_hent h)
{
	GEN_GROW(g->heap, g->cap_heap, g->nheap + 1);
	size_t i = g->nheap++;
	while (i > 0 && gen_hless(&h, &g->heap[(i - 1) / 2])) {
		g->heap[i] = g->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	g->heap[i] = h;
}

/* Removes and returns the earliest entry; the heap must not be empty. */
struct gen_hent gen_heap_pop(struct gen_ctx *g)
{
	struct gen_hent top = g->heap[0], last = g->heap[--g->nheap];
	size_t i = 0, n = g->nheap;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && gen_hless(&g->heap[c + 1], &g->heap[c]))
			c++;
		if (!gen_hless(&g->heap[c], &last))
			break;
		g->heap[i] = g->heap[c];
		i = c;
	}
	if (n)
		g->heap[i] = last;
	return top;
}

/* Returns a free actor slot: a finished watch's, or a new one. The parallel
 * arrays (actors, watches, free_ids) grow together, so freeing a slot never
 * allocates. May move g->actors. */
static uint32_t gen_actor_slot(struct gen_ctx *g)
{
	if (g->nfree)
		return g->free_ids[--g->nfree];
	if (g->nactors == g->cap_actors) {
		size_t old = g->cap_actors, cap = old, cap_w = old, cap_f = old;
		GEN_GROW(g->actors, cap, old + 1);
		GEN_GROW(g->watches, cap_w, old + 1);
		GEN_GROW(g->free_ids, cap_f, old + 1);
		memset(g->actors + old, 0, (cap - old) * sizeof *g->actors);
		g->cap_actors = cap;
	}
	return (uint32_t)g->nactors++;
}

/* Creates an actor with its own random stream; returns its index. May move g->actors. */
uint32_t gen_actor_new(struct gen_ctx *g, uint8_t kind, uint32_t idx, uint64_t stream)
{
	uint32_t ai = gen_actor_slot(g);
	struct gen_actor *a = &g->actors[ai];
	uint32_t gen = a->gen + 1;
	memset(a, 0, sizeof *a);
	a->gen = gen;
	a->kind = kind;
	a->idx = idx;
	gen_rng_seed(&a->rng, g->o->seed, stream);
	a->server = (uint8_t)gen_range(&a->rng, 0, g->napi - 1);
	return ai;
}

/* Schedules actor ai's next request over [t0, t1]; returns false (and
 * schedules nothing) when it would end after the window. */
bool gen_sched(struct gen_ctx *g, uint32_t ai, int64_t t0, int64_t t1)
{
	struct gen_actor *a = &g->actors[ai];
	a->t0 = t0;
	a->t1 = t1;
	if (t1 >= g->t_end)
		return false;
	gen_heap_push(g, (struct gen_hent){t1, g->seq++, ai, a->gen});
	return true;
}

/* Drops whatever actor ai had in flight (its heap entry becomes stale). */
void gen_cancel(struct gen_ctx *g, uint32_t ai)
{
	g->actors[ai].gen++;
}

/* Reports a story step to the log writer (a no-op without log options).
 * Draws nothing: the logs never perturb the audit streams. */
void gen_fact(struct gen_ctx *g, uint8_t kind, uint32_t node, unsigned host, unsigned res,
	      int64_t t0, int64_t t1, const char *s)
{
	struct gen_fact f = {.t0 = t0,
			     .t1 = t1,
			     .node = node,
			     .kind = kind,
			     .host = (uint8_t)host,
			     .res = (uint8_t)res};
	if (!g->log)
		return;
	if (s)
		snprintf(f.s, sizeof f.s, "%s", s);
	gen_log_fact(g->log, &f);
}

/* Returns the control-plane host whose kube-controller-manager holds the lease. */
unsigned gen_kcm_leader(const struct gen_ctx *g)
{
	return strcmp(g->comps[0].lease.holder, g->cands[0].ident) == 0 ? 0 : 1;
}

/* Starts an event for the request actor a has just finished. */
void gen_ev_start(struct gen_ev *e, struct gen_actor *a, const struct gen_who *who,
		  const char *verb)
{
	memset(e, 0, sizeof *e);
	e->level = "Metadata";
	e->stage = "ResponseComplete";
	e->verb = verb;
	e->who = who;
	e->t0 = a->t0;
	e->t1 = a->t1;
	e->server = a->server;
	gen_uuid(e->id, &a->rng);
}

/* Sets e's URI and objectRef for lease l; query is appended to the URI
 * ("?timeout=10s" for kubelets), named = false addresses the collection. */
void gen_ev_lease(struct gen_ctx *g, struct gen_ev *e, const struct gen_lease *l, bool named,
		  const char *query)
{
	snprintf(g->uri, sizeof g->uri, "/apis/coordination.k8s.io/v1/namespaces/%s/leases%s%s%s",
		 l->ns, named ? "/" : "", named ? l->name : "", query);
	e->uri = g->uri;
	e->level = g->o->rr ? "RequestResponse" : "Metadata";
	e->ref.resource = "leases";
	e->ref.ns = l->ns;
	e->ref.name = l->name;
	e->ref.group = GEN_COORD;
}

/* Turns e into a failure with the apiserver's usual message: 404 NotFound,
 * 409 Conflict (reason "Conflict") or 409 AlreadyExists (reason "AlreadyExists"). */
void gen_fail(struct gen_ctx *g, struct gen_ev *e, int code, const char *reason)
{
	const char *gr = e->ref.group ? e->ref.group : "", *dot = e->ref.group ? "." : "";
	e->code = code;
	e->st = GEN_ST_FAIL;
	e->reason = reason;
	if (code == 404)
		snprintf(g->msg, sizeof g->msg, "%s%s%s \"%s\" not found", e->ref.resource, dot, gr,
			 e->ref.name);
	else if (strcmp(reason, "AlreadyExists") == 0)
		snprintf(g->msg, sizeof g->msg, "%s%s%s \"%s\" already exists", e->ref.resource,
			 dot, gr, e->ref.name);
	else
		snprintf(g->msg, sizeof g->msg,
			 "Operation cannot be fulfilled on %s%s%s \"%s\": the object has been "
			 "modified; please apply your changes to the latest version and try again",
			 e->ref.resource, dot, gr, e->ref.name);
	e->msg = g->msg;
}

/* At RequestResponse level, sets e's responseObject to the Status it failed or deleted with. */
void gen_status_obj(struct gen_ctx *g, struct gen_ev *e)
{
	if (!g->o->rr)
		return;
	g->respb.len = 0;
	GEN_LIT(&g->respb, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",");
	gen_put_status_tail(&g->respb, e, true);
	e->respobj = &g->respb;
}

/* At RequestResponse level, sets e's requestObject (resp = false) or
 * responseObject (resp = true) to lease l. */
void gen_lease_obj(struct gen_ctx *g, struct gen_ev *e, const struct gen_lease *l, bool resp,
		   bool stored)
{
	if (!g->o->rr)
		return;
	struct gen_buf *b = resp ? &g->respb : &g->reqb;
	b->len = 0;
	gen_put_lease(b, l, stored);
	if (resp)
		e->respobj = b;
	else
		e->reqobj = b;
}
