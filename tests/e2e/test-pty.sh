#!/usr/bin/env bash
# Hostile text never reaches a terminal.  The samples are rewritten into a hostile corpus: the
# deleted node's name (so its lease's, its kubelet's user name and its journal's host) and the
# admin who deleted it carry ESC sequences (OSC title and hyperlink, CSI clear and colour, DCS,
# RIS), C1 controls (U+009B, U+009D), bidi overrides and isolates (U+202E, U+2066) and invalid
# UTF-8; one request has a 64 KiB user agent of escapes, a kubelet line is NUL-free binary.
# Then every command in every output format runs on a pseudo-terminal (util-linux `script`),
# its stdout and stderr both on it, and what reached the terminal is checked: no control byte
# but \t \r \n, no C1 or bidi code point, valid UTF-8 (the progress line's own "\r ESC[K" of
# `ingest` aside).  The TUI, driven by keys on a pty, may send the escapes curses makes
# (CSI, charset, keypad), none of the planted ones, and no OSC, DCS or RIS at all.
#   bash tests/e2e/test-pty.sh BIN CORPUS SAMPLES TMP
set -euo pipefail
bin=$1 samples=$3 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v script >/dev/null || fail "script (util-linux) is not installed"
export LC_ALL=C.UTF-8 TERM=xterm-256color

# ---- the hostile corpus: names as the logs carry them (JSON-escaped in audit, raw in journals)
node_raw=$'\e]0;PWN-TITLE\a\e[2JPWN-CLEAR\e[31mPWN-RED\xc2\x9b31mPWN-C1\xe2\x80\xaePWN-BIDI\xff\xfePWN-BAD'
node_json='\u001b]0;PWN-TITLE\u0007\u001b[2JPWN-CLEAR\u001b[31mPWN-RED\u009b31mPWN-C1\u202ePWN-BIDI'$'\xff\xfe''PWN-BAD'
user_raw=$'\e]8;;http://evil.example/\e\\PWN-LINK\e]8;;\e\\\ePPWN-DCS\e\\\ecPWN-RIS\xc2\x9d0;PWN-C1TITLE\xc2\x9c\xe2\x81\xa6PWN-ISOLATE'
user_json='\u001b]8;;http://evil.example/\u001b\\PWN-LINK\u001b]8;;\u001b\\\u001bPPWN-DCS\u001b\\\u001bcPWN-RIS\u009d0;PWN-C1TITLE\u009c\u2066PWN-ISOLATE'
long_json=$(for _ in $(seq 2048); do printf '%s' '\u001b[1;31mPWN-LONG\u009b'; done)
export NODE_RAW=$node_raw NODE_JSON=$node_json USER_RAW=$user_raw USER_JSON=$user_json LONG=$long_json
mkdir -p corpus/audit corpus/logs
for f in "$samples"/audit/*.log; do
  perl -pe 's/ip-10-0-241-171/ip-10-0-241-171$ENV{NODE_JSON}/g; s/kubernetes-admin/kubernetes-admin$ENV{USER_JSON}/g;
    s/user\/ops-admin/user\/ops-admin$ENV{USER_JSON}/g;
    $d = 1 if !$d && /"resource":"nodes"/ && s/"userAgent":"kubectl\//"userAgent":"$ENV{LONG}kubectl\//' \
    "$f" >"corpus/audit/${f##*/}"
done
for f in "$samples"/logs/*.log; do
  perl -pe 's/ip-10-0-241-171/ip-10-0-241-171$ENV{NODE_RAW}/g; s/kubernetes-admin/kubernetes-admin$ENV{USER_RAW}/g' \
    "$f" >"corpus/logs/${f##*/}"
done
node="ip-10-0-241-171$node_raw.ec2.internal"
{ # a kubelet line of NUL-free binary, and one of escapes
  printf 'Apr 05 06:03:00 %s kubelet[3081]: E0405 06:03:00.000000    3081 kubelet.go:1] PWN-BINARY ' "$node"
  perl -e 'print map { chr } (1 .. 9, 11 .. 31, 127 .. 255)'
  printf '\nApr 05 06:03:01 %s kubelet[3081]: E0405 06:03:01.000000    3081 kubelet.go:2] "Failed to update lease" err="%s" node="%s"\n' \
    "$node" "$user_raw" "$node"
} >>"corpus/logs/kubelet-ip-10-0-241-171.ec2.internal.log"
# a file whose name is hostile too: ingest reports it by name
{ cat corpus/logs/kube-controller-manager.ip-172-16-40-128.ec2.internal.log
  printf 'I0405 06:03:02.000000      11 node_lifecycle_controller.go:1] PWN-KCM node="%s"\n' "$node"
} >"corpus/kcm-$node_raw.log"

