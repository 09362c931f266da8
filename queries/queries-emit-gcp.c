/*
 * queries-emit-gcp.c - GKE's engines: a Cloud Logging filter over the
 * project's entries, and BigQuery standard SQL over a log sink's dataset.
 *
 * A GKE audit entry (docs/formats.md) is an AuditLog: the verb is the last
 * word of protoPayload.methodName, the namespace, resource, name and
 * subresource are the words of protoPayload.resourceName
 * (GROUP/VERSION/[namespaces/NS/]RESOURCE[/NAME[/SUBRESOURCE]]), the user is
 * authenticationInfo.principalEmail, the code a google.rpc code (0 OK, also
 * written as no code at all; 5 NOT_FOUND; 7 PERMISSION_DENIED; ...), which
 * parser-gke.c maps to HTTP as google/rpc/code.proto does.  An entry has no
 * stage, no user groups and one time only (no latency): conditions on them
 * are left out, with a comment.  The identity behind the user (the store's
 * IDENTITY) is authenticationInfo.principalSubject and the first principal of
 * authenticationInfo.serviceAccountDelegationInfo, as parser-gke.c reads them.
 *
 * Cloud Logging's filter language compares and matches (=~, RE2) but does
 * not sum up: its query lists the records a summary would count, and says
 * so.  Words of resourceName and methodName are matched by regular
 * expressions, a value of the user's escaped for RE2 first (every
 * character but letters and digits after a backslash), then quoted.
 *
 * BigQuery reads the sink's tables: cloudaudit_googleapis_com_activity
 * (writes; lease and node writes are all there) and, for the kubelet, the
 * node log kubelet, under the dataset --table names (PROJECT.DATASET); the
 * AuditLog is protopayload_auditlog, its request and response the JSON
 * strings requestJson and responseJson.  The code is the HTTP code the
 * parser would give: a Kubernetes Status's in responseJson, else the rpc
 * code's mapping.
 */
#include "queries-emit.h"

#include <stdlib.h>
#include <string.h>

/* google.rpc code -> HTTP, as parser-gke.c maps it (0 is 201 for a create). */
static const struct {
	int rpc, http;
} gcp_codes[] = {
    {0, 200}, {1, 499},	 {2, 500},  {3, 400},  {4, 504},  {5, 404},  {6, 409},	{7, 403},  {8, 429},
    {9, 400}, {10, 409}, {11, 400}, {12, 501}, {13, 500}, {14, 503}, {15, 500}, {16, 401},
};

/* ---- Cloud Logging ---- */

static const struct queries_emit_field logging_audit[] = {
    {"time", "timestamp", NULL},
    {"resource", "protoPayload.resourceName", NULL},
    {"subresource", "protoPayload.resourceName", NULL},
    {"namespace", "protoPayload.resourceName", NULL},
    {"name", "protoPayload.resourceName", NULL},
    {"verb", "protoPayload.methodName", NULL},
    {"stage", NULL, NULL},
    {"code", "protoPayload.status.code", NULL},
    {"user", "protoPayload.authenticationInfo.principalEmail", NULL},
    {"group0", NULL, NULL},
    {"identity", NULL, NULL},
    {"impersonated", NULL, NULL},
    {"ip", "protoPayload.requestMetadata.callerIp", NULL},
    {"agent", "protoPayload.requestMetadata.callerSuppliedUserAgent", NULL},
    {"auditid", "operation.id", NULL},
    {"holder", "protoPayload.request.spec.holderIdentity", NULL},
    {"reason", "protoPayload.status.message", NULL},
    {"latency", NULL, NULL},
    {NULL, NULL, NULL},
};

static const struct queries_emit_field logging_kubelet[] = {
    {"time", "timestamp", NULL},
    {"host", "resource.labels.node_name", NULL},
    {"severity", "jsonPayload.MESSAGE", NULL},
    {"location", NULL, NULL},
    {"text", "jsonPayload.MESSAGE", NULL},
    {NULL, NULL, NULL},
};

/*
 * A filter selects no columns: a list query says which fields hold its columns, as a
 * `gcloud logging read --format` projection.  The identity is two fields (the store
 * joins them): principalSubject and the delegation chain's first principal.
 */
static const struct {
	const char *field, *keys;
} logging_columns[] = {
    {"identity", "protoPayload.authenticationInfo.principalSubject,"
		 "protoPayload.authenticationInfo.serviceAccountDelegationInfo[0]."
		 "firstPartyPrincipal.principalEmail"},
};

