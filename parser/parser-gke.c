/*
 * parser-gke.c - Google Cloud Logging LogEntries of a GKE cluster.
 *
 * `gcloud logging read --format=json` prints one JSON array of LogEntries
 * (the framer cuts its elements), a log sink writes JSON lines; either way
 * each record is one LogEntry:
 *
 *   {"insertId":"…","logName":"projects/P/logs/cloudaudit.googleapis.com%2Factivity",
 *    "operation":{"id":"AUDIT-ID","producer":"k8s.io","first":true,"last":true},
 *    "protoPayload":{"@type":"type.googleapis.com/google.cloud.audit.AuditLog",
 *      "serviceName":"k8s.io","methodName":"io.k8s.coordination.v1.leases.update",
 *      "resourceName":"coordination.k8s.io/v1/namespaces/kube-node-lease/leases/NODE",
 *      "authenticationInfo":{"principalEmail":"system:node:NODE"},
 *      "requestMetadata":{"callerIp":"10.0.0.2","callerSuppliedUserAgent":"kubelet/…"},
 *      "status":{"code":0},"request":{…},"response":{…}},
 *    "labels":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":"…"},
 *    "resource":{"type":"k8s_cluster","labels":{"cluster_name":"C",…}},
 *    "timestamp":"2024-01-01T01:00:00Z"}
 *
 * An AuditLog of serviceName k8s.io is a Kubernetes API request: it is
 * written back as the audit Event it stands for (gke_event) and decoded by
 * parser_audit_decode like any other, so the same request reads the same
 * through every envelope; the LogEntry itself stays the event's raw record.
 * The mapping (docs/formats.md): verb from the last word of methodName;
 * group, version, namespace, resource, name and subresource from
 * resourceName ("core" is the core group, written as no group); user from
 * principalEmail; source IP and user agent from requestMetadata; auditID
 * from operation.id; stage ResponseStarted for the first of two entries of
 * one operation, else ResponseComplete; both times from "timestamp"; code
 * from a Kubernetes Status in "response" when there is one, else from the
 * google.rpc code (gke_codes[]), a successful create being 201; level from
 * what the entry carries; the authorization decision and reason from its
 * labels.  Not in a LogEntry, so absent: requestURI, the user's groups,
 * the request's receive time.
 *
 * Any other LogEntry with a textPayload, or a jsonPayload holding a
 * journal's MESSAGE or a "message", is a log line: a kubelet's (resource
 * type k8s_node, its node_name the host) or a control-plane component's
 * (k8s_control_plane_component, its component_name the writer).
 *
 * The record is walked once by yajl; the path of each value is kept as a
 * dotted string and looked up in gke_paths[]; request and response are
 * cut out of the record as text by the offsets yajl reports.
 */
#define _GNU_SOURCE /* memrchr */
#include "parser-json.h"

#include <stdlib.h>
#include <string.h>

/* Containers deeper than this are walked but their keys are not tracked. */
#define GKE_MAX_DEPTH 32
/* Values deeper than 3 levels are looked up only under this path (not in request bodies). */
#define GKE_AUTHN "protoPayload.authenticationInfo."
/* A path longer than this matches nothing in gke_paths[]. */
#define GKE_MAX_PATH 160

/* The values a LogEntry gives. */
enum gke_slot {
	G_INSERT_ID,
	G_LOG_NAME,
	G_TIMESTAMP,
	G_TEXT,
	G_RES_TYPE,
	G_NODE,
	G_COMPONENT,
	G_OP_ID,
	G_OP_FIRST,
	G_OP_LAST,
	G_DECISION,
	G_AUTHZ_REASON,
	G_SERVICE,
	G_METHOD,
	G_RESOURCE,
	G_PRINCIPAL,
	G_SUBJECT,
	G_DELEGATOR,
	G_CALLER_IP,
	G_AGENT,
	G_CODE,
	G_STATUS_MSG,
	G_REQUEST,
	G_RESPONSE,
	G_RESP_KIND,
	G_RESP_CODE,
	G_RESP_STATUS,
	G_RESP_REASON,
	G_RESP_MESSAGE,
	G_JMESSAGE,
	G_JHOST,
	G_JIDENT,
	G_JPID,
	G_CLUSTER,
	G_NSLOTS,
};

