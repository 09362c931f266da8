/*
 * parser-results.c - rows of the query engines' result exports, back into events and lines.
 *
 * "Narrow there, analyse here": the narrowing queries return whole rows
 * (SELECT *, no project), and an engine exports them as JSON (an array of
 * row objects, or JSON lines) or CSV (a header naming the columns).  A row
 * is a list of cells (struct parser_res_cell: a column name, its value as
 * a string, a number, a boolean or JSON text); which table the row comes
 * from is known from its column names (parser_res_kind_of), and each table
 * is turned back into what the plain log holds:
 *
 *   AKSAudit, AKSAuditAdmin (Log Analytics, resource-specific): the audit
 *     Event rebuilt from its columns (AuditId -> auditID, Stage, RequestUri,
 *     Verb, User, ImpersonatedUser, SourceIps, UserAgent, ObjectRef,
 *     ResponseStatus, RequestObject, ResponseObject, RequestReceivedTime,
 *     StageReceivedTime, Annotations, Level), the other columns (TimeGenerated,
 *     _ResourceId, PodName, ...) kept under "logAnalytics" in the raw record;
 *   AzureDiagnostics (legacy): log_s is the Event (categories kube-audit and
 *     kube-audit-admin) or a component's log line (Category, pod_s);
 *   AKSControlPlane: Message is a log line of the component Category;
 *   BigQuery over a Cloud Logging sink (cloudaudit_googleapis_com_*): the
 *     LogEntry rebuilt from protopayload_auditlog.*, resource.*, labels.*,
 *     operation.*, timestamp (requestJson and responseJson become request
 *     and response), then read by the GKE envelope like any LogEntry.
 *
 * Column names match whatever their case, and '.' matches '_' (CSV
 * exports flatten protopayload_auditlog.methodName either way); a portal
 * CSV's " [UTC]" suffix is dropped.  A dynamic column may come as JSON or
 * as a string holding JSON (the CLI and CSV write it so); such a string is
 * checked to be one whole JSON value before it is written into the record.
 * Times are RFC 3339, BigQuery's "2024-01-01 01:00:00.123456 UTC", or
 * epoch seconds; they are written back with microseconds.  A row that
 * lacks what an event needs is refused, with the column it lacks.
 */
#include "parser-json.h"

#include <stdlib.h>
#include <string.h>

/* Cells of one JSON row; deeper leaves than this are not kept (their container is). */
#define RES_MAX_DEPTH 8
#define RES_MAX_PATH  256

/* ---- names ---------------------------------------------------------------- */

static int res_fold(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 'a';
	return c == '.' ? '_' : c;
}

/* True when the column name s is name (case folded, '.' as '_'). */
static int res_name_eq(struct lt_str s, const char *name)
{
	size_t n = strlen(name);

	if (s.len != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (res_fold(s.ptr[i]) != res_fold(name[i]))
			return 0;
	return 1;
}

/* True when the column name s starts with prefix (folded); *rest is what follows. */
static int res_name_prefix(struct lt_str s, const char *prefix, struct lt_str *rest)
{
	size_t n = strlen(prefix);

	if (s.len <= n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (res_fold(s.ptr[i]) != res_fold(prefix[i]))
			return 0;
	*rest = (struct lt_str){s.ptr + n, s.len - n};
	return 1;
}

static const struct parser_res_cell *res_get(const struct parser_res_cell *c, size_t n,
					     const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].type != PARSER_RES_NULL && res_name_eq(c[i].name, name))
			return c[i].type == PARSER_RES_STR && c[i].value.len == 0 ? NULL : &c[i];
	return NULL;
}

static int res_has(const struct parser_res_cell *c, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (res_name_eq(c[i].name, name))
			return 1;
	return 0;
}

static int res_has_prefix(const struct parser_res_cell *c, size_t n, const char *prefix)
{
	struct lt_str rest;

	for (size_t i = 0; i < n; i++)
		if (res_name_eq(c[i].name, prefix) || res_name_prefix(c[i].name, prefix, &rest))
			return 1;
	return 0;
}

