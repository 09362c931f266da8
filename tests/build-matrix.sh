#!/usr/bin/env bash
# The other builds CI makes besides tests/run-all.sh, so that what contributors build is what CI
# builds: gcc Debug (-O0, asserts on) and clang Release (-O3, NDEBUG), both -Werror; each builds
# everything, then runs the fast suites (unit tests, fuzz-corpus replay, style rules).
# Needs clang: .ci/run installs it; elsewhere `apt-get install clang` first.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v clang >/dev/null 2>&1; then
  echo "build-matrix: clang is not installed (apt-get install clang); the clang build cannot run" >&2
  exit 1
fi

build() { # DIR CC BUILD_TYPE
  echo "== $1: CC=$2 CMAKE_BUILD_TYPE=$3 -DLT_WERROR=ON"
  CC=$2 cmake -S . -B "$1" -DCMAKE_BUILD_TYPE="$3" -DLT_WERROR=ON >/dev/null
  cmake --build "$1" -j"$(nproc)"
  ctest --test-dir "$1" --output-on-failure -j"$(nproc)" -R '^(unit|fuzz|style)\.'
}

build build-debug gcc Debug
build build-clang clang Release
