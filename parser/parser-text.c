/*
 * parser-text.c - text logs, one line at a time: journalctl's text formats
 * (short, short-precise, short-iso, short-iso-precise), rsyslog files, bare
 * klog (kubelet, controller-manager, scheduler), header-less fragments, and
 * CloudWatch's text shapes (S3 export "TIME MESSAGE", `aws logs tail`).
 *
 * Journal short and klog times carry no year: the first such time of a
 * file picks one (--year, else the dates of journalctl's header line, else
 * the audit events in the store, else the file's mtime) and a month going
 * back (Dec -> Jan) moves it on.
 *
 * Journal short times and klog headers are the host's local time.  A
 * journal line with an offset (short-iso) gives it for its klog time too;
 * otherwise --utc-offset does (sink->utc_offset_us), and without it UTC.
 */
#define _GNU_SOURCE /* memmem */
#include "parser-int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Leader-election processes of one file whose lease name is remembered. */
#define TEXT_LEADERS 8

/* The lease a process (component and pid) last named in a leader-election line. */
struct text_leader {
	char component[64];
	int64_t pid;
	char lease[256];
};

/* A line longer than this is hostile or not a log line; it is skipped and reported. */
#define TEXT_MAX_LINE (1024u * 1024)
#define TEXT_DAY_US   (86400LL * 1000000)

struct parser_textlog {
	const struct lt_sink *sink;
	void *ctx;
	parser_json_route_fn route;
	void *route_ctx;
	const char *path;
	int64_t mtime;
	const char *path_component;    /* a hint from the file name */
	char stream[256];	       /* S3 export tree: the stream folder of the file */
	struct parser_classifier *cls; /* compiled on the first line */
	struct lt_buf part;	       /* a line split across chunks */
	int part_over;		       /* that line passed TEXT_MAX_LINE */
	uint64_t line_no, offset, index;
	struct lt_buf pend; /* a CloudWatch text record that may continue on the next lines */
	int64_t pend_ts;
	size_t pend_msg;			/* where its message starts in pend */
	size_t pend_stream_at, pend_stream_len; /* a stream named in the record (tail) */
	uint64_t pend_line, pend_offset;
	int pended; /* the last line opened such a record */
	int year, last_month;
	enum lt_year_rule rule;
	int64_t head_lo, head_hi; /* the journal's time range from its header, 0 when none */
	struct text_leader leaders[TEXT_LEADERS];
	unsigned leaders_next; /* the slot a new process takes */
	int64_t line_zone_us;  /* the offset the current line's own time carried ... */
	int line_zone_set;     /* ... when it carried one */
	struct lt_buf msg, fields, text;
	/* a container log line whose partial records are being joined */
	struct lt_buf cpart_raw, cpart_msg;
	struct lt_where cpart_at;
	int64_t cpart_ts;
	int cpart_open, cpart_over;
};

static const char text_months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

const char *lt_year_rule_name(enum lt_year_rule r)
{
	static const char *const names[] = {"in the log", "--year", "audit events",
					    "file mtime", "clock",  "journal header"};

	return (unsigned)r < sizeof names / sizeof *names ? names[r] : "?";
}

/* ---- small scanners -------------------------------------------------------- */

static int text_prefix(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);

	return n >= k && memcmp(s, lit, k) == 0;
}

static int text_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "Apr 05 06:04:04[.857303] " or "Sep  3 07:35:28 ": the bytes taken, 0 if none. */
static size_t text_short_date(const char *s, size_t n, int *mon, int *day, int64_t *tod)
{
	const char *m;
	size_t i = 15;
	int64_t us = 0, scale = 1000000;
	int hh, mm, ss;

	if (n < 17 || s[3] != ' ' || s[6] != ' ' || s[9] != ':' || s[12] != ':')
		return 0;
	if ((m = memmem(text_months, 36, s, 3)) == NULL || (m - text_months) % 3 != 0)
		return 0;
	if (!text_is_digit(s[5]) || (s[4] != ' ' && !text_is_digit(s[4])))
		return 0;
	for (size_t k = 7; k < 15; k++)
		if (k != 9 && k != 12 && !text_is_digit(s[k]))
			return 0;
	if (s[i] == '.')
		for (i++; i < n && text_is_digit(s[i]); i++)
			if (scale > 1)
				us += (s[i] - '0') * (scale /= 10);
	if (i >= n || s[i] != ' ')
		return 0;
	hh = (s[7] - '0') * 10 + s[8] - '0';
	mm = (s[10] - '0') * 10 + s[11] - '0';
	ss = (s[13] - '0') * 10 + s[14] - '0';
	/* "25:61:61" is no time of day: it would spill into the next day */
	if (hh > 23 || mm > 59 || ss > 60)
		return 0;
	*mon = (int)((m - text_months) / 3) + 1;
	*day = (s[4] == ' ' ? 0 : s[4] - '0') * 10 + (s[5] - '0');
	*tod = ((int64_t)hh * 3600 + mm * 60 + ss) * 1000000 + us;
	return *day >= 1 && *day <= 31 ? i + 1 : 0;
}

