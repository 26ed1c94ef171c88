#include "coordinator/txn/txn_coordinator.h"

#include <set>

#include <gtest/gtest.h>

#include "base/testing/manual_timers.h"
#include "coordinator/txn/txn_records.h"

namespace strata::coordinator {
namespace {

// A TxnStore in memory. Writes complete at once, unless held (then
// release() completes them in order) or failed.
class FakeStore final : public TxnStore {
 public:
  void write(const std::string& id, const TxnMetadata& meta,
             std::function<void(Status)> done) override {
    if (fail_next || (fail_state && *fail_state == meta.state)) {
      fail_next = false;
      fail_state.reset();
      return done(Error(Errc::kIoError, "injected"));
    }
    auto apply = [this, id, meta, done = std::move(done)] {
      state[id] = meta;
      history.emplace_back(id, meta.state);
      done(ok_status());
    };
    if (hold) return held.push_back(std::move(apply));
    apply();
  }
  void release() {
    hold = false;
    auto pending = std::move(held);
    for (auto& fn : pending)
      fn();
  }

  std::map<std::string, TxnMetadata> state;
  std::vector<std::pair<std::string, TxnState>> history;
  bool fail_next = false;
  std::optional<TxnState> fail_state;  // fail the next write of this state
  bool hold = false;
  std::vector<std::function<void()>> held;
};

class TxnCoordinatorTest : public ::testing::Test {
 protected:
  static constexpr const char* kId = "txn-1";
  static constexpr int32_t kCoordinatorEpoch = 7;

  void SetUp() override { reset(); }

  void reset(std::vector<std::pair<std::string, TxnMetadata>> loaded = {}) {
    TxnConfig config;
    config.max_timeout_ms = 60000;
    config.abort_check_interval_ms = 1000;
    config.marker_retry_backoff_ms = 100;
    tc_ = std::make_unique<TxnCoordinator>(
        clock_, timers_, config,
        [this](std::function<void(Result<int64_t>)> done) { done(next_pid_++); },
        [this](MarkerWrite w,
               std::function<void(std::vector<std::pair<TxnPartition, MarkerOutcome>>)> done) {
          std::vector<std::pair<TxnPartition, MarkerOutcome>> out;
          for (const auto& p : w.partitions) {
            bool fail = refuse_.count(p) != 0 && refuse_[p]-- > 0;
            bool fenced = fence_.count(p) != 0;
            if (!fail && !fenced) markers_.push_back({w, p});
            out.emplace_back(p, fenced ? MarkerOutcome::kFenced
                                : fail ? MarkerOutcome::kRetry
                                       : MarkerOutcome::kWritten);
          }
          done(std::move(out));
        });
    tc_->host(txn_partition_for(kId), &store_, kCoordinatorEpoch, std::move(loaded));
  }

  TxnCoordinator::InitResult init(int32_t timeout_ms = 10000) {
    std::optional<TxnCoordinator::InitResult> r;
    tc_->init_producer(kId, timeout_ms, std::nullopt, [&](auto x) { r = x; });
    EXPECT_TRUE(r.has_value());
    return r.value_or(TxnCoordinator::InitResult{Errc::kInvalidTxnState});
  }
  Errc add(const TxnCoordinator::InitResult& p, std::vector<TxnPartition> parts) {
    std::optional<Errc> r;
    tc_->add_partitions(kId, p.producer_id, p.producer_epoch, std::move(parts),
                        [&](Errc e) { r = e; });
    EXPECT_TRUE(r.has_value());
    return r.value_or(Errc::kInvalidTxnState);
  }
  std::optional<Errc> end(const TxnCoordinator::InitResult& p, bool commit) {
    std::optional<Errc> r;
    tc_->end_txn(kId, p.producer_id, p.producer_epoch, commit, [&](Errc e) { r = e; });
    return r;
  }
  TxnState state() { return tc_->describe(kId).value().state; }

  struct Marker {
    MarkerWrite write;
    TxnPartition partition;
  };

