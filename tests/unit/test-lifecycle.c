/*
 * test-lifecycle.c - the lease builder's rules, fed arrays of events (no store).
 *
 * Each case is one lease's requests in time order, in milliseconds after
 * time zero, with what the builder must make of them: its episodes one a
 * line in a compact form (times in seconds), then its summary.  The rules
 * are docs/leases.md's; queries-lifecycle.c's head lists them.  A few
 * scenarios still go end to end through a store in test-queries.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "queries-int.h"

#define MS(x)	   ((int64_t)(x)*1000LL)
#define MAX_EVENTS 40

/* The strings of the cases, by strs id (index). */
enum {
	NONE,
	KUBELET,   /* system:node:n1 */
	ADMIN,	   /* kubernetes-admin */
	GC,	   /* the garbage collector */
	NODE_IP,   /* 10.0.1.10 */
	ADMIN_IP,  /* 192.168.1.5 */
	KCM_A,	   /* a holder */
	KCM_B,	   /* another */
	IP_A,	   /* 172.16.0.5 */
	IP_B,	   /* 172.16.0.6 */
	FORBIDDEN, /* an authorization reason */
	EMPTY,	   /* "" */
	NSTRS
};

static const char *const strs[NSTRS] = {
    [KUBELET] = "system:node:n1",
    [ADMIN] = "kubernetes-admin",
    [GC] = "system:serviceaccount:kube-system:generic-garbage-collector",
    [NODE_IP] = "10.0.1.10",
    [ADMIN_IP] = "192.168.1.5",
    [KCM_A] = "kcm-a",
    [KCM_B] = "kcm-b",
    [IP_A] = "172.16.0.5",
    [IP_B] = "172.16.0.6",
    [FORBIDDEN] = "forbidden: User cannot update leases",
    [EMPTY] = "",
};

static char *name_of(int64_t id, void *ctx)
{
	(void)ctx;
	return id > 0 && id < NSTRS && strs[id] ? strdup(strs[id]) : NULL;
}

/* Shorthands for one event: verb and code, at t ms, by a user from an IP. */
#define EV(t, v, c, u, i)                                                                          \
	{                                                                                          \
		.ts = MS(t), .verb = QUERIES_VERB_##v, .code = c, .user = u, .ip = i,              \
		.latency = MS(20)                                                                  \
	}
/* the kubelet renews (or creates, ...) its node lease */
#define KUB(t, v, c) EV(t, v, c, KUBELET, NODE_IP)
/* a leader lease's update with a body naming holder h (0: Metadata level, no body) */
#define LEAD(t, h, i)                                                                              \
	{                                                                                          \
		.ts = MS(t), .verb = QUERIES_VERB_UPDATE, .code = 200, .user = h, .ip = i,         \
		.holder = h, .latency = MS(5)                                                      \
	}
/* the same with the body's leaseTransitions n (-1: absent) and acquireTime at acq ms (0: absent) */
#define LEADT(t, h, i, n, acq)                                                                     \
	{                                                                                          \
		.ts = MS(t), .verb = QUERIES_VERB_UPDATE, .code = 200, .user = h, .ip = i,         \
		.holder = h, .latency = MS(5), .transitions = n, .acquire_us = MS(acq)             \
	}
#define RELEASE(t, i)                                                                              \
	{                                                                                          \
		.ts = MS(t), .verb = QUERIES_VERB_UPDATE, .code = 200, .user = KCM_A, .ip = i,     \
		.holder = EMPTY, .released = 1                                                     \
	}
/* client-go's release() keeps leaseTransitions n */
#define RELEASET(t, i, n)                                                                          \
	{                                                                                          \
		.ts = MS(t), .verb = QUERIES_VERB_UPDATE, .code = 200, .user = KCM_A, .ip = i,     \
		.holder = EMPTY, .released = 1, .transitions = n                                   \
	}
#define SLOW(t, ms)                                                                                \
	{                                                                                          \
		.ts = MS(t), .verb = QUERIES_VERB_UPDATE, .code = 200, .user = KUBELET,            \
		.ip = NODE_IP, .latency = MS(ms)                                                   \
	}

/* The node delete the feed found behind a node lease delete: event 900 at 33 s, by admin. */
static const struct queries_lease_cause node_delete = {
    .event = 900, .ts = MS(33000), .by = "kubernetes-admin"};
static const struct queries_lease_cause node_delete_late = {
    .event = 901, .ts = MS(33050), .by = "kubernetes-admin"};
/* the same node delete, the lease delete's apiserver clock estimated 250 ms behind its */
static const struct queries_lease_cause node_delete_skewed = {
    .event = 902, .ts = MS(33050), .by = "kubernetes-admin", .skew_known = 1, .skew_us = MS(250)};

