"""Three brokers and etcd (scripts/cluster.sh) with real clients:
confluent-kafka (librdkafka), kcat, kafka-python's wire client and kafkajs.

What it shows: every broker is in Metadata; an RF 1 topic spreads over all
three; produce and consume go through each partition's leader; a request
sent to a broker that does not lead gets NOT_LEADER_OR_FOLLOWER and a
client with a stale view recovers by itself; admin requests sent to any
broker reach the controller; SIGKILL of the controller moves control;
SIGKILL of a broker takes its partitions offline and back with every
acknowledged message; with etcd stopped produce and fetch go on while
CreateTopics fails with a clear error, and everything resumes with etcd.
"""
import json
import os
import subprocess
import time
import unittest

import requests
from confluent_kafka import KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewPartitions, NewTopic
from kafka import KafkaClient
from kafka.protocol.admin import (AlterConfigsRequest, CreatePartitionsRequest, CreateTopicsRequest,
                                  DeleteTopicsRequest)
from kafka.protocol.metadata import MetadataRequest
from kafka.protocol.offset import OffsetRequest

from cluster import Cluster, ClusterTestCase
from test_confluent import produce_all, read_all

TIMEOUT_S = 30
HERE = os.path.dirname(os.path.abspath(__file__))
KAFKAJS_DIR = os.path.join(HERE, "kafkajs")
STRATA = os.environ.get("STRATA_CLI", os.path.join(HERE, "../../build/tools/strata"))
NOT_LEADER_OR_FOLLOWER = 6
INVALID_REQUEST = 42


class At:
    """One broker as the helpers of test_confluent see a broker."""

    def __init__(self, bootstrap):
        self.bootstrap = bootstrap


def wait_until(what, fn, timeout=TIMEOUT_S):
    """Polls `fn` (a read of the cluster's state) until it returns a truthy
    value; fails naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = fn()
            if last:
                return last
        except KafkaException as e:
            last = e
        time.sleep(0.1)
    raise AssertionError("%s: not within %ds (last: %r)" % (what, timeout, last))


def metadata(bootstrap, topic=None):
    return AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic=topic, timeout=10)


def delete(bootstrap, *names):
    """Deletes topics a test made, so that the class's cluster is left as found
    (placement balances over every partition already placed)."""
    a = AdminClient({"bootstrap.servers": bootstrap})
    for f in a.delete_topics(list(names), request_timeout=TIMEOUT_S).values():
        f.result(TIMEOUT_S)


def active_controller(bootstrap):
    """The active controller, from DescribeCluster (`strata cluster`): Metadata
    names the broker that answers, which relays the controller's requests."""
    out = subprocess.run([STRATA, "--bootstrap", bootstrap, "--timeout", "5", "--json", "cluster"],
                         capture_output=True, timeout=TIMEOUT_S, check=True).stdout
    return json.loads(out)["controller"]


def leaders(bootstrap, topic):
    t = metadata(bootstrap, topic).topics[topic]
    return {p: m.leader for p, m in t.partitions.items()}


def create(bootstrap, name, partitions=1, rf=1, replica_assignment=None):
    a = AdminClient({"bootstrap.servers": bootstrap})
    t = (NewTopic(name, len(replica_assignment), -1, replica_assignment=replica_assignment) if replica_assignment
         else NewTopic(name, partitions, rf))
    f = a.create_topics([t], request_timeout=TIMEOUT_S)[name]
    return f.result(TIMEOUT_S)


def create_error(bootstrap, name, partitions=1, rf=1):
    try:
        create(bootstrap, name, partitions, rf)
    except KafkaException as e:
        return e.args[0]
    raise AssertionError("creating %s succeeded" % name)


def messages(n, tag):
    return [{"key": b"k%d" % i, "value": b"%s-%d" % (tag, i)} for i in range(n)]


def read_topic(bootstrap, topic, partitions):
    got = read_all(At(bootstrap), [TopicPartition(topic, p, 0) for p in range(partitions)])
    return sorted(r.value for r in got)


