// The server-side assignors of consumer groups (KIP-848): from the members'
// subscriptions and the subscribed topics, the partitions each member
// should own (the group's target assignment).
//
//   uniform (the default)  every member gets as even a share of the
//                          partitions it subscribes to as possible, and
//                          keeps what it had while that stays even;
//   range                  per topic, contiguous ranges in member-id order,
//                          so co-partitioned topics land together.
//
//   auto target = assign("uniform", members, topics);  // nullopt: no such assignor
//
// Pure functions: no state, no clock, deterministic for one input.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/group/group_types.h"

namespace strata::coordinator {

struct AssignorMember {
  std::string id;
  std::set<TopicId> subscribed;  // ids of topics among those given to the assignor
  Assignment current;            // its previous target, for stickiness
};

using TargetAssignment = std::map<std::string, Assignment>;  // member id -> partitions

TargetAssignment assign_uniform(const std::vector<AssignorMember>& members,
                                const std::vector<TopicMeta>& topics);
TargetAssignment assign_range(const std::vector<AssignorMember>& members,
                              const std::vector<TopicMeta>& topics);

bool is_assignor(std::string_view name);
std::optional<TargetAssignment> assign(std::string_view name,
                                       const std::vector<AssignorMember>& members,
                                       const std::vector<TopicMeta>& topics);

}  // namespace strata::coordinator
