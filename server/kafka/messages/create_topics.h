// CreateTopics (key 19).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct CreateTopicsRequest {
  static constexpr int16_t kApiKey = 19;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 7, kFlexibleFrom = 5;
  struct Assignment {
    int32_t partition_index = 0;
    std::vector<int32_t> broker_ids;
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, kAllVersions);
      v.field(broker_ids, kAllVersions);
    }
    bool operator==(const Assignment&) const = default;
  };
  struct Config {
    std::string name;
    std::optional<std::string> value;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(value, kAllVersions, kAllVersions);
    }
    bool operator==(const Config&) const = default;
  };
  struct Topic {
    std::string name;
    int32_t num_partitions = -1;
    int16_t replication_factor = -1;
    std::vector<Assignment> assignments;
    std::vector<Config> configs;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(num_partitions, kAllVersions);
      v.field(replication_factor, kAllVersions);
      v.field(assignments, kAllVersions);
      v.field(configs, kAllVersions);
    }
    bool operator==(const Topic&) const = default;
  };
  std::vector<Topic> topics;
  int32_t timeout_ms = 60000;
  bool validate_only = false;
  template <typename V>
  void visit(V& v) {
    v.field(topics, kAllVersions);
    v.field(timeout_ms, kAllVersions);
    v.field(validate_only, since(1));
  }
  bool operator==(const CreateTopicsRequest&) const = default;
};

struct CreateTopicsResponse {
  static constexpr int16_t kApiKey = 19;
  struct Config {
    std::string name;
    std::optional<std::string> value;
    bool read_only = false;
    int8_t config_source = -1;
    bool is_sensitive = false;
    template <typename V>
    void visit(V& v) {
      v.field(name, since(5));
      v.field(value, since(5), since(5));
      v.field(read_only, since(5));
      v.field(config_source, since(5));
      v.field(is_sensitive, since(5));
    }
    bool operator==(const Config&) const = default;
  };
  struct Topic {
    std::string name;
    Uuid topic_id{};
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    int16_t topic_config_error_code = 0;
    int32_t num_partitions = -1;
    int16_t replication_factor = -1;
    std::optional<std::vector<Config>> configs;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(topic_id, since(7));
      v.field(error_code, kAllVersions);
      v.field(error_message, since(1), kAllVersions);
      v.tagged(topic_config_error_code, 0, since(5));
      v.field(num_partitions, since(5));
      v.field(replication_factor, since(5));
      v.field(configs, since(5), since(5));
    }
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, since(2));
    v.field(topics, kAllVersions);
  }
  bool operator==(const CreateTopicsResponse&) const = default;
};

}  // namespace strata::kafka
