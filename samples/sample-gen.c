/*
 * sample-gen.c - lt-gen, a deterministic generator of kube-apiserver audit
 * logs shaped like the ones EKS writes: audit.k8s.io/v1 Events, one compact
 * JSON object per line, Metadata level, no RequestReceived stage.
 *
 * Model: every client (a kubelet's lease controller, its node status loop,
 * a leader-election candidate, an apiserver identity lease, a stream of
 * unrelated traffic, an open watch, a scripted story step) is an "actor"
 * with at most one request in flight. A min-heap keyed by the end of that
 * request (its stageTimestamp) pops the actor whose request ends next; the
 * actor decides the outcome from the shared cluster state at that moment,
 * writes the Event to the stream of the apiserver that served it, and
 * schedules its next request. Popping in stageTimestamp order keeps every
 * output file ordered with no merge step. Each actor draws from its own
 * xoshiro256** stream seeded from --seed, so the output depends only on
 * the options, and a story never perturbs the steady traffic of others.
 * Rule for that: never make two draws in one expression or argument list
 * (C leaves their order unspecified and compilers differ).
 *
 * The timing rules (10 s kubelet renews with 4 % jitter, 5 retries, 2 s
 * leader renews, 15 s takeover, ...) are those of /work/shared/docs/LEASES.md
 * and of the Kubernetes sources it cites.
 *
 * The kubelet journals and kube-controller-manager logs that go with the
 * audit stories are written by sample-gen-logs.c from the "facts" this file
 * reports (gen_fact), and sample-gen-journal.c; see sample-gen.h. Plain C11
 * and libc: make-samples.sh builds every sample-gen*.c with a bare cc.
 *
 * This file holds the options and the run loop; the simulation's other
 * parts are sample-gen-{rand,buf,emit,actor,kubelet,elect,noise,story,setup}.c,
 * sharing sample-gen-sim.h (samples/README.md lists them).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample-gen-sim.h"

/* Pops and runs requests in stageTimestamp order until the window is done. */
static void gen_run(struct gen_ctx *g)
{
	while (g->nheap) {
		struct gen_hent h = gen_heap_pop(g);
		struct gen_actor *a = &g->actors[h.actor];
		if (h.gen != a->gen)
			continue;
		switch (a->kind) {
		case GEN_A_LEASE:
			gen_lease_step(g, h.actor);
			break;
		case GEN_A_STATUS:
			gen_status_step(g, h.actor);
			break;
		case GEN_A_ELECT:
			gen_elect_step(g, h.actor);
			break;
		case GEN_A_IDENT:
			gen_ident_step(g, h.actor);
			break;
		case GEN_A_NOISE:
			gen_noise_step(g, h.actor);
			break;
		case GEN_A_WATCH:
			gen_watch_step(g, h.actor);
			break;
		default:
			gen_story_step(g, h.actor);
			break;
		}
	}
}

static const char gen_usage[] =
    "usage: lt-gen [options] [-o FILE]\n"
    "Writes a deterministic, EKS-shaped kube-apiserver audit log (audit.k8s.io/v1\n"
    "Events, one compact JSON object per line, ordered by stageTimestamp).\n"
    "\n"
    "  --nodes N          worker nodes (default 3; max 200000)\n"
    "  --minutes M        length of the window (default 15)\n"
    "  --seed S           random seed (default 1); same options => same bytes\n"
    "  --start RFC3339    window start (default " GEN_DEF_START ")\n"
    "  --level L          Metadata (default) or RequestResponse: lease events then\n"
    "                     carry requestObject/responseObject Lease bodies\n"
    "  --stories LIST     comma list of steady (always on), node-delete (last node,\n"
    "                     40% in; kubelet restart at 80%), lease-delete (second\n"
    "                     node, 20%), leader-change (kube-controller-manager, 60%),\n"
    "                     none. Default: all three stories.\n"
    "  --noise K          K unrelated requests per second (pods, configmaps,\n"
    "                     endpoints, events; get/list/watch/create/patch); default 0\n"
    "  --split N          N apiservers, one file each: FILE.1..FILE.N (needs -o)\n"
    "  -o, --output FILE  write to FILE instead of standard output (with a log option\n"
    "                     below and no -o, no audit log is written)\n"
    "  --journal-dir DIR  one kubelet journal per node: DIR/kubelet-<node>.log\n"
    "  --journal FILE     every node's kubelet lines merged into FILE, in time order\n"
    "  --journal-format F short (default), short-precise, short-iso,\n"
    "                     short-iso-precise, json or cat; a comma list gives node i\n"
    "                     the i-th format (the last one repeats); --journal uses the first\n"
    "  --journal-noise K  K routine kubelet lines per node-minute (default 6); also\n"
    "                     the controller-manager leader's lines per minute\n"
    "  --kcm-log PREFIX   kube-controller-manager klog per control-plane host:\n"
    "                     PREFIX.<host>.log\n"
    "  -h, --help         show this help\n"
    "\n"
    "Size: about 8.1 KB per node-minute at Metadata level (14.4 KB at RequestResponse),\n"
    "plus about 110 KB per minute of control-plane leases (215 KB at RequestResponse)\n"
    "and 1.2 KB per noise request: --nodes 3000 --minutes 60 --stories none makes\n"
    "1.47 GB (1.1 M events) in a few seconds.\n";

