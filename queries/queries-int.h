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

#endif
