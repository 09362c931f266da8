/*
 * queries-print.c - the printers: typed rows to an aligned table, CSV, JSON
 * or JSON lines, under one policy for hostile text (README, "Output"):
 *
 *   table       every cell and column name lt_sanitize()d, terminal or not;
 *   CSV         the exact bytes (RFC 4180) to a pipe or file; on a terminal
 *               every field, names too, sanitized first;
 *   JSON, JSONL written by lt_json_writer (yajl's generator): always valid
 *               UTF-8, a byte that is not UTF-8 becoming U+FFFD; on a
 *               terminal, what JSON leaves raw and a terminal acts on (DEL,
 *               C1 controls, bidi marks) as \uXXXX escapes: the same value.
 *
 * Memory is bounded whatever the result.  A table keeps a sample, its first
 * PRINT_SAMPLE_ROWS rows or PRINT_SAMPLE_BYTES of sanitized text, chooses
 * its column widths from it (none wider than PRINT_MAX_WIDTH), prints it and
 * then each later row as it comes: a later cell wider than its column is
 * printed whole and pushes the rest of its row right, never cut.  On a
 * terminal (lt_printer_fit_terminal) the free-text columns are the
 * exception: cut with "…", the widest first, so that each line fits the
 * terminal's width (table_fit, table_line_fit).  The other
 * formats print each row as it comes.  A row is built in a buffer and
 * written with one fwrite; after a write fails (a closed pipe) nothing more
 * is written and the sink says it is closed, so the query can stop.
 */
#include "lt_queries.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The rows, header included, a table holds to choose its column widths... */
#define PRINT_SAMPLE_ROWS 1000
/* ...and the sanitized bytes they may hold (one row may go past it: it is kept whole). */
#define PRINT_SAMPLE_BYTES (1u << 20)
/* No column is padded wider: a longer name or host still aligns, a log message does not. */
#define PRINT_MAX_WIDTH 256
/* Fitting a terminal cuts no free-text column narrower (display cells, "…" included). */
#define PRINT_FIT_MIN 10
/* $COLUMNS past this is no terminal's width. */
#define PRINT_MAX_COLUMNS 100000

static const char print_ellipsis[] = "\xe2\x80\xa6"; /* U+2026 "…", one cell */

/* Whether table printers made from now on fit a terminal (lt_printer_fit_terminal). */
static int print_fit = 1;

struct lt_printer {
	struct lt_row_sink sink;
	enum lt_out_format fmt;
	FILE *f;
	int tty;	      /* f is a terminal: CSV and JSON made safe for it too */
	int werr;	      /* errno of the first failed write; nothing is written after it */
	int ncols;	      /* 0 until begin */
	char **names;	      /* the columns' names as given */
	size_t nrows;	      /* rows printed, or sampled by a table */
	size_t *width;	      /* a table's column widths: of the sample, then fixed */
	size_t term;	      /* a table fits this many cells (a terminal's width); 0: never cut */
	unsigned char *free;  /* per column: free text, cut first (and only) to fit term */
	size_t *slot;	      /* a line's cells' widths as laid out (fitting term) */
	const char **v;	      /* a table line's cells */
	struct lt_buf sample; /* a table's header and sampled rows: sanitized, NUL-ended cells */
	size_t nsample;	      /* lines in sample */
	int streaming;	      /* the sample is printed: rows print as they come */
	struct lt_buf line;   /* the output of one row */
	struct lt_buf cell;   /* one cell's text, sanitized or escaped */
	struct lt_json_writer *json;
};

/* ---- writing ------------------------------------------------------------ */

/*
 * Records the first failed write.  A closed pipe (EPIPE, when the caller ignores SIGPIPE)
 * means the reader has read enough: the stream's error flag is cleared so that the
 * program's last check of stdout does not take it for a full disk.
 */
static void print_failed(struct lt_printer *p)
{
	p->werr = errno != 0 ? errno : EIO;
	if (p->werr == EPIPE)
		clearerr(p->f);
}

static void print_write(struct lt_printer *p, const char *s, size_t n)
{
	if (p->werr != 0 || n == 0)
		return;
	errno = 0;
	if (fwrite(s, 1, n, p->f) != n)
		print_failed(p);
}

