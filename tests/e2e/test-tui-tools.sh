#!/usr/bin/env bash
# The TUI's investigation tools, driven in tmux and checked on the screen and in the files they
# write: f on a timeline's rows, on its requests and its kubelet lines, on a query's result (a
# fresh prompt each time, the filter on the status line, an empty f clears it); m marks rows on
# every list, M lists them and Enter opens one; e exports the view or the marks as CSV or
# Markdown, log text sanitized; y copies a row through OSC 52 (into tmux's buffer); `:` runs
# goto, filter, sort, export, report (of the marked subjects, as the CLI writes it), help, quit; a mouse click selects a row and the wheel scrolls, off
# with --no-mouse.  On samples/audit (with a hostile record) and on a generated NotReady cluster
# (f on lines, m, M, e; a click, :goto, y, :report).
#   bash tests/e2e/test-tui-tools.sh BIN CORPUS SAMPLES TMP
set -euo pipefail
bin=$1 samples=$3 tmp=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
tui_sock=lt-tools
. "$here/tui-lib.sh"

# start [TUI OPTION...]: the TUI in a fresh 120x40 session; when it exits, the pane prints its
# status and whether the tty is back in cooked mode with echo.  set-clipboard on: an
# application's OSC 52 lands in tmux's buffer, where y's copy can be read back.
start() {
  tui_session "$bin tui --db $tmp/s.db $*"
  tm set -g set-clipboard on
  wait_for 'leasetrail | Cluster'
}

# the line under the cursor (drawn in reverse video), without its escapes
# (reverse from the row's first cell: a strip's D cell is reverse video too)
selected() { tm capture-pane -p -e | grep -aE $'^(\e\\[[0-9;]*m)*\e\\[([0-9]+;)*7m' | grep -av 'leasetrail |' |
  grep -av ' ? help' | head -1 | sed 's/\x1b\[[0-9;]*m//g'; }
# the pane's row under the cursor (the list's cursor row stays reversed too): ends in #ID or LID
pane_selected() { tm capture-pane -p -e | grep -a $'\e\[[0-9;]*7m' | sed 's/\x1b\[[0-9;]*m//g' |
  grep -E '(#|L)[0-9]+ *$' | head -1; }
# type TEXT at an open prompt, then Enter
answer() { tm send-keys -l "$1"; tm send-keys Enter; }
# md_plain FILE: cmark (CommonMark: no tables, so the table is one paragraph) renders the
# exported Markdown to its text and nothing else: no element but the title's h1 and the p, and
# each line of the paragraph, its entities decoded, is the file's line with each backslash
# escape taken out (no link, emphasis, code span, entity or HTML formed from the log text)
md_plain() {
  if ! command -v cmark >/dev/null; then
    [ "${CI:-}" = true ] && fail "cmark is not installed (CI installs it in .ci/run)"
    echo "test-tui-tools.sh: cmark is not installed: $1 is not rendered" >&2
    return 0
  fi
  cmark "$1" >"$1.html"
  [ "$(grep -oE '<[a-zA-Z][a-zA-Z0-9]*' "$1.html" | sort -u | tr '\n' ' ')" = '<h1 <p ' ] ||
    fail "$1 renders to other elements: $(cat "$1.html")"
  grep '^|' "$1" | LC_ALL=C sed -E 's/\\([[:punct:]])/\1/g' >"$1.want"
  sed -n '/^<p>/,/<\/p>$/p' "$1.html" | sed -e 's/^<p>//' -e 's/<\/p>$//' -e 's/&lt;/</g' \
    -e 's/&gt;/>/g' -e 's/&quot;/"/g' -e 's/&amp;/\&/g' >"$1.got"
  cmp -s "$1.want" "$1.got" || fail "$1 does not render to its text: $(diff "$1.want" "$1.got")"
}
# a file written from log text holds no control byte but tab and newline
clean_file() {
  LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]' "$1" &&
    fail "$1 holds a control byte or a bidi override"
  return 0
}

