#!/usr/bin/env bash
# Issue 20's tools (f on every list, marks, export, copy, `:`, the mouse) against the cluster
# screen's speed: the TUI's measurement mode (bench-tui.sh's: the first screen, then 80 rows
# down, 80 pages down and up, each with a full redraw) run by a baseline binary and by this
# tree's, alternately, on the same generated store, in a 120x40 tmux pane; with the CPU time of
# each run (user + system, /usr/bin/time), which a machine loaded by others disturbs less than
# the wall clock.
#
#   bench/bench-tui-tools.sh [BASE_REV] [NODES] [RUNS]   (default: main, 1000 nodes, 3 runs)
#
# Builds both in Release (build-bench-tools/{base,this}); the store is lt-gen's NODES steady
# nodes over 60 minutes plus the samples' stories (bench/out/tools.db).  Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-main}
nodes=${2:-1000}
runs=${3:-3}
out=$PWD/bench/out
top=$PWD/build-bench-tools
mkdir -p "$out" "$top/base-src"
git archive "$base" | tar -x -C "$top/base-src"
cmake -S "$top/base-src" -B "$top/base" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$top/base" -j2 --target leasetrail >/dev/null
cmake -S . -B "$top/this" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$top/this" -j2 --target leasetrail lt-gen >/dev/null
db=$out/tools.db
if [ ! -s "$db" ]; then
  "$top/this/samples/lt-gen" --nodes "$nodes" --minutes 60 -o "$out/tools.log"
  "$top/this/cli/leasetrail" ingest -q --db "$db" "$out/tools.log" >/dev/null
  rm -f "$out/tools.log"
fi
sock=lt-bench-tools-$$
tmux_() { tmux -L "$sock" "$@"; }
trap 'tmux_ kill-server 2>/dev/null || true' EXIT

# run BIN: the measurement file's lines, then "cpu_s USER+SYS"
run() {
  local file=$out/tools-bench.txt cpu=$out/tools-cpu.txt
  rm -f "$file" "$cpu"
  tmux_ new-session -d -x 120 -y 40 -e LANG=C.UTF-8 -e TERM=xterm-256color \
    "LEASETRAIL_TUI_BENCH=$file LEASETRAIL_TUI_BENCH_STEPS=80 /usr/bin/time -f '%U %S' -o $cpu $1 tui --db $db; sleep 60"
  for _ in $(seq 1 1200); do
    [ -s "$cpu" ] && break
    sleep 0.1
  done
  tmux_ kill-server 2>/dev/null || true
  cat "$file"
  awk '{printf "cpu_s %.2f\n", $1 + $2}' "$cpu"
}

events=$("$top/this/cli/leasetrail" sql --db "$db" -o csv "SELECT count(*) FROM audit" | tail -1)
echo "### TUI tools against the cluster screen: $events events, $nodes nodes ($(date -u +%Y-%m-%d))"
echo
echo "Machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at the start; base $(git rev-parse --short "$base"), this $(git rev-parse --short HEAD) (+ the working tree)."
echo
echo "| binary | run | first screen ms | j median / p95 ms | PgDn median / p95 ms | PgUp median / p95 ms | CPU s (user+sys) |"
echo "|---|---|---|---|---|---|---|"
for r in $(seq 1 "$runs"); do
  for which in base this; do
    run "$top/$which/cli/leasetrail" | awk -v w="$which" -v r="$r" '
      /^first_screen_ms/ {first = $2}
      /^cpu_s/ {cpu = $2}
      /^(down|pgdn|pgup) / {v[$1] = sprintf("%.1f / %.1f", $7, $9)}
      END {printf "| %s | %d | %.0f | %s | %s | %s | %.2f |\n", w, r, first, v["down"], v["pgdn"], v["pgup"], cpu}'
  done
done
