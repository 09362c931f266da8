#!/usr/bin/env bash
# Tables fit the terminal.  On a pseudo-terminal (util-linux `script`) with COLUMNS=60, 80 and
# 200, every table cuts its free-text columns (timeline's DETAIL, a query's user agent or
# sample, `sql`'s message) with "…" so its lines fit, counting display cells (`wc -L` in
# C.UTF-8: wide CJK two, combining marks none, emoji two); identifiers and times are never cut,
# so a line whose other cells alone are wider than the terminal keeps them and cuts its free
# text to the 10-cell minimum; `-o wide` cuts nothing; piped output is the same bytes whatever
# COLUMNS says.  The samples are rewritten with a user agent and a kubelet message of CJK,
# combining marks, emoji and escapes, so cuts land inside them.
#   bash tests/e2e/test-termfit.sh BIN CORPUS SAMPLES TMP
set -euo pipefail
bin=$1 samples=$3 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v script >/dev/null || fail "script (util-linux) is not installed"
export LC_ALL=C.UTF-8 TERM=xterm-256color
unset LEASETRAIL_TZ COLUMNS

# 日本語のユーザーエージェント e+U+0301 😀 ESC: JSON-escaped in audit, raw in the journal
wide_json='\u65e5\u672c\u8a9e\u306e\u30e6\u30fc\u30b6\u30fc\u30a8\u30fc\u30b8\u30a7\u30f3\u30c8 e\u0301 \ud83d\ude00 \u001b[31m'
wide_raw=$'\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe3\x83\xad\xe3\x82\xb0 e\xcc\x81 \xf0\x9f\x98\x80\xf0\x9f\x98\x80 \e[31m'
export WIDE_JSON=$wide_json WIDE_RAW=$wide_raw
mkdir -p corpus/audit corpus/logs
for f in "$samples"/audit/*.log; do
	perl -pe 's/"userAgent":"kubectl\//"userAgent":"$ENV{WIDE_JSON}kubectl\//' "$f" >"corpus/audit/${f##*/}"
done
for f in "$samples"/logs/*.log; do
	perl -pe 's/Error syncing pod, skipping/Error syncing pod $ENV{WIDE_RAW} skipping/' "$f" >"corpus/logs/${f##*/}"
done
"$bin" ingest -q --db s.db corpus/audit corpus/logs >/dev/null 2>&1 || [ $? = 3 ] || fail "ingest"
node=ip-10-0-241-171.ec2.internal

# on_pty COLUMNS OUT ARGS...: leasetrail ARGS on a pty with COLUMNS set, its output in OUT
# (the pty's \r\n made \n); the pty itself says 0 columns, so only COLUMNS can give a width.
runs=0
on_pty() {
	local cols=$1 out=$2
	shift 2
	runs=$((runs + 1))
	{ printf 'export COLUMNS=%q; exec ' "$cols"; printf '%q ' "$bin" "$@"; } >"cmd-$runs.sh"
	SHELL=/bin/bash script -qec "stty cols 0 rows 0 2>/dev/null; bash $tmp/cmd-$runs.sh" /dev/null \
		</dev/null | tr -d '\r' >"$out"
	[ -s "$out" ] || fail "leasetrail $*: no output on the pty"
	iconv -f UTF-8 -t UTF-8 "$out" >/dev/null 2>&1 || fail "leasetrail $*: a cut split a character ($out)"
	! LC_ALL=C grep -qaP '\x1b' "$out" || fail "leasetrail $*: an escape reached the terminal ($out)"
}

# widest FILE: the display width of its widest line
widest() { wc -L <"$1"; }

