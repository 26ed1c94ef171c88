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

// What recovery's steps hand on to each other.
struct Log::Recovery {
  explicit Recovery(PartitionUid uid) : update(uid) {}
  std::vector<Offset> bases;           // the segment files, in order
  std::optional<Offset> cleaned_from;  // where an interrupted cleaning was finished
  TimestampMs now = 0;
  std::set<Offset> without_meta;         // segments whose timestamps are derived again
  std::optional<index::LogPoint> start;  // where the scan starts
  bool trusted = false;              // a clean start whose markers match the files: nothing scanned
  bool repair = false;               // the index is derived again from the start
  index::IndexStore::Update update;  // the scan's entries not yet written
  size_t entries_in_update = 0;
  std::optional<Offset> cut_segment;  // the segment where a defect was found
  uint64_t cut_position = 0;
  std::set<Offset> scanned_in;  // segments holding batches this scan walked
};

Status Log::recover() {
  Recovery r(options_.uid);
  STRATA_TRY(open_directory(r));
  if (r.bases.empty()) return start_empty();
  STRATA_TRY(open_segments(r));
  STRATA_TRY(choose_scan_start(r));
  STRATA_TRY(load_state_at_start(r));
  STRATA_TRY(scan_from_start(r));
  if (r.cut_segment) STRATA_TRY(cut_at_defect(r));
  STRATA_TRY(drop_empty_tail());
  return finish_recovery(r);
}

// Step 1: the directory (made durable when new), an interrupted cleaning
// finished or dropped, the segment files' names.
Status Log::open_directory(Recovery& r) {
  auto& fs = *options_.fs;
  const PartitionUid uid = options_.uid;
  const auto& dir = options_.dir;
  STRATA_TRY(fs.create_dirs_durably(dir));
  STRATA_ASSIGN_OR_RETURN(auto dir_file, fs.open_dir(dir));
  dir_handle_ = std::move(dir_file);
  STRATA_ASSIGN_OR_RETURN(auto names, fs.list(dir));
  // A cleaning a crash interrupted: finished if it committed (its index is
  // derived again below), dropped if not.
  STRATA_ASSIGN_OR_RETURN(r.cleaned_from, compaction_.finish_interrupted(names));
  for (const auto& name : names) {
    if (auto base = parse_segment_file_name(name)) {
      r.bases.push_back(*base);
    } else if (!name.starts_with(kStartOffsetFile)) {  // and its .tmp
      spdlog::warn("partition {}: ignoring unknown file {}", uid, (dir / name).string());
    }
  }
  std::sort(r.bases.begin(), r.bases.end());
  r.now = options_.clock->now_ms();
  return ok_status();
}

