// Log compaction on the log's side: the key map kept on commit, what a
// cleaning may take, and its install — the swap of the cleaned files — and
// the completion of one a crash interrupted.
//
// The swap, for each cleaned group (log_cleaner.h wrote `<base>.log.cleaned`
// and synced it); the steps that wait on the disk run off the shard
// (install's runner: a cleaner thread in the broker):
//   0. (shard) the log still holds the planned segments; from here nothing
//      removes or cuts them until the swap ends.
//   1. (off) `.cleaned` -> `.swap`, directory synced: the cleaning is
//      committed; recovery completes it from here on.
//   2. (shard) the log reads the `.swap` files in place of the replaced
//      segments, positions in the range found through the swap's entries.
//   3. (off) the index: the group's offset and time entries, segment metas
//      and the compaction state replaced, in one synced write; the replaced
//      segments removed, the directory synced, `.swap` renamed to the first
//      one's name (synced with the log's next sync: a crash before it
//      leaves the `.swap`).
//   4. (shard) the segments reopened under their names, the index used
//      again; deferred deletions and held truncations and closes go on.
// Recovery finding a `.swap` removes the segments it covers, renames it into
// place and derives the index again from its base (the index may be the old
// one or the new one).
#include "engine/log_compaction.h"

#include <chrono>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "base/bytes.h"
#include "engine/batch_timestamps.h"
#include "engine/compression.h"
#include "engine/log.h"
#include "engine/segment_scanner.h"

