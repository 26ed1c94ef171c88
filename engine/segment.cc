#include "engine/segment.h"

#include <charconv>

#include <fmt/format.h>

namespace strata::engine {

std::string segment_file_name(Offset base) {
  return fmt::format("{:020d}{}", base.value(), kSegmentSuffix);
}

std::optional<Offset> parse_segment_file_name(std::string_view name) {
  if (name.size() != 20 + kSegmentSuffix.size() || !name.ends_with(kSegmentSuffix)) {
    return std::nullopt;
  }
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(name.data(), name.data() + 20, v);
  if (ec != std::errc() || ptr != name.data() + 20 || v < 0) return std::nullopt;
  return Offset(v);
}

std::vector<std::shared_ptr<Segment>> SegmentSet::wholly_below(Offset start) const {
  std::vector<std::shared_ptr<Segment>> out;
  for (auto it = begin(); it != end() && std::next(it) != end(); ++it) {
    if (std::next(it)->first > start) break;
    out.push_back(it->second);
  }
  return out;
}

std::vector<std::shared_ptr<Segment>> SegmentSet::expired(TimestampMs now, int64_t retention_ms,
                                                          int64_t retention_bytes) const {
  std::vector<std::shared_ptr<Segment>> out;
  uint64_t total = size_bytes();
  for (auto it = begin(); it != end() && std::next(it) != end(); ++it) {
    const auto& seg = it->second;
    bool old = retention_ms >= 0 && seg->retention_time() < now - retention_ms;
    bool oversize =
        retention_bytes >= 0 && total - seg->size >= static_cast<uint64_t>(retention_bytes);
    if (!old && !oversize) break;
    out.push_back(seg);
    total -= seg->size;
  }
  return out;
}

}  // namespace strata::engine
