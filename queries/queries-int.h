/* queries-int.h - private interfaces between the query layer's files. */
#ifndef LT_QUERIES_INT_H
#define LT_QUERIES_INT_H

#include "lt_queries.h"

/* A result column of type LT_CELL_t, for the column tables of the canned queries and events. */
#define COL(n, t)                                                                                  \
	{                                                                                          \
		.name = (n), .type = LT_CELL_##t                                                   \
	}
/* A column of free text: what a table cuts first to fit a terminal (LT_COL_FREE_TEXT). */
#define FREE(n)                                                                                    \
	{                                                                                          \
		.name = (n), .type = LT_CELL_TEXT, .flags = LT_COL_FREE_TEXT                       \
	}

/* ---- the lease lifecycle: the builder (queries-lifecycle.c) ------------------ */

/* What kind of lease a (namespace, name) is, by Kubernetes' own naming. */
enum queries_lease_kind { QUERIES_LEASE_NODE, QUERIES_LEASE_LEADER, QUERIES_LEASE_IDENTITY };

/* The verbs the builder tells apart. */
enum queries_verb {
	QUERIES_VERB_OTHER,
	QUERIES_VERB_UPDATE,
	QUERIES_VERB_PATCH,
	QUERIES_VERB_CREATE,
	QUERIES_VERB_DELETE,
};

/* One episode of a lease's life, as the builder finds it. */
struct queries_episode {
	enum lt_episode_kind kind;
	int64_t start_us, end_us, count;
	int64_t user, groups, ip, agent;	/* strs ids, 0 = none */
	int64_t first_event, last_event, cause; /* audit ids, 0 = none */
	int64_t median_us, max_us;		/* -1 = not applicable */
	char *old_holder, *new_holder, *note;	/* owned, may be NULL */
	int inferred;				/* enum queries_holder_evidence */
};

/* How a HOLDER_CHANGE was told (episodes.inferred). */
enum queries_holder_evidence {
	QUERIES_HOLDER_BODY = 0,    /* the Lease bodies' holderIdentity */
	QUERIES_HOLDER_RENEWER = 1, /* Metadata level: a new renewer's source IP or user agent */
	QUERIES_HOLDER_TRANSITIONS = 2, /* leaseTransitions / acquireTime: a change inside a gap */
	QUERIES_HOLDER_EXPIRY = 3,	/* Metadata level: renewed again after the lease expired */
};

/* A lease's summary, for lt_leases and `nodes`. */
struct queries_lease_summary {
	enum queries_lease_kind kind;
	const char *state; /* renewing, deleted, orphaned, re-created, not-found (static) */
	int64_t first_us, last_us, last_renew_us;
	int64_t renews, creates, deletes, not_found, auth_failures, conflicts, slow, gaps;
	int64_t max_gap_us, duration_s, gap_us;
	char *holder; /* owned, may be NULL */
};

struct queries_lease_result {
	struct queries_episode *eps;
	size_t n, cap;
	struct queries_lease_summary sum;
};

void queries_lease_result_release(struct queries_lease_result *r);

/* The node deletion behind a node lease's deletion, as the feed found it. */
struct queries_lease_cause {
	int64_t event;	/* audit id, 0 = none found */
	int64_t ts;	/* its stageTimestamp, µs */
	const char *by; /* who deleted the node (borrowed for the call), NULL = unknown */
	/* both deletes' streams have an estimated clock offset: skew_us is the lease delete's
	 * offset minus the node delete's (add it to the lease delete's time to put it on the
	 * node delete's clock) */
	int skew_known;
	int64_t skew_us;
};

