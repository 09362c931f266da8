/*
 * parser-results-rest.c - the Log Analytics query API's own response, streamed.
 *
 *   {"tables":[{"name":"PrimaryResult",
 *               "columns":[{"name":"TimeGenerated","type":"datetime"},…],
 *               "rows":[["2024-04-05T05:50:00.4605530Z",…],…]}]}
 *
 * (GET/POST …/v1/workspaces/ID/query, `az rest`, the SDKs' raw response.)  The rows are
 * arrays inside a table object inside the top-level object, so the framer (which cuts a
 * top-level list or an envelope's list) would hold the whole response as one record.  This
 * reader feeds the bytes to yajl's push parser as they come instead and keeps one row at a
 * time: the column names of the table (names[]), then each row's values in order; a value
 * that is an object or an array is written back as JSON text.  Each complete row goes to
 * ops->row with the table parser_res_kind_of names from the columns, with the line and
 * offset where the row starts.  A row of another length than the columns, or larger than
 * PARSER_MAX_RECORD, is rejected; JSON broken anywhere ends the read with one reject
 * saying where (nothing after it can be placed in a row).
 */
#include "parser-json.h"

#include <stdlib.h>
#include <string.h>

#define REST_MAX_COLS  1024
#define REST_MAX_DEPTH 64

/* Depths: 1 the response object, 2 "tables", 3 a table, 4 "columns" or "rows", 5 an element. */
enum rest_list { REST_NONE, REST_TABLES, REST_COLUMNS, REST_ROWS };

struct parser_rest {
	const struct parser_csv_ops *ops;
	void *ctx;
	yajl_handle h;
	int depth;
	enum rest_list want; /* the list the key just read names */
	enum rest_list list; /* the list open at depth 2 or 4 */
	int col_name;	     /* the key just read is a column's "name" */
	/* the table's columns */
	struct lt_buf names;
	size_t name_off[REST_MAX_COLS];
	size_t ncols;
	enum parser_res_kind kind;
	int kind_known;
	/* the row being read */
	struct lt_buf vals;
	size_t val_off[REST_MAX_COLS + 1];
	enum parser_res_type val_type[REST_MAX_COLS];
	size_t nvals;
	int too_wide, oversize;
	struct parser_res_cell cells[REST_MAX_COLS];
	/* a nested value being written back: a comma is due at depth d when first[d] is 0 */
	unsigned char first[REST_MAX_DEPTH + 2];
	int after_key;
	/* where the bytes are */
	const char *chunk;
	size_t scanned; /* bytes of the chunk whose newlines are counted */
	uint64_t line, base, row_line, row_offset;
	int rc, dead;
};

/* The line and offset of the byte yajl is at (newlines counted once, as yajl moves on). */
static void rest_here(struct parser_rest *r, uint64_t *line, uint64_t *offset)
{
	size_t at = yajl_get_bytes_consumed(r->h);

	for (; r->scanned < at; r->scanned++)
		r->line += r->chunk[r->scanned] == '\n';
	*line = r->line;
	*offset = r->base + at;
}

static int rest_in_row(const struct parser_rest *r)
{
	return r->list == REST_ROWS && r->depth >= 5;
}

/* Appends to the row's values, unless the row outgrew the cap. */
static void rest_put(struct parser_rest *r, const void *p, size_t n)
{
	if (r->oversize || r->vals.len + n + 1 > PARSER_MAX_RECORD) {
		r->oversize = 1;
		return;
	}
	lt_buf_append(&r->vals, p, n);
}

/* Inside a nested value of a cell: the comma or colon before the next token. */
static void rest_sep(struct parser_rest *r)
{
	if (r->after_key) {
		r->after_key = 0;
		return;
	}
	if (r->depth > 5 && r->depth <= REST_MAX_DEPTH) {
		if (!r->first[r->depth])
			rest_put(r, ",", 1);
		r->first[r->depth] = 0;
	}
}

/* A value at depth 5 begins a cell; deeper ones go on writing the current one. */
static void rest_cell_begin(struct parser_rest *r, enum parser_res_type type)
{
	if (r->nvals >= REST_MAX_COLS) {
		r->too_wide = 1;
		return;
	}
	r->val_off[r->nvals] = r->vals.len;
	r->val_type[r->nvals] = type;
}

static void rest_cell_end(struct parser_rest *r)
{
	if (r->too_wide)
		return;
	rest_put(r, "", 0);
	r->nvals++;
	r->val_off[r->nvals] = r->vals.len;
}

static void rest_scalar(struct parser_rest *r, const char *s, size_t n, enum parser_res_type type)
{
	struct lt_buf q;

	if (r->depth == 5) {
		rest_cell_begin(r, type);
		rest_put(r, s, n);
		rest_cell_end(r);
		return;
	}
	rest_sep(r);
	if (type != PARSER_RES_STR) {
		rest_put(r, type == PARSER_RES_NULL ? "null" : s, type == PARSER_RES_NULL ? 4 : n);
		return;
	}
	lt_buf_init(&q);
	lt_json_quote(&q, s, n);
	rest_put(r, q.ptr, q.len);
	lt_buf_release(&q);
}

