/*
 * sample-gen-sim.h - what the files of lt-gen's audit simulation share
 * (sample-gen*.c but the log writer's): the cluster's state (struct
 * gen_ctx), its actors and Events, and the functions one file gives the
 * others.  The stories' table is in sample-gen-story.c: a new story (the
 * node-health ones of sample-gen-health.c, say) adds a GEN_STORY_* bit, its
 * GEN_S_* steps and their rows there, and declares its step functions here.
 */
#ifndef LT_SAMPLE_GEN_SIM_H
#define LT_SAMPLE_GEN_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sample-gen.h"

#define GEN_FLUSH_AT	(1u << 20)
#define GEN_MAX_NODES	200000L
#define GEN_MAX_MINUTES 10080L
#define GEN_MAX_SPLIT	16L
#define GEN_NOISE_SLOTS 4
#define GEN_NPODS	24
#define GEN_ACCOUNT	"111122223333"
#define GEN_COORD	"coordination.k8s.io"
#define GEN_KUBELET_UA	"kubelet/v1.29.0 (linux/amd64) kubernetes/3034fd4"
#define GEN_K8S_UA	"/v1.29.1 (linux/amd64) kubernetes/07600c7"
#define GEN_KUBECTL_UA	"kubectl/v1.29.2 (darwin/arm64) kubernetes/4b8e819"
#define GEN_NODE_GROUPS "\"system:bootstrappers\",\"system:nodes\",\"system:authenticated\""
#define GEN_SA_GROUPS                                                                              \
	"\"system:serviceaccounts\",\"system:serviceaccounts:kube-system\",\"system:"              \
	"authenticated\""
#define GEN_DEF_START "2024-04-05T05:50:00Z"

enum {
	GEN_STORY_NODE_DELETE = 1,
	GEN_STORY_LEASE_DELETE = 2,
	GEN_STORY_LEADER_CHANGE = 4,
	GEN_STORY_ALL = 7,
};

/* The actor kinds; gen_actor.idx indexes the table named in each comment. */
enum gen_kind {
	GEN_A_LEASE,  /* kubelet node lease controller: nodes[] */
	GEN_A_STATUS, /* kubelet node status loop: nodes[] */
	GEN_A_ELECT,  /* leader-election candidate: cands[] */
	GEN_A_IDENT,  /* apiserver identity lease: idents[] */
	GEN_A_NOISE,  /* one stream of unrelated traffic */
	GEN_A_WATCH,  /* an open watch; watches[] */
	GEN_A_STORY,  /* one scripted step; state is the step */
};

/* States of the kubelet lease controller. */
enum { GEN_KL_UPDATE, GEN_KL_GET, GEN_KL_CREATE };

/* States of a leader-election candidate (GEN_E_R*: a stalled leader waking up). */
enum {
	GEN_E_LEAD,    /* leader: optimistic update every 2 s */
	GEN_E_WAIT,    /* candidate: get every 2-4.4 s */
	GEN_E_TAKE,    /* candidate: takeover update */
	GEN_E_STALLED, /* leader that stopped renewing: nothing in flight */
	GEN_E_RGET,    /* woken leader, slow path: get */
	GEN_E_RUPD,    /* woken leader, slow path: update, loses the race: 409 */
	GEN_E_RFAST,   /* 2 s later, optimistic update with the stale version: 409 */
	GEN_E_RSLOW,   /* falls back to get, sees the new holder, exits */
};

/* Scripted story steps, one actor each. */
enum {
	GEN_S_LD_DELETE,
	GEN_S_ND_DELETE,
	GEN_S_ND_GC_CNI,
	GEN_S_ND_GC_LEASE,
	GEN_S_ND_GC_CSI,
	GEN_S_ND_RESTART,
	GEN_S_LC_STALL,
	GEN_S_COUNT, /* the hook: node-health steps (sample-gen-health.c) go before this */
};

/* A name of --stories (sample-gen-story.c). */
struct gen_story {
	const char *name;
	unsigned bit; /* GEN_STORY_*, 0 for none */
};

struct gen_ctx;
struct gen_actor;

/* A scripted step: a row of gen_steps (sample-gen-story.c), indexed by GEN_S_*. */
struct gen_step {
	unsigned story; /* the GEN_STORY_* bit that needs it */
	int at;		/* percent of the window it starts at; -1: an earlier step triggers it */
	void (*run)(struct gen_ctx *g, struct gen_actor *a); /* its request has ended */
};

