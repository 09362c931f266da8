/*
 * lt_queries.h - questions asked of the store, and how answers are printed.
 *
 * Every answer is a table: named, typed columns and rows of typed values
 * (times, durations, counts, ids, kinds as values).  Queries compute the
 * rows and hand them to a sink; the printers print them aligned for people
 * (times in UTC, log text sanitized), or as CSV, JSON or JSON lines for
 * programs, with stable column names; the TUI keeps them and draws them.
 */
#ifndef LT_QUERIES_H
#define LT_QUERIES_H

#include "lt_index.h"

#include <string.h>

enum lt_out_format { LT_OUT_TABLE, LT_OUT_CSV, LT_OUT_JSON, LT_OUT_JSONL };

/* ---- episode kinds ------------------------------------------------------- */

/*
 * The kinds of a timeline's rows that the query layer makes: a lease's
 * episodes, STALE, the Node object's own requests, and the node's NotReady
 * windows.  (A log line's kind
 * is the parser's classification, lt_log_kinds().)
 */
enum lt_episode_kind {
	LT_EP_NONE, /* unknown: a name this leasetrail does not know */
	LT_EP_CREATED,
	LT_EP_RENEWING,
	LT_EP_GAP,
	LT_EP_NOT_FOUND,
	LT_EP_DELETED,
	LT_EP_RECREATED,
	LT_EP_AUTH_FAILURE,
	LT_EP_SLOW,
	LT_EP_HOLDER_CHANGE,
	LT_EP_RELEASED,
	LT_EP_STALE,
	LT_EP_NODE_REGISTERED,
	LT_EP_NODE_REGISTER_FAILED,
	LT_EP_NODE_DELETED,
	LT_EP_NODE_DELETE_FAILED,
	LT_EP_NODE_STATUS,
	LT_EP_NODE_STATUS_FAILED,
	LT_EP_NODE_UPDATED,
	LT_EP_NOT_READY, /* a NotReady window of the node (node health, lt_notready) */
	LT_EP_NODE_GONE, /* a node lease lives on after its Node was deleted for good */
	LT_EP_COUNT
};

/* What a heartbeat strip draws for the time a kind covers (stronger ones win). */
enum lt_strip_cell {
	LT_STRIP_NONE,
	LT_STRIP_RENEWED,
	LT_STRIP_GAP,
	LT_STRIP_404,
	LT_STRIP_AUTH,
	LT_STRIP_DELETED,
	LT_STRIP_NOT_READY,
	LT_STRIP_HOLDER, /* the instant another holder took the lease */
};

/* How a row of a kind reads (its style in the TUI): fine, worth a look, or one of the failures. */
enum lt_tone {
	LT_TONE_NORMAL,
	LT_TONE_OK,
	LT_TONE_WARN,
	LT_TONE_NOT_FOUND,
	LT_TONE_AUTH,
	LT_TONE_DELETED,
	LT_TONE_NOT_READY,
};

enum lt_episode_flags {
	LT_EPF_ANOMALY = 1,	/* counted in `nodes`' anomalies */
	LT_EPF_NODE_OBJECT = 2, /* about the Node object, not its lease */
	LT_EPF_RUN = 4,		/* one row stands for a run of back-to-back requests */
};

struct lt_episode_kind_info {
	const char *name;    /* as stored and printed: "RE-CREATED", "NODE_STATUS", ... */
	const char *meaning; /* one line, for help and reports */
	enum lt_strip_cell strip;
	enum lt_tone tone;
	unsigned flags; /* enum lt_episode_flags */
};

/* The table row of kind k (LT_EP_NONE's for a value out of range). */
const struct lt_episode_kind_info *lt_episode_kind_info(enum lt_episode_kind k);

/* The stored and printed name of k. */
const char *lt_episode_kind_name(enum lt_episode_kind k);

/* The kind named name[0..len-1] (as stored), LT_EP_NONE for a name not in the table. */
enum lt_episode_kind lt_episode_kind_parse(const char *name, size_t len);

/* ---- typed rows and their printers ---------------------------------------- */

/*
 * Compute, then print.  Every answer (`nodes`, `timeline`, each canned query,
 * `sql`) is computed into typed rows: columns with a stable name and a type,
 * rows of typed cells.  The query hands them to a row sink; one set of
 * printers (lt_printer) turns them into an aligned table, CSV, JSON or JSON
 * lines, and the TUI keeps them (lt_rows) and formats each cell as it draws.
 * Nothing reads back text the program formatted.
 */
enum lt_cell_type {
	LT_CELL_NULL,	  /* no value: "" in tables and CSV, null in JSON */
	LT_CELL_TEXT,	  /* s[0..len): log text (sanitized when printed for people) */
	LT_CELL_INT,	  /* i: a count, an HTTP code */
	LT_CELL_ID,	  /* i: an audit event id, as `show ID` takes it */
	LT_CELL_REAL,	  /* r */
	LT_CELL_TIME,	  /* i: µs since the epoch; RFC 3339 UTC */
	LT_CELL_DURATION, /* i: µs; "10.4s" in tables, seconds ("10.400000") for programs */
	LT_CELL_KIND,	  /* i: an enum lt_episode_kind; printed as its name */
};

/* What a column holds besides its cells' type. */
enum lt_col_flags {
	/*
	 * Free text (a reason, a message, a detail, a user agent): a table on a
	 * terminal cuts these, the widest first, to fit its width; never an
	 * identifier, a time or a count.
	 */
	LT_COL_FREE_TEXT = 1,
};

