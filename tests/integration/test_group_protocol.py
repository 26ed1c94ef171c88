"""The classic group protocol driven by hand on raw sockets: JoinGroup v5,
SyncGroup v3, Heartbeat v3, OffsetCommit v7, OffsetFetch v5, LeaveGroup v3
and DescribeGroups v0 frames built byte by byte, each member on its own
connection (JoinGroup and SyncGroup answers wait for the rest of the group).

Misuse gets Kafka's exact error codes, and after each misuse the group is
still consistent: the good members heartbeat, sync and commit as before.
A non-"consumer" protocol type carries opaque metadata and assignments that
the broker relays byte for byte. The last class checks the initial
rebalance delay (group.initial.rebalance.delay.ms, default 3000): two
members joining 1 s apart form one generation.
"""
import random
import select
import struct
import time
import unittest

from harness import Broker
from test_bad_input import Conn, frame, header
from test_confluent import create_topic

TIMEOUT_S = 30

# Kafka error codes.
NONE = 0
COORDINATOR_LOAD_IN_PROGRESS = 14
COORDINATOR_NOT_AVAILABLE = 15
ILLEGAL_GENERATION = 22
INCONSISTENT_GROUP_PROTOCOL = 23
UNKNOWN_MEMBER_ID = 25
INVALID_SESSION_TIMEOUT = 26
REBALANCE_IN_PROGRESS = 27
MEMBER_ID_REQUIRED = 79
FENCED_INSTANCE_ID = 82

FIND_COORDINATOR, JOIN_GROUP, HEARTBEAT, LEAVE_GROUP, SYNC_GROUP = 10, 11, 12, 13, 14
OFFSET_COMMIT, OFFSET_FETCH, DESCRIBE_GROUPS = 8, 9, 15


# -- encoding ------------------------------------------------------------------

def i16(v):
    return struct.pack(">h", v)


def i32(v):
    return struct.pack(">i", v)


def i64(v):
    return struct.pack(">q", v)


def string(s):
    if s is None:
        return i16(-1)
    b = s.encode() if isinstance(s, str) else s
    return i16(len(b)) + b


def data(b):
    return i32(-1) if b is None else i32(len(b)) + b


def array(items, enc):
    return i32(len(items)) + b"".join(enc(x) for x in items)


class Reader:
    def __init__(self, body):
        self.b, self.off = body, 0

    def take(self, fmt):
        (v,) = struct.unpack_from(fmt, self.b, self.off)
        self.off += struct.calcsize(fmt)
        return v

    def i16(self):
        return self.take(">h")

    def i32(self):
        return self.take(">i")

    def i64(self):
        return self.take(">q")

    def string(self):
        n = self.i16()
        if n < 0:
            return None
        s = self.b[self.off:self.off + n].decode()
        self.off += n
        return s

    def data(self):
        n = self.i32()
        if n < 0:
            return None
        d = self.b[self.off:self.off + n]
        self.off += n
        return d

    def array(self, dec):
        return [dec() for _ in range(self.i32())]

    def end(self):
        assert self.off == len(self.b), "%d trailing byte(s) in the response" % (len(self.b) - self.off)


def subscription(topics):
    """ConsumerProtocol Subscription v0."""
    return i16(0) + array(topics, string) + data(None)


def assignment(parts):
    """ConsumerProtocol Assignment v0; parts: {topic: [partition]}."""
    return i16(0) + array(sorted(parts.items()), lambda kv: string(kv[0]) + array(kv[1], i32)) + data(None)


# -- one member's connection ---------------------------------------------------------

