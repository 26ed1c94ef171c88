#!/usr/bin/env bash
# Transactional against idempotent produce, side by side in one run:
# strata-bench's max-produce workload (1 KiB messages, 16 partitions, two
# producers, acks=all), idempotent producers against transactional ones
# committing every N messages (-D strata.txn.messages) for each N given,
# each round on fresh topics, the order reversed in every other round. The
# transactional side's time includes its commits (each waits for the
# markers of every partition the transaction wrote).
#
# One strata-broker by default; with CLUSTER=1 a 3-broker cluster
# (scripts/cluster.sh: etcd + 3 brokers on loopback, one core each) and
# topics of replication factor 3, min.insync.replicas 2 — where the
# coordinator's markers and the produce verification go between brokers.
# Results as JSON lines in bench/results/transactions-<time>.jsonl and a
# table on stdout.
#
#   bench/transactions_ab.sh [build-dir] [rounds] [txn-messages,...]
#   CLUSTER=1 DURATION=20 bench/transactions_ab.sh build 2 10,100,1000
#   CLUSTER=1 STRATA_BROKER=/tmp/other/strata-broker bench/transactions_ab.sh build 1 10
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
rounds=${2:-3}
IFS=, read -r -a sizes <<<"${3:-1000}"
bench="$build/bench/strata_bench/strata-bench"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/bench/results/transactions-$(date -u +%Y%m%dT%H%M%SZ).jsonl"
mkdir -p "$(dirname "$out")"
extra=()
[ -n "${DURATION:-}" ] && extra+=(--duration "$DURATION")
watch=()
if [ "${CLUSTER:-0}" = 1 ]; then
  export STRATA_CLUSTER_DIR
  STRATA_CLUSTER_DIR=$(mktemp -d /tmp/strata-transactions-XXXXXX)
  export BROKERS=3 STRATA_BROKER="${STRATA_BROKER:-$build/server/strata-broker}" STRATA_CLI="$build/tools/strata"
  export STRATA_BROKER_ARGS="--cores 1"
  trap 'cd "$root"; scripts/cluster.sh down >/dev/null 2>&1 || true; rm -rf "$STRATA_CLUSTER_DIR"' EXIT
  url=$(cd "$root" && scripts/cluster.sh up | tail -n 1 | sed 's/^bootstrap.servers=//')
  for n in 1 2 3; do watch+=(--watch-pid "$(cat "$STRATA_CLUSTER_DIR/broker-$n.pid")"); done
  extra+=(--replication-factor 3 -D topic.min.insync.replicas=2)
  where="3-broker cluster, RF 3"
else
  dir=$(mktemp -d /tmp/strata-transactions-XXXXXX)
  . "$root/bench/start_broker.sh"
  start_broker "$build/server/strata-broker" "$dir" --log-level warn
  trap 'kill -TERM $broker 2>/dev/null; wait $broker 2>/dev/null; rm -rf "$dir"' EXIT
  url="127.0.0.1:$port"
  watch=(--watch-pid "$broker")
  where="one broker"
fi
run() {  # run ROUND KIND (idem, or the messages per transaction)
  local args=(-D enable.idempotence=true)
  [ "$2" != idem ] && args+=(-D "strata.txn.messages=$2")
  "$bench" --driver kafka --url "$url" --workload "$root/bench/workloads/max-produce.yaml" \
    --acks all --topic-prefix "tx-$1-$2" "${args[@]}" "${watch[@]}" "${extra[@]}" \
    --quiet --json-out "$out" > /dev/null
  order+=("$2")
}
kinds=(idem "${sizes[@]}")
order=()
for r in $(seq "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then
    for k in "${kinds[@]}"; do run "$r" "$k"; done
  else
    for ((i = ${#kinds[@]} - 1; i >= 0; i--)); do run "$r" "${kinds[$i]}"; done
  fi
done
/usr/bin/python3 - "$out" "$where" "${#kinds[@]}" "${order[@]}" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
where, per_round, order = sys.argv[2], int(sys.argv[3]), sys.argv[4:]
rows = rows[len(rows) - len(order):]
print("%s" % where)
print("| round | producers | msg/s | MB/s | publish p50 / p99 / p99.9 ms | broker cores | broker peak RSS MiB |")
print("|---|---|---|---|---|---|---|")
sums = {}
for i, (r, kind) in enumerate(zip(rows, order)):
    p, pr = r["publish_latency"], r["produce"]
    cores = sum(proc["cpu_cores"] for proc in r["processes"])
    rss = max(proc["peak_rss_mib"] for proc in r["processes"])
    sums.setdefault(kind, []).append(pr["msgs_per_s"])
    print("| %d | %s | %.0f | %.1f | %.2f / %.2f / %.2f | %.2f | %.0f |" % (
        i // per_round + 1,
        "idempotent" if kind == "idem" else "transactional, %s msg/txn" % kind,
        pr["msgs_per_s"], pr["mb_per_s"], p["p50_ms"], p["p99_ms"], p["p999_ms"], cores, rss))
mean = {k: sum(v) / len(v) for k, v in sums.items()}
for k in sorted((k for k in mean if k != "idem"), key=int):
    print("transactional at %s msg/txn / idempotent, mean msg/s: %.1f%%" % (
        k, 100 * mean[k] / mean["idem"]))
PY
echo "results: $out"
