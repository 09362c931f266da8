/*
 * sample-gen-story.c - the scripted stories: their names (--stories), the
 * table of their steps (which story needs each step, when it starts, what
 * it does) and the steps themselves: a lease deleted by an admin, a Node
 * deleted and garbage-collected then re-created by its kubelet, a
 * controller-manager leader that stalls.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample-gen-sim.h"

/* Starts a story event by actor a as identity who, served by a random apiserver. */
static void gen_story_ev(struct gen_ev *e, struct gen_actor *a, const struct gen_who *who,
			 const char *verb, unsigned napi)
{
	gen_ev_start(e, a, who, verb);
	e->server = (unsigned)gen_range(&a->rng, 0, napi - 1);
}

/* At RequestResponse level, sets e's requestObject to DeleteOptions (GC: with a uid precondition).
 */
static void gen_delete_opts(struct gen_ctx *g, struct gen_ev *e, const char *precond_uid)
{
	if (!g->o->rr)
		return;
	g->reqb.len = 0;
	GEN_LIT(&g->reqb, "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"meta.k8s.io/__internal\",");
	if (precond_uid) {
		GEN_LIT(&g->reqb, "\"preconditions\":{\"uid\":");
		gen_put_json(&g->reqb, precond_uid);
		GEN_LIT(&g->reqb, "},");
	}
	GEN_LIT(&g->reqb, "\"propagationPolicy\":\"Background\"}");
	e->reqobj = &g->reqb;
}

/* DELETE of node n's lease by who: 200 (Status with details) or 404. */
static void gen_story_lease_delete(struct gen_ctx *g, struct gen_actor *a, struct gen_node *n,
				   const struct gen_who *who, unsigned server)
{
	struct gen_lease *l = &n->lease;
	struct gen_ev e;
	gen_story_ev(&e, a, who, "delete", g->napi);
	e.server = server;
	gen_ev_lease(g, &e, l, true, "");
	gen_delete_opts(g, &e, who == &g->w[GEN_W_ADMIN] ? NULL : l->uid);
	if (l->exists) {
		e.code = 200;
		e.st = GEN_ST_DELETED;
		e.del_uid = l->uid;
		l->exists = false;
		g->rv++;
	} else {
		gen_fail(g, &e, 404, "NotFound");
	}
	gen_status_obj(g, &e);
	gen_emit(g, &e);
	if (who != &g->w[GEN_W_ADMIN])
		gen_fact(g, GEN_F_GC_DELETE, (uint32_t)(n - g->nodes), server, GEN_GC_LEASE, e.t0,
			 e.t1, l->uid);
}

/* DELETE of a cluster-scoped object named after node n (Node, CSINode, CNINode). */
static void gen_story_delete(struct gen_ctx *g, struct gen_actor *a, struct gen_node *n,
			     const struct gen_who *who, const char *res, const char *group,
			     const char *version, unsigned server)
{
	struct gen_ev e;
	char uid[37];
	gen_story_ev(&e, a, who, "delete", g->napi);
	e.server = server;
	if (group)
		snprintf(g->uri, sizeof g->uri, "/apis/%s/%s/%s/%s", group, version, res, n->name);
	else
		snprintf(g->uri, sizeof g->uri, "/api/v1/%s/%s", res, n->name);
	e.uri = g->uri;
	e.ref = (struct gen_ref){res, NULL, n->name, NULL, group, version, NULL, 0};
	e.code = 200;
	e.st = GEN_ST_DELETED;
	gen_uuid(uid, &a->rng);
	e.del_uid = group ? uid : n->uid;
	g->rv++;
	gen_emit(g, &e);
	if (group)
		gen_fact(g, GEN_F_GC_DELETE, (uint32_t)(n - g->nodes), server,
			 strcmp(res, "cninodes") == 0 ? GEN_GC_CNI : GEN_GC_CSI, e.t0, e.t1, uid);
}

/* Kubelet restart of deleted node n: create nodes (201), then its lease
 * controller and status loop start over on a fresh connection. */
