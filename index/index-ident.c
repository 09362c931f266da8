/*
 * index-ident.c - which stored source, if any, a file's content is.
 *
 * A source is known by the XXH3-128 of its on-disk bytes (parser-input.c
 * hashes them as they are read): `sources` keeps, for each, the hash of the
 * first `hashed` bytes (all records committed for it lie in them) and
 * `source_marks` the length and hash of every complete read.  A file of
 * size S is then
 *   - the same content (INDEX_IDENT_SAME) when its S bytes hash to a complete
 *     read of S bytes: nothing to do;
 *   - the continuation of a source (INDEX_IDENT_CONTINUE) when its first L bytes
 *     hash to that source's current point: an interrupted read, or a log
 *     that grew since (L < S), is read on from the source's resume offset;
 *   - new otherwise (an edited file, whose changed bytes lie before the end
 *     of what was read, hashes to nothing stored).
 * Candidates are found by the hash of the first LT_INPUT_HEAD bytes (head),
 * so a new file costs one read of 64 KiB; a candidate costs reading the file
 * up to its length, once for all of them (lt_hash_prefixes).  A source
 * shorter than 64 KiB is a candidate for longer files only under the same
 * path (its head is its whole content, unknown for a prefix of a file).
 */
#include "index-int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A stored point a file may match. */
struct ident_cand {
	int64_t source_id;
	uint64_t len;
	char hash[33];
	int current; /* the source's latest point (sources), not an old mark */
	int done;    /* a complete read (a mark, or a source not 'ingesting') */
};

static const char ident_cands_sql[] =
    "SELECT id, hashed, hash, 1, state != 'ingesting' FROM sources"
    " WHERE hash IS NOT NULL AND hashed <= ?1"
    " AND (head = ?2 OR (hashed < ?4 AND path = ?3))"
    " UNION ALL SELECT source_id, len, hash, 0, 1 FROM source_marks"
    " WHERE len <= ?1 AND head = ?2 ORDER BY 2";

/* The candidates for a file of size bytes whose head hashes to head, shortest first. */
static int ident_cands(struct lt_store *st, const char *path, uint64_t size, const char *head,
		       struct ident_cand **out, size_t *n, struct lt_error *err)
{
	sqlite3_stmt *q;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (index_store_prepare_raw(st, &q, ident_cands_sql, err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_int64(q, 1, (sqlite3_int64)size);
	sqlite3_bind_text(q, 2, head, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, LT_INPUT_HEAD);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct ident_cand *c;
		const unsigned char *h = sqlite3_column_text(q, 2);

		*out = lt_grow(*out, &cap, *n + 1, sizeof **out);
		c = &(*out)[(*n)++];
		c->source_id = sqlite3_column_int64(q, 0);
		c->len = (uint64_t)sqlite3_column_int64(q, 1);
		snprintf(c->hash, sizeof c->hash, "%s", h ? (const char *)h : "");
		c->current = sqlite3_column_int(q, 3);
		c->done = sqlite3_column_int(q, 4);
	}
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : index_store_db_error(st, err, "cannot look up sources");
}

/* Picks the verdict among candidates whose hashes matched (ok[i]). */
static void ident_pick(struct index_ident_match *out, const struct ident_cand *c, const int *ok,
		       size_t n, uint64_t size)
{
	for (size_t i = 0; i < n; i++) {
		if (!ok[i])
			continue;
		if (c[i].len == size && c[i].done) {
			*out = (struct index_ident_match){INDEX_IDENT_SAME, c[i].source_id,
							  c[i].len, 0};
			return;
		}
		/* the longest current point wins: candidates come shortest first */
		if (c[i].current)
			*out = (struct index_ident_match){INDEX_IDENT_CONTINUE, c[i].source_id,
							  c[i].len, c[i].done};
	}
}

int index_ident_find(struct index_ident_match *out, struct lt_store *st, const char *path,
		     struct lt_error *err)
{
	struct ident_cand *c = NULL;
	struct stat sb;
	uint64_t head_len, *lens;
	char head[1][33], (*hashes)[33];
	size_t n = 0;
	int *ok, rc;

	*out = (struct index_ident_match){INDEX_IDENT_NEW, 0, 0, 0};
	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return 0;
	head_len = (uint64_t)sb.st_size < LT_INPUT_HEAD ? (uint64_t)sb.st_size : LT_INPUT_HEAD;
	if ((rc = lt_hash_prefixes(head, path, &head_len, 1, err)) != 0)
		return rc;
	if ((rc = ident_cands(st, path, (uint64_t)sb.st_size, head[0], &c, &n, err)) != 0 ||
	    n == 0) {
		free(c);
		return rc;
	}
	lens = lt_xcalloc(n, sizeof *lens);
	hashes = lt_xcalloc(n, sizeof *hashes);
	ok = lt_xcalloc(n, sizeof *ok);
	for (size_t i = 0; i < n; i++)
		lens[i] = c[i].len;
	rc = lt_hash_prefixes(hashes, path, lens, n, err);
	for (size_t i = 0; i < n && rc == 0; i++)
		ok[i] = strcmp(hashes[i], c[i].hash) == 0;
	if (rc == 0)
		ident_pick(out, c, ok, n, (uint64_t)sb.st_size);
	free(ok);
	free(hashes);
	free(lens);
	free(c);
	return rc;
}
