#!/usr/bin/env bash
# Fault injection (a -DLT_FAULT=ON build, as tests/run-all.sh makes): the Nth allocation of
# SQLite, the Nth write of SQLite (as on a full disk), the Nth lt_xmalloc-family call, or the Nth
# allocation of zstd (the raw records' compression) fails, for
# N swept over a small ingest and queries.
# Every run must end cleanly: SQLite's failure as an error message and exit 1 (no crash, no
# sanitizer report, no leak: the Sanitize build checks leaks at exit), an allocation failure as
# leasetrail's "out of memory" abort; and afterwards the store is intact (PRAGMA
# integrity_check) and one more ingest without faults makes it equal to a clean one.
#   usage: test-fault.sh BINARY SAMPLES TMPDIR [STEP]   (STEP: sweep every STEP-th N past 12)
set -euo pipefail
bin=$1 samples=$2 tmp=$3 step=${4:-}
rm -rf "$tmp" && mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:abort_on_error=0:exitcode=66
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}:halt_on_error=1

head -n 120 "$samples/audit/kube-apiserver-audit.1.log" >"$tmp/audit.log"
head -n 40 "$samples/logs/kubelet-ip-10-0-241-171.ec2.internal.log" >"$tmp/kubelet.log"
inputs=("$tmp/audit.log" "$tmp/kubelet.log")

# what a store holds, in one query: events, log lines, counted resources, sources, nodes
summary() {
  "$bin" sql --db "$1" -o csv "SELECT 'e', audit_id || '|' || stage || '|' || verb || '|' || name
    || '|' || ts_us FROM events UNION ALL SELECT 'l', ts_us || '|' || host || '|' || message FROM logs
    UNION ALL SELECT 'r', resource || '|' || verb || '|' || sum(count) FROM resource_counts
    GROUP BY resource, verb UNION ALL SELECT 's', path || '|' || state || '|' || records || '|'
    || stored || '|' || skipped || '|' || rejected FROM sources UNION ALL SELECT 'n', node || '|'
    || state || '|' || renews FROM nodes ORDER BY 1, 2"
}
"$bin" ingest --db "$tmp/clean.db" "${inputs[@]}" >/dev/null 2>&1 || true
summary "$tmp/clean.db" >"$tmp/clean.txt"

# how many calls of a kind a run makes
calls() { # kind command...
  local kind=$1
  shift
  LEASETRAIL_FAULT=$kind:count "$@" 2>&1 >/dev/null | sed -n "s/^leasetrail-fault: $kind calls: //p" | tail -1
}
# the Ns to try: every one up to 12 (opening the store), then about POINTS spread over the rest
sweep() { # total points
  local n=1 s=${step:-$(($1 / $2 + 1))}
  while [ "$n" -le "$1" ]; do
    echo "$n"
    if [ "$n" -lt 12 ]; then n=$((n + 1)); else n=$((n + s)); fi
  done
}
# the run's end was clean for its kind
clean_end() { # kind status what
  ! grep -q 'Sanitizer\|runtime error\|Segmentation' "$tmp/err" || fail "$3: $(head -20 "$tmp/err")"
  ! grep -qx 'leasetrail: *' "$tmp/err" || fail "$3: an empty error line"
  case $1:$2 in
    *:0 | *:3) ;;
    sqlite:1 | io:1) grep -q '^leasetrail: .*\(out of memory\|disk is full\|not a leasetrail store\|cannot\|failed\)' "$tmp/err" \
      || fail "$3: exit 1 without a reason: $(cat "$tmp/err")" ;;
    alloc:134) grep -q '^leasetrail: out of memory' "$tmp/err" || fail "$3: abort without a reason" ;;
    zstd:1) grep -q '^leasetrail: .*out of memory' "$tmp/err" || fail "$3: exit 1 without a reason: $(cat "$tmp/err")" ;;
    *) fail "$3: exit $2: $(head -20 "$tmp/err")" ;;
  esac
}
# the store is whole, and one more ingest makes it what a clean ingest makes
store_recovers() { # db what
  if [ -e "$1" ]; then
    "$bin" sql --db "$1" -o csv "PRAGMA integrity_check" >"$tmp/check" 2>&1 || true
    if ! grep -q 'not a leasetrail store\|no store here\|an empty store' "$tmp/check"; then
      [ "$(tail -1 "$tmp/check")" = ok ] || fail "$2: integrity: $(cat "$tmp/check")"
    fi
  fi
  "$bin" ingest --db "$1" "${inputs[@]}" >/dev/null 2>"$tmp/err2" || [ $? = 3 ] \
    || fail "$2: the ingest after it failed: $(cat "$tmp/err2")"
  # derived state interrupted after the files were complete: the ingest itself repairs it
  summary "$1" >"$tmp/got.txt"
  cmp -s "${ref:-$tmp/clean.txt}" "$tmp/got.txt" \
    || fail "$2: differs from a clean ingest: $(diff "${ref:-$tmp/clean.txt}" "$tmp/got.txt" | head)"
}

