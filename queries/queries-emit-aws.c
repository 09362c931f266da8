/*
 * queries-emit-aws.c - EKS's engines: CloudWatch Logs Insights over the
 * log group, and Athena (Trino SQL) over the logs exported to S3.
 *
 * Logs Insights addresses audit fields as it discovers them in JSON
 * messages (objectRef.resource, sourceIPs.0: the first array element).  Its
 * query carries neither a time range nor a log group (the console's, or
 * start-query's --start-time/--end-time and --log-group-name): both become
 * comment lines, the group's name quoted for a shell.  A field it must
 * parse out first (the latency from the two timestamps' seconds, the klog
 * header of a kubelet line) comes with its parse commands (a prelude), and
 * conditions on it follow them.
 *
 * Athena reads what the user's table holds, so the table's DDL is emitted
 * too, in one of two shapes (--table): `export`, a CloudWatch Logs export
 * task's objects (PREFIX/TASK/STREAM/000000.gz, lines "TIME MESSAGE",
 * RegexSerDe), partitioned by cluster; or `firehose`, the records a
 * subscription filter sends through Firehose (JSON with logGroup,
 * logStream and an array of logEvents, unnested).  Fields are
 * json_extract_scalar on the message; times from_iso8601_timestamp.
 */
#include "queries-emit.h"

#include <inttypes.h>
#include <string.h>

/* ---- CloudWatch Logs Insights ---- */

#define CWLI_KLOG                                                                                  \
	"parse @message /(?<severity>[IWEF])\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d+\\s+\\d+"            \
	" (?<location>[\\w.-]+:\\d+)\\] (?<text>.*)/"
#define CWLI_LATENCY                                                                               \
	"parse requestReceivedTimestamp /:(?<received_s>\\d\\d\\.\\d+)Z$/\n"                       \
	"| parse stageTimestamp /:(?<stage_s>\\d\\d\\.\\d+)Z$/\n"                                  \
	"| fields (stage_s - received_s + 60) % 60 as latency_s"

static const struct queries_emit_field cwli_audit[] = {
    {"time", "@timestamp", NULL},
    {"resource", "objectRef.resource", NULL},
    {"subresource", "objectRef.subresource", NULL},
    {"namespace", "objectRef.namespace", NULL},
    {"name", "objectRef.name", NULL},
    {"verb", "verb", NULL},
    {"stage", "stage", NULL},
    {"code", "responseStatus.code", NULL},
    {"user", "user.username", NULL},
    {"group0", "user.groups.0", NULL},
    {"identity", "user.extra.arn.0", NULL},
    {"impersonated", "impersonatedUser.username", NULL},
    {"ip", "sourceIPs.0", NULL},
    {"agent", "userAgent", NULL},
    {"auditid", "auditID", NULL},
    {"holder", "requestObject.spec.holderIdentity", NULL},
    {"reason", "responseStatus.message", NULL},
    {"latency", "latency_s", CWLI_LATENCY},
    {NULL, NULL, NULL},
};

static const struct queries_emit_field cwli_kubelet[] = {
    {"time", "@timestamp", NULL},	 {"host", "@logStream", NULL},
    {"severity", "severity", CWLI_KLOG}, {"location", "location", CWLI_KLOG},
    {"text", "text", CWLI_KLOG},	 {NULL, NULL, NULL},
};

static const struct queries_emit_field *cwli_fields(int t, enum queries_emit_source s)
{
	(void)t;
	return s == QUERIES_SRC_KUBELET ? cwli_kubelet : cwli_audit;
}

static void cwli_literal(struct lt_buf *b, const char *s, size_t n)
{
	queries_emit_c_quote(b, s, n, '"');
}

static void cwli_regex(struct lt_buf *b, const char *expr, const char *re, size_t n)
{
	lt_buf_printf(b, "%s like /", expr);
	for (size_t i = 0; i < n; i++)
		lt_buf_printf(b, "%s%c", re[i] == '/' ? "\\" : "", re[i]);
	lt_buf_putc(b, '/');
}

/* A value for a shell, in single quotes, for a comment's command line. */
static void cwli_shell_value(struct lt_buf *b, const char *s)
{
	struct lt_buf v;

	lt_buf_init(&v);
	queries_emit_comment_value(&v, s);
	lt_buf_putc(b, '\'');
	for (const char *p = v.ptr; *p; p++)
		lt_buf_printf(b, "%s", *p == '\'' ? "'\\''" : (char[]){*p, '\0'});
	lt_buf_putc(b, '\'');
	lt_buf_release(&v);
}

