/*
 * parser-frame.c - cutting a byte stream into JSON records.
 *
 * A small state machine that knows just enough JSON (strings, escapes,
 * nesting) to find where each top-level value ends, without parsing it.
 * It accepts JSON lines, pretty-printed values spread over lines and
 * concatenated, a top-level array of records, and an envelope object whose
 * list holds the records: "items" (the audit webhook's EventList), "events"
 * (aws logs filter-log-events and get-log-events, often several pages
 * concatenated), "results" (aws logs get-query-results, whose records are
 * arrays of {field, value}) or "records" (Azure Monitor's Event Hub
 * messages of diagnostic records).  A list element is a record when it is an
 * object or an array; an envelope's other keys (nextToken,
 * searchedLogStreams, statistics...) are skipped.
 *
 * Damage is contained: a line that does not start a JSON value is rejected
 * up to its end; a record still open when a new line starts with '{' in
 * column 0 (or at the end of input) was cut off, so it is rejected and the
 * new record begins there, unless it is one line whose bytes break JSON
 * before they end (then it is handed out, for its decoder to say where);
 * a record over the size cap is tracked but not buffered.
 *
 * A record with a newline inside a string was a line hard-wrapped by a paste
 * (JSON writes none there, pretty-printed or not): every newline in it is a
 * wrap, and the record goes out with them taken away, its lines joined
 * (parser_frame_joined says how many).
 */
#include "parser-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* A hard wrap is only seen in lines at least this long. */
#define FRAME_WRAP_MIN 40

enum frame_mode {
	FRAME_SEEK,	/* between records, at depth 0 */
	FRAME_RECORD,	/* buffering a record */
	FRAME_OVERSIZE, /* inside a record too large to buffer */
	FRAME_ENVELOPE, /* inside a top-level container whose list holds the records */
	FRAME_GARBAGE,	/* skipping the rest of a line that is not JSON */
	FRAME_BOM,	/* inside a UTF-8 byte order mark at the very start */
	FRAME_ZEROS,	/* inside a run of zero bytes */
};

/* Keys of a top-level object whose array value holds the records. */
static const char *const frame_list_keys[] = {"items", "events", "results", "records"};

struct parser_frame {
	const struct parser_frame_ops *ops;
	void *ctx;
	size_t max_record;
	struct lt_buf rec;
	enum frame_mode mode;
	uint64_t line, offset; /* position of the byte being looked at */
	int depth;
	int in_string, escape;
	int at_line_start;
	int rec_base;	/* depth outside the record being read */
	int list_depth; /* depth inside the records' list, 0 when none */
	int elem_junk;	/* a non-object list element was reported */
	uint64_t rec_line, rec_offset;
	int wrapped;	 /* a newline inside one of the record's strings */
	uint64_t joined; /* lines the record handed out last was joined from, 0 if none */
	/* the lengths of the open record's lines: all alike (two at least) is a hard wrap */
	uint64_t line_start, first_len;
	int same_len;
	/* finding a list key at depth 1 of a top-level object: the offset of its first byte */
	uint64_t key_at;
	int key_is_list, after_list_key;
	int bom_left; /* bytes of a byte order mark still to skip */
	/* a run of zero bytes being counted, and the mode it interrupted */
	enum frame_mode zero_from;
	uint64_t zero_offset, zeros;
	const char *keep; /* during a feed: first byte of the record not yet buffered */
	const char *feed; /* during a feed: its first byte, at offset feed_at */
	uint64_t feed_at;
};

#ifndef NDEBUG
/*
 * The state machine's invariant between two bytes: what each mode may hold.
 * Checked (in builds with asserts) around every feed and every structural byte.
 */
