#include "engine/topic_config.h"

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
                      BadConfig{"durability", "never", "fsync and replicated"}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(TopicConfig, AFailedSetLeavesTheOldValue) {
  TopicConfig c;
  EXPECT_FALSE(c.set("retention.ms", "x").ok());
  EXPECT_EQ(c.retention_ms, 604800000);
}

}  // namespace
}  // namespace strata::engine
