/*
 * sample-gen-noise.c - the unrelated traffic around the stories: one
 * weighted table of request shapes (who, verb, resource, name), the noise
 * streams that draw from it, and the watches they open.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample-gen-sim.h"

static const struct gen_nz gen_noise_tab[] = {
    {18, GEN_W_KUBELET, "patch", "pods", "status", GEN_N_POD, NULL, NULL, 200, GEN_Z_PATCH},
    {10, GEN_W_KUBELET, "create", "events", NULL, GEN_N_EVENT, NULL, NULL, 201, GEN_Z_CREATE},
    {4, GEN_W_KUBELET, "watch", "configmaps", NULL, GEN_N_NONE, "metadata.name%3Dkube-root-ca.crt",
     NULL, 200, GEN_Z_WATCH},
    {8, GEN_W_SCHED, "create", "pods", "binding", GEN_N_POD, NULL, NULL, 201, GEN_Z_CREATE},
    {8, GEN_W_RS, "create", "pods", NULL, GEN_N_POD, NULL, NULL, 201, GEN_Z_CREATE},
    {10, GEN_W_EP, "get", "endpoints", NULL, GEN_N_FIXED, "kubernetes", "default", 200, GEN_Z_GET},
    {10, GEN_W_ADMIN, "list", "pods", NULL, GEN_N_NONE, NULL, NULL, 200, GEN_Z_LIST},
    {3, GEN_W_ADMIN, "get", "pods", NULL, GEN_N_FIXED, "nginx-7854ff8877-x2x5q", "default", 404,
     GEN_Z_GET},
    {4, GEN_W_ADMIN, "get", "configmaps", NULL, GEN_N_FIXED, "aws-auth", "kube-system", 200,
     GEN_Z_GET},
    {5, GEN_W_ADMIN, "list", "events", NULL, GEN_N_NONE, NULL, NULL, 200, GEN_Z_LIST},
    {8, GEN_W_CNI, "patch", "pods", NULL, GEN_N_POD, NULL, NULL, 200, GEN_Z_PATCH},
    {5, GEN_W_APP, "get", "configmaps", NULL, GEN_N_FIXED, "web-config", "prod", 404, GEN_Z_GET},
    {4, GEN_W_APP, "get", "configmaps", NULL, GEN_N_FIXED, "web-flags", "prod", 200, GEN_Z_GET},
    {3, GEN_W_SCHED, "watch", "pods", NULL, GEN_N_NONE,
     "status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed", "", 200, GEN_Z_WATCH},
};

/* Picks a row of gen_noise_tab by weight. */
static const struct gen_nz *gen_nz_pick(struct gen_rng *r)
{
	size_t n = sizeof gen_noise_tab / sizeof gen_noise_tab[0];
	int64_t total = 0, x;
	for (size_t i = 0; i < n; i++)
		total += gen_noise_tab[i].weight;
	x = gen_range(r, 0, total - 1);
	for (size_t i = 0; i < n; i++) {
		x -= gen_noise_tab[i].weight;
		if (x < 0)
			return &gen_noise_tab[i];
	}
	return &gen_noise_tab[0];
}

/* Returns the identity for a noise row: for kubelets, a random live node's. */
static const struct gen_who *gen_nz_who(struct gen_ctx *g, const struct gen_nz *z,
					struct gen_rng *r)
{
	if (z->who != GEN_W_KUBELET)
		return &g->w[z->who];
	size_t i = (size_t)gen_range(r, 0, (int64_t)g->nnodes - 1);
	return g->nodes[i].exists ? &g->nodes[i].who : &g->nodes[0].who;
}

/* Builds the NUL-terminated URI of a noise request into g->urib (watch: with timeoutSeconds secs).
 */
static void gen_nz_uri(struct gen_ctx *g, const struct gen_nz *z, const struct gen_ev *e,
		       unsigned secs)
{
	struct gen_buf *b = &g->urib;
	b->len = 0;
	GEN_LIT(b, "/api/v1");
	if (e->ref.ns) {
		GEN_LIT(b, "/namespaces/");
		gen_puts(b, e->ref.ns);
	}
	GEN_LIT(b, "/");
	gen_puts(b, z->resource);
	if (e->ref.name && (z->kind != GEN_Z_CREATE || z->sub)) {
		GEN_LIT(b, "/");
		gen_puts(b, e->ref.name);
	}
	if (z->sub) {
		GEN_LIT(b, "/");
		gen_puts(b, z->sub);
	}
	if (z->kind == GEN_Z_LIST)
		GEN_LIT(b, "?limit=500");
	if (z->kind == GEN_Z_WATCH) {
		GEN_LIT(b, "?allowWatchBookmarks=true&fieldSelector=");
		gen_puts(b, z->fixed);
		GEN_LIT(b, "&resourceVersion=");
		gen_put_u64(b, g->rv);
		GEN_LIT(b, "&timeout=");
		gen_put_dur(b, secs);
		GEN_LIT(b, "&timeoutSeconds=");
		gen_put_u64(b, secs);
		GEN_LIT(b, "&watch=true");
	}
	GEN_LIT(b, "\0");
}

