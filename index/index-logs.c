/*
 * index-logs.c - storing log lines.
 *
 * A line is a duplicate when the store held, before its file's load began,
 * as many lines that say the same (both times, host, pid, message, fields)
 * on its node as there are identical lines just before it in the file, plus
 * one: the same line in two overlapping exports is stored once, while a
 * kubelet repeating itself within one file keeps every repeat.  Schema 11
 * finds them through lines_node(node_id, ts_d), the index every timeline
 * reads, comparing the lines' own values (the message and fields read from
 * their raw lines): no key is stored.  A load into a store without lines
 * probes nothing (lines_node is then built after the load, by sorting).
 *
 * A host already mapped to a node (lt_store_map_hosts, index-hosts.c) has its
 * later lines stored under its node (logs_node).
 */
#define _GNU_SOURCE /* memmem */
#include "index-int.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOGS_SKEW_US (2 * 1000000LL) /* journal and klog times further apart disagree */
/* a stored line's message: its text, or read from its raw line (schema 8) */
#define LOGS_MSG LT_LINE_MESSAGE_SQL("lines")
/* its fields: text, packed, or read from its raw line where they are a mark (schema 10) */
#define LOGS_FLD LT_LINE_FIELDS_SQL("lines")

#define LOGS_PARAMS 28 /* the statements' highest parameter */
/*
 * The hosts a load remembers having noted (logs_note_host): a journal merged from many nodes
 * changes host nearly every line.  Filled to half at most (LOGS_NOTED_SLOTS / 2 hosts, 128 KiB);
 * a host past that is noted by its insert, which ignores one already there.
 */
#define LOGS_NOTED_SLOTS 16384

/*
 * An insert with its parameters as held since the line before (index_held_*): most of a
 * journal line's columns repeat the line before's (source, host, node, component, ident, pid,
 * basis, line_d).
 */
struct logs_stmt {
	sqlite3_stmt *s;
	struct index_held_param p[LOGS_PARAMS + 1];
};

struct index_log_loader {
	struct lt_store *st;
	struct lt_error *err;
	int64_t source_id;
	int64_t node_id;		/* --node, 0 when none */
	struct logs_stmt ins, ins_more; /* lines_row, lines_more: bindings kept (logs_put_*) */
	struct index_intern_memo
	    memo[9]; /* logs_intern's strings: the last line's (logs_memoized) */
	sqlite3_stmt *ins_host, *save;
	sqlite3_stmt *seen, *host_node; /* the dedupe probe, and a host's mapped node */
	int64_t start_id;		/* lines below it were stored before this load: 0, none */
	int64_t next_id;		/* the id the next line stored takes (logs_line_d) */
	int64_t map_host, map_node;	/* host_node's last answer */
	struct index_raw_writer raw;	/* lines_raw, compressed (index-raw.c) */
	struct index_raw_writer fields; /* lines.fields, compressed alike */
	const void *packed;		/* the line's fields packed, or NULL: text */
	size_t packed_len;
	int mark;			 /* the line's fields are stored as decoder 1's mark */
	struct index_fields_check check; /* decoder 1's buffers (index-fields.c) */
	uint64_t last_hash;		 /* of the previous line, for counting repeats */
	int last_hashed;		 /* last_hash is set */
	uint32_t repeat;
	int64_t *noted; /* hosts this load put in the hosts table: LOGS_NOTED_SLOTS ids, 0 free */
	size_t nnoted;
	uint64_t lines, skew;
	int64_t first_us, last_us;
	int64_t first_id, last_id;  /* the source's lines lie in this id range */
	struct lt_time_basis basis; /* the year and zone every stored line of the source rests on */
	int basis_set;		    /* basis.zone is set (year when basis.year > 0) */
	int zone_used;		    /* some line's time rests on the zone (else each has its own) */
	/* evidence from the lines: the year their written dates imply, votes for the zone's
	 * meanings (times written with a zone next to the line's own) */
	int said_year;
	int64_t said_zone;
	int said_zone_set;
	uint32_t votes[LT_ZONE_MEANINGS];
	struct lt_zone_name zone;
	char *host;
	char *node;
};

/*
 * A line's row (schema 12): the columns nearly every line has in lines_row; its rare ones
 * (logs_ins_more_sql, the parameters ?17-?19, ?21, ?23, ?24 of the same binding) in
 * lines_more, only when it has one (logs_has_rare).  The parameters keep one numbering across
 * both (logs_bind_row binds lines_row's, logs_bind_more lines_more's: each binds only its
 * statement's own, and only where the value is not the one it holds, logs_put_*).  The row's id is
 * SQLite's (one past the largest: an id bound costs the insert a seek, 2 500 instructions a line),
 * which the line's number, stored as a distance from it (schema 13, logs_line_d), foresees:
 * ll->next_id.
 */
static const char logs_ins_sql[] =
    "INSERT INTO lines_row(source_id, line_d, offset, ts_d, klog_d, basis,"
    " host_id, node_id, component_id, ident_id, pid, severity, location_id, kind_id,"
    " subject_id, not_found, fields, cluster_id, msg_at, msg_len) VALUES(?1, ?2, ?3, ?5, ?6,"
    " ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?20, ?22, ?25, ?26, ?27)";
