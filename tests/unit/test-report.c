/*
 * test-report.c - the incident report's pure parts: sentences from findings
 * (one by one, many at once, in time order, none), escaping for HTML and
 * Markdown, the SVG writer's text, and the heartbeat strip's buckets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "queries-report.h"

#define T0   1712296500000000LL /* 2024-04-05T05:55:00Z */
#define S(x) ((int64_t)((x)*1000000.0))

static char *say_one(const struct report_finding *f)
{
	struct lt_buf b;

	lt_buf_init(&b);
	queries_report_say_one(&b, f);
	return lt_buf_detach(&b);
}

/* One finding of each kind, and the sentence it makes. */
static void test_report_say_one(void **state)
{
	static const struct {
		struct report_finding f;
		const char *want;
	} cases[] = {
	    {{.kind = REPORT_NODE_DELETED,
	      .ts = T0,
	      .code = 200,
	      .subject = (char *)"n1",
	      .object = (char *)"node n1",
	      .actor = (char *)"kubernetes-admin",
	      .what = (char *)"203.0.113.9",
	      .dur_us = -1},
	     "Node n1 was deleted at 2024-04-05T05:55:00Z by kubernetes-admin (from 203.0.113.9)."},
	    {{.kind = REPORT_NODE_DELETED,
	      .ts = T0,
	      .code = 403,
	      .subject = (char *)"n1",
	      .object = (char *)"node n1",
	      .actor = (char *)"bob",
	      .dur_us = -1},
	     "bob tried to delete node n1 at 2024-04-05T05:55:00Z: refused (403)."},
	    {{.kind = REPORT_LEASE_DELETED,
	      .ts = T0,
	      .code = 200,
	      .subject = (char *)"n2",
	      .object = (char *)"lease kube-node-lease/n2",
	      .dur_us = -1},
	     "Lease kube-node-lease/n2 was deleted at 2024-04-05T05:55:00Z by an unknown user."},
	    {{.kind = REPORT_GC_DELETE,
	      .ts = T0 + S(0.032),
	      .ts2 = T0,
	      .dur_us = S(0.032),
	      .subject = (char *)"n1",
	      .object = (char *)"lease kube-node-lease/n1",
	      .actor = (char *)"admin"},
	     "The garbage collector deleted lease kube-node-lease/n1 at 2024-04-05T05:55:00Z, 32ms"
	     " after its node was deleted by admin."},
	    {{.kind = REPORT_GC_DELETE,
	      .ts = T0,
	      .dur_us = -1,
	      .subject = (char *)"n1",
	      .object = (char *)"lease kube-node-lease/n1"},
	     "The garbage collector deleted lease kube-node-lease/n1 at 2024-04-05T05:55:00Z (the"
	     " node's deletion behind it is not in the logs)."},
	    {{.kind = REPORT_ORPHANED,
	      .ts = T0,
	      .end_us = T0 + S(60),
	      .count = 7,
	      .again = 1,
	      .subject = (char *)"n1",
	      .object = (char *)"node n1",
	      .dur_us = -1},
	     "The kubelet of n1 went on after its node was deleted: 7 requests answered 404 from"
	     " 2024-04-05T05:55:00Z to 2024-04-05T05:56:00Z; still orphaned at the end of the "
	     "logs."},
	    {{.kind = REPORT_REGISTERED,
	      .ts = T0 + S(360),
	      .ts2 = T0,
	      .code = 201,
	      .subject = (char *)"n1",
	      .object = (char *)"node n1",
	      .actor = (char *)"system:node:n1",
	      .what = (char *)"registered",
	      .dur_us = -1},
	     "Node n1 registered again at 2024-04-05T06:01:00Z (by system:node:n1), 6m0s after it"
	     " was deleted."},
	    {{.kind = REPORT_REGISTERED,
	      .ts = T0,
	      .code = 403,
	      .subject = (char *)"n1",
	      .object = (char *)"node n1",
	      .actor = (char *)"system:node:n1",
	      .what = (char *)"failed",
	      .dur_us = -1},
	     "Node n1 did not register at 2024-04-05T05:55:00Z (system:node:n1): failed."},
	    {{.kind = REPORT_RECREATED,
	      .ts = T0,
	      .dur_us = S(8.8),
	      .subject = (char *)"n2",
	      .object = (char *)"lease kube-node-lease/n2",
	      .actor = (char *)"system:node:n2",
	      .more = (char *)"admin"},
	     "Lease kube-node-lease/n2 was created again at 2024-04-05T05:55:00Z by system:node:n2,"
	     " 8.8s after it was gone (removed by admin)."},
	    {{.kind = REPORT_NOT_READY,
	      .ts = T0,
	      .end_us = T0 + S(150),
	      .dur_us = S(150),
	      .subject = (char *)"n3",
	      .object = (char *)"node n3",
	      .what = (char *)"network-partition",
	      .more = (char *)"recovered"},
	     "Node n3 was NotReady for 2m30s from 2024-04-05T05:55:00Z, cause network-partition;"
	     " recovered."},
	    {{.kind = REPORT_NOT_READY,
	      .ts = T0,
	      .dur_us = S(60),
	      .subject = (char *)"n3",
	      .object = (char *)"node n3",
	      .what = (char *)"kubelet-stopped",
	      .more = (char *)"open"},
	     "Node n3 was NotReady from 2024-04-05T05:55:00Z to the end of the logs (1m0s), cause"
	     " kubelet-stopped."},
	    {{.kind = REPORT_LEADER_CHANGE,
	      .ts = T0,
	      .subject = (char *)"kube-system/kcm",
	      .object = (char *)"lease kube-system/kcm",
	      .what = (char *)"a",
	      .more = (char *)"b",
	      .dur_us = -1},
	     "The holder of lease kube-system/kcm changed from a to b at 2024-04-05T05:55:00Z."},
	    {{.kind = REPORT_AUTH_FAILURE,
	      .ts = T0,
	      .end_us = T0 + S(20),
	      .count = 3,
	      .subject = (char *)"n4",
	      .object = (char *)"lease kube-node-lease/n4",
	      .actor = (char *)"system:node:n4",
	      .what = (char *)"expired certificate",
	      .dur_us = -1},
	     "3 requests of system:node:n4 on lease kube-node-lease/n4 were refused from"
	     " 2024-04-05T05:55:00Z to 2024-04-05T05:55:20Z: expired certificate."},
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *got = say_one(&cases[i].f);

		assert_string_equal(got, cases[i].want);
		free(got);
	}
}

