#!/usr/bin/env bash
# health-seeds.sh - node health against lt-gen's truth over many seeds and every evidence mix,
# totals per (apiservers, level, evidence): the figures of issue 14 in bench/RESULTS.md.
# Usage: health-seeds.sh LEASETRAIL LT_GEN HEALTH_EVAL TMPDIR [SEEDS...]   (default 1..10)
# Each seed is one `lt-gen --health all --nodes 10 --minutes 40` cluster, written by two
# apiservers (the second 300 ms ahead) and by three (+300 ms, -450 ms), at Metadata and
# RequestResponse level; ingested with audit + logs, audit only, logs only (Metadata).
# Prints one Markdown row per mix and every window health-eval calls missed or invented;
# exits 1 when any window was missed or invented.  Not run by ctest (about 2 CPU-minutes a
# seed): e2e.health-gen and e2e.health-skew run a few of these seeds.
set -euo pipefail
lt=$1 gen=$2 eval=$3 tmp=$4
shift 4
seeds=${*:-"1 2 3 4 5 6 7 8 9 10"}
rm -rf "$tmp" && mkdir -p "$tmp"
out=$tmp/figures.txt
: >"$out"
for seed in $seeds; do
	for servers in 2 3; do
		skew=300
		[ "$servers" = 3 ] && skew=300,-450
		for level in Metadata RequestResponse; do
			d="$tmp/$seed-$servers-$level"
			mkdir -p "$d/logs"
			"$gen" --health all --seed "$seed" --nodes 10 --minutes 40 --level "$level" \
				--apiservers "$servers" --skew-ms "$skew" -o "$d/audit.log" \
				--journal-dir "$d/logs" --kcm-log "$d/logs/kube-controller-manager.log" \
				--truth "$d/truth.tsv"
			modes="both audit-rr"
			[ "$level" = Metadata ] && modes="both audit logs"
			for mode in $modes; do
				case $mode in
				both) in=("$d"/audit.log.? "$d/logs") ;;
				audit*) in=("$d"/audit.log.?) ;;
				logs) in=("$d/logs") ;;
				esac
				yr=()
				[ "$mode" = logs ] && yr=(--year 2024)
				"$lt" ingest --db "$d/$mode.db" "${yr[@]}" "${in[@]}" >/dev/null 2>&1
				"$eval" "$d/$mode.db" "$d/truth.tsv" "$mode" 2>&1 |
					sed "s/^/servers=$servers level=$level seed=$seed /" >>"$out" || true
			done
		done
	done
done
grep -E 'missed|invented' "$out" || true
echo "| apiservers | level | evidence | seeds | windows | found | missed | invented | recall (min) | precision (min) | max start error | max end error | cause right | as evidence allows |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
awk '
function v(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
$5 == "missed:" || $5 == "invented:" { bad[v("servers") " | " v("level") " | " $4, $5]++; next }
/ mode=/ {
	key = v("servers") " | " v("level") " | " v("mode")
	if (!(key in n)) { order[++keys] = key; rmin[key] = pmin[key] = 1 }
	n[key]++; w[key] += v("windows"); f[key] += v("found")
	r = v("recall") + 0; p = v("precision") + 0
	if (r < rmin[key]) rmin[key] = r
	if (p < pmin[key]) pmin[key] = p
	s = v("max_start_err") + 0; e = v("max_end_err") + 0
	if (s > smax[key]) smax[key] = s
	if (e > emax[key]) emax[key] = e
	c[key] += v("cause") * v("windows"); a[key] += v("cause_as_evidence_allows") * v("windows")
}
END {
	for (i = 1; i <= keys; i++) {
		k = order[i]
		printf "| %s | %d | %d | %d | %d | %d | %.3f | %.3f | %.3f s | %.3f s | %.3f | %.3f |\n", k,
			n[k], w[k], f[k], bad[k, "missed:"], bad[k, "invented:"], rmin[k], pmin[k], smax[k], emax[k], c[k] / w[k], a[k] / w[k]
	}
}' "$out"
missed=$(grep -c ' missed: ' "$out" || true)
invented=$(grep -c ' invented: ' "$out" || true)
echo "missed $missed, invented $invented"
[ "$missed" = 0 ] && [ "$invented" = 0 ]
