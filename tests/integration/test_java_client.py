"""Apache Kafka's Java client (the newest 4.x on Maven Central, fetched by
bench/fetch_kafka.sh into a cache outside the repository) against a real
broker, through tests/java/ClientCheck.java:

- the producer with its defaults (acks=all, idempotence on), with every
  compression codec and record headers; what it wrote read back by
  librdkafka and by the Java consumer, and the broker's producer state
  showing an idempotent producer;
- the consumer in a classic group, eager (range) and cooperative-sticky,
  committing its offsets, a second run of the group resuming there;
- a transactional producer's committed and aborted transactions read with
  read_committed and read_uncommitted;
- the Admin client: each call it makes of Strata followed by the call that
  reads back what it changed.
"""
import glob
import json
import os
import subprocess
import unittest

from confluent_kafka import OFFSET_BEGINNING, TopicPartition

from harness import Broker
from test_confluent import create_topic, read_all

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
SOURCE = os.path.join(ROOT, "tests/java/ClientCheck.java")
STRATA = os.environ.get("STRATA_CLI", os.path.join(ROOT, "build/tools/strata"))
# Generous bounds on a JVM starting and a client finishing; never a
# measurement.
RUN_TIMEOUT_S = 180
CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]


def kafka_lib():
    """The Kafka jars' directory; fetched (Maven) when the cache lacks them."""
    r = subprocess.run([os.path.join(ROOT, "bench/fetch_kafka.sh")], capture_output=True,
                       text=True, timeout=900)
    if r.returncode != 0:
        raise AssertionError("bench/fetch_kafka.sh failed:\n" + r.stderr[-4000:])
    lib = os.path.join(r.stdout.strip().splitlines()[-1], "lib")
    if not glob.glob(os.path.join(lib, "kafka-clients-4.*.jar")):
        raise AssertionError("no kafka-clients 4.x jar in " + lib)
    return lib


class JavaTestCase(unittest.TestCase):
    """One broker for the class, and the Kafka jars' directory (`lib`)."""

    @classmethod
    def setUpClass(cls):
        cls.lib = kafka_lib()
        cls.broker = Broker(extra_args=["--set", "group.initial.rebalance.delay.ms=0"]).start()

    @classmethod
    def tearDownClass(cls):
        cls.broker.__exit__(None, None, None)


