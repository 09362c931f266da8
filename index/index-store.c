/*
 * index-store.c - opening the store, and the statement API the queries use.
 *
 * A writable open holds an exclusive flock(2) on the store file for as long
 * as the store is open, so two ingests (or an ingest and a rebuild) never
 * write one store at once: the second waits for the first, saying so.  A
 * read-only open never writes anything (a store on read-only media, in a
 * read-only directory, a read-only file): SQLite's mode=ro, and immutable=1
 * when even the shared-memory file of WAL mode cannot be created.  A process whose first
 * open is read-only gives SQLite's page cache a region of huge pages (store_pagecache_install):
 * page faults, not SQL, were most of what a query on a large store cost.
 */
#include "index-int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int store_configured;

/* How much of a statement LEASETRAIL_PROFILE prints; how many it times at once. */
#define STORE_PROFILE_SQL  120
#define STORE_PROFILE_OPEN 64
static sqlite3_mem_methods store_mem; /* SQLite's own allocator, under the fault hook */

static void *store_fault_malloc(int n)
{
	return lt_fault(LT_FAULT_SQLITE) ? NULL : store_mem.xMalloc(n);
}

static void *store_fault_realloc(void *p, int n)
{
	return lt_fault(LT_FAULT_SQLITE) ? NULL : store_mem.xRealloc(p, n);
}

/*
 * SQLite's page cache in one region of transparent huge pages (SQLITE_CONFIG_PAGECACHE).
 * Every 32 KiB page SQLite reads goes into a buffer: from malloc, that is 8 fresh 4 KiB pages,
 * and on this project's VMs a first touch of a 4 KiB page costs ~18 us of kernel time (1024
 * pages: 18 ms; the same 4 MiB as two huge pages: 0.5 ms).  A query on the 10 M-event store
 * reads tens of pages, so those faults were half of what `timeline NODE` cost.  The region is
 * only reserved: a huge page is faulted in (and counts in RSS) when SQLite first uses a slot
 * in it.  For a page larger than a slot SQLite mallocs as before; where the kernel gives no
 * huge page (THP off), the region is plain memory, faulted as before.  SQLite writes every
 * slot's free-list link when it takes the region, so the whole region is faulted in (and
 * counts in RSS) at the first open: 4 MiB, ~120 pages, not the cache's 16 MiB (16 MiB of
 * huge pages measured no faster on `nodes` and the canned queries).  Once the slots run
 * short SQLite recycles cached pages rather than malloc more: an ingest re-read pages then
 * (twice its system time, measured), so only a process whose first open is read-only (a
 * query, the TUI) takes the region.
 */
#define STORE_PAGECACHE_PAGE  32768		/* the store's page size (store_configure) */
#define STORE_PAGECACHE_BYTES (4 * 1024 * 1024) /* two huge pages: ~120 cached pages */
#define STORE_HUGE_PAGE	      (2 * 1024 * 1024)

static void store_pagecache_install(void)
{
	int hdr = 0;
	size_t slot;
	char *p, *aligned;

	if (sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &hdr) != SQLITE_OK)
		return;
	slot = ((size_t)STORE_PAGECACHE_PAGE + (size_t)hdr + 7) & ~(size_t)7;
	p = mmap(NULL, STORE_PAGECACHE_BYTES + STORE_HUGE_PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return;
	/* huge pages need 2 MiB alignment; the mapping lives as long as the process */
	aligned =
	    (char *)(((uintptr_t)p + STORE_HUGE_PAGE - 1) & ~(uintptr_t)(STORE_HUGE_PAGE - 1));
	madvise(aligned, STORE_PAGECACHE_BYTES, MADV_HUGEPAGE);
	sqlite3_config(SQLITE_CONFIG_PAGECACHE, aligned, (int)slot,
		       (int)(STORE_PAGECACHE_BYTES / slot));
}

