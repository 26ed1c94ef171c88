// The classic protocol's group and member state, shared by the group
// coordinator's files (group_coordinator.cc: hosting, routing, listing and
// deleting groups; classic_membership.cc: the JoinGroup/SyncGroup state
// machine; group_offsets.cc: committed offsets). Not an interface: include
// it only from those.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/group/group_coordinator.h"

namespace strata::coordinator {

struct GroupCoordinator::Member {
  std::string id;
  std::optional<std::string> instance_id;
  std::string client_id;
  std::string client_host;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = 0;
  std::string protocol_type;
  std::vector<GroupProtocol> protocols;
  Bytes assignment;
  std::function<void(JoinResult)> awaiting_join;
  std::function<void(SyncResult)> awaiting_sync;
  TimerId heartbeat_timer = 0;
  uint64_t join_order = 0;

  const Bytes* metadata_for(const std::string& protocol) const {
    for (const auto& p : protocols) {
      if (p.name == protocol) return &p.metadata;
    }
    return nullptr;
  }
};

struct GroupCoordinator::Group {
  std::string id;
  GroupState state = GroupState::kEmpty;
  std::string protocol_type;
  std::optional<std::string> protocol;
  int32_t generation = 0;
  std::optional<std::string> leader;
  std::map<std::string, Member> members;
  std::map<std::string, std::string> static_members;  // instance id -> member id
  std::set<std::string> pending_members;              // ids handed out with MEMBER_ID_REQUIRED
  std::map<std::string, TimerId> pending_timers;
  TimerId join_timer = 0;
  bool in_initial_delay = false;
  int64_t initial_delay_left_ms = 0;
  size_t members_at_delay_start = 0;
  int64_t state_timestamp = 0;

  bool all_joined() const {
    if (!pending_members.empty()) return false;
    for (const auto& [id, m] : members) {
      if (!m.awaiting_join) return false;
    }
    return true;
  }
  int32_t rebalance_timeout_ms() const {
    int32_t t = 0;
    for (const auto& [id, m] : members)
      t = std::max(t, m.rebalance_timeout_ms);
    return t;
  }
};

}  // namespace strata::coordinator
