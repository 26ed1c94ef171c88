"""Nemeses: the faults a run injects into a cluster, one at a time, each for
a bounded random time chosen by the run's seeded random generator, and the
heal that undoes whatever is still in force.

Kinds (NEMESES):
  kill-leader, kill-follower, kill-controller, kill-random
      SIGKILL of that broker, restarted after a pause
  pause           SIGSTOP of a partition leader for longer than the broker
                  session, then SIGCONT. Before the SIGCONT the other brokers
                  are asked (for up to REPLACE_WAIT_S) until none of the
                  topic's partitions is led by the paused broker, unless no
                  live in-sync replica could take it over; the "pause-end"
                  record says whether it was replaced (the checker's
                  "unreplaced")
  partition       a broker cut off from the other brokers, both ways
  partition-etcd  a broker cut off from etcd
  one-way         packets from a broker to the other brokers dropped
  power-cut       SIGKILL of a broker, then its files cut back to what it had
                  synced (power_cut.py), then restarted
  kill-etcd       SIGKILL of etcd, restarted after a pause
  disk-full       a partition leader's data directory (a small tmpfs: run.py
                  mounts one per broker for this kind) filled to the last
                  byte; then the filler is removed and the broker restarted
                  (SIGTERM, start). What the broker did meanwhile is noted:
                  still running, its log naming the storage failure, how
                  many of the topic's partitions it still led

Partitions are iptables DROP rules in a chain of their own (STRATA-FAULT)
on the loopback addresses alone: broker N is 127.0.0.(10+N) (its replication
connections leave from there too), and reaches etcd at 127.0.0.(20+N):2379
(cluster.sh with STRATA_ETCD_PER_BROKER=1).
"""
import json
import os
import subprocess
import time

from confluent_kafka.admin import AdminClient

import power_cut
from harness import fill  # tests/integration, on the path run.py sets

NEMESES = ("kill-leader", "kill-follower", "kill-controller", "kill-random", "pause",
           "partition", "partition-etcd", "one-way", "power-cut", "kill-etcd", "disk-full")
SINGLE_BROKER_NEMESES = ("kill-random", "power-cut")
CHAIN = "STRATA-FAULT"
REPLACE_WAIT_S = 30  # the session (2 s), the controller's election, the metadata's spread
STRATA = os.environ.get("STRATA_CLI", os.path.join(os.path.dirname(__file__),
                                                   "../../build/tools/strata"))


def iptables(*args, check=True):
    return subprocess.run(["iptables", "-w"] + list(args), capture_output=True, check=check)


def filters_reset():
    """An empty STRATA-FAULT chain, jumped to from INPUT."""
    if iptables("-N", CHAIN, check=False).returncode != 0:
        iptables("-F", CHAIN)
    if iptables("-C", "INPUT", "-j", CHAIN, check=False).returncode != 0:
        iptables("-I", "INPUT", "-j", CHAIN)


def filters_remove():
    iptables("-D", "INPUT", "-j", CHAIN, check=False)
    iptables("-F", CHAIN, check=False)
    iptables("-X", CHAIN, check=False)


def broker_host(n):
    return "127.0.0.%d" % (10 + n)


def etcd_host_of(n):
    return "127.0.0.%d" % (20 + n)


