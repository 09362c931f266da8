#!/usr/bin/env bash
# What carrying a cluster on every event and line costs at ingest: two builds, one run.
#
#   bench/bench-clusters.sh BEFORE_BIN AFTER_BIN LT_GEN [MINUTES]   (default 20)
#
# BEFORE_BIN is a Release leasetrail of the tree before clusters (schema 4), AFTER_BIN one of
# this tree.  lt-gen writes one log (300 nodes, MINUTES of cluster time, other-resource
# noise); each binary ingests it into a fresh store three times, alternating, and the median
# wall time is kept; AFTER_BIN also with --cluster (every record interned and listed).
# Prints a Markdown table for bench/RESULTS.md.  Work files in bench/out/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
before=$1 after=$2 gen=$3 minutes=${4:-20}
out=bench/out
mkdir -p "$out"
log=$out/clusters-audit.log
"$gen" --nodes 300 --minutes "$minutes" --stories none --noise 20 --seed 7 -o "$log"
size=$(stat -c %s "$log")
lines=$(wc -l <"$log")

run() { # BIN ARGS... -> wall seconds of one ingest into a fresh store
	local bin=$1
	shift
	rm -f "$out/clusters.db" "$out/clusters.db-wal" "$out/clusters.db-shm"
	/usr/bin/time -f "%e" -o "$out/clusters.time" "$bin" ingest -q --db "$out/clusters.db" "$@" \
		"$log" >/dev/null 2>&1
	cat "$out/clusters.time"
}
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

b=() a=() c=()
for _ in 1 2 3; do
	b+=("$(run "$before")")
	a+=("$(run "$after")")
	c+=("$(run "$after" --cluster bench)")
done
mb=$(median "${b[@]}") ma=$(median "${a[@]}") mc=$(median "${c[@]}")
rate() { awk -v n="$lines" -v s="$1" 'BEGIN { printf "%.0f", n / s }'; }
echo "log: $((size / 1000000)) MB, $lines records; runs: before ${b[*]} / after ${a[*]} / --cluster ${c[*]} s"
echo
echo "| build | median wall s | records/s | vs before |"
echo "|---|---|---|---|"
echo "| before (schema 4) | $mb | $(rate "$mb") | 1.00 |"
echo "| after, no cluster named | $ma | $(rate "$ma") | $(awk -v a="$mb" -v b="$ma" 'BEGIN { printf "%.2f", a / b }') |"
echo "| after, --cluster bench | $mc | $(rate "$mc") | $(awk -v a="$mb" -v b="$mc" 'BEGIN { printf "%.2f", a / b }') |"
