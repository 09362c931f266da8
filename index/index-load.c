/*
 * index-load.c - streaming one input into the store.
 *
 * A file is loaded in batches of LOAD_BATCH records; each batch commits
 * together with the source row's counters and resume offset, so the store
 * is consistent after a crash at any point and a rerun goes on from the
 * last commit.  A file is known by the XXH3-128 of its content (see
 * load_identify): the same content read before adds nothing, a file that
 * grew since it was read (a log still being written) is read on from where
 * it stopped, an edited one is new.  An event already stored (same auditID
 * and stage) is counted as a duplicate and not stored again.
 */
#include "index-int.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define LOAD_BATCH	     20000
#define LOAD_MAX_REJECT_ROWS 1000
#define LOAD_MAX_COUNT_KEYS  4096

/* Events on other resources are counted per (resource, verb), not stored. */
struct load_count {
	char *resource, *verb;
	uint64_t n;
};

/*
 * The columns of load_ins_audit_sql, in its order: AC_X is the parameter
 * ?N of column x (checked against the statement when it is prepared).
 */
enum load_audit_col {
	AC_SOURCE_ID = 1,
	AC_LINE,
	AC_OFFSET,
	AC_AUDIT_ID,
	AC_STAGE_ID,
	AC_STAGE_RANK,
	AC_LEVEL_ID,
	AC_VERB_ID,
	AC_RESOURCE_ID,
	AC_SUBRESOURCE_ID,
	AC_NAMESPACE_ID,
	AC_NAME_ID,
	AC_API_GROUP_ID,
	AC_API_VERSION_ID,
	AC_OBJ_UID_ID, /* schema 6: interned, with request_uri_id */
	AC_RESOURCE_VERSION,
	AC_REQUEST_URI_ID,
	AC_USER_ID,
	AC_GROUPS_ID,
	AC_IMPERSONATED_ID,
	AC_SOURCE_IP_ID,
	AC_USER_AGENT_ID,
	AC_CODE,
	AC_STATUS_ID,
	AC_REASON_ID,
	AC_MESSAGE_ID,
	AC_LATENCY_US, /* schema 9: stage_us - received_us, and received_us left NULL */
	AC_STAGE_US,
	AC_AUTHZ_DECISION_ID,
	AC_AUTHZ_REASON_ID,
	AC_LEASE_HOLDER_ID,
	AC_LEASE_DURATION_S,
	AC_LEASE_RENEW_US,
	AC_LEASE_ACQUIRE_US,
	AC_LEASE_TRANSITIONS,
	AC_AKEY,
	AC_CLUSTER_ID,	/* schema 5: the record's cluster (index-cluster.c) */
	AC_IDENTITY_ID, /* schema 6: who is behind the user name (lt_audit_event.identity) */
	AC_COUNT	/* one past the last parameter */
};

struct load {
	struct lt_store *st;
	const struct lt_ingest_opts *opts;
	struct lt_error *err;
	struct lt_file_report rep;
	struct lt_file_report committed; /* rep as of the last commit */
	int64_t source_id;
	uint64_t resume_offset;	   /* records before this offset are already committed */
	uint64_t next_offset;	   /* where the next batch would resume */
	uint64_t batch;		   /* records since the last commit */
	int64_t since_id;	   /* highest audit.id before the current batch */
	struct load_count *counts; /* not yet written to resource_counts */
	size_t ncounts, cap_counts;
	sqlite3_stmt *ins_audit, *ins_reject, *add_count, *save_source, *add_counted;
	sqlite3_stmt *supersede_new, *supersede_old, *find_key, *add_mark;
	int partial_stages;	    /* the store holds a request stage below the final one */
	int lease_bodies;	    /* this file had a Lease body (leaseDurationSeconds, holder) */
	int64_t audit_lo, audit_hi; /* stageTimestamps stored by this batch, 0 when none */
	sqlite3_stmt *ins_ext, *widen_range;
	int identity;		   /* a regular file: its hash is kept (not stdin or a pipe) */
	struct lt_input_mark mark; /* the latest: every record replayed so far lies in it */
	uint64_t tail_reject;	   /* offset + 1 of the last record when it was rejected, else 0 */
	int open_end;		   /* that record was cut off by the end of a file still open */
	struct index_log_loader *logs;		      /* created with the file's first log line */
	struct index_intern_memo memo[AC_COUNT];      /* per interned column (LOAD_ID) */
	unsigned char audit_id[INDEX_AUDIT_ID_BYTES]; /* the packed auditID bound to ins_audit */
	unsigned char ext_id[INDEX_EXT_ID_BYTES]; /* the packed provenance id bound to ins_ext */
	struct index_intern_memo stream_memo;	  /* audit_ext's stream (schema 10) */
	struct index_cluster cluster;		  /* the records' clusters */
	int64_t cluster_id;			  /* of the record being stored */
	struct index_raw_writer raw;		  /* audit_raw, compressed (index-raw.c) */
	struct index_held_param bound[AC_COUNT];  /* ins_audit's, kept across rows */
};

static const char load_ins_audit_sql[] =
    "INSERT OR IGNORE INTO audit(source_id, line, offset, audit_id, stage_id, stage_rank,"
    " level_id, verb_id, resource_id, subresource_id, namespace_id, name_id, api_group_id,"
    " api_version_id, obj_uid_id, resource_version, request_uri_id, user_id, groups_id,"
    " impersonated_id, source_ip_id, user_agent_id, code, status_id, reason_id, message_id,"
    " latency_us, stage_us, authz_decision_id, authz_reason_id, lease_holder_id,"
    " lease_duration_s, lease_renew_us, lease_acquire_us, lease_transitions, akey"
    ", cluster_id, identity_id)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
    " ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34,"
    " ?35, ?36"
    ", ?37, ?38)";

/*
 * A request seen at several stages counts once: lower stages yield to the
 * highest.  All stages of a request share akey >> 5 (see load_akey), so each
 * probe is a short range of the akey index; audit_id is compared to stay exact.
 */
static const char load_supersede_new_sql[] =
    "UPDATE audit SET superseded = 1 WHERE id > ?1 AND akey IS NOT NULL"
    " AND EXISTS (SELECT 1 FROM audit AS h"
    "  WHERE h.akey BETWEEN (audit.akey >> 5) << 5 AND ((audit.akey >> 5) << 5) + 31"
    "  AND h.audit_id = audit.audit_id AND h.stage_rank > audit.stage_rank"
    "  AND h.cluster_id = audit.cluster_id)";
