// ProducerStates: what a partition knows of each idempotent producer that
// wrote to it — its epoch and its last five batches (sequence range and
// offsets) — and the checks Kafka makes of a producer's next batch.
//
//   ProducerStates states;
//   auto verdict = states.check(header);          // before offsets are assigned
//   if (!verdict) ... kOutOfOrderSequence / kInvalidProducerEpoch
//   if (verdict->duplicate) ... answer with verdict->duplicate's offsets
//   states.apply(header_with_offsets, now_ms);    // once the batch has its offsets
//
// A batch is idempotent when its producer id is >= 0 and it is not a
// control batch. A transactional one opens the producer's transaction here
// if none is open; the producer's marker (a control batch, control_record.h)
// ends it, and an abort is reported for the aborted-transaction index. Checks (KAFKA-PROTOCOL.md,
// "Idempotence"):
//  - a producer this partition does not know (never seen, or expired) may
//    start at any sequence;
//  - an epoch older than the producer's → kInvalidProducerEpoch;
//  - a newer epoch must start at sequence 0 → else kOutOfOrderSequence;
//  - the same epoch: one of the last five batches again (same first and last
//    sequence) is a duplicate, answered with its original offsets and not
//    written; otherwise the first sequence must follow the last batch's last
//    (INT32_MAX wraps to 0) → else kOutOfOrderSequence.
// Followers apply their leader's batches without checking them, so a new
// leader knows the same producers.
//
// The state is derived from the log: Log keeps one table at its committed
// end (persisted in the index with the applied marker, rebuilt by recovery's
// scan) and one that also holds the batches in flight (the one checked).
//
// Thread-safety: none; a Log's shard owns it.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/ids.h"
#include "base/result.h"
#include "engine/aborted_index.h"
#include "engine/control_record.h"
#include "engine/record_batch.h"
#include "index/index_store.h"

namespace strata::engine {

struct ProducerBatch {
  int32_t first_sequence = 0;
  int32_t last_sequence = 0;
  Offset base_offset;
  Offset last_offset;
  bool operator==(const ProducerBatch&) const = default;
};

// A transaction of the producer that ended in this partition: its first
// offset here and its marker's offset.
struct TxnSpan {
  Offset first_offset;
  Offset marker_offset;
  bool operator==(const TxnSpan&) const = default;
};

struct ProducerState {
  int16_t epoch = 0;
  std::deque<ProducerBatch> batches;  // the last kKeptBatches, oldest first
  // The first offset here of the producer's open transaction, if one is.
  std::optional<Offset> txn_first_offset;
  // Its last kKeptBatches transactions ended here, oldest first (a
  // truncation that cuts a marker opens its transaction again).
  std::deque<TxnSpan> txns;
  // The coordinator epoch of the last marker: markers from an older
  // coordinator are fenced.
  int32_t coordinator_epoch = -1;
  // The offset of the producer's last batch or marker applied: anything at
  // or below it is already in the table (recovery rescanning).
  Offset last_offset{-1};
  // Its last batch's max timestamp (Kafka's lastTimestamp: the producer's
  // clock under CreateTime): leader, followers and recovery derive the same
  // value from the same bytes. Expiry measures from it.
  TimestampMs last_write_ms = 0;
  bool operator==(const ProducerState&) const = default;
};

// The bytes of a ProducerState in the index, and back.
std::string encode_producer_state(const ProducerState& state);
Result<ProducerState> decode_producer_state(std::string_view bytes);

class ProducerStates {
 public:
  static constexpr size_t kKeptBatches = 5;

  struct Verdict {
    // Set when the batch repeats one already in the log: its offsets there.
    std::optional<ProducerBatch> duplicate;
  };
  // Whether `h` (an idempotent batch from a client) may be appended.
  Result<Verdict> check(const BatchHeader& h) const;
  // The epoch check alone (kInvalidProducerEpoch for an epoch older than
  // the producer's), for the idempotent batches the broker writes itself
  // for a producer (a transaction's offsets): fenced like the producer's own.
  Status check_epoch(const BatchHeader& h) const;

  // Records `h`, which now has its offsets in the log. Batches that are not
  // idempotent, and one this table already holds (at or below the
  // producer's last offset: recovery rescanning what the index covered),
  // change nothing. Returns whether the producer's state changed.
  bool apply(const BatchHeader& h, TimestampMs now_ms);

  // Whether a transaction marker from producer `m.producer_id` may be
  // written: kInvalidProducerEpoch for an epoch older than the producer's,
  // kTransactionCoordinatorFenced for a coordinator epoch older than the
  // last marker's.
  Status check_marker(const TxnMarker& m) const;
  // Records the marker written at `offset`: the producer's open transaction
  // (if any) ends there. A marker at or below one already recorded changes
  // nothing (recovery rescanning). Returns whether the state changed and
  // the transaction it aborted, if it aborted one with data here.
  struct MarkerEffect {
    bool changed = false;
    std::optional<AbortedTxn> aborted;
  };
  MarkerEffect apply_marker(const TxnMarker& m, Offset offset, TimestampMs now_ms);

  // The last stable offset under `high_watermark`: the first offset of the
  // earliest transaction still open, or ended by a marker at or above the
  // high watermark (not yet on every in-sync replica); else the high
  // watermark.
  Offset last_stable_offset(Offset high_watermark) const;

  // Forgets the batches and transaction ends at or after `offset` (a
  // truncated or rolled-back tail): a transaction whose marker goes is open
  // again if it began before `offset`; one that began at or after it is
  // gone. A producer left with no batch and no transaction is forgotten.
  // The table keeps only a producer's last kKeptBatches batches and
  // transactions: one that loses all of a full history is `unknown` — what
  // it held before `offset` is not here, and must be read from the log
  // (Log::cut_producers does).
  struct Dropped {
    std::vector<int64_t> changed;
    std::vector<int64_t> unknown;
  };
  Dropped drop_from(Offset offset);

  // Forgets producers whose last write is more than `expiration_ms` before
  // `now_ms` (producer.id.expiration.ms), except those with a transaction
  // open here. Returns their ids.
  std::vector<int64_t> expire(TimestampMs now_ms, int64_t expiration_ms);

  const ProducerState* find(int64_t producer_id) const;
  void put(int64_t producer_id, ProducerState state);
  void erase(int64_t producer_id);
  const std::unordered_map<int64_t, ProducerState>& all() const { return states_; }
  size_t size() const { return states_.size(); }

 private:
  // Keeps `id` in transactional_ exactly while `s` has transaction state.
  void track_transactional(int64_t id, const ProducerState& s);

  std::unordered_map<int64_t, ProducerState> states_;
  // The producers with an open or ended transaction here: the only ones
  // last_stable_offset (on every fetch) needs to look at.
  std::unordered_set<int64_t> transactional_;
};

// Whether a batch takes part in idempotence.
inline bool idempotent(const BatchHeader& h) {
  return h.producer_id >= 0 && !h.control();
}

// Whether a batch is a transaction's data (not its marker).
inline bool transactional_data(const BatchHeader& h) {
  return idempotent(h) && h.transactional();
}

}  // namespace strata::engine
