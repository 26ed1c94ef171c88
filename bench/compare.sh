#!/usr/bin/env bash
# Strata next to Redis Streams and NATS JetStream, in one run on this
# machine, with one harness (strata-bench) and the same workloads:
#
#   1. mission      1 KiB at 100k msg/s for 60 s, 16 partitions, 3 groups
#   2. max-produce  1 KiB as fast as possible, acks=1 and acks=all
#   3. latency      1 KiB at 10k and at 50k msg/s, acks=all, one group
#
# Systems, each started fresh on loopback with its data in a temp dir, run
# interleaved (each workload on every system in turn):
#   strata        strata-broker (topics durability=fsync: acks=all waits for fdatasync)
#   strata-replicated  the same with durability=replicated (acks=all answered
#                 once in-sync replicas have it, no fdatasync: Kafka's own
#                 contract, and closer to what redis-aof and nats promise)
#   kafka         Apache Kafka 4.x in KRaft mode, one combined node
#                 (bench/kafka.sh), its default durability (the page cache):
#                 the pair of strata-replicated
#   kafka-flush   the same with log.flush.interval.messages=1 (every append
#                 fsynced before the acknowledgement): the pair of strata
#   redis-aof     redis-server, appendonly yes, appendfsync everysec
#   redis-memory  redis-server without persistence
#   nats          nats-server with JetStream file storage
# and the machine's limits in the same run: loopback TCP (iperf3) and
# sequential disk writes with fdatasync (dd).
#
# Writes the tables into BENCHMARKS.md between the compare markers and keeps
# the raw results in $OUT (default bench/results/compare-<time>.jsonl).
#
#   sudo bench/compare.sh                 # everything, about 15 minutes
#   QUICK=1 bench/compare.sh              # 10 s windows, for trying it out
#   SYSTEMS="strata nats" bench/compare.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

./scripts/setup.sh --bench >/dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"${STRATA_JOBS:-2}" --target strata-broker strata-bench >/dev/null

bench=$root/build/bench/strata_bench/strata-bench
broker=$root/build/server/strata-broker
systems=${SYSTEMS:-strata strata-replicated kafka kafka-flush redis-aof redis-memory nats}
work=$(mktemp -d /var/tmp/strata-compare-XXXXXX)
mkdir -p bench/results
out=${OUT:-$root/bench/results/compare-$(date -u +%Y%m%dT%H%M%SZ).jsonl}
: > "$out"
server_pid=
server_dir=
server_is_kafka=
cleanup() {
  if [ -n "$server_is_kafka" ]; then
    KAFKA_DIR="$server_dir/kafka" bench/kafka.sh down >/dev/null 2>&1 || true
  elif [ -n "$server_pid" ]; then
    kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT

quick_args=()
[ -n "${QUICK:-}" ] && quick_args=(--warmup 3 --duration 10)

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_port() {
  for _ in $(seq 300); do
    (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$server_pid" 2>/dev/null || { echo "compare.sh: server died" >&2; return 1; }
    sleep 0.1
  done
  echo "compare.sh: nothing listening on $1" >&2
  return 1
}

# start_system NAME: starts it fresh; sets server_pid, driver, url, extra.
start_system() {
  local name=$1 port dir
  port=$(free_port)
  dir="$work/$name"
  server_dir=$dir
  rm -rf "$dir"
  mkdir -p "$dir"
  extra=()
  case "$name" in
    strata | strata-replicated)
      local durability=fsync
      [ "$name" = strata-replicated ] && durability=replicated
      "$broker" --data-dir "$dir/data" --listen "127.0.0.1:$port" --log-level warn \
        > "$dir/log" 2>&1 &
      driver=kafka url="127.0.0.1:$port" extra=(-D "topic.durability=$durability") ;;
    redis-aof)
      redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --save "" \
        --appendonly yes --appendfsync everysec > "$dir/log" 2>&1 &
      driver=redis-streams url="redis://127.0.0.1:$port" ;;
    redis-memory)
      redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --save "" --appendonly no \
        > "$dir/log" 2>&1 &
      driver=redis-streams url="redis://127.0.0.1:$port" ;;
    kafka | kafka-flush)
      # bench/kafka.sh picks its own address (127.0.0.31:9092) and waits
      # until the broker answers; the watched process is its JVM.
      local flags=()
      [ "$name" = kafka-flush ] && flags=(--flush)
      server_is_kafka=1
      url=$(KAFKA_DIR="$dir/kafka" bench/kafka.sh up "${flags[@]}" 2>"$dir/kafka-up.log" |
        tail -n 1 | sed 's/^bootstrap.servers=//')
      server_pid=$(cat "$dir/kafka/node-1.pid")
      driver=kafka
      return ;;
    nats)
      nats-server -js -a 127.0.0.1 -p "$port" -sd "$dir" > "$dir/log" 2>&1 &
      driver=nats-jetstream url="nats://127.0.0.1:$port" ;;
    *) echo "compare.sh: unknown system $name" >&2; exit 2 ;;
  esac
  server_pid=$!
  wait_port "$port"
}
# Stops the server, deletes its data and lets the disk settle (writeback of
# tens of GB from a throughput run would otherwise stall the next run's
# fdatasyncs), then empties the page cache so every run starts alike.
stop_system() {
  if [ -n "$server_is_kafka" ]; then
    KAFKA_DIR="$server_dir/kafka" bench/kafka.sh down >/dev/null
    server_is_kafka=
  else
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=
  if [ -n "$server_dir" ]; then
    rm -rf "$server_dir"
    server_dir=
  fi
  sync
  echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
}

