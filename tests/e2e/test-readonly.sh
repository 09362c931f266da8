#!/usr/bin/env bash
# Read-only evidence: a store opens for reading, and writes nothing, when its WAL shared-memory
# file cannot be created, from a read-only directory as a read-only file, and on a read-only
# mount; a command that must write says why it cannot.
#
# Root ignores file permissions, so the permission cases run the binary as an unprivileged user
# (setpriv) when the test runs as root; the read-only mount needs mount(8) rights and is skipped,
# with a note, where they are missing.  The -shm case (a directory in its place, which no one can
# open as a file) runs everywhere.
set -euo pipefail
bin=$1 samples=$3 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" ingest --db "$tmp/made.db" "$samples/audit" "$samples/logs" >/dev/null 2>&1 || true
"$bin" nodes --db "$tmp/made.db" >"$tmp/nodes.want"
"$bin" stats --db "$tmp/made.db" | sed 1d >"$tmp/stats.want"
[ -s "$tmp/nodes.want" ] || fail "no nodes in the sample store"

# every read command answers as from a writable store; $1 = store, $2 = what
reads_work() {
  "$as" "$bin" nodes --db "$1" >"$tmp/nodes.got" 2>"$tmp/err" || fail "$2: nodes: $(cat "$tmp/err")"
  cmp -s "$tmp/nodes.want" "$tmp/nodes.got" || fail "$2: nodes differ"
  "$as" "$bin" stats --db "$1" 2>"$tmp/err" | sed 1d >"$tmp/stats.got" || fail "$2: stats"
  cmp -s "$tmp/stats.want" "$tmp/stats.got" || fail "$2: stats differ: $(cat "$tmp/err")"
  "$as" "$bin" sql --db "$1" "SELECT count(*) FROM events" >/dev/null 2>"$tmp/err" \
    || fail "$2: sql: $(cat "$tmp/err")"
  "$as" "$bin" query --db "$1" renew-gaps >/dev/null 2>"$tmp/err" || fail "$2: query: $(cat "$tmp/err")"
  "$as" "$bin" nodes --db "$1" --gap 5s >/dev/null 2>"$tmp/err" || fail "$2: --gap: $(cat "$tmp/err")"
}
# a write is refused with a reason, and the store is left as it was
writes_refused() {
  set +e
  "$as" "$bin" ingest --db "$1" "$samples/audit" >/dev/null 2>"$tmp/err"
  status=$?
  set -e
  [ "$status" = 1 ] || fail "$2: ingest exit $status"
  grep -q "cannot write .*: \`ingest\` and \`rebuild\` write the store; read commands work" "$tmp/err" \
    || fail "$2: ingest message: $(cat "$tmp/err")"
}
as=env

# ---- the -shm cannot be created (a directory stands in its way): immutable read ---------------
mkdir -p "$tmp/shm" && cp "$tmp/made.db" "$tmp/shm/s.db" && mkdir "$tmp/shm/s.db-shm"
sum=$(md5sum <"$tmp/shm/s.db")
reads_work "$tmp/shm/s.db" "no -shm"
[ "$(md5sum <"$tmp/shm/s.db")" = "$sum" ] || fail "no -shm: the store changed"

# ---- a read-only directory and a read-only file, as a user permissions bind ------------------
if [ "$(id -u)" = 0 ]; then
  command -v setpriv >/dev/null && as_root_drop=1 || as_root_drop=0
else
  as_root_drop=1
fi
if [ "$as_root_drop" = 1 ]; then
  [ "$(id -u)" = 0 ] && as="$tmp/as-user"
  printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"\n' >"$tmp/as-user"
  chmod 755 "$tmp/as-user" "$tmp"
  mkdir -p "$tmp/rodir" && cp "$tmp/made.db" "$tmp/rodir/s.db"
  chmod 444 "$tmp/rodir/s.db" && chmod 555 "$tmp/rodir"
  sum=$(md5sum <"$tmp/rodir/s.db")
  reads_work "$tmp/rodir/s.db" "read-only directory and file"
  writes_refused "$tmp/rodir/s.db" "read-only directory and file"
  "$as" "$bin" rebuild --db "$tmp/rodir/s.db" 2>"$tmp/err" && fail "rebuild wrote a read-only store"
  [ "$(md5sum <"$tmp/rodir/s.db")" = "$sum" ] || fail "read-only directory: the store changed"
  [ "$(ls "$tmp/rodir")" = s.db ] || fail "read-only directory: files appeared: $(ls "$tmp/rodir")"
  # a read-only file in a writable directory: reads work, a write says so
  mkdir -p "$tmp/rofile" && cp "$tmp/made.db" "$tmp/rofile/s.db" && chmod 444 "$tmp/rofile/s.db"
  chmod 777 "$tmp/rofile"
  reads_work "$tmp/rofile/s.db" "read-only file"
  writes_refused "$tmp/rofile/s.db" "read-only file"
  chmod 755 "$tmp/rodir"
  # a copy taken while an ingest was still writing: its -wal holds commits that a read-only
  # place cannot use (no -shm); the read says so rather than pass the main file off as all
  mkfifo "$tmp/feed"
  (for _ in 1 2 3 4 5 6 7 8 9 10 11 12; do cat "$samples/audit/kube-apiserver-audit.1.log"; done
   sleep 5) >"$tmp/feed" &
  feeder=$!
  "$bin" ingest --db "$tmp/live.db" "$tmp/feed" >/dev/null 2>&1 &
  writer=$!
  for _ in $(seq 50); do [ -s "$tmp/live.db-wal" ] && break; sleep 0.1; done
  sleep 0.5
  mkdir -p "$tmp/walcopy" && cp "$tmp/live.db" "$tmp/live.db-wal" "$tmp/walcopy/"
  wait "$feeder" "$writer" || true
  chmod 555 "$tmp/walcopy"
  [ -s "$tmp/walcopy/live.db-wal" ] || fail "no -wal with commits in the copy"
  "$as" "$bin" stats --db "$tmp/walcopy/live.db" >/dev/null 2>"$tmp/err" || fail "wal copy: $(cat "$tmp/err")"
  grep -q 'read without its -wal file' "$tmp/err" || fail "wal copy: no warning: $(cat "$tmp/err")"
  chmod 755 "$tmp/walcopy"
  as=env
else
  echo "note: running as root without setpriv: the permission cases are not run"
fi

# ---- a read-only mount (evidence media), where mounting is allowed ---------------------------
mkdir -p "$tmp/mnt"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64m tmpfs "$tmp/mnt" 2>/dev/null; then
  trap 'umount "$tmp/mnt" 2>/dev/null || true' EXIT
  cp "$tmp/made.db" "$tmp/mnt/s.db"
  mount -o remount,ro "$tmp/mnt"
  reads_work "$tmp/mnt/s.db" "read-only mount"
  writes_refused "$tmp/mnt/s.db" "read-only mount"
  grep -q 'Read-only file system' "$tmp/err" || fail "read-only mount: $(cat "$tmp/err")"
  umount "$tmp/mnt"
  trap - EXIT
else
  echo "note: cannot mount here: the read-only mount case is not run"
fi
echo "ok: readonly"
