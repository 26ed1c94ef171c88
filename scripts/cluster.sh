#!/usr/bin/env bash
# A Strata cluster on this machine's loopback: one etcd (Debian's
# etcd-server) on 127.0.0.10 and BROKERS brokers (default 3), broker N on
# 127.0.0.(10+N):9092 with node id N (replication RPC on 127.0.0.(10+N):9093),
# each with its own data directory, all under STRATA_CLUSTER_DIR (default
# ./cluster).
#
#   scripts/cluster.sh up          # installs and builds what is missing, starts
#                                  # etcd and the brokers, waits until every
#                                  # broker is registered, and prints
#                                  # bootstrap.servers=... as its last line
#   scripts/cluster.sh status      # etcd and each broker: running or not
#   scripts/cluster.sh kill N      # SIGKILL of broker N (N = etcd: of etcd)
#   scripts/cluster.sh stop N      # SIGTERM of broker N (a clean shutdown), until it exits
#   scripts/cluster.sh pause N     # SIGSTOP of broker N; resume N sends SIGCONT
#   scripts/cluster.sh restart N   # starts broker N (or etcd) again, on the same data
#   scripts/cluster.sh down        # SIGTERM to every broker, then etcd
#
# Extra broker properties: STRATA_BROKER_ARGS="--set num.partitions=6".
# STRATA_ETCD_PER_BROKER=1: etcd also listens on 127.0.0.(20+N):2379 and
# broker N reaches it there only, so a packet filter can cut one broker off
# etcd (the fault harness, tests/fault/). STRATA_SYNC_JOURNAL=1: broker N
# journals its syncs to $STRATA_CLUSTER_DIR/broker-N.syncs (a test hook for
# simulated power cuts, tests/fault/power_cut.py).
# Logs: $STRATA_CLUSTER_DIR/broker-N.log and etcd.log.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${STRATA_CLUSTER_DIR:-$PWD/cluster}"
brokers="${BROKERS:-3}"
broker_bin="${STRATA_BROKER:-$root/build/server/strata-broker}"
cli_bin="${STRATA_CLI:-$root/build/tools/strata}"
etcd_host=127.0.0.10
etcd_endpoint="$etcd_host:2379"

usage() {
  echo "usage: cluster.sh up | down | status | kill N | stop N | pause N | resume N | restart N" >&2
  exit 2
}

host_of() { echo "127.0.0.$((10 + $1))"; }
pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

bootstrap() {
  local out="" n
  for n in $(seq 1 "$brokers"); do out="${out:+$out,}$(host_of "$n"):9092"; done
  echo "$out"
}

