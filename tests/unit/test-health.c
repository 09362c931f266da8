/*
 * test-health.c - the node-health builder, fed arrays of facts.
 *
 * Each case is a node's story as facts in time order (seconds), and the
 * windows the builder must find: start, end (0 = still open), condition,
 * cause, how it ended, evidence, taints and evictions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "queries-int.h"

#define S(x)	    ((int64_t)((x)*1000000.0))
#define MAX_FACTS   24
#define MAX_WINDOWS 3

/* Shorthands: F(ts, kind, source) and FT(..., text). */
#define F(t, k, src)                                                                               \
	{                                                                                          \
		.ts = S(t), .kind = QUERIES_HF_##k, .source = QUERIES_HEALTH_##src                 \
	}
#define FT(t, k, src, txt)                                                                         \
	{                                                                                          \
		.ts = S(t), .kind = QUERIES_HF_##k, .source = QUERIES_HEALTH_##src, .text = txt,   \
		.text_len = sizeof txt - 1                                                         \
	}
#define FCLOUD(t)                                                                                  \
	{                                                                                          \
		.ts = S(t), .kind = QUERIES_HF_NODE_DELETE, .source = QUERIES_HEALTH_AUDIT,        \
		.flags = QUERIES_HEALTH_BY_CLOUD                                                   \
	}

struct want {
	double start, end; /* end 0: open */
	enum lt_node_condition cond;
	enum lt_notready_cause cause;
	enum lt_health_end how;
	unsigned evidence;
	const char *taints;
	int64_t evicted;
};

struct health_case {
	const char *name;
	struct queries_health_fact facts[MAX_FACTS];
	size_t nwant;
	struct want want[MAX_WINDOWS];
};

#define AUD LT_HEALTH_EV_AUDIT
#define KUB LT_HEALTH_EV_KUBELET
#define CTL LT_HEALTH_EV_CONTROLLER

