// The Log's transactions: markers end them, the last stable offset holds
// readers back from open ones, aborted transactions are listed for
// read_committed fetches — across crashes, truncation, followers and
// retention.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/batch_builder.h"
#include "engine/control_record.h"
#include "engine/testing/log_fixture.h"

namespace strata::engine {
namespace {

class LogTxnTest : public testing::LogFixture {
 protected:
  // Producer `pid`'s transactional batch of `n` records from `seq`.
  std::vector<std::byte> txn(int64_t pid, int16_t epoch, int32_t seq, int n = 2) {
    BatchBuilder b(
        {.producer_id = pid, .producer_epoch = epoch, .base_sequence = seq, .transactional = true});
    for (int i = 0; i < n; ++i)
      b.add({.key = "k", .value = fmt::format("p{}-s{}", pid, seq + i), .timestamp = 1});
    return b.build().value();
  }
  Result<AppendResult> end_txn(int64_t pid, int16_t epoch, bool commit,
                               int32_t coordinator_epoch = 0) {
    // As the broker writes one: its own append, control batches allowed.
    return append(build_marker_batch({pid, epoch, coordinator_epoch, commit}, 1),
                  {.allow_control = true, .from_client = false});
  }
  std::vector<AbortedTxn> aborted(Offset from = Offset(0), Offset upper = Offset::max()) {
    return log_->producers().aborted_transactions(from, upper);
  }
  Offset lso() { return log_->producers().last_stable_offset(log_->log_end_offset()); }
};

TEST_F(LogTxnTest, MarkersEndTransactionsAndAbortsAreListed) {
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(txn(7, 0, 0)).ok());  // 0-1
  ASSERT_TRUE(append(txn(8, 0, 0)).ok());  // 2-3
  EXPECT_EQ(lso(), Offset(0));
  auto c = end_txn(7, 0, /*commit=*/true);  // 4
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->base_offset, Offset(4));
  EXPECT_EQ(lso(), Offset(2));                        // 8 still open
  ASSERT_TRUE(end_txn(8, 0, /*commit=*/false).ok());  // 5
  EXPECT_EQ(lso(), Offset(6));
  EXPECT_EQ(aborted(), (std::vector<AbortedTxn>{{8, Offset(2), Offset(5)}}));
  EXPECT_TRUE(aborted(Offset(6)).empty());             // ended before the read
  EXPECT_TRUE(aborted(Offset(0), Offset(2)).empty());  // began at or after the read's end
  EXPECT_EQ(aborted(Offset(5), Offset(3)).size(), 1u);
  // The marker is a control batch in the log, read like any batch.
  auto r = read(Offset(5), 1 << 20);
  ASSERT_TRUE(r.ok());
  auto batches = split(*r);
  ASSERT_EQ(batches.size(), 1u);
  auto marker = read_marker(batches[0]);
  ASSERT_TRUE(marker.ok() && marker->has_value());
  EXPECT_FALSE((*marker)->commit);
  // Below the high watermark only: a transaction whose marker is not yet
  // under it still holds readers back.
  EXPECT_EQ(log_->producers().last_stable_offset(Offset(4)), Offset(0));
  EXPECT_EQ(log_->producers().last_stable_offset(Offset(5)), Offset(2));
  EXPECT_EQ(log_->producers().last_stable_offset(Offset(6)), Offset(6));
}

TEST_F(LogTxnTest, AMarkerFromAnOlderEpochOrCoordinatorIsRefusedAndNotWritten) {
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(txn(7, 2, 0)).ok());
  ASSERT_TRUE(end_txn(7, 2, true, /*coordinator_epoch=*/3).ok());
  auto end = log_->log_end_offset();
  EXPECT_EQ(end_txn(7, 1, true, 3).error().code(), Errc::kInvalidProducerEpoch);
  EXPECT_EQ(end_txn(7, 2, true, 2).error().code(), Errc::kTransactionCoordinatorFenced);
  EXPECT_EQ(log_->log_end_offset(), end);
  // Clients cannot write markers.
  auto forged = build_marker_batch({7, 2, 3, true}, 1);
  EXPECT_EQ(append(forged).error().code(), Errc::kControlBatchRejected);
}

