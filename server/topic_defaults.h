// Topic defaults: the broker properties that set the default of a topic
// config (Kafka's "synonyms": log.retention.ms, log.retention.minutes and
// log.retention.hours for retention.ms, message.max.bytes for
// max.message.bytes, ...), and how their layers resolve.
//
// Layers, highest first: the dynamic configs of this broker, the dynamic
// cluster default (both set through AlterConfigs on the BROKER resource and
// kept in the metadata store), the static properties (file, --set, flags),
// then Kafka's default. Within a layer stack, synonyms are tried in Kafka's
// order (milliseconds before minutes before hours), each through all layers.
//
//   TopicDefaultLayers layers{per_broker, cluster_default, static_props};
//   engine::TopicConfig defaults = resolve_topic_defaults(layers).value();
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "coordinator/broker_config_store.h"
#include "engine/topic_config.h"

namespace strata::server {

struct TopicDefaultSynonym {
  std::string_view broker_key;  // e.g. "log.retention.hours"
  std::string_view topic_key;   // e.g. "retention.ms"
  int64_t unit = 1;             // topic value = broker value * unit (negative values kept)
  bool dynamic = true;          // may be changed at runtime (Kafka's cluster-wide mode)
  // What Kafka describes for a secondary synonym that is not set (the
  // primary one shows the resolved value instead); nullopt: no value.
  std::optional<std::string_view> unset_value = std::nullopt;
};

// Every synonym, grouped by topic config, each group in precedence order.
const std::vector<TopicDefaultSynonym>& topic_default_synonyms();
// The synonyms of `topic_key` in precedence order (empty for configs
// without one, like the throttled-replica lists).
std::vector<const TopicDefaultSynonym*> synonyms_of(std::string_view topic_key);
const TopicDefaultSynonym* find_synonym(std::string_view broker_key);

// The topic-config value a synonym's broker value stands for, validated
// (errors name the broker key and its value).
Result<std::string> topic_value_of(const TopicDefaultSynonym& s, std::string_view broker_value);

enum class ConfigLayer { kDynamicBroker, kDynamicDefault, kStatic, kDefault };

struct TopicDefaultLayers {
  coordinator::ConfigMap per_broker;       // dynamic, this broker
  coordinator::ConfigMap cluster_default;  // dynamic, every broker
  coordinator::ConfigMap static_props;     // properties file, --set and flags
};

// One set synonym: its broker key, value as given and layer.
struct SetSynonym {
  std::string broker_key;
  std::string value;
  ConfigLayer layer;
};

// The synonyms of `topic_key` that are set, in precedence order: the first
// one decides the default. Within each synonym: per broker, cluster
// default, static.
std::vector<SetSynonym> set_synonyms(const TopicDefaultLayers& layers, std::string_view topic_key);

// The DescribeConfigs source (kSource* of server/kafka) of a layer.
int8_t kafka_config_source(ConfigLayer layer);

// The source of topic config `name` of a topic whose overrides are
// `overrides`: the override, else the first set synonym, else the default.
int8_t topic_config_source(const coordinator::ConfigMap& overrides,
                           const TopicDefaultLayers& layers, std::string_view name);

// The topic defaults the layers give.
Result<engine::TopicConfig> resolve_topic_defaults(const TopicDefaultLayers& layers);

}  // namespace strata::server
