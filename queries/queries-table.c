/*
 * queries-table.c - typed rows and their printers: an aligned table, CSV,
 * JSON, JSON lines; and a result kept whole (lt_rows) for the TUI.
 *
 * A cell becomes text in one place, lt_cell_format, for every printer and
 * for the TUI's draw: times RFC 3339 UTC, durations human in a table and as
 * seconds for programs, kinds by name.  The table printer sanitizes every
 * cell (log text is hostile); CSV and JSON write the bytes, JSON escaped.
 */
#include "lt_queries.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int lt_out_format_parse(enum lt_out_format *out, const char *name)
{
	static const char *const names[] = {
	    [LT_OUT_TABLE] = "table",
	    [LT_OUT_CSV] = "csv",
	    [LT_OUT_JSON] = "json",
	    [LT_OUT_JSONL] = "jsonl",
	};

	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		if (strcmp(name, names[i]) == 0) {
			*out = (enum lt_out_format)i;
			return 0;
		}
	}
	return LT_ERR_USAGE;
}

void lt_print_safe(FILE *f, const char *s, size_t len, enum lt_safe_mode mode)
{
	struct lt_buf b;
	size_t start = 0;

	lt_buf_init(&b);
	for (size_t i = 0; i <= len; i++) {
		if (i < len && !(mode == LT_SAFE_KEEP_NEWLINES && s[i] == '\n'))
			continue;
		lt_buf_reset(&b);
		lt_sanitize(&b, s + start, i - start);
		fwrite(b.ptr, 1, b.len, f);
		if (i < len)
			fputc('\n', f);
		start = i + 1;
	}
	lt_buf_release(&b);
}

/* ---- cells -------------------------------------------------------------- */

const char *lt_cell_format(const struct lt_cell *c, enum lt_out_format fmt, char *buf, size_t size,
			   size_t *len)
{
	const char *s = buf;

	switch (c->type) {
	case LT_CELL_NULL:
		*len = 0;
		return NULL;
	case LT_CELL_TEXT:
		*len = c->len;
		return c->s;
	case LT_CELL_KIND:
		s = lt_episode_kind_name((enum lt_episode_kind)c->i);
		*len = strlen(s);
		return s;
	case LT_CELL_TIME:
		lt_time_format(buf, size, c->i);
		break;
	case LT_CELL_DURATION:
		if (fmt == LT_OUT_TABLE)
			lt_format_duration(buf, size, c->i);
		else
			snprintf(buf, size, "%lld.%06lld", (long long)(c->i / 1000000),
				 (long long)llabs(c->i % 1000000));
		break;
	case LT_CELL_REAL:
		snprintf(buf, size, "%.17g", c->r);
		break;
	case LT_CELL_INT:
	case LT_CELL_ID:
		snprintf(buf, size, "%lld", (long long)c->i);
		break;
	}
	*len = strlen(buf);
	return s;
}

/* JSON prints these unquoted. */
static int cell_is_number(const struct lt_cell *c)
{
	return c->type == LT_CELL_INT || c->type == LT_CELL_ID || c->type == LT_CELL_DURATION ||
	       (c->type == LT_CELL_REAL && isfinite(c->r));
}

/* ---- the printers ------------------------------------------------------- */

struct lt_printer {
	struct lt_row_sink sink;
	enum lt_out_format fmt;
	FILE *f;
	int ncols;
	char **names;
	char **cells; /* a table only: nrows * ncols sanitized cells, printed at the end */
	size_t nrows, cap;
	size_t *width;
};

/* Display width of UTF-8 text: one column a code point (good enough for logs). */
static size_t table_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void csv_cell(FILE *f, const char *v)
{
	if (v == NULL)
		return;
	if (strpbrk(v, ",\"\r\n") == NULL) {
		fputs(v, f);
		return;
	}
	fputc('"', f);
	for (; *v; v++) {
		if (*v == '"')
			fputc('"', f);
		fputc(*v, f);
	}
	fputc('"', f);
}

/* A JSON string literal; control bytes escaped, other bytes as they are. */
static void json_string(FILE *f, const char *v)
{
	struct lt_buf b;

	lt_buf_init(&b);
	lt_json_quote(&b, v, strlen(v));
	fwrite(b.ptr, 1, b.len, f);
	lt_buf_release(&b);
}

static void printer_reset(struct lt_printer *p)
{
	for (size_t i = 0; p->cells != NULL && i < p->nrows * (size_t)p->ncols; i++)
		free(p->cells[i]);
	for (int i = 0; i < p->ncols; i++)
		free(p->names[i]);
	free(p->cells);
	free(p->names);
	free(p->width);
	p->cells = p->names = NULL;
	p->width = NULL;
	p->ncols = 0;
	p->nrows = p->cap = 0;
}

