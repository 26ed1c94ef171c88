"""Transactions with kafkajs 2.2.4 (Node.js) against one broker: a producer
with a transactionalId (idempotent, maxInFlightRequests 1) commits and
aborts over several partitions, sends a consumer group's offsets in its
transactions (consume-transform-produce), and is fenced by a second
producer with the same transactionalId. kafkajs speaks InitProducerId,
AddPartitionsToTxn, AddOffsetsToTxn, EndTxn and TxnOffsetCommit at v0-v1,
so the broker answers a fenced epoch as INVALID_PRODUCER_EPOCH (KIP-588's
PRODUCER_FENCED only from v2/v3/v4, which kafkajs does not know).

What it shows: read_committed readers (confluent-kafka and kafkajs's own
consumer) see every committed message once and no aborted one, and
read_uncommitted sees both; offsets sent in a transaction become the
group's committed offsets at its commit and never at its abort; once a
second producer has initialized with the same transactionalId, the first
one's sends and commit fail with INVALID_PRODUCER_EPOCH, also a commit
sent right after the second one's commit, and nothing it wrote is visible
to read_committed; a kafkajs consume-transform-produce application
(kafkajs/transformer.js) SIGKILLed three times mid-stream and restarted
leaves the transform of every input record in its output exactly once, in
input order per partition.

EndTxn is answered once the commit is decided; its markers are written
after (as in Kafka), so a read right after a commit polls until it settles
(or TIMEOUT_S), and the group's offsets are read with confluent-kafka,
whose OffsetFetch asks require_stable.

kafkajs/driver.js runs the steps (see its header); with KAFKAJS_LOG_LEVEL=DEBUG
in the environment kafkajs logs its requests and responses to stderr, which
a failing step's assertion prints.
"""
import base64
import json
import os
import shutil
import subprocess
import time
import unittest

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from harness import Broker
from test_confluent import create_topic, produce_all, read_all
from test_kafkajs import DRIVER, DRIVER_TIMEOUT_S, KAFKAJS_DIR, b64
from test_transactions import transform_under_sigkills

TIMEOUT_S = 30
TRANSFORMER = os.path.join(KAFKAJS_DIR, "transformer.js")
# The kafkajs consumer joins a group: no wait for more members.
NO_DELAY = ["--set", "group.initial.rebalance.delay.ms=0"]


def msg(value, partition, key=None):
    return {"key": b64(key), "value": b64(value), "partition": partition}


def read(broker, topic, partitions, isolation):
    """[(partition, offset, value)] of a confluent-kafka reader."""
    return [(r.partition, r.offset, r.value) for r in
            read_all(broker, [TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)],
                     conf={"isolation.level": isolation})]


def by_partition(records, partitions):
    """{partition: [value, ...]} in offset order."""
    return {p: [v for q, _, v in sorted(records) if q == p] for p in range(partitions)}


def committed_offsets(broker, group, topic, partitions):
    """{partition: offset} the broker serves a fresh confluent-kafka client
    (-1001: none)."""
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group})
    try:
        got = c.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=TIMEOUT_S)
        assert all(tp.error is None for tp in got), got
        return {tp.partition: tp.offset for tp in got}
    finally:
        c.close()


