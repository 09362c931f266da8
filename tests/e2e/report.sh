#!/usr/bin/env bash
# report.sh - `leasetrail report` end to end (docs/report.md).
#   1. The samples (audit + logs): the sentences of the seed's story, exactly; every timeline
#      row names a FILE:LINE, and the line it names is the record (a node delete, a log line).
#   2. A generated cluster with NotReady nodes (lt-gen --health, as health-gen.sh makes them):
#      the NotReady sentence counts the windows `query not-ready` lists and names the longest.
#   3. Hostile text (markup, a javascript: link, url(, ESC, a pipe, backticks) in node and user
#      names: no tag, attribute, url( or control byte of theirs in the HTML; Markdown through
#      cmark (Debian's) has no raw HTML, safe or unsafe.
#   4. HTML in headless Chromium: the screenshot is not one colour and shows the strip's colours;
#      the DOM has the SVG pictures.  Markdown through cmark: the headings, the data: pictures
#      and the tables' rows are there.
#   5. Usage: -o pdf, an unknown name, --since after --until, an unwritable -O, and a failed
#      run leaving an existing -O file as it was.
# Chromium and cmark (.ci/run installs them): missing outside CI, the parts that need them are
# skipped with a message and the test exits 77 (ctest: skipped) after the rest has passed;
# missing in CI (CI=true), the test fails.
# Usage: report.sh LEASETRAIL LT_GEN PNG_CHECK SAMPLES TMP
set -euo pipefail
bin=$1 gen=$2 png=$3 samples=$4 tmp=$5
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
export LC_ALL=C.UTF-8
fail() { echo "FAIL: $*" >&2; exit 1; }
skipped=""
need() { # need TOOL: 0 when there; else 1 (skipped, or a failure in CI)
	command -v "$1" >/dev/null 2>&1 && return 0
	[ "${CI:-}" = true ] && fail "$1 is not installed (CI installs it in .ci/run: apt-get install $1)"
	echo "report.sh: $1 is not installed: its checks are skipped (apt-get install $1)" >&2
	skipped="$skipped $1"
	return 1
}
# section FILE HEADING: the lines of a Markdown section, up to the next heading
section() { awk -v h="## $2" '$0 == h { f = 1; next } /^## / { f = 0 } f && NF' "$1"; }

# ---- 1. the samples -------------------------------------------------------------------------
"$bin" ingest -q --db s.db "$samples/audit" "$samples/logs" >/dev/null
"$bin" report --db s.db >s.md || fail "report exited $?"
cat >want.txt <<'EOF'
- Lease kube-node-lease/ip-10-0-241-74.ec2.internal was deleted at 2024-04-05T05:53:00Z by kubernetes-admin \(identity arn:aws:iam::111122223333:user/ops-admin, from 203.0.113.231\).
- Lease kube-node-lease/ip-10-0-241-74.ec2.internal was created again at 2024-04-05T05:53:09Z by system:node:ip-10-0-241-74.ec2.internal, 8.8s after it was gone \(removed by kubernetes-admin\).
- Node ip-10-0-241-171.ec2.internal was deleted at 2024-04-05T05:56:00Z by kubernetes-admin \(identity arn:aws:iam::111122223333:user/ops-admin, from 203.0.113.231\).
- The garbage collector deleted lease kube-node-lease/ip-10-0-241-171.ec2.internal at 2024-04-05T05:56:00Z, 32ms after its node was deleted by kubernetes-admin.
- The kubelet of ip-10-0-241-171.ec2.internal went on after its node was deleted: 41 requests answered 404 from 2024-04-05T05:56:09Z to 2024-04-05T06:02:00Z; it registered again at 2024-04-05T06:02:00Z.
- The holder of lease kube-system/kube-controller-manager changed from 172.16.33.232 to 172.16.40.128 at 2024-04-05T05:59:16Z.
- Node ip-10-0-241-171.ec2.internal registered again at 2024-04-05T06:02:00Z \(by system:node:ip-10-0-241-171.ec2.internal\), 5m59s after it was deleted.
- Lease kube-node-lease/ip-10-0-241-171.ec2.internal was created again at 2024-04-05T06:02:00Z by system:node:ip-10-0-241-171.ec2.internal, 6m0s after it was gone \(removed by system:serviceaccount:kube-system:generic-garbage-collector\).
EOF
section s.md "What happened" | diff -u want.txt - || fail "samples: the sentences differ"
for subject in ip-10-0-241-74.ec2.internal ip-10-0-241-171.ec2.internal kube-system/kube-controller-manager; do
	grep -qxF "## Timeline of $subject" s.md || fail "samples: no timeline of $subject"
