#include "server/shard_state.h"

#include <spdlog/spdlog.h>

#include "server/broker.h"

namespace strata::server {

ShardState::ShardState(Broker& broker, io::Shard& shard)
    : broker_(broker),
      shard_(shard),
      fs_(&shard.ring()),
      flush_timer_(shard.io()),
      timers_(shard.io()) {
  const auto& cfg = broker.config();
  coordinator::GroupConfig gc;
  gc.initial_rebalance_delay_ms = cfg.group_initial_rebalance_delay_ms;
  gc.min_session_timeout_ms = cfg.group_min_session_timeout_ms;
  gc.max_session_timeout_ms = cfg.group_max_session_timeout_ms;
  gc.offsets_retention_ms = cfg.offsets_retention_ms;
  groups_ = std::make_unique<coordinator::GroupCoordinator>(
      SystemClock::instance(), timers_, gc, [&broker](const std::string& topic, int32_t p) {
        const auto* t = broker.snapshot()->find(topic);
        return t != nullptr && p >= 0 && p < t->partitions;
      });
}

ShardState::~ShardState() {
  groups_.reset();
  offsets_stores_.clear();
}

void ShardState::host_offsets_partition(PartitionId p, Partition& partition) {
  auto store =
      std::make_unique<coordinator::LogOffsetsStore>(partition.log(), broker_.logs().index());
  auto* raw = store.get();
  offsets_stores_[p.value()] = std::move(store);
  raw->load([this, p, raw](Status st) {
    auto it = offsets_stores_.find(p.value());
    if (it == offsets_stores_.end() || it->second.get() != raw) return;  // closed meanwhile
    if (!st) {
      spdlog::error("shard {}: loading {}-{} failed: {}", id(), coordinator::kOffsetsTopic, p,
                    st.error().to_string());
      return;
    }
    auto loaded = raw->groups();
    if (!loaded) {
      spdlog::error("shard {}: reading the groups of {}-{} failed: {}", id(),
                    coordinator::kOffsetsTopic, p, loaded.error().to_string());
      return;
    }
    if (raw->records_replayed() > 0 || !loaded->empty()) {
      spdlog::info("shard {}: {}-{} loaded: {} group(s), {} record(s) replayed", id(),
                   coordinator::kOffsetsTopic, p, loaded->size(), raw->records_replayed());
    }
    groups_->host(p.value(), raw, std::move(*loaded));
  });
}

Partition* ShardState::find(PartitionUid uid) {
  auto it = partitions_.find(uid);
  return it == partitions_.end() ? nullptr : it->second.get();
}

void ShardState::reconcile(std::shared_ptr<const coordinator::ClusterSnapshot> snap,
                           std::function<void()> done) {
  // What this shard should host.
  std::unordered_map<PartitionUid, std::pair<const coordinator::TopicInfo*, PartitionId>> wanted;
  for (const auto& [name, topic] : snap->topics) {
    for (int32_t p = 0; p < topic->partitions; ++p) {
      auto uid = topic->uid(PartitionId(p));
      if (broker_.shard_for(uid) == id())
        wanted.emplace(uid, std::make_pair(topic.get(), PartitionId(p)));
    }
  }
  // Close the partitions of deleted topics.
  std::vector<std::unique_ptr<Partition>> doomed;
  for (auto it = partitions_.begin(); it != partitions_.end();) {
    if (wanted.count(it->first) == 0) {
      doomed.push_back(std::move(it->second));
      it = partitions_.erase(it);
    } else {
      ++it;
    }
  }
  // Open new ones; update the config of the others.
  for (const auto& [uid, tp] : wanted) {
    auto [topic, pid] = tp;
    auto config = broker_.effective_config(*topic);
    if (auto* existing = find(uid)) {
      existing->set_config(config);
      // A shorter flush.ms may now be due earlier than the timer.
      if (auto at = existing->flush_deadline()) schedule_flush(*at);
      continue;
    }
    auto dir = broker_.logs().partition_dir(topic->name, pid);
    auto log = broker_.logs().open_log(uid, dir, config, fs_, shard_.io());
    if (!log) {
      spdlog::error("shard {}: cannot open partition {}-{}: {}", id(), topic->name, pid,
                    log.error().to_string());
      continue;
    }
    auto& placed =
        *partitions_
             .emplace(uid, std::make_unique<Partition>(topic->name, pid, std::move(log).value()))
             .first->second;
    placed.set_flush_listener([this](FlushPolicy::Clock::time_point at) { schedule_flush(at); });
    if (topic->name == coordinator::kOffsetsTopic) host_offsets_partition(pid, placed);
  }
  if (doomed.empty()) return done();
  auto remaining = std::make_shared<size_t>(doomed.size());
  for (auto& p : doomed) {
    p->wake_all();
    if (p->topic() == coordinator::kOffsetsTopic) {
      groups_->unhost(p->id().value());
      offsets_stores_.erase(p->id().value());
    }
    auto* raw = p.release();
    raw->close([this, raw, remaining, done](Status st) {
      std::unique_ptr<Partition> owned(raw);
      auto uid = owned->log().uid();
      auto dir = broker_.logs().partition_dir(owned->topic(), owned->id());
      if (!st)
        spdlog::warn("shard {}: closing {} failed: {}", id(), dir.string(), st.error().to_string());
      owned.reset();
      if (auto rm = broker_.logs().remove_log(uid, dir); !rm) {
        spdlog::error("shard {}: cannot delete {}: {}", id(), dir.string(), rm.error().to_string());
      }
      if (--*remaining == 0) done();
    });
  }
}

void ShardState::start_retention() {
  retention_timer_ = std::make_unique<boost::asio::steady_timer>(shard_.io());
  check_retention();
  offsets_retention_timer_ = std::make_unique<boost::asio::steady_timer>(shard_.io());
  check_offsets_retention();
}

void ShardState::check_offsets_retention() {
  groups_->expire_offsets();
  offsets_retention_timer_->expires_after(
      std::chrono::milliseconds(broker_.config().offsets_retention_check_interval_ms));
  offsets_retention_timer_->async_wait([this](const boost::system::error_code& ec) {
    if (!ec) check_offsets_retention();
  });
}

void ShardState::check_retention() {
  for (auto& [uid, p] : partitions_) {
    auto r = p->log().enforce_retention();
    if (!r) {
      spdlog::error("partition {}-{}: retention failed: {}", p->topic(), p->id(),
                    r.error().to_string());
    }
  }
  retention_timer_->expires_after(
      std::chrono::milliseconds(broker_.config().retention_check_interval_ms));
  retention_timer_->async_wait([this](const boost::system::error_code& ec) {
    if (!ec) check_retention();
  });
}

void ShardState::schedule_flush(FlushPolicy::Clock::time_point at) {
  if (flush_timer_at_ && *flush_timer_at_ <= at) return;
  flush_timer_at_ = at;
  flush_timer_.expires_at(at);
  flush_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled, or re-armed for an earlier deadline
    flush_timer_at_.reset();
    run_due_flushes();
  });
}

