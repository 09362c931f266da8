/* index-int.h - private interfaces between the store's files. */
#ifndef INDEX_INT_H
#define INDEX_INT_H

#include "lt_index.h"

#include <sqlite3.h>

/*
 * An in-memory cache of interned strings: text -> strs.id.  Slots are 8 bytes (a tag of the
 * hash's high half, the entry's offset in the arena), so the table of a log's ~21 000 strings
 * is 512 KB instead of 2 MB; each entry holds its id, length and bytes together in the arena,
 * so a hit reads one slot and one run of bytes, not a slot, then a malloc'd string elsewhere.
 */
struct index_intern_slot {
	uint32_t tag; /* (hash >> 32) | 1; 0 marks an empty slot */
	uint32_t at;  /* the entry's offset in the arena */
};

struct index_intern_cache {
	struct index_intern_slot *slots;
	size_t cap, used;
	char *arena; /* the entries, 8-byte aligned: int64 id, uint64 length, the bytes */
	size_t arena_len, arena_cap;
	uint64_t gen; /* bumped by index_intern_clear: memos of an older one are stale */
	/*
	 * complete: every row of strs is in the cache (strs was empty when this generation
	 * began, and the cache was not cleared since), so a string the cache misses is new and
	 * goes straight to the INSERT; checked: this generation has looked
	 */
	int complete, checked;
};

/* One column's last string and its id: most columns repeat the previous event's. */
struct index_intern_memo {
	char *s;
	size_t len, cap;
	int64_t id;
	uint64_t gen;
};

/* The clusters of one load's records (index-cluster.c). */
struct index_cluster {
	struct lt_str given; /* --cluster, else the path's cluster; ptr NULL when neither */
	int given_wins;	     /* --cluster: the records' own do not count */
	struct index_intern_memo memo;
	int64_t seen[8]; /* ids this load listed in clusters */
	size_t nseen;
	int64_t file_id; /* the id every record so far had; -1 none yet, -2 several */
	sqlite3_stmt *add;
};

void index_cluster_init(struct index_cluster *c, const char *given, const char *path);
void index_cluster_release(struct index_cluster *c);

/* The strs id of the cluster of the record at (0: none named); audit: an audit event. */
int index_cluster_id(struct index_cluster *c, struct lt_store *st, const struct lt_where *at,
		     int audit, int64_t *id, struct lt_error *err);

/* Records on the source the cluster all of its records had, when one was named. */
int index_cluster_save(struct index_cluster *c, struct lt_store *st, int64_t source_id,
		       struct lt_error *err);

/* A connection's page cache, KiB (store_configure): the footprint's bound. */
#define INDEX_CACHE_KIB 16384
/*
 * The writer's page cache while a bulk load's deferred indexes are built (lt_store_ingest_end).
 * SQLite's sorter sorts in buffers of the cache's size: 16 MiB ones set the ingest's peak RSS
 * (51 MB of a 180 MB journal's ingest, 37 MB with 4 MiB) and cost no less CPU, their pages
 * faulted in afresh (bench/RESULTS.md, branch jpost).  Sorts of more than 16 buffers' keys
 * (64 MiB) merge in two passes instead of one.
 */
#define INDEX_BUILD_CACHE_KIB 4096
#define INDEX_STR_(x)	      #x
#define INDEX_STR(x)	      INDEX_STR_(x)

struct lt_store {
	sqlite3 *db;
	char *path;
	int readonly;
	int lock_fd;	      /* a writable store's flock(2): one writer at a time; -1 when none */
	int wal_unread;	      /* opened immutable=1 with a non-empty -wal beside it */
	int deferred_indexes; /* a bulk load dropped the secondary indexes (ingest_begin) */
	struct index_intern_cache strs;
	sqlite3_stmt *str_find, *str_add;
	/* lt_store_set_time_limit: the limit, the steps' time so far, the running step's start */
	int64_t limit_us, spent_us, step_start_us;
	int timed_out; /* the limit interrupted a step */
	struct raw_reader
	    *raw; /* lt_raw's state (index-raw.c), its statements finalized on close */
};