enum parser_res_kind parser_res_kind_of(const struct parser_res_cell *c, size_t n)
{
	if (res_has(c, n, "AuditId") && res_has(c, n, "Verb"))
		return PARSER_RES_AKSAUDIT;
	if (res_has(c, n, "log_s") && res_has(c, n, "Category"))
		return PARSER_RES_AZDIAG;
	if (res_has(c, n, "Category") && res_has(c, n, "Message") &&
	    (res_has(c, n, "TimeGenerated") || res_has(c, n, "_ResourceId")))
		return PARSER_RES_CONTROLPLANE;
	if (res_has_prefix(c, n, "protopayload_auditlog"))
		return PARSER_RES_BIGQUERY;
	return PARSER_RES_NONE;
}

const char *parser_res_kind_name(enum parser_res_kind k)
{
	static const char *const names[] = {
	    [PARSER_RES_NONE] = "unknown",
	    [PARSER_RES_AKSAUDIT] = "Log Analytics AKSAudit",
	    [PARSER_RES_AZDIAG] = "Log Analytics AzureDiagnostics",
	    [PARSER_RES_CONTROLPLANE] = "Log Analytics AKSControlPlane",
	    [PARSER_RES_BIGQUERY] = "BigQuery Cloud Logging",
	};

	return names[k];
}

/* ---- values ---------------------------------------------------------------- */

/* The value without the blanks and newline a writer left around it. */
static struct lt_str res_trim(struct lt_str s)
{
	while (s.len > 0 &&
	       (s.ptr[0] == ' ' || s.ptr[0] == '\t' || s.ptr[0] == '\n' || s.ptr[0] == '\r'))
		s.ptr++, s.len--;
	while (s.len > 0 && (s.ptr[s.len - 1] == '\n' || s.ptr[s.len - 1] == '\r' ||
			     s.ptr[s.len - 1] == ' ' || s.ptr[s.len - 1] == '\t'))
		s.len--;
	return s;
}

/* Epoch seconds as BigQuery's REST API writes them ("1.7040708001234E9"). */
static int res_epoch(int64_t *out, struct lt_str s)
{
	char buf[40], *end;
	double v;

	if (s.len == 0 || s.len >= sizeof buf)
		return LT_ERR_FORMAT;
	memcpy(buf, s.ptr, s.len);
	buf[s.len] = '\0';
	v = strtod(buf, &end);
	if (*end != '\0' || !(v > 0 && v < 253402300800.0)) /* before year 10000 */
		return LT_ERR_FORMAT;
	*out = (int64_t)(v * 1e6 + 0.5);
	return 0;
}

/* A time cell: RFC 3339, "YYYY-MM-DD HH:MM:SS[.f][ UTC]", or epoch seconds. */
static int res_time(int64_t *out, const struct parser_res_cell *c)
{
	struct lt_str s = res_trim(c->value);

	if (c->type == PARSER_RES_NUM)
		return res_epoch(out, s);
	if (c->type != PARSER_RES_STR)
		return LT_ERR_FORMAT;
	if (s.len > 4 && memcmp(s.ptr + s.len - 4, " UTC", 4) == 0)
		s.len -= 4;
	if (s.len >= 10 && s.ptr[4] == '-')
		return parser_cw_time_parse(out, s.ptr, s.len);
	return res_epoch(out, s);
}

static const yajl_callbacks res_check_callbacks = {0};

/* True when s is one whole JSON object or array (a dynamic column written as a string). */
static int res_is_json(struct parser_res_decoder *d, struct lt_str s)
{
	s = res_trim(s);
	if (s.len < 2 || (s.ptr[0] != '{' && s.ptr[0] != '['))
		return 0;
	(void)d;
	return parser_json_run(&res_check_callbacks, NULL, NULL, "", s.ptr, s.len, NULL, 0) == 0;
}

/* ---- the decoder ------------------------------------------------------------ */

struct res_slot {
	size_t name, nlen, value, vlen;
	enum parser_res_type type;
	int top;
};

struct parser_res_decoder {
	struct lt_buf out;   /* the record rebuilt */
	struct lt_buf extra; /* the message of a line, the event of a diagnostic row */
	void *gke;	     /* a GKE LogEntry decoder, for BigQuery rows */
	/* walking a JSON row */
	struct lt_buf arena;
	struct res_slot *slots;
	size_t nslots, cap;
	struct parser_res_cell *cells;
	size_t ccap;
	enum parser_res_kind kind; /* of the first JSON row */
	yajl_handle h;
	const char *json;
	int depth;
	char path[RES_MAX_PATH];
	size_t plen;
	struct {
		size_t plen, start;
		int is_array;
	} stack[RES_MAX_DEPTH + 2];
};

