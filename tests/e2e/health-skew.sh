#!/usr/bin/env bash
# health-skew.sh - clock offsets between audit streams (issue 14 item 7), at the boundaries.
# Usage: health-skew.sh LEASETRAIL LT_GEN CW_EXPORT HEALTH_EVAL TMPDIR
# lt-gen --health clusters whose apiservers' clocks are skewed by known amounts; `stats`
# (text and -o json) must give each stream's offset against its cluster's reference
# within 20 ms, and the windows must still meet lt-gen's truth (health-eval) once the
# story is ordered on the corrected clocks:
#   three apiservers (+300 ms, -450 ms), and a deleted node's story cause first (its Node's
#   delete, then the GC's delete of its lease, logged earlier by a clock that runs behind);
#   two streams with skews of either sign, and the skewed one read first (the reference);
#   a stream with no causal pair (no Node request at all): "unknown" and null, never 0;
#   two clusters in one store: each its own reference and offsets;
#   one CloudWatch export holding three apiservers' log streams: a stream each.
set -euo pipefail
lt=$1 gen=$2 cw=$3 eval=$4 tmp=$5
rm -rf "$tmp" && mkdir -p "$tmp"
fail=0
die() { echo "FAIL: $*"; fail=1; }

# make DIR SEED SKEWS [SERVERS]: a 10-node cluster with every story
make() {
	mkdir -p "$1/logs"
	"$gen" --health all --seed "$2" --nodes 10 --minutes 40 --apiservers "${4:-2}" \
		--skew-ms "$3" -o "$1/audit.log" --journal-dir "$1/logs" \
		--kcm-log "$1/logs/kube-controller-manager.log" --truth "$1/truth.tsv"
}

# offset DB NAME: the offset `stats` prints for stream NAME (its line's second field)
offset() { "$lt" stats --db "$1" | awk -v n="$2" '$1 == n || $2 == n { print ($1 == n ? $2 : $3) }'; }

# near GOT WANT: within 20 ms
near() { awk -v o="$1" -v w="$2" 'BEGIN { exit !(o != "" && o != "unknown" && o - w < 0.020 && w - o < 0.020) }'; }

want() { # DB NAME SECONDS
	local got
	got=$(offset "$1" "$2")
	near "$got" "$3" || die "$1: $2 offset '$got', want $3 s"
}

# 1. three apiservers: +300 ms and -450 ms, placed against the first
for seed in 3 6; do
	d=$tmp/three-$seed
	make "$d" "$seed" 300,-450 3
	"$lt" ingest -q --db "$d/s.db" "$d"/audit.log.{1,2,3} "$d/logs" >/dev/null
	want "$d/s.db" audit.log.2 -0.300
	want "$d/s.db" audit.log.3 0.450
	grep -q '^  audit\.log\.1 reference (the reaction time from [0-9]* causal pairs)$' \
		<<<"$("$lt" stats --db "$d/s.db")" || die "three-$seed: audit.log.1 is not shown as the reference"
	printf 'three apiservers seed=%s ' "$seed"
	"$eval" "$d/s.db" "$d/truth.tsv" both || fail=1
	# every deleted node's story reads its Node's delete, then the GC's delete of its lease,
	# whichever apiserver logged each (seed 6: ip-10-1-0-17's lease delete is logged 175 ms
	# before its Node's, by an apiserver whose clock runs 300 ms behind the other's)
	for n in $(awk '$6 == "deleted" { print $1 }' "$d/truth.tsv"); do
		order=$("$lt" timeline --db "$d/s.db" "$n" |
			awk '$4 == "NODE_DELETED" || $4 == "DELETED" { printf "%s ", $4 }')
		[ "$order" = "NODE_DELETED DELETED " ] ||
			die "three-$seed: $n's timeline reads '$order', want its Node's delete first"
	done
done

