# The tmux harness of the TUI's e2e scripts (test-tui.sh, test-tui-strip.sh, test-tui-tools.sh):
# sourced after `cd "$tmp"`, with tui_sock naming the script's tmux servers.
#
# Each start gets its own tmux server (tui_new_server): kill-server returns before the old
# server has gone, and a client that reaches its dying socket fails with "server exited
# unexpectedly".  Every server is killed, and its socket removed, when the script exits.
sock=$tui_sock-$$-0 socks=()
tm() { tmux -L "$sock" "$@"; }
tui_cleanup() {
  local s
  for s in "${socks[@]}"; do
    tmux -L "$s" kill-server 2>/dev/null || true
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$s"
  done
}
trap tui_cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  echo "--- screen:" >&2
  tm capture-pane -p >&2 2>/dev/null || true
  exit 1
}
command -v tmux >/dev/null || fail "tmux is not installed"

# tui_new_server: the last server killed, the next start's socket named and remembered
tui_new_server() {
  tm kill-server 2>/dev/null || true
  sock=$tui_sock-$$-${#socks[@]}
  socks+=("$sock")
}

# wait_for TEXT [SECONDS]: poll the screen until TEXT (fixed string) is on it
wait_for() {
  local i
  for i in $(seq 1 $(( ${2:-15} * 20 ))); do
    tm capture-pane -p 2>/dev/null | grep -qF -- "$1" && return 0
    sleep 0.05
  done
  fail "'$1' did not appear"
}

# wait_gone TEXT: poll until TEXT is no longer on the screen
wait_gone() {
  local i
  for i in $(seq 1 300); do
    tm capture-pane -p 2>/dev/null | grep -qF -- "$1" || return 0
    sleep 0.05
  done
  fail "'$1' did not go away"
}

screen() { tm capture-pane -p; }

# tui_session CMD: the shell command CMD (the TUI, its stderr to $tmp/tui.err) in a fresh 120x40
# session; when it exits, the pane prints its status and whether the tty is back in cooked mode
# with echo (TTY icanon echo END), then stays
tui_session() {
  tui_new_server
  tm -f /dev/null new-session -d -x 120 -y 40 -e LANG=C.UTF-8 -e TERM=xterm-256color \
    "$1 2>$tmp/tui.err; echo EXIT=\$?;
     echo \"TTY \$(stty -a | tr ' ' '\n' | grep -x -e icanon -e echo | tr '\n' ' ')END\";
     tput cnorm >/dev/null; sleep 600"
}

# tui_exited STATUS WHAT: the TUI exited with STATUS and the tty is back in cooked mode with
# echo; waits for the TTY line too, which the pane prints after EXIT= (a check between the two
# saw a blank line and failed)
tui_exited() {
  wait_for "EXIT=$1"
  wait_for 'END'
  screen | grep -q 'TTY icanon echo END' || fail "tty not restored $2"
}

# only_sgr WHAT: only SGR (ESC [ ... m: colours, reverse) may reach the pane; any escape left
# after removing them fails
only_sgr() {
  tm capture-pane -p -e | perl -pe 's/\e\[[0-9;:]*m//g' | grep -q $'\e' &&
    fail "$1: an escape other than SGR reached the pane"
  return 0
}

# tui_gen_cluster STEADY: $tmp/s.db made anew from lt-gen: STEADY steady nodes and 2 with
# incidents (a partition and a stopped kubelet, one node NotReady twice), audit and journals
tui_gen_cluster() {
  local gen=${LT_GEN:-$(dirname "$bin")/../samples/lt-gen}
  [ -x "$gen" ] || fail "no lt-gen at $gen (set LT_GEN)"
  rm -rf "$tmp/s.db" "$tmp/s.db-wal" "$tmp/s.db-shm" gen
  mkdir -p gen/logs
  "$gen" --nodes "$1" --minutes 30 --stories steady -o gen/steady.log
  "$gen" --health partition,kubelet-stop --seed 2 --nodes 2 --minutes 30 -o gen/h.log \
    --journal-dir gen/logs
  "$bin" ingest -q --db "$tmp/s.db" gen/steady.log gen/h.log.1 gen/h.log.2 gen/logs >/dev/null
}
