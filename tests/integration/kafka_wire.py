"""One Kafka request on a raw socket, its body written and its response read
by a schema: a list of (field, type), where a type is "i8", "i16", "i32",
"i64", "bool", "uuid" (16 bytes), "str", "nstr" (nullable), "bytes", a list
(an array of that schema; a one-element list of a type name is an array of
that type), ("nullable", list) for a nullable array, ("struct", schema) for
a nested struct (a dict), or ("nstruct", schema) for a nullable one (None
or a dict). Flexible versions use compact
lengths and tagged fields, as the Kafka protocol defines them. Used by the
tests that check the broker's answers field by field to requests no client
library sends (duplicates, empty lists), and runnable against any broker."""
import socket
import struct

RECV_TIMEOUT_S = 30

_FIXED = {"i8": ">b", "i16": ">h", "i32": ">i", "i64": ">q", "bool": ">?", "uuid": ">16s"}


def uvarint(n):
    out = b""
    while n >= 0x80:
        out += bytes([(n & 0x7F) | 0x80])
        n >>= 7
    return out + bytes([n])


def encode(schema, value, flexible):
    out = b""
    for name, typ in schema:
        out += _encode_one(typ, value[name], flexible)
    if flexible:
        out += uvarint(0)  # no tagged fields
    return out


def _encode_one(typ, v, flexible):
    if isinstance(typ, str) and typ in _FIXED:
        return struct.pack(_FIXED[typ], v)
    if typ in ("str", "nstr", "bytes"):
        if v is None:
            return uvarint(0) if flexible else struct.pack(">h" if typ != "bytes" else ">i", -1)
        data = v.encode() if isinstance(v, str) else v
        if flexible:
            return uvarint(len(data) + 1) + data
        return struct.pack(">h" if typ != "bytes" else ">i", len(data)) + data
    if isinstance(typ, tuple) and typ[0] == "struct":
        return encode(typ[1], v, flexible)
    if isinstance(typ, tuple) and typ[0] == "nstruct":
        if v is None:
            return struct.pack(">b", -1)
        return struct.pack(">b", 1) + encode(typ[1], v, flexible)
    if isinstance(typ, tuple):  # ("nullable", element schema)
        if v is None:
            return uvarint(0) if flexible else struct.pack(">i", -1)
        typ = typ[1]
    head = uvarint(len(v) + 1) if flexible else struct.pack(">i", len(v))
    if len(typ) == 1 and isinstance(typ[0], str):
        return head + b"".join(_encode_one(typ[0], e, flexible) for e in v)
    return head + b"".join(encode(typ, e, flexible) for e in v)


class _Reader:
    def __init__(self, data, flexible):
        self.data, self.pos, self.flexible = data, 0, flexible

    def take(self, n):
        if self.pos + n > len(self.data):
            raise ValueError("response ends early at byte %d (%d more wanted)" % (self.pos, n))
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def uvarint(self):
        n, shift = 0, 0
        while True:
            b = self.take(1)[0]
            n |= (b & 0x7F) << shift
            if b < 0x80:
                return n
            shift += 7

    def length(self, wide):
        if self.flexible:
            return self.uvarint() - 1
        return struct.unpack(">i" if wide else ">h", self.take(4 if wide else 2))[0]

    def skip_tags(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())


def decode(schema, data, flexible):
    r = _Reader(data, flexible)
    out = _decode_struct(r, schema)
    if r.pos != len(data):
        raise ValueError("%d bytes left after the response" % (len(data) - r.pos))
    return out


def _decode_struct(r, schema):
    out = {}
    for name, typ in schema:
        out[name] = _decode_one(r, typ)
    if r.flexible:
        r.skip_tags()
    return out


def _decode_one(r, typ):
    if isinstance(typ, str) and typ in _FIXED:
        fmt = _FIXED[typ]
        return struct.unpack(fmt, r.take(struct.calcsize(fmt)))[0]
    if typ in ("str", "nstr", "bytes"):
        n = r.length(typ == "bytes")
        if n < 0:
            return None
        data = r.take(n)
        return data if typ == "bytes" else data.decode()
    if isinstance(typ, tuple) and typ[0] == "struct":
        return _decode_struct(r, typ[1])
    if isinstance(typ, tuple) and typ[0] == "nstruct":
        (marker,) = struct.unpack(">b", r.take(1))
        return None if marker < 0 else _decode_struct(r, typ[1])
    if isinstance(typ, tuple):
        typ = typ[1]
    n = r.length(True)
    if n < 0:
        return None
    if len(typ) == 1 and isinstance(typ[0], str):
        return [_decode_one(r, typ[0]) for _ in range(n)]
    return [_decode_struct(r, typ) for _ in range(n)]


class WireConn:
    """A connection to one broker (host, port) sending one request at a time."""

    def __init__(self, host, port, client_id="kafka-wire"):
        self.s = socket.create_connection((host, port), timeout=RECV_TIMEOUT_S)
        self.client_id = client_id.encode()
        self.correlation = 0

    def call(self, api_key, version, flexible, request_schema, request, response_schema):
        """The decoded response to `request` (a dict per request_schema)."""
        self.correlation += 1
        head = struct.pack(">hhi", api_key, version, self.correlation)
        head += struct.pack(">h", len(self.client_id)) + self.client_id
        if flexible:
            head += uvarint(0)
        body = head + encode(request_schema, request, flexible)
        self.s.sendall(struct.pack(">i", len(body)) + body)
        (size,) = struct.unpack(">i", self._exact(4))
        data = self._exact(size)
        (correlation,) = struct.unpack(">i", data[:4])
        assert correlation == self.correlation, (correlation, self.correlation)
        r = _Reader(data[4:], flexible)
        if flexible:  # response header v1 (ApiVersions keeps v0; not sent here)
            r.skip_tags()
        return decode(response_schema, data[4 + r.pos:], flexible)

    def _exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("the broker closed the connection")
            buf += chunk
        return buf

    def close(self):
        self.s.close()
