#!/usr/bin/env bash
# Build the libFuzzer targets (tests/fuzz) with clang in build-fuzz and run each for
# SECONDS_PER_TARGET (default 30; fuzz_http, the slow end-to-end one over sockets, for half of
# that: fuzz_http_route covers the same logic in process), two at a time, on a copy of its seed
# corpus and of its regression inputs (tests/regression/NAME; the checked-in files are never
# modified). Fails on any crash, leak, timeout or out-of-memory, and prints the reproducer;
# docs/fuzzing.md says how to keep it as a regression test.
#
# usage: scripts/fuzz.sh [SECONDS_PER_TARGET]
#   FUZZ_TARGETS="fuzz_json fuzz_idl"  run only these
#   FUZZ_JOBS=N                         targets at a time (default 2)
#   FUZZ_WORK=DIR                       where corpora copies, logs and reproducers go
#                                       (default build-fuzz/fuzz-run)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-30}
JOBS=${FUZZ_JOBS:-2}
BUILD=build-fuzz
CC_FUZZ=${CC_FUZZ:-clang}

if ! command -v "$CC_FUZZ" >/dev/null 2>&1; then
  echo "fuzz: $CC_FUZZ not found (Debian: apt-get install clang libclang-rt-dev)" >&2
  exit 1
fi
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$CC_FUZZ" \
  -DMCPIDL_FUZZ=ON -DMCPIDL_BUILD_TESTS=OFF -DMCPIDL_BUILD_EXAMPLES=OFF -DMCPIDL_MANPAGE=OFF \
  -DMCPIDL_INSTALL=OFF >/dev/null
TARGETS=${FUZZ_TARGETS:-fuzz_json fuzz_texpr fuzz_idl fuzz_decode fuzz_jsonrpc fuzz_state fuzz_http_route fuzz_http fuzz_jwt fuzz_formats}
echo "== fuzz: building $TARGETS in $BUILD"
# shellcheck disable=SC2086
if ! cmake --build "$BUILD" -j "$(nproc 2>/dev/null || echo 2)" --target $TARGETS >"$BUILD/fuzz-build.log" 2>&1; then
  cat "$BUILD/fuzz-build.log"
  echo "fuzz: the build failed" >&2
  exit 1
fi

WORK=${FUZZ_WORK:-$BUILD/fuzz-run}
rm -rf "$WORK"
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# One target: its corpus copied, libFuzzer run with a time budget; a failure leaves the
# reproducer (crash-*, leak-*, timeout-*, oom-*) in $WORK/NAME/artifacts/.
run_target() {
  local name=$1 dir=$WORK/$1 seconds=$SECONDS_PER_TARGET
  if [ "$name" = fuzz_http ] && [ "$seconds" -gt 1 ]; then
    seconds=$((seconds / 2))
  fi
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp tests/fuzz/corpus/"$name"/* "$dir/corpus/" 2>/dev/null || true
  # The inputs that once failed start every run too, under clang's sanitizers.
  cp tests/regression/"$name"/* "$dir/corpus/" 2>/dev/null || true
  if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
     UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     "$BUILD/tests/fuzz/$name" "$dir/corpus" -max_total_time="$seconds" -timeout=10 \
       -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1 \
       -artifact_prefix="$dir/artifacts/" >"$dir/log" 2>&1; then
    echo "ok   $name: $(grep -a -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$dir/log" | grep -o '[0-9]*$') runs," \
         "$(ls "$dir/corpus" | wc -l) corpus files"
  else
    echo "FAIL $name (log: $dir/log)"
    grep -a -E 'ERROR|SUMMARY|fuzz check failed|Test unit written|deadly signal' "$dir/log" | head -n 20 | sed 's/^/     /'
    for f in "$dir"/artifacts/*; do
      [ -e "$f" ] && echo "     reproducer: $f"
    done
    return 1
  fi
}

echo "== fuzz: ${SECONDS_PER_TARGET}s per target, $JOBS at a time"
pids=()
names=()
failed=0
for name in $TARGETS; do
  if [ ! -x "$BUILD/tests/fuzz/$name" ]; then
    echo "FAIL $name: not built"
    failed=1
    continue
  fi
  run_target "$name" > "$WORK/$name.summary" 2>&1 &
  pids+=($!)
  names+=("$name")
  if [ ${#pids[@]} -ge "$JOBS" ]; then
    wait "${pids[0]}" || failed=1
    cat "$WORK/${names[0]}.summary"
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
  fi
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || failed=1
  cat "$WORK/${names[$i]}.summary"
done
exit $failed
