#!/usr/bin/env bash
# Ingest speed of audit logs, kubelet journals and CloudWatch exports against their baselines,
# and against an older leasetrail, all timed in one run (issue 21 item 2).
#
#   BEFORE=/path/to/old/leasetrail RUNS=3 bench/bench-speed.sh [AUDIT_MINUTES [JOURNAL_MINUTES [NOISY_MINUTES]]]
#
# (defaults: 12 minutes of a 3000-node audit log, ~330 MB, 88 % of it lease and node events;
# 10 minutes of its merged kubelet journal at 24 routine lines per node-minute, ~180 MB; and
# 4 minutes of a 1000-node audit log with a real cluster's share of other requests, ~170 MB:
# lt-gen's --noise 800, whose four request streams give about 600 pods, configmaps, events and
# endpoints requests a second beside the 100 lease and node events of 1000 nodes, so lease and
# node events are about 17 % of its lines).  Builds a Release leasetrail, lt-gen
# and samples/cw-export.c, generates the three inputs, then RUNS times, alternating:
#   json_verify -s < AUDIT                  (yajl's own lexer: the audit baseline)
#   [BEFORE] ingest --db fresh.db AUDIT, then this tree's
#   json_verify -s < NOISY, [BEFORE] ingest NOISY, this tree's ingest NOISY
#   grep -c kubelet JOURNAL                 (the journal baseline)
#   [BEFORE] ingest --year 2024 --db fresh.db JOURNAL, then this tree's
#   [BEFORE] ingest --db fresh.db EXPORT, then this tree's (CloudWatch: events/s vs the audit's)
# each with /usr/bin/time (wall, user + sys CPU, peak RSS).  The machine is shared: the
# medians are reported with the load average, in wall and in CPU time, and the stores of
# BEFORE and of this tree are checked to hold the same events, lines and episodes.
# Prints a Markdown block for bench/RESULTS.md; work files go to bench/out/ (git-ignored).
#
# CALLGRIND=1 adds instruction counts, which the machine's load cannot blur: valgrind's
# callgrind (--separate-threads=yes) on the first 30000 journal lines, the first 8000 lines of each
# audit log and the CloudWatch export of the first 8000 audit lines, for BEFORE and this tree,
# per thread (thread 1: the writer, then indexes and lifecycles;
# thread 2: the parser; threads 3 and on: the raw blocks' compressors, each load's own, summed).
set -euo pipefail
cd "$(dirname "$0")/.."
audit_min=${1:-12}
journal_min=${2:-10}
noisy_min=${3:-4}
runs=${RUNS:-3}
before=${BEFORE:-}
out=bench/out
mkdir -p "$out"

cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$(nproc)" --target leasetrail lt-gen >/dev/null
after=build-bench/cli/leasetrail
gen=build-bench/samples/lt-gen
${CC:-cc} -std=c11 -O2 -o "$out/cw-export" samples/cw-export.c
command -v json_verify >/dev/null || { echo "json_verify missing (apt-get install yajl-tools)" >&2; exit 1; }

audit=$out/speed-audit-${audit_min}m.log
journal=$out/speed-journal-${journal_min}m.log
cw=$out/speed-cw-${audit_min}m.json
noisy=$out/speed-noisy-${noisy_min}m.log
[ -s "$audit" ] || "$gen" --nodes 3000 --minutes "$audit_min" --stories none --noise 40 --seed 42 -o "$audit"
[ -s "$journal" ] || "$gen" --nodes 3000 --minutes "$journal_min" --stories node-delete,lease-delete \
  --seed 42 --journal "$journal" --journal-format short --journal-noise 24
[ -s "$cw" ] || "$out/cw-export" <"$audit" >"$cw"
[ -s "$noisy" ] || "$gen" --nodes 1000 --minutes "$noisy_min" --stories none --noise 800 --seed 42 -o "$noisy"

# measure NAME STDIN CMD... -> appends "NAME wall user sys rss_kb" to the results
results=$out/speed-results.txt
: >"$results"
measure() {
  local name=$1 in=$2; shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$out/$name.time" "$@" <"$in" >"$out/$name.stdout" \
    2>"$out/$name.stderr" || { echo "$name failed:" >&2; cat "$out/$name.stderr" >&2; exit 1; }
  echo "$name $(cat "$out/$name.time")" >>"$results"
}
ingest() { # ingest NAME BIN INPUT [OPTIONS...]
  local name=$1 bin=$2 in=$3; shift 3
  rm -f "$out/$name.db" "$out/$name.db-wal" "$out/$name.db-shm"
  measure "$name" /dev/null "$bin" ingest -q "$@" --db "$out/$name.db" "$in"
}

