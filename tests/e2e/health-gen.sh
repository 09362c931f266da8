#!/usr/bin/env bash
# health-gen.sh - node health on generated clusters, measured against lt-gen's truth.
# Usage: health-gen.sh LEASETRAIL LT_GEN HEALTH_EVAL TMPDIR [SEEDS...]
# For each seed: one cluster (every story of lt-gen --health, two apiservers, the
# second 300 ms behind), ingested four ways: audit + logs (Metadata), audit + logs
# (RequestResponse), audit only, logs only.  health-eval prints the figures and
# fails on a missed or invented window, a start off by > 6 s, an end off by > 2 s,
# or (with both sources) fewer than 95 % of causes right.
set -euo pipefail
lt=$1 gen=$2 eval=$3 tmp=$4
shift 4
seeds=${*:-"1 2 3 4 5 6"}
rm -rf "$tmp" && mkdir -p "$tmp"
fail=0
for seed in $seeds; do
	for level in Metadata RequestResponse; do
		d="$tmp/$seed-$level"
		mkdir -p "$d/logs"
		"$gen" --health all --seed "$seed" --nodes 10 --minutes 40 --level "$level" \
			--skew-ms 300 -o "$d/audit.log" --journal-dir "$d/logs" \
			--kcm-log "$d/logs/kube-controller-manager.log" --truth "$d/truth.tsv"
		modes="both"
		[ "$level" = Metadata ] && modes="both audit logs"
		for mode in $modes; do
			case $mode in
			both) in=("$d/audit.log.1" "$d/audit.log.2" "$d/logs") ;;
			audit) in=("$d/audit.log.1" "$d/audit.log.2") ;;
			logs) in=("$d/logs") ;;
			esac
			db="$d/$mode.db"
			yr=(); [ "$mode" = logs ] && yr=(--year 2024)
			"$lt" ingest --db "$db" "${yr[@]}" "${in[@]}" >/dev/null 2>&1
			printf 'seed=%s level=%s ' "$seed" "$level"
			"$eval" "$db" "$d/truth.tsv" "$mode" || fail=1
		done
	done
done
exit $fail
