// Variable-length integers of the Kafka formats.
//
// Unsigned varints (flexible protocol versions: compact lengths, tagged
// fields) and zig-zag signed varints (RecordBatch records), 7 bits per byte,
// least significant group first. Decoders never read past `end` and reject
// encodings longer than the type allows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace strata::varint {

// Decodes an unsigned varint of at most `max_bytes` bytes at `p`, advancing
// `p`. Returns nullopt when the input ends or the value is too long.
inline std::optional<uint64_t> read_unsigned(const std::byte*& p, const std::byte* end,
                                             int max_bytes) {
  uint64_t result = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (p >= end) return std::nullopt;
    auto b = static_cast<uint8_t>(*p++);
    result |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if ((b & 0x80) == 0) return result;
  }
  return std::nullopt;
}

inline std::optional<uint32_t> read_u32(const std::byte*& p, const std::byte* end) {
  auto v = read_unsigned(p, end, 5);
  if (!v || *v > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

inline std::optional<int32_t> read_zigzag32(const std::byte*& p, const std::byte* end) {
  auto v = read_u32(p, end);
  if (!v) return std::nullopt;
  return static_cast<int32_t>((*v >> 1) ^ (~(*v & 1) + 1));
}

inline std::optional<int64_t> read_zigzag64(const std::byte*& p, const std::byte* end) {
  auto v = read_unsigned(p, end, 10);
  if (!v) return std::nullopt;
  return static_cast<int64_t>((*v >> 1) ^ (~(*v & 1) + 1));
}

// Encoders write at `p` (which must have room for 10 bytes) and return the
// number of bytes written.
inline size_t write_unsigned(std::byte* p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = static_cast<std::byte>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  p[n++] = static_cast<std::byte>(v);
  return n;
}

inline size_t write_zigzag64(std::byte* p, int64_t v) {
  return write_unsigned(p, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

inline size_t write_zigzag32(std::byte* p, int32_t v) {
  return write_unsigned(p, (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31));
}

inline size_t unsigned_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

inline size_t zigzag64_size(int64_t v) {
  return unsigned_size((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

}  // namespace strata::varint
