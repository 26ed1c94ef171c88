#include "index/index_store.h"

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"

namespace strata::index {
namespace {

IndexEntry entry(int64_t offset, int64_t segment, uint64_t pos, TimestampMs max_before) {
  return IndexEntry{Offset(offset), Offset(segment), FilePos(pos), max_before};
}

class IndexStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = IndexStore::open(dir_.path()).value(); }

  void write(PartitionUid uid, std::vector<IndexEntry> entries) {
    IndexStore::Update u(uid);
    for (const auto& e : entries)
      u.add(e);
    ASSERT_TRUE(store_->write(u).ok());
  }

  strata::testing::TempDir dir_;
  std::unique_ptr<IndexStore> store_;
  PartitionUid p1{1}, p2{2};
};

TEST_F(IndexStoreTest, OffsetFloorFindsTheLastEntryAtOrBelow) {
  write(p1, {entry(0, 0, 0, kNoTimestamp), entry(10, 0, 4100, 50), entry(25, 0, 8300, 70),
             entry(40, 40, 0, 90)});
  write(p2, {entry(5, 0, 0, kNoTimestamp)});
  EXPECT_EQ(*store_->offset_floor(p1, Offset(0)).value(), entry(0, 0, 0, kNoTimestamp));
  EXPECT_EQ(*store_->offset_floor(p1, Offset(9)).value(), entry(0, 0, 0, kNoTimestamp));
  EXPECT_EQ(*store_->offset_floor(p1, Offset(10)).value(), entry(10, 0, 4100, 50));
  EXPECT_EQ(*store_->offset_floor(p1, Offset(39)).value(), entry(25, 0, 8300, 70));
  EXPECT_EQ(*store_->offset_floor(p1, Offset(1'000'000)).value(), entry(40, 40, 0, 90));
  // Partitions do not see each other's entries.
  EXPECT_FALSE(store_->offset_floor(p2, Offset(4)).value().has_value());
  EXPECT_EQ(store_->offset_floor(p2, Offset(4000)).value()->offset, Offset(5));
  EXPECT_FALSE(store_->offset_floor(PartitionUid(3), Offset(100)).value().has_value());
}

TEST_F(IndexStoreTest, TimeFloorFindsTheLastEntryWhosePrefixIsOlder) {
  write(p1, {entry(0, 0, 0, kNoTimestamp), entry(10, 0, 100, 1000), entry(20, 0, 200, 1000),
             entry(30, 0, 300, 2000)});
  // Nothing before offset 0, so a search for any time can start there.
  EXPECT_EQ(store_->time_floor(p1, 5).value()->offset, Offset(0));
  EXPECT_EQ(store_->time_floor(p1, 1000).value()->offset, Offset(0));
  // Everything before 20 is at most 1000 < 1001: start at the later entry.
  EXPECT_EQ(store_->time_floor(p1, 1001).value()->offset, Offset(20));
  EXPECT_EQ(store_->time_floor(p1, 2000).value()->offset, Offset(20));
  EXPECT_EQ(store_->time_floor(p1, 2001).value()->offset, Offset(30));
  EXPECT_FALSE(store_->time_floor(p2, 2001).value().has_value());
}

TEST_F(IndexStoreTest, TruncateDropsEntriesFromAnOffsetAndCapsMarkers) {
  write(p1, {entry(0, 0, 0, kNoTimestamp), entry(10, 0, 100, 5), entry(20, 0, 200, 9)});
  write(p2, {entry(0, 0, 0, kNoTimestamp), entry(10, 0, 100, 5)});
  LogPoint far{Offset(30), Offset(0), FilePos(300), 9, 0};
  IndexStore::Update u(p1);
  u.set_applied(far);
  ASSERT_TRUE(store_->write(u).ok());
  ASSERT_TRUE(store_->set_recovery_point(p1, far).ok());

  LogPoint cut{Offset(15), Offset(0), FilePos(150), 7, 50};
  ASSERT_TRUE(store_->truncate(p1, Offset(15), cut).ok());
  auto left = store_->offset_entries(p1).value();
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left.back().offset, Offset(10));
  EXPECT_EQ(store_->time_entries(p1).value().size(), 2u);
  EXPECT_EQ(*store_->applied(p1).value(), cut);
  EXPECT_EQ(*store_->recovery_point(p1).value(), cut);
  EXPECT_EQ(store_->offset_entries(p2).value().size(), 2u);
}

TEST_F(IndexStoreTest, DropBeforeAndDropPartition) {
  write(p1, {entry(0, 0, 0, kNoTimestamp), entry(10, 10, 0, 5), entry(20, 20, 0, 9)});
  write(p2, {entry(0, 0, 0, kNoTimestamp)});
  ASSERT_TRUE(store_->drop_before(p1, Offset(20)).ok());
  auto left = store_->offset_entries(p1).value();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].offset, Offset(20));
  auto time_left = store_->time_entries(p1).value();
  ASSERT_EQ(time_left.size(), 1u);
  EXPECT_EQ(time_left[0].offset, Offset(20));
  ASSERT_TRUE(store_->drop_partition(p1).ok());
  EXPECT_TRUE(store_->offset_entries(p1).value().empty());
  EXPECT_TRUE(store_->time_entries(p1).value().empty());
  EXPECT_EQ(store_->offset_entries(p2).value().size(), 1u);
}

