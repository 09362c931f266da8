/* test-index.c - unit tests of the store: ingestion, dedupe, stages, rejects, inputs, opening. */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "index-int.h"
#include "index-raw.h"
#include "lt_index.h"
#include "test-files.h"
#include "test-held.h"
#include "test-rows.h"

/* Only to build a fixture the store must refuse: an SQLite file of another application. */
#include <sqlite3.h>

/* ---- files and directories under LT_TEST_TMP ------------------------------ */

/* Writes text as one gzip member; mode "wb" starts the file, "ab" appends a member. */
static void write_gzip(const char *path, const char *text, const char *mode)
{
	gzFile gz = gzopen(path, mode);

	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, text, (unsigned)strlen(text)), (int)strlen(text));
	assert_int_equal(gzclose(gz), Z_OK);
}

/* ---- what a test holds, released by the teardown even when an assertion ends it early ---- */

static void release_store(void *p)
{
	lt_store_free(p);
}

static struct lt_store *hold_store(struct lt_store *st)
{
	return hold(st, release_store);
}

static void close_store(struct lt_store *st)
{
	drop(st);
}

static void *hold_mem(void *p)
{
	return hold(p, free);
}

static void release_mem(void *p)
{
	drop(p);
}

static int teardown(void **state)
{
	return held_teardown(state);
}

/* ---- ingesting, with every callback recorded -------------------------------- */

#define MAX_FILES   16
#define MAX_REJECTS 16

struct file_seen {
	struct lt_file_report rep; /* path and detail point into the arrays below */
	char path[PATH_SIZE];
	char detail[512];
};

struct reject_seen {
	char file[PATH_SIZE];
	uint64_t line, offset;
	char reason[256];
};

struct seen {
	int nfiles, nrejects, nprogress;
	struct file_seen files[MAX_FILES];
	struct reject_seen rejects[MAX_REJECTS];
};

static void on_file(const struct lt_file_report *r, void *ctx)
{
	struct seen *s = ctx;
	struct file_seen *f;

	assert_true(s->nfiles < MAX_FILES);
	f = &s->files[s->nfiles++];
	f->rep = *r;
	snprintf(f->path, sizeof f->path, "%s", r->path);
	snprintf(f->detail, sizeof f->detail, "%s", r->detail);
	f->rep.path = f->path;
	f->rep.detail = f->detail;
}

static void on_reject(const struct lt_where *at, const char *reason, void *ctx)
{
	struct seen *s = ctx;
	struct reject_seen *r;

	/* all are counted, the first MAX_REJECTS kept (an assertion here would unwind the store) */
	if (s->nrejects++ >= MAX_REJECTS)
		return;
	r = &s->rejects[s->nrejects - 1];
	snprintf(r->file, sizeof r->file, "%s", at->file);
	r->line = at->line;
	r->offset = at->offset;
	snprintf(r->reason, sizeof r->reason, "%s", reason);
}

static void on_progress(const struct lt_ingest_progress *p, void *ctx)
{
	struct seen *s = ctx;

	assert_non_null(p->path);
	s->nprogress++;
}

/* Ingests path, recording into *s (cleared first) and adding to *t. */
static int ingest(struct lt_store *st, const char *path, int all_resources, struct seen *s,
		  struct lt_ingest_totals *t, struct lt_error *err)
{
	struct lt_ingest_opts opts = {.all_resources = all_resources,
				      .on_reject = on_reject,
				      .on_file = on_file,
				      .on_progress = on_progress,
				      .ctx = s};

	memset(s, 0, sizeof *s);
	memset(err, 0, sizeof *err);
	return lt_store_ingest(st, path, &opts, t, err);
}

/* Ingests one file that must succeed; returns its report. */
static const struct lt_file_report *ingest_ok(struct lt_store *st, const char *path, struct seen *s,
					      struct lt_ingest_totals *t)
{
	struct lt_error err;

	assert_int_equal(ingest(st, path, 0, s, t, &err), 0);
	assert_int_equal(s->nfiles, 1);
	assert_string_equal(s->files[0].path, path);
	return &s->files[0].rep;
}

static void expect_counts(const struct lt_file_report *r, uint64_t records, uint64_t stored,
			  uint64_t duplicates, uint64_t skipped, uint64_t rejected)
{
	if (r->records != records || r->stored != stored || r->duplicates != duplicates ||
	    r->skipped != skipped || r->rejected != rejected)
		fail_msg("%s: records/stored/duplicates/skipped/rejected %llu/%llu/%llu/%llu/%llu,"
			 " want %llu/%llu/%llu/%llu/%llu",
			 r->path, (unsigned long long)r->records, (unsigned long long)r->stored,
			 (unsigned long long)r->duplicates, (unsigned long long)r->skipped,
			 (unsigned long long)r->rejected, (unsigned long long)records,
			 (unsigned long long)stored, (unsigned long long)duplicates,
			 (unsigned long long)skipped, (unsigned long long)rejected);
}

static struct lt_store *open_store(const char *dir)
{
	char path[PATH_SIZE];
	struct lt_error err = {0};
	struct lt_store *st = NULL;

	path_join(path, dir, "store.db");
	if (lt_store_open(&st, path, 0, &err) != 0)
		fail_msg("lt_store_open(%s): %s", path, err.msg);
	assert_non_null(st);
	return hold_store(st);
}

/* ---- reading the store ------------------------------------------------------ */

static void expect_rows(struct lt_store *st, const char *sql, const char *arg, const char *want)
{
	char *got = q_rows(st, sql, arg);
	int same = strcmp(got, want) == 0;

	if (!same)
		print_error("%s\n got:\n%s want:\n%s", sql, got, want);
	free(got);
	assert_true(same);
}

/* The single integer sql returns. */
static int64_t q_int(struct lt_store *st, const char *sql, const char *arg)
{
	struct lt_error err = {0};
	struct lt_stmt *q;
	int64_t v;
	int rc;

	if (lt_store_prepare(st, &q, sql, &err) != 0)
		fail_msg("prepare %s: %s", sql, err.msg);
	if (arg != NULL)
		lt_stmt_bind_text(q, 1, arg, (size_t)-1);
	rc = lt_stmt_step(q, &err);
	v = lt_stmt_int(q, 0);
	lt_stmt_free(q);
	if (rc != 1)
		fail_msg("no row from %s: %s", sql, err.msg);
	return v;
}

/* Row counts of the tables ingestion writes, for before/after comparisons. */
struct table_counts {
	int64_t audit, raw, sources, rejects, resource_counts, strs;
};

static struct table_counts count_tables(struct lt_store *st)
{
	struct table_counts c = {
	    q_int(st, "SELECT count(*) FROM audit", NULL),
	    q_int(st, "SELECT count(*) FROM audit_raw", NULL),
	    q_int(st, "SELECT count(*) FROM sources", NULL),
	    q_int(st, "SELECT count(*) FROM rejects", NULL),
	    q_int(st, "SELECT coalesce(sum(count), 0) FROM resource_counts", NULL),
	    q_int(st, "SELECT count(*) FROM strs", NULL),
	};

	return c;
}

static void expect_same_counts(struct table_counts a, struct table_counts b)
{
	assert_int_equal(a.audit, b.audit);
	assert_int_equal(a.raw, b.raw);
	assert_int_equal(a.sources, b.sources);
	assert_int_equal(a.rejects, b.rejects);
	assert_int_equal(a.resource_counts, b.resource_counts);
	assert_int_equal(a.strs, b.strs);
}

/* One expected column of a row: 'i' integer, 't' text, 'n' NULL. */
struct col_want {
	const char *name;
	char type;
	const char *value;
};

/* Says how column col of the current row differs from want, if it does. */
static void check_col(struct lt_buf *bad, const struct lt_stmt *q, int col,
		      const struct col_want *want)
{
	static const enum lt_col_type types[] = {
	    ['n'] = LT_COL_NULL, ['i'] = LT_COL_INT, ['t'] = LT_COL_TEXT};
	enum lt_col_type type = col < 0 ? LT_COL_NULL : lt_stmt_type(q, col);
	const char *got = col < 0 ? "" : lt_stmt_text(q, col, NULL);

	if (col < 0)
		lt_buf_printf(bad, "  no column %s\n", want->name);
	else if (type != types[(unsigned char)want->type])
		lt_buf_printf(bad, "  %s: type %d '%s', want type %c\n", want->name, (int)type, got,
			      want->type);
	else if (want->type != 'n' && strcmp(got, want->value) != 0)
		lt_buf_printf(bad, "  %s: '%s', want '%s'\n", want->name, got, want->value);
}

/* The single row of the events view with this auditID has exactly these column values. */
static void expect_event(struct lt_store *st, const char *audit_id, const struct col_want *want,
			 size_t nwant)
{
	static char report[4096];
	struct lt_error err = {0};
	struct lt_stmt *q;
	struct lt_buf bad;
	int rc;

	if (lt_store_prepare(st, &q, "SELECT * FROM events WHERE audit_id = ?1", &err) != 0)
		fail_msg("%s", err.msg);
	lt_stmt_bind_text(q, 1, audit_id, (size_t)-1);
	lt_buf_init(&bad);
	lt_buf_append(&bad, "", 0);
	rc = lt_stmt_step(q, &err);
	if (rc != 1)
		lt_buf_printf(&bad, "  no event (%d: %s)\n", rc, err.msg);
	for (size_t w = 0; rc == 1 && w < nwant; w++) {
		int col = -1;

		for (int i = 0; i < lt_stmt_columns(q); i++)
			if (strcmp(lt_stmt_name(q, i), want[w].name) == 0)
				col = i;
		check_col(&bad, q, col, &want[w]);
	}
	if (rc == 1 && lt_stmt_step(q, &err) != 0)
		lt_buf_printf(&bad, "  more than one row\n");
	lt_stmt_free(q);
	snprintf(report, sizeof report, "%s", bad.ptr);
	lt_buf_release(&bad);
	if (report[0] != '\0')
		fail_msg("event %s:\n%s", audit_id, report);
}

/* ---- audit records ---------------------------------------------------------- */

/* A compact Metadata lease update of node n1; extra goes in before the closing brace. */
#define LEASE(id, stage, extra)                                                                    \
	"{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Metadata\","           \
	"\"auditID\":\"" id "\",\"stage\":\"" stage "\",\"verb\":\"update\","                      \
	"\"user\":{\"username\":\"system:node:n1\"},"                                              \
	"\"objectRef\":{\"resource\":\"leases\",\"namespace\":\"kube-node-lease\","                \
	"\"name\":\"n1\"},\"responseStatus\":{\"code\":200},"                                      \
	"\"stageTimestamp\":\"2024-04-05T06:04:14.668822Z\"" extra "}"

#define DONE "ResponseComplete"

/* An event on another resource; resource "" leaves objectRef out (a non-resource request). */
#define OTHER(id, objref, verb)                                                                    \
	"{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Metadata\","           \
	"\"auditID\":\"" id "\",\"stage\":\"ResponseComplete\",\"verb\":\"" verb "\","             \
	"\"user\":{\"username\":\"system:serviceaccount:kube-system:job\"}," objref                \
	"\"responseStatus\":{\"code\":200},"                                                       \
	"\"stageTimestamp\":\"2024-04-05T06:05:00.000001Z\"}"

#define OBJREF(resource) "\"objectRef\":{\"resource\":\"" resource "\",\"namespace\":\"default\"},"

/* Line 1: a Metadata lease update that lost a conflict, every metadata field set. */
#define EV_META                                                                                    \
	"{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Metadata\","           \
	"\"auditID\":\"6f9e0c4a-0001-4d1b-9a55-1e2f3a4b5c01\",\"stage\":\"ResponseComplete\","     \
	"\"requestURI\":\"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/"         \
	"node-a?timeout=10s\",\"verb\":\"update\",\"user\":{\"username\":\"system:node:node-a\","  \
	"\"groups\":[\"system:nodes\",\"system:authenticated\"]},"                                 \
	"\"impersonatedUser\":{\"username\":\"system:admin\",\"groups\":[\"x\"]},"                 \
	"\"sourceIPs\":[\"10.0.0.7\",\"192.168.1.1\"],"                                            \
	"\"userAgent\":\"kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f\","                      \
	"\"objectRef\":{\"resource\":\"leases\",\"namespace\":\"kube-node-lease\","                \
	"\"name\":\"node-a\",\"uid\":\"0d9e8f7a-aaaa-bbbb-cccc-000000000001\","                    \
	"\"apiGroup\":\"coordination.k8s.io\",\"apiVersion\":\"v1\",\"resourceVersion\":\"4242\"}" \
	","                                                                                        \
	"\"responseStatus\":{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Operation "      \
	"cannot be fulfilled on leases.coordination.k8s.io \\\"node-a\\\": the object has been "   \
	"modified\",\"reason\":\"Conflict\",\"code\":409},"                                        \
	"\"requestReceivedTimestamp\":\"2024-04-05T06:04:14.660001Z\","                            \
	"\"stageTimestamp\":\"2024-04-05T06:04:14.668222Z\","                                      \
	"\"annotations\":{\"authorization.k8s.io/decision\":\"allow\","                            \
	"\"authorization.k8s.io/reason\":\"\"}}"

/* Line 2: a node status patch. */
#define EV_NODE                                                                                    \
	"{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Request\","            \
	"\"auditID\":\"6f9e0c4a-0002-4d1b-9a55-1e2f3a4b5c02\",\"stage\":\"ResponseComplete\","     \
	"\"requestURI\":\"/api/v1/nodes/node-a/status?timeout=10s\",\"verb\":\"patch\","           \
	"\"user\":{\"username\":\"system:node:node-a\",\"groups\":[\"system:nodes\"]},"            \
	"\"sourceIPs\":[\"10.0.0.7\"],\"userAgent\":\"kubelet/v1.29.0\","                          \
	"\"objectRef\":{\"resource\":\"nodes\",\"name\":\"node-a\",\"apiVersion\":\"v1\","         \
	"\"subresource\":\"status\"},\"responseStatus\":{\"metadata\":{},\"code\":200},"           \
	"\"requestObject\":{\"status\":{\"conditions\":[{\"type\":\"Ready\"}]}},"                  \
	"\"requestReceivedTimestamp\":\"2024-04-05T06:04:15.000000Z\","                            \
	"\"stageTimestamp\":\"2024-04-05T06:04:15.010000Z\"}"

/* Line 3: a RequestResponse lease update with the Lease in both bodies; the response wins. */
#define EV_BODY                                                                                    \
	"{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"RequestResponse\","    \
	"\"auditID\":\"6f9e0c4a-0003-4d1b-9a55-1e2f3a4b5c03\",\"stage\":\"ResponseComplete\","     \
	"\"requestURI\":\"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/"         \
	"node-b\",\"verb\":\"update\",\"user\":{\"username\":\"system:node:node-b\","              \
	"\"uid\":\"u-1\",\"groups\":[\"system:nodes\",\"system:authenticated\"],"                  \
	"\"extra\":{\"k\":[\"not-a-group\"]}},\"sourceIPs\":[\"10.0.0.8\"],"                       \
	"\"userAgent\":\"kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f\","                      \
	"\"objectRef\":{\"resource\":\"leases\",\"namespace\":\"kube-node-lease\","                \
	"\"name\":\"node-b\",\"uid\":\"uid-b\",\"apiGroup\":\"coordination.k8s.io\","              \
	"\"apiVersion\":\"v1\",\"resourceVersion\":\"5000\"},"                                     \
	"\"responseStatus\":{\"metadata\":{},\"code\":200},"                                       \
	"\"requestObject\":{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","         \
	"\"metadata\":{\"name\":\"node-b\",\"namespace\":\"kube-node-lease\","                     \
	"\"resourceVersion\":\"5000\"},\"spec\":{\"holderIdentity\":\"node-b-request\","           \
	"\"leaseDurationSeconds\":30,\"renewTime\":\"2024-04-05T06:04:20.000000Z\","               \
	"\"acquireTime\":\"2024-04-01T00:00:00.000000Z\",\"leaseTransitions\":2}},"                \
	"\"responseObject\":{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","        \
	"\"metadata\":{\"name\":\"node-b\",\"namespace\":\"kube-node-lease\",\"uid\":\"uid-b\","   \
	"\"resourceVersion\":\"5001\",\"creationTimestamp\":\"2024-03-01T00:00:00Z\"},"            \
	"\"spec\":{\"holderIdentity\":\"node-b\",\"leaseDurationSeconds\":40,"                     \
	"\"acquireTime\":\"2024-04-01T00:00:01.250000Z\","                                         \
	"\"renewTime\":\"2024-04-05T06:04:24.123456Z\",\"leaseTransitions\":3}},"                  \
	"\"requestReceivedTimestamp\":\"2024-04-05T06:04:24.120000Z\","                            \
	"\"stageTimestamp\":\"2024-04-05T06:04:24.130400Z\","                                      \
	"\"annotations\":{\"authorization.k8s.io/decision\":\"allow\","                            \
	"\"authorization.k8s.io/reason\":\"RBAC: allowed by ClusterRoleBinding "                   \
	"\\\"system:node\\\" of ClusterRole \\\"system:node\\\"\"}}"

/* ---- tests ------------------------------------------------------------------ */

/* Every column of the events view, the raw JSON byte for byte, and provenance. */
static void test_every_field(void **state)
{
	static const struct col_want meta[] = {
	    {"id", 'i', "1"},
	    {"ts", 't', "2024-04-05T06:04:14.668222Z"},
	    {"ts_us", 'i', "1712297054668222"},
	    {"received_us", 'i', "1712297054660001"},
	    {"latency_us", 'i', "8221"},
	    {"audit_id", 't', "6f9e0c4a-0001-4d1b-9a55-1e2f3a4b5c01"},
	    {"stage", 't', "ResponseComplete"},
	    {"level", 't', "Metadata"},
	    {"verb", 't', "update"},
	    {"resource", 't', "leases"},
	    {"subresource", 'n', NULL},
	    {"namespace", 't', "kube-node-lease"},
	    {"name", 't', "node-a"},
	    {"api_group", 't', "coordination.k8s.io"},
	    {"api_version", 't', "v1"},
	    {"uid", 't', "0d9e8f7a-aaaa-bbbb-cccc-000000000001"},
	    {"resource_version", 't', "4242"},
	    {"request_uri", 't',
	     "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-a?timeout=10s"},
	    {"user", 't', "system:node:node-a"},
	    {"groups", 't', "system:nodes,system:authenticated"},
	    {"impersonated_user", 't', "system:admin"},
	    {"source_ip", 't', "10.0.0.7"},
	    {"user_agent", 't', "kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f"},
	    {"code", 'i', "409"},
	    {"status", 't', "Failure"},
	    {"reason", 't', "Conflict"},
	    {"message", 't',
	     "Operation cannot be fulfilled on leases.coordination.k8s.io \"node-a\": the object "
	     "has been modified"},
	    {"authz_decision", 't', "allow"},
	    {"authz_reason", 't', ""},
	    {"lease_holder", 'n', NULL},
	    {"lease_duration_s", 'n', NULL},
	    {"lease_renew_us", 'n', NULL},
	    {"lease_acquire_us", 'n', NULL},
	    {"lease_transitions", 'n', NULL},
	    {"source_id", 'i', "1"},
	    {"line", 'i', "1"},
	    {"offset", 'i', "0"},
	};
	static const struct col_want node[] = {
	    {"id", 'i', "2"},
	    {"ts_us", 'i', "1712297055010000"},
	    {"received_us", 'i', "1712297055000000"},
	    {"level", 't', "Request"},
	    {"verb", 't', "patch"},
	    {"resource", 't', "nodes"},
	    {"subresource", 't', "status"},
	    {"namespace", 'n', NULL},
	    {"name", 't', "node-a"},
	    {"api_group", 'n', NULL},
	    {"groups", 't', "system:nodes"},
	    {"impersonated_user", 'n', NULL},
	    {"code", 'i', "200"},
	    {"status", 'n', NULL},
	    {"authz_decision", 'n', NULL},
	    {"lease_holder", 'n', NULL},
	    {"lease_duration_s", 'n', NULL},
	    {"line", 'i', "2"},
	};
	/* offset: the two lines before, with their newlines */
	char body_offset[32];
	const struct col_want body[] = {
	    {"id", 'i', "3"},
	    {"ts", 't', "2024-04-05T06:04:24.130400Z"},
	    {"ts_us", 'i', "1712297064130400"},
	    {"received_us", 'i', "1712297064120000"},
	    {"latency_us", 'i', "10400"},
	    {"audit_id", 't', "6f9e0c4a-0003-4d1b-9a55-1e2f3a4b5c03"},
	    {"stage", 't', "ResponseComplete"},
	    {"level", 't', "RequestResponse"},
	    {"verb", 't', "update"},
	    {"resource", 't', "leases"},
	    {"subresource", 'n', NULL},
	    {"namespace", 't', "kube-node-lease"},
	    {"name", 't', "node-b"},
	    {"api_group", 't', "coordination.k8s.io"},
	    {"api_version", 't', "v1"},
	    {"uid", 't', "uid-b"},
	    {"resource_version", 't', "5000"},
	    {"request_uri", 't',
	     "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-b"},
	    {"user", 't', "system:node:node-b"},
	    {"groups", 't', "system:nodes,system:authenticated"},
	    {"impersonated_user", 'n', NULL},
	    {"source_ip", 't', "10.0.0.8"},
	    {"user_agent", 't', "kubelet/v1.29.0 (linux/amd64) kubernetes/3f7a50f"},
	    {"code", 'i', "200"},
	    {"status", 'n', NULL},
	    {"reason", 'n', NULL},
	    {"message", 'n', NULL},
	    {"authz_decision", 't', "allow"},
	    {"authz_reason", 't',
	     "RBAC: allowed by ClusterRoleBinding \"system:node\" of ClusterRole \"system:node\""},
	    {"lease_holder", 't', "node-b"},
	    {"lease_duration_s", 'i', "40"},
	    {"lease_renew_us", 'i', "1712297064123456"},
	    {"lease_acquire_us", 'i', "1711929601250000"},
	    {"lease_transitions", 'i', "3"},
	    {"source_id", 'i', "1"},
	    {"line", 'i', "3"},
	    {"offset", 'i', body_offset},
	};
	char dir[PATH_SIZE], log[PATH_SIZE], want[PATH_SIZE + 64];
	struct lt_ingest_totals t = {0};
	struct seen s;
	struct lt_store *st;
	const struct lt_file_report *r;

	(void)state;
	snprintf(body_offset, sizeof body_offset, "%zu", strlen(EV_META) + strlen(EV_NODE) + 2);
	case_dir(dir, "fields");
	write_file(log, dir, "audit.log", EV_META "\n" EV_NODE "\n" EV_BODY "\n");
	st = open_store(dir);
	r = ingest_ok(st, log, &s, &t);
	assert_int_equal(r->status, LT_FILE_INGESTED);
	assert_string_equal(r->detail, "");
	assert_int_equal(r->source_id, 1);
	assert_int_equal(r->bytes, strlen(EV_META EV_NODE EV_BODY) + 3);
	expect_counts(r, 3, 3, 0, 0, 0);
	assert_int_equal(s.nrejects, 0);
	assert_true(s.nprogress > 0);
	assert_int_equal(t.files, 1);
	assert_int_equal(t.records, 3);
	assert_int_equal(t.stored, 3);
	assert_int_equal(t.bytes, r->bytes);

	expect_event(st, "6f9e0c4a-0001-4d1b-9a55-1e2f3a4b5c01", meta, sizeof meta / sizeof *meta);
	expect_event(st, "6f9e0c4a-0002-4d1b-9a55-1e2f3a4b5c02", node, sizeof node / sizeof *node);
	expect_event(st, "6f9e0c4a-0003-4d1b-9a55-1e2f3a4b5c03", body, sizeof body / sizeof *body);

	/* the raw JSON of each record, byte for byte */
	expect_rows(st, "SELECT lt_raw(json) FROM audit_raw ORDER BY id", NULL,
		    EV_META "\n" EV_NODE "\n" EV_BODY "\n");
	snprintf(want, sizeof want, "%s|complete|0|%llu|3|3|0|0|0|NULL|1|1\n", log,
		 (unsigned long long)r->bytes);
	expect_rows(
	    st,
	    "SELECT path, state, gzip, size, records, stored, duplicates, skipped, rejected,"
	    " note, resume_offset > 0, finished_us >= started_us FROM sources",
	    NULL, want);
	close_store(st);
}

