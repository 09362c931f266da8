#!/usr/bin/env bash
# Every test, as CI runs them: a Sanitize build (ASan + UBSan) with -Werror, then ctest.
# CI (.ci/run) then runs tests/build-matrix.sh: gcc Debug and clang Release builds, -Werror.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Sanitize -DLT_WERROR=ON -DLT_FAULT=ON >/dev/null
cmake --build build-test -j"$(nproc)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-test --output-on-failure -j"$(nproc)"
