#include "server/kafka_broker_configs.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>

#include <fmt/format.h>

namespace strata::server {
namespace {

using Mode = KafkaBrokerConfig::Mode;

constexpr KafkaBrokerConfig kConfigs[] = {
#include "server/kafka_broker_configs.inc"
};

template <typename T>
bool parses_as(std::string_view v) {
  T x{};
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  return ec == std::errc() && end == v.data() + v.size();
}

}  // namespace

std::span<const KafkaBrokerConfig> kafka_broker_configs() {
  return kConfigs;
}

const KafkaBrokerConfig* find_kafka_broker_config(std::string_view name) {
  // kConfigs is sorted by name (the generator writes it so).
  auto it =
      std::lower_bound(std::begin(kConfigs), std::end(kConfigs), name,
                       [](const KafkaBrokerConfig& c, std::string_view n) { return c.name < n; });
  return it != std::end(kConfigs) && it->name == name ? &*it : nullptr;
}

Status check_kafka_broker_value(const KafkaBrokerConfig& config, const std::string& value) {
  std::string_view v = value;
  // Kafka trims what it parses.
  while (!v.empty() && v.front() == ' ')
    v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ')
    v.remove_suffix(1);
  bool ok = true;
  const char* want = nullptr;
  if (config.type == "int") {
    ok = parses_as<int32_t>(v), want = "an int";
  } else if (config.type == "short") {
    ok = parses_as<int16_t>(v), want = "a short";
  } else if (config.type == "long") {
    ok = parses_as<int64_t>(v), want = "a long";
  } else if (config.type == "double") {
    char* end = nullptr;
    std::string s(v);
    std::strtod(s.c_str(), &end);
    ok = !s.empty() && end == s.c_str() + s.size(), want = "a number";
  } else if (config.type == "boolean") {
    ok = v == "true" || v == "false" || v == "TRUE" || v == "FALSE" || v == "True" || v == "False";
    want = "true or false";
  }
  if (!ok) {
    return Error(Errc::kInvalidConfig,
                 fmt::format("invalid value '{}' for broker config '{}': must be {}", value,
                             config.name, want));
  }
  return ok_status();
}

}  // namespace strata::server
