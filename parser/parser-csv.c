/*
 * parser-csv.c - Logs Insights console CSV exports (RFC 4180), streamed.
 *
 * A byte-at-a-time state machine, fed chunks of any size: quoted fields
 * with doubled quotes and embedded newlines (LF or CRLF, kept as written),
 * CRLF or LF row ends, and a last row without a newline.  The header row
 * names the columns in any order; every later row becomes a struct
 * parser_cw_record.  A row is buffered whole (fields NUL-terminated, one after
 * the other) up to PARSER_MAX_RECORD; damage is one reject per row, with the
 * line the row starts on.
 */
#include "parser-int.h"

#include <stdlib.h>
#include <string.h>

#define CSV_MAX_COLS 1024

enum csv_state {
	CSV_FIELD_START, /* at the first byte of a field */
	CSV_PLAIN,	 /* inside an unquoted field */
	CSV_QUOTED,	 /* inside a quoted field */
	CSV_QUOTE,	 /* a quote inside a quoted field: doubled, or the closing one */
};

/* The columns we read, by header name. */
enum csv_col { CC_TIME, CC_MESSAGE, CC_STREAM, CC_PTR, CC_LOG, CC_COUNT };

static const char *const csv_col_names[CC_COUNT] = {"@timestamp", "@message", "@logStream", "@ptr",
						    "@log"};

struct parser_csv {
	const struct parser_csv_ops *ops;
	void *ctx;
	enum csv_state state;
	int pending_cr; /* a CR outside quotes: a row end if a LF follows */
	struct lt_buf row;
	size_t fstart[CSV_MAX_COLS];
	size_t nfields;
	int oversize, too_wide, stray_quote, quoted_any;
	int row_open;	       /* a byte of the row has been seen */
	uint64_t line, offset; /* of the next byte */
	uint64_t row_line, row_offset, quote_line;
	int have_header;
	size_t ncols;
	int col[CC_COUNT]; /* column index, -1 when the header lacks it */
};

struct parser_csv *parser_csv_new(const struct parser_csv_ops *ops, void *ctx)
{
	struct parser_csv *c = lt_xcalloc(1, sizeof *c);

	c->ops = ops;
	c->ctx = ctx;
	c->line = 1;
	lt_buf_init(&c->row);
	return c;
}

void parser_csv_free(struct parser_csv *c)
{
	if (c == NULL)
		return;
	lt_buf_release(&c->row);
	free(c);
}

/* ---- the sniffer ------------------------------------------------------- */

/* True when the header field [s, s+n) (quotes undone) is "@message". */
static int csv_is_message(const char *s, size_t n)
{
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"')
		s++, n -= 2;
	return n == 8 && memcmp(s, "@message", 8) == 0;
}

int parser_csv_sniff(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *field;
	int quoted = 0;

	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	for (field = p; p < end; p++) {
		if (*p == '"') {
			quoted = !quoted;
		} else if (!quoted && (*p == ',' || *p == '\n' || *p == '\r')) {
			if (csv_is_message(field, (size_t)(p - field)))
				return 1;
			if (*p != ',')
				return 0;
			field = p + 1;
		}
	}
	return 0;
}

/* ---- rows --------------------------------------------------------------- */

/* Appends a byte of the current field, unless the row outgrew the cap. */
static void csv_put(struct parser_csv *c, char ch)
{
	if (c->oversize)
		return;
	if (c->row.len + 2 > PARSER_MAX_RECORD) {
		c->oversize = 1;
		return;
	}
	lt_buf_putc(&c->row, ch);
}

/* Ends the current field: NUL-terminates it and starts the next one. */
static void csv_end_field(struct parser_csv *c)
{
	csv_put(c, '\0');
	if (c->nfields + 1 >= CSV_MAX_COLS)
		c->too_wide = 1;
	else
		c->fstart[c->nfields + 1] = c->row.len;
	c->nfields++;
	c->state = CSV_FIELD_START;
}

