/*
 * queries-lifecycle.c - a lease's story, told as episodes.
 *
 * The builder reads one lease's requests in stageTimestamp order (files of
 * several apiservers merge here, whatever order they were ingested in) and
 * runs a small state machine over them:
 *
 *   create 201          CREATED, or RE-CREATED after a delete or a 404 run
 *   update/patch 2xx    a renew: extends RENEWING; a wait longer than the
 *                       gap threshold closes it with a GAP; a slow request
 *                       (latency over the slow threshold) joins a SLOW run;
 *                       on leader and identity leases a new holder is a
 *                       HOLDER_CHANGE, which also closes RENEWING: each
 *                       RENEWING is one holder's renews
 *   holder "" written   RELEASED (client-go's release()): not a renew
 *   delete 2xx          DELETED, with the node deletion that caused it
 *   404                 a NOT_FOUND run (count, first, last, who asked)
 *   401/403             an AUTH_FAILURE run (user, groups, reason)
 *   409                 counted as a conflict (leader contention)
 *
 * Nothing here knows the samples: every rule is how the kubelet, client-go
 * leader election and the apiserver behave (shared/docs/LEASES.md).
 */
#include "queries-int.h"

#include <stdlib.h>
#include <string.h>

#define LC_SEC		1000000LL
#define LC_NODE_GAP	(40 * LC_SEC)
#define LC_LEADER_GAP	(15 * LC_SEC)
#define LC_SLOW		(1 * LC_SEC)
#define LC_CAUSE_WINDOW (600 * LC_SEC) /* a node delete this long before a lease delete */
/* The GC acts on the node's deletion as etcd commits it, before the DELETE's response is
 * logged (its stageTimestamp), and HA apiservers' clocks differ: the node delete may be logged
 * up to LC_CAUSE_LATE after the lease delete, if it was received before it (give or take
 * LC_CAUSE_SKEW). */
#define LC_CAUSE_LATE (60 * LC_SEC)
#define LC_CAUSE_SKEW (1 * LC_SEC)

enum lc_class { EV_RENEW, EV_CREATE, EV_DELETE, EV_NOTFOUND, EV_AUTH, EV_CONFLICT, EV_OTHER };

/* One request on the lease, as the builder needs it. */
struct lc_event {
	int64_t id, ts, latency;
	enum lc_class cls;
	int64_t user, groups, ip, agent, note;
	int64_t holder; /* strs id of the Lease body's holderIdentity, 0 when unknown */
};

/*
 * Intervals between renews, as a sparse histogram of milliseconds: memory
 * stays bounded however long a lease renews, and the median is exact to the
 * millisecond (to 2^shift ms once a lease has had more than LC_HIST_MAX
 * distinct intervals: a kubelet's jitter gives about 200 in 40 minutes).
 * New intervals wait unsorted in pend and are merged in sorted runs, and the
 * buckets grow as needed: thousands of leases are built side by side.
 */
#define LC_HIST_MAX  512
#define LC_HIST_PEND 64

struct lc_hist {
	uint32_t *key, *count; /* sorted distinct intervals, in 2^shift ms */
	size_t len;
	uint32_t pend[LC_HIST_PEND];
	size_t npend;
	int shift;
	uint64_t total;
	int64_t max_us;
};

/* The strs ids the builder compares against, fetched once per lease. */
struct lc_ids {
	int64_t update, patch, create, del;
	int64_t empty; /* "": the holderIdentity of a released lease */
	int bodies;    /* the store has seen a Lease body: leaseDurationSeconds may be known */
};

/* The builder's state while it walks one lease's events. */
struct lc {
	struct lt_store *st;
	struct lc_result *r;
	struct lc_ids ids;
	int64_t name_id, gap_us, slow_us;
	int64_t kubelet; /* strs id of system:node:NAME on node leases, 0 when none */
	struct lc_episode renewing, notfound, auth, slow;
	int in_renewing, in_notfound, in_auth, in_slow;
	int notfound_kubelet; /* the open NOT_FOUND run holds a 404 of the node's kubelet */
	struct lc_hist *hist; /* of the open RENEWING, allocated on its first interval */
	int alive_seen;	      /* created or renewed at least once */
	int gone;	      /* deleted, or answered 404, since it was last alive */
	int64_t gone_us, gone_event;
	int64_t prev_holder;	     /* strs id of the last holder seen in a Lease body */
	int64_t prev_ip, prev_agent; /* last renewer, for leases without bodies */
	int released;		     /* the holder gave the lease up, no renew since */
	int64_t release_us, release_event;
};

