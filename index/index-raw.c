/*
 * index-raw.c - the raw records' writer: audit_raw and lines_raw stored in compressed blocks,
 * and the values of lines.fields compressed one by one (index-rawread.c reads both back).
 *
 * Schema 9 stores the raw records in blocks: each load's writer of a raw table
 * gathers consecutive records (ascending ids, never a duplicate's: it has no row)
 * and stores them as one row of audit_blocks or lines_blocks, keyed by the first
 * record's id, when the block would compress to RAW_BLOCK_CELL bytes and before
 * every commit (index_raw_flush), in the rows' transaction: a committed row
 * always has its record, an interrupted batch leaves no block behind.  A block:
 *
 *   byte 0       INDEX_RAW_BLOCK, or INDEX_RAW_BLOCK_DICT (index-raw.h)
 *   varints      the content's length, its records, its directory's length,
 *                and (INDEX_RAW_BLOCK_DICT) the id of the block whose content is the
 *                dictionary: the writer's first
 *   the rest     one zstd frame, magicless, of the content: the records end to
 *                end, then the directory (per record: varint id gap, varint length)
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
#define RAW_LEVEL 3
/* a dictionary is trained on a source's first values, at most this many of them */
#define RAW_TRAIN_RECORDS 4000
/* and at most this many bytes of them (held in memory until trained) */
#define RAW_TRAIN_BYTES (1024u * 1024)
/* fewer bytes than this and a dictionary costs more than it saves: compress without */
#define RAW_TRAIN_MIN_BYTES (64u * 1024)
/* a dictionary's size: at most this, and a sixteenth of the samples it is trained on */
#define RAW_DICT_BYTES (16u * 1024)
/*
 * A block of records (audit_blocks, lines_blocks) is written once its records would compress
 * to about RAW_BLOCK_CELL bytes, an eighth of a 32 KiB page (a quarter of schema 10's 16 KiB) less
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
/* the longest header: codec, two varints of 64 bits */
#define RAW_HEADER_MAX (1 + 10 + 10)

/* Each raw table (enum index_raw_table): where a writer stores its blocks, or names its
 * dictionaries. */
static const struct raw_table {
	const char *name;   /* raw_dicts.tbl (INDEX_RAW_FIELDS) */
	const char *insert; /* a block as the row of its first record's id; NULL: not in blocks */
} raw_tables[] = {
    [INDEX_RAW_AUDIT] = {.name = "audit_raw",
			 .insert = "INSERT INTO audit_blocks(id, data) VALUES(?1, ?2)"},
    [INDEX_RAW_LINES] = {.name = "lines_raw",
			 .insert = "INSERT INTO lines_blocks(id, data) VALUES(?1, ?2)"},
    /* a column of lines (index_raw_pack): the caller binds what the packer gives */
    [INDEX_RAW_FIELDS] = {.name = "lines.fields", .insert = NULL},
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
static size_t raw_put_varint(unsigned char *dst, uint64_t v)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		dst[n++] = (unsigned char)(0x80 | (v & 0x7f));
	dst[n++] = (unsigned char)v;
	return n;
}

/* ---- the writer ---- */

/*
 * A compression context for magicless frames with neither checksum, size nor dict id.  A
 * dictionary is attached, never copied: zstd 1.5.4 copies a CDict's tables into the context for
 * an input over 16 KiB (a block: 32 KiB and more), entry by entry (its fast and double-fast
 * tables are tagged), some 590 000 instructions a block, half of a block's compression
 * (bench/RESULTS.md, branch writer); attached, the frame decodes to the same bytes.
 */
static ZSTD_CCtx *raw_cctx_new(void)
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

static void raw_async_free(struct index_raw_writer *w); /* the blocks' compressor, below */

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
	raw_async_free(w); /* first: its thread uses the context */
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
	(*blob)[0] = dict_id != 0 ? INDEX_RAW_ZSTD_DICT : INDEX_RAW_ZSTD;
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

/* Binds (id, blob) to the writer's insert of a block and steps it. */
static int raw_insert(struct index_raw_writer *w, int64_t id, const void *blob, size_t len,
		      struct lt_error *err)
{
	sqlite3_stmt *s = w->ins;
	int rc;

	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_blob(s, 2, blob, (int)len, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE)
		return index_store_db_error(w->st, err, "cannot store a raw record");
	return 0;
}

