#!/usr/bin/env python3
"""How long a consumer group takes to settle when one member joins and when
one dies, and how long the members that keep their partitions stop
consuming meanwhile: the classic protocol (eager range, and
cooperative-sticky) against Kafka 4's consumer protocol (KIP-848), on Strata
and on Apache Kafka (bench/kafka.sh, one KRaft node) in the same run.

Members are tests/integration/group_member.py processes on confluent-kafka
from PyPI (librdkafka 2.16: both protocols), printing each rebalance
callback and each record with its wall-clock time. A producer writes to
every partition without pause. For each (system, protocol, size):

  1. `size` members join and the group settles (each partition owned by
     exactly one member, every member owning one);
  2. join: one more member starts; settled = the first moment the group is
     split again with it; "pause" = the longest gap between two records a
     member that kept all its partitions received, from the join to 1 s after
     settling (max over those members);
  3. death: one member is SIGKILLed; settled = the moment its partitions are
     owned by the others (this includes the session timeout, 10 s on both
     protocols here); pause as above.

Both systems get the same group settings: session timeout 10 s (classic:
the client's session.timeout.ms; consumer: the broker's
group.consumer.session.timeout.ms), each protocol's default heartbeat
interval (classic 3 s, consumer 5 s), group.initial.rebalance.delay.ms 0.

    bench/group_settle.py [--systems strata,kafka] [--sizes 10,100]
                          [--protocols eager,cooperative,consumer] [--build build]
                          [--json-out FILE]
"""
import argparse
import json
import os
import signal
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEMBER = os.path.join(ROOT, "tests", "integration", "group_member.py")
PYPI_PYTHON = "/var/cache/strata/pypi-venv/bin/python"
SESSION_MS = 10000
SETTLE_TIMEOUT_S = 300
GROUP_SETTINGS = {  # the broker side, the same on both systems
    "group.initial.rebalance.delay.ms": "0",
    "group.consumer.session.timeout.ms": str(SESSION_MS),
    "group.consumer.min.session.timeout.ms": str(SESSION_MS),
}


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class System:
    """A single broker of `name` (strata or kafka), started on fresh data."""

    def __init__(self, name, build, workdir):
        self.name, self.dir = name, os.path.join(workdir, name)
        os.makedirs(self.dir)
        if name == "strata":
            port = free_port()
            args = [os.path.join(build, "server", "strata-broker"), "--data-dir",
                    os.path.join(self.dir, "data"), "--listen", "127.0.0.1:%d" % port]
            for k, v in GROUP_SETTINGS.items():
                if k != "group.consumer.min.session.timeout.ms":  # Strata has no such floor
                    args += ["--set", "%s=%s" % (k, v)]
            self.log = open(os.path.join(self.dir, "broker.log"), "w")
            self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
            self.bootstrap = "127.0.0.1:%d" % port
        else:
            up = [os.path.join(ROOT, "bench", "kafka.sh"), "up"]
            for k, v in GROUP_SETTINGS.items():
                up += ["--set", "%s=%s" % (k, v)]
            out = subprocess.run(up, env=dict(os.environ, KAFKA_DIR=self.dir), check=True,
                                 capture_output=True, text=True, timeout=300).stdout
            self.bootstrap = out.strip().splitlines()[-1].split("=", 1)[1]
        self.admin = AdminClient({"bootstrap.servers": self.bootstrap})
        deadline = time.monotonic() + 60
        while True:
            try:
                self.admin.list_topics(timeout=2)
                break
            except Exception:  # still starting
                if time.monotonic() > deadline:
                    sys.exit("%s did not come up" % name)

    def create_topic(self, topic, partitions):
        self.admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(60)

    def stop(self):
        if self.name == "strata":
            self.proc.terminate()
            self.proc.wait(60)
            self.log.close()
        else:
            subprocess.run([os.path.join(ROOT, "bench", "kafka.sh"), "down"],
                           env=dict(os.environ, KAFKA_DIR=self.dir), timeout=120)


class Member:
    """One group_member.py process; events read by a thread."""

    def __init__(self, bootstrap, group, topic, protocol, name, workdir):
        argv = [PYPI_PYTHON, MEMBER, "--bootstrap", bootstrap, "--group", group, "--topic", topic,
                "--client-id", name, "--commit", "none", "--session-timeout-ms", str(SESSION_MS),
                "--heartbeat-interval-ms", "3000"]
        if protocol == "consumer":
            argv += ["--protocol", "consumer"]
        else:
            argv += ["--strategy", "cooperative-sticky" if protocol == "cooperative" else "range"]
        self.name = name
        self.lock = threading.Lock()
        self.owned, self.changes, self.received = set(), [], {}
        self.err = open(os.path.join(workdir, name + ".stderr"), "w")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            e = json.loads(line)
            with self.lock:
                if e["event"] in ("assign", "revoke", "lost"):
                    self.owned = {tuple(tp) for tp in e["assignment"]}
                    self.changes.append((e["t"], e["event"], frozenset(map(tuple, e["delta"]))))
                elif e["event"] == "message":
                    self.received.setdefault((e["topic"], e["partition"]), []).append(e["t"])

    def kill(self):
        self.proc.kill()
        self.proc.wait()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.err.close()


