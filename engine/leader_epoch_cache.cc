#include "engine/leader_epoch_cache.h"

#include <algorithm>
#include <iterator>

namespace strata::engine {

std::optional<index::EpochEntry> LeaderEpochCache::track(LeaderEpoch epoch, Offset base) {
  int32_t e = epoch.value();
  if (!epochs_.empty() && e <= epochs_.rbegin()->first) return std::nullopt;
  epochs_[e] = base;
  return index::EpochEntry{epoch, base};
}

void LeaderEpochCache::load(const std::vector<index::EpochEntry>& stored, Offset before) {
  epochs_.clear();
  for (const auto& e : stored)
    if (e.start_offset < before) epochs_[e.epoch.value()] = e.start_offset;
}

void LeaderEpochCache::trim_below(Offset start) {
  // Epochs begin at increasing offsets, so those below `start` come first.
  auto first_at = epochs_.begin();
  while (first_at != epochs_.end() && first_at->second < start)
    ++first_at;
  if (first_at == epochs_.begin()) return;
  auto latest_below = std::prev(first_at);
  bool one_starts_there = first_at != epochs_.end() && first_at->second == start;
  latest_below->second = start;
  epochs_.erase(epochs_.begin(), one_starts_there ? first_at : latest_below);
}

void LeaderEpochCache::truncate_from(Offset end) {
  epochs_.erase(std::find_if(epochs_.begin(), epochs_.end(),
                             [end](const auto& e) { return e.second >= end; }),
                epochs_.end());
}

std::optional<int32_t> LeaderEpochCache::latest() const {
  if (epochs_.empty()) return std::nullopt;
  return epochs_.rbegin()->first;
}

EpochEnd LeaderEpochCache::end_offset_for(LeaderEpoch epoch, Offset log_end) const {
  if (epochs_.empty() || epoch.value() < 0) return {};
  if (epoch.value() == epochs_.rbegin()->first) return {epoch, log_end};
  auto higher = epochs_.upper_bound(epoch.value());
  if (higher == epochs_.end()) return {};  // above every epoch here
  if (higher == epochs_.begin()) return {epoch, higher->second};
  return {LeaderEpoch(std::prev(higher)->first), higher->second};
}

}  // namespace strata::engine