class KafkajsTransactionsTest(unittest.TestCase):
    def setUp(self):
        if shutil.which("node") is None:
            self.fail("node is not installed (scripts/setup.sh --tests installs nodejs)")
        if not os.path.isfile(os.path.join(KAFKAJS_DIR, "node_modules", "kafkajs", "package.json")):
            self.fail("kafkajs is not installed: run `npm ci` in tests/integration/kafkajs")
        self.broker = Broker(extra_args=NO_DELAY).start()

    def tearDown(self):
        self.broker.__exit__(None, None, None)

    def run_steps(self, steps):
        """Runs the steps in one kafkajs process; one ("ok", value) or
        ("error", {name, type, code, message, errors, cause}) per step."""
        r = subprocess.run(["node", DRIVER, self.broker.bootstrap], input=json.dumps(steps).encode(),
                           capture_output=True, timeout=DRIVER_TIMEOUT_S, cwd=KAFKAJS_DIR)
        self.stderr = r.stderr.decode()
        if r.returncode != 0:
            raise AssertionError("driver.js exited with %d:\n%s\nbroker log:\n%s"
                                 % (r.returncode, self.stderr, self.broker.log()))
        results = json.loads(r.stdout)["results"]
        self.assertEqual(len(results), len(steps))
        return [("ok", res["ok"]) if "ok" in res else ("error", res["error"]) for res in results]

    def ok(self, result, what=""):
        kind, value = result
        self.assertEqual(kind, "ok", "kafkajs failed %s: %s\nkafkajs log:\n%s"
                         % (what, json.dumps(value, indent=1), self.stderr[-20000:]))
        return value

    def all_ok(self, results, steps):
        return [self.ok(r, json.dumps(s)[:200]) for r, s in zip(results, steps)]

    def error(self, result):
        kind, value = result
        self.assertEqual(kind, "error", "kafkajs succeeded: %s" % (value,))
        return value

    def settles_to(self, read_fn, want, what=""):
        """Reads until the answer is `want` or TIMEOUT_S passes, then asserts
        it. For reads right after a commit: EndTxn is answered once the
        commit is decided, and its markers are written after (as in Kafka),
        so a reader may for a moment still stop at the last stable offset
        before the transaction."""
        deadline = time.monotonic() + TIMEOUT_S
        got = read_fn()
        while got != want and time.monotonic() < deadline:
            got = read_fn()
        self.assertEqual(got, want, what)
        return got

    def test_consume_transform_produce_survives_sigkills_of_the_transformer(self):
        transform_under_sigkills(self, self.broker, ["node", TRANSFORMER], kills=3, cwd=KAFKAJS_DIR)

    def fetched(self, result):
        """kafkajs admin.fetchOffsets: {(topic, partition): offset}."""
        return {(t["topic"], p["partition"]): int(p["offset"])
                for t in self.ok(result) for p in t["partitions"]}

    def test_commit_and_abort_over_partitions(self):
        partitions = 3
        create_topic(self.broker, "js-ledger", partitions)
        steps = [{"op": "txnProducer", "name": "p", "transactionalId": "js-ledger-writer"}]
        committed, aborted, plain = [], [], []
        for n in range(6):
            first = [msg(b"t%d-a%d" % (n, i), i % partitions, b"%d" % i) for i in range(9)]
            second = [msg(b"t%d-b%d" % (n, p), p) for p in range(partitions)]
            # A plain (non-transactional) message inside the transaction's
            # span of the log: it is not the transaction's, whatever its end.
            outside = msg(b"plain-%d" % n, n % partitions)
            steps += [{"op": "begin", "producer": "p"},
                      {"op": "txnSend", "producer": "p", "topic": "js-ledger", "messages": first},
                      {"op": "send", "topic": "js-ledger", "messages": [outside]},
                      {"op": "txnSend", "producer": "p", "topic": "js-ledger", "messages": second},
                      {"op": "commit" if n % 2 == 0 else "abort", "producer": "p"}]
            (committed if n % 2 == 0 else aborted).extend(first + second)
            plain.append(outside)
        # One more left open when the process exits, as after a crash.
        steps += [{"op": "begin", "producer": "p"},
                  {"op": "txnSend", "producer": "p", "topic": "js-ledger",
                   "messages": [msg(b"open-%d" % p, p) for p in range(partitions)]}]
        self.all_ok(self.run_steps(steps), steps)

        def values(ms):
            return sorted((m["partition"], base64.b64decode(m["value"])) for m in ms)

        # read_committed stops at the open transaction: every committed and
        # plain message, no aborted or open one, each in send order.
        got = read(self.broker, "js-ledger", partitions, "read_committed")
        self.assertEqual(sorted((p, v) for p, _, v in got), values(committed + plain))
        for p, vs in by_partition(got, partitions).items():
            want = [base64.b64decode(m["value"]) for m in committed if m["partition"] == p]
            self.assertEqual([v for v in vs if v.startswith(b"t")], want, "partition %d" % p)
        uncommitted = read(self.broker, "js-ledger", partitions, "read_uncommitted")
        self.assertEqual(sorted((p, v) for p, _, v in uncommitted),
                         sorted(values(committed + aborted + plain) +
                                [(p, b"open-%d" % p) for p in range(partitions)]))

        # A new process with the same transactionalId: its InitProducerId
        # aborts the open transaction; then it commits one of its own. The
        # kafkajs consumer (read_committed) reads what confluent-kafka does.
        after = [msg(b"after-%d" % p, p) for p in range(partitions)]
        steps = [{"op": "txnProducer", "name": "q", "transactionalId": "js-ledger-writer"},
                 {"op": "begin", "producer": "q"},
                 {"op": "txnSend", "producer": "q", "topic": "js-ledger", "messages": after},
                 {"op": "commit", "producer": "q"}]
        self.all_ok(self.run_steps(steps), steps)
        self.settles_to(lambda: sorted((p, v) for p, _, v in read(self.broker, "js-ledger", partitions,
                                                                     "read_committed")),
                        values(committed + plain + after))
        got = read(self.broker, "js-ledger", partitions, "read_committed")
        steps = [{"op": "consume", "topic": "js-ledger", "groupId": "js-ledger-reader"}]
        consumed = self.all_ok(self.run_steps(steps), steps)[0]
        self.assertEqual(sorted((m["partition"], int(m["offset"]), base64.b64decode(m["value"]))
                                for m in consumed), got)

    def test_send_offsets_commit_with_the_transaction_not_at_abort(self):
        create_topic(self.broker, "js-in", 2)
        create_topic(self.broker, "js-out", 2)
        inputs = [{"value": b"%d" % i, "partition": i % 2} for i in range(20)]
        self.assertEqual([r.error for r in produce_all(self.broker, "js-in", inputs)], [None] * 20)
        group = "js-transformer"

        # Consume: a kafkajs consumer in the group (no commits of its own).
        steps = [{"op": "consume", "topic": "js-in", "groupId": group}]
        consumed = sorted((m["partition"], int(m["offset"]), base64.b64decode(m["value"]))
                          for m in self.all_ok(self.run_steps(steps), steps)[0])
        self.assertEqual(len(consumed), 20)
        self.assertEqual(committed_offsets(self.broker, group, "js-in", 2), {0: -1001, 1: -1001})

        # Transform and produce: the first five of each partition, committed
        # with offsets 5; the next five aborted with offsets 10. Each round
        # reads the group's offsets (kafkajs admin.fetchOffsets: OffsetFetch
        # without require_stable) while its own are pending; its first send
        # waits (AddPartitionsToTxn, CONCURRENT_TRANSACTIONS retried) for
        # the previous transaction's markers, the group's offsets among them.
        def round_steps(lo, hi, end):
            out = [msg(b"x" + v, p) for p, o, v in consumed if lo <= o < hi]
            return [{"op": "begin", "producer": "t"},
                    {"op": "txnSend", "producer": "t", "topic": "js-out", "messages": out},
                    {"op": "sendOffsets", "producer": "t", "consumerGroupId": group,
                     "topics": [{"topic": "js-in", "partitions": [{"partition": p, "offset": str(hi)}
                                                                  for p in (0, 1)]}]},
                    {"op": "fetchOffsets", "groupId": group, "topics": ["js-in"]},
                    {"op": end, "producer": "t"}]
        steps = ([{"op": "txnProducer", "name": "t", "transactionalId": "js-transformer-1"}] +
                 round_steps(0, 5, "commit") + round_steps(5, 10, "abort"))
        results = self.all_ok(self.run_steps(steps), steps)
        none = {("js-in", 0): -1, ("js-in", 1): -1}
        five = {("js-in", 0): 5, ("js-in", 1): 5}
        # Not the group's while pending; the group's after the commit, and
        # still while the next transaction's are pending.
        self.assertEqual([self.fetched(("ok", results[i])) for i in (4, 9)], [none, five])
        # confluent-kafka's OffsetFetch asks require_stable: its answer waits
        # for the abort's markers. The abort left the offsets of the commit.
        self.assertEqual(committed_offsets(self.broker, group, "js-in", 2), {0: 5, 1: 5})
        out = read(self.broker, "js-out", 2, "read_committed")
        self.assertEqual(sorted(v for _, _, v in out), sorted(b"x%d" % i for i in range(10)))
        self.assertEqual(len(read(self.broker, "js-out", 2, "read_uncommitted")), 20)

        # The aborted round again, as a restarted instance would redo it.
        steps = ([{"op": "txnProducer", "name": "t", "transactionalId": "js-transformer-1"}] +
                 round_steps(5, 10, "commit"))
        results = self.all_ok(self.run_steps(steps), steps)
        self.assertEqual(self.fetched(("ok", results[4])), five)
        self.assertEqual(committed_offsets(self.broker, group, "js-in", 2), {0: 10, 1: 10})
        self.settles_to(lambda: by_partition(read(self.broker, "js-out", 2, "read_committed"), 2),
                        {p: [b"x%d" % i for i in range(20) if i % 2 == p] for p in (0, 1)},
                        "every output once, in the partition of its input, in input order")

    def test_a_second_producer_fences_the_first(self):
        create_topic(self.broker, "js-fenced", 2)
        steps = [
            {"op": "txnProducer", "name": "zombie", "transactionalId": "js-worker"},
            {"op": "begin", "producer": "zombie"},
            {"op": "txnSend", "producer": "zombie", "topic": "js-fenced", "messages": [msg(b"zombie-1", 0)]},
            # The second instance's InitProducerId bumps the epoch and aborts
            # the zombie's open transaction.
            {"op": "txnProducer", "name": "fresh", "transactionalId": "js-worker"},
            {"op": "begin", "producer": "fresh"},
            {"op": "txnSend", "producer": "fresh", "topic": "js-fenced",
             "messages": [msg(b"fresh-1", 0), msg(b"fresh-1", 1)]},
            {"op": "commit", "producer": "fresh"},
            # The zombie, still in its transaction as far as it knows: a
            # Produce to a partition it added, an AddPartitionsToTxn for a new
            # one, and EndTxn all carry its old epoch.
            {"op": "txnSend", "producer": "zombie", "topic": "js-fenced", "messages": [msg(b"zombie-2", 0)]},
            {"op": "txnSend", "producer": "zombie", "topic": "js-fenced", "messages": [msg(b"zombie-3", 1)]},
            {"op": "commit", "producer": "zombie"},
            # The new instance goes on.
            {"op": "begin", "producer": "fresh"},
            {"op": "txnSend", "producer": "fresh", "topic": "js-fenced", "messages": [msg(b"fresh-2", 1)]},
            {"op": "commit", "producer": "fresh"},
        ]
        results = self.run_steps(steps)
        for i in (0, 1, 2, 3, 4, 5, 6, 10, 11, 12):
            self.ok(results[i], json.dumps(steps[i])[:200])
        fenced = [self.error(results[i]) for i in (7, 8, 9)]
        self.assertEqual([(e["name"], e["type"], e["code"]) for e in fenced],
                         [("KafkaJSProtocolError", "INVALID_PRODUCER_EPOCH", 47)] * 3,
                         json.dumps(fenced, indent=1))

        self.settles_to(lambda: by_partition(read(self.broker, "js-fenced", 2, "read_committed"), 2),
                        {0: [b"fresh-1"], 1: [b"fresh-1", b"fresh-2"]})
        # The zombie's first message is in the log, aborted; its later ones
        # were refused and never written.
        uncommitted = read(self.broker, "js-fenced", 2, "read_uncommitted")
        self.assertEqual(by_partition(uncommitted, 2),
                         {0: [b"zombie-1", b"fresh-1"], 1: [b"fresh-1", b"fresh-2"]})

    def test_a_fenced_commit_right_after_the_new_instance_commits_is_fenced(self):
        # Kafka's coordinator checks the epoch first: a fenced EndTxn is
        # PRODUCER_FENCED, INVALID_PRODUCER_EPOCH at v1, also while the new
        # instance's commit markers are still being written. kafkajs does
        # not retry EndTxn: its answer is the zombie's last word. Whether the
        # zombie's EndTxn arrives while the markers (8 partitions' worth) are
        # in flight is timing, so the race is run five times, one
        # transactionalId each; every answer must be the fenced one.
        partitions, rounds = 8, 5
        create_topic(self.broker, "js-fenced", partitions)
        steps = []
        for r in range(rounds):
            zombie, fresh, tid = "zombie-%d" % r, "fresh-%d" % r, "js-worker-%d" % r
            steps += [
                {"op": "txnProducer", "name": zombie, "transactionalId": tid},
                {"op": "begin", "producer": zombie},
                {"op": "txnSend", "producer": zombie, "topic": "js-fenced", "messages": [msg(b"zombie-%d" % r, 0)]},
                {"op": "txnProducer", "name": fresh, "transactionalId": tid},
                {"op": "begin", "producer": fresh},
                {"op": "txnSend", "producer": fresh, "topic": "js-fenced",
                 "messages": [msg(b"fresh-%d" % r, p) for p in range(partitions)]},
                {"op": "commit", "producer": fresh},
                {"op": "commit", "producer": zombie},
            ]
        results = self.run_steps(steps)
        answers = []
        for r in range(rounds):
            for i in range(8 * r, 8 * r + 7):
                self.ok(results[i], json.dumps(steps[i])[:200])
            e = self.error(results[8 * r + 7])
            answers.append((e["name"], e["type"], e["code"]))
        self.assertEqual(answers, [("KafkaJSProtocolError", "INVALID_PRODUCER_EPOCH", 47)] * rounds)
        self.settles_to(lambda: by_partition(read(self.broker, "js-fenced", partitions, "read_committed"),
                                             partitions),
                        {p: [b"fresh-%d" % r for r in range(rounds)] for p in range(partitions)})


if __name__ == "__main__":
    unittest.main()
