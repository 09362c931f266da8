/*
 * fuzz-input.c - the input layer: plain files, gzip of one or more members,
 * gzip streams cut short or corrupted, and content identity (the marks and
 * lt_hash_prefixes of parser-input.c, which index-ident.c matches sources by).
 *
 * Input: byte 0 picks the shape (below) and the gzip member count, byte 1
 * the read size (and, with its high bit, repeats the payload past the 64 KiB
 * head so that the head hash is split across reads); the rest is the payload.
 * Checked, besides memory safety: gzip decodes back to the payload (a cut or
 * damaged stream to a prefix of it, with an error), a plain file to its
 * bytes; the mark at the end covers the whole file and equals the hashes
 * lt_hash_prefixes computes on its own; lt_input_ends_open tells the truth.
 */
#include "fuzz-common.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum input_shape { SHAPE_PLAIN, SHAPE_GZIP, SHAPE_MEMBERS, SHAPE_CUT, SHAPE_DAMAGED, SHAPE_N };

struct input_case {
	enum input_shape shape;
	size_t cap;	       /* bytes asked of each lt_input_read */
	struct lt_buf payload; /* what the file decodes to */
	struct lt_buf file;    /* the bytes on disk */
	size_t cut;	       /* SHAPE_CUT, SHAPE_DAMAGED: where */
};

/* The payload: the input after its two header bytes, repeated past 64 KiB on request. */
static void input_payload(struct lt_buf *out, const uint8_t *p, size_t n, uint8_t how)
{
	size_t want = LT_INPUT_HEAD + (size_t)(how & 0x7f) * 257;

	lt_buf_append(out, p, n);
	if (!(how & 0x80) || n == 0)
		return;
	while (out->len < want)
		lt_buf_append(out, p, n);
}

static void input_build(struct input_case *c, const uint8_t *data, size_t size)
{
	int members = 1 + (data[0] / SHAPE_N) % 4;

	c->shape = (enum input_shape)(data[0] % SHAPE_N);
	c->cap = 1 + (size_t)(data[1] & 0x7f) * 37;
	lt_buf_init(&c->payload);
	lt_buf_init(&c->file);
	input_payload(&c->payload, data + 2, size - 2, data[1]);
	if (c->shape == SHAPE_PLAIN) {
		lt_buf_append(&c->file, c->payload.ptr, c->payload.len);
		return;
	}
	/* one member when cut: a cut at a member's end would be a whole file of fewer members */
	fuzz_gzip(&c->file, (const uint8_t *)c->payload.ptr, c->payload.len,
		  c->shape == SHAPE_CUT ? 1 : members);
	/* a cut or a damaged byte somewhere after the magic, chosen by the payload's length */
	c->cut = c->file.len > 3 ? 2 + (size - 2) * 7919 % (c->file.len - 2) : c->file.len;
	if (c->shape == SHAPE_CUT)
		lt_buf_truncate(&c->file, c->cut);
	else if (c->shape == SHAPE_DAMAGED && c->cut < c->file.len)
		c->file.ptr[c->cut] ^= (char)(0x55 | data[1]);
}

/* The mark after the last read covers the file, and its hashes are lt_hash_prefixes's. */
static void input_check_mark(const struct lt_input_mark *m, const char *path, size_t file_len)
{
	uint64_t lens[2] = {m->len < LT_INPUT_HEAD ? m->len : LT_INPUT_HEAD, m->len};
	char hex[2][33];
	struct lt_error err = {0};

	if (m->len != file_len)
		fuzz_fail("the last mark does not cover the whole file", path);
	if (lt_hash_prefixes(hex, path, lens, 2, &err) != 0)
		fuzz_fail("lt_hash_prefixes", err.msg);
	if (strcmp(hex[1], m->hash) != 0)
		fuzz_fail("the mark's hash is not the file's", m->hash);
	if (strcmp(hex[0], m->head) != 0)
		fuzz_fail("the mark's head is not the hash of the first 64 KiB", m->head);
}

