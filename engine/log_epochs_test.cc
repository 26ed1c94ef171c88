// The leader epoch cache, the follower append and truncate_to.
#include <gtest/gtest.h>

#include "engine/testing/log_fixture.h"

namespace strata::engine {
namespace {

class LogEpochsTest : public testing::LogFixture {
 protected:
  void SetUp() override {
    config_.segment_bytes = 1500;  // two batches a segment
    ASSERT_TRUE(open_log().ok());
  }
  std::vector<std::byte> batch(int records = 3) {
    return make_batch(records, 200, [this](int) { return clock_.now_ms(); });
  }
  // Appends `n` batches as leader of `epoch`; returns their base offsets.
  std::vector<Offset> lead(int32_t epoch, int n) {
    std::vector<Offset> bases;
    for (int i = 0; i < n; ++i) {
      auto r = append(batch(), {.leader_epoch = LeaderEpoch(epoch)});
      EXPECT_TRUE(r.ok()) << r.error().to_string();
      bases.push_back(r->base_offset);
    }
    return bases;
  }
  std::map<int32_t, Offset> epochs() const { return log_->leader_epochs(); }
  EpochEnd end_of(int32_t e) const { return log_->end_offset_for_epoch(LeaderEpoch(e)); }
};

TEST_F(LogEpochsTest, EpochsAreRecordedAsTheyBeginAndAnswerWhereEachEnds) {
  auto e0 = lead(0, 2);
  auto e2 = lead(2, 3);
  auto e5 = lead(5, 1);
  std::map<int32_t, Offset> want = {{0, e0[0]}, {2, e2[0]}, {5, e5[0]}};
  EXPECT_EQ(epochs(), want);
  EXPECT_EQ(end_of(0), (EpochEnd{LeaderEpoch(0), e2[0]}));
  EXPECT_EQ(end_of(1), (EpochEnd{LeaderEpoch(0), e2[0]}));  // the largest epoch below it
  EXPECT_EQ(end_of(2), (EpochEnd{LeaderEpoch(2), e5[0]}));
  EXPECT_EQ(end_of(4), (EpochEnd{LeaderEpoch(2), e5[0]}));
  EXPECT_EQ(end_of(5), (EpochEnd{LeaderEpoch(5), log_->log_end_offset()}));
  EXPECT_EQ(end_of(6), EpochEnd{});  // above every epoch here
  EXPECT_EQ(end_of(-1), EpochEnd{});

  // They survive a clean reopen, a crash that loses the index's memtable,
  // and the loss of the whole index (rebuilt from the batches' epochs).
  close_cleanly();
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_EQ(epochs(), want);
  log_.reset();
  loop_.run_ready();
  index_.reset();
  open_index(/*flush_on_close=*/false);
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(epochs(), want);
  crash(/*lose_index_memtable=*/true);
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(epochs(), want);
  crash(false);
  std::filesystem::remove_all(index_dir());
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(epochs(), want);
  EXPECT_EQ(end_of(3), (EpochEnd{LeaderEpoch(2), e5[0]}));
}

TEST_F(LogEpochsTest, RetentionKeepsTheEpochOfTheNewLogStart) {
  auto e1 = lead(1, 6);
  auto e3 = lead(3, 6);
  ASSERT_GT(log_->segments().size(), 3u);
  auto bases = log_->segments().bases();
  // Delete up to the second segment: epoch 1 now begins at the new start.
  ASSERT_TRUE(log_->advance_start_offset(bases[1]).ok());
  ASSERT_EQ(log_->segments().bases().front(), bases[1]);
  ASSERT_LT(bases[1], e3[0]);
  EXPECT_EQ(epochs(), (std::map<int32_t, Offset>{{1, bases[1]}, {3, e3[0]}}));
  // The stored cache agrees after a reopen.
  close_cleanly();
  ASSERT_TRUE(open_log(true).ok());
  EXPECT_EQ(epochs(), (std::map<int32_t, Offset>{{1, bases[1]}, {3, e3[0]}}));
  (void)e1;
}

TEST_F(LogEpochsTest, AFollowerAppendKeepsTheLeadersOffsetsEpochsAndBytes) {
  // The leader's batches, stamped as its log stamped them.
  std::vector<std::vector<std::byte>> leader;
  Offset next(0);
  for (int i = 0; i < 4; ++i) {
    auto b = batch(2 + i);
    set_base_offset(b.data(), next);
    set_leader_epoch(b.data(), LeaderEpoch(i < 2 ? 4 : 6));
    next = read_batch_header(b.data()).next_offset();
    leader.push_back(std::move(b));
  }
  AppendOptions follower{.from_client = false, .keep_offsets = true};
  for (const auto& b : leader) {
    auto r = append(b, follower);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_EQ(r->base_offset, read_batch_header(b.data()).base_offset);
  }
  // Below the log end (a hole above it is a compacted leader's: taken).
  auto back = log_->append(SharedBytes::copy_of(leader[1]), follower, [](auto) {});
  EXPECT_EQ(back.code(), Errc::kInvalidArgument);
  EXPECT_EQ(log_->log_end_offset(), next);
  for (size_t i = 0; i < leader.size(); ++i) {
    auto got = split(read(read_batch_header(leader[i].data()).base_offset, 1).value());
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got.front(), leader[i]) << "batch " << i;  // byte for byte
  }
  EXPECT_EQ(epochs(), (std::map<int32_t, Offset>{
                          {4, Offset(0)}, {6, read_batch_header(leader[2].data()).base_offset}}));
  // An epoch going back is refused.
  auto older = batch();
  set_base_offset(older.data(), next);
  set_leader_epoch(older.data(), LeaderEpoch(5));
  EXPECT_EQ(log_->append(SharedBytes::copy_of(older), follower, [](auto) {}).code(),
            Errc::kInvalidArgument);
  // A corrupted batch is refused like any other.
  auto bad = batch();
  set_base_offset(bad.data(), next);
  set_leader_epoch(bad.data(), LeaderEpoch(6));
  bad.back() ^= std::byte{1};
  EXPECT_EQ(log_->append(SharedBytes::copy_of(bad), follower, [](auto) {}).code(),
            Errc::kCorruptMessage);
}

TEST_F(LogEpochsTest, AFollowerTakesTimestampsItsLeaderAcceptedWhateverItsClock) {
  close_cleanly();
  config_.message_timestamp_before_max_ms = 1000;
  ASSERT_TRUE(open_log().ok());
  auto old = make_batch(2, 10, [this](int) { return clock_.now_ms() - 3'600'000; });
  EXPECT_EQ(log_->append(SharedBytes::copy_of(old), {}, [](auto) {}).code(),
            Errc::kInvalidTimestamp);
  set_leader_epoch(old.data(), LeaderEpoch(1));
  EXPECT_TRUE(append(old, {.from_client = false, .keep_offsets = true}).ok());
}

TEST_F(LogEpochsTest, TruncateToCutsTheTailDurablyAndTheLogGoesOn) {
  lead(1, 5);
  auto e3 = lead(3, 5);
  ASSERT_TRUE(flush().ok());
  auto segments_before = log_->segments().size();
  ASSERT_GT(segments_before, 2u);
  Offset cut = e3[1];
  // Only batch boundaries within the log.
  EXPECT_EQ(log_->truncate_to(cut + 1).code(), Errc::kInvalidArgument);
  EXPECT_EQ(log_->truncate_to(log_->log_end_offset() + 1).code(), Errc::kOffsetOutOfRange);
  EXPECT_TRUE(log_->truncate_to(log_->log_end_offset()).ok());  // nothing to cut

  ASSERT_TRUE(log_->truncate_to(cut).ok());
  model_truncate(cut);
  EXPECT_EQ(log_->log_end_offset(), cut);
  EXPECT_LE(log_->durable_offset(), cut);
  EXPECT_LT(log_->segments().size(), segments_before);
  EXPECT_EQ(epochs(), (std::map<int32_t, Offset>{{1, Offset(0)}, {3, e3[0]}}));
  expect_reads_match_model(1 << 20);
  expect_index_agrees();
  EXPECT_EQ(end_of(3), (EpochEnd{LeaderEpoch(3), cut}));

  // The new leader's epoch goes on from the cut; a power cut keeps the cut.
  lead(4, 3);
  ASSERT_TRUE(flush().ok());
  auto want = epochs();
  ASSERT_EQ(want.at(4), cut);
  crash(false);
  ASSERT_TRUE(fs_.drop_unsynced().ok());
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(epochs(), want);
  expect_reads_match_model(1 << 20);
  expect_index_agrees();

  // Truncating to the first batch of a segment, and to the log start.
  auto bases = log_->segments().bases();
  ASSERT_TRUE(log_->truncate_to(bases[1]).ok());
  model_truncate(bases[1]);
  expect_reads_match_model(1 << 20);
  ASSERT_TRUE(log_->truncate_to(Offset(0)).ok());
  model_truncate(Offset(0));
  EXPECT_EQ(log_->log_end_offset(), Offset(0));
  EXPECT_TRUE(epochs().empty());
  lead(7, 2);
  close_cleanly();
  ASSERT_TRUE(open_log(true).ok());
  expect_reads_match_model(1 << 20);
  EXPECT_EQ(epochs(), (std::map<int32_t, Offset>{{7, Offset(0)}}));
}

TEST_F(LogEpochsTest, ATruncationStoppedAtAnyStepLeavesALogThatRecoversWhole) {
  lead(1, 12);
  ASSERT_TRUE(flush().ok());
  auto full = model_;
  auto bases = log_->segments().bases();
  ASSERT_GT(bases.size(), 3u);
  Offset cut = std::next(full.begin(), 3)->first;  // inside the first segment
  // Fail each file-system call of the truncation in turn, crash, and reopen:
  // the log is always a prefix of what it was, at least the cut long, with
  // index and epochs agreeing.
  for (uint64_t n = 1;; ++n) {
    fs_.fail_nth(n);
    auto st = log_->truncate_to(cut);
    fs_.clear_faults();
    bool done = st.ok();
    crash(false);
    ASSERT_TRUE(fs_.drop_unsynced().ok());
    ASSERT_TRUE(open_log().ok());
    Offset end = log_->log_end_offset();
    ASSERT_GE(end, cut) << "step " << n;
    model_ = full;
    model_truncate(end);
    expect_reads_match_model(1 << 20);
    expect_index_agrees();
    EXPECT_EQ(epochs(), (std::map<int32_t, Offset>{{1, Offset(0)}}));
    if (done) {
      EXPECT_EQ(end, cut);
      break;
    }
    // Put the log back as it was for the next step.
    for (auto it = full.lower_bound(end); it != full.end(); ++it)
      ASSERT_TRUE(append(it->second.bytes, {.from_client = false, .keep_offsets = true}).ok());
    ASSERT_TRUE(flush().ok());
    ASSERT_LT(n, 50u);
  }
}

TEST_F(LogEpochsTest, RestartAtEmptiesTheLogToStartBeyondItsEnd) {
  lead(1, 6);
  ASSERT_TRUE(flush().ok());
  ASSERT_GT(log_->segments().size(), 2u);
  Offset at = log_->log_end_offset() + 1000;
  EXPECT_EQ(log_->restart_at(log_->log_end_offset()).code(), Errc::kOffsetOutOfRange);
  EXPECT_EQ(log_->log_start_offset(), Offset(0));

  ASSERT_TRUE(log_->restart_at(at).ok());
  EXPECT_EQ(log_->log_start_offset(), at);
  EXPECT_EQ(log_->log_end_offset(), at);
  EXPECT_EQ(log_->durable_offset(), at);
  EXPECT_EQ(log_->segments().size(), 1u);
  EXPECT_TRUE(epochs().empty());
  EXPECT_EQ(read(at - 1, 1 << 20).error().code(), Errc::kOffsetOutOfRange);
  EXPECT_EQ(read(at, 1 << 20)->bytes, 0u);
  // Empty, it may start anywhere: at the base of the leader's batch that
  // holds the leader's log start.
  at = at - 2;
  ASSERT_TRUE(log_->restart_at(at).ok());
  EXPECT_EQ(log_->log_start_offset(), at);
  EXPECT_EQ(log_->log_end_offset(), at);
  EXPECT_EQ(log_->segments().bases(), std::vector<Offset>{at});  // the other empty one is gone

  // The leader's batches follow from there, and the log survives a power
  // cut and a clean restart as the new one.
  model_.clear();
  Offset next = at;
  for (int i = 0; i < 4; ++i) {
    auto b = batch();
    set_base_offset(b.data(), next);
    set_leader_epoch(b.data(), LeaderEpoch(3));
    next = read_batch_header(b.data()).next_offset();
    ASSERT_TRUE(append(b, {.from_client = false, .keep_offsets = true}).ok());
  }
  ASSERT_TRUE(flush().ok());
  auto check = [&] {
    expect_reads_match_model(1 << 20);
    expect_index_agrees();
    EXPECT_EQ(epochs(), (std::map<int32_t, Offset>{{3, at}}));
    EXPECT_EQ(read(at - 1, 1 << 20).error().code(), Errc::kOffsetOutOfRange);
  };
  check();
  crash(false);
  ASSERT_TRUE(fs_.drop_unsynced().ok());
  ASSERT_TRUE(open_log().ok());
  check();
  close_cleanly();
  ASSERT_TRUE(open_log(true).ok());
  check();
  EXPECT_EQ(log_->segments().bases().front(), at);
}

TEST_F(LogEpochsTest, AnEmptyLogRestartsAtTheBaseOfASegmentBelowItsStart) {
  lead(1, 2);  // one segment from 0
  ASSERT_TRUE(flush().ok());
  ASSERT_EQ(log_->segments().size(), 1u);
  // Everything deleted: empty, starting at its end, its one segment at 0.
  ASSERT_TRUE(log_->advance_start_offset(log_->log_end_offset()).ok());
  ASSERT_TRUE(log_->restart_at(Offset(0)).ok());
  EXPECT_EQ(log_->log_start_offset(), Offset(0));
  EXPECT_EQ(log_->log_end_offset(), Offset(0));
  EXPECT_EQ(log_->segments().bases(), std::vector<Offset>{Offset(0)});
  model_.clear();
  lead(2, 2);
  ASSERT_TRUE(flush().ok());
  crash(false);
  ASSERT_TRUE(fs_.drop_unsynced().ok());
  ASSERT_TRUE(open_log().ok());
  expect_reads_match_model(1 << 20);
  expect_index_agrees();
  EXPECT_EQ(epochs(), (std::map<int32_t, Offset>{{2, Offset(0)}}));
}

TEST_F(LogEpochsTest, ARestartStoppedAtAnyStepLeavesASuffixOfTheOldLogOrTheNewOne) {
  lead(1, 12);
  ASSERT_TRUE(flush().ok());
  const auto full = model_;
  const Offset old_end = log_->log_end_offset();
  ASSERT_GT(log_->segments().size(), 3u);
  Offset at = old_end + 50;
  // Fail each file-system call of the restart in turn, crash, and reopen:
  // the log is the old one from one of its segments on, or the new one.
  bool saw_suffix = false;
  for (uint64_t n = 1;; ++n) {
    fs_.fail_nth(n);
    auto st = log_->restart_at(at);
    fs_.clear_faults();
    bool done = st.ok();
    if (!done) {
      // Half done: it takes no appends until reopened.
      EXPECT_FALSE(append(batch()).ok()) << "step " << n;
    }
    crash(false);
    ASSERT_TRUE(fs_.drop_unsynced().ok());
    ASSERT_TRUE(open_log().ok());
    if (log_->log_end_offset() == at) {
      EXPECT_EQ(log_->log_start_offset(), at) << "step " << n;
      EXPECT_EQ(log_->segments().size(), 1u);
      EXPECT_TRUE(epochs().empty());
      expect_index_agrees();
    } else {
      ASSERT_EQ(log_->log_end_offset(), old_end) << "step " << n;
      Offset start = log_->log_start_offset();
      saw_suffix = saw_suffix || start > Offset(0);
      model_ = full;
      model_drop_below(start);
      ASSERT_EQ(model_.begin()->first, start) << "step " << n << ": not a batch boundary";
      expect_reads_match_model(1 << 20);
      expect_index_agrees();
      EXPECT_EQ(epochs(), (std::map<int32_t, Offset>{{1, start}})) << "step " << n;
    }
    if (done) {
      EXPECT_EQ(log_->log_end_offset(), at);
      break;
    }
    // Start again from the whole old log for the next step.
    crash(false);
    std::filesystem::remove_all(log_dir());
    std::filesystem::remove_all(index_dir());
    ASSERT_TRUE(open_log().ok());
    for (const auto& [base, b] : full)
      ASSERT_TRUE(append(b.bytes, {.from_client = false, .keep_offsets = true}).ok());
    ASSERT_TRUE(flush().ok());
    ASSERT_LT(n, 60u);
  }
  EXPECT_TRUE(saw_suffix);  // some step stopped between the old files
}

}  // namespace
}  // namespace strata::engine
