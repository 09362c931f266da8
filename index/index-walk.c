/* index-walk.c - ingesting paths: files, stdin, and directories walked in name order. */
#include "index-int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WALK_MAX_DEPTH 32

static int walk_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted entry names of dir (without . and ..); NULL and err set on failure. */
static char **walk_list(const char *dir, size_t *n, struct lt_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t cap = 0;

	*n = 0;
	if (d == NULL) {
		lt_error_at(err, LT_ERR_IO, dir, 0, 0, "%s: cannot open directory: %s", dir,
			    strerror(errno));
		return NULL;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			names = lt_xrealloc(names, cap * sizeof *names);
		}
		names[(*n)++] = lt_xstrdup(e->d_name);
	}
	closedir(d);
	if (*n > 0)
		qsort(names, *n, sizeof *names, walk_cmp);
	return names ? names : lt_xcalloc(1, sizeof *names);
}

static int walk_path(struct lt_store *st, const char *path, int depth,
		     const struct lt_ingest_opts *opts, struct lt_ingest_totals *t,
		     struct lt_error *err);

/* Ingests every entry of a directory; goes on past files that fail. */
static int walk_dir(struct lt_store *st, const char *dir, int depth,
		    const struct lt_ingest_opts *opts, struct lt_ingest_totals *t,
		    struct lt_error *err)
{
	struct lt_buf child;
	size_t n;
	char **names = walk_list(dir, &n, err);
	int rc = names ? 0 : LT_ERR_IO, worst = rc;

	lt_buf_init(&child);
	for (size_t i = 0; i < n; i++) {
		if (worst != LT_ERR_DB) {
			size_t n_dir = strlen(dir);

			while (n_dir > 1 && dir[n_dir - 1] == '/')
				n_dir--;
			lt_buf_reset(&child);
			lt_buf_printf(&child, "%.*s/%s", (int)n_dir, dir, names[i]);
			rc = walk_path(st, child.ptr, depth + 1, opts, t, err);
			if (rc != 0 && worst != LT_ERR_DB)
				worst = rc;
		}
		free(names[i]);
	}
	free(names);
	lt_buf_release(&child);
	return worst;
}

static int walk_path(struct lt_store *st, const char *path, int depth,
		     const struct lt_ingest_opts *opts, struct lt_ingest_totals *t,
		     struct lt_error *err)
{
	struct stat sb;

	if (strcmp(path, "-") == 0)
		return load_file(st, path, opts, t, err);
	if (stat(path, &sb) != 0) {
		t->files++;
		t->files_failed++;
		return lt_error_at(err, LT_ERR_IO, path, 0, 0, "%s: %s", path, strerror(errno));
	}
	if (S_ISDIR(sb.st_mode)) {
		if (depth >= WALK_MAX_DEPTH)
			return lt_error_at(err, LT_ERR_IO, path, 0, 0,
					   "%s: directories nested too deep (a link loop?)", path);
		return walk_dir(st, path, depth, opts, t, err);
	}
	/* inside a directory only regular files count; a named FIFO or device is read as asked */
	if (depth > 0 && !S_ISREG(sb.st_mode))
		return 0;
	return load_file(st, path, opts, t, err);
}

int lt_store_ingest(struct lt_store *st, const char *path, const struct lt_ingest_opts *opts,
		    struct lt_ingest_totals *totals, struct lt_error *err)
{
	uint64_t not_log = totals->files_not_log;
	int rc = walk_path(st, path, 0, opts, totals, err);

	/* a file named on the command line that is not a log is an error; in a directory, a note */
	if (rc == 0 && totals->files_not_log > not_log) {
		struct stat sb;

		if (strcmp(path, "-") == 0 || (stat(path, &sb) == 0 && !S_ISDIR(sb.st_mode)))
			rc = lt_error_at(err, LT_ERR_FORMAT, path, 0, 0,
					 "%s: not a log leasetrail reads", path);
	}
	return rc;
}
