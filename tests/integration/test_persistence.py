"""Persistence across broker restarts: SIGKILL right after acks=all
produces complete, clean SIGTERM stops, several partitions and several
restarts on the same data directory. Everything acknowledged must be read
back in order at the offsets the producer was given. And a full disk: the
broker answers KAFKA_STORAGE_ERROR, keeps running and keeps everything it
acknowledged; once space is freed it takes writes again, and it restarts
with all of it."""
import os
import random
import shutil
import subprocess
import tempfile
import time
import unittest

from confluent_kafka import OFFSET_BEGINNING, KafkaError, TopicPartition
from confluent_kafka.admin import ConfigResource, ConfigSource

from harness import Broker, fill
from test_confluent import (admin, as_tuples, consumer, create_topic, expected_records, produce_all,
                            read_all, topic_partitions)
from test_kafka_python import consume_all as kp_consume_all
from test_kafka_python import produce as kp_produce

TIMEOUT_S = 30


def all_partitions(topic, n):
    return [TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(n)]


class PersistenceTest(unittest.TestCase):
    def setUp(self):
        self.broker = Broker().start()

    def tearDown(self):
        self.broker.__exit__(None, None, None)

    def assert_delivered(self, reports):
        self.assertEqual([(i, r.error) for i, r in enumerate(reports) if r.error is not None], [])

    def test_sigkill_right_after_acks_all_confluent(self):
        partitions = 3
        create_topic(self.broker, "acked", partitions)
        rng = random.Random(5)
        messages, reports = [], []
        for round_ in range(3):
            batch = [{"key": b"r%d-%d" % (round_, i), "value": rng.randbytes(rng.randrange(0, 3000)),
                      "headers": [("round", b"%d" % round_)], "partition": i % partitions}
                     for i in range(1500)]
            got_reports = produce_all(self.broker, "acked", batch, {"linger.ms": 2})
            self.assert_delivered(got_reports)
            # Every delivery report is in: kill at once, nothing flushed or closed.
            self.broker.kill()
            self.broker.start()
            messages += batch
            reports += got_reports
            got = read_all(self.broker, all_partitions("acked", partitions))
            self.assertEqual(as_tuples(got), expected_records(messages, reports), "after kill %d" % (round_ + 1))
        # Offsets went on from where they were: each partition is 0..n-1.
        for p in range(partitions):
            self.assertEqual(sorted(r.offset for r in reports if r.partition == p),
                             list(range(sum(1 for r in reports if r.partition == p))))

    def test_sigkill_right_after_acks_all_kafka_python(self):
        partitions = 2
        create_topic(self.broker, "kp-acked", partitions)
        rng = random.Random(6)
        messages = [{"key": b"k%d" % i, "value": rng.randbytes(rng.randrange(1, 2000)),
                     "headers": [("i", b"%d" % i)], "partition": i % partitions} for i in range(1000)]
        metas = kp_produce(self.broker, "kp-acked", messages)
        self.broker.kill()
        self.broker.start()
        got = kp_consume_all(self.broker, "kp-acked", partitions)
        want = sorted(((md.partition, md.offset, m["key"], m["value"], m["headers"]) for m, md in zip(messages, metas)),
                      key=lambda w: w[:2])
        self.assertEqual([(r.partition, r.offset, r.key, r.value, r.headers) for r in got], want)
        for p in range(partitions):
            self.assertEqual([md.offset for md in metas if md.partition == p],
                             list(range(sum(1 for m in messages if m["partition"] == p))))

    def test_sigterm_exits_zero_and_restart_finds_everything(self):
        create_topic(self.broker, "clean", 2, {"retention.ms": "86400000"})
        messages = [{"key": b"k%d" % i, "value": b"v%d" % i, "partition": i % 2} for i in range(500)]
        reports = produce_all(self.broker, "clean", messages)
        self.assert_delivered(reports)
        code = self.broker.stop()
        self.assertEqual(code, 0, self.broker.log())
        self.broker.start()
        # The broker knows it was stopped cleanly (no recovery needed).
        self.assertIn("opened after a clean shutdown", self.broker.log())
        got = read_all(self.broker, all_partitions("clean", 2))
        self.assertEqual(as_tuples(got), expected_records(messages, reports))
        # The topic's config override survived too.
        a = admin(self.broker)
        fs = a.describe_configs([ConfigResource("topic", "clean")], request_timeout=TIMEOUT_S)
        entry = list(fs.values())[0].result(TIMEOUT_S)["retention.ms"]
        self.assertEqual((entry.value, entry.source), ("86400000", ConfigSource.DYNAMIC_TOPIC_CONFIG.value))
        # A second clean stop with nothing new also exits 0 and loses nothing.
        self.assertEqual(self.broker.stop(), 0, self.broker.log())
        self.broker.start()
        got = read_all(self.broker, all_partitions("clean", 2))
        self.assertEqual(as_tuples(got), expected_records(messages, reports))

    def test_several_partitions_and_restarts(self):
        """Rounds of produce then SIGKILL or SIGTERM; topics created and
        deleted between restarts; reads and time lookups after each."""
        rng = random.Random(7)
        base_ts = int(time.time() * 1000) - 3600 * 1000
        topics = {"multi": 4}
        create_topic(self.broker, "multi", 4)
        produced = {}  # topic -> (messages, reports)
        stops = ["kill", "stop", "kill", "kill", "stop"]
        for round_, how in enumerate(stops):
            if round_ == 2:
                create_topic(self.broker, "late", 2)
                topics["late"] = 2
            if round_ == 3:
                create_topic(self.broker, "short-lived", 1)
                produce_all(self.broker, "short-lived", [{"value": b"gone"}])
                a = admin(self.broker)  # must outlive the future
                fs = a.delete_topics(["short-lived"], request_timeout=TIMEOUT_S)
                fs["short-lived"].result(TIMEOUT_S)
            for topic, n in topics.items():
                batch = [{"key": b"%s-%d-%d" % (topic.encode(), round_, i),
                          "value": rng.randbytes(rng.choice((0, 10, 500, 20000))),
                          "timestamp": base_ts + rng.randrange(0, 100000),
                          "partition": rng.randrange(n)} for i in range(300)]
                codec = ("none", "zstd")[round_ % 2]
                reports = produce_all(self.broker, topic, batch, {"compression.type": codec})
                self.assert_delivered(reports)
                msgs, reps = produced.setdefault(topic, ([], []))
                msgs += batch
                reps += reports
            if how == "kill":
                self.broker.kill()
            else:
                self.assertEqual(self.broker.stop(), 0, self.broker.log())
            self.broker.start()

            self.assertIsNone(topic_partitions(self.broker, "short-lived"))
            for topic, n in topics.items():
                with self.subTest(round=round_, stop=how, topic=topic):
                    msgs, reps = produced[topic]
                    self.assertEqual(topic_partitions(self.broker, topic), list(range(n)))
                    got = read_all(self.broker, all_partitions(topic, n))
                    self.assertEqual(as_tuples(got), expected_records(msgs, reps))
                    self.assertEqual([r.timestamp for r in got],
                                     [(1, m["timestamp"]) for m, _ in
                                      sorted(zip(msgs, reps), key=lambda x: (x[1].partition, x[1].offset))])
                    # Time lookups after the restart: earliest offset whose
                    # timestamp >= the query, per partition (-1 when none).
                    cons = consumer(self.broker)
                    try:
                        stamps = sorted(m["timestamp"] for m in msgs)
                        queries = [stamps[0] - 1, stamps[-1] + 1] + [stamps[i] + d for i in
                                                                     range(0, len(stamps), len(stamps) // 7)
                                                                     for d in (0, 1)]
                        for q in queries:
                            res = cons.offsets_for_times([TopicPartition(topic, p, q) for p in range(n)], TIMEOUT_S)
                            want = [min((r.offset for m, r in zip(msgs, reps)
                                         if r.partition == p and m["timestamp"] >= q), default=-1)
                                    for p in range(n)]
                            self.assertEqual([(t.partition, t.error, t.offset) for t in res],
                                             [(p, None, w) for p, w in enumerate(want)],
                                             "query base%+d" % (q - base_ts))
                    finally:
                        cons.close()


@unittest.skipUnless(os.geteuid() == 0, "mounting a tmpfs needs root")
class DiskFullTest(unittest.TestCase):
    """One broker whose data directory is a small tmpfs."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="strata-full-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.data = os.path.join(self.tmp, "data")
        os.mkdir(self.data)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", self.data], check=True)
        self.addCleanup(subprocess.run, ["umount", "-l", self.data], check=False)
        self.broker = Broker(data_dir=self.data)
        self.addCleanup(self.broker.__exit__, None, None, None)
        self.broker.start()

    def produce(self, messages, conf=None):
        return produce_all(self.broker, "full", messages, conf)

    def test_a_full_disk_answers_storage_errors_and_loses_nothing_acknowledged(self):
        create_topic(self.broker, "full", 1)
        sent, acked = [], []

        def keep(messages, reports):
            for m, r in zip(messages, reports):
                if r.error is None:
                    sent.append(m)
                    acked.append(r)

        before = [{"value": b"before-%d" % i} for i in range(100)]
        keep(before, self.produce(before))
        self.assertEqual(len(acked), 100)
        filler = os.path.join(self.data, "filler")
        fill(filler)
        # Enough to need new pages: each answer is an acknowledgement or
        # KAFKA_STORAGE_ERROR, never a crash or a hang.
        full = [{"value": b"full-%d-" % i + b"x" * 1024} for i in range(300)]
        reports = self.produce(full, {"retries": 0, "linger.ms": 0})
        keep(full, reports)
        errors = {r.error.code() for r in reports if r.error is not None}
        self.assertEqual(errors, {KafkaError.KAFKA_STORAGE_ERROR})
        self.assertIsNone(self.broker.proc.poll(), "the broker exited")
        # Logged by the control thread the failure is posted to, maybe after
        # the client has its answers.
        self.broker.wait_for_log("storage failure")
        # Space again: writes go on without a restart.
        os.remove(filler)
        after = [{"value": b"after-%d" % i} for i in range(100)]
        after_reports = self.produce(after)
        self.assertEqual([r.error for r in after_reports], [None] * 100)
        keep(after, after_reports)
        want = expected_records(sent, acked)
        tps = [TopicPartition("full", 0, OFFSET_BEGINNING)]
        self.assertEqual(as_tuples(read_all(self.broker, tps)), want)
        # The offsets given out are exactly those of what was acknowledged.
        self.assertEqual([w[1] for w in want], list(range(len(want))))
        # A restart after the failure scans the logs again, and keeps it all.
        self.assertNotEqual(self.broker.stop(), None)
        self.assertIn("not marking a clean shutdown", self.broker.log())
        self.broker.start()
        self.assertEqual(as_tuples(read_all(self.broker, tps)), want)


if __name__ == "__main__":
    unittest.main()