/* Identities used by the noise table, the stories and the control plane. */
enum {
	GEN_W_KUBELET, /* pseudo: a random live node's kubelet */
	GEN_W_ADMIN,
	GEN_W_SCHED,
	GEN_W_RS,
	GEN_W_EP,
	GEN_W_CNI,
	GEN_W_APP,
	GEN_W_APISERVER,
	GEN_W_GC0,
	GEN_W_GC1,
	GEN_W_COUNT,
};

/* How the noise table builds a request. */
enum { GEN_Z_GET, GEN_Z_LIST, GEN_Z_CREATE, GEN_Z_PATCH, GEN_Z_WATCH };
enum { GEN_N_NONE, GEN_N_POD, GEN_N_EVENT, GEN_N_FIXED };

/* Shapes of responseStatus. */
enum { GEN_ST_PLAIN, GEN_ST_DELETED, GEN_ST_FAIL };

struct gen_opts {
	long nodes;
	long minutes;
	long split;
	uint64_t seed;
	int64_t start;
	double noise;
	unsigned stories;
	bool rr;
	const char *out;
	struct gen_log_opts logs;
};

/* A prebuilt `"user":{…},"sourceIPs":[…],"userAgent":"…",` fragment. */
struct gen_who {
	struct gen_buf frag;
	const char *authz;
};

struct gen_lease {
	const char *ns;
	const char *name;
	const char *owner_uid; /* node leases: ownerReference uid, else NULL */
	const char *labels;    /* JSON object text, or NULL */
	char uid[37];
	char holder[128];
	uint64_t rv;
	int64_t created;
	int64_t acquire; /* 0: no acquireTime */
	int64_t renew;
	int duration;
	int transitions; /* < 0: no leaseTransitions */
	bool exists;
};

struct gen_node {
	char name[48];
	char ip[16];
	char uid[37];
	struct gen_who who;
	struct gen_lease lease;
	bool exists;
	uint32_t lease_actor;
	uint32_t status_actor;
};

struct gen_cand {
	unsigned comp;
	unsigned host;
	char ident[128];
	struct gen_lease seen; /* the lease as this candidate last read or wrote it */
	bool started;	       /* its start-up was reported to the logs (or is before the window) */
	uint64_t obs_rv;
	int64_t obs_t;
	struct gen_who who;
};

struct gen_comp {
	const char *name;
	struct gen_lease lease;
	int64_t stalled; /* actor index of a stalled leader, or -1 */
	int64_t take_end;
};

struct gen_host {
	char name[48];
	char ip[16];
};

struct gen_watch {
	char id[37];
	char uri[320];
	const struct gen_who *who;
	const char *resource;
	const char *ns;
	unsigned server;
};

struct gen_actor {
	struct gen_rng rng;
	int64_t t0;
	int64_t t1;
	uint32_t gen;
	uint32_t idx;
	uint8_t kind;
	uint8_t state;
	uint8_t tries;
	uint8_t server;
};

struct gen_hent {
	int64_t t;
	uint64_t seq;
	uint32_t actor;
	uint32_t gen;
};

struct gen_out {
	FILE *f;
	struct gen_buf buf;
	bool failed;
};

struct gen_ref {
	const char *resource;
	const char *ns;
	const char *name;
	const char *uid;
	const char *group;
	const char *version; /* NULL: v1 */
	const char *sub;
	uint64_t rv; /* 0: absent */
};

struct gen_ev {
	const char *level;
	const char *stage;
	const char *verb;
	const char *uri;
	const struct gen_who *who;
	struct gen_ref ref;
	int code;
	int st;
	const char *reason;
	const char *msg;
	const char *del_uid;
	const struct gen_buf *reqobj;
	const struct gen_buf *respobj;
	int64_t t0;
	int64_t t1;
	unsigned server;
	char id[37];
};

struct gen_pod {
	const char *ns;
	char name[64];
};

struct gen_nz {
	unsigned weight;
	unsigned who;
	const char *verb;
	const char *resource;
	const char *sub;
	unsigned name;
	const char *fixed; /* object name, or the watch's fieldSelector */
	const char *ns;	   /* NULL: the pod's; "": cluster-wide */
	int code;
	unsigned kind;
};

