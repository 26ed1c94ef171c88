#include "base/logging.h"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace strata {

Status init_logging(std::string_view level) {
  auto lvl = spdlog::level::from_str(std::string(level));
  if (lvl == spdlog::level::off && level != "off") {
    return Error(Errc::kInvalidArgument,
                 fmt::format("unknown log level '{}' (trace, debug, info, warn, error, "
                             "critical, off)",
                             level));
  }
  auto logger = spdlog::stderr_color_mt("strata");
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  logger->set_level(lvl);
  spdlog::set_default_logger(std::move(logger));
  return ok_status();
}

}  // namespace strata
