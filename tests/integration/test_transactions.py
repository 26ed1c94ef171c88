"""Transactions with librdkafka (confluent-kafka 1.7 over librdkafka 2.0.2)
against one broker: init_transactions, commit and abort, read_committed
consumers, consume-transform-produce with send_offsets_to_transaction, and
fencing of a zombie producer by a new instance with the same
transactional.id.

What it shows: a read_committed consumer sees every committed message once
and no aborted one, in order, and read_uncommitted sees both; offsets sent
in a transaction become the group's committed offsets at its commit and
never at its abort; after a second producer with the same id initializes,
the first one's next transaction fails fatally (fenced) and nothing it
wrote is visible to read_committed readers; a consume-transform-produce
application (transformer.py) SIGKILLed four times mid-stream and restarted
leaves the transform of every input record in its output exactly once, in
input order per partition.
"""
import os
import queue
import random
import subprocess
import sys
import threading
import time
import unittest
import uuid

from confluent_kafka import (OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer,
                             TopicPartition)

from harness import Broker
from test_confluent import create_topic, read_all

TIMEOUT_S = 30
# What a transformer that failed prints (a client's retried warnings, such as
# librdkafka's while the killed instance's transaction is being aborted, are
# not failures).
FATAL = r"Traceback|transformer\.js:"
TRANSFORMER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "transformer.py")


def txn_producer(broker, txn_id, conf=None):
    c = {"bootstrap.servers": broker.bootstrap, "transactional.id": txn_id,
         "transaction.timeout.ms": 60000, "linger.ms": 5}
    c.update(conf or {})
    p = Producer(c)
    p.init_transactions(TIMEOUT_S)
    return p


def values(records):
    return [r.value for r in records]


def read(broker, topic, partitions, isolation):
    return read_all(broker, [TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)],
                    conf={"isolation.level": isolation})


def transform_under_sigkills(test, broker, command, kills, n=3000, partitions=3, cwd=None):
    """Runs a consume-transform-produce application (`command` + bootstrap,
    input, output, group, transactional id; it prints `committed <n>`
    after each transaction) from "src" to "dst", SIGKILLs it `kills` times
    right after one of its commits (so most likely inside its next
    transaction) and starts it again, then lets it finish. Read
    read_committed, the output must hold the transform ("t:" + value) of
    every input record exactly once, in input order per partition."""
    create_topic(broker, "src", partitions=partitions)
    create_topic(broker, "dst", partitions=partitions)
    src = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True})
    for i in range(n):
        src.produce("src", value=b"%d" % i, partition=i % partitions)
    test.assertEqual(src.flush(TIMEOUT_S), 0)
    rng = random.Random(35)

    def run_until(stop):
        proc = subprocess.Popen(command + [broker.bootstrap, "src", "dst", "etl", "etl-1"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(ln) for ln in proc.stdout] + [lines.put(None)],
                         daemon=True).start()
        failure = None
        try:
            stop(lines)
        except (AssertionError, queue.Empty) as e:
            failure = e
        proc.kill()
        proc.wait(TIMEOUT_S)
        err = proc.stderr.read().decode()
        proc.stdout.close()
        proc.stderr.close()
        if failure is not None:
            raise AssertionError("%r\nits stderr:\n%s\nbroker log (tail):\n%s" % (
                failure, err[-5000:], "\n".join(broker.log().splitlines()[-30:])))
        return err

    def next_commit(lines):
        line = lines.get(timeout=TIMEOUT_S * 2)
        test.assertIsNotNone(line, "the transformer exited")
        test.assertTrue(line.startswith(b"committed "), line)

    for _ in range(kills):
        k = rng.randint(1, 8)
        err = run_until(lambda lines: [next_commit(lines) for _ in range(k)])
        test.assertNotRegex(err, FATAL)

    def output_complete(lines):
        deadline = time.monotonic() + TIMEOUT_S * 2
        while len(read(broker, "dst", partitions, "read_committed")) < n:
            test.assertLess(time.monotonic(), deadline, "the output never reached %d records" % n)
            next_commit(lines)
    test.assertNotRegex(run_until(output_complete), FATAL)
    out = read(broker, "dst", partitions, "read_committed")
    for p in range(partitions):
        test.assertEqual([r.value for r in out if r.partition == p],
                         [b"t:%d" % i for i in range(p, n, partitions)], "partition %d" % p)