static const struct health_case cases[] = {
    {.name = "a lease gap with no controller write is no window",
     .facts = {F(0, RENEW, AUDIT), F(10, RENEW, AUDIT), F(50, RENEW, AUDIT),
	       F(50.5, CONN_ERROR, KUBELET_LOG), F(60, RENEW, AUDIT)},
     .nwant = 0},
    {.name = "partition at Metadata level: taint patches, then recovery",
     .facts = {F(0, RENEW, AUDIT), F(10, RENEW, AUDIT), F(20, CONN_ERROR, KUBELET_LOG),
	       F(55, CTRL_UNKNOWN, AUDIT), F(55.1, TAINT_PATCH, AUDIT), F(60, TAINT_PATCH, AUDIT),
	       F(200, RENEW, AUDIT), F(200.2, KUBELET_STATUS, AUDIT), F(204, TAINT_PATCH, AUDIT),
	       F(210, RENEW, AUDIT)},
     .nwant = 1,
     .want = {{55, 204, LT_CONDITION_UNKNOWN, LT_CAUSE_NETWORK_PARTITION, LT_HEALTH_RECOVERED,
	       AUD | KUB, "", 0}}},
    {.name = "partition with named taints and evictions",
     .facts = {F(0, RENEW, AUDIT), F(12, CONN_ERROR, KUBELET_LOG), F(45, CTRL_UNKNOWN, CTRL_LOG),
	       FT(46, TAINT_ADD, AUDIT, "node.kubernetes.io/unreachable:NoExecute"),
	       F(346, EVICTION, AUDIT), F(346.5, EVICTION, AUDIT), F(400, RENEW, AUDIT),
	       F(401, HEALTHY, CTRL_LOG),
	       FT(401.2, TAINT_REMOVE, AUDIT, "node.kubernetes.io/unreachable:NoExecute")},
     .nwant = 1,
     .want =
	 {{45, 401.2, LT_CONDITION_UNKNOWN, LT_CAUSE_NETWORK_PARTITION, LT_HEALTH_RECOVERED,
	   AUD | CTL | KUB,
	   "+node.kubernetes.io/unreachable:NoExecute,-node.kubernetes.io/unreachable:NoExecute",
	   2}}},
    {.name = "the kubelet stopped and started again",
     .facts = {F(0, RENEW, AUDIT), F(5, KUBELET_STOP, KUBELET_LOG), F(50, CTRL_UNKNOWN, AUDIT),
	       F(90, KUBELET_START, KUBELET_LOG), F(95, RENEW, AUDIT),
	       F(95.5, KUBELET_STATUS, AUDIT)},
     .nwant = 1,
     .want = {{50, 95.5, LT_CONDITION_UNKNOWN, LT_CAUSE_KUBELET_STOPPED, LT_HEALTH_RECOVERED,
	       AUD | KUB, "", 0}}},
    {.name = "the node rebooted",
     .facts = {F(0, RENEW, AUDIT), F(50, CTRL_UNKNOWN, AUDIT), F(80, BOOT, KUBELET_LOG),
	       F(85, KUBELET_START, KUBELET_LOG), F(86, CONN_ERROR, KUBELET_LOG),
	       F(95, RENEW, AUDIT), F(96, KUBELET_STATUS, AUDIT)},
     .nwant = 1,
     .want = {{50, 96, LT_CONDITION_UNKNOWN, LT_CAUSE_NODE_REBOOTED, LT_HEALTH_RECOVERED, AUD | KUB,
	       "", 0}}},
    {.name = "a clean reboot: systemd stops the kubelet, the journal's boot separator",
     .facts = {F(0, RENEW, AUDIT), F(5, KUBELET_STOP, KUBELET_LOG), F(50, CTRL_UNKNOWN, AUDIT),
	       F(80, BOOT, KUBELET_LOG), F(85, KUBELET_START, KUBELET_LOG), F(95, RENEW, AUDIT),
	       F(96, KUBELET_STATUS, AUDIT)},
     .nwant = 1,
     .want = {{50, 96, LT_CONDITION_UNKNOWN, LT_CAUSE_NODE_REBOOTED, LT_HEALTH_RECOVERED, AUD | KUB,
	       "", 0}}},
    {.name = "container runtime down: the kubelet reports Ready=False while renewing",
     .facts = {F(0, RENEW, AUDIT),
	       FT(5, KUBELET_NOT_READY, KUBELET_LOG, "container runtime is down"),
	       F(6, CTRL_NOT_READY, CTRL_LOG), F(10, RENEW, AUDIT),
	       FT(11, TAINT_ADD, AUDIT, "node.kubernetes.io/not-ready:NoExecute"),
	       F(20, RENEW, AUDIT), F(60, KUBELET_READY, AUDIT),
	       FT(63, TAINT_REMOVE, AUDIT, "node.kubernetes.io/not-ready:NoExecute"),
	       F(70, RENEW, AUDIT)},
     .nwant = 1,
     .want = {{5, 63, LT_CONDITION_FALSE, LT_CAUSE_RUNTIME_DOWN, LT_HEALTH_RECOVERED,
	       AUD | CTL | KUB,
	       "+node.kubernetes.io/not-ready:NoExecute,-node.kubernetes.io/not-ready:NoExecute",
	       0}}},
    {.name = "Ready=False at Metadata level: patches while renewing are taint adds",
     .facts = {F(0, RENEW, AUDIT), F(5, CTRL_NOT_READY, CTRL_LOG), F(6, TAINT_PATCH, AUDIT),
	       F(10, RENEW, AUDIT), F(16, TAINT_PATCH, AUDIT), F(20, RENEW, AUDIT),
	       F(30, HEALTHY, CTRL_LOG), F(31, TAINT_PATCH, AUDIT), F(40, RENEW, AUDIT)},
     .nwant = 1,
     .want = {{5, 31, LT_CONDITION_FALSE, LT_CAUSE_KUBELET_REPORTED, LT_HEALTH_RECOVERED, AUD | CTL,
	       "", 0}}},
    {.name = "PLEG, then CNI, then another reason: three windows",
     .facts = {FT(5, KUBELET_NOT_READY, KUBELET_LOG,
		  "PLEG is not healthy: pleg was last seen active 3m7s ago; threshold is 3m0s"),
	       F(40, KUBELET_READY, AUDIT), F(100, RENEW, AUDIT),
	       FT(105, KUBELET_NOT_READY, KUBELET_LOG,
		  "container runtime network not ready: NetworkReady=false "
		  "reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin "
		  "not initialized"),
	       F(140, KUBELET_READY, AUDIT), F(200, RENEW, AUDIT),
	       FT(205, KUBELET_NOT_READY, KUBELET_LOG, "[disk full]"),
	       F(240, KUBELET_READY, AUDIT)},
     .nwant = 3,
     .want = {{5, 40, LT_CONDITION_FALSE, LT_CAUSE_PLEG, LT_HEALTH_RECOVERED, AUD | KUB, "", 0},
	      {105, 140, LT_CONDITION_FALSE, LT_CAUSE_CNI, LT_HEALTH_RECOVERED, AUD | KUB, "", 0},
	      {205, 240, LT_CONDITION_FALSE, LT_CAUSE_KUBELET_REPORTED, LT_HEALTH_RECOVERED,
	       AUD | KUB, "", 0}}},
    {.name = "NotReady twice: a taint removal past the tail belongs to no window",
     .facts = {F(0, RENEW, AUDIT), F(45, CTRL_UNKNOWN, AUDIT), F(60, RENEW, AUDIT),
	       F(61, HEALTHY, CTRL_LOG), F(64, TAINT_REMOVE, CTRL_LOG), F(120, TAINT_REMOVE, AUDIT),
	       F(200, CTRL_UNKNOWN, AUDIT), F(260, RENEW, AUDIT), F(261, HEALTHY, CTRL_LOG)},
     .nwant = 2,
     /* heartbeats came back with no restart seen: the kubelet ran on, unheard */
     .want = {{45, 64, LT_CONDITION_UNKNOWN, LT_CAUSE_NETWORK_PARTITION, LT_HEALTH_RECOVERED,
	       AUD | CTL, "", 0},
	      {200, 261, LT_CONDITION_UNKNOWN, LT_CAUSE_NETWORK_PARTITION, LT_HEALTH_RECOVERED,
	       AUD | CTL, "", 0}}},
    {.name = "NotReady, then the cloud deletes the Node: instance terminated",
     .facts = {F(0, RENEW, AUDIT), F(45, CTRL_UNKNOWN, AUDIT), F(46, TAINT_PATCH, AUDIT),
	       FCLOUD(120)},
     .nwant = 1,
     .want = {{45, 120, LT_CONDITION_UNKNOWN, LT_CAUSE_INSTANCE_TERMINATED, LT_HEALTH_DELETED, AUD,
	       "", 0}}},
    {.name = "NotReady, then deleted by hand: the cause stays the evidence's",
     .facts = {F(0, RENEW, AUDIT), F(10, CONN_ERROR, KUBELET_LOG), F(45, CTRL_UNKNOWN, AUDIT),
	       F(300, NODE_DELETE, AUDIT)},
     .nwant = 1,
     .want = {{45, 300, LT_CONDITION_UNKNOWN, LT_CAUSE_NETWORK_PARTITION, LT_HEALTH_DELETED,
	       AUD | KUB, "", 0}}},
    {.name = "still NotReady when the logs end",
     .facts = {F(0, RENEW, AUDIT), F(45, CTRL_UNKNOWN, CTRL_LOG), F(46, TAINT_PATCH, AUDIT),
	       F(100, CONN_ERROR, KUBELET_LOG)},
     .nwant = 1,
     .want = {{45, 0, LT_CONDITION_UNKNOWN, LT_CAUSE_NETWORK_PARTITION, LT_HEALTH_OPEN,
	       AUD | CTL | KUB, "", 0}}},
    {.name = "a kubelet start out of silence, no stop line: the node rebooted",
     .facts = {F(0, RENEW, AUDIT), F(50, CTRL_UNKNOWN, CTRL_LOG), F(80, KUBELET_START, KUBELET_LOG),
	       F(81, REREGISTER, AUDIT), F(82, RENEW, AUDIT), F(83, KUBELET_STATUS, AUDIT),
	       F(86, HEALTHY, CTRL_LOG)},
     .nwant = 1,
     .want = {{50, 86, LT_CONDITION_UNKNOWN, LT_CAUSE_NODE_REBOOTED, LT_HEALTH_RECOVERED,
	       AUD | CTL | KUB, "", 0}}},
    {.name = "audit only: a 409 re-registration says the kubelet restarted",
     .facts = {F(0, RENEW, AUDIT), F(45, CTRL_UNKNOWN, AUDIT), F(46, TAINT_PATCH, AUDIT),
	       F(120, REREGISTER, AUDIT), F(121, RENEW, AUDIT), F(122, KUBELET_STATUS, AUDIT),
	       F(122.01, TAINT_PATCH, AUDIT), F(125, TAINT_PATCH, AUDIT)},
     .nwant = 1,
     .want = {{45, 125, LT_CONDITION_UNKNOWN, LT_CAUSE_KUBELET_STOPPED, LT_HEALTH_RECOVERED, AUD,
	       "", 0}}},
    {.name = "audit only, RequestResponse: a new boot ID is a reboot",
     .facts = {F(0, RENEW, AUDIT), F(45, CTRL_UNKNOWN, AUDIT), F(120, REREGISTER, AUDIT),
	       F(121, RENEW, AUDIT), F(122, KUBELET_STATUS, AUDIT), F(122, BOOT, AUDIT),
	       F(122, KUBELET_READY, AUDIT)},
     .nwant = 1,
     .want = {{45, 122, LT_CONDITION_UNKNOWN, LT_CAUSE_NODE_REBOOTED, LT_HEALTH_RECOVERED, AUD, "",
	       0}}},
    {.name = "Metadata level, audit only: a status write the controller answers is Ready=False",
     .facts = {F(0, RENEW, AUDIT), F(10, RENEW, AUDIT), F(12, KUBELET_STATUS, AUDIT),
	       F(12.01, TAINT_PATCH, AUDIT), F(15, TAINT_PATCH, AUDIT), F(20, RENEW, AUDIT),
	       F(30, RENEW, AUDIT), F(33, KUBELET_STATUS, AUDIT), F(33.02, TAINT_PATCH, AUDIT),
	       F(35, TAINT_PATCH, AUDIT), F(40, RENEW, AUDIT), F(80, RENEW, AUDIT)},
     .nwant = 1,
     .want = {{12, 35, LT_CONDITION_FALSE, LT_CAUSE_KUBELET_REPORTED, LT_HEALTH_RECOVERED, AUD, "",
	       0}}},
    {.name = "Metadata, audit only: answers fed 4 ms before their causes (clocks estimated apart)",
     .facts = {F(0, RENEW, AUDIT), F(10, RENEW, AUDIT), F(11.996, TAINT_PATCH, AUDIT),
	       F(12, KUBELET_STATUS, AUDIT), F(15, TAINT_PATCH, AUDIT), F(20, RENEW, AUDIT),
	       F(30, RENEW, AUDIT), F(32.996, TAINT_PATCH, AUDIT), F(33, KUBELET_STATUS, AUDIT),
	       F(35, TAINT_PATCH, AUDIT), F(40, RENEW, AUDIT), F(80, RENEW, AUDIT)},
     .nwant = 1,
     .want = {{12, 35, LT_CONDITION_FALSE, LT_CAUSE_KUBELET_REPORTED, LT_HEALTH_RECOVERED, AUD, "",
	       0}}},
    {.name = "a PATCH more than the clocks' error (50 ms) before a status write does not answer it",
     .facts = {F(0, RENEW, AUDIT), F(10, RENEW, AUDIT), F(11.94, TAINT_PATCH, AUDIT),
	       F(12, KUBELET_STATUS, AUDIT), F(20, RENEW, AUDIT), F(30, RENEW, AUDIT)},
     .nwant = 0},
    {.name = "a routine status write with no answer opens nothing",
     .facts = {F(0, RENEW, AUDIT), F(5, KUBELET_STATUS, AUDIT), F(10, RENEW, AUDIT),
	       F(20, TAINT_PATCH, AUDIT), F(30, RENEW, AUDIT)},
     .nwant = 0},
    {.name = "a lease gap of exactly the grace period: no controller write, no window",
     .facts = {F(0, RENEW, AUDIT), F(40, RENEW, AUDIT), F(50, RENEW, AUDIT)},
     .nwant = 0},
    {.name = "scale-down: the autoscaler's taint, then a delete by hand is still termination",
     .facts = {F(0, RENEW, AUDIT), F(5, SCALE_DOWN, AUDIT), F(50, CTRL_UNKNOWN, AUDIT),
	       F(120, NODE_DELETE, AUDIT)},
     .nwant = 1,
     .want = {{50, 120, LT_CONDITION_UNKNOWN, LT_CAUSE_INSTANCE_TERMINATED, LT_HEALTH_DELETED, AUD,
	       "", 0}}},
    {.name = "recovered, then the cloud deletes the Node minutes later",
     .facts = {F(0, RENEW, AUDIT), F(45, CTRL_UNKNOWN, AUDIT), F(60, RENEW, AUDIT),
	       F(61, KUBELET_STATUS, AUDIT), FCLOUD(300)},
     .nwant = 1,
     .want = {{45, 61, LT_CONDITION_UNKNOWN, LT_CAUSE_INSTANCE_TERMINATED, LT_HEALTH_RECOVERED, AUD,
	       "", 0}}},
};

