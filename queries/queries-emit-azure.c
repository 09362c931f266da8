/*
 * queries-emit-azure.c - AKS's engine: Azure Log Analytics (KQL).
 *
 * A diagnostic setting of the cluster sends the apiserver's audit log to a
 * Log Analytics workspace, in resource-specific tables (--table AKSAudit,
 * every event; AKSAuditAdmin, without get and list, which is every lease
 * and node write) whose columns are the Event's fields (Verb, Stage,
 * ObjectRef, ResponseStatus, User, SourceIps: dynamic values read with
 * tostring/toint), or in the legacy AzureDiagnostics table, where the
 * Event is the JSON string log_s of rows of Category "kube-audit"
 * (parse_json'd once as ev).  Kubelet lines are not a diagnostic category:
 * they are in Syslog where the workspace collects the nodes' syslog
 * (Computer, ProcessName, SyslogMessage).  The time range and the cluster
 * (_ResourceId, which ends in /managedClusters/NAME) are where clauses;
 * the latest value of a column is arg_max's.
 */
#include "queries-emit.h"

#include <string.h>

#define KQL_AUDIT_TABLE(o, code, user, imp, groups, ip, agent, verb, stage, auditid, req, latency) \
	{                                                                                          \
		{"time", "TimeGenerated", NULL}, {"resource", "tostring(" o ".resource)", NULL},   \
		    {"subresource", "tostring(" o ".subresource)", NULL},                          \
		    {"namespace", "tostring(" o ".namespace)", NULL},                              \
		    {"name", "tostring(" o ".name)", NULL}, {"verb", verb, NULL},                  \
		    {"stage", stage, NULL}, {"code", "toint(" code ".code)", NULL},                \
		    {"user", "tostring(" user ".username)", NULL},                                 \
		    {"group0", "tostring(" groups "[0])", NULL},                                   \
		    {"identity", "tostring(" user ".extra.oid[0])", NULL},                         \
		    {"impersonated", "tostring(" imp ".username)", NULL},                          \
		    {"ip", "tostring(" ip "[0])", NULL}, {"agent", agent, NULL},                   \
		    {"auditid", auditid, NULL},                                                    \
		    {"holder", "tostring(" req ".spec.holderIdentity)", NULL},                     \
		    {"reason", "tostring(" code ".message)", NULL}, {"latency", latency, NULL},    \
		    {NULL, NULL, NULL},                                                            \
	}

static const struct queries_emit_field kql_resource_specific[] =
    KQL_AUDIT_TABLE("ObjectRef", "ResponseStatus", "User", "ImpersonatedUser", "User.groups",
		    "SourceIps", "UserAgent", "Verb", "Stage", "AuditId", "RequestObject",
		    "(StageReceivedTime - RequestReceivedTime) / 1s");

static const struct queries_emit_field kql_diagnostics[] = KQL_AUDIT_TABLE(
    "ev.objectRef", "ev.responseStatus", "ev.user", "ev.impersonatedUser", "ev.user.groups",
    "ev.sourceIPs", "tostring(ev.userAgent)", "tostring(ev.verb)", "tostring(ev.stage)",
    "tostring(ev.auditID)", "ev.requestObject",
    "(todatetime(ev.stageTimestamp) - todatetime(ev.requestReceivedTimestamp)) / 1s");

#define KQL_KLOG(re) "extract(@\"" re "\", 1, SyslogMessage)"

static const struct queries_emit_field kql_syslog[] = {
    {"time", "TimeGenerated", NULL},
    {"host", "Computer", NULL},
    {"severity", KQL_KLOG("^([IWEF])\\d{4} "), NULL},
    {"location", KQL_KLOG("^[IWEF]\\d{4} [0-9:.]+\\s+\\d+ ([\\w.-]+:\\d+)\\]"), NULL},
    {"text", KQL_KLOG("^[IWEF]\\d{4} [^\\]]*\\] (.*)"), NULL},
    {NULL, NULL, NULL},
};

static const char *const kql_tables[] = {"AKSAudit", "AKSAuditAdmin", "AzureDiagnostics", NULL};