/* Where each value sits in a LogEntry. */
static const struct gke_path {
	const char *path;
	enum gke_slot slot;
} gke_paths[] = {
    {"insertId", G_INSERT_ID},
    {"logName", G_LOG_NAME},
    {"timestamp", G_TIMESTAMP},
    {"textPayload", G_TEXT},
    {"resource.type", G_RES_TYPE},
    {"resource.labels.node_name", G_NODE},
    {"resource.labels.component_name", G_COMPONENT},
    {"operation.id", G_OP_ID},
    {"operation.first", G_OP_FIRST},
    {"operation.last", G_OP_LAST},
    {"labels.authorization.k8s.io/decision", G_DECISION},
    {"labels.authorization.k8s.io/reason", G_AUTHZ_REASON},
    {"protoPayload.serviceName", G_SERVICE},
    {"protoPayload.methodName", G_METHOD},
    {"protoPayload.resourceName", G_RESOURCE},
    {"protoPayload.authenticationInfo.principalEmail", G_PRINCIPAL},
    {"protoPayload.authenticationInfo.principalSubject", G_SUBJECT},
    /* the first of the delegation chain: the original caller behind a service account */
    {GKE_AUTHN "serviceAccountDelegationInfo.[].firstPartyPrincipal.principalEmail", G_DELEGATOR},
    {"protoPayload.requestMetadata.callerIp", G_CALLER_IP},
    {"protoPayload.requestMetadata.callerSuppliedUserAgent", G_AGENT},
    {"protoPayload.status.code", G_CODE},
    {"protoPayload.status.message", G_STATUS_MSG},
    {"protoPayload.request", G_REQUEST},
    {"protoPayload.response", G_RESPONSE},
    {"protoPayload.response.kind", G_RESP_KIND},
    {"protoPayload.response.code", G_RESP_CODE},
    {"protoPayload.response.status", G_RESP_STATUS},
    {"protoPayload.response.reason", G_RESP_REASON},
    {"protoPayload.response.message", G_RESP_MESSAGE},
    {"jsonPayload.MESSAGE", G_JMESSAGE},
    {"jsonPayload.message", G_JMESSAGE},
    {"jsonPayload._HOSTNAME", G_JHOST},
    {"jsonPayload.SYSLOG_IDENTIFIER", G_JIDENT},
    {"jsonPayload._PID", G_JPID},
    {"resource.labels.cluster_name", G_CLUSTER},
};

/*
 * google.rpc.Code to the HTTP status Kubernetes answered (google/rpc/code.proto
 * gives each code's HTTP mapping); OK is 200, or 201 for a create.
 */
static const struct gke_code {
	int rpc, http;
	const char *name;
} gke_codes[] = {
    {0, 200, "OK"},
    {1, 499, "CANCELLED"},
    {2, 500, "UNKNOWN"},
    {3, 400, "INVALID_ARGUMENT"},
    {4, 504, "DEADLINE_EXCEEDED"},
    {5, 404, "NOT_FOUND"},
    {6, 409, "ALREADY_EXISTS"},
    {7, 403, "PERMISSION_DENIED"},
    {8, 429, "RESOURCE_EXHAUSTED"},
    {9, 400, "FAILED_PRECONDITION"},
    {10, 409, "ABORTED"},
    {11, 400, "OUT_OF_RANGE"},
    {12, 501, "UNIMPLEMENTED"},
    {13, 500, "INTERNAL"},
    {14, 503, "UNAVAILABLE"},
    {15, 500, "DATA_LOSS"},
    {16, 401, "UNAUTHENTICATED"},
};

/* A value kept in the arena: offset and length, NUL-terminated there. */
struct gke_val {
	size_t off, len;
	int set; /* 1 string, 2 number or literal, 3 JSON text of a container */
};

struct gke_decoder {
	struct lt_buf arena;
	struct lt_buf event; /* the audit Event written back */
	struct gke_val val[G_NSLOTS];
	yajl_handle h;
	const char *json;
	char path[GKE_MAX_PATH + 1];
	size_t plen;
	int depth;
	struct {
		size_t own;   /* the path's length at the container's own name */
		int is_array; /* elements are named "[]" */
		int slot;     /* a container kept as text (request, response), or -1 */
		size_t start; /* its first byte in the record */
	} stack[GKE_MAX_DEPTH + 1];
};

