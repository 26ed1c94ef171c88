#!/usr/bin/env bash
# The log cleaner's cost and work on one strata-broker, side by side: a
# keyed workload at a fixed rate (strata-bench, `--keys uniform`) on topics
# that are all cleanup.policy=compact (the broker's log.cleanup.policy),
# with the cleaner off and on, alternating which goes first each round, each
# on fresh topics. Reports strata-bench's publish latency, throughput,
# broker CPU and peak RSS per run, and, from the broker's log, what the
# cleaner did in the runs with it on (bytes read and written, records kept,
# MB/s). Results in bench/results/compaction-<time>.jsonl.
#
#   bench/compaction_ab.sh [build-dir] [rounds] [keys] [rate] [seconds]
set -euo pipefail
build=${1:-build}
rounds=${2:-2}
keys=${3:-1000000}
rate=${4:-20000}
seconds=${5:-60}
bench="$build/bench/strata_bench/strata-bench"
broker_bin="$build/server/strata-broker"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/bench/results/compaction-$(date -u +%Y%m%dT%H%M%SZ).jsonl"
mkdir -p "$(dirname "$out")"
. "$root/bench/start_broker.sh"
dirs=()
trap 'kill -TERM ${broker:-0} 2>/dev/null || true; wait ${broker:-0} 2>/dev/null || true; rm -rf "${dirs[@]}"' EXIT
run() {  # run ROUND CLEANER(true|false)
  local dir
  dir=$(mktemp -d /tmp/strata-compaction-XXXXXX)
  dirs+=("$dir")
  start_broker "$broker_bin" "$dir" --log-level info \
    --set log.cleanup.policy=compact --set log.segment.bytes=33554432 \
    --set log.cleaner.backoff.ms=1000 --set "log.cleaner.enable=$2"
  "$bench" --driver kafka --url "127.0.0.1:$port" --name "cleaner-$2" \
    --topic-prefix "compact-$1-$2" --partitions 4 --message-size 256 \
    --keys uniform --key-count "$keys" --producers 1 --rate "$rate" --acks all \
    --linger-ms 5 --groups 1 --warmup 5 --duration "$seconds" --drain-timeout 60 \
    --watch-pid "$broker" --quiet --json-out "$out" > /dev/null
  kill -TERM "$broker"; wait "$broker" || true
  grep -h "cleaner: " "$dir/broker.log" | sed "s/^/  [round $1] /" || true
  rm -rf "$dir/data"
}
for r in $(seq "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then run "$r" false; run "$r" true; else run "$r" true; run "$r" false; fi
done
python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print("| run | msg/s | publish p50 / p99 / p99.9 ms | e2e p99 ms | broker cores | broker peak RSS MiB |")
print("|---|---|---|---|---|---|")
for r in rows:
    name = r.get("name") or r.get("workload", {}).get("name", "?")
    p, e, b = r["publish_latency"], r["e2e_latency"], r["processes"][0]
    print("| %s | %.0f | %.1f / %.1f / %.1f | %.1f | %.2f | %.0f |" % (
        name, r["produce"]["msgs_per_s"], p["p50_ms"], p["p99_ms"], p["p999_ms"], e["p99_ms"],
        b["cpu_cores"], b["peak_rss_mib"]))
PY
