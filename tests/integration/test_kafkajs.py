"""kafkajs 2.2.4 (Node.js) against a real broker: admin (createTopics,
fetchTopicMetadata, fetchTopicOffsets, describeConfigs and alterConfigs of
topics and brokers, deleteTopics) and
producer (send with keys, values, headers, acks -1). What kafkajs produced
is read back with confluent-kafka. kafkajs's consumer needs consumer
groups, which the broker does not have yet, so it is not used.

kafkajs/driver.js runs the steps each test gives it; its npm packages are
installed by `npm ci` in tests/integration/kafkajs (scripts/setup.sh --tests).
"""
import base64
import json
import os
import random
import shutil
import subprocess
import time
import unittest

from confluent_kafka import OFFSET_BEGINNING, TopicPartition
from confluent_kafka.admin import ConfigResource, ConfigSource

from harness import Broker
from test_confluent import admin, create_topic, produce_all, read_all

HERE = os.path.dirname(os.path.abspath(__file__))
KAFKAJS_DIR = os.path.join(HERE, "kafkajs")
DRIVER = os.path.join(KAFKAJS_DIR, "driver.js")
DRIVER_TIMEOUT_S = 120
NODE_ID = 1  # the harness's broker runs with the default node id


def b64(data):
    return None if data is None else base64.b64encode(data).decode()


