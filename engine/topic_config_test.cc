#include "engine/topic_config.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace strata::engine {
namespace {

TEST(TopicConfig, DefaultsAreKafkas) {
  auto m = TopicConfig{}.to_map();
  EXPECT_EQ(m["segment.bytes"], "1073741824");
  EXPECT_EQ(m["segment.ms"], "604800000");
  EXPECT_EQ(m["retention.ms"], "604800000");
  EXPECT_EQ(m["retention.bytes"], "-1");
  EXPECT_EQ(m["index.interval.bytes"], "4096");
  EXPECT_EQ(m["max.message.bytes"], "1048588");
  EXPECT_EQ(m["cleanup.policy"], "delete");
  EXPECT_EQ(m["message.timestamp.type"], "CreateTime");
  EXPECT_EQ(m["durability"], "fsync");
  EXPECT_EQ(m.size(), topic_config_definitions().size());
}

// Every topic config of Kafka 3.x (without tiered storage's) with Kafka's
// default, plus Strata's durability.
TEST(TopicConfig, EveryKafkaTopicConfigIsThereWithKafkasDefault) {
  const std::map<std::string, std::string> kafka = {
      {"cleanup.policy", "delete"},
      {"compression.gzip.level", "-1"},
      {"compression.lz4.level", "9"},
      {"compression.type", "producer"},
      {"compression.zstd.level", "3"},
      {"delete.retention.ms", "86400000"},
      {"durability", "fsync"},
      {"file.delete.delay.ms", "60000"},
      {"flush.messages", "9223372036854775807"},
      {"flush.ms", "9223372036854775807"},
      {"follower.replication.throttled.replicas", ""},
      {"index.interval.bytes", "4096"},
      {"leader.replication.throttled.replicas", ""},
      {"max.compaction.lag.ms", "9223372036854775807"},
      {"max.message.bytes", "1048588"},
      {"message.downconversion.enable", "true"},
      {"message.format.version", "3.0-IV1"},
      {"message.timestamp.after.max.ms", "9223372036854775807"},
      {"message.timestamp.before.max.ms", "9223372036854775807"},
      {"message.timestamp.difference.max.ms", "9223372036854775807"},
      {"message.timestamp.type", "CreateTime"},
      {"min.cleanable.dirty.ratio", "0.5"},
      {"min.compaction.lag.ms", "0"},
      {"min.insync.replicas", "1"},
      {"preallocate", "false"},
      {"retention.bytes", "-1"},
      {"retention.ms", "604800000"},
      {"segment.bytes", "1073741824"},
      {"segment.index.bytes", "10485760"},
      {"segment.jitter.ms", "0"},
      {"segment.ms", "604800000"},
      {"unclean.leader.election.enable", "false"},
  };
  EXPECT_EQ(TopicConfig{}.to_map(), kafka);
  // Each name is accepted with its default value, which changes nothing.
  for (const auto& [name, value] : kafka) {
    auto c = TopicConfig::from_map({{name, value}});
    ASSERT_TRUE(c.ok()) << name << ": " << c.error().to_string();
    EXPECT_EQ(*c, TopicConfig{}) << name;
  }
  std::vector<std::string> names;
  for (const auto& d : topic_config_definitions())
    names.emplace_back(d.name);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(find_topic_config("flush.ms")->type, "long");
  EXPECT_EQ(find_topic_config("min.cleanable.dirty.ratio")->type, "double");
  EXPECT_EQ(find_topic_config("preallocate")->type, "boolean");
  EXPECT_EQ(find_topic_config("remote.storage.enable"), nullptr);
}

TEST(TopicConfig, ValuesOfTheNewerConfigsAreParsed) {
  auto c = TopicConfig::from_map({{"compression.type", "zstd"},
                                  {"compression.zstd.level", "-5"},
                                  {"compression.gzip.level", "9"},
                                  {"flush.messages", "1"},
                                  {"flush.ms", "0"},
                                  {"min.cleanable.dirty.ratio", "0.25"},
                                  {"min.insync.replicas", "2"},
                                  {"unclean.leader.election.enable", "TRUE"},
                                  {"preallocate", "true"},
                                  {"leader.replication.throttled.replicas", "0:1, 1:1"},
                                  {"follower.replication.throttled.replicas", "*"},
                                  {"min.compaction.lag.ms", "100"},
                                  {"max.compaction.lag.ms", "100"}});
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->compression_type, Compression::kZstd);
  EXPECT_EQ(c->compression_level(Compression::kZstd), -5);
  EXPECT_EQ(c->compression_level(Compression::kGzip), 9);
  EXPECT_EQ(c->compression_level(Compression::kSnappy), kDefaultCompressionLevel);
  EXPECT_EQ(c->flush_messages, 1);
  EXPECT_EQ(c->flush_ms, 0);
  EXPECT_EQ(c->min_cleanable_dirty_ratio, 0.25);
  EXPECT_EQ(c->min_insync_replicas, 2);
  EXPECT_TRUE(c->unclean_leader_election_enable);
  EXPECT_TRUE(c->preallocate);
  auto m = c->to_map();
  EXPECT_EQ(m["compression.type"], "zstd");
  EXPECT_EQ(m["min.cleanable.dirty.ratio"], "0.25");
  EXPECT_EQ(m["unclean.leader.election.enable"], "true");
  EXPECT_EQ(TopicConfig::from_map(m).value(), *c);

