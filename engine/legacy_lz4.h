// The LZ4 frame header checksum of Kafka's magic 0 message sets.
//
// Kafka before 0.10 computed the frame descriptor's header checksum (HC)
// over the frame's magic number as well as the descriptor (KAFKA-3160).
// Magic 0 producers and consumers still write and expect that checksum;
// magic 1 and RecordBatch v2 use the standard one. A standard decoder
// refuses the old checksum, so the broker rewrites it in place before
// decoding a magic 0 frame, and after encoding one for a magic 0 reader.
//
//   set_lz4_header_checksum(frame, Lz4HeaderChecksum::kStandard);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "base/result.h"

namespace strata::engine {

enum class Lz4HeaderChecksum {
  kStandard,     // xxh32 of the descriptor (FLG .. before HC)
  kKafkaLegacy,  // xxh32 of the magic number and the descriptor
};

// Rewrites the header checksum byte of the LZ4 frame at the start of
// `frame`. Fails with kInvalidRecord when `frame` does not start with an
// LZ4 frame header.
Status set_lz4_header_checksum(std::span<std::byte> frame, Lz4HeaderChecksum kind);

// XXH32 with seed 0 (the hash of the LZ4 frame format), exposed for tests.
uint32_t xxh32(std::span<const std::byte> data);

}  // namespace strata::engine
