#include "coordinator/cluster_metadata.h"

#include <random>

#include <fmt/format.h>

namespace strata::coordinator {

std::optional<std::string> invalid_topic_name(std::string_view name) {
  if (name.empty()) return "topic name is empty";
  if (name == "." || name == "..") return fmt::format("topic name '{}' is not allowed", name);
  if (name.size() > 249) {
    return fmt::format("topic name is {} characters long, more than the 249 allowed", name.size());
  }
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) {
      return fmt::format(
          "topic name '{}' contains '{}'; allowed are ASCII letters, digits, '.', "
          "'_' and '-'",
          name, c);
    }
  }
  return std::nullopt;
}

std::string id_to_string(const TopicId& id) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (uint8_t b : id) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kAlphabet[(acc >> bits) & 0x3F]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(acc << (6 - bits)) & 0x3F]);
  return out;
}

TopicId random_id() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  TopicId id{};
  do {
    uint64_t a = rng(), b = rng();
    for (int i = 0; i < 8; ++i) {
      id[static_cast<size_t>(i)] = static_cast<uint8_t>(a >> (8 * i));
      id[static_cast<size_t>(8 + i)] = static_cast<uint8_t>(b >> (8 * i));
    }
  } while (id == TopicId{});
  return id;
}

}  // namespace strata::coordinator