done
# every row of every timeline table ends with the FILE:LINE of its record
rows=$(awk '/^## Timeline of /{f = 1; next} /^## /{f = 0} f && /^\| [0-9]/' s.md)
[ "$(wc -l <<<"$rows")" -ge 50 ] || fail "samples: too few timeline rows: $(wc -l <<<"$rows")"
grep -vE '\| [^ |]+\.log:[0-9]+ \|$' <<<"$rows" | head -3 | grep . && fail "samples: a timeline row without FILE:LINE"
# the records they name are the ones the rows are about
where=$(grep -F '| NODE\_DELETED |' s.md | grep -oE '[^ |]+\.log:[0-9]+ \|$' | tr -d ' |')
sed -n "${where##*:}p" "${where%:*}" | grep -q '"verb":"delete".*"resource":"nodes".*ip-10-0-241-171' ||
	fail "samples: the NODE_DELETED row's record $where is not the node's delete"
where=$(grep -F '| gc-deleting |' s.md | grep -F 'Lease kube-node-lease' | grep -oE '[^ |]+\.log:[0-9]+ \|$' | tr -d ' |')
sed -n "${where##*:}p" "${where%:*}" | grep -q 'Deleting item.*Lease.*ip-10-0-241-171' ||
	fail "samples: the gc-deleting row's record $where is not the garbage collector's line"
section s.md Findings | grep -F 'node deleted' | grep -qE 'kube-apiserver-audit\.1\.log:[0-9]+ \|$' ||
	fail "samples: the node delete finding names no record"
grep -qE '^    ip-10-0-241-171\.ec2\.internal +\|=+Dx+=+\|$' s.md || fail "samples: the text strip of ip-10-0-241-171"
# who did what names the identity behind each shared name (the samples' user.extra: EKS's
# aws-iam-authenticator arn), as events and who-deleted do; the GC's delete carries the node
# deleter's; each identity is the one the store holds for that user's requests
who=$(section s.md "Who did what")
grep -qxF '| Who | Identity | Did | To | When | Record |' <<<"$who" || fail "samples: who did what has no Identity column"
admin=$("$bin" sql --db s.db -o csv "SELECT DISTINCT identity FROM events WHERE user = 'kubernetes-admin' AND verb = 'delete'" | sed 1d)
[ "$admin" = arn:aws:iam::111122223333:user/ops-admin ] || fail "samples: the admin's identity in the store is '$admin'"
[ "$(grep -cF "| kubernetes-admin | $admin |" <<<"$who")" = 3 ] ||
	fail "samples: who did what: not 3 rows of kubernetes-admin with $admin"
kubelet=$("$bin" sql --db s.db -o csv "SELECT DISTINCT identity FROM events WHERE user = 'system:node:ip-10-0-241-171.ec2.internal'" | sed 1d)
grep -F '| system:node:ip-10-0-241-171.ec2.internal |' <<<"$who" | grep -vF "| $kubelet |" | grep . &&
	fail "samples: a kubelet row without the kubelet's instance identity ($kubelet)"
# one subject asked for: its timeline only, the findings all the same
"$bin" report --db s.db ip-10-0-241-74.ec2.internal >one.md
[ "$(grep -c '^## Timeline of ' one.md)" = 1 ] || fail "report NODE: not one timeline"
cmp <(section one.md "What happened") <(section s.md "What happened") || fail "report NODE: other findings"
# a range: the lease delete of 05:53 only
"$bin" report --db s.db --since 2024-04-05T05:52:00Z --until 2024-04-05T05:53:05Z >range.md
[ "$(section range.md "What happened")" = "$(head -1 want.txt)" ] || fail "report --since/--until: $(section range.md "What happened")"

"$bin" report --db s.db -O s.html || fail "report -O s.html exited $?"
head -1 s.html | grep -qx '<!DOCTYPE html>' || fail "-O FILE.html is not HTML"
for bad in '<script' 'src=http' 'href=http' 'url(' '<link' '<iframe' '@import'; do
	grep -qiF "$bad" s.html && fail "samples: the HTML has $bad"
done
grep -qF '<td>arn:aws:iam::111122223333:user/ops-admin</td>' s.html || fail "samples: the HTML names no identity"
[ "$(grep -c '^<svg ' s.html)" = 4 ] || fail "samples: $(grep -c '^<svg ' s.html) SVG pictures, want 4 (strip and 3 timelines)"

# ---- 2. a generated cluster with NotReady nodes ---------------------------------------------------
mkdir -p nr/logs
"$gen" --health all --seed 1 --nodes 10 --minutes 40 --level Metadata -o nr/audit.log \
	--journal-dir nr/logs --kcm-log nr/logs/kube-controller-manager.log --truth nr/truth.tsv >/dev/null 2>&1
