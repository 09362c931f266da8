/*
 * index-raw.c - raw records (audit_raw.json, lines_raw.text) stored compressed,
 * and lt_raw() and lt_raw_of(), the SQL functions that read them back byte for byte.
 *
 * Schema 9 stores the raw records in blocks: each load's writer of a raw table
 * gathers consecutive records (ascending ids, never a duplicate's: it has no row)
 * and stores them as one row of audit_blocks or lines_blocks, keyed by the first
 * record's id, when the block would compress to RAW_BLOCK_CELL bytes and before
 * every commit (index_raw_flush), in the rows' transaction: a committed row
 * always has its record, an interrupted batch leaves no block behind.  A block:
 *
 *   byte 0       RAW_BLOCK, or RAW_BLOCK_DICT
 *   varints      the content's length, its records, its directory's length,
 *                and (RAW_BLOCK_DICT) the id of the block whose content is the
 *                dictionary: the writer's first
 *   the rest     one zstd frame, magicless, of the content: the records end to
 *                end, then the directory (per record: varint id gap, varint length)
 *
 * lt_raw_of(table, id) finds a record's block as the last one keyed at or below
 * its id and keeps that block decoded (a connection reads neighbours in a row).
 *
 * Before schema 9, and in lines.fields still, a value is compressed alone with
 * a dictionary trained on the first values of its source (RAW_TRAIN_RECORDS,
 * RAW_TRAIN_BYTES; stored in raw_dicts); a small source borrows the store's
 * latest dictionary of the same table (RAW_TRAIN_MIN_BYTES) or goes without;
 * a value whose compressed form is not smaller stays text.  Such a value (an
 * upgraded store's audit_raw_rows, lines_raw_rows, and lines.fields) is TEXT
 * or a BLOB:
 *
 *   byte 0       codec (enum raw_codec)
 *   varint       the record's length in bytes
 *   varint       raw_dicts.id (RAW_ZSTD_DICT only)
 *   the rest     one zstd frame, magicless, without checksum, size or dict id
 *
 * The fields' packer (index_raw_pack: the caller binds the blob in its own
 * insert; the values sampled before the dictionary stay text) settles like
 * that: once settled, its encoding is a pure function of the value, so a coder
 * on another thread (index_raw_coder_encode, index-pipe.c's parser) given the
 * writer's share (its CDict, read-only, and dictionary id) makes the same
 * bytes, which index_raw_pack_coded uses as they are.  A block writer's share
 * never says settled: it compresses a block whole, itself.
 *
 * lt_raw(value) gives the text back for both kinds of value, so SQL reads one as
 * lt_raw(r.json); it keeps the last record it decoded (queries read one
 * record's body several times in a row) and a few dictionaries.  Every
 * allocation of zstd goes through raw_alloc, which LEASETRAIL_FAULT=zstd:N
 * fails: the failure is an error, never a crash.
 */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem, the magicless frame format */
#include "index-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <zdict.h>
#include <zstd.h>
#include <zstd_errors.h>

/* zstd's level: 3 (its default) measured within a few percent of 9's size, far cheaper */
#define RAW_LEVEL 3
/* a dictionary is trained on a source's first records, at most this many of them */
#define RAW_TRAIN_RECORDS 4000
/* and at most this many bytes of them (held in memory until trained) */
#define RAW_TRAIN_BYTES (1024u * 1024)
/* fewer bytes than this and a dictionary costs more than it saves: compress without */
#define RAW_TRAIN_MIN_BYTES (64u * 1024)
/* a dictionary's size: at most this, and a sixteenth of the samples it is trained on */
#define RAW_DICT_BYTES (16u * 1024)
/*
 * A block of records (audit_blocks, lines_blocks) is written once its records would compress
 * to about RAW_BLOCK_CELL bytes, an eighth of the store's 32 KiB page (index-store.c) less
 * room for the cells' headers and the spread of the ratio: SQLite appends a row to a page
 * when it fits and starts a new one when not, so a row of a third or a half of a page leaves
 * the rest unused.  An eighth, not a quarter: reading one record decodes its whole block
 * (timeline -v of a node of a merged journal reads one line a block), and a block of a
 * quarter page stored 1-3 % less for 30 % more instructions (bench/RESULTS.md, "Raw records
 * in blocks").  The writer guesses the records' bytes from the ratio of its last block
 * (RAW_BLOCK_FIRST for the first), within RAW_BLOCK_MIN and RAW_BLOCK_MAX (what it holds in
 * memory), and at most RAW_BLOCK_RECORDS.
 */
#ifndef RAW_BLOCK_CELL /* a build may set another, to measure it */
#define RAW_BLOCK_CELL 3800u
#endif
#define RAW_BLOCK_FIRST	  (32u * 1024)
#define RAW_BLOCK_MIN	  (4u * 1024)
#define RAW_BLOCK_MAX	  (1024u * 1024)
#define RAW_BLOCK_RECORDS 4096
/*
 * A writer's later blocks are compressed with the first RAW_BLOCK_DICT_BYTES bytes of its first
 * block's content as a raw dictionary (zstd's rawContent: no training, nothing more stored:
 * the reader decodes that block to get it); bench/RESULTS.md measured the sizes
 */
#define RAW_BLOCK_DICT_BYTES (32u * 1024)
/* a record longer than this is not one of ours (the parser caps records at 8 MiB) */
#define RAW_MAX_RECORD (64u * 1024 * 1024)
/* dictionaries lt_raw keeps decoded per connection */
#define RAW_DICT_CACHE 8
/* the longest header: codec, two varints of 64 bits */
#define RAW_HEADER_MAX (1 + 10 + 10)

enum raw_codec {
	RAW_ZSTD = 1,	   /* a zstd frame of its own */
	RAW_ZSTD_DICT = 2, /* a zstd frame that needs raw_dicts.id */
	RAW_BLOCK = 3,	   /* a block of records (schema 9): audit_blocks.data, lines_blocks.data */
	RAW_BLOCK_DICT = 4, /* a block with an earlier one's content as dictionary */
};

