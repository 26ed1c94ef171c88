// Segment: one file of a partition log, holding whole record batches back to
// back, named by the base offset of its first batch
// (`00000000000000000000.log`). Only a log's last segment is written.
//
// The in-memory record tracks how far the file is committed (bytes readers
// may see), how far it is durable, and what the index needs to know about
// its end. Readers hold a shared_ptr, so retention can drop a segment from
// its log while a read of it is still in flight.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/ids.h"
#include "index/index_store.h"
#include "io/file_system.h"

namespace strata::engine {

inline constexpr std::string_view kSegmentSuffix = ".log";
// The partition directory's other file: the log start offset when
// DeleteRecords or a follower's restart moved it past a segment's base.
inline constexpr std::string_view kStartOffsetFile = "log_start_offset";

// "00000000000000000042.log" for base offset 42.
std::string segment_file_name(Offset base);
// The base offset of a segment file name, or nullopt for other names.
std::optional<Offset> parse_segment_file_name(std::string_view name);

struct Segment {
  Offset base;
  std::unique_ptr<io::File> file;
  uint64_t size = 0;         // committed bytes: what readers see
  uint64_t synced_size = 0;  // bytes known durable
  uint64_t allocated = 0;    // bytes asked of the file system ahead of the writes
  // Bytes from the start whose page-cache pages were dropped (Log's cache
  // window); segments found at open count as dropped: the kernel keeps them.
  uint64_t cache_dropped = 0;
  // Bytes from the start written back to the disk though not synced
  // (durability=replicated: clean pages the cache window may drop), and
  // whether a write-back is in flight.
  uint64_t written_back = 0;
  bool writing_back = false;
  Offset next_offset;  // offset after the last committed batch
  // Largest record timestamp of this segment and every earlier one, i.e. the
  // index's max_timestamp_before of the batch after this segment's end.
  TimestampMs max_timestamp_through = index::kNoTimestamp;
  // What retention judges the segment by (index::SegmentMeta): the largest
  // broker-derived timestamp of its own records, and when its last batch
  // was committed, for segments whose records carry no timestamp.
  index::SegmentMeta meta;
  int64_t created_ms = 0;  // when this process started writing it (segment.ms)

  // The time retention compares with retention.ms, as Kafka does: the
  // largest record timestamp, or the last write when no record has one.
  // Segments are deleted oldest first, so the running maximum stands in
  // for the segment's own when it has timestamps.
  TimestampMs retention_time() const {
    return meta.max_timestamp >= 0 ? max_timestamp_through : meta.last_write_ms;
  }
};

// SegmentSet: a log's segments by base offset, oldest first; the map's own
// operations for the Log that changes it, and the lookups readers use.
class SegmentSet : private std::map<Offset, std::shared_ptr<Segment>> {
  using Map = std::map<Offset, std::shared_ptr<Segment>>;

 public:
  using Map::at;
  using Map::begin;
  using Map::clear;
  using Map::const_iterator;
  using Map::emplace;
  using Map::empty;
  using Map::end;
  using Map::erase;
  using Map::find;
  using Map::iterator;
  using Map::lower_bound;
  using Map::operator[];
  using Map::rbegin;
  using Map::rend;
  using Map::size;
  using Map::upper_bound;

  // The segment holding `offset` (the last whose base is not above it), or
  // nullptr below the first.
  std::shared_ptr<Segment> containing(Offset offset) const {
    auto it = upper_bound(offset);
    return it == begin() ? nullptr : std::prev(it)->second;
  }
  // The segment after the one based at `base`, or nullptr.
  std::shared_ptr<Segment> after(Offset base) const {
    auto it = upper_bound(base);
    return it == end() ? nullptr : it->second;
  }
  std::vector<Offset> bases() const {
    std::vector<Offset> out;
    for (const auto& [base, seg] : *this)
      out.push_back(base);
    return out;
  }
  // Committed bytes of every segment.
  uint64_t size_bytes() const {
    uint64_t total = 0;
    for (const auto& [base, seg] : *this)
      total += seg->size;
    return total;
  }

  // Never the last segment (the active one) in the two below: a log keeps
  // at least one, and writes only there.
  //
  // The closed segments wholly below `start`, oldest first: what moving the
  // log start to `start` deletes.
  std::vector<std::shared_ptr<Segment>> wholly_below(Offset start) const;
  // The closed segments retention deletes at `now`, oldest first: from the
  // oldest on, while it is older than `retention_ms` (Segment::retention_time)
  // or the log without it still holds `retention_bytes`; -1 turns either off.
  std::vector<std::shared_ptr<Segment>> expired(TimestampMs now, int64_t retention_ms,
                                                int64_t retention_bytes) const;
};

}  // namespace strata::engine
