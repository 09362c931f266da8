/*
 * sample-gen-setup.c - building the simulated cluster from the options:
 * nodes, control-plane hosts, leader-election candidates, the identities
 * (user, sourceIPs, userAgent) of every client, the output streams and the
 * log writer; and freeing it all.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample-gen-sim.h"

/* Builds w: the user/sourceIPs/userAgent fragment of one identity. groups is
 * JSON array content and extra a JSON object (or NULL); both are trusted text. */
static void gen_who_init(struct gen_who *w, const char *user, const char *uid, const char *groups,
			 const char *extra, const char *ip, const char *ua, const char *authz)
{
	struct gen_buf *b = &w->frag;
	GEN_LIT(b, "\"user\":{\"username\":");
	gen_put_json(b, user);
	if (uid) {
		GEN_LIT(b, ",\"uid\":");
		gen_put_json(b, uid);
	}
	GEN_LIT(b, ",\"groups\":[");
	gen_puts(b, groups);
	GEN_LIT(b, "]");
	if (extra) {
		GEN_LIT(b, ",\"extra\":");
		gen_puts(b, extra);
	}
	GEN_LIT(b, "},\"sourceIPs\":[");
	gen_put_json(b, ip);
	GEN_LIT(b, "],\"userAgent\":");
	gen_put_json(b, ua);
	GEN_LIT(b, ",");
	w->authz = authz;
}

/* Builds the identity of node n's kubelet: an EKS node role session. */
static void gen_node_who(struct gen_node *n, struct gen_rng *r)
{
	char key[17], principal[18], inst[18], uid[96], user[80], extra[640];
	const char *up = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	gen_word(key, 16, up, r);
	gen_word(principal, 17, up, r);
	gen_word(inst, 17, "0123456789abcdef", r);
	inst[0] = '0';
	snprintf(uid, sizeof uid, "aws-iam-authenticator:" GEN_ACCOUNT ":AROA%s", principal);
	snprintf(user, sizeof user, "system:node:%s", n->name);
	snprintf(extra, sizeof extra,
		 "{\"accessKeyId\":[\"ASIA%s\"],\"arn\":[\"arn:aws:sts::" GEN_ACCOUNT
		 ":assumed-role/eks-ng-general-NodeInstanceRole/i-%s\"],\"canonicalArn\":["
		 "\"arn:aws:iam::" GEN_ACCOUNT ":role/eks-ng-general-NodeInstanceRole\"],"
		 "\"principalId\":[\"AROA%s\"],\"sessionName\":[\"i-%s\"]}",
		 key, inst, principal, inst);
	gen_who_init(&n->who, user, uid, GEN_NODE_GROUPS, extra, n->ip, GEN_KUBELET_UA, "");
}

/* Sets up node i: EKS-style name from a unique 10.x.y.z address, its kubelet
 * identity, its lease, and its two actors with staggered phases. */
static void gen_node_init(struct gen_ctx *g, size_t i, unsigned k3, unsigned k4)
{
	struct gen_node *n = &g->nodes[i];
	struct gen_rng r;
	unsigned o2 = (unsigned)(i / 62500 % 256), o3 = (unsigned)((i / 250 % 250) * 11 + k3) % 250;
	unsigned o4 = 2 + (unsigned)((i % 250) * 97 + k4) % 250;
	gen_rng_seed(&r, g->o->seed, (6ULL << 32) + i);
	snprintf(n->ip, sizeof n->ip, "10.%u.%u.%u", o2, o3, o4);
	snprintf(n->name, sizeof n->name, "ip-10-%u-%u-%u.ec2.internal", o2, o3, o4);
	gen_uuid(n->uid, &r);
	gen_node_who(n, &r);
	n->exists = true;
	struct gen_lease *l = &n->lease;
	l->ns = "kube-node-lease";
	l->name = n->name;
	l->owner_uid = n->uid;
	gen_uuid(l->uid, &r);
	snprintf(l->holder, sizeof l->holder, "%s", n->name);
	l->rv = g->rv - (uint64_t)gen_range(&r, 1, 90000);
	l->created = g->t_start - gen_range(&r, 1, 30 * 86400) * GEN_SEC;
	l->renew = g->t_start - gen_range(&r, 0, 10 * GEN_SEC);
	l->duration = 40;
	l->transitions = -1;
	l->exists = true;
	n->lease_actor = gen_actor_new(g, GEN_A_LEASE, (uint32_t)i, 2 * (uint64_t)i);
	n->status_actor = gen_actor_new(g, GEN_A_STATUS, (uint32_t)i, 2 * (uint64_t)i + 1);
	g->actors[n->status_actor].server = g->actors[n->lease_actor].server;
	struct gen_actor *la = &g->actors[n->lease_actor], *sa = &g->actors[n->status_actor];
	gen_kl_next(g, n->lease_actor, GEN_KL_UPDATE,
		    g->t_start + gen_range(&la->rng, 0, 10400 * GEN_MSEC));
	gen_status_next(g, n->status_actor, g->t_start + gen_range(&sa->rng, 0, 300 * GEN_SEC));
}

