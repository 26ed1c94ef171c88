// BatchCursor: reads a log's committed batches in order, asynchronously,
// from a position in a segment onwards and across later segments.
//
// Batches come back as slices of large chunk reads, so batches read together
// are adjacent in memory and can be sent as one buffer. Each batch's length
// and magic are checked (and its CRC in debug builds); a defect ends the
// cursor with kCorruption.
//
//   auto cursor = BatchCursor::start(log, seg, pos, 1 << 20);
//   cursor->next([](Result<std::optional<CursorBatch>> b) { ... });
//
// Thread-safety: the log's shard only. The Log must outlive the cursor.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "base/result.h"
#include "base/shared_bytes.h"
#include "engine/record_batch.h"
#include "engine/segment.h"

namespace strata::engine {

class Log;

struct CursorBatch {
  BatchHeader header;
  SharedBytes bytes;  // the whole batch
  Offset segment;     // base offset of the segment it is in
  uint64_t position = 0;
};

class BatchCursor : public std::enable_shared_from_this<BatchCursor> {
 public:
  using NextCallback = std::function<void(Result<std::optional<CursorBatch>>)>;

  static std::shared_ptr<BatchCursor> start(Log& log, std::shared_ptr<Segment> segment,
                                            uint64_t position, size_t chunk_bytes);

  // The next batch, or nullopt after the last committed one.
  void next(NextCallback done);

 private:
  BatchCursor(Log& log, std::shared_ptr<Segment> segment, uint64_t position, size_t chunk_bytes)
      : log_(log), segment_(std::move(segment)), position_(position), chunk_bytes_(chunk_bytes) {}
  void read_chunk(size_t need, NextCallback done);

  Log& log_;
  std::shared_ptr<Segment> segment_;
  uint64_t position_;
  size_t chunk_bytes_;
  SharedBytes chunk_;
  uint64_t chunk_position_ = 0;  // file position of chunk_[0]
};

}  // namespace strata::engine
