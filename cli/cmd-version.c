/* cmd-version.c - `leasetrail version`: this build, and the libraries it runs with. */
#include "cli.h"

#ifndef LT_COMMIT
#define LT_COMMIT "unknown" /* cli/CMakeLists.txt sets it from git at configure time */
#endif

static int version_run(const struct lt_cmd *cmd, int argc, char **argv)
{
	struct cli_query q;
	int status;

	if (cli_parse(cmd, argc, argv, &q, &status) != 0)
		return status;
	printf("leasetrail %s\n"
	       "commit  %s\n"
	       "SQLite  %s\n"
	       "yajl    %s\n"
	       "PCRE2   %s\n",
	       LT_VERSION, LT_COMMIT, lt_store_sqlite_version(), lt_json_library_version(),
	       lt_regex_version());
	return LT_EXIT_OK;
}

const struct lt_cmd lt_cmd_version = {
    .name = "version",
    .usage = "",
    .summary = "Print leasetrail's version, git commit, and the SQLite, yajl and PCRE2 it runs "
	       "with.",
    .help = "Options:\n"
	    "  -h, --help   this help\n\n"
	    "`leasetrail --version` and `-V` print the same.  The commit is the source tree's at\n"
	    "build configuration (\"unknown\" when it was not a git checkout); the libraries'\n"
	    "versions are those loaded at run time.\n",
    .exits = "0 done; 2 usage error.\n",
    .run = version_run,
    .min_args = 0,
    .max_args = 0,
};
