/*
 * test-files.h - scratch directories for the test programs: each test gets
 * an empty LT_TEST_TMP/<name>.  Include after <cmocka.h>; PATH_SIZE bounds paths.
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
static void path_join(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, PATH_SIZE, "%s/%s", dir, name);

	assert_true(n > 0 && n < PATH_SIZE);
}

/* Removes path and everything under it; missing is fine. */
static void rm_tree(const char *path)
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
static void case_dir(char *out, const char *name)
{
	mkdir(LT_TEST_TMP, 0755);
	path_join(out, LT_TEST_TMP, name);
	rm_tree(out);
	assert_int_equal(mkdir(out, 0755), 0);
}

#endif
