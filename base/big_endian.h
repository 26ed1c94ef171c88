// Big-endian (network order) loads and stores: the byte order of the Kafka
// wire format and of every index key, so that byte order equals numeric order.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace strata::be {

template <typename U>
constexpr U byteswap(U v) {
  if constexpr (sizeof(U) == 1) {
    return v;
  } else if constexpr (sizeof(U) == 2) {
    return __builtin_bswap16(v);
  } else if constexpr (sizeof(U) == 4) {
    return __builtin_bswap32(v);
  } else {
    static_assert(sizeof(U) == 8);
    return __builtin_bswap64(v);
  }
}

template <typename T>
requires std::is_integral_v<T>
inline T load(const std::byte* p) {
  using U = std::make_unsigned_t<T>;
  U v;
  std::memcpy(&v, p, sizeof(U));
  if constexpr (std::endian::native == std::endian::little && sizeof(U) > 1) {
    v = byteswap(v);
  }
  return static_cast<T>(v);
}

template <typename T>
requires std::is_integral_v<T>
inline void store(std::byte* p, T value) {
  using U = std::make_unsigned_t<T>;
  U v = static_cast<U>(value);
  if constexpr (std::endian::native == std::endian::little && sizeof(U) > 1) {
    v = byteswap(v);
  }
  std::memcpy(p, &v, sizeof(U));
}

}  // namespace strata::be
