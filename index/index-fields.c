/*
 * index-fields.c - a log line's fields read back from its raw line (schema 10).
 *
 * A structured klog line ("Msg" key="value" key2=value) has its key=value tail
 * as a JSON object in lines.fields, which the parser builds (parser-klog.c).
 * That object is a function of the raw line, which the store keeps anyway
 * (lines_blocks): schema 10 stores a mark instead of it, an empty blob
 * (INDEX_FIELDS_MARK_V1), when the frozen decoder below rebuilds from the raw
 * line, byte for byte, what the parser gave; the text (packed) otherwise.
 * LT_LINE_FIELDS_SQL reads both through lt_line_fields(raw, at).
 *
 * The decoder is part of the store's format, not a call into the parser: a
 * later parser whose fields differ makes the ingest's check fail, so its lines
 * store text, and the marks of older lines keep reading what they read when
 * they were written.  Never change what the decoder of a mark gives (making it
 * faster is fine: test_fields_decoder compares it with the parser): a new rule is a new
 * mark (a one-byte blob, which no packed value can be: it has a length after
 * its codec byte) and a new schema.
 *
 * Decoder 1: the raw line's bytes after the message's closing quote (at =
 * msg_at + msg_len, where that quote must be), trailing spaces and CRs taken
 * off, must start with a space and then "key="; the pairs become the object
 * as parser-klog.c's klog_fields built it at schema 10 (Go-quoted values
 * unquoted, bare values to the next space outside brackets, what does not
 * parse as "_rest"), every string quoted as lt_json_quote quoted it then.
 * Anything else: NULL (the decoder declines).
 */
#include "index-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---- decoder 1: frozen copies, never edit (a new rule is a new mark) ---- */

/*
 * Where the decoder's object goes: appended to buf, or (buf NULL) compared with want as it is
 * made, so a check stops at the first byte that differs and copies nothing.  len counts the
 * object's bytes so far either way.
 */
struct fields_out {
	struct lt_buf *buf;
	const char *want;
	size_t want_len, len;
	int differs;
};

static void fields_put(struct fields_out *o, const char *s, size_t n)
{
	if (o->buf != NULL)
		lt_buf_append(o->buf, s, n);
	else if (o->differs || n > o->want_len - o->len || memcmp(o->want + o->len, s, n) != 0)
		o->differs = 1;
	o->len += n;
}

static void fields_putc(struct fields_out *o, char c)
{
	fields_put(o, &c, 1);
}

/* Bytes written as they are: c >= 0x20, not DEL, '"' or '\\' (lt_json_plain_len's runs). */
static void fields_quote(struct fields_out *o, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, run;

	fields_putc(o, '"');
	while (i < len) {
		unsigned char c;

		run = i + lt_json_plain_len(s + i, len - i);
		fields_put(o, s + i, run - i); /* the bytes written as they are, at once */
		if ((i = run) == len)
			break;
		c = (unsigned char)s[i++];
		if (c == '"' || c == '\\') {
			char esc[2] = {'\\', (char)c};

			fields_put(o, esc, sizeof esc);
		} else {
			char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};

			fields_put(o, esc, sizeof esc);
		}
	}
	fields_putc(o, '"');
}

static int fields_hex(int c)
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
static void fields_utf8(struct lt_buf *b, unsigned long cp)
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
static size_t fields_escape_hex(struct lt_buf *b, const char *p, size_t len, size_t i)
{
	size_t n = p[i] == 'x' ? 2 : p[i] == 'u' ? 4 : 8;
	unsigned long v = 0;

	if (i + n >= len)
		return 0;
	for (size_t k = 1; k <= n; k++) {
		int h = fields_hex((unsigned char)p[i + k]);

		if (h < 0)
			return 0;
		v = v * 16 + (unsigned long)h;
	}
	if (n == 2)
		lt_buf_putc(b, (char)v);
	else
		fields_utf8(b, v);
	return n + 1;
}

/* True when p starts, after spaces, with "key=". */
static int fields_starts_field(const char *p, size_t len)
{
	size_t i = 0, k;

	while (i < len && p[i] == ' ')
		i++;
	for (k = i; k < len && p[k] != '=' && p[k] != ' ' && p[k] != '"'; k++)
		;
	return k > i && k < len && p[k] == '=';
}

/* True when the quote at p[i] closes the string: the end or " key=" follows. */
static int fields_closes(const char *p, size_t len, size_t i)
{
	return i + 1 == len || (p[i + 1] == ' ' && fields_starts_field(p + i + 1, len - i - 1));
}

/* The Go-quoted string at p[0] == '"' into b; the bytes taken, 0 without a closing quote. */
static size_t fields_unquote(struct lt_buf *b, const char *p, size_t len)
{
	static const char from[] = "abfnrtv\\\"'", to[] = "\a\b\f\n\r\t\v\\\"'";

	for (size_t i = 1; i < len; i++) {
		const char *e;
		size_t took, run = i + lt_text_unescaped_len(p + i, len - i);

		if (run > i) { /* plain bytes, at once */
			lt_buf_append(b, p + i, run - i);
			if ((i = run) == len)
				break;
		}
		if (p[i] == '"' && fields_closes(p, len, i))
			return i + 1;
		if (p[i] != '\\' || i + 1 == len) {
			lt_buf_putc(b, p[i]);
			continue;
		}
		i++;
		if ((e = strchr(from, p[i])) != NULL && p[i] != '\0') {
			lt_buf_putc(b, to[e - from]);
		} else if ((p[i] == 'x' || p[i] == 'u' || p[i] == 'U') &&
			   (took = fields_escape_hex(b, p, len, i)) > 0) {
			i += took - 1;
		} else {
			lt_buf_putc(b, '\\');
			lt_buf_putc(b, p[i]);
		}
	}
	return 0;
}