evil='{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"e0000000-0000-4000-8000-000000000002","stage":"ResponseComplete","requestURI":"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/evil","verb":"update","user":{"username":"system:node:evil\u001b]2;pwned\u0007\u001b[2J,\"x|y <b>b</b> [l](http://e.vil) *em* _u_ `c` &amp; ~~s~~ www.e.vil","groups":["system:nodes"]},"sourceIPs":["10.9.9.9"],"userAgent":"kubelet","objectRef":{"resource":"leases","namespace":"kube-node-lease","name":"evil","apiGroup":"coordination.k8s.io","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2024-04-05T05:51:00.000000Z","stageTimestamp":"2024-04-05T05:51:00.001000Z"}'
printf '%s\n' "$evil" >evil.log
"$bin" ingest -q --db "$tmp/s.db" "$samples/audit" evil.log >/dev/null

# ---- f on a timeline's rows: a fresh prompt each time, the filter on the status line
start
wait_for 'NODES (4)'
tm send-keys / '241-171' Enter
tm send-keys Enter
wait_for 'DETAIL of ip-10-0-241-171.ec2.internal'
all=$(screen | grep -o '(\([0-9]*\) rows)' | head -1)
tm send-keys f
wait_for 'filter (REGEX, COL=RE'
answer 'kind=^DELETED$'
wait_for '1 row passes the filter'
screen | grep -q 'DETAIL of ip-10-0-241-171.ec2.internal (1 row)' || fail "the header's count: $(screen | head -2)"
screen | grep -q ' DELETED .*generic-garbage-collector' || fail "kind=^DELETED$ lost the row"
screen | grep -q 'NODE_DELETED' && fail "kind=^DELETED$ kept NODE_DELETED"
tm send-keys j
wait_for ' filter kind=^DELETED$ (f, Enter: off)'
tm send-keys f
wait_for 'filter (REGEX, COL=RE'
screen | tail -1 | grep -qF 'DELETED' && fail "the prompt was not fresh: $(screen | tail -1)"
answer 'detail=garbage count<2 source=^audit$'
wait_for '1 row passes the filter'
tm send-keys f
answer 'zz=1'
wait_for "no column 'zz' here; columns: row, start, end, kind, count, source, detail"
tm send-keys f Enter
wait_for "$all"
screen | grep -q 'NODE_DELETED' || fail "an empty f did not clear the filter"
# f on the list with a row's pane open (Tab gives the list the keys): the pane stays on its row
# when the row passes the filter, and closes, saying so, when it does not
tm send-keys / '^NODE_DELETED$' Enter
tm send-keys Enter
wait_for '(Enter: one event, Tab: pane, Esc: close)'
tm send-keys Tab f
answer 'kind=DELETED'
wait_for '2 rows pass the filter; the open row is one, its pane stays'
screen | grep -q '(Enter: one event, Tab: pane, Esc: close)' || fail "f closed the open row's pane"
selected | grep -q 'NODE_DELETED' || fail "the cursor left the open row: $(selected)"
tm send-keys f
answer 'kind=^DELETED$'
wait_for '1 row passes the filter; the open row is not: its pane is closed'
screen | grep -q 'Tab: pane, Esc: close' && fail "the pane of a row filtered out stayed open"
tm send-keys f Enter
wait_for "$all"

# ---- :goto TIME (as --since reads it) puts the cursor on the row starting nearest it
tm send-keys :
answer 'goto 2024-04-05T05:56:00.2Z'
selected | grep -q 'NODE_DELETED' || fail ":goto: $(selected)"
tm send-keys :
answer 'g 05:53:15'
selected | grep -q 'NODE_STATUS' || fail ":g (shortened, a time of day): $(selected)"
tm send-keys :
answer 'goto yesterday-ish'
wait_for 'goto TIME: RFC 3339'

