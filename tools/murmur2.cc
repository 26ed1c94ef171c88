#include "tools/murmur2.h"

#include <cstring>

namespace strata::tools {

int32_t murmur2(std::span<const std::byte> data) {
  const uint32_t m = 0x5bd1e995;
  const int r = 24;
  const auto length = static_cast<uint32_t>(data.size());
  uint32_t h = 0x9747b28cu ^ length;
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t i = 0;
  for (; i + 4 <= data.size(); i += 4) {
    uint32_t k = static_cast<uint32_t>(p[i]) | (static_cast<uint32_t>(p[i + 1]) << 8) |
                 (static_cast<uint32_t>(p[i + 2]) << 16) | (static_cast<uint32_t>(p[i + 3]) << 24);
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }
  switch (data.size() % 4) {
    case 3: h ^= static_cast<uint32_t>(p[i + 2]) << 16; [[fallthrough]];
    case 2: h ^= static_cast<uint32_t>(p[i + 1]) << 8; [[fallthrough]];
    case 1: h ^= p[i]; h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return static_cast<int32_t>(h);
}

int32_t java_partition(std::span<const std::byte> key, int32_t partitions) {
  int32_t positive = murmur2(key) & 0x7fffffff;
  return positive % partitions;
}

}  // namespace strata::tools
