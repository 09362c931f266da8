/* parser-run.c - sniffing an input's format and driving framer and decoder over it. */
#define _GNU_SOURCE /* memmem */
#include "parser-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_CHUNK (256 * 1024)

const char *lt_format_name(enum lt_format f)
{
	switch (f) {
	case LT_FMT_JSON:
		return "json";
	case LT_FMT_TEXT:
		return "text";
	case LT_FMT_CSV:
		return "csv";
	case LT_FMT_BINARY:
		return "binary";
	case LT_FMT_EMPTY:
		return "empty";
	case LT_FMT_UNKNOWN:
		break;
	}
	return "unknown";
}

/* Zero bytes in a run this long are a zeroed block, not binary content. */
#define SNIFF_ZERO_BLOCK 512

/*
 * True when the bytes look like text: few control bytes.  A log that went on
 * after a crash often holds a zeroed block (the parsers skip it), so long
 * runs of zero bytes do not count; lone zeros, as in binary files, do.
 */
static int sniff_is_text(const unsigned char *p, size_t len)
{
	size_t odd = 0, blocks = 0;

	for (size_t i = 0; i < len; i++) {
		size_t run = 0;

		while (i + run < len && p[i + run] == 0)
			run++;
		if (run >= SNIFF_ZERO_BLOCK) {
			blocks += run;
		} else if (run > 0) {
			odd += run;
		} else if (p[i] < 0x20 && p[i] != '\n' && p[i] != '\r' && p[i] != '\t' &&
			   p[i] != '\f') {
			odd++;
		}
		i += run > 0 ? run - 1 : 0;
	}
	return odd * 20 < len - blocks;
}

enum lt_format lt_sniff(const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0, zeros = 0;

	if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		i = 3;
	/* zero bytes before the first record are a zeroed block, like the ones after it */
	for (;
	     i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r' || p[i] == 0);
	     i++)
		zeros += p[i] == 0;
	if (i == len)
		return zeros > 0 ? LT_FMT_BINARY : LT_FMT_EMPTY;
	/* the first significant byte decides; damage further on is the framer's to report */
	if (p[i] == '{' || p[i] == '[')
		return LT_FMT_JSON;
	if (!sniff_is_text(p, len))
		return LT_FMT_BINARY;
	if (parser_csv_sniff(buf + i, len - i))
		return LT_FMT_CSV;
	if (parser_text_sniff(buf + i, len - i))
		return LT_FMT_TEXT;
	return LT_FMT_UNKNOWN;
}

/* What a JSON record turned out to be; the first one decides for the file. */
enum run_mode { RUN_UNDECIDED, RUN_AUDIT, RUN_JOURNAL, RUN_CLOUDWATCH, RUN_JSONLOG, RUN_ENVELOPE };

/* Cloud envelopes, recognised by their first record before any other JSON shape. */
static const struct parser_envelope *const run_envelopes[] = {
    &parser_aks_envelope,
    &parser_res_envelope, /* before GKE: a BigQuery row may have logName and textPayload */
    &parser_gke_envelope,
};

/* What the framer's callbacks need to reach the caller's sink. */
struct run_ctx {
	struct lt_input *in;
	const struct lt_sink *sink;
	void *sink_ctx;
	struct parser_audit_decoder *dec;
	struct parser_journal_decoder *jdec;
	struct parser_cw_decoder *cwdec;
	struct parser_textlog *text;	   /* journal and CloudWatch messages that are log lines */
	const struct parser_envelope *env; /* with RUN_ENVELOPE */
	void *envdec;
	struct parser_res_decoder *resdec; /* rows of a result table in CSV */
	enum run_mode mode;
	enum parser_cw_shape shape;
	uint64_t index;		    /* records seen */
	struct parser_frame *frame; /* the framer, when it reads the input */
	char wrap_note[64];	    /* a hard-wrapped record's provenance */
};

static struct lt_where run_where(struct run_ctx *r, uint64_t line, uint64_t offset)
{
	struct lt_where at = {
	    lt_input_path(r->in), line, offset, r->index, {NULL, 0}, {NULL, 0}, {NULL, 0}};

