// GroupCoordinator, the classic protocol's membership: JoinGroup, SyncGroup,
// Heartbeat and LeaveGroup, rebalances, session and rebalance timers, and
// the group metadata record each generation stores.
#include <algorithm>

#include <spdlog/spdlog.h>

#include "coordinator/group/group_coordinator.h"
#include "coordinator/group/group_state.h"

namespace strata::coordinator {

bool GroupCoordinator::supports_protocols(const Group& g, const JoinArgs& args) const {
  if (args.protocol_type.empty() || args.protocols.empty()) return false;
  if (g.members.empty()) return true;
  if (args.protocol_type != g.protocol_type) return false;
  // The new member must share at least one protocol with every member.
  for (const auto& p : args.protocols) {
    bool everyone = true;
    for (const auto& [id, m] : g.members) {
      if (id == args.member_id) continue;
      if (m.metadata_for(p.name) == nullptr) {
        everyone = false;
        break;
      }
    }
    if (everyone) return true;
  }
  return false;
}

void GroupCoordinator::join(JoinArgs args, std::function<void(JoinResult)> done) {
  auto fail = [&](Errc e) {
    JoinResult r;
    r.error = e;
    r.member_id = args.member_id;
    done(r);
  };
  if (auto e = routing_error(args.group_id)) return fail(*e);
  if (args.session_timeout_ms < config_.min_session_timeout_ms ||
      args.session_timeout_ms > config_.max_session_timeout_ms) {
    return fail(Errc::kInvalidSessionTimeout);
  }
  if (args.rebalance_timeout_ms <= 0) args.rebalance_timeout_ms = args.session_timeout_ms;
  Group* g = find(args.group_id);
  if (g == nullptr) {
    if (!args.member_id.empty()) return fail(Errc::kUnknownMemberId);
    g = &create(args.group_id);
  }
  if (g->state == GroupState::kDead) return fail(Errc::kCoordinatorNotAvailable);
  if (g->type == GroupType::kConsumer) {
    // A consumer group (KIP-848) with members does not take classic ones;
    // an empty one becomes a classic group.
    if (!g->empty()) return fail(Errc::kInconsistentGroupProtocol);
    g->type = GroupType::kClassic;
    g->consumer = ConsumerGroup{};
    g->protocol_type.clear();
  }
  if (!supports_protocols(*g, args)) return fail(Errc::kInconsistentGroupProtocol);
  if (args.member_id.empty()) {
    join_new_member(*g, std::move(args), std::move(done));
  } else {
    join_known_member(*g, std::move(args), std::move(done));
  }
  if (g->state == GroupState::kPreparingRebalance) try_complete_join(*g);
}

void GroupCoordinator::update_member(Member& m, const JoinArgs& args) {
  m.client_id = args.client_id;
  m.client_host = args.client_host;
  m.session_timeout_ms = args.session_timeout_ms;
  m.rebalance_timeout_ms = args.rebalance_timeout_ms;
  m.protocol_type = args.protocol_type;
  m.protocols = args.protocols;
}

void GroupCoordinator::add_member_and_rebalance(Group& g, JoinArgs args,
                                                const std::string& member_id,
                                                std::function<void(JoinResult)> done) {
  Member m;
  m.id = member_id;
  m.instance_id = args.instance_id;
  m.join_order = ++join_counter_;
  update_member(m, args);
  m.awaiting_join = std::move(done);
  if (g.members.empty()) g.protocol_type = args.protocol_type;
  if (args.instance_id) g.static_members[*args.instance_id] = member_id;
  g.members.emplace(member_id, std::move(m));
  if (!g.leader) g.leader = member_id;
  maybe_prepare_rebalance(g);
}

void GroupCoordinator::join_new_member(Group& g, JoinArgs args,
                                       std::function<void(JoinResult)> done) {
  if (args.instance_id) {
    auto known = g.static_members.find(*args.instance_id);
    if (known != g.static_members.end() && g.members.count(known->second)) {
      // A static member back under a new member id: it takes over the old
      // one's place, and the old id is fenced.
      std::string old_id = known->second;
      auto node = g.members.extract(old_id);
      Member& m = node.mapped();
      if (m.heartbeat_timer) timers_.cancel(m.heartbeat_timer);
      m.heartbeat_timer = 0;
      if (m.awaiting_join) {
        JoinResult fenced;
        fenced.error = Errc::kFencedInstanceId;
        fenced.member_id = old_id;
        std::exchange(m.awaiting_join, nullptr)(fenced);
      }
      if (m.awaiting_sync) {
        std::exchange(m.awaiting_sync, nullptr)(SyncResult{Errc::kFencedInstanceId, {}, {}, {}});
      }
      std::string new_id = new_member_id(*args.instance_id);
      bool protocols_changed = !same_protocols(g.protocol_type, m.protocols, args.protocols);
      m.id = new_id;
      node.key() = new_id;
      update_member(m, args);
      g.members.insert(std::move(node));
      g.static_members[*args.instance_id] = new_id;
      if (g.leader == old_id) g.leader = new_id;
      Member& placed = g.members.at(new_id);
      if (g.state == GroupState::kStable && !protocols_changed) {
        // Nothing about the group changes: no rebalance. The member gets the
        // current generation and, at SyncGroup, its old assignment. A leader
        // is no exception (KIP-814): it gets the member list as leaders do,
        // and the assignment it may send in SyncGroup is not applied in a
        // stable group; the current one is returned.
        schedule_heartbeat(g, placed);
        store_group(g, [this, gid = g.id, new_id, done = std::move(done)](Status st) {
          Group* grp = find(gid);
          if (!st || grp == nullptr || !grp->members.count(new_id)) {
            JoinResult r;
            r.error = st ? Errc::kUnknownMemberId : Errc::kCoordinatorNotAvailable;
            r.member_id = new_id;
            return done(r);
          }
          done(current_join_result(*grp, grp->members.at(new_id)));
        });
        return;
      }
      placed.awaiting_join = std::move(done);
      maybe_prepare_rebalance(g);
      return;
    }
    return add_member_and_rebalance(g, std::move(args), new_member_id(*args.instance_id),
                                    std::move(done));
  }
  std::string id = new_member_id(args.client_id);
  if (args.require_known_member_id) {
    // JoinGroup v4+: hand out the id first; the member joins with it next.
    g.pending_members.insert(id);
    std::string gid = g.id;
    g.pending_timers[id] = timers_.schedule(args.session_timeout_ms, [this, gid, id] {
      Group* grp = find(gid);
      if (grp == nullptr) return;
      grp->pending_timers.erase(id);
      if (grp->pending_members.erase(id) > 0 && grp->state == GroupState::kPreparingRebalance) {
        try_complete_join(*grp);
      }
    });
    JoinResult r;
    r.error = Errc::kMemberIdRequired;
    r.member_id = id;
    return done(r);
  }
  add_member_and_rebalance(g, std::move(args), id, std::move(done));
}

void GroupCoordinator::join_known_member(Group& g, JoinArgs args,
                                         std::function<void(JoinResult)> done) {
  const std::string id = args.member_id;
  if (g.pending_members.erase(id) > 0) {
    if (auto t = g.pending_timers.find(id); t != g.pending_timers.end()) {
      timers_.cancel(t->second);
      g.pending_timers.erase(t);
    }
    return add_member_and_rebalance(g, std::move(args), id, std::move(done));
  }
  JoinResult r;
  r.member_id = id;
  // Fencing is checked first, as Kafka does: a static instance replaced by
  // a newer member id must hear FENCED_INSTANCE_ID (and shut down), not
  // UNKNOWN_MEMBER_ID (which would make it rejoin and steal the instance
  // back).
  if (args.instance_id) {
    auto s = g.static_members.find(*args.instance_id);
    if (s != g.static_members.end() && s->second != id) {
      r.error = Errc::kFencedInstanceId;
      return done(r);
    }
  }
  auto it = g.members.find(id);
  if (it == g.members.end()) {
    r.error = Errc::kUnknownMemberId;
    return done(r);
  }
  if (args.instance_id && !g.static_members.contains(*args.instance_id)) {
    // A known dynamic member id presented with an instance id it never had.
    r.error = Errc::kUnknownMemberId;
    return done(r);
  }
  Member& m = it->second;
  bool protocols_changed = m.protocols.size() != args.protocols.size() ||
                           !std::equal(m.protocols.begin(), m.protocols.end(),
                                       args.protocols.begin(), [](const auto& a, const auto& b) {
                                         return a.name == b.name && a.metadata == b.metadata;
                                       });
  if (m.heartbeat_timer) {
    timers_.cancel(m.heartbeat_timer);
    m.heartbeat_timer = 0;
  }
  switch (g.state) {
    case GroupState::kPreparingRebalance:
      update_member(m, args);
      if (m.awaiting_join) {
        JoinResult superseded;
        superseded.error = Errc::kRebalanceInProgress;
        superseded.member_id = id;
        std::exchange(m.awaiting_join, nullptr)(superseded);
      }
      m.awaiting_join = std::move(done);
      return;
    case GroupState::kCompletingRebalance:
      if (!protocols_changed) {
        // The member missed the join response: send it again.
        schedule_heartbeat(g, m);
        return done(current_join_result(g, m));
      }
      update_member(m, args);
      m.awaiting_join = std::move(done);
      prepare_rebalance(g);
      return;
    case GroupState::kStable:
      if (protocols_changed || g.leader == id) {
        // The leader rejoining means it wants a new assignment.
        update_member(m, args);
        m.awaiting_join = std::move(done);
        prepare_rebalance(g);
        return;
      }
      schedule_heartbeat(g, m);
      return done(current_join_result(g, m));
    case GroupState::kEmpty:
    case GroupState::kDead:
    case GroupState::kAssigning:  // consumer-group states: never a classic group's
    case GroupState::kReconciling: r.error = Errc::kUnknownMemberId; return done(r);
  }
}

JoinResult GroupCoordinator::current_join_result(const Group& g, const Member& m) const {
  JoinResult r;
  r.generation = g.generation;
  r.protocol_type = g.protocol_type;
  r.protocol = g.protocol;
  r.leader = g.leader.value_or("");
  r.member_id = m.id;
  if (g.leader == m.id && g.protocol) {
    for (const auto& [id, other] : g.members) {
      const Bytes* meta = other.metadata_for(*g.protocol);
      r.members.push_back({id, other.instance_id, meta ? *meta : Bytes()});
    }
  }
  return r;
}

void GroupCoordinator::maybe_prepare_rebalance(Group& g) {
  if (g.state == GroupState::kStable || g.state == GroupState::kCompletingRebalance ||
      g.state == GroupState::kEmpty) {
    prepare_rebalance(g);
  }
}

void GroupCoordinator::prepare_rebalance(Group& g) {
  if (g.state == GroupState::kCompletingRebalance) {
    for (auto& [id, m] : g.members) {
      if (m.awaiting_sync) {
        std::exchange(m.awaiting_sync, nullptr)(SyncResult{Errc::kRebalanceInProgress, {}, {}, {}});
      }
    }
  }
  bool was_empty = g.state == GroupState::kEmpty;
  set_state(g, GroupState::kPreparingRebalance);
  if (g.join_timer) timers_.cancel(g.join_timer);
  std::string gid = g.id;
  if (was_empty && config_.initial_rebalance_delay_ms > 0) {
    // Wait for the other members of a starting group, so the first
    // assignment is not redone as each one arrives; every newcomer during a
    // delay buys one more delay, within the rebalance timeout.
    g.in_initial_delay = true;
    g.members_at_delay_start = g.members.size();
    g.initial_delay_left_ms =
        std::max<int64_t>(0, g.rebalance_timeout_ms() - config_.initial_rebalance_delay_ms);
    g.join_timer = timers_.schedule(config_.initial_rebalance_delay_ms,
                                    [this, gid] { on_initial_delay(gid); });
    return;
  }
  g.in_initial_delay = false;
  g.join_timer = timers_.schedule(g.rebalance_timeout_ms(), [this, gid] {
    Group* grp = find(gid);
    if (grp && grp->state == GroupState::kPreparingRebalance) {
      grp->join_timer = 0;
      complete_join(*grp);
    }
  });
}

void GroupCoordinator::on_initial_delay(const std::string& group_id) {
  Group* g = find(group_id);
  if (g == nullptr || !g->in_initial_delay) return;
  g->join_timer = 0;
  if (g->members.size() > g->members_at_delay_start && g->initial_delay_left_ms > 0) {
    int64_t next = std::min<int64_t>(config_.initial_rebalance_delay_ms, g->initial_delay_left_ms);
    g->initial_delay_left_ms -= next;
    g->members_at_delay_start = g->members.size();
    g->join_timer = timers_.schedule(next, [this, group_id] { on_initial_delay(group_id); });
    return;
  }
  g->in_initial_delay = false;
  complete_join(*g);
}

void GroupCoordinator::try_complete_join(Group& g) {
  if (g.state == GroupState::kPreparingRebalance && !g.in_initial_delay && g.all_joined()) {
    complete_join(g);
  }
}

std::optional<std::string> GroupCoordinator::select_protocol(const Group& g) const {
  // Candidates: protocols every member supports, in the first member's order.
  std::vector<std::string> candidates;
  const Member* first = nullptr;
  for (const auto& [id, m] : g.members) {
    if (first == nullptr || m.join_order < first->join_order) first = &m;
  }
  if (first == nullptr) return std::nullopt;
  for (const auto& p : first->protocols) {
    bool everyone = std::all_of(g.members.begin(), g.members.end(), [&](const auto& kv) {
      return kv.second.metadata_for(p.name) != nullptr;
    });
    if (everyone) candidates.push_back(p.name);
  }
  if (candidates.empty()) return std::nullopt;
  // Each member votes for the candidate it prefers most.
  std::map<std::string, int> votes;
  for (const auto& [id, m] : g.members) {
    for (const auto& p : m.protocols) {
      if (std::find(candidates.begin(), candidates.end(), p.name) != candidates.end()) {
        ++votes[p.name];
        break;
      }
    }
  }
  std::string best = candidates.front();
  for (const auto& c : candidates) {
    if (votes[c] > votes[best]) best = c;
  }
  return best;
}

void GroupCoordinator::complete_join(Group& g) {
  if (g.join_timer) {
    timers_.cancel(g.join_timer);
    g.join_timer = 0;
  }
  g.in_initial_delay = false;
  // Members that did not rejoin in time are out.
  std::vector<std::string> gone;
  for (const auto& [id, m] : g.members) {
    if (!m.awaiting_join) gone.push_back(id);
  }
  for (const auto& id : gone) {
    spdlog::info("group {}: member {} did not rejoin in time and was removed", g.id, id);
    remove_member(g, id, Errc::kUnknownMemberId);
  }
  for (auto& [id, t] : g.pending_timers)
    timers_.cancel(t);
  g.pending_timers.clear();
  g.pending_members.clear();
  ++g.generation;
  if (g.members.empty()) {
    g.protocol.reset();
    g.leader.reset();
    set_state(g, GroupState::kEmpty);
    spdlog::info("group {}: generation {} has no members", g.id, g.generation);
    store_group(g, [](Status) {});
    return;
  }
  g.protocol = select_protocol(g);
  if (!g.leader || !g.members.count(*g.leader)) {
    const Member* first = nullptr;
    for (const auto& [id, m] : g.members) {
      if (first == nullptr || m.join_order < first->join_order) first = &m;
    }
    g.leader = first->id;
  }
  set_state(g, GroupState::kCompletingRebalance);
  spdlog::info("group {}: generation {} with {} member(s), protocol {}, leader {}", g.id,
               g.generation, g.members.size(), g.protocol.value_or("?"), *g.leader);
  std::vector<std::pair<std::function<void(JoinResult)>, JoinResult>> replies;
  for (auto& [id, m] : g.members) {
    replies.emplace_back(std::exchange(m.awaiting_join, nullptr), current_join_result(g, m));
    schedule_heartbeat(g, m);
  }
  for (auto& [cb, r] : replies)
    cb(r);
}

void GroupCoordinator::schedule_heartbeat(Group& g, Member& m) {
  if (m.heartbeat_timer) timers_.cancel(m.heartbeat_timer);
  std::string gid = g.id, mid = m.id;
  auto holder = std::make_shared<TimerId>(0);
  m.heartbeat_timer = timers_.schedule(
      m.session_timeout_ms, [this, gid, mid, holder] { on_session_expired(gid, mid, *holder); });
  *holder = m.heartbeat_timer;
}

void GroupCoordinator::on_session_expired(const std::string& group_id, const std::string& member_id,
                                          TimerId id) {
  Group* g = find(group_id);
  if (g == nullptr) return;
  auto it = g->members.find(member_id);
  if (it == g->members.end() || it->second.heartbeat_timer != id) return;
  it->second.heartbeat_timer = 0;
  spdlog::info("group {}: member {} missed its session timeout", group_id, member_id);
  remove_member(*g, member_id, Errc::kUnknownMemberId);
  if (g->state == GroupState::kStable || g->state == GroupState::kCompletingRebalance) {
    prepare_rebalance(*g);
  } else if (g->state == GroupState::kPreparingRebalance) {
    try_complete_join(*g);
  }
}

void GroupCoordinator::remove_member(Group& g, const std::string& member_id, Errc for_waiters) {
  auto it = g.members.find(member_id);
  if (it == g.members.end()) return;
  Member m = std::move(it->second);
  g.members.erase(it);
  if (m.heartbeat_timer) timers_.cancel(m.heartbeat_timer);
  if (m.instance_id) {
    auto s = g.static_members.find(*m.instance_id);
    if (s != g.static_members.end() && s->second == member_id) g.static_members.erase(s);
  }
  if (g.leader == member_id) g.leader.reset();
  if (m.awaiting_join) {
    JoinResult r;
    r.error = for_waiters;
    r.member_id = member_id;
    m.awaiting_join(r);
  }
  if (m.awaiting_sync) m.awaiting_sync(SyncResult{for_waiters, {}, {}, {}});
}

StoredGroup GroupCoordinator::snapshot(const Group& g) const {
  StoredGroup s;
  s.protocol_type = g.protocol_type;
  s.generation = g.generation;
  s.protocol = g.protocol;
  s.leader = g.leader;
  s.state_timestamp = g.state_timestamp;
  for (const auto& [id, m] : g.members) {
    StoredMember sm;
    sm.member_id = id;
    sm.instance_id = m.instance_id;
    sm.client_id = m.client_id;
    sm.client_host = m.client_host;
    sm.rebalance_timeout_ms = m.rebalance_timeout_ms;
    sm.session_timeout_ms = m.session_timeout_ms;
    if (g.protocol) {
      if (const Bytes* meta = m.metadata_for(*g.protocol)) sm.subscription = *meta;
    }
    sm.assignment = m.assignment;
    s.members.push_back(std::move(sm));
  }
  return s;
}

void GroupCoordinator::store_group(Group& g, std::function<void(Status)> done) {
  OffsetsStore* store = store_for(g.id);
  if (store == nullptr) return done(Error(Errc::kShutdown, "partition not hosted"));
  GroupRecord r;
  r.kind = GroupRecord::Kind::kGroup;
  r.group = g.id;
  r.metadata = snapshot(g);
  store->append({std::move(r)}, std::move(done));
}

void GroupCoordinator::sync(SyncArgs args, std::function<void(SyncResult)> done) {
  auto fail = [&](Errc e) { done(SyncResult{e, {}, {}, {}}); };
  if (auto e = routing_error(args.group_id)) return fail(*e);
  Group* g = find(args.group_id);
  if (g == nullptr) return fail(Errc::kUnknownMemberId);
  if (g->state == GroupState::kDead) return fail(Errc::kCoordinatorNotAvailable);
  auto it = g->members.find(args.member_id);
  if (args.instance_id) {
    auto s = g->static_members.find(*args.instance_id);
    if (s != g->static_members.end() && s->second != args.member_id) {
      return fail(Errc::kFencedInstanceId);
    }
  }
  if (it == g->members.end()) return fail(Errc::kUnknownMemberId);
  if (args.generation != g->generation) return fail(Errc::kIllegalGeneration);
  if ((args.protocol_type && *args.protocol_type != g->protocol_type) ||
      (args.protocol && args.protocol != g->protocol)) {
    return fail(Errc::kInconsistentGroupProtocol);
  }
  Member& m = it->second;
  switch (g->state) {
    case GroupState::kEmpty:
    case GroupState::kAssigning:  // consumer-group states: never a classic group's
    case GroupState::kReconciling: return fail(Errc::kUnknownMemberId);
    case GroupState::kPreparingRebalance: return fail(Errc::kRebalanceInProgress);
    case GroupState::kDead: return fail(Errc::kCoordinatorNotAvailable);
    case GroupState::kStable:
      schedule_heartbeat(*g, m);
      return done(SyncResult{Errc::kOk, g->protocol_type, g->protocol, m.assignment});
    case GroupState::kCompletingRebalance: break;
  }
  schedule_heartbeat(*g, m);
  if (m.awaiting_sync) {
    std::exchange(m.awaiting_sync, nullptr)(SyncResult{Errc::kRebalanceInProgress, {}, {}, {}});
  }
  m.awaiting_sync = std::move(done);
  if (g->leader != args.member_id) return;
  // The leader's assignment: record it, persist the group, then release
  // every member waiting in SyncGroup.
  std::map<std::string, Bytes> given(args.assignments.begin(), args.assignments.end());
  for (auto& [id, member] : g->members) {
    auto a = given.find(id);
    member.assignment = a == given.end() ? Bytes() : a->second;
  }
  std::string gid = g->id;
  int32_t generation = g->generation;
  store_group(*g, [this, gid, generation](Status st) {
    Group* grp = find(gid);
    if (grp == nullptr || grp->state != GroupState::kCompletingRebalance ||
        grp->generation != generation) {
      return;  // a newer rebalance took over; its waiters were answered
    }
    if (!st) {
      spdlog::error("group {}: storing generation {} failed: {}", gid, generation,
                    st.error().to_string());
      for (auto& [id, member] : grp->members) {
        if (member.awaiting_sync) {
          std::exchange(member.awaiting_sync,
                        nullptr)(SyncResult{Errc::kCoordinatorNotAvailable, {}, {}, {}});
        }
      }
      prepare_rebalance(*grp);
      return;
    }
    set_state(*grp, GroupState::kStable);
    std::vector<std::pair<std::function<void(SyncResult)>, SyncResult>> replies;
    for (auto& [id, member] : grp->members) {
      if (member.awaiting_sync) {
        replies.emplace_back(
            std::exchange(member.awaiting_sync, nullptr),
            SyncResult{Errc::kOk, grp->protocol_type, grp->protocol, member.assignment});
      }
    }
    for (auto& [cb, r] : replies)
      cb(r);
  });
}

Errc GroupCoordinator::heartbeat(const HeartbeatArgs& args) {
  if (auto e = routing_error(args.group_id)) return *e;
  Group* g = find(args.group_id);
  if (g == nullptr) return Errc::kUnknownMemberId;
  if (g->state == GroupState::kDead) return Errc::kCoordinatorNotAvailable;
  if (args.instance_id) {
    auto s = g->static_members.find(*args.instance_id);
    if (s != g->static_members.end() && s->second != args.member_id) {
      return Errc::kFencedInstanceId;
    }
  }
  auto it = g->members.find(args.member_id);
  if (it == g->members.end() || g->state == GroupState::kEmpty) return Errc::kUnknownMemberId;
  if (args.generation != g->generation) return Errc::kIllegalGeneration;
  schedule_heartbeat(*g, it->second);
  if (g->state == GroupState::kPreparingRebalance) return Errc::kRebalanceInProgress;
  return Errc::kOk;
}

LeaveResult GroupCoordinator::leave(const std::string& group_id,
                                    const std::vector<LeavingMember>& members) {
  LeaveResult out;
  if (auto e = routing_error(group_id)) {
    out.error = *e;
    return out;
  }
  Group* g = find(group_id);
  if (g == nullptr || g->state == GroupState::kDead) {
    out.error = g == nullptr ? Errc::kUnknownMemberId : Errc::kCoordinatorNotAvailable;
    out.members.assign(members.size(), out.error);
    return out;
  }
  bool removed = false;
  for (const auto& lm : members) {
    std::string id = lm.member_id;
    if (lm.instance_id) {
      auto s = g->static_members.find(*lm.instance_id);
      if (s == g->static_members.end()) {
        out.members.push_back(Errc::kUnknownMemberId);
        continue;
      }
      if (!id.empty() && s->second != id) {
        out.members.push_back(Errc::kFencedInstanceId);
        continue;
      }
      id = s->second;
    }
    if (g->pending_members.erase(id) > 0) {
      if (auto t = g->pending_timers.find(id); t != g->pending_timers.end()) {
        timers_.cancel(t->second);
        g->pending_timers.erase(t);
      }
      out.members.push_back(Errc::kOk);
      removed = true;
      continue;
    }
    if (!g->members.count(id)) {
      out.members.push_back(Errc::kUnknownMemberId);
      continue;
    }
    spdlog::info("group {}: member {} left", group_id, id);
    remove_member(*g, id, Errc::kUnknownMemberId);
    out.members.push_back(Errc::kOk);
    removed = true;
  }
  if (removed) {
    if (g->state == GroupState::kStable || g->state == GroupState::kCompletingRebalance) {
      prepare_rebalance(*g);
    } else if (g->state == GroupState::kPreparingRebalance) {
      try_complete_join(*g);
    }
  }
  if (members.size() == 1) out.error = out.members.front();
  return out;
}

}  // namespace strata::coordinator
