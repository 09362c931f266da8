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
 * and libc: make-samples.sh builds the three files with a bare cc.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample-gen.h"

#define GEN_FLUSH_AT	(1u << 20)
#define GEN_MAX_NODES	200000L
#define GEN_MAX_MINUTES 10080L
#define GEN_MAX_SPLIT	16L
#define GEN_NOISE_SLOTS 4
#define GEN_NPODS	24
#define GEN_ACCOUNT	"111122223333"
#define GEN_COORD	"coordination.k8s.io"
#define GEN_KUBELET_UA	"kubelet/v1.29.0 (linux/amd64) kubernetes/3034fd4"
#define GEN_K8S_UA	"/v1.29.1 (linux/amd64) kubernetes/07600c7"
#define GEN_KUBECTL_UA	"kubectl/v1.29.2 (darwin/arm64) kubernetes/4b8e819"
#define GEN_NODE_GROUPS "\"system:bootstrappers\",\"system:nodes\",\"system:authenticated\""
#define GEN_SA_GROUPS                                                                              \
	"\"system:serviceaccounts\",\"system:serviceaccounts:kube-system\",\"system:"              \
	"authenticated\""
#define GEN_DEF_START "2024-04-05T05:50:00Z"

enum {
	GEN_STORY_NODE_DELETE = 1,
	GEN_STORY_LEASE_DELETE = 2,
	GEN_STORY_LEADER_CHANGE = 4,
	GEN_STORY_ALL = 7,
};

/* The actor kinds; gen_actor.idx indexes the table named in each comment. */
enum gen_kind {
	GEN_A_LEASE,  /* kubelet node lease controller: nodes[] */
	GEN_A_STATUS, /* kubelet node status loop: nodes[] */
	GEN_A_ELECT,  /* leader-election candidate: cands[] */
	GEN_A_IDENT,  /* apiserver identity lease: idents[] */
	GEN_A_NOISE,  /* one stream of unrelated traffic */
	GEN_A_WATCH,  /* an open watch; watches[] */
	GEN_A_STORY,  /* one scripted step; state is the step */
};

/* States of the kubelet lease controller. */
enum { GEN_KL_UPDATE, GEN_KL_GET, GEN_KL_CREATE };

/* States of a leader-election candidate (GEN_E_R*: a stalled leader waking up). */
enum {
	GEN_E_LEAD,    /* leader: optimistic update every 2 s */
	GEN_E_WAIT,    /* candidate: get every 2-4.4 s */
	GEN_E_TAKE,    /* candidate: takeover update */
	GEN_E_STALLED, /* leader that stopped renewing: nothing in flight */
	GEN_E_RGET,    /* woken leader, slow path: get */
	GEN_E_RUPD,    /* woken leader, slow path: update, loses the race: 409 */
	GEN_E_RFAST,   /* 2 s later, optimistic update with the stale version: 409 */
	GEN_E_RSLOW,   /* falls back to get, sees the new holder, exits */
};

/* Scripted story steps, one actor each. */
enum {
	GEN_S_LD_DELETE,
	GEN_S_ND_DELETE,
	GEN_S_ND_GC_CNI,
	GEN_S_ND_GC_LEASE,
	GEN_S_ND_GC_CSI,
	GEN_S_ND_RESTART,
	GEN_S_LC_STALL,
	GEN_S_COUNT,
};

/* Identities used by the noise table, the stories and the control plane. */
enum {
	GEN_W_KUBELET, /* pseudo: a random live node's kubelet */
	GEN_W_ADMIN,
	GEN_W_SCHED,
	GEN_W_RS,
	GEN_W_EP,
	GEN_W_CNI,
	GEN_W_APP,
	GEN_W_APISERVER,
	GEN_W_GC0,
	GEN_W_GC1,
	GEN_W_COUNT,
};

/* How the noise table builds a request. */
enum { GEN_Z_GET, GEN_Z_LIST, GEN_Z_CREATE, GEN_Z_PATCH, GEN_Z_WATCH };
enum { GEN_N_NONE, GEN_N_POD, GEN_N_EVENT, GEN_N_FIXED };

/* Shapes of responseStatus. */
enum { GEN_ST_PLAIN, GEN_ST_DELETED, GEN_ST_FAIL };

struct gen_opts {
	long nodes;
	long minutes;
	long split;
	uint64_t seed;
	int64_t start;
	double noise;
	unsigned stories;
	bool rr;
	const char *out;
	struct gen_log_opts logs;
};

/* A prebuilt `"user":{…},"sourceIPs":[…],"userAgent":"…",` fragment. */
struct gen_who {
	struct gen_buf frag;
	const char *authz;
};

struct gen_lease {
	const char *ns;
	const char *name;
	const char *owner_uid; /* node leases: ownerReference uid, else NULL */
	const char *labels;    /* JSON object text, or NULL */
	char uid[37];
	char holder[128];
	uint64_t rv;
	int64_t created;
	int64_t acquire; /* 0: no acquireTime */
	int64_t renew;
	int duration;
	int transitions; /* < 0: no leaseTransitions */
	bool exists;
};

struct gen_node {
	char name[48];
	char ip[16];
	char uid[37];
	struct gen_who who;
	struct gen_lease lease;
	bool exists;
	uint32_t lease_actor;
	uint32_t status_actor;
};

struct gen_cand {
	unsigned comp;
	unsigned host;
	char ident[128];
	struct gen_lease seen; /* the lease as this candidate last read or wrote it */
	bool started;	       /* its start-up was reported to the logs (or is before the window) */
	uint64_t obs_rv;
	int64_t obs_t;
	struct gen_who who;
};

struct gen_comp {
	const char *name;
	struct gen_lease lease;
	int64_t stalled; /* actor index of a stalled leader, or -1 */
	int64_t take_end;
};

struct gen_host {
	char name[48];
	char ip[16];
};

struct gen_watch {
	char id[37];
	char uri[320];
	const struct gen_who *who;
	const char *resource;
	const char *ns;
	unsigned server;
};

struct gen_actor {
	struct gen_rng rng;
	int64_t t0;
	int64_t t1;
	uint32_t gen;
	uint32_t idx;
	uint8_t kind;
	uint8_t state;
	uint8_t tries;
	uint8_t server;
};

struct gen_hent {
	int64_t t;
	uint64_t seq;
	uint32_t actor;
	uint32_t gen;
};

struct gen_out {
	FILE *f;
	struct gen_buf buf;
	bool failed;
};

struct gen_ref {
	const char *resource;
	const char *ns;
	const char *name;
	const char *uid;
	const char *group;
	const char *version; /* NULL: v1 */
	const char *sub;
	uint64_t rv; /* 0: absent */
};

struct gen_ev {
	const char *level;
	const char *stage;
	const char *verb;
	const char *uri;
	const struct gen_who *who;
	struct gen_ref ref;
	int code;
	int st;
	const char *reason;
	const char *msg;
	const char *del_uid;
	const struct gen_buf *reqobj;
	const struct gen_buf *respobj;
	int64_t t0;
	int64_t t1;
	unsigned server;
	char id[37];
};

struct gen_pod {
	const char *ns;
	char name[64];
};

struct gen_nz {
	unsigned weight;
	unsigned who;
	const char *verb;
	const char *resource;
	const char *sub;
	unsigned name;
	const char *fixed; /* object name, or the watch's fieldSelector */
	const char *ns;	   /* NULL: the pod's; "": cluster-wide */
	int code;
	unsigned kind;
};

struct gen_ctx {
	const struct gen_opts *o;
	int64_t t_start;
	int64_t t_end;
	uint64_t rv;
	unsigned napi;
	struct gen_out *outs;
	unsigned nouts;
	struct gen_node *nodes;
	size_t nnodes;
	struct gen_actor *actors;
	struct gen_watch *watches; /* parallel to actors */
	size_t nactors;
	size_t cap_actors;
	uint32_t *free_ids;
	size_t nfree;
	struct gen_hent *heap;
	size_t nheap;
	size_t cap_heap;
	uint64_t seq;
	uint64_t nwatch;
	struct gen_host *hosts; /* one per apiserver */
	struct gen_lease *idents;
	struct gen_cand cands[4];
	struct gen_comp comps[2];
	struct gen_who w[GEN_W_COUNT];
	struct gen_pod pods[GEN_NPODS];
	uint32_t story[GEN_S_COUNT];
	double noise_gap; /* mean µs between two requests of one noise stream */
	struct gen_buf reqb;
	struct gen_buf respb;
	struct gen_buf urib; /* noise URIs */
	char uri[512];
	char msg[384];
	struct gen_log *log; /* NULL: no kubelet/kcm logs asked for */
};

/* ---------------------------------------------------------------- PRNG */

/* Returns the next splitmix64 output and advances *x; used only for seeding. */
static uint64_t gen_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Seeds r for one stream of the run: same seed and stream, same sequence. */
void gen_rng_seed(struct gen_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL ^ (stream + 1) * 0xd1b54a32d192ed03ULL;
	for (int i = 0; i < 4; i++)
		r->s[i] = gen_splitmix(&x);
}

/* Rotates x left by k bits (0 < k < 64). */
static uint64_t gen_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* Returns the next xoshiro256** output of r. */
uint64_t gen_next(struct gen_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = gen_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = gen_rotl(s[3], 45);
	return res;
}

/* Returns a uniform integer in [lo, hi]; needs hi >= lo (modulo bias is negligible here). */
int64_t gen_range(struct gen_rng *r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)(hi - lo) + 1;
	return lo + (int64_t)(gen_next(r) % span);
}

/* Returns a uniform double in [0, 1). */
double gen_unit(struct gen_rng *r)
{
	return (double)(gen_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Returns ln(x) for x > 0 without libm: scale into [1, 2), then the atanh series. */
static double gen_ln(double x)
{
	int e = 0;
	while (x >= 2.0) {
		x *= 0.5;
		e++;
	}
	while (x < 1.0) {
		x *= 2.0;
		e--;
	}
	double y = (x - 1.0) / (x + 1.0), y2 = y * y, term = y, sum = 0.0;
	for (int k = 1; k < 40; k += 2) {
		sum += term / k;
		term *= y2;
	}
	return 2.0 * sum + e * 0.69314718055994530942;
}

/* Returns an exponential variate of the given mean, capped at 8 means. */
double gen_exp(struct gen_rng *r, double mean)
{
	double v = -mean * gen_ln(1.0 - gen_unit(r));
	return v > 8.0 * mean ? 8.0 * mean : v;
}

/* Returns a request latency in µs: a floor plus an exponential tail of the given mean. */
static int64_t gen_lat(struct gen_rng *r, int64_t floor_us, double mean_us)
{
	return floor_us + (int64_t)gen_exp(r, mean_us);
}

/* Writes a random version-4 UUID, NUL-terminated, into out. */
void gen_uuid(char out[37], struct gen_rng *r)
{
	static const char hex[] = "0123456789abcdef";
	uint64_t a = gen_next(r), b = gen_next(r);
	a = (a & ~0xf000ULL) | 0x4000ULL;
	b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
	int k = 0;
	for (int i = 0; i < 32; i++) {
		if (i == 8 || i == 12 || i == 16 || i == 20)
			out[k++] = '-';
		uint64_t w = i < 16 ? a : b;
		out[k++] = hex[(w >> (60 - 4 * (i % 16))) & 15];
	}
	out[k] = '\0';
}

/* Writes n random characters of alphabet abc (NUL-terminated) into out. */
void gen_word(char *out, size_t n, const char *abc, struct gen_rng *r)
{
	size_t m = strlen(abc);
	for (size_t i = 0; i < n; i++)
		out[i] = abc[gen_next(r) % m];
	out[n] = '\0';
}

/* ------------------------------------------------------------- buffers */

/* Ends the program: nothing sensible can follow a failed allocation. */
static void gen_oom(void)
{
	fputs("lt-gen: out of memory\n", stderr);
	exit(2);
}

/* Returns calloc(n, size) or ends the program. */
void *gen_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		gen_oom();
	return p;
}

/* Grows *p (an array of *cap elements of size bytes) to hold at least need elements. */
static void gen_grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return;
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * size);
	if (!q)
		gen_oom();
	*p = q;
	*cap = n;
}

