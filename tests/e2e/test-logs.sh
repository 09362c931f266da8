#!/usr/bin/env bash
# Kubelet journals and controller-manager logs: the samples' stories on one merged
# timeline, the log-based canned queries, year rules, node attribution, idempotence.
#   UPDATE_GOLDEN=1 bash tests/e2e/test-logs.sh BIN CORPUS SAMPLES TMP  rewrites the goldens.
set -euo pipefail
# whether the input has a line that matches, read to its end (grep -q stops early: the
# writer then dies of SIGPIPE, and pipefail would take that as its failure)
seen() { [ "$(grep -c "$@")" != 0 ]; }
bin=$1 corpus=$2 samples=$3 tmp=$4
golden=$(cd "$(dirname "$0")/../golden/logs" && pwd)
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
check_golden() { # name, file
  if [ "${UPDATE_GOLDEN:-}" = 1 ]; then cp "$2" "$golden/$1.txt"; fi
  diff -u "$golden/$1.txt" "$2" || fail "$1 differs from tests/golden/logs/$1.txt"
}

# 1. one cluster: audit and logs in one go (logs named first: text logs are read last)
"$bin" ingest --db s.db "$samples/logs" "$samples/audit" >ingest.out 2>ingest.err \
  || fail "ingest exited $?"
[ ! -s ingest.err ] || fail "unexpected stderr: $(cat ingest.err)"
head -2 ingest.out | grep -q '^.*audit/kube-apiserver-audit.1.log: ingested' \
  || fail "audit files must be read before the logs: $(head -2 ingest.out)"
grep -q 'kubelet-ip-10-0-241-171.ec2.internal.log: ingested, 393 records, 393 stored, 0 duplicates, 0 skipped, 0 rejected' ingest.out \
  || fail "node-delete journal counts: $(grep 171 ingest.out)"
grep -q 'kube-controller-manager.ip-172-16-33-232.ec2.internal.log: ingested, 76 records, 76 stored' ingest.out \
  || fail "kcm log counts"

"$bin" timeline --db s.db ip-10-0-241-171.ec2.internal >tl-171.txt
check_golden timeline-node-delete tl-171.txt
# the story, in order: admin deletes the Node, the GC deletes the lease (audit and kcm log),
# the kubelet's lease and node errors, its 404s, its re-registration (the kubelet logs
# the attempt, the apiserver answers, then the kubelet logs the success)
order=$(awk '{print $3 "/" $4}' tl-171.txt | grep -n -e 'audit/NODE_DELETED' \
  -e 'kube-controller-manager/gc-deleting' -e 'audit/DELETED' -e 'kubelet/lease-update-failed' \
  -e 'kubelet/lease-owner-ref-failed' -e 'kubelet/register-attempt' -e 'audit/NODE_REGISTERED' \
  -e 'kubelet/register-success' | cut -d: -f2 | uniq | tr '\n' ' ')
[ "$order" = "audit/NODE_DELETED kube-controller-manager/gc-deleting audit/DELETED kubelet/lease-update-failed kubelet/lease-owner-ref-failed kubelet/register-attempt audit/NODE_REGISTERED kubelet/register-success " ] \
  || fail "node-delete story out of order: $order"
grep -q 'lease-owner-ref-failed *35 ' tl-171.txt || fail "35 owner-ref errors expected as one run"
grep -q 'Deleting item Lease kube-node-lease/ip-10-0-241-171.ec2.internal' tl-171.txt \
  || fail "the GC's lease delete line"

# a short host name (ip-10-0-241-74) is the node ip-10-0-241-74.ec2.internal
"$bin" timeline --db s.db ip-10-0-241-74.ec2.internal >tl-74.txt
grep -q 'kubelet .*lease-update-failed *5 ' tl-74.txt || fail "short host name not mapped to its node"
"$bin" sql -o csv --db s.db "SELECT DISTINCT host, node FROM logs WHERE host LIKE 'ip-10-0-241-74%'" >hosts.txt
grep -qx 'ip-10-0-241-74,ip-10-0-241-74.ec2.internal' hosts.txt || fail "hosts: $(cat hosts.txt)"

# leader election lines join the leader lease's timeline
"$bin" timeline --db s.db kube-system/kube-controller-manager >tl-kcm.txt
check_golden timeline-kcm tl-kcm.txt
grep -q 'leader-acquired .*successfully acquired lease kube-system/kube-controller-manager' tl-kcm.txt \
  || fail "leader-acquired line"

for q in kubelet-errors gc-deletes orphaned-kubelets; do
  "$bin" query --db s.db "$q" >"q-$q.txt"
  check_golden "query-$q" "q-$q.txt"
done
grep -q 'audit, kcm log' q-gc-deletes.txt || fail "gc-deletes should cite the kcm log too"

