#!/usr/bin/env bash
# Writes the seed inputs of the fuzz targets into tests/fuzz/corpus/TARGET/ from samples/ and
# tests/corpus/: short excerpts (at most 4 KiB, whole lines; 8 KiB a part for queries) behind each target's header bytes
# (tests/fuzz/fuzz-TARGET.c says what they mean).  Seeds are named seed-*; inputs libFuzzer or a
# crash added are named by their SHA-1 and are never touched here.  Re-run it after a new format
# appears; then minimize: tests/fuzz/run-fuzz.sh --merge.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=tests/fuzz/corpus

# The first whole lines of FILE up to $cap bytes (its first $cap bytes when a line is longer).
cap=4096
excerpt() {
	local b
	b=$(head -c "$cap" "$1" | awk -v cap="$cap" '{n += length($0) + 1; if (n > cap) exit; print}')
	if [[ -z $b ]]; then head -c "$cap" "$1"; else printf '%s\n' "$b"; fi
}

# seed TARGET NAME HEADER-BYTES (octal escapes for printf) CONTENT-FILE...
seed() {
	local target=$1 name=$2 header=$3
	shift 3
	mkdir -p "$out/$target"
	{
		printf "$header"
		local first=1
		for f in "$@"; do
			((first)) || printf -- '--8<--\n'
			first=0
			excerpt "$f"
		done
	} >"$out/$target/seed-$name"
}

sources=(
	audit:samples/audit/kube-apiserver-audit.1.log
	audit-rr:samples/variants/lease-requestresponse.log
	eventlist:samples/variants/eventlist.json
	audit-pretty:tests/corpus/audit/eks-lease-blog_audit_pretty_node-delete-lease-gc.json
	audit-jsonl:tests/corpus/audit/kzmrv-logviewer_gce-scale-cluster_3lines.jsonl
	audit-v1beta1:tests/corpus/audit/audit2rbac_demo_v1beta1_raw_501d132.log
	journal:samples/logs/kubelet-ip-10-0-241-74.ec2.internal.log
	journal-newyear:samples/variants/kubelet-new-year.log
	journal-pleg:tests/corpus/kubelet/gh-kubernetes-45419_journal_node-not-ready-pleg.log
	syslog:tests/corpus/kubelet/gh-kubernetes-68270_syslog-messages_kubelet_no-pid.log
	klog:tests/corpus/kubelet/gh-kubernetes-16353_raw-klog_kubelet_node-status.log
	kcm:samples/notready/logs/kube-controller-manager.log
	kcm-gc:tests/corpus/kubelet/eks-lease-blog_kube-controller-manager_gc-node-deletion.log
	kubelet-notready:samples/notready/logs/kubelet-ip-10-1-0-16.ec2.internal.log
	cw-filter:tests/corpus/cloudwatch/aws-cli_examples_logs_filter-log-events.output.json
	cw-get:tests/corpus/cloudwatch/aws-cli_examples_logs_get-log-events.output.json
	cw-query:tests/corpus/cloudwatch/aws-cli_examples_logs_get-query-results.output.json
	cw-text:tests/corpus/cloudwatch/aws-eks-best-practices_upgrades_get-query-results_eks-audit_excerpt.txt
	cw-csv:tests/corpus/cloudwatch/insights-console-export_Juan-Cartagena_lambda_logs-insights-results.csv
	cw-filter-eks:samples/cloudwatch/filter-log-events.json
	bad:samples/bad/malformed.log
	aks-lines:tests/corpus/aks/dynatrace-log-forwarder_PT1H.json
	aks-eventhub:tests/corpus/aks/dynatrace-log-forwarder_eventhub.json
	gke-array:tests/corpus/gke/khi_gcloud-logging-read.json
	gke-sink:tests/corpus/gke/khi_sink.json
	cw-containerinsights:tests/corpus/cloudwatch/containerinsights_dataplane_s3-export.txt
	la-aksaudit-json:tests/corpus/results/la-aksaudit_dynatrace_az-query.json
	la-aksaudit-csv:tests/corpus/results/la-aksaudit_dynatrace_portal.csv
	la-azurediagnostics:tests/corpus/results/la-azurediagnostics_dynatrace_az-query.json
	la-akscontrolplane:tests/corpus/results/la-akscontrolplane_dynatrace_portal.csv
	bq-json:tests/corpus/results/bq-cloudaudit-activity_khi.json
	bq-ndjson:tests/corpus/results/bq-cloudaudit-activity_khi.ndjson
	bq-csv:tests/corpus/results/bq-cloudaudit-activity_khi_console.csv
	athena-csv:tests/corpus/results/athena-eks-audit-firehose_eks-lease-blog.csv
	shape-mixed:tests/corpus/shapes/gh-fdb-operator-573_kubectl-logs_mixed.log
	shape-mixed-rfc3339:tests/corpus/shapes/gh-gke-autoneg-95_kubectl-logs_mixed-rfc3339.log
	shape-rancher:tests/corpus/shapes/issue-17_rancher-ui-export_kcm.log
	shape-journal-ko:tests/corpus/shapes/glibc-ko_KR_journal_kubelet.log
	shape-journal-de:tests/corpus/shapes/glibc-de_DE_journal_kubelet.log
	shape-journal-ru:tests/corpus/shapes/glibc-ru_RU_journal_kubelet.log
	shape-rsyslog-cri:tests/corpus/shapes/rke2-rsyslog-imfile_cri-forwarded.log
	shape-wrapped-journal:tests/corpus/kubelet/gh-pahud-eks-templates-1_journal_hard-wrapped.log
)
# the query engines' result exports of a few sample lines (samples/cloud-export.c), short rows
# that fit a seed whole
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
${CC:-cc} -std=c11 -O1 -o "$results/cloud-export" samples/cloud-export.c
head -4 samples/audit/kube-apiserver-audit.1.log >"$results/audit.log"
for shape in la-json la-csv azdiag-csv bq-ndjson bq-csv athena-csv; do
	"$results/cloud-export" --to "$shape" <"$results/audit.log" >"$results/$shape"
	sources+=("gen-$shape:$results/$shape")
