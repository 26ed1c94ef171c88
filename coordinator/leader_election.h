// Leader election: how the controller changes one partition's state when
// the set of live brokers changes, when it moves leadership back to the
// preferred replica, when a broker shuts down cleanly, and when a leader
// asks for a new ISR. Pure functions of the state; the
// controller writes what they return with a compare-and-set on the partition epoch.
//
//   if (auto next = on_live_brokers(state, live)) write(*next);
//
// Invariants: the leader is always a live member of the ISR, or -1 (the
// partition is offline); every change bumps partition_epoch; every change
// of leader (to -1 as well) bumps leader_epoch. The ISR never loses its
// last member: a partition whose every in-sync replica died stays offline
// until one of them returns — unless an unclean election is allowed (the
// topic's unclean.leader.election.enable, or ElectLeaders type 1), which
// makes a live out-of-sync replica the leader and sole ISR member, losing
// the acknowledged writes it lacks.
#pragma once

#include <cstdint>
#include <optional>
#include <set>

#include "base/result.h"
#include "coordinator/cluster_metadata.h"

namespace strata::coordinator {

// The state after the live set became `live`: dead replicas leave the ISR
// (but the last member stays), a dead leader is replaced by the first
// replica in preference order that is live and in sync, and an offline
// partition whose in-sync replica returned gets it as leader; with
// `unclean`, a partition left without a live in-sync replica takes the
// first live replica in preference order (unclean_election). nullopt when
// nothing changes.
std::optional<PartitionState> on_live_brokers(const PartitionState& state,
                                              const std::set<int32_t>& live, bool unclean = false);

// An offline partition (no live leader) with no live in-sync replica: the
// first live replica in preference order leads, the ISR is just it, and
// both epochs are bumped. nullopt when the leader is live, a live in-sync
// replica could lead instead, or no replica is live.
std::optional<PartitionState> unclean_election(const PartitionState& state,
                                               const std::set<int32_t>& live);

// The state with the preferred replica (replicas[0]) as leader, if it is
// live, in sync and not leading already; nullopt otherwise.
std::optional<PartitionState> preferred_election(const PartitionState& state,
                                                 const std::set<int32_t>& live);

// The state once broker `leaving` shuts down cleanly (controlled shutdown;
// `live` without it): what it led goes to the first live in-sync replica
// in preference order, and it leaves the ISR — unless it is the last
// member, which keeps it and its leadership (no one else holds every
// acknowledged write). nullopt when nothing changes.
std::optional<PartitionState> on_shutdown(const PartitionState& state, int32_t leaving,
                                          const std::set<int32_t>& live);

// A leader's request for a new ISR (AlterIsr), made against the state
// with these epochs.
struct IsrRequest {
  int32_t leader = -1;
  int32_t leader_epoch = 0;
  int32_t partition_epoch = 0;
  std::vector<int32_t> isr;
};

// The state with the ISR `request` asks for, or why it is refused:
// kFencedLeaderEpoch when the asker is not the state's leader at that
// leader epoch (a deposed or paused leader), kUnavailable when the state
// moved on since (another partition epoch: the leader will hear of the new
// state and decide again), kInvalidArgument for an ISR without the leader,
// with a broker that is no replica, or with one twice, and kUnavailable
// when it adds a replica that is not live. nullopt: the ISR is that already.
Result<std::optional<PartitionState>> isr_change(const PartitionState& state,
                                                 const IsrRequest& request,
                                                 const std::set<int32_t>& live);

}  // namespace strata::coordinator