static void said_free(char **said, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(said[i]);
	free(said);
}

/* A few of a kind are told one by one, in time order across kinds. */
static void test_report_say_order(void **state)
{
	const struct report_finding f[] = {
	    {.kind = REPORT_NODE_DELETED,
	     .ts = T0 + S(10),
	     .code = 200,
	     .subject = (char *)"n1",
	     .object = (char *)"node n1",
	     .actor = (char *)"admin",
	     .dur_us = -1},
	    {.kind = REPORT_LEASE_DELETED,
	     .ts = T0,
	     .code = 200,
	     .subject = (char *)"n2",
	     .object = (char *)"lease kube-node-lease/n2",
	     .actor = (char *)"admin",
	     .dur_us = -1},
	};
	char **said;
	size_t n = queries_report_say(&said, f, 2);

	(void)state;
	assert_int_equal(n, 2);
	assert_string_equal(said[0], "Lease kube-node-lease/n2 was deleted at 2024-04-05T05:55:00Z"
				     " by admin.");
	assert_string_equal(said[1], "Node n1 was deleted at 2024-04-05T05:55:10Z by admin.");
	said_free(said, n);
}

/* Many of a kind make one sentence: how many, when, on what, why, and the worst one. */
static void test_report_say_many(void **state)
{
	static const char *const nodes[] = {"n1", "n2", "n1", "n3", "n4"};
	static const char *const causes[] = {"pleg-unhealthy", "kubelet-stopped", "pleg-unhealthy",
					     "cni-not-ready", "node-rebooted"};
	struct report_finding f[5];
	char **said;
	size_t n;

	(void)state;
	for (int i = 0; i < 5; i++)
		f[i] = (struct report_finding){.kind = REPORT_NOT_READY,
					       .ts = T0 + S(60 * i),
					       .end_us = T0 + S(60 * i + 10 + i),
					       .dur_us = S(10 + i),
					       .subject = (char *)nodes[i],
					       .object = (char *)nodes[i],
					       .what = (char *)causes[i],
					       .more = (char *)"recovered"};
	f[3].dur_us = S(300); /* the longest */
	f[3].end_us = f[3].ts + S(300);
	n = queries_report_say(&said, f, 5);
	assert_int_equal(n, 1);
	assert_string_equal(
	    said[0], "5 NotReady windows between 2024-04-05T05:55:00Z and 2024-04-05T05:59:00Z,"
		     " on n1 (2), n2, n3 and 1 more; causes pleg-unhealthy (2), kubelet-stopped,"
		     " cni-not-ready and 1 more. The longest: Node n3 was NotReady for 5m0s from"
		     " 2024-04-05T05:58:00Z, cause cni-not-ready; recovered.");
	said_free(said, n);
	/* exactly REPORT_SAY_EACH: one sentence each */
	n = queries_report_say(&said, f, REPORT_SAY_EACH);
	assert_int_equal(n, REPORT_SAY_EACH);
	said_free(said, n);
}

static void test_report_say_nothing(void **state)
{
	char **said;
	size_t n = queries_report_say(&said, NULL, 0);

	(void)state;
	assert_int_equal(n, 1);
	assert_non_null(strstr(said[0], "Nothing to report"));
	said_free(said, n);
}

