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
    print("%-34s %9s %8s %7s %7s %8s %7s %7s %8s %8s %9s" % (
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
        print("%-34s %9.0f %8.1f %7.2f %7.2f %8.2f %7.2f %7.2f %8.2f %8.1f %9.0f" % (
            w["name"], p["msgs_per_s"], p["mb_per_s"], pub["p50_ms"], pub["p99_ms"],
            pub["p999_ms"], e2e["p50_ms"], e2e["p99_ms"], e2e["p999_ms"],
            cpu / gb if gb > 0 else 0, peak))
        system, rest = split_name(w["name"])
        if rest.startswith("rf1-acks1"):
            base[(system, rest.rsplit("-", 1)[-1])] = p["mb_per_s"]
        if not r["accounting_ok"] or r["errors"]:
            print("  ^ accounting or errors: %s" % (r["errors"][:3],))
    for r in rows:
        w = r["workload"]
        system, rest = split_name(w["name"])
        mode = rest.rsplit("-", 1)[-1]
        if mode == "max" and base.get((system, mode)) and not rest.startswith("rf1"):
            print("%s: %.0f%% of %s's rf1-acks1 throughput" % (
                w["name"], 100 * r["produce"]["mb_per_s"] / base[(system, mode)], system))
    # Strata against Kafka, run by run (the same configuration, in the same run).
    by_name = {r["workload"]["name"]: r for r in rows}
    print()
    print("%-28s %12s %18s %18s %14s" % ("strata / kafka", "throughput", "pub p99 (ms)", "e2e p99 (ms)",
                                         "cpu s/GB"))
    for name, r in by_name.items():
        system, rest = split_name(name)
        k = by_name.get("kafka-" + rest)
        if system != "strata" or not k:
            continue
        def cpu_per_gb(x):
            gb = x["produce"]["acked_in_window"] * x["workload"]["message_size"] / 1e9
            return sum(p["cpu_seconds"] for p in x["processes"]) / gb if gb > 0 else 0
        kt = k["produce"]["mb_per_s"]
        print("%-28s %11.2fx %8.2f / %7.2f %8.2f / %7.2f %6.1f / %5.1f" % (
            rest, r["produce"]["mb_per_s"] / kt if kt else 0,
            r["publish_latency"]["p99_ms"], k["publish_latency"]["p99_ms"],
            r["e2e_latency"]["p99_ms"], k["e2e_latency"]["p99_ms"], cpu_per_gb(r), cpu_per_gb(k)))


def split_name(name):
    """'strata-rf3-acks1-max' -> ('strata', 'rf3-acks1-max'); older runs had no system prefix."""
    for system in ("strata", "kafka"):
        if name.startswith(system + "-"):
            return system, name[len(system) + 1:]
    return "strata", name


if __name__ == "__main__":
    main(sys.argv[1])
