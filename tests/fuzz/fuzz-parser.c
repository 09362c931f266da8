/*
 * fuzz-parser.c - the JSON record framer, the audit, CloudWatch and
 * journal/docker record decoders, the CSV reader (Logs Insights, Athena, result
 * tables and their rows), the Log Analytics query API reader and the text
 * log reader (journal, klog, CRI, CloudWatch text) on hostile bytes.
 *
 * With -DLT_FUZZ=ON (clang) this is a libFuzzer target; otherwise
 * fuzz-common.c's main() replays the files named on the command line (ctest
 * runs it over its corpus, the real corpus and the malformed samples).  The first byte of an input
 * chooses the chunk size, since the framer keeps state across chunks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "parser-int.h"

struct fuzz_count {
	struct parser_audit_decoder *dec;
	struct parser_cw_decoder *cw;
	struct parser_journal_decoder *journal;
	size_t records, rejects;
};

/* Every framed record is also tried as a CloudWatch record, and its message as an Event. */
static void fuzz_cloudwatch(struct fuzz_count *c, const char *text, size_t len)
{
	enum parser_cw_shape shape = parser_cw_shape_of(text, len);
	struct parser_cw_record r;
	struct lt_audit_event ev;
	char reason[256];

	if (parser_cw_decode(c->cw, &r, shape == PARSER_CW_NONE ? PARSER_CW_CONSOLE_ROW : shape,
			     text, len, reason, sizeof reason) == 0 &&
	    r.message.ptr[r.message.len] == '\0')
		parser_audit_decode(c->dec, &ev, r.message.ptr, r.message.len, reason,
				    sizeof reason);
}

static int fuzz_csv_record(const struct parser_cw_record *rec, uint64_t line, uint64_t offset,
			   void *ctx)
{
	struct fuzz_count *c = ctx;
	struct lt_buf b;

	(void)line;
	(void)offset;
	lt_buf_init(&b);
	lt_sanitize(&b, rec->message.ptr, rec->message.len);
	lt_buf_release(&b);
	c->records++;
	return 0;
}

/* Every framed record as a --logging-format=json line too. */
static void fuzz_jsonlog(const char *text, size_t len)
{
	struct parser_jsonlog jl;
	struct lt_buf arena, pairs;

	lt_buf_init(&arena);
	lt_buf_init(&pairs);
	if (parser_jsonlog_probe(text, len))
		parser_jsonlog_parse(&jl, &arena, &pairs, text, len);
	lt_buf_release(&arena);
	lt_buf_release(&pairs);
}

static int fuzz_record(const char *text, size_t len, uint64_t line, uint64_t offset, void *ctx)
{
	struct fuzz_count *c = ctx;
	struct lt_audit_event ev;
	char reason[256];
	struct lt_buf b;

	struct lt_log_line ln;
	struct lt_str msg;
	int partial;

	(void)line;
	(void)offset;
	fuzz_cloudwatch(c, text, len);
	fuzz_jsonlog(text, len);
	memset(&ln, 0, sizeof ln);
	parser_journal_decode(c->journal, &ln, &msg, &partial, text, len, reason, sizeof reason);
	if (parser_audit_decode(c->dec, &ev, text, len, reason, sizeof reason) == 0) {
		/* everything a terminal could be shown goes through the sanitizer */
		lt_buf_init(&b);
		lt_sanitize(&b, ev.user_agent.ptr ? ev.user_agent.ptr : "", ev.user_agent.len);
		lt_sanitize(&b, ev.message.ptr ? ev.message.ptr : "", ev.message.len);
		lt_buf_release(&b);
		c->records++;
	} else {
		c->rejects++;
	}
	return 0;
}

static int fuzz_reject(uint64_t line, uint64_t offset, const char *reason, void *ctx)
{
	struct fuzz_count *c = ctx;

	(void)line;
	(void)offset;
	(void)reason;
	c->rejects++;
	return 0;
}

static int fuzz_log(const struct lt_log_line *ln, const struct lt_where *at, void *ctx)
{
	struct fuzz_count *c = ctx;
	struct lt_buf b;

	(void)at;
	lt_buf_init(&b);
	lt_sanitize(&b, ln->raw.ptr ? ln->raw.ptr : "", ln->raw.len);
	lt_sanitize(&b, ln->message.ptr ? ln->message.ptr : "", ln->message.len);
	lt_buf_release(&b);
	c->records++;
	return 0;
}

