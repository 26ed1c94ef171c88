// SyncGroup (key 14).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct SyncGroupRequest {
  static constexpr int16_t kApiKey = 14;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 5, kFlexibleFrom = 4;
  struct Assignment {
    std::string member_id;
    Bytes assignment;
    template <typename V>
    void visit(V& v) {
      v.field(member_id, kAllVersions);
      v.field(assignment, kAllVersions);
    }
    bool operator==(const Assignment&) const = default;
  };
  std::string group_id;
  int32_t generation_id = 0;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  std::vector<Assignment> assignments;  // sent by the leader only
  template <typename V>
  void visit(V& v) {
    v.field(group_id, kAllVersions);
    v.field(generation_id, kAllVersions);
    v.field(member_id, kAllVersions);
    v.field(group_instance_id, since(3), since(3));
    v.field(protocol_type, since(5), since(5));
    v.field(protocol_name, since(5), since(5));
    v.field(assignments, kAllVersions);
  }
  bool operator==(const SyncGroupRequest&) const = default;
};

struct SyncGroupResponse {
  static constexpr int16_t kApiKey = 14;
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  Bytes assignment;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, since(1));
    v.field(error_code, kAllVersions);
    v.field(protocol_type, since(5), since(5));
    v.field(protocol_name, since(5), since(5));
    v.field(assignment, kAllVersions);
  }
  bool operator==(const SyncGroupResponse&) const = default;
};

}  // namespace strata::kafka