/* The offset for the current line's klog (and zone-less) times. */
static int64_t text_zone(const struct parser_textlog *t)
{
	return t->line_zone_set ? t->line_zone_us : t->sink->utc_offset_us;
}

/*
 * An RFC 3339 time as the first word: the bytes taken with its space, 0 if
 * none; *zone_us gets its offset (local minus UTC) when zone_us is given.
 */
static size_t text_iso(const char *s, size_t n, int64_t *us, int64_t *zone_us)
{
	int64_t zone;

	const char *sp;
	size_t k;

	if (n < 21 || !text_is_digit(s[0]) || s[4] != '-' || s[10] != 'T')
		return 0;
	sp = memchr(s, ' ', n < 48 ? n : 48);
	k = sp ? (size_t)(sp - s) : n;
	if (lt_time_parse_zone(us, zone_us ? zone_us : &zone, s, k) != 0)
		return 0;
	return sp ? k + 1 : k;
}

/* "IDENT[PID]: " or, with no pid allowed, "IDENT: ": the bytes taken, 0 if none. */
static size_t text_ident(struct lt_log_line *ln, const char *s, size_t n, int need_pid)
{
	size_t i = 0, p;

	while (i < n && s[i] != '[' && s[i] != ':' && s[i] != ' ')
		i++;
	if (i == 0 || i >= n)
		return 0;
	ln->ident = (struct lt_str){s, i};
	ln->pid = -1;
	if (s[i] == '[') {
		for (p = ++i, ln->pid = 0; i < n && text_is_digit(s[i]) && i - p < 10; i++)
			ln->pid = ln->pid * 10 + (s[i] - '0');
		if (i == p || i + 1 >= n || s[i] != ']')
			return 0;
		i++;
	} else if (need_pid) {
		return 0;
	}
	if (i >= n || s[i] != ':')
		return 0;
	i++;
	return i < n && s[i] == ' ' ? i + 1 : i;
}

/* ---- years ----------------------------------------------------------------- */

static int64_t text_stamp(int year, int mon, int day, int64_t tod)
{
	return lt_time_days_from_civil(year, (unsigned)mon, (unsigned)day) * TEXT_DAY_US + tod;
}

/* The year that puts (mon, day, tod) nearest to the time ref. */
static int text_year_near(int64_t ref, int mon, int day, int64_t tod)
{
	int y = lt_time_year(ref), best = y;
	int64_t best_d = -1;

	for (int c = y - 1; c <= y + 1; c++) {
		int64_t d = llabs(text_stamp(c, mon, day, tod) - ref);

		if (best_d < 0 || d < best_d)
			best = c, best_d = d;
	}
	return best;
}

/* The year that puts (mon, day, tod) within [lo, hi], or nearest to it. */
static int text_year_within(int64_t lo, int64_t hi, int mon, int day, int64_t tod)
{
	int best = lt_time_year(lo), best_set = 0;
	int64_t best_d = 0;

	for (int c = lt_time_year(lo) - 1; c <= lt_time_year(hi) + 1; c++) {
		int64_t t = text_stamp(c, mon, day, tod);
		int64_t d = t < lo ? lo - t : t > hi ? t - hi : 0;

		if (!best_set || d < best_d)
			best = c, best_d = d, best_set = 1;
	}
	return best;
}

static void text_year_pick(struct parser_textlog *t, int mon, int day, int64_t tod)
{
	const struct lt_sink *s = t->sink;
	int64_t ref;

	if (s->year > 0) {
		t->year = s->year, t->rule = LT_YEAR_GIVEN;
		return;
	}
	if (t->head_hi > 0) {
		t->year = text_year_within(t->head_lo, t->head_hi, mon, day, tod);
		t->rule = LT_YEAR_HEADER;
		return;
	}
	if (s->year_hi_us > 0) {
		t->year = text_year_within(s->year_lo_us, s->year_hi_us, mon, day, tod);
		t->rule = LT_YEAR_AUDIT;
		return;
	}
	t->rule = t->mtime > 0 ? LT_YEAR_MTIME : LT_YEAR_CLOCK;
	ref = (t->mtime > 0 ? t->mtime : (int64_t)time(NULL)) * 1000000;
	/* a log is written before the file's last change: not after it (allow a clock skew) */
	t->year = lt_time_year(ref);
	if (text_stamp(t->year, mon, day, tod) > ref + 2 * TEXT_DAY_US)
		t->year--;
}

