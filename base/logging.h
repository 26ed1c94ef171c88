// Process-wide logging setup. Strata logs through spdlog; every binary calls
// init_logging() first so that log lines go to stderr (stdout belongs to the
// program's output, e.g. benchmark JSON or CLI results).
#pragma once

#include <string_view>

#include "base/result.h"

namespace strata {

// level: trace, debug, info, warn, error, critical or off.
Status init_logging(std::string_view level);

}  // namespace strata