static const char load_supersede_old_sql[] =
    "UPDATE audit SET superseded = 1 WHERE id IN (SELECT o.id FROM audit AS n"
    " JOIN audit AS o ON o.akey BETWEEN (n.akey >> 5) << 5 AND ((n.akey >> 5) << 5) + 31"
    " WHERE n.id > ?1 AND n.stage_rank > 0 AND n.akey IS NOT NULL AND o.id <= ?1"
    " AND o.superseded = 0 AND o.audit_id = n.audit_id AND o.stage_rank < n.stage_rank"
    " AND o.cluster_id = n.cluster_id)";

static int load_prepare(struct load *l)
{
	struct lt_store *st = l->st;
	struct lt_error *err = l->err;

	int failed =
	    index_store_prepare_raw(st, &l->ins_audit, load_ins_audit_sql, err) ||
	    index_store_prepare_raw(st, &l->ins_reject,
				    "INSERT INTO rejects(source_id, line, offset, reason)"
				    " VALUES(?1, ?2, ?3, ?4)",
				    err) ||
	    index_store_prepare_raw(st, &l->add_count,
				    "INSERT INTO resource_counts VALUES(?1, ?2, ?3, ?4)"
				    " ON CONFLICT DO UPDATE SET count = count + excluded.count",
				    err) ||
	    index_store_prepare_raw(st, &l->add_counted,
				    "INSERT OR IGNORE INTO counted_requests VALUES(?1, ?2)", err) ||
	    index_store_prepare_raw(
		st, &l->save_source,
		"UPDATE sources SET resume_offset = ?2, bytes = ?3, records = ?4,"
		" stored = ?5, duplicates = ?6, skipped = ?7, rejected = ?8,"
		" state = ?9, note = ?10, finished_us = ?11,"
		" hashed = coalesce(?12, hashed), hash = coalesce(?13, hash),"
		" head = coalesce(?14, head), open_end = ?15 WHERE id = ?1",
		err) ||
	    index_store_prepare_raw(st, &l->supersede_new, load_supersede_new_sql, err) ||
	    index_store_prepare_raw(st, &l->supersede_old, load_supersede_old_sql, err) ||
	    index_store_prepare_raw(
		st, &l->find_key,
		"SELECT audit_id IS ?2 AND stage_id IS ?3 AND cluster_id = ?4 FROM audit"
		" WHERE akey = ?1",
		err) ||
	    index_store_prepare_raw(st, &l->ins_ext,
				    "INSERT INTO audit_ext_packed VALUES(?1, ?2, ?3)", err) ||
	    index_store_prepare_raw(st, &l->add_mark,
				    "INSERT OR REPLACE INTO source_marks VALUES(?1, ?2, ?3, ?4)",
				    err) ||
	    index_store_prepare_raw(
		st, &l->widen_range,
		"INSERT INTO meta VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value ="
		" CAST(iif(?1 = 'audit_lo', min(CAST(value AS INTEGER), ?2),"
		" max(CAST(value AS INTEGER), ?2)) AS TEXT)",
		err);

	/* the column enum and the statement name the same parameters */
	assert(failed || sqlite3_bind_parameter_count(l->ins_audit) == AC_COUNT - 1);
	return failed ? LT_ERR_DB : 0;
}

static void load_release(struct load *l)
{
	sqlite3_finalize(l->ins_audit);
	index_raw_writer_release(&l->raw);
	sqlite3_finalize(l->ins_reject);
	sqlite3_finalize(l->add_count);
	sqlite3_finalize(l->add_counted);
	sqlite3_finalize(l->save_source);
	sqlite3_finalize(l->supersede_new);
	sqlite3_finalize(l->supersede_old);
	sqlite3_finalize(l->find_key);
	sqlite3_finalize(l->add_mark);
	sqlite3_finalize(l->ins_ext);
	sqlite3_finalize(l->widen_range);
	index_log_loader_free(l->logs);
	index_intern_memo_release(l->memo, sizeof l->memo / sizeof *l->memo);
	index_intern_memo_release(&l->stream_memo, 1);
	index_cluster_release(&l->cluster);
	for (size_t i = 0; i < l->ncounts; i++) {
		free(l->counts[i].resource);
		free(l->counts[i].verb);
	}
	free(l->counts);
}

/* Runs a prepared write to completion. */
static int load_step(struct load *l, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? 0 : index_store_db_error(l->st, l->err, what);
}

/* The pending count for (resource, verb), or NULL. */
static struct load_count *load_count_find(struct load *l, struct lt_str resource,
					  struct lt_str verb)
{
	for (size_t i = 0; i < l->ncounts; i++) {
		struct load_count *c = &l->counts[i];

		if (strlen(c->resource) == resource.len && strlen(c->verb) == verb.len &&
		    memcmp(c->resource, resource.ptr, resource.len) == 0 &&
		    memcmp(c->verb, verb.ptr, verb.len) == 0)
			return c;
	}
	return NULL;
}

/* Counts an event of another resource; past LOAD_MAX_COUNT_KEYS keys, as "(other)". */
static void load_count(struct load *l, struct lt_str resource, struct lt_str verb)
{
	struct lt_str none = {"", 0}, nonresource = {"(non-resource)", 14};
	struct load_count *c;

	if (resource.ptr == NULL)
		resource = nonresource;
	if (verb.ptr == NULL)
		verb = none;
	c = load_count_find(l, resource, verb);
	if (c == NULL && l->ncounts >= LOAD_MAX_COUNT_KEYS) {
		resource = (struct lt_str){"(other)", 7};
		verb = none;
		c = load_count_find(l, resource, verb);
	}
	if (c == NULL) {
		LT_GROW(l->counts, l->cap_counts, l->ncounts + 1);
		c = &l->counts[l->ncounts++];
		c->resource = lt_xstrndup(resource.ptr, strnlen(resource.ptr, resource.len));
		c->verb = lt_xstrndup(verb.ptr, strnlen(verb.ptr, verb.len));
		c->n = 0;
	}
	c->n++;
}

/*
 * 1 when the request of an event not stored was not counted before (its
 * other stage, the same file read again, an overlapping one): counts are of
 * requests, by auditID.  An event without one is counted each time.
 */
