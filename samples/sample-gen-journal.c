/*
 * sample-gen-journal.c - kubelet journals: each node's stream of entries
 * (its story lines, routine kubelet lines, a few lines of other units) and
 * the two writers, one file per node (--journal-dir) or every node merged
 * in time order (--journal).
 *
 * A node's stream is a merge of three sources in journal-time order: its
 * prepared story lines, a Poisson stream of routine kubelet lines (random
 * stream (11 << 32) + i) and a slower one of systemd/containerd lines
 * ((12 << 32) + i). Both writers read the same streams, so a node's kubelet
 * lines are the same bytes in both; the merged file leaves the other units
 * out, as `journalctl -u kubelet` does. The merge holds one pending entry
 * per node in a heap: memory grows with the node count, not the output.
 *
 * Journal time: journald stamps an entry when it reads it, 25-375 µs after
 * the klog time (a hash of the time, so no random draw), never before the
 * previous kubelet entry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample-gen-logs.h"

#define GL_FLUSH_AT (1u << 20)
#define GL_NEVER    INT64_MAX

struct gl_pod {
	const char *ns;
	const char *ctr;
	char name[48];
	char uid[37];
	char ip[16];
};

/* One journal entry ready to print. */
struct gl_ent {
	int64_t t;  /* klog time */
	int64_t tj; /* journal time */
	uint64_t seqnum;
	uint32_t pid;
	uint8_t unit;
	bool kubelet; /* shown by journalctl -u kubelet */
	const char *text;
};

struct gl_stream {
	struct gen_rng rk; /* routine kubelet lines */
	struct gen_rng ro; /* other units */
	int64_t nk;	   /* time of the next routine kubelet line */
	int64_t no;	   /* and of the next other-unit line */
	size_t si;	   /* next story line */
	size_t se;
	int64_t last; /* journal time of the last kubelet entry */
	uint64_t nent;
	struct gl_pod pods[GL_NPODS];
	char kbuf[1024];
	char obuf[512];
};

static const char gl_alnum[] = "bcdfghjklmnpqrstvwxz2456789";
static const char *const gl_mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
				     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/* ------------------------------------------------------------ streams */

/* Returns the wait before the next line of a Poisson stream of rate per minute. */
static int64_t gl_gap(struct gen_rng *r, double rate)
{
	return rate > 0 ? 1 + (int64_t)gen_exp(r, 60.0 * GEN_SEC / rate) : GL_NEVER / 2;
}

/* Makes the pods node n runs: four DaemonSet pods and two of ReplicaSets. */
static void gl_pods(struct gl_stream *s, const struct gl_node *n)
{
	static const char *const ns[] = {"kube-system", "kube-system", "kube-system",
					 "prod",	"prod",	       "monitoring"};
	static const char *const app[] = {"aws-node", "kube-proxy", "ebs-csi-node",
					  "web",      "worker",	    "node-exporter"};
	static const char *const ctr[] = {"aws-node", "kube-proxy", "ebs-plugin",
					  "web",      "worker",	    "node-exporter"};
	for (int k = 0; k < GL_NPODS; k++) {
		struct gl_pod *p = &s->pods[k];
		char a[11], b[6];
		gen_word(a, 10, gl_alnum, &s->rk);
		gen_word(b, 5, gl_alnum, &s->rk);
		p->ns = ns[k];
		p->ctr = ctr[k];
		if (k == 3 || k == 4)
			snprintf(p->name, sizeof p->name, "%s-%s-%s", app[k], a, b);
		else
			snprintf(p->name, sizeof p->name, "%s-%s", app[k], b);
		gen_uuid(p->uid, &s->rk);
		if (k == 3 || k == 4)
			snprintf(p->ip, sizeof p->ip, "10.0.%u.%u",
				 (unsigned)gen_range(&s->rk, 64, 127),
				 (unsigned)(a[0] + b[0]) % 250 + 2);
		else
			snprintf(p->ip, sizeof p->ip, "%s", n->ip);
	}
}

/* Starts node i's stream at the window start. */
static void gl_stream_init(const struct gen_log *l, size_t i, struct gl_stream *s)
{
	const struct gl_node *n = &l->nodes[i];
	gen_rng_seed(&s->rk, l->seed, (11ULL << 32) + i);
	gen_rng_seed(&s->ro, l->seed, (12ULL << 32) + i);
	gl_pods(s, n);
	s->nk = l->t_start + gl_gap(&s->rk, l->o.noise);
	s->no = l->t_start + gl_gap(&s->ro, l->o.noise / 6);
	s->si = n->first;
	s->se = n->first + n->count;
	s->last = 0;
	s->nent = 0;
}