/* Writes the row built in p->line. */
static void print_line(struct lt_printer *p)
{
	print_write(p, p->line.ptr, p->line.len);
	lt_buf_reset(&p->line);
}

static int print_closed(void *ctx)
{
	const struct lt_printer *p = ctx;

	return p->werr != 0;
}

/* ---- table -------------------------------------------------------------- */

/*
 * Display width of sanitized UTF-8 text.  To a pipe one column a code point,
 * as ever (the layout of piped tables stays byte for byte what it was); on a
 * terminal being fitted, display cells: wide characters two, marks none.
 */
static size_t table_width_of(const struct lt_printer *p, const char *s)
{
	size_t w = 0;

	if (p->term > 0)
		return lt_text_width(s, strlen(s));
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Appends text's sanitized form and its NUL to b; returns its display width. */
static size_t table_cell(const struct lt_printer *p, struct lt_buf *b, const char *text, size_t len)
{
	size_t start = b->len, w;

	lt_sanitize(b, text ? text : "", text ? len : 0);
	w = table_width_of(p, b->ptr + start);
	lt_buf_putc(b, '\0');
	return w;
}

/*
 * Takes excess cells off the free columns among slot[0..n), the widest
 * first and each down to PRINT_FIT_MIN at most (water filling: the widest
 * comes down to the next widest, then both...); returns what could not be
 * taken off.
 */
static size_t table_shrink(size_t *slot, const unsigned char *isfree, int n, size_t excess)
{
	while (excess > 0) {
		int widest = -1;
		size_t next = PRINT_FIT_MIN, cut;

		for (int i = 0; i < n; i++)
			if (isfree[i] && slot[i] > PRINT_FIT_MIN &&
			    (widest < 0 || slot[i] > slot[widest]))
				widest = i;
		if (widest < 0)
			break;
		for (int i = 0; i < n; i++)
			if (i != widest && isfree[i] && slot[i] > next && slot[i] <= slot[widest])
				next = slot[i];
		cut = slot[widest] - next;
		if (cut == 0)
			cut = 1; /* two as wide: one cell off this one, then the other */
		if (cut > excess)
			cut = excess;
		slot[widest] -= cut;
		excess -= cut;
	}
	return excess;
}

/* Cuts the free columns' widths so a line of the widest sampled cells fits p->term. */
static void table_fit(struct lt_printer *p)
{
	size_t total = 0;

	for (int i = 0; i < p->ncols; i++)
		total += p->width[i] + (i < p->ncols - 1 ? 2 : 0);
	if (total > p->term)
		table_shrink(p->width, p->free, p->ncols, total - p->term);
}

/* Appends cell v to p->line cut to cells cells, "…" last when cut; returns its width. */
static size_t table_put_cut(struct lt_printer *p, const char *v, size_t w, size_t cells)
{
	size_t len = strlen(v), keep;

	if (cells == 0)
		return 0;
	if (w <= cells) {
		lt_buf_append(&p->line, v, len);
		return w;
	}
	keep = lt_text_fit(v, len, cells - 1, &w);
	lt_buf_append(&p->line, v, keep);
	lt_buf_append(&p->line, print_ellipsis, sizeof print_ellipsis - 1);
	return w + 1;
}

/*
 * One line of n cells (p->v) laid out to fit p->term: each free cell in the
 * width its column was fitted to, less when the other cells of this line
 * are wider than their columns (a row after the sample), then padded.
 */
static void table_line_fit(struct lt_printer *p, int n)
{
	size_t total = 0;

	for (int i = 0; i < n; i++) {
		size_t w = table_width_of(p, p->v[i]), room = p->width[i];

		/* a later cell longer than a narrow free column: the room any column keeps */
		if (p->free[i] && w > room && room < PRINT_FIT_MIN)
			room = w < PRINT_FIT_MIN ? w : PRINT_FIT_MIN;
		if (i == n - 1) /* the last cell is not padded: its own width, or the column's */
			p->slot[i] = p->free[i] && w > room ? room : w;
		else /* a free cell is cut to its column, any other pushes the line right */
			p->slot[i] = !p->free[i] && w > room ? w : room;
		total += p->slot[i] + (i < n - 1 ? 2 : 0);
	}
	if (total > p->term)
		table_shrink(p->slot, p->free, n, total - p->term);
	for (int i = 0; i < n; i++) {
		size_t w = table_width_of(p, p->v[i]);

		w = p->free[i] ? table_put_cut(p, p->v[i], w, p->slot[i])
			       : (lt_buf_append(&p->line, p->v[i], strlen(p->v[i])), w);
		if (i < n - 1)
			lt_buf_printf(&p->line, "%*s",
				      (int)((w < p->slot[i] ? p->slot[i] - w : 0) + 2), "");
	}
}

/* One line of cells (p->ncols NUL-ended strings from s on) into p->line, then out. */
static void table_line(struct lt_printer *p, const char *s)
{
	int n = p->ncols;

	for (int i = 0; i < p->ncols; i++, s += strlen(s) + 1)
		p->v[i] = s;
	/* no trailing blanks: stop after the last non-empty cell */
	while (n > 1 && p->v[n - 1][0] == '\0')
		n--;
	if (p->term > 0) {
		table_line_fit(p, n);
		lt_buf_putc(&p->line, '\n');
		print_line(p);
		return;
	}
	for (int i = 0; i < n; i++) {
		size_t w = i < n - 1 ? table_width_of(p, p->v[i]) : 0;

		lt_buf_append(&p->line, p->v[i], strlen(p->v[i]));
		if (i < n - 1)
			lt_buf_printf(&p->line, "%*s",
				      (int)((w < p->width[i] ? p->width[i] - w : 0) + 2), "");
	}
	lt_buf_putc(&p->line, '\n');
	print_line(p);
}

/* Prints the header and the sampled rows; from now on rows print as they come. */
static void table_flush(struct lt_printer *p)
{
	const char *s = p->sample.ptr;

	if (p->term > 0)
		table_fit(p);
	for (size_t r = 0; r < p->nsample; r++) {
		table_line(p, s);
		for (int i = 0; i < p->ncols; i++)
			s += strlen(s) + 1;
	}
	lt_buf_release(&p->sample);
	p->nsample = 0;
	p->streaming = 1;
}

/* Widens column i to fit a sampled cell w columns wide (up to PRINT_MAX_WIDTH). */
static void table_widen(struct lt_printer *p, size_t i, size_t w)
{
	if (w > PRINT_MAX_WIDTH)
		w = PRINT_MAX_WIDTH;
	if (w > p->width[i])
		p->width[i] = w;
}

/* A row into the sample (widening the columns), or printed at once once the sample is out. */
static void table_row(struct lt_printer *p, const struct lt_cell *cells)
{
	struct lt_buf *b = p->streaming ? &p->cell : &p->sample;
	char buf[LT_CELL_BUF];

	if (p->streaming)
		lt_buf_reset(b);
	for (int i = 0; i < p->ncols; i++) {
		size_t len, w;
		const char *v = lt_cell_format(&cells[i], LT_OUT_TABLE, buf, sizeof buf, &len);

		w = table_cell(p, b, v, len);
		if (!p->streaming)
			table_widen(p, (size_t)i, w);
	}
	if (p->streaming) {
		table_line(p, b->ptr);
		return;
	}
	if (++p->nsample > PRINT_SAMPLE_ROWS || p->sample.len > PRINT_SAMPLE_BYTES)
		table_flush(p);
}

static void table_begin(struct lt_printer *p)
{
	for (int i = 0; i < p->ncols; i++) {
		char *up = lt_xstrdup(p->names[i]);

		for (char *c = up; *c; c++)
			if (*c >= 'a' && *c <= 'z')
				*c = (char)(*c - 'a' + 'A');
		table_widen(p, (size_t)i, table_cell(p, &p->sample, up, strlen(up)));
		free(up);
	}
	p->nsample = 1;
}

/* ---- CSV ---------------------------------------------------------------- */

static int csv_needs_quotes(const char *v, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (v[i] == ',' || v[i] == '"' || v[i] == '\r' || v[i] == '\n')
			return 1;
	return 0;
}

/* One field, RFC 4180: quoted when it holds a comma, a quote or a line break. */
static void csv_field(struct lt_printer *p, const char *v, size_t len)
{
	if (v == NULL)
		return;
	if (p->tty) {
		lt_buf_reset(&p->cell);
		lt_sanitize(&p->cell, v, len);
		v = p->cell.ptr;
		len = p->cell.len;
	}
	if (!csv_needs_quotes(v, len)) {
		lt_buf_append(&p->line, v, len);
		return;
	}
	lt_buf_putc(&p->line, '"');
	for (size_t i = 0; i < len; i++) {
		if (v[i] == '"')
			lt_buf_putc(&p->line, '"');
		lt_buf_putc(&p->line, v[i]);
	}
	lt_buf_putc(&p->line, '"');
}

static void csv_row(struct lt_printer *p, const struct lt_cell *cells)
{
	char buf[LT_CELL_BUF];

	for (int i = 0; i < p->ncols; i++) {
		size_t len;
		const char *v = lt_cell_format(&cells[i], LT_OUT_CSV, buf, sizeof buf, &len);

		if (i)
			lt_buf_putc(&p->line, ',');
		csv_field(p, v, len);
	}
	lt_buf_putc(&p->line, '\n');
	print_line(p);
}

static void csv_begin(struct lt_printer *p)
{
	for (int i = 0; i < p->ncols; i++) {
		if (i)
			lt_buf_putc(&p->line, ',');
		csv_field(p, p->names[i], strlen(p->names[i]));
	}
	lt_buf_putc(&p->line, '\n');
	print_line(p);
}

/* ---- JSON --------------------------------------------------------------- */

/* JSON prints these unquoted. */
static int json_is_number(const struct lt_cell *c)
{
	return c->type == LT_CELL_INT || c->type == LT_CELL_ID || c->type == LT_CELL_DURATION ||
	       (c->type == LT_CELL_REAL && isfinite(c->r));
}

/* One row as one object into p->line: after ",\n" (JSON) or before "\n" (JSON lines). */
static void json_row(struct lt_printer *p, const struct lt_cell *cells)
{
	char buf[LT_CELL_BUF];

	lt_json_writer_map_open(p->json);
	for (int i = 0; i < p->ncols; i++) {
		size_t len;
		const char *v = lt_cell_format(&cells[i], p->fmt, buf, sizeof buf, &len);

		lt_json_writer_string(p->json, p->names[i], strlen(p->names[i]));
		if (v == NULL)
			lt_json_writer_null(p->json);
		else if (json_is_number(&cells[i]))
			lt_json_writer_number(p->json, v, len);
		else
			lt_json_writer_string(p->json, v, len);
	}
	lt_json_writer_map_close(p->json);
	if (p->fmt == LT_OUT_JSON)
		lt_buf_append(&p->line, p->nrows ? ",\n" : "\n", p->nrows ? 2 : 1);
	lt_buf_reset(&p->cell);
	lt_json_writer_take(p->json, &p->cell);
	if (p->tty)
		lt_sanitize_json(&p->line, p->cell.ptr, p->cell.len);
	else
		lt_buf_append(&p->line, p->cell.ptr, p->cell.len);
	if (p->fmt == LT_OUT_JSONL)
		lt_buf_putc(&p->line, '\n');
	print_line(p);
}

/* ---- the sink ----------------------------------------------------------- */

static void printer_reset(struct lt_printer *p)
{
	for (int i = 0; i < p->ncols; i++)
		free(p->names[i]);
	free(p->names);
	free(p->width);
	free(p->v);
	free(p->free);
	free(p->slot);
	p->free = NULL;
	p->slot = NULL;
	p->names = NULL;
	p->width = NULL;
	p->v = NULL;
	p->ncols = 0;
	p->nrows = p->nsample = 0;
	p->streaming = 0;
	lt_buf_release(&p->sample);
	lt_buf_reset(&p->line);
}

static void printer_begin(void *ctx, const struct lt_col *cols, int ncols)
{
	struct lt_printer *p = ctx;

	assert(ncols >= 0 && (cols != NULL || ncols == 0));
	printer_reset(p);
	p->ncols = ncols;
	p->names = lt_xcalloc((size_t)ncols + 1, sizeof *p->names);
	p->width = lt_xcalloc((size_t)ncols + 1, sizeof *p->width);
	p->v = lt_xcalloc((size_t)ncols + 1, sizeof *p->v);
	p->free = lt_xcalloc((size_t)ncols + 1, sizeof *p->free);
	p->slot = lt_xcalloc((size_t)ncols + 1, sizeof *p->slot);
	for (int i = 0; i < ncols; i++) {
		p->names[i] = lt_xstrdup(cols[i].name ? cols[i].name : "");
		p->free[i] = (cols[i].flags & LT_COL_FREE_TEXT) != 0;
	}
	switch (p->fmt) {
	case LT_OUT_TABLE:
		table_begin(p);
		break;
	case LT_OUT_CSV:
		csv_begin(p);
		break;
	case LT_OUT_JSON:
		print_write(p, "[", 1);
		break;
	case LT_OUT_JSONL:
		break;
	}
}

static void printer_row(void *ctx, const struct lt_cell *cells)
{
	struct lt_printer *p = ctx;

	assert(p->names != NULL); /* begin came first */
	if (p->werr != 0)
		return; /* the reader has gone: nothing to build rows for */
	switch (p->fmt) {
	case LT_OUT_TABLE:
		table_row(p, cells);
		break;
	case LT_OUT_CSV:
		csv_row(p, cells);
		break;
	case LT_OUT_JSON:
	case LT_OUT_JSONL:
		json_row(p, cells);
		break;
	}
	p->nrows++;
}

static void printer_end(void *ctx)
{
	struct lt_printer *p = ctx;

	if (p->fmt == LT_OUT_TABLE && p->names != NULL && !p->streaming)
		table_flush(p);
	else if (p->fmt == LT_OUT_JSON && p->names != NULL)
		print_write(p, p->nrows ? "\n]\n" : "]\n", p->nrows ? 3 : 2);
	errno = 0;
	if (p->werr == 0 && fflush(p->f) != 0)
		print_failed(p);
	printer_reset(p);
}

/* The width to fit a terminal on fd: $COLUMNS, else the terminal's own; 0 when neither says. */
static size_t print_terminal_width(int fd)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;

	if (env != NULL && env[0] >= '1' && env[0] <= '9') {
		char *end;
		unsigned long n = strtoul(env, &end, 10);

		if (*end == '\0' && n <= PRINT_MAX_COLUMNS)
			return (size_t)n;
	}
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

void lt_printer_fit_terminal(int on)
{
	print_fit = on != 0;
}

void lt_printer_set_width(struct lt_printer *p, size_t cols)
{
	p->term = p->fmt == LT_OUT_TABLE ? cols : 0;
}

struct lt_printer *lt_printer_new(enum lt_out_format fmt, FILE *f)
{
	struct lt_printer *p = lt_xcalloc(1, sizeof *p);

	assert(f != NULL);
	p->fmt = fmt;
	p->f = f;
	p->tty = fileno(f) >= 0 && isatty(fileno(f));
	if (p->tty && fmt == LT_OUT_TABLE && print_fit)
		p->term = print_terminal_width(fileno(f));
	lt_buf_init(&p->sample);
	lt_buf_init(&p->line);
	lt_buf_init(&p->cell);
	if (fmt == LT_OUT_JSON || fmt == LT_OUT_JSONL)
		p->json = lt_json_writer_new();
	p->sink = (struct lt_row_sink){.begin = printer_begin,
				       .row = printer_row,
				       .end = printer_end,
				       .closed = print_closed,
				       .ctx = p};
	return p;
}

void lt_printer_set_tty(struct lt_printer *p, int tty)
{
	p->tty = tty != 0;
}

const struct lt_row_sink *lt_printer_sink(struct lt_printer *p)
{
	return &p->sink;
}

int lt_printer_error(const struct lt_printer *p)
{
	return p->werr;
}

void lt_printer_free(struct lt_printer *p)
{
	if (p == NULL)
		return;
	printer_reset(p);
	lt_buf_release(&p->line);
	lt_buf_release(&p->cell);
	lt_json_writer_free(p->json);
	free(p);
}