/* The line's number again, when its id was not the one foreseen (logs_line_d). */
static const char logs_renumber_sql[] = "UPDATE lines_row SET line_d = ?2 WHERE id = ?1";
static const char logs_ins_more_sql[] =
    "INSERT INTO lines_more(id, obj_kind_id, obj_namespace_id, obj_uid, message, ext_id,"
    " stream_id) VALUES(?28, ?17, ?18, ?19, ?21, ?23, ?24)";
/*
 * The dedupe probe: how many lines stored before this load (id < ?3), at most ?9, say what the
 * line says on node ?1 at ?2 (lines_node's key; a line without node has node_id NULL).  The
 * cheap columns first: the message and fields are read from a raw line only for a line of the
 * same node, time, pid and host.
 */
#define LOGS_KLOG INDEX_KLOG_US_SQL("")
static const char logs_seen_sql[] =
    "SELECT count(*) FROM (SELECT 1 FROM lines WHERE id IN (SELECT id FROM lines_row"
    " INDEXED BY lines_node WHERE node_id IS ?1 AND ts_d = ?2 AND id < ?3 AND pid IS ?4"
    " AND host_id IS ?5) AND " LOGS_KLOG " IS ?6 AND " LOGS_MSG " IS ?7 AND " LOGS_FLD " IS ?8"
    " LIMIT ?9)";
/* the node a host's lines were moved to (lt_store_map_hosts), when it was */
static const char logs_host_node_sql[] = "SELECT node_id FROM hosts WHERE host_id = ?1";

/* A source read on (resumed, or grown since): its summary so far is the start of this one. */
static const char logs_restore_sql[] =
    "SELECT lines, klog_skew, coalesce(first_us, 0), coalesce(last_us, 0), coalesce(first_id, 0),"
    " coalesce(last_id, 0), coalesce(year, 0), coalesce(year_rule_id, 0), year_raised,"
    " coalesce(first_local, 0), coalesce(head_lo, 0), coalesce(head_hi, 0), coalesce(mtime, 0),"
    " zone_us, zone_rule_id, coalesce(zone_name, ''), coalesce(said_year, 0), said_zone, host,"
    " zone"
    " FROM log_sources WHERE source_id = ?1";

enum logs_restore_col {
	LR_LINES,
	LR_SKEW,
	LR_FIRST_US,
	LR_LAST_US,
	LR_FIRST_ID,
	LR_LAST_ID,
	LR_YEAR,
	LR_YEAR_RULE,
	LR_YEAR_RAISED,
	LR_FIRST_LOCAL,
	LR_HEAD_LO,
	LR_HEAD_HI,
	LR_MTIME,
	LR_ZONE_US,
	LR_ZONE_RULE,
	LR_ZONE_NAME,
	LR_SAID_YEAR,
	LR_SAID_ZONE,
	LR_HOST,
	LR_ZONE_TEXT,
};

static void logs_restore_basis(struct index_log_loader *ll, sqlite3_stmt *q)
{
	struct lt_time_basis *b = &ll->basis;
	const char *name = (const char *)sqlite3_column_text(q, LR_ZONE_NAME);
	const char *host = (const char *)sqlite3_column_text(q, LR_HOST);

	b->year = sqlite3_column_int(q, LR_YEAR);
	b->year_rule = (enum lt_year_rule)sqlite3_column_int(q, LR_YEAR_RULE);
	b->year_raised = sqlite3_column_int(q, LR_YEAR_RAISED);
	b->first_local = sqlite3_column_int64(q, LR_FIRST_LOCAL);
	b->head_lo = sqlite3_column_int64(q, LR_HEAD_LO);
	b->head_hi = sqlite3_column_int64(q, LR_HEAD_HI);
	b->mtime_s = sqlite3_column_int64(q, LR_MTIME);
	b->zone_us = sqlite3_column_int64(q, LR_ZONE_US);
	b->zone_rule = (enum lt_zone_rule)sqlite3_column_int(q, LR_ZONE_RULE);
	snprintf(b->zone_name, sizeof b->zone_name, "%s", name ? name : "");
	lt_zone_lookup(&ll->zone, b->zone_name, strlen(b->zone_name));
	ll->basis_set = 1;
	ll->said_year = sqlite3_column_int(q, LR_SAID_YEAR);
	ll->said_zone_set = sqlite3_column_type(q, LR_SAID_ZONE) != SQLITE_NULL;
	ll->said_zone = sqlite3_column_int64(q, LR_SAID_ZONE);
	ll->host = host ? lt_xstrdup(host) : NULL;
	ll->zone_used = sqlite3_column_type(q, LR_ZONE_TEXT) != SQLITE_NULL;
}

