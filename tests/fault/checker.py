"""Checks the history of one fault run (see history.py for its records).

    python3 checker.py HISTORY.jsonl [--idempotent] [--json]

prints a short summary (or, with --json, one JSON object) and exits 0 when
the run passes, 1 when it does not, and 2 when the history cannot be read.
check(records) does the same work on records already loaded and returns a
Report.

A position is a (partition, offset) pair. A value is "read" when a poll or
final record holds it. The final read of a partition is its final records;
a partition has a final read when at least one final or end record names
it (an end record alone means the final read found the partition empty).
The anomalies:

  lost           An acknowledged value that no poll and no final record
                 holds, at any position. One per value.

  inconsistent   A position that is bad for any of these reasons, counted
                 once however many apply:
                   - the poll and final records at it hold different values;
                   - two acks name it with different values;
                   - an ack names it with value V, V is not lost, the
                     partition has a final read, and that read has nothing
                     at the offset or has another value there;
                   - an ack names it with value V and a poll read another
                     value there.

  duplicates     A value read at two or more positions. One per value.
                 Retried sends write duplicates until the producer is
                 idempotent, so they fail the run only with --idempotent;
                 they are counted either way.

  non_monotonic  A poll that does not follow its consumer's previous poll
                 of the same partition: the offset is not above the
                 previous one (backwards or repeated), or it jumps over an
                 offset that the partition's final read holds. Offsets the
                 final read does not hold (transaction markers, removed
                 records) may be jumped over, and on a compacted topic so
                 may superseded ones it holds: each replica cleans its own
                 copy, so the one a poll read from may have removed them.
                 An assign record starts all
                 of its consumer's positions again, so a group member that
                 re-reads after a rebalance is not counted. One per poll.

  unseen         An acknowledged value that the final read holds but no
                 live consumer (any proc other than "final") ever polled.
                 Checked only when the history has a healed record: before
                 the faults are undone the consumers may not have caught up.
                 One per value.

  aborted_read   A value of a transaction its producer aborted, read by a
                 poll or the final read (the consumers read_committed).
                 One per value.

  torn           A transaction that committed, or whose outcome is
                 unknown, of which the final read holds some values but
                 not all. One per transaction.

On a compacted topic (send records with a "key") the log cleaner removes a
record once a later record of its key is in the log. An acknowledged value
is "superseded" when the final read holds a record of its key, in its
partition, at a higher offset than its ack's (for a value without an ack:
one sent after it); a superseded value missing from the final read, or
read by no one, is neither lost nor inconsistent nor torn, and is counted
in the totals as "compacted" (which shows the cleaner ran). A value the
final read holds at another position than its ack's is still inconsistent:
the cleaner removes records, it never moves one.

In a transactional history (one with txn records) a value counts as
acknowledged only once its transaction committed: "lost" is then a value
of a committed transaction that nothing read, and the acks of other
transactions' values are not compared with the final read.

  group          A commit, per group and partition in record order, whose
                 offset is below an earlier commit's of the same group and
                 partition (backwards), or above the partition's end offset
                 (past the high watermark; the highest end record counts,
                 and only partitions with an end record are checked). A
                 commit equal to the end offset is fine: it is the next
                 offset to read. One per commit.

  unreplaced     A paused leader that the cluster did not replace while it
                 was paused: a nemesis "pause-end" record whose "replaced"
                 is false (nemesis.py waited for it and names the
                 partitions it still led). One per pause.

Every count comes with up to EXAMPLES examples. Records of unknown types
are ignored. A record of a known type that lacks one of the fields
history.py gives its type, or "proc", is an error naming its line (records
count from 1, which is the line number in a file History wrote: it writes
no blank lines); so is an offset that is not an integer, or a proc,
partition, value or group that is neither a string nor an integer.
"""
import argparse
import bisect
import json
import sys

from history import load

EXAMPLES = 5

ANOMALIES = ("lost", "inconsistent", "duplicates", "non_monotonic", "unseen", "group",
             "aborted_read", "torn", "unreplaced")