/* The projection keys of neutral field f ("" when the entries lack it). */
static const char *logging_keys(const char *f)
{
	for (size_t i = 0; i < sizeof logging_columns / sizeof *logging_columns; i++)
		if (strcmp(logging_columns[i].field, f) == 0)
			return logging_columns[i].keys;
	for (const struct queries_emit_field *x = logging_audit; x->name != NULL; x++)
		if (strcmp(x->name, f) == 0)
			return x->expr != NULL ? x->expr : "";
	return "";
}

/* "-- columns: gcloud logging read FILTER --format='table(KEY,...)'" for a list query. */
static void logging_projection(const struct queries_emit_ctx *c)
{
	struct lt_buf keys;

	lt_buf_init(&keys);
	for (int i = 0; i < QUERIES_EMIT_MAX_FIELDS && c->q->fields[i] != NULL; i++) {
		const char *k = logging_keys(c->q->fields[i]);

		if (k[0] == '\0' || (strstr(keys.ptr, k) != NULL && strchr(k, ',') == NULL))
			continue; /* absent, or one field said already (resourceName) */
		lt_buf_printf(&keys, "%s%s", keys.len ? "," : "", k);
	}
	if (keys.len > 0)
		queries_emit_comment(c, "columns: gcloud logging read FILTER --format='table(%s)'",
				     keys.ptr);
	lt_buf_release(&keys);
}

static const struct queries_emit_field *logging_fields(int t, enum queries_emit_source s)
{
	(void)t;
	return s == QUERIES_SRC_KUBELET ? logging_kubelet : logging_audit;
}

static void logging_literal(struct lt_buf *b, const char *s, size_t n)
{
	queries_emit_c_quote(b, s, n, '"');
}

static void logging_regex(struct lt_buf *b, const char *expr, const char *re, size_t n)
{
	lt_buf_printf(b, "%s=~", expr);
	logging_literal(b, re, n);
}

/* A value of the user's (or ours) as an RE2 literal: each non-alphanumeric escaped. */
static void gcp_re_escape(struct lt_buf *b, const struct queries_emit_val *v)
{
	for (size_t i = 0; i < v->n; i++) {
		char ch = v->s[i];
		int alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			    (ch >= '0' && ch <= '9');

		if (ch == '\n' || ch == '\r' || ch == '\t')
			lt_buf_printf(b, "\\%c", ch == '\n' ? 'n' : ch == '\r' ? 'r' : 't');
		else if (alnum || (unsigned char)ch >= 0x80)
			lt_buf_putc(b, ch);
		else
			lt_buf_printf(b, "\\%c", ch);
	}
}

/* The regex matching resourceName's or methodName's word `field` equal to the value. */
static const struct {
	const char *field, *before, *after;
} logging_words[] = {
    {"resource", "^[^/]+/[^/]+/(namespaces/[^/]+/)?", "(/|$)"},
    {"namespace", "^[^/]+/[^/]+/namespaces/", "/"},
    {"name", "^[^/]+/[^/]+/(namespaces/[^/]+/)?[^/]+/", "(/[^/]+)?$"},
    {"subresource", "^[^/]+/[^/]+/(namespaces/[^/]+/)?[^/]+/[^/]+/", "$"},
    {"verb", "\\.", "$"},
};

/* The rpc codes whose HTTP code satisfies `op value`, as `code=(a OR b)`. */
static void logging_code(struct lt_buf *b, const char *op, long want)
{
	int n = 0, ok = 0;
	struct lt_buf set;

	lt_buf_init(&set);
	for (size_t i = 0; i < sizeof gcp_codes / sizeof *gcp_codes; i++) {
		long h = gcp_codes[i].http;
		int hit = strcmp(op, "=") == 0 ? h == want || (gcp_codes[i].rpc == 0 && want == 201)
			  : strcmp(op, "!=") == 0 ? h != want
			  : strcmp(op, "<") == 0  ? h < want
			  : strcmp(op, "<=") == 0 ? h <= want
			  : strcmp(op, ">") == 0  ? h > want
						  : h >= want;

		if (!hit)
			continue;
		ok |= gcp_codes[i].rpc == 0;
		lt_buf_printf(&set, "%s%d", n++ > 0 ? " OR " : "", gcp_codes[i].rpc);
	}
	if (ok && n == (int)(sizeof gcp_codes / sizeof *gcp_codes)) /* every code */
		lt_buf_printf(b, "(NOT protoPayload.status.code:* OR protoPayload.status.code>=0)");
	else if (ok)
		lt_buf_printf(b,
			      "(NOT protoPayload.status.code:* OR protoPayload.status.code=(%s))",
			      set.ptr);
	else
		lt_buf_printf(b, "protoPayload.status.code=(%s)", n > 0 ? set.ptr : "-1");
	lt_buf_release(&set);
}

