/*
 * queries-cwli.c - each canned query as a CloudWatch Logs Insights query.
 *
 * leasetrail answers from the logs someone exported; the same question can
 * be asked of the whole EKS log group, where the logs live.  Each canned
 * query is a row of a const table: the log group, notes on what Logs
 * Insights cannot compute the way the store does (it has no per-row lag,
 * so gaps and holder changes come out as per-lease summaries to read), and
 * the commands, one per line, the first bare and the others after "| ".
 *
 * Audit fields are addressed as Logs Insights discovers them in JSON
 * events: objectRef.resource, responseStatus.code, user.username,
 * sourceIPs.0 (the first array element), requestObject.spec.holderIdentity.
 * The time range is not part of a Logs Insights query (the console's range,
 * or start-query's --start-time/--end-time): --since/--until become a
 * comment line giving both.  "{slow}" in a command is the --slow threshold
 * in seconds.
 */
#include "lt_queries.h"

#include <inttypes.h>
#include <string.h>

#define CWLI_AUDIT_GROUP                                                                           \
	"log group /aws/eks/CLUSTER/cluster (EKS control-plane logging, audit log type on)"
#define CWLI_AUDIT_STREAMS "filter @logStream like /^kube-apiserver-audit-/"
#define CWLI_MAX_LINES	   10

struct cwli {
	const char *name;
	const char *group;		   /* the log group to select, for the comment */
	const char *note;		   /* one comment line, or NULL */
	const char *lines[CWLI_MAX_LINES]; /* the commands, NULL-terminated */
};

