/*
 * sample-gen-logs.c - the kubelet and kube-controller-manager side of the
 * stories lt-gen tells in its audit log: the log options, the story lines
 * built from the simulation's facts, and the kube-controller-manager logs.
 *
 * The facts come in stageTimestamp order while the audit log is written;
 * nothing here runs until the audit run is over (gen_log_write). A kubelet
 * logs a failed request a fraction of a millisecond after the apiserver
 * answered it, so each story line sits 20 µs to 2 ms after its audit event.
 * Message texts, file names and levels are those of Kubernetes v1.29 (see
 * /work/shared/docs/LEASES.md and the real logs in /work/shared/corpus/kubelet/).
 * Randomness: one stream per node ((9 << 32) + i) and per host ((10 << 32) + h),
 * none of them shared with the audit simulation.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample-gen-logs.h"

static const char *const gl_fmt_names[] = {
    "short", "short-precise", "short-iso", "short-iso-precise", "json", "cat"};

/* ------------------------------------------------------------- options */

/* Checks a --journal-format list; returns 0 or -1 after a message. */
static int gl_check_fmts(const char *s)
{
	unsigned n = 0;
	while (*s) {
		size_t k = strcspn(s, ","), i;
		for (i = 0; i < sizeof gl_fmt_names / sizeof gl_fmt_names[0]; i++)
			if (strlen(gl_fmt_names[i]) == k && memcmp(gl_fmt_names[i], s, k) == 0)
				break;
		if (i == sizeof gl_fmt_names / sizeof gl_fmt_names[0] || ++n > GL_MAX_FMTS) {
			fprintf(stderr,
				"lt-gen: --journal-format wants up to %d of short, short-precise, "
				"short-iso, short-iso-precise, json, cat; not '%.*s'\n",
				GL_MAX_FMTS, (int)k, s);
			return -1;
		}
		s += k + (s[k] == ',');
	}
	if (n == 0)
		fputs("lt-gen: --journal-format wants at least one format\n", stderr);
	return n ? 0 : -1;
}

int gen_log_parse_opt(struct gen_log_opts *o, const char *name, const char *v)
{
	char *end;
	if (strcmp(name, "--journal-dir") == 0) {
		o->dir = v;
	} else if (strcmp(name, "--journal") == 0) {
		o->file = v;
	} else if (strcmp(name, "--kcm-log") == 0) {
		o->kcm = v;
	} else if (strcmp(name, "--journal-format") == 0) {
		o->fmts = v;
		return gl_check_fmts(v);
	} else if (strcmp(name, "--journal-noise") == 0) {
		errno = 0;
		o->noise = strtod(v, &end);
		o->noise_set = true;
		if (errno || end == v || *end || !(o->noise >= 0 && o->noise <= 60000)) {
			fprintf(stderr,
				"lt-gen: --journal-noise wants a rate in 0..60000, not '%s'\n", v);
			return -1;
		}
	} else {
		return 1;
	}
	return 0;
}

bool gen_log_wanted(const struct gen_log_opts *o)
{
	return o->dir || o->file || o->kcm;
}

/* ------------------------------------------------------------ lifetime */

struct gen_log *gen_log_new(const struct gen_log_opts *o, uint64_t seed, int64_t t_start,
			    int64_t t_end, size_t nnodes, unsigned nhosts, unsigned lead0)
{
	if (!gen_log_wanted(o))
		return NULL;
	struct gen_log *l = gen_calloc(1, sizeof *l);
	const char *s = o->fmts ? o->fmts : "short";
	l->o = *o;
	if (!o->noise_set)
		l->o.noise = 6;
	l->seed = seed;
	l->t_start = t_start;
	l->t_end = t_end;
	l->nnodes = nnodes;
	l->nodes = gen_calloc(nnodes, sizeof *l->nodes);
	l->nhosts = nhosts < 2 ? nhosts : 2;
	l->lead0 = lead0;
	while (*s && l->nfmts < GL_MAX_FMTS) {
		size_t k = strcspn(s, ",");
		for (uint8_t i = 0; i < sizeof gl_fmt_names / sizeof gl_fmt_names[0]; i++)
			if (strlen(gl_fmt_names[i]) == k && memcmp(gl_fmt_names[i], s, k) == 0)
				l->fmts[l->nfmts++] = i;
		s += k + (s[k] == ',');
	}
	return l;
}