/* Without a response body the Lease comes from the request; only leases have lease columns. */
static void test_lease_from_request(void **state)
{
	static const struct col_want created[] = {
	    {"verb", 't', "create"},
	    {"code", 'i', "201"},
	    {"lease_holder", 't', "node-c"},
	    {"lease_duration_s", 'i', "40"},
	    {"lease_renew_us", 'i', "1712297064123456"},
	    {"lease_acquire_us", 'n', NULL},
	    {"lease_transitions", 'i', "0"},
	};
	static const struct col_want node[] = {
	    {"resource", 't', "nodes"},	      {"lease_holder", 'n', NULL},
	    {"lease_duration_s", 'n', NULL},  {"lease_renew_us", 'n', NULL},
	    {"lease_transitions", 'n', NULL},
	};
	const char *text =
	    "{\"kind\":\"Event\",\"level\":\"Request\",\"auditID\":\"lr1\","
	    "\"stage\":\"ResponseComplete\",\"verb\":\"create\","
	    "\"objectRef\":{\"resource\":\"leases\",\"namespace\":\"kube-node-lease\","
	    "\"name\":\"node-c\"},\"responseStatus\":{\"code\":201},"
	    "\"requestObject\":{\"kind\":\"Lease\",\"spec\":{\"holderIdentity\":\"node-c\","
	    "\"leaseDurationSeconds\":40,\"leaseTransitions\":0,"
	    "\"renewTime\":\"2024-04-05T06:04:24.123456Z\"}},"
	    "\"stageTimestamp\":\"2024-04-05T06:04:24.200000Z\"}\n"
	    "{\"kind\":\"Event\",\"auditID\":\"lr2\",\"stage\":\"ResponseComplete\","
	    "\"verb\":\"update\",\"objectRef\":{\"resource\":\"nodes\",\"name\":\"n1\"},"
	    "\"responseObject\":{\"spec\":{\"holderIdentity\":\"nope\",\"leaseDurationSeconds\":1,"
	    "\"renewTime\":\"2024-04-05T06:04:24Z\",\"leaseTransitions\":1}},"
	    "\"stageTimestamp\":\"2024-04-05T06:04:14Z\"}\n";
	char dir[PATH_SIZE], log[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "lease-request");
	write_file(log, dir, "audit.log", text);
	st = open_store(dir);
	expect_counts(ingest_ok(st, log, &s, &t), 2, 2, 0, 0, 0);
	expect_event(st, "lr1", created, sizeof created / sizeof *created);
	expect_event(st, "lr2", node, sizeof node / sizeof *node);
	close_store(st);
}

/* Events on other resources are counted per resource and verb, stored only with all_resources. */
static void test_other_resources(void **state)
{
	const char *text = LEASE("o1", DONE, "") "\n" OTHER("o2", OBJREF("pods"), "get") "\n" OTHER(
	    "o3", OBJREF("pods"),
	    "get") "\n" OTHER("o4", OBJREF("pods"),
			      "list") "\n" OTHER("o5", OBJREF("configmaps"),
						 "update") "\n" OTHER("o6", "",
								      "get") "\n" OTHER("o7",
											"\"objectRe"
											"f\":{"
											"\"resource"
											"\":"
											"\"nodes\","
											"\"name\":"
											"\"n1\"},",
											"get") "\n";
	char dir[PATH_SIZE], dir_all[PATH_SIZE], log[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct lt_error err;
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "others");
	write_file(log, dir, "audit.log", text);
	st = open_store(dir);
	expect_counts(ingest_ok(st, log, &s, &t), 7, 2, 0, 5, 0);
	assert_int_equal(t.skipped, 5);
	expect_rows(
	    st, "SELECT source_id, resource, verb, count FROM resource_counts ORDER BY 2, 3", NULL,
	    "1|(non-resource)|get|1\n1|configmaps|update|1\n1|pods|get|2\n1|pods|list|1\n");
	expect_rows(st, "SELECT audit_id, resource FROM events ORDER BY id", NULL,
		    "o1|leases\no7|nodes\n");
	assert_int_equal(q_int(st, "SELECT count(*) FROM audit_raw", NULL), 2);
	close_store(st);

	/* the same file with all_resources: everything stored, nothing only counted */
	case_dir(dir_all, "others-all");
	st = open_store(dir_all);
	assert_int_equal(ingest(st, log, 1, &s, &t, &err), 0);
	expect_counts(&s.files[0].rep, 7, 7, 0, 0, 0);
	expect_rows(st, "SELECT count(*) FROM resource_counts", NULL, "0\n");
	expect_rows(st, "SELECT audit_id, resource, verb FROM events ORDER BY id", NULL,
		    "o1|leases|update\no2|pods|get\no3|pods|get\no4|pods|list\n"
		    "o5|configmaps|update\no6|NULL|get\no7|nodes|get\n");
	expect_rows(st, "SELECT request_uri IS NULL, user FROM events WHERE audit_id = 'o6'", NULL,
		    "1|system:serviceaccount:kube-system:job\n");
	close_store(st);
}

/* The same file twice (or a copy of it elsewhere) adds nothing the second time. */
static void test_reingest_is_noop(void **state)
{
	const char *text = LEASE("i1", DONE, "") "\n" LEASE("i2", DONE, "") "\n" OTHER(
	    "i3", OBJREF("pods"), "get") "\n{\"kind\":\"Pod\"}\n" LEASE("i4", DONE, "") "\n";
	char dir[PATH_SIZE], log[PATH_SIZE], copy[PATH_SIZE];
	struct lt_ingest_totals t = {0}, before;
	struct table_counts counts;
	const struct lt_file_report *r;
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "reingest");
	write_file(log, dir, "audit.log", text);
	write_file(copy, dir, "audit.log.1", text);
	st = open_store(dir);
	r = ingest_ok(st, log, &s, &t);
	assert_int_equal(r->status, LT_FILE_INGESTED);
	expect_counts(r, 5, 3, 0, 1, 1);
	assert_int_equal(s.nrejects, 1);
	counts = count_tables(st);
	assert_int_equal(counts.audit, 3);
	assert_int_equal(counts.rejects, 1);
	assert_int_equal(counts.resource_counts, 1);
	before = t;

	for (int round = 0; round < 2; round++) {
		r = ingest_ok(st, round == 0 ? log : copy, &s, &t);
		assert_int_equal(r->status, LT_FILE_DUPLICATE);
		assert_int_equal(r->source_id, 1);
		assert_int_equal(s.nrejects, 0);
		assert_int_equal(t.files, before.files + 1 + (uint64_t)round);
		assert_int_equal(t.files_duplicate, 1 + (uint64_t)round);
		assert_int_equal(t.bytes, before.bytes);
		assert_int_equal(t.records, before.records);
		assert_int_equal(t.stored, before.stored);
		assert_int_equal(t.duplicates, before.duplicates);
		assert_int_equal(t.skipped, before.skipped);
		assert_int_equal(t.rejected, before.rejected);
		expect_same_counts(count_tables(st), counts);
	}
	expect_rows(st, "SELECT id, state, records, stored FROM sources", NULL, "1|complete|5|3\n");
	close_store(st);
}

/* index_intern_id of text: its id, checked not 0. */
static int64_t intern_text(struct lt_store *st, const char *text)
{
	struct lt_error err = {0};
	int64_t id = 0;

	assert_int_equal(index_intern_id(st, (struct lt_str){text, strlen(text)}, &id, &err), 0);
	assert_true(id > 0);
	return id;
}

/*
 * Interning: a store whose strs is empty inserts a string the cache misses at once (the cache
 * is complete); a store opened again over rows it has not cached looks them up (not complete);
 * a cache wrongly taken for complete still finds an existing string (strs.s is UNIQUE): each
 * string has one id whatever the path, and strs holds it once.
 */
static void test_intern_insert_first(void **state)
{
	char dir[PATH_SIZE];
	struct lt_error err = {0};
	struct lt_store *st;
	int64_t a, b;

	(void)state;
	case_dir(dir, "intern");
	st = open_store(dir);
	assert_int_equal(index_store_exec(st, "BEGIN", &err), 0);
	a = intern_text(st, "kube-node-lease");
	assert_true(st->strs.checked && st->strs.complete);
	b = intern_text(st, "node-1");
	assert_true(b != a);
	assert_int_equal(intern_text(st, "kube-node-lease"), a);
	assert_int_equal(index_store_exec(st, "COMMIT", &err), 0);
	close_store(st);

	st = open_store(dir);
	assert_int_equal(index_store_exec(st, "BEGIN", &err), 0);
	assert_int_equal(intern_text(st, "node-1"), b);
	assert_true(st->strs.checked && !st->strs.complete);
	/* the cache forgets (a rollback, an overflow) and is then wrongly taken for complete */
	index_intern_clear(&st->strs);
	st->strs.checked = st->strs.complete = 1;
	assert_int_equal(intern_text(st, "kube-node-lease"), a);
	assert_true(intern_text(st, "node-2") > b);
	assert_int_equal(index_store_exec(st, "COMMIT", &err), 0);
	expect_rows(st, "SELECT s, count(*) FROM strs GROUP BY s ORDER BY s", NULL,
		    "kube-node-lease|1\nnode-1|1\nnode-2|1\n");
	close_store(st);
}

/*
 * index_intern_ids_memo gives every string the id index_intern_id gives it, in the same
 * order: 3000 strings (the cache grows and its arena moves several times), a batch that names
 * one string twice, an absent one (id 0), memo hits, and a string too long to be cached,
 * looked up in strs each time and still one row.
 */
static void test_intern_batch(void **state)
{
	enum { N = 3000, COLS = 4, LONG = (64 << 20) / 16 + 1 };
	char dir[PATH_SIZE], text[COLS][32];
	struct lt_error err = {0};
	struct index_intern_memo memo[COLS] = {{0}};
	struct lt_store *st;
	char *big = malloc(LONG);
	int64_t ids[COLS], big_id;

	(void)state;
	assert_non_null(big);
	memset(big, 'x', LONG);
	case_dir(dir, "intern-batch");
	st = open_store(dir);
	assert_int_equal(index_store_exec(st, "BEGIN", &err), 0);
	for (int i = 0; i < N; i += 2) {
		struct index_intern_req r[COLS];

		snprintf(text[0], sizeof text[0], "node-%d", i);
		snprintf(text[1], sizeof text[1], "node-%d", i + 1);
		snprintf(text[2], sizeof text[2], "node-%d", i); /* twice in one batch */
		for (int c = 0; c < COLS; c++)
			r[c] = (struct index_intern_req){
			    .memo = &memo[c],
			    .s = c < 3 ? (struct lt_str){text[c], strlen(text[c])}
				       : (struct lt_str){NULL, 0},
			    .id = &ids[c]};
		assert_int_equal(index_intern_ids_memo(st, r, COLS, &err), 0);
		assert_int_equal(ids[0], ids[2]);
		assert_int_equal(ids[3], 0);
		assert_int_equal(intern_text(st, text[0]), ids[0]);
		assert_int_equal(intern_text(st, text[1]), ids[1]);
		assert_true(ids[1] == ids[0] + 1); /* inserted in column order */
		/* the same batch again: every answer from the memos, the same ids */
		assert_int_equal(index_intern_ids_memo(st, r, COLS, &err), 0);
		assert_int_equal(ids[1], ids[0] + 1);
	}
	assert_int_equal(index_intern_id(st, (struct lt_str){big, LONG}, &big_id, &err), 0);
	assert_int_equal(index_intern_id(st, (struct lt_str){big, LONG}, ids, &err), 0);
	assert_int_equal(ids[0], big_id);
	assert_int_equal(index_store_exec(st, "COMMIT", &err), 0);
	expect_rows(st, "SELECT count(*), count(DISTINCT s), max(id) FROM strs", NULL,
		    "3001|3001|3001\n");
	index_intern_memo_release(memo, COLS);
	free(big);
	close_store(st);
}

/*
 * A text log that grew into something that is no log (control bytes in its first 4 KiB):
 * not a log, and neither its report nor the totals count again what was read of it before
 * (fuzz-index found the summary saying "1 events stored" of such a file).
 */
static void test_grown_into_not_log(void **state)
{
	static const char line[] = "2024-04-05T05:50:33.938270+00:00 ip-10-0-241-74 kubelet[3787]: "
				   "E0405 05:50:33.938174    3787 kubelet.go:2528] \"boom\"\n";
	char dir[PATH_SIZE], log[PATH_SIZE], grown[1024];
	struct lt_ingest_totals t = {0};
	struct table_counts counts;
	struct lt_error err;
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "grown-not-log");
	write_file(log, dir, "kubelet.log", line);
	st = open_store(dir);
	assert_int_equal(ingest_ok(st, log, &s, &t)->status, LT_FILE_INGESTED);
	counts = count_tables(st);
	memset(grown, '\001', sizeof grown - 2);
	memcpy(grown, line, sizeof line - 1);
	grown[sizeof grown - 2] = '\n';
	grown[sizeof grown - 1] = '\0';
	write_file(log, dir, "kubelet.log", grown);
	memset(&t, 0, sizeof t);
	assert_int_equal(ingest(st, log, 0, &s, &t, &err), LT_ERR_FORMAT);
	assert_int_equal(s.nfiles, 1);
	assert_int_equal(s.files[0].rep.status, LT_FILE_NOT_LOG);
	expect_counts(&s.files[0].rep, 0, 0, 0, 0, 0);
	assert_int_equal(t.files_not_log, 1);
	assert_int_equal(t.records + t.stored + t.duplicates + t.skipped + t.rejected, 0);
	expect_same_counts(count_tables(st), counts);
	close_store(st);
}

/*
 * Log lines dated past the year 2514, up to 9999 as the time parser takes them, are stored
 * like any other (fuzz-index found the dedupe key's second shifted out of an int64_t),
 * and a line repeated in the same second still counts once per line.
 */
static void test_far_future_lines(void **state)
{
	char dir[PATH_SIZE], log[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "far-future");
	write_file(
	    log, dir, "kubelet.log",
	    "4024-04-05T05:50:33.938270+00:00 n1 kubelet[1]: E0405 05:50:33.938174 1 a.go:1] "
	    "\"a\"\n"
	    "9999-12-31T23:59:59.000000+00:00 n1 kubelet[1]: E1231 23:59:59.000000 1 a.go:1] "
	    "\"b\"\n"
	    "9999-12-31T23:59:59.000000+00:00 n1 kubelet[1]: E1231 23:59:59.000000 1 a.go:1] "
	    "\"b\"\n");
	st = open_store(dir);
	assert_int_equal(ingest_ok(st, log, &s, &t)->status, LT_FILE_INGESTED);
	expect_rows(st, "SELECT count(*) FROM lines", NULL, "3\n");
	close_store(st);
}

/* A request (auditID + stage) already stored is a duplicate, in a later file or the same one. */
static void test_dedupe_across_files(void **state)
{
	char dir[PATH_SIZE], a[PATH_SIZE], b[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "dedupe");
	write_file(a, dir, "a.log",
		   LEASE("d1", DONE, "") "\n" LEASE("d2", DONE, "") "\n" LEASE(
		       "d3", DONE, "") "\n" LEASE("d1", DONE, ",\"userAgent\":\"again\"") "\n");
	write_file(
	    b, dir, "b.log",
	    LEASE("d1", DONE, ",\"userAgent\":\"rotated\"") "\n" LEASE(
		"d2", DONE, ",\"userAgent\":\"rotated\"") "\n" LEASE("d3", "ResponseStarted",
								     "") "\n" LEASE("d4", DONE,
										    "") "\n");
	st = open_store(dir);
	expect_counts(ingest_ok(st, a, &s, &t), 4, 3, 1, 0, 0);
	expect_counts(ingest_ok(st, b, &s, &t), 4, 2, 2, 0, 0);
	assert_int_equal(s.files[0].rep.status, LT_FILE_INGESTED);
	assert_int_equal(t.stored, 5);
	assert_int_equal(t.duplicates, 3);
	expect_rows(
	    st, "SELECT audit_id, stage_rank, superseded, source_id, line FROM audit ORDER BY id",
	    NULL, "d1|2|0|1|1\nd2|2|0|1|2\nd3|2|0|1|3\nd3|1|1|2|3\nd4|2|0|2|4\n");
	/* the first copy is the one kept */
	expect_rows(
	    st, "SELECT audit_id, stage, user_agent, source_id, line FROM events ORDER BY id", NULL,
	    "d1|ResponseComplete|NULL|1|1\nd2|ResponseComplete|NULL|1|2\n"
	    "d3|ResponseComplete|NULL|1|3\nd4|ResponseComplete|NULL|2|4\n");
	expect_rows(st, "SELECT id, stored, duplicates FROM sources ORDER BY id", NULL,
		    "1|3|1\n2|2|2\n");
	close_store(st);
}

/* The stages of one request count once: the events view holds the latest stage only. */
static void test_stages(void **state)
{
	char dir[PATH_SIZE], path[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "stages");
	st = open_store(dir);
	/* s1: both stages in one file, in order; s2: in one file, the final stage first */
	write_file(path, dir, "one.log",
		   LEASE("s1", "RequestReceived", "") "\n" LEASE("s1", DONE, "") "\n" LEASE(
		       "s2", DONE, "") "\n" LEASE("s2", "RequestReceived", "") "\n");
	expect_counts(ingest_ok(st, path, &s, &t), 4, 4, 0, 0, 0);
	/* s3: the final stage first, the received stage in a later file */
	write_file(path, dir, "s3-done.log", LEASE("s3", DONE, "") "\n");
	expect_counts(ingest_ok(st, path, &s, &t), 1, 1, 0, 0, 0);
	write_file(path, dir, "s3-received.log", LEASE("s3", "RequestReceived", "") "\n");
	expect_counts(ingest_ok(st, path, &s, &t), 1, 1, 0, 0, 0);
	/* s4: received first; until the final stage comes, the received one is the request */
	write_file(path, dir, "s4-received.log", LEASE("s4", "RequestReceived", "") "\n");
	expect_counts(ingest_ok(st, path, &s, &t), 1, 1, 0, 0, 0);
	expect_rows(st, "SELECT stage FROM events WHERE audit_id = 's4'", NULL,
		    "RequestReceived\n");
	/* ... and a separate run (the store closed and opened again) brings it */
	close_store(st);
	st = open_store(dir);
	write_file(path, dir, "s4-done.log", LEASE("s4", DONE, "") "\n");
	expect_counts(ingest_ok(st, path, &s, &t), 1, 1, 0, 0, 0);
	/* s5: three stages over three files, in a scrambled order */
	write_file(path, dir, "s5-started.log", LEASE("s5", "ResponseStarted", "") "\n");
	ingest_ok(st, path, &s, &t);
	write_file(path, dir, "s5-received.log", LEASE("s5", "RequestReceived", "") "\n");
	ingest_ok(st, path, &s, &t);
	write_file(path, dir, "s5-done.log", LEASE("s5", DONE, "") "\n");
	ingest_ok(st, path, &s, &t);

	expect_rows(st, "SELECT audit_id, count(*) FROM audit GROUP BY 1 ORDER BY 1", NULL,
		    "s1|2\ns2|2\ns3|2\ns4|2\ns5|3\n");
	expect_rows(st, "SELECT audit_id, stage FROM events ORDER BY audit_id", NULL,
		    "s1|ResponseComplete\ns2|ResponseComplete\ns3|ResponseComplete\n"
		    "s4|ResponseComplete\ns5|ResponseComplete\n");
	assert_int_equal(t.stored, 11);
	assert_int_equal(t.duplicates, 0);
	close_store(st);
}

/*
 * Three requests of one second whose auditIDs share the 26 hash bits of the
 * dedupe key: each takes the next probe, a second file holding them again
 * adds nothing, and each request's stages still count once.
 */
#define RECV(t) ",\"requestReceivedTimestamp\":\"2024-04-05T06:04:14." t "Z\""
#define CLASH_A "req-16597"
#define CLASH_B "req-45653"
#define CLASH_C "req-122890"

static void test_key_clash(void **state)
{
	char dir[PATH_SIZE], a[PATH_SIZE], b[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "clash");
	write_file(
	    a, dir, "a.log",
	    LEASE(CLASH_A, "RequestReceived", RECV("1")) "\n" LEASE(
		CLASH_B, "RequestReceived",
		RECV("2")) "\n" LEASE(CLASH_A, DONE,
				      RECV("1")) "\n" LEASE(CLASH_C, DONE,
							    RECV("3")) "\n" LEASE(CLASH_B, DONE,
										  RECV("2")) "\n");
	write_file(b, dir, "b.log",
		   LEASE(CLASH_C, DONE, RECV("3")) "\n" LEASE(CLASH_B, DONE, RECV("2")) "\n" LEASE(
		       CLASH_A, DONE, RECV("1")) "\n" LEASE(CLASH_B, "RequestReceived",
							    RECV("2")) "\n" LEASE(CLASH_C,
										  "RequestReceived",
										  RECV("3")) "\n");
	st = open_store(dir);
	expect_counts(ingest_ok(st, a, &s, &t), 5, 5, 0, 0, 0);
	/* keyed first by the second the requests were received */
	expect_rows(st, "SELECT DISTINCT akey >> 31 FROM audit", NULL, "1712297054\n");
	/* one group, the probes in order of arrival, per stage */
	expect_rows(st,
		    "SELECT audit_id, stage_rank, (akey >> 3) & 3 FROM audit"
		    " WHERE akey >> 5 = (SELECT akey >> 5 FROM audit WHERE id = 1) ORDER BY id",
		    NULL,
		    CLASH_A "|0|0\n" CLASH_B "|0|1\n" CLASH_A "|2|0\n" CLASH_C "|2|1\n" CLASH_B
			    "|2|2\n");
	expect_counts(ingest_ok(st, b, &s, &t), 5, 1, 4, 0, 0);
	expect_rows(st, "SELECT audit_id, stage_rank, superseded FROM audit ORDER BY id", NULL,
		    CLASH_A "|0|1\n" CLASH_B "|0|1\n" CLASH_A "|2|0\n" CLASH_C "|2|0\n" CLASH_B
			    "|2|0\n" CLASH_C "|0|1\n");
	expect_rows(st, "SELECT audit_id, stage FROM events ORDER BY audit_id", NULL,
		    CLASH_C "|ResponseComplete\n" CLASH_A "|ResponseComplete\n" CLASH_B
			    "|ResponseComplete\n");
	close_store(st);
}

