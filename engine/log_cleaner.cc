#include "engine/log_cleaner.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "base/big_endian.h"
#include "base/bytes.h"
#include "engine/batch_timestamps.h"
#include "engine/compression.h"
#include "engine/control_record.h"
#include "engine/record_batch.h"
#include "engine/segment.h"
#include "engine/segment_scanner.h"

namespace strata::engine {
namespace {

constexpr size_t kWriteChunk = 1 << 20;
// A chunk of batches judged together holds up to this many bytes (read and
// decompressed; CleaningPlan::chunk_keys bounds its keys): what a cleaning
// holds in memory at once.
constexpr size_t kChunkBytes = 8 << 20;

// Whether an offset of a producer lies in one of its aborted transactions.
class AbortedRanges {
 public:
  explicit AbortedRanges(const std::vector<index::AbortedEntry>& aborted) {
    for (const auto& a : aborted)
      by_producer_[a.producer_id].emplace_back(a.first_offset, a.last_offset);
  }
  bool contains(int64_t producer_id, Offset offset) const {
    auto it = by_producer_.find(producer_id);
    if (it == by_producer_.end()) return false;
    return std::any_of(it->second.begin(), it->second.end(),
                       [&](const auto& r) { return r.first <= offset && offset < r.second; });
  }

 private:
  std::map<int64_t, std::vector<std::pair<Offset, Offset>>> by_producer_;
};

// Appends bytes to a new file in large writes.
class Writer {
 public:
  explicit Writer(io::File& file) : file_(file) {}
  Status append(std::span<const std::byte> bytes) {
    buf_.insert(buf_.end(), bytes.begin(), bytes.end());
    if (buf_.size() >= kWriteChunk) return flush();
    return ok_status();
  }
  Status flush() {
    if (buf_.empty()) return ok_status();
    STRATA_TRY(file_.pwrite(written_, buf_));
    written_ += buf_.size();
    buf_.clear();
    // Write-behind: each written stretch goes to the disk as the file
    // grows (waiting for the stretch before it), not all at the final sync,
    // whose burst would stall the shards' syncs on the same disk.
    // The call covers the stretch started last time too: it waits for that
    // one to be written, so at most one stretch is in flight.
    if (written_ - behind_ >= kWriteBehind) {
      STRATA_TRY(file_.write_back_now(started_, written_ - started_));
      started_ = behind_;
      behind_ = written_;
    }
    return ok_status();
  }
  uint64_t position() const { return written_ + buf_.size(); }

 private:
  static constexpr uint64_t kWriteBehind = 4 << 20;
  io::File& file_;
  std::vector<std::byte> buf_;
  uint64_t written_ = 0;
  uint64_t behind_ = 0;   // written back (or being written) below this
  uint64_t started_ = 0;  // where the last stretch asked for began
};

// `original`'s header with `records` (encoded, uncompressed) as its records:
// same offsets, producer fields and timestamps, compressed with its codec
// (none when empty), new length, count and CRC.
Result<std::vector<std::byte>> rebuild_batch(std::span<const std::byte> original,
                                             const BatchHeader& h,
                                             std::span<const std::byte> records, int32_t count) {
  std::vector<std::byte> payload;
  int16_t attributes = h.attributes;
  if (count == 0) {
    attributes = static_cast<int16_t>(attributes & ~batch_attr::kCompressionMask);
  } else if (h.compression() != Compression::kNone) {
    STRATA_ASSIGN_OR_RETURN(payload, compress(h.compression(), records));
  } else {
    payload.assign(records.begin(), records.end());
  }
  std::vector<std::byte> out(original.begin(), original.begin() + kBatchHeaderSize);
  out.insert(out.end(), payload.begin(), payload.end());
  be::store<int32_t>(out.data() + batch_field::kLength,
                     static_cast<int32_t>(out.size() - kBatchLogOverhead));
  be::store<int16_t>(out.data() + batch_field::kAttributes, attributes);
  be::store<int32_t>(out.data() + batch_field::kRecordsCount, count);
  be::store<uint32_t>(out.data() + batch_field::kCrc, compute_batch_crc(out));
  return out;
}

class GroupCleaner {
 public:
  GroupCleaner(const CleaningPlan& plan, const index::IndexStore& index,
               const AbortedRanges& aborted, CleaningResult& result)
      : plan_(plan), index_(index), aborted_(aborted), result_(result) {}