TEST_F(IndexStoreTest, SegmentMetasFollowTheirSegments) {
  IndexStore::Update u(p1);
  for (int64_t base : {0, 100, 200, 300})
    u.set_segment(Offset(base), SegmentMeta{base * 10, base + 1});
  u.set_segment(Offset(300), SegmentMeta{-1, 7});  // the last value wins
  IndexStore::Update other(p2);
  other.set_segment(Offset(0), SegmentMeta{5, 6});
  ASSERT_TRUE(store_->write(u).ok());
  ASSERT_TRUE(store_->write(other).ok());
  EXPECT_EQ(store_->segment_meta(p1, Offset(100)).value(), (SegmentMeta{1000, 101}));
  EXPECT_EQ(store_->segment_meta(p1, Offset(300)).value(), (SegmentMeta{-1, 7}));
  EXPECT_FALSE(store_->segment_meta(p1, Offset(50)).value().has_value());

  // Retention drops the metas of segments below the new start ...
  ASSERT_TRUE(store_->drop_before(p1, Offset(200)).ok());
  EXPECT_FALSE(store_->segment_meta(p1, Offset(0)).value().has_value());
  EXPECT_FALSE(store_->segment_meta(p1, Offset(100)).value().has_value());
  EXPECT_TRUE(store_->segment_meta(p1, Offset(200)).value().has_value());
  // ... truncation those of segments based above the cut ...
  LogPoint point{Offset(250), Offset(200), FilePos(10), 5, 0};
  ASSERT_TRUE(store_->truncate(p1, Offset(250), point).ok());
  EXPECT_TRUE(store_->segment_meta(p1, Offset(200)).value().has_value());
  EXPECT_FALSE(store_->segment_meta(p1, Offset(300)).value().has_value());
  // ... and no other partition's.
  EXPECT_EQ(store_->segment_meta(p2, Offset(0)).value(), (SegmentMeta{5, 6}));
  ASSERT_TRUE(store_->drop_partition(p1).ok());
  EXPECT_FALSE(store_->segment_meta(p1, Offset(200)).value().has_value());
  EXPECT_TRUE(store_->segment_meta(p2, Offset(0)).value().has_value());
}

TEST_F(IndexStoreTest, FlushedWritesSurviveReopen) {
  write(p1, {entry(0, 0, 0, kNoTimestamp), entry(7, 0, 90, 3)});
  ASSERT_TRUE(store_->flush().ok());
  store_.reset();
  store_ = IndexStore::open(dir_.path()).value();
  EXPECT_EQ(store_->offset_entries(p1).value().size(), 2u);
}

TEST_F(IndexStoreTest, CrashLosesUnflushedWritesButKeepsBatchesWhole) {
  store_.reset();
  store_ = IndexStore::open(dir_.path(), {.flush_on_close = false}).value();
  write(p1, {entry(0, 0, 0, kNoTimestamp)});
  ASSERT_TRUE(store_->flush().ok());
  IndexStore::Update u(p1);
  u.add(entry(10, 0, 100, 4));
  u.set_applied(LogPoint{Offset(11), Offset(0), FilePos(150), 4, 0});
  ASSERT_TRUE(store_->write(u).ok());
  store_.reset();  // no flush: the second batch exists only in the memtable
  store_ = IndexStore::open(dir_.path()).value();
  EXPECT_EQ(store_->offset_entries(p1).value().size(), 1u);
  EXPECT_FALSE(store_->applied(p1).value().has_value());
}

TEST_F(IndexStoreTest, LeaderEpochsAreTrimmedFromTheEndAndFromTheStart) {
  PartitionUid p(3);
  auto epochs = [&] { return store_->leader_epochs(p).value(); };
  IndexStore::Update u(p);
  for (auto [e, start] : {std::pair{1, 0}, {2, 10}, {4, 20}, {6, 30}})
    u.add_epoch({LeaderEpoch(e), Offset(start)});
  ASSERT_TRUE(store_->write(u).ok());
  ASSERT_TRUE(store_
                  ->write([] {  // another partition's epochs stay apart
                    IndexStore::Update other(PartitionUid(4));
                    other.add_epoch({LeaderEpoch(9), Offset(0)});
                    return other;
                  }())
                  .ok());
  ASSERT_EQ(epochs().size(), 4u);
  // A truncation drops the epochs that begin at or after the cut.
  LogPoint at25{Offset(25), Offset(20), FilePos(100), kNoTimestamp, 0};
  ASSERT_TRUE(store_->truncate(p, Offset(25), at25).ok());
  EXPECT_EQ(epochs(), (std::vector<EpochEntry>{{LeaderEpoch(1), Offset(0)},
                                               {LeaderEpoch(2), Offset(10)},
                                               {LeaderEpoch(4), Offset(20)}}));
  // Retention keeps the epoch the new start falls in, starting there ...
  ASSERT_TRUE(store_->drop_before(p, Offset(15)).ok());
  EXPECT_EQ(epochs(),
            (std::vector<EpochEntry>{{LeaderEpoch(2), Offset(15)}, {LeaderEpoch(4), Offset(20)}}));
  // ... unless an epoch begins exactly there.
  ASSERT_TRUE(store_->drop_before(p, Offset(20)).ok());
  EXPECT_EQ(epochs(), (std::vector<EpochEntry>{{LeaderEpoch(4), Offset(20)}}));
  EXPECT_EQ(store_->leader_epochs(PartitionUid(4)).value().size(), 1u);
  ASSERT_TRUE(store_->drop_partition(p).ok());
  EXPECT_TRUE(epochs().empty());
}

}  // namespace
}  // namespace strata::index
