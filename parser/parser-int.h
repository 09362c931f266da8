/* parser-int.h - private interfaces between the parser's files. */
#ifndef PARSER_INT_H
#define PARSER_INT_H

#include "lt_parser.h"

/* Largest record we buffer; audit request bodies go up to 1.5 MiB, objects a few MiB. */
#define PARSER_MAX_RECORD (8u * 1024 * 1024)

/*
 * Zero bytes in a run this long are a block the file system zeroed in a
 * crash (the writer went on after it); fewer are bad bytes of their line.
 */
#define PARSER_ZERO_BLOCK 8

/* ---- framer: bytes -> JSON records ------------------------------------ */

struct parser_frame_ops {
	/* A complete top-level record (or a list element): text is valid during the call
	 * only and not NUL-terminated (a view of the bytes fed, or of the framer's buffer). */
	int (*record)(const char *text, size_t len, uint64_t line, uint64_t offset, void *ctx);
	/* Something that is not a usable record, with a one-line reason. */
	int (*reject)(uint64_t line, uint64_t offset, const char *reason, void *ctx);
};

struct parser_frame;

/* A framer delivering to ops; max_record caps what is buffered (0: PARSER_MAX_RECORD). */
struct parser_frame *parser_frame_new(const struct parser_frame_ops *ops, void *ctx,
				      size_t max_record);
void parser_frame_free(struct parser_frame *f);

/* Feeds the next len bytes; returns 0 or the first non-zero callback result. */
int parser_frame_feed(struct parser_frame *f, const char *buf, size_t len);

/* Ends the stream: a record still open is rejected as cut off. */
int parser_frame_finish(struct parser_frame *f);

/* Lines seen so far (1-based line of the next byte). */
uint64_t parser_frame_line(const struct parser_frame *f);

/* During ops->record: the lines a hard-wrapped record was joined from (0 when not wrapped). */
uint64_t parser_frame_joined(const struct parser_frame *f);

/*
 * True when json[0..len) has a syntax error before its end (trailing white
 * space aside): invalid JSON, not a record that was merely cut short.
 */
int parser_json_broken(const char *json, size_t len);

/* ---- audit event decoder: one JSON record -> struct lt_audit_event ---- */

struct parser_audit_decoder;

struct parser_audit_decoder *parser_audit_decoder_new(void);
void parser_audit_decoder_free(struct parser_audit_decoder *d);

/*
 * Decodes one record.  On success fills *out, whose strings point into the
 * decoder and stay valid until the next call.  On failure returns
 * LT_ERR_FORMAT with a one-line reason in reason[size].
 */
int parser_audit_decode(struct parser_audit_decoder *d, struct lt_audit_event *out,
			const char *json, size_t len, char *reason, size_t size);

/* ---- klog: the header and structured messages (parser-klog.c) -------- */

/* A klog header "E0405 06:04:04.422460  477678 nodelease.go:49] ": no year in it. */
struct parser_klog {
	char severity;		/* I W E F */
	int month, day;		/* 1-12, 1-31 */
	int64_t tod_us;		/* time of day */
	int64_t thread;		/* the thread (or process) id */
	struct lt_str location; /* "nodelease.go:49" */
};

/* Parses a klog header at s; the bytes it took, or 0 when s does not start with one. */
size_t parser_klog_header(struct parser_klog *out, const char *s, size_t len);

/*
 * Splits a klog payload into its message and fields: a structured payload
 * ("Msg" k="v" k2=v2) gives the unquoted message in msg and the fields as a
 * JSON object in fields; a printf one gives itself in msg and no fields.
 * Both buffers are reset first.  Returns where the fields start in p (len
 * when there are none).
 */
size_t parser_klog_payload(struct lt_buf *msg, struct lt_buf *fields, const char *p, size_t len);

/* ---- classification of log messages (parser-classify.c) --------------- */

struct parser_classifier;

struct parser_classifier *parser_classifier_new(void);
void parser_classifier_free(struct parser_classifier *c);

/*
 * Fills line->kind, subject, obj_* and not_found from line->message and
 * line->fields (text = message, a space, fields' raw tail).  Strings point
 * into text or the line.
 */
void parser_classify(struct parser_classifier *c, struct lt_log_line *line, const char *text,
		     size_t len);

/* ---- text logs: journal, klog, syslog, CloudWatch text (parser-text.c) - */

/* True when some early line of buf is a journal, klog, syslog or CloudWatch text line. */
int parser_text_sniff(const char *buf, size_t len);

/* True when a whole line is one JSON object of Kubernetes' JSON log format ("ts", "msg"). */
int parser_text_jsonlog_line(const char *s, size_t n);

