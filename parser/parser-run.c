/* parser-run.c - sniffing an input's format and driving framer and decoder over it. */
#include "parser-int.h"

#include <stdlib.h>
#include <string.h>

#define RUN_CHUNK (256 * 1024)

const char *lt_format_name(enum lt_format f)
{
	switch (f) {
	case LT_FMT_JSON:
		return "json";
	case LT_FMT_BINARY:
		return "binary";
	case LT_FMT_EMPTY:
		return "empty";
	case LT_FMT_UNKNOWN:
		break;
	}
	return "unknown";
}

/* True when the bytes look like text: no NUL, and few control bytes. */
static int sniff_is_text(const unsigned char *p, size_t len)
{
	size_t odd = 0;

	for (size_t i = 0; i < len; i++) {
		if (p[i] == 0)
			return 0;
		if (p[i] < 0x20 && p[i] != '\n' && p[i] != '\r' && p[i] != '\t' && p[i] != '\f')
			odd++;
	}
	return odd * 20 < len;
}

enum lt_format lt_sniff(const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0;

	if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		i = 3;
	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	if (i == len)
		return LT_FMT_EMPTY;
	/* the first significant byte decides; damage further on is the framer's to report */
	if (p[i] == '{' || p[i] == '[')
		return LT_FMT_JSON;
	if (!sniff_is_text(p, len))
		return LT_FMT_BINARY;
	return LT_FMT_UNKNOWN;
}

/* What the framer's callbacks need to reach the caller's sink. */
struct run_ctx {
	struct lt_input *in;
	const struct lt_sink *sink;
	void *sink_ctx;
	struct lt_audit_decoder *dec;
	uint64_t index; /* records seen */
};

static struct lt_where run_where(struct run_ctx *r, uint64_t line, uint64_t offset)
{
	struct lt_where at = {lt_input_path(r->in), line, offset, r->index};

	return at;
}

static int run_record(const char *text, size_t len, uint64_t line, uint64_t offset, void *ctx)
{
	struct run_ctx *r = ctx;
	struct lt_audit_event ev;
	struct lt_where at = run_where(r, line, offset);
	char reason[256];

	r->index++;
	if (offset < r->sink->resume_offset)
		return 0;
	if (lt_audit_decode(r->dec, &ev, text, len, reason, sizeof reason) != 0)
		return r->sink->reject(&at, reason, r->sink_ctx);
	return r->sink->audit(&ev, &at, r->sink_ctx);
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

static const struct lt_frame_ops run_ops = {run_record, run_reject};

/* Feeds the first chunk and every following one to the framer. */
static int run_json(struct run_ctx *r, char *buf, size_t got, struct lt_error *err)
{
	struct lt_frame *f = lt_frame_new(&run_ops, r, 0);
	int rc = 0, rd = 0;

	while (got > 0) {
		if ((rc = lt_frame_feed(f, buf, got)) != 0)
			break;
		if (r->sink->progress)
			r->sink->progress(lt_input_consumed(r->in), lt_input_size(r->in),
					  r->sink_ctx);
		if ((rd = lt_input_read(r->in, buf, RUN_CHUNK, &got, err)) != 0)
			break;
	}
	if (rc == 0 && (rd == 0 || rd == LT_ERR_TRUNCATED))
		rc = lt_frame_finish(f);
	lt_frame_free(f);
	if (rc != 0)
		return rc;
	return rd;
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

int lt_parse_input(struct lt_input *in, const struct lt_sink *sink, void *ctx,
		   enum lt_format *format_out, struct lt_error *err)
{
	struct run_ctx r = {in, sink, ctx, NULL, 0};
	char *buf = lt_xmalloc(RUN_CHUNK);
	enum lt_format fmt;
	size_t got = 0;
	int rc;

	/* a stream cut short inside the head still has records to give */
	rc = run_read_head(in, buf, &got, err);
	fmt = lt_sniff(buf, got);
	if (format_out)
		*format_out = fmt;
	if (rc == LT_ERR_TRUNCATED && got > 0)
		rc = 0;
	if (rc == 0 && fmt != LT_FMT_JSON && fmt != LT_FMT_EMPTY)
		rc = lt_error_at(err, LT_ERR_FORMAT, lt_input_path(in), 1, 0,
				 "%s: not a log leasetrail reads (%s content)", lt_input_path(in),
				 lt_format_name(fmt));
	if (rc == 0 && fmt == LT_FMT_JSON) {
		r.dec = lt_audit_decoder_new();
		rc = run_json(&r, buf, got, err);
		lt_audit_decoder_free(r.dec);
	}
	free(buf);
	return rc;
}
