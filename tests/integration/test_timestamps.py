"""The broker derives batch timestamps from the records: a producer whose
batches claim maxTimestamp -1, 0, a far future or a value inconsistent with
its records loses nothing to retention, and ListOffsets by time answers from
the records. Record timestamps outside message.timestamp.before/after.max.ms
are refused with INVALID_TIMESTAMP (32) and nothing is appended.

The batches are built by hand (kafka-python's record builder, then the
maxTimestamp field and CRC patched) and sent in raw Produce v3 requests,
since no client on this machine sends such fields itself."""
import socket
import struct
import time
import unittest

from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.util import calc_crc32c

from harness import Broker

DAY_MS = 86_400_000
WAIT_S = 60


def string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def batch(records, claimed_max, codec=0):
    """A v2 batch of (timestamp, key, value) whose maxTimestamp says `claimed_max`."""
    b = DefaultRecordBatchBuilder(magic=2, compression_type=codec, is_transactional=False,
                                  producer_id=-1, producer_epoch=-1, base_sequence=-1,
                                  batch_size=1 << 20)
    for i, (ts, key, value) in enumerate(records):
        b.append(i, timestamp=ts, key=key, value=value, headers=[])
    raw = bytearray(b.build())
    struct.pack_into(">q", raw, 35, claimed_max)
    struct.pack_into(">I", raw, 17, calc_crc32c(bytes(raw[21:])))
    return bytes(raw)