/* The comment giving the range to set; a Logs Insights query has none of its own. */
static void cwli_range(const struct queries_emit_ctx *c)
{
	const struct lt_query_opts *o = c->o;
	char a[40], b[40];

	if (o == NULL || (o->since_us == 0 && o->until_us == 0)) {
		queries_emit_comment(c,
				     "time range: all of the logs (set it in the console, or aws "
				     "logs start-query --start-time/--end-time)");
		return;
	}
	/* for a person to set in the console: in the display zone (--tz), as every time shown */
	if (o->since_us)
		lt_time_format_zone(a, sizeof a, o->since_us);
	if (o->until_us)
		lt_time_format_zone(b, sizeof b, o->until_us);
	lt_buf_printf(c->out, "# time range: %s .. %s (aws logs start-query",
		      o->since_us ? a : "start", o->until_us ? b : "now");
	if (o->since_us)
		lt_buf_printf(c->out, " --start-time %" PRId64, o->since_us / 1000000);
	if (o->until_us)
		lt_buf_printf(c->out, " --end-time %" PRId64, (o->until_us + 999999) / 1000000);
	lt_buf_printf(c->out, ")\n");
}

static void cwli_group(const struct queries_emit_ctx *c, struct lt_buf *group)
{
	const char *cluster = c->e != NULL ? c->e->cluster : NULL;

	if (cluster == NULL)
		return;
	lt_buf_printf(group,
		      c->q->source == QUERIES_SRC_KUBELET ? "/aws/containerinsights/%s/dataplane"
							  : "/aws/eks/%s/cluster",
		      cluster);
	lt_buf_printf(c->out, "# log group: ");
	cwli_shell_value(c->out, group->ptr);
	lt_buf_printf(c->out, " (aws logs start-query --log-group-name ");
	cwli_shell_value(c->out, group->ptr);
	lt_buf_printf(c->out, ")\n");
}

/* Each prelude a query's fields need, once, in the order the fields come. */
static void cwli_preludes(const struct queries_emit_ctx *c)
{
	const struct queries_emit_field *f = cwli_fields(0, c->q->source);
	const char *done[4] = {NULL};
	int ndone = 0;

	for (; f->name != NULL; f++) {
		int used = 0, seen = 0;

		if (f->prelude == NULL)
			continue;
		for (int i = 0; i < QUERIES_EMIT_MAX_WHERE && c->q->where[i] != NULL; i++)
			used |= strstr(c->q->where[i], f->name) != NULL;
		for (int i = 0; i < QUERIES_EMIT_MAX_KEYS; i++)
			used |= c->q->keys[i].field && strcmp(c->q->keys[i].field, f->name) == 0;
		for (int i = 0; i < QUERIES_EMIT_MAX_AGGS; i++)
			used |= c->q->aggs[i].field && strcmp(c->q->aggs[i].field, f->name) == 0;
		for (int i = 0; i < ndone; i++)
			seen |= done[i] == f->prelude;
		if (!used || seen || ndone == 4)
			continue;
		done[ndone++] = f->prelude;
		lt_buf_printf(c->out, "| %s\n", f->prelude);
	}
}

static void cwli_summary(const struct queries_emit_ctx *c)
{
	struct lt_buf *b = c->out;

	lt_buf_printf(b, "| stats ");
	for (int i = 0; i < QUERIES_EMIT_MAX_AGGS && c->q->aggs[i].as != NULL; i++) {
		const struct queries_emit_agg *a = &c->q->aggs[i];
		const struct queries_emit_field *f =
		    a->field ? queries_emit_field(c, a->field) : NULL;
		static const char *const fn[] = {"count(*)", "min(@timestamp)", "max(@timestamp)",
						 "max", "latest"};

		lt_buf_printf(b, "%s%s", i > 0 ? ", " : "", fn[a->fn]);
		if (f != NULL)
			lt_buf_printf(b, "(%s)", f->expr);
		lt_buf_printf(b, " as %s", a->as);
	}
	lt_buf_printf(b, " by ");
	for (int i = 0; i < QUERIES_EMIT_MAX_KEYS; i++) {
		const struct queries_emit_key *k = &c->q->keys[i];

		if (k->field == NULL && k->bin_s == 0)
			break;
		if (k->field != NULL)
			lt_buf_printf(b, "%s%s", i > 0 ? ", " : "",
				      queries_emit_field(c, k->field)->expr);
		else
			lt_buf_printf(b, "%sbin(%dm)", i > 0 ? ", " : "", k->bin_s / 60);
	}
	lt_buf_putc(b, '\n');
	if (c->q->having != NULL)
		lt_buf_printf(b, "| filter %s\n", c->q->having);
}