struct lease_case {
	const char *name;
	struct queries_lease_params p; /* name and ctx are set by the runner */
	struct queries_lease_event ev[MAX_EVENTS];
	const char *want; /* episodes, one a line, then "= summary" */
};

static const struct lease_case cases[] = {
    {.name = "steady renews: one RENEWING, its median and max interval",
     .p = {.kind = QUERIES_LEASE_NODE, .kubelet = KUBELET},
     .ev = {KUB(0, UPDATE, 200), KUB(10000, UPDATE, 200), KUB(20000, UPDATE, 200),
	    KUB(30500, UPDATE, 200)},
     .want = "RENEWING 0.000..30.500 n=4 med=10.000 max=10.500 by=system:node:n1\n"
	     "= renewing renews=4 gaps=0 max_gap=10.500 gap=40.000\n"},
    {.name = "a wait of exactly the gap threshold is no gap; 1 ms more is",
     .p = {.kind = QUERIES_LEASE_NODE},
     .ev = {KUB(0, UPDATE, 200), KUB(40000, UPDATE, 200), KUB(80001, UPDATE, 200)},
     .want = "RENEWING 0.000..40.000 n=2 med=40.000 max=40.000 by=system:node:n1\n"
	     "GAP 40.000..80.001 n=0 max=40.001 by=system:node:n1\n"
	     "RENEWING 80.001..80.001 n=1 by=system:node:n1\n"
	     "= renewing renews=3 gaps=1 max_gap=40.001 gap=40.000\n"},
    {.name = "--gap: the threshold given, not the default",
     .p = {.kind = QUERIES_LEASE_NODE, .gap_us = MS(5000)},
     .ev = {KUB(0, UPDATE, 200), KUB(10000, UPDATE, 200)},
     .want = "RENEWING 0.000..0.000 n=1 by=system:node:n1\n"
	     "GAP 0.000..10.000 n=0 max=10.000 by=system:node:n1\n"
	     "RENEWING 10.000..10.000 n=1 by=system:node:n1\n"
	     "= renewing renews=2 gaps=1 max_gap=10.000 gap=5.000\n"},
    {.name = "a leader lease's default threshold is 15 s",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {LEAD(0, 0, IP_A), LEAD(15001, 0, IP_A)},
     .want = "RENEWING 0.000..0.000 n=1 by=NULL\n"
	     "GAP 0.000..15.001 n=0 max=15.001 by=NULL\n"
	     "HOLDER_CHANGE 15.001..15.001 n=1 by=NULL holder=?->172.16.0.5 inferred=3 note=no "
	     "renew for 15.0s, longer than the lease: acquired again\n"
	     "RENEWING 15.001..15.001 n=1 by=NULL\n"
	     "= renewing renews=2 gaps=1 max_gap=15.001 gap=15.000\n"},
    {.name = "a body's leaseDurationSeconds is the threshold, except on identity leases",
     .p = {.kind = QUERIES_LEASE_LEADER, .duration_s = 60},
     .ev = {LEAD(0, KCM_A, IP_A), LEAD(59000, KCM_A, IP_A)},
     .want = "RENEWING 0.000..59.000 n=2 med=59.000 max=59.000 by=kcm-a\n"
	     "= renewing renews=2 gaps=0 max_gap=59.000 gap=60.000 duration=60 holder=kcm-a\n"},
    {.name = "an identity lease lasts an hour but pauses 40 s at most",
     .p = {.kind = QUERIES_LEASE_IDENTITY, .duration_s = 3600},
     .ev = {LEAD(0, KCM_A, IP_A), LEAD(41000, KCM_A, IP_A)},
     .want = "RENEWING 0.000..0.000 n=1 by=kcm-a\n"
	     "GAP 0.000..41.000 n=0 max=41.000 by=kcm-a\n"
	     "RENEWING 41.000..41.000 n=1 by=kcm-a\n"
	     "= renewing renews=2 gaps=1 max_gap=41.000 gap=40.000 duration=3600 holder=kcm-a\n"},
    {.name = "the kubelet's first sync: a 404, then the create; renews count from it",
     .p = {.kind = QUERIES_LEASE_NODE, .kubelet = KUBELET},
     .ev = {KUB(0, OTHER, 404), KUB(100, CREATE, 201), KUB(10100, UPDATE, 200)},
     .want = "NOT_FOUND 0.000..0.000 n=1 by=system:node:n1\n"
	     "CREATED 0.100..0.100 n=1 by=system:node:n1\n"
	     "RENEWING 0.100..10.100 n=1 med=10.000 max=10.000 by=system:node:n1\n"
	     "= renewing renews=1 creates=1 not_found=1 gaps=0 max_gap=10.000 gap=40.000\n"},
    {.name = "deleted, 404s, re-created: how long it was gone, and the delete as cause",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {{.id = 1, .ts = 0, .verb = QUERIES_VERB_UPDATE, .code = 200, .user = KCM_A},
	    {.id = 2, .ts = MS(5000), .verb = QUERIES_VERB_DELETE, .code = 200, .user = ADMIN},
	    {.id = 3, .ts = MS(6000), .verb = QUERIES_VERB_UPDATE, .code = 404, .user = KCM_A},
	    {.id = 4, .ts = MS(7000), .verb = QUERIES_VERB_OTHER, .code = 404, .user = KCM_A},
	    {.id = 5, .ts = MS(8000), .verb = QUERIES_VERB_CREATE, .code = 201, .user = KCM_A}},
     .want = "RENEWING 0.000..0.000 n=1 by=kcm-a\n"
	     "DELETED 5.000..5.000 n=1 by=kubernetes-admin\n"
	     "NOT_FOUND 6.000..7.000 n=2 by=kcm-a\n"
	     "RE-CREATED 8.000..8.000 n=1 max=3.000 by=kcm-a cause=2\n"
	     /* the create is the lease's first heartbeat: renews count from it */
	     "RENEWING 8.000..8.000 n=0 by=kcm-a\n"
	     "= re-created renews=1 creates=1 deletes=1 not_found=2 gaps=0 max_gap=0.000 "
	     "gap=15.000\n"},
    {.name = "a node lease's delete names the node delete the feed found, 30 ms before it",
     .p = {.kind = QUERIES_LEASE_NODE, .kubelet = KUBELET},
     .ev = {KUB(0, UPDATE, 200),
	    {.id = 7,
	     .ts = MS(33030),
	     .verb = QUERIES_VERB_DELETE,
	     .code = 200,
	     .user = GC,
	     .cause = &node_delete},
	    KUB(40000, UPDATE, 404),
	    KUB(50000, UPDATE, 404)},
     .want = "RENEWING 0.000..0.000 n=1 by=system:node:n1\n"
	     "DELETED 33.030..33.030 n=1 by="
	     "system:serviceaccount:kube-system:generic-garbage-"
	     "collector cause=900 note=30ms after its node was deleted by kubernetes-admin\n"
	     "NOT_FOUND 40.000..50.000 n=2 by=system:node:n1\n"
	     "= orphaned renews=1 deletes=1 not_found=2 gaps=0 max_gap=0.000 gap=40.000\n"},
    {.name = "a node delete logged just after the lease delete is still its cause",
     .p = {.kind = QUERIES_LEASE_NODE},
     .ev = {{.ts = MS(33030),
	     .verb = QUERIES_VERB_DELETE,
	     .code = 200,
	     .user = GC,
	     .cause = &node_delete_late}},
     .want = "DELETED 33.030..33.030 n=1 by=system:serviceaccount:kube-system:generic-garbage-"
	     "collector cause=901 note=as its node was being deleted by kubernetes-admin "
	     "(logged 20ms before that delete)\n"
	     "= deleted deletes=1 gaps=0 max_gap=0.000 gap=40.000\n"},
    {.name = "a GC delete logged 20 ms before its node delete by a clock 250 ms behind: after it",
     .p = {.kind = QUERIES_LEASE_NODE},
     .ev = {{.ts = MS(33030),
	     .verb = QUERIES_VERB_DELETE,
	     .code = 200,
	     .user = GC,
	     .cause = &node_delete_skewed}},
     .want = "DELETED 33.280..33.280 n=1 by=system:serviceaccount:kube-system:generic-garbage-"
	     "collector cause=902 note=230ms after its node was deleted by kubernetes-admin; "
	     "told on that delete's clock (the lease delete's apiserver runs 250ms behind)\n"
	     "= deleted deletes=1 gaps=0 max_gap=0.000 gap=40.000\n"},
    {.name = "a delete of a leader lease looks for no node",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {{.ts = 0,
	     .verb = QUERIES_VERB_DELETE,
	     .code = 200,
	     .user = ADMIN,
	     .cause = &node_delete}},
     .want = "DELETED 0.000..0.000 n=1 by=kubernetes-admin\n"
	     "= deleted deletes=1 gaps=0 max_gap=0.000 gap=15.000\n"},
    {.name = "someone else's 404s after renews: not orphaned, the kubelet never asked",
     .p = {.kind = QUERIES_LEASE_NODE, .kubelet = KUBELET},
     .ev = {KUB(0, UPDATE, 200), EV(5000, OTHER, 404, ADMIN, ADMIN_IP),
	    EV(6000, OTHER, 404, ADMIN, ADMIN_IP)},
     .want = "RENEWING 0.000..0.000 n=1 by=system:node:n1\n"
	     "NOT_FOUND 5.000..6.000 n=2 by=kubernetes-admin\n"
	     "= deleted renews=1 not_found=2 gaps=0 max_gap=0.000 gap=40.000\n"},
    {.name = "404s before the lease ever lived, by someone else: not found",
     .p = {.kind = QUERIES_LEASE_NODE, .kubelet = KUBELET},
     .ev = {EV(0, OTHER, 404, ADMIN, ADMIN_IP)},
     .want = "NOT_FOUND 0.000..0.000 n=1 by=kubernetes-admin\n"
	     "= not-found not_found=1 gaps=0 max_gap=0.000 gap=40.000\n"},
    {.name = "403 then 401: one AUTH_FAILURE run per code (authorization, authentication); a renew "
	     "ends it",
     .p = {.kind = QUERIES_LEASE_NODE},
     .ev = {KUB(0, UPDATE, 200),
	    {.ts = MS(10000),
	     .verb = QUERIES_VERB_UPDATE,
	     .code = 403,
	     .user = KUBELET,
	     .ip = NODE_IP,
	     .note = FORBIDDEN},
	    {.ts = MS(20000),
	     .verb = QUERIES_VERB_UPDATE,
	     .code = 401,
	     .user = KUBELET,
	     .ip = NODE_IP},
	    KUB(30000, UPDATE, 200)},
     /* the builder ends the AUTH_FAILURE run first: episodes come in the order they end */
     .want = "AUTH_FAILURE 10.000..10.000 n=1 by=system:node:n1 note=forbidden: User cannot "
	     "update leases\n"
	     "AUTH_FAILURE 20.000..20.000 n=1 by=system:node:n1\n"
	     "RENEWING 0.000..30.000 n=2 med=30.000 max=30.000 by=system:node:n1\n"
	     "= renewing renews=2 auth_failures=2 gaps=0 max_gap=30.000 gap=40.000\n"},
    {.name = "updates seen only as they arrived (RequestReceived, no code): no renew seen",
     .p = {.kind = QUERIES_LEASE_NODE, .kubelet = KUBELET},
     .ev = {KUB(0, UPDATE, 0), KUB(10000, UPDATE, 0)},
     .want = "= no-renews gaps=0 max_gap=0.000 gap=40.000\n"},
    {.name = "reads and a conflict only: no renew seen either",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {EV(0, OTHER, 200, KCM_A, IP_A), EV(2000, UPDATE, 409, KCM_A, IP_A)},
     .want = "= no-renews conflicts=1 gaps=0 max_gap=0.000 gap=15.000\n"},
    {.name = "a create alone is its first heartbeat: renewing",
     .p = {.kind = QUERIES_LEASE_NODE, .kubelet = KUBELET},
     .ev = {KUB(0, CREATE, 201)},
     .want = "CREATED 0.000..0.000 n=1 by=system:node:n1\n"
	     "RENEWING 0.000..0.000 n=0 by=system:node:n1\n"
	     "= renewing creates=1 gaps=0 max_gap=0.000 gap=40.000\n"},
    {.name = "renews slower than the threshold: one SLOW run, its slowest",
     .p = {.kind = QUERIES_LEASE_NODE},
     .ev = {SLOW(0, 100), SLOW(10000, 1500), SLOW(20000, 2500), SLOW(30000, 100)},
     .want = "SLOW 10.000..20.000 n=2 max=2.500 by=system:node:n1\n"
	     "RENEWING 0.000..30.000 n=4 med=10.000 max=10.000 by=system:node:n1\n"
	     "= renewing renews=4 slow=2 gaps=0 max_gap=10.000 gap=40.000\n"},
    {.name = "--slow: a latency at the threshold is not slow",
     .p = {.kind = QUERIES_LEASE_NODE, .slow_us = MS(200)},
     .ev = {SLOW(0, 200), SLOW(10000, 201)},
     .want = "RENEWING 0.000..10.000 n=2 med=10.000 max=10.000 by=system:node:n1\n"
	     "SLOW 10.000..10.000 n=1 max=0.201 by=system:node:n1\n"
	     "= renewing renews=2 slow=1 gaps=0 max_gap=10.000 gap=40.000\n"},
    {.name = "409 conflicts are counted and do not break RENEWING",
     .p = {.kind = QUERIES_LEASE_NODE},
     .ev = {KUB(0, UPDATE, 200), KUB(5000, UPDATE, 409), KUB(10000, UPDATE, 200)},
     .want = "RENEWING 0.000..10.000 n=2 med=10.000 max=10.000 by=system:node:n1\n"
	     "= renewing renews=2 conflicts=1 gaps=0 max_gap=10.000 gap=40.000\n"},
    {.name = "a leader's new holderIdentity: HOLDER_CHANGE, each RENEWING one holder's",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {LEAD(0, KCM_A, IP_A), LEAD(2000, KCM_A, IP_A), LEAD(4000, KCM_B, IP_B),
	    LEAD(6000, KCM_B, IP_B)},
     .want = "RENEWING 0.000..2.000 n=2 med=2.000 max=2.000 by=kcm-a\n"
	     "HOLDER_CHANGE 4.000..4.000 n=1 by=kcm-b holder=kcm-a->kcm-b\n"
	     "RENEWING 4.000..6.000 n=2 med=2.000 max=2.000 by=kcm-b\n"
	     "= renewing renews=4 gaps=0 max_gap=2.000 gap=15.000 holder=kcm-b\n"},
    {.name = "no body (Metadata level): a new renewer's IP is an inferred holder change",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {LEAD(0, 0, IP_A), LEAD(2000, 0, IP_A), LEAD(4000, 0, IP_B)},
     .want = "RENEWING 0.000..2.000 n=2 med=2.000 max=2.000 by=NULL\n"
	     "HOLDER_CHANGE 4.000..4.000 n=1 by=NULL holder=172.16.0.5->172.16.0.6 inferred\n"
	     "RENEWING 4.000..4.000 n=1 by=NULL\n"
	     "= renewing renews=3 gaps=0 max_gap=2.000 gap=15.000\n"},
    {.name = "a new renewer after a wait: the GAP, then the inferred change; a read is nothing",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {LEAD(0, 0, IP_A), EV(300, OTHER, 200, NONE, IP_B), LEAD(2000, 0, IP_A),
	    LEAD(20000, 0, IP_B)},
     .want = "RENEWING 0.000..2.000 n=2 med=2.000 max=2.000 by=NULL\n"
	     "GAP 2.000..20.000 n=0 max=18.000 by=NULL\n"
	     "HOLDER_CHANGE 20.000..20.000 n=1 by=NULL holder=172.16.0.5->172.16.0.6 inferred\n"
	     "RENEWING 20.000..20.000 n=1 by=NULL\n"
	     "= renewing renews=3 gaps=1 max_gap=18.000 gap=15.000\n"},
    /* issue 15 item 12: controller-managers behind 127.0.0.1, one source IP and user agent */
    {.name = "no body, one renewer: renewed again after the lease expired is a new term",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {LEAD(0, 0, IP_A), LEAD(2000, 0, IP_A), EV(10000, UPDATE, 409, NONE, IP_A),
	    LEAD(20000, 0, IP_A), LEAD(22000, 0, IP_A)},
     .want = "RENEWING 0.000..2.000 n=2 med=2.000 max=2.000 by=NULL\n"
	     "GAP 2.000..20.000 n=0 max=18.000 by=NULL\n"
	     "HOLDER_CHANGE 20.000..20.000 n=1 by=NULL holder=?->172.16.0.5 inferred=3 note=no "
	     "renew for 18.0s, longer than the lease: acquired again after 409 conflicts (another "
	     "candidate)\n"
	     "RENEWING 20.000..22.000 n=2 med=2.000 max=2.000 by=NULL\n"
	     "= renewing renews=4 conflicts=1 gaps=1 max_gap=18.000 gap=15.000\n"},
    /* issue 15 item 5: a change inside a gap, told by the Lease body (RequestResponse) */
    {.name = "leaseTransitions: the same holder after a gap, two changes no request showed",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {LEADT(0, KCM_A, IP_A, 3, 100), LEADT(2000, KCM_A, IP_A, 3, 100),
	    LEADT(40000, KCM_A, IP_A, 5, 30000), LEADT(42000, KCM_A, IP_A, 5, 30000)},
     .want = "RENEWING 0.000..2.000 n=2 med=2.000 max=2.000 by=kcm-a\n"
	     "GAP 2.000..40.000 n=0 max=38.000 by=kcm-a\n"
	     "HOLDER_CHANGE 30.000..30.000 n=1 by=kcm-a holder=kcm-a->kcm-a inferred=2 "
	     "note=leaseTransitions 3 -> 5: 2 changes of holder inside a gap, no request seen; "
	     "acquireTime 1970-01-01T00:00:30.000000Z\n"
	     "RENEWING 40.000..42.000 n=2 med=2.000 max=2.000 by=kcm-a\n"
	     "= renewing renews=4 gaps=1 max_gap=38.000 gap=15.000 holder=kcm-a\n"},
    {.name = "leaseTransitions: a new holder, and one more change than the one seen",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {LEADT(0, KCM_A, IP_A, 1, 0), LEADT(4000, KCM_B, IP_B, 3, 0)},
     .want = "RENEWING 0.000..0.000 n=1 by=kcm-a\n"
	     "HOLDER_CHANGE 4.000..4.000 n=1 by=kcm-b holder=kcm-a->kcm-b note=leaseTransitions 1 "
	     "-> 3: 1 change of holder inside a gap, no request seen\n"
	     "RENEWING 4.000..4.000 n=1 by=kcm-b\n"
	     "= renewing renews=2 gaps=0 max_gap=4.000 gap=15.000 holder=kcm-b\n"},
    {.name = "acquireTime alone: acquired again by the same holder inside a gap",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {LEADT(0, KCM_A, IP_A, -1, 500), LEADT(2000, KCM_A, IP_A, -1, 500),
	    LEADT(20000, KCM_A, IP_A, -1, 18000)},
     .want = "RENEWING 0.000..2.000 n=2 med=2.000 max=2.000 by=kcm-a\n"
	     "GAP 2.000..20.000 n=0 max=18.000 by=kcm-a\n"
	     "HOLDER_CHANGE 18.000..18.000 n=1 by=kcm-a holder=kcm-a->kcm-a inferred=2 "
	     "note=acquireTime moved to 1970-01-01T00:00:18.000000Z: acquired again inside a gap\n"
	     "RENEWING 20.000..20.000 n=1 by=kcm-a\n"
	     "= renewing renews=3 gaps=1 max_gap=18.000 gap=15.000 holder=kcm-a\n"},
    {.name = "leaseTransitions after a release: one more, no change inside a gap",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {LEADT(0, KCM_A, IP_A, 2, 0), RELEASET(1000, IP_A, 2), LEADT(1500, KCM_A, IP_A, 3, 0)},
     .want = "RENEWING 0.000..0.000 n=1 by=kcm-a\n"
	     "RELEASED 1.000..1.000 n=1 by=kcm-a holder=kcm-a->NULL note=kcm-a gave the lease "
	     "up\n"
	     "RENEWING 1.500..1.500 n=1 by=kcm-a\n"
	     "= renewing renews=2 gaps=0 max_gap=0.500 gap=15.000 holder=kcm-a\n"},
    /* issue 15 item 12: a lease without owner outlives its Node; nothing re-creates the Node */
    {.name = "renewed after its Node was deleted for good: NODE_GONE once, state node-gone",
     .p = {.kind = QUERIES_LEASE_NODE, .node_gone_us = MS(25000)},
     .ev = {KUB(0, UPDATE, 200), KUB(10000, UPDATE, 200), KUB(20000, UPDATE, 200),
	    KUB(30000, UPDATE, 200), KUB(40000, UPDATE, 200)},
     .want = "NODE_GONE 25.000..30.000 n=1 by=system:node:n1 note=its Node was deleted at "
	     "1970-01-01T00:00:25.000000Z and not created again in these logs; the lease lives on "
	     "(no owner the "
	     "garbage collector follows)\n"
	     "RENEWING 0.000..40.000 n=5 med=10.000 max=10.000 by=system:node:n1\n"
	     "= node-gone renews=5 gaps=0 max_gap=10.000 gap=40.000\n"},
    {.name = "a node lease's renewer never changes holder",
     .p = {.kind = QUERIES_LEASE_NODE},
     .ev = {LEAD(0, KCM_A, IP_A), LEAD(2000, KCM_B, IP_B)},
     .want = "RENEWING 0.000..2.000 n=2 med=2.000 max=2.000 by=kcm-a\n"
	     "= renewing renews=2 gaps=0 max_gap=2.000 gap=40.000 holder=kcm-b\n"},
    {.name = "release (holderIdentity \"\"), then the next holder acquires at once",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {LEAD(0, KCM_A, IP_A), LEAD(2000, KCM_A, IP_A), RELEASE(3000, IP_A),
	    LEAD(3500, KCM_B, IP_B), LEAD(5500, KCM_B, IP_B)},
     .want = "RENEWING 0.000..2.000 n=2 med=2.000 max=2.000 by=kcm-a\n"
	     "RELEASED 3.000..3.000 n=1 by=kcm-a holder=kcm-a->NULL note=kcm-a gave the lease "
	     "up\n"
	     "HOLDER_CHANGE 3.500..3.500 n=1 by=kcm-b holder=kcm-a->kcm-b note=500ms after the "
	     "release\n"
	     "RENEWING 3.500..5.500 n=2 med=2.000 max=2.000 by=kcm-b\n"
	     "= renewing renews=4 gaps=0 max_gap=2.000 gap=15.000 holder=kcm-b\n"},
    {.name = "released and nobody acquires: no holder; a late acquire follows a GAP",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {LEAD(0, KCM_A, IP_A), RELEASE(1000, IP_A), LEAD(31000, KCM_A, IP_A)},
     .want = "RENEWING 0.000..0.000 n=1 by=kcm-a\n"
	     "RELEASED 1.000..1.000 n=1 by=kcm-a holder=kcm-a->NULL note=kcm-a gave the lease "
	     "up\n"
	     "GAP 1.000..31.000 n=0 max=30.000 by=kcm-a\n"
	     "RENEWING 31.000..31.000 n=1 by=kcm-a\n"
	     "= renewing renews=2 gaps=1 max_gap=30.000 gap=15.000 holder=kcm-a\n"},
    {.name = "released at the end: nobody holds it",
     .p = {.kind = QUERIES_LEASE_LEADER},
     .ev = {LEAD(0, KCM_A, IP_A), RELEASE(1000, IP_A)},
     .want = "RENEWING 0.000..0.000 n=1 by=kcm-a\n"
	     "RELEASED 1.000..1.000 n=1 by=kcm-a holder=kcm-a->NULL note=kcm-a gave the lease "
	     "up\n"
	     "= renewing renews=1 gaps=0 max_gap=0.000 gap=15.000\n"},
};

