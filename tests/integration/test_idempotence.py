"""The idempotent producer with librdkafka (confluent-kafka,
enable.idempotence=true) against one broker.

What it shows: InitProducerId gives the producer an id; while the broker is
paused (SIGSTOP) past the producer's request timeout, librdkafka gives up
on the requests in flight, reconnects and sends the same batches again once
the broker resumes — which by then has read the first copies too. Every
message is stored exactly once, in the order it was sent within its
partition, at the offset its delivery report gave. The same holds when the
producer's connections are cut four times (a packet filter dropping the
broker's port on loopback) and restored. And without idempotence the same
pause stores duplicates, so the check above can fail.
"""
import logging
import os
import signal
import subprocess
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

        self.filters = []

    def tearDown(self):
        for rule in self.filters:
            subprocess.run(["iptables", "-D"] + rule, capture_output=True)
        if self.broker.proc is not None:
            os.kill(self.broker.proc.pid, signal.SIGCONT)
        self.broker.__exit__(None, None, None)

    def pause(self):
        os.kill(self.broker.proc.pid, signal.SIGSTOP)

    def resume(self):
        os.kill(self.broker.proc.pid, signal.SIGCONT)

    def cut(self):
        """Drops every packet to and from the broker's port on loopback:
        connections stay open, nothing arrives."""
        for rule in self.rules():
            subprocess.run(["iptables", "-A"] + rule, check=True)
            self.filters.append(rule)

    def heal(self):
        for rule in self.rules():
            subprocess.run(["iptables", "-D"] + rule, check=True)
            self.filters.remove(rule)

    def rules(self):
        port = str(self.broker.port)
        return [["INPUT", "-d", "127.0.0.1", "-p", "tcp", "--dport", port, "-j", "DROP"],
                ["INPUT", "-s", "127.0.0.1", "-p", "tcp", "--sport", port, "-j", "DROP"]]

    def produce_across(self, topic, idempotent, disrupt, restore, rounds=1):
        """Sends numbered messages round-robin over the partitions without
        pause; `rounds` times, disrupts the broker (a pause, a cut) until the
        producer has timed out requests in flight, restores it, and sends
        more. Returns {value: (partition, offset)} from the delivery reports."""
        create_topic(self.broker, topic, partitions=PARTITIONS)
        timeouts = Timeouts()
        log = logging.getLogger("rdkafka-" + topic)
        log.addHandler(timeouts)
        log.setLevel(logging.DEBUG)
        conf = {"bootstrap.servers": self.broker.bootstrap, "enable.idempotence": idempotent,
                # librdkafka times a ProduceRequest out after socket.timeout.ms.
                "acks": "all", "linger.ms": 5, "socket.timeout.ms": 1500,
                # A connection tried while cut is given up soon, and tried again.
                "socket.connection.setup.timeout.ms": 3000, "reconnect.backoff.max.ms": 1000,
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
        for _ in range(rounds):
            before = timeouts.count
            disrupt()
            try:
                # In flight while disrupted: the requests time out on the client.
                send(300)
                wait_until("the producer to time out requests to the broker",
                           lambda: (p.poll(0.05), timeouts.count)[1] > before, timeout=TIMEOUT_S)
            finally:
                restore()
            send(300)
        self.assertEqual(p.flush(TIMEOUT_S * 2), 0)
        self.assertEqual(errors, [])
        self.assertEqual(len(acked), sent[0])
        return acked

    def stored(self, topic):
        got = read_all(self.broker, [TopicPartition(topic, q, OFFSET_BEGINNING)
                                     for q in range(PARTITIONS)], timeout=TIMEOUT_S)
        return [(r.partition, r.offset, r.value) for r in got]

    def assert_once_in_order(self, topic, acked):
        stored = self.stored(topic)
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

    def test_a_paused_broker_stores_each_retried_message_once_in_order(self):
        self.assert_once_in_order("idem", self.produce_across("idem", True, self.pause, self.resume))

    def test_connections_cut_and_restored_four_times_store_each_message_once_in_order(self):
        acked = self.produce_across("cut", True, self.cut, self.heal, rounds=4)
        self.assert_once_in_order("cut", acked)

    def test_without_idempotence_the_same_pause_stores_duplicates(self):
        # The control: what the idempotent producer is protected from.
        self.produce_across("plain", False, self.pause, self.resume)
        values = [v for _, _, v in self.stored("plain")]
        self.assertGreater(len(values), len(set(values)))


if __name__ == "__main__":
    unittest.main()
