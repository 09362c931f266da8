/*
 * test-clouds.c - cloud envelopes: AKS diagnostic records and GKE LogEntries (the real
 * records of tests/corpus, framed at every chunk size, and the GKE mapping case by case),
 * JSON records wrapping a log line, and what tells an audit Event from other JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "parser-int.h"
#include "test-identity.h"
#include "test-files.h"

#define MAX_SEEN 16

/* ---- envelope records as a framer hands them out -------------------------- */

/* What each record of a file turned into: its kind and the first bytes of its text. */
struct seen {
	const struct parser_envelope *env;
	void *dec;
	int n, nrej;
	enum parser_env_kind kind[MAX_SEEN];
	char text[MAX_SEEN][96];
	char stream[MAX_SEEN][96];
	char component[MAX_SEEN][32];
	char cluster[MAX_SEEN][32];
	int64_t ts[MAX_SEEN];
	uint64_t line[MAX_SEEN];
};

static void copy_opt(char *dst, size_t size, struct lt_str v)
{
	size_t n = v.ptr == NULL ? 0 : v.len < size - 1 ? v.len : size - 1;

	if (n > 0)
		memcpy(dst, v.ptr, n);
	dst[n] = '\0';
}

static int on_record(const char *text, size_t len, uint64_t line, uint64_t offset, void *ctx)
{
	struct seen *s = ctx;
	struct parser_env_record r;
	char reason[200];

	(void)offset;
	if (s->env->decode(s->dec, &r, text, len, reason, sizeof reason) != 0) {
		s->nrej++;
		return 0;
	}
	assert_true(s->n < MAX_SEEN);
	s->kind[s->n] = r.kind;
	copy_opt(s->text[s->n], sizeof s->text[0],
		 r.kind == PARSER_ENV_AUDIT ? r.event : r.message);
	copy_opt(s->stream[s->n], sizeof s->stream[0], r.stream);
	copy_opt(s->component[s->n], sizeof s->component[0], r.component);
	copy_opt(s->cluster[s->n], sizeof s->cluster[0], r.cluster);
	s->ts[s->n] = r.ts_us;
	s->line[s->n] = line;
	s->n++;
	return 0;
}

static int on_reject(uint64_t line, uint64_t offset, const char *reason, void *ctx)
{
	(void)line;
	(void)offset;
	(void)reason;
	((struct seen *)ctx)->nrej++;
	return 0;
}

static const struct parser_frame_ops frame_ops = {on_record, on_reject};

/* Frames text fed chunk bytes at a time, each record through env's decoder. */
static void run(struct seen *s, const struct parser_envelope *env, const char *text, size_t len,
		size_t chunk)
{
	struct parser_frame *f = parser_frame_new(&frame_ops, s, 0);

	memset(s, 0, sizeof *s);
	s->env = env;
	s->dec = env->decoder_new();
	for (size_t at = 0; at < len; at += chunk)
		assert_int_equal(
		    parser_frame_feed(f, text + at, len - at < chunk ? len - at : chunk), 0);
	assert_int_equal(parser_frame_finish(f), 0);
	parser_frame_free(f);
	env->decoder_free(s->dec);
}

/* The same records, whatever the chunk size (yajl and the framer keep state across them). */
static void check_chunks(const struct parser_envelope *env, const char *path, struct seen *whole)
{
	static const size_t chunks[] = {1, 2, 3, 7, 64, 4096};
	size_t len;
	char *text = slurp(path, &len);
	struct seen *s = calloc(1, sizeof *s);

	assert_true(env->probe(text, len) || text[0] == '[' || text[0] == '{');
	run(whole, env, text, len, len);
	for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++) {
		run(s, env, text, len, chunks[i]);
		assert_int_equal(s->n, whole->n);
		assert_int_equal(s->nrej, whole->nrej);
		for (int k = 0; k < s->n; k++) {
			assert_string_equal(s->text[k], whole->text[k]);
			assert_int_equal(s->line[k], whole->line[k]);
		}
	}
	free(s);
	free(text);
}

