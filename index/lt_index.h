/*
 * lt_index.h - the SQLite store: schema, bulk loading, provenance.
 *
 * SQLite lives behind this header alone.  Ingestion streams records from
 * the parser into the store in bounded batches; each batch commits with the
 * source's progress, so a killed ingest leaves a consistent store and the
 * next run resumes where the last commit ended.  Reads go through the small
 * statement API below.
 */
#ifndef LT_INDEX_H
#define LT_INDEX_H

#include "lt_parser.h"

struct lt_store;
struct lt_stmt;

enum lt_store_flags {
	LT_STORE_READONLY = 1, /* open an existing store for reading only */
	LT_STORE_EXISTING = 2, /* open an existing store for writing: never create one */
};

/*
 * Opens (creating it unless LT_STORE_READONLY) the store at path, in WAL
 * mode so that queries can run while an ingest runs.  A file that exists
 * but is not a leasetrail store is an LT_ERR_DB error, never a crash.
 */
int lt_store_open(struct lt_store **out, const char *path, int flags, struct lt_error *err);
void lt_store_free(struct lt_store *st);

/*
 * True when a read-only open had to read the main file alone (immutable:
 * the -shm of WAL mode could not be created) while a non-empty -wal lies
 * beside it: the commits of a writer that never finished are not seen.
 */
int lt_store_wal_unread(const struct lt_store *st);

/* Sets this connection's page cache (default 16 MiB); 0 or LT_ERR_DB. */
int lt_store_set_cache(struct lt_store *st, int kib, struct lt_error *err);

/* The highest stored event id, 0 when the store is empty. */
int64_t lt_store_last_event_id(struct lt_store *st);

/* The path the store was opened with. */
const char *lt_store_path(const struct lt_store *st);

/* The default store path: $LEASETRAIL_DB, else ./leasetrail.db. */
const char *lt_store_default_path(void);

/* The version of the SQLite library linked ("3.40.1"), for `leasetrail version`. */
const char *lt_store_sqlite_version(void);

/* ---- ingestion ---------------------------------------------------------- */

/* What happened to one input file. */
enum lt_file_status {
	LT_FILE_INGESTED,  /* read to its end */
	LT_FILE_RESUMED,   /* an interrupted ingest of it was finished */
	LT_FILE_DUPLICATE, /* the same content was ingested before: nothing added */
	LT_FILE_TRUNCATED, /* a compressed stream ended early; what decoded is stored */
	LT_FILE_NOT_LOG,   /* not a format leasetrail reads: skipped */
	LT_FILE_FAILED,	   /* could not be read */
};

struct lt_file_report {
	const char *path;
	enum lt_file_status status;
	const char *detail; /* a one-line explanation, "" when none */
	int64_t source_id;  /* 0 when nothing was recorded */
	uint64_t bytes;	    /* on-disk bytes read */
	uint64_t records, stored, duplicates, skipped, rejected;
	uint64_t lines; /* of stored: log lines (the others are audit events) */
};

struct lt_ingest_progress {
	const char *path;
	uint64_t file_done, file_size; /* on-disk bytes of the current file */
	uint64_t records;	       /* records of the current file so far */
};

struct lt_ingest_opts {
	int all_resources;     /* store events of every resource, not only leases and nodes */
	int year;	       /* > 0: the year of year-less log times (journal short, klog) */
	int64_t utc_offset_us; /* the nodes' local time minus UTC, for zone-less log times */
	int utc_offset_given;  /* --utc-offset was given: it wins over a journal header's zone */
	const char *node;      /* the node every log line of these files comes from (--node) */
	const char *cluster;   /* the cluster of every record of these files (--cluster), over
				  what the files name (index-cluster.c); NULL: theirs */
	int follow;	       /* walk into symbolic links to directories met in a directory */
	/* May be NULL.  When set, a text log among the paths (sniffed by content) is not
	 * read but handed here, so the caller can ingest it after the rest: its year-less
	 * times can then take the year of the audit events read before it.  Stdin is read
	 * at once, whatever it holds. */
	void (*on_text_log)(const char *path, void *ctx);
	/* Each rejected record as it is found (reason already sanitized); may be NULL. */
	void (*on_reject)(const struct lt_where *at, const char *reason, void *ctx);
	/* Each file when it is done or skipped; may be NULL. */
	void (*on_file)(const struct lt_file_report *r, void *ctx);
	/* Now and then while a file is read; may be NULL. */
	void (*on_progress)(const struct lt_ingest_progress *p, void *ctx);
	void *ctx;
};