# with the logs alone, the kubelet's own not-found errors answer orphaned-kubelets; --since and
# --until keep the run when it overlaps them (05:56:04 to 06:01:56), shown whole
"$bin" ingest -q --db logs-only.db "$samples/logs" >/dev/null
for range in "" "--since 2024-04-05T05:59:00Z --until 2024-04-05T06:00:00Z" \
  "--since 2024-04-05T06:01:56.756864Z" "--until 2024-04-05T05:56:04.802076Z"; do
  # shellcheck disable=SC2086
  "$bin" query --db logs-only.db orphaned-kubelets $range >q-lo.txt
  grep -q '^ip-10-0-241-171.ec2.internal  2024-04-05T05:56:04.802076Z  2024-04-05T06:01:56.756864Z  245 .* kubelet log$' q-lo.txt \
    || fail "logs-only orphaned-kubelets $range: $(cat q-lo.txt)"
done
for range in "--since 2024-04-05T06:01:56.756865Z" "--until 2024-04-05T05:56:04.802075Z"; do
  # shellcheck disable=SC2086
  "$bin" query --db logs-only.db orphaned-kubelets $range >q-lo.txt
  [ "$(wc -l <q-lo.txt)" = 1 ] || fail "logs-only orphaned-kubelets $range: $(cat q-lo.txt)"
done

# show L<id>: the line exactly as read, with -v its file and line
id=$(grep -o 'line L[0-9]*' tl-171.txt | head -1 | cut -c7-)
"$bin" show --db s.db -v "L$id" | head -1 | grep -q '^# .*logs/kube.*log:[0-9]* (byte [0-9]*)$' \
  || fail "show -v L$id: $("$bin" show --db s.db -v "L$id" | head -1)"

"$bin" stats --db s.db | sed -n '/^Log lines (year/,/^$/p' >stats-logs.txt
check_golden stats-logs stats-logs.txt

# 2. idempotence: the same files add nothing; an overlapping copy stores no line twice
"$bin" ingest -q --db s.db "$samples/logs" >again.out
grep -q '5 files (5 duplicate' again.out || fail "re-ingest: $(cat again.out)"
j=$samples/logs/kubelet-ip-10-0-241-171.ec2.internal.log
{ sed -n '200,$p' "$j"; echo 'Apr 05 06:05:00 ip-10-0-241-171.ec2.internal kubelet[590263]: I0405 06:05:00.000001  590263 kubelet.go:1 "one new line"'; } >overlap.log
"$bin" ingest --db s.db overlap.log >overlap.out
grep -q 'overlap.log: ingested, 196 records, 1 stored, 195 duplicates' overlap.out \
  || fail "overlap: $(cat overlap.out)"

# 3. years: --year, the journal header, the file's mtime, and a December -> January rollover
ny=$samples/variants/kubelet-new-year.log
"$bin" ingest -q --db ny.db --year 2023 "$ny" >/dev/null
"$bin" sql -o csv --db ny.db "SELECT min(ts), max(ts), count(*) FROM logs" >ny.txt
grep -qx '2023-12-31T23:55:03.116074Z,2024-01-01T00:04:57.462016Z,68' ny.txt || fail "rollover with --year: $(cat ny.txt)"
# its journalctl header line dates it on its own
"$bin" ingest -q --db hdr.db "$ny" >/dev/null
"$bin" sql -o csv --db hdr.db "SELECT min(ts), max(ts), count(*) FROM logs" >hdr.txt
grep -qx '2023-12-31T23:55:03.116074Z,2024-01-01T00:04:57.462016Z,68' hdr.txt || fail "rollover by header: $(cat hdr.txt)"
"$bin" sql -o csv --db hdr.db "SELECT year, year_rule FROM log_sources" | seen -x '2023,journal header' \
  || fail "header rule: $("$bin" sql -o csv --db hdr.db "SELECT year, year_rule FROM log_sources")"
# without the header, the dates containerd writes in its lines (issue 15: they outrank the mtime)
grep -v '^-- ' "$ny" >said.log && touch -d '2026-01-01T00:10:00Z' said.log
"$bin" ingest -q --db said.db said.log >/dev/null 2>&1
"$bin" sql -o csv --db said.db "SELECT year, year_rule FROM log_sources" | seen -x '2023,a date in its lines' \
  || fail "line-date rule: $("$bin" sql -o csv --db said.db "SELECT year, year_rule FROM log_sources")"
# without those either, the file's mtime
grep -v -e '^-- ' -e 'time="' "$ny" >mtime.log && touch -d '2024-01-01T00:10:00Z' mtime.log
"$bin" ingest -q --db mt.db mtime.log >/dev/null
"$bin" sql -o csv --db mt.db "SELECT year, year_rule FROM log_sources" | seen -x '2023,file mtime' \
  || fail "mtime rule: $("$bin" sql -o csv --db mt.db "SELECT year, year_rule FROM log_sources")"

# --utc-offset: a node two hours east of UTC; a bad offset is a usage error
printf 'Apr 05 08:04:04 n1 kubelet[1]: I0405 08:04:04.123456       1 a.go:1] "local"\n' >tz.log
"$bin" ingest -q --db tz.db --year 2024 --utc-offset +02:00 tz.log >/dev/null
[ "$("$bin" sql -o csv --db tz.db "SELECT ts FROM logs" | tail -1)" = "2024-04-05T06:04:04.123456Z" ] \
  || fail "--utc-offset: $("$bin" sql -o csv --db tz.db "SELECT ts FROM logs")"