/* The real records: storage JSON lines and an Event Hub message of the same two. */
static void test_aks_corpus(void **state)
{
	static const char *const files[] = {
	    LT_TEST_CORPUS "/aks/dynatrace-log-forwarder_PT1H.json",
	    LT_TEST_CORPUS "/aks/dynatrace-log-forwarder_eventhub.json",
	};
	struct seen *s = calloc(1, sizeof *s);
	char buf[40];

	(void)state;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		check_chunks(&parser_aks_envelope, files[i], s);
		assert_int_equal(s->n, 2);
		assert_int_equal(s->nrej, 0);
		assert_int_equal(s->kind[0], PARSER_ENV_AUDIT);
		assert_true(strncmp(s->text[0],
				    "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\"",
				    46) == 0);
		assert_string_equal(s->stream[0], "kube-apiserver-6b497d8d5f-rb9qn");
		/* the cluster from resourceId ".../MANAGEDCLUSTERS/DEMO-AKS", as Azure writes it */
		assert_string_equal(s->cluster[0], "DEMO-AKS");
		assert_string_equal(s->cluster[1], "DEMO-AKS");
		assert_int_equal(s->kind[1], PARSER_ENV_LOG);
		assert_true(
		    strncmp(s->text[1], "I0202 15:03:28.853066       1 event.go:291]", 43) == 0);
		assert_string_equal(s->component[1], "kube-controller-manager");
		lt_time_format(buf, sizeof buf, s->ts[1]);
		assert_string_equal(buf, "2021-02-02T15:03:28.000000Z");
	}
	free(s);
}

/* gcloud's JSON array and a sink's JSON lines of the same two entries. */
static void test_gke_corpus(void **state)
{
	static const char *const files[] = {
	    LT_TEST_CORPUS "/gke/khi_gcloud-logging-read.json",
	    LT_TEST_CORPUS "/gke/khi_sink.json",
	};
	struct seen *s = calloc(1, sizeof *s);

	(void)state;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		check_chunks(&parser_gke_envelope, files[i], s);
		assert_int_equal(s->n, 2);
		assert_int_equal(s->nrej, 0);
		assert_int_equal(s->kind[0], PARSER_ENV_AUDIT);
		assert_string_equal(
		    s->stream[0],
		    "projects/sample-project/logs/cloudaudit.googleapis.com%2Factivity");
		assert_int_equal(s->kind[1], PARSER_ENV_LOG);
		assert_true(strncmp(s->text[1], "I1119 22:48:13.914655 1675", 26) == 0);
		/* resource.labels.cluster_name, on the audit entry and the node's line alike */
		assert_string_equal(s->cluster[0], "sample-cluster");
		assert_string_equal(s->cluster[1], "sample-cluster");
	}
	free(s);
}

/* ---- cluster names: what each source's string names ----------------------- */

static void want_cluster(int line, const char *what, struct lt_str got, const char *want)
{
	if (want == NULL && got.ptr == NULL)
		return;
	if (want == NULL || got.ptr == NULL || got.len != strlen(want) ||
	    memcmp(got.ptr, want, got.len) != 0)
		fail_msg("line %d: %s: got '%.*s', want '%s'", line, what, (int)got.len,
			 got.ptr ? got.ptr : "(none)", want ? want : "(none)");
}

#define S(x)                                                                                       \
	{                                                                                          \
		x, sizeof x - 1                                                                    \
	}

