#!/usr/bin/env bash
# Store size, peak RSS and ingest CPU time, this tree against a baseline commit, in one run.
#
#   bench/bench-store.sh [BASE] [NODES] [MINUTES]   (default: main, 200 nodes, 20 minutes)
#   RUNS=N (default 1): ingest each input N times with each binary, alternating, and report
#   the run with the least CPU (user + sys): the machine is shared, and the least is the one
#   least disturbed by the others.
#
# Builds a Release leasetrail of this tree (build-bench/) and of BASE (`git archive BASE`
# into build-store-base/src, built in build-store-base/build: a build* directory, which git
# and style.format leave out; under bench/out the baseline's CMake files failed style.format),
# generates with lt-gen
#   an audit log with other resources in it: --nodes NODES --minutes MINUTES --noise 40
#   (40 other requests a second: pods, configmaps, ...; only the lease and node events
#   are stored), and
#   the merged kubelet journal of the same nodes (--journal, short format, noise 24),
# ingests each into a fresh store with both binaries, and reports per input and binary:
#   store bytes (the file after the ingest closed it, -wal included),
#   record bytes: the bytes of the records the store holds (sum of the raw records' lengths:
#     the lease and node events' JSON lines, the journal's lines),
#   the ratio store / records, the raw table's own bytes (sqlite3's dbstat, when the sqlite3
#   shell is there), user and system CPU seconds and peak RSS (/usr/bin/time: CPU time,
#   not wall time, as the machine is shared), and where the bytes are: each store's largest
#   tables and indexes (dbstat's pages, when the sqlite3 shell is there), and what a row of
#   the event and line tables (audit, lines) costs, column by column (the bytes SQLite stores
#   for each value: an integer 0-8 bytes by its size, text and blobs their length).
# Then (READS=0 skips it) the cost of reading raw records back with each binary: `show ID`
# and `show LID` (a record in the middle), `timeline -v NODE` (the first node), the logs view
# as CSV: CPU seconds, the least of RUNS, and callgrind's instructions (but for the view).
# Prints a Markdown block for bench/RESULTS.md.  Work files go to bench/out/.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-main}
nodes=${2:-200}
minutes=${3:-20}
out=bench/out
mkdir -p "$out"

cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$(nproc)" --target leasetrail lt-gen >/dev/null
new=build-bench/cli/leasetrail
gen=build-bench/samples/lt-gen

base_commit=$(git rev-parse "$base")
bdir=build-store-base
if [ "$(cat "$bdir/src/.commit" 2>/dev/null)" != "$base_commit" ]; then
  rm -rf "$bdir/src" "$bdir/build"
  mkdir -p "$bdir/src"
  git archive "$base" | tar -x -C "$bdir/src"
  echo "$base_commit" >"$bdir/src/.commit"
fi
cmake -S "$bdir/src" -B "$bdir/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$bdir/build" -j"$(nproc)" --target leasetrail >/dev/null
old=$bdir/build/cli/leasetrail

audit=$out/store-audit-$nodes-$minutes.log
journal=$out/store-journal-$nodes-$minutes.log
[ -s "$audit" ] || "$gen" --nodes "$nodes" --minutes "$minutes" --stories none --noise 40 \
  --seed 42 -o "$audit"
[ -s "$journal" ] || "$gen" --nodes "$nodes" --minutes "$minutes" --stories none --seed 42 \
  --journal "$journal" --journal-format short --journal-noise 24

# one ingest: prints "store_bytes record_bytes raw_table_bytes user sys rss_kb"
run() { # run BIN NAME INPUT TABLE COLUMN READ
  local bin=$1 name=$2 input=$3 table=$4 col=$5 read=$6 db=$out/$2.db
  rm -f "$db" "$db-wal" "$db-shm"
  /usr/bin/time -f "%U %S %M" -o "$out/$name.time" \
    "$bin" ingest -q --year 2024 --db "$db" "$input" >"$out/$name.stdout" 2>"$out/$name.stderr"
  local size rec tbl=-
  size=$(($(stat -c %s "$db") + $(stat -c %s "$db-wal" 2>/dev/null || echo 0)))
  # a baseline that compresses them too (schema 6 on) reads them through lt_raw, as this tree
  rec=$("$bin" sql -o csv --db "$db" "SELECT sum(length(lt_raw($col))) FROM $table" 2>/dev/null ||
    "$bin" sql -o csv --db "$db" "SELECT sum(length($read($col))) FROM $table")
  rec=$(echo "$rec" | tail -1)
  if command -v sqlite3 >/dev/null; then
    # schema 9: the view's records are in ${table%_raw}_blocks and (older rows) ${table}_rows
    tbl=$(sqlite3 "$db" "SELECT sum(pgsize) FROM dbstat WHERE name IN ('$table', '${table}_rows',
      '${table%_raw}_blocks')" 2>/dev/null || echo -)
  fi
  echo "$size $rec ${tbl:--} $(cat "$out/$name.time")"
}

