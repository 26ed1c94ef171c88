"""Consumer groups with confluent-kafka (librdkafka) against a real broker.

Group members are separate processes (group_member.py) that print every
assignment change and every message they process as JSON lines; the tests
wait on those events (bounded), kill and close members, and check what the
members saw against what was produced and against the broker's own view of
the group (ListGroups/DescribeGroups through AdminClient.list_groups and
kafka-python's KafkaAdminClient).

  a. three members split a 6-partition topic; one is SIGKILLed, its
     partitions go to the survivors and no message is lost
  b. a graceful leave (close) rebalances long before the session timeout
  c. a static member (group.instance.id) restarted within its session timeout
     gets its partitions back without the other member seeing a rebalance
  d. range, roundrobin and cooperative-sticky groups
  e. committed offsets survive a SIGKILL of the broker; running members
     rejoin the restarted broker and lose nothing
  f. three groups read one topic independently
  g. admin: list/describe groups, group offsets, delete groups
"""
import json
import os
import shutil
import struct
import subprocess
import tempfile
import threading
import time
import unittest

from confluent_kafka import Consumer, KafkaError, TopicPartition
from kafka.admin import KafkaAdminClient
from kafka.errors import GroupIdNotFoundError, NoError, NonEmptyGroupError
from kafka.structs import TopicPartition as KpTopicPartition

from harness import Broker
from test_confluent import admin, create_topic, produce_all

HERE = os.path.dirname(os.path.abspath(__file__))
MEMBER_SCRIPT = os.path.join(HERE, "group_member.py")
PYTHON = "/usr/bin/python3"
TIMEOUT_S = 30          # any one wait for a group to settle or messages to arrive
SESSION_TIMEOUT_MS = 6000  # the broker's minimum
NO_DELAY = ["--set", "group.initial.rebalance.delay.ms=0"]


# -- waiting ------------------------------------------------------------------

class Hub:
    """One condition for everything a test waits on: member events arrive
    under it; waits re-check their predicate on every event and at least
    every 0.2 s (for what no event announces: a process exit, a broker log
    line)."""

    def __init__(self):
        self.cond = threading.Condition()

    def wait(self, predicate, timeout, what, diag=lambda: ""):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                result = predicate()
                if result:
                    return result
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("%s: not within %.0f s\n%s" % (what, timeout, diag()))
                self.cond.wait(min(left, 0.2))


def bounded(fn, timeout=TIMEOUT_S, what="call"):
    """Runs fn() in a thread and returns its result or raises its exception;
    fails if it has not returned within `timeout` (kafka-python's admin
    client loops forever on some failures)."""
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: B902 - re-raised in the caller
            box["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        raise AssertionError("%s did not return within %d s" % (what, timeout))
    if "error" in box:
        raise box["error"]
    return box["value"]


# -- members ------------------------------------------------------------------

class EventProcess:
    """A child process that prints one JSON event per line on stdout, read
    by a thread into `events` under the hub's condition; its stderr goes to
    a file that failure messages quote."""

    def __init__(self, hub, name, argv, workdir, cwd=HERE):
        self.hub, self.name = hub, name
        self.events = []
        self.eof = False
        self.stderr_path = os.path.join(workdir, "%s.stderr" % name)
        self.stderr = open(self.stderr_path, "w")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, cwd=cwd)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                event = {"event": "garbage", "line": line.decode(errors="replace")}
            with self.hub.cond:
                self.events.append(event)
                self.hub.cond.notify_all()
        with self.hub.cond:
            self.eof = True
            self.hub.cond.notify_all()

    def of(self, *kinds):
        return [e for e in self.events if e["event"] in kinds]

    def exited(self):
        return self.proc.poll() is not None and self.eof

    def close(self):
        """Asks the process to close its consumer and exit."""
        self.proc.stdin.write(b"close\n")
        self.proc.stdin.flush()

    def kill(self):
        self.proc.kill()
        self.proc.wait(TIMEOUT_S)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(TIMEOUT_S)
        self.reader.join(TIMEOUT_S)
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self.stderr.close()

    def diag(self, events=25, stderr_chars=3000):
        with open(self.stderr_path, errors="replace") as f:
            err = f.read()
        shown = [e for e in self.events if e["event"] not in ("message", "stats", "committed")][-events:]
        shown += self.of("stats")[-1:]
        n = len(self.of("message"))
        return ("--- %s (pid %d, exit %r): %d message(s); last other events:\n%s\n"
                "--- its stderr (tail):\n%s\n" % (
                    self.name, self.proc.pid, self.proc.poll(), n,
                    "\n".join(json.dumps(e) for e in shown), err[-stderr_chars:]))