static void gen_story_restart(struct gen_ctx *g, struct gen_actor *a, struct gen_node *n)
{
	struct gen_actor *la = &g->actors[n->lease_actor];
	struct gen_ev e;
	la->server = (uint8_t)gen_range(&a->rng, 0, g->napi - 1);
	gen_ev_start(&e, a, &n->who, "create");
	e.server = la->server;
	e.uri = "/api/v1/nodes";
	e.ref.resource = "nodes";
	e.ref.name = n->name;
	e.code = 201;
	n->exists = true;
	gen_uuid(n->uid, &a->rng);
	g->rv++;
	gen_emit(g, &e);
	gen_fact(g, GEN_F_RESTART, (uint32_t)(n - g->nodes), gen_kcm_leader(g), 0, e.t0, e.t1,
		 n->uid);
	gen_cancel(g, n->lease_actor);
	gen_cancel(g, n->status_actor);
	la->tries = 0;
	gen_kl_next(g, n->lease_actor, GEN_KL_GET, a->t1 + gen_range(&a->rng, 150, 900) * GEN_MSEC);
	g->actors[n->status_actor].server = la->server;
	gen_status_next(g, n->status_actor, a->t1 + gen_range(&a->rng, 1000, 10000) * GEN_MSEC);
}

/* Schedules story step s to start at t0, with a delete's latency. */
static void gen_story_at(struct gen_ctx *g, unsigned s, int64_t t0)
{
	uint32_t ai = g->story[s];
	gen_sched(g, ai, t0, t0 + gen_lat(&g->actors[ai].rng, 5000, 6000));
}

/* Admin deletes the Node; the garbage collector then deletes what it owned:
 * CNINode, Lease and CSINode, from the current controller-manager leader. */
static void gen_story_node_delete(struct gen_ctx *g, struct gen_actor *a, struct gen_node *n)
{
	unsigned host = gen_kcm_leader(g);
	gen_story_delete(g, a, n, &g->w[GEN_W_ADMIN], "nodes", NULL, NULL,
			 (unsigned)gen_range(&a->rng, 0, g->napi - 1));
	n->exists = false;
	gen_fact(g, GEN_F_NODE_DELETE, (uint32_t)(n - g->nodes), host, 0, a->t0, a->t1, n->uid);
	int64_t tl = a->t1 + gen_range(&a->rng, 10, 40) * GEN_MSEC;
	for (unsigned s = GEN_S_ND_GC_CNI; s <= GEN_S_ND_GC_CSI; s++)
		g->actors[g->story[s]].server = (uint8_t)host;
	gen_story_at(g, GEN_S_ND_GC_CNI, tl - gen_range(&a->rng, 1000, 2000));
	gen_story_at(g, GEN_S_ND_GC_LEASE, tl);
	gen_story_at(g, GEN_S_ND_GC_CSI, tl + gen_range(&a->rng, 100, 300));
}

/* The controller-manager leader stops renewing: its request in flight is lost. */
static void gen_story_stall(struct gen_ctx *g, int64_t t)
{
	for (uint32_t i = 0; i < 2; i++) {
		struct gen_cand *c = &g->cands[i];
		if (strcmp(g->comps[0].lease.holder, c->ident) != 0)
			continue;
		for (uint32_t ai = 0; ai < g->nactors; ai++) {
			struct gen_actor *a = &g->actors[ai];
			if (a->kind == GEN_A_ELECT && a->idx == i) {
				gen_cancel(g, ai);
				a->state = GEN_E_STALLED;
				g->comps[0].stalled = ai;
			}
		}
		gen_fact(g, GEN_F_LC_STALL, 0, c->host, 0, t, t, c->ident);
	}
}

/* The node a lease-delete story deletes the lease of, and the one a node-delete story deletes. */
static struct gen_node *gen_story_ld(struct gen_ctx *g)
{
	return &g->nodes[g->nnodes >= 3 ? 1 : 0];
}

static struct gen_node *gen_story_nd(struct gen_ctx *g)
{
	return &g->nodes[g->nnodes - 1];
}

/* The garbage collector's identity on the apiserver that serves step a. */
static const struct gen_who *gen_story_gc(struct gen_ctx *g, const struct gen_actor *a)
{
	return &g->w[a->server ? GEN_W_GC1 : GEN_W_GC0];
}

static void gen_step_ld_delete(struct gen_ctx *g, struct gen_actor *a)
{
	unsigned server = (unsigned)gen_range(&a->rng, 0, g->napi - 1);
	gen_story_lease_delete(g, a, gen_story_ld(g), &g->w[GEN_W_ADMIN], server);
}

static void gen_step_nd_delete(struct gen_ctx *g, struct gen_actor *a)
{
	gen_story_node_delete(g, a, gen_story_nd(g));
}

static void gen_step_nd_gc_cni(struct gen_ctx *g, struct gen_actor *a)
{
	gen_story_delete(g, a, gen_story_nd(g), gen_story_gc(g, a), "cninodes",
			 "vpcresources.k8s.aws", "v1alpha1", a->server);
}