/* Sets up the control-plane hosts (one per apiserver) and their identity leases. */
static void gen_hosts_init(struct gen_ctx *g, struct gen_rng *r)
{
	unsigned base = (unsigned)gen_range(r, 0, 31);
	for (unsigned h = 0; h < g->napi; h++) {
		struct gen_host *ho = &g->hosts[h];
		struct gen_lease *l = &g->idents[h];
		unsigned o3 = 32 + (base + h * 7) % 32, o4 = (unsigned)gen_range(r, 2, 254);
		char hash[17], *labels = gen_calloc(1, 160);
		snprintf(ho->ip, sizeof ho->ip, "172.16.%u.%u", o3, o4);
		snprintf(ho->name, sizeof ho->name, "ip-172-16-%u-%u.ec2.internal", o3, o4);
		gen_word(hash, 16, "abcdefghijklmnopqrstuvwxyz234567", r);
		l->ns = "kube-system";
		l->name = gen_calloc(1, 32);
		snprintf((char *)l->name, 32, "apiserver-%s", hash);
		snprintf(labels, 160,
			 "{\"apiserver.kubernetes.io/identity\":\"kube-apiserver\","
			 "\"kubernetes.io/hostname\":\"%s\"}",
			 ho->name);
		l->labels = labels;
		gen_uuid(l->uid, r);
		int n = snprintf(l->holder, sizeof l->holder, "%s_", l->name);
		gen_uuid(l->holder + n, r);
		l->rv = g->rv - (uint64_t)gen_range(r, 1, 90000);
		l->created = g->t_start - gen_range(r, 3600, 7 * 86400) * GEN_SEC;
		l->renew = g->t_start - gen_range(r, 0, 10 * GEN_SEC);
		l->duration = 3600;
		l->transitions = -1;
		l->exists = true;
		uint32_t ai = gen_actor_new(g, GEN_A_IDENT, h, (1ULL << 32) + 16 + h);
		int64_t t0 = g->t_start + gen_range(&g->actors[ai].rng, 0, 10 * GEN_SEC);
		g->actors[ai].server = (uint8_t)h;
		gen_sched(g, ai, t0, t0 + 1500);
	}
}

/* Sets up kube-controller-manager (leader on host 0) and kube-scheduler
 * (leader on host 1), each with one candidate on the other host. */
