#!/usr/bin/env bash
# Same answers: two leasetrail binaries ingest the same inputs, each into a store of its own, and
# every answer a user reads is compared (by checksum): nodes, timeline and timeline -v of a few
# leases, every canned query as CSV, top by every key, show of events and lines, and the
# `events` and `logs` views whole as CSV.  Prints one line per answer that differs, then a
# summary; exits 1 when any does.
#
#   bench/bench-answers.sh BEFORE_BIN AFTER_BIN WORKDIR INPUT... [-- INGEST_OPTIONS...]
#
# KEEP=1: WORKDIR's before.db and after.db are already made (e.g. links to bench-speed.sh's
# stores): nothing is ingested, INPUT only names them in the summary.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 BEFORE_BIN AFTER_BIN WORKDIR INPUT... [-- OPTIONS...]" >&2; exit 2; }
before=$1 after=$2 work=$3
shift 3
inputs=() opts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do inputs+=("$1"); shift; done
[ $# -eq 0 ] || { shift; opts=("$@"); }
mkdir -p "$work"

for side in before after; do
  [ -z "${KEEP:-}" ] || break
  bin=${!side}
  rm -f "$work/$side.db" "$work/$side.db-wal" "$work/$side.db-shm"
  "$bin" ingest -q "${opts[@]}" --db "$work/$side.db" "${inputs[@]}" >/dev/null
done

# show_three TABLE PREFIX BIN DB: `show` and `show -v` of TABLE's first, middle and last row
# (PREFIX before the id: L for lines); sum is answers'
show_three() {
  local table=$1 prefix=$2 bin=$3 db=$4 id
  for id in $("$bin" sql -o csv --db "$db" \
      "SELECT id FROM $table WHERE id IN ((SELECT min(id) FROM $table), (SELECT max(id) FROM $table),
         (SELECT id FROM $table ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM $table)))" |
      tail -n +2); do
    sum "show $prefix$id" "$bin" show --db "$db" "$prefix$id"
    sum "show -v $prefix$id" "$bin" show -v --db "$db" "$prefix$id"
  done
}

answers() { # BIN DB: one "label checksum" line per answer
  local bin=$1 db=$2 q k
  sum() { local label=$1; shift; echo "$label $("$@" 2>&1 | sha256sum | cut -c1-16)"; }
  sum nodes "$bin" nodes -o csv --db "$db"
  while read -r lease; do
    sum "timeline $lease" "$bin" timeline -o csv --db "$db" "$lease"
    sum "timeline -v $lease" "$bin" timeline -v -o csv --db "$db" "$lease"
  done < <("$bin" sql -o csv --db "$db" \
    "SELECT CASE WHEN namespace = 'kube-node-lease' THEN name ELSE namespace || '/' || name END
       FROM leases ORDER BY renews DESC, namespace, name LIMIT 4" | tail -n +2)
  for q in $("$bin" query --list 2>/dev/null | awk 'NF {print $1}'); do
    sum "query $q" "$bin" query -o csv --db "$db" "$q"
  done
  for k in user verb resource code source-ip user-agent; do
    sum "top --by $k" "$bin" top --by "$k" --limit 0 -o csv --db "$db"
  done
  show_three audit "" "$bin" "$db"
  show_three lines L "$bin" "$db"
  sum "events view" "$bin" sql -o csv --db "$db" "SELECT * FROM events ORDER BY id"
  sum "logs view" "$bin" sql -o csv --db "$db" "SELECT * FROM logs ORDER BY id"
}

answers "$before" "$work/before.db" >"$work/before.sums"
answers "$after" "$work/after.db" >"$work/after.sums"
n=$(wc -l <"$work/after.sums")
if diff "$work/before.sums" "$work/after.sums" >"$work/diff"; then
  echo "same answers: $n of $n (${inputs[*]})"
else
  cat "$work/diff"
  echo "DIFFERENT answers: $(grep -c '^>' "$work/diff") of $n (${inputs[*]})"
  exit 1
fi
