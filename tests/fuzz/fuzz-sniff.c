/*
 * fuzz-sniff.c - sniffing and routing of whole files: the bytes written to a
 * file (plain or gzip, under a name that hints at a component or a
 * CloudWatch stream), then lt_sniff_path and lt_parse_input with every sink
 * callback, as `leasetrail ingest` reads a file.
 *
 * Input: byte 0 picks gzip (and its members) and the file's name, byte 1
 * the sink's options (year, zone, resume offset, no log callback); the rest
 * is the file's content.  Checked, besides memory safety: lt_sniff_path and
 * lt_parse_input agree on the format; each reason handed to reject is one
 * sanitized line; every string handed out is readable to its length; marks
 * only grow and never pass the file's size; a log kind is one of the table's.
 */
#include "fuzz-common.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Names a file may have: a component in the name, a CRI pod log, a CloudWatch stream folder. */
static const char *const sniff_names[] = {
    "input",
    "kubelet.log",
    "kube-controller-manager.log.1",
    "kube-scheduler.log",
    "kubelet/0.log",
    "kube-apiserver-audit-0f1e2d3c/000000",
    "authenticator-0a1b/000001",
    "kube-controller-manager-9a8b/000000.gz",
};

struct sniff_ctx {
	uint64_t size; /* on-disk bytes */
	uint64_t last_mark;
	uint64_t sum; /* what was read of every string, so that the reads are not optimized out */
};

static void sniff_touch(struct sniff_ctx *c, struct lt_str s)
{
	if (s.ptr == NULL)
		return;
	for (size_t i = 0; i < s.len; i++)
		c->sum += (unsigned char)s.ptr[i];
}

static void sniff_where(struct sniff_ctx *c, const struct lt_where *at)
{
	if (at->file == NULL)
		fuzz_fail("a record without a file", NULL);
	sniff_touch(c, at->ext_id);
	sniff_touch(c, at->stream);
}

static int sniff_audit(const struct lt_audit_event *ev, const struct lt_where *at, void *ctx)
{
	const struct lt_str *f[] = {
	    &ev->raw,	      &ev->api_version,	 &ev->level,	  &ev->audit_id,    &ev->stage,
	    &ev->request_uri, &ev->verb,	 &ev->username,	  &ev->groups,	    &ev->user_agent,
	    &ev->resource,    &ev->name,	 &ev->namespace_, &ev->status,	    &ev->reason,
	    &ev->message,     &ev->lease_holder, &ev->obj_uid,	  &ev->authz_reason};

	sniff_where(ctx, at);
	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		sniff_touch(ctx, *f[i]);
	lt_audit_stage_rank(ev->stage);
	return 0;
}

static void sniff_kind(const char *kind)
{
	for (const struct lt_log_kind *k = lt_log_kinds(); kind != NULL && k->kind; k++)
		if (k->kind == kind || strcmp(k->kind, kind) == 0)
			return;
	if (kind != NULL)
		fuzz_fail("a log kind not in the table", kind);
}

static int sniff_log(const struct lt_log_line *ln, const struct lt_where *at, void *ctx)
{
	const struct lt_str *f[] = {&ln->raw,	   &ln->host,	       &ln->ident,  &ln->component,
				    &ln->location, &ln->message,       &ln->fields, &ln->subject,
				    &ln->obj_kind, &ln->obj_namespace, &ln->obj_uid};

	sniff_where(ctx, at);
	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		sniff_touch(ctx, *f[i]);
	sniff_kind(ln->kind);
	lt_year_rule_name(ln->year_rule);
	return 0;
}

