/*
 * lt_parser.h - input decoding, format sniffing and streaming parsers.
 *
 * The module above base/ (lt_base.h, included here: errors, buffers, strings,
 * time, sanitizing, regexes): it turns bytes (plain, gzip, stdin) into
 * normalized records and hands each one to a caller-provided sink.  It never
 * holds a whole file or a whole document tree in memory: input is read in
 * fixed-size chunks, cut into records by a string-aware framer, and each
 * record is decoded by yajl's callback parser.
 *
 * Conventions (see STYLE.md): fallible functions return 0 or a negative
 * enum lt_err and fill an optional struct lt_error; the out-parameter comes
 * first; _free(NULL) is a no-op; strings handed to callbacks are borrowed.
 */
#ifndef LT_PARSER_H
#define LT_PARSER_H

#include "lt_base.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- input ------------------------------------------------------------ */

struct lt_input;

/*
 * Opens path for streaming ("-" is stdin).  gzip (one or more members) is
 * recognized by its magic bytes, not by the file name.
 */
int lt_input_open(struct lt_input **out, const char *path, struct lt_error *err);

/*
 * Reads up to cap decoded bytes into buf; *got == 0 means end of input.
 * A gzip stream cut short returns LT_ERR_TRUNCATED after the last bytes
 * that decoded have been delivered.
 */
int lt_input_read(struct lt_input *in, char *buf, size_t cap, size_t *got, struct lt_error *err);

const char *lt_input_path(const struct lt_input *in);
int lt_input_is_gzip(const struct lt_input *in);
uint64_t lt_input_size(const struct lt_input *in);     /* on-disk size, 0 if unknown */
uint64_t lt_input_consumed(const struct lt_input *in); /* on-disk bytes read so far */
int64_t lt_input_mtime(const struct lt_input *in);     /* seconds, 0 if unknown */
/* True when the decoded bytes read so far end inside a line (no final newline). */
int lt_input_ends_open(const struct lt_input *in);
void lt_input_free(struct lt_input *in);

/*
 * A file's content identity: every on-disk byte read (compressed bytes for
 * gzip) goes into an XXH3-128 hash as it is read, so how far an input has
 * been read and the hash of those bytes are known at any point (a mark);
 * at the end of the input the mark is the whole file's identity.  head is
 * the hash of the first LT_INPUT_HEAD bytes (of all of them when fewer): a
 * cheap first look for the files that may share a prefix with this one.
 */
#define LT_INPUT_HEAD (64 * 1024)

struct lt_input_mark {
	uint64_t len;  /* on-disk bytes read */
	char hash[33]; /* XXH3-128 of those bytes, 32 hex digits */
	char head[33]; /* XXH3-128 of the first min(len, LT_INPUT_HEAD) of them */
};

void lt_input_mark(const struct lt_input *in, struct lt_input_mark *out);

/*
 * The XXH3-128 (hex, as in a mark) of the first lens[i] bytes of the file
 * at path, for n lengths in ascending order, reading it once up to the
 * last; out[i] is "" when the file is shorter than lens[i].
 */
int lt_hash_prefixes(char (*out)[33], const char *path, const uint64_t *lens, size_t n,
		     struct lt_error *err);

/* ---- records ------------------------------------------------------------ */

/* Where a record came from: enough to find it again in the input. */
struct lt_where {
	const char *file;     /* the path as given */
	uint64_t line;	      /* 1-based line of the record's first byte */
	uint64_t offset;      /* byte offset of that byte in the decoded stream */
	uint64_t index;	      /* 0-based record number in the file */
	struct lt_str ext_id; /* CloudWatch eventId or @ptr, when the record has one */
	struct lt_str stream; /* CloudWatch log stream name, when known */
	/* The cluster the record's envelope names (a CloudWatch log group, GKE's cluster_name,
	 * AKS's resourceId), when it does: lt_cluster_name_ok holds */
	struct lt_str cluster;
};

/*
 * Cluster names (parser-cluster.c), borrowed from the string given; absent
 * (ptr NULL) when it names none.  From a CloudWatch log group
 * "/aws/eks/NAME/cluster" (or Logs Insights' "ACCOUNT:/aws/eks/NAME/cluster"),
 * a path with a component sequence "aws/eks/NAME/cluster" (an S3 export
 * under the group's name; the rightmost wins), an Azure resource id
 * ".../managedClusters/NAME" (any case).
 */
struct lt_str lt_cluster_from_log_group(struct lt_str group);
struct lt_str lt_cluster_from_path(const char *path);
struct lt_str lt_cluster_from_resource_id(struct lt_str rid);

