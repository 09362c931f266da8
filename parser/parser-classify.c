/*
 * parser-classify.c - what a kubelet or controller-manager message means.
 *
 * One table of PCRE2 patterns, matched caseless against "message fields"
 * (a structured klog line's unquoted message, a space, its key=value tail;
 * a printf line's text).  Wordings come from the Kubernetes sources and
 * differ between versions (LEASES.md), so patterns anchor on the stable
 * opening words and read names from either style.  All rules are joined
 * into one alternation tagged with (*MARK:n), so a line costs one match, and
 * none when its first bytes rule every rule out (cls_may_match).
 * Adding a kind is one line here.
 */
#include "parser-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "[GROUP/VERSION/KIND, namespace: NS, name: NAME, uid: UID]" of the garbage collector */
#define CLS_GC_ITEM                                                                                \
	"(?:item=\"?)?\\[(?:[^\\],]*/)?(?<okind>[A-Za-z0-9]+), namespace: (?<ns>[^,]*), "          \
	"name: (?<name>[^,]+), uid: (?<uid>[^\\]]+)\\]"
/* a node name after the words, quoted or not, with an optional colon before it */
#define CLS_NODE "(?::? \"?(?<node>[^\\s\"=]+)\"?(?=\\s|$))?"

static const struct lt_log_kind cls_rules[] = {
    /* kubelet: node lease controller (component-helpers/apimachinery/lease) */
    {"lease-update-fallback", "kubelet", "update with the last lease failed; ensuring it exists",
     "^failed to update lease using latest lease"},
    /* not client-go leader election's 1.35+ "Failed to update lease" lock="NS/NAME" */
    {"lease-update-failed", "kubelet", "a lease renewal failed",
     "^failed to update (?:node )?lease\\b(?!.*\\block=)"},
    {"lease-ensure-failed", "kubelet", "the lease could not be read or created",
     "^failed to ensure (?:node )?lease exists"},
    /* 1.14-1.20 printf: retryUpdateLease's error, then ", will retry after 10s" */
    {"lease-retry", "kubelet", "the lease update will be retried",
     "^(?:will retry updating lease|failed \\d+ attempts to update (?:node )?lease, will retry "
     "after)"},
    {"lease-owner-ref-failed", "kubelet", "the Node was not found to own its lease",
     "^failed to get node(?: \"?(?<node>[^\\s\"]+)\"?)? when trying to set owner ref to the node "
     "lease"},
    /* kubelet: node status and registration */
    {"node-status-retry-exceeded", "kubelet", "node status update gave up after retries",
     "^unable to update node status"},
    {"node-status-error", "kubelet", "a node status update failed", "^error updating node status"},
    {"register-attempt", "kubelet", "the kubelet tries to register its Node",
     "^attempting to register node" CLS_NODE},
    {"register-success", "kubelet", "the kubelet registered its Node",
     "^successfully registered node" CLS_NODE},
    {"register-failure", "kubelet", "the Node could not be registered",
     "^unable to register node(?: \"?(?<node>[^\\s\"]+)\"?)? with api ?server"},
    {"node-not-found", "kubelet", "the kubelet's Node is not found",
     "^(?:error getting node\\b|node \"?(?<node>[^\\s\"]+)\"? not found)"},
    /* kubelet: node readiness (setters.go, kubelet.go syncLoop, runtime.go; docs/node-health.md).
     * The runtime-down and PLEG rules come before the generic sync line they also match. */
    /* 1.10-1.19 printf "Recording NodeNotReady event message for node X"; 1.20+ structured
     * "Recording event message for node" node="X" event="NodeNotReady" */
    {"node-not-ready", "kubelet", "the kubelet reports its node Ready=False",
     "^(?:node became not ready\\b|recording nodenotready event message for node" CLS_NODE
     "|recording event message for node\\b.*?\\bevent=\"?nodenotready\\b)"},
    {"pleg-unhealthy", "kubelet", "the pod lifecycle event generator is stuck",
     "^(?:skipping pod synchronization\\b.*?)?pleg is not healthy"},
    {"runtime-down", "kubelet", "the container runtime does not answer",
     "^(?:skipping pod synchronization\\b.*?container runtime is down|container runtime "
     "(?:sanity check failed|is down|not ready)|status from runtime service failed)"},
    {"cni-not-ready", "kubelet", "the network plugin (CNI) is not ready",
     "^(?:skipping pod synchronization\\b.*?)?(?:container runtime network not ready|network "
     "plugin is not ready|cni config uninitialized|unable to update cni config)"},
    {"kubelet-start", "any", "the kubelet (re)started",
     "^(?:started (?:kubernetes )?kubelet\\b|starting kubelet main sync loop)"},
    {"kubelet-stop", "any", "the kubelet stopped",
     "^(?:stopping (?:kubernetes )?kubelet\\b|stopped (?:kubernetes "
     ")?kubelet\\b|kubelet\\.service: "
     "(?:main process exited|failed with result))"},
    /* the journal's boot separator, kept as a line (parser-text-line.c): the node rebooted */
    {"node-boot", "any", "the node booted (the journal's boot separator)",
     "^-- (?:boot [0-9a-f]{8,}|reboot) --"},
    /* kube-controller-manager: garbage collector */
    {"gc-processing", "kube-controller-manager", "the garbage collector looks at an object",
     "^processing item " CLS_GC_ITEM},
    {"gc-deleting", "kube-controller-manager", "the garbage collector deletes an object",
     "^(?:deleting item|delete object) " CLS_GC_ITEM},
    /* kube-controller-manager: node lifecycle controller */
    {"nlc-new-node", "kube-controller-manager", "the controller saw a new Node",
     "^controller observed a new node" CLS_NODE},
    {"nlc-node-deleted", "kube-controller-manager", "the controller saw a Node deletion",
     "^controller observed a node deletion" CLS_NODE},
    {"nlc-not-updated", "kube-controller-manager", "no heartbeat within the grace period",
     "^node (?:(?<node>[^\\s\"]+) )?hasn'?t been updated"},
    /* printf (up to 1.2x): "Node X is NotReady as of TIME. Adding it to the Taint queue."; without
     * taint-based evictions (to 1.17): "Node is NotReady. Adding Pods on Node X to eviction queue:
     * ...", "Node is unresponsive. Adding Pods on Node X to eviction queues: ...", "Node X is
     * ready again, cancelled pod eviction" */
    {"nlc-not-ready", "kube-controller-manager", "a NotReady node is queued for tainting",
     "^node (?:(?<node>[^\\s\"]+) )?is notready(?:(?: as of .*?)?\\. adding it to the taint queue|"
     "\\. adding pods on node (?<node>[^\\s\"]+) to eviction queue)"},
    {"nlc-unresponsive", "kube-controller-manager", "an unresponsive node is queued for tainting",
     "^node (?:(?<node>[^\\s\"]+) )?is unresponsive(?:(?: as of .*?)?\\. adding it to the taint "
     "queue|\\. adding pods on node (?<node>[^\\s\"]+) to eviction queue)"},
    {"nlc-healthy", "kube-controller-manager", "a node is healthy again; taints removed",
     "^node (?:(?<node>[^\\s\"]+) )?is (?:healthy again|ready again, cancelled pod eviction)"},
    /* printf: "Recording status change NodeNotReady event message for node X" */
    {"nlc-status-change", "kube-controller-manager", "a node status change (NodeNotReady...)",
     "^recording status change (?:\\S+ )?event message for node" CLS_NODE},
    {"nlc-disruption", "kube-controller-manager", "all nodes not ready: disruption mode",
     "^controller detected that (?:all nodes are not-ready|some nodes are ready)"},
    /* controller_utils.go at V(4): 1.13-1.17 printf "Added [&Taint{Key:K,...}] Taint to Node X",
     * "Made sure that Node X has no [&Taint{...}] Taint"; structured "Added taint to node"
     * taint=[...] node="X", "Made sure that node has no taint" node="X" taint=[...] */
    {"nlc-taint-added", "kube-controller-manager", "a taint was added to a node",
     "^added (?:\\[.*?\\] taint to node (?<node>[^\\s\"]+)|taint to node\\b)"},
    {"nlc-taint-removed", "kube-controller-manager", "a node was made sure to have no such taint",
     "^made sure that node (?:(?<node>[^\\s\"]+) )?has no (?:\\[.*?\\] )?taint"},
    {"nlc-ready-now", "kube-controller-manager", "a node queued for tainting was ready again",
     "^node (?:(?<node>[^\\s\"]+) )?was in a taint queue, but it'?s ready now"},
    {"nlc-taint", "kube-controller-manager", "a taint was added to or removed from a node",
     "^(?:adding|removing|failed to (?:add|remove)) (?:\\S+ )?taints?\\b|^failed to instantly "
     "swap \\w+taint to \\w+taint"},
    /* taint_manager.go "NoExecuteTaintManager is deleting Pod: NS/NAME" (printf) or pod="NS/NAME";
     * 1.29+ taint_eviction.go "Deleting pod" controller="taint-eviction-controller" pod="NS/NAME"
     * (other controllers' "Deleting pod" lines name their own controller) */
    {"pod-eviction", "kube-controller-manager", "pods deleted from a tainted node",
     "^(?:noexecutetaintmanager is deleting pod|deleting pod controller=\"?taint-eviction-"
     "controller|marking for deletion pod|evicting pods?\\b|deleting pods? from node)"},
    /* cloud-provider node_lifecycle_controller.go: "Deleting node (no longer present in cloud
     * provider): X" (1.9), "Deleting node since it is no longer present in cloud provider: X" */
    {"cloud-node-deleted", "any", "the cloud says the instance is gone",
     "^deleting node (?:since it is |\\()no longer present in cloud provider\\)?"
     "(?:: \"?(?<node>[^\\s\"]+))?"},
    /* cluster-autoscaler scale_down: "Scale-down: removing empty node X", "Scale-down: removing
     * node X, utilization: ..." */
    {"ca-scale-down", "any", "the autoscaler removes a node",
     "^scale-down: removing (?:empty )?node \"?(?<node>[^\\s\",]+)"},
    /*
     * any component: client-go leader election (tools/leaderelection/leaderelection.go).
     * 1.10-1.19 "attempting to acquire leader lease  NS/NAME..." (two spaces), 1.20-1.34 one;
     * 1.35+ structured, the lease in lock="NS/NAME" (read by cls_read_groups when the words
     * do not name it).  1.2-era glog "sucessfully acquired lease".
     */
    {"leader-acquiring", "any", "a candidate tries to take a leader lease",
     "^attempting to acquire leader lease(?:\\.\\.\\.)?"
     "(?:\\s+(?!lock=)(?<lease>[^\\s\"]+?)(?:\\.\\.\\.)?(?=\\s|$))?"},
    {"leader-acquired", "any", "a candidate became the leader",
     "^succ?essfully acquired lease(?:\\s+(?!lock=)(?<lease>[^\\s\"]+))?"},
    {"leader-renew-failed", "any", "the leader could not renew its lease",
     "^failed to renew lease(?:\\s+(?!lock=)(?<lease>[^\\s:\"]+))?"},
    /* "error retrieving resource lock NS/NAME: ERR" (all), "Error retrieving lease lock" (1.35) */
    {"leader-lock-error", "any", "a candidate or leader cannot read (or create) the lock",
     "^error (?:retrieving (?:resource|lease) lock|initially creating (?:leader election "
     "record|lease lock))(?:\\s+(?!\\w+=)(?<lease>[^\\s:\"]+))?"},
    {"leader-slow-path", "any", "an optimistic leader lease update failed",
     "^failed to update (?:lock|lease) optimi(?:s)?tically"}, /* 1.30-1.31 "optimitically" */
    {"leader-update-failed", "any", "a leader lease update failed",
     "^failed to update (?:lock\\b|lease\\b(?=.*\\block=))"},
    /* 1.31+ "lock has expired: NS/NAME", 1.35 "Lease has expired" lock="NS/NAME" */
    {"leader-expired", "any", "a candidate found the leader lease expired",
     "^(?:lock|lease) has expired(?::?\\s+(?!lock=)(?<lease>[^\\s\"]+))?"},
    {"leader-lost", "any", "the leader lost its lease and exits",
     "^(?:leaderelection lost|leader ?election lost|stopped leading)"},
    {"leader-new", "any", "a new leader was observed", "^new leader elected\\b"},
    /*
     * The lock's LeaderElection event, "IDENTITY became leader" (resourcelock RecordEvent):
     * printf "Event(v1.ObjectReference{Kind:"Lease", Namespace:"NS", Name:"NAME", ...}): type:
     * 'Normal' reason: 'LeaderElection' ID became leader" (to 1.19, the lease's namespace and
     * name apart), structured "Event occurred" object="NS/NAME" ... reason="LeaderElection"
     * message="ID became leader" (1.20+), 1.2-era glog "ID became leader".  Not a "leader-"
     * kind: it names its lease, and the process's lease memory keeps NS/NAME.
     */
    {"became-leader", "any", "the leader election event: an identity became leader",
     "^(?:event\\(\\w+\\.objectreference\\{kind:\"(?<okind>\\w+)\", namespace:\"(?<ns>[^\"]*)\", "
     "name:\"(?<name>[^\"]+)\".*?\\}\\): type: 'normal' reason: 'leaderelection' \\S+ became "
     "leader|event occurred object=\"?(?<lease>[^\\s\"]+)\"?.*?\\breason=\"?leaderelection\"? "
     "message=\"?(?:\\S+ )?became leader|[^\\s\"]+ became leader\\s*$)"},
    {NULL, NULL, NULL, NULL},
};