/* One request on the lease, in the builder's terms; what it points to is borrowed. */
struct queries_lease_event {
	int64_t id, ts, latency; /* audit id, stageTimestamp and its latency, µs */
	enum queries_verb verb;
	int code;			 /* HTTP status */
	int64_t user, groups, ip, agent; /* strs ids, 0 = none */
	int64_t note;			 /* strs id of the status message or authz reason */
	int64_t holder;			 /* strs id of the body's holderIdentity, 0 = unknown */
	int released;			 /* the body's holderIdentity is "" (a release) */
	int64_t acquire_us;		 /* the body's acquireTime, 0 = unknown */
	int64_t transitions;		 /* the body's leaseTransitions, -1 = unknown */
	const struct queries_lease_cause *cause; /* a 2xx delete of a node lease; may be NULL */
};

/* What a builder needs to know of its lease before the first event. */
struct queries_lease_params {
	enum queries_lease_kind kind;
	int64_t gap_us, slow_us; /* 0: the defaults (the duration, else 40 s / 15 s; 1 s) */
	int64_t duration_s;	 /* the newest leaseDurationSeconds of a body, -1 = unknown */
	int64_t kubelet;	 /* strs id of system:node:NAME on node leases, 0 = none */
	int64_t node_gone_us;	 /* node leases: the Node's last 2xx delete, no create since; 0 */
	/* A strs id's text as a new string (the builder frees it), NULL when none. */
	char *(*name)(int64_t id, void *ctx);
	void *ctx;
};

struct queries_lease;

/* A builder for one lease; its episodes go to *out (zeroed here).  Touches no store. */
struct queries_lease *queries_lease_new(const struct queries_lease_params *p,
					struct queries_lease_result *out);

/* Feeds the lease's next request, in stageTimestamp order. */
void queries_lease_feed(struct queries_lease *b, const struct queries_lease_event *e);

/*
 * Closes what is still open, fills the summary, frees the builder (not *out)
 * and returns the first error: LT_ERR_USAGE for an event out of time order
 * (it and later events are ignored).  A NULL builder is 0.
 */
int queries_lease_end(struct queries_lease *b);

/* The kind of lease b builds. */
enum queries_lease_kind queries_lease_kind(const struct queries_lease *b);

/* The kind of lease (namespace, name) is, by Kubernetes' naming. */
enum queries_lease_kind queries_lease_kind_of(const char *ns, const char *name);

/* ---- the lease lifecycle: its feed (queries-lease-feed.c) ------------------- */

/* The columns the feed reads from each request (table audit AS a), in its order. */
/*
 * After a kubelet's create of its Node answered 409 AlreadyExists, the
 * kubelet reads the existing Node and takes it over only if that works
 * (kubelet tryRegisterWithAPIServer): the code of its next get, update or
 * patch of the Node within 10 s (a audit alias of the 409), 0 when only its
 * log says "Successfully registered node", NULL when nothing tells.
 */
#define QUERIES_FOLLOWUP_READ(a)                                                                   \
	"coalesce((SELECT f.code FROM audit AS f INDEXED BY audit_object"                          \
	" WHERE f.resource_id = " a ".resource_id AND f.namespace_id IS NULL"                      \
	" AND f.name_id = " a ".name_id AND f.user_id = " a ".user_id"                             \
	" AND f.stage_us > " a ".stage_us AND f.stage_us <= " a ".stage_us + 10000000"             \
	" AND f.verb_id IN (SELECT id FROM strs WHERE s IN ('get', 'update', 'patch'))"            \
	" AND f.superseded = 0 ORDER BY f.stage_us LIMIT 1), CASE WHEN EXISTS (SELECT 1"           \
	" FROM lines_row AS g INDEXED BY lines_kind WHERE g.kind_id = (SELECT id FROM strs"        \
	" WHERE s = 'register-success') AND g.node_id = " a                                        \
	".name_id AND g.ts_d BETWEEN " LT_LINE_TS_D_SQL(                                           \
	    a ".stage_us - 1000000") " AND " LT_LINE_TS_D_SQL(a ".stage_us + 10000000") ") THEN "  \
											"0 END)"

