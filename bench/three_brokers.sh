# Sourced by the benches that run Strata and Apache Kafka on three brokers in
# turn: a fresh cluster of either, its data under $work (which the caller
# made and removes).
#
#   work=$(mktemp -d ...); build=build; . bench/three_brokers.sh
#   trap 'clusters_down; rm -rf "$work"' EXIT
#   clusters_up strata          # scripts/cluster.sh, one core per broker
#   clusters_up kafka --flush   # bench/kafka.sh up --brokers 3 [flags]
#
# clusters_up sets `bootstrap` (host:port,...) and `pids` (the three
# brokers' processes, for CPU and memory).
export STRATA_CLUSTER_DIR=$work/strata KAFKA_DIR=$work/kafka
export BROKERS=3 STRATA_BROKER="$build/server/strata-broker" STRATA_CLI="$build/tools/strata"
export STRATA_BROKER_ARGS="--cores 1 ${BROKER_ARGS:-}"

clusters_down() {
  scripts/cluster.sh down >/dev/null 2>&1 || true
  bench/kafka.sh down >/dev/null 2>&1 || true
  rm -rf "$STRATA_CLUSTER_DIR" "$KAFKA_DIR"
}

clusters_up() {
  clusters_down
  sync  # start from a quiet disk
  pids=()
  local n
  if [ "$1" = strata ]; then
    bootstrap=$(scripts/cluster.sh up | tail -n 1 | sed 's/^bootstrap.servers=//')
    for n in 1 2 3; do pids+=("$(cat "$STRATA_CLUSTER_DIR/broker-$n.pid")"); done
  else
    shift
    bootstrap=$(bench/kafka.sh up --brokers 3 "$@" | tail -n 1 | sed 's/^bootstrap.servers=//')
    for n in 1 2 3; do pids+=("$(cat "$KAFKA_DIR/node-$n.pid")"); done
  fi
}
