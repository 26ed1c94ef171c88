// route_partition: the one place a partition request (Produce, Fetch,
// ListOffsets, DeleteRecords, ...) learns whether this broker serves it.
//
//   auto route = route_partition(snap->find(name), p.index, p.current_leader_epoch, self,
//                                broker.may_lead());
//   if (!route.ok()) rp.error_code = kafka::code(route.error);
//   else uids.push_back(route.uid);
//
// Checked in Kafka's order (KIP-320): the topic and partition exist
// (UNKNOWN_TOPIC_OR_PARTITION); the client's current leader epoch, when it
// sends one (-1: it does not), equals the partition's — older is
// FENCED_LEADER_EPOCH, newer (this broker's view lags) UNKNOWN_LEADER_EPOCH;
// this broker is the partition's leader and may act as one (see
// may_serve_as_leader) — otherwise NOT_LEADER_OR_FOLLOWER. The replica on
// the owning shard re-checks its own role when it acts.
#pragma once

#include <cstdint>

#include "base/ids.h"
#include "coordinator/cluster_metadata.h"
#include "server/kafka/error_code.h"

namespace strata::server {

struct PartitionRoute {
  PartitionUid uid{0};
  const coordinator::PartitionState* state = nullptr;  // set when the partition exists
  kafka::ErrorCode error = kafka::ErrorCode::kNone;

  bool ok() const { return error == kafka::ErrorCode::kNone; }
};

inline constexpr int32_t kNoLeaderEpoch = -1;

// Whether this broker, the leader `state` names, may act as it: while its
// registration lease is current (`lease_valid`, see Broker::may_lead), or
// while it is the partition's only in-sync replica — then no other broker
// can have been elected (leaders come from the ISR only), so serving on
// through an etcd outage cannot split the partition's history.
bool may_serve_as_leader(const coordinator::PartitionState& state, int32_t self, bool lease_valid);

PartitionRoute route_partition(const coordinator::TopicInfo* topic, int32_t partition,
                               int32_t current_leader_epoch, int32_t self, bool may_lead);

}  // namespace strata::server
