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
// control batch. Checks (KAFKA-PROTOCOL.md, "Idempotence"):
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
#include <vector>

#include "base/ids.h"
#include "base/result.h"
#include "engine/record_batch.h"

namespace strata::engine {

struct ProducerBatch {
  int32_t first_sequence = 0;
  int32_t last_sequence = 0;
  Offset base_offset;
  Offset last_offset;
  bool operator==(const ProducerBatch&) const = default;
};

struct ProducerState {
  int16_t epoch = 0;
  std::deque<ProducerBatch> batches;  // the last kKeptBatches, oldest first
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

  // Records `h`, which now has its offsets in the log. Batches that are not
  // idempotent, and one this table already holds (at or below the
  // producer's last offset: recovery rescanning what the index covered),
  // change nothing. Returns whether the producer's state changed.
  bool apply(const BatchHeader& h, TimestampMs now_ms);

  // Forgets the batches at or after `offset` (a truncated or rolled-back
  // tail); a producer left with no batch is forgotten. Returns the producers
  // changed (and whether each is gone).
  std::vector<int64_t> drop_from(Offset offset);

  // Forgets producers whose last write is more than `expiration_ms` before
  // `now_ms` (producer.id.expiration.ms). Returns their ids.
  std::vector<int64_t> expire(TimestampMs now_ms, int64_t expiration_ms);

  const ProducerState* find(int64_t producer_id) const;
  void put(int64_t producer_id, ProducerState state) { states_[producer_id] = std::move(state); }
  const std::unordered_map<int64_t, ProducerState>& all() const { return states_; }
  size_t size() const { return states_.size(); }

 private:
  std::unordered_map<int64_t, ProducerState> states_;
};

// Whether a batch takes part in idempotence.
inline bool idempotent(const BatchHeader& h) {
  return h.producer_id >= 0 && !h.control();
}

}  // namespace strata::engine