	return at;
}

/* An audit Event, on its own or inside a CloudWatch record. */
static int run_audit(const char *json, size_t len, const struct lt_where *at, void *ctx)
{
	struct run_ctx *r = ctx;
	struct lt_audit_event ev;
	char reason[256];

	if (parser_audit_decode(r->dec, &ev, json, len, reason, sizeof reason) != 0)
		return r->sink->reject(at, reason, r->sink_ctx);
	return r->sink->audit(&ev, at, r->sink_ctx);
}

static int run_no_logs(struct run_ctx *r, const struct lt_where *at)
{
	return r->sink->reject(at, "a log line, and this ingest does not store log lines",
			       r->sink_ctx);
}

/*
 * A journal entry from another boot than its host's previous one: the boot separator that
 * journalctl's text formats print there ("-- Boot ID --"), as a line of its own at the entry's
 * time and host, where the classifier makes it a node-boot (parser-text-line.c does the same).
 */
static int run_journal_boot(struct run_ctx *r, const struct lt_log_line *next, struct lt_str boot,
			    const struct lt_where *at)
{
	struct lt_log_line b;
	char text[64];
	int n = snprintf(text, sizeof text, "-- Boot %.*s --", (int)boot.len, boot.ptr);

	memset(&b, 0, sizeof b);
	b.raw = (struct lt_str){text, (size_t)n};
	b.ts_us = next->ts_us;
	b.host = next->host;
	b.pid = -1;
	return parser_textlog_message(r->text, &b, text, (size_t)n, at);
}

static int run_journal(struct run_ctx *r, const char *text, size_t len, struct lt_where *at)
{
	struct lt_log_line ln;
	struct lt_str msg, boot;
	char reason[256];
	int partial, rc;

	memset(&ln, 0, sizeof ln);
	ln.raw = (struct lt_str){text, len};
	if (parser_journal_decode(r->jdec, &ln, &msg, &partial, text, len, reason, sizeof reason) !=
	    0)
		return r->sink->reject(at, reason, r->sink_ctx);
	if (r->sink->log == NULL)
		return run_no_logs(r, at);
	if (parser_journal_rebooted(r->jdec, &boot) &&
	    (rc = run_journal_boot(r, &ln, boot, at)) != 0)
		return rc;
	return parser_textlog_container(r->text, &ln, msg.ptr, msg.len, partial, at);
}

/* A line of Kubernetes' JSON log format on its own (kubectl logs of a component). */
static int run_jsonlog(struct run_ctx *r, const char *text, size_t len, struct lt_where *at)
{
	struct lt_log_line ln;

	if (r->sink->log == NULL)
		return run_no_logs(r, at);
	memset(&ln, 0, sizeof ln);
	ln.raw = (struct lt_str){text, len};
	ln.pid = -1;
	return parser_textlog_message(r->text, &ln, text, len, at);
}

/* A CloudWatch record: its message is an audit Event or a log line; the stream says whose. */
static int run_cloudwatch(struct run_ctx *r, const struct parser_cw_record *rec,
			  struct lt_where *at)
{
	struct lt_log_line ln;
	const char *m = rec->message.ptr ? rec->message.ptr : "", *c;
	size_t n = rec->message.len;

	at->ext_id = rec->ext_id;
	at->stream = rec->stream;
	at->cluster = lt_cluster_from_log_group(rec->group);
	while (n > 0 && (*m == ' ' || *m == '\t'))
		m++, n--;
	if (n > 0 && *m == '{' && parser_audit_probe(m, n))
		return run_audit(m, n, at, r);
	if (r->sink->log == NULL)
		return run_no_logs(r, at);
	memset(&ln, 0, sizeof ln);
	ln.raw = (struct lt_str){m, n};
	ln.pid = -1;
	ln.ts_us = rec->ts_us;
	if ((c = parser_stream_component(rec->stream)) != NULL)
		ln.component = (struct lt_str){c, strlen(c)};
	return parser_textlog_message(r->text, &ln, m, n, at);
}