/* A name a cloud could have given a cluster: 1-100 of [A-Za-z0-9._-], the first alphanumeric. */
int lt_cluster_name_ok(const char *s, size_t n);

/* One kube-apiserver audit Event, normalized.  Absent fields have ptr == NULL. */
struct lt_audit_event {
	struct lt_str raw; /* the record's JSON text, exactly as read */
	struct lt_str api_version, level, audit_id, stage, request_uri, verb;
	struct lt_str username, groups; /* groups joined with ',' */
	struct lt_str impersonated_user, source_ip, user_agent;
	struct lt_str resource, subresource, namespace_, name, api_group, obj_api_version;
	struct lt_str obj_uid, resource_version;
	int code; /* HTTP status, 0 if absent */
	struct lt_str status, reason, message;
	int64_t received_us, stage_us; /* µs since epoch; legacy `timestamp` fills both */
	int received_given;	       /* requestReceivedTimestamp was there: all stages share it */
	struct lt_str authz_decision, authz_reason;
	/*
	 * Who is behind the user name, from user.extra (EKS's IAM ARN and session, AKS's
	 * object id, a token's pod, GKE's subject and delegation): one text, parts separated
	 * by a space ("arn:aws:sts::1:assumed-role/R/alice", "oid=…", "pod=…"); absent when
	 * the event names nothing beyond the user.
	 */
	struct lt_str identity;
	/* Lease spec from responseObject (preferred) or requestObject, when the level carries it.
	 */
	int has_lease;
	struct lt_str lease_holder;
	int64_t lease_duration_s, lease_transitions; /* -1 when absent */
	int64_t lease_renew_us, lease_acquire_us;    /* 0 when absent */
};

/* The stream's ordering rank of an audit stage: RequestReceived 0, ResponseStarted 1, others 2. */
int lt_audit_stage_rank(struct lt_str stage);

/* How a year-less timestamp (journal short format, klog header) got its year. */
enum lt_year_rule {
	LT_YEAR_NONE = 0, /* the line carried its own year, or no time at all */
	LT_YEAR_GIVEN,	  /* --year */
	LT_YEAR_AUDIT,	  /* the audit events in the store */
	LT_YEAR_MTIME,	  /* the file's modification time */
	LT_YEAR_CLOCK,	  /* nothing better: the current year (stdin) */
	LT_YEAR_HEADER,	  /* journalctl's "-- Logs begin at DATE, end at DATE. --" line */
	LT_YEAR_LINE,	  /* a full date written inside the file's lines */
};

const char *lt_year_rule_name(enum lt_year_rule r);

/* True for the rules that only guess a year (mtime, clock): `stats` and ingest say so. */
int lt_year_rule_guess(enum lt_year_rule r);

/*
 * What picks the year of a file's first year-less time (mon, day, tod: a
 * local date and time of day), strongest first: --year; journalctl's header
 * range (head_lo..head_hi, local µs); the audit events' range (UTC µs); a
 * year the file's own lines imply by the full dates they write (said_year);
 * the file's mtime (the last year that does not put the time after it);
 * the clock.  A header with a beginning only (head_hi 0) is a lower bound on
 * the others.  0 fields are absent.
 */
struct lt_year_hints {
	int given, said_year;
	int64_t head_lo, head_hi, audit_lo, audit_hi;
	int64_t mtime_s, now_s;
};

/* The year, and in *rule the rule that gave it; *raised 1 when a header's beginning moved it on. */
int lt_year_pick(const struct lt_year_hints *h, int mon, int day, int64_t tod,
		 enum lt_year_rule *rule, int *raised);

/* The year that puts a local (mon, day, tod) nearest to the time ref. */
int lt_year_near(int64_t ref, int mon, int day, int64_t tod);

/* Where a text file's zone (for times written without one) came from. */
enum lt_zone_rule {
	LT_ZONE_ASSUMED = 0, /* nothing says: UTC */
	LT_ZONE_GIVEN,	     /* --utc-offset */
	LT_ZONE_HEADER,	     /* journalctl's header names it, with one meaning */
	LT_ZONE_EVIDENCE,    /* the header's abbreviation has several: the store's evidence chose */
	LT_ZONE_GUESS,	     /* several, and no evidence: the first, with a warning */
};

const char *lt_zone_rule_name(enum lt_zone_rule r);

/* The meanings of a zone as journalctl writes it: "UTC", "PST", "CST" (three), "+08", "-0500". */
#define LT_ZONE_MEANINGS 4
struct lt_zone_name {
	int n;				     /* meanings: 1 unless the abbreviation is ambiguous */
	int64_t off_us[LT_ZONE_MEANINGS];    /* local minus UTC, the usual meaning first */
	const char *where[LT_ZONE_MEANINGS]; /* "China", "US Central", ... */
};

