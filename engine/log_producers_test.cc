// The Log's idempotent producers: retries are not written twice, sequence
// and epoch checks, and the state across crashes, restarts, truncation,
// rolled-back writes, followers and expiry.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/batch_builder.h"
#include "engine/testing/log_fixture.h"

namespace strata::engine {
namespace {

class LogProducersTest : public testing::LogFixture {
 protected:
  // Producer `pid`'s batch of `n` records from sequence `seq` (at `base`
  // for a follower's append).
  std::vector<std::byte> idem(int64_t pid, int16_t epoch, int32_t seq, int n = 3,
                              int64_t base = 0) {
    BatchBuilder b({.base_offset = Offset(base),
                    .leader_epoch = LeaderEpoch(0),
                    .producer_id = pid,
                    .producer_epoch = epoch,
                    .base_sequence = seq});
    for (int i = 0; i < n; ++i)
      b.add({.key = "k", .value = fmt::format("p{}-e{}-s{}", pid, epoch, seq + i), .timestamp = 1});
    return b.build().value();
  }
  // A retry: appended without adding it to the model of what the log holds.
  Result<AppendResult> retry(std::vector<std::byte> bytes) {
    std::optional<Result<AppendResult>> out;
    auto st = append_async(std::move(bytes), &out, /*record=*/false);
    if (!st) return std::move(st).error();
    loop_.run_until([&] { return out.has_value(); });
    return std::move(*out);
  }
  // How many batches the log holds.
  size_t batches() {
    size_t n = 0;
    Offset at = log_->log_start_offset();
    while (at < log_->log_end_offset()) {
      auto r = read(at, 1);
      EXPECT_TRUE(r.ok());
      auto h = read_batch_header(r->slices.front().data());
      at = h.next_offset();
      ++n;
    }
    return n;
  }
};

TEST_F(LogProducersTest, ARetriedBatchIsNotWrittenAgainAndGetsItsOriginalOffsets) {
  ASSERT_TRUE(open_log().ok());
  auto first = append(idem(7, 0, 0)).value();
  auto second = append(idem(7, 0, 3)).value();
  EXPECT_EQ(second.base_offset, Offset(3));
  auto again = retry(idem(7, 0, 0));
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(again->base_offset, first.base_offset);
  EXPECT_EQ(again->last_offset, first.last_offset);
  EXPECT_EQ(log_->log_end_offset(), Offset(6));
  EXPECT_EQ(batches(), 2u);
  expect_reads_match_model(1 << 20);
}

TEST_F(LogProducersTest, ARetryOfABatchStillInFlightIsAnsweredOnceItIsCommitted) {
  ASSERT_TRUE(open_log().ok());
  std::optional<Result<AppendResult>> original, duplicate;
  ASSERT_TRUE(append_async(idem(7, 0, 0), &original).ok());
  ASSERT_TRUE(append_async(idem(7, 0, 0), &duplicate, /*record=*/false).ok());
  loop_.run_until([&] { return original.has_value() && duplicate.has_value(); });
  ASSERT_TRUE(original->ok() && duplicate->ok());
  EXPECT_EQ((*duplicate)->base_offset, (*original)->base_offset);
  EXPECT_EQ(log_->log_end_offset(), Offset(3));
  EXPECT_EQ(batches(), 1u);
}

TEST_F(LogProducersTest, GapsAndOldEpochsAreRefusedAndNothingIsWritten) {
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(idem(7, 1, 0)).ok());
  auto gap = retry(idem(7, 1, 4));
  ASSERT_FALSE(gap.ok());
  EXPECT_EQ(gap.error().code(), Errc::kOutOfOrderSequence);
  auto old = retry(idem(7, 0, 3));
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.error().code(), Errc::kInvalidProducerEpoch);
  EXPECT_EQ(log_->log_end_offset(), Offset(3));
  // A new epoch starts again at 0.
  EXPECT_TRUE(append(idem(7, 2, 0)).ok());
}

TEST_F(LogProducersTest, TheStateSurvivesACrashThatLostTheIndexAndACleanRestart) {
  open_index(/*flush_on_close=*/false);
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(idem(7, 0, 0)).ok());
  ASSERT_TRUE(append(idem(8, 0, 10)).ok());
  ASSERT_TRUE(flush().ok());
  crash(/*lose_index_memtable=*/true);
  ASSERT_TRUE(open_log().ok());
  EXPECT_TRUE(log_->recovery().scanned);
  auto dup = retry(idem(7, 0, 0));
  ASSERT_TRUE(dup.ok());
  EXPECT_EQ(dup->base_offset, Offset(0));
  EXPECT_EQ(retry(idem(8, 0, 12)).error().code(), Errc::kOutOfOrderSequence);
  ASSERT_TRUE(append(idem(8, 0, 13)).ok());
  close_cleanly();
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_FALSE(log_->recovery().scanned);
  auto dup8 = retry(idem(8, 0, 13));
  ASSERT_TRUE(dup8.ok());
  EXPECT_EQ(dup8->base_offset, Offset(6));
  EXPECT_EQ(batches(), 3u);
}