class Nemesis:
    """Faults on `servers`: a tests/integration/cluster.py Cluster (three
    brokers and etcd) or a SingleBroker (below)."""

    def __init__(self, servers, history, rng, topic, partitions):
        self.servers, self.history, self.rng = servers, history, rng
        self.topic, self.partitions = topic, partitions
        self.dead = set()      # brokers killed and not restarted
        self.paused = set()
        self.filtered = False
        self.etcd_dead = False
        self.counts = {}

    # -- what the cluster looks like -----------------------------------------

    def live(self):
        return [n for n in range(1, self.servers.brokers + 1)
                if n not in self.dead and n not in self.paused]

    def leader(self):
        """The leader of a random partition as a live broker sees it, or None."""
        p = self.rng.randrange(self.partitions)
        for n in self.live():
            try:
                md = AdminClient({"bootstrap.servers": self.servers.address(n)}).list_topics(
                    self.topic, timeout=5)
                leader = md.topics[self.topic].partitions[p].leader
                if leader in self.live():
                    return leader
            except Exception:  # noqa: BLE001 - a broker in trouble: ask another
                continue
        return None

    def controller(self):
        for n in self.live():
            r = subprocess.run([STRATA, "--bootstrap", self.servers.address(n), "--timeout", "5",
                                "--json", "cluster"], capture_output=True)
            if r.returncode == 0:
                c = json.loads(r.stdout)["controller"]
                if c in self.live():
                    return c
        return None

    def pick(self, how):
        live = self.live()
        if not live:
            return None
        if how == "leader":
            return self.leader()
        if how == "controller":
            return self.controller()
        if how == "follower":
            leader = self.leader()
            others = [n for n in live if n != leader]
            return self.rng.choice(others) if others else None
        return self.rng.choice(live)

    # -- faults ------------------------------------------------------------

    def note(self, action, **fields):
        self.history.record("nemesis", "nemesis", action=action, **fields)

    def inject(self, kind):
        """Starts one fault of `kind`; returns a function that ends it, or
        None when there was no target (nothing was done)."""
        if kind.startswith("kill-") and kind != "kill-etcd":
            n = self.pick(kind[len("kill-"):])
            if n is None:
                return None
            self.kill(n)
            return lambda: self.restart(n)
        if kind == "power-cut":
            n = self.pick("random")
            if n is None:
                return None
            self.kill(n)
            cut, removed = power_cut.apply(self.servers.sync_journal(n))
            self.note("power-cut", broker=n, bytes_cut=cut, files_removed=removed)
            return lambda: self.restart(n)
        if kind == "pause":
            n = self.pick("leader")
            if n is None:
                return None
            self.servers.pause(n)
            self.paused.add(n)
            self.note("pause", broker=n)
            return lambda: self.end_pause(n)
        if kind in ("partition", "one-way", "partition-etcd"):
            n = self.pick(self.rng.choice(["leader", "random"]))
            if n is None:
                return None
            self.cut(kind, n)
            return self.uncut
        if kind == "disk-full":
            n = self.pick("leader")
            if n is None:
                return None
            filler = os.path.join(self.servers.data_dir(n), "filler")
            self.note("disk-full", broker=n, bytes=fill(filler))
            return lambda: self.end_disk_full(n, filler)
        if kind == "kill-etcd":
            self.servers.kill_etcd()
            self.etcd_dead = True
            self.note("kill-etcd")
            return self.restart_etcd
        raise ValueError("unknown nemesis %r" % kind)

    def kill(self, n):
        self.servers.kill(n)
        self.dead.add(n)
        self.note("kill", broker=n)

    def restart(self, n):
        if self.etcd_dead:
            self.restart_etcd()
        self.servers.restart(n)
        self.dead.discard(n)
        self.note("restart", broker=n)

    def resume(self, n):
        self.servers.resume(n)
        self.paused.discard(n)
        self.note("resume", broker=n)

    def seen_by_others(self, n):
        """The topic's partitions as a live broker other than n sees them,
        or None when none answered."""
        for m in self.live():
            if m == n:
                continue
            try:
                md = AdminClient({"bootstrap.servers": self.servers.address(m)}).list_topics(
                    self.topic, timeout=5)
                return list(md.topics[self.topic].partitions.values())
            except Exception:  # noqa: BLE001 - ask another
                continue
        return None

    def still_led(self, n):
        """The partitions the paused broker n still leads, as another live
        broker sees them, leaving out those no live in-sync replica could
        take over (offline ones among them); None when no broker answered."""
        seen = self.seen_by_others(n)
        if seen is None:
            return None
        live = self.live()
        return sorted(p.id for p in seen if any(i != n and i in live for i in p.isrs)
                      and (p.leader == n or p.leader < 0))

    def end_pause(self, n):
        deadline = time.monotonic() + REPLACE_WAIT_S
        led = self.still_led(n)
        while led != [] and time.monotonic() < deadline:
            time.sleep(0.2)
            led = self.still_led(n)
        self.note("pause-end", broker=n, replaced=led == [], still_led=led)
        self.resume(n)

    def led_by(self, n):
        """How many of the topic's partitions broker n leads, as another live
        broker sees it."""
        seen = self.seen_by_others(n)
        return None if seen is None else sum(1 for p in seen if p.leader == n)

    def end_disk_full(self, n, filler):
        alive = self.servers.running(n)
        logged = "storage failure" in self.servers.log(n)
        self.note("disk-full-end", broker=n, alive=alive, storage_failure_logged=logged,
                  leads=self.led_by(n))
        os.remove(filler)
        if alive:
            self.servers.stop(n)
        self.dead.add(n)
        self.restart(n)

    def restart_etcd(self):
        if self.etcd_dead:
            self.servers.restart_etcd()
            self.etcd_dead = False
            self.note("restart-etcd")

    def cut(self, kind, n):
        rules = []
        if kind == "partition-etcd":
            e = etcd_host_of(n)
            rules = [["-d", e, "-p", "tcp", "--dport", "2379"],
                     ["-s", e, "-p", "tcp", "--sport", "2379"]]
        else:
            for m in range(1, self.servers.brokers + 1):
                if m == n:
                    continue
                rules.append(["-s", broker_host(n), "-d", broker_host(m)])
                if kind == "partition":
                    rules.append(["-s", broker_host(m), "-d", broker_host(n)])
        for r in rules:
            iptables("-A", CHAIN, *r, "-j", "DROP")
        self.filtered = True
        self.note(kind, broker=n)

    def uncut(self):
        if self.filtered:
            iptables("-F", CHAIN)
            self.filtered = False
            self.note("uncut")

    def heal(self):
        """Ends every fault still in force: filters gone, etcd and every
        broker running."""
        self.uncut()
        for n in sorted(self.paused):
            self.resume(n)
        self.restart_etcd()
        for n in sorted(self.dead):
            self.restart(n)



class SingleBroker:
    """One broker with the embedded coordinator (tests/integration/harness.py),
    journaling its syncs, behind the interface Nemesis uses."""

    brokers = 1

    def __init__(self, broker):
        self.broker = broker

    def address(self, n):
        return self.broker.bootstrap

    def sync_journal(self, n):
        return os.path.join(self.broker.tmp, "syncs")

    def kill(self, n):
        self.broker.kill()

    def restart(self, n):
        self.broker.start()
