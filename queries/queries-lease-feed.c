/*
 * queries-lease-feed.c - a lease's requests, read from the store, for the builder.
 *
 * The builder (queries-lifecycle.c) is pure; everything it would have to
 * ask the store is asked here: the verbs' and "" string ids (once per
 * feed), a lease's kind, duration and kubelet (once per lease), the node
 * deletion behind a node lease's deletion (once per such delete), and the
 * text of a string id when an episode names a holder, an IP or a reason.
 * Statements are prepared once per feed and reused.
 */
#include "queries-int.h"

#include <stdlib.h>
#include <string.h>

#define FEED_SEC	  1000000LL
#define FEED_CAUSE_WINDOW (600 * FEED_SEC) /* a node delete this long before a lease delete */
/* The GC acts on the node's deletion as etcd commits it, before the DELETE's response is
 * logged (its stageTimestamp), and HA apiservers' clocks differ: the node delete may be logged
 * up to FEED_CAUSE_LATE after the lease delete, if it was received before it (give or take
 * FEED_CAUSE_SKEW). */
#define FEED_CAUSE_LATE (60 * FEED_SEC)
#define FEED_CAUSE_SKEW (1 * FEED_SEC)
/* The most two streams' estimated offsets may differ for a node delete to be read as a
 * candidate (the estimate then decides, feed_cause_first). */
#define FEED_CAUSE_SKEW_MAX (60 * FEED_SEC)

/* QUERIES_LEASE_COLUMNS, in order. */
enum feed_col {
	FC_ID,
	FC_TS,
	FC_LATENCY,
	FC_VERB,
	FC_CODE,
	FC_USER,
	FC_GROUPS,
	FC_IP,
	FC_AGENT,
	FC_HOLDER,
	FC_NOTE,
	FC_ACQUIRE,
	FC_TRANSITIONS,
};

enum feed_ids_col { FI_UPDATE, FI_PATCH, FI_CREATE, FI_DELETE, FI_BODIES, FI_EMPTY };
static const char feed_ids_sql[] = "SELECT (SELECT id FROM strs WHERE s = 'update'),"
				   " (SELECT id FROM strs WHERE s = 'patch'),"
				   " (SELECT id FROM strs WHERE s = 'create'),"
				   " (SELECT id FROM strs WHERE s = 'delete'),"
				   " (SELECT count(*) FROM meta WHERE key = 'lease_bodies'),"
				   " (SELECT id FROM strs WHERE s = '')";

/* The node deletions that may be behind a lease deletion, newest first: ?1 node name id, ?2
   the lease delete's time, ?5 the clock allowance, ?6 the cluster (of the lease: another
   cluster's node of that name is another node), ?7 the lease delete's audit id; with each,
   the streams (source, CloudWatch stream) of both deletes, for their clock offsets. */
enum feed_cause_col {
	FK_ID,
	FK_USER,
	FK_TS,
	FK_RECEIVED,
	FK_SOURCE,
	FK_STREAM,
	FK_LEASE_SOURCE,
	FK_LEASE_STREAM
};
/* A node delete's requestReceivedTimestamp (schema 9 stores the latency: lt_index.h). */
#define FEED_RECEIVED LT_AUDIT_RECEIVED_SQL("a")

static const char feed_cause_sql[] =
    "SELECT a.id, (SELECT s FROM strs WHERE id = a.user_id), a.stage_us,"
    " coalesce(" FEED_RECEIVED ", a.stage_us), a.source_id,"
    " coalesce(" LT_AUDIT_STREAM_SQL(
	"a.id") ", ''),"
		" (SELECT l.source_id FROM audit AS l WHERE l.id = ?7),"
		" coalesce(" LT_AUDIT_STREAM_SQL(
		    "?7") ", '') FROM audit AS a"
			  " WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'nodes')"
			  " AND a.namespace_id IS NULL AND a.name_id = ?1"
			  " AND a.verb_id = (SELECT id FROM strs WHERE s = 'delete')"
			  " AND a.code BETWEEN 200 AND 299 AND a.superseded = 0"
			  " AND a.stage_us BETWEEN ?2 - ?3 AND ?2 + ?4"
			  " AND coalesce(" FEED_RECEIVED
			  ", a.stage_us) <= ?2 + ?5 AND a.cluster_id = ?6"
			  " ORDER BY a.stage_us DESC";

