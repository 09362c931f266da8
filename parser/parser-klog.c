/* parser-klog.c - klog headers and structured messages ("Msg" key="value" key2=value). */
#include "parser-int.h"

#include <string.h>

/* Reads exactly n digits at s into *out; 0 when one is not a digit. */
static int klog_digits(int64_t *out, const char *s, size_t n)
{
	int64_t v = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 1;
}

/* "Lmmdd hh:mm:ss.uuuuuu": the fixed-width first 21 bytes of a header. */
static int klog_stamp(struct parser_klog *out, const char *s)
{
	int64_t mo, d, h, mi, se, us;

	if ((s[0] != 'I' && s[0] != 'W' && s[0] != 'E' && s[0] != 'F') || s[5] != ' ' ||
	    s[8] != ':' || s[11] != ':' || s[14] != '.')
		return 0;
	if (!klog_digits(&mo, s + 1, 2) || !klog_digits(&d, s + 3, 2) ||
	    !klog_digits(&h, s + 6, 2) || !klog_digits(&mi, s + 9, 2) ||
	    !klog_digits(&se, s + 12, 2) || !klog_digits(&us, s + 15, 6))
		return 0;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
		return 0;
	out->severity = s[0];
	out->month = (int)mo;
	out->day = (int)d;
	out->tod_us = ((h * 60 + mi) * 60 + se) * 1000000 + us;
	return 1;
}

/*
 * A header a hard wrap cut before its "file.go:N]" ended ("E0401
 * 14:03:17.151180    3969 evictio" and the rest on the next line): its
 * severity, time and thread id still hold; no location.  The bytes taken.
 */
static size_t klog_cut_header(struct parser_klog *out, const char *s, size_t len)
{
	size_t i = 21;

	while (i < len && s[i] == ' ')
		i++;
	if (i == 21 && i < len)
		return 0;
	for (out->thread = 0; i < len && s[i] >= '0' && s[i] <= '9' && out->thread < 1000000000000;
	     i++)
		out->thread = out->thread * 10 + (s[i] - '0');
	if (i < len && s[i] == ' ')
		i++;
	for (size_t k = i; k < len; k++)
		if (s[k] == ' ' || s[k] == ']')
			return 0;
	out->location = (struct lt_str){NULL, 0};
	return i;
}

size_t parser_klog_header(struct parser_klog *out, const char *s, size_t len)
{
	size_t i = 21, start;

	if (len >= 21 && len < 24 && klog_stamp(out, s))
		return klog_cut_header(out, s, len);
	if (len < 24 || !klog_stamp(out, s))
		return 0;
	/* the thread id is right-aligned in 7 columns, or single-spaced */
	while (i < len && s[i] == ' ')
		i++;
	if (i == 21)
		return 0;
	for (out->thread = 0, start = i; i < len && s[i] >= '0' && s[i] <= '9' && i - start < 12;
	     i++)
		out->thread = out->thread * 10 + (s[i] - '0');
	if (i == start || i >= len || s[i] != ' ')
		return i >= len ? klog_cut_header(out, s, len) : 0;
	start = ++i;
	while (i < len && s[i] != ']' && s[i] != ' ')
		i++;
	if (i >= len)
		return klog_cut_header(out, s, len);
	if (s[i] != ']' || i == start)
		return 0;
	out->location = (struct lt_str){s + start, i - start};
	i++;
	if (i < len && s[i] == ' ')
		i++;
	return i;
}

