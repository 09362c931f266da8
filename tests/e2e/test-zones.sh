#!/usr/bin/env bash
# Zones and years of text logs (issue 15): journalctl header zones (real headers from
# tests/corpus), --utc-offset over them, an ambiguous abbreviation resolved by the lines' own
# zoned times or by the audit events, or told as a guess; years from a date in the lines;
# and order: a journal ingested before the audit log of its cluster is re-dated, and the
# timeline is the one a single ingest of both gives.
set -euo pipefail
# whether the input has a line that matches, read to its end (grep -q stops early: the
# writer then dies of SIGPIPE, and pipefail would take that as its failure)
seen() { [ "$(grep -c "$@")" != 0 ]; }
bin=$1 corpus=$2 samples=$3 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { "$bin" sql -o csv --db "$1" "$2" | tail -n +2; }

# 1. real headers: PDT and UTC are the zones of the lines below them
k=$corpus/kubelet
"$bin" ingest -q --db pdt.db "$k/gh-notes-kubeadm-flannel_journal_pdt-header.log" >/dev/null 2>pdt.err
[ ! -s pdt.err ] || fail "PDT: unexpected stderr: $(cat pdt.err)"
[ "$(q pdt.db 'SELECT min(ts) FROM logs')" = "2025-07-26T19:57:32.844609Z" ] \
  || fail "PDT header: $(q pdt.db 'SELECT min(ts) FROM logs')"
[ "$(q pdt.db 'SELECT zone, zone_from, year, year_rule FROM log_sources')" \
  = '-07:00,journal header (PDT),2025,journal header' ] \
  || fail "PDT stats: $(q pdt.db 'SELECT zone, zone_from, year, year_rule FROM log_sources')"
"$bin" stats --db pdt.db | seen '^1  *4  .*  2025  journal header  -07:00  journal header (PDT)  0' \
  || fail "stats: $("$bin" stats --db pdt.db | sed -n '/^Log lines (/,/^$/p')"
"$bin" ingest -q --db utc.db "$k/gh-kubernetes-112874_journal_utc-header.log" >/dev/null
[ "$(q utc.db 'SELECT min(ts), zone, zone_from FROM logs, log_sources')" \
  = '2022-10-05T06:27:03.438225Z,UTC,journal header (UTC)' ] \
  || fail "UTC header: $(q utc.db 'SELECT min(ts), zone, zone_from FROM logs, log_sources')"

# 2. --utc-offset says otherwise: it wins over the header
"$bin" ingest -q --db opt.db --utc-offset +02:00 "$k/gh-notes-kubeadm-flannel_journal_pdt-header.log" >/dev/null
[ "$(q opt.db 'SELECT min(ts), zone_from FROM logs, log_sources')" \
  = '2025-07-26T10:57:32.844609Z,--utc-offset' ] \
  || fail "--utc-offset: $(q opt.db 'SELECT min(ts), zone_from FROM logs, log_sources')"

# 3. CST means China, US Central or Cuba.  With nothing else in the store: the first, said
# on stderr and in stats (a real header of a Kubernetes master's journal)
"$bin" ingest --db cst.db "$k/gh-etcd-backup-readme_journal_cst-header.log" >/dev/null 2>cst.err
grep -q 'cst-header.log: zone CST: CST means China, US Central or Cuba: taken as China' cst.err \
  || fail "CST guess not told: $(cat cst.err)"
[ "$(q cst.db 'SELECT min(ts), zone FROM logs, log_sources')" = '2018-02-27T02:02:29.000000Z,+08:00' ] \
  || fail "CST guess: $(q cst.db 'SELECT min(ts), zone FROM logs, log_sources')"
