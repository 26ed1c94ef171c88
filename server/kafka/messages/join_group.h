// JoinGroup (key 11).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct JoinGroupRequest {
  static constexpr int16_t kApiKey = 11;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 7, kFlexibleFrom = 6;
  struct Protocol {
    std::string name;
    Bytes metadata;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(metadata, kAllVersions);
    }
    bool operator==(const Protocol&) const = default;
  };
  std::string group_id;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = -1;  // v0 has none: use the session timeout
  std::string member_id;              // empty on a first join
  std::optional<std::string> group_instance_id;
  std::string protocol_type;
  std::vector<Protocol> protocols;
  template <typename V>
  void visit(V& v) {
    v.field(group_id, kAllVersions);
    v.field(session_timeout_ms, kAllVersions);
    v.field(rebalance_timeout_ms, since(1));
    v.field(member_id, kAllVersions);
    v.field(group_instance_id, since(5), since(5));
    v.field(protocol_type, kAllVersions);
    v.field(protocols, kAllVersions);
  }
  bool operator==(const JoinGroupRequest&) const = default;
};

struct JoinGroupResponse {
  static constexpr int16_t kApiKey = 11;
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    Bytes metadata;
    template <typename V>
    void visit(V& v) {
      v.field(member_id, kAllVersions);
      v.field(group_instance_id, since(5), since(5));
      v.field(metadata, kAllVersions);
    }
    bool operator==(const Member&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  int32_t generation_id = -1;
  std::optional<std::string> protocol_type;
  // Null (v7+) or empty (v0-6) when no protocol was chosen.
  std::optional<std::string> protocol_name;
  std::string leader;
  std::string member_id;
  std::vector<Member> members;  // filled for the leader only
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, since(2));
    v.field(error_code, kAllVersions);
    v.field(generation_id, kAllVersions);
    v.field(protocol_type, since(7), since(7));
    v.field(protocol_name, kAllVersions, since(7));
    v.field(leader, kAllVersions);
    v.field(member_id, kAllVersions);
    v.field(members, kAllVersions);
  }
  bool operator==(const JoinGroupResponse&) const = default;
};

}  // namespace strata::kafka
