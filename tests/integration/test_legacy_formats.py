"""The legacy message formats (magic 0 and 1): Produce v0-v2 message sets are
up-converted to RecordBatch v2, and Fetch v0-v3 get what is stored
down-converted (magic 0 for v0-v1, magic 1 for v2-v3).

Hand-built requests check the wire layouts byte for byte (the message sets
here are built and parsed by this file, independently of the broker);
kafka-python 2.0.2 pinned to api_version (0, 9) and (0, 10, 1) checks real
old clients: producing, consuming, consumer groups and committed offsets,
and offsets by time where the format has timestamps. confluent-kafka
(RecordBatch v2, with headers) and the old clients read each other's data."""
import gzip
import random
import socket
import struct
import time
import unittest
import zlib

from confluent_kafka import OFFSET_BEGINNING, TopicPartition as CKTopicPartition
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient, NewTopic
from kafka.structs import OffsetAndMetadata

from harness import Broker
from test_confluent import produce_all, read_all

TIMEOUT_S = 30
NO_TIMESTAMP = -1


# -- message sets, by the protocol's layout ----------------------------------

def message(offset, magic, key, value, timestamp=NO_TIMESTAMP, attributes=0):
    body = struct.pack(">bb", magic, attributes)
    if magic == 1:
        body += struct.pack(">q", timestamp)
    for field in (key, value):
        body += struct.pack(">i", -1) if field is None else struct.pack(">i", len(field)) + field
    crc = zlib.crc32(body) & 0xFFFFFFFF
    return struct.pack(">qiI", offset, 4 + len(body), crc) + body


def gzip_wrapper(magic, last_offset, records, timestamp=NO_TIMESTAMP):
    """records: (key, value, timestamp); inner offsets 0..n-1 (relative in
    magic 1), the wrapper at `last_offset`."""
    inner = b"".join(message(i, magic, k, v, ts) for i, (k, v, ts) in enumerate(records))
    return message(last_offset, magic, None, gzip.compress(inner), timestamp, attributes=1)


def parse_message_set(data):
    """[(offset, magic, attributes, timestamp, key, value)] of a message set,
    gzip wrappers expanded; checks every CRC. A trailing partial message is
    ignored, as old clients do."""
    out = []
    pos = 0
    while len(data) - pos >= 12:
        offset, size = struct.unpack(">qi", data[pos:pos + 12])
        if len(data) - pos - 12 < size:
            break
        msg = data[pos + 12:pos + 12 + size]
        pos += 12 + size
        (crc,) = struct.unpack(">I", msg[:4])
        assert zlib.crc32(msg[4:]) & 0xFFFFFFFF == crc, "CRC mismatch at offset %d" % offset
        magic, attrs = struct.unpack(">bb", msg[4:6])
        at = 6
        ts = None
        if magic == 1:
            (ts,) = struct.unpack(">q", msg[6:14])
            at = 14
        fields = []
        for _ in range(2):
            (n,) = struct.unpack(">i", msg[at:at + 4])
            at += 4
            fields.append(None if n == -1 else msg[at:at + n])
            at += max(n, 0)
        assert at == size, "message at offset %d: fields do not fill it" % offset
        key, value = fields
        codec = attrs & 7
        if codec == 0:
            out.append((offset, magic, attrs, ts, key, value))
            continue
        assert codec == 1, "codec %d" % codec
        inner = parse_message_set(zlib.decompress(value, 15 + 32))
        base = offset - inner[-1][0] if magic == 1 else 0
        for o, m, a, t, k, v in inner:
            out.append((base + o, m, a | (attrs & 8), ts if attrs & 8 else t, k, v))
    return out


# -- requests -----------------------------------------------------------------

def string(s):
    return struct.pack(">h", len(s)) + s