/* The Node ?1's (of cluster ?2) last 2xx delete, when no 2xx create of it followed. */
static const char feed_node_gone_sql[] =
    "SELECT d.stage_us FROM audit AS d INDEXED BY audit_object"
    " WHERE d.resource_id = (SELECT id FROM strs WHERE s = 'nodes') AND d.namespace_id IS NULL"
    " AND d.name_id = ?1 AND d.verb_id = (SELECT id FROM strs WHERE s = 'delete')"
    " AND d.code BETWEEN 200 AND 299 AND d.superseded = 0 AND d.cluster_id = ?2"
    " AND NOT EXISTS (SELECT 1"
    " FROM audit AS c INDEXED BY audit_object WHERE c.resource_id = d.resource_id"
    " AND c.namespace_id IS NULL AND c.name_id = ?1 AND c.stage_us > d.stage_us"
    " AND c.verb_id = (SELECT id FROM strs WHERE s = 'create') AND c.code BETWEEN 200 AND 299"
    " AND c.superseded = 0 AND c.cluster_id = ?2) ORDER BY d.stage_us DESC LIMIT 1";

/* The newest leaseDurationSeconds a Lease body of lease (?1, ?2) of cluster ?3 carried. */
static const char feed_duration_sql[] =
    "SELECT lease_duration_s FROM audit"
    " WHERE resource_id = (SELECT id FROM strs WHERE s = 'leases')"
    " AND namespace_id = ?1 AND name_id = ?2 AND cluster_id = ?3 AND lease_duration_s IS NOT NULL"
    /* a release writes 1 s: "expire at once", not how long a holder may pause */
    " AND lease_holder_id IS NOT (SELECT id FROM strs WHERE s = '')"
    " ORDER BY stage_us DESC LIMIT 1";

static const char feed_events_sql[] =
    "SELECT " QUERIES_LEASE_COLUMNS " FROM audit AS a"
    " WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'leases')"
    " AND a.namespace_id = ?1 AND a.name_id = ?2 AND a.superseded = 0 AND a.cluster_id = ?3"
    " ORDER BY a.stage_us, a.id";

int64_t queries_str_id(struct lt_store *st, const char *s)
{
	struct lt_stmt *q;
	int64_t id = 0;

	if (lt_store_prepare(st, &q, "SELECT id FROM strs WHERE s = ?1", NULL) != 0)
		return 0;
	lt_stmt_bind_text(q, 1, s, (size_t)-1);
	if (lt_stmt_step(q, NULL) == 1)
		id = lt_stmt_int(q, 0);
	lt_stmt_free(q);
	return id;
}

int64_t queries_kubelet_id(struct lt_store *st, const char *node)
{
	struct lt_buf user;
	int64_t id;

	lt_buf_init(&user);
	lt_buf_printf(&user, "system:node:%s", node);
	id = queries_str_id(st, user.ptr);
	lt_buf_release(&user);
	return id;
}

/* The builder's name lookup: a strs id's text, copied; NULL when none. */
static char *feed_name(int64_t id, void *ctx)
{
	struct queries_lease_feed *f = ctx;
	char *s = NULL;

	if (id == 0)
		return NULL;
	lt_stmt_reset(f->str);
	lt_stmt_bind_int(f->str, 1, id);
	if (lt_stmt_step(f->str, NULL) == 1)
		s = lt_xstrdup(lt_stmt_text(f->str, 0, NULL));
	lt_stmt_reset(f->str);
	return s;
}

