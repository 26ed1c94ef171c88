// LeaderEpochCache: which leader epoch each stretch of a log was written in
// (KIP-101): each epoch and the offset of its first batch, epochs rising
// with offsets. A follower asks where its last epoch ends here
// (end_offset_for), and truncates there. The Log keeps one, stored beside
// its index entries (IndexStore's epoch records) and derived again from the
// batches in recovery.
//
//   LeaderEpochCache cache;
//   if (auto added = cache.track(LeaderEpoch(3), Offset(120))) update.add_epoch(*added);
//   cache.end_offset_for(LeaderEpoch(2), log_end);   // {2, 120}
//
// Thread-safety: none; the log's shard.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "base/ids.h"
#include "index/index_store.h"

namespace strata::engine {

struct EpochEnd {
  LeaderEpoch epoch{-1};  // the largest epoch of this log not above the one asked; -1: none
  Offset end_offset{-1};  // where it ends: the next epoch's start, or the log end; -1: none
  bool operator==(const EpochEnd&) const = default;
};

class LeaderEpochCache {
 public:
  // A batch of `epoch` starting at `base` was appended: the entry to store
  // when it begins a new epoch (one above every epoch here), else nothing.
  std::optional<index::EpochEntry> track(LeaderEpoch epoch, Offset base);
  // Replaces the cache with the stored epochs that begin below `before`.
  void load(const std::vector<index::EpochEntry>& stored, Offset before);
  // The log now starts at `start`: the epochs wholly below it go, and the
  // one it falls in now begins there.
  void trim_below(Offset start);
  // The log now ends at `end`: the epochs beginning at or after it go.
  void truncate_from(Offset end);
  void clear() { epochs_.clear(); }

  // The largest epoch here, if any.
  std::optional<int32_t> latest() const;
  // Where `epoch` ends in a log ending at `log_end`: the start of the next
  // epoch above it, or the log end for the latest; for an epoch between two
  // here, the lower one and the higher's start (KIP-279).
  EpochEnd end_offset_for(LeaderEpoch epoch, Offset log_end) const;
  const std::map<int32_t, Offset>& entries() const { return epochs_; }

 private:
  std::map<int32_t, Offset> epochs_;  // leader epoch -> its first offset
};

}  // namespace strata::engine
