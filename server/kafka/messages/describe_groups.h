// DescribeGroups (key 15).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct DescribeGroupsRequest {
  static constexpr int16_t kApiKey = 15;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 5, kFlexibleFrom = 5;
  std::vector<std::string> groups;
  bool include_authorized_operations = false;
  template <typename V>
  void visit(V& v) {
    v.field(groups, kAllVersions);
    v.field(include_authorized_operations, since(3));
  }
  bool operator==(const DescribeGroupsRequest&) const = default;
};

struct DescribeGroupsResponse {
  static constexpr int16_t kApiKey = 15;
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string client_id;
    std::string client_host;
    Bytes member_metadata;
    Bytes member_assignment;
    template <typename V>
    void visit(V& v) {
      v.field(member_id, kAllVersions);
      v.field(group_instance_id, since(4), since(4));
      v.field(client_id, kAllVersions);
      v.field(client_host, kAllVersions);
      v.field(member_metadata, kAllVersions);
      v.field(member_assignment, kAllVersions);
    }
    bool operator==(const Member&) const = default;
  };
  struct Group {
    int16_t error_code = 0;
    std::string group_id;
    std::string group_state;
    std::string protocol_type;
    std::string protocol_data;  // the chosen protocol's name
    std::vector<Member> members;
    int32_t authorized_operations = INT32_MIN;
    template <typename V>
    void visit(V& v) {
      v.field(error_code, kAllVersions);
      v.field(group_id, kAllVersions);
      v.field(group_state, kAllVersions);
      v.field(protocol_type, kAllVersions);
      v.field(protocol_data, kAllVersions);
      v.field(members, kAllVersions);
      v.field(authorized_operations, since(3));
    }
    bool operator==(const Group&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Group> groups;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, since(1));
    v.field(groups, kAllVersions);
  }
  bool operator==(const DescribeGroupsResponse&) const = default;
};

}  // namespace strata::kafka
