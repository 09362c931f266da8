/*
 * base-buf.c - struct lt_buf, the growable byte buffer (see lt_base.h for its
 * invariant: ptr never NULL, always NUL-terminated, cap == 0 while it points
 * at the shared static ""), and the small string helpers built on it.
 */
#include "lt_base.h"

#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* What a released buffer points at: never written (cap == 0 guards every write). */
static char buf_empty[1];

/* The bytes lt_buf_init allocates, so that ptr is owned from the start. */
#define BUF_FIRST 64

/* The invariant, checked at every entry (a zero-filled struct fails it). */
#define BUF_VALID(b)                                                                               \
	((b)->ptr != NULL && ((b)->cap == 0 ? (b)->ptr == buf_empty && (b)->len == 0               \
					    : (b)->len < (b)->cap && (b)->ptr[(b)->len] == '\0'))

void lt_buf_init(struct lt_buf *b)
{
	b->ptr = lt_xmalloc(BUF_FIRST);
	b->ptr[0] = '\0';
	b->len = 0;
	b->cap = BUF_FIRST;
}

void lt_buf_release(struct lt_buf *b)
{
	assert(BUF_VALID(b));
	if (b->cap)
		free(b->ptr);
	*b = (struct lt_buf){.ptr = buf_empty, .len = 0, .cap = 0};
}

void lt_buf_truncate(struct lt_buf *b, size_t n)
{
	assert(BUF_VALID(b));
	assert(n <= b->len);
	if (n == b->len)
		return;
	b->len = n;
	b->ptr[n] = '\0';
}

char *lt_buf_detach(struct lt_buf *b)
{
	char *s;

	assert(BUF_VALID(b));
	s = b->cap ? b->ptr : lt_xstrdup("");
	*b = (struct lt_buf){.ptr = buf_empty, .len = 0, .cap = 0};
	return s;
}

void lt_buf_reset(struct lt_buf *b)
{
	assert(BUF_VALID(b));
	b->len = 0;
	if (b->cap)
		b->ptr[0] = '\0';
}

/* Makes room for n more bytes plus the terminating NUL. */
static void buf_grow(struct lt_buf *b, size_t n)
{
	/* a sum past SIZE_MAX asks for SIZE_MAX bytes, which lt_grow refuses (aborts) */
	size_t need = n < SIZE_MAX - b->len ? b->len + n + 1 : SIZE_MAX;

	assert(BUF_VALID(b));
	if (need <= b->cap)
		return;
	b->ptr = lt_grow(b->cap ? b->ptr : NULL, &b->cap, need, 1);
}

void lt_buf_append(struct lt_buf *b, const void *data, size_t n)
{
	buf_grow(b, n);
	if (n)
		memcpy(b->ptr + b->len, data, n);
	b->len += n;
	b->ptr[b->len] = '\0';
}

void lt_buf_putc(struct lt_buf *b, char c)
{
	buf_grow(b, 1);
	b->ptr[b->len++] = c;
	b->ptr[b->len] = '\0';
}

void lt_buf_printf(struct lt_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

int lt_str_eq(struct lt_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.ptr != NULL && s.len == n && memcmp(s.ptr, lit, n) == 0;
}

/* 1 when lt_json_quote writes byte c as it is. */
static int json_plain(unsigned char c)
{
	return c >= 0x20 && c != '"' && c != '\\' && c != 0x7f;
}

/*
 * Eight bytes at a time (SWAR, little-endian): the high bit of each byte of x below n (n <=
 * 0x80) is set in the result; the lowest bit set is exact (a borrow only leaves a byte below
 * n, which is marked itself).  Equality with c is a byte of x ^ c below 1.
 */
#define BUF_ONES  0x0101010101010101ull
#define BUF_HIGHS 0x8080808080808080ull

static uint64_t buf_below(uint64_t x, unsigned n)
{
	return (x - n * BUF_ONES) & ~x & BUF_HIGHS;
}

static uint64_t buf_quotes(uint64_t x)
{
	return buf_below(x ^ ('"' * BUF_ONES), 1) | buf_below(x ^ ('\\' * BUF_ONES), 1);
}

/* The bytes lt_json_quote escapes: '"', '\\', below 0x20, DEL. */
static uint64_t buf_json_stops(uint64_t x)
{
	return buf_quotes(x) | buf_below(x, 0x20) | buf_below(x ^ (0x7f * BUF_ONES), 1);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BUF_SWAR 1
#else
#define BUF_SWAR 0
#endif

#if defined(__SSE2__)
/*
 * Sixteen bytes a step with SSE2 (every x86-64): the bit of each byte of s[0..16) that is '"'
 * or '\\', and with json also below 0x20 (unsigned: min(b, 0x1f) == b) or DEL.
 */
static unsigned buf_sse_stops(const char *s, int json)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i m = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
				 _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')));

	if (json)
		m = _mm_or_si128(
		    m, _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f)),
				    _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x)));
	return (unsigned)_mm_movemask_epi8(m);
}

