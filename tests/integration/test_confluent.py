"""confluent-kafka-python (librdkafka 2.0.2) against a real broker.

Producer (acks=all, every compression codec), Consumer with assign()
(beginning, a given offset, offsets_for_times), AdminClient (create,
configs, partitions, delete, errors), null keys and values, messages near
and over max.message.bytes, and a 100-partition topic.

The helpers here (create_topics, produce_all, read_all) are shared with the
other files of this folder.
"""
import json
import logging
import random
import time
import unittest

from confluent_kafka import (OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer,
                             TopicPartition)
from confluent_kafka.admin import (AdminClient, ConfigResource, ConfigSource, NewPartitions,
                                   NewTopic)

from harness import Broker

TIMEOUT_S = 30
KAFKA_MAX_MESSAGE_BYTES = 1048588  # Kafka's max.message.bytes default


def admin(broker):
    return AdminClient({"bootstrap.servers": broker.bootstrap})


def create_topics(broker, topics):
    """topics: {name: (partitions, {config})}; raises the first error."""
    a = admin(broker)  # must outlive the futures
    fs = a.create_topics(
        [NewTopic(name, p, 1, config=cfg) for name, (p, cfg) in topics.items()],
        request_timeout=TIMEOUT_S, operation_timeout=TIMEOUT_S)
    for f in fs.values():
        f.result(TIMEOUT_S)


def create_topic(broker, name, partitions=1, config=None):
    create_topics(broker, {name: (partitions, config or {})})


def create_topic_error(broker, name, partitions=1, config=None):
    """Creates a topic that must fail; returns the KafkaError."""
    a = admin(broker)
    fs = a.create_topics([NewTopic(name, partitions, 1, config=config or {})],
                         request_timeout=TIMEOUT_S)
    try:
        fs[name].result(TIMEOUT_S)
    except KafkaException as e:
        return e.args[0]
    raise AssertionError("creating topic %r succeeded but should have failed" % name)


def topic_partitions(broker, topic):
    """Partition ids of `topic` from a fresh Metadata request, or None."""
    md = admin(broker).list_topics(topic=None, timeout=TIMEOUT_S)
    t = md.topics.get(topic)
    return None if t is None else sorted(t.partitions)


class Delivery:
    """One delivery report."""
    __slots__ = ("error", "partition", "offset", "timestamp")

    def __init__(self, err, msg):
        self.error = err
        self.partition = msg.partition()
        self.offset = msg.offset()
        self.timestamp = msg.timestamp()


def produce_all(broker, topic, messages, conf=None, stats=None):
    """Produces `messages` (dicts of Producer.produce keyword arguments) and
    waits for every delivery report; returns them in produce order.

    With `stats` (a list), librdkafka's statistics are appended to it, the
    last one taken once every message has been transmitted."""
    c = {"bootstrap.servers": broker.bootstrap, "acks": "all", "linger.ms": 5,
         "message.timeout.ms": TIMEOUT_S * 1000}
    c.update(conf or {})
    if stats is not None:
        c["statistics.interval.ms"] = 100
        c["stats_cb"] = lambda s: stats.append(json.loads(s))
    p = Producer(c)
    # Learn the topic's partitions first: librdkafka otherwise waits for its
    # one-second topic scan before asking for the metadata of a new topic.
    p.list_topics(topic, timeout=TIMEOUT_S)
    reports = [None] * len(messages)

    def on_delivery(i):
        return lambda err, msg: reports.__setitem__(i, Delivery(err, msg))

    deadline = time.monotonic() + TIMEOUT_S
    for i, m in enumerate(messages):
        while True:
            try:
                p.produce(topic, on_delivery=on_delivery(i), **m)
                break
            except BufferError:  # local queue full: serve delivery reports
                if time.monotonic() > deadline:
                    raise
                p.poll(0.1)
    left = p.flush(TIMEOUT_S)
    if left:
        raise AssertionError("%d message(s) not delivered within %ds" % (left, TIMEOUT_S))
    assert all(r is not None for r in reports)
    if stats is not None:
        while not stats or stats[-1]["txmsgs"] < len(messages):
            if time.monotonic() > deadline:
                raise AssertionError("no statistics counting %d messages" % len(messages))
            p.poll(0.1)
    return reports


