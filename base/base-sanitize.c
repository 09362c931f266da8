/*
 * base-sanitize.c - making hostile log text safe to show on a terminal, and
 * valid UTF-8 for JSON: one decoder, one list of what a terminal acts on.
 */
#include "lt_base.h"

#include <assert.h>

size_t lt_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	size_t n;
	uint32_t c = s[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, c &= 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, c &= 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, c &= 0x07;
	else
		return 0;
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and values past U+10FFFF are not UTF-8 */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Code points a terminal acts on or that reorder or hide text: C1 controls, bidi, separators. */
static int sanitize_is_unsafe(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff;
}

static void sanitize_byte(struct lt_buf *b, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};

	switch (c) {
	case '\n':
		lt_buf_append(b, "\\n", 2);
		break;
	case '\t':
		lt_buf_append(b, "\\t", 2);
		break;
	case '\r':
		lt_buf_append(b, "\\r", 2);
		break;
	default:
		lt_buf_append(b, esc, 4);
	}
}

void lt_sanitize(struct lt_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	assert(b != NULL && (s != NULL || len == 0));

	while (i < len) {
		uint32_t cp;
		size_t n = lt_utf8_decode(p + i, len - i, &cp);

		if (n == 0 || (n == 1 && (cp < 0x20 || cp == 0x7f))) {
			sanitize_byte(b, p[i]);
			i++;
		} else if (sanitize_is_unsafe(cp)) {
			lt_buf_printf(b, "\\u{%04x}", (unsigned)cp);
			i += n;
		} else {
			lt_buf_append(b, p + i, n);
			i += n;
		}
	}
}

int lt_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t n;

	for (size_t i = 0; i < len; i += n) {
		if (p[i] < 0x80) {
			n = 1;
			continue;
		}
		if ((n = lt_utf8_decode(p + i, len - i, &cp)) == 0)
			return 0;
	}
	return 1;
}

size_t lt_utf8_repair(struct lt_buf *b, const char *s, size_t len)
{
	static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, start = 0, bad = 0;

	assert(b != NULL && (s != NULL || len == 0));
	while (i < len) {
		uint32_t cp;
		size_t n = lt_utf8_decode(p + i, len - i, &cp);

		if (n > 0) {
			i += n;
			continue;
		}
		lt_buf_append(b, p + start, i - start);
		lt_buf_append(b, replacement, sizeof replacement - 1);
		bad++;
		start = ++i;
	}
	lt_buf_append(b, p + start, len - start);
	return bad;
}

void lt_sanitize_json(struct lt_buf *b, const char *json, size_t len)
{
	const unsigned char *p = (const unsigned char *)json;
	size_t i = 0, start = 0;

	assert(b != NULL && (json != NULL || len == 0));
	while (i < len) {
		uint32_t cp = 0xfffd;
		size_t n = lt_utf8_decode(p + i, len - i, &cp);

		if (n > 0 && cp != 0x7f && !sanitize_is_unsafe(cp)) {
			i += n;
			continue;
		}
		lt_buf_append(b, p + start, i - start);
		lt_buf_printf(b, "\\u%04X", (unsigned)(n > 0 ? cp : 0xfffd));
		i += n > 0 ? n : 1;
		start = i;
	}
	lt_buf_append(b, p + start, len - start);
}
