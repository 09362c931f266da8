/*
 * test-results.c - the query engines' result rows (parser-results.c): which table a row's
 * columns make, each table's row back into the record the plain log holds, dynamic columns
 * as JSON or as strings of JSON (and a string that only looks like JSON staying a string),
 * the times each engine writes, the reasons a row is refused, and CSV exports (a portal's
 * " [UTC]" headers, a byte order mark, CRLF) streamed at every chunk size.
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

#define CELL(n, v)                                                                                 \
	{                                                                                          \
		.name = {n, sizeof n - 1}, .value = {v, sizeof v - 1}, .type = PARSER_RES_STR,     \
		.top = 1                                                                           \
	}
#define JCELL(n, v)                                                                                \
	{                                                                                          \
		.name = {n, sizeof n - 1}, .value = {v, sizeof v - 1}, .type = PARSER_RES_JSON,    \
		.top = 1                                                                           \
	}

/* Decodes the Event a row stands for; fails the test when it is none. */
static void decode_event(struct parser_audit_decoder *ad, struct lt_audit_event *ev,
			 const struct parser_env_record *rec)
{
	char reason[256] = "";

	assert_int_equal(rec->kind, PARSER_ENV_AUDIT);
	if (parser_audit_decode(ad, ev, rec->event.ptr, rec->event.len, reason, sizeof reason) != 0)
		fail_msg("not an Event (%s): %.*s", reason, (int)rec->event.len, rec->event.ptr);
}

static void test_kind_of(void **state)
{
	static const struct parser_res_cell la[] = {CELL("AuditId", "a"), CELL("Verb", "get")};
	static const struct parser_res_cell diag[] = {CELL("category", "x"), CELL("LOG_S", "y")};
	static const struct parser_res_cell cp[] = {CELL("Category", "x"), CELL("Message", "m"),
						    CELL("TimeGenerated", "t")};
	static const struct parser_res_cell bq[] = {CELL("timestamp", "t"),
						    CELL("protopayload_auditlog_methodName", "m")};
	static const struct parser_res_cell bq_dot[] = {
	    CELL("protopayload_auditlog.status.code", "0")};
	static const struct parser_res_cell none[] = {CELL("Category", "x"), CELL("Message", "m")};

	(void)state;
	assert_int_equal(parser_res_kind_of(la, 2), PARSER_RES_AKSAUDIT);
	assert_int_equal(parser_res_kind_of(diag, 2), PARSER_RES_AZDIAG);
	assert_int_equal(parser_res_kind_of(cp, 3), PARSER_RES_CONTROLPLANE);
	assert_int_equal(parser_res_kind_of(bq, 2), PARSER_RES_BIGQUERY);
	assert_int_equal(parser_res_kind_of(bq_dot, 1), PARSER_RES_BIGQUERY);
	/* Category and Message alone could be any table's: not a result row */
	assert_int_equal(parser_res_kind_of(none, 2), PARSER_RES_NONE);
	assert_string_equal(parser_res_kind_name(PARSER_RES_AKSAUDIT), "Log Analytics AKSAudit");
}

