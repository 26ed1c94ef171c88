#include "engine/topic_config.h"

#include <charconv>
#include <functional>

#include <fmt/format.h>

namespace strata::engine {
namespace {

struct Setting {
  ConfigDefinition def;
  std::function<Status(TopicConfig&, std::string_view)> set;
  std::function<std::string(const TopicConfig&)> get;
};

Error invalid(std::string_view name, std::string_view value, std::string_view why) {
  return Error(Errc::kInvalidConfig,
               fmt::format("invalid value '{}' for config {}: {}", value, name, why));
}

Result<int64_t> parse_integer(std::string_view name, std::string_view value, int64_t min,
                              int64_t max) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || ptr != value.data() + value.size() || value.empty()) {
    return invalid(name, value, "not an integer");
  }
  if (v < min || v > max) {
    return invalid(name, value, fmt::format("must be between {} and {}", min, max));
  }
  return v;
}

Setting integer(std::string_view name, std::string_view type, std::string_view doc,
                int64_t TopicConfig::*field, int64_t min) {
  int64_t max = type == "int" ? INT32_MAX : INT64_MAX;
  return Setting{
      {name, type, doc},
      [=](TopicConfig& c, std::string_view v) -> Status {
        STRATA_ASSIGN_OR_RETURN(c.*field, parse_integer(name, v, min, max));
        return ok_status();
      },
      [=](const TopicConfig& c) { return std::to_string(c.*field); },
  };
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  return s;
}

const std::vector<Setting>& settings() {
  static const std::vector<Setting> table = {
      {{"cleanup.policy", "list", "delete, compact, or both (comma-separated)"},
       [](TopicConfig& c, std::string_view v) -> Status {
         bool del = false, compact = false;
         std::string_view rest = v;
         while (true) {
           size_t comma = rest.find(',');
           std::string_view item = trim(rest.substr(0, comma));
           if (item == "delete") {
             del = true;
           } else if (item == "compact") {
             compact = true;
           } else {
             return invalid("cleanup.policy", v, "allowed values are delete and compact");
           }
           if (comma == std::string_view::npos) break;
           rest.remove_prefix(comma + 1);
         }
         c.cleanup_delete = del;
         c.cleanup_compact = compact;
         return ok_status();
       },
       [](const TopicConfig& c) -> std::string {
         if (c.cleanup_delete && c.cleanup_compact) return "compact,delete";
         return c.cleanup_compact ? "compact" : "delete";
       }},
      {{"durability", "string",
        "fsync: acks=all waits for fdatasync; replicated: acks=all waits for the in-sync "
        "replicas only"},
       [](TopicConfig& c, std::string_view v) -> Status {
         if (v == "fsync") {
           c.durability = Durability::kFsync;
         } else if (v == "replicated") {
           c.durability = Durability::kReplicated;
         } else {
           return invalid("durability", v, "allowed values are fsync and replicated");
         }
         return ok_status();
       },
       [](const TopicConfig& c) -> std::string {
         return c.durability == Durability::kFsync ? "fsync" : "replicated";
       }},
      integer("index.interval.bytes", "int", "bytes appended between two index entries",
              &TopicConfig::index_interval_bytes, 0),
      integer("max.message.bytes", "int", "largest record batch accepted, in bytes",
              &TopicConfig::max_message_bytes, 0),
      integer("message.timestamp.after.max.ms", "long",
              "how far in the future of the broker's clock a CreateTime record may be",
              &TopicConfig::message_timestamp_after_max_ms, 0),
      integer("message.timestamp.before.max.ms", "long",
              "how far in the past of the broker's clock a CreateTime record may be",
              &TopicConfig::message_timestamp_before_max_ms, 0),
      integer("message.timestamp.difference.max.ms", "long",
              "deprecated: the before/after limit where those are left at their default",
              &TopicConfig::message_timestamp_difference_max_ms, 0),
      {{"message.timestamp.type", "string", "CreateTime or LogAppendTime"},
       [](TopicConfig& c, std::string_view v) -> Status {
         if (v == "CreateTime") {
           c.timestamp_type = TimestampType::kCreateTime;
         } else if (v == "LogAppendTime") {
           c.timestamp_type = TimestampType::kLogAppendTime;
         } else {
           return invalid("message.timestamp.type", v,
                          "allowed values are CreateTime and LogAppendTime");
         }
         return ok_status();
       },
       [](const TopicConfig& c) -> std::string {
         return c.timestamp_type == TimestampType::kCreateTime ? "CreateTime" : "LogAppendTime";
       }},
      integer("retention.bytes", "long",
              "bytes kept per partition before old segments go; -1 = no limit",
              &TopicConfig::retention_bytes, -1),
      integer("retention.ms", "long", "age after which closed segments are deleted; -1 = forever",
              &TopicConfig::retention_ms, -1),
      integer("segment.bytes", "int", "size at which the active segment is rolled",
              &TopicConfig::segment_bytes, 14),
      integer("segment.ms", "long", "age at which the active segment is rolled",
              &TopicConfig::segment_ms, 1),
  };
  return table;
}

}  // namespace

Status TopicConfig::set(std::string_view name, std::string_view value) {
  for (const auto& s : settings()) {
    if (s.def.name == name) return s.set(*this, value);
  }
  return Error(Errc::kInvalidConfig, fmt::format("unknown topic config '{}'", name));
}

Result<TopicConfig> TopicConfig::from_map(const std::map<std::string, std::string>& overrides,
                                          const TopicConfig& base) {
  TopicConfig c = base;
  for (const auto& [k, v] : overrides)
    STRATA_TRY(c.set(k, v));
  return c;
}

std::map<std::string, std::string> TopicConfig::to_map() const {
  std::map<std::string, std::string> out;
  for (const auto& s : settings())
    out.emplace(std::string(s.def.name), s.get(*this));
  return out;
}

const std::vector<ConfigDefinition>& topic_config_definitions() {
  static const std::vector<ConfigDefinition> defs = [] {
    std::vector<ConfigDefinition> d;
    for (const auto& s : settings())
      d.push_back(s.def);
    return d;
  }();
  return defs;
}

}  // namespace strata::engine
