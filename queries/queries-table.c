/*
 * queries-table.c - typed rows: a cell as text (lt_cell_format), a result
 * kept whole (lt_rows) for the TUI, durations as people read them, and
 * terminal-safe text (lt_print_safe).  The printers are queries-print.c.
 *
 * A cell becomes text in one place, lt_cell_format, for every printer and
 * for the TUI's draw: times RFC 3339 in the display zone (UTC unless --tz), durations human in a
 * table and as seconds for programs, kinds by name.
 */
#include "lt_queries.h"

#include <assert.h>
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

unsigned lt_col_flags_by_name(const char *name)
{
	/* the free text of the views (README, "The views"), as `sql` names them */
	static const char *const free_text[] = {
	    "message", "reason",       "detail",      "note",	"sample", "hint",     "user_agent",
	    "fields",  "authz_reason", "request_uri", "status", "text",	  "evidence",
	};

	for (size_t i = 0; name != NULL && i < sizeof free_text / sizeof *free_text; i++)
		if (strcmp(name, free_text[i]) == 0)
			return LT_COL_FREE_TEXT;
	return 0;
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
		lt_time_format_zone(buf, size, c->i);
		break;
	case LT_CELL_DURATION:
		if (fmt == LT_OUT_TABLE)
			lt_format_duration(buf, size, c->i);
		else
			snprintf(buf, size, "%s%lld.%06lld", c->i < 0 ? "-" : "",
				 (long long)llabs(c->i / 1000000),
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

/* ---- a result kept whole ------------------------------------------------ */

static void rows_begin(void *ctx, const struct lt_col *cols, int ncols)
{
	struct lt_rows *t = ctx;

	lt_rows_release(t);
	t->ncols = ncols;
	t->cols = lt_xcalloc((size_t)ncols + 1, sizeof *t->cols);
	for (int i = 0; i < ncols; i++)
		t->cols[i] = (struct lt_col){
		    .name = lt_xstrdup(cols[i].name), .type = cols[i].type, .flags = cols[i].flags};
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
