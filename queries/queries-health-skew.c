/*
 * queries-health-skew.c - clock offsets between audit streams, from causal pairs.
 *
 * Each apiserver writes its own audit stream with its own clock; a few
 * hundred milliseconds of skew put a consequence before its cause.  One
 * causal link is known for every node: the node lifecycle controller's
 * update worker PATCHes a Node's taints in answer to the kubelet's status
 * write (docs/node-health.md), within milliseconds.  For each such pair
 * (the kubelet's status write c, the node-controller PATCH e of the same
 * Node nearest to it within 1 s), v = c.stage - e.received.  On one clock
 * v = -reaction; across streams v = -reaction - (clock_e - clock_c).  The
 * median of same-stream pairs is the reaction, the median of each
 * cross-stream direction gives the offset; both directions are averaged,
 * weighted by their counts.  Streams are source files (one per apiserver).
 * Memory: the gaps of the pairs, bounded by HEALTH_SKEW_MAX_PAIRS.
 */
#include "queries-int.h"

#include <stdlib.h>
#include <string.h>

#define HEALTH_SKEW_MAX_SOURCES 32
#define HEALTH_SKEW_MAX_PAIRS	4096 /* per ordered pair of streams */
#define HEALTH_SKEW_WINDOW	1000000LL

enum skew_col { SK_CAUSE, SK_CSRC, SK_ESRC, SK_GAP };
static const char skew_pairs_sql[] =
    "SELECT c.id, c.source_id, e.source_id, c.stage_us - e.received_us"
    " FROM audit AS c JOIN audit AS e ON e.resource_id = c.resource_id"
    " AND e.namespace_id IS NULL AND e.name_id = c.name_id AND e.user_id = ?3"
    " AND e.subresource_id IS NULL AND e.verb_id = ?4 AND e.received_us IS NOT NULL"
    " AND e.stage_us BETWEEN c.stage_us - ?5 AND c.stage_us + ?5"
    " WHERE c.resource_id = ?1 AND c.subresource_id = ?2 AND c.verb_id IN (?4, ?6)"
    " AND c.code BETWEEN 200 AND 299 AND c.superseded = 0 AND c.namespace_id IS NULL"
    " AND c.user_id = (SELECT id FROM strs WHERE s = 'system:node:' ||"
    " (SELECT s FROM strs WHERE id = c.name_id))"
    " ORDER BY c.id, abs(e.stage_us - c.stage_us)";

/* The gaps of one ordered pair of streams (cause's, effect's). */
struct skew_gaps {
	int64_t *v;
	size_t n, cap;
};

struct skew {
	int64_t src[HEALTH_SKEW_MAX_SOURCES];
	size_t nsrc;
	struct skew_gaps g[HEALTH_SKEW_MAX_SOURCES][HEALTH_SKEW_MAX_SOURCES];
};

static int skew_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t skew_median(struct skew_gaps *g)
{
	qsort(g->v, g->n, sizeof *g->v, skew_cmp);
	return g->n % 2 ? g->v[g->n / 2] : (g->v[g->n / 2 - 1] + g->v[g->n / 2]) / 2;
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

static void skew_add(struct skew *k, int64_t csrc, int64_t esrc, int64_t gap)
{
	int a = skew_index(k, csrc), b = skew_index(k, esrc);
	struct skew_gaps *g;

	if (a < 0 || b < 0)
		return;
	g = &k->g[a][b];
	if (g->n == HEALTH_SKEW_MAX_PAIRS)
		return;
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		g->v = lt_xrealloc(g->v, g->cap * sizeof *g->v);
	}
	g->v[g->n++] = gap;
}

/* Reads every causal pair's gap (one per cause: its nearest effect). */
static int skew_read(struct lt_store *st, struct skew *k, struct lt_error *err)
{
	struct lt_stmt *q = NULL;
	int64_t last = 0;
	int rc;

	if ((rc = lt_store_prepare(st, &q, skew_pairs_sql, err)) != 0)
		return rc;
	lt_stmt_bind_int(q, 1, lc_str_id(st, "nodes"));
	lt_stmt_bind_int(q, 2, lc_str_id(st, "status"));
	lt_stmt_bind_int(q, 3, lc_str_id(st, "system:serviceaccount:kube-system:node-controller"));
	lt_stmt_bind_int(q, 4, lc_str_id(st, "patch"));
	lt_stmt_bind_int(q, 5, HEALTH_SKEW_WINDOW);
	lt_stmt_bind_int(q, 6, lc_str_id(st, "update"));
	while ((rc = lt_stmt_step(q, err)) == 1) {
		int64_t cause = lt_stmt_int(q, SK_CAUSE);

		if (cause == last)
			continue; /* a farther PATCH of the same status write */
		last = cause;
		skew_add(k, lt_stmt_int(q, SK_CSRC), lt_stmt_int(q, SK_ESRC),
			 lt_stmt_int(q, SK_GAP));
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

/* The reaction time: the median gap of same-stream pairs (0 when there are none). */
static int64_t skew_reaction(struct skew *k)
{
	struct skew_gaps all = {0};
	int64_t r = 0;

	for (size_t i = 0; i < k->nsrc; i++)
		for (size_t j = 0; j < k->g[i][i].n; j++) {
			if (all.n == all.cap) {
				all.cap = all.cap ? 2 * all.cap : 64;
				all.v = lt_xrealloc(all.v, all.cap * sizeof *all.v);
			}
			all.v[all.n++] = k->g[i][i].v[j];
		}
	if (all.n > 0)
		r = -skew_median(&all);
	free(all.v);
	return r;
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

/* The offset to add to stream x's times to put them on the reference stream r's clock. */
static int64_t skew_offset(struct skew *k, size_t r, size_t x, int64_t reaction, int64_t *pairs)
{
	struct skew_gaps *rx = &k->g[r][x], *xr = &k->g[x][r];
	int64_t n = (int64_t)(rx->n + xr->n), sum = 0;

	*pairs = n;
	if (n == 0)
		return 0;
	/* r causes, x answers: v = -reaction - (clock_x - clock_r) */
	if (rx->n > 0)
		sum += (int64_t)rx->n * (-skew_median(rx) - reaction);
	/* x causes, r answers: v = -reaction - (clock_r - clock_x) */
	if (xr->n > 0)
		sum += (int64_t)xr->n * (skew_median(xr) + reaction);
	return -(sum / n);
}

int queries_health_offsets(struct lt_store *st, struct queries_health_offset *out, size_t max,
			   struct lt_error *err)
{
	struct skew *k = lt_xcalloc(1, sizeof *k);
	size_t r = 0, n = 0;
	int rc = skew_read(st, k, err);
	int64_t reaction = skew_reaction(k), best = -1;

	/* the reference: the first source read (the lowest id) */
	for (size_t i = 0; rc == 0 && i < k->nsrc; i++)
		if (best < 0 || k->src[i] < best)
			best = k->src[i], r = i;
	for (size_t i = 0; rc == 0 && i < k->nsrc && n < max; i++) {
		struct queries_health_offset *o = &out[n];
		int64_t pairs;

		o->source_id = k->src[i];
		o->offset_us = i == r ? 0 : skew_offset(k, r, i, reaction, &pairs);
		o->pairs = i == r ? (int64_t)k->g[r][r].n : pairs;
		skew_path(st, o->source_id, o->path, sizeof o->path);
		if (o->pairs > 0)
			n++;
	}
	for (size_t i = 0; i < k->nsrc; i++)
		for (size_t j = 0; j < k->nsrc; j++)
			free(k->g[i][j].v);
	free(k);
	return rc != 0 ? rc : (int)n;
}
