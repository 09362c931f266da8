/*
 * parser-jsonlog.c - one line of Kubernetes' JSON log format
 * (--logging-format=json, component-base/logs/json), with yajl:
 *
 *   {"ts":1712296200.123456,"caller":"nodelease/controller.go:1","msg":"...",
 *    "v":0,"err":"...","node":"x","pod":{"name":"p","namespace":"ns"}}
 *
 * "ts" is seconds since the epoch, UTC; "v" marks an info line and an
 * "err" an error (the format has no level).  Other writers of the same
 * shape encode "ts" otherwise: controller-runtime's zap as epoch
 * milliseconds or nanoseconds (--zap-time-encoding=millis|nanos), an
 * early kubelet JSON format as nanoseconds, zap's iso8601 and rfc3339nano
 * as strings.  A number's unit is told by its magnitude (jsonlog_units[]),
 * a string is read as RFC 3339 / ISO 8601; a time outside the years
 * 1970..9999 is no time at all, and the line is rejected for it.  Besides the message, the
 * classifier gets the other top-level values written as klog writes them
 * (key="value", an object reference as "ns/name"), so the rules of
 * parser-classify.c read both formats alike.
 */
#define _GNU_SOURCE /* memmem */
#include "parser-json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct jsonlog_run {
	struct parser_jsonlog *out;
	struct lt_buf *arena; /* msg and caller: copies, yajl's strings are borrowed */
	struct lt_buf *pairs; /* key="value" pairs for the classifier */
	size_t msg_at, caller_at;
	int depth;
	enum { JL_OTHER, JL_TS, JL_MSG, JL_CALLER, JL_VALUE } field;
	char key[64]; /* the top-level key being read, for JL_VALUE */
	/* an object reference {"name":..,"namespace":..} as a value */
	struct lt_buf ref_name, ref_ns;
	int ref_key; /* 1 name, 2 namespace, 0 other */
};

/* `key="value"` with klog's escapes, for the classifier. */
static void jsonlog_pair(struct jsonlog_run *r, const char *v, size_t n)
{
	lt_buf_printf(r->pairs, " %s=\"", r->key);
	for (size_t i = 0; i < n; i++) {
		if (v[i] == '"' || v[i] == '\\')
			lt_buf_putc(r->pairs, '\\');
		lt_buf_putc(r->pairs, v[i] == '\n' ? ' ' : v[i]);
	}
	lt_buf_putc(r->pairs, '"');
}

/* The latest time a "ts" may name: 9999-12-31T23:59:59.999999Z. */
#define JSONLOG_MAX_US 253402300799999999LL

/*
 * The unit of an epoch number, told by the digits of its integer part: the
 * first row with max_digits >= them.  shift moves the decimal point to
 * reach microseconds.  Every row reaches at most 17 digits of µs (the year
 * 5138), so no arithmetic below can overflow.
 */
static const struct jsonlog_unit {
	int max_digits;
	int shift;
	double below; /* the same bound as a value, for exponent notation */
} jsonlog_units[] = {
    {.max_digits = 11, .shift = 6, .below = 1e11},  /* seconds (klog's JSON, zap epoch) */
    {.max_digits = 14, .shift = 3, .below = 1e14},  /* milliseconds (zap millis) */
    {.max_digits = 17, .shift = 0, .below = 1e17},  /* microseconds */
    {.max_digits = 20, .shift = -3, .below = 1e20}, /* nanoseconds (zap nanos) */
};

#define JSONLOG_NUNITS (sizeof jsonlog_units / sizeof *jsonlog_units)

/* The unit whose range holds an integer part of n digits, or NULL past nanoseconds. */
static const struct jsonlog_unit *jsonlog_unit_of(size_t n)
{
	for (size_t i = 0; i < JSONLOG_NUNITS; i++)
		if (n <= (size_t)jsonlog_units[i].max_digits)
			return &jsonlog_units[i];
	return NULL;
}

