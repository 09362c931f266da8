/*
 * parser-journal.c - one `journalctl -o json` entry, or one docker
 * json-file record, with yajl.
 *
 * Only top-level fields matter.  MESSAGE is a string, or an array of byte
 * values when it is not valid UTF-8; __REALTIME_TIMESTAMP and _PID are
 * strings of digits.  _BOOT_ID names the boot an entry was logged in: a
 * host's entry from another boot than its previous one follows a reboot
 * (parser_journal_rebooted), which the caller keeps as the boot separator
 * journalctl prints between boots in its text formats.  Docker writes
 * {"log":"LINE\n","stream":"stderr", "time":"RFC 3339, ns"}, a line over 16 KiB in several records
 * of which only the last ends in a newline.  Strings are copied into one arena, since yajl's are
 * borrowed, and turned into pointers once the entry is done.
 */
#define _GNU_SOURCE /* memmem */
#include "parser-json.h"

#include <stdlib.h>
#include <string.h>

enum journal_field {
	J_MESSAGE,
	J_REALTIME,
	J_HOSTNAME,
	J_IDENT,
	J_PID,
	J_UNIT,
	J_LOG, /* docker json-file */
	J_TIME,
	J_BOOT,
	J_NFIELDS
};

static const char *const journal_keys[J_NFIELDS] = {
    "MESSAGE",	"__REALTIME_TIMESTAMP", "_HOSTNAME", "SYSLOG_IDENTIFIER",
    "_PID",	"_SYSTEMD_UNIT",	"log",	     "time",
    "_BOOT_ID",
};

/* The hosts whose boot is followed; past them, the oldest one is forgotten. */
#define JOURNAL_HOSTS 64

/* A host's (_HOSTNAME, "" without one) boot as its last entry said (_BOOT_ID, 128 bits). */
struct journal_boot {
	char host[64], boot[40];
	size_t host_len, boot_len;
};

struct parser_journal_decoder {
	struct lt_buf arena;
	size_t off[J_NFIELDS], len[J_NFIELDS];
	int have[J_NFIELDS];
	int depth;
	int field;    /* the top-level key being read, -1 for one we ignore */
	int in_bytes; /* inside MESSAGE's array of bytes */
	struct journal_boot boots[JOURNAL_HOSTS];
	size_t nboots, oldest;
};

int parser_journal_json_probe(const char *json, size_t len)
{
	if (memmem(json, len, "\"__REALTIME_TIMESTAMP\"", 22) != NULL)
		return 1;
	/* docker json-file; an audit Event always has an auditID */
	return memmem(json, len, "\"log\"", 5) != NULL &&
	       memmem(json, len, "\"time\"", 6) != NULL &&
	       memmem(json, len, "\"auditID\"", 9) == NULL;
}

struct parser_journal_decoder *parser_journal_decoder_new(void)
{
	struct parser_journal_decoder *d = lt_xcalloc(1, sizeof *d);

	lt_buf_init(&d->arena);
	return d;
}

void parser_journal_decoder_free(struct parser_journal_decoder *d)
{
	if (d == NULL)
		return;
	lt_buf_release(&d->arena);
	free(d);
}

static void journal_keep(struct parser_journal_decoder *d, const char *s, size_t n)
{
	d->off[d->field] = d->arena.len;
	d->len[d->field] = n;
	d->have[d->field] = 1;
	lt_buf_append(&d->arena, s, n);
}

static int journal_string(void *ctx, const unsigned char *s, size_t n)
{
	struct parser_journal_decoder *d = ctx;

	if (d->depth == 1 && d->field >= 0)
		journal_keep(d, (const char *)s, n);
	return 1;
}

static int journal_number(void *ctx, const char *s, size_t n)
{
	struct parser_journal_decoder *d = ctx;
	long v;

	if (d->in_bytes && d->depth == 2) {
		v = strtol(s, NULL, 10);
		lt_buf_putc(&d->arena, (char)(unsigned char)(v & 0xff));
		d->len[J_MESSAGE]++;
	} else if (d->depth == 1 && d->field >= 0) {
		journal_keep(d, s, n); /* a number where a string of digits was expected */
	}
	return 1;
}

static int journal_key(void *ctx, const unsigned char *k, size_t n)
{
	struct parser_journal_decoder *d = ctx;

	if (d->depth != 1)
		return 1;
	d->field = -1;
	for (int i = 0; i < J_NFIELDS; i++)
		if (strlen(journal_keys[i]) == n && memcmp(k, journal_keys[i], n) == 0)
			d->field = i;
	return 1;
}

static int journal_start_map(void *ctx)
{
	((struct parser_journal_decoder *)ctx)->depth++;
	return 1;
}

static int journal_end(void *ctx)
{
	struct parser_journal_decoder *d = ctx;

	d->depth--;
	d->in_bytes = 0;
	return 1;
}

static int journal_start_array(void *ctx)
{
	struct parser_journal_decoder *d = ctx;

	if (d->depth == 1 && d->field == J_MESSAGE) {
		d->in_bytes = 1;
		d->off[J_MESSAGE] = d->arena.len;
		d->len[J_MESSAGE] = 0;
		d->have[J_MESSAGE] = 1;
	}
	d->depth++;
	return 1;
}

static int journal_other(void *ctx)
{
	(void)ctx;
	return 1;
}

static int journal_bool(void *ctx, int b)
{
	(void)b;
	return journal_other(ctx);
}