/*
 * The Kubernetes object a raw audit record carries as its response or request (which:
 * "response" or "request"), as JSON text, NULL when it carries none: an audit Event's
 * responseObject / requestObject, or a GKE Cloud Logging LogEntry's protoPayload.response /
 * protoPayload.request (parser-gke.c keeps the LogEntry as the raw record).  r: the
 * audit_raw row's alias.  instr first: most records carry no body, and json_valid parses.
 * lt_raw (index-rawread.c) decompresses the record once for the six reads: it keeps the last.
 */
#define QUERIES_RAW_BODY(r, which)                                                                 \
	"(CASE WHEN instr(lt_raw(" r ".json), '\"" which "Object\"') > 0 AND json_valid(lt_raw(" r \
	".json)) THEN json_extract(lt_raw(" r ".json), '$." which "Object') WHEN instr(lt_raw(" r  \
	".json), '\"protoPayload\"') > 0 AND instr(lt_raw(" r ".json), '\"" which "\"') > 0 AND"   \
	" json_valid(lt_raw(" r ".json)) THEN json_extract(lt_raw(" r                              \
	".json), '$.protoPayload." which "') END)"

/* an event a's latency: stored since schema 9, from received_us before (lt_index.h) */
#define QUERIES_LEASE_LATENCY LT_AUDIT_LATENCY_SQL("a")
#define QUERIES_LEASE_COLUMNS                                                                      \
	"a.id, a.stage_us, " QUERIES_LEASE_LATENCY ", a.verb_id, a.code, a.user_id, a.groups_id,"  \
	" a.source_ip_id, a.user_agent_id, a.lease_holder_id,"                                     \
	" coalesce(a.message_id, a.authz_reason_id), coalesce(a.lease_acquire_us, 0),"             \
	" coalesce(a.lease_transitions, -1)"

/* What the feed looks up once per store, and the statements it reuses. */
struct queries_lease_feed {
	struct lt_store *st;
	int64_t update, patch, create, del, empty; /* strs ids; empty: "" */
	int bodies;				   /* some event carried a Lease body */
	struct lt_stmt *str, *cause, *duration, *node_gone;
	struct lt_stmt *kubelet; /* a node's kubelet's user id: prepared once, not per lease */
	/* the audit streams' clock offsets (queries-health-skew.c), estimated at the first
	 * node lease delete that has a node delete near it: the cause is ordered by them */
	struct queries_health_offset *skew;
	int nskew, skew_done;
};

/* Opens a feed on st (read-only use: st may be a second connection); 0 or LT_ERR_DB. */
int queries_lease_feed_open(struct queries_lease_feed *f, struct lt_store *st,
			    struct lt_error *err);
void queries_lease_feed_close(struct queries_lease_feed *f);

/*
 * A builder for lease (namespace_id, name_id) of cluster cluster_id (0: none named; two
 * clusters' leases of one name are two leases): its kind, duration and kubelet looked up.
 */
struct queries_lease *queries_lease_feed_begin(struct queries_lease_feed *f, int64_t cluster_id,
					       int64_t namespace_id, int64_t name_id,
					       int64_t gap_us, int64_t slow_us,
					       struct queries_lease_result *out);

/* Feeds b the request in q's QUERIES_LEASE_COLUMNS from column col on (cluster_id, name_id:
 * b's lease). */
void queries_lease_feed_row(struct queries_lease_feed *f, struct queries_lease *b,
			    int64_t cluster_id, int64_t name_id, const struct lt_stmt *q, int col);

/*
 * Builds the episodes of lease (namespace_id, name_id) from its stored
 * events in time order, with these thresholds (0: the defaults).
 */
int queries_lease_build(struct lt_store *st, int64_t cluster_id, int64_t namespace_id,
			int64_t name_id, int64_t gap_us, int64_t slow_us,
			struct queries_lease_result *out, struct lt_error *err);