"$bin" ingest -q --db nr.db nr/audit.log.1 nr/audit.log.2 nr/logs >/dev/null 2>&1 || true
"$bin" report --db nr.db >nr.md
windows=$("$bin" query --db nr.db -o csv not-ready | sed 1d | grep -c .)
[ "$windows" -gt 3 ] || fail "generated cluster: $windows NotReady windows, want several"
longest=$("$bin" query --db nr.db -o csv not-ready | sed 1d | sort -t, -k4,4 -g | tail -1 | cut -d, -f1)
said=$(section nr.md "What happened" | grep -F 'NotReady windows') || fail "generated cluster: no NotReady sentence"
grep -qF -- "- $windows NotReady windows between " <<<"$said" || fail "generated cluster: not $windows windows: $said"
grep -qF "The longest: Node $longest was NotReady" <<<"$said" || fail "generated cluster: the longest is not $longest: $said"
grep -qE 'causes [a-z-]+' <<<"$said" || fail "generated cluster: no causes: $said"
section nr.md Findings | grep -cF '| NotReady |' | grep -qx "$windows" || fail "generated cluster: findings table"
grep -qE '^    .* \|[^|]*!+[^|]*\|$' nr.md || fail "generated cluster: no NotReady (!) in the text strip"
"$bin" report --db nr.db -o html >nr.html

# ---- 3. hostile text ----------------------------------------------------------------------------------
mkdir -p evil
evil_node='ip-10-0-241-171<script>alert(1)</script><img src=http://e.example/x>](javascript:alert(2))url(http://e.example/y)|PWN|`tick`&amp;'
evil_user='admin<a href=http://e.example/z>PWN-LINK</a><style>body{background:url(http://e.example/s)}</style>'
export EVIL_NODE=$evil_node EVIL_USER=$evil_user
for f in "$samples"/audit/*.log; do
	perl -pe 's/ip-10-0-241-171/$ENV{EVIL_NODE}/g; s/kubernetes-admin/$ENV{EVIL_USER}\\u001b]0;PWN-TITLE\\u0007/g' \
		"$f" >"evil/${f##*/}"
done
"$bin" ingest -q --db e.db evil >/dev/null
"$bin" report --db e.db -o html >e.html
"$bin" report --db e.db -o md >e.md
grep -qF 'PWN' e.html || fail "hostile: the names are not shown"
for bad in '<script' '<img' '<a ' '<style>body{background' 'src=' 'href=' 'url(' 'onload'; do
	grep -qiF "$bad" e.html && fail "hostile: the HTML has $bad"
done
LC_ALL=C grep -qaP '[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]' e.html e.md && fail "hostile: a control byte in the report"
[ "$(grep -c '^<svg ' e.html)" -ge 2 ] || fail "hostile: the pictures are missing"

