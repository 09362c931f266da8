/*
 * parser-cloudwatch.c - one CloudWatch Logs export record to struct parser_cw_record.
 *
 * The framer cuts an export into records (an element of "events", a row of
 * "results", an element of a console JSON array); this file says which
 * shape a record has and pulls out its time, stream, id and message with
 * yajl's callback parser.  yajl checks every string (its lexer rejects a
 * bad escape) but is given no string callback, so it decodes none: a wanted
 * string value is cut out of the record after its key (by the offset yajl
 * reports there) and its escapes undone here, in place in the arena, byte
 * for byte as yajl_string_decode would (cw_unescape).  The message is then
 * parsed again, as an audit Event or a klog line, by the caller.  Nothing
 * here builds a tree: the record is walked once and only the four values
 * are kept, in one arena.
 *
 * A console export's @message that was JSON arrives as an object: its
 * exact original text is cut out of the record by the byte offsets yajl
 * reports when the object opens and closes.
 */
#include "parser-json.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The values a record gives; the order of struct parser_cw_record. */
enum cw_slot { CW_TIME, CW_MESSAGE, CW_STREAM, CW_ID, CW_GROUP, CW_NSLOTS };

/* Where a key names a value at depth 1 of an event (or depth 2 of a query row). */
struct cw_key {
	const char *key;
	enum cw_slot slot;
};

static const struct cw_key cw_event_keys[] = {
    {"timestamp", CW_TIME}, {"message", CW_MESSAGE},	{"logStreamName", CW_STREAM},
    {"eventId", CW_ID},	    {"logGroupName", CW_GROUP},
};

/* Logs Insights field names, for console rows and get-query-results rows alike. */
static const struct cw_key cw_insights_keys[] = {
    {"@timestamp", CW_TIME}, {"@message", CW_MESSAGE}, {"@logStream", CW_STREAM},
    {"@ptr", CW_ID},	     {"@log", CW_GROUP},
};

/* Where the value being read goes. */
enum cw_target {
	CT_NONE,       /* ignored */
	CT_SLOT,       /* d->slot of the record */
	CT_PAIR_FIELD, /* the "field" of a query row's {field, value} */
	CT_PAIR_VALUE, /* the "value" of that pair */
};

/* A value kept in the arena: offset and length, NUL-terminated there. */
struct cw_val {
	size_t off, len;
	int set; /* 1 string, 2 number or literal, 3 JSON text of a container */
};

struct parser_cw_decoder {
	struct lt_buf arena;
	struct cw_val val[CW_NSLOTS];
	enum parser_cw_shape shape;
	yajl_handle h;
	const char *json;
	size_t json_len;
	int depth;	       /* open containers */
	int root_array;	       /* the record is an array (a query row) */
	enum cw_target target; /* of the next value */
	int slot;	       /* with CT_SLOT */
	struct cw_val pair_field, pair_value;
	size_t cap_start; /* a container value being captured: its first byte */
	int cap_depth;	  /* depth inside it; 0 when not capturing */
	enum cw_target cap_target;
	int cap_slot;
	size_t base;	   /* the record's offset of the text yajl is given (parts: its part's) */
	size_t msg_at;	   /* an event's message unescaped ahead: its opening quote, or 0 */
	struct cw_val msg; /* and its value in the arena */
};

struct parser_cw_decoder *parser_cw_decoder_new(void)
{
	struct parser_cw_decoder *d = lt_xcalloc(1, sizeof *d);

	lt_buf_init(&d->arena);
	return d;
}

void parser_cw_decoder_free(struct parser_cw_decoder *d)
{
	if (d == NULL)
		return;
	lt_buf_release(&d->arena);
	free(d);
}

/* ---- the shape probe ------------------------------------------------- */

static const char *cw_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* p is at an opening quote: returns the byte after the closing one, or end. */
static const char *cw_skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '"')
			return p + 1;
		if (*p == '\\' && ++p == end)
			break;
	}
	return end;
}