static int load_first_count(struct load *l, const struct lt_audit_event *ev, int *first)
{
	sqlite3_stmt *s = l->add_counted;

	*first = 1;
	if (ev->audit_id.ptr == NULL)
		return 0;
	/* every stage of a request repeats its requestReceivedTimestamp */
	sqlite3_bind_int64(s, 1, ev->received_given ? ev->received_us / 1000000 : -1);
	sqlite3_bind_int64(s, 2, index_audit_id_hash(ev->audit_id.ptr, ev->audit_id.len));
	if (load_step(l, s, "cannot count a request") != 0)
		return LT_ERR_DB;
	*first = sqlite3_changes(l->st->db) > 0;
	return 0;
}

/*
 * Saves and frees the pending counts.  On a failed write the counts not saved stay pending,
 * moved to the front, so that load_release frees each exactly once (fault.sweep found the
 * ones already saved freed twice).
 */
static int load_flush_counts(struct load *l)
{
	size_t i;

	for (i = 0; i < l->ncounts; i++) {
		struct load_count *c = &l->counts[i];

		sqlite3_bind_int64(l->add_count, 1, l->source_id);
		sqlite3_bind_text(l->add_count, 2, c->resource, -1, SQLITE_STATIC);
		sqlite3_bind_text(l->add_count, 3, c->verb, -1, SQLITE_STATIC);
		sqlite3_bind_int64(l->add_count, 4, (sqlite3_int64)c->n);
		if (load_step(l, l->add_count, "cannot save resource counts") != 0)
			break;
		free(c->resource);
		free(c->verb);
	}
	if (i > 0 && i < l->ncounts)
		memmove(l->counts, l->counts + i, (l->ncounts - i) * sizeof *l->counts);
	l->ncounts -= i;
	return l->ncounts == 0 ? 0 : LT_ERR_DB;
}

static int64_t load_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Writes the source row's counters and state. */
static int load_save_source(struct load *l, const char *state, const char *note)
{
	sqlite3_stmt *s = l->save_source;

	sqlite3_bind_int64(s, 1, l->source_id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)l->next_offset);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)l->rep.bytes);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)l->rep.records);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)l->rep.stored);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)l->rep.duplicates);
	sqlite3_bind_int64(s, 7, (sqlite3_int64)l->rep.skipped);
	sqlite3_bind_int64(s, 8, (sqlite3_int64)l->rep.rejected);
	sqlite3_bind_int(s, 15, l->open_end);
	sqlite3_bind_text(s, 9, state, -1, SQLITE_STATIC);
	if (note != NULL && note[0] != '\0')
		sqlite3_bind_text(s, 10, note, -1, SQLITE_TRANSIENT);
	if (strcmp(state, "ingesting") != 0)
		sqlite3_bind_int64(s, 11, load_now_us());
	if (l->identity && l->mark.hash[0] != '\0') {
		sqlite3_bind_int64(s, 12, (sqlite3_int64)l->mark.len);
		sqlite3_bind_text(s, 13, l->mark.hash, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 14, l->mark.head, -1, SQLITE_STATIC);
	}
	if (load_step(l, s, "cannot save source progress") != 0)
		return LT_ERR_DB;
	if (!l->identity || strcmp(state, "ingesting") == 0 || l->mark.hash[0] == '\0')
		return 0;
	/* a complete read: this content is known from now on, whatever the file becomes */
	s = l->add_mark;
	sqlite3_bind_int64(s, 1, l->source_id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)l->mark.len);
	sqlite3_bind_text(s, 3, l->mark.hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, l->mark.head, -1, SQLITE_STATIC);
	return load_step(l, s, "cannot save source progress");
}

/* The parser's mark: how far the input was read before the records that follow. */
static void load_mark(const struct lt_input_mark *m, void *ctx)
{
	struct load *l = ctx;

	l->mark = *m;
}

/* Marks requests seen at several stages so each counts once; free when none ever were. */
static int load_supersede(struct load *l)
{
	if (!l->partial_stages)
		return 0;
	sqlite3_bind_int64(l->supersede_new, 1, l->since_id);
	if (load_step(l, l->supersede_new, "cannot link request stages") != 0)
		return LT_ERR_DB;
	sqlite3_bind_int64(l->supersede_old, 1, l->since_id);
	return load_step(l, l->supersede_old, "cannot link request stages");
}

/* True when the store already holds a RequestReceived or ResponseStarted row. */
static int load_has_partial_stages(struct load *l)
{
	sqlite3_stmt *q;
	int yes = 0;

	if (index_store_prepare_raw(
		l->st, &q, "SELECT 1 FROM meta WHERE key = 'partial_stages' AND value = '1'",
		NULL) != 0)
		return 1;
	yes = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return yes;
}

/* Widens the stored time range of audit events (meta audit_lo/hi) to this batch's. */
static int load_widen_range(struct load *l)
{
	if (l->audit_hi == 0)
		return 0;
	sqlite3_bind_text(l->widen_range, 1, "audit_lo", -1, SQLITE_STATIC);
	sqlite3_bind_int64(l->widen_range, 2, l->audit_lo);
	if (load_step(l, l->widen_range, "cannot save the time range") != 0)
		return LT_ERR_DB;
	sqlite3_bind_text(l->widen_range, 1, "audit_hi", -1, SQLITE_STATIC);
	sqlite3_bind_int64(l->widen_range, 2, l->audit_hi);
	l->audit_lo = l->audit_hi = 0;
	return load_step(l, l->widen_range, "cannot save the time range");
}

/* Ends the current transaction with everything the batch did; opens the next one. */
static int load_commit(struct load *l, const char *state, const char *note, int reopen)
{
	if (l->partial_stages &&
	    index_store_exec(l->st, "INSERT OR REPLACE INTO meta VALUES('partial_stages', '1')",
			     l->err))
		return LT_ERR_DB;
	/* the lifecycle builder looks for leaseDurationSeconds only in stores that have bodies */
	if (l->lease_bodies &&
	    index_store_exec(l->st, "INSERT OR REPLACE INTO meta VALUES('lease_bodies', '1')",
			     l->err))
		return LT_ERR_DB;
	/* raw records still held as samples go in with the rows they belong to */
	if (index_raw_flush(&l->raw, l->err) || (l->logs && index_log_loader_raw_flush(l->logs)))
		return LT_ERR_DB;
	if (load_flush_counts(l) || load_supersede(l) || load_widen_range(l) ||
	    (l->logs && index_log_loader_save(l->logs)) || load_save_source(l, state, note) ||
	    index_cluster_save(&l->cluster, l->st, l->source_id, l->err) ||
	    index_store_exec(l->st, "COMMIT", l->err))
		return LT_ERR_DB;
	l->committed = l->rep;
	l->batch = 0;
	l->since_id = lt_store_last_event_id(l->st);
	if (reopen)
		return index_store_exec(l->st, "BEGIN IMMEDIATE", l->err);
	return 0;
}

