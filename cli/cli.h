/* cli.h - the subcommand table and what the commands share. */
#ifndef LT_CLI_H
#define LT_CLI_H

#include "lt_queries.h"

/* Exit statuses, documented in each command's --help and in the man page (docs/leasetrail.1). */
enum lt_exit {
	LT_EXIT_OK = 0,	       /* everything read and stored */
	LT_EXIT_FAIL = 1,      /* something could not be done: a file, the store */
	LT_EXIT_USAGE = 2,     /* the command line is wrong */
	LT_EXIT_PARTIAL = 3,   /* done, but some records were rejected or a file was cut short */
	LT_EXIT_TIMEOUT = 124, /* `sql --timeout` stopped the query (as timeout(1) exits) */
};

/* The options a command takes besides --db and --help (cli_parse refuses the others). */
enum cli_opt {
	CLI_OPT_OUTPUT = 1,	/* -o FORMAT */
	CLI_OPT_RANGE = 2,	/* --since, --until */
	CLI_OPT_THRESHOLDS = 4, /* --gap, --slow */
	CLI_OPT_VERBOSE = 8,	/* -v */
	CLI_OPT_LIST = 16,	/* --list */
	CLI_OPT_EMIT = 32,	/* --emit ENGINE, --table, --cluster */
	CLI_OPT_INGEST =
	    64, /* --all-resources, --year, --utc-offset, --node, --follow, -q, --json */
	CLI_OPT_TIMEOUT = 128, /* --timeout SECONDS (sql) */
	CLI_OPT_CLUSTER = 256, /* --cluster NAME: at ingest the records' cluster, else a filter */
	CLI_OPT_DOCUMENT =
	    512, /* -o md|html (taken as is: the command parses it), -O FILE (report) */
	CLI_OPT_FILTER = 1024, /* --user, --verb, --resource, --namespace, --code, --failed,
				  --source-ip, --slower-than (struct lt_filter) */
	CLI_OPT_TOP = 2048,    /* --by KEY, --limit N */
};

struct lt_cmd {
	const char *name;
	const char *usage;   /* the arguments after the name */
	const char *summary; /* one line for `leasetrail --help` */
	const char *help;    /* the options, one per line ("  -x, --long ARG  what it does") */
	const char *exits;   /* "Exit status: ..." for --help; NULL: CLI_EXITS_READ */
	int (*run)(const struct lt_cmd *cmd, int argc, char **argv);
	unsigned opts;		/* enum cli_opt bits */
	int min_args, max_args; /* positional arguments accepted */
	int hidden;		/* not listed by `leasetrail --help` (the completion helper) */
};

/* The exit statuses of a command that reads the store for a NAME (node or lease). */
#define CLI_EXITS_READ                                                                             \
	"0 done; 1 the store could not be read, or no node or lease has that name; 2 usage\n"      \
	"error (an unknown option, a missing argument, --since after --until).\n"

/* The exit statuses of a command that reads the store, no name given. */
#define CLI_EXITS_STORE                                                                            \
	"0 done; 1 the store could not be read; 2 usage error (an unknown option, a missing\n"     \
	"argument).\n"

/* The commands, in the order `leasetrail --help` lists them; *n gets their number. */
const struct lt_cmd *const *cli_commands(size_t *n);

/* The command named name (hidden ones too), or NULL. */
const struct lt_cmd *cli_find(const char *name);

/*
 * The candidate nearest to word by edit distance (insertions, deletions,
 * substitutions, swaps of two neighbours), when near enough to be a typo
 * (at most 2 edits, and fewer than half of word's length); else NULL.
 */
const char *cli_suggest(const char *word, const char *const *cands, size_t n);

/*
 * Calls fn with every option cmd's --help lists ("--db", "-o", "--output"),
 * read from the lines of cmd->help that start with "  -": the words before
 * the description, meta-arguments (FILE, D, ±HH:MM) skipped.
 */
void cli_help_options(const struct lt_cmd *cmd, void (*fn)(const char *opt, size_t len, void *ctx),
		      void *ctx);