static char *html(const char *s, size_t len)
{
	struct lt_buf b;

	lt_buf_init(&b);
	queries_html_escape(&b, s, len);
	return lt_buf_detach(&b);
}

static char *md(const char *s, size_t len)
{
	struct lt_buf b;

	lt_buf_init(&b);
	queries_md_escape(&b, s, len);
	return lt_buf_detach(&b);
}

/* Markup, attributes, url(, control bytes, bidi marks and bad UTF-8: nothing left to act on. */
static void test_report_escape(void **state)
{
	static const char hostile[] = "<script>alert('x')</script> a=\"b\" url(http://e) `t` &amp;"
				      "\x1b[31m\xe2\x80\xae\xff|*_[x](javascript:y)#!~+{}\\é";
	char *h = html(hostile, sizeof hostile - 1), *m = md(hostile, sizeof hostile - 1);

	(void)state;
	assert_string_equal(
	    h,
	    "&lt;script&gt;alert&#40;&#39;x&#39;)&lt;/script&gt; a&#61;&quot;b&quot; url&#40;"
	    "http://e) &#96;t&#96; &amp;amp;\\x1b[31m\\u{202e}\\xff|*_[x]&#40;javascript:y)#!~+{}"
	    "\\é");
	assert_null(strchr(h, '<'));
	assert_null(strstr(h, "url("));
	assert_string_equal(
	    m, "\\<script\\>alert\\('x'\\)\\</script\\> a=\"b\" url\\(http://e\\) \\`t\\` \\&amp;"
	       "\\\\x1b\\[31m\\\\u\\{202e\\}\\\\xff\\|\\*\\_\\[x\\]\\(javascript:y\\)\\#\\!\\~\\+"
	       "\\{\\}\\\\é");
	free(h);
	free(m);
	/* a NUL inside a value: kept visible, never the end of the text */
	h = html("a\0<b", 4);
	assert_string_equal(h, "a\\x00&lt;b");
	free(h);
}

/* The SVG writer escapes labels and tooltips, and writes no script, link or url(. */
static void test_report_svg_text(void **state)
{
	struct lt_buf b;
	struct svg s;

	(void)state;
	lt_buf_init(&b);
	queries_svg_begin(&s, &b, 100, 50, "<b>label</b>");
	queries_svg_rect(&s, 1, 2, 3, 4, "#22c55e", "node <x onload=alert(1)>");
	queries_svg_text(&s, 5, 6, 11, "start", "#111827", "url(http://e)");
	queries_svg_end(&s);
	assert_non_null(strstr(b.ptr, "<title>&lt;b&gt;label&lt;/b&gt;</title>"));
	assert_non_null(strstr(b.ptr, "<title>node &lt;x onload&#61;alert&#40;1)&gt;</title>"));
	assert_non_null(strstr(b.ptr, ">url&#40;http://e)</text>"));
	assert_null(strstr(b.ptr, "url("));
	assert_null(strstr(b.ptr, "<script"));
	assert_int_equal(strncmp(b.ptr, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39), 0);
	assert_non_null(strstr(b.ptr, "</svg>\n"));
	lt_buf_release(&b);
}

/* Buckets: the strongest cell wins; a deleted lease is gone until its next episode. */
static void test_report_bucket(void **state)
{
	const struct lt_browse_episode eps[] = {
	    {.kind = LT_EP_RENEWING, .start_us = S(0), .end_us = S(40)},
	    {.kind = LT_EP_GAP, .start_us = S(40), .end_us = S(50)},
	    {.kind = LT_EP_DELETED, .start_us = S(50), .end_us = S(50)},
	    {.kind = LT_EP_NOT_FOUND, .start_us = S(70), .end_us = S(75)},
	    {.kind = LT_EP_RECREATED, .start_us = S(80), .end_us = S(80)},
	    {.kind = LT_EP_RENEWING, .start_us = S(80), .end_us = S(100)},
	};
	unsigned char cells[10];
	char got[11];

	(void)state;
	queries_report_bucket(cells, 10, S(0), S(100), eps, sizeof eps / sizeof *eps);
	for (int i = 0; i < 10; i++)
		got[i] = queries_report_cell_symbol(cells[i]);
	got[10] = '\0';
	assert_string_equal(got, "====~D-x==");
	assert_int_equal(queries_report_cell(LT_EP_NOT_READY), REPORT_C_NOT_READY);
	assert_string_equal(queries_report_cell_name(REPORT_C_404), "404");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_report_say_one),  cmocka_unit_test(test_report_say_order),
	    cmocka_unit_test(test_report_say_many), cmocka_unit_test(test_report_say_nothing),
	    cmocka_unit_test(test_report_escape),   cmocka_unit_test(test_report_svg_text),
	    cmocka_unit_test(test_report_bucket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
