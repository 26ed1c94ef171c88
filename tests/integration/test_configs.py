"""Topic and broker configs through confluent-kafka's AdminClient (librdkafka
2.0.2, DescribeConfigs v1 with synonyms, AlterConfigs v0/v1) against a real
broker: every Kafka topic config accepted and described with its source and
synonyms, compression.type recompressing on the broker (checked in the stored
segments with `strata dump-log`), AlterConfigs of topics, dynamic broker
configs applied without a restart and kept after one, static broker configs
refused by name.

kafkajs's side of the same APIs is in test_kafkajs.py; IncrementalAlterConfigs
and DescribeConfigs v3+ (documentation), which neither client library here
sends, are covered by server/broker_test.cc through the wire protocol.
"""
import json
import os
import socket
import subprocess
import tempfile
import unittest

from confluent_kafka import OFFSET_BEGINNING, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource

from harness import BROKER, Broker
from test_confluent import (TIMEOUT_S, admin, create_topic, create_topic_error, produce_all,
                            read_all, topic_partitions)

HERE = os.path.dirname(os.path.abspath(__file__))
STRATA = os.environ.get("STRATA_CLI", os.path.join(HERE, "../../build/tools/strata"))
NODE_ID = "1"  # the harness's broker runs with the default node id

# Kafka 3.x's topic configs without tiered storage's, with Kafka's defaults.
KAFKA_TOPIC_CONFIGS = {
    "cleanup.policy": "delete",
    "compression.gzip.level": "-1",
    "compression.lz4.level": "9",
    "compression.type": "producer",
    "compression.zstd.level": "3",
    "delete.retention.ms": "86400000",
    "file.delete.delay.ms": "60000",
    "flush.messages": "9223372036854775807",
    "flush.ms": "9223372036854775807",
    "follower.replication.throttled.replicas": "",
    "index.interval.bytes": "4096",
    "leader.replication.throttled.replicas": "",
    "max.compaction.lag.ms": "9223372036854775807",
    "max.message.bytes": "1048588",
    "message.downconversion.enable": "true",
    "message.format.version": "3.0-IV1",
    "message.timestamp.after.max.ms": "9223372036854775807",
    "message.timestamp.before.max.ms": "9223372036854775807",
    "message.timestamp.difference.max.ms": "9223372036854775807",
    "message.timestamp.type": "CreateTime",
    "min.cleanable.dirty.ratio": "0.5",
    "min.compaction.lag.ms": "0",
    "min.insync.replicas": "1",
    "preallocate": "false",
    "retention.bytes": "-1",
    "retention.ms": "604800000",
    "segment.bytes": "1073741824",
    "segment.index.bytes": "10485760",
    "segment.jitter.ms": "0",
    "segment.ms": "604800000",
    "unclean.leader.election.enable": "false",
}


# Topic configs whose default is described under the topic config's own name
# (the broker's synonym has the same name, or there is none).
SAME_NAME_AT_BROKER = {"compression.type", "min.insync.replicas", "unclean.leader.election.enable",
                       "durability", "leader.replication.throttled.replicas",
                       "follower.replication.throttled.replicas"}


def describe(broker, resource):
    a = admin(broker)
    fs = a.describe_configs([resource], request_timeout=TIMEOUT_S)
    return list(fs.values())[0].result(TIMEOUT_S)


def alter(broker, resource, validate_only=False):
    """AlterConfigs of one resource; returns None or the KafkaError."""
    a = admin(broker)
    fs = a.alter_configs([resource], request_timeout=TIMEOUT_S, validate_only=validate_only)
    try:
        list(fs.values())[0].result(TIMEOUT_S)
        return None
    except KafkaException as e:
        return e.args[0]


def synonyms(entry):
    return [(s.name, s.value, s.source) for s in entry.synonyms.values()]