struct lt_ingest_totals {
	uint64_t files, files_duplicate, files_not_log, files_failed, files_truncated;
	uint64_t bytes, records, stored, duplicates, skipped, rejected;
	uint64_t lines; /* of stored: log lines */
};

/*
 * Ingests path: a file, "-" for stdin, a pipe, or a directory walked
 * recursively (in name order; files that are not logs are reported and
 * skipped; links to directories followed only with opts->follow; each
 * directory walked once).
 * Adds to *totals.  Returns 0 when every file was read (rejected records
 * and skipped files included), LT_ERR_IO when a file could not be read
 * (the others are still ingested), or LT_ERR_DB when the store failed.
 */
int lt_store_ingest(struct lt_store *st, const char *path, const struct lt_ingest_opts *opts,
		    struct lt_ingest_totals *totals, struct lt_error *err);

/* What lt_store_redate tells of the text sources. */
struct lt_redate_opts {
	int64_t new_since; /* sources above this id were read by this run: their guesses are told */
	/* each thing worth saying of a source: its re-dating, a year or zone it only guesses */
	void (*note)(const char *path, const char *text, void *ctx);
	void *ctx;
	/*
	 * The derived tables whose rows read the lines' times (NULL-terminated;
	 * NULL: none): when any line moves, each is marked stale
	 * (lt_store_derived_stale) in the transaction that moved it.
	 */
	const struct lt_derived *const *line_readers;
};

/*
 * Weighs each text source's year and zone again against what the store now
 * holds (audit events, the dates its lines write, other files of its host)
 * and moves its lines when they change (index-redate.c).  Its own
 * transaction; o may be NULL.  0 or LT_ERR_DB.
 */
int lt_store_redate(struct lt_store *st, const struct lt_redate_opts *o, struct lt_error *err);

/* The id of the newest source, 0 when none. */
int64_t lt_store_last_source(struct lt_store *st);

/* The on-disk bytes lt_store_ingest would read under path (progress totals); 0 for stdin. */
uint64_t lt_ingest_size(const char *path, const struct lt_ingest_opts *opts);

/*
 * Brackets a run of lt_store_ingest calls.  Into an empty store, begin drops
 * the secondary indexes and end builds each once by sorting, which is far
 * cheaper than keeping them up to date row by row.  If the run is killed in
 * between, the next writable open creates them again.  Meanwhile `stats`, `show` and `sql` work; a
 * query needing a missing index says why it fails.
 */
int lt_store_ingest_begin(struct lt_store *st, struct lt_error *err);

/*
 * What runs beside lt_store_ingest_end's index builds, on a second thread;
 * each job must use a connection of its own.  early (may be NULL) starts at
 * once, before any index is built: it must read none.  during (may be NULL)
 * starts after early, once the audit indexes (audit_rtv, audit_object)
 * exist, while the log lines' indexes are built; it is skipped when their
 * build fails.
 */
struct lt_ingest_beside {
	void (*early)(void *ctx);
	void (*during)(void *ctx);
	void *ctx;
};

/*
 * Builds what begin deferred, with beside's jobs (beside may be NULL) on a
 * second thread.  Without deferred indexes, or when no thread can be
 * started, the jobs run on this thread: early first, during once the audit
 * indexes exist.
 */
int lt_store_ingest_end(struct lt_store *st, const struct lt_ingest_beside *beside,
			struct lt_error *err);

/* True between an ingest_begin that deferred the indexes and its ingest_end. */
int lt_store_bulk_loading(const struct lt_store *st);

/* A node the store knows, by its strs id and name. */
struct lt_node_name {
	int64_t id;
	const char *name;
};

/*
 * Maps the host names of stored log lines to the nodes names[0..n-1]
 * (sorted by name, as strcmp orders them; the layer above knows which nodes
 * there are): the same name, the node whose name starts with "HOST." (a
 * short host name), or the node named like the host's first label.  A host
 * that maps to no node stays its own node.  Run it inside a transaction:
 * the mapping of lines and hosts then changes all at once.
 */
int lt_store_map_hosts(struct lt_store *st, const struct lt_node_name *names, size_t n,
		       struct lt_error *err);

/* True when some stored event carried a Lease body (RequestResponse level). */
int lt_store_has_lease_bodies(struct lt_store *st);