class Client:
    """One connection; requests are sent and their answers read separately,
    so a test can have several members waiting in JoinGroup at once."""

    def __init__(self, broker, client_id):
        self.conn = Conn(broker)
        self.conn.s.settimeout(TIMEOUT_S)
        self.client_id = client_id.encode()
        self.corr = 0
        self.sent = []

    def send(self, api_key, version, body):
        self.corr += 1
        self.conn.send(frame(header(api_key, version, self.corr, client_id=self.client_id) + body))
        self.sent.append((self.corr, api_key, version))
        return self.corr

    def recv(self):
        corr, api_key, version = self.sent.pop(0)
        r = self.conn.response()
        assert r is not None, "the broker closed the connection instead of answering api %d v%d" % (
            api_key, version)
        got_corr, body = r
        assert got_corr == corr, "correlation id %d, expected %d" % (got_corr, corr)
        return Reader(body)

    def answer_ready(self):
        """Whether an answer has arrived (without waiting)."""
        return bool(select.select([self.conn.s], [], [], 0)[0])

    def close(self):
        self.conn.close()

    # FindCoordinator v0.
    def find_coordinator(self, key):
        self.send(FIND_COORDINATOR, 0, string(key))
        r = self.recv()
        out = (r.i16(), r.i32(), r.string(), r.i32())
        r.end()
        return out

    # JoinGroup v5.
    def send_join(self, group, member_id="", instance_id=None, session_ms=6000, rebalance_ms=10000,
                  protocol_type="consumer", protocols=(("range", subscription(["t"])),)):
        body = (string(group) + i32(session_ms) + i32(rebalance_ms) + string(member_id) +
                string(instance_id) + string(protocol_type) +
                array(list(protocols), lambda p: string(p[0]) + data(p[1])))
        return self.send(JOIN_GROUP, 5, body)

    def recv_join(self):
        r = self.recv()
        out = {"throttle": r.i32(), "error": r.i16(), "generation": r.i32(), "protocol": r.string(),
               "leader": r.string(), "member_id": r.string(),
               "members": r.array(lambda: (r.string(), r.string(), r.data()))}
        r.end()
        return out

    def join(self, group, **kw):
        self.send_join(group, **kw)
        return self.recv_join()

    # SyncGroup v3.
    def send_sync(self, group, generation, member_id, assignments=(), instance_id=None):
        body = (string(group) + i32(generation) + string(member_id) + string(instance_id) +
                array(list(assignments), lambda a: string(a[0]) + data(a[1])))
        return self.send(SYNC_GROUP, 3, body)

    def recv_sync(self):
        r = self.recv()
        r.i32()
        out = (r.i16(), r.data())
        r.end()
        return out

    def sync(self, group, generation, member_id, assignments=(), instance_id=None):
        self.send_sync(group, generation, member_id, assignments, instance_id)
        return self.recv_sync()

    # Heartbeat v3.
    def heartbeat(self, group, generation, member_id, instance_id=None):
        self.send(HEARTBEAT, 3, string(group) + i32(generation) + string(member_id) + string(instance_id))
        r = self.recv()
        r.i32()
        e = r.i16()
        r.end()
        return e

    # OffsetCommit v7: offsets {(topic, partition): offset}; returns {(topic, partition): error}.
    def commit(self, group, generation, member_id, offsets, instance_id=None):
        by_topic = {}
        for (t, p), o in sorted(offsets.items()):
            by_topic.setdefault(t, []).append((p, o))
        body = (string(group) + i32(generation) + string(member_id) + string(instance_id) +
                array(sorted(by_topic.items()), lambda tp: string(tp[0]) + array(
                    tp[1], lambda po: i32(po[0]) + i64(po[1]) + i32(-1) + string("m"))))
        self.send(OFFSET_COMMIT, 7, body)
        r = self.recv()
        r.i32()
        out = {}
        for t, parts in r.array(lambda: (r.string(), r.array(lambda: (r.i32(), r.i16())))):
            for p, e in parts:
                out[(t, p)] = e
        r.end()
        return out

    # OffsetFetch v5: {(topic, partition): (offset, error)} and the group error.
    def fetch_offsets(self, group, parts):
        by_topic = {}
        for t, p in parts:
            by_topic.setdefault(t, []).append(p)
        body = string(group) + array(sorted(by_topic.items()), lambda tp: string(tp[0]) + array(tp[1], i32))
        self.send(OFFSET_FETCH, 5, body)
        r = self.recv()
        r.i32()
        out = {}
        for t, ps in r.array(lambda: (r.string(), r.array(
                lambda: (r.i32(), r.i64(), r.i32(), r.string(), r.i16())))):
            for p, o, _epoch, _meta, e in ps:
                out[(t, p)] = (o, e)
        err = r.i16()
        r.end()
        return out, err

    # LeaveGroup v3: (error, [(member_id, instance_id, error)]).
    def leave(self, group, members):
        body = string(group) + array(members, lambda m: string(m[0]) + string(m[1]))
        self.send(LEAVE_GROUP, 3, body)
        r = self.recv()
        r.i32()
        out = (r.i16(), r.array(lambda: (r.string(), r.string(), r.i16())))
        r.end()
        return out

    # DescribeGroups v0: (error, state, protocol_type, protocol, [(member_id, client_id, metadata, assignment)]).
    def describe(self, group):
        self.send(DESCRIBE_GROUPS, 0, array([group], string))
        r = self.recv()
        (g,) = r.array(lambda: (r.i16(), r.string(), r.string(), r.string(), r.string(), r.array(
            lambda: (r.string(), r.string(), r.string(), r.data(), r.data()))))
        r.end()
        err, _gid, state, ptype, proto, members = g
        return err, state, ptype, proto, sorted((m[0], m[1], m[3], m[4]) for m in members)