# The commands, each with what cannot be cut in it (its widest line at the 10-cell minimum).
cmds=(
	"timeline --db s.db $node"
	"query --db s.db who-deleted"
	"query --db s.db kubelet-errors"
	"query --db s.db gc-deletes"
	"events --db s.db"
	"top --db s.db --by user-agent"
	"sql --db s.db SELECT verb, code, user_agent FROM events ORDER BY id"
	"sql --db s.db SELECT kind, message FROM logs WHERE message LIKE '%syncing%'"
)
cut_somewhere=0
for c in "${cmds[@]}"; do
	read -r -a args <<<"${c%% SELECT*}"
	[[ $c == *SELECT* ]] && args+=("SELECT${c#* SELECT}")
	"$bin" "${args[@]}" >pipe.out
	on_pty 100000 min.out "${args[@]}" # nothing to cut
	on_pty 1 floor.out "${args[@]}"    # what cannot be cut, free text at its 10 cells
	floor=$(widest floor.out)
	for cols in 60 80 200; do
		on_pty "$cols" fit.out "${args[@]}"
		on_pty "$cols" wide.out "${args[@]}" -o wide
		COLUMNS=$cols "$bin" "${args[@]}" >pipe2.out
		cmp -s pipe.out pipe2.out || fail "${args[*]}: piped output changed with COLUMNS=$cols"
		cmp -s wide.out pipe.out || fail "${args[*]} -o wide on a terminal differs from the pipe's"
		! grep -q '…' wide.out || fail "${args[*]} -o wide cut something"
		want=$((cols > floor ? cols : floor))
		[ "$(widest fit.out)" -le "$want" ] ||
			fail "${args[*]} at COLUMNS=$cols: a line of $(widest fit.out) cells (at most $want)"
		if [ "$(widest min.out)" -gt "$cols" ]; then
			grep -q '…' fit.out || fail "${args[*]} at COLUMNS=$cols: too wide, yet nothing cut"
			cut_somewhere=$((cut_somewhere + 1))
		else
			cmp -s fit.out min.out || fail "${args[*]} at COLUMNS=$cols: cut though it fits"
		fi
		[ "$(wc -l <fit.out)" = "$(wc -l <pipe.out)" ] || fail "${args[*]}: rows differ on a terminal"
	done
done
[ "$cut_somewhere" -gt 6 ] || fail "only $cut_somewhere tables needed cutting: the test tests little"

# Those whose fixed part fits the terminal fit it exactly: at 60 and 80, sql's two; at 200, all.
for cols in 60 80; do
	on_pty "$cols" fit.out sql --db s.db "SELECT verb, code, user_agent FROM events ORDER BY id"
	[ "$(widest fit.out)" -le "$cols" ] || fail "sql at COLUMNS=$cols: $(widest fit.out) cells"
	grep -q '…' fit.out || fail "sql at COLUMNS=$cols: nothing cut"
done
for c in "${cmds[@]:0:4}"; do
	read -r -a args <<<"$c"
	on_pty 200 fit.out "${args[@]}"
	[ "$(widest fit.out)" -le 200 ] || fail "${args[*]} at COLUMNS=200: $(widest fit.out) cells"
done
# the timeline at 200: DETAIL and IDENTITY cut, the rest whole, wide characters counted as two
on_pty 200 fit.out timeline --db s.db "$node"
grep -q '^2024-04-05T05:50:04.164703Z  2024-04-05T05:55:59.291197Z  audit  .*RENEWING .*36 renews by system:node:ip-10-0-241-1[^ ]*…  *arn:aws:sts::111122223333:[^ ]*…$' fit.out ||
	fail "timeline at 200: $(sed -n 2p fit.out)"
grep -q 'Error syncing pod 日本語' fit.out || fail "timeline at 200: the CJK detail is not shown"
# the pty's own width when COLUMNS is unset (90: the timeline's floor is its fixed columns and
# DETAIL and IDENTITY at their 10-cell minimum, 140 cells; uncut it is far wider)
SHELL=/bin/bash script -qec "stty cols 90 rows 20; unset COLUMNS; exec $bin timeline --db $tmp/s.db $node" \
	/dev/null </dev/null | tr -d '\r' >tty.out
[ "$(widest tty.out)" -le 140 ] && grep -q '…' tty.out || fail "the terminal's own width is not used"
# a cut cell fills its column: a row cut in IDENTITY (the last column) is as wide as the
# terminal, one cut in DETAIL ends at DETAIL's edge, IDENTITY's start less two (one cell less
# when a wide character would have straddled the edge)
on_pty 160 fit.out timeline --db s.db "$node"
head=$(head -1 fit.out)
rest=${head##*IDENTITY}
edge=$((${#head} - ${#rest} - 8 - 2))
grep '…' fit.out | while IFS= read -r l; do
	w=$(printf '%s\n' "$l" | wc -L)
	d=$(printf '%s…\n' "${l%%…*}" | wc -L)
	{ [ "$w" -ge 159 ] && [ "$w" -le 160 ]; } || { [ "$d" -ge $((edge - 1)) ] && [ "$d" -le "$edge" ]; } ||
		fail "a cut row of $w cells at 160 (DETAIL's edge $edge, cut at $d): $l"
done

echo "e2e termfit: ok ($runs runs on a pty at 60, 80 and 200 columns; $cut_somewhere tables cut)"
