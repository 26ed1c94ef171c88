// The log cleaner's work on one partition (issue 15): rewrite closed
// segments keeping, of each key, only the latest record, with the offsets
// every record had.
//
// A cleaning is planned on the log's shard (LogCompaction::plan), run
// anywhere — it blocks, so the broker runs it on a cleaner thread — by
// clean_segments, and installed on the shard again (LogCompaction::install).
// clean_segments reads the planned segments through its own file handles
// and the key map through the index store (both safe off the shard), and
// writes each group of segments as one `<base>.log.cleaned`, synced. It
// changes nothing the log uses: the install swaps the files in.
//
// What a cleaning keeps of the records below the plan's end:
//   - a transaction marker: until no batch of its transaction is left
//     before it (a commit's records all superseded; an abort's records
//     removed by an earlier cleaning), and delete.retention.ms after the
//     first cleaning that covered it; an abort marker's aborted-transaction
//     entry goes with it. Other control batches, and a marker that is its
//     group's last batch, stay whole;
//   - a record of an aborted transaction: never;
//   - a record without a key: always;
//   - a record whose key has a later record below `supersede_bound` in the
//     key map (a valid entry with the same key, not itself in an aborted
//     transaction): never;
//   - a tombstone (null value) that is its key's latest record: until
//     delete.retention.ms after the first cleaning that saw it;
//   - anything else: always (an unknown, void or colliding entry keeps it).
// Kept records stay in their batch (its offsets, producer fields and
// timestamps unchanged, re-compressed with its codec); a batch that keeps
// nothing goes, but the last one of each group stays, empty, so that each
// segment still ends where it ended and a consumer fetching past removed
// records at the end of a segment moves on.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "base/ids.h"
#include "base/result.h"
#include "index/compaction_state.h"
#include "index/index_store.h"
#include "io/file_system.h"

namespace strata::engine {

// The suffixes of a cleaning's files beside the segment they replace:
// written (`.cleaned`), then committed to (`.swap`, which recovery completes).
inline constexpr std::string_view kCleanedSuffix = ".cleaned";
inline constexpr std::string_view kSwapSuffix = ".swap";

struct CleanSegment {
  Offset base;
  uint64_t size = 0;
  Offset next_offset;
  index::SegmentMeta meta;
};

struct CleaningPlan {
  PartitionUid uid;
  std::filesystem::path dir;
  // Runs of consecutive closed segments; each run is written as one segment.
  std::vector<std::vector<CleanSegment>> groups;
  Offset end;              // the groups cover the log below this
  Offset supersede_bound;  // a later record supersedes only below this (stable and durable)
  // The largest record timestamp before the first group.
  TimestampMs max_timestamp_before = index::kNoTimestamp;
  index::CompactionState state;  // as planned: the install checks it did not change
  int64_t now_ms = 0;
  int64_t delete_retention_ms = 0;
  int64_t index_interval_bytes = 4096;
  std::vector<index::AbortedEntry> aborted;  // the log's aborted transactions
  // log.cleaner.io.max.bytes.per.second: bytes read and written together
  // (0: no limit). The cleaner sleeps to keep under it.
  double io_max_bytes_per_second = 0;
  // Batches are judged in chunks of up to this many keys, looked up in the
  // key map together (in key order: each map block read once per chunk).
  size_t chunk_keys = 1 << 15;
  // Raised when the broker stops: the cleaning ends at its next batch with
  // kShutdown (null: never).
  const std::atomic<bool>* cancel = nullptr;
};

struct CleanedSegment {
  Offset base;
  std::vector<Offset> replaced;  // the segments it replaces, `base` first
  uint64_t size = 0;
  Offset next_offset;
  std::vector<index::IndexEntry> entries;
  index::SegmentMeta meta;
  TimestampMs max_timestamp_through = index::kNoTimestamp;
};

struct CleaningStats {
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  uint64_t records_read = 0;
  uint64_t records_kept = 0;
  uint64_t tombstones_removed = 0;
  uint64_t aborted_removed = 0;
  uint64_t markers_removed = 0;
  double seconds = 0;  // the cleaning's wall time on its thread
};

struct CleaningResult {
  std::vector<CleanedSegment> segments;
  // (key hash, offset) of each tombstone removed: its key-map entry goes.
  std::vector<std::pair<uint64_t, Offset>> removed_tombstones;
  // The offsets of the abort markers removed (their aborted-transaction
  // entries go).
  std::vector<Offset> removed_aborts;
  CleaningStats stats;
};

std::filesystem::path cleaned_path(const std::filesystem::path& dir, Offset base);
std::filesystem::path swap_path(const std::filesystem::path& dir, Offset base);

// Writes the plan's cleaned segments (blocking). On failure the files it
// wrote are removed.
Result<CleaningResult> clean_segments(const CleaningPlan& plan, io::FileSystem& fs,
                                      const index::IndexStore& index);

}  // namespace strata::engine
