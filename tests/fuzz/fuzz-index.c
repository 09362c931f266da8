/*
 * fuzz-index.c - the index writes and dedupe: the bytes as a log file
 * ingested into a scratch store (a tmpfs file: in memory) the way `leasetrail
 * ingest` does it (lt_ingest_run: records, interning, hosts, indexes, every
 * lifecycle), then again unchanged, then grown, then edited.
 *
 * Input: byte 0 picks gzip, --all-resources, --node and (plain files) --cluster; byte 1 where the
 * grown tail is cut from the payload and which byte an edit changes; the
 * rest is the file.  Checked, besides memory safety: an ingest leaves every
 * lifecycle current (lt_derived_check); the same file ingested again is a
 * duplicate that adds no event, line, reject or source; content identity
 * never takes an edited file for one already read (its ingest adds a source);
 * every line's fields mark decodes from its stored raw line.
 */
#include "fuzz-common.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Row counts that an ingest of known content must not change. */
struct index_counts {
	int64_t audit, lines, rejects, sources, marks;
};

static int64_t index_count(struct lt_store *st, const char *sql)
{
	struct lt_stmt *q = NULL;
	struct lt_error err = {0};
	int64_t n = -1;

	if (lt_store_prepare(st, &q, sql, &err) != 0)
		fuzz_fail("prepare", err.msg);
	if (lt_stmt_step(q, &err) == 1)
		n = lt_stmt_int(q, 0);
	lt_stmt_free(q);
	return n;
}

static void index_counts(struct lt_store *st, struct index_counts *c)
{
	c->audit = index_count(st, "SELECT count(*) FROM audit");
	c->lines = index_count(st, "SELECT count(*) FROM lines");
	c->rejects = index_count(st, "SELECT count(*) FROM rejects");
	c->sources = index_count(st, "SELECT count(*) FROM sources");
	c->marks = index_count(st, "SELECT count(*) FROM source_marks");
}

/* One `leasetrail ingest PATH`, then every lifecycle must be current. */
static void index_ingest(struct lt_store *st, const char *path, const struct lt_ingest_opts *opts,
			 struct lt_ingest_totals *t)
{
	char *paths[1] = {(char *)(uintptr_t)path};
	struct lt_error err = {0};
	struct lt_buf why;

	memset(t, 0, sizeof *t);
	if (lt_ingest_run(st, paths, 1, opts, NULL, t, &err) == LT_ERR_DB)
		fuzz_fail("lt_ingest_run failed on the store", err.msg);
	if (lt_derived_check(st, &why) != 0)
		fuzz_fail("a lifecycle is behind after an ingest", why.ptr);
	lt_buf_release(&why);
	/* a line's fields are stored as a mark only where decoder 1 reads them from the stored
	   raw line (schema 10, index-fields.c) */
	if (index_count(
		st, "SELECT count(*) FROM lines WHERE fields = X''"
		    " AND lt_line_fields(lt_raw_of('lines', id), msg_at + msg_len) IS NULL") != 0)
		fuzz_fail("a line's fields mark does not decode from its raw line", path);
}

/* The same file again: a duplicate, nothing added. */
static void index_again(struct lt_store *st, const char *path, const struct lt_ingest_opts *opts)
{
	struct index_counts before, after;
	struct lt_ingest_totals t;

	index_counts(st, &before);
	index_ingest(st, path, opts, &t);
	index_counts(st, &after);
	if (memcmp(&before, &after, sizeof before) != 0 || t.stored != 0)
		fuzz_fail("the same file ingested twice added rows", path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lt_ingest_opts opts = {.all_resources = data[0] & 2, .node = NULL};
	struct lt_ingest_totals t;
	struct index_counts before, after;
	struct lt_buf log, db, file;
	struct lt_store *st;
	size_t cut, edit;

	if (size < 3)
		return 0;
	if (data[0] & 4)
		opts.node = "ip-10-0-1-23.ec2.internal";
	if ((data[0] & 9) == 8) /* --cluster over what the records name (index-cluster.c) */
		opts.cluster = "fuzz-given.east-1";
	lt_buf_init(&log);
	lt_buf_init(&db);
	lt_buf_init(&file);
	fuzz_path(&log, "index.log");
	fuzz_path(&db, "index.db");
	data += 2;
	size -= 2;
	cut = size * data[-1] / 256;
	if (data[-2] & 1)
		fuzz_gzip(&file, data, cut, 1 + (data[-2] >> 3) % 3);
	else
		lt_buf_append(&file, data, cut);
	fuzz_write(log.ptr, file.ptr, file.len);
	st = fuzz_store_new(db.ptr);
	index_ingest(st, log.ptr, &opts, &t);
	index_again(st, log.ptr, &opts);
	if (!(data[-2] & 1) && cut < size) { /* the log grew: read on */
		fuzz_write(log.ptr, data, size);
		index_ingest(st, log.ptr, &opts, &t);
		index_again(st, log.ptr, &opts);
	}
	edit = size > 0 ? (size_t)data[-1] * 31 % size : 0;
	if (!(data[-2] & 1) && size > 0) { /* edited: a new content */
		lt_buf_reset(&file);
		lt_buf_append(&file, data, size);
		file.ptr[edit] = (char)(file.ptr[edit] ^ 0x20);
		fuzz_write(log.ptr, file.ptr, file.len);
		index_counts(st, &before);
		index_ingest(st, log.ptr, &opts, &t);
		index_counts(st, &after);
		if (t.files_not_log == 0 && t.files_failed == 0 && after.sources == before.sources)
			fuzz_fail("an edited file was taken for one already read", NULL);
	}
	lt_store_free(st);
	fuzz_remove_store(db.ptr);
	unlink(log.ptr);
	lt_buf_release(&file);
	lt_buf_release(&log);
	lt_buf_release(&db);
	return 0;
}
