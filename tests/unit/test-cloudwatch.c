/*
 * test-cloudwatch.c - CloudWatch Logs exports: the framer on their envelopes,
 * the record decoder, the Logs Insights CSV reader, and the Logs Insights
 * form of every canned query (checked against the documented grammar).
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
#include "lt_queries.h"
#include "test-cwli-check.h"
#include "test-files.h"

#define CW_DIR	 LT_TEST_CORPUS "/cloudwatch/"
#define MAX_SEEN 256

/* ---- what a run saw ------------------------------------------------------ */

struct seen {
	int nrec, nrej, nnone;
	enum parser_cw_shape shape[MAX_SEEN];
	int64_t ts[MAX_SEEN];
	char msg[MAX_SEEN][256]; /* the first bytes */
	size_t msg_len[MAX_SEEN];
	char stream[MAX_SEEN][96]; /* "-" when absent */
	char id[MAX_SEEN][160];	   /* "-" when absent */
	char group[MAX_SEEN][64];  /* @log / logGroupName, "-" when absent */
	uint64_t line[MAX_SEEN];
	char reason[MAX_SEEN][200];
	uint64_t rej_line[MAX_SEEN];
	struct lt_buf digest; /* every record and reject, for comparing runs */
	struct parser_cw_decoder *dec;
};

static struct seen *seen_new(void)
{
	struct seen *s = calloc(1, sizeof *s);

	assert_non_null(s);
	lt_buf_init(&s->digest);
	s->dec = parser_cw_decoder_new();
	return s;
}

static void seen_clear(struct seen *s)
{
	struct lt_buf d = s->digest;
	struct parser_cw_decoder *dec = s->dec;

	memset(s, 0, sizeof *s);
	lt_buf_reset(&d);
	s->digest = d;
	s->dec = dec;
}

static void seen_free(struct seen *s)
{
	parser_cw_decoder_free(s->dec);
	lt_buf_release(&s->digest);
	free(s);
}

static void copy_opt(char *dst, size_t size, struct lt_str v)
{
	if (v.ptr == NULL)
		snprintf(dst, size, "-");
	else
		snprintf(dst, size, "%.*s", (int)v.len, v.ptr);
}

/* Keeps a decoded record (from the JSON decoder or the CSV reader). */
static int seen_record(struct seen *s, enum parser_cw_shape shape, const struct parser_cw_record *r,
		       uint64_t line)
{
	int i = s->nrec++;

	assert_true(i < MAX_SEEN);
	assert_non_null(r->message.ptr);
	assert_int_equal(r->message.ptr[r->message.len], '\0');
	s->shape[i] = shape;
	s->ts[i] = r->ts_us;
	copy_opt(s->msg[i], sizeof s->msg[i], r->message);
	s->msg_len[i] = r->message.len;
	copy_opt(s->stream[i], sizeof s->stream[i], r->stream);
	copy_opt(s->id[i], sizeof s->id[i], r->ext_id);
	copy_opt(s->group[i], sizeof s->group[i], r->group);
	s->line[i] = line;
	lt_buf_printf(&s->digest, "R%llu|%lld|%s|%s|", (unsigned long long)line,
		      (long long)r->ts_us, s->stream[i], s->id[i]);
	lt_buf_append(&s->digest, r->message.ptr, r->message.len);
	lt_buf_putc(&s->digest, '\n');
	return 0;
}

static int seen_reject(struct seen *s, uint64_t line, const char *reason)
{
	int i = s->nrej++;

	assert_true(i < MAX_SEEN);
	snprintf(s->reason[i], sizeof s->reason[i], "%s", reason);
	s->rej_line[i] = line;
	lt_buf_printf(&s->digest, "X%llu|%s\n", (unsigned long long)line, reason);
	return 0;
}

static int on_frame_record(const char *text, size_t len, uint64_t line, uint64_t offset, void *ctx)
{
	struct seen *s = ctx;
	enum parser_cw_shape shape = parser_cw_shape_of(text, len);
	struct parser_cw_record r;
	char reason[200];

	(void)offset;
	if (shape == PARSER_CW_NONE) {
		s->nnone++;
		lt_buf_printf(&s->digest, "N%llu\n", (unsigned long long)line);
		return 0;
	}
	if (parser_cw_decode(s->dec, &r, shape, text, len, reason, sizeof reason) != 0)
		return seen_reject(s, line, reason);
	return seen_record(s, shape, &r, line);
}

static int on_frame_reject(uint64_t line, uint64_t offset, const char *reason, void *ctx)
{
	(void)offset;
	return seen_reject(ctx, line, reason);
}

static const struct parser_frame_ops frame_ops = {on_frame_record, on_frame_reject};

/* Frames and decodes text fed in pieces of chunk bytes (0: all at once). */
static void frame_run(struct seen *s, const char *text, size_t len, size_t chunk)
{
	struct parser_frame *f = parser_frame_new(&frame_ops, s, 0);

	seen_clear(s);
	if (chunk == 0)
		chunk = len ? len : 1;
	for (size_t i = 0; i < len; i += chunk)
		assert_int_equal(parser_frame_feed(f, text + i, len - i < chunk ? len - i : chunk),
				 0);
	assert_int_equal(parser_frame_finish(f), 0);
	parser_frame_free(f);
}

static int on_csv_record(const struct parser_cw_record *rec, uint64_t line, uint64_t offset,
			 void *ctx)
{
	(void)offset;
	return seen_record(ctx, PARSER_CW_NONE, rec, line);
}

static int on_csv_reject(uint64_t line, uint64_t offset, const char *reason, void *ctx)
{
	(void)offset;
	return seen_reject(ctx, line, reason);
}

static const struct parser_csv_ops csv_ops = {.record = on_csv_record, .reject = on_csv_reject};

static void csv_run(struct seen *s, const char *text, size_t len, size_t chunk)
{
	struct parser_csv *c = parser_csv_new(&csv_ops, s);

	seen_clear(s);
	if (chunk == 0)
		chunk = len ? len : 1;
	for (size_t i = 0; i < len; i += chunk)
		assert_int_equal(parser_csv_feed(c, text + i, len - i < chunk ? len - i : chunk),
				 0);
	assert_int_equal(parser_csv_finish(c), 0);
	parser_csv_free(c);
}

/* The same records and rejects at every chunk size as all at once. */
static void check_frame_chunks(const char *text, size_t len)
{
	struct seen *whole = seen_new(), *s = seen_new();

	frame_run(whole, text, len, 0);
	for (size_t chunk = 1; chunk <= len; chunk++) {
		frame_run(s, text, len, chunk);
		assert_int_equal(s->digest.len, whole->digest.len);
		assert_memory_equal(s->digest.ptr, whole->digest.ptr, whole->digest.len);
	}
	seen_free(whole);
	seen_free(s);
}

static void check_csv_chunks(const char *text, size_t len)
{
	struct seen *whole = seen_new(), *s = seen_new();

	csv_run(whole, text, len, 0);
	for (size_t chunk = 1; chunk <= len; chunk++) {
		csv_run(s, text, len, chunk);
		assert_int_equal(s->digest.len, whole->digest.len);
		assert_memory_equal(s->digest.ptr, whole->digest.ptr, whole->digest.len);
	}
	seen_free(whole);
	seen_free(s);
}

