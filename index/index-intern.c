/*
 * index-intern.c - storing each repeated string once, with an in-memory cache of ids.
 *
 * A string the cache misses is looked up in strs, and inserted when it is not there.  While
 * the cache is known to hold every row of strs (a store whose strs was empty when the cache
 * began: a first ingest, which interns every string of its logs), a miss is a new string and
 * goes straight to the INSERT: the SELECT that would miss is saved (bench/RESULTS.md, branch
 * writer).  strs.s is UNIQUE: should the cache ever be wrong, the INSERT fails on the
 * constraint and the string is looked up as before, never stored twice.  Every rollback and
 * every overflow clears the cache, which then is not complete any more.
 *
 * The cache is laid out for the working set (a 326 MB audit log has ~21 000 strings, of which
 * an event's memo misses ~6): 8-byte slots of open addressing on a precomputed hash, holding
 * a 32-bit tag of the hash and the entry's offset in one arena, where each entry's id, length
 * and bytes lie together; the bytes are compared only on a tag match.
 */
#include "index-int.h"

#include <stdlib.h>
#include <string.h>

/* Past this many cached strings, or bytes of entries, the cache starts over: memory stays
 * bounded.  A string longer than INTERN_MAX_STR is not cached (looked up in strs each time). */
#define INTERN_MAX	 262144
#define INTERN_MAX_BYTES (64u << 20)
#define INTERN_MAX_STR	 (INTERN_MAX_BYTES / 16)

/* An entry's header in the arena; its bytes follow. */
struct intern_entry {
	int64_t id;
	uint64_t len;
};

/* Eight bytes at a time: every event interns some twenty strings. */
static uint64_t intern_hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	return h;
}

/* The slot's tag: the hash's high half, never 0 (0 marks an empty slot). */
static uint32_t intern_tag(uint64_t h)
{
	return (uint32_t)(h >> 32) | 1u;
}

static struct intern_entry intern_entry_at(const struct index_intern_cache *c, uint32_t at)
{
	struct intern_entry e;

	memcpy(&e, c->arena + at, sizeof e);
	return e;
}

void index_intern_clear(struct index_intern_cache *c)
{
	if (c->slots != NULL)
		memset(c->slots, 0, c->cap * sizeof *c->slots);
	c->used = 0;
	c->arena_len = 0;
	c->gen++;
	c->complete = c->checked = 0;
}

void index_intern_release(struct index_intern_cache *c)
{
	index_intern_clear(c);
	free(c->slots);
	free(c->arena);
	c->slots = NULL;
	c->arena = NULL;
	c->cap = c->arena_cap = 0;
}

/* The slot holding s, or the empty slot where it would go; bytes compared on a tag match. */
static struct index_intern_slot *intern_slot(const struct index_intern_cache *c, const char *s,
					     size_t n, uint64_t h)
{
	uint32_t tag = intern_tag(h);
	size_t i = (size_t)h & (c->cap - 1);

	for (;; i = (i + 1) & (c->cap - 1)) {
		struct index_intern_slot *e = &c->slots[i];

		if (e->tag == 0)
			return e;
		if (e->tag == tag && intern_entry_at(c, e->at).len == n &&
		    memcmp(c->arena + e->at + sizeof(struct intern_entry), s, n) == 0)
			return e;
	}
}

static void intern_grow(struct index_intern_cache *c)
{
	struct index_intern_slot *old = c->slots;
	size_t old_cap = c->cap;

	c->cap = old_cap ? old_cap * 2 : 1024;
	c->slots = lt_xcalloc(c->cap, sizeof *c->slots);
	for (size_t i = 0; i < old_cap; i++) {
		const char *s;
		uint64_t n;

		if (old[i].tag == 0)
			continue;
		n = intern_entry_at(c, old[i].at).len;
		s = c->arena + old[i].at + sizeof(struct intern_entry);
		*intern_slot(c, s, n, intern_hash(s, n)) = old[i];
	}
	free(old);
}

/* Appends s and its id to the arena, in slot e (which intern_slot returned empty). */
static void intern_add(struct index_intern_cache *c, struct index_intern_slot *e, struct lt_str s,
		       uint64_t h, int64_t id)
{
	struct intern_entry head = {.id = id, .len = s.len};
	size_t need = (sizeof head + s.len + 7) & ~(size_t)7;

	LT_GROW(c->arena, c->arena_cap, c->arena_len + need);
	memcpy(c->arena + c->arena_len, &head, sizeof head);
	memcpy(c->arena + c->arena_len + sizeof head, s.ptr, s.len);
	e->tag = intern_tag(h);
	e->at = (uint32_t)c->arena_len;
	c->arena_len += need;
	c->used++;
}

/* Prepares the two statements on first use (each again after a failed prepare). */
static int intern_prepare(struct lt_store *st, struct lt_error *err)
{
	if (st->str_find == NULL &&
	    index_store_prepare_raw(st, &st->str_find, "SELECT id FROM strs WHERE s = ?1", err) !=
		0)
		return LT_ERR_DB;
	if (st->str_add == NULL &&
	    index_store_prepare_raw(st, &st->str_add, "INSERT INTO strs(s) VALUES(?1)", err) != 0)
		return LT_ERR_DB;
	return 0;
}

