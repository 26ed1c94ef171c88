"""Malformed frames: each gets an error response or a clean close, never a
crash or a hang, and a well-behaved client on another connection is served
throughout."""
import socket
import struct
import unittest
import zlib

from harness import Broker
from kafka_wire import uvarint

RECV_TIMEOUT_S = 10


def frame(body):
    return struct.pack(">i", len(body)) + body


def header(api_key, version, correlation_id, client_id=b"bad-input", flexible=False):
    h = struct.pack(">hhi", api_key, version, correlation_id)
    h += struct.pack(">h", len(client_id)) + client_id
    if flexible:
        h += b"\x00"  # no header tagged fields
    return h


class Conn:
    def __init__(self, broker):
        self.s = socket.create_connection(("127.0.0.1", broker.port), timeout=RECV_TIMEOUT_S)

    def send(self, data):
        self.s.sendall(data)

    def recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                return None
            buf += chunk
        return buf

    def response(self):
        """One response frame (correlation id, rest), or None if closed."""
        size = self.recv_exact(4)
        if size is None:
            return None
        (n,) = struct.unpack(">i", size)
        body = self.recv_exact(n)
        if body is None:
            return None
        return struct.unpack(">i", body[:4])[0], body[4:]

    def closed_by_broker(self):
        try:
            return self.s.recv(1) == b""
        except ConnectionResetError:
            return True

    def close(self):
        self.s.close()


def api_versions_v0(correlation_id):
    return frame(header(18, 0, correlation_id))


def metadata_v0(correlation_id, topics=()):
    body = struct.pack(">i", len(topics))
    for t in topics:
        body += struct.pack(">h", len(t)) + t
    return frame(header(3, 0, correlation_id) + body)


class BadInputTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = Broker(extra_args=["--set", "socket.request.max.bytes=1048576"]).start()

    @classmethod
    def tearDownClass(cls):
        cls.broker.__exit__(None, None, None)

    def assert_healthy(self):
        """A fresh well-behaved connection still gets ApiVersions answered."""
        c = Conn(self.broker)
        c.send(api_versions_v0(4242))
        r = c.response()
        c.close()
        self.assertIsNotNone(r, "broker stopped answering:\n" + self.broker.log())
        corr, body = r
        self.assertEqual(corr, 4242)
        self.assertEqual(struct.unpack(">h", body[:2])[0], 0)
        self.assertIsNone(self.broker.proc.poll(), "broker died:\n" + self.broker.log())

    def expect_closed(self, data, shutdown_write=False):
        c = Conn(self.broker)
        c.send(data)
        if shutdown_write:
            c.s.shutdown(socket.SHUT_WR)
        self.assertTrue(c.closed_by_broker())
        c.close()
        self.assert_healthy()

    def test_pipelined_requests_are_answered_in_order(self):
        # kafka-python sends ApiVersions and Metadata before reading either.
        c = Conn(self.broker)
        c.send(api_versions_v0(1) + metadata_v0(2) + api_versions_v0(3))
        self.assertEqual([c.response()[0] for _ in range(3)], [1, 2, 3])
        c.close()

    def test_unsupported_api_versions_version_gets_an_error_with_our_ranges(self):
        c = Conn(self.broker)
        c.send(frame(header(18, 99, 7, flexible=True)))
        corr, body = c.response()
        self.assertEqual(corr, 7)
        error, count = struct.unpack(">hi", body[:6])
        self.assertEqual(error, 35)  # UNSUPPORTED_VERSION
        keys = [struct.unpack(">hhh", body[6 + 6 * i:12 + 6 * i]) for i in range(count)]
        self.assertIn((18, 0, 3), keys)
        self.assertIn((0, 0, 9), keys)
        self.assertIn((1, 0, 13), keys)  # Fetch v0-v3 are served down-converted
        c.close()

    def test_bytes_after_a_complete_body_are_ignored_as_kafka_does(self):
        # librdkafka 2.0 sends three stray bytes after an OffsetFetch v7 body;
        # Kafka answers such requests, so the broker must too.
        c = Conn(self.broker)
        c.send(frame(header(3, 0, 77) + struct.pack(">i", 0) + b"extra"))
        r = c.response()
        self.assertIsNotNone(r, self.broker.log())
        self.assertEqual(r[0], 77)
        c.close()

    def test_frame_sizes(self):
        self.expect_closed(struct.pack(">i", -1))
        self.expect_closed(struct.pack(">i", 0))
        self.expect_closed(struct.pack(">i", 2**31 - 1))  # far over socket.request.max.bytes
        self.expect_closed(struct.pack(">i", 1048577) + b"\x00" * 100)

    def test_truncated_frames(self):
        full = metadata_v0(9, [b"some-topic"])
        for cut in (2, 4, 6, 10, len(full) - 1):
            self.expect_closed(full[:cut], shutdown_write=True)

    def test_unknown_api_key_and_version(self):
        self.expect_closed(frame(header(999, 0, 1)))
        self.expect_closed(frame(header(-5, 0, 1)))
        self.expect_closed(frame(header(3, 99, 1)))   # Metadata v99
        self.expect_closed(frame(header(0, 0, 1)))    # Produce v0 without a body

    def test_bad_header(self):
        self.expect_closed(frame(struct.pack(">hh", 3, 0)))  # no correlation id
        self.expect_closed(frame(struct.pack(">hhih", 3, 0, 1, -7)))  # client id length -7
        self.expect_closed(frame(struct.pack(">hhih", 3, 0, 1, 300) + b"x"))  # overruns

    def test_bad_array_and_string_lengths(self):
        md = lambda v, body, flex=False: frame(header(3, v, 1, flexible=flex) + body)
        self.expect_closed(md(1, struct.pack(">i", -2)))              # negative array count
        self.expect_closed(md(1, struct.pack(">i", 2**31 - 1)))       # huge array count
        self.expect_closed(md(1, struct.pack(">ih", 1, -5)))          # negative string length
        self.expect_closed(md(1, struct.pack(">ih", 1, 32767)))       # string overruns frame
        self.expect_closed(md(1, struct.pack(">ih", 1, -1)))          # null where not nullable
        self.expect_closed(md(1, struct.pack(">i", 1)))               # array cut short

    def test_bad_compact_encodings_and_tagged_fields(self):
        md = lambda body: frame(header(3, 9, 1, flexible=True) + body)
        self.expect_closed(md(uvarint(2**31)))                        # huge compact array
        self.expect_closed(md(uvarint(2) + uvarint(2**31) + b"x"))    # huge compact string
        self.expect_closed(md(b"\xff" * 11))                          # overlong varint
        # Valid topics array, then a tagged-field section claiming 2^31 fields.
        self.expect_closed(md(uvarint(1) + b"\x00\x00\x00" + uvarint(2**31)))
        # A tagged field whose size overruns the frame.
        self.expect_closed(md(uvarint(1) + b"\x00\x00\x00" + uvarint(1) + uvarint(0) + uvarint(1000)))

    def test_bad_produce_record_sets(self):
        def produce(records_len, payload):
            body = struct.pack(">hhi", -1, 1, 1000)       # transactional id null, acks 1, timeout
            body += struct.pack(">i", 1) + struct.pack(">h", 1) + b"t"
            body += struct.pack(">i", 1) + struct.pack(">i", 0)
            body += struct.pack(">i", records_len) + payload
            return frame(header(0, 3, 1) + body)
        self.expect_closed(produce(-5, b""))
        self.expect_closed(produce(2**31 - 1, b"abc"))
        # A well-formed request whose record set is garbage gets a per-partition
        # error, not a closed connection. (Metadata first auto-creates "t".)
        c = Conn(self.broker)
        c.send(metadata_v0(5, [b"t"]))
        self.assertEqual(c.response()[0], 5)
        c.send(produce(20, b"\x00" * 20))
        r = c.response()
        self.assertIsNotNone(r)
        corr, body = r
        self.assertEqual(corr, 1)
        # responses[1]{name "t", partitions[1]{index 0, error_code}}
        off = 4 + 2 + 1 + 4 + 4
        (error,) = struct.unpack(">h", body[off:off + 2])
        self.assertEqual(error, 2)  # CORRUPT_MESSAGE
        # Legacy magic 1 message sets (what Produce v0-2 clients send) are
        # checked like batches: a bad CRC is CORRUPT_MESSAGE; from Produce
        # v3 on, as in Kafka, only RecordBatch v2 is allowed.
        value = b"legacy"
        msg = struct.pack(">bbq", 1, 0, 0) + struct.pack(">i", -1) + struct.pack(">i", len(value)) + value
        crc = zlib.crc32(msg)

        def legacy_produce(version, correlation_id, crc):
            entry = struct.pack(">q", 0) + struct.pack(">i", 4 + len(msg)) + struct.pack(">I", crc) + msg
            body = struct.pack(">h", -1) if version >= 3 else b""
            body += struct.pack(">hi", 1, 1000) + struct.pack(">i", 1) + struct.pack(">h", 1) + b"t"
            body += struct.pack(">i", 1) + struct.pack(">i", 0) + struct.pack(">i", len(entry)) + entry
            c.send(frame(header(0, version, correlation_id) + body))
            corr, resp = c.response()
            self.assertEqual(corr, correlation_id)
            off = 4 + 2 + 1 + 4 + 4
            return struct.unpack(">h", resp[off:off + 2])[0]

        self.assertEqual(legacy_produce(2, 6, crc ^ 1), 2)  # CORRUPT_MESSAGE
        self.assertEqual(legacy_produce(3, 7, crc), 87)  # INVALID_RECORD
        self.assertEqual(legacy_produce(2, 8, crc), 0)
        c.close()
        self.assert_healthy()


if __name__ == "__main__":
    unittest.main()