/* The year of the file's next year-less time; Dec -> Jan moves it on. */
static int text_year(struct parser_textlog *t, int mon, int day, int64_t tod)
{
	if (t->year == 0)
		text_year_pick(t, mon, day, tod);
	else if (t->last_month - mon > 6)
		t->year++;
	else if (mon - t->last_month > 6)
		t->year--; /* a file read newest first (journalctl -r) */
	t->last_month = mon;
	return t->year;
}

/* ---- lines to records ------------------------------------------------------ */

/* Where a record starts; the caller counts it in t->index once it is one. */
static struct lt_where text_where(struct parser_textlog *t, uint64_t line, uint64_t offset)
{
	struct lt_where at = {t->path, line, offset, t->index, {NULL, 0}, {NULL, 0}};

	return at;
}

static int text_reject(struct parser_textlog *t, const struct lt_where *at, const char *reason)
{
	if (at->offset < t->sink->resume_offset)
		return 0;
	return t->sink->reject(at, reason, t->ctx);
}

const char *parser_stream_component(struct lt_str stream)
{
	static const char *const comps[] = {
	    "kube-apiserver-audit",
	    "kube-controller-manager",
	    "cloud-controller-manager",
	    "kube-scheduler",
	    "kube-apiserver",
	    "authenticator",
	    "kubelet",
	};

	for (size_t i = 0; stream.ptr && i < sizeof comps / sizeof *comps; i++)
		if (text_prefix(stream.ptr, stream.len, comps[i]))
			return comps[i];
	return NULL;
}

/* kubelet under its other names; other units keep their own. */
static struct lt_str text_ident_component(struct lt_str ident, int is_klog)
{
	static const char *const kubelets[] = {"kubelet", "kubenswrapper", "hyperkube"};

	for (size_t i = 0; i < sizeof kubelets / sizeof *kubelets; i++)
		if (lt_str_eq(ident, kubelets[i]))
			return (struct lt_str){"kubelet", 7};
	/* a containerized kubelet logs as docker[PID]: klog there is the kubelet's */
	if (is_klog && (lt_str_eq(ident, "docker") || lt_str_eq(ident, "dockerd")))
		return (struct lt_str){"kubelet", 7};
	return ident;
}

static const char *text_kind_owner(const char *kind)
{
	for (const struct lt_log_kind *k = lt_log_kinds(); kind && k->kind; k++)
		if (k->kind == kind)
			return strcmp(k->component, "any") == 0 ? NULL : k->component;
	return NULL;
}

static void text_component(struct parser_textlog *t, struct lt_log_line *ln)
{
	const char *c;

	if (ln->component.ptr != NULL)
		return;
	if (ln->ident.ptr != NULL)
		ln->component = text_ident_component(ln->ident, ln->severity != 0);
	else if ((c = text_kind_owner(ln->kind)) != NULL || (c = t->path_component) != NULL)
		ln->component = (struct lt_str){c, strlen(c)};
}

/* The slot of the line's process, or NULL. */
static struct text_leader *text_leader_of(struct parser_textlog *t, struct lt_str component,
					  int64_t pid)
{
	for (unsigned i = 0; i < TEXT_LEADERS; i++) {
		struct text_leader *e = &t->leaders[i];

		if (e->lease[0] != '\0' && e->pid == pid && lt_str_eq(component, e->component))
			return e;
	}
	return NULL;
}

/*
 * client-go's leader election names its lease when it tries, gets or
 * fails to renew it ("attempting to acquire leader lease kube-system/
 * kube-scheduler..."), not when it loses it ("leaderelection lost"), a
 * lock update fails or it sees a new leader ("new leader elected: HOLDER"
 * names the holder).  Those take the lease their process named last, so
 * they land on that lease's timeline.  A process is its component and pid;
 * a container's log (no component known) is one process per thread id.
 */
