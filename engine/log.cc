#include "engine/log.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>

#include <boost/asio/post.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "engine/batch_timestamps.h"

namespace strata::engine {

// An append whose offsets are assigned and whose bytes wait to be written.
struct Log::PendingAppend {
  SharedBytes batch;
  BatchHeader header;  // as stamped
  std::shared_ptr<Segment> segment;
  uint64_t position = 0;
  AppendCallback done;
};

// One writev of consecutive appends into one segment.
struct Log::WriteOp {
  std::shared_ptr<Segment> segment;
  uint64_t position = 0;
  uint64_t length = 0;
  uint64_t written = 0;
  std::vector<iovec> iov;
  std::vector<PendingAppend> appends;
  bool done = false;
  std::optional<Error> error;
};

Log::Log(const LogOptions& options) : options_(options) {}

Log::~Log() {
  *alive_ = false;
}

Result<std::unique_ptr<Log>> Log::open(const LogOptions& options) {
  STRATA_CHECK(options.fs && options.index && options.clock && options.io,
               "LogOptions for {} lacks a dependency", options.dir.string());
  std::unique_ptr<Log> log(new Log(options));
  STRATA_TRY(log->recover());
  return log;
}

void Log::post(std::function<void()> fn) {
  boost::asio::post(*options_.io, [alive = alive_, fn = std::move(fn)] {
    if (*alive) fn();
  });
}

Status Log::open_new_segment(Offset base) {
  auto path = options_.dir / segment_file_name(base);
  STRATA_ASSIGN_OR_RETURN(auto file, options_.fs->open(path, io::OpenMode::kCreateNew));
  auto seg = std::make_shared<Segment>();
  seg->base = base;
  seg->file = std::move(file);
  seg->next_offset = base;
  seg->max_timestamp_through = applied_.max_timestamp;
  seg->created_ms = options_.clock->now_ms();
  seg->meta.last_write_ms = seg->created_ms;
  segments_[base] = std::move(seg);
  active_assigned_ = 0;
  dir_dirty_ = true;
  return ok_status();
}

bool Log::should_roll(const Segment& active, size_t batch_bytes) const {
  if (active_assigned_ == 0) return false;
  if (active_assigned_ + batch_bytes > static_cast<uint64_t>(options_.config.segment_bytes)) {
    return true;
  }
  return options_.clock->now_ms() - active.created_ms >= options_.config.segment_ms;
}

Result<BatchHeader> Log::check_append(std::span<const std::byte> batch,
                                      const AppendOptions& options) const {
  const auto& cfg = options_.config;
  BatchLimits limits;
  limits.max_batch_bytes = static_cast<size_t>(cfg.max_message_bytes);
  limits.allow_control = options.allow_control;
  limits.require_zero_base_offset = options.from_client && !options.keep_offsets;
  // The records of a data batch are walked once, below (which checks what
  // validate_batch's walk would), whoever wrote it; only the broker's own
  // control batches, which skip that walk, are checked by validate_batch (a
  // follower's copy was checked by its leader).
  bool control = batch.size() >= kBatchHeaderSize && read_batch_header(batch.data()).control();
  limits.check_records = control && options.allow_control && !options.keep_offsets;
  // A leader's cleaned batches: records removed, offsets kept.
  limits.allow_compacted = options.keep_offsets;
  STRATA_ASSIGN_OR_RETURN(BatchHeader header, validate_batch(batch, limits));
  if (header.control()) return header;
  // The records are walked (and decompressed) whatever the timestamp type:
  // it checks what validate_batch cannot see inside a compressed batch.
  std::optional<TimestampLimits> window;
  bool create_time = cfg.timestamp_type == TimestampType::kCreateTime;
  if (create_time && !options.keep_offsets) {
    window = TimestampLimits{options_.clock->now_ms(), cfg.timestamp_before_max_ms(),
                             cfg.timestamp_after_max_ms()};
  }
  STRATA_ASSIGN_OR_RETURN(TimestampMs max_ts,
                          derive_max_timestamp(batch, header, window, options.keep_offsets));
  // A leader's cleaned batch keeps the maxTimestamp its records had (the
  // leader derived it before the cleaner took some): the copy stays the
  // leader's bytes.
  bool cleaned = static_cast<int64_t>(header.last_offset_delta) + 1 != header.records_count;
  if (create_time && !(options.keep_offsets && cleaned)) header.max_timestamp = max_ts;
  return header;
}

namespace {
// Blocks are reserved ahead of the active segment's appends, 32 MiB at a
// time: sixteen partitions growing side by side otherwise interleave their
// delayed allocations, each sync then allocating blocks and writing the
// extent tree, bitmaps and inode, and the files fragment into an extent
// every few megabytes (BENCHMARKS.md, issue 10: without it one mission run
// in five missed the p99.9 target and the broker's CPU crept up). A
// segment reserves nothing until it holds 1 MiB, so thousands of small or
// idle partitions do not fill the disk with reservations.
constexpr uint64_t kPreallocateAfter = 1 << 20;
constexpr uint64_t kPreallocateChunk = 32 << 20;
}  // namespace

void Log::preallocate(Segment& active) {
  auto limit = static_cast<uint64_t>(options_.config.segment_bytes);
  if (active_assigned_ < kPreallocateAfter || active.allocated >= limit ||
      active_assigned_ + kPreallocateChunk / 2 < active.allocated) {
    return;
  }
  uint64_t from = std::max(active.allocated, active_assigned_);
  uint64_t len = std::min(kPreallocateChunk, limit - std::min(limit, from));
  if (len == 0) return;
  active.allocated = from + len;
  active.file->allocate(from, len, [uid = options_.uid](Status st) {
    // Only a hint: the appends allocate their own blocks if this failed.
    if (!st) spdlog::debug("partition {}: {}", uid, st.error().to_string());
  });
}

namespace {
// Page cache drops are page-aligned, so that no page straddles two drops
// (the kernel keeps partial pages).
constexpr uint64_t kPageSize = 4096;
}  // namespace

Log::ColdEnd Log::cold_end(const Segment& seg, uint64_t limit, uint64_t after, bool active) const {
  const uint64_t window = options_.cache_window_bytes;
  uint64_t keep = window > after ? window - after : 0;
  uint64_t end = std::min(limit, seg.size - std::min(seg.size, keep));
  bool whole = end == seg.size && !active;
  if (!whole) end -= end % kPageSize;
  return {end, whole};
}

void Log::drop_cold_cache() {
  if (options_.cache_window_bytes == 0) return;
  uint64_t after = 0;  // bytes of the log after the segment being looked at
  for (auto it = segments_.rbegin(); it != segments_.rend(); ++it) {
    Segment& seg = *it->second;
    if (seg.size > 0 && seg.cache_dropped >= seg.size) break;  // so were the earlier ones
    auto [cold, whole] =
        cold_end(seg, std::max(seg.synced_size, seg.written_back), after, it == segments_.rbegin());
    if (cold > seg.cache_dropped &&
        (whole || cold - seg.cache_dropped >= options_.cache_drop_chunk_bytes)) {
      seg.file->drop_cache(seg.cache_dropped, cold - seg.cache_dropped,
                           [uid = options_.uid, keep_alive = it->second](Status st) {
                             // Only a hint: the pages stay cached if it failed.
                             if (!st)
                               spdlog::debug("partition {}: {}", uid, st.error().to_string());
                           });
      seg.cache_dropped = cold;
    }
    after += seg.size;
  }
}

void Log::write_back_cold() {
  if (options_.cache_window_bytes == 0 || options_.config.durability == Durability::kFsync) return;
  // Topics that are not synced with every write keep their bytes dirty
  // until a roll syncs a segment: without this the cache would grow with
  // fresh pages (the cold kind, see drop_cold_cache) instead of recycling.
  uint64_t after = 0;
  for (auto it = segments_.rbegin(); it != segments_.rend(); ++it) {
    Segment& seg = *it->second;
    uint64_t from = std::max(seg.synced_size, seg.written_back);
    if (seg.size > 0 && from >= seg.size) break;  // so were the earlier ones
    auto [cold, whole] = cold_end(seg, seg.size, after, it == segments_.rbegin());
    after += seg.size;
    if (seg.writing_back || cold <= from ||
        (!whole && cold - from < options_.cache_drop_chunk_bytes))
      continue;
    seg.writing_back = true;
    ++write_backs_in_flight_;
    seg.file->write_back(
        from, cold - from, [this, alive = alive_, keep_alive = it->second, cold](Status st) {
          keep_alive->writing_back = false;
          if (!*alive) return;
          --write_backs_in_flight_;
          if (st) {
            keep_alive->written_back = std::max(keep_alive->written_back, cold);
            drop_cold_cache();
          } else {
            // Only a hint: the pages stay cached.
            spdlog::debug("partition {}: {}", options_.uid, st.error().to_string());
          }
          finish_close_if_idle();
        });
  }
  // Clean bytes (synced at a roll, or written back) that moved out of the
  // window since.
  drop_cold_cache();
}

Status Log::append(SharedBytes batch, const AppendOptions& options, AppendCallback done) {
  if (closing_) return Error(Errc::kShutdown, "log is closing");
  if (fatal_) return Error(Errc::kLogFailed, fatal_->message());
  if (failing_) return Error(Errc::kLogFailed, "an earlier write failed; retry");
  STRATA_ASSIGN_OR_RETURN(BatchHeader header, check_append(batch.span(), options));
  // A client's idempotent batch is checked against its producer's epoch
  // and sequence; the broker's own (a transactional offset commit written
  // for a producer, as Kafka's coordinator writes it) against its epoch only.
  if (idempotent(header) && !options.keep_offsets && !options.from_client) {
    STRATA_TRY(producers_.accepted_.check_epoch(header));
  } else if (idempotent(header) && !options.keep_offsets) {
    STRATA_ASSIGN_OR_RETURN(auto verdict, producers_.accepted_.check(header));
    if (verdict.duplicate) {
      answer_duplicate(*verdict.duplicate, std::move(done));
      return ok_status();
    }
  }
  if (header.max_timestamp != be::load<int64_t>(batch.data() + batch_field::kMaxTimestamp)) {
    // The producer's field is replaced by what its records say, as Kafka's
    // validator does: nothing downstream trusts a claim the broker did not
    // check.
    set_max_timestamp(batch.span(), header.max_timestamp);
  }

  auto active = segments_.rbegin()->second;
  if (should_roll(*active, batch.size())) {
    if (auto st = open_new_segment(next_offset_); !st) {
      report_storage_error(st.error());
      return st;
    }
    active = segments_.rbegin()->second;
    // Sync the closed segment in the background so the recovery point moves
    // past it and a crash never rescans more than the active segment.
    flush_waiters_.push_back(FlushWaiter{next_offset_, [](Status) {}});
    maybe_start_sync();
  }
  if (options.keep_offsets) {
    // The leader's batch as it wrote it: its offsets continue this log.
    // At or beyond the log end: a compacted leader's log has holes.
    if (header.base_offset < next_offset_) {
      return Error(Errc::kInvalidArgument,
                   fmt::format("a follower's batch at offset {} does not continue the log at {}",
                               header.base_offset, next_offset_));
    }
    if (auto latest = epochs_.latest(); latest && header.leader_epoch.value() < *latest) {
      return Error(Errc::kInvalidArgument,
                   fmt::format("a follower's batch of leader epoch {} after epoch {}",
                               header.leader_epoch, *latest));
    }
  } else {
    set_base_offset(batch.data(), next_offset_);
    set_leader_epoch(batch.data(), options.leader_epoch);
    header.base_offset = next_offset_;
    header.leader_epoch = options.leader_epoch;
  }
  if (options_.config.timestamp_type == TimestampType::kLogAppendTime && !header.control() &&
      !options.keep_offsets) {
    TimestampMs now = options_.clock->now_ms();
    set_log_append_time(batch.span(), now);
    header = read_batch_header(batch.data());
  }
  if (header.control() && header.producer_id >= 0) {
    // A transaction marker: checked when the broker writes it, recorded
    // when a follower copies it.
    STRATA_ASSIGN_OR_RETURN(auto marker, read_marker(batch.span()));
    if (marker) {
      if (!options.keep_offsets) STRATA_TRY(producers_.accepted_.check_marker(*marker));
      producers_.accepted_.apply_marker(*marker, header.base_offset, header.max_timestamp);
    }
  } else {
    producers_.accepted_.apply(header, header.max_timestamp);
  }
  pending_.push_back(
      PendingAppend{std::move(batch), header, active, active_assigned_, std::move(done)});
  active_assigned_ += header.total_size();
  preallocate(*active);
  next_offset_ = header.next_offset();
  schedule_dispatch();
  return ok_status();
}

void Log::report_storage_error(const Error& e) {
  if (options_.on_storage_error) options_.on_storage_error(e);
}

void Log::schedule_dispatch() {
  if (dispatch_scheduled_) return;
  dispatch_scheduled_ = true;
  post([this] { dispatch(); });
}

void Log::dispatch() {
  dispatch_scheduled_ = false;
  if (pending_.empty()) return;
  if (failing_) {
    // Everything queued after a failed write is rolled back with it, once
    // the writes before it completed (commit_completed does it then): the
    // rollback cuts the files back, and must not cut under a write that is
    // still to commit.
    if (writes_.empty()) after_failed_writes();
    return;
  }
  constexpr size_t kMaxIov = IOV_MAX;
  auto pending = std::move(pending_);
  pending_.clear();
  size_t i = 0;
  while (i < pending.size()) {
    auto op = std::make_shared<WriteOp>();
    op->segment = pending[i].segment;
    op->position = pending[i].position;
    while (i < pending.size() && pending[i].segment == op->segment &&
           op->appends.size() < kMaxIov) {
      auto& a = pending[i];
      op->iov.push_back(iovec{a.batch.data(), a.batch.size()});
      op->length += a.batch.size();
      op->appends.push_back(std::move(a));
      ++i;
    }
    writes_.push_back(op);
    op->segment->file->write_at(op->position, op->iov,
                                [this, op, alive = alive_](Result<size_t> r) {
                                  if (*alive) on_write_done(op, std::move(r));
                                });
  }
}

void Log::on_write_done(const std::shared_ptr<WriteOp>& op, Result<size_t> result) {
  if (result.ok() && *result == 0 && op->written < op->length) {
    result = Error(Errc::kIoError,
                   fmt::format("write to {} made no progress", op->segment->file->path().string()));
  }
  if (!result.ok()) {
    spdlog::error("partition {}: {}", options_.uid, result.error().to_string());
    report_storage_error(result.error());
    op->error = std::move(result).error();
    op->done = true;
    failing_ = true;
    commit_completed();
    return;
  }
  op->written += *result;
  if (op->written < op->length) {
    // A short write: continue with the rest.
    size_t skip = *result;
    auto it = op->iov.begin();
    while (skip > 0 && skip >= it->iov_len) {
      skip -= it->iov_len;
      ++it;
    }
    op->iov.erase(op->iov.begin(), it);
    op->iov.front().iov_base = static_cast<std::byte*>(op->iov.front().iov_base) + skip;
    op->iov.front().iov_len -= skip;
    op->segment->file->write_at(op->position + op->written, op->iov,
                                [this, op, alive = alive_](Result<size_t> r) {
                                  if (*alive) on_write_done(op, std::move(r));
                                });
    return;
  }
  op->done = true;
  commit_completed();
}

bool Log::track_entry(Segment& seg, uint64_t position, const BatchHeader& h,
                      std::span<const std::byte> bytes, index::IndexStore::Update& update) {
  bool add = position == 0 || applied_.bytes_since_entry >=
                                  static_cast<uint64_t>(options_.config.index_interval_bytes);
  if (add) {
    index::IndexEntry e{h.base_offset, seg.base, FilePos(position), applied_.max_timestamp};
    update.add(e);
    last_entry_ = e;
    applied_.bytes_since_entry = 0;
  }
  applied_.bytes_since_entry += h.total_size();
  track_epoch(h, update);
  producers_.track(h, bytes, update);
  compaction_.track_keys(h, bytes, update);
  applied_.max_timestamp = std::max(applied_.max_timestamp, h.max_timestamp);
  seg.meta.max_timestamp = std::max(seg.meta.max_timestamp, h.max_timestamp);
  applied_.next_offset = h.next_offset();
  applied_.segment = seg.base;
  applied_.position = FilePos(position + h.total_size());
  return add;
}

void Log::commit_completed() {
  index::IndexStore::Update update(options_.uid);
  std::vector<std::pair<AppendCallback, Result<AppendResult>>> results;
  const int64_t now = options_.clock->now_ms();
  while (!writes_.empty() && writes_.front()->done) {
    auto op = std::move(writes_.front());
    writes_.pop_front();
    if (op->error) rolling_back_ = true;
    for (auto& a : op->appends) {
      if (rolling_back_) {
        results.emplace_back(
            std::move(a.done),
            Error(Errc::kLogFailed, op->error ? op->error->message() : "an earlier write failed"));
        continue;
      }
      auto& seg = *a.segment;
      track_entry(seg, a.position, a.header, a.batch.span(), update);
      seg.size = a.position + a.header.total_size();
      seg.next_offset = a.header.next_offset();
      seg.max_timestamp_through = applied_.max_timestamp;
      seg.meta.last_write_ms = now;
      update.set_segment(seg.base, seg.meta);
      end_offset_ = a.header.next_offset();
      TimestampMs lat = a.header.log_append_time() ? a.header.max_timestamp : -1;
      results.emplace_back(std::move(a.done),
                           AppendResult{a.header.base_offset, a.header.last_offset(), lat});
    }
  }
  if (!duplicates_.empty()) settle_duplicates(results);
  if (!results.empty()) {
    update.set_applied(applied_);
    if (auto st = options_.index->write(update); !st) {
      // The index is derived data: a lost entry only makes lookups scan
      // further, and recovery rebuilds it from the log.
      spdlog::error("partition {}: index write failed: {}", options_.uid, st.error().to_string());
    }
  }
  if (writes_.empty() && failing_) after_failed_writes();
  for (auto& [done, result] : results)
    done(std::move(result));
  write_back_cold();
  maybe_start_sync();
  finish_close_if_idle();
}

void Log::after_failed_writes() {
  // Every write after the last committed batch failed or was abandoned: cut
  // the files back to what readers have seen, forget segments created for
  // the abandoned appends, and take appends again.
  for (auto it = segments_.begin(); it != segments_.end();) {
    auto& seg = it->second;
    if (seg->base > end_offset_) {
      auto path = seg->file->path();
      seg->file.reset();
      if (auto st = options_.fs->remove(path); !st) {
        spdlog::error("partition {}: {}", options_.uid, st.error().to_string());
      }
      it = segments_.erase(it);
      continue;
    }
    if (auto st = seg->file->truncate(seg->size); !st) {
      spdlog::error("partition {}: {}", options_.uid, st.error().to_string());
    }
    ++it;
  }
  std::vector<AppendCallback> abandoned;
  for (auto& a : pending_)
    abandoned.push_back(std::move(a.done));
  pending_.clear();
  // Retries waiting for a batch that was not written: the producer sends
  // them again, and the state forgets what was rolled back.
  for (auto& w : duplicates_)
    abandoned.push_back(std::move(w.done));
  duplicates_.clear();
  producers_.forget_in_flight();
  active_assigned_ = segments_.rbegin()->second->size;
  next_offset_ = end_offset_;
  failing_ = false;
  rolling_back_ = false;
  for (auto& w : flush_waiters_)
    w.target = std::min(w.target, end_offset_);
  for (auto& done : abandoned)
    done(Error(Errc::kLogFailed, "an earlier write failed"));
}

void Log::flush(FlushCallback done) {
  if (fatal_) {
    post([done = std::move(done), err = *fatal_] { done(err); });
    return;
  }
  if (next_offset_ <= durable_offset_) {
    post([done = std::move(done)] { done(ok_status()); });
    return;
  }
  flush_waiters_.push_back(FlushWaiter{next_offset_, std::move(done)});
  maybe_start_sync();
}

void Log::maybe_start_sync() {
  if (sync_in_flight_ || flush_waiters_.empty() || fatal_) return;
  if (end_offset_ <= durable_offset_) {
    // Waiters whose batches were rolled back are satisfied by what exists.
    while (!flush_waiters_.empty() && flush_waiters_.front().target <= durable_offset_) {
      auto w = std::move(flush_waiters_.front());
      flush_waiters_.pop_front();
      w.done(ok_status());
    }
    return;
  }
  sync_in_flight_ = true;
  struct SyncState {
    Offset target;
    index::LogPoint point;
    std::vector<std::pair<std::shared_ptr<Segment>, uint64_t>> segments;
    bool dir = false;
    size_t remaining = 0;
    std::optional<Error> error;
  };
  auto state = std::make_shared<SyncState>();
  state->target = end_offset_;
  state->point = applied_;
  for (auto& [base, seg] : segments_) {
    if (seg->synced_size < seg->size) state->segments.emplace_back(seg, seg->size);
  }
  state->dir = dir_dirty_;
  dir_dirty_ = false;
  state->remaining = state->segments.size() + (state->dir ? 1 : 0);

  auto finish = [this, state] {
    sync_in_flight_ = false;
    if (state->error) {
      // After a failed fsync the page cache no longer tells what is on disk;
      // the only safe course is to stop writing until the log is reopened.
      spdlog::error("partition {}: sync failed, log stops taking writes: {}", options_.uid,
                    state->error->to_string());
      fatal_ = state->error;
      report_storage_error(*state->error);
      auto waiters = std::move(flush_waiters_);
      flush_waiters_.clear();
      for (auto& w : waiters)
        w.done(*state->error);
      finish_close_if_idle();
      return;
    }
    ++fsyncs_;
    durable_offset_ = state->target;
    for (auto& [seg, size] : state->segments)
      seg->synced_size = std::max(seg->synced_size, size);
    drop_cold_cache();
    if (auto st = options_.index->set_recovery_point(options_.uid, state->point); !st) {
      spdlog::error("partition {}: {}", options_.uid, st.error().to_string());
    }
    std::vector<FlushCallback> ready;
    while (!flush_waiters_.empty() && flush_waiters_.front().target <= durable_offset_) {
      ready.push_back(std::move(flush_waiters_.front().done));
      flush_waiters_.pop_front();
    }
    for (auto& done : ready)
      done(ok_status());
    maybe_start_sync();
    finish_close_if_idle();
  };
  if (state->remaining == 0) {
    post(finish);
    return;
  }
  auto one_done = [this, state, finish, alive = alive_](Status st) {
    if (!*alive) return;
    if (!st && !state->error) state->error = std::move(st).error();
    if (--state->remaining == 0) finish();
  };
  for (auto& [seg, size] : state->segments) {
    seg->file->sync([seg = seg, one_done](Status st) { one_done(std::move(st)); });
  }
  if (state->dir) {
    dir_handle_->sync([dir = dir_handle_, one_done](Status st) { one_done(std::move(st)); });
  }
}

Status Log::load_start_offset() {
  auto path = options_.dir / kStartOffsetFile;
  STRATA_ASSIGN_OR_RETURN(bool exists, options_.fs->exists(path));
  if (!exists) return ok_status();
  STRATA_ASSIGN_OR_RETURN(auto file, options_.fs->open(path, io::OpenMode::kOpenExisting));
  std::array<std::byte, 32> buf{};
  STRATA_ASSIGN_OR_RETURN(size_t n, file->pread(0, buf));
  std::string text(reinterpret_cast<const char*>(buf.data()), n);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || v < 0) {
    // Never trust a damaged marker to hide data: fall back to the segments.
    spdlog::warn("partition {}: ignoring unreadable {}", options_.uid, path.string());
    return ok_status();
  }
  start_offset_ = std::clamp(Offset(v), start_offset_, end_offset_);
  return ok_status();
}