/* A result column: its stable name (lower case), the type of its cells, enum lt_col_flags. */
struct lt_col {
	const char *name;
	enum lt_cell_type type;
	unsigned flags;
};

/*
 * LT_COL_FREE_TEXT when a column of that name holds free text wherever it
 * comes from (message, reason, detail, user_agent, ...): for the columns of
 * `sql`, which the query names; else 0.
 */
unsigned lt_col_flags_by_name(const char *name);

/* One typed value; s is borrowed (a sink copies what it keeps). */
struct lt_cell {
	enum lt_cell_type type;
	int64_t i;
	double r;
	const char *s;
	size_t len;
};

static inline struct lt_cell lt_cell_null(void)
{
	return (struct lt_cell){.type = LT_CELL_NULL};
}

/* A text cell of the C string s (NULL: no value). */
static inline struct lt_cell lt_cell_text(const char *s)
{
	return s ? (struct lt_cell){.type = LT_CELL_TEXT, .s = s, .len = strlen(s)}
		 : lt_cell_null();
}

/* An integer-valued cell of type t (INT, ID, TIME, DURATION, KIND). */
static inline struct lt_cell lt_cell_int(enum lt_cell_type t, int64_t i)
{
	return (struct lt_cell){.type = t, .i = i};
}

/*
 * Where rows go.  A query calls begin once with its columns (so a result
 * without rows still has them), row once a row with ncols cells (borrowed
 * for the call), then end once, also after a failure half way (a table
 * prints the rows it has).  A query that fails before its first row may
 * call none of them.
 */
struct lt_row_sink {
	void (*begin)(void *ctx, const struct lt_col *cols, int ncols);
	void (*row)(void *ctx, const struct lt_cell *cells);
	void (*end)(void *ctx);
	void *ctx;
	/*
	 * Optional (NULL: never): nonzero once the sink takes no more rows, its
	 * output closed (`| head` has read enough).  A query may stop stepping
	 * then, and still calls end; rows given after it are dropped.
	 */
	int (*closed)(void *ctx);
};

/* Parses "table", "csv", "json", "jsonl"; 0 or LT_ERR_USAGE. */
int lt_out_format_parse(enum lt_out_format *out, const char *name);

/* Room for any cell lt_cell_format formats into its buffer. */
#define LT_CELL_BUF 48

/*
 * The text cell c prints as in fmt, before quoting or sanitizing: times in
 * RFC 3339 in the display zone (lt_time_format_zone: UTC unless --tz), durations human ("10.4s") in
 * a table and as seconds with six decimals for programs, kinds by name.  NULL for no value.  The
 * text is in buf (size bytes, LT_CELL_BUF is enough) or c->s; *len gets its length.
 */
const char *lt_cell_format(const struct lt_cell *c, enum lt_out_format fmt, char *buf, size_t size,
			   size_t *len);

/*
 * The printers: a sink that writes rows to f in fmt, in bounded memory.
 * A table is aligned: upper-case headers, every cell and name sanitized, no
 * trailing blanks; its column widths come from its first 1000 rows (or
 * 1 MiB of them), at most 256 columns each; a later, wider cell is printed
 * whole and pushes the rest of its row right.  CSV quotes per RFC 4180.
 * JSON (an array) and JSON lines print integers, ids, reals and durations
 * as numbers, the rest as strings, no value as null; always valid UTF-8
 * (a byte that is not UTF-8 becomes U+FFFD).  When f is a terminal
 * (isatty), CSV fields are sanitized as table cells are, and JSON writes
 * what a terminal acts on as \uXXXX escapes; to a pipe or file CSV is the
 * exact bytes.  One printer prints one result (begin to end).
 */
struct lt_printer;
struct lt_printer *lt_printer_new(enum lt_out_format fmt, FILE *f);
const struct lt_row_sink *lt_printer_sink(struct lt_printer *p);
void lt_printer_free(struct lt_printer *p);

/* Prints as for a terminal (tty 1) or a pipe (0), whatever f is: for tests and fuzzing. */
void lt_printer_set_tty(struct lt_printer *p, int tty);

/*
 * Fitting a table to a terminal.  A table printer made while fitting is on
 * (the default) for a terminal takes its width from $COLUMNS, else the
 * terminal's (TIOCGWINSZ), and cuts its free-text columns (LT_COL_FREE_TEXT),
 * the widest first and none below 10 cells, with "…" so each line fits:
 * widths in display cells (lt_text_width).  Identifiers, times and counts
 * are never cut, so a line whose other cells are wider than the terminal
 * stays wider.  Off (`-o wide`), or to a pipe or a file, every cell is
 * printed whole, byte for byte as before.  For the whole process, as the
 * display zone is.
 */
void lt_printer_fit_terminal(int on);

/* Fits a table to cols cells (0: never cut), whatever f is: for tests. */
void lt_printer_set_width(struct lt_printer *p, size_t cols);

/*
 * 0, or the errno of the printer's first failed write (EPIPE: the reader
 * went away); nothing is written after it, and the sink says it is closed.
 */
int lt_printer_error(const struct lt_printer *p);

/* A result kept whole: columns and rows of cells, every text owned. */
struct lt_rows {
	int ncols;
	struct lt_col *cols; /* names owned */
	size_t nrows;
	struct lt_cell *cells; /* row r, column c at r * ncols + c */
};

/* A sink that fills *t (zero it first; lt_rows_release frees what it holds). */
struct lt_row_sink lt_rows_sink(struct lt_rows *t);

/* The cell of row r, column c; a no-value cell when out of range. */
const struct lt_cell *lt_rows_cell(const struct lt_rows *t, size_t r, int c);

