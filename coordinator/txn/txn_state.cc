#include "coordinator/txn/txn_state.h"

#include <limits>

namespace strata::coordinator {

bool preparing(TxnState s) {
  return s == TxnState::kPrepareCommit || s == TxnState::kPrepareAbort ||
         s == TxnState::kPrepareEpochFence;
}

Errc check_producer(const TxnMetadata& m, int64_t producer_id, int16_t epoch) {
  if (producer_id != m.producer_id) return Errc::kInvalidProducerIdMapping;
  if (epoch != m.producer_epoch) return Errc::kProducerFenced;
  return Errc::kOk;
}

namespace {

bool idle(TxnState s) {
  return s == TxnState::kEmpty || s == TxnState::kCompleteCommit || s == TxnState::kCompleteAbort;
}

TxnMetadata aborting(const TxnMetadata& m, int64_t now_ms) {
  TxnMetadata next = m;
  next.state = TxnState::kPrepareAbort;
  next.producer_epoch = static_cast<int16_t>(m.producer_epoch + 1);
  next.last_update_ms = now_ms;
  return next;
}

}  // namespace

InitDecision init_producer(const std::optional<TxnMetadata>& current, int32_t timeout_ms,
                           int32_t max_timeout_ms, int64_t now_ms,
                           std::optional<ProducerIdEpoch> expected) {
  if (timeout_ms <= 0 || timeout_ms > max_timeout_ms) {
    return {Errc::kInvalidTransactionTimeout, std::nullopt, false};
  }
  if (!current || current->state == TxnState::kDead) {
    TxnMetadata m;
    m.producer_epoch = 0;
    m.timeout_ms = timeout_ms;
    m.last_update_ms = now_ms;
    return {Errc::kOk, m, true};
  }
  const TxnMetadata& m = *current;
  if (expected && expected->producer_id >= 0 &&
      (expected->producer_id != m.producer_id || expected->producer_epoch != m.producer_epoch)) {
    // A v3+ producer resuming with an id and epoch no longer the id's (a
    // zombie after another instance's InitProducerId). A retry of the
    // InitProducerId that made the current epoch, by the epoch before it,
    // is answered by the coordinator, which keeps that epoch.
    return {Errc::kProducerFenced, std::nullopt, false};
  }
  if (preparing(m.state)) return {Errc::kConcurrentTransactions, std::nullopt, false};
  if (m.state == TxnState::kOngoing) {
    // Fence the producer of the transaction in progress and abort it; the
    // caller answers CONCURRENT_TRANSACTIONS and the client retries.
    return {Errc::kConcurrentTransactions, aborting(m, now_ms), false};
  }
  TxnMetadata next = m;
  next.state = TxnState::kEmpty;
  next.partitions.clear();
  next.timeout_ms = timeout_ms;
  next.last_update_ms = now_ms;
  next.start_ms = -1;
  if (m.producer_epoch >= std::numeric_limits<int16_t>::max() - 1) {
    next.producer_epoch = 0;
    return {Errc::kOk, next, true};
  }
  next.producer_epoch = static_cast<int16_t>(m.producer_epoch + 1);
  return {Errc::kOk, next, false};
}

TxnDecision add_partitions(const TxnMetadata& m, int64_t producer_id, int16_t epoch,
                           const std::vector<TxnPartition>& partitions, int64_t now_ms) {
  if (auto e = check_producer(m, producer_id, epoch); e != Errc::kOk) return {e, {}};
  if (preparing(m.state)) return {Errc::kConcurrentTransactions, {}};
  if (m.state == TxnState::kDead) return {Errc::kInvalidTxnState, {}};
  TxnMetadata next = m;
  if (idle(m.state)) {
    next.state = TxnState::kOngoing;
    next.partitions.clear();
    next.start_ms = now_ms;
  }
  next.partitions.insert(partitions.begin(), partitions.end());
  if (next == m) return {};  // all already in the transaction
  next.last_update_ms = now_ms;
  return {Errc::kOk, next};
}

TxnDecision end_txn(const TxnMetadata& m, int64_t producer_id, int16_t epoch, bool commit,
                    int64_t now_ms) {
  if (producer_id != m.producer_id) return {Errc::kInvalidProducerIdMapping, {}};
  TxnState done = commit ? TxnState::kCompleteCommit : TxnState::kCompleteAbort;
  TxnState prepare = commit ? TxnState::kPrepareCommit : TxnState::kPrepareAbort;
  // A producer the coordinator fenced (its transaction aborted with the
  // epoch bumped) learns it here.
  if (epoch != m.producer_epoch) return {Errc::kProducerFenced, {}};
  switch (m.state) {
    case TxnState::kOngoing: {
      TxnMetadata next = m;
      next.state = prepare;
      next.last_update_ms = now_ms;
      return {Errc::kOk, next};
    }
    case TxnState::kPrepareCommit:
    case TxnState::kPrepareAbort:
      return {m.state == prepare ? Errc::kConcurrentTransactions : Errc::kInvalidTxnState, {}};
    case TxnState::kCompleteCommit:
    case TxnState::kCompleteAbort:
      return {m.state == done ? Errc::kOk : Errc::kInvalidTxnState, {}};
    case TxnState::kPrepareEpochFence: return {Errc::kConcurrentTransactions, {}};
    case TxnState::kEmpty:
    case TxnState::kDead: return {Errc::kInvalidTxnState, {}};
  }
  return {Errc::kInvalidTxnState, {}};
}

TxnMetadata complete(const TxnMetadata& prepared, int64_t now_ms) {
  TxnMetadata next = prepared;
  next.state = prepared.state == TxnState::kPrepareCommit ? TxnState::kCompleteCommit
                                                          : TxnState::kCompleteAbort;
  next.partitions.clear();
  next.last_update_ms = now_ms;
  return next;
}

std::optional<TxnMetadata> abort_if_expired(const TxnMetadata& m, int64_t now_ms) {
  if (m.state != TxnState::kOngoing || m.start_ms < 0) return std::nullopt;
  if (now_ms - m.start_ms <= m.timeout_ms) return std::nullopt;
  return aborting(m, now_ms);
}

}  // namespace strata::coordinator