/* The SQL of each raw table (enum index_raw_table). */
static const struct raw_table {
	const char *name; /* raw_dicts.tbl */
	const char *insert;
} raw_tables[] = {
    [INDEX_RAW_AUDIT] = {.name = "audit_raw",
			 .insert = "INSERT INTO audit_blocks(id, data) VALUES(?1, ?2)"},
    [INDEX_RAW_LINES] = {.name = "lines_raw",
			 .insert = "INSERT INTO lines_blocks(id, data) VALUES(?1, ?2)"},
    /* a column of lines (index_raw_pack): the caller binds what the packer gives */
    [INDEX_RAW_FIELDS] = {.name = "lines.fields", .insert = NULL},
};

/* zstd's allocations: failable by fault injection, so out of memory is an error. */
static void *raw_alloc(void *opaque, size_t n)
{
	(void)opaque;
	return lt_fault(LT_FAULT_ZSTD) ? NULL : malloc(n);
}

static void raw_free(void *opaque, void *p)
{
	(void)opaque;
	free(p);
}

static const ZSTD_customMem raw_mem = {.customAlloc = raw_alloc, .customFree = raw_free};

/* ---- the blob's header ---- */

/* Writes v as a varint at dst (room for 10 bytes); the bytes written. */
static size_t raw_put_varint(unsigned char *dst, uint64_t v)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		dst[n++] = (unsigned char)(0x80 | (v & 0x7f));
	dst[n++] = (unsigned char)v;
	return n;
}

/* Reads a varint at *p (before end); 0, or -1 when it runs past end or past 64 bits. */
static int raw_get_varint(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
	uint64_t v = 0;

	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char c = *(*p)++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

/* A stored blob taken apart: what lt_raw needs to decode it. */
struct raw_blob {
	enum raw_codec codec;
	uint64_t len, dict_id;
	const unsigned char *frame;
	size_t frame_len;
};

/* Splits a blob into header and frame; -1 when it is not one index_raw_put wrote. */
static int raw_parse(struct raw_blob *out, const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n;

	if (n < 2 || (p[0] != RAW_ZSTD && p[0] != RAW_ZSTD_DICT))
		return -1;
	out->codec = (enum raw_codec) * p++;
	out->dict_id = 0;
	if (raw_get_varint(&p, end, &out->len) != 0 || out->len > RAW_MAX_RECORD ||
	    (out->codec == RAW_ZSTD_DICT && raw_get_varint(&p, end, &out->dict_id) != 0))
		return -1;
	out->frame = p;
	out->frame_len = (size_t)(end - p);
	return 0;
}

/* ---- the writer ---- */

/* A compression context for magicless frames with neither checksum, size nor dict id. */
static ZSTD_CCtx *raw_cctx_new(void)
{
	ZSTD_CCtx *c = ZSTD_createCCtx_advanced(raw_mem);

	if (c == NULL)
		return NULL;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, RAW_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_format, ZSTD_f_zstd1_magicless)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_dictIDFlag, 0))) {
		ZSTD_freeCCtx(c);
		return NULL;
	}
	return c;
}

void index_raw_writer_init(struct index_raw_writer *w, struct lt_store *st,
			   enum index_raw_table table, int64_t source_id)
{
	assert(table == INDEX_RAW_AUDIT || table == INDEX_RAW_LINES || table == INDEX_RAW_FIELDS);
	*w = (struct index_raw_writer){.st = st, .table = table, .source_id = source_id};
	lt_buf_init(&w->samples);
	lt_buf_init(&w->body);
	lt_buf_init(&w->dir);
}

void index_raw_writer_release(struct index_raw_writer *w)
{
	sqlite3_finalize(w->ins);
	ZSTD_freeCCtx(w->cctx);
	free(w->cdict_ws); /* cdict's: a static CDict is its workspace */
	free(w->sizes);
	free(w->ids);
	free(w->blob);
	lt_buf_release(&w->samples);
	lt_buf_release(&w->body);
	lt_buf_release(&w->dir);
	*w = (struct index_raw_writer){0};
}

static int raw_nomem(struct lt_error *err, const char *what)
{
	return lt_error_set(err, LT_ERR_DB, "out of memory while %s", what);
}

/* Prepares the writer's statements on first use. */
static int raw_prepare(struct index_raw_writer *w, struct lt_error *err)
{
	if (w->ins != NULL || raw_tables[w->table].insert == NULL)
		return 0;
	return index_store_prepare_raw(w->st, &w->ins, raw_tables[w->table].insert, err);
}

/*
 * Compresses p (n bytes) into *blob (grown as needed) with cctx, which holds
 * dictionary dict_id when dict_id != 0; *len the blob's length.  The writer
 * and a coder on another thread (index_raw_coder_encode) share it, so both
 * make the same bytes.
 */
static size_t raw_encode(struct ZSTD_CCtx_s *cctx, int64_t dict_id, unsigned char **blob,
			 size_t *cap, const char *p, size_t n)
{
	size_t bound = ZSTD_compressBound(n), head = 1, got;

	LT_GROW(*blob, *cap, RAW_HEADER_MAX + bound);
	(*blob)[0] = dict_id != 0 ? RAW_ZSTD_DICT : RAW_ZSTD;
	head += raw_put_varint(*blob + head, n);
	if (dict_id != 0)
		head += raw_put_varint(*blob + head, (uint64_t)dict_id);
	got = ZSTD_compress2(cctx, *blob + head, *cap - head, p, n);
	return ZSTD_isError(got) ? got : head + got;
}

/*
 * Compresses p (n bytes) into w->blob with the writer's dictionary, if any;
 * *smaller = 0 when the blob would not be smaller than the text.
 */
static int raw_compress(struct index_raw_writer *w, const char *p, size_t n, int *smaller,
			struct lt_error *err)
{
	size_t got = raw_encode(w->cctx, w->cdict ? w->dict_id : 0, &w->blob, &w->blob_cap, p, n);

	if (ZSTD_isError(got))
		return ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation
			   ? raw_nomem(err, "compressing a raw record")
			   : lt_error_set(err, LT_ERR_DB, "cannot compress a raw record: %s",
					  ZSTD_getErrorName(got));
	w->blob_len = got;
	*smaller = w->blob_len < n;
	return 0;
}