static int logs_restore(struct index_log_loader *ll)
{
	sqlite3_stmt *q;

	if (index_store_prepare_raw(ll->st, &q, logs_restore_sql, ll->err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_int64(q, 1, ll->source_id);
	if (sqlite3_step(q) == SQLITE_ROW) {
		ll->lines = (uint64_t)sqlite3_column_int64(q, LR_LINES);
		ll->skew = (uint64_t)sqlite3_column_int64(q, LR_SKEW);
		ll->first_us = sqlite3_column_int64(q, LR_FIRST_US);
		ll->last_us = sqlite3_column_int64(q, LR_LAST_US);
		ll->first_id = sqlite3_column_int64(q, LR_FIRST_ID);
		ll->last_id = sqlite3_column_int64(q, LR_LAST_ID);
		logs_restore_basis(ll, q);
	}
	sqlite3_finalize(q);
	return 0;
}

static const char logs_save_sql[] =
    "INSERT OR REPLACE INTO log_sources(source_id, lines, year, year_rule, first_us, last_us,"
    " klog_skew, node, year_rule_id, year_raised, year_guess, first_local, head_lo, head_hi,"
    " mtime, zone_us, zone_rule_id, zone_name, said_year, said_zone, host, first_id, last_id,"
    " zone, zone_from) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
    " ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)";

/*
 * The probe, when the store holds lines already (this load's own are never duplicates: a
 * repeat within one file is kept).  Their raw lines are in blocks: every load before this
 * one flushed its blocks at its last commit.  A bulk load into an empty store dropped
 * lines_node: a second file of that load builds it here (by sorting the first one's lines),
 * and it is kept up to date from then on.
 */
static int logs_prepare_probe(struct index_log_loader *ll)
{
	sqlite3_stmt *q;
	int rc;

	if (index_store_prepare_raw(ll->st, &q, "SELECT coalesce(max(id), 0) + 1 FROM lines_row",
				    ll->err) != 0)
		return LT_ERR_DB;
	rc = sqlite3_step(q);
	ll->start_id = rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
	ll->next_id = ll->start_id;
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW)
		return index_store_db_error(ll->st, ll->err, "cannot read the stored lines");
	if (ll->start_id <= 1) {
		ll->start_id = 0;
		return 0;
	}
	if (index_store_create_lines_node(ll->st, ll->err) != 0 ||
	    index_store_prepare_raw(ll->st, &ll->seen, logs_seen_sql, ll->err) != 0 ||
	    index_store_prepare_raw(ll->st, &ll->host_node, logs_host_node_sql, ll->err) != 0)
		return LT_ERR_DB;
	return 0;
}

int index_log_loader_new(struct index_log_loader **out, struct lt_store *st, int64_t source_id,
			 const char *node, struct lt_error *err)
{
	struct index_log_loader *ll = lt_xcalloc(1, sizeof *ll);

	ll->st = st;
	ll->err = err;
	ll->source_id = source_id;
	ll->node = node ? lt_xstrdup(node) : NULL;
	index_raw_writer_init(&ll->raw, st, INDEX_RAW_LINES, source_id);
	index_raw_writer_init(&ll->fields, st, INDEX_RAW_FIELDS, source_id);
	index_fields_check_init(&ll->check);
	if (node &&
	    index_intern_id(st, (struct lt_str){node, strlen(node)}, &ll->node_id, err) != 0)
		goto fail;
	if (index_store_prepare_raw(st, &ll->ins.s, logs_ins_sql, err) ||
	    index_store_prepare_raw(st, &ll->ins_more.s, logs_ins_more_sql, err) ||
	    index_store_prepare_raw(st, &ll->ins_host, "INSERT OR IGNORE INTO hosts VALUES(?1, ?1)",
				    err) ||
	    index_store_prepare_raw(st, &ll->save, logs_save_sql, err) || logs_restore(ll) ||
	    logs_prepare_probe(ll))
		goto fail;
	*out = ll;
	return 0;
fail:
	index_log_loader_free(ll);
	*out = NULL;
	return LT_ERR_DB;
}

void index_log_loader_free(struct index_log_loader *ll)
{
	if (ll == NULL)
		return;
	sqlite3_finalize(ll->ins.s);
	sqlite3_finalize(ll->ins_more.s);
	index_intern_memo_release(ll->memo, sizeof ll->memo / sizeof *ll->memo);
	index_raw_writer_release(&ll->raw);
	index_raw_writer_release(&ll->fields);
	index_fields_check_release(&ll->check);
	sqlite3_finalize(ll->ins_host);
	sqlite3_finalize(ll->save);
	sqlite3_finalize(ll->seen);
	sqlite3_finalize(ll->host_node);
	free(ll->noted);
	free(ll->node);
	free(ll->host);
	free(ll);
}

static uint64_t logs_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static uint64_t logs_fnv_str(uint64_t h, struct lt_str s)
{
	h = logs_fnv(h, &s.len, sizeof s.len);
	return s.ptr ? logs_fnv(h, s.ptr, s.len) : h;
}

/*
 * How many lines identical to ln came just before it in the file (a kubelet repeating itself
 * within one second): a hash of what it says and when, compared with the line before's.
 */
static void logs_count_repeat(struct index_log_loader *ll, const struct lt_log_line *ln)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = logs_fnv(h, &ln->ts_us, sizeof ln->ts_us);
	h = logs_fnv(h, &ln->klog_us, sizeof ln->klog_us);
	h = logs_fnv(h, &ln->pid, sizeof ln->pid);
	h = logs_fnv_str(h, ln->host);
	h = logs_fnv_str(h, ln->message);
	h = logs_fnv_str(h, ln->fields);
	ll->repeat = ll->last_hashed && h == ll->last_hash ? ll->repeat + 1 : 0;
	ll->last_hash = h;
	ll->last_hashed = 1;
}

static void logs_bind_str(sqlite3_stmt *s, int idx, struct lt_str v)
{
	if (v.ptr != NULL)
		sqlite3_bind_text(s, idx, v.ptr, (int)v.len, SQLITE_STATIC);
}

/*
 * The message: where it lies in the raw line (msg_at, msg_len), read back from lines_raw
 * (LT_LINE_MESSAGE_SQL), when it is a slice of it, as nearly every message is (the parser's
 * view into the line, or the same bytes found in it); its text when not (a quoted message
 * with escapes, unescaped) or when the line has no raw record.  Its byte in the raw line,
 * or -1 when it is not a slice of it (or there is no message).
 */
