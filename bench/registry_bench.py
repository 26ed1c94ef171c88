#!/usr/bin/env python3
"""The schema registry's request rates, against one broker started here:
  1. register  — POST /subjects/s<i>/versions, each a new Avro schema
                 (a new id: a record written acks=all to _schemas);
  2. re-register — the same schemas again (answered from memory, nothing
                 written);
  3. get-by-id — GET /schemas/ids/{id} over the registered ids;
  4. get-latest — GET /subjects/s<i>/versions/latest.
Each phase runs CLIENTS processes, each with one kept-alive HTTP
connection, for SECONDS (or until the schemas run out); reported per phase:
requests/s, latency p50/p99/max, the broker's CPU (user+system seconds per
wall second, from /proc) and its peak RSS (VmHWM).

    bench/registry_bench.py [--build build] [--clients 4] [--seconds 10]
                            [--schemas 20000]
"""
import argparse
import http.client
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CT = {"Content-Type": "application/vnd.schemaregistry.v1+json"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def schema(i):
    return json.dumps({"schema": json.dumps({
        "type": "record", "name": "R%d" % i, "namespace": "bench",
        "fields": [{"name": "id", "type": "long"}, {"name": "name", "type": "string"},
                   {"name": "tags", "type": {"type": "array", "items": "string"}, "default": []}]})})


def worker(args):
    """One client: its share of requests of `phase`, until `deadline`;
    returns the latencies (seconds) of the successful ones and the errors."""
    port, phase, share, deadline = args
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    lat, errors = [], 0
    k = 0
    while time.time() < deadline:
        if phase in ("register", "re-register"):
            if k >= len(share):
                break
            i = share[k]
            method, path, body = "POST", "/subjects/s%d/versions" % i, schema(i)
        elif phase == "get-by-id":
            method, path, body = "GET", "/schemas/ids/%d" % share[k % len(share)], None
        else:
            method, path, body = "GET", "/subjects/s%d/versions/latest" % share[k % len(share)], None
        k += 1
        t = time.perf_counter()
        conn.request(method, path, body=body, headers=CT)
        r = conn.getresponse()
        r.read()
        if r.status == 200:
            lat.append(time.perf_counter() - t)
        else:
            errors += 1
    return lat, errors


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0


def pct(xs, p):
    return xs[min(len(xs) - 1, int(len(xs) * p))] * 1000 if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--schemas", type=int, default=20000)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="strata-registry-bench-")
    kport, rport = free_port(), free_port()
    broker = subprocess.Popen([os.path.join(a.build, "server", "strata-broker"), "--data-dir",
                               os.path.join(tmp, "data"), "--listen", "127.0.0.1:%d" % kport,
                               "--log-level", "warn", "--set",
                               "schema.registry.listeners=127.0.0.1:%d" % rport],
                              stdout=open(os.path.join(tmp, "broker.log"), "w"), stderr=subprocess.STDOUT)
    try:
        for _ in range(300):
            try:
                http.client.HTTPConnection("127.0.0.1", rport, timeout=1).request("GET", "/")
                break
            except OSError:
                time.sleep(0.1)
        rows = []
        ids = []
        with multiprocessing.Pool(a.clients) as pool:
            for phase in ("register", "re-register", "get-by-id", "get-latest"):
                if phase in ("register", "re-register"):
                    population = list(range(a.schemas))
                elif phase == "get-by-id":
                    population = ids
                else:
                    population = list(range(len(ids)))
                shares = [population[c::a.clients] for c in range(a.clients)]
                cpu0, t0 = cpu_seconds(broker.pid), time.time()
                out = pool.map(worker, [(rport, phase, s, t0 + a.seconds) for s in shares])
                wall = time.time() - t0
                cpu = cpu_seconds(broker.pid) - cpu0
                lat = sorted(x for l, _ in out for x in l)
                errors = sum(e for _, e in out)
                if phase == "register":
                    # The ids given out: one per registered schema, 1..n.
                    ids = list(range(1, len(lat) + 1))
                rows.append((phase, len(lat), errors, len(lat) / wall, pct(lat, 0.5), pct(lat, 0.99),
                             lat[-1] * 1000 if lat else float("nan"), cpu / wall))
        print("%-12s %8s %6s %10s %8s %8s %8s %10s" % ("phase", "requests", "errors", "req/s",
                                                     "p50 ms", "p99 ms", "max ms", "broker CPU"))
        for r in rows:
            print("%-12s %8d %6d %10.0f %8.2f %8.2f %8.2f %10.2f" % r)
        print("broker peak RSS: %.0f MiB; clients: %d processes, one connection each"
              % (peak_rss_mib(broker.pid), a.clients))
    finally:
        broker.terminate()
        broker.wait(timeout=60)


if __name__ == "__main__":
    sys.exit(main())