/* Binds (id, blob) to the writer's insert, or (id, text p) when blob is NULL, and steps it. */
static int raw_insert(struct index_raw_writer *w, int64_t id, const void *blob, size_t len,
		      const char *p, size_t n, struct lt_error *err)
{
	sqlite3_stmt *s = w->ins;
	int rc;

	sqlite3_bind_int64(s, 1, id);
	if (blob != NULL)
		sqlite3_bind_blob(s, 2, blob, (int)len, SQLITE_STATIC);
	else
		sqlite3_bind_text(s, 2, p, (int)n, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE)
		return index_store_db_error(w->st, err, "cannot store a raw record");
	return 0;
}

/* Stores (id, record), compressed when that is smaller. */
static int raw_write(struct index_raw_writer *w, int64_t id, const char *p, size_t n,
		     struct lt_error *err)
{
	int smaller = 0;

	if (raw_compress(w, p, n, &smaller, err) != 0)
		return LT_ERR_DB;
	return raw_insert(w, id, smaller ? w->blob : NULL, w->blob_len, p, n, err);
}

/*
 * Makes dict (n bytes, of type dct) w's compression dictionary, in a workspace raw_alloc
 * gives: zstd 1.5.4's ZSTD_createCDict_advanced dereferences its own failed allocation
 * (zstd #3847, fixed in 1.5.6), a static CDict in memory of ours fails cleanly.  -1: no
 * memory, and w unchanged.
 */
static int raw_cdict_load(struct index_raw_writer *w, const void *dict, size_t n,
			  ZSTD_dictContentType_e dct)
{
	ZSTD_compressionParameters cp = ZSTD_getCParams(RAW_LEVEL, 0, n);
	size_t size = ZSTD_estimateCDictSize_advanced(n, cp, ZSTD_dlm_byCopy);
	void *ws = raw_alloc(NULL, size);
	const ZSTD_CDict *cd =
	    ws != NULL ? ZSTD_initStaticCDict(ws, size, dict, n, ZSTD_dlm_byCopy, dct, cp) : NULL;

	if (cd == NULL || ZSTD_isError(ZSTD_CCtx_refCDict(w->cctx, cd))) {
		ZSTD_CCtx_refCDict(w->cctx, NULL);
		free(ws);
		return -1;
	}
	w->cdict = cd;
	w->cdict_ws = ws;
	return 0;
}

/* ---- blocks (schema 9) ---- */

/* 1 when w's table is stored in blocks (every raw table but lines.fields). */
static int raw_in_blocks(const struct index_raw_writer *w)
{
	return w->table == INDEX_RAW_AUDIT || w->table == INDEX_RAW_LINES;
}

/* Appends v to b as a varint. */
static void raw_buf_varint(struct lt_buf *b, uint64_t v)
{
	unsigned char tmp[10];

	lt_buf_append(b, tmp, raw_put_varint(tmp, v));
}

/*
 * Compresses the open block into w->blob (RAW_BLOCK, the content's length, the records'
 * count, the directory's length, then one frame of the records and the directory).
 */
static int raw_block_encode(struct index_raw_writer *w, struct lt_error *err)
{
	size_t dir_len = w->dir.len, bound, head = 1, got;

	lt_buf_append(&w->body, w->dir.ptr, w->dir.len);
	bound = ZSTD_compressBound(w->body.len);
	LT_GROW(w->blob, w->blob_cap, 4 * 10 + bound);
	w->blob[0] = w->cdict != NULL ? RAW_BLOCK_DICT : RAW_BLOCK;
	head += raw_put_varint(w->blob + head, w->body.len);
	head += raw_put_varint(w->blob + head, w->block_n);
	head += raw_put_varint(w->blob + head, dir_len);
	if (w->cdict != NULL)
		head += raw_put_varint(w->blob + head, (uint64_t)w->dict_id);
	got = ZSTD_compress2(w->cctx, w->blob + head, w->blob_cap - head, w->body.ptr, w->body.len);
	if (ZSTD_isError(got))
		return ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation
			   ? raw_nomem(err, "compressing a block of raw records")
			   : lt_error_set(err, LT_ERR_DB, "cannot compress raw records: %s",
					  ZSTD_getErrorName(got));
	w->blob_len = head + got;
	return 0;
}

/*
 * The writer's first block is stored: its content (still in w->body) becomes the raw
 * dictionary of every later block, known as that block's id.  Once (w->settled).
 */
static int raw_block_dict(struct index_raw_writer *w, struct lt_error *err)
{
	size_t n = w->body.len < RAW_BLOCK_DICT_BYTES ? w->body.len : RAW_BLOCK_DICT_BYTES;

	w->settled = 1;
	/* on failure no block says it has a dictionary the context does not hold */
	if (raw_cdict_load(w, w->body.ptr, n, ZSTD_dct_rawContent) != 0)
		return raw_nomem(err, "loading a block of raw records as a dictionary");
	w->dict_id = w->block_first;
	return 0;
}

/*
 * Stores the open block as the row of its first record's id, and empties it.  The caller's
 * sqlite3_last_insert_rowid() is left as it was: the loaders read it after storing a record.
 */
static int raw_block_write(struct index_raw_writer *w, struct lt_error *err)
{
	sqlite3_int64 last = sqlite3_last_insert_rowid(w->st->db);
	int rc;

	if (w->block_n == 0)
		return 0;
	if (w->cctx == NULL && (w->cctx = raw_cctx_new()) == NULL)
		return raw_nomem(err, "compressing raw records");
	if (raw_block_encode(w, err) != 0)
		return LT_ERR_DB;
	/* the ratio of this block sizes the next (a block cut short by a commit, too) */
	w->last_raw = w->body.len;
	w->last_packed = w->blob_len;
	rc = raw_insert(w, w->block_first, w->blob, w->blob_len, NULL, 0, err);
	sqlite3_set_last_insert_rowid(w->st->db, last);
	if (rc == 0 && !w->settled)
		rc = raw_block_dict(w, err);
	lt_buf_reset(&w->body);
	lt_buf_reset(&w->dir);
	w->block_n = 0;
	return rc;
}

/* The bytes of records the open block takes: what would compress to RAW_BLOCK_CELL. */
static size_t raw_block_want(const struct index_raw_writer *w)
{
	uint64_t want;

	if (w->last_raw == 0 || w->last_packed == 0)
		return RAW_BLOCK_FIRST;
	want = (uint64_t)RAW_BLOCK_CELL * w->last_raw / w->last_packed;
	return want < RAW_BLOCK_MIN ? RAW_BLOCK_MIN : want > RAW_BLOCK_MAX ? RAW_BLOCK_MAX : want;
}

