// SegmentScanner: reads the batches of one segment file in order with
// blocking reads, checking each (length, magic, CRC), and stops at the end
// of the file or at the first batch that is torn or corrupt.
//
// Used by crash recovery (which truncates where the scan stopped) and by
// offline tools. Not for the shard's data path: it blocks.
//
//   SegmentScanner scan(file, 0, file_size);
//   while (auto b = scan.next().value()) use(b->position, b->header, b->bytes);
//   if (scan.defect()) log("cut at {}: {}", scan.position(), scan.defect()->message());
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "base/result.h"
#include "engine/record_batch.h"
#include "io/file_system.h"

namespace strata::engine {

struct ScannedBatch {
  uint64_t position = 0;
  BatchHeader header;
  std::span<const std::byte> bytes;  // valid until the next call to next()
};

class SegmentScanner {
 public:
  SegmentScanner(io::File& file, uint64_t start, uint64_t end, bool verify_crc = true,
                 size_t chunk_bytes = 1 << 20);

  // The next intact batch; nullopt at the end or at a defect. Fails only on
  // an I/O error.
  Result<std::optional<ScannedBatch>> next();

  // Where the next batch would start; after the scan, the end of the valid data.
  uint64_t position() const { return pos_; }
  // Why the scan stopped before `end`, if it did.
  const std::optional<Error>& defect() const { return defect_; }

 private:
  Status fill(uint64_t pos, size_t need);

  io::File& file_;
  uint64_t pos_;
  uint64_t end_;
  bool verify_crc_;
  size_t chunk_bytes_;
  std::vector<std::byte> buf_;
  uint64_t buf_pos_ = 0;  // file position of buf_[0]
  size_t buf_len_ = 0;
  std::optional<Error> defect_;
};

}  // namespace strata::engine
