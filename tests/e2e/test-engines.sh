#!/usr/bin/env bash
# `--emit ENGINE` for every engine (docs/engines.md), no store needed:
#   - golden: every canned query, `query --emit ENGINE events NODE NS/LEASE` and `timeline
#     --emit ENGINE NODE`, for each engine and each of its --table variants, with a range, a
#     cluster and --slow, against tests/golden/engines/ENGINE[-TABLE]/NAME.txt (hand-checked;
#     LT_UPDATE_GOLDEN=1 rewrites them);
#   - grammar: every BigQuery and Athena text parses (sqlglot, Debian's python3-sqlglot:
#     BigQuery and Trino SQL, Hive DDL); Logs Insights' is checked by unit.cloudwatch's checker;
#   - quoting: a hostile --cluster, node and lease name (quotes, backslashes, a newline, a tab,
#     comment markers of every dialect) add no line, come out as the dialect's literal of the
#     value (SQL: parsed back, the literal decodes to the value), and a control byte is refused;
#   - usage: --table only where an engine takes one, and one it knows; --emit needs no store.
# Usage: test-engines.sh BINARY CORPUS SAMPLES TMP
set -euo pipefail
bin=$1 samples=$3 tmp=$4
src=$(cd "$samples/.." && pwd)
golden=$src/tests/golden/engines
check=$src/tests/e2e/engines-check.py
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
export LEASETRAIL_DB=$tmp/no-such.db
fail() { echo "FAIL: $*" >&2; exit 1; }

# engine and --table variants: ENGINE or ENGINE:TABLE
variants="cwli kql kql:AKSAuditAdmin kql:AzureDiagnostics logging bigquery bigquery:proj-1.gke_logs athena athena:firehose"
opts=(--since 2024-04-05T05:50:00Z --until 2024-04-05T06:05:00Z --cluster prod --slow 250ms)
names=$("$bin" query --list | cut -d' ' -f1)
out=$tmp/out
n=0
for v in $variants; do
	engine=${v%%:*} table=
	[ "$v" != "$engine" ] && table=${v#*:}
	dir=$out/$engine${table:+-$table}
	mkdir -p "$dir"
	t=(); [ -n "$table" ] && t=(--table "$table")
	for name in $names; do
		"$bin" query --emit "$engine" "${t[@]}" "${opts[@]}" "$name" >"$dir/$name.txt" ||
			fail "$v $name: exit $?"
		n=$((n + 1))
	done
	"$bin" query --emit "$engine" "${t[@]}" "${opts[@]}" events ip-10-0-241-171.ec2.internal \
		ip-10-0-241-74.ec2.internal kube-system/kube-scheduler >"$dir/events.txt"
	"$bin" query --emit "$engine" "${t[@]}" --since 2024-04-05T05:50:00Z events >"$dir/events-all.txt"
	"$bin" timeline --emit "$engine" "${t[@]}" "${opts[@]}" ip-10-0-241-171.ec2.internal \
		>"$dir/timeline.txt"
done
[ ! -e no-such.db ] || fail "--emit created a store"
if [ "${LT_UPDATE_GOLDEN:-}" = 1 ]; then
	rm -rf "$golden" && cp -r "$out" "$golden"
	echo "test-engines: golden files rewritten in $golden"
fi
diff -r "$golden" "$out" >diff.txt || { head -60 diff.txt >&2; fail "emitted queries differ from tests/golden/engines (above)"; }

# every canned query's head names it and the engine; no engine's text is empty
for f in "$out"/*/*.txt; do
	head -1 "$f" | grep -qE '^(#|//|--) leasetrail (query|timeline) ' || fail "$f: no title line"
done

# the grammar of the SQL engines
if /usr/bin/python3 -c 'import sqlglot' 2>/dev/null; then
	/usr/bin/python3 "$check" grammar "$out"/bigquery*/*.txt "$out"/athena*/*.txt ||
		fail "a BigQuery or Athena query does not parse (above)"
	grammar=checked
elif [ "${CI:-}" = true ]; then
	fail "python3-sqlglot is not installed (.ci/run installs it)"
else
	echo "test-engines: python3-sqlglot not installed, SQL grammar not checked (apt-get install python3-sqlglot)" >&2
	grammar=skipped
fi

# GKE's identity behind the user (the store's IDENTITY): who-deleted selects it in BigQuery and
# names it in Logging's columns, by the AuditLog fields parser-gke.c reads (AuthenticationInfo
# principalSubject, serviceAccountDelegationInfo[].firstPartyPrincipal.principalEmail), with the
# labels the store gives them
gke=$src/parser/parser-gke.c
for key in authenticationInfo.principalSubject serviceAccountDelegationInfo firstPartyPrincipal.principalEmail; do
	grep -qF "$key" "$gke" || fail "parser-gke.c does not read $key"
	for f in "$out"/bigquery/who-deleted.txt "$out"/logging/who-deleted.txt; do
		grep -qF "$key" "$f" || fail "$f: no $key"
	done
done
grep -E ' AS identity,$' "$out"/bigquery/who-deleted.txt | grep -qF "CONCAT('subject=', protopayload_auditlog.authenticationInfo.principalSubject)" ||
	fail "bigquery who-deleted: the identity is not the store's subject=..."
grep -E ' AS identity,$' "$out"/bigquery/who-deleted.txt | grep -qF "CONCAT('via=', protopayload_auditlog.authenticationInfo.serviceAccountDelegationInfo[SAFE_OFFSET(0)].firstPartyPrincipal.principalEmail)" ||
	fail "bigquery who-deleted: the identity is not the store's via=..."
grep -q "^-- columns: gcloud logging read FILTER --format='table(.*protoPayload.authenticationInfo.principalSubject,protoPayload.authenticationInfo.serviceAccountDelegationInfo\[0\]\.firstPartyPrincipal\.principalEmail" \
	"$out"/logging/who-deleted.txt || fail "logging who-deleted: no identity columns"

# hostile values: quotes, backslashes, a newline, a tab and every dialect's comment markers
evil=$'ev\'il"\\x\n-- # // /* */ ;\tend'
evil_node=${evil//\//|} # a node name has no '/': NODE/x is a lease
expect_c() { # the C-style double-quoted literal (cwli, kql, logging)
	local s=$1
	s=${s//\\/\\\\}; s=${s//\"/\\\"}; s=${s//$'\n'/\\n}; s=${s//$'\t'/\\t}
	printf '"%s"' "$s"
}
for engine in cwli kql logging bigquery athena; do
	for what in cluster node lease; do
		v=$evil
		[ "$what" = node ] && v=$evil_node
		case $what in
		cluster) args=(--cluster "$evil" events ip-1) ok=(--cluster ok events ip-1) ;;
		node) args=(events "$evil_node") ok=(events ok) ;;
		lease) args=(events "ns/$evil") ok=(events ns/ok) ;;
		esac
		"$bin" query --emit "$engine" "${args[@]}" >"evil-$engine-$what.txt" || fail "$engine $what: exit $?"
		"$bin" query --emit "$engine" "${ok[@]}" >"ok-$engine-$what.txt"
		[ "$(wc -l <"evil-$engine-$what.txt")" = "$(wc -l <"ok-$engine-$what.txt")" ] ||
			fail "$engine: a hostile $what added a line"
		case $engine in
		bigquery | athena)
			[ "$grammar" = checked ] || continue
			/usr/bin/python3 "$check" literals "$engine" "evil-$engine-$what.txt" "$v" ||
				fail "$engine: the hostile $what is not one literal"
			;;
		logging)
			[ "$what" = cluster ] || continue # names are matched as escaped regexes: below
			grep -qF "resource.labels.cluster_name=$(expect_c "$evil")" "evil-$engine-$what.txt" ||
				fail "logging: cluster not quoted"
			;;
		kql)
			[ "$what" = cluster ] && lit=$(expect_c "/managedClusters/$v") || lit=$(expect_c "$v")
			grep -qF "$lit" "evil-$engine-$what.txt" || fail "kql: $what not quoted as $lit"
			;;
		cwli)
			[ "$what" = cluster ] && continue # a comment line: below
			grep -qF "$(expect_c "$v")" "evil-$engine-$what.txt" || fail "cwli: $what not quoted"
			;;
		esac
	done