const char *lc_kind_name(const char *stored)
{
	static const char *const kinds[] = {
	    "CREATED",	  "RENEWING",	  "GAP",  "NOT_FOUND",	   "DELETED",
	    "RE-CREATED", "AUTH_FAILURE", "SLOW", "HOLDER_CHANGE", "RELEASED"};

	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (strcmp(kinds[i], stored) == 0)
			return kinds[i];
	return "UNKNOWN";
}

int64_t lc_str_id(struct lt_store *st, const char *s)
{
	struct lt_stmt *q;
	int64_t id = 0;

	if (lt_store_prepare(st, &q, "SELECT id FROM strs WHERE s = ?1", NULL) != 0)
		return 0;
	lt_stmt_bind_text(q, 1, s, (size_t)-1);
	if (lt_stmt_step(q, NULL) == 1)
		id = lt_stmt_int(q, 0);
	lt_stmt_free(q);
	return id;
}

int64_t lc_kubelet_id(struct lt_store *st, const char *node)
{
	struct lt_buf user;
	int64_t id;

	lt_buf_init(&user);
	lt_buf_printf(&user, "system:node:%s", node);
	id = lc_str_id(st, user.ptr);
	lt_buf_release(&user);
	return id;
}

/* A string from strs by id, copied; NULL for id 0. */
static char *lc_str(struct lt_store *st, int64_t id)
{
	struct lt_stmt *q;
	char *s = NULL;

	if (id == 0 || lt_store_prepare(st, &q, "SELECT s FROM strs WHERE id = ?1", NULL) != 0)
		return NULL;
	lt_stmt_bind_int(q, 1, id);
	if (lt_stmt_step(q, NULL) == 1)
		s = lt_xstrdup(lt_stmt_text(q, 0, NULL));
	lt_stmt_free(q);
	return s;
}

void lc_result_release(struct lc_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->eps[i].old_holder);
		free(r->eps[i].new_holder);
		free(r->eps[i].note);
	}
	free(r->eps);
	free(r->sum.holder);
	memset(r, 0, sizeof *r);
}

static void lc_fetch_ids(struct lt_store *st, struct lc_ids *ids)
{
	struct lt_stmt *q;

	memset(ids, 0, sizeof *ids);
	ids->bodies = 1;
	if (lt_store_prepare(st, &q,
			     "SELECT (SELECT id FROM strs WHERE s = 'update'),"
			     " (SELECT id FROM strs WHERE s = 'patch'),"
			     " (SELECT id FROM strs WHERE s = 'create'),"
			     " (SELECT id FROM strs WHERE s = 'delete'),"
			     " (SELECT count(*) FROM meta WHERE key = 'lease_bodies'),"
			     " (SELECT id FROM strs WHERE s = '')",
			     NULL) != 0)
		return;
	if (lt_stmt_step(q, NULL) == 1) {
		ids->update = lt_stmt_int(q, 0);
		ids->patch = lt_stmt_int(q, 1);
		ids->create = lt_stmt_int(q, 2);
		ids->del = lt_stmt_int(q, 3);
		ids->bodies = lt_stmt_int(q, 4) > 0;
		ids->empty = lt_stmt_int(q, 5);
	}
	lt_stmt_free(q);
}

static enum lc_class lc_classify(const struct lc_ids *ids, int64_t verb, int64_t code)
{
	int ok = code >= 200 && code < 300;

	if (code == 404)
		return EV_NOTFOUND;
	if (code == 401 || code == 403)
		return EV_AUTH;
	if (code == 409)
		return EV_CONFLICT;
	if (ok && verb != 0 && (verb == ids->update || verb == ids->patch))
		return EV_RENEW;
	if (ok && verb != 0 && verb == ids->create)
		return EV_CREATE;
	if (ok && verb != 0 && verb == ids->del)
		return EV_DELETE;
	return EV_OTHER;
}

/* An episode that starts with event e, its actor taken from e. */
static struct lc_episode lc_start(const char *kind, const struct lc_event *e)
{
	struct lc_episode ep = {kind,  e->ts, e->ts, 1,	 e->user, e->groups, e->ip, e->agent, e->id,
				e->id, 0,     -1,    -1, NULL,	  NULL,	     NULL,  0};

	return ep;
}