/* One record processed: commit when the batch is full. */
static int load_tick(struct load *l, const struct lt_where *at)
{
	assert(l->batch < LOAD_BATCH); /* every full batch was committed */
	l->rep.records++;
	l->next_offset = at->offset + 1;
	if (++l->batch < LOAD_BATCH)
		return 0;
	return load_commit(l, "ingesting", NULL, 1);
}

static int load_reject(const struct lt_where *at, const char *reason, void *ctx)
{
	struct load *l = ctx;

	l->rep.rejected++;
	if (l->opts->on_reject)
		l->opts->on_reject(at, reason, l->opts->ctx);
	if (l->rep.rejected <= LOAD_MAX_REJECT_ROWS) {
		sqlite3_bind_int64(l->ins_reject, 1, l->source_id);
		sqlite3_bind_int64(l->ins_reject, 2, (sqlite3_int64)at->line);
		sqlite3_bind_int64(l->ins_reject, 3, (sqlite3_int64)at->offset);
		sqlite3_bind_text(l->ins_reject, 4, reason, -1, SQLITE_STATIC);
		if (load_step(l, l->ins_reject, "cannot record a rejected record") != 0)
			return LT_ERR_DB;
	}
	l->tail_reject = at->offset + 1;
	return load_tick(l, at);
}

/* How an event field is bound to its column. */
enum load_how {
	LOAD_ID,	 /* a struct lt_str interned in strs: its id (absent: NULL) */
	LOAD_STR,	 /* a struct lt_str as text (absent: NULL) */
	LOAD_AUDIT_ID,	 /* an auditID: 16 bytes when a UUID, else text (index-auditid.c) */
	LOAD_I64,	 /* an int64_t, always */
	LOAD_I64_SET,	 /* an int64_t, NULL when 0 */
	LOAD_I64_NONNEG, /* an int64_t, NULL when negative (-1: absent) */
	LOAD_INT_SET,	 /* an int, NULL when 0 */
	LOAD_BEFORE,	 /* stage_us minus the int64_t (how long before the stage it was) */
};

/* One column bound from a field of struct lt_audit_event. */
struct load_field {
	enum load_audit_col col;
	enum load_how how;
	size_t at; /* offsetof(struct lt_audit_event, the field) */
};

#define LOAD_EV(field) offsetof(struct lt_audit_event, field)

/*
 * Every column the event's own fields fill, in column order (so strings are
 * interned in the same order on every run, and get the same ids).  The
 * others come from the load: source, line, offset, stage rank, akey.
 */
static const struct load_field load_fields[] = {
    {.col = AC_AUDIT_ID, .how = LOAD_AUDIT_ID, .at = LOAD_EV(audit_id)},
    {.col = AC_STAGE_ID, .how = LOAD_ID, .at = LOAD_EV(stage)},
    {.col = AC_LEVEL_ID, .how = LOAD_ID, .at = LOAD_EV(level)},
    {.col = AC_VERB_ID, .how = LOAD_ID, .at = LOAD_EV(verb)},
    {.col = AC_RESOURCE_ID, .how = LOAD_ID, .at = LOAD_EV(resource)},
    {.col = AC_SUBRESOURCE_ID, .how = LOAD_ID, .at = LOAD_EV(subresource)},
    {.col = AC_NAMESPACE_ID, .how = LOAD_ID, .at = LOAD_EV(namespace_)},
    {.col = AC_NAME_ID, .how = LOAD_ID, .at = LOAD_EV(name)},
    {.col = AC_API_GROUP_ID, .how = LOAD_ID, .at = LOAD_EV(api_group)},
    {.col = AC_API_VERSION_ID, .how = LOAD_ID, .at = LOAD_EV(obj_api_version)},
    {.col = AC_OBJ_UID_ID, .how = LOAD_ID, .at = LOAD_EV(obj_uid)},
    {.col = AC_RESOURCE_VERSION, .how = LOAD_STR, .at = LOAD_EV(resource_version)},
    {.col = AC_REQUEST_URI_ID, .how = LOAD_ID, .at = LOAD_EV(request_uri)},
    {.col = AC_USER_ID, .how = LOAD_ID, .at = LOAD_EV(username)},
    {.col = AC_GROUPS_ID, .how = LOAD_ID, .at = LOAD_EV(groups)},
    {.col = AC_IMPERSONATED_ID, .how = LOAD_ID, .at = LOAD_EV(impersonated_user)},
    {.col = AC_SOURCE_IP_ID, .how = LOAD_ID, .at = LOAD_EV(source_ip)},
    {.col = AC_USER_AGENT_ID, .how = LOAD_ID, .at = LOAD_EV(user_agent)},
    {.col = AC_CODE, .how = LOAD_INT_SET, .at = LOAD_EV(code)},
    {.col = AC_STATUS_ID, .how = LOAD_ID, .at = LOAD_EV(status)},
    {.col = AC_REASON_ID, .how = LOAD_ID, .at = LOAD_EV(reason)},
    {.col = AC_MESSAGE_ID, .how = LOAD_ID, .at = LOAD_EV(message)},
    {.col = AC_LATENCY_US, .how = LOAD_BEFORE, .at = LOAD_EV(received_us)},
    {.col = AC_STAGE_US, .how = LOAD_I64, .at = LOAD_EV(stage_us)},
    {.col = AC_AUTHZ_DECISION_ID, .how = LOAD_ID, .at = LOAD_EV(authz_decision)},
    {.col = AC_AUTHZ_REASON_ID, .how = LOAD_ID, .at = LOAD_EV(authz_reason)},
    {.col = AC_LEASE_HOLDER_ID, .how = LOAD_ID, .at = LOAD_EV(lease_holder)},
    {.col = AC_LEASE_DURATION_S, .how = LOAD_I64_NONNEG, .at = LOAD_EV(lease_duration_s)},
    {.col = AC_LEASE_RENEW_US, .how = LOAD_I64_SET, .at = LOAD_EV(lease_renew_us)},
    {.col = AC_LEASE_ACQUIRE_US, .how = LOAD_I64_SET, .at = LOAD_EV(lease_acquire_us)},
    {.col = AC_LEASE_TRANSITIONS, .how = LOAD_I64_NONNEG, .at = LOAD_EV(lease_transitions)},
    {.col = AC_IDENTITY_ID, .how = LOAD_ID, .at = LOAD_EV(identity)},
};

