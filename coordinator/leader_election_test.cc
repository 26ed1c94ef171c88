#include "coordinator/leader_election.h"

#include <gtest/gtest.h>

namespace strata::coordinator {
namespace {

TEST(LeaderElection, ADeadLeaderIsReplacedByTheFirstLiveInSyncReplica) {
  PartitionState s{{1, 2, 3}, 1, 4, {1, 2, 3}, 10};
  auto next = on_live_brokers(s, {2, 3}).value();
  EXPECT_EQ(next.leader, 2);
  EXPECT_EQ(next.isr, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(next.leader_epoch, 5);
  EXPECT_EQ(next.partition_epoch, 11);
  EXPECT_EQ(next.replicas, s.replicas);
}

TEST(LeaderElection, AnOutOfSyncReplicaIsNeverElected) {
  // Replica 2 is live but not in sync: the partition goes offline.
  PartitionState s{{1, 2}, 1, 4, {1}, 10};
  auto next = on_live_brokers(s, {2}).value();
  EXPECT_EQ(next.leader, -1);
  EXPECT_EQ(next.isr, (std::vector<int32_t>{1}));  // the last member stays
  EXPECT_EQ(next.leader_epoch, 5);
  // Nothing more changes while it stays dead.
  EXPECT_FALSE(on_live_brokers(next, {2}).has_value());
  // When it returns it leads again, at a new epoch.
  auto back = on_live_brokers(next, {1, 2}).value();
  EXPECT_EQ(back.leader, 1);
  EXPECT_EQ(back.leader_epoch, 6);
  EXPECT_EQ(back.partition_epoch, 12);
}

TEST(LeaderElection, ASingleReplicaPartitionIsOfflineUntilItsBrokerReturns) {
  PartitionState s{{3}, 3, 0, {3}, 0};
  auto off = on_live_brokers(s, {1, 2}).value();
  EXPECT_EQ(off.leader, -1);
  EXPECT_EQ(off.isr, (std::vector<int32_t>{3}));
  auto on = on_live_brokers(off, {1, 2, 3}).value();
  EXPECT_EQ(on.leader, 3);
  EXPECT_EQ(on.leader_epoch, 2);
}

TEST(LeaderElection, ADeadFollowerOnlyLeavesTheIsr) {
  PartitionState s{{1, 2, 3}, 1, 4, {1, 2, 3}, 10};
  auto next = on_live_brokers(s, {1, 2}).value();
  EXPECT_EQ(next.leader, 1);
  EXPECT_EQ(next.leader_epoch, 4);  // leadership did not change
  EXPECT_EQ(next.isr, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(next.partition_epoch, 11);
  EXPECT_FALSE(on_live_brokers(s, {1, 2, 3}).has_value());
}

TEST(LeaderElection, PreferredElectionMovesLeadershipBackOnlyToALiveInSyncPreferredReplica) {
  PartitionState s{{1, 2}, 2, 5, {2, 1}, 8};
  auto moved = preferred_election(s, {1, 2}).value();
  EXPECT_EQ(moved.leader, 1);
  EXPECT_EQ(moved.leader_epoch, 6);
  EXPECT_EQ(moved.partition_epoch, 9);
  EXPECT_FALSE(preferred_election(moved, {1, 2}).has_value());                   // already leads
  EXPECT_FALSE(preferred_election(s, {2}).has_value());                          // not live
  EXPECT_FALSE(preferred_election({{1, 2}, 2, 5, {2}, 8}, {1, 2}).has_value());  // not in sync
}

}  // namespace
}  // namespace strata::coordinator