/* How a text log hands a JSON message (an audit Event in a CloudWatch export) back. */
typedef int (*parser_json_route_fn)(const char *json, size_t len, const struct lt_where *at,
				    void *ctx);

struct parser_textlog;

struct parser_textlog *parser_textlog_new(const struct lt_sink *sink, void *ctx,
					  struct lt_input *in, parser_json_route_fn route,
					  void *route_ctx);
void parser_textlog_free(struct parser_textlog *t);

/* Feeds bytes of a text log; whole lines are parsed and handed to the sink. */
int parser_textlog_feed(struct parser_textlog *t, const char *buf, size_t len);
int parser_textlog_finish(struct parser_textlog *t);

/*
 * One message whose envelope was already read (a journal JSON record, a
 * CloudWatch record): line holds what is known (ts_us, host, ident, pid,
 * component); the message (a klog line or plain text) fills the rest.
 */
int parser_textlog_message(struct parser_textlog *t, struct lt_log_line *line, const char *msg,
			   size_t len, const struct lt_where *at);

/*
 * A container runtime's record (docker json-file; CRI lines come through
 * parser_textlog_feed): like parser_textlog_message, but a partial record waits
 * for the rest of its line, which parser_textlog_finish also lets go.
 */
int parser_textlog_container(struct parser_textlog *t, struct lt_log_line *line, const char *msg,
			     size_t len, int partial, const struct lt_where *at);

/* The component a CloudWatch stream name stands for ("kube-controller-manager-…"), or NULL. */
const char *parser_stream_component(struct lt_str stream);

/* ---- Kubernetes' JSON log format (parser-jsonlog.c) ------------------ */

/* One line of --logging-format=json. */
struct parser_jsonlog {
	int64_t ts_us; /* "ts", UTC */
	char severity; /* 'E' with an "err", else 'I' */
	struct lt_str msg, caller;
};

/* True when a JSON record looks like such a line ("ts" and "msg", no auditID). */
int parser_jsonlog_probe(const char *json, size_t len);

/*
 * Parses s[0..n) as a JSON log line: 0, or -1 when it is none.  msg and
 * caller point into arena; the other top-level values are appended to
 * pairs as klog writes them (` key="value"`), for the classifier.
 */
int parser_jsonlog_parse(struct parser_jsonlog *out, struct lt_buf *arena, struct lt_buf *pairs,
			 const char *s, size_t n);

/* ---- journalctl -o json records (parser-journal.c) -------------------- */

/* True when a JSON record is a journal entry (it has __REALTIME_TIMESTAMP) or a docker one. */
int parser_journal_json_probe(const char *json, size_t len);

struct parser_journal_decoder;

struct parser_journal_decoder *parser_journal_decoder_new(void);
void parser_journal_decoder_free(struct parser_journal_decoder *d);

/*
 * Decodes one journal entry: fills ts_us, host, ident, pid of *line and
 * the message (MESSAGE as a string or as an array of bytes) in *msg.  A
 * docker json-file record gives its time and its "log" line; *partial
 * says the line goes on in the next record.  LT_ERR_FORMAT with a reason
 * when it is no usable entry.
 */
int parser_journal_decode(struct parser_journal_decoder *d, struct lt_log_line *line,
			  struct lt_str *msg, int *partial, const char *json, size_t len,
			  char *reason, size_t size);

/*
 * After a decode: 1 when the entry's _BOOT_ID differs from its host's (_HOSTNAME) previous
 * entry's, the host having rebooted between them; *boot is then the new boot ID (valid until
 * the next call).  0 for a host's first entry, and for an entry without a boot ID.
 */
int parser_journal_rebooted(struct parser_journal_decoder *d, struct lt_str *boot);

/* ---- CloudWatch Logs exports: records -> (time, stream, message) ------ */

/*
 * One CloudWatch Logs record, whatever shape it came in: a filter-log-events
 * or get-log-events element, a get-query-results row, a console JSON or CSV
 * export row.  The message is decoded (JSON escapes, CSV quoting undone) and
 * NUL-terminated; what it holds (an audit Event, a klog line) is routed by
 * the caller.  Strings are borrowed from the decoder until its next call.
 */
struct parser_cw_record {
	int64_t ts_us;	       /* the record's timestamp (ms precision), 0 when absent */
	struct lt_str message; /* @message / message, decoded */
	struct lt_str stream;  /* logStreamName / @logStream, absent if unknown */
	struct lt_str ext_id;  /* eventId / @ptr, absent if none */
	struct lt_str group;   /* logGroupName / @log ("ACCOUNT:GROUP"), absent if unknown */
};