static const struct queries_emit_field *kql_fields(int t, enum queries_emit_source s)
{
	if (s == QUERIES_SRC_KUBELET)
		return kql_syslog;
	return t == 2 ? kql_diagnostics : kql_resource_specific;
}

/* A KQL string: "..." with backslash escapes. */
static void kql_literal(struct lt_buf *b, const char *s, size_t n)
{
	lt_buf_putc(b, '"');
	for (size_t i = 0; i < n; i++)
		if (s[i] == '\n' || s[i] == '\r' || s[i] == '\t')
			lt_buf_printf(b, "\\%c", s[i] == '\n' ? 'n' : s[i] == '\r' ? 'r' : 't');
		else if (s[i] == '\\' || s[i] == '"')
			lt_buf_printf(b, "\\%c", s[i]);
		else
			lt_buf_putc(b, s[i]);
	lt_buf_putc(b, '"');
}

static void kql_regex(struct lt_buf *b, const char *expr, const char *re, size_t n)
{
	lt_buf_printf(b, "%s matches regex ", expr);
	kql_literal(b, re, n);
}

/* The table, then what narrows it before the query's conditions: category, range, cluster. */
static void kql_source(const struct queries_emit_ctx *c)
{
	const char *cluster = c->e != NULL ? c->e->cluster : NULL;
	struct lt_buf *b = c->out;
	char since[40], until[40];

	if (c->q->source == QUERIES_SRC_KUBELET)
		lt_buf_printf(b, "Syslog\n| where ProcessName == \"kubelet\"\n");
	else if (c->table == 2)
		lt_buf_printf(b, "AzureDiagnostics\n| where Category == \"kube-audit\"\n");
	else
		lt_buf_printf(b, "%s\n", kql_tables[c->table]);
	queries_emit_range(c, since, until, sizeof since);
	if (since[0] && until[0])
		lt_buf_printf(b, "| where TimeGenerated between (datetime(%s) .. datetime(%s))\n",
			      since, until);
	else if (since[0] || until[0])
		lt_buf_printf(b, "| where TimeGenerated %s datetime(%s)\n",
			      since[0] ? ">=" : "<=", since[0] ? since : until);
	if (cluster != NULL && c->q->source == QUERIES_SRC_AUDIT) {
		struct lt_buf suffix;

		lt_buf_init(&suffix);
		lt_buf_printf(&suffix, "/managedClusters/%s", cluster);
		lt_buf_printf(b, "| where _ResourceId endswith ");
		kql_literal(b, suffix.ptr, suffix.len);
		lt_buf_putc(b, '\n');
		lt_buf_release(&suffix);
	}
	if (c->table == 2 && c->q->source == QUERIES_SRC_AUDIT)
		lt_buf_printf(b, "| extend ev = parse_json(log_s)\n");
}

static void kql_summary(const struct queries_emit_ctx *c)
{
	struct lt_buf *b = c->out;
	int latest = 0, n = 0;

	for (int i = 0; i < QUERIES_EMIT_MAX_AGGS && c->q->aggs[i].as != NULL; i++)
		if (c->q->aggs[i].fn == QUERIES_AGG_LATEST) {
			lt_buf_printf(b, "| extend %s = %s\n", c->q->aggs[i].as,
				      queries_emit_field(c, c->q->aggs[i].field)->expr);
			latest = 1;
		}
	lt_buf_printf(b, "| summarize ");
	for (int i = 0; i < QUERIES_EMIT_MAX_AGGS && c->q->aggs[i].as != NULL; i++) {
		const struct queries_emit_agg *a = &c->q->aggs[i];
		const struct queries_emit_field *f =
		    a->field ? queries_emit_field(c, a->field) : NULL;

		lt_buf_printf(b, "%s", n++ > 0 ? ", " : "");
		if (a->fn == QUERIES_AGG_LATEST)
			lt_buf_printf(b, "arg_max(TimeGenerated, %s)", a->as);
		else if (a->fn == QUERIES_AGG_COUNT)
			lt_buf_printf(b, "%s = count()", a->as);
		else
			lt_buf_printf(b, "%s = %s(%s)", a->as,
				      a->fn == QUERIES_AGG_FIRST ? "min" : "max",
				      f != NULL ? f->expr : "TimeGenerated");
	}
	lt_buf_printf(b, " by ");
	for (int i = 0; i < QUERIES_EMIT_MAX_KEYS; i++) {
		const struct queries_emit_key *k = &c->q->keys[i];

		if (k->field == NULL && k->bin_s == 0)
			break;
		if (k->field != NULL)
			lt_buf_printf(b, "%s%s = %s", i > 0 ? ", " : "", k->field,
				      queries_emit_field(c, k->field)->expr);
		else
			lt_buf_printf(b, "%stime_bin = bin(TimeGenerated, %dm)", i > 0 ? ", " : "",
				      k->bin_s / 60);
	}
	lt_buf_putc(b, '\n');
	if (latest)
		lt_buf_printf(b, "| project-away TimeGenerated\n");
	if (c->q->having != NULL)
		lt_buf_printf(b, "| where %s\n", c->q->having);
}