/* Inserts s into strs: *id its new id; 1 when strs holds it already, else 0 or an error. */
static int intern_insert(struct lt_store *st, struct lt_str s, int64_t *id, struct lt_error *err)
{
	int rc;

	sqlite3_bind_text(st->str_add, 1, s.ptr, (int)s.len, SQLITE_STATIC);
	rc = sqlite3_step(st->str_add);
	sqlite3_reset(st->str_add);
	if (rc == SQLITE_CONSTRAINT)
		return 1;
	if (rc != SQLITE_DONE)
		return index_store_db_error(st, err, "string insert failed");
	*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

/* Looks s up in strs: *id its id, or 0 when it is not there. */
static int intern_find(struct lt_store *st, struct lt_str s, int64_t *id, struct lt_error *err)
{
	int rc;

	sqlite3_bind_text(st->str_find, 1, s.ptr, (int)s.len, SQLITE_STATIC);
	rc = sqlite3_step(st->str_find);
	*id = rc == SQLITE_ROW ? sqlite3_column_int64(st->str_find, 0) : 0;
	sqlite3_reset(st->str_find);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return index_store_db_error(st, err, "string lookup failed");
	return 0;
}

/* Once a generation, with the cache empty: complete when strs is empty too. */
static int intern_check(struct lt_store *st, struct lt_error *err)
{
	struct index_intern_cache *c = &st->strs;
	sqlite3_stmt *q;
	int rc;

	c->checked = 1;
	if (c->used != 0)
		return 0;
	if (index_store_prepare_raw(st, &q, "SELECT NOT EXISTS (SELECT 1 FROM strs)", err) != 0)
		return LT_ERR_DB;
	rc = sqlite3_step(q);
	c->complete = rc == SQLITE_ROW && sqlite3_column_int(q, 0) == 1;
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW)
		return index_store_db_error(st, err, "string lookup failed");
	return 0;
}

/* Finds or adds s in the strs table: insert first while the cache holds all of strs. */
static int intern_lookup_db(struct lt_store *st, struct lt_str s, int64_t *id, struct lt_error *err)
{
	int rc;

	if (intern_prepare(st, err) != 0 || (!st->strs.checked && intern_check(st, err) != 0))
		return LT_ERR_DB;
	if (st->strs.complete && (rc = intern_insert(st, s, id, err)) != 1)
		return rc;
	if (intern_find(st, s, id, err) != 0)
		return LT_ERR_DB;
	if (*id != 0)
		return 0;
	rc = intern_insert(st, s, id, err);
	return rc == 1 ? index_store_db_error(st, err, "string insert failed") : rc;
}

/* index_intern_id of a string whose hash h is known. */
static int intern_id_hashed(struct lt_store *st, struct lt_str s, uint64_t h, int64_t *id,
			    struct lt_error *err)
{
	struct index_intern_cache *c = &st->strs;
	struct index_intern_slot *e;

	*id = 0;
	if (s.ptr == NULL)
		return 0;
	if (s.len > INTERN_MAX_STR)
		return intern_lookup_db(st, s, id, err);
	if (c->used >= INTERN_MAX ||
	    c->arena_len + sizeof(struct intern_entry) + s.len + 8 > INTERN_MAX_BYTES)
		index_intern_clear(c);
	if (c->used * 2 >= c->cap)
		intern_grow(c);
	e = intern_slot(c, s.ptr, s.len, h);
	if (e->tag != 0) {
		*id = intern_entry_at(c, e->at).id;
		return 0;
	}
	if (intern_lookup_db(st, s, id, err) != 0)
		return LT_ERR_DB;
	intern_add(c, e, s, h, *id);
	return 0;
}

int index_intern_id(struct lt_store *st, struct lt_str s, int64_t *id, struct lt_error *err)
{
	return intern_id_hashed(st, s, s.ptr ? intern_hash(s.ptr, s.len) : 0, id, err);
}

/* 1 when the memo answers s (its id in *id). */
static int intern_memo_hit(const struct lt_store *st, const struct index_intern_memo *m,
			   struct lt_str s, int64_t *id)
{
	if (s.ptr == NULL) {
		*id = 0;
		return 1;
	}
	if (m->s == NULL || m->gen != st->strs.gen || m->len != s.len ||
	    memcmp(m->s, s.ptr, s.len) != 0)
		return 0;
	*id = m->id;
	return 1;
}

/* Remembers s and its id in the memo. */
static void intern_memo_set(const struct lt_store *st, struct index_intern_memo *m, struct lt_str s,
			    int64_t id)
{
	LT_GROW(m->s, m->cap, s.len + 1);
	memcpy(m->s, s.ptr, s.len);
	m->len = s.len;
	m->id = id;
	m->gen = st->strs.gen;
}

int index_intern_ids_memo(struct lt_store *st, struct index_intern_req *r, size_t n,
			  struct lt_error *err)
{
	const struct index_intern_cache *c = &st->strs;
	size_t i;

	for (i = 0; i < n; i++) {
		if (intern_memo_hit(st, r[i].memo, r[i].s, r[i].id)) {
			r[i].memo = NULL; /* answered */
			continue;
		}
		r[i].hash = intern_hash(r[i].s.ptr, r[i].s.len);
		if (c->cap != 0)
			__builtin_prefetch(&c->slots[(size_t)r[i].hash & (c->cap - 1)]);
	}
	for (i = 0; i < n; i++) {
		if (r[i].memo == NULL)
			continue;
		if (intern_id_hashed(st, r[i].s, r[i].hash, r[i].id, err) != 0)
			return LT_ERR_DB;
		intern_memo_set(st, r[i].memo, r[i].s, *r[i].id);
	}
	return 0;
}

int index_intern_id_memo(struct lt_store *st, struct index_intern_memo *m, struct lt_str s,
			 int64_t *id, struct lt_error *err)
{
	if (intern_memo_hit(st, m, s, id))
		return 0;
	if (index_intern_id(st, s, id, err) != 0)
		return LT_ERR_DB;
	intern_memo_set(st, m, s, *id);
	return 0;
}

void index_intern_memo_release(struct index_intern_memo *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(m[i].s);
}