# The fields each known type must have: those history.py gives it, and
# "proc", which every record has ("t" is not needed). Other types are ignored.
REQUIRED = {
    "send": ("proc", "partition", "value"),
    "ack": ("proc", "partition", "offset", "value"),
    "fail": ("proc", "partition", "value", "error"),
    "txn": ("proc", "txn", "outcome"),
    "assign": ("proc", "partitions"),
    "poll": ("proc", "partition", "offset", "value"),
    "commit": ("proc", "group", "partition", "offset"),
    "final": ("proc", "partition", "offset", "value"),
    "end": ("proc", "partition", "offset"),
    "healed": ("proc",),
    "nemesis": ("proc", "action"),
}

# Fields used as keys: they must be strings or integers (offsets integers).
KEYS = ("proc", "partition", "value", "group", "txn")


class Finding:
    """How many times one anomaly was found, and the first few examples."""

    def __init__(self):
        self.count = 0
        self.examples = []

    def add(self, example):
        self.count += 1
        if len(self.examples) < EXAMPLES:
            self.examples.append(example)

    def to_dict(self):
        return {"count": self.count, "examples": self.examples}


class Report:
    """What check() found: a Finding per anomaly (report.lost, ...) and the
    totals of the records it read."""

    def __init__(self, idempotent, unseen_checked):
        self.idempotent = idempotent
        self.unseen_checked = unseen_checked
        for name in ANOMALIES:
            setattr(self, name, Finding())
        self.sends = self.acks = self.fails = 0
        self.polls = self.finals = self.commits = 0
        self.transactions = 0
        self.compacted = 0

    def fails_run(self, name):
        """Whether a nonzero count of this anomaly fails the run."""
        return name != "duplicates" or self.idempotent

    @property
    def failing(self):
        """The anomalies that fail this run."""
        return [n for n in ANOMALIES if getattr(self, n).count and self.fails_run(n)]

    @property
    def passed(self):
        return not self.failing

    def totals(self):
        return {n: getattr(self, n) for n in ("sends", "acks", "fails", "polls", "finals", "commits",
                                               "transactions", "compacted")}

    def to_dict(self):
        anomalies = {}
        for name in ANOMALIES:
            anomalies[name] = getattr(self, name).to_dict()
            anomalies[name]["fails_run"] = self.fails_run(name)
        anomalies["unseen"]["checked"] = self.unseen_checked
        return {"passed": self.passed, "idempotent": self.idempotent,
                "totals": self.totals(), "anomalies": anomalies}

    def summary(self):
        lines = ["PASS" if self.passed else "FAIL: " + ", ".join(self.failing)]
        lines.append("  " + ", ".join(f"{n} {v}" for n, v in self.totals().items()))
        for name in ANOMALIES:
            finding = getattr(self, name)
            note = ""
            if name == "unseen" and not self.unseen_checked:
                note = "  (not checked: no healed record)"
            elif name == "duplicates" and not self.idempotent and finding.count:
                note = "  (allowed without --idempotent)"
            lines.append(f"  {name:<14} {finding.count}{note}")
            for example in finding.examples:
                lines.append("      " + json.dumps(example))
        return "\n".join(lines)


def validate(records):
    """Raises ValueError naming the line of the first record a check could
    not use."""
    for line, rec in enumerate(records, 1):
        if not isinstance(rec, dict):
            raise ValueError(f"line {line}: not a JSON object")
        if "type" not in rec:
            raise ValueError(f"line {line}: no 'type' field")
        if not isinstance(rec["type"], str) or rec["type"] not in REQUIRED:
            continue
        for field in REQUIRED[rec["type"]]:
            if field not in rec:
                raise ValueError(f"line {line}: {rec['type']} record has no '{field}' field")
        if "offset" in rec and (not isinstance(rec["offset"], int) or isinstance(rec["offset"], bool)):
            raise ValueError(f"line {line}: offset {rec['offset']!r} is not an integer")
        for field in KEYS:
            if field in rec and not isinstance(rec[field], (str, int)):
                raise ValueError(f"line {line}: {field} {rec[field]!r} is not a string or integer")