/* Skips one JSON value (string-aware, no recursion); returns the byte after it. */
static const char *cw_skip_value(const char *p, const char *end)
{
	int depth = 0;

	while (p < end) {
		char c = *p;

		if (c == '"') {
			p = cw_skip_string(p, end);
			if (depth == 0)
				return p;
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (depth == 0)
				return p; /* a scalar ended by its container */
			if (--depth == 0)
				return p + 1;
		} else if (depth == 0 &&
			   (c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r')) {
			return p;
		}
		p++;
	}
	return end;
}

static int cw_key_is(const char *k, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(k, lit, n) == 0;
}

/* Top-level keys only an audit Event has. */
static int cw_is_audit_key(const char *k, size_t n)
{
	static const char *const keys[] = {"kind",
					   "apiVersion",
					   "auditID",
					   "stage",
					   "verb",
					   "level",
					   "requestURI",
					   "objectRef",
					   "user",
					   "sourceIPs",
					   "responseStatus",
					   "stageTimestamp",
					   "requestReceivedTimestamp"};

	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (cw_key_is(k, n, keys[i]))
			return 1;
	return 0;
}

/* What the probe has seen among an object's top-level keys. */
struct cw_probe {
	int message, number_time, cw_key, at_key;
};

/* Looks at one key and the first byte of its value; a decided shape, or -1 to go on. */
static int cw_probe_key(struct cw_probe *pr, const char *k, size_t n, char first)
{
	if (cw_is_audit_key(k, n))
		return PARSER_CW_NONE;
	if (cw_key_is(k, n, "@message"))
		return PARSER_CW_CONSOLE_ROW;
	if (n > 0 && k[0] == '@')
		pr->at_key = 1;
	if (cw_key_is(k, n, "message") && first == '"')
		pr->message = 1;
	if (cw_key_is(k, n, "timestamp") && (first == '-' || (first >= '0' && first <= '9')))
		pr->number_time = 1;
	if (cw_key_is(k, n, "ingestionTime") || cw_key_is(k, n, "eventId") ||
	    cw_key_is(k, n, "logStreamName"))
		pr->cw_key = 1;
	if (pr->message && (pr->number_time || pr->cw_key))
		return PARSER_CW_EVENT;
	return -1;
}

/* Walks the keys of the object at p (after its '{') until the shape is decided. */
static enum parser_cw_shape cw_probe_object(const char *p, const char *end)
{
	struct cw_probe pr = {0, 0, 0, 0};
	const char *k, *v;
	int shape;

	for (;;) {
		p = cw_ws(p, end);
		if (p == end || *p != '"')
			break;
		k = p + 1;
		p = cw_skip_string(p, end);
		if (p == end)
			break;
		v = cw_ws(p, end);
		if (v == end || *v != ':')
			break;
		v = cw_ws(v + 1, end);
		if (v == end)
			break;
		shape = cw_probe_key(&pr, k, (size_t)(p - 1 - k), *v);
		if (shape >= 0)
			return (enum parser_cw_shape)shape;
		p = cw_ws(cw_skip_value(v, end), end);
		if (p == end || *p != ',')
			break;
		p++;
	}
	return pr.at_key ? PARSER_CW_CONSOLE_ROW : PARSER_CW_NONE;
}

enum parser_cw_shape parser_cw_shape_of(const char *json, size_t len)
{
	const char *end = json + len, *p = cw_ws(json, end), *k;

	if (p < end && *p == '{')
		return cw_probe_object(p + 1, end);
	if (p == end || *p != '[')
		return PARSER_CW_NONE;
	/* a query row: [{"field": ..., "value": ...}, ...] */
	p = cw_ws(p + 1, end);
	if (p == end || *p != '{')
		return PARSER_CW_NONE;
	p = cw_ws(p + 1, end);
	if (p == end || *p != '"')
		return PARSER_CW_NONE;
	k = p + 1;
	p = cw_skip_string(p, end);
	if (p == end)
		return PARSER_CW_NONE;
	if (cw_key_is(k, (size_t)(p - 1 - k), "field") ||
	    cw_key_is(k, (size_t)(p - 1 - k), "value"))
		return PARSER_CW_QUERY_ROW;
	return PARSER_CW_NONE;
}

/* ---- decoding --------------------------------------------------------- */

int parser_cw_time_parse(int64_t *out, const char *s, size_t len)
{
	char buf[48];

	/* Logs Insights writes "2023-07-31 01:58:12.101": UTC, but without a zone */
	if (len >= 19 && len < sizeof buf - 1 && s[len - 1] >= '0' && s[len - 1] <= '9') {
		memcpy(buf, s, len);
		buf[len] = 'Z';
		return lt_time_parse(out, buf, len + 1);
	}
	return lt_time_parse(out, s, len);
}

/* Copies a value into the arena, NUL-terminated (the arena may move: offsets, not pointers). */
static void cw_keep(struct parser_cw_decoder *d, struct cw_val *v, const void *s, size_t n, int how)
{
	v->off = d->arena.len;
	v->len = n;
	v->set = how;
	lt_buf_append(&d->arena, s, n);
	lt_buf_putc(&d->arena, '\0');
}

static struct cw_val *cw_dest(struct parser_cw_decoder *d, enum cw_target t, int slot)
{
	switch (t) {
	case CT_SLOT:
		return &d->val[slot];
	case CT_PAIR_FIELD:
		return &d->pair_field;
	case CT_PAIR_VALUE:
		return &d->pair_value;
	case CT_NONE:
		break;
	}
	return NULL;
}

/* JSON's one-letter escapes and what they stand for (0: none; \u is apart). */
static const char cw_escapes[256] = {
    ['"'] = '"',  ['\\'] = '\\', ['/'] = '/',  ['b'] = '\b',
    ['f'] = '\f', ['n'] = '\n',	 ['r'] = '\r', ['t'] = '\t',
};

/* The 4 hex digits at s[at] (of n bytes) as a number, or -1. */
static long cw_hex4(const char *s, size_t n, size_t at)
{
	long v = 0;

	if (at + 4 > n)
		return -1;
	for (size_t i = at; i < at + 4; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* A code point in UTF-8 at out, as yajl writes it (its '?' past 0x1FFFFF); returns bytes. */
static size_t cw_utf8(unsigned long cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)((cp >> 6) | 0xC0);
		out[1] = (char)((cp & 0x3F) | 0x80);
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)((cp >> 12) | 0xE0);
		out[1] = (char)(((cp >> 6) & 0x3F) | 0x80);
		out[2] = (char)((cp & 0x3F) | 0x80);
		return 3;
	}
	if (cp < 0x200000) {
		out[0] = (char)((cp >> 18) | 0xF0);
		out[1] = (char)(((cp >> 12) & 0x3F) | 0x80);
		out[2] = (char)(((cp >> 6) & 0x3F) | 0x80);
		out[3] = (char)((cp & 0x3F) | 0x80);
		return 4;
	}
	out[0] = '?';
	return 1;
}

