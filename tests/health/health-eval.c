/*
 * health-eval.c - node health measured against lt-gen's ground truth.
 *
 * Usage: health-eval DB TRUTH MODE
 *        health-eval DB --dump
 * Opens the store DB (ingested by `leasetrail ingest`, which builds its
 * NotReady windows), and compares them with TRUTH (lt-gen --health --truth: node, start_us, end_us
 * or -, condition, cause, ended, evicted_pods, evicted pods the journals
 * name).  MODE is "both" (audit and logs), "audit" (Metadata), "audit-rr"
 * (RequestResponse) or "logs": what the store was given.  Prints one line
 * of figures; exits 1 when a window is missed or invented, a start is off
 * by more than 6 s or an end by more than 2 s, a cause differs from what
 * the mode's evidence can tell (eval_expected), an eviction count from the
 * attributable ones, or (both) fewer than 95 % of causes are the truth.  With --dump it prints the
 * windows and the evictions as the golden outputs keep them.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queries-int.h"

#define EVAL_MAX 256

struct eval_win {
	char node[64], cond[16], cause[32], ended[16];
	long long start, end;	  /* end -1: open */
	long long evicted, named; /* named: the evicted pods the journals name */
	int matched;
};

static size_t eval_truth(const char *path, struct eval_win *w)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t n = 0;

	if (f == NULL)
		return 0;
	while (n < EVAL_MAX && fgets(line, sizeof line, f) != NULL) {
		struct eval_win *x = &w[n];

		char *field[8], *save = NULL;
		size_t k = 0;

		for (char *t = strtok_r(line, "\t\n", &save); t && k < 8;
		     t = strtok_r(NULL, "\t\n", &save))
			field[k++] = t;
		if (k != 8)
			continue;
		x->named = strtoll(field[7], NULL, 10);
		snprintf(x->node, sizeof x->node, "%s", field[0]);
		x->start = strtoll(field[1], NULL, 10);
		x->end = strcmp(field[2], "-") == 0 ? -1 : strtoll(field[2], NULL, 10);
		snprintf(x->cond, sizeof x->cond, "%s", field[3]);
		snprintf(x->cause, sizeof x->cause, "%s", field[4]);
		snprintf(x->ended, sizeof x->ended, "%s", field[5]);
		x->evicted = strtoll(field[6], NULL, 10);
		n++;
	}
	fclose(f);
	return n;
}

static size_t eval_found(struct lt_store *st, struct eval_win *w, struct lt_error *err)
{
	struct lt_stmt *q = NULL;
	size_t n = 0;

	if (lt_store_prepare(st, &q,
			     "SELECT node, start_us, coalesce(end_us, -1), condition, cause, ended,"
			     " evicted_pods FROM not_ready ORDER BY node, start_us",
			     err) != 0)
		return 0;
	while (n < EVAL_MAX && lt_stmt_step(q, err) == 1) {
		struct eval_win *x = &w[n++];

		snprintf(x->node, sizeof x->node, "%s", lt_stmt_text(q, 0, NULL));
		x->start = lt_stmt_int(q, 1);
		x->end = lt_stmt_int(q, 2);
		snprintf(x->cond, sizeof x->cond, "%s", lt_stmt_text(q, 3, NULL));
		snprintf(x->cause, sizeof x->cause, "%s", lt_stmt_text(q, 4, NULL));
		snprintf(x->ended, sizeof x->ended, "%s", lt_stmt_text(q, 5, NULL));
		x->evicted = lt_stmt_int(q, 6);
	}
	lt_stmt_free(q);
	return n;
}

