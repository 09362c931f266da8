#!/usr/bin/env bash
# health-gen.sh - node health on generated clusters, measured against lt-gen's truth.
# Usage: health-gen.sh LEASETRAIL LT_GEN HEALTH_EVAL TMPDIR [SEEDS...]
# For each seed: one cluster (every story of lt-gen --health, two apiservers, the
# second one's clock 300 ms ahead), at Metadata level ingested three ways (audit + logs,
# audit only, logs only) and at RequestResponse level two (audit + logs, audit only).
# health-eval prints the figures and fails on a missed or invented window, a start off
# by > 6 s, an end off by > 2 s, a cause other than the evidence allows, an eviction
# count other than the attributable one, or (both sources) under 95 % of causes right.
# `stats` must report the second stream's offset within 20 ms of -300 ms.
set -euo pipefail
lt=$1 gen=$2 eval=$3 tmp=$4
shift 4
seeds=${*:-"1 2 3 4"}
rm -rf "$tmp" && mkdir -p "$tmp"
fail=0
for seed in $seeds; do
	for level in Metadata RequestResponse; do
		d="$tmp/$seed-$level"
		mkdir -p "$d/logs"
		"$gen" --health all --seed "$seed" --nodes 10 --minutes 40 --level "$level" \
			--skew-ms 300 -o "$d/audit.log" --journal-dir "$d/logs" \
			--kcm-log "$d/logs/kube-controller-manager.log" --truth "$d/truth.tsv"
		modes="both audit-rr"
		[ "$level" = Metadata ] && modes="both audit logs"
		for mode in $modes; do
			case $mode in
			both) in=("$d/audit.log.1" "$d/audit.log.2" "$d/logs") ;;
			audit*) in=("$d/audit.log.1" "$d/audit.log.2") ;;
			logs) in=("$d/logs") ;;
			esac
			db="$d/$mode.db"
			yr=(); [ "$mode" = logs ] && yr=(--year 2024)
			"$lt" ingest --db "$db" "${yr[@]}" "${in[@]}" >/dev/null 2>&1
			printf 'seed=%s level=%s ' "$seed" "$level"
			"$eval" "$db" "$d/truth.tsv" "$mode" || fail=1
		done
		off=$("$lt" stats --db "$d/both.db" | sed -n 's/.*audit\.log\.2 \([-+0-9.]*\) s.*/\1/p')
		awk -v o="$off" 'BEGIN { exit !(o != "" && o > -0.320 && o < -0.280) }' ||
			{ echo "FAIL: seed $seed $level: audit.log.2 offset '$off', want -0.300 s"; fail=1; }
	done
done
exit $fail
