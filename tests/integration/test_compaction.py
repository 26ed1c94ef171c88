"""Log compaction with real clients (the idea of Kafka's LogCompactionTester):
confluent-kafka producers write many messages over a few hundred keys, with
tombstones and every codec, to a cleanup.policy=compact topic; the broker's
cleaner runs; a consumer reads everything from the start. The last value of
every key is the last one produced for it, every record read sits at the
offset it was produced at, what the cleaner covered holds one record per key
and no tombstone, the partition is read to its end across the holes, and all
of it survives a SIGKILL of the broker (in or after a cleaning) and a
restart. The internal compacted topics are cleaned too, and load from their
compacted logs: __consumer_offsets (committed offsets), __transaction_state
(a transactional id's state, which then goes on) and _schemas (a subject's
compatibility set many times, a schema by its id)."""
import json
import os
import random
import re
import shutil
import subprocess
import time
import unittest

import requests
from confluent_kafka import OFFSET_BEGINNING, KafkaError, TopicPartition

from harness import Broker
from test_confluent import consumer, create_topic, produce_all, read_all
from test_transactions import txn_producer

TIMEOUT_S = 60
STRATA = os.environ.get("STRATA_CLI", os.path.join(os.path.dirname(__file__), "../../build/tools/strata"))
CLEANED = re.compile(r"cleaner: (\S+)-(\d+): cleaned below offset (\d+)")


def cleaned_below(broker, topic, partition):
    """The highest offset the broker's log says the cleaner covered."""
    best = -1
    for t, p, end in CLEANED.findall(broker.log()):
        if t == topic and int(p) == partition:
            best = max(best, int(end))
    return best


REMOVED = re.compile(r"cleaner: (\S+)-(\d+): cleaned below offset \d+: \d+ -> \d+ bytes, (\d+) of (\d+) records kept")


def removed_by_cleaner(broker, topic, partition):
    """How many records the broker's log says its cleanings of the partition removed."""
    return sum(int(read) - int(kept) for t, p, kept, read in REMOVED.findall(broker.log())
               if t == topic and int(p) == partition)


def offsets_partition(group):
    """The __consumer_offsets partition of `group` (Java's String.hashCode)."""
    h = 0
    for c in group:
        h = (31 * h + ord(c)) & 0xFFFFFFFF
    if h >= 1 << 31:
        h -= 1 << 32
    return (abs(h) if h != -(1 << 31) else 0) % 50


def last_of_every_key(produced):
    """{key: (offset, value)} of each key's last record in `produced`."""
    last = {}
    for offset in sorted(produced):
        key, value = produced[offset]
        last[key] = (offset, value)
    return last


