// Compression codecs of Kafka record batches: gzip, snappy (raw, or the
// xerial framing the Java client writes), lz4 (frame format) and zstd.
//
// The broker stores batches compressed as they came; it decompresses only to
// look inside (timestamp lookups inside a batch, dump-log, compaction).
//
//   auto plain = decompress(Compression::kZstd, bytes, 64 << 20);
#pragma once

#include <climits>
#include <cstddef>
#include <span>
#include <vector>

#include "base/result.h"
#include "engine/record_batch.h"

namespace strata::engine {

// Decompresses `input`; fails with kInvalidRecord on malformed input or when
// the output would exceed `max_output` bytes (a decompression bomb).
Result<std::vector<std::byte>> decompress(Compression codec, std::span<const std::byte> input,
                                          size_t max_output);

// The codec's own default level (zlib's 6, lz4's fast mode, zstd's 3).
inline constexpr int kDefaultCompressionLevel = INT_MIN;

// Compresses `input` the way the Kafka clients do (gzip stream, xerial-framed
// snappy, lz4 frame, zstd frame). `level` is gzip's 1..9 (-1 = default),
// lz4's 1..17 or zstd's -131072..22 (Kafka's compression.<codec>.level);
// snappy and none have no level.
Result<std::vector<std::byte>> compress(Compression codec, std::span<const std::byte> input,
                                        int level = kDefaultCompressionLevel);

std::string_view compression_name(Compression codec);

// The records of the batch `batch` (its bytes after the header), decompressed
// into `scratch` when the batch is compressed (at most `max_output` bytes).
Result<std::span<const std::byte>> batch_records(std::span<const std::byte> batch,
                                                 const BatchHeader& h,
                                                 std::vector<std::byte>& scratch,
                                                 size_t max_output);

}  // namespace strata::engine