/* The index of column name, or -1. */
int lt_rows_col(const struct lt_rows *t, const char *name);

void lt_rows_release(struct lt_rows *t);

/* What lt_print_safe does with a newline: sanitized like any control byte, or kept. */
enum lt_safe_mode { LT_SAFE_ONE_LINE, LT_SAFE_KEEP_NEWLINES };

/* Writes s to f, made safe for a terminal. */
void lt_print_safe(FILE *f, const char *s, size_t len, enum lt_safe_mode mode);

/* "1h2m", "15.2s", "340ms": a duration in microseconds, as kubectl shows ages. */
void lt_format_duration(char *buf, size_t size, int64_t us);

/*
 * `leasetrail stats`: time range, counts per resource/verb/code, nodes seen,
 * other resources counted, and each source with its reject counts.
 */
int lt_query_stats(struct lt_store *st, FILE *out, struct lt_error *err);

/*
 * `leasetrail stats -o json`: the same as one JSON object: store, first,
 * last, requests, event_rows, source_count, then arrays of rows (every node,
 * every stored reject): nodes, lease_node_requests, other_resources, sources,
 * log_sources and log_kinds (when there are text logs), rejects,
 * clock_offsets.  Times RFC 3339, missing values null.
 */
int lt_query_stats_json(struct lt_store *st, FILE *out, struct lt_error *err);

/*
 * A lease's state as every view and command shows it: a renewing (or
 * re-created) lease with no renew for longer than its gap threshold before
 * END (the newest event in the store) is "stale".  Judged when read, not
 * when built, so a later ingest that extends the time range makes an idle
 * lease stale without rebuilding it.  The arguments are SQL expressions.
 */
#define LT_LEASE_STATE(state, last_renew, gap, end)                                                \
	"(CASE WHEN " state " IN ('renewing', 're-created') AND " end " - " last_renew " > " gap   \
	" THEN 'stale' ELSE " state " END)"

/* The END of LT_LEASE_STATE: the newest event of any lease. */
#define LT_LEASES_END "(SELECT max(last_us) FROM lt_leases)"

/* ---- ingest and derived tables ------------------------------------------- */

/* How far an ingest is, for a progress line. */
struct lt_ingest_meter {
	uint64_t done, total; /* on-disk bytes read, and of every path (0 unless measured) */
	double secs, rate;    /* since the start; records per second */
	const char *path;     /* the file being read */
};

/* What lt_ingest_run reports besides each file (the callbacks of lt_ingest_opts). */
struct lt_ingest_hooks {
	/* A path that could not be read, or the store's failure; may be NULL. */
	void (*on_error)(const struct lt_error *err, void *ctx);
	/* Every path is read (in secs seconds); indexes and lifecycles come next.  May be NULL. */
	void (*on_loaded)(const struct lt_ingest_totals *t, double secs, void *ctx);
	/* Now and then while a file is read; may be NULL.  measure: fill its total first. */
	void (*on_meter)(const struct lt_ingest_meter *m, void *ctx);
	/* What a text log's times rest on, when worth saying: a year or zone that is only a
	 * guess, a log re-dated by what this run brought (lt_store_redate).  May be NULL. */
	void (*on_note)(const char *path, const char *text, void *ctx);
	int measure;
	void *ctx;
};

/*
 * `leasetrail ingest`, all of it: paths[0..n-1] into the writable store st
 * (text logs after the other inputs, so that their year-less times can take
 * the audit events' years: opts->on_text_log is not used), then the
 * indexes a bulk load deferred, then every lifecycle that is behind the
 * events (queries-registry.c).  Re-running it after an interruption at any
 * point finishes the job, even when every file is then a duplicate.  Adds
 * to *totals.  Returns 0; LT_ERR_IO when some path could not be read (the
 * others are ingested, and the lifecycles built); LT_ERR_DB when the store
 * failed or was built by a newer leasetrail (err says; hooks->on_error
 * has been told of each path's failure, not of that one).
 */
int lt_ingest_run(struct lt_store *st, char *const *paths, size_t n,
		  const struct lt_ingest_opts *opts, const struct lt_ingest_hooks *hooks,
		  struct lt_ingest_totals *totals, struct lt_error *err);

/* A --year argument: 1970..9999.  0 or LT_ERR_USAGE. */
int lt_ingest_year_arg(int *year, const char *s);

/* A --utc-offset argument: Z, UTC, 0, or ±HH, ±HHMM, ±HH:MM up to 14 h.  0 or LT_ERR_USAGE. */
int lt_ingest_offset_arg(int64_t *us, const char *s);

/* Appends the report line of one file ("PATH: ingested, N records, ..."), sanitized. */
void lt_ingest_file_text(struct lt_buf *b, const struct lt_file_report *f);

/* Appends "leasetrail: FILE:LINE: rejected: REASON" (reason already sanitized). */
void lt_ingest_reject_text(struct lt_buf *b, const struct lt_where *at, const char *reason);

/* Appends "leasetrail: PATH: N more rejected records (...)", sanitized. */
void lt_ingest_more_rejects_text(struct lt_buf *b, const char *path, uint64_t n);

/* Appends a progress line: bytes done of total, records per second, the path's first 60 bytes. */
void lt_ingest_meter_text(struct lt_buf *b, const struct lt_ingest_meter *m);

/* Appends the summary line of a run that took secs seconds. */
void lt_ingest_totals_text(struct lt_buf *b, const struct lt_ingest_totals *t, double secs);

/*
 * `leasetrail rebuild`: the text sources' years and zones weighed again
 * (lt_store_redate), then every lifecycle's tables rebuilt from the stored
 * events, each in one transaction (the derived tables are never half
 * updated), and the store's views brought up to this version's.
 */
