/*
 * parser-text-untimed.c - lines of a text log that carry no time of their
 * own: a component's stderr before klog took over (`Flag --address has been
 * deprecated, ...` at the top of `kubectl logs`), the rest of a hard-wrapped
 * journal line, a message's second line.  Every line is kept, as a journal
 * keeps it: such a line takes the time of the line before it, or, at the
 * top of a file, of the first line after it that has one (up to
 * PARSER_TEXT_HELD lines or PARSER_TEXT_HELD_BYTES wait for it; the others,
 * and those of a file with no time at all, are rejected with their reason).
 * Its message is the line as written: no severity, no klog time, no kind
 * (a fragment's words name no subject for sure); its host, ident and pid
 * are those of the line it takes its time from (a journal's, when it is one).
 */
#include "parser-text.h"

#include <string.h>

/* Hands on one untimed line at time ts. */
static int untimed_emit(struct parser_textlog *t, const char *s, size_t n,
			const struct lt_where *at, int64_t ts)
{
	struct lt_log_line ln;

	if (at->offset < t->sink->resume_offset)
		return 0;
	parser_text_line_init(&ln, s, n);
	ln.ts_us = ts;
	ln.message = (struct lt_str){s, n};
	if (t->last_host_len > 0)
		ln.host = (struct lt_str){t->last_who.ptr, t->last_host_len};
	if (t->last_ident_len > 0)
		ln.ident = (struct lt_str){t->last_who.ptr + t->last_host_len, t->last_ident_len};
	ln.pid = t->last_pid;
	parser_text_component(t, &ln);
	return t->sink->log(&ln, at, t->ctx);
}

int parser_text_untimed(struct parser_textlog *t, const char *s, size_t n,
			const struct lt_where *at, const char *reason)
{
	struct parser_text_held *h;

	if (t->last_ts != 0)
		return untimed_emit(t, s, n, at, t->last_ts);
	if (t->nheld == PARSER_TEXT_HELD ||
	    t->held.len + n + at->ext_id.len + at->stream.len + at->cluster.len >
		PARSER_TEXT_HELD_BYTES)
		return parser_text_reject(t, at, reason);
	h = &t->held_at[t->nheld++];
	h->at = *at;
	h->start = t->held.len;
	h->len = n;
	h->reason = reason;
	/* the envelope's strings live only as long as its record: keep copies */
	lt_buf_append(&t->held, s, n);
	lt_buf_append(&t->held, at->ext_id.ptr ? at->ext_id.ptr : "", at->ext_id.len);
	lt_buf_append(&t->held, at->stream.ptr ? at->stream.ptr : "", at->stream.len);
	lt_buf_append(&t->held, at->cluster.ptr ? at->cluster.ptr : "", at->cluster.len);
	return 0;
}

/* Where held line h was, its strings in the held buffer as it now is. */
static struct lt_where untimed_where(const struct parser_textlog *t,
				     const struct parser_text_held *h)
{
	struct lt_where at = h->at;
	const char *copy = t->held.ptr + h->start + h->len;

	if (at.ext_id.ptr != NULL)
		at.ext_id.ptr = copy;
	if (at.stream.ptr != NULL)
		at.stream.ptr = copy + at.ext_id.len;
	if (at.cluster.ptr != NULL)
		at.cluster.ptr = copy + at.ext_id.len + at.stream.len;
	return at;
}

int parser_text_untimed_flush(struct parser_textlog *t, int64_t ts)
{
	int rc = 0;

	for (size_t i = 0; i < t->nheld && rc == 0; i++) {
		const struct parser_text_held *h = &t->held_at[i];
		struct lt_where at = untimed_where(t, h);

		rc = ts != 0 ? untimed_emit(t, t->held.ptr + h->start, h->len, &at, ts)
			     : parser_text_reject(t, &at, h->reason);
	}
	t->nheld = 0;
	lt_buf_reset(&t->held);
	return rc;
}

int parser_text_timed(struct parser_textlog *t, const struct lt_log_line *ln)
{
	lt_buf_reset(&t->last_who);
	lt_buf_append(&t->last_who, ln->host.ptr ? ln->host.ptr : "", ln->host.len);
	lt_buf_append(&t->last_who, ln->ident.ptr ? ln->ident.ptr : "", ln->ident.len);
	t->last_host_len = ln->host.len;
	t->last_ident_len = ln->ident.len;
	t->last_pid = ln->pid;
	t->last_ts = ln->ts_us;
	return t->nheld > 0 ? parser_text_untimed_flush(t, ln->ts_us) : 0;
}