  EXPECT_EQ(TopicConfig::from_map({{"compression.type", "uncompressed"}})->compression_type,
            Compression::kNone);
  EXPECT_EQ(TopicConfig::from_map({{"compression.type", "producer"}})->compression_type,
            std::nullopt);
}

TEST(TopicConfig, DeprecatedConfigsAreAcceptedAndChangeNothingElse) {
  auto c = TopicConfig::from_map(
      {{"message.format.version", "0.10.2-IV0"}, {"message.downconversion.enable", "false"}});
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  TopicConfig expected;
  expected.message_format_version = "0.10.2-IV0";
  expected.message_downconversion_enable = false;
  EXPECT_EQ(*c, expected);
  EXPECT_TRUE(find_topic_config("message.format.version")->deprecated);
  EXPECT_TRUE(find_topic_config("message.downconversion.enable")->deprecated);
  EXPECT_FALSE(find_topic_config("retention.ms")->deprecated);
  for (const char* v : {"2.8", "3.0-IV1", "0.8.0", "3.7", "0.10.0.0", "0.11.0.0", "2.8.0"})
    EXPECT_TRUE(TopicConfig::from_map({{"message.format.version", v}}).ok()) << v;
  for (const char* v : {"4.0", "0.10.", "0..10", "x", "2"})
    EXPECT_FALSE(TopicConfig::from_map({{"message.format.version", v}}).ok()) << v;
}

TEST(TopicConfig, TieredStorageConfigsAreRefusedSayingWhy) {
  for (const char* name : {"remote.storage.enable", "local.retention.ms", "local.retention.bytes",
                           "remote.log.copy.disable", "remote.log.delete.on.disable"}) {
    auto c = TopicConfig::from_map({{name, "1"}});
    ASSERT_FALSE(c.ok()) << name;
    EXPECT_EQ(c.error().code(), Errc::kInvalidConfig);
    EXPECT_NE(c.error().message().find(name), std::string::npos) << c.error().message();
    EXPECT_NE(c.error().message().find("no tiered storage"), std::string::npos)
        << c.error().message();
  }
}

TEST(TopicConfig, AppliesValidOverrides) {
  auto c = TopicConfig::from_map({{"retention.ms", "-1"},
                                  {"segment.bytes", "1048576"},
                                  {"cleanup.policy", "compact, delete"},
                                  {"message.timestamp.type", "LogAppendTime"},
                                  {"durability", "replicated"}});
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->retention_ms, -1);
  EXPECT_EQ(c->segment_bytes, 1048576);
  EXPECT_TRUE(c->cleanup_compact);
  EXPECT_TRUE(c->cleanup_delete);
  EXPECT_EQ(c->timestamp_type, TimestampType::kLogAppendTime);
  EXPECT_EQ(c->durability, Durability::kReplicated);
  // to_map and from_map agree.
  EXPECT_EQ(TopicConfig::from_map(c->to_map()).value(), *c);
}

