#include "replication/in_sync_replicas.h"

#include <gtest/gtest.h>

namespace strata::replication {
namespace {

using Ids = std::vector<int32_t>;

class InSyncReplicasTest : public ::testing::Test {
 protected:
  InSyncReplicas make(InSyncReplicas::Options o) {
    InSyncReplicas isr(1, clock_, o);
    isr.reset({1, 2, 3}, {1, 2, 3}, Offset(0));
    return isr;
  }
  ManualClock clock_;
  InSyncReplicas::Options log_end_{.lag_time_max_ms = 10000, .min_insync = 1, .durable = false};
};

TEST_F(InSyncReplicasTest, TheHighWatermarkIsTheLowestIsrLogEndAndNeverGoesBack) {
  auto isr = make(log_end_);
  isr.on_leader_log(Offset(10), Offset(0));
  EXPECT_EQ(isr.high_watermark(), Offset(0));  // the followers have not fetched
  isr.on_fetch(2, Offset(10), Offset(0));
  isr.on_fetch(3, Offset(4), Offset(0));
  EXPECT_EQ(isr.high_watermark(), Offset(4));
  isr.on_fetch(3, Offset(10), Offset(0));
  EXPECT_EQ(isr.high_watermark(), Offset(10));
  isr.on_leader_log(Offset(15), Offset(0));
  isr.on_fetch(2, Offset(15), Offset(0));
  isr.on_fetch(3, Offset(12), Offset(0));
  EXPECT_EQ(isr.high_watermark(), Offset(12));
  // A follower that reports less (it truncated) does not move it back.
  isr.on_fetch(3, Offset(11), Offset(0));
  EXPECT_EQ(isr.high_watermark(), Offset(12));
  // Fetches from brokers that are not replicas change nothing.
  isr.on_fetch(9, Offset(0), Offset(0));
  EXPECT_EQ(isr.high_watermark(), Offset(12));
}

TEST_F(InSyncReplicasTest, OnFsyncTopicsOnlySyncedOffsetsCount) {
  auto isr = make({.lag_time_max_ms = 10000, .min_insync = 1, .durable = true});
  isr.on_leader_log(Offset(10), Offset(6));
  isr.on_fetch(2, Offset(10), Offset(8));
  isr.on_fetch(3, Offset(10), Offset(10));
  EXPECT_EQ(isr.high_watermark(), Offset(6));  // the leader's own sync lags
  isr.on_leader_log(Offset(10), Offset(10));
  EXPECT_EQ(isr.high_watermark(), Offset(8));
  // A follower cannot claim more synced than it holds.
  isr.on_fetch(2, Offset(9), Offset(50));
  EXPECT_EQ(isr.high_watermark(), Offset(9));
}

TEST_F(InSyncReplicasTest, BelowMinInsyncTheWatermarkStopsAndAcksAllIsRefused) {
  InSyncReplicas isr(1, clock_, {.lag_time_max_ms = 10000, .min_insync = 2, .durable = false});
  isr.reset({1, 2, 3}, {1, 2}, Offset(0));
  isr.on_leader_log(Offset(5), Offset(0));
  isr.on_fetch(2, Offset(5), Offset(0));
  EXPECT_TRUE(isr.enough_in_sync());
  EXPECT_EQ(isr.high_watermark(), Offset(5));
  // Broker 2 stops fetching; the controller accepts a shrink to the leader
  // alone: the last replica standing may not advance the watermark by
  // itself (KIP-966).
  clock_.advance_ms(11000);
  ASSERT_EQ(isr.proposal(), (Ids{1}));
  isr.reset({1, 2, 3}, {1}, Offset(0));
  isr.on_leader_log(Offset(9), Offset(0));
  EXPECT_FALSE(isr.enough_in_sync());
  EXPECT_EQ(isr.high_watermark(), Offset(5));
}

TEST_F(InSyncReplicasTest, ALaggingFollowerIsProposedForRemovalButHoldsTheWatermarkUntilAccepted) {
  auto isr = make(log_end_);
  for (int64_t t = 0; t < 12000; t += 500) {
    clock_.advance_ms(500);
    Offset end(t / 100 + 10);
    isr.on_leader_log(end, Offset(0));
    isr.on_fetch(2, end, Offset(0));  // 2 keeps up; 3 stopped at 3
    if (t == 0) isr.on_fetch(3, Offset(3), Offset(0));
    if (t < 10000) {
      EXPECT_EQ(isr.proposal(), std::nullopt) << "at " << t;
    }
  }
  ASSERT_EQ(isr.proposal(), (Ids{1, 2}));
  EXPECT_EQ(isr.high_watermark(), Offset(3));  // the old ISR governs
  isr.reset({1, 2, 3}, {1, 2}, Offset(0));
  EXPECT_EQ(isr.high_watermark(), Offset(12000 / 100 + 10 - 5));
  EXPECT_EQ(isr.proposal(), std::nullopt);
}

TEST_F(InSyncReplicasTest, AFollowerThatKeepsUpWithTheEndOfItsLastFetchStaysIn) {
  auto isr = make(log_end_);
  Offset end(100);
  isr.on_leader_log(end, Offset(0));
  isr.on_fetch(2, end, Offset(0));
  isr.on_fetch(3, end, Offset(0));
  // The leader grows between every two fetches of 3, which always asks for
  // what the end was at its previous fetch: never at the end, yet caught up
  // as of its last fetch, so never lagging by more than one fetch interval.
  for (int i = 0; i < 60; ++i) {
    clock_.advance_ms(1000);
    Offset asked = end;
    end = end + 10;
    isr.on_leader_log(end, Offset(0));
    isr.on_fetch(2, end, Offset(0));
    isr.on_fetch(3, asked, Offset(0));
  }
  EXPECT_EQ(isr.proposal(), std::nullopt);
}

TEST_F(InSyncReplicasTest, AReplicaBackAtTheWatermarkIsProposedAndCountsAtOnce) {
  InSyncReplicas isr(1, clock_, log_end_);
  isr.reset({1, 2, 3}, {1, 2}, Offset(20));  // this leadership began at 20
  isr.on_leader_log(Offset(30), Offset(0));
  isr.on_fetch(2, Offset(30), Offset(0));
  EXPECT_EQ(isr.high_watermark(), Offset(30));
  isr.on_fetch(3, Offset(15), Offset(0));  // behind the watermark and the epoch start
  EXPECT_EQ(isr.proposal(), std::nullopt);
  isr.on_leader_log(Offset(40), Offset(0));
  isr.on_fetch(3, Offset(30), Offset(0));  // at the watermark
  EXPECT_EQ(isr.proposal(), (Ids{1, 2, 3}));
  isr.on_fetch(2, Offset(40), Offset(0));
  EXPECT_EQ(isr.high_watermark(), Offset(30));  // 3 counts before it is accepted
  isr.on_fetch(3, Offset(40), Offset(0));
  EXPECT_EQ(isr.high_watermark(), Offset(40));
  isr.reset({1, 2, 3}, {1, 2, 3}, Offset(20));
  EXPECT_EQ(isr.proposal(), std::nullopt);
  // Just taken in, it gets a whole lag window before it can be dropped.
  clock_.advance_ms(9000);
  EXPECT_EQ(isr.proposal(), std::nullopt);
}

TEST_F(InSyncReplicasTest, AReplicaTheControllerDroppedCountsAgainOnlyOnceItFetches) {
  auto isr = make(log_end_);
  isr.on_leader_log(Offset(10), Offset(0));
  isr.on_fetch(2, Offset(10), Offset(0));
  isr.on_fetch(3, Offset(10), Offset(0));
  EXPECT_EQ(isr.high_watermark(), Offset(10));
  // Broker 3 died; the controller took it out. It was caught up a moment
  // ago, but it no longer holds the watermark back nor is proposed back.
  isr.reset({1, 2, 3}, {1, 2}, Offset(0));
  isr.on_leader_log(Offset(14), Offset(0));
  isr.on_fetch(2, Offset(14), Offset(0));
  EXPECT_EQ(isr.high_watermark(), Offset(14));
  EXPECT_EQ(isr.proposal(), std::nullopt);
  // Back and fetching at the watermark: proposed, and counted.
  isr.on_fetch(3, Offset(14), Offset(0));
  EXPECT_EQ(isr.proposal(), (Ids{1, 2, 3}));
  // If it stops again (it never made the ISR), it holds the watermark back
  // only until it is no longer caught up within the lag window.
  isr.on_leader_log(Offset(20), Offset(0));
  isr.on_fetch(2, Offset(20), Offset(0));
  EXPECT_EQ(isr.high_watermark(), Offset(14));
  clock_.advance_ms(10001);
  isr.on_fetch(2, Offset(20), Offset(0));    // 2 keeps fetching; 3 is silent
  isr.on_leader_log(Offset(20), Offset(0));  // the leader's periodic look
  EXPECT_EQ(isr.high_watermark(), Offset(20));
  EXPECT_EQ(isr.proposal(), std::nullopt);
}

}  // namespace
}  // namespace strata::replication
