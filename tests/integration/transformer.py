"""A consume-transform-produce application (librdkafka through
confluent-kafka), run as its own process by test_transactions.py so that the
test can SIGKILL it anywhere.

    transformer.py <bootstrap> <input> <output> <group> <transactional.id>

Reads <input> read_committed as a static member of <group>; for each poll's
records, in one transaction, writes "t:" + value to the same partition of
<output> and commits the consumed positions with it
(send_offsets_to_transaction). Prints `committed <n>` (records so far in
this run) after each commit; runs until killed.
"""
import sys

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer

TIMEOUT_S = 30


def main():
    bootstrap, src, dst, group, txn_id = sys.argv[1:6]
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id,
                         "transaction.timeout.ms": 10000, "linger.ms": 5})
    # Fences the killed instance and aborts what it left open.
    producer.init_transactions(TIMEOUT_S)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "group.instance.id": txn_id, "session.timeout.ms": 6000,
                         "enable.auto.commit": False, "auto.offset.reset": "earliest",
                         "isolation.level": "read_committed"})
    consumer.subscribe([src])
    done = 0
    while True:
        msgs = consumer.consume(num_messages=50, timeout=0.2)
        msgs = [m for m in msgs if m.error() is None]
        if not msgs:
            continue
        producer.begin_transaction()
        for m in msgs:
            producer.produce(dst, key=m.key(), value=b"t:" + m.value(), partition=m.partition())
        try:
            producer.send_offsets_to_transaction(consumer.position(consumer.assignment()),
                                                 consumer.consumer_group_metadata(), TIMEOUT_S)
            producer.commit_transaction(TIMEOUT_S)
        except KafkaException as e:
            if not e.args[0].txn_requires_abort():
                raise
            # The batch goes again from the last committed position.
            producer.abort_transaction(TIMEOUT_S)
            for tp in consumer.committed(consumer.assignment(), TIMEOUT_S):
                if tp.offset < 0:
                    tp.offset = OFFSET_BEGINNING
                consumer.seek(tp)
            continue
        done += len(msgs)
        print("committed %d" % done, flush=True)


if __name__ == "__main__":
    main()