static void test_cluster_names(void **state)
{
	static const struct {
		struct lt_str group;
		const char *want;
	} groups[] = {
	    {S("/aws/eks/prod-east/cluster"), "prod-east"},
	    {S("123456789012:/aws/eks/prod_2/cluster"), "prod_2"}, /* Logs Insights' @log */
	    {S("/aws/eks/prod/cluster/extra"), NULL},		   /* not the whole group */
	    {S("/aws/eks//cluster"), NULL},
	    {S("/aws/lambda/my-function"), NULL},
	    {S("/aws/eks/a b/cluster"), NULL}, /* no cloud names a cluster so */
	    {S("/aws/eks/\x1b[31m/cluster"), NULL},
	    {S("aws/eks/prod/cluster"), NULL}, /* a group starts with '/' */
	    {{NULL, 0}, NULL},		       /* no group */
	};
	static const struct {
		const char *path, *want;
	} paths[] = {
	    {"exports/aws/eks/prod/cluster/0f1e-task/kube-apiserver-audit-ab12/000000.gz", "prod"},
	    {"aws/eks/staging/cluster/t/s/000000.gz", "staging"},
	    {"/data/aws/eks/a/cluster/aws/eks/b/cluster/x.gz", "b"}, /* the nearest the file */
	    {"aws/eks/prod/clusters/x.gz", NULL},
	    {"samples/audit/kube-apiserver-audit.1.log", NULL},
	    {"", NULL},
	};
	static const struct {
		struct lt_str rid;
		const char *want;
	} rids[] = {
	    {S("/SUBSCRIPTIONS/X/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.CONTAINERSERVICE/"
	       "MANAGEDCLUSTERS/DEMO-AKS"),
	     "DEMO-AKS"},
	    {S("/subscriptions/x/resourceGroups/rg/providers/Microsoft.ContainerService/"
	       "managedClusters/my-aks/extra"),
	     "my-aks"},
	    {S("/subscriptions/x/resourceGroups/rg/providers/Microsoft.Web/sites/app"), NULL},
	    {S("/managedClusters/"), NULL},
	};

	(void)state;
	for (size_t i = 0; i < sizeof groups / sizeof *groups; i++)
		want_cluster(__LINE__, "log group", lt_cluster_from_log_group(groups[i].group),
			     groups[i].want);
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
		want_cluster(__LINE__, paths[i].path, lt_cluster_from_path(paths[i].path),
			     paths[i].want);
	for (size_t i = 0; i < sizeof rids / sizeof *rids; i++)
		want_cluster(__LINE__, "resourceId", lt_cluster_from_resource_id(rids[i].rid),
			     rids[i].want);
	assert_true(lt_cluster_name_ok("a", 1));
	assert_true(lt_cluster_name_ok("prod.east-1_x", 13));
	assert_false(lt_cluster_name_ok("-x", 2));
	assert_false(lt_cluster_name_ok("", 0));
	assert_false(lt_cluster_name_ok("a/b", 3));
	{
		char long_name[102];

		memset(long_name, 'a', sizeof long_name);
		assert_true(lt_cluster_name_ok(long_name, 100));
		assert_false(lt_cluster_name_ok(long_name, 101));
	}
}

/* A GKE entry's cluster_name that no cloud would give is no cluster. */
static void test_gke_cluster_hostile(void **state)
{
	static const char entry[] =
	    "{\"logName\":\"projects/p/logs/x\",\"textPayload\":\"hello\","
	    "\"timestamp\":\"2024-01-01T00:00:00Z\","
	    "\"resource\":{\"type\":\"k8s_node\",\"labels\":{\"cluster_name\":\"a\\u001b[2Jb\","
	    "\"node_name\":\"n1\"}}}\n";
	struct seen *s = calloc(1, sizeof *s);

	(void)state;
	run(s, &parser_gke_envelope, entry, sizeof entry - 1, sizeof entry);
	assert_int_equal(s->n, 1);
	assert_string_equal(s->cluster[0], "");
	free(s);
}

/* ---- the GKE mapping, one AuditLog at a time ------------------------------ */

/* An AuditLog entry with the given parts (the rest as the corpus has them). */
static int gke_entry(char *out, size_t size, const char *method, const char *resource,
		     const char *status, const char *extra)
{
	return snprintf(
	    out, size,
	    "{\"insertId\":\"i1\",\"logName\":\"projects/p/logs/"
	    "cloudaudit.googleapis.com%%2Factivity\",\"operation\":{\"id\":\"a-1\","
	    "\"first\":true,\"last\":true},\"protoPayload\":{\"@type\":\"type.googleapis."
	    "com/google.cloud.audit.AuditLog\",\"serviceName\":\"k8s.io\",\"methodName\":"
	    "\"%s\",\"resourceName\":\"%s\",\"authenticationInfo\":{\"principalEmail\":"
	    "\"system:node:n1\"},\"requestMetadata\":{\"callerIp\":\"10.0.0.2\","
	    "\"callerSuppliedUserAgent\":\"kubelet/v1.29\"},\"status\":%s%s},"
	    "\"labels\":{\"authorization.k8s.io/decision\":\"allow\"},"
	    "\"timestamp\":\"2024-04-05T05:50:00.5Z\"}",
	    method, resource, status, extra);
}

