/*
 * parser-text-line.c - one text line to one struct lt_log_line: the
 * journal's text formats (short, short-precise, short-iso,
 * short-iso-precise), rsyslog files, bare klog (kubelet, controller-manager,
 * scheduler) and JSON log lines mixed with it, header-less fragments, CRI
 * lines (alone or forwarded by syslog), a viewer's time before klog and
 * CloudWatch text records are told apart by their first bytes; the
 * message's klog header (or JSON log object) gives severity, location and
 * the exact time; the classifier says what the line is about.
 */
#include "parser-text.h"

#include <string.h>

/*
 * True when a coarse line time (a whole second: journal short; a whole
 * millisecond: CloudWatch) and the klog time name the same moment, the
 * klog one to the microsecond: then the klog time orders the line among
 * audit events.  A klog time outside that unit is a disagreement, and the
 * line's own time wins.
 */
static int text_refines(int64_t ts, int64_t klog)
{
	int64_t unit = ts % 1000000 == 0 ? 1000000 : ts % 1000 == 0 ? 1000 : 0;

	return unit > 0 && klog >= ts && klog - ts < unit;
}

/* The klog header of msg, if any, sets the severity and the klog time. */
static size_t text_klog(struct parser_textlog *t, struct lt_log_line *ln, const char *msg,
			size_t len)
{
	struct parser_klog k;
	size_t h = parser_text_klog_header(t, &k, msg, len);
	int year;

	if (h == 0)
		return 0;
	if (ln->ts_us != 0) {
		year = parser_text_year_near(ln->ts_us + parser_text_zone(t), k.month, k.day,
					     k.tod_us);
		/* its year follows the line's own time */
		ln->basis |= ln->basis & LT_BASIS_TS_YEAR ? LT_BASIS_KLOG_YEAR : 0;
	} else {
		year = parser_text_year(t, k.month, k.day, k.tod_us);
		ln->year_rule = t->rule;
		ln->basis |= LT_BASIS_KLOG_YEAR;
	}
	ln->basis |= t->line_zone_set ? 0 : LT_BASIS_KLOG_ZONE;
	ln->klog_us = parser_text_stamp(year, k.month, k.day, k.tod_us) - parser_text_zone(t);
	if (ln->ts_us == 0 || text_refines(ln->ts_us, ln->klog_us)) {
		ln->ts_us = ln->klog_us; /* and rests on what the klog time rests on */
		ln->basis = (ln->basis & ~3u) | (ln->basis >> 2 & 3u);
	}
	ln->severity = k.severity;
	ln->location = k.location;
	if (ln->pid < 0)
		ln->pid = k.thread;
	return h;
}

/*
 * The message as a slice of the payload p when it reads there as written (quoted without an
 * escape, or printf text), else its unquoted copy in msg: the pipe then finds it in the raw
 * line without a search (index-pipe.c).  The same bytes either way.
 */
static struct lt_str text_message_view(const struct lt_buf *msg, const char *p, size_t len)
{
	if (msg->len == 0)
		return (struct lt_str){msg->ptr, 0};
	if (len >= 2 && msg->len <= len - 2 && p[0] == '"' &&
	    memcmp(p + 1, msg->ptr, msg->len) == 0)
		return (struct lt_str){p + 1, msg->len};
	if (msg->len <= len && memcmp(p, msg->ptr, msg->len) == 0)
		return (struct lt_str){p, msg->len};
	return (struct lt_str){msg->ptr, msg->len};
}

/* Message and fields from the payload; text = "message fields-as-written" for the classifier. */
static void text_payload(struct parser_textlog *t, struct lt_log_line *ln, const char *p,
			 size_t len)
{
	size_t tail = parser_klog_payload(&t->msg, &t->fields, p, len);

	lt_buf_reset(&t->text);
	lt_buf_append(&t->text, t->msg.ptr, t->msg.len);
	while (tail < len && p[tail] == ' ')
		tail++;
	if (tail < len) {
		lt_buf_putc(&t->text, ' ');
		lt_buf_append(&t->text, p + tail, len - tail);
	}
	ln->message = text_message_view(&t->msg, p, len);
	/* the buffer keeps its memory across lines: no fields must be absent, not "" */
	ln->fields = t->fields.len ? (struct lt_str){t->fields.ptr, t->fields.len}
				   : (struct lt_str){NULL, 0};
}