/* "12.345": microseconds as seconds, to the millisecond. */
static void put_s(struct lt_buf *b, int64_t us)
{
	lt_buf_printf(b, "%s%lld.%03lld", us < 0 ? "-" : "", llabs(us) / 1000000,
		      llabs(us) % 1000000 / 1000);
}

static void put_episode(struct lt_buf *b, const struct queries_episode *e)
{
	lt_buf_printf(b, "%s ", lt_episode_kind_name(e->kind));
	put_s(b, e->start_us);
	lt_buf_append(b, "..", 2);
	put_s(b, e->end_us);
	lt_buf_printf(b, " n=%lld", (long long)e->count);
	if (e->median_us >= 0)
		lt_buf_append(b, " med=", 5), put_s(b, e->median_us);
	if (e->max_us >= 0)
		lt_buf_append(b, " max=", 5), put_s(b, e->max_us);
	lt_buf_printf(b, " by=%s", e->user > 0 && e->user < NSTRS ? strs[e->user] : "NULL");
	if (e->cause != 0)
		lt_buf_printf(b, " cause=%lld", (long long)e->cause);
	if (e->old_holder != NULL || e->new_holder != NULL)
		lt_buf_printf(b, " holder=%s->%s", e->old_holder ? e->old_holder : "NULL",
			      e->new_holder ? e->new_holder : "NULL");
	if (e->inferred == QUERIES_HOLDER_RENEWER)
		lt_buf_append(b, " inferred", 9);
	else if (e->inferred)
		lt_buf_printf(b, " inferred=%d", e->inferred);
	if (e->note != NULL)
		lt_buf_printf(b, " note=%s", e->note);
	lt_buf_putc(b, '\n');
}