"$bin" stats --db cst.db | seen '+08:00  a guess (CST): CST means China' || fail "stats: CST guess"
# ... a time the kubelet wrote with its zone ("-0600 CST", Go's time.Time) next to the line's
cat >said.log <<'LOG'
-- Logs begin at Mon 2024-01-15 08:00:00 CST, end at Mon 2024-01-15 09:10:00 CST. --
Jan 15 09:00:01 node-a kubelet[812]: E0115 09:00:01.100000     812 nestedpendingoperations.go:335] Operation failed. No retries permitted until 2024-01-15 09:00:01.600000 -0600 CST m=+3.0 (durationBeforeRetry 500ms)
Jan 15 09:00:02 node-a kubelet[812]: I0115 09:00:02.000000     812 kubelet.go:1] "hello"
LOG
"$bin" ingest --db said.db said.log >/dev/null 2>said.err
[ "$(q said.db 'SELECT max(ts), zone, zone_from FROM logs, log_sources')" \
  = '2024-01-15T15:00:02.000000Z,-06:00,evidence (CST): times written with their zone in its lines' ] \
  || fail "CST by the lines: $(q said.db 'SELECT max(ts), zone, zone_from FROM logs, log_sources')"
grep -q 'said.log: dated: zone -06:00' said.err || fail "said: $(cat said.err)"

# 4. the samples' node-delete journal as a US Central node writes it (local time, CST header):
# alone it is taken as China; with the audit log, whichever comes first, it is re-dated to
# -06:00 and the node's timeline is the one of a single ingest
mkdir logs
awk 'function back(d, h) { h -= 6; if (h < 0) { h += 24; d-- } return sprintf("%02d|%02d", d, h) }
  /^-- / { print "-- Logs begin at Thu 2024-04-04 23:50:00 CST, end at Fri 2024-04-05 00:04:35 CST. --"; next }
  { split(back(substr($0, 5, 2) + 0, substr($0, 8, 2) + 0), a, "|")
    line = "Apr " a[1] " " a[2] substr($0, 10)
    if (match(line, /: [IWEF]0405 [0-9][0-9]:/)) {
      split(back(5, substr(line, RSTART + 8, 2) + 0), b, "|")
      line = substr(line, 1, RSTART + 2) "04" b[1] " " b[2] substr(line, RSTART + 10)
    }
    print line }' "$samples/logs/kubelet-ip-10-0-241-171.ec2.internal.log" >cst-all.log
# containerd's lines write their UTC time (time="2024-04-05T05:50:36.82Z"): those alone say -06:00
"$bin" ingest --db cst-all.db cst-all.log >/dev/null 2>cst-all.err
grep -q 'cst-all.log: dated: zone -06:00 (times written with their zone in its lines)' cst-all.err \
  || fail "CST by containerd's times: $(cat cst-all.err)"
# without them, only the audit events can say
grep -v 'time="' cst-all.log >logs/kubelet-171-cst.log
head -2 cst-all.log | tail -1 | grep -q '^Apr 04 23:50:30 .*: E0404 23:50:30.009062 ' \
  || fail "CST copy: $(head -2 logs/kubelet-171-cst.log)"
# and a controller-manager log whose year only its mtime gives (a wrong one)
cp "$samples/logs/kube-controller-manager.ip-172-16-33-232.ec2.internal.log" logs/kcm.log
touch -d '2026-06-01T00:00:00Z' logs/kcm.log
"$bin" ingest --db ab.db logs >/dev/null 2>a.err
grep -q 'kcm.log: the year 2026 of its times is a guess (file mtime)' a.err || fail "mtime guess: $(cat a.err)"
grep -q 'kubelet-171-cst.log: zone CST: .* taken as China' a.err || fail "CST: $(cat a.err)"
"$bin" stats --db ab.db | seen '2026  file mtime (a guess)' || fail "stats: mtime guess"
"$bin" ingest --db ab.db "$samples/audit" >/dev/null 2>b.err
grep -q 'kubelet-171-cst.log: re-dated: zone -06:00 (the audit events), not the first meaning of CST' b.err \
  || fail "CST by the audit events: $(cat b.err)"