/* Fills the objectRef of a noise request; name is scratch space for an event name. */
static void gen_nz_ref(struct gen_ctx *g, const struct gen_nz *z, struct gen_ev *e,
		       struct gen_rng *r, char name[96])
{
	const struct gen_pod *p = &g->pods[gen_range(r, 0, GEN_NPODS - 1)];
	e->ref.resource = z->resource;
	e->ref.sub = z->sub;
	e->ref.ns = z->ns ? (*z->ns ? z->ns : NULL) : p->ns;
	if (z->name == GEN_N_POD) {
		e->ref.name = p->name;
	} else if (z->name == GEN_N_FIXED) {
		e->ref.name = z->fixed;
	} else if (z->name == GEN_N_EVENT) {
		snprintf(name, 96, "%s.%016llx", p->name, (unsigned long long)(e->t0 * 1000 + 417));
		e->ref.name = name;
	}
}

/* Opens a watch actor that will write the ResponseComplete of watch e at t1. */
static void gen_watch_open(struct gen_ctx *g, const struct gen_ev *e, int64_t t1)
{
	uint32_t ai = gen_actor_new(g, GEN_A_WATCH, 0, (4ULL << 32) + g->nwatch++);
	struct gen_watch *w = &g->watches[ai];
	g->actors[ai].idx = ai;
	g->actors[ai].server = (uint8_t)e->server;
	memcpy(w->id, e->id, sizeof w->id);
	snprintf(w->uri, sizeof w->uri, "%s", e->uri);
	w->who = e->who;
	w->resource = e->ref.resource;
	w->ns = e->ref.ns;
	w->server = e->server;
	if (!gen_sched(g, ai, e->t0, t1)) {
		gen_cancel(g, ai);
		g->free_ids[g->nfree++] = ai;
	}
}

/* Writes the ResponseComplete of watch actor ai and frees it. */
void gen_watch_step(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_watch *w = &g->watches[ai];
	struct gen_ev e;
	gen_ev_start(&e, a, w->who, "watch");
	memcpy(e.id, w->id, sizeof e.id);
	e.uri = w->uri;
	e.ref.resource = w->resource;
	e.ref.ns = w->ns;
	e.code = 200;
	e.server = w->server;
	gen_emit(g, &e);
	g->free_ids[g->nfree++] = ai;
}

/* Writes one unrelated request (a watch writes its ResponseStarted and opens a
 * watch actor), then schedules the stream's next arrival (Poisson). */
void gen_noise_step(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	const struct gen_nz *z = gen_nz_pick(&a->rng);
	struct gen_ev e;
	char name[96];
	unsigned secs = (unsigned)gen_range(&a->rng, 300, 599);
	gen_ev_start(&e, a, gen_nz_who(g, z, &a->rng), z->verb);
	e.server = (unsigned)gen_range(&a->rng, 0, g->napi - 1);
	gen_nz_ref(g, z, &e, &a->rng, name);
	if (z->kind == GEN_Z_WATCH)
		e.ref.name = NULL;
	gen_nz_uri(g, z, &e, secs);
	e.uri = g->urib.p;
	e.code = z->code;
	if (z->code == 404)
		gen_fail(g, &e, 404, "NotFound");
	if (z->kind == GEN_Z_CREATE || z->kind == GEN_Z_PATCH)
		g->rv++;
	if (z->kind == GEN_Z_WATCH)
		e.stage = "ResponseStarted";
	gen_emit(g, &e);
	int64_t t0 = a->t0 + (int64_t)gen_exp(&a->rng, g->noise_gap);
	if (t0 <= a->t1)
		t0 = a->t1 + gen_range(&a->rng, 50, 500);
	int64_t lat =
	    z->kind == GEN_Z_LIST ? gen_lat(&a->rng, 3000, 12000) : gen_lat(&a->rng, 900, 2500);
	int64_t wend = e.t0 + secs * GEN_SEC + gen_range(&a->rng, 200, 3000);
	gen_sched(g, ai, t0, t0 + lat);
	if (z->kind == GEN_Z_WATCH)
		gen_watch_open(g, &e, wend); /* may move g->actors */
}

/* Makes the pods the noise talks about, and the noise streams. */
void gen_noise_init(struct gen_ctx *g, struct gen_rng *r)
{
	static const char *const ns[] = {"default", "prod",	   "prod",
					 "prod",    "kube-system", "monitoring"};
	static const char *const app[] = {"nginx", "web", "api", "worker", "coredns", "prometheus"};
	for (unsigned i = 0; i < GEN_NPODS; i++) {
		char a[11], b[6];
		gen_word(a, 10, "bcdfghjklmnpqrstvwxz2456789", r);
		gen_word(b, 5, "bcdfghjklmnpqrstvwxz2456789", r);
		g->pods[i].ns = ns[i % 6];
		snprintf(g->pods[i].name, sizeof g->pods[i].name, "%s-%s-%s", app[i % 6], a, b);
	}
	if (g->o->noise <= 0)
		return;
	g->noise_gap = GEN_NOISE_SLOTS * (double)GEN_SEC / g->o->noise;
	for (unsigned k = 0; k < GEN_NOISE_SLOTS; k++) {
		uint32_t ai = gen_actor_new(g, GEN_A_NOISE, k, (2ULL << 32) + k);
		struct gen_actor *a = &g->actors[ai];
		int64_t t0 = g->t_start + (int64_t)gen_exp(&a->rng, g->noise_gap);
		gen_sched(g, ai, t0, t0 + 1500);
	}
}