set +e
"$bin" ingest -q --db tz.db --utc-offset 2 tz.log >/dev/null 2>tz.err
[ $? = 2 ] && grep -q 'utc-offset takes an offset like' tz.err || fail "--utc-offset 2 accepted"
set -e

# --node: a bare klog file names no host; its lines belong to the node given
"$bin" ingest -q --db node.db --node 127.0.0.1 "$corpus/kubelet/gh-kubernetes-16353_raw-klog_kubelet_node-status.log" >/dev/null
[ "$("$bin" sql -o csv --db node.db "SELECT node, count(*) FROM logs GROUP BY node" | tail -1)" = "127.0.0.1,5" ] \
  || fail "--node: $("$bin" sql -o csv --db node.db "SELECT node, count(*) FROM logs GROUP BY node")"
"$bin" timeline --db node.db 127.0.0.1 >tl-node.txt
[ "$(grep -c 'kubelet  *node-status-error' tl-node.txt)" = 1 ] || fail "--node timeline: $(cat tl-node.txt)"

# 4. a static pod's log as the container runtime keeps it: CRI (/var/log/pods/NS_POD_UID/
# CONTAINER/0.log, with a line split in a P and an F part) and docker json-file (named as in
# /var/log/containers), both made from the kcm samples: the kcm lease's timeline is the one of
# the klog files
cri_of() { # klog file -> CRI lines; line 5 split in two parts
  awk '{ t = "2024-" substr($1, 2, 2) "-" substr($1, 4, 2) "T" $2 "123Z"
         if (NR == 5) { print t " stderr P " substr($0, 1, 20); print t " stderr F " substr($0, 21) }
         else print t " stderr F " $0 }' "$1"
}
docker_of() { # klog file -> docker json-file records
  awk '{ t = "2024-" substr($1, 2, 2) "-" substr($1, 4, 2) "T" $2 "123Z"; m = $0
         gsub(/\\/, "&&", m); gsub(/"/, "\\\"", m)
         print "{\"log\":\"" m "\\n\",\"stream\":\"stderr\",\"time\":\"" t "\"}" }' "$1"
}
for h in 33-232 40-128; do
  d=pods/kube-system_kube-controller-manager-ip-172-16-${h}_0f1e/kube-controller-manager
  mkdir -p "$d" docker/$h
  cri_of "$samples/logs/kube-controller-manager.ip-172-16-$h.ec2.internal.log" >"$d/0.log"
  # named as /var/log/containers names it: POD_NS_CONTAINER-ID.log
  docker_of "$samples/logs/kube-controller-manager.ip-172-16-$h.ec2.internal.log" \
    >"docker/$h/kube-controller-manager-ip-172-16-${h}_kube-system_kube-controller-manager-0f1e.log"
done
# line ids differ, and with them the padding of the IDENTITY column after DETAIL: squeezed
strip_ids() { sed -E 's/ \(line L[0-9]*\)//; s/ +/ /g' "$1"; }
strip_ids "$golden/timeline-kcm.txt" >kcm-want.txt
for fmt in pods docker; do
  "$bin" ingest --db "$fmt.db" "$samples/audit" "$fmt" >"$fmt.out" 2>"$fmt.err" || fail "$fmt ingest"
  [ ! -s "$fmt.err" ] || fail "$fmt: $(cat "$fmt.err")"
  "$bin" timeline --db "$fmt.db" kube-system/kube-controller-manager >"tl-$fmt.txt"
  strip_ids "tl-$fmt.txt" | diff -u kcm-want.txt - || fail "$fmt: the kcm timeline differs"
done
grep -q '0.log: ingested, 76 records, 76 stored' pods.out || fail "CRI parts: $(cat pods.out)"

# 5. the real kubelet and controller-manager logs, with the audit log of the same story
"$bin" ingest --db c.db "$corpus/kubelet" "$corpus/audit/eks-lease-blog_audit_pretty_node-delete-lease-gc.json" \
  >corpus.out 2>corpus.err || fail "corpus ingest failed ($?): $(cat corpus.err)"
# every line is kept: the header-less fragment at the time of the line after it
# (the CST headers' zone guesses are notes on stderr, not rejects: test-zones.sh checks them)
grep -v ': zone CST: CST means ' corpus.err >corpus.rej || true
[ ! -s corpus.rej ] || fail "the real logs must ingest without a rejected line: $(cat corpus.rej)"
frag=$("$bin" sql --db c.db -o csv "SELECT l.line AS a, l.ts_us = (SELECT ts_us FROM logs AS n"\
" WHERE n.source_id = l.source_id AND n.line = 2) AS b, l.severity IS NULL AS c, l.kind IS NULL AS d"\
" FROM logs AS l JOIN sources AS s ON s.id = l.source_id"\
" WHERE s.path LIKE '%klog-fragments_lease.log' AND l.line = 1" | tail -n +2)
[ "$frag" = "1,1,1,1" ] || fail "the header-less fragment: '$frag'"
"$bin" timeline --db c.db ip-10-29-79-205.ap-northeast-2.compute.internal >tl-corpus.txt
check_golden timeline-corpus tl-corpus.txt
echo "ok"
