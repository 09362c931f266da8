#!/usr/bin/env bash
# Verdicts on real public logs (issue 15, items 3 and 5): the EKS blog's orphaned kubelet
# from audit and from its journal alone, and leader changes from a component's own log.
#   bash tests/e2e/test-verdicts.sh BIN CORPUS SAMPLES TMP
set -euo pipefail
bin=$1 corpus=$2 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
node=ip-10-29-79-205.ap-northeast-2.compute.internal

# 1. audit (one kubelet 404, 5m21s after the Node's deletion), journal and kcm log: the
# single 404 is an orphaned kubelet; the journal's seven not-found lines back it
"$bin" ingest -q --db eks.db "$corpus/audit/eks-lease-blog_audit_pretty_node-delete-lease-gc.json" \
  "$corpus/kubelet/eks-lease-blog_kubelet_journal_node-deleted.log" \
  "$corpus/kubelet/eks-lease-blog_kube-controller-manager_gc-node-deletion.log" >/dev/null
"$bin" query -o csv --db eks.db orphaned-kubelets >q.txt
grep -qx "$node,2024-04-05T06:04:14.668822Z,2024-04-05T06:04:14.668822Z,1,system:node:$node,10.29.79.205,2024-04-05T09:38:34.265363Z,no,\"audit, kubelet log\",2024-04-05T05:58:52.759205Z" q.txt \
  || fail "EKS orphaned kubelet (audit): $(cat q.txt)"

# 2. the journal alone: "Error updating node status" not found is logged only by a
# kubelet that had registered, so its run of not-found lines is orphaned; the later
# kubelet (another pid) means it is not orphaned still
"$bin" ingest -q --db j.db --year 2024 "$corpus/kubelet/eks-lease-blog_kubelet_journal_node-deleted.log" >/dev/null
"$bin" query -o csv --db j.db orphaned-kubelets >qj.txt
grep -qx "$node,2024-04-05T06:04:04.422460Z,2024-04-05T06:04:14.092890Z,7,,,,no,kubelet log," qj.txt \
  || fail "EKS orphaned kubelet (journal): $(cat qj.txt)"

# 3. leader changes from a pod's own log (client-go leaderelection.go:258, 1.22 era); the
# five banner lines before the klog lines are not log lines
rc=0
"$bin" ingest -q --db le.db --year 2021 "$corpus/kubelet/burntcarrot-k8sensus_usage_kubectl-logs-qwxj6.log" \
  >/dev/null 2>&1 || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "k8sensus ingest exited $rc"
"$bin" query -o csv --db le.db leader-changes >ql.txt
grep -qx "default,k8sensus-lease,2021-11-03T10:35:07.562421Z,,burntcarrot-k8sensus_usage_kubectl-logs-qwxj6.log,component log: successfully acquired lease," ql.txt \
  || fail "leader change from the log: $(cat ql.txt)"
echo "ok"