/* A table's column name. */
static void rest_column(struct parser_rest *r, const char *s, size_t n)
{
	if (r->ncols >= REST_MAX_COLS)
		return;
	r->name_off[r->ncols++] = r->names.len;
	lt_buf_append(&r->names, s, n);
	lt_buf_putc(&r->names, '\0');
}

static int rest_string(void *ctx, const unsigned char *s, size_t n)
{
	struct parser_rest *r = ctx;

	if (rest_in_row(r))
		rest_scalar(r, (const char *)s, n, PARSER_RES_STR);
	else if (r->list == REST_COLUMNS && r->depth == 5 && r->col_name)
		rest_column(r, (const char *)s, n);
	r->col_name = 0;
	return 1;
}

static int rest_number(void *ctx, const char *s, size_t n)
{
	struct parser_rest *r = ctx;

	if (rest_in_row(r))
		rest_scalar(r, s, n, PARSER_RES_NUM);
	r->col_name = 0;
	return 1;
}

static int rest_boolean(void *ctx, int b)
{
	struct parser_rest *r = ctx;

	if (rest_in_row(r))
		rest_scalar(r, b ? "true" : "false", b ? 4 : 5, PARSER_RES_BOOL);
	r->col_name = 0;
	return 1;
}

static int rest_null(void *ctx)
{
	struct parser_rest *r = ctx;

	if (rest_in_row(r))
		rest_scalar(r, "", 0, PARSER_RES_NULL);
	r->col_name = 0;
	return 1;
}

static int rest_key(void *ctx, const unsigned char *k, size_t n)
{
	struct parser_rest *r = ctx;

	r->want = REST_NONE;
	if (r->depth == 1 && n == 6 && memcmp(k, "tables", 6) == 0)
		r->want = REST_TABLES;
	else if (r->depth == 3 && r->list == REST_TABLES && n == 7 && memcmp(k, "columns", 7) == 0)
		r->want = REST_COLUMNS;
	else if (r->depth == 3 && r->list == REST_TABLES && n == 4 && memcmp(k, "rows", 4) == 0)
		r->want = REST_ROWS;
	r->col_name =
	    r->depth == 5 && r->list == REST_COLUMNS && n == 4 && memcmp(k, "name", 4) == 0;
	if (rest_in_row(r) && r->depth > 5) {
		struct lt_buf q;

		rest_sep(r);
		lt_buf_init(&q);
		lt_json_quote(&q, (const char *)k, n);
		lt_buf_putc(&q, ':');
		rest_put(r, q.ptr, q.len);
		lt_buf_release(&q);
		r->after_key = 1;
	}
	return 1;
}

/* A row begins: nothing of it yet. */
static void rest_row_begin(struct parser_rest *r)
{
	uint64_t line, offset;

	rest_here(r, &line, &offset);
	r->row_line = line;
	r->row_offset = offset - 1; /* yajl has consumed the '[' */
	lt_buf_reset(&r->vals);
	r->nvals = 0;
	r->val_off[0] = 0;
	r->too_wide = r->oversize = 0;
}

static int rest_open(struct parser_rest *r, int is_map)
{
	if (rest_in_row(r) && r->depth >= 5) {
		if (r->depth == 5)
			rest_cell_begin(r, PARSER_RES_JSON);
		else
			rest_sep(r);
		rest_put(r, is_map ? "{" : "[", 1);
	}
	r->depth++;
	if (r->depth <= REST_MAX_DEPTH)
		r->first[r->depth] = 1;
	if ((r->depth == 2 && r->want == REST_TABLES) ||
	    (r->depth == 4 && (r->want == REST_COLUMNS || r->want == REST_ROWS)))
		r->list = r->want;
	if (r->depth == 4 && r->list == REST_COLUMNS) {
		r->ncols = 0;
		lt_buf_reset(&r->names);
		r->kind_known = 0;
	}
	if (r->depth == 5 && r->list == REST_ROWS && !is_map)
		rest_row_begin(r);
	r->want = REST_NONE;
	r->col_name = 0;
	return 1;
}

static int rest_start_map(void *ctx)
{
	return rest_open(ctx, 1);
}

static int rest_start_array(void *ctx)
{
	return rest_open(ctx, 0);
}

/* The table's kind, from its column names (once, at its first row). */
static void rest_kind(struct parser_rest *r)
{
	if (r->kind_known)
		return;
	for (size_t i = 0; i < r->ncols; i++) {
		const char *name = r->names.ptr + r->name_off[i];

		r->cells[i] = (struct parser_res_cell){.name = {name, strlen(name)}, .top = 1};
	}
	r->kind = parser_res_kind_of(r->cells, r->ncols);
	r->kind_known = 1;
}