static void want_str(int line, const char *what, struct lt_str got, const char *want)
{
	if (want == NULL && got.ptr == NULL)
		return;
	if (want == NULL || got.ptr == NULL || !lt_str_eq(got, want))
		fail_msg("line %d: %s: got '%.*s', want '%s'", line, what,
			 got.ptr ? (int)got.len : 6, got.ptr ? got.ptr : "(null)",
			 want ? want : "(null)");
}

static void test_gke_mapping(void **state)
{
	static const struct {
		const char *method, *resource, *status, *extra;
		const char *verb, *group, *version, *ns, *res, *name, *sub, *stage;
		int code;
	} cases[] = {
	    {"io.k8s.coordination.v1.leases.update",
	     "coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1", "{\"code\":0}", "",
	     "update", "coordination.k8s.io", "v1", "kube-node-lease", "leases", "n1", NULL,
	     "ResponseComplete", 200},
	    {"io.k8s.coordination.v1.leases.get",
	     "coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1",
	     "{\"code\":5,\"message\":\"NOT_FOUND\"}", "", "get", "coordination.k8s.io", "v1",
	     "kube-node-lease", "leases", "n1", NULL, "ResponseComplete", 404},
	    {"io.k8s.coordination.v1.leases.create",
	     "coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1", "{}", "", "create",
	     "coordination.k8s.io", "v1", "kube-node-lease", "leases", "n1", NULL,
	     "ResponseComplete", 201},
	    {"io.k8s.core.v1.nodes.status.patch", "core/v1/nodes/n1/status", "{\"code\":7}", "",
	     "patch", NULL, "v1", NULL, "nodes", "n1", "status", "ResponseComplete", 403},
	    {"io.k8s.core.v1.namespaces.delete", "core/v1/namespaces/team-a", "{\"code\":16}", "",
	     "delete", NULL, "v1", NULL, "namespaces", "team-a", NULL, "ResponseComplete", 401},
	    {"io.k8s.core.v1.pods.create", "core/v1/namespaces/d/pods/p", "{\"code\":6}", "",
	     "create", NULL, "v1", "d", "pods", "p", NULL, "ResponseComplete", 409},
	    {"io.k8s.core.v1.pods.list", "core/v1/namespaces/d/pods", "{\"code\":0}", "", "list",
	     NULL, "v1", "d", "pods", NULL, NULL, "ResponseComplete", 200},
	    /* a Kubernetes Status in the response says the exact code */
	    {"io.k8s.core.v1.pods.eviction.create", "core/v1/namespaces/d/pods/p/eviction",
	     "{\"code\":8}",
	     ",\"response\":{\"@type\":\"core.k8s.io/v1.Status\",\"kind\":\"Status\",\"code\":429,"
	     "\"status\":\"Failure\",\"reason\":\"TooManyRequests\"}",
	     "create", NULL, "v1", "d", "pods", "p", "eviction", "ResponseComplete", 429},
	    {"io.k8s.core.v1.pods.watch", "core/v1/namespaces/d/pods", "{\"code\":0}", "", "watch",
	     NULL, "v1", "d", "pods", NULL, NULL, "ResponseComplete", 200},
	};
	struct parser_audit_decoder *ad = parser_audit_decoder_new();
	void *gd = parser_gke_envelope.decoder_new();
	struct parser_env_record r;
	struct lt_audit_event ev;
	char json[2048], reason[200];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int n = gke_entry(json, sizeof json, cases[i].method, cases[i].resource,
				  cases[i].status, cases[i].extra);

		assert_true(n > 0 && (size_t)n < sizeof json);
		assert_true(parser_gke_envelope.probe(json, (size_t)n));
		if (parser_gke_envelope.decode(gd, &r, json, (size_t)n, reason, sizeof reason) != 0)
			fail_msg("case %zu: %s", i, reason);
		assert_int_equal(r.kind, PARSER_ENV_AUDIT);
		assert_true(r.raw.ptr == json && r.raw.len == (size_t)n);
		if (parser_audit_decode(ad, &ev, r.event.ptr, r.event.len, reason, sizeof reason) !=
		    0)
			fail_msg("case %zu: %s in %.*s", i, reason, (int)r.event.len, r.event.ptr);
		want_str((int)i, "verb", ev.verb, cases[i].verb);
		want_str((int)i, "group", ev.api_group, cases[i].group);
		want_str((int)i, "version", ev.obj_api_version, cases[i].version);
		want_str((int)i, "namespace", ev.namespace_, cases[i].ns);
		want_str((int)i, "resource", ev.resource, cases[i].res);
		want_str((int)i, "name", ev.name, cases[i].name);
		want_str((int)i, "subresource", ev.subresource, cases[i].sub);
		want_str((int)i, "stage", ev.stage, cases[i].stage);
		want_str((int)i, "user", ev.username, "system:node:n1");
		want_str((int)i, "source ip", ev.source_ip, "10.0.0.2");
		want_str((int)i, "agent", ev.user_agent, "kubelet/v1.29");
		want_str((int)i, "audit id", ev.audit_id, "a-1");
		want_str((int)i, "decision", ev.authz_decision, "allow");
		if (ev.code != cases[i].code)
			fail_msg("case %zu: code %d, want %d", i, ev.code, cases[i].code);
	}
	parser_gke_envelope.decoder_free(gd);
	parser_audit_decoder_free(ad);
}

