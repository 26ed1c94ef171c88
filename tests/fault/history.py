"""The history of one fault run: every operation the workload's clients
did and what came back, one JSON object a line, in the order recorded.

Every record has "t" (seconds since the run began, float), "type" and
"proc" (the client that did it: "p0", "p1" for producers, "r0" for
partition readers, "g0", "g1" for group members, "final" for the final
read, "nemesis" for faults). The types:

  send    {"partition": P, "value": V}             a producer handed V to its client
                                                    (and "txn": T, the transaction
                                                    it belongs to, and "key": K, its
                                                    key on a compacted topic, if any)
  txn     {"txn": T, "outcome": O}                 how transaction T ended as its
                                                    producer was told: "commit",
                                                    "abort", or "unknown"
  ack     {"partition": P, "offset": O, "value": V} the broker acknowledged V at O
  fail    {"partition": P, "value": V, "error": E}  the client gave up on V (it may or
                                                    may not have been written)
  assign  {"partitions": [P, ...]}                 a reader's or group member's
                                                    partitions from now on; its
                                                    positions start again
  poll    {"partition": P, "offset": O, "value": V} a consumer read V at O
  commit  {"group": G, "partition": P, "offset": O} a group's commit of O (the next
                                                    offset to read) succeeded
  final   {"partition": P, "offset": O, "value": V} the final read, after healing,
                                                    from the log start
  end     {"partition": P, "offset": O}            the log end offset (high
                                                    watermark) the final read found
  healed  {}                                        the faults stopped and were undone
  nemesis {"action": A, ...}                        a fault began or ended (not checked)

Values are strings, unique per send.
"""
import json
import threading
import time


class History:
    """Appends records to a file, thread-safe, flushed line by line so a
    history survives the harness dying."""

    def __init__(self, path):
        self.path = path
        self.file = open(path, "w")
        self.lock = threading.Lock()
        self.start = time.monotonic()

    def record(self, type_, proc, **fields):
        rec = {"t": round(time.monotonic() - self.start, 4), "type": type_, "proc": proc}
        rec.update(fields)
        line = json.dumps(rec, separators=(",", ":"))
        with self.lock:
            if self.file.closed:
                return  # a client's late callback after the run ended
            self.file.write(line + "\n")
            self.file.flush()

    def close(self):
        with self.lock:
            self.file.close()


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]