class CompactionTest(unittest.TestCase):
    def setUp(self):
        self.broker = Broker(extra_args=["--set", "log.cleaner.backoff.ms=100",
                                         "--set", "offsets.topic.segment.bytes=4096"]).start()

    def tearDown(self):
        self.broker.__exit__(None, None, None)

    def produce_history(self, topic, rng, rounds):
        """Messages over 150 keys, a tenth of them tombstones, one codec per
        round; returns {offset: (key, value)} from the delivery reports."""
        produced = {}
        codecs = ["none", "gzip", "snappy", "lz4", "zstd"]
        for r in range(rounds):
            messages = []
            for i in range(800):
                key = b"key-%03d" % rng.randrange(150)
                value = None if rng.random() < 0.1 else b"r%d-%d-" % (r, i) + rng.randbytes(100)
                messages.append({"key": key, "value": value, "partition": 0})
            reports = produce_all(self.broker, topic, messages,
                                  conf={"compression.type": codecs[r % len(codecs)]})
            for m, rep in zip(messages, reports):
                self.assertIsNone(rep.error)
                produced[rep.offset] = (m["key"], m["value"])
        return produced

    def roll_until_cleaned(self, topic, below, produced):
        """Produces sentinel messages (each a new segment once segment.ms has
        passed) until the cleaner has covered every offset below `below`."""
        deadline = time.monotonic() + TIMEOUT_S
        i = 0
        while cleaned_below(self.broker, topic, 0) < below:
            self.assertLess(time.monotonic(), deadline,
                            "the cleaner did not reach offset %d:\n%s" % (below, self.broker.log()[-4000:]))
            rep = produce_all(self.broker, topic, [{"key": b"sentinel", "value": b"%d" % i,
                                                    "partition": 0}])[0]
            produced[rep.offset] = (b"sentinel", b"%d" % i)
            i += 1

    def check(self, records, produced, cleaned, seen_by_cleaning=None):
        """What any compacted state must show; `cleaned`: offsets below it
        were covered by a cleaning that saw every key's last record of
        `seen_by_cleaning` (the history as it was then; by default all of
        `produced`) — every key but the sentinel, which roll_until_cleaned
        rewrites while the cleaner runs: a key's older records go only once
        its latest record is below the cleaning's stable and durable bound
        (engine/README.md, "Compaction"), and the sentinel's latest is often the unsynced
        one in flight. A key rewritten after that cleaning keeps its older
        record until a later cleaning covers the new one."""
        last = last_of_every_key(produced)
        last_seen = last_of_every_key(seen_by_cleaning if seen_by_cleaning is not None else produced)
        seen_below = set()
        read_last = {}
        for r in records:
            self.assertIn(r.offset, produced, "offset %d was never produced" % r.offset)
            self.assertEqual((r.key, r.value), produced[r.offset], "record at %d" % r.offset)
            read_last[r.key] = (r.offset, r.value)
            if r.offset < cleaned and r.key != b"sentinel":
                self.assertNotIn(r.key, seen_below, "two records of %r below %d" % (r.key, cleaned))
                seen_below.add(r.key)
                self.assertIsNotNone(r.value, "tombstone at %d below %d" % (r.offset, cleaned))
                self.assertEqual(last_seen[r.key][0], r.offset, "superseded record at %d" % r.offset)
        for key, (offset, value) in last.items():
            if value is None:
                # Deleted: gone, or its tombstone still there.
                self.assertIn(read_last.get(key, (offset, None)), [(offset, None)], key)
            else:
                self.assertEqual(read_last.get(key), (offset, value), key)

    def read(self, topic):
        return read_all(self.broker, [TopicPartition(topic, 0, OFFSET_BEGINNING)],
                        timeout=TIMEOUT_S)

    def test_a_record_without_a_key_is_refused_by_a_compacted_topic_and_nothing_of_its_batch_kept(self):
        create_topic(self.broker, "keyed", 1, {"cleanup.policy": "compact"})
        create_topic(self.broker, "plain", 1)
        # One batch (linger) mixing keyed records and one without a key: the
        # whole batch is refused, every record's delivery report says why.
        mixed = [{"key": b"a", "value": b"1", "partition": 0}, {"value": b"no key", "partition": 0},
                 {"key": b"b", "value": b"2", "partition": 0}]
        for codec in ("none", "zstd"):
            with self.subTest(codec=codec):
                reports = produce_all(self.broker, "keyed", mixed,
                                      conf={"linger.ms": 50, "compression.type": codec})
                self.assertEqual([r.error.code() if r.error else None for r in reports],
                                 [KafkaError.INVALID_RECORD] * 3)
        # Keyed records go on being taken, and are all that is stored.
        reports = produce_all(self.broker, "keyed", [{"key": b"c", "value": b"3", "partition": 0}])
        self.assertEqual([(r.error, r.offset) for r in reports], [(None, 0)])
        got = self.read("keyed")
        self.assertEqual([(r.offset, r.key, r.value) for r in got], [(0, b"c", b"3")])
        # A topic that is not compacted takes records without a key.
        reports = produce_all(self.broker, "plain", mixed)
        self.assertEqual([r.error for r in reports], [None] * 3)

    def test_a_compacted_topic_keeps_the_last_value_of_every_key(self):
        topic = "changelog"
        create_topic(self.broker, topic, 1, {
            "cleanup.policy": "compact", "segment.bytes": "32768", "segment.ms": "300",
            "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "0"})
        rng = random.Random(15)
        produced = self.produce_history(topic, rng, 5)
        data_end = max(produced) + 1
        self.roll_until_cleaned(topic, data_end, produced)
        cleaned = cleaned_below(self.broker, topic, 0)
        records = self.read(topic)
        self.check(records, produced, cleaned)
        self.assertLess(len(records), len(produced) // 4, "the log did not shrink")
        # dump-log counts the offsets the cleaner removed.
        summary = self.dump_log(topic)[-1]
        self.assertEqual(summary["defects"], 0)
        self.assertGreater(summary["missing_offsets"], 0)
        self.assertEqual(summary["records"] + summary["missing_offsets"], max(produced) + 1)
        # topic describe shows the replica's cleaning (DescribeLogDirs).
        r = subprocess.run([STRATA, "--json", "-b", self.broker.bootstrap, "topic", "describe", topic],
                           capture_output=True, timeout=TIMEOUT_S)
        self.assertEqual(r.returncode, 0, r.stderr)
        [replica] = json.loads(r.stdout)["partitions"][0]["replicas_on_disk"]
        self.assertEqual(replica["broker"], 1)
        self.assertRegex(replica["last_cleaning"], r"^cleaned below offset \d+: ")
        self.assertGreater(replica["last_cleaned_ms"], 0)
        self.assertEqual(replica["cleaning_failures"], 0)
        self.assertTrue(0 <= replica["dirty_ratio"] <= 1, replica)
        produced_bytes = sum(len(v or b"") for _, v in produced.values())
        self.assertLess(replica["size_bytes"], produced_bytes // 2, replica)

        # More history on top, and a SIGKILL while the cleaner is likely at
        # work on it: after the restart nothing that must stay is gone and
        # nothing removed is back.
        seen_by_cleaning = dict(produced)
        produced.update(self.produce_history(topic, rng, 2))
        self.broker.kill()
        self.broker.start()
        records = self.read(topic)
        self.check(records, produced, cleaned, seen_by_cleaning)
        data_end = max(produced) + 1
        self.roll_until_cleaned(topic, data_end, produced)
        cleaned = cleaned_below(self.broker, topic, 0)
        self.check(self.read(topic), produced, cleaned)

    def dump_log(self, topic, partition=0):
        """strata dump-log's lines for the partition's files, taken when no
        cleaning is being swapped in (its `.cleaned` or `.swap` file holds
        batches the segments beside it hold too)."""
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            r = subprocess.run([STRATA, "--json", "dump-log",
                                os.path.join(self.broker.data_dir, "%s-%d" % (topic, partition))],
                               capture_output=True, timeout=TIMEOUT_S)
            self.assertEqual(r.returncode, 0, r.stderr)
            lines = [json.loads(line) for line in r.stdout.decode().splitlines()]
            kinds = {line["kind"] for line in lines if line["type"] == "segment"}
            if kinds == {"segment"}:
                return lines
            self.assertLess(time.monotonic(), deadline, "a cleaning is always being swapped in: %s" % kinds)

    def control_batches(self, topic):
        """(base offset, records) of each control batch in the partition's files."""
        return [(b["base_offset"], b["records"]) for b in self.dump_log(topic)
                if b.get("type") == "batch" and b["control"]]

    def test_transaction_markers_go_once_their_transactions_data_is_gone(self):
        topic = "txn-changelog"
        create_topic(self.broker, topic, 1, {
            "cleanup.policy": "compact", "segment.bytes": "4096", "segment.ms": "300",
            "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "0"})
        p = txn_producer(self.broker, "compacted-txn")
        # A committed transaction whose keys are all rewritten later, an
        # aborted one, and a committed one whose key stays.
        for keys, commit in (([b"a", b"b"], True), ([b"a", b"c"], False), ([b"d"], True)):
            p.begin_transaction()
            for k in keys:
                p.produce(topic, key=k, value=b"txn-" + k, partition=0)
            # Written before the end (an abort purges what is still queued).
            self.assertEqual(p.flush(TIMEOUT_S), 0)
            if commit:
                p.commit_transaction(TIMEOUT_S)
            else:
                p.abort_transaction(TIMEOUT_S)
        # The coordinator writes the markers after it answers EndTxn.
        deadline = time.monotonic() + TIMEOUT_S
        while len(markers := [offset for offset, _ in self.control_batches(topic)]) < 3:
            self.assertLess(time.monotonic(), deadline, "markers in the log: %s" % markers)
            time.sleep(0.05)
        self.assertEqual(len(markers), 3, markers)
        produced = {}
        for rep, k in zip(produce_all(self.broker, topic, [{"key": k, "value": b"plain-" + k, "partition": 0}
                                                           for k in (b"a", b"b")]), (b"a", b"b")):
            self.assertIsNone(rep.error)
            produced[rep.offset] = (k, b"plain-" + k)
        # Two cleanings past the markers: the first removes the aborted
        # records, the next the markers with nothing of theirs left.
        self.roll_until_cleaned(topic, max(produced) + 1, produced)
        first = cleaned_below(self.broker, topic, 0)
        self.roll_until_cleaned(topic, first + 1, produced)
        self.assertEqual([o for o, _ in self.control_batches(topic)], [markers[2]],
                         "only the marker of the transaction with data left stays")
        # Both isolation levels read to the end, with the last value of every key.
        for isolation in ("read_committed", "read_uncommitted"):
            records = read_all(self.broker, [TopicPartition(topic, 0, OFFSET_BEGINNING)],
                               conf={"isolation.level": isolation}, timeout=TIMEOUT_S)
            last = {r.key: r.value for r in records}
            self.assertEqual({k: last.get(k) for k in (b"a", b"b", b"c", b"d")},
                             {b"a": b"plain-a", b"b": b"plain-b", b"c": None, b"d": b"txn-d"}, isolation)

    def test_committed_offsets_survive_the_compaction_of_consumer_offsets(self):
        create_topic(self.broker, "input", 3)
        group = "compacted-group"
        part = offsets_partition(group)
        c = consumer(self.broker, {"group.id": group})
        try:
            c.list_topics("input", timeout=TIMEOUT_S)
            last = {}
            # Each commit supersedes the one before: __consumer_offsets'
            # partition of the group fills 4 KiB segments the cleaner empties.
            deadline = time.monotonic() + TIMEOUT_S
            n = 0
            while cleaned_below(self.broker, "__consumer_offsets", part) < 0 or n < 600:
                self.assertLess(time.monotonic(), deadline,
                                "no cleaning of __consumer_offsets-%d:\n%s" % (part, self.broker.log()[-4000:]))
                n += 1
                tps = [TopicPartition("input", p, n * 10 + p) for p in range(3)]
                c.commit(offsets=tps, asynchronous=False)
                last = {p: n * 10 + p for p in range(3)}
        finally:
            c.close()
        self.assertGreater(cleaned_below(self.broker, "__consumer_offsets", part), 0)

        def committed():
            cons = consumer(self.broker, {"group.id": group})
            try:
                got = cons.committed([TopicPartition("input", p) for p in range(3)],
                                     timeout=TIMEOUT_S)
                return {tp.partition: tp.offset for tp in got}
            finally:
                cons.close()

        self.assertEqual(committed(), last)
        # After a SIGKILL, and after the index (with the group view) is
        # rebuilt from the compacted log alone.
        self.broker.kill()
        self.broker.start()
        self.assertEqual(committed(), last)
        self.assertEqual(self.broker.stop(), 0)
        shutil.rmtree(os.path.join(self.broker.data_dir, "index"))
        self.broker.start()
        self.assertEqual(committed(), last)

    def test_the_transaction_state_and_schemas_topics_are_cleaned_and_load_after_a_kill(self):
        # Small segments for both (the _schemas topic takes the broker's
        # log.segment.bytes): each fills with records of one key.
        self.broker.stop()
        self.broker.extra_args += ["--set", "transaction.state.log.segment.bytes=4096",
                                   "--set", "log.segment.bytes=4096"]
        self.broker.start()
        create_topic(self.broker, "txn-output", 1)
        txn_id = "compacted-txn-id"
        part = offsets_partition(txn_id)  # __transaction_state has 50 partitions too
        p = txn_producer(self.broker, txn_id)
        deadline = time.monotonic() + TIMEOUT_S
        n = 0
        # Until a cleaning removed records: one may keep them all, while
        # their key's latest record is above the durable offset.
        while removed_by_cleaner(self.broker, "__transaction_state", part) == 0 or n < 100:
            self.assertLess(time.monotonic(), deadline, "no cleaning of __transaction_state-%d:\n%s"
                            % (part, self.broker.log()[-4000:]))
            p.begin_transaction()
            p.produce("txn-output", value=b"%d" % n, partition=0)
            p.commit_transaction(TIMEOUT_S)
            n += 1
        subject = self.broker.registry_url + "/config/compacted-value"
        ct = {"Content-Type": "application/vnd.schemaregistry.v1+json"}
        schema = json.dumps({"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]})
        r = requests.post(self.broker.registry_url + "/subjects/compacted-value/versions", headers=ct,
                          data=json.dumps({"schema": schema}), timeout=TIMEOUT_S)
        self.assertEqual(r.status_code, 200, r.text)
        schema_id = r.json()["id"]
        levels = ["BACKWARD", "FORWARD", "FULL", "NONE"]
        deadline = time.monotonic() + TIMEOUT_S
        m = 0
        while removed_by_cleaner(self.broker, "_schemas", 0) == 0 or m < 200:
            self.assertLess(time.monotonic(), deadline, "no cleaning of _schemas-0:\n%s"
                            % self.broker.log()[-4000:])
            r = requests.put(subject, headers=ct, data=json.dumps({"compatibility": levels[m % 4]}),
                             timeout=TIMEOUT_S)
            self.assertEqual(r.status_code, 200, r.text)
            m += 1
        last_level = levels[(m - 1) % 4]
        for topic, partition in (("__transaction_state", part), ("_schemas", 0)):
            dump = self.dump_log(topic, partition)
            self.assertGreater(dump[-1]["missing_offsets"], 0, "%s: %s\n%s" % (
                topic, [d for d in dump if d["type"] != "batch"],
                "\n".join(l for l in self.broker.log().splitlines() if "cleaner" in l)))

        def txn_state():
            r = subprocess.run([STRATA, "--json", "-b", self.broker.bootstrap, "txn", "describe", txn_id],
                               capture_output=True, timeout=TIMEOUT_S)
            self.assertEqual(r.returncode, 0, r.stderr)
            return r.stdout
        before = txn_state()
        # After a SIGKILL both load from their compacted logs alone.
        self.broker.kill()
        self.broker.start()
        self.assertEqual(txn_state(), before)
        r = requests.get(subject, timeout=TIMEOUT_S)
        self.assertEqual(r.json()["compatibilityLevel"], last_level)
        r = requests.get(self.broker.registry_url + "/schemas/ids/%d" % schema_id, timeout=TIMEOUT_S)
        self.assertEqual(r.status_code, 200, r.text)
        self.assertEqual(json.loads(r.json()["schema"]), json.loads(schema))
        # The transactional id goes on: a new instance fences the old one
        # and commits; read_committed sees every committed record once.
        p2 = txn_producer(self.broker, txn_id)
        p2.begin_transaction()
        p2.produce("txn-output", value=b"%d" % n, partition=0)
        p2.commit_transaction(TIMEOUT_S)
        got = read_all(self.broker, [TopicPartition("txn-output", 0, OFFSET_BEGINNING)],
                       conf={"isolation.level": "read_committed"}, timeout=TIMEOUT_S)
        self.assertEqual([r.value for r in got], [b"%d" % i for i in range(n + 1)])


if __name__ == "__main__":
    unittest.main()
