#!/usr/bin/env bash
# `events` and `top` on generated logs (lt-gen: EKS-shaped, every kubelet with its instance
# role's session ARN in user.extra, noise on other resources): every answer is checked against
# the same question asked of the events view in SQL; identities are the kubelets' own ARNs;
# usage errors exit 2.
#   bash tests/e2e/events-gen.sh BIN LT_GEN TMP
set -euo pipefail
bin=$1 gen=$2 tmp=$3
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
"$gen" --nodes 6 --minutes 10 --noise 5 --seed 7 -o audit.log
"$bin" ingest -q --all-resources --db s.db audit.log >/dev/null
one() { "$bin" sql --db s.db -o csv "$1" | sed 1d; }
rows() { "$bin" "$@" --db s.db -o csv | sed 1d | wc -l; }

# each filter against SQL over the events view (GLOB: the filters' '*')
check() { # WHAT WANT_SQL_WHERE ARGS...
	local what=$1 where=$2
	shift 2
	local got want
	got=$(rows events "$@")
	want=$(one "SELECT count(*) FROM events WHERE $where")
	[ "$got" = "$want" ] || fail "events $what: $got rows, SQL says $want"
	[ "$want" -gt 0 ] || fail "events $what: nothing to compare (the test tests nothing)"
}
check "all" "1"
check "--user system:node:*" "user GLOB 'system:node:*'" --user 'system:node:*'
check "--failed" "code >= 400" --failed
check "--verb get --resource pods" "verb = 'get' AND resource = 'pods'" --verb get --resource pods
check "--namespace kube-node-lease --code 200" "namespace = 'kube-node-lease' AND code = 200" \
	--namespace kube-node-lease --code 200
check "--slower-than 5ms" "latency_us >= 5000" --slower-than 5ms
check "--source-ip 10.*" "source_ip GLOB '10.*'" --source-ip '10.*'
# --resource and subresources, as kubectl names them: R is R with every subresource, R/SUB one,
# R/ the object alone, /SUB that subresource of any resource
check "--resource pods (and its subresources)" "resource = 'pods'" --resource pods
check "--resource pods/status" "resource = 'pods' AND subresource = 'status'" --resource pods/status
check "--resource pods/" "resource = 'pods' AND subresource IS NULL" --resource pods/
check "--resource 'pods/*'" "resource = 'pods' AND subresource IS NOT NULL" --resource 'pods/*'
check "--resource /status" "subresource = 'status'" --resource /status
check "--resource nodes/status" "resource = 'nodes' AND subresource = 'status'" --resource nodes/status
[ "$(rows top --by resource --resource nodes/status)" = 1 ] || fail "top --resource nodes/status"
# query NAME reads its resource column the same way (who-deleted: objects, no subresource)
[ "$(rows query who-deleted --resource nodes)" = "$(rows query who-deleted --resource nodes/)" ] ||
	fail "query who-deleted --resource nodes/ is not the Node objects' deletes"
[ "$(rows query who-deleted --resource nodes)" -gt 0 ] || fail "query who-deleted --resource nodes: none"
[ "$(rows query who-deleted --resource nodes/status)" = 0 ] ||
	fail "query who-deleted --resource nodes/status: a delete of a subresource"

