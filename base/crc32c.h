// CRC-32C (Castagnoli), the checksum of Kafka RecordBatch v2.
//
// Uses the SSE4.2 crc32 instruction when the CPU has it and a table-driven
// portable version otherwise; both give identical results.
//
//   uint32_t crc = crc32c::value(bytes);
//   crc = crc32c::extend(crc, more_bytes);   // same as value(bytes + more)
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace strata::crc32c {

uint32_t extend(uint32_t crc, std::span<const std::byte> data);
inline uint32_t value(std::span<const std::byte> data) {
  return extend(0, data);
}

// The two implementations, exposed so tests can compare them.
uint32_t extend_portable(uint32_t crc, std::span<const std::byte> data);
uint32_t extend_sse42(uint32_t crc, std::span<const std::byte> data);
bool has_sse42();

}  // namespace strata::crc32c