/* ---- the real exports ------------------------------------------------------ */

static void test_filter_log_events(void **state)
{
	size_t len;
	char *text = slurp(CW_DIR "aws-cli_examples_logs_filter-log-events.output.json", &len);
	struct seen *s = seen_new();

	(void)state;
	frame_run(s, text, len, 0);
	assert_int_equal(s->nrej, 0);
	assert_int_equal(s->nnone, 0);
	assert_int_equal(s->nrec, 2);
	assert_int_equal(s->shape[0], PARSER_CW_EVENT);
	assert_int_equal(s->ts[0], 1712567843827000LL);
	assert_string_equal(s->msg[0], "Test MESSAGE1");
	assert_string_equal(s->stream[0], "teststream");
	assert_string_equal(s->id[0], "00091539120382912324200901570000096855579456010247667712");
	assert_int_equal(s->line[0], 3);
	assert_int_equal(s->ts[1], 1712568068991000LL);
	assert_string_equal(s->msg[1], "Test MESSAGE2");
	assert_string_equal(s->stream[1], "2024/05/09/[$LATEST]abc1024");
	assert_string_equal(s->id[1], "00001544141707904000000130886135001961903807164184002560");
	assert_int_equal(s->line[1], 10);
	check_frame_chunks(text, len);
	seen_free(s);
	free(text);
}

static void test_get_log_events(void **state)
{
	size_t len;
	char *text = slurp(CW_DIR "aws-cli_examples_logs_get-log-events.output.json", &len);
	struct seen *s = seen_new();

	(void)state;
	frame_run(s, text, len, 0);
	assert_int_equal(s->nrej, 0);
	assert_int_equal(s->nnone, 0);
	assert_int_equal(s->nrec, 3);
	assert_int_equal(s->ts[0], 1433190184356000LL);
	assert_int_equal(s->ts[1], 1433190184356000LL);
	assert_int_equal(s->ts[2], 1433190184358000LL);
	assert_string_equal(s->msg[0], "Example Event 1");
	assert_string_equal(s->msg[1], "Example Event 1");
	assert_string_equal(s->msg[2], "Example Event 2");
	for (int i = 0; i < 3; i++) {
		assert_int_equal(s->shape[i], PARSER_CW_EVENT);
		assert_string_equal(s->stream[i], "-");
		assert_string_equal(s->id[i], "-");
		assert_int_equal(s->line[i], 4 + 5 * (uint64_t)i);
	}
	check_frame_chunks(text, len);
	seen_free(s);
	free(text);
}

static void test_get_query_results(void **state)
{
	static const int64_t ts[] = {1716099035743000LL, 1716099027559000LL, 1716099016682000LL};
	static const char *const ptr_tail[] = {"QARgB", "QABgB", "QABgB"};
	size_t len;
	char *text = slurp(CW_DIR "aws-cli_examples_logs_get-query-results.output.json", &len);
	struct seen *s = seen_new();
	char msg[32];

	(void)state;
	frame_run(s, text, len, 0);
	assert_int_equal(s->nrej, 0);
	assert_int_equal(s->nnone, 0);
	assert_int_equal(s->nrec, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(s->shape[i], PARSER_CW_QUERY_ROW);
		assert_int_equal(s->ts[i], ts[i]);
		snprintf(msg, sizeof msg, "Test BENCHMARK %d", 3 - i);
		assert_string_equal(s->msg[i], msg);
		assert_string_equal(s->stream[i], "TestStream");
		assert_int_equal(strlen(s->id[i]), 120);
		assert_memory_equal(s->id[i], "ClQKGAoUODc3MzYyMTE0MTkzOnRlc3ROSFQQ", 36);
		assert_string_equal(s->id[i] + 115, ptr_tail[i]);
		assert_int_equal(s->line[i], 3 + 18 * (uint64_t)i);
	}
	check_frame_chunks(text, len);
	seen_free(s);
	free(text);
}

/* The EKS excerpt was published cut off: its one row is rejected, saying so and where. */
static void test_eks_excerpt_cut_off(void **state)
{
	size_t len;
	char *text = slurp(
	    CW_DIR "aws-eks-best-practices_upgrades_get-query-results_eks-audit_excerpt.txt", &len);
	struct seen *s = seen_new();

	(void)state;
	frame_run(s, text, len, 0);
	assert_int_equal(s->nrec, 0);
	assert_int_equal(s->nnone, 0);
	assert_int_equal(s->nrej, 1);
	assert_string_equal(s->reason[0], "record cut off at end of input (truncated)");
	assert_int_equal(s->rej_line[0], 3);
	check_frame_chunks(text, len);
	seen_free(s);
	free(text);
}

/* A get-query-results file cut anywhere keeps every row that closed before the cut. */
static void test_query_results_cut_anywhere(void **state)
{
	size_t len;
	char *text = slurp(CW_DIR "aws-cli_examples_logs_get-query-results.output.json", &len);
	struct seen *s = seen_new();
	const char *row_end[3];
	const char *p = text;

	(void)state;
	/* each row ends with a line "        ]" (8 spaces) */
	for (int i = 0; i < 3; i++) {
		p = strstr(p, "\n        ]");
		assert_non_null(p);
		p += 10;
		row_end[i] = p;
	}
	for (size_t cut = 1; cut < len; cut++) {
		int complete = 0;

		for (int i = 0; i < 3; i++)
			complete += text + cut >= row_end[i];
		frame_run(s, text, cut, 0);
		assert_int_equal(s->nrec, complete);
		if (cut < len - 1) /* cut before the envelope's last '}': one reject says so */
			assert_int_equal(s->nrej, 1);
		if (s->nrej == 1)
			assert_non_null(
			    strstr(s->reason[0], "cut off at end of input (truncated)"));
	}
	seen_free(s);
	free(text);
}

