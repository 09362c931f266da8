/* queries-int.h - private interfaces between the query layer's files. */
#ifndef LT_QUERIES_INT_H
#define LT_QUERIES_INT_H

#include "lt_queries.h"

/* What kind of lease a (namespace, name) is, by Kubernetes' own naming. */
enum lc_kind { LC_NODE, LC_LEADER, LC_IDENTITY };

/* One episode of a lease's life, as the builder finds it. */
struct lc_episode {
	const char *kind; /* "CREATED", "RENEWING", ... (static strings) */
	int64_t start_us, end_us, count;
	int64_t user, groups, ip, agent;	/* strs ids, 0 = none */
	int64_t first_event, last_event, cause; /* audit ids, 0 = none */
	int64_t median_us, max_us;		/* -1 = not applicable */
	char *old_holder, *new_holder, *note;	/* owned, may be NULL */
	int inferred;
};

/* A lease's summary, for lt_leases and `nodes`. */
struct lc_summary {
	enum lc_kind kind;
	const char *state; /* renewing, deleted, orphaned, re-created, not-found */
	int64_t first_us, last_us, last_renew_us;
	int64_t renews, creates, deletes, not_found, auth_failures, conflicts, slow, gaps;
	int64_t max_gap_us, duration_s, gap_us;
	char *holder; /* owned, may be NULL */
};

struct lc_result {
	struct lc_episode *eps;
	size_t n, cap;
	struct lc_summary sum;
};

void lc_result_release(struct lc_result *r);

/* The columns a builder reads from each request (table audit AS a), in lc_feed's order. */
#define LC_COLUMNS                                                                                 \
	"a.id, a.stage_us, a.stage_us - a.received_us, a.verb_id, a.code, a.user_id, a.groups_id," \
	" a.source_ip_id, a.user_agent_id, a.lease_holder_id,"                                     \
	" coalesce(a.message_id, a.authz_reason_id)"

struct lc;

/* A builder for one lease; its episodes go to *out (zeroed here). */
struct lc *lc_new(struct lt_store *st, int64_t namespace_id, int64_t name_id, int64_t gap_us,
		  int64_t slow_us, struct lc_result *out);

/* Feeds the lease's next request, in stageTimestamp order: LC_COLUMNS from column col. */
void lc_feed(struct lc *b, const struct lt_stmt *q, int col);

/* Closes what is still open, fills the summary and frees the builder (not *out). */
void lc_end(struct lc *b);

/*
 * Builds the episodes of lease (namespace_id, name_id) from its stored
 * events in time order.  gap_us / slow_us of 0 take the defaults (the
 * lease's own duration, else 40 s for node and identity leases and 15 s
 * for leader leases; 1 s).
 */
int lc_build(struct lt_store *st, int64_t namespace_id, int64_t name_id, int64_t gap_us,
	     int64_t slow_us, struct lc_result *out, struct lt_error *err);

/* The builder's own (static) name for an episode kind read back from the store. */
const char *lc_kind_name(const char *stored);

/* The strs id of a string, or 0 when the store has never seen it. */
int64_t lc_str_id(struct lt_store *st, const char *s);

/* The strs id of node's own kubelet user (system:node:NODE), or 0 when it never asked. */
int64_t lc_kubelet_id(struct lt_store *st, const char *node);

/* ---- node health (queries-health.c) -------------------------------------- */

/* Where a fact comes from. */
enum queries_health_source {
	QUERIES_HEALTH_AUDIT,
	QUERIES_HEALTH_KUBELET_LOG,
	QUERIES_HEALTH_CTRL_LOG
};

/* What a fact says about its node. */
enum queries_health_fact_kind {
	QUERIES_HF_RENEW,	      /* the kubelet renewed its lease */
	QUERIES_HF_KUBELET_STATUS,    /* the kubelet wrote its node's status (body unknown) */
	QUERIES_HF_CTRL_UNKNOWN,      /* node-controller: Ready=Unknown (status write, log line) */
	QUERIES_HF_CTRL_NOT_READY,    /* node-controller: a NotReady node queued for tainting */
	QUERIES_HF_KUBELET_NOT_READY, /* the kubelet: Ready=False; text = its message */
	QUERIES_HF_KUBELET_READY,     /* the kubelet: Ready=True after False or Unknown */
	QUERIES_HF_HEALTHY,	      /* node-controller: healthy again / ready now */
	QUERIES_HF_TAINT_ADD,	      /* text = "NAME:EFFECT" when known */
	QUERIES_HF_TAINT_REMOVE,
	QUERIES_HF_TAINT_PATCH,	  /* node-controller PATCHed the Node, body unknown */
	QUERIES_HF_NODE_DELETE,	  /* flags: QUERIES_HEALTH_BY_CLOUD */
	QUERIES_HF_EVICTION,	  /* a pod of the node deleted by the taint manager */
	QUERIES_HF_CONN_ERROR,	  /* the kubelet could not reach the apiserver */
	QUERIES_HF_KUBELET_START, /* the kubelet (re)started */
	QUERIES_HF_BOOT,	  /* the node booted (journal boot marker) */
	QUERIES_HF_REREGISTER,	  /* the kubelet's create nodes answered 409 */
	QUERIES_HF_RUNTIME_DOWN,  /* kubelet: container runtime is down */
	QUERIES_HF_PLEG,	  /* kubelet: PLEG is not healthy */
	QUERIES_HF_CNI,		  /* kubelet: network plugin / CNI not ready */
	QUERIES_HF_KUBELET_STOP,  /* systemd stopped the kubelet (or it exited) */
	QUERIES_HF_SCALE_DOWN,	  /* the cluster-autoscaler tainted the node for removal */
	QUERIES_HF_COUNT
};