/* Returns journald's delay for an entry logged at t on node i (25-374 µs). */
static int64_t gl_delay(int64_t t, size_t i)
{
	uint64_t x = (uint64_t)t * 0x9e3779b97f4a7c15ULL ^ (uint64_t)i * 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 31;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 29;
	return 25 + (int64_t)(x % 350);
}

/* Writes a routine kubelet line at t (thread pid) into s->kbuf. */
static void gl_kubelet_noise(struct gl_stream *s, int64_t t, uint32_t pid)
{
	struct gen_rng *r = &s->rk;
	const struct gl_pod *p = &s->pods[gen_range(r, 0, GL_NPODS - 1)];
	const struct gl_pod *w = &s->pods[3 + gen_range(r, 0, 1)];
	int64_t kind = gen_range(r, 0, 99);
	char *o = s->kbuf, id[65];
	size_t n = sizeof s->kbuf, k;
	gl_hex(id, 64, r);
	if (kind < 30) {
		k = gl_klog_head(o, 'I', t, pid);
		snprintf(o + k, n - k,
			 "kubelet.go:2528] \"SyncLoop (probe)\" probe=\"%s\" status=\"%s\" "
			 "pod=\"%s/%s\"",
			 id[0] < 'c' ? "liveness" : "readiness", id[1] < '4' ? "" : "ready", p->ns,
			 p->name);
	} else if (kind < 44) {
		k = gl_klog_head(o, 'I', t, pid);
		snprintf(o + k, n - k,
			 "prober.go:107] \"Probe failed\" probeType=\"Readiness\" pod=\"%s/%s\" "
			 "podUID=\"%s\" containerName=\"%s\" probeResult=\"failure\" output=\"Get "
			 "\\\"http://%s:8080/healthz\\\": dial tcp %s:8080: connect: connection "
			 "refused\"",
			 w->ns, w->name, w->uid, w->ctr, w->ip, w->ip);
	} else if (kind < 52) {
		k = gl_klog_head(o, 'I', t, pid);
		snprintf(o + k, n - k, "scope.go:117] \"RemoveContainer\" containerID=\"%s\"", id);
	} else if (kind < 62) {
		k = gl_klog_head(o, 'I', t, pid);
		snprintf(o + k, n - k,
			 "kubelet.go:2453] \"SyncLoop UPDATE\" source=\"api\" pods=[\"%s/%s\"]",
			 p->ns, p->name);
	} else if (kind < 67) {
		k = gl_klog_head(o, 'W', t, pid);
		snprintf(o + k, n - k,
			 "reflector.go:539] object-\"%s\"/\"%s-config\": watch of *v1.ConfigMap "
			 "ended with: an error on the server (\"unable to decode an event from the "
			 "watch stream: http2: client connection lost\") has prevented the request "
			 "from succeeding",
			 w->ns, w->ctr);
	} else if (kind < 75) {
		k = gl_klog_head(o, 'E', t, pid);
		snprintf(o + k, n - k,
			 "pod_workers.go:1298] \"Error syncing pod, skipping\" err=\"failed to "
			 "\\\"StartContainer\\\" for \\\"worker\\\" with CrashLoopBackOff: "
			 "\\\"back-off 5m0s restarting failed container=worker "
			 "pod=%s_%s(%s)\\\"\" pod=\"%s/%s\" podUID=\"%s\"",
			 s->pods[4].name, s->pods[4].ns, s->pods[4].uid, s->pods[4].ns,
			 s->pods[4].name, s->pods[4].uid);
	} else if (kind < 82) {
		k = gl_klog_head(o, 'I', t, pid);
		snprintf(o + k, n - k,
			 "kubelet_getters.go:187] \"Pod status updated\" pod=\"%s/%s\" "
			 "status=\"Running\"",
			 p->ns, p->name);
	} else if (kind < 88) {
		unsigned o3 = (unsigned)gen_range(r, 0, 255), o4 = (unsigned)gen_range(r, 2, 254);
		unsigned port = (unsigned)gen_range(r, 32768, 60999);
		k = gl_klog_head(o, 'I', t, pid);
		snprintf(o + k, n - k,
			 "log.go:194] http: TLS handshake error from 10.0.%u.%u:%u: EOF", o3, o4,
			 port);
	} else if (kind < 94) {
		k = gl_klog_head(o, 'E', t, pid);
		snprintf(o + k, n - k,
			 "cadvisor_stats_provider.go:501] \"Partial failure issuing "
			 "cadvisor.ContainerInfoV2\" err=\"partial failures: "
			 "[\\\"/kubepods.slice/kubepods-burstable.slice/"
			 "kubepods-burstable-pod%.8s_%.4s_%.4s.slice/cri-containerd-%s.scope\\\": "
			 "RecentStats: unable to find data in memory cache]\"",
			 w->uid, w->uid + 9, w->uid + 14, id);
	} else {
		k = gl_klog_head(o, 'I', t, pid);
		snprintf(
		    o + k, n - k, "kubelet.go:%s] \"SyncLoop %s\" source=\"api\" pods=[\"%s/%s\"]",
		    id[0] < '8' ? "2439" : "2461", id[0] < '8' ? "ADD" : "DELETE", w->ns, w->name);
	}
}