struct lt_stmt {
	struct lt_store *st;
	sqlite3_stmt *s;
};

/* With LEASETRAIL_FAULT=io:N, SQLite's Nth write fails as on a full disk (index-fault.c). */
void index_fault_vfs_install(void);

/* Creates the schema in a new store, or checks that an existing one is ours. */
int index_store_schema(struct lt_store *st, struct lt_error *err);

/* Creates the secondary indexes of audit that do not exist. */
int index_store_create_indexes(struct lt_store *st, struct lt_error *err);
/* Creates lines_node if a bulk load deferred it (the dedupe probe reads it, index-logs.c). */
int index_store_create_lines_node(struct lt_store *st, struct lt_error *err);

/* LT_ERR_DB, saying what to do, when a secondary index is missing. */
int index_store_check_indexes(struct lt_store *st, struct lt_error *err);

/* Runs SQL with no results; fills err on failure. */
int index_store_exec(struct lt_store *st, const char *sql, struct lt_error *err);

/* Prepares a statement for the store's own use. */
int index_store_prepare_raw(struct lt_store *st, sqlite3_stmt **out, const char *sql,
			    struct lt_error *err);

/* An LT_ERR_DB error carrying SQLite's message. */
int index_store_db_error(struct lt_store *st, struct lt_error *err, const char *what);

/* The id of a string in strs, added if new; *id = 0 for an absent string. */
int index_intern_id(struct lt_store *st, struct lt_str s, int64_t *id, struct lt_error *err);

/* index_intern_id, answered from the memo when s is the memo's string. */
int index_intern_id_memo(struct lt_store *st, struct index_intern_memo *m, struct lt_str s,
			 int64_t *id, struct lt_error *err);
void index_intern_memo_release(struct index_intern_memo *m, size_t n);

/* One string of a batch of index_intern_ids_memo: its column's memo, the string, its id. */
struct index_intern_req {
	struct index_intern_memo *memo;
	struct lt_str s;
	int64_t *id;
	uint64_t hash; /* set by index_intern_ids_memo */
};

/*
 * index_intern_id_memo of each of n strings, in their order (the same ids as one by one): the
 * memos are checked and the cache slots of the strings they miss prefetched before the first
 * lookup, so that an event's cache misses overlap instead of following one another.
 */
int index_intern_ids_memo(struct lt_store *st, struct index_intern_req *r, size_t n,
			  struct lt_error *err);

/* Forgets cached ids (after a rollback, ids of the rolled-back strings are gone). */
void index_intern_clear(struct index_intern_cache *c);
void index_intern_release(struct index_intern_cache *c);

struct index_raw_share;
struct index_raw_coded;

/*
 * The records compressed on the parser's thread: a line's fields.  (An event's and a line's
 * raw text go in blocks the writer compresses whole, since schema 9: nothing to do early.)
 */
enum index_pipe_slot { INDEX_PIPE_FIELDS, INDEX_PIPE_SLOTS };

/*
 * The loader's work done on the parser's thread (index_pipe_parse): a line's
 * fields compressed there with the dictionary their writer settled on, so
 * the writing thread binds them as they are (index_raw_pack_coded).
 */
struct index_pipe_prep {
	/* in place of the sink's log, on the calling thread */
	int (*log)(const struct lt_log_line *ln, const struct lt_where *at,
		   const struct index_raw_coded *coded, void *ctx);
	/* on the calling thread after each batch: the fields writer's share (the only one that
	 * settles: raw records go in blocks) */
	void (*share)(struct index_raw_share *out, void *ctx);
};

/*
 * lt_parse_input() with the parsing on a worker thread: the sink's
 * callbacks still run on the calling thread, in input order.  With prep
 * (optional), its log replaces the sink's.
 */
int index_pipe_parse(struct lt_input *in, const struct lt_sink *sink,
		     const struct index_pipe_prep *prep, void *ctx, enum lt_format *format_out,
		     struct lt_error *err);