struct gen_ctx {
	const struct gen_opts *o;
	int64_t t_start;
	int64_t t_end;
	uint64_t rv;
	unsigned napi;
	struct gen_out *outs;
	unsigned nouts;
	struct gen_node *nodes;
	size_t nnodes;
	struct gen_actor *actors;
	struct gen_watch *watches; /* parallel to actors */
	size_t nactors;
	size_t cap_actors;
	uint32_t *free_ids;
	size_t nfree;
	struct gen_hent *heap;
	size_t nheap;
	size_t cap_heap;
	uint64_t seq;
	uint64_t nwatch;
	struct gen_host *hosts; /* one per apiserver */
	struct gen_lease *idents;
	struct gen_cand cands[4];
	struct gen_comp comps[2];
	struct gen_who w[GEN_W_COUNT];
	struct gen_pod pods[GEN_NPODS];
	uint32_t story[GEN_S_COUNT];
	double noise_gap; /* mean µs between two requests of one noise stream */
	struct gen_buf reqb;
	struct gen_buf respb;
	struct gen_buf urib; /* noise URIs */
	char uri[512];
	char msg[384];
	struct gen_log *log; /* NULL: no kubelet/kcm logs asked for */
};

/* ---- sample-gen-rand.c ---- */
/* Returns a request latency in µs: a floor plus an exponential tail of the given mean. */
int64_t gen_lat(struct gen_rng *r, int64_t floor_us, double mean_us);

/* ---- sample-gen-buf.c ---- */
/* Appends s as a JSON string escaped like Go's encoding/json: quotes, backslash,
 * control characters, and also < > & (as \u003c \u003e \u0026). */
void gen_put_json(struct gen_buf *b, const char *s);
/* Appends the quoted UTC time of us (µs since the epoch, >= 0): with
 * micro = true as "YYYY-MM-DDTHH:MM:SS.uuuuuuZ", else "YYYY-MM-DDTHH:MM:SSZ".
 * Caches the date part of the last second: most events share it. */
void gen_put_ts(struct gen_buf *b, int64_t us, bool micro);
/* Parses an RFC 3339 time (1970..9999) into µs since the epoch; returns 0 or -1. */
int gen_parse_time(const char *s, int64_t *out);
/* Appends a Go time.Duration string of whole seconds ("7m46s", "5m0s"). */
void gen_put_dur(struct gen_buf *b, unsigned secs);

/* ---- sample-gen-emit.c ---- */
/* Writes out the buffered bytes of o; remembers a write error. */
void gen_flush(struct gen_out *o);
/* Appends the body shared by responseStatus and a Status object (obj), from
 * `"metadata":{}` to the closing brace; a successful Status object has no code. */
void gen_put_status_tail(struct gen_buf *b, const struct gen_ev *e, bool obj);
/* Renders e as one JSON line into the stream of its apiserver. */
void gen_emit(struct gen_ctx *g, const struct gen_ev *e);
/* Appends a Lease object; stored adds the server-set uid, resourceVersion and
 * creationTimestamp (absent from a create request). */
void gen_put_lease(struct gen_buf *b, const struct gen_lease *l, bool stored);

/* ---- sample-gen-actor.c ---- */
/* Removes and returns the earliest entry; the heap must not be empty. */
struct gen_hent gen_heap_pop(struct gen_ctx *g);
/* Creates an actor with its own random stream; returns its index. May move g->actors. */
uint32_t gen_actor_new(struct gen_ctx *g, uint8_t kind, uint32_t idx, uint64_t stream);
/* Schedules actor ai's next request over [t0, t1]; returns false (and
 * schedules nothing) when it would end after the window. */
bool gen_sched(struct gen_ctx *g, uint32_t ai, int64_t t0, int64_t t1);
/* Drops whatever actor ai had in flight (its heap entry becomes stale). */
void gen_cancel(struct gen_ctx *g, uint32_t ai);
/* Reports a story step to the log writer (a no-op without log options).
 * Draws nothing: the logs never perturb the audit streams. */
void gen_fact(struct gen_ctx *g, uint8_t kind, uint32_t node, unsigned host, unsigned res,
	      int64_t t0, int64_t t1, const char *s);