static const struct cwli cwli_queries[] = {
    {"renew-gaps",
     CWLI_AUDIT_GROUP,
     "no per-row lag(): renews per lease and minute; a sparse or missing minute is a gap",
     {CWLI_AUDIT_STREAMS,
      "filter objectRef.resource = \"leases\" and verb in [\"update\", \"patch\"]"
      " and responseStatus.code >= 200 and responseStatus.code < 300",
      "stats count(*) as renews, min(@timestamp) as first_renew, max(@timestamp) as last_renew"
      " by objectRef.namespace, objectRef.name, bin(1m)",
      "filter renews <= 2", "sort first_renew asc", "limit 10000", NULL}},
    {"orphaned-kubelets",
     CWLI_AUDIT_GROUP,
     "a long run of 404s on a node lease is a kubelet whose node was deleted",
     {CWLI_AUDIT_STREAMS,
      "filter objectRef.resource = \"leases\" and objectRef.namespace = \"kube-node-lease\""
      " and responseStatus.code = 404",
      "stats count(*) as requests, min(@timestamp) as first_404, max(@timestamp) as last_404"
      " by objectRef.name, user.username, sourceIPs.0",
      "sort first_404 asc", NULL}},
    {"who-deleted",
     CWLI_AUDIT_GROUP,
     NULL,
     {CWLI_AUDIT_STREAMS,
      "filter verb = \"delete\" and objectRef.resource in [\"leases\", \"nodes\"]"
      " and stage = \"ResponseComplete\"",
      "fields @timestamp, objectRef.resource, objectRef.namespace, objectRef.name,"
      " responseStatus.code, user.username, user.groups.0, sourceIPs.0, userAgent, auditID",
      "sort @timestamp asc", NULL}},
    {"gc-deletes",
     CWLI_AUDIT_GROUP,
     "node deletions and the garbage collector's lease deletions, in time order: read them "
     "in pairs",
     {CWLI_AUDIT_STREAMS,
      "filter verb = \"delete\" and stage = \"ResponseComplete\" and (objectRef.resource ="
      " \"nodes\" or (objectRef.resource = \"leases\" and user.username ="
      " \"system:serviceaccount:kube-system:generic-garbage-collector\"))",
      "fields @timestamp, objectRef.resource, objectRef.namespace, objectRef.name,"
      " responseStatus.code, user.username, sourceIPs.0, userAgent",
      "sort @timestamp asc", NULL}},
    {"recreations",
     CWLI_AUDIT_GROUP,
     "a create (201) whose first is after a delete's or a 404 run's last is a re-creation",
     {CWLI_AUDIT_STREAMS,
      "filter objectRef.resource = \"leases\" and stage = \"ResponseComplete\" and ((verb ="
      " \"create\" and responseStatus.code = 201) or (verb = \"delete\" and"
      " responseStatus.code < 300) or responseStatus.code = 404)",
      "stats count(*) as requests, min(@timestamp) as first, max(@timestamp) as last,"
      " latest(user.username) as by_user by objectRef.namespace, objectRef.name, verb,"
      " responseStatus.code",
      "sort first asc", NULL}},
    {"auth-failures",
     CWLI_AUDIT_GROUP,
     "then check the user's ClusterRoles and bindings: kubectl auth can-i update leases -n NS "
     "--as USER",
     {CWLI_AUDIT_STREAMS,
      "filter objectRef.resource = \"leases\" and responseStatus.code in [401, 403]",
      "stats count(*) as requests, min(@timestamp) as first, max(@timestamp) as last,"
      " latest(responseStatus.message) as reason by objectRef.namespace, objectRef.name,"
      " user.username",
      "sort first asc", NULL}},
    {"leader-changes",
     CWLI_AUDIT_GROUP,
     "one row per lease and renewer: a new renewer (source IP, or holder at RequestResponse "
     "level) is a new leader",
     {CWLI_AUDIT_STREAMS,
      "filter objectRef.resource = \"leases\" and objectRef.namespace != \"kube-node-lease\""
      " and verb in [\"update\", \"patch\"] and responseStatus.code = 200",
      "stats count(*) as renews, min(@timestamp) as first_renew, max(@timestamp) as last_renew,"
      " latest(requestObject.spec.holderIdentity) as holder by objectRef.namespace,"
      " objectRef.name, sourceIPs.0",
      "sort first_renew asc", NULL}},
    {"apiserver-identity",
     CWLI_AUDIT_GROUP,
     "an identity lease whose last_renew is over 1h before the range's end has expired;"
     " over 40s before it (4 renews missed), its apiserver stopped (stale)",
     {CWLI_AUDIT_STREAMS,
      "filter objectRef.resource = \"leases\" and objectRef.namespace = \"kube-system\""
      " and objectRef.name like /^(kube-)?apiserver-/ and responseStatus.code < 300",
      "stats count(*) as renews, min(@timestamp) as first_seen, max(@timestamp) as last_renew,"
      " latest(requestObject.spec.holderIdentity) as holder by objectRef.name",
      "sort last_renew desc", NULL}},
    {"slow-renewals",
     CWLI_AUDIT_GROUP,
     "latency = stageTimestamp - requestReceivedTimestamp, from their seconds (under 1 min)",
     {CWLI_AUDIT_STREAMS,
      "filter objectRef.resource = \"leases\" and verb in [\"update\", \"patch\"]"
      " and stage = \"ResponseComplete\"",
      "parse requestReceivedTimestamp /:(?<received_s>\\d\\d\\.\\d+)Z$/",
      "parse stageTimestamp /:(?<stage_s>\\d\\d\\.\\d+)Z$/",
      "fields (stage_s - received_s + 60) % 60 as latency_s", "filter latency_s > {slow}",
      "stats count(*) as requests, max(latency_s) as max_latency_s, min(@timestamp) as first,"
      " max(@timestamp) as last by objectRef.namespace, objectRef.name, user.username",
      "sort max_latency_s desc", NULL}},
    {"node-registrations",
     CWLI_AUDIT_GROUP,
     "a 409 by the node's own kubelet (system:node:NAME) is a restart re-registering: the node "
     "existed",
     {CWLI_AUDIT_STREAMS,
      "filter objectRef.resource = \"nodes\" and verb = \"create\" and stage ="
      " \"ResponseComplete\"",
      "fields @timestamp, objectRef.name, responseStatus.code, user.username, sourceIPs.0,"
      " userAgent",
      "sort @timestamp asc", NULL}},
    {"kubelet-errors",
     "the log group of the nodes' kubelet journals (Container Insights: "
     "/aws/containerinsights/CLUSTER/dataplane); EKS control-plane logs carry no kubelet lines",
     "per stream (one per node) and klog location (file.go:line: the kind of error), with the "
     "latest as a sample",
     {"filter @logStream like /kubelet/",
      "parse @message /(?<severity>[IWEF])\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d+\\s+\\d+"
      " (?<location>[\\w.-]+:\\d+)\\] (?<text>.*)/",
      "filter severity in [\"E\", \"F\"] or text like /(?i)fail|error|not found/",
      "stats count(*) as errors, min(@timestamp) as first, max(@timestamp) as last,"
      " latest(text) as sample by @logStream, location",
      "sort errors desc", NULL}},
    {"not-ready",
     CWLI_AUDIT_GROUP,
     "no per-node state: the node-controller's nodes/status update (Ready=Unknown) starts a "
     "window, its Node PATCHes add then remove the taints; Ready=False, the kubelet's message "
     "and the cause need RequestResponse bodies and the kubelet's journal",
     {CWLI_AUDIT_STREAMS,
      "filter objectRef.resource = \"nodes\" and verb in [\"update\", \"patch\"]"
      " and stage = \"ResponseComplete\" and user.username ="
      " \"system:serviceaccount:kube-system:node-controller\"",
      "stats count(*) as writes, min(@timestamp) as first, max(@timestamp) as last"
      " by objectRef.name, objectRef.subresource, bin(5m)",
      "sort first asc", NULL}},
    {"evictions",
     CWLI_AUDIT_GROUP,
     "pod deletes by the node-controller (taint eviction), if the audit policy logs pods; a "
     "DELETE does not name the pod's node: find it in the pod's binding or the kubelet's lines",
     {CWLI_AUDIT_STREAMS,
      "filter objectRef.resource = \"pods\" and verb = \"delete\" and stage ="
      " \"ResponseComplete\" and user.username ="
      " \"system:serviceaccount:kube-system:node-controller\"",
      "fields @timestamp, objectRef.namespace, objectRef.name, responseStatus.code,"
      " user.username, auditID",
      "sort @timestamp asc", NULL}},
};

