#!/usr/bin/env bash
# `leasetrail sql`: read-only ad-hoc SQL over the samples, in every output format.
set -euo pipefail
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
echo "e2e sql: ok"
