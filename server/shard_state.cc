#include "server/shard_state.h"

#include <spdlog/spdlog.h>

#include "server/broker.h"

namespace strata::server {

ShardState::ShardState(Broker& broker, io::Shard& shard)
    : broker_(broker), shard_(shard), fs_(&shard.ring()) {}

ShardState::~ShardState() = default;

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
      existing->log().set_config(config);
      continue;
    }
    auto dir = broker_.logs().partition_dir(topic->name, pid);
    auto log = broker_.logs().open_log(uid, dir, config, fs_, shard_.io());
    if (!log) {
      spdlog::error("shard {}: cannot open partition {}-{}: {}", id(), topic->name, pid,
                    log.error().to_string());
      continue;
    }
    partitions_.emplace(uid, std::make_unique<Partition>(topic->name, pid, std::move(log).value()));
  }
  if (doomed.empty()) return done();
  auto remaining = std::make_shared<size_t>(doomed.size());
  for (auto& p : doomed) {
    p->wake_all();
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

void ShardState::wake_all() {
  for (auto& [uid, p] : partitions_)
    p->wake_all();
}

void ShardState::close_all(std::function<void(Status)> done) {
  if (retention_timer_) retention_timer_->cancel();
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