static void *gke_new(void)
{
	struct gke_decoder *d = lt_xcalloc(1, sizeof *d);

	lt_buf_init(&d->arena);
	lt_buf_init(&d->event);
	return d;
}

static void gke_free(void *dec)
{
	struct gke_decoder *d = dec;

	if (d == NULL)
		return;
	lt_buf_release(&d->arena);
	lt_buf_release(&d->event);
	free(d);
}

/* ---- walking the record ------------------------------------------------ */

/* The slot the current path names, or -1 (long or deep paths name none). */
static int gke_lookup(const struct gke_decoder *d)
{
	if (d->plen > GKE_MAX_PATH)
		return -1;
	if (d->depth > 3 && (d->plen < sizeof GKE_AUTHN - 1 ||
			     memcmp(d->path, GKE_AUTHN, sizeof GKE_AUTHN - 1) != 0))
		return -1;
	for (size_t i = 0; i < sizeof gke_paths / sizeof *gke_paths; i++)
		if (strlen(gke_paths[i].path) == d->plen &&
		    memcmp(gke_paths[i].path, d->path, d->plen) == 0)
			return (int)gke_paths[i].slot;
	return -1;
}

/* Sets the path to the current container's own path plus ".name" (or "[]" in an array). */
static void gke_name(struct gke_decoder *d, const char *name, size_t n)
{
	size_t at = d->depth <= GKE_MAX_DEPTH ? d->stack[d->depth].own : GKE_MAX_PATH + 1;

	d->plen = at;
	if (at > GKE_MAX_PATH || at + 1 + n > GKE_MAX_PATH) {
		d->plen = GKE_MAX_PATH + 1;
		return;
	}
	if (at > 0)
		d->path[d->plen++] = '.';
	memcpy(d->path + d->plen, name, n);
	d->plen += n;
}

static void gke_keep(struct gke_decoder *d, int slot, const void *s, size_t n, int how)
{
	if (slot < 0 || d->val[slot].set)
		return; /* the first of two names for one value wins (MESSAGE, message) */
	d->val[slot].off = d->arena.len;
	d->val[slot].len = n;
	d->val[slot].set = how;
	lt_buf_append(&d->arena, s, n);
	lt_buf_putc(&d->arena, '\0');
}

/* A scalar: its path is its key's (in an object) or "[]" (in an array). */
static int gke_scalar(struct gke_decoder *d, const void *s, size_t n, int how)
{
	if (d->depth <= GKE_MAX_DEPTH && d->depth > 0 && d->stack[d->depth].is_array)
		gke_name(d, "[]", 2);
	gke_keep(d, gke_lookup(d), s, n, how);
	return 1;
}

static int gke_string(void *ctx, const unsigned char *s, size_t n)
{
	return gke_scalar(ctx, s, n, 1);
}

static int gke_number(void *ctx, const char *s, size_t n)
{
	return gke_scalar(ctx, s, n, 2);
}

static int gke_boolean(void *ctx, int b)
{
	return gke_scalar(ctx, b ? "true" : "false", b ? 4 : 5, 2);
}

static int gke_null(void *ctx)
{
	struct gke_decoder *d = ctx;

	if (d->depth <= GKE_MAX_DEPTH && d->depth > 0 && d->stack[d->depth].is_array)
		gke_name(d, "[]", 2);
	return 1; /* null is absent */
}

static int gke_key(void *ctx, const unsigned char *k, size_t n)
{
	gke_name(ctx, (const char *)k, n);
	return 1;
}

static int gke_open(struct gke_decoder *d, int is_array)
{
	int slot;

	if (d->depth > 0 && d->depth <= GKE_MAX_DEPTH && d->stack[d->depth].is_array)
		gke_name(d, "[]", 2);
	slot = d->depth == 0 ? -1 : gke_lookup(d);
	if (++d->depth <= GKE_MAX_DEPTH) {
		d->stack[d->depth].own = d->depth == 1 ? 0 : d->plen;
		d->stack[d->depth].is_array = is_array;
		d->stack[d->depth].slot = slot;
		/* yajl has just consumed the '{' or '[': its offset is one back */
		d->stack[d->depth].start = yajl_get_bytes_consumed(d->h) - 1;
	}
	return 1;
}