#define CLS_NRULES (sizeof cls_rules / sizeof *cls_rules - 1)

/*
 * The prefilter: every rule is anchored at the text's start, so a text whose first bytes no
 * match can start with (PCRE2's hard partial match of them says so) matches no rule, and the
 * match is skipped.  Those starts are few in a log (a message's first word, a space and one
 * byte after it: "SyncLoop A", "http: T"), so each is asked once and remembered: CLS_MEMO_SLOTS
 * of them (more are matched in full), CLS_START_MAX bytes each, ASCII only (a start never cuts
 * a UTF-8 character).
 */
#define CLS_START_MAX  24
#define CLS_MEMO_SLOTS 512 /* a power of two */

enum cls_start { CLS_START_UNKNOWN, CLS_START_NONE, CLS_START_MAY };

struct cls_memo_slot {
	unsigned char len, state; /* state: enum cls_start */
	char start[CLS_START_MAX];
};

struct parser_classifier {
	struct lt_regex *all;	    /* every rule, (*MARK:index) */
	struct lt_regex *not_found; /* `nodes "X" not found` and the like */
	int anchored;		    /* all matches only at the start: the memo may skip */
	size_t memo_used;
	struct cls_memo_slot memo[CLS_MEMO_SLOTS];
};

const struct lt_log_kind *lt_log_kinds(void)
{
	return cls_rules;
}

