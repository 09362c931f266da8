#!/usr/bin/env bash
# results.sh - "narrow there, analyse here": the query engines' result exports ingest into the
# same events (and lines) as the plain logs.
# Usage: results.sh LEASETRAIL CLOUD_EXPORT CORPUS SAMPLES TMPDIR
#  1. the samples' audit logs (and a RequestResponse lease log) through every result export
#     cloud-export writes (Log Analytics AKSAudit and AzureDiagnostics as `az monitor
#     log-analytics query` JSON and portal CSV, BigQuery JSON, JSON lines and CSV, Athena CSV)
#     give the same events as the plain lines (every column of the events view but the
#     provenance ones; BigQuery what a LogEntry holds, as for GKE), the same `nodes` and the
#     same `timeline NODE`; the cluster stays reachable in the raw record (Log Analytics);
#  2. kube-controller-manager klog as AKSControlPlane rows (JSON and CSV) gives the same lines;
#  3. columns in another order, extra columns, optional columns missing, BigQuery's flattened
#     names with '_' instead of '.', Athena rows of whole export-task lines: the same events;
#  4. the real records of tests/corpus/results;
#  5. rows that lack what an event needs: file, line and reason, every good row kept.
# RESULTS_QUICK=1 skips parts 1 and 2 (the slow ones) while iterating; ctest runs them all.
set -euo pipefail
bin=$1 conv=$2 corpus=$3 samples=$4 tmp=$5
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { "$bin" sql -o csv --db "$1" "$2" | tail -n +2; }

all_cols="audit_id, stage, ts, ts_us, received_us, latency_us, level, verb, resource,
  subresource, namespace, name, api_group, api_version, uid, resource_version, request_uri,
  user, groups, impersonated_user, source_ip, user_agent, code, status, reason, message,
  authz_decision, authz_reason, lease_holder, lease_duration_s, lease_renew_us,
  lease_acquire_us, lease_transitions"
gke_cols="audit_id, stage, ts, ts_us, verb, resource, subresource, namespace, name,
  api_group, api_version, user, source_ip, user_agent, code, message, authz_decision,
  authz_reason, lease_holder, lease_duration_s, lease_renew_us, lease_acquire_us,
  lease_transitions"
events() { q "$1" "SELECT $2 FROM events ORDER BY audit_id, stage, ts_us"; }
cols_of() { case $1 in bq-*) echo "$gke_cols" ;; *) echo "$all_cols" ;; esac; }
# the timeline; a LogEntry has no user.extra, so BigQuery's rows show no IDENTITY (jq drops it)
timeline_of() {
	case $1 in
	bq-*) "$bin" timeline --db "$2" -o jsonl "$node" | jq -c 'del(.identity)' ;;
	*) "$bin" timeline --db "$2" "$node" ;;
	esac
}
# a RequestReceived stage is in no BigQuery table (Cloud Logging writes none)
plain_of() { case $1 in bq-*) echo "$2-norr" ;; *) echo "$2" ;; esac; }

