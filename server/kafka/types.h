// Value types of the Kafka wire format that have no direct C++ equivalent,
// and the version ranges message declarations use.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/shared_bytes.h"

namespace strata::kafka {

// An inclusive range of API versions in which a field exists (or is nullable).
struct VersionRange {
  int16_t min = 0;
  int16_t max = INT16_MAX;
  constexpr bool contains(int16_t v) const { return v >= min && v <= max; }
};

// "N+" of Kafka's message definitions.
constexpr VersionRange since(int16_t v) {
  return {v, INT16_MAX};
}
// "A-B".
constexpr VersionRange between(int16_t a, int16_t b) {
  return {a, b};
}
inline constexpr VersionRange kAllVersions = since(0);
inline constexpr VersionRange kNoVersions = {1, 0};

using Uuid = std::array<uint8_t, 16>;
inline constexpr Uuid kZeroUuid{};

// "bytes" fields (group metadata, assignments): small, copied.
using Bytes = std::vector<std::byte>;

// "records" fields: record batches, never copied. A request's records are
// slices of the request frame; a response's are slices of segment reads.
struct Records {
  std::vector<SharedBytes> slices;
  bool null = false;

  size_t size() const {
    size_t n = 0;
    for (const auto& s : slices)
      n += s.size();
    return n;
  }
  bool operator==(const Records& o) const {
    if (null != o.null || size() != o.size()) return false;
    std::vector<std::byte> a, b;
    for (const auto& s : slices)
      a.insert(a.end(), s.data(), s.data() + s.size());
    for (const auto& s : o.slices)
      b.insert(b.end(), s.data(), s.data() + s.size());
    return a == b;
  }
};

}  // namespace strata::kafka
