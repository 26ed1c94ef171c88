#!/usr/bin/env bash
# Runs a strata-bench workload (default: the mission) N times in a row, each
# against a fresh strata-broker that logs its per-shard disk latencies and
# loop lag once a second, and draws every run's per-second timeline.
#
#   bench/mission_timeline.sh [build-dir] [runs] [strata-bench args...]
#   bench/mission_timeline.sh build 3 --linger-ms 1
#   BROKER_ARGS="--set strata.log.cache.window.bytes=0" bench/mission_timeline.sh build 1
#
# Results go to bench/results/timeline-<UTC time>/: runs.jsonl (one JSON line
# per run), broker-<n>.log, and plots/run-<n>.png.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/start_broker.sh
build=${1:-build}
runs=${2:-3}
shift $(( $# >= 2 ? 2 : $# ))
out="bench/results/timeline-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out/plots"
for n in $(seq "$runs"); do
  # Start each run from a quiet disk: dirty pages left by a build or the
  # previous run are written back now, not by the kernel's flusher in the
  # middle of the measured window (where they stall the broker's fdatasyncs).
  sync
  dir=$(mktemp -d /tmp/strata-timeline-XXXXXX)
  # shellcheck disable=SC2086  # BROKER_ARGS: words on purpose
  start_broker "$build/server/strata-broker" "$dir" --set strata.stats.interval.ms=1000 ${BROKER_ARGS:-}
  "$build/bench/strata_bench/strata-bench" --driver kafka --url "127.0.0.1:$port" \
    --workload bench/workloads/mission.yaml --watch-pid "$broker" \
    --json-out "$dir/run.jsonl" "$@" | tail -n 11
  kill -TERM "$broker"; wait "$broker" || true
  cat "$dir/run.jsonl" >> "$out/runs.jsonl"
  cp "$dir/broker.log" "$out/broker-$n.log"
  /usr/bin/python3 bench/plot_timeline.py "$dir/run.jsonl" --broker-log "$dir/broker.log" \
    --out "$dir/plots" > /dev/null
  cp "$dir"/plots/*.png "$out/plots/run-$n.png"
  rm -rf "$dir"
done
echo "results in $out"