/* The zone word s[0..n) (no spaces).  0, or LT_ERR_FORMAT for a word no table knows. */
int lt_zone_lookup(struct lt_zone_name *out, const char *s, size_t n);

/* A text file's year and zone as the lines handed out so far were computed with. */
struct lt_time_basis {
	int year; /* of the first year-less time; 0 until there is one */
	enum lt_year_rule year_rule;
	int year_raised;	  /* the header's beginning moved the year on */
	int64_t first_local;	  /* that time, local, in year (µs, no zone applied) */
	int64_t head_lo, head_hi; /* journalctl header dates, local µs; 0 when absent */
	int64_t mtime_s;	  /* the file's modification time, 0 unknown */
	int64_t zone_us;	  /* local minus UTC for times written without a zone */
	enum lt_zone_rule zone_rule;
	char zone_name[8]; /* the header's zone word, "" when none */
};

/* Which times of a line rest on its file's year and zone (what re-dating moves). */
enum {
	LT_BASIS_TS_YEAR = 1,
	LT_BASIS_TS_ZONE = 2,
	LT_BASIS_KLOG_YEAR = 4,
	LT_BASIS_KLOG_ZONE = 8,
};

/*
 * us computed with year and zone bits of a basis, moved to another: dy years
 * later (its calendar date kept, when year_bit), from zone old_zone to
 * new_zone (when zone_bit).
 */
int64_t lt_time_redate(int64_t us, int year_bit, int zone_bit, int dy, int64_t old_zone,
		       int64_t new_zone);

/*
 * One line of a text log: a kubelet journal (any journalctl format), a
 * klog file (kubelet, kube-controller-manager, kube-scheduler), syslog, or
 * a message of a CloudWatch export.  Absent fields have ptr == NULL.
 */
struct lt_log_line {
	struct lt_str raw;	     /* the line as read, without its newline */
	int64_t ts_us;		     /* when: the journal's time if any, else klog's */
	int64_t klog_us;	     /* the klog header's time, 0 if none */
	enum lt_year_rule year_rule; /* how ts_us got its year */
	unsigned basis;		     /* LT_BASIS_*: which times rest on the file's year and zone */
	int64_t said_us;	     /* a full date written in the message (UTC), 0 if none... */
	int said_zoned;		     /* ... with its zone (else read as UTC) */
	struct lt_time_basis file;   /* the file's year and zone, as this line was computed */
	struct lt_str host;	     /* journal/syslog host name */
	struct lt_str ident;	     /* syslog identifier: kubelet, kubenswrapper, systemd... */
	int64_t pid;		     /* -1 when absent */
	struct lt_str component;     /* kubelet, kube-controller-manager...; absent if unknown */
	char severity;		     /* klog 'I' 'W' 'E' 'F', or 0 */
	struct lt_str location;	     /* klog "file.go:49" */
	struct lt_str message;	     /* the message, a structured one unquoted */
	struct lt_str fields;	     /* structured klog's key=value tail as a JSON object */
	/* What the line says, from the classification table (parser-classify.c). */
	const char *kind;	/* "lease-update-failed", ...; NULL when no pattern knows it */
	struct lt_str subject;	/* the node (or lease, or object) it is about, when it says */
	struct lt_str obj_kind; /* garbage collector items: Lease, Node, CSINode... */
	struct lt_str obj_namespace, obj_uid;
	int not_found; /* it reports a node (LT_NOT_FOUND_NODE) or a lease as not found */
};

enum { LT_NOT_FOUND_NODE = 1, LT_NOT_FOUND_LEASE = 2 };

/* The kinds the classification table knows, NULL-terminated: kind, then what it means. */
struct lt_log_kind {
	const char *kind;
	const char *component; /* who logs it: kubelet, kube-controller-manager, any */
	const char *summary;
	const char *pattern; /* PCRE2, caseless, matched against "message fields" */
};

const struct lt_log_kind *lt_log_kinds(void);

/*
 * What the parser hands out.  Each callback returns 0 to go on, or a
 * negative enum lt_err to stop the parse (which then returns that code).
 * Everything passed in is borrowed for the duration of the call.
 */
