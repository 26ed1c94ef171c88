#!/usr/bin/env bash
# Replication side by side on three brokers on loopback, Strata
# (scripts/cluster.sh: etcd + 3 brokers, one core each) and Apache Kafka 4.x
# (bench/kafka.sh: 3 KRaft nodes, each broker and controller), interleaved
# in one run, each run on a freshly started cluster with fresh data:
#   RF 1 acks=1, RF 3 acks=1, RF 3 acks=all on durability=fsync (Kafka:
#   log.flush.interval.messages=1) and on durability=replicated (Kafka's
#   default), min.insync.replicas=2,
# first as fast as one producer goes (throughput), then at a fixed 10k msg/s
# (publish and end-to-end latency), 1 KiB messages, one group reading along.
# Then the seed workload (the mission: 100k msg/s, three groups) on RF 3,
# acks=all, durability=replicated against Kafka's default. Every run watches
# the three brokers' CPU and memory (strata-bench --watch-pid), from which
# the table's CPU seconds per GB come.
#
#   bench/replication_bench.sh [build-dir] [strata-bench args...]
#   DURATION=20 SYSTEMS="strata kafka" MODES="max 10k" SEED=1 bench/replication_bench.sh build
#   CONFIGS="rf3-all-replicated rf3-all-idempotent" MODES=max SEED=0 bench/replication_bench.sh
#       (idempotent producers against plain ones, the same RF 3 acks=all runs)
#
# Results: bench/results/replication-<UTC time>/runs.jsonl (one JSON line per
# run, its "name" prefixed with the system) and table.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift $(( $# >= 1 ? 1 : 0 ))
out="bench/results/replication-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
systems=${SYSTEMS:-strata kafka}
work=$(mktemp -d /var/tmp/strata-replication-bench-XXXXXX)
. bench/three_brokers.sh
trap 'clusters_down; rm -rf "$work"' EXIT

# up SYSTEM [--flush]: a fresh cluster; sets bootstrap and watch.
up() {
  clusters_up "$@"
  watch=()
  local p
  for p in "${pids[@]}"; do watch+=(--watch-pid "$p"); done
}

duration=${DURATION:-20}
run() {
  local name=$1
  shift
  "$build/bench/strata_bench/strata-bench" --driver kafka --url "$bootstrap" --quiet \
    --name "$name" --topic-prefix "$name" --partitions 6 --message-size 1024 --producers 1 \
    --groups 1 --consumers-per-group 1 --warmup 5 --duration "$duration" --drain-timeout 60 \
    "${watch[@]}" --json-out "$out/runs.jsonl" "$@" | tail -n 12 ||
    echo "replication_bench.sh: $name did not complete (see above)" >&2
}
# name | strata-bench args | Strata's topic durability | Kafka's bench/kafka.sh flag
configs=(
  "rf1-acks1|--replication-factor 1 --acks 1||"
  "rf3-acks1|--replication-factor 3 --acks 1 -D topic.min.insync.replicas=2||"
  "rf3-all-fsync|--replication-factor 3 --acks all -D topic.min.insync.replicas=2|fsync|--flush"
  "rf3-all-replicated|--replication-factor 3 --acks all -D topic.min.insync.replicas=2|replicated|"
  "rf3-all-idempotent|--replication-factor 3 --acks all -D topic.min.insync.replicas=2 -D enable.idempotence=true|replicated|"
)
# CONFIGS="name ..." runs only those (default: all but rf3-all-idempotent,
# which is rf3-all-replicated with idempotent producers).
wanted=" ${CONFIGS:-rf1-acks1 rf3-acks1 rf3-all-fsync rf3-all-replicated} "
for mode in ${MODES:-max 10k}; do
  for c in "${configs[@]}"; do
    IFS='|' read -r cname cargs durability kflag <<<"$c"
    [[ "$wanted" == *" $cname "* ]] || continue
    read -r -a args <<<"$cargs"
    if [ "$mode" = max ]; then rate=0; else rate=10000; fi
    for system in $systems; do
      extra=()
      if [ "$system" = strata ]; then
        up strata
        [ -n "$durability" ] && extra=(-D "topic.durability=$durability")
      else
        # shellcheck disable=SC2086
        up kafka $kflag
      fi
      run "$system-$cname-$mode" "${args[@]}" "${extra[@]}" --rate "$rate" --linger-ms 1 "$@"
    done
  done
done
# The seed workload (bench/workloads/mission.yaml: 100k msg/s of 1 KiB into 16
# partitions, three groups) on RF 3 with acks=all, unless SEED=0.
if [ "${SEED:-1}" = 1 ]; then
  for system in $systems; do
    extra=()
    if [ "$system" = strata ]; then
      up strata
      extra=(-D topic.durability=replicated)
    else
      up kafka
    fi
    "$build/bench/strata_bench/strata-bench" --driver kafka --url "$bootstrap" --quiet \
      --workload bench/workloads/mission.yaml --name "$system-mission-rf3-all" \
      --topic-prefix mission-rf3 --replication-factor 3 --acks all \
      -D topic.min.insync.replicas=2 "${extra[@]}" "${watch[@]}" --json-out "$out/runs.jsonl" "$@" |
      tail -n 12 || echo "replication_bench.sh: $system-mission-rf3-all did not complete" >&2
  done
fi
clusters_down
/usr/bin/python3 bench/replication_table.py "$out/runs.jsonl" | tee "$out/table.txt"
