"""Cluster harness: etcd and N strata-broker processes on loopback, run by
scripts/cluster.sh (the script a user runs), in a fresh directory.

    with Cluster(brokers=3) as c:
        c.bootstrap                  # "127.0.0.11:9092,127.0.0.12:9092,..."
        c.address(2)                 # "127.0.0.12:9092"
        c.kill(2); c.restart(2)      # SIGKILL of broker 2; start it on its data
        c.stop(2)                    # SIGTERM, until it exited
        c.pause(2); c.resume(2)      # SIGSTOP / SIGCONT
        c.kill_etcd(); c.restart_etcd()

Brokers run with a 2 s session (broker.session.timeout.ms, etcd's minimum
lease), so a killed broker's lease runs out quickly.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "../../scripts/cluster.sh")
SCRIPT_TIMEOUT_S = 120


class Cluster:
    def __init__(self, brokers=3, broker_args="--set broker.session.timeout.ms=2000 --cores 1",
                 env=None):
        """`env`: more of cluster.sh's settings (STRATA_ETCD_PER_BROKER, ...)."""
        self.brokers = brokers
        self.dir = tempfile.mkdtemp(prefix="strata-cluster-")
        self.env = dict(os.environ, STRATA_CLUSTER_DIR=self.dir, BROKERS=str(brokers),
                        STRATA_BROKER_ARGS=broker_args, **(env or {}))
        self.bootstrap = None

    def run(self, *args):
        r = subprocess.run([SCRIPT] + list(args), env=self.env, capture_output=True,
                           timeout=SCRIPT_TIMEOUT_S)
        if r.returncode != 0:
            raise AssertionError("cluster.sh %s failed (%d):\n%s\n%s\n%s" % (
                " ".join(args), r.returncode, r.stdout.decode(), r.stderr.decode(), self.logs()))
        return r.stdout.decode()

    def up(self):
        out = self.run("up")
        last = out.strip().split("\n")[-1]
        assert last.startswith("bootstrap.servers="), out
        self.bootstrap = last[len("bootstrap.servers="):]
        return self

    def address(self, n):
        return "127.0.0.%d:9092" % (10 + n)

    def kill(self, n):
        self.run("kill", str(n))

    def restart(self, n):
        self.run("restart", str(n))

    def stop(self, n):
        self.run("stop", str(n))

    def pause(self, n):
        self.run("pause", str(n))

    def resume(self, n):
        self.run("resume", str(n))

    def partition_dir(self, n, topic, partition):
        return os.path.join(self.dir, "broker-%d" % n, "%s-%d" % (topic, partition))

    def running(self, n):
        """Whether broker n's process is alive (paused counts as alive)."""
        pid = os.path.join(self.dir, "broker-%d.pid" % n)
        try:
            with open(pid) as f:
                os.kill(int(f.read()), 0)
            return True
        except (OSError, ValueError):
            return False

    def data_dir(self, n):
        return os.path.join(self.dir, "broker-%d" % n)

    def sync_journal(self, n):
        """Broker n's journal of syncs (cluster.sh with STRATA_SYNC_JOURNAL=1)."""
        return os.path.join(self.dir, "broker-%d.syncs" % n)

    def kill_etcd(self):
        self.run("kill", "etcd")

    def restart_etcd(self):
        self.run("restart", "etcd")

    def log(self, n):
        path = os.path.join(self.dir, "broker-%d.log" % n)
        if not os.path.exists(path):
            return ""
        with open(path, errors="replace") as f:
            return f.read()

    def logs(self):
        return "\n".join("--- broker %d ---\n%s" % (n, self.log(n)[-3000:])
                         for n in range(1, self.brokers + 1))

    def __enter__(self):
        return self.up()

    def __exit__(self, *exc):
        subprocess.run([SCRIPT, "down"], env=self.env, capture_output=True, timeout=SCRIPT_TIMEOUT_S)
        if not os.environ.get("STRATA_KEEP_TEST_DIRS"):
            shutil.rmtree(self.dir, ignore_errors=True)


class ClusterTestCase(unittest.TestCase):
    """Tests sharing one three-broker cluster, up for the whole class."""

    @classmethod
    def setUpClass(cls):
        cls.cluster = Cluster(brokers=3).up()

    @classmethod
    def tearDownClass(cls):
        cls.cluster.__exit__(None, None, None)