static int frame_ok(const struct parser_frame *f)
{
	if (f->depth < 0 || f->list_depth < 0 || f->list_depth > f->depth)
		return 0;
	switch (f->mode) {
	case FRAME_SEEK: /* between records: nothing open */
		return f->depth == 0 && f->list_depth == 0;
	case FRAME_RECORD: /* inside a record, buffered within the cap */
		return f->depth > f->rec_base && f->rec.len <= f->max_record;
	case FRAME_OVERSIZE: /* inside a record, nothing buffered */
		return f->depth > f->rec_base && f->rec.len == 0;
	case FRAME_ENVELOPE: /* inside a top-level container */
		return f->depth >= 1;
	case FRAME_GARBAGE:
		return 1;
	case FRAME_BOM:
		return f->offset <= 2 && f->bom_left >= 1 && f->bom_left <= 2;
	case FRAME_ZEROS: /* a run of zeros remembers a mode that is not itself */
		return f->zero_from != FRAME_ZEROS && f->zeros > 0;
	}
	return 0;
}
#endif

struct parser_frame *parser_frame_new(const struct parser_frame_ops *ops, void *ctx,
				      size_t max_record)
{
	struct parser_frame *f = lt_xcalloc(1, sizeof *f);

	f->ops = ops;
	f->ctx = ctx;
	f->max_record = max_record ? max_record : PARSER_MAX_RECORD;
	f->line = 1;
	f->at_line_start = 1;
	lt_buf_init(&f->rec);
	return f;
}

void parser_frame_free(struct parser_frame *f)
{
	if (f == NULL)
		return;
	lt_buf_release(&f->rec);
	free(f);
}

uint64_t parser_frame_line(const struct parser_frame *f)
{
	return f->line;
}

uint64_t parser_frame_joined(const struct parser_frame *f)
{
	return f->joined;
}

static int frame_reject(struct parser_frame *f, uint64_t line, uint64_t offset, const char *reason)
{
	return f->ops->reject(line, offset, reason, f->ctx);
}

/* Begins a record whose first byte is the current one. */
static void frame_begin(struct parser_frame *f, int base, const char *p)
{
	f->keep = p;
	f->mode = FRAME_RECORD;
	f->rec_base = base;
	f->rec_line = f->line;
	f->rec_offset = f->offset;
	f->key_is_list = 0;
	f->after_list_key = 0;
	f->wrapped = 0;
	f->first_len = 0;
	f->same_len = 0;
	lt_buf_reset(&f->rec);
}

/* A newline at the current offset: the length of the line it ends, for a record's wrap. */
static void frame_line_ended(struct parser_frame *f)
{
	uint64_t len = f->offset - f->line_start;

	f->line_start = f->offset + 1;
	if (f->mode != FRAME_RECORD)
		return;
	if (f->line == f->rec_line) {
		f->first_len = len;
		f->same_len = 1;
	} else if (len == f->first_len && f->same_len > 0) {
		f->same_len++;
	} else {
		f->same_len = -1;
	}
}

/* A hard-wrapped record: its newlines (and carriage returns) taken away. */
static void frame_unwrap(struct parser_frame *f)
{
	size_t k = 0;

	for (size_t i = 0; i < f->rec.len; i++)
		if (f->rec.ptr[i] != '\n' && f->rec.ptr[i] != '\r')
			f->rec.ptr[k++] = f->rec.ptr[i];
	lt_buf_truncate(&f->rec, k);
	f->joined = f->line - f->rec_line + 1;
}

/*
 * The record just closed: hand it out and go back to where records are found.
 * A record that lies whole in the bytes being fed, not wrapped and within the
 * cap, goes out as a view of them (view != NULL, n bytes); any other from rec.
 */
static int frame_end(struct parser_frame *f, const char *view, size_t n)
{
	int rc = 0;
	char reason[96];

	if (view != NULL) {
		assert(f->mode == FRAME_RECORD && f->rec.len == 0 && !f->wrapped);
		rc = f->ops->record(view, n, f->rec_line, f->rec_offset, f->ctx);
		f->joined = 0;
	} else if (f->mode == FRAME_RECORD) {
		if (f->wrapped)
			frame_unwrap(f);
		rc = f->ops->record(f->rec.ptr, f->rec.len, f->rec_line, f->rec_offset, f->ctx);
		f->joined = 0;
	} else {
		snprintf(reason, sizeof reason, "record larger than %zu bytes, skipped",
			 f->max_record);
		rc = frame_reject(f, f->rec_line, f->rec_offset, reason);
	}
	lt_buf_reset(&f->rec);
	f->mode = f->list_depth ? FRAME_ENVELOPE : FRAME_SEEK;
	return rc;
}

