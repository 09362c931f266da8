#!/usr/bin/env bash
# Reasons that fit and counts that are right (issue 15, items 6, 7, 9, 10, 11):
# a whole line of invalid JSON says where it breaks, a JSON record of another kind says what
# it is not, a file that is not a log is said once, a Logs Insights `stats` result is not a
# log (exit 1); a component's stderr line at the top of `kubectl logs` is kept (exit 0);
# "Other resources" count requests by auditID, across stages, re-reads of a grown file and
# concurrent ingests; a lease seen only at RequestReceived is `no-renews`; `stats` of a store
# of log lines alone gives their time range; the summary says lines for lines.
set -euo pipefail
# whether the input has a line that matches, read to its end (grep -q stops early: the
# writer then dies of SIGPIPE, and pipefail would take that as its failure)
seen() { [ "$(grep -c "$@")" != 0 ]; }
bin=$1 corpus=$2 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

# ingest ARGS...: status in $status, stdout in $tmp/out, stderr in $tmp/err
ingest() {
  set +e
  "$bin" ingest "$@" >"$tmp/out" 2>"$tmp/err"
  status=$?
  set -e
}
want() { [ "$status" = "$1" ] || fail "$2: exit $status, want $1: $(cat "$tmp/out" "$tmp/err")"; }
said() { grep -qF -- "$1" "$tmp/err" || fail "not said: '$1': $(cat "$tmp/err")"; }
sql() { "$bin" sql --db "$1" -o csv "$2" | tail -n +2; }

# ---- item 10: reasons ---------------------------------------------------------------------------
# an audit log with a line whose quote was not escaped: invalid JSON at its byte, not "cut off"
ev='{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"%s","stage":"ResponseComplete","requestURI":"/x","verb":"get","user":{"username":"u"},"objectRef":{"resource":"configmaps","namespace":"d","name":"c"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2024-04-05T06:00:0%dZ","stageTimestamp":"2024-04-05T06:00:0%dZ"}\n'
{
  printf "$ev" a1 1 1
  printf '{"kind":"Event","message":"a "quoted" {word","verb":"get"}\n'
  printf "$ev" a2 2 2
  printf '{"level":"info","msg":"a JSON line of another program"}\n'
  printf '{"kind":"Event","verb":"ge\n'
  printf "$ev" a3 3 3
} >"$tmp/audit.log"
ingest --db "$tmp/r.db" "$tmp/audit.log"
want 3 "an audit log with bad lines"
said 'audit.log:2: rejected: invalid JSON at byte 31 of the record'
said 'audit.log:4: rejected: a JSON record of another kind: neither an audit Event'
said 'audit.log:5: rejected: record cut off: line 6 starts a new record before it ended'
grep -q 'audit.log: ingested, 6 records, 0 stored, 0 duplicates, 3 skipped, 3 rejected' "$tmp/out" \
  || fail "bad lines cost good records: $(cat "$tmp/out")"

# a file that is not a log, named: said once, with why, as the error; in a directory, a line
printf 'These are the audit logs of cluster prod.\n' >"$tmp/README.txt"
ingest --db "$tmp/n.db" "$tmp/README.txt"
want 1 "a named file that is not a log"
[ "$(cat "$tmp/out" "$tmp/err" | grep -c 'README.txt')" = 1 ] || fail "said more than once"
said "README.txt: not a log leasetrail reads (unknown content)"
mkdir -p "$tmp/dir" && cp "$tmp/README.txt" "$tmp/dir/"
ingest --db "$tmp/n.db" "$tmp/dir"
want 0 "a directory holding a file that is not a log"
grep -qx ".*dir/README.txt: not a log leasetrail reads (unknown content)" "$tmp/out" \
  || fail "in a directory: $(cat "$tmp/out")"

# Logs Insights `stats` results (the query of the AWS docs, `stats count(*) by queryType,
# bin(1h)`, as the console exports it and as get-query-results prints it): not logs, exit 1
printf '"queryType","bin(1h)","count(*)"\n"A","2024-04-05 06:00:00.000","12"\n' >"$tmp/stats.csv"
printf '[\n  {\n    "queryType": "A",\n    "bin(1h)": "2024-04-05 06:00:00.000",\n    "count(*)": "12"\n  }\n]\n' \
  >"$tmp/stats.json"
printf '{\n "results": [[{"field": "queryType", "value": "A"}, {"field": "count(*)", "value": "12"}]],\n "status": "Complete"\n}\n' \
  >"$tmp/stats-cli.json"
for f in stats.csv stats.json stats-cli.json; do
  ingest --db "$tmp/s.db" "$tmp/$f"
  want 1 "$f"
  said "$f: not a log leasetrail reads (a Logs Insights stats result"
done

# ---- item 9: kubectl logs of a component, its stderr line first: kept, exit 0 -------------------
ingest --db "$tmp/k.db" --year 2019 "$corpus/kubelet/gh-kubernetes-76069_kubectl-logs_kcm_flag-deprecated.log"
want 0 "kubectl logs with a Flag line at the top"
[ ! -s "$tmp/err" ] || fail "kubectl logs: $(cat "$tmp/err")"
grep -q ': 7 records, 7 lines stored, 0 duplicates, 0 skipped, 0 rejected$' "$tmp/out" \
  || fail "the summary of lines: $(tail -1 "$tmp/out")"