/* Appends n bytes of s to b. */
void gen_put(struct gen_buf *b, const char *s, size_t n)
{
	if (b->len + n > b->cap) {
		void *p = b->p;
		gen_grow(&p, &b->cap, b->len + n, 1);
		b->p = p;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

/* Appends the NUL-terminated string s to b. */
void gen_puts(struct gen_buf *b, const char *s)
{
	gen_put(b, s, strlen(s));
}

/* Appends the decimal digits of v to b. */
void gen_put_u64(struct gen_buf *b, uint64_t v)
{
	char t[24];
	size_t i = sizeof t;
	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	gen_put(b, t + i, sizeof t - i);
}

/* Appends s as a JSON string escaped like Go's encoding/json: quotes, backslash,
 * control characters, and also < > & (as \u003c \u003e \u0026). */
static void gen_put_json(struct gen_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;
	GEN_LIT(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&')
			continue;
		gen_put(b, run, (size_t)(s - run));
		run = s + 1;
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			gen_put(b, e, 2);
		} else if (c == '\n') {
			GEN_LIT(b, "\\n");
		} else {
			char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			gen_put(b, u, 6);
		}
	}
	gen_put(b, run, (size_t)(s - run));
	GEN_LIT(b, "\"");
}

/* Frees the memory of b and empties it. */
void gen_buf_free(struct gen_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* ---------------------------------------------------------------- time */

/* Converts days since 1970-01-01 to a civil date (H. Hinnant's algorithm). */
void gen_civil(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
	days += 719468;
	int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	unsigned doe = (unsigned)(days - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* Returns the days since 1970-01-01 of a civil date (inverse of gen_civil). */
static int64_t gen_days(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* Writes the n low decimal digits of v, zero-padded, at p. */
void gen_digits(char *p, uint64_t v, int n)
{
	while (n-- > 0) {
		p[n] = (char)('0' + v % 10);
		v /= 10;
	}
}

/* Appends the quoted UTC time of us (µs since the epoch, >= 0): with
 * micro = true as "YYYY-MM-DDTHH:MM:SS.uuuuuuZ", else "YYYY-MM-DDTHH:MM:SSZ".
 * Caches the date part of the last second: most events share it. */
static void gen_put_ts(struct gen_buf *b, int64_t us, bool micro)
{
	static int64_t last = -1;
	static char date[21];
	int64_t sec = us / GEN_SEC;
	if (sec != last) {
		int64_t y;
		unsigned m, d;
		int64_t rem = sec % 86400;
		gen_civil(sec / 86400, &y, &m, &d);
		memcpy(date, "\"0000-00-00T00:00:00", 20);
		gen_digits(date + 1, (uint64_t)y, 4);
		gen_digits(date + 6, m, 2);
		gen_digits(date + 9, d, 2);
		gen_digits(date + 12, (uint64_t)(rem / 3600), 2);
		gen_digits(date + 15, (uint64_t)(rem / 60 % 60), 2);
		gen_digits(date + 18, (uint64_t)(rem % 60), 2);
		last = sec;
	}
	gen_put(b, date, 20);
	if (micro) {
		char f[9] = ".000000Z";
		gen_digits(f + 1, (uint64_t)(us % GEN_SEC), 6);
		f[8] = '"';
		gen_put(b, f, 9);
	} else {
		GEN_LIT(b, "Z\"");
	}
}

/* Reads n decimal digits at s into *v; returns false unless all n are digits. */
static bool gen_num(const char *s, int n, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (unsigned)(s[i] - '0');
	}
	return true;
}

/* Reads an optional fraction and the zone ("Z" or ±hh:mm) at s; sets *frac (µs)
 * and *off (seconds east of UTC). Returns false on anything else. */
static bool gen_parse_zone(const char *s, int64_t *frac, int64_t *off)
{
	unsigned hh, mm;
	*frac = 0;
	*off = 0;
	if (*s == '.') {
		int n = 0;
		for (s++; *s >= '0' && *s <= '9'; s++, n++)
			if (n < 6)
				*frac = *frac * 10 + (*s - '0');
		if (n == 0)
			return false;
		for (; n < 6; n++)
			*frac *= 10;
	}
	if ((s[0] == 'Z' || s[0] == 'z') && s[1] == '\0')
		return true;
	if ((s[0] != '+' && s[0] != '-') || !gen_num(s + 1, 2, &hh) || s[3] != ':' ||
	    !gen_num(s + 4, 2, &mm) || s[6] != '\0' || hh > 23 || mm > 59)
		return false;
	*off = (s[0] == '-' ? -1 : 1) * (int64_t)(hh * 3600 + mm * 60);
	return true;
}

/* Parses an RFC 3339 time (1970..9999) into µs since the epoch; returns 0 or -1. */
static int gen_parse_time(const char *s, int64_t *out)
{
	unsigned y, mo, d, h, mi, se, m2, d2;
	int64_t y2, frac, off;
	if (strlen(s) < 20 || !gen_num(s, 4, &y) || s[4] != '-' || !gen_num(s + 5, 2, &mo) ||
	    s[7] != '-' || !gen_num(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't') ||
	    !gen_num(s + 11, 2, &h) || s[13] != ':' || !gen_num(s + 14, 2, &mi) || s[16] != ':' ||
	    !gen_num(s + 17, 2, &se) || !gen_parse_zone(s + 19, &frac, &off))
		return -1;
	if (y < 1971 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59)
		return -1;
	int64_t days = gen_days(y, mo, d);
	gen_civil(days, &y2, &m2, &d2);
	if (m2 != mo || d2 != d)
		return -1;
	*out = (days * 86400 + h * 3600 + mi * 60 + se - off) * GEN_SEC + frac;
	return 0;
}

/* Appends a Go time.Duration string of whole seconds ("7m46s", "5m0s"). */
static void gen_put_dur(struct gen_buf *b, unsigned secs)
{
	if (secs >= 60) {
		gen_put_u64(b, secs / 60);
		GEN_LIT(b, "m");
	}
	gen_put_u64(b, secs % 60);
	GEN_LIT(b, "s");
}

/* ------------------------------------------------------------- output */

/* Writes out the buffered bytes of o; remembers a write error. */
static void gen_flush(struct gen_out *o)
{
	if (o->buf.len && o->f && fwrite(o->buf.p, 1, o->buf.len, o->f) != o->buf.len)
		o->failed = true;
	o->buf.len = 0;
}

/* Appends an objectRef for r. */
static void gen_put_ref(struct gen_buf *b, const struct gen_ref *r)
{
	GEN_LIT(b, "\"objectRef\":{\"resource\":");
	gen_put_json(b, r->resource);
	if (r->ns) {
		GEN_LIT(b, ",\"namespace\":");
		gen_put_json(b, r->ns);
	}
	if (r->name) {
		GEN_LIT(b, ",\"name\":");
		gen_put_json(b, r->name);
	}
	if (r->uid) {
		GEN_LIT(b, ",\"uid\":");
		gen_put_json(b, r->uid);
	}
	if (r->group) {
		GEN_LIT(b, ",\"apiGroup\":");
		gen_put_json(b, r->group);
	}
	GEN_LIT(b, ",\"apiVersion\":");
	gen_put_json(b, r->version ? r->version : "v1");
	if (r->rv) {
		GEN_LIT(b, ",\"resourceVersion\":\"");
		gen_put_u64(b, r->rv);
		GEN_LIT(b, "\"");
	}
	if (r->sub) {
		GEN_LIT(b, ",\"subresource\":");
		gen_put_json(b, r->sub);
	}
	GEN_LIT(b, "}");
}

/* Appends the body shared by responseStatus and a Status object (obj), from
 * `"metadata":{}` to the closing brace; a successful Status object has no code. */
static void gen_put_status_tail(struct gen_buf *b, const struct gen_ev *e, bool obj)
{
	GEN_LIT(b, "\"metadata\":{}");
	if (e->st != GEN_ST_PLAIN) {
		if (e->st == GEN_ST_FAIL) {
			GEN_LIT(b, ",\"status\":\"Failure\",\"message\":");
			gen_put_json(b, e->msg);
			GEN_LIT(b, ",\"reason\":");
			gen_put_json(b, e->reason);
		} else {
			GEN_LIT(b, ",\"status\":\"Success\"");
		}
		GEN_LIT(b, ",\"details\":{\"name\":");
		gen_put_json(b, e->ref.name);
		if (e->ref.group) {
			GEN_LIT(b, ",\"group\":");
			gen_put_json(b, e->ref.group);
		}
		GEN_LIT(b, ",\"kind\":");
		gen_put_json(b, e->ref.resource);
		if (e->st == GEN_ST_DELETED) {
			GEN_LIT(b, ",\"uid\":");
			gen_put_json(b, e->del_uid);
		}
		GEN_LIT(b, "}");
	}
	if (!obj || e->st != GEN_ST_DELETED) {
		GEN_LIT(b, ",\"code\":");
		gen_put_u64(b, (uint64_t)e->code);
	}
	GEN_LIT(b, "}");
}

/* Renders e as one JSON line into the stream of its apiserver. */
static void gen_emit(struct gen_ctx *g, const struct gen_ev *e)
{
	struct gen_out *o = &g->outs[e->server % g->nouts];
	struct gen_buf *b = &o->buf;
	GEN_LIT(b, "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":");
	gen_put_json(b, e->level);
	GEN_LIT(b, ",\"auditID\":\"");
	gen_put(b, e->id, 36);
	GEN_LIT(b, "\",\"stage\":");
	gen_put_json(b, e->stage);
	GEN_LIT(b, ",\"requestURI\":");
	gen_put_json(b, e->uri);
	GEN_LIT(b, ",\"verb\":");
	gen_put_json(b, e->verb);
	GEN_LIT(b, ",");
	gen_put(b, e->who->frag.p, e->who->frag.len);
	gen_put_ref(b, &e->ref);
	GEN_LIT(b, ",\"responseStatus\":{");
	gen_put_status_tail(b, e, false);
	if (e->reqobj) {
		GEN_LIT(b, ",\"requestObject\":");
		gen_put(b, e->reqobj->p, e->reqobj->len);
	}
	if (e->respobj) {
		GEN_LIT(b, ",\"responseObject\":");
		gen_put(b, e->respobj->p, e->respobj->len);
	}
	GEN_LIT(b, ",\"requestReceivedTimestamp\":");
	gen_put_ts(b, e->t0, true);
	GEN_LIT(b, ",\"stageTimestamp\":");
	gen_put_ts(b, e->t1, true);
	GEN_LIT(b, ",\"annotations\":{\"authorization.k8s.io/decision\":\"allow\","
		   "\"authorization.k8s.io/reason\":");
	gen_put_json(b, e->who->authz);
	GEN_LIT(b, "}}\n");
	if (b->len >= GEN_FLUSH_AT)
		gen_flush(o);
}

/* Appends a Lease object; stored adds the server-set uid, resourceVersion and
 * creationTimestamp (absent from a create request). */
static void gen_put_lease(struct gen_buf *b, const struct gen_lease *l, bool stored)
{
	GEN_LIT(b, "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":{"
		   "\"name\":");
	gen_put_json(b, l->name);
	GEN_LIT(b, ",\"namespace\":");
	gen_put_json(b, l->ns);
	if (stored) {
		GEN_LIT(b, ",\"uid\":");
		gen_put_json(b, l->uid);
		GEN_LIT(b, ",\"resourceVersion\":\"");
		gen_put_u64(b, l->rv);
		GEN_LIT(b, "\",\"creationTimestamp\":");
		gen_put_ts(b, l->created, false);
	}
	if (l->labels) {
		GEN_LIT(b, ",\"labels\":");
		gen_puts(b, l->labels);
	}
	if (l->owner_uid) {
		GEN_LIT(b,
			",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":");
		gen_put_json(b, l->name);
		GEN_LIT(b, ",\"uid\":");
		gen_put_json(b, l->owner_uid);
		GEN_LIT(b, "}]");
	}
	GEN_LIT(b, "},\"spec\":{\"holderIdentity\":");
	gen_put_json(b, l->holder);
	GEN_LIT(b, ",\"leaseDurationSeconds\":");
	gen_put_u64(b, (uint64_t)l->duration);
	if (l->acquire) {
		GEN_LIT(b, ",\"acquireTime\":");
		gen_put_ts(b, l->acquire, true);
	}
	GEN_LIT(b, ",\"renewTime\":");
	gen_put_ts(b, l->renew, true);
	if (l->transitions >= 0) {
		GEN_LIT(b, ",\"leaseTransitions\":");
		gen_put_u64(b, (uint64_t)l->transitions);
	}
	GEN_LIT(b, "}}");
}

/* ------------------------------------------------------------- actors */

/* Orders heap entries by end time, then by scheduling order. */
static bool gen_hless(const struct gen_hent *a, const struct gen_hent *b)
{
	return a->t != b->t ? a->t < b->t : a->seq < b->seq;
}

/* Adds h to the min-heap. */
static void gen_heap_push(struct gen_ctx *g, struct gen_hent h)
{
	void *p = g->heap;
	gen_grow(&p, &g->cap_heap, g->nheap + 1, sizeof h);
	g->heap = p;
	size_t i = g->nheap++;
	while (i > 0 && gen_hless(&h, &g->heap[(i - 1) / 2])) {
		g->heap[i] = g->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	g->heap[i] = h;
}

/* Removes and returns the earliest entry; the heap must not be empty. */
static struct gen_hent gen_heap_pop(struct gen_ctx *g)
{
	struct gen_hent top = g->heap[0], last = g->heap[--g->nheap];
	size_t i = 0, n = g->nheap;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && gen_hless(&g->heap[c + 1], &g->heap[c]))
			c++;
		if (!gen_hless(&g->heap[c], &last))
			break;
		g->heap[i] = g->heap[c];
		i = c;
	}
	if (n)
		g->heap[i] = last;
	return top;
}

/* Returns realloc(p, size) or ends the program. */
void *gen_realloc(void *p, size_t size)
{
	void *q = realloc(p, size);
	if (!q)
		gen_oom();
	return q;
}

/* Returns a free actor slot: a finished watch's, or a new one. The parallel
 * arrays (actors, watches, free_ids) grow together, so freeing a slot never
 * allocates. May move g->actors. */
static uint32_t gen_actor_slot(struct gen_ctx *g)
{
	if (g->nfree)
		return g->free_ids[--g->nfree];
	if (g->nactors == g->cap_actors) {
		size_t cap = g->cap_actors ? 2 * g->cap_actors : 64;
		g->actors = gen_realloc(g->actors, cap * sizeof *g->actors);
		g->watches = gen_realloc(g->watches, cap * sizeof *g->watches);
		g->free_ids = gen_realloc(g->free_ids, cap * sizeof *g->free_ids);
		memset(g->actors + g->cap_actors, 0, (cap - g->cap_actors) * sizeof *g->actors);
		g->cap_actors = cap;
	}
	return (uint32_t)g->nactors++;
}

/* Creates an actor with its own random stream; returns its index. May move g->actors. */
static uint32_t gen_actor_new(struct gen_ctx *g, uint8_t kind, uint32_t idx, uint64_t stream)
{
	uint32_t ai = gen_actor_slot(g);
	struct gen_actor *a = &g->actors[ai];
	uint32_t gen = a->gen + 1;
	memset(a, 0, sizeof *a);
	a->gen = gen;
	a->kind = kind;
	a->idx = idx;
	gen_rng_seed(&a->rng, g->o->seed, stream);
	a->server = (uint8_t)gen_range(&a->rng, 0, g->napi - 1);
	return ai;
}

/* Schedules actor ai's next request over [t0, t1]; returns false (and
 * schedules nothing) when it would end after the window. */
static bool gen_sched(struct gen_ctx *g, uint32_t ai, int64_t t0, int64_t t1)
{
	struct gen_actor *a = &g->actors[ai];
	a->t0 = t0;
	a->t1 = t1;
	if (t1 >= g->t_end)
		return false;
	gen_heap_push(g, (struct gen_hent){t1, g->seq++, ai, a->gen});
	return true;
}

/* Drops whatever actor ai had in flight (its heap entry becomes stale). */
static void gen_cancel(struct gen_ctx *g, uint32_t ai)
{
	g->actors[ai].gen++;
}

/* Reports a story step to the log writer (a no-op without log options).
 * Draws nothing: the logs never perturb the audit streams. */
static void gen_fact(struct gen_ctx *g, uint8_t kind, uint32_t node, unsigned host, unsigned res,
		     int64_t t0, int64_t t1, const char *s)
{
	struct gen_fact f = {.t0 = t0,
			     .t1 = t1,
			     .node = node,
			     .kind = kind,
			     .host = (uint8_t)host,
			     .res = (uint8_t)res};
	if (!g->log)
		return;
	if (s)
		snprintf(f.s, sizeof f.s, "%s", s);
	gen_log_fact(g->log, &f);
}

/* Returns the control-plane host whose kube-controller-manager holds the lease. */
static unsigned gen_kcm_leader(const struct gen_ctx *g)
{
	return strcmp(g->comps[0].lease.holder, g->cands[0].ident) == 0 ? 0 : 1;
}

/* Starts an event for the request actor a has just finished. */
static void gen_ev_start(struct gen_ev *e, struct gen_actor *a, const struct gen_who *who,
			 const char *verb)
{
	memset(e, 0, sizeof *e);
	e->level = "Metadata";
	e->stage = "ResponseComplete";
	e->verb = verb;
	e->who = who;
	e->t0 = a->t0;
	e->t1 = a->t1;
	e->server = a->server;
	gen_uuid(e->id, &a->rng);
}

/* Sets e's URI and objectRef for lease l; query is appended to the URI
 * ("?timeout=10s" for kubelets), named = false addresses the collection. */
static void gen_ev_lease(struct gen_ctx *g, struct gen_ev *e, const struct gen_lease *l, bool named,
			 const char *query)
{
	snprintf(g->uri, sizeof g->uri, "/apis/coordination.k8s.io/v1/namespaces/%s/leases%s%s%s",
		 l->ns, named ? "/" : "", named ? l->name : "", query);
	e->uri = g->uri;
	e->level = g->o->rr ? "RequestResponse" : "Metadata";
	e->ref.resource = "leases";
	e->ref.ns = l->ns;
	e->ref.name = l->name;
	e->ref.group = GEN_COORD;
}

/* Turns e into a failure with the apiserver's usual message: 404 NotFound,
 * 409 Conflict (reason "Conflict") or 409 AlreadyExists (reason "AlreadyExists"). */
static void gen_fail(struct gen_ctx *g, struct gen_ev *e, int code, const char *reason)
{
	const char *gr = e->ref.group ? e->ref.group : "", *dot = e->ref.group ? "." : "";
	e->code = code;
	e->st = GEN_ST_FAIL;
	e->reason = reason;
	if (code == 404)
		snprintf(g->msg, sizeof g->msg, "%s%s%s \"%s\" not found", e->ref.resource, dot, gr,
			 e->ref.name);
	else if (strcmp(reason, "AlreadyExists") == 0)
		snprintf(g->msg, sizeof g->msg, "%s%s%s \"%s\" already exists", e->ref.resource,
			 dot, gr, e->ref.name);
	else
		snprintf(g->msg, sizeof g->msg,
			 "Operation cannot be fulfilled on %s%s%s \"%s\": the object has been "
			 "modified; please apply your changes to the latest version and try again",
			 e->ref.resource, dot, gr, e->ref.name);
	e->msg = g->msg;
}

/* At RequestResponse level, sets e's responseObject to the Status it failed or deleted with. */
static void gen_status_obj(struct gen_ctx *g, struct gen_ev *e)
{
	if (!g->o->rr)
		return;
	g->respb.len = 0;
	GEN_LIT(&g->respb, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",");
	gen_put_status_tail(&g->respb, e, true);
	e->respobj = &g->respb;
}

/* At RequestResponse level, sets e's requestObject (resp = false) or
 * responseObject (resp = true) to lease l. */
static void gen_lease_obj(struct gen_ctx *g, struct gen_ev *e, const struct gen_lease *l, bool resp,
			  bool stored)
{
	if (!g->o->rr)
		return;
	struct gen_buf *b = resp ? &g->respb : &g->reqb;
	b->len = 0;
	gen_put_lease(b, l, stored);
	if (resp)
		e->respobj = b;
	else
		e->reqobj = b;
}

/* Returns the wait of a 10 s renew loop with 4 % jitter (wait.JitterUntil,
 * sliding) plus the client's own few hundred µs. */
static int64_t gen_renew_gap(struct gen_rng *r)
{
	int64_t jitter = gen_range(r, 0, 400 * GEN_MSEC);
	return 10 * GEN_SEC + jitter + gen_range(r, 100, 1200);
}

/* Schedules kubelet lease actor ai's next request, in state st, starting at t0. */
static void gen_kl_next(struct gen_ctx *g, uint32_t ai, uint8_t st, int64_t t0)
{
	struct gen_actor *a = &g->actors[ai];
	int64_t lat = st == GEN_KL_UPDATE ? gen_lat(&a->rng, 1200, 1800)
		      : st == GEN_KL_GET  ? gen_lat(&a->rng, 600, 900)
					  : gen_lat(&a->rng, 3000, 5000);
	a->state = st;
	gen_sched(g, ai, t0, t0 + lat);
}

/* Kubelet renew: update (PUT) of the cached lease, 200 while it exists, else 404;
 * retries 5 times (reconnecting after the second failure, as the kubelet closes
 * its connections), then falls back to ensure-lease (GET). */
static void gen_kl_update(struct gen_ctx *g, uint32_t ai, struct gen_node *n)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_lease *l = &n->lease, req = *l;
	struct gen_ev e;
	gen_ev_start(&e, a, &n->who, "update");
	gen_ev_lease(g, &e, l, true, "?timeout=10s");
	e.ref.uid = l->uid;
	e.ref.rv = l->rv;
	req.renew = a->t0 - gen_range(&a->rng, 50, 400);
	gen_lease_obj(g, &e, &req, false, true);
	if (l->exists) {
		e.code = 200;
		l->renew = req.renew;
		l->rv = ++g->rv;
		gen_lease_obj(g, &e, l, true, true);
		gen_emit(g, &e);
		a->tries = 0;
		gen_kl_next(g, ai, GEN_KL_UPDATE, a->t1 + gen_renew_gap(&a->rng));
		return;
	}
	gen_fail(g, &e, 404, "NotFound");
	gen_status_obj(g, &e);
	gen_emit(g, &e);
	gen_fact(g, GEN_F_LEASE_404, a->idx, 0, 0, a->t0, a->t1, NULL);
	if (++a->tries >= 2)
		a->server = (uint8_t)gen_range(&a->rng, 0, g->napi - 1);
	if (a->tries < 5) {
		gen_kl_next(g, ai, GEN_KL_UPDATE, a->t1 + gen_range(&a->rng, 300, 1500));
	} else {
		a->tries = 0;
		gen_kl_next(g, ai, GEN_KL_GET, a->t1 + gen_range(&a->rng, 200, 1000));
	}
}

/* Kubelet ensure-lease: GET; 200 goes back to renewing, 404 creates the lease
 * if the Node exists (owner reference) and otherwise waits for the next sync. */
static void gen_kl_get(struct gen_ctx *g, uint32_t ai, struct gen_node *n)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_lease *l = &n->lease;
	struct gen_ev e;
	gen_ev_start(&e, a, &n->who, "get");
	gen_ev_lease(g, &e, l, true, "?timeout=10s");
	if (l->exists) {
		e.code = 200;
		gen_lease_obj(g, &e, l, true, true);
		gen_emit(g, &e);
		gen_kl_next(g, ai, GEN_KL_UPDATE, a->t1 + gen_range(&a->rng, 200, 1000));
		return;
	}
	gen_fail(g, &e, 404, "NotFound");
	gen_status_obj(g, &e);
	gen_emit(g, &e);
	if (!n->exists)
		gen_fact(g, GEN_F_OWNER_404, a->idx, 0, 0, a->t0, a->t1, NULL);
	if (n->exists)
		gen_kl_next(g, ai, GEN_KL_CREATE, a->t1 + gen_range(&a->rng, 1500, 6000));
	else
		gen_kl_next(g, ai, GEN_KL_GET, a->t1 + gen_renew_gap(&a->rng));
}

/* Kubelet create of its lease (owner: its Node): 201, then renews 10 s later. */
static void gen_kl_create(struct gen_ctx *g, uint32_t ai, struct gen_node *n)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_lease *l = &n->lease, req = *l;
	struct gen_ev e;
	gen_ev_start(&e, a, &n->who, "create");
	gen_ev_lease(g, &e, l, false, "?timeout=10s");
	req.renew = a->t0 - gen_range(&a->rng, 50, 400);
	req.owner_uid = n->uid;
	gen_lease_obj(g, &e, &req, false, false);
	if (l->exists) {
		gen_fail(g, &e, 409, "AlreadyExists");
		gen_status_obj(g, &e);
		gen_emit(g, &e);
		gen_kl_next(g, ai, GEN_KL_GET, a->t1 + gen_renew_gap(&a->rng));
		return;
	}
	e.code = 201;
	*l = req;
	l->exists = true;
	l->created = a->t1;
	l->rv = ++g->rv;
	gen_uuid(l->uid, &a->rng);
	gen_lease_obj(g, &e, l, true, true);
	gen_emit(g, &e);
	gen_kl_next(g, ai, GEN_KL_UPDATE, a->t1 + gen_renew_gap(&a->rng));
}

/* Runs the kubelet lease controller request that ends now. */
static void gen_lease_step(struct gen_ctx *g, uint32_t ai)
{
	struct gen_node *n = &g->nodes[g->actors[ai].idx];
	switch (g->actors[ai].state) {
	case GEN_KL_UPDATE:
		gen_kl_update(g, ai, n);
		break;
	case GEN_KL_GET:
		gen_kl_get(g, ai, n);
		break;
	default:
		gen_kl_create(g, ai, n);
		break;
	}
}

/* Schedules the kubelet's node status patch at t0 (nothing is audited while
 * the Node is gone: its GETs of the Node are not audited). */
static void gen_status_next(struct gen_ctx *g, uint32_t ai, int64_t t0)
{
	struct gen_actor *a = &g->actors[ai];
	gen_sched(g, ai, t0, t0 + gen_lat(&a->rng, 2500, 3000));
}

/* Kubelet node status: PATCH nodes/<node>/status, 200, at least every 5 min
 * (checked every 10 s); while the Node is deleted it only checks again. */
static void gen_status_step(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_node *n = &g->nodes[a->idx];
	struct gen_ev e;
	if (!n->exists) {
		gen_status_next(g, ai, a->t1 + gen_renew_gap(&a->rng));
		return;
	}
	gen_ev_start(&e, a, &n->who, "patch");
	snprintf(g->uri, sizeof g->uri, "/api/v1/nodes/%s/status?timeout=10s", n->name);
	e.uri = g->uri;
	e.ref.resource = "nodes";
	e.ref.name = n->name;
	e.ref.sub = "status";
	e.code = 200;
	g->rv++;
	gen_emit(g, &e);
	gen_status_next(g, ai, a->t1 + 300 * GEN_SEC + gen_range(&a->rng, 0, 10400 * GEN_MSEC));
}

/* ---------------------------------------------------- leader election */

/* Returns the latency of a candidate's request: get (update = false) or update. */
static int64_t gen_el_lat(struct gen_actor *a, bool update)
{
	return update ? gen_lat(&a->rng, 1500, 2000) : gen_lat(&a->rng, 600, 900);
}

/* Schedules candidate ai's next request in state st starting at t0. */
static void gen_el_next(struct gen_ctx *g, uint32_t ai, uint8_t st, int64_t t0)
{
	struct gen_actor *a = &g->actors[ai];
	bool update = st != GEN_E_WAIT && st != GEN_E_RGET && st != GEN_E_RSLOW;
	a->state = st;
	gen_sched(g, ai, t0, t0 + gen_el_lat(a, update));
}

/* Returns the next start of a candidate's get loop (wait.JitterUntil with the
 * 2 s retry period and client-go's jitter factor 1.2: 2.0-4.4 s). */
static int64_t gen_el_poll(struct gen_actor *a)
{
	int64_t jitter = (int64_t)(2.4 * GEN_SEC * gen_unit(&a->rng));
	return a->t1 + 2 * GEN_SEC + jitter + gen_range(&a->rng, 100, 900);
}

/* Candidate ai GETs its component's lease (200) and remembers when it last changed. */
static void gen_el_get(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_cand *c = &g->cands[a->idx];
	struct gen_lease *l = &g->comps[c->comp].lease;
	struct gen_ev e;
	gen_ev_start(&e, a, &c->who, "get");
	gen_ev_lease(g, &e, l, true, "?timeout=5s");
	e.code = 200;
	gen_lease_obj(g, &e, l, true, true);
	gen_emit(g, &e);
	c->seen = *l;
	if (l->rv != c->obs_rv) {
		c->obs_rv = l->rv;
		c->obs_t = a->t1;
	}
}

/* Candidate ai sends an update of its component's lease carrying v (v.rv is
 * the version it last saw); 200 commits v, a stale version gets 409 Conflict.
 * Returns whether it succeeded. */
static bool gen_el_update(struct gen_ctx *g, uint32_t ai, const struct gen_lease *v)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_cand *c = &g->cands[a->idx];
	struct gen_lease *l = &g->comps[c->comp].lease;
	struct gen_ev e;
	bool ok = l->rv == v->rv;
	gen_ev_start(&e, a, &c->who, "update");
	gen_ev_lease(g, &e, l, true, "?timeout=5s");
	e.ref.uid = l->uid;
	e.ref.rv = v->rv;
	gen_lease_obj(g, &e, v, false, true);
	if (ok) {
		e.code = 200;
		*l = *v;
		l->rv = ++g->rv;
		c->seen = *l;
		c->obs_rv = l->rv;
		c->obs_t = a->t1;
		gen_lease_obj(g, &e, l, true, true);
	} else {
		gen_fail(g, &e, 409, "Conflict");
		gen_status_obj(g, &e);
	}
	gen_emit(g, &e);
	return ok;
}

/* Returns the lease candidate c would write, based on the version it last saw:
 * as leader (its identity, same acquireTime and transitions) or as a new holder
 * (acquireTime now, transitions + 1). */
static struct gen_lease gen_el_view(const struct gen_cand *c, const struct gen_actor *a,
				    bool takeover)
{
	struct gen_lease v = c->seen;
	snprintf(v.holder, sizeof v.holder, "%s", c->ident);
	v.renew = a->t0 - 200;
	if (takeover) {
		v.acquire = v.renew;
		v.transitions++;
	}
	return v;
}

/* Candidate ai decides to take over at its get ending now: schedules its update
 * and, if the old leader is stalled, wakes it so that it races and loses. */
static void gen_el_takeover(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_comp *co = &g->comps[g->cands[a->idx].comp];
	int64_t now = a->t1, t0 = now + gen_range(&a->rng, 100, 500);
	int64_t t1 = t0 + 3000 + gen_el_lat(a, true);
	a->state = GEN_E_TAKE;
	gen_sched(g, ai, t0, t1);
	co->take_end = t1;
	if (co->stalled < 0)
		return;
	uint32_t old = (uint32_t)co->stalled;
	struct gen_actor *o = &g->actors[old];
	int64_t s0 = now + gen_range(&o->rng, 50, 300);
	int64_t s1 = s0 + gen_el_lat(o, false);
	o->state = GEN_E_RGET;
	gen_sched(g, old, s0, s1 < t1 - 100 ? s1 : t1 - 100);
	co->stalled = -1;
}

/* Runs the request of the woken old leader ai that ends now (GEN_E_R*). */
static void gen_el_woken(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_cand *c = &g->cands[a->idx];
	struct gen_lease v;
	switch (a->state) {
	case GEN_E_RGET: {
		int64_t t0, t1;
		gen_el_get(g, ai);
		c->obs_t = a->t1;
		t0 = a->t1 + gen_range(&a->rng, 100, 400);
		t1 = t0 + gen_el_lat(a, true);
		if (t1 <= g->comps[c->comp].take_end)
			t1 = g->comps[c->comp].take_end + gen_range(&a->rng, 300, 2000);
		a->state = GEN_E_RUPD;
		gen_sched(g, ai, t0, t1);
		break;
	}
	case GEN_E_RUPD:
	case GEN_E_RFAST:
		v = gen_el_view(c, a, false);
		gen_el_update(g, ai, &v);
		if (c->comp == 0)
			gen_fact(g,
				 a->state == GEN_E_RUPD ? GEN_F_LC_CONFLICT : GEN_F_LC_OPTIMISTIC,
				 0, c->host, 0, a->t0, a->t1, NULL);
		if (a->state == GEN_E_RUPD)
			gen_el_next(g, ai, GEN_E_RFAST,
				    a->t1 + 2 * GEN_SEC + gen_range(&a->rng, 0, 900));
		else
			gen_el_next(g, ai, GEN_E_RSLOW, a->t1 + gen_range(&a->rng, 200, 800));
		break;
	default: { /* GEN_E_RSLOW: sees the new holder; "leaderelection lost", restart */
		struct gen_fact f = {.t1 = a->t1, .kind = GEN_F_LC_LOST, .host = (uint8_t)c->host};
		gen_el_get(g, ai);
		snprintf(f.s, sizeof f.s, "%s", c->ident);
		snprintf(c->ident, sizeof c->ident, "%s_", g->hosts[c->host].name);
		gen_uuid(c->ident + strlen(c->ident), &a->rng);
		c->obs_rv = 0;
		c->started = true; /* GEN_F_LC_LOST carries the restart */
		gen_el_next(g, ai, GEN_E_WAIT, a->t1 + gen_range(&a->rng, 15, 30) * GEN_SEC);
		f.t0 = a->t0; /* the restarted process's first get */
		if (c->comp == 0 && g->log)
			gen_log_fact(g->log, &f);
		break;
	}
	}
}

/* Runs the leader-election request of candidate ai that ends now. */
static void gen_elect_step(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_cand *c = &g->cands[a->idx];
	struct gen_lease v;
	if (a->state == GEN_E_LEAD || a->state == GEN_E_TAKE) {
		bool take = a->state == GEN_E_TAKE, ok;
		v = gen_el_view(c, a, take);
		ok = gen_el_update(g, ai, &v);
		if (ok && take && c->comp == 0)
			gen_fact(g, GEN_F_LC_ACQUIRED, 0, c->host, 0, a->t0, a->t1, c->ident);
		if (ok)
			gen_el_next(g, ai, GEN_E_LEAD,
				    a->t1 + 2 * GEN_SEC + gen_range(&a->rng, 100, 900));
		else
			gen_el_next(g, ai, GEN_E_WAIT, gen_el_poll(a));
	} else if (a->state == GEN_E_WAIT) {
		struct gen_lease *l = &g->comps[c->comp].lease;
		uint64_t seen = c->obs_rv;
		gen_el_get(g, ai);
		if (!c->started && c->comp == 0)
			gen_fact(g, GEN_F_LC_START, 0, c->host, 0, a->t0, a->t1, NULL);
		c->started = true;
		if (seen == l->rv && strcmp(l->holder, c->ident) != 0 &&
		    a->t0 > c->obs_t + l->duration * GEN_SEC)
			gen_el_takeover(g, ai);
		else
			gen_el_next(g, ai, GEN_E_WAIT, gen_el_poll(a));
	} else {
		gen_el_woken(g, ai);
	}
}

/* Apiserver identity lease: update every 10 s by system:apiserver over loopback. */
static void gen_ident_step(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_lease *l = &g->idents[a->idx], req = *l;
	struct gen_ev e;
	gen_ev_start(&e, a, &g->w[GEN_W_APISERVER], "update");
	gen_ev_lease(g, &e, l, true, "");
	e.ref.uid = l->uid;
	e.ref.rv = l->rv;
	req.renew = a->t0 - gen_range(&a->rng, 50, 300);
	gen_lease_obj(g, &e, &req, false, true);
	*l = req;
	l->rv = ++g->rv;
	e.code = 200;
	gen_lease_obj(g, &e, l, true, true);
	gen_emit(g, &e);
	int64_t t0 = a->t1 + gen_renew_gap(&a->rng);
	gen_sched(g, ai, t0, t0 + gen_lat(&a->rng, 800, 1200));
}

/* --------------------------------------------------------------- noise */

static const struct gen_nz gen_noise_tab[] = {
    {18, GEN_W_KUBELET, "patch", "pods", "status", GEN_N_POD, NULL, NULL, 200, GEN_Z_PATCH},
    {10, GEN_W_KUBELET, "create", "events", NULL, GEN_N_EVENT, NULL, NULL, 201, GEN_Z_CREATE},
    {4, GEN_W_KUBELET, "watch", "configmaps", NULL, GEN_N_NONE, "metadata.name%3Dkube-root-ca.crt",
     NULL, 200, GEN_Z_WATCH},
    {8, GEN_W_SCHED, "create", "pods", "binding", GEN_N_POD, NULL, NULL, 201, GEN_Z_CREATE},
    {8, GEN_W_RS, "create", "pods", NULL, GEN_N_POD, NULL, NULL, 201, GEN_Z_CREATE},
    {10, GEN_W_EP, "get", "endpoints", NULL, GEN_N_FIXED, "kubernetes", "default", 200, GEN_Z_GET},
    {10, GEN_W_ADMIN, "list", "pods", NULL, GEN_N_NONE, NULL, NULL, 200, GEN_Z_LIST},
    {3, GEN_W_ADMIN, "get", "pods", NULL, GEN_N_FIXED, "nginx-7854ff8877-x2x5q", "default", 404,
     GEN_Z_GET},
    {4, GEN_W_ADMIN, "get", "configmaps", NULL, GEN_N_FIXED, "aws-auth", "kube-system", 200,
     GEN_Z_GET},
    {5, GEN_W_ADMIN, "list", "events", NULL, GEN_N_NONE, NULL, NULL, 200, GEN_Z_LIST},
    {8, GEN_W_CNI, "patch", "pods", NULL, GEN_N_POD, NULL, NULL, 200, GEN_Z_PATCH},
    {5, GEN_W_APP, "get", "configmaps", NULL, GEN_N_FIXED, "web-config", "prod", 404, GEN_Z_GET},
    {4, GEN_W_APP, "get", "configmaps", NULL, GEN_N_FIXED, "web-flags", "prod", 200, GEN_Z_GET},
    {3, GEN_W_SCHED, "watch", "pods", NULL, GEN_N_NONE,
     "status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed", "", 200, GEN_Z_WATCH},
};

/* Picks a row of gen_noise_tab by weight. */
static const struct gen_nz *gen_nz_pick(struct gen_rng *r)
{
	size_t n = sizeof gen_noise_tab / sizeof gen_noise_tab[0];
	int64_t total = 0, x;
	for (size_t i = 0; i < n; i++)
		total += gen_noise_tab[i].weight;
	x = gen_range(r, 0, total - 1);
	for (size_t i = 0; i < n; i++) {
		x -= gen_noise_tab[i].weight;
		if (x < 0)
			return &gen_noise_tab[i];
	}
	return &gen_noise_tab[0];
}

/* Returns the identity for a noise row: for kubelets, a random live node's. */
static const struct gen_who *gen_nz_who(struct gen_ctx *g, const struct gen_nz *z,
					struct gen_rng *r)
{
	if (z->who != GEN_W_KUBELET)
		return &g->w[z->who];
	size_t i = (size_t)gen_range(r, 0, (int64_t)g->nnodes - 1);
	return g->nodes[i].exists ? &g->nodes[i].who : &g->nodes[0].who;
}

/* Builds the NUL-terminated URI of a noise request into g->urib (watch: with timeoutSeconds secs).
 */
static void gen_nz_uri(struct gen_ctx *g, const struct gen_nz *z, const struct gen_ev *e,
		       unsigned secs)
{
	struct gen_buf *b = &g->urib;
	b->len = 0;
	GEN_LIT(b, "/api/v1");
	if (e->ref.ns) {
		GEN_LIT(b, "/namespaces/");
		gen_puts(b, e->ref.ns);
	}
	GEN_LIT(b, "/");
	gen_puts(b, z->resource);
	if (e->ref.name && (z->kind != GEN_Z_CREATE || z->sub)) {
		GEN_LIT(b, "/");
		gen_puts(b, e->ref.name);
	}
	if (z->sub) {
		GEN_LIT(b, "/");
		gen_puts(b, z->sub);
	}
	if (z->kind == GEN_Z_LIST)
		GEN_LIT(b, "?limit=500");
	if (z->kind == GEN_Z_WATCH) {
		GEN_LIT(b, "?allowWatchBookmarks=true&fieldSelector=");
		gen_puts(b, z->fixed);
		GEN_LIT(b, "&resourceVersion=");
		gen_put_u64(b, g->rv);
		GEN_LIT(b, "&timeout=");
		gen_put_dur(b, secs);
		GEN_LIT(b, "&timeoutSeconds=");
		gen_put_u64(b, secs);
		GEN_LIT(b, "&watch=true");
	}
	GEN_LIT(b, "\0");
}

/* Fills the objectRef of a noise request; name is scratch space for an event name. */
static void gen_nz_ref(struct gen_ctx *g, const struct gen_nz *z, struct gen_ev *e,
		       struct gen_rng *r, char name[96])
{
	const struct gen_pod *p = &g->pods[gen_range(r, 0, GEN_NPODS - 1)];
	e->ref.resource = z->resource;
	e->ref.sub = z->sub;
	e->ref.ns = z->ns ? (*z->ns ? z->ns : NULL) : p->ns;
	if (z->name == GEN_N_POD) {
		e->ref.name = p->name;
	} else if (z->name == GEN_N_FIXED) {
		e->ref.name = z->fixed;
	} else if (z->name == GEN_N_EVENT) {
		snprintf(name, 96, "%s.%016llx", p->name, (unsigned long long)(e->t0 * 1000 + 417));
		e->ref.name = name;
	}
}

/* Opens a watch actor that will write the ResponseComplete of watch e at t1. */
static void gen_watch_open(struct gen_ctx *g, const struct gen_ev *e, int64_t t1)
{
	uint32_t ai = gen_actor_new(g, GEN_A_WATCH, 0, (4ULL << 32) + g->nwatch++);
	struct gen_watch *w = &g->watches[ai];
	g->actors[ai].idx = ai;
	g->actors[ai].server = (uint8_t)e->server;
	memcpy(w->id, e->id, sizeof w->id);
	snprintf(w->uri, sizeof w->uri, "%s", e->uri);
	w->who = e->who;
	w->resource = e->ref.resource;
	w->ns = e->ref.ns;
	w->server = e->server;
	if (!gen_sched(g, ai, e->t0, t1)) {
		gen_cancel(g, ai);
		g->free_ids[g->nfree++] = ai;
	}
}

/* Writes the ResponseComplete of watch actor ai and frees it. */
static void gen_watch_step(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_watch *w = &g->watches[ai];
	struct gen_ev e;
	gen_ev_start(&e, a, w->who, "watch");
	memcpy(e.id, w->id, sizeof e.id);
	e.uri = w->uri;
	e.ref.resource = w->resource;
	e.ref.ns = w->ns;
	e.code = 200;
	e.server = w->server;
	gen_emit(g, &e);
	g->free_ids[g->nfree++] = ai;
}

/* Writes one unrelated request (a watch writes its ResponseStarted and opens a
 * watch actor), then schedules the stream's next arrival (Poisson). */
static void gen_noise_step(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	const struct gen_nz *z = gen_nz_pick(&a->rng);
	struct gen_ev e;
	char name[96];
	unsigned secs = (unsigned)gen_range(&a->rng, 300, 599);
	gen_ev_start(&e, a, gen_nz_who(g, z, &a->rng), z->verb);
	e.server = (unsigned)gen_range(&a->rng, 0, g->napi - 1);
	gen_nz_ref(g, z, &e, &a->rng, name);
	if (z->kind == GEN_Z_WATCH)
		e.ref.name = NULL;
	gen_nz_uri(g, z, &e, secs);
	e.uri = g->urib.p;
	e.code = z->code;
	if (z->code == 404)
		gen_fail(g, &e, 404, "NotFound");
	if (z->kind == GEN_Z_CREATE || z->kind == GEN_Z_PATCH)
		g->rv++;
	if (z->kind == GEN_Z_WATCH)
		e.stage = "ResponseStarted";
	gen_emit(g, &e);
	int64_t t0 = a->t0 + (int64_t)gen_exp(&a->rng, g->noise_gap);
	if (t0 <= a->t1)
		t0 = a->t1 + gen_range(&a->rng, 50, 500);
	int64_t lat =
	    z->kind == GEN_Z_LIST ? gen_lat(&a->rng, 3000, 12000) : gen_lat(&a->rng, 900, 2500);
	int64_t wend = e.t0 + secs * GEN_SEC + gen_range(&a->rng, 200, 3000);
	gen_sched(g, ai, t0, t0 + lat);
	if (z->kind == GEN_Z_WATCH)
		gen_watch_open(g, &e, wend); /* may move g->actors */
}

/* ------------------------------------------------------------- stories */

/* Starts a story event by actor a as identity who, served by a random apiserver. */
static void gen_story_ev(struct gen_ev *e, struct gen_actor *a, const struct gen_who *who,
			 const char *verb, unsigned napi)
{
	gen_ev_start(e, a, who, verb);
	e->server = (unsigned)gen_range(&a->rng, 0, napi - 1);
}

/* At RequestResponse level, sets e's requestObject to DeleteOptions (GC: with a uid precondition).
 */
static void gen_delete_opts(struct gen_ctx *g, struct gen_ev *e, const char *precond_uid)
{
	if (!g->o->rr)
		return;
	g->reqb.len = 0;
	GEN_LIT(&g->reqb, "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"meta.k8s.io/__internal\",");
	if (precond_uid) {
		GEN_LIT(&g->reqb, "\"preconditions\":{\"uid\":");
		gen_put_json(&g->reqb, precond_uid);
		GEN_LIT(&g->reqb, "},");
	}
	GEN_LIT(&g->reqb, "\"propagationPolicy\":\"Background\"}");
	e->reqobj = &g->reqb;
}

/* DELETE of node n's lease by who: 200 (Status with details) or 404. */
static void gen_story_lease_delete(struct gen_ctx *g, struct gen_actor *a, struct gen_node *n,
				   const struct gen_who *who, unsigned server)
{
	struct gen_lease *l = &n->lease;
	struct gen_ev e;
	gen_story_ev(&e, a, who, "delete", g->napi);
	e.server = server;
	gen_ev_lease(g, &e, l, true, "");
	gen_delete_opts(g, &e, who == &g->w[GEN_W_ADMIN] ? NULL : l->uid);
	if (l->exists) {
		e.code = 200;
		e.st = GEN_ST_DELETED;
		e.del_uid = l->uid;
		l->exists = false;
		g->rv++;
	} else {
		gen_fail(g, &e, 404, "NotFound");
	}
	gen_status_obj(g, &e);
	gen_emit(g, &e);
	if (who != &g->w[GEN_W_ADMIN])
		gen_fact(g, GEN_F_GC_DELETE, (uint32_t)(n - g->nodes), server, GEN_GC_LEASE, e.t0,
			 e.t1, l->uid);
}

/* DELETE of a cluster-scoped object named after node n (Node, CSINode, CNINode). */
static void gen_story_delete(struct gen_ctx *g, struct gen_actor *a, struct gen_node *n,
			     const struct gen_who *who, const char *res, const char *group,
			     const char *version, unsigned server)
{
	struct gen_ev e;
	char uid[37];
	gen_story_ev(&e, a, who, "delete", g->napi);
	e.server = server;
	if (group)
		snprintf(g->uri, sizeof g->uri, "/apis/%s/%s/%s/%s", group, version, res, n->name);
	else
		snprintf(g->uri, sizeof g->uri, "/api/v1/%s/%s", res, n->name);
	e.uri = g->uri;
	e.ref = (struct gen_ref){res, NULL, n->name, NULL, group, version, NULL, 0};
	e.code = 200;
	e.st = GEN_ST_DELETED;
	gen_uuid(uid, &a->rng);
	e.del_uid = group ? uid : n->uid;
	g->rv++;
	gen_emit(g, &e);
	if (group)
		gen_fact(g, GEN_F_GC_DELETE, (uint32_t)(n - g->nodes), server,
			 strcmp(res, "cninodes") == 0 ? GEN_GC_CNI : GEN_GC_CSI, e.t0, e.t1, uid);
}

/* Kubelet restart of deleted node n: create nodes (201), then its lease
 * controller and status loop start over on a fresh connection. */
static void gen_story_restart(struct gen_ctx *g, struct gen_actor *a, struct gen_node *n)
{
	struct gen_actor *la = &g->actors[n->lease_actor];
	struct gen_ev e;
	la->server = (uint8_t)gen_range(&a->rng, 0, g->napi - 1);
	gen_ev_start(&e, a, &n->who, "create");
	e.server = la->server;
	e.uri = "/api/v1/nodes";
	e.ref.resource = "nodes";
	e.ref.name = n->name;
	e.code = 201;
	n->exists = true;
	gen_uuid(n->uid, &a->rng);
	g->rv++;
	gen_emit(g, &e);
	gen_fact(g, GEN_F_RESTART, (uint32_t)(n - g->nodes), gen_kcm_leader(g), 0, e.t0, e.t1,
		 n->uid);
	gen_cancel(g, n->lease_actor);
	gen_cancel(g, n->status_actor);
	la->tries = 0;
	gen_kl_next(g, n->lease_actor, GEN_KL_GET, a->t1 + gen_range(&a->rng, 150, 900) * GEN_MSEC);
	g->actors[n->status_actor].server = la->server;
	gen_status_next(g, n->status_actor, a->t1 + gen_range(&a->rng, 1000, 10000) * GEN_MSEC);
}

/* Schedules story step s to start at t0, with a delete's latency. */
static void gen_story_at(struct gen_ctx *g, unsigned s, int64_t t0)
{
	uint32_t ai = g->story[s];
	gen_sched(g, ai, t0, t0 + gen_lat(&g->actors[ai].rng, 5000, 6000));
}

/* Admin deletes the Node; the garbage collector then deletes what it owned:
 * CNINode, Lease and CSINode, from the current controller-manager leader. */
static void gen_story_node_delete(struct gen_ctx *g, struct gen_actor *a, struct gen_node *n)
{
	unsigned host = gen_kcm_leader(g);
	gen_story_delete(g, a, n, &g->w[GEN_W_ADMIN], "nodes", NULL, NULL,
			 (unsigned)gen_range(&a->rng, 0, g->napi - 1));
	n->exists = false;
	gen_fact(g, GEN_F_NODE_DELETE, (uint32_t)(n - g->nodes), host, 0, a->t0, a->t1, n->uid);
	int64_t tl = a->t1 + gen_range(&a->rng, 10, 40) * GEN_MSEC;
	for (unsigned s = GEN_S_ND_GC_CNI; s <= GEN_S_ND_GC_CSI; s++)
		g->actors[g->story[s]].server = (uint8_t)host;
	gen_story_at(g, GEN_S_ND_GC_CNI, tl - gen_range(&a->rng, 1000, 2000));
	gen_story_at(g, GEN_S_ND_GC_LEASE, tl);
	gen_story_at(g, GEN_S_ND_GC_CSI, tl + gen_range(&a->rng, 100, 300));
}

/* The controller-manager leader stops renewing: its request in flight is lost. */
static void gen_story_stall(struct gen_ctx *g, int64_t t)
{
	for (uint32_t i = 0; i < 2; i++) {
		struct gen_cand *c = &g->cands[i];
		if (strcmp(g->comps[0].lease.holder, c->ident) != 0)
			continue;
		for (uint32_t ai = 0; ai < g->nactors; ai++) {
			struct gen_actor *a = &g->actors[ai];
			if (a->kind == GEN_A_ELECT && a->idx == i) {
				gen_cancel(g, ai);
				a->state = GEN_E_STALLED;
				g->comps[0].stalled = ai;
			}
		}
		gen_fact(g, GEN_F_LC_STALL, 0, c->host, 0, t, t, c->ident);
	}
}

/* Runs story step ai (its state says which). */
static void gen_story_step(struct gen_ctx *g, uint32_t ai)
{
	struct gen_actor *a = &g->actors[ai];
	struct gen_node *nd = &g->nodes[g->nnodes - 1];
	struct gen_node *ld = &g->nodes[g->nnodes >= 3 ? 1 : 0];
	const struct gen_who *gc = &g->w[a->server ? GEN_W_GC1 : GEN_W_GC0];
	switch (a->state) {
	case GEN_S_LD_DELETE:
		gen_story_lease_delete(g, a, ld, &g->w[GEN_W_ADMIN],
				       (unsigned)gen_range(&a->rng, 0, g->napi - 1));
		break;
	case GEN_S_ND_DELETE:
		gen_story_node_delete(g, a, nd);
		break;
	case GEN_S_ND_GC_CNI:
		gen_story_delete(g, a, nd, gc, "cninodes", "vpcresources.k8s.aws", "v1alpha1",
				 a->server);
		break;
	case GEN_S_ND_GC_LEASE:
		gen_story_lease_delete(g, a, nd, gc, a->server);
		break;
	case GEN_S_ND_GC_CSI:
		gen_story_delete(g, a, nd, gc, "csinodes", "storage.k8s.io", "v1", a->server);
		break;
	case GEN_S_ND_RESTART:
		gen_story_restart(g, a, nd);
		break;
	default:
		gen_story_stall(g, a->t1);
		break;
	}
}

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

/* --------------------------------------------------------------- setup */

/* Builds w: the user/sourceIPs/userAgent fragment of one identity. groups is
 * JSON array content and extra a JSON object (or NULL); both are trusted text. */
static void gen_who_init(struct gen_who *w, const char *user, const char *uid, const char *groups,
			 const char *extra, const char *ip, const char *ua, const char *authz)
{
	struct gen_buf *b = &w->frag;
	GEN_LIT(b, "\"user\":{\"username\":");
	gen_put_json(b, user);
	if (uid) {
		GEN_LIT(b, ",\"uid\":");
		gen_put_json(b, uid);
	}
	GEN_LIT(b, ",\"groups\":[");
	gen_puts(b, groups);
	GEN_LIT(b, "]");
	if (extra) {
		GEN_LIT(b, ",\"extra\":");
		gen_puts(b, extra);
	}
	GEN_LIT(b, "},\"sourceIPs\":[");
	gen_put_json(b, ip);
	GEN_LIT(b, "],\"userAgent\":");
	gen_put_json(b, ua);
	GEN_LIT(b, ",");
	w->authz = authz;
}

/* Builds the identity of node n's kubelet: an EKS node role session. */
static void gen_node_who(struct gen_node *n, struct gen_rng *r)
{
	char key[17], principal[18], inst[18], uid[96], user[80], extra[640];
	const char *up = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	gen_word(key, 16, up, r);
	gen_word(principal, 17, up, r);
	gen_word(inst, 17, "0123456789abcdef", r);
	inst[0] = '0';
	snprintf(uid, sizeof uid, "aws-iam-authenticator:" GEN_ACCOUNT ":AROA%s", principal);
	snprintf(user, sizeof user, "system:node:%s", n->name);
	snprintf(extra, sizeof extra,
		 "{\"accessKeyId\":[\"ASIA%s\"],\"arn\":[\"arn:aws:sts::" GEN_ACCOUNT
		 ":assumed-role/eks-ng-general-NodeInstanceRole/i-%s\"],\"canonicalArn\":["
		 "\"arn:aws:iam::" GEN_ACCOUNT ":role/eks-ng-general-NodeInstanceRole\"],"
		 "\"principalId\":[\"AROA%s\"],\"sessionName\":[\"i-%s\"]}",
		 key, inst, principal, inst);
	gen_who_init(&n->who, user, uid, GEN_NODE_GROUPS, extra, n->ip, GEN_KUBELET_UA, "");
}

/* Sets up node i: EKS-style name from a unique 10.x.y.z address, its kubelet
 * identity, its lease, and its two actors with staggered phases. */
static void gen_node_init(struct gen_ctx *g, size_t i, unsigned k3, unsigned k4)
{
	struct gen_node *n = &g->nodes[i];
	struct gen_rng r;
	unsigned o2 = (unsigned)(i / 62500 % 256), o3 = (unsigned)((i / 250 % 250) * 11 + k3) % 250;
	unsigned o4 = 2 + (unsigned)((i % 250) * 97 + k4) % 250;
	gen_rng_seed(&r, g->o->seed, (6ULL << 32) + i);
	snprintf(n->ip, sizeof n->ip, "10.%u.%u.%u", o2, o3, o4);
	snprintf(n->name, sizeof n->name, "ip-10-%u-%u-%u.ec2.internal", o2, o3, o4);
	gen_uuid(n->uid, &r);
	gen_node_who(n, &r);
	n->exists = true;
	struct gen_lease *l = &n->lease;
	l->ns = "kube-node-lease";
	l->name = n->name;
	l->owner_uid = n->uid;
	gen_uuid(l->uid, &r);
	snprintf(l->holder, sizeof l->holder, "%s", n->name);
	l->rv = g->rv - (uint64_t)gen_range(&r, 1, 90000);
	l->created = g->t_start - gen_range(&r, 1, 30 * 86400) * GEN_SEC;
	l->renew = g->t_start - gen_range(&r, 0, 10 * GEN_SEC);
	l->duration = 40;
	l->transitions = -1;
	l->exists = true;
	n->lease_actor = gen_actor_new(g, GEN_A_LEASE, (uint32_t)i, 2 * (uint64_t)i);
	n->status_actor = gen_actor_new(g, GEN_A_STATUS, (uint32_t)i, 2 * (uint64_t)i + 1);
	g->actors[n->status_actor].server = g->actors[n->lease_actor].server;
	struct gen_actor *la = &g->actors[n->lease_actor], *sa = &g->actors[n->status_actor];
	gen_kl_next(g, n->lease_actor, GEN_KL_UPDATE,
		    g->t_start + gen_range(&la->rng, 0, 10400 * GEN_MSEC));
	gen_status_next(g, n->status_actor, g->t_start + gen_range(&sa->rng, 0, 300 * GEN_SEC));
}

/* Sets up the control-plane hosts (one per apiserver) and their identity leases. */
static void gen_hosts_init(struct gen_ctx *g, struct gen_rng *r)
{
	unsigned base = (unsigned)gen_range(r, 0, 31);
	for (unsigned h = 0; h < g->napi; h++) {
		struct gen_host *ho = &g->hosts[h];
		struct gen_lease *l = &g->idents[h];
		unsigned o3 = 32 + (base + h * 7) % 32, o4 = (unsigned)gen_range(r, 2, 254);
		char hash[17], *labels = gen_calloc(1, 160);
		snprintf(ho->ip, sizeof ho->ip, "172.16.%u.%u", o3, o4);
		snprintf(ho->name, sizeof ho->name, "ip-172-16-%u-%u.ec2.internal", o3, o4);
		gen_word(hash, 16, "abcdefghijklmnopqrstuvwxyz234567", r);
		l->ns = "kube-system";
		l->name = gen_calloc(1, 32);
		snprintf((char *)l->name, 32, "apiserver-%s", hash);
		snprintf(labels, 160,
			 "{\"apiserver.kubernetes.io/identity\":\"kube-apiserver\","
			 "\"kubernetes.io/hostname\":\"%s\"}",
			 ho->name);
		l->labels = labels;
		gen_uuid(l->uid, r);
		int n = snprintf(l->holder, sizeof l->holder, "%s_", l->name);
		gen_uuid(l->holder + n, r);
		l->rv = g->rv - (uint64_t)gen_range(r, 1, 90000);
		l->created = g->t_start - gen_range(r, 3600, 7 * 86400) * GEN_SEC;
		l->renew = g->t_start - gen_range(r, 0, 10 * GEN_SEC);
		l->duration = 3600;
		l->transitions = -1;
		l->exists = true;
		uint32_t ai = gen_actor_new(g, GEN_A_IDENT, h, (1ULL << 32) + 16 + h);
		int64_t t0 = g->t_start + gen_range(&g->actors[ai].rng, 0, 10 * GEN_SEC);
		g->actors[ai].server = (uint8_t)h;
		gen_sched(g, ai, t0, t0 + 1500);
	}
}

/* Sets up kube-controller-manager (leader on host 0) and kube-scheduler
 * (leader on host 1), each with one candidate on the other host. */
static void gen_elect_init(struct gen_ctx *g, struct gen_rng *r)
{
	static const char *const comp[2] = {"kube-controller-manager", "kube-scheduler"};
	static const char *const user[2] = {"system:kube-controller-manager",
					    "system:kube-scheduler"};
	static char authz[2][200], ua[2][120];
	for (unsigned k = 0; k < 2; k++) {
		struct gen_comp *co = &g->comps[k];
		snprintf(authz[k], sizeof authz[k],
			 "RBAC: allowed by ClusterRoleBinding \"%s\" of ClusterRole \"%s\" to User "
			 "\"%s\"",
			 user[k], user[k], user[k]);
		snprintf(ua[k], sizeof ua[k], "%s" GEN_K8S_UA "/leader-election", comp[k]);
		co->name = comp[k];
		co->stalled = -1;
		co->lease =
		    (struct gen_lease){.ns = "kube-system", .name = comp[k], .duration = 15};
		gen_uuid(co->lease.uid, r);
		co->lease.rv = g->rv - (uint64_t)gen_range(r, 1, 900);
		co->lease.created = g->t_start - gen_range(r, 10, 60) * 86400 * GEN_SEC;
		co->lease.acquire = g->t_start - gen_range(r, 3600 * GEN_SEC, 3 * 86400 * GEN_SEC);
		co->lease.renew = g->t_start - gen_range(r, 0, 2 * GEN_SEC);
		co->lease.transitions = (int)gen_range(r, 1, 6);
		co->lease.exists = true;
		for (unsigned h = 0; h < 2; h++) {
			struct gen_cand *c = &g->cands[2 * k + h];
			c->comp = k;
			c->host = h;
			int n = snprintf(c->ident, sizeof c->ident, "%s_", g->hosts[h].name);
			gen_uuid(c->ident + n, r);
			gen_who_init(&c->who, user[k], NULL, "\"system:authenticated\"", NULL,
				     g->hosts[h].ip, ua[k], authz[k]);
			uint32_t ai =
			    gen_actor_new(g, GEN_A_ELECT, 2 * k + h, (1ULL << 32) + 2 * k + h);
			struct gen_actor *a = &g->actors[ai];
			a->server = (uint8_t)h;
			if (h == k) {
				snprintf(co->lease.holder, sizeof co->lease.holder, "%s", c->ident);
				c->started = true;
				c->seen = co->lease;
				c->obs_rv = co->lease.rv;
				c->obs_t = g->t_start;
				gen_el_next(g, ai, GEN_E_LEAD,
					    g->t_start + gen_range(&a->rng, 0, 2 * GEN_SEC));
			} else {
				gen_el_next(g, ai, GEN_E_WAIT,
					    g->t_start + gen_range(&a->rng, 0, 4400 * GEN_MSEC));
			}
		}
	}
}

/* Random parts of the fixed identities, drawn in one fixed order. */
struct gen_ids {
	char key[17], pr[18], pod[6];
	char admin_ip[16], app_ip[16];
	char uid[8]
		[37]; /* 1: GC, 2: apiserver, 3: RS, 4: EP, 5: aws-node pod, 6: aws-node, 7: app */
};

/* Draws the random parts of the fixed identities (the order fixes the output). */
static void gen_ids_draw(struct gen_ids *d, struct gen_rng *r)
{
	const char *up = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	gen_word(d->key, 16, up, r);
	gen_word(d->pr, 17, up, r);
	unsigned a4 = (unsigned)gen_range(r, 2, 254);
	snprintf(d->admin_ip, sizeof d->admin_ip, "203.0.113.%u", a4);
	for (int i = 1; i < 6; i++)
		gen_uuid(d->uid[i], r);
	gen_word(d->pod, 5, "bcdfghjklmnpqrstvwxz2456789", r);
	gen_uuid(d->uid[6], r);
	unsigned o3 = (unsigned)gen_range(r, 64, 95);
	unsigned o4 = (unsigned)gen_range(r, 2, 254);
	snprintf(d->app_ip, sizeof d->app_ip, "10.0.%u.%u", o3, o4);
	gen_uuid(d->uid[7], r);
}

/* Builds the story and control-plane identities: kubectl admin, the garbage
 * collector on each control-plane host, and system:apiserver. */
static void gen_whos_control(struct gen_ctx *g, const struct gen_ids *d)
{
	char uid[96], extra[400];
	snprintf(uid, sizeof uid, "aws-iam-authenticator:" GEN_ACCOUNT ":AIDA%s", d->pr);
	snprintf(extra, sizeof extra,
		 "{\"accessKeyId\":[\"AKIA%s\"],\"arn\":[\"arn:aws:iam::" GEN_ACCOUNT
		 ":user/ops-admin\"],\"canonicalArn\":[\"arn:aws:iam::" GEN_ACCOUNT
		 ":user/ops-admin\"],\"principalId\":[\"AIDA%s\"],\"sessionName\":[\"\"]}",
		 d->key, d->pr);
	gen_who_init(&g->w[GEN_W_ADMIN], "kubernetes-admin", uid,
		     "\"system:masters\",\"system:authenticated\"", extra, d->admin_ip,
		     GEN_KUBECTL_UA, "");
	for (int h = 0; h < 2; h++)
		gen_who_init(&g->w[GEN_W_GC0 + h],
			     "system:serviceaccount:kube-system:generic-garbage-collector",
			     d->uid[1], GEN_SA_GROUPS, NULL, g->hosts[h].ip,
			     "kube-controller-manager" GEN_K8S_UA
			     "/system:serviceaccount:kube-system:generic-garbage-collector",
			     "RBAC: allowed by ClusterRoleBinding "
			     "\"system:controller:generic-garbage-collector\" of ClusterRole "
			     "\"system:controller:generic-garbage-collector\" to ServiceAccount "
			     "\"generic-garbage-collector/kube-system\"");
	gen_who_init(&g->w[GEN_W_APISERVER], "system:apiserver", d->uid[2], "\"system:masters\"",
		     NULL, "::1", "kube-apiserver" GEN_K8S_UA, "");
}

/* Builds the identities of the noise table (kubelets excepted: they are per node). */
static void gen_whos_noise(struct gen_ctx *g, const struct gen_ids *d)
{
	char extra[400];
	gen_who_init(&g->w[GEN_W_SCHED], "system:kube-scheduler", NULL, "\"system:authenticated\"",
		     NULL, g->hosts[1].ip, "kube-scheduler" GEN_K8S_UA "/scheduler",
		     "RBAC: allowed by ClusterRoleBinding \"system:kube-scheduler\" of ClusterRole "
		     "\"system:kube-scheduler\" to User \"system:kube-scheduler\"");
	gen_who_init(
	    &g->w[GEN_W_RS], "system:serviceaccount:kube-system:replicaset-controller", d->uid[3],
	    GEN_SA_GROUPS, NULL, g->hosts[0].ip,
	    "kube-controller-manager" GEN_K8S_UA
	    "/system:serviceaccount:kube-system:replicaset-controller",
	    "RBAC: allowed by ClusterRoleBinding \"system:controller:replicaset-controller\" "
	    "of ClusterRole \"system:controller:replicaset-controller\" to ServiceAccount "
	    "\"replicaset-controller/kube-system\"");
	gen_who_init(
	    &g->w[GEN_W_EP], "system:serviceaccount:kube-system:endpoint-controller", d->uid[4],
	    GEN_SA_GROUPS, NULL, g->hosts[0].ip,
	    "kube-controller-manager" GEN_K8S_UA
	    "/system:serviceaccount:kube-system:endpoint-controller",
	    "RBAC: allowed by ClusterRoleBinding \"system:controller:endpoint-controller\" "
	    "of ClusterRole \"system:controller:endpoint-controller\" to ServiceAccount "
	    "\"endpoint-controller/kube-system\"");
	snprintf(extra, sizeof extra,
		 "{\"authentication.kubernetes.io/pod-name\":[\"aws-node-%s\"],"
		 "\"authentication.kubernetes.io/pod-uid\":[\"%s\"]}",
		 d->pod, d->uid[5]);
	gen_who_init(
	    &g->w[GEN_W_CNI], "system:serviceaccount:kube-system:aws-node", d->uid[6],
	    GEN_SA_GROUPS, extra, g->nodes[0].ip,
	    "aws-node/v1.18.0 (linux/amd64) kubernetes/$Format",
	    "RBAC: allowed by ClusterRoleBinding \"aws-node\" of ClusterRole \"aws-node\" to "
	    "ServiceAccount \"aws-node/kube-system\"");
	gen_who_init(
	    &g->w[GEN_W_APP], "system:serviceaccount:prod:web", d->uid[7],
	    "\"system:serviceaccounts\",\"system:serviceaccounts:prod\",\"system:authenticated\"",
	    NULL, d->app_ip, "web/1.4.2 (linux/amd64) kubernetes/$Format",
	    "RBAC: allowed by RoleBinding \"web-config-reader/prod\" of Role \"config-reader\" "
	    "to ServiceAccount \"web/prod\"");
}

/* Builds the identities of the stories and of the noise table. */
static void gen_whos_init(struct gen_ctx *g, struct gen_rng *r)
{
	struct gen_ids d;
	gen_ids_draw(&d, r);
	gen_whos_control(g, &d);
	gen_whos_noise(g, &d);
}

/* Makes the pods the noise talks about, and the noise streams. */
static void gen_noise_init(struct gen_ctx *g, struct gen_rng *r)
{
	static const char *const ns[] = {"default", "prod",	   "prod",
					 "prod",    "kube-system", "monitoring"};
	static const char *const app[] = {"nginx", "web", "api", "worker", "coredns", "prometheus"};
	for (unsigned i = 0; i < GEN_NPODS; i++) {
		char a[11], b[6];
		gen_word(a, 10, "bcdfghjklmnpqrstvwxz2456789", r);
		gen_word(b, 5, "bcdfghjklmnpqrstvwxz2456789", r);
		g->pods[i].ns = ns[i % 6];
		snprintf(g->pods[i].name, sizeof g->pods[i].name, "%s-%s-%s", app[i % 6], a, b);
	}
	if (g->o->noise <= 0)
		return;
	g->noise_gap = GEN_NOISE_SLOTS * (double)GEN_SEC / g->o->noise;
	for (unsigned k = 0; k < GEN_NOISE_SLOTS; k++) {
		uint32_t ai = gen_actor_new(g, GEN_A_NOISE, k, (2ULL << 32) + k);
		struct gen_actor *a = &g->actors[ai];
		int64_t t0 = g->t_start + (int64_t)gen_exp(&a->rng, g->noise_gap);
		gen_sched(g, ai, t0, t0 + 1500);
	}
}

/* Creates the actors of the selected stories at their times (fractions of the window). */
static void gen_stories_init(struct gen_ctx *g)
{
	static const unsigned need[GEN_S_COUNT] = {
	    GEN_STORY_LEASE_DELETE,  GEN_STORY_NODE_DELETE, GEN_STORY_NODE_DELETE,
	    GEN_STORY_NODE_DELETE,   GEN_STORY_NODE_DELETE, GEN_STORY_NODE_DELETE,
	    GEN_STORY_LEADER_CHANGE,
	};
	static const int at[GEN_S_COUNT] = {20, 40, -1, -1,
					    -1, 80, 60}; /* percent; -1: triggered */
	int64_t w = g->t_end - g->t_start;
	for (unsigned s = 0; s < GEN_S_COUNT; s++) {
		if (!(g->o->stories & need[s]))
			continue;
		uint32_t ai = gen_actor_new(g, GEN_A_STORY, s, (3ULL << 32) + s);
		g->actors[ai].state = (uint8_t)s;
		g->story[s] = ai;
		if (at[s] >= 0)
			gen_story_at(g, s,
				     g->t_start + w * at[s] / 100 +
					 gen_range(&g->actors[ai].rng, 0, GEN_SEC));
	}
}

/* Opens the output streams: stdout, FILE, or FILE.1..FILE.N. Returns 0 or -1. */
static int gen_open(struct gen_ctx *g)
{
	g->nouts = (unsigned)g->o->split;
	g->outs = gen_calloc(g->nouts, sizeof *g->outs);
	for (unsigned i = 0; i < g->nouts; i++) {
		char path[4096];
		if (!g->o->out) { /* with log options and no -o: no audit log */
			g->outs[i].f = gen_log_wanted(&g->o->logs) ? NULL : stdout;
			continue;
		}
		if (g->nouts == 1)
			snprintf(path, sizeof path, "%s", g->o->out);
		else
			snprintf(path, sizeof path, "%s.%u", g->o->out, i + 1);
		g->outs[i].f = fopen(path, "wb");
		if (!g->outs[i].f) {
			fprintf(stderr, "lt-gen: cannot open %s: %s\n", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Flushes and closes the outputs; returns 0, or -1 after a write error. */
static int gen_close(struct gen_ctx *g)
{
	int rc = 0;
	for (unsigned i = 0; i < g->nouts && g->outs; i++) {
		struct gen_out *o = &g->outs[i];
		if (!o->f) {
			gen_buf_free(&o->buf);
			continue;
		}
		gen_flush(o);
		if (o->f == stdout ? fflush(o->f) != 0 : fclose(o->f) != 0)
			o->failed = true;
		if (o->failed && rc == 0) {
			fprintf(stderr, "lt-gen: write error: %s\n", strerror(errno));
			rc = -1;
		}
		gen_buf_free(&o->buf);
	}
	free(g->outs);
	return rc;
}

/* Sets up the log writer, if logs are asked for: it learns the names of the
 * nodes and hosts; the lease-delete node's journals use its short host name. */
static void gen_logs_init(struct gen_ctx *g)
{
	size_t ld = g->nnodes >= 3 ? 1 : 0;
	g->log = gen_log_new(&g->o->logs, g->o->seed, g->t_start, g->t_end, g->nnodes, g->napi, 0);
	if (!g->log)
		return;
	if (!(g->o->stories & GEN_STORY_LEASE_DELETE))
		ld = g->nnodes;
	for (size_t i = 0; i < g->nnodes; i++)
		gen_log_node(g->log, i, g->nodes[i].name, g->nodes[i].ip, i == ld);
	for (unsigned h = 0; h < g->napi; h++)
		gen_log_host(g->log, h, g->hosts[h].name);
}

/* Sets up the whole simulated cluster for options o. */
static void gen_init(struct gen_ctx *g, const struct gen_opts *o)
{
	struct gen_rng r;
	memset(g, 0, sizeof *g);
	g->o = o;
	g->t_start = o->start;
	g->t_end = o->start + o->minutes * 60 * GEN_SEC;
	g->napi = o->split > 2 ? (unsigned)o->split : 2;
	gen_rng_seed(&r, o->seed, 5ULL << 32);
	g->rv = 2000000 + (uint64_t)gen_range(&r, 0, 999999);
	g->nnodes = (size_t)o->nodes;
	g->nodes = gen_calloc(g->nnodes, sizeof *g->nodes);
	unsigned k3 = (unsigned)gen_range(&r, 0, 249), k4 = (unsigned)gen_range(&r, 0, 249);
	for (size_t i = 0; i < g->nnodes; i++)
		gen_node_init(g, i, k3, k4);
	g->hosts = gen_calloc(g->napi, sizeof *g->hosts);
	g->idents = gen_calloc(g->napi, sizeof *g->idents);
	gen_hosts_init(g, &r);
	gen_elect_init(g, &r);
	gen_whos_init(g, &r);
	gen_noise_init(g, &r);
	gen_stories_init(g);
	gen_logs_init(g);
}

/* Frees everything gen_init allocated. */
static void gen_release(struct gen_ctx *g)
{
	for (size_t i = 0; i < g->nnodes; i++)
		gen_buf_free(&g->nodes[i].who.frag);
	for (unsigned i = 0; i < g->napi; i++) {
		free((char *)g->idents[i].name);
		free((char *)g->idents[i].labels);
	}
	for (unsigned i = 0; i < 4; i++)
		gen_buf_free(&g->cands[i].who.frag);
	for (unsigned i = 0; i < GEN_W_COUNT; i++)
		gen_buf_free(&g->w[i].frag);
	gen_buf_free(&g->reqb);
	gen_buf_free(&g->respb);
	gen_buf_free(&g->urib);
	free(g->nodes);
	free(g->hosts);
	free(g->idents);
	free(g->actors);
	free(g->watches);
	free(g->free_ids);
	free(g->heap);
	gen_log_free(g->log);
}

/* ------------------------------------------------------------- options */

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

/* Parses the --stories list into a mask; returns 0 or -1 after a message. */
static int gen_parse_stories(const char *s, unsigned *out)
{
	static const struct {
		const char *name;
		unsigned bit;
	} tab[] = {{"steady", 0},
		   {"none", 0},
		   {"node-delete", GEN_STORY_NODE_DELETE},
		   {"lease-delete", GEN_STORY_LEASE_DELETE},
		   {"leader-change", GEN_STORY_LEADER_CHANGE}};
	*out = 0;
	while (*s) {
		size_t n = strcspn(s, ","), i;
		for (i = 0; i < sizeof tab / sizeof tab[0]; i++)
			if (strlen(tab[i].name) == n && memcmp(tab[i].name, s, n) == 0)
				break;
		if (i == sizeof tab / sizeof tab[0]) {
			fprintf(stderr, "lt-gen: unknown story '%.*s'\n", (int)n, s);
			return -1;
		}
		*out |= tab[i].bit;
		s += n + (s[n] == ',');
	}
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