# ---- running on a pty: run WHAT ARGS... (stdout and stderr on the terminal, stdin /dev/null)
runs=0
run() {
  local what=$1 out st=0
  shift
  runs=$((runs + 1))
  out=pty-$runs.out
  printf '%q ' "$@" >"cmd-$runs.sh"
  SHELL=/bin/bash script -qec "bash $tmp/cmd-$runs.sh" /dev/null </dev/null >"$out" || st=$?
  [ "$st" -lt 128 ] || fail "$what: died of a signal (status $st)"
  check "$out" "$what"
  last=$out
}

# check FILE WHAT: nothing in FILE a terminal would act on
check() {
  local f=$1 what=$2
  # ingest's progress line on a terminal: its own "\r ESC[K" and nothing else
  LC_ALL=C sed 's/\r\x1b\[K/\r/g' "$f" >"$f.seen"
  if LC_ALL=C grep -qaP '[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]' "$f.seen"; then
    LC_ALL=C grep -naoP '.{0,20}[\x00-\x08\x0b\x0c\x0e-\x1f\x7f].{0,20}' "$f.seen" | head -3 | od -c | head >&2
    fail "$what: a control byte reached the terminal ($f)"
  fi
  iconv -f UTF-8 -t UTF-8 "$f.seen" >/dev/null 2>&1 || fail "$what: the terminal got invalid UTF-8 ($f)"
  if LC_ALL=C grep -qaP '\xc2[\x80-\x9f]|\xe2\x80[\x8b-\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]|\xef\xbb\xbf' "$f.seen"; then
    fail "$what: a C1 control or a bidi mark reached the terminal ($f)"
  fi
}

# shown WHAT: the last run did print hostile text (made safe), so its check meant something
shown() { grep -qa 'PWN-' "$last" || fail "$1: no hostile text shown ($last): $(head -c 300 "$last")"; }

run "ingest" "$bin" ingest --db s.db corpus/audit corpus/logs "corpus/kcm-$node_raw.log"
shown "ingest (a hostile file name)"
one() { "$bin" sql --db s.db -o csv "$1" | sed 1d; }
[ "$(one "SELECT count(*) FROM logs WHERE message LIKE '%PWN-BINARY%'")" = 1 ] ||
  fail "the binary kubelet line was not stored"
[ "$(one "SELECT count(*) FROM nodes WHERE node LIKE '%PWN-TITLE%'")" = 1 ] || fail "the hostile node is not a node"

run "stats" "$bin" stats --db s.db
run "rebuild" "$bin" rebuild --db s.db
lease_id=$(one "SELECT id FROM events WHERE user LIKE '%PWN-LINK%' LIMIT 1")
long_id=$(one "SELECT id FROM events WHERE user_agent LIKE '%PWN-LONG%' LIMIT 1")
line_id=$(one "SELECT id FROM logs WHERE message LIKE '%PWN-BINARY%'")
[ -n "$lease_id" ] && [ -n "$long_id" ] && [ -n "$line_id" ] || fail "the hostile records are not stored"
for id in "$lease_id" "$long_id" "L$line_id"; do
  run "show $id" "$bin" show --db s.db "$id"
  shown "show $id"
  run "show -v $id" "$bin" show --db s.db -v "$id"
done

for fmt in table csv json jsonl; do
  run "nodes -o $fmt" "$bin" nodes --db s.db -o "$fmt"
  shown "nodes -o $fmt"
  run "timeline NODE -o $fmt" "$bin" timeline --db s.db -o "$fmt" "$node"
  shown "timeline NODE -o $fmt"
  run "timeline -v NODE -o $fmt" "$bin" timeline --db s.db -v -o "$fmt" "$node"
  run "timeline LEASE -o $fmt" "$bin" timeline --db s.db -o "$fmt" "kube-node-lease/$node"
  # timeline under quick filters: the hostile user as a glob, a hostile resource/subresource
  run "timeline -v NODE --user GLOB -o $fmt" "$bin" timeline --db s.db -v -o "$fmt" --user "*$user_raw*" "$node"
  run "timeline NODE --resource HOSTILE -o $fmt" "$bin" timeline --db s.db -o "$fmt" --resource "$user_raw/$node_raw" "$node"
  for q in $("$bin" query --list | awk '{print $1}'); do
    run "query $q -o $fmt" "$bin" query --db s.db -o "$fmt" "$q"
  done
  run "events -o $fmt" "$bin" events --db s.db -o "$fmt"
  shown "events -o $fmt"
  # the hostile user as a filter, exact (its '[' and '\' are no pattern) and as a glob
  run "events --user HOSTILE -o $fmt" "$bin" events --db s.db -o "$fmt" --user "kubernetes-admin$user_raw"
  shown "events --user HOSTILE -o $fmt"
  run "events --user GLOB -o $fmt" "$bin" events --db s.db -o "$fmt" --user "*$user_raw" --verb 'del*'
  shown "events --user GLOB -o $fmt"
  for by in user verb resource code source-ip user-agent; do
    run "top --by $by -o $fmt" "$bin" top --db s.db -o "$fmt" --by "$by"
  done
  run "top --by user --failed -o $fmt" "$bin" top --db s.db -o "$fmt" --by user --failed
  shown "top --by user --failed -o $fmt"
  run "sql events -o $fmt" "$bin" sql --db s.db -o "$fmt" "SELECT * FROM events ORDER BY length(user_agent) DESC, id LIMIT 50"
  shown "sql events -o $fmt"
  run "sql logs -o $fmt" "$bin" sql --db s.db -o "$fmt" "SELECT * FROM logs WHERE message LIKE '%PWN%'"
  shown "sql logs -o $fmt"
  # column names: an alias and an expression's own text, both from the command line
  run "sql names -o $fmt" "$bin" sql --db s.db -o "$fmt" "SELECT name AS \"$user_raw\", '$node_raw', user FROM events LIMIT 3"
  shown "sql names -o $fmt"