static int fuzz_log_reject(const struct lt_where *at, const char *reason, void *ctx)
{
	(void)at;
	(void)reason;
	((struct fuzz_count *)ctx)->rejects++;
	return 0;
}

static int fuzz_route(const char *json, size_t len, const struct lt_where *at, void *ctx)
{
	struct fuzz_count *c = ctx;
	struct lt_audit_event ev;
	char reason[256];

	(void)at;
	parser_audit_decode(c->dec, &ev, json, len, reason, sizeof reason);
	return 0;
}

/* The same bytes as a text log, in the same chunks. */
static void fuzz_text(struct fuzz_count *c, const uint8_t *data, size_t size, size_t chunk)
{
	static const struct lt_sink sink = {
	    .log = fuzz_log, .reject = fuzz_log_reject, .year = 2024};
	struct parser_textlog *t = parser_textlog_new(&sink, c, NULL, fuzz_route, c);

	parser_text_sniff((const char *)data, size);
	for (size_t i = 0; i < size; i += chunk)
		parser_textlog_feed(t, (const char *)data + i, size - i < chunk ? size - i : chunk);
	parser_textlog_finish(t);
	parser_textlog_free(t);
}

/* A result table's row (Log Analytics, BigQuery) decoded as ingest would. */
static int fuzz_csv_row(enum parser_res_kind kind, const struct parser_res_cell *cells, size_t n,
			uint64_t line, uint64_t offset, void *ctx)
{
	struct parser_res_decoder *d = parser_res_new();
	struct parser_env_record rec;
	char reason[256];

	(void)line;
	(void)offset;
	if (parser_res_decode_cells(d, kind, cells, n, &rec, reason, sizeof reason) == 0)
		((struct fuzz_count *)ctx)->records++;
	parser_res_free(d);
	return 0;
}

/* The same bytes as a CSV export (Logs Insights, Athena, a result table), in the same chunks. */
static void fuzz_csv(struct fuzz_count *c, const uint8_t *data, size_t size, size_t chunk)
{
	static const struct parser_csv_ops ops = {
	    .record = fuzz_csv_record, .reject = fuzz_reject, .row = fuzz_csv_row};
	struct parser_csv *csv = parser_csv_new(&ops, c);

	parser_csv_sniff((const char *)data, size);
	for (size_t i = 0; i < size; i += chunk)
		parser_csv_feed(csv, (const char *)data + i, size - i < chunk ? size - i : chunk);
	parser_csv_finish(csv);
	parser_csv_free(csv);
}

/* The same bytes as the Log Analytics query API's response, in the same chunks. */
static void fuzz_rest(struct fuzz_count *c, const uint8_t *data, size_t size, size_t chunk)
{
	static const struct parser_csv_ops ops = {
	    .record = fuzz_csv_record, .reject = fuzz_reject, .row = fuzz_csv_row};
	struct parser_rest *r = parser_rest_new(&ops, c);

	parser_rest_sniff((const char *)data, size);
	for (size_t i = 0; i < size; i += chunk)
		parser_rest_feed(r, (const char *)data + i, size - i < chunk ? size - i : chunk);
	parser_rest_finish(r);
	parser_rest_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct parser_frame_ops ops = {fuzz_record, fuzz_reject};
	struct fuzz_count c = {parser_audit_decoder_new(), parser_cw_decoder_new(),
			       parser_journal_decoder_new(), 0, 0};
	struct parser_frame *f = parser_frame_new(&ops, &c, 4096);
	size_t chunk = size > 0 ? (size_t)data[0] % 64 + 1 : 1;
	int64_t us;

	for (size_t i = 0; i < size; i += chunk)
		parser_frame_feed(f, (const char *)data + i, size - i < chunk ? size - i : chunk);
	parser_frame_finish(f);
	parser_frame_free(f);
	fuzz_csv(&c, data, size, chunk);
	fuzz_rest(&c, data, size, chunk);
	fuzz_text(&c, data, size, chunk);
	parser_journal_decoder_free(c.journal);
	parser_cw_decoder_free(c.cw);
	parser_audit_decoder_free(c.dec);
	lt_time_parse(&us, (const char *)data, size < 64 ? size : 64);
	return 0;
}