/*
 * A line of Kubernetes' JSON log format: its "ts" is the klog time (UTC,
 * with its year), "caller" the location; the object itself is the fields.
 */
static int text_jsonlog(struct parser_textlog *t, struct lt_log_line *ln, const char *p, size_t len)
{
	struct parser_jsonlog j;

	while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\r'))
		len--;
	lt_buf_reset(&t->fields);
	if (len == 0 || p[0] != '{' || parser_jsonlog_parse(&j, &t->msg, &t->fields, p, len) != 0)
		return 0;
	ln->klog_us = j.ts_us;
	t->said_ref_us = j.ts_us; /* UTC, with its year: the klog lines around it are as old */
	t->said_ref_zoned = 1;
	if (ln->ts_us == 0 || text_refines(ln->ts_us, ln->klog_us)) {
		ln->ts_us = ln->klog_us; /* UTC, with its year: nothing to move */
		ln->basis = 0;
	}
	ln->severity = j.severity;
	ln->location = j.caller;
	ln->message = j.msg;
	ln->fields = (struct lt_str){p, len};
	lt_buf_reset(&t->text); /* the message and the pairs, as klog would have written them */
	lt_buf_append(&t->text, j.msg.ptr, j.msg.len);
	lt_buf_append(&t->text, t->fields.ptr, t->fields.len);
	return 1;
}

/*
 * A JSON record wrapping the line (a container's "log", a journal's
 * "message" beside its host): the line it holds becomes the message, and
 * the host and writer it names fill what the line's envelope left open.
 */
static void text_unwrap(struct parser_textlog *t, struct lt_log_line *ln, const char **msg,
			size_t *len)
{
	struct parser_logwrap w;

	if (*len == 0 || (*msg)[0] != '{' || parser_jsonlog_probe(*msg, *len) ||
	    parser_logwrap_parse(&w, &t->wrap, *msg, *len) != 0)
		return;
	if (ln->host.ptr == NULL)
		ln->host = w.host;
	if (ln->component.ptr == NULL)
		ln->component = w.component;
	if (ln->ident.ptr == NULL)
		ln->ident = w.ident;
	*msg = w.line.ptr;
	*len = w.line.len;
}

/*
 * A date the message writes in full, when the line's time rests on a year or
 * zone that is only guessed: the store weighs it (index-logs.c).
 */
static void text_said(const struct parser_textlog *t, struct lt_log_line *ln, const char *msg,
		      size_t len)
{
	int weak_year = ln->basis & LT_BASIS_TS_YEAR &&
			(lt_year_rule_guess(t->basis.year_rule) || t->basis.year_raised);
	int weak_zone = ln->basis & LT_BASIS_TS_ZONE && t->basis.zone_rule == LT_ZONE_GUESS;

	if (!weak_year && !weak_zone)
		return;
	if (parser_text_said(msg, len, &ln->said_us, &ln->said_zoned))
		return;
	/* else the last time with a year the file wrote beside its klog lines, for the year */
	ln->said_us = weak_year ? t->said_ref_us : 0;
	ln->said_zoned = t->said_ref_zoned;
}

int parser_textlog_message(struct parser_textlog *t, struct lt_log_line *ln, const char *msg,
			   size_t len, const struct lt_where *at)
{
	size_t h;
	int json, rc;

	text_unwrap(t, ln, &msg, &len);
	h = text_klog(t, ln, msg, len);
	json = h == 0 && text_jsonlog(t, ln, msg, len);

	if (ln->ts_us == 0)
		return parser_text_untimed(
		    t, ln->raw.ptr, ln->raw.len, at,
		    "a log line without a time: no journal date, no klog header");
	if ((rc = parser_text_timed(t, ln)) != 0)
		return rc;
	if (!json)
		text_payload(t, ln, msg + h, len - h);
	if (t->cls == NULL)
		t->cls = parser_classifier_new();
	parser_classify(t->cls, ln, t->text.ptr, t->text.len);
	parser_text_component(t, ln);
	parser_text_leader_lease(t, ln);
	if (at->offset < t->sink->resume_offset)
		return 0;
	text_said(t, ln, msg, len);
	ln->file = t->basis;
	return t->sink->log(ln, at, t->ctx);
}

