#!/usr/bin/env bash
# clouds.sh - logs as the clouds hand them out: AKS diagnostic records, GKE LogEntries,
# CloudWatch Container Insights records, JSON log lines with other time encodings.
# Usage: clouds.sh LEASETRAIL CLOUD_EXPORT CORPUS SAMPLES TMPDIR
#  1. the samples' audit logs through every envelope cloud-export writes give the same
#     events as the plain lines (sql over the events view, provenance columns aside; AKS
#     carries the whole Event: every column and `show` byte for byte; GKE what a LogEntry
#     holds, docs/formats.md), and the same at RequestResponse level (Lease bodies);
#  2. the kube-controller-manager klog through Container Insights records gives the same lines;
#  3. the real records of the corpus (tests/corpus/{aks,gke,cloudwatch});
#  4. damage in each shape: file, line and reason, every good record kept;
#  5. JSON log lines whose "ts" is milliseconds, nanoseconds or ISO 8601.
# CLOUDS_QUICK=1 skips parts 1 and 2 (the slow ones) while iterating; ctest runs them all.
set -euo pipefail
bin=$1 conv=$2 corpus=$3 samples=$4 tmp=$5
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { "$bin" sql -o csv --db "$1" "$2" | tail -n +2; }

# every column of the events view but the provenance ones (source_id, line, offset)
all_cols="audit_id, stage, ts, ts_us, received_us, latency_us, level, verb, resource,
  subresource, namespace, name, api_group, api_version, uid, resource_version, request_uri,
  user, groups, impersonated_user, source_ip, user_agent, code, status, reason, message,
  authz_decision, authz_reason, lease_holder, lease_duration_s, lease_renew_us,
  lease_acquire_us, lease_transitions"
# what a GKE LogEntry carries (no requestURI, groups, receive time, uid, resourceVersion,
# level, Status' status and reason at Metadata level)
gke_cols="audit_id, stage, ts, ts_us, verb, resource, subresource, namespace, name,
  api_group, api_version, user, source_ip, user_agent, code, message, authz_decision,
  authz_reason, lease_holder, lease_duration_s, lease_renew_us, lease_acquire_us,
  lease_transitions"
events() { q "$1" "SELECT $2 FROM events ORDER BY audit_id, stage, ts_us"; }

# 1. the same audit logs through each envelope
if [ -z "${CLOUDS_QUICK:-}" ]; then
plain=("$samples"/audit/kube-apiserver-audit.1.log "$samples"/audit/kube-apiserver-audit.2.log)
rr=$samples/variants/lease-requestresponse.log
"$bin" ingest -q --db plain.db "${plain[@]}" >/dev/null
"$bin" ingest -q --db plain-rr.db "$rr" >/dev/null
[ "$(q plain.db "SELECT count(*) FROM events")" -gt 1000 ] || fail "plain samples: too few events"
for shape in aks-lines aks-eventhub gke-lines gke-array; do
	mkdir -p "$shape"
	for f in "${plain[@]}" "$rr"; do
		"$conv" --to "$shape" --page 500 <"$f" >"$shape/$(basename "$f").json"
	done
	"$bin" ingest --db "$shape.db" "$shape"/kube-apiserver-audit.*.json >"$shape.out" 2>"$shape.err" \
		|| fail "$shape: ingest exited $?: $(cat "$shape.err")"
	"$bin" ingest -q --db "$shape-rr.db" "$shape/lease-requestresponse.log.json" >/dev/null
	grep -q ', 0 rejected' "$shape.out" || fail "$shape: rejects: $(cat "$shape.out" "$shape.err")"
	case $shape in aks-*) cols=$all_cols ;; *) cols=$gke_cols ;; esac
	diff <(events plain.db "$cols") <(events "$shape.db" "$cols") >"$shape.diff" \
		|| fail "$shape: events differ from the plain log's: $(head -5 "$shape.diff")"
	diff <(events plain-rr.db "$cols") <(events "$shape-rr.db" "$cols") >"$shape-rr.diff" \
		|| fail "$shape: RequestResponse events differ: $(head -5 "$shape-rr.diff")"
	[ "$(q "$shape-rr.db" "SELECT count(*) FROM events WHERE lease_holder IS NOT NULL")" -gt 0 ] \
		|| fail "$shape: no Lease bodies read"
	# the lease lifecycle reads the same episodes
	diff <("$bin" nodes --db plain.db) <("$bin" nodes --db "$shape.db") >/dev/null \
		|| fail "$shape: nodes differ"