class TransactionsTest(unittest.TestCase):
    def setUp(self):
        self.broker = Broker().start()

    def tearDown(self):
        self.broker.__exit__(None, None, None)

    def test_read_committed_sees_committed_transactions_only(self):
        create_topic(self.broker, "ledger", partitions=3)
        p = txn_producer(self.broker, "ledger-writer")
        expected = []
        for n in range(6):
            p.begin_transaction()
            batch = [b"t%d-%d" % (n, i) for i in range(20)]
            for i, v in enumerate(batch):
                p.produce("ledger", value=v, key=b"%d" % i)
            # Delivered first: an abort right after the previous commit,
            # before any AddPartitionsToTxn of this transaction got through
            # (they are refused CONCURRENT_TRANSACTIONS while the commit's
            # markers are written), is INVALID_TXN_STATE, as against Kafka
            # (librdkafka issue #4849).
            p.flush(TIMEOUT_S)
            if n % 2 == 0:
                p.commit_transaction(TIMEOUT_S)
                expected += batch
            else:
                p.abort_transaction(TIMEOUT_S)
        # One more left open: read_committed readers stop before it.
        p.begin_transaction()
        p.produce("ledger", value=b"open", key=b"0")
        p.flush(TIMEOUT_S)

        committed = read(self.broker, "ledger", 3, "read_committed")
        self.assertEqual(sorted(values(committed)), sorted(expected))
        # Within each key's partition, committed order is send order.
        for key in range(20):
            mine = [v for v in values(committed) if v.endswith(b"-%d" % key)]
            self.assertEqual(mine, [b"t%d-%d" % (n, key) for n in (0, 2, 4)])
        uncommitted = read(self.broker, "ledger", 3, "read_uncommitted")
        self.assertEqual(len(uncommitted), 6 * 20 + 1)
        self.assertIn(b"open", values(uncommitted))

        p.commit_transaction(TIMEOUT_S)
        committed = read(self.broker, "ledger", 3, "read_committed")
        self.assertEqual(sorted(values(committed)), sorted(expected + [b"open"]))

    def test_consume_transform_produce_commits_offsets_with_the_output(self):
        create_topic(self.broker, "in", partitions=2)
        create_topic(self.broker, "out", partitions=2)
        src = Producer({"bootstrap.servers": self.broker.bootstrap})
        for i in range(100):
            src.produce("in", value=b"%d" % i, partition=i % 2)
        src.flush(TIMEOUT_S)

        group = "transformer-" + uuid.uuid4().hex[:6]
        cons = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": group,
                         "enable.auto.commit": False, "auto.offset.reset": "earliest",
                         "isolation.level": "read_committed"})
        cons.assign([TopicPartition("in", 0, OFFSET_BEGINNING),
                     TopicPartition("in", 1, OFFSET_BEGINNING)])
        p = txn_producer(self.broker, "transformer")
        seen = []
        while len(seen) < 100:
            msgs = cons.consume(num_messages=30, timeout=5)
            self.assertTrue(msgs, "no input within 5 s after %d" % len(seen))
            for m in msgs:
                self.assertIsNone(m.error())
            p.begin_transaction()
            for m in msgs:
                p.produce("out", value=b"x" + m.value(), partition=m.partition())
            positions = cons.position(cons.assignment())
            p.send_offsets_to_transaction(positions, cons.consumer_group_metadata(), TIMEOUT_S)
            # The first round is aborted: its output and its offsets vanish.
            if not seen:
                p.abort_transaction(TIMEOUT_S)
                cons.seek(TopicPartition("in", 0, 0))
                cons.seek(TopicPartition("in", 1, 0))
                aborted = positions
                committed = cons.committed([TopicPartition("in", 0), TopicPartition("in", 1)],
                                           TIMEOUT_S)
                self.assertTrue(all(tp.offset < 0 for tp in committed),
                                "offsets of an aborted transaction were committed: %s"
                                % committed)
                seen.append(None)
                continue
            p.commit_transaction(TIMEOUT_S)
            seen += [m.value() for m in msgs]
        seen = seen[1:]
        self.assertTrue(aborted)
        committed = cons.committed([TopicPartition("in", 0), TopicPartition("in", 1)], TIMEOUT_S)
        self.assertEqual(sorted(tp.offset for tp in committed), [50, 50])
        cons.close()
        out = read(self.broker, "out", 2, "read_committed")
        self.assertEqual(sorted(values(out)), sorted(b"x%d" % i for i in range(100)))

    def test_consume_transform_produce_survives_sigkills_of_the_transformer(self):
        transform_under_sigkills(self, self.broker, [sys.executable, TRANSFORMER], kills=4)

    def test_a_new_instance_fences_the_old_one(self):
        create_topic(self.broker, "fenced", partitions=1)
        zombie = txn_producer(self.broker, "worker")
        zombie.begin_transaction()
        zombie.produce("fenced", value=b"zombie-1")
        zombie.flush(TIMEOUT_S)
        # The new instance's init aborts the zombie's open transaction.
        fresh = txn_producer(self.broker, "worker")
        fresh.begin_transaction()
        fresh.produce("fenced", value=b"fresh")
        fresh.commit_transaction(TIMEOUT_S)
        with self.assertRaises(KafkaException) as caught:
            zombie.produce("fenced", value=b"zombie-2")
            zombie.commit_transaction(TIMEOUT_S)
        err = caught.exception.args[0]
        self.assertTrue(err.fatal() or err.txn_requires_abort(), err)
        self.assertEqual(values(read(self.broker, "fenced", 1, "read_committed")), [b"fresh"])


if __name__ == "__main__":
    unittest.main()