/*
 * Makes dict (n bytes, of type dct) w's compression dictionary, in a workspace index_raw_alloc
 * gives: zstd 1.5.4's ZSTD_createCDict_advanced dereferences its own failed allocation
 * (zstd #3847, fixed in 1.5.6), a static CDict in memory of ours fails cleanly.  -1: no
 * memory, and w unchanged.
 */
static int raw_cdict_load(struct index_raw_writer *w, const void *dict, size_t n,
			  ZSTD_dictContentType_e dct)
{
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
 * The block compressor: a thread of the writer's own compresses each full block while the
 * writer goes on with the next rows, so the writer's thread only gathers records and inserts
 * the finished blocks (zstd was 14 % of its instructions on an audit log: bench/RESULTS.md,
 * branch writer).  Up to RAW_JOBS blocks are in flight, in a ring the compressor works
 * through in order, woken RAW_WAKE blocks at a time.  With one block in flight and a wake-up
 * per block, the writer stopped at nearly every block: waiting for the block, or losing its
 * core to the compressor just woken (14 000 times in a 2.1 s load of an audit log, about 0.5 s
 * of it; bench/RESULTS.md, the merged session-11 tree).  When a block fills, the writer
 * takes back the block handed over RAW_JOBS blocks before, waiting only if it is still being
 * compressed, inserts it, and hands over the new one, its ids decided: the rows stay in id
 * order and in the transaction, and index_raw_flush inserts every block in flight before
 * every commit, so the rollback hook's guarantee holds as it did.  While a block is in
 * flight, w->cctx, w->cdict, w->dict_id and w->settled are the compressor's; the writer reads
 * a job once it took it back (under the mutex: it happens after).  The next block's size
 * follows the ratio of the block taken back last: decided by the data and the commits, never
 * by timing, so a load stores the same blocks whichever thread runs first.  Without a thread
 * (pthread_create failed) the writer compresses each block itself.
 */
#define RAW_JOBS 8
/*
 * The compressor is woken once this many blocks wait (or the writer waits for one): each
 * wake-up of it took the writer's core from the writer (measured 4 and 2, 8 and 4, 16 and 8:
 * bench/RESULTS.md, the merged session-11 tree).
 */
#define RAW_WAKE 4

enum raw_job_state { RAW_JOB_NONE, RAW_JOB_QUEUED, RAW_JOB_DONE };

/* What went wrong compressing a block, reported by the writer when it takes the block back. */
enum raw_job_fail { RAW_FAIL_NONE, RAW_FAIL_CTX, RAW_FAIL_NOMEM, RAW_FAIL_ZSTD, RAW_FAIL_DICT };

/* A block handed over: its content (records, then directory), its head's numbers, its row. */
struct raw_job {
	enum raw_job_state state;
	struct lt_buf body;
	int64_t first;
	size_t n, dir_len;
	unsigned char *blob; /* the row: blob_len bytes */
	size_t blob_len, blob_cap;
	enum raw_job_fail fail;
	const char *zerr; /* zstd's name of the error (RAW_FAIL_ZSTD) */
};

struct raw_async {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t changed;
	int running, stop;
	struct raw_job jobs[RAW_JOBS];
	size_t next;   /* the writer's next slot, the oldest in flight: handed over in slot order */
	size_t work;   /* the compressor's next slot */
	size_t queued; /* blocks handed over and not yet taken up by the compressor */
	int idle, waiting; /* the compressor, the writer: asleep on changed */
};

/*
 * Compresses the block of j (its content, n records, its directory's length dir_len bytes at
 * the end) into j->blob: INDEX_RAW_BLOCK, the content's length, the records' count, the
 * directory's length, then one frame.  The writer's first block becomes the dictionary of the
 * later ones, known as its first record's id.  On the compressor's thread, or the writer's.
 */
static void raw_block_job(struct index_raw_writer *w, struct raw_job *j)
{
	size_t bound, head = 1, got;

	j->fail = RAW_FAIL_NONE;
	if (w->cctx == NULL && (w->cctx = raw_cctx_new()) == NULL) {
		j->fail = RAW_FAIL_CTX;
		return;
	}
	bound = ZSTD_compressBound(j->body.len);
	LT_GROW(j->blob, j->blob_cap, 4 * 10 + bound);
	j->blob[0] = w->cdict != NULL ? INDEX_RAW_BLOCK_DICT : INDEX_RAW_BLOCK;
	head += raw_put_varint(j->blob + head, j->body.len);
	head += raw_put_varint(j->blob + head, j->n);
	head += raw_put_varint(j->blob + head, j->dir_len);
	if (w->cdict != NULL)
		head += raw_put_varint(j->blob + head, (uint64_t)w->dict_id);
	got = ZSTD_compress2(w->cctx, j->blob + head, j->blob_cap - head, j->body.ptr, j->body.len);
	if (ZSTD_isError(got)) {
		j->fail = ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation ? RAW_FAIL_NOMEM
										 : RAW_FAIL_ZSTD;
		j->zerr = ZSTD_getErrorName(got);
		return;
	}
	j->blob_len = head + got;
	if (!w->settled) {
		size_t dn = j->body.len < INDEX_RAW_BLOCK_DICT_BYTES ? j->body.len
								     : INDEX_RAW_BLOCK_DICT_BYTES;

		w->settled = 1;
		/* on failure no block says it has a dictionary the context does not hold */
		if (raw_cdict_load(w, j->body.ptr, dn, ZSTD_dct_rawContent) != 0)
			j->fail = RAW_FAIL_DICT;
		else
			w->dict_id = j->first;
	}
}

/* The compressor's thread: each block handed over, in slot order, until told to stop. */
static void *raw_async_run(void *arg)
{
	struct index_raw_writer *w = arg;
	struct raw_async *a = w->async;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		struct raw_job *j = &a->jobs[a->work];

		int wake;

		a->idle = 1;
		while (j->state != RAW_JOB_QUEUED && !a->stop)
			pthread_cond_wait(&a->changed, &a->mu);
		a->idle = 0;
		if (j->state != RAW_JOB_QUEUED)
			break;
		a->queued--;
		pthread_mutex_unlock(&a->mu);
		raw_block_job(w, j);
		pthread_mutex_lock(&a->mu);
		j->state = RAW_JOB_DONE;
		a->work = (a->work + 1) % RAW_JOBS;
		wake = a->waiting;
		pthread_mutex_unlock(&a->mu);
		if (wake) /* outside the mutex: the writer woken does not sleep again on it */
			pthread_cond_broadcast(&a->changed);
		pthread_mutex_lock(&a->mu);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* The compressor of w, made on first use (its thread started when it can be). */
static struct raw_async *raw_async_of(struct index_raw_writer *w)
{
	struct raw_async *a = w->async;

	if (a != NULL)
		return a;
	a = w->async = lt_xcalloc(1, sizeof *a);
	for (size_t i = 0; i < RAW_JOBS; i++)
		lt_buf_init(&a->jobs[i].body);
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->changed, NULL);
	a->running = pthread_create(&a->thread, NULL, raw_async_run, w) == 0;
	return a;
}

/* Stops w's compressor, the blocks in flight dropped (a released writer's rows are not kept). */
static void raw_async_free(struct index_raw_writer *w)
{
	struct raw_async *a = w->async;

	if (a == NULL)
		return;
	if (a->running) {
		pthread_mutex_lock(&a->mu);
		a->stop = 1;
		pthread_cond_broadcast(&a->changed);
		pthread_mutex_unlock(&a->mu);
		pthread_join(a->thread, NULL);
	}
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->changed);
	for (size_t i = 0; i < RAW_JOBS; i++) {
		lt_buf_release(&a->jobs[i].body);
		free(a->jobs[i].blob);
	}
	free(a);
	w->async = NULL;
}