/* What one framed JSON record is, as far as CloudWatch goes. */
enum parser_cw_shape {
	PARSER_CW_NONE = 0,    /* not a CloudWatch record (an audit Event, say) */
	PARSER_CW_EVENT,       /* {"timestamp":ms,"message":"...",...} of (filter|get)-log-events */
	PARSER_CW_QUERY_ROW,   /* [{"field":"@timestamp","value":"..."},...] of get-query-results */
	PARSER_CW_CONSOLE_ROW, /* {"@timestamp":"...","@message":... } of a console JSON export */
};

/* Decides from one framed JSON record (a list element) which shape it has. */
enum parser_cw_shape parser_cw_shape_of(const char *json, size_t len);

struct parser_cw_decoder;

struct parser_cw_decoder *parser_cw_decoder_new(void);
void parser_cw_decoder_free(struct parser_cw_decoder *d);

/*
 * Decodes one framed record of a known shape into *out.  A console row's
 * @message that is a JSON object comes back as that object's JSON text.
 * On failure returns LT_ERR_FORMAT with a one-line reason in reason[size].
 */
int parser_cw_decode(struct parser_cw_decoder *d, struct parser_cw_record *out,
		     enum parser_cw_shape shape, const char *json, size_t len, char *reason,
		     size_t size);

/*
 * lt_time_parse, also taking Logs Insights' "2023-07-31 01:58:12.101" (UTC
 * without a zone designator).  0, or LT_ERR_FORMAT.
 */
int parser_cw_time_parse(int64_t *out, const char *s, size_t len);

/* ---- cloud envelopes: AKS diagnostic records, GKE LogEntries ---------- */

/*
 * What one record of a cloud's log envelope holds once decoded: an audit
 * Event (its JSON text, to go through parser_audit_decode) or a log line
 * (its text, to go through parser_textlog_message), with the provenance the
 * envelope gives.  Strings are borrowed from the decoder until its next call.
 */
enum parser_env_kind {
	PARSER_ENV_AUDIT, /* event: an audit Event's JSON text */
	PARSER_ENV_LOG,	  /* message: a klog line, a JSON log line or plain text */
};

struct parser_env_record {
	enum parser_env_kind kind;
	struct lt_str event;   /* AUDIT */
	struct lt_str raw;     /* what the store keeps as the record; ptr NULL: event or message */
	struct lt_str message; /* LOG */
	int64_t ts_us;	       /* LOG: the envelope's time, 0 when none */
	struct lt_str host;    /* LOG: the node, when the envelope says */
	struct lt_str component; /* LOG: the writer, when the envelope says */
	struct lt_str ident;	 /* LOG: a journal's SYSLOG_IDENTIFIER */
	int64_t pid;		 /* LOG: -1 when absent */
	struct lt_str stream;	 /* provenance (lt_where.stream): a pod, a log name */
	struct lt_str ext_id;	 /* provenance (lt_where.ext_id): the cloud's record id */
	struct lt_str cluster;	 /* provenance (lt_where.cluster): the cluster it names */
};

/* One envelope: recognised by its first record, then every record decoded alike. */
struct parser_envelope {
	const char *name;
	/* True when a framed JSON record has this envelope's shape. */
	int (*probe)(const char *json, size_t len);
	void *(*decoder_new)(void);
	void (*decoder_free)(void *d);
	/* One record into *out; LT_ERR_FORMAT with a one-line reason when it is none. */
	int (*decode)(void *d, struct parser_env_record *out, const char *json, size_t len,
		      char *reason, size_t size);
};

/* Azure Monitor diagnostic records of an AKS cluster (parser-aks.c). */
extern const struct parser_envelope parser_aks_envelope;
/* Google Cloud Logging LogEntries of a GKE cluster (parser-gke.c). */
extern const struct parser_envelope parser_gke_envelope;

/* ---- query engines' result rows (parser-results.c) --------------------- */

/*
 * One cell of a result row: a column name (a dotted path for a nested JSON
 * value) and its value, as a string (JSON escapes or CSV quoting undone), a
 * number or boolean as written, or the JSON text of an object or array.
 */
enum parser_res_type {
	PARSER_RES_NULL = 0,
	PARSER_RES_STR,
	PARSER_RES_NUM,
	PARSER_RES_BOOL,
	PARSER_RES_JSON,
};

struct parser_res_cell {
	struct lt_str name, value;
	enum parser_res_type type;
	int top; /* a column of the row, not a value nested in one */
};

