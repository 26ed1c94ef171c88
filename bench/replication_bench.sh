#!/usr/bin/env bash
# Replication side by side on one 3-broker cluster (scripts/cluster.sh:
# etcd + 3 brokers on loopback, one core each), in one run:
#   RF 1 acks=1, RF 3 acks=1, RF 3 acks=all on durability=fsync and on
#   durability=replicated (min.insync.replicas=2),
# first as fast as one producer goes (throughput), then at a fixed 10k msg/s
# (publish and end-to-end latency), 1 KiB messages, one group reading along.
# Then the seed workload (the mission: 100k msg/s, three groups) on RF 3,
# acks=all. Every run watches the three brokers' CPU and memory
# (strata-bench --watch-pid), from which the table's CPU seconds per GB come.
#
#   bench/replication_bench.sh [build-dir] [strata-bench args...]
#   DURATION=20 bench/replication_bench.sh build
#
# Results: bench/results/replication-<UTC time>/runs.jsonl (one JSON line per
# run) and table.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift $(( $# >= 1 ? 1 : 0 ))
out="bench/results/replication-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
export STRATA_CLUSTER_DIR
STRATA_CLUSTER_DIR=$(mktemp -d /tmp/strata-replication-bench-XXXXXX)
export BROKERS=3 STRATA_BROKER="$build/server/strata-broker" STRATA_CLI="$build/tools/strata"
export STRATA_BROKER_ARGS="--cores 1 ${BROKER_ARGS:-}"
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true; rm -rf "$STRATA_CLUSTER_DIR"' EXIT
sync  # start from a quiet disk
bootstrap=$(scripts/cluster.sh up | tail -n 1 | sed 's/^bootstrap.servers=//')
watch=()
for n in 1 2 3; do watch+=(--watch-pid "$(cat "$STRATA_CLUSTER_DIR/broker-$n.pid")"); done

duration=${DURATION:-20}
run() {
  local name=$1
  shift
  "$build/bench/strata_bench/strata-bench" --driver kafka --url "$bootstrap" --quiet \
    --name "$name" --topic-prefix "$name" --partitions 6 --message-size 1024 --producers 1 \
    --groups 1 --consumers-per-group 1 --warmup 5 --duration "$duration" --drain-timeout 60 \
    "${watch[@]}" --json-out "$out/runs.jsonl" "$@" | tail -n 12
}
configs=(
  "rf1-acks1 --replication-factor 1 --acks 1"
  "rf3-acks1 --replication-factor 3 --acks 1 -D topic.min.insync.replicas=2"
  "rf3-all-fsync --replication-factor 3 --acks all -D topic.min.insync.replicas=2"
  "rf3-all-replicated --replication-factor 3 --acks all -D topic.min.insync.replicas=2 -D topic.durability=replicated"
)
for mode in max 10k; do
  for c in "${configs[@]}"; do
    read -r -a args <<<"$c"
    name="${args[0]}-$mode"
    if [ "$mode" = max ]; then rate=0; else rate=10000; fi
    run "$name" "${args[@]:1}" --rate "$rate" --linger-ms 1 "$@"
  done
done
# The seed workload (bench/workloads/mission.yaml: 100k msg/s of 1 KiB into 16
# partitions, three groups) on RF 3 with acks=all, unless SEED=0.
if [ "${SEED:-1}" = 1 ]; then
  "$build/bench/strata_bench/strata-bench" --driver kafka --url "$bootstrap" --quiet \
    --workload bench/workloads/mission.yaml --name mission-rf3-all --topic-prefix mission-rf3 \
    --replication-factor 3 --acks all -D topic.min.insync.replicas=2 \
    "${watch[@]}" --json-out "$out/runs.jsonl" "$@" | tail -n 12
fi
/usr/bin/python3 bench/replication_table.py "$out/runs.jsonl" | tee "$out/table.txt"
