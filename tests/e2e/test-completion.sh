#!/usr/bin/env bash
# Shell completion (contrib/completion/): the bash function and the zsh one, each driven as
# the shell drives it (bash: COMP_WORDS/COMP_CWORD -> COMPREPLY; zsh: words/CURRENT ->
# compadd, stubbed to print), over a store of the samples: commands, a command's options
# (the same as its --help lists), -o values, canned query names, node and NAMESPACE/LEASE
# names from the store given by --db (prefix-filtered), and no hostile name ever offered.
# Usage: test-completion.sh BINARY CORPUS SAMPLES TMP
set -euo pipefail
bin=$(realpath "$1") samples=$3 tmp=$4
src=$(cd "$samples/.." && pwd)
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

"$bin" ingest -q --db s.db "$samples/audit" >/dev/null

# bash: the completions of a command line whose last word is being completed.
bash_complete() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _leasetrail
		printf "%s\n" "${COMPREPLY[@]}"' _ "$src/contrib/completion/leasetrail.bash" "$@" | sort
}

want() { # WHAT GOT EXPECTED
	[ "$2" = "$3" ] || fail "$1: got [$(tr '\n' ' ' <<<"$2")], want [$(tr '\n' ' ' <<<"$3")]"
}

want "bash: commands" "$(bash_complete "$bin" t)" "timeline
top
tui"
want "bash: all commands" "$(bash_complete "$bin" "" | tr '\n' ' ')" \
	"events help ingest nodes query rebuild report show sql stats timeline top tui version "
want "bash: top --by keys" "$(bash_complete "$bin" top --by "" | sort | tr '\n' ' ')" \
	"code resource source-ip user user-agent verb "
want "bash: --verb values" "$(bash_complete "$bin" events --verb del | tr '\n' ' ')" \
	"delete deletecollection "
want "bash: --resource values" "$(bash_complete "$bin" timeline --resource nodes | tr '\n' ' ')" \
	"nodes nodes/ nodes/status "
want "bash: timeline takes the quick filters" "$(bash_complete "$bin" timeline --fa)" "--failed"
want "bash: a filter's value is no command word" \
	"$(bash_complete "$bin" events --user 'system:node:*' --failed --sl)" "--slower-than"
want "bash: timeline options" "$(bash_complete "$bin" timeline --s)" "--since
--slow
--slower-than
--source-ip"
want "bash: the options are --help's" "$(bash_complete "$bin" nodes - | tr '\n' ' ')" \
	"$("$bin" nodes --help | awk '/^  -/ { for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w)
		if (w ~ /^-./) print w; else if (w ~ /[a-z]/) break } }' | sort | tr '\n' ' ')"
want "bash: -o values" "$(bash_complete "$bin" nodes -o j)" "json
jsonl"
want "bash: report -o values" "$(bash_complete "$bin" report -o "" | tr '\n' ' ')" "html md "
want "bash: report names" "$(bash_complete "$bin" report --db s.db -o html ip-10-0-241-1)" \
	"ip-10-0-241-171.ec2.internal"
want "bash: report options" "$(bash_complete "$bin" report --output-)" "--output-file"
want "bash: tui --no-mouse" "$(bash_complete "$bin" tui --no)" "--no-mouse"
want "bash: -o wide" "$(bash_complete "$bin" timeline -o w)" "wide"
want "bash: --tz zones" "$(bash_complete "$bin" timeline --tz Europe/Berl)" "Europe/Berlin"
want "bash: --tz local" "$(bash_complete "$bin" nodes --tz lo)" "local"
want "bash: after --tz ZONE, the command's arguments" \
	"$(bash_complete "$bin" timeline --db s.db --tz UTC ip-10-0-241-1)" "ip-10-0-241-171.ec2.internal"
want "bash: query names" "$(bash_complete "$bin" query --db s.db who)" "who-deleted"
want "bash: --emit engines" "$(bash_complete "$bin" query --emit "" | tr '\n' ' ')" \
	"athena bigquery cwli kql logging "
want "bash: --table values" "$(bash_complete "$bin" query --emit kql --table AKS | tr '\n' ' ')" \
	"AKSAudit AKSAuditAdmin "
want "bash: events after --emit" "$(bash_complete "$bin" query --emit kql ev | tr '\n' ' ')" \
	"events evictions "
want "bash: no events without --emit" "$(bash_complete "$bin" query ev)" "evictions"
want "bash: node names from --db" "$(bash_complete "$bin" timeline --db s.db ip-10-0-241-1)" \
	"ip-10-0-241-171.ec2.internal"
want "bash: lease names" "$(bash_complete "$bin" timeline --db=s.db kube-system/kube-)" \
	"kube-system/kube-controller-manager
kube-system/kube-scheduler"
want "bash: names from \$LEASETRAIL_DB" \
	"$(LEASETRAIL_DB=s.db bash_complete "$bin" timeline -o json ip-10-0-241-7)" \
	"ip-10-0-241-74.ec2.internal"
