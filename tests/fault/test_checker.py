"""checker.py on small hand-made histories.

    cd tests/fault && python3 -m unittest -v test_checker
"""
import json
import os
import subprocess
import tempfile
import unittest

import checker

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"


def rec(type_, proc, **fields):
    return dict({"t": 0.0, "type": type_, "proc": proc}, **fields)


def send(proc, p, v):
    return rec("send", proc, partition=p, value=v)


def ack(proc, p, o, v):
    return rec("ack", proc, partition=p, offset=o, value=v)


def fail(proc, p, v):
    return rec("fail", proc, partition=p, value=v, error="timed out")


def assign(proc, *partitions):
    return rec("assign", proc, partitions=list(partitions))


def poll(proc, p, o, v):
    return rec("poll", proc, partition=p, offset=o, value=v)


def commit(proc, group, p, o):
    return rec("commit", proc, group=group, partition=p, offset=o)


def ksend(proc, p, v, key, **fields):
    return rec("send", proc, partition=p, value=v, key=key, **fields)


def tsend(proc, p, v, txn):
    return rec("send", proc, partition=p, value=v, txn=txn)


def txn(proc, name, outcome):
    return rec("txn", proc, txn=name, outcome=outcome)


def final(p, o, v):
    return rec("final", "final", partition=p, offset=o, value=v)


def end(p, o):
    return rec("end", "final", partition=p, offset=o)


def healed():
    return rec("healed", "nemesis")


def nemesis(action):
    return rec("nemesis", "nemesis", action=action)


def pause_end(broker, replaced, still_led):
    return rec("nemesis", "nemesis", action="pause-end", broker=broker, replaced=replaced,
               still_led=still_led)


def clean_history():
    """Two partitions, every acknowledged value read by a partition reader
    and a group member, healed, then the final read."""
    return [
        send("p0", 0, "a0"), send("p0", 0, "a1"), send("p0", 0, "a2"),
        ack("p0", 0, 0, "a0"), ack("p0", 0, 1, "a1"), ack("p0", 0, 2, "a2"),
        send("p1", 1, "b0"), send("p1", 1, "b1"),
        ack("p1", 1, 0, "b0"), ack("p1", 1, 1, "b1"),
        nemesis("partition"),
        # written, but the client gave up on it: indeterminate, not an anomaly
        send("p0", 0, "d"), fail("p0", 0, "d"),
        # never acknowledged and never read
        send("p0", 0, "e"),
        assign("r0", 0, 1),
        poll("r0", 0, 0, "a0"), poll("r0", 0, 1, "a1"), poll("r0", 1, 0, "b0"),
        poll("r0", 0, 2, "a2"), poll("r0", 0, 3, "d"), poll("r0", 1, 1, "b1"),
        assign("g0", 0),
        poll("g0", 0, 0, "a0"), poll("g0", 0, 1, "a1"),
        commit("g0", "g", 0, 2),
        # a rebalance: the member's positions start again, re-reading 1 is fine
        assign("g0", 0, 1),
        poll("g0", 0, 1, "a1"), poll("g0", 0, 2, "a2"), poll("g0", 0, 3, "d"),
        poll("g0", 1, 0, "b0"), poll("g0", 1, 1, "b1"),
        commit("g0", "g", 0, 4), commit("g0", "g", 1, 2),
        nemesis("heal"), healed(),
        {"t": 9.0, "type": "note", "text": "unknown types are ignored"},
        final(0, 0, "a0"), final(0, 1, "a1"), final(0, 2, "a2"), final(0, 3, "d"),
        final(1, 0, "b0"), final(1, 1, "b1"),
        end(0, 4), end(1, 2),
    ]


def counts(report):
    return {name: getattr(report, name).count for name in checker.ANOMALIES}


def only(name, count):
    """The counts of a report that found count of one anomaly and nothing else."""
    expected = {n: 0 for n in checker.ANOMALIES}
    expected[name] = count
    return expected


