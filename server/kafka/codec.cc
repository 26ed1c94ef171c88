#include "server/kafka/codec.h"

namespace strata::kafka {

void Reader::read_tag_section(size_t first_tag) {
  uint32_t count = uvarint();
  if (!ok()) return;
  if (count > remaining() / 2) {  // each tagged field takes at least two bytes
    fail("tagged field count " + std::to_string(count) + " exceeds the bytes that remain");
    return;
  }
  int64_t last_tag = -1;
  for (uint32_t i = 0; i < count && ok(); ++i) {
    uint32_t tag = uvarint();
    uint32_t size = uvarint();
    if (!ok()) return;
    if (static_cast<int64_t>(tag) <= last_tag) {
      fail("tagged fields out of order");
      return;
    }
    last_tag = tag;
    if (!need(size, "tagged field")) return;
    const std::byte* field_end = p_ + size;
    const TagSlot* slot = nullptr;
    for (size_t s = first_tag; s < tags_.size(); ++s) {
      if (tags_[s].tag == tag && tags_[s].depth == depth_) slot = &tags_[s];
    }
    if (slot == nullptr) {
      p_ = field_end;  // unknown tags are skipped, as the protocol requires
      continue;
    }
    const std::byte* saved_end = end_;
    end_ = field_end;
    slot->read(*this);
    if (ok() && p_ != field_end) fail("tagged field " + std::to_string(tag) + " has extra bytes");
    end_ = saved_end;
  }
}

std::vector<SharedBytes> Writer::finish(bool prefix_size) {
  if (prefix_size) {
    STRATA_CHECK(buf_.size() >= 4, "frame without its size placeholder");
    be::store<int32_t>(buf_.data(), static_cast<int32_t>(size() - 4));
  }
  std::vector<SharedBytes> out;
  SharedBytes own = SharedBytes::adopt(std::move(buf_));
  size_t pos = 0;
  for (auto& s : splices_) {
    if (s.at > pos) out.push_back(own.slice(pos, s.at - pos));
    out.push_back(std::move(s.bytes));
    pos = s.at;
  }
  if (own.size() > pos) out.push_back(own.slice(pos, own.size() - pos));
  splices_.clear();
  return out;
}

}  // namespace strata::kafka