  ManualClock clock_{1'000'000};
  strata::testing::ManualTimers timers_{clock_};
  FakeStore store_;
  std::unique_ptr<TxnCoordinator> tc_;
  int64_t next_pid_ = 5000;
  std::map<TxnPartition, int> refuse_;  // partition -> attempts to refuse
  std::set<TxnPartition> fence_;        // partitions whose markers are fenced
  std::vector<Marker> markers_;
};

TEST_F(TxnCoordinatorTest, InitProducerIdAllocatesAnIdAndBumpsItsEpochOnEachInit) {
  auto first = init();
  EXPECT_EQ(first.error, Errc::kOk);
  EXPECT_EQ(first.producer_id, 5000);
  EXPECT_EQ(first.producer_epoch, 0);
  auto second = init();
  EXPECT_EQ(second.producer_id, 5000);
  EXPECT_EQ(second.producer_epoch, 1);
  EXPECT_EQ(store_.state.at(kId).producer_epoch, 1);
  // The old epoch is fenced.
  EXPECT_EQ(add(first, {{"t", 0}}), Errc::kProducerFenced);
  // A timeout over transaction.max.timeout.ms is refused, nothing written.
  auto before = store_.history.size();
  EXPECT_EQ(init(60001).error, Errc::kInvalidTransactionTimeout);
  EXPECT_EQ(store_.history.size(), before);
}

TEST_F(TxnCoordinatorTest, AResumingInitProducerIdRetriedAfterALostAnswerGetsTheSameEpoch) {
  auto first = init();
  auto resume = [&](int16_t epoch) {
    std::optional<TxnCoordinator::InitResult> r;
    tc_->init_producer(kId, 10000, ProducerIdEpoch{first.producer_id, epoch},
                       [&](auto x) { r = x; });
    return r.value();
  };
  auto bumped = resume(first.producer_epoch);  // the producer resumes: bumped
  ASSERT_EQ(bumped.error, Errc::kOk);
  EXPECT_EQ(bumped.producer_epoch, first.producer_epoch + 1);
  // Its answer was lost; the retry names the old epoch again: same answer.
  auto retried = resume(first.producer_epoch);
  EXPECT_EQ(retried.error, Errc::kOk);
  EXPECT_EQ(retried.producer_epoch, bumped.producer_epoch);
  // An epoch older than that is a zombie's.
  EXPECT_EQ(resume(static_cast<int16_t>(first.producer_epoch - 1)).error, Errc::kProducerFenced);
}

TEST_F(TxnCoordinatorTest, CommitWritesThePrepareStateThenEveryMarkerThenCompletes) {
  auto p = init();
  ASSERT_EQ(add(p, {{"a", 0}, {"b", 3}}), Errc::kOk);
  EXPECT_EQ(state(), TxnState::kOngoing);
  EXPECT_EQ(tc_->verify(kId, p.producer_id, p.producer_epoch, {"a", 0}), Errc::kOk);
  EXPECT_EQ(tc_->verify(kId, p.producer_id, p.producer_epoch, {"a", 1}), Errc::kInvalidTxnState);
  EXPECT_EQ(end(p, true), Errc::kOk);
  ASSERT_EQ(markers_.size(), 2u);
  for (const auto& m : markers_) {
    EXPECT_TRUE(m.write.commit);
    EXPECT_EQ(m.write.producer_id, p.producer_id);
    EXPECT_EQ(m.write.producer_epoch, p.producer_epoch);
    EXPECT_EQ(m.write.coordinator_epoch, kCoordinatorEpoch);
  }
  std::vector<std::pair<std::string, TxnState>> expected = {{kId, TxnState::kEmpty},
                                                            {kId, TxnState::kOngoing},
                                                            {kId, TxnState::kPrepareCommit},
                                                            {kId, TxnState::kCompleteCommit}};
  EXPECT_EQ(store_.history, expected);
  EXPECT_TRUE(store_.state.at(kId).partitions.empty());
  // Once ended, a partition is no longer in the transaction.
  EXPECT_EQ(tc_->verify(kId, p.producer_id, p.producer_epoch, {"a", 0}), Errc::kInvalidTxnState);
  // A retried EndTxn of the same outcome succeeds again; the other outcome does not.
  EXPECT_EQ(end(p, true), Errc::kOk);
  EXPECT_EQ(end(p, false), Errc::kInvalidTxnState);
}

TEST_F(TxnCoordinatorTest, AMarkerRefusedIsRetriedAndTheTransactionCompletesOnlyAfterIt) {
  auto p = init();
  ASSERT_EQ(add(p, {{"a", 0}, {"b", 0}}), Errc::kOk);
  refuse_[{"b", 0}] = 2;
  EXPECT_EQ(end(p, false), Errc::kOk);
  EXPECT_EQ(markers_.size(), 1u);
  EXPECT_EQ(state(), TxnState::kPrepareAbort);
  // Meanwhile the producer's next transaction waits, and is answered as
  // soon as the markers are written.
  std::optional<Errc> next;
  tc_->add_partitions(kId, p.producer_id, p.producer_epoch, {{"a", 0}}, [&](Errc e) { next = e; });
  timers_.advance(100);
  EXPECT_EQ(state(), TxnState::kPrepareAbort);
  EXPECT_FALSE(next.has_value());
  timers_.advance(100);
  ASSERT_EQ(markers_.size(), 2u);
  EXPECT_EQ(markers_[1].partition, (TxnPartition{"b", 0}));
  EXPECT_FALSE(markers_[1].write.commit);
  EXPECT_EQ(next, Errc::kOk);
  EXPECT_EQ(state(), TxnState::kOngoing);
  EXPECT_EQ(store_.state.at(kId).partitions, (std::set<TxnPartition>{{"a", 0}}));
}

TEST_F(TxnCoordinatorTest, AnAbortRightAfterACommitEndsTheNextTransactionNotAnError) {
  auto p = init();
  ASSERT_EQ(add(p, {{"a", 0}}), Errc::kOk);
  refuse_[{"a", 0}] = 1;  // the commit's marker takes a retry
  EXPECT_EQ(end(p, true), Errc::kOk);
  EXPECT_EQ(state(), TxnState::kPrepareCommit);
  // The next transaction's partition waits for the commit's markers (not
  // CONCURRENT_TRANSACTIONS: an abort after it would then be refused,
  // librdkafka issue #4849) ...
  std::optional<Errc> next;
  tc_->add_partitions(kId, p.producer_id, p.producer_epoch, {{"b", 0}}, [&](Errc e) { next = e; });
  EXPECT_FALSE(next.has_value());
  timers_.advance(100);
  EXPECT_EQ(next, Errc::kOk);
  // ... and the application's abort ends that transaction.
  EXPECT_EQ(end(p, false), Errc::kOk);
  EXPECT_EQ(state(), TxnState::kCompleteAbort);
  ASSERT_EQ(markers_.size(), 2u);
  EXPECT_EQ(markers_[1].partition, (TxnPartition{"b", 0}));
  // An abort of a transaction already committed is refused.
  ASSERT_EQ(add(p, {{"a", 0}}), Errc::kOk);
  EXPECT_EQ(end(p, true), Errc::kOk);
  EXPECT_EQ(end(p, false), Errc::kInvalidTxnState);
}

TEST_F(TxnCoordinatorTest, AFencedMarkerLeavesTheTransactionToTheNewerCoordinator) {
  auto p = init();
  ASSERT_EQ(add(p, {{"a", 0}, {"b", 0}}), Errc::kOk);
  fence_.insert({"b", 0});
  EXPECT_EQ(end(p, true), Errc::kOk);
  timers_.advance(1000);
  // No Complete is written: the transaction stays prepared, markers stop.
  EXPECT_EQ(state(), TxnState::kPrepareCommit);
  EXPECT_EQ(store_.history.back().second, TxnState::kPrepareCommit);
  EXPECT_EQ(markers_.size(), 1u);
}

TEST_F(TxnCoordinatorTest, AFailedCompletionIsRetriedWithoutWritingTheMarkersAgain) {
  auto p = init();
  ASSERT_EQ(add(p, {{"a", 0}, {"b", 0}}), Errc::kOk);
  store_.fail_state = TxnState::kCompleteCommit;
  EXPECT_EQ(end(p, true), Errc::kOk);
  EXPECT_EQ(state(), TxnState::kPrepareCommit);
  timers_.advance(100);
  EXPECT_EQ(state(), TxnState::kCompleteCommit);
  EXPECT_EQ(markers_.size(), 2u);
}

TEST_F(TxnCoordinatorTest, RequestsWhileAWriteIsInFlightAreToldToRetry) {
  auto p = init();
  store_.hold = true;
  std::optional<Errc> added;
  tc_->add_partitions(kId, p.producer_id, p.producer_epoch, {{"a", 0}}, [&](Errc e) { added = e; });
  EXPECT_FALSE(added.has_value());
  EXPECT_EQ(end(p, true), Errc::kConcurrentTransactions);
  std::optional<TxnCoordinator::InitResult> again;
  tc_->init_producer(kId, 10000, std::nullopt, [&](auto r) { again = r; });
  EXPECT_EQ(again->error, Errc::kConcurrentTransactions);
  // A producer of another epoch is told it is fenced, write or no write.
  auto stale = p;
  stale.producer_epoch = static_cast<int16_t>(p.producer_epoch - 1);
  EXPECT_EQ(end(stale, true), Errc::kProducerFenced);
  std::optional<Errc> stale_add;
  tc_->add_partitions(kId, stale.producer_id, stale.producer_epoch, {{"a", 0}},
                      [&](Errc e) { stale_add = e; });
  EXPECT_EQ(stale_add, Errc::kProducerFenced);
  store_.release();
  EXPECT_EQ(added, Errc::kOk);
  EXPECT_EQ(state(), TxnState::kOngoing);
}

TEST_F(TxnCoordinatorTest, AFailedWriteChangesNothingAndIsRetriable) {
  auto p = init();
  store_.fail_next = true;
  EXPECT_EQ(add(p, {{"a", 0}}), Errc::kCoordinatorNotAvailable);
  EXPECT_EQ(state(), TxnState::kEmpty);
  EXPECT_EQ(add(p, {{"a", 0}}), Errc::kOk);
}

TEST_F(TxnCoordinatorTest, ATransactionOlderThanItsTimeoutIsAbortedAndItsProducerFenced) {
  auto p = init(5000);
  ASSERT_EQ(add(p, {{"a", 0}}), Errc::kOk);
  timers_.advance(4000);
  EXPECT_EQ(state(), TxnState::kOngoing);
  timers_.advance(2000);
  EXPECT_EQ(state(), TxnState::kCompleteAbort);
  ASSERT_EQ(markers_.size(), 1u);
  EXPECT_FALSE(markers_[0].write.commit);
  // The abort markers carry the bumped epoch, which fences the producer's writes.
  EXPECT_EQ(markers_[0].write.producer_epoch, p.producer_epoch + 1);
  EXPECT_EQ(end(p, true), Errc::kProducerFenced);
}

TEST_F(TxnCoordinatorTest, InitProducerIdDuringATransactionAbortsItFirst) {
  auto p = init();
  ASSERT_EQ(add(p, {{"a", 0}}), Errc::kOk);
  auto r = init();
  EXPECT_EQ(r.error, Errc::kConcurrentTransactions);
  EXPECT_EQ(state(), TxnState::kCompleteAbort);
  ASSERT_EQ(markers_.size(), 1u);
  EXPECT_FALSE(markers_[0].write.commit);
  auto again = init();
  EXPECT_EQ(again.error, Errc::kOk);
  EXPECT_EQ(again.producer_id, p.producer_id);
  EXPECT_EQ(again.producer_epoch, p.producer_epoch + 2);
}

TEST_F(TxnCoordinatorTest, ANewHostResumesTheMarkersOfAPreparedTransaction) {
  TxnMetadata m;
  m.producer_id = 42;
  m.producer_epoch = 3;
  m.state = TxnState::kPrepareCommit;
  m.partitions = {{"a", 1}};
  reset({{kId, m}});
  ASSERT_EQ(markers_.size(), 1u);
  EXPECT_TRUE(markers_[0].write.commit);
  EXPECT_EQ(markers_[0].write.producer_id, 42);
  EXPECT_EQ(state(), TxnState::kCompleteCommit);
}

TEST_F(TxnCoordinatorTest, IdsOfAPartitionNoLongerHostedGetNotCoordinator) {
  auto p = init();
  store_.hold = true;
  std::optional<Errc> added;
  tc_->add_partitions(kId, p.producer_id, p.producer_epoch, {{"a", 0}}, [&](Errc e) { added = e; });
  tc_->unhost(txn_partition_for(kId));
  store_.release();
  EXPECT_EQ(added, Errc::kNotCoordinator);
  EXPECT_EQ(tc_->routing_error(kId), Errc::kNotCoordinator);
  EXPECT_EQ(add(p, {{"a", 0}}), Errc::kNotCoordinator);
  EXPECT_FALSE(tc_->describe(kId).has_value());
}

}  // namespace
}  // namespace strata::coordinator
