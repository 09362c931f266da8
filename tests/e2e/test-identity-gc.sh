#!/usr/bin/env bash
# An apiserver identity lease garbage-collected by another apiserver: `deleted` in the
# apiserver-identity query, as in the leases view, and not counted among the fresh ones.
set -euo pipefail
bin=$1 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
ev() { # auditID verb name stage-second
	printf '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"%s","stage":"ResponseComplete","requestURI":"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/%s","verb":"%s","user":{"username":"system:apiserver","groups":["system:masters"]},"sourceIPs":["::1"],"userAgent":"kube-apiserver/v1.29.0 (linux/amd64) kubernetes/3f7a50f","objectRef":{"resource":"leases","namespace":"kube-system","name":"%s","apiVersion":"v1","apiGroup":"coordination.k8s.io"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2024-04-05T06:%s.100000Z","stageTimestamp":"2024-04-05T06:%s.104000Z"}\n' \
		"$1" "$3" "$2" "$3" "$4" "$4"
}
{
	ev 0b5f0000-0000-4000-8000-000000000001 update apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa 00:00
	ev 0b5f0000-0000-4000-8000-000000000002 update apiserver-bbbbbbbbbbbbbbbbbbbbbbbbbb 00:01
	ev 0b5f0000-0000-4000-8000-000000000003 update apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa 00:10
	ev 0b5f0000-0000-4000-8000-000000000004 update apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa 00:20
	ev 0b5f0000-0000-4000-8000-000000000005 delete apiserver-bbbbbbbbbbbbbbbbbbbbbbbbbb 00:25
	ev 0b5f0000-0000-4000-8000-000000000006 update apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa 00:30
} >audit.log
"$bin" ingest -q --db s.db audit.log >/dev/null
"$bin" sql --db s.db -o csv "SELECT name, state FROM leases WHERE kind = 'apiserver-identity'
  ORDER BY name" >leases.csv
grep -q '^apiserver-bbbbbbbbbbbbbbbbbbbbbbbbbb,deleted$' leases.csv || fail "leases: $(cat leases.csv)"
"$bin" query --db s.db -o csv apiserver-identity >q.csv
grep -q '^apiserver-bbbbbbbbbbbbbbbbbbbbbbbbbb,.*,deleted,1$' q.csv || fail "query: $(cat q.csv)"
grep -q '^apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa,.*,fresh,1$' q.csv || fail "query: $(cat q.csv)"
