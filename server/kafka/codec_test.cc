#include "server/kafka/codec.h"

#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "server/kafka/header.h"
#include "server/kafka/messages/all.h"
#include "server/kafka/response.h"
#include "server/kafka/testing/filler.h"

namespace strata::kafka {
namespace {

template <typename M>
void round_trip_every_version(int16_t min, int16_t max, int16_t flexible_from) {
  for (int16_t version = min; version <= max; ++version) {
    M original;
    testing::Filler filler(version);
    original.visit(filler);
    bool flexible = version >= flexible_from;
    Writer w(version, flexible);
    w.write_struct(original);
    auto bytes = concat(w.finish(false));
    Reader r(bytes, 0, version, flexible, 1 << 20);
    M decoded;
    r.read_struct(decoded);
    ASSERT_TRUE(r.ok()) << typeid(M).name() << " v" << version << ": " << r.error();
    EXPECT_EQ(r.remaining(), 0u) << typeid(M).name() << " v" << version;
    EXPECT_TRUE(decoded == original) << typeid(M).name() << " v" << version;
    // Every proper prefix is rejected, never misread as a whole message.
    for (size_t cut = 0; cut < bytes.size(); cut += std::max<size_t>(1, bytes.size() / 23)) {
      Reader partial(bytes.slice(0, cut), 0, version, flexible, 1 << 20);
      M m;
      partial.read_struct(m);
      EXPECT_TRUE(!partial.ok() || cut == bytes.size())
          << typeid(M).name() << " v" << version << " cut at " << cut;
    }
  }
}

template <typename Req, typename Resp>
void round_trip_api() {
  round_trip_every_version<Req>(Req::kMinVersion, Req::kMaxVersion, Req::kFlexibleFrom);
  round_trip_every_version<Resp>(Req::kMinVersion, Req::kMaxVersion, Req::kFlexibleFrom);
}

TEST(Codec, EveryMessageRoundTripsAtEveryVersion) {
  round_trip_api<ApiVersionsRequest, ApiVersionsResponse>();
  round_trip_api<MetadataRequest, MetadataResponse>();
  round_trip_api<ProduceRequest, ProduceResponse>();
  round_trip_api<FetchRequest, FetchResponse>();
  round_trip_api<ListOffsetsRequest, ListOffsetsResponse>();
  round_trip_api<CreateTopicsRequest, CreateTopicsResponse>();
  round_trip_api<DeleteTopicsRequest, DeleteTopicsResponse>();
  round_trip_api<CreatePartitionsRequest, CreatePartitionsResponse>();
  round_trip_api<DescribeConfigsRequest, DescribeConfigsResponse>();
  round_trip_api<AlterConfigsRequest, AlterConfigsResponse>();
  round_trip_api<IncrementalAlterConfigsRequest, AlterConfigsResponse>();
  round_trip_api<DeleteRecordsRequest, DeleteRecordsResponse>();
  round_trip_api<ElectLeadersRequest, ElectLeadersResponse>();
  round_trip_api<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse>();
  round_trip_api<InitProducerIdRequest, InitProducerIdResponse>();
  round_trip_api<DescribeClusterRequest, DescribeClusterResponse>();
  round_trip_api<FindCoordinatorRequest, FindCoordinatorResponse>();
  round_trip_api<JoinGroupRequest, JoinGroupResponse>();
  round_trip_api<SyncGroupRequest, SyncGroupResponse>();
  round_trip_api<HeartbeatRequest, HeartbeatResponse>();
  round_trip_api<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse>();
  round_trip_api<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse>();
  round_trip_api<LeaveGroupRequest, LeaveGroupResponse>();
  round_trip_api<OffsetCommitRequest, OffsetCommitResponse>();
  round_trip_api<OffsetFetchRequest, OffsetFetchResponse>();
  round_trip_api<ListGroupsRequest, ListGroupsResponse>();
  round_trip_api<DescribeGroupsRequest, DescribeGroupsResponse>();
  round_trip_api<DeleteGroupsRequest, DeleteGroupsResponse>();
  round_trip_api<OffsetDeleteRequest, OffsetDeleteResponse>();
  round_trip_api<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse>();
  round_trip_api<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse>();
  round_trip_api<EndTxnRequest, EndTxnResponse>();
  round_trip_api<WriteTxnMarkersRequest, WriteTxnMarkersResponse>();
  round_trip_api<TxnOffsetCommitRequest, TxnOffsetCommitResponse>();
  round_trip_api<DescribeProducersRequest, DescribeProducersResponse>();
  round_trip_api<DescribeLogDirsRequest, DescribeLogDirsResponse>();
  round_trip_api<DescribeTransactionsRequest, DescribeTransactionsResponse>();
  round_trip_api<ListTransactionsRequest, ListTransactionsResponse>();
}

std::vector<uint8_t> bytes_of(const std::vector<SharedBytes>& parts) {
  auto all = concat(parts);
  return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(all.data()),
                              reinterpret_cast<const uint8_t*>(all.data()) + all.size());
}

TEST(Codec, MetadataV0RequestHasTheKnownLayout) {
  MetadataRequest req;
  req.topics = std::vector<MetadataRequest::Topic>{{kZeroUuid, "ab"}};
  auto b = bytes_of(encode_request(RequestHeader{3, 0, 7, "c"}, req));
  std::vector<uint8_t> want = {0, 0, 0,   19,                // size
                               0, 3, 0,   0,  0, 0, 0,   7,  // key 3, v0, correlation 7
                               0, 1, 'c',                    // client id
                               0, 0, 0,   1,  0, 2, 'a', 'b'};
  EXPECT_EQ(b, want);
}

TEST(Codec, FlexibleVersionsUseCompactLengthsAndTagSections) {
  MetadataRequest req;
  req.topics = std::vector<MetadataRequest::Topic>{{kZeroUuid, "ab"}};
  req.allow_auto_topic_creation = false;
  auto b = bytes_of(encode_request(RequestHeader{3, 9, 1, std::nullopt}, req));
  std::vector<uint8_t> want = {0,    0,    0,   20,              // size
                               0,    3,    0,   9,  0, 0, 0, 1,  // key 3, v9, correlation 1
                               0xFF, 0xFF,                       // null client id (old encoding)
                               0,                                // header tags
                               2,                                // compact array of 1
                               3,    'a',  'b',                  // compact string
                               0,                                // topic tags
                               0,                                // allow auto creation
                               0,                                // include cluster authorized ops
                               0,                                // include topic authorized ops
                               0};                               // body tags
  EXPECT_EQ(b, want);
}

JoinGroupRequest sample_join_group() {
  JoinGroupRequest req;
  req.group_id = "g";
  req.session_timeout_ms = 10000;
  req.rebalance_timeout_ms = 300000;
  req.group_instance_id = "i";  // v5+ only
  req.protocol_type = "consumer";
  req.protocols = {{"range", Bytes{std::byte{1}, std::byte{2}}}};
  return req;
}

TEST(Codec, JoinGroupV1RequestHasTheKnownLayout) {
  auto b = bytes_of(encode_request(RequestHeader{11, 1, 7, "c"}, sample_join_group()));
  std::vector<uint8_t> want = {0, 0,    0,    51,                      // size
                               0, 11,   0,    1,    0,   0,   0,   7,  // key 11, v1, correlation 7
                               0, 1,    'c',                           // client id
                               0, 1,    'g',                           // group id
                               0, 0,    0x27, 0x10,                    // session timeout 10000
                               0, 0x04, 0x93, 0xE0,                    // rebalance timeout 300000
                               0, 0,                                   // empty member id
                               0, 8,    'c',  'o',  'n', 's', 'u', 'm', 'e', 'r',  // protocol type
                               0, 0,    0,    1,                                   // one protocol
                               0, 5,    'r',  'a',  'n', 'g', 'e',                 // its name
                               0, 0,    0,    2,    1,   2};                       // its metadata
  EXPECT_EQ(b, want);
}

TEST(Codec, JoinGroupV6RequestHasTheKnownLayout) {
  auto b = bytes_of(encode_request(RequestHeader{11, 6, 7, "c"}, sample_join_group()));
  std::vector<uint8_t> want = {0, 0,    0,    46,                      // size
                               0, 11,   0,    6,    0,   0,   0,   7,  // key 11, v6, correlation 7
                               0, 1,    'c',                           // client id (old encoding)
                               0,                                      // header tags
                               2, 'g',                                 // group id
                               0, 0,    0x27, 0x10,                    // session timeout 10000
                               0, 0x04, 0x93, 0xE0,                    // rebalance timeout 300000
                               1,                                      // empty member id
                               2, 'i',                                 // group instance id
                               9, 'c',  'o',  'n',  's', 'u', 'm', 'e', 'r',  // protocol type
                               2,                                             // one protocol
                               6, 'r',  'a',  'n',  'g', 'e',                 // its name
                               3, 1,    2,                                    // its metadata
                               0,                                             // protocol tags
                               0};                                            // body tags
  EXPECT_EQ(b, want);
}

// Encodes a message body alone and checks it decodes cleanly.
template <typename M>
std::vector<uint8_t> body_bytes(const M& m, int16_t version, bool flexible) {
  Writer w(version, flexible);
  w.write_struct(m);
  auto all = concat(w.finish(false));
  Reader r(all, 0, version, flexible, 1 << 20);
  M back;
  r.read_struct(back);
  EXPECT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.remaining(), 0u);
  return bytes_of({all});
}