static void text_leader_lease(struct parser_textlog *t, struct lt_log_line *ln)
{
	struct lt_str comp = ln->component.ptr ? ln->component : (struct lt_str){"", 0};
	struct text_leader *e;

	if (ln->kind == NULL || strncmp(ln->kind, "leader-", 7) != 0 ||
	    comp.len >= sizeof e->component)
		return;
	e = text_leader_of(t, comp, ln->pid);
	if (ln->subject.ptr == NULL) {
		if (e != NULL)
			ln->subject = (struct lt_str){e->lease, strlen(e->lease)};
		return;
	}
	if (ln->subject.len >= sizeof e->lease)
		return;
	if (e == NULL) {
		e = &t->leaders[t->leaders_next++ % TEXT_LEADERS];
		memcpy(e->component, comp.ptr, comp.len);
		e->component[comp.len] = '\0';
		e->pid = ln->pid;
	}
	memcpy(e->lease, ln->subject.ptr, ln->subject.len);
	e->lease[ln->subject.len] = '\0';
}

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
	size_t h = parser_klog_header(&k, msg, len);
	int year;

	if (h == 0)
		return 0;
	if (ln->ts_us != 0) {
		year = text_year_near(ln->ts_us + text_zone(t), k.month, k.day, k.tod_us);
	} else {
		year = text_year(t, k.month, k.day, k.tod_us);
		ln->year_rule = t->rule;
	}
	ln->klog_us = text_stamp(year, k.month, k.day, k.tod_us) - text_zone(t);
	if (ln->ts_us == 0 || text_refines(ln->ts_us, ln->klog_us))
		ln->ts_us = ln->klog_us;
	ln->severity = k.severity;
	ln->location = k.location;
	if (ln->pid < 0)
		ln->pid = k.thread;
	return h;
}

/* Message and fields from the payload; text = "message fields-as-written" for the classifier. */
static void text_payload(struct parser_textlog *t, struct lt_log_line *ln, const char *p,
			 size_t len)
{
	size_t tail = parser_klog_payload(&t->msg, &t->fields, p, len);

	lt_buf_reset(&t->text);
	lt_buf_append(&t->text, t->msg.ptr ? t->msg.ptr : "", t->msg.len);
	while (tail < len && p[tail] == ' ')
		tail++;
	if (tail < len) {
		lt_buf_putc(&t->text, ' ');
		lt_buf_append(&t->text, p + tail, len - tail);
	}
	ln->message = (struct lt_str){t->msg.ptr ? t->msg.ptr : "", t->msg.len};
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
	if (ln->ts_us == 0 || text_refines(ln->ts_us, ln->klog_us))
		ln->ts_us = ln->klog_us;
	ln->severity = j.severity;
	ln->location = j.caller;
	ln->message = j.msg;
	ln->fields = (struct lt_str){p, len};
	lt_buf_reset(&t->text); /* the message and the pairs, as klog would have written them */
	lt_buf_append(&t->text, j.msg.ptr, j.msg.len);
	lt_buf_append(&t->text, t->fields.ptr ? t->fields.ptr : "", t->fields.len);
	return 1;
}

int parser_textlog_message(struct parser_textlog *t, struct lt_log_line *ln, const char *msg,
			   size_t len, const struct lt_where *at)
{
	size_t h = text_klog(t, ln, msg, len);
	int json = h == 0 && text_jsonlog(t, ln, msg, len);

	if (ln->ts_us == 0)
		return text_reject(t, at,
				   "a log line without a time: no journal date, no klog header");
	if (!json)
		text_payload(t, ln, msg + h, len - h);
	if (t->cls == NULL)
		t->cls = parser_classifier_new();
	parser_classify(t->cls, ln, t->text.ptr ? t->text.ptr : "", t->text.len);
	text_component(t, ln);
	text_leader_lease(t, ln);
	if (at->offset < t->sink->resume_offset)
		return 0;
	return t->sink->log(ln, at, t->ctx);
}

static void text_line_init(struct lt_log_line *ln, const char *s, size_t n)
{
	memset(ln, 0, sizeof *ln);
	ln->raw = (struct lt_str){s, n};
	ln->pid = -1;
}

/* ---- CloudWatch text records (may go on over several lines) ----------------- */

static int text_pend_emit(struct parser_textlog *t)
{
	struct lt_log_line ln;
	struct lt_where at;
	const char *msg;
	size_t len;

	at = text_where(t, t->pend_line, t->pend_offset);
	t->index++;
	if (t->pend_stream_len > 0)
		at.stream = (struct lt_str){t->pend.ptr + t->pend_stream_at, t->pend_stream_len};
	else if (t->stream[0] != '\0')
		at.stream = (struct lt_str){t->stream, strlen(t->stream)};
	msg = t->pend.ptr + t->pend_msg;
	len = t->pend.len - t->pend_msg;
	if (len > 0 && msg[0] == '{') {
		if (at.offset < t->sink->resume_offset)
			return 0;
		return t->route(msg, len, &at, t->route_ctx);
	}
	text_line_init(&ln, t->pend.ptr, t->pend_msg + len);
	ln.ts_us = t->pend_ts;
	if (at.stream.ptr) {
		const char *c = parser_stream_component(at.stream);

		if (c)
			ln.component = (struct lt_str){c, strlen(c)};
	}
	return parser_textlog_message(t, &ln, msg, len, &at);
}

