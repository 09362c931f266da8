#!/usr/bin/env bash
# Lifecycle commands on the samples: every canned query, `nodes`, and timelines, against
# golden files; ingesting the files in another order must give the same answers.
#   UPDATE_GOLDEN=1 bash tests/e2e/test-queries.sh BIN CORPUS SAMPLES TMP  rewrites them.
set -euo pipefail
bin=$1 samples=$3 tmp=$4
golden=$(cd "$(dirname "$0")/../golden/queries" && pwd)
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
a=$samples/audit/kube-apiserver-audit.1.log b=$samples/audit/kube-apiserver-audit.2.log
rr=$samples/variants/lease-requestresponse.log

# one cluster, its two apiservers' files in either order
"$bin" ingest -q --db fwd.db "$a" "$b" >/dev/null
"$bin" ingest -q --db rev.db "$b" >/dev/null
"$bin" ingest -q --db rev.db "$a" >/dev/null

# name | command
cases=$(cat <<'CASES'
nodes|nodes
nodes.json|nodes -o json
timeline-deleted-node|timeline ip-10-0-241-171.ec2.internal
timeline-lease-delete|timeline ip-10-0-241-74.ec2.internal
timeline-kcm|timeline kube-system/kube-controller-manager
timeline-kcm-gap20s|timeline --gap 20s kube-system/kube-controller-manager
timeline-deleted-node-v|timeline -v --since 2024-04-05T05:55:59Z --until 2024-04-05T05:56:30Z ip-10-0-241-171.ec2.internal
timeline-deleted-node-verb-delete|timeline --verb delete ip-10-0-241-171.ec2.internal
timeline-deleted-node-failed-v|timeline -v --failed --since 2024-04-05T05:56:00Z --until 2024-04-05T05:56:20Z ip-10-0-241-171.ec2.internal
timeline-deleted-node-kubelet-nodes-v|timeline -v --user system:node:ip-10-0-241-171.ec2.internal --resource nodes ip-10-0-241-171.ec2.internal
query-renew-gaps-gap10.35s|query renew-gaps --gap 10.35s
query-slow-renewals-slow12ms|query slow-renewals --slow 12ms
nodes-gap10.35s|nodes --gap 10.35s
CASES
)
for q in $("$bin" query --list | awk '{print $1}'); do cases+=$'\n'"query-$q|query $q"; done
cases+=$'\n'"query-recreations.csv|query -o csv recreations"

while IFS='|' read -r name cmd; do
  # shellcheck disable=SC2086
  "$bin" $cmd --db fwd.db >"$name.fwd" || fail "$cmd exited $?"
  # shellcheck disable=SC2086
  "$bin" $cmd --db rev.db >"$name.rev" || fail "$cmd (reverse order) exited $?"
  if [ "${UPDATE_GOLDEN:-}" = 1 ]; then cp "$name.fwd" "$golden/$name.txt"; fi
  diff -u "$golden/$name.txt" "$name.fwd" || fail "$name differs from tests/golden/queries/$name.txt"
  # event ids differ with ingest order; everything else must not (a column after one that
  # names an id is padded by the id's digits: blanks are squeezed)
  sed -E 's/\(event [0-9]+\)/(event N)/; s/[0-9]+$//; s/"event":[0-9]+/"event":N/; s/ +/ /g' "$name.fwd" >"$name.a"
  sed -E 's/\(event [0-9]+\)/(event N)/; s/[0-9]+$//; s/"event":[0-9]+/"event":N/; s/ +/ /g' "$name.rev" >"$name.b"
  diff -u "$name.a" "$name.b" >/dev/null || fail "$name depends on ingest order"
done <<<"$cases"

# Lease bodies (RequestResponse): the holder change is read, not inferred
"$bin" ingest -q --db rr.db "$rr" >/dev/null
for name in query-leader-changes-rr timeline-kcm-rr; do
  case $name in
    query-leader-changes-rr) cmd="query leader-changes" ;;
    timeline-kcm-rr) cmd="timeline kube-system/kube-controller-manager" ;;
  esac
  # shellcheck disable=SC2086
  "$bin" $cmd --db rr.db >"$name.out" || fail "$cmd exited $?"
  if [ "${UPDATE_GOLDEN:-}" = 1 ]; then cp "$name.out" "$golden/$name.txt"; fi
  diff -u "$golden/$name.txt" "$name.out" || fail "$name differs from tests/golden/queries/$name.txt"
done

# unknown names are clear errors
set +e
"$bin" query --db fwd.db no-such-query 2>err; s1=$?
"$bin" timeline --db fwd.db no-such-node 2>err2; s2=$?
set -e
[ "$s1" = 1 ] && grep -q "no canned query 'no-such-query'" err || fail "unknown query: $s1 $(cat err)"
[ "$s2" = 1 ] && grep -q "no lease or node named 'no-such-node'" err2 || fail "unknown node: $s2 $(cat err2)"
# the Node reads go through the cluster-scoped indexes (index-schema.c), not every Node
# request's row: the Node names from lt_node_names (kept at ingest, queries-node-names.c, not
# a DISTINCT over audit_names at every call), the Node creates and deletes through
# audit_verbs, and nothing walks audit_names
LEASETRAIL_EXPLAIN=1 "$bin" nodes --db fwd.db 2>nodes.plan >/dev/null
LEASETRAIL_EXPLAIN=1 "$bin" query node-registrations --db fwd.db 2>reg.plan >/dev/null
LEASETRAIL_EXPLAIN=1 "$bin" query who-deleted --db fwd.db 2>del.plan >/dev/null
grep -q 'SCAN lt_node_names' nodes.plan ||
  fail "nodes: the Node names not read from lt_node_names: $(cat nodes.plan)"
grep -q 'USING INDEX audit_verbs (resource_id=? AND verb_id=?)' nodes.plan ||
  fail "nodes: the Node deletes not read through audit_verbs: $(cat nodes.plan)"
if grep -q 'audit_names' nodes.plan; then fail "nodes reads audit_names: $(cat nodes.plan)"; fi
for p in reg.plan del.plan; do
  grep -q 'USING INDEX audit_verbs (resource_id=? AND verb_id=? AND stage_us>? AND stage_us<?)' "$p" ||
    fail "$p: the Node requests of one verb not read through audit_verbs: $(cat "$p")"
done
echo "e2e queries: ok"