/* ---- raw records, compressed (index-raw.c, index-rawblock.c; read by index-rawread.c) ---- */

enum index_raw_table { INDEX_RAW_AUDIT, INDEX_RAW_LINES, INDEX_RAW_FIELDS };

/*
 * One load's writer of one raw table.  audit_raw and lines_raw (schema 9):
 * consecutive records gathered into a block, compressed and stored as one row
 * of audit_blocks or lines_blocks when it fills or the batch commits.
 * lines.fields (a packer): the first values, which the caller stores as text, are kept
 * in memory as samples until a dictionary is trained on them; every later value is
 * compressed one by one.  Embedded: _init/_release; a writer whose
 * transaction was rolled back is released (its blocks' dictionary may be gone with it).
 */
struct index_raw_writer {
	struct lt_store *st;
	enum index_raw_table table;
	int64_t source_id;
	sqlite3_stmt *ins; /* a block's insert */
	int settled;	   /* trained (or decided against a dictionary): compressing */
	struct ZSTD_CCtx_s *cctx;
	const struct ZSTD_CDict_s *cdict;
	void *cdict_ws;	       /* cdict's memory (ZSTD_initStaticCDict) */
	int64_t dict_id;       /* raw_dicts.id of cdict */
	struct lt_buf samples; /* the samples' bytes, end to end (INDEX_RAW_FIELDS) */
	size_t *sizes;	       /* each sample's length */
	size_t nsamples, cap_samples;
	unsigned char *blob; /* the last compressed record, or block */
	size_t blob_len, blob_cap;
	/* a table of blocks (INDEX_RAW_AUDIT, INDEX_RAW_LINES, schema 9): the open block */
	struct lt_buf body; /* its records, end to end, then (when written) its directory */
	struct lt_buf dir;  /* per record: varint id gap from the one before, varint length */
	int64_t block_first, block_last; /* its first and last record's ids */
	size_t block_n;			 /* its records */
	size_t last_raw, last_packed;	 /* the last block's bytes, as records and stored */
	struct raw_async *async;	 /* its compressor (index-rawblock.c) */
};

void index_raw_writer_init(struct index_raw_writer *w, struct lt_store *st,
			   enum index_raw_table table, int64_t source_id);
void index_raw_writer_release(struct index_raw_writer *w);

/*
 * Stores record p (n bytes) of row id (ids ascending) in the writer's table,
 * inside the caller's transaction: in the open block, written when it fills or
 * by index_raw_flush before the commit.  sqlite3_last_insert_rowid() is left
 * as the caller's last insert made it, never a block's.
 */
int index_raw_put(struct index_raw_writer *w, int64_t id, const char *p, size_t n,
		  struct lt_error *err);

/*
 * A packer (INDEX_RAW_FIELDS) of a text column the caller inserts: *out (borrowed until the
 * next call) the compressed value to bind as a blob, or NULL to bind p as text (the values
 * the dictionary is trained on, a value compression would not shrink, p NULL).
 */
int index_raw_pack(struct index_raw_writer *w, const char *p, size_t n, const void **out,
		   size_t *len, struct lt_error *err);

/*
 * Before every commit: the open block, or the samples not yet stored (a small source), are
 * stored now, so a committed row always has its raw record.
 */
int index_raw_flush(struct index_raw_writer *w, struct lt_error *err);

/*
 * What a writer compresses with once settled (index_raw_share_of, on the writer's
 * thread): a coder given it elsewhere makes the bytes the writer would.  settled 0:
 * the writer still samples; the writer compresses what comes to it uncoded.
 */
struct index_raw_share {
	int settled;
	const struct ZSTD_CDict_s *cdict; /* read only while compressing: shared */
	int64_t dict_id;		  /* raw_dicts.id of cdict, 0 without */
};

/*
 * A line's fields check (index_fields_derives) as the parser's thread made it (index-pipe.c):
 * unchecked (0, the writer checks), the mark, or text (packed or not).
 */
enum index_fields_verdict { INDEX_FIELDS_UNCHECKED, INDEX_FIELDS_MARK, INDEX_FIELDS_TEXT };