done
head -4 samples/logs/kube-controller-manager.ip-172-16-33-232.ec2.internal.log >"$results/kcm.log"
"$results/cloud-export" --to la-cp-json --year 2024 <"$results/kcm.log" >"$results/la-cp-json"
sources+=("gen-la-cp-json:$results/la-cp-json")
"$results/cloud-export" --to la-rest <"$results/audit.log" >"$results/la-rest"
sources+=("gen-la-rest:$results/la-rest")
# corpus shapes no seed reached before: untimed lines (a component's stderr above klog), klog
# fragments, zoned and localized journal headers, OpenShift's audit, kubectl logs, syslog quotes
sources+=(
	untimed-flag:tests/corpus/kubelet/gh-kubernetes-76069_kubectl-logs_kcm_flag-deprecated.log
	klog-fragments:tests/corpus/kubelet/gh-kubernetes-83230_klog-fragments_lease.log
	journal-zh:tests/corpus/kubelet/gh-kubesphere-1657_journal_cst-begin-only_zh-locale.log
	journal-cst:tests/corpus/kubelet/gh-etcd-backup-readme_journal_cst-header.log
	audit-openshift:tests/corpus/audit/openshift-clo_apiaudit_audit_in.log
	kubectl-logs:tests/corpus/kubelet/burntcarrot-k8sensus_usage_kubectl-logs-qwxj6.log
	syslog-quotes:tests/corpus/kubelet/kubeadm-1.25-note_syslog_unescaped-quotes.log
)