static int logging_atom(const struct queries_emit_ctx *c, struct lt_buf *b, const char *field,
			const char *op, const struct queries_emit_val *v)
{
	(void)c;
	if (strcmp(field, "code") == 0) {
		char num[24];

		snprintf(num, sizeof num, "%.*s", (int)v->n, v->s);
		logging_code(b, op, strtol(num, NULL, 10));
		return 1;
	}
	for (size_t i = 0; i < sizeof logging_words / sizeof *logging_words; i++) {
		struct lt_buf re;

		if (strcmp(logging_words[i].field, field) != 0)
			continue;
		lt_buf_init(&re);
		lt_buf_printf(&re, "%s", logging_words[i].before);
		gcp_re_escape(&re, v);
		lt_buf_printf(&re, "%s", logging_words[i].after);
		lt_buf_printf(b, "%s", strcmp(op, "!=") == 0 ? "NOT " : "");
		logging_regex(b,
			      strcmp(field, "verb") == 0 ? "protoPayload.methodName"
							 : "protoPayload.resourceName",
			      re.ptr, re.len);
		lt_buf_release(&re);
		return 1;
	}
	if (strcmp(field, "severity") == 0 && v->n == 1) { /* a klog line's first letter */
		lt_buf_printf(b, "jsonPayload.MESSAGE=~\"^%c\\\\d{4} \"", v->s[0]);
		return 1;
	}
	return 0;
}

static void logging_render(const struct queries_emit_ctx *c)
{
	int kubelet = c->q->source == QUERIES_SRC_KUBELET;
	const char *cluster = c->e != NULL ? c->e->cluster : NULL;
	struct lt_buf *b = c->out;
	char since[40], until[40];

	queries_emit_head(c, kubelet
				 ? "the nodes' kubelet logs (resource.type k8s_node, log kubelet)"
				 : "GKE's Kubernetes audit logs (resource.type k8s_cluster, "
				   "cloudaudit.googleapis.com)");
	if (!c->q->full && c->q->fields[0] == NULL)
		queries_emit_comment(c,
				     "a filter does not sum up: this lists the records the summary "
				     "counts (--emit bigquery counts them over a log sink)");
	if (c->q->full)
		queries_emit_comment(c, "whole entries: gcloud logging read FILTER --format=json > "
					"FILE, then `leasetrail ingest FILE`");
	if (!kubelet && !c->q->full && c->q->fields[0] != NULL)
		logging_projection(c);
	if (kubelet)
		lt_buf_printf(b, "resource.type=\"k8s_node\"\nAND logName:\"logs/kubelet\"\n");
	else
		lt_buf_printf(b, "resource.type=\"k8s_cluster\"\nAND "
				 "logName:\"cloudaudit.googleapis.com\"\nAND "
				 "protoPayload.serviceName=\"k8s.io\"\n");
	if (cluster != NULL) {
		lt_buf_printf(b, "AND resource.labels.cluster_name=");
		logging_literal(b, cluster, strlen(cluster));
		lt_buf_putc(b, '\n');
	}
	queries_emit_range(c, since, until, sizeof since);
	if (since[0])
		lt_buf_printf(b, "AND timestamp>=\"%s\"\n", since);
	if (until[0])
		lt_buf_printf(b, "AND timestamp<=\"%s\"\n", until);
	lt_buf_printf(b, "AND ");
	if (queries_emit_where(c, b, 0, "\nAND ") == 0)
		lt_buf_truncate(b, b->len - strlen("AND "));
	else
		lt_buf_putc(b, '\n');
}

const struct queries_engine queries_engine_logging = {
    .id = LT_ENGINE_LOGGING,
    .title = "Google Cloud Logging query language",
    .family = QUERIES_FAM_FILTER,
    .comment = "--",
    .table_help = "a filter reads every log of the project: --cluster narrows it",
    .kw_and = "AND",
    .kw_or = "OR",
    .kw_not = "NOT",
    .op_eq = "=",
    .op_ne = "!=",
    .fields = logging_fields,
    .literal = logging_literal,
    .regex = logging_regex,
    .atom = logging_atom,
    .render = logging_render,
};

/* ---- BigQuery ---- */