# timeline under the quick filters, on every node: a row rests on a request the filters keep,
# and -v lists only those (checked against SQL); GAP, STALE and log rows are left out
nodes=$(one "SELECT DISTINCT name FROM events WHERE resource = 'nodes'")
[ -n "$nodes" ] || fail "no node to draw a timeline of"
tl() { "$bin" timeline --db s.db -o csv "$@" | sed 1d; }
for n in $nodes; do
	kinds=$(tl "$n" --verb delete | cut -d, -f4 | sort -u | tr '\n' ' ')
	want=$(one "SELECT DISTINCT CASE resource WHEN 'nodes' THEN 'NODE_DELETED' ELSE 'DELETED' END
		FROM events WHERE verb = 'delete' AND code < 300 AND name = '$n' ORDER BY 1" | tr '\n' ' ')
	[ "$kinds" = "$want" ] || fail "timeline $n --verb delete: kinds '$kinds', SQL says '$want'"
	# -v under a filter: the request rows are exactly the node's status patches by its kubelet
	got=$(tl "$n" -v --user "system:node:$n" --resource nodes/status | awk -F, '$4 == "event"' |
		grep -o '(event [0-9]*)' | sort -u | wc -l)
	want=$(one "SELECT count(*) FROM events WHERE resource = 'nodes' AND subresource = 'status'
		AND name = '$n' AND user = 'system:node:$n'")
	[ "$got" = "$want" ] || fail "timeline $n -v --resource nodes/status: $got requests, SQL says $want"
	tl "$n" -v --failed >failed.csv
	if awk -F, '$4 == "event" && $6 !~ /^[a-z]+ [45][0-9][0-9] /' failed.csv | grep -q .; then
		fail "timeline $n -v --failed lists a request that did not fail"
	fi
	if cut -d, -f3,4 failed.csv | grep -Eq '^(audit,(GAP|STALE)|[^a].*)$'; then
		fail "timeline $n --failed keeps a row no request makes"
	fi
	# every row kept is followed by a request the filter keeps
	awk -F, '$4 != "event" { if (open) bad = 1; open = 1 } $4 == "event" { open = 0 }
		END { exit bad || open }' failed.csv || fail "timeline $n -v --failed: a row with no failed request"
done
[ "$(tl "$(echo "$nodes" | head -1)" --user nobody-at-all | wc -l)" = 0 ] || fail "timeline --user nobody: rows"

# top: the counts add up to events', per key as SQL groups them
for by in user verb resource code source-ip user-agent; do
	sum=$("$bin" top --db s.db --by "$by" --limit 0 -o csv | sed 1d | awk -F, '{ s += $(NF - 3) } END { print s + 0 }')
	[ "$sum" = "$(rows events)" ] || fail "top --by $by: the counts add up to $sum"
done
first=$("$bin" top --db s.db --by user --limit 1 -o csv | sed 1d | cut -d, -f1-3)
want=$(one "SELECT user, count(*), sum(code >= 400) FROM events GROUP BY user ORDER BY count(*) DESC, user LIMIT 1")
[ "$first" = "$want" ] || fail "top --by user: first row '$first', SQL says '$want'"
[ "$(rows top --by verb --limit 2)" = 2 ] || fail "top --limit 2"
users=$(one "SELECT count(DISTINCT user) FROM events")
[ "$(rows top --by user)" = $((users < 20 ? users : 20)) ] ||
	fail "top without --limit: not the 20 biggest of $users users ($(rows top --by user))"
[ "$(rows top --by user --limit 0)" = "$users" ] || fail "top --limit 0: not every user"

# every kubelet's requests carry its instance's session ARN, named by the instance it runs on
bad=$(one "SELECT count(*) FROM events WHERE user GLOB 'system:node:*'
	AND (identity IS NULL OR identity NOT GLOB 'arn:aws:sts::*:assumed-role/*/i-*')")
[ "$bad" = 0 ] || fail "$bad kubelet requests without their instance's ARN"
[ "$(one "SELECT count(DISTINCT identity) FROM events WHERE user GLOB 'system:node:*'")" = \
	"$(one "SELECT count(DISTINCT user) FROM events WHERE user GLOB 'system:node:*'")" ] ||
	fail "kubelets and their identities are not one to one"
"$bin" events --db s.db --user 'system:node:*' -o jsonl >nodes.jsonl
head -1 nodes.jsonl | grep -q '"identity":"arn:aws:sts::' ||
	fail "events -o jsonl carries no identity"

# usage errors: exit 2, saying what is wrong
usage() { # WHAT ARGS...
	local what=$1 st=0
	shift
	"$bin" "$@" --db s.db >/dev/null 2>err.txt || st=$?
	[ "$st" = 2 ] || fail "$what: exit $st, want 2"
	[ -s err.txt ] || fail "$what: no message"
}
usage "top without --by" top
usage "top --by bogus" top --by bogus
usage "--code abc" events --code abc
usage "--code 1000" events --code 1000
usage "--limit -1" top --by user --limit -1
usage "--slower-than soon" events --slower-than soon
usage "--user on nodes" nodes --user x
usage "timeline --emit with a filter" timeline --emit cwli --user x some-node
echo "e2e events-gen: ok (filters, --resource R/SUB, timeline under filters and top against SQL on lt-gen's logs, kubelet identities, usage errors)"
