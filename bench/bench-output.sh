#!/usr/bin/env bash
# Output in bounded memory (issue 16): `sql "SELECT * FROM events"` of about a million rows,
# printed as a table, and how soon `| head -1` returns.
#
#   bench/bench-output.sh [BEFORE_BIN]
#
# Builds a Release binary of this tree (build-bench/), makes a store of about 1 M events with
# lt-gen (3000 nodes renewing for 56 minutes, streamed into `ingest -`; kept in bench/out/out.db
# for reruns), then for this binary and, when given, BEFORE_BIN (say, a Release build of main
# before the change), each on the same store:
#   - `sql "SELECT * FROM events"` in table mode (the default) to /dev/null under
#     /usr/bin/time -v: peak RSS and wall time;
#   - `sql "SELECT * FROM events" | head -1`: wall time until the pipeline ends (the median of
#     HEAD_RUNS runs, default 1: a binary that holds the whole table takes minutes a run).
# Prints a Markdown block for bench/RESULTS.md.  The machine's load average is printed with it:
# on a shared machine wall times move with it, peak RSS does not.
set -euo pipefail
cd "$(dirname "$0")/.."
before=${1:-}
out=bench/out
mkdir -p "$out"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$(nproc)" >/dev/null
after=build-bench/cli/leasetrail
gen=build-bench/samples/lt-gen
db=$out/out.db
query="SELECT * FROM events"

if [ ! -s "$db" ]; then
  "$gen" --nodes 3000 --minutes 56 --seed 9 --noise 0 --stories node-delete,lease-delete |
    "$after" ingest -q --db "$db" - >"$out/out-ingest.txt"
fi
rows=$("$after" sql --db "$db" -o csv "SELECT count(*) FROM events" | sed 1d)

# peak BIN ARGS...: "RSS_MB | seconds" of one run, output to /dev/null
peak() {
  /usr/bin/time -v -o "$out/time.txt" "$@" >/dev/null
  awk -F': ' '/Maximum resident set size/ {rss = $2 / 1024}
    /Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]}
    END {printf "%.1f MB | %.2f s", rss, s}' "$out/time.txt"
}

# head_ms BIN: the median of HEAD_RUNS runs of `BIN sql QUERY | head -1`, in ms
head_ms() {
  local runs=() t0 t1
  for _ in $(seq "${HEAD_RUNS:-1}"); do
    t0=$(date +%s%N)
    "$1" sql --db "$db" "$query" | head -1 >/dev/null || true
    t1=$(date +%s%N)
    runs+=($(((t1 - t0) / 1000000)))
  done
  printf '%s\n' "${runs[@]}" | sort -n | sed -n "$(((${#runs[@]} + 1) / 2))p"
}

row() { # LABEL BIN
  echo "| $1 | $(peak "$2" sql --db "$db" "$query") | $(head_ms "$2") ms | $(cut -d' ' -f1 /proc/loadavg) |"
}

{
  echo "### \`sql \"$query\"\` of $rows rows ($(date -u +%Y-%m-%d))"
  echo
  echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB RAM, load average $(cut -d' ' -f1 /proc/loadavg) when it started. Store: $(du -hL "$db" | cut -f1)B, warm page cache."
  echo
  echo "| binary | peak RSS | wall | \`\| head -1\` | load after |"
  echo "|---|---|---|---|---|"
  [ -z "$before" ] || row before "$before"
  row after "$after"
} | tee "$out/output.md"