/*
 * The strs id of node ?1's kubelet's user, as queries_kubelet_id finds it; the feed prepares
 * it once (a statement prepared per lease was 51 M of 1.46 G instructions of an ingest's main
 * thread with 3000 node leases).
 */
static const char feed_kubelet_sql[] = "SELECT id FROM strs WHERE s = 'system:node:' || ?1";

/* queries_kubelet_id of node through the feed's statement. */
static int64_t feed_kubelet(struct queries_lease_feed *f, const char *node)
{
	int64_t id = 0;

	lt_stmt_reset(f->kubelet);
	lt_stmt_bind_text(f->kubelet, 1, node, (size_t)-1);
	if (lt_stmt_step(f->kubelet, NULL) == 1)
		id = lt_stmt_int(f->kubelet, 0);
	lt_stmt_reset(f->kubelet);
	return id;
}

int queries_lease_feed_open(struct queries_lease_feed *f, struct lt_store *st, struct lt_error *err)
{
	struct lt_stmt *q;
	int rc;

	memset(f, 0, sizeof *f);
	f->st = st;
	f->bodies = 1;
	if ((rc = lt_store_prepare(st, &q, feed_ids_sql, err)) != 0)
		return rc;
	if (lt_stmt_step(q, err) == 1) {
		f->update = lt_stmt_int(q, FI_UPDATE);
		f->patch = lt_stmt_int(q, FI_PATCH);
		f->create = lt_stmt_int(q, FI_CREATE);
		f->del = lt_stmt_int(q, FI_DELETE);
		f->bodies = lt_stmt_int(q, FI_BODIES) > 0;
		f->empty = lt_stmt_int(q, FI_EMPTY);
	}
	lt_stmt_free(q);
	if ((rc = lt_store_prepare(st, &f->str, "SELECT s FROM strs WHERE id = ?1", err)) == 0 &&
	    (rc = lt_store_prepare(st, &f->cause, feed_cause_sql, err)) == 0)
		rc = lt_store_prepare(st, &f->duration, feed_duration_sql, err);
	if (rc == 0)
		rc = lt_store_prepare(st, &f->node_gone, feed_node_gone_sql, err);
	if (rc == 0)
		rc = lt_store_prepare(st, &f->kubelet, feed_kubelet_sql, err);
	if (rc != 0)
		queries_lease_feed_close(f);
	return rc;
}

void queries_lease_feed_close(struct queries_lease_feed *f)
{
	lt_stmt_free(f->str);
	lt_stmt_free(f->cause);
	lt_stmt_free(f->duration);
	lt_stmt_free(f->node_gone);
	lt_stmt_free(f->kubelet);
	free(f->skew);
	f->str = f->cause = f->duration = f->node_gone = f->kubelet = NULL;
	f->skew = NULL;
	f->nskew = f->skew_done = 0;
}

/* The estimated offset of the audit stream (source, CloudWatch stream) of cluster into out;
 * 0 when it has none (unknown: no causal pair placed it).  Estimated once per feed. */
static int feed_offset(struct queries_lease_feed *f, int64_t cluster, int64_t source,
		       const char *stream, int64_t *out)
{
	if (!f->skew_done) {
		f->skew_done = 1;
		f->skew = lt_xcalloc(QUERIES_HEALTH_MAX_STREAMS, sizeof *f->skew);
		f->nskew =
		    queries_health_offsets(f->st, f->skew, QUERIES_HEALTH_MAX_STREAMS, 0, NULL);
	}
	/* a whole file is one stream ("" in it); a CloudWatch export one per log stream */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < f->nskew; i++) {
			const struct queries_health_offset *o = &f->skew[i];

			if (o->source_id == source && o->cluster_id == cluster &&
			    strcmp(o->stream, pass == 0 ? "" : stream) == 0) {
				*out = o->offset_us;
				return 1;
			}
		}
	return 0;
}

