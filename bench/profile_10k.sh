#!/usr/bin/env bash
# Profiles the brokers at RF 3 acks=all durability=fsync, 10k msg/s (6
# partitions, 1 KiB): a 3-broker cluster, strata-bench for 25 s, then
# `perf record -g` of all three brokers for 10 s and `perf stat` of their
# context switches for 5 s. Output in $OUT (default /tmp): perf10k.data,
# perfstat10k.txt, prof10k-bench.txt. B=path/to/strata-broker picks the binary.
#
#   bench/profile_10k.sh && perf report -i /tmp/perf10k.data --no-children --sort sym
set -euo pipefail
cd "$(dirname "$0")/.."
export BROKERS=3 STRATA_CLI=build/tools/strata STRATA_BROKER=${B:-build/server/strata-broker}
export STRATA_BROKER_ARGS="--cores 1"
export STRATA_CLUSTER_DIR=$(mktemp -d /tmp/strata-prof-XXXXXX)
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
bootstrap=$(scripts/cluster.sh up | tail -n 1 | sed 's/^bootstrap.servers=//')
pids=$(cat "$STRATA_CLUSTER_DIR"/broker-*.pid | paste -sd,)
watch=(); for n in 1 2 3; do watch+=(--watch-pid "$(cat "$STRATA_CLUSTER_DIR/broker-$n.pid")"); done
build/bench/strata_bench/strata-bench --driver kafka --url "$bootstrap" --quiet --name prof-10k \
  --topic-prefix "p10k" --partitions 6 --message-size 1024 --producers 1 --groups 1 \
  --consumers-per-group 1 --warmup 5 --duration 25 --drain-timeout 60 \
  --replication-factor 3 --acks all -D topic.min.insync.replicas=2 --rate 10000 \
  --linger-ms 1 "${watch[@]}" >"${OUT:-/tmp}/prof10k-bench.txt" 2>&1 &
bp=$!
sleep 12
perf record -F 999 -g -p "$pids" -o "${OUT:-/tmp}/perf10k.data" -- sleep 10 >"${OUT:-/tmp}/perf-rec.log" 2>&1 || echo "perf failed"
perf stat -e context-switches,cpu-migrations,page-faults -p "$pids" -- sleep 5 2>"${OUT:-/tmp}/perfstat10k.txt" || true
wait $bp
tail -n 12 "${OUT:-/tmp}/prof10k-bench.txt"
