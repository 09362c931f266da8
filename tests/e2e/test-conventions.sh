#!/usr/bin/env bash
# The command-line conventions every command follows (issue 19, item 6):
# errors name what is wrong (an unknown option, a missing argument) and suggest the nearest
# command, option or query; `help [COMMAND]` and `version`; the JSON forms of stats, query
# --list and ingest; exit statuses: an unknown name is 1 everywhere, usage errors are 2
# (--since after --until too), rebuild never creates a store, an ingest of missing files
# makes none.
# Usage: test-conventions.sh BINARY CORPUS SAMPLES TMP
set -euo pipefail
bin=$(realpath "$1") samples=$3 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# run STATUS ERR_GREP ARGS...: the exit status is STATUS and stderr has ERR_GREP (fixed).
run() {
	local want=$1 msg=$2 got
	shift 2
	set +e
	"$bin" "$@" >out 2>err
	got=$?
	set -e
	[ "$got" = "$want" ] || fail "leasetrail $*: exit $got, want $want ($(cat err))"
	[ -z "$msg" ] || grep -qF -- "$msg" err || fail "leasetrail $*: stderr lacks '$msg': $(cat err)"
}

"$bin" ingest -q --db s.db "$samples/audit" "$samples/logs" >/dev/null

# Errors that name what is wrong.
run 2 "leasetrail nodes: unknown option '--foo'" nodes --db s.db --foo
run 2 "leasetrail nodes: unknown option '--foo'" nodes --db s.db --foo=1
run 2 "leasetrail nodes: unknown option '--since'" nodes --db s.db --since 2h
run 2 "leasetrail timeline: unknown option '-x'" timeline --db s.db -x n
run 2 "leasetrail nodes: unknown option '-v'" nodes --db=s.db -vq
run 2 "leasetrail stats: option '--db' needs an argument" stats --db
run 2 "leasetrail query: option '-o' needs an argument" query who-deleted -o
run 2 "unknown option '--gpa'; did you mean '--gap'?" query --gpa 1s renew-gaps
run 2 "leasetrail: unknown command 'ingets'; did you mean 'ingest'?" ingets x
run 2 "did you mean 'timeline'?" time x
run 2 "leasetrail: unknown command 'frobnicate'; \`leasetrail --help\` lists them" frobnicate
run 2 "options come after the command" --db s.db nodes
run 2 "wrong number of arguments" timeline --db s.db a b

# An unknown name is 1 everywhere, with the nearest name when it looks like a typo.
run 1 "no canned query 'renw-gaps'; did you mean 'renew-gaps'?" query --db s.db renw-gaps
run 1 "no canned query 'renw-gaps'" query --emit cwli renw-gaps
run 1 "no canned query 'zzz' (\`leasetrail query --list\` names them)" query --db s.db zzz
run 1 "no lease or node named 'no-such-node'" timeline --db s.db no-such-node
run 1 "" show --db s.db 999999999
run 2 "" show --db s.db not-a-number

# --since after --until is a usage error, for the store's queries and for --emit alike.
run 2 "--since is after --until" timeline --db s.db --since 2024-04-05T06:00:00Z \
	--until 2024-04-05T05:00:00Z ip-10-0-241-171.ec2.internal
run 2 "--since is after --until" query --db s.db --since 1m --until 2m renew-gaps
run 2 "--since is after --until" query --emit cwli --since 2024-04-05T06:00:00Z \
	--until 2024-04-05T05:00:00Z who-deleted
run 0 "" query --db s.db --since 2m --until 1m renew-gaps

# --since/--until as people write them: the same range as its RFC 3339 form.
node=ip-10-0-241-171.ec2.internal
"$bin" timeline --db s.db --since 2024-04-05T05:56:00Z --until 2024-04-05T06:00:00Z $node >rfc.out
[ "$(wc -l <rfc.out)" -gt 2 ] || fail "timeline --since/--until: $(cat rfc.out)"
# (a time of day is on the day of the newest event in the store: 2024-04-05)
for since in "2024-04-05 05:56" "2024-04-05 05:56:00" "2024-04-05T05:56" "2024-04-05 07:56+02:00" \
	1712296560 @1712296560 05:56 05:56:00; do
	"$bin" timeline --db s.db --since "$since" --until "2024-04-05 06:00" $node >loose.out
	cmp -s rfc.out loose.out || fail "timeline --since '$since' differs from its RFC 3339 form"
done
"$bin" timeline --db s.db --since 2024-04-05 --until 2024-04-06 $node >date.out
"$bin" timeline --db s.db $node >all.out
cmp -s date.out all.out || fail "timeline --since DATE --until NEXT-DATE is not the whole day"
for bad in "2024-13-05" "2024-04-05 25:00" "2024-04-05 05:5" "5:56" "24:00" 12345678901234 \
	"2024-04-05  05:56"; do
	run 2 "--since/--until take RFC 3339, YYYY-MM-DD [HH:MM[:SS]], epoch seconds" \
		timeline --db s.db --since "$bad" $node
