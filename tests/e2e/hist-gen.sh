#!/usr/bin/env bash
# The histogram's kept counts (lt_hist_sec, lt_hist_min) on lt-gen's logs: audit events with
# noise, every kubelet's journal and the controller-managers' klog; test-tui's
# test_browse_hist_kept_gen checks every bin of minute, second and unaligned bins against the
# rows' own counts on this store (LT_HIST_GEN_DB), as unit.tui does on samples/notready.
#   bash tests/e2e/hist-gen.sh BIN LT_GEN TEST_TUI TMP
set -euo pipefail
bin=$1 gen=$2 test_tui=$3 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
"$gen" --nodes 12 --minutes 14 --noise 2 --seed 5 -o audit.log --journal kubelet.log \
	--kcm-log kcm
"$bin" ingest -q --db gen.db audit.log kubelet.log kcm.*.log >/dev/null
one() { "$bin" sql --db gen.db -o csv "$1" | sed 1d; }
# the store holds what the check needs: lines, errors of both kinds, kept counts
[ "$(one "SELECT count(*) > 0 FROM lines")" = 1 ] || fail "no log line stored"
[ "$(one "SELECT count(*) > 0 FROM audit WHERE code >= 400")" = 1 ] || fail "no failed request"
[ "$(one "SELECT count(*) > 0 FROM lt_hist_min")" = 1 ] || fail "no kept count"
LT_HIST_GEN_DB=$PWD/gen.db "$test_tui" >out.txt 2>&1 || { cat out.txt; fail "test-tui"; }
grep -q '^\[       OK \] test_browse_hist_kept_gen' out.txt || { cat out.txt; fail "not run"; }
echo "hist-gen: ok"
