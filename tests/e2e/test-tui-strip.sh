#!/usr/bin/env bash
# The TUI's time views, driven in tmux and checked on the screen (issue 20, items 5 and 7): the
# cluster strip's tick labels at round times (in the --tz zone too), the holder change and
# delete cells and their legend; the histogram screen (i) whose bins add up to what the store
# holds, zoomed with + and -, and whose NotReady column counts lt-gen's NotReady nodes; only
# SGR escapes reach the pane, and the terminal is given back on q; a query result's times and
# column names read as the timeline's, in the --tz zone.
#   bash tests/e2e/test-tui-strip.sh BIN CORPUS SAMPLES TMP
set -euo pipefail
bin=$1 samples=$3 tmp=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
tui_sock=lt-strip
. "$here/tui-lib.sh"

# start DB [TUI OPTIONS...]: the TUI on DB in a fresh 120x40 session; when it exits, the pane
# prints its status and whether the tty is back in cooked mode with echo
start() {
  local db=$1
  shift
  tui_session "$bin tui --db $db $*"
  wait_for 'leasetrail | Cluster'
}
quit_restored() {
  tm send-keys Q
  tui_exited 0 "($1)"
  [ ! -s tui.err ] || fail "stderr: $(cat tui.err)"
}
# the labels over the strip: what follows ANOM on the header line
ticks() { screen | sed -n 2p | sed 's/.* ANOM//'; }
# the histogram's rows: TIME EVENTS ERRORS NOTREADY [BAR] (these stores span less than a day)
hist_rows() { screen | grep -E '^[0-9:-]+( [0-9:]+)? +[0-9]+ +[0-9]+ +[0-9]+ '; }
hist_col() { hist_rows | awk -v c="$1" '{s += $(c + 1)} END {print s + 0}'; }

"$bin" ingest -q --db s.db "$samples/audit" >/dev/null

# ---- the strip: ticks at round minutes, in order; the holder change and the delete cells
start s.db
wait_for 'NODES (3)'
t=$(ticks)
[ "$(echo $t | wc -w)" -ge 5 ] || fail "fewer than 5 tick labels: $t"
for k in $t; do
  [[ $k =~ ^[0-9]{2}:[0-9]{2}$ ]] || fail "a tick is not a round minute: $k"
done
[ "$(echo $t | tr ' ' '\n' | sort -c 2>&1)" = "" ] || fail "ticks out of order: $t"
screen | grep '^kube-controller-manager ' | grep -q 'H' || fail "kcm's holder change has no H"
screen | grep -qF 'H holder' || fail "the legend has no holder change"
screen | grep -qF 'D deleted' || fail "the legend has no delete"
# distinct colours: the H cell cyan, the D cell reverse (the auth cell is plain magenta)
tm capture-pane -p -e | grep 'kube-controller-manager' | grep -q $'\e\[[0-9;]*36m\(\e\[[0-9;]*m\)*H' ||
  fail "the H cell is not cyan"
tm capture-pane -p -e | grep 'ip-10-0-241-171' | grep -q $'\e\[[0-9;]*7[;m]\(\e\[[0-9;]*m\)*D' ||
  fail "the D cell is not in reverse"
only_sgr "cluster"
# help: the key and the screen's own section, the cells from the table
tm send-keys '?'
wait_for 'leasetrail | Help'
screen | grep -qE '^  i +histogram: events, errors, NotReady nodes' || fail "help lacks i"
screen | grep -qF 'Histogram (i): events, errors and NotReady nodes' || fail "help lacks the screen"
tm send-keys G
wait_for "'H'  holder change"
tm send-keys q

# ---- the histogram: 30 s bins over the 15 minutes; they add up to the store's events and lines
tm send-keys i
wait_for 'leasetrail | Histogram'
wait_for '30 bins of 30.0s'
screen | grep -qE '^TIME +EVENTS +ERRORS +NOTREADY' || fail "the histogram's header"
want=$("$bin" sql --db s.db -o csv \
  "SELECT (SELECT count(*) FROM audit WHERE superseded = 0) + (SELECT count(*) FROM lines)" | tail -1)
[ "$(hist_col 1)" = "$want" ] || fail "the bins' events add up to $(hist_col 1), not $want"
errs=$("$bin" sql --db s.db -o csv "SELECT count(*) FROM audit WHERE superseded = 0 AND code >= 400" |
  tail -1)
