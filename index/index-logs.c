/*
 * index-logs.c - storing log lines, and mapping their hosts to nodes.
 *
 * A line is deduplicated on lkey, a hash of what it says and when (both
 * times, host, pid, message, fields) plus how many identical lines came
 * just before it in the file: the same line in two overlapping exports is
 * stored once, while a kubelet repeating itself within one journal second
 * keeps every repeat.
 *
 * Hosts are mapped to node names (lt_store_map_hosts) once the layer above
 * knows which nodes there are; this file only applies the mapping.
 */
#include "index-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define LOGS_SKEW_US (2 * 1000000LL) /* journal and klog times further apart disagree */

struct index_log_loader {
	struct lt_store *st;
	struct lt_error *err;
	int64_t source_id;
	int64_t node_id; /* --node, 0 when none */
	sqlite3_stmt *ins, *ins_raw, *ins_host, *save, *same;
	uint64_t last_hash; /* of the previous line, for counting repeats */
	uint32_t repeat;
	int64_t last_host_id; /* hosts already in the hosts table: the last one */
	uint64_t lines, skew;
	int64_t first_us, last_us;
	enum lt_year_rule year_rule;
	int year;
	char *node;
};

static const char logs_ins_sql[] =
    "INSERT OR IGNORE INTO lines(source_id, line, offset, lkey, ts_us, klog_us, year_rule,"
    " host_id, node_id, component_id, ident_id, pid, severity, location_id, kind_id,"
    " subject_id, obj_kind_id, obj_namespace_id, obj_uid, not_found, message, fields,"
    " ext_id, stream_id) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
    " ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)";

