"""Consumer groups of Kafka 4's protocol (KIP-848, group.protocol=consumer)
against a real broker, with the two clients that speak it: confluent-kafka
from PyPI (its own current librdkafka; scripts/setup.sh --tests installs
it) and Apache Kafka's Java consumer (bench/fetch_kafka.sh fetches it).

Members are separate processes (group_member.py, tests/java/GroupMember.java)
printing every rebalance callback, with its wall-clock time, and every
record they process.

  a. ten members join one by one while a producer writes; then one is
     SIGKILLed and three leave. Checked from the members' own callbacks: no
     partition is ever owned by two members at once; every record produced
     is consumed; a member's partitions that the churn did not move were
     never revoked from it, and it went on consuming them.
     A static member (group.instance.id) restarting gets its partitions
     back and nobody else moves. A Java member subscribed by a regex
     (SubscriptionPattern, resolved by the coordinator) gets every matching
     topic, and a new one when it is created.
  b. the broker's view: ConsumerGroupDescribe (members, epochs, current and
     target assignment by topic id and name), ListGroups by type, Kafka's
     kafka-consumer-groups (ConsumerGroupCommand) and `strata group`.
  c. bad input on the wire: wrong epochs, unknown members, an assignor that
     does not exist, a regex that does not compile, missing fields, a stale
     offset commit, each answered with Kafka's error; regex subscriptions.
"""
import json
import os
import subprocess
import threading
import time
import unittest

from confluent_kafka import Producer

from kafka_wire import WireConn
from test_confluent import create_topic
import test_groups
from test_groups import EventProcess, TIMEOUT_S
from test_java_client import kafka_lib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
PYPI_PYTHON = "/var/cache/strata/pypi-venv/bin/python"
JAVA_MEMBER = os.path.join(ROOT, "tests/java/GroupMember.java")
STRATA = os.environ.get("STRATA_CLI", os.path.join(ROOT, "build/tools/strata"))
# The group's clock, fast for tests: members heartbeat every 500 ms and are
# removed 6 s after their last one.
CONSUMER_GROUP_ARGS = ["--set", "group.consumer.heartbeat.interval.ms=500",
                       "--set", "group.consumer.session.timeout.ms=6000"]

# ConsumerGroupHeartbeat (68) v1 and ConsumerGroupDescribe (69) v1, for
# kafka_wire.
TOPIC_PARTITIONS = [("topic_id", "uuid"), ("partitions", ["i32"])]
HEARTBEAT_REQUEST = [
    ("group_id", "str"), ("member_id", "str"), ("member_epoch", "i32"), ("instance_id", "nstr"),
    ("rack_id", "nstr"), ("rebalance_timeout_ms", "i32"),
    ("subscribed_topic_names", ("nullable", ["str"])), ("subscribed_topic_regex", "nstr"),
    ("server_assignor", "nstr"), ("topic_partitions", ("nullable", TOPIC_PARTITIONS))]
HEARTBEAT_RESPONSE = [
    ("throttle_time_ms", "i32"), ("error_code", "i16"), ("error_message", "nstr"),
    ("member_id", "nstr"), ("member_epoch", "i32"), ("heartbeat_interval_ms", "i32"),
    ("assignment", ("nstruct", [("topic_partitions", TOPIC_PARTITIONS)]))]
DESCRIBED_PARTITIONS = [("topic_id", "uuid"), ("topic_name", "str"), ("partitions", ["i32"])]
DESCRIBE_REQUEST = [("group_ids", ["str"]), ("include_authorized_operations", "bool")]
DESCRIBE_RESPONSE = [
    ("throttle_time_ms", "i32"),
    ("groups", [
        ("error_code", "i16"), ("error_message", "nstr"), ("group_id", "str"),
        ("group_state", "str"), ("group_epoch", "i32"), ("assignment_epoch", "i32"),
        ("assignor_name", "str"),
        ("members", [
            ("member_id", "str"), ("instance_id", "nstr"), ("rack_id", "nstr"),
            ("member_epoch", "i32"), ("client_id", "str"), ("client_host", "str"),
            ("subscribed_topic_names", ["str"]), ("subscribed_topic_regex", "nstr"),
            ("assignment", ("struct", [("topic_partitions", DESCRIBED_PARTITIONS)])),
            ("target_assignment", ("struct", [("topic_partitions", DESCRIBED_PARTITIONS)])),
            ("member_type", "i8")]),
        ("authorized_operations", "i32")])]