class Feed:
    """Writes to every partition of a topic without pause."""

    def __init__(self, bootstrap, topic, partitions):
        self.p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "acks": "1"})
        self.running = True
        self.topic, self.partitions = topic, partitions
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        n = 0
        # Pacing: 2,000 records a second over all partitions (at least 10 a
        # second each), so a pause shows within a fraction of a second
        # without the feed loading the machine.
        period = max(0.001, min(0.1, self.partitions / 2000.0))
        while self.running:
            for p in range(self.partitions):
                while True:
                    try:
                        self.p.produce(self.topic, value=b"%d" % n, partition=p)
                        break
                    except BufferError:  # the client's queue is full: let it drain
                        self.p.poll(0.05)
                n += 1
            self.p.poll(0)
            time.sleep(period)

    def stop(self):
        self.running = False
        self.thread.join()
        self.p.flush(30)


def split(members, partitions):
    owned = []
    for m in members:
        with m.lock:
            owned.append(set(m.owned))
    if any(not o for o in owned):
        return False
    return sorted(tp for o in owned for tp in o) == sorted(partitions)


def wait(what, fn, timeout=SETTLE_TIMEOUT_S):
    deadline = time.monotonic() + timeout
    while not fn():
        if time.monotonic() > deadline:
            raise RuntimeError("timed out: " + what)
        time.sleep(0.01)


def owned(members):
    out = {}
    for m in members:
        with m.lock:
            out[m.name] = set(m.owned)
    return out


def pause(members, before, start, end):
    """The longest gap between two records (or between `start` and the first,
    the last and `end`) a member received on a partition it owned both
    before the event (`before`) and after it: how long the members that
    were not moved stopped consuming. An eager rebalance takes every
    partition away for a while, even the ones it gives back."""
    worst = 0.0
    after = owned(members)
    for m in members:
        with m.lock:
            for tp in before.get(m.name, set()) & after[m.name]:
                inside = [t for t in m.received.get(tp, []) if start <= t <= end]
                points = [start] + inside + [end]
                worst = max(worst, max(b - a for a, b in zip(points, points[1:])))
    return worst


def settled_at(members, since):
    """The time of the last rebalance callback after `since`."""
    last = since
    for m in members:
        with m.lock:
            for t, _, _ in m.changes:
                if t >= since:
                    last = max(last, t)
    return last


def run_one(system, protocol, size, workdir):
    topic = "settle-%s-%d" % (protocol, size)
    group = topic
    partitions = size * 2
    system.create_topic(topic, partitions)
    everything = [(topic, p) for p in range(partitions)]
    feed = Feed(system.bootstrap, topic, partitions)
    members = [Member(system.bootstrap, group, topic, protocol, "m%d" % i, workdir)
               for i in range(size)]
    try:
        wait("%d members settle" % size, lambda: split(members, everything))
        time.sleep(2)  # a steady stretch before the event
        # join
        before = owned(members)
        joined_at = time.time()
        newcomer = Member(system.bootstrap, group, topic, protocol, "m%d" % size, workdir)
        members.append(newcomer)
        wait("the newcomer is given partitions", lambda: split(members, everything))
        join_settle = settled_at(members, joined_at) - joined_at
        time.sleep(1)
        join_pause = pause(members[:-1], before, joined_at, joined_at + join_settle + 1)
        time.sleep(2)
        # death
        before = owned(members)
        victim = members[0]
        killed_at = time.time()
        victim.kill()
        survivors = members[1:]
        wait("the dead member's partitions move", lambda: split(survivors, everything))
        death_settle = settled_at(survivors, killed_at) - killed_at
        time.sleep(1)
        death_pause = pause(survivors, before, killed_at, killed_at + death_settle + 1)
    finally:
        feed.stop()
        for m in members:
            m.stop()
    return {"system": system.name, "protocol": protocol, "members": size,
            "join_settle_s": round(join_settle, 3), "join_pause_s": round(join_pause, 3),
            "death_settle_s": round(death_settle, 3), "death_pause_s": round(death_pause, 3)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--systems", default="strata,kafka")
    ap.add_argument("--sizes", default="10")
    ap.add_argument("--protocols", default="eager,cooperative,consumer")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--json-out")
    a = ap.parse_args()
    workdir = tempfile.mkdtemp(prefix="strata-group-settle-")
    results = []
    try:
        for name in a.systems.split(","):
            system = System(name, a.build, workdir)
            try:
                for size in map(int, a.sizes.split(",")):
                    for protocol in a.protocols.split(","):
                        r = run_one(system, protocol, size, workdir)
                        print(json.dumps(r), flush=True)
                        results.append(r)
            finally:
                system.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print("%-7s %-12s %7s %12s %12s %13s %13s" % ("system", "protocol", "members", "join settle",
                                                  "join pause", "death settle", "death pause"))
    for r in results:
        print("%-7s %-12s %7d %11.2fs %11.2fs %12.2fs %12.2fs" % (
            r["system"], r["protocol"], r["members"], r["join_settle_s"], r["join_pause_s"],
            r["death_settle_s"], r["death_pause_s"]))
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
