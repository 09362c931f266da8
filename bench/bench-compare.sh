#!/usr/bin/env bash
# Before/after on one machine in one run: two leasetrail binaries (say, the session's start and
# its end) ingest the same audit log in turn, and answer the same queries on their own store of
# the same generated cluster.
#
#   bench/bench-compare.sh BEFORE_BIN AFTER_BIN LOG BEFORE_DB AFTER_DB
#
# LOG: e.g. bench-ingest.sh's bench/out/bench-audit.log.  BEFORE_DB/AFTER_DB: a store of the
# 10 M-event cluster bench-queries.sh builds, one made by each binary (a store's schema belongs
# to its version).  Ingest runs alternate (B A B A) after the disk settles; each query is the
# median of 5 warm runs.  Prints a Markdown block for bench/RESULTS.md.
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: $0 BEFORE_BIN AFTER_BIN LOG BEFORE_DB AFTER_DB" >&2; exit 2; }
before=$1 after=$2 log=$3 bdb=$4 adb=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

settle() {
  sync
  for _ in $(seq 60); do
    [ "$(awk '/^(Dirty|Writeback):/ {n += $2} END {print n}' /proc/meminfo)" -lt 65536 ] && return
    sleep 1
  done
}

ingest_s() { # BIN -> "seconds rss_kb"
  rm -f "$work"/i.db*
  settle
  /usr/bin/time -f "%e %M" -o "$work/t" "$1" ingest -q --db "$work/i.db" "$log" >/dev/null
  cat "$work/t"
}

median_ms() { # CMD... -> median of 5 after a warm-up
  local runs=() t0 t1
  "$@" >/dev/null 2>&1 || true
  for _ in 1 2 3 4 5; do
    t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
    runs+=($(( (t1 - t0) / 1000000 )))
  done
  printf '%s\n' "${runs[@]}" | sort -n | sed -n 3p
}

row() { # LABEL ARGS... (run against each binary's store)
  local label=$1; shift
  local b a
  b=$(median_ms "$before" "$@" --db "$bdb")
  a=$(median_ms "$after" "$@" --db "$adb")
  echo "| $label | $b | $a | $(awk -v b="$b" -v a="$a" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}') |"
}

read -r b1 bk1 < <(ingest_s "$before")
read -r a1 ak1 < <(ingest_s "$after")
read -r b2 bk2 < <(ingest_s "$before")
read -r a2 ak2 < <(ingest_s "$after")
size=$(stat -c %s "$log")
node=$("$after" sql --db "$adb" -o csv \
  "SELECT name FROM leases WHERE kind = 'node' AND deletes > 0 ORDER BY name LIMIT 1" | tail -1)
events=$("$after" sql --db "$adb" -o csv "SELECT count(*) FROM audit" | tail -1)

echo "### Before/after ($(date -u +%Y-%m-%d))"
echo
echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB RAM."
echo
echo "Ingest of a $(awk -v s="$size" 'BEGIN {printf "%.0f", s / 1e6}') MB audit log, runs alternating:"
echo
echo "| binary | run 1 s | run 2 s | peak RSS |"
echo "|---|---|---|---|"
echo "| before | $b1 | $b2 | $(( bk1 / 1024 )) MB |"
echo "| after | $a1 | $a2 | $(( ak1 / 1024 )) MB |"
echo
awk -v b1="$b1" -v b2="$b2" -v a1="$a1" -v a2="$a2" 'BEGIN {
  b = (b1 < b2 ? b1 : b2); a = (a1 < a2 ? a1 : a2)
  printf "Best of two: after / before = **%.3f**.\n\n", a / b }'
echo "Queries on a store of $events events (median of 5 warm runs, ms):"
echo
echo "| command | before | after | after / before |"
echo "|---|---|---|---|"
row nodes nodes -o csv
row "timeline $node" timeline "$node"
row "timeline kube-system/kube-controller-manager" timeline kube-system/kube-controller-manager
for q in $("$before" query --list | awk '{print $1}'); do
  row "query $q" query "$q" -o csv
done
for q in $("$after" query --list | awk '{print $1}'); do
  "$before" query --list | awk '{print $1}' | grep -qx "$q" && continue
  echo "| query $q (new) | - | $(median_ms "$after" query "$q" -o csv --db "$adb") | |"
done