/*
 * Undoes the escape whose letter is at s[e] (s: n bytes), writing at s[*w] (*w < e: never
 * past what is read); returns the index after it.  As yajl_string_decode (Debian 12's 2.1.0):
 * a high surrogate followed by any \uXXXX is joined with it unchecked, a lone one is '?'
 * (what follows it is read as usual), a lone low one is encoded as it is, \u0000 is a zero
 * byte.  What the lexer rejects writes a '?' (never reached: yajl rejects the record).  out
 * is s (in place) or a copy's room, written at out[*w] with *w never past e.
 */
static size_t cw_unescape_one(const char *s, size_t n, size_t e, char *out, size_t *w)
{
	long cp, lo;

	if (e >= n)
		return n;
	if (s[e] != 'u') {
		char c = cw_escapes[(unsigned char)s[e]];

		out[(*w)++] = c != 0 ? c : '?';
		return e + 1;
	}
	if ((cp = cw_hex4(s, n, e + 1)) < 0)
		return n;
	e += 4; /* the last hex digit */
	if ((cp & 0xFC00) == 0xD800) {
		if (e + 2 < n && s[e + 1] == '\\' && s[e + 2] == 'u' &&
		    (lo = cw_hex4(s, n, e + 3)) >= 0) {
			cp = ((cp & 0x3F) << 10) | ((((cp >> 6) & 0xF) + 1) << 16) | (lo & 0x3FF);
			e += 6;
		} else {
			out[(*w)++] = '?';
			return e + 1;
		}
	}
	*w += cw_utf8((unsigned long)cp, out + *w);
	return e + 1;
}