struct parser_res_decoder *parser_res_new(void)
{
	struct parser_res_decoder *d = lt_xcalloc(1, sizeof *d);

	lt_buf_init(&d->out);
	lt_buf_init(&d->extra);
	lt_buf_init(&d->arena);
	d->gke = parser_gke_envelope.decoder_new();
	return d;
}

void parser_res_free(struct parser_res_decoder *d)
{
	if (d == NULL)
		return;
	lt_buf_release(&d->out);
	lt_buf_release(&d->extra);
	lt_buf_release(&d->arena);
	parser_gke_envelope.decoder_free(d->gke);
	free(d->slots);
	free(d->cells);
	free(d);
}

/* Writes a cell as a JSON value: strings quoted, JSON text (or a string of JSON) as it is. */
static void res_put_value(struct parser_res_decoder *d, struct lt_buf *b,
			  const struct parser_res_cell *c, int dynamic)
{
	if (c->type == PARSER_RES_JSON || c->type == PARSER_RES_NUM || c->type == PARSER_RES_BOOL)
		lt_buf_append(b, c->value.ptr, c->value.len);
	else if (dynamic && res_is_json(d, c->value))
		lt_buf_append(b, c->value.ptr, c->value.len);
	else
		lt_json_quote(b, c->value.ptr, c->value.len);
}

static void res_put_time(struct lt_buf *b, const char *key, int64_t us)
{
	char t[40];

	lt_time_format(t, sizeof t, us);
	lt_buf_printf(b, ",\"%s\":\"%s\"", key, t);
}

/* ---- Log Analytics: AKSAudit, AKSAuditAdmin ------------------------------- */

enum res_how { RH_STR, RH_JSON, RH_TIME };

static const struct res_map {
	const char *col, *key;
	enum res_how how;
} res_audit_map[] = {
    {.col = "Level", .key = "level", .how = RH_STR},
    {.col = "AuditId", .key = "auditID", .how = RH_STR},
    {.col = "Stage", .key = "stage", .how = RH_STR},
    {.col = "RequestUri", .key = "requestURI", .how = RH_STR},
    {.col = "Verb", .key = "verb", .how = RH_STR},
    {.col = "User", .key = "user", .how = RH_JSON},
    {.col = "ImpersonatedUser", .key = "impersonatedUser", .how = RH_JSON},
    {.col = "SourceIps", .key = "sourceIPs", .how = RH_JSON},
    {.col = "UserAgent", .key = "userAgent", .how = RH_STR},
    {.col = "ObjectRef", .key = "objectRef", .how = RH_JSON},
    {.col = "ResponseStatus", .key = "responseStatus", .how = RH_JSON},
    {.col = "RequestObject", .key = "requestObject", .how = RH_JSON},
    {.col = "ResponseObject", .key = "responseObject", .how = RH_JSON},
    {.col = "RequestReceivedTime", .key = "requestReceivedTimestamp", .how = RH_TIME},
    {.col = "StageReceivedTime", .key = "stageTimestamp", .how = RH_TIME},
    {.col = "Annotations", .key = "annotations", .how = RH_JSON},
};

/* What an AKSAudit row must have to be an audit Event. */
static const char *const res_audit_needs[] = {"AuditId", "Verb", "Stage", "StageReceivedTime"};

static int res_is_mapped(struct lt_str name)
{
	for (size_t i = 0; i < sizeof res_audit_map / sizeof *res_audit_map; i++)
		if (res_name_eq(name, res_audit_map[i].col))
			return 1;
	return 0;
}

/* The row's other top-level columns, as "logAnalytics":{...} (the cluster is in _ResourceId). */
static void res_put_rest(struct parser_res_decoder *d, struct lt_buf *b,
			 const struct parser_res_cell *c, size_t n, int (*skip)(struct lt_str))
{
	const char *sep = "";

	lt_buf_append(b, "\"logAnalytics\":{", 16);
	for (size_t i = 0; i < n; i++) {
		if (!c[i].top || c[i].type == PARSER_RES_NULL || skip(c[i].name))
			continue;
		lt_buf_append(b, sep, strlen(sep));
		lt_json_quote(b, c[i].name.ptr, c[i].name.len);
		lt_buf_putc(b, ':');
		res_put_value(d, b, &c[i], 0);
		sep = ",";
	}
	lt_buf_putc(b, '}');
}

