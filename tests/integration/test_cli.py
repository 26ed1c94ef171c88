"""The strata CLI against a real broker."""
import json
import os
import struct
import subprocess
import time
import unittest

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

from harness import Broker
from test_confluent import read_all

HERE = os.path.dirname(os.path.abspath(__file__))
STRATA = os.environ.get("STRATA_CLI", os.path.join(HERE, "../../build/tools/strata"))
TIMEOUT_S = 60


def java_partition(known_hash, partitions):
    """Kafka's Utils.toPositive(murmur2(key)) % partitions."""
    return (known_hash & 0x7FFFFFFF) % partitions


class CliTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = Broker(extra_args=["--set", "group.initial.rebalance.delay.ms=0",
                                        "--set", "log.retention.check.interval.ms=200"]).start()

    @classmethod
    def tearDownClass(cls):
        cls.broker.__exit__(None, None, None)

    def cli(self, *args, stdin=None, expect=0, env=None):
        e = dict(os.environ)
        e.pop("STRATA_BOOTSTRAP", None)
        if env:
            e.update(env)
        argv = [STRATA, "--bootstrap", self.broker.bootstrap] + list(args)
        r = subprocess.run(argv, input=stdin, capture_output=True, timeout=TIMEOUT_S, env=e)
        if r.returncode != expect:
            raise AssertionError("%s exited %d (wanted %d)\nstdout: %s\nstderr: %s" % (
                args, r.returncode, expect, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")))
        return r.stdout.decode(), r.stderr.decode()

    def json_lines(self, out):
        return [json.loads(l) for l in out.strip().split("\n") if l]

    def produce_at(self, topic, records):
        """records: [(partition, key, value, timestamp_ms)]; returns delivery offsets."""
        p = Producer({"bootstrap.servers": self.broker.bootstrap, "acks": "all", "linger.ms": 0})
        out = []
        for part, key, value, ts in records:
            p.produce(topic, key=key, value=value, partition=part, timestamp=ts,
                      on_delivery=lambda err, m: out.append((err, m.partition(), m.offset())))
            p.flush(TIMEOUT_S)  # one at a time: offsets follow the list order
        self.assertTrue(all(err is None for err, _, _ in out), out)
        return [(pt, off) for _, pt, off in out]

    def test_replay_of_a_time_range_returns_exactly_its_messages_in_every_partition(self):
        self.cli("topic", "create", "times", "--partitions", "3")
        base = 1_800_000_000_000
        records = []
        for i in range(60):
            # Timestamps rise with jitter, so they are not monotonic within a partition.
            ts = base + i * 1000 + (700 if i % 4 == 0 else 0) - (900 if i % 5 == 0 else 0)
            records.append((i % 3, b"k%d" % i, b"v%d" % i, ts))
        self.produce_at("times", records)
        lo, hi = base + 15_000, base + 40_000
        out, err = self.cli("replay", "--topic", "times", "--from", "@%d" % lo, "--to-time", str(hi),
                            "--format", "json")
        got = sorted((m["partition"], m["value"]) for m in self.json_lines(out))
        want = sorted((p, v.decode()) for p, _, v, ts in records if lo <= ts < hi)
        self.assertEqual(got, want)
        # RFC 3339 bounds give the same answer.
        rfc = lambda ms: time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + ".%03dZ" % (ms % 1000)
        out2, _ = self.cli("replay", "--topic", "times", "--from", rfc(lo), "--to", rfc(hi), "--format", "json")
        self.assertEqual(sorted((m["partition"], m["value"]) for m in self.json_lines(out2)), want)
        # Merged output is in timestamp order.
        out3, _ = self.cli("replay", "--topic", "times", "--from", "@%d" % lo, "--to", "@%d" % hi,
                           "--merge", "--format", "json")
        stamps = [m["timestamp"] for m in self.json_lines(out3)]
        self.assertEqual(stamps, sorted(stamps))
        self.assertEqual(len(stamps), len(want))

    def test_replay_of_an_offset_range_across_segments_and_after_retention(self):
        self.cli("topic", "create", "segs", "--partitions", "1", "--config", "segment.bytes=1024")
        # Ten calls of eight lines: each call's batch (~1 KiB) fills a segment.
        for first in range(0, 80, 8):
            payload = "".join("line-%03d-%s\n" % (i, "x" * 100) for i in range(first, first + 8))
            self.cli("produce", "--topic", "segs", stdin=payload.encode())
        out, _ = self.cli("replay", "--topic", "segs", "--from", "10", "--to", "50", "--format", "raw")
        self.assertEqual(out.split("\n")[:-1], ["line-%03d-%s" % (i, "x" * 100) for i in range(10, 50)])
        # Retention by size takes the oldest segments away.
        self.cli("topic", "alter", "segs", "--config", "retention.bytes=3000")
        deadline = time.monotonic() + 30
        start = 0
        while time.monotonic() < deadline:
            info = json.loads(self.cli("--json", "offsets", "--topic", "segs")[0])
            start = info["partitions"][0]["earliest"]
            if start > 0:
                break
            time.sleep(0.1)
        self.assertGreater(start, 0, "retention did not remove any segment")
        out, err = self.cli("replay", "--topic", "segs", "--from", "0", "--to", "50", expect=1)
        self.assertIn("before the log start %d" % start, err)
        self.assertEqual(len(err.strip().split("\n")), 1)
        out, _ = self.cli("replay", "--topic", "segs", "--from", str(start), "--to", "79", "--format", "raw")
        self.assertEqual(out.split("\n")[:-1], ["line-%03d-%s" % (i, "x" * 100) for i in range(start, 79)])

    def test_produce_and_consume_with_keys_headers_and_java_partitioning(self):
        self.cli("topic", "create", "keyed", "--partitions", "10")
        lines = b"foobar=one\n21=two\nabc=three\nnokey\n"
        out, err = self.cli("produce", "--topic", "keyed", "--key-separator", "=", "--header", "app=cli",
                            "--header", "n=1", stdin=lines)
        self.assertIn("wrote 4 message(s)", err)
        out, _ = self.cli("consume", "--topic", "keyed", "--exit", "--format", "json")
        msgs = {m["key"]: m for m in self.json_lines(out)}
        self.assertEqual(len(msgs), 4)
        # murmur2 values from Kafka's own tests.
        self.assertEqual(msgs["foobar"]["partition"], java_partition(-790332482, 10))
        self.assertEqual(msgs["21"]["partition"], java_partition(-973932308, 10))
        self.assertEqual(msgs["abc"]["partition"], java_partition(479470107, 10))
        self.assertEqual(msgs["foobar"]["value"], "one")
        self.assertEqual(msgs["foobar"]["headers"], [["app", "cli"], ["n", "1"]])
        self.assertIsNone(msgs[None]["key"])
        self.assertEqual(msgs[None]["value"], "nokey")
        # Text output carries partition, offset, timestamp, key, headers, value.
        text, _ = self.cli("consume", "--topic", "keyed", "--partition", str(msgs["abc"]["partition"]), "--exit")
        fields = text.strip().split("\n")[0].split("\t")
        self.assertEqual(fields[3:], ["abc", "app=cli,n=1", "three"])
        # --offset and --count.
        out, _ = self.cli("consume", "--topic", "keyed", "--partition", str(msgs["abc"]["partition"]),
                          "--offset", "0", "--count", "1", "--format", "raw")
        self.assertEqual(out, "three\n")

    def test_group_lag_lists_every_partition_of_the_groups_topics(self):
        self.cli("topic", "create", "lagged", "--partitions", "3")
        # Keys chosen by partition: produce ten messages to partition 0 only.
        self.cli("produce", "--topic", "lagged", "--partition", "0",
                 stdin=b"".join(b"m%d\n" % i for i in range(10)))
        self.cli("consume", "--topic", "lagged", "--group", "g-lagged",
                 "--count", "4", "--format", "raw")
        lag = json.loads(self.cli("--json", "group", "lag", "g-lagged")[0])
        rows = {r["partition"]: r for r in lag["partitions"]}
        self.assertEqual(sorted(rows), [0, 1, 2])
        self.assertEqual((rows[0]["committed"], rows[0]["end"], rows[0]["lag"]), (4, 10, 6))
        for p in (1, 2):
            self.assertEqual((rows[p]["committed"], rows[p]["end"], rows[p]["lag"]), (None, 0, None))
        self.assertEqual(lag["total_lag"], 6)
        text, _ = self.cli("group", "lag", "g-lagged")
        lines = [ln.split() for ln in text.splitlines() if ln.startswith("lagged")]
        self.assertEqual([ln[:5] for ln in lines],
                         [["lagged", "0", "4", "10", "6"], ["lagged", "1", "-", "0", "-"],
                          ["lagged", "2", "-", "0", "-"]])
        described = json.loads(self.cli("--json", "group", "describe", "g-lagged")[0])
        self.assertEqual(len(described["offsets"]), 3)

    def test_group_reset_offsets_moves_what_the_next_member_reads_and_refuses_busy_groups(self):
        self.cli("topic", "create", "resets", "--partitions", "1")
        self.cli("produce", "--topic", "resets", stdin=b"".join(b"m%d\n" % i for i in range(10)))
        out, _ = self.cli("consume", "--topic", "resets", "--group", "g-reset", "--count", "10", "--format", "raw")
        self.assertEqual(out.split(), ["m%d" % i for i in range(10)])
        lag = json.loads(self.cli("--json", "group", "lag", "g-reset")[0])
        self.assertEqual(lag["partitions"][0]["committed"], 10)
        self.assertEqual(lag["total_lag"], 0)
        # Dry run by default: nothing changes.
        out, _ = self.cli("group", "reset-offsets", "g-reset", "--topic", "resets", "--to-offset", "4")
        self.assertIn("dry run", out)
        self.assertEqual(json.loads(self.cli("--json", "group", "lag", "g-reset")[0])["total_lag"], 0)
        self.cli("group", "reset-offsets", "g-reset", "--topic", "resets", "--to-offset", "4", "--execute")
        out, _ = self.cli("consume", "--topic", "resets", "--group", "g-reset", "--count", "6", "--format", "raw")
        self.assertEqual(out.split(), ["m%d" % i for i in range(4, 10)])
        # A group with a live member refuses.
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "g-reset",
                      "session.timeout.ms": 6000})
        c.subscribe(["resets"])
        deadline = time.monotonic() + 30
        while not c.assignment() and time.monotonic() < deadline:
            c.poll(0.1)
        self.assertTrue(c.assignment())
        _, err = self.cli("group", "reset-offsets", "g-reset", "--topic", "resets", "--to-earliest",
                          "--execute", expect=1)
        self.assertIn("active member", err)
        desc = json.loads(self.cli("--json", "group", "describe", "g-reset")[0])
        self.assertEqual(len(desc["members"]), 1)
        self.assertEqual(desc["members"][0]["assignment"], [{"topic": "resets", "partition": 0}])
        c.close()
        listed = json.loads(self.cli("--json", "group", "list")[0])
        self.assertIn("g-reset", [g["group"] for g in listed])
        self.cli("group", "delete", "g-reset")
        listed = json.loads(self.cli("--json", "group", "list")[0])
        self.assertNotIn("g-reset", [g["group"] for g in listed])

    def test_dump_log_counts_records_and_reports_a_corrupt_tail(self):
        self.cli("topic", "create", "dumped", "--partitions", "1")
        self.cli("produce", "--topic", "dumped", stdin=b"".join(b"r%d\n" % i for i in range(25)))
        seg_dir = os.path.join(self.broker.data_dir, "dumped-0")
        out, _ = self.cli("--json", "dump-log", seg_dir, "--records")
        lines = self.json_lines(out)
        summary = lines[-1]
        self.assertEqual(summary["records"], 25)
        self.assertEqual(summary["defects"], 0)
        self.assertEqual([l["value"] for l in lines if l["type"] == "record"], ["r%d" % i for i in range(25)])
        # A copy with its last batch damaged.
        seg = os.path.join(seg_dir, sorted(os.listdir(seg_dir))[0])
        with open(seg, "rb") as f:
            data = bytearray(f.read())
        batches = [l for l in lines if l["type"] == "batch"]
        last = batches[-1]
        data[last["position"] + 30] ^= 0xFF  # inside the CRC-covered part
        broken = os.path.join(self.broker.tmp, "broken.log")
        with open(broken, "wb") as f:
            f.write(data)
        out, _ = self.cli("--json", "dump-log", broken)
        lines = self.json_lines(out)
        defects = [l for l in lines if l["type"] == "defect"]
        self.assertEqual(len(defects), 1)
        self.assertEqual(defects[0]["position"], last["position"])
        self.assertIn("CRC", defects[0]["error"])
        self.assertEqual(lines[-1]["batches"], len(batches) - 1)
        text, _ = self.cli("dump-log", broken)
        self.assertIn("CORRUPTION at byte %d" % last["position"], text)

    def test_a_topic_of_thousands_of_partitions_is_created_the_cli_waiting_for_it(self):
        # The CLI gives the broker its --timeout and waits for the answer: a
        # slow creation succeeds and says so. (3000 partitions take 6-8 s on
        # this 2-core machine idle, more beside the rest of the suite: the
        # timeout is a bound, well above that, not the 10 s default.)
        out, _ = self.cli("--timeout", "50", "topic", "create", "wide", "--partitions", "3000")
        self.assertEqual(out.strip(), "created topic wide with 3000 partition(s)")
        listed = json.loads(self.cli("--json", "topic", "list")[0])
        self.assertIn({"topic": "wide", "partitions": 3000, "replication_factor": 1}, listed)
        self.cli("topic", "delete", "wide")

    def test_a_create_that_outlasts_its_timeout_says_it_may_still_complete(self):
        # The broker answers REQUEST_TIMED_OUT after 1 ms; the topic comes anyway.
        _, err = self.cli("--timeout", "0.001", "topic", "create", "late", "--partitions", "2000",
                          expect=1)
        self.assertIn("REQUEST_TIMED_OUT", err)
        self.assertIn("may still complete", err)
        self.assertEqual(len(err.strip().split("\n")), 1)
        # Deleting it waits for the creation (the broker runs topic changes in order).
        out, _ = self.cli("topic", "delete", "late")
        self.assertEqual(out.strip(), "deleted topic late")

    def test_txn_list_describe_producers_and_abort_of_a_hanging_transaction(self):
        self.cli("topic", "create", "ledger-cli", "--partitions", "2")
        p = Producer({"bootstrap.servers": self.broker.bootstrap,
                      "transactional.id": "cli-writer", "linger.ms": 0})
        p.init_transactions(TIMEOUT_S)
        p.begin_transaction()
        for i in range(3):
            p.produce("ledger-cli", value=b"c%d" % i, partition=0)
        p.commit_transaction(TIMEOUT_S)
        p.begin_transaction()
        p.produce("ledger-cli", value=b"open", partition=1)
        p.flush(TIMEOUT_S)  # written, the transaction left open

        out, _ = self.cli("--json", "txn", "list")
        listed = {t["transactional_id"]: t for t in json.loads(out)}
        self.assertEqual(listed["cli-writer"]["state"], "Ongoing")
        out, _ = self.cli("--json", "txn", "describe", "cli-writer")
        [described] = json.loads(out)
        self.assertEqual(described["partitions"], ["ledger-cli-1"])
        pid = described["producer_id"]
        self.assertEqual(listed["cli-writer"]["producer_id"], pid)
        out, _ = self.cli("--json", "producers", "-t", "ledger-cli", "--partition", "1")
        [producer] = json.loads(out)
        self.assertEqual(producer["producer_id"], pid)
        self.assertEqual(producer["current_txn_start_offset"], 0)
        out, _ = self.cli("--json", "producers", "-t", "ledger-cli", "--partition", "0")
        self.assertEqual(json.loads(out)[0]["current_txn_start_offset"], -1)

        # The open transaction holds read_committed readers back until an
        # abort marker ends it on that partition.
        lso = read_all(self.broker, [TopicPartition("ledger-cli", 1, OFFSET_BEGINNING)],
                       conf={"isolation.level": "read_committed"})
        self.assertEqual(lso, [])
        self.cli("txn", "abort", "-t", "ledger-cli", "-p", "1", "--producer-id", str(pid),
                 "--producer-epoch", str(described["producer_epoch"]),
                 "--coordinator-epoch", str(max(producer["coordinator_epoch"], 0)))
        out, _ = self.cli("--json", "producers", "-t", "ledger-cli", "--partition", "1")
        self.assertEqual(json.loads(out)[0]["current_txn_start_offset"], -1)
        # The aborted record is skipped; the committed ones stay.
        self.assertEqual(
            [r.value for r in read_all(self.broker,
                                       [TopicPartition("ledger-cli", q, OFFSET_BEGINNING)
                                        for q in (0, 1)],
                                       conf={"isolation.level": "read_committed"})],
            [b"c0", b"c1", b"c2"])

        # `strata cluster` lists the transaction APIs among the broker's.
        out, _ = self.cli("--json", "cluster")
        keys = {a["api_key"] for a in json.loads(out)["api_versions"]}
        self.assertTrue({22, 24, 25, 26, 27, 28, 61, 65, 66} <= keys, sorted(keys))
        _, err = self.cli("txn", "describe", "nobody-here", expect=1)
        self.assertIn("transactional id 'nobody-here' does not exist", err)
        _, err = self.cli("producers", "-t", "ledger-cli", "--partition", "7", expect=2)
        self.assertIn("no partition 7", err)
        _, err = self.cli("txn", "abort", "-t", "ledger-cli", "-p", "0", expect=2)
        self.assertEqual(len(err.strip().split("\n")), 1)

    def test_bad_input_gives_one_line_and_the_right_exit_code(self):
        _, err = self.cli("no-such-command", expect=2)
        self.assertEqual(len(err.strip().split("\n")), 1)
        _, err = self.cli("replay", "--topic", "x", "--from", "yesterday", expect=2)
        self.assertIn("bad time 'yesterday'", err)
        self.assertEqual(len(err.strip().split("\n")), 1)
        _, err = self.cli("consume", "--topic", "never-created-topic", "--exit", expect=1)
        self.assertIn("unknown topic 'never-created-topic'", err)
        self.assertEqual(len(err.strip().split("\n")), 1)
        # Looking a topic up never creates it (the broker auto-creates topics).
        for cmd in (["topic", "describe"], ["topic", "elect-leaders"]):
            _, err = self.cli(*cmd, "looked-up-topic", expect=1)
            self.assertIn("unknown topic 'looked-up-topic'", err)
        out, _ = self.cli("topic", "list")
        self.assertNotIn("looked-up-topic", out)
        _, err = self.cli("group", "lag", "never-used-group", expect=1)
        self.assertIn("consumer group 'never-used-group' does not exist", err)
        self.assertEqual(len(err.strip().split("\n")), 1)
        _, err = self.cli("topic", "create", "bad name!", expect=1)
        self.assertIn("TOPIC_EXCEPTION", err)  # librdkafka's name for code 17
        # An unreachable broker: a clear error within the timeout, not a hang.
        r = subprocess.run([STRATA, "--bootstrap", "127.0.0.1:1", "--timeout", "2", "topic", "list"],
                           capture_output=True, timeout=30)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot reach a broker at 127.0.0.1:1", r.stderr.decode())
        self.assertEqual(len(r.stderr.decode().strip().split("\n")), 1)
        # STRATA_BOOTSTRAP is honoured.
        r = subprocess.run([STRATA, "topic", "list"], capture_output=True, timeout=30,
                           env=dict(os.environ, STRATA_BOOTSTRAP=self.broker.bootstrap))
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
