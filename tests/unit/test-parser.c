/* test-parser.c - unit tests of the parser module: framing, decoding, time, input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include <cmocka.h>

#include "parser-int.h"

/* ---- a framer + decoder harness that records what it saw ---------------- */

#define MAX_SEEN 64

struct seen {
	int nrec, nrej;
	char name[MAX_SEEN][128];
	char verb[MAX_SEEN][32];
	char agent[MAX_SEEN][128];
	char identity[MAX_SEEN][640];
	int identity_set[MAX_SEEN];
	int code[MAX_SEEN];
	int64_t stage_us[MAX_SEEN];
	uint64_t line[MAX_SEEN];
	char reason[MAX_SEEN][160];
	uint64_t rej_line[MAX_SEEN];
	struct parser_audit_decoder *dec;
};

static void copy_str(char *dst, size_t size, struct lt_str s)
{
	snprintf(dst, size, "%.*s", (int)s.len, s.ptr ? s.ptr : "");
}

static int on_record(const char *text, size_t len, uint64_t line, uint64_t offset, void *ctx)
{
	struct seen *s = ctx;
	struct lt_audit_event ev;
	char reason[160];

	(void)offset;
	if (parser_audit_decode(s->dec, &ev, text, len, reason, sizeof reason) != 0) {
		snprintf(s->reason[s->nrej], sizeof s->reason[0], "%s", reason);
		s->rej_line[s->nrej++] = line;
		return 0;
	}
	copy_str(s->name[s->nrec], sizeof s->name[0], ev.name);
	copy_str(s->verb[s->nrec], sizeof s->verb[0], ev.verb);
	copy_str(s->agent[s->nrec], sizeof s->agent[0], ev.user_agent);
	copy_str(s->identity[s->nrec], sizeof s->identity[0], ev.identity);
	s->identity_set[s->nrec] = ev.identity.ptr != NULL;
	s->code[s->nrec] = ev.code;
	s->stage_us[s->nrec] = ev.stage_us;
	s->line[s->nrec++] = line;
	return 0;
}

static int on_reject(uint64_t line, uint64_t offset, const char *reason, void *ctx)
{
	struct seen *s = ctx;

	(void)offset;
	snprintf(s->reason[s->nrej], sizeof s->reason[0], "%s", reason);
	s->rej_line[s->nrej++] = line;
	return 0;
}

static const struct parser_frame_ops ops = {on_record, on_reject};

/* Frames len bytes fed in pieces of chunk bytes (0: all at once). */
static void frame_bytes(struct seen *s, const char *text, size_t len, size_t chunk)
{
	struct parser_frame *f = parser_frame_new(&ops, s, 4096);

	memset(s, 0, sizeof *s);
	s->dec = parser_audit_decoder_new();
	if (chunk == 0)
		chunk = len ? len : 1;
	for (size_t i = 0; i < len; i += chunk)
		assert_int_equal(parser_frame_feed(f, text + i, len - i < chunk ? len - i : chunk),
				 0);
	assert_int_equal(parser_frame_finish(f), 0);
	parser_frame_free(f);
	parser_audit_decoder_free(s->dec);
	s->dec = NULL;
}

static void frame_text(struct seen *s, const char *text, size_t chunk)
{
	frame_bytes(s, text, strlen(text), chunk);
}

#define EV(name, extra)                                                                            \
	"{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Metadata\","           \
	"\"auditID\":\"id-" name "\",\"stage\":\"ResponseComplete\",\"verb\":\"update\","          \
	"\"objectRef\":{\"resource\":\"leases\",\"namespace\":\"kube-node-lease\","                \
	"\"name\":\"" name "\"},\"responseStatus\":{\"code\":200},"                                \
	"\"stageTimestamp\":\"2024-04-05T06:04:14.668822Z\"" extra "}"

/* ---- tests ------------------------------------------------------------- */

