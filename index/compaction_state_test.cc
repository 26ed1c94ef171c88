#include "index/compaction_state.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "base/bytes.h"
#include "base/testing/temp_dir.h"
#include "index/index_store.h"

namespace strata::index {
namespace {

KeyEntry entry_at(int64_t offset, uint64_t generation, std::string key = "k") {
  return KeyEntry{Offset(offset), generation, -1, std::move(key)};
}

TEST(CompactionStateTest, ACutVoidsOnlyOlderEntriesAtOrAboveIt) {
  CompactionState s;
  EXPECT_TRUE(s.valid(entry_at(100, 0)));
  s.cut(Offset(50));
  EXPECT_EQ(s.generation, 1u);
  EXPECT_TRUE(s.valid(entry_at(49, 0)));
  EXPECT_FALSE(s.valid(entry_at(50, 0)));
  EXPECT_FALSE(s.valid(entry_at(100, 0)));
  // Written after the cut: valid wherever it points.
  EXPECT_TRUE(s.valid(entry_at(100, 1)));
  // From a generation this state never had (a lost cut): void.
  EXPECT_FALSE(s.valid(entry_at(10, 2)));
}

TEST(CompactionStateTest, ForgottenCutsVoidEveryEntryOlderThanTheKeptOnes) {
  CompactionState s;
  for (size_t i = 0; i <= CompactionState::kMaxCuts; ++i)
    s.cut(Offset(1'000'000));
  EXPECT_EQ(s.cuts.size(), CompactionState::kMaxCuts);
  EXPECT_FALSE(s.valid(entry_at(0, 0)));
  EXPECT_TRUE(s.valid(entry_at(0, s.generation)));
  EXPECT_TRUE(s.valid(entry_at(0, s.void_below)));
}

TEST(CompactionStateTest, ATombstoneIsFirstSeenByTheFirstPassAboveIt) {
  CompactionState s;
  const int64_t day = 86'400'000;
  s.add_pass(Offset(100), 1000, day);
  s.add_pass(Offset(300), 5000, day);
  EXPECT_EQ(s.first_seen_ms(Offset(99), 9000), 1000);
  EXPECT_EQ(s.first_seen_ms(Offset(100), 9000), 5000);
  EXPECT_EQ(s.first_seen_ms(Offset(300), 9000), 9000);
  // A pass that covers nothing new changes nothing.
  s.add_pass(Offset(300), 7000, day);
  EXPECT_EQ(s.passes.size(), 2u);
  // Once both passes are a retention old, they are one.
  s.add_pass(Offset(400), 5000 + day, day);
  EXPECT_EQ(s.passes, (std::vector<CleanerPass>{{Offset(300), 5000}, {Offset(400), 5000 + day}}));
  EXPECT_EQ(s.first_seen_ms(Offset(50), 0), 5000);
  // A cut pulls the passes back to it.
  s.cut(Offset(200));
  EXPECT_EQ(s.passes, (std::vector<CleanerPass>{{Offset(200), 5000}}));
}

TEST(CompactionStateTest, EncodesAndDecodes) {
  CompactionState s;
  s.cut(Offset(7));
  s.add_pass(Offset(5), 42, 10);
  s.cleaned_through = Offset(5);
  s.last_cleaned_ms = 42;
  auto back = decode_compaction_state(encode_compaction_state(s));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, s);
  EXPECT_FALSE(decode_compaction_state("short").ok());
  KeyEntry e{Offset(9), 3, 77, "a key"};
  EXPECT_EQ(decode_key_entry(encode_key_entry(e)).value(), e);
  EXPECT_FALSE(decode_key_entry("too short").ok());
}

TEST(CompactionStateTest, TheHashIsStable) {
  // Persisted in the index: it must not change between runs or builds.
  EXPECT_EQ(key_hash(bytes_of("")), 0x2d06800538d394c2ull);
  EXPECT_NE(key_hash(bytes_of("a")), key_hash(bytes_of("b")));
}

class KeyMapStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = IndexStore::open(dir_.path()).value(); }
  void applied_at(int64_t next) {
    IndexStore::Update u(uid_);
    u.set_applied(LogPoint{Offset(next), Offset(0), FilePos(0), kNoTimestamp, 0});
    ASSERT_TRUE(store_->write(u).ok());
  }
  strata::testing::TempDir dir_;
  std::unique_ptr<IndexStore> store_;
  PartitionUid uid_{7};
};

