/*
 * queries-report-say.c - the incident report's sentences, from its findings.
 *
 * Pure: findings in, plain-text sentences out (the printers escape them).
 * Each kind has a sentence for one finding (queries_report_say_one, also the
 * findings table's "what happened") and one for many (say_many), so the
 * summary stays a few sentences however many findings there are: a kind
 * with up to REPORT_SAY_EACH findings is told one by one, more are told
 * together (how many, when, by whom, the longest or the first).
 */
#include "queries-report.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define SAY_NAMES 3 /* names listed in a sentence about many, then "and N more" */

void queries_report_time(char *buf, size_t size, int64_t us)
{
	char t[40];

	lt_time_format(t, sizeof t, us);
	/* "YYYY-MM-DDTHH:MM:SS.uuuuuuZ" -> "YYYY-MM-DDTHH:MM:SSZ" */
	snprintf(buf, size, "%.19sZ", t);
}

static void say_time(struct lt_buf *b, const char *before, int64_t us)
{
	char t[40];

	queries_report_time(t, sizeof t, us);
	lt_buf_printf(b, "%s%s", before, t);
}

static void say_dur(struct lt_buf *b, const char *before, int64_t us)
{
	char d[32];

	lt_format_duration(d, sizeof d, us);
	lt_buf_printf(b, "%s%s", before, d);
}

/* s with its first letter capitalized ("node X" -> "Node X"). */
static void say_cap(struct lt_buf *b, const char *s)
{
	lt_buf_putc(b, s[0] >= 'a' && s[0] <= 'z' ? (char)(s[0] - 'a' + 'A') : s[0]);
	lt_buf_printf(b, "%s", s + 1);
}

static const char *say_or(const char *s, const char *none)
{
	return s != NULL && s[0] != '\0' ? s : none;
}

static const char *const say_kind_names[REPORT_KIND_COUNT] = {
    [REPORT_NODE_DELETED] = "node deleted",
    [REPORT_LEASE_DELETED] = "lease deleted",
    [REPORT_GC_DELETE] = "lease deleted by the GC",
    [REPORT_ORPHANED] = "orphaned kubelet",
    [REPORT_REGISTERED] = "node registered again",
    [REPORT_RECREATED] = "lease re-created",
    [REPORT_NOT_READY] = "NotReady",
    [REPORT_LEADER_CHANGE] = "leader change",
    [REPORT_AUTH_FAILURE] = "refused requests",
};

const char *queries_report_kind_name(enum report_kind k)
{
	return k < REPORT_KIND_COUNT ? say_kind_names[k] : "?";
}

/* ---- one finding ------------------------------------------------------------ */

static void say_deleted(struct lt_buf *b, const struct report_finding *f)
{
	if (f->code >= 200 && f->code < 300) {
		say_cap(b, f->object);
		lt_buf_printf(b, " was deleted");
		say_time(b, " at ", f->ts);
		lt_buf_printf(b, " by %s", say_or(f->actor, "an unknown user"));
		if (f->identity != NULL) /* who is behind a shared name, as the audit event says */
			lt_buf_printf(b, " (identity %s%s%s)", f->identity,
				      f->what ? ", from " : "", f->what ? f->what : "");
		else if (f->what != NULL)
			lt_buf_printf(b, " (from %s)", f->what);
	} else {
		lt_buf_printf(b, "%s tried to delete %s", say_or(f->actor, "An unknown user"),
			      f->object);
		say_time(b, " at ", f->ts);
		lt_buf_printf(b, ": refused (%lld)", (long long)f->code);
	}
	lt_buf_putc(b, '.');
}

static void say_gc(struct lt_buf *b, const struct report_finding *f)
{
	lt_buf_printf(b, "The garbage collector deleted %s", f->object);
	say_time(b, " at ", f->ts);
	if (f->ts2 != 0) {
		say_dur(b, ", ", f->dur_us >= 0 ? f->dur_us : f->ts - f->ts2);
		lt_buf_printf(b, " after its node was deleted by %s",
			      say_or(f->actor, "an unknown user"));
	} else {
		lt_buf_printf(b, " (the node's deletion behind it is not in the logs)");
	}
	lt_buf_putc(b, '.');
}

