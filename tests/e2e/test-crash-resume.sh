#!/usr/bin/env bash
# An ingest killed with SIGKILL after some batches committed resumes on the next run and ends
# with exactly the store a clean ingest of the same file gives; a third run adds nothing.
set -euo pipefail
bin=$1 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
pid='' clean_pid=''
# shellcheck disable=SC2154 # p is the trap's own loop variable
trap 'for p in $pid $clean_pid; do kill -9 "$p" 2>/dev/null; done; true' EXIT

# N request lines (plus a few extra): lease updates with their Lease body, node status patches,
# pod reads (counted, not stored), some requests in two stages, some exact repeats, and one
# broken line three quarters in.
gen() {
  awk -v n="$1" '
  function ts(t, us) {
    return sprintf("2024-04-%02dT%02d:%02d:%02d.%06dZ", 5 + int(t / 86400), int(t / 3600) % 24,
                   int(t / 60) % 60, t % 60, us)
  }
  function lease(i, stage, node, id) {
    return sprintf("{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"RequestResponse\"," \
      "\"auditID\":\"%s\",\"stage\":\"%s\",\"requestURI\":\"/apis/coordination.k8s.io/v1/namespaces/" \
      "kube-node-lease/leases/%s\",\"verb\":\"update\",\"user\":{\"username\":\"system:node:%s\"}," \
      "\"sourceIPs\":[\"10.0.%d.%d\"],\"userAgent\":\"kubelet/v1.29.0\",\"objectRef\":{\"resource\":" \
      "\"leases\",\"namespace\":\"kube-node-lease\",\"name\":\"%s\",\"apiGroup\":\"coordination.k8s.io\"}," \
      "\"responseStatus\":{\"code\":%d},\"responseObject\":{\"kind\":\"Lease\",\"spec\":{" \
      "\"holderIdentity\":\"%s\",\"leaseDurationSeconds\":40,\"renewTime\":\"%s\"}}," \
      "\"requestReceivedTimestamp\":\"%s\",\"stageTimestamp\":\"%s\"}",
      id, stage, node, node, int(i / 250) % 250, i % 250, node, i % 40 == 9 ? 409 : 200, node,
      ts(i, 1000), ts(i, 0), ts(i, 2500))
  }
  function node_patch(i, node, id) {
    return sprintf("{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Metadata\"," \
      "\"auditID\":\"%s\",\"stage\":\"ResponseComplete\",\"requestURI\":\"/api/v1/nodes/%s/status\"," \
      "\"verb\":\"patch\",\"user\":{\"username\":\"system:node:%s\"},\"objectRef\":{\"resource\":" \
      "\"nodes\",\"name\":\"%s\",\"apiVersion\":\"v1\",\"subresource\":\"status\"}," \
      "\"responseStatus\":{\"code\":200},\"stageTimestamp\":\"%s\"}", id, node, node, node, ts(i, 7))
  }
  function pod_get(i, id) {
    return sprintf("{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Metadata\"," \
      "\"auditID\":\"%s\",\"stage\":\"ResponseComplete\",\"verb\":\"get\",\"objectRef\":" \
      "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":\"web-%d\"}," \
      "\"responseStatus\":{\"code\":200},\"stageTimestamp\":\"%s\"}", id, i % 7, ts(i, 9))
  }
  BEGIN {
    for (i = 0; i < n; i++) {
      id = sprintf("%08d-5f1c-4b2a-9d3e-%012d", i, n - i)
      node = sprintf("node-%04d", i % 500)
      if (i == int(n * 3 / 4))
        print "{\"kind\":\"Event\",\"verb\":\"update\",\"objectRef\":{\"resource\":\"leases\""
      if (i % 50 == 7)
        line = pod_get(i, id)
      else if (i % 100 == 3)
        line = node_patch(i, node, id)
      else {
        if (i % 250 == 11)
          print lease(i, "RequestReceived", node, id)
        line = lease(i, "ResponseComplete", node, id)
      }
      print line
      if (i % 997 == 996)
        print line
    }
  }'
}

# the line `ingest` printed for path: its status word, and the counts after it
status_of() { awk -v p="$1: " 'index($0, p) == 1 { s = substr($0, length(p) + 1); sub(/,.*/, "", s); print s; exit }' "$2"; }
counts_of() { awk -v p="$1: " 'index($0, p) == 1 { s = substr($0, length(p) + 1); sub(/^[a-z ]*, /, "", s); print s; exit }' "$2"; }
# the stored event rows in `stats` output on stdin; empty while the store cannot be read yet
rows_of() { sed -n 's/^Requests: *[0-9]* (\([0-9]*\) stored event rows).*/\1/p'; }
stored_rows() { { "$bin" stats --db "$1" 2>/dev/null || true; } | rows_of; }

