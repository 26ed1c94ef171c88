"""Test harness: real strata-broker processes on loopback.

    with Broker() as b:                      # fresh data dir, free port
        b.bootstrap                          # "127.0.0.1:<port>"
        b.kill()                             # SIGKILL
        b.start()                            # same data dir and port again

The broker binary comes from $STRATA_BROKER (set by ctest). Every wait is
bounded; a broker that does not come up fails the test with its log.
"""
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time

BROKER = os.environ.get("STRATA_BROKER", os.path.join(os.path.dirname(__file__), "../../build/server/strata-broker"))
START_TIMEOUT_S = 30
STOP_TIMEOUT_S = 30


def _ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port():
    """A loopback port nobody has bound, below the kernel's ephemeral range:
    a broker restarted on its port after a kill must not find it taken by
    some other test's outgoing connection (the kernel hands those out of the
    ephemeral range), which would fail its start with EADDRINUSE."""
    rng = random.SystemRandom()
    low = _ephemeral_low()
    for _ in range(200):
        port = rng.randrange(10000, max(10001, low))
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    def __init__(self, extra_args=(), cores=2, data_dir=None, listen_host="127.0.0.1"):
        """`listen_host`: the address to bind (0.0.0.0: every address, with
        the bootstrap address advertised)."""
        self.extra_args = list(extra_args)
        self.listen_host = listen_host
        self.cores = cores
        self.tmp = tempfile.mkdtemp(prefix="strata-it-")
        self.data_dir = data_dir or os.path.join(self.tmp, "data")
        self.port = free_port()
        # The schema registry on a port of its own (8081 would clash
        # between brokers the tests run side by side).
        self.registry_port = free_port()
        self.proc = None
        self.log_path = None
        self.starts = 0

    @property
    def bootstrap(self):
        return "127.0.0.1:%d" % self.port

    @property
    def registry_url(self):
        return "http://127.0.0.1:%d" % self.registry_port

    def start(self):
        assert self.proc is None, "broker already running"
        self.starts += 1
        self.log_path = os.path.join(self.tmp, "broker-%d.log" % self.starts)
        args = [BROKER, "--data-dir", self.data_dir, "--cores", str(self.cores)]
        if self.listen_host == "127.0.0.1":
            args += ["--listen", self.bootstrap]
        else:
            args += ["--listen", "%s:%d" % (self.listen_host, self.port),
                     "--advertised", self.bootstrap]
        args += ["--set", "schema.registry.listeners=127.0.0.1:%d" % self.registry_port]
        args += self.extra_args
        self.log_file = open(self.log_path, "w")
        self.proc = subprocess.Popen(args, stdout=self.log_file, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT_S
        # Ready when the broker says it is serving (it logs after listening).
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("broker exited with %d:\n%s" % (self.proc.returncode, self.log()))
            if "serving" in self.log():
                return self
            time.sleep(0.02)
        raise RuntimeError("broker did not start within %ds:\n%s" % (START_TIMEOUT_S, self.log()))

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def wait_for_log(self, text, timeout=30):
        """The log once it holds `text` (lines the broker writes from another
        thread than the one that answered the client); fails after `timeout`
        seconds."""
        deadline = time.monotonic() + timeout
        while True:
            log = self.log()
            if text in log:
                return log
            if time.monotonic() >= deadline:
                raise AssertionError("%r not in the broker's log within %ds:\n%s" % (text, timeout, log[-4000:]))
            time.sleep(0.05)

    def stop(self):
        """SIGTERM and wait; returns the exit code."""
        if self.proc is None:
            return None
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=STOP_TIMEOUT_S)
        self.proc = None
        self.log_file.close()
        return code

    def kill(self):
        """SIGKILL: nothing is flushed or closed."""
        if self.proc is None:
            return
        self.proc.kill()
        self.proc.wait(timeout=STOP_TIMEOUT_S)
        self.proc = None
        self.log_file.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        if self.proc is not None:
            self.kill()
        if not os.environ.get("STRATA_KEEP_TEST_DIRS"):
            shutil.rmtree(self.tmp, ignore_errors=True)


def fill(path):
    """Takes every free byte of the file system holding `path` into a file
    there (a full disk); returns how many."""
    taken = 0
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for chunk in (1 << 20, 4096):
            while True:
                try:
                    os.posix_fallocate(fd, taken, chunk)
                    taken += chunk
                except OSError:
                    break
    finally:
        os.close(fd)
    return taken