void ShardState::run_due_flushes() {
  auto now = FlushPolicy::Clock::now();
  std::optional<FlushPolicy::Clock::time_point> next;
  for (auto& [uid, p] : partitions_) {
    p->flush_if_due(now);
    if (auto at = p->flush_deadline(); at && (!next || *at < *next)) next = at;
  }
  if (next) schedule_flush(*next);
}

void ShardState::wake_all() {
  for (auto& [uid, p] : partitions_)
    p->wake_all();
}

void ShardState::close_all(std::function<void(Status)> done) {
  if (retention_timer_) retention_timer_->cancel();
  if (offsets_retention_timer_) offsets_retention_timer_->cancel();
  flush_timer_.cancel();
  flush_timer_at_.reset();
  for (auto& [p, store] : offsets_stores_)
    groups_->unhost(p);
  offsets_stores_.clear();
  if (partitions_.empty()) return done(ok_status());
  struct State {
    size_t remaining;
    Status status;
  };
  auto state = std::make_shared<State>(State{partitions_.size(), ok_status()});
  for (auto& [uid, p] : partitions_) {
    p->close([state, done](Status st) {
      if (!st && state->status.ok()) state->status = st;
      if (--state->remaining == 0) done(state->status);
    });
  }
}

}  // namespace strata::server