TEST_F(KeyMapStoreTest, ATruncationBelowTheAppliedMarkerCutsTheKeyMap) {
  IndexStore::Update u(uid_);
  u.put_key(1, entry_at(10, 0, "one"));
  u.put_key(2, entry_at(30, 0, "two"));
  u.set_applied(LogPoint{Offset(40), Offset(0), FilePos(0), kNoTimestamp, 0});
  ASSERT_TRUE(store_->write(u).ok());
  EXPECT_EQ(store_->key_count(uid_).value(), 2u);
  LogPoint at20{Offset(20), Offset(0), FilePos(0), kNoTimestamp, 0};
  ASSERT_TRUE(store_->truncate(uid_, Offset(20), at20).ok());
  auto state = store_->compaction_state(uid_).value();
  EXPECT_TRUE(state.valid(*store_->key_entry(uid_, 1).value()));
  EXPECT_FALSE(state.valid(*store_->key_entry(uid_, 2).value()));
  // A truncation at the marker (recovery's, when nothing was lost) cuts nothing.
  ASSERT_TRUE(store_->truncate(uid_, Offset(20), at20).ok());
  EXPECT_EQ(store_->compaction_state(uid_).value().generation, state.generation);
  ASSERT_TRUE(store_->drop_partition(uid_).ok());
  EXPECT_EQ(store_->key_count(uid_).value(), 0u);
}

TEST_F(KeyMapStoreTest, InstallingACleaningReplacesItsRangeOfTheIndex) {
  IndexStore::Update u(uid_);
  u.add(IndexEntry{Offset(0), Offset(0), FilePos(0), kNoTimestamp});
  u.add(IndexEntry{Offset(10), Offset(0), FilePos(4000), 5});
  u.add(IndexEntry{Offset(20), Offset(20), FilePos(0), 9});
  u.add(IndexEntry{Offset(30), Offset(30), FilePos(0), 12});
  u.set_segment(Offset(0), SegmentMeta{9, 1});
  u.set_segment(Offset(20), SegmentMeta{12, 2});
  u.put_key(1, entry_at(25, 0, "gone"));
  u.put_key(2, entry_at(26, 0, "rewritten"));
  ASSERT_TRUE(store_->write(u).ok());

  IndexStore::Cleaned c;
  c.from = Offset(0);
  c.to = Offset(30);
  c.entries = {IndexEntry{Offset(0), Offset(0), FilePos(0), kNoTimestamp}};
  c.segments = {{Offset(0), SegmentMeta{12, 2}}};
  c.removed_segments = {Offset(20)};
  c.state.cleaned_through = Offset(30);
  c.dropped_keys = {{1, Offset(25)}, {2, Offset(20)}};
  ASSERT_TRUE(store_->install_cleaned(uid_, c).ok());

  auto offsets = store_->offset_entries(uid_).value();
  ASSERT_EQ(offsets.size(), 2u);
  EXPECT_EQ(offsets[0].offset, Offset(0));
  EXPECT_EQ(offsets[1].offset, Offset(30));
  auto times = store_->time_entries(uid_).value();
  ASSERT_EQ(times.size(), 2u);
  EXPECT_EQ(times[1].offset, Offset(30));
  EXPECT_EQ(store_->segment_meta(uid_, Offset(0)).value(), SegmentMeta({12, 2}));
  EXPECT_FALSE(store_->segment_meta(uid_, Offset(20)).value().has_value());
  EXPECT_EQ(store_->compaction_state(uid_).value().cleaned_through, Offset(30));
  // The tombstone's entry went; the other key's entry names a later record.
  EXPECT_FALSE(store_->key_entry(uid_, 1).value().has_value());
  EXPECT_TRUE(store_->key_entry(uid_, 2).value().has_value());
}

TEST_F(KeyMapStoreTest, ABatchedLookupAnswersEachHashInItsPlace) {
  // More hashes than one MultiGet slice takes, out of key order, some
  // asked twice and some not in the map; after a flush too, so the lookups
  // also go to the files.
  IndexStore::Update u(uid_);
  for (uint64_t h = 0; h < 3000; h += 2)
    u.put_key(h * 0x9E3779B97F4A7C15ull,
              entry_at(static_cast<int64_t>(h), 0, fmt::format("k{}", h)));
  ASSERT_TRUE(store_->write(u).ok());
  std::vector<uint64_t> hashes;
  for (uint64_t i = 0; i < 2500; ++i)
    hashes.push_back((i * 7919 % 3000) * 0x9E3779B97F4A7C15ull);
  hashes.push_back(hashes[10]);
  hashes.push_back(hashes[11]);
  for (int round = 0; round < 2; ++round) {
    auto got = store_->key_entries(uid_, hashes).value();
    ASSERT_EQ(got.size(), hashes.size());
    for (size_t i = 0; i < hashes.size(); ++i)
      EXPECT_EQ(got[i], store_->key_entry(uid_, hashes[i]).value()) << i;
    // The map holds the even ones: 0, 1919 (absent), 838 (7919 * 2 % 3000).
    EXPECT_EQ(got[0].value().key, "k0");
    EXPECT_FALSE(got[1].has_value());
    EXPECT_EQ(got[2].value().key, "k838");
    EXPECT_EQ(got[2500].value().key, got[10].value().key);
    ASSERT_TRUE(store_->flush().ok());
  }
}

}  // namespace
}  // namespace strata::index
