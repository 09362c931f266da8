#!/usr/bin/env bash
# health-golden.sh - node-health windows and evictions of fixed inputs against golden files:
# the hand-written two-node incident (tests/e2e/health), the real controller and kubelet
# lines of tests/corpus/kubelet/gh-kubernetes-*, and samples/notready.
# Usage: health-golden.sh LEASETRAIL HEALTH_EVAL CORPUS SAMPLES GOLDEN TMPDIR
# UPDATE_GOLDEN=1 rewrites the golden files.
set -euo pipefail
lt=$1 eval=$2 corpus=$3 samples=$4 golden=$5 tmp=$6
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$tmp" && mkdir -p "$tmp"
fail=0
check() { # name, then the paths to ingest (with options)
	local name=$1
	shift
	"$lt" ingest --db "$tmp/$name.db" "$@" >/dev/null 2>&1 || true
	"$eval" "$tmp/$name.db" --dump >"$tmp/$name.txt"
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
		cp "$tmp/$name.txt" "$golden/$name.txt"
	elif ! diff -u "$golden/$name.txt" "$tmp/$name.txt"; then
		echo "FAIL: $name differs from $golden/$name.txt" >&2
		fail=1
	fi
}
mkdir -p "$golden"
check fixture-two-node "$here/health"
check corpus-lines --year 2020 "$corpus"/kubelet/gh-kubernetes-77981_kcm_taint-lines.log \
	"$corpus"/kubelet/gh-kubernetes-45419_journal_node-not-ready-pleg.log \
	"$corpus"/kubelet/gh-kubernetes-101056_journal_skipping-pod-sync.log \
	"$corpus"/kubelet/gh-kubernetes-120815_kcm_node-not-updated.log
check samples-notready "$samples/notready/audit" "$samples/notready/logs"
exit $fail