static void lc_extend(struct lc_episode *ep, const struct lc_event *e)
{
	ep->end_us = e->ts;
	ep->last_event = e->id;
	ep->count++;
}

static void lc_emit(struct lc *b, const struct lc_episode *ep)
{
	struct lc_result *r = b->r;

	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->eps = lt_xrealloc(r->eps, r->cap * sizeof *r->eps);
	}
	r->eps[r->n++] = *ep;
}

/* Halves the histogram's resolution: the buckets stay within LC_HIST_MAX. */
static void lc_hist_coarsen(struct lc_hist *h)
{
	size_t out = 0;

	for (size_t i = 0; i < h->len; i++) {
		uint32_t k = h->key[i] >> 1;

		if (out > 0 && h->key[out - 1] == k) {
			h->count[out - 1] += h->count[i];
		} else {
			h->key[out] = k;
			h->count[out++] = h->count[i];
		}
	}
	h->len = out;
	h->shift++;
}

/* Insertion sort: pend is short, and no comparison goes through a pointer. */
static void lc_sort_pend(uint32_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Merges the pending intervals into the sorted buckets. */
static void lc_hist_flush(struct lc_hist *h)
{
	size_t n = h->len + h->npend, i = 0, j = 0, out = 0;
	uint32_t *key = lt_xmalloc(n * sizeof *key), *count = lt_xmalloc(n * sizeof *count);

	lc_sort_pend(h->pend, h->npend);
	while (i < h->len || j < h->npend) {
		int from_pend = i == h->len || (j < h->npend && h->pend[j] < h->key[i]);
		uint32_t k = from_pend ? h->pend[j] : h->key[i];
		uint32_t c = from_pend ? 1 : h->count[i];

		if (from_pend)
			j++;
		else
			i++;
		if (out > 0 && key[out - 1] == k) {
			count[out - 1] += c;
		} else {
			key[out] = k;
			count[out++] = c;
		}
	}
	free(h->key);
	free(h->count);
	h->key = key;
	h->count = count;
	h->len = out;
	h->npend = 0;
	while (h->len > LC_HIST_MAX)
		lc_hist_coarsen(h);
}

static void lc_hist_add(struct lc_hist *h, int64_t us)
{
	uint64_t ms = (uint64_t)(us < 0 ? 0 : us) / 1000;

	h->total++;
	if (us > h->max_us)
		h->max_us = us;
	h->pend[h->npend++] =
	    (uint32_t)((ms >> h->shift) > UINT32_MAX ? UINT32_MAX : ms >> h->shift);
	if (h->npend == LC_HIST_PEND)
		lc_hist_flush(h);
}

/* The interval at rank total/2 of the sorted intervals, to the histogram's resolution. */
static int64_t lc_hist_median(struct lc_hist *h)
{
	uint64_t seen = 0;

	lc_hist_flush(h);
	for (size_t i = 0; i < h->len; i++) {
		seen += h->count[i];
		if (seen > h->total / 2)
			return ((int64_t)h->key[i] << h->shift) * 1000;
	}
	return 0;
}

static void lc_hist_free(struct lc_hist *h)
{
	if (h == NULL)
		return;
	free(h->key);
	free(h->count);
	free(h);
}

/* Closes RENEWING with its renew count and the median and max interval between renews. */
static void lc_close_renewing(struct lc *b)
{
	if (!b->in_renewing)
		return;
	if (b->hist != NULL && b->hist->total > 0) {
		b->renewing.median_us = lc_hist_median(b->hist);
		b->renewing.max_us = b->hist->max_us;
	}
	lc_emit(b, &b->renewing);
	b->in_renewing = 0;
	lc_hist_free(b->hist);
	b->hist = NULL;
}

static void lc_close_run(struct lc *b, struct lc_episode *ep, int *open)
{
	if (*open)
		lc_emit(b, ep);
	*open = 0;
}

static void lc_interval(struct lc *b, int64_t us)
{
	if (b->hist == NULL)
		b->hist = lt_xcalloc(1, sizeof *b->hist);
	lc_hist_add(b->hist, us);
}

/* A renew after a wait longer than the threshold since the last renew or release. */
static void lc_gap(struct lc *b, const struct lc_event *e, int64_t wait)
{
	struct lc_episode gap = lc_start("GAP", e);
	struct lc_summary *s = &b->r->sum;

	gap.start_us = b->in_renewing ? b->renewing.end_us : b->release_us;
	gap.first_event = b->in_renewing ? b->renewing.last_event : b->release_event;
	gap.count = 0;
	gap.max_us = wait;
	lc_close_renewing(b);
	lc_emit(b, &gap);
	s->gaps++;
}

/* "OLD -> NEW" of an inferred change: the renewers' source IPs. */
static void lc_inferred(struct lc *b, const struct lc_event *e, struct lc_episode *ch)
{
	char *oip = lc_str(b->st, b->prev_ip), *nip = lc_str(b->st, e->ip);

	ch->old_holder = oip ? oip : lt_xstrdup("?");
	ch->new_holder = nip ? nip : lt_xstrdup("?");
	ch->inferred = 1;
}

/*
 * Whether renew e comes from a new holder: a new holderIdentity in the Lease
 * body (leader and identity leases), or at Metadata level a leader lease's
 * new renewer (source IP or user agent).  Fills *ch when it does.
 */
static int lc_holder(struct lc *b, const struct lc_event *e, enum lc_kind kind,
		     struct lc_episode *ch)
{
	int changed = 0;

	*ch = lc_start("HOLDER_CHANGE", e);
	if (e->holder != 0) {
		/* a leader taking over; on identity leases, an apiserver restart */
		if (b->prev_holder != 0 && b->prev_holder != e->holder && kind != LC_NODE) {
			ch->old_holder = lc_str(b->st, b->prev_holder);
			ch->new_holder = lc_str(b->st, e->holder);
			changed = 1;
		}
		b->prev_holder = e->holder;
	} else if (kind == LC_LEADER && b->prev_holder == 0 && b->prev_ip != 0 &&
		   (b->prev_ip != e->ip || b->prev_agent != e->agent)) {
		lc_inferred(b, e, ch);
		changed = 1;
	}
	if (changed && b->released) {
		struct lt_buf note;
		char d[32];

		lt_format_duration(d, sizeof d, e->ts - b->release_us);
		lt_buf_init(&note);
		lt_buf_printf(&note, "%s after the release", d);
		ch->note = note.ptr;
	}
	b->prev_ip = e->ip;
	b->prev_agent = e->agent;
	return changed;
}

/* Closes what a renew ends: the wait since the last renew or release, maybe a GAP. */
static void lc_renew_wait(struct lc *b, const struct lc_event *e, int changed)
{
	struct lc_summary *s = &b->r->sum;
	int64_t wait;

	if (!b->in_renewing && !b->released)
		return;
	wait = e->ts - (b->in_renewing ? b->renewing.end_us : b->release_us);
	if (wait > s->max_gap_us)
		s->max_gap_us = wait;
	if (wait > b->gap_us)
		lc_gap(b, e, wait);
	else if (changed)
		lc_close_renewing(b); /* one holder's renews per RENEWING */
	else if (b->in_renewing)
		lc_interval(b, wait);
}

static void lc_slow_step(struct lc *b, const struct lc_event *e)
{
	if (e->latency <= b->slow_us) {
		lc_close_run(b, &b->slow, &b->in_slow);
		return;
	}
	if (!b->in_slow)
		b->slow = lc_start("SLOW", e), b->slow.max_us = 0, b->in_slow = 1;
	else
		lc_extend(&b->slow, e);
	if (e->latency > b->slow.max_us)
		b->slow.max_us = e->latency;
	b->r->sum.slow++;
}

/*
 * client-go's release() (ReleaseOnCancel) writes holderIdentity "" so that a
 * candidate may acquire at once: the old holder's renews end here, and the
 * next holder's acquire is a HOLDER_CHANGE from it.
 */
static void lc_on_release(struct lc *b, const struct lc_event *e)
{
	struct lc_episode ep = lc_start("RELEASED", e);
	struct lt_buf note;
	char *old = lc_str(b->st, b->prev_holder);

	lc_close_renewing(b);
	lc_close_run(b, &b->slow, &b->in_slow);
	lt_buf_init(&note);
	lt_buf_printf(&note, "%s gave the lease up", old ? old : "its holder");
	ep.old_holder = old;
	ep.note = note.ptr;
	lc_emit(b, &ep);
	b->released = 1;
	b->release_us = e->ts;
	b->release_event = e->id;
	b->prev_ip = e->ip;
	b->prev_agent = e->agent;
}

static void lc_on_renew(struct lc *b, const struct lc_event *e, enum lc_kind kind)
{
	struct lc_summary *s = &b->r->sum;
	struct lc_episode ch;
	int changed;

	if (e->holder != 0 && e->holder == b->ids.empty) {
		lc_on_release(b, e);
		return;
	}
	changed = lc_holder(b, e, kind, &ch);
	lc_renew_wait(b, e, changed);
	if (changed)
		lc_emit(b, &ch);
	if (!b->in_renewing) {
		b->renewing = lc_start("RENEWING", e);
		b->in_renewing = 1;
	} else {
		lc_extend(&b->renewing, e);
	}
	lc_slow_step(b, e);
	b->released = 0;
	b->alive_seen = 1;
	s->renews++;
	s->last_renew_us = e->ts;
	b->gone = 0;
}

/* After a delete or 404s, a create is a re-creation: by whom and how long after. */
static void lc_on_create(struct lc *b, const struct lc_event *e)
{
	struct lc_episode ep = lc_start(b->gone ? "RE-CREATED" : "CREATED", e);

	lc_close_renewing(b);
	lc_close_run(b, &b->slow, &b->in_slow);
	if (b->gone) {
		ep.max_us = e->ts - b->gone_us;
		ep.cause = b->gone_event;
	}
	lc_emit(b, &ep);
	b->r->sum.creates++;
	b->gone = 0;
	b->released = 0;
	b->alive_seen = 1;
	/* the create is the lease's first heartbeat: renews count from it */
	b->renewing = lc_start("RENEWING", e);
	b->renewing.count = 0;
	b->in_renewing = 1;
}

/* "30ms after its node was deleted by X", or, logged before the node delete completed, "as". */
static char *lc_cause_note(int64_t after_us, const char *who)
{
	struct lt_buf note;
	char d[32];

	lt_buf_init(&note);
	lt_format_duration(d, sizeof d, after_us < 0 ? -after_us : after_us);
	if (after_us >= 0)
		lt_buf_printf(&note, "%s after its node was deleted by %s", d, who);
	else
		lt_buf_printf(&note,
			      "as its node was being deleted by %s (logged %s before that delete)",
			      who, d);
	return note.ptr;
}

/* The node deletion behind a node lease's deletion (the garbage collector's cause). */
static void lc_link_node_delete(struct lc *b, struct lc_episode *ep)
{
	struct lt_stmt *q;
	char *who;

	if (lt_store_prepare(b->st, &q,
			     "SELECT a.id, a.user_id, a.stage_us FROM audit AS a"
			     " WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'nodes')"
			     " AND a.namespace_id IS NULL AND a.name_id = ?1"
			     " AND a.verb_id = (SELECT id FROM strs WHERE s = 'delete')"
			     " AND a.code BETWEEN 200 AND 299 AND a.superseded = 0"
			     " AND a.stage_us BETWEEN ?2 - ?3 AND ?2 + ?4"
			     " AND coalesce(a.received_us, a.stage_us) <= ?2 + ?5"
			     " ORDER BY a.stage_us DESC LIMIT 1",
			     NULL) != 0)
		return;
	lt_stmt_bind_int(q, 1, b->name_id);
	lt_stmt_bind_int(q, 2, ep->start_us);
	lt_stmt_bind_int(q, 3, LC_CAUSE_WINDOW);
	lt_stmt_bind_int(q, 4, LC_CAUSE_LATE);
	lt_stmt_bind_int(q, 5, LC_CAUSE_SKEW);
	if (lt_stmt_step(q, NULL) == 1) {
		ep->cause = lt_stmt_int(q, 0);
		who = lc_str(b->st, lt_stmt_int(q, 1));
		ep->note = lc_cause_note(ep->start_us - lt_stmt_int(q, 2), who ? who : "?");
		free(who);
	}
	lt_stmt_free(q);
}

static void lc_on_delete(struct lc *b, const struct lc_event *e, enum lc_kind kind)
{
	struct lc_episode ep = lc_start("DELETED", e);

	lc_close_renewing(b);
	lc_close_run(b, &b->slow, &b->in_slow);
	if (kind == LC_NODE)
		lc_link_node_delete(b, &ep);
	lc_emit(b, &ep);
	b->r->sum.deletes++;
	b->released = 0;
	b->gone = 1;
	b->gone_us = e->ts;
	b->gone_event = e->id;
}

static void lc_on_notfound(struct lc *b, const struct lc_event *e)
{
	lc_close_renewing(b);
	lc_close_run(b, &b->slow, &b->in_slow);
	if (b->in_notfound) {
		lc_extend(&b->notfound, e);
	} else {
		b->notfound = lc_start("NOT_FOUND", e);
		b->in_notfound = 1;
		b->notfound_kubelet = 0;
	}
	if (b->kubelet != 0 && e->user == b->kubelet)
		b->notfound_kubelet = 1;
	b->released = 0;
	/* before the lease was ever alive, a 404 is the kubelet's first sync (GET, then create) */
	if (!b->gone && b->alive_seen) {
		b->gone = 1;
		b->gone_us = e->ts;
		b->gone_event = e->id;
	}
	b->r->sum.not_found++;
}

static void lc_on_auth(struct lc *b, const struct lc_event *e)
{
	if (b->in_auth) {
		lc_extend(&b->auth, e);
	} else {
		b->auth = lc_start("AUTH_FAILURE", e);
		b->auth.note = lc_str(b->st, e->note);
		b->in_auth = 1;
	}
	b->r->sum.auth_failures++;
}

/* Feeds one event to the state machine. */
static void lc_step(struct lc *b, const struct lc_event *e, enum lc_kind kind)
{
	struct lc_summary *s = &b->r->sum;

	if (s->first_us == 0)
		s->first_us = e->ts;
	s->last_us = e->ts;
	if (e->cls != EV_NOTFOUND)
		lc_close_run(b, &b->notfound, &b->in_notfound);
	if (e->cls != EV_AUTH)
		lc_close_run(b, &b->auth, &b->in_auth);
	switch (e->cls) {
	case EV_RENEW:
		lc_on_renew(b, e, kind);
		break;
	case EV_CREATE:
		lc_on_create(b, e);
		break;
	case EV_DELETE:
		lc_on_delete(b, e, kind);
		break;
	case EV_NOTFOUND:
		lc_on_notfound(b, e);
		break;
	case EV_AUTH:
		lc_on_auth(b, e);
		break;
	case EV_CONFLICT:
		s->conflicts++;
		break;
	case EV_OTHER:
		break;
	}
}

/* The lease's state once all its events are read. */
static const char *lc_state(const struct lc *b)
{
	const struct lc_result *r = b->r;
	int recreated = 0;

	for (size_t i = 0; i < r->n; i++)
		recreated |= strcmp(r->eps[i].kind, "RE-CREATED") == 0;
	/*
	 * a kubelet still asking for a lease it cannot re-create: its node is gone;
	 * someone else's 404s (kubectl get lease) say nothing about the kubelet
	 */
	if (b->in_notfound && r->sum.kind == LC_NODE && b->notfound_kubelet)
		return "orphaned";
	if (b->gone)
		return "deleted";
	if (b->in_notfound)
		return "not-found";
	return recreated ? "re-created" : "renewing";
}

static void lc_finish(struct lc *b)
{
	lc_close_renewing(b);
	lc_close_run(b, &b->slow, &b->in_slow);
	lc_close_run(b, &b->auth, &b->in_auth);
	b->r->sum.state = lc_state(b);
	lc_close_run(b, &b->notfound, &b->in_notfound);
	/* after a release no one holds the lease until a candidate acquires it */
	b->r->sum.holder = b->released ? NULL : lc_str(b->st, b->prev_holder);
	lc_hist_free(b->hist);
	b->hist = NULL;
}

static enum lc_kind lc_kind_of(const char *ns, const char *name)
{
	if (strcmp(ns, "kube-node-lease") == 0)
		return LC_NODE;
	if (strncmp(name, "apiserver-", 10) == 0 || strncmp(name, "kube-apiserver-", 15) == 0)
		return LC_IDENTITY;
	return LC_LEADER;
}

/* The newest leaseDurationSeconds a Lease body of this lease carried, or -1. */
static int64_t lc_duration(struct lt_store *st, int64_t ns, int64_t name)
{
	struct lt_stmt *q;
	int64_t d = -1;

	if (lt_store_prepare(
		st, &q,
		"SELECT lease_duration_s FROM audit"
		" WHERE resource_id = (SELECT id FROM strs WHERE s = 'leases')"
		" AND namespace_id = ?1 AND name_id = ?2 AND lease_duration_s IS NOT NULL"
		/* a release writes 1 s: "expire at once", not how long a holder may pause */
		" AND lease_holder_id IS NOT (SELECT id FROM strs WHERE s = '')"
		" ORDER BY stage_us DESC LIMIT 1",
		NULL) != 0)
		return -1;
	lt_stmt_bind_int(q, 1, ns);
	lt_stmt_bind_int(q, 2, name);
	if (lt_stmt_step(q, NULL) == 1)
		d = lt_stmt_int(q, 0);
	lt_stmt_free(q);
	return d;
}

/* Sets kind, thresholds and duration in the summary and the builder. */
static void lc_setup(struct lc *b, const struct lc_ids *ids, int64_t ns, int64_t name,
		     int64_t gap_us, int64_t slow_us)
{
	struct lc_summary *s = &b->r->sum;
	char *ns_s = lc_str(b->st, ns), *name_s = lc_str(b->st, name);

	s->kind = lc_kind_of(ns_s ? ns_s : "", name_s ? name_s : "");
	/* without a Lease body anywhere (Metadata-level logs) there is no duration to find */
	s->duration_s = ids->bodies ? lc_duration(b->st, ns, name) : -1;
	/*
	 * an identity lease lasts an hour but is renewed every 10 s: the hour is
	 * when it expires, not how long its apiserver may pause, so Metadata and
	 * RequestResponse logs of the same apiserver give the same threshold
	 */
	if (gap_us <= 0)
		gap_us = s->duration_s > 0 && s->kind != LC_IDENTITY ? s->duration_s * LC_SEC
			 : s->kind == LC_LEADER			     ? LC_LEADER_GAP
								     : LC_NODE_GAP;
	s->gap_us = gap_us;
	b->gap_us = gap_us;
	b->slow_us = slow_us > 0 ? slow_us : LC_SLOW;
	b->name_id = name;
	b->kubelet = s->kind == LC_NODE ? lc_kubelet_id(b->st, name_s ? name_s : "") : 0;
	free(ns_s);
	free(name_s);
}

static const char lc_events_sql[] =
    "SELECT " LC_COLUMNS " FROM audit AS a"
    " WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'leases')"
    " AND a.namespace_id = ?1 AND a.name_id = ?2 AND a.superseded = 0"
    " ORDER BY a.stage_us, a.id";

void lc_feed(struct lc *b, const struct lt_stmt *q, int col)
{
	struct lc_event e;

	e.id = lt_stmt_int(q, col);
	e.ts = lt_stmt_int(q, col + 1);
	e.latency = lt_stmt_int(q, col + 2);
	e.cls = lc_classify(&b->ids, lt_stmt_int(q, col + 3), lt_stmt_int(q, col + 4));
	e.user = lt_stmt_int(q, col + 5);
	e.groups = lt_stmt_int(q, col + 6);
	e.ip = lt_stmt_int(q, col + 7);
	e.agent = lt_stmt_int(q, col + 8);
	e.holder = lt_stmt_int(q, col + 9);
	e.note = lt_stmt_int(q, col + 10);
	lc_step(b, &e, b->r->sum.kind);
}

struct lc *lc_new(struct lt_store *st, int64_t namespace_id, int64_t name_id, int64_t gap_us,
		  int64_t slow_us, struct lc_result *out)
{
	struct lc *b = lt_xcalloc(1, sizeof *b);

	memset(out, 0, sizeof *out);
	b->st = st;
	b->r = out;
	lc_fetch_ids(st, &b->ids);
	lc_setup(b, &b->ids, namespace_id, name_id, gap_us, slow_us);
	return b;
}

void lc_end(struct lc *b)
{
	if (b == NULL)
		return;
	lc_finish(b);
	free(b);
}

int lc_build(struct lt_store *st, int64_t namespace_id, int64_t name_id, int64_t gap_us,
	     int64_t slow_us, struct lc_result *out, struct lt_error *err)
{
	struct lc *b = lc_new(st, namespace_id, name_id, gap_us, slow_us, out);
	struct lt_stmt *q;
	int rc;

	if ((rc = lt_store_prepare(st, &q, lc_events_sql, err)) != 0) {
		lc_end(b);
		return rc;
	}
	lt_stmt_bind_int(q, 1, namespace_id);
	lt_stmt_bind_int(q, 2, name_id);
	while ((rc = lt_stmt_step(q, err)) == 1)
		lc_feed(b, q, 0);
	lt_stmt_free(q);
	lc_end(b);
	return rc < 0 ? rc : 0;
}