static void test_time_parse(void **state)
{
	int64_t us;

	(void)state;
	assert_int_equal(lt_time_parse(&us, "1970-01-01T00:00:00Z", 20), 0);
	assert_int_equal(us, 0);
	assert_int_equal(lt_time_parse(&us, "2024-04-05T06:04:14.668822Z", 27), 0);
	assert_int_equal(us, 1712297054668822LL);
	/* nanoseconds are truncated, offsets applied, a space may replace T */
	assert_int_equal(lt_time_parse(&us, "2024-04-05T08:04:14.668822999+02:00", 35), 0);
	assert_int_equal(us, 1712297054668822LL);
	assert_int_equal(lt_time_parse(&us, "2024-04-05 06:04:14.6Z", 22), 0);
	assert_int_equal(us, 1712297054600000LL);
	assert_int_equal(lt_time_parse(&us, "2024-02-30T00:00:00Z", 20), LT_ERR_FORMAT);
	assert_int_equal(lt_time_parse(&us, "2024-04-05T06:04:14", 19), LT_ERR_FORMAT);
	assert_int_equal(lt_time_parse(&us, "2024-04-05T06:04:14.5", 21), LT_ERR_FORMAT);
	/* zone offsets are range-checked: hours 00..23, minutes 00..59 */
	assert_int_equal(lt_time_parse(&us, "2024-04-05T06:04:14+99:99", 25), LT_ERR_FORMAT);
	assert_int_equal(lt_time_parse(&us, "2024-04-05T06:04:14+24:00", 25), LT_ERR_FORMAT);
	assert_int_equal(lt_time_parse(&us, "2024-04-05T06:04:14-0060", 24), LT_ERR_FORMAT);
	assert_int_equal(lt_time_parse(&us, "2024-04-05T06:04:14-23:59", 25), 0);
	assert_int_equal(us, 1712297054000000LL + (23 * 3600 + 59 * 60) * 1000000LL);
	assert_int_equal(lt_time_parse(&us, "2024-04-05T11:34:14+0530", 24), 0);
	assert_int_equal(us, 1712297054000000LL);
}

static void test_time_format_roundtrip(void **state)
{
	char buf[40];
	int64_t us;

	(void)state;
	lt_time_format(buf, sizeof buf, 1712297054668822LL);
	assert_string_equal(buf, "2024-04-05T06:04:14.668822Z");
	assert_int_equal(lt_time_parse(&us, buf, strlen(buf)), 0);
	assert_int_equal(us, 1712297054668822LL);
	lt_time_format(buf, sizeof buf, 951782400000000LL); /* a leap day */
	assert_string_equal(buf, "2000-02-29T00:00:00.000000Z");
}

/* The same input gives the same records whatever the chunk size. */
static void test_frame_chunk_sizes(void **state)
{
	const char *text = EV("a", "") "\n" EV(
	    "b", ",\"userAgent\":\"x}{\\\"]\"") "\n"
						"{\"kind\":\"EventList\",\"items\":[" EV(
						    "c", "") "," EV("d", "") "]}\n[" EV("e",
											"") "]\n";
	struct seen s;

	(void)state;
	for (size_t chunk = 1; chunk <= strlen(text) + 1; chunk++) {
		frame_text(&s, text, chunk);
		assert_int_equal(s.nrej, 0);
		assert_int_equal(s.nrec, 5);
		assert_string_equal(s.name[0], "a");
		assert_string_equal(s.agent[1], "x}{\"]");
		assert_string_equal(s.name[2], "c");
		assert_string_equal(s.name[3], "d");
		assert_string_equal(s.name[4], "e");
		assert_int_equal(s.line[4], 4);
	}
}

static void test_frame_pretty_concatenated(void **state)
{
	const char *text =
	    "{\n  \"kind\": \"Event\",\n  \"verb\": \"get\",\n"
	    "  \"objectRef\": {\n    \"resource\": \"leases\",\n    \"name\": \"n1\"\n  },\n"
	    "  \"stageTimestamp\": \"2024-04-05T06:04:14Z\"\n}\n"
	    "{\n  \"verb\": \"create\",\n  \"objectRef\": {\"name\": \"n2\"},\n"
	    "  \"timestamp\": \"2017-09-11T19:55:05Z\"\n}";
	struct seen s;

	(void)state;
	frame_text(&s, text, 7);
	assert_int_equal(s.nrej, 0);
	assert_int_equal(s.nrec, 2);
	assert_int_equal(s.line[0], 1);
	assert_int_equal(s.line[1], 10);
	assert_string_equal(s.verb[1], "create");
	assert_int_equal(s.stage_us[1], 1505159705000000LL);
}