/*
 * The log lines worth a row in a timeline: errors, warnings, not-found
 * reports and everything the classification table knows.  Queries repeat
 * this condition word for word, so the partial index on it can serve them.
 * The severities are compared one by one, not by IN: building the index, SQLite
 * 3.40 makes an IN list's table anew for every row (0.62 s against 0.14 s of CPU
 * on 720 000 lines).  Schema 13 builds lines_notable with this text.
 */
#define LT_LINE_NOTABLE                                                                            \
	"((severity = 'E' OR severity = 'F' OR severity = 'W') OR not_found > 0 OR"                \
	" kind_id IS NOT NULL)"

/*
 * A log line's time (schema 13): lines_row stores ts_d, the line's ts_us less
 * LT_LINE_EPOCH_US (2025-01-01T00:00:00Z), which SQLite stores in 6 bytes for every time within
 * 2^47 microseconds (4.46 years) of it, in the row and in each lines index, instead of 8 (a
 * time farther away takes 8 bytes, exactly as before).  lines_row.ts_us is a virtual generated
 * column, ts_d plus the epoch, stored nowhere: what reads a line's time reads ts_us, through
 * lines_row or the lines view, unchanged.  The lines indexes are on ts_d: a statement that
 * bounds or orders lines by time through one of them compares ts_d with the bound turned by
 * LT_LINE_TS_D_SQL (the offset keeps the order; SQLite does not see through the generated
 * column).  A bound that is not a time (INT64_MIN) becomes a real there, which compares as it
 * should.
 */
#define LT_LINE_EPOCH_US  INT64_C(1735689600000000)
#define LT_LINE_EPOCH_SQL "1735689600000000"
/* The epoch in seconds: a whole second, so ts_d's second plus it is ts_us's second. */
#define LT_LINE_EPOCH_S_SQL "1735689600"
/* The time t (an SQL expression of a ts_us) as lines_row.ts_d, to compare with it. */
#define LT_LINE_TS_D_SQL(t) "(" t " - " LT_LINE_EPOCH_SQL ")"

/*
 * A log line's number in its file (A: the alias of a row of lines_row), the lines view's line
 * (schema 13): lines_row stores line_d, the number less how far the line's id lies past its
 * source's first line's (log_sources.first_id, which a source keeps from its first stored line
 * on): the lines of a file stored one after another share one line_d, 0 or 1 (no byte in the
 * row), until a line of it is left out (a duplicate, a rejected line), instead of 2-3 bytes a
 * line.  A subquery, which a read runs only when it names line (a join of log_sources in the
 * view cost every aggregate over lines a seek a row: SQLite 3.40 keeps a LEFT JOIN there).
 */
#define LT_LINE_NUMBER_SQL(a)                                                                      \
	"(" a ".line_d + " a                                                                       \
	".id - coalesce((SELECT first_id FROM log_sources WHERE source_id = " a ".source_id), " a  \
	".id))"

/*
 * A rare column of a log line (A: the alias of a row of lines, or of lines_row, its base
 * table): schema 12 keeps lkey, klog_us, obj_kind_id, obj_namespace_id, obj_uid, message,
 * ext_id and stream_id in lines_more, a row only for a line that has one of them; the lines
 * view joins it, and a query that reads lines_row through one of its indexes (INDEXED BY
 * names a table, not a view) reads the column with this.
 */
#define LT_LINE_RARE_SQL(a, col) "(SELECT " col " FROM lines_more WHERE id = " a ".id)"

/*
 * A log line's message (A: the alias of a lines row), one definition for the logs view and
 * every query that reads lines directly.  Schema 8 stores no text for a message that is a
 * slice of the line's raw record (nearly every one: it is part of the line as read): only
 * where it lies, msg_at and msg_len, bytes into the raw line, and reads it from there: from
 * its block (schema 9, lt_raw_of), else from its row of lines_raw_rows (lt_raw).  A message
 * that is not a slice of its line (one unquoted, unescaped) and the lines of older schemas
 * keep their text in message (lines_more, schema 12), msg_at NULL.  NULL when the line has no
 * message.
 */
#define LT_LINE_MESSAGE_OF(a, text)                                                                \
	"CASE WHEN " a ".msg_at IS NULL THEN " text " ELSE CAST(substr(CAST(coalesce("             \
	"lt_raw_of('lines', " a ".id), lt_raw((SELECT text FROM lines_raw_rows WHERE id = " a      \
	".id))) AS BLOB), " a ".msg_at + 1, " a ".msg_len) AS TEXT) END"