static int gke_close(struct gke_decoder *d)
{
	size_t end;

	if (d->depth <= GKE_MAX_DEPTH && d->stack[d->depth].slot >= 0) {
		end = yajl_get_bytes_consumed(d->h);
		gke_keep(d, d->stack[d->depth].slot, d->json + d->stack[d->depth].start,
			 end - d->stack[d->depth].start, 3);
	}
	d->depth--;
	return 1;
}

static int gke_start_map(void *ctx)
{
	return gke_open(ctx, 0);
}

static int gke_start_array(void *ctx)
{
	return gke_open(ctx, 1);
}

static int gke_end(void *ctx)
{
	return gke_close(ctx);
}

static const yajl_callbacks gke_callbacks = {
    .yajl_null = gke_null,
    .yajl_boolean = gke_boolean,
    .yajl_number = gke_number,
    .yajl_string = gke_string,
    .yajl_start_map = gke_start_map,
    .yajl_map_key = gke_key,
    .yajl_end_map = gke_end,
    .yajl_start_array = gke_start_array,
    .yajl_end_array = gke_end,
};

static struct lt_str gke_str(const struct gke_decoder *d, enum gke_slot slot)
{
	if (!d->val[slot].set)
		return (struct lt_str){NULL, 0};
	return (struct lt_str){d->arena.ptr + d->val[slot].off, d->val[slot].len};
}

/* A small non-negative integer value (a code, a pid), or -1. */
static int64_t gke_int(const struct gke_decoder *d, enum gke_slot slot)
{
	struct lt_str s = gke_str(d, slot);
	int64_t v = 0;

	if (s.ptr == NULL || s.len == 0 || s.len > 9)
		return -1;
	for (size_t i = 0; i < s.len; i++) {
		if (s.ptr[i] < '0' || s.ptr[i] > '9')
			return -1;
		v = v * 10 + (s.ptr[i] - '0');
	}
	return v;
}

/* true, or "true" (some forwarders stringify the booleans). */
static int gke_true(const struct gke_decoder *d, enum gke_slot slot)
{
	return lt_str_eq(gke_str(d, slot), "true");
}

/* ---- an AuditLog written back as the audit Event it stands for -------- */

/* What resourceName and methodName say of the object. */
struct gke_object {
	struct lt_str group, version, namespace_, resource, name, subresource, verb;
};

/* The next '/'-separated word of *s, consumed; ptr NULL when none is left. */
static struct lt_str gke_word(struct lt_str *s)
{
	const char *slash;
	struct lt_str w;

	if (s->ptr == NULL || s->len == 0)
		return (struct lt_str){NULL, 0};
	slash = memchr(s->ptr, '/', s->len);
	w = (struct lt_str){s->ptr, slash ? (size_t)(slash - s->ptr) : s->len};
	s->ptr += w.len + (slash != NULL);
	s->len -= w.len + (slash != NULL);
	return w;
}

/*
 * "GROUP/VERSION/[namespaces/NS/]RESOURCE[/NAME[/SUBRESOURCE]]"; the
 * namespace object itself is "core/v1/namespaces/NS".
 */
static void gke_object_of(struct gke_object *o, struct lt_str rn, struct lt_str method)
{
	struct lt_str w[5];
	size_t n = 0;
	const char *dot;

	memset(o, 0, sizeof *o);
	o->group = gke_word(&rn);
	o->version = gke_word(&rn);
	while (n < 5 && (w[n] = gke_word(&rn)).ptr != NULL)
		n++;
	if (lt_str_eq(o->group, "core"))
		o->group = (struct lt_str){NULL, 0};
	if (n >= 3 && lt_str_eq(w[0], "namespaces")) {
		o->namespace_ = w[1];
		memmove(w, w + 2, (n - 2) * sizeof *w);
		n -= 2;
	}
	o->resource = n > 0 ? w[0] : (struct lt_str){NULL, 0};
	o->name = n > 1 ? w[1] : (struct lt_str){NULL, 0};
	o->subresource = n > 2 ? w[2] : (struct lt_str){NULL, 0};
	/* the verb is methodName's last word: io.k8s.core.v1.pods.exec.create */
	if (method.ptr != NULL && (dot = memrchr(method.ptr, '.', method.len)) != NULL)
		o->verb = (struct lt_str){dot + 1, method.len - (size_t)(dot + 1 - method.ptr)};
}