static void say_orphaned(struct lt_buf *b, const struct report_finding *f)
{
	lt_buf_printf(b, "The kubelet of %s went on after its node was deleted", f->subject);
	if (f->count > 0) {
		lt_buf_printf(b, ": %lld request%s answered 404", (long long)f->count,
			      f->count == 1 ? "" : "s");
		say_time(b, " from ", f->ts);
		if (f->end_us > f->ts)
			say_time(b, " to ", f->end_us);
	} else {
		say_time(b, ", not-found errors in its log from ", f->ts);
	}
	if (f->ts2 != 0)
		say_time(b, "; it registered again at ", f->ts2);
	else if (f->again)
		lt_buf_printf(b, "; still orphaned at the end of the logs");
	lt_buf_putc(b, '.');
}

static void say_registered(struct lt_buf *b, const struct report_finding *f)
{
	const char *result = say_or(f->what, "registered");

	if (strncmp(result, "failed", 6) == 0) {
		lt_buf_printf(b, "Node %s did not register", f->subject);
		say_time(b, " at ", f->ts);
		lt_buf_printf(b, " (%s): %s.", say_or(f->actor, "?"), result);
		return;
	}
	lt_buf_printf(b, "Node %s registered again", f->subject);
	say_time(b, " at ", f->ts);
	lt_buf_printf(b, " (by %s)", say_or(f->actor, "an unknown user"));
	if (f->ts2 != 0)
		say_dur(b, ", ", f->ts - f->ts2), lt_buf_printf(b, " after it was deleted");
	if (f->code == 409)
		lt_buf_printf(b, ": %s", result);
	lt_buf_putc(b, '.');
}

static void say_recreated(struct lt_buf *b, const struct report_finding *f)
{
	say_cap(b, f->object);
	lt_buf_printf(b, " was created again");
	say_time(b, " at ", f->ts);
	lt_buf_printf(b, " by %s", say_or(f->actor, "an unknown user"));
	if (f->dur_us >= 0)
		say_dur(b, ", ", f->dur_us), lt_buf_printf(b, " after it was gone");
	if (f->more != NULL)
		lt_buf_printf(b, " (removed by %s)", f->more);
	lt_buf_putc(b, '.');
}

static void say_not_ready(struct lt_buf *b, const struct report_finding *f)
{
	if (f->end_us == 0) {
		lt_buf_printf(b, "Node %s was NotReady", f->subject);
		say_time(b, " from ", f->ts);
		lt_buf_printf(b, " to the end of the logs");
		if (f->dur_us >= 0)
			say_dur(b, " (", f->dur_us), lt_buf_putc(b, ')');
	} else {
		lt_buf_printf(b, "Node %s was NotReady", f->subject);
		say_dur(b, " for ", f->dur_us >= 0 ? f->dur_us : f->end_us - f->ts);
		say_time(b, " from ", f->ts);
	}
	lt_buf_printf(b, ", cause %s", say_or(f->what, "unknown"));
	if (f->end_us != 0 && f->more != NULL)
		lt_buf_printf(b, "; %s", f->more);
	lt_buf_putc(b, '.');
}

static void say_leader(struct lt_buf *b, const struct report_finding *f)
{
	lt_buf_printf(b, "The holder of %s changed from %s to %s", f->object, say_or(f->what, "?"),
		      say_or(f->more, "?"));
	say_time(b, " at ", f->ts);
	lt_buf_putc(b, '.');
}

static void say_auth(struct lt_buf *b, const struct report_finding *f)
{
	lt_buf_printf(b, "%lld request%s of %s on %s %s refused", (long long)f->count,
		      f->count == 1 ? "" : "s", say_or(f->actor, "an unknown user"), f->object,
		      f->count == 1 ? "was" : "were");
	say_time(b, " from ", f->ts);
	if (f->end_us > f->ts)
		say_time(b, " to ", f->end_us);
	if (f->what != NULL)
		lt_buf_printf(b, ": %s", f->what);
	lt_buf_putc(b, '.');
}