static size_t facts_len(const struct health_case *c)
{
	size_t n = 0;

	while (n < MAX_FACTS && (n == 0 || c->facts[n].ts != 0))
		n++;
	return n;
}

/* Feeds n facts to a new builder into *r; the builder's end code. */
static int health_run(struct queries_health_result *r, const struct queries_health_fact *facts,
		      size_t n)
{
	struct queries_health *b = queries_health_new(r);

	for (size_t i = 0; i < n; i++)
		queries_health_feed(b, &facts[i]);
	return queries_health_end(b);
}

static void check_case(const struct health_case *c)
{
	struct queries_health_result r;
	size_t n = facts_len(c);

	assert_int_equal(health_run(&r, c->facts, n), 0);
	if (r.n != c->nwant)
		fail_msg("%s: %zu windows, want %zu", c->name, r.n, c->nwant);
	for (size_t i = 0; i < r.n; i++) {
		const struct lt_health_window *w = &r.windows[i];
		const struct want *x = &c->want[i];

		print_message("%s: window %zu\n", c->name, i);
		assert_int_equal(w->start_us, S(x->start));
		assert_int_equal(w->end_us, S(x->end));
		assert_int_equal(w->condition, x->cond);
		assert_string_equal(lt_notready_cause_name(w->cause),
				    lt_notready_cause_name(x->cause));
		assert_int_equal(w->end, x->how);
		assert_int_equal(w->evidence, x->evidence);
		if (x->taints[0] != '\0')
			assert_string_equal(w->taints.ptr, x->taints);
		assert_int_equal(w->evicted_pods, x->evicted);
	}
	queries_health_result_release(&r);
}