static void test_aksaudit(void **state)
{
	/* dynamic columns as JSON (a JSON export) and as strings of JSON (CLI, CSV) */
	static const struct parser_res_cell row[] = {
	    CELL("TimeGenerated", "2024-04-05T05:50:00.4605530Z"),
	    CELL("StageReceivedTime", "2024-04-05T05:50:00.4605530Z"),
	    CELL("RequestReceivedTime", "2024-04-05 05:50:00.459380 UTC"),
	    CELL("AuditId", "8c37f21c"),
	    CELL("Stage", "ResponseComplete"),
	    CELL("Verb", "update"),
	    CELL("Level", "RequestResponse"),
	    CELL("RequestUri", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1"),
	    JCELL("User", "{\"username\":\"system:node:n1\",\"groups\":[\"system:nodes\"]}"),
	    CELL("SourceIps", "[\"10.0.0.1\"]"),
	    CELL("ObjectRef", "{\"resource\":\"leases\",\"namespace\":\"kube-node-lease\",\"name\":"
			      "\"n1\",\"apiGroup\":\"coordination.k8s.io\",\"apiVersion\":\"v1\"}"),
	    CELL("ResponseStatus", "{\"code\":200}"),
	    CELL("RequestObject", "skipped-too-big-size-object"),
	    CELL("UserAgent", "kubelet/v1.29.1"),
	    CELL("_ResourceId", "/subscriptions/s/resourcegroups/g/providers/"
				"microsoft.containerservice/managedclusters/c1"),
	    CELL("PodName", "kube-apiserver-abc"),
	};
	struct parser_res_decoder *d = parser_res_new();
	struct parser_audit_decoder *ad = parser_audit_decoder_new();
	struct parser_env_record rec;
	struct lt_audit_event ev;
	char reason[256];

	(void)state;
	assert_int_equal(parser_res_decode_cells(d, PARSER_RES_AKSAUDIT, row,
						 sizeof row / sizeof *row, &rec, reason,
						 sizeof reason),
			 0);
	decode_event(ad, &ev, &rec);
	assert_true(lt_str_eq(ev.audit_id, "8c37f21c"));
	assert_true(lt_str_eq(ev.verb, "update"));
	assert_true(lt_str_eq(ev.username, "system:node:n1"));
	assert_true(lt_str_eq(ev.source_ip, "10.0.0.1"));
	assert_true(lt_str_eq(ev.name, "n1"));
	assert_int_equal(ev.code, 200);
	assert_int_equal(ev.stage_us, INT64_C(1712296200460553));
	assert_int_equal(ev.received_us, INT64_C(1712296200459380));
	assert_true(lt_str_eq(rec.stream, "kube-apiserver-abc"));
	/* the cluster stays in the record; a string that is not JSON stays a string */
	assert_non_null(strstr(rec.event.ptr, "\"logAnalytics\":{\"TimeGenerated\""));
	assert_non_null(strstr(rec.event.ptr, "managedclusters/c1\""));
	assert_non_null(strstr(rec.event.ptr, "\"requestObject\":\"skipped-too-big-size-object\""));
	parser_audit_decoder_free(ad);
	parser_res_free(d);
}

/* A string that is JSON followed by more cannot add keys to the Event: it stays a string. */
static void test_dynamic_injection(void **state)
{
	static const struct parser_res_cell row[] = {
	    CELL("AuditId", "a1"),
	    CELL("Stage", "ResponseComplete"),
	    CELL("Verb", "get"),
	    CELL("StageReceivedTime", "2024-04-05T05:50:00Z"),
	    CELL("ObjectRef", "{\"resource\":\"leases\"},\"verb\":\"delete\""),
	};
	struct parser_res_decoder *d = parser_res_new();
	struct parser_audit_decoder *ad = parser_audit_decoder_new();
	struct parser_env_record rec;
	struct lt_audit_event ev;
	char reason[256];

	(void)state;
	assert_int_equal(
	    parser_res_decode_cells(d, PARSER_RES_AKSAUDIT, row, 5, &rec, reason, sizeof reason),
	    0);
	assert_non_null(strstr(rec.event.ptr, "\"objectRef\":\"{\\\"resource\\\""));
	decode_event(ad, &ev, &rec);
	assert_true(lt_str_eq(ev.verb, "get"));
	assert_null(ev.resource.ptr);
	parser_audit_decoder_free(ad);
	parser_res_free(d);
}

static void test_refusals(void **state)
{
	static const struct parser_res_cell no_stage[] = {
	    CELL("AuditId", "a1"), CELL("Verb", "get"), CELL("Stage", ""),
	    CELL("StageReceivedTime", "2024-04-05T05:50:00Z")};
	static const struct parser_res_cell bad_time[] = {
	    CELL("AuditId", "a1"), CELL("Verb", "get"), CELL("Stage", "ResponseComplete"),
	    CELL("StageReceivedTime", "yesterday")};
	static const struct parser_res_cell no_log[] = {
	    CELL("Category", "kube-audit"), CELL("TimeGenerated", "2024-04-05T05:50:00Z")};
	static const struct parser_res_cell no_ts[] = {
	    CELL("protopayload_auditlog.methodName", "io.k8s.core.v1.nodes.get")};
	struct parser_res_decoder *d = parser_res_new();
	struct parser_env_record rec;
	char reason[256];

	(void)state;
	assert_int_equal(parser_res_decode_cells(d, PARSER_RES_AKSAUDIT, no_stage, 4, &rec, reason,
						 sizeof reason),
			 LT_ERR_FORMAT);
	assert_string_equal(reason, "a Log Analytics AKSAudit row without Stage: no audit event");
	assert_int_equal(parser_res_decode_cells(d, PARSER_RES_AKSAUDIT, bad_time, 4, &rec, reason,
						 sizeof reason),
			 LT_ERR_FORMAT);
	assert_string_equal(reason,
			    "a Log Analytics AKSAudit row whose StageReceivedTime is not a time");
	assert_int_equal(
	    parser_res_decode_cells(d, PARSER_RES_AZDIAG, no_log, 2, &rec, reason, sizeof reason),
	    LT_ERR_FORMAT);
	assert_string_equal(reason,
			    "a Log Analytics AzureDiagnostics row without log_s: nothing to read");
	assert_int_equal(
	    parser_res_decode_cells(d, PARSER_RES_BIGQUERY, no_ts, 1, &rec, reason, sizeof reason),
	    LT_ERR_FORMAT);
	assert_non_null(strstr(reason, "BigQuery Cloud Logging row without a timestamp"));
	assert_int_equal(
	    parser_res_decode_cells(d, PARSER_RES_NONE, no_ts, 1, &rec, reason, sizeof reason),
	    LT_ERR_FORMAT);
	parser_res_free(d);
}

/* AzureDiagnostics and AKSControlPlane lines: the component, its pod, the row's time. */
static void test_lines(void **state)
{
	static const struct parser_res_cell diag[] = {
	    CELL("TimeGenerated", "2021-02-02T15:03:28.0000000Z"),
	    CELL("Category", "kube-controller-manager"),
	    CELL("log_s", "I0202 15:03:28.853066       1 event.go:291] \"Event occurred\"\n"),
	    CELL("pod_s", "kube-controller-manager-84595d6f94-wcj7p")};
	static const struct parser_res_cell cp[] = {
	    CELL("TimeGenerated", "1612278208"), CELL("Category", "kube-scheduler"),
	    CELL("Message", "I0202 15:03:28.853066 1 x.go:1] y"), CELL("_ResourceId", "r")};
	struct parser_res_decoder *d = parser_res_new();
	struct parser_env_record rec;
	char reason[256];

	(void)state;
	assert_int_equal(
	    parser_res_decode_cells(d, PARSER_RES_AZDIAG, diag, 4, &rec, reason, sizeof reason), 0);
	assert_int_equal(rec.kind, PARSER_ENV_LOG);
	assert_true(lt_str_eq(rec.component, "kube-controller-manager"));
	assert_true(lt_str_eq(rec.stream, "kube-controller-manager-84595d6f94-wcj7p"));
	assert_true(rec.message.ptr[rec.message.len - 1] == '"'); /* the newline dropped */
	assert_int_equal(rec.ts_us, INT64_C(1612278208000000));
	assert_int_equal(
	    parser_res_decode_cells(d, PARSER_RES_CONTROLPLANE, cp, 4, &rec, reason, sizeof reason),
	    0);
	assert_true(lt_str_eq(rec.component, "kube-scheduler"));
	assert_int_equal(rec.ts_us, INT64_C(1612278208000000)); /* epoch seconds */
	parser_res_free(d);
}

/* A BigQuery row as `bq query --format=json` writes it: nested RECORDs, strings for numbers. */
static void test_bigquery_json(void **state)
{
	static const char row[] =
	    "{\"logName\":\"projects/p/logs/cloudaudit.googleapis.com%2Factivity\","
	    "\"resource\":{\"type\":\"k8s_cluster\",\"labels\":{\"cluster_name\":\"c1\"}},"
	    "\"protopayload_auditlog\":{\"serviceName\":\"k8s.io\",\"methodName\":"
	    "\"io.k8s.coordination.v1.leases.update\",\"resourceName\":"
	    "\"coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1\","
	    "\"status\":{\"code\":\"5\",\"message\":\"not found\"},\"authenticationInfo\":"
	    "{\"principalEmail\":\"system:node:n1\"},\"requestMetadata\":{\"callerIp\":"
	    "\"10.0.0.1\"},\"requestJson\":null},\"textPayload\":null,"
	    "\"timestamp\":\"1.7122962004605531E9\",\"insertId\":\"i1\","
	    "\"operation\":{\"id\":\"op1\",\"first\":\"true\",\"last\":\"true\"},"
	    "\"labels\":{\"authorization_k8s_io_decision\":\"allow\"}}";
	void *d = parser_res_envelope.decoder_new();
	struct parser_audit_decoder *ad = parser_audit_decoder_new();
	struct parser_env_record rec;
	struct lt_audit_event ev;
	char reason[256];

	(void)state;
	assert_true(parser_res_envelope.probe(row, sizeof row - 1));
	assert_int_equal(
	    parser_res_envelope.decode(d, &rec, row, sizeof row - 1, reason, sizeof reason), 0);
	decode_event(ad, &ev, &rec);
	assert_true(lt_str_eq(ev.audit_id, "op1"));
	assert_true(lt_str_eq(ev.verb, "update"));
	assert_true(lt_str_eq(ev.name, "n1"));
	assert_int_equal(ev.code, 404);
	assert_true(lt_str_eq(ev.authz_decision, "allow"));
	assert_int_equal(ev.stage_us, INT64_C(1712296200460553));
	assert_true(lt_str_eq(rec.ext_id, "i1"));
	/* the LogEntry rebuilt is the raw record: the cluster is in it */
	assert_non_null(strstr(rec.raw.ptr, "\"cluster_name\":\"c1\""));
	parser_audit_decoder_free(ad);
	parser_res_envelope.decoder_free(d);
}

/*
 * The identity survives a BigQuery export: authenticationInfo's principalSubject and the
 * delegation chain (a REPEATED RECORD, so a JSON array in the row) reach the event as in a
 * LogEntry read whole (test-clouds.c's test_gke_identity).
 */
static void test_bigquery_identity(void **state)
{
	static const char deleg[] =
	    "{\"logName\":\"projects/p/logs/cloudaudit.googleapis.com%2Factivity\","
	    "\"protopayload_auditlog\":{\"serviceName\":\"k8s.io\",\"methodName\":"
	    "\"io.k8s.core.v1.nodes.delete\",\"resourceName\":\"core/v1/nodes/n1\","
	    "\"authenticationInfo\":{\"principalEmail\":\"deployer@p.iam.gserviceaccount.com\","
	    "\"principalSubject\":\"serviceAccount:deployer@p.iam.gserviceaccount.com\","
	    "\"serviceAccountDelegationInfo\":[{\"firstPartyPrincipal\":{\"principalEmail\":"
	    "\"alice@example.com\"}}]},\"status\":{\"code\":\"0\"}},"
	    "\"timestamp\":\"2024-04-05 05:50:00 UTC\",\"operation\":{\"id\":\"op2\"}}";
	static const char subject[] =
	    "{\"logName\":\"l\",\"protopayload_auditlog\":{\"serviceName\":\"k8s.io\","
	    "\"methodName\":\"io.k8s.core.v1.nodes.delete\",\"resourceName\":\"core/v1/nodes/n1\","
	    "\"authenticationInfo\":{\"principalEmail\":\"u\",\"principalSubject\":"
	    "\"principal://iam.googleapis.com/locations/global/workforcePools/w/subject/bob\","
	    "\"serviceAccountDelegationInfo\":null},\"status\":{\"code\":\"0\"}},"
	    "\"timestamp\":\"2024-04-05 05:50:00 UTC\",\"operation\":{\"id\":\"op3\"}}";
	static const struct identity_case cases[] = {
	    {.record = deleg, .identity = "via=alice@example.com"},
	    {.record = subject,
	     .identity = ("subject=principal://iam.googleapis.com/locations/global/workforcePools/"
			  "w/subject/bob")},
	};

	(void)state;
	identity_check(&parser_res_envelope, cases, sizeof cases / sizeof *cases);
}

/* ---- CSV ---------------------------------------------------------------- */

struct rows {
	int n, rej;
	enum parser_res_kind kind;
	char verb[8][16];
	uint64_t line[8];
};

static int on_row(enum parser_res_kind kind, const struct parser_res_cell *c, size_t n,
		  uint64_t line, uint64_t offset, void *ctx)
{
	struct rows *r = ctx;
	struct parser_res_decoder *d = parser_res_new();
	struct parser_env_record rec;
	struct parser_audit_decoder *ad = parser_audit_decoder_new();
	struct lt_audit_event ev;
	char reason[256];

	(void)offset;
	r->kind = kind;
	if (parser_res_decode_cells(d, kind, c, n, &rec, reason, sizeof reason) != 0) {
		r->rej++;
	} else {
		decode_event(ad, &ev, &rec);
		assert_true(r->n < 8);
		snprintf(r->verb[r->n], sizeof r->verb[0], "%.*s", (int)ev.verb.len, ev.verb.ptr);
		r->line[r->n++] = line;
	}
	parser_audit_decoder_free(ad);
	parser_res_free(d);
	return 0;
}

static int on_cw(const struct parser_cw_record *rec, uint64_t line, uint64_t offset, void *ctx)
{
	(void)rec, (void)line, (void)offset, (void)ctx;
	fail_msg("a result table's row read as a CloudWatch record");
	return 0;
}

static int on_reject(uint64_t line, uint64_t offset, const char *reason, void *ctx)
{
	(void)line, (void)offset, (void)reason;
	((struct rows *)ctx)->rej++;
	return 0;
}

static void test_csv_portal(void **state)
{
	static const char csv[] =
	    "\xef\xbb\xbf"
	    "TenantId,TimeGenerated [UTC],AuditId,Stage,Verb,ObjectRef,"
	    "StageReceivedTime [UTC],RequestReceivedTime [UTC]\r\n"
	    "t,2024-04-05T05:50:00.4605530Z,a1,ResponseComplete,update,"
	    "\"{\"\"resource\"\":\"\"leases\"\",\"\"name\"\":\"\"n1\"\"}\","
	    "2024-04-05T05:50:00.4605530Z,2024-04-05T05:50:00.4593800Z\r\n"
	    "t,2024-04-05T05:50:01Z,a2,ResponseComplete,get,,2024-04-05T05:50:01Z,\r\n"
	    "t,2024-04-05T05:50:02Z,a3,,get,,2024-04-05T05:50:02Z,\r\n";
	static const struct parser_csv_ops ops = {
	    .record = on_cw, .reject = on_reject, .row = on_row};

	(void)state;
	assert_true(parser_csv_sniff(csv, sizeof csv - 1));
	for (size_t chunk = 1; chunk <= sizeof csv; chunk += 7) {
		struct rows r = {0};
		struct parser_csv *c = parser_csv_new(&ops, &r);

		for (size_t i = 0; i < sizeof csv - 1; i += chunk)
			assert_int_equal(parser_csv_feed(c, csv + i,
							 sizeof csv - 1 - i < chunk
							     ? sizeof csv - 1 - i
							     : chunk),
					 0);
		assert_int_equal(parser_csv_finish(c), 0);
		parser_csv_free(c);
		assert_int_equal(r.kind, PARSER_RES_AKSAUDIT);
		assert_int_equal(r.n, 2);
		assert_int_equal(r.rej, 1); /* a3: no Stage */
		assert_string_equal(r.verb[0], "update");
		assert_int_equal(r.line[1], 3);
	}
}

/* A header of no known table and no message column is no CSV leasetrail reads. */
static void test_csv_sniff(void **state)
{
	static const char other[] = "name,count\nx,1\n";
	static const char athena[] = "\"timestamp\",\"message\"\n\"1\",\"{}\"\n";
	static const char bq[] = "timestamp,protopayload_auditlog_methodName\n";

	(void)state;
	assert_false(parser_csv_sniff(other, sizeof other - 1));
	assert_true(parser_csv_sniff(athena, sizeof athena - 1));
	assert_true(parser_csv_sniff(bq, sizeof bq - 1));
}

/* ---- the query API's response, streamed ------------------------------------- */

static void rest_run(struct rows *r, const char *text, size_t len, size_t chunk)
{
	static const struct parser_csv_ops ops = {
	    .record = on_cw, .reject = on_reject, .row = on_row};
	struct parser_rest *p = parser_rest_new(&ops, r);

	memset(r, 0, sizeof *r);
	for (size_t i = 0; i < len; i += chunk)
		assert_int_equal(parser_rest_feed(p, text + i, len - i < chunk ? len - i : chunk),
				 0);
	assert_int_equal(parser_rest_finish(p), 0);
	parser_rest_free(p);
}

static void test_rest(void **state)
{
	/* a dynamic column as an object (written back as JSON) and as a string; a short row */
	static const char resp[] =
	    "{\"tables\": [{\"name\": \"PrimaryResult\",\n"
	    "  \"columns\": [{\"name\": \"AuditId\", \"type\": \"string\"},"
	    "{\"name\": \"Verb\", \"type\": \"string\"},{\"name\": \"Stage\", \"type\": "
	    "\"string\"},"
	    "{\"name\": \"StageReceivedTime\", \"type\": \"datetime\"},"
	    "{\"name\": \"ObjectRef\", \"type\": \"dynamic\"}],\n"
	    "  \"rows\": [\n"
	    "   [\"a1\", \"update\", \"ResponseComplete\", \"2024-04-05T05:50:00.4605530Z\","
	    " {\"resource\": \"leases\", \"name\": \"n1\", \"x\": [1, {\"y\": null}, true]}],\n"
	    "   [\"a2\", \"get\", \"ResponseComplete\", \"2024-04-05T05:50:01Z\","
	    " \"{\\\"resource\\\":\\\"nodes\\\"}\"],\n"
	    "   [\"a3\", \"get\"]\n"
	    "  ]}]}\n";
	static const char broken[] = "{\"tables\":[{\"columns\":[{\"name\":\"AuditId\"}],"
				     "\"rows\":[[\"a\"],[\"b\" \"c\"]]}]}";
	static const char cut[] = "{\"tables\":[{\"columns\":[{\"name\":\"AuditId\"}],\"rows\":[[";
	struct rows r;

	(void)state;
	assert_true(parser_rest_sniff(resp, sizeof resp - 1));
	assert_false(parser_rest_sniff("{\"records\":[]}", 14));
	for (size_t chunk = 1; chunk <= sizeof resp; chunk += 5) {
		rest_run(&r, resp, sizeof resp - 1, chunk);
		assert_int_equal(r.kind, PARSER_RES_AKSAUDIT);
		assert_int_equal(r.n, 2);
		assert_string_equal(r.verb[0], "update");
		assert_string_equal(r.verb[1], "get");
		assert_int_equal(r.line[0], 4);
		assert_int_equal(r.line[1], 5);
		assert_int_equal(r.rej, 1); /* a3: 2 values, 5 columns */
	}
	rest_run(&r, broken, sizeof broken - 1, 7);
	assert_int_equal(r.rej, 2); /* row a (a table of no kind), then the broken JSON */
	rest_run(&r, cut, sizeof cut - 1, 3);
	assert_int_equal(r.rej, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kind_of),
	    cmocka_unit_test(test_aksaudit),
	    cmocka_unit_test(test_dynamic_injection),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_lines),
	    cmocka_unit_test(test_bigquery_json),
	    cmocka_unit_test(test_bigquery_identity),
	    cmocka_unit_test(test_csv_portal),
	    cmocka_unit_test(test_csv_sniff),
	    cmocka_unit_test(test_rest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
