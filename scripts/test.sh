#!/usr/bin/env bash
# Build mcpidl and run every test: once in a normal build, once under
# AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc 2>/dev/null || echo 2)

run_suite() {
  local dir=$1; shift
  # Whatever an earlier configuration of "$dir" chose (an install build with the tests off, the
  # runtime alone), everything the suite needs is switched on again.
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMCPIDL_BUILD_TESTS=ON -DMCPIDL_BUILD_EXAMPLES=ON \
    -DMCPIDL_RUNTIME_ONLY=OFF -DMCPIDL_HTTP=ON -DMCPIDL_INSTALL=ON -DMCPIDL_SANITIZE=OFF "$@" >/dev/null
  cmake --build "$dir" -j "$JOBS"
  (cd "$dir" && ctest --output-on-failure -j "$JOBS")
}

echo "== build and test"
run_suite build
echo "== build and test under ASan and UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_suite build-asan -DMCPIDL_SANITIZE=ON
echo "== fuzz"
scripts/fuzz.sh 20