/*
 * The first occurrence of m[0..n), a slice of raw, in raw: no later than m, and nearly always
 * m itself (the bytes before it are the line's header), which each candidate's first byte
 * rules out at a memchr's cost.
 */
static ptrdiff_t logs_first_at(const char *raw, const char *m, size_t n)
{
	const char *p = raw, *c;

	while ((c = memchr(p, m[0], (size_t)(m - p))) != NULL) {
		if (memcmp(c, m, n) == 0)
			return c - raw;
		p = c + 1;
	}
	return m - raw;
}

ptrdiff_t index_log_message_at(const struct lt_log_line *ln)
{
	const char *raw = ln->raw.ptr, *at = NULL, *m = ln->message.ptr;
	const size_t n = ln->message.len;

	if (m == NULL || raw == NULL)
		return -1;
	if (ln->raw.len > 0 && m >= raw && n <= ln->raw.len && (size_t)(m - raw) <= ln->raw.len - n)
		return n > 0 ? logs_first_at(raw, m, n) : m - raw;
	if (n > 0)
		at = memmem(raw, ln->raw.len, m, n);
	return at == NULL ? -1 : at - raw;
}

/*
 * The fields (schema 10): the mark when the store's decoder rebuilds them from the raw line
 * after the message (index-fields.c), else packed by the fields' writer (or text).  Sets
 * ll->mark, or ll->packed.  The parser's thread made the check already (coded's verdict,
 * index-pipe.c) but for a line it leaves unchecked.
 */
static int logs_prepare_fields(struct index_log_loader *ll, const struct lt_log_line *ln,
			       ptrdiff_t msg_at, const struct index_raw_coded *coded)
{
	const enum index_fields_verdict v =
	    coded ? coded[INDEX_PIPE_FIELDS].verdict : INDEX_FIELDS_UNCHECKED;

	ll->mark =
	    v != INDEX_FIELDS_UNCHECKED
		? v == INDEX_FIELDS_MARK
		: msg_at >= 0 && index_fields_derives(&ll->check, ln->raw,
						      (size_t)msg_at + ln->message.len, ln->fields);
	ll->packed = NULL;
	if (ll->mark)
		return 0;
	return index_raw_pack_coded(&ll->fields, ln->fields.ptr, ln->fields.len,
				    coded ? &coded[INDEX_PIPE_FIELDS] : NULL, &ll->packed,
				    &ll->packed_len, ll->err);
}

/*
 * The strings logs_intern compares with the line before's first (ll->memo): a journal's
 * component and ident nearly always repeat it, its host in one node's journal (a merged one
 * changes host every line: a compare and a copy lost).  The others mostly differ (location,
 * kind, subject) or are NULL.
 */
static const unsigned char logs_memoized[9] = {1, 1, 1, 0, 0, 0, 0, 0, 0};

/* Interns the line's repeated strings; ids in the order of logs_bind_row's and
 * logs_bind_more's columns. */
static int logs_intern(struct index_log_loader *ll, const struct lt_log_line *ln,
		       const struct lt_where *at, int64_t ids[9])
{
	const char *kind = ln->kind ? ln->kind : NULL;
	const struct lt_str strs[9] = {
	    ln->host,
	    ln->component,
	    ln->ident,
	    ln->location,
	    {kind, kind ? strlen(kind) : 0},
	    ln->subject,
	    ln->obj_kind,
	    ln->obj_namespace,
	    at->stream,
	};

	for (int i = 0; i < 9; i++)
		if ((logs_memoized[i]
			 ? index_intern_id_memo(ll->st, &ll->memo[i], strs[i], &ids[i], ll->err)
			 : index_intern_id(ll->st, strs[i], &ids[i], ll->err)) != 0)
			return LT_ERR_DB;
	return 0;
}

/* Parameter idx of ls holds v, NULL, one byte of text (index_held_*). */
static void logs_put_int(struct logs_stmt *ls, int idx, int64_t v)
{
	index_held_int(ls->s, &ls->p[idx], idx, v);
}

static void logs_put_null(struct logs_stmt *ls, int idx)
{
	index_held_null(ls->s, &ls->p[idx], idx);
}

static void logs_put_byte(struct logs_stmt *ls, int idx, char c)
{
	index_held_byte(ls->s, &ls->p[idx], idx, c);
}

/* v, or NULL when v is 0 (an id, a node: 0 is none) */
static void logs_put_id(struct logs_stmt *ls, int idx, int64_t v)
{
	if (v != 0)
		logs_put_int(ls, idx, v);
	else
		logs_put_null(ls, idx);
}

/* Text in the line: bound for every line (its bytes are the line's, gone after it). */
static void logs_put_str(struct logs_stmt *ls, int idx, struct lt_str v)
{
	if (v.ptr == NULL) {
		logs_put_null(ls, idx);
		return;
	}
	sqlite3_bind_text(ls->s, idx, v.ptr, (int)v.len, SQLITE_STATIC);
	ls->p[idx].held = INDEX_HELD_OTHER;
}

