/*
 * queries-health-skew.c - clock offsets between audit streams, from causal pairs.
 *
 * Each apiserver writes its own audit stream with its own clock; a few
 * hundred milliseconds of skew put a consequence before its cause.  One
 * causal link is known for every node: the node lifecycle controller's
 * update worker PATCHes a Node's taints in answer to the kubelet's status
 * write (docs/node-health.md), within milliseconds.  For each such pair
 * (the kubelet's status write c, the node-controller PATCH e of the same
 * Node nearest to it), gap = e.received - c.stage.  On one clock the gap is
 * the reaction; across streams it is the reaction plus the clock error.
 * The median of same-stream gaps is the reaction; the median of cross-stream
 * gaps minus it (both directions, signs flipped for one) is a stream's
 * offset against the reference (the first source read).  Two rounds: the
 * answers are picked on raw clocks, then again on the corrected ones (a
 * cause logged 300 ms late is nearer to the wrong PATCH at first).  Streams
 * are source files (one per apiserver); pairs between two non-reference
 * streams are not used.  Memory: the candidate pairs, at most
 * HEALTH_SKEW_MAX_PAIRS.
 */
#include "queries-int.h"

#include <stdlib.h>
#include <string.h>

#define HEALTH_SKEW_MAX_SOURCES 32
#define HEALTH_SKEW_MAX_PAIRS	65536 /* candidate (status write, PATCH) pairs kept */
#define HEALTH_SKEW_WINDOW	1000000LL

enum skew_col { SK_CAUSE, SK_CSRC, SK_ESRC, SK_CSTAGE, SK_ESTAGE, SK_ERECV };
static const char skew_pairs_sql[] =
    "SELECT c.id, c.source_id, e.source_id, c.stage_us, e.stage_us, e.received_us"
    " FROM audit AS e CROSS JOIN audit AS c ON c.resource_id = e.resource_id"
    " AND c.namespace_id IS NULL AND c.name_id = e.name_id"
    " AND c.stage_us BETWEEN e.stage_us - ?4 AND e.stage_us + ?4"
    " AND c.subresource_id = ?2 AND c.verb_id IN (?3, ?5) AND c.code BETWEEN 200 AND 299"
    " AND c.superseded = 0 AND c.user_id = (SELECT id FROM strs WHERE s = 'system:node:' ||"
    " (SELECT s FROM strs WHERE id = c.name_id))"
    " WHERE e.resource_id = ?1 AND e.namespace_id IS NULL AND e.name_id IS NOT NULL"
    " AND e.user_id = ?6 AND e.subresource_id IS NULL AND e.verb_id = ?3"
    " AND e.received_us IS NOT NULL ORDER BY c.id, e.stage_us";

/* A candidate pair: a status write (cause) and a PATCH of its Node near it (answer?). */
struct skew_pair {
	int64_t cause, cstage, estage, erecv;
	int csrc, esrc; /* indexes into src */
};

struct skew {
	int64_t src[HEALTH_SKEW_MAX_SOURCES];
	int64_t off[HEALTH_SKEW_MAX_SOURCES]; /* current estimate: add to the stream's times */
	int64_t npairs[HEALTH_SKEW_MAX_SOURCES];
	size_t nsrc;
	struct skew_pair *p;
	size_t n, cap;
	int64_t *v; /* scratch for medians */
};