static void csv_row_reset(struct parser_csv *c)
{
	lt_buf_reset(&c->row);
	c->nfields = 0;
	c->fstart[0] = 0;
	c->oversize = 0;
	c->too_wide = 0;
	c->stray_quote = 0;
	c->quoted_any = 0;
	c->row_open = 0;
	c->state = CSV_FIELD_START;
}

static struct lt_str csv_field(const struct parser_csv *c, size_t i)
{
	struct lt_str s = {NULL, 0};

	if (i < c->nfields && i < CSV_MAX_COLS - 1) {
		s.ptr = c->row.ptr + c->fstart[i];
		s.len = c->fstart[i + 1] - c->fstart[i] - 1;
	}
	return s;
}

/* The header row: which column holds which value. */
static void csv_header(struct parser_csv *c)
{
	c->have_header = 1;
	c->ncols = c->nfields;
	for (int k = 0; k < CC_COUNT; k++) {
		c->col[k] = -1;
		for (size_t i = 0; i < c->nfields && c->col[k] < 0; i++) {
			struct lt_str name = csv_field(c, i);

			/* a byte order mark may open the file */
			if (i == 0 && name.len >= 3 && memcmp(name.ptr, "\xef\xbb\xbf", 3) == 0)
				name.ptr += 3, name.len -= 3;
			if (lt_str_eq(name, csv_col_names[k]))
				c->col[k] = (int)i;
		}
	}
}

static int csv_reject(struct parser_csv *c, const char *reason)
{
	return c->ops->reject(c->row_line, c->row_offset, reason, c->ctx);
}

/* Says why a complete row cannot be a record, or returns NULL. */
static const char *csv_row_problem(const struct parser_csv *c, char *buf, size_t size)
{
	if (c->oversize)
		snprintf(buf, size, "CSV row larger than %u bytes, skipped", PARSER_MAX_RECORD);
	else if (c->too_wide)
		snprintf(buf, size, "CSV row with more than %d fields, skipped", CSV_MAX_COLS - 1);
	else if (c->nfields != c->ncols)
		snprintf(buf, size, "CSV row has %zu fields, the header has %zu", c->nfields,
			 c->ncols);
	else if (c->stray_quote)
		snprintf(buf, size, "CSV row has text after a closing quote");
	else if (c->col[CC_MESSAGE] < 0)
		snprintf(buf, size, "CSV header has no @message column: nothing to read");
	else
		return NULL;
	return buf;
}

/* A complete data row: a record, or a reject saying why not. */
static int csv_data_row(struct parser_csv *c)
{
	struct parser_cw_record rec;
	struct lt_str ts;
	char buf[128];
	const char *why = csv_row_problem(c, buf, sizeof buf);

	if (why != NULL)
		return csv_reject(c, why);
	memset(&rec, 0, sizeof rec);
	ts = c->col[CC_TIME] >= 0 ? csv_field(c, (size_t)c->col[CC_TIME]) : (struct lt_str){0};
	if (ts.ptr != NULL && ts.len > 0 && parser_cw_time_parse(&rec.ts_us, ts.ptr, ts.len) != 0)
		return csv_reject(c, "CSV row's @timestamp is not a time");
	rec.message = csv_field(c, (size_t)c->col[CC_MESSAGE]);
	if (c->col[CC_STREAM] >= 0)
		rec.stream = csv_field(c, (size_t)c->col[CC_STREAM]);
	if (c->col[CC_PTR] >= 0)
		rec.ext_id = csv_field(c, (size_t)c->col[CC_PTR]);
	if (c->col[CC_LOG] >= 0)
		rec.group = csv_field(c, (size_t)c->col[CC_LOG]);
	if (rec.stream.len == 0)
		rec.stream.ptr = NULL;
	if (rec.ext_id.len == 0)
		rec.ext_id.ptr = NULL;
	return c->ops->record(&rec, c->row_line, c->row_offset, c->ctx);
}

