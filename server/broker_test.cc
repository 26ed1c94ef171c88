// A whole broker in-process, driven through the wire protocol.
#include "server/broker.h"

#include <future>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "coordinator/embedded_store.h"
#include "engine/batch_builder.h"
#include "engine/compression.h"
#include "engine/control_record.h"
#include "engine/legacy_records.h"
#include "engine/log_cleaner.h"
#include "replication/rpc_client.h"
#include "server/group_lag.h"
#include "server/kafka/error_code.h"
#include "server/kafka/messages/all.h"
#include "server/testing/wire_client.h"

namespace strata::server {
namespace {

using replication::Partition;

class BrokerTest : public ::testing::Test {
 protected:
  void SetUp() override { start(); }
  void TearDown() override {
    client_.reset();
    ASSERT_TRUE(broker_->stop().ok());
  }

  void start() {
    BrokerConfig cfg;
    cfg.data_dir = dir_.path() / "data";
    cfg.listen_port = 0;
    cfg.cores = 2;
    cfg.log_level = "warn";
    ASSERT_TRUE(cfg.set("log.retention.hours", "48").ok());  // a static topic default
    ASSERT_TRUE(cfg.set("schema.registry.listeners", "127.0.0.1:0").ok());
    for (const auto& [key, value] : extra_configs_)
      ASSERT_TRUE(cfg.set(key, value).ok()) << key;
    store_ = coordinator::EmbeddedStore::open(cfg.data_dir / "metadata.json").value();
    broker_ = Broker::start(cfg, *store_, SystemClock::instance()).value();
    client_ = std::make_unique<testing::WireClient>("127.0.0.1", broker_->port());
  }
  void restart() {
    client_.reset();
    ASSERT_TRUE(broker_->stop().ok());
    broker_.reset();
    store_.reset();
    start();
  }

  void create_topic(const std::string& name, int32_t partitions,
                    std::vector<kafka::CreateTopicsRequest::Config> configs = {}) {
    kafka::CreateTopicsRequest req;
    req.topics.push_back({name, partitions, 1, {}, std::move(configs)});
    auto resp = client_->call<kafka::CreateTopicsRequest, kafka::CreateTopicsResponse>(req, 5);
    ASSERT_EQ(resp.topics.at(0).error_code, 0) << resp.topics[0].error_message.value_or("");
  }

  kafka::ProduceResponse::Partition produce_batch(const std::string& topic, int32_t partition,
                                                  const std::vector<std::byte>& bytes) {
    kafka::ProduceRequest req;
    req.acks = -1;
    kafka::ProduceRequest::Partition p;
    p.index = partition;
    p.records.slices = {SharedBytes::copy_of(bytes)};
    req.topics.push_back({topic, {p}});
    auto resp = client_->call<kafka::ProduceRequest, kafka::ProduceResponse>(req, 7);
    return resp.responses.at(0).partitions.at(0);
  }

  int64_t produce(const std::string& topic, int32_t partition, int records) {
    engine::BatchBuilder b;
    for (int i = 0; i < records; ++i)
      b.add({.key = "k", .value = "v", .timestamp = 1});
    auto r = produce_batch(topic, partition, b.build().value());
    EXPECT_EQ(r.error_code, 0);
    return r.base_offset;
  }

  // Runs `fn` on the partition's own shard and returns what it returns.
  template <typename F>
  auto on_partition(const std::string& topic, int32_t p, F fn) {
    auto uid = broker_->snapshot()->find(topic)->uid(PartitionId(p));
    std::promise<decltype(fn(std::declval<Partition&>()))> done;
    broker_->shard(broker_->shard_for(uid)).post([&] {
      done.set_value(fn(*broker_->state(broker_->shard_for(uid)).find(uid)));
    });
    return done.get_future().get();
  }

  // The first stored batch of a partition.
  std::vector<std::byte> first_batch(const std::string& topic, int32_t p) {
    auto uid = broker_->snapshot()->find(topic)->uid(PartitionId(p));
    std::promise<std::vector<std::byte>> done;
    broker_->shard(broker_->shard_for(uid)).post([&] {
      auto* part = broker_->state(broker_->shard_for(uid)).find(uid);
      part->log().read(Offset(0), 1 << 20, [&](Result<engine::ReadResult> r) {
        auto bytes = r.value().slices.at(0);
        auto size = static_cast<size_t>(engine::peek_batch_size(bytes.data()));
        done.set_value(std::vector<std::byte>(bytes.data(), bytes.data() + size));
      });
    });
    return done.get_future().get();
  }

  kafka::DescribeConfigsResponse::Result describe(int8_t type, const std::string& name,
                                                  int16_t version = 4) {
    kafka::DescribeConfigsRequest req;
    req.resources.push_back({type, name, std::nullopt});
    req.include_synonyms = true;
    req.include_documentation = true;
    auto resp =
        client_->call<kafka::DescribeConfigsRequest, kafka::DescribeConfigsResponse>(req, version);
    return resp.results.at(0);
  }

  static const kafka::DescribeConfigsResponse::Config& entry(
      const kafka::DescribeConfigsResponse::Result& r, const std::string& name) {
    for (const auto& c : r.configs) {
      if (c.name == name) return c;
    }
    ADD_FAILURE() << "no config " << name;
    static const kafka::DescribeConfigsResponse::Config none;
    return none;
  }

  using Inc = kafka::IncrementalAlterConfigsRequest;
  kafka::AlterConfigsResponse::Result alter(int8_t type, const std::string& name,
                                            std::vector<Inc::Config> configs,
                                            bool validate_only = false) {
    Inc req;
    req.resources.push_back({type, name, std::move(configs)});
    req.validate_only = validate_only;
    auto resp = client_->call<Inc, kafka::AlterConfigsResponse>(req, 1);
    return resp.responses.at(0);
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
    broker_->shard(0).post([&] {
      group_lag(broker_->services(), 0, group, [&](auto r) { p.set_value(std::move(r)); });
    });
    return p.get_future().get().value();
  }