void gen_log_node(struct gen_log *l, size_t i, const char *name, const char *ip, bool short_host)
{
	struct gl_node *n = &l->nodes[i];
	struct gen_rng *r = &n->rs;
	snprintf(n->name, sizeof n->name, "%s", name);
	snprintf(n->ip, sizeof n->ip, "%s", ip);
	snprintf(n->host, sizeof n->host, "%.*s", short_host ? (int)strcspn(name, ".") : 47, name);
	n->fmt = l->fmts[i < l->nfmts ? i : l->nfmts - 1];
	gen_rng_seed(r, l->seed, (9ULL << 32) + i);
	gl_hex(n->boot, 32, r);
	gl_hex(n->machine, 32, r);
	gl_hex(n->seqid, 32, r);
	gl_hex(n->stream[0], 32, r);
	gl_hex(n->stream[1], 32, r);
	gl_hex(n->stream[2], 32, r);
	n->booted = l->t_start - gen_range(r, 3600, 40 * 86400) * GEN_SEC;
	n->seqnum0 = (uint64_t)gen_range(r, 200000, 9000000);
	n->pid[0] = (uint32_t)gen_range(r, 1900, 3800);
	n->pid[1] = n->pid[0] + (uint32_t)gen_range(r, 20000, 900000);
	n->cpid = (uint32_t)gen_range(r, 560, 720);
}

void gen_log_host(struct gen_log *l, unsigned h, const char *name)
{
	if (h < l->nhosts)
		snprintf(l->hosts[h], sizeof l->hosts[h], "%s", name);
}

void gen_log_fact(struct gen_log *l, const struct gen_fact *f)
{
	if (!l)
		return;
	GEN_GROW(l->facts, l->cap_facts, l->nfacts + 1);
	l->facts[l->nfacts++] = *f;
}

/* Frees the texts and the array of ls. */
static void gl_lines_free(struct gl_lines *ls)
{
	for (size_t i = 0; i < ls->n; i++)
		free(ls->v[i].text);
	free(ls->v);
	ls->v = NULL;
	ls->n = ls->cap = 0;
}

void gen_log_free(struct gen_log *l)
{
	if (!l)
		return;
	gl_lines_free(&l->story);
	gl_lines_free(&l->kcm[0]);
	gl_lines_free(&l->kcm[1]);
	free(l->facts);
	free(l->nodes);
	free(l);
}

/* --------------------------------------------------------------- lines */

void gl_hex(char *out, size_t n, struct gen_rng *r)
{
	gen_word(out, n, "0123456789abcdef", r);
}

size_t gl_klog_head(char *p, char lvl, int64_t t, uint32_t pid)
{
	int64_t y, sec = t / GEN_SEC, rem = sec % 86400;
	unsigned m, d;
	gen_civil(sec / 86400, &y, &m, &d);
	int k = snprintf(p, 32, "%c%02u%02u %02u:%02u:%02u.%06u %7u ", lvl, m, d,
			 (unsigned)(rem / 3600), (unsigned)(rem / 60 % 60), (unsigned)(rem % 60),
			 (unsigned)(t % GEN_SEC), pid);
	return k > 0 ? (size_t)k : 0;
}

/* Appends a line holding text (taken) to ls. */
static void gl_push(struct gen_log *l, struct gl_lines *ls, uint32_t node, int64_t t, uint8_t unit,
		    uint32_t pid, char *text)
{
	GEN_GROW(ls->v, ls->cap, ls->n + 1);
	ls->v[ls->n++] = (struct gl_line){t, l->seq++, node, pid, unit, text};
}

void gl_add(struct gen_log *l, struct gl_lines *ls, uint32_t node, int64_t t, uint8_t unit,
	    uint32_t pid, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	size_t n = strlen(buf) + 1;
	char *text = gen_calloc(1, n);
	memcpy(text, buf, n);
	gl_push(l, ls, node, t, unit, pid, text);
}

void gl_klog(struct gen_log *l, struct gl_lines *ls, uint32_t node, int64_t t, uint32_t pid,
	     char lvl, const char *src, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	size_t k = gl_klog_head(buf, lvl, t, pid);
	k += (size_t)snprintf(buf + k, sizeof buf - k, "%s] ", src);
	va_start(ap, fmt);
	vsnprintf(buf + k, sizeof buf - k, fmt, ap);
	va_end(ap);
	size_t n = strlen(buf) + 1;
	char *text = gen_calloc(1, n);
	memcpy(text, buf, n);
	gl_push(l, ls, node, t, GL_U_KUBELET, pid, text);
}

