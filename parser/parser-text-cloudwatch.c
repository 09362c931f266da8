/*
 * parser-text-cloudwatch.c - CloudWatch's text shapes: "TIME MESSAGE" (an
 * S3 export) and "TIME STREAM MESSAGE" (`aws logs tail`).  A record may go
 * on over several lines (a stack trace, a multi-line value): it is held in
 * pend until a line opens a record of its own, then handed on, its message
 * an audit Event (routed back) or a log line (to the sink): klog, a JSON
 * log line, a shipper's JSON record wrapping one, or any other text.
 */
#include "parser-text.h"

#include <assert.h>
#include <string.h>

/* True when a line opens a record of its own rather than going on with the last one. */
static int text_opens_record(const char *s, size_t n)
{
	int64_t us;

	return parser_text_iso(s, n, &us, NULL) > 0;
}

static int text_pend_emit(struct parser_textlog *t)
{
	struct lt_log_line ln;
	struct lt_where at;
	const char *msg;
	size_t len;

	/* an open record: its message and the stream it names lie inside it */
	assert(t->pend.len > 0 && t->pend_msg <= t->pend.len);
	assert(t->pend_stream_at + t->pend_stream_len <= t->pend.len);
	at = parser_text_where(t, t->pend_line, t->pend_offset);
	t->index++;
	if (t->pend_stream_len > 0)
		at.stream = (struct lt_str){t->pend.ptr + t->pend_stream_at, t->pend_stream_len};
	else if (t->stream[0] != '\0')
		at.stream = (struct lt_str){t->stream, strlen(t->stream)};
	msg = t->pend.ptr + t->pend_msg;
	len = t->pend.len - t->pend_msg;
	if (len > 0 && msg[0] == '{' && parser_audit_probe(msg, len)) {
		if (at.offset < t->sink->resume_offset)
			return 0;
		return t->route(msg, len, &at, t->route_ctx);
	}
	parser_text_line_init(&ln, t->pend.ptr, t->pend_msg + len);
	ln.ts_us = t->pend_ts;
	if (at.stream.ptr) {
		const char *c = parser_stream_component(at.stream);

		if (c)
			ln.component = (struct lt_str){c, strlen(c)};
	}
	return parser_textlog_message(t, &ln, msg, len, &at);
}

/* Hands on the CloudWatch text record held in pend, if any, and empties pend. */
int parser_text_pend_flush(struct parser_textlog *t)
{
	int rc;

	if (t->pend.len == 0)
		return 0;
	rc = text_pend_emit(t);
	lt_buf_reset(&t->pend);
	return rc;
}

/* "TIME MESSAGE" (S3 export) or "TIME STREAM MESSAGE" (aws logs tail). */
int parser_text_cloudwatch(struct parser_textlog *t, const char *s, size_t n, size_t took,
			   int64_t ts)
{
	struct parser_klog k;
	const char *sp = took < n ? memchr(s + took, ' ', n - took) : NULL;
	size_t msg = took, slen = 0;

	if (sp != NULL && sp + 1 < s + n && s[took] != '{' &&
	    parser_klog_header(&k, s + took, n - took) == 0 &&
	    (sp[1] == '{' || parser_klog_header(&k, sp + 1, n - (size_t)(sp + 1 - s)) > 0)) {
		slen = (size_t)(sp - (s + took)); /* the tail form names the stream */
		msg = took + slen + 1;
	}
	lt_buf_reset(&t->pend);
	lt_buf_append(&t->pend, s, n);
	t->pend_msg = msg;
	t->pend_ts = ts;
	t->pend_line = t->line_no;
	t->pend_offset = t->offset;
	t->pend_stream_at = took;
	t->pend_stream_len = slen;
	t->pended = 1;
	return 0;
}

int parser_text_pend_continue(struct parser_textlog *t, const char *s, size_t n)
{
	if (t->pend.len == 0 || text_opens_record(s, n))
		return 0;
	/* a CloudWatch message going on over lines (a stack trace, a multi-line value) */
	if (t->pend.len + n < PARSER_TEXT_MAX_LINE) {
		lt_buf_putc(&t->pend, '\n');
		lt_buf_append(&t->pend, s, n);
	}
	return 1;
}