enum queries_health_flags { QUERIES_HEALTH_BY_CLOUD = 1 /* the cloud controller or autoscaler */ };

/* Cause evidence seen since the node's last sign of life. */
enum queries_health_saw {
	QUERIES_HEALTH_SAW_CONN_ERROR = 1,
	QUERIES_HEALTH_SAW_KUBELET_START = 2,
	QUERIES_HEALTH_SAW_BOOT = 4,
	QUERIES_HEALTH_SAW_REREGISTER = 8,
	QUERIES_HEALTH_SAW_RUNTIME_DOWN = 16,
	QUERIES_HEALTH_SAW_PLEG = 32,
	QUERIES_HEALTH_SAW_CNI = 64,
	QUERIES_HEALTH_SAW_KUBELET_STOP = 128,
	QUERIES_HEALTH_SAW_SCALE_DOWN = 256,
};

/* Who wrote a fact (the user of its request, or the component of its line). */
enum queries_health_actor {
	QUERIES_ACTOR_OTHER,
	QUERIES_ACTOR_KUBELET,
	QUERIES_ACTOR_NODE_CONTROLLER,
	QUERIES_ACTOR_AUTOSCALER,
	QUERIES_ACTOR_CLOUD,
};

/* One fact about a node; text is borrowed for the call. */
struct queries_health_fact {
	int64_t ts; /* µs */
	enum queries_health_fact_kind kind;
	enum queries_health_source source;
	unsigned flags; /* enum queries_health_flags */
	enum queries_health_actor actor;
	int64_t ref;	  /* audit event id, or -(log line id) */
	const char *text; /* may be NULL */
	size_t text_len;
};

struct queries_health_result {
	struct lt_health_window *windows;
	size_t n, cap;
};

struct queries_health;

/* A builder for one node; its windows go to *out (zeroed here). */
struct queries_health *queries_health_new(struct queries_health_result *out);

/* Feeds the node's next fact, in time order. */
void queries_health_feed(struct queries_health *b, const struct queries_health_fact *f);

/*
 * Closes what is open (a window with no recovery stays open: end_us 0),
 * frees the builder (not *out) and returns the first error: LT_ERR_USAGE
 * for a fact out of time order or of an unknown kind (later facts ignored).
 */
int queries_health_end(struct queries_health *b);

void queries_health_result_release(struct queries_health_result *r);

/* The stream offsets the audit feed adds to stage times (source_id, offset_us). */
#define HEALTH_SKEW_TABLE                                                                          \
	"CREATE TEMP TABLE IF NOT EXISTS health_skew(source_id INTEGER PRIMARY KEY,"               \
	" offset_us INTEGER NOT NULL)"

/* What every node's facts are read with: ids and statements prepared once. */
struct queries_health_ctx;

/*
 * Prepares the reads of queries_health_node on st; evictions: read the pods of
 * temp.health_evicted (built by the rebuild).  temp.health_skew is created
 * empty when missing (no offsets).
 */
int queries_health_ctx_new(struct queries_health_ctx **out, struct lt_store *st, int evictions,
			   struct lt_error *err);
void queries_health_ctx_free(struct queries_health_ctx *c);

/*
 * The NotReady windows of node (strs id node_id), from its Node object's
 * requests (their times corrected by temp.health_skew), its lease's
 * episodes (built before), the log lines of and about it and the evicted
 * pods tied to it, merged in time order as they are read.  A node the store
 * never saw (node_id 0) has none.
 */
int queries_health_node(struct queries_health_ctx *c, int64_t node_id, const char *node,
			struct queries_health_result *out, struct lt_error *err);

/* One audit stream's estimated clock offset against the reference stream. */
struct queries_health_offset {
	int64_t source_id;
	char path[256];	   /* the source file, shortened */
	int64_t offset_us; /* add to its times to put them on the reference's clock */
	int64_t pairs;	   /* causal pairs it rests on */
};

/*
 * Estimates the clock offsets between audit streams (one per source file:
 * one per apiserver) from causal pairs: a kubelet's status write and the
 * node-controller PATCH of the same Node that answers it within 1 s.  The
 * median gap of same-stream pairs is the reaction time; a cross-stream
 * pair's gap minus it is the offset.  Writes up to max streams into out
 * (offset 0 for the reference: the first source read) and returns
 * how many had pairs, or a negative error.
 */
int queries_health_offsets(struct lt_store *st, struct queries_health_offset *out, size_t max,
			   struct lt_error *err);

/* The derived table's DDL (NULL-terminated), and its rebuild: every node's windows anew. */
extern const char *const queries_health_schema[];
int queries_health_rebuild(struct lt_store *st, struct lt_error *err);

#endif
