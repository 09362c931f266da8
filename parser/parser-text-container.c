/*
 * parser-text-container.c - container runtime logs: CRI lines (containerd,
 * CRI-O: "TIME stdout F MESSAGE") and docker json-file records, whose
 * partial records (over 16 KiB) are joined back into one line.
 */
#include "parser-text.h"

#include <assert.h>
#include <string.h>

/*
 * A container runtime writes a line over 16 KiB as partial records, the
 * last one closing it (CRI: tag P, then F; docker json-file: a "log"
 * without its newline).  The parts become one line again, their raw lines
 * joined by newlines, at the first part's time and place.
 */
int parser_text_cpart_flush(struct parser_textlog *t)
{
	struct lt_where at = t->cpart_at;
	struct lt_log_line ln;

	assert(t->cpart_open || !t->cpart_over); /* only an open line can have grown too long */
	if (!t->cpart_open)
		return 0;
	t->cpart_open = 0;
	if (t->cpart_over) {
		t->cpart_over = 0;
		return parser_text_reject(t, &at,
					  "over-long line (more than 1 MiB in partial records)");
	}
	parser_text_line_init(&ln, t->cpart_raw.ptr, t->cpart_raw.len);
	ln.ts_us = t->cpart_ts;
	if (t->cpart_host.len > 0)
		ln.host = (struct lt_str){t->cpart_host.ptr, t->cpart_host.len};
	if (t->cpart_comp != NULL)
		ln.component = (struct lt_str){t->cpart_comp, strlen(t->cpart_comp)};
	return parser_textlog_message(t, &ln, t->cpart_msg.ptr, t->cpart_msg.len, &at);
}

int parser_textlog_container(struct parser_textlog *t, struct lt_log_line *ln, const char *msg,
			     size_t len, int partial, const struct lt_where *at)
{
	return parser_text_container_as(t, ln, msg, len, partial, at, NULL);
}

int parser_text_container_as(struct parser_textlog *t, struct lt_log_line *ln, const char *msg,
			     size_t len, int partial, const struct lt_where *at, const char *comp)
{
	assert(t->cpart_open || !t->cpart_over);
	if (!partial && !t->cpart_open)
		return parser_textlog_message(t, ln, msg, len, at);
	if (!t->cpart_open) {
		t->cpart_open = 1;
		t->cpart_ts = ln->ts_us;
		t->cpart_at = *at;
		t->cpart_at.stream = t->cpart_at.ext_id = t->cpart_at.cluster =
		    (struct lt_str){NULL, 0};
		lt_buf_reset(&t->cpart_raw);
		lt_buf_reset(&t->cpart_msg);
		lt_buf_reset(&t->cpart_host);
		if (ln->host.ptr != NULL)
			lt_buf_append(&t->cpart_host, ln->host.ptr, ln->host.len);
		t->cpart_comp = comp;
	} else {
		lt_buf_putc(&t->cpart_raw, '\n');
	}
	if (t->cpart_raw.len + ln->raw.len + t->cpart_msg.len + len > PARSER_TEXT_MAX_LINE) {
		t->cpart_over = 1;
	} else {
		lt_buf_append(&t->cpart_raw, ln->raw.ptr, ln->raw.len);
		lt_buf_append(&t->cpart_msg, msg, len);
	}
	return partial ? 0 : parser_text_cpart_flush(t);
}

/*
 * After a CRI line's time (containerd, CRI-O: /var/log/pods/.../0.log):
 * "stdout F " or "stderr P " (later tags follow a colon: "F:x").  The bytes
 * taken, 0 if it is not one; *partial for tag P.
 */
size_t parser_text_cri_tag(const char *s, size_t n, int *partial)
{
	size_t i = 8;

	if (n < 8 ||
	    (!parser_text_prefix(s, n, "stdout ") && !parser_text_prefix(s, n, "stderr ")) ||
	    (s[7] != 'F' && s[7] != 'P'))
		return 0;
	if (i < n && s[i] == ':')
		while (i < n && s[i] != ' ')
			i++;
	if (i < n && s[i] != ' ')
		return 0;
	*partial = s[7] == 'P';
	return i < n ? i + 1 : i;
}

/*
 * True when a line is a CRI line (it goes on with a partial one): on its own, or forwarded by
 * syslog ("DATE HOST TAG: " before it).
 */
int parser_text_cri_line(const char *s, size_t n)
{
	struct lt_log_line probe;
	const char *sp;
	int64_t us, tod;
	int partial, mon, day;
	size_t took = parser_text_iso(s, n, &us, NULL), rest, id;

	if (took > 0 && parser_text_cri_tag(s + took, n - took, &partial) > 0)
		return 1;
	if (took == 0 && (took = parser_text_short_date(s, n, &mon, &day, &tod)) == 0)
		return 0;
	if ((sp = memchr(s + took, ' ', n - took)) == NULL)
		return 0;
	rest = n - (size_t)(sp + 1 - s);
	id = parser_text_ident(&probe, sp + 1, rest, 0);
	return id > 0 && parser_text_cri_record(sp + 1 + id, rest - id, &us, &partial) > 0;
}