int lt_rebuild_all(struct lt_store *st, struct lt_error *err);

/* Appends the names of every derived table, in the order ingest and rebuild build them. */
void lt_derived_names(struct lt_buf *out);

/*
 * 0 when every lifecycle's tables are current.  Otherwise 1, with one line
 * in *why (initialized here; release it) saying what lags and how to bring
 * it up to date: built by an older or a newer leasetrail, or behind the
 * stored events (an ingest still running, or interrupted).
 */
int lt_derived_check(struct lt_store *st, struct lt_buf *why);

/*
 * Recomputes every lease's episodes with other thresholds (gap_us, slow_us;
 * 0 keeps a default) into TEMP copies of the derived tables, visible to this
 * connection only: the store, even a read-only one, is not written.
 */
int lt_lifecycle_overlay(struct lt_store *st, int64_t gap_us, int64_t slow_us,
			 struct lt_error *err);

/* ---- running queries ----------------------------------------------------- */

#define LT_MAX_COLS 24

/*
 * Runs sql with binds ?1..?nbinds and hands its rows to out: result column i
 * read as cols[i].type says (text; an integer for INT, ID, TIME, DURATION; a
 * stored kind name for KIND), SQL NULL as no value.
 */
int lt_run_rows(struct lt_store *st, const char *sql, const struct lt_col *cols, int ncols,
		const int64_t *binds, int nbinds, const struct lt_row_sink *out,
		struct lt_error *err);

/* "90s", "15m", "2h", "1d", "1h30m", "250ms" to microseconds; 0 or LT_ERR_USAGE. */
int lt_duration_parse(int64_t *out, const char *s);

/*
 * A --since/--until argument: RFC 3339; "YYYY-MM-DD HH:MM[:SS[.f]]" (a
 * space or a T; a zone may follow); a date "YYYY-MM-DD" (its midnight); a
 * time of day "HH:MM[:SS[.f]]" on the day of end_us; epoch seconds
 * ("1712296560" or "@1712296560"); or a duration counted back from end_us
 * (the newest event in the store: logs are not live, so "2h" means the last
 * two hours of the logs).  A time without a zone is a wall time of the
 * display zone (lt_zone_set: UTC unless --tz), and so is the day of a time
 * of day.  0, LT_ERR_USAGE, or LT_ERR_NOTFOUND for a wall time the clocks
 * skipped (the spring-forward hour); one they showed twice is the first.
 */
int lt_time_arg(int64_t *out, const char *s, int64_t end_us);

/* The time of the newest stored event, 0 for an empty store. */
int64_t lt_store_end_us(struct lt_store *st);

/* ---- lifecycle commands ------------------------------------------------- */

/*
 * The quick filters of the requests `events`, `top`, `query` and `timeline`
 * read (queries-events.c): NULL or 0 is "any".  A text filter is exact, or a
 * glob when it holds '*' (any run of characters; nothing else is special);
 * resource is "R" (R and its subresources), "R/SUB", "R/" (no subresource) or
 * "/SUB"; every value is bound, never spliced into SQL.
 */
struct lt_filter {
	const char *user, *verb, *resource, *namespace_, *source_ip;
	int code;		/* the response's HTTP status */
	int failed;		/* only answers of 400 and above */
	int64_t slower_than_us; /* only requests whose latency is at least this */
};

/* 1 when some filter of f is set. */
int lt_filter_any(const struct lt_filter *f);

/*
 * The SQLite GLOB pattern of a filter value into out (truncated first): '*'
 * stays a wildcard, '?' and '[' become literal ("[?]", "[[]").
 */
void lt_filter_pattern(struct lt_buf *out, const char *value);

struct lt_query_opts {
	enum lt_out_format fmt;
	int64_t since_us, until_us; /* 0: open */
	int64_t gap_us, slow_us;    /* 0: the defaults */
	int verbose;
	int64_t cluster; /* --cluster: the id (lt_cluster_id) of the only cluster read; 0 all */
	int refs;	 /* timeline: one more column, LT_TL_REF (the report's provenance) */
	struct lt_filter filter; /* events, top, query, timeline: which requests */
};

/* ---- clusters (queries-cluster.c) ---------------------------------------- */

/* How many clusters the store holds (none named counts as one when audit events carry it). */
int lt_cluster_count(struct lt_store *st);

/* Each named cluster of the store, in name order. */
int lt_cluster_names(struct lt_store *st, void (*fn)(const char *name, void *ctx), void *ctx,
		     struct lt_error *err);

/* The id of the cluster named name in the store; 0 when it holds none of that name. */
int64_t lt_cluster_id(struct lt_store *st, const char *name);

/*
 * The queries below hand their rows to out (lt_printer_sink prints them);
 * o->fmt is the printer's business, not theirs.
 */

/* `leasetrail nodes`: one row per node, in the spirit of `kubectl get nodes`. */
int lt_query_nodes(struct lt_store *st, const struct lt_query_opts *o,
		   const struct lt_row_sink *out, struct lt_error *err);

/*
 * `leasetrail timeline NODE|NAMESPACE/LEASE`: episodes (and node events, and
 * log lines) in time order, in these columns.  KIND is a LT_CELL_KIND for
 * the query layer's rows (episodes, STALE, NODE_*) and a LT_CELL_TEXT for a
 * log line's kind (the parser's classification) and for "event", the
 * requests -v lists under an episode (whose END and COUNT are no value).
 * SOURCE is "audit" or the component whose log lines the row stands for.
 * With o->filter set, only the rows resting on a request the filters keep
 * (and, with -v, only those requests): no GAP, STALE, NotReady or log row.
 */
