// Positions given on the command line: an offset ("1234") or a time
// ("2026-11-29T08:00:00Z" in RFC 3339, or "@1764403200000" in epoch
// milliseconds).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace strata::tools {

struct Position {
  enum class Kind { kOffset, kTime };
  Kind kind = Kind::kOffset;
  int64_t value = 0;  // the offset, or epoch milliseconds
};

// RFC 3339: date, 'T' (or ' '), time with optional fraction, and 'Z' or an
// offset like +02:00. Returns epoch milliseconds.
Result<int64_t> parse_rfc3339(std::string_view s);
// An epoch-millisecond number or an RFC 3339 time.
Result<int64_t> parse_time(std::string_view s);
// An offset, "@<epoch ms>" or an RFC 3339 time.
Result<Position> parse_position(std::string_view s);
// Epoch milliseconds as RFC 3339 UTC with milliseconds.
std::string format_time(int64_t epoch_ms);

}  // namespace strata::tools
