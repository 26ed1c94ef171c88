#include "coordinator/leader_election.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace strata::coordinator {
namespace {

bool contains(const std::vector<int32_t>& v, int32_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Bumps the epochs for a change from `before` to `next`.
PartitionState bumped(const PartitionState& before, PartitionState next) {
  if (next.leader != before.leader) next.leader_epoch = before.leader_epoch + 1;
  next.partition_epoch = before.partition_epoch + 1;
  return next;
}

}  // namespace

std::optional<PartitionState> on_live_brokers(const PartitionState& state,
                                              const std::set<int32_t>& live, bool unclean) {
  if (unclean) {
    if (auto next = unclean_election(state, live)) return next;
  }
  PartitionState next = state;
  std::vector<int32_t> isr;
  for (int32_t r : state.isr) {
    if (live.count(r) != 0) isr.push_back(r);
  }
  // The last in-sync replica stays in the ISR even when dead: it alone may
  // hold every acknowledged write.
  if (isr.empty() && !state.isr.empty()) isr = {state.isr.back()};
  next.isr = isr;
  bool leader_ok = state.leader >= 0 && live.count(state.leader) != 0;
  if (!leader_ok) {
    next.leader = -1;
    for (int32_t r : state.replicas) {
      if (live.count(r) != 0 && contains(next.isr, r)) {
        next.leader = r;
        break;
      }
    }
  }
  if (next == state) return std::nullopt;
  return bumped(state, std::move(next));
}

std::optional<PartitionState> unclean_election(const PartitionState& state,
                                               const std::set<int32_t>& live) {
  if (state.leader >= 0 && live.count(state.leader) != 0) return std::nullopt;
  for (int32_t r : state.isr)
    if (live.count(r) != 0) return std::nullopt;  // a clean election can be held
  for (int32_t r : state.replicas) {
    if (live.count(r) == 0) continue;
    PartitionState next = state;
    next.leader = r;
    next.isr = {r};
    return bumped(state, std::move(next));
  }
  return std::nullopt;
}

std::optional<PartitionState> preferred_election(const PartitionState& state,
                                                 const std::set<int32_t>& live) {
  if (state.replicas.empty()) return std::nullopt;
  int32_t preferred = state.replicas.front();
  if (state.leader == preferred || live.count(preferred) == 0 || !contains(state.isr, preferred)) {
    return std::nullopt;
  }
  PartitionState next = state;
  next.leader = preferred;
  return bumped(state, std::move(next));
}

std::optional<PartitionState> on_shutdown(const PartitionState& state, int32_t leaving,
                                          const std::set<int32_t>& live) {
  if (!contains(state.isr, leaving) || state.isr.size() <= 1) return std::nullopt;
  PartitionState next = state;
  std::erase(next.isr, leaving);
  if (state.leader == leaving) {
    next.leader = -1;
    for (int32_t r : state.replicas) {
      if (r != leaving && live.count(r) != 0 && contains(next.isr, r)) {
        next.leader = r;
        break;
      }
    }
    // No live in-sync replica to take over: it keeps leading until it
    // goes, and the controller's usual election follows its lease.
    if (next.leader == -1) return std::nullopt;
  }
  return bumped(state, std::move(next));
}

Result<std::optional<PartitionState>> isr_change(const PartitionState& state,
                                                 const IsrRequest& request,
                                                 const std::set<int32_t>& live) {
  if (request.leader != state.leader || request.leader_epoch != state.leader_epoch) {
    return Error(
        Errc::kFencedLeaderEpoch,
        fmt::format("broker {} at leader epoch {} does not lead (the leader is {} at "
                    "leader epoch {})",
                    request.leader, request.leader_epoch, state.leader, state.leader_epoch));
  }
  if (request.partition_epoch != state.partition_epoch) {
    return Error(Errc::kUnavailable,
                 fmt::format("the request is based on partition epoch {}, the state is at {}",
                             request.partition_epoch, state.partition_epoch));
  }
  std::vector<int32_t> sorted = request.isr;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() ||
      !contains(request.isr, state.leader)) {
    return Error(Errc::kInvalidArgument,
                 fmt::format("ISR [{}] must name the leader {} and no broker twice",
                             fmt::join(request.isr, ","), state.leader));
  }
  for (int32_t r : request.isr) {
    if (!contains(state.replicas, r)) {
      return Error(Errc::kInvalidArgument,
                   fmt::format("broker {} is not a replica of the partition", r));
    }
    if (!contains(state.isr, r) && live.count(r) == 0) {
      return Error(Errc::kUnavailable,
                   fmt::format("broker {} is not live: it cannot join the ISR", r));
    }
  }
  std::vector<int32_t> now = state.isr;
  std::sort(now.begin(), now.end());
  if (now == sorted) return std::optional<PartitionState>();
  PartitionState next = state;
  // The ISR in replica order, as the controller's other writes keep it.
  next.isr.clear();
  for (int32_t r : state.replicas)
    if (contains(request.isr, r)) next.isr.push_back(r);
  return std::optional<PartitionState>(bumped(state, std::move(next)));
}

}  // namespace strata::coordinator
