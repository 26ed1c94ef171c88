#include "coordinator/group/group_coordinator.h"

#include <algorithm>
#include <random>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "coordinator/group/group_state.h"

namespace strata::coordinator {

std::string_view state_name(GroupState state) {
  switch (state) {
    case GroupState::kEmpty: return "Empty";
    case GroupState::kPreparingRebalance: return "PreparingRebalance";
    case GroupState::kCompletingRebalance: return "CompletingRebalance";
    case GroupState::kStable: return "Stable";
    case GroupState::kDead: return "Dead";
    case GroupState::kAssigning: return "Assigning";
    case GroupState::kReconciling: return "Reconciling";
  }
  return "Unknown";
}

std::string_view type_name(GroupType type) {
  return type == GroupType::kConsumer ? "consumer" : "classic";
}

GroupCoordinator::GroupCoordinator(const Clock& clock, Timers& timers, GroupConfig config,
                                   PartitionExists exists, TopicsView topics)
    : clock_(clock),
      timers_(timers),
      config_(std::move(config)),
      exists_(std::move(exists)),
      topics_(std::move(topics)) {
  if (config_.consumer_assignors.empty()) config_.consumer_assignors = {"uniform", "range"};
}

GroupCoordinator::~GroupCoordinator() {
  for (auto& [id, g] : groups_) {
    if (g->join_timer) timers_.cancel(g->join_timer);
    for (auto& [mid, m] : g->members) {
      if (m.heartbeat_timer) timers_.cancel(m.heartbeat_timer);
    }
    for (auto& [mid, t] : g->pending_timers)
      timers_.cancel(t);
    for (auto& [mid, m] : g->consumer.members)
      cancel_consumer_timers(m);
  }
}

void GroupCoordinator::host(
    int32_t partition, OffsetsStore* store,
    std::vector<std::pair<std::string, std::optional<StoredGroup>>> loaded) {
  stores_[partition] = store;
  for (auto& [id, stored] : loaded) {
    if (offsets_partition_for(id) != partition || find(id) != nullptr) continue;
    // Members are not restored: they find out with UNKNOWN_MEMBER_ID and
    // rejoin. The generation carries on so stale members stay fenced.
    Group& g = create(id);
    if (stored) {
      g.protocol_type = stored->protocol_type;
      g.generation = stored->generation;
      g.state_timestamp = stored->state_timestamp >= 0 ? stored->state_timestamp : clock_.now_ms();
    }
  }
}

void GroupCoordinator::unhost(int32_t partition) {
  stores_.erase(partition);
  for (auto it = groups_.begin(); it != groups_.end();) {
    if (offsets_partition_for(it->first) != partition) {
      ++it;
      continue;
    }
    Group& g = *it->second;
    for (auto& [mid, m] : g.members) {
      if (m.heartbeat_timer) timers_.cancel(m.heartbeat_timer);
      if (m.awaiting_join) {
        JoinResult r;
        r.error = Errc::kNotCoordinator;
        m.awaiting_join(r);
      }
      if (m.awaiting_sync) m.awaiting_sync(SyncResult{Errc::kNotCoordinator, {}, {}, {}});
    }
    if (g.join_timer) timers_.cancel(g.join_timer);
    for (auto& [mid, t] : g.pending_timers)
      timers_.cancel(t);
    for (auto& [mid, m] : g.consumer.members)
      cancel_consumer_timers(m);
    it = groups_.erase(it);
  }
}

std::optional<Errc> GroupCoordinator::routing_error(const std::string& group_id) const {
  if (group_id.empty()) return Errc::kInvalidGroupId;
  if (!hosts(offsets_partition_for(group_id))) return Errc::kCoordinatorLoadInProgress;
  return std::nullopt;
}

OffsetsStore* GroupCoordinator::store_for(const std::string& group_id) const {
  auto it = stores_.find(offsets_partition_for(group_id));
  return it == stores_.end() ? nullptr : it->second;
}

GroupCoordinator::Group* GroupCoordinator::find(const std::string& id) {
  auto it = groups_.find(id);
  return it == groups_.end() ? nullptr : it->second.get();
}

const GroupCoordinator::Group* GroupCoordinator::find(const std::string& id) const {
  auto it = groups_.find(id);
  return it == groups_.end() ? nullptr : it->second.get();
}

GroupCoordinator::Group& GroupCoordinator::create(const std::string& id) {
  auto g = std::make_unique<Group>();
  g->id = id;
  g->state_timestamp = clock_.now_ms();
  auto& ref = *g;
  groups_[id] = std::move(g);
  return ref;
}

std::string GroupCoordinator::new_member_id(const std::string& prefix) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t a = rng(), b = rng();
  return fmt::format("{}-{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", prefix.empty() ? "member" : prefix,
                     a >> 32, (a >> 16) & 0xFFFF, a & 0xFFFF, b >> 48, b & 0xFFFFFFFFFFFF);
}