# 2. two streams, skews of either sign; then the skewed stream read first is the reference
for skew in 250 -250; do
	d=$tmp/two$skew
	make "$d" 5 "$skew"
	"$lt" ingest -q --db "$d/s.db" "$d"/audit.log.{1,2} "$d/logs" >/dev/null
	want "$d/s.db" audit.log.2 "$(awk -v s="$skew" 'BEGIN { print -s / 1000 }')"
	"$lt" ingest -q --db "$d/rev.db" "$d/audit.log.2" >/dev/null
	"$lt" ingest -q --db "$d/rev.db" "$d/audit.log.1" "$d/logs" >/dev/null
	want "$d/rev.db" audit.log.1 "$(awk -v s="$skew" 'BEGIN { print s / 1000 }')"
	printf 'two streams %+d ms, skewed one first ' "$skew"
	"$eval" "$d/rev.db" "$d/truth.tsv" both || fail=1
done

# 3. a stream with no causal pair: unknown in the text, null in JSON
d=$tmp/three-3
grep -v '"resource":"nodes"' "$d/audit.log.3" >"$d/leases-only.log"
"$lt" ingest -q --db "$d/unknown.db" "$d"/audit.log.{1,2} "$d/leases-only.log" >/dev/null
got=$(offset "$d/unknown.db" leases-only.log)
[ "$got" = unknown ] || die "a stream with no causal pair: '$got', want unknown"
js=$("$lt" stats --db "$d/unknown.db" -o json | tr -d '\n')
grep -q '{"path":"leases-only.log","stream":null,"cluster":null,"state":"unknown","offset_s":null,"pairs":0}' \
	<<<"$js" || die "stats -o json: leases-only.log is not unknown with a null offset"
grep -q '{"path":"audit.log.1","stream":null,"cluster":null,"state":"reference","offset_s":0.000000,' \
	<<<"$js" || die "stats -o json: audit.log.1 is not the reference"
grep -q '{"path":"audit.log.2","stream":null,"cluster":null,"state":"estimated","offset_s":-0\.[0-9]*,"pairs":[1-9]' \
	<<<"$js" || die "stats -o json: audit.log.2 is not estimated"

# 4. two clusters in one store: each its own reference
make "$tmp/ca" 1 300
make "$tmp/cb" 2 -200
"$lt" ingest -q --db "$tmp/two-clusters.db" --cluster alpha "$tmp"/ca/audit.log.{1,2} >/dev/null
"$lt" ingest -q --db "$tmp/two-clusters.db" --cluster beta "$tmp"/cb/audit.log.{1,2} >/dev/null
st=$("$lt" stats --db "$tmp/two-clusters.db")
for c in alpha beta; do
	grep -q "^  \[$c\] audit\.log\.1 reference" <<<"$st" || die "cluster $c: audit.log.1 is not its reference"
done
a=$(awk '$1 == "[alpha]" && $2 == "audit.log.2" { print $3 }' <<<"$st")
b=$(awk '$1 == "[beta]" && $2 == "audit.log.2" { print $3 }' <<<"$st")
near "$a" -0.300 || die "cluster alpha: audit.log.2 offset '$a', want -0.300 s"
near "$b" 0.200 || die "cluster beta: audit.log.2 offset '$b', want 0.200 s"

# 5. one CloudWatch export, three apiservers' log streams in it
d=$tmp/cw
make "$d" 4 300,-200 3
for s in 1 2 3; do
	"$cw" --streams 1 <"$d/audit.log.$s" |
		sed "s/kube-apiserver-audit-[0-9a-f]*/kube-apiserver-audit-apiserver$s/"
done >"$d/export.json"
"$lt" ingest -q --db "$d/s.db" "$d/export.json" "$d/logs" >/dev/null
want "$d/s.db" export.json/kube-apiserver-audit-apiserver2 -0.300
want "$d/s.db" export.json/kube-apiserver-audit-apiserver3 0.200
grep -q '^  export\.json/kube-apiserver-audit-apiserver1 reference' <<<"$("$lt" stats --db "$d/s.db")" ||
	die "CloudWatch: the first stream is not the reference"
printf 'CloudWatch streams '
"$eval" "$d/s.db" "$d/truth.tsv" both || fail=1
exit $fail