/*
 * A record compressed away from the writer, and with what (by.settled 0: it was not); for the
 * fields slot, the check's verdict too (a mark is not compressed).
 */
struct index_raw_coded {
	struct index_raw_share by;
	const void *blob; /* NULL: the blob would not be smaller, the text is stored */
	size_t len;
	enum index_fields_verdict verdict;
};

void index_raw_share_of(struct index_raw_share *out, const struct index_raw_writer *w);

/* A compressor of its own for another thread (index-pipe.c): _new (NULL: no memory)/_free. */
struct index_raw_coder;
struct index_raw_coder *index_raw_coder_new(void);
void index_raw_coder_free(struct index_raw_coder *c);

/*
 * Compresses p (n bytes) as a writer sharing s would; out->blob is borrowed until c's next
 * call.  Fails silently (out->by.settled 0): the writer then compresses, and reports.
 */
void index_raw_coder_encode(struct index_raw_coder *c, const struct index_raw_share *s,
			    const char *p, size_t n, struct index_raw_coded *out);

/*
 * index_raw_pack given what a coder made of p: index_raw_pack_coded uses it as it is when it
 * was made with the packer's present dictionary, else the packer compresses p itself; the store
 * holds the same bytes either way.  A block writer never shares a settled dictionary: its raw
 * records go to index_raw_put as they are.
 */
int index_raw_pack_coded(struct index_raw_writer *w, const char *p, size_t n,
			 const struct index_raw_coded *coded, const void **out, size_t *len,
			 struct lt_error *err);

/*
 * Registers lt_raw(value), a stored raw value's text, and lt_raw_of(table, id), the text of
 * record id of 'audit' or 'lines' read from its block (NULL when no block holds it: a row of
 * audit_raw_rows or lines_raw_rows, of schema 8 and before) on the store's connection.
 */
int index_raw_register(struct lt_store *st, struct lt_error *err);

/* Before the connection closes: finalizes the statements lt_raw_of keeps. */
void index_raw_unregister(struct lt_store *st);

/*
 * A log line's fields read back from its raw line (index-fields.c, schema 10): lines.fields
 * holds INDEX_FIELDS_MARK_V1, an empty blob, when decoder 1 rebuilds from the raw line the
 * parser's fields byte for byte (LT_LINE_FIELDS_SQL reads it back).
 */
struct index_fields_check {
	struct lt_buf out, tmp; /* the decoded object, and a value being unquoted */
};

void index_fields_check_init(struct index_fields_check *c);
void index_fields_check_release(struct index_fields_check *c);

/*
 * Decoder 1 on the raw line raw[0..len), the message's closing quote at byte at: 1 with the
 * fields' JSON object in out (tmp: scratch), 0 when the decoder declines (no quote at at, no
 * "key=" after it).  Frozen: a stored mark reads through it forever.
 */
int index_fields_decode(struct lt_buf *out, struct lt_buf *tmp, const char *raw, size_t len,
			size_t at);

/*
 * Where a log line's message lies in its raw line (index-logs.c): its first occurrence there,
 * the same whether the message is a slice of the raw line (the pipe's alias, a klog message
 * that reads as written) or a copy; an empty slice where it lies; -1 when it is not in the raw
 * line (or there is no message or raw line).  The pipe's fields check and the writer's msg_at
 * both use it, so a line is stored alike with the parser's thread and without.
 */
ptrdiff_t index_log_message_at(const struct lt_log_line *ln);

/* 1 when decoder 1 on raw at at gives exactly fields (then the line stores the mark), else 0. */
int index_fields_derives(struct index_fields_check *c, struct lt_str raw, size_t at,
			 struct lt_str fields);

/* Registers lt_line_fields(raw, at), decoder 1 in SQL, on the store's connection. */
int index_fields_register(struct lt_store *st, struct lt_error *err);

/*
 * A line's klog time in SQL (prefix: "g." or ""): schema 7 stores it as klog_d, its distance
 * from ts_us (0, stored in no byte, for nearly every line); an upgraded store's older lines
 * keep klog_us.  NULL when the line has none.
 */
