// LogProducers: one log's side of idempotent and transactional producers —
// the producers' states (ProducerStates) as of the committed log and with the
// batches in flight, and the aborted transactions (AbortedIndex). Loaded from
// the index at open, kept with every committed batch and marker, cut with the
// log, expired after producer.id.expiration.ms.
//
//   const auto& p = log->producers();
//   p.states().find(producer_id);               // epoch, last batches, open txn
//   p.last_stable_offset(high_watermark);       // read_committed's bound
//   p.aborted_transactions(from, upper);        // a read_committed fetch's list
//
// A part of Log: it lives inside its Log, runs on its shard, and reads the
// log's options and, for a rare rebuild, its segments through it.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "base/ids.h"
#include "base/result.h"
#include "engine/aborted_index.h"
#include "engine/producer_states.h"
#include "engine/record_batch.h"
#include "index/index_store.h"

namespace strata::engine {

class Log;

class LogProducers {
 public:
  explicit LogProducers(Log& log) : log_(log) {}
  LogProducers(const LogProducers&) = delete;
  LogProducers& operator=(const LogProducers&) = delete;

  // The producers' states with the batches in flight (what an append checks).
  const ProducerStates& states() const { return accepted_; }
  // The last stable offset under `high_watermark`
  // (ProducerStates::last_stable_offset over the committed log).
  Offset last_stable_offset(Offset high_watermark) const {
    return committed_.last_stable_offset(high_watermark);
  }
  // The aborted transactions a read_committed fetch of [from, upper) must
  // list (AbortedIndex::overlapping).
  std::vector<AbortedTxn> aborted_transactions(Offset from, Offset upper) const {
    return aborted_.overlapping(from, upper);
  }
  const AbortedIndex& aborted() const { return aborted_; }
  // Forgets the idempotent producers whose last batch's timestamp is more
  // than producer_id_expiration_ms old, in memory and in the index.
  // Returns how many.
  size_t expire();

 private:
  friend class Log;
  friend class LogCompaction;

  // Loads the stored producer states and aborted transactions (as of the
  // stored applied marker; recovery's scan applies what follows it).
  Status load();
  // Records an idempotent batch or a transaction marker (`bytes`: the whole
  // batch) now committed, in the tables and in `update`.
  void track(const BatchHeader& h, std::span<const std::byte> bytes,
             index::IndexStore::Update& update);
  // Both tables forget the batches (and the aborted index the
  // transactions) at or after `offset`; returns the committed table as the
  // index stores it, for the truncation's write.
  Result<std::vector<index::IndexStore::ProducerRecord>> cut(Offset offset);
  // The states of producers `ids` as the log's batches below `until` make
  // them (for those cut could not derive from the tables).
  Status rescan(const std::vector<int64_t>& ids, Offset until);
  // The batches in flight were not written: only the committed state holds.
  void forget_in_flight() { accepted_ = committed_; }
  std::vector<index::IndexStore::ProducerRecord> records() const;

  Log& log_;
  // As of the log end (in the index with the log's applied marker)...
  ProducerStates committed_;
  // ...and with the batches in flight too (the one append checks).
  ProducerStates accepted_;
  // The aborted transactions of the committed log (in the index with the
  // applied marker).
  AbortedIndex aborted_;
};

}  // namespace strata::engine
