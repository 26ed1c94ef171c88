"""The admin and offset APIs that take lists, asked what no client library
asks: a partition, group or resource named twice, an empty list, a topic
with no partitions, unknown topics, partitions and groups. Each answer is
the one Apache Kafka 4.4 gives (the same test passes against it:
STRATA_WIRE_BOOTSTRAP=host:port runs it on that broker instead of starting
one). The order of the answers is not compared: Kafka's follows its hash
maps."""
import os
import unittest
import uuid

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from harness import Broker
from kafka_wire import WireConn

TIMEOUT_S = 30
UNKNOWN_TOPIC_OR_PARTITION, NOT_COORDINATOR, INVALID_REQUEST = 3, 16, 42
GROUP_ID_NOT_FOUND, ELECTION_NOT_NEEDED = 69, 84

# (api key, version, flexible, request schema, response schema); kafka_wire.py
# says how a schema is written.
PARTITION_RESULTS = [("PartitionIndex", "i32"), ("ErrorCode", "i16")]
APIS = {
    "ListOffsets": (2, 2, False, [
        ("ReplicaId", "i32"), ("IsolationLevel", "i8"),
        ("Topics", [("Name", "str"), ("Partitions", [("PartitionIndex", "i32"), ("Timestamp", "i64")])])], [
        ("ThrottleTimeMs", "i32"),
        ("Topics", [("Name", "str"), ("Partitions", [
            ("PartitionIndex", "i32"), ("ErrorCode", "i16"), ("Timestamp", "i64"), ("Offset", "i64")])])]),
    "OffsetCommit": (8, 2, False, [
        ("GroupId", "str"), ("GenerationId", "i32"), ("MemberId", "str"), ("RetentionTimeMs", "i64"),
        ("Topics", [("Name", "str"), ("Partitions", [
            ("PartitionIndex", "i32"), ("CommittedOffset", "i64"), ("CommittedMetadata", "nstr")])])], [
        ("Topics", [("Name", "str"), ("Partitions", PARTITION_RESULTS)])]),
    "OffsetFetch": (9, 3, False, [
        ("GroupId", "str"), ("Topics", ("nullable", [("Name", "str"), ("PartitionIndexes", ["i32"])]))], [
        ("ThrottleTimeMs", "i32"),
        ("Topics", [("Name", "str"), ("Partitions", [
            ("PartitionIndex", "i32"), ("CommittedOffset", "i64"), ("Metadata", "nstr"), ("ErrorCode", "i16")])]),
        ("ErrorCode", "i16")]),
    "DescribeGroups": (15, 1, False, [("Groups", ["str"])], [
        ("ThrottleTimeMs", "i32"),
        ("Groups", [("ErrorCode", "i16"), ("GroupId", "str"), ("GroupState", "str"), ("ProtocolType", "str"),
                    ("ProtocolData", "str"),
                    ("Members", [("MemberId", "str"), ("ClientId", "str"), ("ClientHost", "str"),
                                 ("MemberMetadata", "bytes"), ("MemberAssignment", "bytes")])])]),
    "DeleteRecords": (21, 1, False, [
        ("Topics", [("Name", "str"), ("Partitions", [("PartitionIndex", "i32"), ("Offset", "i64")])]),
        ("TimeoutMs", "i32")], [
        ("ThrottleTimeMs", "i32"),
        ("Topics", [("Name", "str"), ("Partitions", [
            ("PartitionIndex", "i32"), ("LowWatermark", "i64"), ("ErrorCode", "i16")])])]),
    "DescribeConfigs": (32, 1, False, [
        ("Resources", [("ResourceType", "i8"), ("ResourceName", "str"),
                       ("ConfigurationKeys", ("nullable", ["str"]))]),
        ("IncludeSynonyms", "bool")], [
        ("ThrottleTimeMs", "i32"),
        ("Results", [("ErrorCode", "i16"), ("ErrorMessage", "nstr"), ("ResourceType", "i8"),
                     ("ResourceName", "str"),
                     ("Configs", [("Name", "str"), ("Value", "nstr"), ("ReadOnly", "bool"),
                                  ("ConfigSource", "i8"), ("IsSensitive", "bool"),
                                  ("Synonyms", [("Name", "str"), ("Value", "nstr"), ("Source", "i8")])])])]),
    "DescribeLogDirs": (35, 1, False, [
        ("Topics", ("nullable", [("Topic", "str"), ("Partitions", ["i32"])]))], [
        ("ThrottleTimeMs", "i32"),
        ("Results", [("ErrorCode", "i16"), ("LogDir", "str"),
                     ("Topics", [("Name", "str"), ("Partitions", [
                         ("PartitionIndex", "i32"), ("PartitionSize", "i64"), ("OffsetLag", "i64"),
                         ("IsFutureKey", "bool")])])])]),
    "DeleteGroups": (42, 1, False, [("GroupsNames", ["str"])], [
        ("ThrottleTimeMs", "i32"), ("Results", [("GroupId", "str"), ("ErrorCode", "i16")])]),
    "ElectLeaders": (43, 1, False, [
        ("ElectionType", "i8"), ("TopicPartitions", ("nullable", [("Topic", "str"), ("Partitions", ["i32"])])),
        ("TimeoutMs", "i32")], [
        ("ThrottleTimeMs", "i32"), ("ErrorCode", "i16"),
        ("ReplicaElectionResults", [("Topic", "str"), ("PartitionResult", [
            ("PartitionId", "i32"), ("ErrorCode", "i16"), ("ErrorMessage", "nstr")])])]),
    "OffsetDelete": (47, 0, False, [
        ("GroupId", "str"), ("Topics", [("Name", "str"), ("Partitions", [("PartitionIndex", "i32")])])], [
        ("ErrorCode", "i16"), ("ThrottleTimeMs", "i32"),
        ("Topics", [("Name", "str"), ("Partitions", PARTITION_RESULTS)])]),
    "DescribeProducers": (61, 0, True, [("Topics", [("Name", "str"), ("PartitionIndexes", ["i32"])])], [
        ("ThrottleTimeMs", "i32"),
        ("Topics", [("Name", "str"), ("Partitions", [
            ("PartitionIndex", "i32"), ("ErrorCode", "i16"), ("ErrorMessage", "nstr"),
            ("ActiveProducers", [("ProducerId", "i64"), ("ProducerEpoch", "i32"), ("LastSequence", "i32"),
                                 ("LastTimestamp", "i64"), ("CoordinatorEpoch", "i32"),
                                 ("CurrentTxnStartOffset", "i64")])])])]),
    "DescribeTransactions": (65, 0, True, [("TransactionalIds", ["str"])], [
        ("ThrottleTimeMs", "i32"),
        ("TransactionStates", [("ErrorCode", "i16"), ("TransactionalId", "str"), ("TransactionState", "str"),
                               ("TransactionTimeoutMs", "i32"), ("TransactionStartTimeMs", "i64"),
                               ("ProducerId", "i64"), ("ProducerEpoch", "i16"),
                               ("Topics", [("Topic", "str"), ("Partitions", ["i32"])])])]),
    "ListTransactions": (66, 0, True, [("StateFilters", ["str"]), ("ProducerIdFilters", ["i64"])], [
        ("ThrottleTimeMs", "i32"), ("ErrorCode", "i16"), ("UnknownStateFilters", ["str"]),
        ("TransactionStates", [("TransactionalId", "str"), ("ProducerId", "i64"), ("TransactionState", "str")])]),
}


