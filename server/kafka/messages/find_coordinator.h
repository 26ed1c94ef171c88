// FindCoordinator (key 10).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct FindCoordinatorRequest {
  static constexpr int16_t kApiKey = 10;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 4, kFlexibleFrom = 3;
  std::string key;                            // v0-3: one key
  int8_t key_type = 0;                        // 0 = group, 1 = transaction
  std::vector<std::string> coordinator_keys;  // v4+: a batch of keys
  template <typename V>
  void visit(V& v) {
    v.field(key, between(0, 3));
    v.field(key_type, since(1));
    v.field(coordinator_keys, since(4));
  }
  bool operator==(const FindCoordinatorRequest&) const = default;
};

struct FindCoordinatorResponse {
  static constexpr int16_t kApiKey = 10;
  // One answer per key of a v4+ batch.
  struct Coordinator {
    std::string key;
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    template <typename V>
    void visit(V& v) {
      v.field(key, since(4));
      v.field(node_id, since(4));
      v.field(host, since(4));
      v.field(port, since(4));
      v.field(error_code, since(4));
      v.field(error_message, since(4), since(4));
    }
    bool operator==(const Coordinator&) const = default;
  };
  int32_t throttle_time_ms = 0;
  // v0-3: the single answer at the top level.
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  int32_t node_id = 0;
  std::string host;
  int32_t port = 0;
  std::vector<Coordinator> coordinators;  // v4+
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, since(1));
    v.field(error_code, between(0, 3));
    v.field(error_message, between(1, 3), between(1, 3));
    v.field(node_id, between(0, 3));
    v.field(host, between(0, 3));
    v.field(port, between(0, 3));
    v.field(coordinators, since(4));
  }
  bool operator==(const FindCoordinatorResponse&) const = default;
};

}  // namespace strata::kafka
