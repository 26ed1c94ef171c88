"""kcat (librdkafka 2.0.2) against a real broker."""
import os
import subprocess
import tempfile
import time
import unittest

from harness import Broker

KCAT = "kcat"


def kcat(broker, *args, stdin=None, timeout=60):
    r = subprocess.run([KCAT, "-b", broker.bootstrap] + list(args), input=stdin,
                       capture_output=True, timeout=timeout)
    if r.returncode != 0:
        raise AssertionError("kcat %s failed (%d): %s" % (args, r.returncode, r.stderr.decode()))
    return r.stdout


class KcatTest(unittest.TestCase):
    def setUp(self):
        self.broker = Broker().start()

    def tearDown(self):
        self.broker.__exit__(None, None, None)

    def test_ten_thousand_keyed_messages_with_headers_round_trip_byte_for_byte(self):
        n = 10000
        # Values with bytes that need care: tabs, quotes, high bytes, empty.
        lines = []
        for i in range(n):
            value = ("value-%d\t\"q\"-\u00e9-" % i) + ("x" * (i % 300))
            lines.append("key-%d|%s" % (i, value))
        data = ("\n".join(lines) + "\n").encode()
        with tempfile.NamedTemporaryFile() as f:
            f.write(data)
            f.flush()
            kcat(self.broker, "-P", "-t", "keyed", "-K", "|", "-H", "source=file", "-H", "n=1",
                 "-l", f.name)
        out = kcat(self.broker, "-C", "-t", "keyed", "-e", "-q", "-f", "%k|%s|%h|%o\n")
        got = out.decode().split("\n")[:-1]
        self.assertEqual(len(got), n)
        for i, line in enumerate(got):
            key, value, headers, offset = line.split("|")
            want_key, want_value = lines[i].split("|", 1)
            self.assertEqual((key, value), (want_key, want_value))
            self.assertEqual(headers, "source=file,n=1")
            self.assertEqual(int(offset), i)

    def test_metadata_lists_broker_and_topics(self):
        kcat(self.broker, "-P", "-t", "meta-a", stdin=b"x\n")
        out = kcat(self.broker, "-L").decode()
        self.assertIn("broker 1 at %s" % self.broker.bootstrap, out)
        self.assertIn('topic "meta-a" with 1 partitions', out)
        self.assertIn("partition 0, leader 1, replicas: 1, isrs: 1", out)

    def test_offsets_for_timestamps(self):
        # kcat cannot set timestamps: produce two messages, read back the
        # CreateTime librdkafka gave them, and query by those times.
        before = int(time.time() * 1000) - 1
        kcat(self.broker, "-P", "-t", "times", stdin=b"a\n")
        kcat(self.broker, "-P", "-t", "times", stdin=b"b\n")
        out = kcat(self.broker, "-C", "-t", "times", "-e", "-q", "-f", "%o %T\n").decode()
        stamps = [(int(o), int(t)) for o, t in (line.split() for line in out.strip().split("\n"))]
        self.assertEqual([o for o, _ in stamps], [0, 1])
        for _, ts in stamps:
            want = min(o for o, t in stamps if t >= ts)
            q = kcat(self.broker, "-Q", "-t", "times:0:%d" % ts).decode()
            self.assertIn("offset %d" % want, q)
        q = kcat(self.broker, "-Q", "-t", "times:0:%d" % before).decode()
        self.assertIn("offset 0", q)
        q = kcat(self.broker, "-Q", "-t", "times:0:%d" % (stamps[1][1] + 100000)).decode()
        self.assertIn("offset -1", q)


if __name__ == "__main__":
    unittest.main()