# -- tests -------------------------------------------------------------------------

class GroupProtocolTest(unittest.TestCase):
    """One broker (initial rebalance delay 0) for every test; each test has
    its own groups."""

    @classmethod
    def setUpClass(cls):
        cls.broker = Broker(extra_args=["--set", "group.initial.rebalance.delay.ms=0"]).start()
        try:
            create_topic(cls.broker, "t", 4)
            c = Client(cls.broker, "setup")
            # The first FindCoordinator creates __consumer_offsets.
            deadline = time.monotonic() + TIMEOUT_S
            while True:
                err, node, host, port = c.find_coordinator("any-group")
                if err == NONE:
                    break
                assert err == COORDINATOR_NOT_AVAILABLE, "FindCoordinator error %d" % err
                assert time.monotonic() < deadline, "no coordinator within %d s" % TIMEOUT_S
                time.sleep(0.05)
            assert (node, host, port) == (1, "127.0.0.1", cls.broker.port), (node, host, port)
            c.close()
        except BaseException:
            cls.broker.__exit__(None, None, None)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.broker.__exit__(None, None, None)

    def setUp(self):
        self.clients = []

    def tearDown(self):
        for c in self.clients:
            c.close()

    def client(self, name):
        c = Client(self.broker, name)
        self.clients.append(c)
        return c

    def log_tail(self):
        return "\n--- broker log (tail):\n" + "\n".join(self.broker.log().splitlines()[-30:])

    def wait_members(self, c, group, n, state="PreparingRebalance"):
        """Waits until DescribeGroups shows `group` in `state` with n members:
        a JoinGroup sent on another connection has reached the coordinator
        (its answer waits for the rebalance, so nothing else shows it)."""
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            err, got_state, _, _, members = c.describe(group)
            if (err, got_state, len(members)) == (NONE, state, n):
                return [m[0] for m in members]
            self.assertLess(time.monotonic(), deadline, "group %s: %s with %d member(s), not %s with %d%s" % (
                group, got_state, len(members), state, n, self.log_tail()))
            time.sleep(0.02)

    def join_new(self, c, group, **kw):
        """The v4+ handshake: MEMBER_ID_REQUIRED with an id, then the join
        with it (retrying while the offsets partition is still loading).
        Returns the answer to the second join (it may wait for a rebalance)."""
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            first = c.join(group, **kw)
            if first["error"] not in (COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE):
                break
            self.assertLess(time.monotonic(), deadline, "group %s still loading" % group)
            time.sleep(0.05)
        self.assertEqual(first["error"], MEMBER_ID_REQUIRED, str(first) + self.log_tail())
        self.assertEqual((first["generation"], first["members"]), (-1, []))
        self.assertTrue(first["member_id"])
        kw = dict(kw, member_id=first["member_id"])
        c.send_join(group, **kw)
        return first["member_id"]

    def stable_pair(self, group, topics=("t",)):
        """Two consumer members A (leader) and B in one Stable generation;
        returns (a, b, generation, {member: assignment bytes})."""
        a, b = self.client(group + "-a"), self.client(group + "-b")
        meta = subscription(list(topics))
        a_id = self.join_new(a, group, protocols=[("range", meta)])
        ja = a.recv_join()
        self.assertEqual((ja["error"], ja["generation"], ja["leader"], ja["member_id"]), (NONE, 1, a_id, a_id))
        self.assertEqual(a.sync(group, 1, a_id, [(a_id, assignment({"t": [0, 1, 2, 3]}))]),
                         (NONE, assignment({"t": [0, 1, 2, 3]})))
        b_id = self.join_new(b, group, protocols=[("range", meta)])
        # B's join waits for the rebalance; A learns of it from its heartbeat.
        self.assertIn(b_id, self.wait_members(a, group, 2))
        self.assertEqual(a.heartbeat(group, 1, a_id), REBALANCE_IN_PROGRESS)
        self.assertFalse(b.answer_ready())
        ja = a.join(group, member_id=a_id, protocols=[("range", meta)])
        jb = b.recv_join()
        for j in (ja, jb):
            self.assertEqual((j["error"], j["generation"], j["protocol"], j["leader"]), (NONE, 2, "range", a_id))
        self.assertEqual((ja["member_id"], jb["member_id"]), (a_id, b_id))
        self.assertEqual(sorted(ja["members"]), sorted([(a_id, None, meta), (b_id, None, meta)]))
        self.assertEqual(jb["members"], [])  # only the leader gets them
        given = {a_id: assignment({"t": [0, 1]}), b_id: assignment({"t": [2, 3]})}
        # The follower's SyncGroup waits for the leader's.
        b.send_sync(group, 2, b_id)
        self.assertEqual(a.sync(group, 2, a_id, list(given.items())), (NONE, given[a_id]))
        self.assertEqual(b.recv_sync(), (NONE, given[b_id]))
        return (a, a_id), (b, b_id), 2, given

    def assert_consistent(self, group, generation, members, offset):
        """Every good member heartbeats, re-syncs (getting its assignment) and
        commits; the commit is what OffsetFetch returns."""
        for c, mid, given in members:
            self.assertEqual(c.heartbeat(group, generation, mid), NONE, self.log_tail())
            self.assertEqual(c.sync(group, generation, mid), (NONE, given))
            self.assertEqual(c.commit(group, generation, mid, {("t", 0): offset}), {("t", 0): NONE})
            fetched, err = c.fetch_offsets(group, [("t", 0)])
            self.assertEqual((fetched, err), ({("t", 0): (offset, NONE)}, NONE))

    # -----------------------------------------------------------------------

    def test_member_id_required_then_join_with_the_given_id(self):
        group = "p-handshake"
        c = self.client(group)
        meta = subscription(["t"])
        mid = self.join_new(c, group, protocols=[("range", meta), ("roundrobin", meta)])
        j = c.recv_join()
        self.assertEqual((j["error"], j["generation"], j["protocol"], j["leader"], j["member_id"]),
                         (NONE, 1, "range", mid, mid))
        self.assertEqual(j["members"], [(mid, None, meta)])
        self.assertTrue(mid.startswith(group + "-"), mid)  # the client id, then a unique part
        given = assignment({"t": [0, 1, 2, 3]})
        self.assertEqual(c.sync(group, 1, mid, [(mid, given)]), (NONE, given))
        # A made-up member id is unknown; so is a join with it.
        self.assertEqual(c.heartbeat(group, 1, mid + "x"), UNKNOWN_MEMBER_ID)
        self.assertEqual(c.join(group, member_id="no-such-member")["error"], UNKNOWN_MEMBER_ID)
        # Another v5 join without a member id gets a different id again.
        other = self.client(group + "-2").join(group)
        self.assertEqual(other["error"], MEMBER_ID_REQUIRED)
        self.assertNotEqual(other["member_id"], mid)
        err, state, ptype, proto, members = c.describe(group)
        self.assertEqual((err, state, ptype, proto), (NONE, "Stable", "consumer", "range"))
        self.assertEqual(members, [(mid, group, meta, given)])
        self.assert_consistent(group, 1, [(c, mid, given)], 42)

    def test_generation_unknown_member_and_rebalance_errors(self):
        group = "p-errors"
        (a, a_id), (b, b_id), gen, given = self.stable_pair(group)
        good = [(a, a_id, given[a_id]), (b, b_id, given[b_id])]
        self.assert_consistent(group, gen, good, 5)
        # Heartbeat, sync and commit with the previous generation.
        self.assertEqual(a.heartbeat(group, gen - 1, a_id), ILLEGAL_GENERATION)
        self.assertEqual(b.sync(group, gen - 1, b_id), (ILLEGAL_GENERATION, b""))
        self.assertEqual(a.commit(group, gen - 1, a_id, {("t", 1): 9}), {("t", 1): ILLEGAL_GENERATION})
        self.assertEqual(a.heartbeat(group, gen + 7, a_id), ILLEGAL_GENERATION)
        self.assert_consistent(group, gen, good, 6)
        # An unknown member id.
        stranger = self.client(group + "-stranger")
        self.assertEqual(stranger.heartbeat(group, gen, "stranger-1"), UNKNOWN_MEMBER_ID)
        self.assertEqual(stranger.sync(group, gen, "stranger-1"), (UNKNOWN_MEMBER_ID, b""))
        self.assertEqual(stranger.commit(group, gen, "stranger-1", {("t", 1): 9}),
                         {("t", 1): UNKNOWN_MEMBER_ID})
        self.assertEqual(stranger.leave(group, [("stranger-1", None)]),
                         (NONE, [("stranger-1", None, UNKNOWN_MEMBER_ID)]))
        # Nothing a rejected commit carried was stored.
        self.assertEqual(a.fetch_offsets(group, [("t", 1)]), ({("t", 1): (-1, NONE)}, NONE))
        self.assert_consistent(group, gen, good, 7)

        # A third member starts a rebalance: heartbeats get
        # REBALANCE_IN_PROGRESS until the members rejoin; commits with the
        # current generation are still taken while it prepares.
        c = self.client(group + "-c")
        c_id = self.join_new(c, group, protocols=[("range", subscription(["t"]))])
        self.assertIn(c_id, self.wait_members(a, group, 3))
        self.assertEqual(a.heartbeat(group, gen, a_id), REBALANCE_IN_PROGRESS)
        self.assertEqual(b.heartbeat(group, gen, b_id), REBALANCE_IN_PROGRESS)
        self.assertEqual(b.sync(group, gen, b_id), (REBALANCE_IN_PROGRESS, b""))
        self.assertEqual(b.commit(group, gen, b_id, {("t", 2): 11}), {("t", 2): NONE})
        a.send_join(group, member_id=a_id, protocols=[("range", subscription(["t"]))])
        b.send_join(group, member_id=b_id, protocols=[("range", subscription(["t"]))])
        answers = [x.recv_join() for x in (a, b, c)]
        self.assertEqual({(j["error"], j["generation"], j["leader"]) for j in answers}, {(NONE, gen + 1, a_id)})
        self.assertEqual(sorted(m[0] for m in answers[0]["members"]), sorted([a_id, b_id, c_id]))
        gen += 1
        # Between the join and the leader's SyncGroup (CompletingRebalance):
        # commits get REBALANCE_IN_PROGRESS; heartbeats are answered NONE, as
        # current Kafka does ("consumers may start sending heartbeat after
        # join-group response"; Kafka 2.4 answered REBALANCE_IN_PROGRESS).
        self.assertEqual(c.commit(group, gen, c_id, {("t", 3): 1}), {("t", 3): REBALANCE_IN_PROGRESS})
        self.assertEqual(c.heartbeat(group, gen, c_id), NONE)
        given = {a_id: assignment({"t": [0]}), b_id: assignment({"t": [1, 2]}), c_id: assignment({"t": [3]})}
        b.send_sync(group, gen, b_id)
        c.send_sync(group, gen, c_id)
        self.assertEqual(a.sync(group, gen, a_id, list(given.items())), (NONE, given[a_id]))
        self.assertEqual(b.recv_sync(), (NONE, given[b_id]))
        self.assertEqual(c.recv_sync(), (NONE, given[c_id]))
        self.assertEqual(a.fetch_offsets(group, [("t", 2)]), ({("t", 2): (11, NONE)}, NONE))
        self.assert_consistent(group, gen, [(a, a_id, given[a_id]), (b, b_id, given[b_id]),
                                            (c, c_id, given[c_id])], 8)

        # LeaveGroup v3: B leaves; the others rejoin without it.
        self.assertEqual(b.leave(group, [(b_id, None)]), (NONE, [(b_id, None, NONE)]))
        self.assertEqual(b.heartbeat(group, gen, b_id), UNKNOWN_MEMBER_ID)
        self.assertEqual(a.heartbeat(group, gen, a_id), REBALANCE_IN_PROGRESS)
        a.send_join(group, member_id=a_id, protocols=[("range", subscription(["t"]))])
        c.send_join(group, member_id=c_id, protocols=[("range", subscription(["t"]))])
        ja, jc = a.recv_join(), c.recv_join()
        self.assertEqual({(j["error"], j["generation"]) for j in (ja, jc)}, {(NONE, gen + 1)})
        self.assertEqual(sorted(m[0] for m in ja["members"]), sorted([a_id, c_id]))
        gen += 1
        given = {a_id: assignment({"t": [0, 1]}), c_id: assignment({"t": [2, 3]})}
        c.send_sync(group, gen, c_id)
        self.assertEqual(a.sync(group, gen, a_id, list(given.items())), (NONE, given[a_id]))
        self.assertEqual(c.recv_sync(), (NONE, given[c_id]))
        self.assert_consistent(group, gen, [(a, a_id, given[a_id]), (c, c_id, given[c_id])], 9)

    def test_invalid_session_timeout(self):
        group = "p-session"
        (a, a_id), (b, b_id), gen, given = self.stable_pair(group)
        c = self.client(group + "-c")
        for ms in (5999, 0, -1, 1800001):
            with self.subTest(session_ms=ms):
                j = c.join(group, session_ms=ms)
                self.assertEqual(j["error"], INVALID_SESSION_TIMEOUT, j)
                j = c.join(group, member_id=a_id, session_ms=ms)
                self.assertEqual(j["error"], INVALID_SESSION_TIMEOUT, j)
        # Nothing changed for the group: no rebalance, same members.
        self.assert_consistent(group, gen, [(a, a_id, given[a_id]), (b, b_id, given[b_id])], 3)
        err, state, _, _, members = a.describe(group)
        self.assertEqual((err, state, sorted(m[0] for m in members)), (NONE, "Stable", sorted([a_id, b_id])))
        # The bounds themselves are allowed.
        for ms in (6000, 1800000):
            self.assertEqual(self.client(group + "-ok").join(group, session_ms=ms)["error"], MEMBER_ID_REQUIRED)

    def static_member_replaced(self, group):
        """A dynamic leader D and a static follower S (instance "inst-1") in
        generation 2; then S2 joins with the same instance id and no member
        id on a new connection: it takes S's place in the same generation
        (no rebalance) and gets S's assignment. Returns
        (d, d_id, s, s_id, s2, s2_id, given) where given maps D's and S's
        ids to their assignments."""
        meta = subscription(["t"])
        d = self.client(group + "-dynamic")
        d_id = self.join_new(d, group, protocols=[("range", meta)])
        jd = d.recv_join()
        self.assertEqual((jd["error"], jd["generation"], jd["leader"]), (NONE, 1, d_id))
        self.assertEqual(d.sync(group, 1, d_id, [(d_id, assignment({"t": [0, 1, 2, 3]}))])[0], NONE)
        # A static member joins without the MEMBER_ID_REQUIRED round trip.
        s = self.client(group + "-static")
        s.send_join(group, instance_id="inst-1", protocols=[("range", meta)])
        self.wait_members(d, group, 2)
        self.assertEqual(d.heartbeat(group, 1, d_id), REBALANCE_IN_PROGRESS)
        jd = d.join(group, member_id=d_id, protocols=[("range", meta)])
        js = s.recv_join()
        self.assertEqual({(j["error"], j["generation"], j["leader"]) for j in (jd, js)}, {(NONE, 2, d_id)})
        s_id = js["member_id"]
        self.assertEqual(sorted(jd["members"]), sorted([(d_id, None, meta), (s_id, "inst-1", meta)]))
        given = {d_id: assignment({"t": [0, 1]}), s_id: assignment({"t": [2, 3]})}
        s.send_sync(group, 2, s_id, instance_id="inst-1")
        self.assertEqual(d.sync(group, 2, d_id, list(given.items())), (NONE, given[d_id]))
        self.assertEqual(s.recv_sync(), (NONE, given[s_id]))
        self.assertEqual(s.commit(group, 2, s_id, {("t", 2): 20}, instance_id="inst-1"), {("t", 2): NONE})

        s2 = self.client(group + "-static-again")
        j2 = s2.join(group, instance_id="inst-1", protocols=[("range", meta)])
        self.assertEqual((j2["error"], j2["generation"], j2["leader"], j2["members"]), (NONE, 2, d_id, []))
        s2_id = j2["member_id"]
        self.assertNotEqual(s2_id, s_id)
        self.assertEqual(s2.sync(group, 2, s2_id, instance_id="inst-1"), (NONE, given[s_id]))
        self.assertEqual(d.heartbeat(group, 2, d_id), NONE)
        return d, d_id, s, s_id, s2, s2_id, given

    def assert_static_group_carries_on(self, group, d, d_id, s2, s2_id, s_assignment, d_assignment, offset):
        """Same generation 2; D and S2 (holding S's old assignment) heartbeat,
        sync and commit."""
        err, state, _, _, members = d.describe(group)
        self.assertEqual((err, state), (NONE, "Stable"))
        self.assertEqual(sorted((m[0], m[3]) for m in members),
                         sorted([(d_id, d_assignment), (s2_id, s_assignment)]))
        for c, mid, inst, asg in ((d, d_id, None, d_assignment), (s2, s2_id, "inst-1", s_assignment)):
            self.assertEqual(c.heartbeat(group, 2, mid, instance_id=inst), NONE)
            self.assertEqual(c.sync(group, 2, mid, instance_id=inst), (NONE, asg))
            self.assertEqual(c.commit(group, 2, mid, {("t", 2): offset}, instance_id=inst), {("t", 2): NONE})
        self.assertEqual(d.fetch_offsets(group, [("t", 2)]), ({("t", 2): (offset, NONE)}, NONE))

    def test_fenced_static_member(self):
        group = "p-static"
        d, d_id, s, s_id, s2, s2_id, given = self.static_member_replaced(group)
        # The old member id is fenced: commit, heartbeat, sync, leave.
        self.assertEqual(s.commit(group, 2, s_id, {("t", 2): 99}, instance_id="inst-1"),
                         {("t", 2): FENCED_INSTANCE_ID})
        self.assertEqual(s.fetch_offsets(group, [("t", 2)]), ({("t", 2): (20, NONE)}, NONE))
        self.assertEqual(s.heartbeat(group, 2, s_id, instance_id="inst-1"), FENCED_INSTANCE_ID)
        self.assertEqual(s.sync(group, 2, s_id, instance_id="inst-1"), (FENCED_INSTANCE_ID, b""))
        self.assertEqual(s.leave(group, [(s_id, "inst-1")]), (NONE, [(s_id, "inst-1", FENCED_INSTANCE_ID)]))
        self.assert_static_group_carries_on(group, d, d_id, s2, s2_id, given[s_id], given[d_id], 21)
        # The static member leaves by instance id (no member id needed).
        self.assertEqual(s2.leave(group, [("", "inst-1")]), (NONE, [("", "inst-1", NONE)]))
        self.assertEqual(d.heartbeat(group, 2, d_id), REBALANCE_IN_PROGRESS)

    def test_fenced_static_member_rejoining_with_its_old_id(self):
        # Kafka (GroupCoordinator.doCurrentMemberJoinGroup) checks
        # isStaticMemberFenced before the member lookup: FENCED_INSTANCE_ID,
        # so the stale instance shuts down instead of rejoining.
        group = "p-static-rejoin"
        d, d_id, s, s_id, s2, s2_id, given = self.static_member_replaced(group)
        j = s.join(group, member_id=s_id, instance_id="inst-1", protocols=[("range", subscription(["t"]))])
        self.assertEqual((j["error"], j["member_id"]), (FENCED_INSTANCE_ID, s_id), j)
        self.assert_static_group_carries_on(group, d, d_id, s2, s2_id, given[s_id], given[d_id], 22)

    def test_opaque_protocol_type_is_relayed_unchanged(self):
        group = "p-myproto"
        rng = random.Random(11)
        # Three members, three preference orders: "alpha" wins the vote 2-1,
        # "gamma" is not supported by everyone.
        prefs = [["beta", "alpha"], ["alpha", "beta", "gamma"], ["alpha", "gamma", "beta"]]
        metas = [{name: rng.randbytes(rng.randrange(0, 2000)) + b"\x00\xff" for name in p} for p in prefs]
        cs = [self.client("%s-%d" % (group, i)) for i in range(3)]
        ids = []
        # The first member forms generation 1 alone.
        ids.append(self.join_new(cs[0], group, protocol_type="myproto",
                                 protocols=[(n, metas[0][n]) for n in prefs[0]]))
        j0 = cs[0].recv_join()
        self.assertEqual((j0["error"], j0["generation"], j0["protocol"]), (NONE, 1, "beta"))
        self.assertEqual(j0["members"], [(ids[0], None, metas[0]["beta"])])
        self.assertEqual(cs[0].sync(group, 1, ids[0], [(ids[0], b"solo")]), (NONE, b"solo"))
        # A member of another protocol type, or with no protocol in common, is refused.
        self.assertEqual(self.client(group + "-consumer").join(group)["error"], INCONSISTENT_GROUP_PROTOCOL)
        self.assertEqual(self.client(group + "-none").join(
            group, protocol_type="myproto", protocols=[("gamma", b"g")])["error"], INCONSISTENT_GROUP_PROTOCOL)
        for i in (1, 2):
            ids.append(self.join_new(cs[i], group, protocol_type="myproto",
                                     protocols=[(n, metas[i][n]) for n in prefs[i]]))
        self.assertEqual(sorted(self.wait_members(cs[0], group, 3)), sorted(ids))
        self.assertEqual(cs[0].heartbeat(group, 1, ids[0]), REBALANCE_IN_PROGRESS)
        cs[0].send_join(group, member_id=ids[0], protocol_type="myproto",
                        protocols=[(n, metas[0][n]) for n in prefs[0]])
        answers = [c.recv_join() for c in cs]
        for j, mid in zip(answers, ids):
            self.assertEqual((j["error"], j["generation"], j["protocol"], j["leader"], j["member_id"]),
                             (NONE, 2, "alpha", ids[0], mid))
        # The leader gets each member's "alpha" metadata byte for byte.
        self.assertEqual(sorted(answers[0]["members"]),
                         sorted((mid, None, metas[i]["alpha"]) for i, mid in enumerate(ids)))
        given = {mid: rng.randbytes(rng.randrange(0, 3000)) + b"\x00" for mid in ids}
        given[ids[2]] = b""  # an empty assignment is relayed as empty
        for i in (1, 2):
            cs[i].send_sync(group, 2, ids[i])
        self.assertEqual(cs[0].sync(group, 2, ids[0], list(given.items())), (NONE, given[ids[0]]))
        for i in (1, 2):
            self.assertEqual(cs[i].recv_sync(), (NONE, given[ids[i]]))
        err, state, ptype, proto, members = cs[1].describe(group)
        self.assertEqual((err, state, ptype, proto), (NONE, "Stable", "myproto", "alpha"))
        self.assertEqual(members, sorted((mid, "%s-%d" % (group, i), metas[i]["alpha"], given[mid])
                                         for i, mid in enumerate(ids)))
        # Heartbeats, commits and offsets work for any protocol type.
        for c, mid in zip(cs, ids):
            self.assertEqual(c.heartbeat(group, 2, mid), NONE)
            self.assertEqual(c.commit(group, 2, mid, {("t", 1): 77}), {("t", 1): NONE})
        self.assertEqual(cs[2].fetch_offsets(group, [("t", 1)]), ({("t", 1): (77, NONE)}, NONE))


