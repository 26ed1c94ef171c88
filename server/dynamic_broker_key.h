// Which broker configs may change at runtime (AlterConfigs on a BROKER
// resource): the broker synonyms of topic configs that are dynamic, and the
// Kafka broker configs Strata keeps without using; never a static one.
//
//   auto k = dynamic_broker_key("log.retention.ms");   // its synonym
//   k->type();                                          // "long"
#pragma once

#include <string_view>

#include "base/result.h"
#include "server/kafka_broker_configs.h"
#include "server/topic_defaults.h"

namespace strata::server {

// What a broker config that may change at runtime is: the topic default it
// sets, or a Kafka config Strata keeps without using it.
struct DynamicBrokerKey {
  const TopicDefaultSynonym* synonym = nullptr;
  const KafkaBrokerConfig* kafka_only = nullptr;
  // Its type as DescribeConfigs names it ("long", "list", ...).
  std::string_view type() const;
};

// `key` if it may change at runtime; otherwise an error naming it
// (kInvalidArgument for static ones, which need a restart; kInvalidConfig
// for unknown ones).
Result<DynamicBrokerKey> dynamic_broker_key(std::string_view key);

}  // namespace strata::server