done
query_gc="$(grep -c . <<<"$("$bin" query --list)")"
for q in who-deleted orphaned-kubelets; do
  run "query $q shows them" "$bin" query --db s.db -o table "$q"
  shown "query $q"
done

# the incident report, both formats, on the terminal: log text escaped for the format, and safe
for fmt in md html; do
  run "report -o $fmt" "$bin" report --db s.db -o "$fmt"
  shown "report -o $fmt"
  run "report NODE -o $fmt" "$bin" report --db s.db -o "$fmt" "$node"
  shown "report NODE -o $fmt"
done

# errors that name what they were given
run "report (unknown, hostile)" "$bin" report --db s.db "nope$node_raw"
run "timeline (unknown, hostile)" "$bin" timeline --db s.db "nope$node_raw"
run "query (unknown, hostile)" "$bin" query --db s.db "nope$node_raw"
run "show (hostile id)" "$bin" show --db s.db "$node_raw"
run "top (hostile --by)" "$bin" top --db s.db --by "$node_raw"
run "events (hostile --code)" "$bin" events --db s.db --code "$node_raw"
run "sql (hostile SQL error)" "$bin" sql --db s.db "SELECT $node_raw"
run "unknown command" "$bin" "$node_raw"
run "unknown option" "$bin" nodes --db s.db "--$node_raw"

# ---- the TUI on a pty, keys typed: the cluster list, search, a timeline, an event, help
tui_keys() {
  sleep 3; printf '/PWN-TITLE\r'; sleep 1; printf '\r'; sleep 2; printf 'G'; sleep 1; printf '\r'
  sleep 1; printf '\r'; sleep 2; printf '\e'; sleep 1; printf 'c'; sleep 2; printf '\r'; sleep 2
  printf '?'; sleep 1; printf 'Q'; sleep 1
}
tui_keys | SHELL=/bin/bash timeout 60 script -qec "stty rows 40 cols 160; exec $bin tui --db $tmp/s.db" /dev/null \
  >tui.out 2>tui.err || fail "tui: exit $? ($(head -c 300 tui.err))"
grep -qa 'PWN-TITLE' tui.out || fail "tui: the hostile node was not shown"
for screen in Timeline Queries Help; do
  grep -qa "$screen" tui.out || fail "tui: the keys did not reach the $screen screen"
done
# every escape is one curses makes: CSI, a charset, keypad modes, save/restore, reverse index
if LC_ALL=C grep -qaP '\x1b(?![\[()=>78M])' tui.out; then
  LC_ALL=C grep -aoP '\x1b(?![\[()=>78M]).{0,20}' tui.out | head -3 | od -c | head >&2
  fail "tui: an escape curses does not make (OSC, DCS, RIS...) reached the terminal"
fi
LC_ALL=C grep -qaP '\x1b\[2JPWN-CLEAR|\x1b\[31mPWN-RED|\x1b\[1;31mPWN-LONG' tui.out &&
  fail "tui: a planted CSI sequence reached the terminal"
LC_ALL=C grep -qaP '\xc2[\x80-\x9f]|\xe2\x80[\x8b-\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]' tui.out &&
  fail "tui: a C1 control or a bidi mark reached the terminal"
LC_ALL=C grep -qaP '[\x00-\x07\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]' tui.out && fail "tui: a control byte reached the terminal"
iconv -f UTF-8 -t UTF-8 tui.out >/dev/null 2>&1 || fail "tui: the terminal got invalid UTF-8"
echo "e2e pty: ok ($runs command runs and the TUI on a pty, 0 escapes; $query_gc canned queries)"