#define BQ_AL	     "protopayload_auditlog"
#define BQ_RN	     BQ_AL ".resourceName"
#define BQ_RE(s, re) "REGEXP_EXTRACT(" s ", r'" re "')"
#define BQ_OBJ	     "^[^/]+/[^/]+/(?:namespaces/[^/]+/)?"
/*
 * The identity behind principalEmail, as the store keeps it (parser-audit.c's
 * audit_identity_parts[]): "subject=" authenticationInfo.principalSubject, "via=" the
 * first principal of its serviceAccountDelegationInfo, each left out when it only
 * repeats the user (EMAIL, or PREFIX:EMAIL), joined by a space; NULL when none.
 */
#define BQ_AI "protopayload_auditlog.authenticationInfo"
#define BQ_NOT_USER(v)                                                                             \
	"IF(" v " = " BQ_AI ".principalEmail OR ENDS_WITH(" v ", CONCAT(':', " BQ_AI               \
	".principalEmail)), NULL, "
#define BQ_SUBJECT BQ_AI ".principalSubject"
#define BQ_DELEGATOR                                                                               \
	BQ_AI ".serviceAccountDelegationInfo[SAFE_OFFSET(0)].firstPartyPrincipal.principalEmail"
#define BQ_IDENTITY                                                                                \
	"NULLIF(ARRAY_TO_STRING([" BQ_NOT_USER(                                                    \
	    BQ_SUBJECT) "CONCAT('subject=', " BQ_SUBJECT                                           \
			")), " BQ_NOT_USER(BQ_DELEGATOR) "CONCAT('via=', " BQ_DELEGATOR            \
							 "))], ' '), '')"
#define BQ_CODE                                                                                    \
	"COALESCE(SAFE_CAST(JSON_VALUE(" BQ_AL ".responseJson, '$.code') AS INT64), CASE "         \
	"COALESCE(" BQ_AL ".status.code, 0) WHEN 0 THEN IF(ENDS_WITH(" BQ_AL ".methodName, "       \
	"'.create'), 201, 200) WHEN 1 THEN 499 WHEN 3 THEN 400 WHEN 4 THEN 504 WHEN 5 THEN 404 "   \
	"WHEN 6 THEN 409 WHEN 7 THEN 403 WHEN 8 THEN 429 WHEN 9 THEN 400 WHEN 10 THEN 409 WHEN "   \
	"11 "                                                                                      \
	"THEN 400 WHEN 12 THEN 501 WHEN 14 THEN 503 WHEN 16 THEN 401 ELSE 500 END)"

static const struct queries_emit_field bq_audit[] = {
    {"time", "timestamp", NULL},
    {"resource", BQ_RE(BQ_RN, BQ_OBJ "([^/]+)"), NULL},
    {"subresource", BQ_RE(BQ_RN, BQ_OBJ "[^/]+/[^/]+/([^/]+)$"), NULL},
    {"namespace", BQ_RE(BQ_RN, "^[^/]+/[^/]+/namespaces/([^/]+)/"), NULL},
    {"name", BQ_RE(BQ_RN, BQ_OBJ "[^/]+/([^/]+)"), NULL},
    {"verb", BQ_RE(BQ_AL ".methodName", "\\.([^.]+)$"), NULL},
    {"stage", NULL, NULL},
    {"code", BQ_CODE, NULL},
    {"user", BQ_AL ".authenticationInfo.principalEmail", NULL},
    {"group0", NULL, NULL},
    {"identity", BQ_IDENTITY, NULL},
    {"impersonated", NULL, NULL},
    {"ip", BQ_AL ".requestMetadata.callerIp", NULL},
    {"agent", BQ_AL ".requestMetadata.callerSuppliedUserAgent", NULL},
    {"auditid", "operation.id", NULL},
    {"holder", "JSON_VALUE(" BQ_AL ".requestJson, '$.spec.holderIdentity')", NULL},
    {"reason", BQ_AL ".status.message", NULL},
    {"latency", NULL, NULL},
    {NULL, NULL, NULL},
};

static const struct queries_emit_field bq_kubelet[] = {
    {"time", "timestamp", NULL},
    {"host", "resource.labels.node_name", NULL},
    {"severity", BQ_RE("jsonPayload.message", "^([IWEF])\\d{4} "), NULL},
    {"location", BQ_RE("jsonPayload.message", "^[IWEF]\\d{4} [0-9:.]+\\s+\\d+ ([\\w.-]+:\\d+)\\]"),
     NULL},
    {"text", BQ_RE("jsonPayload.message", "^[IWEF]\\d{4} [^\\]]*\\] (.*)"), NULL},
    {NULL, NULL, NULL},
};

static const struct queries_emit_field *bq_fields(int t, enum queries_emit_source s)
{
	(void)t;
	return s == QUERIES_SRC_KUBELET ? bq_kubelet : bq_audit;
}

