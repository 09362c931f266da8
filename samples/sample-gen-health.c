/*
 * sample-gen-health.c - lt-gen's node-health stories (lt-gen --health LIST).
 *
 * A small cluster of its own: N worker nodes renewing their leases, one
 * kube-controller-manager running the node lifecycle and taint-eviction
 * controllers, two apiservers (--apiservers N: 1 to 4; --skew-ms A[,B,C]: the
 * clocks of the second, third, fourth ahead by so many ms, negative behind),
 * and on some nodes one or two incidents, each written where Kubernetes
 * writes it (docs/node-health.md has the sources):
 *
 *   partition      the kubelet runs but reaches no apiserver: "Failed to
 *                  update lease" (context deadline exceeded) every 10 s
 *   kubelet-stop   systemd stops the kubelet, starts it minutes later:
 *                  create nodes -> 409, GET + update of the lease
 *   reboot         the journal stops, the node boots (new boot ID; the
 *                  journal prints "-- Boot ID --"), the
 *                  kubelet starts as above
 *   runtime-down   containerd stops: "Container runtime sanity check failed",
 *                  Ready=False "container runtime is down", lease renewing
 *   pleg           the relist stalls: Ready=False "PLEG is not healthy ..."
 *   cni            the network plugin goes away: Ready=False "container
 *                  runtime network not ready ... cni plugin not initialized"
 *   scale-down     the autoscaler taints ToBeDeletedByClusterAutoscaler, the
 *                  instance terminates, the cloud node lifecycle controller
 *                  deletes the Node, the garbage collector its Lease
 *
 * The node lifecycle controller is modelled from node_lifecycle_controller.go:
 * a monitor pass every 5 s; grace 40 s since the last renew -> Ready=Unknown
 * (update nodes/status), NoSchedule at once (the update worker), the NoExecute
 * taint at the next pass ("Node is unresponsive" / "Node is NotReady. Adding
 * it to the Taint queue"); Ready=True seen -> NoSchedule removed at once,
 * NoExecute removed at the next pass ("Node is healthy again, removing all
 * taints").  The taint-eviction controller deletes each pod that does not
 * tolerate the NoExecute taint 300 s after it ("Deleting pod", DELETE by
 * node-controller); DaemonSet pods tolerate it.
 *
 * --truth FILE writes one line per NotReady window, tab-separated:
 *   node start_us end_us|- condition cause ended evicted_pods evicted_named
 * evicted_named: those of the evicted pods the node's kubelet journal names (only
 * they can be tied to the node; the others are "not attributable").
 * start: the controller's Ready=Unknown write, or the kubelet's Ready=False
 * status write; end: the last taint removal, or the Node's deletion.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample-gen.h"

#define HG_MAX_NODES   64
#define HG_PODS	       4 /* per node: 3 app pods, then one DaemonSet pod */
#define HG_GRACE       (40 * GEN_SEC)
#define HG_MONITOR     (5 * GEN_SEC)
#define HG_EVICT_AFTER (300 * GEN_SEC)
#define HG_REPORT      (300 * GEN_SEC) /* nodeStatusReportFrequency */
#define HG_DEF_START   1712296200LL    /* 2024-04-05T05:50:00Z */
#define HG_NC	       "system:serviceaccount:kube-system:node-controller"
#define HG_CA	       "system:serviceaccount:kube-system:cluster-autoscaler"
#define HG_CLOUD       "system:serviceaccount:kube-system:cloud-node-lifecycle-controller"
#define HG_GC	       "system:serviceaccount:kube-system:generic-garbage-collector"
#define HG_KUBELET_UA  "kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f"
#define HG_KCM_UA      "kube-controller-manager/v1.29.1 (linux/amd64) kubernetes/b9c9ed7"
#define HG_KCM_HOST    "ip-172-16-40-128.ec2.internal"
#define HG_MAX_TRUTH   (4 * HG_MAX_NODES)
#define HG_MAX_SERVERS 4 /* apiservers, each with its audit log (-o FILE.1, FILE.2, ...) */

enum hg_story {
	HG_PARTITION,
	HG_KUBELET_STOP,
	HG_REBOOT,
	HG_RUNTIME_DOWN,
	HG_PLEG,
	HG_CNI,
	HG_SCALE_DOWN,
	HG_NSTORIES
};

static const struct {
	const char *name, *cause;
	bool unknown;	       /* heartbeats stop (Ready=Unknown), else Ready=False */
	int64_t min_s, max_s;  /* how long the trouble lasts */
	const char *ready_msg; /* the kubelet's Ready=False message */
} hg_stories[HG_NSTORIES] = {
    [HG_PARTITION] = {"partition", "network-partition", true, 60, 520, NULL},
    [HG_KUBELET_STOP] = {"kubelet-stop", "kubelet-stopped", true, 60, 240, NULL},
    [HG_REBOOT] = {"reboot", "node-rebooted", true, 70, 240, NULL},
    [HG_RUNTIME_DOWN] = {"runtime-down", "container-runtime-down", false, 30, 400,
			 "container runtime is down"},
    [HG_PLEG] = {"pleg", "pleg-unhealthy", false, 30, 200,
		 "PLEG is not healthy: pleg was last seen active 3m0.512s ago; threshold is 3m0s"},
    [HG_CNI] = {"cni", "cni-not-ready", false, 30, 200,
		"container runtime network not ready: NetworkReady=false "
		"reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin "
		"not initialized"},
    [HG_SCALE_DOWN] = {"scale-down", "instance-terminated", true, 60, 150, NULL},
};

/* Taints, as bits of a node's current set. */
static const char *const hg_taints[] = {
    "node.kubernetes.io/unreachable:NoSchedule", "node.kubernetes.io/unreachable:NoExecute",
    "node.kubernetes.io/not-ready:NoSchedule",	 "node.kubernetes.io/not-ready:NoExecute",
    "ToBeDeletedByClusterAutoscaler:NoSchedule",
};
enum { HG_T_UNR_NS = 1, HG_T_UNR_NE = 2, HG_T_NR_NS = 4, HG_T_NR_NE = 8, HG_T_CA = 16 };

/* One output line: its time on its writer's clock, and a sort tie-breaker. */
struct hg_line {
	int64_t t;
	uint64_t seq;
	char *text;
};

