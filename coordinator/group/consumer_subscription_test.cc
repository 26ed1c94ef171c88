#include "coordinator/group/consumer_subscription.h"

#include <cstring>

#include <gtest/gtest.h>

#include "base/big_endian.h"

namespace strata::coordinator {
namespace {

// ConsumerProtocolSubscription with `topics`, then `tail` (user data, owned
// partitions... as later versions add them).
Bytes subscription(int16_t version, const std::vector<std::string>& topics, Bytes tail = {}) {
  Bytes out(6);
  be::store<int16_t>(out.data(), version);
  be::store<int32_t>(out.data() + 2, static_cast<int32_t>(topics.size()));
  for (const auto& t : topics) {
    size_t at = out.size();
    out.resize(at + 2 + t.size());
    be::store<int16_t>(out.data() + at, static_cast<int16_t>(t.size()));
    std::memcpy(out.data() + at + 2, t.data(), t.size());
  }
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

TEST(ConsumerSubscription, ReadsTheTopicsSorted) {
  auto t = subscribed_topics(subscription(1, {"orders", "audit"}, Bytes(12, std::byte{0})));
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, (std::vector<std::string>{"audit", "orders"}));
  EXPECT_EQ(subscribed_topics(subscription(0, {})), std::vector<std::string>{});
}

TEST(ConsumerSubscription, RefusesWhatIsNotASubscription) {
  EXPECT_FALSE(subscribed_topics(Bytes{}).has_value());
  EXPECT_FALSE(subscribed_topics(Bytes(5, std::byte{0})).has_value());
  auto b = subscription(0, {"orders"});
  b.pop_back();  // topic name cut short
  EXPECT_FALSE(subscribed_topics(b).has_value());
  auto huge = subscription(0, {});
  be::store<int32_t>(huge.data() + 2, INT32_MAX);  // a count the bytes cannot hold
  EXPECT_FALSE(subscribed_topics(huge).has_value());
  auto negative = subscription(-1, {"x"});
  EXPECT_FALSE(subscribed_topics(negative).has_value());
}

TEST(ConsumerSubscription, SameProtocolsComparesConsumerSubscriptionsByTopics) {
  std::vector<GroupProtocol> before = {{"range", subscription(1, {"a", "b"}, Bytes{std::byte{1}})},
                                       {"roundrobin", subscription(1, {"a", "b"})}};
  std::vector<GroupProtocol> owned_changed = {
      {"range", subscription(1, {"b", "a"}, Bytes{std::byte{7}})},
      {"roundrobin", subscription(1, {"a", "b"})}};
  EXPECT_TRUE(same_protocols("consumer", before, owned_changed));
  // Other protocol types have opaque metadata: bytes must match.
  EXPECT_FALSE(same_protocols("connect", before, owned_changed));
  EXPECT_TRUE(same_protocols("connect", before, before));
  std::vector<GroupProtocol> topic_changed = {{"range", subscription(1, {"a", "c"})},
                                              {"roundrobin", subscription(1, {"a", "b"})}};
  EXPECT_FALSE(same_protocols("consumer", before, topic_changed));
  std::vector<GroupProtocol> reordered = {before[1], before[0]};
  EXPECT_FALSE(same_protocols("consumer", before, reordered));
  EXPECT_FALSE(same_protocols("consumer", before, {before[0]}));
  std::vector<GroupProtocol> garbage = {{"range", Bytes{std::byte{1}}}, before[1]};
  EXPECT_FALSE(same_protocols("consumer", before, garbage));
}

}  // namespace
}  // namespace strata::coordinator
