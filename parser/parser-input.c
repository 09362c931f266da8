/*
 * parser-input.c - streaming reads of plain or gzip files and stdin, and
 * their content identity.
 *
 * Every on-disk byte read is hashed as it goes by (xxHash's XXH3-128), so
 * the identity of what has been read so far is known at any point without
 * a second pass: lt_input_mark() gives it, and at the end of the input it is
 * the whole file's.  gzip input is hashed as stored (compressed bytes).
 */
#include "lt_parser.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>

#define INPUT_RAW_SIZE (256 * 1024)

struct lt_input {
	char *path;
	int fd;
	int is_gzip;
	int raw_eof;   /* read(2) returned 0 */
	int gz_ended;  /* the last gzip member ended cleanly */
	uint64_t size; /* st_size of a regular file, else 0 */
	uint64_t consumed;
	int64_t mtime;
	int last; /* the last decoded byte handed out, -1 before any */
	z_stream zs;
	unsigned char *raw; /* undecoded bytes: raw[raw_pos..raw_len) */
	size_t raw_pos, raw_len;
	XXH3_state_t *hash; /* of the in->consumed bytes read */
	XXH128_hash_t head; /* of the first LT_INPUT_HEAD bytes, once read */
};

static XXH3_state_t *input_hash_new(void)
{
	XXH3_state_t *h = XXH3_createState();

	if (h == NULL) { /* as lt_xmalloc does: out of memory is fatal here */
		fputs("leasetrail: out of memory (hash state)\n", stderr);
		abort();
	}
	XXH3_128bits_reset(h);
	return h;
}

static void input_hex(char out[33], XXH128_hash_t h)
{
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64,
		 (unsigned long long)h.low64);
}

/* Adds the n bytes at p, read at offset off, to the hash; notes the head when it is complete. */
static void input_hash(struct lt_input *in, const unsigned char *p, size_t n, uint64_t off)
{
	if (off < LT_INPUT_HEAD && off + n >= LT_INPUT_HEAD) {
		size_t first = (size_t)(LT_INPUT_HEAD - off);

		XXH3_128bits_update(in->hash, p, first);
		in->head = XXH3_128bits_digest(in->hash);
		p += first;
		n -= first;
	}
	XXH3_128bits_update(in->hash, p, n);
}

/* Refills in->raw from the file descriptor; 0 on success (also at EOF). */
static int input_fill(struct lt_input *in, struct lt_error *err)
{
	ssize_t n;

	if (in->raw_pos < in->raw_len || in->raw_eof)
		return 0;
	do
		n = read(in->fd, in->raw, INPUT_RAW_SIZE);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return lt_error_at(err, LT_ERR_IO, in->path, 0, in->consumed, "%s: read failed: %s",
				   in->path, strerror(errno));
	in->raw_pos = 0;
	in->raw_len = (size_t)n;
	input_hash(in, in->raw, (size_t)n, in->consumed);
	in->consumed += (uint64_t)n;
	in->raw_eof = n == 0;
	return 0;
}

static int input_open_fd(struct lt_input *in, const char *path, struct lt_error *err)
{
	struct stat st;

	if (strcmp(path, "-") == 0) {
		in->fd = STDIN_FILENO;
		return 0;
	}
	in->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0)
		return lt_error_at(err, LT_ERR_IO, path, 0, 0, "%s: cannot open: %s", path,
				   strerror(errno));
	if (fstat(in->fd, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return lt_error_at(err, LT_ERR_IO, path, 0, 0, "%s: is a directory", path);
		if (S_ISREG(st.st_mode))
			in->size = (uint64_t)st.st_size;
		in->mtime = (int64_t)st.st_mtime;
	}
	return 0;
}

int lt_input_open(struct lt_input **out, const char *path, struct lt_error *err)
{
	struct lt_input *in = lt_xcalloc(1, sizeof *in);
	int rc;

	*out = NULL;
	in->path = lt_xstrdup(path);
	in->fd = -1;
	in->last = -1;
	in->raw = lt_xmalloc(INPUT_RAW_SIZE);
	in->hash = input_hash_new();
	rc = input_open_fd(in, path, err);
	if (rc == 0)
		rc = input_fill(in, err);
	if (rc != 0) {
		lt_input_free(in);
		return rc;
	}
	/* gzip is known by its magic bytes, whatever the file is called */
	if (in->raw_len >= 2 && in->raw[0] == 0x1f && in->raw[1] == 0x8b) {
		in->is_gzip = 1;
		if (inflateInit2(&in->zs, 16 + MAX_WBITS) != Z_OK) {
			lt_input_free(in);
			return lt_error_at(err, LT_ERR_IO, path, 0, 0, "%s: zlib init failed",
					   path);
		}
	}
	*out = in;
	return 0;
}

/* True when only zero padding is left after a gzip member (tar and dd leave it). */
static int input_rest_is_padding(const struct lt_input *in)
{
	for (size_t i = in->raw_pos; i < in->raw_len; i++)
		if (in->raw[i] != 0)
			return 0;
	return 1;
}

/* Inflates once into buf; handles member ends; sets *got. */
static int input_inflate_step(struct lt_input *in, char *buf, size_t cap, size_t *got,
			      struct lt_error *err)
{
	int zr;

