#include "engine/producer_states.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace strata::engine {
namespace {

// A batch header of producer `pid` at `epoch` with records `first`..`last`
// of its sequence (count from first), at `base` once appended.
BatchHeader batch(int64_t pid, int16_t epoch, int32_t first, int32_t count, int64_t base = 0) {
  BatchHeader h;
  h.magic = 2;
  h.producer_id = pid;
  h.producer_epoch = epoch;
  h.base_sequence = first;
  h.last_offset_delta = count - 1;
  h.records_count = count;
  h.base_offset = Offset(base);
  return h;
}

Errc refusal(const ProducerStates& s, const BatchHeader& h) {
  auto v = s.check(h);
  return v ? Errc::kOk : v.error().code();
}

TEST(ProducerStatesTest, AnUnknownProducerMayStartAtAnySequence) {
  ProducerStates s;
  auto v = s.check(batch(7, 0, 42, 3));
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->duplicate);
}

TEST(ProducerStatesTest, TheNextBatchMustFollowTheLastOne) {
  ProducerStates s;
  s.apply(batch(7, 0, 0, 3, 10), 1);
  EXPECT_EQ(refusal(s, batch(7, 0, 3, 2)), Errc::kOk);
  EXPECT_EQ(refusal(s, batch(7, 0, 4, 2)), Errc::kOutOfOrderSequence);  // a gap
  EXPECT_EQ(refusal(s, batch(7, 0, 2, 2)), Errc::kOutOfOrderSequence);  // overlaps
  EXPECT_EQ(refusal(s, batch(8, 0, 9, 1)), Errc::kOk);                  // another producer
}

TEST(ProducerStatesTest, ARetryOfOneOfTheLastFiveIsADuplicateWithItsOriginalOffsets) {
  ProducerStates s;
  for (int i = 0; i < 6; ++i)
    s.apply(batch(7, 0, i * 2, 2, 100 + i * 10), 1);
  // Batches 1..5 are kept; batch 0 (sequence 0-1) fell out of the window.
  auto dup = s.check(batch(7, 0, 2, 2));
  ASSERT_TRUE(dup.ok());
  ASSERT_TRUE(dup->duplicate);
  EXPECT_EQ(dup->duplicate->base_offset, Offset(110));
  EXPECT_EQ(dup->duplicate->last_offset, Offset(111));
  auto latest = s.check(batch(7, 0, 10, 2));
  ASSERT_TRUE(latest.ok() && latest->duplicate);
  EXPECT_EQ(latest->duplicate->base_offset, Offset(150));
  EXPECT_EQ(refusal(s, batch(7, 0, 0, 2)), Errc::kOutOfOrderSequence);
  // The same first sequence with another length is not the same batch.
  EXPECT_EQ(refusal(s, batch(7, 0, 2, 3)), Errc::kOutOfOrderSequence);
}

TEST(ProducerStatesTest, EpochsOlderAreFencedAndANewOneStartsAtZero) {
  ProducerStates s;
  s.apply(batch(7, 3, 0, 5, 0), 1);
  EXPECT_EQ(refusal(s, batch(7, 2, 5, 1)), Errc::kInvalidProducerEpoch);
  EXPECT_EQ(refusal(s, batch(7, 4, 5, 1)), Errc::kOutOfOrderSequence);
  EXPECT_EQ(refusal(s, batch(7, 4, 0, 1)), Errc::kOk);
  s.apply(batch(7, 4, 0, 1, 5), 2);
  EXPECT_EQ(s.find(7)->epoch, 4);
  ASSERT_EQ(s.find(7)->batches.size(), 1u);  // the old epoch's batches went
  EXPECT_EQ(refusal(s, batch(7, 3, 5, 1)), Errc::kInvalidProducerEpoch);
}

TEST(ProducerStatesTest, SequencesWrapFromInt32MaxToZero) {
  ProducerStates s;
  s.apply(batch(7, 0, INT32_MAX - 1, 2, 0), 1);  // INT32_MAX-1 .. INT32_MAX
  EXPECT_EQ(s.find(7)->batches.back().last_sequence, INT32_MAX);
  EXPECT_EQ(refusal(s, batch(7, 0, 0, 1)), Errc::kOk);
  s.apply(batch(7, 0, INT32_MAX, 3, 10), 1);  // INT32_MAX, 0, 1
  EXPECT_EQ(s.find(7)->batches.back().last_sequence, 1);
}

TEST(ProducerStatesTest, ApplyingWhatIsAlreadyHeldChangesNothing) {
  ProducerStates s;
  EXPECT_TRUE(s.apply(batch(7, 0, 0, 2, 10), 1));
  EXPECT_FALSE(s.apply(batch(7, 0, 0, 2, 10), 2));  // recovery rescanning it
  EXPECT_EQ(s.find(7)->batches.size(), 1u);
  EXPECT_EQ(s.find(7)->last_write_ms, 1);
  BatchHeader plain = batch(-1, -1, -1, 4, 20);
  EXPECT_FALSE(s.apply(plain, 3));
  BatchHeader control = batch(7, 0, 2, 1, 30);
  control.attributes = batch_attr::kControl;
  EXPECT_FALSE(s.apply(control, 3));
  EXPECT_EQ(s.size(), 1u);
}