/* Prints not_ready and evictions, one tab-separated line per row. */
static int eval_dump(struct lt_store *st, struct lt_error *err)
{
	static const char *const sql[] = {
	    "SELECT 'window', node, start_us, coalesce(end_us, '-'), condition, cause, ended,"
	    " evidence, reason, taints, evicted_pods FROM not_ready ORDER BY node, start_us",
	    "SELECT 'eviction', pod, ts_us, coalesce(node, 'not attributable'),"
	    " coalesce(window_id, '-') FROM evictions ORDER BY ts_us, pod",
	};

	for (size_t i = 0; i < sizeof sql / sizeof *sql; i++) {
		struct lt_stmt *q = NULL;
		int rc = lt_store_prepare(st, &q, sql[i], err);

		while (rc == 0 && (rc = lt_stmt_step(q, err)) == 1) {
			for (int c = 0; c < lt_stmt_columns(q); c++) {
				size_t n = 0;
				const char *v = lt_stmt_text(q, c, &n);
				struct lt_buf b;

				lt_buf_init(&b);
				lt_sanitize(&b, v ? v : "", v ? n : 0); /* log text is hostile */
				printf("%s%.*s", c ? "\t" : "", (int)b.len, b.ptr ? b.ptr : "");
				lt_buf_release(&b);
			}
			putchar('\n');
			rc = 0;
		}
		lt_stmt_free(q);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The cause the evidence of mode can name for a true window (docs/node-health.md, rules). */
static const char *eval_expected(const struct eval_win *t, const char *mode)
{
	int audit = strncmp(mode, "audit", 5) == 0, rr = strcmp(mode, "audit-rr") == 0;
	int open = t->end < 0;

	if (open && strcmp(t->cause, "node-rebooted") == 0)
		return "unknown"; /* the journal just stopped: nothing says why */
	if (audit && open && strcmp(t->cond, "Unknown") == 0)
		return "unknown"; /* heartbeats gone, no restart, no resume */
	if (audit && !rr && strcmp(t->cond, "False") == 0)
		return "kubelet-reported"; /* no body: no message */
	if (audit && !rr && strcmp(t->cause, "node-rebooted") == 0)
		return "kubelet-stopped"; /* a 409 re-registration, no boot ID */
	return t->cause;
}

int main(int argc, char **argv)
{
	static struct eval_win truth[EVAL_MAX], found[EVAL_MAX];
	struct lt_store *st = NULL;
	struct lt_error err = {0};
	size_t nt, nf, matched = 0, causes = 0, causes_ev = 0, ends = 0, evicted = 0;
	long long max_ds = 0, max_de = 0;
	int both, logs;

	if (argc == 3 && strcmp(argv[2], "--dump") == 0) {
		int rc = lt_store_open(&st, argv[1], 0, &err);

		if (rc == 0)
			rc = eval_dump(st, &err);
		if (rc != 0)
			fprintf(stderr, "health-eval: %s\n", err.msg);
		lt_store_free(st);
		return rc != 0 ? 2 : 0;
	}
	if (argc != 4) {
		fputs("usage: health-eval DB TRUTH both|audit|audit-rr|logs\n", stderr);
		return 2;
	}
	both = strcmp(argv[3], "both") == 0;
	logs = both || strcmp(argv[3], "logs") == 0;
	if (lt_store_open(&st, argv[1], 0, &err) != 0) {
		fprintf(stderr, "health-eval: %s\n", err.msg);
		lt_store_free(st);
		return 2;
	}
	nt = eval_truth(argv[2], truth);
	nf = eval_found(st, found, &err);
	for (size_t i = 0; i < nt; i++)
		for (size_t j = 0; j < nf; j++) {
			struct eval_win *t = &truth[i], *f = &found[j];
			long long ds = llabs(f->start - t->start), de;
			const char *want = eval_expected(t, argv[3]);
			long long want_evicted = logs ? t->named : 0;

			if (f->matched || strcmp(t->node, f->node) != 0 || ds > 6000000)
				continue;
			f->matched = t->matched = 1;
			matched++;
			de = t->end < 0 || f->end < 0 ? (t->end == f->end ? 0 : 1LL << 40)
						      : llabs(f->end - t->end);
			max_ds = ds > max_ds ? ds : max_ds;
			max_de = de > max_de ? de : max_de;
			ends += de <= 2000000 && strcmp(t->ended, f->ended) == 0;
			causes += strcmp(t->cause, f->cause) == 0;
			causes_ev += strcmp(want, f->cause) == 0;
			evicted += want_evicted == f->evicted;
			if (de > 2000000 || strcmp(want, f->cause) != 0 ||
			    strcmp(t->ended, f->ended) != 0 || want_evicted != f->evicted)
				printf("  %s %s: start %+.3fs end %s %+.3fs cause %s (true %s, "
				       "evidence "
				       "%s) evicted %lld (%lld)\n",
				       argv[3], t->node, (f->start - t->start) / 1e6, f->ended,
				       t->end < 0 || f->end < 0 ? 0.0 : (f->end - t->end) / 1e6,
				       f->cause, t->cause, want, f->evicted, want_evicted);
			break;
		}
	for (size_t i = 0; i < nt; i++)
		if (!truth[i].matched)
			printf("  %s missed: %s %lld %s\n", argv[3], truth[i].node, truth[i].start,
			       truth[i].cause);
	for (size_t j = 0; j < nf; j++)
		if (!found[j].matched)
			printf("  %s invented: %s %lld %s\n", argv[3], found[j].node,
			       found[j].start, found[j].cause);
	printf("mode=%s windows=%zu found=%zu recall=%.3f precision=%.3f max_start_err=%.3fs "
	       "max_end_err=%.3fs ends_ok=%zu cause=%.3f cause_as_evidence_allows=%.3f "
	       "evicted_ok=%zu\n",
	       argv[3], nt, nf, nt ? (double)matched / nt : 1.0, nf ? (double)matched / nf : 1.0,
	       max_ds / 1e6, max_de / 1e6, ends, matched ? (double)causes / matched : 1.0,
	       matched ? (double)causes_ev / matched : 1.0, evicted);
	lt_store_free(st);
	return matched == nt && matched == nf && ends == matched && causes_ev == matched &&
		       evicted == matched && (!both || causes * 100 >= 95 * matched)
		   ? 0
		   : 1;
}
