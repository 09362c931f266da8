#!/usr/bin/env bash
# clusters.sh - several clusters in one store (docs/formats.md, "Several clusters").
# Usage: clusters.sh LEASETRAIL LT_GEN CLOUD_EXPORT TMPDIR
# Six clusters from four sources into one store: two lt-gen clusters (different seeds) named
# by --cluster at ingest; a Logs Insights JSON export whose rows come from two log groups
# (/aws/eks/cw-a/cluster and /aws/eks/cw-b/cluster, the same requests in each: same lease
# and node names, same auditIDs); a GKE sink whose entries name two cluster_names; an S3
# export under aws/eks/s3c/cluster/.  Each cluster's leases, episodes and nodes must be what
# a store of that cluster alone makes (nothing mixes); --cluster filters nodes, query and
# timeline; an unknown name is exit 1 with the nearest; --cluster at ingest wins over what the
# file names; a store of one cluster shows no CLUSTER column.
set -euo pipefail
bin=$1 gen=$2 conv=$3 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
q() { "$bin" sql -o csv --db "$1" "$2" | tail -n +2; }
same() { # WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1: got
$2
want
$3"
}

"$gen" --nodes 3 --minutes 8 --seed 1 -o a.log
"$gen" --nodes 3 --minutes 8 --seed 2 -o b.log
"$gen" --nodes 2 --minutes 8 --seed 3 -o c.log
"$gen" --nodes 2 --minutes 8 --seed 4 -o d.log

# A Logs Insights console JSON export of two log groups: c.log's requests under each.
{
	echo "["
	for g in cw-a cw-b; do
		awk -v g="$g" '{
			match($0, /"stageTimestamp":"[^"]*"/)
			printf "%s{\"@timestamp\":\"%s\",\"@message\":%s,\"@logStream\":\"kube-apiserver-audit-1\",\"@log\":\"123456789012:/aws/eks/%s/cluster\"}\n",
				(g == "cw-b" || NR > 1) ? "," : "", substr($0, RSTART + 18, RLENGTH - 19), $0, g
		}' c.log
	done
	echo "]"
} >cw.json
# A GKE sink (JSON lines) of d.log's entries, as two clusters.
"$conv" --to gke-lines <d.log >d.gke.json
{
	sed 's/"cluster_name":"sample-cluster"/"cluster_name":"gke-a"/' d.gke.json
	sed 's/"cluster_name":"sample-cluster"/"cluster_name":"gke-b"/' d.gke.json
} >gke.json
grep -q '"cluster_name":"gke-b"' gke.json || fail "the GKE sink names no cluster"
# An S3 export: PREFIX/TASK/STREAM/000000.gz, the prefix the log group's name.
mkdir -p export/aws/eks/s3c/cluster/0f1e2d3c/kube-apiserver-audit-1
gzip -nc a.log >export/aws/eks/s3c/cluster/0f1e2d3c/kube-apiserver-audit-1/000000.gz

"$bin" ingest -q --db all.db --cluster alpha a.log >/dev/null
"$bin" ingest -q --db all.db --cluster beta b.log >/dev/null
"$bin" ingest -q --db all.db cw.json gke.json export >/dev/null
# each cluster alone, for comparison
for one in a b c d; do "$bin" ingest -q --db "$one.db" "$one.log" >/dev/null; done

same "clusters" "$("$bin" __complete clusters --db all.db | tr '\n' ' ')" \
	"alpha beta cw-a cw-b gke-a gke-b s3c "
same "sources' clusters" "$(q all.db "SELECT count(*) FROM sources WHERE cluster_id IS NULL")" 2

# leases, episodes: per cluster what the cluster alone makes
lease_cols="namespace, name, kind, state, first_us, last_us, renews, creates, deletes,
  not_found, conflicts, gaps, max_gap_us, holder"
