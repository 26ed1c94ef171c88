#include "coordinator/group/consumer_subscription.h"

#include <gtest/gtest.h>

#include "base/big_endian.h"
#include "coordinator/group/testing/subscription.h"

namespace strata::coordinator {
namespace {

Bytes subscription(int16_t version, const std::vector<std::string>& topics, Bytes tail = {}) {
  return testing::subscription_bytes(version, topics, tail);
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
