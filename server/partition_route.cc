#include "server/partition_route.h"

namespace strata::server {

bool may_serve_as_leader(const coordinator::PartitionState& state, int32_t self, bool lease_valid) {
  if (state.leader != self) return false;
  return lease_valid || (state.isr.size() == 1 && state.isr.front() == self);
}

PartitionRoute route_partition(const coordinator::TopicInfo* topic, int32_t partition,
                               int32_t current_leader_epoch, int32_t self, bool may_lead) {
  using kafka::ErrorCode;
  PartitionRoute r;
  const auto* state =
      topic != nullptr && partition < topic->partitions ? topic->state(partition) : nullptr;
  if (state == nullptr) {
    r.error = ErrorCode::kUnknownTopicOrPartition;
    return r;
  }
  r.state = state;
  r.uid = topic->uid(PartitionId(partition));
  if (current_leader_epoch != kNoLeaderEpoch) {
    if (current_leader_epoch < state->leader_epoch) {
      r.error = ErrorCode::kFencedLeaderEpoch;
      return r;
    }
    if (current_leader_epoch > state->leader_epoch) {
      r.error = ErrorCode::kUnknownLeaderEpoch;
      return r;
    }
  }
  if (!may_serve_as_leader(*state, self, may_lead)) r.error = ErrorCode::kNotLeaderOrFollower;
  return r;
}

}  // namespace strata::server
