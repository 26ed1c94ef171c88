#!/usr/bin/env bash
# Transactional against idempotent produce on one strata-broker, side by
# side: strata-bench's max-produce workload (1 KiB messages, 16 partitions,
# two producers, acks=all), idempotent producers against transactional ones
# committing every TXN messages (-D strata.txn.messages), alternating which
# goes first in each round, each round on fresh topics. The transactional
# side's time includes its commits (each waits for the markers of every
# partition the transaction wrote). Results as JSON lines in
# bench/results/transactions-<time>.jsonl and a table on stdout.
#
#   bench/transactions_ab.sh [build-dir] [rounds] [txn-messages]
set -euo pipefail
build=${1:-build}
rounds=${2:-3}
txn=${3:-1000}
bench="$build/bench/strata_bench/strata-bench"
broker_bin="$build/server/strata-broker"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/bench/results/transactions-$(date -u +%Y%m%dT%H%M%SZ).jsonl"
mkdir -p "$(dirname "$out")"
dir=$(mktemp -d /tmp/strata-transactions-XXXXXX)
. "$root/bench/start_broker.sh"
start_broker "$broker_bin" "$dir" --log-level warn
trap 'kill -TERM $broker 2>/dev/null; wait $broker 2>/dev/null; rm -rf "$dir"' EXIT
run() {  # run ROUND KIND
  local args=(-D enable.idempotence=true)
  [ "$2" = txn ] && args+=(-D "strata.txn.messages=$txn")
  "$bench" --driver kafka --url "127.0.0.1:$port" --workload "$root/bench/workloads/max-produce.yaml" \
    --acks all --topic-prefix "tx-$1-$2" "${args[@]}" --watch-pid "$broker" \
    --quiet --json-out "$out" > /dev/null
  order+=("$2")
}
order=()
for r in $(seq "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then run "$r" idem; run "$r" txn; else run "$r" txn; run "$r" idem; fi
done
python3 - "$out" "$txn" "${order[@]}" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
txn, order = sys.argv[2], sys.argv[3:]
rows = rows[len(rows) - len(order):]
print("| round | producers | msg/s | MB/s | publish p50 / p99 / p99.9 ms | broker cores | broker peak RSS MiB |")
print("|---|---|---|---|---|---|---|")
sums = {"txn": [], "idem": []}
for i, (r, kind) in enumerate(zip(rows, order)):
    p, pr, proc = r["publish_latency"], r["produce"], r["processes"][0]
    sums[kind].append(pr["msgs_per_s"])
    print("| %d | %s | %.0f | %.1f | %.2f / %.2f / %.2f | %.2f | %.0f |" % (
        i // 2 + 1, "transactional, %s msg/txn" % txn if kind == "txn" else "idempotent",
        pr["msgs_per_s"], pr["mb_per_s"], p["p50_ms"], p["p99_ms"], p["p999_ms"],
        proc["cpu_cores"], proc["peak_rss_mib"]))
mean = {k: sum(v) / len(v) for k, v in sums.items() if v}
if len(mean) == 2:
    print("transactional / idempotent, mean msg/s: %.1f%%" % (100 * mean["txn"] / mean["idem"]))
PY
echo "results: $out"