/* Adds record id (p, n bytes) to the open block; writes the block once it is full. */
static int raw_block_add(struct index_raw_writer *w, int64_t id, const char *p, size_t n,
			 struct lt_error *err)
{
	/* ids grow within a load: a smaller one would be lost to the reader's search */
	assert(w->block_n == 0 || id > w->block_last);
	if (w->block_n == 0)
		w->block_first = w->block_last = id;
	raw_buf_varint(&w->dir, (uint64_t)(id - w->block_last));
	raw_buf_varint(&w->dir, n);
	lt_buf_append(&w->body, p, n);
	w->block_last = id;
	w->block_n++;
	if (w->body.len >= raw_block_want(w) || w->block_n >= RAW_BLOCK_RECORDS)
		return raw_block_write(w, err);
	return 0;
}

/* Stores a trained dictionary in raw_dicts; *id its id. */
static int raw_save_dict(struct index_raw_writer *w, const void *dict, size_t n, int64_t *id,
			 struct lt_error *err)
{
	sqlite3_stmt *q;
	int rc;

	if (index_store_prepare_raw(
		w->st, &q, "INSERT INTO raw_dicts(source_id, tbl, dict) VALUES(?1, ?2, ?3)", err) !=
	    0)
		return LT_ERR_DB;
	sqlite3_bind_int64(q, 1, w->source_id);
	sqlite3_bind_text(q, 2, raw_tables[w->table].name, -1, SQLITE_STATIC);
	sqlite3_bind_blob(q, 3, dict, (int)n, SQLITE_STATIC);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return index_store_db_error(w->st, err, "cannot store a raw records' dictionary");
	*id = sqlite3_last_insert_rowid(w->st->db);
	return 0;
}

/* Makes dictionary bytes dict (n) the writer's, stored as raw_dicts.id id. */
static int raw_use_dict(struct index_raw_writer *w, const void *dict, size_t n, int64_t id,
			struct lt_error *err)
{
	if (raw_cdict_load(w, dict, n, ZSTD_dct_auto) != 0)
		return raw_nomem(err, "loading a raw records' dictionary");
	w->dict_id = id;
	return 0;
}

/*
 * Too few samples to train on (a small file: one node's journal, a short
 * export): the store's latest dictionary of the same table, trained on an
 * earlier source of the same kind more often than not, serves; with none,
 * the records are compressed without one.
 */