static int res_put_mapped(struct parser_res_decoder *d, const struct res_map *m,
			  const struct parser_res_cell *c, char *reason, size_t size)
{
	struct lt_buf *b = &d->out;
	int64_t us;

	if (m->how == RH_TIME) {
		if (res_time(&us, c) != 0) {
			snprintf(reason, size,
				 "a Log Analytics AKSAudit row whose %s is not a time", m->col);
			return LT_ERR_FORMAT;
		}
		res_put_time(b, m->key, us);
		return 0;
	}
	lt_buf_printf(b, ",\"%s\":", m->key);
	res_put_value(d, b, c, m->how == RH_JSON);
	return 0;
}

static int res_aksaudit(struct parser_res_decoder *d, const struct parser_res_cell *c, size_t n,
			struct parser_env_record *out, char *reason, size_t size)
{
	struct lt_buf *b = &d->out;

	for (size_t i = 0; i < sizeof res_audit_needs / sizeof *res_audit_needs; i++) {
		if (res_get(c, n, res_audit_needs[i]) == NULL) {
			snprintf(reason, size,
				 "a Log Analytics AKSAudit row without %s: no audit event",
				 res_audit_needs[i]);
			return LT_ERR_FORMAT;
		}
	}
	lt_buf_reset(b);
	lt_buf_printf(b, "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\"");
	for (size_t i = 0; i < sizeof res_audit_map / sizeof *res_audit_map; i++) {
		const struct parser_res_cell *v = res_get(c, n, res_audit_map[i].col);

		if (v != NULL && res_put_mapped(d, &res_audit_map[i], v, reason, size) != 0)
			return LT_ERR_FORMAT;
	}
	lt_buf_putc(b, ',');
	res_put_rest(d, b, c, n, res_is_mapped);
	lt_buf_putc(b, '}');
	out->kind = PARSER_ENV_AUDIT;
	out->event = (struct lt_str){b->ptr, b->len};
	if (res_get(c, n, "PodName") != NULL)
		out->stream = res_get(c, n, "PodName")->value;
	return 0;
}

/* ---- Log Analytics: AzureDiagnostics, AKSControlPlane ---------------------- */

static int res_is_audit_category(struct lt_str cat)
{
	return res_name_eq(cat, "kube-audit") || res_name_eq(cat, "kube-audit-admin");
}

static int res_is_log_s(struct lt_str name)
{
	return res_name_eq(name, "log_s");
}

/* The Event of a diagnostic row, the row's other columns added under "logAnalytics". */
static void res_diag_event(struct parser_res_decoder *d, struct lt_str ev,
			   const struct parser_res_cell *c, size_t n)
{
	struct lt_buf *b = &d->out;
	size_t k = ev.len - 1; /* ev ends with '}' */

	lt_buf_reset(b);
	lt_buf_append(b, ev.ptr, k);
	while (k > 0 && (ev.ptr[k - 1] == ' ' || ev.ptr[k - 1] == '\n' || ev.ptr[k - 1] == '\t' ||
			 ev.ptr[k - 1] == '\r'))
		k--;
	if (k > 0 && ev.ptr[k - 1] != '{')
		lt_buf_putc(b, ',');
	res_put_rest(d, b, c, n, res_is_log_s);
	lt_buf_putc(b, '}');
}

/* A log line of a component: the message, the component, the pod, the time. */
static int res_line(struct parser_env_record *out, const struct parser_res_cell *msg,
		    const struct parser_res_cell *cat, const struct parser_res_cell *pod,
		    const struct parser_res_cell *tg, const char *what, char *reason, size_t size)
{
	out->kind = PARSER_ENV_LOG;
	out->message = res_trim(msg->value);
	out->component = cat->value;
	if (pod != NULL)
		out->stream = pod->value;
	if (tg != NULL && res_time(&out->ts_us, tg) != 0) {
		snprintf(reason, size, "a %s row whose TimeGenerated is not a time", what);
		return LT_ERR_FORMAT;
	}
	return 0;
}

static int res_needs(const struct parser_res_cell *v, const char *what, const char *col,
		     char *reason, size_t size)
{
	if (v != NULL)
		return 0;
	snprintf(reason, size, "a %s row without %s: nothing to read", what, col);
	return LT_ERR_FORMAT;
}