/* A bare value ends at a space outside brackets. */
static size_t fields_bare(const char *p, size_t len)
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

/* True when the quoted value at p[0] == '"' closes without an escape: p[1..1 + *n) is it. */
static int fields_plain_quoted(size_t *n, const char *p, size_t len)
{
	size_t i = 1;

	while ((i += lt_text_unescaped_len(p + i, len - i)) < len && p[i] == '"') {
		if (fields_closes(p, len, i)) {
			*n = i - 1;
			return 1;
		}
		i++; /* a quote that does not close: part of the text */
	}
	return 0;
}

/* Appends one `key=value` at p to the object in o; the bytes taken, 0 if p is none.  A bare or
 * unescaped value is quoted from where it lies, an escaped one unquoted into tmp first. */
static size_t fields_pair(struct fields_out *o, struct lt_buf *tmp, const char *p, size_t len)
{
	size_t k = 0, took, n;

	while (k < len && p[k] != '=' && p[k] != ' ' && p[k] != '"')
		k++;
	if (k == 0 || k == len || p[k] != '=')
		return 0;
	if (o->len > 1)
		fields_putc(o, ',');
	fields_quote(o, p, k);
	fields_putc(o, ':');
	p += k + 1;
	len -= k + 1;
	if (len == 0 || p[0] != '"') {
		took = fields_bare(p, len);
		fields_quote(o, p, took);
	} else if (fields_plain_quoted(&n, p, len)) {
		took = n + 2;
		fields_quote(o, p + 1, n);
	} else {
		lt_buf_reset(tmp);
		if ((took = fields_unquote(tmp, p, len)) ==
		    0) { /* unterminated: the rest as it is */
			took = len;
			lt_buf_reset(tmp);
			lt_buf_append(tmp, p, took);
		}
		fields_quote(o, tmp->ptr, tmp->len);
	}
	return k + 1 + took;
}

/* The pairs at p as a JSON object into o; what does not parse is "_rest".  A check stops at
 * its first difference. */
static void fields_object(struct fields_out *o, struct lt_buf *tmp, const char *p, size_t len)
{
	size_t i = 0, took;

	fields_putc(o, '{');
	while (i < len && !o->differs) {
		while (i < len && p[i] == ' ')
			i++;
		if (i == len)
			break;
		if ((took = fields_pair(o, tmp, p + i, len - i)) == 0) {
			if (o->len > 1)
				fields_putc(o, ',');
			fields_put(o, "\"_rest\":", 8);
			fields_quote(o, p + i, len - i);
			break;
		}
		i += took;
	}
	fields_putc(o, '}');
}

/* ---- the decoder's door ------------------------------------------------- */

/* The pairs decoder 1 reads after the message's closing quote at raw[at]; 0 if it declines. */
static int fields_tail(const char **out, size_t *n_out, const char *raw, size_t len, size_t at)
{
	const char *p;
	size_t n;

	if (raw == NULL || at >= len || raw[at] != '"')
		return 0;
	p = raw + at + 1;
	n = len - at - 1;
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\r'))
		n--;
	if (n == 0 || p[0] != ' ' || !fields_starts_field(p, n))
		return 0;
	*out = p;
	*n_out = n;
	return 1;
}

int index_fields_decode(struct lt_buf *out, struct lt_buf *tmp, const char *raw, size_t len,
			size_t at)
{
	struct fields_out o = {.buf = out};
	const char *p;
	size_t n;

	assert(out != NULL && tmp != NULL);
	if (!fields_tail(&p, &n, raw, len, at))
		return 0;
	lt_buf_reset(out);
	fields_object(&o, tmp, p, n);
	return 1;
}

/* Decoder 1 compared with fields as it decodes: no object is built. */
int index_fields_derives(struct index_fields_check *c, struct lt_str raw, size_t at,
			 struct lt_str fields)
{
	struct fields_out o = {.want = fields.ptr, .want_len = fields.len};
	const char *p;
	size_t n;

	if (fields.ptr == NULL || raw.ptr == NULL || !fields_tail(&p, &n, raw.ptr, raw.len, at))
		return 0;
	fields_object(&o, &c->tmp, p, n);
	return !o.differs && o.len == fields.len;
}

void index_fields_check_init(struct index_fields_check *c)
{
	lt_buf_init(&c->out);
	lt_buf_init(&c->tmp);
}

void index_fields_check_release(struct index_fields_check *c)
{
	lt_buf_release(&c->out);
	lt_buf_release(&c->tmp);
}

/* lt_line_fields(raw, at): decoder 1's object, or NULL where it declines (or raw is NULL). */
static void fields_sql(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	struct lt_buf out, tmp;
	const char *raw;
	sqlite3_int64 at;
	size_t len;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) != SQLITE_INTEGER)
		return; /* NULL */
	raw = (const char *)sqlite3_value_blob(argv[0]);
	len = (size_t)sqlite3_value_bytes(argv[0]);
	at = sqlite3_value_int64(argv[1]);
	if (raw == NULL || at < 0)
		return;
	lt_buf_init(&out);
	lt_buf_init(&tmp);
	if (index_fields_decode(&out, &tmp, raw, len, (size_t)at))
		sqlite3_result_text(cx, out.ptr, (int)out.len, SQLITE_TRANSIENT);
	lt_buf_release(&out);
	lt_buf_release(&tmp);
}

int index_fields_register(struct lt_store *st, struct lt_error *err)
{
	if (sqlite3_create_function_v2(st->db, "lt_line_fields", 2,
				       SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, fields_sql, NULL,
				       NULL, NULL) != SQLITE_OK)
		return index_store_db_error(st, err, "cannot register lt_line_fields");
	return 0;
}