# ---- f on the requests pane: columns of a request; m marks one, Tab, m marks the row
tm send-keys / '^NOT_FOUND' Enter
n404=$(screen | grep -m1 ' NOT_FOUND ' | awk '{print $4}')
tm send-keys Enter
wait_for "$n404 requests of NOT_FOUND"
tm send-keys f
answer 'code=404 verb=^update$'
wait_for 'requests pass the filter'
n=$(screen | tail -1 | awk '{print $1}')
[ "$n" -ge 1 ] && [ "$n" -lt "$n404" ] || fail "code=404 verb=^update$ kept $n of $n404"
[ "$(screen | grep -c '^[0-9:.]*  update  *404 ')" = "$n" ] || fail "the pane does not show $n updates"
screen | grep -q ', filter code=404 verb=^update$ (Enter' || fail "the pane's header does not say its filter"
tm send-keys j m
wait_for 'marked (1 mark; M lists them)'
req=$(pane_selected | grep -o '#[0-9]*')
# y: the request's line, through OSC 52, in tmux's buffer
tm send-keys y
wait_for 'copied '
tm show-buffer | grep -q "update .*404 .*$req\$" || fail "y copied: $(tm show-buffer)"
tm send-keys Tab m
wait_for 'marked (2 marks; M lists them)'
tm send-keys m
wait_for 'unmarked (1 mark;'
tm send-keys m
wait_for 'marked (2 marks;'
# e on the pane: the current view, every request that passes its filter
tm send-keys Tab e
wait_for 'export this view to'
answer "$tmp/pane.csv"
wait_for "$n rows written to $tmp/pane.csv (CSV)"
[ "$(head -1 pane.csv)" = '"mark","time","subject","source","what","row"' ] || fail "pane.csv header"
[ "$(grep -c '^"request","2024-04-05T05:56:[0-9.]*Z","ip-10-0-241-171.ec2.internal","update","404",' pane.csv)" = "$n" ] ||
  fail "pane.csv: $(cat pane.csv)"

# ---- M lists the marks across screens; e writes them; Enter opens what a mark is about
tm send-keys Escape Escape
wait_for 'NODES (4)'
tm send-keys M
wait_for 'leasetrail | Marks'
wait_for '(2 marks; Enter: open'
screen | grep -q '^request .*ip-10-0-241-171.ec2.internal  404 ' || fail "the request's mark"
screen | grep -q '^timeline .*ip-10-0-241-171.ec2.internal  NOT_FOUND ' || fail "the row's mark"
tm send-keys e
wait_for 'export the marks to'
answer "$tmp/marks.md"
wait_for "2 rows written to $tmp/marks.md (Markdown)"
head -3 marks.md | grep -q '^| mark | time | subject | source | what | row |$' || fail "marks.md: $(cat marks.md)"
# (Markdown's escapes: \# of the request's id, \_ of the kind)
grep -q "^| request | .* | update | 404 | .*\\\\$req |\$" marks.md || fail "marks.md request: $(cat marks.md)"
grep -q '^| timeline | 2024-04-05T05:56:09.[0-9]*Z | ip-10-0-241-171.ec2.internal | audit | NOT\\_FOUND | ' marks.md ||
  fail "marks.md row: $(cat marks.md)"
tm send-keys g Enter
wait_for 'leasetrail | Event'
screen | grep -q "event ${req#\#}  from .*kube-apiserver-audit" || fail "the request's mark opened: $(screen | sed -n 2p)"
tm send-keys Escape j Enter
wait_for 'DETAIL of ip-10-0-241-171.ec2.internal'
selected | grep -q 'NOT_FOUND' || fail "the row's mark did not land on its row: $(selected)"
tm send-keys Escape Escape
wait_for 'NODES (4)'

# ---- a query's result: f on its columns, m, e as Markdown
tm send-keys c
wait_for 'leasetrail | Queries'
tm send-keys / '^gc-deletes' Enter Enter
wait_for 'NODE_DELETED_BY'
tm send-keys f
answer 'lease=241-17 node_deleted_by=admin'
wait_for 'gc-deletes: 1 row passes the filter'
tm send-keys m e
answer "$tmp/result.csv"
wait_for "1 row written to $tmp/result.csv"
grep -q '^"result","2024-04-05T05:56:00.230965Z","ip-10-0-241-171.ec2.internal","gc-deletes",' result.csv ||
  fail "result.csv: $(cat result.csv)"
