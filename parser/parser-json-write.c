/*
 * parser-json-write.c - writing JSON through yajl's generator (the writer
 * half of the yajl door): every string valid UTF-8 before yajl sees it, and
 * yajl's own UTF-8 validation on behind that, so no output of leasetrail's
 * is JSON that is not UTF-8.  Allocation goes through lt_xmalloc's family.
 */
#include "parser-json.h"

#include <assert.h>
#include <stdlib.h>

struct lt_json_writer {
	yajl_gen g;
	struct lt_buf fixed; /* a string's bytes once made valid UTF-8 */
};

static void *write_malloc(void *ctx, size_t size)
{
	(void)ctx;
	return lt_xmalloc(size);
}

static void *write_realloc(void *ctx, void *p, size_t size)
{
	(void)ctx;
	return lt_xrealloc(p, size);
}

static void write_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

static const yajl_alloc_funcs write_allocs = {
    .malloc = write_malloc, .realloc = write_realloc, .free = write_free, .ctx = NULL};

struct lt_json_writer *lt_json_writer_new(void)
{
	struct lt_json_writer *w = lt_xcalloc(1, sizeof *w);

	w->g = yajl_gen_alloc(&write_allocs);
	assert(w->g != NULL); /* the allocators abort instead of failing */
	yajl_gen_config(w->g, yajl_gen_validate_utf8, 1);
	lt_buf_init(&w->fixed);
	return w;
}

void lt_json_writer_free(struct lt_json_writer *w)
{
	if (w == NULL)
		return;
	yajl_gen_free(w->g);
	lt_buf_release(&w->fixed);
	free(w);
}

/* Every status but ok is a call out of order: the caller's bug, never the data's. */
static void write_check(yajl_gen_status st)
{
	assert(st == yajl_gen_status_ok);
	(void)st;
}

void lt_json_writer_map_open(struct lt_json_writer *w)
{
	write_check(yajl_gen_map_open(w->g));
}

void lt_json_writer_map_close(struct lt_json_writer *w)
{
	write_check(yajl_gen_map_close(w->g));
}

void lt_json_writer_array_open(struct lt_json_writer *w)
{
	write_check(yajl_gen_array_open(w->g));
}

void lt_json_writer_array_close(struct lt_json_writer *w)
{
	write_check(yajl_gen_array_close(w->g));
}

void lt_json_writer_string(struct lt_json_writer *w, const char *s, size_t len)
{
	assert(s != NULL || len == 0);
	if (!lt_utf8_valid(s, len)) {
		lt_buf_reset(&w->fixed);
		lt_utf8_repair(&w->fixed, s, len);
		s = w->fixed.ptr;
		len = w->fixed.len;
	}
	write_check(yajl_gen_string(w->g, (const unsigned char *)(s ? s : ""), len));
}

void lt_json_writer_number(struct lt_json_writer *w, const char *s, size_t len)
{
	assert(s != NULL && len > 0);
	write_check(yajl_gen_number(w->g, s, len));
}

void lt_json_writer_null(struct lt_json_writer *w)
{
	write_check(yajl_gen_null(w->g));
}

void lt_json_writer_take(struct lt_json_writer *w, struct lt_buf *out)
{
	const unsigned char *text;
	size_t len;

	write_check(yajl_gen_get_buf(w->g, &text, &len));
	lt_buf_append(out, text, len);
	yajl_gen_clear(w->g);
	yajl_gen_reset(w->g, NULL);
}

int lt_json_check(const char *text, size_t len, int values)
{
	yajl_alloc_funcs allocs = write_allocs; /* yajl_alloc takes them non-const */
	yajl_handle h = yajl_alloc(NULL, &allocs, NULL);
	yajl_status st;

	assert(h != NULL);
	yajl_config(h, yajl_allow_multiple_values, values > 1);
	st = yajl_parse(h, (const unsigned char *)text, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(h);
	yajl_free(h);
	return st == yajl_status_ok ? 0 : LT_ERR_FORMAT;
}