/* Forgets any open record or list: the next byte is read as if between records. */
static void frame_restart(struct parser_frame *f)
{
	lt_buf_reset(&f->rec);
	f->mode = FRAME_SEEK;
	f->depth = 0;
	f->list_depth = 0;
	f->in_string = 0;
	f->escape = 0;
}

/*
 * A record still open whose bytes are invalid JSON before their end (a
 * complete line with a stray quote or brace) was not cut off: handed out as
 * it is, so its decoder says where the JSON breaks.
 */
static int frame_is_broken(const struct parser_frame *f)
{
	const char *nl;

	if (f->mode != FRAME_RECORD || f->rec.len == 0)
		return 0;
	/* one line, whole (a record over several lines that stops short was cut off) */
	nl = memchr(f->rec.ptr, '\n', f->rec.len);
	return (nl == NULL || nl == f->rec.ptr + f->rec.len - 1 ||
		(nl == f->rec.ptr + f->rec.len - 2 && nl[1] == '\r')) &&
	       parser_json_broken(f->rec.ptr, f->rec.len);
}

/* A record still open when its line broke off: reject it, start over at depth 0. */
static int frame_cut(struct parser_frame *f)
{
	int rc = 0;
	char reason[128];

	if (frame_is_broken(f)) {
		rc = f->ops->record(f->rec.ptr, f->rec.len, f->rec_line, f->rec_offset, f->ctx);
	} else if (f->mode == FRAME_RECORD || f->mode == FRAME_OVERSIZE) {
		snprintf(reason, sizeof reason,
			 "record cut off: line %llu starts a new record before it ended",
			 (unsigned long long)f->line);
		rc = frame_reject(f, f->rec_line, f->rec_offset, reason);
	} else if (f->mode == FRAME_ENVELOPE) {
		rc = frame_reject(f, f->line, f->offset, "list cut off before its end");
	}
	frame_restart(f);
	return rc;
}

/* A byte that cannot start a record at depth 0: reject the rest of its line. */
static int frame_garbage(struct parser_frame *f, unsigned char c)
{
	char reason[96];

	if (c >= 0x20 && c < 0x7f)
		snprintf(reason, sizeof reason, "not a JSON object: line starts with '%c'", c);
	else
		snprintf(reason, sizeof reason, "not a JSON object: line starts with byte 0x%02x",
			 c);
	f->mode = FRAME_GARBAGE;
	return frame_reject(f, f->line, f->offset, reason);
}

/* A UTF-8 byte order mark (EF BB BF) may open a file: skip it. */
static int frame_bom(struct parser_frame *f)
{
	f->mode = FRAME_BOM;
	f->bom_left = 2;
	return 0;
}

static int frame_bom_byte(struct parser_frame *f, unsigned char c)
{
	static const unsigned char rest[] = {0xbb, 0xbf};

	if (c != rest[2 - f->bom_left]) {
		f->mode = FRAME_GARBAGE;
		return frame_reject(f, f->line, 0, "not a JSON object: line starts with byte 0xef");
	}
	if (--f->bom_left == 0)
		f->mode = FRAME_SEEK;
	return 0;
}

/* Appends the record's bytes from f->keep up to upto; switches to oversize past the cap. */
static void frame_flush(struct parser_frame *f, const char *upto)
{
	size_t n = (size_t)(upto - f->keep);

	if (f->mode == FRAME_RECORD && upto > f->keep) {
		if (f->rec.len + n > f->max_record) {
			f->mode = FRAME_OVERSIZE;
			lt_buf_reset(&f->rec);
		} else {
			lt_buf_append(&f->rec, f->keep, n);
		}
	}
	f->keep = upto;
}

/*
 * True when the key that just closed at depth 1 (its closing quote at q, the
 * current offset) names the records' list.  The key is read where it lies:
 * in the bytes being fed, or, begun in an earlier feed, at the end of rec.
 */