/* A decoded envelope record or result row: the audit Event or the log line it holds. */
static int run_env_record(struct run_ctx *r, const struct parser_env_record *rec_,
			  struct lt_where *at)
{
	const struct parser_env_record rec = *rec_;
	struct lt_audit_event ev;
	struct lt_log_line ln;
	char reason[256];

	at->ext_id = rec.ext_id;
	at->stream = rec.stream;
	at->cluster = rec.cluster;
	if (rec.kind == PARSER_ENV_AUDIT) {
		if (parser_audit_decode(r->dec, &ev, rec.event.ptr, rec.event.len, reason,
					sizeof reason) != 0)
			return r->sink->reject(at, reason, r->sink_ctx);
		if (rec.raw.ptr != NULL)
			ev.raw = rec.raw;
		return r->sink->audit(&ev, at, r->sink_ctx);
	}
	if (r->sink->log == NULL)
		return run_no_logs(r, at);
	memset(&ln, 0, sizeof ln);
	ln.raw = rec.raw.ptr != NULL ? rec.raw : rec.message;
	ln.ts_us = rec.ts_us;
	ln.host = rec.host;
	ln.component = rec.component;
	ln.ident = rec.ident;
	ln.pid = rec.pid;
	return parser_textlog_message(r->text, &ln, rec.message.ptr, rec.message.len, at);
}

/* A cloud envelope's record: the audit Event or the log line it holds, and where it came from. */
static int run_envelope(struct run_ctx *r, const char *text, size_t len, struct lt_where *at)
{
	struct parser_env_record rec;
	char reason[256];

	if (r->env->decode(r->envdec, &rec, text, len, reason, sizeof reason) != 0)
		return r->sink->reject(at, reason, r->sink_ctx);
	return run_env_record(r, &rec, at);
}

/* The first record decides what every record of the file is. */
static void run_decide(struct run_ctx *r, const char *text, size_t len)
{
	for (size_t i = 0; i < sizeof run_envelopes / sizeof *run_envelopes; i++) {
		if (run_envelopes[i]->probe(text, len)) {
			r->mode = RUN_ENVELOPE;
			r->env = run_envelopes[i];
			r->envdec = r->env->decoder_new();
			return;
		}
	}
	if (parser_journal_json_probe(text, len)) {
		r->mode = RUN_JOURNAL;
		r->jdec = parser_journal_decoder_new();
	} else if ((r->shape = parser_cw_shape_of(text, len)) != PARSER_CW_NONE) {
		r->mode = RUN_CLOUDWATCH;
		r->cwdec = parser_cw_decoder_new();
	} else if (parser_jsonlog_probe(text, len)) {
		r->mode = RUN_JSONLOG;
	} else {
		r->mode = RUN_AUDIT;
	}
}

static int run_record(const char *text, size_t len, uint64_t line, uint64_t offset, void *ctx)
{
	struct run_ctx *r = ctx;
	struct lt_where at = run_where(r, line, offset);
	struct parser_cw_record rec;
	char reason[256];

	r->index++;
	if (offset < r->sink->resume_offset)
		return 0;
	if (r->frame != NULL && parser_frame_joined(r->frame) > 1) {
		/* a record a paste hard-wrapped: its lines joined, and said where it came from */
		snprintf(r->wrap_note, sizeof r->wrap_note, "hard-wrapped: lines %llu-%llu joined",
			 (unsigned long long)line,
			 (unsigned long long)(line + parser_frame_joined(r->frame) - 1));
		at.ext_id = (struct lt_str){r->wrap_note, strlen(r->wrap_note)};
	}
	if (r->mode == RUN_UNDECIDED)
		run_decide(r, text, len);
	if (r->mode == RUN_JOURNAL)
		return run_journal(r, text, len, &at);
	if (r->mode == RUN_JSONLOG)
		return run_jsonlog(r, text, len, &at);
	if (r->mode == RUN_AUDIT)
		return run_audit(text, len, &at, r);
	if (r->mode == RUN_ENVELOPE)
		return run_envelope(r, text, len, &at);
	if (parser_cw_decode(r->cwdec, &rec, parser_cw_shape_of(text, len), text, len, reason,
			     sizeof reason) != 0)
		return r->sink->reject(&at, reason, r->sink_ctx);
	return run_cloudwatch(r, &rec, &at);
}