/* The cluster of lease (ns, name): given when not 0, else the first that has it (0 when none). */
int64_t queries_lease_cluster(struct lt_store *st, int64_t given, int64_t ns, int64_t name);

/* --cluster on a read: the leases, episodes and nodes views narrowed to cluster for this
 * connection (TEMP objects; 0 leaves them whole).  Call it after lt_lifecycle_overlay. */
int queries_cluster_scope(struct lt_store *st, int64_t cluster, struct lt_error *err);

/* Whether some event or line of the store named a cluster: 1, 0, or a negative lt_err. */
int queries_clustered(struct lt_store *st, struct lt_error *err);

/* Runs one statement that returns no rows (DDL, DELETE, ...); 0 or a negative lt_err. */
int queries_exec(struct lt_store *st, const char *sql, struct lt_error *err);

/*
 * Steps q (prepared and bound) into out as typed rows, each column read as
 * cols[i].type says (ncols: q's columns): begin, a row each, end; stops when
 * out is closed.  0 or an lt_err.  The caller frees q.
 */
/*
 * The quick filters (struct lt_filter) as one WHERE clause over `audit AS a`
 * (queries-events.c), shared by events, top and timeline: ?1 and ?2 the range
 * (stage_us), ?3 the cluster (0: all), ?4..?12 the filters, every one a bound
 * parameter (NULL or 0 drops its test).  --resource R matches R and each of its
 * subresources, R/S the subresource S only, R/ the object itself only (no
 * subresource): R and S exact or '*' globs.  A statement's own parameters start at
 * QUERIES_FILTER_NEXT.
 */
#define QUERIES_FILTER_TEXT(n, col)                                                                \
	" AND (?" n " IS NULL OR a." col " IN (SELECT id FROM strs WHERE s GLOB ?" n "))"
#define QUERIES_FILTER_WHERE                                                                       \
	" WHERE a.superseded = 0 AND a.stage_us BETWEEN ?1 AND ?2"                                 \
	" AND (?3 = 0 OR a.cluster_id = ?3)" QUERIES_FILTER_TEXT(                                  \
	    "4", "user_id") QUERIES_FILTER_TEXT("5", "verb_id") QUERIES_FILTER_TEXT("6",           \
										    "resource_id") \
	    QUERIES_FILTER_TEXT("7", "namespace_id") QUERIES_FILTER_TEXT(                          \
		"8",                                                                               \
		"source_ip_id") " AND (?9 IS NULL OR a.code = ?9) AND (?10 = 0 OR a.code >= 400)"  \
				" AND (?11 IS NULL OR " QUERIES_LEASE_LATENCY " >= ?11)"           \
				" AND (?12 IS NULL OR CASE WHEN ?12 = '' THEN "                    \
				"a.subresource_id "                                                \
				"IS NULL"                                                          \
				" ELSE a.subresource_id IN (SELECT id FROM strs WHERE s "          \
				"GLOB "                                                            \
				"?12) END)"
#define QUERIES_FILTER_NEXT 13
/* The text filters' GLOB patterns, alive while a statement is bound to them. */
#define QUERIES_FILTER_TEXTS 6
struct queries_filter_pats {
	struct lt_buf pat[QUERIES_FILTER_TEXTS];
};
/*
 * Binds QUERIES_FILTER_WHERE's parameters of q: [since, until] (until 0: open),
 * o->cluster and o->filter, the patterns made in p (queries_filter_pats_init first,
 * _release after q is done).
 */
void queries_filter_bind(struct lt_stmt *q, const struct lt_query_opts *o, int64_t since,
			 int64_t until, struct queries_filter_pats *p);
void queries_filter_pats_init(struct queries_filter_pats *p);
void queries_filter_pats_release(struct queries_filter_pats *p);

/*
 * The quick filters over a result's rows, by column name (queries-events.c):
 * queries_filter_check says (LT_ERR_USAGE, naming what) when a filter of f
 * needs a column (user, verb, resource, namespace, source_ip, code, latency)
 * that cols lacks; queries_filter_sink passes next the rows f keeps, with the
 * same matching as events ('*' globs, --failed: code >= 400).
 */
