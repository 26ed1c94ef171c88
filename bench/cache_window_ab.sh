#!/usr/bin/env bash
# The cache window's effect on durability=replicated topics, side by side:
# a 3-broker cluster (scripts/cluster.sh, one core each) with
# strata.log.cache.window.bytes=0 (nothing dropped from the page cache,
# which is what these topics had before the window wrote their bytes back),
# then with the default 64 MiB, ROUNDS times alternating; each runs RF 3
# acks=all replicated unthrottled and at 10k msg/s (1 KiB, 6 partitions,
# one group reading along).
#
#   bench/cache_window_ab.sh [build-dir]
#
# Results: bench/results/cache-window-ab-<UTC time>.jsonl, and the
# strata-bench summaries on stdout.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out="bench/results/cache-window-ab-$(date -u +%Y%m%dT%H%M%SZ).jsonl"
export BROKERS=3 STRATA_BROKER="$build/server/strata-broker" STRATA_CLI="$build/tools/strata"
export STRATA_CLUSTER_DIR
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
for round in $(seq "${ROUNDS:-2}"); do
  for window in 0 67108864; do
    STRATA_CLUSTER_DIR=$(mktemp -d /tmp/strata-cache-ab-XXXXXX)
    export STRATA_BROKER_ARGS="--cores 1 --set strata.log.cache.window.bytes=$window"
    sync
    bootstrap=$(scripts/cluster.sh up | tail -n 1 | sed 's/^bootstrap.servers=//')
    watch=()
    for n in 1 2 3; do watch+=(--watch-pid "$(cat "$STRATA_CLUSTER_DIR/broker-$n.pid")"); done
    for rate in 0 10000; do
      echo "== round $round, window $window, rate $rate"
      "$build/bench/strata_bench/strata-bench" --driver kafka --url "$bootstrap" --quiet \
        --name "window-$window-rate-$rate" --topic-prefix "ab$round$window$rate" --partitions 6 \
        --message-size 1024 --producers 1 --groups 1 --consumers-per-group 1 --warmup 5 \
        --duration 20 --drain-timeout 60 "${watch[@]}" --replication-factor 3 --acks all \
        -D topic.min.insync.replicas=2 -D topic.durability=replicated --rate "$rate" \
        --linger-ms 1 --json-out "$out" | tail -n 8
    done
    scripts/cluster.sh down >/dev/null 2>&1
    rm -rf "$STRATA_CLUSTER_DIR"
  done
done
