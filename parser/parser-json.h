/*
 * parser-json.h - what the yajl decoders share (parser-audit.c, parser-journal.c,
 * parser-jsonlog.c, parser-cloudwatch.c, parser-envelope.c, parser-aks.c, parser-gke.c,
 * parser-results.c, parser-results-rest.c, parser-logwrap.c) and the JSON writer
 * (parser-json-write.c, the generator behind lt_json_writer); only they include it, so
 * yajl stays behind them.
 */
#ifndef PARSER_JSON_H
#define PARSER_JSON_H

#include "parser-int.h"

#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_version.h>

/*
 * Runs yajl's callback parser over one whole record with callbacks cb and
 * ctx.  Bytes that are not UTF-8 are kept (and escaped on display), not
 * refused.  While it runs, *h (when h is not NULL) is the parser, for
 * callbacks that need yajl_get_bytes_consumed; it is NULL again after.
 * Returns 0, or LT_ERR_FORMAT with a one-line reason in reason[size] that
 * starts with what ("invalid JSON"); with reason NULL no reason is made
 * (a probe that stops yajl itself, or only asks whether it parses: yajl's
 * error text is not rendered for nothing).
 */
int parser_json_run(const yajl_callbacks *cb, void *ctx, yajl_handle *h, const char *what,
		    const char *json, size_t len, char *reason, size_t size);

/*
 * One piece of a record given to yajl in parts: its text, and the offset in the record it
 * stands for (a part may stand in for the record's bytes there, as a string for a string).
 */
struct parser_json_part {
	const char *text;
	size_t len;
	size_t at;
};

/*
 * As parser_json_run, over the n parts in order as one text (yajl's lexer carries a token
 * across parts): while part i runs, *base (when not NULL) is its at, so a callback finds its
 * place in the record at *base + yajl_get_bytes_consumed.  Makes no reason: a caller whose
 * parts fail runs the whole record through parser_json_run for yajl's own words.
 */
int parser_json_run_parts(const yajl_callbacks *cb, void *ctx, yajl_handle *h,
			  const struct parser_json_part *parts, size_t n, size_t *base);

#endif