Status Log::store_start_offset() {
  auto path = options_.dir / kStartOffsetFile;
  auto tmp = options_.dir / (std::string(kStartOffsetFile) + ".tmp");
  std::string text = std::to_string(start_offset_.value());
  {
    STRATA_ASSIGN_OR_RETURN(auto file, options_.fs->open(tmp, io::OpenMode::kOpenOrCreate));
    STRATA_TRY(file->truncate(0));
    STRATA_TRY(file->pwrite(0, std::as_bytes(std::span(text.data(), text.size()))));
    STRATA_TRY(file->sync_now());
  }
  STRATA_TRY(options_.fs->rename(tmp, path));
  return dir_handle_->sync_now();
}

Status Log::delete_segments_below(Offset start) {
  if (compaction_.swapping()) {
    // A cleaning's swap holds the segments it checked: they go after it.
    compaction_.delete_after_swap_ = true;
    return ok_status();
  }
  auto doomed = segments_.wholly_below(start);
  for (const auto& seg : doomed)
    segments_.erase(seg->base);
  if (last_entry_ && last_entry_->offset < segments_.begin()->first) last_entry_.reset();
  STRATA_TRY(options_.index->drop_before(options_.uid, segments_.begin()->first));
  epochs_.trim_below(segments_.begin()->first);
  producers_.aborted_.drop_below(segments_.begin()->first);
  for (const auto& seg : doomed) {
    STRATA_TRY(options_.fs->remove(seg->file->path()));
    spdlog::info("partition {}: deleted segment {} ({} bytes) below log start {}", options_.uid,
                 seg->base, seg->size, start);
  }
  if (!doomed.empty()) dir_dirty_ = true;
  return ok_status();
}

