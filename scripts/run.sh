#!/usr/bin/env bash
# Installs what the build needs, builds Strata, and runs one strata-broker in
# the foreground: a single broker with the embedded coordinator, listening on
# 127.0.0.1:9092, data in ./data. Extra arguments go to strata-broker
# (see `build/server/strata-broker --help`). Stop it with Ctrl-C (SIGINT) or
# SIGTERM: it finishes requests in flight, flushes and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"${STRATA_JOBS:-2}" --target strata-broker
exec build/server/strata-broker "$@"