static struct lt_regex *cls_compile(const char *pattern)
{
	struct lt_regex *re;
	struct lt_error err;

	/* the table is ours: a pattern that does not compile is a bug, caught by any test */
	if (lt_regex_new(&re, pattern, 1, &err) != 0) {
		fprintf(stderr, "leasetrail: classification table: %s\n", err.msg);
		abort();
	}
	return re;
}

struct parser_classifier *parser_classifier_new(void)
{
	struct parser_classifier *c = lt_xcalloc(1, sizeof *c);
	struct lt_buf all;

	lt_buf_init(&all);
	lt_buf_append(&all, "(?:", 3);
	for (size_t i = 0; i < CLS_NRULES; i++)
		lt_buf_printf(&all, "%s(?:%s)(*MARK:%zu)", i ? "|" : "", cls_rules[i].pattern, i);
	lt_buf_putc(&all, ')');
	c->all = cls_compile(all.ptr);
	c->anchored = lt_regex_anchored(c->all);
	c->not_found =
	    cls_compile("(?:nodes? \\\\*\"(?<node>[^\"\\\\]+)|"
			"leases?(?:\\.coordination\\.k8s\\.io)? \\\\*\"(?<lease>[^\"\\\\]+))"
			"\\\\*\" not found");
	lt_buf_release(&all);
	return c;
}

