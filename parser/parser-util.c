/* parser-util.c - errors, aborting allocation and the growable buffer. */
#include "lt_parser.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 3, 0))) static int util_verror(struct lt_error *err, int code,
							     const char *fmt, va_list ap)
{
	if (err == NULL)
		return code;
	err->code = code;
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	return code;
}

int lt_error_set(struct lt_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		err->file[0] = '\0';
		err->line = 0;
		err->offset = 0;
	}
	va_start(ap, fmt);
	util_verror(err, code, fmt, ap);
	va_end(ap);
	return code;
}

int lt_error_at(struct lt_error *err, int code, const char *file, uint64_t line, uint64_t offset,
		const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		snprintf(err->file, sizeof err->file, "%s", file ? file : "");
		err->line = line;
		err->offset = offset;
	}
	va_start(ap, fmt);
	util_verror(err, code, fmt, ap);
	va_end(ap);
	return code;
}

static void *util_check(void *p, size_t n)
{
	if (p == NULL && n != 0) {
		fprintf(stderr, "leasetrail: out of memory (%zu bytes)\n", n);
		abort();
	}
	return p;
}

void *lt_xmalloc(size_t n)
{
	return util_check(lt_fault(LT_FAULT_ALLOC) ? NULL : malloc(n ? n : 1), n ? n : 1);
}

void *lt_xcalloc(size_t count, size_t n)
{
	return util_check(lt_fault(LT_FAULT_ALLOC) ? NULL : calloc(count ? count : 1, n ? n : 1),
			  1);
}

void *lt_xrealloc(void *p, size_t n)
{
	return util_check(lt_fault(LT_FAULT_ALLOC) ? NULL : realloc(p, n ? n : 1), n ? n : 1);
}

char *lt_xstrndup(const char *s, size_t n)
{
	char *d = lt_xmalloc(n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *lt_xstrdup(const char *s)
{
	return lt_xstrndup(s, strlen(s));
}

void lt_buf_init(struct lt_buf *b)
{
	b->ptr = NULL;
	b->len = 0;
	b->cap = 0;
}

void lt_buf_release(struct lt_buf *b)
{
	free(b->ptr);
	lt_buf_init(b);
}

void lt_buf_reset(struct lt_buf *b)
{
	b->len = 0;
	if (b->ptr)
		b->ptr[0] = '\0';
}

/* Makes room for n more bytes plus the terminating NUL. */
static void buf_grow(struct lt_buf *b, size_t n)
{
	size_t want = b->len + n + 1;
	size_t cap = b->cap ? b->cap : 64;

	if (want <= b->cap)
		return;
	while (cap < want)
		cap *= 2;
	b->ptr = lt_xrealloc(b->ptr, cap);
	b->cap = cap;
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

void lt_json_quote(struct lt_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";

	lt_buf_putc(b, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			lt_buf_putc(b, '\\');
			lt_buf_putc(b, (char)c);
		} else if (c < 0x20 || c == 0x7f) {
			char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};

			lt_buf_append(b, esc, sizeof esc);
		} else {
			lt_buf_putc(b, (char)c);
		}
	}
	lt_buf_putc(b, '"');
}
