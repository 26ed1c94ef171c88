// Leader election: how the controller changes one partition's state when
// the set of live brokers changes, and when it moves leadership back to
// the preferred replica. Pure functions of the state; the controller writes
// what they return with a compare-and-set on the partition epoch.
//
//   if (auto next = on_live_brokers(state, live)) write(*next);
//
// Invariants: the leader is always a live member of the ISR, or -1 (the
// partition is offline); every change bumps partition_epoch; every change
// of leader (to -1 as well) bumps leader_epoch. The ISR never loses its
// last member: a partition whose every in-sync replica died stays offline
// until one of them returns (never an out-of-sync replica as leader).
#pragma once

#include <cstdint>
#include <optional>
#include <set>

#include "coordinator/cluster_metadata.h"

namespace strata::coordinator {

// The state after the live set became `live`: dead replicas leave the ISR
// (but the last member stays), a dead leader is replaced by the first
// replica in preference order that is live and in sync, and an offline
// partition whose in-sync replica returned gets it as leader. nullopt when
// nothing changes.
std::optional<PartitionState> on_live_brokers(const PartitionState& state,
                                              const std::set<int32_t>& live);

// The state with the preferred replica (replicas[0]) as leader, if it is
// live, in sync and not leading already; nullopt otherwise.
std::optional<PartitionState> preferred_election(const PartitionState& state,
                                                 const std::set<int32_t>& live);

}  // namespace strata::coordinator
