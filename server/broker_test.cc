// A whole broker in-process, driven through the wire protocol.
#include "server/broker.h"

#include <future>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "engine/batch_builder.h"
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

}  // namespace
}  // namespace strata::server
