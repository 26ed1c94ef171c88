#include "server/partition_route.h"

#include <gtest/gtest.h>

namespace strata::server {
namespace {

using kafka::ErrorCode;

TEST(PartitionRoute, AnswersAsKafkaDoesForEveryCaseInKip320Order) {
  coordinator::TopicInfo t;
  t.name = "orders";
  t.number = 3;
  t.partitions = 3;
  t.states = {
      {{1}, 1, 4, {1}, 6},        // led here at epoch 4
      {{2, 1}, 2, 7, {2, 1}, 9},  // a follower here; broker 2 leads
      {{1}, -1, 2, {}, 3},        // offline
  };
  struct Case {
    const coordinator::TopicInfo* topic;
    int32_t partition;
    int32_t epoch;
    ErrorCode want;
  };
  const Case cases[] = {
      {nullptr, 0, kNoLeaderEpoch, ErrorCode::kUnknownTopicOrPartition},
      {&t, -1, kNoLeaderEpoch, ErrorCode::kUnknownTopicOrPartition},
      {&t, 3, kNoLeaderEpoch, ErrorCode::kUnknownTopicOrPartition},
      {&t, 0, kNoLeaderEpoch, ErrorCode::kNone},
      {&t, 0, 4, ErrorCode::kNone},
      {&t, 0, 3, ErrorCode::kFencedLeaderEpoch},
      {&t, 0, 5, ErrorCode::kUnknownLeaderEpoch},
      {&t, 1, kNoLeaderEpoch, ErrorCode::kNotLeaderOrFollower},
      {&t, 1, 7, ErrorCode::kNotLeaderOrFollower},
      {&t, 1, 6, ErrorCode::kFencedLeaderEpoch},  // the epoch is checked first
      {&t, 2, kNoLeaderEpoch, ErrorCode::kNotLeaderOrFollower},
  };
  for (const auto& c : cases) {
    auto r = route_partition(c.topic, c.partition, c.epoch, /*self=*/1, /*may_lead=*/true);
    EXPECT_EQ(r.error, c.want) << "partition " << c.partition << " epoch " << c.epoch;
    if (r.ok()) {
      EXPECT_EQ(r.uid, t.uid(PartitionId(c.partition)));
      EXPECT_EQ(r.state, &t.states[static_cast<size_t>(c.partition)]);
    }
  }
}

TEST(PartitionRoute, ABrokerWhoseLeaseIsNotCurrentLeadsOnlyWhatNoOneElseCouldLead) {
  coordinator::TopicInfo t;
  t.name = "orders";
  t.partitions = 2;
  t.states = {
      {{1, 2}, 1, 4, {1, 2}, 6},  // broker 2 could have been elected meanwhile
      {{1}, 1, 4, {1}, 6},        // the sole in-sync replica: no one else can lead
  };
  EXPECT_EQ(route_partition(&t, 0, 4, 1, /*may_lead=*/true).error, ErrorCode::kNone);
  EXPECT_EQ(route_partition(&t, 0, 4, 1, /*may_lead=*/false).error,
            ErrorCode::kNotLeaderOrFollower);
  EXPECT_EQ(route_partition(&t, 1, 4, 1, /*may_lead=*/false).error, ErrorCode::kNone);
  // The checks before it still come first.
  EXPECT_EQ(route_partition(&t, 0, 3, 1, false).error, ErrorCode::kFencedLeaderEpoch);
  EXPECT_EQ(route_partition(&t, 2, 4, 1, false).error, ErrorCode::kUnknownTopicOrPartition);
}

}  // namespace
}  // namespace strata::server