void parser_classifier_free(struct parser_classifier *c)
{
	if (c == NULL)
		return;
	lt_regex_free(c->all);
	lt_regex_free(c->not_found);
	free(c);
}

/*
 * The first occurrence of lit[0..n) (n > 0) in p[0..len), as memmem finds it: a memchr for its
 * last byte ('=' of a key, 'd' of "not found"), then a compare of the bytes before it, cost
 * a half to a third of glibc's memmem on a line's two hundred bytes.
 */
static const char *cls_find(const char *p, size_t len, const char *lit, size_t n)
{
	const char *end = p + len, *c = p + n - 1;

	if (len < n)
		return NULL;
	while ((c = memchr(c, lit[n - 1], (size_t)(end - c))) != NULL) {
		if (memcmp(c - (n - 1), lit, n - 1) == 0)
			return c - (n - 1);
		c++;
	}
	return NULL;
}

/* The value of ` KEY"X"` (or KEY X) in a structured line's tail, absent if none; key ends in '='.
 */
static struct lt_str cls_field(const char *text, size_t len, const char *key)
{
	struct lt_str none = {NULL, 0};
	const char *p = text, *end = text + len;
	size_t klen = strlen(key);

	while ((p = cls_find(p, (size_t)(end - p), key, klen)) != NULL) {
		const char *v = p + klen, *e;

		if (v < end && *v == '"')
			v++;
		for (e = v; e < end && *e != '"' && *e != ' '; e++)
			;
		if (e > v)
			return (struct lt_str){v, (size_t)(e - v)};
		p = v;
	}
	return none;
}