struct hg_lines {
	struct hg_line *v;
	size_t n, cap;
};

struct hg_node {
	char name[48], ip[24], boot[37];
	char pods[HG_PODS][80];
	unsigned taints;
	const char *ready; /* "True", "False", "Unknown" */
	const char *msg;
	struct hg_lines journal;
	uint32_t pid;
	unsigned named; /* bit i: the journal names pods[i] */
	bool gone;
};

struct hg_opts {
	unsigned stories; /* bits of enum hg_story */
	long nodes, minutes, servers;
	int64_t skew_ms[HG_MAX_SERVERS]; /* each apiserver's clock error; the first's is 0 */
	uint64_t seed;
	int64_t start;
	bool rr;
	const char *out, *jdir, *kcm, *truth;
};

struct hg {
	struct hg_opts o;
	struct gen_rng r;
	struct hg_node nodes[HG_MAX_NODES];
	struct hg_lines audit[HG_MAX_SERVERS], kcm;
	uint64_t seq;
	int64_t phase; /* the monitor pass runs at start + phase + k * 5 s */
	int64_t end;
	struct hg_truth *truths;
	size_t ntruth;
	bool open_done; /* a window was left open (odd seeds) */
};

/* ---- text -------------------------------------------------------------- */

static char *hg_dup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(gen_calloc(n, 1), s, n);
}

#if defined(__GNUC__)
#define HG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define HG_PRINTF(f, a)
#endif

