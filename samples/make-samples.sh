#!/bin/sh
# make-samples.sh - regenerate samples/ byte for byte from sample-gen*.c.
#
# Usage: samples/make-samples.sh [OUTDIR [BADDIR [VARDIR [LOGDIR]]]]
#        (and OUTDIR/../notready: the node-health cluster)
#        (default: samples/audit, samples/bad, samples/variants, and LOGDIR
#        = OUTDIR/../logs, i.e. samples/logs)
# OUTDIR holds one cluster's audit logs and LOGDIR its kubelet journals and
# kube-controller-manager logs; VARDIR small clusters of their own, one per
# input format (ingest each into its own store); BADDIR malformed.log.
# Needs: cc (or $CC), gzip, sed, head, tr, paste; jq only for the final check.
# Same sample-gen.c + same gzip => same bytes (gzip -n stores no name/time).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-"$here/audit"}
bad=${2:-"$here/bad"}
var=${3:-"$here/variants"}
mkdir -p "$out" "$bad" "$var"
logs=${4:-"$(cd "$out/.." && pwd)/logs"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$logs"

# every sample-gen*.c is part of lt-gen (the simulation, its stories, the logs)
${CC:-cc} -std=c11 -O2 -o "$tmp/lt-gen" "$here"/sample-gen*.c
gen="$tmp/lt-gen"

# 1. Two apiservers, 3 nodes, 15 min, every story, ~2 unrelated requests/s;
#    with the same run, the nodes' kubelet journals (node 0 json, node 1 -
#    the lease-delete node, short host name - short-iso-precise, node 2 short)
#    and kube-controller-manager's log on both control-plane hosts. The logs
#    never change the audit bytes.
"$gen" --seed 20240405 --nodes 3 --minutes 15 --level Metadata \
	--stories node-delete,lease-delete,leader-change --noise 2 \
	--split 2 -o "$tmp/split" \
	--journal-dir "$logs" --journal-format json,short-iso-precise,short \
	--kcm-log "$logs/kube-controller-manager"
mv "$tmp/split.1" "$out/kube-apiserver-audit.1.log"
mv "$tmp/split.2" "$out/kube-apiserver-audit.2.log"

# 2. RequestResponse level: Lease bodies, 5 min, leader change + lease delete.
"$gen" --seed 7 --nodes 3 --minutes 5 --level RequestResponse \
	--stories leader-change,lease-delete --noise 0 -o "$var/lease-requestresponse.log"

# 3. Webhook batch: 50 consecutive events around a lease delete, wrapped in an
#    EventList by hand (jq would rewrite Go's \u0026 escapes).
"$gen" --seed 11 --nodes 3 --minutes 3 --stories lease-delete --noise 1 -o "$tmp/el.log"
first=$(grep -n '"verb":"delete"' "$tmp/el.log" | head -n 1 | cut -d: -f1)
first=$((first > 20 ? first - 20 : 1))
{
	printf '{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":['
	sed -n "${first},$((first + 49))p" "$tmp/el.log" | paste -sd, -
	printf ']}\n'
} >"$var/eventlist.json"

# 4. gzip of a small steady-state log (2 nodes, 5 min).
"$gen" --seed 99 --nodes 2 --minutes 5 --stories none --noise 1 -o "$tmp/gz.log"
gzip -n -9 -c "$tmp/gz.log" >"$var/kube-apiserver-audit.gz"

# 5. A kubelet journal across New Year (short format: "Dec 31" -> "Jan 01", no year).
mkdir "$tmp/ny"
"$gen" --seed 1231 --nodes 1 --minutes 10 --start 2023-12-31T23:55:00Z --stories none \
	--journal-dir "$tmp/ny"
mv "$tmp/ny/"kubelet-*.log "$var/kubelet-new-year.log"

# 6. notready/: a small NotReady cluster (lt-gen --health: every node-health story, two
#    apiservers, the second one's clock 250 ms ahead), its audit, kubelet journals,
#    controller-manager log and ground truth (truth.tsv: node, start_us, end_us, condition,
#    cause, ended, evicted pods). Golden windows: tests/golden/health/samples-notready.txt.
nr="$(cd "$out/.." && pwd)/notready" # samples/notready by default
rm -rf "$nr" && mkdir -p "$nr/audit" "$nr/logs"
"$gen" --health all --seed 7 --nodes 8 --minutes 30 --skew-ms 250 \
	-o "$tmp/nr" --journal-dir "$nr/logs" --kcm-log "$nr/logs/kube-controller-manager.log" \
	--truth "$nr/truth.tsv"
mv "$tmp/nr.1" "$nr/audit/kube-apiserver-audit.1.log"
mv "$tmp/nr.2" "$nr/audit/kube-apiserver-audit.2.log"

# 7. malformed.log: good node-lease events (G) mixed with bad records (B).
"$gen" --seed 5 --nodes 2 --minutes 2 --stories none -o "$tmp/m.log"
grep '"namespace":"kube-node-lease"' "$tmp/m.log" | head -n 12 >"$tmp/good"
good() { sed -n "$1p" "$tmp/good"; }
{
	good 1; good 2; good 3                                       # G1-G3
	good 4 | head -c 377; printf '\n'                            # B: cut off mid-record
	good 5                                                       # G4
	printf '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata",,"auditID":}\n' # B: broken JSON
	good 6                                                       # G5
	printf '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"nginx","namespace":"default"},"spec":{"nodeName":"ip-10-0-1-17.ec2.internal"}}\n' # B: JSON, not an audit Event
	good 7                                                       # G6
	printf '\000\001\002\377\376garbage\303\050\200\033[31m\177\n' # B: binary garbage (NUL, invalid UTF-8)
	good 8                                                       # G7
	printf '42\n'                                                # B: top-level non-object
	# G8: \u00e9 and a surrogate pair (U+1F600) in userAgent
	good 9 | sed 's|"userAgent":"kubelet/v1.29.0 (linux/amd64) kubernetes/3034fd4"|"userAgent":"kubelet/v1.29.0 (linux/amd64) kubernetes/3034fd4 caf\\u00e9 \\ud83d\\ude00"|'
	# V: one valid but over-long line (~1.1 MiB): a configmap create at Request level
	printf '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","auditID":"5b0c6f43-2d5e-4a8e-9c1d-7f3e2a9b8c01","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/prod/configmaps?fieldManager=kubectl-client-side-apply\\u0026fieldValidation=Strict","verb":"create","user":{"username":"kubernetes-admin","groups":["system:masters","system:authenticated"]},"sourceIPs":["203.0.113.7"],"userAgent":"kubectl/v1.29.2 (darwin/arm64) kubernetes/4b8e819","objectRef":{"resource":"configmaps","namespace":"prod","name":"big-blob","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":201},"requestObject":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"big-blob","namespace":"prod"},"data":{"blob":"'
	head -c 1153433 /dev/zero | tr '\000' 'A'
	printf '"}},"requestReceivedTimestamp":"2024-04-05T05:50:46.200117Z","stageTimestamp":"2024-04-05T05:50:46.262593Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}\n'
	good 10; good 11                                             # G9-G10
	good 12 | tr -d '\n'                                         # G11: last line, no newline
} >"$bad/malformed.log"

# Self-check: every line of the generated files is JSON.
if command -v jq >/dev/null 2>&1; then
	for f in "$out/kube-apiserver-audit.1.log" "$out/kube-apiserver-audit.2.log" \
		"$var/lease-requestresponse.log" "$var/eventlist.json"; do
		jq -c . "$f" >/dev/null
	done
	gzip -dc "$var/kube-apiserver-audit.gz" | jq -c . >/dev/null
	jq -c . "$logs"/kubelet-ip-10-0-241-227.ec2.internal.log >/dev/null
fi
ls -l "$out" "$logs" "$var" "$bad"

# 8. The same stories as CloudWatch Logs exports (only for the default layout).
if [ $# -eq 0 ]; then
	sh "$here/make-cloudwatch.sh" >/dev/null
fi