static int res_azdiag(struct parser_res_decoder *d, const struct parser_res_cell *c, size_t n,
		      struct parser_env_record *out, char *reason, size_t size)
{
	static const char what[] = "Log Analytics AzureDiagnostics";
	const struct parser_res_cell *log = res_get(c, n, "log_s"),
				     *cat = res_get(c, n, "Category");
	struct lt_str ev;

	if (res_needs(cat, what, "Category", reason, size) ||
	    res_needs(log, what, "log_s", reason, size))
		return LT_ERR_FORMAT;
	if (!res_is_audit_category(cat->value))
		return res_line(out, log, cat, res_get(c, n, "pod_s"),
				res_get(c, n, "TimeGenerated"), what, reason, size);
	ev = res_trim(log->value);
	out->kind = PARSER_ENV_AUDIT;
	out->stream = res_get(c, n, "pod_s") ? res_get(c, n, "pod_s")->value : out->stream;
	if (ev.len < 2 || ev.ptr[0] != '{' || ev.ptr[ev.len - 1] != '}') {
		out->event = ev; /* the audit decoder says what is wrong with it */
		return 0;
	}
	res_diag_event(d, ev, c, n);
	out->event = (struct lt_str){d->out.ptr, d->out.len};
	return 0;
}

static int res_controlplane(const struct parser_res_cell *c, size_t n,
			    struct parser_env_record *out, char *reason, size_t size)
{
	static const char what[] = "Log Analytics AKSControlPlane";
	const struct parser_res_cell *msg = res_get(c, n, "Message"),
				     *cat = res_get(c, n, "Category");

	if (res_needs(cat, what, "Category", reason, size) ||
	    res_needs(msg, what, "Message", reason, size))
		return LT_ERR_FORMAT;
	if (res_is_audit_category(cat->value)) {
		out->kind = PARSER_ENV_AUDIT;
		out->event = res_trim(msg->value);
		if (res_get(c, n, "PodName") != NULL)
			out->stream = res_get(c, n, "PodName")->value;
		return 0;
	}
	return res_line(out, msg, cat, res_get(c, n, "PodName"), res_get(c, n, "TimeGenerated"),
			what, reason, size);
}

/* ---- BigQuery: the LogEntry rebuilt --------------------------------------- */

/* BigQuery's label keys ('.' and '/' became '_') back to Kubernetes' own. */
static const struct {
	const char *bq, *key;
} res_bq_labels[] = {
    {"authorization_k8s_io_decision", "authorization.k8s.io/decision"},
    {"authorization_k8s_io_reason", "authorization.k8s.io/reason"},
};

/* Writes ,"key":value for the cell named col, if any; how: 's' string, 'n' number, 'b' bool. */
static void res_bq_put(struct parser_res_decoder *d, const char **sep, const char *key,
		       const struct parser_res_cell *c, size_t n, const char *col, char how)
{
	const struct parser_res_cell *v = res_get(c, n, col);
	struct lt_buf *b = &d->out;
	struct lt_str s;
	int64_t us;

	if (v == NULL)
		return;
	s = res_trim(v->value);
	lt_buf_printf(b, "%s\"%s\":", *sep, key);
	*sep = ",";
	if (how == 't' && res_time(&us, v) == 0) {
		char t[40];

		lt_time_format(t, sizeof t, us);
		lt_buf_printf(b, "\"%s\"", t);
	} else if (how == 'n' && s.len > 0 && s.len < 12 && strspn(s.ptr, "-0123456789") >= s.len) {
		lt_buf_append(b, s.ptr, s.len);
	} else if (how == 'b' && (lt_str_eq(s, "true") || lt_str_eq(s, "false"))) {
		lt_buf_append(b, s.ptr, s.len);
	} else {
		res_put_value(d, b, v, how == 'j');
	}
}