struct queries_filter_sink {
	const struct lt_filter *f;
	const struct lt_row_sink *next;
	int col[7]; /* each filtered column's index, -1 when absent */
};
int queries_filter_check(const struct lt_filter *f, const struct lt_col *cols, int ncols,
			 const char *what, struct lt_error *err);
struct lt_row_sink queries_filter_sink(struct queries_filter_sink *fs, const struct lt_filter *f,
				       const struct lt_row_sink *next);

int queries_run_stmt(struct lt_stmt *q, const struct lt_col *cols, int ncols,
		     const struct lt_row_sink *out, struct lt_error *err);

/* The strs id of a string, or 0 when the store has never seen it. */
int64_t queries_str_id(struct lt_store *st, const char *s);

/* The strs id of node's own kubelet user (system:node:NODE), or 0 when it never asked. */
int64_t queries_kubelet_id(struct lt_store *st, const char *node);

/* ---- the lease lifecycle: its tables (queries-rebuild.c) -------------------- */

/* The lease lifecycle as the registry lists it. */
extern const struct lt_derived queries_lease_derived;

/* Brings lt_leases/lt_episodes up to date with the events above since_id (0: all). */
int queries_lease_rebuild(struct lt_store *st, int64_t since_id, struct lt_error *err);

/*
 * The two halves of a rebuild of every lease, for running the first beside
 * other work: compute only reads (st may be a second, read-only connection;
 * it needs the audit_rtv index) and declines (*out NULL) when the store
 * holds Lease bodies; write stores what it built through the writable store.
 */
int queries_lease_compute(struct lt_store *st, void **out, struct lt_error *err);
int queries_lease_write(struct lt_store *st, void *computed, struct lt_error *err);
void queries_lease_computed_free(void *computed);

/* ---- log lines' hosts to nodes (queries-hosts.c) ----------------------------- */

extern const struct lt_derived queries_hosts_derived;

/* Maps log lines' hosts to the nodes the store knows (node leases, Node objects). */
int queries_hosts_rebuild(struct lt_store *st, int64_t since_id, struct lt_error *err);

/* ---- the Node objects the store knows (queries-node-names.c) -------------------- */

/*
 * Every (cluster_id, name_id) of a Node object with a stored request, as a SELECT (a
 * DISTINCT over audit_names' Node entries): what lt_node_names holds, and what the read-only
 * overlay's nodes view reads instead.  A store of one cluster fills the table more cheaply
 * (queries-node-names.c).
 */
#define QUERIES_NODE_NAMES_SQL                                                                     \
	"SELECT DISTINCT cluster_id, name_id FROM audit"                                           \
	" WHERE resource_id = (SELECT id FROM strs WHERE s = 'nodes')"                             \
	" AND namespace_id IS NULL AND name_id IS NOT NULL"

extern const struct lt_derived queries_node_names_derived;

/* Fills lt_node_names anew from the stored Node requests. */
int queries_node_names_rebuild(struct lt_store *st, int64_t since_id, struct lt_error *err);

/* ---- the histogram's kept counts (queries-hist.c) ------------------------------ */

extern const struct lt_derived queries_hist_derived;

/* Counts the kept events and errors per second and per minute anew (lt_hist_sec, lt_hist_min). */
int queries_hist_rebuild(struct lt_store *st, int64_t since_id, struct lt_error *err);
/*
 * The seconds' counts read on rd (a second connection, beside the index builds: it reads no
 * index), declined (*out NULL) past a bound; then written in place of a rebuild.
 */
int queries_hist_compute(struct lt_store *rd, void **out, struct lt_error *err);
int queries_hist_write(struct lt_store *st, void *computed, struct lt_error *err);
void queries_hist_computed_free(void *computed);
/* The counts of the rows added since covers (and of older stages they superseded) added in. */
int queries_hist_update(struct lt_store *st, const struct lt_derived_state *covers,
			struct lt_error *err);

