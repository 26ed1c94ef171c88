#!/usr/bin/env bash
# Apache Kafka (4.x, KRaft) on this machine's loopback, the system the
# benchmarks run beside Strata: node N on 127.0.0.(30+N):9092 (its KRaft
# controller listener on :9093), each node both broker and controller, so
# --brokers 3 is three brokers over a three-voter controller quorum. Data and
# logs under KAFKA_DIR (default ./kafka-cluster). The jars come from
# bench/fetch_kafka.sh's cache (fetched on first use; nothing is committed).
#
#   bench/kafka.sh up [--brokers N] [--flush] [--set key=value ...]
#                             # formats and starts the nodes, waits until every
#                             # broker is registered, and prints
#                             # bootstrap.servers=... as its last line
#   bench/kafka.sh down       # SIGTERM to every node, until each has exited
#   bench/kafka.sh status     # each node: running or not
#   bench/kafka.sh kill N     # SIGKILL of node N
#   bench/kafka.sh restart N  # starts node N again on its data
#
# The settings match Strata's defaults and its benchmark runs
# (BENCHMARKS.md, "Apache Kafka beside Strata"): 1 GiB segments, one
# partition and replication factor 1 unless a topic names its own,
# min.insync.replicas 1 unless a topic sets it, the internal topics on
# min(3, N) replicas. Durability is Kafka's default (the page cache, and
# replication); --flush adds log.flush.interval.messages=1 (every append
# fsynced before it is acknowledged: Strata's durability=fsync). The JVM
# gets Kafka's own start script's defaults (1 GiB heap, G1); KAFKA_HEAP_OPTS
# overrides the heap.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${KAFKA_DIR:-$PWD/kafka-cluster}"
host_of() { echo "127.0.0.$((30 + $1))"; }
pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
usage() {
  echo "usage: kafka.sh up [--brokers N] [--flush] [--set key=value ...] | down | status | kill N | restart N" >&2
  exit 2
}

# The node count is remembered in $dir/brokers by `up`.
brokers_in_dir() { if [ -f "$dir/brokers" ]; then cat "$dir/brokers"; else echo 1; fi; }