class Conn:
    def __init__(self, broker):
        self.s = socket.create_connection(("127.0.0.1", broker.port), timeout=TIMEOUT_S)
        self.correlation = 0

    def close(self):
        self.s.close()

    def recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                raise AssertionError("connection closed by the broker")
            buf += chunk
        return buf

    def call(self, api_key, version, body):
        self.correlation += 1
        req = struct.pack(">hhi", api_key, version, self.correlation) + string(b"legacy-test") + body
        self.s.sendall(struct.pack(">i", len(req)) + req)
        (n,) = struct.unpack(">i", self.recv_exact(4))
        resp = self.recv_exact(n)
        (corr,) = struct.unpack(">i", resp[:4])
        assert corr == self.correlation
        return resp[4:]

    def produce(self, version, topic, partition, records):
        """(error, base offset, log append time or None)."""
        body = struct.pack(">hi", -1, TIMEOUT_S * 1000) + struct.pack(">i", 1) + string(topic)
        body += struct.pack(">ii", 1, partition) + struct.pack(">i", len(records)) + records
        r = self.call(0, version, body)
        (topics,) = struct.unpack(">i", r[:4])
        assert topics == 1
        at = 4 + 2 + len(topic)
        (parts,) = struct.unpack(">i", r[at:at + 4])
        assert parts == 1
        p, error, base = struct.unpack(">ihq", r[at + 4:at + 18])
        assert p == partition
        log_append_time = None
        if version >= 2:
            (log_append_time,) = struct.unpack(">q", r[at + 18:at + 26])
        return error, base, log_append_time

    def fetch(self, version, topic, partition, offset, max_bytes=1 << 20):
        """(error, high watermark, records bytes)."""
        body = struct.pack(">iii", -1, 0, 0)
        if version >= 3:
            body += struct.pack(">i", max_bytes)
        body += struct.pack(">i", 1) + string(topic)
        body += struct.pack(">i", 1) + struct.pack(">iqi", partition, offset, max_bytes)
        r = self.call(1, version, body)
        at = 4 if version >= 1 else 0  # throttle_time_ms
        (topics,) = struct.unpack(">i", r[at:at + 4])
        assert topics == 1
        at += 4 + 2 + len(topic)
        (parts,) = struct.unpack(">i", r[at:at + 4])
        assert parts == 1
        p, error, hw, size = struct.unpack(">ihqi", r[at + 4:at + 22])
        assert p == partition
        records = r[at + 22:at + 22 + size]
        assert len(records) == size and at + 22 + size == len(r), "response size"
        return error, hw, records


class HandBuiltLegacyRequestsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = Broker().start()
        admin = KafkaAdminClient(bootstrap_servers=cls.broker.bootstrap,
                                 request_timeout_ms=TIMEOUT_S * 1000)
        admin.create_topics([NewTopic("hand", 1, 1), NewTopic("hand-bad", 1, 1),
                             NewTopic("hand-lat", 1, 1, topic_configs={
                                 "message.timestamp.type": "LogAppendTime"})],
                            timeout_ms=TIMEOUT_S * 1000)
        admin.close()

    @classmethod
    def tearDownClass(cls):
        cls.broker.__exit__(None, None, None)

    def setUp(self):
        self.c = Conn(self.broker)

    def tearDown(self):
        self.c.close()

    def test_produce_v0_to_v2_and_fetch_v0_to_v3_round_trip(self):
        # Produce v0: plain magic 0 messages (their offsets are the client's
        # guesses; the broker assigns its own).
        v0 = message(0, 0, b"k0", b"zero") + message(7, 0, None, b"one") + message(8, 0, b"k2", None)
        self.assertEqual(self.c.produce(0, b"hand", 0, v0)[:2], (0, 0))
        # Produce v1: a magic 0 gzip wrapper.
        v1 = gzip_wrapper(0, 1, [(b"k3", b"three", NO_TIMESTAMP), (b"", b"", NO_TIMESTAMP)])
        self.assertEqual(self.c.produce(1, b"hand", 0, v1)[:2], (0, 3))
        # Produce v2: magic 1 with timestamps, plain and in a wrapper whose
        # inner offsets are relative.
        v2 = message(0, 1, b"k5", b"five", 1700000000005)
        v2 += gzip_wrapper(1, 2, [(b"k6", b"six", 1700000000006), (None, b"seven", 1700000000004)],
                           timestamp=1700000000006)
        self.assertEqual(self.c.produce(2, b"hand", 0, v2), (0, 5, -1))  # CreateTime: no append time

        want = [(0, b"k0", b"zero", NO_TIMESTAMP), (1, None, b"one", NO_TIMESTAMP),
                (2, b"k2", None, NO_TIMESTAMP), (3, b"k3", b"three", NO_TIMESTAMP),
                (4, b"", b"", NO_TIMESTAMP), (5, b"k5", b"five", 1700000000005),
                (6, b"k6", b"six", 1700000000006), (7, None, b"seven", 1700000000004)]
        for version, magic in ((0, 0), (1, 0), (2, 1), (3, 1)):
            with self.subTest(fetch=version):
                error, hw, records = self.c.fetch(version, b"hand", 0, 0)
                self.assertEqual((error, hw), (0, 8))
                got = parse_message_set(records)
                self.assertEqual({m for _, m, _, _, _, _ in got}, {magic})
                # Magic 0 has no timestamps at all.
                self.assertEqual([(o, k, v, NO_TIMESTAMP if ts is None else ts)
                                  for o, _, _, ts, k, v in got],
                                 [(o, k, v, ts if magic == 1 else NO_TIMESTAMP)
                                  for o, k, v, ts in want])
                # From an offset inside a stored batch: nothing before it.
                error, _, records = self.c.fetch(version, b"hand", 0, 6)
                self.assertEqual([o for o, *_ in parse_message_set(records)], [6, 7])
                # At the end: no records.
                self.assertEqual(self.c.fetch(version, b"hand", 0, 8), (0, 8, b""))

    def test_fetch_v3_honours_max_bytes_after_the_first_batch(self):
        big = b"x" * 3000
        for i in range(3):
            self.assertEqual(self.c.produce(2, b"hand-bad", 0, message(0, 1, None, big, 1000 + i))[0], 0)
        error, _, records = self.c.fetch(3, b"hand-bad", 0, 0, max_bytes=100)
        self.assertEqual(error, 0)
        self.assertEqual([o for o, *_ in parse_message_set(records)], [0])  # the first goes in
        error, _, records = self.c.fetch(3, b"hand-bad", 0, 0, max_bytes=7000)
        self.assertLessEqual(len(records), 7000)
        self.assertEqual([o for o, *_ in parse_message_set(records)], [0, 1])

    def test_log_append_time_topics_stamp_legacy_messages(self):
        before = int(time.time() * 1000)
        error, base, lat = self.c.produce(2, b"hand-lat", 0, message(0, 1, b"k", b"v", 42) +
                                          message(0, 0, b"k0", b"v0"))
        after = int(time.time() * 1000)
        self.assertEqual((error, base), (0, 0))
        self.assertTrue(before <= lat <= after, (before, lat, after))
        _, _, records = self.c.fetch(2, b"hand-lat", 0, 0)
        got = parse_message_set(records)
        self.assertEqual([(o, a & 8, ts, k, v) for o, _, a, ts, k, v in got],
                         [(0, 8, lat, b"k", b"v"), (1, 8, lat, b"k0", b"v0")])

    def test_malformed_legacy_message_sets_get_errors(self):
        good = message(0, 1, b"k", b"v", 5)
        bad_crc = good[:-1] + bytes([good[-1] ^ 1])
        self.assertEqual(self.c.produce(2, b"hand-bad", 0, bad_crc)[0], 2)  # CORRUPT_MESSAGE
        self.assertEqual(self.c.produce(2, b"hand-bad", 0, good[:-3])[0], 2)  # cut off
        nested = message(0, 1, None, gzip.compress(gzip_wrapper(1, 0, [(b"k", b"v", 1)])), 1, attributes=1)
        self.assertEqual(self.c.produce(2, b"hand-bad", 0, nested)[0], 87)  # INVALID_RECORD
        zstd = message(0, 1, None, b"not really zstd", 1, attributes=4)
        self.assertEqual(self.c.produce(2, b"hand-bad", 0, zstd)[0], 76)  # UNSUPPORTED_COMPRESSION_TYPE
        # From Produce v3 only RecordBatch v2 is allowed, as in Kafka.
        self.assertEqual(self.produce_v3(good), 87)

    def produce_v3(self, records):
        """The error of a Produce v3 request carrying `records`."""
        body = struct.pack(">h", -1) + struct.pack(">hi", -1, TIMEOUT_S * 1000)
        body += struct.pack(">i", 1) + string(b"hand-bad")
        body += struct.pack(">ii", 1, 0) + struct.pack(">i", len(records)) + records
        r = self.c.call(0, 3, body)
        at = 4 + 2 + len(b"hand-bad") + 4
        (error,) = struct.unpack(">h", r[at + 4:at + 6])
        return error


