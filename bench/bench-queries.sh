#!/usr/bin/env bash
# Query latency on a store of at least 10 million events (issue 3).
#
#   bench/bench-queries.sh [MINUTES]      (default 560: 3000 nodes, ~10.1 M events)
#
# Builds Release binaries, streams lt-gen's output straight into `leasetrail ingest -`
# (no multi-GB log on disk), then times `nodes`, `timeline NODE`, `timeline NS/LEASE`
# and every canned query, each run 5 times on a warm page cache (median and max in
# ms), and checks with LEASETRAIL_EXPLAIN that no plan scans the audit table.
# Prints a Markdown block for bench/RESULTS.md.  The store stays in bench/out/ for
# reruns (delete bench/out/q.db to rebuild it).
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-560}
out=bench/out
mkdir -p "$out"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$(nproc)" >/dev/null
bin=build-bench/cli/leasetrail
gen=build-bench/samples/lt-gen
db=${LEASETRAIL_BENCH_DB:-$out/q.db} # another store of the same build (read only), e.g. a copy

if [ ! -s "$db" ]; then
  start=$(date +%s.%N)
  "$gen" --nodes 3000 --minutes "$minutes" --seed 9 --noise 0 \
    --stories node-delete,lease-delete,leader-change |
    /usr/bin/time -f "%e s, peak RSS %M KB" -o "$out/q-ingest.time" "$bin" ingest -q --db "$db" - \
      >"$out/q-ingest.out"
  echo "built in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.0f", b - a}') s: $(cat "$out/q-ingest.out") ($(cat "$out/q-ingest.time"))" >"$out/q-build.txt"
fi
events=$("$bin" sql --db "$db" -o csv "SELECT count(*) FROM audit" | tail -1)
leases=$("$bin" sql --db "$db" -o csv "SELECT count(*) FROM lt_leases" | tail -1)
node=$("$bin" sql --db "$db" -o csv "SELECT name FROM leases WHERE kind = 'node' AND deletes > 0 ORDER BY name LIMIT 1" | tail -1)

# time_ms CMD...: the median and max wall time of 5 runs (after one warm-up), in ms
time_ms() {
  local runs=() t0 t1
  "$@" >/dev/null
  for _ in 1 2 3 4 5; do
    t0=$(date +%s%N); "$@" >/dev/null; t1=$(date +%s%N)
    runs+=($(( (t1 - t0) / 1000000 )))
  done
  printf '%s\n' "${runs[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%d | %d", a[3], a[5]}'
}

{
  echo "### Queries on a store of $events events, $leases leases ($(date -u +%Y-%m-%d))"
  echo
  echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB RAM. Store: $(du -h "$db" | cut -f1)B. $(cat "$out/q-build.txt" 2>/dev/null || true)"
  echo
  echo "| command | median ms | max ms | target |"
  echo "|---|---|---|---|"
  echo "| nodes | $(time_ms "$bin" nodes --db "$db" -o csv) | < 100 (issue 21) |"
  echo "| timeline $node | $(time_ms "$bin" timeline --db "$db" "$node") | < 10 (issue 21) |"
  echo "| timeline kube-system/kube-controller-manager | $(time_ms "$bin" timeline --db "$db" kube-system/kube-controller-manager) | |"
  for q in $("$bin" query --list | awk '{print $1}'); do
    echo "| query $q | $(time_ms "$bin" query --db "$db" "$q" -o csv) | < 50 (issue 21) |"
  done
} | tee "$out/queries.md"

# no plan may scan the audit table
: >"$out/plans.txt"
LEASETRAIL_EXPLAIN=1 "$bin" nodes --db "$db" -o csv 2>>"$out/plans.txt" >/dev/null
LEASETRAIL_EXPLAIN=1 "$bin" timeline --db "$db" -v "$node" 2>>"$out/plans.txt" >/dev/null
for q in $("$bin" query --list | awk '{print $1}'); do
  LEASETRAIL_EXPLAIN=1 "$bin" query --db "$db" "$q" 2>>"$out/plans.txt" >/dev/null
done
# audit's alias is `a` by convention, in the events view too (a scan through it shows as `a`);
# CTEs and other tables take other letters (`v` is also the evictions view's lt_evictions)
if grep -E 'SCAN (audit|a|audit_raw)( |$)' "$out/plans.txt"; then
  echo "FAIL: a query scans the audit table (see $out/plans.txt)"; exit 1
fi
echo
echo "Plans: no full scan of audit in $(grep -c '^-- plan of' "$out/plans.txt") statements ($out/plans.txt)."
