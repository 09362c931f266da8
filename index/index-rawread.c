/*
 * index-rawread.c - lt_raw() and lt_raw_of(), the SQL functions that read the raw records
 * index-raw.c stored back byte for byte, registered on every connection of a store.
 *
 * lt_raw(value) gives a stored value's text back: a value compressed alone (byte 0
 * INDEX_RAW_ZSTD or INDEX_RAW_ZSTD_DICT, index-raw.h: lines.fields, and an upgraded store's
 * schema-8 rows of audit_raw_rows and lines_raw_rows), with its dictionary from raw_dicts; text
 * and NULL as they are.  SQL reads one as lt_raw(r.json).  It keeps the last record it decoded
 * (queries read one record's body several times in a row) and RAW_DICT_CACHE dictionaries.
 *
 * lt_raw_of(table, id) reads record id of 'audit' or 'lines' from its block (schema 9): the
 * last one keyed at or below its id in audit_blocks or lines_blocks.  It keeps that block
 * decoded, with its directory (a connection reads neighbours in a row), and the dictionaries of
 * RAW_DICT_CACHE blocks; a rollback drops both (a rolled-back block's id may come back with
 * other records).  NULL when no block holds the record (a row of schema 8 and before).
 *
 * Every allocation of zstd goes through index_raw_alloc (LEASETRAIL_FAULT=zstd:N): an error
 * in SQL, never a crash.  Log text is never trusted: a damaged blob or block is an error.
 */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem, the magicless frame format */
#include "index-int.h"
#include "index-raw.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

/* a record longer than this is not one of ours (the parser caps records at 8 MiB) */
#define RAW_MAX_RECORD (64u * 1024 * 1024)
/* dictionaries lt_raw keeps decoded per connection */
#define RAW_DICT_CACHE 8

static const ZSTD_customMem raw_mem = {.customAlloc = index_raw_alloc,
				       .customFree = index_raw_free};

int index_raw_get_varint(const unsigned char **p, const unsigned char *end, uint64_t *out)
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

/* A stored value taken apart: what lt_raw needs to decode it. */
struct raw_blob {
	enum index_raw_codec codec;
	uint64_t len, dict_id;
	const unsigned char *frame;
	size_t frame_len;
};

/* Splits a value into header and frame; -1 when it is not one index-raw.c wrote. */
static int raw_parse(struct raw_blob *out, const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n;

	if (n < 2 || (p[0] != INDEX_RAW_ZSTD && p[0] != INDEX_RAW_ZSTD_DICT))
		return -1;
	out->codec = (enum index_raw_codec) * p++;
	out->dict_id = 0;
	if (index_raw_get_varint(&p, end, &out->len) != 0 || out->len > RAW_MAX_RECORD ||
	    (out->codec == INDEX_RAW_ZSTD_DICT &&
	     index_raw_get_varint(&p, end, &out->dict_id) != 0))
		return -1;
	out->frame = p;
	out->frame_len = (size_t)(end - p);
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
	} bdicts[RAW_DICT_CACHE]; /* blocks' dictionaries (INDEX_RAW_BLOCK_DICT) */
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
	if (b->codec == INDEX_RAW_ZSTD_DICT &&
	    (dd = raw_dict(r, db, (int64_t)b->dict_id, &msg)) == NULL)
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

		if (index_raw_get_varint(&p, end, &gap) != 0 ||
		    index_raw_get_varint(&p, end, &rec) != 0 ||
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

/* Splits a block blob into its head and frame; -1 when it is not one index-rawblock.c wrote. */
static int raw_block_parse(struct raw_block_head *out, const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n;
	uint64_t dict = 0;
	int codec;

	if (p == NULL || n < 1 || (p[0] != INDEX_RAW_BLOCK && p[0] != INDEX_RAW_BLOCK_DICT))
		return -1;
	codec = *p++;
	if (index_raw_get_varint(&p, end, &out->len) != 0 ||
	    index_raw_get_varint(&p, end, &out->count) != 0 ||
	    index_raw_get_varint(&p, end, &out->dir_len) != 0 ||
	    (codec == INDEX_RAW_BLOCK_DICT && (index_raw_get_varint(&p, end, &dict) != 0 ||
					       dict == 0 || dict > (uint64_t)INT64_MAX)) ||
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

/* Block id of table's content as a decoding dictionary (INDEX_RAW_BLOCK_DICT); NULL with *msg. */
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
		size_t n =
		    h.len < INDEX_RAW_BLOCK_DICT_BYTES ? (size_t)h.len : INDEX_RAW_BLOCK_DICT_BYTES;

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
