#include "coordinator/txn/txn_state.h"

#include <gtest/gtest.h>

namespace strata::coordinator {
namespace {

constexpr int32_t kMax = 900000;

TxnMetadata with(TxnState state, int16_t epoch = 3) {
  TxnMetadata m;
  m.producer_id = 100;
  m.producer_epoch = epoch;
  m.timeout_ms = 1000;
  m.state = state;
  if (state != TxnState::kEmpty && state != TxnState::kCompleteCommit &&
      state != TxnState::kCompleteAbort) {
    m.partitions = {{"t", 0}};
    m.start_ms = 10;
  }
  return m;
}

TEST(TxnStateTest, AFirstInitNeedsAProducerIdAndAnInvalidTimeoutIsRefused) {
  auto d = init_producer(std::nullopt, 5000, kMax, 1);
  EXPECT_EQ(d.error, Errc::kOk);
  EXPECT_TRUE(d.new_producer_id);
  ASSERT_TRUE(d.next);
  EXPECT_EQ(d.next->producer_epoch, 0);
  EXPECT_EQ(d.next->state, TxnState::kEmpty);
  EXPECT_EQ(d.next->timeout_ms, 5000);
  EXPECT_EQ(init_producer(std::nullopt, 0, kMax, 1).error, Errc::kInvalidTransactionTimeout);
  EXPECT_EQ(init_producer(std::nullopt, kMax + 1, kMax, 1).error, Errc::kInvalidTransactionTimeout);
}

TEST(TxnStateTest, InitBumpsTheEpochAndAbortsATransactionInProgress) {
  for (auto s : {TxnState::kEmpty, TxnState::kCompleteCommit, TxnState::kCompleteAbort}) {
    auto d = init_producer(with(s), 1000, kMax, 5);
    EXPECT_EQ(d.error, Errc::kOk);
    ASSERT_TRUE(d.next);
    EXPECT_EQ(d.next->producer_epoch, 4);
    EXPECT_EQ(d.next->producer_id, 100);
    EXPECT_EQ(d.next->state, TxnState::kEmpty);
    EXPECT_FALSE(d.new_producer_id);
  }
  // A zombie's transaction: aborted under a bumped epoch, which fences it.
  auto d = init_producer(with(TxnState::kOngoing), 1000, kMax, 5);
  EXPECT_EQ(d.error, Errc::kConcurrentTransactions);
  ASSERT_TRUE(d.next);
  EXPECT_EQ(d.next->state, TxnState::kPrepareAbort);
  EXPECT_EQ(d.next->producer_epoch, 4);
  EXPECT_EQ(d.next->partitions, with(TxnState::kOngoing).partitions);
  // While markers are written: retry later.
  for (auto s : {TxnState::kPrepareCommit, TxnState::kPrepareAbort}) {
    auto p = init_producer(with(s), 1000, kMax, 5);
    EXPECT_EQ(p.error, Errc::kConcurrentTransactions);
    EXPECT_FALSE(p.next);
  }
  // An exhausted epoch takes a new producer id.
  auto last = init_producer(with(TxnState::kCompleteCommit, 32766), 1000, kMax, 5);
  EXPECT_TRUE(last.new_producer_id);
  EXPECT_EQ(last.next->producer_epoch, 0);
}

TEST(TxnStateTest, AResumingProducerMustNameTheIdsProducer) {
  auto m = with(TxnState::kCompleteCommit);
  EXPECT_EQ(init_producer(m, 1000, kMax, 1, ProducerIdEpoch{100, 3}).error, Errc::kOk);
  EXPECT_EQ(init_producer(m, 1000, kMax, 1, ProducerIdEpoch{-1, -1}).error, Errc::kOk);
  // A zombie of epoch 2, after another instance took 3: fenced, nothing bumped.
  auto zombie = init_producer(m, 1000, kMax, 1, ProducerIdEpoch{100, 2});
  EXPECT_EQ(zombie.error, Errc::kProducerFenced);
  EXPECT_FALSE(zombie.next);
  EXPECT_EQ(init_producer(m, 1000, kMax, 1, ProducerIdEpoch{7, 3}).error, Errc::kProducerFenced);
}

TEST(TxnStateTest, AddingPartitionsBeginsATransactionOrGrowsIt) {
  auto d = add_partitions(with(TxnState::kCompleteAbort), 100, 3, {{"a", 1}, {"b", 0}}, 50);
  EXPECT_EQ(d.error, Errc::kOk);
  ASSERT_TRUE(d.next);
  EXPECT_EQ(d.next->state, TxnState::kOngoing);
  EXPECT_EQ(d.next->start_ms, 50);
  EXPECT_EQ(d.next->partitions, (std::set<TxnPartition>{{"a", 1}, {"b", 0}}));
  auto more = add_partitions(*d.next, 100, 3, {{"a", 1}, {"c", 2}}, 60);
  ASSERT_TRUE(more.next);
  EXPECT_EQ(more.next->partitions.size(), 3u);
  EXPECT_EQ(more.next->start_ms, 50);
  // Nothing new: nothing to write.
  auto same = add_partitions(*more.next, 100, 3, {{"c", 2}}, 70);
  EXPECT_EQ(same.error, Errc::kOk);
  EXPECT_FALSE(same.next);

  auto m = with(TxnState::kOngoing);
  EXPECT_EQ(add_partitions(m, 101, 3, {{"a", 0}}, 1).error, Errc::kInvalidProducerIdMapping);
  EXPECT_EQ(add_partitions(m, 100, 2, {{"a", 0}}, 1).error, Errc::kProducerFenced);
  EXPECT_EQ(add_partitions(with(TxnState::kPrepareCommit), 100, 3, {{"a", 0}}, 1).error,
            Errc::kConcurrentTransactions);
}

TEST(TxnStateTest, EndTxnPreparesOnceAndARetrySucceedsAgain) {
  auto m = with(TxnState::kOngoing);
  auto d = end_txn(m, 100, 3, /*commit=*/true, 20);
  EXPECT_EQ(d.error, Errc::kOk);
  ASSERT_TRUE(d.next);
  EXPECT_EQ(d.next->state, TxnState::kPrepareCommit);
  EXPECT_EQ(d.next->partitions, m.partitions);
  // Retried while the markers are written, and after.
  EXPECT_EQ(end_txn(*d.next, 100, 3, true, 21).error, Errc::kConcurrentTransactions);
  EXPECT_EQ(end_txn(*d.next, 100, 3, false, 21).error, Errc::kInvalidTxnState);
  auto done = complete(*d.next, 22);
  EXPECT_EQ(done.state, TxnState::kCompleteCommit);
  EXPECT_TRUE(done.partitions.empty());
  auto again = end_txn(done, 100, 3, true, 23);
  EXPECT_EQ(again.error, Errc::kOk);
  EXPECT_FALSE(again.next);
  EXPECT_EQ(end_txn(done, 100, 3, false, 23).error, Errc::kInvalidTxnState);
  // Nothing begun; the wrong producer; a fenced epoch.
  EXPECT_EQ(end_txn(with(TxnState::kEmpty), 100, 3, true, 1).error, Errc::kInvalidTxnState);
  EXPECT_EQ(end_txn(m, 5, 3, true, 1).error, Errc::kInvalidProducerIdMapping);
  EXPECT_EQ(end_txn(m, 100, 2, false, 1).error, Errc::kProducerFenced);
  EXPECT_EQ(complete(*end_txn(m, 100, 3, false, 1).next, 2).state, TxnState::kCompleteAbort);
}

TEST(TxnStateTest, ATransactionPastItsTimeoutIsAbortedAndItsProducerFenced) {
  auto m = with(TxnState::kOngoing);  // began at 10, 1000 ms timeout
  EXPECT_FALSE(abort_if_expired(m, 1010));
  auto a = abort_if_expired(m, 1011);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->state, TxnState::kPrepareAbort);
  EXPECT_EQ(a->producer_epoch, 4);
  EXPECT_EQ(end_txn(complete(*a, 1012), 100, 3, true, 1013).error, Errc::kProducerFenced);
  EXPECT_FALSE(abort_if_expired(with(TxnState::kCompleteCommit), 1'000'000));
}

}  // namespace
}  // namespace strata::coordinator
