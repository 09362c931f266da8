#!/usr/bin/env bash
# The TUI histogram's counting statement (queries/queries-hist.c, issue 20 item 5) on a
# generated store, in CPU time (the machine is shared: wall time is noted, not compared).
#
#   bench/bench-hist.sh [NODES] [MINUTES]      (default 1000 nodes, 60 minutes: ~371 k events)
#
# Builds Release binaries (build-bench/), streams lt-gen into `leasetrail ingest -` (kept as
# bench/out/hist-N-M.db for reruns), then runs the statement lt_browse_hist prepares, with its
# parameters written in, through `leasetrail sql`: the whole range in 36 bins (what `i` opens
# on), 3600 bins of 1 s of which 36 are on screen (zoomed in), each 3 times, user + sys CPU
# of the process minus that of `SELECT 1` (the baseline: starting, opening the store). The
# same again on a copy with the indexes audit(stage_us, code, superseded) and lines(ts_us,
# severity), which the store does not have, to show what they would buy.
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-1000}
minutes=${2:-60}
out=bench/out
mkdir -p "$out"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j2 --target leasetrail lt-gen >/dev/null
bin=build-bench/cli/leasetrail
db=$out/hist-$nodes-$minutes.db
[ -s "$db" ] || build-bench/samples/lt-gen --nodes "$nodes" --minutes "$minutes" --seed 9 \
  --stories node-delete,lease-delete,leader-change | "$bin" ingest -q --db "$db" - >/dev/null
stores=("$db")
if command -v sqlite3 >/dev/null; then # the indexed copy needs the sqlite3 shell
  cp "$db" "$out/hist-idx.db"
  sqlite3 "$out/hist-idx.db" "CREATE INDEX audit_time ON audit(stage_us, code, superseded);
    CREATE INDEX lines_time ON lines(ts_us, severity);"
  stores+=("$out/hist-idx.db")
fi

read -r events lines first last < <("$bin" sql --db "$db" -o csv \
  "SELECT (SELECT count(*) FROM audit), (SELECT count(*) FROM lines),
   (SELECT min(first_us) FROM lt_leases), (SELECT max(last_us) FROM lt_leases)" | tail -1 | tr ',' ' ')

# the statement of queries-hist.c: bins of BIN µs from FIRST, N of them
hist_sql() {
  local bin=$1 n=$2
  echo "SELECT b, sum(n), sum(e) FROM (
 SELECT (a.stage_us - $first) / $bin AS b, count(*) AS n, sum(a.code >= 400) AS e FROM audit AS a
 WHERE a.stage_us >= $first AND a.stage_us < $first + $bin * $n AND a.superseded = 0 GROUP BY 1
 UNION ALL
 SELECT (g.ts_us - $first) / $bin, count(*), sum(g.severity IN ('E', 'F')) FROM lines AS g
 WHERE g.ts_us >= $first AND g.ts_us < $first + $bin * $n GROUP BY 1
) GROUP BY b"
}
# cpu DB SQL: the median user+sys ms of 3 runs
cpu() {
  local runs=()
  for _ in 1 2 3; do
    /usr/bin/time -f '%U %S %e' -o "$out/hist.time" "$bin" sql --db "$1" -o csv "$2" >/dev/null
    runs+=("$(awk '{printf "%d %d\n", ($1 + $2) * 1000, $3 * 1000}' "$out/hist.time")")
  done
  printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p
}
base=$(cpu "$db" "SELECT 1")
whole=$(hist_sql $(((last - first) / 36 + 1)) 36)
zoomed=$(hist_sql 1000000 36)

echo "### The histogram's statement on $events events and $lines lines ($(date -u +%Y-%m-%d))"
echo
echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg). CPU = user + sys of \`leasetrail sql\` minus the baseline \`SELECT 1\` ($(echo "$base" | cut -d' ' -f1) ms); median of 3."
echo
echo "| view | store | CPU ms | wall ms |"
echo "|---|---|---|---|"
for v in whole zoomed; do
  for d in "${stores[@]}"; do
    read -r c w < <(cpu "$d" "${!v}")
    name=$([ "$d" = "$db" ] && echo "as ingested" || echo "+ time indexes")
    echo "| $v | $name | $((c - ${base%% *})) | $w |"
  done
done
