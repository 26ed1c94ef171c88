"""Consumer groups with kafka-python 2.0.2 (KafkaConsumer with group_id:
JoinGroup v2, no MEMBER_ID_REQUIRED round trip) and kafkajs 2.2.4
(consumer.run with eachMessage, kafkajs/group_consumer.js: JoinGroup with
the v4+ MEMBER_ID_REQUIRED handshake): two members split a topic's
partitions and read everything, their commits survive closing, and the
group resumes after the committed offsets (on three brokers:
test_cluster_groups.py)."""
import os
import shutil
import threading
import unittest

from confluent_kafka import Consumer, TopicPartition
from kafka import KafkaConsumer
from kafka.errors import CommitFailedError

from harness import Broker
from test_confluent import create_topic, produce_all
from test_groups import TIMEOUT_S, EventProcess, Hub, MemberProcessTest, bounded, split_of

HERE = os.path.dirname(os.path.abspath(__file__))
KAFKAJS_DIR = os.path.join(HERE, "kafkajs")
JS_MEMBER = os.path.join(KAFKAJS_DIR, "group_consumer.js")
NO_DELAY = ["--set", "group.initial.rebalance.delay.ms=0"]


def produce(broker, topic, partitions, prefix, n):
    """n messages round-robin over the partitions; [(value, partition, offset)]."""
    msgs = [{"value": ("%s-%d" % (prefix, i)).encode(), "partition": i % partitions} for i in range(n)]
    reports = produce_all(broker, topic, msgs)
    assert [r.error for r in reports] == [None] * n, [r.error for r in reports]
    return [(m["value"].decode(), r.partition, r.offset) for m, r in zip(msgs, reports)]


def ends_of(produced, partitions):
    return {p: 1 + max((o for _, q, o in produced if q == p), default=-1) for p in range(partitions)}


def committed_offsets(broker, group, topic, partitions):
    """{partition: committed offset} served by the broker to a fresh client."""
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group})
    try:
        got = c.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=TIMEOUT_S)
        assert all(tp.error is None for tp in got), got
        return {tp.partition: tp.offset for tp in got}
    finally:
        c.close()


# -- kafka-python -------------------------------------------------------------------

class PolledMember:
    """A group member whose client is polled by its own thread, as an
    application would (a kafka-python JoinGroup blocks inside poll() until
    the rebalance completes, so members cannot share a thread). After each
    poll the thread publishes the assignment and the records under the hub's
    condition. A client supplies `c` (subscribed), poll_once() and
    close_client()."""

    def __init__(self, hub, name):
        self.hub, self.name = hub, name
        self.records = []
        self.commit_failures = []
        self.assigned = set()
        self.error = None
        self.running = True

    def start(self):
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            while self.running:
                records, failure = self.poll_once()
                with self.hub.cond:
                    self.records.extend(records)
                    if failure:
                        self.commit_failures.append(failure)
                    self.assigned = {(tp.topic, tp.partition) for tp in self.c.assignment()}
                    self.hub.cond.notify_all()
        except Exception as e:  # noqa: BLE001 - reported by the waits
            with self.hub.cond:
                self.error = repr(e)
                self.hub.cond.notify_all()

    @property
    def assignment(self):
        return self.assigned

    def close(self):
        """Stops polling, then closes the client."""
        self.running = False
        self.thread.join(TIMEOUT_S)
        assert not self.thread.is_alive(), "%s: poll() did not return within %d s" % (self.name, TIMEOUT_S)
        bounded(self.close_client, what="closing %s" % self.name)


class KpMember(PolledMember):
    """A kafka-python KafkaConsumer in the group; it commits synchronously
    after each poll that returned records, and closes with LeaveGroup and no
    commit."""

    def __init__(self, hub, broker, group, topic, name):
        super().__init__(hub, name)
        self.c = KafkaConsumer(topic, bootstrap_servers=broker.bootstrap, group_id=group, client_id=name,
                               enable_auto_commit=False, auto_offset_reset="earliest",
                               session_timeout_ms=6000, heartbeat_interval_ms=500, fetch_max_wait_ms=50,
                               max_poll_interval_ms=20000, request_timeout_ms=30000)
        self.start()

    def poll_once(self):
        got = self.c.poll(timeout_ms=50)
        failure = None
        if got:
            try:
                self.c.commit()  # synchronous: every position consumed so far
            except CommitFailedError as e:
                failure = str(e)
        return [r for recs in got.values() for r in recs], failure

    def close_client(self):
        self.c.close(autocommit=False)

    def values(self):
        return [r.value.decode() for r in self.records]

    def offsets(self, partition):
        return [r.offset for r in self.records if r.partition == partition]