static char *hg_vfmt(const char *fmt, va_list ap) HG_PRINTF(1, 0);
static char *hg_vfmt(const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	char *s = gen_calloc((size_t)n + 1, 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

static void hg_push(struct hg *g, struct hg_lines *ls, int64_t t, char *text)
{
	GEN_GROW(ls->v, ls->cap, ls->n + 1);
	ls->v[ls->n++] = (struct hg_line){t, g->seq++, text};
}

/* "2024-04-05T05:50:46.200117" of t (µs since the epoch). */
static void hg_iso(char out[40], int64_t t)
{
	int64_t y, s = t / GEN_SEC;
	unsigned m, d;
	gen_civil(s / 86400, &y, &m, &d);
	snprintf(out, 40, "%04d-%02u-%02uT%02d:%02d:%02d.%06d", (int)y, m, d,
		 (int)(s % 86400 / 3600), (int)(s % 3600 / 60), (int)(s % 60), (int)(t % GEN_SEC));
}

/* A klog line "Immdd hh:mm:ss.uuuuuu PID src] msg" at t. */
static char *hg_klog(int64_t t, char lvl, uint32_t pid, const char *src, const char *fmt, ...)
    HG_PRINTF(5, 6);
static char *hg_klog(int64_t t, char lvl, uint32_t pid, const char *src, const char *fmt, ...)
{
	char iso[40];
	va_list ap;
	hg_iso(iso, t);
	va_start(ap, fmt);
	char *msg = hg_vfmt(fmt, ap);
	va_end(ap);
	size_t n = strlen(msg) + 96;
	char *s = gen_calloc(n, 1);
	snprintf(s, n, "%c%.2s%.2s %s %7u %s] %s", lvl, iso + 5, iso + 8, iso + 11, pid, src, msg);
	free(msg);
	return s;
}

/* A kubelet journal line (journalctl -o short-iso-precise) of node n. */
static void hg_journal(struct hg *g, struct hg_node *n, int64_t t, const char *unit, char *text)
{
	char iso[40];
	hg_iso(iso, t + 40);
	size_t len = strlen(text) + 128;
	char *s = gen_calloc(len, 1);
	if (strcmp(unit, "systemd") == 0)
		snprintf(s, len, "%s+00:00 %s systemd[1]: %s", iso, n->name, text);
	else
		snprintf(s, len, "%s+00:00 %s kubelet[%u]: %s", iso, n->name, n->pid, text);
	free(text);
	hg_push(g, &n->journal, t, s);
}

#define HG_KL(g, n, t, lvl, src, ...)                                                              \
	hg_journal((g), (n), (t), "kubelet", hg_klog((t), (lvl), (n)->pid, (src), __VA_ARGS__))
#define HG_KCM(g, t, lvl, src, ...)                                                                \
	hg_push((g), &(g)->kcm, (t), hg_klog((t), (lvl), 11, (src), __VA_ARGS__))

/* ---- audit ------------------------------------------------------------- */

/* The Node as a JSON object (RequestResponse level): its taints, Ready, boot ID. */
static void hg_node_json(struct gen_buf *b, const struct hg_node *n)
{
	GEN_LIT(b, "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"");
	gen_puts(b, n->name);
	GEN_LIT(b, "\"},\"spec\":{\"providerID\":\"aws:///us-west-2a/i-0");
	gen_puts(b, n->ip + 5);
	GEN_LIT(b, "\"");
	if (n->taints != 0) {
		GEN_LIT(b, ",\"taints\":[");
		for (size_t i = 0, k = 0; i < sizeof hg_taints / sizeof *hg_taints; i++) {
			if (!(n->taints & (1u << i)))
				continue;
			const char *c = strchr(hg_taints[i], ':');
			gen_puts(b, k++ ? ",{\"key\":\"" : "{\"key\":\"");
			gen_put(b, hg_taints[i], (size_t)(c - hg_taints[i]));
			GEN_LIT(b, "\",\"effect\":\"");
			gen_puts(b, c + 1);
			GEN_LIT(b, "\"}");
		}
		GEN_LIT(b, "]");
	}
	GEN_LIT(b, "},\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"");
	gen_puts(b, n->ready);
	GEN_LIT(b, "\",\"reason\":\"");
	gen_puts(b, strcmp(n->ready, "True") == 0    ? "KubeletReady"
		    : strcmp(n->ready, "False") == 0 ? "KubeletNotReady"
						     : "NodeStatusUnknown");
	GEN_LIT(b, "\",\"message\":\"");
	gen_puts(b, n->msg);
	GEN_LIT(b, "\"}],\"nodeInfo\":{\"bootID\":\"");
	gen_puts(b, n->boot);
	GEN_LIT(b, "\"}}}");
}

struct hg_req {
	const char *verb, *user, *groups, *ip, *ua;
	const char *group, *res, *sub, *ns, *name;
	int code;
	const char *request;		/* requestObject JSON (RequestResponse level), or NULL */
	const struct hg_node *response; /* the Node as responseObject, or NULL */
};

/* One audit event, on a random apiserver, received at t0 and done at t1. */
static void hg_audit(struct hg *g, int64_t t0, int64_t t1, const struct hg_req *q)
{
	struct gen_buf b = {0};
	char id[37], iso0[40], iso1[40];
	unsigned srv = (unsigned)gen_range(&g->r, 0, g->o.servers - 1);
	int64_t skew = g->o.skew_ms[srv] * GEN_MSEC;

	gen_uuid(id, &g->r);
	hg_iso(iso0, t0 + skew);
	hg_iso(iso1, t1 + skew);
	GEN_LIT(&b, "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"");
	gen_puts(&b, g->o.rr ? "RequestResponse" : "Metadata");
	GEN_LIT(&b, "\",\"auditID\":\"");
	gen_puts(&b, id);
	GEN_LIT(&b, "\",\"stage\":\"ResponseComplete\",\"requestURI\":\"");
	gen_puts(&b, q->group ? "/apis/" : "/api/v1");
	if (q->group) {
		gen_puts(&b, q->group);
		GEN_LIT(&b, "/v1");
	}
	if (q->ns) {
		GEN_LIT(&b, "/namespaces/");
		gen_puts(&b, q->ns);
	}
	GEN_LIT(&b, "/");
	gen_puts(&b, q->res);
	if (q->name && strcmp(q->verb, "create") != 0) {
		GEN_LIT(&b, "/");
		gen_puts(&b, q->name);
	}
	if (q->sub) {
		GEN_LIT(&b, "/");
		gen_puts(&b, q->sub);
	}
	GEN_LIT(&b, "\",\"verb\":\"");
	gen_puts(&b, q->verb);
	GEN_LIT(&b, "\",\"user\":{\"username\":\"");
	gen_puts(&b, q->user);
	GEN_LIT(&b, "\",\"groups\":[");
	gen_puts(&b, q->groups);
	GEN_LIT(&b, "]},\"sourceIPs\":[\"");
	gen_puts(&b, q->ip);
	GEN_LIT(&b, "\"],\"userAgent\":\"");
	gen_puts(&b, q->ua);
	GEN_LIT(&b, "\",\"objectRef\":{\"resource\":\"");
	gen_puts(&b, q->res);
	if (q->ns) {
		GEN_LIT(&b, "\",\"namespace\":\"");
		gen_puts(&b, q->ns);
	}
	GEN_LIT(&b, "\",\"name\":\"");
	gen_puts(&b, q->name);
	GEN_LIT(&b, "\",\"apiVersion\":\"v1\"");
	if (q->group) {
		GEN_LIT(&b, ",\"apiGroup\":\"");
		gen_puts(&b, q->group);
		GEN_LIT(&b, "\"");
	}
	if (q->sub) {
		GEN_LIT(&b, ",\"subresource\":\"");
		gen_puts(&b, q->sub);
		GEN_LIT(&b, "\"");
	}
	GEN_LIT(&b, "},\"responseStatus\":{\"metadata\":{},");
	if (q->code == 409)
		GEN_LIT(&b, "\"status\":\"Failure\",\"message\":\"nodes \\\"");
	if (q->code == 409) {
		gen_puts(&b, q->name);
		GEN_LIT(&b, "\\\" already exists\",\"reason\":\"AlreadyExists\",");
	}
	GEN_LIT(&b, "\"code\":");
	gen_put_u64(&b, (uint64_t)q->code);
	GEN_LIT(&b, "}");
	if (g->o.rr && q->request) {
		GEN_LIT(&b, ",\"requestObject\":");
		gen_puts(&b, q->request);
	}
	if (g->o.rr && q->response) {
		GEN_LIT(&b, ",\"responseObject\":");
		hg_node_json(&b, q->response);
	}
	GEN_LIT(&b, ",\"requestReceivedTimestamp\":\"");
	gen_puts(&b, iso0);
	GEN_LIT(&b, "Z\",\"stageTimestamp\":\"");
	gen_puts(&b, iso1);
	GEN_LIT(&b, "Z\",\"annotations\":{\"authorization.k8s.io/decision\":\"allow\","
		    "\"authorization.k8s.io/reason\":\"\"}}");
	gen_put(&b, "", 1);
	hg_push(g, &g->audit[srv], t1 + skew, b.p);
}

#define HG_NODE_GROUPS "\"system:nodes\",\"system:authenticated\""
#define HG_SA_GROUPS                                                                               \
	"\"system:serviceaccounts\",\"system:serviceaccounts:kube-system\",\"system:"              \
	"authenticated\""

static int64_t hg_lat(struct hg *g, int64_t lo_ms, int64_t hi_ms)
{
	return gen_range(&g->r, lo_ms * GEN_MSEC, hi_ms * GEN_MSEC);
}

/* The kubelet's lease renew (or its first GET after a start). */
static int64_t hg_renew(struct hg *g, struct hg_node *n, int64_t t, const char *verb)
{
	char user[64];
	int64_t t1 = t + hg_lat(g, 2, 9);
	snprintf(user, sizeof user, "system:node:%s", n->name);
	hg_audit(g, t, t1,
		 &(struct hg_req){verb, user, HG_NODE_GROUPS, n->ip, HG_KUBELET_UA,
				  "coordination.k8s.io", "leases", NULL, "kube-node-lease", n->name,
				  200, NULL, NULL});
	return t1;
}

/* The kubelet's PATCH of its status (Ready as n says now). */
static int64_t hg_kubelet_status(struct hg *g, struct hg_node *n, int64_t t)
{
	char user[64], body[512];
	int64_t t1 = t + hg_lat(g, 3, 12);
	snprintf(user, sizeof user, "system:node:%s", n->name);
	snprintf(
	    body, sizeof body,
	    "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"Ready\"}],\"conditions\":"
	    "[{\"type\":\"Ready\",\"status\":\"%s\",\"message\":\"%s\"}]}}",
	    n->ready, n->msg);
	hg_audit(g, t, t1,
		 &(struct hg_req){"patch", user, HG_NODE_GROUPS, n->ip, HG_KUBELET_UA, NULL,
				  "nodes", "status", NULL, n->name, 200, body, n});
	return t1;
}

/* A write of the Node by a controller: a GET from the cache, then the PATCH. */
static int64_t hg_taint(struct hg *g, struct hg_node *n, int64_t t, unsigned add, unsigned del,
			const char *user)
{
	struct gen_buf b = {0};
	int64_t t1 = t + hg_lat(g, 1, 3), t2 = t1 + hg_lat(g, 3, 10);
	hg_audit(g, t, t1,
		 &(struct hg_req){"get", user, HG_SA_GROUPS, "172.16.40.128", HG_KCM_UA, NULL,
				  "nodes", NULL, NULL, n->name, 200, NULL, g->o.rr ? n : NULL});
	n->taints = (n->taints | add) & ~del;
	GEN_LIT(&b, "{\"spec\":{\"taints\":");
	if (n->taints == 0) {
		GEN_LIT(&b, "null}}");
	} else {
		struct gen_buf full = {0};
		hg_node_json(&full, n);
		const char *p = strstr(full.p, "\"taints\":") + 9, *e = strchr(p, ']') + 1;
		gen_put(&b, p, (size_t)(e - p));
		GEN_LIT(&b, "}}");
		gen_buf_free(&full);
	}
	gen_put(&b, "", 1);
	hg_audit(g, t1 + 200, t2,
		 &(struct hg_req){"patch", user, HG_SA_GROUPS, "172.16.40.128", HG_KCM_UA, NULL,
				  "nodes", NULL, NULL, n->name, 200, b.p, n});
	gen_buf_free(&b);
	return t2;
}

/* The first monitor pass at or after t. */
static int64_t hg_pass(const struct hg *g, int64_t t)
{
	int64_t base = g->o.start + g->phase;
	if (t <= base)
		return base;
	return base + (t - base + HG_MONITOR - 1) / HG_MONITOR * HG_MONITOR;
}

/* ---- the stories --------------------------------------------------------- */

/* What one incident did, for the truth file and the recovery. */
struct hg_win {
	int64_t start, end;
	bool open, deleted, unknown;
	int evicted;
	unsigned evicted_mask; /* bit i: pods[i] went */
	int64_t ne_at;	       /* the NoExecute taint's time */
};

/* The controller marks n Unknown at pass p: lines, status update, NoSchedule, next pass NoExecute.
 */
static void hg_mark_unknown(struct hg *g, struct hg_node *n, int64_t p, int64_t last,
			    struct hg_win *w)
{
	static const char *const conds[] = {"Ready", "MemoryPressure", "DiskPressure",
					    "PIDPressure"};
	for (size_t i = 0; i < 4; i++)
		HG_KCM(g, p + 100 + (int64_t)i * 40, 'I', "node_lifecycle_controller.go:1127",
		       "\"Node hasn't been updated\" node=\"%s\" duration=\"%.3fs\" "
		       "nodeConditionType=\"%s\" "
		       "currentCondition=\"&NodeCondition{Type:%s,Status:True,}\"",
		       n->name, (double)(p - last) / GEN_SEC, conds[i], conds[i]);
	n->ready = "Unknown";
	n->msg = "Kubelet stopped posting node status.";
	int64_t t0 = p + 400, t1 = t0 + hg_lat(g, 3, 9);
	hg_audit(
	    g, t0, t1,
	    &(struct hg_req){"update", HG_NC, HG_SA_GROUPS, "172.16.40.128", HG_KCM_UA, NULL,
			     "nodes", "status", NULL, n->name, 200,
			     "{\"kind\":\"Node\",\"status\":{\"conditions\":[{\"type\":\"Ready\","
			     "\"status\":\"Unknown\"}]}}",
			     n});
	w->start = t1;
	w->unknown = true;
	HG_KCM(g, t1 + 300, 'I', "node_lifecycle_controller.go:1030",
	       "\"Recording status change event message for node\" status=\"NodeNotReady\" "
	       "node=\"%s\"",
	       n->name);
	hg_taint(g, n, t1 + hg_lat(g, 2, 20), HG_T_UNR_NS, 0, HG_NC);
	int64_t q = p + HG_MONITOR;
	HG_KCM(g, q + 200, 'I', "node_lifecycle_controller.go:802",
	       "\"Node is unresponsive. Adding it to the Taint queue\" node=\"%s\"", n->name);
	w->ne_at = hg_taint(g, n, q + hg_lat(g, 50, 150), HG_T_UNR_NE, 0, HG_NC);
}

/* The kubelet reported Ready=False at status stage s: NoSchedule now, NoExecute next pass. */
static void hg_mark_false(struct hg *g, struct hg_node *n, int64_t s, struct hg_win *w)
{
	w->start = s;
	w->unknown = false;
	hg_taint(g, n, s + hg_lat(g, 2, 20), HG_T_NR_NS, 0, HG_NC);
	int64_t q = hg_pass(g, s + 30 * GEN_MSEC);
	HG_KCM(g, q + 200, 'I', "node_lifecycle_controller.go:792",
	       "\"Node is NotReady. Adding it to the Taint queue\" node=\"%s\" "
	       "timeStamp=\"2024-04-05 00:00:00 +0000 UTC\"",
	       n->name);
	w->ne_at = hg_taint(g, n, q + hg_lat(g, 50, 150), HG_T_NR_NE, 0, HG_NC);
}

/* Pods without a toleration go 300 s after the NoExecute taint, if it is still there then. */
static void hg_evict(struct hg *g, struct hg_node *n, struct hg_win *w, int64_t until)
{
	int64_t t = w->ne_at + HG_EVICT_AFTER + hg_lat(g, 5, 60);
	if (t >= until || t >= g->end)
		return;
	for (int i = 0; i < HG_PODS - 1; i++, t += hg_lat(g, 5, 40)) {
		char ns[32], name[80];
		size_t slash = strcspn(n->pods[i], "/");
		snprintf(ns, sizeof ns, "%.*s", (int)slash, n->pods[i]);
		snprintf(name, sizeof name, "%s", n->pods[i] + slash + 1);
		HG_KCM(g, t, 'I', "taint_eviction.go:144",
		       "\"Deleting pod\" controller=\"taint-eviction-controller\" pod=\"%s\"",
		       n->pods[i]);
		int64_t t1 = t + hg_lat(g, 8, 25);
		hg_audit(g, t + 2000, t1,
			 &(struct hg_req){"delete", HG_NC, HG_SA_GROUPS, "172.16.40.128", HG_KCM_UA,
					  NULL, "pods", NULL, ns, name, 200, NULL, NULL});
		w->evicted++;
		w->evicted_mask |= 1u << i;
	}
}

/* The node is back (Ready=True written at s): NoSchedule off now, NoExecute off next pass. */
static void hg_recover(struct hg *g, struct hg_node *n, int64_t s, struct hg_win *w)
{
	unsigned ns = w->unknown ? HG_T_UNR_NS : HG_T_NR_NS,
		 ne = w->unknown ? HG_T_UNR_NE : HG_T_NR_NE;
	hg_taint(g, n, s + hg_lat(g, 2, 20), 0, ns, HG_NC);
	int64_t q = hg_pass(g, s + 40 * GEN_MSEC);
	w->end = hg_taint(g, n, q + hg_lat(g, 1, 5), 0, ne, HG_NC);
	HG_KCM(g, w->end + 300, 'I', "node_lifecycle_controller.go:815",
	       "\"Node is healthy again, removing all taints\" node=\"%s\"", n->name);
}

/* The kubelet starts (after a stop or a boot): systemd, registration 409, lease, status. */
static int64_t hg_kubelet_start(struct hg *g, struct hg_node *n, int64_t t, bool boot)
{
	char user[64];
	if (boot) {
		/* journalctl's separator before the new boot's first line: "-- Boot ID --" */
		char *sep = gen_calloc(64, 1);
		size_t k = 0;
		gen_uuid(n->boot, &g->r);
		k += (size_t)snprintf(sep, 64, "-- Boot ");
		for (const char *c = n->boot; *c && k < 56; c++)
			if (*c != '-')
				sep[k++] = *c;
		memcpy(sep + k, " --", 4);
		hg_push(g, &n->journal, t - 1, sep);
	}
	n->pid = (uint32_t)gen_range(&g->r, 2000, 9000);
	hg_journal(g, n, t, "systemd", hg_dup("Starting kubelet.service - Kubernetes Kubelet..."));
	hg_journal(g, n, t + 20000, "systemd",
		   hg_dup("Started kubelet.service - Kubernetes Kubelet."));
	HG_KL(g, n, t + 900000, 'I', "kubelet.go:2337", "\"Starting kubelet main sync loop\"");
	HG_KL(g, n, t + 950000, 'I', "kubelet_node_status.go:73",
	      "\"Attempting to register node\" node=\"%s\"", n->name);
	snprintf(user, sizeof user, "system:node:%s", n->name);
	int64_t t1 = t + 960000 + hg_lat(g, 3, 8);
	hg_audit(g, t + 960000, t1,
		 &(struct hg_req){"create", user, HG_NODE_GROUPS, n->ip, HG_KUBELET_UA, NULL,
				  "nodes", NULL, NULL, n->name, 409, NULL, NULL});
	HG_KL(g, n, t1 + 2000, 'I', "kubelet_node_status.go:112",
	      "\"Node was previously registered\" node=\"%s\"", n->name);
	HG_KL(g, n, t1 + 3000, 'I', "kubelet_node_status.go:76",
	      "\"Successfully registered node\" node=\"%s\"", n->name);
	return t1;
}

/* ---- one node's life ----------------------------------------------------- */

struct hg_incident {
	enum hg_story story;
	int64_t at, until; /* trouble from at to until (until > end: never over) */
};

/* Steady lines that name the node's pods, so an eviction can be tied to it. */
static void hg_pod_lines(struct hg *g, struct hg_node *n, int64_t from, int64_t to)
{
	for (int64_t t = from + hg_lat(g, 1000, 20000); t < to; t += hg_lat(g, 40000, 80000)) {
		int i = (int)gen_range(&g->r, 0, HG_PODS - 1);
		n->named |= 1u << i;
		HG_KL(g, n, t, 'I', "kubelet.go:2528",
		      "\"SyncLoop (probe)\" probe=\"readiness\" status=\"ready\" pod=\"%s\"",
		      n->pods[i]);
	}
}

/* The lease renews from t to until (the kubelet up and reaching an apiserver); the last one. */
static int64_t hg_renews(struct hg *g, struct hg_node *n, int64_t *t, int64_t until)
{
	int64_t last = 0;
	while (*t < until && *t < g->end) {
		last = hg_renew(g, n, *t, "update");
		*t = last + 10 * GEN_SEC + hg_lat(g, 0, 400);
	}
	return last;
}

/* A partition: renews fail with timeouts until the network heals. */
static void hg_partition_lines(struct hg *g, struct hg_node *n, int64_t *t, int64_t until)
{
	for (; *t < until && *t < g->end; *t += 10 * GEN_SEC + hg_lat(g, 0, 400)) {
		HG_KL(
		    g, n, *t + 10 * GEN_SEC, 'E', "controller.go:195",
		    "\"Failed to update lease\" err=\"Put \\\"https://10.0.0.2:443/apis/"
		    "coordination.k8s.io/v1/namespaces/kube-node-lease/leases/%s?timeout=10s\\\": "
		    "context deadline exceeded\"",
		    n->name);
		HG_KL(g, n, *t + 4 * GEN_SEC, 'E', "kubelet_node_status.go:540",
		      "\"Error updating node status, will retry\" err=\"error getting node "
		      "\\\"%s\\\": "
		      "Get \\\"https://10.0.0.2:443/api/v1/nodes/%s?timeout=10s\\\": net/http: "
		      "request "
		      "canceled (Client.Timeout exceeded while awaiting headers)\"",
		      n->name, n->name);
	}
	*t += 10 * GEN_SEC;
}

/* The kubelet's Ready=False story lines, from at to until. */
static void hg_false_lines(struct hg *g, struct hg_node *n, enum hg_story s, int64_t at,
			   int64_t until)
{
	if (s == HG_RUNTIME_DOWN)
		HG_KL(g, n, at - 2 * GEN_SEC, 'E', "kubelet.go:2860",
		      "\"Container runtime sanity check failed\" err=\"rpc error: code = "
		      "Unavailable desc = connection error: desc = \\\"transport: Error while "
		      "dialing: dial unix /run/containerd/containerd.sock: connect: connection "
		      "refused\\\"\"");
	for (int64_t t = at + GEN_SEC; t < until && t < g->end; t += hg_lat(g, 5000, 15000)) {
		if (s == HG_CNI)
			HG_KL(g, n, t, 'E', "kubelet.go:2892",
			      "\"Container runtime network not ready\" "
			      "networkReady=\"NetworkReady=false "
			      "reason:NetworkPluginNotReady message:Network plugin returns error: "
			      "cni "
			      "plugin not initialized\"");
		else
			HG_KL(g, n, t, 'I', "kubelet.go:2412",
			      "\"Skipping pod synchronization\" err=\"%s\"",
			      hg_stories[s].ready_msg);
	}
}

/* A window for the truth file, written once every journal line is known. */
struct hg_truth {
	const struct hg_node *n;
	struct hg_win w;
	enum hg_story s;
};

static void hg_truth(struct hg *g, const struct hg_node *n, const struct hg_win *w, enum hg_story s)
{
	if (g->ntruth < HG_MAX_TRUTH)
		g->truths[g->ntruth++] = (struct hg_truth){n, *w, s};
}

static int hg_truth_write(struct hg *g)
{
	FILE *f = fopen(g->o.truth, "w");
	if (f == NULL) {
		fprintf(stderr, "lt-gen: %s: %s\n", g->o.truth, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < g->ntruth; i++) {
		const struct hg_truth *t = &g->truths[i];
		const struct hg_win *w = &t->w;
		int named = 0;
		for (unsigned m = w->evicted_mask & t->n->named; m; m &= m - 1)
			named++;
		fprintf(f, "%s\t%lld\t", t->n->name, (long long)w->start);
		if (w->open)
			fputs("-", f);
		else
			fprintf(f, "%lld", (long long)w->end);
		fprintf(f, "\t%s\t%s\t%s\t%d\t%d\n", w->unknown ? "Unknown" : "False",
			hg_stories[t->s].cause,
			w->open	     ? "open"
			: w->deleted ? "deleted"
				     : "recovered",
			w->evicted, named);
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* A heartbeat incident (partition, stop, reboot, scale-down) from renew time *t. */
static void hg_unknown_incident(struct hg *g, struct hg_node *n, const struct hg_incident *in,
				int64_t *t, int64_t last)
{
	struct hg_win w = {0};
	int64_t gone_at = in->at, back = in->until;

	if (in->story == HG_KUBELET_STOP) {
		hg_journal(g, n, gone_at, "systemd",
			   hg_dup("Stopping kubelet.service - Kubernetes Kubelet..."));
		HG_KL(g, n, gone_at + 3000, 'I', "kubelet.go:1660", "\"Shutting down Kubelet\"");
		hg_journal(g, n, gone_at + 90000, "systemd",
			   hg_dup("kubelet.service: Deactivated successfully."));
		hg_journal(g, n, gone_at + 95000, "systemd",
			   hg_dup("Stopped kubelet.service - Kubernetes Kubelet."));
	} else if (in->story == HG_SCALE_DOWN) {
		hg_taint(g, n, gone_at - 30 * GEN_SEC, HG_T_CA, 0, HG_CA);
	}
	int64_t p = hg_pass(g, last + HG_GRACE + 1);
	bool marked = p < back && p < g->end;
	if (marked)
		hg_mark_unknown(g, n, p, last, &w);
	if (in->story == HG_PARTITION) {
		int64_t pt = *t;
		hg_partition_lines(g, n, &pt, back);
	}
	if (in->story == HG_SCALE_DOWN) {
		/* the cloud node lifecycle controller sees the instance gone */
		int64_t d = back, d1 = d + hg_lat(g, 4, 12);
		HG_KCM(
		    g, d - 500, 'I', "node_lifecycle_controller.go:164",
		    "\"deleting node since it is no longer present in cloud provider\" node=\"%s\"",
		    n->name);
		hg_evict(g, n, &w, d);
		hg_audit(g, d, d1,
			 &(struct hg_req){"delete", HG_CLOUD, HG_SA_GROUPS, "172.16.40.128",
					  "aws-cloud-controller-manager/v1.29.0", NULL, "nodes",
					  NULL, NULL, n->name, 200, NULL, NULL});
		int64_t l1 = d1 + hg_lat(g, 20, 200);
		hg_audit(g, l1 - 4000, l1,
			 &(struct hg_req){"delete", HG_GC, HG_SA_GROUPS, "172.16.40.128", HG_KCM_UA,
					  "coordination.k8s.io", "leases", NULL, "kube-node-lease",
					  n->name, 200, NULL, NULL});
		HG_KCM(g, l1 + 500, 'I', "node_lifecycle_controller.go:930",
		       "\"Controller observed a Node deletion\" node=\"%s\"", n->name);
		w.end = d1;
		w.deleted = true;
		n->gone = true;
		if (marked)
			hg_truth(g, n, &w, in->story);
		return;
	}
	if (back >= g->end) {
		if (marked) {
			hg_evict(g, n, &w, g->end);
			w.open = true;
			hg_truth(g, n, &w, in->story);
		}
		*t = g->end;
		return;
	}
	/* back: the kubelet renews, then writes Ready=True */
	int64_t s;
	*t = back;
	if (in->story == HG_PARTITION) {
		hg_renew(g, n, *t, "update");
		n->ready = "True", n->msg = "kubelet is posting ready status";
		s = hg_kubelet_status(g, n, *t + hg_lat(g, 200, 9000));
	} else {
		int64_t c = hg_kubelet_start(g, n, back, in->story == HG_REBOOT);
		hg_renew(g, n, c + hg_lat(g, 50, 400), "get");
		*t = hg_renew(g, n, c + hg_lat(g, 500, 900), "update");
		n->ready = "True", n->msg = "kubelet is posting ready status";
		s = hg_kubelet_status(g, n, c + hg_lat(g, 1000, 3000));
	}
	*t += 10 * GEN_SEC;
	if (marked) {
		hg_evict(g, n, &w, s);
		hg_recover(g, n, s, &w);
		hg_truth(g, n, &w, in->story);
	}
}

/* A Ready=False incident: the lease keeps renewing meanwhile (renews written by the caller). */
static void hg_false_incident(struct hg *g, struct hg_node *n, const struct hg_incident *in)
{
	struct hg_win w = {0};
	HG_KL(g, n, in->at - 3000, 'I', "setters.go:568",
	      "\"Node became not ready\" node=\"%s\" condition={\"type\":\"Ready\","
	      "\"status\":\"False\",\"reason\":\"KubeletNotReady\",\"message\":\"%s\"}",
	      n->name, hg_stories[in->story].ready_msg);
	hg_false_lines(g, n, in->story, in->at, in->until);
	n->ready = "False";
	n->msg = hg_stories[in->story].ready_msg;
	hg_mark_false(g, n, hg_kubelet_status(g, n, in->at), &w);
	if (in->until >= g->end) {
		hg_evict(g, n, &w, g->end);
		w.open = true;
		hg_truth(g, n, &w, in->story);
		return;
	}
	n->ready = "True", n->msg = "kubelet is posting ready status";
	HG_KL(g, n, in->until - 2000, 'I', "kubelet_node_status.go:679",
	      "\"Recording event message for node\" node=\"%s\" event=\"NodeReady\"", n->name);
	int64_t s = hg_kubelet_status(g, n, in->until);
	hg_evict(g, n, &w, s);
	hg_recover(g, n, s, &w);
	hg_truth(g, n, &w, in->story);
}

static void hg_node_life(struct hg *g, struct hg_node *n, const struct hg_incident *in, size_t nin)
{
	int64_t t = g->o.start + hg_lat(g, 0, 10000), last = 0;
	int64_t status = g->o.start + hg_lat(g, 0, 300000);

	for (size_t i = 0; i <= nin && !n->gone; i++) {
		int64_t until = i < nin ? in[i].at : g->end;
		bool hb = i < nin && hg_stories[in[i].story].unknown;
		int64_t from = t;

		hg_pod_lines(g, n, from, hb ? until : i < nin ? in[i].until : g->end);

		last = hg_renews(g, n, &t, hb ? until : (i < nin ? in[i].until : g->end));
		/* routine status reports while Ready */
		for (; status < (i < nin ? until : g->end); status += HG_REPORT)
			if (status > from)
				hg_kubelet_status(g, n, status);
		if (i == nin)
			break;
		if (hb)
			hg_unknown_incident(g, n, &in[i], &t, last);
		else
			hg_false_incident(g, n, &in[i]);
		status = (hb ? t : in[i].until) + HG_REPORT;
	}
}

/* ---- the cluster ----------------------------------------------------------- */

static void hg_nodes_init(struct hg *g)
{
	static const char *const apps[] = {"web", "api", "worker", "cache", "search"};
	for (long i = 0; i < g->o.nodes; i++) {
		struct hg_node *n = &g->nodes[i];
		char h1[6], h2[6];
		int oct = (int)(10 + i % HG_MAX_NODES);
		snprintf(n->ip, sizeof n->ip, "10.1.0.%d", oct);
		snprintf(n->name, sizeof n->name, "ip-10-1-0-%d.ec2.internal", oct);
		gen_uuid(n->boot, &g->r);
		for (int k = 0; k < HG_PODS - 1; k++) {
			gen_word(h1, sizeof h1 - 1, "bcdfghjklmnpqrstvwxz2456789", &g->r);
			gen_word(h2, sizeof h2 - 1, "bcdfghjklmnpqrstvwxz2456789", &g->r);
			snprintf(n->pods[k], sizeof n->pods[k], "prod/%s-%s-%s",
				 apps[gen_range(&g->r, 0, 4)], h1, h2);
		}
		gen_word(h1, sizeof h1 - 1, "bcdfghjklmnpqrstvwxz2456789", &g->r);
		snprintf(n->pods[HG_PODS - 1], sizeof n->pods[0], "kube-system/aws-node-%s", h1);
		n->ready = "True";
		n->msg = "kubelet is posting ready status";
		n->pid = (uint32_t)gen_range(&g->r, 2000, 9000);
	}
}

/* The incidents of node i: story i mod the chosen ones; node 0 twice; the last node none. */
static size_t hg_incidents(struct hg *g, long i, const enum hg_story *chosen, size_t nch,
			   struct hg_incident *out)
{
	if (i == g->o.nodes - 1 && g->o.nodes > 1)
		return 0;
	enum hg_story s = chosen[(size_t)(i + (long)(g->o.seed % nch)) % nch];
	int64_t span = g->end - g->o.start;
	int64_t at = g->o.start + span / 10 + gen_range(&g->r, 0, span / 5);
	int64_t d = gen_range(&g->r, hg_stories[s].min_s, hg_stories[s].max_s) * GEN_SEC;
	out[0] = (struct hg_incident){s, at, at + d};
	/* the first partition or kubelet stop of an odd seed never ends: a window open at the
	 * end (a reboot that never ends would leave no evidence of its cause at all) */
	if (!g->open_done && (g->o.seed & 1) && (s == HG_PARTITION || s == HG_KUBELET_STOP)) {
		out[0].until = g->end + GEN_SEC;
		g->open_done = true;
		return 1;
	}
	if (i == 0 && !(g->o.seed & 1) && s != HG_SCALE_DOWN &&
	    out[0].until + 400 * GEN_SEC < g->end) {
		int64_t at2 = out[0].until + gen_range(&g->r, 120, 300) * GEN_SEC;
		enum hg_story s2 = chosen[(size_t)(i + 1 + (long)(g->o.seed % nch)) % nch];
		if (s2 == HG_SCALE_DOWN)
			s2 = s;
		int64_t d2 =
		    gen_range(&g->r, hg_stories[s2].min_s, hg_stories[s2].min_s + 60) * GEN_SEC;
		if (at2 + d2 < g->end - 60 * GEN_SEC) {
			out[1] = (struct hg_incident){s2, at2, at2 + d2};
			return 2;
		}
	}
	return 1;
}

static int hg_cmp(const void *a, const void *b)
{
	const struct hg_line *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t ? 1 : x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int hg_write(const char *path, struct hg_lines *ls, const char *head)
{
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		fprintf(stderr, "lt-gen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	qsort(ls->v, ls->n, sizeof *ls->v, hg_cmp);
	if (head)
		fputs(head, f);
	for (size_t i = 0; i < ls->n; i++) {
		fputs(ls->v[i].text, f);
		fputc('\n', f);
	}
	return fclose(f) == 0 ? 0 : -1;
}

static void hg_free_lines(struct hg_lines *ls)
{
	for (size_t i = 0; i < ls->n; i++)
		free(ls->v[i].text);
	free(ls->v);
}

static int hg_output(struct hg *g)
{
	char path[4096];
	int rc = 0;
	for (long s = 0; s < g->o.servers && g->o.out; s++) {
		snprintf(path, sizeof path, "%s.%ld", g->o.out, s + 1);
		rc |= hg_write(path, &g->audit[s], NULL);
	}
	for (long i = 0; i < g->o.nodes && g->o.jdir; i++) {
		snprintf(path, sizeof path, "%s/kubelet-%s.log", g->o.jdir, g->nodes[i].name);
		rc |= hg_write(path, &g->nodes[i].journal, NULL);
	}
	if (g->o.kcm)
		rc |= hg_write(g->o.kcm, &g->kcm, NULL);
	return rc;
}

static void hg_run(struct hg *g)
{
	enum hg_story chosen[HG_NSTORIES];
	size_t nch = 0;
	for (int s = 0; s < HG_NSTORIES; s++)
		if (g->o.stories & (1u << s))
			chosen[nch++] = (enum hg_story)s;
	g->end = g->o.start + g->o.minutes * 60 * GEN_SEC;
	g->phase = gen_range(&g->r, 0, HG_MONITOR - 1);
	hg_nodes_init(g);
	for (long i = 0; i < g->o.nodes; i++) {
		struct hg_incident in[2];
		size_t nin = hg_incidents(g, i, chosen, nch, in);
		hg_node_life(g, &g->nodes[i], in, nin);
	}
}

static int hg_parse_stories(const char *v, unsigned *out)
{
	*out = 0;
	while (*v) {
		size_t n = strcspn(v, ","), s;
		if (n == 3 && memcmp(v, "all", 3) == 0)
			*out |= (1u << HG_NSTORIES) - 1;
		for (s = 0; s < HG_NSTORIES; s++)
			if (strlen(hg_stories[s].name) == n &&
			    memcmp(hg_stories[s].name, v, n) == 0)
				*out |= 1u << s;
		if (*out == 0) {
			fprintf(stderr, "lt-gen: unknown health story '%.*s'\n", (int)n, v);
			return -1;
		}
		v += n + (v[n] == ',');
	}
	return 0;
}

/* --skew-ms A[,B,C]: the clock errors of the second, third and fourth apiservers, in ms. */
static int hg_parse_skews(struct hg_opts *o, const char *v)
{
	for (int s = 1; s < HG_MAX_SERVERS; s++) {
		char *e;
		o->skew_ms[s] = strtol(v, &e, 10);
		if (e == v || (*e != ',' && *e != '\0')) {
			fprintf(stderr, "lt-gen --health: --skew-ms wants MS[,MS...], not '%s'\n",
				v);
			return -1;
		}
		if (*e == '\0')
			return 0;
		v = e + 1;
	}
	fputs("lt-gen --health: --skew-ms: at most 3 values (apiservers 2 to 4)\n", stderr);
	return -1;
}

static int hg_parse(struct hg_opts *o, int argc, char **argv)
{
	*o = (struct hg_opts){
	    .nodes = 8, .minutes = 40, .servers = 2, .seed = 1, .start = HG_DEF_START * GEN_SEC};
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];
		char *e;
		if (strcmp(k, "--health") == 0) {
			if (hg_parse_stories(v, &o->stories) != 0)
				return -1;
		} else if (strcmp(k, "--nodes") == 0) {
			o->nodes = strtol(v, &e, 10);
		} else if (strcmp(k, "--minutes") == 0) {
			o->minutes = strtol(v, &e, 10);
		} else if (strcmp(k, "--seed") == 0) {
			o->seed = strtoull(v, &e, 10);
		} else if (strcmp(k, "--skew-ms") == 0) {
			if (hg_parse_skews(o, v) != 0)
				return -1;
		} else if (strcmp(k, "--apiservers") == 0) {
			o->servers = strtol(v, &e, 10);
		} else if (strcmp(k, "--level") == 0) {
			o->rr = strcmp(v, "RequestResponse") == 0;
		} else if (strcmp(k, "-o") == 0) {
			o->out = v;
		} else if (strcmp(k, "--journal-dir") == 0) {
			o->jdir = v;
		} else if (strcmp(k, "--kcm-log") == 0) {
			o->kcm = v;
		} else if (strcmp(k, "--truth") == 0) {
			o->truth = v;
		} else {
			fprintf(stderr, "lt-gen --health: unknown option '%s'\n", k);
			return -1;
		}
	}
	if (o->nodes < 1 || o->nodes > HG_MAX_NODES || o->minutes < 20 || o->minutes > 1440 ||
	    o->stories == 0 || o->servers < 1 || o->servers > HG_MAX_SERVERS) {
		fputs(
		    "lt-gen --health LIST: --nodes 1..64, --minutes 20..1440, --apiservers 1..4\n",
		    stderr);
		return -1;
	}
	return 0;
}

int gen_health_main(int argc, char **argv)
{
	struct hg *g = gen_calloc(1, sizeof *g);
	int rc = hg_parse(&g->o, argc, argv);
	if (rc == 0) {
		gen_rng_seed(&g->r, g->o.seed, 0x4e6f6465);
		g->truths = gen_calloc(HG_MAX_TRUTH, sizeof *g->truths);
		hg_run(g);
		rc = hg_output(g);
		if (rc == 0 && g->o.truth)
			rc = hg_truth_write(g);
	}
	for (int s = 0; s < HG_MAX_SERVERS; s++)
		hg_free_lines(&g->audit[s]);
	hg_free_lines(&g->kcm);
	for (long i = 0; i < HG_MAX_NODES; i++)
		hg_free_lines(&g->nodes[i].journal);
	free(g->truths);
	free(g);
	return rc == 0 ? 0 : 2;
}
