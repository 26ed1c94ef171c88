#include "server/topic_defaults.h"

#include <fmt/format.h>

#include "engine/config_value.h"
#include "server/kafka/messages/describe_configs.h"

namespace strata::server {

const std::vector<TopicDefaultSynonym>& topic_default_synonyms() {
  constexpr int64_t kMinute = 60000;
  constexpr int64_t kHour = 3600000;
  static const std::vector<TopicDefaultSynonym> table = {
      {"log.cleanup.policy", "cleanup.policy"},
      {"compression.gzip.level", "compression.gzip.level"},
      {"compression.lz4.level", "compression.lz4.level"},
      {"compression.type", "compression.type"},
      {"compression.zstd.level", "compression.zstd.level"},
      {"log.cleaner.delete.retention.ms", "delete.retention.ms"},
      {"durability", "durability"},
      {"log.segment.delete.delay.ms", "file.delete.delay.ms"},
      {"log.flush.interval.messages", "flush.messages"},
      {"log.flush.interval.ms", "flush.ms"},
      {"log.flush.scheduler.interval.ms", "flush.ms", 1, false, "9223372036854775807"},
      {"log.index.interval.bytes", "index.interval.bytes"},
      {"log.cleaner.max.compaction.lag.ms", "max.compaction.lag.ms"},
      {"message.max.bytes", "max.message.bytes"},
      {"log.message.downconversion.enable", "message.downconversion.enable"},
      // Kafka does not let the format version change at runtime either.
      {"log.message.format.version", "message.format.version", 1, false},
      {"log.message.timestamp.after.max.ms", "message.timestamp.after.max.ms"},
      {"log.message.timestamp.before.max.ms", "message.timestamp.before.max.ms"},
      {"log.message.timestamp.difference.max.ms", "message.timestamp.difference.max.ms"},
      {"log.message.timestamp.type", "message.timestamp.type"},
      {"log.cleaner.min.cleanable.ratio", "min.cleanable.dirty.ratio"},
      {"log.cleaner.min.compaction.lag.ms", "min.compaction.lag.ms"},
      {"min.insync.replicas", "min.insync.replicas"},
      {"log.preallocate", "preallocate"},
      {"log.retention.bytes", "retention.bytes"},
      {"log.retention.ms", "retention.ms"},
      {"log.retention.minutes", "retention.ms", kMinute, false},
      {"log.retention.hours", "retention.ms", kHour, false, "168"},
      {"log.segment.bytes", "segment.bytes"},
      {"log.index.size.max.bytes", "segment.index.bytes"},
      {"log.roll.jitter.ms", "segment.jitter.ms"},
      {"log.roll.jitter.hours", "segment.jitter.ms", kHour, false, "0"},
      {"log.roll.ms", "segment.ms"},
      {"log.roll.hours", "segment.ms", kHour, false, "168"},
      {"unclean.leader.election.enable", "unclean.leader.election.enable"},
  };
  return table;
}

std::vector<const TopicDefaultSynonym*> synonyms_of(std::string_view topic_key) {
  std::vector<const TopicDefaultSynonym*> out;
  for (const auto& s : topic_default_synonyms()) {
    if (s.topic_key == topic_key) out.push_back(&s);
  }
  return out;
}

const TopicDefaultSynonym* find_synonym(std::string_view broker_key) {
  for (const auto& s : topic_default_synonyms()) {
    if (s.broker_key == broker_key) return &s;
  }
  return nullptr;
}

Result<std::string> topic_value_of(const TopicDefaultSynonym& s, std::string_view broker_value) {
  std::string value(broker_value);
  if (s.unit != 1) {
    // Coarser units (minutes, hours): retention keeps -1 (forever).
    int64_t min = s.topic_key == "retention.ms" ? -1 : s.topic_key == "segment.ms" ? 1 : 0;
    auto v = engine::parse_config_integer(s.broker_key, broker_value, min, INT64_MAX / s.unit);
    if (!v) return v.error();
    value = std::to_string(*v < 0 ? *v : *v * s.unit);
  }
  engine::TopicConfig probe;
  if (auto st = probe.set(s.topic_key, value); !st) {
    if (s.broker_key == s.topic_key) return st.error();
    return Error(Errc::kInvalidConfig, fmt::format("invalid value '{}' for {}: {}", broker_value,
                                                   s.broker_key, st.error().message()));
  }
  return value;
}

std::vector<SetSynonym> set_synonyms(const TopicDefaultLayers& layers, std::string_view topic_key) {
  std::vector<SetSynonym> out;
  for (const auto* s : synonyms_of(topic_key)) {
    std::string key(s->broker_key);
    for (auto [map, layer] : {std::pair{&layers.per_broker, ConfigLayer::kDynamicBroker},
                              std::pair{&layers.cluster_default, ConfigLayer::kDynamicDefault},
                              std::pair{&layers.static_props, ConfigLayer::kStatic}}) {
      if (auto it = map->find(key); it != map->end()) out.push_back({key, it->second, layer});
    }
  }
  return out;
}

int8_t kafka_config_source(ConfigLayer layer) {
  switch (layer) {
    case ConfigLayer::kDynamicBroker: return kafka::kSourceDynamicBrokerConfig;
    case ConfigLayer::kDynamicDefault: return kafka::kSourceDynamicDefaultBrokerConfig;
    case ConfigLayer::kStatic: return kafka::kSourceStaticBrokerConfig;
    case ConfigLayer::kDefault: break;
  }
  return kafka::kSourceDefaultConfig;
}

int8_t topic_config_source(const coordinator::ConfigMap& overrides,
                           const TopicDefaultLayers& layers, std::string_view name) {
  if (overrides.count(std::string(name))) return kafka::kSourceTopicConfig;
  auto set = set_synonyms(layers, name);
  return set.empty() ? kafka::kSourceDefaultConfig : kafka_config_source(set.front().layer);
}

Result<engine::TopicConfig> resolve_topic_defaults(const TopicDefaultLayers& layers) {
  engine::TopicConfig c;
  for (const auto& def : engine::topic_config_definitions()) {
    auto set = set_synonyms(layers, def.name);
    if (set.empty()) continue;
    const auto* s = find_synonym(set.front().broker_key);
    STRATA_ASSIGN_OR_RETURN(std::string value, topic_value_of(*s, set.front().value));
    STRATA_TRY(c.set(def.name, value));
  }
  return c;
}

}  // namespace strata::server
