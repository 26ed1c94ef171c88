// Log: the leader epoch cache — which leader epoch each stretch of the log
// was written in (KIP-101), kept in the index store beside the entries.
#include "engine/log.h"

namespace strata::engine {

void Log::track_epoch(const BatchHeader& h, index::IndexStore::Update& update) {
  if (auto added = epochs_.track(h.leader_epoch, h.base_offset)) update.add_epoch(*added);
}

Status Log::load_epochs(Offset before) {
  STRATA_ASSIGN_OR_RETURN(auto stored, options_.index->leader_epochs(options_.uid));
  epochs_.load(stored, before);
  return ok_status();
}

EpochEnd Log::end_offset_for_epoch(LeaderEpoch epoch) const {
  return epochs_.end_offset_for(epoch, end_offset_);
}

}  // namespace strata::engine
