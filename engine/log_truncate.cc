// Log::truncate_to and Log::restart_at: cutting a follower's log to its
// leader's — a divergent tail, or all of it when the leader's log starts
// beyond it.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "engine/log.h"
#include "engine/segment_scanner.h"

namespace strata::engine {

Status Log::require_idle(std::string_view doing) const {
  if (closing_) return Error(Errc::kShutdown, "log is closing");
  if (!pending_.empty() || !writes_.empty() || sync_in_flight_ || write_backs_in_flight_ > 0 ||
      compaction_.swapping()) {
    return Error(Errc::kInvalidArgument,
                 fmt::format("partition {}: cannot {} while appends, a sync, a write-back or a "
                             "cleaning's swap are in flight",
                             options_.uid, doing));
  }
  return ok_status();
}

Status Log::truncate_to(Offset offset) {
  STRATA_TRY(require_idle("truncate"));
  if (offset < start_offset_ || offset > end_offset_) {
    return Error(Errc::kOffsetOutOfRange,
                 fmt::format("partition {}: cannot truncate to {} outside the log {}..{}",
                             options_.uid, offset, start_offset_, end_offset_));
  }
  if (offset == end_offset_) return ok_status();

  // Find the batch that starts at `offset` and the index state there.
  auto seg = segments_.containing(offset);
  uint64_t pos = 0;
  TimestampMs max_ts = index::kNoTimestamp;
  if (auto prev = segments_.find(seg->base); prev != segments_.begin()) {
    max_ts = std::prev(prev)->second->max_timestamp_through;
  }
  STRATA_ASSIGN_OR_RETURN(auto entry, options_.index->offset_floor(options_.uid, offset));
  if (entry && entry->segment == seg->base) {
    pos = entry->position.value();
    max_ts = entry->max_timestamp_before;
  }
  // Compaction leaves holes in the offsets: the cut falls at the first
  // batch at or after `offset`, or at the end of the segment's batches,
  // unless a batch holds `offset` after its first offset.
  uint64_t since_entry = 0;
  std::optional<uint64_t> cut;
  bool inside_batch = false;
  SegmentScanner scanner(*seg->file, pos, seg->size, /*verify_crc=*/false);
  while (!cut) {
    STRATA_ASSIGN_OR_RETURN(auto batch, scanner.next());
    if (!batch) break;
    const auto& h = batch->header;
    if (h.base_offset >= offset) {
      cut = batch->position;
    } else if (h.last_offset() >= offset) {
      inside_batch = true;
      break;
    } else {
      max_ts = std::max(max_ts, h.max_timestamp);
      since_entry += h.total_size();
    }
  }
  if (!cut && !inside_batch && !scanner.defect() && scanner.position() == seg->size) {
    cut = seg->size;
  }
  if (!cut) {
    return Error(
        Errc::kInvalidArgument,
        fmt::format("partition {}: offset {} does not start a batch", options_.uid, offset));
  }

  // The files first, from the end back: whatever step a crash or an error
  // stops at leaves a contiguous log, and markers past the files' end,
  // which recovery does not trust.
  bool removed = false;
  while (segments_.rbegin()->first > seg->base) {
    auto last = std::prev(segments_.end());
    auto path = last->second->file->path();
    last->second->file.reset();
    segments_.erase(last);
    removed = true;
    STRATA_TRY(options_.fs->remove(path));
  }
  uint64_t cut_bytes = seg->size - *cut;
  STRATA_TRY(seg->file->truncate(*cut));
  STRATA_TRY(seg->file->sync_now());
  if (removed || dir_dirty_) {
    STRATA_TRY(dir_handle_->sync_now());
    dir_dirty_ = false;
  }
  seg->size = *cut;
  seg->synced_size = std::min(seg->synced_size, *cut);
  seg->written_back = std::min(seg->written_back, *cut);
  seg->allocated = std::min(seg->allocated, *cut);
  seg->cache_dropped = std::min(seg->cache_dropped, *cut);
  seg->next_offset = offset;
  seg->max_timestamp_through = max_ts;

  applied_ = index::LogPoint{offset, seg->base, FilePos(*cut), max_ts, since_entry};
  // The producers' states and aborted transactions after the cut go in the
  // same synced write.
  STRATA_ASSIGN_OR_RETURN(auto producers, producers_.cut(offset));
  STRATA_TRY(options_.index->truncate(options_.uid, offset, applied_, producers,
                                      producers_.aborted_.all()));
  STRATA_ASSIGN_OR_RETURN(compaction_.state_, options_.index->compaction_state(options_.uid));
  epochs_.truncate_from(offset);
  STRATA_ASSIGN_OR_RETURN(last_entry_, options_.index->offset_floor(options_.uid, Offset::max()));
  spdlog::info("partition {}: truncated to offset {} ({} bytes from segment {} on, was {})",
               options_.uid, offset, cut_bytes, seg->base, end_offset_);
  end_offset_ = next_offset_ = offset;
  durable_offset_ = std::min(durable_offset_, offset);
  active_assigned_ = *cut;
  for (auto& w : flush_waiters_)
    w.target = std::min(w.target, offset);
  return ok_status();
}

Status Log::restart_at(Offset offset) {
  STRATA_TRY(require_idle("restart"));
  bool empty = start_offset_ == end_offset_;
  if (offset == end_offset_ || (offset < end_offset_ && !empty) || offset < Offset(0)) {
    return Error(Errc::kOffsetOutOfRange,
                 fmt::format("partition {}: cannot restart at {}: the log holds {}..{}",
                             options_.uid, offset, start_offset_, end_offset_));
  }
  auto st = restart_steps(offset);
  // Half done, the log is still readable where it has files but takes no
  // appends until it is reopened (recovery sorts out where it stopped).
  if (!st) fatal_ = st.error();
  return st;
}

Status Log::restart_steps(Offset offset) {
  // The new empty segment first: until the old ones are gone, recovery
  // drops it (it starts beyond their end). Then the index, so that no entry
  // or epoch of the old log can describe the new one; a crash now rebuilds
  // the old log's from its files. Then the old files, oldest first: what a
  // crash leaves of them is a log that starts later. An empty log that
  // restarts below its end may already have segments above `offset`: they
  // hold nothing, and go too (recovery drops empty segments beyond the end
  // and cuts at a batch that does not follow).
  Offset was_start = start_offset_;
  Offset was_end = end_offset_;
  std::vector<std::shared_ptr<Segment>> old;
  for (const auto& [base, seg] : segments_)
    if (base != offset) old.push_back(seg);
  applied_ = index::LogPoint{offset, offset, FilePos(0), index::kNoTimestamp, 0};
  if (auto at = segments_.find(offset); at != segments_.end()) {
    // The log is empty: this segment's records are all below its start.
    Segment& seg = *at->second;
    STRATA_TRY(seg.file->truncate(0));
    seg.size = seg.synced_size = seg.allocated = seg.cache_dropped = seg.written_back = 0;
    seg.next_offset = offset;
    seg.max_timestamp_through = index::kNoTimestamp;
    active_assigned_ = 0;
  } else {
    STRATA_TRY(open_new_segment(offset));
  }
  STRATA_TRY(segments_.at(offset)->file->sync_now());
  STRATA_TRY(dir_handle_->sync_now());
  dir_dirty_ = false;
  STRATA_ASSIGN_OR_RETURN(auto producers, producers_.cut(Offset(0)));
  STRATA_TRY(options_.index->truncate(options_.uid, Offset(0), applied_, producers,
                                      producers_.aborted_.all()));
  STRATA_ASSIGN_OR_RETURN(compaction_.state_, options_.index->compaction_state(options_.uid));
  epochs_.clear();
  last_entry_.reset();
  for (const auto& seg : old) {
    segments_.erase(seg->base);
    start_offset_ = std::min(segments_.begin()->first, end_offset_);
    auto path = seg->file->path();
    seg->file.reset();
    STRATA_TRY(options_.fs->remove(path));
  }
  STRATA_TRY(dir_handle_->sync_now());
  STRATA_TRY(options_.index->drop_before(options_.uid, offset));
  STRATA_TRY(options_.index->set_recovery_point(options_.uid, applied_));
  spdlog::info("partition {}: emptied (was {}..{}) to start again at offset {}", options_.uid,
               was_start, was_end, offset);
  start_offset_ = end_offset_ = next_offset_ = durable_offset_ = offset;
  for (auto& w : flush_waiters_)
    w.target = std::min(w.target, offset);
  return store_start_offset();
}

}  // namespace strata::engine
