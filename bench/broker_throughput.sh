#!/usr/bin/env bash
# Produce and consume throughput of 1 KiB messages against one strata-broker
# on this machine, with librdkafka (bench/kafka_perf), at acks=1 and
# acks=all (durability=fsync), and the broker's peak memory (VmHWM).
#
#   bench/broker_throughput.sh [build-dir] [messages]
set -euo pipefail
build=${1:-build}
messages=${2:-1000000}
partitions=${PARTITIONS:-4}
perf="$build/bench/kafka_perf"
broker_bin="$build/server/strata-broker"
dir=$(mktemp -d /tmp/strata-throughput-XXXXXX)
. "$(dirname "$0")/start_broker.sh"
start_broker "$broker_bin" "$dir" --log-level warn --set "num.partitions=$partitions"
trap 'kill -TERM $broker 2>/dev/null || true; wait $broker 2>/dev/null || true; rm -rf "$dir"' EXIT
bootstrap="127.0.0.1:$port"
echo "# $messages messages of 1024 bytes, $partitions partitions, broker pid $broker"
"$perf" --bootstrap "$bootstrap" --topic t-acks1 --messages "$messages" --acks 1 | head -1
"$perf" --bootstrap "$bootstrap" --topic t-acks1 --messages "$messages" --consume | tail -2 | head -1
"$perf" --bootstrap "$bootstrap" --topic t-acksall --messages "$messages" --acks all | head -1
"$perf" --bootstrap "$bootstrap" --topic t-acksall --messages "$messages" --consume | tail -2 | head -1
echo "broker peak RSS: $(grep VmHWM /proc/$broker/status | awk '{print $2, $3}')"
echo "broker CPU time (user+sys s): $(awk '{printf "%.1f", ($14+$15)/100}' /proc/$broker/stat)"