static int frame_key_is_list(struct parser_frame *f, const char *q)
{
	size_t n = (size_t)(f->offset - f->key_at);
	const char *k;

	if (f->key_at >= f->feed_at) {
		k = f->feed + (f->key_at - f->feed_at);
	} else {
		frame_flush(f, q);
		if (f->mode != FRAME_RECORD || f->rec.len < n)
			return 0;
		k = f->rec.ptr + f->rec.len - n;
	}
	for (size_t i = 0; i < sizeof frame_list_keys / sizeof *frame_list_keys; i++)
		if (strlen(frame_list_keys[i]) == n && memcmp(k, frame_list_keys[i], n) == 0)
			return 1;
	return 0;
}

/* The record closing at end (exclusive) as a view of the feed, or NULL when it must be copied. */
static const char *frame_view(const struct parser_frame *f, const char *end)
{
	if (f->mode != FRAME_RECORD || f->rec.len != 0 || f->wrapped ||
	    (size_t)(end - f->keep) > f->max_record)
		return NULL;
	assert(f->keep >= f->feed && (*f->keep == '{' || *f->keep == '['));
	return f->keep;
}

/* True while reading the keys of a top-level object (where "items" may appear). */
static int frame_at_top_keys(const struct parser_frame *f)
{
	return f->mode == FRAME_RECORD && f->rec_base == 0 && f->depth == 1;
}

/* Outside strings in a top-level object: spots `"items": [` and turns into an envelope. */
static int frame_watch_key(struct parser_frame *f, unsigned char c)
{
	if (!frame_at_top_keys(f))
		return 0;
	if (c == ':') {
		f->after_list_key = f->key_is_list;
		return 0;
	}
	if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
		return 0;
	if (c == '[' && f->after_list_key) {
		lt_buf_reset(&f->rec);
		f->mode = FRAME_ENVELOPE;
		f->depth = 2;
		f->list_depth = 2;
		f->elem_junk = 0;
		return 1;
	}
	f->after_list_key = 0;
	f->key_is_list = 0;
	return 0;
}

/* One byte outside any string, inside a record; emits the record when it closes. */
static int frame_structure(struct parser_frame *f, const char *p)
{
	unsigned char c = (unsigned char)*p;

	if (frame_watch_key(f, c))
		return 0;
	if (c == '"') {
		f->in_string = 1;
		if (frame_at_top_keys(f))
			f->key_at = f->offset + 1;
	} else if (c == '{' || c == '[') {
		f->depth++;
	} else if (c == '}' || c == ']') {
		if (--f->depth == f->rec_base) {
			const char *view = frame_view(f, p + 1);

			if (view != NULL)
				return frame_end(f, view, (size_t)(p + 1 - view));
			frame_flush(f, p + 1);
			return frame_end(f, NULL, 0);
		}
	}
	return 0;
}