enum lt_timeline_col {
	LT_TL_START,	/* TIME */
	LT_TL_END,	/* TIME */
	LT_TL_SOURCE,	/* TEXT */
	LT_TL_KIND,	/* KIND or TEXT */
	LT_TL_COUNT,	/* INT: requests or log lines the row stands for */
	LT_TL_DETAIL,	/* TEXT: the one-line explanation */
	LT_TL_IDENTITY, /* TEXT: who is behind the actor of the row's request (LT_IDENTITY_SQL) */
	LT_TL_NCOLS,
	/* INT, only with opts.refs: the record the row rests on, an audit id (as `show ID`
	 * takes it) or minus a log line's id (`show L<id>`); no value when none */
	LT_TL_REF = LT_TL_NCOLS
};

int lt_query_timeline(struct lt_store *st, const char *target, const struct lt_query_opts *o,
		      const struct lt_row_sink *out, struct lt_error *err);

/*
 * The names `timeline` takes that start with prefix, for shell completion:
 * nodes (of their node lease) and other leases as NAMESPACE/NAME, in order,
 * at most limit; fn gets each.  Names with characters no Kubernetes name
 * has (spaces, quotes, control bytes) are skipped.  0 or an lt_err.
 */
int lt_query_names(struct lt_store *st, const char *prefix, int64_t limit,
		   void (*fn)(const char *name, size_t len, void *ctx), void *ctx,
		   struct lt_error *err);

/* The canned troubleshooting queries. */
struct lt_canned {
	const char *name;
	const char *summary;
};

/* The table of canned queries, NULL-name terminated. */
const struct lt_canned *lt_canned_list(void);

/* Runs canned query name; LT_ERR_NOTFOUND when there is no such query. */
int lt_query_canned(struct lt_store *st, const char *name, const struct lt_query_opts *o,
		    const struct lt_row_sink *out, struct lt_error *err);

/*
 * `leasetrail events`: one row per stored request (latest stage) in
 * [since, until] of o->cluster (0: all) that o->filter keeps, in time order:
 * ts, verb, resource (RESOURCE/SUBRESOURCE), namespace, name, code, user,
 * identity, source_ip, user_agent, latency (DURATION), event (ID, for `show`).
 */
int lt_query_events(struct lt_store *st, const struct lt_query_opts *o,
		    const struct lt_row_sink *out, struct lt_error *err);

/* What `top --by` counts requests by. */
enum lt_top_by {
	LT_TOP_USER,
	LT_TOP_VERB,
	LT_TOP_RESOURCE,
	LT_TOP_CODE,
	LT_TOP_SOURCE_IP,
	LT_TOP_USER_AGENT,
	LT_TOP_COUNT
};

/* The key named name ("user", "source-ip", ...) into *out; 0, or LT_ERR_USAGE. */
int lt_top_by_parse(enum lt_top_by *out, const char *name);
const char *lt_top_by_name(enum lt_top_by by);

/* The rows `top` prints when --limit does not say. */
#define LT_TOP_LIMIT 20

/*
 * `leasetrail top --by KEY`: the requests events would list, counted by KEY,
 * most first (ties by key): KEY, requests, failures (code >= 400), first,
 * last.  limit rows, 0 every one (as --limit says it).
 */
int lt_query_top(struct lt_store *st, enum lt_top_by by, int64_t limit,
		 const struct lt_query_opts *o, const struct lt_row_sink *out,
		 struct lt_error *err);

/* ---- the same questions in the clouds' query engines (--emit) ---- */

/* The query languages `--emit` writes (queries-emit*.c). */
enum lt_engine {
	LT_ENGINE_CWLI,	    /* CloudWatch Logs Insights, over an EKS log group */
	LT_ENGINE_KQL,	    /* Azure Log Analytics (Kusto), over AKS's tables */
	LT_ENGINE_LOGGING,  /* a Google Cloud Logging filter, over GKE's entries */
	LT_ENGINE_BIGQUERY, /* BigQuery standard SQL, over a Cloud Logging sink's dataset */
	LT_ENGINE_ATHENA,   /* Athena (Trino) SQL, over EKS logs exported to S3 */
	LT_ENGINE_COUNT
};

/* The engine's name as --emit takes it ("kql"), NULL for a value out of range. */
const char *lt_engine_name(enum lt_engine e);

/* Parses an engine name; 0 or LT_ERR_USAGE. */
int lt_engine_parse(enum lt_engine *out, const char *name);

/* What the emitted text reads from besides the query's own options. */
struct lt_emit_opts {
	enum lt_engine engine;
	const char
	    *table; /* --table: kql's table, bigquery's dataset, athena's shape; NULL: default */
	const char *cluster; /* --cluster: the engine's own cluster filter; NULL: every cluster */
};

/*
 * `leasetrail query NAME --emit ENGINE`: prints the query that asks canned
 * query name's question where the logs live, under comment lines naming
 * what it reads, the time range (o->since_us/until_us, 0 for open) and what
 * the engine cannot compute the way the store does (it then computes the
 * nearest thing).  Every value taken from the user is quoted for the
 * dialect; one with a control character other than tab, newline or carriage
 * return is refused (LT_ERR_USAGE), as is a --table the engine does not take.
 * o may be NULL.  Needs no store.  LT_ERR_NOTFOUND when there is no such query.
 */
int lt_emit_canned(const char *name, const struct lt_query_opts *o, const struct lt_emit_opts *e,
		   FILE *out, struct lt_error *err);