static int run_reject(uint64_t line, uint64_t offset, const char *reason, void *ctx)
{
	struct run_ctx *r = ctx;
	struct lt_where at = run_where(r, line, offset);

	r->index++;
	if (offset < r->sink->resume_offset)
		return 0;
	return r->sink->reject(&at, reason, r->sink_ctx);
}

static const struct parser_frame_ops run_ops = {run_record, run_reject};

static int run_csv_record(const struct parser_cw_record *rec, uint64_t line, uint64_t offset,
			  void *ctx)
{
	struct run_ctx *r = ctx;
	struct lt_where at = run_where(r, line, offset);

	r->index++;
	if (offset < r->sink->resume_offset)
		return 0;
	return run_cloudwatch(r, rec, &at);
}

/* A row of a query engine's result table exported as CSV. */
static int run_csv_row(enum parser_res_kind kind, const struct parser_res_cell *cells, size_t n,
		       uint64_t line, uint64_t offset, void *ctx)
{
	struct run_ctx *r = ctx;
	struct lt_where at = run_where(r, line, offset);
	struct parser_env_record rec;
	char reason[256];

	r->index++;
	if (offset < r->sink->resume_offset)
		return 0;
	if (r->resdec == NULL)
		r->resdec = parser_res_new();
	if (parser_res_decode_cells(r->resdec, kind, cells, n, &rec, reason, sizeof reason) != 0)
		return r->sink->reject(&at, reason, r->sink_ctx);
	return run_env_record(r, &rec, &at);
}

static const struct parser_csv_ops run_csv_ops = {
    .record = run_csv_record,
    .row = run_csv_row,
    .reject = run_reject,
};

/* The framer, the CSV reader, the query API reader or the text reader: whichever the format needs.
 */
struct run_reader {
	struct parser_frame *frame;
	struct parser_csv *csv;
	struct parser_rest *rest;
	struct parser_textlog *text;
};

static int run_feed(struct run_reader *rd, const char *buf, size_t len)
{
	if (rd->rest)
		return parser_rest_feed(rd->rest, buf, len);
	if (rd->frame)
		return parser_frame_feed(rd->frame, buf, len);
	if (rd->csv)
		return parser_csv_feed(rd->csv, buf, len);
	return parser_textlog_feed(rd->text, buf, len);
}

static int run_finish(struct run_reader *rd)
{
	if (rd->rest)
		return parser_rest_finish(rd->rest);
	if (rd->frame)
		return parser_frame_finish(rd->frame);
	if (rd->csv)
		return parser_csv_finish(rd->csv);
	return parser_textlog_finish(rd->text);
}

/* Feeds the first chunk and every following one to the reader. */
static int run_stream(struct run_ctx *r, struct run_reader *rd, char *buf, size_t got,
		      struct lt_error *err)
{
	int rc = 0, rdc = 0;

	while (got > 0) {
		if (r->sink->mark) {
			struct lt_input_mark m;

			lt_input_mark(r->in, &m);
			r->sink->mark(&m, r->sink_ctx);
		}
		if ((rc = run_feed(rd, buf, got)) != 0)
			break;
		if (r->sink->progress)
			r->sink->progress(lt_input_consumed(r->in), lt_input_size(r->in),
					  r->sink_ctx);
		if ((rdc = lt_input_read(r->in, buf, RUN_CHUNK, &got, err)) != 0)
			break;
	}
	if (rc == 0 && (rdc == 0 || rdc == LT_ERR_TRUNCATED))
		rc = run_finish(rd);
	if (rc != 0)
		return rc;
	return rdc;
}

/* Reads at least 4 KiB (or all there is) so the sniffer sees enough; gzip may give less per call.
 */