/* Each kind of damage is one reject with its line; good records around it survive. */
static void test_frame_damage(void **state)
{
	const char *text =
	    EV("a", "") "\n"
			"{\"kind\":\"Event\",\"verb\":\"get\",\"stageTi\n" EV(
			    "b", "") "\n"
				     "\x01\x02 garbage\n"
				     "42\n"
				     "{\"kind\":\"Pod\"}\n"
				     "{\"kind\": 0}\n"
				     "{\"kind\":\"Event\" \"verb\":1}\n" EV(
					 "c", "") "\n"
						  "{\"kind\":\"Event\",\"verb\":\"get\"";
	struct seen s;

	(void)state;
	frame_text(&s, text, 0);
	assert_int_equal(s.nrec, 3);
	assert_int_equal(s.nrej, 7);
	assert_string_equal(s.reason[0],
			    "record cut off: line 3 starts a new record before it ended");
	assert_int_equal(s.rej_line[0], 2);
	assert_string_equal(s.reason[1], "not a JSON object: line starts with byte 0x01");
	assert_string_equal(s.reason[2], "not a JSON object: line starts with '4'");
	assert_string_equal(s.reason[3], "not an audit event: kind is \"Pod\"");
	assert_string_equal(s.reason[4], "not an audit event: \"kind\" is not a string");
	assert_non_null(strstr(s.reason[5], "invalid JSON"));
	assert_int_equal(s.rej_line[5], 8);
	assert_string_equal(s.reason[6], "record cut off at end of input (truncated)");
	assert_int_equal(s.rej_line[6], 10);
}

static void test_frame_oversize(void **state)
{
	char *text = malloc(20000);
	struct seen s;

	(void)state;
	snprintf(text, 20000, "%s\n{\"kind\":\"Event\",\"x\":\"%0*d\"}\n%s\n", EV("a", ""), 8000, 0,
		 EV("b", ""));
	frame_text(&s, text, 100);
	assert_int_equal(s.nrec, 2);
	assert_int_equal(s.nrej, 1);
	assert_string_equal(s.reason[0], "record larger than 4096 bytes, skipped");
	assert_int_equal(s.rej_line[0], 2);
	free(text);
}

/* Appends n bytes of s (n = 0: all of it), then zeros zero bytes. */
static void put(struct lt_buf *b, const char *s, size_t n, size_t zeros)
{
	lt_buf_append(b, s, n ? n : strlen(s));
	for (size_t i = 0; i < zeros; i++)
		lt_buf_putc(b, 0);
}

/*
 * Blocks of zero bytes, as a crash leaves them in a file the writer then
 * goes on with: a record open at the zeros is cut off there (outside a
 * string and inside one), a record may follow the zeros on the same line,
 * and a run on its own line is skipped; however the bytes are chunked.
 */
static void test_frame_zeroed_blocks(void **state)
{
	struct lt_buf b;
	struct seen s;

	(void)state;
	lt_buf_init(&b);
	put(&b, EV("a", "") "\n", 0, 0);
	put(&b, EV("b", ""), 16, 600); /* {"kind":"Event", */
	put(&b, EV("c", "") "\n", 0, 0);
	put(&b, EV("e", ""), 40, 600); /* ... "apiVersion":"audit.k8s */
	put(&b, "\n", 0, 512);
	put(&b, "\n" EV("d", "") "\n", 0, 1);
	put(&b, "x\n{\"kind\":\"Event\",\"verb\":\"g", 0, 3);
	put(&b, "et\"}\n", 0, 0);
	for (size_t chunk = 1; chunk <= b.len; chunk += chunk < 64 ? 1 : 97) {
		frame_bytes(&s, b.ptr, b.len, chunk);
		assert_int_equal(s.nrec, 3);
		assert_string_equal(s.name[0], "a");
		assert_string_equal(s.name[1], "c");
		assert_int_equal(s.line[1], 2);
		assert_string_equal(s.name[2], "d");
		assert_int_equal(s.line[2], 5);
		assert_int_equal(s.nrej, 5);
		assert_string_equal(
		    s.reason[0], "record cut off by 600 zero bytes (a block zeroed by a crash?)");
		assert_int_equal(s.rej_line[0], 2);
		assert_string_equal(
		    s.reason[1], "record cut off by 600 zero bytes (a block zeroed by a crash?)");
		assert_int_equal(s.rej_line[1], 3);
		assert_string_equal(s.reason[2],
				    "skipped 512 zero bytes (a block zeroed by a crash?)");
		assert_int_equal(s.rej_line[2], 4);
		/* a lone zero byte is a bad byte like any other */
		assert_string_equal(s.reason[3], "not a JSON object: line starts with byte 0x00");
		assert_int_equal(s.rej_line[3], 6);
		assert_non_null(strstr(s.reason[4], "invalid JSON"));
		assert_int_equal(s.rej_line[4], 7);
	}
	lt_buf_release(&b);
}