#define INDEX_KLOG_US_SQL(prefix) "coalesce(" prefix "klog_us, " prefix "ts_us + " prefix "klog_d)"

/* ---- auditIDs (index-auditid.c) ---- */

/* The bytes of a canonical auditID (a UUID) as stored, and the events view's text of one. */
#define INDEX_AUDIT_ID_BYTES 16
/*
 * The events view's audit_id from a stored one (col, an SQL column): a blob spelled as the
 * lowercase UUID it was packed from, text as it is.  Plain SQL (no function of ours).
 */
#define INDEX_AUDIT_ID_SQL(col)                                                                    \
	"CASE typeof(" col ") WHEN 'blob' THEN lower(substr(hex(" col "), 1, 8) || '-' ||"         \
	" substr(hex(" col "), 9, 4) || '-' || substr(hex(" col "), 13, 4) || '-' ||"              \
	" substr(hex(" col "), 17, 4) || '-' || substr(hex(" col "), 21)) ELSE " col " END"

/*
 * 1 with out the 16 bytes of s when s (len bytes, may be NULL) is a canonical UUID: 36
 * characters, lowercase hex in groups of 8-4-4-4-12 joined by dashes; else 0 (store s as text).
 */
int index_audit_id_pack(unsigned char out[INDEX_AUDIT_ID_BYTES], const char *s, size_t len);

/*
 * Binds auditID p (len bytes; NULL leaves col NULL) to col of s: packed into buf, or as text.
 * Nothing is copied: p and buf must outlive the statement's next step.
 */
void index_audit_id_bind(sqlite3_stmt *s, int col, const char *p, size_t len,
			 unsigned char buf[INDEX_AUDIT_ID_BYTES]);

/*
 * counted_requests.audit_hash of auditID s (len bytes, its text as logged): a 64-bit hash,
 * the same whether s was packed or not (schema 9).
 */
int64_t index_audit_id_hash(const char *s, size_t len);

/*
 * A provenance id of audit_ext (schema 10): a CloudWatch eventId, 56 decimal digits, and any
 * other id that is all digits (2 to 2 * INDEX_EXT_ID_BYTES of them) is stored as packed BCD,
 * two digits a byte, an odd count padded by a nibble 0xF; any other id as its text.
 */
#define INDEX_EXT_ID_BYTES 32
/* The audit_ext view's ext_id from a stored one (col): a blob's digits, text as it is. */
#define INDEX_EXT_ID_SQL(col)                                                                      \
	"CASE typeof(" col ") WHEN 'blob' THEN rtrim(hex(" col "), 'F') ELSE " col " END"

/*
 * Binds provenance id p (len bytes; NULL leaves col NULL) to col of s: packed into buf when
 * it is all digits (INDEX_EXT_ID_BYTES), else as text.  Nothing is copied: p and buf must
 * outlive the statement's next step.
 */
void index_ext_id_bind(sqlite3_stmt *s, int col, const char *p, size_t len,
		       unsigned char buf[INDEX_EXT_ID_BYTES]);

/*
 * Registers lt_audit_id_pack(x) and lt_audit_id_hash(x) on the store's connection (the
 * upgrades' packer and hasher in SQL).
 */
int index_audit_id_register(struct lt_store *st, struct lt_error *err);

/* ---- a statement's parameters kept from row to row (index-load.c, index-logs.c) ---- */

/*
 * What a parameter holds since the statement's last row: SQLite keeps bindings across
 * sqlite3_reset, so a loader that never clears them binds an integer, a NULL, an empty blob or
 * one byte of text again only when it changes (index_held_*: most of a row repeats the row
 * before's).  INDEX_HELD_OTHER, nothing known (text and blobs pointing into the record, bound
 * for every row, or nothing bound yet), is always bound again.  A zeroed one is OTHER.
 */
enum index_held {
	INDEX_HELD_OTHER,
	INDEX_HELD_NULL,
	INDEX_HELD_INT,
	INDEX_HELD_ZEROBLOB,
	INDEX_HELD_BYTE
};

