#include "engine/legacy_lz4.h"

#include <bit>
#include <cstring>

namespace strata::engine {
namespace {

constexpr uint32_t kPrime1 = 2654435761u;
constexpr uint32_t kPrime2 = 2246822519u;
constexpr uint32_t kPrime3 = 3266489917u;
constexpr uint32_t kPrime4 = 668265263u;
constexpr uint32_t kPrime5 = 374761393u;

constexpr uint32_t kFrameMagic = 0x184D2204;  // little-endian on the wire
constexpr size_t kMagicBytes = 4;
constexpr uint8_t kFlagContentSize = 0x08;
constexpr uint8_t kFlagDictId = 0x01;
constexpr uint8_t kVersionMask = 0xC0;
constexpr uint8_t kVersion1 = 0x40;

uint32_t load_le32(const std::byte* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

uint32_t xxh_round(uint32_t acc, uint32_t input) {
  acc += input * kPrime2;
  return std::rotl(acc, 13) * kPrime1;
}

}  // namespace

uint32_t xxh32(std::span<const std::byte> data) {
  const std::byte* p = data.data();
  const std::byte* end = p + data.size();
  uint32_t h;
  if (data.size() >= 16) {
    uint32_t v1 = kPrime1 + kPrime2;
    uint32_t v2 = kPrime2;
    uint32_t v3 = 0;
    uint32_t v4 = 0u - kPrime1;
    while (end - p >= 16) {
      v1 = xxh_round(v1, load_le32(p));
      v2 = xxh_round(v2, load_le32(p + 4));
      v3 = xxh_round(v3, load_le32(p + 8));
      v4 = xxh_round(v4, load_le32(p + 12));
      p += 16;
    }
    h = std::rotl(v1, 1) + std::rotl(v2, 7) + std::rotl(v3, 12) + std::rotl(v4, 18);
  } else {
    h = kPrime5;
  }
  h += static_cast<uint32_t>(data.size());
  while (end - p >= 4) {
    h += load_le32(p) * kPrime3;
    h = std::rotl(h, 17) * kPrime4;
    p += 4;
  }
  while (p < end) {
    h += static_cast<uint32_t>(*p) * kPrime5;
    h = std::rotl(h, 11) * kPrime1;
    ++p;
  }
  h ^= h >> 15;
  h *= kPrime2;
  h ^= h >> 13;
  h *= kPrime3;
  h ^= h >> 16;
  return h;
}

Status set_lz4_header_checksum(std::span<std::byte> frame, Lz4HeaderChecksum kind) {
  // magic(4) FLG(1) BD(1) [content size(8)] [dictionary id(4)] HC(1)
  if (frame.size() < kMagicBytes + 3 || load_le32(frame.data()) != kFrameMagic) {
    return Error(Errc::kInvalidRecord, "lz4 data: no LZ4 frame header");
  }
  auto flg = static_cast<uint8_t>(frame[kMagicBytes]);
  if ((flg & kVersionMask) != kVersion1) {
    return Error(Errc::kInvalidRecord, "lz4 data: unknown frame version");
  }
  size_t hc = kMagicBytes + 2;
  if ((flg & kFlagContentSize) != 0) hc += 8;
  if ((flg & kFlagDictId) != 0) hc += 4;
  if (frame.size() <= hc) return Error(Errc::kInvalidRecord, "lz4 data: frame header cut off");
  size_t from = kind == Lz4HeaderChecksum::kStandard ? kMagicBytes : 0;
  uint32_t h = xxh32(frame.subspan(from, hc - from));
  frame[hc] = static_cast<std::byte>((h >> 8) & 0xFF);
  return ok_status();
}

}  // namespace strata::engine