/* Was the node delete (the cause row q) received before the lease delete at ts?  On the
 * estimated clocks when both streams have one (within QUERIES_HEALTH_CLOCK_ERR, what they
 * are trusted to), else within FEED_CAUSE_SKEW of the times as logged. */
static int feed_cause_first(struct queries_lease_feed *f, const struct lt_stmt *q, int64_t ts,
			    int64_t cluster, struct queries_lease_cause *c)
{
	int64_t node_off, lease_off, received = lt_stmt_int(q, FK_RECEIVED);

	c->skew_known = feed_offset(f, cluster, lt_stmt_int(q, FK_SOURCE),
				    lt_stmt_text(q, FK_STREAM, NULL), &node_off) &&
			feed_offset(f, cluster, lt_stmt_int(q, FK_LEASE_SOURCE),
				    lt_stmt_text(q, FK_LEASE_STREAM, NULL), &lease_off);
	c->skew_us = c->skew_known ? lease_off - node_off : 0;
	return c->skew_known ? received <= ts + c->skew_us + QUERIES_HEALTH_CLOCK_ERR
			     : received <= ts + FEED_CAUSE_SKEW;
}

/* The newest leaseDurationSeconds a Lease body of this lease carried, or -1. */
static int64_t feed_duration(struct queries_lease_feed *f, int64_t cluster, int64_t ns,
			     int64_t name)
{
	int64_t d = -1;

	lt_stmt_reset(f->duration);
	lt_stmt_bind_int(f->duration, 1, ns);
	lt_stmt_bind_int(f->duration, 2, name);
	lt_stmt_bind_int(f->duration, 3, cluster);
	if (lt_stmt_step(f->duration, NULL) == 1)
		d = lt_stmt_int(f->duration, 0);
	lt_stmt_reset(f->duration);
	return d;
}

struct queries_lease *queries_lease_feed_begin(struct queries_lease_feed *f, int64_t cluster_id,
					       int64_t namespace_id, int64_t name_id,
					       int64_t gap_us, int64_t slow_us,
					       struct queries_lease_result *out)
{
	char *ns = feed_name(namespace_id, f), *name = feed_name(name_id, f);
	struct queries_lease_params p = {
	    .kind = queries_lease_kind_of(ns ? ns : "", name ? name : ""),
	    .gap_us = gap_us,
	    .slow_us = slow_us,
	    /* without a Lease body anywhere (Metadata-level logs) there is no duration to find */
	    .duration_s = f->bodies ? feed_duration(f, cluster_id, namespace_id, name_id) : -1,
	    .name = feed_name,
	    .ctx = f,
	};

	if (p.kind == QUERIES_LEASE_NODE) {
		p.kubelet = feed_kubelet(f, name ? name : "");
		lt_stmt_reset(f->node_gone);
		lt_stmt_bind_int(f->node_gone, 1, name_id);
		lt_stmt_bind_int(f->node_gone, 2, cluster_id);
		if (lt_stmt_step(f->node_gone, NULL) == 1)
			p.node_gone_us = lt_stmt_int(f->node_gone, 0);
		lt_stmt_reset(f->node_gone);
	}
	free(ns);
	free(name);
	return queries_lease_new(&p, out);
}

static enum queries_verb feed_verb(const struct queries_lease_feed *f, int64_t verb)
{
	if (verb == 0)
		return QUERIES_VERB_OTHER;
	return verb == f->update   ? QUERIES_VERB_UPDATE
	       : verb == f->patch  ? QUERIES_VERB_PATCH
	       : verb == f->create ? QUERIES_VERB_CREATE
	       : verb == f->del	   ? QUERIES_VERB_DELETE
				   : QUERIES_VERB_OTHER;
}