/* The row ended (newline or end of input): header, record, reject, or a blank line. */
static int csv_end_row(struct parser_csv *c)
{
	int rc = 0, blank;

	csv_end_field(c);
	blank = c->nfields == 1 && c->row.len == 1 && !c->quoted_any;
	/* an empty line is not a row */
	if (!blank && !c->have_header)
		csv_header(c);
	else if (!blank)
		rc = csv_data_row(c);
	csv_row_reset(c);
	return rc;
}

/* ---- the state machine -------------------------------------------------- */

/* A byte outside quotes (at a field's start or in an unquoted field). */
static int csv_plain_byte(struct parser_csv *c, char ch)
{
	switch (ch) {
	case ',':
		csv_end_field(c);
		return 0;
	case '\n':
		return csv_end_row(c);
	case '\r':
		c->pending_cr = 1;
		return 0;
	case '"':
		if (c->state == CSV_FIELD_START) {
			c->state = CSV_QUOTED;
			c->quoted_any = 1;
			c->quote_line = c->line;
			return 0;
		}
		break; /* a quote inside an unquoted field is kept, as most writers mean it */
	default:
		break;
	}
	csv_put(c, ch);
	c->state = CSV_PLAIN;
	return 0;
}

/* A byte after a quote inside a quoted field. */
static int csv_after_quote(struct parser_csv *c, char ch)
{
	if (ch == '"') {
		csv_put(c, '"');
		c->state = CSV_QUOTED;
		return 0;
	}
	c->state = CSV_PLAIN;
	if (ch == ',' || ch == '\n' || ch == '\r')
		return csv_plain_byte(c, ch);
	c->stray_quote = 1;
	csv_put(c, ch);
	return 0;
}

static int csv_byte(struct parser_csv *c, char ch)
{
	if (!c->row_open) {
		c->row_open = 1;
		c->row_line = c->line;
		c->row_offset = c->offset;
	}
	if (c->pending_cr) {
		c->pending_cr = 0;
		if (ch == '\n')
			return csv_end_row(c);
		csv_put(c, '\r'); /* a lone CR is data */
		c->state = CSV_PLAIN;
	}
	switch (c->state) {
	case CSV_QUOTED:
		if (ch == '"')
			c->state = CSV_QUOTE;
		else
			csv_put(c, ch);
		return 0;
	case CSV_QUOTE:
		return csv_after_quote(c, ch);
	case CSV_FIELD_START:
	case CSV_PLAIN:
		break;
	}
	return csv_plain_byte(c, ch);
}

/* Copies a run of plain bytes inside a quoted field at once. */
static size_t csv_quoted_run(struct parser_csv *c, const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && p[i] != '"' && p[i] != '\n')
		i++;
	if (!c->oversize && c->row.len + i + 2 <= PARSER_MAX_RECORD)
		lt_buf_append(&c->row, p, i);
	else
		c->oversize = 1;
	return i;
}

int parser_csv_feed(struct parser_csv *c, const char *buf, size_t len)
{
	int rc = 0;

	for (size_t i = 0; i < len && rc == 0;) {
		if (c->state == CSV_QUOTED && !c->pending_cr && buf[i] != '"' && buf[i] != '\n') {
			size_t n = csv_quoted_run(c, buf + i, len - i);

			i += n;
			c->offset += n;
			continue;
		}
		rc = csv_byte(c, buf[i]);
		if (buf[i] == '\n')
			c->line++;
		c->offset++;
		i++;
	}
	return rc;
}

int parser_csv_finish(struct parser_csv *c)
{
	char reason[160];
	int rc = 0;

	if (c->state == CSV_QUOTED) {
		snprintf(reason, sizeof reason,
			 "CSV row cut off: the quote opened on line %llu is not closed at end of "
			 "input (truncated)",
			 (unsigned long long)c->quote_line);
		rc = csv_reject(c, reason);
		csv_row_reset(c);
	} else if (c->row_open) {
		c->pending_cr = 0;
		rc = csv_end_row(c);
	}
	c->pending_cr = 0;
	return rc;
}