attempt=0 lines=42000 killed=0
while [ "$attempt" -lt 3 ] && [ "$killed" = 0 ]; do
  attempt=$((attempt + 1))
  log=$tmp/audit-$lines.log a=$tmp/crashed-$lines.db b=$tmp/clean-$lines.db
  gen "$lines" >"$log"

  # the reference, in the background meanwhile: a clean ingest of the whole file
  "$bin" ingest --db "$b" "$log" >"$tmp/clean.out" 2>"$tmp/clean.err" &
  clean_pid=$!
  # the same file into A, killed as soon as a committed batch is visible (WAL: stats can read)
  "$bin" ingest --db "$a" "$log" >"$tmp/crash.out" 2>"$tmp/crash.err" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    seen=$(stored_rows "$a")
    if [ "${seen:-0}" -gt 0 ]; then
      kill -9 "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.02
  done
  set +e
  { wait "$pid"; } 2>/dev/null # no "Killed" job notice
  crash_status=$?
  wait "$clean_pid"
  status=$?
  set -e
  pid='' clean_pid=''
  # one rejected record: exit 3
  [ "$status" = 3 ] || fail "clean ingest: exit status $status, want 3: $(cat "$tmp/clean.err")"
  [ "$(status_of "$log" "$tmp/clean.out")" = ingested ] || fail "clean ingest: $(cat "$tmp/clean.out")"
  if [ "$crash_status" = 137 ]; then
    killed=1
  else
    echo "note: the ingest of $lines lines ended (status $crash_status) before it was killed; retrying larger" >&2
    lines=$((lines * 2))
  fi
done
[ "$killed" = 1 ] || fail "the ingest never showed a committed batch before it ended (3 attempts)"
"$bin" stats --db "$b" | sed 1d >"$tmp/stats-clean"
total=$(rows_of <"$tmp/stats-clean")
[ "${total:-0}" -gt 40000 ] || fail "the clean ingest stored only '$total' rows: $(cat "$tmp/clean.out")"

# killed mid-way: some rows committed, not all, and the source still being ingested
"$bin" stats --db "$a" >"$tmp/stats-killed"
partial=$(rows_of <"$tmp/stats-killed")
if [ "${partial:-0}" -le 0 ] || [ "$partial" -ge "$total" ]; then
  fail "after the kill the store holds '$partial' of $total rows; want some but not all"
fi
grep -qE "^ *1 +$log +ingesting " "$tmp/stats-killed" \
  || fail "after the kill the source is not being ingested: $(sed -n '/^Sources:/,$p' "$tmp/stats-killed")"
echo "killed with $partial of $total rows committed ($lines lines)"

# the same command again: resumed, with the clean run's counts
set +e
"$bin" ingest --db "$a" "$log" >"$tmp/resume.out" 2>"$tmp/resume.err"
status=$?
set -e
[ "$status" = 3 ] || fail "resumed ingest: exit status $status, want 3: $(cat "$tmp/resume.err")"
[ "$(status_of "$log" "$tmp/resume.out")" = resumed ] || fail "not resumed: $(cat "$tmp/resume.out")"
want=$(counts_of "$log" "$tmp/clean.out") got=$(counts_of "$log" "$tmp/resume.out")
[ "$got" = "$want" ] || fail "resumed counts '$got', clean counts '$want'"

# ... and the clean run's store: requests, per-verb table, and all the rest of stats
"$bin" stats --db "$a" | sed 1d >"$tmp/stats-resumed"
want=$(grep '^Requests: ' "$tmp/stats-clean") got=$(grep '^Requests: ' "$tmp/stats-resumed")
[ "$got" = "$want" ] || fail "resumed '$got', clean '$want'"
sed -n '/^Lease and node requests:/,/^$/p' "$tmp/stats-resumed" >"$tmp/verbs-resumed"
sed -n '/^Lease and node requests:/,/^$/p' "$tmp/stats-clean" >"$tmp/verbs-clean"
grep -q '^leases .* update .* 409 ' "$tmp/verbs-clean" || fail "no request table: $(cat "$tmp/stats-clean")"
cmp -s "$tmp/verbs-resumed" "$tmp/verbs-clean" \
  || fail "per-verb counts differ: $(diff "$tmp/verbs-clean" "$tmp/verbs-resumed")"
cmp -s "$tmp/stats-resumed" "$tmp/stats-clean" \
  || fail "stats differ after resume: $(diff "$tmp/stats-clean" "$tmp/stats-resumed")"
# the rows have the same ids: the last one is the same event from the same place
"$bin" show --db "$a" -v "$total" >"$tmp/last-resumed"
"$bin" show --db "$b" -v "$total" >"$tmp/last-clean"
cmp -s "$tmp/last-resumed" "$tmp/last-clean" || fail "event $total differs after resume"

# and once more: the file is complete, nothing is added
"$bin" ingest --db "$a" "$log" >"$tmp/again.out" 2>"$tmp/again.err"
[ "$(status_of "$log" "$tmp/again.out")" = duplicate ] || fail "third run: $(cat "$tmp/again.out")"
"$bin" stats --db "$a" | sed 1d | cmp -s - "$tmp/stats-clean" || fail "the third run changed the store"
rm -f "$tmp"/audit-*.log "$tmp"/*.db "$tmp"/*.db-* # ~150 MB; kept only when something failed
echo "e2e crash-resume: ok"
