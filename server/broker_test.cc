// A whole broker in-process, driven through the wire protocol.
#include "server/broker.h"

#include <future>
#include <map>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "engine/batch_builder.h"
#include "engine/compression.h"
#include "engine/legacy_records.h"
#include "server/group_lag.h"
#include "server/kafka/messages/all.h"
#include "server/testing/wire_client.h"

namespace strata::server {
namespace {

class BrokerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BrokerConfig cfg;
    cfg.data_dir = dir_.path() / "data";
    cfg.listen_port = 0;
    cfg.cores = 2;
    cfg.log_level = "warn";
    broker_ = Broker::start(cfg).value();
    client_ = std::make_unique<testing::WireClient>("127.0.0.1", broker_->port());
  }
  void TearDown() override {
    client_.reset();
    ASSERT_TRUE(broker_->stop().ok());
  }

  void create_topic(const std::string& name, int32_t partitions) {
    kafka::CreateTopicsRequest req;
    req.topics.push_back({name, partitions, 1, {}, {}});
    auto resp = client_->call<kafka::CreateTopicsRequest, kafka::CreateTopicsResponse>(req, 5);
    ASSERT_EQ(resp.topics.at(0).error_code, 0) << resp.topics[0].error_message.value_or("");
  }

  int64_t produce(const std::string& topic, int32_t partition, int records) {
    engine::BatchBuilder b;
    for (int i = 0; i < records; ++i)
      b.add({.key = "k", .value = "v", .timestamp = 1});
    auto bytes = b.build().value();
    kafka::ProduceRequest req;
    req.acks = -1;
    kafka::ProduceRequest::Partition p;
    p.index = partition;
    p.records.slices = {SharedBytes::copy_of(bytes)};
    req.topics.push_back({topic, {p}});
    auto resp = client_->call<kafka::ProduceRequest, kafka::ProduceResponse>(req, 7);
    EXPECT_EQ(resp.responses.at(0).partitions.at(0).error_code, 0);
    return resp.responses[0].partitions[0].base_offset;
  }

  kafka::ProduceResponse::Partition produce_raw(const std::string& topic, int32_t partition,
                                                std::vector<std::byte> records, int16_t version) {
    kafka::ProduceRequest req;
    req.acks = -1;
    kafka::ProduceRequest::Partition p;
    p.index = partition;
    p.records.slices = {SharedBytes::adopt(std::move(records))};
    req.topics.push_back({topic, {p}});
    auto resp = client_->call<kafka::ProduceRequest, kafka::ProduceResponse>(req, version);
    return resp.responses.at(0).partitions.at(0);
  }

  // One fetch of `offsets` (partition -> offset) of `topic`, no waiting.
  kafka::FetchResponse fetch(const std::string& topic, const std::map<int32_t, int64_t>& offsets,
                             int16_t version, int32_t max_bytes, int32_t partition_max_bytes) {
    kafka::FetchRequest req;
    req.max_wait_ms = 0;
    req.min_bytes = 0;
    req.max_bytes = max_bytes;
    kafka::FetchRequest::Topic t;
    t.topic = topic;
    for (const auto& [p, o] : offsets) {
      kafka::FetchRequest::Partition fp;
      fp.partition = p;
      fp.fetch_offset = o;
      fp.partition_max_bytes = partition_max_bytes;
      t.partitions.push_back(fp);
    }
    req.topics.push_back(t);
    return client_->call<kafka::FetchRequest, kafka::FetchResponse>(req, version);
  }

  std::vector<PartitionLag> lag(const std::string& group) {
    std::promise<Result<std::vector<PartitionLag>>> p;
    broker_->shard(0).post(
        [&] { group_lag(*broker_, 0, group, [&](auto r) { p.set_value(std::move(r)); }); });
    return p.get_future().get().value();
  }

  strata::testing::TempDir dir_;
  std::unique_ptr<Broker> broker_;
  std::unique_ptr<testing::WireClient> client_;
};

TEST_F(BrokerTest, PortZeroAdvertisesTheBoundPort) {
  EXPECT_NE(broker_->port(), 0);
  kafka::MetadataRequest req;
  req.topics.emplace();
  auto resp = client_->call<kafka::MetadataRequest, kafka::MetadataResponse>(req, 9);
  ASSERT_EQ(resp.brokers.size(), 1u);
  EXPECT_EQ(resp.brokers[0].port, broker_->port());
}

