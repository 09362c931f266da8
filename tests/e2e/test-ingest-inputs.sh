#!/usr/bin/env bash
# Every input shape gives the same events (stdin, pretty-printed, EventList, JSON array, gzip),
# and ingest, stats and show exit with the documented statuses.
set -euo pipefail
bin=$1 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

# runs the binary; leaves stdout in $tmp/out, stderr in $tmp/err, the exit status in $status
run() {
  set +e
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  status=$?
  set -e
}
want_status() { [ "$status" = "$1" ] || fail "$2: exit status $status, want $1 (stderr: $(cat "$tmp/err"))"; }
# the per-file line of `ingest` for path, without the path
file_line() { awk -v p="$1: " 'index($0, p) == 1 { print substr($0, length(p) + 1); exit }' "$tmp/out"; }

# ---- the events: 5 lease updates, 2 node status patches, 3 pod reads (counted, not stored) ----
ev() { # auditID resource subresource verb name second
  local sub=""
  [ -n "$3" ] && sub=",\"subresource\":\"$3\""
  printf '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"%s",' "$1"
  printf '"stage":"ResponseComplete","requestURI":"/x/%s","verb":"%s",' "$5" "$4"
  printf '"user":{"username":"system:node:%s","groups":["system:nodes","system:authenticated"]},' "$5"
  printf '"sourceIPs":["10.0.0.%d"],"userAgent":"kubelet/v1.29.0",' "$6"
  printf '"objectRef":{"resource":"%s","namespace":"kube-node-lease","name":"%s"%s},' "$2" "$5" "$sub"
  printf '"responseStatus":{"metadata":{},"code":200},'
  printf '"requestReceivedTimestamp":"2024-04-05T06:04:%02d.100000Z",' "$6"
  printf '"stageTimestamp":"2024-04-05T06:04:%02d.123456Z"}\n' "$6"
}
lines=$tmp/lines.log
{
  ev id-01 leases "" update node-a 1
  ev id-02 pods "" get web-1 2
  ev id-03 leases "" update node-b 3
  ev id-04 nodes status patch node-a 4
  ev id-05 leases "" update node-a 5
  ev id-06 pods "" list "" 6
  ev id-07 leases "" update node-c 7
  ev id-08 nodes status patch node-b 8
  ev id-09 pods "" get web-2 9
  ev id-10 leases "" update node-b 10
} >"$lines"
clean="ingested, 10 records, 7 stored, 0 duplicates, 3 skipped, 0 rejected"

# ---- stdin (`cat FILE | leasetrail ingest -`) stores exactly what the file stores ------
run ingest --db "$tmp/file.db" "$lines"
want_status 0 "ingest of a clean file"
[ "$(file_line "$lines")" = "$clean" ] || fail "file: $(cat "$tmp/out")"
set +e
# shellcheck disable=SC2002 # a pipe on purpose: stdin that cannot be stat'ed or seeked
cat "$lines" | "$bin" ingest --db "$tmp/stdin.db" - >"$tmp/out" 2>"$tmp/err"
status=$?
set -e
want_status 0 "ingest of stdin"
grep -qxF -- "-: $clean" "$tmp/out" || fail "stdin: $(cat "$tmp/out")"
for id in 1 7; do
  "$bin" show --db "$tmp/file.db" "$id" >"$tmp/show-file"
  "$bin" show --db "$tmp/stdin.db" "$id" >"$tmp/show-stdin"
  cmp -s "$tmp/show-file" "$tmp/show-stdin" || fail "event $id differs between file and stdin"
done
# stored raw JSON is each stored line, byte for byte, in order
grep -v '"pods"' "$lines" >"$tmp/want-raw"
for id in 1 2 3 4 5 6 7; do "$bin" show --db "$tmp/stdin.db" "$id"; done >"$tmp/got-raw"
cmp -s "$tmp/want-raw" "$tmp/got-raw" || fail "stdin: stored raw JSON is not the input lines"
"$bin" show --db "$tmp/stdin.db" -v 2 | head -1 | grep -qx '# -:3 (byte [0-9]*)' \
  || fail "stdin provenance: $("$bin" show --db "$tmp/stdin.db" -v 2 | head -1)"