grep -q 'kcm.log: re-dated: year 2024 (audit events), was 2026 (file mtime)' b.err \
  || fail "kcm re-dated: $(cat b.err)"
"$bin" ingest -q --db ba.db "$samples/audit" >/dev/null
"$bin" ingest -q --db ba.db logs >/dev/null
"$bin" ingest -q --db one.db logs "$samples/audit" >/dev/null
for db in ab ba one; do
  "$bin" timeline --db $db.db ip-10-0-241-171.ec2.internal | sed 's/ (line L[0-9]*)//' >tl-$db.txt
  "$bin" timeline --db $db.db kube-system/kube-controller-manager | sed 's/ (line L[0-9]*)//' >kcm-$db.txt
  q $db.db 'SELECT year, year_rule, zone, zone_from, first_us, last_us FROM log_sources ORDER BY lines' >src-$db.txt
done
for db in ab ba; do
  diff -u tl-one.txt tl-$db.txt || fail "$db: the node's timeline differs from one ingest"
  diff -u kcm-one.txt kcm-$db.txt || fail "$db: the kcm timeline differs from one ingest"
  diff -u src-one.txt src-$db.txt || fail "$db: the sources' years and zones differ"
done
# the story is the samples' own: the kubelet's errors after the node's delete
grep -q 'audit  *NODE_DELETED' tl-one.txt && grep -q 'kubelet  *lease-owner-ref-failed' tl-one.txt \
  || fail "timeline: $(cat tl-one.txt)"
[ "$(q one.db "SELECT min(ts) FROM logs WHERE host LIKE 'ip-10-0-241-171%'")" = 2024-04-05T05:50:30.009062Z ] \
  || fail "re-dated times: $(q one.db "SELECT min(ts) FROM logs WHERE host LIKE 'ip-10-0-241-171%'")"

# 5. years from a date in the lines: a 2019 controller-manager log (no header, no audit)
# whose taint lines write "unresponsive as of 2019-05-16 ..." is of 2019, whatever its mtime
cp "$k/gh-kubernetes-77981_kcm_taint-lines.log" taint.log && touch -d '2025-01-01T00:00:00Z' taint.log
"$bin" ingest -q --db taint.db taint.log >/dev/null
[ "$(q taint.db 'SELECT min(ts), year, year_rule FROM logs, log_sources')" \
  = '2019-05-16T19:33:12.204484Z,2019,a date in its lines' ] \
  || fail "year from the lines: $(q taint.db 'SELECT min(ts), year, year_rule FROM logs, log_sources')"
# 6. journalctl -f in a zh_CN locale: a header with a beginning only (2019-12-11, CST), months
# written "12月": the mtime's year, not before the beginning; CST taken as China
cp "$k/gh-kubesphere-1657_journal_cst-begin-only_zh-locale.log" zh.log
touch -d '2019-12-12T00:00:00Z' zh.log
"$bin" ingest --db zh.db zh.log >/dev/null 2>zh.err
[ "$(q zh.db "SELECT min(ts), count(*) FROM logs")" = '2019-12-11T15:14:27.310989Z,3' ] \
  || fail "zh: $(q zh.db "SELECT min(ts), count(*) FROM logs")"
grep -q 'zh.log: the year 2019 of its times is a guess (file mtime)' zh.err || fail "zh: $(cat zh.err)"
touch -d '2018-06-01T00:00:00Z' zh.log # an mtime before the header's beginning: the beginning wins
"$bin" ingest -q --db zh2.db zh.log >/dev/null 2>&1
[ "$(q zh2.db "SELECT min(ts), year_rule FROM logs, log_sources")" \
  = "2019-12-11T15:14:27.310989Z,\"file mtime, not before the header's beginning\"" ] \
  || fail "zh lower bound: $(q zh2.db "SELECT min(ts), year_rule FROM logs, log_sources")"
echo ok