class InitialDelayTest(unittest.TestCase):
    """The default group.initial.rebalance.delay.ms (3000): the first join
    of an empty group waits for others."""

    def setUp(self):
        self.broker = Broker().start()
        self.clients = []

    def tearDown(self):
        for c in self.clients:
            c.close()
        self.broker.__exit__(None, None, None)

    def test_two_members_joining_one_second_apart_form_one_generation(self):
        group = "delayed"
        create_topic(self.broker, "t", 2)
        a, b = Client(self.broker, "a"), Client(self.broker, "b")
        self.clients += [a, b]
        meta = subscription(["t"])
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            first = a.join(group, rebalance_ms=4000)
            if first["error"] != COORDINATOR_NOT_AVAILABLE and first["error"] != COORDINATOR_LOAD_IN_PROGRESS:
                break
            self.assertLess(time.monotonic(), deadline, "no coordinator for %s" % group)
            time.sleep(0.05)
        self.assertEqual(first["error"], MEMBER_ID_REQUIRED)
        a_id = first["member_id"]
        a.send_join(group, member_id=a_id, rebalance_ms=4000, protocols=[("range", meta)])
        # The scenario: B arrives one second after A (input, not a wait for anything).
        time.sleep(1.0)
        a_answered_before_b = a.answer_ready()
        jb = b.join(group, rebalance_ms=4000)
        self.assertEqual(jb["error"], MEMBER_ID_REQUIRED)
        b_id = jb["member_id"]
        b.send_join(group, member_id=b_id, rebalance_ms=4000, protocols=[("range", meta)])
        ja, jb = a.recv_join(), b.recv_join()
        self.assertEqual((ja["error"], jb["error"]), (NONE, NONE))
        self.assertEqual((ja["generation"], jb["generation"]), (1, 1),
                         "A was answered before B joined: %s; broker log:\n%s" % (
                             a_answered_before_b, self.broker.log()))
        self.assertEqual((ja["leader"], jb["leader"]), (a_id, a_id))
        self.assertEqual(sorted(m[0] for m in ja["members"]), sorted([a_id, b_id]))
        given = {a_id: assignment({"t": [0]}), b_id: assignment({"t": [1]})}
        b.send_sync(group, 1, b_id)
        self.assertEqual(a.sync(group, 1, a_id, list(given.items())), (NONE, given[a_id]))
        self.assertEqual(b.recv_sync(), (NONE, given[b_id]))
        generations = [ln for ln in self.broker.log().splitlines() if "group %s: generation" % group in ln]
        self.assertEqual(len(generations), 1, generations)
        self.assertIn("generation 1 with 2 member(s)", generations[0])


if __name__ == "__main__":
    unittest.main()
