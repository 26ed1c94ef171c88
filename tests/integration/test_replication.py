"""Replication on three brokers and etcd (scripts/cluster.sh), with
confluent-kafka (librdkafka) producing acks=all without pause while brokers
are killed, paused, cut off and restarted.

What it shows, on RF 3 topics with min.insync.replicas=2: after SIGKILL,
SIGTERM (a controlled shutdown: leaderships handed over before it stops,
and the producer's requests neither time out nor fail but with
NOT_LEADER_OR_FOLLOWER, as librdkafka's own log tells) or SIGSTOP of a
leader, and five kill-restart bounces in a row, a follower
takes over, the producer goes on by itself, and every acknowledged message
is read back at exactly its acknowledged offset; a killed follower leaves
the ISR and writes go on with two, a second one makes acks=all fail with
NOT_ENOUGH_REPLICAS (nothing appended), and both rejoin after they return;
a leader cut off from its followers that took acks=1 writes alone, then was
replaced, truncates that suffix on return; a follower whose log ends
below the leader's log start (DeleteRecords while it was away, to inside
a batch) empties its log, starts again there and holds the leader's
batches from there on; with unclean.leader.election.enable an out-of-sync
replica takes over when every in-sync one is dead (what only they held is
lost), without it the partition waits for one; after each test every replica's
log is the same, byte for byte (strata dump-log); a consumer group's
offsets are intact at once when its coordinator's broker is killed, and its
member goes on; transactions over partitions led by all three brokers
commit exactly what their producer was told committed when the
coordinator's broker is killed inside one; on a compacted topic each
replica's cleaner covers the log on its own (as topic describe reports
it) and the replicas hold the same record at every offset two of them
keep, each key's latest one everywhere. Outcomes only, never
durations: the failover time is measured in bench/.
"""
import json
import logging
import os
import random
import re
import subprocess
import sys
import threading
import time
import unittest

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from cluster import Cluster, ClusterTestCase
from kafka.protocol.api import Request, Response
from kafka.protocol.commit import GroupCoordinatorRequest
from kafka.protocol.types import Array, Int8, Int16, Int32, Int64, Schema, String
from test_cluster import At, WireClient, wait_until
from test_confluent import read_all

TIMEOUT_S = 60
STRATA = os.environ.get("STRATA_CLI", "strata")


def partitions(bootstrap, topic):
    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic=topic, timeout=10)
    return md.topics[topic].partitions


def wait_served(bootstrap, topic, n_partitions):
    """Until every partition's leader answers for it (ListOffsets to the
    leader): a topic just created is known to the controller first, and a
    leader that has not opened its partition yet answers
    UNKNOWN_TOPIC_OR_PARTITION."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "wait-served", "log_level": 0})
    try:
        def served():
            for p in range(n_partitions):
                c.get_watermark_offsets(TopicPartition(topic, p), timeout=5)
            return True
        wait_until("every partition of %s served by its leader" % topic, served, timeout=TIMEOUT_S)
    finally:
        c.close()


def create(bootstrap, name, partitions=1, assignment=None, configs=None):
    configs = dict({"min.insync.replicas": "2"}, **(configs or {}))
    t = (NewTopic(name, len(assignment), -1, replica_assignment=assignment, config=configs)
         if assignment else NewTopic(name, partitions, 3, config=configs))
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([t], request_timeout=TIMEOUT_S)[name].result(TIMEOUT_S)


class DeleteRecordsResponse(Response):
    API_KEY = 21
    API_VERSION = 0
    SCHEMA = Schema(('throttle_time_ms', Int32),
                    ('topics', Array(('name', String('utf-8')), ('partitions', Array(
                        ('partition', Int32), ('low_watermark', Int64), ('error_code', Int16))))))


class DeleteRecordsRequest(Request):
    """DeleteRecords v0 (kafka-python 2.0.2 has none of its own)."""
    API_KEY = 21
    API_VERSION = 0
    RESPONSE_TYPE = DeleteRecordsResponse
    SCHEMA = Schema(('topics', Array(('name', String('utf-8')), ('partitions', Array(
        ('partition', Int32), ('offset', Int64))))), ('timeout_ms', Int32))


class FindCoordinatorResponseV1(Response):
    API_KEY = 10
    API_VERSION = 1
    SCHEMA = Schema(('throttle_time_ms', Int32), ('error_code', Int16),
                    ('error_message', String('utf-8')), ('coordinator_id', Int32),
                    ('host', String('utf-8')), ('port', Int32))


class FindCoordinatorRequestV1(Request):
    """FindCoordinator v1, which takes a key type (kafka-python 2.0.2's
    response schema for v1 lacks throttle_time_ms)."""
    API_KEY = 10
    API_VERSION = 1
    RESPONSE_TYPE = FindCoordinatorResponseV1
    SCHEMA = Schema(('key', String('utf-8')), ('key_type', Int8))


class ClientLog(logging.Handler):
    """The lines a librdkafka client logs (through confluent-kafka's
    `logger`), kept in memory."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []
        self.logger = logging.getLogger("client-log-%d" % id(self))
        self.logger.setLevel(logging.DEBUG)
        self.logger.propagate = False
        self.logger.addHandler(self)

    def emit(self, record):
        with self.lock:  # logging.Handler's own
            self.lines.append(record.getMessage())

    def matching(self, pattern):
        with self.lock:
            return [line for line in self.lines if re.search(pattern, line)]