/* The bytes that end a run of a string's plain bytes: its closing quote and an escape. */
static const unsigned char cw_stops[256] = {['"'] = 1, ['\\'] = 1};

/*
 * Undoes the escapes of the JSON string whose content starts at s (n bytes to the end of the
 * record, copied), in place, up to its closing quote; the content's new length, or -1 when no
 * quote closes it (yajl rejects the record).
 */
static long cw_unescape(char *s, size_t n)
{
	size_t r = 0, w = 0;

	while (r < n && !cw_stops[(unsigned char)s[r]])
		r++; /* the common start: nothing to move before the first escape */
	w = r;
	while (r < n) {
		unsigned char c = (unsigned char)s[r];
		char simple;

		if (!cw_stops[c]) {
			s[w++] = (char)c;
			r++;
		} else if (c == '"') {
			return (long)w;
		} else if (r + 1 < n && (simple = cw_escapes[(unsigned char)s[r + 1]]) != 0) {
			s[w++] = simple; /* the dense case: \" of a quoted JSON message */
			r += 2;
		} else {
			r = cw_unescape_one(s, n, r + 1, s, &w);
		}
	}
	return -1;
}

/*
 * After a key that names a wanted value: when the value is a string, keeps it unescaped
 * (yajl has read the key; the string after it is copied from the record to its closing
 * quote, unescaped on the way).  A record yajl then rejects is dropped whatever was kept.
 */
static void cw_take_string(struct parser_cw_decoder *d)
{
	const char *end = d->json + d->json_len;
	const char *p = cw_ws(d->json + d->base + yajl_get_bytes_consumed(d->h), end);
	struct cw_val *v = cw_dest(d, d->target, d->slot);
	long len;

	if (v == NULL || p == end || *p != ':')
		return;
	p = cw_ws(p + 1, end);
	if (p == end || *p != '"')
		return;
	if (d->msg_at != 0 && (size_t)(p - d->json) == d->msg_at) {
		*v = d->msg; /* unescaped ahead (cw_take_message); yajl is given "" for it */
		return;
	}
	cw_keep(d, v, p + 1, (size_t)(end - p - 1), 1); /* the rest of the record: room for it */
	len = cw_unescape(d->arena.ptr + v->off, v->len);
	if (len < 0) {
		v->set = 0;
		len = 0;
	}
	v->len = (size_t)len;
	lt_buf_truncate(&d->arena, v->off + v->len);
	lt_buf_putc(&d->arena, '\0'); /* as cw_keep leaves it: the next value after the NUL */
}

/* ---- an event's message, lexed once ------------------------------------ */

/*
 * An event's message is most of its record: a whole audit Event, every quote of it escaped.
 * yajl's lexer would read it byte by byte only to check it, then cw_unescape read it again;
 * instead it is checked and unescaped here in one pass, and yajl is given the record with "" in
 * its place (three parts).  Only a string yajl's lexer surely takes goes this way: any byte
 * below 0x20, an escape yajl refuses or a string not closed sends the whole record through
 * yajl as before, so what is kept or refused, and why, does not change.
 */

/* What a byte of a JSON string is to cw_take_message. */
enum cw_byte { CB_PLAIN, CB_QUOTE, CB_ESCAPE, CB_REFUSED };