static void gen_elect_init(struct gen_ctx *g, struct gen_rng *r)
{
	static const char *const comp[2] = {"kube-controller-manager", "kube-scheduler"};
	static const char *const user[2] = {"system:kube-controller-manager",
					    "system:kube-scheduler"};
	static char authz[2][200], ua[2][120];
	for (unsigned k = 0; k < 2; k++) {
		struct gen_comp *co = &g->comps[k];
		snprintf(authz[k], sizeof authz[k],
			 "RBAC: allowed by ClusterRoleBinding \"%s\" of ClusterRole \"%s\" to User "
			 "\"%s\"",
			 user[k], user[k], user[k]);
		snprintf(ua[k], sizeof ua[k], "%s" GEN_K8S_UA "/leader-election", comp[k]);
		co->name = comp[k];
		co->stalled = -1;
		co->lease =
		    (struct gen_lease){.ns = "kube-system", .name = comp[k], .duration = 15};
		gen_uuid(co->lease.uid, r);
		co->lease.rv = g->rv - (uint64_t)gen_range(r, 1, 900);
		co->lease.created = g->t_start - gen_range(r, 10, 60) * 86400 * GEN_SEC;
		co->lease.acquire = g->t_start - gen_range(r, 3600 * GEN_SEC, 3 * 86400 * GEN_SEC);
		co->lease.renew = g->t_start - gen_range(r, 0, 2 * GEN_SEC);
		co->lease.transitions = (int)gen_range(r, 1, 6);
		co->lease.exists = true;
		for (unsigned h = 0; h < 2; h++) {
			struct gen_cand *c = &g->cands[2 * k + h];
			c->comp = k;
			c->host = h;
			int n = snprintf(c->ident, sizeof c->ident, "%s_", g->hosts[h].name);
			gen_uuid(c->ident + n, r);
			gen_who_init(&c->who, user[k], NULL, "\"system:authenticated\"", NULL,
				     g->hosts[h].ip, ua[k], authz[k]);
			uint32_t ai =
			    gen_actor_new(g, GEN_A_ELECT, 2 * k + h, (1ULL << 32) + 2 * k + h);
			struct gen_actor *a = &g->actors[ai];
			a->server = (uint8_t)h;
			if (h == k) {
				snprintf(co->lease.holder, sizeof co->lease.holder, "%s", c->ident);
				c->started = true;
				c->seen = co->lease;
				c->obs_rv = co->lease.rv;
				c->obs_t = g->t_start;
				gen_el_next(g, ai, GEN_E_LEAD,
					    g->t_start + gen_range(&a->rng, 0, 2 * GEN_SEC));
			} else {
				gen_el_next(g, ai, GEN_E_WAIT,
					    g->t_start + gen_range(&a->rng, 0, 4400 * GEN_MSEC));
			}
		}
	}
}

/* Random parts of the fixed identities, drawn in one fixed order. */
struct gen_ids {
	char key[17], pr[18], pod[6];
	char admin_ip[16], app_ip[16];
	char uid[8]
		[37]; /* 1: GC, 2: apiserver, 3: RS, 4: EP, 5: aws-node pod, 6: aws-node, 7: app */
};

/* Draws the random parts of the fixed identities (the order fixes the output). */
static void gen_ids_draw(struct gen_ids *d, struct gen_rng *r)
{
	const char *up = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	gen_word(d->key, 16, up, r);
	gen_word(d->pr, 17, up, r);
	unsigned a4 = (unsigned)gen_range(r, 2, 254);
	snprintf(d->admin_ip, sizeof d->admin_ip, "203.0.113.%u", a4);
	for (int i = 1; i < 6; i++)
		gen_uuid(d->uid[i], r);
	gen_word(d->pod, 5, "bcdfghjklmnpqrstvwxz2456789", r);
	gen_uuid(d->uid[6], r);
	unsigned o3 = (unsigned)gen_range(r, 64, 95);
	unsigned o4 = (unsigned)gen_range(r, 2, 254);
	snprintf(d->app_ip, sizeof d->app_ip, "10.0.%u.%u", o3, o4);
	gen_uuid(d->uid[7], r);
}

/* Builds the story and control-plane identities: kubectl admin, the garbage
 * collector on each control-plane host, and system:apiserver. */
static void gen_whos_control(struct gen_ctx *g, const struct gen_ids *d)
{
	char uid[96], extra[400];
	snprintf(uid, sizeof uid, "aws-iam-authenticator:" GEN_ACCOUNT ":AIDA%s", d->pr);
	snprintf(extra, sizeof extra,
		 "{\"accessKeyId\":[\"AKIA%s\"],\"arn\":[\"arn:aws:iam::" GEN_ACCOUNT
		 ":user/ops-admin\"],\"canonicalArn\":[\"arn:aws:iam::" GEN_ACCOUNT
		 ":user/ops-admin\"],\"principalId\":[\"AIDA%s\"],\"sessionName\":[\"\"]}",
		 d->key, d->pr);
	gen_who_init(&g->w[GEN_W_ADMIN], "kubernetes-admin", uid,
		     "\"system:masters\",\"system:authenticated\"", extra, d->admin_ip,
		     GEN_KUBECTL_UA, "");
	for (int h = 0; h < 2; h++)
		gen_who_init(&g->w[GEN_W_GC0 + h],
			     "system:serviceaccount:kube-system:generic-garbage-collector",
			     d->uid[1], GEN_SA_GROUPS, NULL, g->hosts[h].ip,
			     "kube-controller-manager" GEN_K8S_UA
			     "/system:serviceaccount:kube-system:generic-garbage-collector",
			     "RBAC: allowed by ClusterRoleBinding "
			     "\"system:controller:generic-garbage-collector\" of ClusterRole "
			     "\"system:controller:generic-garbage-collector\" to ServiceAccount "
			     "\"generic-garbage-collector/kube-system\"");
	gen_who_init(&g->w[GEN_W_APISERVER], "system:apiserver", d->uid[2], "\"system:masters\"",
		     NULL, "::1", "kube-apiserver" GEN_K8S_UA, "");
}