static int run_read_head(struct lt_input *in, char *buf, size_t *got, struct lt_error *err)
{
	size_t n;
	int rc;

	*got = 0;
	do {
		rc = lt_input_read(in, buf + *got, RUN_CHUNK - *got, &n, err);
		*got += n;
	} while (rc == 0 && n > 0 && *got < 4096);
	return rc;
}

/*
 * True when the input's first record is one whole line of Kubernetes' JSON log format, as
 * run_decide would take it (no cloud envelope, journal entry or CloudWatch shape first): then
 * the text reader reads the file, line by line, each line in its own format, since kubectl logs
 * of an operator mixes such lines with klog lines (client-go's leader election, reflectors).
 */
static int run_jsonlog_head(const char *buf, size_t len)
{
	const char *nl;
	size_t i = len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0, n;

	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	if ((nl = memchr(buf + i, '\n', len - i)) == NULL)
		return 0;
	n = (size_t)(nl - (buf + i));
	for (size_t k = 0; k < sizeof run_envelopes / sizeof *run_envelopes; k++)
		if (run_envelopes[k]->probe(buf + i, n))
			return 0;
	return parser_text_jsonlog_line(buf + i, n) && !parser_journal_json_probe(buf + i, n) &&
	       parser_cw_shape_of(buf + i, n) == PARSER_CW_NONE;
}

/* Reads the whole input as format fmt (JSON, CSV or text). */
static int run_format(struct run_ctx *r, enum lt_format fmt, char *buf, size_t got,
		      struct lt_error *err)
{
	struct run_reader rd = {NULL, NULL, NULL, NULL};
	int rc, frc;

	r->dec = parser_audit_decoder_new();
	r->text = parser_textlog_new(r->sink, r->sink_ctx, r->in, run_audit, r);
	if (fmt == LT_FMT_JSON && parser_rest_sniff(buf, got))
		rd.rest =
		    parser_rest_new(&run_csv_ops, r); /* rows inside a table inside the response */
	else if (fmt == LT_FMT_JSON && (r->sink->log == NULL || !run_jsonlog_head(buf, got)))
		r->frame = rd.frame = parser_frame_new(&run_ops, r, 0);
	else if (fmt == LT_FMT_CSV)
		rd.csv = parser_csv_new(&run_csv_ops, r);
	else
		rd.text = r->text;
	rc = run_stream(r, &rd, buf, got, err);
	/* a docker line whose last record never came (the file ends, or is cut off) */
	if ((rc == 0 || rc == LT_ERR_TRUNCATED) && rd.text == NULL &&
	    (frc = parser_textlog_finish(r->text)) != 0)
		rc = frc;
	parser_frame_free(rd.frame);
	parser_csv_free(rd.csv);
	parser_rest_free(rd.rest);
	parser_textlog_free(r->text);
	parser_audit_decoder_free(r->dec);
	parser_journal_decoder_free(r->jdec);
	parser_cw_decoder_free(r->cwdec);
	parser_res_free(r->resdec);
	if (r->env != NULL)
		r->env->decoder_free(r->envdec);
	return rc;
}

int lt_sniff_path(enum lt_format *out, const char *path, struct lt_error *err)
{
	struct lt_input *in;
	char *buf;
	size_t got = 0;
	int rc;

	*out = LT_FMT_UNKNOWN;
	if ((rc = lt_input_open(&in, path, err)) != 0)
		return rc;
	buf = lt_xmalloc(RUN_CHUNK);
	rc = run_read_head(in, buf, &got, err);
	if (rc == 0 || (rc == LT_ERR_TRUNCATED && got > 0))
		*out = lt_sniff(buf, got);
	if (rc == LT_ERR_TRUNCATED && got > 0)
		rc = 0;
	free(buf);
	lt_input_free(in);
	return rc;
}

/* Logs Insights' aggregate functions, as a column of a `stats` result names them. */
static const char *const run_stats_fns[] = {
    "count(",	  "count_distinct(", "sum(",	  "avg(",      "min(",	  "max(",
    "pct(",	  "stddev(",	     "bin(",	  "earliest(", "latest(", "sortsFirst(",
    "sortsLast(", "datefloor(",	     "dateceil(", NULL,
};

