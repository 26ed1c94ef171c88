// The leader epoch cache alone: what it stores, what a follower's question
// gets (KIP-101/279), and how it follows the log's start and end.
#include "engine/leader_epoch_cache.h"

#include <gtest/gtest.h>

namespace strata::engine {
namespace {

// Epoch 1 from offset 0, 3 from 10, 6 from 25.
LeaderEpochCache epochs_1_3_6() {
  LeaderEpochCache c;
  c.track(LeaderEpoch(1), Offset(0));
  c.track(LeaderEpoch(3), Offset(10));
  c.track(LeaderEpoch(6), Offset(25));
  return c;
}

TEST(LeaderEpochCache, OnlyABatchOfAHigherEpochBeginsAnEntry) {
  LeaderEpochCache c;
  EXPECT_EQ(c.track(LeaderEpoch(1), Offset(0)), (index::EpochEntry{LeaderEpoch(1), Offset(0)}));
  EXPECT_FALSE(c.track(LeaderEpoch(1), Offset(5)));
  EXPECT_FALSE(c.track(LeaderEpoch(0), Offset(7)));  // an older epoch never goes back in
  EXPECT_EQ(c.track(LeaderEpoch(4), Offset(10)), (index::EpochEntry{LeaderEpoch(4), Offset(10)}));
  EXPECT_EQ(c.entries(), (std::map<int32_t, Offset>{{1, Offset(0)}, {4, Offset(10)}}));
  EXPECT_EQ(c.latest(), 4);
}

TEST(LeaderEpochCache, AnEpochEndsWhereTheNextBeginsAndTheLatestAtTheLogEnd) {
  LeaderEpochCache c = epochs_1_3_6();
  const Offset end(40);
  EXPECT_EQ(c.end_offset_for(LeaderEpoch(1), end), (EpochEnd{LeaderEpoch(1), Offset(10)}));
  EXPECT_EQ(c.end_offset_for(LeaderEpoch(3), end), (EpochEnd{LeaderEpoch(3), Offset(25)}));
  EXPECT_EQ(c.end_offset_for(LeaderEpoch(6), end), (EpochEnd{LeaderEpoch(6), end}));
  // Between two epochs here: the lower one, ending where the higher begins.
  EXPECT_EQ(c.end_offset_for(LeaderEpoch(4), end), (EpochEnd{LeaderEpoch(3), Offset(25)}));
  // Below the first: that epoch, ending where the first here begins.
  EXPECT_EQ(c.end_offset_for(LeaderEpoch(0), end), (EpochEnd{LeaderEpoch(0), Offset(0)}));
  // Above every epoch here, or none asked: no answer.
  EXPECT_EQ(c.end_offset_for(LeaderEpoch(7), end), EpochEnd{});
  EXPECT_EQ(c.end_offset_for(LeaderEpoch(-1), end), EpochEnd{});
  EXPECT_EQ(LeaderEpochCache().end_offset_for(LeaderEpoch(1), end), EpochEnd{});
}

TEST(LeaderEpochCache, ANewLogStartMovesTheEpochItFallsInAndDropsThoseBelow) {
  LeaderEpochCache c = epochs_1_3_6();
  c.trim_below(Offset(12));
  EXPECT_EQ(c.entries(), (std::map<int32_t, Offset>{{3, Offset(12)}, {6, Offset(25)}}));
  c.trim_below(Offset(25));  // exactly where one begins
  EXPECT_EQ(c.entries(), (std::map<int32_t, Offset>{{6, Offset(25)}}));
  c.trim_below(Offset(3));  // below everything: nothing changes
  EXPECT_EQ(c.entries(), (std::map<int32_t, Offset>{{6, Offset(25)}}));
}

TEST(LeaderEpochCache, ATruncationDropsTheEpochsBeginningAtOrAfterTheNewEnd) {
  LeaderEpochCache c = epochs_1_3_6();
  c.truncate_from(Offset(25));
  EXPECT_EQ(c.latest(), 3);
  EXPECT_EQ(c.end_offset_for(LeaderEpoch(3), Offset(20)), (EpochEnd{LeaderEpoch(3), Offset(20)}));
  // A later epoch may begin again after the cut.
  EXPECT_TRUE(c.track(LeaderEpoch(7), Offset(20)));
  c.truncate_from(Offset(0));
  EXPECT_FALSE(c.latest());
}

TEST(LeaderEpochCache, LoadingKeepsOnlyTheStoredEpochsThatBeginBelowTheAppliedEnd) {
  LeaderEpochCache c;
  c.track(LeaderEpoch(9), Offset(100));
  c.load({{LeaderEpoch(1), Offset(0)}, {LeaderEpoch(2), Offset(30)}, {LeaderEpoch(5), Offset(60)}},
         Offset(60));
  EXPECT_EQ(c.entries(), (std::map<int32_t, Offset>{{1, Offset(0)}, {2, Offset(30)}}));
}

}  // namespace
}  // namespace strata::engine
