/*
 * sample-gen-kubelet.c - a kubelet's two actors: the node lease controller
 * (update every 10 s with jitter, 5 retries, get then create when the lease
 * is gone) and the node status loop (a status patch every minute or so).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample-gen-sim.h"

/* Returns the wait of a 10 s renew loop with 4 % jitter (wait.JitterUntil,
 * sliding) plus the client's own few hundred µs. */
int64_t gen_renew_gap(struct gen_rng *r)
{
	int64_t jitter = gen_range(r, 0, 400 * GEN_MSEC);
	return 10 * GEN_SEC + jitter + gen_range(r, 100, 1200);
}

/* Schedules kubelet lease actor ai's next request, in state st, starting at t0. */
void gen_kl_next(struct gen_ctx *g, uint32_t ai, uint8_t st, int64_t t0)
{
	struct gen_actor *a = &g->actors[ai];
	int64_t lat = st == GEN_KL_UPDATE ? gen_lat(&a->rng, 1200, 1800)
		      : st == GEN_KL_GET  ? gen_lat(&a->rng, 600, 900)
					  : gen_lat(&a->rng, 3000, 5000);
	a->state = st;
	gen_sched(g, ai, t0, t0 + lat);
}

/* Kubelet renew: update (PUT) of the cached lease, 200 while it exists, else 404;
 * retries 5 times (reconnecting after the second failure, as the kubelet closes
 * its connections), then falls back to ensure-lease (GET). */
static void gen_kl_update(struct gen_ctx *g, uint32_t ai, struct gen_node *n)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_lease *l = &n->lease, req = *l;
	struct gen_ev e;
	gen_ev_start(&e, a, &n->who, "update");
	gen_ev_lease(g, &e, l, true, "?timeout=10s");
	e.ref.uid = l->uid;
	e.ref.rv = l->rv;
	req.renew = a->t0 - gen_range(&a->rng, 50, 400);
	gen_lease_obj(g, &e, &req, false, true);
	if (l->exists) {
		e.code = 200;
		l->renew = req.renew;
		l->rv = ++g->rv;
		gen_lease_obj(g, &e, l, true, true);
		gen_emit(g, &e);
		a->tries = 0;
		gen_kl_next(g, ai, GEN_KL_UPDATE, a->t1 + gen_renew_gap(&a->rng));
		return;
	}
	gen_fail(g, &e, 404, "NotFound");
	gen_status_obj(g, &e);
	gen_emit(g, &e);
	gen_fact(g, GEN_F_LEASE_404, a->idx, 0, 0, a->t0, a->t1, NULL);
	if (++a->tries >= 2)
		a->server = (uint8_t)gen_range(&a->rng, 0, g->napi - 1);
	if (a->tries < 5) {
		gen_kl_next(g, ai, GEN_KL_UPDATE, a->t1 + gen_range(&a->rng, 300, 1500));
	} else {
		a->tries = 0;
		gen_kl_next(g, ai, GEN_KL_GET, a->t1 + gen_range(&a->rng, 200, 1000));
	}
}

/* Kubelet ensure-lease: GET; 200 goes back to renewing, 404 creates the lease
 * if the Node exists (owner reference) and otherwise waits for the next sync. */
static void gen_kl_get(struct gen_ctx *g, uint32_t ai, struct gen_node *n)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_lease *l = &n->lease;
	struct gen_ev e;
	gen_ev_start(&e, a, &n->who, "get");
	gen_ev_lease(g, &e, l, true, "?timeout=10s");
	if (l->exists) {
		e.code = 200;
		gen_lease_obj(g, &e, l, true, true);
		gen_emit(g, &e);
		gen_kl_next(g, ai, GEN_KL_UPDATE, a->t1 + gen_range(&a->rng, 200, 1000));
		return;
	}
	gen_fail(g, &e, 404, "NotFound");
	gen_status_obj(g, &e);
	gen_emit(g, &e);
	if (!n->exists)
		gen_fact(g, GEN_F_OWNER_404, a->idx, 0, 0, a->t0, a->t1, NULL);
	if (n->exists)
		gen_kl_next(g, ai, GEN_KL_CREATE, a->t1 + gen_range(&a->rng, 1500, 6000));
	else
		gen_kl_next(g, ai, GEN_KL_GET, a->t1 + gen_renew_gap(&a->rng));
}

/* Kubelet create of its lease (owner: its Node): 201, then renews 10 s later. */
static void gen_kl_create(struct gen_ctx *g, uint32_t ai, struct gen_node *n)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_lease *l = &n->lease, req = *l;
	struct gen_ev e;
	gen_ev_start(&e, a, &n->who, "create");
	gen_ev_lease(g, &e, l, false, "?timeout=10s");
	req.renew = a->t0 - gen_range(&a->rng, 50, 400);
	req.owner_uid = n->uid;
	gen_lease_obj(g, &e, &req, false, false);
	if (l->exists) {
		gen_fail(g, &e, 409, "AlreadyExists");
		gen_status_obj(g, &e);
		gen_emit(g, &e);
		gen_kl_next(g, ai, GEN_KL_GET, a->t1 + gen_renew_gap(&a->rng));
		return;
	}
	e.code = 201;
	*l = req;
	l->exists = true;
	l->created = a->t1;
	l->rv = ++g->rv;
	gen_uuid(l->uid, &a->rng);
	gen_lease_obj(g, &e, l, true, true);
	gen_emit(g, &e);
	gen_kl_next(g, ai, GEN_KL_UPDATE, a->t1 + gen_renew_gap(&a->rng));
}

/* Runs the kubelet lease controller request that ends now. */
void gen_lease_step(struct gen_ctx *g, uint32_t ai)
{
	struct gen_node *n = &g->nodes[g->actors[ai].idx];
	switch (g->actors[ai].state) {
	case GEN_KL_UPDATE:
		gen_kl_update(g, ai, n);
		break;
	case GEN_KL_GET:
		gen_kl_get(g, ai, n);
		break;
	default:
		gen_kl_create(g, ai, n);
		break;
	}
}

/* Schedules the kubelet's node status patch at t0 (nothing is audited while
 * the Node is gone: its GETs of the Node are not audited). */
void gen_status_next(struct gen_ctx *g, uint32_t ai, int64_t t0)
{
	struct gen_actor *a = &g->actors[ai];
	gen_sched(g, ai, t0, t0 + gen_lat(&a->rng, 2500, 3000));
}

/* Kubelet node status: PATCH nodes/<node>/status, 200, at least every 5 min
 * (checked every 10 s); while the Node is deleted it only checks again. */
void gen_status_step(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_node *n = &g->nodes[a->idx];
	struct gen_ev e;
	if (!n->exists) {
		gen_status_next(g, ai, a->t1 + gen_renew_gap(&a->rng));
		return;
	}
	gen_ev_start(&e, a, &n->who, "patch");
	snprintf(g->uri, sizeof g->uri, "/api/v1/nodes/%s/status?timeout=10s", n->name);
	e.uri = g->uri;
	e.ref.resource = "nodes";
	e.ref.name = n->name;
	e.ref.sub = "status";
	e.code = 200;
	g->rv++;
	gen_emit(g, &e);
	gen_status_next(g, ai, a->t1 + 300 * GEN_SEC + gen_range(&a->rng, 0, 10400 * GEN_MSEC));
}