/* \u escapes, surrogate pairs, and fields in any order with odd whitespace. */
static void test_decode_escapes_and_order(void **state)
{
	const char *text =
	    "{ \"stageTimestamp\" : \"2024-04-05T06:04:14Z\" ,\n\t\"userAgent\":"
	    "\"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\/\",\"verb\":\"get\","
	    "\"unknownField\":{\"nested\":[1,2,{\"objectRef\":{\"name\":\"wrong\"}}]},"
	    "\"objectRef\":{\"name\":\"n\\u0031\"},\"kind\":\"Event\"}";
	struct seen s;

	(void)state;
	frame_text(&s, text, 3);
	assert_int_equal(s.nrej, 0);
	assert_int_equal(s.nrec, 1);
	assert_string_equal(s.agent[0], "caf\xc3\xa9 \xf0\x9f\x98\x80 \"q\" /");
	assert_string_equal(s.name[0], "n1");
}

/*
 * The identity behind the user name, from user.extra: EKS (aws-iam-authenticator's
 * arrays), AKS's object id, a bound token's pod; what repeats the user or the ARN
 * is left out; the impersonated user's extra is not the caller's; values are
 * kept as they are (hostile bytes included: the printers sanitize) and bounded.
 */
static void test_audit_identity(void **state)
{
#define USER(name, extra) ",\"user\":{\"username\":\"" name "\",\"extra\":{" extra "}}"
	static char long_arn[1200];
	static const struct {
		const char *extra;
		const char *want; /* NULL: no identity */
	} cases[] = {
	    /* an EKS node: the session is the ARN's last word, not repeated */
	    {USER("system:node:ip-10-0-1-2",
		  "\"accessKeyId\":[\"ASIAX\"],\"arn\":[\"arn:aws:sts::1:assumed-role/Node/"
		  "i-0abc\"],\"canonicalArn\":[\"arn:aws:iam::1:role/Node\"],\"principalId\":"
		  "[\"AROAX\"],\"sessionName\":[\"i-0abc\"]"),
	     "arn:aws:sts::1:assumed-role/Node/i-0abc"},
	    /* an IAM user mapped to kubernetes-admin: an empty session says nothing */
	    {USER("kubernetes-admin",
		  "\"arn\":[\"arn:aws:iam::1:user/ops-admin\"],\"sessionName\":[\"\"]"),
	     "arn:aws:iam::1:user/ops-admin"},
	    /* no arn: the role, and the session it does not name */
	    {USER("admin", "\"sessionName\":[\"alice\"],\"canonicalArn\":[\"arn:aws:iam::1:"
			   "role/Admin\"]"),
	     "arn:aws:iam::1:role/Admin session=alice"},
	    {USER("admin", "\"principalId\":[\"AIDAX\"]"), "principal=AIDAX"},
	    /* AKS: the object id, unless it is the user name itself */
	    {USER("alice@contoso.com", "\"oid\":[\"0000-1111\"]"), "oid=0000-1111"},
	    {USER("0000-1111", "\"oid\":[\"0000-1111\"]"), NULL},
	    {USER("u", "\"http://schemas.microsoft.com/identity/claims/objectidentifier\":"
		       "[\"9999\"]"),
	     "oid=9999"},
	    /* a bound service account token */
	    {USER("system:serviceaccount:kube-system:aws-node",
		  "\"authentication.kubernetes.io/pod-name\":[\"aws-node-x\"],"
		  "\"authentication.kubernetes.io/pod-uid\":[\"u\"]"),
	     "pod=aws-node-x"},
	    /* GKE's subject that only repeats the user, and its delegation */
	    {USER("sa@p.iam.gserviceaccount.com",
		  "\"principalSubject\":[\"serviceAccount:sa@p.iam.gserviceaccount.com\"],"
		  "\"serviceAccountDelegationInfo\":[\"alice@example.com\"]"),
	     "via=alice@example.com"},
	    /* a plain string instead of an array; the first of several values */
	    {USER("a", "\"arn\":\"arn:aws:iam::1:user/x\",\"oid\":[\"o1\",\"o2\"]"),
	     "arn:aws:iam::1:user/x oid=o1"},
	    /* keys that say nothing of who, and no extra at all */
	    {USER("a", "\"scopes.authorization.openshift.io\":[\"user:full\"]"), NULL},
	    {",\"user\":{\"username\":\"a\"}", NULL},
	    /* the impersonated user's extra is not the caller's; the caller's is */
	    {USER("a", "\"oid\":[\"caller\"]") ",\"impersonatedUser\":{\"username\":\"b\","
					       "\"extra\":{\"oid\":[\"target\"]}}",
	     "oid=caller"},
	    /* hostile bytes stay as they are: control characters, quotes, bidi */
	    {USER("a", "\"oid\":[\"x\\u001b[2J\\\"y\\u202e\"]"), "oid=x\x1b[2J\"y\xe2\x80\xae"},
	};
	char text[2048], want[640];
	struct seen s;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		snprintf(text, sizeof text, EV("n", "%s"), cases[i].extra);
		for (size_t chunk = 0; chunk < 8; chunk += 7) {
			frame_text(&s, text, chunk);
			assert_int_equal(s.nrej, 0);
			assert_int_equal(s.nrec, 1);
			if (cases[i].want == NULL && s.identity_set[0])
				fail_msg("case %zu: identity '%s', want none", i, s.identity[0]);
			if (cases[i].want != NULL && strcmp(s.identity[0], cases[i].want) != 0)
				fail_msg("case %zu: identity '%s', want '%s'", i, s.identity[0],
					 cases[i].want);
		}
	}
	/* a value is cut to its bound, however long */
	memset(long_arn, 'a', sizeof long_arn - 1);
	snprintf(text, sizeof text,
		 EV("n", ",\"user\":{\"username\":\"u\",\"extra\":"
			 "{\"arn\":[\"%s\"]}}"),
		 long_arn);
	frame_text(&s, text, 0);
	assert_int_equal(s.nrec, 1);
	memset(want, 'a', 256);
	want[256] = '\0';
	assert_string_equal(s.identity[0], want);