/* Logs Insights CSV export: 27 rows, quotes, newlines in fields, no final newline. */
static void test_csv_corpus(void **state)
{
	static const struct {
		uint64_t line;
		int64_t ts;
		size_t len;
	} want[] = {
	    {2, 1746677491234000LL, 71},   {4, 1746677496593000LL, 71},
	    {6, 1746677498559000LL, 71},   {8, 1746677498560000LL, 128},
	    {10, 1746677498671000LL, 71},  {12, 1746677498726000LL, 71},
	    {14, 1746677499126000LL, 71},  {16, 1746677499127000LL, 1380},
	    {18, 1746677499127000LL, 171}, {20, 1746677499127000LL, 160},
	    {22, 1746677499129000LL, 223}, {24, 1746677499533000LL, 161},
	    {26, 1746677499533000LL, 715}, {28, 1746677499586000LL, 163},
	    {30, 1746677499624000LL, 71},  {32, 1746677499625000LL, 190},
	    {34, 1746677500173000LL, 168}, {36, 1746677500173000LL, 177},
	    {38, 1746677500173000LL, 132}, {40, 1746677500234000LL, 227},
	    {42, 1746677501372000LL, 251}, {44, 1746677502857000LL, 71},
	    {46, 1746677503661000LL, 71},  {48, 1746677503702000LL, 316},
	    {50, 1746677503744000LL, 163}, {52, 1746677503776000LL, 71},
	    {54, 1746677503777000LL, 190},
	};
	size_t len;
	char *text = slurp(
	    CW_DIR "insights-console-export_Juan-Cartagena_lambda_logs-insights-results.csv", &len);
	struct seen *s = seen_new();

	(void)state;
	assert_true(parser_csv_sniff(text, len));
	csv_run(s, text, len, 0);
	assert_int_equal(s->nrej, 0);
	assert_int_equal(s->nrec, 27);
	for (int i = 0; i < 27; i++) {
		assert_int_equal(s->line[i], want[i].line);
		assert_int_equal(s->ts[i], want[i].ts);
		assert_int_equal(s->msg_len[i], want[i].len);
		assert_string_equal(s->id[i], "-");
	}
	assert_string_equal(s->msg[0], "START RequestId: 62a313a4-2c6e-4528-bd08-4ce2347761fa "
				       "Version: $LATEST\n");
	assert_string_equal(s->stream[0], "2025/05/08/[$LATEST]ec4c2dc4d6804d8f9b14f2110c94593b");
	/* doubled quotes undone: {""CstmrDrctDbtInitn"":... */
	assert_non_null(
	    strstr(s->msg[7], "PAIN008 {\"CstmrDrctDbtInitn\":{\"GrpHdr\":{\"MsgId\":"));
	assert_string_equal(s->stream[26], "2025/05/08/[$LATEST]886bcc3b7ff4464bb2a57a8261f1e906");
	check_csv_chunks(text, len);
	seen_free(s);
	free(text);
}

/* ---- escapes, pages, console rows ----------------------------------------- */

/* An audit Event as the message of a filter-log-events element, escaped as a JSON string. */
#define CW_AUDIT_MSG                                                                               \
	"{\\\"kind\\\":\\\"Event\\\",\\\"apiVersion\\\":\\\"audit.k8s.io/v1\\\","                  \
	"\\\"level\\\":\\\"Metadata\\\",\\\"auditID\\\":\\\"a-1\\\",\\\"stage\\\":"                \
	"\\\"ResponseComplete\\\",\\\"requestURI\\\":\\\"\\/apis\\/coordination.k8s.io\\/v1"       \
	"\\/namespaces\\/kube-node-lease\\/leases\\/n1?timeout=10s\\\\u0026x=1\\\",\\\"verb\\\":"  \
	"\\\"update\\\",\\\"user\\\":{\\\"username\\\":\\\"system:node:n1\\\"},\\\"userAgent\\\":" \
	"\\\"kubelet \\\\\\\"q\\\\\\\" \\u2028 \\ud83d\\ude00\\\",\\\"objectRef\\\":{"             \
	"\\\"resource\\\":\\\"leases\\\",\\\"namespace\\\":\\\"kube-node-lease\\\",\\\"name\\\":"  \
	"\\\"n1\\\"},\\\"responseStatus\\\":{\\\"metadata\\\":{},\\\"code\\\":200},"               \
	"\\\"stageTimestamp\\\":\\\"2024-04-05T06:04:14.668822Z\\\"}"

/* \", \\, \/, \u2028 and a surrogate pair come out as the exact bytes, and the inner Event parses.
 */
static void test_message_escapes(void **state)
{
	const char *text = "{\"events\":[{\"logStreamName\":\"kube-apiserver-audit-0123\","
			   "\"timestamp\":1712297054668,\"message\":\"" CW_AUDIT_MSG
			   "\",\"ingestionTime\":1712297055000,\"eventId\":\"3\"}]}";
	struct seen *s = seen_new();
	struct parser_cw_decoder *d = parser_cw_decoder_new();
	struct parser_audit_decoder *ad = parser_audit_decoder_new();
	struct parser_cw_record r;
	struct lt_audit_event ev;
	const char *inner = strchr(text, '[') + 1;
	size_t inner_len = strlen(inner) - 2;
	char reason[200];

	(void)state;
	frame_run(s, text, strlen(text), 0);
	assert_int_equal(s->nrec, 1);
	assert_int_equal(s->nrej, 0);
	assert_int_equal(parser_cw_shape_of(inner, inner_len), PARSER_CW_EVENT);
	assert_int_equal(
	    parser_cw_decode(d, &r, PARSER_CW_EVENT, inner, inner_len, reason, sizeof reason), 0);
	assert_int_equal(r.ts_us, 1712297054668000LL);
	/* one level of escapes undone: the outer \/ is '/', the inner \\u0026 is \u0026 */
	assert_non_null(strstr(r.message.ptr, "\"requestURI\":\"/apis/coordination.k8s.io/v1/"));
	assert_non_null(strstr(r.message.ptr, "timeout=10s\\u0026x=1"));
	assert_int_equal(
	    parser_audit_decode(ad, &ev, r.message.ptr, r.message.len, reason, sizeof reason), 0);
	assert_true(lt_str_eq(ev.name, "n1"));
	assert_true(lt_str_eq(ev.request_uri, "/apis/coordination.k8s.io/v1/namespaces/"
					      "kube-node-lease/leases/n1?timeout=10s&x=1"));
	/* kubelet "q" U+2028 U+1F600 */
	assert_true(lt_str_eq(ev.user_agent, "kubelet \"q\" \xe2\x80\xa8 \xf0\x9f\x98\x80"));
	assert_int_equal(ev.stage_us, 1712297054668822LL);
	parser_audit_decoder_free(ad);
	parser_cw_decoder_free(d);
	seen_free(s);
}

/* Lone surrogates, a \u0000 and invalid UTF-8 neither crash nor lose the record. */
static void test_message_lone_surrogates(void **state)
{
	static const char *const msgs[] = {
	    "{\"timestamp\":1,\"message\":\"a\\ud800\"}",
	    "{\"timestamp\":1,\"message\":\"a\\ud800b\"}",
	    "{\"timestamp\":1,\"message\":\"\\udc00\\ud800\\u0041\"}",
	    "{\"timestamp\":1,\"message\":\"x\\u0000y\"}",
	    "{\"timestamp\":1,\"message\":\"\xff\xfe\\ud83d\"}",
	};
	struct parser_cw_decoder *d = parser_cw_decoder_new();
	struct parser_cw_record r;
	char reason[200];

	(void)state;
	for (size_t i = 0; i < sizeof msgs / sizeof *msgs; i++) {
		assert_int_equal(parser_cw_shape_of(msgs[i], strlen(msgs[i])), PARSER_CW_EVENT);
		assert_int_equal(parser_cw_decode(d, &r, PARSER_CW_EVENT, msgs[i], strlen(msgs[i]),
						  reason, sizeof reason),
				 0);
		assert_non_null(r.message.ptr);
		assert_int_equal(r.message.ptr[r.message.len], '\0');
	}
	assert_int_equal(r.message.len, 3); /* \xff \xfe and yajl's '?' for the lone high half */
	parser_cw_decode(d, &r, PARSER_CW_EVENT, msgs[3], strlen(msgs[3]), reason, sizeof reason);
	assert_int_equal(r.message.len, 3);
	assert_memory_equal(r.message.ptr, "x\0y", 3);
	parser_cw_decoder_free(d);
}