/* The summary's counters that are not 0, and the rest. */
static void put_summary(struct lt_buf *b, const struct queries_lease_summary *s)
{
	const struct {
		const char *name;
		int64_t v;
	} counts[] = {
	    {"renews", s->renews},
	    {"creates", s->creates},
	    {"deletes", s->deletes},
	    {"not_found", s->not_found},
	    {"auth_failures", s->auth_failures},
	    {"conflicts", s->conflicts},
	    {"slow", s->slow},
	};

	lt_buf_printf(b, "= %s", s->state);
	for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
		if (counts[i].v != 0)
			lt_buf_printf(b, " %s=%lld", counts[i].name, (long long)counts[i].v);
	lt_buf_printf(b, " gaps=%lld max_gap=", (long long)s->gaps);
	put_s(b, s->max_gap_us);
	lt_buf_append(b, " gap=", 5);
	put_s(b, s->gap_us);
	if (s->duration_s >= 0 && s->duration_s != 0)
		lt_buf_printf(b, " duration=%lld", (long long)s->duration_s);
	if (s->holder != NULL)
		lt_buf_printf(b, " holder=%s", s->holder);
	lt_buf_putc(b, '\n');
}

/* Runs one case; the builder's episodes in the order it ends them. */
static char *run_case(const struct lease_case *c, int *err)
{
	struct queries_lease_params p = c->p;
	struct queries_lease_result r;
	struct queries_lease *b;
	struct lt_buf out;

	p.name = name_of;
	if (p.duration_s == 0)
		p.duration_s = -1;
	b = queries_lease_new(&p, &r);
	for (size_t i = 0; i < MAX_EVENTS && c->ev[i].code != 0; i++) /* every request has one */
		queries_lease_feed(b, &c->ev[i]);
	*err = queries_lease_end(b);
	lt_buf_init(&out);
	lt_buf_append(&out, "", 0);
	for (size_t i = 0; i < r.n; i++)
		put_episode(&out, &r.eps[i]);
	put_summary(&out, &r.sum);
	queries_lease_result_release(&r);
	return out.ptr;
}