/* A number in exponent notation: strtod, then the same magnitude rule; 0 when none fits. */
static int64_t jsonlog_epoch_double(const char *s, size_t n)
{
	char num[64];
	double v, scale = 1;

	if (n >= sizeof num)
		return 0;
	memcpy(num, s, n);
	num[n] = '\0';
	v = strtod(num, NULL);
	for (size_t i = 0; i < JSONLOG_NUNITS; i++) {
		if (!(v >= 0 && v < jsonlog_units[i].below))
			continue;
		for (int k = 0; k < jsonlog_units[i].shift; k++)
			scale *= 10;
		for (int k = 0; k > jsonlog_units[i].shift; k--)
			scale /= 10;
		return (int64_t)(v * scale + 0.5);
	}
	return 0;
}

/*
 * An epoch number ("1712296200.1234567", "1712296200123", "1712296200123456789")
 * as µs, digit by digit (a double loses the last ones); 0 when it is none.
 */
static int64_t jsonlog_epoch(const char *s, size_t n)
{
	const struct jsonlog_unit *u;
	size_t i = 0, lead, int_digits, frac, want;
	int64_t us = 0;

	while (i < n && s[i] == '0')
		i++;
	lead = i;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	int_digits = i - lead;
	if (i < n && s[i] == '.')
		i++;
	frac = i;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i != n)
		return jsonlog_epoch_double(s, n); /* an exponent, or a sign */
	if ((u = jsonlog_unit_of(int_digits)) == NULL || (int)int_digits + u->shift <= 0)
		return 0;
	/* the first int_digits + shift digits of the number, its point skipped */
	want = (size_t)((int)int_digits + u->shift);
	for (size_t k = 0; k < want; k++) {
		size_t at = k < int_digits ? lead + k : frac + (k - int_digits);

		us = us * 10 + (at < n ? s[at] - '0' : 0);
	}
	return us;
}

/* "ts" as a string: RFC 3339 / ISO 8601 (zap iso8601, rfc3339nano), or epoch digits. */
static int64_t jsonlog_ts_string(const char *s, size_t n)
{
	int64_t us;

	if (n > 0 && s[0] >= '0' && s[0] <= '9' && (n < 5 || s[4] != '-'))
		return jsonlog_epoch(s, n);
	return lt_time_parse(&us, s, n) == 0 ? us : 0;
}

/* A time is one when it lies in 1970-01-01 .. 9999-12-31 (0 stays "none"). */
static int64_t jsonlog_in_range(int64_t us)
{
	return us > 0 && us <= JSONLOG_MAX_US ? us : 0;
}

static int jsonlog_string(void *ctx, const unsigned char *s, size_t n)
{
	struct jsonlog_run *r = ctx;
	const char *v = (const char *)s;

	if (r->depth == 2 && r->field == JL_VALUE) {
		if (r->ref_key == 1)
			lt_buf_append(&r->ref_name, v, n);
		else if (r->ref_key == 2)
			lt_buf_append(&r->ref_ns, v, n);
		return 1;
	}
	if (r->depth != 1)
		return 1;
	if (r->field == JL_TS) {
		r->out->ts_us = jsonlog_in_range(jsonlog_ts_string(v, n));
	} else if (r->field == JL_MSG) {
		r->msg_at = r->arena->len;
		r->out->msg.len = n;
		lt_buf_append(r->arena, v, n);
	} else if (r->field == JL_CALLER) {
		r->caller_at = r->arena->len;
		r->out->caller.len = n;
		lt_buf_append(r->arena, v, n);
	} else if (r->field == JL_VALUE) {
		jsonlog_pair(r, v, n);
		if (strcmp(r->key, "err") == 0)
			r->out->severity = 'E';
	}
	return 1;
}

static int jsonlog_number(void *ctx, const char *s, size_t n)
{
	struct jsonlog_run *r = ctx;

	if (r->depth != 1)
		return 1;
	if (r->field == JL_TS) {
		r->out->ts_us = jsonlog_in_range(jsonlog_epoch(s, n));
	} else if (r->field == JL_VALUE) {
		jsonlog_pair(r, s, n);
	}
	return 1;
}

static int jsonlog_null(void *ctx)
{
	struct jsonlog_run *r = ctx;

	if (r->depth == 1 && r->field == JL_VALUE && strcmp(r->key, "err") == 0)
		r->out->severity = 'E'; /* ErrorS(nil, ...) */
	return 1;
}