static int raw_borrow(struct index_raw_writer *w, struct lt_error *err)
{
	sqlite3_stmt *q;
	int rc = 0;

	if (index_store_prepare_raw(w->st, &q,
				    "SELECT id, dict FROM raw_dicts WHERE tbl = ?1"
				    " ORDER BY id DESC LIMIT 1",
				    err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_text(q, 1, raw_tables[w->table].name, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(q)) == SQLITE_ROW)
		rc = raw_use_dict(w, sqlite3_column_blob(q, 1), (size_t)sqlite3_column_bytes(q, 1),
				  sqlite3_column_int64(q, 0), err);
	else if (rc == SQLITE_DONE)
		rc = 0;
	else
		rc = index_store_db_error(w->st, err, "cannot read a raw records' dictionary");
	sqlite3_finalize(q);
	return rc;
}

/*
 * Trains a dictionary on the samples when there are enough of them and makes
 * it the writer's (stored, and loaded for compression); else borrows one.
 * Training may fail on samples too alike or too few: the records are then
 * compressed without one.
 */
static int raw_train(struct index_raw_writer *w, struct lt_error *err)
{
	size_t cap = w->samples.len / 16 < RAW_DICT_BYTES ? w->samples.len / 16 : RAW_DICT_BYTES;
	void *dict;
	size_t got;
	int64_t id = 0;
	int rc = 0;

	if (w->samples.len < RAW_TRAIN_MIN_BYTES || w->nsamples < 8)
		return raw_borrow(w, err);
	dict = lt_xmalloc(cap);
	got = ZDICT_trainFromBuffer(dict, cap, w->samples.ptr, w->sizes, (unsigned)w->nsamples);
	if (!ZDICT_isError(got) && (rc = raw_save_dict(w, dict, got, &id, err)) == 0)
		rc = raw_use_dict(w, dict, got, id, err);
	free(dict);
	return rc;
}

/*
 * The samples are in: train, store them compressed, in order (the last row inserted is the
 * last sample's).  The writer compresses as records come from now on.
 */
static int raw_settle(struct index_raw_writer *w, struct lt_error *err)
{
	size_t at = 0;

	assert(!w->settled);
	w->settled = 1;
	if (w->cctx == NULL && (w->cctx = raw_cctx_new()) == NULL)
		return raw_nomem(err, "compressing raw records");
	if (raw_train(w, err) != 0)
		return LT_ERR_DB;
	for (size_t i = 0; w->ins != NULL && i < w->nsamples; at += w->sizes[i++])
		if (raw_write(w, w->ids[i], w->samples.ptr + at, w->sizes[i], err) != 0)
			return LT_ERR_DB;
	/* the samples are stored: their memory goes back */
	lt_buf_release(&w->samples);
	free(w->sizes);
	free(w->ids);
	w->sizes = NULL;
	w->ids = NULL;
	w->nsamples = w->cap_samples = 0;
	return 0;
}

/* Keeps a copy of a record as a sample, to be stored when the samples settle. */
static int raw_sample(struct index_raw_writer *w, int64_t id, const char *p, size_t n,
		      struct lt_error *err)
{
	size_t cap_ids = w->cap_samples; /* the two arrays grow alike */

	LT_GROW(w->sizes, w->cap_samples, w->nsamples + 1);
	LT_GROW(w->ids, cap_ids, w->nsamples + 1);
	w->sizes[w->nsamples] = n;
	w->ids[w->nsamples++] = id;
	lt_buf_append(&w->samples, p, n);
	if (w->nsamples >= RAW_TRAIN_RECORDS || w->samples.len >= RAW_TRAIN_BYTES)
		return raw_settle(w, err);
	return 0;
}

int index_raw_put(struct index_raw_writer *w, int64_t id, const char *p, size_t n,
		  struct lt_error *err)
{
	assert(w->st != NULL);
	if (raw_prepare(w, err) != 0)
		return LT_ERR_DB;
	if (raw_in_blocks(w))
		return raw_block_add(w, id, p, n, err);
	if (!w->settled && n > 0) /* an empty record teaches a dictionary nothing */
		return raw_sample(w, id, p, n, err);
	if (w->cctx == NULL && (w->cctx = raw_cctx_new()) == NULL)
		return raw_nomem(err, "compressing raw records");
	return raw_write(w, id, p, n, err);
}

int index_raw_pack(struct index_raw_writer *w, const char *p, size_t n, const void **out,
		   size_t *len, struct lt_error *err)
{
	int smaller = 0;

	assert(raw_tables[w->table].insert == NULL);
	*out = NULL;
	*len = 0;
	if (p == NULL || n == 0)
		return 0;
	if (!w->settled)
		return raw_sample(w, 0, p, n, err); /* stored as text by the caller */
	if (raw_compress(w, p, n, &smaller, err) != 0)
		return LT_ERR_DB;
	if (smaller) {
		*out = w->blob;
		*len = w->blob_len;
	}
	return 0;
}

int index_raw_flush(struct index_raw_writer *w, struct lt_error *err)
{
	if (raw_in_blocks(w)) /* a block holds records only once index_raw_put prepared */
		return raw_block_write(w, err);
	/* a packer's samples are stored already, as text: it goes on sampling */
	if (w->settled || w->nsamples == 0 || raw_tables[w->table].insert == NULL)
		return 0;
	return raw_settle(w, err);
}

/* ---- compressing on another thread ---- */

/* A compressor for a thread other than the writer's (index-pipe.c's parser). */
struct index_raw_coder {
	ZSTD_CCtx *cctx;
	const ZSTD_CDict *cdict; /* the one cctx references */
	unsigned char *blob;	 /* the last record compressed */
	size_t blob_cap;
};

void index_raw_share_of(struct index_raw_share *out, const struct index_raw_writer *w)
{
	/* a block is compressed whole by its writer: nothing to compress record by record */
	*out =
	    (struct index_raw_share){.settled = !raw_in_blocks(w) && w->settled && w->cctx != NULL,
				     .cdict = w->cdict,
				     .dict_id = w->cdict ? w->dict_id : 0};
}

struct index_raw_coder *index_raw_coder_new(void)
{
	struct index_raw_coder *c = lt_xcalloc(1, sizeof *c);

	if ((c->cctx = raw_cctx_new()) == NULL) {
		free(c);
		return NULL;
	}
	return c;
}

void index_raw_coder_free(struct index_raw_coder *c)
{
	if (c == NULL)
		return;
	ZSTD_freeCCtx(c->cctx);
	free(c->blob);
	free(c);
}

void index_raw_coder_encode(struct index_raw_coder *c, const struct index_raw_share *s,
			    const char *p, size_t n, struct index_raw_coded *out)
{
	size_t got;

	*out = (struct index_raw_coded){0};
	if (c == NULL || !s->settled || p == NULL)
		return;
	if (c->cdict != s->cdict) {
		/* a CDict is only read while compressing: two threads may use one */
		if (ZSTD_isError(ZSTD_CCtx_refCDict(c->cctx, s->cdict)))
			return;
		c->cdict = s->cdict;
	}
	got = raw_encode(c->cctx, s->dict_id, &c->blob, &c->blob_cap, p, n);
	if (ZSTD_isError(got))
		return; /* the writer compresses it, and reports what fails */
	out->by = *s;
	out->blob = got < n ? c->blob : NULL;
	out->len = got < n ? got : 0;
}

/* 1 when coded was made as w would make it now: the same dictionary, both settled. */
static int raw_coded_fits(const struct index_raw_writer *w, const struct index_raw_coded *coded)
{
	struct index_raw_share now;

	if (coded == NULL || !coded->by.settled)
		return 0;
	index_raw_share_of(&now, w);
	return now.settled && now.cdict == coded->by.cdict && now.dict_id == coded->by.dict_id;
}

int index_raw_put_coded(struct index_raw_writer *w, int64_t id, const char *p, size_t n,
			const struct index_raw_coded *coded, struct lt_error *err)
{
	if (!raw_coded_fits(w, coded))
		return index_raw_put(w, id, p, n, err);
	if (raw_prepare(w, err) != 0)
		return LT_ERR_DB;
	return raw_insert(w, id, coded->blob, coded->len, p, n, err);
}

int index_raw_pack_coded(struct index_raw_writer *w, const char *p, size_t n,
			 const struct index_raw_coded *coded, const void **out, size_t *len,
			 struct lt_error *err)
{
	if (p == NULL || n == 0 || !raw_coded_fits(w, coded))
		return index_raw_pack(w, p, n, out, len, err);
	*out = coded->blob;
	*len = coded->len;
	return 0;
}

/* ---- lt_raw() ---- */

/* The block lt_raw_of decoded last: its records' ids and where each lies in its text. */
struct raw_memo {
	int table;  /* enum index_raw_table; -1: none */
	char *text; /* the block's content: its records end to end, then its directory */
	size_t text_cap;
	int64_t *ids; /* n ids, ascending */
	size_t *at;   /* n + 1 offsets into text: record i is [at[i], at[i + 1]) */
	size_t n, cap;
};

/*
 * One connection's decoding state: a context, a few dictionaries, the last record lt_raw
 * decoded, the last block lt_raw_of decoded and its statements.
 */
struct raw_reader {
	ZSTD_DCtx *dctx;
	struct {
		int64_t id;
		ZSTD_DDict *dd;
		uint64_t used; /* the tick it was last used at */
	} dicts[RAW_DICT_CACHE];
	uint64_t tick;
	struct lt_buf last_in, last_out; /* the last blob and its text */
	char *text;			 /* the text decoded */
	size_t text_cap;
	sqlite3_stmt *find[INDEX_RAW_LINES + 1]; /* by table: the block a record would be in */
	sqlite3_stmt *get[INDEX_RAW_LINES + 1];	 /* by table: a block by its id */
	struct {
		int table;
		int64_t id; /* the block whose content it is */
		ZSTD_DDict *dd;
		uint64_t used;
	} bdicts[RAW_DICT_CACHE]; /* blocks' dictionaries (RAW_BLOCK_DICT) */
	char *scratch;		  /* a dictionary's block, decoded */
	size_t scratch_cap;
	struct raw_memo memo;
};

static void raw_reader_free(void *p)
{
	struct raw_reader *r = p;

	if (r == NULL)
		return;
	ZSTD_freeDCtx(r->dctx);
	for (size_t i = 0; i < RAW_DICT_CACHE; i++)
		ZSTD_freeDDict(r->dicts[i].dd);
	lt_buf_release(&r->last_in);
	lt_buf_release(&r->last_out);
	free(r->text);
	for (size_t i = 0; i < RAW_DICT_CACHE; i++)
		ZSTD_freeDDict(r->bdicts[i].dd);
	free(r->scratch);
	free(r->memo.text);
	free(r->memo.ids);
	free(r->memo.at);
	free(r);
}

/* Reads dictionary id from raw_dicts into a decoding dictionary; NULL with *msg set. */
static ZSTD_DDict *raw_load_dict(sqlite3 *db, int64_t id, const char **msg)
{
	sqlite3_stmt *q;
	ZSTD_DDict *dd = NULL;

	*msg = "lt_raw: out of memory";
	if (sqlite3_prepare_v2(db, "SELECT dict FROM raw_dicts WHERE id = ?1", -1, &q, NULL) !=
	    SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(q, 1, id);
	if (sqlite3_step(q) == SQLITE_ROW)
		dd = ZSTD_createDDict_advanced(sqlite3_column_blob(q, 0),
					       (size_t)sqlite3_column_bytes(q, 0), ZSTD_dlm_byCopy,
					       ZSTD_dct_auto, raw_mem);
	else
		*msg = "lt_raw: a raw record's dictionary is missing from the store";
	sqlite3_finalize(q);
	return dd;
}

/* The decoding dictionary id, from the cache or the store (evicting the least used). */
static ZSTD_DDict *raw_dict(struct raw_reader *r, sqlite3 *db, int64_t id, const char **msg)
{
	size_t victim = 0;

	r->tick++;
	for (size_t i = 0; i < RAW_DICT_CACHE; i++) {
		if (r->dicts[i].dd != NULL && r->dicts[i].id == id) {
			r->dicts[i].used = r->tick;
			return r->dicts[i].dd;
		}
		if (r->dicts[i].used < r->dicts[victim].used)
			victim = i;
	}
	ZSTD_DDict *dd = raw_load_dict(db, id, msg);

	if (dd == NULL)
		return NULL;
	ZSTD_freeDDict(r->dicts[victim].dd);
	r->dicts[victim].dd = dd;
	r->dicts[victim].id = id;
	r->dicts[victim].used = r->tick;
	return dd;
}

/* A decompression context for the writer's frames. */
static ZSTD_DCtx *raw_dctx_new(void)
{
	ZSTD_DCtx *d = ZSTD_createDCtx_advanced(raw_mem);

	if (d != NULL &&
	    ZSTD_isError(ZSTD_DCtx_setParameter(d, ZSTD_d_format, ZSTD_f_zstd1_magicless))) {
		ZSTD_freeDCtx(d);
		return NULL;
	}
	return d;
}

/* Decodes b into r->text (b->len bytes); NULL on success, else what went wrong. */
static const char *raw_decode(struct raw_reader *r, sqlite3 *db, const struct raw_blob *b)
{
	ZSTD_DDict *dd = NULL;
	const char *msg = NULL;
	size_t got;

	if (r->dctx == NULL && (r->dctx = raw_dctx_new()) == NULL)
		return "lt_raw: out of memory";
	if (b->codec == RAW_ZSTD_DICT && (dd = raw_dict(r, db, (int64_t)b->dict_id, &msg)) == NULL)
		return msg;
	if (ZSTD_isError(ZSTD_DCtx_refDDict(r->dctx, dd)))
		return "lt_raw: out of memory";
	LT_GROW(r->text, r->text_cap, (size_t)b->len + 1);
	got = ZSTD_decompressDCtx(r->dctx, r->text, (size_t)b->len + 1, b->frame, b->frame_len);
	if (ZSTD_isError(got))
		return ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation
			   ? "lt_raw: out of memory"
			   : "lt_raw: a damaged raw record";
	if (got != b->len)
		return "lt_raw: a damaged raw record";
	return NULL;
}

/* lt_raw(value): a raw record's text; text and NULL are given back as they are. */
static void raw_sql(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	struct raw_reader *r = sqlite3_user_data(cx);
	const unsigned char *p;
	struct raw_blob b;
	const char *msg;
	size_t n;

	(void)argc;
	if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) {
		sqlite3_result_value(cx, argv[0]);
		return;
	}
	p = sqlite3_value_blob(argv[0]);
	n = (size_t)sqlite3_value_bytes(argv[0]);
	if (p == NULL || raw_parse(&b, p, n) != 0) {
		sqlite3_result_error(cx, "lt_raw: not a raw record", -1);
		return;
	}
	if (r->last_in.len == n && n > 0 && memcmp(r->last_in.ptr, p, n) == 0) {
		sqlite3_result_text(cx, r->last_out.ptr, (int)r->last_out.len, SQLITE_TRANSIENT);
		return;
	}
	if ((msg = raw_decode(r, sqlite3_context_db_handle(cx), &b)) != NULL) {
		lt_buf_truncate(&r->last_in, 0);
		sqlite3_result_error(cx, msg, -1);
		return;
	}
	sqlite3_result_text(cx, r->text, (int)b.len, SQLITE_TRANSIENT);
	/* the memo: the record just decoded, its blob with it */
	lt_buf_truncate(&r->last_in, 0);
	lt_buf_append(&r->last_in, p, n);
	lt_buf_truncate(&r->last_out, 0);
	lt_buf_append(&r->last_out, r->text, (size_t)b.len);
}

/* ---- lt_raw_of(): a record read from its block ---- */

/* The block tables, by enum index_raw_table, as lt_raw_of's first argument names them. */
static const struct raw_block_table {
	const char *arg;
	const char *find; /* the block a record would be in */
	const char *get;  /* a block by its id */
} raw_block_tables[] = {
    [INDEX_RAW_AUDIT] = {.arg = "audit",
			 .find = "SELECT id, data FROM audit_blocks WHERE id <= ?1"
				 " ORDER BY id DESC LIMIT 1",
			 .get = "SELECT data FROM audit_blocks WHERE id = ?1"},
    [INDEX_RAW_LINES] = {.arg = "lines",
			 .find = "SELECT id, data FROM lines_blocks WHERE id <= ?1"
				 " ORDER BY id DESC LIMIT 1",
			 .get = "SELECT data FROM lines_blocks WHERE id = ?1"},
};

/* The index of id among the memo's records, or -1. */
static ptrdiff_t raw_memo_find(const struct raw_memo *m, int64_t id)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->ids[lo] == id ? (ptrdiff_t)lo : -1;
}