#undef USER
}

static void test_sanitize(void **state)
{
	static const char hostile[] = "ok \x1b]0;title\x07 \xff caf\xc3\xa9 \xe2\x80\xae!\n";
	struct lt_buf b;

	(void)state;
	lt_buf_init(&b);
	lt_sanitize(&b, hostile, sizeof hostile - 1);
	assert_string_equal(b.ptr, "ok \\x1b]0;title\\x07 \\xff caf\xc3\xa9 \\u{202e}!\\n");
	lt_buf_release(&b);
}

/* The JSON writer: yajl's generator, hostile strings in keys and values, one value a take. */
static void test_json_writer(void **state)
{
	static const char key[] = "k\x1b]0;t\x07";
	static const char val[] = "a\"\\\n\xc2\x9b\xe2\x80\xae\xff"
				  "b";
	struct lt_json_writer *w = lt_json_writer_new();
	struct lt_buf b;

	(void)state;
	lt_buf_init(&b);
	lt_json_writer_map_open(w);
	lt_json_writer_string(w, key, sizeof key - 1);
	lt_json_writer_string(w, val, sizeof val - 1);
	lt_json_writer_string(w, "n", 1);
	lt_json_writer_number(w, "-0.5", 4);
	lt_json_writer_string(w, "z", 1);
	lt_json_writer_null(w);
	lt_json_writer_string(w, "list", 4);
	lt_json_writer_array_open(w);
	lt_json_writer_number(w, "1", 1);
	lt_json_writer_array_close(w);
	lt_json_writer_map_close(w);
	lt_json_writer_take(w, &b);
	/* control characters escaped, C1 and bidi kept as the UTF-8 they are, 0xff replaced */
	assert_string_equal(b.ptr, "{\"k\\u001B]0;t\\u0007\":\"a\\\"\\\\\\n\xc2\x9b\xe2\x80\xae"
				   "\xef\xbf\xbd"
				   "b\",\"n\":-0.5,\"z\":null,\"list\":[1]}");
	assert_true(lt_utf8_valid(b.ptr, b.len));
	/* after a take, the next value */
	lt_buf_reset(&b);
	lt_json_writer_string(w, "\xc3", 1);
	lt_json_writer_take(w, &b);
	assert_string_equal(b.ptr, "\"\xef\xbf\xbd\"");
	lt_buf_release(&b);
	lt_json_writer_free(w);
	lt_json_writer_free(NULL);
}

