#!/usr/bin/env bash
# Kubelet journal ingestion (lines/s) against `grep -c` over the same file, in one run.
#
#   bench/bench-journal.sh [NOISE]     (default 24: about 1.1 GB, 4.3 M lines)
#
# Builds a Release leasetrail and lt-gen, generates the merged kubelet journal of a
# 3000-node cluster over an hour (`lt-gen --journal`, short format, NOISE routine lines
# per node-minute), then times
#   leasetrail ingest --db fresh.db JOURNAL     (parse, classify, store every line)
#   grep -c kubelet JOURNAL                     (read every line, nothing else)
# and prints a Markdown block for bench/RESULTS.md.  Work files go to bench/out/.
set -euo pipefail
cd "$(dirname "$0")/.."
noise=${1:-24}
out=bench/out
mkdir -p "$out"

cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$(nproc)" >/dev/null
bin=build-bench/cli/leasetrail
gen=build-bench/samples/lt-gen

log=$out/bench-journal-$noise.log
if [ ! -s "$log" ]; then
  "$gen" --nodes 3000 --minutes 60 --stories node-delete,lease-delete --seed 42 \
    --journal "$log" --journal-format short --journal-noise "$noise"
fi
size=$(stat -c %s "$log")
lines=$(wc -l <"$log")

measure() { # measure NAME STDOUT CMD... -> "seconds rss_kb"
  local name=$1 stdout=$2; shift 2
  /usr/bin/time -f "%e %M" -o "$out/$name.time" "$@" >"$stdout" 2>"$out/$name.stderr" || true
  cat "$out/$name.time"
}

sync
rm -f "$out"/journal.db "$out"/journal.db-wal "$out"/journal.db-shm
read -r lt_s lt_kb < <(measure lt-journal "$out/lt-journal.stdout" \
  "$bin" ingest -q --year 2024 --db "$out/journal.db" "$log")
read -r gr_s gr_kb < <(measure grep-journal "$out/grep.stdout" grep -c kubelet "$log")
stored=$(grep -o '[0-9]* events stored' "$out/lt-journal.stdout" | cut -d' ' -f1)
classified=$("$bin" sql -o csv --db "$out/journal.db" \
  "SELECT count(*) FROM lines WHERE kind_id IS NOT NULL" | tail -1)

awk -v size="$size" -v lines="$lines" -v stored="$stored" -v cls="$classified" -v lt="$lt_s" \
    -v gr="$gr_s" -v ltk="$lt_kb" -v grk="$gr_kb" \
    -v cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" \
    -v cores="$(nproc)" -v date="$(date -u +%Y-%m-%d)" -v noise="$noise" 'BEGIN {
  printf "### Kubelet journal ingestion vs grep -c (%s)\n\n", date
  printf "Machine: %s, %d cores. Journal: %.0f MB, %d lines (lt-gen --nodes 3000 --minutes 60 --journal-noise %d, short format).\n\n", cpu, cores, size/1e6, lines, noise
  printf "| tool | seconds | MB/s | lines/s | peak RSS |\n|---|---|---|---|---|\n"
  printf "| leasetrail ingest | %.2f | %.1f | %.0f | %.1f MB |\n", lt, size/1e6/lt, lines/lt, ltk/1024
  printf "| grep -c kubelet | %.2f | %.1f | %.0f | %.1f MB |\n\n", gr, size/1e6/gr, lines/gr, grk/1024
  printf "leasetrail parses, classifies and stores every line at **%.2fx** the time of grep -c (%d lines stored, %d classified).\n", lt/gr, stored, cls
}' | tee "$out/journal.md"
