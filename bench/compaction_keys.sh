#!/usr/bin/env bash
# Log compaction over many distinct keys (issue 15's figure: 10 million).
#
# 1. Load: one broker, its topics cleanup.policy=compact (64 MiB segments
#    unless given),
#    the cleaner off; strata-bench writes every key once (`--keys
#    sequential`, 100-byte values, 4 partitions, acks=1, up to 200k msg/s).
# 2. The loaded data directory is copied, and each copy serves one arm: the
#    broker restarted on it with the cleaner on or off, strata-bench at a
#    fixed rate of acks=all writes over the same keys (`--keys uniform`, so
#    every cleaning has the whole key space to judge) on the same topics.
#    After the measured window the broker runs until its cleaner has been
#    quiet for 30 s.
# Reports the load's throughput; per arm the publish latency, broker CPU,
# the broker's RSS when it started, its peak during the window and after
# the cleaning; what the cleaner did (from its log lines: bytes read and
# written, records kept, seconds, MB/s) and the size of the RocksDB index
# (which holds the key map). Results in bench/results/compaction-keys-<time>.*
#
#   bench/compaction_keys.sh [build-dir] [keys] [rate] [seconds] [load-seconds] [segment-bytes]
set -euo pipefail
build=${1:-build}
keys=${2:-10000000}
rate=${3:-20000}
seconds=${4:-60}
load_seconds=${5:-0}  # 0: long enough for every key at 180k msg/s
segment_bytes=${6:-67108864}
bench="$build/bench/strata_bench/strata-bench"
broker_bin="$build/server/strata-broker"
root="$(cd "$(dirname "$0")/.." && pwd)"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out="$root/bench/results/compaction-keys-$stamp.jsonl"
facts="$root/bench/results/compaction-keys-$stamp.facts"
mkdir -p "$(dirname "$out")"
: > "$facts"
. "$root/bench/start_broker.sh"
work=$(mktemp -d /tmp/strata-keys-XXXXXX)
trap 'kill -TERM ${broker:-0} 2>/dev/null || true; wait ${broker:-0} 2>/dev/null || true; rm -rf "$work"' EXIT
# The load is paced at 200k msg/s: about 1.1 times the keys in messages.
if [ "$load_seconds" = 0 ]; then load_seconds=$((keys / 180000 + 5)); fi
common=(--log-level info --set log.cleanup.policy=compact --set "log.segment.bytes=$segment_bytes"
  --set log.cleaner.backoff.ms=1000)
rss_mib() { awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }

# 1. Load every key once.
mkdir -p "$work/load"
start_broker "$broker_bin" "$work/load" "${common[@]}" --set log.cleaner.enable=false
"$bench" --driver kafka --url "127.0.0.1:$port" --name load --topic-prefix keys \
  --partitions 4 --message-size 100 --keys sequential --key-count "$keys" --producers 1 \
  --rate 200000 --acks 1 --linger-ms 20 --groups 0 --warmup 0 --duration "$load_seconds" \
  --drain-timeout 60 --keep-topics true --watch-pid "$broker" --quiet --json-out "$out" \
  > /dev/null
kill -TERM "$broker"
wait "$broker" || true
echo "load_data_bytes=$(du -sb "$work/load/data" | cut -f1)" >> "$facts"
echo "load_index_bytes=$(du -sb "$work/load/data/index" | cut -f1)" >> "$facts"