LIST_GROUPS_REQUEST = [("states_filter", ["str"]), ("types_filter", ["str"])]
LIST_GROUPS_RESPONSE = [
    ("throttle_time_ms", "i32"), ("error_code", "i16"),
    ("groups", [("group_id", "str"), ("protocol_type", "str"), ("group_state", "str"),
                ("group_type", "str")])]
OFFSET_COMMIT_REQUEST = [
    ("group_id", "str"), ("generation_id_or_member_epoch", "i32"), ("member_id", "str"),
    ("group_instance_id", "nstr"),
    ("topics", [("name", "str"), ("partitions", [
        ("partition_index", "i32"), ("committed_offset", "i64"),
        ("committed_leader_epoch", "i32"), ("committed_metadata", "nstr")])])]
OFFSET_COMMIT_RESPONSE = [
    ("throttle_time_ms", "i32"),
    ("topics", [("name", "str"), ("partitions", [("partition_index", "i32"),
                                                 ("error_code", "i16")])])]

NONE, INVALID_REQUEST, UNKNOWN_MEMBER_ID, GROUP_ID_NOT_FOUND = 0, 42, 25, 69
FENCED_MEMBER_EPOCH, UNSUPPORTED_ASSIGNOR, STALE_MEMBER_EPOCH = 110, 112, 113
INVALID_REGULAR_EXPRESSION = 128


class JavaMember(EventProcess):
    """A GroupMember.java process: the events group_member.py prints."""

    def __init__(self, hub, broker, workdir, name, group, topics, lib, instance_id=None):
        # topics: names, or ["re:<regex>"] for a SubscriptionPattern
        argv = ["java", "-cp", os.path.join(lib, "*"), JAVA_MEMBER, broker.bootstrap, group,
                "consumer", name, ",".join(topics)] + ([instance_id] if instance_id else [])
        super().__init__(hub, name, argv, workdir)


class PypiMember(EventProcess):
    """A group_member.py process on the PyPI client, group.protocol=consumer."""

    def __init__(self, hub, broker, workdir, name, group, topics, instance_id=None):
        argv = [PYPI_PYTHON, os.path.join(HERE, "group_member.py"), "--bootstrap",
                broker.bootstrap, "--group", group, "--client-id", name, "--protocol", "consumer",
                "--debug", "cgrp"]
        for t in topics:
            argv += ["--topic", t]
        if instance_id:
            argv += ["--instance-id", instance_id]
        super().__init__(hub, name, argv, workdir)


def assignment(member):
    """What the member owns now by its callbacks, as {(topic, partition)}."""
    changes = member.of("assign", "revoke", "lost")
    return set() if not changes else {tuple(tp) for tp in changes[-1]["assignment"]}


def ownership(member, ended_at=None):
    """[(topic, partition, from, to)]: each stretch of time the member owned
    a partition, by its callbacks; `to` is `ended_at` (a kill) or infinity
    for what it still owns."""
    out, start = [], {}
    for e in member.of("assign", "revoke", "lost"):
        for tp in map(tuple, e["delta"]):
            if e["event"] == "assign":
                start[tp] = e["t"]
            elif tp in start:
                out.append(tp + (start.pop(tp), e["t"]))
    end = float("inf") if ended_at is None else ended_at
    out += [tp + (t, end) for tp, t in start.items()]
    return out


class Producing:
    """Writes records "<prefix>-<n>" round-robin over a topic's partitions
    until stopped; `acked` holds every value the broker acknowledged."""

    def __init__(self, broker, topic, partitions, prefix):
        self.acked, self.failed = [], []
        self.stop_flag = threading.Event()
        self.p = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all", "linger.ms": 5})
        self.topic, self.partitions, self.prefix = topic, partitions, prefix
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _report(self, err, msg):
        (self.failed if err else self.acked).append(msg.value().decode())

    def _run(self):
        n = 0
        while not self.stop_flag.is_set():
            for _ in range(self.partitions):
                self.p.produce(self.topic, value=("%s-%d" % (self.prefix, n)).encode(),
                               partition=n % self.partitions, on_delivery=self._report)
                n += 1
            self.p.flush(TIMEOUT_S)
            self.stop_flag.wait(0.05)  # pacing: a steady trickle, not a flood

    def stop(self):
        self.stop_flag.set()
        self.thread.join(TIMEOUT_S)
        self.p.flush(TIMEOUT_S)