class ContinuousProducer:
    """acks=all messages with unique values, sent without pause from a
    thread until stop(); records each acknowledgement (partition, offset)
    and each error."""

    def __init__(self, bootstrap, topic, conf=None, client_log=False):
        c = {"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5,
             "message.timeout.ms": 120000, "retry.backoff.ms": 100}
        c.update(conf or {})
        self.topic = topic
        self.client_log = ClientLog() if client_log else None
        if self.client_log:
            # librdkafka's own account of each produce error and timeout.
            c["debug"] = "msg"
            self.producer = Producer(c, logger=self.client_log.logger)
        else:
            self.producer = Producer(c)
        self.acked = {}   # value -> (partition, offset); a retried value keeps its last ack
        self.errors = []
        self.sent = 0
        self.lock = threading.Lock()
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def on_delivery(self, err, msg):
        with self.lock:
            if err is not None:
                self.errors.append(err)
            else:
                self.acked[msg.value()] = (msg.partition(), msg.offset())

    def run(self):
        while self.running:
            try:
                self.producer.produce(self.topic, value=b"v-%d" % self.sent,
                                      on_delivery=self.on_delivery)
                self.sent += 1
            except BufferError:
                pass
            # About 200 messages a second: enough to be producing at every
            # moment of a failover, little enough for two shared cores.
            self.producer.poll(0.005)

    def acks(self):
        with self.lock:
            return len(self.acked)

    def wait_for_more(self, n, what):
        start = self.acks()
        wait_until("%d more acknowledgements %s" % (n, what), lambda: self.acks() >= start + n,
                   timeout=TIMEOUT_S)

    def stop(self):
        self.running = False
        self.thread.join(TIMEOUT_S)
        left = self.producer.flush(TIMEOUT_S * 2)
        assert left == 0, "%d message(s) never answered" % left
        return dict(self.acked), list(self.errors)


class ReplicatedCluster(ClusterTestCase):
    """Three brokers started with BROKER_ARGS, kept running between tests,
    and what the tests ask of them (no tests of its own)."""

    BROKER_ARGS = "--set broker.session.timeout.ms=2000 --cores 1"

    @classmethod
    def setUpClass(cls):
        cls.cluster = Cluster(brokers=3, broker_args=cls.BROKER_ARGS).up()

    def setUp(self):
        self.filters = []
        # Every test starts from three running, registered brokers: one the
        # last tearDown could not restart (on a slow machine its killed
        # run's registration may outlive the new run's wait for it) starts
        # again here, and one resumed or restarted may still be registering.
        for n in (1, 2, 3):
            if not self.running(n):
                self.cluster.restart(n)
        wait_until("three live brokers", lambda: len(AdminClient(
            {"bootstrap.servers": self.cluster.bootstrap}).list_topics(timeout=10).brokers) == 3,
            timeout=TIMEOUT_S)

    def tearDown(self):
        for rule in self.filters:
            subprocess.run(["iptables", "-D"] + rule, capture_output=True)
        # Leave every broker running for the next test; a restart that
        # fails here is tried again by the next setUp (and fails it there).
        for n in (1, 2, 3):
            try:
                self.cluster.run("resume", str(n)) if self.running(n) else self.cluster.restart(n)
            except AssertionError as e:
                print("tearDown: broker %d: %s" % (n, str(e).splitlines()[0]), file=sys.stderr)

    def running(self, n):
        pid = os.path.join(self.cluster.dir, "broker-%d.pid" % n)
        if not os.path.exists(pid):
            return False
        try:
            with open(pid) as f:
                os.kill(int(f.read()), 0)
            return True
        except OSError:
            return False

    # -- what the cluster says --------------------------------------------

    def leader(self, topic, p, ask=None, not_=None):
        """The leader of `topic`-`p` as broker `ask` (any live one) sees it,
        once there is one other than `not_`."""
        def look():
            for n in ([ask] if ask else (1, 2, 3)):
                if n == not_ or not self.running(n):
                    continue
                leader = partitions(self.cluster.address(n), topic)[p].leader
                if leader not in (-1, not_):
                    return leader
            return None
        return wait_until("a leader of %s-%d other than %s" % (topic, p, not_), look,
                          timeout=TIMEOUT_S)

    def wait_isr(self, topic, n_partitions, want):
        ask = next(n for n in (1, 2, 3) if self.running(n))
        wait_until("ISR %s on every partition of %s" % (want, topic), lambda: all(
            sorted(m.isrs) == sorted(want)
            for m in partitions(self.cluster.address(ask), topic).values()), timeout=TIMEOUT_S)

    # -- what the logs hold -----------------------------------------------

    def assert_every_ack_read_back(self, topic, n_partitions, acked):
        """Every acknowledged value is read at exactly its acknowledged
        (partition, offset); returns what was read, by (partition, offset)."""
        got = read_all(At(self.cluster.bootstrap),
                       [TopicPartition(topic, p, 0) for p in range(n_partitions)],
                       timeout=TIMEOUT_S)
        at = {(r.partition, r.offset): r.value for r in got}
        self.assertEqual(len(at), len(got), "an offset read twice")
        lost = [(v, where) for v, where in acked.items() if at.get(where) != v]
        self.assertEqual(lost[:5], [], "%d of %d acknowledged message(s) not at their offset"
                         % (len(lost), len(acked)))
        return at

    def dump(self, n, topic, p):
        out = subprocess.run([STRATA, "dump-log", self.cluster.partition_dir(n, topic, p)],
                             capture_output=True, timeout=TIMEOUT_S)
        self.assertEqual(out.returncode, 0, out.stderr)
        # The segment lines name the broker's directory; the rest must match.
        return [line for line in out.stdout.decode().split("\n")
                if not line.startswith("segment ")]

    def assert_replicas_identical(self, topic, n_partitions):
        for p in range(n_partitions):
            dumps = wait_until("every replica of %s-%d the same" % (topic, p), lambda: (
                lambda d: d if d[1] == d[2] == d[3] else None)(
                    {n: self.dump(n, topic, p) for n in (1, 2, 3)}), timeout=TIMEOUT_S)
            self.assertIn("0 defect(s)", dumps[1][-2])



