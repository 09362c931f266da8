/*
 * sample-gen-logs.h - private to the log half of lt-gen: sample-gen-logs.c
 * (options, story lines, kube-controller-manager) and sample-gen-journal.c
 * (kubelet noise, journal formats, the writers).
 */
#ifndef LT_SAMPLE_GEN_LOGS_H
#define LT_SAMPLE_GEN_LOGS_H

#include <stdio.h>

#include "sample-gen.h"

#define GL_MAX_FMTS    16
#define GL_NPODS       6
#define GL_KUBELET_VER "v1.29.0-eks-5e0fdde"
#define GL_KCM_VER     "v1.29.1-eks-b9c9ed7"
#define GL_KCM_PID     11u
#define GL_KCM_LOCK    "kube-system/kube-controller-manager"
#define GL_CA_BUNDLE   "client-ca-bundle::/etc/kubernetes/pki/ca.crt"

#if defined(__GNUC__)
#define GL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GL_PRINTF(f, a)
#endif

enum gl_fmt { GL_SHORT, GL_SHORT_PRECISE, GL_SHORT_ISO, GL_SHORT_ISO_PRECISE, GL_JSON, GL_CAT };

/* Who wrote a journal entry: the kubelet, systemd (PID 1) or containerd. */
enum gl_unit { GL_U_KUBELET, GL_U_SYSTEMD, GL_U_CONTAINERD };

/* One prepared log line: a whole klog line, or a non-klog message. */
struct gl_line {
	int64_t t;
	uint64_t seq; /* creation order: breaks ties in time */
	uint32_t node;
	uint32_t pid;
	uint8_t unit;
	char *text;
};

struct gl_lines {
	struct gl_line *v;
	size_t n;
	size_t cap;
};

struct gl_node {
	char name[48];
	char host[48];
	char ip[16];
	char boot[33];	    /* _BOOT_ID */
	char machine[33];   /* _MACHINE_ID */
	char seqid[33];	    /* the journal file's seqnum id (cursor s=) */
	char stream[3][33]; /* _STREAM_ID: kubelet, restarted kubelet, containerd */
	int64_t booted;	    /* boot time (µs): __MONOTONIC_TIMESTAMP = time - booted */
	uint64_t seqnum0;   /* seqnum of the node's first entry in the window */
	struct gen_rng rs;  /* story timing */
	uint32_t pid[2];    /* kubelet before and after a restart */
	uint32_t cpid;	    /* containerd */
	uint8_t fmt;
	uint8_t fails;	  /* lease updates failed in a row */
	bool gone;	  /* Node deleted (kcm pass) */
	int64_t del;	  /* Node deleted at (0: never) */
	int64_t stop;	  /* kubelet stopped for a restart at (0: never) */
	int64_t start;	  /* and started again at */
	int64_t last_err; /* last ensure-lease error line */
	int64_t gc_base;  /* when the GC processes what the Node owned */
	size_t first;	  /* its story lines: story.v[first .. first + count) */
	size_t count;
};

struct gen_log {
	struct gen_log_opts o;
	uint64_t seed;
	int64_t t_start;
	int64_t t_end;
	struct gl_node *nodes;
	size_t nnodes;
	char hosts[2][48];
	unsigned nhosts;
	unsigned lead0;
	uint8_t fmts[GL_MAX_FMTS];
	unsigned nfmts;
	struct gen_fact *facts;
	size_t nfacts;
	size_t cap_facts;
	struct gl_lines story;	/* kubelet-side story lines of every node */
	struct gl_lines kcm[2]; /* kube-controller-manager lines per host */
	int64_t lead_from[2];	/* kcm h runs its controllers in [lead_from, lead_to) */
	int64_t lead_to[2];
	uint64_t seq;
};

/* Appends a line made of printf(fmt, ...) to ls (time t, unit, pid). */
void gl_add(struct gen_log *l, struct gl_lines *ls, uint32_t node, int64_t t, uint8_t unit,
	    uint32_t pid, const char *fmt, ...) GL_PRINTF(7, 8);

/* Appends a klog line "Lmmdd hh:mm:ss.uuuuuu PID src] msg" to ls. */
void gl_klog(struct gen_log *l, struct gl_lines *ls, uint32_t node, int64_t t, uint32_t pid,
	     char lvl, const char *src, const char *fmt, ...) GL_PRINTF(8, 9);

/* Writes the klog header of level lvl at time t for thread pid into p (>= 32 bytes);
 * returns its length. */
size_t gl_klog_head(char *p, char lvl, int64_t t, uint32_t pid);

/* Writes n random lowercase hex digits and a NUL into out. */
void gl_hex(char *out, size_t n, struct gen_rng *r);

/* Writes the journals asked for (--journal-dir, --journal); returns 0 or -1. */
int gl_write_journals(struct gen_log *l);

#endif
