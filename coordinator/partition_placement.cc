#include "coordinator/partition_placement.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

namespace strata::coordinator {
namespace {

struct Load {
  int32_t node;
  std::string rack;
  int64_t leaders = 0;
  int64_t replicas = 0;
};

}  // namespace

Result<std::vector<PartitionState>> place_partitions(const std::vector<BrokerInfo>& live,
                                                     const std::vector<PartitionState>& existing,
                                                     int32_t count, int32_t replication_factor) {
  if (replication_factor < 1 || static_cast<size_t>(replication_factor) > live.size()) {
    return Error(Errc::kInvalidReplicationFactor,
                 fmt::format("replication factor {} is not between 1 and the {} live broker(s)",
                             replication_factor, live.size()));
  }
  if (count < 0) return Error(Errc::kInvalidPartitions, "a negative number of partitions");
  size_t with_rack = static_cast<size_t>(std::count_if(
      live.begin(), live.end(), [](const BrokerInfo& b) { return b.rack.has_value(); }));
  if (with_rack != 0 && with_rack != live.size()) {
    return Error(Errc::kInvalidReplicationFactor,
                 fmt::format("{} of the {} live brokers have broker.rack set: set it on all of "
                             "them or on none",
                             with_rack, live.size()));
  }

  std::map<int32_t, Load> loads;
  for (const auto& b : live)
    loads.emplace(b.node_id, Load{b.node_id, b.rack.value_or(""), 0, 0});
  for (const auto& s : existing) {
    if (auto it = loads.find(s.leader); it != loads.end()) ++it->second.leaders;
    for (int32_t r : s.replicas) {
      if (auto it = loads.find(r); it != loads.end()) ++it->second.replicas;
    }
  }

  std::vector<PartitionState> out;
  out.reserve(static_cast<size_t>(count));
  for (int32_t p = 0; p < count; ++p) {
    std::vector<int32_t> replicas;
    std::map<std::string, int> racks_used;
    auto pick = [&](bool leader) {
      const Load* best = nullptr;
      auto better = [&](const Load& a, const Load& b) {
        // Spread over racks first (only one rack: every count is equal).
        int ra = racks_used[a.rack], rb = racks_used[b.rack];
        if (ra != rb) return ra < rb;
        if (leader && a.leaders != b.leaders) return a.leaders < b.leaders;
        if (a.replicas != b.replicas) return a.replicas < b.replicas;
        return a.node < b.node;
      };
      for (const auto& [node, load] : loads) {
        if (std::find(replicas.begin(), replicas.end(), node) != replicas.end()) continue;
        if (best == nullptr || better(load, *best)) best = &load;
      }
      auto& chosen = loads.at(best->node);
      replicas.push_back(chosen.node);
      ++racks_used[chosen.rack];
      ++chosen.replicas;
      if (leader) ++chosen.leaders;
    };
    pick(/*leader=*/true);
    for (int32_t r = 1; r < replication_factor; ++r)
      pick(/*leader=*/false);
    out.push_back(PartitionState{replicas, replicas[0], 0, replicas, 0});
  }
  return out;
}

}  // namespace strata::coordinator
