#!/usr/bin/env bash
# TUI responsiveness on the 10-million-event store of bench-queries.sh (issue 6).
#
#   bench/bench-tui.sh [STEPS] [RUNS] [DB] [BIN]   (default 80 steps, 3 runs)
#
# DB: the store (default bench/out/q.db, or $LEASETRAIL_BENCH_DB), opened read-only, e.g. the
# shared /work/bench-10m/store.db; BIN: the leasetrail to run (default: a Release build of this
# tree in build-bench-tui/), e.g. an older build for a before figure.
#
# Runs `leasetrail tui` in a tmux
# pane (120x40, like a real terminal) in its measurement mode: it draws the cluster
# screen, then moves the cursor down STEPS times (j), pages down STEPS times and up
# STEPS times, each step followed by a full redraw, and writes the timings (from the
# start of the command to the first screen, and by phase: the start (exec, the store
# opened), the span, the terminal, the derived tables' check, the list, the first draw
# (strips, deletes, curses); per step: wall time mean, median, p95, max, and the process's
# CPU time median, p95, max, the figure to trust on a loaded machine).  The time until the
# first screen appears in tmux is also measured from outside by polling capture-pane.
# Binaries from before the CPU columns leave them empty.  Needs bench/out/q.db (bench/bench-queries.sh builds it, ~5 min).
# Prints a Markdown block for bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-80}
runs=${2:-3}
out=bench/out
mkdir -p "$out"
db=${3:-${LEASETRAIL_BENCH_DB:-$out/q.db}}
[ -s "$db" ] || bash bench/bench-queries.sh >/dev/null
db=$(realpath "$db")
if [ -n "${4:-}" ]; then
  bin=$(realpath "$4")
else
  cmake -S . -B build-bench-tui -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-bench-tui -j2 --target leasetrail >/dev/null
  bin=$PWD/build-bench-tui/cli/leasetrail
fi
sock=lt-bench-$$
tmux_() { tmux -L "$sock" "$@"; }
trap 'tmux_ kill-server 2>/dev/null || true' EXIT

events=$("$bin" sql --db "$db" -o csv "SELECT count(*) FROM audit" | tail -1)
leases=$("$bin" sql --db "$db" -o csv "SELECT count(*) FROM lt_leases" | tail -1)

# one run: the measurement file's lines, then "outside_ms N"
bench_run() {
  local file=$PWD/$out/tui-bench.txt t0 t1
  rm -f "$file"
  t0=$(date +%s%N)
  tmux_ new-session -d -x 120 -y 40 -e LANG=C.UTF-8 -e TERM=xterm-256color \
    "LEASETRAIL_TUI_BENCH=$file LEASETRAIL_TUI_BENCH_STEPS=$steps $bin tui --db $db; sleep 60"
  for _ in $(seq 1 3000); do
    tmux_ capture-pane -p 2>/dev/null | grep -q 'leasetrail | Cluster' && break
    sleep 0.01
  done
  t1=$(date +%s%N)
  for _ in $(seq 1 600); do
    grep -q '^pgup' "$file" 2>/dev/null && break
    sleep 0.2
  done
  tmux_ kill-server 2>/dev/null || true
  cat "$file"
  echo "outside_ms $(( (t1 - t0) / 1000000 ))"
  # the CPU time of a process that opens the store, draws the first screen and exits (no
  # steps): on a shared machine the steadier figure (perf stat's task-clock)
  rm -f "$file" "$file.cpu"
  tmux_ new-session -d -x 120 -y 40 -e LANG=C.UTF-8 -e TERM=xterm-256color \
    "LEASETRAIL_TUI_BENCH=$file LEASETRAIL_TUI_BENCH_STEPS=0 perf stat -x, -o $file.cpu -e task-clock $bin tui --db $db"
  for _ in $(seq 1 600); do
    grep -q task-clock "$file.cpu" 2>/dev/null && break
    sleep 0.1
  done
  tmux_ kill-server 2>/dev/null || true
  echo "first_screen_cpu_ms $(awk -F, '/task-clock/ {print $1}' "$file.cpu")"
}

{
  echo "### TUI on a store of $events events, $leases leases ($(date -u +%Y-%m-%d))"
  echo
  echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB RAM; terminal: tmux $(tmux -V | cut -d' ' -f2), 120x40. Steps per kind: $steps. Store: $db. Binary: $bin. Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "| run | first screen (in the program) ms | first screen seen in tmux ms | process CPU to the first screen ms | j: mean / median / p95 / max ms | PgDn: mean / median / p95 / max ms | PgUp: mean / median / p95 / max ms | CPU ms, median / p95 / max: j; PgDn; PgUp |"
  echo "|---|---|---|---|---|---|---|---|"
  for run in $(seq 1 "$runs"); do
    bench_run >"$out/tui-run-$run.txt"
    awk -v run="$run" '
      /^first_screen_ms/ {first = $2}
      /^outside_ms/ {outside = $2}
      /^first_screen_cpu_ms/ {cpu = $2}
      /^(down|pgdn|pgup) / {
        v[$1] = sprintf("%.1f / %.1f / %.1f / %.1f", $5, $7, $9, $11)
        if ($12 == "cpu_median_ms") c[$1] = sprintf("%.1f / %.1f / %.1f", $13, $15, $17)
      }
      END {
        cpus = c["down"] == "" ? "" : c["down"] "; " c["pgdn"] "; " c["pgup"]
        printf "| %d | %.0f | %d | %.1f | %s | %s | %s | %s |\n", run, first, outside, cpu, v["down"], v["pgdn"], v["pgup"], cpus
      }
    ' "$out/tui-run-$run.txt"
  done
  # the first screen by phase (the measured runs' in-program figures), when the binary says them
  if grep -q '^phase ' "$out/tui-run-1.txt"; then
    echo
    echo "First screen by phase, wall / CPU ms, one column a run:"
    echo
    printf '| phase |'; for run in $(seq 1 "$runs"); do printf ' run %d |' "$run"; done; echo
    printf '|---|'; for run in $(seq 1 "$runs"); do printf -- '---|'; done; echo
    for ph in $(awk '/^phase / {print $2}' "$out/tui-run-1.txt"); do
      printf '| %s |' "$ph"
      for run in $(seq 1 "$runs"); do
        awk -v ph="$ph" '$1 == "phase" && $2 == ph {printf " %.1f / %.1f |", $4, $6}' "$out/tui-run-$run.txt"
      done
      echo
    done
  fi
} | tee "$out/tui.md"

# the plans of what the TUI runs: no statement may scan the audit table
LEASETRAIL_EXPLAIN=1 tmux_ new-session -d -x 120 -y 40 -e LANG=C.UTF-8 -e TERM=xterm-256color \
  "LEASETRAIL_EXPLAIN=1 LEASETRAIL_TUI_BENCH=/dev/null LEASETRAIL_TUI_BENCH_STEPS=5 $bin tui --db $db 2>$PWD/$out/tui-plans.txt"
for _ in $(seq 1 300); do
  tmux_ has-session 2>/dev/null || break
  sleep 0.1
done
if grep -E 'SCAN (audit|a|v|audit_raw)( |$)' "$out/tui-plans.txt"; then
  echo "FAIL: a TUI statement scans the audit table (see $out/tui-plans.txt)"; exit 1
fi
echo
echo "Plans: no full scan of audit in $(grep -c '^-- plan of' "$out/tui-plans.txt") statements ($out/tui-plans.txt)."
