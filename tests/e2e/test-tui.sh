#!/usr/bin/env bash
# The TUI, driven in tmux on a store built from the samples, asserting on the screen's text:
# the cluster screen shows the deleted node's 404 run; drilling in shows the GC's lease
# delete and who deleted the node (and the raw event with its file and line); search finds
# a node; a resize redraws; q, SIGTERM and errors give the terminal back; hostile log text
# shows escaped; NO_COLOR draws no color; samples/notready's NotReady time has its own symbol,
# the state not-ready, and a sort; its kubelet journals alone list their nodes logs-only.
#   bash tests/e2e/test-tui.sh BIN CORPUS SAMPLES TMP
set -euo pipefail
bin=$1 samples=$3 tmp=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
tui_sock=lt-test
. "$here/tui-lib.sh"

"$bin" ingest -q --db "$tmp/s.db" "$samples/audit" >/dev/null

# start [ENV=VALUE...]: the TUI in a fresh 120x40 session; its pid goes to tui.pid; when it
# exits, the pane prints its status and whether the tty is back in cooked mode with echo.
start() {
  rm -f tui.pid
  tui_session "env $* sh -c 'echo \$\$ >$tmp/tui.pid; exec $bin tui --db $tmp/s.db'"
  wait_for 'leasetrail | Cluster'
}


# ---- the cluster screen: the deleted node's 404 run in its heartbeat strip
start ASAN_OPTIONS=detect_leaks=1
wait_for 'NODES (3)'
row=$(screen | grep '^ip-10-0-241-171.ec2.internal')
echo "$row" | grep -q 're-created' || fail "171's state: $row"
echo "$row" | grep -Eq '=+Dx{10,}=+' || fail "171's strip has no delete then 404 run: $row"
screen | grep '^ip-10-0-241-74.ec2.internal' | grep -Eq '=+Dx?=+' || fail "74's lease delete"
screen | grep '^kube-controller-manager ' | grep -q '~' || fail "kcm's gap"
screen | grep -q 'LEADER-ELECTION LEASES (2)' || fail "leader section"
screen | grep -q 'APISERVER LEASES (2)' || fail "apiserver section"

# ---- search finds a node: / then Enter opens the timeline of the row it landed on
tm send-keys / '241-227' Enter
tm send-keys Enter
wait_for 'DETAIL of ip-10-0-241-227.ec2.internal'
tm send-keys Escape
wait_for 'NODES (3)'

# ---- / searches the visible columns: a state finds its row (problems first: 171, 74, 227)
tm send-keys g / 're-created' Enter
tm send-keys Enter
wait_for 'DETAIL of ip-10-0-241-74.ec2.internal'
tm send-keys Escape
wait_for 'NODES (3)'

# ---- drill in: the deleted node's timeline shows who deleted the node, then the GC's delete
tm send-keys / '241-171' Enter
tm send-keys Enter
wait_for 'DETAIL of ip-10-0-241-171.ec2.internal'
screen | grep 'NODE_DELETED' | grep -q 'by kubernetes-admin from 203.0.113.231' || fail "node delete"
screen | grep ' DELETED ' | grep -q 'generic-garbage-collector' || fail "GC lease delete"
screen | grep -q 'NOT_FOUND  *41' || fail "the 404 run"
# the DELETED row's whole detail (under the list) names the node deletion behind it
tm send-keys / '^DELETED' Enter
wait_for "32ms after its node was deleted by"
# its requests, then the raw event with its provenance
tm send-keys Enter
wait_for '1 request of DELETED'
screen | grep -q 'delete .* 200 .*generic-garbage-collector' || fail "the GC's request"
tm send-keys Enter
wait_for 'leasetrail | Event'
screen | grep -q 'kube-apiserver-audit.1.log:[0-9]' || fail "provenance"
screen | grep -q '"username": "system:serviceaccount:kube-system:generic-garbage-collector"' ||
  fail "the raw event"
tm send-keys Escape Escape Escape
wait_for 'NODES (3)'

# ---- canned queries: gc-deletes, Enter on its row jumps to that node at that time
tm send-keys c
wait_for 'leasetrail | Queries'
tm send-keys j j j Enter
wait_for 'NODE_DELETED_BY' # column names in capitals, times as the timeline writes them
screen | grep -q 'ip-10-0-241-171.ec2.internal  05:56:00.230 ' || fail "gc-deletes result"
tm send-keys Enter
wait_for 'DETAIL of ip-10-0-241-171.ec2.internal'
tm send-keys q q
wait_for 'NODES (3)'