/* Parses a decimal integer in [lo, hi]; returns 0 or -1 after a message. */
static int gen_parse_long(const char *opt, const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "lt-gen: %s wants an integer in %ld..%ld, not '%s'\n", opt, lo, hi,
			s);
		return -1;
	}
	*out = v;
	return 0;
}

/* Parses the value of one option; returns 0 or -1 after a message. */
static int gen_parse_opt(struct gen_opts *o, const char *name, const char *v)
{
	char *end;
	if (strcmp(name, "--nodes") == 0)
		return gen_parse_long(name, v, 1, GEN_MAX_NODES, &o->nodes);
	if (strcmp(name, "--minutes") == 0)
		return gen_parse_long(name, v, 1, GEN_MAX_MINUTES, &o->minutes);
	if (strcmp(name, "--split") == 0)
		return gen_parse_long(name, v, 1, GEN_MAX_SPLIT, &o->split);
	if (strcmp(name, "--stories") == 0)
		return gen_parse_stories(v, &o->stories);
	if (strcmp(name, "-o") == 0 || strcmp(name, "--output") == 0) {
		o->out = v;
		return 0;
	}
	if (strcmp(name, "--level") == 0) {
		o->rr = strcmp(v, "RequestResponse") == 0;
		if (o->rr || strcmp(v, "Metadata") == 0)
			return 0;
		fprintf(stderr, "lt-gen: --level wants Metadata or RequestResponse, not '%s'\n", v);
		return -1;
	}
	if (strcmp(name, "--start") == 0) {
		if (gen_parse_time(v, &o->start) == 0)
			return 0;
		fprintf(stderr, "lt-gen: --start wants an RFC 3339 time after 1971, not '%s'\n", v);
		return -1;
	}
	if (strcmp(name, "--seed") == 0) {
		errno = 0;
		unsigned long long s = strtoull(v, &end, 0);
		if (errno || end == v || *end || *v == '-') {
			fprintf(stderr, "lt-gen: --seed wants an unsigned integer, not '%s'\n", v);
			return -1;
		}
		o->seed = s;
		return 0;
	}
	if (strcmp(name, "--noise") == 0) {
		errno = 0;
		o->noise = strtod(v, &end);
		if (errno || end == v || *end || !(o->noise >= 0 && o->noise <= 100000)) {
			fprintf(stderr, "lt-gen: --noise wants a rate in 0..100000, not '%s'\n", v);
			return -1;
		}
		return 0;
	}
	int rc = gen_log_parse_opt(&o->logs, name, v);
	if (rc <= 0)
		return rc;
	fprintf(stderr, "lt-gen: unknown option '%s' (try --help)\n", name);
	return -1;
}

/* Parses argv into o. Returns 0 to run, 1 after --help, -1 on a usage error. */
static int gen_parse(struct gen_opts *o, int argc, char **argv)
{
	*o = (struct gen_opts){
	    .nodes = 3, .minutes = 15, .split = 1, .seed = 1, .stories = GEN_STORY_ALL};
	if (gen_parse_time(GEN_DEF_START, &o->start) != 0)
		return -1;
	for (int i = 1; i < argc; i++) {
		char name[64];
		const char *arg = argv[i], *eq = strchr(arg, '='), *v;
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			fputs(gen_usage, stdout);
			return 1;
		}
		size_t n = eq && arg[1] == '-' ? (size_t)(eq - arg) : strlen(arg);
		snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), arg);
		if (eq && arg[1] == '-') {
			v = eq + 1;
		} else if (i + 1 < argc) {
			v = argv[++i];
		} else {
			fprintf(stderr, "lt-gen: %s needs a value\n", arg);
			return -1;
		}
		if (gen_parse_opt(o, name, v) != 0)
			return -1;
	}
	if (o->split > 1 && !o->out) {
		fputs("lt-gen: --split needs -o FILE\n", stderr);
		return -1;
	}
	if ((o->stories & GEN_STORY_NODE_DELETE) && (o->stories & GEN_STORY_LEASE_DELETE) &&
	    o->nodes < 2) {
		fputs("lt-gen: node-delete and lease-delete together need --nodes >= 2\n", stderr);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct gen_opts o;
	struct gen_ctx g;
	/* lt-gen --health LIST ...: the node-health stories (sample-gen-health.c) */
	if (argc > 1 && strcmp(argv[1], "--health") == 0)
		return gen_health_main(argc, argv);
	int rc = gen_parse(&o, argc, argv);
	if (rc != 0)
		return rc < 0 ? 2 : 0;
	gen_init(&g, &o);
	rc = gen_open(&g);
	if (rc == 0)
		gen_run(&g);
	rc = gen_close(&g) != 0 || rc != 0 ? 1 : 0;
	if (rc == 0 && gen_log_write(g.log) != 0)
		rc = 1;
	gen_release(&g);
	return rc;
}