/* Builds the identities of the noise table (kubelets excepted: they are per node). */
static void gen_whos_noise(struct gen_ctx *g, const struct gen_ids *d)
{
	char extra[400];
	gen_who_init(&g->w[GEN_W_SCHED], "system:kube-scheduler", NULL, "\"system:authenticated\"",
		     NULL, g->hosts[1].ip, "kube-scheduler" GEN_K8S_UA "/scheduler",
		     "RBAC: allowed by ClusterRoleBinding \"system:kube-scheduler\" of ClusterRole "
		     "\"system:kube-scheduler\" to User \"system:kube-scheduler\"");
	gen_who_init(
	    &g->w[GEN_W_RS], "system:serviceaccount:kube-system:replicaset-controller", d->uid[3],
	    GEN_SA_GROUPS, NULL, g->hosts[0].ip,
	    "kube-controller-manager" GEN_K8S_UA
	    "/system:serviceaccount:kube-system:replicaset-controller",
	    "RBAC: allowed by ClusterRoleBinding \"system:controller:replicaset-controller\" "
	    "of ClusterRole \"system:controller:replicaset-controller\" to ServiceAccount "
	    "\"replicaset-controller/kube-system\"");
	gen_who_init(
	    &g->w[GEN_W_EP], "system:serviceaccount:kube-system:endpoint-controller", d->uid[4],
	    GEN_SA_GROUPS, NULL, g->hosts[0].ip,
	    "kube-controller-manager" GEN_K8S_UA
	    "/system:serviceaccount:kube-system:endpoint-controller",
	    "RBAC: allowed by ClusterRoleBinding \"system:controller:endpoint-controller\" "
	    "of ClusterRole \"system:controller:endpoint-controller\" to ServiceAccount "
	    "\"endpoint-controller/kube-system\"");
	snprintf(extra, sizeof extra,
		 "{\"authentication.kubernetes.io/pod-name\":[\"aws-node-%s\"],"
		 "\"authentication.kubernetes.io/pod-uid\":[\"%s\"]}",
		 d->pod, d->uid[5]);
	gen_who_init(
	    &g->w[GEN_W_CNI], "system:serviceaccount:kube-system:aws-node", d->uid[6],
	    GEN_SA_GROUPS, extra, g->nodes[0].ip,
	    "aws-node/v1.18.0 (linux/amd64) kubernetes/$Format",
	    "RBAC: allowed by ClusterRoleBinding \"aws-node\" of ClusterRole \"aws-node\" to "
	    "ServiceAccount \"aws-node/kube-system\"");
	gen_who_init(
	    &g->w[GEN_W_APP], "system:serviceaccount:prod:web", d->uid[7],
	    "\"system:serviceaccounts\",\"system:serviceaccounts:prod\",\"system:authenticated\"",
	    NULL, d->app_ip, "web/1.4.2 (linux/amd64) kubernetes/$Format",
	    "RBAC: allowed by RoleBinding \"web-config-reader/prod\" of Role \"config-reader\" "
	    "to ServiceAccount \"web/prod\"");
}

/* Builds the identities of the stories and of the noise table. */
static void gen_whos_init(struct gen_ctx *g, struct gen_rng *r)
{
	struct gen_ids d;
	gen_ids_draw(&d, r);
	gen_whos_control(g, &d);
	gen_whos_noise(g, &d);
}