// A new partition, or one whose files are gone: whatever the index still
// holds for this uid describes another history.
Status Log::start_empty() {
  auto& idx = *options_.index;
  const PartitionUid uid = options_.uid;
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

// Step 2: every segment file opened, with its meta record if it has one.
Status Log::open_segments(Recovery& r) {
  auto& fs = *options_.fs;
  auto& idx = *options_.index;
  const PartitionUid uid = options_.uid;
  const auto& dir = options_.dir;
  for (Offset base : r.bases) {
    auto seg = std::make_shared<Segment>();
    seg->base = base;
    STRATA_ASSIGN_OR_RETURN(seg->file,
                            fs.open(dir / segment_file_name(base), io::OpenMode::kOpenExisting));
    STRATA_ASSIGN_OR_RETURN(seg->size, seg->file->size());
    seg->synced_size = seg->size;
    seg->next_offset = base;
    seg->created_ms = r.now;
    segments_[base] = std::move(seg);
  }

  // Every segment written since timestamps are derived has a meta record.
  // One without (written by an older Strata, or whose meta a crash lost)
  // is rescanned with its records' timestamps derived, because the
  // maxTimestamp fields in it are the producers' unchecked claims.
  for (auto& [base, seg] : segments_) {
    STRATA_ASSIGN_OR_RETURN(auto meta, idx.segment_meta(uid, base));
    if (meta) {
      seg->meta = *meta;
    } else {
      r.without_meta.insert(base);
    }
  }
  // Derived again like a segment without meta: the scan starts there.
  if (r.cleaned_from) r.without_meta.insert(*r.cleaned_from);
  return ok_status();
}

// Step 3: where the scan starts (see scan_start_from), or whether a clean
// start lets it scan nothing.
Status Log::choose_scan_start(Recovery& r) {
  auto& idx = *options_.index;
  const PartitionUid uid = options_.uid;
  STRATA_ASSIGN_OR_RETURN(auto applied, idx.applied(uid));
  STRATA_ASSIGN_OR_RETURN(auto rp, idx.recovery_point(uid));
  const auto& last = *segments_.rbegin()->second;
  r.trusted = options_.clean_start && applied && applied->segment == last.base &&
              applied->next_offset >= applied->segment && applied->position.value() == last.size &&
              r.without_meta.empty();
  if (r.trusted) {
    r.start = applied;
  } else {
    STRATA_ASSIGN_OR_RETURN(auto from_applied, scan_start_from(applied));
    // The two markers are often one point: it is read and checked once.
    auto from_rp = from_applied;
    if (rp != applied) {
      STRATA_ASSIGN_OR_RETURN(from_rp, scan_start_from(rp));
    }
    if (from_applied && from_rp)
      r.start = from_applied->next_offset <= from_rp->next_offset ? from_applied : from_rp;
  }
  // Closed segments before the start need their running max timestamp, which
  // the first index entry of the following segment holds. A segment without
  // a meta record is where the scan must start instead.
  if (r.start) {
    for (auto it = segments_.begin(); it != segments_.end() && it->first <= r.start->segment;
         ++it) {
      if (r.without_meta.contains(it->first) && it->first < r.start->segment) {
        TimestampMs before = it == segments_.begin() ? index::kNoTimestamp
                                                     : std::prev(it)->second->max_timestamp_through;
        r.start = index::LogPoint{it->first, it->first, FilePos(0), before, 0};
        r.repair = true;
        break;
      }
      if (it->first == r.start->segment) break;
      auto next = std::next(it);
      STRATA_ASSIGN_OR_RETURN(auto e, idx.offset_floor(uid, next->first));
      if (!e || e->offset != next->first || e->segment != next->first) {
        r.start.reset();
        r.trusted = false;
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
  if (stored_epochs.empty() && has_data && r.start) {
    spdlog::info("partition {}: deriving its leader epochs from its batches, once", uid);
    r.start.reset();
  }
  if (!r.start) {
    r.trusted = false;
    r.repair = true;
    const auto& first = *segments_.begin()->second;
    r.start = index::LogPoint{first.base, first.base, FilePos(0), index::kNoTimestamp, 0};
  }
  return ok_status();
}

// Step 4: the producers, aborted transactions, compaction state and epochs
// as stored; with a repair, the index from the start cut.
Status Log::load_state_at_start(Recovery& r) {
  auto& idx = *options_.index;
  const PartitionUid uid = options_.uid;
  // The producers and aborted transactions as stored: as of the stored
  // applied marker, at or after the start. The scan's batches and markers
  // up to that marker are already in them (ProducerState::last_offset) and
  // change nothing; rewinding them to the start instead could forget a
  // transaction that began before it and ended after it. What the scan
  // does not reach (a defect cut the log) is cut at the end.
  STRATA_TRY(producers_.load());
  if (r.repair) {
    // Entries from the start on are derived again; those written from
    // unchecked timestamps must not survive beside them in the time index.
    STRATA_TRY(idx.truncate(uid, r.start->next_offset, *r.start));
    spdlog::info(
        "partition {}: rebuilding the index from offset {} with timestamps derived from "
        "the records",
        uid, r.start->next_offset);
  }
  applied_ = *r.start;
  recovery_.scanned = !r.trusted;
  // After the repair's cut: the keys the scan enters carry its generation.
  STRATA_ASSIGN_OR_RETURN(compaction_.state_, idx.compaction_state(uid));
  STRATA_TRY(load_epochs(applied_.next_offset));
  return ok_status();
}

// Step 5: every batch from the start checked and its index entries derived
// again, up to the first defect.
Status Log::scan_from_start(Recovery& r) {
  auto& idx = *options_.index;
  const PartitionUid uid = options_.uid;
  for (auto it = segments_.find(r.start->segment); it != segments_.end(); ++it) {
    auto& seg = *it->second;
    uint64_t pos = seg.base == r.start->segment ? r.start->position.value() : 0;
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
      r.cut_segment = seg.base;
      r.cut_position = 0;
      break;
    }
    SegmentScanner scanner(*seg.file, pos, seg.size, /*verify_crc=*/!r.trusted);
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
      if (r.without_meta.contains(seg.base) && !batch->header.control() &&
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
      r.scanned_in.insert(seg.base);
      if (track_entry(seg, batch->position, batch->header, batch->bytes, r.update) &&
          ++r.entries_in_update >= kEntriesPerIndexWrite) {
        r.update.set_applied(applied_);
        STRATA_TRY(idx.write(r.update));
        r.update = index::IndexStore::Update(uid);
        r.entries_in_update = 0;
      }
    }
    if (!defect && scanner.defect()) {
      defect = scanner.defect();
      valid_end = scanner.position();
    }
    if (defect) {
      recovery_.defect = std::move(defect);
      r.cut_segment = seg.base;
      r.cut_position = valid_end;
      break;
    }
    seg.next_offset = applied_.next_offset;
    seg.max_timestamp_through = applied_.max_timestamp;
  }
  return ok_status();
}

// Step 6: the log cut at the defect: the rest of its segment and every later
// segment go.
Status Log::cut_at_defect(Recovery& r) {
  auto& fs = *options_.fs;
  const PartitionUid uid = options_.uid;
  auto it = segments_.find(*r.cut_segment);
  auto& seg = *it->second;
  recovery_.bytes_truncated = seg.size - r.cut_position;
  for (auto later = std::next(it); later != segments_.end();) {
    recovery_.bytes_truncated += later->second->size;
    ++recovery_.segments_removed;
    auto path = later->second->file->path();
    later->second->file.reset();
    STRATA_TRY(fs.remove(path));
    later = segments_.erase(later);
  }
  STRATA_TRY(seg.file->truncate(r.cut_position));
  STRATA_TRY(seg.file->sync_now());
  STRATA_TRY(dir_handle_->sync_now());
  seg.size = r.cut_position;
  seg.synced_size = r.cut_position;
  seg.next_offset = applied_.next_offset;
  seg.max_timestamp_through = applied_.max_timestamp;
  spdlog::warn(
      "partition {}: recovery cut the log at offset {}: {} bytes from position {} of segment "
      "{} and {} later segment(s): {}",
      uid, applied_.next_offset, recovery_.bytes_truncated, r.cut_position, seg.base,
      recovery_.segments_removed, recovery_.defect->to_string());
  return ok_status();
}

// Step 7: an empty last segment that cannot take the next append goes.
Status Log::drop_empty_tail() {
  auto& fs = *options_.fs;
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
  return ok_status();
}

// Step 8: segment metas, aborts and markers stored; the index cut at the
// end; what was scanned made durable and called the recovery point; the
// in-memory state set.
Status Log::finish_recovery(Recovery& r) {
  auto& idx = *options_.index;
  const PartitionUid uid = options_.uid;
  const auto& dir = options_.dir;
  // Segments the scan walked may hold batches written after their meta
  // record (or have none): their last write is taken as now, which can only
  // keep timestamp-less data longer, never delete it early.
  for (auto& [base, seg] : segments_) {
    if (r.scanned_in.contains(base) || r.without_meta.contains(base))
      seg->meta.last_write_ms = r.now;
    if (base >= r.start->segment || r.without_meta.contains(base))
      r.update.set_segment(base, seg->meta);
  }
  // The aborts from the start on, in case a repair's cut took them out of
  // the index (those beyond the end go below).
  for (auto it = producers_.aborted_.from(r.start->next_offset); it != producers_.aborted_.end();
       ++it)
    r.update.add_aborted(it->second);
  if (!r.update.empty()) {
    r.update.set_applied(applied_);
    STRATA_TRY(idx.write(r.update));
  }
  // Entries, markers and producer batches beyond the end describe bytes
  // that are gone; the producers' states are stored as recovery left them.
  STRATA_ASSIGN_OR_RETURN(auto producers, producers_.cut(applied_.next_offset));
  STRATA_TRY(
      idx.truncate(uid, applied_.next_offset, applied_, producers, producers_.aborted_.all()));
  STRATA_ASSIGN_OR_RETURN(compaction_.state_, idx.compaction_state(uid));
  if (!r.trusted) {
    // What was scanned may so far be only in the page cache of a process that
    // crashed; make it durable before calling it the recovery point.
    for (auto& [base, seg] : segments_) {
      if (base >= r.start->segment) STRATA_TRY(seg->file->sync_now());
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
  producers_.forget_in_flight();
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