extern const struct lt_cmd lt_cmd_ingest;
extern const struct lt_cmd lt_cmd_stats;
extern const struct lt_cmd lt_cmd_show;
extern const struct lt_cmd lt_cmd_sql;
extern const struct lt_cmd lt_cmd_nodes;
extern const struct lt_cmd lt_cmd_timeline;
extern const struct lt_cmd lt_cmd_query;
extern const struct lt_cmd lt_cmd_rebuild;
extern const struct lt_cmd lt_cmd_tui;
extern const struct lt_cmd lt_cmd_version;
extern const struct lt_cmd lt_cmd_complete;
extern const struct lt_cmd lt_cmd_report;
extern const struct lt_cmd lt_cmd_events;
extern const struct lt_cmd lt_cmd_top;

/* The quick filters' lines of a --help (CLI_OPT_FILTER). */
#define CLI_FILTER_OPTIONS                                                                         \
	"  --user U          only requests by user U (exact; '*' matches any run of\n"             \
	"                    characters: 'system:node:*')\n"                                       \
	"  --verb V          only verb V (get, update, delete...; '*' likewise)\n"                 \
	"  --resource R      only resource R and its subresources (leases, nodes; '*'\n"           \
	"                    likewise); R/SUB one subresource (nodes/status), R/ the\n"            \
	"                    object alone, /SUB that subresource of any resource\n"                \
	"  --namespace NS    only namespace NS ('*' likewise)\n"                                   \
	"  --source-ip IP    only requests from IP ('10.0.*' likewise)\n"                          \
	"  --code N          only answers with HTTP status N (404, 409...)\n"                      \
	"  --failed          only answers of 400 and above\n"                                      \
	"  --slower-than D   only requests that took D or longer (stageTimestamp -\n"              \
	"                    requestReceivedTimestamp; 500ms, 2s)\n"

/* A command line, parsed. */
struct cli_query {
	const char *db, *since, *until;
	struct lt_query_opts opts;
	int list, help;
	const char *emit; /* --emit ENGINE: print the query in ENGINE's language instead */
	struct lt_emit_opts emit_opts; /* the engine, --table, --cluster */
	const char *timeout;	       /* --timeout SECONDS, as given (the command parses it) */
	const char *cluster;	       /* --cluster NAME, as given (cli_query_open resolves it) */
	const char *doc_format;	       /* CLI_OPT_DOCUMENT: -o as given, NULL when not */
	const char *out_file;	       /* -O FILE, NULL: standard output */
	const char *tz;		       /* --tz ZONE, as given (cli_parse sets the display zone) */
	int utc;		       /* --utc: UTC whatever --tz or $LEASETRAIL_TZ say */
	int wide;		       /* -o wide: a table, never cut to the terminal's width */
	enum lt_top_by top_by;	       /* --by KEY */
	int top_by_given;
	int64_t top_limit;	      /* --limit N (0: every row), LT_TOP_LIMIT by default */
	struct lt_ingest_opts ingest; /* CLI_OPT_INGEST: what to read and how */
	int quiet;		      /* -q: no line per ingested file */
	int json;		      /* ingest --json: the report as one JSON object */
	char **args;		      /* the positional arguments */
	int nargs;
};

/*
 * Parses --db, --help and the options cmd->opts allows, and checks the
 * number of positional arguments.  0 to go on; otherwise the exit status
 * (0 after --help, LT_EXIT_USAGE after a usage error already printed).
 */
int cli_parse(const struct lt_cmd *cmd, int argc, char **argv, struct cli_query *q, int *status);

/* A usage error (printed, LT_EXIT_USAGE) when --since resolved to a time after --until; else 0. */
int cli_range_check(const struct lt_cmd *cmd, const struct cli_query *q);

/*
 * A --since/--until argument (opt names it) into *out by lt_time_arg, or a
 * usage error printed (a time the clocks skipped says so); 0 or LT_EXIT_USAGE.
 */
int cli_time_arg(const struct lt_cmd *cmd, int64_t *out, const char *opt, const char *arg,
		 int64_t end_us);

/* Opens the store read-only and resolves --since/--until against its end; 0 or a status. */
int cli_query_open(const struct lt_cmd *cmd, struct cli_query *q, struct lt_store **st);

/*
 * The whole of a read-only command: parse, open, run fn, close.  fn returns
 * 0 or an lt_err with err filled; LT_ERR_USAGE exits 2, any other error 1.
 */
int cli_run_readonly(const struct lt_cmd *cmd, int argc, char **argv,
		     int (*fn)(struct lt_store *st, struct cli_query *q, struct lt_error *err));

/*
 * The same for a command that parsed its arguments itself (to check them
 * first): open, run fn on q, close.  Each command's arguments are parsed once.
 */