class Member(EventProcess):
    """A group_member.py process (confluent-kafka) and the events it printed."""

    def __init__(self, hub, broker, workdir, name, group, topics, strategy="range",
                 instance_id=None, session_timeout_ms=SESSION_TIMEOUT_MS, debug="cgrp"):
        args = [PYTHON, MEMBER_SCRIPT, "--bootstrap", broker.bootstrap, "--group", group,
                "--client-id", name, "--strategy", strategy,
                "--session-timeout-ms", str(session_timeout_ms)]
        for t in topics:
            args += ["--topic", t]
        if instance_id:
            args += ["--instance-id", instance_id]
        if debug:
            args += ["--debug", debug]
        super().__init__(hub, name, args, workdir)

    # What the member saw (call under hub.cond or after it exited).
    @property
    def assignment(self):
        """The partitions the member owns now, as {(topic, partition)}, or
        None before its first rebalance callback."""
        changes = self.of("assign", "revoke", "lost")
        return None if not changes else {tuple(tp) for tp in changes[-1]["assignment"]}

    def rebalances(self):
        return self.of("assign", "revoke", "lost")

    def messages(self):
        return [(e["topic"], e["partition"], e["offset"], e["value"]) for e in self.of("message")]

    def values(self):
        return [e["value"] for e in self.of("message")]

    def committed(self):
        """{(topic, partition): highest offset committed}."""
        out = {}
        for e in self.of("committed"):
            for t, p, o in e["offsets"]:
                out[(t, p)] = max(o, out.get((t, p), -1))
        return out


def split_of(members, partitions):
    """True when every member owns at least one partition and together they
    own each of `partitions` exactly once."""
    owned = [m.assignment for m in members]
    if any(not a for a in owned):
        return False
    return sorted(tp for a in owned for tp in a) == sorted(partitions)


# -- the broker's view -----------------------------------------------------------

def parse_assignment(data):
    """ConsumerProtocol Assignment (version, [topic, [partition]], user data)
    -> {(topic, partition)}."""
    if not data:
        return set()
    off = 2
    (n,) = struct.unpack_from(">i", data, off)
    off += 4
    out = set()
    for _ in range(n):
        (ln,) = struct.unpack_from(">h", data, off)
        off += 2
        topic = data[off:off + ln].decode()
        off += ln
        (k,) = struct.unpack_from(">i", data, off)
        off += 4
        for _ in range(k):
            out.add((topic, struct.unpack_from(">i", data, off)[0]))
            off += 4
    return out


def describe(broker, group):
    """The group as confluent's AdminClient.list_groups(group) reports it
    (DescribeGroups), or None when the broker does not know it."""
    groups = admin(broker).list_groups(group, timeout=TIMEOUT_S)
    found = [g for g in groups if g.id == group]
    return found[0] if found else None


def group_state(broker, group):
    g = describe(broker, group)
    return None if g is None else g.state


def group_log_lines(broker, group, marker):
    return [line for line in broker.log().splitlines() if ("group %s:" % group) in line and marker in line]


class MemberProcessTest(unittest.TestCase):
    """A broker, a work directory and a hub for group members that run as
    their own processes (stopped, and the directory removed, afterwards)."""

    broker_args = NO_DELAY
    workdir_prefix = "strata-groups-"

    def setUp(self):
        self.broker = Broker(extra_args=self.broker_args).start()
        self.workdir = tempfile.mkdtemp(prefix=self.workdir_prefix)
        self.hub = Hub()
        self.members = []

    def tearDown(self):
        for m in self.members:
            m.stop()
        self.broker.__exit__(None, None, None)
        if not os.environ.get("STRATA_KEEP_TEST_DIRS"):
            shutil.rmtree(self.workdir, ignore_errors=True)

    def member(self, name, group, topics, **kw):
        """A group_member.py member (Debian's confluent-kafka, classic protocol)."""
        m = Member(self.hub, self.broker, self.workdir, name, group, topics, **kw)
        self.members.append(m)
        return m

    def diag(self):
        log = self.broker.log() if self.broker.log_path else ""
        group_lines = [ln for ln in log.splitlines() if "group" in ln or "error" in ln or "warn" in ln]
        return ("".join(m.diag() for m in self.members) +
                "--- broker log (group lines, tail):\n" + "\n".join(group_lines[-40:]) + "\n")

    def wait(self, predicate, what, timeout=TIMEOUT_S):
        return self.hub.wait(predicate, timeout, what, self.diag)

    def wait_values(self, members, values, what, timeout=TIMEOUT_S):
        """Until every one of `values` was processed by one of `members`."""
        want = set(values)
        self.wait(lambda: want <= {e["value"] for m in members for e in m.of("message")},
                  "%s: %d produced message(s) processed" % (what, len(want)), timeout)

    def wait_exit(self, member, timeout=TIMEOUT_S):
        self.wait(member.exited, "member %s exits" % member.name, timeout)


