"""The schema registry built into the broker, driven by real clients:
confluent-kafka-python's SchemaRegistryClient with its JSON Schema and
Protobuf serializers, the legacy confluent_kafka.avro producer and consumer,
plain HTTP for every endpoint and error code, and the strata CLI; then a
SIGKILL and restart, after which subjects, versions and ids are as before
and new ids continue above every id given out.
"""
import json
import os
import socket
import struct
import subprocess
import unittest
import uuid

import requests
from confluent_kafka import Consumer, Producer
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf import timestamp_pb2

from harness import Broker

CLI = os.environ.get("STRATA_CLI", os.path.join(os.path.dirname(__file__), "../../build/tools/strata"))
CT = {"Content-Type": "application/vnd.schemaregistry.v1+json"}

ORDER_JSON_SCHEMA = json.dumps({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Order",
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "amount": {"type": "number", "minimum": 0},
        "items": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["id", "amount"],
})

USER_AVRO = json.dumps({
    "type": "record", "name": "User", "namespace": "shop",
    "fields": [{"name": "id", "type": "long"}, {"name": "name", "type": "string"}],
})


def shipment_message_class():
    """A Protobuf message built at run time (no protoc): shop.Shipment, which
    imports google/protobuf/timestamp.proto, so its serializer registers a
    reference too."""
    f = descriptor_pb2.FileDescriptorProto()
    f.name = "shop/shipment-%s.proto" % uuid.uuid4().hex[:8]
    f.package = "shop"
    f.syntax = "proto3"
    f.dependency.append("google/protobuf/timestamp.proto")
    m = f.message_type.add()
    m.name = "Shipment"
    for number, (name, kind, type_name) in enumerate([
            ("id", descriptor_pb2.FieldDescriptorProto.TYPE_STRING, None),
            ("weight_grams", descriptor_pb2.FieldDescriptorProto.TYPE_INT64, None),
            ("sent", descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE, ".google.protobuf.Timestamp")], 1):
        field = m.field.add()
        field.name, field.number, field.type = name, number, kind
        field.label = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
        if type_name:
            field.type_name = type_name
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(timestamp_pb2.DESCRIPTOR.serialized_pb)
    pool.Add(f)
    descriptor = pool.FindMessageTypeByName("shop.Shipment")
    if hasattr(message_factory, "GetMessageClass"):  # protobuf 4.21 and later
        return message_factory.GetMessageClass(descriptor)
    return message_factory.MessageFactory(pool).GetPrototype(descriptor)


def produce_and_consume(bootstrap, topic, values, serialize, deserialize):
    """Produces every value serialized, consumes them back from the start,
    and returns them deserialized, in order."""
    p = Producer({"bootstrap.servers": bootstrap})
    for v in values:
        p.produce(topic, serialize(v, SerializationContext(topic, MessageField.VALUE)))
    assert p.flush(30) == 0
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "g-" + topic,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([topic])
    out, raw = [], []
    try:
        for _ in range(600):
            if len(out) == len(values):
                break
            m = c.poll(0.1)
            if m is None or m.error():
                continue
            raw.append(m.value())
            out.append(deserialize(m.value(), SerializationContext(topic, MessageField.VALUE)))
    finally:
        c.close()
    return out, raw


def schema_id_of(payload):
    """The schema id Confluent's wire format puts after the magic byte."""
    assert payload[0] == 0, payload[:8]
    return struct.unpack(">I", payload[1:5])[0]


class SchemaRegistryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = Broker()
        cls.broker.start()
        cls.url = cls.broker.registry_url
        cls.client = SchemaRegistryClient({"url": cls.url})

    @classmethod
    def tearDownClass(cls):
        cls.broker.__exit__(None, None, None)

    def http(self, method, path, body=None, expect=200):
        r = requests.request(method, self.url + path, headers=CT,
                             data=None if body is None else json.dumps(body), timeout=30)
        self.assertEqual(r.status_code, expect, "%s %s -> %d %s" % (method, path, r.status_code, r.text))
        return r.json() if r.text else None

    def error_code(self, method, path, body=None):
        r = requests.request(method, self.url + path, headers=CT,
                             data=None if body is None else (body if isinstance(body, str) else json.dumps(body)),
                             timeout=30)
        self.assertGreaterEqual(r.status_code, 400, r.text)
        j = r.json()
        self.assertTrue(j.get("message"), r.text)
        return j["error_code"]

    def cli(self, *args, ok=True):
        r = subprocess.run([CLI, "schema", "--registry", self.url] + list(args),
                           capture_output=True, text=True, timeout=60)
        if ok:
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return r

    def test_1_json_schema_serializer_round_trips_through_the_broker(self):
        topic = "orders-json"
        ser = JSONSerializer(ORDER_JSON_SCHEMA, self.client)
        de = JSONDeserializer(ORDER_JSON_SCHEMA)
        values = [{"id": "o-%d" % i, "amount": i * 1.5, "items": ["x"] * (i % 3)} for i in range(50)]
        got, raw = produce_and_consume(self.broker.bootstrap, topic, values, ser, de)
        self.assertEqual(got, values)
        ids = {schema_id_of(r) for r in raw}
        self.assertEqual(len(ids), 1)
        registered = self.client.get_schema(ids.pop())
        self.assertEqual(registered.schema_type, "JSON")
        self.assertEqual(json.loads(registered.schema_str), json.loads(ORDER_JSON_SCHEMA))
        latest = self.client.get_latest_version(topic + "-value")
        self.assertEqual(latest.version, 1)
        # A schema the data's readers cannot take: the default level
        # (BACKWARD) refuses it, and the refusal is the client's error.
        narrowed = json.loads(ORDER_JSON_SCHEMA)
        narrowed["properties"]["amount"]["type"] = "integer"
        with self.assertRaises(SchemaRegistryError) as e:
            self.client.register_schema(topic + "-value", Schema(json.dumps(narrowed), "JSON"))
        self.assertEqual(e.exception.error_code, 409)
        self.assertFalse(self.client.test_compatibility(topic + "-value", Schema(json.dumps(narrowed), "JSON")))

    def test_2_protobuf_serializer_registers_its_import_as_a_reference(self):
        topic = "shipments-proto"
        cls = shipment_message_class()
        # Newer clients skip google/protobuf imports unless told not to (older
        # ones know no such setting).
        conf = ({"skip.known.types": False}
                if "skip.known.types" in ProtobufSerializer._default_conf else {})
        ser = ProtobufSerializer(cls, self.client, conf)
        de = ProtobufDeserializer(cls)
        values = []
        for i in range(40):
            m = cls(id="s-%d" % i, weight_grams=100 * i)
            m.sent.seconds = 1700000000 + i
            values.append(m)
        got, raw = produce_and_consume(self.broker.bootstrap, topic, values, ser, de)
        self.assertEqual([g.SerializeToString() for g in got], [v.SerializeToString() for v in values])
        # Asked over HTTP (the client answers get_schema from its cache):
        # the registry keeps the .proto text of the descriptor it was sent.
        registered = self.http("GET", "/schemas/ids/%d" % schema_id_of(raw[0]))
        self.assertEqual(registered["schemaType"], "PROTOBUF")
        self.assertIn("message Shipment", registered["schema"])
        self.assertIn("import \"google/protobuf/timestamp.proto\"", registered["schema"])
        self.assertEqual([r["name"] for r in registered["references"]], ["google/protobuf/timestamp.proto"])
        # The import is a subject of its own, referenced by the schema.
        self.assertIn("google/protobuf/timestamp.proto", self.client.get_subjects())
        ts = self.http("GET", "/subjects/google%2Fprotobuf%2Ftimestamp.proto/versions/1")
        self.assertEqual(self.http("GET", "/subjects/google%2Fprotobuf%2Ftimestamp.proto/versions/1/referencedby"),
                         [schema_id_of(raw[0])])
        self.assertEqual(ts["schemaType"], "PROTOBUF")

    def test_3_legacy_avro_producer_and_consumer(self):
        from confluent_kafka import avro
        from confluent_kafka.avro import AvroConsumer, AvroProducer
        topic = "users-avro"
        schema = avro.loads(USER_AVRO)
        p = AvroProducer({"bootstrap.servers": self.broker.bootstrap, "schema.registry.url": self.url},
                         default_value_schema=schema)
        values = [{"id": i, "name": "user-%d" % i} for i in range(30)]
        for v in values:
            p.produce(topic=topic, value=v)
        self.assertEqual(p.flush(30), 0)
        c = AvroConsumer({"bootstrap.servers": self.broker.bootstrap, "schema.registry.url": self.url,
                          "group.id": "g-avro", "auto.offset.reset": "earliest"})
        c.subscribe([topic])
        got = []
        for _ in range(600):
            if len(got) == len(values):
                break
            m = c.poll(0.1)
            if m is not None and not m.error():
                got.append(m.value())
        c.close()
        self.assertEqual(got, values)
        latest = self.http("GET", "/subjects/users-avro-value/versions/latest")
        self.assertNotIn("schemaType", latest)  # Avro, as Confluent answers
        # Stored canonical: names written in full.
        self.assertEqual(json.loads(latest["schema"])["name"], "shop.User")

    def test_4_endpoints_and_error_codes_over_http(self):
        s = "/subjects/http-test"
        v1 = {"schema": USER_AVRO.replace('"User"', '"HttpUser"')}
        first = self.http("POST", s + "/versions", v1)["id"]
        self.assertEqual(self.http("POST", s + "/versions", v1)["id"], first)
        self.assertEqual(self.http("POST", "/subjects/http-test-2/versions", v1)["id"], first)
        self.assertEqual(self.http("GET", s + "/versions"), [1])
        self.assertEqual(self.http("POST", s, v1)["version"], 1)
        self.assertIn("AVRO", self.http("GET", "/schemas/types"))
        self.assertEqual(self.http("GET", "/schemas/ids/%d/subjects" % first), ["http-test", "http-test-2"])
        r = requests.get(self.url + s + "/versions/1/schema", timeout=30)
        self.assertEqual(json.loads(r.text)["name"], "shop.HttpUser")
        # Each error code, as Confluent's clients expect it.
        self.assertEqual(self.error_code("GET", "/subjects/nobody/versions"), 40401)
        self.assertEqual(self.error_code("GET", s + "/versions/9"), 40402)
        self.assertEqual(self.error_code("GET", "/schemas/ids/999999"), 40403)
        self.assertEqual(self.error_code("GET", s + "/versions/zero"), 42202)
        self.assertEqual(self.error_code("POST", s + "/versions", {"schema": "{\"type\": \"recrod\"}"}), 42201)
        self.assertEqual(self.error_code("POST", s + "/versions", "{not json"), 42201)
        self.assertEqual(self.error_code("PUT", "/config", {"compatibility": "NEVER"}), 42203)
        self.assertEqual(self.error_code("PUT", "/mode", {"mode": "NAP"}), 42204)
        no_default = json.loads(v1["schema"])
        no_default["fields"].append({"name": "age", "type": "int"})
        self.assertEqual(self.error_code("POST", s + "/versions", {"schema": json.dumps(no_default)}), 409)
        verbose = self.http("POST", "/compatibility" + s + "/versions/latest?verbose=true",
                            {"schema": json.dumps(no_default)})
        self.assertFalse(verbose["is_compatible"])
        self.assertTrue(any("age" in m for m in verbose["messages"]), verbose)
        self.assertEqual(self.http("DELETE", "/subjects/http-test-2"), [1])
        self.assertEqual(self.error_code("DELETE", "/subjects/http-test-2"), 40404)
        self.assertEqual(self.error_code("DELETE", s + "?permanent=true"), 40405)
        self.assertEqual(self.http("GET", "/subjects/http-test-2/versions?deleted=true"), [1])
        self.assertEqual(self.error_code("GET", "/no/such/path"), 404)
        # A body over schema.registry.max.request.bytes (16 MiB) is refused
        # from its Content-Length, before a byte of it is sent.
        with socket.create_connection(("127.0.0.1", self.broker.registry_port), timeout=30) as sock:
            sock.sendall(b"POST /subjects/big/versions HTTP/1.1\r\nHost: x\r\n"
                         b"Content-Length: 1000000000\r\n\r\n")
            answer = sock.recv(4096).decode()
        self.assertIn(" 413 ", answer.split("\r\n")[0])
        # And the registry still answers.
        self.assertEqual(self.http("GET", s + "/versions"), [1])

    def test_5_cli(self):
        d = self.broker.tmp
        avsc = os.path.join(d, "item.avsc")
        with open(avsc, "w") as f:
            f.write(json.dumps({"type": "record", "name": "Item", "fields": [{"name": "sku", "type": "string"}]}))
        out = self.cli("register", "cli-items", avsc).stdout
        self.assertIn("version 1", out)
        listed = json.loads(subprocess.run([CLI, "--json", "schema", "--registry", self.url, "list"],
                                           capture_output=True, text=True, timeout=60, check=True).stdout)
        self.assertIn("cli-items", [r["subject"] for r in listed])
        self.assertIn('"sku"', self.cli("get", "cli-items").stdout)
        evolved = os.path.join(d, "item2.avsc")
        with open(evolved, "w") as f:
            f.write(json.dumps({"type": "record", "name": "Item", "fields": [
                {"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}))
        r = self.cli("check", "cli-items", evolved, ok=False)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("NOT compatible", r.stdout)
        self.assertIn("qty", r.stdout)
        self.assertIn("global: BACKWARD", self.cli("config").stdout)
        self.cli("config", "cli-items", "none")
        self.assertIn("compatible", self.cli("check", "cli-items", evolved).stdout)
        self.assertIn("version 2", self.cli("register", "cli-items", evolved).stdout)
        self.cli("delete", "cli-items", "1")
        self.assertEqual(self.http("GET", "/subjects/cli-items/versions"), [2])
        # Bad input: an error and exit code 2 or 1, never a crash.
        r = self.cli("register", "cli-items", "/nonexistent.avsc", ok=False)
        self.assertEqual(r.returncode, 2, r.stderr)
        r = self.cli("get", "no-such-subject", ok=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("40401", r.stderr)
        r = subprocess.run([CLI, "schema", "--registry", "http://127.0.0.1:1", "list"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 1, r.stderr)

    def test_6_restart_keeps_subjects_versions_and_ids(self):
        # A fresh client: newer ones answer from what they registered (a
        # Protobuf import as its base64 descriptor), not the registry's text.
        client = SchemaRegistryClient({"url": self.url})
        before = {}
        for s in client.get_subjects():
            for v in client.get_versions(s):
                rs = client.get_version(s, v)
                before[(s, v)] = (rs.schema_id, rs.schema.schema_str)
        self.assertGreater(len(before), 5)
        highest = max(i for i, _ in before.values())
        self.broker.kill()
        self.broker.start()
        client = SchemaRegistryClient({"url": self.url})
        after = {}
        for s in client.get_subjects():
            for v in client.get_versions(s):
                rs = client.get_version(s, v)
                after[(s, v)] = (rs.schema_id, rs.schema.schema_str)
        self.assertEqual(after, before)
        fresh = json.loads(USER_AVRO)
        fresh["name"] = "AfterRestart"
        new_id = client.register_schema("after-restart", Schema(json.dumps(fresh), "AVRO"))
        self.assertGreater(new_id, highest)
        # _schemas holds Confluent's record layout.
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "g-schemas",
                      "auto.offset.reset": "earliest"})
        c.subscribe(["_schemas"])
        keys = []
        for _ in range(300):
            m = c.poll(0.1)
            if m is not None and not m.error():
                keys.append(json.loads(m.key()))
            if any(k.get("subject") == "after-restart" for k in keys):
                break
        c.close()
        self.assertIn({"keytype": "SCHEMA", "subject": "after-restart", "version": 1, "magic": 1}, keys)


if __name__ == "__main__":
    unittest.main()