# 2. The arms, each on its own copy of the loaded data.
for cleaner in true false; do
  dir="$work/cleaner-$cleaner"
  mkdir -p "$dir"
  cp -a "$work/load/data" "$dir/data"
  sync  # the copy's writeback must not land in the window
  start_broker "$broker_bin" "$dir" "${common[@]}" --set "log.cleaner.enable=$cleaner"
  # Recovery is done when the port answers (start_broker waits for it).
  echo "cleaner_${cleaner}_rss_start_mib=$(rss_mib "$broker")" >> "$facts"
  "$bench" --driver kafka --url "127.0.0.1:$port" --name "cleaner-$cleaner" --topic-prefix keys \
    --partitions 4 --message-size 100 --keys uniform --key-count "$keys" --producers 1 \
    --rate "$rate" --acks all --linger-ms 5 --groups 0 --warmup 5 --duration "$seconds" \
    --drain-timeout 60 --keep-topics true --watch-pid "$broker" --quiet --json-out "$out" \
    > /dev/null
  # Until the cleaner has said nothing for 30 s (at most 15 minutes).
  last=-1
  quiet=0
  for _ in $(seq 90); do
    n=$(grep -c "cleaner: " "$dir/broker.log" || true)
    if [ "$n" = "$last" ]; then quiet=$((quiet + 1)); else quiet=0; fi
    [ "$quiet" -ge 3 ] && break
    last=$n
    sleep 10
  done
  echo "cleaner_${cleaner}_rss_end_mib=$(rss_mib "$broker")" >> "$facts"
  kill -TERM "$broker"
  wait "$broker" || true
  echo "cleaner_${cleaner}_index_bytes=$(du -sb "$dir/data/index" | cut -f1)" >> "$facts"
  echo "cleaner_${cleaner}_data_bytes=$(du -sb "$dir/data" | cut -f1)" >> "$facts"
  grep -h "cleaner: " "$dir/broker.log" | sed "s/^/cleaner_${cleaner}_line=/" >> "$facts" || true
  rm -rf "$dir"
done

python3 - "$out" "$facts" "$keys" <<'PY'
import json, re, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
facts, lines = {}, []
for line in open(sys.argv[2]):
    k, _, v = line.rstrip("\n").partition("=")
    if k.endswith("_line"):
        lines.append(v)
    else:
        facts[k] = v
keys = int(sys.argv[3])
load = rows[0]
print("keys: %d; load: %d messages sent (%s), %.0f msg/s; data %.2f GiB, index %.2f GiB" % (
    keys, load["produce"]["sent"], "every key" if load["produce"]["sent"] >= keys else
    "NOT every key", load["produce"]["msgs_per_s"], int(facts["load_data_bytes"]) / 2**30,
    int(facts["load_index_bytes"]) / 2**30))
print()
print("| run | msg/s | publish p50 / p99 / p99.9 ms | broker cores | RSS at start / peak / after MiB | data after GiB | index after GiB |")
print("|---|---|---|---|---|---|---|")
for r in rows[1:]:
    name = r.get("name") or r.get("workload", {}).get("name", "?")
    arm = name.split("-")[1]
    p, b = r["publish_latency"], r["processes"][0]
    print("| %s | %.0f | %.1f / %.1f / %.1f | %.2f | %s / %.0f / %s | %.2f | %.2f |" % (
        name, r["produce"]["msgs_per_s"], p["p50_ms"], p["p99_ms"], p["p999_ms"],
        b["cpu_cores"], facts["cleaner_%s_rss_start_mib" % arm], b["peak_rss_mib"],
        facts["cleaner_%s_rss_end_mib" % arm], int(facts["cleaner_%s_data_bytes" % arm]) / 2**30,
        int(facts["cleaner_%s_index_bytes" % arm]) / 2**30))
# "swapped in X ms, Y ms of it on the shard" (before 151c6db: "swapped in on
# the shard in Y ms"): Y is how long the swap held the shard.
pat = re.compile(r"cleaned below offset \d+: (\d+) -> (\d+) bytes, (\d+) of (\d+) records kept.*"
                 r"in ([\d.]+) s .*swapped in (?:on the shard in ([\d.]+) ms|[\d.]+ ms, ([\d.]+) ms of it on the shard)")
done = [tuple(float(x) for x in m.groups()[:5]) + (float(m.group(6) or m.group(7)),)
        for m in map(pat.search, lines) if m]
if done:
    read = sum(d[0] for d in done); secs = sum(d[4] for d in done)
    print()
    print("cleaner: %d cleanings, %.0f MB read -> %.0f MB written, %d of %d records kept, "
          "%.1f s on the cleaner thread: %.1f MB/s; swaps held a shard %.0f-%.0f ms" % (
              len(done), read / 1e6, sum(d[1] for d in done) / 1e6, sum(d[2] for d in done),
              sum(d[3] for d in done), secs, read / secs / 1e6 if secs else 0,
              min(d[5] for d in done), max(d[5] for d in done)))
failed = [l for l in lines if "failed" in l]
if failed:
    print("cleaner failures:", *failed[:3], sep="\n  ")
PY
