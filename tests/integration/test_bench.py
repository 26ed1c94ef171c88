"""strata-bench's own accounting: a short run of each driver against its real
server, where everything produced must be counted consumed by every group.

No timing is asserted; throughput and latency belong to bench/.
"""
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from harness import Broker, free_port

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.environ.get("STRATA_BENCH", os.path.join(HERE, "../../build/bench/strata_bench/strata-bench"))
RUN_TIMEOUT_S = 180


def wait_for_port(proc, port, log_path, timeout_s=30):
    import socket
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("server exited:\n" + open(log_path).read())
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise RuntimeError("server not listening on %d:\n%s" % (port, open(log_path).read()))


class Server:
    """redis-server or nats-server on a free port in a temp dir."""

    def __init__(self, argv_for):
        self.tmp = tempfile.mkdtemp(prefix="strata-bench-it-")
        self.port = free_port()
        self.log_path = os.path.join(self.tmp, "server.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(argv_for(self.port, self.tmp), stdout=self.log, stderr=subprocess.STDOUT)
        wait_for_port(self.proc, self.port, self.log_path)

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


class BenchAccountingTest(unittest.TestCase):
    # Small and short: 2 producers, 4 partitions, 2 groups of 2 members.
    WORKLOAD = ["--partitions", "4", "--producers", "2", "--rate", "2000", "--message-size", "256",
                "--groups", "2", "--consumers-per-group", "2", "--warmup", "1", "--duration", "2",
                "--drain-timeout", "60", "--quiet", "--json"]

    def run_bench(self, driver, url, pid, extra=()):
        argv = [BENCH, "--driver", driver, "--url", url, "--watch-pid", str(pid)] + self.WORKLOAD + list(extra)
        r = subprocess.run(argv, capture_output=True, timeout=RUN_TIMEOUT_S)
        out = r.stdout.decode()
        self.assertEqual(r.returncode, 0, "strata-bench failed:\n%s\n%s" % (out, r.stderr.decode()))
        return json.loads(out)

    def check_accounting(self, res):
        produce = res["produce"]
        self.assertGreater(produce["sent"], 1000, res)
        self.assertEqual(produce["failed"], 0, res)
        self.assertEqual(produce["acked"], produce["sent"], res)
        self.assertEqual(len(res["groups"]), 2)
        for g in res["groups"]:
            self.assertTrue(g["drained"], res)
            self.assertEqual(g["unique"], produce["sent"], res)
            self.assertEqual(g["missing"], 0, res)
            self.assertEqual(g["foreign"], 0, res)
            self.assertEqual(g["received"], g["unique"] + g["duplicates"], res)
        self.assertTrue(res["accounting_ok"], res)
        self.assertEqual(res["errors"], [], res)
        # The watched server's CPU and memory were read from /proc.
        self.assertEqual(len(res["processes"]), 1)
        self.assertGreater(res["processes"][0]["peak_rss_mib"], 0)

    def test_kafka_driver_against_strata(self):
        with Broker(extra_args=["--set", "group.initial.rebalance.delay.ms=0"]) as b:
            res = self.run_bench("kafka", b.bootstrap, b.proc.pid, ["--acks", "all", "--keys", "uniform"])
            self.check_accounting(res)
            self.assertEqual(res["processes"][0]["name"], "strata-broker")
            self.assertEqual(res["driver"], "kafka")

    def test_redis_streams_driver(self):
        s = Server(lambda port, d: ["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                                    "--save", "", "--appendonly", "no", "--dir", d])
        try:
            self.check_accounting(self.run_bench("redis-streams", "redis://127.0.0.1:%d" % s.port, s.proc.pid))
        finally:
            s.close()

    def test_nats_jetstream_driver(self):
        s = Server(lambda port, d: ["nats-server", "-js", "-a", "127.0.0.1", "-p", str(port), "-sd", d])
        try:
            self.check_accounting(self.run_bench("nats-jetstream", "nats://127.0.0.1:%d" % s.port, s.proc.pid))
        finally:
            s.close()

    def test_bad_usage_is_exit_2_with_one_line(self):
        for argv, says in [
            (["--driver", "carrier-pigeon"], "unknown driver 'carrier-pigeon'"),
            (["--driver", "kafka", "--acks", "2"], "acks must be 0, 1 or all"),
            (["--driver", "kafka", "--message-size", "4"], "message_size must be"),
            (["--driver", "kafka", "-D", "novalue"], "-D wants key=value"),
            (["--driver", "kafka", "--workload", "/nonexistent.yaml"], "/nonexistent.yaml"),
            (["--rate", "10"], "--driver is required"),
        ]:
            r = subprocess.run([BENCH] + argv, capture_output=True, timeout=60)
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 2, (argv, err))
            self.assertIn(says, err)
            self.assertEqual(len(err.strip().split("\n")), 1, err)


if __name__ == "__main__":
    unittest.main()
