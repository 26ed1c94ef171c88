// The transaction coordinator's decisions as pure functions of a
// transactional id's metadata (TxnMetadata) and a request: what to answer,
// and the metadata to write to __transaction_state before answering. The
// coordinator that hosts the id appends that record, applies it once it is
// replicated, and writes the markers a Prepare state asks for.
//
//   auto d = end_txn(meta, pid, epoch, /*commit=*/true, now);
//   if (d.error != Errc::kOk) answer(d.error);
//   else if (d.next) write(*d.next) ... then markers to d.next->partitions,
//        then write(complete(*d.next, now)).
//
// Kafka's rules (TransactionCoordinator), with errors named as Kafka's:
//  - a producer id other than the id's → INVALID_PRODUCER_ID_MAPPING; an
//    epoch other than its current one → PRODUCER_FENCED (the server answers
//    INVALID_PRODUCER_EPOCH to request versions that predate it);
//  - while a commit or abort is being written (Prepare*) → CONCURRENT_TRANSACTIONS
//    (retriable), unless the request asks for the opposite → INVALID_TXN_STATE;
//  - a retried EndTxn of the outcome already reached succeeds again.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "coordinator/txn/txn_types.h"

namespace strata::coordinator {

// Whether a commit or abort is being written (its markers in flight).
bool preparing(TxnState s);
// The producer check every request of a producer makes first: another id
// → INVALID_PRODUCER_ID_MAPPING, another epoch → PRODUCER_FENCED.
Errc check_producer(const TxnMetadata& m, int64_t producer_id, int16_t epoch);

// What a request decides: an error, or (with kNone) the metadata to write —
// nullopt when nothing changes and the answer can go at once.
struct TxnDecision {
  Errc error = Errc::kOk;
  std::optional<TxnMetadata> next;
};

// The producer (id, epoch) a v3+ InitProducerId says it had; (-1, -1): none.
struct ProducerIdEpoch {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
};

struct InitDecision {
  Errc error = Errc::kOk;
  std::optional<TxnMetadata> next;
  // The id needs a (new) producer id: the caller allocates one and puts it
  // in `next` with epoch 0 (a first InitProducerId, or an epoch exhausted).
  bool new_producer_id = false;
};

// InitProducerId with a transactional id. `current`: the id's metadata if
// it has any. `timeout_ms` must be in (0, max_timeout_ms]
// (transaction.max.timeout.ms) → else INVALID_TRANSACTION_TIMEOUT. A
// transaction in progress is aborted with the epoch bumped, which fences
// its producer: the answer is CONCURRENT_TRANSACTIONS until the abort is
// complete (`next` is then the PrepareAbort to write). Otherwise the epoch
// is bumped (a new producer id once it would reach INT16_MAX) and the id
// is Empty.
InitDecision init_producer(const std::optional<TxnMetadata>& current, int32_t timeout_ms,
                           int32_t max_timeout_ms, int64_t now_ms,
                           std::optional<ProducerIdEpoch> expected = std::nullopt);

// AddPartitionsToTxn (and AddOffsetsToTxn's __consumer_offsets partition):
// begins a transaction (Empty or Complete*: Ongoing from `now_ms`) or adds
// to the one in progress.
TxnDecision add_partitions(const TxnMetadata& current, int64_t producer_id, int16_t epoch,
                           const std::vector<TxnPartition>& partitions, int64_t now_ms);

// EndTxn: an Ongoing transaction goes to PrepareCommit / PrepareAbort (the
// markers are written to its partitions, then complete()).
TxnDecision end_txn(const TxnMetadata& current, int64_t producer_id, int16_t epoch, bool commit,
                    int64_t now_ms);

// After every marker of a Prepare* state is written: CompleteCommit or
// CompleteAbort, with no partitions.
TxnMetadata complete(const TxnMetadata& prepared, int64_t now_ms);

// A transaction Ongoing for longer than its timeout: the PrepareAbort to
// write, with the epoch bumped so its producer is fenced; nullopt if not
// expired.
std::optional<TxnMetadata> abort_if_expired(const TxnMetadata& current, int64_t now_ms);

}  // namespace strata::coordinator