  // Writes `group` to `out`; returns what the index needs of it.
  Result<CleanedSegment> run(const std::vector<CleanSegment>& group, io::FileSystem& fs,
                             io::File& out, TimestampMs& running_max) {
    CleanedSegment cs;
    cs.base = group.front().base;
    cs.next_offset = group.back().next_offset;
    for (const auto& s : group) {
      cs.replaced.push_back(s.base);
      cs.meta.max_timestamp = std::max(cs.meta.max_timestamp, s.meta.max_timestamp);
      cs.meta.last_write_ms = std::max(cs.meta.last_write_ms, s.meta.last_write_ms);
    }
    Writer writer(out);
    uint64_t since_entry = 0;
    // A segment's first entry sits at its base, even when compaction took
    // the batch there: reads of the offsets before the first kept batch
    // start at the top of the file.
    cs.entries.push_back(index::IndexEntry{cs.base, cs.base, FilePos(0), running_max});
    // The last batch judged, if it went (its whole bytes: a marker is put
    // back whole, anything else stays empty).
    std::optional<std::vector<std::byte>> dropped_last;
    auto write = [&](std::span<const std::byte> batch, const BatchHeader& h) -> Status {
      uint64_t pos = writer.position();
      if (pos > 0 && since_entry >= static_cast<uint64_t>(plan_.index_interval_bytes)) {
        cs.entries.push_back(index::IndexEntry{h.base_offset, cs.base, FilePos(pos), running_max});
        since_entry = 0;
      }
      since_entry += batch.size();
      running_max = std::max(running_max, h.max_timestamp);
      result_.stats.bytes_written += batch.size();
      return writer.append(batch);
    };
    // Batches are judged a chunk at a time: the chunk's keys go to the key
    // map in one lookup, in key order, so that RocksDB reads each of its
    // blocks once for all the keys it holds rather than once per key.
    std::vector<std::unique_ptr<PendingBatch>> chunk;
    std::vector<uint64_t> hashes;
    size_t chunk_bytes = 0;
    auto judge_chunk = [&]() -> Status {
      STRATA_ASSIGN_OR_RETURN(auto entries, index_.key_entries(plan_.uid, hashes));
      for (auto& pb : chunk) {
        STRATA_ASSIGN_OR_RETURN(Filtered kept, filter(*pb, hashes, entries));
        if (kept.kind == Filtered::kNothing) {
          dropped_last = std::move(pb->bytes);
          continue;
        }
        dropped_last.reset();
        STRATA_TRY(write(kept.kind == Filtered::kAll ? pb->bytes : kept.batch, pb->header));
      }
      chunk.clear();
      hashes.clear();
      chunk_bytes = 0;
      return ok_status();
    };
    for (const auto& seg : group) {
      STRATA_ASSIGN_OR_RETURN(
          auto file, fs.open(plan_.dir / segment_file_name(seg.base), io::OpenMode::kOpenExisting));
      SegmentScanner scan(*file, 0, seg.size);
      while (true) {
        STRATA_ASSIGN_OR_RETURN(auto b, scan.next());
        if (!b) break;
        result_.stats.bytes_read += b->bytes.size();
        throttle();
        if (cancelled()) {
          return Error(Errc::kShutdown, "the cleaning was stopped: the broker is stopping");
        }
        STRATA_ASSIGN_OR_RETURN(auto pb, parse(b->header, b->bytes, hashes));
        chunk_bytes += pb->bytes.size() + pb->plain.size();
        chunk.push_back(std::move(pb));
        if (hashes.size() >= plan_.chunk_keys || chunk_bytes >= kChunkBytes)
          STRATA_TRY(judge_chunk());
      }
      if (scan.defect() || scan.position() != seg.size) {
        return Error(
            Errc::kCorruption,
            fmt::format("segment {} of partition {}: {} at position {}", seg.base, plan_.uid,
                        scan.defect() ? scan.defect()->message() : "short scan", scan.position()));
      }
    }
    STRATA_TRY(judge_chunk());
    if (dropped_last) {
      // The group's last batch stays so that the segment ends where it did:
      // a marker whole (an empty control batch would be no marker at all),
      // anything else empty. An empty transactional batch is data of its
      // transaction still in the log: its marker must stay too.
      BatchHeader h = read_batch_header(dropped_last->data());
      if (h.control()) {
        // Only remove_marker drops a control batch: this one stays after all.
        --result_.stats.markers_removed;
        if (!result_.removed_aborts.empty() && result_.removed_aborts.back() == h.base_offset) {
          result_.removed_aborts.pop_back();
        }
        STRATA_TRY(write(*dropped_last, h));
      } else {
        if (h.transactional()) txns_[h.producer_id].retained = true;
        STRATA_ASSIGN_OR_RETURN(auto empty, rebuild_batch(*dropped_last, h, {}, 0));
        STRATA_TRY(write(empty, h));
      }
    }
    STRATA_TRY(writer.flush());
    STRATA_TRY(out.sync_now());
    cs.size = writer.position();
    cs.max_timestamp_through = running_max;
    return cs;
  }