/* True when the quoted string opening at q[-1] == '"' is a JSON key (a ':' follows it). */
static int run_is_key(const char *q, const char *end)
{
	const char *close = memchr(q, '"', (size_t)(end - q) < 128 ? (size_t)(end - q) : 128);

	if (close == NULL)
		return 0;
	for (close++; close < end && (*close == ' ' || *close == '\t'); close++)
		;
	return close < end && *close == ':';
}

/* True when the quoted string opening at q[-1] is the value of a "field" key. */
static int run_is_field_value(const char *head, const char *q)
{
	const char *b = q - 1;

	while (b > head && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	return b - head >= 8 && b[-1] == ':' && memcmp(b - 8, "\"field\"", 7) == 0;
}

/*
 * True when the aggregate at p names a column: a JSON key (console export),
 * a {"field": ...} value (get-query-results), or a cell of a CSV header.
 */
static int run_column_at(const char *head, const char *p, const char *end)
{
	const char *nl = memchr(head, '\n', (size_t)(end - head));

	if (p > head && p[-1] == '"' && (run_is_key(p, end) || run_is_field_value(head, p)))
		return 1;
	if (nl != NULL && p > nl)
		return 0; /* a CSV header is the first line */
	return p == head || p[-1] == ',' || (p[-1] == '"' && (p - 1 == head || p[-2] == ','));
}

/*
 * True when the head is a Logs Insights `stats` result exported as JSON or
 * CSV: an aggregate column (count(*), bin(5m)), and nothing of a log record
 * (no @message, auditID, verb or __REALTIME_TIMESTAMP).  Its rows count
 * things; they are not log records.
 */
static int run_is_stats(const char *buf, size_t len)
{
	static const char *const records[] = {"@message", "\"auditID\"", "\"verb\"",
					      "__REALTIME_TIMESTAMP", NULL};
	const char *end = buf + len;
	int agg = 0;

	for (int i = 0; records[i] != NULL; i++)
		if (memmem(buf, len, records[i], strlen(records[i])) != NULL)
			return 0;
	for (int i = 0; run_stats_fns[i] != NULL && !agg; i++) {
		size_t k = strlen(run_stats_fns[i]);
		const char *p = buf;

		while (!agg && (p = memmem(p, (size_t)(end - p), run_stats_fns[i], k)) != NULL) {
			agg = run_column_at(buf, p, end);
			p += k;
		}
	}
	return agg;
}

int lt_parse_input(struct lt_input *in, const struct lt_sink *sink, void *ctx,
		   enum lt_format *format_out, struct lt_error *err)
{
	struct run_ctx r;
	char *buf = lt_xmalloc(RUN_CHUNK);
	enum lt_format fmt;
	size_t got = 0;
	int rc;

	memset(&r, 0, sizeof r);
	r.in = in;
	r.sink = sink;
	r.sink_ctx = ctx;
	/* a stream cut short inside the head still has records to give */
	rc = run_read_head(in, buf, &got, err);
	fmt = lt_sniff(buf, got);
	if (fmt == LT_FMT_TEXT && sink->log == NULL)
		fmt = LT_FMT_UNKNOWN;
	if (format_out)
		*format_out = fmt;
	if (rc == LT_ERR_TRUNCATED && got > 0)
		rc = 0;
	if (rc == 0 && fmt != LT_FMT_BINARY && fmt != LT_FMT_TEXT && run_is_stats(buf, got))
		rc = lt_error_at(err, LT_ERR_FORMAT, lt_input_path(in), 1, 0,
				 "not a log leasetrail reads (a Logs Insights stats result:"
				 " aggregate columns, no @message)");
	if (rc == 0 && (fmt == LT_FMT_UNKNOWN || fmt == LT_FMT_BINARY))
		rc = lt_error_at(err, LT_ERR_FORMAT, lt_input_path(in), 1, 0,
				 "not a log leasetrail reads (%s content)", lt_format_name(fmt));
	if (rc == 0 && fmt != LT_FMT_EMPTY)
		rc = run_format(&r, fmt, buf, got, err);
	free(buf);
	return rc;
}