class WireClient:
    """kafka-python's protocol client: one request to one chosen broker."""

    def __init__(self, bootstrap):
        self.client = KafkaClient(bootstrap_servers=bootstrap, api_version=(2, 5, 0),
                                  request_timeout_ms=TIMEOUT_S * 1000)

    def call(self, node, request):
        deadline = time.monotonic() + TIMEOUT_S
        while not self.client.ready(node):
            if time.monotonic() > deadline:
                raise AssertionError("cannot connect to broker %d" % node)
            self.client.poll(timeout_ms=100)
        f = self.client.send(node, request)
        self.client.poll(future=f, timeout_ms=TIMEOUT_S * 1000)
        if f.failed():
            raise f.exception
        return f.value

    def close(self):
        self.client.close()


class ClusterClientsTest(ClusterTestCase):
    """One cluster for the tests that leave it as they found it."""


    def test_every_broker_lists_all_three_and_an_rf1_topic_spreads_over_them(self):
        c = self.cluster
        for n in (1, 2, 3):
            md = metadata(c.address(n))
            self.assertEqual(sorted(md.brokers), [1, 2, 3])
            self.assertEqual({b.host for b in md.brokers.values()},
                             {"127.0.0.11", "127.0.0.12", "127.0.0.13"})
            self.assertIn(md.controller_id, (1, 2, 3))
        # Each names itself in Metadata (a live broker, which relays to the
        # controller), and all agree on the active controller.
        wire = WireClient(c.bootstrap)
        try:
            for n in (1, 2, 3):
                self.assertEqual(wire.call(n, MetadataRequest[1](topics=[])).controller_id, n)
        finally:
            wire.close()
        self.assertEqual(len({active_controller(c.address(n)) for n in (1, 2, 3)}), 1)
        self.assertIn(active_controller(c.address(1)), (1, 2, 3))
        out = subprocess.run(["kcat", "-b", c.address(3), "-L"], capture_output=True,
                             timeout=TIMEOUT_S, check=True).stdout.decode()
        for n in (1, 2, 3):
            self.assertIn("broker %d at 127.0.0.%d:9092" % (n, 10 + n), out)

        create(c.address(2), "spread", partitions=6)
        lead = wait_until("leaders of every partition on every broker", lambda: all(
            -1 not in leaders(c.address(n), "spread").values() for n in (1, 2, 3)) and
            leaders(c.address(1), "spread"))
        per_broker = {}
        for p, leader in lead.items():
            per_broker[leader] = per_broker.get(leader, 0) + 1
        self.assertEqual(per_broker, {1: 2, 2: 2, 3: 2})

        # librdkafka produces to and fetches from each leader.
        sent = messages(600, b"spread")
        reports = produce_all(At(c.address(1)), "spread", sent)
        self.assertTrue(all(r.error is None for r in reports), [r.error for r in reports][:3])
        self.assertEqual({r.partition for r in reports}, set(range(6)))
        self.assertEqual(read_topic(c.address(3), "spread", 6), sorted(m["value"] for m in sent))
        # Each partition's bytes live only on its leader.
        for p, leader in lead.items():
            for n in (1, 2, 3):
                path = os.path.join(c.dir, "broker-%d" % n, "spread-%d" % p)
                self.assertEqual(os.path.isdir(path), n == leader, path)

        # kcat reads one partition through the cluster.
        out = subprocess.run(["kcat", "-b", c.bootstrap, "-C", "-t", "spread", "-p", "4", "-e",
                              "-q", "-f", "%s\n"], capture_output=True, timeout=TIMEOUT_S,
                             check=True).stdout.decode().split()
        self.assertEqual(sorted(out), sorted(m["value"].decode() for m, r in zip(sent, reports)
                                             if r.partition == 4))

    def test_a_replication_factor_above_the_live_brokers_is_refused_with_a_reason(self):
        c = self.cluster
        err = create_error(c.address(1), "rf4", rf=4)
        self.assertEqual(err.code(), KafkaError.INVALID_REPLICATION_FACTOR)
        self.assertIn("3 live broker", err.str())
        self.assertNotIn("rf4", metadata(c.address(1)).topics)

    def test_create_partitions_takes_an_explicit_assignment_over_several_brokers(self):
        c = self.cluster
        create(c.address(2), "placed", replica_assignment=[[1, 2, 3]])
        self.addCleanup(delete, c.address(1), "placed")
        a = AdminClient({"bootstrap.servers": c.address(3)})
        f = a.create_partitions([NewPartitions("placed", 3, replica_assignment=[[1, 2, 3], [3, 2, 1]])],
                                request_timeout=TIMEOUT_S)["placed"]
        f.result(TIMEOUT_S)
        replicas = wait_until("three partitions of placed", lambda: (lambda t: len(t.partitions) == 3 and {
            p: m.replicas for p, m in t.partitions.items()})(metadata(c.address(1), "placed").topics["placed"]))
        self.assertEqual(replicas, {0: [1, 2, 3], 1: [1, 2, 3], 2: [3, 2, 1]})
        lead = wait_until("leaders of placed", lambda: -1 not in leaders(c.address(1), "placed").values()
                          and leaders(c.address(1), "placed"))
        self.assertEqual(lead, {0: 1, 1: 1, 2: 3})
        # The new partitions take messages (acks=all over all three replicas).
        sent = [{"value": b"placed-%d" % p, "partition": p} for p in range(3)]
        reports = produce_all(At(c.bootstrap), "placed", sent)
        self.assertEqual([r.error for r in reports], [None] * 3)
        self.assertEqual(read_topic(c.address(2), "placed", 3), sorted(m["value"] for m in sent))

        # Refused as Kafka refuses them: a count of replicas other than the
        # topic's factor, a broker named twice, a broker that is not live, or
        # a number of lists other than the number of new partitions.
        for assignment in ([[1, 2]], [[1, 1, 2]], [[1, 2, 9]], [[1, 2, 3], [1, 2, 3]]):
            with self.subTest(assignment=assignment):
                f = a.create_partitions([NewPartitions("placed", 4, replica_assignment=assignment)],
                                        request_timeout=TIMEOUT_S)["placed"]
                with self.assertRaises(KafkaException) as cm:
                    f.result(TIMEOUT_S)
                self.assertEqual(cm.exception.args[0].code(), KafkaError.INVALID_REPLICA_ASSIGNMENT,
                                 cm.exception.args[0].str())
        self.assertEqual(len(metadata(c.address(1), "placed").topics["placed"].partitions), 3)

    def test_admin_lists_naming_a_topic_twice_get_one_invalid_request_answer_and_change_nothing(self):
        c = self.cluster
        create(c.address(1), "named-twice")
        self.addCleanup(delete, c.address(1), "named-twice")
        wire = WireClient(c.bootstrap)
        try:
            resp = wire.call(2, DeleteTopicsRequest[1](topics=["named-twice", "named-twice"],
                                                        timeout=TIMEOUT_S * 1000))
            self.assertEqual(resp.topic_error_codes, [("named-twice", INVALID_REQUEST)])
            resp = wire.call(3, CreateTopicsRequest[1](
                create_topic_requests=[("new-twice", 1, 1, [], []), ("new-twice", 2, 1, [], [])],
                timeout=TIMEOUT_S * 1000, validate_only=False))
            self.assertEqual([e[:2] for e in resp.topic_errors], [("new-twice", INVALID_REQUEST)])
            self.assertIn("Duplicate", resp.topic_errors[0][2])
            resp = wire.call(1, CreatePartitionsRequest[0](
                topic_partitions=[("named-twice", (2, None)), ("named-twice", (3, None))],
                timeout=TIMEOUT_S * 1000, validate_only=False))
            self.assertEqual([e[:2] for e in resp.topic_errors], [("named-twice", INVALID_REQUEST)])
            # One good entry beside a duplicated one is still served.
            resp = wire.call(1, DeleteTopicsRequest[1](topics=["gone-once", "named-twice", "named-twice"],
                                                        timeout=TIMEOUT_S * 1000))
            self.assertEqual(sorted(resp.topic_error_codes),
                             [("gone-once", 3), ("named-twice", INVALID_REQUEST)])
        finally:
            wire.close()
        md = metadata(c.address(1))
        self.assertNotIn("new-twice", md.topics)
        self.assertEqual(len(md.topics["named-twice"].partitions), 1)

    def test_a_request_to_the_wrong_broker_gets_not_leader_and_clients_recover(self):
        c = self.cluster
        create(c.address(1), "wrong", replica_assignment=[[1]])
        wire = WireClient(c.bootstrap)
        try:
            # ListOffsets v1 for wrong-0 (led by 1) asked of brokers 2 and 3.
            for node in (2, 3):
                resp = wire.call(node, OffsetRequest[1](replica_id=-1,
                                                        topics=[("wrong", [(0, -1)])]))
                self.assertEqual(resp.topics[0][1][0][1], NOT_LEADER_OR_FOLLOWER)
            resp = wire.call(1, OffsetRequest[1](replica_id=-1, topics=[("wrong", [(0, -1)])]))
            self.assertEqual(resp.topics[0][1][0][1], 0)
        finally:
            wire.close()

        # A producer that learnt "wrong-0 is on broker 1" keeps that view
        # while the topic is recreated on broker 2: its next sends go to
        # broker 1, which answers NOT_LEADER_OR_FOLLOWER, and it finds the
        # new leader by itself.
        log = []
        p = Producer({"bootstrap.servers": c.address(1), "acks": "all",
                      "topic.metadata.refresh.interval.ms": 600000, "debug": "protocol,msg",
                      "logger": _Collect(log), "message.timeout.ms": TIMEOUT_S * 1000})
        delivered = []
        p.produce("wrong", b"before", partition=0, on_delivery=lambda e, m: delivered.append(e))
        self.assertEqual(p.flush(TIMEOUT_S), 0)
        a = AdminClient({"bootstrap.servers": c.address(1)})  # outlives the future
        a.delete_topics(["wrong"], request_timeout=TIMEOUT_S)["wrong"].result(TIMEOUT_S)
        wait_until("wrong deleted everywhere",
                   lambda: all("wrong" not in metadata(c.address(n)).topics for n in (1, 2, 3)))
        create(c.address(1), "wrong", replica_assignment=[[2]])
        wait_until("wrong recreated on broker 2 as every broker sees it",
                   lambda: all(leaders(c.address(n), "wrong") == {0: 2} for n in (1, 2, 3)))
        for i in range(20):
            p.produce("wrong", b"after-%d" % i, partition=0,
                      on_delivery=lambda e, m: delivered.append(e))
        self.assertEqual(p.flush(TIMEOUT_S), 0)
        self.assertEqual(delivered, [None] * 21)
        self.assertTrue(any("Not leader for partition" in line for line in log),
                        "the producer never met NOT_LEADER_OR_FOLLOWER")
        self.assertEqual(read_topic(c.address(2), "wrong", 1), sorted(b"after-%d" % i
                                                                       for i in range(20)))

    def test_a_second_broker_with_a_taken_node_id_refuses_to_start(self):
        c = self.cluster
        data = os.path.join(c.dir, "intruder")
        r = subprocess.run([os.environ.get("STRATA_BROKER", "strata-broker"), "--node-id", "2",
                            "--data-dir", data, "--listen", "127.0.0.14:9092", "--set",
                            "metadata.store=etcd", "--set", "etcd.endpoints=127.0.0.10:2379",
                            # It waits two sessions before it gives up: in
                            # case the holder were its own killed earlier run.
                            "--set", "broker.session.timeout.ms=2000"],
                           capture_output=True, timeout=TIMEOUT_S)
        out = (r.stdout + r.stderr).decode()
        self.assertEqual(r.returncode, 1, out)
        self.assertIn("node id 2 is already registered by the broker at 127.0.0.12:9092", out)
        self.assertEqual(sorted(metadata(c.address(2)).brokers), [1, 2, 3])
        self.assertEqual(metadata(c.address(2)).brokers[2].host, "127.0.0.12")

    def test_a_cluster_wide_broker_config_reaches_every_broker(self):
        c = self.cluster
        # The cluster default is the BROKER resource (type 4) with an empty
        # name; librdkafka 2.0.2 cannot name it, kafka-python's wire client can.
        def set_default(entries):
            wire = WireClient(c.bootstrap)
            try:
                resp = wire.call(1, AlterConfigsRequest[0](
                    resources=[(4, "", entries)], validate_only=False))
                self.assertEqual(resp.resources[0][0], 0, resp.resources)
            finally:
                wire.close()

        set_default([("log.retention.ms", "4321000")])

        def seen_by(n):
            b = AdminClient({"bootstrap.servers": c.address(n)})
            res = ConfigResource("broker", str(n))
            entry = b.describe_configs([res], request_timeout=TIMEOUT_S)[res].result(TIMEOUT_S)
            e = entry["log.retention.ms"]
            return e.value == "4321000" and e.source == ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG.value

        for n in (1, 2, 3):
            wait_until("broker %d applying the cluster default" % n, lambda: seen_by(n))
        # New topics anywhere inherit it.
        create(c.address(3), "inherits", partitions=3)
        for n in (1, 2, 3):
            a = AdminClient({"bootstrap.servers": c.address(n)})
            res = ConfigResource("topic", "inherits")
            got = a.describe_configs([res], request_timeout=TIMEOUT_S)[res].result(TIMEOUT_S)
            self.assertEqual(got["retention.ms"].value, "4321000")
        set_default([])

    def test_admin_requests_to_any_broker_reach_the_controller(self):
        c = self.cluster
        controller = active_controller(c.address(1))
        others = [n for n in (1, 2, 3) if n != controller]
        wire = WireClient(c.bootstrap)
        try:
            for i, node in enumerate(others):
                name = "forwarded-%d" % i
                resp = wire.call(node, CreateTopicsRequest[1](
                    create_topic_requests=[(name, 2, 1, [], [])], timeout=TIMEOUT_S * 1000,
                    validate_only=False))
                self.assertEqual(resp.topic_errors[0][:2], (name, 0), resp.topic_errors)
                wait_until(name + " in metadata",
                           lambda: name in metadata(c.address(controller)).topics)
        finally:
            wire.close()
        # kafkajs creates, describes and produces through a broker that is
        # not the controller too.
        steps = [{"op": "createTopics", "topics": [{"topic": "js-cluster", "numPartitions": 3}]},
                 {"op": "fetchTopicMetadata", "topics": ["js-cluster"]},
                 {"op": "send", "topic": "js-cluster", "acks": -1,
                  "messages": [{"key": None, "value": "anM=", "partition": p} for p in range(3)]}]
        r = subprocess.run(["node", os.path.join(KAFKAJS_DIR, "driver.js"), c.address(others[0])],
                           input=json.dumps(steps).encode(), capture_output=True,
                           timeout=120, cwd=KAFKAJS_DIR)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        results = json.loads(r.stdout)["results"]
        self.assertTrue(all("ok" in res for res in results), results)
        self.assertEqual(read_topic(c.bootstrap, "js-cluster", 3), [b"js"] * 3)