class CheckTest(unittest.TestCase):
    def test_clean_history_passes(self):
        report = checker.check(clean_history())
        self.assertEqual(counts(report), {n: 0 for n in checker.ANOMALIES})
        self.assertTrue(report.passed)
        self.assertEqual(report.failing, [])
        self.assertTrue(report.unseen_checked)
        self.assertEqual(report.totals(), {"sends": 7, "acks": 5, "fails": 1, "polls": 13,
                                           "finals": 6, "commits": 3, "transactions": 0,
                                           "compacted": 0})
        self.assertTrue(checker.check(clean_history(), idempotent=True).passed)

    def test_lost(self):
        report = checker.check([
            ack("p0", 0, 0, "a"), ack("p0", 0, 1, "b"), ack("p1", 1, 0, "c"),
            fail("p0", 0, "f"),  # never read, but never acknowledged either
            assign("r0", 0), poll("r0", 0, 0, "a"),
            healed(),
            final(0, 0, "a"), end(0, 2),
        ])
        # b's offset is missing from partition 0's final read, but a lost
        # value is counted once, as lost, not also as inconsistent
        self.assertEqual(counts(report), only("lost", 2))
        self.assertEqual(report.lost.examples, [
            {"partition": 0, "offset": 1, "value": "b", "proc": "p0"},
            {"partition": 1, "offset": 0, "value": "c", "proc": "p1"},
        ])
        self.assertFalse(report.passed)
        self.assertEqual(report.failing, ["lost"])

    def test_lost_value_read_elsewhere_is_not_lost(self):
        report = checker.check([ack("p0", 0, 0, "a"), final(1, 0, "a"), end(1, 1)])
        self.assertEqual(report.lost.count, 0)

    def test_examples_are_capped(self):
        report = checker.check([ack("p0", 0, o, f"v{o}") for o in range(7)])
        self.assertEqual(report.lost.count, 7)
        self.assertEqual([e["value"] for e in report.lost.examples], ["v0", "v1", "v2", "v3", "v4"])

    def test_inconsistent(self):
        report = checker.check([
            ack("p0", 0, 0, "a"), ack("p0", 0, 1, "b"), ack("p0", 0, 2, "c"), ack("p0", 0, 3, "d"),
            assign("r0", 0),
            poll("r0", 0, 0, "a"),
            poll("r0", 0, 1, "x"),  # the final read has b at 0/1
            poll("r0", 0, 2, "c"),
            poll("r0", 0, 3, "d"),  # read, but the final read has nothing at 0/3
            final(0, 0, "a"), final(0, 1, "b"), final(0, 2, "c"), end(0, 3),
            ack("p1", 1, 0, "e"), ack("p1", 1, 1, "f"),
            ack("p2", 1, 0, "g"),  # a second ack of 1/0, another value
            ack("p1", 1, 3, "h"),  # the final read has i at 1/3, h at 1/4
            final(1, 0, "e"), final(1, 1, "f"), final(1, 2, "g"), final(1, 3, "i"), final(1, 4, "h"),
            end(1, 5),
        ])
        self.assertEqual(counts(report), only("inconsistent", 4))
        self.assertFalse(report.passed)
        self.assertEqual(report.inconsistent.examples, [
            {"partition": 0, "offset": 1, "read": ["b", "x"], "acked": ["b"], "final": "b",
             "why": ["reads differ", "ack differs from a read"]},
            # bad for two reasons, counted once
            {"partition": 1, "offset": 0, "read": ["e"], "acked": ["e", "g"], "final": "e",
             "why": ["acks differ", "ack differs from final read"]},
            {"partition": 0, "offset": 3, "read": ["d"], "acked": ["d"], "final": None,
             "why": ["ack missing from final read"]},
            {"partition": 1, "offset": 3, "read": ["i"], "acked": ["h"], "final": "i",
             "why": ["ack differs from final read"]},
        ])

    def test_ack_differs_from_a_read_without_final_read(self):
        # b's offset holds x for a poll: b is lost, and its position inconsistent
        report = checker.check([ack("p0", 0, 0, "a"), ack("p0", 0, 1, "b"),
                                assign("r0", 0), poll("r0", 0, 0, "a"), poll("r0", 0, 1, "x")])
        self.assertEqual(counts(report), dict(only("inconsistent", 1), lost=1))
        self.assertEqual(report.inconsistent.examples[0]["why"], ["ack differs from a read"])

    def test_superseded_values_may_be_compacted_away(self):
        # k1 was written at 0, 2 and 4; the cleaner removed 0 and 2. k2 at 1
        # and 3: 1 is gone but nothing of k2 is later in the final read than
        # 3... and 3 is gone too: lost, as is k3's only record.
        report = checker.check([
            ksend("p0", 0, "a", "k1"), ack("p0", 0, 0, "a"),
            ksend("p0", 0, "b", "k2"), ack("p0", 0, 1, "b"),
            ksend("p0", 0, "c", "k1"), ack("p0", 0, 2, "c"),
            ksend("p0", 0, "d", "k2"), ack("p0", 0, 3, "d"),
            ksend("p0", 0, "e", "k1"), ack("p0", 0, 4, "e"),
            ksend("p0", 0, "f", "k3"), ack("p0", 0, 5, "f"),
            assign("r0", 0), poll("r0", 0, 0, "a"), poll("r0", 0, 1, "b"), poll("r0", 0, 2, "c"),
            healed(),
            final(0, 1, "b"), final(0, 4, "e"), end(0, 6),
        ])
        self.assertEqual(report.compacted, 2)  # a (read, then removed) and c
        self.assertEqual(report.lost.count, 2)  # d and f: nothing of theirs is later
        self.assertEqual([e["value"] for e in report.lost.examples], ["d", "f"])
        # b's k2 has no later record in the final read, and there it is
        self.assertEqual(report.inconsistent.count, 0)
        self.assertEqual(report.unseen.count, 1)  # e: in the final read, never polled

    def test_a_compacted_away_value_is_not_missing_from_the_final_read(self):
        records = [ksend("p0", 0, "a", "k"), ack("p0", 0, 0, "a"),
                   ksend("p0", 0, "b", "k"), ack("p0", 0, 1, "b"),
                   assign("r0", 0), poll("r0", 0, 0, "a"), poll("r0", 0, 1, "b"),
                   healed(), final(0, 1, "b"), end(0, 2)]
        report = checker.check(records)
        self.assertEqual(counts(report), only("inconsistent", 0))
        self.assertEqual(report.compacted, 1)
        # Without keys the same history is an ack missing from the final read.
        plain = [dict(r) for r in records]
        for r in plain:
            r.pop("key", None)
        self.assertEqual(counts(checker.check(plain)), only("inconsistent", 1))

    def test_a_later_record_of_the_key_at_a_lower_offset_does_not_excuse(self):
        # b was sent after a, but a's ack names a higher offset than the
        # final read's b: a cannot have been removed for b.
        report = checker.check([ksend("p0", 0, "a", "k"), ack("p0", 0, 5, "a"),
                                ksend("p0", 0, "b", "k"), ack("p0", 0, 3, "b"),
                                healed(), final(0, 3, "b"), end(0, 6)])
        self.assertEqual(report.lost.count, 1)
        self.assertEqual(report.compacted, 0)

    def test_a_committed_transaction_partly_compacted_is_not_torn(self):
        report = checker.check([
            ksend("p0", 0, "a", "k1", txn="t0"), ksend("p0", 1, "b", "k2", txn="t0"),
            txn("p0", "t0", "commit"),
            ksend("p0", 0, "c", "k1", txn="t1"), txn("p0", "t1", "commit"),
            ksend("p0", 1, "d", "k3", txn="t2"), ksend("p0", 1, "e", "k4", txn="t2"),
            txn("p0", "t2", "commit"),
            final(1, 0, "b"), final(0, 3, "c"), final(1, 5, "d"), end(0, 4), end(1, 6),
        ])
        self.assertEqual(report.compacted, 1)  # a, for c
        self.assertEqual(report.torn.count, 1)  # t2: e has no later record
        self.assertEqual(report.torn.examples[0]["missing"], ["e"])
        self.assertEqual(report.lost.count, 1)

    def test_a_poll_may_skip_superseded_records_another_replica_still_holds(self):
        # The leader g0 read from had cleaned b away (c supersedes it); the
        # final read came from a replica not cleaned yet. d was not
        # superseded: skipping it is still an anomaly.
        records = [ksend("p0", 0, "a", "k1"), ack("p0", 0, 0, "a"),
                   ksend("p0", 0, "b", "k2"), ack("p0", 0, 1, "b"),
                   ksend("p0", 0, "c", "k2"), ack("p0", 0, 2, "c"),
                   ksend("p0", 0, "d", "k3"), ack("p0", 0, 3, "d"),
                   ksend("p0", 0, "e", "k4"), ack("p0", 0, 4, "e"),
                   assign("g0", 0), poll("g0", 0, 0, "a"), poll("g0", 0, 2, "c"),
                   poll("g0", 0, 4, "e"),
                   assign("r0", 0), poll("r0", 0, 0, "a"), poll("r0", 0, 1, "b"),
                   poll("r0", 0, 2, "c"), poll("r0", 0, 3, "d"), poll("r0", 0, 4, "e"),
                   healed(), final(0, 0, "a"), final(0, 1, "b"), final(0, 2, "c"),
                   final(0, 3, "d"), final(0, 4, "e"), end(0, 5)]
        report = checker.check(records)
        self.assertEqual(counts(report), only("non_monotonic", 1))
        self.assertEqual(report.non_monotonic.examples[0]["missed"], 3)

    def test_unreplaced(self):
        report = checker.check(clean_history() + [
            pause_end(2, True, []), pause_end(3, False, [0, 2])])
        self.assertEqual(counts(report), only("unreplaced", 1))
        self.assertEqual(report.unreplaced.examples, [
            {"broker": 3, "still_led": [0, 2], "t": 0.0}])
        self.assertFalse(report.passed)

    def test_ack_not_compared_without_final_read(self):
        # partition 0 has no final or end record: nothing to compare the ack with
        report = checker.check([ack("p0", 0, 5, "a"), assign("r0", 0), poll("r0", 0, 7, "a")])
        self.assertEqual(counts(report), only("inconsistent", 0))

    def test_duplicates(self):
        records = [
            # each value's first write timed out and the retry wrote it again
            ack("p0", 0, 1, "a"), ack("p1", 1, 1, "b"),
            assign("r0", 0, 1),
            poll("r0", 0, 0, "a"), poll("r0", 0, 1, "a"), poll("r0", 1, 0, "b"), poll("r0", 1, 1, "b"),
            healed(),
            final(0, 0, "a"), final(0, 1, "a"), final(1, 0, "b"), final(1, 1, "b"),
            end(0, 2), end(1, 2),
        ]
        examples = [{"value": "a", "positions": [[0, 0], [0, 1]]},
                    {"value": "b", "positions": [[1, 0], [1, 1]]}]

        report = checker.check(records)
        self.assertEqual(counts(report), only("duplicates", 2))
        self.assertEqual(report.duplicates.examples, examples)
        self.assertTrue(report.passed)

        report = checker.check(records, idempotent=True)
        self.assertEqual(counts(report), only("duplicates", 2))
        self.assertEqual(report.duplicates.examples, examples)
        self.assertFalse(report.passed)
        self.assertEqual(report.failing, ["duplicates"])

    def test_non_monotonic(self):
        report = checker.check([
            assign("r0", 0),
            poll("r0", 0, 0, "v0"), poll("r0", 0, 1, "v1"),
            poll("r0", 0, 1, "v1"),  # repeated
            poll("r0", 0, 0, "v0"),  # backwards
            poll("r0", 0, 1, "v1"), poll("r0", 0, 2, "v2"),
            poll("r0", 0, 4, "v4"),  # skipped 3, which the final read holds
            poll("r0", 0, 5, "v5"),
            assign("r0", 0),
            poll("r0", 0, 0, "v0"),  # positions start again after an assign
            assign("r1", 0),
            poll("r1", 0, 3, "v3"),  # another proc: its own positions
            final(0, 0, "v0"), final(0, 1, "v1"), final(0, 2, "v2"),
            final(0, 3, "v3"), final(0, 4, "v4"), final(0, 5, "v5"),
            end(0, 6),
        ])
        self.assertEqual(counts(report), only("non_monotonic", 3))
        self.assertFalse(report.passed)
        self.assertEqual(report.non_monotonic.examples, [
            {"proc": "r0", "partition": 0, "offset": 1, "value": "v1", "previous": 1, "why": "repeated"},
            {"proc": "r0", "partition": 0, "offset": 0, "value": "v0", "previous": 1, "why": "backwards"},
            {"proc": "r0", "partition": 0, "offset": 4, "value": "v4", "previous": 2, "why": "skipped",
             "missed": 3},
        ])

    def test_skip_over_absent_offset_is_monotonic(self):
        report = checker.check([
            assign("r0", 0, 1),
            # 2 and 3 are not in the final read (transaction markers, say)
            poll("r0", 0, 0, "v0"), poll("r0", 0, 1, "v1"), poll("r0", 0, 4, "v4"),
            # partition 1 has no final read: no offset of it is known present
            poll("r0", 1, 0, "w0"), poll("r0", 1, 5, "w5"),
            final(0, 0, "v0"), final(0, 1, "v1"), final(0, 4, "v4"), end(0, 5),
        ])
        self.assertEqual(counts(report), only("non_monotonic", 0))
        self.assertTrue(report.passed)

    def test_unseen(self):
        records = [
            ack("p0", 0, 0, "a"), ack("p0", 0, 1, "b"), ack("p0", 0, 2, "c"),
            assign("r0", 0), poll("r0", 0, 0, "a"),
            poll("final", 0, 2, "c"),  # the final reader's polls do not count as seen
            final(0, 0, "a"), final(0, 1, "b"), final(0, 2, "c"), end(0, 3),
        ]

        report = checker.check(records)
        self.assertFalse(report.unseen_checked)
        self.assertEqual(counts(report), only("unseen", 0))
        self.assertTrue(report.passed)
        self.assertIn("unseen         0  (not checked: no healed record)", report.summary())

        report = checker.check(records + [healed()])
        self.assertTrue(report.unseen_checked)
        self.assertEqual(counts(report), only("unseen", 2))
        self.assertFalse(report.passed)
        self.assertEqual(report.unseen.examples, [
            {"partition": 0, "offset": 1, "value": "b", "proc": "p0"},
            {"partition": 0, "offset": 2, "value": "c", "proc": "p0"},
        ])

    def test_group(self):
        report = checker.check([
            commit("g0", "g1", 0, 2), commit("g0", "g1", 0, 5),
            commit("g0", "g1", 0, 3),  # backwards
            commit("g0", "g1", 0, 5),  # equal to the highest: fine
            commit("g0", "g1", 0, 6),  # past the end
            commit("g0", "g1", 0, 5),  # backwards from 6
            commit("g9", "g2", 0, 1),  # another group: its own offsets
            commit("g0", "g1", 1, 100),  # no end record for partition 1
            end(0, 5),
        ])
        self.assertEqual(counts(report), only("group", 3))
        self.assertFalse(report.passed)
        self.assertEqual(report.group.examples, [
            {"group": "g1", "partition": 0, "offset": 3, "proc": "g0", "earlier": 5, "why": ["backwards"]},
            {"group": "g1", "partition": 0, "offset": 6, "proc": "g0", "end": 5, "why": ["past end"]},
            {"group": "g1", "partition": 0, "offset": 5, "proc": "g0", "earlier": 6, "why": ["backwards"]},
        ])

    def transactional_history(self):
        """p0's t0 commits (a, b over two partitions, markers at 1 and 1),
        t1 aborts (c, d), t2's outcome is unknown and it never became
        visible (e); every consumer reads read_committed."""
        return [
            tsend("p0", 0, "a", "t0"), tsend("p0", 1, "b", "t0"),
            ack("p0", 0, 0, "a"), ack("p0", 1, 0, "b"), txn("p0", "t0", "commit"),
            tsend("p0", 0, "c", "t1"), tsend("p0", 1, "d", "t1"),
            ack("p0", 0, 2, "c"), ack("p0", 1, 2, "d"), txn("p0", "t1", "abort"),
            tsend("p0", 0, "e", "t2"), ack("p0", 0, 4, "e"), txn("p0", "t2", "unknown"),
            assign("r0", 0, 1), poll("r0", 0, 0, "a"), poll("r0", 1, 0, "b"),
            healed(),
            final(0, 0, "a"), final(1, 0, "b"), end(0, 6), end(1, 4),
        ]

    def test_transactions_clean(self):
        # Aborted and unknown values were acknowledged and are not read:
        # neither lost nor inconsistent; the jumps over markers and aborted
        # records are monotonic.
        report = checker.check(self.transactional_history(), idempotent=True)
        self.assertEqual(counts(report), {n: 0 for n in checker.ANOMALIES})
        self.assertEqual(report.transactions, 3)

    def test_committed_transaction_lost_or_torn(self):
        h = self.transactional_history()
        h.remove(final(1, 0, "b"))
        h.remove(poll("r0", 1, 0, "b"))
        report = checker.check(h, idempotent=True)
        # b is lost (acknowledged, committed, never read) and t0 is torn.
        self.assertEqual(report.lost.count, 1)
        self.assertEqual(report.torn.count, 1)
        self.assertEqual(report.torn.examples, [
            {"txn": "t0", "outcome": "commit", "visible": ["a"], "missing": ["b"]}])
        self.assertEqual(sorted(report.failing), ["lost", "torn"])

    def test_unacknowledged_value_of_a_committed_transaction_is_lost(self):
        h = [tsend("p0", 0, "a", "t0"), tsend("p0", 0, "b", "t0"), ack("p0", 0, 0, "a"),
             txn("p0", "t0", "commit"), final(0, 0, "a"), end(0, 3)]
        report = checker.check(h, idempotent=True)
        self.assertEqual(report.lost.examples,
                         [{"partition": 0, "value": "b", "proc": "p0", "txn": "t0"}])

    def test_aborted_read(self):
        h = self.transactional_history()
        h.insert(h.index(healed()), poll("r0", 0, 2, "c"))
        h.append(final(1, 2, "d"))
        report = checker.check(h, idempotent=True)
        self.assertEqual(report.aborted_read.count, 2)
        self.assertEqual(report.aborted_read.examples[0],
                         {"partition": 0, "offset": 2, "value": "c", "proc": "r0", "txn": "t1"})
        self.assertIn("aborted_read", report.failing)

    def test_unknown_outcome_is_all_or_nothing(self):
        h = [tsend("p0", 0, "a", "t0"), tsend("p0", 1, "b", "t0"), txn("p0", "t0", "unknown"),
             final(0, 0, "a"), end(0, 2), end(1, 1)]
        self.assertEqual(checker.check(h).torn.count, 1)
        h.append(final(1, 0, "b"))
        self.assertEqual(checker.check(h).torn.count, 0)

    def test_bad_records(self):
        with self.assertRaisesRegex(ValueError, r"^line 2: poll record has no 'offset' field$"):
            checker.check([ack("p0", 0, 0, "a"), rec("poll", "r0", partition=0, value="a")])
        with self.assertRaisesRegex(ValueError, r"^line 1: offset '3' is not an integer$"):
            checker.check([ack("p0", 0, "3", "a")])
        with self.assertRaisesRegex(ValueError, r"^line 1: no 'type' field$"):
            checker.check([{"proc": "p0"}])
        with self.assertRaisesRegex(ValueError, r"^line 2: not a JSON object$"):
            checker.check([healed(), [1, 2]])
        # unknown types need no fields
        self.assertTrue(checker.check([{"type": "mystery"}, {"type": ["odd"]}]).passed)


