"""kafka-python 2.0.2 against a real broker: KafkaProducer (acks='all'),
KafkaConsumer with assign() + seek_to_beginning(), KafkaAdminClient."""
import random
import time
import unittest

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewTopic
from kafka.errors import TopicAlreadyExistsError

from harness import Broker

TIMEOUT_S = 30


def produce(broker, topic, messages, **conf):
    """Sends `messages` (dicts of KafkaProducer.send keyword arguments) with
    acks='all'; returns their RecordMetadata in send order."""
    p = KafkaProducer(bootstrap_servers=broker.bootstrap, acks="all", linger_ms=5,
                      request_timeout_ms=TIMEOUT_S * 1000, max_block_ms=TIMEOUT_S * 1000, **conf)
    try:
        futures = [p.send(topic, **m) for m in messages]
        p.flush(TIMEOUT_S)
        return [f.get(TIMEOUT_S) for f in futures]
    finally:
        p.close(TIMEOUT_S)


def consume_all(broker, topic, partitions, timeout=TIMEOUT_S):
    """Reads every partition of `topic` from the beginning to its end
    offset; returns ConsumerRecords sorted by (partition, offset)."""
    c = KafkaConsumer(bootstrap_servers=broker.bootstrap, group_id=None, enable_auto_commit=False,
                      request_timeout_ms=TIMEOUT_S * 1000 + 1000, fetch_max_wait_ms=50)
    try:
        tps = [TopicPartition(topic, p) for p in range(partitions)]
        c.assign(tps)
        c.seek_to_beginning()
        ends = c.end_offsets(tps)
        want = sum(ends.values())
        out = []
        deadline = time.monotonic() + timeout
        while len(out) < want and time.monotonic() < deadline:
            for records in c.poll(timeout_ms=200).values():
                out.extend(records)
        if len(out) != want:
            raise AssertionError("read %d of %d records of %s within %ds" % (len(out), want, topic, timeout))
        for tp in tps:
            if c.position(tp) != ends[tp]:
                raise AssertionError("%s: position %d, end offset %d" % (tp, c.position(tp), ends[tp]))
    finally:
        c.close()
    return sorted(out, key=lambda r: (r.partition, r.offset))


class KafkaPythonTest(unittest.TestCase):
    def setUp(self):
        self.broker = Broker().start()
        self.admin = KafkaAdminClient(bootstrap_servers=self.broker.bootstrap,
                                      request_timeout_ms=TIMEOUT_S * 1000)

    def tearDown(self):
        self.admin.close()
        self.broker.__exit__(None, None, None)

    def topics(self):
        return set(self.admin.list_topics())

    def test_keys_values_headers_round_trip_byte_for_byte(self):
        rng = random.Random(3)
        n, partitions = 300, 3
        for codec in (None, "gzip"):
            with self.subTest(codec=codec):
                topic = "kp-%s" % codec
                self.admin.create_topics([NewTopic(topic, partitions, 1)], timeout_ms=TIMEOUT_S * 1000)
                base_ts = int(time.time() * 1000) - 60000
                messages = []
                for i in range(n):
                    m = {"key": None if i % 11 == 0 else b"key-%d" % i,
                         "value": None if i % 11 == 5 else rng.randbytes(i % 200) + b"value-%d" % i,
                         "headers": [] if i % 4 == 0 else
                         [("i", b"%d" % i), ("bin", bytes([0, i % 256, 255])), ("empty", b""), ("i", b"again")],
                         "timestamp_ms": base_ts + (i * 37) % 1000}
                    if i % 3 != 0:  # the others go where the default partitioner puts them
                        m["partition"] = i % partitions
                    messages.append(m)
                metas = produce(self.broker, topic, messages, compression_type=codec)
                for p in range(partitions):
                    offsets = [md.offset for md in metas if md.partition == p]
                    self.assertEqual(offsets, list(range(len(offsets))), "partition %d" % p)
                for m, md in zip(messages, metas):
                    if "partition" in m:
                        self.assertEqual(md.partition, m["partition"])
                got = consume_all(self.broker, topic, partitions)
                want = sorted(((md.partition, md.offset, m["key"], m["value"], m["headers"], m["timestamp_ms"])
                               for m, md in zip(messages, metas)), key=lambda w: w[:2])
                self.assertEqual([(r.partition, r.offset, r.key, r.value, r.headers, r.timestamp)
                                  for r in got], want)
                self.assertEqual({r.timestamp_type for r in got}, {0})  # CreateTime

    def test_admin_create_and_delete_topics(self):
        self.admin.create_topics([NewTopic("alpha", 4, 1, topic_configs={"retention.ms": "3600000"}),
                                  NewTopic("beta", 1, 1)], timeout_ms=TIMEOUT_S * 1000)
        self.assertTrue({"alpha", "beta"} <= self.topics())
        resp = self.admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "alpha")])
        entries = {e[0]: e[1] for e in resp[0].resources[0][4]}
        self.assertEqual(entries["retention.ms"], "3600000")
        with self.assertRaises(TopicAlreadyExistsError):
            self.admin.create_topics([NewTopic("alpha", 1, 1)], timeout_ms=TIMEOUT_S * 1000)

        metas = produce(self.broker, "alpha", [{"value": b"a%d" % i, "partition": i % 4} for i in range(8)])
        self.assertEqual([(md.partition, md.offset) for md in metas],
                         [(i % 4, i // 4) for i in range(8)])
        self.admin.delete_topics(["alpha"], timeout_ms=TIMEOUT_S * 1000)
        topics = self.topics()
        self.assertNotIn("alpha", topics)
        self.assertIn("beta", topics)

        # Re-created, the name is a new, empty topic.
        self.admin.create_topics([NewTopic("alpha", 2, 1)], timeout_ms=TIMEOUT_S * 1000)
        self.assertEqual(consume_all(self.broker, "alpha", 2), [])
        metas = produce(self.broker, "alpha", [{"value": b"fresh", "partition": 1}])
        self.assertEqual((metas[0].partition, metas[0].offset), (1, 0))
        got = consume_all(self.broker, "alpha", 2)
        self.assertEqual([(r.partition, r.offset, r.value) for r in got], [(1, 0, b"fresh")])


if __name__ == "__main__":
    unittest.main()
