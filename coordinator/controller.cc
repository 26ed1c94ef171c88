#include "coordinator/controller.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

namespace strata::coordinator {
namespace {

std::set<int32_t> live_ids(const ClusterSnapshot& snap) {
  std::set<int32_t> live;
  for (const auto& b : snap.brokers)
    live.insert(b.node_id);
  return live;
}

void log_change(const StateChange& c, const PartitionState& before) {
  if (c.next.leader != before.leader) {
    spdlog::info("controller: {}-{} leader {} -> {} (leader epoch {})", c.topic, c.partition,
                 before.leader, c.next.leader, c.next.leader_epoch);
  }
}

// An election that gives the partition a leader from outside its ISR.
void warn_if_unclean(const StateChange& c, const PartitionState& before) {
  if (c.next.leader < 0 || c.next.leader == before.leader) return;
  if (std::find(before.isr.begin(), before.isr.end(), c.next.leader) != before.isr.end()) return;
  spdlog::warn(
      "controller: unclean leader election: {}-{} is led by out-of-sync replica {} (ISR was "
      "[{}]); acknowledged writes it lacks are lost",
      c.topic, c.partition, c.next.leader, fmt::join(before.isr, ","));
}

}  // namespace

Status Controller::require_lead() const {
  if (election_.leads()) return ok_status();
  return Error(Errc::kNotController, "this broker is not the controller");
}

Result<size_t> Controller::converge() {
  if (!election_.leads()) return size_t{0};
  auto snap = catalog_.snapshot();
  auto live = live_ids(*snap);
  std::map<std::pair<std::string, int32_t>, StateChange> changes;
  for (auto& c : catalog_.unstored_states())
    changes[{c.topic, c.partition}] = std::move(c);
  for (const auto& [name, t] : snap->topics) {
    bool unclean = unclean_ && unclean_(*t);
    for (int32_t p = 0; p < t->partitions; ++p) {
      const PartitionState& now = *t->state(p);
      if (auto next = on_live_brokers(now, live, unclean)) {
        StateChange c{name, p, std::move(*next)};
        warn_if_unclean(c, now);
        log_change(c, now);
        changes[{name, p}] = std::move(c);
      }
    }
  }
  if (changes.empty()) return size_t{0};
  std::vector<StateChange> list;
  list.reserve(changes.size());
  for (auto& [where, c] : changes)
    list.push_back(std::move(c));
  STRATA_TRY(catalog_.update_states(list));
  return list.size();
}

Result<std::vector<ElectionOutcome>> Controller::elect(const std::vector<PartitionRef>& partitions,
                                                       Election type) {
  STRATA_TRY(require_lead());
  auto snap = catalog_.snapshot();
  auto live = live_ids(*snap);
  std::vector<PartitionRef> wanted = partitions;
  bool all = wanted.empty();
  if (all) {
    for (const auto& [name, t] : snap->topics)
      for (int32_t p = 0; p < t->partitions; ++p)
        wanted.push_back({name, p});
  }
  std::vector<ElectionOutcome> out;
  std::vector<StateChange> changes;
  for (const auto& ref : wanted) {
    const TopicInfo* t = snap->find(ref.topic);
    const PartitionState* now = t != nullptr ? t->state(ref.partition) : nullptr;
    if (now == nullptr) {
      out.push_back({ref, Error(Errc::kNotFound,
                                fmt::format("{}-{} does not exist", ref.topic, ref.partition))});
      continue;
    }
    bool preferred = type == Election::kPreferred;
    // An offline partition with a live in-sync replica is elected cleanly
    // by converge(); an unclean election is for when none is live.
    auto next = preferred ? preferred_election(*now, live) : unclean_election(*now, live);
    if (!next) {
      if (all) continue;
      bool leads = preferred ? !now->replicas.empty() && now->leader == now->replicas.front()
                             : now->leader >= 0 && live.count(now->leader) != 0;
      out.push_back(
          {ref,
           leads       ? Error(Errc::kInvalidArgument, preferred
                                                           ? "the preferred replica is the leader already"
                                                           : "a live replica leads already")
           : preferred ? Error(Errc::kUnavailable, "the preferred replica is not live and in sync")
                       : Error(Errc::kUnavailable,
                               "no replica is live, or a live in-sync one is being elected")});
      continue;
    }
    StateChange c{ref.topic, ref.partition, std::move(*next)};
    warn_if_unclean(c, *now);
    log_change(c, *now);
    changes.push_back(std::move(c));
    out.push_back({ref, ok_status()});
  }
  if (auto st = catalog_.update_states(changes); !st) {
    for (auto& o : out)
      if (o.result.ok()) o.result = st;
  }
  return out;
}

Result<std::vector<Status>> Controller::alter_isr(const std::vector<IsrChange>& changes) {
  STRATA_TRY(require_lead());
  auto snap = catalog_.snapshot();
  auto live = live_ids(*snap);
  std::vector<Status> out;
  std::vector<StateChange> writes;
  std::vector<size_t> written;  // the index in `out` of each write
  for (const auto& c : changes) {
    const TopicInfo* t = snap->find(c.partition.topic);
    const PartitionState* now = t != nullptr ? t->state(c.partition.partition) : nullptr;
    if (now == nullptr) {
      out.push_back(Error(Errc::kNotFound, fmt::format("{}-{} does not exist", c.partition.topic,
                                                       c.partition.partition)));
      continue;
    }
    auto next = isr_change(*now, c.request, live);
    if (!next) {
      out.push_back(next.error());
      continue;
    }
    out.push_back(ok_status());
    if (!next->has_value()) continue;
    spdlog::info("controller: {}-{} ISR [{}] -> [{}] (asked by leader {})", c.partition.topic,
                 c.partition.partition, fmt::join(now->isr, ","), fmt::join((*next)->isr, ","),
                 c.request.leader);
    written.push_back(out.size() - 1);
    writes.push_back({c.partition.topic, c.partition.partition, std::move(**next)});
  }
  if (auto st = catalog_.update_states(writes); !st) {
    for (size_t i : written)
      out[i] = st;
  }
  return out;
}

Result<size_t> Controller::controlled_shutdown(int32_t leaving) {
  STRATA_TRY(require_lead());
  auto snap = catalog_.snapshot();
  auto live = live_ids(*snap);
  live.erase(leaving);
  std::vector<StateChange> changes;
  size_t remaining = 0;
  for (const auto& [name, t] : snap->topics) {
    for (int32_t p = 0; p < t->partitions; ++p) {
      const PartitionState& now = *t->state(p);
      auto next = on_shutdown(now, leaving, live);
      if (next) {
        StateChange c{name, p, std::move(*next)};
        log_change(c, now);
        changes.push_back(std::move(c));
      }
      if ((next ? changes.back().next.leader : now.leader) == leaving) ++remaining;
    }
  }
  spdlog::info(
      "controller: controlled shutdown of broker {}: {} partition state(s) changed, {} "
      "still led by it",
      leaving, changes.size(), remaining);
  STRATA_TRY(catalog_.update_states(changes));
  return remaining;
}

}  // namespace strata::coordinator