OffsetCommitRequest sample_offset_commit() {
  OffsetCommitRequest req;
  req.group_id = "g";
  req.generation_id_or_member_epoch = 5;
  req.member_id = "m";
  OffsetCommitRequest::Partition p;
  p.partition_index = 0;
  p.committed_offset = 42;
  p.committed_leader_epoch = 3;  // v6+ only
  req.topics = {{"t", {p}}};     // null metadata, null instance id
  return req;
}

TEST(Codec, OffsetCommitV2RequestHasTheKnownLayout) {
  auto b = body_bytes(sample_offset_commit(), 2, false);
  std::vector<uint8_t> want = {0,    1,    'g',                                 // group id
                               0,    0,    0,    5,                             // generation 5
                               0,    1,    'm',                                 // member id
                               0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // retention -1
                               0,    0,    0,    1,                             // one topic
                               0,    1,    't',                                 // its name
                               0,    0,    0,    1,                             // one partition
                               0,    0,    0,    0,                             // partition 0
                               0,    0,    0,    0,    0,    0,    0,    42,    // offset 42
                               0xFF, 0xFF};                                     // null metadata
  EXPECT_EQ(b, want);
}

TEST(Codec, OffsetCommitV8RequestHasTheKnownLayout) {
  auto b = body_bytes(sample_offset_commit(), 8, true);
  std::vector<uint8_t> want = {2, 'g',                     // group id
                               0, 0,   0, 5,               // generation 5
                               2, 'm',                     // member id
                               0,                          // null group instance id
                               2,                          // one topic
                               2, 't',                     // its name
                               2,                          // one partition
                               0, 0,   0, 0,               // partition 0
                               0, 0,   0, 0, 0, 0, 0, 42,  // offset 42
                               0, 0,   0, 3,               // leader epoch 3
                               0,                          // null metadata
                               0,                          // partition tags
                               0,                          // topic tags
                               0};                         // body tags
  EXPECT_EQ(b, want);
}