sync
load_start=$(cut -d' ' -f1 /proc/loadavg)
for _ in $(seq "$runs"); do
  measure json_verify "$audit" json_verify -q -s
  [ -z "$before" ] || ingest audit-before "$before" "$audit"
  ingest audit-after "$after" "$audit"
  measure json_verify_noisy "$noisy" json_verify -q -s
  [ -z "$before" ] || ingest noisy-before "$before" "$noisy"
  ingest noisy-after "$after" "$noisy"
  measure grep "$journal" grep -c kubelet
  [ -z "$before" ] || ingest journal-before "$before" "$journal" --year 2024
  ingest journal-after "$after" "$journal" --year 2024
  [ -z "$before" ] || ingest cw-before "$before" "$cw"
  ingest cw-after "$after" "$cw"
done
load_end=$(cut -d' ' -f1 /proc/loadavg)

# the same answers: what each store holds, before and after (each store read by its own binary:
# a newer schema refuses to read an older store without upgrading it); times summed modulo a
# prime, exactly: a float total() depends on the rows' order, which ids may change)
same=yes
if [ -n "$before" ]; then
  for s in audit noisy journal cw; do
    for q in "SELECT count(*), coalesce(sum(stage_us % 1000000007), 0) FROM audit" \
             "SELECT count(*), coalesce(sum(ts_us % 1000000007), 0), count(kind_id) FROM lines" \
             "SELECT count(*), coalesce(sum(start_us % 1000000007), 0), coalesce(sum(end_us % 1000000007), 0) FROM lt_episodes" \
             "SELECT count(*) FROM lt_notready" "SELECT count(*) FROM lt_evictions"; do
      a=$("$before" sql -o csv --db "$out/$s-before.db" "$q" 2>&1 | tail -1 || true)
      b=$("$after" sql -o csv --db "$out/$s-after.db" "$q" 2>&1 | tail -1 || true)
      [ "$a" = "$b" ] || { same="NO ($s: $q: $a vs $b)"; }
    done
  done
fi

# callgrind NAME BIN INPUT [OPTIONS...] -> "NAME thread1 thread2 threads3+ total" instructions
callgrind() {
  local name=$1 bin=$2 in=$3 t1 t2 t3 f; shift 3
  rm -f "$out/cg.db" "$out/cg.db-wal" "$out/cg.db-shm" "$out/cg-$name".out*
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/cg-$name.out" \
    "$bin" ingest -q "$@" --db "$out/cg.db" "$in" >/dev/null 2>&1
  t1=$(sed -n 's/^summary: //p' "$out/cg-$name.out-01")
  t2=$(sed -n 's/^summary: //p' "$out/cg-$name.out-02")
  t3=0
  for f in "$out/cg-$name".out-0[3-9] "$out/cg-$name".out-[1-9][0-9]; do
    if [ -e "$f" ]; then t3=$((t3 + $(sed -n 's/^summary: //p' "$f"))); fi
  done
  awk -v n="$name" -v a="$t1" -v b="$t2" -v c="$t3" \
    'BEGIN { printf "| %s | %.2f G | %.2f G | %.2f G | %.2f G |\n", n, a / 1e9, b / 1e9, c / 1e9, (a + b + c) / 1e9 }'
}
if [ -n "${CALLGRIND:-}" ]; then
  head -30000 "$journal" >"$out/cg-journal.log"
  head -8000 "$audit" >"$out/cg-audit.log"
  head -8000 "$noisy" >"$out/cg-noisy.log"
  "$out/cw-export" <"$out/cg-audit.log" >"$out/cg-cw.json"
  {
    printf '| input, build | thread 1 (writer, after the load) | thread 2 (parser) | threads 3+ (block compressors) | total |\n|---|---|---|---|---|\n'
    [ -z "$before" ] || callgrind journal-before "$before" "$out/cg-journal.log" --year 2024
    callgrind journal-after "$after" "$out/cg-journal.log" --year 2024
    [ -z "$before" ] || callgrind audit-before "$before" "$out/cg-audit.log"
    callgrind audit-after "$after" "$out/cg-audit.log"
    [ -z "$before" ] || callgrind noisy-before "$before" "$out/cg-noisy.log"
    callgrind noisy-after "$after" "$out/cg-noisy.log"
    [ -z "$before" ] || callgrind cw-before "$before" "$out/cg-cw.json"
    callgrind cw-after "$after" "$out/cg-cw.json"
  } >"$out/speed-callgrind.md"
fi

events=$(wc -l <"$audit")
awk -v asize="$(stat -c %s "$audit")" -v jsize="$(stat -c %s "$journal")" \
    -v csize="$(stat -c %s "$cw")" -v events="$events" -v jlines="$(wc -l <"$journal")" \
    -v nsize="$(stat -c %s "$noisy")" -v nevents="$(wc -l <"$noisy")" \
    -v nlease="$(grep -c '"resource":"\(leases\|nodes\)"' "$noisy")" \
    -v runs="$runs" -v l0="$load_start" -v l1="$load_end" -v same="$same" \
    -v cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" \
    -v cores="$(nproc)" -v date="$(date -u '+%Y-%m-%d %H:%M')" '