TEST(ProducerStatesTest, ATruncatedTailTakesItsBatchesAndEmptiedProducersAway) {
  ProducerStates s;
  s.apply(batch(7, 0, 0, 2, 10), 1);
  s.apply(batch(8, 0, 0, 2, 12), 1);
  s.apply(batch(7, 0, 2, 2, 14), 1);
  auto changed = s.drop_from(Offset(12)).changed;
  std::sort(changed.begin(), changed.end());
  EXPECT_EQ(changed, (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(s.find(8), nullptr);
  ASSERT_NE(s.find(7), nullptr);
  EXPECT_EQ(s.find(7)->batches.back().last_offset, Offset(11));
  // Producer 7 goes on from its batch that stayed.
  EXPECT_EQ(refusal(s, batch(7, 0, 2, 2)), Errc::kOk);
}

TEST(ProducerStatesTest, ProducersSilentLongerThanTheExpirationAreForgotten) {
  ProducerStates s;
  s.apply(batch(7, 0, 0, 1, 0), 1000);
  s.apply(batch(8, 0, 0, 1, 1), 5000);
  EXPECT_EQ(s.expire(6000, 4500), std::vector<int64_t>{7});
  EXPECT_EQ(s.find(7), nullptr);
  EXPECT_NE(s.find(8), nullptr);
  // Forgotten: it may start again anywhere.
  EXPECT_EQ(refusal(s, batch(7, 0, 99, 1)), Errc::kOk);
}

TEST(ProducerStatesTest, TheEncodingRoundTripsAndRefusesGarbage) {
  ProducerState st;
  st.epoch = 3;
  st.last_write_ms = 1234567;
  st.batches = {{0, 4, Offset(10), Offset(14)}, {5, 5, Offset(20), Offset(20)}};
  st.txn_first_offset = Offset(20);
  st.txns = {{Offset(2), Offset(9)}};
  st.coordinator_epoch = 4;
  auto back = decode_producer_state(encode_producer_state(st));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, st);
  EXPECT_FALSE(decode_producer_state("").ok());
  auto bytes = encode_producer_state(st);
  EXPECT_FALSE(decode_producer_state(bytes.substr(0, bytes.size() - 1)).ok());
  bytes[0] = 9;
  EXPECT_FALSE(decode_producer_state(bytes).ok());
}

TEST(ProducerStatesTest, StatesStoredBeforeTransactionsStillDecode) {
  // Format 1: version, epoch i16, last write i64, count u8, one batch
  // (first i32, last i32, base i64, last i64).
  std::string v1 = {1, 0, 3, 0, 0, 0, 0, 0, 0, 0, 9, 1};
  for (int64_t field : {int64_t{5}, int64_t{6}})
    v1 += std::string({0, 0, 0, char(field)});
  for (int64_t field : {int64_t{40}, int64_t{41}})
    v1 += std::string({0, 0, 0, 0, 0, 0, 0, char(field)});
  auto st = decode_producer_state(v1);
  ASSERT_TRUE(st.ok()) << st.error().to_string();
  EXPECT_EQ(st->epoch, 3);
  EXPECT_EQ(st->last_write_ms, 9);
  ASSERT_EQ(st->batches.size(), 1u);
  EXPECT_EQ(st->batches[0], (ProducerBatch{5, 6, Offset(40), Offset(41)}));
  EXPECT_FALSE(st->txn_first_offset);
  EXPECT_EQ(st->coordinator_epoch, -1);
}

BatchHeader txn_batch(int64_t pid, int16_t epoch, int32_t first, int32_t count, int64_t base) {
  BatchHeader h = batch(pid, epoch, first, count, base);
  h.attributes = batch_attr::kTransactional;
  return h;
}

TxnMarker marker(int64_t pid, int16_t epoch, bool commit, int32_t coordinator_epoch = 0) {
  return TxnMarker{pid, epoch, coordinator_epoch, commit};
}

TEST(ProducerStatesTest, ATransactionIsOpenFromItsFirstBatchUntilItsMarker) {
  ProducerStates s;
  s.apply(txn_batch(7, 0, 0, 3, 10), 1);
  s.apply(txn_batch(7, 0, 3, 2, 20), 1);
  EXPECT_EQ(s.find(7)->txn_first_offset, Offset(10));
  EXPECT_EQ(s.last_stable_offset(Offset(30)), Offset(10));
  s.apply(batch(8, 0, 0, 1, 25), 1);  // idempotent, not transactional: no transaction
  EXPECT_FALSE(s.find(8)->txn_first_offset);

  auto commit = s.apply_marker(marker(7, 0, true), Offset(30), 2);
  EXPECT_TRUE(commit.changed);
  EXPECT_FALSE(commit.aborted);
  EXPECT_FALSE(s.find(7)->txn_first_offset);
  // Ended, but until its marker is below the high watermark it still holds
  // the stable offset back.
  EXPECT_EQ(s.last_stable_offset(Offset(30)), Offset(10));
  EXPECT_EQ(s.last_stable_offset(Offset(31)), Offset(31));

  s.apply(txn_batch(7, 0, 5, 1, 40), 3);
  auto abort = s.apply_marker(marker(7, 0, false), Offset(41), 4);
  ASSERT_TRUE(abort.aborted);
  EXPECT_EQ(*abort.aborted, (AbortedTxn{7, Offset(40), Offset(41)}));
  // Applying it again (recovery rescanning) changes nothing.
  EXPECT_FALSE(s.apply_marker(marker(7, 0, false), Offset(41), 4).changed);
  // A marker without data here (the transaction wrote elsewhere) aborts nothing.
  EXPECT_FALSE(s.apply_marker(marker(7, 0, false), Offset(50), 5).aborted);
}

TEST(ProducerStatesTest, MarkersFromOlderEpochsOrCoordinatorsAreFenced) {
  ProducerStates s;
  s.apply(txn_batch(7, 2, 0, 1, 10), 1);
  EXPECT_TRUE(s.check_marker(marker(7, 2, true, 1)).ok());
  EXPECT_EQ(s.check_marker(marker(7, 1, true, 1)).error().code(), Errc::kInvalidProducerEpoch);
  s.apply_marker(marker(7, 3, false, 5), Offset(11), 2);  // the coordinator fenced epoch 2
  EXPECT_EQ(s.find(7)->epoch, 3);
  EXPECT_EQ(s.check_marker(marker(7, 3, true, 4)).error().code(),
            Errc::kTransactionCoordinatorFenced);
  // The fenced producer's epoch is refused; the new one starts afresh.
  EXPECT_EQ(refusal(s, txn_batch(7, 2, 1, 1, 0)), Errc::kInvalidProducerEpoch);
  EXPECT_EQ(refusal(s, txn_batch(7, 3, 0, 1, 0)), Errc::kOk);
  EXPECT_TRUE(s.check_marker(marker(99, 0, true, 0)).ok());  // unknown producer
}

TEST(ProducerStatesTest, ATruncationThatCutsAMarkerOpensItsTransactionAgain) {
  ProducerStates s;
  s.apply(txn_batch(7, 0, 0, 2, 10), 1);
  s.apply_marker(marker(7, 0, true), Offset(12), 1);
  s.apply(txn_batch(7, 0, 2, 2, 20), 1);
  s.apply_marker(marker(7, 0, false), Offset(22), 1);
  s.apply(txn_batch(7, 0, 4, 2, 30), 1);

  auto dropped = s.drop_from(Offset(21));  // the second marker and the third transaction go
  EXPECT_EQ(dropped.changed, std::vector<int64_t>{7});
  EXPECT_TRUE(dropped.unknown.empty());
  EXPECT_EQ(s.find(7)->txn_first_offset, Offset(20));
  EXPECT_EQ(s.find(7)->txns.size(), 1u);
  EXPECT_EQ(s.last_stable_offset(Offset(21)), Offset(20));

  s.drop_from(Offset(20));  // the whole second transaction
  EXPECT_FALSE(s.find(7)->txn_first_offset);
  EXPECT_EQ(s.last_stable_offset(Offset(20)), Offset(20));
  s.drop_from(Offset(11));  // into the first: open again from 10
  EXPECT_EQ(s.find(7)->txn_first_offset, Offset(10));
  s.drop_from(Offset(10));
  EXPECT_EQ(s.find(7), nullptr);
}

TEST(ProducerStatesTest, AProducerWithATransactionOpenDoesNotExpire) {
  ProducerStates s;
  s.apply(txn_batch(7, 0, 0, 1, 10), 1);
  s.apply(batch(8, 0, 0, 1, 11), 1);
  EXPECT_EQ(s.expire(1'000'000, 10), std::vector<int64_t>{8});
  s.apply_marker(marker(7, 0, true), Offset(12), 2);
  EXPECT_EQ(s.expire(1'000'000, 10), std::vector<int64_t>{7});
}

TEST(ProducerStatesTest, ATruncationThatTakesAWholeFullHistoryLeavesTheProducerUnknown) {
  ProducerStates s;
  for (int i = 0; i < 6; ++i) {
    s.apply(txn_batch(7, 0, 2 * i, 2, 10 * i), 1);
    s.apply_marker(marker(7, 0, true), Offset(10 * i + 2), 1);
  }
  s.apply(batch(8, 0, 0, 2, 60), 1);
  // Transactions 1-5 are the kept ones: a cut at 10 removes them all, and
  // the table cannot tell where the producer stood before.
  auto dropped = s.drop_from(Offset(10));
  EXPECT_EQ(dropped.unknown, std::vector<int64_t>{7});
  // A cut into the kept history is exact.
  ProducerStates t;
  for (int i = 0; i < 6; ++i) {
    t.apply(txn_batch(7, 0, 2 * i, 2, 10 * i), 1);
    t.apply_marker(marker(7, 0, true), Offset(10 * i + 2), 1);
  }
  EXPECT_TRUE(t.drop_from(Offset(21)).unknown.empty());
}

}  // namespace
}  // namespace strata::engine
