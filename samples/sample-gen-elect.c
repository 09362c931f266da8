/*
 * sample-gen-elect.c - leader election (client-go's leaderelection: the
 * leader renews every 2 s, candidates poll, a takeover after 15 s; a
 * stalled leader that wakes up loses with two 409s and exits) and the
 * apiservers' identity leases.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample-gen-sim.h"

/* Returns the latency of a candidate's request: get (update = false) or update. */
static int64_t gen_el_lat(struct gen_actor *a, bool update)
{
	return update ? gen_lat(&a->rng, 1500, 2000) : gen_lat(&a->rng, 600, 900);
}

/* Schedules candidate ai's next request in state st starting at t0. */
void gen_el_next(struct gen_ctx *g, uint32_t ai, uint8_t st, int64_t t0)
{
	struct gen_actor *a = &g->actors[ai];
	bool update = st != GEN_E_WAIT && st != GEN_E_RGET && st != GEN_E_RSLOW;
	a->state = st;
	gen_sched(g, ai, t0, t0 + gen_el_lat(a, update));
}

/* Returns the next start of a candidate's get loop (wait.JitterUntil with the
 * 2 s retry period and client-go's jitter factor 1.2: 2.0-4.4 s). */
static int64_t gen_el_poll(struct gen_actor *a)
{
	int64_t jitter = (int64_t)(2.4 * GEN_SEC * gen_unit(&a->rng));
	return a->t1 + 2 * GEN_SEC + jitter + gen_range(&a->rng, 100, 900);
}

/* Candidate ai GETs its component's lease (200) and remembers when it last changed. */
static void gen_el_get(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_cand *c = &g->cands[a->idx];
	struct gen_lease *l = &g->comps[c->comp].lease;
	struct gen_ev e;
	gen_ev_start(&e, a, &c->who, "get");
	gen_ev_lease(g, &e, l, true, "?timeout=5s");
	e.code = 200;
	gen_lease_obj(g, &e, l, true, true);
	gen_emit(g, &e);
	c->seen = *l;
	if (l->rv != c->obs_rv) {
		c->obs_rv = l->rv;
		c->obs_t = a->t1;
	}
}

/* Candidate ai sends an update of its component's lease carrying v (v.rv is
 * the version it last saw); 200 commits v, a stale version gets 409 Conflict.
 * Returns whether it succeeded. */
static bool gen_el_update(struct gen_ctx *g, uint32_t ai, const struct gen_lease *v)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_cand *c = &g->cands[a->idx];
	struct gen_lease *l = &g->comps[c->comp].lease;
	struct gen_ev e;
	bool ok = l->rv == v->rv;
	gen_ev_start(&e, a, &c->who, "update");
	gen_ev_lease(g, &e, l, true, "?timeout=5s");
	e.ref.uid = l->uid;
	e.ref.rv = v->rv;
	gen_lease_obj(g, &e, v, false, true);
	if (ok) {
		e.code = 200;
		*l = *v;
		l->rv = ++g->rv;
		c->seen = *l;
		c->obs_rv = l->rv;
		c->obs_t = a->t1;
		gen_lease_obj(g, &e, l, true, true);
	} else {
		gen_fail(g, &e, 409, "Conflict");
		gen_status_obj(g, &e);
	}
	gen_emit(g, &e);
	return ok;
}

/* Returns the lease candidate c would write, based on the version it last saw:
 * as leader (its identity, same acquireTime and transitions) or as a new holder
 * (acquireTime now, transitions + 1). */
static struct gen_lease gen_el_view(const struct gen_cand *c, const struct gen_actor *a,
				    bool takeover)
{
	struct gen_lease v = c->seen;
	snprintf(v.holder, sizeof v.holder, "%s", c->ident);
	v.renew = a->t0 - 200;
	if (takeover) {
		v.acquire = v.renew;
		v.transitions++;
	}
	return v;
}

/* Candidate ai decides to take over at its get ending now: schedules its update
 * and, if the old leader is stalled, wakes it so that it races and loses. */
static void gen_el_takeover(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_comp *co = &g->comps[g->cands[a->idx].comp];
	int64_t now = a->t1, t0 = now + gen_range(&a->rng, 100, 500);
	int64_t t1 = t0 + 3000 + gen_el_lat(a, true);
	a->state = GEN_E_TAKE;
	gen_sched(g, ai, t0, t1);
	co->take_end = t1;
	if (co->stalled < 0)
		return;
	uint32_t old = (uint32_t)co->stalled;
	struct gen_actor *o = &g->actors[old];
	int64_t s0 = now + gen_range(&o->rng, 50, 300);
	int64_t s1 = s0 + gen_el_lat(o, false);
	o->state = GEN_E_RGET;
	gen_sched(g, old, s0, s1 < t1 - 100 ? s1 : t1 - 100);
	co->stalled = -1;
}