"$bin" stats --db "$tmp/file.db" | sed 1d | sed '/^Sources:/,$d' >"$tmp/stats-file"
"$bin" stats --db "$tmp/stdin.db" | sed 1d | sed '/^Sources:/,$d' >"$tmp/stats-stdin"
cmp -s "$tmp/stats-file" "$tmp/stats-stdin" \
  || fail "stats differ between file and stdin: $(diff "$tmp/stats-file" "$tmp/stats-stdin")"
grep -q '^Requests: *7 (7 stored event rows), from 1 sources$' "$tmp/stats-file" \
  || fail "stats: $(grep Requests "$tmp/stats-file")"

# ---- the other shapes, plain and gzip, each in a fresh store: the same counts and events -------
jq . "$lines" >"$tmp/pretty.json"
jq -s '{kind: "EventList", apiVersion: "audit.k8s.io/v1", metadata: {}, items: .}' "$lines" \
  >"$tmp/eventlist.json"
jq -cs '{kind: "EventList", apiVersion: "audit.k8s.io/v1", metadata: {}, items: .}' "$lines" \
  >"$tmp/eventlist-compact.json"
jq -s . "$lines" >"$tmp/array.json"
jq -cs . "$lines" >"$tmp/array-compact.json"
first=$(head -1 "$lines" | jq -c .) last=$(tail -1 "$lines" | jq -c .)
again="ingested, 10 records, 0 stored, 7 duplicates, 3 skipped, 0 rejected"
for f in pretty.json eventlist.json eventlist-compact.json array.json array-compact.json; do
  gzip -c "$tmp/$f" >"$tmp/$f.gz"
  db=$tmp/shape-$f.db
  run ingest --db "$db" "$tmp/$f" "$tmp/$f.gz"
  want_status 0 "$f"
  [ "$(file_line "$tmp/$f")" = "$clean" ] || fail "$f: $(cat "$tmp/out")"
  [ "$(file_line "$tmp/$f.gz")" = "$again" ] || fail "$f.gz: $(cat "$tmp/out")"
  # the stored events are the input's, whatever the layout
  [ "$("$bin" show --db "$db" 1 | jq -c .)" = "$first" ] || fail "$f: event 1 is not the first line"
  [ "$("$bin" show --db "$db" 7 | jq -c .)" = "$last" ] || fail "$f: event 7 is not the last line"
done
# gzip is known by its content, whatever the file is called
cp "$tmp/eventlist.json.gz" "$tmp/eventlist.bin"
run ingest --db "$tmp/shape-bin.db" "$tmp/eventlist.bin"
want_status 0 "gzip named .bin"
[ "$(file_line "$tmp/eventlist.bin")" = "$clean" ] || fail "eventlist.bin: $(cat "$tmp/out")"
# gzip of JSON lines, and several shapes in one store: each event stored once
gzip -c "$lines" >"$tmp/lines.log.gz"
run ingest --db "$tmp/all.db" "$tmp/lines.log.gz" "$tmp/pretty.json" "$tmp/eventlist.json.gz" "$tmp/array.json"
want_status 0 "four shapes into one store"
[ "$(file_line "$tmp/lines.log.gz")" = "$clean" ] || fail "lines.log.gz: $(cat "$tmp/out")"
[ "$(file_line "$tmp/array.json")" = "$again" ] || fail "array.json after the same events: $(cat "$tmp/out")"
tail -1 "$tmp/out" | grep -q ': 40 records, 7 events stored, 21 duplicates, 12 skipped, 0 rejected$' \
  || fail "four shapes summary: $(tail -1 "$tmp/out")"