/* A row ended: its cells to the caller, or a reject saying why not. */
static int rest_row_end(struct parser_rest *r)
{
	char reason[128];

	rest_kind(r);
	if (r->oversize || r->too_wide || r->nvals != r->ncols) {
		if (r->oversize)
			snprintf(reason, sizeof reason, "result row larger than %u bytes, skipped",
				 PARSER_MAX_RECORD);
		else
			snprintf(reason, sizeof reason,
				 "result row of %zu values, the table has %zu columns", r->nvals,
				 r->ncols);
		return r->ops->reject(r->row_line, r->row_offset, reason, r->ctx);
	}
	for (size_t i = 0; i < r->nvals; i++) {
		r->cells[i].value =
		    (struct lt_str){r->vals.ptr + r->val_off[i], r->val_off[i + 1] - r->val_off[i]};
		r->cells[i].type = r->val_type[i];
	}
	return r->ops->row(r->kind, r->cells, r->nvals, r->row_line, r->row_offset, r->ctx);
}

static int rest_close(void *ctx, int is_map)
{
	struct parser_rest *r = ctx;
	int in_row = rest_in_row(r);

	if (in_row && r->depth > 5)
		rest_put(r, is_map ? "}" : "]", 1);
	r->depth--;
	if (in_row && r->depth == 5)
		rest_cell_end(r);
	if (in_row && r->depth == 4 && !is_map && (r->rc = rest_row_end(r)) != 0)
		return 0;
	if (r->depth == 3 || r->depth == 1)
		r->list = r->depth == 3 ? REST_TABLES : REST_NONE;
	return 1;
}

static int rest_end_map(void *ctx)
{
	return rest_close(ctx, 1);
}

static int rest_end_array(void *ctx)
{
	return rest_close(ctx, 0);
}

static const yajl_callbacks rest_callbacks = {
    .yajl_null = rest_null,
    .yajl_boolean = rest_boolean,
    .yajl_number = rest_number,
    .yajl_string = rest_string,
    .yajl_start_map = rest_start_map,
    .yajl_map_key = rest_key,
    .yajl_end_map = rest_end_map,
    .yajl_start_array = rest_start_array,
    .yajl_end_array = rest_end_array,
};

struct parser_rest *parser_rest_new(const struct parser_csv_ops *ops, void *ctx)
{
	struct parser_rest *r = lt_xcalloc(1, sizeof *r);

	r->ops = ops;
	r->ctx = ctx;
	r->line = 1;
	lt_buf_init(&r->names);
	lt_buf_init(&r->vals);
	r->h = yajl_alloc(&rest_callbacks, NULL, r);
	yajl_config(r->h, yajl_dont_validate_strings, 1);
	return r;
}

void parser_rest_free(struct parser_rest *r)
{
	if (r == NULL)
		return;
	yajl_free(r->h);
	lt_buf_release(&r->names);
	lt_buf_release(&r->vals);
	free(r);
}

/* Broken JSON: one reject where yajl stopped; the rest of the input is not read. */
static int rest_broken(struct parser_rest *r, const char *buf, size_t len)
{
	unsigned char *msg = yajl_get_error(r->h, 0, (const unsigned char *)buf, len);
	char reason[200];
	uint64_t line, offset;

	rest_here(r, &line, &offset);
	snprintf(reason, sizeof reason,
		 "invalid JSON in a Log Analytics query response (the rest is not read): %.*s",
		 (int)strcspn((const char *)msg, "\n"), (const char *)msg);
	yajl_free_error(r->h, msg);
	r->dead = 1;
	return r->ops->reject(line, offset, reason, r->ctx);
}

int parser_rest_feed(struct parser_rest *r, const char *buf, size_t len)
{
	yajl_status st;

	if (r->dead || len == 0)
		return 0;
	r->chunk = buf;
	r->scanned = 0;
	st = yajl_parse(r->h, (const unsigned char *)buf, len);
	if (st == yajl_status_client_canceled)
		return r->rc;
	if (st != yajl_status_ok)
		return rest_broken(r, buf, len);
	for (; r->scanned < len; r->scanned++)
		r->line += buf[r->scanned] == '\n';
	r->base += len;
	return 0;
}

int parser_rest_finish(struct parser_rest *r)
{
	uint64_t line = r->line, offset = r->base;

	if (r->dead)
		return 0;
	r->chunk = "";
	r->scanned = 0;
	if (yajl_complete_parse(r->h) == yajl_status_ok)
		return 0;
	r->dead = 1;
	return r->ops->reject(line, offset,
			      "Log Analytics query response cut off before its end (truncated)",
			      r->ctx);
}

int parser_rest_sniff(const char *buf, size_t len)
{
	size_t i = 0;

	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
		i++;
	if (i == len || buf[i++] != '{')
		return 0;
	while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
		i++;
	return len - i >= 8 && memcmp(buf + i, "\"tables\"", 8) == 0;
}