/* Every string cell under prefix (resource.labels., labels.) as "key":"value". */
static void res_bq_labels_put(struct parser_res_decoder *d, const struct parser_res_cell *c,
			      size_t n, const char *prefix)
{
	struct lt_buf *b = &d->out;
	const char *sep = "";
	struct lt_str rest;

	for (size_t i = 0; i < n; i++) {
		if (c[i].type != PARSER_RES_STR || !res_name_prefix(c[i].name, prefix, &rest))
			continue;
		lt_buf_append(b, sep, strlen(sep));
		sep = ",";
		for (size_t k = 0; k < sizeof res_bq_labels / sizeof *res_bq_labels; k++)
			if (res_name_eq(rest, res_bq_labels[k].bq))
				rest = (struct lt_str){res_bq_labels[k].key,
						       strlen(res_bq_labels[k].key)};
		lt_json_quote(b, rest.ptr, rest.len);
		lt_buf_putc(b, ':');
		lt_json_quote(b, c[i].value.ptr, c[i].value.len);
	}
}

#define BQ_PP "protopayload_auditlog."

static void res_bq_proto(struct parser_res_decoder *d, const struct parser_res_cell *c, size_t n)
{
	struct lt_buf *b = &d->out;
	const char *sep = ",";

	lt_buf_printf(b, ",\"protoPayload\":{\"@type\":"
			 "\"type.googleapis.com/google.cloud.audit.AuditLog\"");
	res_bq_put(d, &sep, "serviceName", c, n, BQ_PP "serviceName", 's');
	res_bq_put(d, &sep, "methodName", c, n, BQ_PP "methodName", 's');
	res_bq_put(d, &sep, "resourceName", c, n, BQ_PP "resourceName", 's');
	lt_buf_printf(b, ",\"authenticationInfo\":{");
	sep = "";
	res_bq_put(d, &sep, "principalEmail", c, n, BQ_PP "authenticationInfo.principalEmail", 's');
	/* who, really (parser-gke.c reads both into the identity); a REPEATED RECORD is JSON */
	res_bq_put(d, &sep, "principalSubject", c, n, BQ_PP "authenticationInfo.principalSubject",
		   's');
	res_bq_put(d, &sep, "serviceAccountDelegationInfo", c, n,
		   BQ_PP "authenticationInfo.serviceAccountDelegationInfo", 'j');
	lt_buf_printf(b, "},\"requestMetadata\":{");
	sep = "";
	res_bq_put(d, &sep, "callerIp", c, n, BQ_PP "requestMetadata.callerIp", 's');
	res_bq_put(d, &sep, "callerSuppliedUserAgent", c, n,
		   BQ_PP "requestMetadata.callerSuppliedUserAgent", 's');
	lt_buf_printf(b, "},\"status\":{");
	sep = "";
	res_bq_put(d, &sep, "code", c, n, BQ_PP "status.code", 'n');
	res_bq_put(d, &sep, "message", c, n, BQ_PP "status.message", 's');
	lt_buf_putc(b, '}');
	sep = ",";
	res_bq_put(d, &sep, "request", c, n, BQ_PP "requestJson", 'j');
	res_bq_put(d, &sep, "response", c, n, BQ_PP "responseJson", 'j');
	lt_buf_putc(b, '}');
}

static void res_bq_entry(struct parser_res_decoder *d, const struct parser_res_cell *c, size_t n)
{
	struct lt_buf *b = &d->out;
	const char *sep = "";

	lt_buf_reset(b);
	lt_buf_putc(b, '{');
	res_bq_put(d, &sep, "insertId", c, n, "insertId", 's');
	res_bq_put(d, &sep, "logName", c, n, "logName", 's');
	res_bq_put(d, &sep, "timestamp", c, n, "timestamp", 't');
	res_bq_put(d, &sep, "receiveTimestamp", c, n, "receiveTimestamp", 't');
	res_bq_put(d, &sep, "severity", c, n, "severity", 's');
	res_bq_put(d, &sep, "textPayload", c, n, "textPayload", 's');
	lt_buf_printf(b, "%s\"operation\":{", sep);
	sep = "";
	res_bq_put(d, &sep, "id", c, n, "operation.id", 's');
	res_bq_put(d, &sep, "producer", c, n, "operation.producer", 's');
	res_bq_put(d, &sep, "first", c, n, "operation.first", 'b');
	res_bq_put(d, &sep, "last", c, n, "operation.last", 'b');
	lt_buf_printf(b, "},\"resource\":{");
	sep = "";
	res_bq_put(d, &sep, "type", c, n, "resource.type", 's');
	lt_buf_printf(b, "%s\"labels\":{", sep);
	res_bq_labels_put(d, c, n, "resource.labels.");
	lt_buf_printf(b, "}},\"labels\":{");
	res_bq_labels_put(d, c, n, "labels.");
	lt_buf_putc(b, '}');
	res_bq_proto(d, c, n);
	lt_buf_putc(b, '}');
}