/* Pieces of JSON string content, escapes JSON allows and the surrogates' odd cases. */
static const char *const unescape_pieces[] = {
    "a",	"\\\\",	   "\\/",     "\\n",	 "\\\"",    "\\u0000", "\\u0041", "\\ud800",
    "\\udbff",	"\\udc00", "\\uDFFF", "\\u00e9", "\\u20AC", "\\uD83D", "\\uDE00", "x",
    "\xc3\xa9", "\\t",	   "\\b",     "\\f",	 "\\r",	    "u",       "\\\\u",	  "\\u007f",
};

/* The user agent yajl decodes in an audit Event whose userAgent is the JSON content esc. */
static int unescape_by_yajl(struct parser_audit_decoder *ad, const char *esc, struct lt_buf *out)
{
	struct lt_buf ev;
	struct lt_audit_event e;
	char reason[200];
	int rc;

	lt_buf_init(&ev);
	lt_buf_printf(
	    &ev,
	    "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Metadata\","
	    "\"auditID\":\"a\",\"stage\":\"ResponseComplete\",\"requestURI\":\"/\","
	    "\"verb\":\"get\",\"userAgent\":\"%s\","
	    "\"requestReceivedTimestamp\":\"2024-01-01T00:00:00.000000Z\","
	    "\"stageTimestamp\":\"2024-01-01T00:00:00.000000Z\"}",
	    esc);
	rc = parser_audit_decode(ad, &e, ev.ptr, ev.len, reason, sizeof reason);
	lt_buf_reset(out);
	if (rc == 0 && e.user_agent.ptr != NULL)
		lt_buf_append(out, e.user_agent.ptr, e.user_agent.len);
	lt_buf_release(&ev);
	return rc;
}

/* The message of a CloudWatch event whose message is the JSON content esc, and of a query row. */
static int unescape_by_cw(struct parser_cw_decoder *d, const char *esc, int row, struct lt_buf *out)
{
	struct lt_buf rec;
	struct parser_cw_record r;
	char reason[200];
	int rc;

	lt_buf_init(&rec);
	if (row)
		lt_buf_printf(&rec, "[{\"field\":\"@message\",\"value\":\"%s\"}]", esc);
	else
		lt_buf_printf(&rec, "{\"timestamp\":1,\"message\":\"%s\",\"eventId\":\"%s\"}", esc,
			      esc);
	rc = parser_cw_decode(d, &r, row ? PARSER_CW_QUERY_ROW : PARSER_CW_EVENT, rec.ptr, rec.len,
			      reason, sizeof reason);
	lt_buf_reset(out);
	if (rc == 0) {
		assert_int_equal(r.message.ptr[r.message.len], '\0');
		lt_buf_append(out, r.message.ptr, r.message.len);
		if (!row) /* the id, kept after the message, is the same bytes */
			assert_true(r.ext_id.len == r.message.len &&
				    memcmp(r.ext_id.ptr, r.message.ptr, r.message.len) == 0);
	}
	lt_buf_release(&rec);
	return rc;
}

/*
 * The decoder undoes a message's escapes itself (yajl is given no string callback): every
 * string of random pieces comes out as yajl decodes it, byte for byte, in an event and in a
 * query row; what yajl rejects is rejected.
 */
static void test_message_unescape_as_yajl(void **state)
{
	static const char *const bad[] = {"\\x",     "\\u12",	     "\\u12G4",	  "\\'", "a\\",
					  "\\U0041", "\\ud800\\u12", "tab\there", "\\u"};
	struct parser_cw_decoder *d = parser_cw_decoder_new();
	struct parser_audit_decoder *ad = parser_audit_decoder_new();
	struct lt_buf esc, want, got;
	uint32_t seed = 2166136261u;
	size_t npieces = sizeof unescape_pieces / sizeof *unescape_pieces;

	(void)state;
	lt_buf_init(&esc);
	lt_buf_init(&want);
	lt_buf_init(&got);
	for (int i = 0; i < 3000; i++) {
		int n;

		seed = seed * 1103515245u + 12345u;
		n = (int)((seed >> 16) % 9);
		lt_buf_reset(&esc);
		for (int k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			lt_buf_printf(&esc, "%s", unescape_pieces[(seed >> 16) % npieces]);
		}
		assert_int_equal(unescape_by_yajl(ad, esc.ptr, &want), 0);
		for (int row = 0; row < 2; row++) {
			assert_int_equal(unescape_by_cw(d, esc.ptr, row, &got), 0);
			if (got.len != want.len || memcmp(got.ptr, want.ptr, got.len) != 0)
				fail_msg("\"%s\": %zu bytes, yajl %zu", esc.ptr, got.len, want.len);
		}
	}
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_int_not_equal(unescape_by_yajl(ad, bad[i], &want), 0);
		assert_int_not_equal(unescape_by_cw(d, bad[i], 0, &got), 0);
		assert_int_not_equal(unescape_by_cw(d, bad[i], 1, &got), 0);
	}
	lt_buf_release(&esc);
	lt_buf_release(&want);
	lt_buf_release(&got);
	parser_audit_decoder_free(ad);
	parser_cw_decoder_free(d);
}

/*
 * An event's message is checked and unescaped ahead and yajl given the rest around "" in its
 * place: what it keeps and refuses, and why, is what yajl over the whole record gives.  Values
 * after the message (in yajl's third part) keep their offsets in the record; a message key
 * given twice, or spelled with an escape, is read as yajl reads it; a message yajl refuses, or
 * a record refused after its message, is refused with yajl's words and a byte of the record
 * (what parser_json_run says of the whole record).
 */