/* A source read on (resumed, or grown since): its summary so far is the start of this one. */
static int logs_restore(struct index_log_loader *ll)
{
	sqlite3_stmt *q;

	if (index_store_prepare_raw(
		ll->st, &q,
		"SELECT lines, klog_skew, coalesce(first_us, 0), coalesce(last_us, 0)"
		" FROM log_sources WHERE source_id = ?1",
		ll->err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_int64(q, 1, ll->source_id);
	if (sqlite3_step(q) == SQLITE_ROW) {
		ll->lines = (uint64_t)sqlite3_column_int64(q, 0);
		ll->skew = (uint64_t)sqlite3_column_int64(q, 1);
		ll->first_us = sqlite3_column_int64(q, 2);
		ll->last_us = sqlite3_column_int64(q, 3);
	}
	sqlite3_finalize(q);
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
	if (node &&
	    index_intern_id(st, (struct lt_str){node, strlen(node)}, &ll->node_id, err) != 0)
		goto fail;
	if (index_store_prepare_raw(st, &ll->ins, logs_ins_sql, err) ||
	    index_store_prepare_raw(st, &ll->ins_raw,
				    "INSERT INTO lines_raw(id, text) VALUES(?1, ?2)", err) ||
	    index_store_prepare_raw(st, &ll->ins_host, "INSERT OR IGNORE INTO hosts VALUES(?1, ?1)",
				    err) ||
	    index_store_prepare_raw(
		st, &ll->same,
		"SELECT ts_us IS ?2 AND klog_us IS ?3 AND host_id IS ?4 AND pid IS ?5"
		" AND message IS ?6 AND fields IS ?7 FROM lines WHERE lkey = ?1",
		err) ||
	    index_store_prepare_raw(st, &ll->save,
				    "INSERT OR REPLACE INTO log_sources(source_id, lines, year,"
				    " year_rule, first_us, last_us, klog_skew, node)"
				    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
				    err) ||
	    logs_restore(ll))
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
	sqlite3_finalize(ll->ins);
	sqlite3_finalize(ll->ins_raw);
	sqlite3_finalize(ll->ins_host);
	sqlite3_finalize(ll->save);
	sqlite3_finalize(ll->same);
	free(ll->node);
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
 * The line's dedupe key: its second in the high bits, so that a file's
 * lines land nearly in order in the key index (random keys made every
 * insert a random page once the index outgrew the cache), then 29 bits of
 * a hash of what it says, from where, and its repeat count.  Two different
 * lines of one second may share a key: index_log_loader_store tells them apart.
 */
/* The largest second a key holds above its 29 hash bits without overflowing. */
#define LOGS_KEY_MAX_SEC (INT64_MAX >> 29)

static int64_t logs_key(struct index_log_loader *ll, const struct lt_log_line *ln)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int64_t sec;

	h = logs_fnv(h, &ln->ts_us, sizeof ln->ts_us);
	h = logs_fnv(h, &ln->klog_us, sizeof ln->klog_us);
	h = logs_fnv(h, &ln->pid, sizeof ln->pid);
	h = logs_fnv_str(h, ln->host);
	h = logs_fnv_str(h, ln->message);
	h = logs_fnv_str(h, ln->fields);
	ll->repeat = h == ll->last_hash ? ll->repeat + 1 : 0;
	ll->last_hash = h;
	h = logs_fnv(h, &ll->repeat, sizeof ll->repeat);
	h ^= h >> 31;
	/* a time past what 34 bits of seconds hold (the year 2514) shares the last key second */
	sec = ln->ts_us > 0 ? ln->ts_us / 1000000 : 0;
	if (sec > LOGS_KEY_MAX_SEC)
		sec = LOGS_KEY_MAX_SEC;
	return sec << 29 | (int64_t)(h & ((1u << 29) - 1));
}

static void logs_bind_str(sqlite3_stmt *s, int idx, struct lt_str v)
{
	if (v.ptr != NULL)
		sqlite3_bind_text(s, idx, v.ptr, (int)v.len, SQLITE_STATIC);
}

/* Interns the line's repeated strings; ids in the order of logs_bind_ids' columns. */
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
		if (index_intern_id(ll->st, strs[i], &ids[i], ll->err) != 0)
			return LT_ERR_DB;
	return 0;
}

static void logs_bind_ids(sqlite3_stmt *s, const int64_t ids[9])
{
	static const int cols[9] = {8, 10, 11, 14, 15, 16, 17, 18, 24};

	for (int i = 0; i < 9; i++)
		if (ids[i] != 0)
			sqlite3_bind_int64(s, cols[i], ids[i]);
}

/* Binds the insert; with keyed, the dedupe key too, which it returns. */
static int64_t logs_bind(struct index_log_loader *ll, const struct lt_log_line *ln,
			 const struct lt_where *at, const int64_t ids[9], int keyed)
{
	sqlite3_stmt *s = ll->ins;
	int64_t node = ll->node_id ? ll->node_id : ids[0], key = keyed ? logs_key(ll, ln) : 0;

	sqlite3_bind_int64(s, 1, ll->source_id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)at->line);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)at->offset);
	if (keyed)
		sqlite3_bind_int64(s, 4, key);
	sqlite3_bind_int64(s, 5, ln->ts_us);
	if (ln->klog_us != 0)
		sqlite3_bind_int64(s, 6, ln->klog_us);
	sqlite3_bind_int(s, 7, (int)ln->year_rule);
	logs_bind_ids(s, ids);
	if (node != 0)
		sqlite3_bind_int64(s, 9, node);
	if (ln->pid >= 0)
		sqlite3_bind_int64(s, 12, ln->pid);
	if (ln->severity != 0)
		sqlite3_bind_text(s, 13, &ln->severity, 1, SQLITE_STATIC);
	logs_bind_str(s, 19, ln->obj_uid);
	sqlite3_bind_int(s, 20, ln->not_found);
	logs_bind_str(s, 21, ln->message);
	logs_bind_str(s, 22, ln->fields);
	logs_bind_str(s, 23, at->ext_id);
	return key;
}

static int logs_step(struct index_log_loader *ll, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? 0 : index_store_db_error(ll->st, ll->err, what);
}

