#!/usr/bin/env bash
# The man page (docs/leasetrail.1) against the binary, so the two cannot drift:
#   - every command `leasetrail --help` lists has a section .SS "leasetrail CMD", and every
#     such section is a command;
#   - every option a command's --help lists is documented in its section (a .TP tag naming
#     it in bold), and every option documented there is one its --help lists;
#   - the exit statuses of each command's --help and of its man page section are the same;
#   - every environment variable the sources read (getenv) is under ENVIRONMENT;
#   - groff renders it without a warning.
# Each mismatch is reported on a line of its own saying which option, which command and
# which side lacks it, and the test fails at the end.
# Usage: test-manpage.sh BINARY CORPUS SAMPLES TMP
set -euo pipefail
bin=$1 samples=$3
src=$(cd "$samples/.." && pwd)
man=$src/docs/leasetrail.1
bad=0

problem() {
	echo "man page: $*" >&2
	bad=1
}

[ -f "$man" ] || { echo "FAIL: no $man" >&2; exit 1; }

# The options lines of a --help ("  -o, --output F   what"): the words up to the description.
help_options() {
	awk '/^  -/ { for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w)
		if (w ~ /^-./) print w; else if (w ~ /[a-z]/) break } }' | sort -u
}

# The source of command $1's section of the man page.
man_section() {
	awk -v want=".SS \"leasetrail $1\"" '/^\.SS / { f = ($0 == want); next } /^\.SH / { f = 0 } f' "$man"
}

# The options named in bold on the tag lines (the line after .TP) of a section.
man_options() {
	awk '/^\.TP/ { if ((getline line) > 0) print line }' |
		grep -oE '\\fB(\\-)+[A-Za-z0-9](\\-|[A-Za-z0-9])*\\fR' |
		sed -e 's/\\fB//' -e 's/\\fR//' -e 's/\\-/-/g' | sort -u || true
}

# The statuses of an "Exit status: 0 ...; 1 ...; 2 ..." text: the number opening each clause.
statuses() {
	tr '\n' ' ' | sed -e 's/.*Exit status: *//' -e 's/\\-/-/g' |
		grep -oE '(^|;) *[0-9]+ ' | tr -dc '0-9\n' | sort -un | tr '\n' ' '
}

commands=$("$bin" --help | awk '/^Commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { f = 0 }')
[ -n "$commands" ] || { echo "FAIL: no commands in \`leasetrail --help\`" >&2; exit 1; }
checked=0
for cmd in $commands; do
	help=$("$bin" "$cmd" --help)
	section=$(man_section "$cmd")
	if [ -z "$section" ]; then
		problem "no section .SS \"leasetrail $cmd\" for the command \`$cmd\`"
		continue
	fi
	h=$(help_options <<<"$help")
	m=$(man_options <<<"$section")
	while read -r opt; do
		[ -n "$opt" ] && problem "\`leasetrail $cmd --help\` lists $opt; docs/leasetrail.1 does not document it (add a .TP \\fB$opt\\fR under .SS \"leasetrail $cmd\")"
	done < <(comm -23 <(echo "$h") <(echo "$m"))
	while read -r opt; do
		[ -n "$opt" ] && problem "docs/leasetrail.1 documents $opt under .SS \"leasetrail $cmd\"; \`leasetrail $cmd --help\` does not list it"
	done < <(comm -13 <(echo "$h") <(echo "$m"))
	hs=$(sed -n '/^Exit status:/,$p' <<<"$help" | statuses)
	ms=$(awk '/^Exit status:/ { f = 1 } f && /^\./ { f = 0 } f' <<<"$section" | statuses)
	[ -n "$hs" ] || problem "\`leasetrail $cmd --help\` gives no exit statuses"
	[ "$hs" = "$ms" ] || problem "exit statuses of \`$cmd\`: --help says '$hs', the man page '$ms'"
	checked=$((checked + 1))
done

# Every section is a command.
while read -r name; do
	grep -qxF "$name" <<<"$commands" || problem "section .SS \"leasetrail $name\" is not a command \`leasetrail --help\` lists"
done < <(sed -n 's/^\.SS "leasetrail \([^"]*\)"$/\1/p' "$man")

# Every variable the sources read is documented.
env_section=$(awk '/^\.SH ENVIRONMENT/ { f = 1; next } /^\.SH / { f = 0 } f' "$man")
for var in $(grep -rhoE 'getenv\("[A-Za-z_]+"\)' "$src"/{base,parser,index,queries,tui,cli} |
	sed -E 's/getenv\("(.*)"\)/\1/' | sort -u); do
	grep -qE "^\.B $var\$" <<<"$env_section" || problem "the sources read \$$var; ENVIRONMENT does not document it"
done

# The man page renders cleanly.
if command -v groff >/dev/null 2>&1; then
	warnings=$(groff -man -ww -z "$man" 2>&1 || true)
	[ -z "$warnings" ] || problem "groff warns: $warnings"
else
	echo "test-manpage: groff not installed, rendering not checked (apt-get install groff-base)" >&2
fi

# A planted drift is caught: an option the help lists that the page lacks.
planted=$(printf 'Options:\n  --planted-option X   what\n  -h, --help   this help\n' | help_options)
[ "$(comm -23 <(echo "$planted") <(man_section help | man_options))" = "--planted-option" ] ||
	problem "self-check: a planted option is not seen as missing"

[ "$bad" = 0 ] || { echo "FAIL: docs/leasetrail.1 and --help differ (above)" >&2; exit 1; }
echo "e2e manpage: ok ($checked commands, their options and exit statuses, environment, groff)"