/* The error of a block that failed to compress. */
static int raw_job_error(const struct raw_job *j, struct lt_error *err)
{
	switch (j->fail) {
	case RAW_FAIL_CTX:
		return raw_nomem(err, "compressing raw records");
	case RAW_FAIL_NOMEM:
		return raw_nomem(err, "compressing a block of raw records");
	case RAW_FAIL_DICT:
		return raw_nomem(err, "loading a block of raw records as a dictionary");
	default:
		return lt_error_set(err, LT_ERR_DB, "cannot compress raw records: %s", j->zerr);
	}
}

/*
 * Takes block j back, once compressed (nothing when the slot is empty), and stores it as the
 * row of its first record's id.  The caller's sqlite3_last_insert_rowid() is left as it was:
 * the loaders read it after storing a record.
 */
static int raw_block_take(struct index_raw_writer *w, struct raw_job *j, struct lt_error *err)
{
	struct raw_async *a = w->async;
	sqlite3_int64 last;
	int rc;

	if (j->state == RAW_JOB_NONE)
		return 0;
	pthread_mutex_lock(&a->mu);
	if (j->state == RAW_JOB_QUEUED && a->idle)
		pthread_cond_broadcast(&a->changed); /* it may sit below RAW_WAKE */
	a->waiting = 1;
	while (j->state == RAW_JOB_QUEUED)
		pthread_cond_wait(&a->changed, &a->mu);
	a->waiting = 0;
	j->state = RAW_JOB_NONE;
	pthread_mutex_unlock(&a->mu);
	if (j->fail != RAW_FAIL_NONE && j->fail != RAW_FAIL_DICT)
		return raw_job_error(j, err);
	/* the ratio of this block sizes the next ones (a block cut short by a commit, too) */
	w->last_raw = j->body.len;
	w->last_packed = j->blob_len;
	last = sqlite3_last_insert_rowid(w->st->db);
	rc = raw_insert(w, j->first, j->blob, j->blob_len, err);
	sqlite3_set_last_insert_rowid(w->st->db, last);
	if (rc == 0 && j->fail == RAW_FAIL_DICT)
		rc = raw_job_error(j, err);
	return rc;
}