tm send-keys f
answer 'nosuch=1'
wait_for "no column 'nosuch' here; columns: row, "
tm send-keys Escape

# ---- hostile text: marked, copied and exported, nothing but SGR reaches the pane, and the files
# hold it escaped
tm send-keys / evil Enter
tm send-keys Enter
wait_for 'DETAIL of evil'
tm send-keys m y
wait_for 'copied '
tm show-buffer | grep -qF 'evil\x1b]2;pwned\x07\x1b[2J,"x|y' || fail "the copy is not escaped: $(tm show-buffer | od -c | head)"
tm send-keys e
answer "$tmp/evil.md"
wait_for "written to $tmp/evil.md"
tm send-keys e
answer "$tmp/evil.csv"
wait_for "written to $tmp/evil.csv"
clean_file evil.md
clean_file evil.csv
grep -qF 'evil\x1b]2;pwned\x07\x1b[2J,""x|y <b>b</b> [l](http://e.vil) *em* _u_ `c` &amp; ~~s~~ www.e.vil' evil.csv ||
  fail "evil.csv: $(cat evil.csv)"
# in Markdown a backslash before what would make a link, emphasis, a code span, an entity, HTML
grep -qF 'evil\\x1b\]2;pwned\\x07\\x1b\[2J,"x\|y \<b\>b\</b\> \[l\](http\://e.vil) \*em\* \_u\_ \`c\` \&amp; \~\~s\~\~ www\.e.vil' evil.md ||
  fail "evil.md: $(cat evil.md)"
md_plain evil.md
md_plain marks.md
grep -qF '[l](http://e.vil) *em* _u_ `c` &amp; ~~s~~ www.e.vil' evil.md.got || fail "evil.md renders to: $(cat evil.md.got)"
[ "$(tm display-message -p '#{pane_title}')" != pwned ] || fail "the terminal was retitled"
only_sgr "hostile text"
tm send-keys M
wait_for '(4 marks; Enter: open'
only_sgr "the marks"
# :report FILE: `leasetrail report` of the marked nodes and leases (171 and evil), as the CLI
tm send-keys :
answer "report $tmp/marked.md"
wait_for "the report of 2 marked subjects written to $tmp/marked.md"
"$bin" report --db "$tmp/s.db" ip-10-0-241-171.ec2.internal evil >cli.md
cmp -s marked.md cli.md || fail "the report differs from the CLI's: $(diff marked.md cli.md | head -5)"
tm send-keys q q

# ---- : on the cluster: filter, sort, an unknown command, help, quit (the terminal restored)
wait_for 'NODES (4)'
tm send-keys :
answer 'filter state=re-created name=171'
wait_for 'NODES (1)'
screen | grep -q '^1 row, by ' || fail "the legend's count: $(screen | tail -2)"
# a filter nothing passes: the hint says what clears it, the legend counts 0 rows
tm send-keys f
answer 'name=^nosuchnode$'
wait_for 'no lease matches the filter (an empty f clears it)'
screen | grep -q '^0 rows, by ' || fail "the legend's count: $(screen | tail -2)"
tm send-keys f
answer 'state=re-created name=171'
wait_for 'NODES (1)'
tm send-keys :
answer 'sort'
wait_for 'sorted by name'
tm send-keys :
answer 'nope'
wait_for "no command 'nope': goto, filter, sort, export, report"
tm send-keys :
answer 'help'
wait_for 'leasetrail | Help'
for k in 'm ' 'M ' 'e ' 'y ' ': ' 'f '; do
  screen | grep -qF -- "  $k" || fail "help lacks '$k'"
