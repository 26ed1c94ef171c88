#include "engine/aborted_index.h"

#include <algorithm>

namespace strata::engine {

void AbortedIndex::add(const AbortedTxn& txn) {
  by_marker_[txn.last_offset] = txn;
  longest_ = std::max(longest_, txn.last_offset - txn.first_offset);
}

std::vector<AbortedTxn> AbortedIndex::overlapping(Offset from, Offset upper) const {
  std::vector<AbortedTxn> out;
  // Markers more than the longest transaction beyond `upper` end
  // transactions that began at or after it.
  for (auto it = by_marker_.lower_bound(from); it != by_marker_.end(); ++it) {
    if (it->first.value() - longest_ > upper.value()) break;
    if (it->second.first_offset < upper) out.push_back(it->second);
  }
  return out;
}

void AbortedIndex::drop_from(Offset offset) {
  by_marker_.erase(by_marker_.lower_bound(offset), by_marker_.end());
}

void AbortedIndex::drop_below(Offset start) {
  by_marker_.erase(by_marker_.begin(), by_marker_.lower_bound(start));
}

std::vector<AbortedTxn> AbortedIndex::all() const {
  std::vector<AbortedTxn> out;
  out.reserve(by_marker_.size());
  for (const auto& [marker, txn] : by_marker_)
    out.push_back(txn);
  return out;
}

}  // namespace strata::engine