void GroupCoordinator::set_state(Group& g, GroupState s) {
  g.state = s;
  g.state_timestamp = clock_.now_ms();
}

std::vector<GroupListing> GroupCoordinator::list() const {
  std::vector<GroupListing> out;
  for (const auto& [id, g] : groups_) {
    if (g->state == GroupState::kDead) continue;
    out.push_back(GroupListing{id, g->protocol_type, g->state, g->type});
  }
  return out;
}

DescribedGroup GroupCoordinator::describe(const std::string& group_id) const {
  DescribedGroup out;
  out.group_id = group_id;
  if (auto e = routing_error(group_id)) {
    out.error = *e;
    return out;
  }
  const Group* g = find(group_id);
  // Dead, no error: what Kafka answers up to DescribeGroups v5 for a group
  // it does not have, or that is not a classic group.
  if (g == nullptr || g->type != GroupType::kClassic) return out;
  out.state = g->state;
  out.protocol_type = g->protocol_type;
  bool stable = g->state == GroupState::kStable;
  out.protocol = stable ? g->protocol.value_or("") : "";
  for (const auto& [id, m] : g->members) {
    DescribedMember d{id, m.instance_id, m.client_id, m.client_host, {}, {}};
    if (stable && g->protocol) {
      if (const Bytes* meta = m.metadata_for(*g->protocol)) d.metadata = *meta;
      d.assignment = m.assignment;
    }
    out.members.push_back(std::move(d));
  }
  return out;
}

void GroupCoordinator::delete_group(const std::string& group_id, std::function<void(Errc)> done) {
  if (auto e = routing_error(group_id)) return done(*e);
  Group* g = find(group_id);
  OffsetsStore* store = store_for(group_id);
  if (g == nullptr || g->state == GroupState::kDead) return done(Errc::kGroupIdNotFound);
  if (!g->empty() || g->state != GroupState::kEmpty) return done(Errc::kNonEmptyGroup);
  auto committed = store->committed_all(group_id);
  if (!committed) return done(Errc::kCoordinatorNotAvailable);
  std::vector<GroupRecord> tombstones;
  for (const auto& c : *committed) {
    GroupRecord r;
    r.kind = GroupRecord::Kind::kOffset;
    r.group = group_id;
    r.topic = c.topic;
    r.partition = c.partition;
    tombstones.push_back(std::move(r));
  }
  GroupRecord meta;
  meta.kind = GroupRecord::Kind::kGroup;
  meta.group = group_id;
  tombstones.push_back(std::move(meta));
  set_state(*g, GroupState::kDead);
  store->append(std::move(tombstones), [this, group_id, done = std::move(done)](Status st) {
    if (!st) {
      if (Group* grp = find(group_id)) set_state(*grp, GroupState::kEmpty);
      return done(Errc::kCoordinatorNotAvailable);
    }
    groups_.erase(group_id);
    spdlog::info("group {} deleted", group_id);
    done(Errc::kOk);
  });
}

}  // namespace strata::coordinator
