#!/usr/bin/env bash
# The queries of issue 21 item 3 and issue 14 on the 10 M-event store (`timeline NODE`,
# `timeline NS/LEASE`, `nodes`, every canned query) with two binaries on two stores,
# alternating run by run so that a shared machine's load falls on both alike.
#
#   bench/bench-node-queries.sh BEFORE_BIN BEFORE_DB AFTER_BIN AFTER_DB [RUNS]   (default 9)
#
# The stores are opened read-only.  For each command and side: the median and max wall time
# (ms) and the median CPU time (task-clock from `perf stat`, ms), after one warm-up run each.
# The node is bench-queries.sh's: the first node lease with a delete, else the first node lease
# (a store with no deleted node lease), else none (`timeline NODE` is left out, and said so).
# Two floors come first:
# `query --list` (a process that starts and opens no store) and `sql SELECT+1` (one that
# opens the store and runs nothing): what every other figure pays before its own work.
# QUERIES="CMD;CMD..." (command lines separated by ;) replaces the list.  Prints a Markdown table.
set -euo pipefail
before=$1 bdb=$2 after=$3 adb=$4 runs=${5:-9}
node=$("$after" sql --db "$adb" -o csv \
  "SELECT name FROM leases WHERE kind = 'node' ORDER BY deletes = 0, name LIMIT 1" | sed -n 2p)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# one BIN DB ARGS...: "wall_ms cpu_ms" of one run
one() {
  local bin=$1 db=$2 t0 t1 cpu
  shift 2
  t0=$(date +%s%N)
  cpu=$(perf stat -x, -e task-clock "$bin" "$@" --db "$db" 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1}')
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000000 )) $cpu"
}

# stats FILE: "median wall | max wall | median cpu"
stats() {
  sort -n -k1 "$1" | awk '{w[NR]=$1} END {printf "%d | %d", w[int((NR+1)/2)], w[NR]}'
  printf ' | '
  sort -n -k2 "$1" | awk '{c[NR]=$2} END {printf "%.1f", c[int((NR+1)/2)]}'
}

cmds=("query --list" "sql -o csv SELECT+1")
if [ -n "$node" ]; then
  cmds+=("timeline $node")
else
  echo "No node lease in $adb: timeline NODE left out." >&2
fi
cmds+=("timeline kube-system/kube-controller-manager" "nodes -o csv")
for q in $("$after" query --list | awk '{print $1}'); do
  cmds+=("query $q -o csv")
done
if [ -n "${QUERIES:-}" ]; then
  IFS=';' read -r -a cmds <<<"$QUERIES"
fi
echo "Load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| command | before median ms | before max | before CPU ms | after median ms | after max | after CPU ms |"
echo "|---|---|---|---|---|---|---|"
for c in "${cmds[@]}"; do
  read -r -a args <<<"$c"
  one "$before" "$bdb" "${args[@]}" >/dev/null
  one "$after" "$adb" "${args[@]}" >/dev/null
  : >"$work/before"; : >"$work/after"
  for _ in $(seq "$runs"); do
    one "$before" "$bdb" "${args[@]}" >>"$work/before"
    one "$after" "$adb" "${args[@]}" >>"$work/after"
  done
  echo "| $c | $(stats "$work/before") | $(stats "$work/after") |"
done
echo
echo "Load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
