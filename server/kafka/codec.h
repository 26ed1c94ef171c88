// The generic codec of the Kafka protocol.
//
// Every message is declared once, as a struct whose visit() lists its fields
// in wire order with the versions each exists in:
//
//   struct Example {
//     int32_t id = 0;
//     std::optional<std::string> name;   // nullable in some versions
//     std::vector<Item> items;
//     int64_t extra = -1;                 // tagged in flexible versions
//     template <typename V> void visit(V& v) {
//       v.field(id, kAllVersions);
//       v.field(name, since(1), /*nullable=*/since(1));
//       v.field(items, kAllVersions);
//       v.tagged(extra, /*tag=*/0, since(4), /*default=*/int64_t{-1});
//     }
//   };
//
// Reader, Writer and MinSize visit the same declarations, so no message is
// coded by hand per version. The C++ type of a field picks its wire type:
// intN_t/bool/double/Uuid as themselves, std::string as string,
// std::optional<std::string> as nullable string, Bytes as bytes,
// std::optional<Bytes> as nullable bytes, Records as records,
// std::vector<T> as array, std::optional<std::vector<T>> as nullable array,
// a struct with visit() as a nested struct and std::optional<Struct> as a
// nullable one (an int8 marker, -1 for null, before it). Flexible versions switch to
// compact lengths and add a tagged-field section to every struct.
//
// The Reader checks every length and count against the bytes that remain
// before it allocates, and caps what a frame may make it allocate.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "base/big_endian.h"
#include "base/check.h"
#include "base/shared_bytes.h"
#include "base/varint.h"
#include "server/kafka/types.h"

namespace strata::kafka {

namespace internal {
template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {
  using Elem = T;
};
template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {
  using Inner = T;
};
}  // namespace internal

// The smallest number of bytes one T occupies on the wire at a version.
class MinSize {
 public:
  MinSize(int16_t version, bool flexible) : version_(version), flexible_(flexible) {}

  template <typename T>
  void field(const T& value, VersionRange versions, VersionRange nullable = kNoVersions) {
    (void)value;
    (void)nullable;
    if (versions.contains(version_)) size_ += of<T>();
  }
  template <typename T>
  void tagged(const T&, uint32_t, VersionRange, const T& = T{}) {}

  template <typename T>
  size_t of() {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int8_t>) {
      return 1;
    } else if constexpr (std::is_integral_v<T> || std::is_same_v<T, double>) {
      return sizeof(T);
    } else if constexpr (std::is_same_v<T, Uuid>) {
      return 16;
    } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, Bytes> ||
                         std::is_same_v<T, Records> || internal::IsOptional<T>::value) {
      return flexible_ ? 1 : 2;  // a (compact) length at least
    } else if constexpr (internal::IsVector<T>::value) {
      return flexible_ ? 1 : 4;
    } else {
      MinSize inner(version_, flexible_);
      T probe{};
      probe.visit(inner);
      return inner.size_ + (flexible_ ? 1 : 0);
    }
  }

  size_t size() const { return size_; }

 private:
  int16_t version_;
  bool flexible_;
  size_t size_ = 0;
};

class Reader {
 public:
  // Reads from frame[offset, end). Arrays may allocate at most
  // `alloc_budget` bytes in all, so a small frame cannot claim gigabytes.
  Reader(SharedBytes frame, size_t offset, int16_t version, bool flexible, size_t alloc_budget)
      : frame_(std::move(frame)),
        p_(frame_.data() + offset),
        end_(frame_.data() + frame_.size()),
        version_(version),
        flexible_(flexible),
        budget_(alloc_budget) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  int16_t version() const { return version_; }
  bool flexible() const { return flexible_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  const std::byte* position() const { return p_; }

  template <typename T>
  void field(T& value, VersionRange versions, VersionRange nullable = kNoVersions) {
    if (!ok() || !versions.contains(version_)) return;
    read(value, nullable.contains(version_));
  }

  template <typename T>
  void tagged(T& value, uint32_t tag, VersionRange versions, const T& = T{}) {
    if (!ok() || !flexible_ || !versions.contains(version_)) return;
    tags_.push_back(TagSlot{tag, depth_, [&value](Reader& r) { r.read(value, true); }});
  }

  // Reads a whole struct: its fields, then (flexible) its tagged fields.
  template <typename T>
  void read_struct(T& s) {
    ++depth_;
    size_t first_tag = tags_.size();
    s.visit(*this);
    if (ok() && flexible_) read_tag_section(first_tag);
    tags_.resize(first_tag);
    --depth_;
  }

  // A tagged-field section outside any struct (a response header's): every
  // field in it is skipped.
  void skip_tag_section() { read_tag_section(tags_.size()); }

  void fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    p_ = end_;
  }