static void test_cases(void **state)
{
	int failed = 0;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int err;
		char *got = run_case(&cases[i], &err);

		if (err != 0 || strcmp(got, cases[i].want) != 0) {
			print_error("case \"%s\" (error %d):\n--- want\n%s--- got\n%s",
				    cases[i].name, err, cases[i].want, got);
			failed++;
		}
		free(got);
	}
	assert_int_equal(failed, 0);
}

/* Thousands of renews: the histogram's median stays exact to the millisecond, memory bounded. */
static void test_median_of_many(void **state)
{
	const struct queries_lease_params p = {.kind = QUERIES_LEASE_NODE, .duration_s = -1};
	struct queries_lease_result r;
	struct queries_lease *b = queries_lease_new(&p, &r);
	int64_t t = 0;

	(void)state;
	/* intervals 9.000 s .. 11.999 s, one of each, then 5000 more of 10.000 s */
	for (int i = 0; i < 3000; i++) {
		struct queries_lease_event e = KUB(0, UPDATE, 200);

		e.ts = t;
		queries_lease_feed(b, &e);
		t += MS(9000 + (i * 7919) % 3000);
	}
	for (int i = 0; i < 5000; i++) {
		struct queries_lease_event e = KUB(0, UPDATE, 200);

		e.ts = t;
		queries_lease_feed(b, &e);
		t += MS(10000);
	}
	assert_int_equal(queries_lease_end(b), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.eps[0].kind, LT_EP_RENEWING);
	assert_int_equal(r.eps[0].count, 8000);
	/* the sorted intervals' middle one (rank 3999 of 7999) is a 10.000 s one */
	assert_int_equal(r.eps[0].median_us, MS(10000));
	assert_int_equal(r.eps[0].max_us, MS(11999));
	queries_lease_result_release(&r);
}