class Record:
    """A consumed message, as plain values."""
    __slots__ = ("partition", "offset", "key", "value", "headers", "timestamp")

    def __init__(self, m):
        self.partition = m.partition()
        self.offset = m.offset()
        self.key = m.key()
        self.value = m.value()
        self.headers = m.headers()
        self.timestamp = m.timestamp()

    def __repr__(self):
        return "Record(p=%d o=%d key=%r value=%r headers=%r ts=%r)" % (
            self.partition, self.offset, self.key,
            self.value if self.value is None or len(self.value) < 64 else self.value[:64] + b"...",
            self.headers, self.timestamp)


def consumer(broker, conf=None):
    # librdkafka wants a group.id even for assign(); nothing uses the group:
    # no subscribe(), no commits, every assignment has an explicit offset.
    c = {"bootstrap.servers": broker.bootstrap, "group.id": "strata-it",
         "enable.auto.commit": False, "enable.auto.offset.store": False,
         "enable.partition.eof": True,
         # End of partition shows as an empty fetch: do not long-poll for it.
         "fetch.wait.max.ms": 50}
    c.update(conf or {})
    return Consumer(c)


def read_all(broker, tps, conf=None, stats=None, timeout=TIMEOUT_S):
    """Reads every assigned partition (TopicPartitions with start offsets)
    up to its end (PARTITION_EOF); returns Records sorted by (partition,
    offset). With `stats` (a list), librdkafka's statistics are appended,
    the last one taken after the end of every partition."""
    c = dict(conf or {})
    if stats is not None:
        c["statistics.interval.ms"] = 100
        c["stats_cb"] = lambda s: stats.append(json.loads(s))
    cons = consumer(broker, c)
    try:
        # Know the leaders before assign(): librdkafka otherwise retries the
        # start-offset query on a 500 ms timer.
        for topic in {tp.topic for tp in tps}:
            cons.list_topics(topic, timeout=TIMEOUT_S)
        cons.assign(tps)
        pending = {(tp.topic, tp.partition) for tp in tps}
        out = []
        deadline = time.monotonic() + timeout
        while pending and time.monotonic() < deadline:
            for m in cons.consume(num_messages=1000, timeout=0.2):
                err = m.error()
                if err is None:
                    out.append(Record(m))
                elif err.code() == KafkaError._PARTITION_EOF:
                    pending.discard((m.topic(), m.partition()))
                else:
                    raise AssertionError("consumer error: %s" % err)
        if pending:
            raise AssertionError("partitions %s not read to the end within %ds (got %d records)"
                                 % (sorted(pending), timeout, len(out)))
        if stats is not None:
            n = len(stats)
            while len(stats) <= n:
                if time.monotonic() > deadline:
                    raise AssertionError("no consumer statistics within %ds" % timeout)
                cons.poll(0.1)
    finally:
        cons.close()
    out.sort(key=lambda r: (r.partition, r.offset))
    return out


def expected_records(messages, reports):
    """What reading back must give: the produced messages at the offsets of
    their delivery reports, sorted by (partition, offset)."""
    out = []
    for m, r in zip(messages, reports):
        headers = m.get("headers")
        out.append((r.partition, r.offset, m.get("key"), m.get("value"),
                    None if not headers else [(k, v) for k, v in headers]))
    out.sort(key=lambda e: (e[0], e[1]))
    return out


def as_tuples(records):
    return [(r.partition, r.offset, r.key, r.value, r.headers) for r in records]