/* The check every printed JSON passes: valid JSON, valid UTF-8, one value or JSON lines. */
static void test_json_check(void **state)
{
	static const char one[] = "[{\"a\":\"caf\xc3\xa9\"},null]\n";
	static const char lines[] = "{\"a\":1}\n{\"a\":2}\n";
	static const char bad_utf8[] = "[\"\xff\"]";
	static const char cut[] = "[{\"a\":1}";

	(void)state;
	assert_int_equal(lt_json_check(one, sizeof one - 1, 1), 0);
	assert_int_equal(lt_json_check(lines, sizeof lines - 1, 2), 0);
	assert_int_equal(lt_json_check(lines, sizeof lines - 1, 1), LT_ERR_FORMAT);
	assert_int_equal(lt_json_check(bad_utf8, sizeof bad_utf8 - 1, 1), LT_ERR_FORMAT);
	assert_int_equal(lt_json_check(cut, sizeof cut - 1, 1), LT_ERR_FORMAT);
	assert_int_equal(lt_json_check("[1] // c", 8, 1), LT_ERR_FORMAT);
}

static void test_sniff(void **state)
{
	(void)state;
	assert_int_equal(lt_sniff("  \n{\"a\":1}", 10), LT_FMT_JSON);
	assert_int_equal(lt_sniff("\xef\xbb\xbf[", 4), LT_FMT_JSON);
	assert_int_equal(lt_sniff(" \n\t", 3), LT_FMT_EMPTY);
	assert_int_equal(lt_sniff("\x7f"
				  "ELF\x02\x01\x01\0\0\0",
				  10),
			 LT_FMT_BINARY);
	assert_int_equal(lt_sniff("# a README\n", 11), LT_FMT_UNKNOWN);
}

/* Zeroed blocks do not make a log binary; zeros scattered through the bytes do. */
static void test_sniff_zeros(void **state)
{
	static const char line[] = "Apr 05 06:04:04 n1 kubelet[1]: I0405 06:04:04.1 1 a.go:1] x\n";
	char buf[16384];
	size_t n = 0;

	(void)state;
	memset(buf, 0, sizeof buf);
	assert_int_equal(lt_sniff(buf, 4096), LT_FMT_BINARY);
	/* a zeroed block first, then JSON: the JSON decides */
	memcpy(buf + 4096, "{\"a\":1}\n", 8);
	assert_int_equal(lt_sniff(buf, 4104), LT_FMT_JSON);
	/* lines, a 4 KiB zeroed block, lines */
	for (n = 0; n + sizeof line < 4096; n += sizeof line - 1)
		memcpy(buf + n, line, sizeof line - 1);
	memset(buf + n, 0, 4096);
	n += 4096;
	for (size_t i = 0; i < 8; i++, n += sizeof line - 1)
		memcpy(buf + n, line, sizeof line - 1);
	assert_int_equal(lt_sniff(buf, n), LT_FMT_TEXT);
	/* the same text with a zero byte every eight: binary */
	for (size_t i = 0; i < n; i += 8)
		buf[i] = 0;
	assert_int_equal(lt_sniff(buf + 1, n - 1), LT_FMT_BINARY);
}

/* ---- content identity: the hash of what lt_input read ------------------------ */