def flat(topics, name="Name", partitions="Partitions", index="PartitionIndex", *fields):
    """[(topic, partition, field...)] of a response's topics, sorted."""
    return sorted((t[name], p[index]) + tuple(p[f] for f in fields) for t in topics for p in t[partitions])


class AdminListsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = None
        target = os.environ.get("STRATA_WIRE_BOOTSTRAP")
        if target is None:
            cls.broker = Broker().start()
            target = cls.broker.bootstrap
        cls.bootstrap = target
        host, port = target.split(",")[0].rsplit(":", 1)
        cls.host, cls.port = host, int(port)
        # Two partitions of five records each; a group with offsets 3 and 2.
        cls.topic = "lists-" + uuid.uuid4().hex[:8]
        admin = AdminClient({"bootstrap.servers": target})
        for f in admin.create_topics([NewTopic(cls.topic, 2, 1)]).values():
            f.result(TIMEOUT_S)
        p = Producer({"bootstrap.servers": target})
        for i in range(10):
            p.produce(cls.topic, b"v%d" % i, partition=i % 2)
        assert p.flush(TIMEOUT_S) == 0
        cls.group = "lists-group-" + uuid.uuid4().hex[:8]
        c = Consumer({"bootstrap.servers": target, "group.id": cls.group, "enable.auto.commit": False})
        c.commit(offsets=[TopicPartition(cls.topic, 0, 3), TopicPartition(cls.topic, 1, 2)], asynchronous=False)
        c.close()

    @classmethod
    def tearDownClass(cls):
        if cls.broker is not None:
            cls.broker.__exit__(None, None, None)

    def setUp(self):
        self.conn = WireConn(self.host, self.port, client_id="admin-lists")

    def tearDown(self):
        self.conn.close()

    def call(self, api, request):
        key, version, flexible, req_schema, resp_schema = APIS[api]
        return self.conn.call(key, version, flexible, req_schema, request, resp_schema)

    def test_list_offsets_answers_a_partition_named_twice_once_with_invalid_request(self):
        t = self.topic
        got = self.call("ListOffsets", {"ReplicaId": -1, "IsolationLevel": 0, "Topics": [
            {"Name": t, "Partitions": [{"PartitionIndex": 0, "Timestamp": -1},
                                       {"PartitionIndex": 0, "Timestamp": -2}]},
            {"Name": t, "Partitions": [{"PartitionIndex": 1, "Timestamp": -1}]},
            {"Name": "no-such-topic", "Partitions": [{"PartitionIndex": 0, "Timestamp": -1}]},
            {"Name": t, "Partitions": []}]})
        # One entry per topic, each partition once.
        self.assertEqual(sorted(x["Name"] for x in got["Topics"]), sorted([t, "no-such-topic"]))
        self.assertEqual(flat(got["Topics"], "Name", "Partitions", "PartitionIndex", "ErrorCode", "Offset"),
                         sorted([(t, 0, INVALID_REQUEST, -1), (t, 1, 0, 5),
                                 ("no-such-topic", 0, UNKNOWN_TOPIC_OR_PARTITION, -1)]))
        empty = self.call("ListOffsets", {"ReplicaId": -1, "IsolationLevel": 0, "Topics": []})
        self.assertEqual(empty["Topics"], [])

    def test_delete_records_merges_a_partition_named_twice_and_the_last_offset_stands(self):
        topic = "lists-del-" + uuid.uuid4().hex[:8]
        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        for f in admin.create_topics([NewTopic(topic, 2, 1)]).values():
            f.result(TIMEOUT_S)
        p = Producer({"bootstrap.servers": self.bootstrap})
        for i in range(10):
            p.produce(topic, b"v%d" % i, partition=i % 2)
        self.assertEqual(p.flush(TIMEOUT_S), 0)
        got = self.call("DeleteRecords", {"TimeoutMs": TIMEOUT_S * 1000, "Topics": [
            {"Name": topic, "Partitions": [{"PartitionIndex": 0, "Offset": 3},
                                           {"PartitionIndex": 0, "Offset": 2}]},
            {"Name": topic, "Partitions": [{"PartitionIndex": 1, "Offset": 1}]},
            {"Name": topic, "Partitions": []},
            {"Name": "no-such-topic", "Partitions": [{"PartitionIndex": 0, "Offset": 1}]},
            {"Name": topic, "Partitions": [{"PartitionIndex": 7, "Offset": 1}]}]})
        self.assertEqual(sorted(x["Name"] for x in got["Topics"]), sorted([topic, "no-such-topic"]))
        self.assertEqual(
            flat(got["Topics"], "Name", "Partitions", "PartitionIndex", "ErrorCode", "LowWatermark"),
            sorted([(topic, 0, 0, 2), (topic, 1, 0, 1), (topic, 7, UNKNOWN_TOPIC_OR_PARTITION, -1),
                    ("no-such-topic", 0, UNKNOWN_TOPIC_OR_PARTITION, -1)]))
        # The log start the broker kept is the last entry's, 2 (not 3).
        starts = self.call("ListOffsets", {"ReplicaId": -1, "IsolationLevel": 0, "Topics": [
            {"Name": topic, "Partitions": [{"PartitionIndex": 0, "Timestamp": -2}]}]})
        self.assertEqual(flat(starts["Topics"], "Name", "Partitions", "PartitionIndex", "Offset"),
                         [(topic, 0, 2)])
        self.assertEqual(self.call("DeleteRecords", {"TimeoutMs": 1000, "Topics": []})["Topics"], [])

    def test_describe_configs_answers_each_resource_entry_and_each_key_once(self):
        t = self.topic

        def describe(resources):
            return self.call("DescribeConfigs", {"IncludeSynonyms": False, "Resources": [
                {"ResourceType": 2, "ResourceName": name, "ConfigurationKeys": keys} for name, keys in resources]})

        twice = describe([(t, ["retention.ms"]), (t, ["retention.ms", "retention.ms", "no.such.config"])])
        self.assertEqual([(r["ResourceName"], r["ErrorCode"], r["ErrorMessage"], [c["Name"] for c in r["Configs"]])
                          for r in twice["Results"]], [(t, 0, "", ["retention.ms"])] * 2)
        # An empty key list asks for every config, as no list does.
        every = {c["Name"] for c in describe([(t, None)])["Results"][0]["Configs"]}
        self.assertIn("cleanup.policy", every)
        self.assertEqual({c["Name"] for c in describe([(t, [])])["Results"][0]["Configs"]}, every)
        unknown = describe([("no-such-topic", None)])["Results"]
        self.assertEqual([(r["ErrorCode"], r["Configs"]) for r in unknown], [(UNKNOWN_TOPIC_OR_PARTITION, [])])
        self.assertEqual(describe([])["Results"], [])

    def test_groups_described_per_entry_and_deleted_once_per_name(self):
        described = self.call("DescribeGroups", {"Groups": [self.group, self.group, "no-such-group"]})
        self.assertEqual(sorted((g["GroupId"], g["ErrorCode"], g["GroupState"]) for g in described["Groups"]),
                         sorted([(self.group, 0, "Empty")] * 2 + [("no-such-group", 0, "Dead")]))
        self.assertEqual(self.call("DescribeGroups", {"Groups": []})["Groups"], [])
        # A group of its own to delete, with one committed offset.
        group = "lists-doomed-" + uuid.uuid4().hex[:8]
        committed = self.call("OffsetCommit", {
            "GroupId": group, "GenerationId": -1, "MemberId": "", "RetentionTimeMs": -1, "Topics": [
                {"Name": self.topic, "Partitions": [{"PartitionIndex": 0, "CommittedOffset": 1,
                                                     "CommittedMetadata": None}]}]})
        self.assertEqual(flat(committed["Topics"], "Name", "Partitions", "PartitionIndex", "ErrorCode"),
                         [(self.topic, 0, 0)])
        deleted = self.call("DeleteGroups", {"GroupsNames": [group, group, "no-such-group"]})
        self.assertEqual(sorted((r["GroupId"], r["ErrorCode"]) for r in deleted["Results"]),
                         sorted([(group, 0), ("no-such-group", GROUP_ID_NOT_FOUND)]))
        self.assertEqual(self.call("DeleteGroups", {"GroupsNames": []})["Results"], [])

    def test_offset_commit_and_fetch_answer_every_entry_and_the_last_commit_stands(self):
        group, t = "lists-commits-" + uuid.uuid4().hex[:8], self.topic
        part = lambda i, o: {"PartitionIndex": i, "CommittedOffset": o, "CommittedMetadata": None}  # noqa: E731
        committed = self.call("OffsetCommit", {
            "GroupId": group, "GenerationId": -1, "MemberId": "", "RetentionTimeMs": -1, "Topics": [
                {"Name": t, "Partitions": [part(0, 1), part(0, 2)]}, {"Name": t, "Partitions": [part(0, 3)]}]})
        self.assertEqual(flat(committed["Topics"], "Name", "Partitions", "PartitionIndex", "ErrorCode"),
                         [(t, 0, 0)] * 3)
        fetched = self.call("OffsetFetch", {"GroupId": group, "Topics": None})
        self.assertEqual(flat(fetched["Topics"], "Name", "Partitions", "PartitionIndex", "CommittedOffset"),
                         [(t, 0, 3)])
        # Each partition entry of a fetch is answered, unknown ones with -1.
        fetched = self.call("OffsetFetch", {"GroupId": self.group, "Topics": [
            {"Name": t, "PartitionIndexes": [0, 0, 1]}, {"Name": "no-such-topic", "PartitionIndexes": [0]},
            {"Name": t, "PartitionIndexes": [9]}]})
        self.assertEqual(
            flat(fetched["Topics"], "Name", "Partitions", "PartitionIndex", "CommittedOffset", "ErrorCode"),
            sorted([(t, 0, 3, 0), (t, 0, 3, 0), (t, 1, 2, 0), ("no-such-topic", 0, -1, 0), (t, 9, -1, 0)]))
        # Each topic entry is answered by an entry of its own, a repeated name too.
        self.assertEqual(sorted((x["Name"], sorted(p["PartitionIndex"] for p in x["Partitions"]))
                                for x in fetched["Topics"]),
                         sorted([(t, [0, 0, 1]), ("no-such-topic", [0]), (t, [9])]))
        self.assertEqual(self.call("OffsetFetch", {"GroupId": self.group, "Topics": []})["Topics"], [])

    def test_offset_delete_answers_every_entry_and_unknown_partitions_with_unknown_topic(self):
        group, t = "lists-offdel-" + uuid.uuid4().hex[:8], self.topic
        self.call("OffsetCommit", {
            "GroupId": group, "GenerationId": -1, "MemberId": "", "RetentionTimeMs": -1, "Topics": [
                {"Name": t, "Partitions": [{"PartitionIndex": p, "CommittedOffset": 1, "CommittedMetadata": None}
                                           for p in (0, 1)]}]})
        got = self.call("OffsetDelete", {"GroupId": group, "Topics": [
            {"Name": t, "Partitions": [{"PartitionIndex": 0}, {"PartitionIndex": 0}]},
            {"Name": "no-such-topic", "Partitions": [{"PartitionIndex": 0}]},
            {"Name": t, "Partitions": [{"PartitionIndex": 9}]}]})
        self.assertEqual(got["ErrorCode"], 0)
        self.assertEqual(flat(got["Topics"], "Name", "Partitions", "PartitionIndex", "ErrorCode"),
                         sorted([(t, 0, 0), (t, 0, 0), ("no-such-topic", 0, UNKNOWN_TOPIC_OR_PARTITION),
                                 (t, 9, UNKNOWN_TOPIC_OR_PARTITION)]))
        left = self.call("OffsetFetch", {"GroupId": group, "Topics": None})
        self.assertEqual(flat(left["Topics"], "Name", "Partitions", "PartitionIndex", "CommittedOffset"),
                         [(t, 1, 1)])
        self.assertEqual(self.call("OffsetDelete", {"GroupId": group, "Topics": []}),
                         {"ErrorCode": 0, "ThrottleTimeMs": 0, "Topics": []})
        missing = self.call("OffsetDelete", {"GroupId": "no-such-group", "Topics": [
            {"Name": t, "Partitions": [{"PartitionIndex": 0}]}]})
        self.assertEqual((missing["ErrorCode"], missing["Topics"]), (GROUP_ID_NOT_FOUND, []))

    def test_describe_log_dirs_describes_a_partition_named_twice_once(self):
        t = self.topic
        got = self.call("DescribeLogDirs", {"Topics": [
            {"Topic": t, "Partitions": [0, 0]}, {"Topic": t, "Partitions": [1]},
            {"Topic": "no-such-topic", "Partitions": [0]}]})
        self.assertEqual(len(got["Results"]), 1)
        self.assertEqual(flat(got["Results"][0]["Topics"]), [(t, 0), (t, 1)])
        empty = self.call("DescribeLogDirs", {"Topics": []})
        self.assertEqual([r["Topics"] for r in empty["Results"]], [[]])

    def test_describe_producers_and_transactions_answer_every_entry(self):
        t = self.topic
        got = self.call("DescribeProducers", {"Topics": [
            {"Name": t, "PartitionIndexes": [0, 0]}, {"Name": t, "PartitionIndexes": [1]},
            {"Name": "no-such-topic", "PartitionIndexes": [0]}, {"Name": t, "PartitionIndexes": [9]}]})
        self.assertEqual(flat(got["Topics"], "Name", "Partitions", "PartitionIndex", "ErrorCode"),
                         sorted([(t, 0, 0), (t, 0, 0), (t, 1, 0), ("no-such-topic", 0, UNKNOWN_TOPIC_OR_PARTITION),
                                 (t, 9, UNKNOWN_TOPIC_OR_PARTITION)]))
        self.assertEqual(self.call("DescribeProducers", {"Topics": []})["Topics"], [])
        # A committed transaction (its markers may still be on their way),
        # described twice beside an unknown id.
        txn = "lists-txn-" + uuid.uuid4().hex[:8]
        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        for f in admin.create_topics([NewTopic(txn, 1, 1)]).values():
            f.result(TIMEOUT_S)
        p = Producer({"bootstrap.servers": self.bootstrap, "transactional.id": txn})
        p.init_transactions(TIMEOUT_S)
        p.begin_transaction()
        p.produce(txn, b"in a transaction")
        p.commit_transaction(TIMEOUT_S)
        committed = ["PrepareCommit", "CompleteCommit"]
        described = self.call("DescribeTransactions", {"TransactionalIds": [txn, txn, "no-such-txn"]})
        states = {s["TransactionalId"]: s for s in described["TransactionStates"]}
        self.assertEqual(sorted(s["TransactionalId"] for s in described["TransactionStates"]),
                         sorted([txn, txn, "no-such-txn"]))
        self.assertEqual((states[txn]["ErrorCode"], states[txn]["ProducerEpoch"]), (0, 0))
        self.assertIn(states[txn]["TransactionState"], committed)
        self.assertNotEqual(states["no-such-txn"]["ErrorCode"], 0)
        self.assertEqual(self.call("DescribeTransactions", {"TransactionalIds": []})["TransactionStates"], [])
        listed = self.call("ListTransactions", {"StateFilters": committed + ["NoSuchState"],
                                                "ProducerIdFilters": [states[txn]["ProducerId"]]})
        self.assertEqual((listed["ErrorCode"], listed["UnknownStateFilters"]), (0, ["NoSuchState"]))
        self.assertEqual([s["TransactionalId"] for s in listed["TransactionStates"]], [txn])

    def test_elect_leaders_answers_every_entry(self):
        t = self.topic
        got = self.call("ElectLeaders", {"ElectionType": 0, "TimeoutMs": TIMEOUT_S * 1000, "TopicPartitions": [
            {"Topic": t, "Partitions": [0, 0]}, {"Topic": t, "Partitions": [1]},
            {"Topic": "no-such-topic", "Partitions": [0]}, {"Topic": t, "Partitions": [9]}]})
        self.assertEqual(got["ErrorCode"], 0)
        self.assertEqual(
            flat(got["ReplicaElectionResults"], "Topic", "PartitionResult", "PartitionId", "ErrorCode"),
            sorted([(t, 0, ELECTION_NOT_NEEDED), (t, 0, ELECTION_NOT_NEEDED), (t, 1, ELECTION_NOT_NEEDED),
                    ("no-such-topic", 0, UNKNOWN_TOPIC_OR_PARTITION), (t, 9, UNKNOWN_TOPIC_OR_PARTITION)]))
        # Each topic entry is answered by an entry of its own, a repeated name too.
        self.assertEqual(sorted((x["Topic"], sorted(p["PartitionId"] for p in x["PartitionResult"]))
                                for x in got["ReplicaElectionResults"]),
                         sorted([(t, [0, 0]), (t, [1]), ("no-such-topic", [0]), (t, [9])]))


if __name__ == "__main__":
    unittest.main()