/* The fields (?22): decoder 1's mark (an empty blob), packed, their text, or NULL. */
static void logs_put_fields(struct index_log_loader *ll, struct logs_stmt *ls,
			    const struct lt_log_line *ln)
{
	if (ll->mark) {
		index_held_zeroblob(ls->s, &ls->p[22], 22);
	} else if (ll->packed != NULL) {
		sqlite3_bind_blob(ls->s, 22, ll->packed, (int)ll->packed_len, SQLITE_STATIC);
		ls->p[22].held = INDEX_HELD_OTHER;
	} else {
		logs_put_str(ls, 22, ln->fields);
	}
}

/*
 * A line's time as lines_row stores it (schema 13): its distance from LT_LINE_EPOCH_US.  The
 * parsers' times lie between the years 1 and 9999 (lt_time_parse; a journal's and a JSON log's
 * epoch times are positive), so the difference cannot overflow.
 */
static int64_t logs_ts_d(int64_t ts_us)
{
	assert(ts_us >= INT64_MIN + LT_LINE_EPOCH_US);
	return ts_us - LT_LINE_EPOCH_US;
}

/*
 * A line's number as lines_row stores it (schema 13, LT_LINE_NUMBER_SQL): less how far its id
 * lies past its source's first line's (log_sources.first_id, the line's own id for the first
 * one), so the lines of a file stored one after another keep the distance of the file's first
 * (0 or 1: no byte) until a line of the file is not stored (a duplicate, a rejected line).
 */
static int64_t logs_line_d(const struct index_log_loader *ll, uint64_t line, int64_t id)
{
	return (int64_t)line - (id - (ll->first_id != 0 ? ll->first_id : id));
}

/*
 * 1 when the line has a value lines_more holds (schema 12): the object it names, a message
 * that is not a slice of its raw line, a CloudWatch line's event id or stream.
 */
static int logs_has_rare(const struct lt_log_line *ln, const struct lt_where *at,
			 const int64_t ids[9], ptrdiff_t msg_at)
{
	return ids[6] != 0 || ids[7] != 0 || ids[8] != 0 || ln->obj_uid.ptr != NULL ||
	       (ln->message.ptr != NULL && msg_at < 0) || at->ext_id.ptr != NULL;
}

/*
 * Binds lines_row's insert of the line (its parameters only: ?4, ?17-?19, ?21, ?23, ?24 are
 * lines_more's).  The message is a slice of the raw line (msg_at, msg_len) when msg_at >= 0,
 * else its text goes to lines_more.
 */
static void logs_bind_row(struct index_log_loader *ll, const struct lt_log_line *ln,
			  const struct lt_where *at, const int64_t ids[9], int64_t node,
			  ptrdiff_t msg_at, int64_t id, int64_t cluster_id)
{
	struct logs_stmt *s = &ll->ins;
	const int slice = ln->message.ptr != NULL && msg_at >= 0;

	logs_put_int(s, 1, ll->source_id);
	logs_put_int(s, 2, logs_line_d(ll, at->line, id));
	logs_put_int(s, 3, (int64_t)at->offset);
	logs_put_int(s, 5, logs_ts_d(ln->ts_us));
	/* the klog time as its distance from ts_us: mostly 0, which SQLite stores in no byte */
	if (ln->klog_us != 0)
		logs_put_int(s, 6, ln->klog_us - ln->ts_us);
	else
		logs_put_null(s, 6);
	logs_put_int(s, 7, (int64_t)ln->basis);
	logs_put_id(s, 8, ids[0]);
	logs_put_id(s, 9, node);
	logs_put_id(s, 10, ids[1]);
	logs_put_id(s, 11, ids[2]);
	if (ln->pid >= 0)
		logs_put_int(s, 12, ln->pid);
	else
		logs_put_null(s, 12);
	if (ln->severity != 0)
		logs_put_byte(s, 13, ln->severity);
	else
		logs_put_null(s, 13);
	logs_put_id(s, 14, ids[3]);
	logs_put_id(s, 15, ids[4]);
	logs_put_id(s, 16, ids[5]);
	logs_put_int(s, 20, ln->not_found);
	logs_put_fields(ll, s, ln);
	logs_put_int(s, 25, cluster_id);
	if (slice) {
		logs_put_int(s, 26, (int64_t)msg_at);
		logs_put_int(s, 27, (int64_t)ln->message.len);
	} else {
		logs_put_null(s, 26);
		logs_put_null(s, 27);
	}
}

/* Binds lines_more's insert of the line stored as id (logs_has_rare). */
static void logs_bind_more(struct index_log_loader *ll, const struct lt_log_line *ln,
			   const struct lt_where *at, const int64_t ids[9], ptrdiff_t msg_at,
			   int64_t id)
{
	struct logs_stmt *s = &ll->ins_more;

	logs_put_int(s, 28, id);
	logs_put_id(s, 17, ids[6]);
	logs_put_id(s, 18, ids[7]);
	logs_put_str(s, 19, ln->obj_uid);
	if (msg_at < 0)
		logs_put_str(s, 21, ln->message);
	else
		logs_put_null(s, 21);
	logs_put_str(s, 23, at->ext_id);
	logs_put_id(s, 24, ids[8]);
}

/* Steps an insert whose bindings are kept for the next line (logs_stmt). */
static int logs_step_kept(struct index_log_loader *ll, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : index_store_db_error(ll->st, ll->err, what);
}

static int logs_step(struct index_log_loader *ll, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? 0 : index_store_db_error(ll->st, ll->err, what);
}