static int res_bigquery(struct parser_res_decoder *d, const struct parser_res_cell *c, size_t n,
			struct parser_env_record *out, char *reason, size_t size)
{
	const struct parser_res_cell *ts = res_get(c, n, "timestamp");
	int64_t us;

	if (ts == NULL || res_time(&us, ts) != 0) {
		snprintf(reason, size,
			 "a BigQuery Cloud Logging row without a timestamp that is a "
			 "time: no event");
		return LT_ERR_FORMAT;
	}
	res_bq_entry(d, c, n);
	return parser_gke_envelope.decode(d->gke, out, d->out.ptr, d->out.len, reason, size);
}

int parser_res_decode_cells(struct parser_res_decoder *d, enum parser_res_kind kind,
			    const struct parser_res_cell *c, size_t n,
			    struct parser_env_record *out, char *reason, size_t size)
{
	memset(out, 0, sizeof *out);
	out->pid = -1;
	switch (kind) {
	case PARSER_RES_AKSAUDIT:
		return res_aksaudit(d, c, n, out, reason, size);
	case PARSER_RES_AZDIAG:
		return res_azdiag(d, c, n, out, reason, size);
	case PARSER_RES_CONTROLPLANE:
		return res_controlplane(c, n, out, reason, size);
	case PARSER_RES_BIGQUERY:
		return res_bigquery(d, c, n, out, reason, size);
	case PARSER_RES_NONE:
		break;
	}
	snprintf(reason, size, "a query result row of no table leasetrail reads");
	return LT_ERR_FORMAT;
}

/* ---- JSON rows: an array of row objects, or JSON lines ---------------------- */

static struct res_slot *res_slot_new(struct parser_res_decoder *d)
{
	struct res_slot *s;

	d->slots = lt_grow(d->slots, &d->cap, d->nslots + 1, sizeof *d->slots);
	s = &d->slots[d->nslots++];
	s->name = d->arena.len;
	s->nlen = d->plen;
	s->top = d->depth == 1;
	lt_buf_append(&d->arena, d->path, d->plen);
	return s;
}

static void res_keep(struct parser_res_decoder *d, const void *v, size_t n,
		     enum parser_res_type type)
{
	struct res_slot *s;

	if (d->depth > RES_MAX_DEPTH || d->stack[d->depth].is_array)
		return;
	s = res_slot_new(d);
	s->type = type;
	s->value = d->arena.len;
	s->vlen = n;
	lt_buf_append(&d->arena, v, n);
}

static int res_string(void *ctx, const unsigned char *s, size_t n)
{
	res_keep(ctx, s, n, PARSER_RES_STR);
	return 1;
}

static int res_number(void *ctx, const char *s, size_t n)
{
	res_keep(ctx, s, n, PARSER_RES_NUM);
	return 1;
}

static int res_boolean(void *ctx, int b)
{
	res_keep(ctx, b ? "true" : "false", b ? 4 : 5, PARSER_RES_BOOL);
	return 1;
}

static int res_null(void *ctx)
{
	res_keep(ctx, "", 0, PARSER_RES_NULL);
	return 1;
}

static int res_key(void *ctx, const unsigned char *k, size_t n)
{
	struct parser_res_decoder *d = ctx;
	size_t base = d->stack[d->depth].plen;

	if (d->depth > RES_MAX_DEPTH)
		return 1;
	d->plen = base;
	if (base > 0 && base < RES_MAX_PATH)
		d->path[d->plen++] = '.';
	if (d->plen + n < RES_MAX_PATH) {
		memcpy(d->path + d->plen, k, n);
		d->plen += n;
	} else {
		d->plen = RES_MAX_PATH; /* too long: matches no column */
	}
	return 1;
}

static int res_open(struct parser_res_decoder *d, int is_array)
{
	d->depth++;
	if (d->depth <= RES_MAX_DEPTH + 1) {
		d->stack[d->depth].plen = d->plen;
		d->stack[d->depth].start = yajl_get_bytes_consumed(d->h) - 1;
		d->stack[d->depth].is_array = is_array;
	}
	return 1;
}

