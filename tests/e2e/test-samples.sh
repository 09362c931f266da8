#!/usr/bin/env bash
# The bundled samples: exact per-file counts, the exact `stats` report (golden file),
# the malformed file's rejects line by line, stdin, and EventList/gzip variants.
set -euo pipefail
bin=$1 samples=$3 tmp=$4
golden=$(cd "$(dirname "$0")/../golden" && pwd)
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
ln -s "$samples/audit" audit
ln -s "$samples/bad" bad
ln -s "$samples/variants" variants
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" ingest --db samples.db audit >ingest.out 2>ingest.err || fail "ingest of samples/audit exited $?"
cat >want.out <<'WANT'
audit/kube-apiserver-audit.1.log: ingested, 1885 records, 917 stored, 0 duplicates, 968 skipped, 0 rejected
audit/kube-apiserver-audit.2.log: ingested, 1944 records, 1003 stored, 0 duplicates, 941 skipped, 0 rejected
WANT
head -2 ingest.out | diff -u want.out - || fail "per-file counts differ"

# each format variant is a small cluster of its own: its own store
for v in "eventlist.json: ingested, 50 records, 39 stored, 0 duplicates, 11 skipped, 0 rejected" \
         "kube-apiserver-audit.gz: ingested, 917 records, 607 stored, 0 duplicates, 310 skipped, 0 rejected" \
         "lease-requestresponse.log: ingested, 634 records, 634 stored, 0 duplicates, 0 skipped, 0 rejected"; do
  f=${v%%:*}
  "$bin" ingest --db "v-$f.db" "variants/$f" >v.out || fail "variants/$f exited $?"
  grep -qxF "variants/$v" v.out || fail "variants/$f: $(head -1 v.out)"
done
[ ! -s ingest.err ] || fail "unexpected stderr: $(cat ingest.err)"

# The whole report, exactly (regenerate with: leasetrail stats --db samples.db > golden).
"$bin" stats --db samples.db >stats.out
diff -u "$golden/stats/samples.txt" stats.out || fail "stats report differs from tests/golden/stats/samples.txt"


# malformed.log: 11 good lease events, one long configmap event, 5 rejects with their lines.
set +e
"$bin" ingest --db bad.db bad/malformed.log >bad.out 2>bad.err
status=$?
set -e
[ "$status" = 3 ] || fail "malformed.log: exit $status, want 3"
grep -q '^bad/malformed.log: ingested, 17 records, 11 stored, 0 duplicates, 1 skipped, 5 rejected$' bad.out \
  || fail "malformed.log counts: $(head -1 bad.out)"
cat >want.err <<'WANT'
leasetrail: bad/malformed.log:4: rejected: record cut off: line 5 starts a new record before it ended
leasetrail: bad/malformed.log:6: rejected: invalid JSON at byte 67 of the record: parse error: invalid object key (must be a string)
leasetrail: bad/malformed.log:8: rejected: not an audit event: kind is "Pod"
leasetrail: bad/malformed.log:10: rejected: not a JSON object: line starts with byte 0x00
leasetrail: bad/malformed.log:12: rejected: not a JSON object: line starts with '4'
WANT
diff -u want.err bad.err || fail "malformed.log reject reasons differ"

# stdin gives the same events as the file; re-reading them is all duplicates.
"$bin" ingest --db stdin.db - <audit/kube-apiserver-audit.1.log >stdin.out
grep -q '^-: ingested, 1885 records, 917 stored' stdin.out || fail "stdin: $(head -1 stdin.out)"
"$bin" ingest --db stdin.db - <audit/kube-apiserver-audit.1.log >stdin2.out
grep -q '^-: ingested, 1885 records, 0 stored, 917 duplicates' stdin2.out || fail "stdin again: $(head -1 stdin2.out)"
echo "e2e samples: ok"