namespace strata::engine {

void LogCompaction::track_keys(const BatchHeader& h, std::span<const std::byte> bytes,
                               index::IndexStore::Update& update) {
  if (!log_.options_.config.cleanup_compact || h.control() || h.records_count == 0) return;
  std::vector<std::byte> plain;
  auto payload = batch_records(bytes, h, plain, kMaxDecompressedBatchBytes);
  int64_t producer = h.transactional() ? h.producer_id : -1;
  auto st = !payload ? Status(payload.error())
                     : for_each_record(*payload, h.records_count, [&](const RecordView& r) {
                         if (r.key) {
                           update.put_key(
                               index::key_hash(*r.key),
                               index::KeyEntry{h.base_offset + r.offset_delta, state_.generation,
                                               producer, string_of(*r.key)});
                         }
                         return true;
                       });
  if (!st) {
    spdlog::error("partition {}: batch at {} not entered in the key map: {}", log_.options_.uid,
                  h.base_offset, st.error().to_string());
  }
}

LogCompaction::Cleanable LogCompaction::cleanable(Offset stable) const {
  const auto& cfg = log_.options_.config;
  Cleanable c{log_.start_offset_};
  Offset bound = std::min({stable, log_.durable_offset_, log_.end_offset_});
  int64_t now = log_.options_.clock->now_ms();
  bool first_dirty = true;
  // Never the active segment (the last).
  for (auto it = log_.segments_.begin(); std::next(it) != log_.segments_.end(); ++it) {
    const Segment& seg = *it->second;
    Offset seg_end = std::next(it)->first;
    if (seg_end > bound) break;
    TimestampMs newest =
        seg.meta.max_timestamp >= 0 ? seg.meta.max_timestamp : seg.meta.last_write_ms;
    if (newest > now - cfg.min_compaction_lag_ms) break;
    c.end = seg_end;
    if (seg.base >= state_.cleaned_through) {
      c.dirty_bytes += seg.size;
      if (first_dirty) {
        first_dirty = false;
        c.overdue =
            cfg.max_compaction_lag_ms < INT64_MAX && newest <= now - cfg.max_compaction_lag_ms;
      }
    } else {
      c.clean_bytes += seg.size;
    }
  }
  return c;
}

std::optional<CleaningPlan> LogCompaction::plan(Offset stable, bool force) {
  const auto& cfg = log_.options_.config;
  if (!cfg.cleanup_compact || cleaning_ || log_.closing_ || log_.fatal_) return std::nullopt;
  Cleanable c = cleanable(stable);
  if (c.dirty_bytes == 0) return std::nullopt;
  if (!force && !c.overdue && c.dirty_ratio() < cfg.min_cleanable_dirty_ratio) return std::nullopt;

  CleaningPlan plan;
  plan.uid = log_.options_.uid;
  plan.dir = log_.options_.dir;
  plan.end = c.end;
  plan.supersede_bound = std::min({stable, log_.durable_offset_, log_.end_offset_});
  plan.state = state_;
  plan.now_ms = log_.options_.clock->now_ms();
  plan.delete_retention_ms = cfg.delete_retention_ms;
  plan.index_interval_bytes = cfg.index_interval_bytes;
  plan.aborted = log_.producers_.aborted_.all();
  // Runs of segments whose sizes add up to at most segment.bytes.
  uint64_t group_bytes = 0;
  for (auto it = log_.segments_.begin(); it != log_.segments_.end() && it->first < c.end; ++it) {
    const Segment& seg = *it->second;
    CleanSegment cs{seg.base, seg.size, std::next(it)->first, seg.meta};
    if (plan.groups.empty() || group_bytes + seg.size > static_cast<uint64_t>(cfg.segment_bytes)) {
      plan.groups.emplace_back();
      group_bytes = 0;
    }
    plan.groups.back().push_back(cs);
    group_bytes += seg.size;
  }
  cleaning_ = true;
  return plan;
}

Result<bool> LogCompaction::finish(const CleaningPlan& plan, Result<CleaningResult> result) {
  std::optional<Result<bool>> out;
  install(
      plan, std::move(result), [](const SwapStep& step, const SwapThen& then) { then(step()); },
      [&out](Result<bool> r) { out = std::move(r); });
  STRATA_CHECK(out.has_value(), "partition {}: an inline swap did not finish", log_.options_.uid);
  return std::move(*out);
}

void LogCompaction::when_swapped(std::function<void()> fn) {
  if (!swap_) return fn();
  after_swap_.push_back(std::move(fn));
}

void LogCompaction::install(const CleaningPlan& plan, Result<CleaningResult> result, SwapRunner run,
                            std::function<void(Result<bool>)> done) {
  auto& fs = *log_.options_.fs;
  auto drop_files = [&] {
    for (const auto& g : plan.groups)
      (void)fs.remove(cleaned_path(log_.options_.dir, g.front().base));
  };
  if (!result) {
    cleaning_ = false;
    last_cleaning_ = fmt::format("failed: {}", result.error().message());
    ++failures_;
    spdlog::error("partition {}: cleaning failed: {}", log_.options_.uid,
                  result.error().to_string());
    drop_files();
    return done(result.error());
  }
  // The log must still hold exactly the planned segments, and no cut may
  // have voided the key map the cleaning judged by.
  bool same = state_.generation == plan.state.generation && !log_.closing_ && !log_.fatal_;
  for (const auto& g : plan.groups) {
    for (const auto& cs : g) {
      auto it = log_.segments_.find(cs.base);
      same = same && it != log_.segments_.end() && std::next(it) != log_.segments_.end() &&
             it->second->size == cs.size && std::next(it)->first == cs.next_offset;
    }
  }
  if (!same) {
    cleaning_ = false;
    last_cleaning_ = "dropped: the log changed while it was cleaned";
    spdlog::info("partition {}: cleaning dropped, the log changed under it", log_.options_.uid);
    drop_files();
    return done(false);
  }
  // From here to end nothing removes or cuts segments (truncations
  // wait, retention and log-start deletions are deferred) and the log does
  // not close: the planned segments stay as the check found them.
  auto swap = std::make_shared<Swap>();
  swap->plan = plan;
  swap->result = std::move(*result);
  swap->run = std::move(run);
  swap->done = std::move(done);
  swap->started = std::chrono::steady_clock::now();
  swap_ = swap;
  // 1. Off the shard: `.cleaned` -> `.swap`, the directory synced. The
  //    cleaning is committed once that is durable.
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> renames;
  for (const auto& cs : swap->result.segments)
    renames.emplace_back(cleaned_path(log_.options_.dir, cs.base),
                         swap_path(log_.options_.dir, cs.base));
  swap->on_shard += std::chrono::steady_clock::now() - swap->started;
  swap->run(
      [fs = &fs, renames, dir = log_.dir_handle_]() -> Status {
        for (const auto& [from, to] : renames)
          STRATA_TRY(fs->rename(from, to));
        return dir->sync_now();
      },
      [this, alive = log_.alive_, swap](Status st) {
        if (*alive) swap_committed(swap, st);
      });
}

void LogCompaction::swap_committed(const std::shared_ptr<Swap>& swap, Status st) {
  auto began = std::chrono::steady_clock::now();
  auto& fs = *log_.options_.fs;
  const auto& segments = swap->result.segments;
  if (!st) {
    // Not committed. Its files go: a `.swap` that outlives them in a crash
    // is completed by recovery, which derives the index again from it.
    for (const auto& cs : segments) {
      (void)fs.remove(swap_path(log_.options_.dir, cs.base));
      (void)fs.remove(cleaned_path(log_.options_.dir, cs.base));
    }
    last_cleaning_ = fmt::format("failed: {}", st.error().message());
    ++failures_;
    spdlog::error("partition {}: cleaning failed: {}", log_.options_.uid, st.error().to_string());
    return end_swap(swap, st.error());
  }
  // 2. On the shard: the log reads the cleaned files (still named `.swap`)
  //    in place of the replaced segments, finding positions in the cleaned
  //    range through the swap's own entries until the index holds them.
  auto swapped = [&]() -> Status {
    for (const auto& cs : segments) {
      STRATA_ASSIGN_OR_RETURN(
          auto file, fs.open(swap_path(log_.options_.dir, cs.base), io::OpenMode::kOpenExisting));
      auto seg = cleaned_segment(cs, std::move(file));
      for (Offset base : cs.replaced)
        log_.segments_.erase(base);
      log_.segments_[cs.base] = std::move(seg);
    }
    return ok_status();
  }();
  if (!swapped) return swap_failed(swap, swapped.error());
  swap->swapped_in = true;
  if (log_.last_entry_ && swapped_in_for(log_.last_entry_->offset)) log_.last_entry_.reset();
  // 3. Off the shard: the index replaced in one synced write; the replaced
  //    segments removed, durably, before a `.swap` takes the first one's
  //    name (a crash must never leave a cleaned segment beside one it
  //    replaced without the `.swap` that tells recovery to remove it, and
  //    the rename never replaces a file). The final renames need no sync of
  //    their own: undone by a crash, they leave the `.swap` files recovery
  //    completes; the log's next sync covers them.
  index::IndexStore::Cleaned ic;
  ic.from = segments.front().base;
  ic.to = segments.back().next_offset;
  std::vector<std::filesystem::path> removed;
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> renames;
  for (const auto& cs : segments) {
    ic.entries.insert(ic.entries.end(), cs.entries.begin(), cs.entries.end());
    ic.segments.emplace_back(cs.base, cs.meta);
    ic.removed_segments.insert(ic.removed_segments.end(), cs.replaced.begin() + 1,
                               cs.replaced.end());
    for (Offset base : cs.replaced)
      removed.push_back(log_.options_.dir / segment_file_name(base));
    renames.emplace_back(swap_path(log_.options_.dir, cs.base),
                         log_.options_.dir / segment_file_name(cs.base));
  }
  const auto& plan = swap->plan;
  ic.state = state_;
  ic.state.cleaned_through = plan.end;
  ic.state.last_cleaned_ms = plan.now_ms;
  ic.state.add_pass(plan.end, plan.now_ms, plan.delete_retention_ms);
  ic.dropped_keys = swap->result.removed_tombstones;
  ic.dropped_aborted = swap->result.removed_aborts;
  auto state = ic.state;
  swap->on_shard += std::chrono::steady_clock::now() - began;
  swap->run(
      [fs = &fs, index = log_.options_.index, uid = log_.options_.uid, ic = std::move(ic), removed,
       renames, dir = log_.dir_handle_]() -> Status {
        STRATA_TRY(index->install_cleaned(uid, ic));
        for (const auto& path : removed)
          STRATA_TRY(fs->remove(path));
        STRATA_TRY(dir->sync_now());
        for (const auto& [from, to] : renames)
          STRATA_TRY(fs->rename(from, to));
        return ok_status();
      },
      [this, alive = log_.alive_, swap, state](Status st) {
        if (*alive) swap_installed(swap, st, state);
      });
}

const CleanedSegment* LogCompaction::swapped_in_for(Offset offset) const {
  if (!swap_ || !swap_->swapped_in) return nullptr;
  for (const auto& cs : swap_->result.segments) {
    if (offset >= cs.base && offset < cs.next_offset) return &cs;
  }
  return nullptr;
}

std::shared_ptr<Segment> LogCompaction::cleaned_segment(const CleanedSegment& cs,
                                                        std::unique_ptr<io::File> file) const {
  auto seg = std::make_shared<Segment>();
  seg->base = cs.base;
  seg->file = std::move(file);
  seg->size = seg->synced_size = seg->allocated = seg->written_back = cs.size;
  seg->next_offset = cs.next_offset;
  seg->max_timestamp_through = cs.max_timestamp_through;
  seg->meta = cs.meta;
  seg->created_ms = log_.segments_.at(cs.base)->created_ms;
  return seg;
}

void LogCompaction::swap_installed(const std::shared_ptr<Swap>& swap, Status st,
                                   const index::CompactionState& state) {
  auto began = std::chrono::steady_clock::now();
  if (!st) return swap_failed(swap, st.error());
  state_ = state;
  for (Offset marker : swap->result.removed_aborts)
    log_.producers_.aborted_.erase(marker);
  // The segments read their files under their final names from now on
  // (readers holding the `.swap`-named ones go on reading them).
  auto& fs = *log_.options_.fs;
  for (const auto& cs : swap->result.segments) {
    auto file =
        fs.open(log_.options_.dir / segment_file_name(cs.base), io::OpenMode::kOpenExisting);
    if (!file) return swap_failed(swap, file.error());
    log_.segments_[cs.base] = cleaned_segment(cs, std::move(*file));
  }
  log_.dir_dirty_ = true;
  auto last = log_.options_.index->offset_floor(log_.options_.uid, Offset::max());
  if (!last) return swap_failed(swap, last.error());
  log_.last_entry_ = *last;
  failures_ = 0;
  swap->on_shard += std::chrono::steady_clock::now() - began;
  const auto& s = swap->result.stats;
  last_cleaning_ = fmt::format(
      "cleaned below offset {}: {} -> {} bytes, {} of {} records kept, {} tombstones, {} "
      "aborted records and {} transaction markers removed, in {:.3f} s ({:.1f} MB/s read); "
      "swapped in {:.1f} ms, {:.1f} ms of it on the shard",
      swap->plan.end, s.bytes_read, s.bytes_written, s.records_kept, s.records_read,
      s.tombstones_removed, s.aborted_removed, s.markers_removed, s.seconds,
      s.seconds > 0 ? static_cast<double>(s.bytes_read) / s.seconds / 1e6 : 0.0,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - swap->started)
          .count(),
      std::chrono::duration<double, std::milli>(swap->on_shard).count());
  spdlog::debug("partition {}: {}", log_.options_.uid, last_cleaning_);
  end_swap(swap, true);
}