  strata::testing::TempDir dir_;
  std::unique_ptr<coordinator::EmbeddedStore> store_;  // declared first: outlives the broker
  std::unique_ptr<Broker> broker_;
  std::unique_ptr<testing::WireClient> client_;
  // Broker configs set at the next start() (restart() picks them up).
  std::vector<std::pair<std::string, std::string>> extra_configs_;
};

TEST_F(BrokerTest, PortZeroAdvertisesTheBoundPort) {
  EXPECT_NE(broker_->port(), 0);
  kafka::MetadataRequest req;
  req.topics.emplace();
  auto resp = client_->call<kafka::MetadataRequest, kafka::MetadataResponse>(req, 9);
  ASSERT_EQ(resp.brokers.size(), 1u);
  EXPECT_EQ(resp.brokers[0].port, broker_->port());
}

TEST_F(BrokerTest, InitProducerIdGivesNewIdsAtEpochZeroThatARestartNeverReuses) {
  using Req = kafka::InitProducerIdRequest;
  using Resp = kafka::InitProducerIdResponse;
  std::set<int64_t> ids;
  for (int16_t version : {0, 2, 4}) {
    Req req;
    req.transaction_timeout_ms = 60000;
    auto resp = client_->call<Req, Resp>(req, version);
    EXPECT_EQ(resp.error_code, 0);
    EXPECT_EQ(resp.producer_epoch, 0);
    EXPECT_GE(resp.producer_id, 0);
    EXPECT_TRUE(ids.insert(resp.producer_id).second);
  }
  restart();
  auto after = client_->call<Req, Resp>(Req{}, 4);
  EXPECT_EQ(after.error_code, 0);
  EXPECT_GT(after.producer_id, *ids.rbegin());
  // An empty transactional id is invalid.
  Req txn;
  txn.transactional_id = "";
  auto refused = client_->call<Req, Resp>(txn, 4);
  EXPECT_EQ(refused.error_code, kafka::code(kafka::ErrorCode::kInvalidRequest));
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

TEST_F(BrokerTest, DescribeConfigsGivesEveryTopicConfigWithSourceSynonymsAndDocumentation) {
  create_topic("described", 1, {{"retention.ms", "1000"}, {"message.format.version", "2.8"}});
  auto r = describe(kafka::kResourceTopic, "described");
  ASSERT_EQ(r.error_code, 0) << r.error_message.value_or("");
  EXPECT_EQ(r.configs.size(), engine::topic_config_definitions().size());
  EXPECT_GE(r.configs.size(), 30u);
  for (const auto& c : r.configs) {
    EXPECT_TRUE(c.documentation && !c.documentation->empty()) << c.name;
    EXPECT_NE(c.config_type, 0) << c.name;
    EXPECT_FALSE(c.read_only) << c.name;
    EXPECT_FALSE(c.is_sensitive) << c.name;
    EXPECT_FALSE(c.synonyms.empty()) << c.name;
  }
  const auto& retention = entry(r, "retention.ms");
  EXPECT_EQ(retention.value, "1000");
  EXPECT_EQ(retention.config_source, kafka::kSourceTopicConfig);
  EXPECT_EQ(retention.config_type, 5);  // LONG
  // The override, then the broker's static log.retention.hours, then the default.
  ASSERT_EQ(retention.synonyms.size(), 3u);
  EXPECT_EQ(retention.synonyms[0], (kafka::DescribeConfigsResponse::Synonym{
                                       "retention.ms", "1000", kafka::kSourceTopicConfig}));
  EXPECT_EQ(retention.synonyms[1],
            (kafka::DescribeConfigsResponse::Synonym{"log.retention.hours", "48",
                                                     kafka::kSourceStaticBrokerConfig}));
  EXPECT_EQ(retention.synonyms[2], (kafka::DescribeConfigsResponse::Synonym{
                                       "log.retention.hours", "168", kafka::kSourceDefaultConfig}));
  EXPECT_EQ(entry(r, "max.message.bytes").synonyms,
            (std::vector<kafka::DescribeConfigsResponse::Synonym>{
                {"message.max.bytes", "1048588", kafka::kSourceDefaultConfig}}));
  EXPECT_EQ(entry(r, "message.format.version").value, "2.8");
  EXPECT_EQ(entry(r, "compression.type").value, "producer");
  EXPECT_EQ(entry(r, "compression.type").config_source, kafka::kSourceDefaultConfig);
  EXPECT_EQ(entry(r, "min.cleanable.dirty.ratio").config_type, 6);  // DOUBLE

  // A topic without the override takes the broker's 48 hours.
  create_topic("plain", 1);
  auto plain = describe(kafka::kResourceTopic, "plain", 1);
  EXPECT_EQ(entry(plain, "retention.ms").value, std::to_string(48 * 3600000LL));
  EXPECT_EQ(entry(plain, "retention.ms").config_source, kafka::kSourceStaticBrokerConfig);
  EXPECT_FALSE(entry(plain, "retention.ms").documentation.has_value());  // v3+ only
}

TEST_F(BrokerTest, IncrementalAlterConfigsOfATopicSetsDeletesAppendsAndValidates) {
  create_topic("inc", 1, {{"segment.ms", "5000"}});
  auto ok = alter(kafka::kResourceTopic, "inc",
                  {{"flush.messages", Inc::kSet, "10"},
                   {"segment.ms", Inc::kDelete, std::nullopt},
                   {"cleanup.policy", Inc::kAppend, "compact"}});
  ASSERT_EQ(ok.error_code, 0) << ok.error_message.value_or("");
  auto r = describe(kafka::kResourceTopic, "inc");
  EXPECT_EQ(entry(r, "flush.messages").value, "10");
  EXPECT_EQ(entry(r, "segment.ms").config_source, kafka::kSourceDefaultConfig);
  EXPECT_EQ(entry(r, "cleanup.policy").value, "compact,delete");
  EXPECT_EQ(on_partition("inc", 0, [](Partition& p) { return p.log().config().flush_messages; }),
            10);

  auto bad = alter(kafka::kResourceTopic, "inc", {{"flush.messages", Inc::kSet, "0"}});
  EXPECT_EQ(bad.error_code, kafka::code(kafka::ErrorCode::kInvalidConfig));
  EXPECT_NE(bad.error_message->find("flush.messages"), std::string::npos) << *bad.error_message;
  auto tiered = alter(kafka::kResourceTopic, "inc", {{"remote.storage.enable", Inc::kSet, "true"}});
  EXPECT_EQ(tiered.error_code, kafka::code(kafka::ErrorCode::kInvalidConfig));
  EXPECT_NE(tiered.error_message->find("no tiered storage"), std::string::npos);
  auto dry = alter(kafka::kResourceTopic, "inc", {{"flush.messages", Inc::kSet, "7"}}, true);
  EXPECT_EQ(dry.error_code, 0);
  EXPECT_EQ(entry(describe(kafka::kResourceTopic, "inc"), "flush.messages").value, "10");
}

TEST_F(BrokerTest, DynamicBrokerConfigsApplyAtOnceInOrderAndSurviveARestart) {
  create_topic("follows", 1);
  create_topic("overrides", 1, {{"retention.ms", "1000"}});
  // The cluster default applies to topics without an override, at once.
  auto set =
      alter(kafka::kResourceBroker, "",
            {{"log.retention.ms", Inc::kSet, "7200000"}, {"message.max.bytes", Inc::kSet, "200"}});
  ASSERT_EQ(set.error_code, 0) << set.error_message.value_or("");
  auto follows = describe(kafka::kResourceTopic, "follows");
  EXPECT_EQ(entry(follows, "retention.ms").value, "7200000");
  EXPECT_EQ(entry(follows, "retention.ms").config_source, kafka::kSourceDynamicDefaultBrokerConfig);
  EXPECT_EQ(entry(describe(kafka::kResourceTopic, "overrides"), "retention.ms").value, "1000");
  EXPECT_EQ(on_partition("follows", 0, [](Partition& p) { return p.log().config().retention_ms; }),
            7200000);
  // message.max.bytes=200 refuses a bigger batch now.
  engine::BatchBuilder big;
  big.add({.value = std::string(300, 'x')});
  EXPECT_EQ(produce_batch("follows", 0, big.build().value()).error_code,
            kafka::code(kafka::ErrorCode::kMessageTooLarge));

  // This broker's own value wins over the cluster default.
  auto mine = alter(kafka::kResourceBroker, "1", {{"log.retention.ms", Inc::kSet, "3600000"}});
  ASSERT_EQ(mine.error_code, 0) << mine.error_message.value_or("");
  follows = describe(kafka::kResourceTopic, "follows");
  EXPECT_EQ(entry(follows, "retention.ms").value, "3600000");
  EXPECT_EQ(entry(follows, "retention.ms").config_source, kafka::kSourceDynamicBrokerConfig);
  const auto& syn = entry(follows, "retention.ms").synonyms;
  ASSERT_EQ(syn.size(), 4u);
  EXPECT_EQ(syn[0].source, kafka::kSourceDynamicBrokerConfig);
  EXPECT_EQ(syn[1].source, kafka::kSourceDynamicDefaultBrokerConfig);
  EXPECT_EQ(syn[2], (kafka::DescribeConfigsResponse::Synonym{"log.retention.hours", "48",
                                                             kafka::kSourceStaticBrokerConfig}));
  EXPECT_EQ(syn[3], (kafka::DescribeConfigsResponse::Synonym{"log.retention.hours", "168",
                                                             kafka::kSourceDefaultConfig}));

  auto broker = describe(kafka::kResourceBroker, "1");
  EXPECT_EQ(broker.error_message, "");  // Kafka's success: empty, not null
  EXPECT_EQ(follows.error_message, "");
  EXPECT_EQ(entry(broker, "log.retention.ms").value, "3600000");
  EXPECT_EQ(entry(broker, "log.retention.ms").config_source, kafka::kSourceDynamicBrokerConfig);
  EXPECT_FALSE(entry(broker, "log.retention.ms").read_only);
  EXPECT_TRUE(entry(broker, "log.retention.hours").read_only);
  EXPECT_EQ(entry(broker, "log.retention.hours").value, "48");
  EXPECT_TRUE(entry(broker, "num.partitions").read_only);
  auto cluster = describe(kafka::kResourceBroker, "");
  ASSERT_EQ(cluster.configs.size(), 2u);
  EXPECT_EQ(entry(cluster, "message.max.bytes").value, "200");

  restart();
  follows = describe(kafka::kResourceTopic, "follows");
  EXPECT_EQ(entry(follows, "retention.ms").value, "3600000");
  EXPECT_EQ(entry(follows, "max.message.bytes").value, "200");
  EXPECT_EQ(produce_batch("follows", 0, big.build().value()).error_code,
            kafka::code(kafka::ErrorCode::kMessageTooLarge));

  // Deleting the broker's own value falls back to the cluster default.
  ASSERT_EQ(alter(kafka::kResourceBroker, "1", {{"log.retention.ms", Inc::kDelete, std::nullopt}})
                .error_code,
            0);
  EXPECT_EQ(entry(describe(kafka::kResourceTopic, "follows"), "retention.ms").value, "7200000");
}

TEST_F(BrokerTest, StaticAndUnknownBrokerConfigsAreRefusedByName) {
  auto st = alter(kafka::kResourceBroker, "1", {{"num.partitions", Inc::kSet, "4"}});
  EXPECT_EQ(st.error_code, kafka::code(kafka::ErrorCode::kInvalidRequest));
  EXPECT_NE(st.error_message->find("num.partitions"), std::string::npos);
  EXPECT_NE(st.error_message->find("restart"), std::string::npos);
  auto hours = alter(kafka::kResourceBroker, "", {{"log.retention.hours", Inc::kSet, "4"}});
  EXPECT_EQ(hours.error_code, kafka::code(kafka::ErrorCode::kInvalidRequest));
  EXPECT_NE(hours.error_message->find("log.retention.hours"), std::string::npos);
  auto unknown = alter(kafka::kResourceBroker, "", {{"no.such.config", Inc::kSet, "4"}});
  EXPECT_EQ(unknown.error_code, kafka::code(kafka::ErrorCode::kInvalidConfig));
  auto bad = alter(kafka::kResourceBroker, "", {{"log.retention.ms", Inc::kSet, "-5"}});
  EXPECT_EQ(bad.error_code, kafka::code(kafka::ErrorCode::kInvalidConfig));
  EXPECT_NE(bad.error_message->find("log.retention.ms"), std::string::npos);
  auto other = alter(kafka::kResourceBroker, "2", {{"log.retention.ms", Inc::kSet, "5"}});
  EXPECT_EQ(other.error_code, kafka::code(kafka::ErrorCode::kInvalidRequest));
  auto dry = alter(kafka::kResourceBroker, "", {{"log.retention.ms", Inc::kSet, "5"}}, true);
  EXPECT_EQ(dry.error_code, 0);
  EXPECT_TRUE(describe(kafka::kResourceBroker, "").configs.empty());
  // A default that would leave a topic's overrides invalid is refused.
  create_topic("lagged", 1, {{"max.compaction.lag.ms", "100"}});
  auto lag =
      alter(kafka::kResourceBroker, "", {{"log.cleaner.min.compaction.lag.ms", Inc::kSet, "1000"}});
  EXPECT_EQ(lag.error_code, kafka::code(kafka::ErrorCode::kInvalidConfig));
  EXPECT_NE(lag.error_message->find("lagged"), std::string::npos) << *lag.error_message;
  // And the other way round: an override invalid over the broker's defaults.
  ASSERT_EQ(
      alter(kafka::kResourceBroker, "", {{"log.cleaner.max.compaction.lag.ms", Inc::kSet, "500"}})
          .error_code,
      0);
  auto over = alter(kafka::kResourceTopic, "lagged", {{"min.compaction.lag.ms", Inc::kSet, "600"}});
  EXPECT_EQ(over.error_code, kafka::code(kafka::ErrorCode::kInvalidConfig));
  ASSERT_EQ(alter(kafka::kResourceBroker, "",
                  {{"log.cleaner.max.compaction.lag.ms", Inc::kDelete, std::nullopt}})
                .error_code,
            0);
  // The whole resource is refused when one config is: nothing is stored.
  auto mixed = alter(kafka::kResourceBroker, "",
                     {{"log.retention.ms", Inc::kSet, "5"}, {"num.partitions", Inc::kSet, "4"}});
  EXPECT_NE(mixed.error_code, 0);
  EXPECT_TRUE(describe(kafka::kResourceBroker, "").configs.empty());
}

TEST_F(BrokerTest, AlterConfigsRefusesAResourceNamedTwiceOrNamingAConfigTwice) {
  create_topic("twice", 1);
  create_topic("keys", 1);
  create_topic("fine", 1);
  auto value = [&](const std::string& topic, const std::string& key) {
    return entry(describe(kafka::kResourceTopic, topic), key).value;
  };
  const auto retention = value("twice", "retention.ms");
  const auto segment = value("twice", "segment.ms");
  Inc req;
  req.resources.push_back({kafka::kResourceTopic, "twice", {{"retention.ms", Inc::kSet, "1000"}}});
  req.resources.push_back(
      {kafka::kResourceTopic,
       "keys",
       {{"retention.ms", Inc::kSet, "1000"}, {"retention.ms", Inc::kSet, "2000"}}});
  req.resources.push_back({kafka::kResourceTopic, "fine", {{"retention.ms", Inc::kSet, "3000"}}});
  req.resources.push_back({kafka::kResourceTopic, "twice", {{"segment.ms", Inc::kSet, "5000"}}});
  auto resp = client_->call<Inc, kafka::AlterConfigsResponse>(req, 1);
  ASSERT_EQ(resp.responses.size(), 4u);
  const int16_t invalid_request = kafka::code(kafka::ErrorCode::kInvalidRequest);
  EXPECT_EQ(resp.responses[0].error_code, invalid_request);
  EXPECT_EQ(resp.responses[3].error_code, invalid_request);
  EXPECT_EQ(resp.responses[1].error_code, invalid_request);
  EXPECT_EQ(*resp.responses[1].error_message, "Error due to duplicate config keys");
  EXPECT_EQ(resp.responses[2].error_code, 0);
  // The refused ones changed nothing; the other one was served.
  EXPECT_EQ(value("twice", "retention.ms"), retention);
  EXPECT_EQ(value("twice", "segment.ms"), segment);
  EXPECT_EQ(value("keys", "retention.ms"), retention);
  EXPECT_EQ(value("fine", "retention.ms"), "3000");
  // The same for AlterConfigs.
  kafka::AlterConfigsRequest plain;
  plain.resources.push_back(
      {kafka::kResourceTopic, "fine", {{"retention.ms", "4000"}, {"retention.ms", "5000"}}});
  auto old = client_->call<kafka::AlterConfigsRequest, kafka::AlterConfigsResponse>(plain, 1);
  EXPECT_EQ(old.responses.at(0).error_code, invalid_request);
  EXPECT_EQ(value("fine", "retention.ms"), "3000");
}

TEST_F(BrokerTest, KafkaBrokerConfigsStrataDoesNotUseAreKeptWhereKafkaAllowsThem) {
  // Per broker only (Kafka: "broker id must be specified").
  auto mechanisms =
      alter(kafka::kResourceBroker, "", {{"sasl.enabled.mechanisms", Inc::kSet, "PLAIN"}});
  EXPECT_EQ(mechanisms.error_code, kafka::code(kafka::ErrorCode::kInvalidConfig));
  EXPECT_NE(mechanisms.error_message->find("sasl.enabled.mechanisms"), std::string::npos);
  ASSERT_EQ(alter(kafka::kResourceBroker, "1", {{"sasl.enabled.mechanisms", Inc::kSet, "PLAIN"}})
                .error_code,
            0);
  // IncrementalAlterConfigs' APPEND works on Kafka's list configs.
  ASSERT_EQ(alter(kafka::kResourceBroker, "1",
                  {{"sasl.enabled.mechanisms", Inc::kAppend, "SCRAM-SHA-256"}})
                .error_code,
            0);
  // Cluster-wide: the default for every broker, under a broker's own value.
  ASSERT_EQ(alter(kafka::kResourceBroker, "", {{"num.io.threads", Inc::kSet, "6"}}).error_code, 0);
  auto all = describe(kafka::kResourceBroker, "");
  ASSERT_EQ(all.configs.size(), 1u);
  EXPECT_EQ(all.configs[0].name, "num.io.threads");
  EXPECT_EQ(all.configs[0].config_source, kafka::kSourceDynamicDefaultBrokerConfig);
  std::map<std::string, kafka::DescribeConfigsResponse::Config> mine;
  for (auto& c : describe(kafka::kResourceBroker, "1").configs)
    mine[c.name] = c;
  EXPECT_EQ(mine["num.io.threads"].value, "6");
  EXPECT_EQ(mine["num.io.threads"].config_source, kafka::kSourceDynamicDefaultBrokerConfig);
  EXPECT_EQ(mine["num.io.threads"].config_type, 3);  // INT
  EXPECT_EQ(mine["sasl.enabled.mechanisms"].value, "PLAIN,SCRAM-SHA-256");
  EXPECT_EQ(mine["sasl.enabled.mechanisms"].config_source, kafka::kSourceDynamicBrokerConfig);
  EXPECT_EQ(mine["sasl.enabled.mechanisms"].config_type, 7);  // LIST
  EXPECT_EQ(mine["ssl.truststore.password"].config_type, 9);  // PASSWORD
  EXPECT_TRUE(mine["ssl.truststore.password"].is_sensitive);
  EXPECT_TRUE(mine["process.roles"].read_only);
  // Every config Kafka documents is listed once.
  EXPECT_GE(mine.size(), kafka_broker_configs().size());
  auto again = describe(kafka::kResourceBroker, "1").configs;
  EXPECT_EQ(again.size(), mine.size());
  // The list keeps its order, as at Kafka: APPEND adds what is not there
  // at the end, SUBTRACT takes out what is named.
  ASSERT_EQ(alter(kafka::kResourceBroker, "1",
                  {{"sasl.enabled.mechanisms", Inc::kAppend, "OAUTHBEARER,PLAIN"}})
                .error_code,
            0);
  ASSERT_EQ(
      alter(kafka::kResourceBroker, "1", {{"sasl.enabled.mechanisms", Inc::kSubtract, "PLAIN"}})
          .error_code,
      0);
  for (auto& c : describe(kafka::kResourceBroker, "1").configs) {
    if (c.name == "sasl.enabled.mechanisms") {
      EXPECT_EQ(c.value, "SCRAM-SHA-256,OAUTHBEARER");
    }
  }
}

TEST_F(BrokerTest, CompressionTypeRecompressesWhatTheProducerSent) {
  create_topic("zstd", 1, {{"compression.type", "zstd"}});
  create_topic("plain-codec", 1, {{"compression.type", "uncompressed"}});
  create_topic("as-sent", 1);
  engine::BatchBuilder lz4({.compression = engine::Compression::kLz4});
  for (int i = 0; i < 20; ++i)
    lz4.add({.key = "k" + std::to_string(i), .value = std::string(100, 'v'), .timestamp = 5 + i});
  auto sent = lz4.build().value();
  for (const char* topic : {"zstd", "plain-codec", "as-sent"})
    ASSERT_EQ(produce_batch(topic, 0, sent).error_code, 0) << topic;
  auto records = [](const std::vector<std::byte>& b) {
    auto h = engine::read_batch_header(b.data());
    return engine::decompress(h.compression(), std::span(b).subspan(engine::kBatchHeaderSize),
                              1 << 20)
        .value();
  };
  auto zstd = first_batch("zstd", 0);
  auto plain = first_batch("plain-codec", 0);
  auto as_sent = first_batch("as-sent", 0);
  EXPECT_EQ(engine::read_batch_header(zstd.data()).compression(), engine::Compression::kZstd);
  EXPECT_EQ(engine::read_batch_header(plain.data()).compression(), engine::Compression::kNone);
  EXPECT_EQ(engine::read_batch_header(as_sent.data()).compression(), engine::Compression::kLz4);
  EXPECT_EQ(records(zstd), records(sent));
  EXPECT_EQ(records(plain), records(sent));
  EXPECT_TRUE(engine::check_batch_integrity(zstd).ok());
  EXPECT_EQ(engine::read_batch_header(zstd.data()).records_count, 20);
}

TEST_F(BrokerTest, FlushMessagesAndFlushMsFlushReplicatedTopics) {
  create_topic("lazy", 1, {{"durability", "replicated"}});
  create_topic("counted", 1, {{"durability", "replicated"}, {"flush.messages", "5"}});
  create_topic("timed", 1, {{"durability", "replicated"}, {"flush.ms", "20"}});
  auto durable = [&](const std::string& t) {
    return on_partition(t, 0, [](Partition& p) { return p.log().durable_offset().value(); });
  };
  auto wait_durable = [&](const std::string& t, int64_t want) {
    // Bounded wait for the flush the policy started (it completes on its own).
    for (int i = 0; i < 1000 && durable(t) < want; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return durable(t);
  };
  produce("lazy", 0, 10);
  produce("counted", 0, 3);
  produce("timed", 0, 2);
  // Nothing asked the default topic or the one short of its count to flush.
  EXPECT_EQ(durable("lazy"), 0);
  EXPECT_EQ(durable("counted"), 0);
  EXPECT_EQ(wait_durable("timed", 2), 2);  // flush.ms
  produce("counted", 0, 2);
  EXPECT_EQ(wait_durable("counted", 5), 5);  // the fifth record
  EXPECT_EQ(on_partition("lazy", 0, [](Partition& p) { return p.log().fsync_count(); }), 0u);
}

TEST_F(BrokerTest, ASlowCreateTopicsAnswersRequestTimedOutAndStillCompletes) {
  kafka::CreateTopicsRequest req;
  req.topics.push_back({"slow", 2000, 1, {}, {}});
  req.timeout_ms = 1;
  auto resp = client_->call<kafka::CreateTopicsRequest, kafka::CreateTopicsResponse>(req, 5);
  ASSERT_EQ(resp.topics.size(), 1u);
  EXPECT_EQ(resp.topics[0].error_code, kafka::code(kafka::ErrorCode::kRequestTimedOut));
  EXPECT_NE(resp.topics[0].error_message->find("may still complete"), std::string::npos);
  // The topic is created all the same: a later request (which runs after the
  // change, on the control thread) finds it.
  kafka::CreateTopicsRequest again;
  again.topics.push_back({"slow", 1, 1, {}, {}});
  auto second = client_->call<kafka::CreateTopicsRequest, kafka::CreateTopicsResponse>(again, 5);
  EXPECT_EQ(second.topics.at(0).error_code, kafka::code(kafka::ErrorCode::kTopicAlreadyExists));
  EXPECT_EQ(broker_->snapshot()->find("slow")->partitions, 2000);
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
                                    {2, "c", std::nullopt, engine::kNoRecordTimestamp},
                                    {3, "d", "four", engine::kNoRecordTimestamp}};
  auto v4 = fetch("old", {{0, 0}}, 4, 1 << 20, 1 << 20).responses.at(0).partitions.at(0);
  EXPECT_EQ(records_of(v4.records, 4), stored);
  EXPECT_EQ(v4.high_watermark, 4);

  auto v2 = fetch("old", {{0, 1}}, 2, 1 << 20, 1 << 20).responses.at(0).partitions.at(0);
  EXPECT_EQ(records_of(v2.records, 2), std::vector<Seen>(stored.begin() + 1, stored.end()));
  auto v0 = fetch("old", {{0, 0}}, 0, 1 << 20, 1 << 20).responses.at(0).partitions.at(0);
  std::vector<Seen> without_ts = stored;
  for (auto& r : without_ts)
    r.timestamp = engine::kNoRecordTimestamp;
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

TEST_F(BrokerTest, ElectLeadersAnswersEveryPartitionItWasAskedAbout) {
  create_topic("elect", 2);
  using Req = kafka::ElectLeadersRequest;
  using Resp = kafka::ElectLeadersResponse;
  Req req;
  req.topic_partitions = std::vector<Req::Topic>{{"elect", {0, 1, 5}}, {"nope", {0}}};
  for (int16_t version : {0, 1, 2}) {
    auto resp = client_->call<Req, Resp>(req, version);
    EXPECT_EQ(resp.error_code, 0);
    std::map<std::pair<std::string, int32_t>, int16_t> codes;
    for (const auto& t : resp.results)
      for (const auto& p : t.partitions)
        codes[{t.topic, p.partition_id}] = p.error_code;
    // The preferred replica leads already (one broker, one replica each).
    EXPECT_EQ(codes[std::make_pair(std::string("elect"), 0)], 84) << "v" << version;
    EXPECT_EQ(codes[std::make_pair(std::string("elect"), 1)], 84);
    EXPECT_EQ(codes[std::make_pair(std::string("elect"), 5)], 3);  // UNKNOWN_TOPIC_OR_PARTITION
    EXPECT_EQ(codes[std::make_pair(std::string("nope"), 0)], 3);
    EXPECT_EQ(codes.size(), 4u);
  }
  // Every partition: none needs an election, so none is listed.
  Req all;
  all.topic_partitions = std::nullopt;
  auto resp = client_->call<Req, Resp>(all, 2);
  EXPECT_EQ(resp.error_code, 0);
  EXPECT_TRUE(resp.results.empty());
  // An empty list names none (null names every one).
  Req none;
  none.topic_partitions = std::vector<Req::Topic>{};
  resp = client_->call<Req, Resp>(none, 2);
  EXPECT_EQ(resp.error_code, 0);
  EXPECT_TRUE(resp.results.empty());
  // An unclean election is for offline partitions: these are led.
  Req unclean = req;
  unclean.election_type = Req::kUnclean;
  resp = client_->call<Req, Resp>(unclean, 1);
  EXPECT_EQ(resp.error_code, 0);
  ASSERT_EQ(resp.results.size(), 2u);
  for (const auto& t : resp.results)
    for (const auto& p : t.partitions)
      EXPECT_EQ(p.error_code, t.topic == "elect" && p.partition_id < 2 ? 84 : 3) << t.topic;
  // An unknown election type is a bad request.
  Req other = req;
  other.election_type = 2;
  resp = client_->call<Req, Resp>(other, 1);
  EXPECT_EQ(resp.error_code, 42);  // INVALID_REQUEST
}

TEST_F(BrokerTest, ACompactedTopicRefusesABatchWithKeylessRecordsNamingEachOfThem) {
  create_topic("compacted", 1, {{"cleanup.policy", "compact"}});
  create_topic("deleted", 1);
  engine::BatchBuilder b;
  b.add({.key = "a", .value = "1", .timestamp = 1});
  b.add({.key = std::nullopt, .value = "2", .timestamp = 1});
  b.add({.key = "c", .value = std::nullopt, .timestamp = 1});  // a tombstone has a key
  b.add({.key = std::nullopt, .value = std::nullopt, .timestamp = 1});
  auto batch = b.build().value();
  // Produce v8 and later carry KIP-467's per-record errors; earlier ones the
  // partition's error alone.
  for (int16_t version : {3, 8, 9}) {
    auto r = produce_raw("compacted", 0, batch, version);
    EXPECT_EQ(r.error_code, 87) << version;  // INVALID_RECORD
    if (version >= 8) {
      ASSERT_TRUE(r.error_message.has_value());
      EXPECT_NE(r.error_message->find("compacted"), std::string::npos) << *r.error_message;
      ASSERT_EQ(r.record_errors.size(), 2u);
      EXPECT_EQ(r.record_errors[0].batch_index, 1);
      EXPECT_EQ(r.record_errors[1].batch_index, 3);
    }
  }
  EXPECT_EQ(on_partition("compacted", 0, [](Partition& p) { return p.log().log_end_offset(); }),
            Offset(0));
  EXPECT_EQ(produce_raw("deleted", 0, batch, 9).error_code, 0);
  EXPECT_EQ(produce("compacted", 0, 3), 0);
}

TEST_F(BrokerTest, DescribeLogDirsGivesEachReplicaItsSizeAndCompactedOnesTheirCleaning) {
  create_topic("sized", 2);
  create_topic("keyed", 1, {{"cleanup.policy", "compact"}, {"segment.bytes", "100"}});
  produce("sized", 0, 5);
  for (int i = 0; i < 3; ++i)
    produce("keyed", 0, 4);  // each batch past segment.bytes: two closed segments
  auto sized0 =
      on_partition("sized", 0, [](Partition& p) { return p.log().segments().size_bytes(); });
  auto keyed0 =
      on_partition("keyed", 0, [](Partition& p) { return p.log().segments().size_bytes(); });
  ASSERT_GT(sized0, 0u);
  using Req = kafka::DescribeLogDirsRequest;
  using Resp = kafka::DescribeLogDirsResponse;
  auto find = [](const Resp& resp, const std::string& topic) -> const Resp::Topic* {
    for (const auto& t : resp.results.at(0).topics)
      if (t.name == topic) return &t;
    return nullptr;
  };
  for (int16_t version = 0; version <= 4; ++version) {
    Req req;
    req.topics = std::vector<Req::Topic>{{"sized", {0, 1, 7}}, {"nope", {0}}, {"keyed", {0}}};
    auto resp = client_->call<Req, Resp>(req, version);
    EXPECT_EQ(resp.error_code, 0);
    ASSERT_EQ(resp.results.size(), 1u) << "v" << version;
    const auto& dir = resp.results[0];
    EXPECT_EQ(dir.error_code, 0);
    EXPECT_EQ(dir.log_dir,
              std::filesystem::absolute(dir_.path() / "data").lexically_normal().string());
    // Unknown topics and partitions are left out.
    ASSERT_EQ(dir.topics.size(), 2u);
    EXPECT_EQ(find(resp, "nope"), nullptr);
    const auto* sized = find(resp, "sized");
    ASSERT_NE(sized, nullptr);
    ASSERT_EQ(sized->partitions.size(), 2u);
    EXPECT_EQ(sized->partitions[0].partition_index, 0);
    EXPECT_EQ(sized->partitions[0].partition_size, static_cast<int64_t>(sized0));
    EXPECT_EQ(sized->partitions[0].offset_lag, 0);
    EXPECT_EQ(sized->partitions[1].partition_index, 1);
    EXPECT_EQ(sized->partitions[1].partition_size, 0);
    EXPECT_EQ(sized->partitions[0].dirty_bytes, -1);  // not compacted
    const auto& keyed = find(resp, "keyed")->partitions.at(0);
    EXPECT_EQ(keyed.partition_size, static_cast<int64_t>(keyed0));
    if (version >= 2) {
      // Two closed segments, cleaned or not yet (the cleaner may have run).
      ASSERT_GE(keyed.dirty_bytes, 0);
      ASSERT_GE(keyed.clean_bytes, 0);
      EXPECT_GT(keyed.dirty_bytes + keyed.clean_bytes, 0);
      EXPECT_LE(keyed.dirty_bytes + keyed.clean_bytes, keyed.partition_size);
      EXPECT_EQ(keyed.cleaning_failures, 0);
      EXPECT_EQ(keyed.last_cleaned_ms == 0, keyed.last_cleaning.empty()) << keyed.last_cleaning;
    } else {
      EXPECT_EQ(keyed.dirty_bytes, -1);  // no tagged fields before v2
    }
    if (version >= 4) {
      EXPECT_GT(dir.total_bytes, 0);
      EXPECT_GE(dir.usable_bytes, 0);
      EXPECT_LE(dir.usable_bytes, dir.total_bytes);
    } else {
      EXPECT_EQ(dir.total_bytes, -1);
    }
  }
  // Null topics: every replica held here.
  auto all = client_->call<Req, Resp>(Req{}, 4);
  ASSERT_NE(find(all, "sized"), nullptr);
  EXPECT_EQ(find(all, "sized")->partitions.size(), 2u);
  ASSERT_NE(find(all, "keyed"), nullptr);
}

TEST_F(BrokerTest, StoppingInTheMiddleOfACleaningEndsItAndLosesNothing) {
  // A cleaner throttled to a crawl (it would take hours): its cleaning is
  // still reading when the broker stops, which must end it rather than
  // wait for it, and free nothing it reads through before it ended.
  extra_configs_ = {{"log.cleaner.backoff.ms", "20"}, {"log.cleaner.io.max.bytes.per.second", "1"}};
  restart();
  create_topic("slow", 1, {{"cleanup.policy", "compact"}, {"segment.bytes", "2000"}});
  for (int i = 0; i < 20; ++i)
    produce("slow", 0, 20);
  auto end = on_partition("slow", 0, [](Partition& p) { return p.log().log_end_offset(); });
  auto size = on_partition("slow", 0, [](Partition& p) { return p.log().segments().size_bytes(); });
  bool cleaning = false;
  for (int i = 0; i < 500 && !cleaning; ++i) {
    cleaning =
        on_partition("slow", 0, [](Partition& p) { return p.log().compaction().cleaning(); });
    if (!cleaning) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // polling a state
  }
  ASSERT_TRUE(cleaning) << "no cleaning started";
  extra_configs_ = {{"log.cleaner.enable", "false"}};  // no new cleaning to look at
  restart();
  // The log is as it was: nothing cleaned, nothing lost, no file left.
  EXPECT_EQ(on_partition("slow", 0, [](Partition& p) { return p.log().log_end_offset(); }), end);
  EXPECT_EQ(on_partition("slow", 0, [](Partition& p) { return p.log().segments().size_bytes(); }),
            size);
  for (const auto& e : std::filesystem::directory_iterator(dir_.path() / "data" / "slow-0"))
    EXPECT_FALSE(e.path().string().ends_with(".cleaned")) << e.path();
}

// A partition whose cleanings keep failing (a directory stands where its
// cleaned segment would be written) is tried again after a wait that
// doubles with each failure in a row (log.cleaner.backoff.ms x 2^failures),
// while another compacted partition of the same shard is cleaned; once the
// fault is gone the failing one is cleaned too.
TEST_F(BrokerTest, AFailingCleaningBacksOffWhileItsShardsOtherPartitionsAreCleaned) {
  using Clock = std::chrono::steady_clock;
  constexpr auto kBackoff = std::chrono::milliseconds(100);
  extra_configs_ = {{"log.cleaner.backoff.ms", "100"}};
  restart();
  create_topic("pair", 4,
               {{"cleanup.policy", "compact"},
                {"segment.bytes", "100"},
                {"min.cleanable.dirty.ratio", "0.01"}});
  // Two partitions the same shard hosts (of four, on two shards).
  int32_t broken = -1, healthy = -1;
  {
    auto snap = broker_->snapshot();
    const auto* topic = snap->find("pair");
    for (int32_t a = 0; a < 4 && broken < 0; ++a) {
      for (int32_t b = a + 1; b < 4 && broken < 0; ++b) {
        if (broker_->shard_for(topic->uid(PartitionId(a))) ==
            broker_->shard_for(topic->uid(PartitionId(b)))) {
          broken = a;
          healthy = b;
        }
      }
    }
  }
  ASSERT_GE(broken, 0);
  auto blocker =
      engine::cleaned_path(dir_.path() / "data" / ("pair-" + std::to_string(broken)), Offset(0));
  std::filesystem::create_directories(blocker / "in-the-way");
  for (int i = 0; i < 3; ++i)
    produce("pair", broken, 4);  // each batch past segment.bytes: closed segments to clean
  auto failures = [&](int32_t p) {
    return on_partition("pair", p, [](Partition& x) { return x.log().compaction().failures(); });
  };
  auto cleaned = [&](int32_t p) {
    return on_partition("pair", p, [](Partition& x) {
      return x.log().compaction().last_cleaning().starts_with("cleaned below offset");
    });
  };
  // below[n]: the last poll that saw fewer than n failures; reached[n]: a
  // moment after the poll that saw n.
  std::map<int32_t, Clock::time_point> below, reached;
  bool produced_healthy = false;
  for (auto deadline = Clock::now() + std::chrono::seconds(60); Clock::now() < deadline;) {
    auto now = Clock::now();
    int32_t f = failures(broken);
    for (int32_t n = 1; n <= 3; ++n) {
      if (f < n) below[n] = now;
      if (f >= n && !reached.contains(n)) reached[n] = Clock::now();
    }
    if (f >= 1 && !produced_healthy) {
      for (int i = 0; i < 3; ++i)
        produce("pair", healthy, 4);  // dirty only once the other is failing
      produced_healthy = true;
    }
    if (f >= 3 && cleaned(healthy)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // polling a state
  }
  ASSERT_EQ(reached.size(), 3u) << "failures seen: " << failures(broken);
  ASSERT_TRUE(cleaned(healthy)) << "the healthy partition was not cleaned";
  EXPECT_EQ(failures(healthy), 0);
  EXPECT_FALSE(cleaned(broken));
  EXPECT_TRUE(std::filesystem::is_directory(blocker / "in-the-way"));
  // Failure n+1 came after a wait of backoff x 2^n from failure n, which
  // came after the last poll that saw fewer than n (so the spans below are
  // lower bounds a slow machine only lengthens).
  EXPECT_GE(reached[2] - below[1], 2 * kBackoff);
  EXPECT_GE(reached[3] - below[2], 4 * kBackoff);
  // The fault gone, the next try cleans the partition and resets the count.
  std::filesystem::remove_all(blocker);
  bool recovered = false;
  for (auto deadline = Clock::now() + std::chrono::seconds(60);
       !recovered && Clock::now() < deadline;) {
    recovered = cleaned(broken) && failures(broken) == 0;
    if (!recovered) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // polling a state
  }
  EXPECT_TRUE(recovered) << "failures: " << failures(broken);
}

TEST_F(BrokerTest, OffsetForLeaderEpochSaysWhereAnEpochEndsUpToTheHighWatermark) {
  create_topic("epochs", 2);
  produce("epochs", 0, 3);
  produce("epochs", 0, 2);
  using Req = kafka::OffsetForLeaderEpochRequest;
  using Resp = kafka::OffsetForLeaderEpochResponse;
  for (int16_t version : {0, 2, 3, 4}) {
    Req req;
    req.replica_id = Req::kConsumer;
    req.topics = {{"epochs", {{0, -1, 0}, {1, -1, 0}, {0, 0, 3}, {5, -1, 0}}},
                  {"nope", {{0, -1, 0}}}};
    if (version >= 2) req.topics[0].partitions.push_back({0, 1, 0});  // a newer leader epoch
    auto resp = client_->call<Req, Resp>(req, version);
    ASSERT_EQ(resp.topics.size(), 2u);
    const auto& ps = resp.topics[0].partitions;
    // Epoch 0 (this broker's only one) ends at the log end: offset 5.
    EXPECT_EQ(ps[0].error_code, 0) << "v" << version;
    EXPECT_EQ(ps[0].end_offset, 5);
    if (version >= 1) {
      EXPECT_EQ(ps[0].leader_epoch, 0);
    }
    // An empty partition has no epoch yet.
    EXPECT_EQ(ps[1].error_code, 0);
    EXPECT_EQ(ps[1].end_offset, -1);
    // An epoch above every epoch in the log: undefined.
    EXPECT_EQ(ps[2].error_code, 0);
    EXPECT_EQ(ps[2].end_offset, -1);
    EXPECT_EQ(ps[3].error_code, 3);  // UNKNOWN_TOPIC_OR_PARTITION
    EXPECT_EQ(resp.topics[1].partitions[0].error_code, 3);
    if (version >= 2) {
      EXPECT_EQ(ps[4].error_code, 75);  // UNKNOWN_LEADER_EPOCH
    }
  }
}

TEST_F(BrokerTest, AFollowerLearnsWhereItsEpochEndsAndCopiesBatchesOverTheRpc) {
  namespace rpc = replication::rpc;
  create_topic("copied", 1);
  for (int i = 0; i < 3; ++i)
    produce("copied", 0, 3);
  boost::asio::io_context io;
  auto client = replication::RpcClient::create(io, "127.0.0.1", broker_->rpc_port(), 2, 1);
  auto call = [&](rpc::Request req) {
    std::optional<Result<rpc::Response>> out;
    client->call(std::move(req), 10000, [&](Result<rpc::Response> r) { out = std::move(r); });
    while (!out)
      io.run_one();
    EXPECT_TRUE(out->ok()) << out->error().to_string();
    return std::move(*out).value();
  };

  // Where does epoch 0 end? At this leader's log end; other asks are routed
  // like a client's.
  rpc::Request ask;
  auto add_ask = [&](const std::string& topic, int32_t current, int32_t epoch) {
    auto* p = ask.mutable_epoch_end()->add_partitions();
    p->set_topic(topic);
    p->set_partition(0);
    p->set_current_leader_epoch(current);
    p->set_leader_epoch(epoch);
  };
  add_ask("copied", 0, 0);
  add_ask("copied", 1, 0);  // a newer leader epoch than this broker knows
  add_ask("nope", 0, 0);
  add_ask("copied", 0, 3);  // above every epoch here
  auto ends = call(ask).epoch_end();
  ASSERT_EQ(ends.partitions_size(), 4);
  EXPECT_EQ(ends.partitions(0).error_code(), 0);
  EXPECT_EQ(ends.partitions(0).leader_epoch(), 0);
  EXPECT_EQ(ends.partitions(0).end_offset(), 9);
  EXPECT_EQ(ends.partitions(1).error_code(), 75);  // UNKNOWN_LEADER_EPOCH
  EXPECT_EQ(ends.partitions(2).error_code(), 3);   // UNKNOWN_TOPIC_OR_PARTITION
  EXPECT_EQ(ends.partitions(3).error_code(), 0);
  EXPECT_EQ(ends.partitions(3).end_offset(), -1);

  // Fetch from the start: the leader's batches as stored, CRCs intact.
  auto fetch = [&](int64_t from, int32_t max_wait_ms) {
    rpc::Request req;
    auto* p = req.mutable_fetch()->add_partitions();
    p->set_topic("copied");
    p->set_partition(0);
    p->set_current_leader_epoch(0);
    p->set_fetch_offset(from);
    req.mutable_fetch()->set_max_wait_ms(max_wait_ms);
    return req;
  };
  auto got = call(fetch(0, 0)).fetch().partitions(0);
  EXPECT_EQ(got.error_code(), 0);
  EXPECT_EQ(got.log_end_offset(), 9);
  EXPECT_EQ(got.high_watermark(), 9);
  std::vector<int64_t> bases;
  std::span<const std::byte> rest(reinterpret_cast<const std::byte*>(got.records().data()),
                                  got.records().size());
  while (!rest.empty()) {
    auto one = rest.first(engine::read_batch_header(rest.data()).total_size());
    auto h = engine::validate_batch(one, {.max_batch_bytes = 1 << 20}).value();
    bases.push_back(h.base_offset.value());
    rest = rest.subspan(one.size());
  }
  EXPECT_EQ(bases, (std::vector<int64_t>{0, 3, 6}));
  EXPECT_EQ(std::vector<std::byte>(reinterpret_cast<const std::byte*>(got.records().data()),
                                   reinterpret_cast<const std::byte*>(got.records().data()) +
                                       first_batch("copied", 0).size()),
            first_batch("copied", 0));

  // At the log end with no wait: nothing. With a wait: the next batch, once
  // it is appended (or at once, had it arrived first).
  auto empty = call(fetch(9, 0)).fetch().partitions(0);
  EXPECT_EQ(empty.error_code(), 0);
  EXPECT_TRUE(empty.records().empty());
  std::optional<Result<rpc::Response>> waited;
  client->call(fetch(9, 10000), 20000, [&](Result<rpc::Response> r) { waited = std::move(r); });
  io.poll();
  produce("copied", 0, 2);
  while (!waited)
    io.run_one();
  ASSERT_TRUE(waited->ok());
  auto next = (*waited)->fetch().partitions(0);
  EXPECT_EQ(next.log_end_offset(), 11);
  ASSERT_FALSE(next.records().empty());
  auto h = engine::read_batch_header(reinterpret_cast<const std::byte*>(next.records().data()));
  EXPECT_EQ(h.base_offset, Offset(9));
  EXPECT_EQ(h.total_size(), next.records().size());
}

TEST_F(BrokerTest, TheRpcPortClosesOnBadFramesAndKeepsServing) {
  namespace rpc = replication::rpc;
  namespace asio = boost::asio;
  asio::io_context io;
  auto closed_after = [&](std::vector<unsigned char> bytes) {
    asio::ip::tcp::socket s(io);
    s.connect({asio::ip::make_address("127.0.0.1"), broker_->rpc_port()});
    asio::write(s, asio::buffer(bytes));
    char c;
    boost::system::error_code ec;
    s.read_some(asio::buffer(&c, 1), ec);
    return ec == asio::error::eof || ec == asio::error::connection_reset;
  };
  EXPECT_TRUE(closed_after({0xff, 0xff, 0xff, 0xff}));                    // 4 GiB announced
  EXPECT_TRUE(closed_after({0x00, 0x00, 0x00, 0x03, 0xff, 0xff, 0xff}));  // not protobuf
  // A request with no call is answered with an error, and the port serves on.
  auto client = replication::RpcClient::create(io, "127.0.0.1", broker_->rpc_port(), 2, 1);
  std::optional<Result<rpc::Response>> out;
  client->call(rpc::Request{}, 10000, [&](Result<rpc::Response> r) { out = std::move(r); });
  while (!out)
    io.run_one();
  ASSERT_TRUE(out->ok());
  EXPECT_EQ((*out)->error_code(), 42);  // INVALID_REQUEST
  // Nothing listening: the call fails (and says where), it does not hang.
  auto nowhere = replication::RpcClient::create(io, "127.0.0.1", 1, 2, 1);
  out.reset();
  nowhere->call(rpc::Request{}, 10000, [&](Result<rpc::Response> r) { out = std::move(r); });
  while (!out)
    io.run_one();
  ASSERT_FALSE(out->ok());
  EXPECT_EQ(out->error().code(), Errc::kUnavailable);
  EXPECT_NE(out->error().message().find("127.0.0.1:1"), std::string::npos);
}

// The batches of a fetch's records: (base offset, last offset, control).
struct BatchSeen {
  int64_t base;
  int64_t last;
  bool control;
  bool operator==(const BatchSeen&) const = default;
};
std::vector<BatchSeen> batches_of(const kafka::Records& records) {
  std::vector<BatchSeen> out;
  for (const auto& slice : records.slices) {
    size_t pos = 0;
    while (pos + engine::kBatchHeaderSize <= slice.size()) {
      auto h = engine::read_batch_header(slice.data() + pos);
      out.push_back({h.base_offset.value(), h.last_offset().value(), h.control()});
      pos += h.total_size();
    }
  }
  return out;
}

TEST_F(BrokerTest, ReadCommittedStopsAtTheLastStableOffsetAndListsAbortedTransactions) {
  create_topic("txn", 1);
  // A client cannot open a transaction no coordinator added the partition to.
  engine::BatchBuilder forged(
      {.producer_id = 5, .producer_epoch = 0, .base_sequence = 0, .transactional = true});
  forged.add({.key = "k", .value = "v", .timestamp = 1});
  EXPECT_EQ(produce_batch("txn", 0, forged.build().value()).error_code,
            kafka::code(kafka::ErrorCode::kInvalidTxnState));

  ASSERT_EQ(produce("txn", 0, 3), 0);  // 0-2
  // Producer 7's transaction (3-4), appended as the broker's own write
  // (until a coordinator adds partitions to transactions), then more plain
  // records (5-7).
  auto broker_append = [&](std::vector<std::byte> batch) {
    std::promise<Result<replication::AppendResult>> done;
    on_partition("txn", 0, [&](Partition& p) {
      p.append({SharedBytes::adopt(std::move(batch))}, {.acks_all = true, .from_client = false},
               [&](Result<replication::AppendResult> r) { done.set_value(r); });
      return 0;
    });
    return done.get_future().get();
  };
  engine::BatchBuilder txn(
      {.producer_id = 7, .producer_epoch = 0, .base_sequence = 0, .transactional = true});
  txn.add({.key = "t", .value = "1", .timestamp = 1});
  txn.add({.key = "t", .value = "2", .timestamp = 1});
  auto r = broker_append(txn.build().value());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->base_offset, Offset(3));
  ASSERT_EQ(produce("txn", 0, 3), 5);  // 5-7

  auto fetch_at = [&](int64_t offset, int8_t isolation) {
    kafka::FetchRequest req;
    req.max_wait_ms = 0;
    req.min_bytes = 0;
    req.max_bytes = 1 << 20;
    req.isolation_level = isolation;
    kafka::FetchRequest::Partition fp;
    fp.partition = 0;
    fp.fetch_offset = offset;
    fp.partition_max_bytes = 1 << 20;
    req.topics.push_back({"txn", {}, {fp}});
    auto resp = client_->call<kafka::FetchRequest, kafka::FetchResponse>(req, 11);
    return resp.responses.at(0).partitions.at(0);
  };
  auto latest = [&](int8_t isolation) {
    kafka::ListOffsetsRequest req;
    req.isolation_level = isolation;
    req.topics.push_back({"txn", {{0, -1, kafka::ListOffsetsRequest::kLatest, 1}}});
    auto resp = client_->call<kafka::ListOffsetsRequest, kafka::ListOffsetsResponse>(req, 5);
    return resp.topics.at(0).partitions.at(0).offset;
  };

  auto uncommitted = fetch_at(0, 0);
  EXPECT_EQ(uncommitted.high_watermark, 8);
  EXPECT_EQ(uncommitted.last_stable_offset, 3);
  EXPECT_EQ(batches_of(uncommitted.records).size(), 3u);
  auto committed = fetch_at(0, 1);
  EXPECT_EQ(committed.last_stable_offset, 3);
  EXPECT_EQ(batches_of(committed.records), (std::vector<BatchSeen>{{0, 2, false}}));
  ASSERT_TRUE(committed.aborted_transactions.has_value());
  EXPECT_TRUE(committed.aborted_transactions->empty());
  EXPECT_EQ(latest(0), 8);
  EXPECT_EQ(latest(1), 3);

  // The coordinator aborts it: the marker at 8 makes everything stable, and
  // read_committed readers are told which producer's records to skip.
  r = broker_append(engine::build_marker_batch({7, 0, 0, /*commit=*/false}, 1));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->base_offset, Offset(8));
  committed = fetch_at(0, 1);
  EXPECT_EQ(committed.last_stable_offset, 9);
  EXPECT_EQ(batches_of(committed.records),
            (std::vector<BatchSeen>{{0, 2, false}, {3, 4, false}, {5, 7, false}, {8, 8, true}}));
  EXPECT_EQ(committed.aborted_transactions,
            (std::vector<kafka::FetchResponse::AbortedTransaction>{{7, 3}}));
  EXPECT_TRUE(fetch_at(5, 1).aborted_transactions->size() == 1u);  // its marker is still ahead
  EXPECT_TRUE(fetch_at(9, 1).aborted_transactions->empty());
  EXPECT_EQ(latest(1), 9);

  // Neither isolation level: refused, by partition.
  EXPECT_EQ(fetch_at(0, 2).error_code, kafka::code(kafka::ErrorCode::kInvalidRequest));
  kafka::ListOffsetsRequest bad;
  bad.isolation_level = 3;
  bad.topics.push_back({"txn", {{0, -1, kafka::ListOffsetsRequest::kLatest, 1}}});
  auto resp = client_->call<kafka::ListOffsetsRequest, kafka::ListOffsetsResponse>(bad, 5);
  EXPECT_EQ(resp.topics.at(0).partitions.at(0).error_code,
            kafka::code(kafka::ErrorCode::kInvalidRequest));
}

// A transaction from the wire up, as a client drives it: its coordinator
// fences older epochs, a partition joins the transaction before the
// producer may write there, the commit writes a marker that makes the
// records visible to read_committed readers, and the ended transaction's
// partitions need to be added again.
TEST_F(BrokerTest, ATransactionCommitsThroughItsCoordinatorAndFencesOlderEpochs) {
  using kafka::ErrorCode;
  create_topic("orders", 2);
  const std::string id = "app-1";
  // Retriable answers while __transaction_state is created and loaded.
  auto retriable = [](int16_t code) {
    return code == kafka::code(ErrorCode::kCoordinatorNotAvailable) ||
           code == kafka::code(ErrorCode::kNotCoordinator) ||
           code == kafka::code(ErrorCode::kCoordinatorLoadInProgress) ||
           code == kafka::code(ErrorCode::kConcurrentTransactions);
  };
  auto init = [&] {
    kafka::InitProducerIdRequest req;
    req.transactional_id = id;
    req.transaction_timeout_ms = 60000;
    kafka::InitProducerIdResponse resp;
    for (int i = 0; i < 500; ++i) {
      resp = client_->call<kafka::InitProducerIdRequest, kafka::InitProducerIdResponse>(req, 4);
      if (!retriable(resp.error_code)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return resp;
  };
  auto add = [&](int64_t pid, int16_t epoch, int32_t partition) {
    kafka::AddPartitionsToTxnRequest req;
    req.v3_and_below_transactional_id = id;
    req.v3_and_below_producer_id = pid;
    req.v3_and_below_producer_epoch = epoch;
    req.v3_and_below_topics.push_back({"orders", {partition}});
    auto resp =
        client_->call<kafka::AddPartitionsToTxnRequest, kafka::AddPartitionsToTxnResponse>(req, 3);
    return resp.results_by_topic_v3_and_below.at(0).results_by_partition.at(0).partition_error_code;
  };
  auto end = [&](int64_t pid, int16_t epoch, bool commit, int16_t version) {
    kafka::EndTxnRequest req{id, pid, epoch, commit};
    kafka::EndTxnResponse resp;
    for (int i = 0; i < 500; ++i) {
      resp = client_->call<kafka::EndTxnRequest, kafka::EndTxnResponse>(req, version);
      if (!retriable(resp.error_code)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return resp.error_code;
  };
  int32_t sequence = 0;
  auto produce_txn = [&](int64_t pid, int16_t epoch, int32_t partition, int records) {
    engine::BatchBuilder b({.producer_id = pid,
                            .producer_epoch = epoch,
                            .base_sequence = sequence,
                            .transactional = true});
    for (int i = 0; i < records; ++i)
      b.add({.key = "k", .value = "v" + std::to_string(i), .timestamp = 1});
    kafka::ProduceRequest req;
    req.transactional_id = id;
    req.acks = -1;
    kafka::ProduceRequest::Partition p;
    p.index = partition;
    p.records.slices = {SharedBytes::copy_of(b.build().value())};
    req.topics.push_back({"orders", {p}});
    auto resp = client_->call<kafka::ProduceRequest, kafka::ProduceResponse>(req, 7);
    auto r = resp.responses.at(0).partitions.at(0);
    if (r.error_code == 0) sequence += records;
    return r;
  };
  auto stable = [&](int32_t partition) {
    kafka::ListOffsetsRequest req;
    req.isolation_level = 1;
    req.topics.push_back({"orders", {{partition, -1, kafka::ListOffsetsRequest::kLatest, 1}}});
    auto resp = client_->call<kafka::ListOffsetsRequest, kafka::ListOffsetsResponse>(req, 5);
    return resp.topics.at(0).partitions.at(0).offset;
  };

  auto first = init();
  ASSERT_EQ(first.error_code, 0);
  auto p = init();  // a second instance: same id, the next epoch
  ASSERT_EQ(p.error_code, 0);
  EXPECT_EQ(p.producer_id, first.producer_id);
  EXPECT_EQ(p.producer_epoch, first.producer_epoch + 1);
  EXPECT_EQ(add(first.producer_id, first.producer_epoch, 0),
            kafka::code(ErrorCode::kProducerFenced));  // v3 (INVALID_PRODUCER_EPOCH before v2)

  // Not in the transaction: refused (KIP-890), nothing written.
  EXPECT_EQ(produce_txn(p.producer_id, p.producer_epoch, 0, 2).error_code,
            kafka::code(ErrorCode::kInvalidTxnState));
  ASSERT_EQ(add(p.producer_id, p.producer_epoch, 0), 0);
  auto written = produce_txn(p.producer_id, p.producer_epoch, 0, 2);
  ASSERT_EQ(written.error_code, 0);
  EXPECT_EQ(written.base_offset, 0);
  // Partition 1 was not added: refused still.
  EXPECT_EQ(produce_txn(p.producer_id, p.producer_epoch, 1, 1).error_code,
            kafka::code(ErrorCode::kInvalidTxnState));
  EXPECT_EQ(stable(0), 0);  // open: nothing stable yet

  ASSERT_EQ(end(p.producer_id, p.producer_epoch, /*commit=*/true, 3), 0);
  // The marker follows the answer; once written the records are stable.
  for (int i = 0; i < 500 && stable(0) != 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(stable(0), 3);  // two records and the commit marker

  kafka::DescribeTransactionsRequest dreq;
  dreq.transactional_ids = {id, "nobody"};
  auto describe = [&] {
    return client_->call<kafka::DescribeTransactionsRequest, kafka::DescribeTransactionsResponse>(
        dreq, 0);
  };
  // The coordinator completes the commit once the markers' writes are
  // acknowledged, a moment after they are stable.
  auto described = describe();
  for (int i = 0; i < 500 && !described.transaction_states.empty() &&
                  described.transaction_states[0].transaction_state != "CompleteCommit";
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    described = describe();
  }
  ASSERT_EQ(described.transaction_states.size(), 2u);
  EXPECT_EQ(described.transaction_states[0].transaction_state, "CompleteCommit");
  EXPECT_EQ(described.transaction_states[0].producer_id, p.producer_id);
  EXPECT_EQ(described.transaction_states[1].error_code,
            kafka::code(ErrorCode::kTransactionalIdNotFound));
  kafka::ListTransactionsRequest lreq;
  auto listed =
      client_->call<kafka::ListTransactionsRequest, kafka::ListTransactionsResponse>(lreq, 0);
  ASSERT_EQ(listed.transaction_states.size(), 1u);
  EXPECT_EQ(listed.transaction_states[0].transactional_id, id);

  // The transaction ended: its partition must be added again.
  EXPECT_EQ(produce_txn(p.producer_id, p.producer_epoch, 0, 1).error_code,
            kafka::code(ErrorCode::kInvalidTxnState));
  // A producer of an older epoch cannot end a transaction.
  EXPECT_EQ(end(first.producer_id, first.producer_epoch, true, 3),
            kafka::code(ErrorCode::kProducerFenced));
  EXPECT_EQ(end(first.producer_id, first.producer_epoch, true, 1),
            kafka::code(ErrorCode::kInvalidProducerEpoch));
}

}  // namespace
}  // namespace strata::server
