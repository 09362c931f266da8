/* index-store.c - opening the store, and the statement API the queries use. */
#include "index-int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int store_configured;

const char *lt_store_default_path(void)
{
	const char *env = getenv("LEASETRAIL_DB");

	return env != NULL && env[0] != '\0' ? env : "leasetrail.db";
}

int64_t lt_store_last_event_id(struct lt_store *st)
{
	sqlite3_stmt *q;
	int64_t id = 0;

	if (store_prepare_raw(st, &q, "SELECT coalesce(max(id), 0) FROM audit", NULL) != 0)
		return 0;
	if (sqlite3_step(q) == SQLITE_ROW)
		id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return id;
}

int lt_store_set_cache(struct lt_store *st, int kib, struct lt_error *err)
{
	char sql[64];

	snprintf(sql, sizeof sql, "PRAGMA cache_size = -%d", kib > 0 ? kib : 1);
	return store_exec(st, sql, err);
}

const char *lt_store_path(const struct lt_store *st)
{
	return st->path;
}

int store_db_error(struct lt_store *st, struct lt_error *err, const char *what)
{
	return lt_error_set(err, LT_ERR_DB, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

int store_exec(struct lt_store *st, const char *sql, struct lt_error *err)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	lt_error_set(err, LT_ERR_DB, "%s: %s", st->path, msg ? msg : "statement failed");
	sqlite3_free(msg);
	return LT_ERR_DB;
}

int store_prepare_raw(struct lt_store *st, sqlite3_stmt **out, const char *sql,
		      struct lt_error *err)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, out, NULL) == SQLITE_OK)
		return 0;
	*out = NULL;
	return store_db_error(st, err, "cannot prepare statement");
}

/*
 * Settings for a bounded footprint: a 16 MiB page cache whatever the store's
 * size, and 32 KiB pages (fewer, larger writes; set only when the file is new).
 */
static int store_configure(struct lt_store *st, struct lt_error *err)
{
	sqlite3_busy_timeout(st->db, 10000);
	return store_exec(
	    st, "PRAGMA page_size = 32768; PRAGMA cache_size = -16384; PRAGMA temp_store = FILE;",
	    err);
}

/*
 * WAL so readers never block the loader.  No fsync: every commit is handed
 * to the kernel, so a killed process leaves a consistent store and a rerun
 * resumes; only an OS crash or power loss during an ingest can damage it,
 * and the store is derived data, rebuilt from the logs.  Syncing made ingest
 * run at the disk's writeback speed (about 10 s instead of 6.5 s for 1.1 GB).
 * Only once the file is known to be ours: a foreign database stays untouched.
 */
static int store_journal(struct lt_store *st, struct lt_error *err)
{
	if (st->readonly)
		return 0;
	return store_exec(st, "PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;", err);
}

static int store_check_exists(const char *path, int flags, struct lt_error *err)
{
	struct stat sb;

	if (!(flags & LT_STORE_READONLY) || stat(path, &sb) == 0)
		return 0;
	return lt_error_set(err, LT_ERR_NOTFOUND,
			    "%s: no store here (run `leasetrail ingest --db %s PATH...` first)",
			    path, path);
}

