/* queries-table.c - printing result tables: aligned, CSV, JSON, JSON lines. */
#include "lt_queries.h"

#include <stdlib.h>
#include <string.h>

struct lt_table {
	enum lt_out_format fmt;
	FILE *f;
	void (*row)(int ncols, const char *const *names, const char *const *values, void *ctx);
	void *row_ctx;
	int ncols;
	char **names;
	char **cells; /* aligned output only: rows * ncols sanitized cells */
	size_t nrows, cap;
	size_t *width;
};

int lt_out_format_parse(enum lt_out_format *out, const char *name)
{
	static const char *const names[] = {"table", "csv", "json", "jsonl"};

	for (int i = 0; i < 4; i++) {
		if (strcmp(name, names[i]) == 0) {
			*out = (enum lt_out_format)i;
			return 0;
		}
	}
	return LT_ERR_USAGE;
}

void lt_print_safe(FILE *f, const char *s, size_t len, int keep_newlines)
{
	struct lt_buf b;
	size_t start = 0;

	lt_buf_init(&b);
	for (size_t i = 0; i <= len; i++) {
		if (i < len && !(keep_newlines && s[i] == '\n'))
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

/* Display width of UTF-8 text: one column a code point (good enough for logs). */
static size_t table_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

struct lt_table *lt_table_new(const struct lt_query_opts *o, FILE *f, int ncols,
			      const char *const *names)
{
	struct lt_table *t = lt_xcalloc(1, sizeof *t);

	t->fmt = o->fmt;
	t->f = f;
	t->row = o->row;
	t->row_ctx = o->row_ctx;
	t->ncols = ncols;
	t->names = lt_xcalloc((size_t)ncols, sizeof *t->names);
	t->width = lt_xcalloc((size_t)ncols, sizeof *t->width);
	for (int i = 0; i < ncols; i++) {
		t->names[i] = lt_xstrdup(names[i]);
		t->width[i] = table_width(names[i]);
	}
	if (t->row != NULL)
		t->row(ncols, (const char *const *)t->names, NULL, t->row_ctx);
	if (t->row == NULL && t->fmt == LT_OUT_CSV)
		lt_table_row(t, (const char *const *)t->names);
	if (t->row == NULL && t->fmt == LT_OUT_JSON)
		fputc('[', f);
	return t;
}

static void table_csv_cell(FILE *f, const char *v)
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
static void table_json_string(FILE *f, const char *v)
{
	struct lt_buf b;

	lt_buf_init(&b);
	lt_json_quote(&b, v, strlen(v));
	fwrite(b.ptr, 1, b.len, f);
	lt_buf_release(&b);
}

/* Digits (with an optional sign and fraction) print as JSON numbers. */
static int table_is_number(const char *v)
{
	const char *p = v;

	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.' && p[1] >= '0' && p[1] <= '9')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	return *p == '\0' && p - v < 19;
}

static void table_json_row(struct lt_table *t, const char *const *values)
{
	if (t->fmt == LT_OUT_JSON)
		fputs(t->nrows ? ",\n" : "\n", t->f);
	fputc('{', t->f);
	for (int i = 0; i < t->ncols; i++) {
		if (i)
			fputc(',', t->f);
		table_json_string(t->f, t->names[i]);
		fputc(':', t->f);
		if (values[i] == NULL)
			fputs("null", t->f);
		else if (table_is_number(values[i]))
			fputs(values[i], t->f);
		else
			table_json_string(t->f, values[i]);
	}
	fputc('}', t->f);
	if (t->fmt == LT_OUT_JSONL)
		fputc('\n', t->f);
}

static void table_keep_row(struct lt_table *t, const char *const *values)
{
	struct lt_buf b;

	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->cells = lt_xrealloc(t->cells, t->cap * (size_t)t->ncols * sizeof *t->cells);
	}
	for (int i = 0; i < t->ncols; i++) {
		const char *v = values[i] ? values[i] : "";
		size_t w;

		lt_buf_init(&b);
		lt_sanitize(&b, v, strlen(v));
		w = table_width(b.ptr);
		if (w > t->width[i])
			t->width[i] = w;
		t->cells[t->nrows * (size_t)t->ncols + (size_t)i] = b.ptr;
	}
}

void lt_table_row(struct lt_table *t, const char *const *values)
{
	if (t->row != NULL) {
		t->row(t->ncols, (const char *const *)t->names, values, t->row_ctx);
		t->nrows++;
		return;
	}
	switch (t->fmt) {
	case LT_OUT_TABLE:
		table_keep_row(t, values);
		break;
	case LT_OUT_CSV:
		for (int i = 0; i < t->ncols; i++) {
			if (i)
				fputc(',', t->f);
			table_csv_cell(t->f, values[i]);
		}
		fputc('\n', t->f);
		break;
	case LT_OUT_JSON:
	case LT_OUT_JSONL:
		table_json_row(t, values);
		break;
	}
	t->nrows++;
}

static void table_print_line(struct lt_table *t, char *const *cells, int upper)
{
	int ncols = t->ncols;

	/* no trailing blanks: stop after the last non-empty cell */
	while (ncols > 1 && cells[ncols - 1][0] == '\0')
		ncols--;
	for (int i = 0; i < ncols; i++) {
		const char *v = cells[i];
		int last = i == ncols - 1;

		for (const char *p = v; *p; p++)
			fputc(upper && *p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p, t->f);
		if (!last)
			fprintf(t->f, "%*s", (int)(t->width[i] - table_width(v) + 2), "");
	}
	fputc('\n', t->f);
}

void lt_table_finish(struct lt_table *t)
{
	if (t == NULL)
		return;
	/* a sink kept nothing and prints nothing */
	if (t->row == NULL && t->fmt == LT_OUT_TABLE) {
		table_print_line(t, t->names, 1);
		for (size_t r = 0; r < t->nrows; r++)
			table_print_line(t, t->cells + r * (size_t)t->ncols, 0);
	} else if (t->row == NULL && t->fmt == LT_OUT_JSON) {
		fputs(t->nrows ? "\n]\n" : "]\n", t->f);
	}
	for (size_t i = 0; t->cells != NULL && i < t->nrows * (size_t)t->ncols; i++)
		free(t->cells[i]);
	for (int i = 0; i < t->ncols; i++)
		free(t->names[i]);
	free(t->cells);
	free(t->names);
	free(t->width);
	free(t);
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
