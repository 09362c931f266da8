/*
 * queries-health-skew.c - clock offsets between audit streams, from causal pairs.
 *
 * Each apiserver writes its own audit stream with its own clock; a few
 * hundred milliseconds of skew put a consequence before its cause.  One
 * causal link is known for every node: the node lifecycle controller's
 * update worker PATCHes a Node's taints in answer to the kubelet's status
 * write (docs/node-health.md), within milliseconds.  For each such pair
 * (the kubelet's status write c, the node-controller PATCH e of the same
 * Node of the same cluster within 1 s of it), gap = e.received - c.stage.
 * On one clock the gap is the reaction; across streams it is the reaction
 * plus the clock error.  The reaction is taken as 0 until the streams are
 * placed, then as what the gaps of every placed candidate agree on.
 *
 * A stream is one apiserver's: a source file, or within a CloudWatch export
 * the log stream its event came from (audit_ext.stream: one per apiserver),
 * of one cluster.  Each cluster's reference is its first stream read (the
 * lowest source id, then stream name) that has a causal pair.  Offsets
 * spread from the reference: each round, a stream's clock error against
 * the placed streams is what its candidate pairs with them agree on (the
 * densest HEALTH_SKEW_AGREE span of their gaps minus the reaction, signs
 * flipped when it holds the cause; every candidate votes, not only the
 * nearest: a status write is often near a PATCH that is not its answer,
 * and those scatter), when one span clearly holds the most (else it waits
 * for more placed streams); it moves by that and is placed.  The rounds go
 * on until none is placed anew, then one more refines every offset on the
 * corrected clocks.  A stream that nothing clearly ties to a placed one
 * stays unknown (never 0).  Memory: the candidate pairs, at most
 * HEALTH_SKEW_MAX_PAIRS, and HEALTH_SKEW_MAX_STREAMS streams.
 */
#include "queries-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEALTH_SKEW_MAX_STREAMS QUERIES_HEALTH_MAX_STREAMS
#define HEALTH_SKEW_MAX_PAIRS	65536 /* candidate (status write, PATCH) pairs kept */
#define HEALTH_SKEW_WINDOW	1000000LL
#define HEALTH_SKEW_AGREE	QUERIES_HEALTH_CLOCK_ERR /* true answers' residuals lie within */
#define HEALTH_SKEW_REFINE	2			 /* rounds with the reaction estimated */

enum skew_col {
	SK_CAUSE,
	SK_CLUSTER,
	SK_CSRC,
	SK_CSTREAM,
	SK_ESRC,
	SK_ESTREAM,
	SK_CSTAGE,
	SK_ESTAGE,
	SK_ERECV
};
/* The status write's requestReceivedTimestamp (schema 9 stores the latency: lt_index.h). */
#define SKEW_RECEIVED LT_AUDIT_RECEIVED_SQL("e")

/* the node-controller's PATCHes (few) outward to the status writes near them */
static const char skew_pairs_sql[] =
    "SELECT c.id, e.cluster_id, c.source_id,"
    " coalesce(" LT_AUDIT_STREAM_SQL(
	"c.id") ", ''), e.source_id,"
		" coalesce(" LT_AUDIT_STREAM_SQL(
		    "e.id") ", ''),"
			    " c.stage_us, e.stage_us, " SKEW_RECEIVED
			    " FROM audit AS e CROSS JOIN audit AS c ON c.resource_id = "
			    "e.resource_id"
			    " AND c.namespace_id IS NULL AND c.name_id = e.name_id"
			    " AND c.stage_us BETWEEN e.stage_us - ?4 AND e.stage_us + ?4"
			    " AND c.subresource_id = ?2 AND c.verb_id IN (?3, ?5) AND c.code "
			    "BETWEEN 200 AND 299"
			    " AND c.superseded = 0 AND c.cluster_id = e.cluster_id"
			    " AND c.user_id = (SELECT id FROM strs WHERE s = 'system:node:' ||"
			    " (SELECT s FROM strs WHERE id = c.name_id))"
			    " WHERE e.resource_id = ?1 AND e.namespace_id IS NULL AND e.name_id IS "
			    "NOT NULL"
			    " AND e.user_id = ?6 AND e.subresource_id IS NULL AND e.verb_id = ?3"
			    " AND " SKEW_RECEIVED " IS NOT NULL ORDER BY c.id, e.stage_us";

/* The audit sources that stored events (each a stream at least; text sources are in
 * log_sources), with the cluster all their records share. */
static const char skew_sources_sql[] =
    "SELECT s.id, coalesce(s.cluster_id, 0) FROM sources AS s WHERE s.stored > 0"
    " AND s.id NOT IN (SELECT source_id FROM log_sources) ORDER BY s.id";

/* A candidate pair: a status write (cause) and a PATCH of its Node near it (answer?). */
struct skew_pair {
	int64_t cause, cstage, estage, erecv;
	int csrc, esrc; /* indexes into k->s */
};

/* One audit stream: a source file, or a CloudWatch log stream in it, of one cluster. */
struct skew_stream {
	int64_t cluster, source;
	char name[sizeof((struct queries_health_offset *)0)->stream];
};

