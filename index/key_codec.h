// Key encodings of the index store: fixed-width big-endian fields, signed
// values with their sign bit flipped, so that RocksDB's bytewise key order is
// the numeric order of (partition, offset) and (partition, timestamp, offset).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/big_endian.h"
#include "base/ids.h"

namespace strata::index::keys {

inline constexpr size_t kUidSize = 8;

inline uint64_t flip(int64_t v) {
  return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63);
}
inline int64_t unflip(uint64_t v) {
  return static_cast<int64_t>(v ^ (uint64_t{1} << 63));
}

inline void append_u64(std::string& out, uint64_t v) {
  std::array<std::byte, 8> b;
  be::store<uint64_t>(b.data(), v);
  out.append(reinterpret_cast<const char*>(b.data()), b.size());
}

inline uint64_t read_u64(std::string_view s, size_t pos) {
  return be::load<uint64_t>(reinterpret_cast<const std::byte*>(s.data()) + pos);
}

inline std::string prefix(PartitionUid uid) {
  std::string k;
  append_u64(k, uid.value());
  return k;
}

// The first key after every key of `uid`.
inline std::string prefix_end(PartitionUid uid) {
  std::string k;
  if (uid.value() == UINT64_MAX) return std::string(9, '\xff');
  append_u64(k, uid.value() + 1);
  return k;
}

inline std::string offset_key(PartitionUid uid, Offset offset) {
  std::string k = prefix(uid);
  append_u64(k, flip(offset.value()));
  return k;
}

inline std::string time_key(PartitionUid uid, TimestampMs ts, Offset offset) {
  std::string k = prefix(uid);
  append_u64(k, flip(ts));
  append_u64(k, flip(offset.value()));
  return k;
}

inline std::string marker_key(PartitionUid uid, char kind) {
  std::string k = prefix(uid);
  k.push_back(kind);
  return k;
}

}  // namespace strata::index::keys