  // Primitive reads, also used for headers.
  bool need(size_t n, const char* what) {
    if (remaining() >= n) return true;
    fail(std::string("truncated ") + what);
    return false;
  }
  template <typename T>
  T fixed() {
    if (!need(sizeof(T), "integer")) return T{};
    T v = be::load<T>(p_);
    p_ += sizeof(T);
    return v;
  }
  uint32_t uvarint() {
    auto v = varint::read_u32(p_, end_);
    if (!v) {
      fail("bad unsigned varint");
      return 0;
    }
    return *v;
  }
  // A length: int16/int32 (-1 = null) or a compact uvarint N+1 (0 = null).
  // Returns -1 for null; fails if the length exceeds what remains.
  int64_t length(bool compact, bool wide, const char* what) {
    int64_t n;
    if (compact) {
      n = static_cast<int64_t>(uvarint()) - 1;
    } else if (wide) {
      n = fixed<int32_t>();
    } else {
      n = fixed<int16_t>();
    }
    if (!ok()) return -1;
    if (n < -1) {
      fail(std::string("negative ") + what + " length");
      return -1;
    }
    return n;
  }

 private:
  struct TagSlot {
    uint32_t tag;
    int depth;
    std::function<void(Reader&)> read;
  };

  void read_tag_section(size_t first_tag);

