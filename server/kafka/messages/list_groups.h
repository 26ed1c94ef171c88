// ListGroups (key 16).
#pragma once

#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct ListGroupsRequest {
  static constexpr int16_t kApiKey = 16;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 5, kFlexibleFrom = 3;
  std::vector<std::string> states_filter;  // v4+; empty = every state
  std::vector<std::string> types_filter;   // v5+ ("classic", "consumer"); empty = every type
  template <typename V>
  void visit(V& v) {
    v.field(states_filter, since(4));
    v.field(types_filter, since(5));
  }
  bool operator==(const ListGroupsRequest&) const = default;
};

struct ListGroupsResponse {
  static constexpr int16_t kApiKey = 16;
  struct Group {
    std::string group_id;
    std::string protocol_type;
    std::string group_state;
    std::string group_type;  // v5+
    template <typename V>
    void visit(V& v) {
      v.field(group_id, kAllVersions);
      v.field(protocol_type, kAllVersions);
      v.field(group_state, since(4));
      v.field(group_type, since(5));
    }
    bool operator==(const Group&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::vector<Group> groups;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, since(1));
    v.field(error_code, kAllVersions);
    v.field(groups, kAllVersions);
  }
  bool operator==(const ListGroupsResponse&) const = default;
};

}  // namespace strata::kafka