/* Opens the output streams: stdout, FILE, or FILE.1..FILE.N. Returns 0 or -1. */
int gen_open(struct gen_ctx *g)
{
	g->nouts = (unsigned)g->o->split;
	g->outs = gen_calloc(g->nouts, sizeof *g->outs);
	for (unsigned i = 0; i < g->nouts; i++) {
		char path[4096];
		if (!g->o->out) { /* with log options and no -o: no audit log */
			g->outs[i].f = gen_log_wanted(&g->o->logs) ? NULL : stdout;
			continue;
		}
		if (g->nouts == 1)
			snprintf(path, sizeof path, "%s", g->o->out);
		else
			snprintf(path, sizeof path, "%s.%u", g->o->out, i + 1);
		g->outs[i].f = fopen(path, "wb");
		if (!g->outs[i].f) {
			fprintf(stderr, "lt-gen: cannot open %s: %s\n", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Flushes and closes the outputs; returns 0, or -1 after a write error. */
int gen_close(struct gen_ctx *g)
{
	int rc = 0;
	for (unsigned i = 0; i < g->nouts && g->outs; i++) {
		struct gen_out *o = &g->outs[i];
		if (!o->f) {
			gen_buf_free(&o->buf);
			continue;
		}
		gen_flush(o);
		if (o->f == stdout ? fflush(o->f) != 0 : fclose(o->f) != 0)
			o->failed = true;
		if (o->failed && rc == 0) {
			fprintf(stderr, "lt-gen: write error: %s\n", strerror(errno));
			rc = -1;
		}
		gen_buf_free(&o->buf);
	}
	free(g->outs);
	return rc;
}

/* Sets up the log writer, if logs are asked for: it learns the names of the
 * nodes and hosts; the lease-delete node's journals use its short host name. */
static void gen_logs_init(struct gen_ctx *g)
{
	size_t ld = g->nnodes >= 3 ? 1 : 0;
	g->log = gen_log_new(&g->o->logs, g->o->seed, g->t_start, g->t_end, g->nnodes, g->napi, 0);
	if (!g->log)
		return;
	if (!(g->o->stories & GEN_STORY_LEASE_DELETE))
		ld = g->nnodes;
	for (size_t i = 0; i < g->nnodes; i++)
		gen_log_node(g->log, i, g->nodes[i].name, g->nodes[i].ip, i == ld);
	for (unsigned h = 0; h < g->napi; h++)
		gen_log_host(g->log, h, g->hosts[h].name);
}

/* Sets up the whole simulated cluster for options o. */
void gen_init(struct gen_ctx *g, const struct gen_opts *o)
{
	struct gen_rng r;
	memset(g, 0, sizeof *g);
	g->o = o;
	g->t_start = o->start;
	g->t_end = o->start + o->minutes * 60 * GEN_SEC;
	g->napi = o->split > 2 ? (unsigned)o->split : 2;
	gen_rng_seed(&r, o->seed, 5ULL << 32);
	g->rv = 2000000 + (uint64_t)gen_range(&r, 0, 999999);
	g->nnodes = (size_t)o->nodes;
	g->nodes = gen_calloc(g->nnodes, sizeof *g->nodes);
	unsigned k3 = (unsigned)gen_range(&r, 0, 249), k4 = (unsigned)gen_range(&r, 0, 249);
	for (size_t i = 0; i < g->nnodes; i++)
		gen_node_init(g, i, k3, k4);
	g->hosts = gen_calloc(g->napi, sizeof *g->hosts);
	g->idents = gen_calloc(g->napi, sizeof *g->idents);
	gen_hosts_init(g, &r);
	gen_elect_init(g, &r);
	gen_whos_init(g, &r);
	gen_noise_init(g, &r);
	gen_stories_init(g);
	gen_logs_init(g);
}

/* Frees everything gen_init allocated. */
void gen_release(struct gen_ctx *g)
{
	for (size_t i = 0; i < g->nnodes; i++)
		gen_buf_free(&g->nodes[i].who.frag);
	for (unsigned i = 0; i < g->napi; i++) {
		free((char *)g->idents[i].name);
		free((char *)g->idents[i].labels);
	}
	for (unsigned i = 0; i < 4; i++)
		gen_buf_free(&g->cands[i].who.frag);
	for (unsigned i = 0; i < GEN_W_COUNT; i++)
		gen_buf_free(&g->w[i].frag);
	gen_buf_free(&g->reqb);
	gen_buf_free(&g->respb);
	gen_buf_free(&g->urib);
	free(g->nodes);
	free(g->hosts);
	free(g->idents);
	free(g->actors);
	free(g->watches);
	free(g->free_ids);
	free(g->heap);
	gen_log_free(g->log);
}
