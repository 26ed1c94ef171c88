#!/usr/bin/env python3
"""What a GiB written into the page cache costs the kernel, with the cache
left to grow and with it recycled behind the writes.

Writes `--gib` GiB to a new file in `--dir` in 1 MiB writes with an
fdatasync every 4 MiB, once keeping everything cached and once dropping
(POSIX_FADV_DONTNEED) what is more than `--window-mib` behind the end, as
the broker's strata.log.cache.window.bytes does, and prints the wall and
system time of every GiB.

  /usr/bin/python3 bench/page_cache_cost.py --gib 6 --idle-s 30

On a VM whose free memory is given back to the host (free page reporting,
ballooning), the first pages the cache takes after an idle spell cost a
host fault each; --idle-s waits that long before each pass so both start
from the same state.
"""
import argparse
import os
import resource
import time


def one_pass(path, gib, window):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    buf = b"x" * (1 << 20)
    pos = dropped = 0
    rows = []
    try:
        for _ in range(gib):
            r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
            for _ in range(1024):
                os.write(fd, buf)
                pos += len(buf)
                if pos % (4 << 20) == 0:
                    os.fdatasync(fd)
                    if window and pos - window > dropped:
                        os.posix_fadvise(fd, dropped, pos - window - dropped,
                                         os.POSIX_FADV_DONTNEED)
                        dropped = pos - window
            r1 = resource.getrusage(resource.RUSAGE_SELF)
            rows.append((time.monotonic() - t0, r1.ru_stime - r0.ru_stime))
    finally:
        os.close(fd)
        os.unlink(path)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--gib", type=int, default=6)
    ap.add_argument("--window-mib", type=int, default=64)
    ap.add_argument("--idle-s", type=float, default=30)
    a = ap.parse_args()
    path = os.path.join(a.dir, f"page-cache-cost-{os.getpid()}")
    for label, window in (("cache grows", 0), (f"recycled behind {a.window_mib} MiB",
                                               a.window_mib << 20)):
        time.sleep(a.idle_s)
        rows = one_pass(path, a.gib, window)
        for i, (wall, sys_s) in enumerate(rows):
            print(f"{label:>28}  GiB {i + 1}: wall {wall:5.2f} s  system {sys_s:5.2f} s")


if __name__ == "__main__":
    main()