done

# No store made for nothing.
run 1 "no store here" rebuild --db none.db
[ ! -e none.db ] || fail "rebuild made a store"
run 1 "missing.log: No such file or directory" ingest --db none.db missing.log
grep -qF "no store was made" err || fail "ingest of a missing file: $(cat err)"
[ ! -e none.db ] || fail "an ingest of a missing file made a store"
run 1 "missing.log: No such file or directory" ingest --db s.db missing.log
run 0 "" rebuild --db s.db

# help and version.
run 0 "" help
grep -q '^  timeline ' out && ! grep -q __complete out || fail "help: $(cat out)"
run 0 "" help timeline
"$bin" timeline --help | cmp -s - out || fail "help timeline is not timeline --help"
run 2 "did you mean 'nodes'?" help nods
for cmd in $(awk '/^  [a-z]/ { print $1 }' out 2>/dev/null) $("$bin" __complete commands); do
	"$bin" "$cmd" --help >h || fail "$cmd --help"
	grep -q '^Exit status:$' h || fail "$cmd --help gives no exit status"
done
run 0 "" version
grep -qE '^leasetrail [0-9]+\.[0-9]+\.[0-9]+$' out && grep -qE '^commit  ([0-9a-f]{12}|unknown)$' out &&
	grep -qE '^SQLite  3\.[0-9]+' out && grep -qE '^yajl    2\.[0-9]+\.[0-9]+$' out &&
	grep -qE '^PCRE2   10\.[0-9]+' out || fail "version: $(cat out)"
"$bin" --version | cmp -s - out || fail "--version is not version"

# JSON forms.
"$bin" stats --db s.db -o json >stats.json
jq -e '.requests > 0 and (.nodes | length) == 3 and .sources[0].path != null and
	(.log_kinds | length) > 0 and .first == "2024-04-05T05:50:00.460553Z" and (.lease_node_requests | length) > 0' stats.json >/dev/null ||
	fail "stats -o json: $(head -c 600 stats.json)"
[ "$(jq -r '.requests' stats.json)" = "$("$bin" sql --db s.db -o csv \
	'SELECT count(*) FROM events' | tail -1)" ] || fail "stats -o json: requests differ from events"
run 2 "-o takes table or json" stats --db s.db -o csv
"$bin" query --list -o json | jq -e 'length >= 10 and (map(.name) | index("who-deleted")) != null' \
	>/dev/null || fail "query --list -o json"
[ "$("$bin" query --list -o json | jq length)" = "$("$bin" query --list | wc -l)" ] ||
	fail "query --list -o json and the table differ"
"$bin" ingest --json --db j.db "$samples/audit" "$samples/bad/malformed.log" >ingest.json 2>/dev/null || st=$?
[ "${st:-0}" = 3 ] || fail "ingest --json of a malformed log: exit ${st:-0}, want 3"
jq -e '.exit_status == 3 and (.files | length) == 3 and .totals.rejected > 0 and
	.totals.stored == (.files | map(.stored) | add) and
	(.files | map(.status) | unique) == ["ingested"]' ingest.json >/dev/null ||
	fail "ingest --json: $(cat ingest.json)"
"$bin" ingest --json --db j.db "$samples/audit" >ingest2.json
jq -e '.exit_status == 0 and (.files | map(.status) | unique) == ["duplicate"]' ingest2.json \
	>/dev/null || fail "ingest --json again: $(cat ingest2.json)"

# A failed write is a failure (a full disk under `> report`): every command that prints says so
# and exits 1; a reader that stops early, with SIGPIPE ignored by the caller, is no failure.
node=ip-10-0-241-171.ec2.internal
for args in "nodes" "nodes -o json" "stats" "stats -o json" "timeline $node" \
	"timeline $node -o csv" "query orphaned-kubelets" "query --list" "query --list -o json" \
	"show 1" "sql SELECT\ 1" "help" "version" "report" "report -o html"; do
	eval "set -- $args"
	set +e
	"$bin" "$@" --db s.db >/dev/full 2>err
	got=$?
	set -e
	[ "$got" = 1 ] || fail "leasetrail $args >/dev/full: exit $got, want 1 ($(cat err))"
	grep -qF "cannot write the output: No space left on device" err ||
		fail "leasetrail $args >/dev/full: $(cat err)"
done
set +e
(trap '' PIPE && "$bin" sql --db s.db "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1
	FROM n WHERE i < 200000) SELECT i FROM n" 2>err | head -1 >/dev/null
	exit "${PIPESTATUS[0]}")
got=$?
set -e
[ "$got" = 0 ] && [ ! -s err ] || fail "a closed pipe with SIGPIPE ignored: exit $got, $(cat err)"

echo "e2e conventions: ok"