# the run with the least user + sys CPU of RUNS, alternating the binaries
best() { # best KEY LINE: keeps in R[KEY] the line with the least CPU
  local k=$1 line=$2 cur=${R[$1]:-}
  if [ -z "$cur" ] || awk -v a="$line" -v b="$cur" 'BEGIN { split(a, x, " "); split(b, y, " ")
      exit !(x[4] + x[5] < y[4] + y[5]) }'; then
    R[$k]=$line
  fi
}

# where the bytes are: the largest tables and indexes of a store, "name MB; ..."
where() { # where DB
  command -v sqlite3 >/dev/null || { echo -; return; }
  sqlite3 "$1" "SELECT group_concat(name || ' ' || printf('%.2f', mb), '; ') FROM
    (SELECT name, sum(pgsize) / 1e6 AS mb FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 8)" \
    2>/dev/null || echo -
}

# what a row of TABLE costs, per column: "col bytes; ..." (the values' stored bytes, averaged)
columns() { # columns DB TABLE
  command -v sqlite3 >/dev/null || { echo -; return; }
  local q="" c
  # the INTEGER PRIMARY KEY is the cell's rowid, not a value of the record: left out
  for c in $(sqlite3 "$1" "SELECT name FROM pragma_table_info('$2')
      WHERE NOT (pk = 1 AND type = 'INTEGER')" 2>/dev/null); do
    q="$q SELECT '$c' AS c, avg(CASE typeof($c) WHEN 'null' THEN 0 WHEN 'real' THEN 8
      WHEN 'integer' THEN (CASE WHEN $c IN (0, 1) THEN 0 WHEN $c BETWEEN -128 AND 127 THEN 1
      WHEN $c BETWEEN -32768 AND 32767 THEN 2 WHEN $c BETWEEN -8388608 AND 8388607 THEN 3
      WHEN $c BETWEEN -2147483648 AND 2147483647 THEN 4
      WHEN $c BETWEEN -140737488355328 AND 140737488355327 THEN 6 ELSE 8 END)
      ELSE length(CAST($c AS BLOB)) END) AS b FROM $2 UNION ALL"
  done
  [ -n "$q" ] || { echo -; return; }
  sqlite3 "$1" "SELECT group_concat(c || ' ' || printf('%.1f', b), '; ') FROM (${q% UNION ALL})
    WHERE b >= 0.05" 2>/dev/null || echo -
}

declare -A R W
runs=${RUNS:-1}
for _ in $(seq "$runs"); do
  best audit-base "$(run "$old" store-audit-base "$audit" audit_raw json "")"
  W[audit-base]=$(where "$out/store-audit-base.db")
  best audit-new "$(run "$new" store-audit-new "$audit" audit_raw json lt_raw)"
  W[audit-new]=$(where "$out/store-audit-new.db")
  best journal-base "$(run "$old" store-journal-base "$journal" lines_raw text "")"
  W[journal-base]=$(where "$out/store-journal-base.db")
  best journal-new "$(run "$new" store-journal-new "$journal" lines_raw text lt_raw)"
  W[journal-new]=$(where "$out/store-journal-new.db")
done