# a store that read the first 60 lines of a log which then grew to all of audit.log
head -n 60 "$tmp/audit.log" >"$tmp/grow.log"
"$bin" ingest --db "$tmp/grown-base.db" "$tmp/grow.log" "$tmp/kubelet.log" >/dev/null 2>&1 || true
cp "$tmp/audit.log" "$tmp/grow.log"
"$bin" ingest --db "$tmp/grown-clean.db" "$tmp/grow.log" "$tmp/kubelet.log" >/dev/null 2>&1 || true
summary "$tmp/grown-clean.db" >"$tmp/grown-clean.txt"
# SQLite's and the disk's faults while a grown file is looked up and read on
grown_sweep() { # kind
  local total n
  inputs=("$tmp/grow.log" "$tmp/kubelet.log")
  ref=$tmp/grown-clean.txt
  rm -f "$tmp/count.db"* && cp "$tmp/grown-base.db" "$tmp/count.db"
  total=$(calls "$1" "$bin" ingest --db "$tmp/count.db" "${inputs[@]}")
  for n in $(sweep "$total" 8); do
    rm -f "$tmp/s.db"* && cp "$tmp/grown-base.db" "$tmp/s.db"
    set +e
    (LEASETRAIL_FAULT=$1:$n "$bin" ingest --db "$tmp/s.db" "${inputs[@]}" >/dev/null 2>"$tmp/err"; exit $?) 2>/dev/null
    status=$?
    set -e
    clean_end "$1" "$status" "grown ingest, $1 call $n of $total"
    store_recovers "$tmp/s.db" "grown ingest, $1 call $n of $total"
    runs=$((runs + 1))
  done
  inputs=("$tmp/audit.log" "$tmp/kubelet.log")
  ref=
}

runs=0
for kind in sqlite io alloc zstd; do
  # ---- an ingest into a new store ----
  rm -f "$tmp/count.db"*
  total=$(calls "$kind" "$bin" ingest --db "$tmp/count.db" "${inputs[@]}")
  rm -f "$tmp/count.db"*
  # zstd: a few allocations (the raw records' compression contexts, index-raw.c), all swept
  [ -n "$total" ] && [ "$total" -gt "$([ "$kind" = zstd ] && echo 0 || echo 50)" ] \
    || fail "$kind: no call count ($total): not a -DLT_FAULT=ON build?"
  for n in $(sweep "$total" 12); do
    rm -f "$tmp/s.db"*
    set +e
    (LEASETRAIL_FAULT=$kind:$n "$bin" ingest --db "$tmp/s.db" "${inputs[@]}" >/dev/null 2>"$tmp/err"; exit $?) 2>/dev/null
    status=$?
    set -e
    clean_end "$kind" "$status" "ingest, $kind call $n of $total"
    store_recovers "$tmp/s.db" "ingest, $kind call $n of $total"
    runs=$((runs + 1))
  done
  # ---- an ingest that reads on a grown file ----
  [ "$kind" = alloc ] || grown_sweep "$kind"
  # ---- queries on a full store ----
  for cmd in nodes "timeline ip-10-0-241-171.ec2.internal"; do
    # shellcheck disable=SC2086 # the command's words
    total=$(calls "$kind" "$bin" $cmd --db "$tmp/clean.db")
    for n in $(sweep "$total" 6); do
      set +e
      # shellcheck disable=SC2086
      (LEASETRAIL_FAULT=$kind:$n "$bin" $cmd --db "$tmp/clean.db" >/dev/null 2>"$tmp/err"; exit $?) 2>/dev/null
      status=$?
      set -e
      clean_end "$kind" "$status" "$cmd, $kind call $n of $total"
      runs=$((runs + 1))
    done
  done
  summary "$tmp/clean.db" >"$tmp/after.txt"
  cmp -s "$tmp/clean.txt" "$tmp/after.txt" || fail "queries under faults changed the store"
done
echo "ok: fault injection, $runs runs"
