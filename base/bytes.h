// Bytes and strings, viewed as each other without copying (bytes_of) or
// copied (string_of): RocksDB values and record keys are strings, record
// codecs take std::byte spans.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace strata {

inline std::span<const std::byte> bytes_of(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

inline std::string string_of(std::span<const std::byte> b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

}  // namespace strata