def of_type(records, *types):
    return [r for r in records if r.get("type") in types]


def read_values(records):
    """Every value a poll or final record holds."""
    return {r["value"] for r in of_type(records, "poll", "final")}


def final_reads(records):
    """{partition: {offset: value}} for each partition that has a final read."""
    finals = {}
    for r in of_type(records, "final", "end"):
        finals.setdefault(r["partition"], {})
    for r in of_type(records, "final"):
        finals[r["partition"]][r["offset"]] = r["value"]
    return finals


def first_acks(records):
    """{value: its first ack record}, in record order."""
    acks = {}
    for r in of_type(records, "ack"):
        acks.setdefault(r["value"], r)
    return acks


class Txns:
    """The transactions of a history: each value's transaction, each
    transaction's values (in send order) and outcome."""

    def __init__(self, records):
        self.of_value, self.values, self.outcome = {}, {}, {}
        for r in of_type(records, "send"):
            if "txn" in r:
                self.of_value[r["value"]] = r["txn"]
                self.values.setdefault(r["txn"], []).append(r)
        for r in of_type(records, "txn"):
            self.outcome[r["txn"]] = r["outcome"]

    @property
    def transactional(self):
        return bool(self.outcome)

    def committed(self, value):
        """Whether `value` counts as acknowledged: outside any transaction,
        or in one that committed."""
        txn = self.of_value.get(value)
        return txn is None or self.outcome.get(txn) == "commit"


class Compaction:
    """Which values the log cleaner may have removed: see "superseded" above."""

    def __init__(self, records):
        self.key, self.order, self.partition = {}, {}, {}
        for i, r in enumerate(of_type(records, "send")):
            self.order.setdefault(r["value"], i)
            self.partition.setdefault(r["value"], r["partition"])
            if "key" in r:
                self.key[r["value"]] = r["key"]
        self.latest = {}  # (partition, key) -> the final read's last (offset, value) of the key
        for r in of_type(records, "final"):
            key = self.key.get(r["value"])
            if key is None:
                continue
            pk = (r["partition"], key)
            if pk not in self.latest or r["offset"] > self.latest[pk][0]:
                self.latest[pk] = (r["offset"], r["value"])

    def superseded(self, value, offset=None):
        """Whether the final read holds a later record of `value`'s key in
        its partition: after `offset` (its ack's), or without one, a record
        sent after it."""
        key = self.key.get(value)
        if key is None:
            return False
        latest = self.latest.get((self.partition[value], key))
        if latest is None:
            return False
        if offset is not None:
            return latest[0] > offset
        return self.order.get(latest[1], -1) > self.order[value]


def at(r):
    """The example fields of a record that names a position and value."""
    return {"partition": r["partition"], "offset": r["offset"], "value": r["value"], "proc": r["proc"]}


def check_lost(records, report, txns, compaction):
    read = read_values(records)
    acks = first_acks(records)
    in_final = {r["value"] for r in of_type(records, "final")}
    for value, ack in acks.items():
        if not txns.committed(value):
            continue
        if value not in in_final and compaction.superseded(value, ack["offset"]):
            report.compacted += 1
        elif value not in read:
            report.lost.add(at(ack))
    # A committed transaction's values were all acknowledged: one without
    # an ack is lost too if nothing read it.
    for txn, sends in txns.values.items():
        if txns.outcome.get(txn) != "commit":
            continue
        for r in sends:
            if r["value"] in acks:
                continue
            if r["value"] not in in_final and compaction.superseded(r["value"]):
                report.compacted += 1
            elif r["value"] not in read:
                report.lost.add({"partition": r["partition"], "value": r["value"],
                                 "proc": r["proc"], "txn": txn})


