#include "base/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace strata::crc32c {
namespace {

constexpr uint32_t kPoly = 0x82F63B78;  // reflected Castagnoli polynomial

// Slicing-by-8 tables: table[k][b] is the CRC of byte b followed by k zero bytes.
constexpr std::array<std::array<uint32_t, 256>, 8> make_tables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int i = 0; i < 8; ++i)
      c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[0][b] = c;
  }
  for (uint32_t b = 0; b < 256; ++b) {
    for (int k = 1; k < 8; ++k)
      t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
  }
  return t;
}

constexpr auto kTables = make_tables();

}  // namespace

uint32_t extend_portable(uint32_t crc, std::span<const std::byte> data) {
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  uint32_t c = ~crc;
  while (n >= 8) {
    uint32_t lo;
    uint32_t hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= c;  // little-endian host assumed; checked by a static_assert below
    c = kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^ kTables[5][(lo >> 16) & 0xFF] ^
        kTables[4][lo >> 24] ^ kTables[3][hi & 0xFF] ^ kTables[2][(hi >> 8) & 0xFF] ^
        kTables[1][(hi >> 16) & 0xFF] ^ kTables[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n-- > 0)
    c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xFF];
  return ~c;
}

#if defined(__x86_64__)
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);

namespace {

// The crc32 instruction has a latency of three cycles and a throughput of
// one, so one dependency chain uses a third of it. Long inputs are cut into
// three streams processed together; the streams' CRCs are then joined with
// "shift" operators: shift_n(s) is the CRC state after feeding n zero bytes
// from state s. Without the pre/post inversion a CRC is linear, so
// crc(s, A|B) = shift_len(B)(crc(s, A)) ^ crc(0, B). A shift by a fixed n is
// a linear map on 32 bits, kept as four byte-indexed tables.
constexpr size_t kLong = 8192;
constexpr size_t kShort = 256;

struct ShiftTable {
  std::array<std::array<uint32_t, 256>, 4> t;
  uint32_t apply(uint32_t s) const {
    return t[0][s & 0xFF] ^ t[1][(s >> 8) & 0xFF] ^ t[2][(s >> 16) & 0xFF] ^ t[3][s >> 24];
  }
};

__attribute__((target("sse4.2"))) uint32_t feed_zeros(uint32_t s, size_t n) {
  uint64_t c = s;
  for (size_t i = 0; i < n / 8; ++i)
    c = _mm_crc32_u64(c, 0);
  return static_cast<uint32_t>(c);
}

ShiftTable make_shift_table(size_t n) {
  ShiftTable st{};
  for (int k = 0; k < 4; ++k) {
    for (uint32_t b = 0; b < 256; ++b)
      st.t[k][b] = feed_zeros(b << (8 * k), n);
  }
  return st;
}

const ShiftTable& long_shift() {
  static const ShiftTable t = make_shift_table(kLong);
  return t;
}

const ShiftTable& short_shift() {
  static const ShiftTable t = make_shift_table(kShort);
  return t;
}

// Three streams of `block` bytes each starting at p, p + block, p + 2 block.
__attribute__((target("sse4.2"))) inline uint64_t three_streams(uint64_t c, const uint8_t* p,
                                                                size_t block,
                                                                const ShiftTable& shift) {
  uint64_t a = c, b = 0, d = 0;
  const uint8_t* pb = p + block;
  const uint8_t* pd = p + 2 * block;
  for (size_t i = 0; i < block; i += 8) {
    uint64_t wa, wb, wd;
    std::memcpy(&wa, p + i, 8);
    std::memcpy(&wb, pb + i, 8);
    std::memcpy(&wd, pd + i, 8);
    a = _mm_crc32_u64(a, wa);
    b = _mm_crc32_u64(b, wb);
    d = _mm_crc32_u64(d, wd);
  }
  uint32_t joined = shift.apply(static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b);
  return shift.apply(joined) ^ static_cast<uint32_t>(d);
}

}  // namespace

__attribute__((target("sse4.2"))) uint32_t extend_sse42(uint32_t crc,
                                                        std::span<const std::byte> data) {
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  uint64_t c = ~crc;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    c = _mm_crc32_u8(static_cast<uint32_t>(c), *p++);
    --n;
  }
  if (n >= 3 * kLong) {
    const auto& shift = long_shift();
    while (n >= 3 * kLong) {
      c = three_streams(c, p, kLong, shift);
      p += 3 * kLong;
      n -= 3 * kLong;
    }
  }
  if (n >= 3 * kShort) {
    const auto& shift = short_shift();
    while (n >= 3 * kShort) {
      c = three_streams(c, p, kShort, shift);
      p += 3 * kShort;
      n -= 3 * kShort;
    }
  }
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c = _mm_crc32_u64(c, w);
    p += 8;
    n -= 8;
  }
  while (n-- > 0)
    c = _mm_crc32_u8(static_cast<uint32_t>(c), *p++);
  return ~static_cast<uint32_t>(c);
}

bool has_sse42() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#else
uint32_t extend_sse42(uint32_t crc, std::span<const std::byte> data) {
  return extend_portable(crc, data);
}
bool has_sse42() {
  return false;
}
#endif

uint32_t extend(uint32_t crc, std::span<const std::byte> data) {
  return has_sse42() ? extend_sse42(crc, data) : extend_portable(crc, data);
}

}  // namespace strata::crc32c
