// AbortedIndex: a log's aborted transactions, by the offset of their abort
// marker — what a read_committed fetch lists so the consumer drops their
// records (FetchResponse's AbortedTransactions). It also keeps the longest
// aborted transaction in offsets, so a lookup stops scanning markers once
// they are too far beyond a fetch to end a transaction that began inside it.
//
//   AbortedIndex aborted;
//   aborted.add({.producer_id = 7, .first_offset = Offset(10), .last_offset = Offset(20)});
//   aborted.overlapping(Offset(0), Offset(15));  // {the one above}
//
// Plain data: the Log keeps it in step with its committed batches and the
// index store (log_producers.h).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "base/ids.h"
#include "index/index_store.h"

namespace strata::engine {

using AbortedTxn = index::AbortedEntry;

class AbortedIndex {
 public:
  // Records an aborted transaction (its marker at `txn.last_offset`).
  void add(const AbortedTxn& txn);
  // The transactions a read of [from, upper) must list: those whose marker
  // is at or after `from` and that began before `upper`, in marker order.
  std::vector<AbortedTxn> overlapping(Offset from, Offset upper) const;
  // Forgets the transaction whose marker is at `marker` (compaction removed it).
  void erase(Offset marker) { by_marker_.erase(marker); }
  // Forgets those whose marker is at or after `offset` (a truncation).
  void drop_from(Offset offset);
  // Forgets those whose marker is below `start` (the log start moved).
  void drop_below(Offset start);
  // Every transaction, in marker order (for a write that replaces them all).
  std::vector<AbortedTxn> all() const;
  // By marker offset, from the first at or after `from`.
  auto from(Offset from) const { return by_marker_.lower_bound(from); }
  auto end() const { return by_marker_.end(); }
  bool empty() const { return by_marker_.empty(); }

 private:
  std::map<Offset, AbortedTxn> by_marker_;
  // The most offsets any transaction spanned: one that began before an
  // offset ends at most this far after it. Never shrinks (a bound only).
  int64_t longest_ = 0;
};

}  // namespace strata::engine