# -- kafka-python pinned to old protocol versions -------------------------------

class PinnedKafkaPythonTest(unittest.TestCase):
    def setUp(self):
        self.broker = Broker().start()
        self.admin = KafkaAdminClient(bootstrap_servers=self.broker.bootstrap,
                                      request_timeout_ms=TIMEOUT_S * 1000)

    def tearDown(self):
        self.admin.close()
        self.broker.__exit__(None, None, None)

    def create(self, topic, partitions):
        self.admin.create_topics([NewTopic(topic, partitions, 1)], timeout_ms=TIMEOUT_S * 1000)

    def produce(self, api_version, topic, messages, **conf):
        p = KafkaProducer(bootstrap_servers=self.broker.bootstrap, api_version=api_version,
                          acks="all", linger_ms=5, request_timeout_ms=TIMEOUT_S * 1000,
                          max_block_ms=TIMEOUT_S * 1000, **conf)
        try:
            futures = [p.send(topic, **m) for m in messages]
            p.flush(TIMEOUT_S)
            return [f.get(TIMEOUT_S) for f in futures]
        finally:
            p.close(TIMEOUT_S)

    def consumer(self, api_version, **conf):
        c = dict(bootstrap_servers=self.broker.bootstrap, api_version=api_version,
                 enable_auto_commit=False, auto_offset_reset="earliest", fetch_max_wait_ms=50,
                 request_timeout_ms=TIMEOUT_S * 1000 + 1000, session_timeout_ms=10000,
                 heartbeat_interval_ms=1000)
        c.update(conf)
        return KafkaConsumer(**c)

    def poll_until(self, c, want):
        out = []
        deadline = time.monotonic() + TIMEOUT_S
        while len(out) < want and time.monotonic() < deadline:
            for records in c.poll(timeout_ms=200).values():
                out.extend(records)
        self.assertEqual(len(out), want, "read %d of %d records" % (len(out), want))
        return sorted(out, key=lambda r: (r.partition, r.offset))

    def round_trip(self, api_version, has_timestamps):
        rng = random.Random(9)
        partitions = 3
        for codec in (None, "gzip"):
            with self.subTest(api_version=api_version, codec=codec):
                topic = "pinned-%s-%s" % ("-".join(map(str, api_version)), codec)
                self.create(topic, partitions)
                base_ts = int(time.time() * 1000) - 60000
                messages = []
                for i in range(120):
                    m = {"key": None if i % 7 == 0 else b"key-%d" % i,
                         "value": None if i % 7 == 3 else rng.randbytes(i % 300) + b"v%d" % i,
                         "partition": i % partitions}
                    if has_timestamps:
                        m["timestamp_ms"] = base_ts + (i * 31) % 1000
                    messages.append(m)
                metas = self.produce(api_version, topic, messages, compression_type=codec)
                for p in range(partitions):
                    self.assertEqual([md.offset for md in metas if md.partition == p],
                                     list(range(40)), "partition %d" % p)

                # A group member of the same protocol era reads everything,
                # commits, and a second member resumes from the commit.
                group = "g-" + topic
                c = self.consumer(api_version, group_id=group)
                c.subscribe([topic])
                got = self.poll_until(c, len(messages))
                want = sorted(((md.partition, md.offset, m["key"], m["value"],
                                m["timestamp_ms"] if has_timestamps else None)
                               for m, md in zip(messages, metas)), key=lambda w: w[:2])
                self.assertEqual([(r.partition, r.offset, r.key, r.value, r.timestamp) for r in got],
                                 want)
                c.commit({TopicPartition(topic, p): OffsetAndMetadata(30, "") for p in range(partitions)})
                tps = [TopicPartition(topic, p) for p in range(partitions)]
                self.assertEqual([c.committed(tp) for tp in tps], [30] * partitions)
                c.close()
                c = self.consumer(api_version, group_id=group)
                c.subscribe([topic])
                again = self.poll_until(c, 10 * partitions)
                self.assertEqual([(r.partition, r.offset) for r in again],
                                 [(p, o) for p in range(partitions) for o in range(30, 40)])
                c.close()

                # A current client reads the up-converted records: magic 0
                # messages carry no timestamp (-1) in the v2 batch.
                modern = self.consumer(None, group_id=None)
                modern.assign(tps)
                modern.seek_to_beginning()
                latest = self.poll_until(modern, len(messages))
                self.assertEqual([(r.partition, r.offset, r.key, r.value, r.timestamp) for r in latest],
                                 [w[:4] + (w[4] if has_timestamps else -1,) for w in want])
                if has_timestamps:
                    # Offsets by time (ListOffsets v1, from kafka-python 0.10.1).
                    old = self.consumer(api_version, group_id=None)
                    target = base_ts + 500
                    found = old.offsets_for_times({tp: target for tp in tps})
                    for tp in tps:
                        first = min((md.offset for m, md in zip(messages, metas)
                                     if md.partition == tp.partition and m["timestamp_ms"] >= target),
                                    default=None)
                        self.assertEqual(found[tp].offset, first, tp)
                    old.close()
                modern.close()

    def test_api_version_0_9_magic_0(self):
        self.round_trip((0, 9), has_timestamps=False)

    def test_api_version_0_10_1_magic_1(self):
        self.round_trip((0, 10, 1), has_timestamps=True)

    def test_old_clients_read_record_batches_with_headers_dropped(self):
        self.create("modern", 1)
        messages = [{"key": b"k%d" % i, "value": b"v%d" % i, "headers": [("h", b"x")],
                     "timestamp": 1600000000000 + i} for i in range(50)]
        # gzip: kafka-python here has no snappy or lz4 module.
        reports = produce_all(self.broker, "modern", messages, {"compression.codec": "gzip"})
        self.assertTrue(all(r.error is None for r in reports))
        for api_version, ts in (((0, 9), None), ((0, 10, 1), True)):
            with self.subTest(api_version=api_version):
                c = self.consumer(api_version, group_id=None)
                c.assign([TopicPartition("modern", 0)])
                c.seek_to_beginning()
                got = self.poll_until(c, len(messages))
                self.assertEqual([(r.offset, r.key, r.value, r.headers, r.timestamp) for r in got],
                                 [(i, m["key"], m["value"], [], m["timestamp"] if ts else None)
                                  for i, m in enumerate(messages)])
                c.close()
        # And librdkafka reads what the old client wrote.
        self.create("from-old", 1)
        self.produce((0, 9), "from-old", [{"key": b"a", "value": b"b"}])
        got = read_all(self.broker, [CKTopicPartition("from-old", 0, OFFSET_BEGINNING)])
        self.assertEqual([(r.offset, r.key, r.value) for r in got], [(0, b"a", b"b")])


if __name__ == "__main__":
    unittest.main()