static void cls_read_groups(struct parser_classifier *c, struct lt_log_line *line, const char *text)
{
	struct lt_str v;

	if ((v = lt_regex_group(c->all, text, "node")).ptr != NULL)
		line->subject = v;
	else if ((v = lt_regex_group(c->all, text, "lease")).ptr != NULL)
		line->subject = v;
	else if ((v = lt_regex_group(c->all, text, "name")).ptr != NULL)
		line->subject = v;
	line->obj_kind = lt_regex_group(c->all, text, "okind");
	line->obj_namespace = lt_regex_group(c->all, text, "ns");
	line->obj_uid = lt_regex_group(c->all, text, "uid");
}

/* The start of text the memo keys on: to one byte after its first space, at most
 * CLS_START_MAX bytes, ended before a byte that is not ASCII. */
static size_t cls_start_len(const char *text, size_t len)
{
	size_t n = len < CLS_START_MAX ? len : CLS_START_MAX;

	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)text[i] >= 0x80)
			return i;
		if (i > 0 && text[i - 1] == ' ')
			return i + 1;
	}
	return n;
}

/* The memo's slot for start s[0..n) (n > 0): its own, or the empty one it goes in; NULL when
 * the memo is full and s is not in it. */
static struct cls_memo_slot *cls_memo_slot(struct parser_classifier *c, const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	for (size_t k = 0; k < CLS_MEMO_SLOTS; k++) {
		struct cls_memo_slot *e = &c->memo[(h + k) & (CLS_MEMO_SLOTS - 1)];

		if (e->state == CLS_START_UNKNOWN)
			return c->memo_used < CLS_MEMO_SLOTS / 2 ? e : NULL; /* half full at most */
		if (e->len == n && memcmp(e->start, s, n) == 0)
			return e;
	}
	return NULL;
}

/* 0 when no rule can match text (its start rules them all out), 1 when one may. */
static int cls_may_match(struct parser_classifier *c, const char *text, size_t len)
{
	size_t n = c->anchored ? cls_start_len(text, len) : 0;
	struct cls_memo_slot *e = n > 0 ? cls_memo_slot(c, text, n) : NULL;

	if (e == NULL)
		return 1;
	if (e->state == CLS_START_UNKNOWN) {
		e->len = (unsigned char)n;
		memcpy(e->start, text, n);
		e->state =
		    lt_regex_start_may_match(c->all, text, n) ? CLS_START_MAY : CLS_START_NONE;
		c->memo_used++;
	}
	return e->state == CLS_START_MAY;
}

void parser_classify(struct parser_classifier *c, struct lt_log_line *line, const char *text,
		     size_t len)
{
	const char *mark;

	line->kind = NULL;
	line->subject = line->obj_kind = line->obj_namespace = line->obj_uid =
	    (struct lt_str){NULL, 0};
	line->not_found = 0;
	if (cls_may_match(c, text, len) && lt_regex_match(c->all, text, len) &&
	    (mark = lt_regex_mark(c->all)) != NULL) {
		size_t i = (size_t)strtoul(mark, NULL, 10);

		if (i < CLS_NRULES) {
			line->kind = cls_rules[i].kind;
			cls_read_groups(c, line, text);
		}
	}
	/* 1.35+ leader election names its lease only in lock="NS/NAME" */
	if (line->subject.ptr == NULL && line->kind != NULL &&
	    strncmp(line->kind, "leader-", 7) == 0)
		line->subject = cls_field(text, len, " lock=");
	if (line->subject.ptr == NULL)
		line->subject = cls_field(text, len, " node=");
	if (cls_find(text, len, "not found", 9) != NULL &&
	    lt_regex_match(c->not_found, text, len)) {
		struct lt_str node = lt_regex_group(c->not_found, text, "node");

		line->not_found = node.ptr ? LT_NOT_FOUND_NODE : LT_NOT_FOUND_LEASE;
		if (line->subject.ptr == NULL)
			line->subject =
			    node.ptr ? node : lt_regex_group(c->not_found, text, "lease");
	}
}