# ---- help lists every key
tm send-keys '?'
wait_for 'leasetrail | Help'
help_text=$(screen)
tm send-keys NPage # the help is taller than 40 rows: a key not on its first page is on the next
for k in 'j  Down' 'PgDn' 'g  Home' 'G  End' '/ ' 'Enter' 'Esc' 'Tab' '+ ' 'r '; do
  grep -qF -- "  $k" <<<"$help_text" || wait_for "  $k"
done
tm send-keys q
wait_for 'NODES (3)'

# ---- a resize redraws: 80x24 still shows the rows, their strips and the status line
tm resize-window -x 80 -y 24
wait_for '05:55   06:00' # the axis' ticks at round times (tests/e2e/test-tui-strip.sh)
screen | grep -q '^ip-10-0-241-171.ec2.internal re-created' || fail "80x24: a name was cut"
screen | grep '^ip-10-0-241-171' | grep -Eq 'Dx+=' || fail "80x24: no strip"
[ "$(screen | LC_ALL=C.UTF-8 wc -L)" -le 80 ] || fail "80x24: a line is wider than the screen"
screen | sed -n 24p | grep -q 'help' || fail "80x24: no status line"
tm resize-window -x 120 -y 40
for i in $(seq 1 200); do # back to full width: a strip ends at column 120
  [ "$(screen | grep '^ip-10-0-241-227' | awk '{print length}')" = 120 ] && break
  [ "$i" = 200 ] && fail "no redraw at 120x40"
  sleep 0.05
done

# ---- q gives the terminal back: alternate screen left, cooked mode, echo
tm send-keys q
tui_exited 0 "after q"
screen | grep -q 'leasetrail | Cluster' && fail "still on the alternate screen"
[ ! -s tui.err ] || fail "stderr: $(cat tui.err)"

# ---- SIGTERM: the same way out
start
kill -TERM "$(cat tui.pid)"
tui_exited 1 "after SIGTERM"
grep -q 'interrupted by signal 15' tui.err || fail "SIGTERM: $(cat tui.err)"

# ---- SIGINT (Ctrl-C)
start
tm send-keys C-c
tui_exited 1 "after Ctrl-C"

# ---- NO_COLOR: no color escapes, the states still readable by their symbols
start NO_COLOR=1
wait_for 'NODES (3)'
tm capture-pane -p -e | grep -q $'\e\[3[0-7]m' && fail "NO_COLOR drew colors"
screen | grep '^ip-10-0-241-171' | grep -Eq 'Dx+=' || fail "NO_COLOR: no symbols"
tm send-keys q
wait_for 'EXIT=0'

# ---- r reloads; hostile log text is shown escaped: no retitle, no clear, no cursor moves
evil='{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"e0000000-0000-4000-8000-000000000001","stage":"ResponseComplete","requestURI":"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/x","verb":"update","user":{"username":"system:node:evil\u001b]2;pwned\u0007\u001b[2J","groups":["system:nodes"]},"sourceIPs":["10.9.9.9"],"userAgent":"kubelet\u001b[31m","objectRef":{"resource":"leases","namespace":"kube-node-lease","name":"evil\u001b[Hnode\u202e","apiGroup":"coordination.k8s.io","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2024-04-05T05:51:00.000000Z","stageTimestamp":"2024-04-05T05:51:00.001000Z"}'
printf '%s\n' "$evil" >evil.log
# ingested while the TUI runs (WAL: readers never block the writer); r shows it
start
wait_for 'NODES (3)'
# an ingest that has loaded its events but not built its lifecycles yet (killed there): r says
# the store is still being built, in the title and on the status line
env LEASETRAIL_TEST_DIE_AT=after-load "$bin" ingest -q --db "$tmp/s.db" evil.log >/dev/null 2>&1 &&
  fail "the ingest was not stopped after its load"
tm send-keys r
wait_for 'the store is still being built: '
screen | head -1 | grep -qF '(still being built)' || fail "the title does not say it"
"$bin" ingest -q --db "$tmp/s.db" evil.log >/dev/null
tm send-keys r
wait_for 'NODES (4)'
screen | grep -q 'still being built' && fail "the finished store still says it is being built"
screen | grep -qF 'evil\x1b[Hnode\u{202e}' || fail "a hostile name is not shown escaped"
tm send-keys / evil Enter
tm send-keys Enter
wait_for 'evil\x1b]2;pwned\x07\x1b[2J'
[ "$(tm display-message -p '#{pane_title}')" != pwned ] || fail "the terminal was retitled"
screen | grep -q 'leasetrail | Timeline' || fail "the screen was cleared"
only_sgr "hostile text"
tm send-keys Q
wait_for 'EXIT=0'