static int sniff_reject(const struct lt_where *at, const char *reason, void *ctx)
{
	sniff_where(ctx, at);
	for (const unsigned char *p = (const unsigned char *)reason; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			fuzz_fail("a reject reason with a control byte", NULL);
	return 0;
}

static void sniff_mark(const struct lt_input_mark *m, void *ctx)
{
	struct sniff_ctx *c = ctx;

	if (m->len < c->last_mark || m->len > c->size)
		fuzz_fail("a mark went back, or past the end of the file", NULL);
	c->last_mark = m->len;
}

static void sniff_progress(uint64_t done, uint64_t size, void *ctx)
{
	struct sniff_ctx *c = ctx;

	if (done > c->size || (size != 0 && size != c->size))
		fuzz_fail("progress past the file's size", NULL);
}

/* Creates the directories of path below the scratch directory. */
static void sniff_mkdirs(const char *path, size_t from)
{
	struct lt_buf dir;

	lt_buf_init(&dir);
	for (const char *s = strchr(path + from, '/'); s != NULL; s = strchr(s + 1, '/')) {
		lt_buf_reset(&dir);
		lt_buf_append(&dir, path, (size_t)(s - path));
		mkdir(dir.ptr, 0700);
	}
	lt_buf_release(&dir);
}

static void sniff_rmdirs(const char *path, size_t from)
{
	struct lt_buf dir;
	char *s;

	lt_buf_init(&dir);
	lt_buf_append(&dir, path, strlen(path));
	while ((s = strrchr(dir.ptr, '/')) != NULL && (size_t)(s - dir.ptr) > from) {
		*s = '\0';
		rmdir(dir.ptr);
	}
	lt_buf_release(&dir);
}

static void sniff_sink(struct lt_sink *s, uint8_t opt)
{
	*s = (struct lt_sink){
	    .audit = sniff_audit,
	    .log = (opt & 1) ? NULL : sniff_log,
	    .reject = sniff_reject,
	    .progress = sniff_progress,
	    .mark = sniff_mark,
	    .resume_offset = (opt & 2) ? (uint64_t)(opt >> 2) * 13 : 0,
	    .year = (opt & 4) ? 1970 + opt : 0,
	    .year_lo_us = (opt & 8) ? INT64_C(1700000000000000) : 0,
	    .year_hi_us = (opt & 8) ? INT64_C(1700000000000000) + (int64_t)opt * 86400000000 : 0,
	    .utc_offset_us = (opt & 16) ? ((int64_t)opt - 128) * 900000000 / 16 : 0,
	};
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sniff_ctx c = {0};
	struct lt_buf path, file;
	struct lt_input *in = NULL;
	struct lt_sink sink;
	struct lt_error err = {0};
	enum lt_format sniffed, parsed = LT_FMT_UNKNOWN;
	size_t base;

	if (size < 2)
		return 0;
	lt_buf_init(&path);
	lt_buf_init(&file);
	fuzz_path(&path, "sniff/");
	base = path.len - 1;
	lt_buf_printf(&path, "%s", sniff_names[(data[0] >> 3) % 8]);
	sniff_mkdirs(path.ptr, base - 1);
	if (data[0] & 1)
		fuzz_gzip(&file, data + 2, size - 2, 1 + (data[0] >> 1) % 4);
	else
		lt_buf_append(&file, data + 2, size - 2);
	fuzz_write(path.ptr, file.ptr, file.len);
	c.size = file.len;
	sniff_sink(&sink, data[1]);
	if (lt_sniff_path(&sniffed, path.ptr, &err) != 0)
		fuzz_fail("lt_sniff_path of a scratch file", err.msg);
	if (lt_input_open(&in, path.ptr, &err) != 0)
		fuzz_fail("lt_input_open of a scratch file", err.msg);
	lt_parse_input(in, &sink, &c, &parsed, &err);
	if (parsed != sniffed && !(sink.log == NULL && sniffed == LT_FMT_TEXT))
		fuzz_fail("lt_sniff_path and lt_parse_input disagree", lt_format_name(parsed));
	lt_input_free(in);
	unlink(path.ptr);
	sniff_rmdirs(path.ptr, base - 1);
	lt_buf_release(&path);
	lt_buf_release(&file);
	return 0;
}
