"""A power cut after the fact: makes a killed broker's segment files what a
real loss of power would have left, from the journal its shards kept
(`--set strata.test.sync.journal=PATH`, see io/sync_journal.h).

Replaying the journal gives, for every file the broker touched since the
journal began, how many of its bytes a sync made durable and whether its
directory entry was synced; then every such file is cut back to its
durable length, a file whose creation was never covered by a sync of its
directory is removed, and a rename never covered by one is undone. Files the journal never names are left
alone. The journal is then emptied: what is left on disk is all durable.

    python3 power_cut.py JOURNAL            # after a SIGKILL, before restart

Call it only while the broker is not running.
"""
import os
import sys


class _File:
    def __init__(self, synced, durable):
        self.synced = synced    # bytes a power cut keeps
        self.durable = durable  # the directory entry survives
        # A rename no directory sync covered yet, of a file whose entry was
        # durable under this name: a power cut puts it back there.
        self.renamed_from = None


def replay(lines):
    """The state after the journal's lines: {path: _File}."""
    files = {}
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        if not line:
            continue
        kind, _, rest = line.partition(" ")
        if kind == "open":
            # A file the journal has not seen counts as durable whole; one
            # it has seen keeps what it knew (a restart after a plain kill
            # reopens files whose tails were never synced).
            path, size = rest.rsplit(" ", 1)
            files.setdefault(path, _File(int(size), True))
        elif kind == "create":
            files[rest] = _File(0, False)
        elif kind == "sync":
            path, size = rest.rsplit(" ", 1)
            f = files.setdefault(path, _File(0, True))
            f.synced = max(f.synced, int(size))
        elif kind == "dirsync":
            for path, f in files.items():
                if os.path.dirname(path) == rest:
                    f.durable = True
                    f.renamed_from = None
        elif kind == "truncate":
            path, size = rest.rsplit(" ", 1)
            if path in files:
                files[path].synced = min(files[path].synced, int(size))
        elif kind == "remove":
            for path in [p for p in files if p == rest or p.startswith(rest + "/")]:
                del files[path]
        elif kind == "rename":
            src, dst = rest.split(" ", 1)
            f = files.pop(src, None) or _File(0, True)
            if f.durable:
                f.renamed_from = src
            f.durable = False
            files[dst] = f
        else:
            raise ValueError("journal line %d: unknown event %r" % (n, kind))
    return files


def apply(journal):
    """Cuts the files named in `journal` to what a power cut keeps and
    empties the journal. Returns (bytes cut, files removed)."""
    if not os.path.exists(journal):
        return 0, 0
    with open(journal) as f:
        files = replay(f)
    cut = removed = 0
    for path, state in files.items():
        if not os.path.exists(path):
            continue
        if not state.durable and state.renamed_from:
            # The rename is undone (a rename over a file loses that file
            # here, as in FaultFileSystem: harsher than a disk).
            os.rename(path, state.renamed_from)
            path = state.renamed_from
        elif not state.durable:
            os.remove(path)
            removed += 1
            continue
        size = os.path.getsize(path)
        if size > state.synced:
            os.truncate(path, state.synced)
            cut += size - state.synced
    open(journal, "w").close()
    return cut, removed


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: power_cut.py JOURNAL", file=sys.stderr)
        sys.exit(2)
    try:
        cut, removed = apply(sys.argv[1])
    except (OSError, ValueError) as e:
        print("power_cut.py: %s" % e, file=sys.stderr)
        sys.exit(2)
    print("cut %d bytes, removed %d files" % (cut, removed))
