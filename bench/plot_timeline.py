#!/usr/bin/python3
"""Draws the per-second timeline of strata-bench runs as PNG plots.

    bench/plot_timeline.py results.jsonl [--out DIR] [--broker-log LOG]

Each line of the input is one run's JSON (`strata-bench --json`, or the
.jsonl files bench/compare.sh writes). For every run with a timeline it
writes <DIR>/<driver>-<workload>-<n>.png with four panels over the seconds
of the measured window: publish latency p50/p99/max, end-to-end latency
p50/p99/max, the page cache's dirty and writeback MiB and all it caches, and the CPU cores of
each watched process. A spike shows in the second it happened. With
--broker-log (a strata-broker log written with
--set strata.stats.interval.ms=1000) a fifth panel shows, per second and
over all shards, the largest write and fdatasync latency (io_uring submit
to completion) and the largest loop lag, aligned by wall clock.
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def broker_stats(path):
    """{wall second: {"write": max us, "sync": max us, "loop_lag": max us}}"""
    out = {}
    with open(path, errors="replace") as f:
        for line in f:
            at = line.find("io stats {")
            if at < 0:
                continue
            rec = json.loads(line[at + len("io stats "):])
            sec = out.setdefault(rec["wall_ms"] // 1000, {})
            for k in ("write", "sync", "loop_lag"):
                sec[k] = max(sec.get(k, 0), rec["io"][k]["max_us"])
    return out


def plot(run, path, stats=None):
    tl = run["timeline"]
    t = [s["second"] for s in tl]
    panels = 5 if stats else 4
    fig, axes = plt.subplots(panels, 1, figsize=(11, 3 * panels), sharex=True)
    title = "%s / %s" % (run["driver"], run["workload"]["name"])
    for ax, key, label in ((axes[0], "publish", "publish latency (ms)"),
                           (axes[1], "e2e", "end-to-end latency (ms)")):
        for q, style in (("p50_ms", "-"), ("p99_ms", "-"), ("max_ms", ":")):
            ax.plot(t, [s[key][q] for s in tl], style, label=q[:-3])
        ax.set_yscale("log")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(loc="upper right")
    axes[2].plot(t, [s["dirty_mib"] for s in tl], label="dirty")
    axes[2].plot(t, [s["writeback_mib"] for s in tl], label="writeback")
    axes[2].set_ylabel("page cache (MiB)")
    axes[2].grid(True, alpha=0.3)
    axes[2].legend(loc="upper left")
    if all("cached_mib" in s for s in tl):
        # Everything cached, clean pages too (older results lack it).
        cached = axes[2].twinx()
        cached.plot(t, [s["cached_mib"] / 1024 for s in tl], "k--", label="cached (right)")
        cached.set_ylabel("cached (GiB)")
        cached.legend(loc="upper right")
    names = sorted({n for s in tl for n in s["cpu_cores"]})
    for n in names:
        axes[3].plot(t, [s["cpu_cores"].get(n, 0) for s in tl], label=n)
    axes[3].set_ylabel("CPU (cores)")
    axes[3].grid(True, alpha=0.3)
    axes[3].legend(loc="upper right")
    if stats:
        # The broker's line for a second is written at its end: the second
        # the timeline sampled at wall_ms.
        for k, label in (("write", "write max"), ("sync", "fdatasync max"),
                         ("loop_lag", "loop lag max")):
            axes[4].plot(t, [stats.get(s["wall_ms"] // 1000, {}).get(k, 0) / 1000 for s in tl],
                         label=label)
        axes[4].set_yscale("symlog", linthresh=1)
        axes[4].set_ylabel("broker (ms)")
        axes[4].grid(True, which="both", alpha=0.3)
        axes[4].legend(loc="upper right")
    axes[-1].set_xlabel("second of the measured window")
    axes[0].set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="a .jsonl file of strata-bench runs")
    ap.add_argument("--out", help="directory for the PNG files (default: beside the input)")
    ap.add_argument("--broker-log", help="a strata-broker log with io stats lines")
    args = ap.parse_args()
    stats = broker_stats(args.broker_log) if args.broker_log else None
    out = args.out or os.path.splitext(args.results)[0] + "-plots"
    os.makedirs(out, exist_ok=True)
    n = 0
    with open(args.results) as f:
        for i, line in enumerate(f):
            line = line.strip()
            if not line:
                continue
            run = json.loads(line)
            if not run.get("timeline"):
                continue
            path = os.path.join(out, "%s-%s-%d.png" % (run["driver"], run["workload"]["name"], i))
            plot(run, path, stats)
            print(path)
            n += 1
    if n == 0:
        sys.exit("no run with a timeline in %s" % args.results)


if __name__ == "__main__":
    main()
