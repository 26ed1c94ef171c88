"""One fault run: a cluster (etcd and three brokers from scripts/cluster.sh,
or one broker with the embedded coordinator), an RF 3 topic with
min.insync.replicas=2, the workload of workload.py, faults from nemesis.py
for `--seconds`, then the heal, a bounded wait for the consumers, the final
read, and the checker's verdict on the history.

    python3 run.py --seconds 30 --seed 7 --nemesis kill-leader,pause --out DIR
    python3 run.py --brokers 1 --nemesis power-cut ...   # one broker, RF 1

With --transactional the producers write in transactions (some aborted)
and every consumer reads read_committed. With --compact the topic is
compacted, with small segments and a cleaner that looks every second, and
every send has a key (COMPACT_KEYS per producer and partition): the
cleaner removes superseded records while the faults go on, and the checker
allows exactly those to be missing. The seed is printed first; the same seed replays the same choices of
fault, target and duration (the cluster's own timing still varies).
Exit 0 when the checker passes, 1 when it does not, 2 when the run could
not be carried out. DIR keeps the history, the verdict (verdict.json) and,
when the run failed, the brokers' logs.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../integration"))

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

import checker  # noqa: E402
import nemesis as nem  # noqa: E402
import workload  # noqa: E402
from history import History, load  # noqa: E402

TOPIC = "fault"
WAIT_S = 120
TMPFS_MIB = 256  # a broker's data directory for disk-full runs
# --compact: the topic's settings, and the broker's, that make the cleaner
# run every few seconds on a workload of a few KiB/s per partition.
COMPACT_CONFIGS = {"cleanup.policy": "compact", "segment.bytes": "16384",
                   "min.cleanable.dirty.ratio": "0.01", "min.compaction.lag.ms": "0"}
COMPACT_BROKER_ARGS = ["--set", "log.cleaner.backoff.ms=1000"]
COMPACT_KEYS = 20


def wait_until(what, fn, timeout=WAIT_S):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = fn()
            if last:
                return last
        except Exception as e:  # noqa: BLE001 - a cluster healing answers with errors
            last = e
        time.sleep(0.2)
    raise RuntimeError("%s: not within %ds (last: %r)" % (what, timeout, last))


def topic_ready(bootstrap, partitions, in_sync):
    """Every partition of the topic has a leader and `in_sync` replicas in
    its ISR at least."""
    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(TOPIC, timeout=5)
    t = md.topics.get(TOPIC)
    return (t is not None and t.error is None and len(t.partitions) == partitions and
            all(p.leader >= 0 and len(p.isrs) >= in_sync for p in t.partitions.values()))


def final_read(history, bootstrap, partitions, isolation="read_uncommitted"):
    """Every partition from its log start to its high watermark, as a fresh
    consumer sees it; records final and end. read_committed stops at the
    last stable offset, which after healing (no transaction left open) is
    the high watermark."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "fault-final", "log_level": 0,
                  "isolation.level": isolation,
                  "enable.auto.commit": False, "enable.partition.eof": True,
                  "auto.offset.reset": "error"})
    try:
        ends = {}
        for p in range(partitions):
            ends[p] = wait_until("the high watermark of partition %d" % p, lambda p=p:
                                 c.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=5))[1]
        c.assign([TopicPartition(TOPIC, p, OFFSET_BEGINNING) for p in range(partitions)])
        pending = {p for p in range(partitions) if ends[p] > 0}
        deadline = time.monotonic() + WAIT_S
        while pending and time.monotonic() < deadline:
            for m in c.consume(num_messages=1000, timeout=0.2):
                if m.error():
                    # At the end: read_committed's last records may be
                    # markers or aborted ones, which it skips.
                    if m.error().code() == KafkaError._PARTITION_EOF and m.partition() in pending:
                        pos = c.position([TopicPartition(TOPIC, m.partition())])[0].offset
                        if pos >= ends[m.partition()]:
                            pending.discard(m.partition())
                    continue  # or a transient error: the deadline bounds it
                if m.offset() < ends[m.partition()]:
                    history.record("final", "final", partition=m.partition(), offset=m.offset(),
                                   value=m.value().decode())
                if m.offset() + 1 >= ends[m.partition()]:
                    pending.discard(m.partition())
        if pending:
            raise RuntimeError("final read: partitions %s not read to their end" % sorted(pending))
        for p, end in ends.items():
            history.record("end", "final", partition=p, offset=end)
    finally:
        c.close()


def caught_up(readers, members, ends):
    """The readers, and the group's members together, have read up to `ends`."""
    group = {}
    for m in members:
        group.update(m.positions)
    return (all(r.positions.get(p, 0) >= end for r in readers for p, end in ends.items()) and
            all(group.get(p, 0) >= end for p, end in ends.items()))


def high_watermarks(bootstrap, partitions):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "fault-ends", "log_level": 0})
    try:
        return {p: c.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=5)[1]
                for p in range(partitions)}
    finally:
        c.close()


