/*
 * parser-csv.c - CSV exports of query results (RFC 4180), streamed: Logs
 * Insights console exports, Athena results (a "message" column), and the
 * result tables parser-results.c reads (Log Analytics, BigQuery).
 *
 * A byte-at-a-time state machine, fed chunks of any size: quoted fields
 * with doubled quotes and embedded newlines (LF or CRLF, kept as written),
 * CRLF or LF row ends, and a last row without a newline.  The header row
 * names the columns in any order; every later row becomes a struct
 * parser_cw_record.  A row is buffered whole (fields NUL-terminated, one after
 * the other) up to PARSER_MAX_RECORD; damage is one reject per row, with the
 * line the row starts on.  A header naming a result table makes every row a
 * list of cells (struct parser_res_cell) handed to ops->row; otherwise the
 * @message (or message) column makes each row a struct parser_cw_record.
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

/* The columns we read, by header name: Logs Insights' own first, then Athena's. */
enum csv_col { CC_TIME, CC_MESSAGE, CC_STREAM, CC_PTR, CC_LOG, CC_COUNT };

#define CSV_ALIASES 3

static const char *const csv_col_names[CC_COUNT][CSV_ALIASES] = {
    [CC_TIME] = {"@timestamp", "timestamp"},
    [CC_MESSAGE] = {"@message", "message"},
    [CC_STREAM] = {"@logStream", "logstream", "log_stream"},
    [CC_PTR] = {"@ptr", "id"},
    [CC_LOG] = {"@log", "loggroup", "log_group"}, /* the log group: it names the cluster */
};

/* Header fields the sniffer looks at. */
#define CSV_SNIFF_COLS 256

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
	int col[CC_COUNT];	  /* column index, -1 when the header lacks it */
	enum parser_res_kind res; /* a result table's header */
	struct lt_buf head;	  /* its names, NUL-terminated one after the other */
	struct parser_res_cell *cells;
	size_t ccap;
};

struct parser_csv *parser_csv_new(const struct parser_csv_ops *ops, void *ctx)
{
	struct parser_csv *c = lt_xcalloc(1, sizeof *c);

	c->ops = ops;
	c->ctx = ctx;
	c->line = 1;
	lt_buf_init(&c->row);
	lt_buf_init(&c->head);
	return c;
}

void parser_csv_free(struct parser_csv *c)
{
	if (c == NULL)
		return;
	lt_buf_release(&c->row);
	lt_buf_release(&c->head);
	free(c->cells);
	free(c);
}

/* ---- the sniffer ------------------------------------------------------- */

/* A header name without the " [UTC]" the Azure portal adds to a datetime column. */
static struct lt_str csv_name(struct lt_str s)
{
	if (s.len > 6 && memcmp(s.ptr + s.len - 6, " [UTC]", 6) == 0)
		s.len -= 6;
	return s;
}

/* The header field [s, s+n), quotes undone (no doubled quotes in a header). */
static struct lt_str csv_head_field(const char *s, size_t n)
{
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"')
		s++, n -= 2;
	return csv_name((struct lt_str){s, n});
}

static int csv_is_message(struct lt_str name)
{
	return lt_str_eq(name, csv_col_names[CC_MESSAGE][0]) ||
	       lt_str_eq(name, csv_col_names[CC_MESSAGE][1]);
}