static const unsigned char cw_bytes[256] = {
    [0x00] = CB_REFUSED, [0x01] = CB_REFUSED, [0x02] = CB_REFUSED, [0x03] = CB_REFUSED,
    [0x04] = CB_REFUSED, [0x05] = CB_REFUSED, [0x06] = CB_REFUSED, [0x07] = CB_REFUSED,
    [0x08] = CB_REFUSED, [0x09] = CB_REFUSED, [0x0a] = CB_REFUSED, [0x0b] = CB_REFUSED,
    [0x0c] = CB_REFUSED, [0x0d] = CB_REFUSED, [0x0e] = CB_REFUSED, [0x0f] = CB_REFUSED,
    [0x10] = CB_REFUSED, [0x11] = CB_REFUSED, [0x12] = CB_REFUSED, [0x13] = CB_REFUSED,
    [0x14] = CB_REFUSED, [0x15] = CB_REFUSED, [0x16] = CB_REFUSED, [0x17] = CB_REFUSED,
    [0x18] = CB_REFUSED, [0x19] = CB_REFUSED, [0x1a] = CB_REFUSED, [0x1b] = CB_REFUSED,
    [0x1c] = CB_REFUSED, [0x1d] = CB_REFUSED, [0x1e] = CB_REFUSED, [0x1f] = CB_REFUSED,
    ['"'] = CB_QUOTE,	 ['\\'] = CB_ESCAPE,
};

/* The opening quote of the first top-level "message" whose value is a string, or 0. */
static size_t cw_find_message(const char *json, size_t len)
{
	const char *end = json + len, *p = cw_ws(json, end), *k, *v;

	if (p == end || *p != '{')
		return 0;
	for (p++;;) {
		p = cw_ws(p, end);
		if (p == end || *p != '"')
			return 0;
		k = p + 1;
		p = cw_skip_string(p, end);
		v = cw_ws(p, end);
		if (v == end || *v != ':')
			return 0;
		v = cw_ws(v + 1, end);
		if (v < end && *v == '"' && cw_key_is(k, (size_t)(p - 1 - k), "message"))
			return (size_t)(v - json);
		p = cw_ws(cw_skip_value(v, end), end);
		if (p == end || *p != ',')
			return 0;
		p++;
	}
}

/* Makes room for n more bytes past the arena's end (kept across records, so rarely grown). */
static char *cw_room(struct parser_cw_decoder *d, size_t n)
{
	size_t len = d->arena.len;

	while (d->arena.cap < len + n + 1) {
		lt_buf_append(&d->arena, d->json,
			      d->json_len); /* grows it; the bytes are dropped */
		lt_buf_truncate(&d->arena, len);
	}
	return d->arena.ptr + len;
}

#if defined(__SSE2__)
/*
 * Sixteen bytes of s copied to out (both with 16 bytes of room); the number of them before the
 * first that is not CB_PLAIN ('"', '\\', below 0x20), 16 if none.  The bytes copied past it are
 * overwritten as the unescape goes on.
 */
static size_t cw_copy16(const char *s, char *out)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
					      _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
				 _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x));
	unsigned bits = (unsigned)_mm_movemask_epi8(m);

	_mm_storeu_si128((__m128i *)(void *)out, x);
	return bits != 0 ? (size_t)__builtin_ctz(bits) : 16;
}
#define CW_COPY_STEP 16
#else
static size_t cw_copy16(const char *s, char *out)
{
	(void)s, (void)out;
	return 0; /* a byte at a time */
}
#define CW_COPY_STEP SIZE_MAX
#endif

/* The room's bytes written and not kept: the arena ends at its NUL again; returns 0. */
static size_t cw_room_drop(struct parser_cw_decoder *d)
{
	d->arena.ptr[d->arena.len] = '\0';
	return 0;
}

/*
 * Checks and unescapes the string whose opening quote is at json[at] into the arena as the
 * message (d->msg); returns the offset after its closing quote, or 0 when yajl must see it.
 * Plain runs go sixteen bytes a step (cw_copy16), the rest a byte at a time.
 */
