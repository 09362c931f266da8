/*
 * fuzz-common.c - scratch files and stores, gzip members, and the replay
 * main() (without -DLT_LIBFUZZER) shared by the fuzz targets (fuzz-common.h).
 */
#include "fuzz-common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

_Noreturn void fuzz_fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz: invariant broken: %s%s%s\n", what, detail ? ": " : "",
		detail ? detail : "");
	abort();
}

static const char *fuzz_dir(void)
{
	static const char *dir;
	const char *env = getenv("LT_FUZZ_TMP");

	if (dir != NULL)
		return dir;
	if (env != NULL && *env != '\0')
		dir = env;
	else if (access("/dev/shm", W_OK) == 0)
		dir = "/dev/shm";
	else if ((env = getenv("TMPDIR")) != NULL && *env != '\0')
		dir = env;
	else
		dir = "/tmp";
	return dir;
}

void fuzz_path(struct lt_buf *out, const char *name)
{
	lt_buf_reset(out);
	lt_buf_printf(out, "%s/lt-fuzz-%ld-%s", fuzz_dir(), (long)getpid(), name);
}

void fuzz_write(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	int bad;

	if (f == NULL)
		fuzz_fail("cannot create a scratch file", path);
	bad = size > 0 && fwrite(data, 1, size, f) != size;
	if (fclose(f) != 0 || bad)
		fuzz_fail("cannot write a scratch file", path);
}

void fuzz_remove_store(const char *path)
{
	static const char *const ext[] = {"", "-wal", "-shm", "-journal"};
	struct lt_buf p;

	lt_buf_init(&p);
	for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
		lt_buf_reset(&p);
		lt_buf_printf(&p, "%s%s", path, ext[i]);
		unlink(p.ptr);
	}
	lt_buf_release(&p);
}

/* One gzip member of data[0..size) appended to out. */
static void fuzz_gzip_member(struct lt_buf *out, const uint8_t *data, size_t size)
{
	z_stream zs = {0};
	unsigned char chunk[4096];
	int rc;

	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		fuzz_fail("deflateInit2", NULL);
	zs.next_in = (unsigned char *)(uintptr_t)data;
	zs.avail_in = (uInt)size;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof chunk;
		rc = deflate(&zs, Z_FINISH);
		lt_buf_append(out, chunk, sizeof chunk - zs.avail_out);
	} while (rc == Z_OK);
	if (rc != Z_STREAM_END)
		fuzz_fail("deflate", NULL);
	deflateEnd(&zs);
}

void fuzz_gzip(struct lt_buf *out, const uint8_t *data, size_t size, int nmembers)
{
	size_t at = 0;

	if (nmembers < 1)
		nmembers = 1;
	for (int m = 0; m < nmembers; m++) {
		size_t end = m == nmembers - 1 ? size : size * (size_t)(m + 1) / (size_t)nmembers;

		fuzz_gzip_member(out, data + at, end - at);
		at = end;
	}
}

struct lt_store *fuzz_store_new(const char *path)
{
	struct lt_store *st = NULL;
	struct lt_error err = {0};

	fuzz_remove_store(path);
	if (lt_store_open(&st, path, 0, &err) != 0)
		fuzz_fail("cannot open a scratch store", err.msg);
	return st;
}

#ifndef LT_LIBFUZZER
/* Reads a whole small file; the replay inputs are test files, not logs. */
static char *fuzz_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		if (f)
			fclose(f);
		return NULL;
	}
	buf = lt_xmalloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	fclose(f);
	return buf;
}

static int fuzz_replay_file(const char *path, int *count)
{
	size_t len = 0;
	char *buf = fuzz_read(path, &len);

	if (buf == NULL) {
		fprintf(stderr, "fuzz: cannot read %s\n", path);
		return 1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	free(buf);
	(*count)++;
	return 0;
}

static int fuzz_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's regular files, in name order (a corpus directory is flat). */
static int fuzz_replay_dir(const char *dir, int *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct lt_buf p;
	int failed = 0;

	if (d == NULL) {
		fprintf(stderr, "fuzz: cannot read %s\n", dir);
		return 1;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		LT_GROW(names, cap, n + 1);
		names[n++] = lt_xstrdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, fuzz_name_cmp);
	lt_buf_init(&p);
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		lt_buf_reset(&p);
		lt_buf_printf(&p, "%s/%s", dir, names[i]);
		if (stat(p.ptr, &sb) == 0 && S_ISREG(sb.st_mode))
			failed |= fuzz_replay_file(p.ptr, count);
		free(names[i]);
	}
	lt_buf_release(&p);
	free(names);
	return failed;
}

int main(int argc, char **argv)
{
	int failed = 0, count = 0;

	for (int i = 1; i < argc; i++) {
		struct stat sb;

		if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			failed |= fuzz_replay_dir(argv[i], &count);
		else
			failed |= fuzz_replay_file(argv[i], &count);
	}
	printf("%s: replayed %d inputs\n", argc > 0 ? argv[0] : "fuzz", count);
	return failed;
}
#endif