ep_cols="namespace, name, kind, start_us, end_us, count, user, first_event IS NOT NULL"
for pair in alpha:a beta:b cw-a:c cw-b:c gke-a:d gke-b:d s3c:a; do
	c=${pair%%:*} one=${pair#*:}
	same "$c: leases" "$(q all.db "SELECT $lease_cols FROM leases WHERE cluster = '$c'
		ORDER BY namespace, name")" \
		"$(q "$one.db" "SELECT $lease_cols FROM leases ORDER BY namespace, name")"
	same "$c: episodes" "$(q all.db "SELECT $ep_cols FROM episodes WHERE cluster = '$c'
		ORDER BY namespace, name, start_us, kind")" \
		"$(q "$one.db" "SELECT $ep_cols FROM episodes ORDER BY namespace, name, start_us, kind")"
done
same "kube-scheduler leases" "$(q all.db "SELECT count(*) FROM leases
	WHERE namespace = 'kube-system' AND name = 'kube-scheduler'")" 7
# a node name in two clusters is two nodes
same "cw-a and cw-b nodes" "$(q all.db "SELECT count(*) FROM nodes WHERE cluster LIKE 'cw-%'")" \
	"$((2 * $(q c.db "SELECT count(*) FROM nodes")))"

# --cluster filters: nodes (a CLUSTER column first, the rest as alone), the queries over
# leases and episodes (those over single requests read every cluster: docs/formats.md), timeline
"$bin" nodes --db all.db | head -1 | grep -q '^CLUSTER  *NODE' || fail "no CLUSTER column"
same "nodes --cluster beta" "$("$bin" nodes --db all.db -o csv --cluster beta | cut -d, -f2-)" \
	"$("$bin" nodes --db b.db -o csv)"
same "nodes --cluster: every row of it" \
	"$("$bin" nodes --db all.db -o csv --cluster gke-b | tail -n +2 | cut -d, -f1 | sort -u)" gke-b
"$bin" nodes --db all.db -o json --cluster cw-a | grep -q '^{"cluster":"cw-a","node":' \
	|| fail "nodes -o json: no cluster key"
for query in leader-changes renew-gaps slow-renewals auth-failures; do
	same "query $query --cluster alpha" \
		"$("$bin" query --db all.db --cluster alpha "$query")" "$("$bin" query --db a.db "$query")"
done
# (the gaps that end with the logs aside: the end of the logs is the store's, all clusters')
same "query --gap --cluster" \
	"$("$bin" query --db all.db -o csv --cluster cw-b --gap 3s renew-gaps | awk -F, '$5 != ""')" \
	"$("$bin" query --db c.db -o csv --gap 3s renew-gaps | awk -F, '$5 != ""')"
same "timeline --cluster" \
	"$("$bin" timeline --db all.db --cluster gke-a kube-system/kube-scheduler)" \
	"$("$bin" timeline --db d.db kube-system/kube-scheduler)"

# an unknown cluster: exit 1, with the nearest name
set +e
"$bin" nodes --db all.db --cluster betta >/dev/null 2>err
rc=$?
set -e
same "unknown cluster: status" "$rc" 1
grep -q "no cluster 'betta' in all.db; did you mean 'beta'?" err || fail "unknown cluster: $(cat err)"
set +e
"$bin" query --db all.db --cluster 'a b' leader-changes >/dev/null 2>err
rc=$?
set -e
same "a name no cloud gives: status" "$rc" 2

# --cluster at ingest wins over what the file names
"$bin" ingest -q --db forced.db --cluster mine gke.json cw.json >/dev/null
same "forced" "$("$bin" __complete clusters --db forced.db)" mine
same "forced: one lease each" "$(q forced.db "SELECT count(*) FROM leases
	WHERE namespace = 'kube-system' AND name = 'kube-scheduler'")" 1

# one cluster: no CLUSTER column anywhere, named or not
"$bin" nodes --db forced.db | head -1 | grep -q '^NODE ' || fail "one cluster: a CLUSTER column"
"$bin" nodes --db a.db -o json | grep -q '"cluster"' && fail "no cluster: a cluster key"
echo "clusters: 7 clusters from 4 sources kept apart; --cluster filters; ok"
