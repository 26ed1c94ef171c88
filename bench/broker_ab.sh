#!/usr/bin/env bash
# A/B of two strata-broker binaries on the 3-broker cluster, rounds
# alternating, each variant on a fresh cluster (scripts/cluster.sh, one core
# per broker): RF 3 acks=all durability=fsync at a fixed 10k msg/s (6
# partitions, 1 KiB, one group), then the seed workload
# (bench/workloads/mission.yaml) on RF 3 acks=all fsync. The client is this
# tree's strata-bench for both.
#
#   bench/broker_ab.sh A-broker B-broker [rounds]     (default 2 rounds)
#   DURATION=20 SEED=0 bench/broker_ab.sh /tmp/before/strata-broker build/server/strata-broker
#
# Results: bench/results/broker-ab-<UTC time>/runs.jsonl (each run's name
# carries its variant and round) and table.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
a=$(realpath "$1")
b=$(realpath "$2")
rounds=${3:-2}
bench=build/bench/strata_bench/strata-bench
out="bench/results/broker-ab-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
echo "A=$a B=$b" >"$out/variants.txt"
export BROKERS=3 STRATA_CLI=build/tools/strata
export STRATA_BROKER_ARGS="--cores 1 ${BROKER_ARGS:-}"
export STRATA_CLUSTER_DIR
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT

for round in $(seq "$rounds"); do
  for variant in A B; do
    if [ "$variant" = A ]; then export STRATA_BROKER=$a; else export STRATA_BROKER=$b; fi
    STRATA_CLUSTER_DIR=$(mktemp -d /tmp/strata-broker-ab-XXXXXX)
    sync
    bootstrap=$(scripts/cluster.sh up | tail -n 1 | sed 's/^bootstrap.servers=//')
    watch=()
    for n in 1 2 3; do watch+=(--watch-pid "$(cat "$STRATA_CLUSTER_DIR/broker-$n.pid")"); done
    echo "== round $round variant $variant ($STRATA_BROKER)"
    "$bench" --driver kafka --url "$bootstrap" --quiet --name "$variant-$round-10k" \
      --topic-prefix "ab10k" --partitions 6 --message-size 1024 --producers 1 --groups 1 \
      --consumers-per-group 1 --warmup 5 --duration "${DURATION:-20}" --drain-timeout 60 \
      --replication-factor 3 --acks all -D topic.min.insync.replicas=2 --rate 10000 \
      --linger-ms 1 "${watch[@]}" --json-out "$out/runs.jsonl" | tail -n 12
    if [ "${SEED:-1}" = 1 ]; then
      "$bench" --driver kafka --url "$bootstrap" --quiet --workload bench/workloads/mission.yaml \
        --name "$variant-$round-seed" --topic-prefix "abseed" --replication-factor 3 --acks all \
        -D topic.min.insync.replicas=2 "${watch[@]}" --json-out "$out/runs.jsonl" | tail -n 12
    fi
    for n in 1 2 3; do cp "$STRATA_CLUSTER_DIR/broker-$n.log" "$out/$variant-$round-broker-$n.log"; done
    scripts/cluster.sh down >/dev/null 2>&1 || true
    rm -rf "$STRATA_CLUSTER_DIR"
  done
done
/usr/bin/python3 bench/replication_table.py "$out/runs.jsonl" | tee "$out/table.txt"
echo "results in $out"