#define LT_LINE_MESSAGE_SQL(a) LT_LINE_MESSAGE_OF(a, a ".message")
/* The same of a row of lines_row (schema 12), whose text lies in lines_more. */
#define LT_LINE_MESSAGE_ROW_SQL(a) LT_LINE_MESSAGE_OF(a, LT_LINE_RARE_SQL(a, "message"))

/*
 * A log line's fields (A: the alias of a lines row), one definition for the logs view and
 * every query that reads lines directly: a structured klog line's key=value tail as a JSON
 * object, NULL when the line has none.  Schema 10 stores an empty blob, its mark, when the
 * store's frozen decoder (index-fields.c, lt_line_fields) rebuilds the parser's object from
 * the raw line after the message's closing quote (byte msg_at + msg_len), and reads it from
 * there; every other value (text, or a packed value, and every line of older schemas) is
 * read as it is stored, through lt_raw.
 */
#define LT_LINE_FIELDS_SQL(a)                                                                      \
	"CASE WHEN " a ".fields = X'' THEN lt_line_fields(lt_raw_of('lines', " a ".id), " a        \
	".msg_at + " a ".msg_len) ELSE lt_raw(" a ".fields) END"

/*
 * An audit row's requestReceivedTimestamp and its latency (stageTimestamp minus it), in
 * microseconds, where a is the row's table or alias.  Schema 9 stores the latency
 * (audit.latency_us: 0-3 bytes, 0 for most stages) and no received_us (8 bytes); the rows
 * of older schemas keep received_us and no latency_us.  Either way both read back as the
 * record said (received_us is stageTimestamp when the record had no requestReceivedTimestamp).
 */
#define LT_AUDIT_RECEIVED_SQL(a) "coalesce(" a ".received_us, " a ".stage_us - " a ".latency_us)"
#define LT_AUDIT_LATENCY_SQL(a)	 "coalesce(" a ".latency_us, " a ".stage_us - " a ".received_us)"

/*
 * The log stream (text) of the audit row whose id is the SQL expression id, when it came from
 * a cloud's export (NULL when not): schema 10 keeps it as a strs id in audit_ext_packed, which
 * this reads without the audit_ext view's other column.
 */
#define LT_AUDIT_STREAM_SQL(id)                                                                    \
	"(SELECT t.s FROM strs AS t WHERE t.id = (SELECT x.stream_id FROM audit_ext_packed AS x"   \
	" WHERE x.id = " id "))"

/*
 * Who is behind an audit row's user, as one text (the `identity` column of
 * every surface): the identity its record named (audit.identity_id: EKS's
 * IAM ARN and session, AKS's object id, a token's pod, GKE's subject and
 * delegation), then "as USER" when the request impersonated USER; NULL when
 * neither.  A is the alias of an audit row; one definition for the events
 * view and every query that reads audit directly.
 */
#define LT_IDENTITY_SQL(a)                                                                         \
	"nullif(trim(coalesce((SELECT s FROM strs WHERE id = " a ".identity_id), '')"              \
	" || coalesce(' as ' || (SELECT s FROM strs WHERE id = " a ".impersonated_id), '')), '')"

/* ---- derived tables ----------------------------------------------------- */

/*
 * Tables that a layer above derives from the stored events and lines (the
 * query layer's lifecycles), registered by it: the store knows nothing of
 * what they hold.  It keeps their DDL current and records, per name, the
 * version of the rules that built the rows and how far they cover (the
 * newest event and log line they were built from), written in the same
 * transaction as the rows, so that a reader can tell rows that lag behind
 * the events from current ones, and a writer can catch up.
 */
struct lt_derived {
	const char *name; /* its row in the store's table `derived` */
	int version;	  /* of the rules: bumped when the same events derive other rows */
	/*
	 * NULL-terminated statements run at every writable lt_store_derive:
	 * CREATE ... IF NOT EXISTS, and DROP VIEW IF EXISTS before each view so
	 * that a store always has this binary's view definitions.  May be NULL.
	 */
	const char *const *schema;
	/* The same tables and views as TEMP objects (for a read-only overlay); may be NULL. */
	const char *const *overlay;
};

/* What the store records of a derived table; all 0 when it has no record. */
struct lt_derived_state {
	int known;
	int version;
	int64_t event_id, line_id; /* the newest audit event and log line its rows cover */
};

/*
 * Reads d's state and, on a writable store, runs d->schema.  A store whose
 * d was built by a newer leasetrail (a higher version) is LT_ERR_DB and is
 * not touched: nothing older may rewrite what it does not understand.
 */