/* The HTTP code: a Kubernetes Status in the response says it; else the google.rpc code. */
static int gke_http_code(const struct gke_decoder *d, const struct gke_object *o)
{
	int64_t rpc = gke_int(d, G_CODE), code = gke_int(d, G_RESP_CODE);

	if (lt_str_eq(gke_str(d, G_RESP_KIND), "Status") && code >= 100 && code <= 599)
		return (int)code;
	if (rpc < 0)
		rpc = 0; /* a status without a code is OK */
	for (size_t i = 0; i < sizeof gke_codes / sizeof *gke_codes; i++)
		if (gke_codes[i].rpc == rpc)
			return rpc == 0 && lt_str_eq(o->verb, "create") ? 201 : gke_codes[i].http;
	return 500;
}

static void gke_lit(struct lt_buf *b, const char *s)
{
	lt_buf_append(b, s, strlen(s));
}

/* ,"key":"value" with the value quoted; nothing when the value is absent. */
static void gke_put(struct lt_buf *b, const char *key, struct lt_str v)
{
	if (v.ptr == NULL)
		return;
	lt_buf_printf(b, ",\"%s\":", key);
	lt_json_quote(b, v.ptr, v.len);
}

static void gke_put_object_ref(struct lt_buf *b, const struct gke_object *o)
{
	if (o->resource.ptr == NULL)
		return;
	gke_lit(b, ",\"objectRef\":{\"resource\":");
	lt_json_quote(b, o->resource.ptr, o->resource.len);
	gke_put(b, "namespace", o->namespace_);
	gke_put(b, "name", o->name);
	gke_put(b, "apiGroup", o->group);
	gke_put(b, "apiVersion", o->version);
	gke_put(b, "subresource", o->subresource);
	lt_buf_putc(b, '}');
}

static void gke_put_status(struct lt_buf *b, const struct gke_decoder *d, int code)
{
	struct lt_str msg = gke_str(d, G_RESP_MESSAGE);

	if (msg.ptr == NULL && code >= 300)
		msg = gke_str(d, G_STATUS_MSG);
	lt_buf_printf(b, ",\"responseStatus\":{\"code\":%d", code);
	if (lt_str_eq(gke_str(d, G_RESP_KIND), "Status")) {
		gke_put(b, "status", gke_str(d, G_RESP_STATUS));
		gke_put(b, "reason", gke_str(d, G_RESP_REASON));
	}
	gke_put(b, "message", msg);
	lt_buf_putc(b, '}');
}

/* The authorization decision and reason GKE keeps as the entry's labels. */
static void gke_put_annotations(struct lt_buf *b, const struct gke_decoder *d)
{
	static const struct {
		enum gke_slot slot;
		const char *key;
	} keys[] = {
	    {G_DECISION, "authorization.k8s.io/decision"},
	    {G_AUTHZ_REASON, "authorization.k8s.io/reason"},
	};
	const char *sep = ",\"annotations\":{";

	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		struct lt_str v = gke_str(d, keys[i].slot);

		if (v.ptr == NULL)
			continue;
		lt_buf_printf(b, "%s\"%s\":", sep, keys[i].key);
		lt_json_quote(b, v.ptr, v.len);
		sep = ",";
	}
	if (sep[0] == ',' && sep[1] == '\0')
		lt_buf_putc(b, '}');
}

/*
 * user: principalEmail is the name; principalSubject and the first principal
 * of serviceAccountDelegationInfo go into user.extra, where parser-audit.c
 * reads the identity behind a name of every cloud.
 */
static void gke_put_user(struct lt_buf *b, const struct gke_decoder *d)
{
	static const struct {
		enum gke_slot slot;
		const char *key;
	} extras[] = {
	    {G_SUBJECT, "principalSubject"},
	    {G_DELEGATOR, "serviceAccountDelegationInfo"},
	};
	const char *sep = ",\"extra\":{";

	if (d->val[G_PRINCIPAL].set != 1)
		return;
	gke_lit(b, ",\"user\":{\"username\":");
	lt_json_quote(b, d->arena.ptr + d->val[G_PRINCIPAL].off, d->val[G_PRINCIPAL].len);
	for (size_t i = 0; i < sizeof extras / sizeof *extras; i++) {
		if (d->val[extras[i].slot].set != 1)
			continue;
		lt_buf_printf(b, "%s\"%s\":[", sep, extras[i].key);
		lt_json_quote(b, d->arena.ptr + d->val[extras[i].slot].off,
			      d->val[extras[i].slot].len);
		lt_buf_putc(b, ']');
		sep = ",";
	}
	if (sep[0] == ',' && sep[1] == '\0')
		lt_buf_putc(b, '}');
	lt_buf_putc(b, '}');
}