[ "$(hist_col 2)" = "$errs" ] || fail "the bins' errors add up to $(hist_col 2), not $errs"
hist_rows | head -1 | grep -q '^05:50:00 ' || fail "the first bin does not start at 05:50:00"
hist_rows | grep -qE '^[0-9:]+ +[0-9]+ +[1-9][0-9]* +[0-9]+ +x+=+' || fail "no errors in a bar"
only_sgr "histogram"
# + finer (15 s bins, the cursor's time kept), - twice coarser (1 min), the sums the same
tm send-keys +
wait_for 'bins of 15.0s'
hist_rows | awk '{print $1}' | grep -qvE ':(00|15|30|45)$' && fail "15 s bins off round times"
tm send-keys - -
wait_for '15 bins of 1m0s'
[ "$(hist_col 1)" = "$want" ] || fail "1 min bins add up to $(hist_col 1), not $want"
hist_rows | awk '{print $1}' | grep -qv ':00$' && fail "1 min bins off round minutes"
tm send-keys q
wait_for 'leasetrail | Cluster'
quit_restored "histogram"

# ---- --tz: the ticks and the bins in the zone's round times
start s.db --tz +05:30
wait_for 'NODES (3)'
ticks | grep -qE '^ +11:[0-9]{2} ' || fail "the ticks are not in +05:30: $(ticks)"
tm send-keys i
wait_for '30 bins of 30.0s'
hist_rows | head -1 | grep -q '^11:20:00 ' || fail "the bins are not in +05:30"
# one time format and one column style (item 7): a query result's times read as the
# timeline's, in the zone, its column names in capitals as the timeline's
tm send-keys q c
wait_for 'leasetrail | Queries'
tm send-keys / '^gc-deletes' Enter Enter
wait_for 'NODE_DELETED_BY'
screen | grep -qE '^NAMESPACE +LEASE +LEASE_DELETED +NODE_DELETED ' || fail "the result's header"
screen | grep -q ' ip-10-0-241-171.ec2.internal  11:26:00.230 ' || fail "the result's time"
tm send-keys Enter
wait_for 'DETAIL of ip-10-0-241-171.ec2.internal'
screen | grep -qE '^START +END +KIND +COUNT' || fail "the timeline's header"
screen | grep -q '^11:26:00.230 11:26:00.230 DELETED ' || fail "the timeline's time"
only_sgr "queries and timeline"
quit_restored "--tz"

# ---- a generated cluster with NotReady nodes and a leader change: the NOTREADY column
gen=${LT_GEN:-$(dirname "$bin")/../samples/lt-gen}
[ -x "$gen" ] || fail "no lt-gen at $gen (set LT_GEN)"
mkdir -p gen/logs
"$gen" --nodes 20 --minutes 30 --stories steady,leader-change -o gen/steady.log
"$gen" --health partition,kubelet-stop --seed 2 --nodes 2 --minutes 30 -o gen/h.log \
  --journal-dir gen/logs
"$bin" ingest -q --db g.db gen/steady.log gen/h.log.1 gen/h.log.2 gen/logs >/dev/null
nr=$("$bin" nodes --db g.db -o csv | awk -F, 'NR > 1 && $3 > 0' | wc -l)
[ "$nr" -ge 1 ] || fail "lt-gen made no NotReady node"
start g.db
wait_for 'NODES (22)'
screen | grep -q '^ip-10-1-0-10.ec2.internal .*!' || fail "no NotReady cells"
screen | grep '^kube-controller-manager ' | grep -q 'H' || fail "the leader change has no H"
tm send-keys i
wait_for 'leasetrail | Histogram'
hist_rows | awk '$4 > 0' | grep -q . || fail "no bin counts a NotReady node"
max=$(hist_rows | awk '$4 > m {m = $4} END {print m + 0}')
[ "$max" -le "$nr" ] || fail "a bin counts $max NotReady nodes of $nr"
# coarser and coarser: one bin in the end, counting each NotReady node once
for _ in $(seq 1 20); do
  screen | grep -qE '^1 bin of ' && break
  tm send-keys -
  sleep 0.1
done
wait_for '1 bin of '
[ "$(hist_col 3)" = "$nr" ] || fail "one bin counts $(hist_col 3) NotReady nodes, not $nr"
only_sgr "generated histogram"
tm send-keys q
wait_for 'leasetrail | Cluster'
quit_restored "generated"
echo "e2e tui-strip: ok"
