#!/usr/bin/env bash
# CloudWatch Logs exports: the samples' export tree and filter-log-events pages, the real
# AWS CLI / console outputs, overlap with plain logs, provenance.
set -euo pipefail
bin=$1 corpus=$2 samples=$3 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
cw=$samples/cloudwatch
task=s3-export/5f3c2a9e-7a41-4d0b-9d3c-2b1e8f6a4c10

# 1. the samples' export: filter-log-events pages, then an S3 export tree whose audit stream
#    overlaps them by a minute, a controller-manager stream, and the bucket's test object
"$bin" ingest --db cw.db "$cw" >cw.out 2>cw.err || fail "ingest exited $?"
want() { grep -qF -- "$1" cw.out || fail "expected '$1' in: $(cat cw.out)"; }
want "filter-log-events.json: ingested, 197 records, 103 stored, 0 duplicates, 94 skipped, 0 rejected"
want "kube-apiserver-audit-8f2d6c1e5b7a4093a1c2d3e4f5a6b7c8/000000.gz: ingested, 263 records, 67 stored, 70 duplicates, 126 skipped, 0 rejected"
want "kube-controller-manager-1b2c3d4e5f60718293a4b5c6d7e8f901/000000.gz: ingested, 76 records, 76 stored"
want "aws-logs-write-test: not a log"
q() { "$bin" sql -o csv --db "${2:-cw.db}" "$1" | tail -n +2; }
[ "$(q "SELECT count(*), count(DISTINCT stream) FROM audit_ext")" = "170,2" ] \
  || fail "audit_ext: $(q "SELECT count(*), count(DISTINCT stream) FROM audit_ext")"
# filter-log-events keeps each event's eventId (56 digits)
[ "$(q "SELECT count(*) FROM audit_ext WHERE length(ext_id) = 56")" = 103 ] || fail "eventIds"
# the controller-manager's lines know their stream and component, and their GC deletes
[ "$(q "SELECT DISTINCT component || ' ' || stream FROM logs")" = \
  "kube-controller-manager kube-controller-manager-1b2c3d4e5f60718293a4b5c6d7e8f901" ] \
  || fail "log stream: $(q "SELECT DISTINCT component, stream FROM logs")"
"$bin" timeline --db cw.db ip-10-0-241-171.ec2.internal >tl.txt
grep -q 'kube-controller-manager  *gc-deleting .*Deleting item Lease kube-node-lease/ip-10-0-241-171.ec2.internal' tl.txt \
  || fail "GC delete line from the export tree missing: $(cat tl.txt)"
grep -q 'audit  *NODE_DELETED .*kubernetes-admin' tl.txt || fail "node delete from the export"
"$bin" query --db cw.db gc-deletes >gc.txt
grep -q 'audit, kcm log' gc.txt || fail "gc-deletes evidence: $(cat gc.txt)"

# 2. the export holds exactly the plain log's events of that window
grep -E '"stageTimestamp":"2024-04-05T05:5(5:[3-5]|6:)' "$samples/audit/kube-apiserver-audit.1.log" >plain.log
"$bin" ingest -q --db plain.db plain.log >/dev/null
"$bin" ingest -q --db fle.db "$cw/filter-log-events.json" >/dev/null
sel="SELECT audit_id, stage, verb, resource, namespace, name, code, ts_us, received_us, user,
     source_ip, user_agent FROM events ORDER BY audit_id, stage"
diff <(q "$sel" plain.db) <(q "$sel" fle.db) >/dev/null || fail "export and plain log differ"
for id in 1 50 103; do
  cmp -s <("$bin" show --db plain.db "$id") <("$bin" show --db fle.db "$id") \
    || fail "event $id: the export's message is not the plain line, byte for byte"
done
# ... and ingesting both stores every request once
"$bin" ingest --db plain.db "$cw/filter-log-events.json" >both.out
grep -q 'ingested, 197 records, 0 stored, 103 duplicates' both.out \
  || fail "the same auditIDs from plain and export must be stored once: $(cat both.out)"

# 3. the real AWS CLI and console outputs
"$bin" ingest --db corpus.db "$corpus/cloudwatch" >corpus.out 2>corpus.err && fail "the cut-off excerpt must make the exit status 3"
grep -q 'filter-log-events.output.json: ingested, 2 records, 2 stored' corpus.out || fail "filter-log-events corpus"
grep -q 'get-log-events.output.json: ingested, 3 records, 3 stored' corpus.out || fail "get-log-events corpus"
grep -q 'get-query-results.output.json: ingested, 3 records, 3 stored' corpus.out || fail "get-query-results corpus"
grep -q 'logs-insights-results.csv: ingested, 27 records, 27 stored' corpus.out || fail "console CSV corpus"
grep -q 'eks-audit_excerpt.txt:3: rejected: record cut off' corpus.err || fail "excerpt: $(cat corpus.err)"
[ "$(q "SELECT ts, stream, ext_id, message FROM logs WHERE stream = 'teststream'" corpus.db)" = \
  "2024-04-08T09:17:23.827000Z,teststream,00091539120382912324200901570000096855579456010247667712,Test MESSAGE1" ] \
  || fail "filter-log-events row: $(q "SELECT ts, stream, ext_id, message FROM logs WHERE stream = 'teststream'" corpus.db)"
echo ok