/* Reads the directory (dir_len bytes at the end of the memo's len bytes); -1 when damaged. */
static int raw_memo_index(struct raw_memo *m, int64_t first, size_t n, size_t len, size_t dir_len)
{
	const unsigned char *p = (const unsigned char *)m->text + (len - dir_len),
			    *end = (const unsigned char *)m->text + len;
	size_t at = 0;
	int64_t id = first;

	LT_GROW(m->ids, m->cap, n);
	m->at = lt_xrealloc(m->at, (m->cap + 1) * sizeof *m->at);
	for (size_t i = 0; i < n; i++) {
		uint64_t gap, rec;

		if (raw_get_varint(&p, end, &gap) != 0 || raw_get_varint(&p, end, &rec) != 0 ||
		    gap > (uint64_t)INT64_MAX - (uint64_t)id || (i > 0 && gap == 0) ||
		    rec > len - dir_len - at)
			return -1;
		id += (int64_t)gap;
		m->ids[i] = id;
		m->at[i] = at;
		at += (size_t)rec;
	}
	m->at[n] = at;
	m->n = n;
	return p == end && at == len - dir_len ? 0 : -1;
}

/* A stored block taken apart. */
struct raw_block_head {
	uint64_t len, count, dir_len; /* the content's bytes, its records, its directory's bytes */
	int64_t dict_id;	      /* the block whose content is its dictionary; 0: none */
	const unsigned char *frame;
	size_t frame_len;
};