class ConsumerGroupsTest(test_groups.MemberProcessTest):
    broker_args = test_groups.NO_DELAY + CONSUMER_GROUP_ARGS
    workdir_prefix = "strata-consumer-groups-"

    @classmethod
    def setUpClass(cls):
        cls.lib = kafka_lib()
        if not os.access(PYPI_PYTHON, os.X_OK):
            raise AssertionError("no PyPI confluent-kafka at %s: run scripts/setup.sh --tests"
                                 % PYPI_PYTHON)

    def start(self, kind, name, group, topics, instance_id=None):
        if kind == "java":
            m = JavaMember(self.hub, self.broker, self.workdir, name, group, topics, self.lib,
                           instance_id)
        else:
            m = PypiMember(self.hub, self.broker, self.workdir, name, group, topics, instance_id)
        self.members.append(m)
        return m

    def wait_owned(self, members, partitions, what):
        want = sorted(partitions)
        self.wait(lambda: all(assignment(m) for m in members) and
                  sorted(tp for m in members for tp in assignment(m)) == want,
                  "%s: each of %d partitions owned by exactly one of %s" % (
                      what, len(want), [m.name for m in members]))

    def wire(self):
        host, port = self.broker.bootstrap.split(":")
        conn = WireConn(host, int(port))
        self.addCleanup(conn.close)
        return conn

    def coordinator_ready(self, group):
        """Waits until `group`'s coordinator answers (the first request for
        a group creates __consumer_offsets; clients look for the
        coordinator until it is there)."""
        moving = (14, 15, 16)  # loading, not available, not coordinator
        self.wait(lambda: self.describe_group(group)["error_code"] not in moving,
                  "the coordinator of %s" % group)

    def describe_group(self, group):
        [g] = self.wire().call(69, 1, True, DESCRIBE_REQUEST,
                               {"group_ids": [group], "include_authorized_operations": False},
                               DESCRIBE_RESPONSE)["groups"]
        return g

    # -- a. churn -------------------------------------------------------------

    def churn(self, kind):
        topic, group, n = "cg-churn-" + kind, "cg-churn-" + kind, 12
        create_topic(self.broker, topic, partitions=n)
        everything = [(topic, p) for p in range(n)]
        producing = Producing(self.broker, topic, n, kind)
        self.addCleanup(producing.stop)
        members = []
        for i in range(10):
            members.append(self.start(kind, "%s-%d" % (kind, i), group, [topic]))
            self.wait_owned(members, everything, "%d member(s) joined" % len(members))
        self.wait(lambda: self.describe_group(group)["group_state"] == "Stable", "group stable")

        # The churn: one member SIGKILLed, three leave.
        before = {m.name: assignment(m) for m in members}
        marks = {m.name: len(m.events) for m in members}
        killed = members[3]
        killed_at = time.time()
        killed.kill()
        survivors = [m for m in members if m is not killed]
        self.wait_owned(survivors, everything, "after %s was killed" % killed.name)
        for leaving in members[:3]:
            leaving.close()
            self.wait_exit(leaving)
            survivors.remove(leaving)
            self.wait_owned(survivors, everything, "after %s left" % leaving.name)
        producing.stop()
        self.assertEqual(producing.failed, [])
        self.assertGreater(len(producing.acked), 0)

        # Every acknowledged record was processed by some member.
        self.wait_values(members, producing.acked, "after the churn")

        # No partition was ever owned by two members at once.
        spans = {}
        for m in members:
            for t, p, start, end in ownership(m, killed_at if m is killed else None):
                spans.setdefault((t, p), []).append((start, end, m.name))
        for tp, owners in spans.items():
            owners.sort()
            held_until, holder = owners[0][1], owners[0][2]
            for start, end, name in owners[1:]:
                self.assertGreaterEqual(start, held_until, "%s owned by %s until %.3f and by %s "
                                        "from %.3f" % (tp, holder, held_until, name, start))
                if end > held_until:
                    held_until, holder = end, name

        # A survivor's partitions that did not move were never revoked from
        # it during the churn, and it went on consuming them.
        kept = 0
        for m in survivors:
            stayed = before[m.name] & assignment(m)
            during = m.events[marks[m.name]:]
            for e in during:
                if e["event"] in ("revoke", "lost"):
                    self.assertFalse(stayed & {tuple(tp) for tp in e["delta"]},
                                     "%s: %s revoked during the churn" % (m.name, e["delta"]))
            for tp in stayed:
                self.assertTrue(any(e["event"] == "message" and (e["topic"], e["partition"]) == tp
                                    for e in during), "%s consumed nothing of %s" % (m.name, tp))
                kept += 1
        self.assertGreater(kept, 0)

    def test_churn_pypi(self):
        self.churn("pypi")

    def test_churn_java(self):
        self.churn("java")

    def test_static_member_restart_keeps_its_partitions_and_moves_nobody(self):
        topic, group = "cg-static", "cg-static"
        create_topic(self.broker, topic, partitions=4)
        everything = [(topic, p) for p in range(4)]
        a = self.start("pypi", "static-a", group, [topic], instance_id="instance-a")
        b = self.start("java", "dynamic-b", group, [topic])
        self.wait_owned([a, b], everything, "two members")
        self.wait(lambda: self.describe_group(group)["group_state"] == "Stable", "group stable")
        mine, mark = assignment(a), len(b.events)
        epoch = self.describe_group(group)["group_epoch"]
        # a restarts: it leaves with epoch -2 (its partitions wait for it) and
        # comes back under a new member id within its session timeout.
        a.close()
        self.wait_exit(a)
        again = self.start("pypi", "static-a-again", group, [topic], instance_id="instance-a")
        self.wait(lambda: assignment(again) == mine, "the static member has its partitions back")
        self.assertEqual([e for e in b.events[mark:] if e["event"] in ("assign", "revoke", "lost")],
                         [], "the other member was moved")
        g = self.describe_group(group)
        self.assertEqual(g["group_epoch"], epoch)
        self.assertEqual(sorted((m["client_id"], m["instance_id"]) for m in g["members"]),
                         [("dynamic-b", None), ("static-a-again", "instance-a")])

    # -- b. the broker's view ---------------------------------------------------

    def test_describe_list_and_cli(self):
        topic, group = "cg-view", "cg-view"
        create_topic(self.broker, topic, partitions=4)
        a = self.start("pypi", "view-pypi", group, [topic])
        b = self.start("java", "view-java", group, [topic])
        self.wait_owned([a, b], [(topic, p) for p in range(4)], "two members")
        self.wait(lambda: self.describe_group(group)["group_state"] == "Stable", "group stable")
        g = self.describe_group(group)
        self.assertEqual((g["error_code"], g["assignor_name"]), (NONE, "uniform"))
        self.assertEqual(g["group_epoch"], g["assignment_epoch"])
        by_client = {}
        for m in g["members"]:
            self.assertEqual(m["member_epoch"], g["assignment_epoch"])
            self.assertEqual(m["subscribed_topic_names"], [topic])
            self.assertEqual(m["member_type"], 1)
            self.assertEqual(m["assignment"], m["target_assignment"])
            by_client[m["client_id"]] = {(tp["topic_name"], p) for tp in m["assignment"]["topic_partitions"]
                                         for p in tp["partitions"]}
        self.assertEqual(by_client, {"view-pypi": assignment(a), "view-java": assignment(b)})

        listed = self.wire().call(16, 5, True, LIST_GROUPS_REQUEST,
                                  {"states_filter": [], "types_filter": ["consumer"]},
                                  LIST_GROUPS_RESPONSE)["groups"]
        self.assertIn({"group_id": group, "protocol_type": "consumer", "group_state": "Stable",
                       "group_type": "consumer"}, listed)
        classic_only = self.wire().call(16, 5, True, LIST_GROUPS_REQUEST,
                                        {"states_filter": [], "types_filter": ["classic"]},
                                        LIST_GROUPS_RESPONSE)["groups"]
        self.assertNotIn(group, [x["group_id"] for x in classic_only])

        r = subprocess.run([STRATA, "--bootstrap", self.broker.bootstrap, "--json", "group",
                            "describe", group], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        described = json.loads(r.stdout)
        self.assertEqual((described["type"], described["state"]), ("consumer", "Stable"))
        self.assertEqual({m["client_id"]: {(a["topic"], a["partition"]) for a in m["assignment"]}
                          for m in described["members"]}, by_client)
        self.assertEqual({m["epoch"] for m in described["members"]}, {g["assignment_epoch"]})
        listed = json.loads(subprocess.run(
            [STRATA, "--bootstrap", self.broker.bootstrap, "--json", "group", "list"],
            capture_output=True, text=True, timeout=60, check=True).stdout)
        self.assertIn({"group": group, "type": "consumer", "state": "Stable"}, listed)
        # Kafka's own tool (its Admin client's ConsumerGroupDescribe, ListGroups v5).
        tool = ["java", "-cp", os.path.join(self.lib, "*"),
                "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                "--bootstrap-server", self.broker.bootstrap]
        out = subprocess.run(tool + ["--describe", "--group", group, "--members", "--verbose"],
                             capture_output=True, text=True, timeout=180, check=True).stdout
        rows = [line.split() for line in out.splitlines() if line.startswith(group + " ")]
        self.assertEqual(sorted(r[3] for r in rows), ["view-java", "view-pypi"], out)
        for r in rows:
            self.assertEqual(int(r[4]), len(by_client[r[3]]), out)  # #PARTITIONS
        out = subprocess.run(tool + ["--describe", "--group", group, "--state"],
                             capture_output=True, text=True, timeout=180, check=True).stdout
        [state] = [line.split() for line in out.splitlines() if line.startswith(group + " ")]
        self.assertIn("Stable", state, out)
        self.assertIn("uniform", state, out)
        out = subprocess.run(tool + ["--list", "--type"], capture_output=True, text=True,
                             timeout=180, check=True).stdout
        self.assertIn([group, "Consumer"], [line.split()[:2] for line in out.splitlines()], out)
        # Offsets are not reset under a live consumer group's feet.
        r = subprocess.run([STRATA, "--bootstrap", self.broker.bootstrap, "group", "reset-offsets",
                            group, "--topic", topic, "--to-earliest", "--execute"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("active member", r.stderr)

    def test_java_regex_subscription_follows_new_topics(self):
        create_topic(self.broker, "cg-java-re-a", partitions=2)
        create_topic(self.broker, "cg-java-re-b", partitions=1)
        create_topic(self.broker, "cg-java-other", partitions=1)
        m = self.start("java", "java-re", "cg-java-re", ["re:cg-java-re-.*"])
        self.wait(lambda: assignment(m) == {("cg-java-re-a", 0), ("cg-java-re-a", 1),
                                            ("cg-java-re-b", 0)}, "the matching topics assigned")
        create_topic(self.broker, "cg-java-re-c", partitions=1)
        self.wait(lambda: ("cg-java-re-c", 0) in assignment(m), "a new matching topic assigned")
        self.assertNotIn(("cg-java-other", 0), assignment(m))
        self.assertEqual(self.describe_group("cg-java-re")["members"][0]["subscribed_topic_regex"],
                         "cg-java-re-.*")

    # -- c. the wire ------------------------------------------------------------

    def heartbeat(self, conn, **fields):
        request = {"group_id": "cg-wire", "member_id": "", "member_epoch": 0, "instance_id": None,
                   "rack_id": None, "rebalance_timeout_ms": 30000,
                   "subscribed_topic_names": ["cg-wire"], "subscribed_topic_regex": None,
                   "server_assignor": None, "topic_partitions": []}
        request.update(fields)
        return conn.call(68, 1, True, HEARTBEAT_REQUEST, request, HEARTBEAT_RESPONSE)

    def test_bad_input_and_regex_on_the_wire(self):
        create_topic(self.broker, "cg-wire", partitions=3)
        create_topic(self.broker, "cg-wire-re-a", partitions=2)
        create_topic(self.broker, "cg-wire-re-b", partitions=1)
        create_topic(self.broker, "cg-other", partitions=1)
        conn = self.wire()
        self.coordinator_ready("cg-wire")
        self.coordinator_ready("cg-wire-re")
        codes = lambda r: (r["error_code"], r["error_message"] is not None)  # noqa: E731

        # Refused before anything happens to the group.
        self.assertEqual(codes(self.heartbeat(conn, member_id="m1", server_assignor="sticky")),
                         (UNSUPPORTED_ASSIGNOR, True))
        self.assertEqual(codes(self.heartbeat(conn, member_id="m1", subscribed_topic_regex="(")),
                         (INVALID_REGULAR_EXPRESSION, True))
        self.assertEqual(self.heartbeat(conn, member_id="")["error_code"], INVALID_REQUEST)
        self.assertEqual(self.heartbeat(conn, member_id="m1", rebalance_timeout_ms=-1)
                         ["error_code"], INVALID_REQUEST)
        self.assertEqual(self.heartbeat(conn, member_id="m1", subscribed_topic_names=None)
                         ["error_code"], INVALID_REQUEST)
        self.assertEqual(self.heartbeat(conn, member_id="ghost", member_epoch=3)["error_code"],
                         UNKNOWN_MEMBER_ID)
        self.assertEqual(self.describe_group("cg-wire")["error_code"], GROUP_ID_NOT_FOUND)

        joined = self.heartbeat(conn, member_id="m1")
        self.assertEqual((joined["error_code"], joined["member_id"], joined["member_epoch"]),
                         (NONE, "m1", 1))
        [owned] = joined["assignment"]["topic_partitions"]
        self.assertEqual(sorted(owned["partitions"]), [0, 1, 2])
        self.assertEqual(self.heartbeat(conn, member_id="m1", member_epoch=9)["error_code"],
                         FENCED_MEMBER_EPOCH)
        # Unchanged: no assignment in the answer.
        same = self.heartbeat(conn, member_id="m1", member_epoch=1, rebalance_timeout_ms=-1,
                              subscribed_topic_names=None, topic_partitions=None)
        self.assertEqual((same["error_code"], same["member_epoch"], same["assignment"]),
                         (NONE, 1, None))

        # Offsets commit only at the member's epoch.
        def commit(epoch):
            r = conn.call(8, 9, True, OFFSET_COMMIT_REQUEST, {
                "group_id": "cg-wire", "generation_id_or_member_epoch": epoch, "member_id": "m1",
                "group_instance_id": None, "topics": [{"name": "cg-wire", "partitions": [{
                    "partition_index": 0, "committed_offset": 5, "committed_leader_epoch": -1,
                    "committed_metadata": None}]}]}, OFFSET_COMMIT_RESPONSE)
            return r["topics"][0]["partitions"][0]["error_code"]
        self.assertEqual(commit(1), NONE)
        self.assertEqual(commit(2), STALE_MEMBER_EPOCH)

        # A regex subscription takes every matching topic, and follows new ones.
        regex = self.heartbeat(conn, group_id="cg-wire-re", member_id="r1",
                               subscribed_topic_names=[], subscribed_topic_regex="cg-wire-re-.*")
        self.assertEqual(regex["error_code"], NONE)
        self.assertEqual(sum(len(t["partitions"]) for t in regex["assignment"]["topic_partitions"]),
                         3)
        create_topic(self.broker, "cg-wire-re-c", partitions=2)
        epoch = regex["member_epoch"]

        def grew():
            r = self.heartbeat(conn, group_id="cg-wire-re", member_id="r1", member_epoch=epoch,
                               rebalance_timeout_ms=-1, subscribed_topic_names=None,
                               topic_partitions=None)
            return r if r["assignment"] is not None else None
        r = self.wait(grew, "the new matching topic assigned")
        self.assertEqual(sum(len(t["partitions"]) for t in r["assignment"]["topic_partitions"]), 5)
        g = self.describe_group("cg-wire-re")
        self.assertEqual(g["members"][0]["subscribed_topic_regex"], "cg-wire-re-.*")
        self.assertEqual(sorted({t["topic_name"] for t in
                                 g["members"][0]["assignment"]["topic_partitions"]}),
                         ["cg-wire-re-a", "cg-wire-re-b", "cg-wire-re-c"])

        # Leaving: epoch -1 back, the member gone.
        left = self.heartbeat(conn, member_id="m1", member_epoch=-1)
        self.assertEqual((left["error_code"], left["member_epoch"]), (NONE, -1))
        self.assertEqual(self.describe_group("cg-wire")["group_state"], "Empty")

    def test_classic_group_is_not_described_as_a_consumer_group(self):
        topic = "cg-classic"
        create_topic(self.broker, topic, partitions=2)
        self.coordinator_ready("cg-classic")
        m = self.member("classic", "cg-classic", [topic])
        self.wait(lambda: m.assignment, "classic member assigned")
        g = self.describe_group("cg-classic")
        self.assertEqual(g["error_code"], GROUP_ID_NOT_FOUND)
        # A consumer-protocol member cannot join it while it has members.
        r = self.heartbeat(self.wire(), group_id="cg-classic", member_id="x")
        self.assertEqual(r["error_code"], GROUP_ID_NOT_FOUND)


if __name__ == "__main__":
    unittest.main()
