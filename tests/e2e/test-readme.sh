#!/usr/bin/env bash
# The README's tour shows real output: each "$ leasetrail ..." block of README.md is run again
# on the samples, on a 200-column pseudo-terminal as the README says, and must print exactly
# what the block shows.  When a change alters an answer on purpose, run the command as below
# and paste its output into README.md.
#   bash tests/e2e/test-readme.sh BIN CORPUS SAMPLES TMP
set -euo pipefail
bin=$1 samples=$3 tmp=$4
src=$(cd "$samples/.." && pwd)
rm -rf "$tmp" && mkdir -p "$tmp/bin"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v script >/dev/null || fail "script (util-linux) is not installed"
command -v jq >/dev/null || fail "jq is not installed"
export LC_ALL=C.UTF-8 TERM=xterm-256color
unset TZ LEASETRAIL_TZ
ln -s "$bin" "$tmp/bin/leasetrail"
# jq colours what it prints to a terminal; the README shows it plain
printf '#!/bin/sh\nexec %q -M "$@"\n' "$(command -v jq)" >"$tmp/bin/jq" && chmod +x "$tmp/bin/jq"
# the store of the README's first command, made as it makes it (paths relative to the source)
(cd "$src" && "$bin" ingest -q --db "$tmp/samples.db" samples/audit samples/logs >/dev/null)
export LEASETRAIL_DB=$tmp/samples.db PATH=$tmp/bin:$PATH

# Each fenced block that starts with "$ leasetrail": its commands ("$ " lines) and the rest.
awk -v dir="$tmp" '
	/^```/ { if (inb) { close(out); inb = 0 } else { inb = 1; n++; out = dir "/block-" n }; next }
	inb { print > out }' "$src/README.md"
checked=0
for block in "$tmp"/block-*; do
	head -1 "$block" | grep -q '^\$ leasetrail ' || continue
	want=$block.want got=$block.got
	: >"$want"
	: >"$got"
	while IFS= read -r line; do
		if [[ $line == '$ '* ]]; then
			printf '%s\n' "$line" >>"$got"
			printf '%s\n' "${line#\$ }" >"$block.sh"
			(cd "$src" && SHELL=/bin/bash script -qec "export COLUMNS=200; bash $block.sh" /dev/null \
				</dev/null | tr -d '\r') >>"$got"
		fi
		printf '%s\n' "$line" >>"$want"
	done <"$block"
	diff -u "$want" "$got" >"$block.diff" ||
		fail "README.md shows other output than the command prints now:
$(head -40 "$block.diff")"
	checked=$((checked + 1))
done
[ "$checked" -ge 6 ] || fail "only $checked tour blocks found in README.md"
echo "e2e readme: ok ($checked blocks of the tour print what README.md shows)"
