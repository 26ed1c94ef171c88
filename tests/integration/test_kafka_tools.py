"""Apache Kafka's own command-line tools (kafka-tools 4.x, through their main
classes, from bench/fetch_kafka.sh's cache) against a real broker: topics,
configs, consumer groups (describe, list, reset-offsets), the verifiable
producer and consumer (Kafka's system tests' check that everything
acknowledged is consumed), and the producer and consumer perf tests. Each
result is checked against what the broker then holds, read by another
client."""
import json
import os
import re
import subprocess
import unittest

from confluent_kafka import OFFSET_BEGINNING, TopicPartition
from confluent_kafka.admin import ConfigResource

from test_confluent import admin, read_all, topic_partitions
from test_java_client import JavaTestCase

RUN_TIMEOUT_S = 180
TOOLS = "org.apache.kafka.tools."


class KafkaToolsTest(JavaTestCase):

    def tool(self, main, *args, expect=0):
        """Runs a tool's main class; returns (stdout, stderr)."""
        argv = ["java", "-cp", os.path.join(self.lib, "*"), TOOLS + main] + [str(a) for a in args]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
        if (r.returncode == 0) != (expect == 0):
            raise AssertionError("%s %s exited %d\nstdout: %s\nstderr: %s" % (
                main, args, r.returncode, r.stdout[-4000:], r.stderr[-4000:]))
        return r.stdout, r.stderr

    def topics(self, *args, expect=0):
        return self.tool("TopicCommand", "--bootstrap-server", self.broker.bootstrap, *args,
                         expect=expect)

    def configs(self, *args):
        return self.tool("ConfigCommand", "--bootstrap-server", self.broker.bootstrap, *args)

    def groups(self, *args):
        return self.tool("consumer.group.ConsumerGroupCommand", "--bootstrap-server",
                         self.broker.bootstrap, *args)

    def verifiable_produce(self, topic, n):
        """VerifiableProducer with acks=all; returns the acknowledged
        (partition, offset, value) and the count it reports failed."""
        out, _ = self.tool("VerifiableProducer", "--bootstrap-server", self.broker.bootstrap,
                           "--topic", topic, "--max-messages", n, "--acks", "-1")
        events = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
        acked = {(e["partition"], e["offset"], e["value"]) for e in events
                 if e["name"] == "producer_send_success"}
        failed = sum(1 for e in events if e["name"] == "producer_send_error")
        return acked, failed

    def test_topic_command_creates_describes_alters_and_deletes(self):
        self.topics("--create", "--topic", "tools-topic", "--partitions", 3,
                    "--replication-factor", 1, "--config", "retention.ms=7200000")
        self.assertEqual(topic_partitions(self.broker, "tools-topic"), [0, 1, 2])
        out, _ = self.topics("--list")
        self.assertIn("tools-topic", out.split())
        out, _ = self.topics("--describe", "--topic", "tools-topic")
        self.assertRegex(out, r"PartitionCount:\s*3")
        self.assertIn("retention.ms=7200000", out)
        self.assertEqual(len(re.findall(r"Partition: \d+\s+Leader: \d+", out)), 3)
        # Creating it again is refused with Kafka's error.
        out, _ = self.topics("--create", "--topic", "tools-topic", "--partitions", 1, expect=1)
        self.assertIn("TopicExistsException: topic 'tools-topic' already exists", out)

        self.topics("--alter", "--topic", "tools-topic", "--partitions", 5)
        self.assertEqual(topic_partitions(self.broker, "tools-topic"), [0, 1, 2, 3, 4])
        self.topics("--delete", "--topic", "tools-topic")
        out, _ = self.topics("--list")
        self.assertNotIn("tools-topic", out.split())

    def test_config_command_alters_and_describes_topic_configs(self):
        self.topics("--create", "--topic", "tools-configs", "--partitions", 1)
        self.configs("--alter", "--entity-type", "topics", "--entity-name", "tools-configs",
                     "--add-config", "retention.ms=3600000,cleanup.policy=compact")
        out, _ = self.configs("--describe", "--entity-type", "topics",
                              "--entity-name", "tools-configs")
        self.assertIn("retention.ms=3600000", out)
        self.assertIn("cleanup.policy=compact", out)
        # What another client reads back.
        res = ConfigResource(ConfigResource.Type.TOPIC, "tools-configs")
        a = admin(self.broker)  # must outlive its futures
        described = a.describe_configs([res])[res].result(30)
        self.assertEqual(described["retention.ms"].value, "3600000")
        self.assertEqual(described["cleanup.policy"].value, "compact")

        self.configs("--alter", "--entity-type", "topics", "--entity-name", "tools-configs",
                     "--delete-config", "retention.ms")
        described = a.describe_configs([res])[res].result(30)
        self.assertEqual(described["retention.ms"].value, "604800000")  # the default again
        self.assertEqual(described["cleanup.policy"].value, "compact")

    def test_verifiable_producer_and_consumer_and_group_command(self):
        topic, group, n = "tools-verifiable", "tools-verifier", 2000
        self.topics("--create", "--topic", topic, "--partitions", 3)
        acked, failed = self.verifiable_produce(topic, n)
        self.assertEqual((len(acked), failed), (n, 0))

        out, _ = self.tool("VerifiableConsumer", "--bootstrap-server", self.broker.bootstrap,
                           "--topic", topic, "--group-id", group, "--max-messages", n,
                           "--reset-policy", "earliest", "--verbose")
        events = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
        consumed = {(e["partition"], e["offset"], e["value"]) for e in events
                    if e["name"] == "record_data"}
        # Every acknowledged message consumed, at the offset it was acknowledged at.
        self.assertEqual(acked - consumed, set())
        self.assertEqual(len(consumed), n)
        commits = [e for e in events if e["name"] == "offsets_committed"]
        self.assertTrue(commits and all(c["success"] for c in commits), commits)

        # The group committed every partition's end: no lag.
        ends = {}
        for p, o, _ in acked:
            ends[p] = max(ends.get(p, 0), o + 1)
        out, _ = self.groups("--describe", "--group", group)
        rows = {}
        for line in out.splitlines():
            f = line.split()
            if len(f) >= 6 and f[0] == group and f[1] == topic:
                rows[int(f[2])] = (int(f[3]), int(f[4]), int(f[5]))
        self.assertEqual(rows, {p: (e, e, 0) for p, e in ends.items()})
        out, _ = self.groups("--list")
        self.assertIn(group, out.split())

        # Reset to the earliest: a dry run changes nothing, --execute does.
        out, _ = self.groups("--reset-offsets", "--group", group, "--topic", topic,
                             "--to-earliest", "--dry-run")
        self.assertEqual(sorted(int(f.split()[3]) for f in out.splitlines()
                                if f.split()[:2] == [group, topic]), [0, 0, 0])
        out, _ = self.groups("--describe", "--group", group)
        self.assertIn(" %d " % max(ends.values()), out)
        self.groups("--reset-offsets", "--group", group, "--topic", topic, "--to-earliest",
                    "--execute")
        out, _ = self.groups("--describe", "--group", group)
        current = {}
        for line in out.splitlines():
            f = line.split()
            if len(f) >= 6 and f[0] == group and f[1] == topic:
                current[int(f[2])] = int(f[3])
        # Every partition of the topic, the one nothing was written to too.
        self.assertEqual(current, {0: 0, 1: 0, 2: 0})

    def test_producer_and_consumer_perf_tests(self):
        topic, n = "tools-perf", 20000
        self.topics("--create", "--topic", topic, "--partitions", 2)
        out, _ = self.tool("ProducerPerformance", "--topic", topic, "--num-records", n,
                           "--record-size", 512, "--throughput", -1, "--command-property",
                           "bootstrap.servers=" + self.broker.bootstrap, "acks=all")
        self.assertRegex(out.strip().splitlines()[-1], r"^%d records sent" % n)
        got = read_all(self.broker, [TopicPartition(topic, p, OFFSET_BEGINNING) for p in (0, 1)])
        self.assertEqual(len(got), n)
        self.assertTrue(all(len(r.value) == 512 for r in got))

        out, _ = self.tool("ConsumerPerformance", "--bootstrap-server", self.broker.bootstrap,
                           "--topic", topic, "--num-records", n)
        lines = out.strip().splitlines()
        header = [h.strip() for h in lines[-2].split(",")]
        row = dict(zip(header, (v.strip() for v in lines[-1].split(","))))
        self.assertEqual(int(row["data.consumed.in.nMsg"]), n)


if __name__ == "__main__":
    unittest.main()