class KafkajsTest(unittest.TestCase):
    def setUp(self):
        if shutil.which("node") is None:
            self.fail("node is not installed (scripts/setup.sh --tests installs nodejs)")
        if not os.path.isfile(os.path.join(KAFKAJS_DIR, "node_modules", "kafkajs", "package.json")):
            self.fail("kafkajs is not installed: run `npm ci` in tests/integration/kafkajs "
                      "(cd tests/integration/kafkajs && npm ci)")
        self.broker = Broker().start()

    def tearDown(self):
        self.broker.__exit__(None, None, None)

    def run_steps(self, steps):
        """Runs the steps in one kafkajs client; returns one result per step:
        ("ok", value) or ("error", {name, type, code, message, errors})."""
        r = subprocess.run(["node", DRIVER, self.broker.bootstrap], input=json.dumps(steps).encode(),
                           capture_output=True, timeout=DRIVER_TIMEOUT_S, cwd=KAFKAJS_DIR)
        if r.returncode != 0:
            raise AssertionError("driver.js exited with %d:\n%s\nbroker log:\n%s"
                                 % (r.returncode, r.stderr.decode(), self.broker.log()))
        results = json.loads(r.stdout)["results"]
        self.assertEqual(len(results), len(steps))
        return [("ok", res["ok"]) if "ok" in res else ("error", res["error"]) for res in results]

    def ok(self, result):
        kind, value = result
        self.assertEqual(kind, "ok", "kafkajs failed: %s" % (value,))
        return value

    def error_types(self, result):
        kind, value = result
        self.assertEqual(kind, "error", "kafkajs succeeded: %s" % (value,))
        return [value["type"]] if not value["errors"] else [e["type"] for e in value["errors"]]

    def test_admin_create_metadata_offsets_configs_delete(self):
        counts = {0: 3, 1: 0, 2: 5}
        send = {"op": "send", "topic": "js-a", "acks": -1,
                "messages": [{"key": b64(b"k"), "value": b64(b"p%d-%d" % (p, i)), "partition": p}
                             for p, n in counts.items() for i in range(n)]}
        steps = [
            {"op": "createTopics", "topics": [
                {"topic": "js-a", "numPartitions": 3,
                 "configEntries": [{"name": "retention.ms", "value": "3600000"}]},
                {"topic": "js-b", "numPartitions": 1}]},
            {"op": "createTopics", "topics": [{"topic": "js-a", "numPartitions": 1}]},
            {"op": "createTopics", "topics": [{"topic": "no spaces allowed", "numPartitions": 1}]},
            {"op": "createTopics", "topics": [{"topic": "js-c", "numPartitions": 1,
                                               "configEntries": [{"name": "retention.ms", "value": "x"}]}]},
            {"op": "listTopics"},
            {"op": "fetchTopicMetadata", "topics": ["js-a", "js-b"]},
            {"op": "fetchTopicOffsets", "topic": "js-a"},
            {"op": "describeConfigs", "topic": "js-a"},
            send,
            {"op": "fetchTopicOffsets", "topic": "js-a"},
            {"op": "deleteTopics", "topics": ["js-a"]},
            {"op": "listTopics"},
            {"op": "fetchTopicMetadata", "topics": ["js-a"]},
        ]
        (created, again, bad_name, bad_config, listed, metadata, offsets_before, configs, sent,
         offsets_after, deleted, listed_after, metadata_after) = self.run_steps(steps)

        self.assertIs(self.ok(created), True)
        self.assertIs(self.ok(again), False)  # kafkajs's answer to TOPIC_ALREADY_EXISTS
        self.assertEqual(self.error_types(bad_name), ["INVALID_TOPIC_EXCEPTION"])
        self.assertEqual(self.error_types(bad_config), ["INVALID_CONFIG"])
        self.assertEqual(sorted(self.ok(listed)), ["js-a", "js-b"])

        topics = {t["name"]: t for t in self.ok(metadata)["topics"]}
        self.assertEqual(sorted(topics), ["js-a", "js-b"])
        for name, n in (("js-a", 3), ("js-b", 1)):
            parts = sorted(topics[name]["partitions"], key=lambda p: p["partitionId"])
            self.assertEqual([(p["partitionId"], p["partitionErrorCode"], p["leader"], p["replicas"], p["isr"])
                              for p in parts], [(i, 0, NODE_ID, [NODE_ID], [NODE_ID]) for i in range(n)])

        self.assertEqual(sorted((o["partition"], o["low"], o["high"]) for o in self.ok(offsets_before)),
                         [(p, "0", "0") for p in range(3)])

        entries = {e["configName"]: e for e in self.ok(configs)["resources"][0]["configEntries"]}
        self.assertEqual((entries["retention.ms"]["configValue"], entries["retention.ms"]["configSource"],
                          entries["retention.ms"]["isDefault"]),
                         ("3600000", ConfigSource.DYNAMIC_TOPIC_CONFIG.value, False))
        self.assertEqual((entries["cleanup.policy"]["configValue"], entries["cleanup.policy"]["configSource"]),
                         ("delete", ConfigSource.DEFAULT_CONFIG.value))

        # One record set per partition that got messages, each from offset 0.
        self.assertEqual(sorted((m["partition"], m["errorCode"], m["baseOffset"]) for m in self.ok(sent)),
                         [(p, 0, "0") for p, n in counts.items() if n])
        self.assertEqual(sorted((o["partition"], o["low"], o["high"]) for o in self.ok(offsets_after)),
                         [(p, "0", str(n)) for p, n in counts.items()])

        self.ok(deleted)
        self.assertEqual(self.ok(listed_after), ["js-b"])
        self.assertEqual(self.error_types(metadata_after), ["UNKNOWN_TOPIC_OR_PARTITION"])

        # Another client sees the same: js-a is gone, js-b and its config are there.
        a = admin(self.broker)
        md = a.list_topics(timeout=30)
        self.assertEqual(sorted(md.topics), ["js-b"])
        # Re-created, js-a is empty.
        create_topic(self.broker, "js-a", 2)
        self.assertEqual(read_all(self.broker, [TopicPartition("js-a", p, OFFSET_BEGINNING) for p in (0, 1)]), [])
        fs = a.describe_configs([ConfigResource("topic", "js-b")], request_timeout=30)
        for f in fs.values():
            self.assertEqual(f.result(30)["retention.ms"].source, ConfigSource.DEFAULT_CONFIG.value)

    def test_admin_describe_and_alter_configs_of_topics_and_brokers(self):
        def entries(result, i=0):
            return {e["configName"]: e for e in result["resources"][i]["configEntries"]}
        topic = {"type": "TOPIC", "name": "js-cfg"}
        steps = [
            {"op": "createTopics", "topics": [
                {"topic": "js-cfg", "numPartitions": 1, "configEntries": [
                    {"name": "compression.type", "value": "snappy"},
                    {"name": "message.format.version", "value": "2.8"},
                    {"name": "flush.ms", "value": "5000"}]}]},
            {"op": "describeConfigs", "resources": [topic], "includeSynonyms": True},
            # AlterConfigs replaces the topic's overrides.
            {"op": "alterConfigs", "resources": [dict(topic, configEntries=[
                {"name": "retention.ms", "value": "60000"}, {"name": "min.insync.replicas", "value": "1"}])]},
            {"op": "alterConfigs", "resources": [dict(topic, configEntries=[
                {"name": "local.retention.ms", "value": "1000"}])]},
            # This broker (kafkajs refuses the cluster default's empty name
            # before sending; server/broker_test.cc covers that one).
            {"op": "alterConfigs", "resources": [{"type": "BROKER", "name": str(NODE_ID), "configEntries": [
                {"name": "log.segment.bytes", "value": "2097152"},
                {"name": "log.cleanup.policy", "value": "compact"}]}]},
            {"op": "alterConfigs", "resources": [{"type": "BROKER", "name": str(NODE_ID), "configEntries": [
                {"name": "auto.create.topics.enable", "value": "false"}]}]},
            {"op": "alterConfigs", "validateOnly": True, "resources": [
                {"type": "BROKER", "name": str(NODE_ID), "configEntries": [{"name": "log.roll.ms", "value": "1000"}]}]},
            {"op": "describeConfigs", "resources": [topic,
                                                    {"type": "BROKER", "name": str(NODE_ID),
                                                     "configNames": ["log.cleanup.policy", "log.roll.ms",
                                                                     "num.partitions"]}],
             "includeSynonyms": True},
        ]
        (created, described, altered, tiered, mine, static, dry, after) = self.run_steps(steps)
        self.assertIs(self.ok(created), True)
        got = entries(self.ok(described))
        self.assertGreaterEqual(len(got), 30)
        self.assertEqual((got["compression.type"]["configValue"], got["compression.type"]["configSource"]),
                         ("snappy", ConfigSource.DYNAMIC_TOPIC_CONFIG.value))
        self.assertEqual(got["message.format.version"]["configValue"], "2.8")
        self.assertEqual([(s["configName"], s["configValue"], s["configSource"])
                          for s in got["flush.ms"]["configSynonyms"]],
                         [("flush.ms", "5000", ConfigSource.DYNAMIC_TOPIC_CONFIG.value),
                          ("log.flush.scheduler.interval.ms", "9223372036854775807",
                           ConfigSource.DEFAULT_CONFIG.value)])
        self.ok(altered)
        self.assertEqual(self.error_types(tiered), ["INVALID_CONFIG"])
        self.ok(mine)
        self.assertEqual(self.error_types(static), ["INVALID_REQUEST"])
        self.ok(dry)

        result = self.ok(after)
        got = entries(result, 0)
        self.assertEqual(got["retention.ms"]["configValue"], "60000")
        self.assertEqual(got["flush.ms"]["configSource"], ConfigSource.DEFAULT_CONFIG.value)  # replaced
        # The broker's dynamic configs apply to the topic at once.
        self.assertEqual((got["segment.bytes"]["configValue"], got["segment.bytes"]["configSource"]),
                         ("2097152", ConfigSource.DYNAMIC_BROKER_CONFIG.value))
        self.assertEqual((got["cleanup.policy"]["configValue"], got["cleanup.policy"]["configSource"]),
                         ("compact", ConfigSource.DYNAMIC_BROKER_CONFIG.value))
        self.assertEqual([(s["configName"], s["configValue"], s["configSource"])
                          for s in got["cleanup.policy"]["configSynonyms"]],
                         [("log.cleanup.policy", "compact", ConfigSource.DYNAMIC_BROKER_CONFIG.value),
                          ("log.cleanup.policy", "delete", ConfigSource.DEFAULT_CONFIG.value)])
        broker = entries(result, 1)
        self.assertEqual(sorted(broker), ["log.cleanup.policy", "log.roll.ms", "num.partitions"])
        self.assertEqual((broker["log.cleanup.policy"]["configValue"], broker["log.cleanup.policy"]["readOnly"]),
                         ("compact", False))
        self.assertEqual(broker["log.roll.ms"]["configSource"], ConfigSource.DEFAULT_CONFIG.value)  # dry run
        self.assertIs(broker["num.partitions"]["readOnly"], True)

    def test_send_keys_values_headers_read_back_with_confluent(self):
        rng = random.Random(4)
        partitions = 3
        create_topic(self.broker, "js-data", partitions)
        base_ts = int(time.time() * 1000) - 60000
        sends = []
        for s, compression in enumerate((None, "gzip", None, "gzip")):
            messages = []
            for i in range(60):
                n = s * 60 + i
                messages.append({
                    "key": None if n % 7 == 0 else b"key-%d" % n,
                    "value": None if n % 9 == 4 else rng.randbytes(n % 150) + bytes([0, 255]),
                    "headers": {} if n % 5 == 0 else {"n": b"%d" % n, "bin": bytes([n % 256, 0, 128]), "empty": b""},
                    "partition": (n * 7) % partitions,
                    "timestamp": base_ts + (n * 7919) % 5000,  # not monotonic
                })
            sends.append((compression, messages))
        steps = [{"op": "send", "topic": "js-data", "acks": -1, "compression": c,
                  "messages": [{"key": b64(m["key"]), "value": b64(m["value"]), "partition": m["partition"],
                                "timestamp": m["timestamp"],
                                "headers": {k: b64(v) for k, v in m["headers"].items()}} for m in msgs]}
                 for c, msgs in sends]
        results = self.run_steps(steps)

        # Each send is one record set per partition: its messages for that
        # partition get consecutive offsets from its baseOffset, and each set
        # starts where the previous one ended.
        next_offset = {p: 0 for p in range(partitions)}
        want = []
        for (compression, messages), result in zip(sends, results):
            metadata = {m["partition"]: m for m in self.ok(result)}
            for p in range(partitions):
                mine = [m for m in messages if m["partition"] == p]
                if not mine:
                    self.assertNotIn(p, metadata)
                    continue
                self.assertEqual((metadata[p]["errorCode"], int(metadata[p]["baseOffset"])), (0, next_offset[p]))
                for m in mine:
                    want.append((p, next_offset[p], m["key"], m["value"],
                                 sorted(m["headers"].items()) or None, (1, m["timestamp"])))
                    next_offset[p] += 1
        want.sort(key=lambda w: w[:2])

        got = read_all(self.broker, [TopicPartition("js-data", p, OFFSET_BEGINNING) for p in range(partitions)])
        self.assertEqual([(r.partition, r.offset, r.key, r.value, sorted(r.headers) if r.headers else None,
                           r.timestamp) for r in got], want)

        # And kafkajs reads the same offsets, also by time.
        times = sorted({m["timestamp"] for _, msgs in sends for m in msgs})
        queries = [times[0] - 1, times[len(times) // 3], times[len(times) // 2] + 1, times[-1], times[-1] + 1]
        results = self.run_steps([{"op": "fetchTopicOffsets", "topic": "js-data"}] +
                                 [{"op": "fetchTopicOffsetsByTimestamp", "topic": "js-data", "timestamp": q}
                                  for q in queries])
        self.assertEqual(sorted((o["partition"], o["low"], o["high"]) for o in self.ok(results[0])),
                         [(p, "0", str(next_offset[p])) for p in range(partitions)])
        for q, result in zip(queries, results[1:]):
            expect = []
            for p in range(partitions):
                # Earliest offset whose timestamp >= q; kafkajs gives the end
                # offset when there is none.
                hits = [w[1] for w in want if w[0] == p and w[5][1] >= q]
                expect.append((p, str(min(hits) if hits else next_offset[p])))
            self.assertEqual(sorted((o["partition"], o["offset"]) for o in self.ok(result)), expect,
                             "timestamp %d" % q)

    def test_confluent_produced_data_has_the_offsets_kafkajs_reports(self):
        create_topic(self.broker, "js-mixed", 2)
        messages = [{"value": b"c%d" % i, "partition": i % 2} for i in range(9)]
        reports = produce_all(self.broker, "js-mixed", messages)
        self.assertEqual([r.error for r in reports], [None] * len(messages))
        ends = [sum(1 for m in messages if m["partition"] == p) for p in (0, 1)]
        steps = [{"op": "fetchTopicOffsets", "topic": "js-mixed"},
                 {"op": "send", "topic": "js-mixed", "acks": -1,
                  "messages": [{"key": None, "value": b64(b"js"), "partition": p} for p in (0, 1)]},
                 {"op": "fetchTopicOffsets", "topic": "js-mixed"}]
        before, sent, after = self.run_steps(steps)
        self.assertEqual(sorted((o["partition"], o["high"]) for o in self.ok(before)),
                         [(p, str(ends[p])) for p in (0, 1)])
        self.assertEqual(sorted((m["partition"], m["baseOffset"]) for m in self.ok(sent)),
                         [(p, str(ends[p])) for p in (0, 1)])
        self.assertEqual(sorted((o["partition"], o["high"]) for o in self.ok(after)),
                         [(p, str(ends[p] + 1)) for p in (0, 1)])
        got = read_all(self.broker, [TopicPartition("js-mixed", p, OFFSET_BEGINNING) for p in (0, 1)])
        want = sorted([(r.partition, r.offset, m["value"]) for m, r in zip(messages, reports)] +
                      [(p, ends[p], b"js") for p in (0, 1)])
        self.assertEqual([(r.partition, r.offset, r.value) for r in got], want)

if __name__ == "__main__":
    unittest.main()
