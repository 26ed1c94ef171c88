#!/usr/bin/env python3
"""The table of bench/replication_bench.sh: one row per strata-bench run
(runs.jsonl), with throughput, publish and end-to-end percentiles, and the
CPU seconds all brokers spent per GB acknowledged in the measured window.

    bench/replication_table.py bench/results/replication-.../runs.jsonl
"""
import json
import sys


def main(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.strip():
                rows.append(json.loads(line))
    print("%-24s %9s %8s %7s %7s %8s %7s %7s %8s %8s %9s" % (
        "run", "msg/s", "MB/s", "pub p50", "pub p99", "pub p99.9", "e2e p50", "e2e p99",
        "e2e p99.9", "cpu s/GB", "peak MiB"))
    base = {}
    for r in rows:
        w = r["workload"]
        p = r["produce"]
        gb = p["acked_in_window"] * w["message_size"] / 1e9
        cpu = sum(x["cpu_seconds"] for x in r["processes"])
        peak = max((x["peak_rss_mib"] for x in r["processes"]), default=0)
        pub, e2e = r["publish_latency"], r["e2e_latency"]
        print("%-24s %9.0f %8.1f %7.2f %7.2f %8.2f %7.2f %7.2f %8.2f %8.1f %9.0f" % (
            w["name"], p["msgs_per_s"], p["mb_per_s"], pub["p50_ms"], pub["p99_ms"],
            pub["p999_ms"], e2e["p50_ms"], e2e["p99_ms"], e2e["p999_ms"],
            cpu / gb if gb > 0 else 0, peak))
        if w["name"].startswith("rf1-acks1"):
            base[w["name"].rsplit("-", 1)[-1]] = p["mb_per_s"]
        if not r["accounting_ok"] or r["errors"]:
            print("  ^ accounting or errors: %s" % (r["errors"][:3],))
    for r in rows:
        w = r["workload"]
        mode = w["name"].rsplit("-", 1)[-1]
        if mode == "max" and base.get(mode) and not w["name"].startswith("rf1"):
            print("%s: %.0f%% of rf1-acks1 throughput" % (
                w["name"], 100 * r["produce"]["mb_per_s"] / base[mode]))


if __name__ == "__main__":
    main(sys.argv[1])