# 1. the same audit logs through each result export
if [ -z "${RESULTS_QUICK:-}" ]; then
plain=("$samples"/audit/kube-apiserver-audit.1.log "$samples"/audit/kube-apiserver-audit.2.log)
rr=$samples/variants/lease-requestresponse.log
"$bin" ingest -q --db plain.db "${plain[@]}" >/dev/null
"$bin" ingest -q --db plain-rr.db "$rr" >/dev/null
cat "${plain[@]}" | grep -v '"stage":"RequestReceived"' >plain-norr.log || true
"$bin" ingest -q --db plain-norr.db plain-norr.log >/dev/null
grep -v '"stage":"RequestReceived"' "$rr" >rr-norr.log || true
"$bin" ingest -q --db plain-rr-norr.db rr-norr.log >/dev/null
[ "$(q plain.db "SELECT count(*) FROM events")" -gt 1000 ] || fail "plain samples: too few events"
node=$(q plain.db "SELECT name FROM events WHERE resource = 'leases' AND namespace = 'kube-node-lease' LIMIT 1")
shapes=(la-json la-csv la-rest azdiag-json azdiag-csv bq-json bq-ndjson bq-csv athena-csv)
for shape in "${shapes[@]}"; do
	mkdir -p "$shape"
	for f in "${plain[@]}" "$rr"; do
		"$conv" --to "$shape" <"$f" >"$shape/$(basename "$f").out"
	done
	"$bin" ingest --db "$shape.db" "$shape"/kube-apiserver-audit.*.out >"$shape.out" 2>"$shape.err" \
		|| fail "$shape: ingest exited $?: $(cat "$shape.err")"
	grep -q ', 0 rejected' "$shape.out" || fail "$shape: rejects: $(cat "$shape.out" "$shape.err")"
	"$bin" ingest -q --db "$shape-rr.db" "$shape/lease-requestresponse.log.out" >/dev/null
	cols=$(cols_of "$shape")
	p=$(plain_of "$shape" plain) prr=$(plain_of "$shape" plain-rr)
	diff <(events "$p.db" "$cols") <(events "$shape.db" "$cols") >"$shape.diff" \
		|| fail "$shape: events differ from the plain log's: $(head -5 "$shape.diff")"
	diff <(events "$prr.db" "$cols") <(events "$shape-rr.db" "$cols") >"$shape-rr.diff" \
		|| fail "$shape: RequestResponse events differ: $(head -5 "$shape-rr.diff")"
	[ "$(q "$shape-rr.db" "SELECT count(*) FROM events WHERE lease_holder IS NOT NULL")" -gt 0 ] \
		|| fail "$shape: no Lease bodies read"
	diff <("$bin" nodes --db "$p.db") <("$bin" nodes --db "$shape.db") >/dev/null \
		|| fail "$shape: nodes differ"
	diff <(timeline_of "$shape" "$p.db") <(timeline_of "$shape" "$shape.db") \
		>"$shape.timeline.diff" || fail "$shape: timeline $node differs: $(head -5 "$shape.timeline.diff")"
done
# the cluster: Log Analytics' _ResourceId in the raw record, BigQuery's cluster_name in the LogEntry
[ "$(q la-csv.db "SELECT json_extract(lt_raw(json), '\$.logAnalytics._ResourceId') FROM audit_raw LIMIT 1")" = \
	/SUBSCRIPTIONS/00000000-0000-0000-0000-000000000000/RESOURCEGROUPS/SAMPLE-RG/PROVIDERS/MICROSOFT.CONTAINERSERVICE/MANAGEDCLUSTERS/SAMPLE-AKS ] \
	|| fail "la-csv: _ResourceId not in the raw record"
[ "$(q azdiag-json.db "SELECT DISTINCT json_extract(lt_raw(json), '\$.logAnalytics.ResourceId') FROM audit_raw")" = \
	/SUBSCRIPTIONS/00000000-0000-0000-0000-000000000000/RESOURCEGROUPS/SAMPLE-RG/PROVIDERS/MICROSOFT.CONTAINERSERVICE/MANAGEDCLUSTERS/SAMPLE-AKS ] \
	|| fail "azdiag-json: ResourceId not in the raw record"
[ "$(q bq-csv.db "SELECT DISTINCT json_extract(lt_raw(json), '\$.resource.labels.cluster_name') FROM audit_raw")" = \
	sample-cluster ] || fail "bq-csv: cluster_name not in the raw record"
# provenance: the file and line (a CSV row's first line) of each event
line=$(q la-csv.db "SELECT line FROM audit WHERE id = 9")
aid=$(q la-csv.db "SELECT audit_id FROM events WHERE id = 9")
src=$(q la-csv.db "SELECT path FROM sources WHERE id = (SELECT source_id FROM audit WHERE id = 9)")
sed -n "${line}p" "$src" | grep -qF "$aid" || fail "la-csv: event 9 is not on line $line of $src"
[ "$(q la-json.db "SELECT count(DISTINCT stream) FROM audit_ext WHERE stream LIKE 'kube-apiserver-%'")" = 3 ] \
	|| fail "la-json provenance: $(q la-json.db "SELECT * FROM audit_ext LIMIT 2")"