static void cwli_render(const struct queries_emit_ctx *c)
{
	int kubelet = c->q->source == QUERIES_SRC_KUBELET;
	struct lt_buf *b = c->out, group;

	lt_buf_init(&group);
	queries_emit_head(c, kubelet ? "the log group of the nodes' kubelet journals (Container "
				       "Insights: /aws/containerinsights/CLUSTER/dataplane); EKS "
				       "control-plane logs carry no kubelet lines"
				     : "log group /aws/eks/CLUSTER/cluster (EKS control-plane "
				       "logging, audit log type on)");
	cwli_group(c, &group);
	cwli_range(c);
	if (c->q->full)
		queries_emit_comment(c, "whole records (@message is the audit Event), at most 10000"
					" a query: narrow the range or the names when the result is"
					" that long; export the result and `leasetrail ingest` it");
	lt_buf_printf(b, "filter @logStream like /%s/\n",
		      kubelet ? "kubelet" : "^kube-apiserver-audit-");
	lt_buf_printf(b, "| filter ");
	if (queries_emit_where(c, b, 0, " and ") == 0)
		lt_buf_truncate(b, b->len - strlen("| filter "));
	else
		lt_buf_putc(b, '\n');
	cwli_preludes(c);
	lt_buf_printf(b, "| filter ");
	if (queries_emit_where(c, b, 1, " and ") == 0)
		lt_buf_truncate(b, b->len - strlen("| filter "));
	else
		lt_buf_putc(b, '\n');
	if (c->q->full) {
		lt_buf_printf(b, "| fields @timestamp, @message, @logStream, @log\n");
	} else if (c->q->fields[0] != NULL) {
		lt_buf_printf(b, "| fields ");
		for (int i = 0; i < QUERIES_EMIT_MAX_FIELDS && c->q->fields[i] != NULL; i++)
			lt_buf_printf(b, "%s%s", i > 0 ? ", " : "",
				      queries_emit_field(c, c->q->fields[i])->expr);
		lt_buf_putc(b, '\n');
	} else {
		cwli_summary(c);
	}
	lt_buf_printf(b, "| sort %s %s\n", queries_emit_sort(c, NULL), c->q->desc ? "desc" : "asc");
	if (c->q->limit > 0 || c->q->full)
		lt_buf_printf(b, "| limit %d\n", c->q->full ? 10000 : c->q->limit);
	lt_buf_release(&group);
}

const struct queries_engine queries_engine_cwli = {
    .id = LT_ENGINE_CWLI,
    .title = "CloudWatch Logs Insights",
    .family = QUERIES_FAM_PIPE,
    .comment = "#",
    .table_help = "Logs Insights reads the log group: --cluster names it",
    .kw_and = "and",
    .kw_or = "or",
    .kw_not = "not",
    .op_eq = "=",
    .op_ne = "!=",
    .fields = cwli_fields,
    .literal = cwli_literal,
    .regex = cwli_regex,
    .in_open = " in [",
    .in_sep = ", ",
    .in_close = "]",
    .render = cwli_render,
};

/* ---- Athena ---- */

#define ATHENA_MSG(path)  "json_extract_scalar(message, '$." path "')"
#define ATHENA_EVENT_TIME "from_iso8601_timestamp(" ATHENA_MSG("stageTimestamp") ")"

/* The audit fields, the same in both shapes (time aside: the event's own). */
#define ATHENA_AUDIT_FIELDS                                                                        \
	{"resource", ATHENA_MSG("objectRef.resource"), NULL},                                      \
	    {"subresource", ATHENA_MSG("objectRef.subresource"), NULL},                            \
	    {"namespace", ATHENA_MSG("objectRef.namespace"), NULL},                                \
	    {"name", ATHENA_MSG("objectRef.name"), NULL}, {"verb", ATHENA_MSG("verb"), NULL},      \
	    {"stage", ATHENA_MSG("stage"), NULL},                                                  \
	    {"code", "CAST(" ATHENA_MSG("responseStatus.code") " AS integer)", NULL},              \
	    {"user", ATHENA_MSG("user.username"), NULL},                                           \
	    {"group0", ATHENA_MSG("user.groups[0]"), NULL},                                        \
	    {"identity", ATHENA_MSG("user.extra.arn[0]"), NULL},                                   \
	    {"impersonated", ATHENA_MSG("impersonatedUser.username"), NULL},                       \
	    {"ip", ATHENA_MSG("sourceIPs[0]"), NULL}, {"agent", ATHENA_MSG("userAgent"), NULL},    \
	    {"auditid", ATHENA_MSG("auditID"), NULL},                                              \
	    {"holder", ATHENA_MSG("requestObject.spec.holderIdentity"), NULL},                     \
	    {"reason", ATHENA_MSG("responseStatus.message"), NULL},                                \
	    {"latency",                                                                            \
	     "date_diff('millisecond', from_iso8601_timestamp(" ATHENA_MSG(                        \
		 "requestReceivedTimestamp") "), " ATHENA_EVENT_TIME ") / 1000.0",                 \
	     NULL},                                                                                \
	{                                                                                          \
		NULL, NULL, NULL                                                                   \
	}

