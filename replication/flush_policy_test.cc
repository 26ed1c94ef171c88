#include "replication/flush_policy.h"

#include <gtest/gtest.h>

namespace strata::replication {
namespace {

using namespace std::chrono_literals;

engine::TopicConfig replicated(std::map<std::string, std::string> more) {
  more["durability"] = "replicated";
  return engine::TopicConfig::from_map(more).value();
}

TEST(FlushPolicy, FlushMessagesCountsRecordsSinceTheLastFlush) {
  FlushPolicy p;
  p.configure(replicated({{"flush.messages", "10"}}));
  auto t = FlushPolicy::Clock::time_point(1h);
  EXPECT_FALSE(p.on_append(4, t));
  EXPECT_FALSE(p.on_append(5, t));
  EXPECT_TRUE(p.on_append(1, t));
  p.flushed();
  EXPECT_FALSE(p.on_append(9, t));
  EXPECT_TRUE(p.on_append(30, t));
  EXPECT_EQ(p.deadline(), std::nullopt);  // flush.ms is never
}

TEST(FlushPolicy, FlushMsCountsFromTheOldestUnflushedAppend) {
  FlushPolicy p;
  p.configure(replicated({{"flush.ms", "250"}}));
  auto t = FlushPolicy::Clock::time_point(1h);
  EXPECT_EQ(p.deadline(), std::nullopt);  // nothing unflushed
  EXPECT_FALSE(p.on_append(1, t));
  EXPECT_FALSE(p.on_append(1, t + 100ms));
  EXPECT_EQ(p.deadline(), t + 250ms);
  p.flushed();
  EXPECT_EQ(p.deadline(), std::nullopt);
  EXPECT_FALSE(p.on_append(1, t + 300ms));
  EXPECT_EQ(p.deadline(), t + 550ms);
}

TEST(FlushPolicy, DefaultsAndFsyncTopicsNeverAsk) {
  FlushPolicy p;
  auto t = FlushPolicy::Clock::time_point(1h);
  p.configure(replicated({}));
  EXPECT_FALSE(p.on_append(1000000, t));
  EXPECT_EQ(p.deadline(), std::nullopt);
  p.configure(engine::TopicConfig::from_map({{"flush.messages", "1"}, {"flush.ms", "0"}}).value());
  EXPECT_FALSE(p.on_append(5, t));
  EXPECT_EQ(p.deadline(), std::nullopt);
  // Becoming replicated with a pending count starts from nothing.
  p.configure(replicated({{"flush.messages", "3"}}));
  EXPECT_FALSE(p.on_append(2, t));
  EXPECT_TRUE(p.on_append(1, t));
}

}  // namespace
}  // namespace strata::replication