/*
 * Who, really: authenticationInfo's principalSubject (unless it repeats the
 * principal) and the first principal of serviceAccountDelegationInfo become
 * the event's identity; a request body's look-alike keys do not.
 */
static void test_gke_identity(void **state)
{
	static const char entry[] =
	    "{\"logName\":\"l\",\"operation\":{\"id\":\"d\",\"first\":true,\"last\":true},"
	    "\"protoPayload\":{\"serviceName\":\"k8s.io\",\"methodName\":\"io.k8s.core.v1.nodes."
	    "delete\",\"resourceName\":\"core/v1/nodes/n1\",\"authenticationInfo\":{"
	    "\"principalEmail\":\"deployer@p.iam.gserviceaccount.com\",\"principalSubject\":"
	    "\"serviceAccount:deployer@p.iam.gserviceaccount.com\","
	    "\"serviceAccountDelegationInfo\":"
	    "[{\"firstPartyPrincipal\":{\"principalEmail\":\"alice@example.com\"}},"
	    "{\"firstPartyPrincipal\":{\"principalEmail\":\"middle@p.iam.gserviceaccount.com\"}}]},"
	    "\"request\":{\"authenticationInfo\":{\"serviceAccountDelegationInfo\":[{"
	    "\"firstPartyPrincipal\":{\"principalEmail\":\"mallory\"}}]}},"
	    "\"status\":{\"code\":0}},\"timestamp\":\"2024-04-05T05:50:00Z\"}";
	static const char subject[] =
	    "{\"logName\":\"l\",\"protoPayload\":{\"serviceName\":\"k8s.io\",\"methodName\":"
	    "\"io.k8s.core.v1.nodes.delete\",\"resourceName\":\"core/v1/nodes/n1\","
	    "\"authenticationInfo\":{\"principalEmail\":\"u\",\"principalSubject\":"
	    "\"principal://iam.googleapis.com/locations/global/workforcePools/w/subject/bob\"},"
	    "\"status\":{\"code\":0}},\"timestamp\":\"2024-04-05T05:50:00Z\"}";
	static const struct identity_case cases[] = {
	    {.record = entry,
	     .user = "deployer@p.iam.gserviceaccount.com",
	     .identity = "via=alice@example.com"},
	    {.record = subject,
	     .user = "u",
	     .identity = ("subject=principal://iam.googleapis.com/locations/global/workforcePools/"
			  "w/subject/bob")},
	};

	(void)state;
	identity_check(&parser_gke_envelope, cases, sizeof cases / sizeof *cases);
}