static void test_message_parts_as_whole(void **state)
{
	static const struct {
		const char *json, *message, *id;
	} kept[] = {
	    {"{\"timestamp\":1,\"message\":\"first\",\"message\":\"second\"}", "second", NULL},
	    {"{\"timestamp\":1,\"message\":5,\"message\":\"s\\\"x\"}", "s\"x", NULL},
	    {"{\"timestamp\":1,\"mess\\u0061ge\":\"a\",\"message\":\"b\"}", "b", NULL},
	    {"{\"timestamp\":1,\"message\":\"b\",\"mess\\u0061ge\":\"a\"}", "a", NULL},
	    {"{\"message\":\"m\\\"\",\"timestamp\":1,\"eventId\":{\"a\":[1,\"}\"]}}", "m\"",
	     "{\"a\":[1,\"}\"]}"},
	    {"{\"timestamp\":1, \"message\" : \"0123456789abcdef0123456789abcdef\\n\", "
	     "\"eventId\": \"e\\u00e9\"}",
	     "0123456789abcdef0123456789abcdef\n", "e\xc3\xa9"},
	    {"{\"timestamp\":1,\"message\":\"\x7f\xff 0123456789abcdef\\ud83d\\ude00\"}",
	     "\x7f\xff 0123456789abcdef\xf0\x9f\x98\x80", NULL},
	};
	static const char *const refused[] = {
	    "{\"timestamp\":1,\"message\":\"0123456789abcdef\ttab\"}",
	    "{\"timestamp\":1,\"message\":\"a\\x\"}",
	    "{\"timestamp\":1,\"message\":\"a\\u12G4\"}",
	    "{\"timestamp\":1,\"message\":\"ok\",}",
	    "{\"timestamp\":1,\"message\":\"ok\" \"eventId\":\"e\"}",
	    "{\"timestamp\":1,\"message\":\"0123456789abcdef0123456789abcdef",
	    "{\"timestamp\":1,\"message\":\"ok\"}}",
	};
	struct parser_cw_decoder *d = parser_cw_decoder_new();
	struct parser_cw_record r;
	char reason[200];
	unsigned long at;

	(void)state;
	for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
		assert_int_equal(parser_cw_decode(d, &r, PARSER_CW_EVENT, kept[i].json,
						  strlen(kept[i].json), reason, sizeof reason),
				 0);
		assert_int_equal(r.ts_us, 1000);
		assert_int_equal(r.message.len, strlen(kept[i].message));
		assert_memory_equal(r.message.ptr, kept[i].message, r.message.len);
		if (kept[i].id == NULL)
			assert_null(r.ext_id.ptr);
		else
			assert_true(lt_str_eq(r.ext_id, kept[i].id));
	}
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		assert_int_equal(parser_cw_decode(d, &r, PARSER_CW_EVENT, refused[i],
						  strlen(refused[i]), reason, sizeof reason),
				 LT_ERR_FORMAT);
		assert_memory_equal(reason, "invalid JSON at byte ", 21);
		at = strtoul(reason + 21, NULL, 10);
		/* a byte of the whole record, at or past the message's opening quote */
		if (strstr(reason, "premature EOF") != NULL)
			continue; /* yajl's end of input: no byte of the record named */
		assert_true(at >= (unsigned long)(strstr(refused[i], ":\"") - refused[i]) &&
			    at <= strlen(refused[i]));
	}
	parser_cw_decoder_free(d);
}

/* Pages of several commands' output concatenated in one file, pretty and compact. */
static const char cw_pages[] =
    "{\n"
    "    \"searchedLogStreams\": [\n"
    "        {\"logStreamName\": \"kube-apiserver-audit-a\", \"searchedCompletely\": true}\n"
    "    ],\n"
    "    \"events\": [\n"
    "        {\n"
    "            \"logStreamName\": \"kube-apiserver-audit-a\",\n"
    "            \"timestamp\": 1712297054001,\n"
    "            \"message\": \"one\",\n"
    "            \"ingestionTime\": 1712297055000,\n"
    "            \"eventId\": \"1\"\n"
    "        },\n"
    "        {\n"
    "            \"logStreamName\": \"kube-apiserver-audit-a\",\n"
    "            \"timestamp\": 1712297054002,\n"
    "            \"message\": \"two [\\\"{\\\"]\",\n"
    "            \"ingestionTime\": 1712297055000,\n"
    "            \"eventId\": \"2\",\n"
    "            \"newField\": {\"message\": \"not me\", \"timestamp\": 5}\n"
    "        }\n"
    "    ],\n"
    "    \"nextToken\": \"Bxkq6kVGFtq2y_MoigeqscPOdhXVbhiVtLoAmXb5jCrI7fXLrGeh\"\n"
    "}\n"
    "{\n"
    "    \"events\": [],\n"
    "    \"searchedLogStreams\": [],\n"
    "    \"nextToken\": \"x\"\n"
    "}\n"
    "{\n"
    "    \"nextForwardToken\": \"f/3196\",\n"
    "    \"events\": [\n"
    "        {\n"
    "            \"ingestionTime\": 1433190494190,\n"
    "            \"timestamp\": 1433190184356,\n"
    "            \"message\": \"three\"\n"
    "        }\n"
    "    ],\n"
    "    \"nextBackwardToken\": \"b/3196\"\n"
    "}\n"
    "{\"events\":[{\"timestamp\":4,\"message\":\"four\"},{\"timestamp\":5,\"message\":\"five\"}"
    "],\"searchedLogStreams\":[{\"logStreamName\":\"s\"}],\"nextToken\":\"y\"}"
    "{\"results\":[[{\"field\":\"@message\",\"value\":\"six\"}],[{\"value\":\"2024-05-19 "
    "06:10:35.743\",\"field\":\"@timestamp\"},{\"field\":\"@message\",\"value\":\"seven\"}]],"
    "\"statistics\":{\"recordsMatched\":2.0,\"recordsScanned\":3.0,\"bytesScanned\":141.0},"
    "\"status\":\"Complete\"}\n";

static void test_concatenated_pages(void **state)
{
	static const char *const want[] = {"one",  "two [\"{\"]", "three", "four",
					   "five", "six",	  "seven"};
	struct seen *s = seen_new();

	(void)state;
	frame_run(s, cw_pages, sizeof cw_pages - 1, 0);
	assert_int_equal(s->nrej, 0);
	assert_int_equal(s->nnone, 0);
	assert_int_equal(s->nrec, 7);
	for (int i = 0; i < 7; i++)
		assert_string_equal(s->msg[i], want[i]);
	assert_int_equal(s->line[0], 6);
	assert_int_equal(s->line[1], 13);
	assert_int_equal(s->ts[1], 1712297054002000LL);
	assert_string_equal(s->id[1], "2");
	assert_string_equal(s->stream[2], "-");
	assert_int_equal(s->line[2], 32);
	assert_int_equal(s->ts[4], 5000);
	assert_int_equal(s->shape[5], PARSER_CW_QUERY_ROW);
	assert_int_equal(s->ts[5], 0);
	assert_int_equal(s->ts[6], 1716099035743000LL);
	check_frame_chunks(cw_pages, sizeof cw_pages - 1);
	seen_free(s);
}

/* Console "Export results" JSON: an array of flat objects; a JSON @message is an object. */
static void test_console_json(void **state)
{
	static const char obj[] =
	    "{\"kind\": \"Event\",\n    \"verb\": \"get\", \"n\": [1, {\"a\": "
	    "\"}]\\\"\"}], \"e\": {}}";
	const char *text =
	    "[\n"
	    "{\n"
	    "  \"@timestamp\": \"2024-04-05 06:04:14.668\",\n"
	    "  \"@message\": {\"kind\": \"Event\",\n"
	    "    \"verb\": \"get\", \"n\": [1, {\"a\": \"}]\\\"\"}], \"e\": {}},\n"
	    "  \"@logStream\": \"kube-apiserver-audit-x\",\n"
	    "  \"@log\": \"123456789012:/aws/eks/c/cluster\",\n"
	    "  \"@ptr\": \"CmAKJwoj\"\n"
	    "},\n"
	    "{\n"
	    "  \"@ptr\": \"p2\", \"other\": [[{}]],\n"
	    "  \"@message\": \"I0405 06:04:14.668822 1 leaderelection.go:250] ok\",\n"
	    "  \"@timestamp\": \"2024-04-05T06:04:15.000Z\"\n"
	    "},\n"
	    "{\"@timestamp\": \"2024-04-05 06:04:16.000\", \"@message\": [1, 2]}\n"
	    "]\n";
	struct seen *s = seen_new();

	(void)state;
	frame_run(s, text, strlen(text), 0);
	assert_int_equal(s->nrej, 0);
	assert_int_equal(s->nrec, 3);
	assert_int_equal(s->shape[0], PARSER_CW_CONSOLE_ROW);
	assert_int_equal(s->ts[0], 1712297054668000LL);
	assert_int_equal(s->msg_len[0], sizeof obj - 1);
	assert_string_equal(s->msg[0], obj);
	assert_string_equal(s->stream[0], "kube-apiserver-audit-x");
	assert_string_equal(s->id[0], "CmAKJwoj");
	/* @log names the group, and so the cluster (lt_cluster_from_log_group) */
	assert_string_equal(s->group[0], "123456789012:/aws/eks/c/cluster");
	assert_string_equal(s->group[1], "-");
	assert_int_equal(s->line[0], 2);
	assert_string_equal(s->msg[1], "I0405 06:04:14.668822 1 leaderelection.go:250] ok");
	assert_int_equal(s->ts[1], 1712297055000000LL);
	assert_string_equal(s->stream[1], "-");
	assert_string_equal(s->id[1], "p2");
	assert_string_equal(s->msg[2], "[1, 2]");
	check_frame_chunks(text, strlen(text));
	seen_free(s);
}