	in->zs.next_in = in->raw + in->raw_pos;
	in->zs.avail_in = (uInt)(in->raw_len - in->raw_pos);
	in->zs.next_out = (unsigned char *)buf;
	in->zs.avail_out = (uInt)cap;
	zr = inflate(&in->zs, Z_NO_FLUSH);
	in->raw_pos = in->raw_len - in->zs.avail_in;
	*got = cap - in->zs.avail_out;
	if (zr == Z_STREAM_END) {
		in->gz_ended = 1;
		inflateReset(&in->zs);
		return 0;
	}
	if (zr == Z_OK || zr == Z_BUF_ERROR)
		return 0;
	return lt_error_at(err, LT_ERR_TRUNCATED, in->path, 0, in->consumed,
			   "%s: gzip data corrupt after %llu compressed bytes: %s", in->path,
			   (unsigned long long)(in->consumed - (in->raw_len - in->raw_pos)),
			   in->zs.msg ? in->zs.msg : "bad data");
}

static int input_read_gzip(struct lt_input *in, char *buf, size_t cap, size_t *got,
			   struct lt_error *err)
{
	int rc;

	for (;;) {
		if ((rc = input_fill(in, err)) != 0)
			return rc;
		if (in->raw_pos == in->raw_len) {
			if (in->gz_ended)
				return 0;
			return lt_error_at(err, LT_ERR_TRUNCATED, in->path, 0, in->consumed,
					   "%s: gzip stream truncated after %llu compressed bytes",
					   in->path, (unsigned long long)in->consumed);
		}
		if (in->gz_ended && input_rest_is_padding(in)) {
			in->raw_pos = in->raw_len;
			continue;
		}
		in->gz_ended = 0;
		if ((rc = input_inflate_step(in, buf, cap, got, err)) != 0 || *got > 0)
			return rc;
	}
}

int lt_input_read(struct lt_input *in, char *buf, size_t cap, size_t *got, struct lt_error *err)
{
	size_t n;
	int rc;

	*got = 0;
	if (in->is_gzip)
		rc = input_read_gzip(in, buf, cap, got, err);
	else if ((rc = input_fill(in, err)) == 0) {
		n = in->raw_len - in->raw_pos;
		if (n > cap)
			n = cap;
		memcpy(buf, in->raw + in->raw_pos, n);
		in->raw_pos += n;
		*got = n;
	}
	if (*got > 0)
		in->last = (unsigned char)buf[*got - 1];
	return rc;
}

int lt_input_ends_open(const struct lt_input *in)
{
	return in->last >= 0 && in->last != '\n';
}

const char *lt_input_path(const struct lt_input *in)
{
	return in->path;
}

int lt_input_is_gzip(const struct lt_input *in)
{
	return in->is_gzip;
}

uint64_t lt_input_size(const struct lt_input *in)
{
	return in->size;
}

uint64_t lt_input_consumed(const struct lt_input *in)
{
	return in->consumed - (in->raw_len - in->raw_pos);
}

int64_t lt_input_mtime(const struct lt_input *in)
{
	return in->mtime;
}

void lt_input_free(struct lt_input *in)
{
	if (in == NULL)
		return;
	if (in->is_gzip)
		inflateEnd(&in->zs);
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	XXH3_freeState(in->hash);
	free(in->raw);
	free(in->path);
	free(in);
}

void lt_input_mark(const struct lt_input *in, struct lt_input_mark *out)
{
	XXH128_hash_t now = XXH3_128bits_digest(in->hash);

	out->len = in->consumed;
	input_hex(out->hash, now);
	input_hex(out->head, in->consumed >= LT_INPUT_HEAD ? in->head : now);
}

/* Hashes the next want bytes of fd into h; *got < want at the end of the file. */
static int hash_read(XXH3_state_t *h, int fd, uint64_t want, unsigned char *buf, uint64_t *got)
{
	*got = 0;
	while (*got < want) {
		size_t ask = want - *got > INPUT_RAW_SIZE ? INPUT_RAW_SIZE : (size_t)(want - *got);
		ssize_t n = read(fd, buf, ask);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : 0;
		XXH3_128bits_update(h, buf, (size_t)n);
		*got += (uint64_t)n;
	}
	return 0;
}

int lt_hash_prefixes(char (*out)[33], const char *path, const uint64_t *lens, size_t n,
		     struct lt_error *err)
{
	XXH3_state_t *h;
	unsigned char *buf;
	uint64_t at = 0, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	for (size_t i = 0; i < n; i++)
		out[i][0] = '\0';
	if (fd < 0)
		return lt_error_at(err, LT_ERR_IO, path, 0, 0, "%s: cannot open: %s", path,
				   strerror(errno));
	h = input_hash_new();
	buf = lt_xmalloc(INPUT_RAW_SIZE);
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (lens[i] < at)
			continue;
		rc = hash_read(h, fd, lens[i] - at, buf, &got);
		at += got;
		if (rc != 0 || at < lens[i])
			break;
		input_hex(out[i], XXH3_128bits_digest(h));
	}
	free(buf);
	XXH3_freeState(h);
	close(fd);
	if (rc != 0)
		return lt_error_at(err, LT_ERR_IO, path, 0, 0, "%s: read failed: %s", path,
				   strerror(errno));
	return 0;
}
