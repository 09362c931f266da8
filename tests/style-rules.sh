#!/usr/bin/env bash
# style.rules: the house rules of docs/style.md that a grep can check, over every .c and .h
# of the tree (build directories aside).  Prints each violation as FILE:LINE: RULE and exits 1
# if there is any.  Usage: bash tests/style-rules.sh [SOURCE_DIR | --self-test]
#
#   1. no banned call (BANNED below), outside comments and string literals;
#   2. each third-party header only behind its door (DOORS below);
#   3. a module's file includes only its own module's headers and the public lt_<module>.h of
#      modules below it (MODULES below): never another module's private header, never upward.
#      tests/ (white-box unit tests), samples/ and bench/ are not modules: rule 3 skips them.
set -euo pipefail

# --self-test: plants one violation of each rule in a scratch tree and checks that each is
# reported, and that the same tree without them passes (so a broken rule cannot pass silently).
if [[ ${1:-} == --self-test ]]; then
	self=$(realpath "$0")
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp"/{base,parser,index,queries,tui,cli,tests/unit}
	echo '#include "lt_base.h"' >"$tmp/parser/lt_parser.h"
	printf '#include "lt_parser.h"\n#include <sqlite3.h>\n' >"$tmp/index/index-int.h"
	printf '#include "parser-int.h"\n#include <yajl/yajl_parse.h>\n' >"$tmp/parser/parser-json.h"
	printf '#include "lt_index.h"\n' >"$tmp/queries/queries-int.h"
	printf '#include "index-int.h"\n#include <sqlite3.h>\n' >"$tmp/tests/unit/test-index.c"
	printf '#include <curses.h>\n' >"$tmp/tui/tui-term.c"
	printf '/* strcpy(a, b) */\nstatic const char *s = "sprintf(x) \\" atoi(";\n' >"$tmp/cli/main.c"
	touch "$tmp"/base/lt_base.h "$tmp"/parser/parser-int.h "$tmp"/index/lt_index.h
	touch "$tmp"/queries/lt_queries.h "$tmp"/tui/lt_tui.h
	bash "$self" "$tmp" >/dev/null || { echo "self-test: the clean tree fails" >&2; exit 1; }
	cat >>"$tmp/cli/main.c" <<'PLANT'
static void f(char *d, const char *p) { strcpy(d, p); (void)atoi (p); }
#include <pcre2.h>
PLANT
	printf '#include <sqlite3.h>\n#include "index-int.h"\n#include "lt_tui.h"\n' \
		>>"$tmp/queries/queries-x.c"
	printf '#include "parser-json.h"\n#include <ncursesw/curses.h>\n' >>"$tmp/parser/parser-x.c"
	printf '#include "lt_parser.h"\n#include <yajl/yajl_gen.h>\n' >>"$tmp/base/base-x.c"
	out=$(bash "$self" "$tmp" 2>&1) && { echo "self-test: planted violations pass" >&2; exit 1; }
	for want in 'main.c:3: banned call strcpy' 'main.c:3: banned call atoi' \
		'main.c:4: includes <pcre2.h>' 'queries-x.c:1: includes <sqlite3.h>' \
		'queries-x.c:2: includes index/index-int.h, a private' 'queries-x.c:3: includes tui/lt_tui.h' \
		'parser-x.c:1: includes <parser-json.h>' 'parser-x.c:2: includes <ncursesw/curses.h>' \
		'base-x.c:1: includes parser/lt_parser.h' 'base-x.c:2: includes <yajl/yajl_gen.h>'; do
		grep -qF "$want" <<<"$out" || { echo "self-test: not reported: $want" >&2; echo "$out" >&2; exit 1; }
	done
	n=$(grep -c ': banned call\|: includes' <<<"$out")
	[[ $n == 10 ]] || { echo "self-test: $n reports, 10 expected" >&2; echo "$out" >&2; exit 1; }
	echo "style.rules self-test: ok"
	exit 0
fi

cd "${1:-$(dirname "$0")/..}"

# Modules, lowest first.
MODULES=(base parser index queries tui cli)

# Calls never made: unbounded copies and formats, tokenizers with hidden state, number
# parsers that cannot report an error.  docs/style.md gives the replacements.
BANNED=(strcpy strcat sprintf vsprintf strtok atoi atol atoll atof gets sscanf)

