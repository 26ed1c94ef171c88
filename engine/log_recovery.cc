// Log::recover: opening a partition directory after a clean or unclean stop.
//
// The scan starts at the earlier of the index's applied marker and its
// recovery point (everything before the recovery point was fdatasync'ed),
// validates every batch from there (length, magic, CRC, offsets moving
// forward), re-derives the index entries, and cuts the log at the first torn
// or corrupt byte: the rest of that segment and every later segment go, and
// so do index entries past the new end. A clean start trusts the markers
// when they match the files and scans nothing.
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "engine/batch_timestamps.h"
#include "engine/log.h"
#include "engine/segment_scanner.h"

namespace strata::engine {
namespace {

constexpr size_t kEntriesPerIndexWrite = 1024;

}  // namespace

Status Log::recover() {
  auto& fs = *options_.fs;
  auto& idx = *options_.index;
  const PartitionUid uid = options_.uid;
  const auto& dir = options_.dir;

  STRATA_ASSIGN_OR_RETURN(bool existed, fs.exists(dir));
  STRATA_TRY(fs.create_dirs(dir));
  if (!existed) {
    // The new directory's own entry must be durable too, or a power cut
    // could take it (and every synced file in it) away.
    STRATA_ASSIGN_OR_RETURN(auto parent,
                            fs.open_dir(dir.parent_path().empty() ? "." : dir.parent_path()));
    STRATA_TRY(parent->sync_now());
  }
  STRATA_ASSIGN_OR_RETURN(auto dir_file, fs.open_dir(dir));
  dir_handle_ = std::move(dir_file);
  STRATA_ASSIGN_OR_RETURN(auto names, fs.list(dir));
  // A cleaning a crash interrupted: finished if it committed (its index is
  // derived again below), dropped if not.
  STRATA_ASSIGN_OR_RETURN(std::optional<Offset> cleaned_from, finish_interrupted_cleaning(names));
  std::vector<Offset> bases;
  for (const auto& name : names) {
    if (auto base = parse_segment_file_name(name)) {
      bases.push_back(*base);
    } else if (!name.starts_with(kStartOffsetFile)) {  // and its .tmp
      spdlog::warn("partition {}: ignoring unknown file {}", uid, (dir / name).string());
    }
  }
  std::sort(bases.begin(), bases.end());
  TimestampMs now = options_.clock->now_ms();

  if (bases.empty()) {
    // A new partition, or one whose files are gone: whatever the index still
    // holds for this uid describes another history.
    STRATA_TRY(idx.drop_partition(uid));
    applied_ = index::LogPoint{Offset(0), Offset(0), FilePos(0), index::kNoTimestamp, 0};
    STRATA_TRY(open_new_segment(Offset(0)));
    index::IndexStore::Update update(uid);
    update.set_applied(applied_);
    STRATA_TRY(idx.write(update));
    STRATA_TRY(dir_handle_->sync_now());
    dir_dirty_ = false;
    return ok_status();
  }

  for (Offset base : bases) {
    auto seg = std::make_shared<Segment>();
    seg->base = base;
    STRATA_ASSIGN_OR_RETURN(seg->file,
                            fs.open(dir / segment_file_name(base), io::OpenMode::kOpenExisting));
    STRATA_ASSIGN_OR_RETURN(seg->size, seg->file->size());
    seg->synced_size = seg->size;
    seg->next_offset = base;
    seg->created_ms = now;
    segments_[base] = std::move(seg);
  }

  // Every segment written since timestamps are derived has a meta record.
  // One without (written by an older Strata, or whose meta a crash lost)
  // is rescanned with its records' timestamps derived, because the
  // maxTimestamp fields in it are the producers' unchecked claims.
  std::set<Offset> without_meta;
  for (auto& [base, seg] : segments_) {
    STRATA_ASSIGN_OR_RETURN(auto meta, idx.segment_meta(uid, base));
    if (meta) {
      seg->meta = *meta;
    } else {
      without_meta.insert(base);
    }
  }
  // Derived again like a segment without meta: the scan starts there.
  if (cleaned_from) without_meta.insert(*cleaned_from);

  // Where to start scanning.
  STRATA_ASSIGN_OR_RETURN(auto applied, idx.applied(uid));
  STRATA_ASSIGN_OR_RETURN(auto rp, idx.recovery_point(uid));
  const auto& last = *segments_.rbegin()->second;
  bool trusted = options_.clean_start && applied && applied->segment == last.base &&
                 applied->next_offset >= applied->segment &&
                 applied->position.value() == last.size && without_meta.empty();
  std::optional<index::LogPoint> start;
  if (trusted) {
    start = applied;
  } else {
    STRATA_ASSIGN_OR_RETURN(auto from_applied, scan_start_from(applied));
    STRATA_ASSIGN_OR_RETURN(auto from_rp, scan_start_from(rp));
    if (from_applied && from_rp)
      start = from_applied->next_offset <= from_rp->next_offset ? from_applied : from_rp;
  }
  // Closed segments before the start need their running max timestamp, which
  // the first index entry of the following segment holds. A segment without
  // a meta record is where the scan must start instead.
  bool repair = false;
  if (start) {
    for (auto it = segments_.begin(); it != segments_.end() && it->first <= start->segment; ++it) {
      if (without_meta.contains(it->first) && it->first < start->segment) {
        TimestampMs before = it == segments_.begin() ? index::kNoTimestamp
                                                     : std::prev(it)->second->max_timestamp_through;
        start = index::LogPoint{it->first, it->first, FilePos(0), before, 0};
        repair = true;
        break;
      }
      if (it->first == start->segment) break;
      auto next = std::next(it);
      STRATA_ASSIGN_OR_RETURN(auto e, idx.offset_floor(uid, next->first));
      if (!e || e->offset != next->first || e->segment != next->first) {
        start.reset();
        trusted = false;
        break;
      }
      it->second->max_timestamp_through = e->max_timestamp_before;
      it->second->next_offset = next->first;
    }
  }
  // Logs written before the epoch cache existed have none: one full scan
  // derives it from their batches.
  STRATA_ASSIGN_OR_RETURN(auto stored_epochs, idx.leader_epochs(uid));
  bool has_data = std::any_of(segments_.begin(), segments_.end(),
                              [](const auto& s) { return s.second->size > 0; });
  if (stored_epochs.empty() && has_data && start) {
    spdlog::info("partition {}: deriving its leader epochs from its batches, once", uid);
    start.reset();
  }
  if (!start) {
    trusted = false;
    repair = true;
    const auto& first = *segments_.begin()->second;
    start = index::LogPoint{first.base, first.base, FilePos(0), index::kNoTimestamp, 0};
  }
  // The producers and aborted transactions as stored: as of the stored
  // applied marker, at or after the start. The scan's batches and markers
  // up to that marker are already in them (ProducerState::last_offset) and
  // change nothing; rewinding them to the start instead could forget a
  // transaction that began before it and ended after it. What the scan
  // does not reach (a defect cut the log) is cut at the end.
  STRATA_TRY(load_producers());
  STRATA_TRY(load_aborted());
  if (repair) {
    // Entries from the start on are derived again; those written from
    // unchecked timestamps must not survive beside them in the time index.
    STRATA_TRY(idx.truncate(uid, start->next_offset, *start));
    spdlog::info(
        "partition {}: rebuilding the index from offset {} with timestamps derived from "
        "the records",
        uid, start->next_offset);
  }
  applied_ = *start;
  recovery_.scanned = !trusted;
  // After the repair's cut: the keys the scan enters carry its generation.
  STRATA_ASSIGN_OR_RETURN(compaction_, idx.compaction_state(uid));
  STRATA_TRY(load_epochs(applied_.next_offset));

  // Scan forward from the start, re-deriving index entries.
  index::IndexStore::Update update(uid);
  size_t entries_in_update = 0;
  std::optional<Offset> cut_segment;  // the segment where a defect was found
  uint64_t cut_position = 0;
  std::set<Offset> scanned_in;  // segments holding batches this scan walked
  for (auto it = segments_.find(start->segment); it != segments_.end(); ++it) {
    auto& seg = *it->second;
    uint64_t pos = seg.base == start->segment ? start->position.value() : 0;
    // A segment is named for the end of the one before it (compaction keeps
    // each segment's last batch): a later name means the bytes before it
    // were lost — a later segment's sync (started by a roll) completed
    // while the tail of the one before it was still unsynced when the
    // power went — and an earlier one overlapping bytes.
    if (pos == 0 && it != segments_.begin() && seg.base != applied_.next_offset &&
        (seg.base < applied_.next_offset || seg.size > 0)) {
      recovery_.defect = Error(Errc::kCorruption,
                               fmt::format("segment {} does not begin where the log before it ends "
                                           "(offset {})",
                                           seg.base, applied_.next_offset));
      cut_segment = seg.base;
      cut_position = 0;
      break;
    }
    SegmentScanner scanner(*seg.file, pos, seg.size, /*verify_crc=*/!trusted);
    std::optional<Error> defect;
    uint64_t valid_end = 0;
    while (true) {
      STRATA_ASSIGN_OR_RETURN(auto batch, scanner.next());
      if (!batch) break;
      if (batch->header.base_offset < applied_.next_offset) {
        // Overlapping bytes. Offsets above the expected one are a hole
        // compaction left (or a follower copied from its leader); a torn
        // write inside a segment fails the batch checks instead.
        defect = Error(Errc::kCorruption,
                       fmt::format("batch at position {} of segment {} has offset {}, below "
                                   "the expected {}",
                                   batch->position, seg.base, batch->header.base_offset,
                                   applied_.next_offset));
        valid_end = batch->position;
        break;
      }
      recovery_.bytes_scanned += batch->bytes.size();
      ++recovery_.batches_scanned;
      if (without_meta.contains(seg.base) && !batch->header.control() &&
          !batch->header.log_append_time()) {
        auto derived =
            derive_max_timestamp(batch->bytes, batch->header, std::nullopt, /*compacted=*/true);
        if (!derived) {
          defect = derived.error();
          valid_end = batch->position;
          break;
        }
        batch->header.max_timestamp = *derived;
      }
      scanned_in.insert(seg.base);
      if (track_entry(seg, batch->position, batch->header, batch->bytes, update) &&
          ++entries_in_update >= kEntriesPerIndexWrite) {
        update.set_applied(applied_);
        STRATA_TRY(idx.write(update));
        update = index::IndexStore::Update(uid);
        entries_in_update = 0;
      }
    }
    if (!defect && scanner.defect()) {
      defect = scanner.defect();
      valid_end = scanner.position();
    }
    if (defect) {
      recovery_.defect = std::move(defect);
      cut_segment = seg.base;
      cut_position = valid_end;
      break;
    }
    seg.next_offset = applied_.next_offset;
    seg.max_timestamp_through = applied_.max_timestamp;
  }

  if (cut_segment) {
    auto it = segments_.find(*cut_segment);
    auto& seg = *it->second;
    recovery_.bytes_truncated = seg.size - cut_position;
    for (auto later = std::next(it); later != segments_.end();) {
      recovery_.bytes_truncated += later->second->size;
      ++recovery_.segments_removed;
      auto path = later->second->file->path();
      later->second->file.reset();
      STRATA_TRY(fs.remove(path));
      later = segments_.erase(later);
    }
    STRATA_TRY(seg.file->truncate(cut_position));
    STRATA_TRY(seg.file->sync_now());
    STRATA_TRY(dir_handle_->sync_now());
    seg.size = cut_position;
    seg.synced_size = cut_position;
    seg.next_offset = applied_.next_offset;
    seg.max_timestamp_through = applied_.max_timestamp;
    spdlog::warn(
        "partition {}: recovery cut the log at offset {}: {} bytes from position {} of segment "
        "{} and {} later segment(s): {}",
        uid, applied_.next_offset, recovery_.bytes_truncated, cut_position, seg.base,
        recovery_.segments_removed, recovery_.defect->to_string());
  }

  // An empty last segment that starts beyond the end (its predecessor lost
  // its tail) cannot take the next append.
  while (segments_.size() > 1) {
    auto& tail = *segments_.rbegin()->second;
    if (tail.size != 0 || tail.base == applied_.next_offset) break;
    auto path = tail.file->path();
    tail.file.reset();
    STRATA_TRY(fs.remove(path));
    segments_.erase(std::prev(segments_.end()));
    ++recovery_.segments_removed;
  }
  if (segments_.rbegin()->second->size == 0) {
    segments_.rbegin()->second->next_offset = applied_.next_offset;
    if (segments_.rbegin()->first != applied_.next_offset) {
      // The only segment is empty but named for another offset.
      auto path = segments_.rbegin()->second->file->path();
      segments_.clear();
      STRATA_TRY(fs.remove(path));
      STRATA_TRY(open_new_segment(applied_.next_offset));
    }
  }

  // Segments the scan walked may hold batches written after their meta
  // record (or have none): their last write is taken as now, which can only
  // keep timestamp-less data longer, never delete it early.
  for (auto& [base, seg] : segments_) {
    if (scanned_in.contains(base) || without_meta.contains(base)) seg->meta.last_write_ms = now;
    if (base >= start->segment || without_meta.contains(base)) update.set_segment(base, seg->meta);
  }
  // The aborts from the start on, in case a repair's cut took them out of
  // the index (those beyond the end go below).
  for (auto it = aborted_.lower_bound(start->next_offset); it != aborted_.end(); ++it)
    update.add_aborted(it->second);
  if (!update.empty()) {
    update.set_applied(applied_);
    STRATA_TRY(idx.write(update));
  }
  // Entries, markers and producer batches beyond the end describe bytes
  // that are gone; the producers' states are stored as recovery left them.
  STRATA_ASSIGN_OR_RETURN(auto producers, cut_producers(applied_.next_offset));
  STRATA_TRY(idx.truncate(uid, applied_.next_offset, applied_, producers, aborted_records()));
  STRATA_ASSIGN_OR_RETURN(compaction_, idx.compaction_state(uid));
  if (!trusted) {
    // What was scanned may so far be only in the page cache of a process that
    // crashed; make it durable before calling it the recovery point.
    for (auto& [base, seg] : segments_) {
      if (base >= start->segment) STRATA_TRY(seg->file->sync_now());
    }
    STRATA_TRY(dir_handle_->sync_now());
    STRATA_TRY(idx.set_recovery_point(uid, applied_));
  }
  dir_dirty_ = false;

  // Restore the cache of the last index entry for tail reads.
  STRATA_ASSIGN_OR_RETURN(last_entry_, idx.offset_floor(uid, Offset::max()));

  for (auto& [base, seg] : segments_)
    seg->cache_dropped = seg->size;
  start_offset_ = segments_.begin()->first;
  next_offset_ = end_offset_ = durable_offset_ = applied_.next_offset;
  producers_ = committed_producers_;
  STRATA_TRY(load_start_offset());
  active_assigned_ = segments_.rbegin()->second->size;
  if (recovery_.scanned) {
    spdlog::info("partition {}: recovered {} batches ({} bytes) in {}; log {}..{}", uid,
                 recovery_.batches_scanned, recovery_.bytes_scanned, dir.string(), start_offset_,
                 end_offset_);
  }
  return ok_status();
}

// The markers are written without a WAL, so a crash can bring back ones
// older than a cleaning's swap (which is synced): their byte position then
// lies in a rewritten, perhaps merged, file, where it may fall inside a
// batch, and a scan from there would take the bytes of that batch for a
// length and cut the log. A marker is taken only where the batch it names
// is there, intact.
Result<std::optional<index::LogPoint>> Log::scan_start_from(
    const std::optional<index::LogPoint>& p) {
  if (!p || p->next_offset < p->segment) return std::optional<index::LogPoint>();
  auto it = segments_.upper_bound(p->segment);
  if (it == segments_.begin()) return std::optional<index::LogPoint>();
  --it;  // the segment holding the marker's offsets: its own, or the one a cleaning merged it into
  Segment& seg = *it->second;
  uint64_t pos = p->position.value();
  if (seg.base == p->segment && pos <= seg.size) {
    if (pos == seg.size) {
      auto next = std::next(it);
      if (next == segments_.end() || next->first == p->next_offset) return p;
    } else {
      SegmentScanner scan(*seg.file, pos, seg.size, /*verify_crc=*/true);
      STRATA_ASSIGN_OR_RETURN(auto batch, scan.next());
      if (batch && batch->header.base_offset == p->next_offset) return p;
    }
  }
  TimestampMs before = index::kNoTimestamp;
  if (it != segments_.begin()) {
    STRATA_ASSIGN_OR_RETURN(auto e, options_.index->offset_floor(options_.uid, seg.base));
    if (!e || e->offset != seg.base || e->segment != seg.base)
      return std::optional<index::LogPoint>();
    before = e->max_timestamp_before;
  }
  spdlog::info(
      "partition {}: the stored marker (offset {}, segment {}, position {}) is not at a batch of "
      "the files as they are; scanning segment {} from its start",
      options_.uid, p->next_offset, p->segment, pos, seg.base);
  return std::optional<index::LogPoint>(index::LogPoint{seg.base, seg.base, FilePos(0), before, 0});
}

}  // namespace strata::engine
