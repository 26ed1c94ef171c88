#!/usr/bin/env bash
# A/B of the broker's malloc thresholds (base/malloc_tuning.h) on the seed
# workload: each round runs bench/seed_cluster.sh twice on fresh clusters,
# first with glibc's defaults (a no-op GLIBC_TUNABLES malloc setting makes
# the broker leave them), then with the broker's own thresholds, and samples
# each broker's minor page faults per second 45 s into the run.
#
#   bench/malloc_ab.sh [rounds]          (default 2; MODES=fsync by default)
set -uo pipefail
cd "$(dirname "$0")/.."
for round in $(seq "${1:-2}"); do
  for variant in before after; do
    if [ "$variant" = before ]; then
      export GLIBC_TUNABLES=glibc.malloc.tcache_count=7
    else
      unset GLIBC_TUNABLES
    fi
    (
      sleep 45
      for p in $(pgrep -x strata-broker); do
        a=$(awk '{print $10}' "/proc/$p/stat")
        sleep 1
        b=$(awk '{print $10}' "/proc/$p/stat")
        echo "  minflt/s $p $((b - a))"
      done
    ) &
    echo "== round $round $variant"
    MODES=${MODES:-fsync} bench/seed_cluster.sh 2>&1 |
      grep -E "produce |latency|strata-broker|strata-bench|accounting|results"
    wait
  done
done
