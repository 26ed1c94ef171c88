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

}  // namespace strata::engine
