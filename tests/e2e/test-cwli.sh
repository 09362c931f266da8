#!/usr/bin/env bash
# `leasetrail query NAME --emit cwli`: every canned query as CloudWatch Logs Insights, no store needed.
set -euo pipefail
bin=$1 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
export LEASETRAIL_DB=$tmp/no-such.db

n=0
for name in $("$bin" query --list | cut -d' ' -f1); do
  "$bin" query --emit cwli "$name" >"$name.cwli" 2>err || fail "$name: exit $? ($(cat err))"
  head -1 "$name.cwli" | grep -q "^# leasetrail query $name" || fail "$name: no header comment"
  grep -q '^filter \|^fields \|^stats \|^parse ' "$name.cwli" || fail "$name: no first command"
  grep -v '^#' "$name.cwli" | tail -n +2 | grep -qv '^| ' && fail "$name: a command line without '| '"
  n=$((n + 1))
done
[ "$n" -ge 10 ] || fail "only $n canned queries"
[ ! -e no-such.db ] || fail "--emit cwli created a store"

# the range is a comment with start-query's epoch seconds; --slow reaches the filter
"$bin" query --emit cwli --since 2024-04-05T05:50:00Z --until 2024-04-05T06:05:00Z --slow 250ms \
  slow-renewals >slow.cwli
grep -qx '# time range: 2024-04-05T05:50:00.000000Z .. 2024-04-05T06:05:00.000000Z (aws logs start-query --start-time 1712296200 --end-time 1712297100)' slow.cwli ||
  fail "range comment"
grep -qx '| filter latency_s > 0.25' slow.cwli || fail "slow threshold"

# usage errors exit 2
set +e
"$bin" query --emit cwli no-such-query >/dev/null 2>&1; [ $? -eq 1 ] || fail "unknown query: not 1 (an unknown name is 1 everywhere)"
"$bin" query --emit sql who-deleted >/dev/null 2>&1; [ $? -eq 2 ] || fail "--emit sql: not 2"
set -e
echo "e2e cwli: ok ($n queries)"