/* With LEASETRAIL_FAULT=sqlite:N (a -DLT_FAULT=ON build), SQLite's Nth allocation fails. */
static void store_fault_install(void)
{
	sqlite3_mem_methods m;

	if (!lt_fault_armed(LT_FAULT_SQLITE) ||
	    sqlite3_config(SQLITE_CONFIG_GETMALLOC, &store_mem) != SQLITE_OK)
		return;
	m = store_mem;
	m.xMalloc = store_fault_malloc;
	m.xRealloc = store_fault_realloc;
	sqlite3_config(SQLITE_CONFIG_MALLOC, &m);
}

const char *lt_store_default_path(void)
{
	const char *env = getenv("LEASETRAIL_DB");

	return env != NULL && env[0] != '\0' ? env : "leasetrail.db";
}

const char *lt_store_sqlite_version(void)
{
	return sqlite3_libversion();
}

int64_t lt_store_last_event_id(struct lt_store *st)
{
	sqlite3_stmt *q;
	int64_t id = 0;

	if (index_store_prepare_raw(st, &q, "SELECT coalesce(max(id), 0) FROM audit", NULL) != 0)
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
	return index_store_exec(st, sql, err);
}

const char *lt_store_path(const struct lt_store *st)
{
	return st->path;
}

int index_store_db_error(struct lt_store *st, struct lt_error *err, const char *what)
{
	return lt_error_set(err, LT_ERR_DB, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

int index_store_exec(struct lt_store *st, const char *sql, struct lt_error *err)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	lt_error_set(err, LT_ERR_DB, "%s: %s", st->path, msg ? msg : "statement failed");
	sqlite3_free(msg);
	return LT_ERR_DB;
}

int index_store_prepare_raw(struct lt_store *st, sqlite3_stmt **out, const char *sql,
			    struct lt_error *err)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, out, NULL) == SQLITE_OK)
		return 0;
	*out = NULL;
	return index_store_db_error(st, err, "cannot prepare statement");
}

/*
 * Settings for a bounded footprint: a 16 MiB page cache whatever the store's
 * size, and 16 KiB pages (set only when the file is new: an existing store keeps
 * its page size, which SQLite changes only at VACUUM).
 */