static void gen_step_nd_gc_lease(struct gen_ctx *g, struct gen_actor *a)
{
	gen_story_lease_delete(g, a, gen_story_nd(g), gen_story_gc(g, a), a->server);
}

static void gen_step_nd_gc_csi(struct gen_ctx *g, struct gen_actor *a)
{
	gen_story_delete(g, a, gen_story_nd(g), gen_story_gc(g, a), "csinodes", "storage.k8s.io",
			 "v1", a->server);
}

static void gen_step_nd_restart(struct gen_ctx *g, struct gen_actor *a)
{
	gen_story_restart(g, a, gen_story_nd(g));
}

static void gen_step_lc_stall(struct gen_ctx *g, struct gen_actor *a)
{
	gen_story_stall(g, a->t1);
}

/*
 * The stories --stories names, each a bit of gen_opts.stories.  A new story
 * adds its row here (and its GEN_STORY_* bit in sample-gen-sim.h).
 */
static const struct gen_story gen_stories[] = {
    {.name = "steady", .bit = 0},
    {.name = "none", .bit = 0},
    {.name = "node-delete", .bit = GEN_STORY_NODE_DELETE},
    {.name = "lease-delete", .bit = GEN_STORY_LEASE_DELETE},
    {.name = "leader-change", .bit = GEN_STORY_LEADER_CHANGE},
    /* the hook: node-health stories (sample-gen-health.c) add their names here */
};

/*
 * Every scripted step, indexed by GEN_S_*: the story that needs it, when it
 * starts (percent of the window; -1: an earlier step triggers it with
 * gen_story_at) and what it does when its request ends.  Each step is one
 * actor with random stream (3 << 32) + its index, created in this order:
 * append new steps after the last, so that older samples keep their bytes.
 */
static const struct gen_step gen_steps[GEN_S_COUNT] = {
    [GEN_S_LD_DELETE] = {.story = GEN_STORY_LEASE_DELETE, .at = 20, .run = gen_step_ld_delete},
    [GEN_S_ND_DELETE] = {.story = GEN_STORY_NODE_DELETE, .at = 40, .run = gen_step_nd_delete},
    [GEN_S_ND_GC_CNI] = {.story = GEN_STORY_NODE_DELETE, .at = -1, .run = gen_step_nd_gc_cni},
    [GEN_S_ND_GC_LEASE] = {.story = GEN_STORY_NODE_DELETE, .at = -1, .run = gen_step_nd_gc_lease},
    [GEN_S_ND_GC_CSI] = {.story = GEN_STORY_NODE_DELETE, .at = -1, .run = gen_step_nd_gc_csi},
    [GEN_S_ND_RESTART] = {.story = GEN_STORY_NODE_DELETE, .at = 80, .run = gen_step_nd_restart},
    [GEN_S_LC_STALL] = {.story = GEN_STORY_LEADER_CHANGE, .at = 60, .run = gen_step_lc_stall},
    /* the hook: node-health steps (sample-gen-health.c) add their rows here */
};

/* Runs story step ai (its state says which). */
void gen_story_step(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	gen_steps[a->state].run(g, a);
}

/* Creates the actors of the selected stories at their times (fractions of the window). */
void gen_stories_init(struct gen_ctx *g)
{
	int64_t w = g->t_end - g->t_start;
	for (unsigned s = 0; s < GEN_S_COUNT; s++) {
		const struct gen_step *st = &gen_steps[s];
		if (!(g->o->stories & st->story))
			continue;
		uint32_t ai = gen_actor_new(g, GEN_A_STORY, s, (3ULL << 32) + s);
		g->actors[ai].state = (uint8_t)s;
		g->story[s] = ai;
		if (st->at >= 0)
			gen_story_at(g, s,
				     g->t_start + w * st->at / 100 +
					 gen_range(&g->actors[ai].rng, 0, GEN_SEC));
	}
}

/* Parses the --stories list into a mask; returns 0 or -1 after a message. */
int gen_parse_stories(const char *s, unsigned *out)
{
	const size_t nstories = sizeof gen_stories / sizeof gen_stories[0];
	*out = 0;
	while (*s) {
		size_t n = strcspn(s, ","), i;
		for (i = 0; i < nstories; i++)
			if (strlen(gen_stories[i].name) == n &&
			    memcmp(gen_stories[i].name, s, n) == 0)
				break;
		if (i == nstories) {
			fprintf(stderr, "lt-gen: unknown story '%.*s'\n", (int)n, s);
			return -1;
		}
		*out |= gen_stories[i].bit;
		s += n + (s[n] == ',');
	}
	return 0;
}