/* A watch's first entry of two is its ResponseStarted stage; a Lease body is read. */
static void test_gke_watch_and_body(void **state)
{
	static const char started[] =
	    "{\"logName\":\"l\",\"operation\":{\"id\":\"w\",\"first\":true,\"last\":false},"
	    "\"protoPayload\":{\"serviceName\":\"k8s.io\",\"methodName\":\"io.k8s.core.v1.pods."
	    "watch\",\"resourceName\":\"core/v1/pods\",\"status\":{}},\"timestamp\":\"2024-04-"
	    "05T05:50:00Z\"}";
	static const char body[] =
	    "{\"logName\":\"l\",\"protoPayload\":{\"serviceName\":\"k8s.io\",\"methodName\":"
	    "\"io.k8s.coordination.v1.leases.update\",\"resourceName\":\"coordination.k8s.io/v1/"
	    "namespaces/kube-system/leases/kube-scheduler\",\"status\":{\"code\":0},\"response\":"
	    "{\"@type\":\"coordination.k8s.io/v1.Lease\",\"kind\":\"Lease\",\"spec\":{"
	    "\"holderIdentity\":\"cp-1_x\",\"leaseDurationSeconds\":15,\"renewTime\":\"2024-04-"
	    "05T05:50:00.100000Z\",\"leaseTransitions\":3}}},\"timestamp\":\"2024-04-05T05:50:"
	    "00Z\",\"insertId\":\"fallback-id\"}";
	struct parser_audit_decoder *ad = parser_audit_decoder_new();
	void *gd = parser_gke_envelope.decoder_new();
	struct parser_env_record r;
	struct lt_audit_event ev;
	char reason[200];

	(void)state;
	assert_int_equal(
	    parser_gke_envelope.decode(gd, &r, started, strlen(started), reason, sizeof reason), 0);
	assert_int_equal(
	    parser_audit_decode(ad, &ev, r.event.ptr, r.event.len, reason, sizeof reason), 0);
	want_str(__LINE__, "stage", ev.stage, "ResponseStarted");
	want_str(__LINE__, "level", ev.level, "Metadata");
	assert_int_equal(
	    parser_gke_envelope.decode(gd, &r, body, strlen(body), reason, sizeof reason), 0);
	assert_int_equal(
	    parser_audit_decode(ad, &ev, r.event.ptr, r.event.len, reason, sizeof reason), 0);
	want_str(__LINE__, "level", ev.level, "RequestResponse");
	want_str(__LINE__, "audit id", ev.audit_id, "fallback-id");
	assert_true(ev.has_lease);
	want_str(__LINE__, "holder", ev.lease_holder, "cp-1_x");
	assert_int_equal(ev.lease_duration_s, 15);
	assert_int_equal(ev.lease_transitions, 3);
	parser_gke_envelope.decoder_free(gd);
	parser_audit_decoder_free(ad);
}

/* What is no usable entry says why. */
static void test_gke_rejects(void **state)
{
	static const struct {
		const char *json, *reason;
	} cases[] = {
	    {"{\"logName\":\"l\",\"protoPayload\":{\"serviceName\":\"container.googleapis.com\","
	     "\"methodName\":\"google.container.v1.ClusterManager.CreateCluster\"},"
	     "\"timestamp\":\"2024-01-01T00:00:00Z\"}",
	     "no Kubernetes API request (serviceName container.googleapis.com)"},
	    {"{\"logName\":\"l\",\"protoPayload\":{\"serviceName\":\"k8s.io\",\"methodName\":"
	     "\"x\"}}",
	     "without a \"timestamp\""},
	    {"{\"logName\":\"l\",\"jsonPayload\":{\"level\":3}}", "nothing to read"},
	    {"{\"logName\":\"l\",\"textPayload\":\"x\",\"timestamp\":\"soon\"}", "not an RFC 3339"},
	    {"{\"textPayload\":\"x\"}", "no \"logName\""},
	    {"{\"logName\":\"l\",\"textPayload\":\"x\"", "invalid JSON"},
	};
	void *gd = parser_gke_envelope.decoder_new();
	struct parser_env_record r;
	char reason[200];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		assert_int_equal(parser_gke_envelope.decode(gd, &r, cases[i].json,
							    strlen(cases[i].json), reason,
							    sizeof reason),
				 LT_ERR_FORMAT);
		if (strstr(reason, cases[i].reason) == NULL)
			fail_msg("case %zu: '%s' does not say '%s'", i, reason, cases[i].reason);
	}
	parser_gke_envelope.decoder_free(gd);
}

/* ---- JSON records wrapping a line, and what is an audit Event -------------- */