static void bq_literal(struct lt_buf *b, const char *s, size_t n)
{
	queries_emit_c_quote(b, s, n, '\'');
}

static void bq_regex(struct lt_buf *b, const char *expr, const char *re, size_t n)
{
	lt_buf_printf(b, "REGEXP_CONTAINS(%s, ", expr);
	bq_literal(b, re, n);
	lt_buf_putc(b, ')');
}

static void bq_bin(struct lt_buf *b, const char *t, int s)
{
	lt_buf_printf(b, "TIMESTAMP_SECONDS(DIV(UNIX_SECONDS(%s), %d) * %d)", t, s, s);
}

static void bq_latest(struct lt_buf *b, const char *e, const char *t)
{
	lt_buf_printf(b, "ARRAY_AGG(%s IGNORE NULLS ORDER BY %s DESC LIMIT 1)[SAFE_OFFSET(0)]", e,
		      t);
}

/* A BigQuery timestamp literal of an RFC 3339 time: "YYYY-MM-DD HH:MM:SS.ffffff+00". */
static void bq_time(struct lt_buf *b, const char *rfc3339)
{
	lt_buf_printf(b, "TIMESTAMP('%.10s %.15s+00')", rfc3339, rfc3339 + 11);
}

static void bq_render(const struct queries_emit_ctx *c)
{
	const char *dataset = c->e != NULL && c->e->table != NULL ? c->e->table : "PROJECT.DATASET";
	int kubelet = c->q->source == QUERIES_SRC_KUBELET, n = 0;
	struct lt_buf from, x[4];
	const char *extra[5];
	char since[40], until[40];

	queries_emit_head(c, kubelet ? "a Cloud Logging sink's dataset, table kubelet (the nodes' "
				       "kubelet logs)"
				     : "a Cloud Logging sink's dataset, table "
				       "cloudaudit_googleapis_com_activity (GKE's audit writes)");
	if (c->q->full)
		queries_emit_comment(
		    c, "whole rows, every column (timestamp, logName, insertId, "
		       "resource, operation, protopayload_auditlog with requestJson and "
		       "responseJson, ...): export the result as JSON and `leasetrail "
		       "ingest` it");
	lt_buf_init(&from);
	{
		struct lt_buf path;

		lt_buf_init(&path);
		lt_buf_printf(&path, "%s.%s", dataset,
			      kubelet ? "kubelet" : "cloudaudit_googleapis_com_activity");
		queries_emit_c_quote(&from, path.ptr, path.len, '`');
		lt_buf_release(&path);
	}
	for (int i = 0; i < 4; i++)
		lt_buf_init(&x[i]);
	lt_buf_printf(&x[0], kubelet ? "resource.type = 'k8s_node'"
				     : "resource.type = 'k8s_cluster' AND " BQ_AL ".serviceName = "
				       "'k8s.io'");
	extra[n++] = x[0].ptr;
	if (c->e != NULL && c->e->cluster != NULL) {
		lt_buf_printf(&x[1], "resource.labels.cluster_name = ");
		bq_literal(&x[1], c->e->cluster, strlen(c->e->cluster));
		extra[n++] = x[1].ptr;
	}
	queries_emit_range(c, since, until, sizeof since);
	if (since[0]) {
		lt_buf_printf(&x[2], "timestamp >= ");
		bq_time(&x[2], since);
		extra[n++] = x[2].ptr;
	}
	if (until[0]) {
		lt_buf_printf(&x[3], "timestamp <= ");
		bq_time(&x[3], until);
		extra[n++] = x[3].ptr;
	}
	extra[n] = NULL;
	queries_emit_sql(c, "*", from.ptr, extra);
	for (int i = 0; i < 4; i++)
		lt_buf_release(&x[i]);
	lt_buf_release(&from);
}

const struct queries_engine queries_engine_bigquery = {
    .id = LT_ENGINE_BIGQUERY,
    .title = "BigQuery standard SQL",
    .family = QUERIES_FAM_SQL,
    .comment = "--",
    .tables = (const char *const[]){"PROJECT.DATASET", NULL},
    .table_help = "the sink's dataset, PROJECT.DATASET",
    .any_table = 1,
    .kw_and = "AND",
    .kw_or = "OR",
    .kw_not = "NOT",
    .op_eq = "=",
    .op_ne = "!=",
    .fields = bq_fields,
    .literal = bq_literal,
    .regex = bq_regex,
    .in_open = " IN (",
    .in_sep = ", ",
    .in_close = ")",
    .render = bq_render,
    .bin = bq_bin,
    .latest = bq_latest,
};
