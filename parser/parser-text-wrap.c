/*
 * parser-text-wrap.c - hard-wrapped pastes of journals, klog and JSON log
 * lines (a terminal or an issue tracker broke each line at a fixed width).
 *
 * A line whose head was plainly cut mid-token is held until the next line
 * says whether it goes on: a klog header cut before its "file.go:N]", a
 * JSON log line whose object never closes, a structured klog message whose
 * quoted value never closes, a journal header ("-- Logs begin at ...") that
 * does not end in "--", or, once the paste's width is known, a line of
 * exactly that width (a klog header cut inside its time counts as cut: the
 * journal line before it has a time of its own).  A next line with no header of its own (no journal
 * date, ISO time, klog header, "IDENT[PID]:" or JSON log object) is joined to
 * it, with nothing between, and the joined line is read as one, at the
 * first line's place, its ext_id saying "hard-wrapped: lines A-B joined".
 * Anything else lets the held line go as it was: a wrap that is not plain is
 * kept as today (the rest at its head's time, parser-text-untimed.c) or
 * rejected with today's reason.  The width is learned from the first line
 * joined after a plain cut: its length in code points (lines wrapped before
 * it are kept as they were).
 */
#include "parser-text.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* A paste narrower than this is no terminal's width: not learned. */
#define WRAP_MIN_WIDTH 40

/* Code points of s[0..n) (UTF-8; a stray byte counts as one). */
static size_t wrap_width_of(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Where the message starts after a journal or syslog prefix ("DATE HOST IDENT: "), else 0. */
static size_t wrap_message_at(const char *s, size_t n)
{
	struct lt_log_line probe;
	struct parser_klog k;
	const char *sp;
	int64_t us, tod;
	int mon, day;
	size_t took = parser_text_short_date(s, n, &mon, &day, &tod), id, rest;

	if (took == 0 && (took = parser_text_iso(s, n, &us, NULL)) == 0)
		return 0;
	if (parser_klog_header(&k, s + took, n - took) > 0 || (took < n && s[took] == '{'))
		return took; /* a CloudWatch record: TIME MESSAGE */
	if ((sp = memchr(s + took, ' ', n - took)) == NULL)
		return took;
	rest = n - (size_t)(sp + 1 - s);
	id = parser_text_ident(&probe, sp + 1, rest, 0);
	return (size_t)(sp + 1 - s) + id;
}

/* True when a structured message's quotes leave a value open ("msg" key="val...). */
static int wrap_quote_open(const char *m, size_t n)
{
	int open = 0;

	if (n == 0 || m[0] != '"')
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (m[i] == '\\' && open)
			i++;
		else if (m[i] == '"')
			open = !open;
	}
	return open;
}

/* True when m[0..n) is the start of a klog header cut before its time ended ("E0405 05:5"). */
static int wrap_cut_stamp(const char *m, size_t n)
{
	static const char shape[] = "Ldddd dd:dd:dd.dddddd";

	if (n < 2 || n >= sizeof shape - 1 || strchr("IWEF", m[0]) == NULL || m[0] == '\0')
		return 0;
	for (size_t i = 1; i < n; i++)
		if (shape[i] == 'd' ? !parser_text_is_digit(m[i]) : m[i] != shape[i])
			return 0;
	return 1;
}

/* True when the message at m was plainly cut mid-token: a klog header or a JSON object. */
static int wrap_cut_head(const char *m, size_t n)
{
	struct parser_klog k;
	size_t h = parser_klog_header(&k, m, n);

	if (h == 0 && wrap_cut_stamp(m, n))
		return 1;

	while (n > 0 && (m[n - 1] == ' ' || m[n - 1] == '\t'))
		n--;
	if (h > 0)
		return k.location.ptr == NULL;
	return n > 2 && m[0] == '{' && m[1] == '"' && m[n - 1] != '}';
}

size_t parser_text_klog_header(struct parser_textlog *t, struct parser_klog *out, const char *s,
			       size_t len)
{
	if (t->klog_at == NULL || t->klog_at != s || t->klog_len != len)
		return parser_klog_header(out, s, len);
	*out = t->klog;
	return t->klog_took;
}

/* parser_klog_header, remembered for the line's own reading (parser_text_klog_header). */
static size_t wrap_klog_header(struct parser_textlog *t, struct parser_klog *out, const char *s,
			       size_t len)
{
	t->klog_took = parser_klog_header(&t->klog, s, len);
	t->klog_at = s;
	t->klog_len = len;
	*out = t->klog;
	return t->klog_took;
}

