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
 */
#include "index-int.h"

#include <stdlib.h>
#include <string.h>

/* Past this many cached strings the cache starts over: memory stays bounded. */
#define INTERN_MAX 262144

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
	return h | 1; /* 0 marks an empty slot */
}

void index_intern_clear(struct index_intern_cache *c)
{
	for (size_t i = 0; i < c->cap; i++) {
		free(c->slots[i].s);
		c->slots[i].s = NULL;
		c->slots[i].hash = 0;
	}
	c->used = 0;
	c->gen++;
	c->complete = c->checked = 0;
}

void index_intern_release(struct index_intern_cache *c)
{
	index_intern_clear(c);
	free(c->slots);
	c->slots = NULL;
	c->cap = 0;
}

/* The slot holding s, or the empty slot where it would go. */
static struct index_intern_slot *intern_slot(struct index_intern_cache *c, const char *s, size_t n,
					     uint64_t h)
{
	size_t i = (size_t)h & (c->cap - 1);

	for (;; i = (i + 1) & (c->cap - 1)) {
		struct index_intern_slot *e = &c->slots[i];

		if (e->hash == 0 || (e->hash == h && e->len == n && memcmp(e->s, s, n) == 0))
			return e;
	}
}

static void intern_grow(struct index_intern_cache *c)
{
	struct index_intern_slot *old = c->slots;
	size_t old_cap = c->cap;

	c->cap = old_cap ? old_cap * 2 : 1024;
	c->slots = lt_xcalloc(c->cap, sizeof *c->slots);
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].hash != 0)
			*intern_slot(c, old[i].s, old[i].len, old[i].hash) = old[i];
	free(old);
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

int index_intern_id_memo(struct lt_store *st, struct index_intern_memo *m, struct lt_str s,
			 int64_t *id, struct lt_error *err)
{
	if (s.ptr != NULL && m->s != NULL && m->gen == st->strs.gen && m->len == s.len &&
	    memcmp(m->s, s.ptr, s.len) == 0) {
		*id = m->id;
		return 0;
	}
	if (index_intern_id(st, s, id, err) != 0)
		return LT_ERR_DB;
	if (s.ptr == NULL)
		return 0;
	LT_GROW(m->s, m->cap, s.len + 1);
	memcpy(m->s, s.ptr, s.len);
	m->len = s.len;
	m->id = *id;
	m->gen = st->strs.gen;
	return 0;
}

void index_intern_memo_release(struct index_intern_memo *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(m[i].s);
}

int index_intern_id(struct lt_store *st, struct lt_str s, int64_t *id, struct lt_error *err)
{
	struct index_intern_cache *c = &st->strs;
	struct index_intern_slot *e;
	uint64_t h;

	*id = 0;
	if (s.ptr == NULL)
		return 0;
	if (c->used >= INTERN_MAX)
		index_intern_clear(c);
	if (c->used * 2 >= c->cap)
		intern_grow(c);
	h = intern_hash(s.ptr, s.len);
	e = intern_slot(c, s.ptr, s.len, h);
	if (e->hash != 0) {
		*id = e->id;
		return 0;
	}
	if (intern_lookup_db(st, s, id, err) != 0)
		return LT_ERR_DB;
	e->s = lt_xstrndup(s.ptr, s.len);
	e->len = s.len;
	e->hash = h;
	e->id = *id;
	c->used++;
	return 0;
}
