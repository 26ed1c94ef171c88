"""The idempotent producer with librdkafka (confluent-kafka,
enable.idempotence=true) against one broker.

What it shows: InitProducerId gives the producer an id; while the broker is
paused (SIGSTOP) past the producer's request timeout, librdkafka gives up
on the requests in flight, reconnects and sends the same batches again once
the broker resumes — which by then has read the first copies too. Every
message is stored exactly once, in the order it was sent within its
partition, at the offset its delivery report gave. And without idempotence
the same pause stores duplicates, so the check above can fail.
"""
import logging
import os
import signal
import threading
import unittest

from confluent_kafka import OFFSET_BEGINNING, Producer, TopicPartition

from harness import Broker
from test_cluster import wait_until
from test_confluent import create_topic, read_all

TIMEOUT_S = 60
PARTITIONS = 3


class Timeouts(logging.Handler):
    """Counts librdkafka's reports of requests it timed out."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def emit(self, record):
        if "timed out" in record.getMessage().lower():
            self.count += 1


class IdempotenceTest(unittest.TestCase):
    def setUp(self):
        # A pause of the broker is not a lapse of its registration here.
        self.broker = Broker(extra_args=["--set", "broker.session.timeout.ms=120000"]).start()

    def tearDown(self):
        if self.broker.proc is not None:
            os.kill(self.broker.proc.pid, signal.SIGCONT)
        self.broker.__exit__(None, None, None)

    def produce_across_a_pause(self, topic, idempotent):
        """Sends numbered messages round-robin over the partitions without
        pause; pauses the broker until the producer has timed out requests
        in flight, resumes it, and sends more. Returns {value: (partition,
        offset)} from the delivery reports."""
        create_topic(self.broker, topic, partitions=PARTITIONS)
        timeouts = Timeouts()
        log = logging.getLogger("rdkafka-" + topic)
        log.addHandler(timeouts)
        log.setLevel(logging.DEBUG)
        conf = {"bootstrap.servers": self.broker.bootstrap, "enable.idempotence": idempotent,
                # librdkafka times a ProduceRequest out after socket.timeout.ms.
                "acks": "all", "linger.ms": 5, "socket.timeout.ms": 1500,
                "message.timeout.ms": 120000, "retry.backoff.ms": 100,
                "max.in.flight.requests.per.connection": 5}
        if not idempotent:
            conf["retries"] = 1000
        p = Producer(conf, logger=log)
        acked, errors = {}, []
        sent = [0]
        lock = threading.Lock()

        def report(err, msg):
            with lock:
                if err is not None:
                    errors.append(err)
                else:
                    acked[msg.value()] = (msg.partition(), msg.offset())

        def send(n):
            for _ in range(n):
                i = sent[0]
                p.produce(topic, value=b"m-%06d" % i, partition=i % PARTITIONS,
                          on_delivery=report)
                sent[0] += 1
                p.poll(0.001)

        send(300)
        p.flush(TIMEOUT_S)
        self.assertEqual(len(acked), 300, errors)
        os.kill(self.broker.proc.pid, signal.SIGSTOP)
        try:
            # In flight while paused: the requests time out on the client.
            send(300)
            wait_until("the producer to time out requests to the paused broker",
                       lambda: (p.poll(0.05), timeouts.count)[1] > 0, timeout=TIMEOUT_S)
        finally:
            os.kill(self.broker.proc.pid, signal.SIGCONT)
        send(300)
        self.assertEqual(p.flush(TIMEOUT_S * 2), 0)
        self.assertEqual(errors, [])
        self.assertEqual(len(acked), sent[0])
        return acked

    def stored(self, topic):
        got = read_all(self.broker, [TopicPartition(topic, q, OFFSET_BEGINNING)
                                     for q in range(PARTITIONS)], timeout=TIMEOUT_S)
        return [(r.partition, r.offset, r.value) for r in got]

    def test_a_paused_broker_stores_each_retried_message_once_in_order(self):
        acked = self.produce_across_a_pause("idem", idempotent=True)
        stored = self.stored("idem")
        values = [v for _, _, v in stored]
        self.assertEqual(len(values), len(set(values)),
                         "%d duplicate(s)" % (len(values) - len(set(values))))
        self.assertEqual(sorted(values), sorted(acked))
        # In send order within each partition, each at its reported offset.
        for q in range(PARTITIONS):
            mine = [v for part, _, v in stored if part == q]
            self.assertEqual(mine, sorted(mine))
        for part, offset, v in stored:
            self.assertEqual(acked[v], (part, offset))

    def test_without_idempotence_the_same_pause_stores_duplicates(self):
        # The control: what the idempotent producer is protected from.
        self.produce_across_a_pause("plain", idempotent=False)
        values = [v for _, _, v in self.stored("plain")]
        self.assertGreater(len(values), len(set(values)))


if __name__ == "__main__":
    unittest.main()