  void read(bool& v, bool) { v = fixed<int8_t>() != 0; }
  void read(int8_t& v, bool) { v = fixed<int8_t>(); }
  void read(int16_t& v, bool) { v = fixed<int16_t>(); }
  void read(uint16_t& v, bool) { v = fixed<uint16_t>(); }
  void read(int32_t& v, bool) { v = fixed<int32_t>(); }
  void read(int64_t& v, bool) { v = fixed<int64_t>(); }
  void read(double& v, bool) {
    auto bits = fixed<uint64_t>();
    std::memcpy(&v, &bits, sizeof(v));
  }
  void read(Uuid& v, bool) {
    if (!need(16, "uuid")) return;
    std::memcpy(v.data(), p_, 16);
    p_ += 16;
  }
  void read(std::string& v, bool nullable) {
    int64_t n = length(flexible_, false, "string");
    if (!ok()) return;
    if (n < 0) {
      if (!nullable) fail("null in a non-nullable string");
      v.clear();
      return;
    }
    if (!need(static_cast<size_t>(n), "string")) return;
    v.assign(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
    p_ += n;
  }
  void read(std::optional<std::string>& v, bool nullable) {
    int64_t n = length(flexible_, false, "string");
    if (!ok()) return;
    if (n < 0) {
      if (!nullable) fail("null in a non-nullable string");
      v.reset();
      return;
    }
    if (!need(static_cast<size_t>(n), "string")) return;
    v.emplace(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
    p_ += n;
  }
  void read(Bytes& v, bool nullable) {
    std::optional<Bytes> o;
    read(o, nullable);
    v = o ? std::move(*o) : Bytes();
  }
  void read(std::optional<Bytes>& v, bool nullable) {
    int64_t n = length(flexible_, true, "bytes");
    if (!ok()) return;
    if (n < 0) {
      if (!nullable) fail("null in non-nullable bytes");
      v.reset();
      return;
    }
    if (!need(static_cast<size_t>(n), "bytes")) return;
    v.emplace(p_, p_ + n);
    p_ += n;
  }
  void read(Records& v, bool) {
    int64_t n = length(flexible_, true, "records");
    if (!ok()) return;
    v.slices.clear();
    v.null = n < 0;
    if (n <= 0) return;
    if (!need(static_cast<size_t>(n), "records")) return;
    v.slices.push_back(
        frame_.slice(static_cast<size_t>(p_ - frame_.data()), static_cast<size_t>(n)));
    p_ += n;
  }
  template <typename T>
  void read(std::vector<T>& v, bool nullable) {
    std::optional<std::vector<T>> o;
    read(o, nullable);
    v = o ? std::move(*o) : std::vector<T>();
  }
  template <typename T>
  void read(std::optional<std::vector<T>>& v, bool nullable) {
    int64_t n = length(flexible_, true, "array");
    if (!ok()) return;
    if (n < 0) {
      if (!nullable) fail("null in a non-nullable array");
      v.reset();
      return;
    }
    size_t min = std::max<size_t>(1, MinSize(version_, flexible_).of<T>());
    if (static_cast<uint64_t>(n) > remaining() / min) {
      fail("array count " + std::to_string(n) + " exceeds the bytes that remain");
      return;
    }
    size_t cost = static_cast<size_t>(n) * sizeof(T);
    if (cost > budget_) {
      fail("array of " + std::to_string(n) + " elements exceeds the request's allocation budget");
      return;
    }
    budget_ -= cost;
    v.emplace();
    v->resize(static_cast<size_t>(n));
    for (auto& e : *v) {
      read(e, false);
      if (!ok()) return;
    }
  }
  // A nullable struct: an int8 marker (-1 null, 1 present), then the struct.
  template <typename T>
  requires std::is_class_v<T>
  void read(std::optional<T>& v, bool nullable) {
    auto marker = fixed<int8_t>();
    if (!ok()) return;
    if (marker < 0) {
      if (!nullable) fail("null in a non-nullable struct");
      v.reset();
      return;
    }
    v.emplace();
    read_struct(*v);
  }
  template <typename T>
  requires std::is_class_v<T>
  void read(T& s, bool) { read_struct(s); }

  SharedBytes frame_;
  const std::byte* p_;
  const std::byte* end_;
  int16_t version_;
  bool flexible_;
  size_t budget_;
  int depth_ = 0;
  std::vector<TagSlot> tags_;
  std::string error_;
};

class Writer {
 public:
  Writer(int16_t version, bool flexible) : version_(version), flexible_(flexible) {}

  int16_t version() const { return version_; }
  bool flexible() const { return flexible_; }

  template <typename T>
  void field(const T& value, VersionRange versions, VersionRange nullable = kNoVersions) {
    if (!versions.contains(version_)) return;
    write(value, nullable.contains(version_));
  }

  template <typename T>
  void tagged(const T& value, uint32_t tag, VersionRange versions, const T& def = T{}) {
    if (!flexible_ || !versions.contains(version_) || value == def) return;
    Writer inner(version_, flexible_);
    inner.write(value, true);
    STRATA_CHECK(inner.splices_.empty(), "records in a tagged field");
    tags_.push_back(PendingTag{tag, depth_, std::move(inner.buf_)});
  }

  template <typename T>
  void write_struct(const T& s) {
    ++depth_;
    size_t first_tag = tags_.size();
    const_cast<T&>(s).visit(*this);
    if (flexible_) {
      size_t count = tags_.size() - first_tag;
      uvarint(static_cast<uint32_t>(count));
      for (size_t i = first_tag; i < tags_.size(); ++i) {
        uvarint(tags_[i].tag);
        uvarint(static_cast<uint32_t>(tags_[i].bytes.size()));
        raw(tags_[i].bytes.data(), tags_[i].bytes.size());
      }
    }
    tags_.resize(first_tag);
    --depth_;
  }

  template <typename T>
  void fixed(T v) {
    std::byte b[sizeof(T)];
    be::store<T>(b, v);
    raw(b, sizeof(T));
  }
  void uvarint(uint32_t v) {
    std::byte b[5];
    raw(b, varint::write_unsigned(b, v));
  }
  void raw(const void* data, size_t n) {
    const auto* p = static_cast<const std::byte*>(data);
    buf_.insert(buf_.end(), p, p + n);
  }
  void length(int64_t n, bool wide) {  // n = -1 for null
    if (flexible_) {
      uvarint(static_cast<uint32_t>(n + 1));
    } else if (wide) {
      fixed<int32_t>(static_cast<int32_t>(n));
    } else {
      fixed<int16_t>(static_cast<int16_t>(n));
    }
  }

  size_t size() const {
    size_t n = buf_.size();
    for (const auto& s : splices_)
      n += s.bytes.size();
    return n;
  }

  // The encoded bytes as buffers to send in order: the writer's own bytes
  // with the records slices spliced in where they belong. `prefix_size`
  // writes the total size minus 4 into the first 4 bytes, for frames that
  // start with a size placeholder.
  std::vector<SharedBytes> finish(bool prefix_size);

 private:
  struct PendingTag {
    uint32_t tag;
    int depth;
    std::vector<std::byte> bytes;
  };
  struct Splice {
    size_t at;  // position in buf_
    SharedBytes bytes;
  };

  void write(bool v, bool) { fixed<int8_t>(v ? 1 : 0); }
  void write(int8_t v, bool) { fixed<int8_t>(v); }
  void write(int16_t v, bool) { fixed<int16_t>(v); }
  void write(uint16_t v, bool) { fixed<uint16_t>(v); }
  void write(int32_t v, bool) { fixed<int32_t>(v); }
  void write(int64_t v, bool) { fixed<int64_t>(v); }
  void write(double v, bool) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(v));
    fixed<uint64_t>(bits);
  }
  void write(const Uuid& v, bool) { raw(v.data(), v.size()); }
  void write(const std::string& v, bool) {
    length(static_cast<int64_t>(v.size()), false);
    raw(v.data(), v.size());
  }
  void write(const std::optional<std::string>& v, bool nullable) {
    if (!v) return length(nullable ? -1 : 0, false);
    write(*v, nullable);
  }
  void write(const Bytes& v, bool) {
    length(static_cast<int64_t>(v.size()), true);
    raw(v.data(), v.size());
  }
  void write(const std::optional<Bytes>& v, bool nullable) {
    if (!v) return length(nullable ? -1 : 0, true);
    write(*v, nullable);
  }
  void write(const Records& v, bool nullable) {
    if (v.null && nullable) return length(-1, true);
    length(static_cast<int64_t>(v.size()), true);
    for (const auto& s : v.slices) {
      if (!s.empty()) splices_.push_back(Splice{buf_.size(), s});
    }
  }
  template <typename T>
  void write(const std::vector<T>& v, bool) {
    length(static_cast<int64_t>(v.size()), true);
    for (const auto& e : v)
      write(e, false);
  }
  template <typename T>
  void write(const std::optional<std::vector<T>>& v, bool nullable) {
    if (!v) return length(nullable ? -1 : 0, true);
    write(*v, nullable);
  }
  template <typename T>
  requires std::is_class_v<T>
  void write(const std::optional<T>& v, bool nullable) {
    if (!v && nullable) return fixed<int8_t>(-1);
    fixed<int8_t>(1);
    write_struct(v ? *v : T{});
  }
  template <typename T>
  requires std::is_class_v<T>
  void write(const T& s, bool) { write_struct(s); }

  int16_t version_;
  bool flexible_;
  int depth_ = 0;
  std::vector<std::byte> buf_;
  std::vector<Splice> splices_;
  std::vector<PendingTag> tags_;
};

}  // namespace strata::kafka
