"""Renders bench/compare.sh's results (one strata-bench JSON per line, each
tagged with "system") as the markdown that goes into BENCHMARKS.md.

    python3 bench/compare_table.py RESULTS.jsonl MACHINE VERSIONS IPERF_GBPS DD_MBS COMMAND
"""
import json
import sys

ORDER = ["strata", "kafka-flush", "strata-replicated", "kafka", "redis-aof", "redis-memory", "nats"]
# Each Strata system and the Kafka system that promises the same durability.
PAIRS = [("strata", "kafka-flush", "fsync before the acknowledgement"),
         ("strata-replicated", "kafka", "page cache, durability by replication")]


def load(path):
    runs = [json.loads(line) for line in open(path) if line.strip()]
    runs.sort(key=lambda r: ORDER.index(r["system"]) if r["system"] in ORDER else len(ORDER))
    return runs


def lat(h):
    if not h["count"]:
        return "–"
    return "%.1f / %.1f / %.1f / %.1f" % (h["p50_ms"], h["p99_ms"], h["p999_ms"], h["max_ms"])


def server(r):
    p = r["processes"][0] if r["processes"] else None
    if not p:
        return "–", "–"
    return "%.2f" % p["cpu_cores"], "%.0f" % p["peak_rss_mib"]


def cpu_s_per_gb(r):
    """The server's CPU seconds per GB produced (its reads for the groups included)."""
    p = r["processes"][0] if r["processes"] else None
    mbs = r["produce"]["mb_per_s"]
    if not p or not mbs:
        return None
    return p["cpu_cores"] / (mbs / 1000.0)


def fmt(v, f="%.1f"):
    return "–" if v is None else f % v


def ok(r):
    return "yes" if r["accounting_ok"] else "**NO**"


def pick(runs, workload, acks=None):
    return [r for r in runs if r["workload"]["name"] == workload and (acks is None or r["workload"]["acks"] == acks)]