#define LOAD_NFIELDS (sizeof load_fields / sizeof *load_fields)

static struct lt_str load_str_of(const struct lt_audit_event *ev, size_t at)
{
	return *(const struct lt_str *)(const void *)((const char *)ev + at);
}

static int64_t load_i64_of(const struct lt_audit_event *ev, size_t at)
{
	return *(const int64_t *)(const void *)((const char *)ev + at);
}

/*
 * Interns the event's repeated strings (LOAD_ID) into ids[column]; 0 for an absent one.  One
 * batch an event, in column order: the memos' misses are prefetched together (index-intern.c).
 */
static int load_intern(struct load *l, const struct lt_audit_event *ev, int64_t ids[AC_COUNT])
{
	struct index_intern_req r[LOAD_NFIELDS];
	size_t n = 0;

	for (size_t i = 0; i < LOAD_NFIELDS; i++) {
		const struct load_field *f = &load_fields[i];

		if (f->how == LOAD_ID)
			r[n++] = (struct index_intern_req){.memo = &l->memo[f->col],
							   .s = load_str_of(ev, f->at),
							   .id = &ids[f->col]};
	}
	return index_intern_ids_memo(l->st, r, n, l->err);
}

/* Binds v to ins_audit's parameter col unless it holds v already. */
static void load_bind_i64(struct load *l, enum load_audit_col col, int64_t v)
{
	index_held_int(l->ins_audit, &l->bound[col], col, v);
}

static void load_bind_null(struct load *l, enum load_audit_col col)
{
	index_held_null(l->ins_audit, &l->bound[col], col);
}

/* Binds an integer, or NULL when set is 0. */
static void load_bind_i64_if(struct load *l, enum load_audit_col col, int set, int64_t v)
{
	if (set)
		load_bind_i64(l, col, v);
	else
		load_bind_null(l, col);
}

/* Binds one field as its row of load_fields says; an absent value is NULL. */
static void load_bind_field(struct load *l, const struct load_field *f,
			    const struct lt_audit_event *ev, const int64_t ids[AC_COUNT])
{
	sqlite3_stmt *s = l->ins_audit;
	struct lt_str v;
	int64_t n;

	switch (f->how) {
	case LOAD_ID:
		load_bind_i64_if(l, f->col, ids[f->col] != 0, ids[f->col]);
		break;
	case LOAD_STR:
	case LOAD_AUDIT_ID:
		v = load_str_of(ev, f->at);
		l->bound[f->col].held = INDEX_HELD_OTHER;
		if (v.ptr == NULL)
			sqlite3_bind_null(s, f->col);
		else if (f->how == LOAD_STR)
			sqlite3_bind_text(s, f->col, v.ptr, (int)v.len, SQLITE_STATIC);
		else
			index_audit_id_bind(s, f->col, v.ptr, v.len, l->audit_id);
		break;
	case LOAD_BEFORE:
		load_bind_i64(l, f->col, ev->stage_us - load_i64_of(ev, f->at));
		break;
	case LOAD_INT_SET:
		n = *(const int *)(const void *)((const char *)ev + f->at);
		load_bind_i64_if(l, f->col, n != 0, n);
		break;
	default:
		n = load_i64_of(ev, f->at);
		load_bind_i64_if(l, f->col,
				 f->how == LOAD_I64 || (f->how == LOAD_I64_SET && n != 0) ||
				     (f->how == LOAD_I64_NONNEG && n >= 0),
				 n);
		break;
	}
}

/* Binds every parameter of ins_audit but akey. */
static void load_bind_event(struct load *l, const struct lt_audit_event *ev,
			    const struct lt_where *at, const int64_t ids[AC_COUNT])
{
	load_bind_i64(l, AC_SOURCE_ID, l->source_id);
	load_bind_i64(l, AC_LINE, (int64_t)at->line);
	load_bind_i64(l, AC_OFFSET, (int64_t)at->offset);
	load_bind_i64(l, AC_STAGE_RANK, lt_audit_stage_rank(ev->stage));
	load_bind_i64(l, AC_CLUSTER_ID, l->cluster_id);
	for (size_t i = 0; i < LOAD_NFIELDS; i++)
		load_bind_field(l, &load_fields[i], ev, ids);
}

/* Runs ins_audit, its bindings kept for the next row. */
static int load_step_audit(struct load *l)
{
	int rc = sqlite3_step(l->ins_audit);

	sqlite3_reset(l->ins_audit);
	return rc == SQLITE_DONE ? 0 : index_store_db_error(l->st, l->err, "cannot store an event");
}

/*
 * The request's dedupe key, laid out so that a log's requests land nearly
 * in order in the key index (random keys made every insert touch a random
 * page once the index outgrew the cache):
 *
 *   bits 62..31  the second the request was received, shared by its stages
 *                (events without requestReceivedTimestamp: 32 more hash bits)
 *   bits 30..5   26 bits of a hash of the auditID: the request's group
 *   bits  4..3   the probe: 0, or 1..3 when another request held the slot
 *   bits  2..0   the stage
 */
static int64_t load_akey(const struct lt_audit_event *ev, int64_t cluster_id)
{
	static const char *const stages[] = {"RequestReceived", "ResponseStarted",
					     "ResponseComplete", "Panic"};
	uint64_t h = 0xcbf29ce484222325ULL, prefix;
	int code = ev->stage.ptr ? 5 : 4;

	for (size_t i = 0; i < ev->audit_id.len; i++)
		h = (h ^ (unsigned char)ev->audit_id.ptr[i]) * 0x100000001b3ULL;
	/* two clusters' requests are two requests, whatever their auditIDs (0: as before) */
	h ^= (uint64_t)cluster_id * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 29;
	for (int i = 0; i < 4; i++)
		if (lt_str_eq(ev->stage, stages[i]))
			code = i;
	prefix = h >> 32;
	if (ev->received_given && ev->received_us >= 0)
		prefix = (uint64_t)(ev->received_us / 1000000) & 0xffffffffULL;
	return (int64_t)(prefix << 31 | (h & ((1ULL << 26) - 1)) << 5 | (uint64_t)code);
}

