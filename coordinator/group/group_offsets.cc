// GroupCoordinator, committed offsets: OffsetCommit (with its generation
// and member checks), OffsetFetch, OffsetDelete and the expiry of an empty
// group's offsets after offsets.retention.minutes.
#include <spdlog/spdlog.h>

#include "coordinator/group/consumer_subscription.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/group/group_state.h"

namespace strata::coordinator {

void GroupCoordinator::commit(CommitArgs args, std::function<void(std::vector<Errc>)> done) {
  auto all = [&](Errc e) { done(std::vector<Errc>(args.partitions.size(), e)); };
  if (auto e = routing_error(args.group_id)) return all(*e);
  Group* g = find(args.group_id);
  if (g == nullptr) {
    // Commits without a group (assign() users, admin tools) create an empty one.
    if (args.generation >= 0) return all(Errc::kIllegalGeneration);
    g = &create(args.group_id);
  } else if (g->state == GroupState::kDead) {
    return all(Errc::kCoordinatorNotAvailable);
  } else if (g->type == GroupType::kConsumer) {
    if (Errc e = check_consumer_commit(*g, args); e != Errc::kOk) return all(e);
  } else {
    if (args.instance_id) {
      auto s = g->static_members.find(*args.instance_id);
      if (s != g->static_members.end() && s->second != args.member_id) {
        return all(Errc::kFencedInstanceId);
      }
    }
    bool simple = args.generation < 0 && (g->state == GroupState::kEmpty || args.txn);
    if (!simple) {
      if (g->state == GroupState::kCompletingRebalance) return all(Errc::kRebalanceInProgress);
      auto it = g->members.find(args.member_id);
      if (it == g->members.end()) return all(Errc::kUnknownMemberId);
      if (args.generation != g->generation) return all(Errc::kIllegalGeneration);
      schedule_heartbeat(*g, it->second);
    }
  }
  std::vector<Errc> results(args.partitions.size(), Errc::kOk);
  std::vector<GroupRecord> records;
  std::vector<size_t> written;
  int64_t now = clock_.now_ms();
  for (size_t i = 0; i < args.partitions.size(); ++i) {
    const auto& p = args.partitions[i];
    if (p.metadata && static_cast<int64_t>(p.metadata->size()) > config_.max_metadata_bytes) {
      results[i] = Errc::kOffsetMetadataTooLarge;
      continue;
    }
    if (!exists_(p.topic, p.partition)) {
      results[i] = Errc::kNotFound;
      continue;
    }
    GroupRecord r;
    r.kind = GroupRecord::Kind::kOffset;
    r.group = args.group_id;
    r.topic = p.topic;
    r.partition = p.partition;
    r.offset = CommittedOffset{p.offset, p.leader_epoch, p.metadata.value_or(""), now};
    records.push_back(std::move(r));
    written.push_back(i);
  }
  if (records.empty()) return done(results);
  auto stored = [results, written, done = std::move(done)](Status st) mutable {
    if (!st) {
      for (size_t i : written)
        results[i] = Errc::kCoordinatorNotAvailable;
    }
    done(results);
  };
  auto* store = store_for(args.group_id);
  if (args.txn) {
    return store->append_transactional(args.txn->producer_id, args.txn->producer_epoch,
                                       std::move(records), std::move(stored));
  }
  store->append(std::move(records), std::move(stored));
}

Result<std::vector<FetchedOffset>> GroupCoordinator::fetch_offsets(
    const std::string& group_id, const std::optional<std::vector<TopicPartitionRef>>& partitions,
    bool require_stable) {
  OffsetsStore* store = store_for(group_id);
  STRATA_CHECK(store != nullptr, "fetch_offsets for group {} on a shard not hosting it", group_id);
  std::vector<FetchedOffset> out;
  if (!partitions) {
    STRATA_ASSIGN_OR_RETURN(auto all, store->committed_all(group_id));
    for (auto& c : all)
      out.push_back(FetchedOffset{c.topic, c.partition, Errc::kOk, c.offset});
    return out;
  }
  for (const auto& tp : *partitions) {
    STRATA_ASSIGN_OR_RETURN(auto c, store->committed(group_id, tp.topic, tp.partition));
    FetchedOffset f{tp.topic, tp.partition, Errc::kOk, {}};
    if (c) f.offset = *c;
    if (require_stable && store->pending_transactional(group_id, tp.topic, tp.partition)) {
      f.error = Errc::kUnstableOffsetCommit;
      f.offset = {};
    }
    out.push_back(std::move(f));
  }
  return out;
}

void GroupCoordinator::delete_offsets(const std::string& group_id,
                                      const std::vector<TopicPartitionRef>& partitions,
                                      std::function<void(Errc, std::vector<Errc>)> done) {
  if (auto e = routing_error(group_id)) return done(*e, {});
  Group* g = find(group_id);
  if (g == nullptr || g->state == GroupState::kDead) return done(Errc::kGroupIdNotFound, {});
  std::set<std::string> subscribed;
  for (const auto& t : consumer_subscribed_topics(g->consumer))
    subscribed.insert(t.name);
  if (g->protocol_type == "consumer" && g->protocol) {
    for (const auto& [id, m] : g->members) {
      if (const Bytes* meta = m.metadata_for(*g->protocol)) {
        if (auto t = subscribed_topics(*meta)) subscribed.insert(t->begin(), t->end());
      }
    }
  }
  std::vector<Errc> results(partitions.size(), Errc::kOk);
  std::vector<GroupRecord> tombstones;
  for (size_t i = 0; i < partitions.size(); ++i) {
    if (subscribed.count(partitions[i].topic)) {
      results[i] = Errc::kGroupSubscribedToTopic;
      continue;
    }
    GroupRecord r;
    r.kind = GroupRecord::Kind::kOffset;
    r.group = group_id;
    r.topic = partitions[i].topic;
    r.partition = partitions[i].partition;
    tombstones.push_back(std::move(r));
  }
  if (tombstones.empty()) return done(Errc::kOk, results);
  store_for(group_id)->append(std::move(tombstones),
                              [results, done = std::move(done)](Status st) mutable {
                                if (!st) return done(Errc::kCoordinatorNotAvailable, {});
                                done(Errc::kOk, results);
                              });
}

void GroupCoordinator::expire_offsets() {
  int64_t now = clock_.now_ms();
  std::vector<std::string> emptied;
  for (auto& [id, g] : groups_) {
    if (g->state != GroupState::kEmpty || !g->empty()) continue;
    OffsetsStore* store = store_for(id);
    if (store == nullptr) continue;
    auto committed = store->committed_all(id);
    if (!committed) continue;
    // A former consumer group loses all its offsets a retention period after
    // it became empty; a group that only ever had commits loses each offset a
    // retention period after it was committed.
    bool group_expired =
        !g->protocol_type.empty() && g->state_timestamp + config_.offsets_retention_ms < now;
    std::vector<GroupRecord> tombstones;
    for (const auto& c : *committed) {
      bool expired = g->protocol_type.empty()
                         ? c.offset.commit_timestamp + config_.offsets_retention_ms < now
                         : group_expired;
      if (!expired) continue;
      GroupRecord r;
      r.kind = GroupRecord::Kind::kOffset;
      r.group = id;
      r.topic = c.topic;
      r.partition = c.partition;
      tombstones.push_back(std::move(r));
    }
    if (tombstones.empty()) continue;
    bool all_gone = tombstones.size() == committed->size();
    if (all_gone) {
      GroupRecord meta;
      meta.kind = GroupRecord::Kind::kGroup;
      meta.group = id;
      tombstones.push_back(std::move(meta));
      emptied.push_back(id);
    }
    spdlog::info("group {}: {} committed offset(s) expired", id,
                 tombstones.size() - (all_gone ? 1 : 0));
    store->append(std::move(tombstones), [](Status st) {
      if (!st) spdlog::error("expiring offsets failed: {}", st.error().to_string());
    });
  }
  for (const auto& id : emptied)
    groups_.erase(id);
}

}  // namespace strata::coordinator
