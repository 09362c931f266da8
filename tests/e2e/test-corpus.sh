#!/usr/bin/env bash
# The real audit logs of tests/corpus ingest with exact counts, and a second run adds nothing.
set -euo pipefail
bin=$1 corpus=$2 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp"
db=$tmp/corpus.db
fail() { echo "FAIL: $*" >&2; exit 1; }

# one line per file: status, records, stored, duplicates, skipped, rejected
expect() {
  local file=$1 want=$2 got
  got=$(grep -F "$file:" "$tmp/out" | sed 's/^[^:]*: //' | cut -d' ' -f1-11 | tr -d ',')
  [ "$got" = "$want" ] || fail "$file: got '$got', want '$want'"
}

set +e
"$bin" ingest --db "$db" "$corpus/audit" >"$tmp/out" 2>"$tmp/err"
status=$?
set -e
[ "$status" = 3 ] || fail "exit status $status, want 3 (one file has a rejected record)"
expect audit2rbac_demo_v1beta1_raw_501d132.log "ingested 757 records 2 stored 0 duplicates 755 skipped 0 rejected"
expect eks-lease-blog_audit_pretty_node-delete-lease-gc.json "ingested 5 records 5 stored 0 duplicates 0 skipped 0 rejected"
expect falco_trace_k8s_audit_create_configmap_sensitive_values.json "ingested 6 records 0 stored 0 duplicates 6 skipped 0 rejected"
expect falco_trace_k8s_audit_fal_01_003.json "ingested 1 records 0 stored 0 duplicates 0 skipped 1 rejected"
expect kzmrv-logviewer_gce-scale-cluster_3lines.jsonl "ingested 3 records 3 stored 0 duplicates 0 skipped 0 rejected"
expect openshift-clo_apiaudit_audit_in.log "ingested 100 records 2 stored 0 duplicates 98 skipped 0 rejected"
grep -q 'falco_trace_k8s_audit_fal_01_003.json:1: rejected: not an audit event: "kind" is not a string' "$tmp/err" \
  || fail "the malformed falco file's reason is missing: $(cat "$tmp/err")"

# idempotent: the same files again add nothing
"$bin" ingest --db "$db" "$corpus/audit" >"$tmp/out2" 2>&1
grep -q '^6 files (6 duplicate' "$tmp/out2" || fail "re-ingest was not a no-op: $(tail -1 "$tmp/out2")"

# the EKS blog's five events, in file order, with their provenance
"$bin" stats --db "$db" >"$tmp/stats"
grep -q '^Requests: *12 ' "$tmp/stats" || fail "stats: $(grep Requests "$tmp/stats")"
grep -q '^Nodes seen: *4$' "$tmp/stats" || fail "stats nodes: $(grep 'Nodes seen' "$tmp/stats")"
"$bin" show --db "$db" -v 3 >"$tmp/show"
head -1 "$tmp/show" | grep -q 'eks-lease-blog_audit_pretty_node-delete-lease-gc.json:1 (byte 0)$' \
  || fail "show -v provenance: $(head -1 "$tmp/show")"
sed 1d "$tmp/show" | jq -e '.verb == "delete" and .objectRef.resource == "nodes"' >/dev/null \
  || fail "show did not print the node delete event"
echo "e2e corpus: ok"