static int klog_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Appends code point cp as UTF-8 (U+FFFD for what is not a scalar value). */
static void klog_utf8(struct lt_buf *b, unsigned long cp)
{
	char u[4];

	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		cp = 0xfffd;
	if (cp < 0x80) {
		lt_buf_putc(b, (char)cp);
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		lt_buf_append(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		lt_buf_append(b, u, 3);
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		lt_buf_append(b, u, 4);
	}
}

/* A Go escape's value: \xNN is one byte, \uNNNN and \UNNNNNNNN code points. */
static size_t klog_escape_hex(struct lt_buf *b, const char *p, size_t len, size_t i)
{
	size_t n = p[i] == 'x' ? 2 : p[i] == 'u' ? 4 : 8;
	unsigned long v = 0;

	if (i + n >= len)
		return 0;
	for (size_t k = 1; k <= n; k++) {
		int h = klog_hex((unsigned char)p[i + k]);

		if (h < 0)
			return 0;
		v = v * 16 + (unsigned long)h;
	}
	if (n == 2)
		lt_buf_putc(b, (char)v);
	else
		klog_utf8(b, v);
	return n + 1;
}

static int klog_starts_field(const char *p, size_t len);

/*
 * True when the quote at p[i] closes the string: klog follows a quoted
 * message or value with the end or " key=".  Any other quote is one a
 * paste lost the backslash of (err="node "x" not found"): part of the text.
 */
static int klog_closes(const char *p, size_t len, size_t i)
{
	return i + 1 == len || (p[i + 1] == ' ' && klog_starts_field(p + i + 1, len - i - 1));
}

/*
 * Reads the Go-quoted string (strconv.Quote) starting at p[0] == '"' into b;
 * returns the bytes taken, or 0 when the closing quote is missing.
 */
static size_t klog_unquote(struct lt_buf *b, const char *p, size_t len)
{
	static const char from[] = "abfnrtv\\\"'", to[] = "\a\b\f\n\r\t\v\\\"'";

	for (size_t i = 1; i < len; i++) {
		const char *e;
		size_t took, run = i + lt_text_unescaped_len(p + i, len - i);

		if (run > i) { /* a run of plain bytes, appended at once */
			lt_buf_append(b, p + i, run - i);
			i = run - 1;
			continue;
		}
		if (p[i] == '"' && klog_closes(p, len, i))
			return i + 1;
		if (p[i] != '\\' || i + 1 == len) {
			lt_buf_putc(b, p[i]);
			continue;
		}
		i++;
		if ((e = strchr(from, p[i])) != NULL && p[i] != '\0') {
			lt_buf_putc(b, to[e - from]);
		} else if ((p[i] == 'x' || p[i] == 'u' || p[i] == 'U') &&
			   (took = klog_escape_hex(b, p, len, i)) > 0) {
			i += took - 1;
		} else {
			lt_buf_putc(b, '\\');
			lt_buf_putc(b, p[i]);
		}
	}
	return 0;
}

/* A bare value ends at a space outside brackets: pods=[a b] keeps its space. */
static size_t klog_bare(const char *p, size_t len)
{
	int depth = 0;
	size_t i = 0;

	for (; i < len; i++) {
		if (p[i] == '[' || p[i] == '{' || p[i] == '(')
			depth++;
		else if ((p[i] == ']' || p[i] == '}' || p[i] == ')') && depth > 0)
			depth--;
		else if (p[i] == ' ' && depth == 0)
			break;
	}
	return i;
}

/*
 * True when the Go-quoted value at p[0] == '"' closes without an escape: its text as written,
 * p[1..1 + *n), is its value.  False when it holds one or is not closed (klog_unquote reads it).
 */
static int klog_plain_quoted(size_t *n, const char *p, size_t len)
{
	size_t i = 1;

	while ((i += lt_text_unescaped_len(p + i, len - i)) < len && p[i] == '"') {
		if (klog_closes(p, len, i)) {
			*n = i - 1;
			return 1;
		}
		i++; /* a quote a paste lost the backslash of: part of the text */
	}
	return 0;
}

/*
 * Appends one `key=value` at p to the JSON object in f; the bytes taken, 0 if p is none.  An
 * escaped value is unquoted past the end of scratch (the message's buffer), which gets its
 * length back: no buffer of its own a line.
 */
static size_t klog_field(struct lt_buf *f, struct lt_buf *scratch, const char *p, size_t len)
{
	size_t k = 0, took, n, base = scratch->len;

	while (k < len && p[k] != '=' && p[k] != ' ' && p[k] != '"')
		k++;
	if (k == 0 || k == len || p[k] != '=')
		return 0;
	if (f->len > 1)
		lt_buf_putc(f, ',');
	lt_json_quote(f, p, k);
	lt_buf_putc(f, ':');
	p += k + 1;
	len -= k + 1;
	if (len == 0 || p[0] != '"') { /* bare: quoted as it is */
		took = klog_bare(p, len);
		lt_json_quote(f, p, took);
	} else if (klog_plain_quoted(&n, p, len)) {
		took = n + 2; /* no escape: the text between the quotes is the value */
		lt_json_quote(f, p + 1, n);
	} else {
		/* unterminated: the rest as it is */
		if ((took = klog_unquote(scratch, p, len)) == 0) {
			took = len;
			lt_buf_truncate(scratch, base);
			lt_buf_append(scratch, p, took);
		}
		lt_json_quote(f, scratch->ptr + base, scratch->len - base);
		lt_buf_truncate(scratch, base);
	}
	return k + 1 + took;
}

/* key=value pairs after the message, as a JSON object; what does not parse goes in "_rest".
 * scratch: as klog_field's. */
static void klog_fields(struct lt_buf *f, struct lt_buf *scratch, const char *p, size_t len)
{
	size_t i = 0, took;

	lt_buf_putc(f, '{');
	while (i < len) {
		while (i < len && p[i] == ' ')
			i++;
		if (i == len)
			break;
		if ((took = klog_field(f, scratch, p + i, len - i)) == 0) {
			if (f->len > 1)
				lt_buf_putc(f, ',');
			lt_buf_append(f, "\"_rest\":", 8);
			lt_json_quote(f, p + i, len - i);
			break;
		}
		i += took;
	}
	lt_buf_putc(f, '}');
}

/* True when p starts, after spaces, with "key=": what follows a structured message. */
static int klog_starts_field(const char *p, size_t len)
{
	size_t i = 0, k;

	while (i < len && p[i] == ' ')
		i++;
	for (k = i; k < len && p[k] != '=' && p[k] != ' ' && p[k] != '"'; k++)
		;
	return k > i && k < len && p[k] == '=';
}

size_t parser_klog_payload(struct lt_buf *msg, struct lt_buf *fields, const char *p, size_t len)
{
	size_t took;

	lt_buf_reset(msg);
	lt_buf_reset(fields);
	while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\r'))
		len--;
	/* klog puts key=value pairs after a structured message, never a bare word */
	if (len == 0 || p[0] != '"' || (took = klog_unquote(msg, p, len)) == 0 ||
	    (took < len && (p[took] != ' ' || !klog_starts_field(p + took, len - took)))) {
		/* printf text (perhaps one that happens to start with a quote) */
		lt_buf_reset(msg);
		lt_buf_append(msg, p, len);
		return len;
	}
	if (took < len)
		klog_fields(fields, msg, p + took, len - took);
	return took;
}
