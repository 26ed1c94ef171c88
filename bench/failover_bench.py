#!/usr/bin/env python3
"""Failover time on a 3-broker cluster (scripts/cluster.sh, or with
--system kafka Apache Kafka's three KRaft nodes from bench/kafka.sh): an
acks=all producer (confluent-kafka) sends without pause to an RF 3 topic
(min.insync.replicas=2) while the partition's leader is SIGKILLed, KILLS
times; after each kill the old leader is restarted and the next kill waits
until it is back in the ISR. Reported per kill: the time from the SIGKILL
to the first acknowledgement of a message sent after it, and the longest
gap between two acknowledgements around it; then p50/max over the kills.
--session-ms sets broker.session.timeout.ms (both systems' name for how long
a silent broker stays registered); without it each runs at its default.

    bench/failover_bench.py [--system strata|kafka] [--build build] [--kills 10]
                            [--session-ms 2000]
                            [-X topic.metadata.refresh.interval.ms=1000 ...]
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = {"strata": os.path.join(ROOT, "scripts", "cluster.sh"),
           "kafka": os.path.join(ROOT, "bench", "kafka.sh")}
PID_FILES = {"strata": "broker-%d.pid", "kafka": "node-%d.pid"}


def cluster(system, env, *args):
    r = subprocess.run([SCRIPTS[system]] + list(args), env=env, capture_output=True, timeout=300)
    if r.returncode != 0:
        sys.exit("%s %s failed: %s" % (SCRIPTS[system], " ".join(args), r.stderr.decode()))
    return r.stdout.decode()


def wait_for(what, fn, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            v = fn()
            if v:
                return v
        except Exception:  # a broker restarting: ask again
            pass
        time.sleep(0.05)
    sys.exit("timed out waiting for " + what)


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--system", choices=sorted(SCRIPTS), default="strata")
    ap.add_argument("--session-ms", type=int, help="broker.session.timeout.ms (default: the system's)")
    ap.add_argument("--json-out")
    ap.add_argument("-X", dest="client", action="append", default=[],
                    help="a librdkafka property for the producer, key=value")
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="strata-failover-")
    session = [] if a.session_ms is None else ["broker.session.timeout.ms=%d" % a.session_ms]
    if a.system == "strata":
        env = dict(os.environ, STRATA_CLUSTER_DIR=d, BROKERS="3",
                   STRATA_BROKER=os.path.join(a.build, "server", "strata-broker"),
                   STRATA_CLI=os.path.join(a.build, "tools", "strata"),
                   STRATA_BROKER_ARGS=" ".join(["--cores 1"] + ["--set " + s for s in session]))
        up = ["up"]
    else:
        env = dict(os.environ, KAFKA_DIR=d)
        # A heartbeat well inside the session (Kafka's default: 2 s of 9 s).
        if a.session_ms is not None:
            session.append("broker.heartbeat.interval.ms=%d" % max(100, a.session_ms // 4))
        up = ["up", "--brokers", "3"] + [x for s in session for x in ("--set", s)]
    sys_ = a.system
    out = cluster(sys_, env, *up)
    bootstrap = out.strip().split("\n")[-1].split("=", 1)[1]
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("failover", 1, 3, config={"min.insync.replicas": "2"})])[
        "failover"].result(30)

    def state():
        p = admin.list_topics("failover", timeout=5).topics["failover"].partitions[0]
        return p.leader, sorted(p.isrs)

    wait_for("a leader", lambda: state()[0] >= 0)
    acks = []  # monotonic time of each acknowledgement, with its send time
    lock = threading.Lock()
    running = [True]
    conf = {"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 1,
            "message.timeout.ms": 120000, "retry.backoff.ms": 50}
    for kv in a.client:
        k, v = kv.split("=", 1)
        conf[k] = v
    producer = Producer(conf)

    def produce():
        while running[0]:
            sent = time.monotonic()
            try:
                producer.produce("failover", value=b"x" * 100, on_delivery=lambda err, msg, s=sent: (
                    err is None and acks.append((time.monotonic(), s))))
            except BufferError:
                pass
            producer.poll(0.001)
    t = threading.Thread(target=produce, daemon=True)
    t.start()
    results = []
    for k in range(a.kills):
        wait_for("three in sync", lambda: state()[1] == [1, 2, 3])
        leader = state()[0]
        time.sleep(1)  # a second of steady acknowledgements before the kill
        # SIGKILL sent here, so no message sent after `killed` can be
        # acknowledged by the old leader (cluster.sh would add its own start-up).
        pid_file = os.path.join(d, PID_FILES[sys_] % leader)
        with open(pid_file) as f:
            pid = int(f.read())
        killed = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        wait_for("broker %d to exit" % leader, lambda: not os.path.exists("/proc/%d" % pid))
        os.remove(pid_file)  # as cluster.sh kill leaves it
        first = wait_for("an acknowledgement after the kill", lambda: next(
            (at for at, sent in list(acks) if sent > killed), None))
        time.sleep(1)
        with lock:
            around = [at for at, sent in acks if killed - 1 <= at]
        gaps = [b - a_ for a_, b in zip(around, around[1:])]
        results.append({"kill": k, "leader": leader, "first_ack_s": first - killed,
                        "longest_gap_s": max(gaps) if gaps else float("nan")})
        print("kill %d of broker %d: first acknowledgement after %.2f s, longest gap %.2f s" % (
            k + 1, leader, results[-1]["first_ack_s"], results[-1]["longest_gap_s"]), flush=True)
        cluster(sys_, env, "restart", str(leader))
    running[0] = False
    t.join()
    producer.flush(30)
    cluster(sys_, env, "down")
    shutil.rmtree(d, ignore_errors=True)
    firsts = [r["first_ack_s"] for r in results]
    gaps = [r["longest_gap_s"] for r in results]
    summary = {"system": sys_, "session_ms": a.session_ms, "kills": a.kills, "client": a.client,
               "first_ack_p50_s": quantile(firsts, 0.5), "first_ack_max_s": max(firsts),
               "gap_p50_s": quantile(gaps, 0.5), "gap_max_s": max(gaps), "runs": results}
    print("%s, broker.session.timeout.ms=%s over %d kills: first ack p50 %.2f s max %.2f s; "
          "longest gap p50 %.2f s max %.2f s" % (sys_, a.session_ms or "default", a.kills, summary["first_ack_p50_s"],
                                                 summary["first_ack_max_s"], summary["gap_p50_s"],
                                                 summary["gap_max_s"]))
    if a.json_out:
        with open(a.json_out, "a") as f:
            f.write(json.dumps(summary) + "\n")


if __name__ == "__main__":
    main()