def start_servers(args, out):
    if args.brokers == 1:
        from harness import Broker
        broker = Broker(cores=1)
        broker.extra_args = ["--set", "strata.test.sync.journal=%s" % os.path.join(
            broker.tmp, "syncs")] + (COMPACT_BROKER_ARGS if args.compact else [])
        broker.start()
        servers = nem.SingleBroker(broker)
        servers.bootstrap = broker.bootstrap
        servers.down = lambda: broker.__exit__(None, None, None)
        servers.logs_to = lambda d: shutil.copy(broker.log_path, d)
        return servers
    from cluster import Cluster
    broker_args = "--set broker.session.timeout.ms=2000 --cores 1"
    if args.compact:
        broker_args += " " + " ".join(COMPACT_BROKER_ARGS)
    cluster = Cluster(brokers=args.brokers, broker_args=broker_args,
                      env={"STRATA_ETCD_PER_BROKER": "1", "STRATA_SYNC_JOURNAL": "1"})
    mounts = []
    if "disk-full" in args.kinds:
        # Each broker's data directory on a tmpfs of its own, small enough
        # to fill in a moment (the journals and logs stay outside).
        for n in range(1, args.brokers + 1):
            d = cluster.data_dir(n)
            os.makedirs(d)
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dm" % TMPFS_MIB, "tmpfs", d],
                           check=True)
            mounts.append(d)

    def down():
        keep = os.environ.get("STRATA_KEEP_TEST_DIRS")
        os.environ["STRATA_KEEP_TEST_DIRS"] = "1"
        try:
            cluster.__exit__(None, None, None)
        finally:
            if keep is None:
                del os.environ["STRATA_KEEP_TEST_DIRS"]
            for d in mounts:
                subprocess.run(["umount", "-l", d], check=False)
        if not keep:
            shutil.rmtree(cluster.dir, ignore_errors=True)
    cluster.down = down
    try:
        cluster.up()
    except BaseException:
        down()
        raise

    def logs_to(d):
        for name in os.listdir(cluster.dir):
            if name.endswith(".log"):
                shutil.copy(os.path.join(cluster.dir, name), d)
    cluster.logs_to = logs_to
    return cluster


def run(args):
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    kinds = args.nemesis.split(",") if args.nemesis else list(
        nem.SINGLE_BROKER_NEMESES if args.brokers == 1 else nem.NEMESES)
    allowed = nem.SINGLE_BROKER_NEMESES if args.brokers == 1 else nem.NEMESES
    for k in kinds:
        if k not in allowed:
            raise ValueError("unknown nemesis %r for %d broker(s) (known: %s)"
                             % (k, args.brokers, ", ".join(allowed)))
    args.kinds = kinds
    print("seed %d, nemeses %s, %d s" % (args.seed, ",".join(kinds), args.seconds), flush=True)
    if args.brokers > 1:
        nem.filters_reset()
    isolation = "read_committed" if args.transactional else "read_uncommitted"
    servers = start_servers(args, args.out)
    history = History(os.path.join(args.out, "history.jsonl"))
    clients, producers = [], []
    nemesis = nem.Nemesis(servers, history, rng, TOPIC, args.partitions)
    counts = {}
    unanswered = None
    finished = False  # the final read is in the history
    try:
        replicas = min(3, args.brokers)
        admin = AdminClient({"bootstrap.servers": servers.bootstrap})
        configs = {"durability": args.durability}
        if args.compact:
            configs.update(COMPACT_CONFIGS)
        if replicas > 1:
            configs["min.insync.replicas"] = "2"
        admin.create_topics([NewTopic(TOPIC, args.partitions, replicas, config=configs)])[
            TOPIC].result(60)
        wait_until("topic %s ready" % TOPIC,
                   lambda: topic_ready(servers.bootstrap, args.partitions, replicas))

        keys = COMPACT_KEYS if args.compact else 0
        readers = [workload.Reader(history, "r0", servers.bootstrap, TOPIC, args.partitions,
                                   isolation)]
        members = [workload.GroupMember(history, "g%d" % i, servers.bootstrap, TOPIC,
                                        "fault-group", isolation) for i in range(2)]
        if args.transactional:
            producers = [workload.TxnProducer(history, "p%d" % i, servers.bootstrap, TOPIC,
                                              args.partitions, args.rate, keys)
                         for i in range(2)]
        else:
            conf = {"enable.idempotence": True} if args.idempotent else None
            producers = [workload.Producer_(history, "p%d" % i, servers.bootstrap, TOPIC,
                                            args.partitions, args.rate, conf, keys)
                         for i in range(2)]
        clients = readers + members
        for c in clients:
            c.start()
        wait_until("the first acknowledgements", lambda: any(
            r.positions for r in readers))
        # The group reads before the faults begin (its first join waits
        # group.initial.rebalance.delay.ms), so its commits face them too.
        wait_until("every partition assigned in the group", lambda: sorted(
            p for m in members for p in m.assigned) == list(range(args.partitions)))

        deadline = time.monotonic() + args.seconds
        # Every kind once, in a seeded order, then seeded choices.
        schedule = rng.sample(kinds, len(kinds))
        while time.monotonic() < deadline or schedule:
            kind = schedule.pop(0) if schedule else rng.choice(kinds)
            hold = rng.uniform(*HOLD[kind])
            end = nemesis.inject(kind)
            if end is not None:
                counts[kind] = counts.get(kind, 0) + 1
                time.sleep(hold)  # the fault's duration: the run's schedule, not a wait for state
                end()
            time.sleep(rng.uniform(0.5, 2.0))
        nemesis.heal()
        history.record("healed", "nemesis")

        wait_until("every broker registered and every partition led",
                   lambda: topic_ready(servers.bootstrap, args.partitions, 1))
        unanswered = sum(p.stop(WAIT_S) for p in producers)
        ends = wait_until("the high watermarks", lambda: high_watermarks(servers.bootstrap,
                                                                          args.partitions))
        try:
            wait_until("the readers at the high watermark", lambda: caught_up(readers, members, ends),
                       timeout=args.unseen_after)
        except RuntimeError:
            pass  # what they did not see by now is counted as unseen
        for c in clients:
            c.stop()
        clients = []
        final_read(history, servers.bootstrap, args.partitions, isolation)
        finished = True
    finally:
        for c in clients + producers:
            c.running = False
        try:
            nemesis.heal()  # a fault still in force after an error: undone first
        except Exception as e:  # noqa: BLE001 - best effort, the run failed already
            print("run.py: healing after an error: %s" % e, file=sys.stderr)
        history.close()
        report = None
        try:
            report = checker.check(load(history.path),
                                   idempotent=args.idempotent or args.transactional)
        finally:
            verdict = {"seed": args.seed, "seconds": args.seconds, "nemeses": kinds,
                       "faults": counts, "brokers": args.brokers,
                       "durability": args.durability, "idempotent": args.idempotent,
                       "transactional": args.transactional, "compact": args.compact,
                       "unanswered_sends": unanswered,
                       # False: the run broke off before its final read, so
                       # the checker's counts say nothing.
                       "carried_out": finished}
            if report is not None:
                report.faults = counts
                verdict.update(report.to_dict())
                verdict["passed"] = report.passed
            with open(os.path.join(args.out, "verdict.json"), "w") as f:
                json.dump(verdict, f, indent=1)
            if report is None or not report.passed or not finished:
                servers.logs_to(args.out)  # failed, or not carried out
            try:
                servers.down()
            finally:
                if args.brokers > 1:
                    nem.filters_remove()
    print("faults: %s; producers' sends unanswered at the end: %s" % (
        ", ".join("%s %d" % kv for kv in sorted(counts.items())) or "none", unanswered))
    print(report.summary())
    return report


