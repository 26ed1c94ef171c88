#!/usr/bin/env bash
# The seed workload (bench/workloads/mission.yaml) on a fresh 3-broker
# cluster (scripts/cluster.sh, one core each), RF 3, acks=all,
# min.insync.replicas=2, once per durability in MODES (default: fsync
# replicated); keeps the brokers' logs beside runs.jsonl.
#
#   bench/seed_cluster.sh [strata-bench args...]
#   MODES=fsync BROKER_ARGS="--set strata.stats.interval.ms=1000" bench/seed_cluster.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
out="bench/results/seed-durability-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
export STRATA_CLUSTER_DIR
STRATA_CLUSTER_DIR=$(mktemp -d /tmp/strata-seed-XXXXXX)
export BROKERS=3 STRATA_BROKER="$build/server/strata-broker" STRATA_CLI="$build/tools/strata"
export STRATA_BROKER_ARGS="--cores 1 ${BROKER_ARGS:-}"
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true; rm -rf "$STRATA_CLUSTER_DIR"' EXIT
sync
bootstrap=$(scripts/cluster.sh up | tail -n 1 | sed 's/^bootstrap.servers=//')
watch=()
for n in 1 2 3; do watch+=(--watch-pid "$(cat "$STRATA_CLUSTER_DIR/broker-$n.pid")"); done
for d in ${MODES:-fsync replicated}; do
  "$build/bench/strata_bench/strata-bench" --driver kafka --url "$bootstrap" --quiet \
    --workload bench/workloads/mission.yaml --name "mission-rf3-all-$d" --topic-prefix "mission-$d" \
    --replication-factor 3 --acks all -D topic.min.insync.replicas=2 -D "topic.durability=$d" \
    "${watch[@]}" --json-out "$out/runs.jsonl" "$@" | tail -n 14
done
for n in 1 2 3; do cp "$STRATA_CLUSTER_DIR/broker-$n.log" "$out/"; done
echo "results in $out"
