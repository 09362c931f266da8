#!/usr/bin/env bash
# Ingest throughput of the same logs in their plain form and in each text shape of
# samples/log-shapes.c, in one run.
#
#   bench/bench-shapes.sh [NODES [MINUTES [NOISE]]]   (default 300 nodes, 30 minutes, noise 12)
#
# Builds a Release leasetrail, lt-gen and log-shapes, generates with lt-gen the merged kubelet
# journal of the cluster (short format) and the same lines as bare klog (`--journal-format
# cat`), and an audit log; converts them: klog to mixed, rancher, rsyslog-cri and wrap (100
# columns); the journal to journal-de, journal-ja and wrap (100); the audit log to wrap (200).
# Then times `leasetrail ingest --db FRESH.db FILE` for every plain form and shape with
# /usr/bin/time: RUNS=3 rounds, each running every input once in turn (a busy moment of the
# shared machine costs every input alike); best and median wall time, best CPU time (user +
# sys).  Checks each shape stored as many lines (events) as its plain form, and prints a
# Markdown block for bench/RESULTS.md.  Ratios compare records per second to the plain form's.
# Target: every shape at >= 0.6x its plain form.
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-300}
minutes=${2:-30}
noise=${3:-12}
out=bench/out
mkdir -p "$out"

cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$(nproc)" --target leasetrail lt-gen log-shapes >/dev/null
bin=build-bench/cli/leasetrail
gen=build-bench/samples/lt-gen
conv=build-bench/samples/log-shapes

pre=$out/shapes-${nodes}n${minutes}m${noise}
if [ ! -s "$pre-journal.log" ]; then
	"$gen" --nodes "$nodes" --minutes "$minutes" --stories none --seed 42 \
		--journal "$pre-journal.log" --journal-format short --journal-noise "$noise"
	"$gen" --nodes "$nodes" --minutes "$minutes" --stories none --seed 42 \
		--journal "$pre-klog.log" --journal-format cat --journal-noise "$noise"
	"$gen" --nodes "$nodes" --minutes "$minutes" --stories none --seed 42 -o "$pre-audit.log"
fi
# name:plain-form:file
inputs=(klog:klog:"$pre-klog.log" journal:journal:"$pre-journal.log" audit:audit:"$pre-audit.log")
for s in mixed rancher rsyslog-cri; do
	"$conv" --to "$s" --year 2024 <"$pre-klog.log" >"$pre-klog-$s.log"
	inputs+=("klog-$s:klog:$pre-klog-$s.log")
done
"$conv" --to wrap --width 100 <"$pre-klog.log" >"$pre-klog-wrap.log"
inputs+=("klog-wrap:klog:$pre-klog-wrap.log")
for s in journal-de journal-ja; do
	"$conv" --to "$s" <"$pre-journal.log" >"$pre-$s.log"
	inputs+=("$s:journal:$pre-$s.log")
done
"$conv" --to wrap --width 100 <"$pre-journal.log" >"$pre-journal-wrap.log"
inputs+=("journal-wrap:journal:$pre-journal-wrap.log")
"$conv" --to wrap --width 200 <"$pre-audit.log" >"$pre-audit-wrap.log"
inputs+=("audit-wrap:audit:$pre-audit-wrap.log")

measure() { # measure NAME FILE -> "seconds rss_kb cpu_seconds"
	rm -f "$out/sh-$1.db"*
	/usr/bin/time -f "%e %M %U %S" -o "$out/sh-$1.time" "$bin" ingest -q --year 2024 \
		--db "$out/sh-$1.db" "$2" >"$out/sh-$1.stdout" 2>"$out/sh-$1.stderr" || {
		echo "$1 failed:" >&2
		cat "$out/sh-$1.stderr" >&2
		exit 1
	}
	awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$out/sh-$1.time"
}
stored() { grep -o '[0-9]* \(lines\|events\) stored' "$out/sh-$1.stdout" | cut -d' ' -f1; }

runs=${RUNS:-3}
declare -A times kbs cpus
sync
for i in $(seq "$runs"); do
	for e in "${inputs[@]}"; do
		IFS=: read -r name _ file <<<"$e"
		read -r sec kb cpu < <(measure "$name" "$file")
		times[$name]="${times[$name]:-} $sec"
		cpus[$name]="${cpus[$name]:-} $cpu"
		[ "$kb" -gt "${kbs[$name]:-0}" ] && kbs[$name]=$kb
	done
done
for e in "${inputs[@]}"; do
	IFS=: read -r name plain _ <<<"$e"
	[ "$(stored "$name")" = "$(stored "$plain")" ] || {
		echo "different results: $plain stored $(stored "$plain"), $name $(stored "$name")" >&2
		exit 1
	}
done
rm -f "$out"/sh-*.db*

{
	for e in "${inputs[@]}"; do
		IFS=: read -r name plain file <<<"$e"
		printf '%s %s %s %s %s%s |%s\n' "$name" "$plain" "$(stored "$name")" \
			"$(stat -c %s "$file")" "${kbs[$name]}" "${times[$name]}" "${cpus[$name]}"
	done
} | awk -v runs="$runs" -v cores="$(nproc)" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" \
	-v nodes="$nodes" -v minutes="$minutes" -v noise="$noise" -v date="$(date -u +%Y-%m-%d)" '
function sorted(n, a,   i, j, t) {
  for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
}
{
  split($0, halves, "|"); nw = split(halves[1], f, " "); nc = split(halves[2], c, " ")
  name[NR] = f[1]; plain[NR] = f[2]; recs[NR] = f[3]; size[NR] = f[4]; kb[NR] = f[5]
  n = 0; for (i = 6; i <= nw; i++) w[++n] = f[i]
  sorted(n, w); best[NR] = w[1]; med[NR] = w[int((n + 1) / 2)]
  sorted(nc, c); cpu[NR] = c[1]
  if (name[NR] == plain[NR]) base[plain[NR]] = recs[NR] / cpu[NR]
}
END {
  printf "### Text log shapes vs their plain forms (bench/bench-shapes.sh, %s)\n\n", date
  printf "lt-gen --nodes %d --minutes %d --stories none --journal-noise %d; %d rounds; %d cores, load %s at the end (the machine is shared: CPU time, user + sys, is the steadier measure).\n\n", nodes, minutes, noise, runs, cores, load
  printf "| input | records | MB | best wall s | median wall s | best CPU s | records/CPU-s | vs plain | peak RSS MB |\n|---|---|---|---|---|---|---|---|---|\n"
  for (i = 1; i <= NR; i++) {
    rate = recs[i] / cpu[i]
    printf "| %s | %d | %.1f | %.2f | %.2f | %.2f | %.0f | %s | %.1f |\n", name[i], recs[i], size[i] / 1e6, best[i], med[i], cpu[i], rate, name[i] == plain[i] ? "plain" : sprintf("%.2fx", rate / base[plain[i]]), kb[i] / 1024
  }
}'
