// Heartbeat (key 12).
#pragma once

#include <optional>
#include <string>

#include "server/kafka/types.h"

namespace strata::kafka {

struct HeartbeatRequest {
  static constexpr int16_t kApiKey = 12;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 4, kFlexibleFrom = 4;
  std::string group_id;
  int32_t generation_id = 0;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  template <typename V>
  void visit(V& v) {
    v.field(group_id, kAllVersions);
    v.field(generation_id, kAllVersions);
    v.field(member_id, kAllVersions);
    v.field(group_instance_id, since(3), since(3));
  }
  bool operator==(const HeartbeatRequest&) const = default;
};

struct HeartbeatResponse {
  static constexpr int16_t kApiKey = 12;
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, since(1));
    v.field(error_code, kAllVersions);
  }
  bool operator==(const HeartbeatResponse&) const = default;
};

}  // namespace strata::kafka