static size_t cw_take_message(struct parser_cw_decoder *d, size_t at)
{
	const char *s = d->json + at + 1;
	size_t n = d->json_len - at - 1, r = 0, w = 0;
	char *out = cw_room(d, n), simple;

	while (r < n) {
		unsigned char c;
		size_t run;

		if (n - r >= CW_COPY_STEP) {
			run = cw_copy16(s + r, out + w);
			r += run;
			w += run;
			if (run == CW_COPY_STEP)
				continue;
		}
		c = (unsigned char)s[r];
		switch ((enum cw_byte)cw_bytes[c]) {
		case CB_PLAIN:
			out[w++] = (char)c;
			r++;
			continue;
		case CB_QUOTE:
			d->msg = (struct cw_val){.off = d->arena.len, .len = w, .set = 1};
			d->arena.len += w; /* written in cw_room's room, which holds its NUL */
			d->arena.ptr[d->arena.len] = '\0';
			lt_buf_putc(&d->arena, '\0'); /* as cw_keep leaves a value */
			d->msg_at = at;
			return at + 1 + r + 1;
		case CB_ESCAPE:
			if (r + 1 < n && (simple = cw_escapes[(unsigned char)s[r + 1]]) != 0) {
				out[w++] = simple;
				r += 2;
			} else if (r + 1 < n && s[r + 1] == 'u') {
				r = cw_unescape_one(s, n, r + 1, out, &w); /* bad hex: r = n */
			} else {
				return cw_room_drop(d); /* an escape yajl refuses, or none */
			}
			continue;
		case CB_REFUSED:
			return cw_room_drop(d);
		}
	}
	return cw_room_drop(d);
}

/* A scalar value: kept when a key asked for it, outside any captured container. */
static int cw_scalar(struct parser_cw_decoder *d, const void *s, size_t n, int how)
{
	struct cw_val *v = cw_dest(d, d->target, d->slot);

	if (d->cap_depth == 0 && v != NULL && how != 0)
		cw_keep(d, v, s, n, how);
	d->target = CT_NONE;
	return 1;
}

static int cw_number(void *ctx, const char *s, size_t n)
{
	return cw_scalar(ctx, s, n, 2);
}

static int cw_boolean(void *ctx, int b)
{
	return cw_scalar(ctx, b ? "true" : "false", b ? 4 : 5, 2);
}

static int cw_null(void *ctx)
{
	return cw_scalar(ctx, "", 0, 0); /* null is absent */
}

static const struct cw_key *cw_lookup(const struct cw_key *keys, size_t nkeys,
				      const unsigned char *k, size_t n)
{
	for (size_t i = 0; i < nkeys; i++)
		if (cw_key_is((const char *)k, n, keys[i].key))
			return &keys[i];
	return NULL;
}

static int cw_map_key(void *ctx, const unsigned char *k, size_t n)
{
	struct parser_cw_decoder *d = ctx;
	const struct cw_key *hit = NULL;

	d->target = CT_NONE;
	if (d->cap_depth > 0)
		return 1;
	if (d->shape == PARSER_CW_QUERY_ROW) {
		if (d->depth == 2 && cw_key_is((const char *)k, n, "field"))
			d->target = CT_PAIR_FIELD;
		else if (d->depth == 2 && cw_key_is((const char *)k, n, "value"))
			d->target = CT_PAIR_VALUE;
		cw_take_string(d);
		return 1;
	}
	if (d->depth != 1)
		return 1;
	if (d->shape == PARSER_CW_EVENT)
		hit = cw_lookup(cw_event_keys, sizeof cw_event_keys / sizeof *cw_event_keys, k, n);
	else
		hit = cw_lookup(cw_insights_keys,
				sizeof cw_insights_keys / sizeof *cw_insights_keys, k, n);
	if (hit != NULL) {
		d->target = CT_SLOT;
		d->slot = (int)hit->slot;
		cw_take_string(d);
	}
	return 1;
}