def main():
    path, machine, versions, iperf_gbps, dd_mbs, command = sys.argv[1:7]
    runs = load(path)
    loopback_mbs = float(iperf_gbps) * 1000 / 8
    dd_mbs = float(dd_mbs)
    out = []
    w = out.append
    w("Produced by `%s`; raw results in bench/results/." % command)
    w("")
    w("- Machine: %s" % machine)
    w("- Versions: %s" % versions)
    w("- Machine limits measured in the same run: loopback TCP (iperf3, one stream) **%.1f Gbit/s = %.0f MB/s**; "
      "sequential write with fdatasync (dd bs=1M count=1024 conv=fdatasync) **%.0f MB/s**." % (
          float(iperf_gbps), loopback_mbs, dd_mbs))
    w("- Every client runs inside strata-bench on the same machine, sharing the two cores with the server. "
      "Latencies are p50 / p99 / p99.9 / max in ms. CPU is the server's, in cores, over the measured window; "
      "RSS is its peak (VmHWM). \"Accounting\" is yes when every acknowledged message reached every group.")
    w("")

    w("**1. Mission: 1 KiB at 100k msg/s for 60 s, 16 partitions, three consumer groups**")
    w("")
    w("| system | produced msg/s | MB/s | slowest group msg/s | max lag at window end (msgs) | all groups drained after stop (s) | end-to-end latency | publish latency | server CPU | CPU s/GB | peak RSS MiB | accounting |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in pick(runs, "mission"):
        groups = r["groups"]
        slowest = min(g["msgs_per_s"] for g in groups) if groups else 0
        lag = max(g["lag_at_window_end"] for g in groups) if groups else 0
        drained = "%.1f" % max(g["drain_seconds"] for g in groups) if all(g["drained"] for g in groups) else "**not drained**"
        cpu, rss = server(r)
        w("| %s | %.0f | %.1f | %.0f | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            r["system"], r["produce"]["msgs_per_s"], r["produce"]["mb_per_s"], slowest, lag, drained,
            lat(r["e2e_latency"]), lat(r["publish_latency"]), cpu, fmt(cpu_s_per_gb(r)), rss, ok(r)))
    w("")

    w("**2. Maximum produce throughput, 1 KiB, 2 producers, no consumers**")
    w("")
    w("| system | acks | msg/s | MB/s | of loopback TCP | of dd fdatasync | publish latency | server CPU | CPU s/GB | peak RSS MiB | accounting |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    for acks in ["1", "all"]:
        for r in pick(runs, "max-produce", acks):
            mbs = r["produce"]["mb_per_s"]
            cpu, rss = server(r)
            w("| %s | %s | %.0f | %.1f | %.0f%% | %.0f%% | %s | %s | %s | %s | %s |" % (
                r["system"], acks, r["produce"]["msgs_per_s"], mbs, 100 * mbs / loopback_mbs,
                100 * mbs / dd_mbs, lat(r["publish_latency"]), cpu, fmt(cpu_s_per_gb(r)), rss, ok(r)))
    w("")

    w("**3. Latency at a fixed 10k and 50k msg/s, 1 KiB, acks=all, one group reading**")
    w("")
    w("| system | rate | produced msg/s | publish latency | end-to-end latency | server CPU | CPU s/GB | peak RSS MiB | accounting |")
    w("|---|---|---|---|---|---|---|---|---|")
    rates = sorted({r["workload"]["rate"] for r in pick(runs, "latency")})
    for rate in rates:
        for r in pick(runs, "latency"):
            if r["workload"]["rate"] != rate:
                continue
            cpu, rss = server(r)
            w("| %s | %dk | %.0f | %s | %s | %s | %s | %s | %s |" % (
                r["system"], rate // 1000, r["produce"]["msgs_per_s"], lat(r["publish_latency"]),
                lat(r["e2e_latency"]), cpu, fmt(cpu_s_per_gb(r)), rss, ok(r)))
    w("")
    targets_vs_kafka(runs, rates, w)

    # The targets, checked against this run.
    w("**Targets**")
    w("")
    strata_mission = [r for r in pick(runs, "mission") if r["system"] == "strata"]
    if strata_mission:
        r = strata_mission[0]
        behind = any(not g["drained"] for g in r["groups"])
        p99 = r["e2e_latency"]["p99_ms"]
        rate_ok = r["produce"]["msgs_per_s"] >= 0.98 * r["workload"]["rate"]
        met = rate_ok and not behind and p99 < 50
        w("- Mission sustained (≥ 98%% of 100k msg/s, every group drained, end-to-end p99 < 50 ms): %s "
          "(%.0f msg/s, p99 %.1f ms)" % ("**met**" if met else "**not met**", r["produce"]["msgs_per_s"], p99))
    acks1 = {r["system"]: r["produce"]["mb_per_s"] for r in pick(runs, "max-produce", "1")}
    acksall = {r["system"]: r["produce"]["mb_per_s"] for r in pick(runs, "max-produce", "all")}
    if "strata" in acks1:
        others = {k: v for k, v in acks1.items() if not k.startswith("strata")}
        beaten = [k for k, v in others.items() if acks1["strata"] > v]
        w("- acks=1 above every other system in MB/s (Strata's fsync topics): %s (strata %.1f; %s)" % (
            "**met**" if len(beaten) == len(others) else "**not met**", acks1["strata"],
            ", ".join("%s %.1f" % kv for kv in others.items())))
    if "strata" in acks1 and "strata" in acksall:
        ratio = acksall["strata"] / acks1["strata"] if acks1["strata"] else 0
        w("- acks=all (durability=fsync) at least half of acks=1: %s (%.0f%%)" % (
            "**met**" if ratio >= 0.5 else "**not met**", 100 * ratio))
    w("")
    print("\n".join(out))


def targets_vs_kafka(runs, rates, w):
    """Strata against the Kafka system with the same durability, as ratios within this run."""
    def one(system, workload, acks=None, rate=None):
        rs = [r for r in pick(runs, workload, acks) if r["system"] == system
              and (rate is None or r["workload"]["rate"] == rate)]
        return rs[0] if rs else None

    lines = []
    for strata, kafka, what in PAIRS:
        for acks in ["1", "all"]:
            s, k = one(strata, "max-produce", acks), one(kafka, "max-produce", acks)
            if s and k and k["produce"]["mb_per_s"]:
                ratio = s["produce"]["mb_per_s"] / k["produce"]["mb_per_s"]
                lines.append("| %s / %s | max throughput, acks=%s | ≥ 1.5x | %.2fx (%.1f / %.1f MB/s) | %s |" % (
                    strata, kafka, acks, ratio, s["produce"]["mb_per_s"], k["produce"]["mb_per_s"],
                    "met" if ratio >= 1.5 else "**not met**"))
        for rate in rates:
            s, k = one(strata, "latency", rate=rate), one(kafka, "latency", rate=rate)
            if s and k:
                for hist in ["publish_latency", "e2e_latency"]:
                    sp, kp = s[hist]["p99_ms"], k[hist]["p99_ms"]
                    lines.append("| %s / %s | %s p99 at %dk msg/s | ≤ Kafka's | %.1f / %.1f ms | %s |" % (
                        strata, kafka, hist.split("_")[0].replace("e2e", "end-to-end"), rate // 1000, sp, kp,
                        "met" if sp <= kp else "**not met**"))
        s, k = one(strata, "mission"), one(kafka, "mission")
        if s and k:
            sc, kc = cpu_s_per_gb(s), cpu_s_per_gb(k)
            if sc and kc:
                lines.append("| %s / %s | broker CPU s per GB, mission | ≤ 0.5x | %.2fx (%.1f / %.1f) | %s |" % (
                    strata, kafka, sc / kc, sc, kc, "met" if sc <= 0.5 * kc else "**not met**"))
    if lines:
        w("**Strata against Kafka at the same durability (issue 35's targets, ratios within this run)**")
        w("")
        w("| pair | figure | target | measured (Strata / Kafka) | |")
        w("|---|---|---|---|---|")
        for line in lines:
            w(line)
        w("")


if __name__ == "__main__":
    main()
