#!/usr/bin/env bash
# Kill tests: `ingest` and `rebuild` killed with SIGKILL at the exact moments that matter (the
# test hook LEASETRAIL_TEST_DIE_AT, README "Interrupted ingests") and at a few random moments;
# while the store is behind, the read commands say so; once the same command is run again the
# store equals a clean one: events, log lines and their nodes, episodes, leases, `nodes`,
# NotReady windows, counted-only resources.  Bounded: about 20 s with the Sanitize build on an idle
# machine; LEASETRAIL_KILLS=50 for a longer run.
set -euo pipefail
bin=$1 samples=$3 tmp=$4
fixture=$(cd "$(dirname "$0")/health" && pwd)
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
pid=''
trap '[ -z "$pid" ] || kill -9 "$pid" 2>/dev/null; true' EXIT

# Everything a store answers, ids of derived rows aside (a rebuild may number them otherwise):
# one query over every table (kind, sort keys, the row quoted), and `nodes`.
dump_sql="SELECT t, k1, k2, v FROM (
  SELECT 1 AS t, id AS k1, '' AS k2, quote(ts_us) || quote(verb) || quote(resource)
    || quote(namespace) || quote(name) || quote(code) || quote(user) || quote(source_ip)
    || quote(lease_holder) || quote(source_id) || quote(line) AS v FROM events
  UNION ALL SELECT 2, id, '', quote(ts_us) || quote(node) || quote(host) || quote(kind)
    || quote(subject) || quote(message) FROM logs
  UNION ALL SELECT 3, 0, namespace || '/' || name || printf('/%020d/', start_us) || kind
    || printf('/%012d', coalesce(first_event, 0)), quote(end_us) || quote(count) || quote(user)
    || quote(last_event) || quote(cause_event) || quote(median_us) || quote(max_us)
    || quote(old_holder) || quote(new_holder) || quote(inferred) || quote(note) FROM episodes
  UNION ALL SELECT 4, 0, namespace || '/' || name, quote(kind) || quote(state) || quote(first_us)
    || quote(last_us) || quote(renews) || quote(creates) || quote(deletes) || quote(not_found)
    || quote(auth_failures) || quote(conflicts) || quote(slow) || quote(gaps)
    || quote(max_gap_us) || quote(holder) || quote(duration_s) || quote(gap_threshold_us)
    FROM leases
  UNION ALL SELECT 5, 0, node || printf('/%020d', start_us), quote(end_us) || quote(condition)
    || quote(cause) || quote(ended) || quote(evidence) || quote(reason) || quote(taints)
    FROM not_ready
  UNION ALL SELECT 6, 0, resource || '/' || verb, sum(count) FROM resource_counts
    GROUP BY resource, verb
  UNION ALL SELECT 7, id, '', quote(path) || quote(state) || quote(records) || quote(stored)
    || quote(duplicates) || quote(skipped) || quote(rejected) FROM sources
) ORDER BY t, k1, k2"
dump() {
  { "$bin" sql --db "$1" -o csv "$dump_sql" && "$bin" nodes --db "$1" -o csv; } 2>"$1.dump-err"
}

# the inputs: the samples' audit logs and node logs, and the two-node incident fixture
mkdir in
mkdir in/audit
cp "$samples/audit/kube-apiserver-audit.1.log" in/audit/
cp -r "$samples/logs" in/logs
cp -r "$fixture" in/health
inputs=(in/audit in/logs in/health)

TIMEFORMAT=%R
clean_time=$( { time "$bin" ingest --db clean.db "${inputs[@]}" >clean.out 2>clean.err; } 2>&1 ) \
  || fail "clean ingest: $(cat clean.err)"
dump clean.db >clean.dump
[ ! -s clean.db.dump-err ] || fail "a clean store warns: $(cat clean.db.dump-err)"
grep -q '^5,0,ip-10-0-1-10.ec2.internal/' clean.dump || fail "no NotReady window in the clean store"
[ "$(grep -c '^1,' clean.dump)" -gt 900 ] || fail "the clean store holds few events: $(grep -c '^1,' clean.dump)"
[ "$(grep -c '^3,' clean.dump)" -ge 10 ] || fail "the clean store holds few episodes: $(grep -c '^3,' clean.dump)"

# Runs "$@" and wants it killed by SIGKILL (status 137).
want_killed() {
  local status=0
  "$@" >/dev/null 2>run.err &
  { wait $!; } 2>/dev/null || status=$? # no "Killed" notice
  [ "$status" = 137 ] || fail "$*: exit status $status, want 137 (killed): $(cat run.err)"
}