# ---- NotReady (samples/notready): its own strip symbol and colour, state not-ready, and the
# cluster list sorted by NotReady time (< from problems first: last renew, NotReady time)
rm -f "$tmp/s.db" "$tmp/s.db-wal" "$tmp/s.db-shm"
"$bin" ingest -q --db "$tmp/s.db" "$samples/notready/audit" "$samples/notready/logs" >/dev/null
start
wait_for 'NODES (8)'
row=$(screen | grep '^ip-10-1-0-10.ec2.internal')
echo "$row" | grep -q 'not-ready' || fail "10's state: $row"
echo "$row" | grep -Eq '=+ *!{20,}$' || fail "10's strip has no NotReady time to the end: $row"
screen | grep '^ip-10-1-0-17.ec2.internal' | grep -qF '!' && fail "17 was never NotReady"
screen | grep -qF '! NotReady' || fail "the legend has no NotReady"
tm capture-pane -p -e | grep '^.*ip-10-1-0-13' | grep -q $'\e\[' || fail "no colour on 13's row"
tm send-keys '<' '<'
wait_for 'by NotReady time'
first=$(screen | grep -A1 '^NODES (8)' | tail -1)
echo "$first" | grep -q '^ip-10-1-0-10.ec2.internal' || fail "longest NotReady not first: $first"
screen | grep -A8 '^NODES (8)' | tail -1 | grep -q '^ip-10-1-0-17' || fail "never NotReady not last"
tm send-keys '?'
wait_for 'problems first, name, state, 404, DEL, ANOM, NotReady time, last renew'
tm send-keys Q
wait_for 'EXIT=0'

# ---- kubelet journals alone: every node is listed, as `nodes` lists it, logs-only (or
# not-ready when a window is still open at the end)
rm -f "$tmp/s.db" "$tmp/s.db-wal" "$tmp/s.db-shm"
"$bin" ingest -q --db "$tmp/s.db" --year 2024 "$samples"/notready/logs/kubelet-*.log >/dev/null
nlogs=$(ls "$samples"/notready/logs/kubelet-*.log | wc -l)
start
wait_for "NODES ($nlogs)"
row=$(screen | grep '^ip-10-1-0-17.ec2.internal')
echo "$row" | grep -q 'logs-only' || fail "17 from its journal alone: $row"
[ "$(screen | grep -c '^ip-10-1-0-1[0-9].ec2.internal.* \(logs-only\|not-ready\) ')" = "$nlogs" ] ||
  fail "not every journal's node is listed logs-only or not-ready"
tm send-keys Q
wait_for 'EXIT=0'

# ---- a generated cluster (lt-gen): 60 steady nodes and 2 with incidents, one of which has two
# NotReady windows; it sorts after the 60 by name, so off a 40-row screen: it opens first
tui_gen_cluster 60
start
wait_for 'NODES (62)'
screen | grep -q ' rows, by problems first' || fail "not opened problems first"
first=$(screen | grep -A1 '^NODES (62)' | tail -1)
echo "$first" | grep -q '^ip-10-1-0-10.ec2.internal .*!' || fail "the NotReady node is not first: $first"
# > sorts by the next column (name): the node goes off the screen; < comes back
# (the cursor stays on its row, which then lies below the 60 others: g goes to the top)
tm send-keys '>'
wait_for 'by name'
screen | grep -q '^ip-10-1-0-10' || fail "the cursor's row left the screen"
tm send-keys g
wait_for 'NODES (62)'
screen | grep -q '^ip-10-1-0-10' && fail "by name, the node should be off a 40-row screen"
tm send-keys '<'
wait_for 'by problems first'
# f filters on any column, numbers compared; each f opens a fresh prompt
tm send-keys f
tm send-keys -l 'anom>0'
tm send-keys Enter
wait_for 'NODES (1)'
screen | grep -q '^ip-10-1-0-10.ec2.internal' || fail "anom>0 lost the node"
tm send-keys f
wait_for 'filter (name regex'
screen | tail -1 | grep -qF 'anom>0' && fail "the prompt was not fresh: $(screen | tail -1)"
want=$("$bin" nodes --db "$tmp/s.db" -o csv | grep -c '^ip-10-0-151-1[0-9]\.[^,]*,renewing,')
tm send-keys -l 'state=^renewing$ name=151-1[0-9]\.'
tm send-keys Enter
wait_for "NODES ($want)"
screen | grep -q 'filter state=^renewing$ name=151-1\[0-9\]' || fail "the legend does not say the filter"
tm send-keys f
tm send-keys -l 'kind=leader'
tm send-keys Enter
wait_for 'LEADER-ELECTION LEASES (2)'
screen | grep -q '^NODES' && fail "kind=leader kept nodes"
tm send-keys f
tm send-keys -l 'zz=1'
tm send-keys Enter
wait_for "no column 'zz' here; columns: name, state, 404"
tm send-keys f Enter
wait_gone ', filter '
screen | grep -q '^kube-controller-manager' || fail "the cursor's lease left the screen"
# every row opens what is behind it: a row of kubelet lines lists them (FILE:LINE each, as
# many as its COUNT), and Enter on one shows the raw line and where it was read
tm send-keys g Enter
wait_for 'DETAIL of ip-10-1-0-10.ec2.internal'
tm send-keys / 'node-status-error' Enter
n=$(screen | grep -m1 ' node-status-error ' | awk '{print $4}')
tm send-keys Enter
wait_for "$n lines node-status-error of ip-10-1-0-10.ec2.internal [kubelet]"
screen | grep -Eq '^[0-9:.]+  kubelet-ip-10-1-0-10.ec2.internal.log:[0-9]+  E Error updating node status, will retry' ||
  fail "the kubelet lines"