i=0
for s in "${sources[@]}"; do
	name=${s%%:*} file=${s#*:}
	# input: plain, gzip, members, cut, damaged in turn; read sizes vary
	seed input "$name" "\\$(printf %03o $((i % 5 + 5 * (i % 3))))\\$(printf %03o $((i * 7 % 128)))" "$file"
	# sniff: plain or gzip, under each name in turn; sink options vary
	seed sniff "$name" "\\$(printf %03o $(((i % 8) * 8 + (i % 2))))\\$(printf %03o $((i * 37 % 256)))" "$file"
	# index: plain (grown and edited) mostly, gzip now and then
	seed index "$name" "\\$(printf %03o $((i % 4 == 3 ? 1 : (i % 3) * 2)))\\$(printf %03o $((128 + i * 5 % 120)))" "$file"
	i=$((i + 1))
done
# the parser reads them as they are
for s in "${sources[@]}"; do
	seed parser "${s%%:*}" "" "${s#*:}"
done
# the container logs (CRI and docker json-file) only the unit tests hold: a few lines of each
mkdir -p "$out/parser" "$out/sniff"
printf '%s\n' \
	'2024-04-05T05:50:33.938270123Z stderr F I0405 05:50:33.938174    3787 kubelet.go:2528] "SyncLoop (probe)" probe="liveness"' \
	'2024-04-05T05:50:34.000000000Z stderr P E0405 05:50:34.000000    3787 controller.go:145] "Failed to ensure lease exists, will retry" err="' \
	'2024-04-05T05:50:34.000000001Z stderr F leases.coordination.k8s.io \"ip-10-0-241-74.ec2.internal\" not found" interval="7s"' \
	>"$out/parser/seed-cri"
printf '\010\000' | cat - "$out/parser/seed-cri" >"$out/sniff/seed-cri"
printf '%s\n' \
	'{"log":"E0405 05:50:34.000000       1 leaderelection.go:332] error retrieving resource lock kube-system/kube-controller-manager: Get \"https://10.0.0.1/apis\": dial tcp: i/o timeout\n","stream":"stderr","time":"2024-04-05T05:50:34.000000001Z"}' \
	'{"ts":1712296234000.5,"caller":"nodelease/controller.go:145","msg":"failed to update lease","err":"context deadline exceeded","v":0}' \
	>"$out/parser/seed-docker-json"
printf '\020\000' | cat - "$out/parser/seed-docker-json" >"$out/sniff/seed-docker-json"
# hard-wrapped audit JSON lines (a newline inside a string joins the record's lines)
head -2 samples/audit/kube-apiserver-audit.1.log | fold -w 150 >"$out/parser/seed-wrapped-audit"
printf '\030\000' | cat - "$out/parser/seed-wrapped-audit" >"$out/sniff/seed-wrapped-audit"

# queries: an audit excerpt of one node's lease with that node's kubelet journal and the
# controller manager, in the same minutes; thresholds and ranges vary by the first byte.
# Up to 8 KiB a part: a lifecycle needs a few renewals.
cap=8192
lease74=$(mktemp) nr16=$(mktemp)
trap 'rm -rf "$lease74" "$nr16" "$results"' EXIT
grep -m 12 'ip-10-0-241-74' samples/audit/kube-apiserver-audit.1.log >"$lease74"
grep -m 12 'ip-10-1-0-16' samples/notready/audit/kube-apiserver-audit.1.log >"$nr16"
seed queries lease-journal '\000' "$lease74" samples/logs/kubelet-ip-10-0-241-74.ec2.internal.log
seed queries lease-rr '\013' samples/variants/lease-requestresponse.log
seed queries notready '\057' "$nr16" samples/notready/logs/kubelet-ip-10-1-0-16.ec2.internal.log \
	samples/notready/logs/kube-controller-manager.log
seed queries kcm-gc '\201' tests/corpus/audit/eks-lease-blog_audit_pretty_node-delete-lease-gc.json \
	tests/corpus/kubelet/eks-lease-blog_kube-controller-manager_gc-node-deletion.log \
	tests/corpus/kubelet/eks-lease-blog_kubelet_journal_node-deleted.log
seed queries cw '\376' samples/cloudwatch/filter-log-events.json
seed queries audit '\111' samples/audit/kube-apiserver-audit.2.log
# several clusters: one node's lease as AKS diagnostic records (resourceId) and as GKE log
# entries (cluster_name), with its journal; the result exports; the text shapes; untimed lines
grep -m 8 'kube-node-lease/leases/ip-10-0-241-74' samples/audit/kube-apiserver-audit.1.log \
	>"$results/lease74"
"$results/cloud-export" --to aks-lines <"$results/lease74" >"$results/aks-lease"
"$results/cloud-export" --to gke-lines <"$results/lease74" >"$results/gke-lease"
seed queries clusters '\000' "$results/aks-lease" "$results/gke-lease" \
	samples/logs/kubelet-ip-10-0-241-74.ec2.internal.log
"$results/cloud-export" --to la-rest <"$results/lease74" >"$results/la-rest-lease"
"$results/cloud-export" --to bq-ndjson <"$nr16" >"$results/bq-nr16"
seed queries results '\013' "$results/la-rest-lease" "$results/bq-nr16" "$results/la-cp-json"
seed queries shapes '\057' tests/corpus/shapes/gh-fdb-operator-573_kubectl-logs_mixed.log \
	tests/corpus/shapes/issue-17_rancher-ui-export_kcm.log \
	tests/corpus/shapes/rke2-rsyslog-imfile_cri-forwarded.log
seed queries untimed '\001' "$nr16" \
	tests/corpus/kubelet/gh-kubernetes-76069_kubectl-logs_kcm_flag-deprecated.log \
	tests/corpus/kubelet/gh-pahud-eks-templates-1_journal_hard-wrapped.log
echo "seeds written under $out"