# run SYSTEM WORKLOAD [flags...]: one strata-bench run, its JSON tagged with
# the system's name. A failed run is recorded, not fatal.
run() {
  local system=$1 workload=$2
  shift 2
  echo "== $system: $workload $*" >&2
  local tmp="$work/run.json"
  if "$bench" --driver "$driver" --url "$url" --workload "bench/workloads/$workload.yaml" \
      --watch-pid "$server_pid" --quiet --json "${extra[@]}" "${quick_args[@]}" "$@" > "$tmp"; then
    :
  else
    echo "compare.sh: $system $workload $* did not pass its accounting (kept in the results)" >&2
  fi
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); r["system"]=sys.argv[2]; print(json.dumps(r))' \
    "$tmp" "$system" >> "$out" || echo "compare.sh: no result from $system $workload" >&2
}

# The machine's limits, measured now.
echo "== iperf3 loopback" >&2
iperf_port=$(free_port)
iperf3 -s -p "$iperf_port" > /dev/null 2>&1 &
server_pid=$!
wait_port "$iperf_port"
iperf_gbps=$(iperf3 -c 127.0.0.1 -p "$iperf_port" -t 5 -J | python3 -c \
  'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e9)')
stop_system
echo "== dd with fdatasync" >&2
dd_out=$(dd if=/dev/zero of="$work/dd.tmp" bs=1M count=1024 conv=fdatasync 2>&1 | tail -n 1)
rm -f "$work/dd.tmp"
dd_mbs=$(python3 -c '
import re,sys
m=re.search(r"copied, ([0-9.]+) s", sys.argv[1]); b=re.match(r"(\d+) bytes", sys.argv[1])
print(int(b.group(1))/float(m.group(1))/1e6)' "$dd_out")

# Workload by workload, every system in turn. The latency workload goes
# first, while the disk is quiet: right after the max-produce runs have
# written tens of GB, this virtual disk's fdatasyncs stalled for up to a
# second (the host still writing back), which only the systems that sync per
# message would pay.
run_all() {
  local system
  for system in $systems; do
    start_system "$system"; run "$system" "$@"; stop_system
  done
}
run_all latency
run_all latency --rate 50000
run_all mission
run_all max-produce --acks 1
run_all max-produce --acks all

machine="$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, \
$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), \
$(. /etc/os-release; echo "$PRETTY_NAME"), kernel $(uname -r), \
data on $(df -T "$work" | awk 'NR==2 {print $2}')"
versions="strata $(git rev-parse --short HEAD), Apache Kafka $(bench/fetch_kafka.sh | tail -n 1 | xargs -I{} cat {}/VERSION) \
on $(java -version 2>&1 | head -n 1 | sed 's/"//g'), $(redis-server --version | awk '{print $1, $3}'), \
nats-server $(nats-server --version | awk '{print $2}'), librdkafka $(pkg-config --modversion rdkafka), \
hiredis $(pkg-config --modversion hiredis), libnats $(pkg-config --modversion libnats)"

python3 bench/compare_table.py "$out" "$machine" "$versions" "$iperf_gbps" "$dd_mbs" \
  "bench/compare.sh${QUICK:+ (QUICK=1)}" > "$work/table.md"
python3 - "$work/table.md" <<'PY'
import sys
table = open(sys.argv[1]).read()
begin, end = "<!-- compare:begin -->", "<!-- compare:end -->"
doc = open("BENCHMARKS.md").read()
if begin in doc and end in doc:
    doc = doc[:doc.index(begin) + len(begin)] + "\n" + table + doc[doc.index(end):]
else:
    doc = doc.rstrip("\n") + "\n\n" + begin + "\n" + table + end + "\n"
open("BENCHMARKS.md", "w").write(doc)
PY
cat "$work/table.md"
echo "results: $out" >&2
