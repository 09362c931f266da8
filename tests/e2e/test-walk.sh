#!/usr/bin/env bash
# The walk: links to directories inside a directory are not followed unless --follow; with it,
# each directory is walked once, so two link loops cost nothing; FIFOs and process substitutions
# named on the command line are read like stdin; a file that cannot be read is named with why.
set -euo pipefail
bin=$1 samples=$3 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
audit=$samples/audit/kube-apiserver-audit.2.log
kubelet=$samples/logs/kubelet-ip-10-0-241-74.ec2.internal.log
audit_line="ingested, 1944 records, 1003 stored, 0 duplicates, 941 skipped, 0 rejected"

# d/sub/a.log, two loops (to d and to sub) and a second name for sub
mkdir -p "$tmp/d/sub" "$tmp/elsewhere"
cp "$audit" "$tmp/d/sub/a.log"
cp "$kubelet" "$tmp/elsewhere/kubelet.log"
ln -s .. "$tmp/d/sub/loop-up"
ln -s . "$tmp/d/sub/loop-here"
ln -s sub "$tmp/d/alias"
ln -s ../elsewhere "$tmp/d/outside"

# ---- without --follow: no link to a directory is walked -------------------------------------
timeout 20 "$bin" ingest --db "$tmp/n.db" "$tmp/d" >"$tmp/out" 2>&1 || fail "walk: $(cat "$tmp/out")"
[ "$(grep -c ': ingested' "$tmp/out")" = 1 ] || fail "walk without --follow: $(cat "$tmp/out")"
grep -qxF "$tmp/d/sub/a.log: $audit_line" "$tmp/out" || fail "walk: $(cat "$tmp/out")"
# a link named on the command line is followed
timeout 20 "$bin" ingest --db "$tmp/n2.db" "$tmp/d/outside" >"$tmp/out" 2>&1
grep -q 'outside/kubelet.log: ingested' "$tmp/out" || fail "named link: $(cat "$tmp/out")"

# ---- --follow: every directory once (by device and inode), loops and all -------------------
timeout 20 "$bin" ingest --db "$tmp/f.db" --follow "$tmp/d" >"$tmp/out" 2>&1 \
  || fail "--follow: $(cat "$tmp/out")"
[ "$(grep -c ': ingested' "$tmp/out")" = 2 ] || fail "--follow: $(cat "$tmp/out")"
grep -qxF "$tmp/d/alias/a.log: $audit_line" "$tmp/out" || fail "--follow: $(cat "$tmp/out")"
grep -q '^.*/d/outside/kubelet.log: ingested' "$tmp/out" || fail "--follow: $(cat "$tmp/out")"
! grep -q 'loop-' "$tmp/out" || fail "--follow walked a loop: $(cat "$tmp/out")"
# many loops: a walk that doubled per loop would not end
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do ln -s .. "$tmp/d/sub/up$i"; ln -s ../sub "$tmp/d/sub/side$i"; done
timeout 20 "$bin" ingest --db "$tmp/f2.db" --follow "$tmp/d" >"$tmp/out" 2>&1 \
  || fail "--follow with 26 loops did not end in 20 s"
[ "$(grep -c ': ingested' "$tmp/out")" = 2 ] || fail "--follow, 26 loops: $(cat "$tmp/out")"

# ---- a store inside the directory it is fed from is not read as one of its logs -------------
mkdir -p "$tmp/inside" && cp "$audit" "$tmp/inside/a.log"
for _ in 1 2; do
  "$bin" ingest --db "$tmp/inside/s.db" "$tmp/inside" >"$tmp/out" 2>&1 || fail "store inside: $(cat "$tmp/out")"
  ! grep -q 's\.db' "$tmp/out" || fail "the store read as input: $(cat "$tmp/out")"
  grep -q '^1 files (.*0 not logs' "$tmp/out" || fail "store inside: $(cat "$tmp/out")"
done

# ---- a FIFO and a process substitution, read once like stdin --------------------------------
mkfifo "$tmp/fifo"
cat "$audit" >"$tmp/fifo" &
timeout 20 "$bin" ingest --db "$tmp/p.db" "$tmp/fifo" >"$tmp/out" 2>&1 || fail "fifo: $(cat "$tmp/out")"
wait
grep -qxF "$tmp/fifo: $audit_line" "$tmp/out" || fail "fifo: $(cat "$tmp/out")"
timeout 20 "$bin" ingest --db "$tmp/q.db" <(cat "$kubelet") >"$tmp/out" 2>&1 \
  || fail "<(cat journal): $(cat "$tmp/out")"
grep -q '^/dev/fd/[0-9]*: ingested, 125 records, 125 stored' "$tmp/out" \
  || fail "<(cat journal): $(cat "$tmp/out")"
timeout 20 "$bin" ingest --db "$tmp/q.db" <(cat "$audit") >"$tmp/out" 2>&1 \
  || fail "<(cat audit): $(cat "$tmp/out")"
grep -q "^/dev/fd/[0-9]*: $audit_line" "$tmp/out" || fail "<(cat audit): $(cat "$tmp/out")"

# ---- a file that cannot be read: its name and why (run as an unprivileged user when root) ---
as_user() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
if [ "$(id -u)" != 0 ] || command -v setpriv >/dev/null; then
  mkdir -p "$tmp/u" && chmod 777 "$tmp/u" && chmod 755 "$tmp"
  echo '{}' >"$tmp/u/secret.log" && chmod 000 "$tmp/u/secret.log"
  set +e
  as_user "$bin" ingest --db "$tmp/u/u.db" "$tmp/u/secret.log" >"$tmp/out" 2>"$tmp/err"
  status=$?
  set -e
  [ "$status" = 1 ] || fail "unreadable file: exit $status"
  grep -qxF "leasetrail: $tmp/u/secret.log: cannot open: Permission denied" "$tmp/err" \
    || fail "unreadable file: $(cat "$tmp/err")"
  ! grep -qx 'leasetrail: *' "$tmp/err" || fail "an empty error line: $(cat "$tmp/err")"
else
  echo "note: root without setpriv: the unreadable-file case is not run"
fi
echo "ok: walk"