class ConfigsTest(unittest.TestCase):
    def setUp(self):
        # A static topic default, so that STATIC_BROKER_CONFIG shows up.
        self.broker = Broker(extra_args=["--set", "log.retention.hours=48"]).start()

    def tearDown(self):
        self.broker.__exit__(None, None, None)

    def test_every_kafka_topic_config_is_accepted_and_described_with_source_and_synonyms(self):
        # The configs refused before: all accepted now, deprecated ones too.
        given = {"compression.type": "zstd", "delete.retention.ms": "1000", "flush.ms": "60000",
                 "flush.messages": "100000", "message.format.version": "2.8",
                 "message.downconversion.enable": "false", "min.insync.replicas": "1",
                 "unclean.leader.election.enable": "true", "min.cleanable.dirty.ratio": "0.2",
                 "segment.jitter.ms": "10", "preallocate": "true",
                 "leader.replication.throttled.replicas": "0:1", "durability": "replicated"}
        create_topic(self.broker, "everything", 1, given)
        create_topic(self.broker, "defaults", 1)

        got = describe(self.broker, ConfigResource("topic", "everything"))
        self.assertEqual(set(got), set(KAFKA_TOPIC_CONFIGS) | {"durability"})
        for name, value in given.items():
            e = got[name]
            self.assertEqual((e.value, e.source, e.is_default, e.is_read_only, e.is_sensitive),
                             (value, ConfigSource.DYNAMIC_TOPIC_CONFIG.value, False, False, False), name)
            # librdkafka keeps synonyms in a dict by name: where the broker's
            # name is the topic's (compression.type, ...) the default, listed
            # last, hides the override.
            if name not in SAME_NAME_AT_BROKER:
                self.assertEqual(synonyms(e)[0], (name, value, ConfigSource.DYNAMIC_TOPIC_CONFIG.value), name)
        self.assertEqual(synonyms(got["flush.ms"]),
                         [("flush.ms", "60000", ConfigSource.DYNAMIC_TOPIC_CONFIG.value),
                          ("log.flush.scheduler.interval.ms", "9223372036854775807",
                           ConfigSource.DEFAULT_CONFIG.value)])

        plain = describe(self.broker, ConfigResource("topic", "defaults"))
        for name, value in KAFKA_TOPIC_CONFIGS.items():
            e = plain[name]
            if name == "retention.ms":
                continue
            self.assertEqual((e.value, e.source, e.is_default), (value, ConfigSource.DEFAULT_CONFIG.value, True),
                             name)
        # retention.ms comes from the broker's log.retention.hours=48.
        e = plain["retention.ms"]
        self.assertEqual((e.value, e.source, e.is_default),
                         (str(48 * 3600 * 1000), ConfigSource.STATIC_BROKER_CONFIG.value, False))
        # (The static 48 and Kafka's default 168 share the name
        # log.retention.hours: librdkafka's dict keeps one of them.)
        self.assertEqual([s[0] for s in synonyms(e)], ["log.retention.hours"])
        self.assertEqual(synonyms(plain["max.message.bytes"]),
                         [("message.max.bytes", "1048588", ConfigSource.DEFAULT_CONFIG.value)])

    def test_bad_tiered_and_unknown_topic_configs_are_refused_saying_why(self):
        cases = [({"compression.type": "brotli"}, "compression.type"),
                 ({"flush.messages": "0"}, "flush.messages"),
                 ({"min.cleanable.dirty.ratio": "2"}, "min.cleanable.dirty.ratio"),
                 ({"message.format.version": "latest"}, "message.format.version"),
                 ({"remote.storage.enable": "true"}, "no tiered storage"),
                 ({"local.retention.ms": "1000"}, "no tiered storage"),
                 ({"no.such.config": "1"}, "no.such.config")]
        for config, text in cases:
            with self.subTest(config=config):
                err = create_topic_error(self.broker, "refused", 1, config)
                self.assertEqual(err.code(), KafkaError.INVALID_CONFIG, str(err))
                self.assertIn(text, err.str())
                self.assertIsNone(topic_partitions(self.broker, "refused"))

    def test_compression_type_recompresses_on_the_broker(self):
        create_topic(self.broker, "to-gzip", 1, {"compression.type": "gzip", "compression.gzip.level": "9"})
        create_topic(self.broker, "to-none", 1, {"compression.type": "uncompressed"})
        create_topic(self.broker, "as-produced", 1)
        values = [b"value-%d-" % i + b"x" * (i % 50) for i in range(200)]
        for topic in ("to-gzip", "to-none", "as-produced"):
            reports = produce_all(self.broker, topic, [{"key": b"k%d" % i, "value": v} for i, v in enumerate(values)],
                                  {"compression.type": "lz4", "linger.ms": 50})
            self.assertEqual([r.error for r in reports], [None] * len(values), topic)
            got = read_all(self.broker, [TopicPartition(topic, 0, OFFSET_BEGINNING)])
            self.assertEqual([(r.offset, r.key, r.value) for r in got],
                             [(i, b"k%d" % i, v) for i, v in enumerate(values)], topic)
        # What the segments hold.
        for topic, codec in (("to-gzip", "gzip"), ("to-none", "none"), ("as-produced", "lz4")):
            r = subprocess.run([STRATA, "--json", "dump-log", os.path.join(self.broker.data_dir, topic + "-0")],
                               capture_output=True, timeout=TIMEOUT_S)
            self.assertEqual(r.returncode, 0, r.stderr)
            lines = [json.loads(l) for l in r.stdout.decode().splitlines() if l]
            batches = [l for l in lines if l["type"] == "batch"]
            self.assertTrue(batches)
            self.assertEqual({b["codec"] for b in batches}, {codec}, topic)
            self.assertEqual(lines[-1]["defects"], 0)
            self.assertEqual(lines[-1]["records"], len(values))

    def test_alter_configs_of_a_topic_replaces_its_overrides(self):
        create_topic(self.broker, "altered", 1, {"retention.ms": "1000", "flush.ms": "500"})
        self.assertIsNone(alter(self.broker, ConfigResource("topic", "altered",
                                                            set_config={"compression.type": "lz4",
                                                                        "retention.ms": "2000"})))
        got = describe(self.broker, ConfigResource("topic", "altered"))
        self.assertEqual((got["compression.type"].value, got["compression.type"].source),
                         ("lz4", ConfigSource.DYNAMIC_TOPIC_CONFIG.value))
        self.assertEqual(got["retention.ms"].value, "2000")
        # flush.ms was not given again: back to its default.
        self.assertEqual((got["flush.ms"].value, got["flush.ms"].source),
                         (KAFKA_TOPIC_CONFIGS["flush.ms"], ConfigSource.DEFAULT_CONFIG.value))
        err = alter(self.broker, ConfigResource("topic", "altered", set_config={"segment.ms": "0"}))
        self.assertEqual(err.code(), KafkaError.INVALID_CONFIG, str(err))
        self.assertIn("segment.ms", err.str())
        # validate_only stores nothing.
        self.assertIsNone(alter(self.broker, ConfigResource("topic", "altered", set_config={"retention.ms": "3"}),
                                validate_only=True))
        self.assertEqual(describe(self.broker, ConfigResource("topic", "altered"))["retention.ms"].value, "2000")

    def test_dynamic_broker_config_applies_without_restart_and_survives_one(self):
        create_topic(self.broker, "follower", 1)
        create_topic(self.broker, "own", 1, {"max.message.bytes": "1048588"})
        before = describe(self.broker, ConfigResource("broker", NODE_ID))
        self.assertEqual((before["log.retention.ms"].value, before["log.retention.ms"].source,
                          before["log.retention.ms"].is_read_only),
                         (str(48 * 3600 * 1000), ConfigSource.STATIC_BROKER_CONFIG.value, False))
        self.assertTrue(before["log.retention.hours"].is_read_only)
        self.assertTrue(before["num.partitions"].is_read_only)
        self.assertGreaterEqual(len(before), 40)

        self.assertIsNone(alter(self.broker, ConfigResource("broker", NODE_ID, set_config={
            "log.retention.ms": "3600000", "message.max.bytes": "5000"})))
        big = [{"value": b"x" * 20000}]
        small = [{"value": b"y" * 100}]

        def check_applied():
            got = describe(self.broker, ConfigResource("topic", "follower"))
            self.assertEqual((got["retention.ms"].value, got["retention.ms"].source),
                             ("3600000", ConfigSource.DYNAMIC_BROKER_CONFIG.value))
            self.assertEqual(synonyms(got["retention.ms"])[0],
                             ("log.retention.ms", "3600000", ConfigSource.DYNAMIC_BROKER_CONFIG.value))
            self.assertEqual(got["max.message.bytes"].value, "5000")
            broker = describe(self.broker, ConfigResource("broker", NODE_ID))
            self.assertEqual((broker["message.max.bytes"].value, broker["message.max.bytes"].source),
                             ("5000", ConfigSource.DYNAMIC_BROKER_CONFIG.value))
            # The limit holds for the topic that follows the broker, not for
            # the one with its own.
            conf = {"message.max.bytes": 100000, "linger.ms": 0}
            reports = produce_all(self.broker, "follower", big, conf)
            self.assertIsNotNone(reports[0].error)
            self.assertEqual(reports[0].error.code(), KafkaError.MSG_SIZE_TOO_LARGE, str(reports[0].error))
            self.assertIsNone(produce_all(self.broker, "follower", small, conf)[0].error)
            self.assertIsNone(produce_all(self.broker, "own", big, conf)[0].error)

        check_applied()
        self.broker.stop()
        self.broker.start()
        check_applied()

        # An empty set removes the broker's dynamic configs: back to static.
        self.assertIsNone(alter(self.broker, ConfigResource("broker", NODE_ID, set_config={})))
        got = describe(self.broker, ConfigResource("topic", "follower"))
        self.assertEqual((got["retention.ms"].value, got["retention.ms"].source),
                         (str(48 * 3600 * 1000), ConfigSource.STATIC_BROKER_CONFIG.value))

    def test_static_broker_configs_are_refused_naming_them(self):
        for name, value in (("num.partitions", "3"), ("log.retention.hours", "1"), ("listeners", "x:1"),
                            ("log.message.format.version", "2.8")):
            with self.subTest(name=name):
                err = alter(self.broker, ConfigResource("broker", NODE_ID, set_config={name: value}))
                self.assertIsNotNone(err)
                self.assertEqual(err.code(), KafkaError.INVALID_REQUEST, str(err))
                self.assertIn(name, err.str())
                self.assertIn("restart", err.str())
        err = alter(self.broker, ConfigResource("broker", NODE_ID, set_config={"log.retention.ms": "soon"}))
        self.assertEqual(err.code(), KafkaError.INVALID_CONFIG, str(err))
        self.assertIn("log.retention.ms", err.str())
        # Nothing was stored.
        got = describe(self.broker, ConfigResource("broker", NODE_ID))
        self.assertEqual(got["log.retention.ms"].source, ConfigSource.STATIC_BROKER_CONFIG.value)

    def test_every_broker_config_kafka_documents_is_taken_kept_and_shown(self):
        # librdkafka's admin client sets this one on a broker; Strata keeps
        # it (it has no Kerberos) and shows it with its source.
        broker = ConfigResource("broker", NODE_ID)
        kerberos = "sasl.kerberos.min.time.before.relogin"
        self.assertIsNone(alter(self.broker, ConfigResource("broker", NODE_ID, set_config={
            kerberos: "58000", "num.io.threads": "4"})))

        def check(got, static):
            self.assertEqual((got[kerberos].value, got[kerberos].source, got[kerberos].is_read_only),
                             ("58000", ConfigSource.DYNAMIC_BROKER_CONFIG.value, False))
            self.assertEqual(got["num.io.threads"].value, "4")
            # Read only at start: Kafka's default, or the properties' value.
            self.assertEqual((got["socket.send.buffer.bytes"].value, got["socket.send.buffer.bytes"].source,
                              got["socket.send.buffer.bytes"].is_read_only),
                             ("102400", ConfigSource.DEFAULT_CONFIG.value, True))
            self.assertEqual((got["queued.max.requests"].value, got["queued.max.requests"].source),
                             ("900", ConfigSource.STATIC_BROKER_CONFIG.value) if static
                             else ("500", ConfigSource.DEFAULT_CONFIG.value))
            # A password is never shown.
            self.assertTrue(got["ssl.keystore.password"].is_sensitive)
            self.assertIsNone(got["ssl.keystore.password"].value)
            for name in ("process.roles", "controller.quorum.voters", "sasl.enabled.mechanisms",
                         "remote.log.storage.system.enable", "group.coordinator.rebalance.protocols",
                         "share.coordinator.state.topic.replication.factor", "num.network.threads"):
                self.assertIn(name, got)
            # Kafka 4.4 documents 379.
            self.assertGreaterEqual(len(got), 379)

        check(describe(self.broker, broker), static=False)
        # Taken from the properties too, and the dynamic one survives a restart.
        self.broker.stop()
        self.broker.extra_args += ["--set", "queued.max.requests=900"]
        self.broker.start()
        check(describe(self.broker, broker), static=True)
        # Refused, saying why, and nothing stored: a value of the wrong type,
        # a config Kafka reads only at start.
        for resource, name, value, code, why in (
                (NODE_ID, kerberos, "soon", KafkaError.INVALID_CONFIG, "must be a long"),
                (NODE_ID, "queued.max.requests", "10", KafkaError.INVALID_REQUEST, "restart")):
            with self.subTest(name=name):
                err = alter(self.broker, ConfigResource("broker", resource, set_config={name: value}))
                self.assertIsNotNone(err)
                self.assertEqual(err.code(), code, str(err))
                self.assertIn(name, err.str())
                self.assertIn(why, err.str())
        check(describe(self.broker, broker), static=True)
        # (The cluster default, which librdkafka 2.0.2 cannot name, is
        # covered in server/broker_test.cc.)

    def test_an_unreachable_etcd_at_start_is_retried_then_the_broker_exits(self):
        # Nothing listens on this loopback port: the broker says which
        # endpoint it waits for, retries, and gives up after the timeout.
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([BROKER, "--data-dir", d, "--listen", "127.0.0.1:0",
                                "--set", "metadata.store=etcd",
                                "--set", f"etcd.endpoints=127.0.0.1:{port}",
                                "--set", "metadata.startup.timeout.ms=3000"],
                               capture_output=True, timeout=TIMEOUT_S)
            out = r.stdout + r.stderr
            self.assertEqual(r.returncode, 1, out)
            self.assertIn(f"127.0.0.1:{port}".encode(), out)
            self.assertIn(b"waiting for the metadata store", out)
            self.assertIn(b"metadata.startup.timeout.ms", out)

    def test_a_broker_bound_to_every_address_advertises_the_address_it_is_given(self):
        with Broker(listen_host="0.0.0.0") as b:
            md = AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(timeout=TIMEOUT_S)
            self.assertEqual([(x.host, x.port) for x in md.brokers.values()],
                             [("127.0.0.1", b.port)])
            self.assertIn("0.0.0.0:%d" % b.port, b.log())

    def test_listening_on_every_address_needs_an_advertised_one(self):
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([BROKER, "--data-dir", d, "--listen", "0.0.0.0:0"],
                               capture_output=True, timeout=TIMEOUT_S)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(b"advertised.listeners", r.stderr)


if __name__ == "__main__":
    unittest.main()
