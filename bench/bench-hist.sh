#!/usr/bin/env bash
# The TUI histogram's counting statement (queries/queries-hist.c, issue 20 item 5) on a
# generated store, in CPU time (the machine is shared: wall time is noted, not compared).
#
#   bench/bench-hist.sh [NODES] [MINUTES] [grown]   (default 1000 nodes, 60 minutes: ~371 k
#                                                  events, and every kubelet's journal; grown:
#                                                  only the grown log's ingest, below)
#
# Builds Release binaries (build-bench/), ingests lt-gen's audit log and journal (kept as
# bench/out/hist-N-M.db for reruns), then runs the statement lt_browse_hist prepares, with its
# parameters written in, through `leasetrail sql`: the whole range in bins of 2 minutes from a
# whole minute (what `i` opens on: round bins), and 36 bins of 1 s (zoomed in), each 3 times,
# user + sys CPU of the process minus that of `SELECT 1` (the baseline: starting, opening the
# store). Each view is timed counting the rows (the statement every bin took before the
# "hist" lifecycle, and still takes for bins not whole seconds) and reading the kept counts
# (lt_hist_min for the minutes, lt_hist_sec for the seconds), and the two are checked to give
# the same bins. The rows' statement again on a copy with the indexes audit(stage_us, code,
# superseded) and lines(ts_us, severity), which the store does not have, to show what they
# would buy and cost. Also: the ingest's CPU, the store's size and the kept counts' share of
# it (dbstat), and the CPU of the kept counts' grouped SELECT (what each ingest and `rebuild`
# adds to count them anew).
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-1000}
minutes=${2:-60}
out=bench/out
mkdir -p "$out"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j2 --target leasetrail lt-gen >/dev/null
bin=build-bench/cli/leasetrail

# A grown log (the common ingest): the first 90 % of lt-gen's audit log and journal ingested,
# then both files grown to their whole. The grown ingest is timed 3 times on copies of the
# 90 % store with the kept counts as they are (the update: the new rows' counts added in) and
# 3 times with them marked stale first (sqlite3, as a re-dating marks them), which makes the
# same binary count them whole as every ingest did before: the baseline, same run. Both must
# leave the same seconds and minutes, and those of a rebuild.
grown_bench() {
  command -v sqlite3 >/dev/null || return 0
  g=$out/grown
  build-bench/samples/lt-gen --nodes "$nodes" --minutes "$minutes" --seed 9 \
    --stories node-delete,lease-delete,leader-change -o "$g.log.all" --journal "$g.journal.all"
  head -n $(($(wc -l <"$g.log.all") * 9 / 10)) "$g.log.all" >"$g.log"
  head -n $(($(wc -l <"$g.journal.all") * 9 / 10)) "$g.journal.all" >"$g.journal"
  rm -f "$g-90.db"
  "$bin" ingest -q --db "$g-90.db" "$g.log" "$g.journal" >/dev/null
  cp "$g.log.all" "$g.log"
  cp "$g.journal.all" "$g.journal"
  kept() { sqlite3 "$1" "SELECT 's', * FROM lt_hist_sec UNION ALL SELECT 'm', * FROM lt_hist_min"; }
  declare -A grown_cpu
  for how in update whole; do
    runs=()
    for _ in 1 2 3; do
      cp "$g-90.db" "$g-run.db"
      rm -f "$g-run.db-wal" "$g-run.db-shm"
      [ "$how" = whole ] && sqlite3 "$g-run.db" \
        "UPDATE derived SET event_id = -1, line_id = -1 WHERE name = 'hist'"
      /usr/bin/time -f '%U %S %e' -o "$out/hist.time" \
        "$bin" ingest -q --db "$g-run.db" "$g.log" "$g.journal" >/dev/null
      runs+=("$(awk '{printf "%d %d %d\n", ($1 + $2) * 1000, $3 * 1000, $1 * 1000}' "$out/hist.time")")
    done
    grown_cpu[$how]=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p)
    kept "$g-run.db" >"$g-$how.kept"
  done
  "$bin" rebuild --db "$g-run.db" >/dev/null
  kept "$g-run.db" >"$g-rebuild.kept"
  cmp -s "$g-update.kept" "$g-whole.kept" && cmp -s "$g-update.kept" "$g-rebuild.kept" ||
    { echo "bench-hist: grown: the updated counts differ from the whole count" >&2; exit 1; }
  added=$(sqlite3 "$g-run.db" "SELECT (SELECT count(*) FROM audit) || ' events and ' ||
    (SELECT count(*) FROM lines) || ' lines'")
  read -r uc uw _ <<<"${grown_cpu[update]}"
  read -r wc ww _ <<<"${grown_cpu[whole]}"
  echo
  echo "A grown log: the last 10 % of the audit log and journal added to a store of the first 90 % ($added in the end); the grown ingest's CPU, median of 3:"
  echo
  echo "| kept counts | ingest CPU ms | wall ms |"
  echo "|---|---|---|"
  echo "| counted whole (before: marked stale first) | $wc | $ww |"
  echo "| the new rows' counts added (now) | $uc | $uw |"
  echo
  echo "Saved: $((wc - uc)) ms CPU ($(awk -v w="$wc" -v u="$uc" 'BEGIN { printf "%.1f", (w - u) * 100 / w }') % of the grown ingest); every second and minute the same as a whole count and \`rebuild\`."
  rm -f "$g.log" "$g.journal" "$g.log.all" "$g.journal.all" "$g-run.db"*
}
[ "${3:-}" = grown ] && { grown_bench; exit 0; }
db=$out/hist-$nodes-$minutes.db
if [ ! -s "$db" ]; then
  build-bench/samples/lt-gen --nodes "$nodes" --minutes "$minutes" --seed 9 \
    --stories node-delete,lease-delete,leader-change -o "$out/hist.log" --journal "$out/hist.journal"
  /usr/bin/time -f '%U %S %M' -o "$out/hist.ingest" \
    "$bin" ingest -q --db "$db" "$out/hist.log" "$out/hist.journal" >/dev/null
  rm -f "$out/hist.log" "$out/hist.journal"