int lt_store_derive(struct lt_store *st, const struct lt_derived *d, struct lt_derived_state *state,
		    struct lt_error *err);

/* Reads what the store records of name (read-only stores too); always 0. */
int lt_store_derived_state(struct lt_store *st, const char *name, struct lt_derived_state *out);

/* Runs d->overlay: TEMP shadows, visible to this connection only. */
int lt_store_derive_overlay(struct lt_store *st, const struct lt_derived *d, struct lt_error *err);

/*
 * Records that d's rows, at d->version, cover the events and lines up to
 * covers->event_id and ->line_id.  Call it inside the transaction that
 * wrote the rows: the record and the rows commit (or vanish) together.
 */
int lt_store_derived_mark(struct lt_store *st, const struct lt_derived *d,
			  const struct lt_derived_state *covers, struct lt_error *err);

/*
 * Records that d's rows no longer stand for the stored rows they were read
 * from (some changed in place: lines re-dated): its coverage becomes
 * LT_DERIVED_STALE, which no store reaches, so the next update rebuilds it
 * from nothing and a reader is told it is out of date.  Call it inside the
 * transaction that changed the rows.  A table with no record is left so.
 */
#define LT_DERIVED_STALE (-1)
int lt_store_derived_stale(struct lt_store *st, const struct lt_derived *d, struct lt_error *err);

/* The newest stored audit event id and log line id (0 when none). */
void lt_store_newest(struct lt_store *st, int64_t *event_id, int64_t *line_id);

/* ---- reading ------------------------------------------------------------ */

enum lt_col_type { LT_COL_NULL, LT_COL_INT, LT_COL_REAL, LT_COL_TEXT, LT_COL_BLOB };

/*
 * Prepares one SQL statement; every value goes in through a bind, never
 * into sql.  SQL that does not compile, is empty, or holds a second
 * statement is LT_ERR_USAGE with SQLite's reason.
 */
int lt_store_prepare(struct lt_store *st, struct lt_stmt **out, const char *sql,
		     struct lt_error *err);
void lt_stmt_free(struct lt_stmt *s);

/* Binds are 1-based like SQLite's; len (size_t)-1 means strlen(v). */
int lt_stmt_bind_text(struct lt_stmt *s, int idx, const char *v, size_t len);
int lt_stmt_bind_int(struct lt_stmt *s, int idx, int64_t v);
int lt_stmt_bind_null(struct lt_stmt *s, int idx);

/* 1 when a row is ready, 0 when done, negative on error (err filled). */
int lt_stmt_step(struct lt_stmt *s, struct lt_error *err);

/*
 * Limits the time SQLite may work on st's statements from now on (a
 * runaway `sql`): once their steps together have run for longer than
 * limit_us, the running step fails with LT_ERR_ABORT.  Only the time inside
 * steps counts, not the time between them (printing, waiting for a pipe's
 * reader).  0 lifts the limit.
 */
void lt_store_set_time_limit(struct lt_store *st, int64_t limit_us);
int lt_stmt_reset(struct lt_stmt *s);

/* True when the statement cannot write (the `sql` command refuses others). */
int lt_stmt_readonly(const struct lt_stmt *s);

/* The rowid of the last row an INSERT gave on s's connection (sqlite3_last_insert_rowid). */
int64_t lt_stmt_last_rowid(const struct lt_stmt *s);

int lt_stmt_columns(const struct lt_stmt *s);
const char *lt_stmt_name(const struct lt_stmt *s, int col);
enum lt_col_type lt_stmt_type(const struct lt_stmt *s, int col);
int64_t lt_stmt_int(const struct lt_stmt *s, int col);
double lt_stmt_real(const struct lt_stmt *s, int col);
/* Borrowed until the next step; never NULL ("" for NULL); *len may be NULL. */
const char *lt_stmt_text(const struct lt_stmt *s, int col, size_t *len);

/*
 * Looks up one stored event by id: its raw JSON and where it came from.
 * Returns LT_ERR_NOTFOUND when there is no such event.  The strings are
 * copied into the caller's buffers.
 */
struct lt_event_origin {
	struct lt_buf raw;
	struct lt_buf file;
	uint64_t line, offset;
};
int lt_store_event_origin(struct lt_store *st, int64_t id, struct lt_event_origin *out,
			  struct lt_error *err);

/* The same for a stored log line (timelines show its id as L<id>). */
int lt_store_line_origin(struct lt_store *st, int64_t id, struct lt_event_origin *out,
			 struct lt_error *err);

#endif