# 2. kube-controller-manager klog as AKSControlPlane rows
kcm=("$samples"/logs/kube-controller-manager.*.log)
"$bin" ingest -q --year 2024 --db kcm-plain.db "${kcm[@]}" >/dev/null
lcols="ts_us, klog_us, component, severity, location, kind, subject, not_found, message, fields"
for shape in la-cp-json la-cp-csv; do
	for f in "${kcm[@]}"; do "$conv" --to "$shape" --year 2024 <"$f" >"$(basename "$f").$shape"; done
	"$bin" ingest --year 2024 --db "kcm-$shape.db" ./*."$shape" >"kcm-$shape.out" 2>"kcm-$shape.err" \
		|| fail "$shape ingest: $(cat "kcm-$shape.err")"
	grep -q ', 0 rejected' "kcm-$shape.out" || fail "$shape: rejects: $(cat "kcm-$shape.out")"
	diff <(q kcm-plain.db "SELECT $lcols FROM logs ORDER BY ts_us, message") \
		<(q "kcm-$shape.db" "SELECT $lcols FROM logs ORDER BY ts_us, message") >"kcm-$shape.diff" \
		|| fail "$shape lines differ from the plain klog: $(head -4 "kcm-$shape.diff")"
	[ "$(q "kcm-$shape.db" "SELECT DISTINCT stream FROM logs")" = kube-controller-manager-84595d6f94-wcj7p ] \
		|| fail "$shape: the row's pod"
done

fi
# 3. the columns in another order, extra ones, optional ones missing; '_' for '.'
one=$samples/audit/kube-apiserver-audit.1.log
"$bin" ingest -q --db one.db "$one" >/dev/null
grep -v '"stage":"RequestReceived"' "$one" >one-norr.log || true
"$bin" ingest -q --db one-norr.db one-norr.log >/dev/null
"$conv" --to la-json <"$one" | jq -c 'map(del(.TenantId, .SourceSystem, .Type, .PodName)
	| . + {Computer: "x", _BilledSize: 1234.5} | to_entries | reverse | from_entries)' >la-shuffled.json
jq -r '(.[0] | keys_unsorted) as $k | ($k | @csv), (.[] | [.[$k[]]] | map(if . == null then "" else tostring end) | @csv)' \
	la-shuffled.json >la-shuffled.csv
"$conv" --to bq-csv <"$one" | sed '1s/\./_/g' >bq-underscores.csv
"$conv" --to bq-ndjson <"$one" | jq -c 'del(.severity, .insertId, .receiveTimestamp) | to_entries | reverse | from_entries' \
	>bq-shuffled.ndjson
# Athena over export-task text: the whole line "TIME MESSAGE" in one column
{
	echo '"message"'
	sed 's/"/""/g; s/^/"2024-04-05T05:50:00.000Z /; s/$/"/' "$one"
} >athena-lines.csv
for f in la-shuffled.json la-shuffled.csv bq-underscores.csv bq-shuffled.ndjson athena-lines.csv; do
	"$bin" ingest --db "$f.db" "$f" >"$f.out" 2>&1 || fail "$f: $(cat "$f.out")"
	grep -q ', 0 rejected' "$f.out" || fail "$f: rejects: $(cat "$f.out")"
	case $f in bq-*) cols=$gke_cols p=one-norr ;; *) cols=$all_cols p=one ;; esac
	diff <(events "$p.db" "$cols") <(events "$f.db" "$cols") >"$f.diff" \
		|| fail "$f: events differ: $(head -4 "$f.diff")"
done

# 4. the real records
"$bin" ingest --db corpus.db "$corpus"/results >corpus.out 2>corpus.err || fail "results corpus: $(cat corpus.err)"
for want in 'la-aksaudit_dynatrace_az-query.json: ingested, 1 records, ' \
	'la-akscontrolplane_dynatrace_portal.csv: ingested, 1 records, 1 stored' \
	'bq-cloudaudit-activity_khi_console.csv: ingested, 1 records, ' \
	'athena-eks-audit-firehose_eks-lease-blog.csv: ingested, 5 records, 5 stored'; do
	grep -qF "$want" corpus.out || fail "results corpus: '$want' not in: $(cat corpus.out)"
done
grep -q ' 0 rejected$' corpus.out || fail "results corpus: rejects: $(cat corpus.out corpus.err)"
[ "$(q corpus.db "SELECT group_concat(resource || ':' || verb || ':' || count, ' ') FROM (SELECT resource, verb, count FROM resource_counts ORDER BY resource)")" = \
	"pods:create:1 subjectaccessreviews:create:1" ] || fail "results corpus counts: $(q corpus.db "SELECT * FROM resource_counts")"
[ "$(q corpus.db "SELECT ts, component, severity, stream, message FROM logs")" = \
	"2021-02-02T15:03:28.853066Z,kube-controller-manager,I,kube-controller-manager-84595d6f94-wcj7p,Event occurred" ] \
	|| fail "AKSControlPlane line: $(q corpus.db "SELECT * FROM logs")"
"$bin" ingest -q --db blog.db "$corpus"/audit/eks-lease-blog_audit_pretty_node-delete-lease-gc.json >/dev/null
diff <(events blog.db "$all_cols") <(events corpus.db "$all_cols") >blog.diff \
	|| fail "Athena rows of the EKS blog's Events differ: $(head -4 blog.diff)"

# 5. rows that lack what an event needs: the bad row named, the good ones kept
head -20 "$one" >head.log
"$conv" --to la-csv <head.log >head-la.csv
{
	sed -n 1,3p head-la.csv
	sed -n 4p head-la.csv | sed 's/"ResponseComplete"/""/'
	sed -n 5p head-la.csv | sed 's/"2024-04-05T05:5[0-9]:[0-9.]*Z"/"yesterday"/3'
	sed -n 6p head-la.csv | cut -d, -f1-5
	sed -n '7,$p' head-la.csv
} >bad-la.csv
"$bin" ingest --db bad-la.db bad-la.csv >bad-la.out 2>bad-la.err && fail "bad Log Analytics CSV must exit non-zero"
for want in 'bad-la.csv:4: rejected: a Log Analytics AKSAudit row without Stage: no audit event' \
	'bad-la.csv:5: rejected: a Log Analytics AKSAudit row whose StageReceivedTime is not a time' \
	'bad-la.csv:6: rejected: CSV row has 5 fields, the header has 22'; do
	grep -qF "$want" bad-la.err || fail "bad LA: '$want' not in: $(cat bad-la.err)"
done
grep -q 'ingested, 20 records, .*3 rejected' bad-la.out || fail "bad LA counts: $(cat bad-la.out)"
"$bin" ingest -q --db head.db head.log >/dev/null
[ "$(q bad-la.db "SELECT count(*) FROM audit")" = "$(q head.db "SELECT count(*) FROM audit WHERE line NOT IN (3, 4, 5)")" ] \
	|| fail "bad LA: the good rows were not all kept"
"$conv" --to azdiag-json <head.log | jq -c '.[]' >head-diag.ndjson
{
	sed -n 1p head-diag.ndjson
	sed -n 2p head-diag.ndjson | jq -c 'del(.log_s)'
	sed -n 3p head-diag.ndjson | jq -c '.log_s = "{\"kind\":\"Event\"" '
	sed -n '4,$p' head-diag.ndjson
} >bad-diag.ndjson
"$bin" ingest --db bad-diag.db bad-diag.ndjson >bad-diag.out 2>bad-diag.err && fail "bad AzureDiagnostics must exit non-zero"
grep -qF 'bad-diag.ndjson:3: rejected: invalid JSON' bad-diag.err || fail "bad diag log_s: $(cat bad-diag.err)"
grep -qF 'bad-diag.ndjson:2: rejected: a Log Analytics AzureDiagnostics row without log_s: nothing to read' \
	bad-diag.err || fail "bad diag no log_s: $(cat bad-diag.err)"
grep -q 'ingested, 20 records, .*2 rejected' bad-diag.out || fail "bad diag counts: $(cat bad-diag.out)"
"$conv" --to bq-ndjson <head.log >head-bq.ndjson
{
	sed -n 1p head-bq.ndjson | jq -c 'del(.timestamp)'
	sed -n 2p head-bq.ndjson | jq -c '.protopayload_auditlog.methodName = ""'
	sed -n '3,$p' head-bq.ndjson
} >bad-bq.ndjson
"$bin" ingest --db bad-bq.db bad-bq.ndjson >bad-bq.out 2>bad-bq.err && fail "bad BigQuery rows must exit non-zero"
for want in 'bad-bq.ndjson:1: rejected: a BigQuery Cloud Logging row without a timestamp that is a time' \
	'bad-bq.ndjson:2: rejected: a GKE audit entry whose methodName names no verb'; do
	grep -qF "$want" bad-bq.err || fail "bad BQ: '$want' not in: $(cat bad-bq.err)"
done
echo ok