# How long each kind of fault stays in force (seconds): a pause outlasts the
# 2 s broker session so the paused leader is replaced.
HOLD = {"kill-leader": (0.5, 3), "kill-follower": (0.5, 3), "kill-controller": (0.5, 3),
        "kill-random": (0.5, 3), "pause": (3, 5), "partition": (2, 5),
        "partition-etcd": (2, 5), "one-way": (2, 5), "power-cut": (0.5, 3),
        "kill-etcd": (1, 4), "disk-full": (4, 6)}


def main_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=30,
                    help="how long faults are injected (at least one of each kind)")
    ap.add_argument("--seed", type=int, default=None, help="replay a run (default: random)")
    ap.add_argument("--nemesis", default="", help="comma-separated kinds (default: all)")
    ap.add_argument("--brokers", type=int, default=3, choices=(1, 3))
    ap.add_argument("--partitions", type=int, default=3)
    ap.add_argument("--rate", type=float, default=100, help="messages/s per producer (2)")
    ap.add_argument("--durability", default="fsync", choices=("fsync", "replicated"))
    ap.add_argument("--idempotent", action="store_true",
                    help="idempotent producers (enable.idempotence); duplicates then fail the run")
    ap.add_argument("--transactional", action="store_true",
                    help="transactional producers and read_committed consumers; aborted "
                         "reads, torn transactions and duplicates then fail the run")
    ap.add_argument("--compact", action="store_true",
                    help="a compacted topic with keyed sends: the log cleaner runs under the "
                         "faults, and only superseded records may be missing")
    ap.add_argument("--unseen-after", type=float, default=30,
                    help="seconds after healing that consumers get to see every message")
    ap.add_argument("--out", default=None, help="where to keep the history (default: a temp dir)")
    args = ap.parse_args(argv)
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 31)
    if args.out is None:
        import tempfile
        args.out = tempfile.mkdtemp(prefix="strata-fault-")
    return args


def main(argv=None):
    args = main_args(argv)
    try:
        report = run(args)
    except (RuntimeError, ValueError) as e:
        print("run.py: %s (seed %d, history in %s)" % (e, args.seed, args.out), file=sys.stderr)
        return 2
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
