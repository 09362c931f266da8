#!/usr/bin/env bash
# shapes.sh - text logs as tools hand them out: mixed kubectl logs (klog and JSON lines), Rancher
# UI exports, localized journals, rsyslog-forwarded CRI records, hard-wrapped pastes.
# Usage: shapes.sh LEASETRAIL LOG_SHAPES CORPUS SAMPLES TMPDIR
#  1. the samples' logs through every shape samples/log-shapes.c writes give the same lines as
#     the plain form (sql over the logs view; for a shape that cannot carry a column, that
#     column aside, said below); the hard-wrapped audit log gives the same events;
#  2. the real samples of the corpus (tests/corpus/kubelet, provenance in its README);
#  3. bad input in each shape: file, line and reason, every good line kept.
set -euo pipefail
bin=$1 conv=$2 corpus=$3 samples=$4 tmp=$5
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { "$bin" sql -o csv --db "$1" "$2" | tail -n +2; }
same() { # same NAME PLAIN_DB SHAPE_DB COLUMNS: the logs of both, in one order
	diff <(q "$2" "SELECT $4 FROM logs ORDER BY ts_us, message, id") \
		<(q "$3" "SELECT $4 FROM logs ORDER BY ts_us, message, id") >"$1.diff" \
		|| fail "$1: lines differ from the plain form's: $(head -4 "$1.diff")"
}
ingest() { # ingest DB FILES...: no rejects
	local db=$1
	shift
	"$bin" ingest --db "$db" "$@" >"$db.out" 2>"$db.err" || fail "$db: ingest exited $?: $(cat "$db.err")"
	grep -q ', 0 rejected' "$db.out" || fail "$db: rejects: $(cat "$db.out" "$db.err")"
}