done
tm send-keys G
wait_for ':goto TIME'
for k in ':filter TEXT' ':sort [prev]' ':export FILE' ':report FILE' ':quit' 'Mouse: a click'; do
  screen | grep -qF -- "  $k" || fail "help lacks '$k'"
done
tm send-keys :
answer 'quit'
tui_exited 0 "after :quit"
[ ! -s tui.err ] || fail "stderr: $(cat tui.err)"

# ---- :goto on the cluster screen: the strip's axis, its zoom kept, centred on TIME
start
wait_for 'NODES (4)'
tm send-keys + + +
header() { screen | sed -n 2p; }
for _ in $(seq 1 200); do header | grep -q '05:57' && break; sleep 0.05; done
header | grep -q '06:03' && fail "zoomed in on the middle, the axis already shows 06:03: $(header)"
tm send-keys :
answer 'goto 06:03'
for _ in $(seq 1 200); do header | grep -q '06:03' && break; sleep 0.05; done
header | grep -q '06:03' || fail ":goto on the cluster did not move the axis: $(header)"
header | grep -q '05:57' && fail ":goto on the cluster kept the old window: $(header)"
tm send-keys Q
wait_for 'EXIT=0'

# ---- the mouse: the TUI turns reporting on (ncurses: normal tracking, X10 encoding); a press of
# the first button on a row selects it, the wheel moves the cursor; --no-mouse leaves it off
start
wait_for 'NODES (4)'
[ "$(tm display-message -p '#{mouse_standard_flag}')" = 1 ] || fail "mouse reporting is off"
y=$(screen | grep -n '^ip-10-0-241-227.ec2.internal' | cut -d: -f1)
# ESC [ M, then button 0 (press) + 32, column + 33, row + 33 (both 0-based here: 1-based + 32)
tm send-keys -H 1b 5b 4d 20 25 "$(printf '%x' $((y + 32)))"
for i in $(seq 1 100); do selected | grep -q '^ip-10-0-241-227' && break; sleep 0.05; done
selected | grep -q '^ip-10-0-241-227' || fail "a click did not select 227: $(selected)"
tm send-keys g
tm send-keys -H 1b 5b 4d 61 25 25 # the wheel, down one notch (button 5: 65 + 32)
for i in $(seq 1 100); do [ "$(selected | awk '{print $1}')" != "$(screen | sed -n 3p | awk '{print $1}')" ] && break; sleep 0.05; done
[ "$(selected | awk '{print $1}')" != "$(screen | sed -n 3p | awk '{print $1}')" ] || fail "the wheel did not scroll"
tm send-keys Q
tui_exited 0 "after Q"
start --no-mouse
wait_for 'NODES (4)'
[ "$(tm display-message -p '#{mouse_standard_flag}#{mouse_any_flag}')" = 00 ] || fail "--no-mouse: reporting is on"
tm send-keys Q
wait_for 'EXIT=0'

# ---- a generated NotReady cluster: f on a row's kubelet lines, a line marked and opened
tui_gen_cluster 20
start
wait_for 'NODES (22)'
tm send-keys Enter
wait_for 'DETAIL of ip-10-1-0-10.ec2.internal'
# f on the timeline: only its kubelet rows, then only the NOT_READY ones
tm send-keys f
answer 'source=^kubelet$'
wait_for 'pass the filter'
screen | grep -E '^[0-9:.]+ +[0-9:.]+ ' | grep -vq '\[kubelet\]' &&
  fail "source=^kubelet$ kept another row: $(screen | grep -E '^[0-9:.]+ +[0-9:.]+ ' | grep -v '\[kubelet\]' | head -2)"