/* lt_hash_prefixes at lengths the payload picks, some past the end: "" there, else a hash. */
static void input_check_prefixes(const char *path, size_t file_len, const uint8_t *data,
				 size_t size)
{
	uint64_t lens[4];
	char hex[4][33];
	struct lt_error err = {0};

	for (size_t i = 0; i < 4; i++)
		lens[i] = (i > 0 ? lens[i - 1] : 0) + (size > 2 + i ? data[2 + i] : 0) * (i + 1);
	if (lt_hash_prefixes(hex, path, lens, 4, &err) != 0)
		fuzz_fail("lt_hash_prefixes", err.msg);
	for (size_t i = 0; i < 4; i++)
		if ((lens[i] <= file_len) != (strlen(hex[i]) == 32))
			fuzz_fail("lt_hash_prefixes past the end (or not)", hex[i]);
}

static void input_check_decoded(const struct input_case *c, const struct lt_buf *got, int rc,
				int gzip)
{
	if (c->shape == SHAPE_PLAIN && !gzip) {
		if (rc != 0 || got->len != c->file.len || memcmp(got->ptr, c->file.ptr, got->len))
			fuzz_fail("a plain file does not read back as its bytes", NULL);
		return;
	}
	if (c->shape == SHAPE_GZIP || c->shape == SHAPE_MEMBERS) {
		if (rc != 0 || got->len != c->payload.len ||
		    memcmp(got->ptr, c->payload.ptr, got->len))
			fuzz_fail("gzip members do not decode to what they hold", NULL);
		return;
	}
	if (c->shape == SHAPE_CUT && gzip &&
	    (got->len > c->payload.len || memcmp(got->ptr, c->payload.ptr, got->len) != 0))
		fuzz_fail("a cut gzip stream decodes to something else than a prefix", NULL);
	if (c->shape == SHAPE_CUT && gzip && rc != LT_ERR_TRUNCATED && c->cut < c->file.len)
		fuzz_fail("a cut gzip stream is not reported truncated", NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input_case c;
	struct lt_buf path, got;
	struct lt_input *in = NULL;
	struct lt_input_mark m;
	struct lt_error err = {0};
	char *buf;
	size_t n = 0;
	int rc;

	if (size < 2)
		return 0;
	input_build(&c, data, size);
	lt_buf_init(&path);
	lt_buf_init(&got);
	fuzz_path(&path, "input");
	fuzz_write(path.ptr, c.file.ptr, c.file.len);
	buf = lt_xmalloc(c.cap);
	if ((rc = lt_input_open(&in, path.ptr, &err)) != 0)
		fuzz_fail("lt_input_open of a scratch file", err.msg);
	if (lt_input_size(in) != c.file.len)
		fuzz_fail("lt_input_size", NULL);
	do {
		rc = lt_input_read(in, buf, c.cap, &n, &err);
		lt_buf_append(&got, buf, n); /* an error may come with the last bytes decoded */
		lt_input_mark(in, &m);
		if (lt_input_consumed(in) > m.len || m.len > c.file.len)
			fuzz_fail("a mark beyond what was read", NULL);
	} while (rc == 0 && n > 0);
	lt_input_mark(in, &m);
	if (rc == 0)
		input_check_mark(&m, path.ptr, c.file.len);
	if (lt_input_ends_open(in) != (got.len > 0 && got.ptr[got.len - 1] != '\n'))
		fuzz_fail("lt_input_ends_open", NULL);
	input_check_decoded(&c, &got, rc, lt_input_is_gzip(in));
	input_check_prefixes(path.ptr, c.file.len, data, size);
	lt_input_free(in);
	unlink(path.ptr);
	free(buf);
	lt_buf_release(&got);
	lt_buf_release(&path);
	lt_buf_release(&c.payload);
	lt_buf_release(&c.file);
	return 0;
}
