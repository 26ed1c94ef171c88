#include "coordinator/group/consumer_subscription.h"

#include <algorithm>

#include "base/big_endian.h"

namespace strata::coordinator {

std::optional<std::vector<std::string>> subscribed_topics(const Bytes& metadata) {
  const std::byte* p = metadata.data();
  const std::byte* end = p + metadata.size();
  if (end - p < 6) return std::nullopt;
  if (be::load<int16_t>(p) < 0) return std::nullopt;
  int32_t count = be::load<int32_t>(p + 2);
  p += 6;
  // Each topic takes at least its two length bytes.
  if (count < 0 || count > (end - p) / 2) return std::nullopt;
  std::vector<std::string> topics;
  topics.reserve(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    if (end - p < 2) return std::nullopt;
    int16_t len = be::load<int16_t>(p);
    p += 2;
    if (len < 0 || end - p < len) return std::nullopt;
    topics.emplace_back(reinterpret_cast<const char*>(p), static_cast<size_t>(len));
    p += len;
  }
  std::sort(topics.begin(), topics.end());
  return topics;
}

bool same_protocols(const std::string& protocol_type, const std::vector<GroupProtocol>& before,
                    const std::vector<GroupProtocol>& now) {
  if (before.size() != now.size()) return false;
  for (size_t i = 0; i < before.size(); ++i) {
    if (before[i].name != now[i].name) return false;
    if (before[i].metadata == now[i].metadata) continue;
    if (protocol_type != "consumer") return false;
    auto a = subscribed_topics(before[i].metadata);
    auto b = subscribed_topics(now[i].metadata);
    if (!a || !b || *a != *b) return false;
  }
  return true;
}

}  // namespace strata::coordinator