class _Collect:
    """A logging.Logger stand-in for librdkafka's log lines."""

    def __init__(self, out):
        self.out = out

    def log(self, level, fmt, *args):
        self.out.append(fmt % args if args else fmt)


class ClusterFaultTest(unittest.TestCase):
    """A fresh cluster per test: each one kills something."""

    def setUp(self):
        self.cluster = Cluster(brokers=3).up()

    def tearDown(self):
        self.cluster.__exit__(None, None, None)

    def test_sigkill_of_the_controller_hands_control_to_another_broker(self):
        c = self.cluster
        old = active_controller(c.address(1))
        survivor = c.address(1 if old != 1 else 2)
        c.kill(old)
        # At once, before the dead controller's registration lapses: Metadata
        # names a live broker as the controller, and a fresh admin client's
        # CreateTopics through it completes once a new controller is elected.
        self.assertNotEqual(metadata(survivor).controller_id, old)
        create(survivor, "right-after-the-kill", partitions=2)
        new = wait_until("a new controller", lambda: (
            lambda cid: cid if cid not in (-1, old) else None)(active_controller(survivor)))
        self.assertNotEqual(new, old)
        create(survivor, "after-failover", partitions=4)
        lead = wait_until("leaders of after-failover", lambda: (
            lambda ls: ls if -1 not in ls.values() else None)(leaders(survivor, "after-failover")))
        self.assertNotIn(old, lead.values())  # placed over live brokers only
        c.restart(old)
        wait_until("the old controller back in Metadata",
                   lambda: old in metadata(survivor).brokers)
        self.assertEqual(active_controller(c.address(old)), new)

    def test_sigkill_of_a_broker_takes_its_partitions_offline_and_back_with_every_message(self):
        c = self.cluster
        create(c.address(1), "durable", partitions=6)
        lead = wait_until("leaders", lambda: (
            lambda ls: ls if -1 not in ls.values() else None)(leaders(c.address(1), "durable")))
        sent = messages(600, b"before")
        reports = produce_all(At(c.bootstrap), "durable", sent)
        self.assertTrue(all(r.error is None for r in reports))
        victim = 2
        gone = sorted(p for p, leader in lead.items() if leader == victim)
        c.kill(victim)
        # Its partitions go offline (RF 1: no one else holds them) ...
        wait_until("broker %d's partitions offline" % victim, lambda: all(
            leaders(c.address(1), "durable")[p] == -1 for p in gone))
        self.assertNotIn(victim, metadata(c.address(1)).brokers)
        md = metadata(c.address(3), "durable").topics["durable"].partitions
        for p in gone:
            self.assertEqual(md[p].error.code(), KafkaError.LEADER_NOT_AVAILABLE)
            self.assertEqual(md[p].replicas, [victim])
        # The CLI shows them offline rather than failing.
        out = subprocess.run([os.environ.get("STRATA_CLI", "strata"), "--bootstrap", c.address(1),
                              "--json", "topic", "describe", "durable"], capture_output=True,
                             timeout=TIMEOUT_S)
        self.assertEqual(out.returncode, 0, out.stderr)
        described = {p["partition"]: p for p in json.loads(out.stdout)["partitions"]}
        self.assertEqual(sorted(p for p, d in described.items() if d.get("offline")), gone)
        # ... while the others take writes.
        alive = [p for p in range(6) if p not in gone]
        more = [{"value": b"during-%d" % i, "partition": alive[i % len(alive)]} for i in range(60)]
        self.assertTrue(all(r.error is None for r in produce_all(At(c.address(1)), "durable", more)))
        # Back on its data, leading what it led, with every acknowledged message.
        c.restart(victim)
        wait_until("broker %d leads its partitions again" % victim, lambda: all(
            leaders(c.address(n), "durable")[p] == victim for n in (1, 2, 3) for p in gone))
        want = sorted([m["value"] for m in sent] + [m["value"] for m in more])
        self.assertEqual(read_topic(c.address(3), "durable", 6), want)

    def test_with_etcd_stopped_produce_and_fetch_go_on_and_admin_fails_clearly(self):
        c = self.cluster
        create(c.address(1), "steady", partitions=3)
        wait_until("leaders everywhere", lambda: all(
            -1 not in leaders(c.address(n), "steady").values() for n in (1, 2, 3)))
        first = messages(300, b"first")
        self.assertTrue(all(r.error is None for r in produce_all(At(c.bootstrap), "steady", first)))
        c.kill_etcd()
        # Past the session timeout, with no etcd: the sole replicas still
        # serve (no other broker can have been elected) ...
        wait_until("every broker past its session without etcd", lambda: all(
            "leads only the partitions" in c.log(n) for n in (1, 2, 3)))
        second = messages(300, b"second")
        self.assertTrue(all(r.error is None for r in produce_all(At(c.bootstrap), "steady", second)))
        self.assertEqual(read_topic(c.bootstrap, "steady", 3),
                         sorted(m["value"] for m in first + second))
        # ... while a topic cannot be created, and the error says why.
        err = create_error(c.address(2), "needs-etcd")
        self.assertEqual(err.code(), KafkaError.REQUEST_TIMED_OUT, err.str())
        self.assertIn("etcd", err.str())
        c.restart_etcd()
        wait_until("CreateTopics working again", lambda: _created(c.address(2), "needs-etcd"))
        third = messages(30, b"third")
        self.assertTrue(all(r.error is None for r in produce_all(At(c.bootstrap), "steady", third)))
        self.assertEqual(sorted(metadata(c.address(3)).brokers), [1, 2, 3])

    def test_the_schema_registry_answers_on_every_broker_and_keeps_ids_when_its_leader_dies(self):
        c = self.cluster
        url = lambda n: "http://127.0.0.%d:8081" % (10 + n)

        def registry(n, method, path, body=None, expect=200):
            r = requests.request(method, url(n) + path, data=None if body is None else json.dumps(body),
                                 headers={"Content-Type": "application/vnd.schemaregistry.v1+json"},
                                 timeout=TIMEOUT_S)
            self.assertEqual(r.status_code, expect, "broker %d %s %s: %s" % (n, method, path, r.text))
            return r.json()

        def record(name):
            return {"schema": json.dumps({"type": "record", "name": name,
                                          "fields": [{"name": "id", "type": "long"}]})}

        # Writes sent to every broker reach the leader of _schemas (created
        # by the first, RF 3); each answers reads the same.
        ids = {}
        for i in range(6):
            n = 1 + i % 3
            ids["s%d" % i] = registry(n, "POST", "/subjects/s%d/versions" % i, record("R%d" % i))["id"]
        self.assertEqual(sorted(ids.values()), list(range(1, 7)))
        for n in (1, 2, 3):
            self.assertEqual(registry(n, "GET", "/subjects"), sorted(ids))
            for subject, i in ids.items():
                self.assertEqual(registry(n, "GET", "/subjects/%s/versions/latest" % subject)["id"], i)
        md = metadata(c.address(1), "_schemas").topics["_schemas"].partitions[0]
        self.assertEqual(sorted(md.replicas), [1, 2, 3])
        # SIGKILL of its leader: another broker leads, with every id.
        old = md.leader
        c.kill(old)
        survivors = [n for n in (1, 2, 3) if n != old]
        wait_until("a new leader of _schemas", lambda: leaders(c.address(survivors[0]), "_schemas")[0]
                   not in (-1, old))
        for n in survivors:
            for subject, i in ids.items():
                self.assertEqual(registry(n, "GET", "/subjects/%s/versions/1" % subject)["id"], i)
        fresh = registry(survivors[1], "POST", "/subjects/after/versions", record("After"))["id"]
        self.assertEqual(fresh, 7)
        self.assertEqual(registry(survivors[0], "GET", "/schemas/ids/7/subjects"), ["after"])
        # The killed broker, back, has them too.
        c.restart(old)
        self.assertEqual(wait_until("broker %d's registry answering" % old,
                                    lambda: _registry_subjects(url(old))), sorted(list(ids) + ["after"]))


def _registry_subjects(url):
    try:
        r = requests.get(url + "/subjects", timeout=5)
        return r.json() if r.status_code == 200 else None
    except requests.RequestException:
        return None


def _created(bootstrap, name):
    try:
        create(bootstrap, name)
        return True
    except KafkaException as e:
        if e.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS:
            return True
        return False


if __name__ == "__main__":
    unittest.main()