static void (*const say_fns[REPORT_KIND_COUNT])(struct lt_buf *, const struct report_finding *) = {
    [REPORT_NODE_DELETED] = say_deleted,  [REPORT_LEASE_DELETED] = say_deleted,
    [REPORT_GC_DELETE] = say_gc,	  [REPORT_ORPHANED] = say_orphaned,
    [REPORT_REGISTERED] = say_registered, [REPORT_RECREATED] = say_recreated,
    [REPORT_NOT_READY] = say_not_ready,	  [REPORT_LEADER_CHANGE] = say_leader,
    [REPORT_AUTH_FAILURE] = say_auth,
};

void queries_report_say_one(struct lt_buf *b, const struct report_finding *f)
{
	assert(f->kind < REPORT_KIND_COUNT && f->object != NULL && f->subject != NULL);
	say_fns[f->kind](b, f);
}

/* ---- many findings of one kind ---------------------------------------------- */

/* The distinct values of a field of fs[0..n-1], first seen first, with their counts. */
struct say_tally {
	const char *name[SAY_NAMES];
	size_t count[SAY_NAMES];
	size_t distinct, more; /* distinct values; findings past the listed ones */
};

static void say_tally(struct say_tally *t, const struct report_finding *const *fs, size_t n,
		      size_t field)
{
	const char **seen = lt_xcalloc(n ? n : 1, sizeof *seen);

	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < n; i++) {
		const char *v = say_or(*(char *const *)((const char *)fs[i] + field), "unknown");
		size_t j = 0;

		while (j < t->distinct && strcmp(seen[j], v) != 0)
			j++;
		if (j == t->distinct)
			seen[t->distinct++] = v;
		if (j < SAY_NAMES) {
			t->name[j] = v;
			t->count[j]++;
		}
	}
	free(seen);
}

/* "A (2), B and 3 more": a tally as words. */
static void say_tally_text(struct lt_buf *b, const struct say_tally *t, int counts)
{
	size_t shown = t->distinct < SAY_NAMES ? t->distinct : SAY_NAMES;

	for (size_t i = 0; i < shown; i++) {
		lt_buf_printf(b, "%s%s",
			      i == 0				       ? ""
			      : i + 1 == shown && t->distinct == shown ? " and "
								       : ", ",
			      t->name[i]);
		if (counts && t->count[i] > 1)
			lt_buf_printf(b, " (%zu)", t->count[i]);
	}
	if (t->distinct > shown)
		lt_buf_printf(b, " and %zu more", t->distinct - shown);
}

/* The nouns of a kind's sentence about many. */
struct say_many_words {
	const char *what;    /* "nodes were deleted" */
	size_t by;	     /* the field a tally names after "by", 0: none */
	const char *by_word; /* " by ", " of " */
	size_t also;	     /* a second field to tally, 0: none */
	const char *also_word;
};

#define SAY_FIELD(name) offsetof(struct report_finding, name)

static const struct say_many_words say_many_words[REPORT_KIND_COUNT] = {
    [REPORT_NODE_DELETED] = {.what = "node deletes",
			     .by = SAY_FIELD(actor),
			     .by_word = "by ",
			     .also = SAY_FIELD(subject),
			     .also_word = "of "},
    [REPORT_LEASE_DELETED] = {.what = "lease deletes",
			      .by = SAY_FIELD(actor),
			      .by_word = "by ",
			      .also = SAY_FIELD(object),
			      .also_word = "of "},
    [REPORT_GC_DELETE] = {.what = "node leases deleted by the garbage collector after their node",
			  .by = SAY_FIELD(actor),
			  .by_word = "whose nodes were deleted by ",
			  .also = SAY_FIELD(subject),
			  .also_word = "of "},
    [REPORT_ORPHANED] = {.what = "orphaned kubelets (asking for a deleted node)",
			 .also = SAY_FIELD(subject),
			 .also_word = "on "},
    [REPORT_REGISTERED] = {.what = "node re-registrations",
			   .also = SAY_FIELD(subject),
			   .also_word = "of "},
    [REPORT_RECREATED] = {.what = "lease re-creations",
			  .by = SAY_FIELD(actor),
			  .by_word = "by ",
			  .also = SAY_FIELD(object),
			  .also_word = "of "},
    [REPORT_NOT_READY] = {.what = "NotReady windows",
			  .by = SAY_FIELD(what),
			  .by_word = "causes ",
			  .also = SAY_FIELD(subject),
			  .also_word = "on "},
    [REPORT_LEADER_CHANGE] = {.what = "leader changes",
			      .also = SAY_FIELD(object),
			      .also_word = "of "},
    [REPORT_AUTH_FAILURE] = {.what = "runs of refused (401/403) lease requests",
			     .by = SAY_FIELD(actor),
			     .by_word = "by ",
			     .also = SAY_FIELD(object),
			     .also_word = "on "},
};

