/*
 * parser-logwrap.c - a JSON object that wraps one log line.
 *
 * Log shippers put the line they read into a JSON record with what they
 * know of it, and CloudWatch (Container Insights), Cloud Logging or a file
 * keeps the record:
 *
 *   {"log":"I0405 06:04:04.422460 1 x.go:1] ...\n","stream":"stderr",
 *    "kubernetes":{"pod_name":"…","host":"ip-10-0-1-2…","container_name":"…"}}
 *   {"hostname":"ip-10-0-101-15.ec2.internal","systemd_unit":"kubelet.service",
 *    "message":"E0323 15:05:36.670951 6922 remote_runtime.go:734] ...",
 *    "az":"us-east-1a","ec2_instance_id":"i-…"}
 *
 * The first is a container's line (fluent-bit, fluentd: "log"), the second
 * a journal's (Container Insights dataplane and host logs: "message" or
 * "MESSAGE" beside a host name).  An application's own JSON ("message"
 * but no host) wraps nothing: it is a line in itself.  The values are read
 * by yajl from the outermost object (and its "kubernetes" object) and kept
 * in the caller's arena.
 */
#include "parser-json.h"

#include <string.h>

/* What a value is to the line. */
enum logwrap_slot {
	LW_LOG,	      /* "log": the line, whatever else the object holds */
	LW_MESSAGE,   /* "message", "MESSAGE": the line when a host is named too */
	LW_HOST,      /* hostname, host, _HOSTNAME, kubernetes.host */
	LW_UNIT,      /* systemd_unit, _SYSTEMD_UNIT: "kubelet.service" */
	LW_CONTAINER, /* kubernetes.container_name */
	LW_IDENT,     /* SYSLOG_IDENTIFIER, ident */
	LW_NSLOTS,
};

/* depth 1: the object's own keys; depth 2: inside its "kubernetes" object. */
static const struct logwrap_key {
	int depth;
	const char *key;
	enum logwrap_slot slot;
} logwrap_keys[] = {
    {1, "log", LW_LOG},
    {1, "message", LW_MESSAGE},
    {1, "MESSAGE", LW_MESSAGE},
    {1, "hostname", LW_HOST},
    {1, "host", LW_HOST},
    {1, "_HOSTNAME", LW_HOST},
    {1, "systemd_unit", LW_UNIT},
    {1, "_SYSTEMD_UNIT", LW_UNIT},
    {1, "SYSLOG_IDENTIFIER", LW_IDENT},
    {1, "ident", LW_IDENT},
    {2, "host", LW_HOST},
    {2, "container_name", LW_CONTAINER},
};

struct logwrap_run {
	struct lt_buf *arena;
	size_t off[LW_NSLOTS], len[LW_NSLOTS];
	int set[LW_NSLOTS];
	int depth;
	int in_k8s, k8s_next; /* inside the "kubernetes" object; the key just read names it */
	int slot;	      /* of the next value, -1 when it is not kept */
};

static int logwrap_string(void *ctx, const unsigned char *s, size_t n)
{
	struct logwrap_run *r = ctx;

	/* the first of several keys of one slot wins (kubernetes.host after hostname) */
	if (r->slot >= 0 && !r->set[r->slot]) {
		r->off[r->slot] = r->arena->len;
		r->len[r->slot] = n;
		r->set[r->slot] = 1;
		lt_buf_append(r->arena, s, n);
		lt_buf_putc(r->arena, '\0');
	}
	r->slot = -1;
	return 1;
}

static int logwrap_scalar(void *ctx)
{
	((struct logwrap_run *)ctx)->slot = -1;
	return 1;
}

static int logwrap_null(void *ctx)
{
	return logwrap_scalar(ctx);
}

static int logwrap_boolean(void *ctx, int b)
{
	(void)b;
	return logwrap_scalar(ctx);
}

static int logwrap_number(void *ctx, const char *s, size_t n)
{
	(void)s;
	(void)n;
	return logwrap_scalar(ctx);
}

static int logwrap_key(void *ctx, const unsigned char *k, size_t n)
{
	struct logwrap_run *r = ctx;

	r->slot = -1;
	r->k8s_next = r->depth == 1 && n == 10 && memcmp(k, "kubernetes", 10) == 0;
	if (r->depth > 2 || (r->depth == 2 && !r->in_k8s))
		return 1;
	for (size_t i = 0; i < sizeof logwrap_keys / sizeof *logwrap_keys; i++)
		if (logwrap_keys[i].depth == r->depth && strlen(logwrap_keys[i].key) == n &&
		    memcmp(logwrap_keys[i].key, k, n) == 0)
			r->slot = (int)logwrap_keys[i].slot;
	return 1;
}

static int logwrap_open(void *ctx, int is_map)
{
	struct logwrap_run *r = ctx;

	if (++r->depth == 2)
		r->in_k8s = is_map && r->k8s_next;
	r->k8s_next = 0;
	r->slot = -1;
	return 1;
}

static int logwrap_start_map(void *ctx)
{
	return logwrap_open(ctx, 1);
}

static int logwrap_start_array(void *ctx)
{
	return logwrap_open(ctx, 0);
}

static int logwrap_close(void *ctx)
{
	struct logwrap_run *r = ctx;

	if (r->depth-- == 2)
		r->in_k8s = 0;
	r->slot = -1;
	return 1;
}

static const yajl_callbacks logwrap_callbacks = {
    .yajl_null = logwrap_null,
    .yajl_boolean = logwrap_boolean,
    .yajl_number = logwrap_number,
    .yajl_string = logwrap_string,
    .yajl_start_map = logwrap_start_map,
    .yajl_map_key = logwrap_key,
    .yajl_end_map = logwrap_close,
    .yajl_start_array = logwrap_start_array,
    .yajl_end_array = logwrap_close,
};

static struct lt_str logwrap_str(const struct logwrap_run *r, enum logwrap_slot slot)
{
	if (!r->set[slot])
		return (struct lt_str){NULL, 0};
	return (struct lt_str){r->arena->ptr + r->off[slot], r->len[slot]};
}

/* "kubelet.service" names the kubelet; other units keep their name. */
static struct lt_str logwrap_unit(struct lt_str unit)
{
	static const char suffix[] = ".service";
	size_t k = sizeof suffix - 1;

	if (unit.len > k && memcmp(unit.ptr + unit.len - k, suffix, k) == 0)
		unit.len -= k;
	return unit;
}

int parser_logwrap_parse(struct parser_logwrap *out, struct lt_buf *arena, const char *s, size_t n)
{
	struct logwrap_run r;
	struct lt_str line;

	memset(out, 0, sizeof *out);
	if (n < 2 || s[0] != '{')
		return -1;
	memset(&r, 0, sizeof r);
	r.arena = arena;
	r.slot = -1;
	lt_buf_reset(arena);
	if (parser_json_run(&logwrap_callbacks, &r, NULL, "JSON", s, n, NULL, 0) != 0)
		return -1;
	out->host = logwrap_str(&r, LW_HOST);
	line = logwrap_str(&r, LW_LOG);
	if (line.ptr == NULL && out->host.ptr != NULL)
		line = logwrap_str(&r, LW_MESSAGE);
	if (line.ptr == NULL)
		return -1;
	while (line.len > 0 && (line.ptr[line.len - 1] == '\n' || line.ptr[line.len - 1] == '\r'))
		line.len--;
	out->line = line;
	out->component =
	    r.set[LW_UNIT] ? logwrap_unit(logwrap_str(&r, LW_UNIT)) : logwrap_str(&r, LW_CONTAINER);
	out->ident = logwrap_str(&r, LW_IDENT);
	return 0;
}