class ConfluentKafkaTest(unittest.TestCase):
    def setUp(self):
        self.broker = Broker().start()

    def tearDown(self):
        self.broker.__exit__(None, None, None)

    def assert_delivered_in_order(self, reports, partitions):
        errors = [(i, r.error) for i, r in enumerate(reports) if r.error is not None]
        self.assertEqual(errors, [])
        # Without errors and retries, each partition's offsets are 0..n-1 in
        # the order the messages were produced.
        for p in range(partitions):
            offsets = [r.offset for r in reports if r.partition == p]
            self.assertEqual(offsets, list(range(len(offsets))), "partition %d" % p)

    # -- producer and codecs ------------------------------------------------

    def test_acks_all_every_codec_round_trips_byte_for_byte(self):
        rng = random.Random(1)
        n, partitions = 400, 3
        for codec in ("none", "gzip", "snappy", "lz4", "zstd"):
            with self.subTest(codec=codec):
                topic = "codec-" + codec
                create_topic(self.broker, topic, partitions)
                messages = []
                for i in range(n):
                    # Compressible values (repeated text), some random bytes
                    # and runs of each byte value.
                    value = (("%s message %d " % (codec, i)).encode() * 40 +
                             rng.randbytes(8) + bytes([i % 256]) * (i % 7))
                    headers = [("index", str(i).encode()), ("codec", codec.encode()),
                               ("bin", bytes([0, 255, i % 256]))]
                    if i % 5 == 0:
                        headers.append(("empty", b""))
                    messages.append({"key": b"key-%d" % i if i % 10 else None, "value": value,
                                     "headers": headers, "partition": i % partitions})
                payload = sum(len(m["value"]) for m in messages)
                tx = []
                reports = produce_all(self.broker, topic, messages,
                                      {"compression.type": codec, "linger.ms": 20}, stats=tx)
                self.assert_delivered_in_order(reports, partitions)
                rx = []
                got = read_all(self.broker, [TopicPartition(topic, p, OFFSET_BEGINNING)
                                             for p in range(partitions)], stats=rx)
                want = expected_records(messages, reports)
                self.assertEqual(as_tuples(got), want)
                # From an offset inside a batch: the consumer gets the
                # batch and skips what comes before the offset.
                got = read_all(self.broker, [TopicPartition(topic, 1, 50)])
                self.assertEqual(as_tuples(got), [w for w in want if w[0] == 1 and w[1] >= 50])
                # The batches really were compressed on the wire, both ways
                # (the values compress far better than 4:1).
                sent, received = tx[-1]["tx_bytes"], rx[-1]["rx_bytes"]
                if codec == "none":
                    self.assertGreater(sent, payload)
                    self.assertGreater(received, payload)
                else:
                    # librdkafka 2.0.2 sends gzip, snappy and lz4 batches
                    # uncompressed ("Broker does not support compression
                    # type", debug=feature,msg) unless ApiVersions offers
                    # Produce v0, and for lz4 FindCoordinator v0 as well.
                    self.assertLess(sent, payload // 4,
                                    "producer sent %d bytes for %d bytes of values: the %s batches "
                                    "were not compressed" % (sent, payload, codec))
                    self.assertLess(received, payload // 4,
                                    "consumer received %d bytes for %d bytes of values: the %s "
                                    "batches were not served compressed" % (received, payload, codec))

    # -- consumer positions -------------------------------------------------

    def test_assign_from_beginning_and_from_an_offset(self):
        create_topic(self.broker, "positions", 2)
        messages = [{"key": b"k%d" % i, "value": b"v%d" % i, "partition": i % 2} for i in range(50)]
        reports = produce_all(self.broker, "positions", messages)
        self.assert_delivered_in_order(reports, 2)
        want = expected_records(messages, reports)
        got = read_all(self.broker, [TopicPartition("positions", p, OFFSET_BEGINNING) for p in (0, 1)])
        self.assertEqual(as_tuples(got), want)
        # From offset 17 of partition 0 and offset 3 of partition 1.
        got = read_all(self.broker, [TopicPartition("positions", 0, 17),
                                     TopicPartition("positions", 1, 3)])
        self.assertEqual(as_tuples(got), [w for w in want if w[1] >= (17 if w[0] == 0 else 3)])
        # From the log end: nothing.
        got = read_all(self.broker, [TopicPartition("positions", 0, 25)])
        self.assertEqual(got, [])

    def test_offsets_for_times_with_non_monotonic_timestamps(self):
        create_topic(self.broker, "times", 1)
        base = int(time.time() * 1000) - 3600 * 1000
        deltas = [500, 100, 900, 300, 900, 1200, 50, 700, 700, 1100, 400, 1300, 0, 800, 1250]
        stamps = [base + d for d in deltas]
        # Three produce rounds so the timestamps go back and forth both
        # inside a batch and between batches.
        reports = []
        for part in (stamps[:6], stamps[6:11], stamps[11:]):
            reports += produce_all(self.broker, "times",
                                   [{"value": b"t%d" % ts, "timestamp": ts} for ts in part])
        self.assertEqual([r.error for r in reports], [None] * len(stamps))
        self.assertEqual([r.offset for r in reports], list(range(len(stamps))))
        got = read_all(self.broker, [TopicPartition("times", 0, OFFSET_BEGINNING)])
        self.assertEqual([(r.offset, r.value, r.timestamp) for r in got],
                         [(i, b"t%d" % ts, (1, ts)) for i, ts in enumerate(stamps)])  # 1 = CreateTime

        queries = sorted({t + d for t in stamps for d in (-1, 0, 1)} | {base - 5000})
        cons = consumer(self.broker)
        try:
            for q in queries:
                want = min((o for o, ts in enumerate(stamps) if ts >= q), default=-1)
                res = cons.offsets_for_times([TopicPartition("times", 0, q)], TIMEOUT_S)
                self.assertEqual((res[0].error, res[0].offset), (None, want), "query %d (base%+d)"
                                 % (q, q - base))
            self.assertEqual(want, -1)  # the last query is after every message
        finally:
            cons.close()

    # -- admin --------------------------------------------------------------

    def test_admin_create_describe_configs_and_partitions(self):
        create_topics(self.broker, {"cfg": (3, {"retention.ms": "12345"}), "plain": (2, {})})
        self.assertEqual(topic_partitions(self.broker, "cfg"), [0, 1, 2])
        self.assertEqual(topic_partitions(self.broker, "plain"), [0, 1])

        a = admin(self.broker)
        fs = a.describe_configs([ConfigResource("topic", "cfg"), ConfigResource("topic", "plain")],
                                request_timeout=TIMEOUT_S)
        configs = {res.name: f.result(TIMEOUT_S) for res, f in fs.items()}
        cfg, plain = configs["cfg"], configs["plain"]
        self.assertEqual(set(cfg), set(plain))
        for name in ("retention.ms", "max.message.bytes", "cleanup.policy", "segment.bytes"):
            self.assertIn(name, cfg)
        self.assertEqual((cfg["retention.ms"].value, cfg["retention.ms"].source, cfg["retention.ms"].is_default),
                         ("12345", ConfigSource.DYNAMIC_TOPIC_CONFIG.value, False))
        for name, entry in cfg.items():
            if name == "retention.ms":
                continue
            self.assertEqual((entry.source, entry.is_default), (ConfigSource.DEFAULT_CONFIG.value, True), name)
            self.assertEqual(entry.value, plain[name].value, name)
        for name, entry in plain.items():
            self.assertEqual((entry.source, entry.is_default), (ConfigSource.DEFAULT_CONFIG.value, True), name)
        # Kafka's defaults.
        self.assertEqual(plain["retention.ms"].value, str(7 * 24 * 3600 * 1000))
        self.assertEqual(plain["max.message.bytes"].value, str(KAFKA_MAX_MESSAGE_BYTES))
        self.assertEqual(plain["cleanup.policy"].value, "delete")

        fs = a.create_partitions([NewPartitions("cfg", 5)], request_timeout=TIMEOUT_S)
        fs["cfg"].result(TIMEOUT_S)
        self.assertEqual(topic_partitions(self.broker, "cfg"), [0, 1, 2, 3, 4])
        # The new partitions take messages and give them back.
        messages = [{"value": b"p%d" % p, "partition": p} for p in range(5)]
        reports = produce_all(self.broker, "cfg", messages)
        self.assertEqual([(r.error, r.partition, r.offset) for r in reports],
                         [(None, p, 0) for p in range(5)])
        got = read_all(self.broker, [TopicPartition("cfg", p, OFFSET_BEGINNING) for p in range(5)])
        self.assertEqual([(r.partition, r.offset, r.value) for r in got],
                         [(p, 0, b"p%d" % p) for p in range(5)])

    def test_admin_delete_topic_and_recreate_it_empty(self):
        create_topic(self.broker, "doomed", 2)
        create_topic(self.broker, "bystander", 1)
        reports = produce_all(self.broker, "doomed",
                              [{"value": b"old-%d" % i, "partition": i % 2} for i in range(20)])
        self.assert_delivered_in_order(reports, 2)
        produce_all(self.broker, "bystander", [{"value": b"stays"}])

        a = admin(self.broker)
        fs = a.delete_topics(["doomed"], request_timeout=TIMEOUT_S, operation_timeout=TIMEOUT_S)
        fs["doomed"].result(TIMEOUT_S)
        self.assertIsNone(topic_partitions(self.broker, "doomed"))
        self.assertEqual(topic_partitions(self.broker, "bystander"), [0])

        # Deleting it again: it does not exist.
        fs = a.delete_topics(["doomed"], request_timeout=TIMEOUT_S)
        with self.assertRaises(KafkaException) as cm:
            fs["doomed"].result(TIMEOUT_S)
        self.assertEqual(cm.exception.args[0].code(), KafkaError.UNKNOWN_TOPIC_OR_PART)

        create_topic(self.broker, "doomed", 3)
        self.assertEqual(topic_partitions(self.broker, "doomed"), [0, 1, 2])
        cons = consumer(self.broker)
        try:
            for p in range(3):
                self.assertEqual(cons.get_watermark_offsets(TopicPartition("doomed", p), TIMEOUT_S),
                                 (0, 0))
        finally:
            cons.close()
        self.assertEqual(read_all(self.broker, [TopicPartition("doomed", p, OFFSET_BEGINNING)
                                                for p in range(3)]), [])
        reports = produce_all(self.broker, "doomed", [{"value": b"new", "partition": 0}])
        self.assertEqual((reports[0].error, reports[0].offset), (None, 0))
        got = read_all(self.broker, [TopicPartition("doomed", 0, OFFSET_BEGINNING)])
        self.assertEqual([(r.offset, r.value) for r in got], [(0, b"new")])
        got = read_all(self.broker, [TopicPartition("bystander", 0, OFFSET_BEGINNING)])
        self.assertEqual([(r.offset, r.value) for r in got], [(0, b"stays")])

    def test_admin_errors(self):
        create_topic(self.broker, "exists", 1)
        err = create_topic_error(self.broker, "exists", 4)
        self.assertEqual(err.code(), KafkaError.TOPIC_ALREADY_EXISTS, str(err))
        self.assertEqual(topic_partitions(self.broker, "exists"), [0])

        # Kafka's INVALID_TOPIC_EXCEPTION (17) is librdkafka's TOPIC_EXCEPTION.
        for name in ("bad name!", "a" * 250, "..", "slash/y"):
            with self.subTest(name=name):
                err = create_topic_error(self.broker, name)
                self.assertEqual(err.code(), KafkaError.TOPIC_EXCEPTION, str(err))
                self.assertIsNone(topic_partitions(self.broker, name))

        for config in ({"retention.ms": "soon"}, {"max.message.bytes": "-5x"},
                       {"cleanup.policy": "sometimes"}, {"no.such.config": "1"}):
            with self.subTest(config=config):
                err = create_topic_error(self.broker, "badcfg", 1, config)
                self.assertEqual(err.code(), KafkaError.INVALID_CONFIG, str(err))
                self.assertIsNone(topic_partitions(self.broker, "badcfg"))

    # -- payload shapes -----------------------------------------------------

    def test_null_and_empty_keys_and_values(self):
        create_topic(self.broker, "nulls", 1)
        shapes = [(None, None), (None, b"v"), (b"k", None), (b"", b""), (b"", None), (None, b""),
                  (b"k2", b"v2")]
        messages = [{"key": k, "value": v} for k, v in shapes]
        reports = produce_all(self.broker, "nulls", messages)
        self.assert_delivered_in_order(reports, 1)
        got = read_all(self.broker, [TopicPartition("nulls", 0, OFFSET_BEGINNING)])
        self.assertEqual([(r.offset, r.key, r.value) for r in got],
                         [(i, k, v) for i, (k, v) in enumerate(shapes)])

    def test_one_mebibyte_messages_and_the_size_limit(self):
        create_topic(self.broker, "big", 1)
        conf = {"message.max.bytes": 2000000, "linger.ms": 0}
        rng = random.Random(2)
        # One message per produce round: each is then its own batch.
        values = [rng.randbytes(1000000), rng.randbytes(1000000)]
        # A record batch holding one record with a null key, no headers and a
        # value of n bytes (n ~ 1 MB) is n + 72 bytes: a 61-byte batch header
        # and an 11-byte record frame (3-byte length, attributes, timestamp
        # and offset deltas, 1-byte null key length, 3-byte value length, 1-byte
        # header count). The largest accepted batch is max.message.bytes.
        at_limit = KAFKA_MAX_MESSAGE_BYTES - 72
        values.append(rng.randbytes(at_limit))
        for v in values:
            reports = produce_all(self.broker, "big", [{"value": v}], conf)
            self.assertIsNone(reports[0].error)
        for size in (at_limit + 1, KAFKA_MAX_MESSAGE_BYTES, 1500000):
            with self.subTest(size=size):
                reports = produce_all(self.broker, "big", [{"value": rng.randbytes(size)}], conf)
                err = reports[0].error
                self.assertIsNotNone(err, "a %d-byte value was accepted" % size)
                # The broker's MESSAGE_TOO_LARGE (10); librdkafka's own local
                # check would be _MSG_SIZE_TOO_LARGE, and does not apply under
                # message.max.bytes=2000000.
                self.assertEqual(err.code(), KafkaError.MSG_SIZE_TOO_LARGE, str(err))
        got = read_all(self.broker, [TopicPartition("big", 0, OFFSET_BEGINNING)])
        self.assertEqual([(r.offset, r.value) for r in got], list(enumerate(values)))

        # A topic with max.message.bytes raised takes a 2.5 MB message, and a
        # consumer whose fetch limits are smaller still gets it.
        create_topic(self.broker, "bigger", 1, {"max.message.bytes": "3000000"})
        value = rng.randbytes(2500000)
        reports = produce_all(self.broker, "bigger", [{"key": b"k", "value": value}],
                              {"message.max.bytes": 4000000, "linger.ms": 0})
        self.assertIsNone(reports[0].error)
        got = read_all(self.broker, [TopicPartition("bigger", 0, OFFSET_BEGINNING)],
                       {"max.partition.fetch.bytes": 1048576, "fetch.max.bytes": 1048576})
        self.assertEqual([(r.offset, r.key, r.value) for r in got], [(0, b"k", value)])

    def test_hundred_partitions(self):
        partitions = 100
        create_topic(self.broker, "wide", partitions)
        self.assertEqual(topic_partitions(self.broker, "wide"), list(range(partitions)))
        messages = [{"key": b"k%d" % i, "value": b"partition %d message %d" % (i % partitions, i),
                     "headers": [("p", b"%d" % (i % partitions))], "partition": i % partitions}
                    for i in range(partitions * 3)]
        reports = produce_all(self.broker, "wide", messages)
        self.assert_delivered_in_order(reports, partitions)
        got = read_all(self.broker, [TopicPartition("wide", p, OFFSET_BEGINNING)
                                     for p in range(partitions)])
        self.assertEqual(as_tuples(got), expected_records(messages, reports))
        self.assertEqual(sorted({r.partition for r in got}), list(range(partitions)))

    def test_fetch_max_bytes_bounds_every_response_across_full_partitions(self):
        # KIP-74: the request's fetch.max.bytes holds across partitions. With a
        # per-partition limit ten times larger, a broker that adds whole
        # partitions past it sends responses librdkafka refuses ("Invalid
        # response size") over and over, and the consumer never progresses.
        partitions = 24
        create_topic(self.broker, "full", partitions)
        rng = random.Random(7)
        per_partition = 200  # 10 kB values: 2 MB a partition, 48 MB in all
        messages = [{"value": rng.randbytes(10000), "partition": i % partitions}
                    for i in range(per_partition * partitions)]
        # Producer batches well below fetch.max.bytes: only the first batch
        # of a response may exceed the limit.
        reports = produce_all(self.broker, "full", messages, {"batch.size": 65536})
        self.assert_delivered_in_order(reports, partitions)

        errors = []
        refused = []

        class Capture(logging.Handler):
            def emit(self, record):
                if "Invalid response size" in record.getMessage():
                    refused.append(record.getMessage())

        logger = logging.getLogger("strata-it-librdkafka")
        logger.setLevel(logging.DEBUG)
        handler = Capture()
        logger.addHandler(handler)
        try:
            # librdkafka requires receive.message.max.bytes >= fetch.max.bytes
            # + 512 and fetch.max.bytes >= message.max.bytes (1000000).
            conf = {"fetch.max.bytes": 1000000, "receive.message.max.bytes": 1000512,
                    "max.partition.fetch.bytes": 10485760, "logger": logger,
                    "error_cb": errors.append}
            got = read_all(self.broker, [TopicPartition("full", p, OFFSET_BEGINNING)
                                         for p in range(partitions)], conf, timeout=120)
        finally:
            logger.removeHandler(handler)
        self.assertEqual(refused, [])
        self.assertEqual([str(e) for e in errors], [])
        self.assertEqual(as_tuples(got), expected_records(messages, reports))


if __name__ == "__main__":
    unittest.main()