TEST(Codec, ApiVersionsResponseKeepsHeaderV0EvenWhenFlexible) {
  ApiVersionsResponse resp;
  auto b = bytes_of(encode_response(5, 18, 3, resp));
  // size | correlation | error_code | compact array (0 entries -> 1) | throttle | tags
  std::vector<uint8_t> want = {0, 0, 0, 12, 0, 0, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0};
  EXPECT_EQ(b, want);
}

TEST(Codec, ResponseHeaderTagsAreSkipped) {
  // correlation 7 | header tags: one field (tag 3, two bytes) | EndTxn v3 body:
  // throttle 9, error 47, no tags.
  const uint8_t raw[] = {0, 0, 0, 7, 1, 3, 2, 0xAA, 0xBB, 0, 0, 0, 9, 0, 47, 0};
  auto frame = SharedBytes::copy_of(std::span(reinterpret_cast<const std::byte*>(raw), sizeof raw));
  auto resp = decode_response<EndTxnResponse>(frame, 3);
  ASSERT_TRUE(resp.ok()) << resp.error().message();
  EXPECT_EQ(resp->throttle_time_ms, 9);
  EXPECT_EQ(resp->error_code, 47);
}

struct TaggedExample {
  int32_t a = 0;
  std::optional<std::string> t0;
  int64_t t5 = -1;
  template <typename V>
  void visit(V& v) {
    v.field(a, kAllVersions);
    v.tagged(t0, 0, kAllVersions);
    v.tagged(t5, 5, kAllVersions, int64_t{-1});
  }
};

