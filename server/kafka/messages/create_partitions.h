// CreatePartitions (key 37).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct CreatePartitionsRequest {
  static constexpr int16_t kApiKey = 37;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 3, kFlexibleFrom = 2;
  struct Assignment {
    std::vector<int32_t> broker_ids;
    template <typename V>
    void visit(V& v) {
      v.field(broker_ids, kAllVersions);
    }
    bool operator==(const Assignment&) const = default;
  };
  struct Topic {
    std::string name;
    int32_t count = 0;
    std::optional<std::vector<Assignment>> assignments;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(count, kAllVersions);
      v.field(assignments, kAllVersions, kAllVersions);
    }
    bool operator==(const Topic&) const = default;
  };
  std::vector<Topic> topics;
  int32_t timeout_ms = 30000;
  bool validate_only = false;
  template <typename V>
  void visit(V& v) {
    v.field(topics, kAllVersions);
    v.field(timeout_ms, kAllVersions);
    v.field(validate_only, kAllVersions);
  }
  bool operator==(const CreatePartitionsRequest&) const = default;
};

struct CreatePartitionsResponse {
  static constexpr int16_t kApiKey = 37;
  struct Result {
    std::string name;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(error_code, kAllVersions);
      v.field(error_message, kAllVersions, kAllVersions);
    }
    bool operator==(const Result&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> results;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(results, kAllVersions);
  }
  bool operator==(const CreatePartitionsResponse&) const = default;
};

}  // namespace strata::kafka