/* The finding a sentence about many singles out: the longest NotReady, else the first. */
static const struct report_finding *say_worst(const struct report_finding *const *fs, size_t n)
{
	const struct report_finding *w = fs[0];

	for (size_t i = 1; i < n; i++)
		if (fs[i]->kind == REPORT_NOT_READY && fs[i]->dur_us > w->dur_us)
			w = fs[i];
	return w;
}

static void say_many(struct lt_buf *b, const struct report_finding *const *fs, size_t n)
{
	const struct say_many_words *w = &say_many_words[fs[0]->kind];
	int64_t first = fs[0]->ts, last = fs[0]->ts;
	struct say_tally t;

	for (size_t i = 1; i < n; i++) {
		first = fs[i]->ts < first ? fs[i]->ts : first;
		last = fs[i]->ts > last ? fs[i]->ts : last;
	}
	lt_buf_printf(b, "%zu %s", n, w->what);
	say_time(b, " between ", first);
	say_time(b, " and ", last);
	if (w->also) {
		say_tally(&t, fs, n, w->also);
		lt_buf_printf(b, ", %s", w->also_word);
		say_tally_text(b, &t, 1);
	}
	if (w->by) {
		say_tally(&t, fs, n, w->by);
		lt_buf_printf(b, "; %s", w->by_word);
		say_tally_text(b, &t, 1);
	}
	lt_buf_printf(b, ". %s: ", fs[0]->kind == REPORT_NOT_READY ? "The longest" : "The first");
	queries_report_say_one(b, say_worst(fs, n));
}

/* A sentence and the time it starts at: the summary is told in time order. */
struct say_item {
	int64_t ts;
	size_t seq; /* kind order, for sentences at the same time (qsort is not stable) */
	char *text;
};

static int say_by_time(const void *a, const void *b)
{
	const struct say_item *x = a, *y = b;

	if (x->ts != y->ts)
		return (x->ts > y->ts) - (x->ts < y->ts);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

size_t queries_report_say(char ***out, const struct report_finding *f, size_t n)
{
	const struct report_finding **fs = lt_xcalloc(n ? n : 1, sizeof *fs);
	struct say_item *items = NULL;
	size_t nsaid = 0, cap = 0;
	char **said;

	for (int k = 0; k < REPORT_KIND_COUNT; k++) {
		size_t m = 0;
		struct lt_buf b;

		for (size_t i = 0; i < n; i++)
			if (f[i].kind == (enum report_kind)k)
				fs[m++] = &f[i];
		if (m == 0)
			continue;
		for (size_t i = 0; i < (m > REPORT_SAY_EACH ? 1 : m); i++) {
			int64_t ts = fs[i]->ts;

			lt_buf_init(&b);
			if (m > REPORT_SAY_EACH)
				say_many(&b, fs, m);
			else
				queries_report_say_one(&b, fs[i]);
			for (size_t j = 1; m > REPORT_SAY_EACH && j < m; j++)
				ts = fs[j]->ts < ts ? fs[j]->ts : ts;
			LT_GROW(items, cap, nsaid + 1);
			items[nsaid] =
			    (struct say_item){.ts = ts, .seq = nsaid, .text = lt_buf_detach(&b)};
			nsaid++;
		}
	}
	if (nsaid == 0) {
		LT_GROW(items, cap, 1);
		items[nsaid++].text = lt_xstrdup(
		    "Nothing to report: no node or lease deletion, orphaned kubelet, "
		    "re-registration,"
		    " lease re-creation, NotReady window, leader change or refused lease request in"
		    " the time range.");
	}
	if (nsaid > 1)
		qsort(items, nsaid, sizeof *items, say_by_time);
	said = lt_xcalloc(nsaid, sizeof *said);
	for (size_t i = 0; i < nsaid; i++)
		said[i] = items[i].text;
	free(items);
	free(fs);
	*out = said;
	return nsaid;
}