TEST_F(BrokerTest, GroupLagIsTheHighWatermarkMinusTheCommittedOffset) {
  create_topic("orders", 2);
  produce("orders", 0, 10);
  produce("orders", 1, 4);
  // The group coordinator's topic comes with FindCoordinator.
  kafka::FindCoordinatorRequest fc;
  fc.key = "billing";
  auto found = client_->call<kafka::FindCoordinatorRequest, kafka::FindCoordinatorResponse>(fc, 2);
  ASSERT_EQ(found.error_code, 0);
  EXPECT_EQ(found.port, broker_->port());

  kafka::OffsetCommitRequest commit;
  commit.group_id = "billing";
  commit.topics.push_back({"orders", {{0, 7, -1, -1, std::nullopt}, {1, 4, -1, -1, std::nullopt}}});
  auto committed =
      client_->call<kafka::OffsetCommitRequest, kafka::OffsetCommitResponse>(commit, 2);
  ASSERT_EQ(committed.topics.at(0).partitions.at(0).error_code, 0);
  ASSERT_EQ(committed.topics.at(0).partitions.at(1).error_code, 0);

  auto lags = lag("billing");
  ASSERT_EQ(lags.size(), 2u);
  EXPECT_EQ(lags[0].partition, 0);
  EXPECT_EQ(lags[0].committed, 7);
  EXPECT_EQ(lags[0].high_watermark, 10);
  EXPECT_EQ(lags[0].lag, 3);
  EXPECT_EQ(lags[1].lag, 0);
  produce("orders", 1, 5);
  EXPECT_EQ(lag("billing")[1].lag, 5);
  EXPECT_TRUE(lag("nobody").empty());
}

struct Seen {
  int64_t offset;
  std::optional<std::string> key;
  std::optional<std::string> value;
  int64_t timestamp;
  bool operator==(const Seen&) const = default;
};

std::optional<std::string> text(std::optional<std::span<const std::byte>> s) {
  if (!s) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(s->data()), s->size());
}

// The records of a fetched partition: v2 batches (Fetch v4+) or a legacy
// message set (v0-v3). Fails the test on anything malformed or partial.
std::vector<Seen> records_of(const kafka::Records& records, int16_t version) {
  std::vector<Seen> out;
  for (const auto& slice : records.slices) {
    if (version <= 3) {
      auto st =
          engine::for_each_legacy_record(slice.span(), {}, [&](const engine::LegacyRecord& r) {
            EXPECT_EQ(r.magic, version <= 1 ? 0 : 1);
            out.push_back(Seen{r.offset.value(), text(r.key), text(r.value), r.timestamp});
            return true;
          });
      EXPECT_TRUE(st.ok()) << st.error().to_string();
      continue;
    }
    size_t pos = 0;
    while (pos < slice.size()) {
      auto size = static_cast<size_t>(engine::peek_batch_size(slice.data() + pos));
      auto batch = slice.span().subspan(pos, std::min(size, slice.size() - pos));
      auto h = engine::check_batch_integrity(batch);
      EXPECT_TRUE(h.ok()) << h.error().to_string();
      if (!h) return out;
      auto plain =
          engine::decompress(h->compression(), batch.subspan(engine::kBatchHeaderSize), 64 << 20)
              .value();
      auto st = engine::for_each_record(plain, h->records_count, [&](const engine::RecordView& r) {
        TimestampMs ts =
            h->log_append_time() ? h->max_timestamp : h->base_timestamp + r.timestamp_delta;
        out.push_back(
            Seen{h->base_offset + r.offset_delta - Offset(0), text(r.key), text(r.value), ts});
        return true;
      });
      EXPECT_TRUE(st.ok());
      pos += size;
    }
  }
  return out;
}

TEST_F(BrokerTest, FetchResponsesStayWithinTheRequestMaxBytesAcrossPartitions) {
  constexpr int kPartitions = 30;
  constexpr int kBatches = 4;
  constexpr int kRecords = 20;
  create_topic("wide", kPartitions);
  for (int p = 0; p < kPartitions; ++p) {
    for (int b = 0; b < kBatches; ++b) {
      engine::BatchBuilder builder;
      for (int i = 0; i < kRecords; ++i) {
        builder.add({.key = std::to_string(p), .value = std::string(500, 'a' + b), .timestamp = 7});
      }
      ASSERT_EQ(produce_raw("wide", p, builder.build().value(), 7).error_code, 0);
    }
  }
  // max_bytes exists from Fetch v3; v3 is served down-converted to magic 1.
  for (int16_t version : {11, 4, 3}) {
    SCOPED_TRACE(version);
    constexpr int32_t kMaxBytes = 40000;  // about four batches
    std::map<int32_t, int64_t> offsets;
    for (int p = 0; p < kPartitions; ++p)
      offsets[p] = 0;
    int fetches = 0;
    size_t total = 0;
    while (total < static_cast<size_t>(kPartitions * kBatches * kRecords)) {
      ASSERT_LT(++fetches, 1000) << "no progress";
      auto resp = fetch("wide", offsets, version, kMaxBytes, 10 << 20);
      // The whole response, not just its records, stays within max_bytes.
      EXPECT_LE(client_->last_response_bytes(), static_cast<size_t>(kMaxBytes));
      size_t got = 0;
      for (const auto& part : resp.responses.at(0).partitions) {
        ASSERT_EQ(part.error_code, 0);
        for (const auto& r : records_of(part.records, version)) {
          // In order, each once, from where the partition was.
          ASSERT_EQ(r.offset, offsets[part.partition_index]) << part.partition_index;
          ASSERT_EQ(r.key, std::to_string(part.partition_index));
          ++offsets[part.partition_index];
          ++got;
        }
      }
      ASSERT_GT(got, 0u);
      total += got;
    }
    EXPECT_EQ(total, static_cast<size_t>(kPartitions * kBatches * kRecords));
    EXPECT_GE(fetches, kPartitions * kBatches * 10000 / kMaxBytes);
  }
}