static void printer_begin(void *ctx, const struct lt_col *cols, int ncols)
{
	struct lt_printer *p = ctx;

	printer_reset(p);
	p->ncols = ncols;
	p->names = lt_xcalloc((size_t)ncols + 1, sizeof *p->names);
	p->width = lt_xcalloc((size_t)ncols + 1, sizeof *p->width);
	for (int i = 0; i < ncols; i++) {
		p->names[i] = lt_xstrdup(cols[i].name);
		p->width[i] = table_width(cols[i].name);
	}
	if (p->fmt == LT_OUT_CSV) {
		for (int i = 0; i < ncols; i++) {
			if (i)
				fputc(',', p->f);
			csv_cell(p->f, p->names[i]);
		}
		fputc('\n', p->f);
	}
	if (p->fmt == LT_OUT_JSON)
		fputc('[', p->f);
}

static void printer_keep(struct lt_printer *p, const struct lt_cell *cells)
{
	char buf[LT_CELL_BUF];
	struct lt_buf b;

	/* a row of ncols cells is one element */
	p->cells = lt_grow(p->cells, &p->cap, p->nrows + 1, (size_t)p->ncols * sizeof *p->cells);
	for (int i = 0; i < p->ncols; i++) {
		size_t len;
		const char *v = lt_cell_format(&cells[i], LT_OUT_TABLE, buf, sizeof buf, &len);
		size_t w;

		lt_buf_init(&b);
		lt_sanitize(&b, v ? v : "", v ? strlen(v) : 0);
		w = table_width(b.ptr);
		if (w > p->width[i])
			p->width[i] = w;
		p->cells[p->nrows * (size_t)p->ncols + (size_t)i] = b.ptr;
	}
}

static void printer_csv(struct lt_printer *p, const struct lt_cell *cells)
{
	char buf[LT_CELL_BUF];
	size_t len;

	for (int i = 0; i < p->ncols; i++) {
		if (i)
			fputc(',', p->f);
		csv_cell(p->f, lt_cell_format(&cells[i], p->fmt, buf, sizeof buf, &len));
	}
	fputc('\n', p->f);
}

static void printer_json(struct lt_printer *p, const struct lt_cell *cells)
{
	char buf[LT_CELL_BUF];
	size_t len;

	if (p->fmt == LT_OUT_JSON)
		fputs(p->nrows ? ",\n" : "\n", p->f);
	fputc('{', p->f);
	for (int i = 0; i < p->ncols; i++) {
		const char *v = lt_cell_format(&cells[i], p->fmt, buf, sizeof buf, &len);

		if (i)
			fputc(',', p->f);
		json_string(p->f, p->names[i]);
		fputc(':', p->f);
		if (v == NULL)
			fputs("null", p->f);
		else if (cell_is_number(&cells[i]))
			fputs(v, p->f);
		else
			json_string(p->f, v);
	}
	fputc('}', p->f);
	if (p->fmt == LT_OUT_JSONL)
		fputc('\n', p->f);
}

static void printer_row(void *ctx, const struct lt_cell *cells)
{
	struct lt_printer *p = ctx;

	assert(p->names != NULL); /* begin came first */
	switch (p->fmt) {
	case LT_OUT_TABLE:
		printer_keep(p, cells);
		break;
	case LT_OUT_CSV:
		printer_csv(p, cells);
		break;
	case LT_OUT_JSON:
	case LT_OUT_JSONL:
		printer_json(p, cells);
		break;
	}
	p->nrows++;
}

enum table_case { TABLE_AS_IS, TABLE_UPPER };

static void table_print_line(struct lt_printer *p, char *const *cells, enum table_case c)
{
	int ncols = p->ncols;

	/* no trailing blanks: stop after the last non-empty cell */
	while (ncols > 1 && cells[ncols - 1][0] == '\0')
		ncols--;
	for (int i = 0; i < ncols; i++) {
		const char *v = cells[i];
		int last = i == ncols - 1;

		for (const char *s = v; *s; s++)
			fputc(c == TABLE_UPPER && *s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s,
			      p->f);
		if (!last)
			fprintf(p->f, "%*s", (int)(p->width[i] - table_width(v) + 2), "");
	}
	fputc('\n', p->f);
}