# ---- 4. cmark and Chromium ------------------------------------------------------------------------------
if need cmark; then
	for md in s.md nr.md e.md; do
		cmark "$md" >"$md.html" || fail "cmark $md exited $?"
		grep -qF 'raw HTML omitted' "$md.html" && fail "cmark $md: raw HTML in the Markdown"
		cmark --unsafe "$md" >"$md.unsafe.html"
		for bad in '<script' '<img src="http' '<a ' 'href="' '<style'; do
			grep -qiF "$bad" "$md.unsafe.html" && fail "cmark --unsafe $md: $bad"
		done
		for h in '<h1>Incident report</h1>' '<h2>What happened</h2>' '<h2>Heartbeats</h2>' '<h2>Findings</h2>'; do
			grep -qF "$h" "$md.html" || fail "cmark $md: no $h"
		done
		# a safe renderer drops data:image/svg+xml (an SVG may hold script): the picture's alt
		# text stays, and the strip is there as text too; an unsafe one shows the picture
		grep -qF '<img src="" alt="Heartbeats: each node' "$md.html" || fail "cmark $md: no picture"
		grep -qF '<img src="data:image/svg+xml;base64,' "$md.unsafe.html" || fail "cmark --unsafe $md: no picture"
		grep -qE '^<pre><code> +[0-9T:Z-]+ +[0-9T:Z-]+$' "$md.html" || fail "cmark $md: no text strip"
		grep -qF '| Time | What | Subject | Who | What happened | Record |' "$md.html" ||
			fail "cmark $md: the findings table's header is not one line"
	done
	grep -qF 'PWN' e.md.html || fail "cmark: the hostile names are not shown"
	[ "$(grep -c '<img src="data:image/svg+xml;base64,' s.md.unsafe.html)" = 4 ] || fail "cmark s.md: not 4 pictures"
	# the pictures themselves: SVG documents, their text escaped
	grep -o 'data:image/svg+xml;base64,[A-Za-z0-9+/=]*' e.md | sed 's/.*,//' | while read -r b; do
		base64 -d <<<"$b" >pic.svg
		head -c 5 pic.svg | grep -qxF '<svg ' || fail "a Markdown picture is no SVG"
		if grep -qiE '<script|<a |<img|url\(|href=|onload' pic.svg; then
			fail "hostile: markup in a Markdown picture"
		fi
	done
fi

if need chromium; then
	shot() { # shot HTML PNG: a screenshot of the page, as a person would see it
		timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
			--user-data-dir="$tmp/chromium-profile" --window-size=1200,1600 \
			--screenshot="$tmp/$2" "file://$tmp/$1" >/dev/null 2>&1 || true
		[ -s "$2" ] || fail "chromium made no screenshot of $1"
	}
	dom() {
		timeout 120 chromium --headless --no-sandbox --disable-gpu \
			--user-data-dir="$tmp/chromium-profile" --dump-dom "file://$tmp/$1" 2>/dev/null
	}
	shot s.html s.png
	"$png" s.png 22c55e dc2626 a21caf || fail "samples: the screenshot is blank or lacks the strip's colours"
	shot nr.html nr.png
	"$png" nr.png 22c55e 1d4ed8 || fail "generated cluster: the screenshot lacks renewed or NotReady"
	dom s.html >s.dom
	[ "$(grep -o '<svg ' s.dom | wc -l)" = 4 ] || fail "samples: the DOM has $(grep -o '<svg ' s.dom | wc -l) <svg>, want 4"
	[ "$(grep -o '<rect ' s.dom | wc -l)" -gt 50 ] || fail "samples: too few SVG rectangles in the DOM"
	grep -qF '<title>Timeline of ip-10-0-241-171.ec2.internal</title>' s.dom || fail "samples: no timeline picture in the DOM"
	dom e.html >e.dom
	grep -qiE '<script|<img|<a |<style>body.background' e.dom && fail "hostile: markup of the logs in the DOM"
	grep -qF 'PWN' e.dom || fail "hostile: the names are not in the DOM"
fi

# ---- a range before every episode (fuzz-queries, crash-4084b2e5): no lease has an episode to
# draw, lt_browse_episodes hands out none (a NULL array), and the strip was drawn from NULL + 0
# (UB: the Sanitize build aborted).  Each node's row is there, blank: no data.
"$bin" report --db s.db --since 2024-04-05T05:00:00Z --until 2024-04-05T05:01:00Z >early.md ||
	fail "a range before the episodes: report exited $?"
grep -qF 'From 2024-04-05T05:00:00Z to 2024-04-05T05:01:00Z' early.md || fail "early: not its range"
[ "$(grep -cE '^    ip-10-0-241-[0-9]+\.ec2\.internal +\| +\|$' early.md)" = 3 ] ||
	fail "early: the strip has not the 3 nodes' blank rows"
"$bin" report --db s.db -o html --until 2024-04-05T05:01:00Z >early.html ||
	fail "a range before the episodes: report -o html exited $?"

# ---- 5. usage ------------------------------------------------------------------------------------------------
st() { set +e; "$@" >/dev/null 2>err.txt; echo $?; set -e; }
[ "$(st "$bin" report --db s.db -o pdf)" = 2 ] || fail "-o pdf: not a usage error"
grep -qF 'md or html' err.txt || fail "-o pdf: $(cat err.txt)"
[ "$(st "$bin" report --db s.db nope)" = 1 ] || fail "an unknown name: not exit 1"
[ "$(st "$bin" report --db s.db --since 2024-04-05T06:00:00Z --until 2024-04-05T05:00:00Z)" = 2 ] ||
	fail "--since after --until: not a usage error"
[ "$(st "$bin" report --db s.db -O /nonexistent/dir/r.md)" = 1 ] || fail "an unwritable -O: not exit 1"
if [ -w /dev/full ]; then
	[ "$(st "$bin" report --db s.db -O /dev/full)" = 1 ] || fail "-O /dev/full: not exit 1"
	grep -qxF 'leasetrail: /dev/full: cannot write the output: No space left on device' err.txt ||
		fail "-O /dev/full: $(cat err.txt)"
fi
echo keep >kept.md
[ "$(st "$bin" report --db s.db -O kept.md nope)" = 1 ] || fail "-O with an unknown name: not exit 1"
[ "$(cat kept.md)" = keep ] || fail "a failed report overwrote its -O file"

if [ -n "$skipped" ]; then
	echo "e2e report: ok without$skipped (not installed: skipped)"
	exit 77
fi
echo "e2e report: ok (samples' sentences and records, $windows NotReady windows, hostile text, cmark, chromium)"