class RawProducer:
    def __init__(self, broker):
        self.s = socket.create_connection(("127.0.0.1", broker.port), timeout=30)
        self.correlation = 0

    def produce(self, topic, partition, records_bytes):
        """Produce v3 with acks=-1; returns (error_code, base_offset)."""
        self.correlation += 1
        body = struct.pack(">hhi", 0, 3, self.correlation) + string("timestamps-test")
        body += struct.pack(">h", -1)  # transactional id: null
        body += struct.pack(">hi", -1, 30000)
        body += struct.pack(">i", 1) + string(topic)
        body += struct.pack(">i", 1) + struct.pack(">i", partition)
        body += struct.pack(">i", len(records_bytes)) + records_bytes
        self.s.sendall(struct.pack(">i", len(body)) + body)
        size = struct.unpack(">i", self._recv(4))[0]
        resp = self._recv(size)
        pos = 4  # correlation id
        (topics,) = struct.unpack_from(">i", resp, pos)
        pos += 4
        (name_len,) = struct.unpack_from(">h", resp, pos)
        pos += 2 + name_len
        pos += 4  # partition count
        _, error, base_offset = struct.unpack_from(">ihq", resp, pos)
        return error, base_offset

    def _recv(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("broker closed the connection")
            buf += chunk
        return buf

    def close(self):
        self.s.close()


def log_start(consumer, topic):
    low, _ = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    return low


class DerivedTimestampsTest(unittest.TestCase):
    def setUp(self):
        # One shard, so one retention pass covers every partition.
        self.broker = Broker(cores=1, extra_args=["--set", "log.retention.check.interval.ms=200"])
        self.broker.start()
        self.admin = AdminClient({"bootstrap.servers": self.broker.bootstrap})
        self.consumer = Consumer({"bootstrap.servers": self.broker.bootstrap,
                                  "group.id": "timestamps-test", "enable.auto.commit": False,
                                  "isolation.level": "read_uncommitted"})
        self.producer = RawProducer(self.broker)

    def tearDown(self):
        self.producer.close()
        self.consumer.close()
        self.broker.__exit__(None, None, None)

    def create(self, name, config):
        futures = self.admin.create_topics([NewTopic(name, 1, 1, config=config)])
        futures[name].result(timeout=30)

    def wait_for_a_retention_pass(self):
        """Writes a canary topic whose closed segments expire at once and
        waits until retention deleted them: a pass ran after everything the
        test wrote before."""
        canary = "canary-%d" % time.monotonic_ns()
        self.create(canary, {"retention.ms": "1", "segment.bytes": "200"})
        now = int(time.time() * 1000)
        for i in range(4):
            err, _ = self.producer.produce(canary, 0, batch([(now, b"c", b"x" * 150)], now))
            self.assertEqual(err, 0)
        deadline = time.monotonic() + WAIT_S
        while log_start(self.consumer, canary) == 0:
            self.assertLess(time.monotonic(), deadline, "no retention pass ran")
            time.sleep(0.05)

    def test_claimed_max_timestamps_never_expire_fresh_data(self):
        topic = "fresh"
        self.create(topic, {"retention.ms": str(DAY_MS), "segment.bytes": "1024"})
        now = int(time.time() * 1000)
        # The far-future claim only in the last batches: in an earlier
        # segment it would hide the others from retention.
        claims = [-1, 0, now - 30 * DAY_MS]
        sent = []  # (offset, timestamp, value)
        for i in range(200):
            ts = now - 200 + i
            value = b"value-%03d-" % i + b"v" * 60
            claimed = claims[i % len(claims)] if i < 196 else now + 100 * 365 * DAY_MS
            codec = 1 if i % 3 == 0 else 0  # gzip for a third of them
            err, base = self.producer.produce(topic, 0, batch([(ts, b"k%d" % i, value)], claimed,
                                                              codec))
            self.assertEqual(err, 0, "produce %d" % i)
            sent.append((base, ts, value))
        self.assertEqual([o for o, _, _ in sent], list(range(200)))

        self.wait_for_a_retention_pass()
        self.assertEqual(log_start(self.consumer, topic), 0, "retention deleted fresh data")

        # Every message is there, and the batches served carry the records'
        # own maximum (the consumer sees each record's timestamp).
        self.consumer.assign([TopicPartition(topic, 0, 0)])
        got = []
        deadline = time.monotonic() + WAIT_S
        while len(got) < 200 and time.monotonic() < deadline:
            m = self.consumer.poll(1.0)
            if m is not None and m.error() is None:
                got.append((m.offset(), m.timestamp()[1], m.value()))
        self.assertEqual(got, sent)

        # Offsets by time come from the records.
        for offset, ts, _ in sent[::17]:
            found = self.consumer.offsets_for_times([TopicPartition(topic, 0, ts)], timeout=10)
            self.assertEqual(found[0].offset, offset, "lookup of %d" % ts)
        past_end = self.consumer.offsets_for_times([TopicPartition(topic, 0, now + 1000)],
                                                   timeout=10)
        self.assertEqual(past_end[0].offset, -1)

        # A restart (recovery) keeps it all.
        self.consumer.unassign()
        self.broker.kill()
        self.broker.start()
        self.producer.close()
        self.producer = RawProducer(self.broker)
        self.wait_for_a_retention_pass()
        self.assertEqual(log_start(self.consumer, topic), 0)
        found = self.consumer.offsets_for_times([TopicPartition(topic, 0, sent[150][1])],
                                                timeout=10)
        self.assertEqual(found[0].offset, 150)

    def test_timestamps_outside_the_limits_are_refused(self):
        topic = "window"
        self.create(topic, {"message.timestamp.before.max.ms": "60000",
                            "message.timestamp.after.max.ms": "3600000"})
        now = int(time.time() * 1000)
        too_old = batch([(now, b"a", b"ok"), (now - 3_600_000, b"b", b"old")], now)
        self.assertEqual(self.producer.produce(topic, 0, too_old)[0], 32)
        too_new = batch([(now + 2 * 3_600_000, b"c", b"new")], now + 2 * 3_600_000, codec=1)
        self.assertEqual(self.producer.produce(topic, 0, too_new)[0], 32)
        # Nothing of either was appended; a good batch gets offset 0.
        good = batch([(now, b"d", b"fine")], -1)
        self.assertEqual(self.producer.produce(topic, 0, good), (0, 0))


if __name__ == "__main__":
    unittest.main()