static int jsonlog_bool(void *ctx, int b)
{
	struct jsonlog_run *r = ctx;

	if (r->depth == 1 && r->field == JL_VALUE)
		jsonlog_pair(r, b ? "true" : "false", b ? 4 : 5);
	return 1;
}

static int jsonlog_key(void *ctx, const unsigned char *k, size_t n)
{
	struct jsonlog_run *r = ctx;
	static const struct {
		const char *key;
		int field;
	} known[] = {{"ts", JL_TS}, {"msg", JL_MSG}, {"caller", JL_CALLER}, {"v", JL_OTHER}};

	if (r->depth == 2) {
		r->ref_key = n == 4 && memcmp(k, "name", 4) == 0	? 1
			     : n == 9 && memcmp(k, "namespace", 9) == 0 ? 2
									: 0;
		return 1;
	}
	if (r->depth != 1)
		return 1;
	r->field = n < sizeof r->key ? JL_VALUE : JL_OTHER;
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (strlen(known[i].key) == n && memcmp(k, known[i].key, n) == 0)
			r->field = known[i].field;
	if (r->field == JL_VALUE) {
		memcpy(r->key, k, n);
		r->key[n] = '\0';
	}
	return 1;
}

static int jsonlog_start_map(void *ctx)
{
	struct jsonlog_run *r = ctx;

	if (++r->depth == 2) {
		lt_buf_reset(&r->ref_name);
		lt_buf_reset(&r->ref_ns);
		r->ref_key = 0;
	}
	return 1;
}

/* The end of an object reference: "ns/name" (built on the namespace), or "name" alone. */
static int jsonlog_end_map(void *ctx)
{
	struct jsonlog_run *r = ctx;

	if (r->depth-- != 2 || r->field != JL_VALUE || r->ref_name.len == 0)
		return 1;
	if (r->ref_ns.len == 0) {
		jsonlog_pair(r, r->ref_name.ptr, r->ref_name.len);
		return 1;
	}
	lt_buf_putc(&r->ref_ns, '/');
	lt_buf_append(&r->ref_ns, r->ref_name.ptr, r->ref_name.len);
	jsonlog_pair(r, r->ref_ns.ptr, r->ref_ns.len);
	return 1;
}

static int jsonlog_start_array(void *ctx)
{
	((struct jsonlog_run *)ctx)->depth++;
	return 1;
}

static int jsonlog_end_array(void *ctx)
{
	((struct jsonlog_run *)ctx)->depth--;
	return 1;
}

static const yajl_callbacks jsonlog_callbacks = {
    jsonlog_null,
    jsonlog_bool,
    NULL,
    NULL,
    jsonlog_number,
    jsonlog_string,
    jsonlog_start_map,
    jsonlog_key,
    jsonlog_end_map,
    jsonlog_start_array,
    jsonlog_end_array,
};

int parser_jsonlog_probe(const char *json, size_t len)
{
	return memmem(json, len, "\"ts\"", 4) != NULL && memmem(json, len, "\"msg\"", 5) != NULL &&
	       memmem(json, len, "\"auditID\"", 9) == NULL;
}

int parser_jsonlog_parse(struct parser_jsonlog *out, struct lt_buf *arena, struct lt_buf *pairs,
			 const char *s, size_t n)
{
	struct jsonlog_run r;
	int rc;

	memset(out, 0, sizeof *out);
	if (n < 2 || s[0] != '{' || memmem(s, n, "\"msg\"", 5) == NULL)
		return -1;
	memset(&r, 0, sizeof r);
	r.out = out;
	r.arena = arena;
	r.pairs = pairs;
	out->severity = 'I';
	lt_buf_reset(arena);
	lt_buf_init(&r.ref_name);
	lt_buf_init(&r.ref_ns);
	rc = parser_json_run(&jsonlog_callbacks, &r, NULL, "JSON log line", s, n, NULL, 0);
	lt_buf_release(&r.ref_name);
	lt_buf_release(&r.ref_ns);
	if (rc != 0 || out->ts_us == 0)
		return -1;
	out->msg.ptr = out->msg.len ? arena->ptr + r.msg_at : "";
	out->caller.ptr = out->caller.len ? arena->ptr + r.caller_at : NULL;
	return 0;
}