/* True when the line s[0..n) (joined so far) looks cut; piece is the last physical line. */
static int wrap_cut(struct parser_textlog *t, const char *s, size_t n, const char *piece, size_t pn)
{
	size_t m = wrap_message_at(s, n), h, e = n;
	struct parser_klog k;

	if (t->wrap_width > 0 && wrap_width_of(piece, pn) == t->wrap_width)
		return 1;
	/* journalctl's own lines end in "--": one that does not was cut */
	if (parser_text_header_line(s, n))
		return n < 2 || s[n - 2] != '-' || s[n - 1] != '-';
	if ((h = wrap_klog_header(t, &k, s + m, n - m)) == 0)
		return wrap_cut_head(s + m, n - m);
	if (k.location.ptr == NULL)
		return 1;
	while (e > m + h && (s[e - 1] == ' ' || s[e - 1] == '\t'))
		e--;
	/* a structured line that ends in a quote closed its last value (the cheap common case) */
	return e > m + h && s[e - 1] != '"' && wrap_quote_open(s + m + h, e - m - h);
}

/* True when a line has no header of its own: it can go on with the line before. */
static int wrap_headerless(const char *s, size_t n)
{
	struct lt_log_line probe;
	struct parser_klog k;
	int64_t us, tod;
	int mon, day;

	return n > 0 && !parser_text_header_line(s, n) &&
	       parser_text_short_date(s, n, &mon, &day, &tod) == 0 &&
	       parser_text_iso(s, n, &us, NULL) == 0 && parser_klog_header(&k, s, n) == 0 &&
	       parser_text_ident(&probe, s, n, 1) == 0 && !parser_text_jsonlog_line(s, n) &&
	       parser_text_ui_time(s, n, &us) == 0;
}

/* Reads the held line, joined or not, at its own place; then holds nothing. */
int parser_text_wrap_release(struct parser_textlog *t)
{
	uint64_t line = t->line_no, offset = t->offset;
	int rc;

	if (!t->wrap_held)
		return 0;
	t->wrap_held = 0;
	t->line_no = t->wrap_line;
	t->offset = t->wrap_offset;
	if (t->wrap_lines > 1)
		snprintf(t->wrap_note, sizeof t->wrap_note, "hard-wrapped: lines %llu-%llu joined",
			 (unsigned long long)t->wrap_line,
			 (unsigned long long)(t->wrap_line + t->wrap_lines - 1));
	t->wrap_noted = t->wrap_lines > 1;
	rc = parser_text_line_one(t, t->whold.ptr, t->whold.len);
	t->wrap_noted = 0;
	t->line_no = line;
	t->offset = offset;
	lt_buf_reset(&t->whold);
	return rc;
}

/* The next line goes on with the held one: joined; the width learned from a cut head. */
static int wrap_join(struct parser_textlog *t, const char *s, size_t n)
{
	if (t->wrap_lines == 1 && t->wrap_width == 0 && t->wrap_head_cut) {
		size_t w = wrap_width_of(t->whold.ptr, t->whold.len);

		t->wrap_width = w >= WRAP_MIN_WIDTH ? w : 0;
	}
	lt_buf_append(&t->whold, s, n);
	t->wrap_lines++;
	if (wrap_cut(t, t->whold.ptr, t->whold.len, s, n))
		return 0;
	return parser_text_wrap_release(t);
}

static int wrap_line(struct parser_textlog *t, const char *s, size_t n)
{
	int rc;

	if (t->wrap_held) {
		if (wrap_headerless(s, n) && t->whold.len + n <= PARSER_TEXT_MAX_LINE)
			return wrap_join(t, s, n);
		if ((rc = parser_text_wrap_release(t)) != 0)
			return rc;
	}
	if (n == 0 || !wrap_cut(t, s, n, s, n))
		return parser_text_line_one(t, s, n);
	t->wrap_held = 1;
	/* held for a cut, not for the width alone: the width may be learned from it */
	t->wrap_head_cut = t->wrap_width == 0 || wrap_width_of(s, n) != t->wrap_width;
	t->wrap_line = t->line_no;
	t->wrap_offset = t->offset;
	t->wrap_lines = 1;
	lt_buf_reset(&t->whold);
	lt_buf_append(&t->whold, s, n);
	assert(t->whold.len == n);
	return 0;
}

/* Reads line s[0..n), or holds it for the next (a hard wrap), as the file's header says. */
int parser_text_wrap_line(struct parser_textlog *t, const char *s, size_t n)
{
	int rc;

	t->klog_at = NULL;
	rc = wrap_line(t, s, n);
	t->klog_at = NULL; /* the bytes it read may be another line's by the next call */
	return rc;
}