/* Every record of the real audit logs is PARSER_CW_NONE: audit Events never look like CloudWatch.
 */
static int on_audit_record(const char *text, size_t len, uint64_t line, uint64_t offset, void *ctx)
{
	int *n = ctx;

	(void)line;
	(void)offset;
	assert_int_equal(parser_cw_shape_of(text, len), PARSER_CW_NONE);
	n[0]++;
	return 0;
}

static int on_audit_reject(uint64_t line, uint64_t offset, const char *reason, void *ctx)
{
	(void)line;
	(void)offset;
	(void)reason;
	(void)ctx;
	return 0;
}

static void test_shape_of_audit_is_none(void **state)
{
	static const char *const files[] = {
	    "audit2rbac_demo_v1beta1_raw_501d132.log",
	    "eks-lease-blog_audit_pretty_node-delete-lease-gc.json",
	    "falco_trace_k8s_audit_create_configmap_sensitive_values.json",
	    "falco_trace_k8s_audit_fal_01_003.json",
	    "kzmrv-logviewer_gce-scale-cluster_3lines.jsonl",
	    "openshift-clo_apiaudit_audit_in.log",
	};
	static const struct parser_frame_ops ops = {on_audit_record, on_audit_reject};
	int total = 0;

	(void)state;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char path[1024];
		size_t len;
		char *text;
		struct parser_frame *f = parser_frame_new(&ops, &total, 0);

		snprintf(path, sizeof path, "%s/audit/%s", LT_TEST_CORPUS, files[i]);
		text = slurp(path, &len);
		assert_int_equal(parser_frame_feed(f, text, len), 0);
		assert_int_equal(parser_frame_finish(f), 0);
		parser_frame_free(f);
		free(text);
	}
	assert_int_equal(total, 757 + 5 + 6 + 1 + 3 + 100); /* every record of the six files */
}

static void test_shape_of(void **state)
{
	static const struct {
		const char *json;
		enum parser_cw_shape want;
	} cases[] = {
	    {"{\"timestamp\":1,\"message\":\"m\"}", PARSER_CW_EVENT},
	    {" {\"message\":\"m\",\"eventId\":\"1\"}", PARSER_CW_EVENT},
	    {"{\"ingestionTime\":1,\"x\":[{\"a\":\"]\"}],\"message\":\"m\"}", PARSER_CW_EVENT},
	    {"{\"message\":\"m\"}", PARSER_CW_NONE},
	    {"{\"timestamp\":\"2017-09-11T19:55:05Z\",\"message\":\"m\"}", PARSER_CW_NONE},
	    {"{\"timestamp\":1,\"message\":\"m\",\"kind\":\"Event\"}", PARSER_CW_EVENT},
	    {"{\"kind\":\"Event\",\"timestamp\":1,\"message\":\"m\"}", PARSER_CW_NONE},
	    {"{\"@timestamp\":\"x\"}", PARSER_CW_CONSOLE_ROW},
	    {"{\"a\":{\"@message\":1},\"@message\":\"m\"}", PARSER_CW_CONSOLE_ROW},
	    {"[{\"field\":\"@message\",\"value\":\"m\"}]", PARSER_CW_QUERY_ROW},
	    {"[ {\"value\":\"m\",\"field\":\"@message\"}]", PARSER_CW_QUERY_ROW},
	    {"[]", PARSER_CW_NONE},
	    {"[{\"kind\":\"Event\"}]", PARSER_CW_NONE},
	    {"{\"timestamp\":1,\"mess", PARSER_CW_NONE},
	    {"[{\"fie", PARSER_CW_NONE},
	    {"", PARSER_CW_NONE},
	    {"42", PARSER_CW_NONE},
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		assert_int_equal(parser_cw_shape_of(cases[i].json, strlen(cases[i].json)),
				 cases[i].want);
}

static void test_decode_errors(void **state)
{
	static const struct {
		enum parser_cw_shape shape;
		const char *json, *reason;
	} cases[] = {
	    {PARSER_CW_EVENT, "{\"timestamp\":1.5,\"message\":\"m\"}",
	     "not a CloudWatch event: \"timestamp\" is not epoch milliseconds"},
	    {PARSER_CW_EVENT, "{\"timestamp\":\"1\",\"message\":\"m\"}",
	     "not a CloudWatch event: \"timestamp\" is not epoch milliseconds"},
	    {PARSER_CW_EVENT, "{\"timestamp\":1,\"message\":{\"a\":1}}",
	     "not a CloudWatch event: no \"message\" string"},
	    {PARSER_CW_EVENT, "[{\"timestamp\":1,\"message\":\"m\"}]",
	     "not a CloudWatch record: a JSON array where an object was expected"},
	    {PARSER_CW_QUERY_ROW, "{\"@message\":\"m\"}",
	     "not a CloudWatch record: a JSON value where an array was expected"},
	    {PARSER_CW_QUERY_ROW,
	     "[{\"field\":\"@timestamp\",\"value\":\"yesterday\"},"
	     "{\"field\":\"@message\",\"value\":\"m\"}]",
	     "not a Logs Insights row: @timestamp is not a time"},
	    {PARSER_CW_QUERY_ROW, "[{\"field\":\"@logStream\",\"value\":\"s\"}]",
	     "Logs Insights row without @message: nothing to read"},
	    {PARSER_CW_CONSOLE_ROW, "{\"@message\":null}",
	     "Logs Insights row without @message: nothing to read"},
	    {PARSER_CW_NONE, "{}", "not a CloudWatch record"},
	};
	struct parser_cw_decoder *d = parser_cw_decoder_new();
	struct parser_cw_record r;
	char reason[200];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		assert_int_equal(parser_cw_decode(d, &r, cases[i].shape, cases[i].json,
						  strlen(cases[i].json), reason, sizeof reason),
				 LT_ERR_FORMAT);
		assert_string_equal(reason, cases[i].reason);
	}
	assert_int_equal(parser_cw_decode(d, &r, PARSER_CW_EVENT,
					  "{\"timestamp\":1,\"message\":\"m\"", 28, reason,
					  sizeof reason),
			 LT_ERR_FORMAT);
	assert_non_null(strstr(reason, "invalid JSON at byte"));
	parser_cw_decoder_free(d);
}