static int store_configure(struct lt_store *st, struct lt_error *err)
{
	sqlite3_busy_timeout(st->db, 10000);
	return index_store_exec(st,
				"PRAGMA page_size = 16384; PRAGMA cache_size = -" INDEX_STR(
				    INDEX_CACHE_KIB) "; PRAGMA temp_store = FILE;",
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
	return index_store_exec(st, "PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;", err);
}

static int store_check_exists(const char *path, int flags, struct lt_error *err)
{
	struct stat sb;

	if (!(flags & (LT_STORE_READONLY | LT_STORE_EXISTING)) || stat(path, &sb) == 0)
		return 0;
	return lt_error_set(err, LT_ERR_NOTFOUND,
			    "%s: no store here (run `leasetrail ingest --db %s PATH...` first)",
			    path, path);
}

/* The directory part of path ("." when none). */
static void store_dir_of(struct lt_buf *dir, const char *path)
{
	const char *slash = strrchr(path, '/');

	lt_buf_reset(dir);
	if (slash == NULL)
		lt_buf_append(dir, ".", 1);
	else
		lt_buf_append(dir, path, slash == path ? 1 : (size_t)(slash - path));
}

/*
 * A writable open needs to write the file and, in WAL mode, to create its
 * -wal and -shm beside it: say so plainly when it cannot (evidence on
 * read-only media), rather than fail half-way with SQLite's words.
 */
static int store_check_writable(const char *path, struct lt_error *err)
{
	struct lt_buf dir;
	const char *what = NULL;
	int e = 0;

	lt_buf_init(&dir);
	store_dir_of(&dir, path);
	if (access(path, F_OK) == 0 && access(path, W_OK) != 0)
		what = "the store file", e = errno;
	else if (access(dir.ptr, W_OK) != 0)
		what = "its directory", e = errno;
	lt_buf_release(&dir);
	if (what == NULL)
		return 0;
	return lt_error_set(err, LT_ERR_DB,
			    "%s: cannot write %s (%s): `ingest` and `rebuild` write the store; "
			    "read commands work as it is, or copy it somewhere writable",
			    path, what, strerror(e));
}

/* Takes the store's writer lock, waiting (and saying so) while another writer holds it. */
/*
 * The stores this process holds the writer lock of: a second writable open
 * of one of them (same device and inode) in this process shares the lock
 * instead of waiting for itself.
 */
static struct store_held {
	dev_t dev;
	ino_t ino;
} store_held[16];
static size_t store_nheld;
static pthread_mutex_t store_held_mu = PTHREAD_MUTEX_INITIALIZER;

/* 1 when this process holds the lock of the file at path (then nothing is opened). */
static int store_held_here(const char *path)
{
	struct stat sb;
	int held = 0;

	if (stat(path, &sb) != 0)
		return 0;
	pthread_mutex_lock(&store_held_mu);
	for (size_t i = 0; i < store_nheld && !held; i++)
		held = store_held[i].dev == sb.st_dev && store_held[i].ino == sb.st_ino;
	pthread_mutex_unlock(&store_held_mu);
	return held;
}

/* Notes (on 1) or forgets (on 0) the lock held through fd. */
static void store_held_note(int fd, int add)
{
	struct stat sb;
	struct store_held key;

	if (fstat(fd, &sb) != 0)
		return;
	/* a copy, not sb: gcc 12 -O2 takes sb's fields stored under the mutex for a
	 * pointer to the dying sb (-Wdangling-pointer) */
	key = (struct store_held){.dev = sb.st_dev, .ino = sb.st_ino};
	pthread_mutex_lock(&store_held_mu);
	for (size_t i = 0; i < store_nheld; i++)
		if (store_held[i].dev == key.dev && store_held[i].ino == key.ino) {
			store_held[i] = store_held[--store_nheld];
			break;
		}
	if (add && store_nheld < sizeof store_held / sizeof *store_held)
		store_held[store_nheld++] = key;
	pthread_mutex_unlock(&store_held_mu);
}

static int store_lock(struct lt_store *st, struct lt_error *err)
{
	struct lt_buf msg;

	if (store_held_here(st->path))
		return 0;
	st->lock_fd = open(st->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (st->lock_fd < 0)
		return lt_error_set(err, LT_ERR_DB, "%s: cannot open store: %s", st->path,
				    strerror(errno));
	if (flock(st->lock_fd, LOCK_EX | LOCK_NB) == 0) {
		store_held_note(st->lock_fd, 1);
		return 0;
	}
	if (errno != EWOULDBLOCK)
		return 0; /* a file system without flock: unlocked, as before */
	lt_buf_init(&msg);
	lt_sanitize(&msg, st->path, strlen(st->path));
	fprintf(stderr,
		"leasetrail: %s: another leasetrail (ingest or rebuild) is writing this store; "
		"waiting for it to finish\n",
		msg.ptr);
	lt_buf_release(&msg);
	while (flock(st->lock_fd, LOCK_EX) != 0 && errno == EINTR)
		;
	store_held_note(st->lock_fd, 1);
	return 0;
}

/* Appends path to b as the path of an SQLite URI: every byte outside [A-Za-z0-9/._~-] %XX. */
static void store_uri_path(struct lt_buf *b, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/._~-", *p) != NULL) {
			lt_buf_putc(b, (char)*p);
			continue;
		}
		lt_buf_putc(b, '%');
		lt_buf_putc(b, hex[*p >> 4]);
		lt_buf_putc(b, hex[*p & 15]);
	}
}