# The doors: "HEADER-REGEX|FILES", FILES being the only files (shell globs, space-separated)
# that may include a header whose name matches HEADER-REGEX (an extended regex, whole name).
DOORS=(
	'sqlite3\.h|index/* tests/unit/test-index.c'
	'(n?curses(w/)?[a-z_]*|ncursesw/.*|term|panel|menu|form)\.h|tui/tui-term.c'
	'yajl/.*|parser/parser-json.h'
	'parser-json\.h|parser/parser-json.c parser/parser-json-write.c parser/parser-audit.c parser/parser-cloudwatch.c parser/parser-journal.c parser/parser-jsonlog.c parser/parser-envelope.c parser/parser-aks.c parser/parser-gke.c parser/parser-results.c parser/parser-results-rest.c parser/parser-logwrap.c'
	'pcre2\.h|base/base-regex.c'
	'xxhash\.h|parser/parser-input.c'
	'(zstd|zdict|zstd_errors)\.h|index/index-raw.c index/index-rawblock.c index/index-rawread.c'
)

mapfile -t FILES < <(find . \( -path './build*' -o -path ./.git -o -path ./bench/out \) -prune \
	-o -type f \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | sort)
bad=0
fail()
{
	echo "$1: $2"
	bad=$((bad + 1))
}

# 1. Banned calls: the code with comments and literals blanked, then a grep.
banned_re="(^|[^A-Za-z0-9_.>])($(
	IFS='|'
	echo "${BANNED[*]}"
))[[:space:]]*\("
while IFS=: read -r file line code; do
	for call in $(grep -oE "$banned_re" <<<"$code" | tr -c 'a-z\n' ' '); do
		fail "$file:$line" "banned call $call()"
	done
done < <(awk '
FNR == 1 { incomment = 0 }
{
	line = $0; out = ""; n = length(line); i = 1
	while (i <= n) {
		c = substr(line, i, 1); two = substr(line, i, 2)
		if (incomment) { if (two == "*/") { incomment = 0; i += 2 } else i++; continue }
		if (two == "/*") { incomment = 1; i += 2; continue }
		if (two == "//") break
		if (c == "\"" || c == "\047") {
			q = c; i++
			while (i <= n) {
				d = substr(line, i, 1)
				if (d == "\\") { i += 2; continue }
				if (d == q) break
				i++
			}
			out = out q q; i++; continue
		}
		out = out c; i++
	}
	print FILENAME ":" FNR ":" out
}' "${FILES[@]}" | grep -E "^[^:]*:[0-9]+:.*$banned_re" || true)

# Every include as FILE LINE NAME.
mapfile -t INCLUDES < <(awk 'match($0, /^[ \t]*#[ \t]*include[ \t]*[<"][^>"]+[>"]/) {
	s = substr($0, RSTART, RLENGTH); sub(/^[^<"]*[<"]/, "", s); sub(/[>"]$/, "", s)
	print FILENAME, FNR, s
}' "${FILES[@]}")

# 2. Doors.
for door in "${DOORS[@]}"; do
	# the regex may hold "|": the file list is after the last one
	re=${door%|*}
	allowed=${door##*|}
	for inc in "${INCLUDES[@]}"; do
		read -r file line name <<<"$inc"
		[[ $name =~ ^($re)$ ]] || continue
		ok=0
		for glob in $allowed; do
			# shellcheck disable=SC2053
			[[ $file == $glob ]] && ok=1
		done
		((ok)) || fail "$file:$line" "includes <$name> outside its door ($allowed)"
	done
done

# 3. Module layering.
declare -A RANK OWNER
for i in "${!MODULES[@]}"; do
	m=${MODULES[$i]}
	RANK[$m]=$i
	for h in "$m"/*.h; do
		[[ -e $h ]] && OWNER[${h##*/}]=$m
	done
done
for inc in "${INCLUDES[@]}"; do
	read -r file line name <<<"$inc"
	mod=${file%%/*}
	[[ -n ${RANK[$mod]:-} && $file == */* ]] || continue
	name=${name##*/}
	owner=${OWNER[$name]:-}
	[[ -z $owner || $owner == "$mod" ]] && continue
	if [[ $name != "lt_$owner.h" ]]; then
		fail "$file:$line" "includes $owner/$name, a private header of another module"
	elif ((RANK[$owner] > RANK[$mod])); then
		fail "$file:$line" "includes $owner/$name: $mod may use only modules below it (${MODULES[*]})"
	fi
done

if ((bad)); then
	echo "style.rules: $bad violation(s); see docs/style.md" >&2
	exit 1
fi
echo "style.rules: ${#FILES[@]} files, ${#INCLUDES[@]} includes: ok"