done
# cwli: the cluster is in comments only, single-quoted for a shell, its newline escaped
grep -qF "# log group: '/aws/eks/ev'\\''il\"\\x\\n-- # // /* */ ;\\tend/cluster'" evil-cwli-cluster.txt ||
	fail "cwli: the log group comment"
# logging: a name is an RE2 literal (each non-alphanumeric byte escaped), then quoted
grep -qF 'ev\\'"'"'il\\\"\\\\x\\n\\-\\-\\ \\#' evil-logging-node.txt || fail "logging: name not escaped"
# a timeline's target reaches only the title comment, escaped
"$bin" timeline --emit kql "$evil" >evil-timeline.txt
[ "$(grep -c '^//' evil-timeline.txt)" = 3 ] || fail "timeline: the title comment broke"

# refusals and usage errors (exit 2); an unknown query is 1
set +e
"$bin" query --emit kql --cluster $'a\x01b' who-deleted >/dev/null 2>err; [ $? = 2 ] || fail "control byte: not 2"
grep -q "control character" err || fail "control byte: no reason"
"$bin" query --emit kql events $'a\x7fb' >/dev/null 2>&1; [ $? = 2 ] || fail "DEL in a name: not 2"
"$bin" query --emit kql --table Nope who-deleted >/dev/null 2>err; [ $? = 2 ] || fail "kql --table Nope: not 2"
grep -q "AKSAuditAdmin" err || fail "kql --table: the tables not named"
"$bin" query --emit logging --table x who-deleted >/dev/null 2>&1; [ $? = 2 ] || fail "logging --table: not 2"
"$bin" query --emit athena --table parquet who-deleted >/dev/null 2>&1; [ $? = 2 ] || fail "athena --table parquet: not 2"
"$bin" query --table AKSAudit who-deleted >/dev/null 2>&1; [ $? = 2 ] || fail "--table without --emit: not 2"
"$bin" query --cluster 'a b' who-deleted >/dev/null 2>&1; [ $? = 2 ] || fail "a cluster name a store cannot hold, without --emit: not 2"
"$bin" query --emit sql who-deleted >/dev/null 2>&1; [ $? = 2 ] || fail "--emit sql: not 2"
"$bin" query who-deleted events >/dev/null 2>&1; [ $? = 2 ] || fail "two names without --emit: not 2"
"$bin" query --emit kql nope >/dev/null 2>&1; [ $? = 1 ] || fail "unknown query: not 1"
set -e
echo "e2e engines: ok ($n canned queries over $(wc -w <<<"$variants") engine variants, events, timeline; grammar $grammar; quoting)"