/* A container opens: captured whole when it is a wanted value, else walked into. */
static int cw_open(struct parser_cw_decoder *d, int is_array)
{
	if (d->cap_depth > 0) {
		d->cap_depth++;
	} else if (d->target != CT_NONE) {
		/* yajl has just consumed the '{' or '[': its offset is one back */
		d->cap_start = d->base + yajl_get_bytes_consumed(d->h) - 1;
		d->cap_depth = 1;
		d->cap_target = d->target;
		d->cap_slot = d->slot;
	} else if (d->depth == 0) {
		d->root_array = is_array;
	} else if (d->shape == PARSER_CW_QUERY_ROW && d->depth == 1 && !is_array) {
		d->pair_field.set = 0;
		d->pair_value.set = 0;
	}
	d->depth++;
	d->target = CT_NONE;
	return 1;
}

/* A query row's {field, value} closed: the value goes to the slot its field names. */
static void cw_pair_done(struct parser_cw_decoder *d)
{
	const char *name = d->arena.ptr + d->pair_field.off;
	const struct cw_key *hit;

	if (d->pair_field.set != 1 || !d->pair_value.set)
		return;
	hit = cw_lookup(cw_insights_keys, sizeof cw_insights_keys / sizeof *cw_insights_keys,
			(const unsigned char *)name, d->pair_field.len);
	if (hit != NULL)
		d->val[hit->slot] = d->pair_value;
}

static int cw_close(struct parser_cw_decoder *d, int is_array)
{
	size_t end;

	d->depth--;
	d->target = CT_NONE;
	if (d->cap_depth > 0) {
		if (--d->cap_depth == 0) {
			end = d->base + yajl_get_bytes_consumed(d->h);
			cw_keep(d, cw_dest(d, d->cap_target, d->cap_slot), d->json + d->cap_start,
				end - d->cap_start, 3);
		}
	} else if (d->shape == PARSER_CW_QUERY_ROW && d->depth == 1 && !is_array) {
		cw_pair_done(d);
	}
	return 1;
}

static int cw_start_map(void *ctx)
{
	return cw_open(ctx, 0);
}

static int cw_start_array(void *ctx)
{
	return cw_open(ctx, 1);
}

static int cw_end_map(void *ctx)
{
	return cw_close(ctx, 0);
}

static int cw_end_array(void *ctx)
{
	return cw_close(ctx, 1);
}

/* No yajl_string: yajl then decodes no string value (cw_take_string keeps the wanted ones). */
static const yajl_callbacks cw_callbacks = {
    .yajl_null = cw_null,
    .yajl_boolean = cw_boolean,
    .yajl_number = cw_number,
    .yajl_start_map = cw_start_map,
    .yajl_map_key = cw_map_key,
    .yajl_end_map = cw_end_map,
    .yajl_start_array = cw_start_array,
    .yajl_end_array = cw_end_array,
};

/*
 * An event whose message is checked and unescaped ahead, its record given to yajl in three
 * parts; -1 when the record goes the whole way through yajl (not such an event, or yajl refuses
 * it: its words then come from parser_json_run).
 */
static int cw_decode_parts(struct parser_cw_decoder *d)
{
	size_t at = cw_find_message(d->json, d->json_len);
	size_t after = at != 0 ? cw_take_message(d, at) : 0;
	struct parser_json_part parts[] = {
	    {.text = d->json, .len = at, .at = 0},
	    {.text = "\"\"", .len = 2, .at = at},
	    {.text = d->json + after, .len = d->json_len - after, .at = after},
	};

	if (after == 0)
		return -1;
	if (parser_json_run_parts(&cw_callbacks, d, &d->h, parts, sizeof parts / sizeof *parts,
				  &d->base) == 0)
		return 0;
	return -1;
}

static void cw_reset(struct parser_cw_decoder *d, enum parser_cw_shape shape, const char *json,
		     size_t len)
{
	lt_buf_reset(&d->arena);
	memset(d->val, 0, sizeof d->val);
	memset(&d->pair_field, 0, sizeof d->pair_field);
	memset(&d->pair_value, 0, sizeof d->pair_value);
	d->shape = shape;
	d->json = json;
	d->json_len = len;
	d->depth = 0;
	d->root_array = 0;
	d->target = CT_NONE;
	d->cap_depth = 0;
	d->base = 0;
	d->msg_at = 0;
}