int lt_store_open(struct lt_store **out, const char *path, int flags, struct lt_error *err)
{
	struct lt_store *st;
	int mode = (flags & LT_STORE_READONLY) ? SQLITE_OPEN_READONLY
					       : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	int rc;

	*out = NULL;
	if ((rc = store_check_exists(path, flags, err)) != 0)
		return rc; /*
			    * memory statistics take a global mutex on every allocation; nothing
			    * here reads them.  sqlite3_config must not race other SQLite calls:
			    * only the first open (on the main thread, before any helper thread
			    * exists) makes it.
			    */
	if (!store_configured) {
		store_configured = 1;
		sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	}
	st = lt_xcalloc(1, sizeof *st);
	st->path = lt_xstrdup(path);
	st->readonly = (flags & LT_STORE_READONLY) != 0;
	if (sqlite3_open_v2(path, &st->db, mode | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = store_db_error(st, err, "cannot open store");
		lt_store_free(st);
		return rc;
	}
	rc = store_configure(st, err);
	if (rc != 0)
		lt_error_set(err, LT_ERR_DB, "%s: not a leasetrail store (%s)", path,
			     sqlite3_errmsg(st->db));
	if (rc == 0)
		rc = store_schema(st, err);
	if (rc == 0)
		rc = store_journal(st, err);
	if (rc != 0) {
		lt_store_free(st);
		return rc;
	}
	*out = st;
	return 0;
}

void lt_store_free(struct lt_store *st)
{
	if (st == NULL)
		return;
	sqlite3_finalize(st->str_find);
	sqlite3_finalize(st->str_add);
	intern_release(&st->strs);
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

/* True when only blanks and ';' are left: a single statement. */
static int store_rest_is_empty(const char *tail)
{
	for (; tail != NULL && *tail; tail++)
		if (*tail != ';' && *tail != ' ' && *tail != '\t' && *tail != '\n' && *tail != '\r')
			return 0;
	return 1;
}

/*
 * With LEASETRAIL_EXPLAIN set, prints SQLite's plan of each statement a
 * command prepares on stderr: how the benchmarks check that no query scans
 * a whole table where an index serves.
 */
static void store_explain(struct lt_store *st, const char *sql)
{
	struct lt_buf b;
	sqlite3_stmt *q;

	lt_buf_init(&b);
	lt_buf_printf(&b, "EXPLAIN QUERY PLAN %s", sql);
	if (sqlite3_prepare_v2(st->db, b.ptr, -1, &q, NULL) == SQLITE_OK) {
		fprintf(stderr, "-- plan of: %.100s\n", sql);
		while (sqlite3_step(q) == SQLITE_ROW)
			fprintf(stderr, "--   %s\n", (const char *)sqlite3_column_text(q, 3));
		sqlite3_finalize(q);
	}
	lt_buf_release(&b);
}

int lt_store_prepare(struct lt_store *st, struct lt_stmt **out, const char *sql,
		     struct lt_error *err)
{
	sqlite3_stmt *s = NULL;
	const char *tail = NULL;

	*out = NULL;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, &tail) != SQLITE_OK) {
		/* a bulk load builds the secondary indexes at its end */
		if (strstr(sqlite3_errmsg(st->db), "no such index") != NULL)
			return store_check_indexes(st, err);
		return lt_error_set(err, LT_ERR_USAGE, "SQL error: %s", sqlite3_errmsg(st->db));
	}
	if (s == NULL)
		return lt_error_set(err, LT_ERR_USAGE, "no SQL statement given");
	if (!store_rest_is_empty(tail)) {
		sqlite3_finalize(s);
		return lt_error_set(err, LT_ERR_USAGE, "only one SQL statement at a time");
	}
	if (getenv("LEASETRAIL_EXPLAIN") != NULL && sqlite3_stmt_readonly(s))
		store_explain(st, sql);
	*out = lt_xcalloc(1, sizeof **out);
	(*out)->st = st;
	(*out)->s = s;
	return 0;
}

void lt_stmt_free(struct lt_stmt *s)
{
	if (s == NULL)
		return;
	sqlite3_finalize(s->s);
	free(s);
}

int lt_stmt_bind_text(struct lt_stmt *s, int idx, const char *v, size_t len)
{
	int n = len == (size_t)-1 ? -1 : (int)len;

	return sqlite3_bind_text(s->s, idx, v, n, SQLITE_TRANSIENT) == SQLITE_OK ? 0 : LT_ERR_DB;
}

int lt_stmt_bind_int(struct lt_stmt *s, int idx, int64_t v)
{
	return sqlite3_bind_int64(s->s, idx, v) == SQLITE_OK ? 0 : LT_ERR_DB;
}