/* 1 when the stored line with this key says what ln says, when and where ln says it. */
static int logs_same(struct index_log_loader *ll, int64_t key, const struct lt_log_line *ln,
		     int64_t host_id)
{
	sqlite3_stmt *q = ll->same;
	int same = 0;

	sqlite3_bind_int64(q, 1, key);
	sqlite3_bind_int64(q, 2, ln->ts_us);
	if (ln->klog_us != 0)
		sqlite3_bind_int64(q, 3, ln->klog_us);
	if (host_id != 0)
		sqlite3_bind_int64(q, 4, host_id);
	if (ln->pid >= 0)
		sqlite3_bind_int64(q, 5, ln->pid);
	logs_bind_str(q, 6, ln->message);
	logs_bind_str(q, 7, ln->fields);
	if (sqlite3_step(q) == SQLITE_ROW)
		same = sqlite3_column_int(q, 0);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	return same;
}

/* Notes a host in the hosts table (mapped to itself until lt_store_map_hosts). */
static int logs_note_host(struct index_log_loader *ll, int64_t host_id)
{
	if (host_id == 0 || host_id == ll->last_host_id)
		return 0;
	ll->last_host_id = host_id;
	sqlite3_bind_int64(ll->ins_host, 1, host_id);
	return logs_step(ll, ll->ins_host, "cannot record a host");
}

static void logs_note_summary(struct index_log_loader *ll, const struct lt_log_line *ln)
{
	ll->lines++;
	if (ll->first_us == 0 || ln->ts_us < ll->first_us)
		ll->first_us = ln->ts_us;
	if (ln->ts_us > ll->last_us)
		ll->last_us = ln->ts_us;
	if (ll->year == 0 && ln->year_rule != LT_YEAR_NONE) {
		ll->year = lt_time_year(ln->ts_us);
		ll->year_rule = ln->year_rule;
	}
	if (ln->klog_us != 0 && llabs(ln->ts_us - ln->klog_us) > LOGS_SKEW_US)
		ll->skew++;
}

int index_log_loader_store(struct index_log_loader *ll, const struct lt_log_line *ln,
			   const struct lt_where *at, int *stored)
{
	int64_t ids[9];

	int64_t key;

	*stored = 0;
	if (logs_intern(ll, ln, at, ids) != 0)
		return LT_ERR_DB;
	key = logs_bind(ll, ln, at, ids, 1);
	if (logs_step(ll, ll->ins, "cannot store a log line") != 0)
		return LT_ERR_DB;
	if (sqlite3_changes(ll->st->db) == 0) {
		if (logs_same(ll, key, ln, ids[0]))
			return 0; /* the same line, already stored */
		/* another line of that second with the same hash: keep it, without a key */
		logs_bind(ll, ln, at, ids, 0);
		if (logs_step(ll, ll->ins, "cannot store a log line") != 0)
			return LT_ERR_DB;
	}
	*stored = 1;
	logs_note_summary(ll, ln);
	sqlite3_bind_int64(ll->ins_raw, 1, sqlite3_last_insert_rowid(ll->st->db));
	logs_bind_str(ll->ins_raw, 2, ln->raw);
	if (logs_step(ll, ll->ins_raw, "cannot store a log line's text") != 0)
		return LT_ERR_DB;
	return logs_note_host(ll, ll->node_id ? 0 : ids[0]);
}

int index_log_loader_save(struct index_log_loader *ll)
{
	sqlite3_stmt *s = ll->save;

	sqlite3_bind_int64(s, 1, ll->source_id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)ll->lines);
	if (ll->year != 0) {
		sqlite3_bind_int(s, 3, ll->year);
		sqlite3_bind_text(s, 4, lt_year_rule_name(ll->year_rule), -1, SQLITE_STATIC);
	}
	if (ll->lines > 0) {
		sqlite3_bind_int64(s, 5, ll->first_us);
		sqlite3_bind_int64(s, 6, ll->last_us);
	}
	sqlite3_bind_int64(s, 7, (sqlite3_int64)ll->skew);
	if (ll->node)
		sqlite3_bind_text(s, 8, ll->node, -1, SQLITE_STATIC);
	return logs_step(ll, s, "cannot save the log summary");
}

/* ---- hosts to nodes ---------------------------------------------------------- */

struct logs_nodes {
	const struct lt_node_name *v; /* sorted by name */
	size_t n;
};

