/* cli.h - the subcommand table and what the commands share. */
#ifndef LT_CLI_H
#define LT_CLI_H

#include "lt_queries.h"

/* Exit statuses, documented in README.md. */
enum lt_exit {
	LT_EXIT_OK = 0,	     /* everything read and stored */
	LT_EXIT_FAIL = 1,    /* something could not be done: a file, the store */
	LT_EXIT_USAGE = 2,   /* the command line is wrong */
	LT_EXIT_PARTIAL = 3, /* done, but some records were rejected or a file was cut short */
};

struct lt_cmd {
	const char *name;
	const char *usage;   /* the arguments after the name */
	const char *summary; /* one line for `leasetrail --help` */
	const char *help;    /* the options, one per line */
	int (*run)(const struct lt_cmd *cmd, int argc, char **argv);
};

extern const struct lt_cmd lt_cmd_ingest;
extern const struct lt_cmd lt_cmd_stats;
extern const struct lt_cmd lt_cmd_show;
extern const struct lt_cmd lt_cmd_sql;
extern const struct lt_cmd lt_cmd_nodes;
extern const struct lt_cmd lt_cmd_timeline;
extern const struct lt_cmd lt_cmd_query;
extern const struct lt_cmd lt_cmd_rebuild;

/* The options of the lifecycle commands, parsed. */
struct cli_query {
	const char *db, *since, *until;
	struct lt_query_opts opts;
	int list, help;
	char **args; /* what is left after the options */
	int nargs;
};

/* Parses the shared options; 0, or the exit status of a usage error. */
int cli_query_parse(const struct lt_cmd *cmd, int argc, char **argv, struct cli_query *q);

/* Opens the store read-only and resolves --since/--until against its end; 0 or a status. */
int cli_query_open(const struct lt_cmd *cmd, struct cli_query *q, struct lt_store **st);

/* The options text the lifecycle commands share, for their --help. */
#define CLI_QUERY_OPTIONS                                                                          \
	"  --db FILE         the store (default $LEASETRAIL_DB, else ./leasetrail.db)\n"           \
	"  -o, --output F    table (default), csv, json or jsonl\n"                                \
	"  --since T         RFC 3339, or a duration back from the newest event (2h, 30m)\n"       \
	"  --until T         likewise\n"                                                           \
	"  --gap D           a GAP is a wait between renews longer than D (default: the lease's\n" \
	"                    leaseDurationSeconds, else 40s for node and identity leases, 15s\n"   \
	"                    for leader leases)\n"                                                 \
	"  --slow D          a renew slower than D is SLOW (default 1s)\n"

/* Prints "leasetrail: MSG" on stderr, sanitized; returns status. */
int cli_error(int status, const struct lt_error *err);

/* Prints "leasetrail CMD: MSG" and a hint to --help; returns LT_EXIT_USAGE. */
int cli_usage_error(const struct lt_cmd *cmd, const char *msg);

/* Prints the command's usage and options on f. */
void cli_help(const struct lt_cmd *cmd, FILE *f);

/* Maps an lt_err to an exit status. */
int cli_status(int rc);

#endif