class JavaClientTest(JavaTestCase):

    def java(self, *args):
        """Runs ClientCheck; returns its RESULT objects."""
        argv = ["java", "-cp", os.path.join(self.lib, "*"), SOURCE] + [str(a) for a in args]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
        if r.returncode != 0:
            raise AssertionError("ClientCheck %s exited %d\nstdout: %s\nstderr: %s" % (
                args, r.returncode, r.stdout[-4000:], r.stderr[-4000:]))
        return [json.loads(l[len("RESULT "):]) for l in r.stdout.splitlines()
                if l.startswith("RESULT ")]

    def cli_json(self, *args):
        r = subprocess.run([STRATA, "--bootstrap", self.broker.bootstrap, "--json"] + list(args),
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def records(self, results):
        return [r for r in results if "offset" in r]

    def test_producer_defaults_with_every_codec_and_headers(self):
        n = 500
        for codec in CODECS:
            topic = "java-produce-" + codec
            create_topic(self.broker, topic, partitions=3)
            [summary] = self.java("produce", self.broker.bootstrap, topic, n, codec)
            self.assertEqual(summary, {"acked": n, "failed": 0, "first_error": None}, codec)

            # librdkafka reads exactly what was acknowledged.
            got = read_all(self.broker, [TopicPartition(topic, p, OFFSET_BEGINNING)
                                         for p in range(3)])
            self.assertEqual(sorted(r.key.decode() for r in got), sorted("k%d" % i for i in range(n)))
            for r in got:
                i = int(r.key.decode()[1:])
                self.assertEqual(r.value.decode(), "v%d-%s-%s" % (i, codec, "x" * (i % 200)))
                self.assertEqual(r.headers, [("seq", str(i).encode()), ("codec", codec.encode())])
            # Each partition's records are in the order they were sent.
            for p in range(3):
                seqs = [int(r.key.decode()[1:]) for r in got if r.partition == p]
                self.assertEqual(seqs, sorted(seqs), (codec, p))

            # The producer was idempotent: the broker knows its id, and its
            # last sequence on a partition is that partition's count - 1.
            for p in range(3):
                [producer] = self.cli_json("producers", "-t", topic, "--partition", str(p))
                self.assertGreaterEqual(producer["producer_id"], 0)
                self.assertEqual(producer["last_sequence"],
                                 sum(1 for r in got if r.partition == p) - 1, (codec, p))

    def test_classic_group_eager_and_cooperative_commit_and_resume(self):
        for strategy in ("eager", "cooperative"):
            topic = "java-group-" + strategy
            group = "java-" + strategy
            create_topic(self.broker, topic, partitions=4)
            [summary] = self.java("produce", self.broker.bootstrap, topic, 200, "lz4")
            self.assertEqual(summary["acked"], 200)

            first = self.java("consume", self.broker.bootstrap, topic, group, 200, strategy,
                              "read_uncommitted")
            self.assertIn({"assigned": 4}, first, strategy)
            got = self.records(first)
            self.assertEqual(sorted(r["key"] for r in got), sorted("k%d" % i for i in range(200)))
            self.assertIn({"consumed": 200}, first)

            # The group committed at the end of every partition: a second
            # member of the group resumes there and reads only what is new.
            [summary] = self.java("produce", self.broker.bootstrap, topic, 20, "none")
            self.assertEqual(summary["acked"], 20)
            second = self.java("consume", self.broker.bootstrap, topic, group, 20, strategy,
                               "read_uncommitted")
            self.assertEqual(sorted(r["key"] for r in self.records(second)),
                             sorted("k%d" % i for i in range(20)))
            self.assertTrue(all(r["value"].startswith("v%s-none-" % r["key"][1:])
                                for r in self.records(second)))

            committed = self.cli_json("group", "describe", group)
            offsets = {(o["topic"], o["partition"]): o["committed"] for o in committed["offsets"]}
            ends = {}
            for r in got + self.records(second):
                ends[(topic, r["partition"])] = max(ends.get((topic, r["partition"]), 0),
                                                    r["offset"] + 1)
            self.assertEqual(offsets, ends, strategy)

    def test_transactions_and_read_committed(self):
        topic = "java-txn"
        create_topic(self.broker, topic, partitions=2)
        n = 50
        ended = self.java("transactions", self.broker.bootstrap, topic, "java-txn-writer", n)
        self.assertEqual(ended, [{"ended": "c1"}, {"ended": "a"}, {"ended": "c2"}])

        committed = self.records(self.java("consume", self.broker.bootstrap, topic,
                                           "java-txn-committed", 2 * n, "eager", "read_committed"))
        self.assertEqual(sorted(r["value"] for r in committed),
                         sorted(["c1-%d" % i for i in range(n)] + ["c2-%d" % i for i in range(n)]))
        everything = self.records(self.java("consume", self.broker.bootstrap, topic,
                                            "java-txn-all", 3 * n, "eager", "read_uncommitted"))
        self.assertEqual(sorted(r["value"] for r in everything),
                         sorted(["%s-%d" % (k, i) for k in ("c1", "a", "c2") for i in range(n)]))

    def test_admin_client_calls_and_what_they_changed(self):
        steps = {r.pop("step"): r for r in self.java("admin", self.broker.bootstrap, "java-admin")}
        self.assertEqual(steps["describeCluster"]["nodes"], 1)
        self.assertEqual(steps["createTopics"], {"listed": True, "partitions": 3,
                                                 "topic_id_set": True})
        self.assertEqual(steps["createPartitions"], {"partitions": 4})
        self.assertEqual(steps["incrementalAlterConfigs"],
                         {"max.message.bytes": "200000", "source": "DYNAMIC_TOPIC_CONFIG",
                          "retention.ms": "604800000"})
        self.assertEqual(steps["transactions"], {"state": "Ongoing", "described_state": "Ongoing",
                                                 "topic_partitions": 1, "same_producer": True})
        # Ten records and the commit marker on partition 0; the second
        # transaction's record and its abort marker on 1. The newest
        # timestamp on 0 is the commit marker's.
        offsets = steps["listOffsets"]
        self.assertEqual((offsets["earliest"], offsets["latest"]),
                         ({"0": 0, "1": 0}, {"0": 11, "1": 2}))
        self.assertEqual(offsets["max_timestamp_offset"], 10)
        self.assertEqual(offsets["for_timestamp"], 5)
        self.assertEqual(steps["deleteRecords"], {"earliest": {"0": 4}})
        self.assertEqual(steps["describeLogDirs"], {"hosted": True})
        self.assertEqual(steps["electLeaders"], {"error": "ElectionNotNeededException"})
        self.assertEqual(steps["describeConsumerGroups"],
                         {"state": "Stable", "members": 1, "assigned": 4})
        self.assertEqual(steps["groupOffsets"], {"listed": True, "committed": 8, "altered": 5,
                                                 "offset_deleted": True, "group_deleted": True})
        self.assertEqual(steps["deleteTopics"], {"listed": False})


if __name__ == "__main__":
    unittest.main()