void queries_lease_feed_row(struct queries_lease_feed *f, struct queries_lease *b,
			    int64_t cluster_id, int64_t name_id, const struct lt_stmt *q, int col)
{
	struct queries_lease_cause cause = {0};
	char *by = NULL;
	struct queries_lease_event e = {
	    .id = lt_stmt_int(q, col + FC_ID),
	    .ts = lt_stmt_int(q, col + FC_TS),
	    .latency = lt_stmt_int(q, col + FC_LATENCY),
	    .verb = feed_verb(f, lt_stmt_int(q, col + FC_VERB)),
	    .code = (int)lt_stmt_int(q, col + FC_CODE),
	    .user = lt_stmt_int(q, col + FC_USER),
	    .groups = lt_stmt_int(q, col + FC_GROUPS),
	    .ip = lt_stmt_int(q, col + FC_IP),
	    .agent = lt_stmt_int(q, col + FC_AGENT),
	    .holder = lt_stmt_int(q, col + FC_HOLDER),
	    .note = lt_stmt_int(q, col + FC_NOTE),
	    .acquire_us = lt_stmt_int(q, col + FC_ACQUIRE),
	    .transitions = lt_stmt_int(q, col + FC_TRANSITIONS),
	};

	e.released = e.holder != 0 && e.holder == f->empty;
	/* a 2xx delete: the node deletion that caused it, for a node lease's builder */
	if (e.verb == QUERIES_VERB_DELETE && e.code >= 200 && e.code < 300 &&
	    queries_lease_kind(b) == QUERIES_LEASE_NODE) {
		lt_stmt_reset(f->cause);
		lt_stmt_bind_int(f->cause, 1, name_id);
		lt_stmt_bind_int(f->cause, 2, e.ts);
		lt_stmt_bind_int(f->cause, 3, FEED_CAUSE_WINDOW);
		lt_stmt_bind_int(f->cause, 4, FEED_CAUSE_LATE);
		lt_stmt_bind_int(f->cause, 5, FEED_CAUSE_SKEW_MAX);
		lt_stmt_bind_int(f->cause, 6, cluster_id);
		lt_stmt_bind_int(f->cause, 7, e.id);
		while (lt_stmt_step(f->cause, NULL) == 1) {
			if (!feed_cause_first(f, f->cause, e.ts, cluster_id, &cause))
				continue;
			cause.event = lt_stmt_int(f->cause, FK_ID);
			by = lt_stmt_type(f->cause, FK_USER) == LT_COL_NULL
				 ? NULL
				 : lt_xstrdup(lt_stmt_text(f->cause, FK_USER, NULL));
			cause.by = by;
			cause.ts = lt_stmt_int(f->cause, FK_TS);
			break;
		}
		lt_stmt_reset(f->cause);
		e.cause = &cause;
	}
	queries_lease_feed(b, &e);
	free(by);
}

int queries_lease_build(struct lt_store *st, int64_t cluster_id, int64_t namespace_id,
			int64_t name_id, int64_t gap_us, int64_t slow_us,
			struct queries_lease_result *out, struct lt_error *err)
{
	struct queries_lease_feed f;
	struct queries_lease *b;
	struct lt_stmt *q;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = queries_lease_feed_open(&f, st, err)) != 0)
		return rc;
	b = queries_lease_feed_begin(&f, cluster_id, namespace_id, name_id, gap_us, slow_us, out);
	if ((rc = lt_store_prepare(st, &q, feed_events_sql, err)) == 0) {
		lt_stmt_bind_int(q, 1, namespace_id);
		lt_stmt_bind_int(q, 2, name_id);
		lt_stmt_bind_int(q, 3, cluster_id);
		while ((rc = lt_stmt_step(q, err)) == 1)
			queries_lease_feed_row(&f, b, cluster_id, name_id, q, 0);
		lt_stmt_free(q);
	}
	if (queries_lease_end(b) != 0 && rc == 0)
		rc = lt_error_set(err, LT_ERR_USAGE, "lease events out of time order");
	queries_lease_feed_close(&f);
	return rc < 0 ? LT_ERR_DB : rc;
}