void LogCompaction::swap_failed(const std::shared_ptr<Swap>& swap, const Error& e) {
  // The cleaning is committed: what failed leaves files or an index that
  // only a restart (recovery completes the swap) sets right.
  log_.fatal_ = e;
  log_.report_storage_error(e);
  last_cleaning_ = fmt::format("failed: {}", e.message());
  ++failures_;
  end_swap(swap, e);
}

void LogCompaction::end_swap(const std::shared_ptr<Swap>& swap, Result<bool> outcome) {
  swap_.reset();
  cleaning_ = false;
  if (delete_after_swap_) {
    delete_after_swap_ = false;
    if (auto st = log_.delete_segments_below(log_.start_offset_); !st) {
      spdlog::error("partition {}: deleting the segments below the log start after a cleaning: {}",
                    log_.options_.uid, st.error().to_string());
    }
  }
  auto waiting = std::move(after_swap_);
  after_swap_.clear();
  for (auto& fn : waiting)
    fn();
  swap->done(std::move(outcome));
  log_.finish_close_if_idle();
}

Result<std::optional<Offset>> LogCompaction::finish_interrupted(std::vector<std::string>& names) {
  auto& fs = *log_.options_.fs;
  const auto& dir = log_.options_.dir;
  std::optional<Offset> rebuild_from;
  std::vector<std::string> kept;
  std::vector<Offset> swaps;
  for (const auto& name : names) {
    std::string_view n = name;
    if (n.ends_with(kCleanedSuffix)) {
      // A cleaning that did not commit: its output goes.
      STRATA_TRY(fs.remove(dir / name));
    } else if (n.ends_with(kSwapSuffix)) {
      auto base = parse_segment_file_name(n.substr(0, n.size() - kSwapSuffix.size()));
      if (!base) return Error(Errc::kCorruption, fmt::format("unexpected file {}", name));
      swaps.push_back(*base);
    } else {
      kept.push_back(name);
    }
  }
  if (swaps.empty()) return rebuild_from;
  std::sort(swaps.begin(), swaps.end());
  for (Offset base : swaps) {
    // The offsets it covers: up to its last batch.
    auto path = swap_path(dir, base);
    STRATA_ASSIGN_OR_RETURN(auto file, fs.open(path, io::OpenMode::kOpenExisting));
    STRATA_ASSIGN_OR_RETURN(uint64_t size, file->size());
    SegmentScanner scan(*file, 0, size);
    Offset end = base;
    while (true) {
      STRATA_ASSIGN_OR_RETURN(auto b, scan.next());
      if (!b) break;
      end = b->header.next_offset();
    }
    if (scan.defect()) {
      return Error(Errc::kCorruption, fmt::format("cleaned file {} is damaged: {}", path.string(),
                                                  scan.defect()->message()));
    }
    file.reset();
    for (auto it = kept.begin(); it != kept.end();) {
      auto b = parse_segment_file_name(*it);
      if (b && *b >= base && *b < end) {
        STRATA_TRY(fs.remove(dir / *it));
        it = kept.erase(it);
      } else {
        ++it;
      }
    }
    STRATA_TRY(fs.rename(path, dir / segment_file_name(base)));
    kept.push_back(segment_file_name(base));
    spdlog::warn("partition {}: completed the cleaning of offsets {}..{} a crash interrupted",
                 log_.options_.uid, base, end);
    if (!rebuild_from) rebuild_from = base;
  }
  STRATA_TRY(log_.dir_handle_->sync_now());
  names = std::move(kept);
  return rebuild_from;
}

}  // namespace strata::engine