/*
 * `query --emit ENGINE events [TARGET...]` and `timeline --emit ENGINE
 * TARGET`: the narrowing query that returns whole records (every column)
 * of the audit events on the targets' leases and Node objects (a node: its
 * node lease and its Node, any subresource; NAMESPACE/NAME: that lease),
 * or of every lease and node event when ntargets is 0, in o's time range,
 * so an export of its result can be ingested into a store.  title heads
 * the text ("query events", "timeline NODE").  Errors as lt_emit_canned's.
 */
int lt_emit_events(const char *title, const char *const *targets, size_t ntargets,
		   const struct lt_query_opts *o, const struct lt_emit_opts *e, FILE *out,
		   struct lt_error *err);

/* What `show` shows: an audit event, or a log line (L<id>). */
enum lt_record { LT_RECORD_EVENT, LT_RECORD_LINE };

enum lt_show_flags { LT_SHOW_VERBOSE = 1 /* first, where the record came from */ };

/* `leasetrail show ID`: the event's raw JSON (flags: enum lt_show_flags). */
int lt_query_show(struct lt_store *st, int64_t id, unsigned flags, FILE *out, struct lt_error *err);

/* The same for an audit event or a log line. */
int lt_query_show_record(struct lt_store *st, int64_t id, enum lt_record rec, unsigned flags,
			 FILE *out, struct lt_error *err);

/* ---- browsing (the TUI) ---- */

/*
 * What the terminal browser reads, a page at a time, or whole where it is
 * bounded (the cluster list, LT_BROWSE_LIST_MAX): nothing here loads an
 * events or lines table.  Strings in these structures are owned by them and
 * are log text: sanitize before drawing.
 */

/* The order of the cluster list inside each section. */
enum lt_browse_sort {
	LT_BROWSE_BY_NAME,	 /* name */
	LT_BROWSE_BY_LAST_RENEW, /* oldest last renew first (never renewed on top) */
	LT_BROWSE_BY_ANOMALIES,	 /* most anomaly episodes first, then name */
	LT_BROWSE_BY_NOT_READY,	 /* longest NotReady time first (node health), then name */
	/*
	 * what matters first: not-ready (longest first), orphaned, deleted and not-found,
	 * stale and no-renews, then rows with gaps or NotReady time, then with other
	 * anomalies, then the rest; by name inside each
	 */
	LT_BROWSE_BY_PROBLEMS,
	LT_BROWSE_BY_STATE,	/* by state's name, then name */
	LT_BROWSE_BY_NOT_FOUND, /* most 404s first */
	LT_BROWSE_BY_DELETES,	/* most deletes (of the lease and of its Node object) first */
	LT_BROWSE_SORT_COUNT
};

/* The sections of the cluster list, in display order. */
enum lt_browse_section { LT_BROWSE_NODES, LT_BROWSE_LEADERS, LT_BROWSE_APISERVERS };

/*
 * One item of the cluster list: a section's heading (heading set; count is
 * the number of rows listed under it), or a node (its kube-node-lease lease,
 * or a Node object that never had one: lease_id 0) or another lease.
 */
struct lt_browse_item {
	int heading;
	enum lt_browse_section section;
	int64_t lease_id;
	char *target; /* what `timeline` takes: the node, or "NAMESPACE/NAME"; NULL for a heading */
	char *state;  /* as `nodes` says it: renewing, stale, deleted, orphaned, re-created, ... */
	int64_t first_us, last_us, last_renew_us; /* 0 = none */
	int64_t renews, not_found, deletes, gaps, auth_failures, slow, conflicts;
	int64_t anomalies; /* GAP, NOT_FOUND, AUTH_FAILURE and SLOW episodes */
	int64_t not_ready,
	    not_ready_us; /* a node's NotReady windows, their time (open: to the end) */
	int64_t count;	  /* a heading's rows */
};

struct lt_browse_page {
	struct lt_browse_item *items;
	size_t n;
	size_t total;	   /* items (headings included) of the whole, filtered list */
	int64_t *name_ids; /* each item's name (its Node object's deletes are read by it) */
	unsigned char *deletes_read; /* nonzero: the item's deletes hold its Node object's */
};

/*
 * Which list: the order, and an optional filter on each row (nonzero keeps
 * it).  The filter sees the row as the list reads it: every field but
 * deletes, which counts the lease's deletes only (the Node object's are
 * added to the page afterwards).
 */
struct lt_browse_query {
	enum lt_browse_sort sort;
	int (*keep)(const struct lt_browse_item *it, void *ctx); /* NULL keeps every row */
	void *ctx;
};

/*
 * Fills *out (overwritten; release it) with items offset..offset+limit-1 of
 * the cluster list q describes, and the list's total.  Without a filter
 * SQLite pages (LIMIT/OFFSET); with one, rows stream by and only the page is
 * kept.  A section's heading is listed only when a row of it is.
 */
int lt_browse_list(struct lt_browse_page *out, struct lt_store *st, const struct lt_browse_query *q,
		   size_t offset, size_t limit, struct lt_error *err);

/*
 * The most items (headings included) of the cluster list the TUI holds in
 * memory: it reads the list once per reload, filter and sort
 * (lt_browse_list(out, st, q, 0, LT_BROWSE_LIST_MAX, err)) and pages from
 * it, so a step runs no list query.  An item is about 200 bytes with its
 * strings: 13 MB at the limit, far above a real cluster (Kubernetes
 * supports 5000 nodes; one lease each, a few dozen leader leases).  Past
 * it the screen holds the first LT_BROWSE_LIST_MAX items in the order
 * asked and says "first N of TOTAL": a filter or another sort reaches the
 * rest.
 */
