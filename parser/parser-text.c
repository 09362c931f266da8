/*
 * parser-text.c - the line reader of text logs: bytes in chunks to whole
 * lines (a line split across chunks is joined; one over
 * PARSER_TEXT_MAX_LINE is skipped and reported, however it was chunked; a
 * run of zero bytes a crash left cuts a line), each handed to
 * parser-text-line.c; and the sniffer that tells a text log by its first
 * lines.  The other parser-text-*.c files hold what a line needs: the
 * scanners, the year rules, components, leader-lease memory, CloudWatch
 * records over several lines, container runtimes' partial lines and
 * hard-wrapped lines joined (parser-text-wrap.c, between the reader and
 * parser-text-line.c).
 */
#include "parser-text.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Where a record starts; the caller counts it in t->index once it is one. */
struct lt_where parser_text_where(struct parser_textlog *t, uint64_t line, uint64_t offset)
{
	struct lt_where at = {t->path, line, offset, t->index, {NULL, 0}, {NULL, 0}, {NULL, 0}};

	return at;
}

int parser_text_reject(struct parser_textlog *t, const struct lt_where *at, const char *reason)
{
	if (at->offset < t->sink->resume_offset)
		return 0;
	return t->sink->reject(at, reason, t->ctx);
}

struct parser_textlog *parser_textlog_new(const struct lt_sink *sink, void *ctx,
					  struct lt_input *in, parser_json_route_fn route,
					  void *route_ctx)
{
	struct parser_textlog *t = lt_xcalloc(1, sizeof *t);

	t->sink = sink;
	t->ctx = ctx;
	t->route = route;
	t->route_ctx = route_ctx;
	t->path = in ? lt_input_path(in) : "-";
	t->mtime = in ? lt_input_mtime(in) : 0;
	parser_text_basis_init(t);
	t->path_component = parser_text_path_component(t->path);
	parser_text_path_stream(t, t->path);
	t->line_no = 1;
	lt_buf_init(&t->part);
	lt_buf_init(&t->pend);
	lt_buf_init(&t->msg);
	lt_buf_init(&t->fields);
	lt_buf_init(&t->text);
	lt_buf_init(&t->wrap);
	lt_buf_init(&t->whold);
	lt_buf_init(&t->cpart_raw);
	lt_buf_init(&t->cpart_msg);
	lt_buf_init(&t->cpart_host);
	lt_buf_init(&t->held);
	lt_buf_init(&t->last_who);
	return t;
}

void parser_textlog_free(struct parser_textlog *t)
{
	if (t == NULL)
		return;
	parser_classifier_free(t->cls);
	lt_buf_release(&t->part);
	lt_buf_release(&t->pend);
	lt_buf_release(&t->msg);
	lt_buf_release(&t->fields);
	lt_buf_release(&t->text);
	lt_buf_release(&t->wrap);
	lt_buf_release(&t->whold);
	lt_buf_release(&t->cpart_raw);
	lt_buf_release(&t->cpart_msg);
	lt_buf_release(&t->cpart_host);
	lt_buf_release(&t->held);
	lt_buf_release(&t->last_who);
	free(t);
}

/* Lets go what waits for more lines: a wrapped line, a CloudWatch record, a container line's parts.
 */
static int text_held_flush(struct parser_textlog *t)
{
	int rc = parser_text_wrap_release(t);

	if (rc == 0)
		rc = parser_text_pend_flush(t);

	return rc != 0 ? rc : parser_text_cpart_flush(t);
}

/* The first run of at least PARSER_ZERO_BLOCK zero bytes in s: its start, and its length in *run.
 */
static const char *text_zero_run(const char *s, size_t n, size_t *run)
{
	const char *end = s + n, *z;

	while ((z = memchr(s, 0, (size_t)(end - s))) != NULL) {
		for (*run = 0; z + *run < end && z[*run] == 0;)
			++*run;
		if (*run >= PARSER_ZERO_BLOCK)
			return z;
		s = z + *run;
	}
	return NULL;
}

/*
 * A line holding a run of zero bytes: a block the file system zeroed in a
 * crash, with the writer going on after it.  What comes before the zeros
 * was cut off and is rejected; what follows starts a line of its own.
 */
