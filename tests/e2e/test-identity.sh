#!/usr/bin/env bash
# Content identity (XXH3-128 of a file's bytes) and one writer per store:
# a file that grew since it was read is read on (a line cut off by its old end read again,
# whole), a copy of an old version is a duplicate, an edited file (same size) is new, gzip grows
# by members, and two ingests into one store never double anything, counted-only resources
# included: each case ends equal to a clean ingest of the final file.
set -euo pipefail
bin=$1 samples=$3 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
audit=$samples/audit/kube-apiserver-audit.1.log
kubelet=$samples/logs/kubelet-ip-10-0-241-171.ec2.internal.log

# what a store holds, without its own name: stats up to the source list (counts, resource
# counts), every event and log line, and the text logs' summaries
summary() {
  "$bin" stats --db "$1" | sed 1d | sed '/^Sources:/,$d'
  "$bin" sql --db "$1" -o csv "SELECT audit_id, stage, verb, name, ts_us FROM events ORDER BY id"
  "$bin" sql --db "$1" -o csv "SELECT ts_us, host, message FROM logs ORDER BY id"
  "$bin" sql --db "$1" -o csv \
    "SELECT lines, year, year_rule, first_us, last_us, klog_skew FROM log_sources"
  "$bin" sql --db "$1" -o csv \
    "SELECT resource, verb, sum(count) FROM resource_counts GROUP BY 1, 2 ORDER BY 1, 2"
}
same_as_clean() { # store final-file what
  rm -f "$tmp/clean.db"*
  "$bin" ingest --db "$tmp/clean.db" "$2" >/dev/null 2>&1 || true
  summary "$1" >"$tmp/got"
  summary "$tmp/clean.db" >"$tmp/want"
  cmp -s "$tmp/got" "$tmp/want" || fail "$3: differs from a clean ingest: $(diff "$tmp/want" "$tmp/got" | head)"
}
line_of() { grep -F -- "$1: " "$2" | head -1; }

# ---- an audit log still being written: cut mid-line, then grown ------------------------------
head -c 200000 "$audit" >"$tmp/grow.log"
"$bin" ingest --db "$tmp/a.db" "$tmp/grow.log" >"$tmp/out" 2>"$tmp/err" || true
grep -q 'rejected: record cut off at end of input' "$tmp/err" || fail "cut line not reported"
tail -c +200001 "$audit" >>"$tmp/grow.log"
"$bin" ingest --db "$tmp/a.db" "$tmp/grow.log" >"$tmp/out" 2>&1
line_of "$tmp/grow.log" "$tmp/out" | grep -q ': resumed, .*0 rejected (grew since it was read: read on after its first 200000 bytes)' \
  || fail "grown file: $(cat "$tmp/out")"
same_as_clean "$tmp/a.db" "$audit" "grown audit log"
"$bin" ingest --db "$tmp/a.db" "$tmp/grow.log" >"$tmp/out" 2>&1
line_of "$tmp/grow.log" "$tmp/out" | grep -q ': duplicate' || fail "grown file again: $(cat "$tmp/out")"
# a copy of the file as it was at the first read is content already seen
head -c 200000 "$audit" >"$tmp/old-copy.log"
"$bin" ingest --db "$tmp/a.db" "$tmp/old-copy.log" >"$tmp/out" 2>&1
line_of "$tmp/old-copy.log" "$tmp/out" | grep -q ': duplicate' || fail "old copy: $(cat "$tmp/out")"
same_as_clean "$tmp/a.db" "$audit" "after the old copy"

# ---- an edited file (same size, one byte in the middle) is new content ----------------------
cp "$audit" "$tmp/edit.log"
"$bin" ingest --db "$tmp/e.db" "$tmp/edit.log" >/dev/null
size=$(stat -c %s "$tmp/edit.log")
printf 'Z' | dd of="$tmp/edit.log" bs=1 seek=$((size / 2)) conv=notrunc status=none
[ "$(stat -c %s "$tmp/edit.log")" = "$size" ] || fail "edit changed the size"
"$bin" ingest --db "$tmp/e.db" "$tmp/edit.log" >"$tmp/out" 2>&1 || true
line_of "$tmp/edit.log" "$tmp/out" | grep -q ': ingested' || fail "edited file: $(cat "$tmp/out")"
[ "$("$bin" sql --db "$tmp/e.db" -o csv 'SELECT count(*) FROM sources' | tail -1)" = 2 ] \
  || fail "edited file: not a second source"