TEST_F(BrokerTest, TheFirstBatchOfAFetchMayExceedMaxBytes) {
  create_topic("big", 2);
  for (int p = 0; p < 2; ++p) {
    engine::BatchBuilder builder;
    builder.add({.value = std::string(20000, 'x'), .timestamp = 1});
    ASSERT_EQ(produce_raw("big", p, builder.build().value(), 7).error_code, 0);
  }
  for (int16_t version : {11, 3, 1}) {
    auto resp = fetch("big", {{0, 0}, {1, 0}}, version, 1000, 1000);
    const auto& parts = resp.responses.at(0).partitions;
    EXPECT_EQ(records_of(parts.at(0).records, version).size(), 1u);
    EXPECT_TRUE(parts.at(1).records.slices.empty());
    EXPECT_GT(client_->last_response_bytes(), 20000u);
  }
}

TEST_F(BrokerTest, LegacyProduceIsUpConvertedAndFetchDownConverts) {
  create_topic("old", 1);
  // Legacy message sets as old clients send them: a magic 1 gzip wrapper
  // (Produce v2) and plain magic 0 messages (Produce v0).
  engine::BatchBuilder first({.compression = engine::Compression::kGzip});
  first.add({.key = "a", .value = "one", .timestamp = 1000});
  first.add({.key = std::nullopt, .value = "two", .timestamp = 1001});
  auto magic1 = engine::down_convert(first.build().value(), 1, Offset(0), 1 << 20).value();
  engine::BatchBuilder second;
  second.add({.key = "c", .value = std::nullopt, .timestamp = 5});
  second.add({.key = "d", .value = "four", .timestamp = 5, .headers = {{"h", "dropped"}}});
  auto magic0 = engine::down_convert(second.build().value(), 0, Offset(0), 1 << 20).value();

  auto p1 = produce_raw("old", 0, magic1, 2);
  ASSERT_EQ(p1.error_code, 0) << p1.error_message.value_or("");
  EXPECT_EQ(p1.base_offset, 0);
  auto p0 = produce_raw("old", 0, magic0, 0);
  ASSERT_EQ(p0.error_code, 0);
  EXPECT_EQ(p0.base_offset, 2);
  // From Produce v3, as in Kafka, record sets must be RecordBatch v2.
  auto refused = produce_raw("old", 0, magic0, 3);
  EXPECT_EQ(refused.error_code, 87);  // INVALID_RECORD

  const std::vector<Seen> stored = {{0, "a", "one", 1000},
                                    {1, std::nullopt, "two", 1001},
                                    {2, "c", std::nullopt, engine::kMessageNoTimestamp},
                                    {3, "d", "four", engine::kMessageNoTimestamp}};
  auto v4 = fetch("old", {{0, 0}}, 4, 1 << 20, 1 << 20).responses.at(0).partitions.at(0);
  EXPECT_EQ(records_of(v4.records, 4), stored);
  EXPECT_EQ(v4.high_watermark, 4);

  auto v2 = fetch("old", {{0, 1}}, 2, 1 << 20, 1 << 20).responses.at(0).partitions.at(0);
  EXPECT_EQ(records_of(v2.records, 2), std::vector<Seen>(stored.begin() + 1, stored.end()));
  auto v0 = fetch("old", {{0, 0}}, 0, 1 << 20, 1 << 20).responses.at(0).partitions.at(0);
  std::vector<Seen> without_ts = stored;
  for (auto& r : without_ts)
    r.timestamp = engine::kMessageNoTimestamp;
  EXPECT_EQ(records_of(v0.records, 0), without_ts);
  EXPECT_EQ(v0.high_watermark, 4);
}

TEST_F(BrokerTest, OldFetchVersionsGetUnsupportedCompressionTypeForZstd) {
  create_topic("z", 1);
  engine::BatchBuilder builder({.compression = engine::Compression::kZstd});
  builder.add({.value = "squeezed", .timestamp = 1});
  ASSERT_EQ(produce_raw("z", 0, builder.build().value(), 7).error_code, 0);
  for (int16_t version : {0, 3}) {
    auto part = fetch("z", {{0, 0}}, version, 1 << 20, 1 << 20).responses.at(0).partitions.at(0);
    EXPECT_EQ(part.error_code, 76);  // UNSUPPORTED_COMPRESSION_TYPE
    EXPECT_TRUE(part.records.slices.empty());
  }
  auto part = fetch("z", {{0, 0}}, 10, 1 << 20, 1 << 20).responses.at(0).partitions.at(0);
  EXPECT_EQ(part.error_code, 0);
  EXPECT_EQ(records_of(part.records, 10).size(), 1u);
}

}  // namespace
}  // namespace strata::server
