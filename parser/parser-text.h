/*
 * parser-text.h - what the files of the text reader share (parser-text*.c):
 * the reader's state and the functions one file gives the others.  Private
 * to those files; the rest of the parser sees parser_textlog_* in
 * parser-int.h only.
 */
#ifndef PARSER_TEXT_H
#define PARSER_TEXT_H

#include "parser-int.h"

#include <string.h>

/* Leader-election processes of one file whose lease name is remembered. */
#define PARSER_TEXT_LEADERS 8

/* A line longer than this is hostile or not a log line; it is skipped and reported. */
#define PARSER_TEXT_MAX_LINE (1024u * 1024)
#define PARSER_TEXT_DAY_US   (86400LL * 1000000)

/* Untimed lines at the top of a file wait for the first time, up to this many (and bytes). */
#define PARSER_TEXT_HELD       64
#define PARSER_TEXT_HELD_BYTES (64u * 1024)

/* One such line: where it is, its bytes in the held buffer, why it would be rejected. */
struct parser_text_held {
	struct lt_where at; /* its ext_id and stream point into held (rebased when handed on) */
	size_t start, len;  /* the line, then ext_id's and stream's bytes, in held */
	const char *reason;
};

/* The lease a process (component and pid) last named in a leader-election line. */
struct parser_text_leader {
	char component[64];
	int64_t pid;
	char lease[256];
};

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
	int part_over;		       /* that line passed PARSER_TEXT_MAX_LINE */
	uint64_t line_no, offset, index;
	struct lt_buf pend; /* a CloudWatch text record that may continue on the next lines */
	int64_t pend_ts;
	size_t pend_msg;			/* where its message starts in pend */
	size_t pend_stream_at, pend_stream_len; /* a stream named in the record (tail) */
	uint64_t pend_line, pend_offset;
	int pended; /* the last line opened such a record */
	int year, last_month;
	enum lt_year_rule rule;
	struct lt_time_basis basis; /* the file's year and zone rules, handed out with each line */
	/* a journal boot separator ("-- Boot ID --", "-- Reboot --"): a record of its own, kept
	 * until the next journal line, whose time and host it takes (it has neither) */
	char boot[96];
	size_t boot_len;
	uint64_t boot_line, boot_offset;
	struct parser_text_leader leaders[PARSER_TEXT_LEADERS];
	unsigned leaders_next; /* the slot a new process takes */
	int64_t line_zone_us;  /* the offset the current line's own time carried ... */
	int line_zone_set;     /* ... when it carried one */
	/* a time with its year the file's lines carry beside year-less klog times (a JSON log
	 * line's "ts", a log viewer's time glued before the header): said to the store */
	int64_t said_ref_us;
	int said_ref_zoned;
	struct lt_buf msg, fields, text;
	struct lt_buf wrap; /* a JSON record wrapping the line: what it says (parser-logwrap.c) */
	/* a line a hard wrap may have cut, held for the next line (parser-text-wrap.c) */
	struct lt_buf whold;
	int wrap_held, wrap_head_cut, wrap_noted;
	uint64_t wrap_line, wrap_offset, wrap_lines;
	size_t wrap_width; /* the paste's width in code points, once learned */
	char wrap_note[64];
	/* the klog header wrap_cut read at klog_at[0..klog_len), for the line it then reads
	 * (parser_text_klog_header): valid within one parser_text_wrap_line call only, as the
	 * bytes there may be another line's later; klog_at NULL: none */
	const char *klog_at;
	size_t klog_len, klog_took;
	struct parser_klog klog;
	/* untimed lines (parser-text-untimed.c): the last line's time, and those waiting for one */
	int64_t last_ts;
	struct lt_buf last_who; /* that line's host, then its ident (a journal's) */
	size_t last_host_len, last_ident_len;
	int64_t last_pid;
	struct lt_buf held;
	struct parser_text_held held_at[PARSER_TEXT_HELD];
	size_t nheld;
	/* a container log line whose partial records are being joined */
	struct lt_buf cpart_raw, cpart_msg, cpart_host; /* host: a syslog line's, forwarding it */
	const char *cpart_comp;				/* a static name, or NULL */
	struct lt_where cpart_at;
	int64_t cpart_ts;
	int cpart_open, cpart_over;
};

static inline int parser_text_prefix(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);

	return n >= k && memcmp(s, lit, k) == 0;
}

static inline int parser_text_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* ---- scanners (parser-text-scan.c): the bytes taken, 0 when s does not start with one ---- */

/* "Apr 05 06:04:04[.857303] " or "Sep  3 07:35:28 ": month, day and time of day. */
size_t parser_text_short_date(const char *s, size_t n, int *mon, int *day, int64_t *tod);

/* An RFC 3339 time as the first word, with its space; *zone_us its offset when zone_us is given. */
size_t parser_text_iso(const char *s, size_t n, int64_t *us, int64_t *zone_us);

/* "IDENT[PID]: " or, unless need_pid, "IDENT: ": fills ln->ident and ln->pid. */
size_t parser_text_ident(struct lt_log_line *ln, const char *s, size_t n, int need_pid);

/*
 * A log viewer's local time glued before a klog header (Rancher's UI export: "4/28/2016 9:29:37
 * AME0428 16:29:37.103725 ..."): month/day/year, a 12-hour time with AM or PM (or a 24-hour
 * one), any spaces after it.  *us the time as if UTC.  The bytes taken, 0 if none.
 */
size_t parser_text_ui_time(const char *s, size_t n, int64_t *us);

/* A CRI record "TIME stdout F " at s (inside a syslog line): the bytes taken, 0 if none. */
size_t parser_text_cri_record(const char *s, size_t n, int64_t *us, int *partial);

