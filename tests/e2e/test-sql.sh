#!/usr/bin/env bash
# `leasetrail sql`: read-only ad-hoc SQL over the samples, in every output format.
set -euo pipefail
# whether the input has a line that matches, read to its end (grep -q stops early: the
# writer then dies of SIGPIPE, and pipefail would take that as its failure)
seen() { [ "$(grep -c "$@")" != 0 ]; }
bin=$1 samples=$3 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
"$bin" ingest -q --db s.db "$samples/audit/kube-apiserver-audit.1.log" \
  "$samples/audit/kube-apiserver-audit.2.log" >/dev/null
"$bin" ingest -q --db s.db "$samples/variants/lease-requestresponse.log" >/dev/null

# the deleted node's lease story, counted exactly (samples/README.md)
q="SELECT verb, code, count(*) AS n FROM events WHERE namespace = 'kube-node-lease'
   AND name = 'ip-10-0-241-171.ec2.internal' AND code = 404 GROUP BY 1, 2 ORDER BY 1"
"$bin" sql --db s.db -o csv "$q" >got.csv
printf 'verb,code,n\nget,404,36\nupdate,404,5\n' | diff -u - got.csv || fail "404 story counts"

# JSON keeps numbers as numbers and microsecond times
"$bin" sql --db s.db -o json "SELECT ts, ts_us, lease_duration_s, lease_holder FROM events
  WHERE lease_holder IS NOT NULL ORDER BY ts_us LIMIT 1" >got.json
jq -e 'length == 1 and (.[0].ts_us | type) == "number" and .[0].lease_duration_s == 15
  and (.[0].ts | test("^2024-04-05T05:50:00\\.[0-9]{6}Z$"))' got.json >/dev/null || fail "json: $(cat got.json)"
"$bin" sql --db s.db -o jsonl "SELECT id FROM events LIMIT 3" | jq -e .id >/dev/null || fail "jsonl"

# writes and smuggled statements are refused, the store is unchanged
before=$("$bin" sql --db s.db -o csv "SELECT count(*) FROM audit")
for bad in "DELETE FROM audit" "SELECT 1; DROP TABLE audit" "UPDATE audit SET code = 0"; do
  set +e; "$bin" sql --db s.db "$bad" >/dev/null 2>err; status=$?; set -e
  [ "$status" = 2 ] || fail "'$bad' exited $status, want 2"
done
[ "$("$bin" sql --db s.db -o csv "SELECT count(*) FROM audit")" = "$before" ] || fail "store changed"
# bounded output: rows print as they come, so `| head` returns at once even for a result of
# 3.7 million rows; with SIGPIPE the writer dies quietly of it, with SIGPIPE ignored it stops
# at the failed write and exits 0, and neither says a word
big="SELECT * FROM events a, events b"
for fmt in table csv json jsonl; do
  start=$(date +%s)
  set +e
  "$bin" sql --db s.db -o "$fmt" "$big" 2>err | head -1 >first
  status=${PIPESTATUS[0]}
  set -e
  [ "$status" = 141 ] || [ "$status" = 0 ] || fail "$fmt | head: exit $status"
  [ ! -s err ] || fail "$fmt | head: said $(cat err)"
  [ -s first ] || fail "$fmt | head: no first line"
  (trap '' PIPE; "$bin" sql --db s.db -o "$fmt" "$big" 2>err | head -1 >/dev/null
   exit "${PIPESTATUS[0]}") || fail "$fmt | head with SIGPIPE ignored: exit $?"
  [ ! -s err ] || fail "$fmt | head with SIGPIPE ignored: said $(cat err)"
  [ $(($(date +%s) - start)) -lt 60 ] || fail "$fmt | head took $(($(date +%s) - start)) s"
done
# a table takes its widths from the first 1000 rows: a wider row after them is printed whole
"$bin" sql --db s.db "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1001)
  SELECT CASE x WHEN 1001 THEN 'wider' ELSE 'a' END AS k, x FROM c" >wide.txt
head -2 wide.txt | diff -u <(printf 'K  X\na  1\n') - || fail "table widths from the sample"
tail -1 wide.txt | grep -qx 'wider  1001' || fail "a wider row later: $(tail -1 wide.txt)"
# a full disk is an error, said once
set +e; "$bin" sql --db s.db -o csv "$big" >/dev/full 2>err; status=$?; set -e
[ "$status" = 1 ] && grep -q 'cannot write the output: No space left on device' err ||
  fail "/dev/full: exit $status, $(cat err)"

# --timeout: a runaway query stops with a message and status 124, the rows before printed;
# only SQLite's own time counts, not the time the reader takes
forever="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x % 1000000 = 1"
set +e; "$bin" sql --db s.db -o csv --timeout 1 "$forever" >out 2>err; status=$?; set -e
[ "$status" = 124 ] || fail "--timeout: exit $status"
grep -q 'longer than --timeout 1 s' err || fail "--timeout message: $(cat err)"
[ "$(head -2 out)" = "$(printf 'x\n1')" ] || fail "--timeout: the rows before are lost"
"$bin" sql --db s.db -o csv --timeout 2 "SELECT * FROM events" | (sleep 4; wc -l) >count ||
  fail "--timeout counted the reader's time"
n=$("$bin" sql --db s.db -o csv "SELECT count(*) FROM events" | sed 1d)
[ "$(cat count)" = $((n + 1)) ] || fail "--timeout with a slow reader: $(cat count) lines"
for bad in 0 -1 abc 1x 9999999; do
  set +e; "$bin" sql --db s.db --timeout "$bad" "SELECT 1" >/dev/null 2>err; status=$?; set -e
  [ "$status" = 2 ] || fail "--timeout $bad: exit $status"
done
"$bin" sql --db s.db --timeout 1m30s -o csv "SELECT 1 AS one" | seen -x 1 || fail "--timeout 1m30s"
echo "e2e sql: ok"
