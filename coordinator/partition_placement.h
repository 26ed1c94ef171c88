// Partition placement: which brokers hold the replicas of new partitions,
// and which of them leads — the controller's decision when a topic is
// created or grows.
//
//   auto placed = place_partitions(live, existing_states, /*count=*/6, /*rf=*/3);
//   // placed->at(i).replicas: preferred leader first; leader = replicas[0]
//
// Rules, in order of weight:
//   1. A partition's replicas are distinct live brokers (RF above the live
//      broker count: kInvalidReplicationFactor).
//   2. With racks (broker.rack on every broker), a partition's replicas
//      span as many racks as they can: no rack holds two of them while
//      another rack holds none. Racks on some brokers only: an error, as
//      Kafka refuses it.
//   3. Leaders balance: each new partition's preferred leader is the live
//      broker leading the fewest partitions (existing ones included), and
//      followers go to the brokers holding the fewest replicas.
// Ties break by node id, so a placement is a function of its inputs.
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.h"
#include "coordinator/cluster_metadata.h"

namespace strata::coordinator {

// The states of `count` new partitions with `replication_factor` replicas,
// given the live brokers and the states of every partition that exists
// (for balance). Each new state has leader = replicas[0], ISR = replicas,
// leader epoch 0 and partition epoch 0.
Result<std::vector<PartitionState>> place_partitions(const std::vector<BrokerInfo>& live,
                                                     const std::vector<PartitionState>& existing,
                                                     int32_t count, int32_t replication_factor);

}  // namespace strata::coordinator