/*
 * With LEASETRAIL_PROFILE set, prints on stderr each statement as it ends (is reset or
 * finalized) with the process CPU time from its first step, and the CPU time spent before
 * that step since the last statement's end (prepares, the schema's parse at the first one, the
 * program's own work): where a command's time goes, the open's own statements included.
 * SQLite's own profile clock counts whole milliseconds, too coarse here.  Statement text is
 * the program's (or `sql`'s argument): sanitized like any text bound for a terminal.
 */
static struct store_prof {
	void *stmt;
	int64_t start_ns;
} store_prof[STORE_PROFILE_OPEN];
static int64_t store_prof_last_ns;

static int64_t store_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The slot of stmt (add: a free one for it; NULL when there is none). */
static struct store_prof *store_prof_slot(void *stmt, int add)
{
	for (size_t i = 0; i < STORE_PROFILE_OPEN; i++)
		if (store_prof[i].stmt == (add ? NULL : stmt))
			return &store_prof[i];
	return NULL;
}

static void store_prof_print(void *stmt, int64_t now, int64_t start)
{
	const char *sql = sqlite3_sql(stmt);
	struct lt_buf b;

	lt_buf_init(&b);
	lt_sanitize(&b, sql ? sql : "", sql ? strnlen(sql, STORE_PROFILE_SQL) : 0);
	fprintf(stderr, "-- %8.3f ms cpu (%7.3f before it)  %s\n", (double)(now - start) / 1e6,
		(double)(start - store_prof_last_ns) / 1e6, b.ptr);
	lt_buf_release(&b);
}

static int store_profile(unsigned type, void *ctx, void *p, void *x)
{
	struct store_prof *slot = store_prof_slot(p, 0);
	int64_t now = store_cpu_ns();

	(void)ctx, (void)x;
	if (type == SQLITE_TRACE_STMT && slot == NULL && (slot = store_prof_slot(p, 1)) != NULL)
		*slot = (struct store_prof){.stmt = p, .start_ns = now};
	if (type != SQLITE_TRACE_PROFILE || slot == NULL)
		return 0;
	store_prof_print(p, now, slot->start_ns < store_prof_last_ns ? now : slot->start_ns);
	slot->stmt = NULL;
	store_prof_last_ns = store_cpu_ns();
	return 0;
}

static void store_profile_install(struct lt_store *st)
{
	if (getenv("LEASETRAIL_PROFILE") == NULL)
		return;
	if (store_prof_last_ns == 0)
		store_prof_last_ns = store_cpu_ns();
	sqlite3_trace_v2(st->db, SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE, store_profile, NULL);
}

