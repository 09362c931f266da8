#!/usr/bin/env bash
# Fuzzes every target (tests/fuzz/fuzz-*.c) with libFuzzer for SECONDS each, two at a time:
# a clang build with -DLT_FUZZ=ON (ASan + UBSan, coverage) in build-fuzz/, each target started
# on a scratch copy of its corpus, tests/fuzz/corpus/TARGET/ (so a run adds nothing to the
# repository by itself).  Any crash, leak, timeout or out-of-memory fails the run; its input is
# copied into the target's corpus with a message saying to fix the bug and commit the input.
#
#   bash tests/fuzz/run-fuzz.sh [SECONDS [TARGET...]]   CI: 60 s a target (.ci/run)
#   bash tests/fuzz/run-fuzz.sh --merge [TARGET...]      minimizes each corpus in place
#
# Environment: LT_FUZZ_JOBS (2) targets at a time; LT_FUZZ_NICE (0) niceness; LT_FUZZ_BUILD
# (build-fuzz) the build directory; LT_FUZZ_LOG (BUILD/logs) where each target's log and
# scratch files go; LT_FUZZ_KEEP=1 copies the new coverage-increasing inputs back into the
# corpus too (then minimize with --merge).
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$PWD
corpus=$src/tests/fuzz/corpus
build=${LT_FUZZ_BUILD:-$src/build-fuzz}
all=(input sniff parser index queries)

merge=0
if [[ ${1:-} == --merge ]]; then
	merge=1
	shift
	secs=0
else
	secs=${1:-60}
	shift || true
fi
targets=("$@")
((${#targets[@]})) || targets=("${all[@]}")
jobs=${LT_FUZZ_JOBS:-2}
nice=${LT_FUZZ_NICE:-0}
logs=${LT_FUZZ_LOG:-$build/logs}

# The longest input each target is given: whole small files; queries takes a few of them.
declare -A max_len=([input]=8192 [sniff]=8192 [parser]=8192 [index]=8192 [queries]=32768)

if ! command -v clang >/dev/null 2>&1; then
	echo "run-fuzz: clang is not installed (apt-get install clang libclang-rt-dev)" >&2
	exit 1
fi
echo "== build-fuzz: CC=clang -DLT_FUZZ=ON (libFuzzer, ASan, UBSan)"
CC=clang cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLT_FUZZ=ON -DLT_WERROR=ON \
	>/dev/null
cmake --build "$build" -j"$jobs" --target $(printf 'fuzz-%s ' "${targets[@]}") >/dev/null
mkdir -p "$logs"

# a small quarantine: a third less CPU a run (the store targets allocate much, briefly)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1:quarantine_size_mb=32
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# fuzz TARGET: one libFuzzer run; 0 when it found nothing.
fuzz() {
	local t=$1 work=$logs/$t
	local bin=$build/tests/fuzz-$t
	rm -rf "$work"
	mkdir -p "$work/corpus" "$work/artifacts" "$work/tmp"
	cp "$corpus/$t"/* "$work/corpus/" 2>/dev/null || true
	if ((merge)); then
		# the inputs that add coverage, as libFuzzer picks them; seeds (seed-*) and crash
		# regressions (crash-*, leak-*, timeout-*, oom-*) stay whatever they add
		mkdir -p "$work/merged"
		LT_FUZZ_TMP=$work/tmp nice -n "$nice" "$bin" -merge=1 -max_len="${max_len[$t]}" \
			-rss_limit_mb=2048 "$work/merged" "$work/corpus" >"$work/log" 2>&1 || return 1
		find "$corpus/$t" -type f ! -name 'seed-*' ! -name 'crash-*' ! -name 'leak-*' \
			! -name 'timeout-*' ! -name 'oom-*' -delete
		local f s dup
		for f in "$work/merged"/*; do
			[[ -e $f ]] || continue
			dup=0
			for s in "$corpus/$t"/*; do cmp -s "$f" "$s" && dup=1 && break; done
			((dup)) || cp "$f" "$corpus/$t/"
		done
		echo "merge $t: $(find "$corpus/$t" -type f | wc -l) inputs, $(du -sh "$corpus/$t" | cut -f1)"
		return 0
	fi
	local rc=0
	LT_FUZZ_TMP=$work/tmp nice -n "$nice" "$bin" -max_total_time="$secs" -max_len="${max_len[$t]}" \
		-rss_limit_mb=2048 -timeout=60 -print_final_stats=1 \
		-dict="$src/tests/fuzz/leasetrail.dict" -artifact_prefix="$work/artifacts/" "$work/corpus" \
		>"$work/log" 2>&1 || rc=$?
	# the last status line: executions, coverage, corpus
	local execs
	execs=$(grep -aoE 'stat::number_of_executed_units: *[0-9]+' "$work/log" | grep -oE '[0-9]+$' || echo '?')
	echo "fuzz $t: ${secs}s, $execs runs, $(grep -aE '^#[0-9]+' "$work/log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' || true), exit $rc"
	if [[ ${LT_FUZZ_KEEP:-0} == 1 ]]; then
		cp -n "$work/corpus"/* "$corpus/$t/" 2>/dev/null || true
	fi
	local found=0
	for a in "$work/artifacts"/{crash,leak,timeout,oom}-*; do
		[[ -e $a ]] || continue
		found=1
		cp "$a" "$corpus/$t/"
		echo "run-fuzz: $t: $(basename "$a"): a crash; its input is now tests/fuzz/corpus/$t/$(basename "$a")" >&2
		echo "  fix the bug, then commit that file: the replay test fuzz.$t-replay keeps it covered" >&2
	done
	if ((rc != 0 || found)); then
		grep -aE 'ERROR|runtime error|invariant broken|SUMMARY' "$work/log" | head -20 >&2 || true
		echo "  log: $work/log" >&2
		return 1
	fi
	return 0
}

failed=0
pids=()
names=()
for t in "${targets[@]}"; do
	fuzz "$t" &
	pids+=($!)
	names+=("$t")
	while (($(jobs -rp | wc -l) >= jobs)); do sleep 1; done
done
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || failed=1
done
if ((failed)); then
	echo "run-fuzz: a target failed (above)" >&2
	exit 1
fi
echo "run-fuzz: no crash"
