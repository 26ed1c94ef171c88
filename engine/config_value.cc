#include "engine/config_value.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace strata::engine {

Error invalid_config(std::string_view name, std::string_view value, std::string_view why) {
  return Error(Errc::kInvalidConfig,
               fmt::format("invalid value '{}' for config {}: {}", value, name, why));
}

Result<int64_t> parse_config_integer(std::string_view name, std::string_view value, int64_t min,
                                     int64_t max) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || ptr != value.data() + value.size()) {
    return invalid_config(name, value, "not an integer");
  }
  if (v < min || v > max) {
    return invalid_config(name, value, fmt::format("must be between {} and {}", min, max));
  }
  return v;
}

Result<double> parse_config_double(std::string_view name, std::string_view value, double min,
                                   double max) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() ||
      !std::isfinite(v)) {
    return invalid_config(name, value, "not a number");
  }
  if (v < min || v > max) {
    return invalid_config(name, value,
                          fmt::format("must be between {} and {}", format_config_double(min),
                                      format_config_double(max)));
  }
  return v;
}

Result<bool> parse_config_bool(std::string_view name, std::string_view value) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (auto& c : out)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  std::string v = lower(value);
  if (v == "true") return true;
  if (v == "false") return false;
  return invalid_config(name, value, "must be true or false");
}

std::vector<std::string_view> split_config_list(std::string_view value) {
  std::vector<std::string_view> items;
  auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ')
      s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
      s.remove_suffix(1);
    return s;
  };
  while (true) {
    size_t comma = value.find(',');
    items.push_back(trim(value.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return items;
}

std::string format_config_double(double v) {
  return fmt::format("{}", v);
}

}  // namespace strata::engine