/* After an insert was ignored: 1 when the row holding akey is this request and stage. */
static int load_is_duplicate(struct load *l, int64_t akey, const struct lt_audit_event *ev,
			     int64_t stage_id)
{
	unsigned char packed[INDEX_AUDIT_ID_BYTES];
	int same = 0;

	sqlite3_bind_int64(l->find_key, 1, akey);
	index_audit_id_bind(l->find_key, 2, ev->audit_id.ptr, ev->audit_id.len, packed);
	if (stage_id != 0)
		sqlite3_bind_int64(l->find_key, 3, stage_id);
	sqlite3_bind_int64(l->find_key, 4, l->cluster_id);
	if (sqlite3_step(l->find_key) == SQLITE_ROW)
		same = sqlite3_column_int(l->find_key, 0);
	sqlite3_reset(l->find_key);
	sqlite3_clear_bindings(l->find_key);
	return same;
}

/*
 * Inserts the bound event.  A slot held by another request (two requests of
 * one second sharing 26 hash bits) sends it to the next probe; a re-ingest
 * walks the same probes, so dedupe stays exact.  With all four held, the
 * event is stored without a key.
 */
static int load_insert(struct load *l, const struct lt_audit_event *ev, const struct lt_where *at,
		       const int64_t ids[AC_COUNT], int *stored)
{
	int64_t akey = ev->audit_id.ptr ? load_akey(ev, l->cluster_id) : 0;

	*stored = 1;
	load_bind_event(l, ev, at, ids);
	for (int probe = 0; probe < 4; probe++, akey += 8) {
		load_bind_i64_if(l, AC_AKEY, akey != 0, akey);
		if (load_step_audit(l) != 0)
			return LT_ERR_DB;
		if (akey == 0 || sqlite3_changes(l->st->db) > 0)
			return 0;
		if (load_is_duplicate(l, akey, ev, ids[AC_STAGE_ID])) {
			*stored = 0;
			return 0;
		}
	}
	load_bind_null(l, AC_AKEY);
	return load_step_audit(l);
}

/*
 * The CloudWatch eventId / @ptr and stream of the event just stored, when it has them
 * (schema 10: the id packed where it is all digits, index_ext_id_bind; the stream interned).
 */