/* Which table a row comes from, by its column names. */
enum parser_res_kind {
	PARSER_RES_NONE = 0,
	PARSER_RES_AKSAUDIT,	 /* Log Analytics AKSAudit, AKSAuditAdmin */
	PARSER_RES_AZDIAG,	 /* Log Analytics AzureDiagnostics (log_s, Category) */
	PARSER_RES_CONTROLPLANE, /* Log Analytics AKSControlPlane (Category, Message) */
	PARSER_RES_BIGQUERY,	 /* BigQuery over a Cloud Logging sink (protopayload_auditlog) */
};

enum parser_res_kind parser_res_kind_of(const struct parser_res_cell *cells, size_t n);
const char *parser_res_kind_name(enum parser_res_kind kind);

struct parser_res_decoder;

struct parser_res_decoder *parser_res_new(void);
void parser_res_free(struct parser_res_decoder *d);

/*
 * A row of table kind into the audit Event or the log line it stands for;
 * strings borrowed from the cells and the decoder until its next call.
 * LT_ERR_FORMAT with a one-line reason (the column that is missing or bad).
 */
int parser_res_decode_cells(struct parser_res_decoder *d, enum parser_res_kind kind,
			    const struct parser_res_cell *cells, size_t n,
			    struct parser_env_record *out, char *reason, size_t size);

/* Result rows exported as JSON (an array of row objects, or JSON lines). */
extern const struct parser_envelope parser_res_envelope;

/*
 * True when the top-level keys of the JSON object at json include every
 * key of all[] and at least one of any[] (any NULL: none needed); lists
 * NULL-terminated.  Reads keys only, values are skipped (parser-envelope.c).
 */
int parser_json_keys(const char *json, size_t len, const char *const *all, const char *const *any);

/* True when a JSON record is an audit Event rather than some other JSON (its top keys). */
int parser_audit_probe(const char *json, size_t len);

/* ---- JSON envelopes of one log line: fluent-bit, Container Insights -- */

/*
 * A JSON object that wraps a log line: a container's "log" (fluent-bit,
 * fluentd, Container Insights application logs), a journal's "message" or
 * "MESSAGE" (Container Insights dataplane and host logs), with the host and
 * writer it names.  Strings point into arena.
 */
struct parser_logwrap {
	struct lt_str line;	 /* the wrapped line, trailing newline removed */
	struct lt_str host;	 /* hostname, host, _HOSTNAME, kubernetes.host */
	struct lt_str component; /* systemd_unit without ".service", kubernetes.container_name */
	struct lt_str ident;	 /* SYSLOG_IDENTIFIER, ident */
};

/* Unwraps s[0..n): 0, or -1 when it is no JSON object with a line in it (parser-logwrap.c). */
int parser_logwrap_parse(struct parser_logwrap *out, struct lt_buf *arena, const char *s, size_t n);

/* ---- Logs Insights CSV exports (RFC 4180) ------------------------------ */

/*
 * True when buf starts with a CSV header naming @message or message (any
 * column order), or the columns of a result table parser_res_kind_of knows.
 */
int parser_csv_sniff(const char *buf, size_t len);

struct parser_csv_ops {
	/* One data row; line/offset are those of the row's first byte. */
	int (*record)(const struct parser_cw_record *rec, uint64_t line, uint64_t offset,
		      void *ctx);
	int (*reject)(uint64_t line, uint64_t offset, const char *reason, void *ctx);
	/*
	 * One data row of a query engine's result table (the header named one);
	 * NULL: such rows are rejected.
	 */
	int (*row)(enum parser_res_kind kind, const struct parser_res_cell *cells, size_t n,
		   uint64_t line, uint64_t offset, void *ctx);
};

struct parser_csv;

/* A streaming CSV reader: the header row maps columns, each later row is a record. */
struct parser_csv *parser_csv_new(const struct parser_csv_ops *ops, void *ctx);
void parser_csv_free(struct parser_csv *c);
int parser_csv_feed(struct parser_csv *c, const char *buf, size_t len);
/* Ends the input: a last row without newline is a row; an open quote is a cut-off row. */
int parser_csv_finish(struct parser_csv *c);

/* ---- the Log Analytics query API's response (parser-results-rest.c) ---- */

/* True when buf starts with the query API's {"tables": ...}. */
int parser_rest_sniff(const char *buf, size_t len);

struct parser_rest;

/* A streaming reader of {"tables":[{"columns":[…],"rows":[[…],…]}]}: each row to ops->row. */
struct parser_rest *parser_rest_new(const struct parser_csv_ops *ops, void *ctx);
void parser_rest_free(struct parser_rest *r);
int parser_rest_feed(struct parser_rest *r, const char *buf, size_t len);
/* Ends the input: a response cut short is one reject. */
int parser_rest_finish(struct parser_rest *r);

#endif
