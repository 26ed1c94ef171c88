// The group and member state, shared by the group coordinator's files
// (group_coordinator.cc: hosting, routing, listing and deleting groups;
// classic_membership.cc: the JoinGroup/SyncGroup state machine;
// consumer_membership.cc: KIP-848's ConsumerGroupHeartbeat; group_offsets.cc:
// committed offsets). Not an interface: include it only from those.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/group/group_coordinator.h"

namespace re2 {
class RE2;
}

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

// A member of a consumer group (KIP-848).
struct GroupCoordinator::ConsumerMember {
  // Stable: at the group's assignment epoch with its whole target;
  // UnrevokedPartitions: must give up `revoking` before it moves on;
  // UnreleasedPartitions: at the epoch, waiting for partitions of its
  // target that another member still has to revoke.
  enum class State { kStable, kUnrevokedPartitions, kUnreleasedPartitions };

  std::string id;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  std::vector<std::string> subscribed_names;  // sorted
  std::optional<std::string> subscribed_regex;
  std::shared_ptr<const re2::RE2> compiled_regex;  // subscribed_regex, compiled once
  std::optional<std::string> server_assignor;
  int32_t epoch = 0;
  int32_t previous_epoch = -1;
  State state = State::kStable;
  Assignment assigned;       // what it may consume now
  Assignment revoking;       // what it must give up before the next epoch
  bool left_static = false;  // left with epoch -2: its partitions wait for its return
  TimerId session_timer = 0;
  TimerId revocation_timer = 0;
};

struct GroupCoordinator::ConsumerGroup {
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  std::string assignor;  // the one the last target was computed by
  std::map<std::string, ConsumerMember> members;
  std::map<std::string, std::string> static_members;  // instance id -> member id
  std::map<std::string, Assignment> target;           // member id -> partitions
  std::vector<TopicMeta> subscribed_topics;           // what the target was computed for
  // Partitions some member still holds (assigned or revoking) -> that member.
  std::map<std::pair<TopicId, int32_t>, std::string> owners;
};

struct GroupCoordinator::Group {
  std::string id;
  GroupType type = GroupType::kClassic;
  ConsumerGroup consumer;  // for kConsumer
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

  // No member of either protocol.
  bool empty() const { return members.empty() && consumer.members.empty(); }
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