/* An event out of time order is the builder's first error; what came before stands. */
static void test_out_of_order(void **state)
{
	const struct queries_lease_params p = {.kind = QUERIES_LEASE_NODE, .duration_s = -1};
	const struct queries_lease_event ev[] = {KUB(10000, UPDATE, 200), KUB(20000, UPDATE, 200),
						 KUB(15000, UPDATE, 200), KUB(30000, UPDATE, 200)};
	struct queries_lease_result r;
	struct queries_lease *b = queries_lease_new(&p, &r);

	(void)state;
	for (size_t i = 0; i < sizeof ev / sizeof *ev; i++)
		queries_lease_feed(b, &ev[i]);
	assert_int_equal(queries_lease_end(b), LT_ERR_USAGE);
	assert_int_equal(r.sum.renews, 2);
	assert_int_equal(r.sum.last_us, MS(20000));
	queries_lease_result_release(&r);
	assert_int_equal(queries_lease_end(NULL), 0);
}

/*
 * A time before 1970 is negative, and still a time in order (fuzz-index found a
 * stageTimestamp of year 1012 refused as "out of time order" by a builder whose
 * last time started at 0).
 */
static void test_before_1970(void **state)
{
	const struct queries_lease_params p = {.kind = QUERIES_LEASE_NODE, .duration_s = -1};
	const struct queries_lease_event ev[] = {KUB(-30000, UPDATE, 200), KUB(-20000, UPDATE, 200),
						 KUB(-10000, UPDATE, 200)};
	struct queries_lease_result r;
	struct queries_lease *b = queries_lease_new(&p, &r);

	(void)state;
	for (size_t i = 0; i < sizeof ev / sizeof *ev; i++)
		queries_lease_feed(b, &ev[i]);
	assert_int_equal(queries_lease_end(b), 0);
	assert_int_equal(r.sum.renews, 3);
	assert_true(r.sum.first_us == MS(-30000));
	assert_true(r.sum.last_us == MS(-10000));
	queries_lease_result_release(&r);
}

/* A lease's kind, by Kubernetes' naming. */
static void test_kind_of(void **state)
{
	(void)state;
	assert_int_equal(queries_lease_kind_of("kube-node-lease", "ip-10-0-1-10"),
			 QUERIES_LEASE_NODE);
	assert_int_equal(queries_lease_kind_of("kube-system", "apiserver-abc123"),
			 QUERIES_LEASE_IDENTITY);
	assert_int_equal(queries_lease_kind_of("kube-system", "kube-apiserver-xyz"),
			 QUERIES_LEASE_IDENTITY);
	assert_int_equal(queries_lease_kind_of("kube-system", "kube-scheduler"),
			 QUERIES_LEASE_LEADER);
	assert_int_equal(queries_lease_kind_of("", ""), QUERIES_LEASE_LEADER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),	 cmocka_unit_test(test_median_of_many),
	    cmocka_unit_test(test_out_of_order), cmocka_unit_test(test_before_1970),
	    cmocka_unit_test(test_kind_of),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
