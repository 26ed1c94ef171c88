// Parsing of config values as Kafka's ConfigDef reads them — integers in a
// range, doubles, booleans, comma-separated lists — with errors (kInvalidConfig)
// whose message names the config, the value and what is allowed.
//
//   auto ms = parse_config_integer("retention.ms", "soon", -1, INT64_MAX);
//   // error: invalid value 'soon' for config retention.ms: not an integer
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace strata::engine {

// "invalid value '<value>' for config <name>: <why>"
Error invalid_config(std::string_view name, std::string_view value, std::string_view why);

// A base-10 integer within [min, max].
Result<int64_t> parse_config_integer(std::string_view name, std::string_view value, int64_t min,
                                     int64_t max);
// A finite decimal number within [min, max].
Result<double> parse_config_double(std::string_view name, std::string_view value, double min,
                                   double max);
// "true" or "false", in any case (as Kafka accepts them).
Result<bool> parse_config_bool(std::string_view name, std::string_view value);

// The items of a comma-separated list, each trimmed of spaces; empty items
// are kept (as "") so callers can refuse them.
std::vector<std::string_view> split_config_list(std::string_view value);

// Kafka's textual form of a double: the shortest that reads back the same.
std::string format_config_double(double v);

}  // namespace strata::engine
