/*
 * index-walk.c - ingesting paths: files, stdin, pipes, and directories walked
 * in name order.
 *
 * Inside a directory, symbolic links to directories are not followed unless
 * opts->follow (--follow); a link named on the command line is.  Either way
 * each directory, known by (device, inode), is walked once per call, so
 * link loops cost one visit each, never a walk that doubles per loop.
 * Inside a directory only regular files are read (a FIFO there could block
 * for ever); a pipe or device named on the command line is read as stdin is.
 */
#include "index-int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WALK_MAX_DEPTH 64

/* The directories walked so far: an open-addressing set of (device, inode). */
struct walk_seen {
	struct walk_dir_id {
		dev_t dev;
		ino_t ino;
		int used;
	} * slots;
	size_t cap, used;
};

struct walk {
	struct lt_store *st;
	const struct lt_ingest_opts *opts;
	struct lt_ingest_totals *t;
	struct lt_error *err;
	struct walk_seen seen;
	/* what to do with a file (sb NULL for stdin) */
	int (*file)(struct walk *w, const char *path, const struct stat *sb);
	uint64_t size; /* lt_ingest_size's sum */
};

static size_t walk_slot(const struct walk_seen *s, dev_t dev, ino_t ino)
{
	uint64_t h =
	    ((uint64_t)dev * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)ino * 0xff51afd7ed558ccdULL);
	size_t i = (size_t)(h ^ (h >> 29)) & (s->cap - 1);

	while (s->slots[i].used && (s->slots[i].dev != dev || s->slots[i].ino != ino))
		i = (i + 1) & (s->cap - 1);
	return i;
}

/* Adds a directory; 0 when it was walked already. */
static int walk_first_visit(struct walk_seen *s, const struct stat *sb)
{
	size_t i;

	if (2 * (s->used + 1) > s->cap) {
		struct walk_seen bigger = {lt_xcalloc(s->cap ? s->cap * 2 : 64, sizeof *s->slots),
					   s->cap ? s->cap * 2 : 64, s->used};

		for (size_t j = 0; j < s->cap; j++)
			if (s->slots[j].used)
				bigger.slots[walk_slot(&bigger, s->slots[j].dev, s->slots[j].ino)] =
				    s->slots[j];
		free(s->slots);
		*s = bigger;
	}
	i = walk_slot(s, sb->st_dev, sb->st_ino);
	if (s->slots[i].used)
		return 0;
	s->slots[i] = (struct walk_dir_id){sb->st_dev, sb->st_ino, 1};
	s->used++;
	return 1;
}

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
		LT_GROW(names, cap, *n + 1);
		names[(*n)++] = lt_xstrdup(e->d_name);
	}
	closedir(d);
	if (*n > 0)
		qsort(names, *n, sizeof *names, walk_cmp);
	return names ? names : lt_xcalloc(1, sizeof *names);
}

static int walk_path(struct walk *w, const char *path, int depth);

/* Walks every entry of a directory; goes on past files that fail. */
static int walk_dir(struct walk *w, const char *dir, int depth)
{
	struct lt_buf child;
	size_t n, n_dir = strlen(dir);
	char **names = walk_list(dir, &n, w->err);
	int rc = names ? 0 : LT_ERR_IO, worst = rc;

	while (n_dir > 1 && dir[n_dir - 1] == '/')
		n_dir--;
	lt_buf_init(&child);
	for (size_t i = 0; i < n; i++) {
		if (worst != LT_ERR_DB) {
			lt_buf_reset(&child);
			lt_buf_printf(&child, "%.*s/%s", (int)n_dir, dir, names[i]);
			rc = walk_path(w, child.ptr, depth + 1);
			if (rc != 0 && worst != LT_ERR_DB)
				worst = rc;
		}
		free(names[i]);
	}
	free(names);
	lt_buf_release(&child);
	return worst;
}

/* A path that cannot be looked at: counted as a failed file, with the reason. */
static int walk_failed(struct walk *w, const char *path)
{
	if (w->t != NULL) {
		w->t->files++;
		w->t->files_failed++;
	}
	return lt_error_at(w->err, LT_ERR_IO, path, 0, 0, "%s: %s", path, strerror(errno));
}

static int walk_path(struct walk *w, const char *path, int depth)
{
	struct stat sb;

	if (strcmp(path, "-") == 0)
		return w->file(w, path, NULL);
	if (lstat(path, &sb) != 0)
		return walk_failed(w, path);
	/* a link inside a directory is followed to a file; to a directory only with --follow */
	if (S_ISLNK(sb.st_mode)) {
		if (stat(path, &sb) != 0)
			return depth > 0 ? 0 : walk_failed(w, path); /* a dangling link in a dir */
		if (S_ISDIR(sb.st_mode) && depth > 0 && !w->opts->follow)
			return 0;
	}
	if (S_ISDIR(sb.st_mode)) {
		if (!walk_first_visit(&w->seen, &sb))
			return 0; /* walked already: a link loop, or two links to one directory */
		if (depth >= WALK_MAX_DEPTH)
			return lt_error_at(w->err, LT_ERR_IO, path, 0, 0,
					   "%s: directories nested too deep", path);
		return walk_dir(w, path, depth);
	}
	/* inside a directory only regular files count; a named FIFO or device is read as asked */
	if (depth > 0 && !S_ISREG(sb.st_mode))
		return 0;
	return w->file(w, path, &sb);
}

/* True when sb is the store being written, or one of its -wal, -shm, -journal files. */
static int walk_is_store(const struct walk *w, const struct stat *sb)
{
	static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
	struct lt_buf p;
	struct stat ss;
	int same = 0;

	lt_buf_init(&p);
	for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes && !same; i++) {
		lt_buf_reset(&p);
		lt_buf_printf(&p, "%s%s", lt_store_path(w->st), suffixes[i]);
		same = stat(p.ptr, &ss) == 0 && ss.st_dev == sb->st_dev && ss.st_ino == sb->st_ino;
	}
	lt_buf_release(&p);
	return same;
}

static int walk_ingest_file(struct walk *w, const char *path, const struct stat *sb)
{
	/* a store inside the directory it is fed from is not one of its logs */
	if (sb != NULL && walk_is_store(w, sb))
		return 0;
	return index_load_file(w->st, path, w->opts, w->t, w->err);
}

int lt_store_ingest(struct lt_store *st, const char *path, const struct lt_ingest_opts *opts,
		    struct lt_ingest_totals *totals, struct lt_error *err)
{
	struct walk w = {.st = st, .opts = opts, .t = totals, .err = err, .file = walk_ingest_file};
	uint64_t not_log = totals->files_not_log;
	int rc = walk_path(&w, path, 0);

	free(w.seen.slots);
	/* a file named on the command line that is not a log is an error; in a directory, a note */
	if (rc == 0 && totals->files_not_log > not_log) {
		struct stat sb;

		if (strcmp(path, "-") == 0 || (stat(path, &sb) == 0 && !S_ISDIR(sb.st_mode)))
			rc = lt_error_at(err, LT_ERR_FORMAT, path, 0, 0,
					 "%s: not a log leasetrail reads", path);
	}
	return rc;
}

static int walk_size_file(struct walk *w, const char *path, const struct stat *sb)
{
	(void)path;
	if (sb != NULL && S_ISREG(sb->st_mode))
		w->size += (uint64_t)sb->st_size;
	return 0;
}

uint64_t lt_ingest_size(const char *path, const struct lt_ingest_opts *opts)
{
	struct walk w = {.opts = opts, .file = walk_size_file};

	walk_path(&w, path, 0);
	free(w.seen.slots);
	return w.size;
}
