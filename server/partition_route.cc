#include "server/partition_route.h"

namespace strata::server {

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
  if (state->leader != self || !may_lead) r.error = ErrorCode::kNotLeaderOrFollower;
  return r;
}

}  // namespace strata::server