/* Opens path read-only with the URI parameter param ("mode=ro", "immutable=1"); SQLite's rc. */
static int store_open_ro(struct lt_store *st, const char *param)
{
	struct lt_buf uri;
	int rc;

	lt_buf_init(&uri);
	lt_buf_append(&uri, "file:", 5);
	store_uri_path(&uri, st->path);
	lt_buf_printf(&uri, "?%s", param);
	rc = sqlite3_open_v2(uri.ptr, &st->db,
			     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	lt_buf_release(&uri);
	if (rc == SQLITE_OK) /* a first read: WAL mode needs its -shm, which may not be creatable */
		rc = sqlite3_exec(st->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
	return rc;
}

/* True when a non-empty -wal lies beside path: commits a writer had not yet checkpointed. */
static int store_wal_left(const char *path)
{
	struct lt_buf wal;
	struct stat sb;
	int left;

	lt_buf_init(&wal);
	lt_buf_printf(&wal, "%s-wal", path);
	left = stat(wal.ptr, &sb) == 0 && sb.st_size > 0;
	lt_buf_release(&wal);
	return left;
}

/*
 * A read-only open that writes nothing: mode=ro, else (the -shm of a WAL
 * store cannot be created: a read-only directory or medium) immutable=1,
 * which reads the main file alone without locks.  A store is checkpointed
 * whole when its last writer closes, so the main file is the store; what a
 * crashed writer left in a -wal is not seen then.
 */
static int store_open_readonly(struct lt_store *st)
{
	int rc = store_open_ro(st, "mode=ro");

	if (rc == SQLITE_OK || rc == SQLITE_NOTADB)
		return rc;
	sqlite3_close(st->db);
	st->db = NULL;
	st->wal_unread = store_wal_left(st->path);
	return store_open_ro(st, "immutable=1");
}

int lt_store_wal_unread(const struct lt_store *st)
{
	return st->wal_unread;
}

int lt_store_open(struct lt_store **out, const char *path, int flags, struct lt_error *err)
{
	struct lt_store *st;
	int rc;

	*out = NULL;
	if ((rc = store_check_exists(path, flags, err)) != 0)
		return rc;
	if (!(flags & LT_STORE_READONLY) && (rc = store_check_writable(path, err)) != 0)
		return rc;
	/*
	 * memory statistics take a global mutex on every allocation; nothing
	 * here reads them.  sqlite3_config must not race other SQLite calls:
	 * only the first open (on the main thread, before any helper thread
	 * exists) makes it.
	 */
	if (!store_configured) {
		store_configured = 1;
		sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
		if (flags & LT_STORE_READONLY)
			store_pagecache_install();
		store_fault_install();
		index_fault_vfs_install();
	}
	st = lt_xcalloc(1, sizeof *st);
	st->path = lt_xstrdup(path);
	st->lock_fd = -1;
	st->readonly = (flags & LT_STORE_READONLY) != 0;
	if (!st->readonly && (rc = store_lock(st, err)) != 0) {
		lt_store_free(st);
		return rc;
	}
	if (st->readonly)
		rc = store_open_readonly(st);
	else
		rc = sqlite3_open_v2(
		    path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
		    NULL);
	if (rc != SQLITE_OK) {
		rc = index_store_db_error(
		    st, err, rc == SQLITE_NOTADB ? "not a leasetrail store" : "cannot open store");
		lt_store_free(st);
		return rc;
	}
	store_profile_install(st);
	rc = store_configure(st, err);
	if (rc != 0)
		lt_error_set(err, LT_ERR_DB, "%s: not a leasetrail store (%s)", path,
			     sqlite3_errmsg(st->db));
	if (rc == 0)
		rc = index_raw_register(st, err);
	if (rc == 0)
		rc = index_audit_id_register(st, err);
	if (rc == 0)
		rc = index_fields_register(st, err);
	if (rc == 0)
		rc = index_store_schema(st, err);
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
	index_intern_release(&st->strs);
	index_raw_unregister(st);
	sqlite3_close(st->db);
	/* after the close: closing any descriptor of the file drops SQLite's POSIX locks */
	if (st->lock_fd >= 0) {
		store_held_note(st->lock_fd, 0);
		close(st->lock_fd);
	}
	free(st->path);
	free(st);
}

/* True when what follows the first statement holds no other: blanks, ';' and comments. */
static int store_rest_is_empty(struct lt_store *st, const char *tail)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if (tail == NULL || *tail == '\0')
		return 1;
	rc = sqlite3_prepare_v2(st->db, tail, -1, &s, NULL);
	sqlite3_finalize(s);
	return rc == SQLITE_OK && s == NULL;
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

/*
 * "no such index" from a prepare: a bulk load builds the secondary indexes at its end.  When
 * they are all there after all, an ingest beside this reader (its lifecycles computed on a
 * second connection) finished one between the two looks: one more prepare sees it.
 */
static int store_prepare(struct lt_store *st, struct lt_stmt **out, const char *sql, int again,
			 struct lt_error *err);

static int store_prepare_again(struct lt_store *st, struct lt_stmt **out, const char *sql,
			       int again, struct lt_error *err)
{
	int rc = index_store_check_indexes(st, err);

	if (rc != 0)
		return rc;
	if (!again)
		return lt_error_set(err, LT_ERR_DB, "cannot prepare a query: %s",
				    sqlite3_errmsg(st->db));
	return store_prepare(st, out, sql, 0, err);
}

static int store_prepare(struct lt_store *st, struct lt_stmt **out, const char *sql, int again,
			 struct lt_error *err)
{
	sqlite3_stmt *s = NULL;
	const char *tail = NULL;

	*out = NULL;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, &tail) != SQLITE_OK) {
		if (strstr(sqlite3_errmsg(st->db), "no such index") != NULL)
			return store_prepare_again(st, out, sql, again, err);
		/* the SQL's fault is a usage error; memory, I/O or a damaged store are the store's
		 */
		if (sqlite3_errcode(st->db) != SQLITE_ERROR)
			return index_store_db_error(st, err, "cannot prepare a query");
		return lt_error_set(err, LT_ERR_USAGE, "SQL error: %s", sqlite3_errmsg(st->db));
	}
	if (s == NULL)
		return lt_error_set(err, LT_ERR_USAGE, "no SQL statement given");
	if (!store_rest_is_empty(st, tail)) {
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

int lt_store_prepare(struct lt_store *st, struct lt_stmt **out, const char *sql,
		     struct lt_error *err)
{
	return store_prepare(st, out, sql, 1, err);
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

/* VM instructions between two looks at the clock under a time limit (a few µs of work). */
#define STORE_LIMIT_OPS 1000

static int64_t store_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* SQLite's progress handler under a time limit: nonzero interrupts the running step. */
static int store_over_limit(void *ctx)
{
	struct lt_store *st = ctx;

	if (st->spent_us + (store_now_us() - st->step_start_us) <= st->limit_us)
		return 0;
	st->timed_out = 1;
	return 1;
}

void lt_store_set_time_limit(struct lt_store *st, int64_t limit_us)
{
	st->limit_us = limit_us > 0 ? limit_us : 0;
	st->spent_us = 0;
	st->timed_out = 0;
	sqlite3_progress_handler(st->db, st->limit_us ? STORE_LIMIT_OPS : 0,
				 st->limit_us ? store_over_limit : NULL, st);
}

int lt_stmt_step(struct lt_stmt *s, struct lt_error *err)
{
	struct lt_store *st = s->st;
	int rc;

	if (st->limit_us)
		st->step_start_us = store_now_us();
	rc = sqlite3_step(s->s);
	if (st->limit_us)
		st->spent_us += store_now_us() - st->step_start_us;
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	if (rc == SQLITE_INTERRUPT && st->timed_out)
		return lt_error_set(err, LT_ERR_ABORT, "stopped after %.3g s: the time limit",
				    (double)st->limit_us / 1e6);
	return index_store_db_error(st, err, "query failed");
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

int64_t lt_stmt_last_rowid(const struct lt_stmt *s)
{
	return sqlite3_last_insert_rowid(sqlite3_db_handle(s->s));
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

	if ((rc = index_store_prepare_raw(st, &q, sql, err)) != 0)
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
		rc = index_store_db_error(st, err, "lookup failed");
	}
	sqlite3_finalize(q);
	return rc;
}

int lt_store_event_origin(struct lt_store *st, int64_t id, struct lt_event_origin *out,
			  struct lt_error *err)
{
	return store_origin(st,
			    "SELECT lt_raw(r.json), s.path, a.line, a.offset FROM audit AS a"
			    " JOIN audit_raw AS r ON r.id = a.id"
			    " JOIN sources AS s ON s.id = a.source_id WHERE a.id = ?1",
			    "event", id, out, err);
}

int lt_store_line_origin(struct lt_store *st, int64_t id, struct lt_event_origin *out,
			 struct lt_error *err)
{
	return store_origin(st,
			    "SELECT lt_raw(r.text), s.path, g.line, g.offset FROM lines AS g"
			    " JOIN lines_raw AS r ON r.id = g.id"
			    " JOIN sources AS s ON s.id = g.source_id WHERE g.id = ?1",
			    "log line", id, out, err);
}
