#!/usr/bin/env bash
# health-gke.sh - node health from GKE's envelope: the Node bodies of a Cloud Logging LogEntry
# lie at protoPayload.response (protoPayload.request), not at responseObject (requestObject).
# Usage: health-gke.sh LEASETRAIL LT_GEN CLOUD_EXPORT HEALTH_EVAL TMPDIR
# One lt-gen cluster at RequestResponse level (every NotReady story: the kubelet's Ready=False
# messages and the new boot ID are in the bodies alone), its audit log written as GKE
# LogEntries by cloud-export, ingested audit only: the windows must be measured as right as
# from the plain audit log (health-eval against the truth), with the same cause, reason,
# taints and end, and `timeline NODE` must name the same taints.
set -euo pipefail
lt=$1 gen=$2 export=$3 eval=$4 tmp=$5
rm -rf "$tmp" && mkdir -p "$tmp/logs" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$gen" --health all --seed 1 --nodes 10 --minutes 40 --level RequestResponse \
	-o audit.log --journal-dir logs --kcm-log logs/kube-controller-manager.log --truth truth.tsv
for f in 1 2; do "$export" --to gke-lines <"audit.log.$f" >"gke.$f.json"; done
grep -q '"protoPayload":{.*"response":{"kind":"Node"' gke.1.json || fail "no Node body in a LogEntry"
"$lt" ingest -q --db plain.db audit.log.1 audit.log.2 >/dev/null
"$lt" ingest -q --db gke.db gke.1.json gke.2.json >/dev/null
"$eval" gke.db truth.tsv audit-rr || fail "GKE windows against the truth"

# the same story through both envelopes: every window's facts but its times (a LogEntry has
# no requestReceivedTimestamp, so the clock-skew estimate and the start move by a ms or two)
facts() {
	"$lt" query not-ready -o json --db "$1" |
		jq -r '.[] | [.node, .ended, .condition, .cause, .reason, .evidence, .taints,
			.evicted_pods] | map(tostring) | join("|")'
}
facts plain.db >plain.facts
facts gke.db >gke.facts
[ "$(wc -l <plain.facts)" -ge 9 ] || fail "plain windows: $(cat plain.facts)"
diff -u plain.facts gke.facts || fail "GKE windows differ from the plain audit log's"
grep -q '|container-runtime-down|container runtime is down|' gke.facts ||
	fail "the kubelet's Ready=False message from a GKE body: $(cat gke.facts)"
grep -q '|node-rebooted|' gke.facts || fail "a new boot ID from a GKE body: $(cat gke.facts)"
for n in 10 12 14; do
	node=ip-10-1-0-$n.ec2.internal
	"$lt" timeline --db plain.db "$node" | grep -o 'taints added.*' >"plain-$n.taints" || true
	"$lt" timeline --db gke.db "$node" | grep -o 'taints added.*' >"gke-$n.taints" || true
	[ -s "plain-$n.taints" ] || fail "$node: no taint rows in the plain timeline"
	diff -u "plain-$n.taints" "gke-$n.taints" || fail "$node: GKE timeline taints differ"
done
echo "e2e health gke: ok"
