"""Kafka Streams (the newest 4.x, from bench/fetch_kafka.sh's cache) against a
real broker, through tests/java/StreamsCheck.java: a keyed aggregation — a
repartition topic, a state store whose changelog is compacted — with
processing.guarantee=exactly_once_v2.

The application instance is SIGKILLed and restarted several times while
input arrives; at the end the output topic's latest value per key (read
read_committed) is the exact sum of the input, and a new instance with an
empty state directory restores the store from the changelog to the same
totals.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest

from confluent_kafka import OFFSET_BEGINNING, Producer, TopicPartition

from harness import Broker
from confluent_kafka.admin import ConfigResource, NewTopic

from test_confluent import admin, read_all
from test_java_client import kafka_lib

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.normpath(os.path.join(HERE, "../java/StreamsCheck.java"))
ACCOUNTS = 20
PARTITIONS = 4
# Upper bounds on waiting for an outcome; never a measurement.
WAIT_S = 240


class App:
    """One StreamsCheck process; its RESULT lines collected as they come."""

    def __init__(self, lib, mode, bootstrap, app_id, state_dir, rf, log):
        # Its temporary files (RocksDB's native library, which a killed JVM
        # leaves behind) go under the test's directory, removed with it.
        tmp = os.path.join(os.path.dirname(state_dir), "java-tmp")
        os.makedirs(tmp, exist_ok=True)
        argv = ["java", "-Djava.io.tmpdir=" + tmp, "-cp", os.path.join(lib, "*"), SOURCE, mode,
                bootstrap, app_id, state_dir, "streams-in", "streams-out", str(rf)]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=log, text=True)
        self.results = []
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            if line.startswith("RESULT "):
                with self.cond:
                    self.results.append(json.loads(line[len("RESULT "):]))
                    self.cond.notify_all()
        with self.cond:
            self.results.append({"exited": True})
            self.cond.notify_all()

    def wait_for(self, pred, timeout=WAIT_S):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for r in self.results:
                    if pred(r):
                        return r
                    if r.get("exited"):
                        raise AssertionError("the Streams app exited: %s" % self.results)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("no such result within %ds: %s" % (timeout, self.results))
                self.cond.wait(left)

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.finish()

    def finish(self):
        self.proc.wait(60)
        self.reader.join(30)
        self.proc.stdout.close()


class StreamsScenario:
    """The scenario, against `self.kafka` (a Broker or a Cluster, from the
    class's start_kafka: whatever has `bootstrap`) at replication factor `self.rf`; `self.between(phase)`
    runs after each phase's kill (a broker's fault, in the cluster)."""

    @classmethod
    def setUpClass(cls):
        cls.lib = kafka_lib()
        cls.kafka = cls.start_kafka()
        cls.tmp = tempfile.mkdtemp(prefix="strata-streams-")
        cls.log = open(os.path.join(cls.tmp, "app.log"), "w")

    @classmethod
    def tearDownClass(cls):
        cls.log.close()
        cls.kafka.__exit__(None, None, None)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def between(self, phase):
        pass

    def produce(self, start, count):
        p = Producer({"bootstrap.servers": self.kafka.bootstrap, "enable.idempotence": True})
        for i in range(start, start + count):
            p.produce("streams-in", key=b"e%d" % i,
                      value=b"acct-%d:%d" % (i % ACCOUNTS, i % 7 + 1))
        self.assertEqual(p.flush(60), 0)

    def totals(self):
        """The output's latest value per account, read read_committed."""
        out = {}
        for r in read_all(self.kafka, [TopicPartition("streams-out", p, OFFSET_BEGINNING)
                                       for p in range(PARTITIONS)],
                          conf={"isolation.level": "read_committed"}):
            out[r.key.decode()] = int.from_bytes(r.value, "big", signed=True)
        return out

    def wait_for_totals(self, want):
        deadline = time.monotonic() + WAIT_S
        got = self.totals()
        while got != want and time.monotonic() < deadline:
            got = self.totals()
        self.assertEqual(got, want)

    def app(self, mode, state_dir):
        return App(self.lib, mode, self.kafka.bootstrap, "strata-sums", state_dir, self.rf,
                   self.log)

    def check_exactly_once_across_kills_and_a_restore(self):
        topic_configs = {"min.insync.replicas": "2"} if self.rf == 3 else {}
        a = admin(self.kafka)
        fs = a.create_topics([NewTopic(t, PARTITIONS, self.rf, config=topic_configs)
                              for t in ("streams-in", "streams-out")], request_timeout=60)
        for f in fs.values():
            f.result(60)
        per_phase, phases = 3000, 4
        state = os.path.join(self.tmp, "state")
        app = self.app("run", state)
        for phase in range(phases):
            app.wait_for(lambda r: r.get("state") == "RUNNING")
            before = self.totals()
            self.produce(phase * per_phase, per_phase)
            # Some of this phase is processed and committed, then the
            # instance dies mid-stream; every other time its state
            # directory goes with it.
            deadline = time.monotonic() + WAIT_S
            while self.totals() == before and time.monotonic() < deadline:
                pass
            app.kill()
            if phase % 2 == 1:
                shutil.rmtree(state, ignore_errors=True)
            self.between(phase)
            app = self.app("run", state)
        want = {}
        for i in range(phases * per_phase):
            key = "acct-%d" % (i % ACCOUNTS)
            want[key] = want.get(key, 0) + i % 7 + 1
        app.wait_for(lambda r: r.get("state") == "RUNNING")
        self.wait_for_totals(want)
        app.kill()

        # The changelog is compacted and restores the store on a new instance.
        query = self.app("query", os.path.join(self.tmp, "fresh-state"))
        store = query.wait_for(lambda r: "store" in r)["store"]
        self.assertEqual(store, want)
        query.finish()
        described = a.describe_configs([ConfigResource(
            ConfigResource.Type.TOPIC, "strata-sums-totals-changelog")])
        [cfg] = [f.result(60) for f in described.values()]
        self.assertEqual(cfg["cleanup.policy"].value, "compact")


class KafkaStreamsTest(StreamsScenario, unittest.TestCase):
    rf = 1

    @classmethod
    def start_kafka(cls):
        return Broker(extra_args=["--set", "group.initial.rebalance.delay.ms=0"]).start()

    def test_exactly_once_aggregate_across_kills_and_a_restore_from_the_changelog(self):
        self.check_exactly_once_across_kills_and_a_restore()


if __name__ == "__main__":
    unittest.main()