tm send-keys G
wait_for "$n lines node-status-error of ip-10-1-0-10.ec2.internal [kubelet] (Enter"
tm send-keys Enter
wait_for 'log line L'
screen | grep -Eq 'from (.*/)?gen/logs/kubelet-ip-10-1-0-10.ec2.internal.log:[0-9]+ \(byte [0-9]+\)' ||
  fail "the line's provenance"
screen | grep -qF '"Error updating node status, will retry" err=' || fail "the raw line"
tm send-keys Escape Escape
wait_for 'DETAIL of ip-10-1-0-10.ec2.internal'
# text that fits: a cut DETAIL ends in '…'; l scrolls it ('…' at its left); w wraps the
# selected row's whole detail under the list
row() { screen | grep -m1 ' node-status-error '; }
row | grep -q '…$' || fail "a cut detail has no …: $(row)"
screen | tail -3 | grep -qF '(line L' && fail "the detail fitted in two lines: no test"
tm send-keys l
wait_for 'DETAIL from column 17'
row | grep -Eq 'node-status-error +[0-9]+  \[kubelet\] …' || fail "l did not scroll: $(row)"
tm send-keys h w
wait_for 'the whole detail under the list'
screen | tail -6 | grep -qF '(line L' || fail "w did not show the whole detail"
row | grep -q '\[kubelet\] Error updating' || fail "h did not scroll back: $(row)"
tm send-keys Escape
wait_for 'rows, by problems first'
# Enter on a query result lands on the row it is about: not-ready's row on the NOT_READY
# window (the GAP before it overlaps its start); kubelet-errors' on a row of that kind
tm send-keys c
wait_for 'leasetrail | Queries'
tm send-keys / '^not-ready' Enter Enter
wait_for 'ip-10-1-0-10.ec2.internal  05:56:13.' # times as the timeline writes them
tm send-keys Enter
wait_for 'DETAIL of ip-10-1-0-10.ec2.internal'
screen | tail -3 | grep -q 'Ready=Unknown, cause network-partition' || fail "not on the NOT_READY row"
tm send-keys q
wait_for 'leasetrail | Queries'
tm send-keys Tab / '^kubelet-errors' Enter Enter
wait_for 'kubelet-errors: '
kind=$(screen | grep -m1 '^ip-10-1-0-10.ec2.internal ' | awk '{print $2}')
tm send-keys Enter
wait_for 'DETAIL of ip-10-1-0-10.ec2.internal'
tm capture-pane -p -e | grep -F "$kind" | grep -q $'\e\[[0-9;]*7m' || fail "not on a $kind row"
only_sgr "the generated cluster"
tm send-keys Q
wait_for 'EXIT=0'

# ---- a store that is not one is a clear error, before the terminal is touched
echo "not a database" >bad.db
set +e
"$bin" tui --db bad.db </dev/null >out 2>err; s1=$?
"$bin" tui --db missing.db </dev/null >out 2>err2; s2=$?
set -e
[ "$s1" = 1 ] && grep -q 'not a leasetrail store' err || fail "bad store: $s1 $(cat err)"
[ "$s2" = 1 ] && grep -q 'no store here' err2 || fail "missing store: $s2 $(cat err2)"
echo "e2e tui: ok"
