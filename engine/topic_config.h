// TopicConfig: the per-topic settings the log obeys, with Kafka's names,
// types, defaults and validation, plus Strata's `durability`.
//
//   auto cfg = TopicConfig::from_map({{"retention.ms", "3600000"}});
//   if (!cfg) fail(cfg.error().message());   // names the key and the value
//
// Unknown names and bad values are errors (kInvalidConfig) whose message
// names the offending key, value and what is allowed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace strata::engine {

enum class TimestampType { kCreateTime, kLogAppendTime };
enum class Durability {
  kFsync,       // acks=all answered after fdatasync (group-committed)
  kReplicated,  // acks=all answered when the in-sync replicas hold it; flushing left to the OS
};

struct TopicConfig {
  int64_t segment_bytes = 1073741824;   // 1 GiB
  int64_t segment_ms = 604800000;       // 7 days
  int64_t retention_ms = 604800000;     // 7 days; -1 = forever
  int64_t retention_bytes = -1;         // per partition; -1 = unlimited
  int64_t index_interval_bytes = 4096;  // bytes between index entries
  int64_t max_message_bytes = 1048588;  // largest batch accepted
  bool cleanup_delete = true;           // cleanup.policy contains "delete"
  bool cleanup_compact = false;         // cleanup.policy contains "compact"
  TimestampType timestamp_type = TimestampType::kCreateTime;
  // CreateTime records older (before) or newer (after) than the broker's
  // clock by more than these are refused (Kafka 3.6+, KIP-937). The older
  // message.timestamp.difference.max.ms stands in for either one left at
  // its default, as Kafka does.
  int64_t message_timestamp_before_max_ms = INT64_MAX;
  int64_t message_timestamp_after_max_ms = INT64_MAX;
  int64_t message_timestamp_difference_max_ms = INT64_MAX;
  Durability durability = Durability::kFsync;

  int64_t timestamp_before_max_ms() const {
    return message_timestamp_before_max_ms != INT64_MAX ? message_timestamp_before_max_ms
                                                        : message_timestamp_difference_max_ms;
  }
  int64_t timestamp_after_max_ms() const {
    return message_timestamp_after_max_ms != INT64_MAX ? message_timestamp_after_max_ms
                                                       : message_timestamp_difference_max_ms;
  }

  // Applies `overrides` on top of `base` (Kafka's defaults when omitted).
  static Result<TopicConfig> from_map(const std::map<std::string, std::string>& overrides,
                                      const TopicConfig& base);
  static Result<TopicConfig> from_map(const std::map<std::string, std::string>& overrides) {
    return from_map(overrides, TopicConfig{});
  }

  // Sets one config by its Kafka name, validating the value.
  Status set(std::string_view name, std::string_view value);
  // Every config with its current value, as Kafka would describe it.
  std::map<std::string, std::string> to_map() const;

  bool operator==(const TopicConfig&) const = default;
};

struct ConfigDefinition {
  std::string_view name;
  std::string_view type;  // "int", "long", "string", "list"
  std::string_view doc;
};

// The configs TopicConfig understands, in name order.
const std::vector<ConfigDefinition>& topic_config_definitions();

}  // namespace strata::engine