static void test_health_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		check_case(&cases[i]);
}

static void test_health_out_of_order(void **state)
{
	const struct queries_health_fact facts[] = {F(10, RENEW, AUDIT), F(5, CTRL_UNKNOWN, AUDIT),
						    F(20, CTRL_UNKNOWN, AUDIT)};
	struct queries_health_result r;

	(void)state;
	assert_int_equal(health_run(&r, facts, sizeof facts / sizeof *facts), LT_ERR_USAGE);
	assert_int_equal(r.n, 0); /* nothing after the first error */
	queries_health_result_release(&r);
}

/* Facts before 1970 are negative times, in order all the same. */
static void test_health_before_1970(void **state)
{
	const struct queries_health_fact facts[] = {F(-30, RENEW, AUDIT),
						    F(-20, CTRL_UNKNOWN, AUDIT)};
	struct queries_health_result r;

	(void)state;
	assert_int_equal(health_run(&r, facts, sizeof facts / sizeof *facts), 0);
	assert_int_equal(r.n, 1);
	queries_health_result_release(&r);
}

static void test_health_kubelet_reason_kept(void **state)
{
	const struct queries_health_fact facts[] = {
	    FT(1, KUBELET_NOT_READY, KUBELET_LOG,
	       "[container runtime is down, PLEG is not healthy]"),
	    FT(2, KUBELET_NOT_READY, KUBELET_LOG, "a later message")};
	struct queries_health_result r;

	(void)state;
	assert_int_equal(health_run(&r, facts, sizeof facts / sizeof *facts), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.windows[0].reason.ptr,
			    "[container runtime is down, PLEG is not healthy]");
	/* the runtime is down, so the PLEG stalls: the runtime is the root cause */
	assert_int_equal(r.windows[0].cause, LT_CAUSE_RUNTIME_DOWN);
	assert_int_equal(r.windows[0].end, LT_HEALTH_OPEN);
	queries_health_result_release(&r);
}