function median(name, field,   n, i, j, t, v) {
  n = 0
  for (i = 1; i <= nrec; i++) if (nm[i] == name) v[++n] = (field == "cpu" ? us[i] + sy[i] : wall[i])
  if (n == 0) return 0
  for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
  return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function maxrss(name,   i, m) { m = 0; for (i = 1; i <= nrec; i++) if (nm[i] == name && rss[i] > m) m = rss[i]; return m }
function row(input, label, name, size, count) {
  if (median(name, "wall") == 0) return
  printf "| %s | %s | %.2f | %.2f | %.1f | %.1f | %.0f | %.1f MB |\n", input, label, median(name, "wall"),
    median(name, "cpu"), size / 1e6 / median(name, "wall"), size / 1e6 / median(name, "cpu"),
    count / median(name, "wall"), maxrss(name) / 1024
}
{ nrec++; nm[nrec] = $1; wall[nrec] = $2; us[nrec] = $3; sy[nrec] = $4; rss[nrec] = $5 }
END {
  printf "### Ingest speed against the baselines (%s UTC, bench/bench-speed.sh, RUNS=%d)\n\n", date, runs
  printf "Machine: %s, %d cores, shared: load average %s at the start, %s at the end. Medians of %d alternating runs; CPU = user + sys of every thread.\n\n", cpu, cores, l0, l1, runs
  printf "| input | tool | wall s | CPU s | MB/s (wall) | MB/s (CPU) | records/s (wall) | peak RSS |\n|---|---|---|---|---|---|---|---|\n"
  ain = sprintf("audit %.0f MB, %d events", asize / 1e6, events)
  jin = sprintf("journal %.0f MB, %d lines", jsize / 1e6, jlines)
  cin = sprintf("CloudWatch export %.0f MB, same events", csize / 1e6)
  row(ain, "json_verify -s", "json_verify", asize, events)
  row("", "before", "audit-before", asize, events)
  row("", "after", "audit-after", asize, events)
  nin = sprintf("audit with other requests %.0f MB, %d events (%.0f %% lease and node)", nsize / 1e6, nevents, 100 * nlease / nevents)
  row(nin, "json_verify -s", "json_verify_noisy", nsize, nevents)
  row("", "before", "noisy-before", nsize, nevents)
  row("", "after", "noisy-after", nsize, nevents)
  row(jin, "grep -c", "grep", jsize, jlines)
  row("", "before", "journal-before", jsize, jlines)
  row("", "after", "journal-after", jsize, jlines)
  row(cin, "before", "cw-before", csize, events)
  row("", "after", "cw-after", csize, events)
  jv = median("json_verify", "wall"); gr = median("grep", "wall"); au = median("audit-after", "wall")
  printf "\nAudit: after = **%.2fx** json_verify -s in wall time (target >= 0.5x), %.2fx in CPU time.\n", jv / au, median("json_verify", "cpu") / median("audit-after", "cpu")
  if (median("noisy-after", "wall") > 0)
    printf "Audit with other requests: after = **%.2fx** json_verify -s in wall time (target >= 0.5x), %.2fx in CPU time.\n", median("json_verify_noisy", "wall") / median("noisy-after", "wall"), median("json_verify_noisy", "cpu") / median("noisy-after", "cpu")
  printf "Journal: after = **%.3fx** grep -c in wall time (target >= 0.05x), %.1f MB/s (target >= 150).\n", gr / median("journal-after", "wall"), jsize / 1e6 / median("journal-after", "wall")
  printf "CloudWatch: **%.2fx** the plain audit log in events/s (target >= 0.8x).\n", au / median("cw-after", "wall")
  if (median("audit-before", "wall") > 0)
    printf "After vs before (wall / CPU): audit %.2fx / %.2fx, audit with other requests %.2fx / %.2fx, journal %.2fx / %.2fx, CloudWatch %.2fx / %.2fx faster. Same events, lines, episodes, not-ready and eviction rows: %s.\n",
      median("audit-before", "wall") / au, median("audit-before", "cpu") / median("audit-after", "cpu"),
      median("noisy-before", "wall") / median("noisy-after", "wall"), median("noisy-before", "cpu") / median("noisy-after", "cpu"),
      median("journal-before", "wall") / median("journal-after", "wall"), median("journal-before", "cpu") / median("journal-after", "cpu"),
      median("cw-before", "wall") / median("cw-after", "wall"), median("cw-before", "cpu") / median("cw-after", "cpu"), same
}' "$results" | tee "$out/speed.md"
[ -z "${CALLGRIND:-}" ] || { printf '\nInstructions (callgrind):\n\n'; cat "$out/speed-callgrind.md"; }