/* Orders lines by node, then time, then creation. */
static int gl_cmp_node(const void *pa, const void *pb)
{
	const struct gl_line *a = pa, *b = pb;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* ------------------------------------------------------ kubelet stories */

/* Returns the PID of node n's kubelet at time t. */
static uint32_t gl_pid(const struct gl_node *n, int64_t t)
{
	return n->stop && t >= n->start ? n->pid[1] : n->pid[0];
}

/* A lease update got 404: "Failed to update lease"; after the fifth in a row
 * the lease controller falls back to ensure-lease (component-helpers lease
 * controller.go: maxUpdateRetries = 5). */
static void gl_kl_lease_404(struct gen_log *l, const struct gen_fact *f)
{
	struct gl_node *n = &l->nodes[f->node];
	int64_t t = f->t1 + gen_range(&n->rs, 80, 400);
	gl_klog(
	    l, &l->story, f->node, t, gl_pid(n, t), 'E', "controller.go:193",
	    "\"Failed to update lease\" err=\"leases.coordination.k8s.io \\\"%s\\\" not found\"",
	    n->name);
	if (++n->fails < 5)
		return;
	n->fails = 0;
	t += gen_range(&n->rs, 20, 90);
	gl_klog(l, &l->story, f->node, t, gl_pid(n, t), 'I', "controller.go:116",
		"\"failed to update lease using latest lease, fallback to ensure lease\" "
		"err=\"failed 5 attempts to update lease\"");
}

/* The ensure-lease GET got 404 and the Node is gone: the owner reference
 * cannot be set, so no lease is created this round (nodelease.go). */
static void gl_kl_owner_404(struct gen_log *l, const struct gen_fact *f)
{
	struct gl_node *n = &l->nodes[f->node];
	int64_t t = f->t1 + gen_range(&n->rs, 600, 1800);
	gl_klog(l, &l->story, f->node, t, gl_pid(n, t), 'E', "nodelease.go:49",
		"\"Failed to get node when trying to set owner ref to the node lease\" "
		"err=\"nodes \\\"%s\\\" not found\" node=\"%s\"",
		n->name, n->name);
	n->last_err = t;
}

/* The kubelet's start-up lines, from start to the node registration (t0, t1). */
static void gl_kl_startup(struct gen_log *l, uint32_t i, int64_t t0, int64_t t1)
{
	struct gl_node *n = &l->nodes[i];
	struct gen_rng *r = &n->rs;
	uint32_t p = n->pid[1];
	int64_t t = n->start + gen_range(r, 20, 60) * GEN_MSEC;
	gl_add(l, &l->story, i, t, GL_U_KUBELET, p,
	       "Flag --container-runtime-endpoint has been deprecated, This parameter should be "
	       "set via the config file specified by the Kubelet's --config flag. See "
	       "https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ for more "
	       "information.");
	gl_add(l, &l->story, i, t + 11, GL_U_KUBELET, p,
	       "Flag --pod-infra-container-image has been deprecated, will be removed in a future "
	       "release. Image garbage collector will get sandbox image information from CRI.");
	t += gen_range(r, 2, 9) * GEN_MSEC;
	gl_klog(l, &l->story, i, t, p, 'I', "server.go:204",
		"\"--pod-infra-container-image will not be pruned by the image garbage collector "
		"in kubelet and should also be set in the remote runtime\"");
	gl_klog(l, &l->story, i, t + 35, p, 'I', "server.go:487",
		"\"Kubelet version\" kubeletVersion=\"" GL_KUBELET_VER "\"");
	gl_klog(l, &l->story, i, t + 52, p, 'I', "server.go:489",
		"\"Golang settings\" GOGC=\"\" GOMAXPROCS=\"\" GOTRACEBACK=\"\"");
	t += gen_range(r, 30, 90) * GEN_MSEC;
	gl_klog(l, &l->story, i, t, p, 'I', "dynamic_cafile_content.go:157",
		"\"Starting controller\" name=\"" GL_CA_BUNDLE "\"");
	t = t0 - gen_range(r, 100, 500);
	gl_klog(l, &l->story, i, t, p, 'I', "kubelet_node_status.go:73",
		"\"Attempting to register node\" node=\"%s\"", n->name);
	t = t1 + gen_range(r, 200, 800);
	gl_klog(l, &l->story, i, t, p, 'I', "kubelet_node_status.go:76",
		"\"Successfully registered node\" node=\"%s\"", n->name);
}

/* The kubelet of a deleted Node is restarted: systemd stops it (after its
 * last ensure-lease error) and starts a new process that registers the Node
 * at the audit's `create nodes` (t0 .. t1). */
static void gl_kl_restart(struct gen_log *l, const struct gen_fact *f)
{
	struct gl_node *n = &l->nodes[f->node];
	struct gen_rng *r = &n->rs;
	uint32_t i = f->node;
	int64_t start = f->t0 - gen_range(r, 700, 1100) * GEN_MSEC;
	int64_t stop = start - gen_range(r, 250, 450) * GEN_MSEC;
	if (stop < n->last_err + 50 * GEN_MSEC) {
		stop = n->last_err + 50 * GEN_MSEC;
		if (start < stop + 100 * GEN_MSEC)
			start = stop + (f->t0 - stop) / 2;
	}
	n->stop = stop;
	n->start = start;
	gl_add(l, &l->story, i, stop, GL_U_SYSTEMD, 1,
	       "Stopping kubelet.service - Kubernetes Kubelet...");
	gl_klog(l, &l->story, i, stop + gen_range(r, 900, 3000), n->pid[0], 'I',
		"dynamic_cafile_content.go:171",
		"\"Shutting down controller\" name=\"" GL_CA_BUNDLE "\"");
	int64_t t = stop + gen_range(r, 40, 120) * GEN_MSEC;
	gl_add(l, &l->story, i, t, GL_U_SYSTEMD, 1, "kubelet.service: Deactivated successfully.");
	gl_add(l, &l->story, i, t + 180, GL_U_SYSTEMD, 1,
	       "Stopped kubelet.service - Kubernetes Kubelet.");
	int64_t cpu = gen_range(r, 60000, 599999); /* ms */
	gl_add(l, &l->story, i, t + 230, GL_U_SYSTEMD, 1,
	       "kubelet.service: Consumed %dmin %d.%03ds CPU time.", (int)(cpu / 60000),
	       (int)(cpu / 1000 % 60), (int)(cpu % 1000));
	gl_add(l, &l->story, i, start, GL_U_SYSTEMD, 1,
	       "Started kubelet.service - Kubernetes Kubelet.");
	gl_kl_startup(l, i, f->t0, f->t1);
}

/* While node i's Node is gone (from its deletion to end): every ~10 s the node
 * status loop fails 5 times (it GETs its Node first) and gives up, and the
 * eviction manager cannot read its node (kubelet_node_status.go, eviction_manager.go). */
static void gl_kl_gone(struct gen_log *l, uint32_t i, int64_t end)
{
	struct gl_node *n = &l->nodes[i];
	struct gen_rng *r = &n->rs;
	int64_t ts = n->del + gen_range(r, 0, 10 * GEN_SEC);
	int64_t te = n->del + gen_range(r, 0, 10 * GEN_SEC);
	for (; ts < end; ts += 10 * GEN_SEC + gen_range(r, 0, 400 * GEN_MSEC)) {
		int64_t t = ts;
		for (int k = 0; k < 5; k++) {
			t += gen_range(r, 4000, 6200);
			gl_klog(
			    l, &l->story, i, t, n->pid[0], 'E', "kubelet_node_status.go:549",
			    "\"Error updating node status, will retry\" err=\"error getting node "
			    "\\\"%s\\\": nodes \\\"%s\\\" not found\"",
			    n->name, n->name);
		}
		gl_klog(l, &l->story, i, t + gen_range(r, 20, 60), n->pid[0], 'E',
			"kubelet_node_status.go:536",
			"\"Unable to update node status\" err=\"update node status exceeds retry "
			"count\"");
	}
	for (; te < end; te += 10 * GEN_SEC + gen_range(r, 0, 60 * GEN_MSEC))
		gl_klog(
		    l, &l->story, i, te, n->pid[0], 'E', "eviction_manager.go:282",
		    "\"Eviction manager: failed to get summary stats\" err=\"failed to get node "
		    "info: node \\\"%s\\\" not found\"",
		    n->name);
}

/* Builds every node's story lines from the facts, sorted by node and time,
 * and notes where each node's lines start. */
static void gl_build_kubelet(struct gen_log *l)
{
	for (size_t k = 0; k < l->nfacts; k++) {
		const struct gen_fact *f = &l->facts[k];
		if (f->kind == GEN_F_LEASE_404)
			gl_kl_lease_404(l, f);
		else if (f->kind == GEN_F_OWNER_404)
			gl_kl_owner_404(l, f);
		else if (f->kind == GEN_F_NODE_DELETE)
			l->nodes[f->node].del = f->t1;
		else if (f->kind == GEN_F_RESTART)
			gl_kl_restart(l, f);
	}
	for (uint32_t i = 0; i < l->nnodes; i++)
		if (l->nodes[i].del)
			gl_kl_gone(l, i, l->nodes[i].stop ? l->nodes[i].stop : l->t_end);
	if (l->story.n)
		qsort(l->story.v, l->story.n, sizeof *l->story.v, gl_cmp_node);
	for (size_t k = l->story.n; k-- > 0;) {
		struct gl_node *n = &l->nodes[l->story.v[k].node];
		n->first = k;
		n->count++;
	}
}

/* -------------------------------------------------- controller-manager */

/* The node lifecycle controller's lines for a Node it sees come (reason
 * RegisteredNode) or go (RemovingNode), from time t on kcm host h. */
static void gl_kcm_node(struct gen_log *l, unsigned h, int64_t t, const char *node, bool added)
{
	struct gl_lines *ls = &l->kcm[h];
	const char *what = added ? "Registered" : "Removing", *how = added ? "in" : "from";
	if (added)
		gl_klog(l, ls, 0, t, GL_KCM_PID, 'I', "node_lifecycle_controller.go:881",
			"\"Controller observed a new Node\" node=\"%s\"", node);
	else
		gl_klog(l, ls, 0, t, GL_KCM_PID, 'I', "node_lifecycle_controller.go:684",
			"\"Controller observed a Node deletion\" node=\"%s\"", node);
	gl_klog(l, ls, 0, t + 36, GL_KCM_PID, 'I', "controller_utils.go:173",
		"\"Recording event message for node\" event=\"%s Node %s %s Controller\" "
		"node=\"%s\"",
		what, node, how, node);
	gl_klog(l, ls, 0, t + 212, GL_KCM_PID, 'I', "event.go:376",
		"\"Event occurred\" object=\"%s\" fieldPath=\"\" kind=\"Node\" apiVersion=\"v1\" "
		"type=\"Normal\" reason=\"%sNode\" message=\"Node %s event: %s Node %s %s "
		"Controller\"",
		node, what, node, what, node, how);
}

/* The garbage collector's lines for one object the deleted Node owned: it
 * processes the three together as soon as it sees the Node gone, then
 * deletes each just before its DELETE request (the audit's t0). */
static void gl_kcm_gc(struct gen_log *l, const struct gen_fact *f)
{
	static const char *const kind[3] = {"vpcresources.k8s.aws/v1alpha1/CNINode",
					    "coordination.k8s.io/v1/Lease",
					    "storage.k8s.io/v1/CSINode"};
	struct gl_node *n = &l->nodes[f->node];
	struct gl_lines *ls = &l->kcm[f->host % 2];
	char item[320];
	snprintf(item, sizeof item, "[%s, namespace: %s, name: %s, uid: %s]", kind[f->res % 3],
		 f->res == GEN_GC_LEASE ? "kube-node-lease" : "", n->name, f->s);
	gl_klog(l, ls, 0, n->gc_base + f->res * 160 + gen_range(&n->rs, 0, 60), GL_KCM_PID, 'I',
		"garbagecollector.go:549", "\"Processing item\" item=\"%s\" virtual=false", item);
	gl_klog(l, ls, 0, f->t0 - gen_range(&n->rs, 100, 400), GL_KCM_PID, 'I',
		"garbagecollector.go:688",
		"\"Deleting item\" item=\"%s\" propagationPolicy=\"Background\"", item);
}

/* kube-controller-manager's start-up on host h, ending with the leader-election
 * candidate's first line just before its first GET (t). */
static void gl_kcm_startup(struct gen_log *l, unsigned h, int64_t t, struct gen_rng *r)
{
	static const char *const src[] = {
	    "serving.go:380",
	    "controllermanager.go:189",
	    "controllermanager.go:191",
	    "dynamic_cafile_content.go:157",
	    "dynamic_cafile_content.go:157",
	    "secure_serving.go:213",
	    "tlsconfig.go:240",
	    "leaderelection.go:250",
	};
	static const char *const msg[] = {
	    "Generated self-signed cert in-memory",
	    "\"Starting\" version=\"" GL_KCM_VER "\"",
	    "\"Golang settings\" GOGC=\"\" GOMAXPROCS=\"\" GOTRACEBACK=\"\"",
	    "\"Starting controller\" "
	    "name=\"request-header::/etc/kubernetes/pki/front-proxy-ca.crt\"",
	    "\"Starting controller\" name=\"" GL_CA_BUNDLE "\"",
	    "Serving securely on [::]:10257",
	    "\"Starting DynamicServingCertificateController\"",
	    "attempting to acquire leader lease " GL_KCM_LOCK "...",
	};
	int64_t at[8], sum = 0, end = t - gen_range(r, 200, 800);
	for (int k = 7; k > 0; k--) /* gaps before the last line; the sum fixes the start */
		sum += at[k] = k == 4 ? gen_range(r, 300, 900) * GEN_MSEC : gen_range(r, 40, 9000);
	at[0] = end - sum < l->t_start ? l->t_start : end - sum;
	for (int k = 1; k < 8; k++)
		at[k] = at[k - 1] + at[k] > end ? end : at[k - 1] + at[k];
	for (int k = 0; k < 8; k++)
		gl_klog(l, &l->kcm[h], 0, at[k], GL_KCM_PID, 'I', src[k], "%s", msg[k]);
}

/* The new leader takes over at t: it starts its controllers, and the node
 * lifecycle controller observes every Node that exists. */
static void gl_kcm_acquired(struct gen_log *l, unsigned h, int64_t t, const char *ident,
			    struct gen_rng *r)
{
	static const char *const ctl[] = {"garbage-collector-controller",
					  "node-lifecycle-controller", "replicaset-controller",
					  "endpoints-controller"};
	struct gl_lines *ls = &l->kcm[h];
	gl_klog(l, ls, 0, t, GL_KCM_PID, 'I', "leaderelection.go:260",
		"successfully acquired lease " GL_KCM_LOCK);
	gl_klog(l, ls, 0, t + 97, GL_KCM_PID, 'I', "event.go:376",
		"\"Event occurred\" object=\"" GL_KCM_LOCK "\" fieldPath=\"\" kind=\"Lease\" "
		"apiVersion=\"coordination.k8s.io/v1\" type=\"Normal\" reason=\"LeaderElection\" "
		"message=\"%s became leader\"",
		ident);
	t += gen_range(r, 20, 60) * GEN_MSEC;
	for (int k = 0; k < 4; k++) {
		t += gen_range(r, 300, 9000);
		gl_klog(l, ls, 0, t, GL_KCM_PID, 'I', "controllermanager.go:735",
			"\"Started controller\" controller=\"%s\"", ctl[k]);
	}
	gl_klog(l, ls, 0, t + 41, GL_KCM_PID, 'I', "node_lifecycle_controller.go:470",
		"\"Starting node controller\"");
	t += gen_range(r, 100, 400) * GEN_MSEC;
	gl_klog(l, ls, 0, t, GL_KCM_PID, 'I', "shared_informer.go:318",
		"Caches are synced for taint");
	gl_klog(l, ls, 0, t + 60, GL_KCM_PID, 'I', "node_lifecycle_controller.go:1030",
		"\"Initializing eviction metric for zone\" zone=\"us-east-1::us-east-1a\"");
	for (size_t i = 0; i < l->nnodes; i++)
		if (!l->nodes[i].gone)
			gl_kcm_node(l, h, t + 300 + (int64_t)i * 400, l->nodes[i].name, true);
	l->lead_from[h] = t;
	l->lead_to[h] = l->t_end;
}

/* The stalled old leader wakes up, loses the race and exits (leader-change);
 * the restarted process's start-up ends just before its first GET (f->t0). */
static void gl_kcm_lost(struct gen_log *l, const struct gen_fact *f, struct gen_rng *r)
{
	static const char conflict[] =
	    "Operation cannot be fulfilled on leases.coordination.k8s.io "
	    "\"kube-controller-manager\": the object has been modified; please apply your "
	    "changes to the latest version and try again";
	struct gl_lines *ls = &l->kcm[f->host % 2];
	int64_t t = f->t1 + gen_range(r, 100, 400);
	if (f->kind == GEN_F_LC_CONFLICT) {
		gl_klog(l, ls, 0, t, GL_KCM_PID, 'E', "leaderelection.go:369",
			"Failed to update lock: %s", conflict);
	} else if (f->kind == GEN_F_LC_OPTIMISTIC) {
		gl_klog(l, ls, 0, t, GL_KCM_PID, 'E', "leaderelection.go:332",
			"Failed to update lock optimitically: %s, falling back to slow path",
			conflict);
	} else {
		gl_klog(l, ls, 0, t, GL_KCM_PID, 'I', "leaderelection.go:285",
			"failed to renew lease " GL_KCM_LOCK
			": timed out waiting for the condition");
		gl_klog(l, ls, 0, t + gen_range(r, 20, 80), GL_KCM_PID, 'E',
			"controllermanager.go:304", "\"leaderelection lost\"");
		if (f->t0 > f->t1)
			gl_kcm_startup(l, f->host % 2, f->t0, r);
	}
}

/* Builds both hosts' kcm story lines from the facts. */
static void gl_build_kcm(struct gen_log *l, struct gen_rng *r)
{
	for (size_t i = 0; i < l->nnodes; i++)
		l->nodes[i].gone = false;
	l->lead_from[l->lead0] = l->t_start;
	l->lead_to[l->lead0] = l->t_end;
	for (size_t k = 0; k < l->nfacts; k++) {
		const struct gen_fact *f = &l->facts[k];
		struct gl_node *n = &l->nodes[f->node];
		unsigned h = f->host % 2;
		if (f->kind == GEN_F_NODE_DELETE) {
			n->gone = true;
			n->gc_base = f->t1 + gen_range(&n->rs, 1000, 2500);
			gl_kcm_node(l, h, f->t1 + gen_range(r, 300, 4900) * GEN_MSEC, n->name,
				    false);
		} else if (f->kind == GEN_F_GC_DELETE) {
			gl_kcm_gc(l, f);
		} else if (f->kind == GEN_F_RESTART) {
			n->gone = false;
			gl_kcm_node(l, h, f->t1 + gen_range(r, 300, 4900) * GEN_MSEC, n->name,
				    true);
		} else if (f->kind == GEN_F_LC_STALL) {
			l->lead_to[h] = f->t1;
		} else if (f->kind == GEN_F_LC_ACQUIRED) {
			gl_kcm_acquired(l, h, f->t1 + gen_range(r, 100, 400), f->s, r);
		} else if (f->kind >= GEN_F_LC_CONFLICT && f->kind <= GEN_F_LC_LOST) {
			gl_kcm_lost(l, f, r);
		}
	}
}

/* Adds the routine lines of kcm host h while it leads: controller events,
 * CSR cleanup, endpoint conflicts, pods collected after their ReplicaSet. */
static void gl_kcm_noise(struct gen_log *l, unsigned h, struct gen_rng *r)
{
	static const char *const app[] = {"web", "api", "worker", "checkout", "search"};
	const char *alnum = "bcdfghjklmnpqrstvwxz2456789";
	struct gl_lines *ls = &l->kcm[h];
	double gap = l->o.noise > 0 ? 60.0 * GEN_SEC / l->o.noise : 0;
	if (gap <= 0 || l->lead_to[h] <= l->lead_from[h])
		return;
	for (int64_t t = l->lead_from[h] + (int64_t)gen_exp(r, gap); t < l->lead_to[h];
	     t += 1 + (int64_t)gen_exp(r, gap)) {
		const char *a = app[gen_range(r, 0, 4)];
		char rs[11], pod[6], uid[37];
		gen_word(rs, 10, alnum, r);
		gen_word(pod, 5, alnum, r);
		gen_uuid(uid, r);
		switch (gen_range(r, 0, 5)) {
		case 0:
		case 1:
			gl_klog(l, ls, 0, t, GL_KCM_PID, 'I', "event.go:376",
				"\"Event occurred\" object=\"prod/%s-%s\" fieldPath=\"\" "
				"kind=\"ReplicaSet\" apiVersion=\"apps/v1\" type=\"Normal\" "
				"reason=\"Successful%s\" message=\"%s pod: %s-%s-%s\"",
				a, rs, uid[0] < '8' ? "Create" : "Delete",
				uid[0] < '8' ? "Created" : "Deleted", a, rs, pod);
			break;
		case 2:
			gl_klog(
			    l, ls, 0, t, GL_KCM_PID, 'I', "event.go:376",
			    "\"Event occurred\" object=\"prod/%s\" fieldPath=\"\" "
			    "kind=\"Deployment\" apiVersion=\"apps/v1\" type=\"Normal\" "
			    "reason=\"ScalingReplicaSet\" message=\"Scaled up replica set %s-%s "
			    "to %d from %d\"",
			    a, a, rs, (int)(uid[1] & 7) + 3, (int)(uid[1] & 7) + 2);
			break;
		case 3:
			gl_klog(l, ls, 0, t, GL_KCM_PID, 'I', "cleaner.go:172",
				"\"Cleaning CSR as it is more than 1h0m0s old and approved.\" "
				"csr=\"csr-%s\"",
				pod);
			break;
		case 4:
			gl_klog(l, ls, 0, t, GL_KCM_PID, 'I', "endpoints_controller.go:348",
				"\"Error syncing endpoints, retrying\" service=\"prod/%s\" "
				"err=\"Operation cannot be fulfilled on endpoints \\\"%s\\\": the "
				"object has been modified; please apply your changes to the latest "
				"version and try again\"",
				a, a);
			break;
		default:
			gl_klog(l, ls, 0, t, GL_KCM_PID, 'I', "garbagecollector.go:549",
				"\"Processing item\" item=\"[v1/Pod, namespace: prod, name: "
				"%s-%s-%s, uid: %s]\" virtual=false",
				a, rs, pod, uid);
			gl_klog(
			    l, ls, 0, t + gen_range(r, 3000, 9000), GL_KCM_PID, 'I',
			    "garbagecollector.go:688",
			    "\"Deleting item\" item=\"[v1/Pod, namespace: prod, name: %s-%s-%s, "
			    "uid: %s]\" propagationPolicy=\"Background\"",
			    a, rs, pod, uid);
			break;
		}
	}
}

/* Orders lines by time, then creation. */
static int gl_cmp_time(const void *pa, const void *pb)
{
	const struct gl_line *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Writes PREFIX.<host>.log for kcm hosts 0 and 1: the lines inside the window. */
static int gl_write_kcm(struct gen_log *l)
{
	for (unsigned h = 0; h < l->nhosts; h++) {
		struct gl_lines *ls = &l->kcm[h];
		char path[4096];
		snprintf(path, sizeof path, "%s.%s.log", l->o.kcm, l->hosts[h]);
		FILE *f = fopen(path, "wb");
		if (!f) {
			fprintf(stderr, "lt-gen: cannot open %s: %s\n", path, strerror(errno));
			return -1;
		}
		if (ls->n)
			qsort(ls->v, ls->n, sizeof *ls->v, gl_cmp_time);
		for (size_t k = 0; k < ls->n; k++)
			if (ls->v[k].t >= l->t_start && ls->v[k].t < l->t_end)
				fprintf(f, "%s\n", ls->v[k].text);
		if (ferror(f) | fclose(f)) {
			fprintf(stderr, "lt-gen: write error on %s\n", path);
			return -1;
		}
	}
	return 0;
}

/* The kcm candidate that is not the leader at the window start: its process
 * starts just before its first GET, so its log begins with the start-up. */
static void gl_kcm_first(struct gen_log *l, struct gen_rng *r)
{
	for (size_t k = 0; k < l->nfacts; k++)
		if (l->facts[k].kind == GEN_F_LC_START)
			gl_kcm_startup(l, l->facts[k].host % 2, l->facts[k].t0, r);
}

int gen_log_write(struct gen_log *l)
{
	struct gen_rng r;
	if (!l)
		return 0;
	gl_build_kubelet(l);
	if (l->o.kcm) {
		gen_rng_seed(&r, l->seed, 10ULL << 32);
		gl_kcm_first(l, &r);
		gl_build_kcm(l, &r);
		for (unsigned h = 0; h < l->nhosts; h++) {
			gen_rng_seed(&r, l->seed, (10ULL << 32) + 1 + h);
			gl_kcm_noise(l, h, &r);
		}
		if (gl_write_kcm(l) != 0)
			return -1;
	}
	return gl_write_journals(l);
}