 private:
  // One batch read into a chunk: its bytes, its records (decompressed when
  // need be) and where its keys' hashes start in the chunk's list.
  struct Parsed {
    const std::byte* start;
    const std::byte* end;
    RecordView view;
  };
  struct PendingBatch {
    BatchHeader header;
    std::vector<std::byte> bytes;
    std::vector<std::byte> plain;
    std::vector<Parsed> records;  // none for a control batch
    size_t first_hash = 0;
  };
  Result<std::unique_ptr<PendingBatch>> parse(const BatchHeader& h,
                                              std::span<const std::byte> bytes,
                                              std::vector<uint64_t>& hashes) {
    auto pb = std::make_unique<PendingBatch>();
    pb->header = h;
    pb->bytes.assign(bytes.begin(), bytes.end());
    pb->first_hash = hashes.size();
    if (h.control()) return pb;
    STRATA_ASSIGN_OR_RETURN(auto payload,
                            batch_records(pb->bytes, h, pb->plain, kMaxDecompressedBatchBytes));
    pb->records.reserve(static_cast<size_t>(h.records_count));
    const std::byte* p = payload.data();
    const std::byte* end = p + payload.size();
    for (int32_t i = 0; i < h.records_count; ++i) {
      const std::byte* start = p;
      STRATA_ASSIGN_OR_RETURN(RecordView r, read_record(p, end));
      pb->records.push_back(Parsed{start, p, r});
      if (r.key) hashes.push_back(index::key_hash(*r.key));
    }
    return pb;
  }

  // What stays of a batch: nothing, all of it, or some (the rebuilt batch).
  struct Filtered {
    enum Kind { kNothing, kAll, kSome } kind;
    std::vector<std::byte> batch;
  };
  Result<Filtered> filter(const PendingBatch& pb, const std::vector<uint64_t>& hashes,
                          const std::vector<std::optional<index::KeyEntry>>& entries) {
    const BatchHeader& h = pb.header;
    if (h.control()) {
      STRATA_ASSIGN_OR_RETURN(bool remove, remove_marker(pb));
      return Filtered{remove ? Filtered::kNothing : Filtered::kAll, {}};
    }
    std::vector<std::byte> kept_records;
    int32_t kept = 0;
    size_t next = pb.first_hash;
    for (const auto& rec : pb.records) {
      ++result_.stats.records_read;
      bool keyed = rec.view.key.has_value();
      bool keep = keyed ? keep_record(h, rec.view, entries[next], hashes[next])
                        : keep_record(h, rec.view, std::nullopt, 0);
      if (keyed) ++next;
      if (keep) {
        ++kept;
        kept_records.insert(kept_records.end(), rec.start, rec.end);
      }
    }
    result_.stats.records_kept += static_cast<uint64_t>(kept);
    if (h.transactional()) {
      if (aborted_.contains(h.producer_id, h.base_offset)) {
        txns_[h.producer_id].aborted_seen = true;
      } else if (kept > 0) {
        txns_[h.producer_id].retained = true;
      }
    }
    if (kept == h.records_count) return Filtered{Filtered::kAll, {}};
    if (kept == 0) return Filtered{Filtered::kNothing, {}};
    STRATA_ASSIGN_OR_RETURN(auto rebuilt, rebuild_batch(pb.bytes, h, kept_records, kept));
    return Filtered{Filtered::kSome, std::move(rebuilt)};
  }

  // Whether a transaction marker goes (as Kafka's cleaner decides): once
  // none of its transaction's batches is left before it — a commit's
  // records all superseded, an abort's records removed by an earlier
  // cleaning (this one saw none) — and delete.retention.ms after the first
  // cleaning that covered it. An aborted transaction's data is removed by
  // the first cleaning that covers it, which is no later than the first to
  // cover its marker: a consumer that read that data before it went has
  // delete.retention.ms to read on past the marker, as a tombstone gives.
  Result<bool> remove_marker(const PendingBatch& pb) {
    const BatchHeader& h = pb.header;
    STRATA_ASSIGN_OR_RETURN(auto marker, read_marker(pb.bytes));
    if (!marker) return false;  // a control record of another kind stays
    TxnSeen seen = txns_[h.producer_id];
    txns_.erase(h.producer_id);
    bool data_left = marker->commit ? seen.retained : seen.aborted_seen;
    if (data_left || h.base_offset >= plan_.supersede_bound) return false;
    int64_t seen_ms = plan_.state.first_seen_ms(h.base_offset, plan_.now_ms);
    if (seen_ms > plan_.now_ms - plan_.delete_retention_ms) return false;
    ++result_.stats.markers_removed;
    if (!marker->commit) result_.removed_aborts.push_back(h.base_offset);
    return true;
  }

