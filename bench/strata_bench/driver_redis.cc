// Placeholder until the redis driver lands: make_driver reports it missing.
#include "bench/strata_bench/driver.h"

namespace strata::bench {

Result<std::unique_ptr<Driver>> make_redis_driver(const DriverOptions&) {
  return Error(Errc::kInternal, "the redis driver is not built yet");
}

}  // namespace strata::bench