class KafkaPythonGroupTest(unittest.TestCase):
    def setUp(self):
        self.broker = Broker(extra_args=NO_DELAY).start()
        self.hub = Hub()
        self.members = []

    def tearDown(self):
        for m in self.members:
            try:
                m.close()
            except Exception:  # noqa: BLE001 - the test already failed or passed
                pass
        self.broker.__exit__(None, None, None)

    def member(self, group, topic, name):
        m = KpMember(self.hub, self.broker, group, topic, name)
        self.members.append(m)
        return m

    def wait(self, members, predicate, what, timeout=TIMEOUT_S):
        def diag():
            return "assignments %s, records %s, errors %s\nbroker log (tail):\n%s" % (
                {m.name: sorted(m.assignment) for m in members}, {m.name: len(m.records) for m in members},
                {m.name: m.error for m in members}, "\n".join(self.broker.log().splitlines()[-30:]))
        self.hub.wait(lambda: predicate() or any(m.error for m in members), timeout, what, diag)
        self.assertEqual([m.error for m in members], [None] * len(members), diag())

    def test_two_consumers_split_read_everything_and_commits_survive_reopening(self):
        topic, group, n = "kp-group-topic", "kp-group", 4
        create_topic(self.broker, topic, n)
        tps = [(topic, p) for p in range(n)]
        a, b = self.member(group, topic, "kp-a"), self.member(group, topic, "kp-b")
        self.wait([a, b], lambda: split_of([a, b], tps), "kp-a and kp-b split the partitions")
        first = produce(self.broker, topic, n, "first", 80)
        want = {v for v, _, _ in first}
        self.wait([a, b], lambda: want <= set(a.values()) | set(b.values()), "both read everything")
        for m in (a, b):
            m.close()
        self.members = []
        for m in (a, b):
            # A stable group: each message once, by the owner of its partition.
            self.assertEqual(sorted((r.partition, r.offset) for r in m.records),
                             sorted((p, o) for _, p, o in first if (topic, p) in m.assignment), m.name)
            self.assertEqual(m.commit_failures, [])
        ends = ends_of(first, n)
        self.assertEqual(committed_offsets(self.broker, group, topic, n), ends)

        second = produce(self.broker, topic, n, "second", 20)
        c = self.member(group, topic, "kp-c")
        want = {v for v, _, _ in second}
        self.wait([c], lambda: want <= set(c.values()), "kp-c reads what came after the commits")
        c.close()
        self.members = []
        self.assertEqual(c.assignment, set(tps))
        for p in range(n):
            self.assertEqual(c.offsets(p), [o for _, q, o in second if q == p], "partition %d" % p)
            self.assertEqual(c.offsets(p)[0], ends[p])
        self.assertEqual(committed_offsets(self.broker, group, topic, n), ends_of(first + second, n))


# -- kafkajs ------------------------------------------------------------------------------

class JsMember(EventProcess):
    """kafkajs/group_consumer.js: a kafkajs consumer.run() member."""

    def __init__(self, hub, broker, workdir, group, topic, name, log_level="INFO"):
        super().__init__(hub, name, ["node", JS_MEMBER, broker.bootstrap, group, topic, name, log_level],
                         workdir, cwd=KAFKAJS_DIR)

    @property
    def assignment(self):
        joins = self.of("join")
        if not joins:
            return None
        return {(t, p) for t, ps in joins[-1]["assignment"].items() for p in ps}

    def values(self):
        return [e["value"] for e in self.of("message")]

    def offsets(self, partition):
        return [e["offset"] for e in self.of("message") if e["partition"] == partition]

    def committed(self):
        out = {}
        for e in self.of("committed"):
            out[e["partition"]] = max(e["offset"], out.get(e["partition"], -1))
        return out


class KafkajsGroupTest(MemberProcessTest):
    workdir_prefix = "strata-js-groups-"

    def setUp(self):
        if shutil.which("node") is None:
            self.fail("node is not installed (scripts/setup.sh --tests installs nodejs)")
        if not os.path.isfile(os.path.join(KAFKAJS_DIR, "node_modules", "kafkajs", "package.json")):
            self.fail("kafkajs is not installed: run `npm ci` in tests/integration/kafkajs")
        super().setUp()

    def member(self, group, topic, name):
        m = JsMember(self.hub, self.broker, self.workdir, group, topic, name)
        self.members.append(m)
        return m

    def diag(self):
        lines = [ln for ln in self.broker.log().splitlines() if "group" in ln or "error" in ln or "warn" in ln]
        return "".join(m.diag() for m in self.members) + "--- broker log (tail):\n" + "\n".join(lines[-40:])

    def test_two_members_split_read_commit_and_a_third_run_resumes(self):
        topic, group, n = "js-group-topic", "js-group", 4
        create_topic(self.broker, topic, n)
        tps = [(topic, p) for p in range(n)]
        a, b = self.member(group, topic, "js-a"), self.member(group, topic, "js-b")
        self.wait(lambda: split_of([a, b], tps), "js-a and js-b split the partitions")
        first = produce(self.broker, topic, n, "first", 60)
        want = {v for v, _, _ in first}
        self.wait(lambda: want <= set(a.values()) | set(b.values()), "js-a and js-b read everything")
        ends = ends_of(first, n)
        self.wait(lambda: {**a.committed(), **b.committed()} == ends
                  and set(a.committed()).isdisjoint(b.committed()),
                  "each member committed the end of its partitions")
        for m in (a, b):
            owned = {p for _, p in m.assignment}
            got = sorted((e["partition"], e["offset"]) for e in m.of("message"))
            self.assertEqual(got, sorted((p, o) for _, p, o in first if p in owned), m.name)
            self.assertEqual(m.of("crash"), [], m.name)
        for m in (a, b):
            m.close()
        for m in (a, b):
            self.wait(m.exited, "%s exits" % m.name)
            self.assertEqual((m.proc.returncode, len(m.of("closed"))), (0, 1), m.diag())
        self.assertEqual(committed_offsets(self.broker, group, topic, n), ends)

        # A third run of the group starts after the committed offsets.
        second = produce(self.broker, topic, n, "second", 20)
        c = self.member(group, topic, "js-c")
        want = {v for v, _, _ in second}
        self.wait(lambda: want <= set(c.values()), "js-c reads what came after the commits")
        self.assertEqual(c.assignment, set(tps))
        for p in range(n):
            self.assertEqual(c.offsets(p), [o for _, q, o in second if q == p], "partition %d" % p)
            self.assertEqual(c.offsets(p)[0], ends[p])
        all_ends = ends_of(first + second, n)
        self.wait(lambda: c.committed() == all_ends, "js-c committed the new ends")
        c.close()
        self.wait(c.exited, "js-c exits")
        self.assertEqual(committed_offsets(self.broker, group, topic, n), all_ends)


if __name__ == "__main__":
    unittest.main()
