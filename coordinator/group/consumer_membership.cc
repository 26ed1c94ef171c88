// GroupCoordinator, consumer groups (KIP-848): ConsumerGroupHeartbeat and
// ConsumerGroupDescribe.
//
// The coordinator assigns. A change to the members, their subscriptions or
// the subscribed topics bumps the group epoch, and the group's assignor
// computes a new target assignment at once (the assignment epoch catches
// up). Each member then reconciles to its target through its heartbeats:
//   1. what it owns and is no longer its target is revoked first: the answer
//      lists only what it keeps, and its epoch stays until a heartbeat shows
//      it no longer owns the revoked partitions (or its rebalance timeout
//      fences it);
//   2. it then moves to the assignment epoch with what it keeps and every
//      partition of its target that no other member still holds;
//   3. the rest reaches it in later heartbeats, as the others release it.
// So a partition is never owned by two members, and a member whose target
// does not change keeps consuming throughout.
#include <algorithm>

#include <fmt/format.h>
#include <re2/re2.h>
#include <spdlog/spdlog.h>

#include "base/check.h"
#include "coordinator/group/assignors.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/group/group_state.h"

namespace strata::coordinator {
namespace {

bool contains(const Assignment& a, const TopicId& topic, int32_t partition) {
  auto it = a.find(topic);
  return it != a.end() && it->second.count(partition) > 0;
}

bool intersects(const Assignment& a, const Assignment& b) {
  for (const auto& [topic, parts] : b)
    for (int32_t p : parts)
      if (contains(a, topic, p)) return true;
  return false;
}

bool subset(const Assignment& a, const Assignment& of) {
  for (const auto& [topic, parts] : a)
    for (int32_t p : parts)
      if (!contains(of, topic, p)) return false;
  return true;
}

// a ∩ b (keep = true) or a − b (keep = false).
Assignment filter(const Assignment& a, const Assignment& b, bool keep) {
  Assignment out;
  for (const auto& [topic, parts] : a)
    for (int32_t p : parts)
      if (contains(b, topic, p) == keep) out[topic].insert(p);
  return out;
}

std::unique_ptr<RE2> compile(const std::optional<std::string>& pattern) {
  if (!pattern || pattern->empty()) return nullptr;
  RE2::Options options;
  options.set_log_errors(false);
  return std::make_unique<RE2>(*pattern, options);
}

}  // namespace

Status GroupCoordinator::validate_consumer_args(const ConsumerHeartbeatArgs& a) const {
  auto invalid = [](std::string m) { return Error(Errc::kInvalidArgument, std::move(m)); };
  if (a.member_epoch < -2) return invalid(fmt::format("MemberEpoch {} is invalid", a.member_epoch));
  if (a.member_epoch != 0 && a.member_id.empty()) return invalid("MemberId can't be empty");
  if (a.member_epoch == -2 && !a.instance_id) {
    return invalid("InstanceId can't be null when a static member leaves with epoch -2");
  }
  if (a.member_epoch == 0) {
    if (a.rebalance_timeout_ms == -1) {
      return invalid("RebalanceTimeoutMs must be provided in the first request");
    }
    if (!a.subscribed_topic_names && !a.subscribed_topic_regex) {
      return invalid(
          "SubscribedTopicNames or SubscribedTopicRegex must be set in the first request");
    }
    if (a.owned && !a.owned->empty()) {
      return invalid("TopicPartitions must be empty when (re-)joining");
    }
  }
  if (a.server_assignor) {
    const auto& known = config_.consumer_assignors;
    if (std::find(known.begin(), known.end(), *a.server_assignor) == known.end() ||
        !is_assignor(*a.server_assignor)) {
      return Error(Errc::kUnsupportedAssignor,
                   fmt::format("ServerAssignor {} is not supported; supported: {}",
                               *a.server_assignor, fmt::join(known, ", ")));
    }
  }
  if (auto re = compile(a.subscribed_topic_regex); re && !re->ok()) {
    return Error(Errc::kInvalidRegularExpression,
                 fmt::format("SubscribedTopicRegex '{}' does not compile: {}",
                             *a.subscribed_topic_regex, re->error()));
  }
  return ok_status();
}

void GroupCoordinator::consumer_heartbeat(ConsumerHeartbeatArgs args,
                                          std::function<void(ConsumerHeartbeatResult)> done) {
  ConsumerHeartbeatResult r;
  r.member_id = args.member_id;
  r.member_epoch = args.member_epoch;
  auto fail = [&](Errc e, std::string message) {
    r.error = e;
    r.message = std::move(message);
    done(r);
  };
  if (auto e = routing_error(args.group_id)) return fail(*e, "");
  if (auto st = validate_consumer_args(args); !st) {
    return fail(st.error().code(), st.error().message());
  }
  Group* g = find(args.group_id);
  if (g != nullptr && g->state == GroupState::kDead)
    return fail(Errc::kCoordinatorNotAvailable, "");
  if (g != nullptr && g->type == GroupType::kClassic) {
    if (!g->empty()) {
      return fail(Errc::kGroupIdNotFound,
                  fmt::format("group {} is a classic group with members", args.group_id));
    }
    // An empty classic group (offsets only) becomes a consumer group.
    g->type = GroupType::kConsumer;
    g->protocol_type = "consumer";
    g->protocol.reset();
    g->leader.reset();
  }
  if (g == nullptr) {
    if (args.member_epoch != 0) {
      return fail(Errc::kUnknownMemberId,
                  fmt::format("group {} has no member {}", args.group_id, args.member_id));
    }
    g = &create(args.group_id);
    g->type = GroupType::kConsumer;
    g->protocol_type = "consumer";
  }
  ConsumerGroup& cg = g->consumer;
  if (args.member_epoch < 0) {
    std::string id = args.member_id;
    if (args.instance_id) {
      auto s = cg.static_members.find(*args.instance_id);
      if (s == cg.static_members.end()) {
        return fail(Errc::kUnknownMemberId,
                    fmt::format("instance {} is not in group {}", *args.instance_id, g->id));
      }
      if (s->second != id) {
        return fail(Errc::kFencedInstanceId,
                    fmt::format("instance {} belongs to member {}", *args.instance_id, s->second));
      }
    }
    auto it = cg.members.find(id);
    if (it == cg.members.end()) {
      return fail(Errc::kUnknownMemberId, fmt::format("group {} has no member {}", g->id, id));
    }
    if (args.member_epoch == -2) {
      // A static member restarting: its partitions wait for its return, up to
      // its session timeout.
      ConsumerMember& m = it->second;
      m.left_static = true;
      m.epoch = -2;
      cancel_revocation(m);
      schedule_consumer_session(*g, m);
      spdlog::info("group {}: static member {} ({}) left for now", g->id, id, *m.instance_id);
    } else {
      remove_consumer_member(*g, id, "left the group");
    }
    update_consumer_state(*g);
    return done(r);
  }
  ConsumerMember* m = nullptr;
  size_t members_before = cg.members.size();
  if (args.member_epoch == 0) {
    auto joined = consumer_join(*g, args);
    if (!joined) return fail(joined.error().code(), joined.error().message());
    m = *joined;
  } else {
    auto it = cg.members.find(args.member_id);
    if (it == cg.members.end() || it->second.left_static) {
      return fail(Errc::kUnknownMemberId,
                  fmt::format("group {} has no member {}", g->id, args.member_id));
    }
    m = &it->second;
    if (args.instance_id && m->instance_id != args.instance_id) {
      return fail(Errc::kFencedInstanceId,
                  fmt::format("member {} is not instance {}", m->id, *args.instance_id));
    }
    // A member one epoch behind may only have missed the answer that moved
    // it on; anything else is a member the group has moved past.
    bool missed_answer =
        args.member_epoch == m->previous_epoch && (!args.owned || subset(*args.owned, m->assigned));
    if (args.member_epoch != m->epoch && !missed_answer) {
      return fail(Errc::kFencedMemberEpoch, fmt::format("member {} sent epoch {}; its epoch is {}",
                                                        m->id, args.member_epoch, m->epoch));
    }
  }
  // One new epoch for whatever this heartbeat changed: a member, a
  // subscription, the subscribed topics.
  bool changed = update_consumer_member(*m, args) || cg.members.size() != members_before;
  schedule_consumer_session(*g, *m);
  refresh_consumer_target(*g, changed);
  Assignment before = m->assigned;
  reconcile(*g, *m, args.owned);
  update_consumer_state(*g);
  r.member_id = m->id;
  r.member_epoch = m->epoch;
  r.heartbeat_interval_ms = config_.consumer_heartbeat_interval_ms;
  if (args.member_epoch != m->epoch || m->assigned != before ||
      (args.owned && *args.owned != m->assigned)) {
    r.assignment = m->assigned;
  }
  done(r);
}

Result<GroupCoordinator::ConsumerMember*> GroupCoordinator::consumer_join(
    Group& g, const ConsumerHeartbeatArgs& args) {
  ConsumerGroup& cg = g.consumer;
  std::string id = args.member_id.empty() ? new_member_id(args.client_id) : args.member_id;
  if (args.instance_id) {
    auto s = cg.static_members.find(*args.instance_id);
    if (s != cg.static_members.end() && s->second != id) {
      auto old = cg.members.find(s->second);
      STRATA_CHECK(old != cg.members.end(), "group {}: instance {} maps to no member", g.id,
                   *args.instance_id);
      if (!old->second.left_static) {
        return Error(
            Errc::kUnreleasedInstanceId,
            fmt::format("instance {} is still held by member {}", *args.instance_id, s->second));
      }
      // The static member is back under a new member id: it takes over its
      // place, its target and what it owned, without a new group epoch.
      auto node = cg.members.extract(old);
      ConsumerMember& m = node.mapped();
      cancel_consumer_timers(m);
      for (auto& [tp, owner] : cg.owners)
        if (owner == m.id) owner = id;
      if (auto t = cg.target.extract(m.id)) {
        t.key() = id;
        cg.target.insert(std::move(t));
      }
      spdlog::info("group {}: static member {} is back as {} (was {})", g.id, *args.instance_id, id,
                   m.id);
      m.id = id;
      m.left_static = false;
      m.epoch = 0;
      m.previous_epoch = -1;
      m.state = ConsumerMember::State::kStable;
      m.client_id = args.client_id;
      m.client_host = args.client_host;
      node.key() = id;
      s->second = id;
      return &cg.members.insert(std::move(node)).position->second;
    }
  }
  if (auto it = cg.members.find(id); it != cg.members.end()) {
    // A member joining again under its id: whatever it owned, it has lost.
    ConsumerMember& m = it->second;
    release_all(cg, m);
    m.left_static = false;
    cancel_revocation(m);
    m.previous_epoch = -1;
    m.epoch = 0;
    m.state = ConsumerMember::State::kStable;
    return &m;
  }
  if (static_cast<int64_t>(cg.members.size()) >= config_.consumer_max_size) {
    return Error(Errc::kGroupMaxSizeReached,
                 fmt::format("group {} has reached its maximum size of {} members", g.id,
                             config_.consumer_max_size));
  }
  ConsumerMember m;
  m.id = id;
  m.instance_id = args.instance_id;
  m.client_id = args.client_id;
  m.client_host = args.client_host;
  if (args.instance_id) cg.static_members[*args.instance_id] = id;
  spdlog::info("group {}: member {} joined", g.id, id);
  return &cg.members.emplace(id, std::move(m)).first->second;
}

bool GroupCoordinator::update_consumer_member(ConsumerMember& m, const ConsumerHeartbeatArgs& a) {
  bool changed = false;
  if (a.rebalance_timeout_ms != -1) m.rebalance_timeout_ms = a.rebalance_timeout_ms;
  if (a.rack_id) m.rack_id = a.rack_id;
  if (a.subscribed_topic_names) {
    auto names = *a.subscribed_topic_names;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    changed |= names != m.subscribed_names;
    m.subscribed_names = std::move(names);
  }
  if (a.subscribed_topic_regex) {
    std::optional<std::string> regex;
    if (!a.subscribed_topic_regex->empty()) regex = a.subscribed_topic_regex;
    if (regex != m.subscribed_regex) {
      changed = true;
      m.compiled_regex = compile(regex);
      m.subscribed_regex = std::move(regex);
    }
  }
  if (a.server_assignor && a.server_assignor != m.server_assignor) {
    changed = true;
    m.server_assignor = a.server_assignor;
  }
  return changed;
}

// Whether `topic` is one `m` subscribes to, by name or by regex.
bool GroupCoordinator::subscribes(const ConsumerMember& m, const std::string& topic) {
  if (std::binary_search(m.subscribed_names.begin(), m.subscribed_names.end(), topic)) return true;
  return m.compiled_regex != nullptr && RE2::FullMatch(topic, *m.compiled_regex);
}

std::vector<TopicMeta> GroupCoordinator::consumer_subscribed_topics(const ConsumerGroup& cg) const {
  std::vector<TopicMeta> out;
  for (auto& t : topics_()) {
    bool wanted = std::any_of(cg.members.begin(), cg.members.end(),
                              [&](const auto& kv) { return subscribes(kv.second, t.name); });
    if (wanted) out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(),
            [](const TopicMeta& a, const TopicMeta& b) { return a.name < b.name; });
  return out;
}

void GroupCoordinator::refresh_consumer_target(Group& g, bool changed) {
  ConsumerGroup& cg = g.consumer;
  auto topics = consumer_subscribed_topics(cg);
  if (topics != cg.subscribed_topics) {
    cg.subscribed_topics = std::move(topics);
    changed = true;
  }
  if (changed) ++cg.group_epoch;
  if (cg.group_epoch <= cg.assignment_epoch) return;
  // The assignor most members ask for; the configured default otherwise.
  std::map<std::string, int> votes;
  for (const auto& [id, m] : cg.members)
    if (m.server_assignor) ++votes[*m.server_assignor];
  std::string assignor = config_.consumer_assignors.front();
  int best = 0;
  for (const auto& [name, n] : votes) {
    if (n > best) {
      best = n;
      assignor = name;
    }
  }
  std::vector<AssignorMember> members;
  for (const auto& [id, m] : cg.members) {
    AssignorMember am;
    am.id = id;
    for (const auto& t : cg.subscribed_topics)
      if (subscribes(m, t.name)) am.subscribed.insert(t.id);
    if (auto it = cg.target.find(id); it != cg.target.end()) am.current = it->second;
    members.push_back(std::move(am));
  }
  cg.target = *assign(assignor, members, cg.subscribed_topics);
  cg.assignor = assignor;
  cg.assignment_epoch = cg.group_epoch;
  size_t partitions = 0;
  for (const auto& t : cg.subscribed_topics)
    partitions += static_cast<size_t>(t.partitions);
  spdlog::info("group {}: epoch {}: {} assigned {} partition(s) of {} topic(s) to {} member(s)",
               g.id, cg.group_epoch, assignor, partitions, cg.subscribed_topics.size(),
               cg.members.size());
}

void GroupCoordinator::reconcile(Group& g, ConsumerMember& m,
                                 const std::optional<Assignment>& owned) {
  using State = ConsumerMember::State;
  ConsumerGroup& cg = g.consumer;
  if (m.left_static) return;
  if (m.state == State::kUnrevokedPartitions) {
    if (!owned || intersects(*owned, m.revoking)) return;  // still revoking
    release(cg, m.id, m.revoking);
    m.revoking.clear();
    cancel_revocation(m);
    m.state = State::kStable;
  }
  if (m.epoch == cg.assignment_epoch && m.state == State::kStable) return;
  const Assignment& target = cg.target[m.id];
  Assignment revoke = filter(m.assigned, target, false);
  if (!revoke.empty()) {
    m.assigned = filter(m.assigned, target, true);
    m.revoking = std::move(revoke);
    m.state = State::kUnrevokedPartitions;
    std::string gid = g.id, mid = m.id;
    int32_t epoch = m.epoch;
    m.revocation_timer = timers_.schedule(m.rebalance_timeout_ms, [this, gid, mid, epoch] {
      Group* grp = find(gid);
      if (grp == nullptr) return;
      auto it = grp->consumer.members.find(mid);
      if (it == grp->consumer.members.end() || it->second.epoch != epoch ||
          it->second.state != State::kUnrevokedPartitions) {
        return;
      }
      it->second.revocation_timer = 0;
      remove_consumer_member(*grp, mid,
                             "did not revoke its partitions within its rebalance timeout");
      update_consumer_state(*grp);
    });
    return;
  }
  bool unreleased = false;
  for (const auto& [topic, parts] : target) {
    for (int32_t p : parts) {
      auto [it, fresh] = cg.owners.try_emplace({topic, p}, m.id);
      if (fresh || it->second == m.id) {
        m.assigned[topic].insert(p);
      } else {
        unreleased = true;
      }
    }
  }
  if (m.epoch != cg.assignment_epoch) {
    m.previous_epoch = m.epoch;
    m.epoch = cg.assignment_epoch;
  }
  m.state = unreleased ? State::kUnreleasedPartitions : State::kStable;
}

void GroupCoordinator::release(ConsumerGroup& cg, const std::string& member_id,
                               const Assignment& partitions) {
  for (const auto& [topic, parts] : partitions) {
    for (int32_t p : parts) {
      auto it = cg.owners.find({topic, p});
      if (it != cg.owners.end() && it->second == member_id) cg.owners.erase(it);
    }
  }
}

void GroupCoordinator::release_all(ConsumerGroup& cg, ConsumerMember& m) {
  release(cg, m.id, m.assigned);
  release(cg, m.id, m.revoking);
  m.assigned.clear();
  m.revoking.clear();
}

void GroupCoordinator::cancel_revocation(ConsumerMember& m) {
  if (m.revocation_timer) timers_.cancel(std::exchange(m.revocation_timer, 0));
}

void GroupCoordinator::cancel_consumer_timers(ConsumerMember& m) {
  if (m.session_timer) timers_.cancel(std::exchange(m.session_timer, 0));
  cancel_revocation(m);
}

void GroupCoordinator::remove_consumer_member(Group& g, const std::string& member_id,
                                              const char* why) {
  ConsumerGroup& cg = g.consumer;
  auto it = cg.members.find(member_id);
  if (it == cg.members.end()) return;
  ConsumerMember& m = it->second;
  cancel_consumer_timers(m);
  release_all(cg, m);
  if (m.instance_id) {
    auto s = cg.static_members.find(*m.instance_id);
    if (s != cg.static_members.end() && s->second == member_id) cg.static_members.erase(s);
  }
  cg.members.erase(it);
  cg.target.erase(member_id);
  spdlog::info("group {}: member {} {}", g.id, member_id, why);
  refresh_consumer_target(g, true);
}

void GroupCoordinator::schedule_consumer_session(Group& g, ConsumerMember& m) {
  if (m.session_timer) timers_.cancel(m.session_timer);
  std::string gid = g.id, mid = m.id;
  auto holder = std::make_shared<TimerId>(0);
  m.session_timer = timers_.schedule(config_.consumer_session_timeout_ms, [this, gid, mid, holder] {
    Group* grp = find(gid);
    if (grp == nullptr) return;
    auto it = grp->consumer.members.find(mid);
    if (it == grp->consumer.members.end() || it->second.session_timer != *holder) return;
    it->second.session_timer = 0;
    remove_consumer_member(*grp, mid, "missed its session timeout");
    update_consumer_state(*grp);
  });
  *holder = m.session_timer;
}

void GroupCoordinator::update_consumer_state(Group& g) {
  GroupState s = consumer_state(g);
  if (s != g.state) set_state(g, s);
}

GroupState GroupCoordinator::consumer_state(const Group& g) const {
  const ConsumerGroup& cg = g.consumer;
  if (cg.members.empty()) return GroupState::kEmpty;
  if (cg.group_epoch > cg.assignment_epoch) return GroupState::kAssigning;
  for (const auto& [id, m] : cg.members) {
    if (m.left_static) continue;
    if (m.epoch != cg.assignment_epoch || m.state != ConsumerMember::State::kStable) {
      return GroupState::kReconciling;
    }
  }
  return GroupState::kStable;
}

Errc GroupCoordinator::check_consumer_commit(Group& g, const CommitArgs& args) {
  const ConsumerGroup& cg = g.consumer;
  if (args.generation < 0 && (cg.members.empty() || args.txn)) return Errc::kOk;
  auto it = cg.members.find(args.member_id);
  if (it == cg.members.end() || it->second.left_static) return Errc::kUnknownMemberId;
  if (args.generation != it->second.epoch) {
    // Kafka's answers: a transactional commit from another epoch is of an
    // illegal generation; a plain one is stale (the member retries after
    // its next heartbeat).
    return args.txn ? Errc::kIllegalGeneration : Errc::kStaleMemberEpoch;
  }
  return Errc::kOk;
}

DescribedConsumerGroup GroupCoordinator::describe_consumer(const std::string& group_id) const {
  DescribedConsumerGroup out;
  out.group_id = group_id;
  if (auto e = routing_error(group_id)) {
    out.error = *e;
    return out;
  }
  const Group* g = find(group_id);
  if (g == nullptr || g->state == GroupState::kDead) {
    out.error = Errc::kGroupIdNotFound;
    out.message = fmt::format("group {} not found", group_id);
    return out;
  }
  if (g->type != GroupType::kConsumer) {
    out.error = Errc::kGroupIdNotFound;
    out.message = fmt::format("group {} is not a consumer group", group_id);
    return out;
  }
  const ConsumerGroup& cg = g->consumer;
  out.state = consumer_state(*g);
  out.group_epoch = cg.group_epoch;
  out.assignment_epoch = cg.assignment_epoch;
  out.assignor = cg.assignor.empty() ? config_.consumer_assignors.front() : cg.assignor;
  for (const auto& [id, m] : cg.members) {
    DescribedConsumerMember d;
    d.member_id = id;
    d.instance_id = m.instance_id;
    d.rack_id = m.rack_id;
    d.member_epoch = m.epoch;
    d.client_id = m.client_id;
    d.client_host = m.client_host;
    d.subscribed_topic_names = m.subscribed_names;
    d.subscribed_topic_regex = m.subscribed_regex;
    d.assignment = m.assigned;
    if (auto t = cg.target.find(id); t != cg.target.end()) d.target = t->second;
    out.members.push_back(std::move(d));
  }
  return out;
}

}  // namespace strata::coordinator