/* Hands on the CloudWatch text record held in pend, if any, and empties pend. */
static int text_pend_flush(struct parser_textlog *t)
{
	int rc;

	if (t->pend.len == 0)
		return 0;
	rc = text_pend_emit(t);
	lt_buf_reset(&t->pend);
	return rc;
}

/* "TIME MESSAGE" (S3 export) or "TIME STREAM MESSAGE" (aws logs tail). */
static int text_cloudwatch(struct parser_textlog *t, const char *s, size_t n, size_t took,
			   int64_t ts)
{
	struct parser_klog k;
	const char *sp = took < n ? memchr(s + took, ' ', n - took) : NULL;
	size_t msg = took, slen = 0;

	if (sp != NULL && sp + 1 < s + n && s[took] != '{' &&
	    parser_klog_header(&k, s + took, n - took) == 0 &&
	    (sp[1] == '{' || parser_klog_header(&k, sp + 1, n - (size_t)(sp + 1 - s)) > 0)) {
		slen = (size_t)(sp - (s + took)); /* the tail form names the stream */
		msg = took + slen + 1;
	}
	lt_buf_reset(&t->pend);
	lt_buf_append(&t->pend, s, n);
	t->pend_msg = msg;
	t->pend_ts = ts;
	t->pend_line = t->line_no;
	t->pend_offset = t->offset;
	t->pend_stream_at = took;
	t->pend_stream_len = slen;
	t->pended = 1;
	return 0;
}

/* ---- container runtime logs ------------------------------------------------ */

/*
 * A container runtime writes a line over 16 KiB as partial records, the
 * last one closing it (CRI: tag P, then F; docker json-file: a "log"
 * without its newline).  The parts become one line again, their raw lines
 * joined by newlines, at the first part's time and place.
 */
static int text_cpart_flush(struct parser_textlog *t)
{
	struct lt_where at = t->cpart_at;
	struct lt_log_line ln;

	if (!t->cpart_open)
		return 0;
	t->cpart_open = 0;
	if (t->cpart_over) {
		t->cpart_over = 0;
		return text_reject(t, &at, "over-long line (more than 1 MiB in partial records)");
	}
	text_line_init(&ln, t->cpart_raw.ptr, t->cpart_raw.len);
	ln.ts_us = t->cpart_ts;
	return parser_textlog_message(t, &ln, t->cpart_msg.ptr ? t->cpart_msg.ptr : "",
				      t->cpart_msg.len, &at);
}

int parser_textlog_container(struct parser_textlog *t, struct lt_log_line *ln, const char *msg,
			     size_t len, int partial, const struct lt_where *at)
{
	if (!partial && !t->cpart_open)
		return parser_textlog_message(t, ln, msg, len, at);
	if (!t->cpart_open) {
		t->cpart_open = 1;
		t->cpart_ts = ln->ts_us;
		t->cpart_at = *at;
		t->cpart_at.stream = t->cpart_at.ext_id = (struct lt_str){NULL, 0};
		lt_buf_reset(&t->cpart_raw);
		lt_buf_reset(&t->cpart_msg);
	} else {
		lt_buf_putc(&t->cpart_raw, '\n');
	}
	if (t->cpart_raw.len + ln->raw.len + t->cpart_msg.len + len > TEXT_MAX_LINE) {
		t->cpart_over = 1;
	} else {
		lt_buf_append(&t->cpart_raw, ln->raw.ptr, ln->raw.len);
		lt_buf_append(&t->cpart_msg, msg, len);
	}
	return partial ? 0 : text_cpart_flush(t);
}

/*
 * After a CRI line's time (containerd, CRI-O: /var/log/pods/.../0.log):
 * "stdout F " or "stderr P " (later tags follow a colon: "F:x").  The bytes
 * taken, 0 if it is not one; *partial for tag P.
 */
static size_t text_cri_tag(const char *s, size_t n, int *partial)
{
	size_t i = 8;

	if (n < 8 || (!text_prefix(s, n, "stdout ") && !text_prefix(s, n, "stderr ")) ||
	    (s[7] != 'F' && s[7] != 'P'))
		return 0;
	if (i < n && s[i] == ':')
		while (i < n && s[i] != ' ')
			i++;
	if (i < n && s[i] != ' ')
		return 0;
	*partial = s[7] == 'P';
	return i < n ? i + 1 : i;
}

/* Lets go what waits for more lines: a CloudWatch record, a container line's parts. */
static int text_held_flush(struct parser_textlog *t)
{
	int rc = text_pend_flush(t);

	return rc != 0 ? rc : text_cpart_flush(t);
}