/* The rebuild reads only nodes with a fact of an opening kind (queries_health_fact_opens):
 * facts of every other kind, in any order and number, never open a window; each opening kind
 * does, alone (a taint PATCH when it answers a status write). */
static void test_health_opening_kinds(void **state)
{
	static const enum queries_health_source src[] = {
	    QUERIES_HEALTH_AUDIT, QUERIES_HEALTH_CTRL_LOG, QUERIES_HEALTH_KUBELET_LOG};
	uint32_t seed = 12345;

	(void)state;
	for (int run = 0; run < 500; run++) {
		struct queries_health_result r;
		struct queries_health *b = queries_health_new(&r);
		int64_t ts = 0;

		for (int i = 0; i < 30; i++) {
			struct queries_health_fact f = {.text = "node.kubernetes.io/x:NoExecute"};

			seed = seed * 1103515245u + 12345u;
			f.kind = (enum queries_health_fact_kind)((seed >> 8) % QUERIES_HF_COUNT);
			if (queries_health_fact_opens(f.kind))
				continue;
			ts += (int64_t)((seed >> 4) % 90) * 1000000;
			f.ts = ts;
			f.source = src[(seed >> 20) % 3];
			f.flags = (seed >> 24) & 1 ? QUERIES_HEALTH_BY_CLOUD : 0;
			f.text_len = (seed >> 25) & 1 ? strlen(f.text) : 0;
			queries_health_feed(b, &f);
		}
		assert_int_equal(queries_health_end(b), 0);
		assert_int_equal(r.n, 0);
		queries_health_result_release(&r);
	}
	for (int k = 0; k < QUERIES_HF_COUNT; k++) {
		const struct queries_health_fact facts[] = {
		    F(1, KUBELET_STATUS, AUDIT),
		    {.ts = S(2),
		     .kind = (enum queries_health_fact_kind)k,
		     .source = QUERIES_HEALTH_AUDIT}};
		struct queries_health_result r;

		assert_int_equal(health_run(&r, facts, 2), 0);
		assert_int_equal(r.n > 0,
				 queries_health_fact_opens((enum queries_health_fact_kind)k));
		queries_health_result_release(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_health_cases),
	    cmocka_unit_test(test_health_out_of_order),
	    cmocka_unit_test(test_health_before_1970),
	    cmocka_unit_test(test_health_kubelet_reason_kept),
	    cmocka_unit_test(test_health_opening_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