/* Returns the control-plane host whose kube-controller-manager holds the lease. */
unsigned gen_kcm_leader(const struct gen_ctx *g);
/* Starts an event for the request actor a has just finished. */
void gen_ev_start(struct gen_ev *e, struct gen_actor *a, const struct gen_who *who,
		  const char *verb);
/* Sets e's URI and objectRef for lease l; query is appended to the URI
 * ("?timeout=10s" for kubelets), named = false addresses the collection. */
void gen_ev_lease(struct gen_ctx *g, struct gen_ev *e, const struct gen_lease *l, bool named,
		  const char *query);
/* Turns e into a failure with the apiserver's usual message: 404 NotFound,
 * 409 Conflict (reason "Conflict") or 409 AlreadyExists (reason "AlreadyExists"). */
void gen_fail(struct gen_ctx *g, struct gen_ev *e, int code, const char *reason);
/* At RequestResponse level, sets e's responseObject to the Status it failed or deleted with. */
void gen_status_obj(struct gen_ctx *g, struct gen_ev *e);
/* At RequestResponse level, sets e's requestObject (resp = false) or
 * responseObject (resp = true) to lease l. */
void gen_lease_obj(struct gen_ctx *g, struct gen_ev *e, const struct gen_lease *l, bool resp,
		   bool stored);

/* ---- sample-gen-kubelet.c ---- */
/* Returns the wait of a 10 s renew loop with 4 % jitter (wait.JitterUntil,
 * sliding) plus the client's own few hundred µs. */
int64_t gen_renew_gap(struct gen_rng *r);
/* Schedules kubelet lease actor ai's next request, in state st, starting at t0. */
void gen_kl_next(struct gen_ctx *g, uint32_t ai, uint8_t st, int64_t t0);
/* Runs the kubelet lease controller request that ends now. */
void gen_lease_step(struct gen_ctx *g, uint32_t ai);
/* Schedules the kubelet's node status patch at t0 (nothing is audited while
 * the Node is gone: its GETs of the Node are not audited). */
void gen_status_next(struct gen_ctx *g, uint32_t ai, int64_t t0);
/* Kubelet node status: PATCH nodes/<node>/status, 200, at least every 5 min
 * (checked every 10 s); while the Node is deleted it only checks again. */
void gen_status_step(struct gen_ctx *g, uint32_t ai);

/* ---- sample-gen-elect.c ---- */
/* Schedules candidate ai's next request in state st starting at t0. */
void gen_el_next(struct gen_ctx *g, uint32_t ai, uint8_t st, int64_t t0);
/* Runs the leader-election request of candidate ai that ends now. */
void gen_elect_step(struct gen_ctx *g, uint32_t ai);
/* Apiserver identity lease: update every 10 s by system:apiserver over loopback. */
void gen_ident_step(struct gen_ctx *g, uint32_t ai);

/* ---- sample-gen-noise.c ---- */
/* Writes the ResponseComplete of watch actor ai and frees it. */
void gen_watch_step(struct gen_ctx *g, uint32_t ai);
/* Writes one unrelated request (a watch writes its ResponseStarted and opens a
 * watch actor), then schedules the stream's next arrival (Poisson). */
void gen_noise_step(struct gen_ctx *g, uint32_t ai);
/* Makes the pods the noise talks about, and the noise streams. */
void gen_noise_init(struct gen_ctx *g, struct gen_rng *r);

/* ---- sample-gen-story.c ---- */
/* Runs story step ai (its state says which). */
void gen_story_step(struct gen_ctx *g, uint32_t ai);
/* Creates the actors of the selected stories at their times (fractions of the window). */
void gen_stories_init(struct gen_ctx *g);
/* Parses the --stories list into a mask; returns 0 or -1 after a message. */
int gen_parse_stories(const char *s, unsigned *out);

/* ---- sample-gen-setup.c ---- */
/* Opens the output streams: stdout, FILE, or FILE.1..FILE.N. Returns 0 or -1. */
int gen_open(struct gen_ctx *g);
/* Flushes and closes the outputs; returns 0, or -1 after a write error. */
int gen_close(struct gen_ctx *g);
/* Sets up the whole simulated cluster for options o. */
void gen_init(struct gen_ctx *g, const struct gen_opts *o);
/* Frees everything gen_init allocated. */
void gen_release(struct gen_ctx *g);

#endif