#define LT_BROWSE_LIST_MAX 65536

/*
 * The whole list q describes into *out (overwritten; release it), up to
 * LT_BROWSE_LIST_MAX items, total the whole list's count.  The Node
 * objects' deletes are not read yet (their count costs a lookup per node):
 * lt_browse_deletes adds them for the rows about to be shown.
 */
int lt_browse_list_all(struct lt_browse_page *out, struct lt_store *st,
		       const struct lt_browse_query *q, struct lt_error *err);

/*
 * Adds to items from..from+n-1 of p (clipped to p->n) their Node objects'
 * deletes, as `nodes` counts them, once per item: one statement for the
 * items not read yet, none when every one is.
 */
int lt_browse_deletes(struct lt_browse_page *p, struct lt_store *st, size_t from, size_t n,
		      struct lt_error *err);
void lt_browse_page_release(struct lt_browse_page *p);

/* Which way a search goes. */
enum lt_browse_dir { LT_BROWSE_FORWARD, LT_BROWSE_BACKWARD };

/*
 * The index in list (a whole list: lt_browse_list from offset 0, as the TUI
 * holds it) of the next row (not a heading) after from (before it,
 * LT_BROWSE_BACKWARD) whose target match() accepts, wrapping around the
 * end, from itself last.  No SQL: a search costs a pass over memory.
 * LT_ERR_NOTFOUND when there is none.
 */
int lt_browse_find(size_t *out, const struct lt_browse_page *list, size_t from,
		   enum lt_browse_dir dir, int (*match)(const struct lt_browse_item *it, void *ctx),
		   void *ctx, struct lt_error *err);

/* The time the store's leases cover (first and last event, µs); 0 and 0 when empty. */
int lt_browse_span(int64_t *first_us, int64_t *last_us, struct lt_store *st, struct lt_error *err);

/* One episode of a lease, reduced to what a heartbeat strip needs. */
struct lt_browse_episode {
	int64_t lease_id;
	enum lt_episode_kind kind;
	int64_t start_us, end_us;
};

struct lt_browse_episodes {
	struct lt_browse_episode *eps;
	size_t n;
};

/*
 * The episodes of the leases ids[0..n-1] that overlap [from_us, to_us], and
 * for each lease the last one that starts before from_us (the state the
 * window opens in), ordered by lease and start.  One query for all of them.
 * None (a range before every episode): out->eps is NULL, so a slice of it
 * must not be taken as out->eps + 0.
 */
int lt_browse_episodes(struct lt_browse_episodes *out, struct lt_store *st, const int64_t *ids,
		       size_t n, int64_t from_us, int64_t to_us, struct lt_error *err);
void lt_browse_episodes_release(struct lt_browse_episodes *e);

/* ---- the cluster-wide histogram (queries-hist.c) --------------------------- */

#define LT_HIST_MAX_BINS 1024 /* a screen's worth of rows, and then some */

struct lt_hist_bin {
	int64_t events;	   /* audit events (not superseded) and log lines */
	int64_t errors;	   /* of those: answered 400 or more, or of severity E or F */
	int64_t not_ready; /* nodes NotReady at some time in the bin (node health) */
};

struct lt_hist {
	struct lt_hist_bin *bins;
	size_t n;
	int64_t from_us, bin_us; /* bin i is [from_us + i * bin_us, from_us + (i + 1) * bin_us) */
};

/*
 * Counts the events, errors and NotReady nodes of nbins bins of bin_us each
 * from from_us (nbins at most LT_HIST_MAX_BINS): the events and errors from
 * the counts the store keeps per minute or per second when the bins and
 * from_us are whole ones and the counts are current, else from one grouped
 * statement over the window's rows (the same numbers, a scan of the store);
 * then node health's windows in it.  A store from before node
 * health counts no NotReady node.  lt_hist_release frees out (also on error).
 */
int lt_browse_hist(struct lt_hist *out, struct lt_store *st, int64_t from_us, int64_t bin_us,
		   size_t nbins, struct lt_error *err);
void lt_hist_release(struct lt_hist *h);

/*
 * Runs canned query name with o's range and thresholds (o->fmt is ignored)
 * and keeps its rows in *out (released first): the cells `leasetrail query`
 * prints.  Thresholds are applied on a second, read-only connection, so
 * st's other views keep the stored episodes.
 */
int lt_browse_canned(struct lt_rows *out, struct lt_store *st, const char *name,
		     const struct lt_query_opts *o, struct lt_error *err);

/*
 * The timeline of target (a node, or "NAMESPACE/NAME") into *out (released
 * first), row for row and cell for cell what `leasetrail timeline` prints
 * (columns enum lt_timeline_col, and LT_TL_REF: the record each row rests
 * on): the one place that makes the TUI's timeline rows.  LT_ERR_NOTFOUND
 * for an unknown target.
 */
int lt_browse_timeline(struct lt_rows *out, struct lt_store *st, const char *target,
		       struct lt_error *err);

/* One stored request, as the timeline's expansion lists it. */
struct lt_browse_event {
	int64_t id, ts_us, latency_us, code;
	char *verb, *subresource, *user, *source_ip, *user_agent; /* "" when absent */
};

struct lt_browse_events {
	struct lt_browse_event *evs;
	size_t n;
	size_t total; /* events in [from_us, to_us] */
};

/* Whose requests: target's lease, or the Node object of the node target names. */
enum lt_browse_object { LT_BROWSE_LEASE, LT_BROWSE_NODE_OBJECT };

/*
 * Events offset..offset+limit-1, in time order, of target's lease or Node
 * object (obj) between from_us and to_us included, and how many there are
 * in all.
 */
