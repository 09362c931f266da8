#!/usr/bin/env bash
# What building node health costs at ingest, before/after on one machine in one run.
#
#   bench/bench-health.sh BEFORE_BIN AFTER_BIN LOG [RUNS]
#
# For each binary, RUNS times (default 3, binaries alternating): a fresh ingest of LOG (its
# wall and CPU seconds: the whole ingest, node health included), then on that store an
# ingest of the same file again (every file a duplicate: nothing loaded, nothing rebuilt)
# and the same after marking only node health behind (`UPDATE derived SET event_id = 0
# WHERE name = 'node-health'`: only it is rebuilt).  The difference of those two is what
# node health costs; its share is that over the fresh ingest.  CPU (user + sys) is printed
# beside wall time: on a shared machine it is the steadier of the two.  Needs sqlite3.
# Prints a Markdown block for bench/RESULTS.md.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 BEFORE_BIN AFTER_BIN LOG [RUNS]" >&2; exit 2; }
before=$1 after=$2 log=$3 runs=${4:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

settle() {
  sync
  for _ in $(seq 60); do
    [ "$(awk '/^(Dirty|Writeback):/ {n += $2} END {print n}' /proc/meminfo)" -lt 65536 ] && return
    sleep 1
  done
}

timed() { # OUT CMD... -> "wall cpu" of CMD into OUT
  local out=$1; shift
  /usr/bin/time -f "%e %U %S" -o "$work/t" "$@" >/dev/null 2>&1
  awk '{printf "%.2f %.2f\n", $1, $2 + $3}' "$work/t" >"$out"
}

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

one() { # NAME BIN RUN
  local name=$1 bin=$2 r=$3 db="$work/$1.db"
  rm -f "$db" "$db-wal" "$db-shm"
  settle
  timed "$work/$name.fresh.$r" "$bin" ingest -q --db "$db" "$log"
  for i in 1 2 3; do
    timed "$work/$name.dup.$r.$i" "$bin" ingest -q --db "$db" "$log"
    sqlite3 "$db" "UPDATE derived SET event_id = 0 WHERE name = 'node-health'"
    timed "$work/$name.health.$r.$i" "$bin" ingest -q --db "$db" "$log"
  done
  rm -f "$db" "$db-wal" "$db-shm"
}

for r in $(seq "$runs"); do
  one before "$before" "$r"
  one after "$after" "$r"
done

col() { # NAME KIND FIELD(1 wall, 2 cpu) -> median over every run
  cat "$work/$1.$2".* | awk -v f="$3" '{print $f}' | median
}

echo "### Node health at ingest ($(date -u +%Y-%m-%d))"
echo
echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores," \
  "$(free -g | awk '/Mem:/ {print $2}') GiB RAM; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Log: $(awk -v s="$(stat -c %s "$log")" 'BEGIN {printf "%.0f", s / 1e6}') MB; medians of $runs fresh ingests and $((runs * 3)) re-ingests per binary (s):"
echo
echo "| binary | ingest wall | ingest CPU | duplicate wall | duplicate CPU | health rebuild wall | health rebuild CPU | node health (CPU) | share of ingest (CPU) |"
echo "|---|---|---|---|---|---|---|---|---|"
for b in before after; do
  fw=$(col $b fresh 1) fc=$(col $b fresh 2) dw=$(col $b dup 1) dc=$(col $b dup 2)
  hw=$(col $b health 1) hc=$(col $b health 2)
  awk -v b="$b" -v fw="$fw" -v fc="$fc" -v dw="$dw" -v dc="$dc" -v hw="$hw" -v hc="$hc" 'BEGIN {
    printf "| %s | %s | %s | %s | %s | %s | %s | %.2f | %.1f %% |\n", b, fw, fc, dw, dc, hw, hc,
      hc - dc, 100 * (hc - dc) / fc }'
done