# ---- gzip: hashed as stored, grown by a second member ----------------------------------------
head -n 500 "$audit" | gzip >"$tmp/g.log.gz"
"$bin" ingest --db "$tmp/g.db" "$tmp/g.log.gz" >/dev/null
tail -n +501 "$audit" | gzip >>"$tmp/g.log.gz"
"$bin" ingest --db "$tmp/g.db" "$tmp/g.log.gz" >"$tmp/out" 2>&1
line_of "$tmp/g.log.gz" "$tmp/out" | grep -q ': resumed' || fail "grown gzip: $(cat "$tmp/out")"
same_as_clean "$tmp/g.db" "$audit" "grown gzip"

# ---- a kubelet journal that grew: lines, years and the log summary as a clean read ----------
head -n 300 "$kubelet" >"$tmp/kubelet.log"
"$bin" ingest --db "$tmp/k.db" "$tmp/kubelet.log" >/dev/null
tail -n +301 "$kubelet" >>"$tmp/kubelet.log"
"$bin" ingest --db "$tmp/k.db" "$tmp/kubelet.log" >"$tmp/out" 2>&1
line_of "$tmp/kubelet.log" "$tmp/out" | grep -q ': resumed' || fail "grown journal: $(cat "$tmp/out")"
same_as_clean "$tmp/k.db" "$kubelet" "grown journal"

# ---- stdin has no identity: the same bytes twice are read twice (events deduplicated) -------
head -n 20 "$audit" | "$bin" ingest --db "$tmp/s.db" - >/dev/null
head -n 20 "$audit" | "$bin" ingest --db "$tmp/s.db" - >"$tmp/out"
grep -q '^-: ingested, 20 records, 0 stored, 11 duplicates, 9 skipped' "$tmp/out" || fail "stdin twice: $(cat "$tmp/out")"

# ---- one writer at a time: a held store makes ingest wait, and say so ------------------------
"$bin" ingest --db "$tmp/w.db" "$tmp/edit.log" >/dev/null 2>&1 || true
flock "$tmp/w.db" sleep 2 &
holder=$!
sleep 0.5
start=$(date +%s%N)
"$bin" ingest --db "$tmp/w.db" "$audit" >"$tmp/out" 2>"$tmp/err"
waited=$((($(date +%s%N) - start) / 1000000))
wait "$holder"
grep -q 'w.db: another leasetrail (ingest or rebuild) is writing this store; waiting for it to finish' \
  "$tmp/err" || fail "no waiting message: $(cat "$tmp/err")"
[ "$waited" -ge 1000 ] || fail "ingest did not wait for the writer (${waited} ms)"
line_of "$audit" "$tmp/out" | grep -q ': ingested' || fail "after the wait: $(cat "$tmp/out")"
# read commands do not wait for a writer
flock "$tmp/w.db" sleep 3 &
holder=$!
sleep 0.5
timeout 2 "$bin" stats --db "$tmp/w.db" >/dev/null || fail "stats waited for the writer lock"
wait "$holder"

# ---- two ingests of one file at once: one reads it, the other finds it done ------------------
for _ in 1 2; do
  rm -f "$tmp/two.db"*
  "$bin" ingest --db "$tmp/two.db" "$audit" >"$tmp/out1" 2>&1 &
  p1=$!
  "$bin" ingest --db "$tmp/two.db" "$audit" >"$tmp/out2" 2>&1 &
  p2=$!
  wait "$p1" "$p2"
  cat "$tmp/out1" "$tmp/out2" >"$tmp/out"
  [ "$(grep -c ': ingested, 1885 records' "$tmp/out")" = 1 ] || fail "two at once: $(cat "$tmp/out")"
  [ "$(grep -c ': duplicate' "$tmp/out")" = 1 ] || fail "two at once: $(cat "$tmp/out")"
  same_as_clean "$tmp/two.db" "$audit" "two ingests at once"
done
echo "ok: identity"
