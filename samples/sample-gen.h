/*
 * sample-gen.h - what the two halves of lt-gen share: the audit simulation
 * (sample-gen.c and the files of sample-gen-sim.h) and sample-gen-logs.c
 * (the kubelet journals and kube-controller-manager logs that go with it).
 *
 * The simulation reports each story step that a component would log as a
 * "fact" (gen_log_fact); after the run, gen_log_write turns the facts and
 * its own routine noise into log files. The logs draw only from their own
 * random streams, so asking for them never changes the audit output.
 */
#ifndef LT_SAMPLE_GEN_H
#define LT_SAMPLE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GEN_SEC	 1000000LL
#define GEN_MSEC 1000LL

/* Appends a string literal (and only a literal) to a gen_buf. */
#define GEN_LIT(b, s) gen_put((b), "" s, sizeof(s) - 1)

struct gen_rng {
	uint64_t s[4];
};

struct gen_buf {
	char *p;
	size_t len;
	size_t cap;
};

/* Random streams (xoshiro256**): same seed and stream, same sequence. */
void gen_rng_seed(struct gen_rng *r, uint64_t seed, uint64_t stream);
uint64_t gen_next(struct gen_rng *r);
int64_t gen_range(struct gen_rng *r, int64_t lo, int64_t hi);
double gen_unit(struct gen_rng *r);
double gen_exp(struct gen_rng *r, double mean);
void gen_uuid(char out[37], struct gen_rng *r);
void gen_word(char *out, size_t n, const char *abc, struct gen_rng *r);

/* Memory and buffers; allocation failures end the program. */
void *gen_calloc(size_t n, size_t size);

/*
 * The one growth rule of lt-gen's arrays: *p (an array of *cap elements of
 * size bytes) grows to hold at least need elements, the capacity doubling
 * from 16; a size past SIZE_MAX ends the program like a failed allocation.
 */
void gen_grow(void **p, size_t *cap, size_t need, size_t size);

/* gen_grow for a typed array arr with capacity cap (a size_t lvalue). */
#define GEN_GROW(arr, cap, need)                                                                   \
	do {                                                                                       \
		void *gen_grow_p = (arr);                                                          \
		gen_grow(&gen_grow_p, &(cap), (need), sizeof *(arr));                              \
		(arr) = gen_grow_p;                                                                \
	} while (0)
void gen_put(struct gen_buf *b, const char *s, size_t n);
void gen_puts(struct gen_buf *b, const char *s);
void gen_put_u64(struct gen_buf *b, uint64_t v);
void gen_buf_free(struct gen_buf *b);

/* Civil date of days since 1970-01-01; n zero-padded digits of v at p. */
void gen_civil(int64_t days, int64_t *y, unsigned *m, unsigned *d);
void gen_digits(char *p, uint64_t v, int n);

/* ---------------------------------------------------------------- logs */

/* The log options (all NULL / 0: no logs). */
struct gen_log_opts {
	const char *dir;  /* --journal-dir: DIR/kubelet-<node>.log */
	const char *file; /* --journal: every node's kubelet lines, merged */
	const char *kcm;  /* --kcm-log: PREFIX.<host>.log */
	const char *fmts; /* --journal-format: comma list, one per node */
	double noise;	  /* --journal-noise: routine lines per node-minute */
	bool noise_set;
};

/* Story steps the simulation reports (see gen_log_fact). */
enum gen_fact_kind {
	GEN_F_LEASE_404,     /* kubelet lease update -> 404 (node, t1) */
	GEN_F_OWNER_404,     /* ensure-lease get -> 404 while the Node is gone (node, t1) */
	GEN_F_NODE_DELETE,   /* Node deleted (node, t1, host: kcm leader, s: node uid) */
	GEN_F_GC_DELETE,     /* GC delete of what the Node owned (node, t0, t1, res, s: uid) */
	GEN_F_RESTART,	     /* kubelet restart: create nodes (node, t0, t1, host: kcm leader) */
	GEN_F_LC_STALL,	     /* kcm leader stops renewing (host, t1) */
	GEN_F_LC_CONFLICT,   /* woken old leader's update -> 409 (host, t1) */
	GEN_F_LC_OPTIMISTIC, /* its optimistic update -> 409 (host, t1) */
	GEN_F_LC_LOST,	   /* it sees the new holder and exits (host, t1, t0: restart, s: ident) */
	GEN_F_LC_ACQUIRED, /* candidate takes over (host, t1, s: new holder identity) */
	GEN_F_LC_START,	   /* first get of a candidate started in the window (host, t0, t1) */
};

/* Objects the garbage collector deletes after a Node (GEN_F_GC_DELETE res). */
enum { GEN_GC_CNI, GEN_GC_LEASE, GEN_GC_CSI };

struct gen_fact {
	int64_t t0; /* request start (requestReceivedTimestamp), where it matters */
	int64_t t1; /* request end (stageTimestamp) */
	uint32_t node;
	uint8_t kind;
	uint8_t host;
	uint8_t res;
	char s[128];
};

struct gen_log;

/* Parses one log option (name, value). Returns 0 when taken, -1 after a
 * message on a bad value, 1 when name is not a log option. */
int gen_log_parse_opt(struct gen_log_opts *o, const char *name, const char *v);

/* Returns whether o asks for any log file. */
bool gen_log_wanted(const struct gen_log_opts *o);

/* Returns a new log writer for the window [t_start, t_end) of a cluster of
 * nnodes worker nodes and nhosts control-plane hosts (kcm runs on hosts 0
 * and 1, leader at first: host lead0), or NULL when o wants no logs. */
struct gen_log *gen_log_new(const struct gen_log_opts *o, uint64_t seed, int64_t t_start,
			    int64_t t_end, size_t nnodes, unsigned nhosts, unsigned lead0);

/* Names node i; short_host: its journals say the host name without domain. */
void gen_log_node(struct gen_log *l, size_t i, const char *name, const char *ip, bool short_host);

/* Names control-plane host h. */
void gen_log_host(struct gen_log *l, unsigned h, const char *name);

/* Records a fact; facts must come in stageTimestamp order. l may be NULL. */
void gen_log_fact(struct gen_log *l, const struct gen_fact *f);

/* Writes every log file asked for; returns 0, or -1 after a message. */
int gen_log_write(struct gen_log *l);

/* Frees l; NULL is a no-op. */
void gen_log_free(struct gen_log *l);

/* lt-gen --health LIST [options]: the node-health stories (sample-gen-health.c). */
int gen_health_main(int argc, char **argv);

#endif