/* Writes n pseudo-random bytes (lines of them, the last one open when open_end) to path. */
static void write_bytes(const char *path, size_t n, int gzip, int open_end)
{
	unsigned char *b = malloc(n);
	uint32_t x = 2463534242u;
	gzFile gz;
	FILE *f;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		b[i] = (i % 80 == 79) ? '\n' : (unsigned char)('a' + x % 26);
	}
	b[n - 1] = open_end ? 'z' : '\n';
	if (gzip) {
		assert_non_null(gz = gzopen(path, "wb"));
		assert_int_equal(gzwrite(gz, b, (unsigned)n), (int)n);
		gzclose(gz);
	} else {
		assert_non_null(f = fopen(path, "wb"));
		assert_int_equal(fwrite(b, 1, n, f), n);
		fclose(f);
	}
	free(b);
}

/* Reads all of path through lt_input in odd chunks; returns its final mark. */
static void read_all_marked(const char *path, struct lt_input_mark *m, int *ends_open)
{
	struct lt_input *in;
	char buf[1000];
	size_t got;

	assert_int_equal(lt_input_open(&in, path, NULL), 0);
	do
		assert_int_equal(lt_input_read(in, buf, sizeof buf - 7, &got, NULL), 0);
	while (got > 0);
	lt_input_mark(in, m);
	*ends_open = lt_input_ends_open(in);
	lt_input_free(in);
}

static void test_input_identity(void **state)
{
	static const struct {
		const char *name;
		size_t size;
		int gzip, open_end;
	} cases[] = {{"small.log", 1000, 0, 0},
		     {"big.log", 200000, 0, 1},
		     {"head.log", LT_INPUT_HEAD, 0, 0},
		     {"big.log.gz", 300000, 1, 1}};
	char path[512], hashes[2][33];
	struct lt_input_mark m;
	struct stat sb;
	int open_end;
	FILE *f;

	(void)state;
	mkdir(LT_TEST_TMP, 0755);
	/* the XXH3-128 of nothing, as `xxhsum -H2` prints it */
	snprintf(path, sizeof path, "%s/empty", LT_TEST_TMP);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
	assert_int_equal(lt_hash_prefixes(hashes, path, (uint64_t[]){0}, 1, NULL), 0);
	assert_string_equal(hashes[0], "99aa06d3014798d86001c324468d497f");
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint64_t lens[2];

		snprintf(path, sizeof path, "%s/%s", LT_TEST_TMP, cases[i].name);
		write_bytes(path, cases[i].size, cases[i].gzip, cases[i].open_end);
		assert_int_equal(stat(path, &sb), 0);
		read_all_marked(path, &m, &open_end);
		/* the mark covers every on-disk byte (compressed ones for gzip) */
		assert_int_equal(m.len, (uint64_t)sb.st_size);
		lens[0] = m.len < LT_INPUT_HEAD ? m.len : LT_INPUT_HEAD;
		lens[1] = m.len;
		assert_int_equal(lt_hash_prefixes(hashes, path, lens, 2, NULL), 0);
		assert_string_equal(m.head, hashes[0]);
		assert_string_equal(m.hash, hashes[1]);
		assert_int_equal(open_end, cases[i].open_end);
	}
	/* a length past the end is no hash */
	assert_int_equal(lt_hash_prefixes(hashes, path, (uint64_t[]){1, 10000000}, 2, NULL), 0);
	assert_int_equal(strlen(hashes[0]), 32);
	assert_string_equal(hashes[1], "");
}

/* ---- the framer's records as bytes: a view of the feed or gathered, the same ---- */

/* Every record's bytes, line and offset, and every reject's line, in one text. */
static int on_raw_record(const char *text, size_t len, uint64_t line, uint64_t offset, void *ctx)
{
	lt_buf_printf(ctx, "R %llu %llu %zu:", (unsigned long long)line, (unsigned long long)offset,
		      len);
	lt_buf_append(ctx, text, len);
	lt_buf_putc(ctx, '\n');
	return 0;
}

static int on_raw_reject(uint64_t line, uint64_t offset, const char *reason, void *ctx)
{
	lt_buf_printf(ctx, "X %llu %llu %s\n", (unsigned long long)line, (unsigned long long)offset,
		      reason);
	return 0;
}

static void frame_raw(struct lt_buf *out, const char *text, size_t len, size_t chunk)
{
	static const struct parser_frame_ops raw_ops = {on_raw_record, on_raw_reject};
	struct parser_frame *f = parser_frame_new(&raw_ops, out, 256);

	lt_buf_reset(out);
	for (size_t i = 0; i < len; i += chunk) {
		size_t n = len - i < chunk ? len - i : chunk;
		/* each piece in a buffer of its own, so a view past it would be caught by ASan */
		char *piece = lt_xmalloc(n);

		memcpy(piece, text + i, n);
		assert_int_equal(parser_frame_feed(f, piece, n), 0);
		free(piece);
	}
	assert_int_equal(parser_frame_finish(f), 0);
	parser_frame_free(f);
}