TEST(Codec, TaggedFieldsAreReadByTagAndUnknownTagsSkipped) {
  std::vector<uint8_t> raw = {0, 0, 0,    9,                          // a = 9
                              3,                                      // three tagged fields
                              0, 3, 3,    'h',  'i',                  // tag 0: compact string "hi"
                              3, 2, 0xAB, 0xCD,                       // tag 3: unknown, skipped
                              5, 8, 0,    0,    0,   0, 0, 0, 1, 0};  // tag 5: int64 256
  auto frame = SharedBytes::copy_of(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(raw.data()), raw.size()));
  Reader r(frame, 0, 0, true, 1 << 20);
  TaggedExample t;
  r.read_struct(t);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_EQ(t.a, 9);
  EXPECT_EQ(t.t0, "hi");
  EXPECT_EQ(t.t5, 256);

  // Written back, the unknown tag is gone and defaults are omitted.
  t.t5 = -1;
  Writer w(0, true);
  w.write_struct(t);
  auto out = concat(w.finish(false));
  std::vector<uint8_t> want = {0, 0, 0, 9, 1, 0, 3, 3, 'h', 'i'};
  EXPECT_EQ(std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(out.data()),
                                 reinterpret_cast<const uint8_t*>(out.data()) + out.size()),
            want);
}

TEST(Codec, TaggedFieldsOutOfOrderOrOverlongAreRejected) {
  std::vector<std::vector<uint8_t>> bad = {
      {0, 0, 0, 1, 2, 5, 1, 0, 0, 1, 0},                 // tags 5 then 0
      {0, 0, 0, 1, 1, 0, 9, 3, 'h', 'i'},                // size 9 beyond the end
      {0, 0, 0, 1, 1, 5, 9, 0, 0, 0, 0, 0, 0, 0, 1, 0},  // int64 with an extra byte
  };
  for (const auto& raw : bad) {
    auto frame = SharedBytes::copy_of(
        std::span<const std::byte>(reinterpret_cast<const std::byte*>(raw.data()), raw.size()));
    Reader r(frame, 0, 0, true, 1 << 20);
    TaggedExample t;
    r.read_struct(t);
    EXPECT_FALSE(r.ok());
  }
}

TEST(Codec, HugeCountsFailBeforeAllocating) {
  // A Produce v3 body claiming 2^31-1 topics in 10 bytes.
  std::vector<uint8_t> body = {0xFF, 0xFF, 0, 1, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF};
  auto frame = SharedBytes::copy_of(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(body.data()), body.size()));
  Reader r(frame, 0, 3, false, 1 << 20);
  ProduceRequest req;
  r.read_struct(req);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("exceeds"), std::string::npos) << r.error();
}

TEST(Codec, NegativeLengthsAreRejected) {
  // Metadata v1 with a topic array holding one string of length -5.
  std::vector<uint8_t> body = {0, 0, 0, 1, 0xFF, 0xFB};
  auto frame = SharedBytes::copy_of(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(body.data()), body.size()));
  Reader r(frame, 0, 1, false, 1 << 20);
  MetadataRequest req;
  r.read_struct(req);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("negative"), std::string::npos) << r.error();
}

TEST(Codec, NullInANonNullableFieldIsRejected) {
  // Metadata v1 topic name null (names become nullable only in v10).
  std::vector<uint8_t> body = {0, 0, 0, 1, 0xFF, 0xFF};
  auto frame = SharedBytes::copy_of(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(body.data()), body.size()));
  Reader r(frame, 0, 1, false, 1 << 20);
  MetadataRequest req;
  r.read_struct(req);
  ASSERT_FALSE(r.ok());
}

TEST(Header, DecodesKnownAndUnknownApis) {
  ApiVersionsRequest req;
  auto frame = concat(encode_request(RequestHeader{18, 3, 42, "me"}, req));
  auto body = frame.slice(4, frame.size() - 4);
  auto h = decode_request_header(body).value();
  EXPECT_TRUE(h.known);
  EXPECT_EQ(h.header.correlation_id, 42);
  EXPECT_EQ(h.header.client_id, "me");
  auto decoded = decode_body<ApiVersionsRequest>(body, h, 1 << 20);
  ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();

  auto unknown = concat(encode_request(RequestHeader{18, 99, 1, "me"}, req));
  auto uh = decode_request_header(unknown.slice(4, unknown.size() - 4)).value();
  EXPECT_FALSE(uh.known);
  EXPECT_EQ(uh.header.api_version, 99);
  auto bogus = concat(encode_request(RequestHeader{999, 0, 1, "me"}, req));
  EXPECT_FALSE(decode_request_header(bogus.slice(4, bogus.size() - 4)).value().known);
}

TEST(Header, SupportedApisAreInKeyOrderWithSaneRanges) {
  int16_t last = -1;
  for (const auto& api : supported_apis()) {
    EXPECT_GT(api.key, last);
    last = api.key;
    EXPECT_LE(api.min_version, api.max_version) << api.name;
  }
}

}  // namespace
}  // namespace strata::kafka