int lt_stmt_bind_null(struct lt_stmt *s, int idx)
{
	return sqlite3_bind_null(s->s, idx) == SQLITE_OK ? 0 : LT_ERR_DB;
}

int lt_stmt_step(struct lt_stmt *s, struct lt_error *err)
{
	int rc = sqlite3_step(s->s);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return store_db_error(s->st, err, "query failed");
}

int lt_stmt_reset(struct lt_stmt *s)
{
	sqlite3_reset(s->s);
	return sqlite3_clear_bindings(s->s) == SQLITE_OK ? 0 : LT_ERR_DB;
}

int lt_stmt_readonly(const struct lt_stmt *s)
{
	return sqlite3_stmt_readonly(s->s);
}

int lt_stmt_columns(const struct lt_stmt *s)
{
	return sqlite3_column_count(s->s);
}

const char *lt_stmt_name(const struct lt_stmt *s, int col)
{
	const char *n = sqlite3_column_name(s->s, col);

	return n ? n : "";
}

enum lt_col_type lt_stmt_type(const struct lt_stmt *s, int col)
{
	switch (sqlite3_column_type(s->s, col)) {
	case SQLITE_INTEGER:
		return LT_COL_INT;
	case SQLITE_FLOAT:
		return LT_COL_REAL;
	case SQLITE_TEXT:
		return LT_COL_TEXT;
	case SQLITE_BLOB:
		return LT_COL_BLOB;
	default:
		return LT_COL_NULL;
	}
}

int64_t lt_stmt_int(const struct lt_stmt *s, int col)
{
	return sqlite3_column_int64(s->s, col);
}

double lt_stmt_real(const struct lt_stmt *s, int col)
{
	return sqlite3_column_double(s->s, col);
}

const char *lt_stmt_text(const struct lt_stmt *s, int col, size_t *len)
{
	const unsigned char *t = sqlite3_column_text(s->s, col);

	if (len)
		*len = t ? (size_t)sqlite3_column_bytes(s->s, col) : 0;
	return t ? (const char *)t : "";
}

/* Reads a stored record's raw text and provenance with sql (?1 = id). */
static int store_origin(struct lt_store *st, const char *sql, const char *what, int64_t id,
			struct lt_event_origin *out, struct lt_error *err)
{
	sqlite3_stmt *q;
	int rc;

	if ((rc = store_prepare_raw(st, &q, sql, err)) != 0)
		return rc;
	sqlite3_bind_int64(q, 1, id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		lt_buf_append(&out->raw, sqlite3_column_text(q, 0),
			      (size_t)sqlite3_column_bytes(q, 0));
		lt_buf_append(&out->file, sqlite3_column_text(q, 1),
			      (size_t)sqlite3_column_bytes(q, 1));
		out->line = (uint64_t)sqlite3_column_int64(q, 2);
		out->offset = (uint64_t)sqlite3_column_int64(q, 3);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = lt_error_set(err, LT_ERR_NOTFOUND, "no %s with id %lld in %s", what,
				  (long long)id, st->path);
	} else {
		rc = store_db_error(st, err, "lookup failed");
	}
	sqlite3_finalize(q);
	return rc;
}

int lt_store_event_origin(struct lt_store *st, int64_t id, struct lt_event_origin *out,
			  struct lt_error *err)
{
	return store_origin(st,
			    "SELECT r.json, s.path, a.line, a.offset FROM audit AS a"
			    " JOIN audit_raw AS r ON r.id = a.id"
			    " JOIN sources AS s ON s.id = a.source_id WHERE a.id = ?1",
			    "event", id, out, err);
}

int lt_store_line_origin(struct lt_store *st, int64_t id, struct lt_event_origin *out,
			 struct lt_error *err)
{
	return store_origin(st,
			    "SELECT r.text, s.path, g.line, g.offset FROM lines AS g"
			    " JOIN lines_raw AS r ON r.id = g.id"
			    " JOIN sources AS s ON s.id = g.source_id WHERE g.id = ?1",
			    "log line", id, out, err);
}
