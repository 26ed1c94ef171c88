// The encoding of the internal topics' records (__consumer_offsets,
// __transaction_state): Kafka's non-flexible message layout — big-endian
// integers, strings with an int16 length (-1: null), bytes with an int32
// length. `Out` appends; `In` reads and, at the first field the bytes cannot
// hold, stops: every later read returns a default and ok() is false.
//
//   records::Out o;  o.fixed<int16_t>(0);  o.str("id");
//   records::In in(o.buf);  auto v = in.fixed<int16_t>();  auto id = in.str();
//   if (!in.ok()) ... truncated
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/big_endian.h"

namespace strata::coordinator::records {

class Out {
 public:
  template <typename T>
  void fixed(T v) {
    std::byte b[sizeof(T)];
    be::store<T>(b, v);
    buf.insert(buf.end(), b, b + sizeof(T));
  }
  void str(std::string_view s) {
    fixed<int16_t>(static_cast<int16_t>(s.size()));
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    buf.insert(buf.end(), p, p + s.size());
  }
  void nullable_str(const std::optional<std::string>& s) {
    if (!s) return fixed<int16_t>(-1);
    str(*s);
  }
  void bytes(const std::vector<std::byte>& b) {
    fixed<int32_t>(static_cast<int32_t>(b.size()));
    buf.insert(buf.end(), b.begin(), b.end());
  }
  std::vector<std::byte> buf;
};

class In {
 public:
  explicit In(std::span<const std::byte> s) : p_(s.data()), end_(s.data() + s.size()) {}
  bool ok() const { return ok_; }
  // Bytes not yet read; whether none are.
  size_t left() const { return static_cast<size_t>(end_ - p_); }
  bool at_end() const { return p_ == end_; }
  template <typename T>
  T fixed() {
    if (static_cast<size_t>(end_ - p_) < sizeof(T)) return fail<T>();
    T v = be::load<T>(p_);
    p_ += sizeof(T);
    return v;
  }
  std::optional<std::string> nullable_str() {
    auto n = fixed<int16_t>();
    if (!ok_ || n < 0) return std::nullopt;
    if (end_ - p_ < n) return fail<std::optional<std::string>>();
    std::string s(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
    p_ += n;
    return s;
  }
  std::string str() {
    auto s = nullable_str();
    return s ? *s : std::string();
  }
  std::vector<std::byte> bytes() {
    auto n = fixed<int32_t>();
    if (!ok_ || n < 0) return {};
    if (end_ - p_ < n) return fail<std::vector<std::byte>>();
    std::vector<std::byte> b(p_, p_ + n);
    p_ += n;
    return b;
  }

 private:
  template <typename T>
  T fail() {
    ok_ = false;
    p_ = end_;
    return T{};
  }
  const std::byte* p_;
  const std::byte* end_;
  bool ok_ = true;
};

}  // namespace strata::coordinator::records
