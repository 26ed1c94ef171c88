#!/usr/bin/env bash
# Runs the engine benchmarks side by side with dd on the same disk, three
# rounds each, and prints a markdown table of the medians. Page caches are
# dropped before every measurement (needs root) so runs do not inherit each
# other's dirty pages.
#
#   bench/engine_vs_disk.sh [build-dir]        # default: build
#   STRATA_BENCH_DIR=/var/tmp bench/engine_vs_disk.sh
set -euo pipefail
build=${1:-build}
bench="$build/bench/engine_bench"
dir=${STRATA_BENCH_DIR:-/tmp}
rounds=${ROUNDS:-3}
[ -x "$bench" ] || { echo "engine_vs_disk.sh: $bench not built" >&2; exit 2; }
export STRATA_BENCH_DIR="$dir"

settle() { sync; echo 3 > /proc/sys/vm/drop_caches; }
# dd's rate in MB/s (decimal, as dd prints), from its last line.
dd_rate() {
  local out
  out=$(dd "$@" 2>&1 | tail -n 1)
  rm -f "$dir/strata-dd-test"
  python3 -c "
import re,sys
m=re.search(r'copied, ([0-9.]+) s', sys.argv[1]); b=re.match(r'(\d+) bytes', sys.argv[1])
print(int(b.group(1))/float(m.group(1))/1e6)" "$out"
}
# A benchmark's bytes_per_second in MB/s.
bench_rate() {
  "$bench" --benchmark_filter="$1" --benchmark_format=json 2>/dev/null |
    python3 -c "import json,sys; print(json.load(sys.stdin)['benchmarks'][0]['bytes_per_second']/1e6)"
}

declare -a dd_cache engine_cache dd_fsync dd_dsync engine_sync
for r in $(seq "$rounds"); do
  settle; dd_cache+=("$(dd_rate if=/dev/zero of="$dir/strata-dd-test" bs=1M count=1024)")
  settle; engine_cache+=("$(bench_rate 'BM_AppendPageCache')")
  settle; dd_fsync+=("$(dd_rate if=/dev/zero of="$dir/strata-dd-test" bs=1M count=256 conv=fdatasync)")
  settle; dd_dsync+=("$(dd_rate if=/dev/zero of="$dir/strata-dd-test" bs=128k count=2048 oflag=dsync)")
  settle; engine_sync+=("$(bench_rate 'BM_AppendGroupCommit8')")
done
settle
others=$("$bench" --benchmark_filter='BM_SequentialRead|BM_Index|BM_ReadOne|BM_RecoveryScan' \
  --benchmark_format=json 2>/dev/null)

python3 - "$others" "${dd_cache[*]}" "${engine_cache[*]}" "${dd_fsync[*]}" "${dd_dsync[*]}" \
  "${engine_sync[*]}" <<'PY'
import json, statistics, sys
others = {b['name'].split('/')[0]: b for b in json.loads(sys.argv[1])['benchmarks']}
med = lambda s: statistics.median(float(x) for x in s.split())
dd_cache, eng_cache, dd_fsync, dd_dsync, eng_sync = (med(a) for a in sys.argv[2:7])
print(f"| measurement | Strata | reference | ratio |")
print(f"|---|---|---|---|")
print(f"| append 1 KiB records in 16 KiB batches, page cache (MB/s) | {eng_cache:.0f} | dd bs=1M: {dd_cache:.0f} | {eng_cache/dd_cache:.0%} |")
print(f"| append + group-committed fdatasync, 8 appenders (MB/s) | {eng_sync:.0f} | dd bs=1M conv=fdatasync: {dd_fsync:.0f} | {eng_sync/dd_fsync:.0%} |")
print(f"| same, against a sync per 128 KiB (MB/s) | {eng_sync:.0f} | dd bs=128k oflag=dsync: {dd_dsync:.0f} | {eng_sync/dd_dsync:.0%} |")
sr = others['BM_SequentialRead']
print(f"| sequential read from the page cache (MB/s) | {sr['bytes_per_second']/1e6:.0f} | | |")
rs = others['BM_RecoveryScan']
print(f"| recovery scan, index rebuilt (MB/s) | {rs['bytes_per_second']/1e6:.0f} | | |")
for name, label in [('BM_IndexOffsetLookup', 'offset index lookup'),
                    ('BM_IndexTimeLookup', 'time index lookup'),
                    ('BM_ReadOneBatchAtRandomOffset', 'read one batch at a random offset (index + io_uring read)')]:
    b = others[name]
    print(f"| {label} p50 / p99 / p99.9 (µs) | {b['p50_us']:.1f} / {b['p99_us']:.1f} / {b['p999_us']:.1f} | | |")
peak = max(b.get('peak_rss_mib', 0) for b in others.values())
print(f"| peak RSS of the benchmark process (MiB) | {peak:.0f} | | |")
print()
print("rounds:", "dd page cache", sys.argv[3-1], "| engine", sys.argv[3])
PY