fi
stores=("$db")
if command -v sqlite3 >/dev/null; then # the indexed copy needs the sqlite3 shell
  cp "$db" "$out/hist-idx.db"
  sqlite3 "$out/hist-idx.db" "CREATE INDEX audit_time ON audit(stage_us, code, superseded);
    CREATE INDEX lines_time ON lines(ts_us, severity);"
  stores+=("$out/hist-idx.db")
fi

read -r events lines first last < <("$bin" sql --db "$db" -o csv \
  "SELECT (SELECT count(*) FROM audit), (SELECT count(*) FROM lines),
   (SELECT min(first_us) FROM lt_leases), (SELECT max(last_us) FROM lt_leases)" | tail -1 | tr ',' ' ')

# the statements of queries-hist.c: N bins of BIN µs from FROM, counting the rows ...
hist_sql() {
  local from=$1 bin=$2 n=$3
  echo "SELECT b, sum(n), sum(e) FROM (
 SELECT (a.stage_us - $from) / $bin AS b, count(*) AS n, sum(a.code >= 400) AS e FROM audit AS a
 WHERE a.stage_us >= $from AND a.stage_us < $from + $bin * $n AND a.superseded = 0 GROUP BY 1
 UNION ALL
 SELECT (g.ts_us - $from) / $bin, count(*), sum(g.severity IN ('E', 'F')) FROM lines AS g
 WHERE g.ts_us >= $from AND g.ts_us < $from + $bin * $n GROUP BY 1
) GROUP BY b"
}
# ... or reading the kept counts of UNIT µs (the bins summed here as lt_browse_hist sums them)
kept_sql() {
  local from=$1 bin=$2 n=$3 table=$4 unit=$5
  echo "SELECT (t * $unit - $from) / $bin AS b, sum(events), sum(errors) FROM $table
 WHERE t >= $from / $unit AND t < ($from + $bin * $n) / $unit GROUP BY 1"
}
# cpu DB SQL: the median user+sys ms of 3 runs
cpu() {
  local runs=()
  for _ in 1 2 3; do
    /usr/bin/time -f '%U %S %e' -o "$out/hist.time" "$bin" sql --db "$1" -o csv "$2" >/dev/null
    runs+=("$(awk '{printf "%d %d\n", ($1 + $2) * 1000, $3 * 1000}' "$out/hist.time")")
  done
  printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p
}
base=$(cpu "$db" "SELECT 1")
min0=$((first - first % 60000000))
nwhole=$(((last - min0) / 120000000 + 1))
mid=$(((first + last) / 2 - (first + last) / 2 % 1000000))
whole=$(hist_sql $min0 120000000 $nwhole)
whole_kept=$(kept_sql $min0 120000000 $nwhole lt_hist_min 60000000)
zoomed=$(hist_sql $mid 1000000 36)
zoomed_kept=$(kept_sql $mid 1000000 36 lt_hist_sec 1000000)
bins() { # a statement's bins, sorted, a sum of nothing (NULL) as 0
  "$bin" sql --db "$db" -o csv "$1" | sed 1d | awk -F, '{print $1 "," $2 "," ($3 == "" ? 0 : $3)}' | sort
}
for v in whole zoomed; do # the kept counts give the bins the rows give
  k=${v}_kept
  cmp -s <(bins "${!v}") <(bins "${!k}") ||
    { echo "bench-hist: $v: the kept counts differ from the rows' counts" >&2; exit 1; }