want "bash: no store, no names" "$(bash_complete "$bin" timeline --db nope.db ip)" ""
[ ! -e nope.db ] || fail "completion made a store"

# A hostile name in the store is never offered, and a quote in the prefix is only a prefix.
cat >evil.log <<'EOF'
{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"e1","stage":"ResponseComplete","requestURI":"/x","verb":"update","user":{"username":"u"},"sourceIPs":["1.2.3.4"],"objectRef":{"resource":"leases","namespace":"kube-node-lease","name":"ip-evil$(touch pwned)\u001b[31m","apiGroup":"coordination.k8s.io","apiVersion":"v1"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2024-04-05T05:50:00.000000Z","stageTimestamp":"2024-04-05T05:50:00.001000Z"}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"e2","stage":"ResponseComplete","requestURI":"/x","verb":"update","user":{"username":"u"},"sourceIPs":["1.2.3.4"],"objectRef":{"resource":"leases","namespace":"kube-node-lease","name":"ip-good","apiGroup":"coordination.k8s.io","apiVersion":"v1"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2024-04-05T05:50:01.000000Z","stageTimestamp":"2024-04-05T05:50:01.001000Z"}
EOF
"$bin" ingest -q --db evil.db evil.log >/dev/null
want "bash: hostile name skipped" "$(bash_complete "$bin" timeline --db evil.db ip-)" "ip-good"
want "bash: quote in prefix" "$(bash_complete "$bin" timeline --db evil.db "ip-'")" ""
[ ! -e pwned ] || fail "a name ran a command"

# --cluster offers the store's cluster names (two apiservers' files, as two clusters here).
"$bin" ingest -q --db two.db --cluster prod-east "$samples/audit/kube-apiserver-audit.1.log" >/dev/null
"$bin" ingest -q --db two.db --cluster prod-west "$samples/audit/kube-apiserver-audit.2.log" >/dev/null
want "bash: cluster names" "$(bash_complete "$bin" nodes --db two.db --cluster prod-)" "prod-east
prod-west"
want "bash: cluster names from a prefix" "$(bash_complete "$bin" query --db=two.db --cluster prod-w)" \
	"prod-west"
want "bash: --cluster's value is not the command" "$(bash_complete "$bin" --cluster x t)" "timeline
top
tui"

# zsh: the same through compadd.
if command -v zsh >/dev/null 2>&1; then
	zsh_complete() {
		zsh -f -c 'compadd() { local a; for a in "$@"; do [[ $a == -- ]] || print -r -- $a; done }
			_files() { print FILES }
			compdef() { : }
			source "$1"; shift; words=("$@"); CURRENT=$#; _leasetrail' \
			_ "$src/contrib/completion/_leasetrail" "$@" | sort
	}
	want "zsh: commands" "$(zsh_complete "$bin" ti)" "events
help
ingest
nodes
query
rebuild
report
show
sql
stats
timeline
top
tui
version"
	want "zsh: options" "$(zsh_complete "$bin" query --e)" "$("$bin" __complete options query | sort)"
	want "zsh: -o values" "$(zsh_complete "$bin" sql --output "" | tr '\n' ' ')" "csv json jsonl table wide "
	want "zsh: top --by keys" "$(zsh_complete "$bin" top --by "" | tr '\n' ' ')" \
		"code resource source-ip user user-agent verb "
	want "zsh: --resource values" "$(zsh_complete "$bin" events --resource "" | tr '\n' ' ')" \
		"/status leases leases/ nodes nodes/ nodes/status pods pods/binding pods/eviction pods/status "
	want "zsh: report -o values" "$(zsh_complete "$bin" report -o "" | tr '\n' ' ')" "html md "
	want "zsh: --tz zones" "$(zsh_complete "$bin" timeline --tz Europe/Berl | grep -x -e Europe/Berlin -e local)" \
		"Europe/Berlin
local"
	want "zsh: --emit engines" "$(zsh_complete "$bin" timeline --emit "" | tr '\n' ' ')" \
		"athena bigquery cwli kql logging "
	want "zsh: node names" "$(zsh_complete "$bin" timeline --db s.db ip-10-0-241-2)" \
		"ip-10-0-241-227.ec2.internal"
	want "zsh: query names" "$(zsh_complete "$bin" query re | head -1)" "apiserver-identity"
	want "zsh: ingest files" "$(zsh_complete "$bin" ingest --db s.db "")" "FILES"
	want "zsh: hostile name skipped" "$(zsh_complete "$bin" timeline --db evil.db ip-)" "ip-good"
	want "zsh: cluster names" "$(zsh_complete "$bin" nodes --db two.db --cluster p)" "prod-east
prod-west"
	zsh_ok=", zsh"
else
	echo "test-completion: zsh not installed, its completion not checked (apt-get install zsh)" >&2
	zsh_ok=""
fi
[ ! -e pwned ] || fail "a name ran a command"
echo "e2e completion: ok (bash$zsh_ok: commands, options, values, queries, names from the store)"