static int res_start_map(void *ctx)
{
	return res_open(ctx, 0);
}

static int res_start_array(void *ctx)
{
	return res_open(ctx, 1);
}

/* A container closes: its JSON text is the cell of its path (a dynamic column). */
static int res_close(void *ctx)
{
	struct parser_res_decoder *d = ctx;
	size_t start, end;

	if (d->depth >= 2 && d->depth <= RES_MAX_DEPTH + 1) {
		start = d->stack[d->depth].start;
		end = yajl_get_bytes_consumed(d->h);
		d->plen = d->stack[d->depth].plen;
		d->depth--;
		res_keep(d, d->json + start, end - start, PARSER_RES_JSON);
		return 1;
	}
	d->depth--;
	return 1;
}

static const yajl_callbacks res_callbacks = {
    .yajl_null = res_null,
    .yajl_boolean = res_boolean,
    .yajl_number = res_number,
    .yajl_string = res_string,
    .yajl_start_map = res_start_map,
    .yajl_map_key = res_key,
    .yajl_end_map = res_close,
    .yajl_start_array = res_start_array,
    .yajl_end_array = res_close,
};

/* The slots as cells (the arena no longer moves). */
static void res_cells(struct parser_res_decoder *d)
{
	d->cells = lt_grow(d->cells, &d->ccap, d->nslots + 1, sizeof *d->cells);
	for (size_t i = 0; i < d->nslots; i++) {
		const struct res_slot *s = &d->slots[i];

		d->cells[i] = (struct parser_res_cell){
		    .name = {d->arena.ptr + s->name, s->nlen},
		    .value = {d->arena.ptr + s->value, s->vlen},
		    .type = s->type,
		    .top = s->top,
		};
	}
}

static int res_walk(struct parser_res_decoder *d, const char *json, size_t len, char *reason,
		    size_t size)
{
	int rc;

	lt_buf_reset(&d->arena);
	d->nslots = 0;
	d->depth = 0;
	d->plen = 0;
	d->json = json;
	memset(&d->stack[0], 0, sizeof d->stack[0]);
	rc = parser_json_run(&res_callbacks, d, &d->h, "invalid JSON", json, len, reason, size);
	d->h = NULL;
	if (rc == 0)
		res_cells(d);
	return rc;
}

static void *res_env_new(void)
{
	return parser_res_new();
}

static void res_env_free(void *d)
{
	parser_res_free(d);
}

static int res_env_decode(void *dec, struct parser_env_record *out, const char *json, size_t len,
			  char *reason, size_t size)
{
	struct parser_res_decoder *d = dec;
	enum parser_res_kind kind;
	int rc;

	memset(out, 0, sizeof *out);
	out->pid = -1;
	if ((rc = res_walk(d, json, len, reason, size)) != 0)
		return rc;
	/* the first row names the table; a later row missing a key column is still of it */
	kind = parser_res_kind_of(d->cells, d->nslots);
	if (kind == PARSER_RES_NONE)
		kind = d->kind;
	else if (d->kind == PARSER_RES_NONE)
		d->kind = kind;
	rc = parser_res_decode_cells(d, kind, d->cells, d->nslots, out, reason, size);
	if (rc == 0 && kind != PARSER_RES_BIGQUERY && out->kind == PARSER_ENV_LOG)
		out->raw = (struct lt_str){json, len}; /* the row, _ResourceId and all */
	return rc;
}

/* A row object of one of the tables (its top-level keys). */
static int res_env_probe(const char *json, size_t len)
{
	static const char *const audit[] = {"AuditId", "Verb", NULL};
	static const char *const diag[] = {"log_s", "Category", NULL};
	static const char *const cp[] = {"Category", "Message", NULL};
	static const char *const cp_any[] = {"TimeGenerated", "_ResourceId", NULL};
	static const char *const bq[] = {"protopayload_auditlog", NULL};

	return parser_json_keys(json, len, audit, NULL) ||
	       parser_json_keys(json, len, diag, NULL) || parser_json_keys(json, len, cp, cp_any) ||
	       parser_json_keys(json, len, bq, NULL);
}

const struct parser_envelope parser_res_envelope = {
    .name = "results",
    .probe = res_env_probe,
    .decoder_new = res_env_new,
    .decoder_free = res_env_free,
    .decode = res_env_decode,
};