class CliTest(unittest.TestCase):
    def run_checker(self, path, *args):
        return subprocess.run([PYTHON, os.path.join(HERE, "checker.py"), path, *args],
                              capture_output=True, text=True, timeout=60)

    def write(self, directory, name, records):
        path = os.path.join(directory, name)
        with open(path, "w") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
        return path

    def test_exit_codes(self):
        with tempfile.TemporaryDirectory() as d:
            clean = self.write(d, "clean.jsonl", clean_history())
            out = self.run_checker(clean)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertTrue(out.stdout.startswith(f"{clean}: PASS\n"), out.stdout)
            out = self.run_checker(clean, "--json")
            self.assertEqual(out.returncode, 0, out.stderr)
            result = json.loads(out.stdout)
            self.assertTrue(result["passed"])
            self.assertEqual(result["totals"]["acks"], 5)

            lost = self.write(d, "lost.jsonl", clean_history() + [ack("p0", 0, 4, "z")])
            out = self.run_checker(lost)
            self.assertEqual(out.returncode, 1, out.stderr)
            self.assertIn("FAIL: lost", out.stdout)
            out = self.run_checker(lost, "--json")
            self.assertEqual(out.returncode, 1, out.stderr)
            result = json.loads(out.stdout)
            self.assertFalse(result["passed"])
            self.assertEqual(result["anomalies"]["lost"]["count"], 1)
            self.assertEqual(result["anomalies"]["lost"]["examples"],
                             [{"partition": 0, "offset": 4, "value": "z", "proc": "p0"}])

            dup = self.write(d, "dup.jsonl", clean_history() + [final(1, 2, "b1"), end(1, 3)])
            self.assertEqual(self.run_checker(dup).returncode, 0)
            self.assertEqual(self.run_checker(dup, "--idempotent").returncode, 1)

            missing = os.path.join(d, "missing.jsonl")
            garbled = os.path.join(d, "garbled.jsonl")
            with open(garbled, "w") as f:
                f.write('{"type": "send"\n')
            no_field = self.write(d, "no_field.jsonl", [healed(), rec("ack", "p0", partition=0, value="a")])
            for path, message in [(missing, "No such file"), (garbled, "line 1: not JSON (Expecting ',' delimiter)"),
                                  (no_field, "line 2: ack record has no 'offset' field")]:
                out = self.run_checker(path)
                self.assertEqual(out.returncode, 2, path)
                self.assertEqual(out.stdout, "")
                self.assertEqual(len(out.stderr.splitlines()), 1, out.stderr)
                self.assertIn(path, out.stderr)
                self.assertIn(message, out.stderr)


if __name__ == "__main__":
    unittest.main()
