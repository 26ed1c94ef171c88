#include "bench/strata_bench/driver.h"

namespace strata::bench {

Result<std::unique_ptr<Driver>> make_driver(std::string_view name, const DriverOptions& options) {
  if (name == "kafka") return make_kafka_driver(options);
  if (name == "redis-streams") return make_redis_driver(options);
  if (name == "nats-jetstream") return make_nats_driver(options);
  return Error(Errc::kInvalidArgument, "unknown driver '" + std::string(name) +
                                           "' (kafka, redis-streams or nats-jetstream)");
}

}  // namespace strata::bench