tm send-keys f Enter
tm send-keys / 'node-status-error' Enter
n=$(screen | grep -m1 ' node-status-error ' | awk '{print $4}')
tm send-keys Enter
wait_for "$n lines node-status-error of ip-10-1-0-10.ec2.internal [kubelet]"
# the lines of the row: f by severity and message, then by line number
tm send-keys f
answer 'severity=^E$ message=will.retry'
wait_for "$n lines pass the filter"
tm send-keys f
answer 'line<0'
wait_for '0 lines pass the filter'
tm send-keys f
answer 'file=kubelet-ip-10-1-0-10 row=Error.updating'
wait_for "$n lines pass the filter"
tm send-keys G m
wait_for 'marked (1 mark'
line=$(pane_selected | grep -o 'L[0-9]*')
tm send-keys M
wait_for '(1 mark; Enter: open'
screen | grep -q '^line .*ip-10-1-0-10.ec2.internal  E  [0-9:.]*  kubelet-ip-10-1-0-10.ec2.internal.log:[0-9]' || fail "the line's mark"
tm send-keys e
answer "$tmp/line.csv"
wait_for "1 row written to $tmp/line.csv"
grep -q '^"line","2024-04-05T[0-9:.]*Z","ip-10-1-0-10.ec2.internal",".*gen/logs/kubelet-ip-10-1-0-10.ec2.internal.log:[0-9]*","E","[0-9:.]*  kubelet-ip-10-1-0-10.ec2.internal.log:[0-9]*  E Error updating node status' line.csv ||
  fail "line.csv: $(cat line.csv)"
clean_file line.csv
tm send-keys Enter
wait_for "log line $line  from"
screen | grep -qF '"Error updating node status, will retry" err=' || fail "the marked line opened: $(screen | sed -n 2p)"
only_sgr "the NotReady cluster"
tm send-keys Q
tui_exited 0
[ ! -s tui.err ] || fail "stderr: $(cat tui.err)"

# ---- the same cluster: a click selects a node, :goto lands on its NotReady window, y copies
# the row, m marks it, and :report writes the marked node's report as the CLI writes it
nr=$("$bin" query not-ready --db "$tmp/s.db" -o csv | grep -m1 '^ip-10-1-0-10.ec2.internal,')
nr_start=$(echo "$nr" | cut -d, -f2)
[ -n "$nr_start" ] || fail "the generated cluster has no NotReady window on ip-10-1-0-10"
start
wait_for 'NODES (22)'
click() { # click NODE: a press of the first button on NODE's row and its release (button 3:
  # a terminal sends both; without the release, a second press selected nothing here)
  local y
  y=$(screen | grep -n "^$1" | cut -d: -f1)
  [ -n "$y" ] || fail "$1 is not on the screen"
  tm send-keys -H 1b 5b 4d 20 25 "$(printf '%x' $((y + 32)))" 1b 5b 4d 23 25 "$(printf '%x' $((y + 32)))"
  for _ in $(seq 1 100); do selected | grep -q "^$1" && return 0; sleep 0.05; done
  fail "a click did not select $1: $(selected)"
}
click ip-10-1-0-11.ec2.internal
click ip-10-1-0-10.ec2.internal
tm send-keys Enter
wait_for 'DETAIL of ip-10-1-0-10.ec2.internal'
tm send-keys :
answer "goto $nr_start"
for _ in $(seq 1 100); do selected | grep -q 'NOT_READY' && break; sleep 0.05; done
selected | grep -q 'NOT_READY' || fail ":goto $nr_start: $(selected)"
tm send-keys y
wait_for 'copied '
tm show-buffer | grep -q 'NOT_READY' || fail "y: $(tm show-buffer | head -c 300)"
tm send-keys m
wait_for 'marked (1 mark'
tm send-keys :
answer "report $tmp/gen.md"
wait_for "the report of 1 marked subject written to $tmp/gen.md"
"$bin" report --db "$tmp/s.db" ip-10-1-0-10.ec2.internal >gen-cli.md
cmp -s gen.md gen-cli.md || fail "the report differs from the CLI's: $(diff gen.md gen-cli.md | head -5)"
grep -q 'NotReady' gen.md || fail "the report names no NotReady window: $(head -20 gen.md)"
only_sgr "the NotReady cluster's tools"
tm send-keys Q
tui_exited 0
[ ! -s tui.err ] || fail "stderr: $(cat tui.err)"
echo "e2e tui-tools: ok"