int lt_browse_events(struct lt_browse_events *out, struct lt_store *st, const char *target,
		     enum lt_browse_object obj, int64_t from_us, int64_t to_us, size_t offset,
		     size_t limit, struct lt_error *err);
void lt_browse_events_release(struct lt_browse_events *e);

/* One stored log line, as the timeline's lines pane lists it. */
struct lt_browse_line {
	int64_t id, ts_us, line;	 /* line: its number in file */
	char *severity, *message, *file; /* "" when absent; file: the path it was read from */
};

struct lt_browse_lines {
	struct lt_browse_line *lines;
	size_t n;
	size_t total; /* lines of the row in [from_us, to_us] */
};

/*
 * The log lines behind a timeline row of target that rests on log line
 * line_id (minus its LT_TL_REF): lines offset..offset+limit-1, in time
 * order, of the same component, kind, severity, message and object as that
 * line, between from_us and to_us included, written on target's node or
 * naming target, and how many there are in all (the row's COUNT: a run is
 * such lines).  None when line_id names no line.
 */
int lt_browse_lines(struct lt_browse_lines *out, struct lt_store *st, const char *target,
		    int64_t line_id, int64_t from_us, int64_t to_us, size_t offset, size_t limit,
		    struct lt_error *err);
void lt_browse_lines_release(struct lt_browse_lines *l);

/* ---- the incident report ------------------------------------------------- */

enum lt_report_format { LT_REPORT_MD, LT_REPORT_HTML };

/* "md" (or "markdown"), "html"; 0 or LT_ERR_USAGE. */
int lt_report_format_parse(enum lt_report_format *out, const char *name);

/*
 * `leasetrail report`: the findings of the canned queries over o's range
 * (node and lease deletes and who did them, the garbage collector's lease
 * deletes, orphaned kubelets, re-registrations, re-created leases, NotReady
 * windows with their cause, leader changes, refused requests), a few
 * sentences that tell them, the timeline of each subject (targets[0..n-1],
 * or with n == 0 those the findings name) with the file and line of every
 * row's record, and the cluster's heartbeat strip: computed into *out
 * (lt_report_free it).  LT_ERR_NOTFOUND when a target names no node or lease.
 */
struct lt_report;
int lt_report_build(struct lt_report **out, struct lt_store *st, char *const *targets, size_t n,
		    const struct lt_query_opts *o, struct lt_error *err);

/*
 * Writes r to f as one self-contained document: Markdown (CommonMark with
 * pipe tables; pictures as data: SVG images, the strip also as text) or
 * HTML (inline style and SVG, no script, nothing external).  Every string
 * from the store is escaped for the format.  0 or LT_ERR_IO ("cannot write
 * the output: ..."); a closed pipe (EPIPE) stops the writing and is no error.
 */
int lt_report_write(const struct lt_report *r, enum lt_report_format fmt, FILE *f,
		    struct lt_error *err);
void lt_report_free(struct lt_report *r);

/* ---- node health ---------------------------------------------------------- */

/* The Ready condition of a NotReady window. */
enum lt_node_condition { LT_CONDITION_UNKNOWN, LT_CONDITION_FALSE };

/* Why a node was NotReady, as far as the evidence goes (README: the rules). */
enum lt_notready_cause {
	LT_CAUSE_UNKNOWN,
	LT_CAUSE_NETWORK_PARTITION,
	LT_CAUSE_KUBELET_STOPPED,
	LT_CAUSE_NODE_REBOOTED,
	LT_CAUSE_RUNTIME_DOWN,
	LT_CAUSE_PLEG,
	LT_CAUSE_CNI,
	LT_CAUSE_KUBELET_REPORTED,
	LT_CAUSE_INSTANCE_TERMINATED,
	LT_CAUSE_COUNT
};

/* "network-partition", "pleg-unhealthy", ...: as stored and printed. */
const char *lt_notready_cause_name(enum lt_notready_cause c);

/* What a window rests on. */
enum lt_health_evidence {
	LT_HEALTH_EV_AUDIT = 1,	     /* audit events (node-controller, kubelet writes) */
	LT_HEALTH_EV_CONTROLLER = 2, /* controller-manager log lines */
	LT_HEALTH_EV_KUBELET = 4,    /* the kubelet's own log lines */
};

/* How a window ended. */
enum lt_health_end { LT_HEALTH_OPEN, LT_HEALTH_RECOVERED, LT_HEALTH_DELETED };

/* One NotReady window of a node. */
struct lt_health_window {
	int64_t start_us, end_us; /* end_us 0 while open */
	enum lt_node_condition condition;
	enum lt_notready_cause cause;
	enum lt_health_end end;
	unsigned evidence;	    /* enum lt_health_evidence bits */
	int64_t start_ref, end_ref; /* audit event id, or -(log line id); 0 = none */
	int64_t alive_before_us;    /* the node's last renew before the window, 0 = unknown */
	int64_t evicted_pods;
	struct lt_buf reason; /* the kubelet's Ready=False message, "" when none */
	struct lt_buf taints; /* "+NAME:EFFECT,-NAME:EFFECT" in order seen, "" when none named */
	int ntaints;
};

/* "Unknown" or "False"; "open", "recovered" or "deleted"; as stored and printed. */
const char *lt_node_condition_name(enum lt_node_condition c);
const char *lt_health_end_name(enum lt_health_end e);

/* "audit+controller-log+kubelet-log": the evidence bits as text, into buf. */
void lt_health_evidence_text(char *buf, size_t size, unsigned ev);

#endif
