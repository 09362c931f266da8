/*
 * index-rawblock.c - the raw records' blocks: audit_raw and lines_raw written as compressed
 * blocks, cut to fit their page, by a compressor thread of the writer's own.
 *
 * Schema 9 stores the raw records in blocks: each load's writer of a raw table
 * gathers consecutive records (ascending ids, never a duplicate's: it has no row)
 * and stores them as rows of audit_blocks or lines_blocks, each keyed by its first
 * record's id and cut to fill its share of a page (four to a 16 KiB page, any four
 * in a row: a block may take what the three before it left of theirs; the records
 * cut off start the next block), and before every commit (index_raw_flush)
 * every record gathered, in the rows' transaction: a committed row always has its
 * record, an interrupted batch leaves no block behind.  A block:
 *
 *   byte 0       INDEX_RAW_BLOCK, or INDEX_RAW_BLOCK_DICT (index-raw.h)
 *   varints      the content's length, its records, its directory's length,
 *                and (INDEX_RAW_BLOCK_DICT) the id of the block whose content is the
 *                dictionary: the writer's first
 *   the rest     one zstd frame, magicless, of the content: the records end to
 *                end, then the directory (per record: varint id gap, varint length)
 *
 * The writer's zstd context, its dictionary and the allocator are index-raw.c's
 * (index-raw.h); index-rawread.c reads the blocks back.
 */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem, the magicless frame format */
#include "index-int.h"
#include "index-raw.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

/*
 * The writer hands its records over to the compressor (below) about a block's worth at a time:
 * what would compress to about RAW_BLOCK_CELL bytes by the ratio of the rows it took back
 * last (RAW_BLOCK_FIRST for the first), within RAW_BLOCK_MIN and RAW_BLOCK_MAX (what it holds
 * in memory), and at most RAW_BLOCK_RECORDS; the compressor cuts the blocks (cut_run).  A
 * block of about 4 KB, not 8: reading one record decodes its whole block (timeline -v of a
 * node of a merged journal reads one line a block), and a block of 7600 bytes stored 1-3 %
 * less for 30 % more instructions (bench/RESULTS.md, "Raw records in blocks").
 */
#ifndef RAW_BLOCK_CELL /* a build may set another, to measure it */
#define RAW_BLOCK_CELL 3800u
#endif
#define RAW_BLOCK_FIRST	  (32u * 1024)
#define RAW_BLOCK_MIN	  (4u * 1024)
#define RAW_BLOCK_MAX	  (1024u * 1024)
#define RAW_BLOCK_RECORDS 4096

/* Each table in blocks (enum index_raw_table): a block as the row of its first record's id. */
static const char *const raw_inserts[] = {
    [INDEX_RAW_AUDIT] = "INSERT INTO audit_blocks(id, data) VALUES(?1, ?2)",
    [INDEX_RAW_LINES] = "INSERT INTO lines_blocks(id, data) VALUES(?1, ?2)",
    [INDEX_RAW_FIELDS] = NULL, /* a column of lines (index_raw_pack): not in blocks */
};