[ "$(sql "$tmp/k.db" "SELECT ts FROM logs WHERE line = 1")" = "2019-04-03T06:25:55.717052Z" ] \
  || fail "the Flag line's time: $(sql "$tmp/k.db" "SELECT ts FROM logs WHERE line = 1")"
# ---- item 11: stats of log lines alone gives their time range
"$bin" stats --db "$tmp/k.db" >"$tmp/stats"
grep -qx 'Time range:  2019-04-03T06:25:55.717052Z .. 2019-04-03T06:26:14.145302Z (18.4s), of log lines (no events)' \
  "$tmp/stats" || fail "stats of lines: $(head -3 "$tmp/stats")"

# ---- item 7: other resources count requests (by auditID) -----------------------------------------
rr='{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"%s","stage":"%s","requestURI":"/x","verb":"%s","user":{"username":"u"},"objectRef":{"resource":"%s","namespace":"d","name":"c"},"requestReceivedTimestamp":"2024-04-05T06:00:%02dZ","stageTimestamp":"2024-04-05T06:00:%02dZ"}\n'
for i in 1 2 3 4 5; do
  printf "$rr" "p$i" RequestReceived get pods "$i" "$i"
  printf "$rr" "p$i" ResponseComplete get pods "$i" "$((i + 1))"
done >"$tmp/pods.log"
ingest --db "$tmp/c.db" "$tmp/pods.log"
want 0 "five requests at two stages"
[ "$(sql "$tmp/c.db" "SELECT sum(count) FROM resource_counts")" = 5 ] || fail "10 stage rows are not 5 requests"
"$bin" stats --db "$tmp/c.db" | seen -E '^pods +get +5$' || fail "stats: $("$bin" stats --db "$tmp/c.db")"
# the file grows (a request's second stage and a new request): read on, each request once
{ printf "$rr" p6 RequestReceived list pods 20 20; } >>"$tmp/pods.log"
ingest --db "$tmp/c.db" "$tmp/pods.log"
{ printf "$rr" p6 ResponseComplete list pods 20 21; printf "$rr" p7 ResponseComplete list pods 22 22; } \
  >>"$tmp/pods.log"
ingest --db "$tmp/c.db" "$tmp/pods.log"
grep -q 'resumed' "$tmp/out" || fail "the grown file was not read on: $(cat "$tmp/out")"
[ "$(sql "$tmp/c.db" "SELECT verb || '=' || sum(count) FROM resource_counts GROUP BY verb ORDER BY verb" | paste -sd' ')" = "get=5 list=2" ] \
  || fail "after growth: $(sql "$tmp/c.db" "SELECT * FROM resource_counts")"
# the same requests again, from stdin (no identity) and in two concurrent ingests: no more
ingest --db "$tmp/c.db" - <"$tmp/pods.log"
cp "$tmp/pods.log" "$tmp/pods-copy1.log" && printf '\n' >>"$tmp/pods-copy1.log"
cp "$tmp/pods.log" "$tmp/pods-copy2.log" && printf '\n\n' >>"$tmp/pods-copy2.log"
"$bin" ingest -q --db "$tmp/c.db" "$tmp/pods-copy1.log" >/dev/null 2>&1 &
p1=$!
"$bin" ingest -q --db "$tmp/c.db" "$tmp/pods-copy2.log" >/dev/null 2>&1 &
p2=$!
wait "$p1" && wait "$p2" || fail "concurrent ingests"
[ "$(sql "$tmp/c.db" "SELECT sum(count) FROM resource_counts")" = 7 ] \
  || fail "re-reads counted again: $(sql "$tmp/c.db" "SELECT * FROM resource_counts")"

# ---- item 6: a lease seen only at RequestReceived: no renew seen ---------------------------------
lease='{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"%s","stage":"RequestReceived","requestURI":"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1","verb":"update","user":{"username":"system:node:n1"},"sourceIPs":["10.0.0.1"],"objectRef":{"resource":"leases","namespace":"kube-node-lease","name":"n1","apiGroup":"coordination.k8s.io"},"requestReceivedTimestamp":"2024-04-05T06:00:%02dZ","stageTimestamp":"2024-04-05T06:00:%02dZ"}\n'
{ printf "$lease" l1 0 0; printf "$lease" l2 10 10; } >"$tmp/lease.log"
ingest --db "$tmp/l.db" "$tmp/lease.log"
want 0 "a lease at RequestReceived"
"$bin" nodes --db "$tmp/l.db" -o csv >"$tmp/nodes"
grep -q '^n1,no-renews,' "$tmp/nodes" || fail "nodes: $(cat "$tmp/nodes")"
"$bin" timeline --db "$tmp/l.db" n1 >/dev/null || fail "timeline of a lease with no episode"
echo "e2e reasons: ok"