check_node() {
  local n=$(brokers_in_dir)
  [[ "${1:-}" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le "$n" ] ||
    { echo "kafka.sh: node id must be between 1 and $n, not '${1:-}'" >&2; exit 2; }
}

classpath() {
  local cache
  cache=$("$root/bench/fetch_kafka.sh" | tail -n 1)
  echo "$cache/lib/*"
}

write_config() {
  local n=$1 brokers=$2 voters="" i host
  shift 2
  host=$(host_of "$n")
  for i in $(seq 1 "$brokers"); do voters="${voters:+$voters,}$i@$(host_of "$i"):9093"; done
  local internal=$((brokers < 3 ? brokers : 3))
  local internal_isr=$((internal < 2 ? internal : 2))
  mkdir -p "$dir/node-$n"
  {
    echo "process.roles=broker,controller"
    echo "node.id=$n"
    echo "controller.quorum.voters=$voters"
    echo "listeners=PLAINTEXT://$host:9092,CONTROLLER://$host:9093"
    echo "advertised.listeners=PLAINTEXT://$host:9092"
    echo "controller.listener.names=CONTROLLER"
    echo "inter.broker.listener.name=PLAINTEXT"
    echo "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
    echo "log.dirs=$dir/node-$n/data"
    echo "log.segment.bytes=1073741824"
    echo "num.partitions=1"
    echo "default.replication.factor=1"
    echo "min.insync.replicas=1"
    echo "offsets.topic.replication.factor=$internal"
    echo "transaction.state.log.replication.factor=$internal"
    echo "transaction.state.log.min.isr=$internal_isr"
    [ "$flush" = 1 ] && echo "log.flush.interval.messages=1"
    local kv
    for kv in "$@"; do echo "$kv"; done
  } >"$dir/node-$n/server.properties"
}

write_log_config() {
  cat >"$dir/log4j2.yaml" <<'EOF'
Configuration:
  Appenders:
    Console:
      name: STDOUT
      PatternLayout:
        pattern: "[%d] %p %m (%c)%n"
  Loggers:
    Root:
      level: INFO
      AppenderRef:
        - ref: STDOUT
    Logger:
      - name: kafka.request.logger
        level: WARN
      - name: org.apache.kafka.controller
        level: WARN
EOF
}

java_opts() {
  # Kafka's kafka-run-class.sh defaults.
  echo "${KAFKA_HEAP_OPTS:--Xmx1G -Xms1G} -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20"
  echo "-XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent"
  echo "-XX:MaxInlineLevel=15 -Djava.awt.headless=true -Dlog4j2.configurationFile=$dir/log4j2.yaml"
}

start_node() {
  local n=$1 cp
  pid_alive "$dir/node-$n.pid" && return
  cp=$(classpath)
  # shellcheck disable=SC2046
  nohup java $(java_opts) -cp "$cp" kafka.Kafka "$dir/node-$n/server.properties" \
    >>"$dir/node-$n.log" 2>&1 &
  echo $! >"$dir/node-$n.pid"
}

# Waits until node `n` lists `want` brokers in its metadata.
wait_registered() {
  local n=$1 want=$2 i got
  for i in $(seq 1 240); do
    if ! pid_alive "$dir/node-$n.pid"; then
      echo "kafka.sh: node $n exited; see $dir/node-$n.log:" >&2
      tail -5 "$dir/node-$n.log" >&2
      exit 1
    fi
    got=$(kcat -b "$(host_of "$n"):9092" -L -J -m 2 2>/dev/null |
      python3 -c 'import json,sys; print(len(json.load(sys.stdin)["brokers"]))' 2>/dev/null || true)
    [ "${got:-0}" -ge "$want" ] && return
    sleep 0.5  # polling a process we do not control: Kafka has no readiness hook here
  done
  echo "kafka.sh: node $n did not see $want brokers within 120 s; see $dir/node-$n.log" >&2
  exit 1
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  up)
    brokers=1 flush=0 sets=()
    while [ $# -gt 0 ]; do
      case "$1" in
        --brokers) [[ "${2:-}" =~ ^[1-9]$ ]] || { echo "kafka.sh: --brokers takes 1 to 9" >&2; exit 2; }
          brokers=$2; shift 2 ;;
        --flush) flush=1; shift ;;
        --set) [[ "${2:-}" == *=* ]] || { echo "kafka.sh: --set takes key=value" >&2; exit 2; }
          sets+=("$2"); shift 2 ;;
        *) echo "kafka.sh: unknown option '$1'" >&2; usage ;;
      esac
    done
    command -v kcat >/dev/null || "$root/scripts/setup.sh" --tests
    cp=$(classpath)
    for n in $(seq 1 "$brokers"); do
      pid_alive "$dir/node-$n.pid" && { echo "kafka.sh: node $n is running; 'down' first" >&2; exit 1; }
    done
    mkdir -p "$dir"
    echo "$brokers" >"$dir/brokers"
    write_log_config
    # A fresh cluster id for fresh data; nodes that were formatted keep theirs.
    cluster_id=$(java -cp "$cp" kafka.tools.StorageTool random-uuid | tail -n 1)
    for n in $(seq 1 "$brokers"); do
      write_config "$n" "$brokers" "${sets[@]}"
      if [ ! -f "$dir/node-$n/data/meta.properties" ]; then
        # shellcheck disable=SC2046
        java $(java_opts) -cp "$cp" kafka.tools.StorageTool format -t "$cluster_id" \
          -c "$dir/node-$n/server.properties" >>"$dir/node-$n.log" 2>&1 ||
          { echo "kafka.sh: formatting node $n failed; see $dir/node-$n.log" >&2; exit 1; }
      fi
    done
    for n in $(seq 1 "$brokers"); do start_node "$n"; done
    for n in $(seq 1 "$brokers"); do wait_registered "$n" "$brokers"; done
    echo "kafka: Apache Kafka $(cat "${STRATA_KAFKA_CACHE:-/var/cache/strata/kafka}/VERSION"), $brokers node(s), data and logs in $dir"
    out=""
    for n in $(seq 1 "$brokers"); do out="${out:+$out,}$(host_of "$n"):9092"; done
    echo "bootstrap.servers=$out"
    ;;
  down)
    n_all=$(brokers_in_dir)
    for n in $(seq 1 "$n_all"); do
      if pid_alive "$dir/node-$n.pid"; then kill -TERM "$(cat "$dir/node-$n.pid")"; fi
    done
    for n in $(seq 1 "$n_all"); do
      while pid_alive "$dir/node-$n.pid"; do sleep 0.2; done
      rm -f "$dir/node-$n.pid"
    done
    echo "kafka: stopped (data kept in $dir)"
    ;;
  status)
    for n in $(seq 1 "$(brokers_in_dir)"); do
      state=stopped
      pid_alive "$dir/node-$n.pid" && state=running
      echo "node $n  $(host_of "$n"):9092 $state"
    done
    ;;
  kill)
    check_node "${1:-}"
    pid_alive "$dir/node-$1.pid" || { echo "kafka.sh: node $1 is not running" >&2; exit 1; }
    kill -KILL "$(cat "$dir/node-$1.pid")"
    while pid_alive "$dir/node-$1.pid"; do sleep 0.05; done
    rm -f "$dir/node-$1.pid"
    echo "kafka: node $1 killed"
    ;;
  restart)
    check_node "${1:-}"
    pid_alive "$dir/node-$1.pid" && { echo "kafka.sh: node $1 is running" >&2; exit 1; }
    start_node "$1"
    wait_registered "$1" 1
    echo "kafka: node $1 started"
    ;;
  *) usage ;;
esac