done
# what counting them anew costs (the SELECT of the lifecycle's INSERT into lt_hist_sec)
rebuild_sql="SELECT t, sum(n), sum(e) FROM (
 SELECT (stage_us - ((stage_us % 1000000) + 1000000) % 1000000) / 1000000 AS t, count(*) AS n,
 coalesce(sum(code >= 400), 0) AS e FROM audit WHERE superseded = 0 GROUP BY 1
 UNION ALL SELECT (ts_us - ((ts_us % 1000000) + 1000000) % 1000000) / 1000000, count(*),
 coalesce(sum(severity IN ('E', 'F')), 0) FROM lines GROUP BY 1) GROUP BY t"

echo "### The histogram's statement on $events events and $lines lines ($(date -u +%Y-%m-%d))"
echo
echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg). CPU = user + sys of \`leasetrail sql\` minus the baseline \`SELECT 1\` ($(echo "$base" | cut -d' ' -f1) ms); median of 3."
echo
echo "| view | read | store | CPU ms | wall ms |"
echo "|---|---|---|---|---|"
for v in whole zoomed; do
  for d in "${stores[@]}"; do
    read -r c w < <(cpu "$d" "${!v}")
    name=$([ "$d" = "$db" ] && echo "as ingested" || echo "+ time indexes")
    echo "| $v | the rows | $name | $((c - ${base%% *})) | $w |"
  done
  k=${v}_kept
  read -r c w < <(cpu "$db" "${!k}")
  echo "| $v | kept counts | as ingested | $((c - ${base%% *})) | $w |"
done
read -r c w < <(cpu "$db" "$rebuild_sql")
echo
echo "Counting the kept counts anew (each ingest, \`rebuild\`): $((c - ${base%% *})) ms CPU ($w ms wall)."
[ -s "$out/hist.ingest" ] && echo "The ingest that made the store (lt-gen's log from a file): $(awk '{printf "%.1f s CPU (user %s, sys %s), max RSS %d MB", $1 + $2, $1, $2, $3 / 1024}' "$out/hist.ingest")."
size=$(stat -c %s "$db")
if command -v sqlite3 >/dev/null; then
  kept=$(sqlite3 "$db" "SELECT sum(pgsize) FROM dbstat WHERE name IN ('lt_hist_sec', 'lt_hist_min')")
  rows=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM lt_hist_sec) || ' + ' || (SELECT count(*) FROM lt_hist_min)")
  idx=$(sqlite3 "$out/hist-idx.db" "SELECT sum(pgsize) FROM dbstat WHERE name IN ('audit_time', 'lines_time')")
  echo "Store: $((size / 1024)) KB; the kept counts $((kept / 1024)) KB ($rows rows); the two time indexes would take $((idx / 1024)) KB."
fi

grown_bench