done
# AKS keeps the Event itself: show gives the plain line byte for byte
for id in 1 500 1500; do
	cmp -s <("$bin" show --db plain.db "$id") <("$bin" show --db aks-lines.db "$id") \
		|| fail "aks-lines: event $id is not the plain line byte for byte"
done
# the raw records are stored compressed in blocks (schema 9: none a row of its own, the blocks
# under half the records), and every one reads back byte for byte: plain.db's as the lines
# of the files, aks-lines.db's as plain.db's
[ "$(q plain.db "SELECT (SELECT count(*) FROM audit_raw_rows) = 0
	AND (SELECT sum(length(data)) FROM audit_blocks) * 2 < (SELECT sum(length(json)) FROM audit_raw) AS ok")" = 1 ] \
	|| fail "plain: raw records not compressed"
raws() { # raws DB: each stored record's source path, line and raw text, in id order
	"$bin" sql -o jsonl --db "$1" "SELECT s.path AS path, a.line AS line, lt_raw(r.json) AS raw
		FROM audit AS a JOIN audit_raw AS r ON r.id = a.id JOIN sources AS s ON s.id = a.source_id
		ORDER BY a.id" >"$1.raw.jsonl"
	jq -r '.raw' "$1.raw.jsonl" >"$1.raw"
}
raws plain.db
raws aks-lines.db
jq -r '"\(.path)\t\(.line)"' plain.db.raw.jsonl | awk -F'\t' '
	$1 != cur { close(cur); cur = $1; n = 0 }
	{ while (n < $2 && (getline l < cur) > 0) n++; print l }' >plain.db.lines
cmp -s plain.db.raw plain.db.lines || fail "plain: a raw record is not its line byte for byte"
cmp -s plain.db.raw aks-lines.db.raw || fail "aks-lines: a raw record is not the plain line"
# GKE keeps the LogEntry: show gives the entry as the sink wrote it, the pod as its stream
line=$(q gke-lines.db "SELECT line FROM audit WHERE id = 7")
src=$(q gke-lines.db "SELECT path FROM sources WHERE id = (SELECT source_id FROM audit WHERE id = 7)")
cmp -s <("$bin" show --db gke-lines.db 7) <(sed -n "${line}p" "$src") \
	|| fail "gke-lines: event 7 is not its LogEntry byte for byte"
[ "$(q gke-lines.db "SELECT count(DISTINCT stream), min(length(ext_id)) FROM audit_ext")" = \
	"1,16" ] || fail "gke-lines provenance: $(q gke-lines.db "SELECT * FROM audit_ext LIMIT 2")"
[ "$(q aks-eventhub.db "SELECT count(DISTINCT stream) FROM audit_ext WHERE stream LIKE 'kube-apiserver-%'")" = 3 ] \
	|| fail "aks-eventhub provenance: $(q aks-eventhub.db "SELECT * FROM audit_ext LIMIT 2")"