/* Broken records are rejected with line and reason; every good record around them is kept. */
static void test_rejects(void **state)
{
	static const char broken[] = "{\"kind\":\"Event\",\"verb\":\"get\",\"stageTi";
	static const char pod[] = "{\"kind\":\"Pod\"}";
	static const char bad_json[] = "{\"kind\":\"Event\" \"verb\":1}";
	static const char cut[] = "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\","
				  "\"verb\":\"update\",\"objectRef\":{\"resource\":\"le";
	const char *l1 = LEASE("r1", DONE, ""), *l3 = LEASE("r2", DONE, "");
	const char *l5 = LEASE("r3", DONE, ""), *l7 = LEASE("r4", DONE, "");
	char text[4096], dir[PATH_SIZE], log[PATH_SIZE], want[1024];
	uint64_t off2 = strlen(l1) + 1, off8;
	struct lt_ingest_totals t = {0};
	struct seen s;
	struct lt_store *st;

	(void)state;
	snprintf(text, sizeof text, "%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s", l1, broken, l3, pod, l5,
		 bad_json, l7, cut);
	off8 = strlen(text) - strlen(cut);
	case_dir(dir, "rejects");
	write_file(log, dir, "audit.log", text);
	st = open_store(dir);
	expect_counts(ingest_ok(st, log, &s, &t), 8, 4, 0, 0, 4);
	assert_int_equal(s.files[0].rep.status, LT_FILE_INGESTED);
	assert_int_equal(t.rejected, 4);

	assert_int_equal(s.nrejects, 4);
	assert_string_equal(s.rejects[0].file, log);
	assert_int_equal(s.rejects[0].line, 2);
	assert_int_equal(s.rejects[0].offset, off2);
	assert_string_equal(s.rejects[0].reason,
			    "record cut off: line 3 starts a new record before it ended");
	assert_int_equal(s.rejects[1].line, 4);
	assert_string_equal(s.rejects[1].reason, "not an audit event: kind is \"Pod\"");
	assert_int_equal(s.rejects[2].line, 6);
	assert_non_null(strstr(s.rejects[2].reason, "invalid JSON at byte"));
	assert_int_equal(s.rejects[3].line, 8);
	assert_int_equal(s.rejects[3].offset, off8);
	assert_string_equal(s.rejects[3].reason, "record cut off at end of input (truncated)");

	snprintf(want, sizeof want,
		 "1|2|%llu|record cut off: line 3 starts a new record before it ended\n"
		 "1|4|not an audit event: kind is \"Pod\"\n"
		 "1|6|1\n"
		 "1|8|%llu|record cut off at end of input (truncated)\n",
		 (unsigned long long)off2, (unsigned long long)off8);
	expect_rows(st,
		    "SELECT source_id, line, CASE line WHEN 4 THEN reason WHEN 6 THEN"
		    " reason LIKE 'invalid JSON at byte %' ELSE offset || '|' || reason END"
		    " FROM rejects ORDER BY line",
		    NULL, want);
	expect_rows(st, "SELECT audit_id, line FROM events ORDER BY id", NULL,
		    "r1|1\nr2|3\nr3|5\nr4|7\n");
	expect_rows(st, "SELECT state, records, stored, rejected FROM sources", NULL,
		    "complete|8|4|4\n");
	close_store(st);
}

/* Every rejected record is counted and reported; the store keeps the first thousand. */
static void test_reject_rows_capped(void **state)
{
	enum { BAD = 1003 };
	char dir[PATH_SIZE], log[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct lt_buf b;
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "reject-cap");
	lt_buf_init(&b);
	lt_buf_printf(&b, "%s\n", LEASE("c1", DONE, ""));
	for (int i = 0; i < BAD; i++)
		lt_buf_printf(&b, "{\"kind\":\"Pod\",\"n\":%d}\n", i);
	lt_buf_printf(&b, "%s\n", LEASE("c2", DONE, ""));
	path_join(log, dir, "audit.log");
	write_bytes(log, b.ptr, b.len, "wb");
	lt_buf_release(&b);
	st = open_store(dir);
	expect_counts(ingest_ok(st, log, &s, &t), BAD + 2, 2, 0, 0, BAD);
	assert_int_equal(s.nrejects, BAD);
	expect_rows(st, "SELECT count(*), min(line), max(line) FROM rejects", NULL,
		    "1000|2|1001\n");
	expect_rows(st, "SELECT rejected FROM sources", NULL, "1003\n");
	close_store(st);
}

/* N compact lease events with auditIDs prefix-00000 ..., one per line. */
static char *lease_lines(const char *prefix, int n)
{
	struct lt_buf b;

	lt_buf_init(&b);
	for (int i = 0; i < n; i++)
		lt_buf_printf(&b,
			      "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\","
			      "\"level\":\"Metadata\",\"auditID\":\"%s-%05d\","
			      "\"stage\":\"ResponseComplete\",\"verb\":\"update\","
			      "\"objectRef\":{\"resource\":\"leases\",\"namespace\":"
			      "\"kube-node-lease\",\"name\":\"node-%03d\"},"
			      "\"responseStatus\":{\"code\":200},"
			      "\"stageTimestamp\":\"2024-04-05T06:%02d:%02d.%06dZ\"}\n",
			      prefix, i, i % 97, i / 60 % 60, i % 60, i * 7919 % 1000000);
	return b.ptr;
}

/* gzip is read by content: one member, several members, zero padding after the last. */
static void test_gzip(void **state)
{
	char dir[PATH_SIZE], path[PATH_SIZE];
	char *part1 = hold_mem(lease_lines("gza", 10)), *part2 = hold_mem(lease_lines("gzb", 10));
	static const char zeros[512];
	struct lt_ingest_totals t = {0};
	struct seen s;
	struct lt_store *st;
	const struct lt_file_report *r;

	(void)state;
	case_dir(dir, "gzip");
	st = open_store(dir);
	path_join(path, dir, "audit.log"); /* no .gz: content decides */
	write_gzip(path, part1, "wb");
	write_gzip(path, part2, "ab");
	r = ingest_ok(st, path, &s, &t);
	assert_int_equal(r->status, LT_FILE_INGESTED);
	expect_counts(r, 20, 20, 0, 0, 0);
	path_join(path, dir, "padded.gz");
	write_gzip(path, part2, "wb");
	write_bytes(path, zeros, sizeof zeros, "ab");
	r = ingest_ok(st, path, &s, &t);
	assert_int_equal(r->status, LT_FILE_INGESTED);
	expect_counts(r, 10, 0, 10, 0, 0);
	expect_rows(st, "SELECT id, gzip, state FROM sources ORDER BY id", NULL,
		    "1|1|complete\n2|1|complete\n");
	expect_rows(st, "SELECT min(audit_id), max(audit_id), count(*) FROM events", NULL,
		    "gza-00000|gzb-00009|20\n");
	release_mem(part1);
	release_mem(part2);
	close_store(st);
}

/* A gzip cut short keeps every record before the cut and says where it stopped. */
static void test_gzip_truncated(void **state)
{
	enum { N = 3000 };
	char dir[PATH_SIZE], path[PATH_SIZE], want[128];
	char *text = hold_mem(lease_lines("cut", N));
	struct lt_ingest_totals t = {0};
	struct lt_error err;
	struct seen s;
	struct lt_store *st;
	const struct lt_file_report *r;
	struct stat sb;

	(void)state;
	case_dir(dir, "gzip-cut");
	path_join(path, dir, "audit.log.gz");
	write_gzip(path, text, "wb");
	assert_int_equal(stat(path, &sb), 0);
	assert_true(sb.st_size > 4096);
	assert_int_equal(truncate(path, sb.st_size / 2), 0);
	st = open_store(dir);
	assert_int_equal(ingest(st, path, 0, &s, &t, &err), 0);
	assert_int_equal(s.nfiles, 1);
	r = &s.files[0].rep;
	assert_int_equal(r->status, LT_FILE_TRUNCATED);
	assert_non_null(strstr(r->detail, "truncated"));
	assert_non_null(strstr(r->detail, path));
	assert_int_equal(t.files_truncated, 1);
	/* a good share decoded, not all; at most the record at the cut is rejected */
	assert_true(r->stored > N / 10 && r->stored < N);
	assert_true(r->rejected <= 1);
	assert_int_equal(r->records, r->stored + r->rejected);
	assert_int_equal(s.nrejects, (int)r->rejected);
	/* what was stored is exactly the records before the cut */
	snprintf(want, sizeof want, "1|%llu|%llu|cut-00000|cut-%05llu\n",
		 (unsigned long long)r->stored, (unsigned long long)r->stored,
		 (unsigned long long)r->stored - 1);
	expect_rows(st,
		    "SELECT min(line), max(line), count(*), min(audit_id), max(audit_id)"
		    " FROM events",
		    NULL, want);
	expect_rows(st, "SELECT state, note IS NOT NULL, gzip FROM sources", NULL,
		    "truncated|1|1\n");
	release_mem(text);
	close_store(st);
}

/*
 * A small gzip that lost only its 8-byte trailer (CRC and size): every record
 * decoded, so every record is stored, and the file is still reported cut short.
 */
static void test_gzip_truncated_small(void **state)
{
	enum { N = 8 };
	char dir[PATH_SIZE], path[PATH_SIZE];
	char *text = hold_mem(lease_lines("small", N));
	struct lt_ingest_totals t = {0};
	struct lt_error err;
	struct seen s;
	struct lt_store *st;
	const struct lt_file_report *r;
	struct stat sb;

	(void)state;
	assert_true(strlen(text) < 4096); /* all of it fits in the first read */
	case_dir(dir, "gzip-cut-small");
	path_join(path, dir, "audit.log.gz");
	write_gzip(path, text, "wb");
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(truncate(path, sb.st_size - 8), 0);
	st = open_store(dir);
	assert_int_equal(ingest(st, path, 0, &s, &t, &err), 0);
	assert_int_equal(s.nfiles, 1);
	r = &s.files[0].rep;
	assert_int_equal(r->status, LT_FILE_TRUNCATED);
	expect_counts(r, N, N, 0, 0, 0);
	expect_rows(st, "SELECT count(*), min(audit_id), max(audit_id) FROM events", NULL,
		    "8|small-00000|small-00007\n");
	release_mem(text);
	close_store(st);
}

/* In a directory, files that are not logs are reported and skipped; named, one is an error. */
static void test_directory_not_logs(void **state)
{
	static const char binary[] = "\x7f"
				     "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x01\0\0\0";
	char dir[PATH_SIZE], logs[PATH_SIZE], sub[PATH_SIZE], path[PATH_SIZE];
	char readme[PATH_SIZE], want[PATH_SIZE];
	struct lt_buf slash;
	struct lt_ingest_totals t = {0};
	struct lt_error err;
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "walk");
	path_join(logs, dir, "logs");
	assert_int_equal(mkdir(logs, 0755), 0);
	path_join(sub, logs, "sub");
	assert_int_equal(mkdir(sub, 0755), 0);
	write_file(readme, logs, "README.txt",
		   "Audit logs of the prod cluster, copied on 2024-04-05.\nAsk #sre.\n");
	write_file(path, logs, "a.log", LEASE("w1", DONE, "") "\n");
	path_join(path, logs, "blob.bin");
	write_bytes(path, binary, sizeof binary - 1, "wb");
	write_file(path, sub, "b.log", LEASE("w2", DONE, "") "\n");
	st = open_store(dir);

	assert_int_equal(ingest(st, logs, 0, &s, &t, &err), 0);
	assert_int_equal(s.nfiles, 4); /* in name order */
	assert_string_equal(s.files[0].path, readme);
	assert_int_equal(s.files[0].rep.status, LT_FILE_NOT_LOG);
	assert_non_null(strstr(s.files[0].detail, "not a log"));
	assert_int_equal(s.files[0].rep.source_id, 0);
	path_join(want, logs, "a.log");
	assert_string_equal(s.files[1].path, want);
	assert_int_equal(s.files[1].rep.status, LT_FILE_INGESTED);
	path_join(want, logs, "blob.bin");
	assert_string_equal(s.files[2].path, want);
	assert_int_equal(s.files[2].rep.status, LT_FILE_NOT_LOG);
	assert_non_null(strstr(s.files[2].detail, "binary"));
	path_join(want, sub, "b.log");
	assert_string_equal(s.files[3].path, want);
	assert_int_equal(s.files[3].rep.status, LT_FILE_INGESTED);
	assert_int_equal(t.files, 4);
	assert_int_equal(t.files_not_log, 2);
	assert_int_equal(t.stored, 2);
	expect_rows(st, "SELECT count(*) FROM sources", NULL, "2\n");
	expect_rows(st, "SELECT audit_id FROM events ORDER BY id", NULL, "w1\nw2\n");

	/* named on its own, a file that is not a log is an error that names it */
	assert_int_equal(ingest(st, readme, 0, &s, &t, &err), LT_ERR_FORMAT);
	assert_int_equal(s.nfiles, 1);
	assert_int_equal(s.files[0].rep.status, LT_FILE_NOT_LOG);
	assert_non_null(strstr(err.msg, readme));
	expect_rows(st, "SELECT count(*) FROM sources", NULL, "2\n");

	/* a directory named with a trailing slash: the same paths, and nothing new */
	lt_buf_init(&slash);
	lt_buf_printf(&slash, "%s/", logs);
	assert_int_equal(ingest(st, slash.ptr, 0, &s, &t, &err), 0);
	lt_buf_release(&slash);
	assert_int_equal(s.nfiles, 4);
	path_join(want, logs, "a.log");
	assert_string_equal(s.files[1].path, want);
	assert_int_equal(s.files[1].rep.status, LT_FILE_DUPLICATE);
	path_join(want, sub, "b.log");
	assert_string_equal(s.files[3].path, want);
	assert_int_equal(s.files[3].rep.status, LT_FILE_DUPLICATE);
	expect_rows(st, "SELECT count(*) FROM audit", NULL, "2\n");
	close_store(st);
}

/* A path that cannot be read is LT_ERR_IO naming it; the store goes on working. */
static void test_bad_paths(void **state)
{
	char dir[PATH_SIZE], missing[PATH_SIZE], log[PATH_SIZE], locked[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct lt_error err;
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "bad-paths");
	path_join(missing, dir, "no-such-audit.log");
	write_file(log, dir, "audit.log", LEASE("b1", DONE, "") "\n");
	st = open_store(dir);
	assert_int_equal(ingest(st, missing, 0, &s, &t, &err), LT_ERR_IO);
	assert_int_equal(err.code, LT_ERR_IO);
	assert_non_null(strstr(err.msg, missing));
	assert_int_equal(t.files_failed, 1);
	assert_int_equal(t.stored, 0);

	expect_counts(ingest_ok(st, log, &s, &t), 1, 1, 0, 0, 0);
	assert_int_equal(t.stored, 1);

	/* root reads anything, so an unreadable file can only be made for others */
	if (geteuid() != 0) {
		write_file(locked, dir, "locked.log", LEASE("b2", DONE, "") "\n");
		assert_int_equal(chmod(locked, 0), 0);
		assert_int_equal(ingest(st, locked, 0, &s, &t, &err), LT_ERR_IO);
		assert_non_null(strstr(err.msg, locked));
		assert_int_equal(s.nfiles, 1);
		assert_int_equal(s.files[0].rep.status, LT_FILE_FAILED);
		chmod(locked, 0644);
	}
	expect_rows(st, "SELECT audit_id FROM events", NULL, "b1\n");
	close_store(st);
}

/* lt_store_open(path, flags) must fail with want; the message is left in *err. */
static void open_fails(const char *path, int flags, int want, struct lt_error *err)
{
	struct lt_store *st = NULL;
	int rc;

	memset(err, 0, sizeof *err);
	rc = lt_store_open(&st, path, flags, err);
	if (st != NULL)
		hold_store(st);
	assert_int_equal(rc, want);
	assert_null(st);
	assert_int_equal(err->code, want);
}

/*
 * What a store of schema 7 held of its lines: every message as text, no msg_at, msg_len
 * (the first statements of each downgrade; the logs view, which reads them, dropped).
 */
/*
 * Schema 12 back to 11: lines a table again, every column in its row (the rare ones from
 * lines_more), its indexes on it; the logs view, which reads it, dropped.  The rename runs
 * with legacy_alter_table, as the lines_raw view names lines, which is then missing.
 */
#define TO11_LINES                                                                                 \
	"DROP VIEW IF EXISTS logs",                                                                \
	    ("CREATE TABLE lines11(id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL,"            \
	     " line INTEGER NOT NULL, offset INTEGER NOT NULL, lkey INTEGER, ts_us INTEGER NOT "   \
	     "NULL,"                                                                               \
	     " klog_us INTEGER, basis INTEGER NOT NULL DEFAULT 0, host_id INTEGER, node_id "       \
	     "INTEGER,"                                                                            \
	     " component_id INTEGER, ident_id INTEGER, pid INTEGER, severity TEXT,"                \
	     " location_id INTEGER, kind_id INTEGER, subject_id INTEGER, obj_kind_id INTEGER,"     \
	     " obj_namespace_id INTEGER, obj_uid TEXT, not_found INTEGER NOT NULL DEFAULT 0,"      \
	     " message TEXT, fields TEXT, ext_id TEXT, stream_id INTEGER,"                         \
	     " cluster_id INTEGER NOT NULL DEFAULT 0, klog_d INTEGER, msg_at INTEGER,"             \
	     " msg_len INTEGER)"),                                                                 \
	    "INSERT INTO lines11 SELECT * FROM lines ORDER BY id", "DROP VIEW lines",              \
	    "DROP TABLE lines_more", "DROP TABLE lines_row", "PRAGMA legacy_alter_table = ON",     \
	    "ALTER TABLE lines11 RENAME TO lines", "PRAGMA legacy_alter_table = OFF",              \
	    "CREATE INDEX lines_node ON lines(node_id, ts_us)",                                    \
	    ("CREATE INDEX lines_subject ON lines(subject_id, ts_us)"                              \
	     " WHERE subject_id IS NOT NULL"),                                                     \
	    "CREATE INDEX lines_kind ON lines(kind_id, ts_us) WHERE kind_id IS NOT NULL",          \
	    "CREATE INDEX lines_notable ON lines(node_id, ts_us) WHERE " LT_LINE_NOTABLE

/* Schema 10 back to 9: every line's fields as text, no mark (index-fields.c). */
#define TO9_FIELDS                                                                                 \
	TO11_LINES, ("UPDATE lines SET fields = " LT_LINE_FIELDS_SQL("lines") " WHERE fields = "   \
									      "X''")

/*
 * Schema 9 back to 8: the lines' keys in lines.lkey, under the unique index lines_key (any
 * unique values: schema 11 reads no key, and its upgrade drops the index).
 */
#define TO8_KEYS                                                                                   \
	TO9_FIELDS, "UPDATE lines SET lkey = id", "CREATE UNIQUE INDEX lines_key ON lines(lkey)"

#define TO7_LINES                                                                                  \
	TO8_KEYS,                                                                                  \
	    ("UPDATE lines SET message = " LT_LINE_MESSAGE_SQL(                                    \
		"lines") ", msg_at = NULL, msg_len = NULL WHERE msg_at IS NOT NULL"),              \
	    "DROP VIEW IF EXISTS logs", "ALTER TABLE lines DROP COLUMN msg_at",                    \
	    "ALTER TABLE lines DROP COLUMN msg_len"

/*
 * What a store of schema 8 held of its raw records: a row a record in audit_raw and lines_raw
 * (here the text, as schema 8 kept a record compression would not shrink), no blocks (run
 * after TO7_LINES, which reads the raw lines through the blocks; the logs view dropped).
 */
#define TO8_RAW                                                                                    \
	"DROP VIEW IF EXISTS logs",                                                                \
	    "CREATE TABLE audit_raw8(id INTEGER PRIMARY KEY, json TEXT NOT NULL)",                 \
	    "INSERT INTO audit_raw8 SELECT id, lt_raw(json) FROM audit_raw",                       \
	    "CREATE TABLE lines_raw8(id INTEGER PRIMARY KEY, text TEXT NOT NULL)",                 \
	    "INSERT INTO lines_raw8 SELECT id, lt_raw(text) FROM lines_raw",                       \
	    "DROP VIEW audit_raw", "DROP VIEW lines_raw", "DROP TABLE audit_raw_rows",             \
	    "DROP TABLE lines_raw_rows", "DROP TABLE audit_blocks", "DROP TABLE lines_blocks",     \
	    "ALTER TABLE audit_raw8 RENAME TO audit_raw",                                          \
	    "ALTER TABLE lines_raw8 RENAME TO lines_raw"

/*
 * What a store of schema 8 held of the requests it counted: their auditIDs, packed or text,
 * not their hashes (schema 9).  AS_STORED, an SQL expression of audit_hash, gives each
 * hash's auditID back ("NULL" where the test counted none).  And of its events: the time
 * each request was received, not its latency (the events view, which reads it, dropped).
 */
#define TO8_AUDIT(AS_STORED)                                                                       \
	("CREATE TABLE counted_8(received_s INTEGER NOT NULL, audit_id TEXT NOT NULL,"             \
	 " PRIMARY KEY(received_s, audit_id)) WITHOUT ROWID"),                                     \
	    ("INSERT INTO counted_8 SELECT received_s, " AS_STORED " FROM counted_requests"),      \
	    "DROP TABLE counted_requests", "ALTER TABLE counted_8 RENAME TO counted_requests",     \
	    "DROP VIEW IF EXISTS events",                                                          \
	    "UPDATE audit SET received_us = stage_us - latency_us, latency_us = NULL",             \
	    "ALTER TABLE audit DROP COLUMN latency_us"