  bool cancelled() const {
    return plan_.cancel != nullptr && plan_.cancel->load(std::memory_order_relaxed);
  }

  // Sleeps while the bytes read and written so far are ahead of the limit
  // (in slices, to notice a stop).
  void throttle() const {
    if (plan_.io_max_bytes_per_second <= 0) return;
    double bytes = static_cast<double>(result_.stats.bytes_read + result_.stats.bytes_written);
    auto due = started_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(bytes / plan_.io_max_bytes_per_second));
    for (auto now = std::chrono::steady_clock::now(); due > now && !cancelled();
         now = std::chrono::steady_clock::now()) {
      std::this_thread::sleep_until(std::min(due, now + std::chrono::milliseconds(50)));
    }
  }

  // Whether a record stays; `entry` is the key map's entry of its key
  // (hash `hash`), if it has a key and the map one.
  bool keep_record(const BatchHeader& h, const RecordView& r,
                   const std::optional<index::KeyEntry>& entry, uint64_t hash) {
    Offset offset = h.base_offset + r.offset_delta;
    if (h.transactional() && aborted_.contains(h.producer_id, offset)) {
      ++result_.stats.aborted_removed;
      return false;
    }
    if (!r.key) return true;
    if (!entry || !plan_.state.valid(*entry) || bytes_of(entry->key).size() != r.key->size() ||
        !std::equal(r.key->begin(), r.key->end(), bytes_of(entry->key).begin())) {
      return true;
    }
    if (entry->offset > offset) {
      // A later record of the key: it supersedes this one if it is stable
      // and not itself aborted.
      if (entry->offset >= plan_.supersede_bound) return true;
      return entry->producer_id >= 0 && aborted_.contains(entry->producer_id, entry->offset);
    }
    if (entry->offset == offset && !r.value) {
      int64_t seen = plan_.state.first_seen_ms(offset, plan_.now_ms);
      if (seen <= plan_.now_ms - plan_.delete_retention_ms) {
        ++result_.stats.tombstones_removed;
        result_.removed_tombstones.emplace_back(hash, offset);
        return false;
      }
    }
    return true;
  }

  // What this cleaning saw of each producer's transaction since its last
  // marker: batches kept (a commit's data left), batches of an aborted
  // transaction (removed now; its marker goes in a later cleaning).
  struct TxnSeen {
    bool retained = false;
    bool aborted_seen = false;
  };

  const CleaningPlan& plan_;
  const index::IndexStore& index_;
  const AbortedRanges& aborted_;
  CleaningResult& result_;
  std::map<int64_t, TxnSeen> txns_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace

std::filesystem::path cleaned_path(const std::filesystem::path& dir, Offset base) {
  return dir / (segment_file_name(base) + std::string(kCleanedSuffix));
}

std::filesystem::path swap_path(const std::filesystem::path& dir, Offset base) {
  return dir / (segment_file_name(base) + std::string(kSwapSuffix));
}

Result<CleaningResult> clean_segments(const CleaningPlan& plan, io::FileSystem& fs,
                                      const index::IndexStore& index) {
  auto started = std::chrono::steady_clock::now();
  CleaningResult result;
  AbortedRanges aborted(plan.aborted);
  GroupCleaner cleaner(plan, index, aborted, result);
  TimestampMs running_max = plan.max_timestamp_before;
  std::vector<std::filesystem::path> written;
  auto fail = [&](Error e) -> Result<CleaningResult> {
    for (const auto& p : written)
      (void)fs.remove(p);
    return e;
  };
  for (const auto& group : plan.groups) {
    auto path = cleaned_path(plan.dir, group.front().base);
    if (auto exists = fs.exists(path); exists.ok() && *exists) (void)fs.remove(path);
    auto out = fs.open(path, io::OpenMode::kCreateNew);
    if (!out) return fail(out.error());
    written.push_back(path);
    auto cs = cleaner.run(group, fs, **out, running_max);
    if (!cs) return fail(cs.error());
    result.segments.push_back(std::move(*cs));
  }
  result.stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace strata::engine