/* ---- the lifecycle registry (queries-registry.c) ----------------------------- */

/*
 * One lifecycle: derived tables built from the stored events.  Ingest and
 * `rebuild` walk the registry in order (a later one may read an earlier
 * one's tables); each is rebuilt in a transaction of its own that also
 * records its version and how far it covers (lt_store_derived_mark).
 */
struct queries_lifecycle {
	const struct lt_derived *derived; /* name, version, schema, TEMP overlay */
	/*
	 * Brings the tables up to date with the events above since_id; 0 means
	 * from nothing (the tables emptied first by it).  Runs inside the
	 * registry's transaction: it must not begin or commit one.
	 */
	int (*rebuild)(struct lt_store *st, int64_t since_id, struct lt_error *err);
	/*
	 * Optional, for a bulk load into an empty store: compute the rows on a
	 * second, read-only connection while the last indexes are built (may
	 * decline: *out NULL), then write them inside the registry's transaction.
	 */
	int (*compute)(struct lt_store *rd, void **out, struct lt_error *err);
	int (*write)(struct lt_store *st, void *computed, struct lt_error *err);
	void (*computed_free)(void *computed);
	/* 1: compute reads through no index, so it may start before any is built */
	int compute_early;
	/*
	 * Optional: brings tables that cover the events and lines up to
	 * covers->event_id and ->line_id up to the store's newest, when rows were
	 * only added since (the registry's "behind"; superseding an older stage
	 * comes with its newer one, so it is the update's to account for).  Runs
	 * inside the registry's transaction.  Without it, rebuild from the events.
	 */
	int (*update)(struct lt_store *st, const struct lt_derived_state *covers,
		      struct lt_error *err);
	/* 1: its rows never read a log line's time, so re-dating lines leaves them current */
	int no_line_times;
};

extern const struct queries_lifecycle queries_lifecycles[];
extern const size_t queries_nlifecycles;

/*
 * The lifecycles whose rows read the lines' times (every one not marked
 * no_line_times), NULL-terminated, for lt_redate_opts.line_readers; free()
 * the array (the entries are the registry's).
 */
const struct lt_derived **queries_line_readers(void);

/* Creates every lifecycle's tables (writable st); LT_ERR_DB for a store of a newer leasetrail. */
int queries_lifecycles_ensure(struct lt_store *st, struct lt_error *err);

/* Which lifecycles an update rebuilds. */
enum queries_update {
	QUERIES_UPDATE_BEHIND, /* those behind the events or of another version */
	QUERIES_UPDATE_ALL,    /* every one, from nothing (`rebuild`) */
};

/* A lifecycle's rows computed beforehand (its compute), and the newest ids they were read at. */
struct queries_computed {
	void *rows; /* NULL: none (not computed, or declined) */
	int64_t event_id, line_id;
};

/*
 * Brings the lifecycles up to date (which: how), each rebuilt and marked in
 * a transaction of its own.  computed[i] (computed may be NULL) holds
 * lifecycle i's rows computed beforehand, written instead of a rebuild when
 * the store still ends at the same event and line.
 */
int queries_lifecycles_update(struct lt_store *st, enum queries_update how,
			      const struct queries_computed *computed, struct lt_error *err);

/*
 * The test hook LEASETRAIL_TEST_DIE_AT (README): when the variable names
 * point, the process kills itself there with SIGKILL, as `kill -9` would.
 */
void queries_test_die_at(const char *point);

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

/* How far apart two audit streams' clocks may still be once the estimated offsets are
 * applied (queries-health-skew.c: the span the true answers' residuals agree within), so how
 * long before its cause an answer from another stream may be fed (queries-health.c). */
