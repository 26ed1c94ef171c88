// Log: the leader epoch cache — which leader epoch each stretch of the log
// was written in (KIP-101), kept in the index store beside the entries.
#include "engine/log.h"

namespace strata::engine {

void Log::track_epoch(const BatchHeader& h, index::IndexStore::Update& update) {
  int32_t e = h.leader_epoch.value();
  if (!epochs_.empty() && e <= epochs_.rbegin()->first) return;
  epochs_[e] = h.base_offset;
  update.add_epoch({h.leader_epoch, h.base_offset});
}

Status Log::load_epochs(Offset before) {
  STRATA_ASSIGN_OR_RETURN(auto stored, options_.index->leader_epochs(options_.uid));
  epochs_.clear();
  for (const auto& e : stored)
    if (e.start_offset < before) epochs_[e.epoch.value()] = e.start_offset;
  return ok_status();
}

void Log::trim_epochs_below(Offset start) {
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

EpochEnd Log::end_offset_for_epoch(LeaderEpoch epoch) const {
  if (epochs_.empty() || epoch.value() < 0) return {};
  if (epoch.value() == epochs_.rbegin()->first) return {epoch, end_offset_};
  auto higher = epochs_.upper_bound(epoch.value());
  if (higher == epochs_.end()) return {};  // above every epoch here
  if (higher == epochs_.begin()) return {epoch, higher->second};
  return {LeaderEpoch(std::prev(higher)->first), higher->second};
}

}  // namespace strata::engine
