"""The fault workload's clients, each a thread recording into a History:

- Producer: acks=all sends of unique values ("p0-17") spread round-robin
  over the topic's partitions, at a bounded rate, records send, and ack or
  fail from the delivery report. With `keys` (a compacted topic) each send
  has a key too, one of `keys` per producer and partition ("p0-k3"), so
  later sends of a key supersede earlier ones for the log cleaner.
- TxnProducer: the same sends in transactions of TXN_SIZE (a
  transactional.id per producer), each committed — or, one in ABORT_EVERY,
  aborted — and its outcome recorded: commit, abort, or unknown when the
  client could not say (a fatal error: the producer is then replaced by a
  new instance with the same id, which fences the old one).
- Reader: assign()s every partition from the log start and polls
  (read_committed in transactional runs),
  recording each message (it never commits).
- GroupMember: a member of one consumer group subscribed to the topic; it
  records each assignment and message, and every few polls commits its
  positions synchronously, recording what the broker accepted.

All are confluent-kafka (librdkafka) clients with their usual retries;
none of them is told about the faults.
"""
import threading
import time

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition

# Long enough that a send outlives any single fault; the run flushes every
# producer before the final read, so nothing stays in doubt.
MESSAGE_TIMEOUT_MS = 90000


def key_of(proc, sent, partitions, keys):
    """The key of a producer's `sent`-th send (round-robin over the
    partitions, so a key stays in one partition), or None without keys."""
    if not keys:
        return None
    return "%s-k%d" % (proc, (sent // partitions) % keys)


def produce(producer, history, proc, topic, partition, value, key, report, **fields):
    """Hands one send to the client and records it (raises BufferError,
    recording nothing, when the client's queue is full)."""
    producer.produce(topic, value=value.encode(), key=None if key is None else key.encode(),
                     partition=partition, on_delivery=report)
    if key is not None:
        fields["key"] = key
    history.record("send", proc, partition=partition, value=value, **fields)


class Producer_:
    def __init__(self, history, proc, bootstrap, topic, partitions, rate, conf=None, keys=0):
        self.history, self.proc, self.topic, self.keys = history, proc, topic, keys
        self.partitions, self.interval = partitions, 1.0 / rate
        c = {"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 2, "log_level": 0,
             "message.timeout.ms": MESSAGE_TIMEOUT_MS, "retry.backoff.ms": 100,
             "socket.timeout.ms": 10000, "topic.metadata.refresh.interval.ms": 1000}
        c.update(conf or {})
        self.producer = Producer(c)
        self.sent = 0
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def report(self, err, msg):
        value = msg.value().decode()
        if err is not None:
            self.history.record("fail", self.proc, partition=msg.partition(), value=value,
                                error=str(err))
        else:
            self.history.record("ack", self.proc, partition=msg.partition(),
                                offset=msg.offset(), value=value)

    def run(self):
        next_send = time.monotonic()
        while self.running:
            p = self.sent % self.partitions
            value = "%s-%d" % (self.proc, self.sent)
            try:
                produce(self.producer, self.history, self.proc, self.topic, p, value,
                        key_of(self.proc, self.sent, self.partitions, self.keys), self.report)
                self.sent += 1
            except BufferError:
                pass
            next_send += self.interval
            self.producer.poll(max(0.0, next_send - time.monotonic()))

    def stop(self, timeout):
        """Stops sending and waits for every delivery report; returns how
        many were still unanswered after `timeout` seconds."""
        self.running = False
        self.thread.join(timeout)
        return self.producer.flush(timeout)


class TxnProducer:
    TXN_SIZE = 5
    ABORT_EVERY = 4
    CALL_TIMEOUT_S = 60  # one init, commit or abort; a fault outlasts none of them twice

    def __init__(self, history, proc, bootstrap, topic, partitions, rate, keys=0):
        self.history, self.proc, self.topic, self.keys = history, proc, topic, keys
        self.partitions, self.interval = partitions, self.TXN_SIZE / rate
        self.conf = {"bootstrap.servers": bootstrap, "transactional.id": "fault-" + proc,
                     "acks": "all", "linger.ms": 2, "log_level": 0,
                     "message.timeout.ms": MESSAGE_TIMEOUT_MS,
                     "transaction.timeout.ms": MESSAGE_TIMEOUT_MS,
                     "retry.backoff.ms": 100, "socket.timeout.ms": 10000,
                     "topic.metadata.refresh.interval.ms": 1000}
        self.producer = None
        self.sent = 0
        self.txns = 0
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def report(self, err, msg):
        value = msg.value().decode()
        if err is not None:
            self.history.record("fail", self.proc, partition=msg.partition(), value=value,
                                error=str(err))
        else:
            self.history.record("ack", self.proc, partition=msg.partition(),
                                offset=msg.offset(), value=value)

    def fresh_producer(self):
        """A new instance with the id: its init fences the old one and
        aborts what the old one left open."""
        p = Producer(self.conf)
        p.init_transactions(self.CALL_TIMEOUT_S)
        return p

    def end(self, txn, commit):
        """Commits or aborts the transaction in progress; returns the outcome."""
        p = self.producer
        if not commit:
            p.abort_transaction(self.CALL_TIMEOUT_S)
            return "abort"
        deadline = time.monotonic() + 2 * self.CALL_TIMEOUT_S
        while True:
            try:
                p.commit_transaction(self.CALL_TIMEOUT_S)
                return "commit"
            except KafkaException as e:
                err = e.args[0]
                if err.retriable() and time.monotonic() < deadline:
                    continue  # the same commit may be asked again
                if err.txn_requires_abort():
                    p.abort_transaction(self.CALL_TIMEOUT_S)
                    return "abort"
                raise

    def run(self):
        next_txn = time.monotonic()
        while self.running:
            if self.producer is None:
                try:
                    self.producer = self.fresh_producer()
                except KafkaException:
                    time.sleep(0.5)  # the cluster is not answering: try again
                    continue
            txn = "%s-t%d" % (self.proc, self.txns)
            commit = self.txns % self.ABORT_EVERY != self.ABORT_EVERY - 1
            self.txns += 1
            began = False
            try:
                self.producer.begin_transaction()
                began = True
                for _ in range(self.TXN_SIZE):
                    p = self.sent % self.partitions
                    value = "%s-%d" % (self.proc, self.sent)
                    key = key_of(self.proc, self.sent, self.partitions, self.keys)
                    while True:
                        try:
                            produce(self.producer, self.history, self.proc, self.topic, p,
                                    value, key, self.report, txn=txn)
                            break
                        except BufferError:
                            self.producer.poll(0.1)
                    self.sent += 1
                outcome = self.end(txn, commit)
            except KafkaException:
                # Fatal, or an abort that failed: whether this transaction
                # committed is not known to the client. A new instance fences
                # this one; the coordinator aborts what it left open.
                outcome = "unknown"
                self.producer = None
            if began:
                self.history.record("txn", self.proc, txn=txn, outcome=outcome)
            next_txn += self.interval
            if self.producer is not None:
                self.producer.poll(max(0.0, next_txn - time.monotonic()))

    def stop(self, timeout):
        """Stops after the transaction in progress; returns how many sends
        were still unanswered after `timeout` seconds."""
        self.running = False
        self.thread.join(timeout)
        if self.producer is None:
            # The last instance failed, maybe inside a transaction: a new one
            # fences it and has its open transaction aborted, so nothing is
            # left holding back read_committed readers.
            try:
                self.producer = self.fresh_producer()
            except KafkaException:
                return 0
        return self.producer.flush(timeout)


class _Consuming:
    """A polling thread around one Consumer."""

    def __init__(self, history, proc, conf):
        self.history, self.proc = history, proc
        self.consumer = Consumer(conf)
        self.positions = {}  # partition -> next offset, from what was polled
        self.running = True
        self.errors = []

    def start(self):
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        return self

    def run(self):
        polls = 0
        while self.running:
            msg = self.consumer.poll(0.2)
            if msg is None:
                self.idle()
            else:
                if msg.error():
                    self.errors.append(str(msg.error()))
                else:
                    self.history.record("poll", self.proc, partition=msg.partition(),
                                        offset=msg.offset(), value=msg.value().decode())
                    self.positions[msg.partition()] = msg.offset() + 1
                    polls += 1
            self.after_poll(polls)
        self.consumer.close()

    def after_poll(self, polls):
        pass

    def idle(self):
        """Nothing to read: the client's positions (past transaction
        markers and aborted records, which read_committed skips) count as
        read up to."""
        try:
            for tp in self.consumer.position(self.consumer.assignment()):
                if tp.offset >= 0:
                    self.positions[tp.partition] = max(self.positions.get(tp.partition, 0),
                                                       tp.offset)
        except KafkaException:
            pass  # no position known now: the polled offsets stand

    def stop(self):
        self.running = False
        self.thread.join(60)


class Reader(_Consuming):
    def __init__(self, history, proc, bootstrap, topic, partitions, isolation="read_uncommitted"):
        super().__init__(history, proc, {
            "bootstrap.servers": bootstrap, "group.id": "fault-reader-" + proc, "log_level": 0,
            "isolation.level": isolation,
            "enable.auto.commit": False, "enable.partition.eof": False,
            # A fetch offset past a new leader's log end must not silently
            # jump back to the start: it shows as an error (and as unseen).
            "auto.offset.reset": "error", "socket.timeout.ms": 10000,
            "topic.metadata.refresh.interval.ms": 1000})
        tps = [TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)]
        self.consumer.assign(tps)
        history.record("assign", proc, partitions=list(range(partitions)))


class GroupMember(_Consuming):
    COMMIT_EVERY = 50  # polls

    def __init__(self, history, proc, bootstrap, topic, group, isolation="read_uncommitted"):
        super().__init__(history, proc, {
            "bootstrap.servers": bootstrap, "group.id": group, "log_level": 0,
            "isolation.level": isolation,
            "enable.auto.commit": False, "enable.partition.eof": False,
            "auto.offset.reset": "earliest", "session.timeout.ms": 10000,
            "heartbeat.interval.ms": 1000, "socket.timeout.ms": 10000,
            "topic.metadata.refresh.interval.ms": 1000})
        self.group = group
        self.assigned = []
        self.consumer.subscribe([topic], on_assign=self.on_assign, on_revoke=self.on_revoke)
        self.committed_at = 0

    def on_assign(self, consumer, tps):
        # Where the group's commits put this member: a partition it has
        # nothing new to read on is still known to be read up to there.
        self.positions = {}
        try:
            for tp in consumer.committed(tps, timeout=10):
                if tp.error is None and tp.offset >= 0:
                    self.positions[tp.partition] = tp.offset
        except KafkaException:
            pass  # unknown: the positions come from what it polls
        self.assigned = sorted(tp.partition for tp in tps)
        self.history.record("assign", self.proc, partitions=self.assigned)

    def on_revoke(self, consumer, tps):
        self.assigned = []

    def after_poll(self, polls):
        if polls - self.committed_at < self.COMMIT_EVERY:
            return
        self.committed_at = polls
        try:
            done = self.consumer.commit(asynchronous=False)
        except KafkaException:
            return  # not committed (rebalance, coordinator moving): nothing recorded
        for tp in done or []:
            if tp.error is None and tp.offset >= 0:
                self.history.record("commit", self.proc, group=self.group,
                                    partition=tp.partition, offset=tp.offset)