/* True for the bytes that may sit between list elements. */
static int frame_is_separator(unsigned char c)
{
	return c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

/* A byte inside an envelope, outside any record: starts elements, closes lists. */
static int frame_envelope(struct parser_frame *f, const char *p)
{
	unsigned char c = (unsigned char)*p;
	int at_list = f->list_depth != 0 && f->depth == f->list_depth;

	if (at_list && (c == '{' || c == '[')) {
		frame_begin(f, f->list_depth, p);
		f->depth++;
		return 0;
	}
	if (at_list && c != ']' && !frame_is_separator(c) && !f->elem_junk) {
		f->elem_junk = 1;
		if (frame_reject(f, f->line, f->offset,
				 "list element is not an object or an array") != 0)
			return LT_ERR_ABORT;
	}
	if (c == '"') {
		f->in_string = 1;
	} else if (c == '{' || c == '[') {
		f->depth++;
	} else if (c == '}' || c == ']') {
		if (at_list)
			f->list_depth = 0;
		if (--f->depth == 0)
			f->mode = FRAME_SEEK;
	}
	return 0;
}

/* A byte between records at depth 0. */
static int frame_seek(struct parser_frame *f, const char *p)
{
	unsigned char c = (unsigned char)*p;

	if (frame_is_separator(c))
		return 0;
	if (c == '{') {
		frame_begin(f, 0, p);
		f->depth = 1;
		return 0;
	}
	if (c == '[') {
		f->mode = FRAME_ENVELOPE;
		f->depth = 1;
		f->list_depth = 1;
		f->elem_junk = 0;
		return 0;
	}
	if (f->offset == 0 && c == 0xef)
		return frame_bom(f);
	return frame_garbage(f, c);
}

/* Skips string content quickly; returns the closing quote, a newline, or end. */
static const char *frame_scan_string(struct parser_frame *f, const char *p, const char *end)
{
	for (; p < end; p++) {
		unsigned char c = (unsigned char)*p;

		if (f->escape) {
			f->escape = 0;
		} else if (c == '\\') {
			f->escape = 1;
		} else if (c == '"') {
			f->in_string = 0;
			return p;
		} else if (c == '\n' || c == 0) {
			return p;
		}
	}
	return p;
}

/* Handles one byte that is not inside a string. */
static int frame_byte(struct parser_frame *f, const char *p)
{
	assert(frame_ok(f));
	switch (f->mode) {
	case FRAME_SEEK:
		return frame_seek(f, p);
	case FRAME_GARBAGE:
		if (*p == '\n')
			f->mode = FRAME_SEEK;
		return 0;
	case FRAME_ENVELOPE:
		return frame_envelope(f, p);
	case FRAME_RECORD:
	case FRAME_OVERSIZE:
		return frame_structure(f, p);
	case FRAME_BOM:
		return frame_bom_byte(f, (unsigned char)*p);
	case FRAME_ZEROS:
		break; /* frame_zeros_end has moved on before any byte gets here */
	}
	return 0;
}

/* A zero byte: counts the run it starts, and decides at its end (frame_zeros_end). */
static void frame_zeros_begin(struct parser_frame *f)
{
	f->zero_from = f->mode;
	f->zero_offset = f->offset;
	f->zeros = 0;
	f->mode = FRAME_ZEROS;
}

/* A few zero bytes: what any other bad byte would have been where they were. */
static int frame_zeros_short(struct parser_frame *f)
{
	static const char zero = 0;

	f->mode = f->zero_from;
	switch (f->zero_from) {
	case FRAME_RECORD: /* bytes of the record: its decoder rejects them */
		if (f->rec.len + f->zeros > f->max_record) {
			f->mode = FRAME_OVERSIZE;
			lt_buf_reset(&f->rec);
		} else {
			for (uint64_t i = 0; i < f->zeros; i++)
				lt_buf_putc(&f->rec, 0);
		}
		return 0;
	case FRAME_SEEK:
		f->mode = FRAME_GARBAGE;
		return frame_reject(f, f->line, f->zero_offset,
				    "not a JSON object: line starts with byte 0x00");
	case FRAME_ENVELOPE:
		return frame_envelope(f, &zero);
	case FRAME_BOM:
		return frame_bom_byte(f, 0);
	default:
		return 0;
	}
}

/*
 * The end of a run of zero bytes.  A long run is a block the file system
 * zeroed in a crash, with the writer going on after it: whatever was open
 * is cut off there, and the next record may follow on the same line.
 */
static int frame_zeros_end(struct parser_frame *f)
{
	char reason[128];
	uint64_t line = f->line, offset = f->zero_offset;
	int rc;

	if (f->zeros < PARSER_ZERO_BLOCK)
		return frame_zeros_short(f);
	if (f->zero_from == FRAME_RECORD || f->zero_from == FRAME_OVERSIZE) {
		snprintf(reason, sizeof reason,
			 "record cut off by %llu zero bytes (a block zeroed by a crash?)",
			 (unsigned long long)f->zeros);
		line = f->rec_line;
		offset = f->rec_offset;
	} else {
		snprintf(reason, sizeof reason, "%s %llu zero bytes (a block zeroed by a crash?)",
			 f->zero_from == FRAME_ENVELOPE ? "list cut off by" : "skipped",
			 (unsigned long long)f->zeros);
	}
	rc = frame_reject(f, line, offset, reason);
	frame_restart(f);
	return rc;
}

/* Two lines of one length or more, the record still open: a '{' now may be a paste's wrap. */
static int frame_wrap_watch(const struct parser_frame *f)
{
	return f->same_len >= 2 && f->first_len >= FRAME_WRAP_MIN;
}

/*
 * A '{' in column 0 while something is open means that something was cut
 * off; except between the elements of a list, where it starts the next one
 * (arrays printed with their elements unindented).
 */
static int frame_is_cut(struct parser_frame *f, unsigned char c)
{
	if (f->mode == FRAME_ENVELOPE && f->list_depth != 0 && f->depth == f->list_depth)
		return 0;
	/* two lines of one length or more, the record still open: a paste's fixed-width wrap, and
	 * the '{' goes on with it (a pretty-printed record's lines are not all alike) */
	if (c == '{' && f->mode == FRAME_RECORD && frame_wrap_watch(f)) {
		f->wrapped = 1;
		return 0;
	}
	return f->at_line_start && c == '{' && f->mode != FRAME_SEEK && f->mode != FRAME_GARBAGE &&
	       f->mode != FRAME_BOM;
}

/* Handles the string content starting at p; returns where to go on. */
static const char *frame_string(struct parser_frame *f, const char *p, const char *end)
{
	const char *q = frame_scan_string(f, p, end);

	f->offset += (uint64_t)(q - p);
	if (q < end && *q == '\n' && f->mode == FRAME_RECORD)
		f->wrapped = 1;
	if (q < end && *q == '"' && frame_at_top_keys(f))
		f->key_is_list = frame_key_is_list(f, q);
	return q;
}

/* Bytes that end a run of string content: frame_fast looks at these only. */
static const unsigned char frame_string_stop[256] = {
    ['"'] = 1,
    ['\\'] = 1,
    ['\n'] = 1,
    [0] = 1,
};

/* Eight bytes at a time (SWAR): each byte of x that is zero sets the high bit of its byte in
 * the result; the lowest bit set is exact (a borrow only marks bytes above a zero byte). */
#define FRAME_ONES  0x0101010101010101ull
#define FRAME_HIGHS 0x8080808080808080ull

static uint64_t frame_zero_bytes(uint64_t x)
{
	return (x - FRAME_ONES) & ~x & FRAME_HIGHS;
}

/*
 * The first byte of p[0..end) that ends a run of string content (frame_string_stop), or end.
 * Eight bytes a step on a little-endian machine: an audit record's strings are about half its
 * bytes, and the byte-wise loop cost five instructions a byte.
 */
static const char *frame_skip_string(const char *p, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (end - p >= 8) {
		uint64_t x, m;

		memcpy(&x, p, 8);
		m = frame_zero_bytes(x ^ ('"' * FRAME_ONES)) |
		    frame_zero_bytes(x ^ ('\\' * FRAME_ONES)) |
		    frame_zero_bytes(x ^ ('\n' * FRAME_ONES)) | frame_zero_bytes(x);
		if (m != 0)
			return p + (__builtin_ctzll(m) >> 3);
		p += 8;
	}
#endif
	while (p < end && !frame_string_stop[(unsigned char)*p])
		p++;
	return p;
}

/* Bytes outside strings inside a record that frame_fast looks at (no ':': see frame_fast_ok). */
static const unsigned char frame_struct_stop[256] = {
    ['"'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1, ['\n'] = 1, [0] = 1,
};

/* True when a key of n bytes may name the records' list (then frame_key_is_list decides). */
static int frame_may_be_list_key(uint64_t n)
{
	for (size_t i = 0; i < sizeof frame_list_keys / sizeof *frame_list_keys; i++)
		if (strlen(frame_list_keys[i]) == n)
			return 1;
	return 0;
}

/*
 * Whether frame_fast may run: inside a record, no escape pending, not at a
 * line start (frame_is_cut), no list key just read (frame_watch_key) and no
 * wrap being watched for (a '{' anywhere would be one).
 */
static int frame_fast_ok(const struct parser_frame *f)
{
	return (f->mode == FRAME_RECORD || f->mode == FRAME_OVERSIZE) && !f->escape &&
	       !f->at_line_start && !f->key_is_list && !f->after_list_key && !frame_wrap_watch(f);
}

/*
 * The inside of a record in one loop: string content, escapes, nesting and the
 * top-level keys' starts, which is all that happens there between two lines.
 * It stops, leaving the byte to the state machine, at a newline, a zero byte,
 * the bracket that closes the record, and the closing quote of a top-level
 * string as long as a list key's; what it does is what the byte-wise path
 * (frame_byte, frame_string) would have done.
 */
static const char *frame_fast(struct parser_frame *f, const char *p, const char *end)
{
	const char *start = p;
	int top = f->mode == FRAME_RECORD && f->rec_base == 0;

	if (!frame_fast_ok(f))
		return p;
	while (p < end) {
		if (f->in_string) {
			p = frame_skip_string(p, end);
			if (p == end)
				break;
			if (*p == '\\') {
				if (end - p < 2) {
					f->escape = 1;
					p = end;
					break;
				}
				p += 2;
				continue;
			}
			if (*p != '"' ||
			    (top && f->depth == 1 &&
			     frame_may_be_list_key(f->offset + (uint64_t)(p - start) - f->key_at)))
				break;
			f->in_string = 0;
			p++;
			continue;
		}
		while (p < end && !frame_struct_stop[(unsigned char)*p])
			p++;
		if (p == end)
			break;
		if (*p == '"') {
			f->in_string = 1;
			if (top && f->depth == 1)
				f->key_at = f->offset + (uint64_t)(p - start) + 1;
		} else if (*p == '{' || *p == '[') {
			f->depth++;
		} else if ((*p == '}' || *p == ']') && f->depth - 1 != f->rec_base) {
			f->depth--;
		} else {
			break; /* a newline, a zero, or the record's end */
		}
		p++;
	}
	f->offset += (uint64_t)(p - start);
	if (f->mode != FRAME_RECORD)
		f->keep = p;
	return p;
}

int parser_frame_feed(struct parser_frame *f, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int rc = 0;

	assert(buf != NULL || len == 0);
	assert(frame_ok(f) && f->keep == NULL);
	f->keep = buf;
	f->feed = buf;
	f->feed_at = f->offset;
	while (p < end && rc == 0) {
		if ((p = frame_fast(f, p, end)) == end)
			break;
		if (*p == 0) {
			frame_flush(f, p);
			if (f->mode != FRAME_ZEROS)
				frame_zeros_begin(f);
			f->zeros++;
			f->at_line_start = 0;
			f->offset++;
			f->keep = ++p;
			continue;
		}
		if (f->mode == FRAME_ZEROS && (rc = frame_zeros_end(f)) != 0)
			break;
		if (frame_is_cut(f, (unsigned char)*p)) {
			frame_flush(f, p);
			if ((rc = frame_cut(f)) != 0)
				break;
		}
		f->at_line_start = 0;
		if (f->in_string) {
			p = frame_string(f, p, end);
			if (p == end)
				break;
			if (*p == 0)
				continue; /* the string was cut off: the top of the loop says so */
		} else {
			rc = frame_byte(f, p);
		}
		if (*p == '\n') {
			frame_line_ended(f);
			f->line++;
			f->at_line_start = 1;
		}
		f->offset++;
		p++;
		if (f->mode != FRAME_RECORD)
			f->keep = p;
	}
	frame_flush(f, p);
	f->keep = NULL;
	f->feed = NULL;
	assert(rc != 0 || frame_ok(f));
	return rc;
}

int parser_frame_finish(struct parser_frame *f)
{
	int rc = 0;

	assert(frame_ok(f));
	if (f->mode == FRAME_ZEROS && (rc = frame_zeros_end(f)) != 0)
		return rc;
	if (frame_is_broken(f))
		rc = f->ops->record(f->rec.ptr, f->rec.len, f->rec_line, f->rec_offset, f->ctx);
	else if (f->mode == FRAME_RECORD || f->mode == FRAME_OVERSIZE)
		rc = frame_reject(f, f->rec_line, f->rec_offset,
				  "record cut off at end of input (truncated)");
	else if (f->mode == FRAME_ENVELOPE)
		rc =
		    frame_reject(f, f->line, f->offset, "list cut off at end of input (truncated)");
	frame_restart(f);
	return rc;
}