/* What the entry carries says its level: bodies of both, of the request, or none. */
static const char *gke_level(const struct gke_decoder *d)
{
	if (d->val[G_RESPONSE].set == 3)
		return "RequestResponse";
	return d->val[G_REQUEST].set == 3 ? "Request" : "Metadata";
}

/* The audit Event an AuditLog stands for, in d->event. */
static void gke_event(struct gke_decoder *d, const struct gke_object *o)
{
	struct lt_buf *b = &d->event;
	struct lt_str id = gke_str(d, G_OP_ID), ts = gke_str(d, G_TIMESTAMP);
	int started = gke_true(d, G_OP_FIRST) && d->val[G_OP_LAST].set && !gke_true(d, G_OP_LAST);

	lt_buf_reset(b);
	lt_buf_printf(b, "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"%s\"",
		      gke_level(d));
	gke_put(b, "auditID", id.ptr ? id : gke_str(d, G_INSERT_ID));
	lt_buf_printf(b, ",\"stage\":\"%s\"", started ? "ResponseStarted" : "ResponseComplete");
	gke_put(b, "verb", o->verb);
	gke_put_user(b, d);
	if (d->val[G_CALLER_IP].set == 1) {
		gke_lit(b, ",\"sourceIPs\":[");
		lt_json_quote(b, d->arena.ptr + d->val[G_CALLER_IP].off, d->val[G_CALLER_IP].len);
		lt_buf_putc(b, ']');
	}
	gke_put(b, "userAgent", gke_str(d, G_AGENT));
	gke_put_object_ref(b, o);
	gke_put_status(b, d, gke_http_code(d, o));
	if (d->val[G_REQUEST].set == 3) {
		gke_lit(b, ",\"requestObject\":");
		lt_buf_append(b, d->arena.ptr + d->val[G_REQUEST].off, d->val[G_REQUEST].len);
	}
	if (d->val[G_RESPONSE].set == 3) {
		gke_lit(b, ",\"responseObject\":");
		lt_buf_append(b, d->arena.ptr + d->val[G_RESPONSE].off, d->val[G_RESPONSE].len);
	}
	gke_put(b, "stageTimestamp", ts);
	gke_put_annotations(b, d);
	lt_buf_putc(b, '}');
}

/* ---- decoding ------------------------------------------------------------ */

static void gke_reset(struct gke_decoder *d, const char *json)
{
	lt_buf_reset(&d->arena);
	memset(d->val, 0, sizeof d->val);
	d->json = json;
	d->plen = 0;
	d->depth = 0;
	d->stack[0].own = 0;
	d->stack[0].is_array = 0;
	d->stack[0].slot = -1;
}

/* An AuditLog: a Kubernetes API request (serviceName k8s.io), or a reason why not. */
static int gke_audit(struct gke_decoder *d, struct parser_env_record *out, const char *json,
		     size_t len, char *reason, size_t size)
{
	struct gke_object o;
	struct lt_str service = gke_str(d, G_SERVICE);

	if (!lt_str_eq(service, "k8s.io")) {
		snprintf(reason, size,
			 "a GKE audit entry that is no Kubernetes API request (serviceName %.*s)",
			 service.ptr ? (int)(service.len > 60 ? 60 : service.len) : 6,
			 service.ptr ? service.ptr : "absent");
		return LT_ERR_FORMAT;
	}
	if (d->val[G_TIMESTAMP].set != 1) {
		snprintf(reason, size, "a GKE audit entry without a \"timestamp\"");
		return LT_ERR_FORMAT;
	}
	gke_object_of(&o, gke_str(d, G_RESOURCE), gke_str(d, G_METHOD));
	if (o.verb.ptr == NULL || o.verb.len == 0) {
		snprintf(reason, size, "a GKE audit entry whose methodName names no verb");
		return LT_ERR_FORMAT;
	}
	gke_event(d, &o);
	out->kind = PARSER_ENV_AUDIT;
	out->event = (struct lt_str){d->event.ptr, d->event.len};
	out->raw = (struct lt_str){json, len};
	return 0;
}

