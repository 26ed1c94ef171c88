"""The Kafka Streams scenario of test_kafka_streams.py on three brokers at
replication factor 3 (min.insync.replicas 2): besides the application's
kills, one broker is SIGKILLed after the first phase and started again after
the third, and the totals are still exact."""
import unittest

import test_kafka_streams as streams
from cluster import Cluster


class KafkaStreamsClusterTest(streams.StreamsScenario, unittest.TestCase):
    rf = 3

    @classmethod
    def start_kafka(cls):
        return Cluster(brokers=3).up()

    def between(self, phase):
        if phase == 0:
            self.kafka.kill(2)
        elif phase == 2:
            self.kafka.restart(2)

    def test_exactly_once_aggregate_across_app_kills_and_a_broker_kill(self):
        self.check_exactly_once_across_kills_and_a_restore()


if __name__ == "__main__":
    unittest.main()