static void kql_render(const struct queries_emit_ctx *c)
{
	static const char *const reads[] = {
	    "table AKSAudit (diagnostic setting kube-audit, resource-specific)",
	    "table AKSAuditAdmin (diagnostic setting kube-audit-admin: no get and list)",
	    "table AzureDiagnostics (legacy: Category kube-audit, the Event in log_s)",
	};
	struct lt_buf *b = c->out;

	queries_emit_head(c, c->q->source == QUERIES_SRC_KUBELET
				 ? "table Syslog (the nodes' syslog collected by the workspace); a "
				   "kubelet line names its node (Computer), not its cluster"
				 : reads[c->table]);
	if (c->q->full)
		queries_emit_comment(
		    c, "whole rows, every column: export them (Export to CSV, or az "
		       "monitor log-analytics query -o json) and `leasetrail ingest`");
	kql_source(c);
	lt_buf_printf(b, "| where ");
	if (queries_emit_where(c, b, 0, " and ") == 0)
		lt_buf_truncate(b, b->len - strlen("| where "));
	else
		lt_buf_putc(b, '\n');
	if (c->q->fields[0] != NULL) {
		lt_buf_printf(b, "| project ");
		for (int i = 0, n = 0; i < QUERIES_EMIT_MAX_FIELDS && c->q->fields[i] != NULL;
		     i++) {
			const char *name = c->q->fields[i];
			const struct queries_emit_field *f = queries_emit_field(c, name);

			if (strcmp(name, "time") == 0)
				lt_buf_printf(b, "%sTimeGenerated", n++ > 0 ? ", " : "");
			else if (f != NULL)
				lt_buf_printf(b, "%s%s = %s", n++ > 0 ? ", " : "", name, f->expr);
		}
		lt_buf_putc(b, '\n');
	} else if (!c->q->full) {
		kql_summary(c);
	}
	if (c->q->full && c->table == 2)
		lt_buf_printf(b, "| project-away ev\n"); /* log_s holds it */
	lt_buf_printf(b, "| sort by %s %s\n", queries_emit_sort(c, NULL),
		      c->q->desc ? "desc" : "asc");
	if (c->q->limit > 0)
		lt_buf_printf(b, "| take %d\n", c->q->limit);
}

const struct queries_engine queries_engine_kql = {
    .id = LT_ENGINE_KQL,
    .title = "Azure Log Analytics (KQL)",
    .family = QUERIES_FAM_PIPE,
    .comment = "//",
    .tables = kql_tables,
    .table_help = "AKSAudit (the default), AKSAuditAdmin or AzureDiagnostics",
    .kw_and = "and",
    .kw_or = "or",
    .kw_not = "not",
    .op_eq = "==",
    .op_ne = "!=",
    .fields = kql_fields,
    .literal = kql_literal,
    .regex = kql_regex,
    .in_open = " in (",
    .in_sep = ", ",
    .in_close = ")",
    .render = kql_render,
};
