/*
 * parser-aks.c - Azure Monitor diagnostic records of an AKS cluster.
 *
 * A diagnostic setting of a managed cluster writes one record per log line
 * of its control plane, to a storage account (JSON lines, one PT1H.json
 * blob an hour) or an Event Hub ({"records":[...]}, which the framer cuts
 * into records):
 *
 *   {"category":"kube-audit","operationName":"Microsoft.ContainerService/
 *    managedClusters/diagnosticLogs/Read","resourceId":"/SUBSCRIPTIONS/…/
 *    MANAGEDCLUSTERS/NAME","time":"2021-02-02T15:00:00.0000000Z",
 *    "properties":{"log":"{\"kind\":\"Event\",…}\n","stream":"stdout",
 *    "pod":"kube-apiserver-6b497d8d5f-rb9qn","containerID":"…"}}
 *
 * The categories kube-audit and kube-audit-admin carry an audit Event as
 * the escaped string properties.log (yajl undoes the escapes); every other
 * category (kube-controller-manager, kube-scheduler, cluster-autoscaler,
 * kube-apiserver, cloud-controller-manager, guard, csi-*) carries one line
 * of that component's log, klog as a rule.  The Event or the line, its
 * trailing newline dropped, goes back to the caller with the category as
 * the component and the pod as the stream; the record is walked once and
 * only these values are kept, in one arena.
 */
#include "parser-json.h"

#include <stdlib.h>
#include <string.h>

/* The values a record gives. */
enum aks_slot { AKS_CATEGORY, AKS_TIME, AKS_LOG, AKS_POD, AKS_RESOURCE, AKS_NSLOTS };

/* Where a key names a value: at depth 1, or inside "properties" (depth 2). */
static const struct aks_key {
	int depth;
	const char *key;
	enum aks_slot slot;
} aks_keys[] = {
    {.depth = 1, .key = "category", .slot = AKS_CATEGORY},
    {.depth = 1, .key = "time", .slot = AKS_TIME},
    {.depth = 2, .key = "log", .slot = AKS_LOG},
    {.depth = 2, .key = "pod", .slot = AKS_POD},
    {.depth = 1, .key = "resourceId", .slot = AKS_RESOURCE}, /* .../managedClusters/NAME */
};

/* The categories whose log is an audit Event. */
static const char *const aks_audit_categories[] = {"kube-audit", "kube-audit-admin"};

struct aks_val {
	size_t off, len;
	int set;
};

struct aks_decoder {
	struct lt_buf arena;
	struct aks_val val[AKS_NSLOTS];
	int depth;
	int in_props;	/* the object at depth 2 is "properties" */
	int props_next; /* the key just read at depth 1 is "properties" */
	int slot;	/* of the next value, -1 when it is not kept */
};

static void *aks_new(void)
{
	struct aks_decoder *d = lt_xcalloc(1, sizeof *d);

	lt_buf_init(&d->arena);
	return d;
}

static void aks_free(void *dec)
{
	struct aks_decoder *d = dec;

	if (d == NULL)
		return;
	lt_buf_release(&d->arena);
	free(d);
}

static int aks_string(void *ctx, const unsigned char *s, size_t n)
{
	struct aks_decoder *d = ctx;

	if (d->slot >= 0) {
		d->val[d->slot].off = d->arena.len;
		d->val[d->slot].len = n;
		d->val[d->slot].set = 1;
		lt_buf_append(&d->arena, s, n);
		lt_buf_putc(&d->arena, '\0');
	}
	d->slot = -1;
	return 1;
}

/* A value that is no string: not kept (a "log" that is a number says nothing). */
static int aks_other(void *ctx)
{
	((struct aks_decoder *)ctx)->slot = -1;
	return 1;
}

static int aks_null(void *ctx)
{
	return aks_other(ctx);
}

static int aks_boolean(void *ctx, int b)
{
	(void)b;
	return aks_other(ctx);
}

static int aks_number(void *ctx, const char *s, size_t n)
{
	(void)s;
	(void)n;
	return aks_other(ctx);
}

static int aks_key(void *ctx, const unsigned char *k, size_t n)
{
	struct aks_decoder *d = ctx;

	d->slot = -1;
	d->props_next = d->depth == 1 && n == 10 && memcmp(k, "properties", 10) == 0;
	if (d->depth > 2 || (d->depth == 2 && !d->in_props))
		return 1;
	for (size_t i = 0; i < sizeof aks_keys / sizeof *aks_keys; i++)
		if (aks_keys[i].depth == d->depth && strlen(aks_keys[i].key) == n &&
		    memcmp(aks_keys[i].key, k, n) == 0)
			d->slot = (int)aks_keys[i].slot;
	return 1;
}

