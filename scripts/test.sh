#!/usr/bin/env bash
# Installs what the build needs, builds Strata, and runs the whole test suite:
# the unit and integration tests under ctest (the fault harness's runs among
# them), the same tests again in an AddressSanitizer +
# UndefinedBehaviorSanitizer build, the unit tests in a ThreadSanitizer
# build (about 7.5 minutes of build and 4 of tests on two cores), and
# bounded runs of the libFuzzer targets. CI allows 90 minutes; the whole
# suite takes about 45 (BENCHMARKS.md has each stage's time).
#
#   sudo ./scripts/test.sh            # everything
#   STRATA_SKIP_SANITIZERS=1 ./scripts/test.sh   # the plain build only (no ASan, no TSan)
#   STRATA_SKIP_TSAN=1 ./scripts/test.sh         # everything but the TSan stage
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage's start, with the minutes since the suite began (CI allows 90
# minutes on two cores).
began=$SECONDS
stage() { echo "== test.sh: $* (at $(((SECONDS - began) / 60)) min)"; }

stage "installing what the build and the tests need"
./scripts/setup.sh --tests

jobs=${STRATA_JOBS:-2}

# ctest in build directory $1 with the rest as its arguments; if a test
# fails, the lines that say why are printed last (a CI page shows the end).
run_ctest() {
  local dir=$1
  shift
  if ! ctest --test-dir "$dir" "$@"; then
    python3 scripts/failure_digest.py "$dir"
    return 1
  fi
}

# The test trees carry line tables only (-g1: file and line in every stack
# trace, no variable info): full -g costs about a third of the optimized
# build's compile time.
stage "the plain build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
cmake --build build -j"$jobs"
stage "its tests"
run_ctest build --output-on-failure -j"$jobs" --timeout 600

if [ -z "${STRATA_SKIP_SANITIZERS:-}" ]; then
  stage "the AddressSanitizer + UndefinedBehaviorSanitizer build"
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DSTRATA_SANITIZE=address,undefined -DSTRATA_BENCH=OFF -DCMAKE_CXX_FLAGS_DEBUG="-g1"
  cmake --build build-asan -j"$jobs"
  stage "its tests"
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ASAN_OPTIONS=detect_leaks=1 \
    run_ctest build-asan --output-on-failure -j"$jobs" --timeout 900
fi
if [ -z "${STRATA_SKIP_SANITIZERS:-}" ] && [ -z "${STRATA_SKIP_TSAN:-}" ]; then
  # ThreadSanitizer: the unit tests (threads meet in the shards, the control
  # thread, the metadata stores and their watches); integration tests run
  # real brokers built for speed above.
  stage "the ThreadSanitizer build"
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSTRATA_SANITIZE=thread -DSTRATA_BENCH=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
  cmake --build build-tsan -j"$jobs"
  stage "its unit tests"
  # Every unit test, the brokers run in process (BrokerTest, Replication)
  # included; not the load client's librdkafka driver (KafkaDriverTest),
  # which faults inside the uninstrumented librdkafka.
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp" \
    run_ctest build-tsan --output-on-failure -j"$jobs" --timeout 900 \
    -E '^(integration|fault)\.|^KafkaDriverTest\.'
fi
if [ -z "${STRATA_SKIP_FUZZ:-}" ]; then
  # libFuzzer targets (clang): the request decoder of every API and version,
  # and the RecordBatch parser, each for a bounded time.
  stage "the fuzz targets"
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSTRATA_FUZZ=ON
  cmake --build build-fuzz -j"$jobs"
  run_ctest build-fuzz --output-on-failure -j"$jobs"
fi
stage "done"
echo "all tests passed"