struct index_held_param {
	int64_t v; /* INDEX_HELD_INT's value */
	enum index_held held;
	char byte; /* INDEX_HELD_BYTE's text, bound in place */
};

static inline void index_held_int(sqlite3_stmt *s, struct index_held_param *p, int idx, int64_t v)
{
	if (p->held == INDEX_HELD_INT && p->v == v)
		return;
	sqlite3_bind_int64(s, idx, v);
	*p = (struct index_held_param){.v = v, .held = INDEX_HELD_INT};
}

static inline void index_held_null(sqlite3_stmt *s, struct index_held_param *p, int idx)
{
	if (p->held == INDEX_HELD_NULL)
		return;
	sqlite3_bind_null(s, idx);
	p->held = INDEX_HELD_NULL;
}

static inline void index_held_zeroblob(sqlite3_stmt *s, struct index_held_param *p, int idx)
{
	if (p->held == INDEX_HELD_ZEROBLOB)
		return;
	sqlite3_bind_zeroblob(s, idx, 0);
	p->held = INDEX_HELD_ZEROBLOB;
}

/* One byte of text (a severity), held by p itself. */
static inline void index_held_byte(sqlite3_stmt *s, struct index_held_param *p, int idx, char c)
{
	if (p->held == INDEX_HELD_BYTE && p->byte == c)
		return;
	p->byte = c;
	sqlite3_bind_text(s, idx, &p->byte, 1, SQLITE_STATIC);
	p->held = INDEX_HELD_BYTE;
}

/* ---- log lines (index-logs.c) ---- */

struct index_log_loader;

/* A writer of one source's log lines; node (may be NULL) overrides every line's host. */
int index_log_loader_new(struct index_log_loader **out, struct lt_store *st, int64_t source_id,
			 const char *node, struct lt_error *err);
void index_log_loader_free(struct index_log_loader *ll);

/*
 * Stores a line; *stored = 0 when the same line is already in the store.  coded (NULL, or
 * INDEX_PIPE_SLOTS of them): its fields compressed on the parser's thread.
 */
int index_log_loader_store(struct index_log_loader *ll, const struct lt_log_line *ln,
			   const struct lt_where *at, int64_t cluster_id,
			   const struct index_raw_coded *coded, int *stored);

/* The dictionary its fields writer compresses with (index_raw_share_of). */
void index_log_loader_share(const struct index_log_loader *ll, struct index_raw_share *fields);

/* Before every commit: index_raw_flush of the source's lines_raw writer (index-rawblock.c). */
int index_log_loader_raw_flush(struct index_log_loader *ll);

/* Saves the source's log summary (lines, years, time range); inside the batch's transaction. */
int index_log_loader_save(struct index_log_loader *ll);

/* What `stats` shows of a source's year and zone rules. */
struct index_basis_text {
	char year_from[96], zone[16], zone_from[64];
};
void index_basis_texts(const struct lt_time_basis *b, struct index_basis_text *out);

/* ---- content identity (index-ident.c) ---- */

enum index_ident_verdict {
	INDEX_IDENT_NEW,      /* no stored source holds this content */
	INDEX_IDENT_SAME,     /* read before, all of it: nothing to add */
	INDEX_IDENT_CONTINUE, /* source_id read part of it: go on from its resume offset */
};

struct index_ident_match {
	enum index_ident_verdict verdict;
	int64_t source_id;
	uint64_t len; /* on-disk bytes that matched */
	int grown;    /* CONTINUE of a complete read: the file grew since */
};

/* What the store knows of the regular file at path (anything else is INDEX_IDENT_NEW). */
int index_ident_find(struct index_ident_match *out, struct lt_store *st, const char *path,
		     struct lt_error *err);

/* Ingests one regular file or stdin. */
int index_load_file(struct lt_store *st, const char *path, const struct lt_ingest_opts *opts,
		    struct lt_ingest_totals *totals, struct lt_error *err);

#endif
