// Compression codecs of Kafka record batches: gzip, snappy (raw, or the
// xerial framing the Java client writes), lz4 (frame format) and zstd.
//
// The broker stores batches compressed as they came; it decompresses only to
// look inside (timestamp lookups inside a batch, dump-log, compaction).
//
//   auto plain = decompress(Compression::kZstd, bytes, 64 << 20);
#pragma once

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

// Compresses `input` the way the Kafka clients do (gzip stream, xerial-framed
// snappy, lz4 frame, zstd frame).
Result<std::vector<std::byte>> compress(Compression codec, std::span<const std::byte> input);

std::string_view compression_name(Compression codec);

}  // namespace strata::engine