def check_inconsistent(records, report, txns, compaction):
    read = read_values(records)
    finals = final_reads(records)
    reads_at, polled_at, acks_at, why = {}, {}, {}, {}  # position -> values ..., reasons
    for r in of_type(records, "poll", "final"):
        reads_at.setdefault((r["partition"], r["offset"]), set()).add(r["value"])
        if r["type"] == "poll":
            polled_at.setdefault((r["partition"], r["offset"]), set()).add(r["value"])
    for r in of_type(records, "ack"):
        acks_at.setdefault((r["partition"], r["offset"]), set()).add(r["value"])

    def bad(pos, reason):
        reasons = why.setdefault(pos, [])
        if reason not in reasons:
            reasons.append(reason)

    for pos, values in reads_at.items():
        if len(values) > 1:
            bad(pos, "reads differ")
    for pos, values in acks_at.items():
        if len(values) > 1:
            bad(pos, "acks differ")
    for r in of_type(records, "ack"):
        partition, offset, value = r["partition"], r["offset"], r["value"]
        if value not in read or partition not in finals or not txns.committed(value):
            continue
        if offset not in finals[partition]:
            if not compaction.superseded(value, offset):
                bad((partition, offset), "ack missing from final read")
        elif finals[partition][offset] != value:
            bad((partition, offset), "ack differs from final read")
    for r in of_type(records, "ack"):
        pos = (r["partition"], r["offset"])
        if txns.committed(r["value"]) and polled_at.get(pos, {r["value"]}) - {r["value"]}:
            bad(pos, "ack differs from a read")

    for (partition, offset), reasons in why.items():
        final = finals.get(partition, {}).get(offset)
        report.inconsistent.add({
            "partition": partition, "offset": offset,
            "read": sorted(reads_at.get((partition, offset), ())),
            "acked": sorted(acks_at.get((partition, offset), ())),
            "final": final, "why": reasons})


def check_duplicates(records, report):
    positions = {}  # value -> positions it was read at, in record order
    for r in of_type(records, "poll", "final"):
        seen = positions.setdefault(r["value"], [])
        pos = [r["partition"], r["offset"]]
        if pos not in seen:
            seen.append(pos)
    for value, seen in positions.items():
        if len(seen) > 1:
            report.duplicates.add({"value": value, "positions": seen})


def check_non_monotonic(records, report, compaction):
    finals = final_reads(records)
    present = {p: sorted(offsets) for p, offsets in finals.items()}
    last = {}  # proc -> {partition: offset of its previous poll}
    for r in of_type(records, "assign", "poll"):
        if r["type"] == "assign":
            last[r["proc"]] = {}
            continue
        positions = last.setdefault(r["proc"], {})
        partition, offset = r["partition"], r["offset"]
        prev = positions.get(partition)
        positions[partition] = offset
        if prev is None:
            continue
        example = dict(at(r), previous=prev)
        if offset == prev:
            report.non_monotonic.add(dict(example, why="repeated"))
        elif offset < prev:
            report.non_monotonic.add(dict(example, why="backwards"))
        elif offset > prev + 1:
            # Skipped: an offset between them that the final read holds,
            # unless the cleaner may have removed it on the replica this
            # poll read from (each replica cleans its own copy).
            offsets = present.get(partition, [])
            i = bisect.bisect_right(offsets, prev)
            while i < len(offsets) and offsets[i] < offset:
                if not compaction.superseded(finals[partition][offsets[i]], offsets[i]):
                    report.non_monotonic.add(dict(example, why="skipped", missed=offsets[i]))
                    break
                i += 1


def check_unseen(records, report):
    # The final read holds only committed transactions' values (it reads
    # read_committed in a transactional run), so an unknown outcome's
    # values in it were committed too.
    if not report.unseen_checked:
        return
    in_final = {r["value"] for r in of_type(records, "final")}
    polled = {r["value"] for r in of_type(records, "poll") if r["proc"] != "final"}
    for value, ack in first_acks(records).items():
        if value in in_final and value not in polled:
            report.unseen.add(at(ack))