class GroupsTest(MemberProcessTest):

    # helpers

    def wait_split(self, members, partitions, what, timeout=TIMEOUT_S):
        self.wait(lambda: split_of(members, partitions),
                  "%s: each of %d partitions owned by exactly one of %s" % (
                      what, len(partitions), [m.name for m in members]), timeout)

    def produce(self, topic, partitions, prefix, n):
        """n messages round-robin over the partitions; returns
        [(value, partition, offset)] from the delivery reports."""
        msgs = [{"value": ("%s-%d" % (prefix, i)).encode(), "partition": i % partitions}
                for i in range(n)]
        reports = produce_all(self.broker, topic, msgs)
        self.assertEqual([r.error for r in reports], [None] * n)
        return [(m["value"].decode(), r.partition, r.offset) for m, r in zip(msgs, reports)]

    def assert_broker_view(self, group, members, protocol):
        """DescribeGroups agrees with the members: Stable, the chosen
        protocol, one entry per member (by client id) holding the partitions
        that member reported."""
        g = describe(self.broker, group)
        self.assertIsNotNone(g, "group %s not described" % group)
        self.assertEqual((g.state, g.protocol_type, g.protocol), ("Stable", "consumer", protocol))
        by_client = {m.client_id: parse_assignment(m.assignment) for m in g.members}
        self.assertEqual(by_client, {m.name: m.assignment for m in members})
        return g

    def fresh_stats(self, member):
        """librdkafka's cgrp statistics from a report made after this call
        (they come every 250 ms)."""
        with self.hub.cond:
            n = len(member.events)
        self.wait(lambda: any(e["event"] == "stats" for e in member.events[n:]),
                  "a statistics report from %s" % member.name)
        return [e for e in member.events[n:] if e["event"] == "stats"][0]["cgrp"]

    # a. -----------------------------------------------------------------------

    def test_sigkilled_member_partitions_go_to_survivors_and_nothing_is_lost(self):
        topic, group, n = "a-six", "a-group", 6
        create_topic(self.broker, topic, n)
        tps = [(topic, p) for p in range(n)]
        ms = [self.member("a%d" % i, group, [topic]) for i in range(3)]
        self.wait_split(ms, tps, "three members")
        self.assert_broker_view(group, ms, "range")
        first = self.produce(topic, n, "before", 120)
        self.wait_values(ms, [v for v, _, _ in first], "before the kill")
        # Stable group, no failure: each message exactly once, by its owner.
        for m in ms:
            self.assertEqual(sorted((t, p) for t, p, _, _ in m.messages()),
                             sorted((topic, p) for _, p, _ in first if (topic, p) in m.assignment), m.name)

        victim = ms[1]
        lost = victim.assignment
        victim.kill()
        survivors = [ms[0], ms[2]]
        second = self.produce(topic, n, "after", 120)
        # The session timeout (6 s) expires, the survivors rejoin and share
        # all six partitions; the victim's partitions are now theirs.
        self.wait_split(survivors, tps, "survivors after SIGKILL of %s" % victim.name,
                        timeout=SESSION_TIMEOUT_MS / 1000 + TIMEOUT_S)
        self.assertTrue(lost <= survivors[0].assignment | survivors[1].assignment)
        self.wait_values(ms, [v for v, _, _ in first + second], "after the kill")
        # At least once: every (partition, offset) produced was processed.
        seen = {(p, o) for m in ms for _, p, o, _ in m.messages()}
        self.assertEqual({(p, o) for _, p, o in first + second} - seen, set())
        expired = group_log_lines(self.broker, group, "missed its session timeout")
        self.assertTrue(any(("member %s-" % victim.name) in ln for ln in expired),
                        "no session expiry of %s in the broker log:\n%s" % (victim.name, self.diag()))
        self.assert_broker_view(group, survivors, "range")

    # b. -----------------------------------------------------------------------

    def test_graceful_leave_rebalances_before_the_session_timeout(self):
        topic, group, n = "b-four", "b-group", 4
        session_ms = 60000
        create_topic(self.broker, topic, n)
        tps = [(topic, p) for p in range(n)]
        stay = self.member("b-stay", group, [topic], session_timeout_ms=session_ms)
        go = self.member("b-go", group, [topic], session_timeout_ms=session_ms)
        self.wait_split([stay, go], tps, "two members")
        rebalances_before = len(stay.rebalances())
        go.close()
        self.wait(lambda: go.of("closed"), "b-go closes")
        self.wait_exit(go)
        # Well inside the 60 s session timeout: only LeaveGroup can explain it.
        deadline_s = session_ms / 1000 / 3
        self.wait(lambda: stay.assignment == set(tps),
                  "b-stay owns every partition after b-go left", timeout=deadline_s)
        self.assertGreater(len(stay.rebalances()), rebalances_before)
        left = group_log_lines(self.broker, group, " left")
        self.assertTrue(any("member b-go-" in ln for ln in left),
                        "no LeaveGroup of b-go in the broker log:\n" + self.diag())
        self.assertEqual(group_log_lines(self.broker, group, "missed its session timeout"), [])
        values = self.produce(topic, n, "after-leave", 40)
        self.wait_values([stay], [v for v, _, _ in values], "b-stay reads everything")
        self.assert_broker_view(group, [stay], "range")

    # c. -----------------------------------------------------------------------

    def test_static_member_restart_gets_its_partitions_back_without_a_rebalance(self):
        topic, group, n = "c-four", "c-group", 4
        create_topic(self.broker, topic, n)
        tps = [(topic, p) for p in range(n)]
        # The dynamic member first, so it is the leader; a static follower's
        # return does not need a new assignment.
        other = self.member("c-other", group, [topic])
        self.wait(lambda: other.assignment == set(tps), "c-other owns everything alone")
        static = self.member("c-static", group, [topic], instance_id="c-instance",
                             session_timeout_ms=30000)
        self.wait_split([other, static], tps, "dynamic + static member")
        values = self.produce(topic, n, "one", 40)
        self.wait_values([other, static], [v for v, _, _ in values], "both read")
        static_partitions = static.assignment
        other_partitions = other.assignment
        other_changes = len(other.rebalances())
        generations = group_log_lines(self.broker, group, "generation")
        other_rebalance_cnt = self.fresh_stats(other)["rebalance_cnt"]
        self.assertEqual(other_rebalance_cnt, other_changes)  # librdkafka counts each assign and revoke

        static.close()
        self.wait(lambda: static.of("closed"), "c-static closes")
        self.wait_exit(static)
        # A static member does not send LeaveGroup on close.
        self.assertEqual(group_log_lines(self.broker, group, " left"), [],
                         "the static member left the group on close:\n" + self.diag())

        again = self.member("c-static-again", group, [topic], instance_id="c-instance",
                            session_timeout_ms=30000)
        self.wait(lambda: again.assignment is not None, "the restarted static member is assigned")
        self.assertEqual(again.assignment, static_partitions)
        # No new generation: its JoinGroup was answered from the current one.
        self.assertEqual(group_log_lines(self.broker, group, "generation"), generations)
        values = self.produce(topic, n, "two", 40)
        self.wait_values([other, again], [v for v, _, _ in values], "both read after the restart")
        self.assertEqual({(t, p) for t, p, _, _ in again.messages()}, static_partitions)
        # The other member saw nothing: no callback, same rebalance count.
        stats = self.fresh_stats(other)
        self.assertEqual(len(other.rebalances()), other_changes,
                         "c-other saw a rebalance: %s" % other.rebalances()[other_changes:])
        self.assertEqual(other.assignment, other_partitions)
        self.assertEqual((stats["rebalance_cnt"], stats["join_state"], stats["assignment_size"]),
                         (other_rebalance_cnt, "steady", len(other_partitions)))
        self.assertEqual(group_log_lines(self.broker, group, "generation"), generations)
        g = describe(self.broker, group)
        self.assertEqual(g.state, "Stable")
        self.assertEqual(sorted(m.client_id for m in g.members), ["c-other", "c-static-again"])

    def test_sigkilled_static_leader_restart_rebalances_nobody(self):
        # KIP-345/KIP-814: the leader is static too; killed and restarted
        # within its session timeout it gets a new member id and its old
        # partitions, and the other member sees no revocation. Under
        # cooperative-sticky its subscription now lists no owned partitions:
        # that is no reason to rebalance either.
        for strategy in ("range", "cooperative-sticky"):
            with self.subTest(strategy=strategy):
                self.static_leader_restart(strategy)

    def static_leader_restart(self, strategy):
        topic, group, n = "c-leader-" + strategy, "c-leader-group-" + strategy, 4
        create_topic(self.broker, topic, n)
        tps = [(topic, p) for p in range(n)]
        leader = self.member("c-leader", group, [topic], instance_id="c-leader-instance",
                             session_timeout_ms=30000, strategy=strategy)
        self.wait(lambda: leader.assignment == set(tps), "c-leader owns everything alone")
        other = self.member("c-follower", group, [topic], instance_id="c-follower-instance",
                            session_timeout_ms=30000, strategy=strategy)
        self.wait_split([leader, other], tps, "two static members")
        values = self.produce(topic, n, "one", 40)
        self.wait_values([leader, other], [v for v, _, _ in values], "both read")
        leader_partitions, other_partitions = leader.assignment, other.assignment
        other_changes = len(other.rebalances())
        generations = group_log_lines(self.broker, group, "generation")
        old_ids = {m.client_id: m.id for m in describe(self.broker, group).members}

        leader.kill()
        again = self.member("c-leader-again", group, [topic], instance_id="c-leader-instance",
                            session_timeout_ms=30000, strategy=strategy)
        self.wait(lambda: again.assignment is not None, "the restarted leader is assigned")
        self.assertEqual(again.assignment, leader_partitions)
        values = self.produce(topic, n, "two", 40)
        self.wait_values([other, again], [v for v, _, _ in values], "both read after the restart")
        self.assertEqual({(t, p) for t, p, _, _ in again.messages()}, leader_partitions)
        self.assertEqual(len(other.rebalances()), other_changes,
                         "c-follower saw a rebalance: %s\n%s" % (other.rebalances()[other_changes:],
                                                                 self.diag()))
        self.assertEqual(other.assignment, other_partitions)
        self.assertEqual(group_log_lines(self.broker, group, "generation"), generations)
        g = describe(self.broker, group)
        self.assertEqual(g.state, "Stable")
        ids = {m.client_id: m.id for m in g.members}
        self.assertEqual(sorted(ids), ["c-follower", "c-leader-again"])
        # A new member id for the restarted instance; the follower keeps its own.
        self.assertNotEqual(ids["c-leader-again"], old_ids["c-leader"])
        self.assertEqual(ids["c-follower"], old_ids["c-follower"])

    # d. -----------------------------------------------------------------------

    def test_assignment_strategies(self):
        for strategy in ("range", "roundrobin", "cooperative-sticky"):
            with self.subTest(strategy=strategy):
                self.check_strategy(strategy)

    def check_strategy(self, strategy):
        """Three members with `strategy` split a 5-partition topic as the
        assignor's rules say, read everything once, close, and the group is
        Empty."""
        n = 5
        topic = group = "d-" + strategy
        create_topic(self.broker, topic, n)
        tps = [(topic, p) for p in range(n)]
        ms = [self.member("d%d-%s" % (i, strategy), group, [topic], strategy=strategy)
              for i in range(3)]
        self.wait_split(ms, tps, strategy)
        g = self.assert_broker_view(group, ms, strategy)
        # The assignors' own rules, over the members sorted by id.
        order = [m.client_id for m in sorted(g.members, key=lambda m: m.id)]
        by_name = {m.name: m for m in ms}
        if strategy == "range":
            want = {}
            per, extra = divmod(n, 3)
            start = 0
            for i, name in enumerate(order):
                k = per + (1 if i < extra else 0)
                want[name] = {(topic, p) for p in range(start, start + k)}
                start += k
        elif strategy == "roundrobin":
            want = {name: {(topic, p) for p in range(n) if p % 3 == i} for i, name in enumerate(order)}
        else:
            want = None
            self.assertEqual(sorted(len(m.assignment) for m in ms), [1, 2, 2])
        if want is not None:
            self.assertEqual({name: by_name[name].assignment for name in order}, want)
        values = self.produce(topic, n, strategy, 60)
        self.wait_values(ms, [v for v, _, _ in values], strategy)
        for m in ms:
            got = sorted((p, o) for _, p, o, _ in m.messages())
            self.assertEqual(got, sorted((p, o) for _, p, o in values if (topic, p) in m.assignment),
                             m.name)
        for m in ms:
            m.close()
        for m in ms:
            self.wait_exit(m)
        self.wait(lambda: group_state(self.broker, group) == "Empty",
                  "%s is Empty after every member closed" % group)

    # e. -----------------------------------------------------------------------

    def test_committed_offsets_survive_broker_sigkill(self):
        topic, group, n = "e-offsets", "e-group", 2
        create_topic(self.broker, topic, n)
        values = self.produce(topic, n, "e", 60)
        ends = {p: sum(1 for _, q, _ in values if q == p) for p in range(n)}
        quota = {0: 13, 1: 7}
        conf = {"bootstrap.servers": self.broker.bootstrap, "group.id": group,
                "enable.auto.commit": False, "auto.offset.reset": "earliest",
                "session.timeout.ms": SESSION_TIMEOUT_MS, "heartbeat.interval.ms": 500,
                "fetch.wait.max.ms": 50, "enable.partition.eof": True}
        c = Consumer(conf)
        processed = {p: [] for p in range(n)}
        try:
            c.subscribe([topic])
            deadline = time.monotonic() + TIMEOUT_S
            while any(len(processed[p]) < quota[p] for p in range(n)):
                self.assertLess(time.monotonic(), deadline, "consumed %s of %s" % (processed, quota))
                m = c.poll(0.2)
                if m is None or (m.error() and m.error().code() == KafkaError._PARTITION_EOF):
                    continue
                self.assertIsNone(m.error())
                p = m.partition()
                if len(processed[p]) >= quota[p]:
                    continue  # past the quota: neither processed nor committed
                processed[p].append(m.offset())
                res = c.commit(message=m, asynchronous=False)
                self.assertEqual([(tp.partition, tp.offset, tp.error) for tp in res],
                                 [(p, m.offset() + 1, None)])
            committed = {p: processed[p][-1] + 1 for p in range(n)}
            for p in range(n):
                self.assertEqual(processed[p], list(range(quota[p])))
            # Every commit was acknowledged: kill the broker at once.
            self.broker.kill()
            self.broker.start()
        finally:
            bounded(c.close, what="closing the first consumer")

        c2 = Consumer(dict(conf, **{"client.id": "e-second"}))
        try:
            tps = [TopicPartition(topic, p) for p in range(n)]
            got = c2.committed(tps, timeout=TIMEOUT_S)
            self.assertEqual([(tp.partition, tp.offset, tp.error) for tp in got],
                             [(p, committed[p], None) for p in range(n)])
            c2.subscribe([topic])
            seen = {p: [] for p in range(n)}
            eof = set()
            deadline = time.monotonic() + TIMEOUT_S
            while len(eof) < n:
                self.assertLess(time.monotonic(), deadline, "second consumer read %s" % seen)
                m = c2.poll(0.2)
                if m is None:
                    continue
                if m.error():
                    self.assertEqual(m.error().code(), KafkaError._PARTITION_EOF, str(m.error()))
                    if m.offset() >= ends[m.partition()]:
                        eof.add(m.partition())
                    continue
                seen[m.partition()].append(m.offset())
            for p in range(n):
                self.assertEqual(seen[p], list(range(committed[p], ends[p])), "partition %d" % p)
        finally:
            bounded(c2.close, what="closing the second consumer")

    def test_members_rejoin_after_broker_sigkill_and_nothing_is_lost(self):
        topic, group, n = "e-rejoin", "e-rejoin-group", 4
        create_topic(self.broker, topic, n)
        tps = [(topic, p) for p in range(n)]
        ms = [self.member("e-m%d" % i, group, [topic]) for i in range(2)]
        self.wait_split(ms, tps, "two members")
        first = self.produce(topic, n, "pre", 40)
        self.wait_values(ms, [v for v, _, _ in first], "before the broker restart")
        ends = {(topic, p): 1 + max(o for _, q, o in first if q == p) for p in range(n)}
        self.wait(lambda: {k: v for m in ms for k, v in m.committed().items()} == ends,
                  "the members committed the end offsets")
        generations = [int(ln.split("generation ")[1].split()[0])
                       for ln in group_log_lines(self.broker, group, "generation")]
        changes = [len(m.rebalances()) for m in ms]
        self.broker.kill()
        self.broker.start()
        # The group comes back without members: both rejoin, in a generation
        # after every one before the restart, and split the partitions again.
        self.wait(lambda: all(len(m.rebalances()) > c for m, c in zip(ms, changes)) and split_of(ms, tps),
                  "both members reassigned after the broker restart",
                  timeout=SESSION_TIMEOUT_MS / 1000 + TIMEOUT_S)
        after = [int(ln.split("generation ")[1].split()[0])
                 for ln in group_log_lines(self.broker, group, "generation")]
        self.assertTrue(after and min(after) > max(generations), (generations, after))
        second = self.produce(topic, n, "post", 40)
        self.wait_values(ms, [v for v, _, _ in first + second], "after the broker restart")
        seen = {(p, o) for m in ms for _, p, o, _ in m.messages()}
        self.assertEqual({(p, o) for _, p, o in first + second} - seen, set())
        # Nothing committed before the restart is read again.
        redelivered = [(m.name, p, o) for m in ms for e in m.of("message")
                       for p, o in [(e["partition"], e["offset"])] if o < ends[(topic, p)]]
        self.assertEqual(len(redelivered), len(first), "re-read after the restart: %s" % redelivered[len(first):])
        self.assert_broker_view(group, ms, "range")

    # f. -----------------------------------------------------------------------

    def test_three_groups_read_independently(self):
        topic, n = "f-three", 3
        create_topic(self.broker, topic, n)
        first = self.produce(topic, n, "f1", 90)
        ms = [self.member("f-member-%d" % i, "f-group-%d" % i, [topic]) for i in range(3)]
        self.wait_values(ms[:1], [v for v, _, _ in first], "f-group-0")
        self.wait_values(ms[1:2], [v for v, _, _ in first], "f-group-1")
        self.wait_values(ms[2:], [v for v, _, _ in first], "f-group-2")
        second = self.produce(topic, n, "f2", 60)
        everything = first + second
        for m in ms:
            self.wait_values([m], [v for v, _, _ in everything], m.name)
        ends = {(topic, p): 1 + max(o for _, q, o in everything if q == p) for p in range(n)}
        for m in ms:
            self.wait(lambda m=m: m.committed() == ends, "%s committed the end offsets" % m.name)
        for m in ms:
            # Exactly once each: no duplicate, nothing missing.
            self.assertEqual(sorted((p, o) for _, p, o, _ in m.messages()),
                             sorted((p, o) for _, p, o in everything), m.name)
            self.assertEqual(m.assignment, {(topic, p) for p in range(n)})
            self.assertEqual(len(m.rebalances()), 1, m.name)
        # Each group's offsets, as the broker serves them to a fresh client.
        for i in range(3):
            c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "f-group-%d" % i})
            try:
                got = c.committed([TopicPartition(topic, p) for p in range(n)], timeout=TIMEOUT_S)
                self.assertEqual({(tp.topic, tp.partition): tp.offset for tp in got}, ends)
            finally:
                c.close()

    # g. -----------------------------------------------------------------------

    def test_admin_list_describe_offsets_and_delete(self):
        topic, group, n = "g-topic", "g-group", 4
        create_topic(self.broker, topic, n)
        ms = [self.member("g%d" % i, group, [topic], strategy="roundrobin") for i in range(2)]
        self.wait_split(ms, [(topic, p) for p in range(n)], "admin group")
        values = self.produce(topic, n, "g", 40)
        self.wait_values(ms, [v for v, _, _ in values], "admin group")
        ends = {(topic, p): 1 + max(o for _, q, o in values if q == p) for p in range(n)}
        self.wait(lambda: {k: v for m in ms for k, v in m.committed().items()} == ends,
                  "the members committed the end offsets")
        # A second, empty group with only commits (no members).
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "g-commits-only"})
        try:
            c.commit(offsets=[TopicPartition(topic, 0, 3)], asynchronous=False)
        finally:
            c.close()

        # confluent-kafka: ListGroups + DescribeGroups.
        listed = {g.id: g for g in admin(self.broker).list_groups(timeout=TIMEOUT_S)}
        self.assertIn(group, listed)
        self.assertIn("g-commits-only", listed)
        g = self.assert_broker_view(group, ms, "roundrobin")
        self.assertEqual(sorted(m.client_id for m in g.members), ["g0", "g1"])
        self.assertTrue(all(m.client_host for m in g.members))
        self.assertEqual(listed[group].state, "Stable")
        self.assertEqual(listed["g-commits-only"].state, "Empty")
        self.assertEqual(listed["g-commits-only"].members, [])

        # kafka-python.
        kp = KafkaAdminClient(bootstrap_servers=self.broker.bootstrap, request_timeout_ms=TIMEOUT_S * 1000)
        try:
            groups = dict(bounded(kp.list_consumer_groups, what="list_consumer_groups"))
            self.assertEqual(groups.get(group), "consumer")
            self.assertEqual(groups.get("g-commits-only"), "")
            (info,) = bounded(lambda: kp.describe_consumer_groups([group]), what="describe_consumer_groups")
            self.assertEqual((info.error_code, info.group, info.state, info.protocol_type, info.protocol),
                             (0, group, "Stable", "consumer", "roundrobin"))
            self.assertEqual(sorted(m.client_id for m in info.members), ["g0", "g1"])
            by_client = {m.client_id: m for m in info.members}
            for m in ms:
                d = by_client[m.name]
                self.assertEqual(list(d.member_metadata.subscription), [topic])
                self.assertEqual({(t, p) for t, ps in d.member_assignment.assignment for p in ps},
                                 m.assignment)
            offsets = bounded(lambda: kp.list_consumer_group_offsets(group), what="list_consumer_group_offsets")
            self.assertEqual({(tp.topic, tp.partition): om.offset for tp, om in offsets.items()}, ends)

            # Members present: NON_EMPTY_GROUP; the group and offsets stay.
            res = bounded(lambda: kp.delete_consumer_groups([group]), what="delete_consumer_groups")
            self.assertEqual(res, [(group, NonEmptyGroupError)])
            self.assertEqual(describe(self.broker, group).state, "Stable")
            offsets = bounded(lambda: kp.list_consumer_group_offsets(group), what="list_consumer_group_offsets")
            self.assertEqual({(tp.topic, tp.partition): om.offset for tp, om in offsets.items()}, ends)

            for m in ms:
                m.close()
            for m in ms:
                self.wait_exit(m)
            self.wait(lambda: group_state(self.broker, group) == "Empty", "%s Empty" % group)
            res = bounded(lambda: kp.delete_consumer_groups([group, "g-commits-only"]),
                          what="delete_consumer_groups")
            self.assertEqual(sorted(res, key=lambda r: r[0]), sorted([(group, NoError), ("g-commits-only", NoError)], key=lambda r: r[0]))
            offsets = bounded(lambda: kp.list_consumer_group_offsets(group), what="list_consumer_group_offsets")
            self.assertEqual(offsets, {})
            offsets = bounded(lambda: kp.list_consumer_group_offsets(
                group, partitions=[KpTopicPartition(topic, p) for p in range(n)]),
                what="list_consumer_group_offsets")
            self.assertEqual({(tp.topic, tp.partition): om.offset for tp, om in offsets.items()},
                             {(topic, p): -1 for p in range(n)})
            groups = dict(bounded(kp.list_consumer_groups, what="list_consumer_groups"))
            self.assertNotIn(group, groups)
            self.assertNotIn("g-commits-only", groups)
            (info,) = bounded(lambda: kp.describe_consumer_groups([group]), what="describe_consumer_groups")
            self.assertEqual((info.error_code, info.state, info.members), (0, "Dead", []))
            res = bounded(lambda: kp.delete_consumer_groups([group]), what="delete_consumer_groups")
            self.assertEqual(res, [(group, GroupIdNotFoundError)])
        finally:
            kp.close()


if __name__ == "__main__":
    unittest.main()