/* Takes every block in flight back, oldest first. */
static int raw_block_take_all(struct index_raw_writer *w, struct lt_error *err)
{
	struct raw_async *a = w->async;

	if (a == NULL)
		return 0;
	for (size_t k = 0; k < RAW_JOBS; k++)
		if (raw_block_take(w, &a->jobs[(a->next + k) % RAW_JOBS], err) != 0)
			return LT_ERR_DB;
	return 0;
}

/*
 * Hands the open block over to the compressor (after taking back the one in its slot, handed
 * over RAW_JOBS blocks before) and empties it; without a thread, compresses and stores it at
 * once.
 */
static int raw_block_write(struct index_raw_writer *w, struct lt_error *err)
{
	struct raw_async *a;
	struct raw_job *j;
	struct lt_buf spare;
	int wake;

	if (w->block_n == 0)
		return 0;
	a = raw_async_of(w);
	j = &a->jobs[a->next];
	if (raw_block_take(w, j, err) != 0)
		return LT_ERR_DB;
	lt_buf_append(&w->body, w->dir.ptr, w->dir.len);
	spare = j->body; /* the buffers change hands: nothing is copied */
	j->body = w->body;
	w->body = spare;
	j->first = w->block_first;
	j->n = w->block_n;
	j->dir_len = w->dir.len;
	lt_buf_reset(&w->body);
	lt_buf_reset(&w->dir);
	w->block_n = 0;
	a->next = (a->next + 1) % RAW_JOBS;
	if (!a->running) {
		raw_block_job(w, j);
		j->state = RAW_JOB_DONE;
		return raw_block_take(w, j, err);
	}
	pthread_mutex_lock(&a->mu);
	j->state = RAW_JOB_QUEUED;
	a->queued++;
	wake = a->idle && a->queued >= RAW_WAKE;
	pthread_mutex_unlock(&a->mu);
	if (wake) /* outside the mutex: the compressor woken does not sleep again on it */
		pthread_cond_broadcast(&a->changed);
	return 0;
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
 * The packer's samples are in (the caller stored them as text): train, and compress every
 * value from now on.
 */
static int raw_settle(struct index_raw_writer *w, struct lt_error *err)
{
	assert(!w->settled);
	w->settled = 1;
	if (w->cctx == NULL && (w->cctx = raw_cctx_new()) == NULL)
		return raw_nomem(err, "compressing raw records");
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

int index_raw_put(struct index_raw_writer *w, int64_t id, const char *p, size_t n,
		  struct lt_error *err)
{
	assert(w->st != NULL && raw_in_blocks(w));
	if (raw_prepare(w, err) != 0)
		return LT_ERR_DB;
	return raw_block_add(w, id, p, n, err);
}

int index_raw_pack(struct index_raw_writer *w, const char *p, size_t n, const void **out,
		   size_t *len, struct lt_error *err)
{
	int smaller = 0;

	assert(!raw_in_blocks(w));
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

int index_raw_flush(struct index_raw_writer *w, struct lt_error *err)
{
	/* a packer's samples are stored already, as text: it goes on sampling */
	if (!raw_in_blocks(w))
		return 0;
	/* a block holds records only once index_raw_put prepared */
	if (raw_block_write(w, err) != 0)
		return LT_ERR_DB;
	return raw_block_take_all(w, err);
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
	if (raw_in_blocks(w)) {
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