struct skew {
	struct skew_stream s[HEALTH_SKEW_MAX_STREAMS];
	int64_t off[HEALTH_SKEW_MAX_STREAMS]; /* current estimate: add to the stream's times */
	int64_t npairs[HEALTH_SKEW_MAX_STREAMS];
	enum queries_skew_state state[HEALTH_SKEW_MAX_STREAMS];
	size_t ns;
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

/* The index of stream (cluster, source, name), added when new; -1 when there are too many. */
static int skew_index(struct skew *k, int64_t cluster, int64_t source, const char *name)
{
	struct skew_stream *s;

	for (size_t i = 0; i < k->ns; i++)
		if (k->s[i].cluster == cluster && k->s[i].source == source &&
		    strcmp(k->s[i].name, name) == 0)
			return (int)i;
	if (k->ns == HEALTH_SKEW_MAX_STREAMS)
		return -1;
	s = &k->s[k->ns];
	*s = (struct skew_stream){.cluster = cluster, .source = source};
	snprintf(s->name, sizeof s->name, "%s", name);
	return (int)k->ns++;
}

/* Reads every candidate pair: each node-controller PATCH with every status write within 1 s. */
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
		int64_t cluster = lt_stmt_int(q, SK_CLUSTER);
		int c = skew_index(k, cluster, lt_stmt_int(q, SK_CSRC),
				   lt_stmt_text(q, SK_CSTREAM, NULL)),
		    e = skew_index(k, cluster, lt_stmt_int(q, SK_ESRC),
				   lt_stmt_text(q, SK_ESTREAM, NULL));

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

/* Each cluster's reference: its stream of the lowest source id, then name. */
static void skew_references(struct skew *k)
{
	for (size_t i = 0; i < k->ns; i++) {
		size_t r = i;

		for (size_t j = 0; j < k->ns; j++) {
			const struct skew_stream *a = &k->s[j], *b = &k->s[r];

			if (a->cluster == b->cluster &&
			    (a->source < b->source ||
			     (a->source == b->source && strcmp(a->name, b->name) < 0)))
				r = j;
		}
		k->state[r] = QUERIES_SKEW_REFERENCE;
	}
}

/* The gap of a pair on the current clocks: the answer's start minus its cause's end. */
static int64_t skew_gap(const struct skew *k, const struct skew_pair *p)
{
	return p->erecv + k->off[p->esrc] - (p->cstage + k->off[p->csrc]);
}

/* Into k->v: stream x's clock error by every candidate pair with a placed stream (x
 * answering y: the gap minus the reaction; y answering x: the opposite).  Every candidate,
 * not only the nearest: the true answers agree, the others scatter. */
static size_t skew_residuals(struct skew *k, int x, int64_t reaction)
{
	size_t nv = 0;

	for (size_t i = 0; i < k->n; i++) {
		const struct skew_pair *p = &k->p[i];

		if (p->esrc == x && p->csrc != x && k->state[p->csrc] != QUERIES_SKEW_UNKNOWN)
			k->v[nv++] = skew_gap(k, p) - reaction;
		else if (p->csrc == x && p->esrc != x && k->state[p->esrc] != QUERIES_SKEW_UNKNOWN)
			k->v[nv++] = reaction - skew_gap(k, p);
	}
	return nv;
}

/*
 * The clock error the residuals v[0..n) agree on: the densest span of HEALTH_SKEW_AGREE
 * (the most residuals within it), its median into *err and its size returned; 0 when no
 * span holds more than every span apart from it (no clear answer: a tie, or nothing).
 */
static size_t skew_agree(int64_t *v, size_t n, int64_t *err)
{
	size_t best = 0, bi = 0, runner = 0;

	qsort(v, n, sizeof *v, skew_cmp);
	for (size_t i = 0, j = 0; i < n; i++) {
		while (j < n && v[j] - v[i] <= HEALTH_SKEW_AGREE)
			j++;
		if (j - i > best) {
			best = j - i;
			bi = i;
		}
	}
	for (size_t i = 0, j = 0; i < n; i++) {
		while (j < n && v[j] - v[i] <= HEALTH_SKEW_AGREE)
			j++;
		if ((v[i] > v[bi] + HEALTH_SKEW_AGREE || v[i] + HEALTH_SKEW_AGREE < v[bi]) &&
		    j - i > runner)
			runner = j - i;
	}
	if (best <= runner)
		return 0;
	*err = skew_median(v + bi, best);
	return best;
}

/* The reaction: what the gaps of every candidate between placed streams agree on, on the
 * corrected clocks (skew_agree: the true answers come within milliseconds, the others
 * scatter); 0 when they agree on nothing.  How many agree into *agree. */
static int64_t skew_reaction(struct skew *k, int64_t *agree)
{
	size_t nv = 0;
	int64_t reaction = 0;

	for (size_t i = 0; i < k->n; i++)
		if (k->state[k->p[i].csrc] != QUERIES_SKEW_UNKNOWN &&
		    k->state[k->p[i].esrc] != QUERIES_SKEW_UNKNOWN)
			k->v[nv++] = skew_gap(k, &k->p[i]);
	*agree = (int64_t)skew_agree(k->v, nv, &reaction);
	return reaction;
}

/* One round: every stream whose pairs with placed streams agree on a clock error moves by
 * it (all against the clocks at the round's start), and is placed.  How many were placed anew. */
static size_t skew_round(struct skew *k, int64_t reaction, int64_t same)
{
	int64_t delta[HEALTH_SKEW_MAX_STREAMS] = {0};
	int moved[HEALTH_SKEW_MAX_STREAMS] = {0};
	size_t placed = 0;

	for (size_t x = 0; x < k->ns; x++) {
		size_t agree;

		if (k->state[x] == QUERIES_SKEW_REFERENCE) {
			k->npairs[x] = same; /* the pairs the reaction rests on */
			continue;
		}
		agree = skew_agree(k->v, skew_residuals(k, (int)x, reaction), &delta[x]);
		if (agree > 0) {
			k->npairs[x] = (int64_t)agree;
			moved[x] = 1;
		}
	}
	for (size_t x = 0; x < k->ns; x++) {
		if (!moved[x])
			continue;
		k->off[x] -= delta[x];
		if (k->state[x] == QUERIES_SKEW_UNKNOWN) {
			k->state[x] = QUERIES_SKEW_ESTIMATED;
			placed++;
		}
	}
	return placed;
}

/*
 * Rounds until no stream is placed anew, the reaction taken as 0 (the update worker answers
 * within milliseconds: inside HEALTH_SKEW_AGREE); then, HEALTH_SKEW_REFINE times, the
 * reaction from every placed pair and one more round with it.
 */
static void skew_estimate(struct skew *k)
{
	size_t rounds = 0;
	int64_t agree = 0, reaction = 0;

	k->v = lt_xcalloc(k->n + 1, sizeof *k->v);
	skew_references(k);
	while (k->n > 0 && rounds++ <= k->ns && skew_round(k, reaction, agree) > 0)
		;
	for (int i = 0; k->n > 0 && i < HEALTH_SKEW_REFINE; i++) {
		reaction = skew_reaction(k, &agree);
		skew_round(k, reaction, agree);
	}
}

/* The text of strs id (or of a source's path, shortened to its base name) into out. */
static void skew_text(struct lt_store *st, const char *sql, int64_t id, int base, char *out,
		      size_t size)
{
	struct lt_stmt *q = NULL;

	out[0] = '\0';
	if (id == 0 || lt_store_prepare(st, &q, sql, NULL) != 0)
		return;
	lt_stmt_bind_int(q, 1, id);
	if (lt_stmt_step(q, NULL) == 1) {
		const char *p = lt_stmt_text(q, 0, NULL), *slash = base ? strrchr(p, '/') : NULL;

		snprintf(out, size, "%s", slash ? slash + 1 : p);
	}
	lt_stmt_free(q);
}

/* Adds each audit source with events that no pair named (unknown: nothing to estimate by). */
static int skew_add_sources(struct lt_store *st, struct skew *k, struct lt_error *err)
{
	struct lt_stmt *q = NULL;
	int rc;

	if ((rc = lt_store_prepare(st, &q, skew_sources_sql, err)) != 0)
		return rc;
	while ((rc = lt_stmt_step(q, err)) == 1) {
		int64_t source = lt_stmt_int(q, 0), seen = 0;

		for (size_t i = 0; i < k->ns; i++)
			seen |= k->s[i].source == source;
		if (!seen)
			skew_index(k, lt_stmt_int(q, 1), source, "");
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

static void skew_out(struct lt_store *st, const struct skew *k, size_t i,
		     struct queries_health_offset *o)
{
	*o = (struct queries_health_offset){.source_id = k->s[i].source,
					    .cluster_id = k->s[i].cluster,
					    .offset_us = k->off[i],
					    .pairs = k->npairs[i],
					    .state = k->state[i]};
	snprintf(o->stream, sizeof o->stream, "%s", k->s[i].name);
	skew_text(st, "SELECT path FROM sources WHERE id = ?1", o->source_id, 1, o->path,
		  sizeof o->path);
	skew_text(st, "SELECT s FROM strs WHERE id = ?1", o->cluster_id, 0, o->cluster,
		  sizeof o->cluster);
}

int queries_health_offsets(struct lt_store *st, struct queries_health_offset *out, size_t max,
			   int all, struct lt_error *err)
{
	struct skew *k = lt_xcalloc(1, sizeof *k);
	size_t n = 0;
	int rc = skew_read(st, k, err);

	if (rc == 0)
		skew_estimate(k);
	if (rc == 0 && all)
		rc = skew_add_sources(st, k, err);
	for (size_t i = 0; rc == 0 && i < k->ns && n < max; i++)
		if (all || k->state[i] != QUERIES_SKEW_UNKNOWN)
			skew_out(st, k, i, &out[n++]);
	free(k->v);
	free(k->p);
	free(k);
	return rc != 0 ? rc : (int)n;
}