static const struct queries_emit_field athena_audit[] = {{"time", ATHENA_EVENT_TIME, NULL},
							 ATHENA_AUDIT_FIELDS};

/* Container Insights' journal records: {"hostname", "systemd_unit", "message": the klog line} */
#define ATHENA_KLOG(re) "regexp_extract(" ATHENA_MSG("message") ", '" re "', 1)"
#define ATHENA_KUBELET(time)                                                                       \
	{                                                                                          \
		{"time", time, NULL}, {"host", ATHENA_MSG("hostname"), NULL},                      \
		    {"severity", ATHENA_KLOG("^([IWEF])\\d{4} "), NULL},                           \
		    {"location", ATHENA_KLOG("^[IWEF]\\d{4} [0-9:.]+\\s+\\d+ ([\\w.-]+:\\d+)\\]"), \
		     NULL},                                                                        \
		    {"text", ATHENA_KLOG("^[IWEF]\\d{4} [^\\]]*\\] (.*)"), NULL},                  \
		    {NULL, NULL, NULL},                                                            \
	}

static const struct queries_emit_field athena_kubelet_export[] =
    ATHENA_KUBELET("from_iso8601_timestamp(ts)");
static const struct queries_emit_field athena_kubelet_firehose[] =
    ATHENA_KUBELET("from_unixtime(event_ms / 1000.0)");

static const struct queries_emit_field *athena_fields(int t, enum queries_emit_source s)
{
	if (s == QUERIES_SRC_AUDIT)
		return athena_audit;
	return t == 0 ? athena_kubelet_export : athena_kubelet_firehose;
}

/*
 * A Trino string: quotes doubled; a value with a line break or tab is a
 * Unicode string (U&'...') with them, and backslashes, escaped.
 */