static int aks_open(void *ctx, int is_map)
{
	struct aks_decoder *d = ctx;

	d->depth++;
	if (d->depth == 2)
		d->in_props = is_map && d->props_next;
	d->props_next = 0;
	d->slot = -1;
	return 1;
}

static int aks_start_map(void *ctx)
{
	return aks_open(ctx, 1);
}

static int aks_start_array(void *ctx)
{
	return aks_open(ctx, 0);
}

static int aks_close(void *ctx)
{
	struct aks_decoder *d = ctx;

	if (d->depth-- == 2)
		d->in_props = 0;
	d->slot = -1;
	return 1;
}

static const yajl_callbacks aks_callbacks = {
    .yajl_null = aks_null,
    .yajl_boolean = aks_boolean,
    .yajl_number = aks_number,
    .yajl_string = aks_string,
    .yajl_start_map = aks_start_map,
    .yajl_map_key = aks_key,
    .yajl_end_map = aks_close,
    .yajl_start_array = aks_start_array,
    .yajl_end_array = aks_close,
};

static struct lt_str aks_str(const struct aks_decoder *d, enum aks_slot slot)
{
	if (!d->val[slot].set)
		return (struct lt_str){NULL, 0};
	return (struct lt_str){d->arena.ptr + d->val[slot].off, d->val[slot].len};
}

/* The log without the newline (and blanks) its writer ended it with. */
static struct lt_str aks_trim(struct lt_str s)
{
	while (s.len > 0 &&
	       (s.ptr[s.len - 1] == '\n' || s.ptr[s.len - 1] == '\r' || s.ptr[s.len - 1] == ' '))
		s.len--;
	return s;
}

static int aks_is_audit(struct lt_str category)
{
	for (size_t i = 0; i < sizeof aks_audit_categories / sizeof *aks_audit_categories; i++)
		if (lt_str_eq(category, aks_audit_categories[i]))
			return 1;
	return 0;
}

/* Says why a well-formed record is not a usable diagnostic record, or returns 0. */
static int aks_check(const struct aks_decoder *d, int64_t *ts, char *reason, size_t size)
{
	struct lt_str t = aks_str(d, AKS_TIME);

	*ts = 0;
	if (d->val[AKS_CATEGORY].set == 0) {
		snprintf(reason, size, "not an AKS diagnostic record: no \"category\" string");
		return LT_ERR_FORMAT;
	}
	if (d->val[AKS_LOG].set == 0) {
		snprintf(reason, size,
			 "AKS diagnostic record without a properties.log string: nothing to read");
		return LT_ERR_FORMAT;
	}
	if (t.ptr != NULL && lt_time_parse(ts, t.ptr, t.len) != 0) {
		snprintf(reason, size, "AKS diagnostic record: \"time\" is not an RFC 3339 time");
		return LT_ERR_FORMAT;
	}
	return 0;
}

static int aks_decode(void *dec, struct parser_env_record *out, const char *json, size_t len,
		      char *reason, size_t size)
{
	struct aks_decoder *d = dec;
	struct lt_str log;
	int rc;

	memset(out, 0, sizeof *out);
	out->pid = -1;
	lt_buf_reset(&d->arena);
	memset(d->val, 0, sizeof d->val);
	d->depth = 0;
	d->in_props = d->props_next = 0;
	d->slot = -1;
	rc = parser_json_run(&aks_callbacks, d, NULL, "invalid JSON", json, len, reason, size);
	if (rc == 0)
		rc = aks_check(d, &out->ts_us, reason, size);
	if (rc != 0)
		return rc;
	log = aks_trim(aks_str(d, AKS_LOG));
	out->stream = aks_str(d, AKS_POD);
	out->cluster = lt_cluster_from_resource_id(aks_str(d, AKS_RESOURCE));
	if (aks_is_audit(aks_str(d, AKS_CATEGORY))) {
		out->kind = PARSER_ENV_AUDIT;
		out->event = log;
		return 0;
	}
	out->kind = PARSER_ENV_LOG;
	out->message = log;
	out->component = aks_str(d, AKS_CATEGORY);
	return 0;
}

/* A diagnostic record: "category" and "properties", and what Azure Monitor adds to each. */
static int aks_probe(const char *json, size_t len)
{
	static const char *const all[] = {"category", "properties", NULL};
	static const char *const any[] = {"resourceId", "operationName", "time", NULL};

	return parser_json_keys(json, len, all, any);
}

const struct parser_envelope parser_aks_envelope = {
    .name = "aks",
    .probe = aks_probe,
    .decoder_new = aks_new,
    .decoder_free = aks_free,
    .decode = aks_decode,
};
