#include "coordinator/group/assignors.h"

#include <algorithm>
#include <utility>

namespace strata::coordinator {
namespace {

struct TopicPartition {
  TopicId topic;
  int32_t partition;
  auto operator<=>(const TopicPartition&) const = default;
};

}  // namespace

TargetAssignment assign_uniform(const std::vector<AssignorMember>& members,
                                const std::vector<TopicMeta>& topics) {
  TargetAssignment out;
  for (const auto& m : members)
    out[m.id];
  if (members.empty()) return out;
  std::map<TopicId, std::vector<const AssignorMember*>> subscribers;
  std::map<TopicId, int32_t> partitions;
  for (const auto& t : topics) {
    partitions[t.id] = t.partitions;
    for (const auto& m : members)
      if (m.subscribed.count(t.id)) subscribers[t.id].push_back(&m);
  }
  std::map<std::string, size_t> count;
  std::map<TopicPartition, std::string> owner;
  auto give = [&](const TopicPartition& tp, const std::string& member) {
    owner[tp] = member;
    out[member][tp.topic].insert(tp.partition);
    ++count[member];
  };
  auto take = [&](const TopicPartition& tp, const std::string& member) {
    owner.erase(tp);
    auto& set = out[member][tp.topic];
    set.erase(tp.partition);
    if (set.empty()) out[member].erase(tp.topic);
    --count[member];
  };
  // Stickiness: each member keeps what it had and still subscribes to, up
  // to an even share of everything subscribed.
  size_t total = 0;
  for (const auto& [id, subs] : subscribers)
    total += static_cast<size_t>(partitions[id]);
  size_t quota = (total + members.size() - 1) / members.size();
  for (const auto& m : members) {
    for (const auto& [topic, parts] : m.current) {
      auto p = partitions.find(topic);
      if (p == partitions.end() || !m.subscribed.count(topic)) continue;
      for (int32_t part : parts) {
        TopicPartition tp{topic, part};
        if (part < p->second && !owner.count(tp) && count[m.id] < quota) give(tp, m.id);
      }
    }
  }
  // The rest, topics with the fewest subscribers first, each partition to
  // the subscriber holding the fewest.
  std::vector<TopicId> order;
  for (const auto& [id, subs] : subscribers)
    order.push_back(id);
  std::stable_sort(order.begin(), order.end(), [&](const TopicId& a, const TopicId& b) {
    return subscribers[a].size() < subscribers[b].size();
  });
  auto least_loaded = [&](const TopicId& topic) {
    const AssignorMember* best = nullptr;
    for (const auto* m : subscribers[topic]) {
      if (best == nullptr || count[m->id] < count[best->id]) best = m;
    }
    return best;
  };
  for (const auto& topic : order) {
    for (int32_t p = 0; p < partitions[topic]; ++p) {
      TopicPartition tp{topic, p};
      if (!owner.count(tp)) give(tp, least_loaded(topic)->id);
    }
  }
  // Balance: move a partition from a member holding two or more than
  // another subscriber of its topic, until none does.
  for (bool moved = true; moved;) {
    moved = false;
    for (auto it = owner.rbegin(); it != owner.rend() && !moved; ++it) {
      const auto [tp, from] = *it;
      const AssignorMember* to = least_loaded(tp.topic);
      if (to != nullptr && count[to->id] + 1 < count[from]) {
        take(tp, from);
        give(tp, to->id);
        moved = true;
      }
    }
  }
  return out;
}

TargetAssignment assign_range(const std::vector<AssignorMember>& members,
                              const std::vector<TopicMeta>& topics) {
  TargetAssignment out;
  for (const auto& m : members)
    out[m.id];
  for (const auto& t : topics) {
    std::vector<std::string> subs;
    for (const auto& m : members)
      if (m.subscribed.count(t.id)) subs.push_back(m.id);
    if (subs.empty()) continue;
    std::sort(subs.begin(), subs.end());
    auto n = static_cast<size_t>(t.partitions), k = subs.size();
    size_t next = 0;
    for (size_t i = 0; i < k; ++i) {
      size_t share = n / k + (i < n % k ? 1 : 0);
      for (size_t j = 0; j < share; ++j)
        out[subs[i]][t.id].insert(static_cast<int32_t>(next++));
    }
  }
  return out;
}

bool is_assignor(std::string_view name) {
  return name == "uniform" || name == "range";
}

std::optional<TargetAssignment> assign(std::string_view name,
                                       const std::vector<AssignorMember>& members,
                                       const std::vector<TopicMeta>& topics) {
  if (name == "uniform") return assign_uniform(members, topics);
  if (name == "range") return assign_range(members, topics);
  return std::nullopt;
}

}  // namespace strata::coordinator