/* True when a line is a CRI line (it goes on with a partial one). */
static int text_cri_line(const char *s, size_t n)
{
	int64_t us;
	size_t took = text_iso(s, n, &us, NULL);
	int partial;

	return took > 0 && text_cri_tag(s + took, n - took, &partial) > 0;
}

/* ---- one line -------------------------------------------------------------- */

/* A journal line after its date: "HOST IDENT[PID]: MESSAGE". */
static int text_journal(struct parser_textlog *t, struct lt_log_line *ln, const char *s, size_t n,
			const struct lt_where *at)
{
	const char *sp = memchr(s, ' ', n);
	size_t took;

	if (sp == NULL || sp == s)
		return text_reject(t, at, "a journal line without a host name");
	ln->host = (struct lt_str){s, (size_t)(sp - s)};
	s = sp + 1;
	n -= ln->host.len + 1;
	if ((took = text_ident(ln, s, n, 0)) == 0)
		ln->ident = (struct lt_str){NULL, 0}; /* no "IDENT:": the rest is the message */
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
	return text_ident(&probe, sp + 1, rest, 0) > 0;
}

static int text_dated(struct parser_textlog *t, struct lt_log_line *ln, const char *s, size_t n,
		      const struct lt_where *at)
{
	int64_t ts, tod, zone;
	int mon, day, partial;
	size_t took, tag;

	if ((took = text_short_date(s, n, &mon, &day, &tod)) > 0) {
		ln->ts_us = text_stamp(text_year(t, mon, day, tod), mon, day, tod) - text_zone(t);
		ln->year_rule = t->rule;
		return text_journal(t, ln, s + took, n - took, at);
	}
	if ((took = text_iso(s, n, &ts, &zone)) == 0)
		return 1;
	/* a CRI line: the runtime's time is exact; the klog time is the container's own zone */
	if ((tag = text_cri_tag(s + took, n - took, &partial)) > 0) {
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
	return text_cloudwatch(t, s, n, took, ts);
}

static int text_header_line(const char *s, size_t n)
{
	return text_prefix(s, n, "-- Logs begin at") || text_prefix(s, n, "-- Journal begins at") ||
	       text_prefix(s, n, "-- No entries --") || text_prefix(s, n, "-- Reboot --") ||
	       text_prefix(s, n, "-- Boot ");
}

/* The first "YYYY-MM-DD HH:MM:SS" in s[0..n) as µs (taken as UTC, like the lines); 0 if none. */
static int64_t text_header_date(const char *s, size_t n, size_t *used)
{
	static const char shape[] = "dddd-dd-dd dd:dd:dd";
	const size_t w = sizeof shape - 1;
	char iso[sizeof shape + 1];
	int64_t us;

	for (size_t i = 0; i + w <= n; i++) {
		size_t k = 0;

		while (k < w && (shape[k] == 'd' ? s[i + k] >= '0' && s[i + k] <= '9'
						 : s[i + k] == shape[k]))
			k++;
		if (k < w)
			continue;
		memcpy(iso, s + i, w);
		iso[w] = 'Z';
		if (lt_time_parse(&us, iso, w + 1) == 0) {
			*used = i + w;
			return us;
		}
	}
	return 0;
}

/*
 * "-- Logs begin at Fri 2024-04-05 05:50:00 UTC, end at Fri 2024-04-05
 * 06:04:39 UTC. --" (or "Journal begins at ..., ends at ..."): the range
 * every line below lies in, which gives year-less times their year.
 * Without an end, the year after the beginning.
 */
static void text_header_range(struct parser_textlog *t, const char *s, size_t n)
{
	size_t used = 0, more = 0;
	int64_t lo, hi;

	if (!text_prefix(s, n, "-- Logs begin at") && !text_prefix(s, n, "-- Journal begins at"))
		return;
	if ((lo = text_header_date(s, n, &used)) <= 0)
		return;
	hi = text_header_date(s + used, n - used, &more);
	t->head_lo = lo;
	t->head_hi = hi >= lo ? hi : lo + 365 * TEXT_DAY_US;
}

/* True when a line opens a record of its own rather than going on with the last one. */
static int text_opens_record(const char *s, size_t n)
{
	int64_t us;

	return text_iso(s, n, &us, NULL) > 0;
}

/* A line with no date of its own: bare klog, or a "kubelet[PID]: E0124 ..." fragment. */
static int text_undated(struct parser_textlog *t, struct lt_log_line *ln, const char *s, size_t n,
			const struct lt_where *at)
{
	struct parser_klog k;
	size_t took;

	if (parser_klog_header(&k, s, n) > 0)
		return parser_textlog_message(t, ln, s, n, at);
	if ((took = text_ident(ln, s, n, 1)) > 0)
		return parser_textlog_message(t, ln, s + took, n - took, at);
	return text_reject(t, at,
			   "not a log line: no journal date, klog header or ISO time "
			   "(a wrapped line, a fragment?)");
}

static int text_line(struct parser_textlog *t, const char *s, size_t n)
{
	struct lt_log_line ln;
	struct lt_where at;
	int rc;

	while (n > 0 && s[n - 1] == '\r')
		n--;
	t->line_zone_set = 0;
	if (t->cpart_open && !text_cri_line(s, n) && (rc = text_cpart_flush(t)) != 0)
		return rc;
	if (n == 0 || text_header_line(s, n)) {
		text_header_range(t, s, n);
		return text_pend_flush(t);
	}
	if (t->pend.len > 0 && !text_opens_record(s, n)) {
		/* a CloudWatch message going on over lines (a stack trace, a multi-line value) */
		if (t->pend.len + n < TEXT_MAX_LINE) {
			lt_buf_putc(&t->pend, '\n');
			lt_buf_append(&t->pend, s, n);
		}
		return 0;
	}
	if ((rc = text_pend_flush(t)) != 0)
		return rc;
	text_line_init(&ln, s, n);
	at = text_where(t, t->line_no, t->offset);
	t->pended = 0;
	rc = text_dated(t, &ln, s, n, &at);
	if (rc == 1)
		rc = text_undated(t, &ln, s, n, &at);
	if (!t->pended)
		t->index++;
	return rc;
}

/* ---- the stream of bytes ----------------------------------------------------- */

/* A CRI pod log's name: "0.log", rotated "0.log.20240405-060404" or "0.log.…gz". */
static int text_cri_log_name(const char *base)
{
	const char *p = base;

	while (text_is_digit(*p))
		p++;
	return p > base && strncmp(p, ".log", 4) == 0 && (p[4] == '\0' || p[4] == '.');
}

/*
 * The component a file name hints at, for bare klog files that say
 * nothing else.  A CRI pod log (/var/log/pods/NS_POD_UID/CONTAINER/0.log)
 * is named by its folder, the container.
 */
static const char *text_path_component(const char *path)
{
	const char *base = strrchr(path, '/'), *dir;
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (text_cri_log_name(base) && base - path >= 2) {
		for (dir = base - 1; dir > path && dir[-1] != '/'; dir--)
			;
		len = (size_t)(base - 1 - dir);
		base = dir;
	}
	if (memmem(base, len, "controller-manager", 18) || memmem(base, len, "kcm", 3))
		return "kube-controller-manager";
	if (memmem(base, len, "scheduler", 9))
		return "kube-scheduler";
	if (memmem(base, len, "kubelet", 7))
		return "kubelet";
	return NULL;
}

/* An S3 export object sits in a folder named after its stream: ".../STREAM/000000.gz". */
static void text_path_stream(struct parser_textlog *t, const char *path)
{
	const char *end = strrchr(path, '/'), *start;
	struct lt_str dir;

	if (end == NULL)
		return;
	for (start = end; start > path && start[-1] != '/'; start--)
		;
	dir = (struct lt_str){start, (size_t)(end - start)};
	if (dir.len < sizeof t->stream && parser_stream_component(dir) != NULL) {
		memcpy(t->stream, dir.ptr, dir.len);
		t->stream[dir.len] = '\0';
	}
}

struct parser_textlog *parser_textlog_new(const struct lt_sink *sink, void *ctx,
					  struct lt_input *in, parser_json_route_fn route,
					  void *route_ctx)
{
	struct parser_textlog *t = lt_xcalloc(1, sizeof *t);

	t->sink = sink;
	t->ctx = ctx;
	t->route = route;
	t->route_ctx = route_ctx;
	t->path = in ? lt_input_path(in) : "-";
	t->mtime = in ? lt_input_mtime(in) : 0;
	t->path_component = text_path_component(t->path);
	text_path_stream(t, t->path);
	t->line_no = 1;
	lt_buf_init(&t->part);
	lt_buf_init(&t->pend);
	lt_buf_init(&t->msg);
	lt_buf_init(&t->fields);
	lt_buf_init(&t->text);
	lt_buf_init(&t->cpart_raw);
	lt_buf_init(&t->cpart_msg);
	return t;
}

void parser_textlog_free(struct parser_textlog *t)
{
	if (t == NULL)
		return;
	parser_classifier_free(t->cls);
	lt_buf_release(&t->part);
	lt_buf_release(&t->pend);
	lt_buf_release(&t->msg);
	lt_buf_release(&t->fields);
	lt_buf_release(&t->text);
	lt_buf_release(&t->cpart_raw);
	lt_buf_release(&t->cpart_msg);
	free(t);
}

/* The first run of at least PARSER_ZERO_BLOCK zero bytes in s: its start, and its length in *run.
 */
static const char *text_zero_run(const char *s, size_t n, size_t *run)
{
	const char *end = s + n, *z;

	while ((z = memchr(s, 0, (size_t)(end - s))) != NULL) {
		for (*run = 0; z + *run < end && z[*run] == 0;)
			++*run;
		if (*run >= PARSER_ZERO_BLOCK)
			return z;
		s = z + *run;
	}
	return NULL;
}

/*
 * A line holding a run of zero bytes: a block the file system zeroed in a
 * crash, with the writer going on after it.  What comes before the zeros
 * was cut off and is rejected; what follows starts a line of its own.
 */
static int text_line_zeroed(struct parser_textlog *t, const char *s, size_t n)
{
	size_t pre, run = 0;
	const char *z = text_zero_run(s, n, &run);
	struct lt_where at;
	char reason[128];
	int rc;

	if (z == NULL)
		return text_line(t, s, n);
	pre = (size_t)(z - s);
	if ((rc = text_held_flush(t)) != 0)
		return rc;
	snprintf(reason, sizeof reason, "%s %zu zero bytes (a block zeroed by a crash?)",
		 pre > 0 ? "line cut off by" : "skipped", run);
	at = text_where(t, t->line_no, t->offset);
	t->index++;
	if ((rc = text_reject(t, &at, reason)) != 0 || pre + run == n)
		return rc;
	t->offset += pre + run;
	return text_line_zeroed(t, s + pre + run, n - pre - run);
}

/* A whole line is there (its bytes s[0..n), without the newline). */
static int text_take(struct parser_textlog *t, const char *s, size_t n, uint64_t next_offset)
{
	int rc;

	if (t->part_over) {
		struct lt_where at = text_where(t, t->line_no, t->offset);

		t->index++;
		rc = text_reject(t, &at, "over-long line (more than 1 MiB): skipped");
	} else {
		/* a UTF-8 byte order mark (Windows editors, some exports) is not the first line's
		 */
		if (t->offset == 0 && n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
			s += 3, n -= 3;
		rc = text_line_zeroed(t, s, n);
	}
	t->part_over = 0;
	t->line_no++;
	t->offset = next_offset;
	return rc;
}

int parser_textlog_feed(struct parser_textlog *t, const char *buf, size_t len)
{
	size_t i = 0;
	int rc = 0;

	while (i < len && rc == 0) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (buf + i)) : len - i;
		uint64_t next = t->offset + t->part.len + n + 1;

		/* a whole line in buf is taken in place, unless too long: that is a reject
		 * however the bytes were chunked */
		if (t->part.len == 0 && !t->part_over && nl && n <= TEXT_MAX_LINE) {
			rc = text_take(t, buf + i, n, next);
		} else {
			if (t->part.len + n > TEXT_MAX_LINE)
				t->part_over = 1;
			else
				lt_buf_append(&t->part, buf + i, n);
			if (nl) {
				rc =
				    text_take(t, t->part.ptr ? t->part.ptr : "", t->part.len, next);
				lt_buf_reset(&t->part);
			}
		}
		i += n + (nl != NULL);
	}
	return rc;
}

int parser_textlog_finish(struct parser_textlog *t)
{
	int rc = 0;

	if (t->part.len > 0 || t->part_over)
		rc = text_take(t, t->part.ptr ? t->part.ptr : "", t->part.len,
			       t->offset + t->part.len);
	lt_buf_reset(&t->part);
	return rc != 0 ? rc : text_held_flush(t);
}

/* ---- sniffing -------------------------------------------------------------- */

/* A line that can only be a log line: a journal date, a klog header, an ISO time, a fragment. */
static int text_known_line(const char *s, size_t n)
{
	struct lt_log_line ln;
	struct parser_klog k;
	int64_t us, tod;
	int mon, day;

	return text_header_line(s, n) || text_short_date(s, n, &mon, &day, &tod) > 0 ||
	       parser_klog_header(&k, s, n) > 0 || text_iso(s, n, &us, NULL) > 0 ||
	       text_ident(&ln, s, n, 1) > 0;
}

int parser_text_sniff(const char *buf, size_t len)
{
	size_t i = 0;

	for (int lines = 0; i < len && lines < 64; lines++) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (buf + i)) : len - i;

		if (text_known_line(buf + i, n))
			return 1;
		i += n + 1;
	}
	return 0;
}
