// StrongInt<Tag, Rep>: an integer that only mixes with integers of its own kind,
// so an offset can never be passed where a leader epoch or a file position is
// expected.
//
//   struct OffsetTag {};
//   using Offset = StrongInt<OffsetTag, int64_t>;
//   Offset next = base + 3;       // adding a plain count is allowed
//   int64_t gap = next - base;    // the difference of two offsets is a count
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>

#include <fmt/format.h>

namespace strata {

template <typename Tag, typename Rep>
class StrongInt {
 public:
  using rep = Rep;

  constexpr StrongInt() = default;
  constexpr explicit StrongInt(Rep v) : v_(v) {}

  constexpr Rep value() const { return v_; }

  static constexpr StrongInt min() { return StrongInt(std::numeric_limits<Rep>::min()); }
  static constexpr StrongInt max() { return StrongInt(std::numeric_limits<Rep>::max()); }

  constexpr auto operator<=>(const StrongInt&) const = default;

  constexpr StrongInt operator+(Rep n) const { return StrongInt(v_ + n); }
  constexpr StrongInt operator-(Rep n) const { return StrongInt(v_ - n); }
  constexpr Rep operator-(StrongInt o) const { return v_ - o.v_; }
  constexpr StrongInt& operator+=(Rep n) {
    v_ += n;
    return *this;
  }
  constexpr StrongInt& operator-=(Rep n) {
    v_ -= n;
    return *this;
  }
  constexpr StrongInt& operator++() {
    ++v_;
    return *this;
  }

 private:
  Rep v_ = 0;
};

template <typename Tag, typename Rep>
std::ostream& operator<<(std::ostream& os, StrongInt<Tag, Rep> v) {
  return os << v.value();
}

}  // namespace strata

template <typename Tag, typename Rep>
struct std::hash<strata::StrongInt<Tag, Rep>> {
  size_t operator()(strata::StrongInt<Tag, Rep> v) const noexcept {
    return std::hash<Rep>()(v.value());
  }
};

template <typename Tag, typename Rep>
struct fmt::formatter<strata::StrongInt<Tag, Rep>> : fmt::formatter<Rep> {
  template <typename Ctx>
  auto format(strata::StrongInt<Tag, Rep> v, Ctx& ctx) const {
    return fmt::formatter<Rep>::format(v.value(), ctx);
  }
};