static int load_ext(struct load *l, const struct lt_where *at)
{
	/* before interning, which may insert into strs */
	int64_t id = sqlite3_last_insert_rowid(l->st->db), stream_id = 0;

	if (at->ext_id.ptr == NULL && at->stream.ptr == NULL)
		return 0;
	if (index_intern_id_memo(l->st, &l->stream_memo, at->stream, &stream_id, l->err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_int64(l->ins_ext, 1, id);
	index_ext_id_bind(l->ins_ext, 2, at->ext_id.ptr, at->ext_id.len, l->ext_id);
	if (stream_id != 0)
		sqlite3_bind_int64(l->ins_ext, 3, stream_id);
	return load_step(l, l->ins_ext, "cannot store CloudWatch provenance");
}

/* Stores one event and its raw JSON; a repeat of a stored request is a duplicate. */
static int load_store_event(struct load *l, const struct lt_audit_event *ev,
			    const struct lt_where *at)
{
	int64_t ids[AC_COUNT] = {0};
	int stored;

	if (index_cluster_id(&l->cluster, l->st, at, 1, &l->cluster_id, l->err) != 0 ||
	    load_intern(l, ev, ids) != 0 || load_insert(l, ev, at, ids, &stored) != 0)
		return LT_ERR_DB;
	if (!stored) {
		l->rep.duplicates++;
		return 0;
	}
	if (lt_audit_stage_rank(ev->stage) < 2 && ev->audit_id.ptr != NULL)
		l->partial_stages = 1;
	if (ev->has_lease)
		l->lease_bodies = 1;
	if (index_raw_put(&l->raw, sqlite3_last_insert_rowid(l->st->db), ev->raw.ptr, ev->raw.len,
			  l->err) != 0 ||
	    load_ext(l, at) != 0)
		return LT_ERR_DB;
	if (l->audit_hi == 0 || ev->stage_us < l->audit_lo)
		l->audit_lo = ev->stage_us;
	if (ev->stage_us > l->audit_hi)
		l->audit_hi = ev->stage_us;
	l->rep.stored++;
	return 0;
}

/* A log line (coded: its fields compressed by the parser's thread, or NULL). */
static int load_log_coded(const struct lt_log_line *ln, const struct lt_where *at,
			  const struct index_raw_coded *coded, void *ctx)
{
	struct load *l = ctx;
	int stored;

	if (l->logs == NULL &&
	    index_log_loader_new(&l->logs, l->st, l->source_id, l->opts->node, l->err) != 0)
		return LT_ERR_DB;
	if (index_cluster_id(&l->cluster, l->st, at, 0, &l->cluster_id, l->err) != 0 ||
	    index_log_loader_store(l->logs, ln, at, l->cluster_id, coded, &stored) != 0)
		return LT_ERR_DB;
	if (stored) {
		l->rep.stored++;
		l->rep.lines++;
	} else {
		l->rep.duplicates++;
	}
	l->tail_reject = 0;
	return load_tick(l, at);
}

/* Node health's narrow default: a pod DELETE by the node lifecycle controller's identity is
 * a taint-based eviction (the taint-eviction controller uses it too); docs/node-health.md. */
static int load_is_eviction(const struct lt_audit_event *ev)
{
	return lt_str_eq(ev->resource, "pods") && ev->subresource.len == 0 &&
	       lt_str_eq(ev->verb, "delete") &&
	       lt_str_eq(ev->username, "system:serviceaccount:kube-system:node-controller");
}

static int load_log(const struct lt_log_line *ln, const struct lt_where *at, void *ctx)
{
	return load_log_coded(ln, at, NULL, ctx);
}

/* 1 when the event is stored (unless a duplicate), else counted; reads only the options. */
static int load_keeps(const struct lt_audit_event *ev, void *ctx)
{
	const struct load *l = ctx;

	return l->opts->all_resources || lt_str_eq(ev->resource, "leases") ||
	       lt_str_eq(ev->resource, "nodes") || load_is_eviction(ev);
}

static int load_audit(const struct lt_audit_event *ev, const struct lt_where *at, void *ctx)
{
	struct load *l = ctx;
	int wanted = load_keeps(ev, ctx);
	int first;

	if (!wanted) {
		l->rep.skipped++;
		if (load_first_count(l, ev, &first) != 0)
			return LT_ERR_DB;
		if (first)
			load_count(l, ev->resource, ev->verb);
	} else if (load_store_event(l, ev, at) != 0) {
		return LT_ERR_DB;
	}
	l->tail_reject = 0;
	return load_tick(l, at);
}

/* The fields writer's dictionary, for the parser's thread to compress with (index-pipe.c). */
static void load_share(struct index_raw_share *out, void *ctx)
{
	const struct load *l = ctx;

	*out = (struct index_raw_share){0};
	if (l->logs != NULL)
		index_log_loader_share(l->logs, out);
}

static const struct index_pipe_prep load_prep = {
    .log = load_log_coded,
    .share = load_share,
};

static void load_progress(uint64_t done, uint64_t size, void *ctx)
{
	struct load *l = ctx;
	struct lt_ingest_progress p = {l->rep.path, done, size, l->rep.records};

	l->rep.bytes = done;
	if (l->opts->on_progress)
		l->opts->on_progress(&p, l->opts->ctx);
}

/* Restores the counters and resume offset of source id, to go on with it. */
static int load_continue(struct load *l, int64_t id)
{
	sqlite3_stmt *q;
	int rc;

	if (index_store_prepare_raw(
		l->st, &q,
		"SELECT resume_offset, records, stored, duplicates, skipped, rejected,"
		" open_end, (SELECT lines FROM log_sources WHERE source_id = ?1)"
		" FROM sources WHERE id = ?1",
		l->err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_int64(q, 1, id);
	if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		l->source_id = id;
		l->resume_offset = (uint64_t)sqlite3_column_int64(q, 0);
		l->next_offset = l->resume_offset;
		l->rep.records = (uint64_t)sqlite3_column_int64(q, 1);
		l->rep.stored = (uint64_t)sqlite3_column_int64(q, 2);
		l->rep.duplicates = (uint64_t)sqlite3_column_int64(q, 3);
		l->rep.skipped = (uint64_t)sqlite3_column_int64(q, 4);
		l->rep.rejected = (uint64_t)sqlite3_column_int64(q, 5);
		l->rep.lines = (uint64_t)sqlite3_column_int64(q, 7);
		/* the line cut off by the old end is read again: it no longer counts as rejected */
		if (sqlite3_column_int(q, 6) && l->rep.records > 0 && l->rep.rejected > 0) {
			l->rep.records--;
			l->rep.rejected--;
		}
	}
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 0 : index_store_db_error(l->st, l->err, "cannot read the source");
}

static int load_new_source(struct load *l, struct lt_input *in)
{
	sqlite3_stmt *q;
	int rc;

	if (index_store_prepare_raw(l->st, &q,
				    "INSERT INTO sources(path, gzip, size, mtime, started_us)"
				    " VALUES(?1, ?2, ?3, ?4, ?5)",
				    l->err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_text(q, 1, l->rep.path, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 2, lt_input_is_gzip(in));
	sqlite3_bind_int64(q, 3, (sqlite3_int64)lt_input_size(in));
	sqlite3_bind_int64(q, 4, lt_input_mtime(in));
	sqlite3_bind_int64(q, 5, load_now_us());
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return index_store_db_error(l->st, l->err, "cannot record the source");
	l->source_id = sqlite3_last_insert_rowid(l->st->db);
	return 0;
}

static void load_report(struct load *l, enum lt_file_status status, const char *detail,
			struct lt_ingest_totals *t)
{
	l->rep.status = status;
	l->rep.detail = detail ? detail : "";
	l->rep.source_id = l->source_id;
	t->files++;
	t->files_duplicate += status == LT_FILE_DUPLICATE;
	t->files_not_log += status == LT_FILE_NOT_LOG;
	t->files_failed += status == LT_FILE_FAILED;
	t->files_truncated += status == LT_FILE_TRUNCATED;
	if (status != LT_FILE_DUPLICATE) {
		t->bytes += l->rep.bytes;
		t->records += l->rep.records;
		t->stored += l->rep.stored;
		t->duplicates += l->rep.duplicates;
		t->skipped += l->rep.skipped;
		t->rejected += l->rep.rejected;
		t->lines += l->rep.lines;
	}
	if (l->opts->on_file)
		l->opts->on_file(&l->rep, l->opts->ctx);
}

/* The stored audit events' time range, for the year of year-less log times; 0s when none. */
static void load_audit_range(struct load *l, int64_t *lo, int64_t *hi)
{
	sqlite3_stmt *q;

	*lo = *hi = 0;
	if (index_store_prepare_raw(
		l->st, &q,
		"SELECT (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'audit_lo'),"
		" (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'audit_hi')",
		NULL) != 0)
		return;
	if (sqlite3_step(q) == SQLITE_ROW) {
		*lo = sqlite3_column_int64(q, 0);
		*hi = sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
}

/* On resume: the rejects of records it reads again (a line cut off by the file's end). */
static int load_drop_open_rejects(struct load *l)
{
	sqlite3_stmt *q;
	int rc;

	if (index_store_prepare_raw(l->st, &q,
				    "DELETE FROM rejects WHERE source_id = ?1 AND offset >= ?2",
				    l->err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_int64(q, 1, l->source_id);
	sqlite3_bind_int64(q, 2, (sqlite3_int64)l->resume_offset);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0
				 : index_store_db_error(l->st, l->err, "cannot resume the source");
}

/* Parses the input inside transactions; returns the parse result. */
static int load_run(struct load *l, struct lt_input *in, int resume, enum lt_format *fmt,
		    struct lt_error *perr)
{
	struct lt_sink sink = {.audit = load_audit,
			       .log = load_log,
			       .reject = load_reject,
			       .progress = load_progress,
			       .mark = load_mark,
			       .resume_offset = l->resume_offset,
			       .year = l->opts->year,
			       .utc_offset_us = l->opts->utc_offset_us,
			       .utc_offset_given = l->opts->utc_offset_given};
	int rc;

	load_audit_range(l, &sink.year_lo_us, &sink.year_hi_us);
	if (index_store_exec(l->st, "BEGIN IMMEDIATE", l->err) != 0)
		return LT_ERR_DB;
	if (!resume && load_new_source(l, in) != 0)
		return LT_ERR_DB;
	if (resume && load_drop_open_rejects(l) != 0)
		return LT_ERR_DB;
	l->raw.source_id = l->source_id; /* known now: the dictionaries' owner */
	l->since_id = lt_store_last_event_id(l->st);
	l->partial_stages = load_has_partial_stages(l);
	rc = index_pipe_parse(in, &sink, &load_prep, l, fmt, perr);
	l->rep.bytes = lt_input_consumed(in);
	if (rc == 0 || rc == LT_ERR_TRUNCATED)
		lt_input_mark(in, &l->mark); /* all of it: the file's identity */
	/*
	 * A last record rejected as cut off, in a file ending inside a line, may be
	 * a log line still being written: it counts as rejected, but the source
	 * resumes at it (open_end), so when the file grows it is read again, whole.
	 */
	if (rc == 0 && l->identity && l->tail_reject > 0 && lt_input_ends_open(in)) {
		l->open_end = 1;
		l->next_offset = l->tail_reject - 1;
	}
	return rc;
}

/* A file that cannot be read: reported, and the reason in err for the caller to print. */
static int load_failed(struct load *l, const struct lt_error *perr, struct lt_ingest_totals *t)
{
	load_report(l, LT_FILE_FAILED, perr->msg, t);
	if (l->err != NULL)
		*l->err = *perr;
	return LT_ERR_IO;
}

/*
 * The store failed (a full disk): what the last batch did is rolled back, and
 * the file is reported with what was committed before, so the summary counts it.
 */
static int load_store_failed(struct load *l, struct lt_ingest_totals *t)
{
	uint64_t bytes = l->rep.bytes;

	index_store_exec(l->st, "ROLLBACK", NULL);
	index_intern_clear(&l->st->strs);
	l->rep = l->committed;
	l->rep.bytes = bytes;
	load_report(l, LT_FILE_FAILED, l->err ? l->err->msg : "the store failed", t);
	return LT_ERR_DB;
}

/* Commits or rolls back after the parse, and reports the file. */
static int load_finish(struct load *l, int rc, int resume, const char *detail,
		       const struct lt_error *perr, struct lt_ingest_totals *t)
{
	enum lt_file_status ok = resume ? LT_FILE_RESUMED : LT_FILE_INGESTED;

	if (rc == LT_ERR_DB)
		return load_store_failed(l, t);
	if (rc == LT_ERR_FORMAT) {
		index_store_exec(l->st, "ROLLBACK", NULL);
		index_intern_clear(&l->st->strs);
		l->source_id = 0;
		/* nothing of it counts: not what a source it continued had read before either */
		l->rep.records = l->rep.stored = l->rep.duplicates = 0;
		l->rep.skipped = l->rep.rejected = 0;
		load_report(l, LT_FILE_NOT_LOG, perr->msg, t);
		return 0;
	}
	if (rc == 0 || rc == LT_ERR_TRUNCATED) {
		if (load_commit(l, rc ? "truncated" : "complete", rc ? perr->msg : NULL, 0) != 0)
			return load_store_failed(l, t);
		load_report(l, rc ? LT_FILE_TRUNCATED : ok, rc ? perr->msg : detail, t);
		return 0;
	}
	/* a read error: keep what was read, resumable, and say so */
	if (load_commit(l, "ingesting", perr->msg, 0) != 0)
		return load_store_failed(l, t);
	return load_failed(l, perr, t);
}

/* True when path is stdin, a pipe (`<(cmd)`, a FIFO) or a device: read once, as it streams. */
static int load_is_stream(const char *path)
{
	struct stat sb;

	return strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode);
}

/* True when path is a regular file whose content is a text log. */
static int load_is_text_log(const char *path)
{
	enum lt_format fmt;

	return lt_sniff_path(&fmt, path, NULL) == 0 && fmt == LT_FMT_TEXT;
}

/* Looks the file up by content: 1 nothing to do, 2 go on with a source, 0 new; <0 error. */
static int load_identify(struct load *l, const char *path, char *detail, size_t cap,
			 struct lt_error *perr)
{
	struct index_ident_match m;
	int rc = index_ident_find(&m, l->st, path, perr);

	if (rc != 0)
		return rc;
	if (m.verdict == INDEX_IDENT_SAME) {
		l->source_id = m.source_id;
		return 1;
	}
	if (m.verdict == INDEX_IDENT_NEW)
		return 0;
	if (load_continue(l, m.source_id) != 0) {
		if (l->err != NULL)
			*perr = *l->err; /* index_load_file reports perr */
		return LT_ERR_DB;
	}
	if (m.grown)
		snprintf(detail, cap, "grew since it was read: read on after its first %llu bytes",
			 (unsigned long long)m.len);
	return 2;
}

int index_load_file(struct lt_store *st, const char *path, const struct lt_ingest_opts *opts,
		    struct lt_ingest_totals *totals, struct lt_error *err)
{
	struct load l = {.st = st, .opts = opts, .err = err, .rep = {.path = path}};
	struct lt_error perr = {0};
	struct lt_input *in = NULL;
	enum lt_format fmt = LT_FMT_UNKNOWN;
	char detail[128] = "";
	int found = 0, rc;

	assert(st != NULL && path != NULL && opts != NULL && totals != NULL);
	index_cluster_init(&l.cluster, opts->cluster, path);
	l.identity = !load_is_stream(path);
	if (l.identity && opts->on_text_log != NULL && load_is_text_log(path)) {
		opts->on_text_log(path, opts->ctx);
		return 0;
	}
	if (l.identity && (found = load_identify(&l, path, detail, sizeof detail, &perr)) < 0) {
		if (found != LT_ERR_DB)
			return load_failed(&l, &perr, totals);
		load_failed(&l, &perr, totals); /* the store's error, in err as for a file */
		return LT_ERR_DB;
	}
	if (found == 1) {
		load_report(&l, LT_FILE_DUPLICATE, "same content already ingested", totals);
		return 0;
	}
	if (lt_input_open(&in, path, &perr) != 0)
		return load_failed(&l, &perr, totals);
	l.committed = l.rep;
	index_raw_writer_init(&l.raw, st, INDEX_RAW_AUDIT, 0);
	rc = load_prepare(&l);
	if (rc == 0)
		rc = load_run(&l, in, found == 2, &fmt, &perr);
	rc = load_finish(&l, rc, found == 2, detail, &perr, totals);
	load_release(&l);
	lt_input_free(in);
	return rc;
}