struct lt_sink {
	int (*audit)(const struct lt_audit_event *ev, const struct lt_where *at, void *ctx);
	/* Optional: a text log line; without it text logs are rejected as unreadable. */
	int (*log)(const struct lt_log_line *line, const struct lt_where *at, void *ctx);
	/* A record that could not be used: reason is one line, already sanitized. */
	int (*reject)(const struct lt_where *at, const char *reason, void *ctx);
	/* Optional: now and then, on-disk bytes read so far of size (0 if unknown). */
	void (*progress)(uint64_t done, uint64_t size, void *ctx);
	/* Optional: after each read, before its records: how far the input has been read
	 * and the hash of it, so every record handed out after it lies in its first
	 * m->len on-disk bytes. */
	void (*mark)(const struct lt_input_mark *m, void *ctx);
	/* Optional: records before this decoded offset are skipped (resume). */
	uint64_t resume_offset;
	/* Year for year-less timestamps: year (>0) forces one (LT_YEAR_GIVEN); else a
	 * time range [year_lo_us, year_hi_us] of known events picks the nearest
	 * (LT_YEAR_AUDIT); else the file's mtime; else the clock. */
	int year;
	int64_t year_lo_us, year_hi_us;
	/* Local time minus UTC for times written without a zone (journal short, klog
	 * headers): --utc-offset.  A journal line with an offset brings its own. */
	int64_t utc_offset_us;
	int utc_offset_given; /* --utc-offset was given: a journal header's zone does not override
				 it */
};

/* The formats the sniffer knows. */
enum lt_format {
	LT_FMT_UNKNOWN = 0, /* text, but nothing we read */
	LT_FMT_BINARY,	    /* not text at all */
	LT_FMT_EMPTY,	    /* no bytes, or only whitespace */
	LT_FMT_JSON,	    /* JSON values: audit events, lists of them */
	LT_FMT_TEXT,	    /* text log lines: journal, klog, syslog, CloudWatch text */
	LT_FMT_CSV,	    /* a Logs Insights CSV export */
};

const char *lt_format_name(enum lt_format f);

/* The version of the yajl library linked ("2.1.0"), for `leasetrail version`. */
const char *lt_json_library_version(void);

/* Decides the format of an input from its first decoded bytes. */
enum lt_format lt_sniff(const char *buf, size_t len);

/* Opens path, sniffs its first decoded bytes and closes it again. */
int lt_sniff_path(enum lt_format *out, const char *path, struct lt_error *err);

/*
 * Reads all of in, sniffing its format, and feeds every record to sink.
 * Bad records go to sink->reject and do not stop the parse.  Returns 0,
 * LT_ERR_FORMAT (with *format_out telling why) when the input is not a log
 * we read, LT_ERR_TRUNCATED when a compressed stream ended early (every
 * record before the cut was delivered), or the first error of a callback
 * or of I/O.
 */
int lt_parse_input(struct lt_input *in, const struct lt_sink *sink, void *ctx,
		   enum lt_format *format_out, struct lt_error *err);

/* ---- writing JSON (yajl's generator) ------------------------------------ */

/*
 * A JSON writer: yajl's generator, compact, with its UTF-8 validation on.
 * Write one whole value (a map of strings, numbers and nulls, arrays), then
 * take its text; the writer is then ready for the next value.  Strings
 * (keys too) need not be UTF-8: each byte that does not begin a valid
 * sequence is written as U+FFFD (lt_utf8_repair), so the text is always
 * valid UTF-8 and valid JSON; control characters are escaped.  Calls out of
 * order (a value where a key belongs, a second value before the take) are
 * the caller's bug and asserted.  Out of memory aborts like lt_xmalloc.
 */
struct lt_json_writer;
struct lt_json_writer *lt_json_writer_new(void);
void lt_json_writer_free(struct lt_json_writer *w);
void lt_json_writer_map_open(struct lt_json_writer *w);
void lt_json_writer_map_close(struct lt_json_writer *w);
void lt_json_writer_array_open(struct lt_json_writer *w);
void lt_json_writer_array_close(struct lt_json_writer *w);
void lt_json_writer_string(struct lt_json_writer *w, const char *s, size_t len);
/* s[0..len) written as it is: the caller's JSON number ("12", "-0.5", "1e+20"). */
void lt_json_writer_number(struct lt_json_writer *w, const char *s, size_t len);
void lt_json_writer_null(struct lt_json_writer *w);
/* Appends the text of the whole value written since the last take to out. */
void lt_json_writer_take(struct lt_json_writer *w, struct lt_buf *out);

/*
 * Whether text[0..len) is valid JSON in valid UTF-8 (yajl's parser, strict:
 * no comments): one value when values is 1, any number of whitespace-separated
 * values (JSON lines) when it is more.  0, or LT_ERR_FORMAT.  The check the
 * output tests and the queries fuzz target make of every JSON printed.
 */
int lt_json_check(const char *text, size_t len, int values);

#endif
