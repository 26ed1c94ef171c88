// The broker configs Apache Kafka documents (server/kafka_broker_configs.inc,
// generated from Kafka's own definitions by scripts/gen_kafka_broker_configs.sh).
// Strata acts on many of them (BrokerConfig, topic_defaults.h); every other
// one is still taken — its value checked against its Kafka type, kept, and
// shown by DescribeConfigs with its source — and has no effect, so a
// properties file or an admin client written for Kafka works unchanged.
//
//   if (const auto* k = find_kafka_broker_config("sasl.kerberos.min.time.before.relogin"))
//     STRATA_TRY(check_kafka_broker_value(*k, "58000"));
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"

namespace strata::server {

struct KafkaBrokerConfig {
  // Whether Kafka lets AlterConfigs change it, and where.
  enum class Mode {
    kReadOnly,     // only in the properties file
    kPerBroker,    // for one broker at a time
    kClusterWide,  // for one broker or as the cluster default
  };
  std::string_view name;
  std::string_view
      type;  // Kafka's: int, short, long, double, boolean, string, list, class, password
  Mode mode = Mode::kReadOnly;
  std::optional<std::string_view> default_value;  // nullopt: Kafka has none (null)
};

std::span<const KafkaBrokerConfig> kafka_broker_configs();
const KafkaBrokerConfig* find_kafka_broker_config(std::string_view name);

// Whether `value` parses as the config's Kafka type.
Status check_kafka_broker_value(const KafkaBrokerConfig& config, const std::string& value);

// DescribeConfigs' documentation of a config Strata takes but does not use.
inline constexpr std::string_view kNoEffectInStrata =
    "an Apache Kafka broker config that has no effect in Strata: its value is checked, kept "
    "and shown";

}  // namespace strata::server