TEST_F(LogTxnTest, OpenAndAbortedTransactionsSurviveCrashesAndCleanRestarts) {
  open_index(/*flush_on_close=*/false);
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(txn(7, 0, 0)).ok());  // 0-1
  ASSERT_TRUE(end_txn(7, 0, false).ok());  // 2
  ASSERT_TRUE(append(txn(8, 0, 0)).ok());  // 3-4, left open
  ASSERT_TRUE(flush().ok());
  auto want = aborted();
  ASSERT_EQ(want.size(), 1u);
  crash(/*lose_index_memtable=*/true);
  ASSERT_TRUE(open_log().ok());
  EXPECT_TRUE(log_->recovery().scanned);
  EXPECT_EQ(aborted(), want);
  EXPECT_EQ(lso(), Offset(3));
  close_cleanly();
  open_index(/*flush_on_close=*/false);
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_FALSE(log_->recovery().scanned);
  EXPECT_EQ(aborted(), want);
  EXPECT_EQ(lso(), Offset(3));
  // And once the whole index is gone, rebuilt from the batches.
  crash(false);
  std::filesystem::remove_all(index_dir());
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(aborted(), want);
  EXPECT_EQ(lso(), Offset(3));
  ASSERT_TRUE(end_txn(8, 0, false).ok());
  EXPECT_EQ(aborted().size(), 2u);
}

TEST_F(LogTxnTest, RecoveryFromBeforeAMarkerKeepsATransactionThatBeganBeforeIt) {
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(txn(7, 0, 0)).ok());  // 0-1: the first transaction's data
  ASSERT_TRUE(flush().ok());               // the recovery point: 2
  ASSERT_TRUE(end_txn(7, 0, false).ok());  // 2: its abort
  // Five more transactions: the first one falls out of the producer's
  // kept history.
  for (int i = 1; i <= 5; ++i) {
    ASSERT_TRUE(append(txn(7, 0, 2 * i)).ok());
    ASSERT_TRUE(end_txn(7, 0, false).ok());
  }
  auto want = aborted();
  ASSERT_EQ(want.size(), 6u);
  ASSERT_EQ(want.front(), (AbortedTxn{7, Offset(0), Offset(2)}));
  // A crash after the index was written: recovery scans from the recovery
  // point, after the first transaction began and before it ended.
  crash(/*lose_index_memtable=*/false);
  ASSERT_TRUE(open_log().ok());
  EXPECT_TRUE(log_->recovery().scanned);
  EXPECT_EQ(aborted(), want);
  EXPECT_EQ(lso(), log_->log_end_offset());
  close_cleanly();
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_EQ(aborted(), want);
}

// A truncation's synced index write stores the producers' states (which
// remember the aborts they ended) while the aborts themselves may have been
// written without the WAL: a crash must not keep the one without the other
// (the fault harness's transactional sweep, seed 9106: an aborted record
// served to a read_committed reader after two restarts).
TEST_F(LogTxnTest, AbortsSurviveACrashAfterATruncationOfTheirIndex) {
  open_index(/*flush_on_close=*/false);
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(txn(7, 0, 0)).ok());  // 0-1
  ASSERT_TRUE(end_txn(7, 0, false).ok());  // 2: aborted
  ASSERT_TRUE(append(txn(8, 0, 0)).ok());  // 3-4
  ASSERT_TRUE(end_txn(8, 0, true).ok());   // 5
  ASSERT_TRUE(append(txn(8, 0, 2)).ok());  // 6-7, cut below
  ASSERT_TRUE(flush().ok());
  auto want = aborted();
  ASSERT_EQ(want, (std::vector<AbortedTxn>{{7, Offset(0), Offset(2)}}));
  ASSERT_TRUE(log_->truncate_to(Offset(6)).ok());
  crash(/*lose_index_memtable=*/true);
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(aborted(), want);
  EXPECT_EQ(lso(), log_->log_end_offset());
}

