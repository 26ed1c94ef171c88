#!/usr/bin/env bash
# A/B of replica.fetch.max.bytes on the seed workload's cluster run: each
# round runs bench/seed_cluster.sh on fresh clusters with Kafka's 1 MiB per
# partition, then with BYTES (default 4 MiB), and counts the ISR shrinks
# the controller logged (followers that fell replica.lag.time.max.ms behind).
#
#   bench/replica_fetch_ab.sh [rounds] [bytes]     (MODES=fsync by default)
set -uo pipefail
cd "$(dirname "$0")/.."
for round in $(seq "${1:-2}"); do
  for bytes in 1048576 "${2:-4194304}"; do
    echo "== round $round replica.fetch.max.bytes=$bytes"
    out=$(BROKER_ARGS="--set replica.fetch.max.bytes=$bytes" MODES=${MODES:-fsync} \
      bench/seed_cluster.sh 2>&1)
    echo "$out" | grep -E "produce |latency|strata-broker|strata-bench|accounting"
    dir=$(echo "$out" | sed -n 's/^results in //p')
    echo "  ISR shrinks: $(cat "$dir"/broker-*.log | grep -c 'ISR .* -> .*asked by leader' || true) ISR changes logged; results in $dir"
  done
done
