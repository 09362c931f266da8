/*
 * index-raw.c - the raw records' writer and the packer of lines.fields: what both share (the
 * writer, its zstd context and dictionary, the allocator, the varints) and the values of
 * lines.fields compressed one by one.  audit_raw and lines_raw are stored in compressed blocks
 * by index-rawblock.c (its contract comment gives a block's format); index-rawread.c reads
 * both back.
 *
 * lines.fields is a column of lines that its loader inserts (index-logs.c): the
 * packer (index_raw_pack) compresses each value alone, with a dictionary trained
 * on the first values of its source (RAW_TRAIN_RECORDS, RAW_TRAIN_BYTES; stored
 * in raw_dicts); a small source borrows the store's latest dictionary of the same
 * column (RAW_TRAIN_MIN_BYTES) or goes without.  The values sampled before the
 * dictionary, and a value whose compressed form is not smaller, stay text; else
 * the value is a BLOB (the format schema 8 used for every raw record):
 *
 *   byte 0       codec (INDEX_RAW_ZSTD, INDEX_RAW_ZSTD_DICT)
 *   varint       the value's length in bytes
 *   varint       raw_dicts.id (INDEX_RAW_ZSTD_DICT only)
 *   the rest     one zstd frame, magicless, without checksum, size or dict id
 *
 * Once settled, the packer's encoding is a pure function of the value, so a coder
 * on another thread (index_raw_coder_encode, index-pipe.c's parser) given the
 * writer's share (its CDict, read-only, and dictionary id) makes the same bytes,
 * which index_raw_pack_coded uses as they are.  A block writer's share never says
 * settled: it compresses a block whole, itself.  Every allocation of zstd goes
 * through index_raw_alloc, which LEASETRAIL_FAULT=zstd:N fails: the failure is an
 * error, never a crash.
 */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem, the magicless frame format */
#include "index-int.h"
#include "index-raw.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zdict.h>
#include <zstd.h>
#include <zstd_errors.h>

/* zstd's level: 3 (its default) measured within a few percent of 9's size, far cheaper */
#ifndef RAW_LEVEL /* a build may set another, to measure it */
#define RAW_LEVEL 3
#endif
/* a dictionary is trained on a source's first values, at most this many of them */
#define RAW_TRAIN_RECORDS 4000
/* and at most this many bytes of them (held in memory until trained) */
#define RAW_TRAIN_BYTES (1024u * 1024)
/* fewer bytes than this and a dictionary costs more than it saves: compress without */
#define RAW_TRAIN_MIN_BYTES (64u * 1024)
/* a dictionary's size: at most this, and a sixteenth of the samples it is trained on */
#define RAW_DICT_BYTES (16u * 1024)
/* Each raw table (enum index_raw_table): the name its dictionaries go by in raw_dicts.tbl. */
static const char *const raw_names[] = {
    [INDEX_RAW_AUDIT] = "audit_raw",
    [INDEX_RAW_LINES] = "lines_raw",
    [INDEX_RAW_FIELDS] = "lines.fields", /* a column of lines: the caller binds what we give */
};

void *index_raw_alloc(void *opaque, size_t n)
{
	(void)opaque;
	return lt_fault(LT_FAULT_ZSTD) ? NULL : malloc(n);
}

void index_raw_free(void *opaque, void *p)
{
	(void)opaque;
	free(p);
}

static const ZSTD_customMem raw_mem = {.customAlloc = index_raw_alloc,
				       .customFree = index_raw_free};

/* ---- the headers ---- */

/* Writes v as a varint at dst (room for 10 bytes); the bytes written. */
size_t index_raw_varint(unsigned char *dst, uint64_t v)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		dst[n++] = (unsigned char)(0x80 | (v & 0x7f));
	dst[n++] = (unsigned char)v;
	return n;
}

/* ---- the writer ---- */

/* 1 when w's table is stored in blocks (every raw table but lines.fields). */
int index_raw_in_blocks(const struct index_raw_writer *w)
{
	return w->table == INDEX_RAW_AUDIT || w->table == INDEX_RAW_LINES;
}

/*
 * A compression context for magicless frames with neither checksum, size nor dict id.  A
 * dictionary is attached, never copied: zstd 1.5.4 copies a CDict's tables into the context for
 * an input over 16 KiB (a block: 32 KiB and more), entry by entry (its fast and double-fast
 * tables are tagged), some 590 000 instructions a block, half of a block's compression
 * (bench/RESULTS.md, branch writer); attached, the frame decodes to the same bytes.
 */
ZSTD_CCtx *index_raw_cctx_new(void)
{
	ZSTD_CCtx *c = ZSTD_createCCtx_advanced(raw_mem);

	if (c == NULL)
		return NULL;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, RAW_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_format, ZSTD_f_zstd1_magicless)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_dictIDFlag, 0)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_forceAttachDict, ZSTD_dictForceAttach))) {
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
	index_raw_async_free(w); /* first: its thread uses the context */
	sqlite3_finalize(w->ins);
	ZSTD_freeCCtx(w->cctx);
	free(w->cdict_ws); /* cdict's: a static CDict is its workspace */
	free(w->sizes);
	free(w->blob);
	lt_buf_release(&w->samples);
	lt_buf_release(&w->body);
	lt_buf_release(&w->dir);
	*w = (struct index_raw_writer){0};
}