/* Writes a line of another unit at t into s->obuf; returns its unit. */
static uint8_t gl_other_noise(struct gl_stream *s, int64_t t)
{
	struct gen_rng *r = &s->ro;
	int64_t kind = gen_range(r, 0, 3), y, sec = t / GEN_SEC, rem = sec % 86400;
	unsigned m, d, ns = (unsigned)gen_range(r, 0, 999);
	char id[65], tag[7];
	gl_hex(id, 64, r);
	gen_word(tag, 6, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", r);
	gen_civil(sec / 86400, &y, &m, &d);
	if (kind == 0)
		snprintf(s->obuf, sizeof s->obuf,
			 "Started cri-containerd-%s.scope - libcontainer container %s.", id, id);
	else if (kind == 1)
		snprintf(s->obuf, sizeof s->obuf,
			 "run-containerd-runc-k8s.io-%s-runc.%s.mount: Deactivated successfully.",
			 id, tag);
	else
		snprintf(s->obuf, sizeof s->obuf,
			 "time=\"%04u-%02u-%02uT%02u:%02u:%02u.%06u%03uZ\" level=info "
			 "msg=\"%s for \\\"%s\\\" returns successfully\"",
			 (unsigned)y, m, d, (unsigned)(rem / 3600), (unsigned)(rem / 60 % 60),
			 (unsigned)(rem % 60), (unsigned)(t % GEN_SEC), ns,
			 kind == 2 ? "RemoveContainer" : "StopPodSandbox", id);
	return kind < 2 ? GL_U_SYSTEMD : GL_U_CONTAINERD;
}

/* Returns the journal time of a kubelet entry logged at t (GL_NEVER stays). */
static int64_t gl_tj(const struct gl_stream *s, int64_t t, size_t i)
{
	if (t == GL_NEVER)
		return t;
	t += gl_delay(t, i);
	return t > s->last ? t : s->last + 1;
}

/* Makes the next entry of node i's stream in *e; returns false at the window end. */
static bool gl_next(const struct gen_log *l, size_t i, struct gl_stream *s, struct gl_ent *e)
{
	const struct gl_node *n = &l->nodes[i];
	for (;;) {
		int64_t ts = s->si < s->se ? l->story.v[s->si].t : GL_NEVER;
		int64_t tk = s->nk < l->t_end ? s->nk : GL_NEVER;
		int64_t to = s->no < l->t_end ? s->no : GL_NEVER;
		if (ts >= l->t_end)
			ts = GL_NEVER;
		if (ts == GL_NEVER && tk == GL_NEVER && to == GL_NEVER)
			return false;
		int64_t js = gl_tj(s, ts, i), jk = gl_tj(s, tk, i);
		int64_t jo = to == GL_NEVER ? GL_NEVER : to + gl_delay(to, i);
		if (js <= jk && js <= jo) {
			const struct gl_line *ln = &l->story.v[s->si++];
			if (ln->t < l->t_start)
				continue;
			*e = (struct gl_ent){ln->t, js, 0, ln->pid, ln->unit, true, ln->text};
			s->last = js;
		} else if (jk <= jo) {
			s->nk += gl_gap(&s->rk, l->o.noise);
			if (n->stop && tk >= n->stop && tk < n->start)
				continue; /* the kubelet is down */
			uint32_t pid = n->stop && tk >= n->start ? n->pid[1] : n->pid[0];
			gl_kubelet_noise(s, tk, pid);
			*e = (struct gl_ent){tk, jk, 0, pid, GL_U_KUBELET, true, s->kbuf};
			s->last = jk;
		} else {
			s->no += gl_gap(&s->ro, l->o.noise / 6);
			uint8_t unit = gl_other_noise(s, to);
			*e = (struct gl_ent){
			    to, jo, 0, unit == GL_U_SYSTEMD ? 1 : n->cpid, unit, false, s->obuf};
		}
		e->seqnum = n->seqnum0 + s->nent++;
		return true;
	}
}

/* ------------------------------------------------------------- formats */

/* Appends s as a JSON string (quotes, backslashes and control characters escaped). */
static void gl_put_json(struct gen_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;
	GEN_LIT(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		gen_put(b, run, (size_t)(s - run));
		run = s + 1;
		if (c == '"' || c == '\\') {
			char q[2] = {'\\', (char)c};
			gen_put(b, q, 2);
		} else {
			char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			gen_put(b, u, 6);
		}
	}
	gen_put(b, run, (size_t)(s - run));
	GEN_LIT(b, "\"");
}

/* Appends the journal time tj in format fmt (a short* one) and a space. */
static void gl_put_time(struct gen_buf *b, int64_t tj, uint8_t fmt)
{
	int64_t y, sec = tj / GEN_SEC, rem = sec % 86400;
	unsigned m, d;
	char p[48];
	int k;
	gen_civil(sec / 86400, &y, &m, &d);
	if (fmt == GL_SHORT || fmt == GL_SHORT_PRECISE)
		k = snprintf(p, sizeof p, "%s %02u %02u:%02u:%02u", gl_mon[m - 1], d,
			     (unsigned)(rem / 3600), (unsigned)(rem / 60 % 60),
			     (unsigned)(rem % 60));
	else
		k = snprintf(p, sizeof p, "%04u-%02u-%02uT%02u:%02u:%02u", (unsigned)y, m, d,
			     (unsigned)(rem / 3600), (unsigned)(rem / 60 % 60),
			     (unsigned)(rem % 60));
	if (fmt == GL_SHORT_PRECISE || fmt == GL_SHORT_ISO_PRECISE)
		k += snprintf(p + k, sizeof p - (size_t)k, ".%06u", (unsigned)(tj % GEN_SEC));
	if (fmt == GL_SHORT_ISO || fmt == GL_SHORT_ISO_PRECISE)
		k += snprintf(p + k, sizeof p - (size_t)k, "+00:00");
	p[k++] = ' ';
	gen_put(b, p, (size_t)k);
}

/* Appends one `"KEY":"value"` member (with a leading comma). */
static void gl_put_field(struct gen_buf *b, const char *key, const char *v)
{
	GEN_LIT(b, ",\"");
	gen_puts(b, key);
	GEN_LIT(b, "\":");
	gl_put_json(b, v);
}

/* Appends e as `journalctl -o json` prints it. */
static void gl_put_json_entry(struct gen_buf *b, const struct gl_node *n, const struct gl_ent *e)
{
	static const char *const ident[] = {"kubelet", "systemd", "containerd"};
	static const char *const exe[] = {"/usr/bin/kubelet", "/usr/lib/systemd/systemd",
					  "/usr/bin/containerd"};
	static const char *const unit[] = {"kubelet.service", "init.scope", "containerd.service"};
	uint64_t x = (uint64_t)gl_delay(e->tj, e->seqnum) * 0x2545f4914f6cdd1dULL ^ e->seqnum;
	char cur[200], num[24];
	snprintf(cur, sizeof cur, "s=%s;i=%llx;b=%s;m=%llx;t=%llx;x=%016llx", n->seqid,
		 (unsigned long long)e->seqnum, n->boot, (unsigned long long)(e->tj - n->booted),
		 (unsigned long long)e->tj, (unsigned long long)x);
	GEN_LIT(b, "{\"__CURSOR\":");
	gl_put_json(b, cur);
	snprintf(num, sizeof num, "%lld", (long long)e->tj);
	gl_put_field(b, "__REALTIME_TIMESTAMP", num);
	snprintf(num, sizeof num, "%lld", (long long)(e->tj - n->booted));
	gl_put_field(b, "__MONOTONIC_TIMESTAMP", num);
	gl_put_field(b, "_BOOT_ID", n->boot);
	gl_put_field(b, "_MACHINE_ID", n->machine);
	gl_put_field(b, "_HOSTNAME", n->host);
	gl_put_field(b, "PRIORITY", "6");
	gl_put_field(b, "SYSLOG_FACILITY", "3");
	gl_put_field(b, "_UID", "0");
	gl_put_field(b, "_GID", "0");
	gl_put_field(b, "_TRANSPORT", e->unit == GL_U_SYSTEMD ? "journal" : "stdout");
	gl_put_field(b, "SYSLOG_IDENTIFIER", ident[e->unit]);
	if (e->unit != GL_U_SYSTEMD)
		gl_put_field(b, "_STREAM_ID",
			     n->stream[e->unit == GL_U_CONTAINERD ? 2 : e->pid == n->pid[1]]);
	snprintf(num, sizeof num, "%u", e->pid);
	gl_put_field(b, "_PID", num);
	gl_put_field(b, "_COMM", ident[e->unit]);
	gl_put_field(b, "_EXE", exe[e->unit]);
	gl_put_field(b, "_SYSTEMD_CGROUP",
		     e->unit == GL_U_SYSTEMD   ? "/init.scope"
		     : e->unit == GL_U_KUBELET ? "/runtime.slice/kubelet.service"
					       : "/runtime.slice/containerd.service");
	gl_put_field(b, "_SYSTEMD_UNIT", unit[e->unit]);
	if (e->unit == GL_U_SYSTEMD && e->kubelet)
		gl_put_field(b, "UNIT", "kubelet.service");
	gl_put_field(b, "MESSAGE", e->text);
	GEN_LIT(b, "}\n");
}

/* Appends entry e of node n in format fmt. */
static void gl_put_entry(struct gen_buf *b, const struct gl_node *n, const struct gl_ent *e,
			 uint8_t fmt)
{
	static const char *const ident[] = {"kubelet[", "systemd[", "containerd["};
	if (fmt == GL_JSON) {
		gl_put_json_entry(b, n, e);
		return;
	}
	if (fmt != GL_CAT) {
		gl_put_time(b, e->tj, fmt);
		gen_puts(b, n->host);
		GEN_LIT(b, " ");
		gen_puts(b, ident[e->unit]);
		gen_put_u64(b, e->pid);
		GEN_LIT(b, "]: ");
	}
	gen_puts(b, e->text);
	GEN_LIT(b, "\n");
}

/* Appends "Fri 2024-04-05 05:50:00 UTC" for time t. */
static void gl_put_day(struct gen_buf *b, int64_t t)
{
	static const char *const wd[] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
	int64_t y, sec = t / GEN_SEC, rem = sec % 86400;
	unsigned m, d;
	char p[40];
	gen_civil(sec / 86400, &y, &m, &d);
	int k = snprintf(p, sizeof p, "%s %04u-%02u-%02u %02u:%02u:%02u UTC", wd[sec / 86400 % 7],
			 (unsigned)y, m, d, (unsigned)(rem / 3600), (unsigned)(rem / 60 % 60),
			 (unsigned)(rem % 60));
	gen_put(b, p, (size_t)k);
}

/* ------------------------------------------------------------- writers */

/* Writes n bytes of p to f (named path); returns 0 or -1 after a message. */
static int gl_fwrite(FILE *f, const char *path, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, f) != n) {
		fprintf(stderr, "lt-gen: write error on %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Writes DIR/kubelet-<node>.log for node i, every unit, in the node's format
 * (short formats start with journalctl's "-- Logs begin at" line). */
static int gl_write_node(const struct gen_log *l, size_t i, struct gl_stream *s, struct gen_buf *b,
			 struct gen_buf *head)
{
	const struct gl_node *n = &l->nodes[i];
	struct gl_ent e;
	int64_t last = l->t_start;
	char path[4096];
	int rc = 0;
	b->len = head->len = 0;
	gl_stream_init(l, i, s);
	while (gl_next(l, i, s, &e)) {
		gl_put_entry(b, n, &e, n->fmt);
		last = e.tj;
	}
	if (n->fmt <= GL_SHORT_ISO_PRECISE) {
		GEN_LIT(head, "-- Logs begin at ");
		gl_put_day(head, l->t_start);
		GEN_LIT(head, ", end at ");
		gl_put_day(head, last);
		GEN_LIT(head, ". --\n");
	}
	snprintf(path, sizeof path, "%s/kubelet-%s.log", l->o.dir, n->name);
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "lt-gen: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (gl_fwrite(f, path, head->p, head->len) != 0 || gl_fwrite(f, path, b->p, b->len) != 0)
		rc = -1;
	if (fclose(f) != 0 && rc == 0) {
		fprintf(stderr, "lt-gen: write error on %s: %s\n", path, strerror(errno));
		rc = -1;
	}
	return rc;
}

/* The merge heap: node indexes ordered by their pending entry's journal time. */
struct gl_heap {
	uint32_t *v;
	size_t n;
	const struct gl_ent *ents;
};

/* Returns whether node a's pending entry goes before node b's. */
static bool gl_hless(const struct gl_heap *h, uint32_t a, uint32_t b)
{
	int64_t ta = h->ents[a].tj, tb = h->ents[b].tj;
	return ta != tb ? ta < tb : a < b;
}

/* Moves the entry at slot i down to its place. */
static void gl_sift(struct gl_heap *h, size_t i)
{
	uint32_t x = h->v[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && gl_hless(h, h->v[c + 1], h->v[c]))
			c++;
		if (!gl_hless(h, h->v[c], x))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	h->v[i] = x;
}

/* Advances node i's stream to its next kubelet entry; returns false at its end. */
static bool gl_next_kubelet(const struct gen_log *l, size_t i, struct gl_stream *s,
			    struct gl_ent *e)
{
	while (gl_next(l, i, s, e))
		if (e->kubelet)
			return true;
	return false;
}

/* Pops the merge heap until empty, writing each entry to f (path). */
static int gl_merge(const struct gen_log *l, struct gl_stream *ss, struct gl_ent *ents,
		    struct gl_heap *h, FILE *f, const char *path)
{
	struct gen_buf b = {0};
	int rc = 0;
	while (h->n && rc == 0) {
		uint32_t i = h->v[0];
		gl_put_entry(&b, &l->nodes[i], &ents[i], l->fmts[0]);
		/* The entry's text may live in the stream's buffer: print, then advance. */
		if (!gl_next_kubelet(l, i, &ss[i], &ents[i]))
			h->v[0] = h->v[--h->n];
		if (h->n)
			gl_sift(h, 0);
		if (b.len >= GL_FLUSH_AT) {
			rc = gl_fwrite(f, path, b.p, b.len);
			b.len = 0;
		}
	}
	if (rc == 0)
		rc = gl_fwrite(f, path, b.p, b.len);
	gen_buf_free(&b);
	return rc;
}

/* Writes every node's kubelet entries to one file in journal-time order
 * (ties: lower node first), in the first --journal-format. */
static int gl_write_merged(const struct gen_log *l)
{
	struct gl_stream *ss = gen_calloc(l->nnodes, sizeof *ss);
	struct gl_ent *ents = gen_calloc(l->nnodes, sizeof *ents);
	struct gl_heap h = {gen_calloc(l->nnodes, sizeof *h.v), 0, ents};
	int rc = -1;
	FILE *f = fopen(l->o.file, "wb");
	if (!f) {
		fprintf(stderr, "lt-gen: cannot open %s: %s\n", l->o.file, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < l->nnodes; i++) {
		gl_stream_init(l, i, &ss[i]);
		if (gl_next_kubelet(l, i, &ss[i], &ents[i]))
			h.v[h.n++] = (uint32_t)i;
	}
	for (size_t i = h.n / 2; i-- > 0;)
		gl_sift(&h, i);
	rc = gl_merge(l, ss, ents, &h, f, l->o.file);
	if (fclose(f) != 0 && rc == 0) {
		fprintf(stderr, "lt-gen: write error on %s: %s\n", l->o.file, strerror(errno));
		rc = -1;
	}
out:
	free(h.v);
	free(ents);
	free(ss);
	return rc;
}

int gl_write_journals(struct gen_log *l)
{
	int rc = 0;
	if (l->o.dir) {
		struct gl_stream *s = gen_calloc(1, sizeof *s);
		struct gen_buf b = {0}, head = {0};
		for (size_t i = 0; i < l->nnodes && rc == 0; i++)
			rc = gl_write_node(l, i, s, &b, &head);
		gen_buf_free(&b);
		gen_buf_free(&head);
		free(s);
	}
	if (rc == 0 && l->o.file)
		rc = gl_write_merged(l);
	return rc;
}
