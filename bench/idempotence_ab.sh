#!/usr/bin/env bash
# Idempotent against plain produce on one strata-broker, side by side:
# strata-bench's max-produce workload (1 KiB messages, 16 partitions, two
# producers, acks=all) with enable.idempotence=true and =false, alternating
# which goes first in each round (this machine's throughput drifts between
# runs), each round on fresh topics. Results as JSON lines in
# bench/results/idempotence-<time>.jsonl and a table on stdout.
#
#   bench/idempotence_ab.sh [build-dir] [rounds]
#   EXTRA="max.in.flight.requests.per.connection=5" bench/idempotence_ab.sh
#       (more librdkafka properties for both sides, space-separated)
set -euo pipefail
build=${1:-build}
rounds=${2:-3}
bench="$build/bench/strata_bench/strata-bench"
broker_bin="$build/server/strata-broker"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/bench/results/idempotence-$(date -u +%Y%m%dT%H%M%SZ).jsonl"
mkdir -p "$(dirname "$out")"
dir=$(mktemp -d /tmp/strata-idempotence-XXXXXX)
. "$root/bench/start_broker.sh"
start_broker "$broker_bin" "$dir" --log-level warn
trap 'kill -TERM $broker 2>/dev/null || true; wait $broker 2>/dev/null || true; rm -rf "$dir"' EXIT
run() {  # run ROUND IDEMPOTENT
  "$bench" --driver kafka --url "127.0.0.1:$port" --workload "$root/bench/workloads/max-produce.yaml" \
    --acks all --topic-prefix "ab-$1-$2" -D "enable.idempotence=$2" --watch-pid "$broker" \
    --quiet --json-out "$out" "${extra[@]}" > /dev/null
  order+=("$2")
}
order=()
extra=()
for kv in ${EXTRA:-}; do extra+=(-D "$kv"); done
for r in $(seq "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then run "$r" false; run "$r" true; else run "$r" true; run "$r" false; fi
done
python3 - "$out" "${order[@]}" <<'EOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
order = sys.argv[2:]
rows = rows[len(rows) - len(order):]
print("| round | idempotent | msg/s | MB/s | publish p50 / p99 ms | broker cores |")
print("|---|---|---|---|---|---|")
sums = {"true": [], "false": []}
for i, (r, idem) in enumerate(zip(rows, order)):
    p, pr = r["publish_latency"], r["produce"]
    sums[idem].append(pr["msgs_per_s"])
    print("| %d | %s | %.0f | %.1f | %.2f / %.2f | %.2f |" % (
        i // 2 + 1, "yes" if idem == "true" else "no", pr["msgs_per_s"], pr["mb_per_s"],
        p["p50_ms"], p["p99_ms"], r["processes"][0]["cpu_cores"]))
mean = {k: sum(v) / len(v) for k, v in sums.items() if v}
if len(mean) == 2:
    print("idempotent / plain, mean msg/s: %.1f%%" % (100 * mean["true"] / mean["false"]))
EOF
echo "results: $out"