static const struct cwli *cwli_find(const char *name)
{
	for (size_t i = 0; i < sizeof cwli_queries / sizeof *cwli_queries; i++)
		if (strcmp(cwli_queries[i].name, name) == 0)
			return &cwli_queries[i];
	return NULL;
}

/* Seconds, as few digits as they need: 1, 0.25, 1.5. */
static void cwli_seconds(char *buf, size_t size, int64_t us)
{
	int n = snprintf(buf, size, "%" PRId64 ".%06" PRId64, us / 1000000, us % 1000000);

	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
}

/* The comment giving the range to set; a Logs Insights query has none of its own. */
static void cwli_range(FILE *out, const struct lt_query_opts *o)
{
	char a[40] = "", b[40] = "";

	if (o == NULL || (o->since_us == 0 && o->until_us == 0)) {
		fputs(
		    "# time range: all of the logs (set it in the console, or aws logs start-query"
		    " --start-time/--end-time)\n",
		    out);
		return;
	}
	if (o->since_us)
		lt_time_format_zone(a, sizeof a, o->since_us);
	if (o->until_us)
		lt_time_format_zone(b, sizeof b, o->until_us);
	fprintf(out, "# time range: %s .. %s (aws logs start-query", o->since_us ? a : "start",
		o->until_us ? b : "now");
	if (o->since_us)
		fprintf(out, " --start-time %" PRId64, o->since_us / 1000000);
	if (o->until_us)
		fprintf(out, " --end-time %" PRId64, (o->until_us + 999999) / 1000000);
	fputs(")\n", out);
}

/* Writes one command, putting the --slow threshold where "{slow}" stands. */
static void cwli_command(FILE *out, const char *line, const struct lt_query_opts *o)
{
	const char *at = strstr(line, "{slow}");
	char secs[32];

	if (at == NULL) {
		fputs(line, out);
		return;
	}
	cwli_seconds(secs, sizeof secs, o != NULL && o->slow_us > 0 ? o->slow_us : 1000000);
	fprintf(out, "%.*s%s%s", (int)(at - line), line, secs, at + strlen("{slow}"));
}

int lt_query_cwli(const char *name, const struct lt_query_opts *o, FILE *out, struct lt_error *err)
{
	const struct cwli *q = cwli_find(name);
	const char *summary = NULL;

	if (q == NULL)
		return lt_error_set(err, LT_ERR_NOTFOUND,
				    "no canned query '%s' (`leasetrail query --list` names them)",
				    name);
	for (const struct lt_canned *c = lt_canned_list(); c->name; c++)
		if (strcmp(c->name, name) == 0)
			summary = c->summary;
	fprintf(out, "# leasetrail query %s%s%s\n", name, summary ? ": " : "",
		summary ? summary : "");
	fprintf(out, "# CloudWatch Logs Insights, %s\n", q->group);
	cwli_range(out, o);
	if (q->note != NULL)
		fprintf(out, "# %s\n", q->note);
	for (int i = 0; q->lines[i] != NULL; i++) {
		fputs(i == 0 ? "" : "| ", out);
		cwli_command(out, q->lines[i], o);
		fputc('\n', out);
	}
	if (fflush(out) != 0 || ferror(out))
		return lt_error_set(err, LT_ERR_IO, "cannot write the query");
	return 0;
}