/* Prepares the writer's statements on first use. */
static int raw_prepare(struct index_raw_writer *w, struct lt_error *err)
{
	if (w->ins != NULL || raw_inserts[w->table] == NULL)
		return 0;
	return index_store_prepare_raw(w->st, &w->ins, raw_inserts[w->table], err);
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

/* Appends v to b as a varint. */
static void raw_buf_varint(struct lt_buf *b, uint64_t v)
{
	unsigned char tmp[10];

	lt_buf_append(b, tmp, index_raw_varint(tmp, v));
}

/*
 * The block compressor: a thread of the writer's own compresses each full block while the
 * writer goes on with the next rows, so the writer's thread only gathers records and inserts
 * the finished blocks (zstd was 14 % of its instructions on an audit log: bench/RESULTS.md,
 * branch writer).  Up to RAW_JOBS blocks are in flight, in a ring the compressor works
 * through in order, woken RAW_WAKE blocks at a time.  With one block in flight and a wake-up
 * per block, the writer stopped at nearly every block: waiting for the block, or losing its
 * core to the compressor just woken (14 000 times in a 2.1 s load of an audit log, about 0.5 s
 * of it; bench/RESULTS.md, the merged session-11 tree).  When a job (a block's worth of
 * records, struct raw_job) fills, the writer takes back the job handed over RAW_JOBS jobs
 * before, waiting only if it is still being compressed, inserts the rows the compressor made
 * of it (none, one or more, each a block cut to its page: cut_run) and hands over the new one;
 * the records a job's last block could not take are carried, by the compressor, into the
 * next job's first.  The rows stay in id order and in the transaction, and index_raw_flush
 * hands over a final job, whose rows take every record carried, and inserts every job in
 * flight before every commit: a carry never crosses a commit, and the rollback hook's
 * guarantee holds as it did.  While a job is in flight, w->cctx, w->cdict, w->dict_id,
 * w->settled and the open block (struct raw_cut) are the compressor's; the writer reads a job
 * once it took it back (under the mutex: it happens after).  A job's size follows the ratio of
 * the rows taken back last, and the compressor cuts the blocks in the jobs' order, each from
 * the records and the blocks before it: decided by the data and the commits, never by timing,
 * so a load stores the same blocks whichever thread runs first (test_raw_blocks_fit).  Without a
 * thread (pthread_create failed) the writer compresses each block itself.
 */
#define RAW_JOBS 8
/*
 * The compressor is woken once this many blocks wait (or the writer waits for one): each
 * wake-up of it took the writer's core from the writer (measured 4 and 2, 8 and 4, 16 and 8:
 * bench/RESULTS.md, the merged session-11 tree).
 */
#define RAW_WAKE 4

/* the most cells a page is shared by: 64 KiB pages, RAW_CELL_SHARE each */
#define RAW_CELLS_MAX 16

enum raw_job_state { RAW_JOB_NONE, RAW_JOB_QUEUED, RAW_JOB_DONE };

/* What went wrong compressing a block, reported by the writer when it takes the block back. */
enum raw_job_fail { RAW_FAIL_NONE, RAW_FAIL_CTX, RAW_FAIL_NOMEM, RAW_FAIL_ZSTD, RAW_FAIL_DICT };

/* A block's row made by a job: its first record's id, where its bytes are in the job's blob. */
struct raw_row {
	int64_t first;
	size_t off, len;
};

/*
 * Records handed over (their content: the records, then their directory; the head's numbers),
 * and the rows the compressor made of them: none (carried into the next job), one or more.
 */
struct raw_job {
	enum raw_job_state state;
	struct lt_buf body;
	int64_t first;
	size_t n, dir_len;
	int final;	     /* before a commit: every record carried is stored too */
	unsigned char *blob; /* the rows end to end: blob_len bytes */
	size_t blob_len, blob_cap;
	struct raw_row *rows;
	size_t nrows, cap_rows;
	size_t rows_raw; /* the rows' content bytes (records and directories): their ratio */
	enum raw_job_fail fail;
	const char *zerr; /* zstd's name of the error (RAW_FAIL_ZSTD) */
};

/* A record of the compressor's open block. */
struct raw_rec {
	int64_t id;
	size_t len;
};

/*
 * The compressor's open block: the records it was given and has not stored yet (cut_run,
 * below).  The compressor's alone.
 */
struct raw_cut {
	struct lt_buf recs;  /* its records, end to end */
	struct raw_rec *at;  /* each one's id and length */
	size_t n, cap;	     /* its records */
	struct lt_buf dir;   /* scratch: a block's directory */
	unsigned char *kept; /* scratch: the bytes the directory covers (cut_pack) */
	size_t kept_cap;
	uint64_t last_raw, last_packed; /* the last block's records' bytes and its own */
	size_t usable;			/* the store's usable bytes a page */
	long slack[RAW_CELLS_MAX];	/* the last blocks' bytes under their shares (cut_budget) */
	size_t slack_at;		/* the oldest of them: the next to replace */
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
	int carrying;	   /* the writer: records handed over since the last final job */
	struct raw_cut cut;
};

/* ---- blocks cut to fit their page (the compressor's) ---- */

/*
 * A block's row is a cell of a table b-tree's leaf page, SQLite's format: the page has an
 * 8-byte header and a 2-byte pointer a cell; a cell is its payload's length (a varint of 2
 * bytes below 16 KiB), the rowid (the block's id, INTEGER PRIMARY KEY: a varint) and the
 * payload, a record of a 4-byte header (its length, the id's serial type 0: the rowid stands
 * for it, the blob's serial type: 2 bytes from 58 to 8185 bytes) and the block.  SQLite
 * appends a row to the table's last page when it fits, else starts a new page: a page holds
 * shares of about RAW_CELL_SHARE bytes (4 of a 16 KiB page, 8 of an old store's 32 KiB one),
 * a block is cut to at most its budget (its share and what the blocks before it left of theirs:
 * cut_budget), and the page is full.
 */
#define RAW_CELL_SHARE 4096u
#define RAW_LEAF_HEAD  8
#define RAW_CELL_FIXED (2 + 2 + 4) /* the pointer, the payload's length, the record's header */
/* SQLite keeps a payload on its page up to the page's usable bytes less this (maxLocal) */
#define RAW_LOCAL_LESS 35
/* a store whose page size cannot be read: a new store's */
#define RAW_PAGE_FALLBACK 16384u
/*
 * A block's records are the first ones that would compress to RAW_CUT_AIM thousandths of its
 * budget (cut_budget: its share and what the blocks before it left of theirs) by the ratio of the
 * block before; compressed, and kept when it fits; when over, cut back by its own ratio to
 * RAW_CUT_BACK thousandths of the budget and compressed again, until it fits.  A block that
 * fits is never given more records: what it leaves of its share goes to the next blocks on its
 * page.  Most blocks are compressed once (bench/RESULTS.md, branch acomp: 1.45 compressions a
 * block before on 8000 audit lines, with more records tried when an average record's room was
 * left; the aims measured there).
 */
#ifndef RAW_CUT_AIM /* a build may set others, to measure them */
#define RAW_CUT_AIM 980u
#endif
#ifndef RAW_CUT_BACK
#define RAW_CUT_BACK 990u
#endif

/* The bytes of v as a varint. */
static size_t raw_varint_len(uint64_t v)
{
	size_t n = 1;

	for (; v >= 0x80; v >>= 7)
		n++;
	return n;
}

/* The cells a page of usable bytes is shared by (at most RAW_CELLS_MAX). */
static size_t raw_cells(size_t usable)
{
	size_t per = usable / RAW_CELL_SHARE;

	return per < 1 ? 1 : per > RAW_CELLS_MAX ? RAW_CELLS_MAX : per;
}

/* The share of a block keyed first, on pages of usable bytes: the bytes it may take alone. */
static size_t raw_cell_budget(size_t usable, int64_t first)
{
	size_t share = (usable - RAW_LEAF_HEAD) / raw_cells(usable);
	size_t fixed = RAW_CELL_FIXED + raw_varint_len((uint64_t)first);
	size_t local = usable - RAW_LOCAL_LESS - 4;
	size_t b = share > fixed ? share - fixed : 0;

	return b < local ? b : local;
}

/*
 * The bytes the open block may take, its budget: its share, and what the blocks before it left
 * of theirs.  SQLite fills a table's last page in order, so a page holds the next cells(usable)
 * blocks from any block it starts with (a load's first block, never cut, a commit's short last
 * block, another load's) when their cells come to at most their shares together: a block may
 * take its share and what the last cells - 1 blocks left under theirs, less what they took over
 * (a slack may be negative).  A block that fits with room to spare passes it on, rather than
 * being compressed again with more records (cut_block).  At most maxLocal, as a share.
 */
static size_t cut_budget(const struct raw_cut *c)
{
	long b = (long)raw_cell_budget(c->usable, c->at[0].id);
	long local = (long)(c->usable - RAW_LOCAL_LESS - 4);
	size_t per = raw_cells(c->usable);

	for (size_t i = 0; i + 1 < per; i++)
		b += c->slack[i];
	return b < 0 ? 0 : (size_t)(b < local ? b : local);
}

/*
 * Keeps what a block (len bytes, keyed first, its budget budget) left of its share for the
 * blocks after it.  A record alone over its budget breaks the page it lies on whatever its
 * neighbours do: the next blocks start from their shares alone, as after a load's first block.
 */
static void cut_settle(struct raw_cut *c, int64_t first, size_t len, size_t budget)
{
	size_t per = raw_cells(c->usable);

	if (per < 2)
		return;
	if (len > budget) {
		memset(c->slack, 0, sizeof c->slack);
		return;
	}
	c->slack[c->slack_at] = (long)raw_cell_budget(c->usable, first) - (long)len;
	c->slack_at = (c->slack_at + 1) % (per - 1);
}

/* Makes room for n more bytes of rows in j; where they go (a row once raw_job_row says so). */
static unsigned char *raw_job_room(struct raw_job *j, size_t n)
{
	LT_GROW(j->blob, j->blob_cap, j->blob_len + n);
	return j->blob + j->blob_len;
}

/* The len bytes at the end of j's rows are a row, keyed first, of content bytes. */
static void raw_job_row(struct raw_job *j, int64_t first, size_t len, size_t content)
{
	LT_GROW(j->rows, j->cap_rows, j->nrows + 1);
	j->rows[j->nrows++] = (struct raw_row){.first = first, .off = j->blob_len, .len = len};
	j->blob_len += len;
	j->rows_raw += content;
}

/* The failure of zstd's result got. */
static void raw_job_zfail(struct raw_job *j, size_t got)
{
	j->fail =
	    ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation ? RAW_FAIL_NOMEM : RAW_FAIL_ZSTD;
	j->zerr = ZSTD_getErrorName(got);
}

/*
 * Compresses content (len bytes at src: n records, then their directory of dir_len bytes) into a
 * block at off past the end of j's rows, not yet a row; its bytes, or zstd's error.
 */
static size_t raw_block_pack(struct index_raw_writer *w, struct raw_job *j, size_t off,
			     const void *src, size_t len, size_t n, size_t dir_len)
{
	size_t cap = INDEX_RAW_HEADER_MAX + 10 + ZSTD_compressBound(len), head = 1, got;
	unsigned char *dst = raw_job_room(j, off + cap) + off;

	dst[0] = w->cdict != NULL ? INDEX_RAW_BLOCK_DICT : INDEX_RAW_BLOCK;
	head += index_raw_varint(dst + head, len);
	head += index_raw_varint(dst + head, n);
	head += index_raw_varint(dst + head, dir_len);
	if (w->cdict != NULL)
		head += index_raw_varint(dst + head, (uint64_t)w->dict_id);
	got = ZSTD_compress2(w->cctx, dst + head, cap - head, src, len);
	return ZSTD_isError(got) ? got : head + got;
}

/*
 * The writer's first block, j's records, compressed alone and never cut (its first
 * INDEX_RAW_BLOCK_DICT_BYTES are the later blocks' dictionary: cut shorter, it would serve them
 * less); the cut blocks' first ratio.
 */
static void raw_block_first(struct index_raw_writer *w, struct raw_job *j)
{
	size_t dn =
	    j->body.len < INDEX_RAW_BLOCK_DICT_BYTES ? j->body.len : INDEX_RAW_BLOCK_DICT_BYTES;
	size_t got = raw_block_pack(w, j, 0, j->body.ptr, j->body.len, j->n, j->dir_len);

	if (ZSTD_isError(got)) {
		raw_job_zfail(j, got);
		return;
	}
	raw_job_row(j, j->first, got, j->body.len);
	w->async->cut.last_raw = j->body.len - j->dir_len;
	w->async->cut.last_packed = got;
	w->settled = 1;
	/* on failure no block says it has a dictionary the context does not hold */
	if (index_raw_cdict_load(w, j->body.ptr, dn, 1) != 0)
		j->fail = RAW_FAIL_DICT;
	else
		w->dict_id = j->first;
}

/* Adds j's records (its content, then its directory) to the end of the open block. */
static void cut_take(struct raw_cut *c, const struct raw_job *j)
{
	const unsigned char *d = (const unsigned char *)j->body.ptr + (j->body.len - j->dir_len);
	const unsigned char *end = d + j->dir_len;
	int64_t id = j->first;

	lt_buf_append(&c->recs, j->body.ptr, j->body.len - j->dir_len);
	LT_GROW(c->at, c->cap, c->n + j->n);
	for (size_t i = 0; i < j->n; i++) {
		uint64_t gap = 0, len = 0;

		/* the writer's own directory: well formed */
		(void)index_raw_get_varint(&d, end, &gap);
		(void)index_raw_get_varint(&d, end, &len);
		id += (int64_t)gap;
		c->at[c->n++] = (struct raw_rec){.id = id, .len = (size_t)len};
	}
}

/* The directory of the open block's first k records into c->dir: per record, id gap and length. */
static void cut_directory(struct raw_cut *c, size_t k)
{
	lt_buf_reset(&c->dir);
	for (size_t i = 0; i < k; i++) {
		unsigned char tmp[20];
		size_t n =
		    index_raw_varint(tmp, i > 0 ? (uint64_t)(c->at[i].id - c->at[i - 1].id) : 0);

		n += index_raw_varint(tmp + n, c->at[i].len);
		lt_buf_append(&c->dir, tmp, n);
	}
}

/*
 * Of the open block's records, as many from the first as come nearest below want bytes (at
 * least one); *raw their bytes.
 */
static size_t cut_count(const struct raw_cut *c, size_t *raw, uint64_t want)
{
	size_t k = 0;

	*raw = 0;
	while (k < c->n && k < RAW_BLOCK_RECORDS &&
	       (k == 0 || (*raw + c->at[k].len <= want && *raw + c->at[k].len <= RAW_BLOCK_MAX)))
		*raw += c->at[k++].len;
	return k;
}

/* A block tried: its first k records, raw bytes of them, content bytes, its length. */
struct cut_try {
	size_t k, raw, content, len;
};

/*
 * Compresses the open block's first k records (raw bytes) into a candidate at the end of j's
 * rows; 0 or zstd's error.  The content is compressed where the records lie, not copied:
 * the directory goes in the place of the bytes after the k-th record (a block's records were
 * copied once a try, 13 % of the compressor's instructions: bench/RESULTS.md, branch acomp),
 * which are kept aside and put back.
 */
static size_t cut_pack(struct raw_cut *c, struct index_raw_writer *w, struct raw_job *j,
		       struct cut_try *t)
{
	size_t had = c->recs.len, dir, over, got;

	cut_directory(c, t->k);
	dir = c->dir.len;
	over = had - t->raw < dir ? had - t->raw : dir; /* the later records' bytes it covers */
	LT_GROW(c->kept, c->kept_cap, over + 1);	/* never NULL: memcpy */
	memcpy(c->kept, c->recs.ptr + t->raw, over);
	memcpy(c->recs.ptr + t->raw, c->dir.ptr, over);
	lt_buf_append(&c->recs, c->dir.ptr + over, dir - over);
	got = raw_block_pack(w, j, 0, c->recs.ptr, t->raw + dir, t->k, dir);
	memcpy(c->recs.ptr + t->raw, c->kept, over);
	lt_buf_truncate(&c->recs, had);
	if (ZSTD_isError(got))
		return got;
	t->content = t->raw + dir;
	t->len = got;
	return 0;
}

/*
 * The block to try after t, which is over budget and of more than one record: t's records cut
 * back to RAW_CUT_BACK of the budget by t's own ratio (fewer records than t's: t's raw bytes are
 * over what is wanted, and at least one).
 */
static struct cut_try cut_back(const struct raw_cut *c, const struct cut_try *t, size_t budget)
{
	struct cut_try next = {0};
	uint64_t want = (uint64_t)t->raw * budget / t->len * RAW_CUT_BACK / 1000;

	next.k = cut_count(c, &next.raw, want);
	return next;
}

/*
 * Stores the open block's first k records (raw bytes) as a row of j: compressed, and cut back
 * by its ratio while over the block's budget.  A record alone is a block even over its budget
 * (SQLite keeps it on the page or overflows it, as any row).  0 or zstd's error.
 */
static size_t cut_block(struct raw_cut *c, struct index_raw_writer *w, struct raw_job *j, size_t k,
			size_t raw)
{
	size_t budget = cut_budget(c), got;
	struct cut_try t = {.k = k, .raw = raw};

	for (;;) {
		if (ZSTD_isError(got = cut_pack(c, w, j, &t)))
			return got;
		if (t.len <= budget || t.k == 1)
			break;
		t = cut_back(c, &t, budget);
	}
	raw_job_row(j, c->at[0].id, t.len, t.content);
	cut_settle(c, c->at[0].id, t.len, budget);
	c->last_raw = t.raw;
	c->last_packed = t.len;
	memmove(c->recs.ptr, c->recs.ptr + t.raw, c->recs.len - t.raw);
	lt_buf_truncate(&c->recs, c->recs.len - t.raw);
	memmove(c->at, c->at + t.k, (c->n - t.k) * sizeof *c->at);
	c->n -= t.k;
	return 0;
}

/*
 * Cuts the open block, j's records added, into rows of j: each the first records that would
 * compress to RAW_CUT_AIM of their budget by the last block's ratio, cut back to it when
 * over.  Before a commit (j->final) the records left are rows too; else they wait for the next
 * job's.
 */
static void cut_run(struct raw_cut *c, struct index_raw_writer *w, struct raw_job *j)
{
	while (c->n > 0) {
		uint64_t aim = (uint64_t)cut_budget(c) * RAW_CUT_AIM / 1000 * c->last_raw /
			       (c->last_packed > 0 ? c->last_packed : 1);
		uint64_t enough = aim + aim / 4 < RAW_BLOCK_MAX ? aim + aim / 4 : RAW_BLOCK_MAX;
		size_t k, raw, got;

		/* a few records past the aim: the aim is reached whatever the records' lengths */
		if (!j->final && c->recs.len < enough && c->n < RAW_BLOCK_RECORDS)
			return;
		k = cut_count(c, &raw, aim);
		if (ZSTD_isError(got = cut_block(c, w, j, k, raw))) {
			raw_job_zfail(j, got);
			/* the load fails: what the open block held goes with it */
			c->n = 0;
			lt_buf_reset(&c->recs);
			return;
		}
	}
}

/*
 * Compresses the records of j into rows: the writer's first block alone (raw_block_first),
 * every later one cut from the records carried and j's to fit its budget of a page.  On the
 * compressor's thread, or the writer's.
 */
static void raw_block_job(struct index_raw_writer *w, struct raw_job *j)
{
	j->fail = RAW_FAIL_NONE;
	j->blob_len = j->nrows = j->rows_raw = 0;
	if (w->cctx == NULL && (w->cctx = index_raw_cctx_new()) == NULL) {
		j->fail = RAW_FAIL_CTX;
		return;
	}
	if (!w->settled) {
		raw_block_first(w, j);
		return;
	}
	if (j->n > 0)
		cut_take(&w->async->cut, j);
	cut_run(&w->async->cut, w, j);
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

/*
 * The usable bytes of the store's pages, which its blocks are cut to fit: PRAGMA page_size (16
 * KiB for a new store, 32 KiB for one made before schema 10) less the bytes reserved at each
 * page's end (none unless a VFS asks).  On the writer's thread; a failure costs room only.
 */
static size_t raw_page_usable(struct lt_store *st)
{
	sqlite3_stmt *q = NULL;
	int page = 0, reserve = -1; /* -1: SQLITE_FCNTL_RESERVE_BYTES reads it */

	if (sqlite3_prepare_v2(st->db, "PRAGMA page_size", -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		page = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	if (sqlite3_file_control(st->db, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve) !=
		SQLITE_OK ||
	    reserve < 0)
		reserve = 0;
	if (page < 512 || page > 65536 || reserve >= page / 2)
		return RAW_PAGE_FALLBACK;
	return (size_t)(page - reserve);
}

/* 0: no compressor thread (index_raw_set_threads, for tests) */
static int raw_threads = 1;

void index_raw_set_threads(int on)
{
	raw_threads = on;
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
	lt_buf_init(&a->cut.recs);
	lt_buf_init(&a->cut.dir);
	a->cut.usable = raw_page_usable(w->st);
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->changed, NULL);
	a->running = raw_threads && pthread_create(&a->thread, NULL, raw_async_run, w) == 0;
	return a;
}

/* Stops w's compressor, the blocks in flight dropped (a released writer's rows are not kept). */
void index_raw_async_free(struct index_raw_writer *w)
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
		free(a->jobs[i].rows);
	}
	lt_buf_release(&a->cut.recs);
	lt_buf_release(&a->cut.dir);
	free(a->cut.kept);
	free(a->cut.at);
	free(a);
	w->async = NULL;
}

/* The error of a block that failed to compress. */
static int raw_job_error(const struct raw_job *j, struct lt_error *err)
{
	switch (j->fail) {
	case RAW_FAIL_CTX:
		return index_raw_nomem(err, "compressing raw records");
	case RAW_FAIL_NOMEM:
		return index_raw_nomem(err, "compressing a block of raw records");
	case RAW_FAIL_DICT:
		return index_raw_nomem(err, "loading a block of raw records as a dictionary");
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
	/* the ratio of its rows sizes the next jobs (rows cut short by a commit, too) */
	if (j->nrows > 0) {
		w->last_raw = j->rows_raw;
		w->last_packed = j->blob_len;
	}
	last = sqlite3_last_insert_rowid(w->st->db);
	rc = 0;
	for (size_t k = 0; k < j->nrows && rc == 0; k++)
		rc = raw_insert(w, j->rows[k].first, j->blob + j->rows[k].off, j->rows[k].len, err);
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
static int raw_block_write(struct index_raw_writer *w, int final, struct lt_error *err)
{
	struct raw_async *a;
	struct raw_job *j;
	struct lt_buf spare;
	int wake;

	if (w->block_n == 0 && !(final && w->async != NULL && w->async->carrying))
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
	j->final = final;
	a->carrying = !final;
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

/* The bytes of records handed over at a time: what would compress to RAW_BLOCK_CELL. */
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
		return raw_block_write(w, 0, err);
	return 0;
}

int index_raw_put(struct index_raw_writer *w, int64_t id, const char *p, size_t n,
		  struct lt_error *err)
{
	assert(w->st != NULL && index_raw_in_blocks(w));
	if (raw_prepare(w, err) != 0)
		return LT_ERR_DB;
	return raw_block_add(w, id, p, n, err);
}

int index_raw_flush(struct index_raw_writer *w, struct lt_error *err)
{
	/* a packer's samples are stored already, as text: it goes on sampling */
	if (!index_raw_in_blocks(w))
		return 0;
	/* a block holds records only once index_raw_put prepared */
	if (raw_block_write(w, 1, err) != 0)
		return LT_ERR_DB;
	return raw_block_take_all(w, err);
}
