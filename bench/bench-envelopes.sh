#!/usr/bin/env bash
# Ingest throughput of the same audit events as plain JSON lines and in each cloud envelope.
#
#   bench/bench-envelopes.sh [NODES [MINUTES]]     (default 500 nodes, 30 minutes: ~125 MB)
#   SHAPES="la-json la-csv ..." bench/bench-envelopes.sh ...   other shapes of cloud-export
#   (bench/bench-results.sh: the query engines' result exports, issue 18)
#
# Builds a Release leasetrail, lt-gen and samples/cloud-export.c (with cc), generates an
# EKS-shaped audit log (steady state, no stories), converts it to every envelope
# cloud-export writes (AKS storage JSON lines and Event Hub messages of 1000 records, GKE
# sink JSON lines and the gcloud JSON array), then times `leasetrail ingest --db FRESH.db
# FILE` for the plain log and each envelope with /usr/bin/time: RUNS=3 rounds, each round
# running every input once in turn (so a busy moment of the shared machine costs every input
# alike), best and median wall time and the best CPU time (user + sys) reported.  Checks each stored the same number of events, and
# prints a Markdown block for bench/RESULTS.md.  The ratios compare events per second (an
# envelope is larger for the same events).  Target: every envelope at >= 0.6x the plain rate.
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-500}
minutes=${2:-30}
out=bench/out
mkdir -p "$out"

cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$(nproc)" --target leasetrail >/dev/null
bin=build-bench/cli/leasetrail
${CC:-cc} -std=c11 -O2 -o "$out/lt-gen" samples/sample-gen*.c
${CC:-cc} -std=c11 -O2 -o "$out/cloud-export" samples/cloud-export.c

log=$out/env-audit-${nodes}n${minutes}m.log
if [ ! -s "$log" ]; then
  "$out/lt-gen" --nodes "$nodes" --minutes "$minutes" --stories none --seed 42 -o "$log"
fi
read -r -a shapes <<<"${SHAPES:-aks-lines aks-eventhub gke-lines gke-array}"
title=${TITLE:-Cloud envelopes}
for s in "${shapes[@]}"; do
  "$out/cloud-export" --to "$s" --page 1000 <"$log" >"$out/env-$s.json"
done
events=$(wc -l <"$log")

measure() { # measure NAME FILE -> "seconds rss_kb cpu_seconds"
  rm -f "$out/env-$1.db"*
  /usr/bin/time -f "%e %M %U %S" -o "$out/env-$1.time" "$bin" ingest -q --db "$out/env-$1.db" "$2" \
    >"$out/env-$1.stdout" 2>"$out/env-$1.stderr" || {
    echo "$1 failed:" >&2; cat "$out/env-$1.stderr" >&2; exit 1; }
  awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$out/env-$1.time"
}
stored() { grep -o '[0-9]* events stored' "$out/env-$1.stdout" | cut -d' ' -f1; }

runs=${RUNS:-3}
names=(plain "${shapes[@]}")
files=("$log")
for s in "${shapes[@]}"; do files+=("$out/env-$s.json"); done
declare -A times kbs cpus
sync
for i in $(seq "$runs"); do
  for k in "${!names[@]}"; do
    read -r sec kb cpu < <(measure "${names[$k]}" "${files[$k]}")
    times[${names[$k]}]="${times[${names[$k]}]:-} $sec"
    cpus[${names[$k]}]="${cpus[${names[$k]}]:-} $cpu"
    [ "$kb" -gt "${kbs[${names[$k]}]:-0}" ] && kbs[${names[$k]}]=$kb
  done
done
want=$(stored plain)
for s in "${shapes[@]}"; do
  [ "$(stored "$s")" = "$want" ] || {
    echo "different results: plain stored $want events, $s $(stored "$s")" >&2; exit 1; }
done
rm -f "$out"/env-*.db*

{
  for k in "${!names[@]}"; do
    printf '%s %s %s%s |%s\n' "${names[$k]}" "$(stat -c %s "${files[$k]}")" "${kbs[${names[$k]}]}" \
      "${times[${names[$k]}]}" "${cpus[${names[$k]}]}"
  done
} | awk -v events="$events" -v stored="$want" -v nodes="$nodes" -v minutes="$minutes" \
    -v runs="$runs" -v cores="$(nproc)" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" \
    -v cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" \
    -v date="$(date -u +%Y-%m-%d)" -v title="$title" '
function sorted(n, a,   i, j, t) {
  for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
}
{
  name[NR] = $1; size[NR] = $2; kb[NR] = $3; n = 0; m = 0; bar = 0
  secs[NR] = ""
  for (i = 4; i <= NF; i++) {
    if ($i == "|") { bar = 1; continue }
    if (bar) c[++m] = $i; else { a[++n] = $i; secs[NR] = secs[NR] " " $i }
  }
  sorted(n, a); best[NR] = a[1]; med[NR] = a[int((n + 1) / 2)]
  sorted(m, c); cbest[NR] = c[1]
}
END {
  printf "### %s vs plain audit lines (%s)\n\n", title, date
  printf "%s, %d cores (load average %s at the end). Events: %d (lt-gen --nodes %d --minutes %d --stories none --seed 42), %d stored by each input. %d rounds, every input once per round; seconds per input:", cpu, cores, load, events, nodes, minutes, stored, runs
  for (r = 1; r <= NR; r++) printf " %s%s;", name[r], secs[r]
  printf "\n\n| input | MB | best s | median s | events/s (best) | events/s (median) | x plain (best) | x plain (median) | CPU s (best) | x plain (CPU) | peak RSS |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
  for (r = 1; r <= NR; r++)
    printf "| %s | %.1f | %.2f | %.2f | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %.1f MB |\n", name[r], size[r]/1e6, best[r], med[r], events/best[r], events/med[r], best[1]/best[r], med[1]/med[r], cbest[r], cbest[1]/cbest[r], kb[r]/1024
  printf "\nTarget: every envelope >= 0.6x the plain rate (events/s).\n"
}' | tee "$out/${OUT_NAME:-envelopes}.md"