int index_raw_nomem(struct lt_error *err, const char *what)
{
	return lt_error_set(err, LT_ERR_DB, "out of memory while %s", what);
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

	LT_GROW(*blob, *cap, INDEX_RAW_HEADER_MAX + bound);
	(*blob)[0] = dict_id != 0 ? INDEX_RAW_ZSTD_DICT : INDEX_RAW_ZSTD;
	head += index_raw_varint(*blob + head, n);
	if (dict_id != 0)
		head += index_raw_varint(*blob + head, (uint64_t)dict_id);
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
			   ? index_raw_nomem(err, "compressing a raw record")
			   : lt_error_set(err, LT_ERR_DB, "cannot compress a raw record: %s",
					  ZSTD_getErrorName(got));
	w->blob_len = got;
	*smaller = w->blob_len < n;
	return 0;
}

/*
 * Makes dict (n bytes; raw_content: a block's content, else zstd tells a trained dictionary
 * from raw bytes) w's compression dictionary, in a workspace index_raw_alloc gives: zstd 1.5.4's
 * ZSTD_createCDict_advanced dereferences its own failed allocation (zstd #3847, fixed in 1.5.6), a
 * static CDict in memory of ours fails cleanly.  -1: no memory, and w unchanged.
 */
int index_raw_cdict_load(struct index_raw_writer *w, const void *dict, size_t n, int raw_content)
{
	const ZSTD_dictContentType_e dct = raw_content ? ZSTD_dct_rawContent : ZSTD_dct_auto;
	ZSTD_compressionParameters cp = ZSTD_getCParams(RAW_LEVEL, 0, n);
	size_t size = ZSTD_estimateCDictSize_advanced(n, cp, ZSTD_dlm_byCopy);
	void *ws = index_raw_alloc(NULL, size);
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
	sqlite3_bind_text(q, 2, raw_names[w->table], -1, SQLITE_STATIC);
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
	if (index_raw_cdict_load(w, dict, n, 0) != 0)
		return index_raw_nomem(err, "loading a raw records' dictionary");
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
	sqlite3_bind_text(q, 1, raw_names[w->table], -1, SQLITE_STATIC);
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
 * The packer's samples are in (the caller stored them as text): train, and compress every
 * value from now on.
 */
static int raw_settle(struct index_raw_writer *w, struct lt_error *err)
{
	assert(!w->settled);
	w->settled = 1;
	if (w->cctx == NULL && (w->cctx = index_raw_cctx_new()) == NULL)
		return index_raw_nomem(err, "compressing raw records");
	if (raw_train(w, err) != 0)
		return LT_ERR_DB;
	/* the samples served: their memory goes back */
	lt_buf_release(&w->samples);
	free(w->sizes);
	w->sizes = NULL;
	w->nsamples = w->cap_samples = 0;
	return 0;
}

/* Keeps a copy of a value as a sample to train the packer's dictionary on. */
static int raw_sample(struct index_raw_writer *w, const char *p, size_t n, struct lt_error *err)
{
	LT_GROW(w->sizes, w->cap_samples, w->nsamples + 1);
	w->sizes[w->nsamples++] = n;
	lt_buf_append(&w->samples, p, n);
	if (w->nsamples >= RAW_TRAIN_RECORDS || w->samples.len >= RAW_TRAIN_BYTES)
		return raw_settle(w, err);
	return 0;
}

int index_raw_pack(struct index_raw_writer *w, const char *p, size_t n, const void **out,
		   size_t *len, struct lt_error *err)
{
	int smaller = 0;

	assert(!index_raw_in_blocks(w));
	*out = NULL;
	*len = 0;
	if (p == NULL || n == 0)
		return 0;
	if (!w->settled)
		return raw_sample(w, p, n, err); /* stored as text by the caller */
	if (raw_compress(w, p, n, &smaller, err) != 0)
		return LT_ERR_DB;
	if (smaller) {
		*out = w->blob;
		*len = w->blob_len;
	}
	return 0;
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
	/*
	 * a block is compressed whole by its writer's compressor: nothing to compress record by
	 * record, and its context and dictionary are that thread's (not read here)
	 */
	if (index_raw_in_blocks(w)) {
		*out = (struct index_raw_share){0};
		return;
	}
	*out = (struct index_raw_share){.settled = w->settled && w->cctx != NULL,
					.cdict = w->cdict,
					.dict_id = w->cdict ? w->dict_id : 0};
}

struct index_raw_coder *index_raw_coder_new(void)
{
	struct index_raw_coder *c = lt_xcalloc(1, sizeof *c);

	if ((c->cctx = index_raw_cctx_new()) == NULL) {
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
