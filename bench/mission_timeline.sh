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
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$build/server/strata-broker" --data-dir "$dir/data" --listen "127.0.0.1:$port" \
    --set strata.stats.interval.ms=1000 ${BROKER_ARGS:-} > "$dir/broker.log" 2>&1 &
  broker=$!
  for _ in $(seq 100); do
    (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && break
    sleep 0.1
  done
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