check_node() {
  [[ "${1:-}" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le "$brokers" ] ||
    { echo "cluster.sh: node id must be between 1 and $brokers, not '${1:-}'" >&2; exit 2; }
}

ensure_built() {
  if [ ! -x /usr/bin/etcd ] || [ ! -x "$broker_bin" ] || [ ! -x "$cli_bin" ]; then
    "$root/scripts/setup.sh" --cluster
    cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
    cmake --build "$root/build" -j"${STRATA_JOBS:-2}" --target strata-broker strata
  fi
}

# The etcd endpoint broker `n` uses.
etcd_of() {
  if [ -n "${STRATA_ETCD_PER_BROKER:-}" ]; then echo "127.0.0.$((20 + $1)):2379"; else echo "$etcd_endpoint"; fi
}

start_etcd() {
  pid_alive "$dir/etcd.pid" && return
  mkdir -p "$dir/etcd"
  local urls="http://$etcd_endpoint" n
  if [ -n "${STRATA_ETCD_PER_BROKER:-}" ]; then
    for n in $(seq 1 "$brokers"); do urls="$urls,http://$(etcd_of "$n")"; done
  fi
  nohup /usr/bin/etcd --name strata --data-dir "$dir/etcd" \
    --listen-client-urls "$urls" --advertise-client-urls "http://$etcd_endpoint" \
    --listen-peer-urls "http://$etcd_host:2380" --initial-advertise-peer-urls "http://$etcd_host:2380" \
    --initial-cluster "strata=http://$etcd_host:2380" --log-level warn --logger zap \
    >>"$dir/etcd.log" 2>&1 &
  echo $! >"$dir/etcd.pid"
}

start_broker() {
  local n=$1 host
  host=$(host_of "$n")
  pid_alive "$dir/broker-$n.pid" && return
  mkdir -p "$dir/broker-$n"
  local hook=""
  [ -n "${STRATA_SYNC_JOURNAL:-}" ] && hook="--set strata.test.sync.journal=$dir/broker-$n.syncs"
  # shellcheck disable=SC2086
  nohup "$broker_bin" --node-id "$n" --data-dir "$dir/broker-$n" --listen "$host:9092" \
    --set metadata.store=etcd --set "etcd.endpoints=$(etcd_of "$n")" --set rpc.port=9093 \
    $hook ${STRATA_BROKER_ARGS:-} >>"$dir/broker-$n.log" 2>&1 &
  echo $! >"$dir/broker-$n.pid"
}

# Waits until broker `n` lists `want` registered brokers.
wait_registered() {
  local n=$1 want=$2 i got
  for i in $(seq 1 120); do
    if ! pid_alive "$dir/broker-$n.pid"; then
      echo "cluster.sh: broker $n exited; see $dir/broker-$n.log:" >&2
      tail -5 "$dir/broker-$n.log" >&2
      exit 1
    fi
    got=$("$cli_bin" --bootstrap "$(host_of "$n"):9092" --timeout 2 --json cluster 2>/dev/null |
      python3 -c 'import json,sys; print(len(json.load(sys.stdin)["brokers"]))' 2>/dev/null || true)
    [ "${got:-0}" -ge "$want" ] && return
    sleep 0.5  # polling a process we do not control; the broker has no readiness hook
  done
  echo "cluster.sh: broker $n did not see $want brokers within 60 s; see $dir/broker-$n.log" >&2
  exit 1
}

cmd="${1:-}"
case "$cmd" in
  up)
    ensure_built
    mkdir -p "$dir"
    start_etcd
    for n in $(seq 1 "$brokers"); do start_broker "$n"; done
    for n in $(seq 1 "$brokers"); do wait_registered "$n" "$brokers"; done
    echo "cluster: etcd on $etcd_endpoint, $brokers broker(s), data and logs in $dir"
    echo "bootstrap.servers=$(bootstrap)"
    ;;
  down)
    for n in $(seq 1 "$brokers"); do
      if pid_alive "$dir/broker-$n.pid"; then kill -TERM "$(cat "$dir/broker-$n.pid")"; fi
    done
    for n in $(seq 1 "$brokers"); do
      while pid_alive "$dir/broker-$n.pid"; do sleep 0.2; done
      rm -f "$dir/broker-$n.pid"
    done
    if pid_alive "$dir/etcd.pid"; then
      kill -TERM "$(cat "$dir/etcd.pid")"
      while pid_alive "$dir/etcd.pid"; do sleep 0.2; done
    fi
    rm -f "$dir/etcd.pid"
    echo "cluster: stopped (data kept in $dir)"
    ;;
  status)
    if pid_alive "$dir/etcd.pid"; then echo "etcd      $etcd_endpoint running"; else echo "etcd      $etcd_endpoint stopped"; fi
    for n in $(seq 1 "$brokers"); do
      state=stopped
      pid_alive "$dir/broker-$n.pid" && state=running
      echo "broker $n  $(host_of "$n"):9092 $state"
    done
    ;;
  kill)
    if [ "${2:-}" = etcd ]; then
      pid_alive "$dir/etcd.pid" || { echo "cluster.sh: etcd is not running" >&2; exit 1; }
      kill -KILL "$(cat "$dir/etcd.pid")"
      rm -f "$dir/etcd.pid"
      echo "cluster: etcd killed"
      exit 0
    fi
    check_node "${2:-}"
    pid_alive "$dir/broker-$2.pid" || { echo "cluster.sh: broker $2 is not running" >&2; exit 1; }
    kill -KILL "$(cat "$dir/broker-$2.pid")"
    while pid_alive "$dir/broker-$2.pid"; do sleep 0.05; done  # until its files are let go
    rm -f "$dir/broker-$2.pid"
    echo "cluster: broker $2 killed"
    ;;
  stop)
    check_node "${2:-}"
    pid_alive "$dir/broker-$2.pid" || { echo "cluster.sh: broker $2 is not running" >&2; exit 1; }
    kill -TERM "$(cat "$dir/broker-$2.pid")"
    while pid_alive "$dir/broker-$2.pid"; do sleep 0.05; done
    rm -f "$dir/broker-$2.pid"
    echo "cluster: broker $2 stopped"
    ;;
  pause | resume)
    check_node "${2:-}"
    pid_alive "$dir/broker-$2.pid" || { echo "cluster.sh: broker $2 is not running" >&2; exit 1; }
    if [ "$cmd" = pause ]; then sig=STOP; else sig=CONT; fi
    kill -"$sig" "$(cat "$dir/broker-$2.pid")"
    echo "cluster: broker $2 ${cmd}d"
    ;;
  restart)
    if [ "${2:-}" = etcd ]; then
      pid_alive "$dir/etcd.pid" && { echo "cluster.sh: etcd is running" >&2; exit 1; }
      start_etcd
      echo "cluster: etcd started"
      exit 0
    fi
    check_node "${2:-}"
    pid_alive "$dir/broker-$2.pid" && { echo "cluster.sh: broker $2 is running" >&2; exit 1; }
    start_broker "$2"
    wait_registered "$2" 1
    echo "cluster: broker $2 started"
    ;;
  *) usage ;;
esac