def check_aborted_read(records, report, txns):
    for r in of_type(records, "poll", "final"):
        txn = txns.of_value.get(r["value"])
        if txn is not None and txns.outcome.get(txn) == "abort":
            report.aborted_read.add(dict(at(r), txn=txn))


def check_torn(records, report, txns, compaction):
    in_final = {r["value"] for r in of_type(records, "final")}
    if not of_type(records, "final", "end"):
        return  # no final read to judge by
    for txn, sends in txns.values.items():
        if txns.outcome.get(txn) not in ("commit", "unknown"):
            continue
        visible = [r["value"] for r in sends if r["value"] in in_final]
        missing = [r["value"] for r in sends
                   if r["value"] not in in_final and not compaction.superseded(r["value"])]
        if visible and missing:
            report.torn.add({"txn": txn, "outcome": txns.outcome[txn],
                             "visible": visible, "missing": missing})


def check_group(records, report):
    ends = {}
    for r in of_type(records, "end"):
        ends[r["partition"]] = max(r["offset"], ends.get(r["partition"], r["offset"]))
    highest = {}  # (group, partition) -> highest commit so far
    for r in of_type(records, "commit"):
        key = (r["group"], r["partition"])
        offset = r["offset"]
        example = {"group": r["group"], "partition": r["partition"], "offset": offset, "proc": r["proc"]}
        why = []
        if key in highest and offset < highest[key]:
            why.append("backwards")
            example["earlier"] = highest[key]
        if r["partition"] in ends and offset > ends[r["partition"]]:
            why.append("past end")
            example["end"] = ends[r["partition"]]
        if why:
            example["why"] = why
            report.group.add(example)
        highest[key] = max(offset, highest.get(key, offset))


def check_unreplaced(records, report):
    for r in of_type(records, "nemesis"):
        if r["action"] == "pause-end" and r.get("replaced") is False:
            report.unreplaced.add({"broker": r.get("broker"), "still_led": r.get("still_led"),
                                   "t": r.get("t")})


def check(records, idempotent=False):
    """The Report on a history's records (dicts, in file order). Raises
    ValueError, naming the line, on a record the checks cannot use."""
    validate(records)
    report = Report(idempotent, unseen_checked=bool(of_type(records, "healed")))
    report.sends = len(of_type(records, "send"))
    report.acks = len(of_type(records, "ack"))
    report.fails = len(of_type(records, "fail"))
    report.polls = len(of_type(records, "poll"))
    report.finals = len(of_type(records, "final"))
    report.commits = len(of_type(records, "commit"))
    txns = Txns(records)
    report.transactions = len(txns.outcome)
    compaction = Compaction(records)
    check_lost(records, report, txns, compaction)
    check_inconsistent(records, report, txns, compaction)
    check_duplicates(records, report)
    check_non_monotonic(records, report, compaction)
    check_unseen(records, report)
    check_group(records, report)
    check_aborted_read(records, report, txns)
    check_torn(records, report, txns, compaction)
    check_unreplaced(records, report)
    return report


def bad_line(path):
    """The number of the first line of the file that is not JSON."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                if line.strip():
                    json.loads(line)
            except ValueError:
                return n
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description="Checks a fault run's history.")
    parser.add_argument("history", help="the run's history, JSON lines")
    parser.add_argument("--idempotent", action="store_true",
                        help="the producers are idempotent: duplicates fail the run")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        report = check(load(args.history), idempotent=args.idempotent)
    except OSError as e:
        print(f"checker: {args.history}: {e.strerror or e}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as e:
        # its position is within one line's text, not the file
        print(f"checker: {args.history}: line {bad_line(args.history)}: not JSON ({e.msg})",
              file=sys.stderr)
        return 2
    except ValueError as e:  # also bad UTF-8
        print(f"checker: {args.history}: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_dict(), sort_keys=True))
    else:
        print(f"{args.history}: {report.summary()}")
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
