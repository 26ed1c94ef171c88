#include "server/dynamic_broker_key.h"

#include <fmt/format.h>

#include "engine/topic_config.h"
#include "server/broker_config.h"

namespace strata::server {

std::string_view DynamicBrokerKey::type() const {
  if (kafka_only != nullptr) return kafka_only->type;
  const auto* d = engine::find_topic_config(synonym->topic_key);
  return d == nullptr ? std::string_view("string") : synonym->unit == 1 ? d->type : "long";
}

Result<DynamicBrokerKey> dynamic_broker_key(std::string_view key) {
  const auto* synonym = find_synonym(key);
  const auto* kafka = synonym == nullptr ? find_kafka_broker_config(key) : nullptr;
  if ((synonym != nullptr && !synonym->dynamic) || BrokerConfig::is_static_key(key) ||
      (kafka != nullptr && kafka->mode == KafkaBrokerConfig::Mode::kReadOnly)) {
    return Error(Errc::kInvalidArgument,
                 fmt::format("broker config '{}' cannot be changed at runtime: set it in the "
                             "properties file or with --set and restart the broker",
                             key));
  }
  if (synonym == nullptr && kafka == nullptr) {
    return Error(Errc::kInvalidConfig,
                 fmt::format("unknown broker config '{}' (or one Strata does not have)", key));
  }
  return DynamicBrokerKey{synonym, kafka};
}

}  // namespace strata::server