Status Log::advance_start_offset(Offset offset) {
  if (offset < start_offset_ || offset > end_offset_) {
    return Error(Errc::kOffsetOutOfRange,
                 fmt::format("offset {} is outside the log {}..{} of partition {}", offset,
                             start_offset_, end_offset_, options_.uid));
  }
  if (offset == start_offset_) return ok_status();
  start_offset_ = offset;
  STRATA_TRY(store_start_offset());
  return delete_segments_below(start_offset_);
}

Result<size_t> Log::enforce_retention() {
  const auto& cfg = options_.config;
  if (!cfg.cleanup_delete) return size_t{0};
  auto doomed = segments_.expired(options_.clock->now_ms(), cfg.retention_ms, cfg.retention_bytes);
  if (doomed.empty()) return size_t{0};
  Offset new_start = std::next(segments_.find(doomed.back()->base))->first;
  start_offset_ = std::max(start_offset_, new_start);
  spdlog::info("partition {}: retention removes {} segment(s) below offset {}", options_.uid,
               doomed.size(), new_start);
  STRATA_TRY(delete_segments_below(new_start));
  return doomed.size();
}

void Log::close(FlushCallback done) {
  closing_ = true;
  close_done_ = std::move(done);
  if (!pending_.empty()) schedule_dispatch();
  // Once everything is written and synced, finish_close_if_idle completes it.
  flush_waiters_.push_back(FlushWaiter{next_offset_, [](Status) {}});
  maybe_start_sync();
  finish_close_if_idle();
}

void Log::read_done() {
  --reads_in_flight_;
  finish_close_if_idle();
}

void Log::finish_close_if_idle() {
  if (!close_done_) return;
  if (!pending_.empty() || !writes_.empty() || sync_in_flight_ || !flush_waiters_.empty() ||
      reads_in_flight_ > 0 || write_backs_in_flight_ > 0 || dispatch_scheduled_ ||
      compaction_.swapping()) {
    return;
  }
  auto done = std::move(*close_done_);
  close_done_.reset();
  Status st = ok_status();
  if (fatal_) {
    st = *fatal_;
  } else {
    index::IndexStore::Update update(options_.uid);
    update.set_applied(applied_);
    if (auto w = options_.index->write(update); !w) st = w;
    if (auto w = options_.index->set_recovery_point(options_.uid, applied_); !w && st.ok()) st = w;
  }
  post([done = std::move(done), st] { done(st); });
}

}  // namespace strata::engine