static int text_line_zeroed(struct parser_textlog *t, const char *s, size_t n)
{
	size_t pre, run = 0;
	const char *z = text_zero_run(s, n, &run);
	struct lt_where at;
	char reason[128];
	int rc;

	if (z == NULL)
		return parser_text_line(t, s, n);
	pre = (size_t)(z - s);
	if ((rc = text_held_flush(t)) != 0)
		return rc;
	snprintf(reason, sizeof reason, "%s %zu zero bytes (a block zeroed by a crash?)",
		 pre > 0 ? "line cut off by" : "skipped", run);
	at = parser_text_where(t, t->line_no, t->offset);
	t->index++;
	if ((rc = parser_text_reject(t, &at, reason)) != 0 || pre + run == n)
		return rc;
	t->offset += pre + run;
	return text_line_zeroed(t, s + pre + run, n - pre - run);
}

/* A whole line is there (its bytes s[0..n), without the newline). */
static int text_take(struct parser_textlog *t, const char *s, size_t n, uint64_t next_offset)
{
	int rc;

	/* the reader never holds more than a line's cap: longer ones are only counted */
	assert(n <= PARSER_TEXT_MAX_LINE);
	assert(t->part.len <= PARSER_TEXT_MAX_LINE);
	if (t->part_over) {
		struct lt_where at = parser_text_where(t, t->line_no, t->offset);

		t->index++;
		rc = parser_text_reject(t, &at, "over-long line (more than 1 MiB): skipped");
	} else {
		/* a UTF-8 byte order mark (Windows editors, some exports) is not the first line's
		 */
		if (t->offset == 0 && n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
			s += 3, n -= 3;
		rc = text_line_zeroed(t, s, n);
	}
	t->part_over = 0;
	t->line_no++;
	t->offset = next_offset;
	return rc;
}

int parser_textlog_feed(struct parser_textlog *t, const char *buf, size_t len)
{
	size_t i = 0;
	int rc = 0;

	assert(t != NULL && (buf != NULL || len == 0));
	while (i < len && rc == 0) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (buf + i)) : len - i;
		uint64_t next = t->offset + t->part.len + n + 1;

		/* a whole line in buf is taken in place, unless too long: that is a reject
		 * however the bytes were chunked */
		if (t->part.len == 0 && !t->part_over && nl && n <= PARSER_TEXT_MAX_LINE) {
			rc = text_take(t, buf + i, n, next);
		} else {
			if (t->part.len + n > PARSER_TEXT_MAX_LINE)
				t->part_over = 1;
			else
				lt_buf_append(&t->part, buf + i, n);
			if (nl) {
				rc = text_take(t, t->part.ptr, t->part.len, next);
				lt_buf_reset(&t->part);
			}
		}
		i += n + (nl != NULL);
	}
	return rc;
}

int parser_textlog_finish(struct parser_textlog *t)
{
	int rc = 0;

	if (t->part.len > 0 || t->part_over)
		rc = text_take(t, t->part.ptr, t->part.len, t->offset + t->part.len);
	lt_buf_reset(&t->part);
	if (rc == 0)
		rc = text_held_flush(t);
	/* lines without a time that no line with one followed */
	return rc != 0 ? rc : parser_text_untimed_flush(t, 0);
}

/*
 * A line that can only be a log line: a journal date, a klog header (or one after a viewer's
 * time), a JSON log line, an ISO time, a fragment.
 */
static int text_known_line(const char *s, size_t n)
{
	struct lt_log_line ln;
	struct parser_klog k;
	int64_t us, tod;
	int mon, day;
	size_t ui = parser_text_ui_time(s, n, &us);

	return parser_text_header_line(s, n) || parser_text_jsonlog_line(s, n) ||
	       (ui > 0 && parser_klog_header(&k, s + ui, n - ui) > 0) ||
	       parser_text_short_date(s, n, &mon, &day, &tod) > 0 ||
	       parser_klog_header(&k, s, n) > 0 || parser_text_iso(s, n, &us, NULL) > 0 ||
	       parser_text_ident(&ln, s, n, 1) > 0;
}

int parser_text_sniff(const char *buf, size_t len)
{
	size_t i = 0;

	for (int lines = 0; i < len && lines < 64; lines++) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (buf + i)) : len - i;

		if (text_known_line(buf + i, n))
			return 1;
		i += n + 1;
	}
	return 0;
}