static const yajl_callbacks journal_callbacks = {
    journal_other,  journal_bool,      NULL,	    NULL,	 journal_number,
    journal_string, journal_start_map, journal_key, journal_end, journal_start_array,
    journal_end,
};

static struct lt_str journal_get(const struct parser_journal_decoder *d, int f)
{
	if (!d->have[f])
		return (struct lt_str){NULL, 0};
	return (struct lt_str){d->arena.ptr + d->off[f], d->len[f]};
}

static int64_t journal_digits(struct lt_str s)
{
	int64_t v = 0;

	if (s.ptr == NULL || s.len == 0 || s.len > 18)
		return -1;
	for (size_t i = 0; i < s.len; i++) {
		if (s.ptr[i] < '0' || s.ptr[i] > '9')
			return -1;
		v = v * 10 + (s.ptr[i] - '0');
	}
	return v;
}

/* A docker json-file record: its time, and its line without the newline (*partial without one). */
static int journal_docker(const struct parser_journal_decoder *d, struct lt_log_line *line,
			  struct lt_str *msg, int *partial, char *reason, size_t size)
{
	struct lt_str when = journal_get(d, J_TIME);

	if (when.ptr == NULL || lt_time_parse(&line->ts_us, when.ptr, when.len) != 0) {
		snprintf(reason, size, "a container log record without a valid \"time\"");
		return LT_ERR_FORMAT;
	}
	line->pid = -1; /* the klog header's thread id stands in */
	*msg = journal_get(d, J_LOG);
	*partial = msg->len == 0 || msg->ptr[msg->len - 1] != '\n';
	if (!*partial)
		msg->len--;
	if (msg->len > 0 && msg->ptr[msg->len - 1] == '\r')
		msg->len--;
	return 0;
}

int parser_journal_decode(struct parser_journal_decoder *d, struct lt_log_line *line,
			  struct lt_str *msg, int *partial, const char *json, size_t len,
			  char *reason, size_t size)
{
	int64_t ts, pid;

	lt_buf_reset(&d->arena);
	memset(d->have, 0, sizeof d->have);
	d->depth = 0;
	d->field = -1;
	d->in_bytes = 0;
	if (parser_json_run(&journal_callbacks, d, NULL, "broken JSON in a journal entry", json,
			    len, reason, size) != 0)
		return LT_ERR_FORMAT;
	*partial = 0;
	if (!d->have[J_REALTIME] && !d->have[J_MESSAGE] && d->have[J_LOG])
		return journal_docker(d, line, msg, partial, reason, size);
	ts = journal_digits(journal_get(d, J_REALTIME));
	if (!d->have[J_REALTIME] && !d->have[J_MESSAGE]) {
		snprintf(reason, size,
			 "not a journal entry (no \"__REALTIME_TIMESTAMP\" or \"MESSAGE\"):"
			 " a JSON record of another kind among journal entries");
		return LT_ERR_FORMAT;
	}
	if (ts <= 0 || !d->have[J_MESSAGE]) {
		snprintf(reason, size, "a journal entry without %s",
			 ts <= 0 ? "a __REALTIME_TIMESTAMP" : "a MESSAGE");
		return LT_ERR_FORMAT;
	}
	line->ts_us = ts;
	line->host = journal_get(d, J_HOSTNAME);
	line->ident = journal_get(d, J_IDENT);
	if (line->ident.ptr == NULL) /* the unit says who it is when the identifier does not */
		line->ident = journal_get(d, J_UNIT);
	if (line->ident.ptr && line->ident.len > 8 &&
	    memcmp(line->ident.ptr + line->ident.len - 8, ".service", 8) == 0)
		line->ident.len -= 8;
	pid = journal_digits(journal_get(d, J_PID));
	line->pid = pid >= 0 ? pid : -1;
	*msg = journal_get(d, J_MESSAGE);
	return 0;
}

/* The entry of d's host in its boots, NULL when not followed yet. */
static struct journal_boot *journal_boot_of(struct parser_journal_decoder *d, struct lt_str host)
{
	for (size_t i = 0; i < d->nboots; i++)
		if (d->boots[i].host_len == host.len &&
		    (host.len == 0 || memcmp(d->boots[i].host, host.ptr, host.len) == 0))
			return &d->boots[i];
	return NULL;
}

int parser_journal_rebooted(struct parser_journal_decoder *d, struct lt_str *boot)
{
	struct lt_str host = journal_get(d, J_HOSTNAME), now = journal_get(d, J_BOOT);
	struct journal_boot *b;
	int changed;

	*boot = (struct lt_str){NULL, 0};
	if (now.ptr == NULL || now.len == 0 || now.len >= sizeof b->boot ||
	    host.len >= sizeof b->host)
		return 0; /* no boot ID, or one too long to be the kernel's: nothing to follow */
	if (host.ptr == NULL)
		host.len = 0;
	if ((b = journal_boot_of(d, host)) == NULL) {
		b = &d->boots[d->nboots < JOURNAL_HOSTS ? d->nboots++
							: d->oldest++ % JOURNAL_HOSTS];
		memcpy(b->host, host.ptr ? host.ptr : "", host.len);
		b->host_len = host.len;
		b->boot_len = 0;
	}
	changed = b->boot_len > 0 && (b->boot_len != now.len || memcmp(b->boot, now.ptr, now.len));
	memcpy(b->boot, now.ptr, now.len);
	b->boot_len = now.len;
	if (changed)
		*boot = (struct lt_str){b->boot, b->boot_len};
	return changed;
}