void parser_text_line_init(struct lt_log_line *ln, const char *s, size_t n)
{
	memset(ln, 0, sizeof *ln);
	ln->raw = (struct lt_str){s, n};
	ln->pid = -1;
}

/* Keeps a boot separator for the next journal line (one that does not fit is dropped). */
static void text_boot_mark(struct parser_textlog *t, const char *s, size_t n)
{
	if ((!parser_text_prefix(s, n, "-- Boot ") && !parser_text_prefix(s, n, "-- Reboot --")) ||
	    n > sizeof t->boot)
		return;
	memcpy(t->boot, s, n);
	t->boot_len = n;
	t->boot_line = t->line_no;
	t->boot_offset = t->offset;
}

/* The kept boot separator as a record, at the time and host of next (the boot's first line). */
static int text_boot_emit(struct parser_textlog *t, const struct lt_log_line *next)
{
	struct lt_where at = parser_text_where(t, t->boot_line, t->boot_offset);
	struct lt_log_line b;
	size_t n = t->boot_len;

	t->boot_len = 0;
	parser_text_line_init(&b, t->boot, n);
	b.ts_us = next->ts_us;
	b.year_rule = next->year_rule;
	b.basis = next->basis & (LT_BASIS_TS_YEAR | LT_BASIS_TS_ZONE); /* re-dated as it is */
	b.host = next->host;
	return parser_textlog_message(t, &b, t->boot, n, &at);
}

/* A journal line after its date: "HOST IDENT[PID]: MESSAGE". */
static int text_journal(struct parser_textlog *t, struct lt_log_line *ln, const char *s, size_t n,
			const struct lt_where *at)
{
	const char *sp = memchr(s, ' ', n);
	size_t took, cri;
	int64_t ts;
	int rc, partial;

	if (sp == NULL || sp == s)
		return parser_text_reject(t, at, "a journal line without a host name");
	ln->host = (struct lt_str){s, (size_t)(sp - s)};
	s = sp + 1;
	n -= ln->host.len + 1;
	if ((took = parser_text_ident(ln, s, n, 0)) == 0)
		ln->ident = (struct lt_str){NULL, 0}; /* no "IDENT:": the rest is the message */
	if (t->boot_len > 0 && (rc = text_boot_emit(t, ln)) != 0)
		return rc;
	if ((cri = parser_text_cri_record(s + took, n - took, &ts, &partial)) > 0) {
		/* a container's CRI record forwarded by syslog (rsyslog imfile, RKE2): the
		 * runtime's exact UTC time wins over the forwarder's */
		const char *c =
		    parser_stream_component(ln->ident); /* imfile's tag: "kubelet.log" */

		ln->ts_us = ts;
		ln->basis = 0;
		ln->year_rule = LT_YEAR_NONE;
		t->line_zone_set = 0;
		if (c != NULL)
			ln->component = (struct lt_str){c, strlen(c)};
		return parser_text_container_as(t, ln, s + took + cri, n - took - cri, partial, at,
						c);
	}
	return parser_textlog_message(t, ln, s + took, n - took, at);
}

/*
 * After an ISO time: "HOST IDENT[PID]: MSG" is a journal line; "MSG" and "STREAM MSG" are
 * CloudWatch's, whose MSG is a klog line or a JSON object.  Those are ruled out first, as
 * "I0405 06:04:14..." and "{"kind":..." would pass for a host and an "IDENT:".
 */
static int text_iso_journal(const char *s, size_t n)
{
	const char *sp = memchr(s, ' ', n);
	struct lt_log_line probe;
	struct parser_klog k;
	size_t rest;

	if (sp == NULL || s[0] == '{' || parser_klog_header(&k, s, n) > 0)
		return 0;
	rest = n - (size_t)(sp + 1 - s);
	if (rest == 0 || sp[1] == '{' || parser_klog_header(&k, sp + 1, rest) > 0)
		return 0;
	return parser_text_ident(&probe, sp + 1, rest, 0) > 0;
}

