// Recompression of a RecordBatch v2 with another codec, for topics whose
// compression.type names one (Kafka's broker-side compression).
//
//   auto r = recompress_batch(bytes, {.codec = Compression::kZstd, .level = 3});
//   if (!r) refuse(r.error());
//   if (*r) bytes = std::move(**r);   // nullopt: already in that codec
//
// The records are decompressed and the same record bytes compressed again:
// offset deltas, timestamps, keys, values, headers, the producer fields and
// every attribute bit but the codec stay as they were. The batch length and
// the CRC-32C are recomputed. The input's CRC is checked first, so a corrupt
// batch is refused rather than given a fresh, valid CRC.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "base/result.h"
#include "engine/compression.h"
#include "engine/record_batch.h"

namespace strata::engine {

struct RecompressOptions {
  Compression codec = Compression::kNone;  // kNone: store the records uncompressed
  int level = kDefaultCompressionLevel;
  // Bound on the decompressed records (a decompression bomb is refused).
  size_t max_records_bytes = 64 << 20;
};

// The batch re-encoded with `options.codec`, or nullopt when it already uses
// it, or when it is not a v2 batch (other stages refuse or convert those).
// Errors: those of check_batch_integrity, kInvalidRecord for records that do
// not decompress or do not match the record count.
Result<std::optional<std::vector<std::byte>>> recompress_batch(std::span<const std::byte> batch,
                                                               const RecompressOptions& options);

}  // namespace strata::engine