TEST_F(LogTxnTest, TruncatingAMarkerOpensItsTransactionAgainAndForgetsItsAbort) {
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(txn(7, 0, 0)).ok());  // 0-1
  ASSERT_TRUE(end_txn(7, 0, false).ok());  // 2
  ASSERT_TRUE(append(txn(7, 0, 2)).ok());  // 3-4
  ASSERT_TRUE(end_txn(7, 0, true).ok());   // 5
  EXPECT_EQ(lso(), Offset(6));
  ASSERT_TRUE(log_->truncate_to(Offset(2)).ok());
  EXPECT_TRUE(aborted().empty());
  EXPECT_EQ(lso(), Offset(0));  // open again from its first batch
  // Durably: a restart agrees.
  close_cleanly();
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_TRUE(aborted().empty());
  EXPECT_EQ(lso(), Offset(0));
  ASSERT_TRUE(end_txn(7, 0, true).ok());
  EXPECT_EQ(lso(), log_->log_end_offset());
}

// The producer table keeps a producer's last five transactions: a cut
// through more of them reads the rest from the log.
TEST_F(LogTxnTest, TruncatingMoreThanTheKeptTransactionsReopensTheOneItCutInto) {
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(txn(7, 0, 0)).ok());  // 0-1
  ASSERT_TRUE(end_txn(7, 0, true).ok());   // 2
  ASSERT_TRUE(append(txn(7, 0, 2)).ok());  // 3-4: the transaction cut into
  ASSERT_TRUE(append(txn(8, 0, 0)).ok());  // 5-6: where the cut falls
  ASSERT_TRUE(end_txn(8, 0, true).ok());   // 7
  ASSERT_TRUE(end_txn(7, 0, false).ok());  // 8
  for (int i = 0; i < 6; ++i) {            // 9..26
    ASSERT_TRUE(append(txn(7, 0, 4 + 2 * i)).ok());
    ASSERT_TRUE(end_txn(7, 0, i % 2 == 0).ok());
  }
  ASSERT_TRUE(log_->truncate_to(Offset(5)).ok());
  // Producer 7's transaction from 3 is open again; producer 8's is gone.
  EXPECT_EQ(lso(), Offset(3));
  EXPECT_TRUE(aborted().empty());
  close_cleanly();
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_EQ(lso(), Offset(3));
  // Its abort, written again (a follower refetching), lists it from its start.
  ASSERT_TRUE(end_txn(7, 0, false).ok());  // 5
  EXPECT_EQ(aborted(), (std::vector<AbortedTxn>{{7, Offset(3), Offset(5)}}));
  EXPECT_EQ(lso(), log_->log_end_offset());
  // The sequence goes on from the batch before the cut.
  ASSERT_TRUE(append(txn(7, 0, 4)).ok());
}

TEST_F(LogTxnTest, AFollowerRecordsItsLeadersMarkers) {
  ASSERT_TRUE(open_log().ok());
  AppendOptions follower{.allow_control = true, .from_client = false, .keep_offsets = true};
  auto data = txn(7, 0, 0);
  set_leader_epoch(data.data(), LeaderEpoch(1));
  ASSERT_TRUE(append(data, follower).ok());
  auto marker = build_marker_batch({7, 0, 0, false}, 1);
  set_base_offset(marker.data(), Offset(2));
  set_leader_epoch(marker.data(), LeaderEpoch(1));
  ASSERT_TRUE(append(marker, follower).ok());
  EXPECT_EQ(aborted(), (std::vector<AbortedTxn>{{7, Offset(0), Offset(2)}}));
  EXPECT_EQ(lso(), Offset(3));
}

TEST_F(LogTxnTest, RetentionForgetsTheAbortsBelowTheLogStart) {
  config_.segment_bytes = 1;  // every batch its own segment
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(txn(7, 0, 0)).ok());  // 0-1
  ASSERT_TRUE(end_txn(7, 0, false).ok());  // 2
  ASSERT_TRUE(append(txn(7, 0, 2)).ok());  // 3-4
  ASSERT_TRUE(end_txn(7, 0, false).ok());  // 5
  ASSERT_TRUE(append(txn(8, 0, 0)).ok());  // 6-7
  ASSERT_EQ(aborted().size(), 2u);
  ASSERT_TRUE(log_->advance_start_offset(Offset(3)).ok());
  EXPECT_EQ(aborted(), (std::vector<AbortedTxn>{{7, Offset(3), Offset(5)}}));
  close_cleanly();
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_EQ(aborted(), (std::vector<AbortedTxn>{{7, Offset(3), Offset(5)}}));
}

}  // namespace
}  // namespace strata::engine