static int text_dated(struct parser_textlog *t, struct lt_log_line *ln, const char *s, size_t n,
		      const struct lt_where *at)
{
	int64_t ts, tod, zone;
	int mon, day, partial;
	size_t took, tag;

	if ((took = parser_text_short_date(s, n, &mon, &day, &tod)) > 0) {
		ln->ts_us = parser_text_stamp(parser_text_year(t, mon, day, tod), mon, day, tod) -
			    parser_text_zone(t);
		ln->year_rule = t->rule;
		ln->basis = LT_BASIS_TS_YEAR | LT_BASIS_TS_ZONE;
		return text_journal(t, ln, s + took, n - took, at);
	}
	if ((took = parser_text_iso(s, n, &ts, &zone)) == 0)
		return 1;
	/* a CRI line: the runtime's time is exact; the klog time is the container's own zone */
	if ((tag = parser_text_cri_tag(s + took, n - took, &partial)) > 0) {
		ln->ts_us = ts;
		return parser_textlog_container(t, ln, s + took + tag, n - took - tag, partial, at);
	}
	/* an ISO time, then either a journal "HOST IDENT[PID]:" or a CloudWatch record */
	if (took < n && text_iso_journal(s + took, n - took)) {
		ln->ts_us = ts;
		t->line_zone_us = zone;
		t->line_zone_set = 1;
		return text_journal(t, ln, s + took, n - took, at);
	}
	return parser_text_cloudwatch(t, s, n, took, ts);
}

/*
 * A line with no date of its own: bare klog, a line of Kubernetes' JSON log format (kubectl logs
 * of an operator mixes both), or a "kubelet[PID]: E0124 ..." fragment.
 */
static int text_undated(struct parser_textlog *t, struct lt_log_line *ln, const char *s, size_t n,
			const struct lt_where *at)
{
	struct parser_klog k;
	int64_t ui;
	size_t took;

	if (parser_klog_header(&k, s, n) > 0 || parser_text_jsonlog_line(s, n))
		return parser_textlog_message(t, ln, s, n, at);
	/* a viewer's local time glued before the header: the klog time wins, the viewer's gives
	 * the year only (said to the store: it weighs it as any full date the file writes) */
	if ((took = parser_text_ui_time(s, n, &ui)) > 0 &&
	    parser_klog_header(&k, s + took, n - took) > 0) {
		t->said_ref_us = ui;
		t->said_ref_zoned = 0;
		return parser_textlog_message(t, ln, s + took, n - took, at);
	}
	if ((took = parser_text_ident(ln, s, n, 1)) > 0)
		return parser_textlog_message(t, ln, s + took, n - took, at);
	return parser_text_untimed(
	    t, s, n, at,
	    "not a log line: no journal date, klog header or ISO time "
	    "(a wrapped line, a fragment?), and no line with a time follows");
}

int parser_text_line(struct parser_textlog *t, const char *s, size_t n)
{
	while (n > 0 && s[n - 1] == '\r')
		n--;
	return parser_text_wrap_line(t, s, n);
}

int parser_text_line_one(struct parser_textlog *t, const char *s, size_t n)
{
	struct lt_log_line ln;
	struct lt_where at;
	int rc;

	while (n > 0 && s[n - 1] == '\r')
		n--;
	t->line_zone_set = 0;
	if (t->cpart_open && !parser_text_cri_line(s, n) && (rc = parser_text_cpart_flush(t)) != 0)
		return rc;
	if (n == 0 || parser_text_header_line(s, n)) {
		text_boot_mark(t, s, n);
		parser_text_header_range(t, s, n);
		return parser_text_pend_flush(t);
	}
	if (parser_text_pend_continue(t, s, n))
		return 0;
	if ((rc = parser_text_pend_flush(t)) != 0)
		return rc;
	parser_text_line_init(&ln, s, n);
	at = parser_text_where(t, t->line_no, t->offset);
	if (t->wrap_noted)
		at.ext_id = (struct lt_str){t->wrap_note, strlen(t->wrap_note)};
	t->pended = 0;
	rc = text_dated(t, &ln, s, n, &at);
	if (rc == 1)
		rc = text_undated(t, &ln, s, n, &at);
	if (!t->pended)
		t->index++;
	return rc;
}
