/*
 * base-error.c - struct lt_error: filled by the function that fails, read by
 * whoever reports it.  Both setters return the code, so a caller can write
 * `return lt_error_set(err, LT_ERR_IO, ...)`; err may be NULL (nobody asked).
 */
#include "lt_base.h"

#include <assert.h>
#include <stdarg.h>

__attribute__((format(printf, 3, 0))) static int error_vset(struct lt_error *err, int code,
							    const char *fmt, va_list ap)
{
	assert(code <= 0);
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
	error_vset(err, code, fmt, ap);
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
	error_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}
