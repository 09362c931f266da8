/* queries-show.c - `leasetrail show ID`: one stored event exactly as it was read. */
#include "lt_queries.h"

#include <unistd.h>

int lt_query_show(struct lt_store *st, int64_t id, unsigned flags, FILE *out, struct lt_error *err)
{
	return lt_query_show_record(st, id, LT_RECORD_EVENT, flags, out, err);
}

int lt_query_show_record(struct lt_store *st, int64_t id, enum lt_record rec, unsigned flags,
			 FILE *out, struct lt_error *err)
{
	struct lt_event_origin o = {0};
	int tty = isatty(fileno(out));
	int rc;

	lt_buf_init(&o.raw);
	lt_buf_init(&o.file);
	rc = rec == LT_RECORD_LINE ? lt_store_line_origin(st, id, &o, err)
				   : lt_store_event_origin(st, id, &o, err);
	if (rc == 0) {
		if (flags & LT_SHOW_VERBOSE) {
			fputs("# ", out);
			lt_print_safe(out, o.file.ptr, o.file.len, LT_SAFE_ONE_LINE);
			fprintf(out, ":%llu (byte %llu)\n", (unsigned long long)o.line,
				(unsigned long long)o.offset);
		}
		/* exact bytes for a pipe (jq), made safe for a terminal */
		if (tty)
			lt_print_safe(out, o.raw.ptr, o.raw.len, LT_SAFE_KEEP_NEWLINES);
		else
			fwrite(o.raw.ptr, 1, o.raw.len, out);
		fputc('\n', out);
	}
	lt_buf_release(&o.raw);
	lt_buf_release(&o.file);
	return rc;
}
