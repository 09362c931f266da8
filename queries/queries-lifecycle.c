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
 *                       RENEWING is one holder's renews.  A change no
 *                       request showed is told by the body's leaseTransitions
 *                       or acquireTime; without bodies, by a new renewer or a
 *                       renew after the lease expired
 *   holder "" written   RELEASED (client-go's release()): not a renew
 *   delete 2xx          DELETED, with the node deletion that caused it
 *   404                 a NOT_FOUND run (count, first, last, who asked)
 *   401/403             an AUTH_FAILURE run (user, groups, reason), one per code
 *   409                 counted as a conflict (leader contention)
 *
 * Nothing here knows the samples: every rule is how the kubelet, client-go
 * leader election and the apiserver behave (docs/leases.md).
 *
 * The builder is pure: it is fed struct queries_lease_event values and
 * touches no store.  What it would have to look up (a node delete behind a
 * lease delete, a lease's duration, strings by id) the feed finds for it
 * (queries-lease-feed.c); unit tests feed it arrays of events.
 */
#include "queries-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define LC_SEC		1000000LL
#define LC_NODE_GAP	(40 * LC_SEC)
#define LC_LEADER_GAP	(15 * LC_SEC)
#define LC_SLOW		(1 * LC_SEC)
#define LC_CAUSE_WINDOW (600 * LC_SEC) /* a node delete this long before a lease delete */

enum lc_class { EV_RENEW, EV_CREATE, EV_DELETE, EV_NOTFOUND, EV_AUTH, EV_CONFLICT, EV_OTHER };

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

/* The builder's state while it walks one lease's events. */
struct queries_lease {
	struct queries_lease_params p; /* gap_us and slow_us resolved */
	struct queries_lease_result *r;
	int err;	 /* the first error, 0 when none */
	int64_t last_ts; /* of the last event fed */
	struct queries_episode renewing, notfound, auth, slow;
	int in_renewing, in_notfound, in_auth, in_slow;
	int notfound_kubelet; /* the open NOT_FOUND run holds a 404 of the node's kubelet */
	struct lc_hist *hist; /* of the open RENEWING, allocated on its first interval */
	int alive_seen;	      /* created or renewed at least once */
	int gone;	      /* deleted, or answered 404, since it was last alive */
	int64_t gone_us, gone_event;
	int64_t prev_holder;	     /* strs id of the last holder seen in a Lease body */
	int64_t prev_ip, prev_agent; /* last renewer, for leases without bodies */
	int64_t prev_transitions;    /* the last body's leaseTransitions, -1 = unknown */
	int64_t prev_acquire;	     /* the last body's acquireTime, 0 = unknown */
	int64_t conflicts_since;     /* 409s since the last renew */
	int node_gone_said;	     /* NODE_GONE emitted: the lease lived on after its Node */
	int auth_code;		     /* the HTTP status of the open AUTH_FAILURE run */
	int released;		     /* the holder gave the lease up, no renew since */
	int64_t release_us, release_event;
};

/* A strs id's text, owned by the caller; NULL for id 0 or when none is known. */
static char *lc_str(const struct queries_lease *b, int64_t id)
{
	return id != 0 && b->p.name != NULL ? b->p.name(id, b->p.ctx) : NULL;
}

void queries_lease_result_release(struct queries_lease_result *r)
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

static enum lc_class lc_classify(const struct queries_lease_event *e)
{
	int ok = e->code >= 200 && e->code < 300, code = e->code;

	if (code == 404)
		return EV_NOTFOUND;
	if (code == 401 || code == 403)
		return EV_AUTH;
	if (code == 409)
		return EV_CONFLICT;
	if (ok && (e->verb == QUERIES_VERB_UPDATE || e->verb == QUERIES_VERB_PATCH))
		return EV_RENEW;
	if (ok && e->verb == QUERIES_VERB_CREATE)
		return EV_CREATE;
	if (ok && e->verb == QUERIES_VERB_DELETE)
		return EV_DELETE;
	return EV_OTHER;
}

/* An episode that starts with event e, its actor taken from e. */
static struct queries_episode lc_start(enum lt_episode_kind kind,
				       const struct queries_lease_event *e)
{
	return (struct queries_episode){
	    .kind = kind,
	    .start_us = e->ts,
	    .end_us = e->ts,
	    .count = 1,
	    .user = e->user,
	    .groups = e->groups,
	    .ip = e->ip,
	    .agent = e->agent,
	    .first_event = e->id,
	    .last_event = e->id,
	    .median_us = -1,
	    .max_us = -1,
	};
}

static void lc_extend(struct queries_episode *ep, const struct queries_lease_event *e)
{
	ep->end_us = e->ts;
	ep->last_event = e->id;
	ep->count++;
}

static void lc_emit(struct queries_lease *b, const struct queries_episode *ep)
{
	struct queries_lease_result *r = b->r;

	LT_GROW(r->eps, r->cap, r->n + 1);
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
static void lc_close_renewing(struct queries_lease *b)
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

static void lc_close_run(struct queries_lease *b, struct queries_episode *ep, int *open)
{
	if (*open)
		lc_emit(b, ep);
	*open = 0;
}

static void lc_interval(struct queries_lease *b, int64_t us)
{
	if (b->hist == NULL)
		b->hist = lt_xcalloc(1, sizeof *b->hist);
	lc_hist_add(b->hist, us);
}

/* A renew after a wait longer than the threshold since the last renew or release. */
static void lc_gap(struct queries_lease *b, const struct queries_lease_event *e, int64_t wait)
{
	struct queries_episode gap = lc_start(LT_EP_GAP, e);
	struct queries_lease_summary *s = &b->r->sum;

	gap.start_us = b->in_renewing ? b->renewing.end_us : b->release_us;
	gap.first_event = b->in_renewing ? b->renewing.last_event : b->release_event;
	gap.count = 0;
	gap.max_us = wait;
	lc_close_renewing(b);
	lc_emit(b, &gap);
	s->gaps++;
}

/* "NOTE; " then more, into a new string (note is freed). */
static char *lc_note_add(char *note, const char *more)
{
	struct lt_buf b;

	lt_buf_init(&b);
	if (note != NULL)
		lt_buf_printf(&b, "%s; ", note);
	lt_buf_printf(&b, "%s", more);
	free(note);
	return b.ptr;
}

/* "OLD -> NEW" of an inferred change: the renewers' source IPs. */
static void lc_inferred(struct queries_lease *b, const struct queries_lease_event *e,
			struct queries_episode *ch)
{
	char *oip = lc_str(b, b->prev_ip), *nip = lc_str(b, e->ip);

	ch->old_holder = oip ? oip : lt_xstrdup("?");
	ch->new_holder = nip ? nip : lt_xstrdup("?");
	ch->inferred = QUERIES_HOLDER_RENEWER;
}

/* A leader lease renewed again, from the same renewer, after it expired: a new term. */
static void lc_expired(struct queries_lease *b, const struct queries_lease_event *e,
		       struct queries_episode *ch, int64_t wait)
{
	char *agent = lc_str(b, e->agent), *ip = lc_str(b, e->ip), d[32], msg[160];

	lt_format_duration(d, sizeof d, wait);
	ch->old_holder = lt_xstrdup("?");
	ch->new_holder = lt_xstrdup(ip ? ip : "?");
	ch->inferred = QUERIES_HOLDER_EXPIRY;
	snprintf(msg, sizeof msg, "no renew for %s, longer than the lease: acquired again%s%s%s", d,
		 agent ? " by " : "", agent ? agent : "",
		 b->conflicts_since > 0 ? " after 409 conflicts (another candidate)" : "");
	ch->note = lc_note_add(ch->note, msg);
	free(agent);
	free(ip);
}

/*
 * Acquisitions the Lease body counts but no request showed: client-go adds
 * one to leaseTransitions each time another identity acquires (and after a
 * release), and sets acquireTime then; a count beyond that, or a new
 * acquireTime under the same holder, happened inside a gap.
 */
static int64_t lc_unseen_changes(const struct queries_lease *b, const struct queries_lease_event *e)
{
	int64_t expected;

	if (e->holder == 0 || b->prev_holder == 0)
		return 0;
	if (e->transitions >= 0 && b->prev_transitions >= 0) {
		expected = b->prev_transitions + (b->released || e->holder != b->prev_holder);
		return e->transitions > expected ? e->transitions - expected : 0;
	}
	return e->holder == b->prev_holder && !b->released && e->acquire_us != 0 &&
	       b->prev_acquire != 0 && e->acquire_us != b->prev_acquire;
}

/* Tells ch of the changes inside a gap that e's body counts; the same holder: A -> A. */
static void lc_unseen(struct queries_lease *b, const struct queries_lease_event *e,
		      struct queries_episode *ch, int64_t unseen, int changed)
{
	int64_t lower = b->in_renewing ? b->renewing.end_us : b->release_us;
	char msg[256], at[40] = "";

	if (!changed) {
		ch->old_holder = lc_str(b, b->prev_holder);
		ch->new_holder = lc_str(b, e->holder);
		ch->inferred = QUERIES_HOLDER_TRANSITIONS;
		/* the new term began at its acquireTime, when that falls inside the gap */
		if (e->acquire_us > lower && e->acquire_us <= e->ts)
			ch->start_us = ch->end_us = e->acquire_us;
	}
	if (e->acquire_us != 0)
		lt_time_format(at, sizeof at, e->acquire_us);
	if (e->transitions >= 0 && b->prev_transitions >= 0)
		snprintf(msg, sizeof msg,
			 "leaseTransitions %lld -> %lld: %lld change%s of holder inside a gap, no "
			 "request seen%s%s",
			 (long long)b->prev_transitions, (long long)e->transitions,
			 (long long)unseen, unseen == 1 ? "" : "s", at[0] ? "; acquireTime " : "",
			 at);
	else
		snprintf(msg, sizeof msg, "acquireTime moved to %s: acquired again inside a gap",
			 at);
	ch->note = lc_note_add(ch->note, msg);
}

/*
 * Whether renew e comes from a new holder: a new holderIdentity in the Lease
 * body (leader and identity leases), a change the body's leaseTransitions or
 * acquireTime counts, or at Metadata level a leader lease's new renewer
 * (source IP or user agent), or a renew after the lease expired (longer than
 * the gap threshold without one: the leader had given up after its renew
 * deadline, so whoever renews now acquired it again, even from the same
 * source IP and user agent, as controller-managers behind 127.0.0.1 are).
 * Fills *ch when it does.
 */
static int lc_holder(struct queries_lease *b, const struct queries_lease_event *e,
		     enum queries_lease_kind kind, struct queries_episode *ch)
{
	int changed = 0;
	int64_t wait = b->in_renewing ? e->ts - b->renewing.end_us : -1, unseen = 0;

	*ch = lc_start(LT_EP_HOLDER_CHANGE, e);
	if (e->holder != 0) {
		/* a leader taking over; on identity leases, an apiserver restart */
		if (b->prev_holder != 0 && b->prev_holder != e->holder &&
		    kind != QUERIES_LEASE_NODE) {
			ch->old_holder = lc_str(b, b->prev_holder);
			ch->new_holder = lc_str(b, e->holder);
			changed = 1;
		}
		if (kind != QUERIES_LEASE_NODE && (unseen = lc_unseen_changes(b, e)) > 0) {
			lc_unseen(b, e, ch, unseen, changed);
			changed = 1;
		}
		b->prev_holder = e->holder;
	} else if (kind == QUERIES_LEASE_LEADER && b->prev_holder == 0 && b->prev_ip != 0 &&
		   (b->prev_ip != e->ip || b->prev_agent != e->agent)) {
		lc_inferred(b, e, ch);
		changed = 1;
	} else if (kind == QUERIES_LEASE_LEADER && b->prev_holder == 0 && wait > b->p.gap_us) {
		lc_expired(b, e, ch, wait);
		changed = 1;
	}
	if (changed && b->released) {
		char d[32], msg[64];

		lt_format_duration(d, sizeof d, e->ts - b->release_us);
		snprintf(msg, sizeof msg, "%s after the release", d);
		ch->note = lc_note_add(ch->note, msg);
	}
	if (e->transitions >= 0)
		b->prev_transitions = e->transitions;
	if (e->acquire_us != 0)
		b->prev_acquire = e->acquire_us;
	b->prev_ip = e->ip;
	b->prev_agent = e->agent;
	return changed;
}

/* Closes what a renew ends: the wait since the last renew or release, maybe a GAP. */
static void lc_renew_wait(struct queries_lease *b, const struct queries_lease_event *e, int changed)
{
	struct queries_lease_summary *s = &b->r->sum;
	int64_t wait;

	if (!b->in_renewing && !b->released)
		return;
	wait = e->ts - (b->in_renewing ? b->renewing.end_us : b->release_us);
	if (wait > s->max_gap_us)
		s->max_gap_us = wait;
	if (wait > b->p.gap_us)
		lc_gap(b, e, wait);
	else if (changed)
		lc_close_renewing(b); /* one holder's renews per RENEWING */
	else if (b->in_renewing)
		lc_interval(b, wait);
}

static void lc_slow_step(struct queries_lease *b, const struct queries_lease_event *e)
{
	if (e->latency <= b->p.slow_us) {
		lc_close_run(b, &b->slow, &b->in_slow);
		return;
	}
	if (!b->in_slow)
		b->slow = lc_start(LT_EP_SLOW, e), b->slow.max_us = 0, b->in_slow = 1;
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
static void lc_on_release(struct queries_lease *b, const struct queries_lease_event *e)
{
	struct queries_episode ep = lc_start(LT_EP_RELEASED, e);
	struct lt_buf note;
	char *old = lc_str(b, b->prev_holder);

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
	if (e->transitions >= 0)
		b->prev_transitions = e->transitions;
	b->prev_ip = e->ip;
	b->prev_agent = e->agent;
}

static void lc_on_renew(struct queries_lease *b, const struct queries_lease_event *e,
			enum queries_lease_kind kind)
{
	struct queries_lease_summary *s = &b->r->sum;
	struct queries_episode ch;
	int changed;

	if (e->released) {
		lc_on_release(b, e);
		return;
	}
	changed = lc_holder(b, e, kind, &ch);
	lc_renew_wait(b, e, changed);
	if (changed)
		lc_emit(b, &ch);
	if (!b->in_renewing) {
		b->renewing = lc_start(LT_EP_RENEWING, e);
		b->in_renewing = 1;
	} else {
		lc_extend(&b->renewing, e);
	}
	lc_slow_step(b, e);
	b->conflicts_since = 0;
	b->released = 0;
	b->alive_seen = 1;
	s->renews++;
	s->last_renew_us = e->ts;
	b->gone = 0;
}

/* After a delete or 404s, a create is a re-creation: by whom and how long after. */
static void lc_on_create(struct queries_lease *b, const struct queries_lease_event *e)
{
	struct queries_episode ep = lc_start(b->gone ? LT_EP_RECREATED : LT_EP_CREATED, e);

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
	b->renewing = lc_start(LT_EP_RENEWING, e);
	b->renewing.count = 0;
	b->in_renewing = 1;
}

/* "30ms after its node was deleted by X", or, logged before the node delete completed, "as";
 * with the clocks' difference when the lease delete was moved onto the node delete's clock. */
static char *lc_cause_note(int64_t after_us, const char *who, int64_t skew_us, int moved)
{
	struct lt_buf note;
	char d[32], k[32];

	lt_buf_init(&note);
	lt_format_duration(d, sizeof d, after_us < 0 ? -after_us : after_us);
	if (after_us >= 0)
		lt_buf_printf(&note, "%s after its node was deleted by %s", d, who);
	else
		lt_buf_printf(&note,
			      "as its node was being deleted by %s (logged %s before that delete)",
			      who, d);
	if (moved) {
		lt_format_duration(k, sizeof k, skew_us < 0 ? -skew_us : skew_us);
		lt_buf_printf(
		    &note,
		    "; told on that delete's clock (the lease delete's apiserver runs %s %s)", k,
		    skew_us > 0 ? "behind" : "ahead");
	}
	return note.ptr;
}

/* The node deletion behind a node lease's deletion (the garbage collector's cause).  When both
 * deletes' audit streams have an estimated clock offset, the lease delete is told on the node
 * delete's clock: its cause first, whatever the two apiservers' clocks said. */
static void lc_link_node_delete(struct queries_episode *ep, const struct queries_lease_cause *c)
{
	int moved;

	if (c == NULL || c->event == 0)
		return;
	moved = c->skew_known && c->skew_us != 0;
	if (moved)
		ep->start_us = ep->end_us = ep->start_us + c->skew_us;
	ep->cause = c->event;
	ep->note = lc_cause_note(ep->start_us - c->ts, c->by ? c->by : "?", c->skew_us, moved);
}

static void lc_on_delete(struct queries_lease *b, const struct queries_lease_event *e,
			 enum queries_lease_kind kind)
{
	struct queries_episode ep = lc_start(LT_EP_DELETED, e);

	lc_close_renewing(b);
	lc_close_run(b, &b->slow, &b->in_slow);
	if (kind == QUERIES_LEASE_NODE)
		lc_link_node_delete(&ep, e->cause);
	lc_emit(b, &ep);
	b->r->sum.deletes++;
	b->released = 0;
	b->gone = 1;
	b->gone_us = e->ts;
	b->gone_event = e->id;
}

static void lc_on_notfound(struct queries_lease *b, const struct queries_lease_event *e)
{
	lc_close_renewing(b);
	lc_close_run(b, &b->slow, &b->in_slow);
	if (b->in_notfound) {
		lc_extend(&b->notfound, e);
	} else {
		b->notfound = lc_start(LT_EP_NOT_FOUND, e);
		b->in_notfound = 1;
		b->notfound_kubelet = 0;
	}
	if (b->p.kubelet != 0 && e->user == b->p.kubelet)
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

static void lc_on_auth(struct queries_lease *b, const struct queries_lease_event *e)
{
	if (b->in_auth) {
		lc_extend(&b->auth, e);
	} else {
		b->auth = lc_start(LT_EP_AUTH_FAILURE, e);
		b->auth_code = e->code;
		b->auth.note = lc_str(b, e->note);
		b->in_auth = 1;
	}
	b->r->sum.auth_failures++;
}

/*
 * A node lease renewed or created after its Node was deleted for good (the
 * feed found no create of the Node since): once, say that the Node never
 * came back.  Kubelets of about 1.14-1.16 created their lease without an
 * owner, and a lease without owner is no business of the garbage collector.
 */
static void lc_node_gone(struct queries_lease *b, const struct queries_lease_event *e,
			 enum queries_lease_kind kind)
{
	struct queries_episode ep;
	char at[40], msg[200];

	if (kind != QUERIES_LEASE_NODE || b->p.node_gone_us == 0 || b->node_gone_said ||
	    e->ts <= b->p.node_gone_us)
		return;
	ep = lc_start(LT_EP_NODE_GONE, e);
	ep.start_us = b->p.node_gone_us;
	lt_time_format(at, sizeof at, b->p.node_gone_us);
	snprintf(msg, sizeof msg,
		 "its Node was deleted at %s and not created again in these logs; the lease lives "
		 "on (no owner "
		 "the garbage collector follows)",
		 at);
	ep.note = lt_xstrdup(msg);
	lc_emit(b, &ep);
	b->node_gone_said = 1;
}

/* Feeds one event to the state machine. */
static void lc_step(struct queries_lease *b, const struct queries_lease_event *e,
		    enum queries_lease_kind kind)
{
	struct queries_lease_summary *s = &b->r->sum;
	enum lc_class cls = lc_classify(e);

	if (s->first_us == 0)
		s->first_us = e->ts;
	s->last_us = e->ts;
	if (cls != EV_NOTFOUND)
		lc_close_run(b, &b->notfound, &b->in_notfound);
	/* a run of 401s (authentication) is not a run of 403s (authorization) */
	if (cls != EV_AUTH || (b->in_auth && e->code != b->auth_code))
		lc_close_run(b, &b->auth, &b->in_auth);
	if (cls == EV_RENEW || cls == EV_CREATE)
		lc_node_gone(b, e, kind);
	switch (cls) {
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
		b->conflicts_since++;
		break;
	case EV_OTHER:
		break;
	}
}

/* The lease's state once all its events are read. */
static const char *lc_state(const struct queries_lease *b)
{
	const struct queries_lease_result *r = b->r;
	int recreated = 0;

	for (size_t i = 0; i < r->n; i++)
		recreated |= r->eps[i].kind == LT_EP_RECREATED;
	/*
	 * a kubelet still asking for a lease it cannot re-create: its node is gone;
	 * someone else's 404s (kubectl get lease) say nothing about the kubelet
	 */
	if (b->in_notfound && r->sum.kind == QUERIES_LEASE_NODE && b->notfound_kubelet)
		return "orphaned";
	if (b->gone)
		return "deleted";
	if (b->in_notfound)
		return "not-found";
	if (b->node_gone_said)
		return "node-gone"; /* renewing or re-created, but for a Node that is no more */
	if (recreated)
		return "re-created";
	/*
	 * neither a renew nor a create (its first heartbeat) seen: requests known
	 * only as they arrived (RequestReceived), or reads, or conflicts
	 */
	return r->sum.renews > 0 || r->sum.creates > 0 ? "renewing" : "no-renews";
}

static void lc_finish(struct queries_lease *b)
{
	lc_close_renewing(b);
	lc_close_run(b, &b->slow, &b->in_slow);
	lc_close_run(b, &b->auth, &b->in_auth);
	b->r->sum.state = lc_state(b);
	lc_close_run(b, &b->notfound, &b->in_notfound);
	/* after a release no one holds the lease until a candidate acquires it */
	b->r->sum.holder = b->released ? NULL : lc_str(b, b->prev_holder);
	lc_hist_free(b->hist);
	b->hist = NULL;
}

enum queries_lease_kind queries_lease_kind_of(const char *ns, const char *name)
{
	if (strcmp(ns, "kube-node-lease") == 0)
		return QUERIES_LEASE_NODE;
	if (strncmp(name, "apiserver-", 10) == 0 || strncmp(name, "kube-apiserver-", 15) == 0)
		return QUERIES_LEASE_IDENTITY;
	return QUERIES_LEASE_LEADER;
}

enum queries_lease_kind queries_lease_kind(const struct queries_lease *b)
{
	return b->r->sum.kind;
}

struct queries_lease *queries_lease_new(const struct queries_lease_params *p,
					struct queries_lease_result *out)
{
	struct queries_lease *b = lt_xcalloc(1, sizeof *b);
	struct queries_lease_summary *s = &out->sum;

	memset(out, 0, sizeof *out);
	b->p = *p;
	b->r = out;
	b->prev_transitions = -1;
	b->last_ts = INT64_MIN; /* a time before 1970 is a time too: it is negative */
	s->kind = p->kind;
	s->duration_s = p->duration_s;
	/*
	 * an identity lease lasts an hour but is renewed every 10 s: the hour is
	 * when it expires, not how long its apiserver may pause, so Metadata and
	 * RequestResponse logs of the same apiserver give the same threshold
	 */
	if (b->p.gap_us <= 0)
		b->p.gap_us = p->duration_s > 0 && p->kind != QUERIES_LEASE_IDENTITY
				  ? p->duration_s * LC_SEC
			      : p->kind == QUERIES_LEASE_LEADER ? LC_LEADER_GAP
								: LC_NODE_GAP;
	s->gap_us = b->p.gap_us;
	if (b->p.slow_us <= 0)
		b->p.slow_us = LC_SLOW;
	if (p->kind != QUERIES_LEASE_NODE)
		b->p.kubelet = 0;
	return b;
}

void queries_lease_feed(struct queries_lease *b, const struct queries_lease_event *e)
{
	assert(b != NULL && e != NULL);
	if (b->err != 0)
		return;
	if (e->ts < b->last_ts) {
		b->err = LT_ERR_USAGE;
		return;
	}
	b->last_ts = e->ts;
	lc_step(b, e, b->r->sum.kind);
}

int queries_lease_end(struct queries_lease *b)
{
	int err;

	if (b == NULL)
		return 0;
	lc_finish(b);
	err = b->err;
	free(b);
	return err;
}