/* Splits a block blob into its head and frame; -1 when it is not one raw_block_encode wrote. */
static int raw_block_parse(struct raw_block_head *out, const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n;
	uint64_t dict = 0;
	int codec;

	if (p == NULL || n < 1 || (p[0] != RAW_BLOCK && p[0] != RAW_BLOCK_DICT))
		return -1;
	codec = *p++;
	if (raw_get_varint(&p, end, &out->len) != 0 || raw_get_varint(&p, end, &out->count) != 0 ||
	    raw_get_varint(&p, end, &out->dir_len) != 0 ||
	    (codec == RAW_BLOCK_DICT &&
	     (raw_get_varint(&p, end, &dict) != 0 || dict == 0 || dict > (uint64_t)INT64_MAX)) ||
	    out->len > RAW_MAX_RECORD || out->dir_len > out->len || out->count == 0 ||
	    out->count > out->dir_len / 2)
		return -1;
	out->dict_id = (int64_t)dict;
	out->frame = p;
	out->frame_len = (size_t)(end - p);
	return 0;
}

/* Decompresses h's frame with dd (or none) into *buf (grown); NULL, or what failed. */
static const char *raw_block_inflate(struct raw_reader *r, const ZSTD_DDict *dd,
				     const struct raw_block_head *h, char **buf, size_t *cap)
{
	size_t got;

	if (r->dctx == NULL && (r->dctx = raw_dctx_new()) == NULL)
		return "lt_raw_of: out of memory";
	if (ZSTD_isError(ZSTD_DCtx_refDDict(r->dctx, dd)))
		return "lt_raw_of: out of memory";
	LT_GROW(*buf, *cap, (size_t)h->len + 1);
	got = ZSTD_decompressDCtx(r->dctx, *buf, (size_t)h->len + 1, h->frame, h->frame_len);
	if (ZSTD_isError(got))
		return ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation
			   ? "lt_raw_of: out of memory"
			   : "lt_raw_of: a damaged block of raw records";
	return got == h->len ? NULL : "lt_raw_of: a damaged block of raw records";
}

/* Block id of table's content as a decoding dictionary (RAW_BLOCK_DICT); NULL with *msg. */
static ZSTD_DDict *raw_block_load_dict(struct raw_reader *r, sqlite3 *db, int table, int64_t id,
				       const char **msg)
{
	struct raw_block_head h;
	sqlite3_stmt *q;
	ZSTD_DDict *dd = NULL;

	*msg = "lt_raw_of: cannot read the blocks of raw records";
	if (r->get[table] == NULL &&
	    sqlite3_prepare_v3(db, raw_block_tables[table].get, -1, SQLITE_PREPARE_PERSISTENT,
			       &r->get[table], NULL) != SQLITE_OK)
		return NULL;
	q = r->get[table];
	sqlite3_bind_int64(q, 1, id);
	if (sqlite3_step(q) != SQLITE_ROW) {
		*msg = "lt_raw_of: a block's dictionary is missing from the store";
	} else if (raw_block_parse(&h, sqlite3_column_blob(q, 0),
				   (size_t)sqlite3_column_bytes(q, 0)) != 0 ||
		   h.dict_id != 0) {
		*msg = "lt_raw_of: a damaged block of raw records";
	} else if ((*msg = raw_block_inflate(r, NULL, &h, &r->scratch, &r->scratch_cap)) == NULL) {
		size_t n = h.len < RAW_BLOCK_DICT_BYTES ? (size_t)h.len : RAW_BLOCK_DICT_BYTES;

		dd = ZSTD_createDDict_advanced(r->scratch, n, ZSTD_dlm_byCopy, ZSTD_dct_rawContent,
					       raw_mem);
		*msg = dd == NULL ? "lt_raw_of: out of memory" : NULL;
	}
	sqlite3_reset(q);
	return dd;
}

