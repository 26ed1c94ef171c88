// ElectLeaders (key 43): preferred (or unclean) leader elections.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct ElectLeadersRequest {
  static constexpr int16_t kApiKey = 43;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 2, kFlexibleFrom = 2;
  static constexpr int8_t kPreferred = 0;
  static constexpr int8_t kUnclean = 1;
  struct Topic {
    std::string topic;
    std::vector<int32_t> partitions;
    template <typename V>
    void visit(V& v) {
      v.field(topic, kAllVersions);
      v.field(partitions, kAllVersions);
    }
    bool operator==(const Topic&) const = default;
  };
  int8_t election_type = kPreferred;
  std::optional<std::vector<Topic>> topic_partitions;  // null: every partition
  int32_t timeout_ms = 60000;
  template <typename V>
  void visit(V& v) {
    v.field(election_type, since(1));
    v.field(topic_partitions, kAllVersions, kAllVersions);
    v.field(timeout_ms, kAllVersions);
  }
  bool operator==(const ElectLeadersRequest&) const = default;
};

struct ElectLeadersResponse {
  static constexpr int16_t kApiKey = 43;
  struct Partition {
    int32_t partition_id = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    template <typename V>
    void visit(V& v) {
      v.field(partition_id, kAllVersions);
      v.field(error_code, kAllVersions);
      v.field(error_message, kAllVersions, kAllVersions);
    }
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string topic;
    std::vector<Partition> partitions;
    template <typename V>
    void visit(V& v) {
      v.field(topic, kAllVersions);
      v.field(partitions, kAllVersions);
    }
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::vector<Topic> results;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(error_code, since(1));
    v.field(results, kAllVersions);
  }
  bool operator==(const ElectLeadersResponse&) const = default;
};

}  // namespace strata::kafka