# ---- exit statuses ------------------------------------------------------------------------------
# a rejected record: 3, the good ones stored, the reason on stderr
{ head -3 "$lines"; echo '{"kind":"Event","verb":"get","stageTi'; sed -n 4,10p "$lines"; } >"$tmp/one-bad.log"
run ingest --db "$tmp/bad.db" "$tmp/one-bad.log"
want_status 3 "a file with a rejected record"
[ "$(file_line "$tmp/one-bad.log")" = "ingested, 11 records, 7 stored, 0 duplicates, 3 skipped, 1 rejected" ] \
  || fail "one-bad.log: $(cat "$tmp/out")"
grep -qF "one-bad.log:4: rejected: record cut off" "$tmp/err" || fail "reject not on stderr: $(cat "$tmp/err")"

# a gzip cut short: 3, and it says so
size=$(stat -c %s "$tmp/array.json.gz")
head -c $((size / 2)) "$tmp/array.json.gz" >"$tmp/cut.gz"
run ingest --db "$tmp/cut.db" "$tmp/cut.gz"
want_status 3 "a truncated gzip"
file_line "$tmp/cut.gz" | grep -q '^truncated, ' || fail "cut.gz: $(cat "$tmp/out")"

# a nonexistent path: 1, named on stderr, and the other paths are still ingested
missing=$tmp/no-such-dir/audit.log
run ingest --db "$tmp/missing.db" "$missing" "$lines"
want_status 1 "a nonexistent path"
grep -qF "$missing" "$tmp/err" || fail "the missing path is not named on stderr: $(cat "$tmp/err")"
[ "$(file_line "$lines")" = "$clean" ] || fail "the path after a missing one: $(cat "$tmp/out")"

# a file named on the command line that is not a log: 1 (stdin: at the end)
printf 'These are the audit logs of cluster prod.\n' >"$tmp/README.txt"
run ingest --db "$tmp/notlog.db" "$tmp/README.txt"
want_status 1 "a named file that is not a log"
grep -qF "README.txt" "$tmp/err" || fail "the README is not named on stderr: $(cat "$tmp/err")"

# usage errors: 2
run ingest --db "$tmp/usage.db"
want_status 2 "ingest without PATH"
grep -q 'no PATH' "$tmp/err" || fail "ingest without PATH: $(cat "$tmp/err")"
run ingest --no-such-option "$lines"
want_status 2 "ingest with an unknown option"

# --help: 0 and the usage on stdout
for cmd in ingest stats show; do
  run "$cmd" --help
  want_status 0 "$cmd --help"
  grep -q "^usage: leasetrail $cmd " "$tmp/out" || fail "$cmd --help: $(cat "$tmp/out")"
done

# show of a missing id: 1; stats of a missing store: 1 with a clear message, and no store made
run show --db "$tmp/file.db" 99
want_status 1 "show of a missing id"
grep -q 'no event with id 99' "$tmp/err" || fail "show 99: $(cat "$tmp/err")"
run show --db "$tmp/file.db" 3
want_status 0 "show of an existing id"
run stats --db "$tmp/no-store.db"
want_status 1 "stats of a missing store"
grep -q 'no-store.db: no store here' "$tmp/err" || fail "stats of a missing store: $(cat "$tmp/err")"
[ ! -e "$tmp/no-store.db" ] || fail "stats created a store"

# `-` is a PATH named on the command line too: input on stdin that is not a log is exit 1
set +e
"$bin" ingest --db "$tmp/notlog.db" - <"$tmp/README.txt" >"$tmp/out" 2>"$tmp/err"
status=$?
set -e
# said once, with its reason, as the error (not also as a line of the report)
grep -qx -- 'leasetrail: -: not a log leasetrail reads (unknown content)' "$tmp/err" \
  || fail "stdin that is not a log: $(cat "$tmp/err")"
[ "$(cat "$tmp/out" "$tmp/err" | grep -c 'not a log leasetrail reads')" = 1 ] \
  || fail "stdin that is not a log is said more than once: $(cat "$tmp/out" "$tmp/err")"
want_status 1 "stdin that is not a log"
echo "e2e ingest-inputs: ok"
