// Placeholder until the nats driver lands: make_driver reports it missing.
#include "bench/strata_bench/driver.h"

namespace strata::bench {

Result<std::unique_ptr<Driver>> make_nats_driver(const DriverOptions&) {
  return Error(Errc::kInternal, "the nats driver is not built yet");
}

}  // namespace strata::bench