static void printer_end(void *ctx)
{
	struct lt_printer *p = ctx;

	if (p->fmt == LT_OUT_TABLE && p->names != NULL) {
		table_print_line(p, p->names, TABLE_UPPER);
		for (size_t r = 0; r < p->nrows; r++)
			table_print_line(p, p->cells + r * (size_t)p->ncols, TABLE_AS_IS);
	} else if (p->fmt == LT_OUT_JSON && p->names != NULL) {
		fputs(p->nrows ? "\n]\n" : "]\n", p->f);
	}
	printer_reset(p);
}

struct lt_printer *lt_printer_new(enum lt_out_format fmt, FILE *f)
{
	struct lt_printer *p = lt_xcalloc(1, sizeof *p);

	p->fmt = fmt;
	p->f = f;
	p->sink = (struct lt_row_sink){
	    .begin = printer_begin, .row = printer_row, .end = printer_end, .ctx = p};
	return p;
}

const struct lt_row_sink *lt_printer_sink(struct lt_printer *p)
{
	return &p->sink;
}

void lt_printer_free(struct lt_printer *p)
{
	if (p == NULL)
		return;
	printer_reset(p);
	free(p);
}

/* ---- a result kept whole ------------------------------------------------ */

static void rows_begin(void *ctx, const struct lt_col *cols, int ncols)
{
	struct lt_rows *t = ctx;

	lt_rows_release(t);
	t->ncols = ncols;
	t->cols = lt_xcalloc((size_t)ncols + 1, sizeof *t->cols);
	for (int i = 0; i < ncols; i++)
		t->cols[i] =
		    (struct lt_col){.name = lt_xstrdup(cols[i].name), .type = cols[i].type};
}

static void rows_row(void *ctx, const struct lt_cell *cells)
{
	struct lt_rows *t = ctx;
	struct lt_cell *row;

	assert(t->cols != NULL); /* begin came first */
	/* room doubles when nrows reaches a power of two: no realloc a row */
	if ((t->nrows & (t->nrows - 1)) == 0)
		t->cells = lt_xrealloc(t->cells, (t->nrows ? 2 * t->nrows : 1) * (size_t)t->ncols *
						     sizeof *t->cells);
	row = t->cells + t->nrows * (size_t)t->ncols;
	for (int c = 0; c < t->ncols; c++) {
		row[c] = cells[c];
		if (cells[c].type == LT_CELL_TEXT) {
			char *s = lt_xmalloc(cells[c].len + 1);

			memcpy(s, cells[c].s, cells[c].len);
			s[cells[c].len] = '\0';
			row[c].s = s;
		} else {
			row[c].s = NULL;
		}
	}
	t->nrows++;
}

static void rows_end(void *ctx)
{
	(void)ctx;
}

struct lt_row_sink lt_rows_sink(struct lt_rows *t)
{
	return (struct lt_row_sink){
	    .begin = rows_begin, .row = rows_row, .end = rows_end, .ctx = t};
}

const struct lt_cell *lt_rows_cell(const struct lt_rows *t, size_t r, int c)
{
	static const struct lt_cell none = {.type = LT_CELL_NULL};

	if (r >= t->nrows || c < 0 || c >= t->ncols)
		return &none;
	return &t->cells[r * (size_t)t->ncols + (size_t)c];
}

int lt_rows_col(const struct lt_rows *t, const char *name)
{
	for (int i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i].name, name) == 0)
			return i;
	return -1;
}

void lt_rows_release(struct lt_rows *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
		free((char *)t->cells[i].s);
	for (int i = 0; i < t->ncols; i++)
		free((char *)t->cols[i].name);
	free(t->cells);
	free(t->cols);
	memset(t, 0, sizeof *t);
}

void lt_format_duration(char *buf, size_t size, int64_t us)
{
	int64_t s = us / 1000000;

	if (us < 0) {
		snprintf(buf, size, "-");
	} else if (us < 1000000) {
		snprintf(buf, size, "%lldms", (long long)(us / 1000));
	} else if ((us + 50000) / 1000000 < 60) {
		/* to the nearest tenth: 8.799 s reads 8.8s */
		snprintf(buf, size, "%lld.%llds", (long long)((us + 50000) / 1000000),
			 (long long)((us + 50000) / 100000 % 10));
	} else if (s < 3600) {
		snprintf(buf, size, "%lldm%llds", (long long)(s / 60), (long long)(s % 60));
	} else if (s < 86400) {
		snprintf(buf, size, "%lldh%lldm", (long long)(s / 3600), (long long)(s / 60 % 60));
	} else {
		snprintf(buf, size, "%lldd%lldh", (long long)(s / 86400),
			 (long long)(s / 3600 % 24));
	}
}
