/*
 * test-files.h - scratch directories for the test programs: each test gets
 * an empty LT_TEST_TMP/<name>; writing a test file, and reading a whole one.  Include after
 * <cmocka.h> and lt_parser.h; PATH_SIZE bounds paths.  The helpers are
 * inline so that a program using some of them is not warned about the rest.
 */
#ifndef LT_TEST_FILES_H
#define LT_TEST_FILES_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_SIZE
#define PATH_SIZE 1024
#endif

/* out = dir/name; fails the test when it does not fit. */
static inline void path_join(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, PATH_SIZE, "%s/%s", dir, name);

	assert_true(n > 0 && n < PATH_SIZE);
}

/* Removes path and everything under it; missing is fine. */
static inline void rm_tree(const char *path)
{
	struct stat sb;
	struct dirent *e;
	char child[PATH_SIZE];
	DIR *d;

	if (lstat(path, &sb) != 0)
		return;
	if (!S_ISDIR(sb.st_mode)) {
		assert_int_equal(unlink(path), 0);
		return;
	}
	d = opendir(path);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		path_join(child, path, e->d_name);
		rm_tree(child);
	}
	closedir(d);
	assert_int_equal(rmdir(path), 0);
}

/* A new empty directory LT_TEST_TMP/name for one test. */
static inline void case_dir(char *out, const char *name)
{
	mkdir(LT_TEST_TMP, 0755);
	path_join(out, LT_TEST_TMP, name);
	rm_tree(out);
	assert_int_equal(mkdir(out, 0755), 0);
}

/* Writes len bytes of data to path; mode "wb" starts the file, "ab" appends. */
static inline void write_bytes(const char *path, const char *data, size_t len, const char *mode)
{
	FILE *f = fopen(path, mode);

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Writes text to dir/name and leaves the path in out. */
static inline void write_file(char *out, const char *dir, const char *name, const char *text)
{
	path_join(out, dir, name);
	write_bytes(out, text, strlen(text), "wb");
}

/* A whole (small) test file, NUL-terminated; the caller frees it. */
static inline char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct lt_buf b;
	char chunk[4096];
	size_t n;

	assert_non_null(f);
	lt_buf_init(&b);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		lt_buf_append(&b, chunk, n);
	fclose(f);
	*len = b.len;
	return lt_buf_detach(&b);
}

#endif
