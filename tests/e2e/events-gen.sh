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

# top: the counts add up to events', per key as SQL groups them
for by in user verb resource code source-ip user-agent; do
	sum=$("$bin" top --db s.db --by "$by" --limit 0 -o csv | sed 1d | awk -F, '{ s += $(NF - 3) } END { print s + 0 }')
	[ "$sum" = "$(rows events)" ] || fail "top --by $by: the counts add up to $sum"
done
first=$("$bin" top --db s.db --by user --limit 1 -o csv | sed 1d | cut -d, -f1-3)
want=$(one "SELECT user, count(*), sum(code >= 400) FROM events GROUP BY user ORDER BY count(*) DESC, user LIMIT 1")
[ "$first" = "$want" ] || fail "top --by user: first row '$first', SQL says '$want'"
[ "$(rows top --by verb --limit 2)" = 2 ] || fail "top --limit 2"

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
echo "e2e events-gen: ok (filters and top against SQL on lt-gen's logs, kubelet identities, usage errors)"