#define QUERIES_HEALTH_CLOCK_ERR 50000LL /* µs */

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
 * Whether a fact of this kind can open a window.  A node none of whose
 * facts can has no window, whatever else it saw: the rebuild reads only
 * the nodes that have one (queries_health_candidates).
 */
int queries_health_fact_opens(enum queries_health_fact_kind kind);

/*
 * Closes what is open (a window with no recovery stays open: end_us 0),
 * frees the builder (not *out) and returns the first error: LT_ERR_USAGE
 * for a fact out of time order or of an unknown kind (later facts ignored).
 */
int queries_health_end(struct queries_health *b);

void queries_health_result_release(struct queries_health_result *r);

/* The stream offsets the audit feed adds to stage times: per source, cluster and CloudWatch
 * log stream ('' for a whole file). */
#define HEALTH_SKEW_TABLE                                                                          \
	"CREATE TEMP TABLE IF NOT EXISTS health_skew(source_id INTEGER NOT NULL,"                  \
	" cluster_id INTEGER NOT NULL, stream TEXT NOT NULL, offset_us INTEGER NOT NULL,"          \
	" PRIMARY KEY(source_id, cluster_id, stream)) WITHOUT ROWID"

/* The node lifecycle controller's user. */
#define HEALTH_NODE_CONTROLLER "system:serviceaccount:kube-system:node-controller"

/*
 * Fills temp.health_cand (node_id; emptied first) with the nodes that can
 * have a window: the node-controller wrote their Node, a request of theirs
 * is at a level that logs bodies (not Metadata), or a log line of a
 * window-opening kind is of or about them.  The rebuild reads only these.
 */
int queries_health_candidates(struct lt_store *st, struct lt_error *err);

/* Adds to temp.health_cand the nodes a log line of a window-opening kind is of or about. */
int queries_health_line_candidates(struct lt_store *st, struct lt_error *err);

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

/* What is known of an audit stream's clock (queries-health-skew.c). */
enum queries_skew_state {
	QUERIES_SKEW_UNKNOWN,	/* no causal pair ties it to a placed stream */
	QUERIES_SKEW_REFERENCE, /* its cluster's reference: offset 0 by definition */
	QUERIES_SKEW_ESTIMATED
};

#define QUERIES_HEALTH_MAX_STREAMS 64 /* audit streams the offsets are estimated for */

/* One audit stream's estimated clock offset against its cluster's reference stream. */
struct queries_health_offset {
	int64_t source_id, cluster_id;
	char path[256];	   /* the source file, shortened */
	char stream[128];  /* the CloudWatch log stream in it ("" for a whole file) */
	char cluster[128]; /* the cluster's name ("" when none was named) */
	int64_t offset_us; /* add to its times to put them on the reference's clock */
	int64_t pairs;	   /* causal pairs it rests on (the reference: the same-stream ones) */
	enum queries_skew_state state;
};

/*
 * Estimates the clock offsets between audit streams (one per apiserver: a
 * source file, or a CloudWatch log stream; each cluster apart) from causal
 * pairs: a kubelet's status write and the node-controller PATCH of the same
 * Node that answers it within 1 s.  The median gap of same-stream pairs is
 * the reaction time; a cross-stream pair's gap minus it is the offset,
 * spread from each cluster's reference (its first stream read with a pair)
 * through streams already placed.  Writes up to max streams into out: the
 * placed ones (reference and estimated), or with all every audit stream,
 * unknown ones and sources with no pair at all included; returns how many,
 * or a negative error.
 */
int queries_health_offsets(struct lt_store *st, struct queries_health_offset *out, size_t max,
			   int all, struct lt_error *err);

/* The derived table's DDL (NULL-terminated), and its rebuild: every node's windows anew. */
extern const char *const queries_health_schema[];
int queries_health_rebuild(struct lt_store *st, struct lt_error *err);

/* Whether st has node health's table lt_notready (a store from before it does not). */
int queries_has_health(struct lt_store *st);

#endif