/* Runs the request of the woken old leader ai that ends now (GEN_E_R*). */
static void gen_el_woken(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_cand *c = &g->cands[a->idx];
	struct gen_lease v;
	switch (a->state) {
	case GEN_E_RGET: {
		int64_t t0, t1;
		gen_el_get(g, ai);
		c->obs_t = a->t1;
		t0 = a->t1 + gen_range(&a->rng, 100, 400);
		t1 = t0 + gen_el_lat(a, true);
		if (t1 <= g->comps[c->comp].take_end)
			t1 = g->comps[c->comp].take_end + gen_range(&a->rng, 300, 2000);
		a->state = GEN_E_RUPD;
		gen_sched(g, ai, t0, t1);
		break;
	}
	case GEN_E_RUPD:
	case GEN_E_RFAST:
		v = gen_el_view(c, a, false);
		gen_el_update(g, ai, &v);
		if (c->comp == 0)
			gen_fact(g,
				 a->state == GEN_E_RUPD ? GEN_F_LC_CONFLICT : GEN_F_LC_OPTIMISTIC,
				 0, c->host, 0, a->t0, a->t1, NULL);
		if (a->state == GEN_E_RUPD)
			gen_el_next(g, ai, GEN_E_RFAST,
				    a->t1 + 2 * GEN_SEC + gen_range(&a->rng, 0, 900));
		else
			gen_el_next(g, ai, GEN_E_RSLOW, a->t1 + gen_range(&a->rng, 200, 800));
		break;
	default: { /* GEN_E_RSLOW: sees the new holder; "leaderelection lost", restart */
		struct gen_fact f = {.t1 = a->t1, .kind = GEN_F_LC_LOST, .host = (uint8_t)c->host};
		gen_el_get(g, ai);
		snprintf(f.s, sizeof f.s, "%s", c->ident);
		snprintf(c->ident, sizeof c->ident, "%s_", g->hosts[c->host].name);
		gen_uuid(c->ident + strlen(c->ident), &a->rng);
		c->obs_rv = 0;
		c->started = true; /* GEN_F_LC_LOST carries the restart */
		gen_el_next(g, ai, GEN_E_WAIT, a->t1 + gen_range(&a->rng, 15, 30) * GEN_SEC);
		f.t0 = a->t0; /* the restarted process's first get */
		if (c->comp == 0 && g->log)
			gen_log_fact(g->log, &f);
		break;
	}
	}
}

/* Runs the leader-election request of candidate ai that ends now. */
void gen_elect_step(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_cand *c = &g->cands[a->idx];
	struct gen_lease v;
	if (a->state == GEN_E_LEAD || a->state == GEN_E_TAKE) {
		bool take = a->state == GEN_E_TAKE, ok;
		v = gen_el_view(c, a, take);
		ok = gen_el_update(g, ai, &v);
		if (ok && take && c->comp == 0)
			gen_fact(g, GEN_F_LC_ACQUIRED, 0, c->host, 0, a->t0, a->t1, c->ident);
		if (ok)
			gen_el_next(g, ai, GEN_E_LEAD,
				    a->t1 + 2 * GEN_SEC + gen_range(&a->rng, 100, 900));
		else
			gen_el_next(g, ai, GEN_E_WAIT, gen_el_poll(a));
	} else if (a->state == GEN_E_WAIT) {
		struct gen_lease *l = &g->comps[c->comp].lease;
		uint64_t seen = c->obs_rv;
		gen_el_get(g, ai);
		if (!c->started && c->comp == 0)
			gen_fact(g, GEN_F_LC_START, 0, c->host, 0, a->t0, a->t1, NULL);
		c->started = true;
		if (seen == l->rv && strcmp(l->holder, c->ident) != 0 &&
		    a->t0 > c->obs_t + l->duration * GEN_SEC)
			gen_el_takeover(g, ai);
		else
			gen_el_next(g, ai, GEN_E_WAIT, gen_el_poll(a));
	} else {
		gen_el_woken(g, ai);
	}
}

/* Apiserver identity lease: update every 10 s by system:apiserver over loopback. */
void gen_ident_step(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_lease *l = &g->idents[a->idx], req = *l;
	struct gen_ev e;
	gen_ev_start(&e, a, &g->w[GEN_W_APISERVER], "update");
	gen_ev_lease(g, &e, l, true, "");
	e.ref.uid = l->uid;
	e.ref.rv = l->rv;
	req.renew = a->t0 - gen_range(&a->rng, 50, 300);
	gen_lease_obj(g, &e, &req, false, true);
	*l = req;
	l->rv = ++g->rv;
	e.code = 200;
	gen_lease_obj(g, &e, l, true, true);
	gen_emit(g, &e);
	int64_t t0 = a->t1 + gen_renew_gap(&a->rng);
	gen_sched(g, ai, t0, t0 + gen_lat(&a->rng, 800, 1200));
}
