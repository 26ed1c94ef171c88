// SharedBytes: a reference-counted byte buffer and views into it.
//
// A produce request's batches are appended to the log without being copied:
// the log holds a SharedBytes slice of the request buffer until the write
// completes. Slices share ownership of the whole allocation. The contents are
// mutable (the broker stamps offsets into batch headers) but the size is not.
//
// Thread-safety: the reference count is atomic; the bytes themselves are not
// synchronized.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "base/check.h"

namespace strata {

class SharedBytes {
 public:
  SharedBytes() = default;

  static SharedBytes allocate(size_t size) {
    SharedBytes b;
    if (size == 0) return b;
    auto owner = std::shared_ptr<std::byte[]>(new std::byte[size]);
    b.data_ = owner.get();
    b.owner_ = std::move(owner);
    b.size_ = size;
    return b;
  }

  // Takes over `bytes` without copying them.
  static SharedBytes adopt(std::vector<std::byte>&& bytes) {
    SharedBytes b;
    if (bytes.empty()) return b;
    auto owner = std::make_shared<std::vector<std::byte>>(std::move(bytes));
    b.data_ = owner->data();
    b.size_ = owner->size();
    b.owner_ = std::move(owner);
    return b;
  }

  static SharedBytes copy_of(std::span<const std::byte> src) {
    SharedBytes b = allocate(src.size());
    if (!src.empty()) std::memcpy(b.data_, src.data(), src.size());
    return b;
  }

  static SharedBytes copy_of(std::string_view s) {
    return copy_of(std::as_bytes(std::span<const char>(s.data(), s.size())));
  }

  // A view of [offset, offset + length) sharing this buffer's allocation.
  SharedBytes slice(size_t offset, size_t length) const {
    STRATA_CHECK(offset <= size_ && length <= size_ - offset, "slice {}+{} of {} bytes", offset,
                 length, size_);
    SharedBytes b;
    b.owner_ = owner_;
    b.data_ = data_ + offset;
    b.size_ = length;
    return b;
  }

  // Grows this view over `next` when `next` starts right where this view
  // ends inside the same allocation. Returns whether it did.
  bool try_extend(const SharedBytes& next) {
    if (owner_ != next.owner_ || data_ + size_ != next.data_) return false;
    size_ += next.size_;
    return true;
  }

  std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::span<std::byte> span() const { return {data_, size_}; }
  std::string_view as_string_view() const { return {reinterpret_cast<const char*>(data_), size_}; }

 private:
  std::shared_ptr<void> owner_;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace strata
