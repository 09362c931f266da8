/*
 * queries-hist.c - the cluster-wide histogram: events, errors and NotReady
 * nodes per time bin (the TUI's `i` screen, in the spirit of lnav's).
 *
 * Events are the audit events kept (not superseded) and the log lines;
 * errors are the events answered 400 or more and the lines of severity E
 * or F.  Both come from one grouped statement over the bins' window; the
 * bins are equal and contiguous, so a row's bin is arithmetic, never a
 * lookup.  NotReady nodes come from node health's windows (lt_notready,
 * few), each node counted once per bin however many windows it has there.
 * Memory is the bins (at most LT_HIST_MAX_BINS), whatever the store holds.
 */
#include "queries-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ?1 the first bin's start, ?2 a bin's length, ?3 the number of bins. */
static const char hist_events_sql[] =
    "SELECT b, sum(n), sum(e) FROM ("
    " SELECT (a.stage_us - ?1) / ?2 AS b, count(*) AS n, sum(a.code >= 400) AS e FROM audit AS a"
    " WHERE a.stage_us >= ?1 AND a.stage_us < ?1 + ?2 * ?3 AND a.superseded = 0 GROUP BY 1"
    " UNION ALL"
    " SELECT (g.ts_us - ?1) / ?2, count(*), sum(g.severity IN ('E', 'F')) FROM lines AS g"
    " WHERE g.ts_us >= ?1 AND g.ts_us < ?1 + ?2 * ?3 GROUP BY 1"
    ") GROUP BY b";

/* The same window; ?4 the end of the logs (an open window lasts up to it). */
static const char hist_notready_sql[] =
    "SELECT node_id, start_us, coalesce(end_us, max(?4, start_us)) FROM lt_notready"
    " WHERE start_us < ?1 + ?2 * ?3 AND coalesce(end_us, max(?4, start_us)) >= ?1"
    " ORDER BY node_id, start_us";

/* The bin of time t, clamped into [0, n). */
static size_t hist_bin(const struct lt_hist *h, int64_t t)
{
	int64_t b;

	if (t <= h->from_us)
		return 0;
	b = (t - h->from_us) / h->bin_us;
	return b >= (int64_t)h->n ? h->n - 1 : (size_t)b;
}

static void hist_bind(struct lt_stmt *q, const struct lt_hist *h)
{
	lt_stmt_bind_int(q, 1, h->from_us);
	lt_stmt_bind_int(q, 2, h->bin_us);
	lt_stmt_bind_int(q, 3, (int64_t)h->n);
}

static int hist_events(struct lt_hist *h, struct lt_store *st, struct lt_error *err)
{
	struct lt_stmt *q;
	int rc = lt_store_prepare(st, &q, hist_events_sql, err);

	if (rc != 0)
		return rc;
	hist_bind(q, h);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		int64_t b = lt_stmt_int(q, 0);

		if (b < 0 || b >= (int64_t)h->n)
			continue; /* cannot be: the WHERE keeps the window */
		h->bins[b].events += lt_stmt_int(q, 1);
		h->bins[b].errors += lt_stmt_int(q, 2);
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

/* Windows come ordered by node, then start: a node's bins are marked once each. */
static int hist_notready(struct lt_hist *h, struct lt_store *st, struct lt_error *err)
{
	struct lt_stmt *q;
	int64_t node = -1;
	size_t next = 0; /* the node's first bin not yet counted */
	int rc;

	if (!queries_has_health(st))
		return 0; /* a store from before node health: no windows to read */
	if ((rc = lt_store_prepare(st, &q, hist_notready_sql, err)) != 0)
		return rc;
	hist_bind(q, h);
	lt_stmt_bind_int(q, 4, lt_store_end_us(st));
	while ((rc = lt_stmt_step(q, err)) == 1) {
		size_t a = hist_bin(h, lt_stmt_int(q, 1)), z = hist_bin(h, lt_stmt_int(q, 2));

		if (lt_stmt_int(q, 0) != node)
			node = lt_stmt_int(q, 0), next = 0;
		for (size_t b = a > next ? a : next; b <= z; b++)
			h->bins[b].not_ready++;
		next = z + 1 > next ? z + 1 : next;
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}

int lt_browse_hist(struct lt_hist *out, struct lt_store *st, int64_t from_us, int64_t bin_us,
		   size_t nbins, struct lt_error *err)
{
	int rc;

	assert(bin_us > 0 && nbins > 0 && nbins <= LT_HIST_MAX_BINS);
	memset(out, 0, sizeof *out);
	out->bins = lt_xcalloc(nbins, sizeof *out->bins);
	out->n = nbins;
	out->from_us = from_us;
	out->bin_us = bin_us;
	if ((rc = hist_events(out, st, err)) == 0)
		rc = hist_notready(out, st, err);
	if (rc != 0)
		lt_hist_release(out);
	return rc;
}

void lt_hist_release(struct lt_hist *h)
{
	if (h == NULL)
		return;
	free(h->bins);
	memset(h, 0, sizeof *h);
}