# 2. kube-controller-manager klog in Container Insights records of filter-log-events pages
kcm=("$samples"/logs/kube-controller-manager.*.log)
"$bin" ingest -q --year 2024 --db kcm-plain.db "${kcm[@]}" >/dev/null
for f in "${kcm[@]}"; do "$conv" --to cw-wrap --page 300 --year 2024 <"$f" >"$(basename "$f").cw.json"; done
"$bin" ingest --year 2024 --db kcm-cw.db ./*.cw.json >kcm-cw.out 2>kcm-cw.err || fail "cw-wrap ingest: $(cat kcm-cw.err)"
grep -q ', 0 rejected' kcm-cw.out || fail "cw-wrap: rejects: $(cat kcm-cw.out kcm-cw.err)"
lcols="ts_us, klog_us, component, severity, location, kind, subject, not_found, message, fields"
diff <(q kcm-plain.db "SELECT $lcols FROM logs ORDER BY ts_us, message") \
	<(q kcm-cw.db "SELECT $lcols FROM logs ORDER BY ts_us, message") >kcm.diff \
	|| fail "cw-wrap lines differ from the plain klog: $(head -4 kcm.diff)"
[ "$(q kcm-cw.db "SELECT DISTINCT host FROM logs")" = ip-172-16-33-232.ec2.internal ] \
	|| fail "cw-wrap: the record's host"

fi
# 3. the real records
"$bin" ingest --db aks.db "$corpus"/aks >aks.out 2>aks.err || fail "aks corpus: $(cat aks.err)"
grep -q 'PT1H.json: ingested, 2 records, 1 stored, 0 duplicates, 1 skipped, 0 rejected' aks.out \
	|| fail "aks PT1H: $(cat aks.out)"
grep -q 'eventhub.json: ingested, 2 records, 0 stored, 1 duplicates, 1 skipped, 0 rejected' aks.out \
	|| fail "aks eventhub: $(cat aks.out)"
[ "$(q aks.db "SELECT resource, verb, count FROM resource_counts ORDER BY source_id LIMIT 1")" = \
	"subjectaccessreviews,create,1" ] || fail "aks audit record: $(q aks.db "SELECT * FROM resource_counts")"
[ "$(q aks.db "SELECT ts, component, severity, stream, message FROM logs LIMIT 1")" = \
	"2021-02-02T15:03:28.853066Z,kube-controller-manager,I,kube-controller-manager-84595d6f94-wcj7p,Event occurred" ] \
	|| fail "aks kcm line: $(q aks.db "SELECT ts, component, severity, stream, message FROM logs")"
"$bin" ingest --db gke.db "$corpus"/gke >gke.out 2>gke.err || fail "gke corpus: $(cat gke.err)"
grep -q 'gcloud-logging-read.json: ingested, 2 records, 1 stored, 0 duplicates, 1 skipped' gke.out \
	|| fail "gke array: $(cat gke.out)"
[ "$(q gke.db "SELECT resource, verb, count FROM resource_counts WHERE source_id = 1")" = "pods,create,1" ] \
	|| fail "gke audit entry: $(q gke.db "SELECT * FROM resource_counts")"
[ "$(q gke.db "SELECT ts, host, component, severity, ext_id FROM logs WHERE source_id = 1")" = \
	"2024-01-01T01:00:00.000000Z,gke-sample-cluster-default-abcdefgh-abcd,kubelet,I,n65fdogr5241a1z4" ] \
	|| fail "gke kubelet entry: $(q gke.db "SELECT * FROM logs")"
"$bin" ingest --db ci.db "$corpus"/cloudwatch/containerinsights_dataplane_s3-export.txt >ci.out 2>&1 \
	|| fail "container insights: $(cat ci.out)"
[ "$(q ci.db "SELECT ts, host, component, severity, location FROM logs")" = \
	"2023-03-23T15:05:36.671000Z,ip-10-0-101-15.ec2.internal,kubelet,E,remote_runtime.go:734" ] \
	|| fail "container insights line: $(q ci.db "SELECT * FROM logs")"

# 4. damage in each shape: the bad record named, the good ones kept
head -20 "$samples"/audit/kube-apiserver-audit.1.log >head.log
"$conv" --to aks-lines <head.log >head-aks.json
"$conv" --to aks-eventhub <head.log >head-hub.json
"$conv" --to gke-array <head.log >head-gke.json
"$bin" ingest -q --db head.db head.log >/dev/null
good=$(head -1 head-aks.json)
{
	echo "$good"
	echo '{"time":"2024-04-05T05:50:00Z","category":"kube-audit","resourceId":"x","properties":{"pod":"p"}}'
	echo '{"time":"yesterday","category":"kube-audit","resourceId":"x","properties":{"log":"{}"}}'
	echo '{"time":"2024-04-05T05:50:00Z","category":"kube-audit","resourceId":"x","properties":{"log":"not an event"}}'
	echo "${good:0:200}"
	sed -n 2p head-aks.json
} >bad-aks.json
"$bin" ingest --db bad-aks.db bad-aks.json >bad-aks.out 2>bad-aks.err && fail "bad AKS input must exit non-zero"
for want in 'bad-aks.json:2: rejected: AKS diagnostic record without a properties.log string' \
	'bad-aks.json:3: rejected: AKS diagnostic record: "time" is not an RFC 3339 time' \
	'bad-aks.json:4: rejected: invalid JSON' 'bad-aks.json:5: rejected: record cut off'; do
	grep -qF "$want" bad-aks.err || fail "bad AKS: '$want' not in: $(cat bad-aks.err)"
done
grep -q 'ingested, 6 records, .*4 rejected' bad-aks.out || fail "bad AKS counts: $(cat bad-aks.out)"
[ "$(q bad-aks.db "SELECT count(*) FROM audit")" = "$(q head.db "SELECT count(*) FROM audit WHERE line <= 2")" ] \
	|| fail "bad AKS: the good records were not all kept"
{
	echo '{"records": [1,'
	head -c 3000 head-hub.json | tail -c +14 | sed 's/}}, {.*$/}}/'
	echo ']}'
} >bad-hub.json
"$bin" ingest --db bad-hub.db bad-hub.json >bad-hub.out 2>bad-hub.err && fail "bad Event Hub input must exit non-zero"
grep -q 'bad-hub.json:1: rejected: list element is not an object or an array' bad-hub.err \
	|| fail "bad Event Hub: $(cat bad-hub.err)"
{
	echo '['
	sed -n 2,11p head-gke.json | sed 's/"serviceName":"k8s.io"/"serviceName":"container.googleapis.com"/'
	sed -n 12,21p head-gke.json | sed 's/"timestamp": /"time": /'
	sed -n 22,31p head-gke.json | sed 's/"methodName":"[^"]*"/"methodName":""/'
	sed -n 32,41p head-gke.json
	sed -n 42,51p head-gke.json | sed '$ s/,$//'
	echo ']'
} >bad-gke.json
"$bin" ingest --db bad-gke.db bad-gke.json >bad-gke.out 2>bad-gke.err && fail "bad GKE input must exit non-zero"
for want in 'bad-gke.json:2: rejected: a GKE audit entry that is no Kubernetes API request (serviceName container.googleapis.com)' \
	'bad-gke.json:12: rejected: a GKE audit entry without a "timestamp"' \
	'bad-gke.json:22: rejected: a GKE audit entry whose methodName names no verb'; do
	grep -qF "$want" bad-gke.err || fail "bad GKE: '$want' not in: $(cat bad-gke.err)"
done
grep -q 'ingested, 5 records, .*3 rejected' bad-gke.out || fail "bad GKE counts: $(cat bad-gke.out)"

# 5. JSON log lines: "ts" in ms (zap millis), ns (zap nanos), ISO 8601 (zap iso8601)
cat >ctrl.log <<'EOF'
{"level":"info","ts":1712296757123.456,"logger":"controller","msg":"Starting workers","worker count":1}
{"level":"error","ts":1712296758123456789,"msg":"Reconciler error","err":"leases.coordination.k8s.io \"x\" not found"}
{"level":"info","ts":"2024-04-05T05:59:19.5Z","msg":"attempting to acquire leader lease kube-system/ctrl..."}
{"level":"info","ts":99999999999999999999999,"msg":"no time"}
EOF
# a time out of range is no time: the line is kept at the time of the line before it (as
# every line without a time of its own, README: Log lines)
"$bin" ingest --db ctrl.db ctrl.log >ctrl.out 2>ctrl.err || fail "JSON log lines: $(cat ctrl.err)"
[ "$(q ctrl.db "SELECT group_concat(ts, ' ') FROM (SELECT ts FROM logs ORDER BY ts_us, id)")" = \
	"2024-04-05T05:59:17.123456Z 2024-04-05T05:59:18.123456Z 2024-04-05T05:59:19.500000Z 2024-04-05T05:59:19.500000Z" ] \
	|| fail "JSON log times: $(q ctrl.db "SELECT ts, message FROM logs")"
echo ok
