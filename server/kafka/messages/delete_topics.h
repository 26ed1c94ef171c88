// DeleteTopics (key 20).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct DeleteTopicsRequest {
  static constexpr int16_t kApiKey = 20;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 6, kFlexibleFrom = 4;
  struct Topic {
    std::optional<std::string> name;
    Uuid topic_id{};
    template <typename V>
    void visit(V& v) {
      v.field(name, since(6), since(6));
      v.field(topic_id, since(6));
    }
    bool operator==(const Topic&) const = default;
  };
  std::vector<Topic> topics;             // v6+
  std::vector<std::string> topic_names;  // v0-5
  int32_t timeout_ms = 30000;
  template <typename V>
  void visit(V& v) {
    v.field(topics, since(6));
    v.field(topic_names, between(0, 5));
    v.field(timeout_ms, kAllVersions);
  }
  bool operator==(const DeleteTopicsRequest&) const = default;
};

struct DeleteTopicsResponse {
  static constexpr int16_t kApiKey = 20;
  struct Result {
    std::optional<std::string> name;
    Uuid topic_id{};
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions, since(6));
      v.field(topic_id, since(6));
      v.field(error_code, kAllVersions);
      v.field(error_message, since(5), since(5));
    }
    bool operator==(const Result&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> responses;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, since(1));
    v.field(responses, kAllVersions);
  }
  bool operator==(const DeleteTopicsResponse&) const = default;
};

}  // namespace strata::kafka