/* The index of the first stop byte of s[0..len) (len >= 16), len if none: sixteen bytes a
 * step, the last sixteen read again with those seen shifted off. */
static size_t buf_sse_span(const char *s, size_t len, int json)
{
	size_t i = 0;
	unsigned m;

	assert(len >= 16);
	for (; len - i >= 16; i += 16)
		if ((m = buf_sse_stops(s + i, json)) != 0)
			return i + (size_t)__builtin_ctz(m);
	if (i == len || (m = buf_sse_stops(s + len - 16, json) >> (16 - (len - i))) == 0)
		return len;
	return i + (size_t)__builtin_ctz(m);
}
#endif

/* The SWAR stops of x: lt_json_quote's, or a quoted string's ('"', '\\') */
static uint64_t buf_swar_stops(uint64_t x, int json)
{
	return json ? buf_json_stops(x) : buf_quotes(x);
}

/* A stop byte, one at a time: what lt_json_quote escapes, or '"' and '\\'. */
static int buf_stop(unsigned char c, int json)
{
	return json ? !json_plain(c) : c == '"' || c == '\\';
}

/*
 * The index of the first stop byte of s[0..len), len if none: sixteen bytes a step with SSE2,
 * else eight (SWAR, little-endian), the last step reading its bytes again with those seen
 * shifted off; a byte at a time elsewhere.
 */
static size_t buf_plain_span(const char *s, size_t len, int json)
{
	size_t i = 0;

#if defined(__SSE2__)
	if (len >= 16)
		return buf_sse_span(s, len, json);
#endif

	for (; BUF_SWAR && len - i >= 8; i += 8) {
		uint64_t x, m;

		memcpy(&x, s + i, 8);
		if ((m = buf_swar_stops(x, json)) != 0)
			return i + ((size_t)__builtin_ctzll(m) >> 3);
	}
	if (BUF_SWAR && i > 0 && i < len) {
		uint64_t x, m;

		memcpy(&x, s + len - 8, 8);
		m = buf_swar_stops(x, json) >> (8 * (8 - (len - i)));
		return m != 0 ? i + ((size_t)__builtin_ctzll(m) >> 3) : len;
	}
	while (i < len && !buf_stop((unsigned char)s[i], json))
		i++;
	return i;
}

size_t lt_json_plain_len(const char *s, size_t len)
{
	return buf_plain_span(s, len, 1);
}

size_t lt_text_unescaped_len(const char *s, size_t len)
{
	return buf_plain_span(s, len, 0);
}

/* Appends byte c escaped (2 or 6 bytes), with room for the rest bytes still to quote. */
static void json_escape(struct lt_buf *b, unsigned char c, size_t rest)
{
	static const char hex[] = "0123456789abcdef";

	buf_grow(b, 6 + rest);
	if (c == '"' || c == '\\') {
		b->ptr[b->len++] = '\\';
		b->ptr[b->len++] = (char)c;
	} else {
		memcpy(b->ptr + b->len, "\\u00", 4);
		b->ptr[b->len + 4] = hex[c >> 4];
		b->ptr[b->len + 5] = hex[c & 15];
		b->len += 6;
	}
	b->ptr[b->len] = '\0';
}

void lt_json_quote(struct lt_buf *b, const char *s, size_t len)
{
	size_t i = 0;

	/* room for the text as it is; an escape grows it (runs copied whole, no call per byte) */
	buf_grow(b, len + 2);
	b->ptr[b->len++] = '"';
	while (i < len) {
		size_t run = i + lt_json_plain_len(s + i, len - i);

		memcpy(b->ptr + b->len, s + i, run - i);
		b->len += run - i;
		b->ptr[b->len] = '\0';
		i = run;
		if (i < len) {
			i++;
			json_escape(b, (unsigned char)s[i - 1], len - i + 1);
		}
	}
	b->ptr[b->len++] = '"';
	b->ptr[b->len] = '\0';
}