/* The id of the node named exactly name (its first len bytes), 0 if none. */
static int64_t logs_find(const struct logs_nodes *ns, const char *name, size_t len)
{
	size_t lo = 0, hi = ns->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(ns->v[mid].name, name, len);

		if (c == 0 && ns->v[mid].name[len] != '\0')
			c = 1;
		if (c == 0)
			return ns->v[mid].id;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The one node named "HOST.something", 0 if none or several. */
static int64_t logs_find_long(const struct logs_nodes *ns, const char *host)
{
	size_t len = strlen(host), lo = 0, hi = ns->n;
	int64_t found = 0;

	while (lo < hi) { /* first name >= host */
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ns->v[mid].name, host) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ns->n && strncmp(ns->v[lo].name, host, len) == 0; lo++) {
		if (ns->v[lo].name[len] != '.')
			continue;
		if (found != 0)
			return 0;
		found = ns->v[lo].id;
	}
	return found;
}

static int64_t logs_resolve(const struct logs_nodes *ns, int64_t host_id, const char *host)
{
	const char *dot = strchr(host, '.');
	int64_t id;

	if ((id = logs_find(ns, host, strlen(host))) != 0)
		return id;
	if (dot != NULL && (id = logs_find(ns, host, (size_t)(dot - host))) != 0)
		return id;
	if (dot == NULL && (id = logs_find_long(ns, host)) != 0)
		return id;
	return host_id;
}

/* Moves the lines of host from node old to node new. */
static int logs_remap(struct lt_store *st, int64_t host, int64_t old, int64_t new,
		      struct lt_error *err)
{
	sqlite3_stmt *u;
	int rc;

	if (index_store_prepare_raw(
		st, &u, "UPDATE lines SET node_id = ?3 WHERE node_id = ?2 AND host_id = ?1;",
		err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_int64(u, 1, host);
	sqlite3_bind_int64(u, 2, old);
	sqlite3_bind_int64(u, 3, new);
	rc = sqlite3_step(u);
	sqlite3_finalize(u);
	if (rc != SQLITE_DONE || index_store_prepare_raw(st, &u,
							 "UPDATE hosts SET node_id = ?2"
							 " WHERE host_id = ?1",
							 err) != 0)
		return index_store_db_error(st, err, "cannot map a host to its node");
	sqlite3_bind_int64(u, 1, host);
	sqlite3_bind_int64(u, 2, new);
	rc = sqlite3_step(u);
	sqlite3_finalize(u);
	return rc == SQLITE_DONE ? 0
				 : index_store_db_error(st, err, "cannot map a host to its node");
}

/* A host whose node changes: found first, applied once the scan of hosts is over. */
struct logs_move {
	int64_t host, old, new;
};

static int logs_map_all(struct lt_store *st, const struct logs_nodes *ns, struct lt_error *err)
{
	struct logs_move *mv = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *q;
	int rc = 0, step;

	if (index_store_prepare_raw(st, &q,
				    "SELECT h.host_id, h.node_id, s.s FROM hosts AS h"
				    " JOIN strs AS s ON s.id = h.host_id",
				    err) != 0)
		return LT_ERR_DB;
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		struct logs_move m = {sqlite3_column_int64(q, 0), sqlite3_column_int64(q, 1), 0};

		m.new = logs_resolve(ns, m.host, (const char *)sqlite3_column_text(q, 2));
		if (m.new == m.old)
			continue;
		LT_GROW(mv, cap, n + 1);
		mv[n++] = m;
	}
	sqlite3_finalize(q);
	if (step != SQLITE_DONE)
		rc = index_store_db_error(st, err, "cannot read hosts");
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = logs_remap(st, mv[i].host, mv[i].old, mv[i].new, err);
	free(mv);
	return rc;
}

int lt_store_map_hosts(struct lt_store *st, const struct lt_node_name *names, size_t n,
		       struct lt_error *err)
{
	const struct logs_nodes ns = {names, n};

	for (size_t i = 1; i < n; i++)
		assert(strcmp(names[i - 1].name, names[i].name) <= 0);
	return logs_map_all(st, &ns, err);
}