int parser_csv_sniff(const char *buf, size_t len)
{
	struct parser_res_cell cells[CSV_SNIFF_COLS];
	const char *p = buf, *end = buf + len, *field;
	size_t n = 0;
	int quoted = 0;

	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	for (field = p; p < end && n < CSV_SNIFF_COLS; p++) {
		if (*p == '"') {
			quoted = !quoted;
		} else if (!quoted && (*p == ',' || *p == '\n' || *p == '\r')) {
			cells[n] = (struct parser_res_cell){
			    .name = csv_head_field(field, (size_t)(p - field))};
			if (csv_is_message(cells[n++].name))
				return 1;
			if (*p != ',')
				return n > 1 && parser_res_kind_of(cells, n) != PARSER_RES_NONE;
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

/* Header field i: a byte order mark may open the file, a portal may add " [UTC]". */
static struct lt_str csv_header_name(const struct parser_csv *c, size_t i)
{
	struct lt_str name = csv_field(c, i);

	if (i == 0 && name.len >= 3 && memcmp(name.ptr, "\xef\xbb\xbf", 3) == 0)
		name.ptr += 3, name.len -= 3;
	return csv_name(name);
}

/* Which column holds value k: the first alias the header has. */
static int csv_column(const struct parser_csv *c, enum csv_col k)
{
	for (int a = 0; a < CSV_ALIASES && csv_col_names[k][a] != NULL; a++)
		for (size_t i = 0; i < c->nfields; i++)
			if (lt_str_eq(csv_header_name(c, i), csv_col_names[k][a]))
				return (int)i;
	return -1;
}

/* A result table's header: the names are kept for the cells of every row. */
static void csv_result_header(struct parser_csv *c)
{
	LT_GROW(c->cells, c->ccap, c->nfields + 1);
	lt_buf_reset(&c->head);
	for (size_t i = 0; i < c->nfields; i++) {
		struct lt_str name = csv_header_name(c, i);

		c->cells[i] = (struct parser_res_cell){.name = {NULL, c->head.len}, .top = 1};
		lt_buf_append(&c->head, name.ptr, name.len);
		lt_buf_putc(&c->head, '\0');
	}
	for (size_t i = 0; i < c->nfields; i++) {
		size_t off = c->cells[i].name.len;

		c->cells[i].name = (struct lt_str){c->head.ptr + off, strlen(c->head.ptr + off)};
	}
	c->res = parser_res_kind_of(c->cells, c->nfields);
}

/* The header row: which column holds which value. */
static void csv_header(struct parser_csv *c)
{
	c->have_header = 1;
	c->ncols = c->nfields;
	csv_result_header(c);
	for (int k = 0; k < CC_COUNT; k++)
		c->col[k] = csv_column(c, (enum csv_col)k);
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
	else if (c->col[CC_MESSAGE] < 0 && c->res == PARSER_RES_NONE)
		snprintf(buf, size, "CSV header has no @message column: nothing to read");
	else
		return NULL;
	return buf;
}

/* A result table's row: its cells, an empty field being no value. */
static int csv_result_row(struct parser_csv *c)
{
	for (size_t i = 0; i < c->nfields; i++) {
		c->cells[i].value = csv_field(c, i);
		c->cells[i].type = c->cells[i].value.len > 0 ? PARSER_RES_STR : PARSER_RES_NULL;
	}
	return c->ops->row(c->res, c->cells, c->nfields, c->row_line, c->row_offset, c->ctx);
}

/* A time field: RFC 3339 or Logs Insights' own, or epoch milliseconds (Athena's bigint). */
static int csv_time(int64_t *out, struct lt_str ts)
{
	int64_t ms = 0;

	if (ts.len == 0 || ts.len > 15 || strspn(ts.ptr, "0123456789") < ts.len)
		return parser_cw_time_parse(out, ts.ptr, ts.len);
	for (size_t i = 0; i < ts.len; i++)
		ms = ms * 10 + (ts.ptr[i] - '0');
	*out = ms * 1000;
	return 0;
}

/*
 * A line of a CloudWatch export task read whole ("2024-04-05T05:50:00.123Z
 * {...}", Athena over the exported text): the time is the record's.
 */
static void csv_export_line(struct parser_cw_record *rec)
{
	const char *sp =
	    memchr(rec->message.ptr, ' ', rec->message.len < 40 ? rec->message.len : 40);
	int64_t us;

	if (sp == NULL || rec->message.len == 0 || rec->message.ptr[0] < '0' ||
	    rec->message.ptr[0] > '9' || (size_t)(sp - rec->message.ptr) + 1 >= rec->message.len ||
	    sp[1] != '{' ||
	    lt_time_parse(&us, rec->message.ptr, (size_t)(sp - rec->message.ptr)) != 0)
		return;
	if (rec->ts_us == 0)
		rec->ts_us = us;
	rec->message.len -= (size_t)(sp + 1 - rec->message.ptr);
	rec->message.ptr = sp + 1;
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
	if (c->res != PARSER_RES_NONE && c->ops->row == NULL)
		return csv_reject(c, "a query result row, and this reader takes none");
	if (c->res != PARSER_RES_NONE)
		return csv_result_row(c);
	memset(&rec, 0, sizeof rec);
	ts = c->col[CC_TIME] >= 0 ? csv_field(c, (size_t)c->col[CC_TIME]) : (struct lt_str){0};
	if (ts.ptr != NULL && ts.len > 0 && csv_time(&rec.ts_us, ts) != 0)
		return csv_reject(c, "CSV row's @timestamp is not a time");
	rec.message = csv_field(c, (size_t)c->col[CC_MESSAGE]);
	csv_export_line(&rec);
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