# After a kill: a read command says the store is behind and how to fix it; `$@` repairs it.
check_repaired() {
  local what=$1 db=$2 want=${want_dump:-clean.dump}
  shift 2
  "$bin" nodes --db "$db" >/dev/null 2>nodes.err || true
  grep -q 'leasetrail rebuild' nodes.err || fail "$what: \`nodes\` does not say the store is behind: $(cat nodes.err)"
  "$@" >repair.out 2>repair.err || [ $? = 3 ] || fail "$what: the repair failed: $(cat repair.err)"
  dump "$db" >"$db.dump"
  [ ! -s "$db.dump-err" ] || fail "$what: the repaired store still warns: $(cat "$db.dump-err")"
  cmp -s "$want" "$db.dump" || fail "$what: the store differs from a clean one: $(diff "$want" "$db.dump" | head -20)"
}

# 1. ingest, killed at each exact point, then the same command again; killed after the last
# file is loaded, the re-run finds every file a duplicate and still builds what is missing
for point in file-complete before-redate after-load after-indexes in-rebuild mid-rebuild; do
  db=at-$point.db
  want_killed env LEASETRAIL_TEST_DIE_AT=$point "$bin" ingest -q --db "$db" "${inputs[@]}"
  check_repaired "ingest killed at $point" "$db" "$bin" ingest --db "$db" "${inputs[@]}"
  dups=$(grep -c ': duplicate' repair.out || true)
  [ "$point" != after-load ] || [ "$dups" = "$(grep -c ': ingested' clean.out)" ] \
    || fail "after-load: the re-run was not all duplicates: $(cat repair.out)"
done
# ... or `rebuild` instead of the same ingest (it also builds the indexes a bulk load deferred)
want_killed env LEASETRAIL_TEST_DIE_AT=after-load "$bin" ingest -q --db by-rebuild.db "${inputs[@]}"
check_repaired "ingest killed at after-load, then rebuild" by-rebuild.db "$bin" rebuild --db by-rebuild.db

# ... killed before the years and zones were weighed again: the node logs read alone first
# (the controller-manager logs dated by their mtime, a guess), then the audit log, killed before
# re-dating; `rebuild` re-dates them as the ingest would have (compared with the same two
# ingests run whole: the ids follow the order)
two_ingests() {
  "$bin" ingest -q --db "$1" in/logs 2>/dev/null || [ $? = 3 ]
  shift
  "$@"
}
two_ingests clean-two.db "$bin" ingest -q --db clean-two.db in/audit in/health 2>/dev/null || [ $? = 3 ]
dump clean-two.db >clean-two.dump
grep -q "^2,[0-9]*,,1712296" clean-two.dump || fail "the controller-manager lines are not re-dated to 2024"
two_ingests redate.db want_killed env LEASETRAIL_TEST_DIE_AT=before-redate "$bin" ingest -q \
  --db redate.db in/audit in/health
want_dump=clean-two.dump check_repaired "ingest killed at before-redate, then rebuild" \
  redate.db "$bin" rebuild --db redate.db

# 2. rebuild, killed inside its first transaction and between two lifecycles; then `rebuild`
for point in in-rebuild mid-rebuild; do
  db=rebuild-$point.db
  cp clean.db "$db"
  want_killed env LEASETRAIL_TEST_DIE_AT=$point "$bin" rebuild --db "$db"
  dump "$db" | cmp -s clean.dump - || fail "rebuild killed at $point: the store is not as before"
  "$bin" rebuild --db "$db" || fail "rebuild after rebuild killed at $point"
  dump "$db" | cmp -s clean.dump - || fail "rebuild after a kill at $point differs from clean"
done

# 3. kill -9 at random moments of an ingest (bounded: 4 of them, or $LEASETRAIL_KILLS), then the
# same ingest again
kills=${LEASETRAIL_KILLS:-4} killed=0
ms=$(awk -v t="$clean_time" 'BEGIN { printf "%d", t * 1000 }')
RANDOM=$$
for i in $(seq "$kills"); do
  db=random-$i.db
  "$bin" ingest -q --db "$db" "${inputs[@]}" >/dev/null 2>&1 &
  pid=$!
  sleep "$(awk -v r=$((RANDOM % 1000)) -v ms="$ms" 'BEGIN { printf "%.3f", r * ms / 1e6 }')"
  kill -9 "$pid" 2>/dev/null || true
  status=0
  { wait "$pid"; } 2>/dev/null || status=$?
  [ "$status" != 137 ] || killed=$((killed + 1))
  pid=''
  "$bin" ingest -q --db "$db" "${inputs[@]}" >/dev/null 2>repair.err || [ $? = 3 ] \
    || fail "random kill $i: the re-run failed: $(cat repair.err)"
  dump "$db" >"$db.dump"
  [ ! -s "$db.dump-err" ] || fail "random kill $i: the store still warns: $(cat "$db.dump-err")"
  cmp -s clean.dump "$db.dump" || fail "random kill $i: the store differs: $(diff clean.dump "$db.dump" | head)"
done
echo "e2e kill: ok (6 exact points and rebuild after one, 2 in rebuild, $killed of $kills random kills within ${ms} ms hit a running ingest)"