/* The dictionary of table's blocks made with block id's, cached (evicting the least used). */
static ZSTD_DDict *raw_block_dict_of(struct raw_reader *r, sqlite3 *db, int table, int64_t id,
				     const char **msg)
{
	size_t victim = 0;
	ZSTD_DDict *dd;

	r->tick++;
	for (size_t i = 0; i < RAW_DICT_CACHE; i++) {
		if (r->bdicts[i].dd != NULL && r->bdicts[i].id == id &&
		    r->bdicts[i].table == table) {
			r->bdicts[i].used = r->tick;
			return r->bdicts[i].dd;
		}
		if (r->bdicts[i].used < r->bdicts[victim].used)
			victim = i;
	}
	if ((dd = raw_block_load_dict(r, db, table, id, msg)) == NULL)
		return NULL;
	ZSTD_freeDDict(r->bdicts[victim].dd);
	r->bdicts[victim].dd = dd;
	r->bdicts[victim].id = id;
	r->bdicts[victim].table = table;
	r->bdicts[victim].used = r->tick;
	return dd;
}

/* Decodes block blob (first: its first record's id) into r's memo; NULL, or what failed. */
static const char *raw_memo_load(struct raw_reader *r, sqlite3 *db, int table, int64_t first,
				 const unsigned char *p, size_t n)
{
	struct raw_block_head h;
	ZSTD_DDict *dd = NULL;
	const char *msg = NULL;

	r->memo.table = -1;
	r->memo.n = 0;
	if (raw_block_parse(&h, p, n) != 0)
		return "lt_raw_of: a damaged block of raw records";
	if (h.dict_id != 0 && (dd = raw_block_dict_of(r, db, table, h.dict_id, &msg)) == NULL)
		return msg;
	if ((msg = raw_block_inflate(r, dd, &h, &r->memo.text, &r->memo.text_cap)) != NULL)
		return msg;
	if (raw_memo_index(&r->memo, first, (size_t)h.count, (size_t)h.len, (size_t)h.dir_len) !=
	    0) {
		r->memo.n = 0;
		return "lt_raw_of: a damaged block of raw records";
	}
	r->memo.table = table;
	return NULL;
}

/* Makes the memo the block that would hold record id of table; NULL, or what failed. */
static const char *raw_memo_seek(struct raw_reader *r, sqlite3 *db, int table, int64_t id)
{
	const struct raw_memo *m = &r->memo;
	sqlite3_stmt *q;
	const char *msg = NULL;
	int rc;

	if (m->table == table && m->n > 0 && m->ids[0] <= id && id <= m->ids[m->n - 1])
		return NULL;
	if (r->find[table] == NULL &&
	    sqlite3_prepare_v3(db, raw_block_tables[table].find, -1, SQLITE_PREPARE_PERSISTENT,
			       &r->find[table], NULL) != SQLITE_OK)
		return "lt_raw_of: cannot read the blocks of raw records";
	q = r->find[table];
	sqlite3_bind_int64(q, 1, id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW &&
	    !(m->table == table && m->n > 0 && m->ids[0] == sqlite3_column_int64(q, 0)))
		msg = raw_memo_load(r, db, table, sqlite3_column_int64(q, 0),
				    sqlite3_column_blob(q, 1), (size_t)sqlite3_column_bytes(q, 1));
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		msg = "lt_raw_of: cannot read the blocks of raw records";
	else if (rc == SQLITE_DONE)
		r->memo.table = -1;
	sqlite3_reset(q);
	return msg;
}

/* A rollback hook: the memo's block may be gone. */
static void raw_forget(void *ctx)
{
	struct raw_reader *r = ctx;

	r->memo.table = -1;
	r->memo.n = 0;
	for (size_t i = 0; i < RAW_DICT_CACHE; i++) {
		ZSTD_freeDDict(r->bdicts[i].dd);
		r->bdicts[i].dd = NULL;
	}
}

/* lt_raw_of(table, id): record id of 'audit' or 'lines' from its block; NULL when in none. */
static void raw_of_sql(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	struct raw_reader *r = sqlite3_user_data(cx);
	const char *name = (const char *)sqlite3_value_text(argv[0]), *msg;
	int table = -1;
	ptrdiff_t i;
	int64_t id;

	(void)argc;
	for (int t = INDEX_RAW_AUDIT; name != NULL && t <= INDEX_RAW_LINES; t++)
		if (strcmp(name, raw_block_tables[t].arg) == 0)
			table = t;
	if (table < 0) {
		sqlite3_result_error(cx, "lt_raw_of: the table is 'audit' or 'lines'", -1);
		return;
	}
	if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER)
		return; /* NULL */
	id = sqlite3_value_int64(argv[1]);
	if ((msg = raw_memo_seek(r, sqlite3_context_db_handle(cx), table, id)) != NULL) {
		sqlite3_result_error(cx, msg, -1);
		return;
	}
	if (r->memo.table != table || (i = raw_memo_find(&r->memo, id)) < 0)
		return; /* in no block: a row of schema 8 or before */
	sqlite3_result_text(cx, r->memo.text + r->memo.at[i],
			    (int)(r->memo.at[i + 1] - r->memo.at[i]), SQLITE_TRANSIENT);
}

int index_raw_register(struct lt_store *st, struct lt_error *err)
{
	struct raw_reader *r = lt_xcalloc(1, sizeof *r);

	lt_buf_init(&r->last_in);
	lt_buf_init(&r->last_out);
	r->memo.table = -1;
	/* on failure SQLite has already called raw_reader_free */
	if (sqlite3_create_function_v2(st->db, "lt_raw", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, r,
				       raw_sql, NULL, NULL, raw_reader_free) != SQLITE_OK)
		return index_store_db_error(st, err, "cannot register lt_raw");
	st->raw = r;
	/*
	 * a stored block never changes, but a rolled-back one's first id comes back with other
	 * records: the memo goes with every rollback
	 */
	sqlite3_rollback_hook(st->db, raw_forget, r);
	/* lt_raw's registration owns r: this one frees nothing */
	if (sqlite3_create_function_v2(st->db, "lt_raw_of", 2, SQLITE_UTF8, r, raw_of_sql, NULL,
				       NULL, NULL) != SQLITE_OK)
		return index_store_db_error(st, err, "cannot register lt_raw_of");
	return 0;
}

void index_raw_unregister(struct lt_store *st)
{
	if (st->raw == NULL)
		return;
	for (size_t i = 0; i < sizeof st->raw->find / sizeof *st->raw->find; i++) {
		sqlite3_finalize(st->raw->find[i]);
		sqlite3_finalize(st->raw->get[i]);
		st->raw->find[i] = st->raw->get[i] = NULL;
	}
	st->raw = NULL;
}