TEST_F(LogProducersTest, ACleanShutdownMarkedBeforeTheIndexClosedKeepsProducersAndEpochs) {
  // mark_clean_shutdown flushes the index before the marker is written; a
  // process that then dies before RocksDB closes (no flush on close here)
  // must still find every view the trusted clean start skips scanning for.
  open_index(/*flush_on_close=*/false);
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(idem(7, 0, 0)).ok());
  auto epochs = log_->leader_epochs();
  ASSERT_FALSE(epochs.empty());
  close_cleanly();
  open_index(/*flush_on_close=*/false);
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_FALSE(log_->recovery().scanned);
  EXPECT_EQ(log_->leader_epochs(), epochs);
  auto dup = retry(idem(7, 0, 0));
  ASSERT_TRUE(dup.ok()) << dup.error().to_string();
  EXPECT_EQ(dup->base_offset, Offset(0));
  EXPECT_EQ(batches(), 1u);
}

TEST_F(LogProducersTest, ATruncatedBatchIsForgottenAndItsRetryWrittenAgain) {
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(idem(7, 0, 0)).ok());
  ASSERT_TRUE(append(idem(7, 0, 3)).ok());
  ASSERT_TRUE(append(idem(8, 0, 0)).ok());
  ASSERT_TRUE(log_->truncate_to(Offset(3)).ok());
  model_.erase(Offset(3));
  model_.erase(Offset(6));
  // Restarted before anything else is appended: the index forgot the cut
  // batches too (producer 8 is unknown again, 7 follows its first batch).
  close_cleanly();
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_EQ(log_->producers().states().find(8), nullptr);
  auto other = append(idem(8, 0, 40));  // any sequence: unknown
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->base_offset, Offset(3));
  auto again = append(idem(7, 0, 3));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->base_offset, Offset(6));  // written, not taken for a duplicate
  EXPECT_EQ(batches(), 3u);
}

TEST_F(LogProducersTest, AFollowerStartingAgainForgetsEveryProducerDurably) {
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(idem(7, 0, 0)).ok());
  ASSERT_TRUE(log_->restart_at(Offset(100)).ok());
  model_.clear();
  close_cleanly();
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_EQ(log_->producers().states().size(), 0u);
  auto again = append(idem(7, 0, 0));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->base_offset, Offset(100));
}

TEST_F(LogProducersTest, ARolledBackWriteIsForgottenAndItsRetryWritten) {
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(idem(7, 0, 0)).ok());
  fs_.fail_nth(1);  // the next write fails
  std::optional<Result<AppendResult>> failed, duplicate;
  ASSERT_TRUE(append_async(idem(7, 0, 3), &failed, /*record=*/false).ok());
  ASSERT_TRUE(append_async(idem(7, 0, 3), &duplicate, /*record=*/false).ok());
  loop_.run_until([&] { return failed.has_value() && duplicate.has_value(); });
  EXPECT_FALSE(failed->ok());
  EXPECT_FALSE(duplicate->ok());  // its original was not written
  fs_.clear_faults();
  auto again = append(idem(7, 0, 3));
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(again->base_offset, Offset(3));
  EXPECT_EQ(batches(), 2u);
}

TEST_F(LogProducersTest, AFollowersCopyKnowsTheProducersItsLeaderKnew) {
  ASSERT_TRUE(open_log().ok());
  // The leader's batches, appended as they are (offsets kept, not checked).
  ASSERT_TRUE(append(idem(7, 0, 0, 3, 0), {.from_client = false, .keep_offsets = true}).ok());
  ASSERT_TRUE(append(idem(7, 0, 3, 3, 3), {.from_client = false, .keep_offsets = true}).ok());
  // Now leading: the producer's retry of what the old leader wrote.
  auto dup = retry(idem(7, 0, 3));
  ASSERT_TRUE(dup.ok());
  EXPECT_EQ(dup->base_offset, Offset(3));
  EXPECT_EQ(batches(), 2u);
}

TEST_F(LogProducersTest, AProducerSilentPastTheExpirationIsForgotten) {
  ASSERT_TRUE(open_log().ok());
  BatchBuilder b({.producer_id = 7, .producer_epoch = 0, .base_sequence = 0});
  b.add({.value = "x", .timestamp = clock_.now_ms()});
  ASSERT_TRUE(append(b.build().value()).ok());
  EXPECT_EQ(log_->producers().expire(), 0u);
  clock_.advance_ms(86'400'000 + 1);
  EXPECT_EQ(log_->producers().expire(), 1u);
  EXPECT_EQ(log_->producers().states().size(), 0u);
  // Forgotten, also after a restart: it may go on at any sequence.
  close_cleanly();
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_EQ(log_->producers().states().size(), 0u);
  EXPECT_TRUE(append(idem(7, 0, 50)).ok());
}

}  // namespace
}  // namespace strata::engine