static void athena_literal(struct lt_buf *b, const char *s, size_t n)
{
	int unicode = strcspn(s, "\n\r\t") < n;

	lt_buf_printf(b, "%s'", unicode ? "U&" : "");
	for (size_t i = 0; i < n; i++)
		if (s[i] == '\'')
			lt_buf_printf(b, "''");
		else if (unicode && (s[i] == '\\' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
			lt_buf_printf(b, "\\%04X", (unsigned)(unsigned char)s[i]);
		else
			lt_buf_putc(b, s[i]);
	lt_buf_putc(b, '\'');
}

static void athena_regex(struct lt_buf *b, const char *expr, const char *re, size_t n)
{
	lt_buf_printf(b, "regexp_like(%s, ", expr);
	athena_literal(b, re, n);
	lt_buf_putc(b, ')');
}

static void athena_bin(struct lt_buf *b, const char *t, int s)
{
	lt_buf_printf(b, "from_unixtime(floor(to_unixtime(%s) / %d) * %d)", t, s, s);
}

static void athena_latest(struct lt_buf *b, const char *e, const char *t)
{
	lt_buf_printf(b, "max_by(%s, %s)", e, t);
}

static const char *const athena_tables[] = {"export", "firehose", NULL};

static const char athena_ddl_export[] =
    "CREATE EXTERNAL TABLE IF NOT EXISTS eks_logs_export (\n"
    "  ts string,\n"
    "  message string\n"
    ")\n"
    "PARTITIONED BY (cluster string)\n"
    "ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.RegexSerDe'\n"
    "WITH SERDEPROPERTIES ('input.regex' = '^([^ ]+) (.*)$')\n"
    "LOCATION 's3://BUCKET/PREFIX/';\n";

static const char athena_ddl_firehose[] =
    "CREATE EXTERNAL TABLE IF NOT EXISTS eks_logs_firehose (\n"
    "  messagetype string,\n"
    "  owner string,\n"
    "  loggroup string,\n"
    "  logstream string,\n"
    "  subscriptionfilters array<string>,\n"
    "  logevents array<struct<id:string,`timestamp`:bigint,message:string>>\n"
    ")\n"
    "ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'\n"
    "LOCATION 's3://BUCKET/PREFIX/';\n";

static void athena_ddl(const struct queries_emit_ctx *c)
{
	if (c->table == 0) {
		queries_emit_comment(
		    c, "the table, once: each cluster's export task (aws logs "
		       "create-export-task) writes under s3://BUCKET/PREFIX/cluster=NAME/;"
		       " then MSCK REPAIR TABLE eks_logs_export");
		lt_buf_printf(c->out, "%s", athena_ddl_export);
		return;
	}
	queries_emit_comment(c, "the table, once: the Firehose stream of a subscription filter on "
				"the log group, one record a line (a newline delimiter or a Lambda "
				"processor: Firehose concatenates records otherwise)");
	lt_buf_printf(c->out, "%s", athena_ddl_firehose);
}

/* The conditions before the query's own: what the records are, the cluster, the range. */
static void athena_extra(const struct queries_emit_ctx *c, struct lt_buf *x, const char **extra)
{
	const char *t = queries_emit_field(c, "time")->expr, *cluster = c->e ? c->e->cluster : NULL;
	int kubelet = c->q->source == QUERIES_SRC_KUBELET, n = 0;
	char since[40], until[40];

	queries_emit_range(c, since, until, sizeof since);
	for (int i = 0; i < 4; i++)
		lt_buf_init(&x[i]);
	if (kubelet)
		lt_buf_printf(&x[0], "%s = 'kubelet.service'", ATHENA_MSG("systemd_unit"));
	else if (c->table == 0)
		lt_buf_printf(&x[0], "\"$path\" LIKE '%%/kube-apiserver-audit-%%'");
	else
		lt_buf_printf(&x[0], "logstream LIKE 'kube-apiserver-audit-%%'");
	extra[n++] = x[0].ptr;
	if (cluster != NULL) {
		struct lt_buf group;

		lt_buf_init(&group);
		lt_buf_printf(
		    &group, kubelet ? "/aws/containerinsights/%s/dataplane" : "/aws/eks/%s/cluster",
		    cluster);
		lt_buf_printf(&x[1], "%s = ", c->table == 0 ? "cluster" : "loggroup");
		athena_literal(&x[1], c->table == 0 ? cluster : group.ptr,
			       strlen(c->table == 0 ? cluster : group.ptr));
		lt_buf_release(&group);
		extra[n++] = x[1].ptr;
	}
	if (since[0])
		lt_buf_printf(&x[2], "%s >= from_iso8601_timestamp('%s')", t, since);
	if (until[0])
		lt_buf_printf(&x[3], "%s <= from_iso8601_timestamp('%s')", t, until);
	for (int i = 2; i < 4; i++)
		if (x[i].len > 0)
			extra[n++] = x[i].ptr;
	extra[n] = NULL;
}

static void athena_render(const struct queries_emit_ctx *c)
{
	struct lt_buf x[4];
	const char *extra[5];
	int firehose = c->table == 1;

	queries_emit_head(c, c->q->source == QUERIES_SRC_KUBELET
				 ? "the Container Insights dataplane log group "
				   "(/aws/containerinsights/CLUSTER/dataplane) exported to S3"
				 : "the EKS log group /aws/eks/CLUSTER/cluster (audit) exported to "
				   "S3");
	if (c->q->full)
		queries_emit_comment(c, firehose ? "whole records: loggroup, logstream, event_id, "
						   "event_ms, message (the audit Event)"
						 : "whole records: ts, message (the audit Event), "
						   "cluster");
	athena_ddl(c);
	athena_extra(c, x, extra);
	queries_emit_sql(c, firehose ? "loggroup, logstream, event_id, event_ms, message" : "*",
			 firehose
			     ? "eks_logs_firehose\nCROSS JOIN UNNEST(logevents) AS e (event_id, "
			       "event_ms, message)"
			     : "eks_logs_export",
			 extra);
	for (int i = 0; i < 4; i++)
		lt_buf_release(&x[i]);
}

const struct queries_engine queries_engine_athena = {
    .id = LT_ENGINE_ATHENA,
    .title = "Amazon Athena (Trino SQL)",
    .family = QUERIES_FAM_SQL,
    .comment = "--",
    .tables = athena_tables,
    .table_help = "export (a CloudWatch Logs export task's objects, the default) or firehose "
		  "(a subscription filter's Firehose records)",
    .kw_and = "AND",
    .kw_or = "OR",
    .kw_not = "NOT",
    .op_eq = "=",
    .op_ne = "<>",
    .fields = athena_fields,
    .literal = athena_literal,
    .regex = athena_regex,
    .in_open = " IN (",
    .in_sep = ", ",
    .in_close = ")",
    .render = athena_render,
    .bin = athena_bin,
    .latest = athena_latest,
};