static int skew_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t skew_median(int64_t *v, size_t n)
{
	qsort(v, n, sizeof *v, skew_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The index of source id s, added when new; -1 when there are too many. */
static int skew_index(struct skew *k, int64_t s)
{
	for (size_t i = 0; i < k->nsrc; i++)
		if (k->src[i] == s)
			return (int)i;
	if (k->nsrc == HEALTH_SKEW_MAX_SOURCES)
		return -1;
	k->src[k->nsrc] = s;
	return (int)k->nsrc++;
}

/* Reads every candidate pair: each status write with every node-controller PATCH within 1 s. */
static int skew_read(struct lt_store *st, struct skew *k, struct lt_error *err)
{
	struct lt_stmt *q = NULL;
	int rc;

	if ((rc = lt_store_prepare(st, &q, skew_pairs_sql, err)) != 0)
		return rc;
	lt_stmt_bind_int(q, 1, queries_str_id(st, "nodes"));
	lt_stmt_bind_int(q, 2, queries_str_id(st, "status"));
	lt_stmt_bind_int(q, 3, queries_str_id(st, "patch"));
	lt_stmt_bind_int(q, 4, HEALTH_SKEW_WINDOW);
	lt_stmt_bind_int(q, 5, queries_str_id(st, "update"));
	lt_stmt_bind_int(q, 6, queries_str_id(st, HEALTH_NODE_CONTROLLER));
	while ((rc = lt_stmt_step(q, err)) == 1 && k->n < HEALTH_SKEW_MAX_PAIRS) {
		int c = skew_index(k, lt_stmt_int(q, SK_CSRC)),
		    e = skew_index(k, lt_stmt_int(q, SK_ESRC));

		if (c < 0 || e < 0)
			continue;
		LT_GROW(k->p, k->cap, k->n + 1);
		k->p[k->n++] = (struct skew_pair){.cause = lt_stmt_int(q, SK_CAUSE),
						  .cstage = lt_stmt_int(q, SK_CSTAGE),
						  .estage = lt_stmt_int(q, SK_ESTAGE),
						  .erecv = lt_stmt_int(q, SK_ERECV),
						  .csrc = c,
						  .esrc = e};
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

/* The gap of a pair on the current clocks: the answer's start minus its cause's end. */
static int64_t skew_gap(const struct skew *k, const struct skew_pair *p)
{
	return p->erecv + k->off[p->esrc] - (p->cstage + k->off[p->csrc]);
}

/* One estimate: each status write's answer is the PATCH nearest it on the current clocks;
 * the reaction is the median gap of same-stream answers; each stream's offset against the
 * reference r moves by the median of its cross-stream answers' gap minus the reaction. */
static void skew_round(struct skew *k, size_t r)
{
	size_t *best = lt_xcalloc(k->n + 1, sizeof *best), nb = 0, nv = 0;
	int64_t reaction = 0;

	for (size_t i = 0; i < k->n; i++) {
		if (nb > 0 && k->p[best[nb - 1]].cause == k->p[i].cause) {
			const struct skew_pair *b = &k->p[best[nb - 1]];
			int64_t gb = skew_gap(k, b), gi = skew_gap(k, &k->p[i]);

			if ((gi < 0 ? -gi : gi) < (gb < 0 ? -gb : gb))
				best[nb - 1] = i;
			continue;
		}
		best[nb++] = i;
	}
	for (size_t i = 0; i < nb; i++)
		if (k->p[best[i]].csrc == k->p[best[i]].esrc)
			k->v[nv++] = skew_gap(k, &k->p[best[i]]);
	if (nv > 0)
		reaction = skew_median(k->v, nv);
	for (size_t x = 0; x < k->nsrc; x++) {
		if (x == r)
			continue;
		nv = 0;
		/* x answering r: its gap is reaction + (its clock error); r answering x: the
		 * opposite */
		for (size_t i = 0; i < nb; i++) {
			const struct skew_pair *p = &k->p[best[i]];

			if ((size_t)p->esrc == x && (size_t)p->csrc == r)
				k->v[nv++] = skew_gap(k, p) - reaction;
			else if ((size_t)p->csrc == x && (size_t)p->esrc == r)
				k->v[nv++] = reaction - skew_gap(k, p);
		}
		k->npairs[x] = (int64_t)nv;
		if (nv > 0)
			k->off[x] -= skew_median(k->v, nv);
	}
	k->npairs[r] = 0;
	for (size_t i = 0; i < nb; i++)
		k->npairs[r] += k->p[best[i]].csrc == (int)r && k->p[best[i]].esrc == (int)r;
	free(best);
}

static void skew_path(struct lt_store *st, int64_t source, char *out, size_t size)
{
	struct lt_stmt *q = NULL;

	out[0] = '\0';
	if (lt_store_prepare(st, &q, "SELECT path FROM sources WHERE id = ?1", NULL) != 0)
		return;
	lt_stmt_bind_int(q, 1, source);
	if (lt_stmt_step(q, NULL) == 1) {
		const char *p = lt_stmt_text(q, 0, NULL), *slash = strrchr(p, '/');
		size_t n = strlen(slash ? slash + 1 : p);

		if (n >= size)
			n = size - 1;
		memcpy(out, slash ? slash + 1 : p, n);
		out[n] = '\0';
	}
	lt_stmt_free(q);
}

int queries_health_offsets(struct lt_store *st, struct queries_health_offset *out, size_t max,
			   struct lt_error *err)
{
	struct skew *k = lt_xcalloc(1, sizeof *k);
	size_t r = 0, n = 0;
	int rc = skew_read(st, k, err);

	/* the reference: the first source read (the lowest id) */
	for (size_t i = 1; i < k->nsrc; i++)
		if (k->src[i] < k->src[r])
			r = i;
	k->v = lt_xcalloc(k->n + 1, sizeof *k->v);
	/* twice: the answers picked on raw clocks, then again on the corrected ones */
	for (int round = 0; rc == 0 && k->n > 0 && round < 2; round++)
		skew_round(k, r);
	for (size_t i = 0; rc == 0 && i < k->nsrc && n < max; i++) {
		struct queries_health_offset *o = &out[n];

		o->source_id = k->src[i];
		o->offset_us = k->off[i];
		o->pairs = k->npairs[i];
		skew_path(st, o->source_id, o->path, sizeof o->path);
		if (o->pairs > 0)
			n++;
	}
	free(k->v);
	free(k->p);
	free(k);
	return rc != 0 ? rc : (int)n;
}