class ReplicationTest(ReplicatedCluster):
    # The cleaner looks every 200 ms (for the compaction test); leadership
    # moves back to a preferred replica only when `strata topic
    # elect-leaders` asks (AutoLeaderRebalanceTest has the automatic one).
    BROKER_ARGS = ReplicatedCluster.BROKER_ARGS + (
        " --set log.cleaner.backoff.ms=200 --set auto.leader.rebalance.enable=false")


    def test_sigkill_of_a_leader_loses_no_acknowledged_message(self):
        c = self.cluster
        create(c.bootstrap, "killed", partitions=3)
        victim = self.leader("killed", 0)
        producer = ContinuousProducer(c.bootstrap, "killed")
        producer.wait_for_more(300, "before the kill")
        c.kill(victim)
        self.assertNotEqual(self.leader("killed", 0, not_=victim), victim)
        producer.wait_for_more(300, "after the leader was killed")
        c.restart(victim)
        self.wait_isr("killed", 3, [1, 2, 3])
        producer.wait_for_more(100, "after it rejoined")
        acked, errors = producer.stop()
        self.assertEqual(errors, [])
        self.assert_every_ack_read_back("killed", 3, acked)
        self.assert_replicas_identical("killed", 3)

    def test_sigterm_of_a_leader_hands_its_leaderships_over_first(self):
        c = self.cluster
        create(c.bootstrap, "handover", partitions=3)
        # Its first sends must not meet a leader still opening its partition:
        # the only retries this test allows are the handover's.
        wait_served(c.bootstrap, "handover", 3)
        victim = self.leader("handover", 0)
        producer = ContinuousProducer(c.bootstrap, "handover", client_log=True)
        producer.wait_for_more(300, "before the SIGTERM")
        c.stop(victim)  # returns once it exited
        # It asked the controller to move what it led, and saw it moved,
        # before it stopped serving.
        log = c.log(victim)
        self.assertIn("controlled shutdown: leads no partition another in-sync replica could "
                      "lead", log)
        self.assertLess(log.rindex("controlled shutdown: leads no partition"),
                        log.rindex("stopping: no new connections"))
        producer.wait_for_more(300, "after it stopped")
        c.restart(victim)
        self.wait_isr("handover", 3, [1, 2, 3])
        acked, errors = producer.stop()
        self.assertEqual(errors, [])
        # No request timed out; what the client retried was retriable: only
        # NOT_LEADER_OR_FOLLOWER from the broker that had handed over.
        self.assertEqual(producer.client_log.matching(r"REQTMOUT|(?i:timed out)"), [])
        produced = producer.client_log.matching(r"^(PRODUCE|MSGSET) ")
        self.assertTrue(any("delivered" in line for line in produced), produced[:3])
        self.assertEqual([line for line in produced if re.search(r"(?i)error|fail|retry", line)
                          and "Not leader for partition" not in line], [],
                         "the SIGTERM went to broker %d (%s)" % (victim, c.address(victim)))
        self.assert_every_ack_read_back("handover", 3, acked)
        self.assert_replicas_identical("handover", 3)

    def elect_leaders(self, *args):
        """`strata --json topic elect-leaders ARGS`: (exit code, JSON or None, stderr)."""
        r = subprocess.run([STRATA, "--json", "-b", self.cluster.bootstrap, "topic", "elect-leaders"]
                           + list(args), capture_output=True, timeout=TIMEOUT_S)
        return r.returncode, json.loads(r.stdout) if r.stdout.strip() else None, r.stderr.decode()

    def test_strata_topic_elect_leaders_moves_leadership_back_to_the_preferred_replica(self):
        c = self.cluster
        create(c.bootstrap, "preferred", assignment=[[1, 2, 3], [2, 3, 1], [3, 1, 2]])
        self.wait_isr("preferred", 3, [1, 2, 3])
        producer = ContinuousProducer(c.bootstrap, "preferred")
        producer.wait_for_more(200, "before the kill")
        c.kill(1)
        self.assertNotEqual(self.leader("preferred", 0, not_=1), 1)
        producer.wait_for_more(200, "after the kill")
        c.restart(1)
        self.wait_isr("preferred", 3, [1, 2, 3])
        # In sync again, broker 1 leads nothing until asked (this cluster
        # has no automatic rebalance).
        self.assertNotEqual(partitions(c.address(2), "preferred")[0].leader, 1)
        # A partition named twice is elected once.
        code, out, err = self.elect_leaders("preferred", "preferred:0")
        self.assertEqual(code, 0, err)
        got = {p["partition"]: (p["topic"], p["elected"], p["error"]) for p in out["partitions"]}
        self.assertEqual(got, {0: ("preferred", True, ""),
                               1: ("preferred", False, "ELECTION_NOT_NEEDED"),
                               2: ("preferred", False, "ELECTION_NOT_NEEDED")})
        self.assertEqual(len(out["partitions"]), 3)
        wait_until("every broker sees broker 1 lead preferred-0 again", lambda: all(
            partitions(c.address(n), "preferred")[0].leader == 1 for n in (1, 2, 3)),
            timeout=TIMEOUT_S)
        producer.wait_for_more(200, "after the election")
        # Every partition of the cluster: nothing of this topic is left to elect.
        code, out, err = self.elect_leaders()
        self.assertEqual(code, 0, err)
        self.assertNotIn("preferred", [p["topic"] for p in out["partitions"]])
        # Bad targets are refused, naming what is wrong.
        for args, why in ((["preferred:x"], "expected TOPIC or TOPIC:PARTITION"),
                          (["preferred:7"], "UNKNOWN_TOPIC_OR_PARTITION"),
                          (["no-such-topic"], "no-such-topic"),
                          (["--type", "sideways", "preferred"], "expected preferred or unclean")):
            code, _, err = self.elect_leaders(*args)
            self.assertNotEqual(code, 0, args)
            self.assertIn(why, err, args)
        acked, errors = producer.stop()
        self.assertEqual(errors, [])
        self.assert_every_ack_read_back("preferred", 3, acked)
        self.assert_replicas_identical("preferred", 3)

    def test_sigterm_of_a_broker_leading_hundreds_of_partitions_hands_every_one_over(self):
        # More leaderships than etcd takes in one transaction (128 compares):
        # creating the topic and handing them over go in parts.
        c = self.cluster
        create(c.bootstrap, "wide", partitions=450)

        def drop_wide():
            admin = AdminClient({"bootstrap.servers": c.bootstrap})
            admin.delete_topics(["wide"], request_timeout=TIMEOUT_S)["wide"].result(TIMEOUT_S)
        self.addCleanup(drop_wide)

        def leaders(ask):
            return {p: m.leader for p, m in partitions(c.address(ask), "wide").items()}
        lead = wait_until("a leader for every partition of wide", lambda: (
            lambda ls: ls if len(ls) == 450 and -1 not in ls.values() else None)(leaders(1)),
            timeout=TIMEOUT_S)
        led = {n: sum(1 for leader in lead.values() if leader == n) for n in (1, 2, 3)}
        victim = max(led, key=led.get)
        self.assertGreater(led[victim], 128, led)
        self.wait_isr("wide", 450, [1, 2, 3])  # any replica may take over
        c.stop(victim)  # returns once it exited
        log = c.log(victim)
        self.assertNotIn("too many operations", log)
        self.assertIn("controlled shutdown: leads no partition another in-sync replica could "
                      "lead", log)
        ask = next(n for n in (1, 2, 3) if n != victim)
        after = leaders(ask)
        self.assertEqual(len(after), 450)
        self.assertEqual(sorted(p for p, leader in after.items() if leader in (victim, -1)), [])

    def test_five_hard_bounces_of_the_leader_in_a_row(self):
        c = self.cluster
        create(c.bootstrap, "bounced", partitions=1)
        producer = ContinuousProducer(c.bootstrap, "bounced")
        for bounce in range(5):
            victim = self.leader("bounced", 0)
            producer.wait_for_more(100, "before bounce %d" % bounce)
            c.kill(victim)
            self.leader("bounced", 0, not_=victim)
            producer.wait_for_more(100, "after bounce %d" % bounce)
            c.restart(victim)
            self.wait_isr("bounced", 1, [1, 2, 3])
        acked, errors = producer.stop()
        self.assertEqual(errors, [])
        self.assert_every_ack_read_back("bounced", 1, acked)
        self.assert_replicas_identical("bounced", 1)

    def test_a_paused_leader_acknowledges_nothing_once_replaced(self):
        c = self.cluster
        create(c.bootstrap, "paused", partitions=3)
        victim = self.leader("paused", 0)
        # A paused broker keeps its connections open and answers nothing:
        # librdkafka moves a partition's requests in flight there to the new
        # leader only when they time out (socket.timeout.ms, 60 s by default).
        producer = ContinuousProducer(c.bootstrap, "paused", {"socket.timeout.ms": 10000})
        producer.wait_for_more(300, "before the pause")
        c.pause(victim)  # longer than the 2 s session: it is replaced
        self.leader("paused", 0, not_=victim)
        producer.wait_for_more(300, "while the old leader is paused")
        c.resume(victim)  # it wakes believing it leads
        self.wait_isr("paused", 3, [1, 2, 3])
        producer.wait_for_more(100, "after it rejoined")
        acked, errors = producer.stop()
        self.assertEqual(errors, [])
        # Anything the woken leader acknowledged would sit at an offset the
        # new leader filled with another message.
        self.assert_every_ack_read_back("paused", 3, acked)
        self.assert_replicas_identical("paused", 3)

    def test_followers_leave_the_isr_and_too_few_refuse_acks_all(self):
        c = self.cluster
        acked = self.write_while_broker_3_leaves("shrink", 100)
        c.kill(2)
        self.wait_isr("shrink", 1, [1])
        # One in sync, min.insync.replicas=2: acks=all is refused before the
        # append; acks=1 still writes.
        refused = self.produce_once(c.address(1), "shrink", b"refused", acks="all")
        self.assertEqual(refused.code(), KafkaError.NOT_ENOUGH_REPLICAS, refused)
        self.assertIsNone(self.produce_once(c.address(1), "shrink", b"alone", acks="1"))
        c.restart(2)
        c.restart(3)
        self.wait_isr("shrink", 1, [1, 2, 3])
        got = self.assert_every_ack_read_back("shrink", 1, acked)
        values = set(got.values())
        self.assertNotIn(b"refused", values)
        self.assertIn(b"alone", values)
        self.assert_replicas_identical("shrink", 1)

    def write_while_broker_3_leaves(self, topic, n, configs=None):
        """A one-partition topic led by broker 1: acks=all writes with three
        in sync, broker 3 killed, `n` more with two; returns the acks."""
        c = self.cluster
        create(c.bootstrap, topic, assignment=[[1, 2, 3]], configs=configs)
        self.wait_isr(topic, 1, [1, 2, 3])
        producer = ContinuousProducer(c.address(1), topic)
        producer.wait_for_more(100, "with three in sync")
        c.kill(3)
        self.wait_isr(topic, 1, [1, 2])
        producer.wait_for_more(n, "with two in sync")
        acked, errors = producer.stop()
        self.assertEqual(errors, [])
        return acked

    def produce_once(self, bootstrap, topic, value, acks):
        """One message, no retries; its delivery error or None."""
        p = Producer({"bootstrap.servers": bootstrap, "acks": acks, "retries": 0,
                      "message.timeout.ms": 20000})
        out = []
        p.produce(topic, value=value, on_delivery=lambda err, msg: out.append(err))
        p.flush(30)
        self.assertEqual(len(out), 1)
        return out[0]

    def test_a_consumer_group_survives_sigkill_of_its_coordinator(self):
        c = self.cluster
        create(c.bootstrap, "grouped", partitions=3)
        producer = ContinuousProducer(c.bootstrap, "grouped")
        producer.wait_for_more(300, "before the group reads")
        acked, errors = producer.stop()
        self.assertEqual(errors, [])
        group = "survivors"
        member = Consumer({"bootstrap.servers": c.bootstrap, "group.id": group,
                           "auto.offset.reset": "earliest", "enable.auto.commit": False,
                           "session.timeout.ms": 6000, "heartbeat.interval.ms": 500})
        member.subscribe(["grouped"])
        seen = set()
        next_offset = {}  # partition -> after the last message read

        def consume(n):
            deadline = time.monotonic() + TIMEOUT_S
            while len(seen) < n and time.monotonic() < deadline:
                for m in member.consume(num_messages=50, timeout=0.2):
                    if m.error() is None:
                        seen.add(m.value())
                        # After a rejoin the member reads again from the
                        # last commit: keep the furthest point reached.
                        next_offset[m.partition()] = max(next_offset.get(m.partition(), 0),
                                                         m.offset() + 1)
            self.assertGreaterEqual(len(seen), n)

        def commit():
            # The coordinator may be moving: NOT_COORDINATOR and friends are
            # answered again after librdkafka finds the new one. A new
            # coordinator knows the group's offsets and generation, not its
            # members: they rejoin (UNKNOWN_MEMBER_ID), which takes polls.
            offsets = [TopicPartition("grouped", p, o) for p, o in next_offset.items()]

            def attempt():
                member.poll(0.1)
                return self.try_commit(member, offsets)
            return wait_until("a synchronous commit", attempt, timeout=TIMEOUT_S)

        consume(150)
        committed = {(tp.partition, tp.offset) for tp in commit()}
        coordinator = self.coordinator(group)
        c.kill(coordinator)
        # The offsets are there at once on the new coordinator ...
        tps = [TopicPartition("grouped", p) for p in range(3)]
        checker = Consumer({"bootstrap.servers": c.bootstrap, "group.id": group})
        last = []

        def same():
            last[:] = [(tp.partition, tp.offset) for tp in checker.committed(tps, timeout=5)
                       if tp.offset >= 0]  # a partition not read yet has no commit
            return set(last) == committed
        try:
            wait_until("the committed offsets on the new coordinator", same, timeout=TIMEOUT_S)
        except AssertionError as e:
            raise AssertionError("%s: committed %s, read %s" % (e, committed, last))
        checker.close()
        self.assertNotEqual(self.coordinator(group), coordinator)
        # ... and the member goes on: it reads the rest and commits it.
        consume(len(acked))
        self.assertEqual(seen, set(acked))
        commit()
        member.close()
        ends = {}
        for value, (p, offset) in acked.items():
            ends[p] = max(ends.get(p, 0), offset + 1)
        checker = Consumer({"bootstrap.servers": c.bootstrap, "group.id": group})
        self.assertEqual({tp.partition: tp.offset for tp in checker.committed(tps, timeout=10)},
                         ends)
        checker.close()

    def try_commit(self, consumer, offsets):
        try:
            done = consumer.commit(offsets=offsets, asynchronous=False)
            return None if any(tp.error is not None for tp in done) else done
        except KafkaException as e:
            if e.args[0].retriable() or e.args[0].code() in (
                    KafkaError.NOT_COORDINATOR, KafkaError.COORDINATOR_NOT_AVAILABLE,
                    KafkaError.REBALANCE_IN_PROGRESS, KafkaError.UNKNOWN_MEMBER_ID,
                    KafkaError.ILLEGAL_GENERATION):
                return None
            raise

    def coordinator(self, group):
        """The coordinator FindCoordinator names, asked of a live broker."""
        ask = next(n for n in (1, 2, 3) if self.running(n))
        wire = WireClient(self.cluster.address(ask))

        def find():
            r = wire.call(ask, GroupCoordinatorRequest[0](group))
            return r.coordinator_id if r.error_code == 0 else None
        try:
            return wait_until("the coordinator of %s" % group, find, timeout=TIMEOUT_S)
        finally:
            wire.close()

    def test_transactions_across_brokers_survive_sigkill_of_their_coordinator(self):
        """Transactions whose partitions are led by all three brokers: the
        markers reach the other leaders (WriteTxnMarkers) and their first
        writes are verified with the coordinator over the network
        (AddPartitionsToTxn v4). The coordinator's broker is killed inside
        a transaction; a new coordinator takes over from the replicated
        __transaction_state. read_committed readers see exactly the
        transactions whose commit succeeded, none of the rest."""
        c = self.cluster
        create(c.bootstrap, "txns", partitions=3)
        p = Producer({"bootstrap.servers": c.bootstrap, "transactional.id": "mover",
                      "transaction.timeout.ms": 60000, "message.timeout.ms": 60000,
                      "linger.ms": 5})
        p.init_transactions(TIMEOUT_S)
        committed, ended = [], set()

        def one(n, kill_before_commit=False):
            values = [b"t%d-%d" % (n, i) for i in range(30)]
            ended.update(values)
            p.begin_transaction()
            for i, v in enumerate(values):
                p.produce("txns", value=v, partition=i % 3)
            p.flush(TIMEOUT_S)
            if kill_before_commit:
                c.kill(self.txn_coordinator("mover"))
            if n % 3 == 2:
                p.abort_transaction(TIMEOUT_S * 2)
                return
            while True:
                try:
                    p.commit_transaction(TIMEOUT_S * 2)
                    committed.extend(values)
                    return
                except KafkaException as e:
                    if e.args[0].retriable():
                        continue  # librdkafka: the same commit may be retried
                    if e.args[0].txn_requires_abort():
                        p.abort_transaction(TIMEOUT_S * 2)
                        return
                    raise

        for n in range(4):
            one(n)
        one(4, kill_before_commit=True)
        for n in range(5, 8):
            one(n)
        p.flush(TIMEOUT_S)
        got = read_all(At(c.bootstrap), [TopicPartition("txns", q, 0) for q in range(3)],
                       conf={"isolation.level": "read_committed"}, timeout=TIMEOUT_S)
        seen = [r.value for r in got]
        self.assertEqual(len(seen), len(set(seen)), "a committed message read twice")
        self.assertEqual(sorted(seen), sorted(committed))
        self.assertEqual(set(seen) - ended, set())
        self.assertGreaterEqual(len(committed), 4 * 30)

    def txn_coordinator(self, txn_id):
        """The broker FindCoordinator (key type 1) names for `txn_id`."""
        ask = next(n for n in (1, 2, 3) if self.running(n))
        wire = WireClient(self.cluster.address(ask))

        def find():
            r = wire.call(ask, FindCoordinatorRequestV1(txn_id, 1))
            return r.coordinator_id if r.error_code == 0 else None
        try:
            return wait_until("the coordinator of %s" % txn_id, find, timeout=TIMEOUT_S)
        finally:
            wire.close()

    def test_send_offsets_to_transaction_with_the_group_named_as_the_transactional_id(self):
        """Read-process-write as applications write it, the transactional id
        equal to the group id, with the group's and the transaction's
        coordinators on different brokers: every cycle of begin, produce,
        send_offsets_to_transaction and commit succeeds."""
        c = self.cluster
        create(c.bootstrap, "rpw-out", partitions=3)
        create(c.bootstrap, "rpw-in", partitions=1)
        name = next(n for n in ("rpw-%d" % i for i in range(200))
                    if self.coordinator(n) != self.txn_coordinator(n))
        src = Producer({"bootstrap.servers": c.bootstrap})
        for i in range(10):
            src.produce("rpw-in", value=b"%d" % i, partition=0)
        self.assertEqual(src.flush(TIMEOUT_S), 0)
        cons = Consumer({"bootstrap.servers": c.bootstrap, "group.id": name,
                         "enable.auto.commit": False, "auto.offset.reset": "earliest",
                         "isolation.level": "read_committed"})
        cons.assign([TopicPartition("rpw-in", 0, 0)])
        p = Producer({"bootstrap.servers": c.bootstrap, "transactional.id": name,
                      "transaction.timeout.ms": 60000})
        p.init_transactions(TIMEOUT_S)
        try:
            for cycle in range(10):
                msgs = []
                while not msgs:
                    msgs = [m for m in cons.consume(num_messages=1, timeout=5) if m.error() is None]
                p.begin_transaction()
                p.produce("rpw-out", value=msgs[0].value(), partition=cycle % 3)
                p.send_offsets_to_transaction(cons.position(cons.assignment()),
                                              cons.consumer_group_metadata(), TIMEOUT_S)
                p.commit_transaction(TIMEOUT_S)
            committed = cons.committed([TopicPartition("rpw-in", 0)], TIMEOUT_S)
            self.assertEqual([tp.offset for tp in committed], [10])
        finally:
            cons.close()
        out = read_all(At(c.bootstrap), [TopicPartition("rpw-out", q, 0) for q in range(3)],
                       conf={"isolation.level": "read_committed"}, timeout=TIMEOUT_S)
        self.assertEqual(sorted(r.value for r in out), sorted(b"%d" % i for i in range(10)))

    def test_a_cut_off_leader_truncates_what_only_it_took(self):
        c = self.cluster
        create(c.bootstrap, "diverge", assignment=[[1, 2, 3]])
        self.wait_isr("diverge", 1, [1, 2, 3])
        producer = ContinuousProducer(c.address(1), "diverge")
        producer.wait_for_more(100, "before the cut")
        acked, errors = producer.stop()
        self.assertEqual(errors, [])
        # Followers can no longer fetch from broker 1 (its rpc.port, both
        # ways: a fetch already waiting there gets no answer either) ...
        rules = [["INPUT", "-d", "127.0.0.11", "-p", "tcp", "--dport", "9093", "-j", "DROP"],
                 ["INPUT", "-s", "127.0.0.11", "-p", "tcp", "--sport", "9093", "-j", "DROP"]]
        for rule in rules:
            subprocess.run(["iptables", "-A"] + rule, check=True)
            self.filters.append(rule)
        # ... so acks=1 writes land on broker 1 alone.
        alone = [b"alone-%d" % i for i in range(20)]
        for v in alone:
            self.assertIsNone(self.produce_once(c.address(1), "diverge", v, acks="1"))
        # Broker 1 stops (its lease runs out); a follower takes over and
        # takes acks=all writes at the offsets broker 1 used.
        c.pause(1)
        new = self.leader("diverge", 0, not_=1)
        producer = ContinuousProducer(c.address(new), "diverge")
        producer.wait_for_more(100, "on the new leader")
        more, errors = producer.stop()
        self.assertEqual(errors, [])
        acked.update(more)
        for rule in rules:
            subprocess.run(["iptables", "-D"] + rule, check=True)
            self.filters.remove(rule)
        c.resume(1)
        self.wait_isr("diverge", 1, [1, 2, 3])
        got = self.assert_every_ack_read_back("diverge", 1, acked)
        self.assertEqual([v for v in alone if v in set(got.values())], [])
        self.assert_replicas_identical("diverge", 1)

    def test_an_unclean_election_only_where_the_topic_allows_it(self):
        c = self.cluster
        topics = ("unclean", "offline")
        create(c.bootstrap, "unclean", assignment=[[1, 2, 3]],
               configs={"min.insync.replicas": "1", "unclean.leader.election.enable": "true"})
        create(c.bootstrap, "offline", assignment=[[1, 2, 3]], configs={"min.insync.replicas": "1"})
        for t in topics:
            self.wait_isr(t, 1, [1, 2, 3])
            self.assertIsNone(self.produce_once(c.address(1), t, b"everywhere", acks="all"))
        # Broker 1 alone in sync takes one more; then it dies too.
        c.kill(2)
        c.kill(3)
        for t in topics:
            self.wait_isr(t, 1, [1])
            self.assertIsNone(self.produce_once(c.address(1), t, b"only-on-1", acks="all"))
        c.kill(1)
        # Out-of-sync broker 2 returns: it leads where that is allowed ...
        c.restart(2)
        # (Until broker 1's lease runs out, broker 2 may still see it lead.)
        self.assertEqual(self.leader("unclean", 0, ask=2, not_=1), 2)
        self.assertIn("unclean leader election: unclean-0 is led by out-of-sync replica 2",
                      c.log(2))
        # ... decided in the same pass as the other topic, which stays offline.
        self.assertEqual(partitions(c.address(2), "offline")[0].leader, -1)
        self.assertIsNone(self.produce_once(c.address(2), "unclean", b"after", acks="all"))
        c.restart(1)
        c.restart(3)
        for t in topics:
            self.wait_isr(t, 1, [1, 2, 3])
        # What broker 1 alone held is gone from the unclean topic (broker 1
        # truncated it to the new leader's log), and kept in the other.
        read = {t: [r.value for r in read_all(At(c.bootstrap), [TopicPartition(t, 0, 0)],
                                              timeout=TIMEOUT_S)] for t in topics}
        self.assertEqual(read["unclean"], [b"everywhere", b"after"])
        self.assertEqual(read["offline"], [b"everywhere", b"only-on-1"])
        for t in topics:
            self.assert_replicas_identical(t, 1)

    def batches(self, n, topic, p):
        """Broker n's batches of topic-p (where they sit in its files aside)."""
        out = subprocess.run([STRATA, "--json", "dump-log",
                              self.cluster.partition_dir(n, topic, p)],
                             capture_output=True, timeout=TIMEOUT_S)
        self.assertEqual(out.returncode, 0, out.stderr)
        docs = [json.loads(line) for line in out.stdout.decode().split("\n") if line]
        self.assertEqual(docs[-1]["defects"], 0)
        return [{k: v for k, v in d.items() if k != "position"} for d in docs
                if d["type"] == "batch"]

    def test_a_follower_behind_the_leaders_log_start_starts_again_there(self):
        c = self.cluster
        self.write_while_broker_3_leaves("behind", 300, {"segment.bytes": "16384"})
        # Ten messages in one batch (or few), and everything before the
        # second record of the last one deleted on the leader: broker 3's log
        # now ends below the leader's log start, which falls inside a batch.
        batch = Producer({"bootstrap.servers": c.address(1), "acks": "all", "linger.ms": 500})
        # Connected to the leader before the ten: else (seen once under
        # ASan) the first can go alone while the client connects.
        batch.produce("behind", value=b"warm-up")
        self.assertEqual(batch.flush(TIMEOUT_S), 0)
        offsets = []
        for i in range(10):
            batch.produce("behind", value=b"batched-%d" % i, on_delivery=lambda err, msg:
                          offsets.append(msg.offset() if err is None else err))
        self.assertEqual(batch.flush(TIMEOUT_S), 0)
        self.assertEqual(offsets, list(range(offsets[0], offsets[0] + 10)))
        holding = next(b for b in self.batches(1, "behind", 0) if b["last_offset"] == offsets[9])
        self.assertGreater(holding["records"], 1)
        start = holding["base_offset"] + 1
        wire = WireClient(c.address(1))
        try:
            r = wire.call(1, DeleteRecordsRequest([("behind", [(0, start)])], TIMEOUT_S * 1000))
        finally:
            wire.close()
        self.assertEqual(r.topics[0][1][0][1:], (start, 0))
        c.restart(3)
        self.wait_isr("behind", 1, [1, 2, 3])
        self.assertIn("below its leader's log start %d" % start, c.log(3))
        producer = ContinuousProducer(c.address(1), "behind")
        producer.wait_for_more(100, "after broker 3 rejoined")
        more, errors = producer.stop()
        self.assertEqual(errors, [])
        got = read_all(At(c.bootstrap), [TopicPartition("behind", 0, start)], timeout=TIMEOUT_S)
        at = {r.offset: r.value for r in got}
        self.assertEqual(min(at), start)
        self.assertEqual([v for v, (_, o) in more.items() if at.get(o) != v], [])
        self.assertEqual([at[o] for o in offsets if o >= start],
                         [b"batched-%d" % i for i in range(10) if offsets[i] >= start])
        # Broker 3 holds exactly the leader's batches from the one holding
        # the log start on.
        last = []

        def same():
            leader = [b for b in self.batches(1, "behind", 0)
                      if b["base_offset"] >= holding["base_offset"]]
            last[:] = [leader, self.batches(3, "behind", 0)]
            return leader == last[1]
        try:
            wait_until("broker 3's batches the leader's", same, timeout=TIMEOUT_S)
        except AssertionError as e:
            raise AssertionError("%s: leader %s, broker 3 %s" % (e, last[0][:3], last[1][:3]))
        self.assertEqual(self.batches(3, "behind", 0)[0], holding)

    def records(self, n, topic, p):
        """Broker n's records of topic-p: {offset: (key, value)}, from its
        files (read again if a cleaning swapped them under dump-log)."""
        def read():
            out = subprocess.run([STRATA, "--json", "dump-log", "--records",
                                  self.cluster.partition_dir(n, topic, p)],
                                 capture_output=True, timeout=TIMEOUT_S)
            docs = [json.loads(line) for line in out.stdout.decode().split("\n") if line]
            if out.returncode != 0 or not docs or docs[-1].get("defects") != 0:
                return None
            return {d["offset"]: (d["key"], d["value"]) for d in docs if d["type"] == "record"}
        return wait_until("broker %d's records of %s-%d" % (n, topic, p), read, timeout=TIMEOUT_S)

    def test_replicas_compact_on_their_own_and_agree_at_every_offset(self):
        c = self.cluster
        topic = "changelog-rf3"
        create(c.bootstrap, topic, configs={
            "cleanup.policy": "compact", "segment.bytes": "16384", "segment.ms": "300",
            "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "0"})
        rng = random.Random(3)
        produced = {}
        producers = {}

        def send(batch, codec):
            if codec not in producers:
                producers[codec] = Producer({"bootstrap.servers": c.bootstrap, "acks": "all",
                                             "linger.ms": 5, "compression.type": codec})
            p = producers[codec]
            reports = []
            for key, value in batch:
                p.produce(topic, key=key, value=value, on_delivery=lambda err, msg:
                          reports.append((err, msg.key(), msg.value(), msg.offset())))
            self.assertEqual(p.flush(TIMEOUT_S), 0)
            for err, key, value, offset in reports:
                self.assertIsNone(err)
                produced[offset] = (key.decode(), None if value is None else value.decode())
        for r, codec in enumerate(["none", "lz4", "zstd"]):
            send([("key-%02d" % rng.randrange(60),
                   None if rng.random() < 0.1 else "r%d-%d-%s" % (r, i, "x" * rng.randrange(80)))
                  for i in range(1500)], codec)
        data_end = max(produced) + 1
        # Every replica's cleaner covers the data on its own (topic describe
        # reads each one's DescribeLogDirs); sentinels roll segments meanwhile.
        covered = re.compile(r"^cleaned below offset (\d+):")

        def cleaned_everywhere():
            send([("sentinel", "s%d" % len(produced))], "none")
            out = subprocess.run([STRATA, "--json", "-b", c.bootstrap, "topic", "describe", topic],
                                 capture_output=True, timeout=TIMEOUT_S)
            self.assertEqual(out.returncode, 0, out.stderr)
            on_disk = json.loads(out.stdout)["partitions"][0]["replicas_on_disk"]
            self.assertEqual(sorted(r["broker"] for r in on_disk), [1, 2, 3])
            ends = [int(m.group(1)) if (m := covered.match(r.get("last_cleaning", ""))) else -1
                    for r in on_disk]
            return min(ends) >= data_end
        wait_until("every replica cleaned below %d" % data_end, cleaned_everywhere,
                   timeout=TIMEOUT_S)
        self.wait_isr(topic, 1, [1, 2, 3])
        last = {}
        for offset in sorted(produced):
            last[produced[offset][0]] = offset
        replicas = {n: self.records(n, topic, 0) for n in (1, 2, 3)}
        for n, recs in replicas.items():
            # Each record sits at the offset it was produced at; below the
            # data's end only each key's latest record stays (tombstones
            # too are gone: delete.retention.ms=0), and every live key's
            # latest value is there.
            for offset, rec in recs.items():
                self.assertEqual(rec, produced.get(offset), "broker %d, offset %d" % (n, offset))
                if offset < data_end:
                    self.assertEqual(last[rec[0]], offset, "broker %d kept a superseded record "
                                     "at %d" % (n, offset))
                    self.assertIsNotNone(rec[1], "broker %d kept a tombstone at %d" % (n, offset))
            for key, offset in last.items():
                if key != "sentinel" and produced[offset][1] is not None:
                    self.assertIn(offset, recs, "broker %d lost %s" % (n, key))
            self.assertLess(len(recs), len(produced) // 4, "broker %d's log did not shrink" % n)
        # The replicas agree wherever two hold the same offset.
        for a, b in ((1, 2), (1, 3), (2, 3)):
            shared = replicas[a].keys() & replicas[b].keys()
            self.assertEqual([o for o in shared if replicas[a][o] != replicas[b][o]], [])


class AutoLeaderRebalanceTest(ReplicatedCluster):
    """auto.leader.rebalance.enable (on by default), checked every second."""
    BROKER_ARGS = ReplicatedCluster.BROKER_ARGS + " --set leader.imbalance.check.interval.seconds=1"

    def test_a_restarted_broker_gets_its_preferred_leaderships_back_once_in_sync(self):
        c = self.cluster
        create(c.bootstrap, "rebalanced", assignment=[[1, 2, 3], [1, 3, 2], [2, 3, 1]])
        preferred = {0: 1, 1: 1, 2: 2}

        def leaders_everywhere():
            seen = [{p: m.leader for p, m in partitions(c.address(n), "rebalanced").items()}
                    for n in (1, 2, 3) if self.running(n)]
            return seen[0] if all(s == seen[0] for s in seen) else None
        wait_until("the preferred leaders", lambda: leaders_everywhere() == preferred,
                   timeout=TIMEOUT_S)
        producer = ContinuousProducer(c.bootstrap, "rebalanced")
        producer.wait_for_more(200, "before the kill")
        c.kill(1)
        for p in (0, 1):
            self.assertNotEqual(self.leader("rebalanced", p, not_=1), 1)
        producer.wait_for_more(200, "after the kill")
        c.restart(1)
        # Back in sync, broker 1 leads its two partitions again by itself.
        wait_until("broker 1 leading partitions 0 and 1 again",
                   lambda: leaders_everywhere() == preferred, timeout=TIMEOUT_S)
        for m in partitions(c.address(1), "rebalanced").values():
            self.assertIn(1, m.isrs)
        producer.wait_for_more(200, "after the rebalance")
        acked, errors = producer.stop()
        self.assertEqual(errors, [])
        self.assert_every_ack_read_back("rebalanced", 3, acked)
        self.assert_replicas_identical("rebalanced", 3)


if __name__ == "__main__":
    unittest.main()
