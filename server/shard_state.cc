#include "server/shard_state.h"

#include <spdlog/spdlog.h>

#include "server/broker.h"

namespace strata::server {

ShardState::ShardState(Broker& broker, io::Shard& shard)
    : broker_(broker),
      shard_(shard),
      fs_(&shard.ring()),
      journaled_fs_(broker.sync_journal() == nullptr
                        ? nullptr
                        : std::make_unique<io::SyncJournalFileSystem>(fs_, *broker.sync_journal())),
      replicas_(broker.logs(), journaled_fs_ ? static_cast<io::FileSystem&>(*journaled_fs_) : fs_,
                shard.io()),
      timers_(shard.io()) {
  const auto& cfg = broker.config();
  coordinator::GroupConfig gc;
  gc.initial_rebalance_delay_ms = cfg.group_initial_rebalance_delay_ms;
  gc.min_session_timeout_ms = cfg.group_min_session_timeout_ms;
  gc.max_session_timeout_ms = cfg.group_max_session_timeout_ms;
  gc.offsets_retention_ms = cfg.offsets_retention_ms;
  groups_ = std::make_unique<coordinator::GroupCoordinator>(
      broker.clock(), timers_, gc, [&broker](const std::string& topic, int32_t p) {
        const auto* t = broker.snapshot()->find(topic);
        return t != nullptr && p >= 0 && p < t->partitions;
      });
}

ShardState::~ShardState() {
  groups_.reset();
  offsets_stores_.clear();
  follower_views_.clear();
}

void ShardState::host_offsets_partition(PartitionId p, replication::Partition& partition) {
  auto store = std::make_unique<coordinator::LogOffsetsStore>(partition, broker_.logs().index());
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

void ShardState::reconcile(std::shared_ptr<const coordinator::ClusterSnapshot> snap,
                           std::function<void()> done) {
  // What this shard should host: every partition whose uid maps to this
  // shard and whose replicas include this broker, as leader if the state
  // says this broker leads, as follower otherwise, at the state's epoch.
  std::vector<replication::ReplicaSpec> wanted;
  int32_t self = broker_.node_id();
  for (const auto& [name, topic] : snap->topics) {
    for (int32_t p = 0; p < topic->partitions; ++p) {
      auto uid = topic->uid(PartitionId(p));
      if (broker_.shard_for(uid) != id()) continue;
      const auto& state = *topic->state(p);
      if (std::find(state.replicas.begin(), state.replicas.end(), self) == state.replicas.end())
        continue;
      auto role = state.leader == self ? replication::Role::kLeader : replication::Role::kFollower;
      replication::Assignment assignment{self, state.replicas, state.isr, state.partition_epoch,
                                         broker_.config().replica_lag_time_max_ms};
      wanted.push_back({uid, topic->name, PartitionId(p), broker_.effective_config(*topic), role,
                        LeaderEpoch(state.leader_epoch), std::move(assignment)});
    }
  }
  // The groups of a __consumer_offsets partition live where it leads.
  replication::PartitionManager::Hooks hooks;
  // Where it follows, its view is kept current for the day it leads.
  auto unhost = [this](replication::Partition& p) {
    if (p.topic() != coordinator::kOffsetsTopic) return;
    if (offsets_stores_.count(p.id().value()) != 0) groups_->unhost(p.id().value());
    offsets_stores_.erase(p.id().value());
    follower_views_.erase(p.id().value());
  };
  auto host = [this, unhost](replication::Partition& p) {
    if (p.topic() != coordinator::kOffsetsTopic) return;
    int32_t id = p.id().value();
    bool leads = p.role() == replication::Role::kLeader;
    if (leads && offsets_stores_.count(id) == 0) {
      follower_views_.erase(id);
      host_offsets_partition(p.id(), p);
    }
    if (!leads && follower_views_.count(id) == 0) {
      unhost(p);
      auto view = std::make_unique<coordinator::LogOffsetsStore>(p, broker_.logs().index());
      view->follow();
      follower_views_[id] = std::move(view);
    }
  };
  hooks.opened = host;
  hooks.changed = host;
  hooks.closing = unhost;
  replicas_.reconcile(wanted, hooks, std::move(done));
}

void ShardState::start_retention() {
  replicas_.set_isr_listener([this](std::vector<replication::IsrProposal> proposals) {
    broker_.propose_isr(std::move(proposals));
  });
  replicas_.start_retention(
      std::chrono::milliseconds(broker_.config().retention_check_interval_ms));
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

void ShardState::wake_all() {
  replicas_.wake_all();
}

void ShardState::close_all(std::function<void(Status)> done) {
  if (offsets_retention_timer_) offsets_retention_timer_->cancel();
  for (auto& [p, store] : offsets_stores_)
    groups_->unhost(p);
  offsets_stores_.clear();
  follower_views_.clear();
  replicas_.close_all(std::move(done));
}

}  // namespace strata::server
