#!/usr/bin/env bash
# Ingest throughput of the same audit events as plain JSON lines and as a CloudWatch export.
#
#   bench/bench-cloudwatch.sh [NODES [MINUTES]]     (default 1000 nodes, 30 minutes: ~250 MB)
#
# Builds a Release leasetrail, lt-gen (with cc, as samples/make-samples.sh does) and
# samples/cw-export.c, generates an EKS-shaped audit log (steady state, no stories), converts
# it to `aws logs filter-log-events` output (pretty-printed pages of 10 000 events,
# concatenated, each event's JSON escaped into "message"), then times
#   leasetrail ingest --db fresh1.db audit.log
#   leasetrail ingest --db fresh2.db export.json
# with /usr/bin/time (RUNS=3 alternating runs of each, best and median reported), checks
# both stored the same number of events, and prints a Markdown
# block for bench/RESULTS.md.  The ratio compares events per second (the export is larger
# for the same events).  Target: the export no slower than half the plain rate.
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-1000}
minutes=${2:-30}
out=bench/out
mkdir -p "$out"

cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$(nproc)" --target leasetrail >/dev/null
bin=build-bench/cli/leasetrail
${CC:-cc} -std=c11 -O2 -o "$out/lt-gen" samples/sample-gen*.c
${CC:-cc} -std=c11 -O2 -o "$out/cw-export" samples/cw-export.c

log=$out/cw-audit-${nodes}n${minutes}m.log
cwfile=$out/cw-export.json
if [ ! -s "$log" ]; then
  "$out/lt-gen" --nodes "$nodes" --minutes "$minutes" --stories none --seed 42 -o "$log"
fi
"$out/cw-export" <"$log" >"$cwfile"
events=$(wc -l <"$log")
log_size=$(stat -c %s "$log")
export_size=$(stat -c %s "$cwfile")

measure() { # measure NAME CMD... -> "seconds rss_kb"
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$out/$name.time" "$@" >"$out/$name.stdout" 2>"$out/$name.stderr" || {
    echo "$name failed:" >&2; cat "$out/$name.stderr" >&2; exit 1; }
  cat "$out/$name.time"
}
stored() { grep -o '[0-9]* events stored' "$out/$1.stdout" | cut -d' ' -f1; }

# RUNS alternating runs of each (the machine is shared: report the best and the median)
runs=${RUNS:-3}
sync
plain_t=() cw_t=() plain_kb=0 cw_kb=0
for i in $(seq "$runs"); do
  rm -f "$out"/cw-plain.db* "$out"/cw-export.db*
  read -r s kb < <(measure cw-plain "$bin" ingest -q --db "$out/cw-plain.db" "$log")
  plain_t+=("$s"); [ "$kb" -gt "$plain_kb" ] && plain_kb=$kb
  read -r s kb < <(measure cw-export "$bin" ingest -q --db "$out/cw-export.db" "$cwfile")
  cw_t+=("$s"); [ "$kb" -gt "$cw_kb" ] && cw_kb=$kb
done
plain_stored=$(stored cw-plain)
cw_stored=$(stored cw-export)
if [ "$plain_stored" != "$cw_stored" ]; then
  echo "different results: plain stored $plain_stored events, the export $cw_stored" >&2
  exit 1
fi
rm -f "$out"/cw-plain.db* "$out"/cw-export.db*

awk -v events="$events" -v ls="$log_size" -v es="$export_size" -v stored="$plain_stored" \
    -v pt="${plain_t[*]}" -v ct="${cw_t[*]}" -v pk="$plain_kb" -v ck="$cw_kb" -v nodes="$nodes" \
    -v minutes="$minutes" -v cores="$(nproc)" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" \
    -v date="$(date -u +%Y-%m-%d)" '
function sorted(str, a,   n, i, j, t) {
  n = split(str, a, " ")
  for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
  return n
}
function row(name, mb, best, med, kb) {
  printf "| %s | %.1f | %.2f | %.2f | %.1f | %.0f | %.0f | %.1f MB |\n", name, mb, best, med, mb/best, events/best, events/med, kb/1024
}
BEGIN {
  n = sorted(pt, p); sorted(ct, c)
  pb = p[1]; pm = p[int((n + 1) / 2)]; cb = c[1]; cm = c[int((n + 1) / 2)]
  printf "### CloudWatch export vs plain audit lines (%s)\n\n", date
  printf "%d cores (load average %s at the end). Events: %d (lt-gen --nodes %d --minutes %d --stories none), %d stored by each run. %d alternating runs of each; seconds: plain %s, export %s.\n\n", cores, load, events, nodes, minutes, stored, n, pt, ct
  printf "| input | MB | best s | median s | MB/s (best) | events/s (best) | events/s (median) | peak RSS |\n|---|---|---|---|---|---|---|---|\n"
  row("audit JSON lines", ls/1e6, pb, pm, pk)
  row("filter-log-events export", es/1e6, cb, cm, ck)
  printf "\nRatio (events/s, export / plain): **%.2f** best, **%.2f** median (target >= 0.5).\n", pb/cb, pm/cm
}' | tee "$out/cloudwatch.md"
