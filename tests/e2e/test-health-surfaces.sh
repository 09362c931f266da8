#!/usr/bin/env bash
# Node health's surfaces against golden files: `nodes`, `query not-ready` (table, JSON, a range),
# `query evictions` and `timeline NODE` on samples/notready (a window still open at the end with
# its evictions, one ended by the node's deletion, the kubelet's reasons) and on the hand-written
# two-node incident tests/e2e/health; `nodes` on kubelet journals alone; an eviction tied by a
# binding (tests/e2e/health-binding).  Ingest builds the windows.
#   bash tests/e2e/test-health-surfaces.sh BIN CORPUS SAMPLES TMP
#   UPDATE_GOLDEN=1 ... rewrites tests/golden/health-surfaces/.
set -euo pipefail
bin=$1 samples=$3 tmp=$4
here=$(cd "$(dirname "$0")" && pwd)
golden=$(cd "$here/../golden" && pwd)/health-surfaces
rm -rf "$tmp" && mkdir -p "$tmp" "$golden" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" ingest -q --db nr.db "$samples/notready/audit" "$samples/notready/logs" >/dev/null
"$bin" ingest -q --db fx.db "$here/health" >/dev/null

# name | store | command
cases=$(cat <<'CASES'
nodes|nr|nodes
not-ready|nr|query not-ready
not-ready.json|nr|query -o json not-ready
not-ready-range|nr|query not-ready --since 2024-04-05T05:55:00Z --until 2024-04-05T05:56:30Z
evictions|nr|query evictions
timeline-open|nr|timeline ip-10-1-0-10.ec2.internal
timeline-deleted|nr|timeline ip-10-1-0-16.ec2.internal
timeline-runtime|nr|timeline ip-10-1-0-13.ec2.internal
fixture-nodes|fx|nodes
fixture-not-ready|fx|query not-ready
fixture-timeline|fx|timeline ip-10-0-1-11.ec2.internal
CASES
)
while IFS='|' read -r name db cmd; do
  # shellcheck disable=SC2086
  "$bin" $cmd --db "$db.db" >"$name.out" || fail "$cmd exited $?"
  if [ "${UPDATE_GOLDEN:-}" = 1 ]; then cp "$name.out" "$golden/$name.txt"; fi
  diff -u "$golden/$name.txt" "$name.out" || fail "$name differs from $golden/$name.txt"
done <<<"$cases"

# 16's lease delete (the GC's) was logged 108 ms before its Node's delete, by the apiserver
# whose clock runs 249 ms behind: on the estimated clocks the story reads cause first
order=$(awk '$4 == "NODE_DELETED" || $4 == "DELETED" { print $4 }' timeline-deleted.out | tr '\n' ' ')
[ "$order" = "NODE_DELETED DELETED " ] || fail "timeline-deleted: '$order', want the node delete first"

# the facts the goldens hold, said outright
grep -q '"node":"ip-10-1-0-10.ec2.internal","start":"[^"]*","end":null' not-ready.json.out \
  || fail "an open window's end is not null"
for key in node start end condition cause evidence taints evicted_pods; do
  grep -q "\"$key\":" not-ready.json.out || fail "no key $key in not-ready -o json"
done
grep -q '^ip-10-1-0-10.ec2.internal *not-ready *1 ' nodes.out || fail "10 is not not-ready"
grep -q '^ip-10-1-0-16.ec2.internal *deleted *1 ' nodes.out || fail "16 (deleted) lost its state"
grep -q 'not attributable' evictions.out || fail "the unattributable eviction"
# an evicted pod's node from the scheduler's binding (stored with --all-resources, its node in
# the Request-level body); a pod nothing places stays not attributable
"$bin" ingest -q --all-resources --db bind.db "$here/health-binding" >/dev/null
"$bin" query evictions -o csv --db bind.db >bind.out || fail "evictions (bindings) exited $?"
grep -q '^[^,]*,prod/web-1,ip-10-9-0-1,' bind.out || fail "web-1's binding: $(cat bind.out)"
grep -q '^[^,]*,prod/db-0,not attributable,' bind.out || fail "db-0 has no binding: $(cat bind.out)"
# kubelet journals alone: every node is listed, `logs-only`, or `not-ready` when still so
"$bin" ingest -q --db logs.db --year 2024 "$samples"/notready/logs/kubelet-*.log >/dev/null
"$bin" nodes --db logs.db >logs-nodes.out || fail "nodes on a logs-only store exited $?"
[ "$(sed 1d logs-nodes.out | wc -l)" -eq "$(ls "$samples"/notready/logs/kubelet-*.log | wc -l)" ] \
  || fail "nodes of a logs-only store: $(cat logs-nodes.out)"
sed 1d logs-nodes.out | grep -qv ' logs-only \| not-ready ' && fail "logs-only states: $(cat logs-nodes.out)"
grep -q 'NOT_READY .*cause instance-terminated.*deleted by the cloud controller' \
  timeline-deleted.out || fail "16's window does not name the cloud controller"
grep -q 'NOT_READY .*kubelet: container runtime is down' timeline-runtime.out \
  || fail "13's window does not give the kubelet's reason"
echo "e2e health surfaces: ok"