# 1. the same logs through each shape
kcm=("$samples"/logs/kube-controller-manager.*.log)
journal=$samples/logs/kubelet-ip-10-0-241-171.ec2.internal.log
mkdir -p plain mixed rancher rsyslog
cp "${kcm[@]}" plain/
"$bin" ingest -q --year 2024 --db kcm.db plain/* >/dev/null
[ "$(q kcm.db "SELECT count(*) FROM logs")" -gt 100 ] || fail "plain kcm: too few lines"
for f in "${kcm[@]}"; do
	b=$(basename "$f")
	"$conv" --to mixed --year 2024 <"$f" >"mixed/$b"
	"$conv" --to rancher --year 2024 <"$f" >"rancher/$b"
	"$conv" --to rsyslog-cri --year 2024 --host node-1 <"$f" >"rsyslog/$b"
done
# no --year: the JSON lines' times, the viewer's dates, the CRI times carry it
ingest mixed.db mixed/*
ingest rancher.db rancher/*
ingest rsyslog.db rsyslog/*
[ "$(grep -c '^{"ts"' mixed/"$(basename "${kcm[0]}")")" -gt 10 ] || fail "mixed: too few JSON lines"
base="ts_us, klog_us, component, severity, location, kind, subject, not_found, message"
# a JSON log line carries no thread id and writes its fields as JSON
same mixed kcm.db mixed.db "$base"
same rancher kcm.db rancher.db "$base, pid, fields"
# the forwarder's host is the line's; the plain klog names none
same rsyslog kcm.db rsyslog.db "$base, pid, fields"
[ "$(q rsyslog.db "SELECT DISTINCT host FROM logs")" = node-1 ] || fail "rsyslog: the forwarder's host"
grep -q ' stderr P ' rsyslog/*.log || fail "rsyslog: no partial records written"

all="ts_us, klog_us, host, ident, pid, component, severity, location, kind, subject, not_found,
  message, fields"
cp "$journal" journal.log
"$bin" ingest -q --db journal.db journal.log >/dev/null 2>&1
for ll in de fr es ru ko ja zh; do
	"$conv" --to "journal-$ll" <"$journal" >"journal-$ll.log"
	ingest "journal-$ll.db" "journal-$ll.log"
	same "journal-$ll" journal.db "journal-$ll.db" "$all"
done
grep -q '^ 4월 05 ' journal-ko.log && grep -q '^-- Logs begin at Fr 2024' journal-de.log \
	|| fail "journal locales: not written as glibc writes them"

# hard-wrapped at several widths: the journal, bare klog, audit JSON lines
for w in 80 100 120; do
	"$conv" --to wrap --width "$w" <"$journal" >"journal-w$w.log"
	ingest "journal-w$w.db" "journal-w$w.log"
	same "journal-w$w" journal.db "journal-w$w.db" "$all"
	[ "$(q "journal-w$w.db" "SELECT count(*) FROM logs WHERE ext_id LIKE 'hard-wrapped: lines %'")" -gt 0 ] \
		|| fail "journal-w$w: no line says it was joined"
done
mkdir -p kcm-wrap
for f in "${kcm[@]}"; do "$conv" --to wrap --width 90 <"$f" >"kcm-wrap/$(basename "$f")"; done
"$bin" ingest -q --year 2024 --db kcm-wrap.db kcm-wrap/* >kcm-wrap.out 2>&1 || fail "kcm-wrap: $(cat kcm-wrap.out)"
same kcm-wrap kcm.db kcm-wrap.db "$base, pid, fields"
audit=$samples/audit/kube-apiserver-audit.1.log
head -2000 "$audit" >audit.log
"$conv" --to wrap --width 200 <audit.log >audit-wrap.log
"$bin" ingest -q --db audit.db audit.log >/dev/null
ingest audit-wrap.db audit-wrap.log
cols="audit_id, stage, ts_us, verb, resource, namespace, name, user, code, lease_holder"
diff <(q audit.db "SELECT $cols FROM events ORDER BY audit_id, stage") \
	<(q audit-wrap.db "SELECT $cols FROM events ORDER BY audit_id, stage") >audit.diff \
	|| fail "audit-wrap: events differ: $(head -4 audit.diff)"
[ "$(q audit-wrap.db "SELECT count(*) FROM audit_ext WHERE ext_id LIKE 'hard-wrapped: lines %'")" -gt 0 ] \
	|| fail "audit-wrap: no event says it was joined"

# 2. the real samples (and samples modelled on real ones: tests/corpus/README.md)
k=$corpus/shapes
"$bin" ingest --db real.db "$k"/gh-fdb-operator-573_kubectl-logs_mixed.log \
	"$k"/gh-gke-autoneg-95_kubectl-logs_mixed-rfc3339.log >real.out 2>real.err \
	|| fail "mixed samples: $(cat real.err)"
grep -q 'mixed.log: ingested, 4 records, 4 stored, 0 duplicates, 0 skipped, 0 rejected' real.out \
	|| fail "fdb mixed: $(cat real.out)"
[ "$(q real.db "SELECT group_concat(ts || ' ' || coalesce(kind, '-'), ' | ') FROM (SELECT ts, kind FROM logs WHERE source_id = 1 ORDER BY line)")" = \
	"2021-03-21T13:26:00.528890Z - | 2021-03-21T13:26:00.529170Z leader-acquiring | 2021-03-21T13:26:00.630140Z - | 2021-03-21T13:26:18.299225Z leader-acquired" ] \
	|| fail "fdb mixed lines: $(q real.db "SELECT line, ts, kind, message FROM logs WHERE source_id = 1")"
# the JSON lines at their RFC 3339 times; the klog line before them at its own time of day (a
# JSON line's year reaches the klog lines after it only: docs/formats.md)
[ "$(q real.db "SELECT count(*) FROM logs WHERE source_id = 2 AND ts LIKE '2023-07-18T03:39:17%'")" = 4 ] \
	|| fail "autoneg mixed lines: $(q real.db "SELECT line, ts, message FROM logs WHERE source_id = 2")"
[ "$(q real.db "SELECT substr(ts, 6) || ' ' || location FROM logs WHERE source_id = 2 AND line = 1")" = \
	"07-18T03:39:16.676513Z request.go:601" ] \
	|| fail "autoneg klog line: $(q real.db "SELECT line, ts, message FROM logs WHERE source_id = 2")"
"$bin" ingest --db rancher-real.db "$k"/issue-17_rancher-ui-export_kcm.log >rr.out 2>rr.err \
	|| fail "rancher sample: $(cat rr.err)"
[ "$(q rancher-real.db "SELECT group_concat(ts, ' ') FROM (SELECT ts FROM logs ORDER BY line)")" = \
	"2016-04-28T16:29:37.103725Z 2016-04-28T16:29:41.371514Z 2016-04-28T16:29:41.371740Z" ] \
	|| fail "rancher sample: $(q rancher-real.db "SELECT line, ts, message FROM logs")"
[ "$(q rancher-real.db "SELECT kind FROM logs WHERE line = 2")" = leader-acquired ] \
	|| fail "rancher sample: $(q rancher-real.db "SELECT line, kind, message FROM logs")"
for ll in ko_KR de_DE ru_RU; do
	"$bin" ingest --db "loc-$ll.db" "$k/glibc-${ll}_journal_kubelet.log" >"loc-$ll.out" 2>"loc-$ll.err" \
		|| fail "$ll sample: $(cat "loc-$ll.err")"
	[ "$(q "loc-$ll.db" "SELECT count(*) FROM logs WHERE ts LIKE '2024-05-13T15:33:2%' AND host = 'localhost.localdomain'")" = 2 ] \
		|| fail "$ll sample: $(q "loc-$ll.db" "SELECT line, ts, message FROM logs")"
	[ "$(q "loc-$ll.db" "SELECT kind FROM logs WHERE line = 2")" = node-not-found ] \
		|| fail "$ll sample kind: $(q "loc-$ll.db" "SELECT line, kind, message FROM logs")"
done
"$bin" ingest --db rs.db "$k"/rke2-rsyslog-imfile_cri-forwarded.log >rs.out 2>rs.err \
	|| fail "rsyslog sample: $(cat rs.err)"
[ "$(q rs.db "SELECT group_concat(ts || ' ' || host || ' ' || component || ' ' || coalesce(kind, '-'), ' | ') FROM (SELECT * FROM logs ORDER BY line)")" = \
	"2023-05-10T12:00:00.123456Z rke2-server-1 kube-controller-manager leader-acquiring | 2023-05-10T12:00:03.411223Z rke2-server-1 kube-controller-manager leader-acquired | 2023-05-10T12:00:03.998877Z rke2-server-1 kubelet lease-update-failed" ] \
	|| fail "rsyslog sample: $(q rs.db "SELECT line, ts, host, component, kind, message FROM logs")"

# 3. damage in each shape.  A line that is none of its shape's, among good ones, is kept as a
# line without a time (README, Log lines: at the time of the line before it, as written, no
# severity); a file of nothing else is rejected line by line with file, line and reason.
bad() { # bad NAME GOOD_LINE BAD_LINE GOOD_LINE: both files checked
	printf '%s\n%s\n%s\n' "$2" "$3" "$4" >"$1.log"
	"$bin" ingest --db "$1.db" "$1.log" >"$1.out" 2>"$1.err" || fail "$1: $(cat "$1.err")"
	[ "$(q "$1.db" "SELECT group_concat(line || ':' || coalesce(severity, '-'), ' ') FROM (SELECT * FROM logs ORDER BY line)")" = \
		"1:I 2:- 3:I" ] || fail "$1: $(q "$1.db" "SELECT line, ts, severity, message FROM logs")"
	printf '%s\n' "$3" >"$1-only.log"
	"$bin" ingest --db "$1-only.db" "$1-only.log" >"$1-only.out" 2>"$1-only.err" \
		&& fail "$1-only: a file of bad lines must exit non-zero"
	# line 1 rejected with its reason, or, when no line is one of a log, the file refused
	grep -qE "$1-only.log(:1: rejected: |: not a log leasetrail reads)" "$1-only.err" \
		|| fail "$1-only: $(cat "$1-only.err")"
}
bad bad-mixed '{"level":"info","ts":1616333160.5288906,"msg":"starting manager"}' \
	'{"level":"info","ts":"yesterday","msg":"no time"}' \
	'{"level":"info","ts":1616333161.5,"msg":"the next one"}'
bad bad-rancher '4/28/2016 9:29:41 AMI0428 16:29:41.371514       1 a.go:2] good' \
	'13/45/2016 9:29:37 AMI0428 16:29:37.103725       1 a.go:1] a month that is none' \
	'4/28/2016 9:29:42 AMI0428 16:29:42.000001       1 a.go:3] the next one'
bad bad-rsyslog '2023-05-10T12:00:00.5+00:00 node-1 kcm.log: 2023-05-10T12:00:00.1Z stdout F I0510 12:00:00.100000       1 a.go:1] good' \
	'node-1 kcm.log: 2023-05-10T99:00:01.1Z stdout F I0510 12:00:01.100000       1 a.go:1] no forwarder time' \
	'2023-05-10T12:00:02.5+00:00 node-1 kcm.log: 2023-05-10T12:00:02.1Z stdout F I0510 12:00:02.100000       1 a.go:2] the next one'
bad bad-journal 'Mär 05 05:50:30 host kubelet[1]: I0305 05:50:30.000001       1 a.go:1] good' \
	'Mrx 05 05:50:31 host kubelet[1]: I0305 05:50:31.000001       1 a.go:1] a month that is none' \
	'Mär 05 05:50:32 host kubelet[1]: I0305 05:50:32.000001       1 a.go:2] the next one'
# a wrapped line whose head is not plainly cut stays two lines: the rest at its head's time
bad bad-wrap 'I0305 05:50:30.000001       1 a.go:1] a whole line' 'the rest of no cut head' \
	'I0305 05:50:31.000001       1 a.go:2] the next one'
echo ok