{
  printf '### Store size, peak RSS, ingest CPU: %s against %s (%s)\n\n' \
    "$(git rev-parse --short HEAD)" "$base ($(git rev-parse --short "$base"))" "$(date -u +%F)"
  printf 'Machine: %s, %d cores, shared (load average %s at the end): CPU seconds, not wall time.\n' \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" "$(nproc)" \
    "$(cut -d' ' -f1 /proc/loadavg)"
  printf 'Runs: %d per input and binary, alternating; the one with the least CPU is shown.\n' "$runs"
  printf 'Inputs (lt-gen, seed 42): audit log %.1f MB (--nodes %d --minutes %d --noise 40: other resources in it), kubelet journal %.1f MB (--journal-noise 24).\n\n' \
    "$(echo "$(stat -c %s "$audit") / 1000000" | bc -l)" "$nodes" "$minutes" \
    "$(echo "$(stat -c %s "$journal") / 1000000" | bc -l)"
  printf '| input | build | store MB | records MB | store / records | raw table MB | user s | sys s | peak RSS MB |\n'
  printf '|---|---|---|---|---|---|---|---|---|\n'
  for k in audit-base audit-new journal-base journal-new; do
    read -r size rec tbl user sys rss <<<"${R[$k]}"
    awk -v k="$k" -v size="$size" -v rec="$rec" -v tbl="$tbl" -v user="$user" -v sys="$sys" \
        -v rss="$rss" 'BEGIN {
      split(k, p, "-")
      printf "| %s | %s | %.2f | %.2f | %.3f | %s | %.2f | %.2f | %.1f |\n", p[1], p[2],
        size/1e6, rec/1e6, size/rec, (tbl == "-" ? "-" : sprintf("%.2f", tbl/1e6)), user, sys,
        rss/1024 }'
  done
  for kind in audit journal; do
    read -r bs _ _ bu bsy _ <<<"${R[$kind-base]}"
    read -r ns _ _ nu nsy _ <<<"${R[$kind-new]}"
    awk -v kind="$kind" -v bs="$bs" -v ns="$ns" -v bc="$(echo "$bu + $bsy" | bc -l)" \
        -v nc="$(echo "$nu + $nsy" | bc -l)" 'BEGIN {
      printf "\n%s: store %.2fx the baseline'"'"'s size, ingest CPU %.2fx the baseline'"'"'s.", kind, ns/bs, nc/bc }'
  done
  printf '\n\nWhere the bytes are (dbstat, MB, the largest tables and indexes):\n\n'
  printf '| input | build | tables and indexes |\n|---|---|---|\n'
  for k in audit-base audit-new journal-base journal-new; do
    printf '| %s | %s | %s |\n' "${k%-*}" "${k#*-}" "${W[$k]}"
  done
  printf '\nWhat a row costs, per column (bytes a row, the columns of 0.05 bytes or more; SQLite adds a\n'
  printf 'header byte a column and a few bytes a cell):\n\n'
  printf '| input | build | table | columns |\n|---|---|---|---|\n'
  for k in audit-base audit-new journal-base journal-new; do
    t=audit
    # schema 12 on: the lines' row is lines_row (lines a view)
    [ "${k%-*}" = journal ] && t=$(sqlite3 "$out/store-$k.db" "SELECT coalesce((SELECT name
      FROM sqlite_master WHERE name = 'lines_row'), 'lines')" 2>/dev/null || echo lines)
    printf '| %s | %s | %s | %s |\n' "${k%-*}" "${k#*-}" "$t" "$(columns "$out/store-$k.db" "$t")"
  done

  # the cost of reading raw records back, each binary on its own stores (READS=0 skips it)
  if [ "${READS:-1}" != 0 ]; then
    node=$("$new" sql -o csv --db "$out/store-audit-new.db" "SELECT node FROM nodes ORDER BY node LIMIT 1" | tail -1)
    mid=$(($("$new" sql -o csv --db "$out/store-audit-new.db" "SELECT max(id) FROM audit" | tail -1) / 2))
    midl=$(($("$new" sql -o csv --db "$out/store-journal-new.db" "SELECT max(id) FROM lines" | tail -1) / 2))
    printf '\nReading raw records back (each binary on its own stores; CPU s, the least of %d runs;\n' "$runs"
    printf 'instructions: callgrind, the whole process, deterministic):\n\n'
    printf '| read | base | new |\n|---|---|---|\n'
    for what in "show $mid|audit|show $mid" "show L$midl|journal|show L$midl" \
        "timeline -v NODE|audit|timeline -v $node" \
        "sql SELECT * FROM logs|journal|sql -o csv SELECT * FROM logs"; do
      IFS='|' read -r label kind cmd <<<"$what"
      row="| \`$label\` |"
      for b in base new; do
        bin=$old; [ $b = new ] && bin=$new
        db=$out/store-$kind-$b.db cpu=
        # shellcheck disable=SC2086
        for _ in $(seq "$runs"); do
          if [ "${cmd#sql}" != "$cmd" ]; then
            /usr/bin/time -f "%U %S" -o "$out/read.time" "$bin" sql -o csv --db "$db" "SELECT * FROM logs" >/dev/null
          else
            /usr/bin/time -f "%U %S" -o "$out/read.time" "$bin" $cmd --db "$db" >/dev/null
          fi
          c=$(awk '{ print $1 + $2 }' "$out/read.time")
          if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN { exit !(a < b) }'; then cpu=$c; fi
        done
        ins=-
        if command -v valgrind >/dev/null && [ "${cmd#sql}" = "$cmd" ]; then
          # shellcheck disable=SC2086
          valgrind --tool=callgrind --callgrind-out-file="$out/read.cg" "$bin" $cmd --db "$db" \
            >/dev/null 2>&1
          ins=$(sed -n 's/^summary: //p' "$out/read.cg" | awk '{ printf "%.2f M", $1 / 1e6 }')
          rm -f "$out/read.cg"
        fi
        row="$row $cpu s, $ins |"
      done
      echo "$row"
    done
  fi
} | tee "$out/store.md"