int cli_run_parsed(const struct lt_cmd *cmd, struct cli_query *q,
		   int (*fn)(struct lt_store *st, struct cli_query *q, struct lt_error *err));

/* The zone options, for the --help of every command that shows times. */
#define CLI_ZONE_OPTIONS                                                                           \
	"  --tz ZONE         show times in ZONE, with its offset, and read times written\n"        \
	"                    without one in it: an IANA name (Europe/Berlin), local ($TZ,\n"       \
	"                    else /etc/localtime), or +05:30 (default $LEASETRAIL_TZ, else UTC)\n" \
	"  --utc             show and read times in UTC, whatever --tz or $LEASETRAIL_TZ say\n"

/* The store and output options of every command that reads the store and prints rows. */
#define CLI_STORE_OPTIONS                                                                          \
	"  --db FILE         the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"           \
	"  -o, --output F    table (default; on a terminal, cut to fit it), wide (a table,\n"      \
	"                    nothing cut), csv, json or jsonl\n"

/* The options text the lifecycle commands share, for their --help. */
#define CLI_QUERY_OPTIONS                                                                          \
	CLI_STORE_OPTIONS                                                                          \
	"  --since T         RFC 3339, YYYY-MM-DD [HH:MM[:SS]], YYYY-MM-DD, HH:MM[:SS] (on\n"      \
	"                    the day of the newest event), epoch seconds, or a duration back\n"    \
	"                    from the newest event (2h, 30m); without a zone, in --tz's\n"         \
	"  --until T         likewise\n" CLI_ZONE_OPTIONS                                          \
	"  --gap D           a GAP is a wait between renews longer than D (default: the lease's\n" \
	"                    leaseDurationSeconds, else 40s for node and identity leases, 15s\n"   \
	"                    for leader leases)\n"                                                 \
	"  --slow D          a renew slower than D is SLOW (default 1s)\n"                         \
	"  -h, --help        this help\n"

/* The emit options' lines of a --help. */
#define CLI_EMIT_OPTIONS                                                                           \
	"  --emit ENGINE     print the query instead of running it, for ENGINE: cwli\n"            \
	"                    (CloudWatch Logs Insights), kql (Azure Log Analytics), logging\n"     \
	"                    (Cloud Logging filter), bigquery (a log sink's dataset) or athena\n"  \
	"                    (EKS logs exported to S3); needs no store\n"                          \
	"  --table T         with --emit: kql's table (AKSAudit, AKSAuditAdmin,\n"                 \
	"                    AzureDiagnostics), bigquery's dataset (PROJECT.DATASET), athena's\n"  \
	"                    table shape (export, firehose)\n"                                     \
	"                    (--cluster: the engine's own filter: log group, _ResourceId,\n"       \
	"                    cluster_name, partition)\n"

/*
 * `--emit` needs no store: --since/--until resolved (a duration from the
 * store's newest event when there is a store, else from now) and checked;
 * 0 or the exit status of the usage error printed.
 */
int cli_emit_range(const struct lt_cmd *cmd, struct cli_query *q);

/* Prints the query (lt_emit_events) of the targets; the exit status. */
int cli_emit_events(const struct lt_cmd *cmd, struct cli_query *q, const char *title,
		    char **targets, size_t n);

/* The usage error of a --since/--until that is no time. */
#define CLI_TIME_FORMS                                                                             \
	"--since/--until take RFC 3339, YYYY-MM-DD [HH:MM[:SS]], epoch seconds, a time of day "    \
	"HH:MM[:SS] or a duration like 2h"

/* Prints "leasetrail: MSG" on stderr, sanitized; returns status. */
int cli_error(int status, const struct lt_error *err);

/*
 * Frees p after a result printed to stdout; rc, or LT_ERR_IO in err when a write failed
 * (a full disk), except EPIPE: a reader that has read enough is no failure.
 */
int cli_printer_done(struct lt_printer *p, int rc, struct lt_error *err);

/* Prints "leasetrail CMD: MSG" and a hint to --help; returns LT_EXIT_USAGE. */
int cli_usage_error(const struct lt_cmd *cmd, const char *msg);

/* Prints the command's usage and options on f. */
void cli_help(const struct lt_cmd *cmd, FILE *f);

/* Maps an lt_err to an exit status. */
int cli_status(int rc);

#endif
