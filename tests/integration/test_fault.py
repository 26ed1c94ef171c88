"""A bounded selection of the fault harness (tests/fault/): every nemesis
at least once against etcd and three brokers, and SIGKILL and simulated
power cuts against one broker, each run checked by the checker — nothing
acknowledged lost, no offset holding two values, no consumer going
backwards or skipping, every acknowledged message seen by the consumers
after healing, no group commit going backwards or past the high watermark;
in the kill run the producers are idempotent, and no value is stored twice;
in the pause and partition run they are transactional, and read_committed
consumers read no aborted value and no part of a transaction without the
rest.
Power cuts run on fsync topics and, one broker at a time, on replicated
ones; a full disk leaves its broker running while leadership moves off it.

The seed of each run is printed; STRATA_FAULT_SEED replays it.
tests/fault/run.sh runs longer and more runs by hand.
"""
import os
import random
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../fault"))

import run as fault_run  # noqa: E402
from history import load  # noqa: E402


@unittest.skipUnless(os.geteuid() == 0, "packet filters and tmpfs mounts need root")
class FaultTest(unittest.TestCase):

    def run_faults(self, nemeses, seconds, brokers=3, durability="fsync", idempotent=False,
                   transactional=False, compact=False):
        """One run; returns its history's nemesis records. Its directory
        (history, verdict, broker logs) is kept only when the run failed;
        the callers' own checks of the nemesis records name them in
        self.why."""
        seed = int(os.environ.get("STRATA_FAULT_SEED") or random.SystemRandom().randrange(1 << 31))
        out = tempfile.mkdtemp(prefix="strata-fault-")
        argv = ["--seed", str(seed), "--seconds", str(seconds), "--nemesis", ",".join(nemeses),
                "--brokers", str(brokers), "--durability", durability, "--out", out]
        argv += ["--idempotent"] if idempotent else []
        argv += ["--transactional"] if transactional else []
        argv += ["--compact"] if compact else []
        report = fault_run.run(fault_run.main_args(argv))
        why = "seed %d, history and logs in %s:\n%s" % (seed, out, report.summary())
        self.assertTrue(report.passed, why)
        names = ["lost", "inconsistent", "non_monotonic", "unseen", "group", "unreplaced"]
        if transactional:
            names += ["aborted_read", "torn"]
            self.assertGreater(report.transactions, 0, why)
        for name in names + (["duplicates"] if idempotent or transactional else []):
            self.assertEqual(getattr(report, name).count, 0, why)
        self.assertGreater(report.acks, 0, why)
        for kind in nemeses:
            self.assertGreater(report.faults.get(kind, 0), 0, "%s never injected; %s" % (kind, why))
        if compact:
            # The cleaner removed superseded records while the faults went on.
            self.assertGreater(report.compacted, 0, why)
        records = [r for r in load(os.path.join(out, "history.jsonl")) if r["type"] == "nemesis"]
        self.why = "seed %d; its faults: %s" % (seed, records)
        shutil.rmtree(out, ignore_errors=True)
        return records

    def test_kills_and_power_cuts_of_brokers(self):
        # Idempotent producers: a send retried to a new leader after its
        # first copy reached the old one is stored once (the followers knew
        # the producer from the batches they copied).
        # A compacted topic: the log cleaner runs under the faults.
        self.run_faults(["kill-leader", "kill-follower", "kill-controller", "power-cut"], 12,
                        idempotent=True, compact=True)

    def test_power_cuts_of_one_broker_at_a_time_on_replicated_topics(self):
        # durability=replicated: acknowledged once every in-sync replica
        # holds it, synced or not; one broker losing what it had not synced
        # loses nothing acknowledged. The cuts must have cut something.
        faults = self.run_faults(["power-cut", "kill-random"], 10, durability="replicated")
        cuts = [f for f in faults if f["action"] == "power-cut"]
        self.assertGreater(sum(f["bytes_cut"] + f["files_removed"] for f in cuts), 0, self.why)

    def test_a_full_disk_moves_leadership_off_its_broker(self):
        faults = self.run_faults(["disk-full"], 4)
        ends = [f for f in faults if f["action"] == "disk-full-end"]
        self.assertTrue(ends, self.why)
        for f in ends:
            # Still running, saying why, and leading none of the topic's
            # partitions (each had other in-sync replicas).
            self.assertTrue(f["alive"], self.why)
            self.assertTrue(f["storage_failure_logged"], self.why)
            self.assertEqual(f["leads"], 0, self.why)

    def test_pauses_partitions_and_etcd_loss(self):
        # Transactional producers (one transaction in four aborted) and
        # read_committed consumers: no aborted read, no torn transaction,
        # nothing committed lost, nothing stored twice.
        faults = self.run_faults(["pause", "partition", "partition-etcd", "one-way", "kill-etcd"],
                                 15, transactional=True)
        # Each paused leader was replaced while it slept (the checker's
        # "unreplaced" counts the others).
        ends = [f for f in faults if f["action"] == "pause-end"]
        self.assertTrue(ends, self.why)
        self.assertTrue(all(f["replaced"] for f in ends), self.why)

    def test_one_broker_killed_and_power_cut(self):
        self.run_faults(["kill-random", "power-cut"], 8, brokers=1)


if __name__ == "__main__":
    unittest.main()