/* True for journalctl's own lines: "-- Logs begin at ...", "-- Reboot --", ... */
int parser_text_header_line(const char *s, size_t n);

/*
 * The first full date written in a message ("2019-05-16 19:33:17.2299 +0000 UTC",
 * "2024-04-05T06:04:04Z"): its time in *us (UTC when it has a zone, else as if UTC), *zoned
 * 1 when it has one.  0 when none.
 */
int parser_text_said(const char *s, size_t n, int64_t *us, int *zoned);

/* ---- years and zones (parser-text-year.c) ---- */

/* The file's basis before its first line: its mtime, --utc-offset (t->sink, t->mtime set). */
void parser_text_basis_init(struct parser_textlog *t);

/* The offset for the current line's klog (and zone-less) times. */
int64_t parser_text_zone(const struct parser_textlog *t);

/* µs since the epoch of a local date and time of day in a given year (no zone applied). */
int64_t parser_text_stamp(int year, int mon, int day, int64_t tod);

/* The year that puts (mon, day, tod) nearest to the time ref. */
int parser_text_year_near(int64_t ref, int mon, int day, int64_t tod);

/* The year of the file's next year-less time (picked on the first; Dec -> Jan moves it on). */
int parser_text_year(struct parser_textlog *t, int mon, int day, int64_t tod);

/* A journal header line's "begin at ..., end at ..." becomes the range years are picked in. */
void parser_text_header_range(struct parser_textlog *t, const char *s, size_t n);

/* ---- the reader (parser-text.c) ---- */

/* Where a record starts; the caller counts it in t->index once it is one. */
struct lt_where parser_text_where(struct parser_textlog *t, uint64_t line, uint64_t offset);

/* A rejected line, unless it lies before the resume offset. */
int parser_text_reject(struct parser_textlog *t, const struct lt_where *at, const char *reason);

/* ---- one line (parser-text-line.c) ---- */

/* An empty record for the line s[0..n): raw set, pid unknown. */
void parser_text_line_init(struct lt_log_line *ln, const char *s, size_t n);

/* One whole line, its newline (and any '\r') aside: joined first if a hard wrap cut it. */
int parser_text_line(struct parser_textlog *t, const char *s, size_t n);

/* One whole line as it is, at t->line_no and t->offset. */
int parser_text_line_one(struct parser_textlog *t, const char *s, size_t n);

/* ---- hard-wrapped pastes (parser-text-wrap.c) ---- */

/* A physical line: held while a hard wrap may have cut it, joined with the lines it goes on in. */
int parser_text_wrap_line(struct parser_textlog *t, const char *s, size_t n);

/*
 * parser_klog_header of s[0..len): the one wrap_cut read there when it read the same bytes
 * (within the same parser_text_wrap_line call), else read now.
 */
size_t parser_text_klog_header(struct parser_textlog *t, struct parser_klog *out, const char *s,
			       size_t len);

/* Reads the held line (joined or not), if any. */
int parser_text_wrap_release(struct parser_textlog *t);

/* ---- who wrote it (parser-text-component.c, parser-text-leader.c) ---- */

/* Fills ln->component when the line did not say: from its ident, its kind or the file name. */
void parser_text_component(struct parser_textlog *t, struct lt_log_line *ln);

/* The component a file name hints at (a CRI pod log: its container's folder), or NULL. */
const char *parser_text_path_component(const char *path);

/* The stream folder of an S3 export object into t->stream, when the folder names one. */
void parser_text_path_stream(struct parser_textlog *t, const char *path);

/* A leader-election line's lease: remembered when it names one, recalled when it does not. */
void parser_text_leader_lease(struct parser_textlog *t, struct lt_log_line *ln);

/* ---- lines without a time (parser-text-untimed.c) ---- */

/* Keeps a line with no time: at the last line's time, or held until one comes (else reason). */
int parser_text_untimed(struct parser_textlog *t, const char *s, size_t n,
			const struct lt_where *at, const char *reason);

/* Line ln has a time: the untimed lines after it (and those held) take it, and its host. */
int parser_text_timed(struct parser_textlog *t, const struct lt_log_line *ln);

/* Hands on the held lines at time ts, or rejects them (ts 0: no time ever came). */
int parser_text_untimed_flush(struct parser_textlog *t, int64_t ts);

/* ---- CloudWatch text records (parser-text-cloudwatch.c) ---- */

/* Holds "TIME [STREAM] MESSAGE" (took: the bytes of TIME) as the open record. */
int parser_text_cloudwatch(struct parser_textlog *t, const char *s, size_t n, size_t took,
			   int64_t ts);

/* 1 when the line goes on with the open record (and was taken), 0 when it is a line of its own. */
int parser_text_pend_continue(struct parser_textlog *t, const char *s, size_t n);

/* Hands on the open record, if any, and closes it. */
int parser_text_pend_flush(struct parser_textlog *t);

/* ---- container runtimes (parser-text-container.c) ---- */

/* After a CRI line's time: "stdout F " or "stderr P "; *partial for tag P. */
size_t parser_text_cri_tag(const char *s, size_t n, int *partial);

/* True when a line is a CRI line (it goes on with a partial one). */
int parser_text_cri_line(const char *s, size_t n);

/* parser_textlog_container for a line whose component is comp (a static name, or NULL). */
int parser_text_container_as(struct parser_textlog *t, struct lt_log_line *ln, const char *msg,
			     size_t len, int partial, const struct lt_where *at, const char *comp);

/* Hands on the container line being joined, if any. */
int parser_text_cpart_flush(struct parser_textlog *t);

#endif