/*
 * Takes the store st (of dir) back to an older schema with the statements sql (n of them, run
 * on its own connection, where lt_raw() is), closes it, checks that a read-only open refuses
 * it naming older ("schema 5"), and returns it opened for writing: upgraded.
 */
static struct lt_store *reopen_downgraded(struct lt_store *st, const char *dir,
					  const char *const *sql, size_t n, const char *older)
{
	char db[PATH_SIZE], want[64];
	struct lt_error err = {0};

	for (size_t i = 0; i < n; i++)
		free(q_rows(st, sql[i], NULL));
	close_store(st);
	path_join(db, dir, "store.db");
	open_fails(db, LT_STORE_READONLY, LT_ERR_DB, &err);
	snprintf(want, sizeof want, "%s, older than this leasetrail's 13", older);
	if (strstr(err.msg, want) == NULL)
		fail_msg("want '%s' in '%s'", want, err.msg);
	assert_non_null(strstr(err.msg, "leasetrail rebuild --db"));
	return open_store(dir);
}

/* Files that are not our store are refused with a clear message and left as they were. */
static void test_open_refuses_foreign(void **state)
{
	char dir[PATH_SIZE], text[PATH_SIZE], foreign[PATH_SIZE], missing[PATH_SIZE];
	char *before, *after;
	size_t before_len, after_len;
	struct lt_error err;
	sqlite3 *db;
	struct stat sb;
	struct lt_buf notes;
	int same, mode_before, mode_after;

	(void)state;
	case_dir(dir, "open");
	lt_buf_init(&notes);
	for (int i = 0; i < 100; i++)
		lt_buf_printf(&notes, "note %d: this is a text file, not a database\n", i);
	write_file(text, dir, "notes.txt", notes.ptr);
	for (int flags = 0; flags <= LT_STORE_READONLY; flags += LT_STORE_READONLY) {
		open_fails(text, flags, LT_ERR_DB, &err);
		assert_non_null(strstr(err.msg, "not a leasetrail store"));
		assert_non_null(strstr(err.msg, text));
	}
	after = slurp(text, &after_len);
	same = after_len == notes.len && memcmp(after, notes.ptr, notes.len) == 0;
	free(after);
	lt_buf_release(&notes);
	assert_true(same);

	path_join(foreign, dir, "browser-history.sqlite");
	assert_int_equal(sqlite3_open(foreign, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "CREATE TABLE visits(id INTEGER PRIMARY KEY, url TEXT);"
				      "INSERT INTO visits(url) VALUES('https://example.com/');",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	before = slurp(foreign, &before_len);
	for (int flags = LT_STORE_READONLY; flags >= 0; flags -= LT_STORE_READONLY) {
		open_fails(foreign, flags, LT_ERR_DB, &err);
		assert_non_null(strstr(err.msg, "not a leasetrail store"));
		assert_non_null(strstr(err.msg, foreign));
	}
	/* refusing a file must leave it as it was: no schema, no switch to WAL mode */
	after = slurp(foreign, &after_len);
	same = after_len == before_len && memcmp(after, before, before_len) == 0;
	mode_before = before_len > 19 ? before[18] * 10 + before[19] : -1;
	mode_after = after_len > 19 ? after[18] * 10 + after[19] : -1;
	free(before);
	free(after);
	if (!same)
		fail_msg("refusing %s changed it (header read/write versions %d -> %d; 22 = WAL)",
			 foreign, mode_before, mode_after);

	path_join(missing, dir, "missing.db");
	open_fails(missing, LT_STORE_READONLY, LT_ERR_NOTFOUND, &err);
	assert_non_null(strstr(err.msg, missing));
	assert_int_not_equal(stat(missing, &sb), 0); /* not created */
}

/* A read-only store reads, and refuses every write. */
static void test_readonly_store(void **state)
{
	char dir[PATH_SIZE], log[PATH_SIZE], db[PATH_SIZE], other[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct lt_error err = {0};
	struct lt_stmt *q;
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "readonly");
	write_file(log, dir, "audit.log", LEASE("ro1", DONE, "") "\n");
	write_file(other, dir, "other.log", LEASE("ro2", DONE, "") "\n");
	st = open_store(dir);
	ingest_ok(st, log, &s, &t);
	close_store(st);

	path_join(db, dir, "store.db");
	assert_int_equal(lt_store_open(&st, db, LT_STORE_READONLY, &err), 0);
	hold_store(st);
	assert_string_equal(lt_store_path(st), db);
	expect_rows(st, "SELECT audit_id FROM events", NULL, "ro1\n");

	assert_int_equal(lt_store_prepare(st, &q, "SELECT count(*) FROM audit", &err), 0);
	assert_true(lt_stmt_readonly(q));
	lt_stmt_free(q);
	assert_int_equal(lt_store_prepare(st, &q, "INSERT INTO meta VALUES('k', 'v')", &err), 0);
	assert_false(lt_stmt_readonly(q));
	assert_int_equal(lt_stmt_step(q, &err), LT_ERR_DB);
	lt_stmt_free(q);

	memset(&t, 0, sizeof t);
	assert_int_equal(ingest(st, other, 0, &s, &t, &err), LT_ERR_DB);
	assert_int_equal(t.stored, 0);
	expect_rows(st,
		    "SELECT (SELECT count(*) FROM audit), (SELECT count(*) FROM sources),"
		    " (SELECT count(*) FROM meta WHERE key = 'k')",
		    NULL, "1|1|0\n");
	close_store(st);
}

/* What lt_store_ingest_end runs beside its last index builds: a reader of its own. */
struct beside {
	const char *db;
	int rc;
	char msg[512];
	int early, during; /* the order each job ran in: 1, 2 (0: not run) */
};

/* The early job: it runs first, and reads the table, not an index. */
static void beside_early(void *ctx)
{
	struct beside *b = ctx;
	struct lt_error err = {0};
	struct lt_store *rd = NULL;
	struct lt_stmt *q;

	b->early = b->during + 1;
	if (lt_store_open(&rd, b->db, LT_STORE_READONLY, &err) == 0 &&
	    lt_store_prepare(rd, &q, "SELECT count(*) FROM audit", &err) == 0) {
		if (lt_stmt_step(q, &err) != 1 || lt_stmt_int(q, 0) != 1)
			b->early = -1;
		lt_stmt_free(q);
	} else {
		b->early = -1;
	}
	lt_store_free(rd);
}

static void beside_read(void *ctx)
{
	/* the lease lifecycle's compute names both audit indexes (queries-lease-feed.c) */
	static const char *const sql[] = {
	    "SELECT count(*) FROM audit INDEXED BY audit_rtv WHERE resource_id = ?1",
	    "SELECT count(*) FROM audit INDEXED BY audit_object WHERE resource_id = ?1",
	};
	struct beside *b = ctx;
	struct lt_error err = {0};
	struct lt_store *rd = NULL;
	struct lt_stmt *q;

	b->during = b->early + 1;
	b->rc = lt_store_open(&rd, b->db, LT_STORE_READONLY, &err);
	for (size_t i = 0; b->rc == 0 && i < sizeof sql / sizeof *sql; i++) {
		b->rc = lt_store_prepare(rd, &q, sql[i], &err);
		lt_stmt_free(q);
	}
	if (b->rc != 0)
		snprintf(b->msg, sizeof b->msg, "%s", err.msg);
	lt_store_free(rd);
}

/*
 * After a bulk load, what runs beside the index builds: the early job first, reading the
 * loaded rows; then the during job, which finds both audit indexes built.
 */
static void test_ingest_end_beside(void **state)
{
	char dir[PATH_SIZE], log[PATH_SIZE], db[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct lt_error err = {0};
	struct beside b = {.db = db, .rc = -1};
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "beside");
	write_file(log, dir, "audit.log", LEASE("bs1", DONE, "") "\n");
	path_join(db, dir, "store.db");
	st = open_store(dir);
	assert_int_equal(lt_store_ingest_begin(st, &err), 0);
	assert_true(lt_store_bulk_loading(st));
	ingest_ok(st, log, &s, &t);
	assert_int_equal(
	    lt_store_ingest_end(
		st,
		&(struct lt_ingest_beside){.early = beside_early, .during = beside_read, .ctx = &b},
		&err),
	    0);
	if (b.rc != 0)
		fail_msg("beside the index builds: %d %s", b.rc, b.msg);
	assert_int_equal(b.early, 1); /* first, and it read the loaded event */
	assert_int_equal(b.during, 2);
	assert_false(lt_store_bulk_loading(st));
	close_store(st);
}

/* A store of another schema version is refused, naming both versions, and left as it was. */
static void test_schema_versions(void **state)
{
	static const struct {
		const char *version, *says;
	} cases[] = {{"3", "schema 3, made by an older leasetrail"},
		     {"14", "schema 14, made by a newer leasetrail"}};
	char dir[PATH_SIZE], db[PATH_SIZE], sql[96];
	struct lt_error err = {0};
	sqlite3 *raw;

	(void)state;
	case_dir(dir, "schema-versions");
	close_store(open_store(dir));
	path_join(db, dir, "store.db");
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t before_len, after_len;
		char *before, *after;

		snprintf(sql, sizeof sql, "UPDATE meta SET value = '%s' WHERE key = 'schema'",
			 cases[i].version);
		assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
		assert_int_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(raw);
		before = slurp(db, &before_len);
		for (int flags = 0; flags <= LT_STORE_READONLY; flags += LT_STORE_READONLY) {
			open_fails(db, flags, LT_ERR_DB, &err);
			assert_non_null(strstr(err.msg, cases[i].says));
			assert_non_null(strstr(err.msg, "this one reads schema 13"));
		}
		after = slurp(db, &after_len);
		assert_true(after_len == before_len && memcmp(before, after, before_len) == 0);
		free(before);
		free(after);
	}
}

/*
 * A schema-4 store (before clusters) is upgraded by a writable open: its rows are of no
 * named cluster, its derived tables are dropped (the lifecycles rebuild them); a read-only
 * open refuses it, saying how to upgrade, and leaves it as it was.
 */
static void test_schema_upgrade(void **state)
{
	static const char *const downgrade[] = {
	    TO8_AUDIT("NULL"),
	    TO7_LINES,
	    TO8_RAW,
	    "DROP TABLE raw_dicts",
	    "DROP VIEW IF EXISTS events",
	    "ALTER TABLE audit DROP COLUMN identity_id",
	    "DROP INDEX audit_names", /* on cluster_id: a schema-4 store had neither */
	    "DROP INDEX audit_verbs",
	    "ALTER TABLE audit DROP COLUMN cluster_id",
	    "ALTER TABLE lines DROP COLUMN cluster_id",
	    "ALTER TABLE sources DROP COLUMN cluster_id",
	    "DROP TABLE clusters",
	    "CREATE TABLE lt_old(x)", /* a derived table of the old rules */
	    "UPDATE meta SET value = '4' WHERE key = 'schema'",
	};
	char dir[PATH_SIZE], log[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct lt_store *st;
	struct seen s;

	(void)state;
	case_dir(dir, "schema-upgrade");
	write_file(log, dir, "audit.log", LEASE("up1", DONE, "") "\n");
	st = open_store(dir);
	ingest_ok(st, log, &s, &t);
	st =
	    reopen_downgraded(st, dir, downgrade, sizeof downgrade / sizeof *downgrade, "schema 4");
	expect_rows(
	    st,
	    "SELECT (SELECT value FROM meta WHERE key = 'schema'),"
	    " (SELECT group_concat(cluster_id) FROM audit),"
	    " (SELECT group_concat(id) FROM clusters),"
	    " (SELECT count(*) FROM sqlite_master WHERE name = 'lt_old'),"
	    " (SELECT count(*) FROM pragma_table_info('audit') WHERE name = 'identity_id'),"
	    " (SELECT count(*) FROM sqlite_master WHERE name IN ('audit_names', 'audit_verbs'))",
	    NULL, "13|0|0|0|1|2\n");
	close_store(st);
}

/* Every record of path (one a line), end to end, as lt_raw reads table's column back. */
static void expect_raw_file(struct lt_store *st, const char *path, const char *table,
			    const char *col)
{
	char sql[160];
	size_t len;
	char *want = slurp(path, &len);

	snprintf(sql, sizeof sql, "SELECT lt_raw(%s) FROM %s ORDER BY id", col, table);
	expect_rows(st, sql, NULL, want);
	free(want);
}

/*
 * Schema 5 to 6: a store of 5 holds its raw records as text; a read-only open refuses it,
 * a writable one upgrades it in place (raw_dicts), its text records read as they were and
 * the records of the next ingest are compressed beside them.
 */
static void test_schema_upgrade_raw(void **state)
{
	static const char *const to5[] = {
	    TO8_AUDIT("NULL"),
	    TO7_LINES,
	    TO8_RAW,
	    "UPDATE audit_raw SET json = lt_raw(json)",
	    "DROP TABLE raw_dicts",
	    ("UPDATE audit SET request_uri = (SELECT s FROM strs WHERE id = request_uri_id),"
	     " obj_uid = (SELECT s FROM strs WHERE id = obj_uid_id)"),
	    "DROP VIEW IF EXISTS events",
	    "ALTER TABLE audit DROP COLUMN identity_id",
	    "ALTER TABLE audit DROP COLUMN request_uri_id",
	    "ALTER TABLE audit DROP COLUMN obj_uid_id",
	    "UPDATE meta SET value = '5' WHERE key = 'schema'",
	};
	char dir[PATH_SIZE], a[PATH_SIZE], b[PATH_SIZE], *want;
	struct lt_ingest_totals t = {0};
	struct lt_store *st;
	struct seen s;
	char *got;

	(void)state;
	case_dir(dir, "schema-upgrade-raw");
	write_file(a, dir, "a.log", EV_META "\n" EV_NODE "\n");
	write_file(b, dir, "b.log", EV_BODY "\n");
	st = open_store(dir);
	ingest_ok(st, a, &s, &t);
	want = q_rows(st, "SELECT id, request_uri, uid FROM events ORDER BY id", NULL);
	/* what schema 5 wrote: text raw records, request URIs and uids as text, no raw_dicts */
	st = reopen_downgraded(st, dir, to5, sizeof to5 / sizeof *to5, "schema 5");
	expect_rows(st,
		    "SELECT (SELECT value FROM meta WHERE key = 'schema'),"
		    " (SELECT count(*) FROM raw_dicts), (SELECT group_concat(typeof(json))"
		    " FROM audit_raw)",
		    NULL, "13|0|text,text\n");
	expect_rows(st, "SELECT id, request_uri, uid FROM events ORDER BY id", NULL, want);
	free(want);
	memset(&s, 0, sizeof s);
	ingest_ok(st, b, &s, &t);
	/* the old rows kept as they were, the new record in a block */
	got = q_rows(st,
		     "SELECT (SELECT group_concat(id) FROM audit_raw_rows),"
		     " (SELECT group_concat(id) FROM audit_blocks)",
		     NULL);
	assert_string_equal(got, "1,2|3\n");
	free(got);
	expect_rows(st, "SELECT lt_raw(json) FROM audit_raw ORDER BY id", NULL,
		    EV_META "\n" EV_NODE "\n" EV_BODY "\n");
	/* the new row's URI and uid interned, the old rows' still text: the view reads both */
	expect_rows(st,
		    "SELECT count(request_uri), count(request_uri_id), count(obj_uid_id)"
		    " FROM audit",
		    NULL, "2|1|1\n");
	close_store(st);
}

/* Record i of test_raw_coded: records 2k and 2k + 1 are the same text. */
static size_t coded_record(char *buf, size_t cap, int i)
{
	int n = snprintf(buf, cap,
			 "{\"kind\":\"Event\",\"auditID\":\"c%05d\",\"stage\":\"ResponseComplete\","
			 "\"user\":{\"username\":\"system:node:n%d\"},\"objectRef\":{\"resource\":"
			 "\"leases\",\"name\":\"n%d\"}}",
			 i / 2, i / 2 % 97, i / 2 % 89);

	assert_true(n > 0 && (size_t)n < cap);
	return (size_t)n;
}

/*
 * A raw table stored in blocks compresses a block whole, on its writer: its share never
 * says settled past the samples a dictionary was once trained on, so the parser's thread
 * codes nothing for it, and every record is read back as it was given.
 */
static void test_raw_coded(void **state)
{
	enum { N = 4800 }; /* past the samples a dictionary was trained on */
	char dir[PATH_SIZE], rec[512];
	struct index_raw_writer w;
	struct index_raw_share sh;
	struct lt_error err = {0};
	struct lt_store *st;
	struct lt_buf want;

	(void)state;
	case_dir(dir, "raw-coded");
	st = open_store(dir);
	lt_buf_init(&want);
	assert_int_equal(index_store_exec(st, "BEGIN", &err), 0);
	index_raw_writer_init(&w, st, INDEX_RAW_AUDIT, 1);
	for (int i = 0; i < N; i++) {
		size_t n = coded_record(rec, sizeof rec, i);

		index_raw_share_of(&sh, &w);
		assert_false(sh.settled);
		assert_int_equal(index_raw_put(&w, i + 1, rec, n, &err), 0);
		lt_buf_printf(&want, "%d|%s\n", i + 1, rec);
	}
	assert_int_equal(index_raw_flush(&w, &err), 0);
	assert_int_equal(index_store_exec(st, "COMMIT", &err), 0);
	index_raw_writer_release(&w);
	expect_rows(
	    st,
	    "WITH RECURSIVE i(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM i WHERE id < 4800)"
	    " SELECT id, lt_raw_of('audit', id) FROM i",
	    NULL, want.ptr);
	lt_buf_release(&want);
	close_store(st);
}

/* Record i of test_raw_blocks: 0 to 3000 random bytes (every 50th empty), any value but NUL. */
static size_t block_record(char *buf, size_t cap, int i, int salt)
{
	size_t n = i % 50 == 0 ? 0 : (size_t)(i * 7919 % 3001);

	uint32_t x = (uint32_t)i * 2654435761u + (uint32_t)salt; /* random: barely compressible */

	assert_true(n <= cap);
	for (size_t k = 0; k < n; k++) {
		x = x * 1664525u + 1013904223u;
		buf[k] = (char)(1 + (x >> 24) % 255);
	}
	return n;
}

/* Record i's id: ascending, with gaps (the ids of other tables' rows, of duplicates). */
static int64_t block_id(int i)
{
	return 5 + 3 * (int64_t)i + (i % 4 == 0);
}

/* 1 when lt_raw_of(table, id) is p (n bytes); p NULL: when it is NULL. */
static int raw_of_is(struct lt_store *st, const char *table, int64_t id, const char *p, size_t n)
{
	sqlite3_stmt *q;
	int same;

	assert_int_equal(sqlite3_prepare_v2(st->db, "SELECT lt_raw_of(?1, ?2)", -1, &q, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, id);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	if (p == NULL)
		same = sqlite3_column_type(q, 0) == SQLITE_NULL;
	else
		same = sqlite3_column_type(q, 0) == SQLITE_TEXT &&
		       (size_t)sqlite3_column_bytes(q, 0) == n &&
		       (n == 0 || memcmp(sqlite3_column_blob(q, 0), p, n) == 0);
	sqlite3_finalize(q);
	return same;
}

/* Stores records from..to - 1 (salt: which bytes) through w, in the open transaction. */
static void put_block_records(struct index_raw_writer *w, int from, int to, int salt)
{
	static char rec[3001];
	struct lt_error err = {0};

	for (int i = from; i < to; i++)
		assert_int_equal(index_raw_put(w, block_id(i), rec,
					       block_record(rec, sizeof rec, i, salt), &err),
				 0);
}

/* Every record from..to - 1 reads back, in order then in reverse; the ids between them not. */
static void expect_block_records(struct lt_store *st, int from, int to, int salt)
{
	static char rec[3001];

	for (int pass = 0; pass < 2; pass++)
		for (int k = from; k < to; k++) {
			int i = pass == 0 ? k : to - 1 - k + from;
			size_t n = block_record(rec, sizeof rec, i, salt);

			if (!raw_of_is(st, "lines", block_id(i), rec, n))
				fail_msg("record %d (id %lld) does not read back", i,
					 (long long)block_id(i));
			assert_true(raw_of_is(st, "lines", block_id(i) + 1, NULL, 0));
			assert_true(raw_of_is(st, "audit", block_id(i), NULL, 0));
		}
}

/*
 * The blocks' compressor (a thread of each block writer): a writer released with a block in
 * flight and one open, its transaction then rolled back, leaves nothing behind (and leaks
 * nothing: the Sanitize build); the same records loaded into two stores make the same blocks
 * byte for byte (a block's size follows the data, never which thread ran first), which read
 * back whole.
 */
static void test_raw_blocks_in_flight(void **state)
{
	enum { N = 200 };
	char dir[2][PATH_SIZE];
	char *blocks[2];
	struct index_raw_writer w;
	struct lt_error err = {0};
	struct lt_store *st;

	(void)state;
	for (int k = 0; k < 2; k++) {
		case_dir(dir[k], k == 0 ? "raw-flight-a" : "raw-flight-b");
		st = open_store(dir[k]);
		if (k == 0) {
			index_raw_writer_init(&w, st, INDEX_RAW_LINES, 1);
			assert_int_equal(index_store_exec(st, "BEGIN", &err), 0);
			put_block_records(&w, 0, N, 0);
			index_raw_writer_release(&w);
			assert_int_equal(index_store_exec(st, "ROLLBACK", &err), 0);
			expect_rows(st, "SELECT count(*) FROM lines_blocks", NULL, "0\n");
		}
		index_raw_writer_init(&w, st, INDEX_RAW_LINES, 1);
		assert_int_equal(index_store_exec(st, "BEGIN", &err), 0);
		put_block_records(&w, 0, N, 0);
		assert_int_equal(index_raw_flush(&w, &err), 0);
		assert_int_equal(index_store_exec(st, "COMMIT", &err), 0);
		index_raw_writer_release(&w);
		expect_block_records(st, 0, N, 0);
		blocks[k] = hold_mem(
		    q_rows(st, "SELECT id, hex(data) FROM lines_blocks ORDER BY id", NULL));
		close_store(st);
	}
	assert_true(strlen(blocks[0]) > 0);
	assert_string_equal(blocks[0], blocks[1]);
	release_mem(blocks[0]);
	release_mem(blocks[1]);
}

/* Words of test_raw_blocks_fit's records: a log's few words in a random order. */
static const char *const fit_words[] = {
    "lease ",	 "renewed ", "node ", "kubelet ",   "status ", "Ready ",   "NotReady ", "update ",
    "10.0.3.7 ", "failed ",  "ok ",   "heartbeat ", "pod ",    "evicted ", "timeout ",	"GET ",
};

/*
 * Record i of test_raw_blocks_fit: 100 to 2500 bytes of a log-like line, which compresses about
 * as logs do; record 777 is 12 000 random bytes, a block of its own over its share.
 */
static size_t fit_record(char *buf, size_t cap, int i)
{
	uint32_t x = (uint32_t)i * 2654435761u + 17;
	size_t want = i == 777 ? 12000 : 100 + (size_t)(i * 7919 % 2400);
	size_t n = (size_t)snprintf(buf, cap, "{\"seq\":%d,\"msg\":\"", i);

	assert_true(want < cap);
	while (n < want) {
		x = x * 1664525u + 1013904223u;
		if (i == 777) {
			buf[n++] = (char)(1 + (x >> 24) % 255);
			continue;
		}
		for (const char *w = fit_words[(x >> 24) % 16]; *w != '\0' && n < want; w++)
			buf[n++] = *w;
	}
	return n;
}

/* Loads records from..to - 1 of fit_record through w in a transaction of its own. */
static void put_fit_records(struct lt_store *st, struct index_raw_writer *w, int from, int to)
{
	static char rec[13000];
	struct lt_error err = {0};

	assert_int_equal(index_store_exec(st, "BEGIN", &err), 0);
	for (int i = from; i < to; i++)
		assert_int_equal(
		    index_raw_put(w, block_id(i), rec, fit_record(rec, sizeof rec, i), &err), 0);
	assert_int_equal(index_raw_flush(w, &err), 0);
	assert_int_equal(index_store_exec(st, "COMMIT", &err), 0);
}

/* The bytes a block keyed id may take to be a quarter of a 16 KiB page, worked out by hand. */
static size_t fit_share(int64_t id)
{
	size_t rowid = id < 128 ? 1 : id < 16384 ? 2 : 3; /* its varint */

	/* the page's 8-byte header; a cell's pointer, payload varint, record header and rowid */
	return (16384 - 8) / 4 - (2 + 2 + 4 + rowid);
}

/*
 * Blocks cut to fit their page: log-like records in two commits make blocks of which any four in
 * a row fit a 16 KiB page (each at most a quarter page and what the three before it left of
 * theirs; but the writer's first, uncut, and the record over its share alone, after which the
 * next blocks start from their shares) and fill it, 95 % or more on average, so the leaf pages of
 * audit_blocks hold four cells each (dbstat: but the pages of those blocks and of the commits'
 * last ones); the records cut off a block go into the next, every record reads back; and the
 * same records make the same bytes with the compressor on a thread of its own and without, and
 * in every run.
 */
static void test_raw_blocks_fit(void **state)
{
	enum { N = 9000, CUT = 5000 };
	char dir[2][PATH_SIZE], *blocks[2], rec[13000];
	struct index_raw_writer w;
	struct lt_store *st;

	(void)state;
	for (int k = 0; k < 2; k++) {
		sqlite3_stmt *q;
		size_t cut = 0, bytes = 0, shares = 0, over = 0;
		long took[3] = {0}; /* the last three blocks' bytes over their shares (or under) */

		case_dir(dir[k], k == 0 ? "raw-fit-thread" : "raw-fit-alone");
		st = open_store(dir[k]);
		index_raw_set_threads(k == 0);
		index_raw_writer_init(&w, st, INDEX_RAW_AUDIT, 1);
		put_fit_records(st, &w, 0, CUT);
		put_fit_records(st, &w, CUT, N);
		index_raw_writer_release(&w);
		index_raw_set_threads(1);
		assert_int_equal(
		    sqlite3_prepare_v2(st->db,
				       "SELECT id, length(data), id = (SELECT min(id) FROM"
				       " audit_blocks) OR lead(id) OVER (ORDER BY id) IN"
				       " (?1, ?2) OR lead(id) OVER (ORDER BY id) IS NULL"
				       " FROM audit_blocks ORDER BY id",
				       -1, &q, NULL),
		    SQLITE_OK);
		sqlite3_bind_int64(q, 1, block_id(CUT));
		sqlite3_bind_int64(q, 2, block_id(777 + 1));
		while (sqlite3_step(q) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(q, 0);
			size_t len = (size_t)sqlite3_column_int64(q, 1);

			long e = (long)len - (long)fit_share(id);

			if (id == block_id(777) || id == block_id(0)) {
				over += id == block_id(777);
				assert_true(id != block_id(777) || len > fit_share(id));
				memset(took, 0, sizeof took); /* the next start from their shares */
				continue;
			}
			if (e + took[0] + took[1] + took[2] > 0)
				fail_msg("block %lld: %zu bytes, over its share %zu and what the"
					 " three before it left (%ld)",
					 (long long)id, len, fit_share(id),
					 -(took[0] + took[1] + took[2]));
			took[2] = took[1];
			took[1] = took[0];
			took[0] = e;
			if (sqlite3_column_int(q, 2))
				continue; /* not cut: a commit's last, the one before 777 */
			cut++;
			bytes += len;
			shares += fit_share(id);
		}
		sqlite3_finalize(q);
		assert_int_equal(over, 1);
		assert_true(cut > 20);
		/* a record compresses to ~6 % of a share here: cut at a record, ~3 % is left */
		if (bytes * 100 < shares * 95)
			fail_msg("the cut blocks fill %zu of their shares' %zu bytes", bytes,
				 shares);
		/* the leaves: four cells each but the few around the blocks not cut */
		expect_rows(st,
			    "SELECT count(*) FILTER (WHERE ncell < 4) <= 5, count(*) FILTER"
			    " (WHERE ncell > 4) FROM dbstat WHERE name = 'audit_blocks' AND"
			    " pagetype = 'leaf'",
			    NULL, "1|0\n");
		for (int i = 0; i < N; i += i < 900 ? 1 : 7) {
			size_t n = fit_record(rec, sizeof rec, i);

			if (!raw_of_is(st, "audit", block_id(i), rec, n))
				fail_msg("record %d does not read back", i);
		}
		blocks[k] = hold_mem(
		    q_rows(st, "SELECT id, hex(data) FROM audit_blocks ORDER BY id", NULL));
		close_store(st);
	}
	assert_string_equal(blocks[0], blocks[1]);
	release_mem(blocks[0]);
	release_mem(blocks[1]);
}

/*
 * The block writer and lt_raw_of: records of 0 to 3000 bytes (every byte value but NUL),
 * ids with gaps, many blocks, one cut by a commit; each record reads back byte for byte at
 * every position of its block, the ids of no record (gaps, before the first, after the last)
 * read NULL; a rolled-back block is forgotten (the same ids then hold other records); a
 * damaged block is an error, not a crash.
 */
static void test_raw_blocks(void **state)
{
	enum { N = 300, CUT = 77 };
	char dir[PATH_SIZE];
	struct index_raw_writer w;
	struct lt_error err = {0};
	struct lt_store *st;
	char *got;

	(void)state;
	case_dir(dir, "raw-blocks");
	st = open_store(dir);
	index_raw_writer_init(&w, st, INDEX_RAW_LINES, 1);
	assert_int_equal(index_store_exec(st, "BEGIN", &err), 0);
	put_block_records(&w, 0, CUT, 0);
	/* the batch commits: its open block is written with it */
	assert_int_equal(index_raw_flush(&w, &err), 0);
	assert_int_equal(index_store_exec(st, "COMMIT; BEGIN", &err), 0);
	put_block_records(&w, CUT, N, 0);
	assert_int_equal(index_raw_flush(&w, &err), 0);
	assert_int_equal(index_store_exec(st, "COMMIT", &err), 0);
	/* the first id of a block after the cut is record CUT's */
	got = q_rows(st, "SELECT count(*) > 20, sum(id = 5 + 3 * 77), min(id) FROM lines_blocks",
		     NULL);
	assert_string_equal(got, "1|1|6\n");
	free(got);
	expect_block_records(st, 0, N, 0);
	assert_true(raw_of_is(st, "lines", 0, NULL, 0));
	assert_true(raw_of_is(st, "lines", block_id(N) + 5, NULL, 0));
	/* a block rolled back, read before it went: its ids come back with other records */
	assert_int_equal(index_store_exec(st, "BEGIN", &err), 0);
	put_block_records(&w, N, N + 40, 0);
	assert_int_equal(index_raw_flush(&w, &err), 0);
	expect_block_records(st, N, N + 40, 0);
	assert_int_equal(index_store_exec(st, "ROLLBACK", &err), 0);
	assert_true(raw_of_is(st, "lines", block_id(N + 1), NULL, 0));
	assert_int_equal(index_store_exec(st, "BEGIN", &err), 0);
	put_block_records(&w, N, N + 40, 1);
	assert_int_equal(index_raw_flush(&w, &err), 0);
	assert_int_equal(index_store_exec(st, "COMMIT", &err), 0);
	expect_block_records(st, N - 5, N, 0);
	expect_block_records(st, N, N + 40, 1);
	index_raw_writer_release(&w);
	/* a damaged block (cut short, its frame cut) is an error */
	assert_int_equal(index_store_exec(st,
					  "UPDATE lines_blocks SET data = substr(data, 1, 40)"
					  " WHERE id = (SELECT max(id) FROM lines_blocks)",
					  &err),
			 0);
	close_store(st);
	st = open_store(dir);
	got = q_rows(st, "SELECT max(id) FROM lines_blocks", NULL);
	{
		sqlite3_stmt *q;

		assert_int_equal(
		    sqlite3_prepare_v2(st->db, "SELECT lt_raw_of('lines', ?1)", -1, &q, NULL),
		    SQLITE_OK);
		sqlite3_bind_int64(q, 1, strtoll(got, NULL, 10));
		assert_int_equal(sqlite3_step(q), SQLITE_ERROR);
		assert_non_null(strstr(sqlite3_errmsg(st->db), "damaged block"));
		sqlite3_finalize(q);
	}
	free(got);
	close_store(st);
}

/*
 * Many records: the raw records are stored in compressed blocks, lines.fields gets a
 * dictionary trained on its first values, and lt_raw and show give each back byte for byte.
 */
static void test_raw_compressed(void **state)
{
	enum { N = 6000 };
	char dir[PATH_SIZE], audit[PATH_SIZE], klog[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct lt_event_origin o;
	struct lt_error err = {0};
	struct lt_buf b;
	struct seen s;
	struct lt_store *st;
	char *got;

	(void)state;
	case_dir(dir, "raw-compressed");
	lt_buf_init(&b);
	for (int i = 0; i < N; i++)
		lt_buf_printf(&b,
			      "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":"
			      "\"Metadata\",\"auditID\":\"r%05d\",\"stage\":\"ResponseComplete\","
			      "\"verb\":\"update\",\"user\":{\"username\":\"system:node:n%d\"},"
			      "\"objectRef\":{\"resource\":\"leases\",\"namespace\":"
			      "\"kube-node-lease\",\"name\":\"n%d\"},\"responseStatus\":{\"code\":"
			      "200},\"stageTimestamp\":\"2024-04-05T06:%02d:%02d.%06dZ\"}\n",
			      i, i % 97, i % 97, i / 600, i / 10 % 60, i * 7919 % 1000000);
	path_join(audit, dir, "audit.log");
	write_bytes(audit, b.ptr, b.len, "wb");
	lt_buf_truncate(&b, 0);
	for (int i = 0; i < N; i++)
		lt_buf_printf(
		    &b,
		    "I0405 06:%02d:%02d.%06d    2345 kubelet_node_status.go:%d] \"Updating"
		    " \\\"node\\\" status\" node=\"n%d\" attempt=%d\n",
		    i / 600, i / 10 % 60, i * 7919 % 1000000, 400 + i % 50, i % 97, i);
	path_join(klog, dir, "kubelet.log");
	write_bytes(klog, b.ptr, b.len, "wb");
	lt_buf_release(&b);
	st = open_store(dir);
	expect_counts(ingest_ok(st, audit, &s, &t), N, N, 0, 0, 0);
	memset(&s, 0, sizeof s);
	expect_counts(ingest_ok(st, klog, &s, &t), N, N, 0, 0, 0);
	/* the raw records in blocks of a few dozen KB each, a fifth of their size or less */
	got =
	    q_rows(st,
		   "SELECT (SELECT group_concat(tbl) FROM raw_dicts),"
		   " (SELECT count(*) BETWEEN 5 AND 100 FROM audit_blocks),"
		   " (SELECT count(*) BETWEEN 5 AND 100 FROM lines_blocks),"
		   " (SELECT count(*) FROM audit_raw_rows) + (SELECT count(*) FROM lines_raw_rows),"
		   " (SELECT sum(length(data)) FROM audit_blocks) * 5"
		   "  < (SELECT sum(length(json)) FROM audit_raw),"
		   " (SELECT sum(length(data)) FROM lines_blocks) * 5"
		   "  < (SELECT sum(length(text)) FROM lines_raw)",
		   NULL);
	assert_string_equal(got, "lines.fields|1|1|0|1|1\n");
	free(got);
	/* fields: text for the values trained on, compressed after; the logs view reads both
	 * (the message has escapes, so it is no slice of the line: decoder 1 has no mark to
	 * offer, index-fields.c, and every line's fields take the packer's path) */
	got = q_rows(st,
		     "SELECT (SELECT count(*) FROM lines WHERE typeof(fields) = 'blob'),"
		     " (SELECT count(*) FROM logs WHERE json_extract(fields, '$.node')"
		     "  = 'n' || ((line - 1) % 97))",
		     NULL);
	assert_string_equal(got, "2000|6000\n");
	free(got);
	expect_raw_file(st, audit, "audit_raw", "json");
	expect_raw_file(st, klog, "lines_raw", "text");
	lt_buf_init(&o.raw);
	lt_buf_init(&o.file);
	assert_int_equal(lt_store_event_origin(st, N, &o, &err), 0);
	assert_non_null(strstr(o.raw.ptr, "\"auditID\":\"r05999\""));
	assert_int_equal(o.raw.ptr[o.raw.len - 1], '}');
	lt_buf_release(&o.raw);
	lt_buf_release(&o.file);
	close_store(st);
}

/*
 * A schema-5 store (before identities) is upgraded by a writable open: the column is
 * added, its rows keep no identity (an impersonation still shows), its derived tables
 * stay; events ingested since carry theirs.  A read-only open refuses it first.
 */
static void test_schema_upgrade_identity(void **state)
{
	static const char *const downgrade[] = {
	    TO8_AUDIT("NULL"),
	    TO7_LINES,
	    TO8_RAW,
	    "DROP VIEW IF EXISTS events",
	    "ALTER TABLE audit DROP COLUMN identity_id",
	    "CREATE TABLE lt_kept(x)", /* a derived table: still right, kept */
	    "UPDATE meta SET value = '5' WHERE key = 'schema'",
	};
	char dir[PATH_SIZE], log[PATH_SIZE], log2[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct lt_store *st;
	struct seen s;

	(void)state;
	case_dir(dir, "schema-upgrade-identity");
	write_file(log, dir, "audit.log",
		   LEASE("id1", DONE,
			 ",\"user\":{\"username\":\"a\",\"extra\":{\"oid\":[\"o1\"]}},"
			 "\"impersonatedUser\":{\"username\":\"b\"}") "\n");
	write_file(
	    log2, dir, "audit2.log",
	    LEASE("id2", DONE, ",\"user\":{\"username\":\"a\",\"extra\":{\"oid\":[\"o2\"]}}") "\n");
	st = open_store(dir);
	ingest_ok(st, log, &s, &t);
	st =
	    reopen_downgraded(st, dir, downgrade, sizeof downgrade / sizeof *downgrade, "schema 5");
	ingest_ok(st, log2, &s, &t);
	expect_rows(st,
		    "SELECT (SELECT value FROM meta WHERE key = 'schema'),"
		    " (SELECT group_concat(audit_id || '=' || coalesce(identity, '-'), ' ')"
		    "  FROM (SELECT * FROM events ORDER BY id)),"
		    " (SELECT count(*) FROM sqlite_master WHERE name = 'lt_kept')",
		    NULL, "13|id1=as b id2=oid=o2|1\n");
	close_store(st);
}

/* A packed auditID spelled back as text, in plain SQL (what a schema-6 store held). */
#define UNPACK_ID(col)                                                                             \
	"lower(substr(hex(" col "), 1, 8) || '-' || substr(hex(" col "), 9, 4) || '-' ||"          \
	" substr(hex(" col "), 13, 4) || '-' || substr(hex(" col "), 17, 4) || '-' ||"             \
	" substr(hex(" col "), 21))"

#define UUID_P1 "0b5a3c2e-77aa-4e1f-9d10-aabbccddeeff"

/* A kubelet line whose klog header is 3 s behind its own time; tag makes it another line. */
#define SKEWED(tag)                                                                                \
	"2024-04-05T05:50:33.938270+00:00 n1 kubelet[1]: E0405 05:50:30.000001 1 a.go:1] \"" tag   \
	"\"\n"

/*
 * Schema 6 to 7: a store of 6 holds auditIDs as text and klog times in klog_us.  A read-only
 * open refuses it; a writable one packs its UUIDs (audit, then counted_requests, whose rows
 * the step to 9 hashes: test_schema_upgrade_9_counted) and leaves other auditIDs text, the events
 * view shows them as before, and a request read again after the upgrade (a stored event, a counted
 * one) is found: a duplicate, counted once.  Its lines keep klog_us, the new ones store klog_d, the
 * logs view reads both, and a line read again is a duplicate.  lt_audit_id_pack packs only the
 * canonical lowercase form.
 */
static void test_schema_upgrade_7(void **state)
{
	static const char *const to6[] = {
	    TO8_AUDIT("CASE audit_hash WHEN lt_audit_id_hash('" UUID_P1 "') THEN"
		      " lt_audit_id_pack('" UUID_P1 "') ELSE 'Not-A-UUID-o9' END"),
	    TO7_LINES,
	    TO8_RAW,
	    ("UPDATE audit SET audit_id = " UNPACK_ID(
		"audit_id") " WHERE typeof(audit_id) = 'blob'"),
	    ("UPDATE counted_requests SET audit_id = " UNPACK_ID(
		"audit_id") " WHERE typeof(audit_id) = 'blob'"),
	    "UPDATE lines SET klog_us = ts_us + klog_d, klog_d = NULL",
	    "DROP VIEW IF EXISTS events",
	    "ALTER TABLE lines DROP COLUMN klog_d",
	    "UPDATE meta SET value = '6' WHERE key = 'schema'",
	};
	char dir[PATH_SIZE], a[PATH_SIZE], b[PATH_SIZE], k1[PATH_SIZE];
	char k2[PATH_SIZE], *want, *want_lines;
	struct lt_ingest_totals t = {0};
	struct lt_store *st;
	struct seen s;

	(void)state;
	case_dir(dir, "schema-upgrade-7");
	write_file(a, dir, "a.log",
		   EV_META "\n" OTHER(UUID_P1, OBJREF("pods"), "get") "\n" OTHER(
		       "Not-A-UUID-o9", OBJREF("pods"), "list") "\n");
	write_file(b, dir, "b.log",
		   EV_BODY "\n" EV_META "\n" OTHER(UUID_P1, OBJREF("pods"), "get") "\n" OTHER(
		       "Not-A-UUID-o9", OBJREF("pods"), "list") "\n");
	write_file(k1, dir, "k1.log", SKEWED("k"));
	write_file(k2, dir, "k2.log", SKEWED("k") SKEWED("l"));
	st = open_store(dir);
	expect_counts(ingest_ok(st, a, &s, &t), 3, 1, 0, 2, 0);
	memset(&s, 0, sizeof s);
	ingest_ok(st, k1, &s, &t);
	expect_rows(st,
		    "SELECT count(klog_us), klog_d, (SELECT klog_us - ts_us FROM logs) FROM lines",
		    NULL, "0|-3938269|-3938269\n");
	want_lines = q_rows(st, "SELECT id, ts, ts_us, klog_us FROM logs ORDER BY id", NULL);
	expect_rows(st,
		    "SELECT (SELECT group_concat(typeof(audit_id)) FROM audit),"
		    " (SELECT group_concat(typeof(audit_hash)) FROM counted_requests)",
		    NULL, "blob|integer,integer\n");
	want = q_rows(st, "SELECT id, audit_id FROM events ORDER BY id", NULL);
	st = reopen_downgraded(st, dir, to6, sizeof to6 / sizeof *to6, "schema 6");
	expect_rows(st,
		    "SELECT (SELECT value FROM meta WHERE key = 'schema'),"
		    " (SELECT group_concat(typeof(audit_id)) FROM audit),"
		    " (SELECT group_concat(typeof(audit_hash)) FROM counted_requests)",
		    NULL, "13|blob|integer,integer\n");
	expect_rows(st, "SELECT id, audit_id FROM events ORDER BY id", NULL, want);
	free(want);
	expect_rows(st, "SELECT id, ts, ts_us, klog_us FROM logs ORDER BY id", NULL, want_lines);
	free(want_lines);
	memset(&s, 0, sizeof s);
	expect_counts(ingest_ok(st, k2, &s, &t), 2, 1, 1, 0, 0);
	expect_rows(st,
		    "SELECT klog_us IS NULL, klog_d, (SELECT klog_us - ts_us FROM logs AS v"
		    " WHERE v.id = g.id) FROM lines AS g ORDER BY id",
		    NULL, "0|NULL|-3938269\n1|-3938269|-3938269\n");
	memset(&s, 0, sizeof s);
	expect_counts(ingest_ok(st, b, &s, &t), 4, 1, 1, 2, 0);
	expect_rows(st, "SELECT resource, verb, sum(count) FROM resource_counts GROUP BY 1, 2",
		    NULL, "pods|get|1\npods|list|1\n");
	expect_rows(st, "SELECT audit_id FROM events ORDER BY id", NULL,
		    "6f9e0c4a-0001-4d1b-9a55-1e2f3a4b5c01\n6f9e0c4a-0003-4d1b-9a55-1e2f3a4b5c03\n");
	expect_rows(st,
		    "SELECT typeof(lt_audit_id_pack(x)) FROM (SELECT '" UUID_P1 "' AS x"
		    " UNION ALL SELECT upper('" UUID_P1 "') UNION ALL SELECT substr('" UUID_P1
		    "', 2) UNION ALL SELECT replace('" UUID_P1 "', '-', '_')"
		    " UNION ALL SELECT replace('" UUID_P1 "', 'a', 'g') UNION ALL SELECT NULL)",
		    NULL, "blob\ntext\ntext\ntext\ntext\nnull\n");
	close_store(st);
}

/* A kubelet line whose message is quoted with escapes: unescaped, it is no slice of the line. */
#define ESCAPED(tag)                                                                               \
	"2024-04-05T05:50:34.000001+00:00 n1 kubelet[1]: E0405 05:50:34.000001 1 a.go:1] \"say "   \
	"\\\"" tag "\\\"\"\n"

/*
 * Schema 7 to 8: a store of 7 holds every line's message as text.  A new line's message that
 * is a slice of its raw line is stored as where it lies (msg_at, msg_len, message NULL), one
 * that is not (unescaped) as text; the logs view reads both the same.  A writable open of a
 * store of 7 adds the columns and keeps its text; the logs view shows what it showed, and a
 * line read again after the upgrade (its message text in the store, a slice in the line) is
 * a duplicate, while a new one is stored as a slice.
 */
static void test_schema_upgrade_8(void **state)
{
	static const char *const to7[] = {
	    TO8_AUDIT("NULL"),
	    TO7_LINES,
	    TO8_RAW,
	    "UPDATE meta SET value = '7' WHERE key = 'schema'",
	};
	char dir[PATH_SIZE], k1[PATH_SIZE], k2[PATH_SIZE], *want;
	struct lt_ingest_totals t = {0};
	struct lt_store *st;
	struct seen s;

	(void)state;
	case_dir(dir, "schema-upgrade-8");
	write_file(k1, dir, "k1.log", SKEWED("kept") ESCAPED("a"));
	write_file(k2, dir, "k2.log", SKEWED("kept") ESCAPED("a") SKEWED("new") ESCAPED("b"));
	st = open_store(dir);
	expect_counts(ingest_ok(st, k1, &s, &t), 2, 2, 0, 0, 0);
	expect_rows(st,
		    "SELECT message, msg_at, msg_len, (SELECT message FROM logs AS v WHERE v.id ="
		    " g.id) FROM lines AS g ORDER BY id",
		    NULL, "NULL|81|4|kept\nsay \"a\"|NULL|NULL|say \"a\"\n");
	want = q_rows(st, "SELECT * FROM logs ORDER BY id", NULL);
	st = reopen_downgraded(st, dir, to7, sizeof to7 / sizeof *to7, "schema 7");
	expect_rows(st,
		    "SELECT (SELECT value FROM meta WHERE key = 'schema'), (SELECT"
		    " group_concat(coalesce(msg_at, '-') || message, ',') FROM lines)",
		    NULL, "13|-kept,-say \"a\"\n");
	expect_rows(st, "SELECT * FROM logs ORDER BY id", NULL, want);
	free(want);
	memset(&s, 0, sizeof s);
	expect_counts(ingest_ok(st, k2, &s, &t), 4, 2, 2, 0, 0);
	expect_rows(st,
		    "SELECT coalesce(msg_at, '-'), message IS NULL, (SELECT message FROM logs AS v"
		    " WHERE v.id = g.id) FROM lines AS g ORDER BY id",
		    NULL, "-|0|kept\n-|0|say \"a\"\n81|1|new\n-|0|say \"b\"\n");
	close_store(st);
}

/* 1 when show (lt_store_line_origin, or _event_origin when audit) gives id's record as p. */
static int shows(struct lt_store *st, int audit, int64_t id, const char *p, size_t n)
{
	struct lt_event_origin o;
	struct lt_error err = {0};
	int same;

	lt_buf_init(&o.raw);
	lt_buf_init(&o.file);
	assert_int_equal(audit ? lt_store_event_origin(st, id, &o, &err)
			       : lt_store_line_origin(st, id, &o, &err),
			 0);
	same = o.raw.len == n && memcmp(o.raw.ptr, p, n) == 0;
	lt_buf_release(&o.raw);
	lt_buf_release(&o.file);
	return same;
}

/*
 * Schema 8 to 9: a store of 8 holds a row a raw record (audit_raw, lines_raw).  A read-only
 * open refuses it; a writable one keeps those rows as they are (audit_raw_rows,
 * lines_raw_rows) and stores the next ingest's records in blocks; the views, show and the
 * logs view's messages read both, and a record read again after the upgrade is a duplicate.
 */
static void test_schema_upgrade_9_blocks(void **state)
{
	static const char *const to8[] = {
	    TO9_FIELDS,
	    TO8_RAW,
	    "UPDATE meta SET value = '8' WHERE key = 'schema'",
	};
	char dir[PATH_SIZE], a[PATH_SIZE], b[PATH_SIZE], k1[PATH_SIZE], k2[PATH_SIZE], *want;
	struct lt_ingest_totals t = {0};
	struct lt_store *st;
	struct seen s;

	(void)state;
	case_dir(dir, "schema-upgrade-9");
	write_file(a, dir, "a.log", EV_META "\n" EV_NODE "\n");
	write_file(b, dir, "b.log", EV_NODE "\n" EV_BODY "\n");
	write_file(k1, dir, "k1.log", SKEWED("old"));
	write_file(k2, dir, "k2.log", SKEWED("old") SKEWED("new"));
	st = open_store(dir);
	expect_counts(ingest_ok(st, a, &s, &t), 2, 2, 0, 0, 0);
	memset(&s, 0, sizeof s);
	ingest_ok(st, k1, &s, &t);
	want = q_rows(st, "SELECT * FROM logs ORDER BY id", NULL);
	st = reopen_downgraded(st, dir, to8, sizeof to8 / sizeof *to8, "schema 8");
	expect_rows(st,
		    "SELECT (SELECT value FROM meta WHERE key = 'schema'),"
		    " (SELECT group_concat(id) FROM audit_raw_rows),"
		    " (SELECT group_concat(id) FROM lines_raw_rows),"
		    " (SELECT count(*) FROM audit_blocks) + (SELECT count(*) FROM lines_blocks),"
		    " (SELECT group_concat(type) FROM sqlite_master"
		    "  WHERE name IN ('audit_raw', 'lines_raw'))",
		    NULL, "13|1,2|1|0|view,view\n");
	expect_rows(st, "SELECT * FROM logs ORDER BY id", NULL, want);
	free(want);
	memset(&s, 0, sizeof s);
	expect_counts(ingest_ok(st, b, &s, &t), 2, 1, 1, 0, 0);
	memset(&s, 0, sizeof s);
	expect_counts(ingest_ok(st, k2, &s, &t), 2, 1, 1, 0, 0);
	expect_rows(st,
		    "SELECT (SELECT group_concat(id) FROM audit_blocks),"
		    " (SELECT group_concat(id) FROM lines_blocks)",
		    NULL, "3|2\n");
	expect_rows(st, "SELECT lt_raw(json) = ?1 FROM audit_raw ORDER BY id", EV_NODE,
		    "0\n1\n0\n");
	expect_rows(st, "SELECT lt_raw(text) FROM lines_raw ORDER BY id", NULL,
		    SKEWED("old") SKEWED("new"));
	expect_rows(st, "SELECT message FROM logs ORDER BY id", NULL, "old\nnew\n");
	assert_true(shows(st, 1, 2, EV_NODE, strlen(EV_NODE)));
	assert_true(shows(st, 1, 3, EV_BODY, strlen(EV_BODY)));
	assert_true(shows(st, 0, 1, SKEWED("old"), strlen(SKEWED("old")) - 1));
	assert_true(shows(st, 0, 2, SKEWED("new"), strlen(SKEWED("new")) - 1));
	close_store(st);
}

/* A CloudWatch event (filter-log-events) of stream and eventId id whose message is event ev. */
static void cw_event(struct lt_buf *out, const char *stream, const char *id, const char *ev)
{
	lt_buf_printf(out, "%s{\"logStreamName\":\"%s\",\"timestamp\":1712297055000,\"message\":\"",
		      out->len > 0 ? "," : "", stream);
	for (const char *c = ev; *c != '\0'; c++) {
		if (*c == '"' || *c == '\\')
			lt_buf_append(out, "\\", 1);
		lt_buf_append(out, c, 1);
	}
	lt_buf_printf(out, "\",\"ingestionTime\":1712297056000,\"eventId\":\"%s\"}", id);
}

/* A CloudWatch export of the events of cw_event's list. */
static void write_cw(char *out, const char *dir, const char *name, const struct lt_buf *events)
{
	struct lt_buf text;

	lt_buf_init(&text);
	lt_buf_printf(&text, "{\"events\":[%s]}\n", events->ptr);
	write_file(out, dir, name, text.ptr);
	lt_buf_release(&text);
}

/* 56 digits with leading zeros (a CloudWatch eventId's length), and an odd count of digits. */
#define EXT_ID_56  "00371278154391640981412453129427846457712498103234572288"
#define EXT_ID_ODD "0123456789012345678"

/*
 * Schema 10 (branch asize): audit_ext becomes a view over audit_ext_packed, whose ids are BCD
 * where they are all digits (leading zeros and an odd count spelled back exactly) and whose
 * streams are strs ids.  A schema-9 store's audit_ext rows are copied as they are (ext_id
 * text, each stream interned) by a writable open; the view reads them as before, and new rows
 * of the same stream share its id.
 */
static void test_schema_upgrade_10_asize(void **state)
{
	static const char *const to9[] = {
	    TO11_LINES,
	    "CREATE TABLE audit_ext9(id INTEGER PRIMARY KEY, ext_id TEXT, stream TEXT)",
	    "INSERT INTO audit_ext9 SELECT * FROM audit_ext",
	    "DROP VIEW audit_ext",
	    "DROP TABLE audit_ext_packed",
	    "ALTER TABLE audit_ext9 RENAME TO audit_ext",
	    "UPDATE meta SET value = '9' WHERE key = 'schema'",
	};
	char dir[PATH_SIZE], a[PATH_SIZE], b[PATH_SIZE], *want;
	struct lt_ingest_totals t = {0};
	struct lt_store *st;
	struct lt_buf ev;
	struct seen s;

	(void)state;
	case_dir(dir, "schema-upgrade-10-asize");
	lt_buf_init(&ev);
	cw_event(&ev, "kube-apiserver-audit-a", EXT_ID_56, EV_META);
	cw_event(&ev, "kube-apiserver-audit-b", EXT_ID_ODD, EV_NODE);
	write_cw(a, dir, "a.json", &ev);
	lt_buf_truncate(&ev, 0);
	cw_event(&ev, "kube-apiserver-audit-a", "hard-wrapped: 7", EV_BODY);
	cw_event(&ev, "kube-apiserver-audit-b", "42", EV_NODE); /* a duplicate: not stored */
	write_cw(b, dir, "b.json", &ev);
	lt_buf_release(&ev);
	st = open_store(dir);
	ingest_ok(st, a, &s, &t);
	expect_rows(st, "SELECT id, ext_id, stream FROM audit_ext ORDER BY id", NULL,
		    "1|" EXT_ID_56 "|kube-apiserver-audit-a\n2|" EXT_ID_ODD
		    "|kube-apiserver-audit-b\n");
	expect_rows(st,
		    "SELECT typeof(ext_id), length(ext_id), typeof(stream_id) FROM audit_ext_packed"
		    " ORDER BY id",
		    NULL, "blob|28|integer\nblob|10|integer\n");
	want = q_rows(st, "SELECT * FROM audit_ext ORDER BY id", NULL);
	st = reopen_downgraded(st, dir, to9, sizeof to9 / sizeof *to9, "schema 9");
	expect_rows(st,
		    "SELECT (SELECT value FROM meta WHERE key = 'schema'),"
		    " (SELECT group_concat(typeof(ext_id) || '+' || typeof(stream_id))"
		    "  FROM audit_ext_packed),"
		    " (SELECT group_concat(type) FROM sqlite_master WHERE name = 'audit_ext')",
		    NULL, "13|text+integer,text+integer|view\n");
	expect_rows(st, "SELECT * FROM audit_ext ORDER BY id", NULL, want);
	free(want);
	memset(&s, 0, sizeof s);
	ingest_ok(st, b, &s, &t);
	expect_rows(st, "SELECT id, ext_id, stream FROM audit_ext ORDER BY id", NULL,
		    "1|" EXT_ID_56 "|kube-apiserver-audit-a\n2|" EXT_ID_ODD
		    "|kube-apiserver-audit-b\n3|hard-wrapped: 7|kube-apiserver-audit-a\n");
	expect_rows(st,
		    "SELECT count(DISTINCT stream_id), (SELECT typeof(ext_id) FROM audit_ext_packed"
		    " WHERE id = 3) FROM audit_ext_packed",
		    NULL, "2|text\n");
	close_store(st);
}

/* ---- lines.fields from the raw line (schema 10, index-fields.c) -------------- */

/* Structured klog lines of every shape decoder 1 meets: plain, escaped, cut, odd. */
#define FL(t, tail)                                                                                \
	"2024-04-05T05:50:" t "+00:00 n1 kubelet[1]: E0405 05:50:" t " 1 a.go:1] " tail "\n"
static const char fields_lines[] = FL("01.000001", "\"Plain\" pod=\"ns/p\" err=\"x\"")
    FL("02.000001", "\"Bare\" a=1 b=[x y] c={d e} f=(g h) i=j")
	FL("03.000001", "\"Escapes\" v=\"tab\\there \\x41\\u00e9\\U0001F600 \\q \\\"q\\\"\"")
	    FL("04.000001", "\"Cut\" v=\"never closed") FL("05.000001", "\"Rest\" a=1 then words")
		FL("06.000001", "\"Spaces\" a=1   \r")
		    FL("07.000001", "\"Inner \"quote\" kept\" a=\"b\"")
			FL("08.000001", "\"Msg \\\"escaped\\\"\" a=1") FL("09.000001", "\"n1\" a=1")
			    FL("10.000001", "\"NoPairs\" x")
				FL("11.000001", "\"Ctl\" a=\"\x01\x7f\" b=\"\\u0000\"")
				    FL("12.000001", "printf text a=1")
					FL("13.000001",
					   "\"Bad hex\" a=\"\\xZZ\\u12\" b=\"\\U00110000\"")
					    FL("14.000001", "\"Quoted key\" \"k\"=1 a=\"v\" =x");

/* What a sink saw of each line: the parser's fields, and decoder 1 on the raw line. */
struct fields_seen {
	struct index_fields_check check;
	struct lt_buf want; /* each line's fields (or "-"), one a line */
	int lines, decoded, same;
};

/* The message's byte in the raw line, found as the writer finds it (index-logs.c). */
static ptrdiff_t fields_msg_at(const struct lt_log_line *ln)
{
	const char *raw = ln->raw.ptr, *m = ln->message.ptr, *at = NULL;

	if (raw == NULL || m == NULL)
		return -1;
	if (m >= raw && ln->message.len <= ln->raw.len &&
	    (size_t)(m - raw) <= ln->raw.len - ln->message.len)
		return m - raw;
	if (ln->message.len > 0)
		at = memmem(raw, ln->raw.len, m, ln->message.len);
	return at == NULL ? -1 : at - raw;
}

static int fields_on_log(const struct lt_log_line *ln, const struct lt_where *at, void *ctx)
{
	struct fields_seen *f = ctx;
	ptrdiff_t m = fields_msg_at(ln);

	(void)at;
	f->lines++;
	if (ln->fields.ptr != NULL)
		lt_buf_append(&f->want, ln->fields.ptr, ln->fields.len);
	else
		lt_buf_putc(&f->want, '-');
	lt_buf_putc(&f->want, '\n');
	if (m < 0 || !index_fields_decode(&f->check.out, &f->check.tmp, ln->raw.ptr, ln->raw.len,
					  (size_t)m + ln->message.len))
		return 0;
	f->decoded++;
	/* decoder 1 reproduces the parser's fields or declines: it never gives other ones */
	if (ln->fields.ptr == NULL || f->check.out.len != ln->fields.len ||
	    memcmp(f->check.out.ptr, ln->fields.ptr, ln->fields.len) != 0)
		fail_msg("line %llu: decoder 1 gave %s, the parser %.*s",
			 (unsigned long long)at->line, f->check.out.ptr, (int)ln->fields.len,
			 ln->fields.ptr ? ln->fields.ptr : "(none)");
	f->same++;
	return 0;
}

static int fields_on_audit(const struct lt_audit_event *ev, const struct lt_where *at, void *ctx)
{
	(void)ev, (void)at, (void)ctx;
	return 0;
}

static int fields_on_reject(const struct lt_where *at, const char *reason, void *ctx)
{
	(void)at, (void)reason, (void)ctx;
	return 0;
}

/*
 * Parses path, checking decoder 1 against the parser line by line, then ingests it into a
 * new store of case name: its logs view gives every line's fields as the parser gave them
 * (marked or not).  Returns the lines the decoder reproduced.
 */
static int fields_check_file(const char *path, const char *name)
{
	const struct lt_sink sink = {.audit = fields_on_audit,
				     .log = fields_on_log,
				     .reject = fields_on_reject,
				     .year = 2024};
	struct fields_seen f = {.lines = 0};
	struct lt_ingest_totals t = {0};
	struct lt_error err = {0};
	enum lt_format fmt;
	struct lt_input *in;
	struct lt_store *st;
	char dir[PATH_SIZE];
	struct seen s;

	index_fields_check_init(&f.check);
	lt_buf_init(&f.want);
	assert_int_equal(lt_input_open(&in, path, &err), 0);
	(void)lt_parse_input(in, &sink, &f, &fmt, &err);
	lt_input_free(in);
	case_dir(dir, name);
	st = open_store(dir);
	(void)ingest(st, path, 0, &s, &t, &err);
	expect_rows(st, "SELECT coalesce(fields, '-') FROM logs ORDER BY id", NULL, f.want.ptr);
	/* a mark is only stored where decoder 1 decodes the stored raw line */
	expect_rows(st,
		    "SELECT count(*) FROM lines WHERE fields = X''"
		    " AND lt_line_fields(lt_raw_of('lines', id), msg_at + msg_len) IS NULL",
		    NULL, "0\n");
	close_store(st);
	index_fields_check_release(&f.check);
	lt_buf_release(&f.want);
	return f.same;
}

/*
 * Decoder 1 (index-fields.c) on every line of the kubelet and shape corpora and on klog
 * lines of every odd shape: where it decodes, it gives exactly the parser's fields; a store
 * shows every line's fields as the parser gave them, its marks and its text alike.
 */
static void test_fields_decoder(void **state)
{
	static const char *const dirs[] = {LT_TEST_CORPUS "/kubelet", LT_TEST_CORPUS "/shapes"};
	char dir[PATH_SIZE], path[PATH_SIZE], name[64];
	int same = 0, n = 0;

	(void)state;
	case_dir(dir, "fields-odd");
	write_file(path, dir, "odd.log", fields_lines);
	assert_true(fields_check_file(path, "fields-odd-store") >= 6);
	for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
		DIR *dp = opendir(dirs[d]);
		struct dirent *e;

		assert_non_null(dp);
		while ((e = readdir(dp)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			path_join(path, dirs[d], e->d_name);
			snprintf(name, sizeof name, "fields-%d", n++);
			same += fields_check_file(path, name);
		}
		closedir(dp);
	}
	assert_true(same > 0);
}

/* What the pipe's prep saw: its verdicts against the writer's own check on the line. */
struct pipe_seen {
	struct index_fields_check check;
	int marks, texts, unchecked;
};

/*
 * The writer's side of the pipe: the fields check the parser's thread made (coded's verdict)
 * must be the one the writer would make on the line it receives (index-logs.c: the message's
 * first occurrence in the raw line, then decoder 1 there); a mark is not compressed, and a
 * message found in the raw line travels as a slice of it, at that occurrence.
 */
static int pipe_on_log(const struct lt_log_line *ln, const struct lt_where *at,
		       const struct index_raw_coded *coded, void *ctx)
{
	struct pipe_seen *f = ctx;
	const struct index_raw_coded *c = &coded[INDEX_PIPE_FIELDS];
	const char *raw = ln->raw.ptr, *m = ln->message.ptr;
	const size_t n = ln->message.len;
	ptrdiff_t first = -1;
	int mark;

	if (raw != NULL && m != NULL && n > 0) {
		const char *hit = memmem(raw, ln->raw.len, m, n);

		first = hit ? hit - raw : -1;
	}
	mark =
	    first >= 0 && index_fields_derives(&f->check, ln->raw, (size_t)first + n, ln->fields);
	if (c->verdict == INDEX_FIELDS_UNCHECKED) {
		assert_true(m != NULL && n == 0); /* only an empty message is left to the writer */
		f->unchecked++;
		return 0;
	}
	if (mark != (c->verdict == INDEX_FIELDS_MARK))
		fail_msg("line %llu: the pipe's verdict %d, the writer's check %d",
			 (unsigned long long)at->line, (int)c->verdict, mark);
	if (mark)
		assert_true(c->blob == NULL && c->by.settled == 0);
	if (first >= 0) /* a slice of the raw line's copy, at the first occurrence */
		assert_ptr_equal(m, raw + first);
	f->marks += mark;
	f->texts += !mark;
	return 0;
}

static void pipe_no_share(struct index_raw_share *out, void *ctx)
{
	(void)ctx;
	*out = (struct index_raw_share){0};
}

/* Runs index_pipe_parse with pipe_on_log as its prep on path; adds to f. */
static void pipe_check_file(const char *path, struct pipe_seen *f)
{
	const struct lt_sink sink = {.audit = fields_on_audit,
				     .log = fields_on_log,
				     .reject = fields_on_reject,
				     .year = 2024};
	const struct index_pipe_prep prep = {.log = pipe_on_log, .share = pipe_no_share};
	struct lt_error err = {0};
	enum lt_format fmt;
	struct lt_input *in;

	assert_int_equal(lt_input_open(&in, path, &err), 0);
	(void)index_pipe_parse(in, &sink, &prep, f, &fmt, &err);
	lt_input_free(in);
}

/*
 * The fields check made on the parser's thread (index-pipe.c) is the writer's: on klog lines
 * of every odd shape (a message that also appears earlier in the line among them) and on the
 * kubelet corpus, each line's verdict is what the writer's check gives on the line it gets.
 */
static void test_pipe_fields_verdict(void **state)
{
	char dir[PATH_SIZE], path[PATH_SIZE];
	struct pipe_seen f = {.marks = 0};
	struct dirent *e;
	DIR *dp;

	(void)state;
	index_fields_check_init(&f.check);
	case_dir(dir, "pipe-verdict");
	write_file(path, dir, "odd.log", fields_lines);
	pipe_check_file(path, &f);
	assert_true(f.marks >= 6 && f.texts >= 3);
	assert_non_null(dp = opendir(LT_TEST_CORPUS "/kubelet"));
	while ((e = readdir(dp)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		path_join(path, LT_TEST_CORPUS "/kubelet", e->d_name);
		pipe_check_file(path, &f);
	}
	closedir(dp);
	assert_true(f.marks > 20 && f.texts > 20);
	index_fields_check_release(&f.check);
}

/*
 * Schema 9 to 10: a store of 9 holds every line's fields as text (or packed); 10 stores a
 * mark, an empty blob, where decoder 1 (index-fields.c) rebuilds them from the raw line.  A
 * read-only open refuses a store of 9 (asize's step of 10 is one its readers need); a
 * writable one upgrades it in place: its rows keep their text, read as they are, the logs view
 * gives what it gave, new lines get marks, and a line read again from an overlapping file (its
 * fields text in the old row, a mark's decoding in the new one) is found a duplicate.
 */
static void test_schema_upgrade_10_jsize(void **state)
{
	static const char *const to9[] = {
	    TO9_FIELDS,
	    "UPDATE meta SET value = '9' WHERE key = 'schema'",
	};
	char dir[PATH_SIZE], k1[PATH_SIZE], k2[PATH_SIZE], *want;
	struct lt_ingest_totals t = {0};
	struct lt_store *st;
	struct seen s;

	(void)state;
	case_dir(dir, "schema-upgrade-10");
	write_file(k1, dir, "k1.log",
		   FL("01.000001", "\"Plain\" pod=\"ns/p\"")
		       FL("02.000001", "\"Msg \\\"escaped\\\"\" a=1") FL("03.000001", "\"None\""));
	write_file(k2, dir, "k2.log",
		   FL("01.000001", "\"Plain\" pod=\"ns/p\"")
		       FL("02.000001", "\"Msg \\\"escaped\\\"\" a=1") FL("03.000001", "\"None\"")
			   FL("04.000001", "\"New\" err=\"e\""));
	st = open_store(dir);
	expect_counts(ingest_ok(st, k1, &s, &t), 3, 3, 0, 0, 0);
	/* the plain line's fields are a mark; the escaped message is no slice: its fields text */
	expect_rows(st, "SELECT id, typeof(fields), length(fields) FROM lines ORDER BY id", NULL,
		    "1|blob|0\n2|text|9\n3|null|NULL\n");
	want = q_rows(st, "SELECT * FROM logs ORDER BY id", NULL);
	expect_rows(st, "SELECT fields FROM logs ORDER BY id", NULL,
		    "{\"pod\":\"ns/p\"}\n{\"a\":\"1\"}\nNULL\n");
	/* a read-only open refuses it (schema 10 also packed audit_ext); a writable one upgrades */
	st = reopen_downgraded(st, dir, to9, sizeof to9 / sizeof *to9, "schema 9");
	expect_rows(
	    st,
	    "SELECT (SELECT value FROM meta WHERE key = 'schema'), group_concat(typeof(fields))"
	    " FROM lines",
	    NULL, "13|text,text,null\n");
	expect_rows(st, "SELECT * FROM logs ORDER BY id", NULL, want);
	free(want);
	memset(&s, 0, sizeof s);
	expect_counts(ingest_ok(st, k2, &s, &t), 4, 1, 3, 0, 0);
	expect_rows(st,
		    "SELECT g.id, typeof(g.fields), v.fields FROM lines AS g JOIN logs AS v"
		    " ON v.id = g.id ORDER BY g.id",
		    NULL,
		    "1|text|{\"pod\":\"ns/p\"}\n2|text|{\"a\":\"1\"}\n3|null|NULL\n"
		    "4|blob|{\"err\":\"e\"}\n");
	close_store(st);
}

/*
 * Schema 10 to 11: a store of 10 holds the lines' dedupe keys in line_keys; 11 keeps none and
 * finds a line read again through lines_node, comparing what the lines say.  A read-only open
 * refuses a store of 10 (schema 12's readers read lines_row: SCHEMA_READS_FROM); a writable one
 * drops line_keys in
 * place: the logs view gives what it gave, and an overlapping file's lines are duplicates
 * (their messages a slice of the raw line, text, and fields a mark), but for a repeat more
 * than the store holds, which is kept, and a new line.
 */
static void test_schema_upgrade_11_jsize2(void **state)
{
	static const char *const to10[] = {
	    TO11_LINES,
	    ("CREATE TABLE line_keys(k INTEGER PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID"),
	    "INSERT INTO line_keys SELECT id << 29, id FROM lines",
	    "UPDATE meta SET value = '10' WHERE key = 'schema'",
	};
	char dir[PATH_SIZE], db[PATH_SIZE], k1[PATH_SIZE], k2[PATH_SIZE], *want;
	struct lt_ingest_totals t = {0};
	struct lt_error err = {0};
	struct lt_store *st;
	struct seen s;

	(void)state;
	case_dir(dir, "schema-upgrade-11");
	path_join(db, dir, "store.db");
	write_file(k1, dir, "k1.log",
		   SKEWED("kept") SKEWED("kept") ESCAPED("a")
		       FL("40.000001", "\"Plain\" pod=\"p\""));
	write_file(k2, dir, "k2.log",
		   SKEWED("kept") SKEWED("kept") SKEWED("kept") ESCAPED("a")
		       FL("40.000001", "\"Plain\" pod=\"p\"") SKEWED("new"));
	st = open_store(dir);
	expect_counts(ingest_ok(st, k1, &s, &t), 4, 4, 0, 0, 0);
	expect_rows(st, "SELECT count(*) FROM sqlite_master WHERE name = 'line_keys'", NULL, "0\n");
	want = q_rows(st, "SELECT * FROM logs ORDER BY id", NULL);
	for (size_t i = 0; i < sizeof to10 / sizeof *to10; i++)
		free(q_rows(st, to10[i], NULL));
	close_store(st);
	/* read-only: refused, older than what the readers read */
	open_fails(db, LT_STORE_READONLY, LT_ERR_DB, &err);
	assert_non_null(strstr(err.msg, "schema 10, older than this leasetrail's 13"));
	/* writable: upgraded in place */
	st = open_store(dir);
	expect_rows(st,
		    "SELECT (SELECT value FROM meta WHERE key = 'schema'),"
		    " (SELECT count(*) FROM sqlite_master WHERE name = 'line_keys')",
		    NULL, "13|0\n");
	expect_rows(st, "SELECT * FROM logs ORDER BY id", NULL, want);
	free(want);
	memset(&s, 0, sizeof s);
	expect_counts(ingest_ok(st, k2, &s, &t), 6, 2, 4, 0, 0);
	expect_rows(st, "SELECT id, message, fields FROM logs ORDER BY id", NULL,
		    "1|kept|NULL\n2|kept|NULL\n3|say \"a\"|NULL\n4|Plain|{\"pod\":\"p\"}\n"
		    "5|kept|NULL\n6|new|NULL\n");
	close_store(st);
}

/*
 * Schema 11 to 12 (branch jsize3): a store of 11 holds every column of a line in its row of
 * lines; 12 keeps the rare ones (lkey, klog_us, the object a line names, a message that is not
 * a slice of its raw line, a CloudWatch line's ext_id and stream) in lines_more, a row only for
 * a line that has one, under a lines view of the same columns.  A read-only open refuses a
 * store of 11 (SCHEMA_READS_FROM: the readers read lines_row through its indexes); a writable
 * one moves the rare values out: SELECT * FROM lines and the logs view give what they gave.
 */
static void test_schema_upgrade_12_jsize3(void **state)
{
	static const char *const to11[] = {
	    TO11_LINES,
	    "UPDATE meta SET value = '11' WHERE key = 'schema'",
	};
	char dir[PATH_SIZE], db[PATH_SIZE], k1[PATH_SIZE], k2[PATH_SIZE], *logs, *lines;
	struct lt_ingest_totals t = {0};
	struct lt_error err = {0};
	struct lt_store *st;
	struct seen s;

	(void)state;
	case_dir(dir, "schema-upgrade-12");
	path_join(db, dir, "store.db");
	write_file(k1, dir, "k1.log",
		   SKEWED("kept") ESCAPED("a") FL("40.000001", "\"Plain\" pod=\"p\""));
	write_file(k2, dir, "k2.log", ESCAPED("b") FL("41.000001", "\"Next\" pod=\"q\""));
	st = open_store(dir);
	expect_counts(ingest_ok(st, k1, &s, &t), 3, 3, 0, 0, 0);
	/* a new store: only the line whose message is not a slice of its raw line has a row */
	expect_rows(st, "SELECT id, message FROM lines_more", NULL, "2|say \"a\"\n");
	/* the rare values of older schemas and of other logs, on the first line */
	free(q_rows(
	    st,
	    "INSERT INTO lines_more(id, lkey, klog_us, obj_kind_id, obj_namespace_id,"
	    " obj_uid, ext_id, stream_id) SELECT 1, 77, ts_us + 5, (SELECT min(id) FROM strs),"
	    " (SELECT max(id) FROM strs), 'uid-1', 'e1', (SELECT min(id) FROM strs)"
	    " FROM lines_row WHERE id = 1",
	    NULL));
	expect_rows(
	    st, "SELECT lkey, klog_us - ts_us, obj_uid, ext_id, message FROM lines WHERE id = 1",
	    NULL, "77|5|uid-1|e1|NULL\n");
	logs = q_rows(st, "SELECT * FROM logs ORDER BY id", NULL);
	lines = q_rows(st, "SELECT * FROM lines ORDER BY id", NULL);
	for (size_t i = 0; i < sizeof to11 / sizeof *to11; i++)
		free(q_rows(st, to11[i], NULL));
	/* the store of 11: lines the table, holding the same */
	expect_rows(st, "SELECT type FROM sqlite_master WHERE name = 'lines'", NULL, "table\n");
	expect_rows(st, "SELECT * FROM lines ORDER BY id", NULL, lines);
	close_store(st);
	/* read-only: refused, older than what the readers read */
	open_fails(db, LT_STORE_READONLY, LT_ERR_DB, &err);
	assert_non_null(strstr(err.msg, "schema 11, older than this leasetrail's 13"));
	/* writable: upgraded, the same columns and values */
	st = open_store(dir);
	expect_rows(st,
		    "SELECT (SELECT value FROM meta WHERE key = 'schema'),"
		    " (SELECT type FROM sqlite_master WHERE name = 'lines'),"
		    " (SELECT group_concat(id) FROM lines_more),"
		    " (SELECT count(*) FROM pragma_table_info('lines_row') WHERE name IN ('lkey',"
		    " 'klog_us', 'obj_kind_id', 'obj_namespace_id', 'obj_uid', 'message', 'ext_id',"
		    " 'stream_id'))",
		    NULL, "13|view|1,2|0\n");
	expect_rows(st,
		    "SELECT group_concat(name) FROM (SELECT name FROM sqlite_master WHERE type ="
		    " 'index' AND tbl_name = 'lines_row' ORDER BY name)",
		    NULL, "lines_kind,lines_node,lines_notable,lines_subject\n");
	expect_rows(st, "SELECT * FROM lines ORDER BY id", NULL, lines);
	expect_rows(st, "SELECT * FROM logs ORDER BY id", NULL, logs);
	free(logs);
	free(lines);
	/* a line stored after it: its rare value in lines_more, the others in lines_row alone */
	memset(&s, 0, sizeof s);
	expect_counts(ingest_ok(st, k2, &s, &t), 2, 2, 0, 0, 0);
	expect_rows(st, "SELECT group_concat(id) FROM lines_more", NULL, "1,2,4\n");
	expect_rows(st, "SELECT id, message FROM logs WHERE id > 3 ORDER BY id", NULL,
		    "4|say \"b\"\n5|Next\n");
	close_store(st);
}

/*
 * Schema 13 back to 12: lines_row keeps ts_us itself (no ts_d, no generated column), its indexes
 * on it; the views that read it made again as 12 had them.  The copy runs with
 * legacy_alter_table, as the lines_raw view names lines, which is then missing.
 */
#define TO12_LINES                                                                                 \
	"DROP VIEW IF EXISTS logs",                                                                \
	    ("CREATE TABLE lines_row12(id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL,"        \
	     " line INTEGER NOT NULL, offset INTEGER NOT NULL, ts_us INTEGER NOT NULL,"            \
	     " basis INTEGER NOT NULL DEFAULT 0, host_id INTEGER, node_id INTEGER,"                \
	     " component_id INTEGER, ident_id INTEGER, pid INTEGER, severity TEXT,"                \
	     " location_id INTEGER, kind_id INTEGER, subject_id INTEGER,"                          \
	     " not_found INTEGER NOT NULL DEFAULT 0, fields TEXT,"                                 \
	     " cluster_id INTEGER NOT NULL DEFAULT 0, klog_d INTEGER, msg_at INTEGER,"             \
	     " msg_len INTEGER)"),                                                                 \
	    ("INSERT INTO lines_row12 SELECT id, source_id, line, offset, ts_us, basis, host_id,"  \
	     " node_id, component_id, ident_id, pid, severity, location_id, kind_id, subject_id,"  \
	     " not_found, fields, cluster_id, klog_d, msg_at, msg_len FROM lines ORDER BY "        \
	     "id"),                                                                                \
	    "DROP VIEW lines", "DROP TABLE lines_row", "PRAGMA legacy_alter_table = ON",           \
	    "ALTER TABLE lines_row12 RENAME TO lines_row", "PRAGMA legacy_alter_table = OFF",      \
	    ("CREATE VIEW lines AS SELECT r.id AS id, r.source_id AS source_id, r.line AS line,"   \
	     " r.offset AS offset, m.lkey AS lkey, r.ts_us AS ts_us, m.klog_us AS klog_us,"        \
	     " r.basis AS basis, r.host_id AS host_id, r.node_id AS node_id,"                      \
	     " r.component_id AS component_id, r.ident_id AS ident_id, r.pid AS pid,"              \
	     " r.severity AS severity, r.location_id AS location_id, r.kind_id AS kind_id,"        \
	     " r.subject_id AS subject_id, m.obj_kind_id AS obj_kind_id,"                          \
	     " m.obj_namespace_id AS obj_namespace_id, m.obj_uid AS obj_uid,"                      \
	     " r.not_found AS not_found, m.message AS message, r.fields AS fields,"                \
	     " m.ext_id AS ext_id, m.stream_id AS stream_id, r.cluster_id AS cluster_id,"          \
	     " r.klog_d AS klog_d, r.msg_at AS msg_at, r.msg_len AS msg_len FROM lines_row AS r"   \
	     " LEFT JOIN lines_more AS m ON m.id = r.id"),                                         \
	    "CREATE INDEX lines_node ON lines_row(node_id, ts_us)",                                \
	    ("CREATE INDEX lines_subject ON lines_row(subject_id, ts_us)"                          \
	     " WHERE subject_id IS NOT NULL"),                                                     \
	    "CREATE INDEX lines_kind ON lines_row(kind_id, ts_us) WHERE kind_id IS NOT NULL",      \
	    "CREATE INDEX lines_notable ON lines_row(node_id, ts_us) WHERE " LT_LINE_NOTABLE,      \
	    "UPDATE meta SET value = '12' WHERE key = 'schema'"

/*
 * Schema 12 to 13 (branch jsize4): a store of 12 keeps a line's time in lines_row.ts_us, 8
 * bytes, and its number in line; 13 keeps ts_d, its distance from LT_LINE_EPOCH_US (6 bytes for
 * a time within 4.46 years of it), the lines indexes on it, ts_us a virtual column of it, and
 * line_d, the number less its id's distance from its source's first line's.  A read-only open
 * refuses a store of 12 (SCHEMA_READS_FROM: the readers bound ts_d); a writable one moves the
 * values: SELECT * FROM lines and the logs view give what they gave, a time far from the epoch
 * (1970, 9999) included, exactly; a line read again is found through lines_node, a duplicate.
 */
static void test_schema_upgrade_13_jsize4(void **state)
{
	/* a source of an older store may lack its first line's id: the upgrade gives it one */
	static const char *const to12[] = {TO12_LINES, "UPDATE log_sources SET first_id = NULL"};
	char dir[PATH_SIZE], db[PATH_SIZE], k1[PATH_SIZE], k2[PATH_SIZE], *logs, *lines;
	struct lt_ingest_totals t = {0};
	struct lt_error err = {0};
	struct lt_store *st;
	struct seen s;

	(void)state;
	case_dir(dir, "schema-upgrade-13");
	path_join(db, dir, "store.db");
	write_file(k1, dir, "k1.log",
		   SKEWED("kept") ESCAPED("a") FL("40.000001", "\"Plain\" pod=\"p\""));
	write_file(k2, dir, "k2.log", SKEWED("kept") FL("41.000001", "\"Next\" pod=\"q\""));
	st = open_store(dir);
	expect_counts(ingest_ok(st, k1, &s, &t), 3, 3, 0, 0, 0);
	/* a new store: ts_d, the time less the epoch, and ts_us read back from it */
	expect_rows(st,
		    "SELECT count(*), sum(ts_us = ts_d + " LT_LINE_EPOCH_SQL "), min(ts_us)"
		    " FROM lines_row",
		    NULL, "3|3|1712296233938270\n");
	/* times 8 bytes away from the epoch either way: kept exactly, there and back */
	free(q_rows(st, "UPDATE lines_row SET ts_d = 1000001 - " LT_LINE_EPOCH_SQL " WHERE id = 2",
		    NULL));
	free(q_rows(st,
		    "UPDATE lines_row SET ts_d = 253402300799999999 - " LT_LINE_EPOCH_SQL
		    " WHERE id = 3",
		    NULL));
	expect_rows(st, "SELECT group_concat(ts_us) FROM lines", NULL,
		    "1712296233938270,1000001,253402300799999999\n");
	logs = q_rows(st, "SELECT * FROM logs ORDER BY id", NULL);
	lines = q_rows(st, "SELECT * FROM lines ORDER BY id", NULL);
	for (size_t i = 0; i < sizeof to12 / sizeof *to12; i++)
		free(q_rows(st, to12[i], NULL));
	/* the store of 12: ts_us in the row, holding the same */
	expect_rows(st, "SELECT count(*) FROM pragma_table_xinfo('lines_row') WHERE name = 'ts_d'",
		    NULL, "0\n");
	expect_rows(st, "SELECT * FROM lines ORDER BY id", NULL, lines);
	close_store(st);
	/* read-only: refused, older than what the readers read */
	open_fails(db, LT_STORE_READONLY, LT_ERR_DB, &err);
	assert_non_null(strstr(err.msg, "schema 12, older than this leasetrail's 13"));
	/* writable: upgraded, the same columns and values */
	st = open_store(dir);
	expect_rows(
	    st,
	    "SELECT (SELECT value FROM meta WHERE key = 'schema'),"
	    " (SELECT group_concat(name || ':' || hidden) FROM pragma_table_xinfo('lines_row')"
	    "  WHERE name IN ('ts_d', 'ts_us')),"
	    " (SELECT group_concat(ts_d) FROM (SELECT ts_d FROM lines_row ORDER BY id)),"
	    " (SELECT group_concat(line_d) FROM lines_row),"
	    " (SELECT group_concat(first_id) FROM log_sources)",
	    NULL,
	    "13|ts_d:0,ts_us:2|-23393366061730,-1735689598999999,251666611199999999|"
	    "1,1,1|1\n");
	expect_rows(st,
		    "SELECT group_concat(i.name || '(' || (SELECT group_concat(c.name) FROM"
		    " pragma_index_info(i.name) AS c) || ')') FROM (SELECT name FROM sqlite_master"
		    " WHERE type = 'index' AND tbl_name = 'lines_row' ORDER BY name) AS i",
		    NULL,
		    "lines_kind(kind_id,ts_d),lines_node(node_id,ts_d),lines_notable(node_id,ts_d),"
		    "lines_subject(subject_id,ts_d)\n");
	expect_rows(st, "SELECT * FROM lines ORDER BY id", NULL, lines);
	expect_rows(st, "SELECT * FROM logs ORDER BY id", NULL, logs);
	free(logs);
	free(lines);
	/* a line read again: found through lines_node by ts_d, a duplicate; a new one stored */
	memset(&s, 0, sizeof s);
	expect_counts(ingest_ok(st, k2, &s, &t), 2, 1, 1, 0, 0);
	expect_rows(st, "SELECT id, ts_us, line, message FROM logs WHERE id > 3 ORDER BY id", NULL,
		    "4|1712296241000001|2|Next\n");
	expect_rows(st, "SELECT group_concat(line_d) FROM lines_row", NULL, "1,1,1,2\n");
	close_store(st);
}

/*
 * Two overlapping files in one ingest into an empty store: the second one's lines that the
 * first stored are duplicates, though the bulk load deferred lines_node (the second file's
 * load builds it), while repeats within either file are kept.
 */
static void test_dedupe_lines_one_ingest(void **state)
{
	char dir[PATH_SIZE], sub[PATH_SIZE], a[PATH_SIZE], b[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct lt_error err;
	struct lt_store *st;
	struct seen s;

	(void)state;
	case_dir(dir, "dedupe-lines-one");
	path_join(sub, dir, "logs");
	assert_int_equal(mkdir(sub, 0755), 0);
	write_file(a, sub, "a.log", SKEWED("x") SKEWED("y") SKEWED("x") SKEWED("x"));
	write_file(b, sub, "b.log", SKEWED("y") SKEWED("x") SKEWED("x") SKEWED("x") SKEWED("z"));
	st = open_store(dir);
	assert_int_equal(ingest(st, sub, 0, &s, &t, &err), 0);
	assert_int_equal(s.nfiles, 2);
	expect_counts(&s.files[0].rep, 4, 4, 0, 0, 0);
	/* y, then x x x: the store holds three x; z is new */
	expect_counts(&s.files[1].rep, 5, 1, 4, 0, 0);
	expect_rows(st,
		    "SELECT group_concat(message, ' ') FROM (SELECT message FROM logs ORDER BY id)",
		    NULL, "x y x x z\n");
	expect_rows(st, "SELECT count(*) FROM sqlite_master WHERE name = 'lines_node'", NULL,
		    "1\n");
	close_store(st);
}

/*
 * A host mapped to a node (lt_store_map_hosts moves its lines once): its lines read in a later
 * ingest go to that node too, and its lines read again are found there, duplicates.
 */
static void test_lines_mapped_host(void **state)
{
	char dir[PATH_SIZE], k1[PATH_SIZE], k2[PATH_SIZE], *id;
	struct lt_ingest_totals t = {0};
	struct lt_error err = {0};
	struct lt_node_name node = {.name = "n1.example"};
	struct lt_store *st;
	struct seen s;

	(void)state;
	case_dir(dir, "lines-mapped-host");
	write_file(k1, dir, "k1.log", SKEWED("old"));
	write_file(k2, dir, "k2.log", SKEWED("old") SKEWED("new"));
	st = open_store(dir);
	expect_counts(ingest_ok(st, k1, &s, &t), 1, 1, 0, 0, 0);
	free(q_rows(st, "INSERT INTO strs(s) VALUES('n1.example')", NULL));
	id = q_rows(st, "SELECT id FROM strs WHERE s = 'n1.example'", NULL);
	node.id = strtoll(id, NULL, 10);
	free(id);
	assert_int_equal(lt_store_map_hosts(st, &node, 1, &err), 0);
	memset(&s, 0, sizeof s);
	expect_counts(ingest_ok(st, k2, &s, &t), 2, 1, 1, 0, 0);
	expect_rows(st, "SELECT message, node FROM logs ORDER BY id", NULL,
		    "old|n1.example\nnew|n1.example\n");
	close_store(st);
}

/*
 * Line i of test_lines_many_hosts: host h<i % NH>, every other line a klog line (pid, severity,
 * klog time, location) and the others plain text with neither: the insert keeps its bindings
 * from line to line (index-logs.c, logs_put_*), so a value a line lacks must be NULL again.
 */
static size_t many_hosts_line(char *buf, size_t cap, int i, int nh)
{
	int n = i % 2 == 0 ? snprintf(buf, cap,
				      "2024-04-05T05:50:00.%06d+00:00 h%d kubelet[%d]: E0405"
				      " 05:50:00.%06d %d a.go:%d] \"m%d\"\n",
				      i, i % nh, 100 + i % 7, i, 100 + i % 7, i % 5, i)
			   : snprintf(buf, cap, "2024-04-05T05:50:00.%06d+00:00 h%d kubelet: m%d\n",
				      i, i % nh, i);

	assert_true(n > 0 && (size_t)n < cap);
	return (size_t)n;
}

/*
 * More hosts than a load remembers having noted (index-logs.c: LOGS_NOTED_SLOTS / 2), each
 * seen twice: every one is in the hosts table once, its lines under it, and every line's
 * columns are its own, whatever the line before had.
 */
static void test_lines_many_hosts(void **state)
{
	enum { NH = 8300, N = 2 * NH };
	char dir[PATH_SIZE], klog[PATH_SIZE], line[256];
	struct lt_ingest_totals t = {0};
	struct lt_buf b;
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "lines-many-hosts");
	lt_buf_init(&b);
	for (int i = 0; i < N; i++)
		lt_buf_append(&b, line, many_hosts_line(line, sizeof line, i, NH));
	path_join(klog, dir, "kubelet.log");
	write_bytes(klog, b.ptr, b.len, "wb");
	lt_buf_release(&b);
	st = open_store(dir);
	expect_counts(ingest_ok(st, klog, &s, &t), N, N, 0, 0, 0);
	expect_rows(st, "SELECT count(*), count(DISTINCT node_id) FROM hosts", NULL, "8300|8300\n");
	expect_rows(st,
		    "SELECT count(*) FROM logs WHERE host != 'h' || ((id - 1) % 8300)"
		    " OR node IS NOT host OR message != 'm' || (id - 1)",
		    NULL, "0\n");
	/* a klog line: pid, severity, location, klog time; a plain line: none of them */
	expect_rows(st,
		    "SELECT count(*) FROM logs WHERE CASE id % 2 WHEN 1 THEN"
		    " pid IS NOT 100 + (id - 1) % 7 OR severity IS NOT 'E'"
		    " OR location IS NOT 'a.go:' || ((id - 1) % 5) OR klog_us IS NOT ts_us"
		    " ELSE pid IS NOT NULL OR severity IS NOT NULL OR location IS NOT NULL"
		    " OR klog_us IS NOT NULL END",
		    NULL, "0\n");
	close_store(st);
}

/*
 * Line i of test_raw_junk: a kubelet line whose message holds bytes of every value but NUL
 * and newline (control bytes rarer), invalid UTF-8 among them.
 */
static size_t junk_line(char *buf, size_t cap, int i)
{
	int n = snprintf(buf, cap,
			 "2024-04-05T05:50:%02d.%06d+00:00 n1 kubelet[1]: E0405 05:50:%02d.%06d 1"
			 " a.go:1] junk %d ",
			 i / 1000 % 60, i % 1000, i / 1000 % 60, i % 1000, i);
	size_t len;

	assert_true(n > 0 && (size_t)n + 300 < cap);
	len = (size_t)n;
	for (int k = 0; k < 40 + i % 200; k++) {
		unsigned char c = (unsigned char)(1 + (i * 31 + k * 7) % 255);

		if (c < 0x20 && k % 8 != 0) /* control bytes rare: a file of many is not text */
			c |= 0x40;
		buf[len++] = (char)(c == '\n' ? 0xc3 : c);
	}
	buf[len++] = '.'; /* a CR before the newline would end the line as CRLF */
	buf[len++] = '\n';
	return len;
}

/*
 * Records the parsers accept with bytes of every value but NUL (invalid UTF-8, control
 * bytes): show gives each back byte for byte from its block, wherever it lies in it; an
 * event repeated in a file is a duplicate, whose id never enters a block.
 */
static void test_raw_junk(void **state)
{
	enum { N = 3000 };
	char dir[PATH_SIZE], klog[PATH_SIZE], audit[PATH_SIZE], line[512];
	struct lt_ingest_totals t = {0};
	struct lt_buf b;
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "raw-junk");
	lt_buf_init(&b);
	for (int i = 0; i < N; i++)
		lt_buf_append(&b, line, junk_line(line, sizeof line, i));
	path_join(klog, dir, "kubelet.log");
	write_bytes(klog, b.ptr, b.len, "wb");
	lt_buf_release(&b);
	lt_buf_init(&b);
	lt_buf_printf(&b, "%s\n%s\n%s\n%s\n", EV_META, EV_NODE, EV_META, EV_BODY);
	write_file(audit, dir, "audit.log", b.ptr);
	lt_buf_release(&b);
	st = open_store(dir);
	expect_counts(ingest_ok(st, klog, &s, &t), N, N, 0, 0, 0);
	memset(&s, 0, sizeof s);
	expect_counts(ingest_ok(st, audit, &s, &t), 4, 3, 1, 0, 0);
	expect_raw_file(st, klog, "lines_raw", "text");
	for (int i = 0; i < N; i++) {
		size_t n = junk_line(line, sizeof line, i);

		if (!shows(st, 0, i + 1, line, n - 1))
			fail_msg("line %d is not shown byte for byte", i + 1);
	}
	expect_rows(st, "SELECT group_concat(a.id) FROM audit AS a", NULL, "1,2,3\n");
	assert_true(shows(st, 1, 1, EV_META, strlen(EV_META)));
	assert_true(shows(st, 1, 2, EV_NODE, strlen(EV_NODE)));
	assert_true(shows(st, 1, 3, EV_BODY, strlen(EV_BODY)));
	assert_true(raw_of_is(st, "audit", 4, NULL, 0));
	close_store(st);
}

/*
 * Schema 8 to 11: a store of 8 holds the lines' dedupe keys in lines.lkey under the unique
 * index lines_key.  A read-only open refuses it; a writable one drops the index (schema 11
 * keeps no key); the logs view reads the same, and the lines read again from an overlapping
 * file are found duplicates (a kubelet's repeat in one second kept).
 */
static void test_schema_upgrade_9_keys(void **state)
{
	static const char *const to8[] = {
	    TO8_KEYS,
	    "UPDATE meta SET value = '8' WHERE key = 'schema'",
	};
	char dir[PATH_SIZE], k1[PATH_SIZE], k2[PATH_SIZE], *want;
	struct lt_ingest_totals t = {0};
	struct lt_store *st;
	struct seen s;

	(void)state;
	case_dir(dir, "schema-upgrade-9");
	write_file(k1, dir, "k1.log", SKEWED("kept") SKEWED("kept") ESCAPED("a"));
	write_file(k2, dir, "k2.log", SKEWED("kept") SKEWED("kept") ESCAPED("a") SKEWED("new"));
	st = open_store(dir);
	expect_counts(ingest_ok(st, k1, &s, &t), 3, 3, 0, 0, 0);
	want = q_rows(st, "SELECT * FROM logs ORDER BY id", NULL);
	st = reopen_downgraded(st, dir, to8, sizeof to8 / sizeof *to8, "schema 8");
	expect_rows(
	    st,
	    "SELECT (SELECT value FROM meta WHERE key = 'schema'),"
	    " (SELECT count(*) FROM sqlite_master WHERE name IN ('lines_key', 'line_keys'))",
	    NULL, "13|0\n");
	expect_rows(st, "SELECT * FROM logs ORDER BY id", NULL, want);
	free(want);
	memset(&s, 0, sizeof s);
	expect_counts(ingest_ok(st, k2, &s, &t), 4, 1, 3, 0, 0);
	expect_rows(st,
		    "SELECT g.id, (SELECT message FROM logs AS v WHERE v.id = g.id) FROM lines AS g"
		    " ORDER BY g.id",
		    NULL, "1|kept\n2|kept\n3|say \"a\"\n4|new\n");
	close_store(st);
}

/*
 * Schema 8 to 9: a store of 8 keeps the requests it counted by auditID (a UUID packed, any
 * other as text); 9 keeps an 8-byte hash of the auditID's text.  A writable open hashes the
 * rows it holds as a new insert hashes them, so a counted request read again after the
 * upgrade (a UUID, and a client's own auditID) counts once; a new one counts.  The hash is
 * the auditID's, whether it was stored packed or as text (lt_audit_id_hash).  A store of 8
 * keeps each event's received_us; 9 stores its latency instead (received_us NULL): the
 * events view reads both the same, before and after the upgrade, old rows and new.
 */
static void test_schema_upgrade_9_counted(void **state)
{
	static const char *const to8[] = {
	    TO8_AUDIT("CASE audit_hash WHEN lt_audit_id_hash('" UUID_P1 "') THEN"
		      " lt_audit_id_pack('" UUID_P1 "') ELSE 'Not-A-UUID-o9' END"),
	    TO9_FIELDS,
	    "UPDATE meta SET value = '8' WHERE key = 'schema'",
	};
	char dir[PATH_SIZE], a[PATH_SIZE], b[PATH_SIZE], *want;
	struct lt_ingest_totals t = {0};
	struct lt_store *st;
	struct seen s;

	(void)state;
	case_dir(dir, "schema-upgrade-9");
	write_file(a, dir, "a.log",
		   EV_META "\n" OTHER(UUID_P1, OBJREF("pods"), "get") "\n" OTHER(
		       "Not-A-UUID-o9", OBJREF("pods"), "list") "\n");
	write_file(b, dir, "b.log",
		   EV_META "\n" EV_BODY "\n" LEASE("lat0", DONE, "") "\n" OTHER(
		       UUID_P1, OBJREF("pods"),
		       "get") "\n" OTHER("Not-A-UUID-o9", OBJREF("pods"),
					 "list") "\n" OTHER("Not-A-UUID-o10", OBJREF("pods"),
							    "list") "\n");
	st = open_store(dir);
	expect_counts(ingest_ok(st, a, &s, &t), 3, 1, 0, 2, 0);
	expect_rows(st,
		    "SELECT typeof(audit_hash), audit_hash = lt_audit_id_hash(x)"
		    " FROM counted_requests JOIN (SELECT '" UUID_P1 "' AS x UNION ALL"
		    " SELECT 'Not-A-UUID-o9') ON audit_hash = lt_audit_id_hash(x)",
		    NULL, "integer|1\ninteger|1\n");
	want = q_rows(st, "SELECT * FROM events ORDER BY id", NULL);
	st = reopen_downgraded(st, dir, to8, sizeof to8 / sizeof *to8, "schema 8");
	expect_rows(st,
		    "SELECT (SELECT value FROM meta WHERE key = 'schema'),"
		    " (SELECT group_concat(typeof(audit_hash)) FROM counted_requests),"
		    " (SELECT count(*) FROM pragma_table_info('counted_requests')"
		    "  WHERE name = 'audit_id'),"
		    " (SELECT count(*) FROM sqlite_master WHERE name = 'counted_8')",
		    NULL, "13|integer,integer|0|0\n");
	expect_rows(st, "SELECT count(received_us), count(latency_us) FROM audit", NULL, "1|0\n");
	expect_rows(st, "SELECT * FROM events ORDER BY id", NULL, want);
	free(want);
	memset(&s, 0, sizeof s);
	expect_counts(ingest_ok(st, b, &s, &t), 6, 2, 1, 3, 0);
	expect_rows(
	    st,
	    "SELECT received_us IS NULL, latency_us, (SELECT received_us || ' ' || latency_us"
	    " FROM events AS v WHERE v.id = a.id) FROM audit AS a ORDER BY id",
	    NULL,
	    "0|NULL|1712297054660001 8221\n1|10400|1712297064120000 10400\n"
	    "1|0|1712297054668822 0\n");
	expect_rows(st, "SELECT resource, verb, sum(count) FROM resource_counts GROUP BY 1, 2",
		    NULL, "pods|get|1\npods|list|2\n");
	expect_rows(st,
		    "SELECT lt_audit_id_hash(lt_audit_id_pack('" UUID_P1 "')) ="
		    " lt_audit_id_hash('" UUID_P1 "'), lt_audit_id_hash('" UUID_P1 "') ="
		    " lt_audit_id_hash(upper('" UUID_P1 "')), lt_audit_id_hash(NULL) IS NULL",
		    NULL, "1|0|1\n");
	close_store(st);
}

/*
 * The writer lock is per process: a second writable open of one store in the
 * same process (no other writer) opens at once, and a third after both closed.
 */
static void test_writer_lock_in_process(void **state)
{
	char dir[PATH_SIZE], log[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct lt_store *a, *b;
	struct seen s;

	(void)state;
	case_dir(dir, "writer-lock");
	write_file(log, dir, "audit.log", LEASE("wl1", DONE, "") "\n");
	a = open_store(dir);
	b = open_store(dir);
	ingest_ok(b, log, &s, &t);
	close_store(b);
	close_store(a);
	a = open_store(dir);
	expect_rows(a, "SELECT audit_id FROM events", NULL, "wl1\n");
	close_store(a);
}

/* An event's raw JSON and where it came from, and a clear miss for an unknown id. */
static void test_event_origin(void **state)
{
	char dir[PATH_SIZE], log[PATH_SIZE];
	struct lt_ingest_totals t = {0};
	struct lt_event_origin o;
	struct lt_error err = {0};
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "origin");
	write_file(log, dir, "audit.log", EV_META "\n" EV_NODE "\n" EV_BODY "\n");
	st = open_store(dir);
	ingest_ok(st, log, &s, &t);

	lt_buf_init(&o.raw);
	lt_buf_init(&o.file);
	assert_int_equal(lt_store_event_origin(st, 3, &o, &err), 0);
	assert_int_equal(o.raw.len, strlen(EV_BODY));
	assert_memory_equal(o.raw.ptr, EV_BODY, o.raw.len);
	assert_string_equal(o.file.ptr, log);
	assert_int_equal(o.line, 3);
	assert_int_equal(o.offset, strlen(EV_META) + strlen(EV_NODE) + 2);
	lt_buf_release(&o.raw);
	lt_buf_release(&o.file);

	lt_buf_init(&o.raw);
	lt_buf_init(&o.file);
	assert_int_equal(lt_store_event_origin(st, 999, &o, &err), LT_ERR_NOTFOUND);
	assert_non_null(strstr(err.msg, "no event with id 999"));
	assert_int_equal(o.raw.len, 0);
	assert_int_equal(o.file.len, 0);
	lt_buf_release(&o.raw);
	lt_buf_release(&o.file);
	close_store(st);
}

/*
 * Counting is bounded: past LOAD_MAX_COUNT_KEYS (4096) distinct resource+verb
 * keys in a batch, further keys are counted together as "(other)".
 */
static void test_count_keys_capped(void **state)
{
	enum { KEYS = 4100, CAP = 4096 };
	char dir[PATH_SIZE], path[PATH_SIZE], want[64];
	struct lt_ingest_totals t = {0};
	struct lt_buf b;
	struct seen s;
	struct lt_store *st;

	(void)state;
	case_dir(dir, "count-cap");
	lt_buf_init(&b);
	for (int i = 0; i < KEYS; i++)
		lt_buf_printf(&b,
			      "{\"kind\":\"Event\",\"auditID\":\"k%d\",\"verb\":\"get\","
			      "\"objectRef\":{\"resource\":\"crd%05d\"},"
			      "\"stageTimestamp\":\"2024-04-05T06:04:14Z\"}\n",
			      i, i);
	path_join(path, dir, "audit.log");
	write_bytes(path, b.ptr, b.len, "wb");
	lt_buf_release(&b);
	st = open_store(dir);
	expect_counts(ingest_ok(st, path, &s, &t), KEYS, 0, 0, KEYS, 0);
	snprintf(want, sizeof want, "%d|%d|%d\n", CAP + 1, KEYS, KEYS - CAP);
	expect_rows(st,
		    "SELECT count(*), sum(count),"
		    " (SELECT count FROM resource_counts WHERE resource = '(other)')"
		    " FROM resource_counts",
		    NULL, want);
	close_store(st);
}

/*
 * Derived tables registered from above (struct lt_derived): their schema runs
 * on a writable open, the record of how far they cover commits with them,
 * a newer version is refused untouched, and the overlay is TEMP.
 */
static void test_derived_registration(void **unused)
{
	static const char *const schema[] = {
	    "CREATE TABLE IF NOT EXISTS x_rows(id INTEGER PRIMARY KEY, v INTEGER)",
	    "DROP VIEW IF EXISTS x", "CREATE VIEW IF NOT EXISTS x AS SELECT v FROM x_rows", NULL};
	static const char *const overlay[] = {
	    "CREATE TEMP TABLE IF NOT EXISTS x_rows(id INTEGER PRIMARY KEY, v INTEGER)", NULL};
	const struct lt_derived d = {
	    .name = "x", .version = 2, .schema = schema, .overlay = overlay};
	const struct lt_derived old = {.name = "x", .version = 1, .schema = schema};
	struct lt_derived_state state, covers = {.event_id = 7, .line_id = 9};
	struct lt_error err = {0};
	char dir[PATH_SIZE];
	struct lt_store *st;

	(void)unused;
	case_dir(dir, "derived");
	st = open_store(dir);
	assert_int_equal(lt_store_derive(st, &d, &state, &err), 0);
	assert_int_equal(state.known, 0);
	expect_rows(st, "SELECT count(*) FROM x", NULL, "0\n");
	/* the record and the rows commit together, or not at all */
	expect_rows(st, "BEGIN", NULL, "");
	expect_rows(st, "INSERT INTO x_rows(v) VALUES(1)", NULL, "");
	assert_int_equal(lt_store_derived_mark(st, &d, &covers, &err), 0);
	expect_rows(st, "ROLLBACK", NULL, "");
	lt_store_derived_state(st, "x", &state);
	assert_int_equal(state.known, 0);
	expect_rows(st, "INSERT INTO x_rows(v) VALUES(1)", NULL, "");
	assert_int_equal(lt_store_derived_mark(st, &d, &covers, &err), 0);
	lt_store_derived_state(st, "x", &state);
	assert_true(state.known && state.version == 2 && state.event_id == 7 && state.line_id == 9);
	/* an older binary's registration: refused, nothing run */
	assert_int_equal(lt_store_derive(st, &old, &state, &err), LT_ERR_DB);
	assert_non_null(
	    strstr(err.msg, "built by a newer leasetrail (version 2, this one knows 1)"));
	/* the overlay shadows the table for this connection only */
	assert_int_equal(lt_store_derive_overlay(st, &d, &err), 0);
	expect_rows(st, "SELECT count(*) FROM x_rows", NULL, "0\n");
	expect_rows(st, "SELECT count(*) FROM main.x_rows", NULL, "1\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_every_field, teardown),
	    cmocka_unit_test_teardown(test_schema_versions, teardown),
	    cmocka_unit_test_teardown(test_schema_upgrade, teardown),
	    cmocka_unit_test_teardown(test_schema_upgrade_raw, teardown),
	    cmocka_unit_test_teardown(test_raw_compressed, teardown),
	    cmocka_unit_test_teardown(test_raw_coded, teardown),
	    cmocka_unit_test_teardown(test_schema_upgrade_identity, teardown),
	    cmocka_unit_test_teardown(test_schema_upgrade_7, teardown),
	    cmocka_unit_test_teardown(test_schema_upgrade_8, teardown),
	    cmocka_unit_test_teardown(test_schema_upgrade_9_blocks, teardown),
	    cmocka_unit_test_teardown(test_schema_upgrade_9_keys, teardown),
	    cmocka_unit_test_teardown(test_schema_upgrade_10_asize, teardown),
	    cmocka_unit_test_teardown(test_writer_lock_in_process, teardown),
	    cmocka_unit_test_teardown(test_lease_from_request, teardown),
	    cmocka_unit_test_teardown(test_other_resources, teardown),
	    cmocka_unit_test_teardown(test_reingest_is_noop, teardown),
	    cmocka_unit_test_teardown(test_intern_insert_first, teardown),
	    cmocka_unit_test_teardown(test_intern_batch, teardown),
	    cmocka_unit_test_teardown(test_grown_into_not_log, teardown),
	    cmocka_unit_test_teardown(test_far_future_lines, teardown),
	    cmocka_unit_test_teardown(test_dedupe_across_files, teardown),
	    cmocka_unit_test_teardown(test_stages, teardown),
	    cmocka_unit_test_teardown(test_key_clash, teardown),
	    cmocka_unit_test_teardown(test_rejects, teardown),
	    cmocka_unit_test_teardown(test_reject_rows_capped, teardown),
	    cmocka_unit_test_teardown(test_gzip, teardown),
	    cmocka_unit_test_teardown(test_gzip_truncated, teardown),
	    cmocka_unit_test_teardown(test_gzip_truncated_small, teardown),
	    cmocka_unit_test_teardown(test_directory_not_logs, teardown),
	    cmocka_unit_test_teardown(test_bad_paths, teardown),
	    cmocka_unit_test_teardown(test_open_refuses_foreign, teardown),
	    cmocka_unit_test_teardown(test_derived_registration, teardown),
	    cmocka_unit_test_teardown(test_readonly_store, teardown),
	    cmocka_unit_test_teardown(test_ingest_end_beside, teardown),
	    cmocka_unit_test_teardown(test_event_origin, teardown),
	    cmocka_unit_test_teardown(test_raw_blocks, teardown),
	    cmocka_unit_test_teardown(test_raw_blocks_in_flight, teardown),
	    cmocka_unit_test_teardown(test_raw_blocks_fit, teardown),
	    cmocka_unit_test_teardown(test_raw_junk, teardown),
	    cmocka_unit_test_teardown(test_schema_upgrade_9_counted, teardown),
	    cmocka_unit_test_teardown(test_count_keys_capped, teardown),
	    cmocka_unit_test_teardown(test_fields_decoder, teardown),
	    cmocka_unit_test_teardown(test_pipe_fields_verdict, teardown),
	    cmocka_unit_test_teardown(test_schema_upgrade_10_jsize, teardown),
	    cmocka_unit_test_teardown(test_schema_upgrade_11_jsize2, teardown),
	    cmocka_unit_test_teardown(test_schema_upgrade_12_jsize3, teardown),
	    cmocka_unit_test_teardown(test_schema_upgrade_13_jsize4, teardown),
	    cmocka_unit_test_teardown(test_dedupe_lines_one_ingest, teardown),
	    cmocka_unit_test_teardown(test_lines_mapped_host, teardown),
	    cmocka_unit_test_teardown(test_lines_many_hosts, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