/* ---- the CSV reader --------------------------------------------------------- */

/* Columns in another order, an unknown one, quotes, commas, LF and CRLF inside fields. */
static const char csv_quoting[] =
    "\xef\xbb\xbf@logStream,@ptr,extra,@message,@timestamp\r\n"
    "kube-apiserver-audit-1,p1,x,\"{\"\"kind\"\":\"\"Event\"\",\"\"a\"\":\"\"b,c\"\"}\","
    "2024-04-05 06:04:14.668\r\n"
    "s2,,\"\",\"line one\nline \"\"two\"\", with comma\r\nline three\n\","
    "2024-04-05T06:04:15Z\n"
    "\n"
    "s3,p3,y,plain \"inner\" quote,2024-04-05 06:04:16.000";

static void test_csv_quoting(void **state)
{
	struct seen *s = seen_new();

	(void)state;
	assert_true(parser_csv_sniff(csv_quoting, sizeof csv_quoting - 1));
	csv_run(s, csv_quoting, sizeof csv_quoting - 1, 0);
	assert_int_equal(s->nrej, 0);
	assert_int_equal(s->nrec, 3);
	assert_string_equal(s->msg[0], "{\"kind\":\"Event\",\"a\":\"b,c\"}");
	assert_string_equal(s->stream[0], "kube-apiserver-audit-1");
	assert_string_equal(s->id[0], "p1");
	assert_int_equal(s->ts[0], 1712297054668000LL);
	assert_int_equal(s->line[0], 2);
	assert_string_equal(s->msg[1], "line one\nline \"two\", with comma\r\nline three\n");
	assert_string_equal(s->id[1], "-");
	assert_int_equal(s->ts[1], 1712297055000000LL);
	assert_int_equal(s->line[1], 3);
	assert_string_equal(s->msg[2], "plain \"inner\" quote");
	assert_int_equal(s->line[2], 8);
	check_csv_chunks(csv_quoting, sizeof csv_quoting - 1);
	seen_free(s);
}

/* Damage is one reject per row, with the line the row starts on; good rows survive. */
static void test_csv_damage(void **state)
{
	const char *text = "@timestamp,@message\n"
			   "2024-04-05 06:04:14.668,ok one\n"
			   "2024-04-05 06:04:14.668,too,many\n"
			   "2024-04-05 06:04:14.668\n"
			   "yesterday,bad time\n"
			   "2024-04-05 06:04:14.668,\"closed\"junk\n"
			   "2024-04-05 06:04:14.668,ok two\n"
			   "2024-04-05 06:04:14.668,\"never\n"
			   "closed, \"\"at all\n";
	struct seen *s = seen_new();

	(void)state;
	csv_run(s, text, strlen(text), 0);
	assert_int_equal(s->nrec, 2);
	assert_string_equal(s->msg[0], "ok one");
	assert_string_equal(s->msg[1], "ok two");
	assert_int_equal(s->line[1], 7);
	assert_int_equal(s->nrej, 5);
	assert_string_equal(s->reason[0], "CSV row has 3 fields, the header has 2");
	assert_int_equal(s->rej_line[0], 3);
	assert_string_equal(s->reason[1], "CSV row has 1 fields, the header has 2");
	assert_int_equal(s->rej_line[1], 4);
	assert_string_equal(s->reason[2], "CSV row's @timestamp is not a time");
	assert_int_equal(s->rej_line[2], 5);
	assert_string_equal(s->reason[3], "CSV row has text after a closing quote");
	assert_int_equal(s->rej_line[3], 6);
	assert_string_equal(s->reason[4], "CSV row cut off: the quote opened on line 8 is not "
					  "closed at end of input (truncated)");
	assert_int_equal(s->rej_line[4], 8);
	check_csv_chunks(text, strlen(text));
	seen_free(s);
}

/* A row over PARSER_MAX_RECORD is rejected without being buffered; the next row is read. */
static void test_csv_oversize(void **state)
{
	size_t big = PARSER_MAX_RECORD + 10, n;
	char *text = malloc(big + 200);
	struct seen *s = seen_new();

	(void)state;
	assert_non_null(text);
	n = (size_t)snprintf(text, 200, "@message,@ptr\n\"");
	memset(text + n, 'a', big);
	n += big;
	n += (size_t)snprintf(text + n, 100, "\",p1\nsmall,p2\n");
	csv_run(s, text, n, 65536);
	assert_int_equal(s->nrej, 1);
	assert_string_equal(s->reason[0], "CSV row larger than 8388608 bytes, skipped");
	assert_int_equal(s->rej_line[0], 2);
	assert_int_equal(s->nrec, 1);
	assert_string_equal(s->msg[0], "small");
	assert_string_equal(s->id[0], "p2");
	assert_int_equal(s->line[0], 3);
	seen_free(s);
	free(text);
}

/* A header without @message: every row says so (the sniffer would not have said CSV). */
static void test_csv_no_message_column(void **state)
{
	const char *text = "@timestamp,@logStream\r\n2024-04-05 06:04:14.668,s\r\n";
	struct seen *s = seen_new();

	(void)state;
	assert_false(parser_csv_sniff(text, strlen(text)));
	csv_run(s, text, strlen(text), 0);
	assert_int_equal(s->nrec, 0);
	assert_int_equal(s->nrej, 1);
	assert_string_equal(s->reason[0], "CSV header has no @message column: nothing to read");
	seen_free(s);
}

static void test_csv_sniff(void **state)
{
	(void)state;
	assert_true(parser_csv_sniff("@timestamp,@message\n", 20));
	assert_true(parser_csv_sniff("\"@timestamp\",\"@message\",@logStream\r\n", 36));
	assert_true(parser_csv_sniff("@message\n", 9));
	assert_false(parser_csv_sniff("@timestamp,@message", 19)); /* the header line must end */
	assert_false(parser_csv_sniff("{\"@message\":1}\n", 15));
	assert_false(parser_csv_sniff("I0405 06:04:14.668822 1 x.go:1] @message,\n", 42));
	assert_false(parser_csv_sniff("", 0));
}

/* The checker itself: good queries pass, each kind of mistake is caught. */
static void test_cwli_checker(void **state)
{
	static const char *const good[] = {
	    "fields @timestamp, @message | sort @timestamp desc | limit 20",
	    ("filter @message like /Exception/ | stats count(*) as exceptionCount by bin(1h)\n"
	     "| sort exceptionCount desc"),
	    "# a comment\nstats avg(x), min(y) by bin(5m)",
	    "parse @message \"user=*, ip=*\" as user, ip | filter ip in [\"1\", \"2\"]",
	    "filter not (a = 1 or b != \"x\") and c =~ /^d+$/",
	    "stats count(*) as n by a.b, bin(1m) | filter n > 1 | sort a.b asc",
	};
	static const char *const bad[] = {
	    "",
	    "select * from x",
	    "fields a | sort b sideways",
	    "filter a = \"unterminated",
	    "stats count(*) as n by x | sort m desc",
	    "stats frobnicate(x)",
	    "limit -1",
	    "limit ten",
	    "filter (a = 1",
	    "parse @message /(no named group)/",
	    "filter x like /(unbalanced/",
	    "fields a b",
	    "filter a = 1 |",
	    "stats count(*) by x, upper(y)",
	};
	struct cq *q = malloc(sizeof *q);

	(void)state;
	assert_non_null(q);
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		if (cq_check(q, good[i]) != 0)
			fail_msg("rejected good query %zu: %s", i, q->err);
	}
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (cq_check(q, bad[i]) == 0)
			fail_msg("accepted bad query %zu: %s", i, bad[i]);
	free(q);
}

