/* parser-int.h - private interfaces between the parser's files. */
#ifndef LT_PARSER_INT_H
#define LT_PARSER_INT_H

#include "lt_parser.h"

/* Largest record we buffer; audit request bodies go up to 1.5 MiB, objects a few MiB. */
#define LT_MAX_RECORD (8u * 1024 * 1024)

/* ---- framer: bytes -> JSON records ------------------------------------ */

struct lt_frame_ops {
	/* A complete top-level record (or a list element); text is NUL-terminated. */
	int (*record)(const char *text, size_t len, uint64_t line, uint64_t offset, void *ctx);
	/* Something that is not a usable record, with a one-line reason. */
	int (*reject)(uint64_t line, uint64_t offset, const char *reason, void *ctx);
};

struct lt_frame;

/* A framer delivering to ops; max_record caps what is buffered (0: LT_MAX_RECORD). */
struct lt_frame *lt_frame_new(const struct lt_frame_ops *ops, void *ctx, size_t max_record);
void lt_frame_free(struct lt_frame *f);

/* Feeds the next len bytes; returns 0 or the first non-zero callback result. */
int lt_frame_feed(struct lt_frame *f, const char *buf, size_t len);

/* Ends the stream: a record still open is rejected as cut off. */
int lt_frame_finish(struct lt_frame *f);

/* Lines seen so far (1-based line of the next byte). */
uint64_t lt_frame_line(const struct lt_frame *f);

/* ---- audit event decoder: one JSON record -> struct lt_audit_event ---- */

struct lt_audit_decoder;

struct lt_audit_decoder *lt_audit_decoder_new(void);
void lt_audit_decoder_free(struct lt_audit_decoder *d);

/*
 * Decodes one record.  On success fills *out, whose strings point into the
 * decoder and stay valid until the next call.  On failure returns
 * LT_ERR_FORMAT with a one-line reason in reason[size].
 */
int lt_audit_decode(struct lt_audit_decoder *d, struct lt_audit_event *out, const char *json,
		    size_t len, char *reason, size_t size);

#endif