struct BadConfig {
  const char* key;
  const char* value;
  const char* message_part;
};

class BadConfigs : public ::testing::TestWithParam<BadConfig> {};

TEST_P(BadConfigs, AreRejectedNamingKeyAndValue) {
  const auto& p = GetParam();
  auto c = TopicConfig::from_map({{p.key, p.value}});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code(), Errc::kInvalidConfig);
  EXPECT_NE(c.error().message().find(p.key), std::string::npos) << c.error().message();
  EXPECT_NE(c.error().message().find(p.message_part), std::string::npos) << c.error().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadConfigs,
    ::testing::Values(BadConfig{"retention.mss", "5", "unknown topic config"},
                      BadConfig{"retention.ms", "soon", "not an integer"},
                      BadConfig{"retention.ms", "-2", "between -1"},
                      BadConfig{"segment.bytes", "10", "between 14"},
                      BadConfig{"segment.bytes", "4294967296", "2147483647"},
                      BadConfig{"segment.ms", "0", "between 1"},
                      BadConfig{"index.interval.bytes", "", "not an integer"},
                      BadConfig{"max.message.bytes", "12x", "not an integer"},
                      BadConfig{"cleanup.policy", "remove", "delete and compact"},
                      BadConfig{"message.timestamp.type", "createtime", "LogAppendTime"},
                      BadConfig{"durability", "never", "fsync and replicated"},
                      BadConfig{"compression.type", "brotli", "uncompressed, zstd"},
                      BadConfig{"compression.type", "none", "producer"},
                      BadConfig{"compression.gzip.level", "0", "1 to 9, or -1"},
                      BadConfig{"compression.gzip.level", "10", "between -1 and 9"},
                      BadConfig{"compression.lz4.level", "18", "between 1 and 17"},
                      BadConfig{"compression.zstd.level", "23", "between -131072 and 22"},
                      BadConfig{"flush.messages", "0", "between 1"},
                      BadConfig{"flush.ms", "-1", "between 0"},
                      BadConfig{"delete.retention.ms", "-1", "between 0"},
                      BadConfig{"min.cleanable.dirty.ratio", "1.5", "between 0 and 1"},
                      BadConfig{"min.cleanable.dirty.ratio", "half", "not a number"},
                      BadConfig{"min.insync.replicas", "0", "between 1"},
                      BadConfig{"max.compaction.lag.ms", "0", "between 1"},
                      BadConfig{"segment.index.bytes", "3", "between 4"},
                      BadConfig{"preallocate", "yes", "true or false"},
                      BadConfig{"unclean.leader.election.enable", "1", "true or false"},
                      BadConfig{"leader.replication.throttled.replicas", "0-1", "partition:broker"},
                      BadConfig{"message.format.version", "latest", "Kafka version"},
                      BadConfig{"message.format.version", "9.0", "Kafka version"},
                      BadConfig{"message.downconversion.enable", "maybe", "true or false"}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(TopicConfig, MinCompactionLagAboveMaxIsRefused) {
  auto c = TopicConfig::from_map({{"min.compaction.lag.ms", "10"}, {"max.compaction.lag.ms", "5"}});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code(), Errc::kInvalidConfig);
  EXPECT_NE(c.error().message().find("min.compaction.lag.ms (10)"), std::string::npos);
}

TEST(TopicConfig, AFailedSetLeavesTheOldValue) {
  TopicConfig c;
  EXPECT_FALSE(c.set("retention.ms", "x").ok());
  EXPECT_EQ(c.retention_ms, 604800000);
}

}  // namespace
}  // namespace strata::engine
