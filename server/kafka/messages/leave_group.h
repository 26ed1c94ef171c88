// LeaveGroup (key 13).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct LeaveGroupRequest {
  static constexpr int16_t kApiKey = 13;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 4, kFlexibleFrom = 4;
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    template <typename V>
    void visit(V& v) {
      v.field(member_id, since(3));
      v.field(group_instance_id, since(3), since(3));
    }
    bool operator==(const Member&) const = default;
  };
  std::string group_id;
  std::string member_id;        // v0-2: one member
  std::vector<Member> members;  // v3+: a batch
  template <typename V>
  void visit(V& v) {
    v.field(group_id, kAllVersions);
    v.field(member_id, between(0, 2));
    v.field(members, since(3));
  }
  bool operator==(const LeaveGroupRequest&) const = default;
};

struct LeaveGroupResponse {
  static constexpr int16_t kApiKey = 13;
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    int16_t error_code = 0;
    template <typename V>
    void visit(V& v) {
      v.field(member_id, since(3));
      v.field(group_instance_id, since(3), since(3));
      v.field(error_code, since(3));
    }
    bool operator==(const Member&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::vector<Member> members;  // v3+
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, since(1));
    v.field(error_code, kAllVersions);
    v.field(members, since(3));
  }
  bool operator==(const LeaveGroupResponse&) const = default;
};

}  // namespace strata::kafka