/*
 * A record handed out as a view of one read and one gathered over several
 * reads are the same bytes, line and offset: escapes and brackets in strings,
 * a list key split over reads, CRLF, a record over the cap (rejected, never
 * handed out), a pretty-printed one, a hard-wrapped one, and a last line
 * without its newline.
 */
static void test_frame_views(void **state)
{
	static const char text[] =
	    "{\"a\":\"x\\\"}\\\\\",\"b\":[{\"c\":\"]\"}]}\n"
	    "{\"kind\":\"List\",\"records\" : [ {\"r\":1}, [2], {\"r\":\"\\\\\"} ], "
	    "\"n\":\"items\"}\r\n"
	    "{\"big\":\"" /* 300 bytes: over the cap of 256 */
	    "0123456789012345678901234567890123456789012345678901234567890123456789"
	    "0123456789012345678901234567890123456789012345678901234567890123456789"
	    "0123456789012345678901234567890123456789012345678901234567890123456789"
	    "0123456789012345678901234567890123456789012345678901234567890123456789"
	    "01234567890123456789\"}\n"
	    "{\n  \"p\": {\n    \"q\": \"r\"\n  }\n}\n"
	    "{\"w\":\"0123456789012345678901234567890123456789\n"
	    "0123456789012345678901234567890123456789012345\n"
	    "0123456789\"}\n"
	    "{\"events\":[{\"e\":1}]}{\"last\":\"no newline\"}";
	struct lt_buf whole, piecewise;

	(void)state;
	lt_buf_init(&whole);
	lt_buf_init(&piecewise);
	frame_raw(&whole, text, sizeof text - 1, sizeof text - 1);
	/* what one read gives, spelled out */
	assert_non_null(
	    strstr(whole.ptr, "R 1 0 30:{\"a\":\"x\\\"}\\\\\",\"b\":[{\"c\":\"]\"}]}\n"));
	assert_non_null(strstr(whole.ptr, ":{\"r\":1}\n"));
	assert_non_null(strstr(whole.ptr, ":[2]\n"));
	assert_non_null(strstr(whole.ptr, ":{\"r\":\"\\\\\"}\n"));
	assert_non_null(strstr(whole.ptr, "X 3 102 record larger than 256 bytes, skipped\n"));
	assert_non_null(strstr(whole.ptr, "R 4 413 29:{\n  \"p\": {\n    \"q\": \"r\"\n  }\n}\n"));
	assert_non_null(
	    strstr(whole.ptr, ":{\"w\":\"01234567890123456789012345678901234567890123456789"));
	assert_non_null(strstr(whole.ptr, ":{\"e\":1}\n"));
	assert_non_null(strstr(whole.ptr, ":{\"last\":\"no newline\"}\n"));
	for (size_t chunk = 1; chunk < sizeof text; chunk++) {
		frame_raw(&piecewise, text, sizeof text - 1, chunk);
		assert_string_equal(piecewise.ptr, whole.ptr);
	}
	lt_buf_release(&whole);
	lt_buf_release(&piecewise);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_time_parse),
	    cmocka_unit_test(test_time_format_roundtrip),
	    cmocka_unit_test(test_frame_chunk_sizes),
	    cmocka_unit_test(test_frame_pretty_concatenated),
	    cmocka_unit_test(test_frame_damage),
	    cmocka_unit_test(test_frame_oversize),
	    cmocka_unit_test(test_frame_views),
	    cmocka_unit_test(test_decode_escapes_and_order),
	    cmocka_unit_test(test_audit_identity),
	    cmocka_unit_test(test_sanitize),
	    cmocka_unit_test(test_sniff),
	    cmocka_unit_test(test_sniff_zeros),
	    cmocka_unit_test(test_frame_zeroed_blocks),
	    cmocka_unit_test(test_input_identity),
	    cmocka_unit_test(test_json_writer),
	    cmocka_unit_test(test_json_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