static struct lt_str cw_str(const struct parser_cw_decoder *d, enum cw_slot slot)
{
	struct lt_str s = {NULL, 0};

	if (d->val[slot].set) {
		s.ptr = d->arena.ptr + d->val[slot].off;
		s.len = d->val[slot].len;
	}
	return s;
}

/* An integral number of milliseconds since the epoch to microseconds; -1 if it is not one. */
static int cw_millis(int64_t *out, struct lt_str s)
{
	int64_t v = 0;

	/* 15 digits reach the year 33658; more would overflow once made microseconds */
	if (s.len == 0 || s.len > 15)
		return -1;
	for (size_t i = 0; i < s.len; i++) {
		if (s.ptr[i] < '0' || s.ptr[i] > '9')
			return -1;
		v = v * 10 + (s.ptr[i] - '0');
	}
	*out = v * 1000;
	return 0;
}

/* The record's time: epoch milliseconds in events, Logs Insights text in rows. */
static int cw_time(const struct parser_cw_decoder *d, int64_t *out, char *reason, size_t size)
{
	struct lt_str s = cw_str(d, CW_TIME);
	int how = d->val[CW_TIME].set;

	*out = 0;
	if (s.ptr == NULL)
		return 0;
	if (d->shape == PARSER_CW_EVENT) {
		if (how == 2 && cw_millis(out, s) == 0)
			return 0;
		snprintf(reason, size,
			 "not a CloudWatch event: \"timestamp\" is not epoch milliseconds");
		return LT_ERR_FORMAT;
	}
	if (how == 1 && parser_cw_time_parse(out, s.ptr, s.len) == 0)
		return 0;
	snprintf(reason, size, "not a Logs Insights row: @timestamp is not a time");
	return LT_ERR_FORMAT;
}

/* Says why a well-formed record is not of its shape, or returns 0. */
static int cw_check(const struct parser_cw_decoder *d, char *reason, size_t size)
{
	int want_array = d->shape == PARSER_CW_QUERY_ROW;

	if (d->root_array != want_array) {
		snprintf(reason, size, "not a CloudWatch record: a JSON %s where %s was expected",
			 d->root_array ? "array" : "value", want_array ? "an array" : "an object");
		return LT_ERR_FORMAT;
	}
	if (d->shape == PARSER_CW_EVENT && d->val[CW_MESSAGE].set != 1) {
		snprintf(reason, size, "not a CloudWatch event: no \"message\" string");
		return LT_ERR_FORMAT;
	}
	if (d->shape != PARSER_CW_EVENT && !d->val[CW_MESSAGE].set) {
		snprintf(reason, size, "Logs Insights row without @message: nothing to read");
		return LT_ERR_FORMAT;
	}
	return 0;
}

int parser_cw_decode(struct parser_cw_decoder *d, struct parser_cw_record *out,
		     enum parser_cw_shape shape, const char *json, size_t len, char *reason,
		     size_t size)
{
	int rc;

	memset(out, 0, sizeof *out);
	if (shape != PARSER_CW_EVENT && shape != PARSER_CW_QUERY_ROW &&
	    shape != PARSER_CW_CONSOLE_ROW) {
		snprintf(reason, size, "not a CloudWatch record");
		return LT_ERR_FORMAT;
	}
	cw_reset(d, shape, json, len);
	rc = shape == PARSER_CW_EVENT ? cw_decode_parts(d) : -1;
	if (rc != 0) {
		cw_reset(d, shape, json, len);
		rc = parser_json_run(&cw_callbacks, d, &d->h, "invalid JSON", json, len, reason,
				     size);
	}
	if (rc == 0)
		rc = cw_check(d, reason, size);
	if (rc == 0)
		rc = cw_time(d, &out->ts_us, reason, size);
	if (rc != 0)
		return rc;
	out->message = cw_str(d, CW_MESSAGE);
	out->stream = cw_str(d, CW_STREAM);
	out->ext_id = cw_str(d, CW_ID);
	out->group = cw_str(d, CW_GROUP);
	return 0;
}