static char *cwli_text(const char *name, const struct lt_query_opts *o, int *rc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct lt_error err = {0};

	assert_non_null(f);
	*rc = lt_emit_canned(name, o, &(struct lt_emit_opts){.engine = LT_ENGINE_CWLI}, f, &err);
	fclose(f);
	return text;
}

/* Every canned query (and kubelet-errors) has a well-formed Logs Insights form. */
static void test_cwli_every_query(void **state)
{
	struct cq *q = malloc(sizeof *q);
	int rc, n = 0, kubelet = 0;
	char *text;

	(void)state;
	assert_non_null(q);
	for (const struct lt_canned *c = lt_canned_list(); c->name; c++, n++) {
		text = cwli_text(c->name, NULL, &rc);
		assert_int_equal(rc, 0);
		if (cq_check(q, text) != 0)
			fail_msg("%s: %s\n%s", c->name, q->err, text);
		assert_non_null(strstr(text, "# leasetrail query "));
		assert_non_null(strstr(text, c->summary));
		kubelet |= strcmp(c->name, "kubelet-errors") == 0;
		free(text);
	}
	assert_true(n >= 10);
	if (!kubelet) { /* until the store's query lands, its Logs Insights form is still checked */
		text = cwli_text("kubelet-errors", NULL, &rc);
		assert_int_equal(rc, 0);
		if (cq_check(q, text) != 0)
			fail_msg("kubelet-errors: %s\n%s", q->err, text);
		free(text);
	}
	text = cwli_text("no-such-query", NULL, &rc);
	assert_int_equal(rc, LT_ERR_NOTFOUND);
	free(text);
	free(q);
}

/* --since/--until become the range comment; --slow the threshold. */
static void test_cwli_options(void **state)
{
	struct lt_query_opts o = {0};
	struct cq *q = malloc(sizeof *q);
	char *text;
	int rc;

	(void)state;
	assert_non_null(q);
	o.since_us = 1712296200000000LL;
	o.until_us = 1712297100500000LL;
	o.slow_us = 2500000;
	text = cwli_text("slow-renewals", &o, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(text,
			       "# time range: 2024-04-05T05:50:00.000000Z .. "
			       "2024-04-05T06:05:00.500000Z (aws logs start-query --start-time "
			       "1712296200 --end-time 1712297101)\n"));
	assert_non_null(strstr(text, "| filter latency_s > 2.5\n"));
	if (cq_check(q, text) != 0)
		fail_msg("%s\n%s", q->err, text);
	free(text);
	o.until_us = 0;
	o.slow_us = 0;
	text = cwli_text("slow-renewals", &o, &rc);
	assert_non_null(strstr(text, "# time range: 2024-04-05T05:50:00.000000Z .. now "
				     "(aws logs start-query --start-time 1712296200)\n"));
	assert_non_null(strstr(text, "| filter latency_s > 1\n"));
	free(text);
	text = cwli_text("who-deleted", NULL, &rc);
	assert_string_equal(
	    text,
	    "# leasetrail query who-deleted: every delete of a lease or a node: actor, identity "
	    "behind it, groups, source IP, user agent\n"
	    "# CloudWatch Logs Insights, log group /aws/eks/CLUSTER/cluster (EKS control-plane "
	    "logging, audit log type on)\n"
	    "# time range: all of the logs (set it in the console, or aws logs start-query "
	    "--start-time/--end-time)\n"
	    "filter @logStream like /^kube-apiserver-audit-/\n"
	    "| filter verb = \"delete\" and objectRef.resource in [\"leases\", \"nodes\"] and "
	    "stage = \"ResponseComplete\"\n"
	    "| fields @timestamp, objectRef.resource, objectRef.namespace, objectRef.name, "
	    "responseStatus.code, user.username, user.extra.arn.0, impersonatedUser.username, "
	    "user.groups.0, sourceIPs.0, userAgent, auditID\n"
	    "| sort @timestamp asc\n");
	free(text);
	free(q);
}

/* The events query (a node list, a lease, a cluster, hostile names) is a well-formed query too. */
static void test_cwli_events(void **state)
{
	static const char *const targets[] = {"ip-10-0-241-171.ec2.internal",
					      "kube-system/kube-scheduler", "ev\"il\\n",
					      "ns/x]\" or verb = \"get"};
	struct lt_emit_opts e = {.engine = LT_ENGINE_CWLI, .cluster = "prod\n| filter 1 = 1"};
	struct lt_query_opts o = {.since_us = 1712296200000000LL};
	struct cq *q = malloc(sizeof *q);
	struct lt_error err = {0};
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(q);
	for (size_t n = 0; n <= sizeof targets / sizeof *targets; n++) {
		f = open_memstream(&text, &len);
		assert_non_null(f);
		assert_int_equal(lt_emit_events("query events", targets, n, &o, &e, f, &err), 0);
		fclose(f);
		if (cq_check(q, text) != 0)
			fail_msg("%zu targets: %s\n%s", n, q->err, text);
		assert_non_null(strstr(text, "| fields @timestamp, @message, @logStream, @log\n"));
		assert_null(
		    strstr(text, "\n| filter 1 = 1")); /* the cluster stayed in its comment */
		if (n == 4)
			assert_non_null(strstr(text, ", \"x]\\\" or verb = \\\"get\"]"));
		free(text);
		text = NULL;
	}
	free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_filter_log_events),
	    cmocka_unit_test(test_get_log_events),
	    cmocka_unit_test(test_get_query_results),
	    cmocka_unit_test(test_eks_excerpt_cut_off),
	    cmocka_unit_test(test_query_results_cut_anywhere),
	    cmocka_unit_test(test_csv_corpus),
	    cmocka_unit_test(test_message_escapes),
	    cmocka_unit_test(test_message_lone_surrogates),
	    cmocka_unit_test(test_message_unescape_as_yajl),
	    cmocka_unit_test(test_message_parts_as_whole),
	    cmocka_unit_test(test_concatenated_pages),
	    cmocka_unit_test(test_console_json),
	    cmocka_unit_test(test_shape_of_audit_is_none),
	    cmocka_unit_test(test_shape_of),
	    cmocka_unit_test(test_decode_errors),
	    cmocka_unit_test(test_csv_quoting),
	    cmocka_unit_test(test_csv_damage),
	    cmocka_unit_test(test_csv_oversize),
	    cmocka_unit_test(test_csv_no_message_column),
	    cmocka_unit_test(test_csv_sniff),
	    cmocka_unit_test(test_cwli_checker),
	    cmocka_unit_test(test_cwli_every_query),
	    cmocka_unit_test(test_cwli_options),
	    cmocka_unit_test(test_cwli_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
