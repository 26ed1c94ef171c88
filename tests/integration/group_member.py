"""One confluent-kafka consumer-group member, run as its own process by
test_groups.py (/usr/bin/python3 group_member.py --bootstrap ... --group ...)
and, with the PyPI client and --protocol consumer (KIP-848), by
test_consumer_groups.py.

It subscribes and prints one JSON line on stdout (flushed) for each event:

  {"event": "started", "pid": n}
  {"event": "assign"|"revoke"|"lost", "delta": [[topic, partition], ...],
   "assignment": [[topic, partition], ...], "incremental": bool, "t": seconds}
      after each rebalance callback; "assignment" is what the member owns
      once the callback is applied (eager protocols: assign gives the whole
      set and revoke empties it; cooperative-sticky and the consumer
      protocol: assign adds and revoke removes the delta); "t" is the wall
      clock when the callback ran.
  {"event": "message", "topic", "partition", "offset", "value", "t"}
      for every message processed, printed before its offset is committed.
  {"event": "committed", "offsets": [[topic, partition, offset], ...]}
  {"event": "commit_failed", "error": str}
  {"event": "stats", "cgrp": {...}}      librdkafka's cgrp statistics, every 250 ms
  {"event": "error", "error": str}       a consumer error
  {"event": "closed"}                    consumer.close() returned

Commands, one per line on stdin:
  close   consumer.close() (a dynamic member sends LeaveGroup; librdkafka does
          not for a static member), print "closed", exit 0.
SIGTERM and end of stdin do the same. librdkafka's debug log (--debug) goes
to stderr.
"""
import argparse
import json
import queue
import signal
import sys
import threading
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition


def emit(**event):
    sys.stdout.write(json.dumps(event, sort_keys=True) + "\n")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--group", required=True)
    ap.add_argument("--topic", action="append", required=True)
    ap.add_argument("--strategy", default="range")
    ap.add_argument("--instance-id")
    ap.add_argument("--client-id", default="group-member")
    ap.add_argument("--session-timeout-ms", type=int, default=6000)
    ap.add_argument("--heartbeat-interval-ms", type=int, default=500)
    ap.add_argument("--commit", choices=("sync", "none"), default="sync")
    ap.add_argument("--protocol", choices=("classic", "consumer"), default="classic")
    ap.add_argument("--debug", default="")
    args = ap.parse_args()

    commands = queue.Queue()

    def read_stdin():
        for line in sys.stdin:
            commands.put(line.strip())
        commands.put("close")

    threading.Thread(target=read_stdin, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: commands.put("close"))

    cooperative = args.strategy == "cooperative-sticky" or args.protocol == "consumer"
    owned = set()

    def on_change(kind):
        def cb(consumer, partitions):
            delta = {(tp.topic, tp.partition) for tp in partitions}
            if kind == "assign":
                if cooperative:
                    owned.update(delta)
                else:
                    owned.clear()
                    owned.update(delta)
            else:
                if cooperative:
                    owned.difference_update(delta)
                else:
                    owned.clear()
            emit(event=kind, delta=sorted(delta), assignment=sorted(owned), incremental=cooperative,
                 t=time.time())
        return cb

    def on_stats(raw):
        cgrp = json.loads(raw).get("cgrp") or {}
        emit(event="stats", cgrp={k: cgrp.get(k) for k in
                                  ("state", "join_state", "rebalance_cnt", "assignment_size")})

    conf = {
        "bootstrap.servers": args.bootstrap,
        "group.id": args.group,
        "client.id": args.client_id,
        "enable.auto.commit": False,
        "enable.auto.offset.store": False,
        "auto.offset.reset": "earliest",
        "fetch.wait.max.ms": 50,
        "topic.metadata.refresh.interval.ms": 2000,
        "statistics.interval.ms": 250,
        "stats_cb": on_stats,
        "error_cb": lambda err: emit(event="error", error=str(err)),
    }
    if args.protocol == "consumer":
        # The coordinator assigns and sets the session and heartbeat interval.
        conf["group.protocol"] = "consumer"
    else:
        conf.update({"partition.assignment.strategy": args.strategy,
                     "session.timeout.ms": args.session_timeout_ms,
                     "heartbeat.interval.ms": args.heartbeat_interval_ms})
    if args.instance_id:
        conf["group.instance.id"] = args.instance_id
    if args.debug:
        conf["debug"] = args.debug
    consumer = Consumer(conf)
    emit(event="started", pid=__import__("os").getpid())
    consumer.subscribe(args.topic, on_assign=on_change("assign"), on_revoke=on_change("revoke"),
                       on_lost=on_change("lost"))
    while True:
        try:
            cmd = commands.get_nowait()
        except queue.Empty:
            cmd = None
        if cmd == "close":
            break
        msgs = consumer.consume(num_messages=500, timeout=0.1)
        next_offsets = {}
        for m in msgs:
            err = m.error()
            if err is not None:
                if err.code() != KafkaError._PARTITION_EOF:
                    emit(event="error", error=str(err))
                continue
            value = m.value()
            emit(event="message", topic=m.topic(), partition=m.partition(), offset=m.offset(),
                 value=None if value is None else value.decode("utf-8", "replace"), t=time.time())
            next_offsets[(m.topic(), m.partition())] = m.offset() + 1
        if next_offsets and args.commit == "sync":
            tps = [TopicPartition(t, p, o) for (t, p), o in sorted(next_offsets.items())]
            try:
                res = consumer.commit(offsets=tps, asynchronous=False)
                failed = [str(tp) for tp in res if tp.error is not None]
                if failed:
                    emit(event="commit_failed", error="; ".join(failed))
                else:
                    emit(event="committed", offsets=[[tp.topic, tp.partition, tp.offset] for tp in res])
            except KafkaException as e:
                emit(event="commit_failed", error=str(e.args[0]))
    consumer.close()
    emit(event="closed")


if __name__ == "__main__":
    main()