/*
 * Who wrote a line: a control-plane entry's component_name, else the
 * component its log's name stands for (".../logs/kubelet",
 * ".../logs/container.googleapis.com%2Fkube-controller-manager").
 */
static struct lt_str gke_component(const struct gke_decoder *d)
{
	struct lt_str name = gke_str(d, G_LOG_NAME), tail;
	const char *c, *p;

	if (d->val[G_COMPONENT].set == 1)
		return gke_str(d, G_COMPONENT);
	if (name.ptr == NULL)
		return name;
	tail = name;
	if ((p = memrchr(name.ptr, '/', name.len)) != NULL)
		tail = (struct lt_str){p + 1, name.len - (size_t)(p + 1 - name.ptr)};
	for (p = tail.ptr; p + 3 <= tail.ptr + tail.len; p++) {
		if (memcmp(p, "%2F", 3) == 0) {
			tail.len -= (size_t)(p + 3 - tail.ptr);
			tail.ptr = p + 3;
			p = tail.ptr - 1;
		}
	}
	c = parser_stream_component(tail);
	return c ? (struct lt_str){c, strlen(c)} : (struct lt_str){NULL, 0};
}

/* A kubelet's or a control-plane component's line. */
static int gke_log(struct gke_decoder *d, struct parser_env_record *out, const char *json,
		   size_t len, char *reason, size_t size)
{
	struct lt_str ts = gke_str(d, G_TIMESTAMP), msg = gke_str(d, G_TEXT);

	if (msg.ptr == NULL)
		msg = gke_str(d, G_JMESSAGE);
	if (msg.ptr == NULL) {
		snprintf(reason, size,
			 "a GKE log entry with no textPayload, jsonPayload.MESSAGE or "
			 "jsonPayload.message: nothing to read");
		return LT_ERR_FORMAT;
	}
	if (ts.ptr != NULL && lt_time_parse(&out->ts_us, ts.ptr, ts.len) != 0) {
		snprintf(reason, size,
			 "a GKE log entry whose \"timestamp\" is not an RFC 3339 time");
		return LT_ERR_FORMAT;
	}
	while (msg.len > 0 && (msg.ptr[msg.len - 1] == '\n' || msg.ptr[msg.len - 1] == '\r'))
		msg.len--;
	out->kind = PARSER_ENV_LOG;
	out->message = msg;
	out->raw = (struct lt_str){json, len};
	out->host = gke_str(d, G_NODE).ptr ? gke_str(d, G_NODE) : gke_str(d, G_JHOST);
	out->component = gke_component(d);
	out->ident = gke_str(d, G_JIDENT);
	out->pid = gke_int(d, G_JPID);
	return 0;
}

static int gke_decode(void *dec, struct parser_env_record *out, const char *json, size_t len,
		      char *reason, size_t size)
{
	struct gke_decoder *d = dec;
	int rc;

	memset(out, 0, sizeof *out);
	out->pid = -1;
	gke_reset(d, json);
	rc = parser_json_run(&gke_callbacks, d, &d->h, "invalid JSON", json, len, reason, size);
	if (rc != 0)
		return rc;
	if (d->val[G_LOG_NAME].set != 1) {
		snprintf(reason, size, "not a Cloud Logging entry: no \"logName\"");
		return LT_ERR_FORMAT;
	}
	out->ext_id = gke_str(d, G_INSERT_ID);
	out->stream = gke_str(d, G_LOG_NAME);
	out->cluster = gke_str(d, G_CLUSTER);
	if (!lt_cluster_name_ok(out->cluster.ptr, out->cluster.len))
		out->cluster = (struct lt_str){NULL, 0};
	if (d->val[G_METHOD].set || d->val[G_SERVICE].set)
		return gke_audit(d, out, json, len, reason, size);
	return gke_log(d, out, json, len, reason, size);
}

/* A LogEntry: its logName and one of the payloads. */
static int gke_probe(const char *json, size_t len)
{
	static const char *const all[] = {"logName", NULL};
	static const char *const any[] = {"protoPayload", "textPayload", "jsonPayload", NULL};

	return parser_json_keys(json, len, all, any);
}

const struct parser_envelope parser_gke_envelope = {
    .name = "gke",
    .probe = gke_probe,
    .decoder_new = gke_new,
    .decoder_free = gke_free,
    .decode = gke_decode,
};