static void test_logwrap(void **state)
{
	static const struct {
		const char *json;
		const char *line, *host, *component, *ident; /* line NULL: wraps nothing */
	} cases[] = {
	    {"{\"log\":\"I0405 06:04:04.000000 1 x.go:1] a\\n\",\"stream\":\"stderr\","
	     "\"kubernetes\":{\"pod_name\":\"p\",\"host\":\"n1\",\"container_name\":\"kcm\"}}",
	     "I0405 06:04:04.000000 1 x.go:1] a", "n1", "kcm", NULL},
	    {"{\"hostname\":\"n2\",\"systemd_unit\":\"kubelet.service\",\"message\":\"E0323 "
	     "15:05:36.670951 6922 r.go:734] b\",\"az\":\"us-east-1a\"}",
	     "E0323 15:05:36.670951 6922 r.go:734] b", "n2", "kubelet", NULL},
	    {"{\"_HOSTNAME\":\"n3\",\"SYSLOG_IDENTIFIER\":\"kubelet\",\"MESSAGE\":\"c\"}", "c",
	     "n3", NULL, "kubelet"},
	    {.json = "{\"level\":\"info\",\"message\":\"an application's own line\"}"},
	    {.json = "{\"log\":7}"},
	    {.json = "[\"log\"]"},
	    {.json = "{\"log\":\"cut"},
	};
	struct parser_logwrap w;
	struct lt_buf arena;

	(void)state;
	lt_buf_init(&arena);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int rc = parser_logwrap_parse(&w, &arena, cases[i].json, strlen(cases[i].json));

		if (cases[i].line == NULL) {
			if (rc == 0)
				fail_msg("case %zu: unwrapped", i);
			continue;
		}
		assert_int_equal(rc, 0);
		want_str((int)i, "line", w.line, cases[i].line);
		want_str((int)i, "host", w.host, cases[i].host);
		want_str((int)i, "component", w.component, cases[i].component);
		want_str((int)i, "ident", w.ident, cases[i].ident);
	}
	lt_buf_release(&arena);
}

/* Top-level keys only: an Event escaped into a string or nested deeper is not one. */
static void test_audit_probe(void **state)
{
	static const struct {
		const char *json;
		int audit;
	} cases[] = {
	    {"{\"kind\":\"Event\",\"auditID\":\"x\",\"verb\":\"get\"}", 1},
	    {"{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"auditID\":\"x\",\"ver", 1},
	    {"{\"log\":\"{\\\"auditID\\\":\\\"x\\\"}\",\"stream\":\"stdout\"}", 0},
	    {"{\"data\":{\"auditID\":\"x\"},\"msg\":\"y\"}", 0},
	    {"{\"level\":\"info\",\"msg\":\"m\"}", 0},
	    {"  {\"requestURI\":\"/api\"}", 1},
	    {"[{\"auditID\":\"x\"}]", 0},
	    {"{garbage", 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		if (parser_audit_probe(cases[i].json, strlen(cases[i].json)) != cases[i].audit)
			fail_msg("case %zu: %s", i, cases[i].json);
}

/* Each envelope's probe knows its own records and none of the others. */
static void test_probes(void **state)
{
	static const char aks[] = "{\"category\":\"kube-audit\",\"properties\":{\"log\":\"x\"},"
				  "\"time\":\"2024-01-01T00:00:00Z\"}";
	static const char gke[] = "{\"logName\":\"l\",\"textPayload\":\"x\"}";
	static const char docker[] = "{\"log\":\"x\\n\",\"stream\":\"stderr\",\"time\":\"t\"}";
	static const char audit[] = "{\"kind\":\"Event\",\"auditID\":\"a\",\"objectRef\":"
				    "{\"category\":1,\"properties\":2,\"time\":3}}";

	(void)state;
	assert_true(parser_aks_envelope.probe(aks, strlen(aks)));
	assert_false(parser_gke_envelope.probe(aks, strlen(aks)));
	assert_true(parser_gke_envelope.probe(gke, strlen(gke)));
	assert_false(parser_aks_envelope.probe(gke, strlen(gke)));
	assert_false(parser_aks_envelope.probe(docker, strlen(docker)));
	assert_false(parser_gke_envelope.probe(docker, strlen(docker)));
	assert_false(parser_aks_envelope.probe(audit, strlen(audit)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_aks_corpus),
	    cmocka_unit_test(test_gke_corpus),
	    cmocka_unit_test(test_gke_mapping),
	    cmocka_unit_test(test_gke_identity),
	    cmocka_unit_test(test_gke_watch_and_body),
	    cmocka_unit_test(test_gke_rejects),
	    cmocka_unit_test(test_logwrap),
	    cmocka_unit_test(test_audit_probe),
	    cmocka_unit_test(test_probes),
	    cmocka_unit_test(test_cluster_names),
	    cmocka_unit_test(test_gke_cluster_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