/* How many lines stored before this load, up to limit, say what ln says on node at its time. */
static int64_t logs_seen_on(struct index_log_loader *ll, int64_t node, const struct lt_log_line *ln,
			    int64_t host_id, int64_t limit)
{
	sqlite3_stmt *q = ll->seen;
	int64_t n = -1;

	if (node != 0)
		sqlite3_bind_int64(q, 1, node);
	sqlite3_bind_int64(q, 2, logs_ts_d(ln->ts_us));
	sqlite3_bind_int64(q, 3, ll->start_id);
	if (ln->pid >= 0)
		sqlite3_bind_int64(q, 4, ln->pid);
	if (host_id != 0)
		sqlite3_bind_int64(q, 5, host_id);
	if (ln->klog_us != 0)
		sqlite3_bind_int64(q, 6, ln->klog_us);
	logs_bind_str(q, 7, ln->message);
	logs_bind_str(q, 8, ln->fields);
	sqlite3_bind_int64(q, 9, limit);
	if (sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	return n;
}

/* The node host's lines were moved to (hosts), 0 when none: the last host's answer kept. */
static int64_t logs_host_node(struct index_log_loader *ll, int64_t host_id)
{
	sqlite3_stmt *q = ll->host_node;

	if (host_id == ll->map_host)
		return ll->map_node;
	ll->map_host = host_id;
	ll->map_node = 0;
	sqlite3_bind_int64(q, 1, host_id);
	if (sqlite3_step(q) == SQLITE_ROW)
		ll->map_node = sqlite3_column_int64(q, 0);
	sqlite3_reset(q);
	return ll->map_node;
}

/*
 * 1 when ln is a duplicate: the store held, before this load, more lines that say the same
 * as identical lines came just before it in the file; 0; -1 on error.  They are looked for
 * on the node this load stores the line under (logs_node) and, for a host mapped to another
 * node, under the host itself (lines stored before the host was mapped, or by a leasetrail
 * before schema 11, which stored a mapped host's new lines under the host).
 */
static int logs_seen(struct index_log_loader *ll, const struct lt_log_line *ln, int64_t host_id,
		     int64_t node)
{
	const int64_t want = (int64_t)ll->repeat + 1;
	int64_t n, m;

	if ((n = logs_seen_on(ll, node, ln, host_id, want)) < 0)
		return index_store_db_error(ll->st, ll->err,
					    "cannot look for a duplicate log line");
	if (n >= want || ll->node_id != 0 || host_id == 0 || host_id == node)
		return n >= want;
	if ((m = logs_seen_on(ll, host_id, ln, host_id, want - n)) < 0)
		return index_store_db_error(ll->st, ll->err,
					    "cannot look for a duplicate log line");
	return n + m >= want;
}

/*
 * The node a line is stored under: the file's --node, else the node its host was mapped to
 * (lt_store_map_hosts, which moves a host's lines once, from the node it mapped to before:
 * a mapped host's later lines must go to that node directly), else its host.  Only a store
 * that held lines before this load can have a mapped host.
 */
static int64_t logs_node(struct index_log_loader *ll, int64_t host_id)
{
	int64_t mapped;

	if (ll->node_id != 0)
		return ll->node_id;
	if (ll->start_id == 0 || host_id == 0)
		return host_id;
	mapped = logs_host_node(ll, host_id);
	return mapped != 0 ? mapped : host_id;
}

/*
 * The slot of host_id in ll->noted: where it is, or the free slot it would take (an open
 * table, probed linearly from a multiplicative hash of the id).
 */
static size_t logs_noted_slot(const struct index_log_loader *ll, int64_t host_id)
{
	size_t i = (size_t)(((uint64_t)host_id * 0x9e3779b97f4a7c15ULL) >> 50) % LOGS_NOTED_SLOTS;

	while (ll->noted[i] != 0 && ll->noted[i] != host_id)
		i = (i + 1) % LOGS_NOTED_SLOTS;
	return i;
}

/*
 * Notes a host in the hosts table (mapped to itself until lt_store_map_hosts), once a load:
 * the hosts it noted are remembered (ll->noted), up to LOGS_NOTED_SLOTS / 2 of them.
 */
static int logs_note_host(struct index_log_loader *ll, int64_t host_id)
{
	size_t i;

	if (host_id == 0)
		return 0;
	if (ll->noted == NULL)
		ll->noted = lt_xcalloc(LOGS_NOTED_SLOTS, sizeof *ll->noted);
	i = logs_noted_slot(ll, host_id);
	if (ll->noted[i] == host_id)
		return 0;
	if (ll->nnoted < LOGS_NOTED_SLOTS / 2) {
		ll->noted[i] = host_id;
		ll->nnoted++;
	}
	sqlite3_bind_int64(ll->ins_host, 1, host_id);
	return logs_step(ll, ll->ins_host, "cannot record a host");
}

/*
 * The line as the source's stored lines are computed: a file read on (a
 * resumed or grown one) may have been re-dated since (index-redate.c), and
 * its new lines move with the rest.  The first line with a year gives the
 * source its year.
 */
static void logs_align(struct index_log_loader *ll, struct lt_log_line *c)
{
	const struct lt_time_basis *f = &c->file;
	struct lt_time_basis *b = &ll->basis;
	int dy;

	if (!ll->basis_set) {
		*b = *f;
		ll->basis_set = 1;
		lt_zone_lookup(&ll->zone, b->zone_name, strlen(b->zone_name));
	} else if (b->year == 0 && f->year != 0) {
		b->year = f->year;
		b->year_rule = f->year_rule;
		b->year_raised = f->year_raised;
		b->first_local = f->first_local;
		b->head_lo = f->head_lo;
		b->head_hi = f->head_hi;
	}
	dy = b->year != 0 && f->year != 0 ? b->year - f->year : 0;
	if (dy == 0 && b->zone_us == f->zone_us)
		return;
	c->ts_us = lt_time_redate(c->ts_us, c->basis & LT_BASIS_TS_YEAR,
				  c->basis & LT_BASIS_TS_ZONE, dy, f->zone_us, b->zone_us);
	if (c->klog_us != 0)
		c->klog_us =
		    lt_time_redate(c->klog_us, c->basis & LT_BASIS_KLOG_YEAR,
				   c->basis & LT_BASIS_KLOG_ZONE, dy, f->zone_us, b->zone_us);
	c->file = *b;
}

/* A date written in the line: the year it implies for the source, a vote for the zone. */
static void logs_note_said(struct index_log_loader *ll, const struct lt_log_line *c)
{
	const int64_t zone = ll->basis.zone_us, local = c->ts_us + zone;
	const int64_t vote_us = 120 * 1000000LL, near_us = 60 * 86400 * 1000000LL;
	int64_t tod, said_local = c->said_us + zone;
	int y, mon, day, ey;

	if (c->basis & LT_BASIS_TS_YEAR && ll->said_year == 0 && ll->basis.year != 0) {
		lt_time_civil(local, &y, &mon, &day, &tod);
		ey = lt_year_near(said_local, mon, day, tod);
		if (llabs(lt_time_days_from_civil(ey, (unsigned)mon, (unsigned)day) *
			      86400000000LL +
			  tod - said_local) < near_us)
			ll->said_year = ll->basis.year + (ey - y);
	}
	if (!(c->basis & LT_BASIS_TS_ZONE) || !c->said_zoned || ll->zone.n < 2)
		return;
	for (int i = 0; i < ll->zone.n; i++)
		if (llabs(local - c->said_us - ll->zone.off_us[i]) <= vote_us)
			ll->votes[i]++;
}

/* A klog time written in UTC under a journal time written in the local zone: a vote too. */
static void logs_note_klog(struct index_log_loader *ll, const struct lt_log_line *c)
{
	const unsigned both = LT_BASIS_TS_ZONE | LT_BASIS_KLOG_ZONE;

	if (ll->zone.n < 2 || c->klog_us == 0 || (c->basis & both) != both)
		return;
	for (int i = 0; i < ll->zone.n; i++)
		if (ll->zone.off_us[i] != 0 &&
		    llabs(c->ts_us - c->klog_us - ll->zone.off_us[i]) < LOGS_SKEW_US)
			ll->votes[i]++;
}

static void logs_note_summary(struct index_log_loader *ll, const struct lt_log_line *ln, int64_t id)
{
	ll->lines++;
	if (ll->first_us == 0 || ln->ts_us < ll->first_us)
		ll->first_us = ln->ts_us;
	if (ln->ts_us > ll->last_us)
		ll->last_us = ln->ts_us;
	if (ll->first_id == 0 || id < ll->first_id)
		ll->first_id = id;
	if (id > ll->last_id)
		ll->last_id = id;
	if (ll->host == NULL && ln->host.ptr != NULL)
		ll->host = lt_xstrndup(ln->host.ptr, ln->host.len);
	if (ln->klog_us != 0 && llabs(ln->ts_us - ln->klog_us) > LOGS_SKEW_US)
		ll->skew++;
	if (ln->basis & (LT_BASIS_TS_ZONE | LT_BASIS_KLOG_ZONE))
		ll->zone_used = 1;
	if (ln->said_us != 0)
		logs_note_said(ll, ln);
	logs_note_klog(ll, ln);
}

/*
 * The line stored as id, which is not the id logs_line_d foresaw: its number stored again.
 * SQLite gives a row one past the largest id, and one writer stores lines at a time (the
 * store's lock, one file's load after another), so this runs only where that fails.
 */
static int logs_renumber(struct index_log_loader *ll, int64_t id, uint64_t line)
{
	sqlite3_stmt *u;
	int rc;

	if (index_store_prepare_raw(ll->st, &u, logs_renumber_sql, ll->err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_int64(u, 1, id);
	sqlite3_bind_int64(u, 2, logs_line_d(ll, line, id));
	rc = logs_step(ll, u, "cannot store a log line's number");
	sqlite3_finalize(u);
	return rc;
}

int index_log_loader_store(struct index_log_loader *ll, const struct lt_log_line *ln,
			   const struct lt_where *at, int64_t cluster_id,
			   const struct index_raw_coded *coded, int *stored)
{
	struct lt_log_line c = *ln;
	int64_t ids[9], id, want, node;
	ptrdiff_t msg_at;
	int seen;

	*stored = 0;
	logs_align(ll, &c);
	msg_at = index_log_message_at(&c);
	if (logs_intern(ll, &c, at, ids) != 0 || logs_prepare_fields(ll, &c, msg_at, coded) != 0)
		return LT_ERR_DB;
	node = logs_node(ll, ids[0]);
	if (ll->start_id != 0) {
		logs_count_repeat(ll, &c);
		seen = logs_seen(ll, &c, ids[0], node);
		if (seen != 0)
			return seen < 0 ? LT_ERR_DB : 0;
	}
	want = ll->next_id > 0 ? ll->next_id : 1;
	logs_bind_row(ll, &c, at, ids, node, msg_at, want, cluster_id);
	if (logs_step_kept(ll, ll->ins.s, "cannot store a log line") != 0)
		return LT_ERR_DB;
	id = sqlite3_last_insert_rowid(ll->st->db);
	if (id != want && logs_renumber(ll, id, at->line) != 0)
		return LT_ERR_DB;
	ll->next_id = id + 1;
	if (logs_has_rare(&c, at, ids, msg_at)) {
		logs_bind_more(ll, &c, at, ids, msg_at, id);
		if (logs_step_kept(ll, ll->ins_more.s, "cannot store a log line") != 0)
			return LT_ERR_DB;
	}
	*stored = 1;
	logs_note_summary(ll, &c, id);
	if (index_raw_put(&ll->raw, id, c.raw.ptr ? c.raw.ptr : "", c.raw.len, ll->err) != 0)
		return LT_ERR_DB;
	return logs_note_host(ll, ll->node_id ? 0 : ids[0]);
}

void index_log_loader_share(const struct index_log_loader *ll, struct index_raw_share *fields)
{
	index_raw_share_of(fields, &ll->fields);
}

int index_log_loader_raw_flush(struct index_log_loader *ll)
{
	return index_raw_flush(&ll->raw, ll->err);
}

/* The meaning of the zone word the lines' written times voted for, when one won. */
static void logs_said_zone(struct index_log_loader *ll)
{
	uint32_t best = 0;
	int at = -1;

	for (int i = 0; i < ll->zone.n; i++)
		if (ll->votes[i] > best)
			best = ll->votes[i], at = i;
		else if (ll->votes[i] == best && best > 0)
			at = -2; /* a tie says nothing */
	if (at >= 0) {
		ll->said_zone = ll->zone.off_us[at];
		ll->said_zone_set = 1;
	}
}

void index_basis_texts(const struct lt_time_basis *b, struct index_basis_text *out)
{
	char sign = b->zone_us < 0 ? '-' : '+';
	int64_t m = llabs(b->zone_us) / 60000000;

	snprintf(out->year_from, sizeof out->year_from, "%s%s", lt_year_rule_name(b->year_rule),
		 b->year_raised ? ", not before the header's beginning" : "");
	if (b->zone_us == 0)
		snprintf(out->zone, sizeof out->zone, "UTC");
	else
		snprintf(out->zone, sizeof out->zone, "%c%02d:%02d", sign, (int)(m / 60),
			 (int)(m % 60));
	snprintf(out->zone_from, sizeof out->zone_from, "%s%s%s%s", lt_zone_rule_name(b->zone_rule),
		 b->zone_name[0] ? " (" : "", b->zone_name, b->zone_name[0] ? ")" : "");
}

static void logs_bind_basis(struct index_log_loader *ll, sqlite3_stmt *s)
{
	const struct lt_time_basis *b = &ll->basis;
	struct index_basis_text t;

	index_basis_texts(b, &t);
	if (b->year != 0) {
		sqlite3_bind_int(s, 3, b->year);
		sqlite3_bind_text(s, 4, t.year_from, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(s, 9, (int)b->year_rule);
		sqlite3_bind_int(s, 11, lt_year_rule_guess(b->year_rule));
		sqlite3_bind_int64(s, 12, b->first_local);
	}
	sqlite3_bind_int(s, 10, b->year_raised);
	if (b->head_lo != 0)
		sqlite3_bind_int64(s, 13, b->head_lo);
	if (b->head_hi != 0)
		sqlite3_bind_int64(s, 14, b->head_hi);
	if (b->mtime_s != 0)
		sqlite3_bind_int64(s, 15, b->mtime_s);
	sqlite3_bind_int64(s, 16, b->zone_us);
	sqlite3_bind_int(s, 17, (int)b->zone_rule);
	if (b->zone_name[0])
		sqlite3_bind_text(s, 18, b->zone_name, -1, SQLITE_TRANSIENT);
	if (ll->zone_used) {
		sqlite3_bind_text(s, 24, t.zone, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 25, t.zone_from, -1, SQLITE_TRANSIENT);
	} else {
		sqlite3_bind_text(s, 25, "written in each line", -1, SQLITE_STATIC);
	}
}

int index_log_loader_save(struct index_log_loader *ll)
{
	sqlite3_stmt *s = ll->save;

	logs_said_zone(ll);
	sqlite3_bind_int64(s, 1, ll->source_id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)ll->lines);
	if (ll->lines > 0) {
		sqlite3_bind_int64(s, 5, ll->first_us);
		sqlite3_bind_int64(s, 6, ll->last_us);
		sqlite3_bind_int64(s, 22, ll->first_id);
		sqlite3_bind_int64(s, 23, ll->last_id);
	}
	sqlite3_bind_int64(s, 7, (sqlite3_int64)ll->skew);
	if (ll->node)
		sqlite3_bind_text(s, 8, ll->node, -1, SQLITE_STATIC);
	logs_bind_basis(ll, s);
	if (ll->said_year != 0)
		sqlite3_bind_int(s, 19, ll->said_year);
	if (ll->said_zone_set)
		sqlite3_bind_int64(s, 20, ll->said_zone);
	if (ll->host)
		sqlite3_bind_text(s, 21, ll->host, -1, SQLITE_STATIC);
	return logs_step(ll, s, "cannot save the log summary");
}
