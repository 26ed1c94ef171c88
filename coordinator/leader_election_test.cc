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

TEST(LeaderElection, AnUncleanElectionTakesALiveOutOfSyncReplicaOnlyWhenNoInSyncOneIsLive) {
  // Replicas 1, 2, 3; only 1 in sync, and it died: with unclean elections
  // allowed the first live replica leads alone.
  PartitionState s{{1, 2, 3}, 1, 4, {1}, 10};
  auto next = on_live_brokers(s, {3, 2}, /*unclean=*/true).value();
  EXPECT_EQ(next.leader, 2);
  EXPECT_EQ(next.isr, (std::vector<int32_t>{2}));
  EXPECT_EQ(next.leader_epoch, 5);
  EXPECT_EQ(next.partition_epoch, 11);
  // Not allowed: offline, the dead member kept.
  EXPECT_EQ(on_live_brokers(s, {2, 3}).value().leader, -1);
  // An offline partition whose in-sync replica is dead gets one later.
  PartitionState offline{{1, 2, 3}, -1, 5, {1}, 11};
  EXPECT_FALSE(on_live_brokers(offline, {}, true).has_value());
  EXPECT_EQ(on_live_brokers(offline, {3}, true).value().leader, 3);
  EXPECT_EQ(unclean_election(offline, {3}).value().isr, (std::vector<int32_t>{3}));
  // A live in-sync replica is elected cleanly, even when unclean is allowed.
  PartitionState two{{1, 2, 3}, 1, 4, {1, 3}, 10};
  auto clean = on_live_brokers(two, {2, 3}, true).value();
  EXPECT_EQ(clean.leader, 3);
  EXPECT_EQ(clean.isr, (std::vector<int32_t>{3}));
  EXPECT_FALSE(unclean_election(two, {2, 3}).has_value());
  // A live leader needs no election; no live replica allows none.
  EXPECT_FALSE(unclean_election(s, {1, 2}).has_value());
  EXPECT_FALSE(unclean_election(offline, {}).has_value());
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

TEST(LeaderElection, TheLeaderShrinksAndExpandsTheIsrAtItsOwnEpochs) {
  PartitionState s{{1, 2, 3}, 1, 4, {1, 2, 3}, 10};
  auto shrunk = isr_change(s, {1, 4, 10, {1, 3}}, {1, 2, 3});
  ASSERT_TRUE(shrunk.ok()) << shrunk.error().to_string();
  ASSERT_TRUE(shrunk->has_value());
  EXPECT_EQ((*shrunk)->isr, (std::vector<int32_t>{1, 3}));
  EXPECT_EQ((*shrunk)->partition_epoch, 11);
  EXPECT_EQ((*shrunk)->leader_epoch, 4);  // the leader stays: its epoch too
  EXPECT_EQ((*shrunk)->leader, 1);
  // Back in, listed in replica order whatever the request's order.
  auto grown = isr_change(**shrunk, {1, 4, 11, {3, 2, 1}}, {1, 2, 3});
  ASSERT_TRUE(grown.ok() && grown->has_value());
  EXPECT_EQ((*grown)->isr, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ((*grown)->partition_epoch, 12);
  // Asking for what is already there changes nothing.
  auto same = isr_change(s, {1, 4, 10, {3, 1, 2}}, {1, 2, 3});
  ASSERT_TRUE(same.ok());
  EXPECT_FALSE(same->has_value());
}

TEST(LeaderElection, AnIsrChangeFromAnotherStateIsRefused) {
  PartitionState s{{1, 2, 3}, 1, 4, {1, 3}, 10};
  // A deposed leader, or the right leader at an old leader epoch.
  EXPECT_EQ(isr_change(s, {2, 4, 10, {2, 3}}, {1, 2, 3}).error().code(), Errc::kFencedLeaderEpoch);
  EXPECT_EQ(isr_change(s, {1, 3, 10, {1}}, {1, 2, 3}).error().code(), Errc::kFencedLeaderEpoch);
  // Based on a state that has moved on.
  EXPECT_EQ(isr_change(s, {1, 4, 9, {1}}, {1, 2, 3}).error().code(), Errc::kUnavailable);
  // Without the leader, with a stranger, with a broker twice.
  EXPECT_EQ(isr_change(s, {1, 4, 10, {3}}, {1, 2, 3}).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(isr_change(s, {1, 4, 10, {1, 7}}, {1, 2, 3, 7}).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(isr_change(s, {1, 4, 10, {1, 1}}, {1, 2, 3}).error().code(), Errc::kInvalidArgument);
  // Adding a broker that is not live.
  EXPECT_EQ(isr_change(s, {1, 4, 10, {1, 2, 3}}, {1, 3}).error().code(), Errc::kUnavailable);
  // A dead member already in the ISR may stay (the leader proposed before
  // the controller saw it die).
  EXPECT_TRUE(isr_change(s, {1, 4, 10, {1, 3}}, {1}).ok());
}

TEST(LeaderElection, AShuttingDownBrokerHandsOverWhatItLeadsAndLeavesTheIsr) {
  PartitionState led{{1, 2, 3}, 1, 4, {1, 2, 3}, 10};
  auto next = on_shutdown(led, 1, {2, 3}).value();
  EXPECT_EQ(next.leader, 2);
  EXPECT_EQ(next.isr, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(next.leader_epoch, 5);
  EXPECT_EQ(next.partition_epoch, 11);
  // Where it follows it only leaves the ISR.
  PartitionState followed{{2, 1, 3}, 2, 4, {2, 1, 3}, 10};
  next = on_shutdown(followed, 1, {2, 3}).value();
  EXPECT_EQ(next.leader, 2);
  EXPECT_EQ(next.leader_epoch, 4);
  EXPECT_EQ(next.isr, (std::vector<int32_t>{2, 3}));
  // The leader only if another in-sync replica is live: here 2 is dead and
  // 3 out of sync.
  EXPECT_FALSE(on_shutdown({{1, 2, 3}, 1, 4, {1, 2}, 10}, 1, {3}).has_value());
  // The last in-sync replica stays, leading.
  EXPECT_FALSE(on_shutdown({{1, 2}, 1, 4, {1}, 10}, 1, {2}).has_value());
  // Not in the ISR: nothing to change.
  EXPECT_FALSE(on_shutdown({{1, 2}, 2, 4, {2}, 10}, 1, {2}).has_value());
}

}  // namespace
}  // namespace strata::coordinator
