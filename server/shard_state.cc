#include "server/shard_state.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "server/broker.h"
#include "server/txn_markers.h"

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
      timers_(shard.io()),
      offsets_views_(
          std::string(coordinator::kOffsetsTopic),
          {.make =
               [this](replication::Partition& p) {
                 return std::make_unique<coordinator::LogOffsetsStore>(p, broker_.logs().index());
               },
           .serve = [this](int32_t p, coordinator::LogOffsetsStore& s) { serve_groups(p, s); },
           .stop = [this](int32_t p) { groups_->unhost(p); }}),
      txn_views_(std::string(coordinator::kTransactionStateTopic),
                 {.make =
                      [this](replication::Partition& p) {
                        return std::make_unique<coordinator::TxnStateStore>(p,
                                                                            broker_.logs().index());
                      },
                  .serve = [this](int32_t p, coordinator::TxnStateStore& s) { serve_txns(p, s); },
                  .stop = [this](int32_t p) { txns_->unhost(p); }}),
      schema_views_(std::string(registry::kSchemasTopic),
                    {.make =
                         [this](replication::Partition& p) {
                           return std::make_unique<registry::SchemasStore>(p,
                                                                           broker_.logs().index());
                         },
                     .serve = [this](int32_t, registry::SchemasStore& s) { serve_registry(s); },
                     .stop = [this](int32_t) { registry_.reset(); }}) {
  const auto& cfg = broker.config();
  coordinator::GroupConfig gc;
  gc.initial_rebalance_delay_ms = cfg.group_initial_rebalance_delay_ms;
  gc.min_session_timeout_ms = cfg.group_min_session_timeout_ms;
  gc.max_session_timeout_ms = cfg.group_max_session_timeout_ms;
  gc.offsets_retention_ms = cfg.offsets_retention_ms;
  gc.consumer_session_timeout_ms = cfg.group_consumer_session_timeout_ms;
  gc.consumer_heartbeat_interval_ms = cfg.group_consumer_heartbeat_interval_ms;
  gc.consumer_assignors = cfg.group_consumer_assignors;
  gc.consumer_max_size = cfg.group_consumer_max_size;
  groups_ = std::make_unique<coordinator::GroupCoordinator>(
      broker.clock(), timers_, gc,
      [&broker](const std::string& topic, int32_t p) {
        auto snap = broker.snapshot();  // keeps what find() points into
        const auto* t = snap->find(topic);
        return t != nullptr && p >= 0 && p < t->partitions;
      },
      [&broker] {
        std::vector<coordinator::TopicMeta> out;
        auto snap = broker.snapshot();
        for (const auto& [name, t] : snap->topics)
          if (!t->internal) out.push_back({name, t->id, t->partitions});
        return out;
      });
  coordinator::TxnConfig tc;
  tc.max_timeout_ms = cfg.transaction_max_timeout_ms;
  tc.abort_check_interval_ms = cfg.transaction_abort_check_interval_ms;
  txns_ = std::make_unique<coordinator::TxnCoordinator>(
      broker.clock(), timers_, tc,
      [this](std::function<void(Result<int64_t>)> done) {
        broker_.allocate_producer_id(id(), std::move(done));
      },
      [this](coordinator::MarkerWrite w, auto done) {
        write_txn_markers(broker_.services(), id(), std::move(w), std::move(done));
      });
}

ShardState::~ShardState() {
  registry_.reset();
  groups_.reset();
  txns_.reset();
}

BrokerLink& ShardState::link_to(int32_t node_id, const std::string& host, int32_t port) {
  auto& link = links_[node_id];
  if (link && !link->same_address(host, port)) {
    // Out of the map before closing: a failed call's callback may call
    // this broker again, and gets a link at the new address.
    auto old = std::move(link);
    old->close();
  }
  if (!link) {
    link = BrokerLink::create(shard_.io(), fmt::format("broker {}", node_id), host, port,
                              broker_.config().source_host());
  }
  return *link;
}

void ShardState::serve_groups(int32_t p, coordinator::LogOffsetsStore& store) {
  auto loaded = store.groups();
  if (!loaded) {
    spdlog::error("shard {}: reading the groups of {}-{} failed: {}", id(),
                  coordinator::kOffsetsTopic, p, loaded.error().to_string());
    return;
  }
  if (!loaded->empty()) {
    spdlog::info("shard {}: {}-{}: {} group(s)", id(), coordinator::kOffsetsTopic, p,
                 loaded->size());
  }
  groups_->host(p, &store, std::move(*loaded));
}

void ShardState::serve_txns(int32_t p, coordinator::TxnStateStore& store) {
  auto loaded = store.all();
  if (!loaded) {
    spdlog::error("shard {}: reading the transactional ids of {}-{} failed: {}", id(),
                  coordinator::kTransactionStateTopic, p, loaded.error().to_string());
    return;
  }
  // The coordinator epoch is the partition's leader epoch: a later
  // coordinator of these ids has a higher one, which fences this one's markers.
  txns_->host(p, &store, store.partition().leader_epoch().value(), std::move(*loaded));
}

void ShardState::serve_registry(registry::SchemasStore& store) {
  // A failed write leaves the registry unsure of the log: it is replaced
  // by one loaded again (a new view of the partition, replayed from its
  // applied marker to the log end), after the failing call has returned.
  auto reload = [this, uid = store.partition().uid()] {
    shard_.post([this, uid] {
      registry_.reset();
      if (auto* p = replicas_.find(uid)) {
        spdlog::warn("shard {}: reloading the schema registry after a failed write", id());
        schema_views_.on_closing(*p);
        schema_views_.on_replica(*p);
      }
    });
  };
  auto r = std::make_unique<registry::Registry>(
      [&store](std::vector<registry::WriteRecord> records, std::function<void(Status)> done) {
        store.write(std::move(records), std::move(done));
      },
      reload);
  if (auto st = store.fill(r->state()); !st) {
    spdlog::error("shard {}: reading {} failed: {}", id(), registry::kSchemasTopic,
                  st.error().to_string());
    return;
  }
  spdlog::info("shard {}: schema registry serving from {}-0 ({} subject(s))", id(),
               registry::kSchemasTopic, r->state().subjects(true).size());
  registry_ = std::move(r);
}

void ShardState::append_marker(replication::Partition& partition, const engine::TxnMarker& marker,
                               std::function<void(Status)> done) {
  if (partition.topic() == coordinator::kOffsetsTopic) {
    // A transaction's offsets: the group view applies them at the commit.
    auto leading = offsets_views_.leading(partition.id().value());
    if (leading.store != nullptr) {
      if (!leading.loaded) {
        return done(Error(Errc::kUnavailable, "the offsets partition is still loading"));
      }
      return leading.store->append_marker(marker, std::move(done));
    }
  }
  auto batch = engine::build_marker_batch(marker, broker_.clock().now_ms());
  partition.append({SharedBytes::adopt(std::move(batch))}, {.acks_all = true, .from_client = false},
                   [done = std::move(done)](Result<replication::AppendResult> r) {
                     done(r ? ok_status() : Status(r.error()));
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
  // The coordinators' partitions are served where they lead and followed
  // elsewhere (HostedViews).
  replication::PartitionManager::Hooks hooks;
  auto host = [this](replication::Partition& p) {
    offsets_views_.on_replica(p);
    txn_views_.on_replica(p);
    schema_views_.on_replica(p);
  };
  hooks.opened = host;
  hooks.changed = host;
  hooks.closing = [this](replication::Partition& p) {
    offsets_views_.on_closing(p);
    txn_views_.on_closing(p);
    schema_views_.on_closing(p);
  };
  replicas_.reconcile(wanted, hooks, std::move(done));
}

void ShardState::start_retention() {
  replicas_.set_isr_listener([this](std::vector<replication::IsrProposal> proposals) {
    broker_.propose_isr(std::move(proposals));
  });
  replicas_.start_retention(
      std::chrono::milliseconds(broker_.config().retention_check_interval_ms));
  if (broker_.cleaners()) {
    replicas_.start_cleaner({broker_.cleaners(), broker_.swappers(),
                             std::chrono::milliseconds(broker_.config().log_cleaner_backoff_ms),
                             broker_.config().log_cleaner_io_max_bytes_per_second});
  }
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
  offsets_views_.clear();
  txn_views_.clear();
  schema_views_.clear();
  replicas_.close_all(std::move(done));
}

}  // namespace strata::server
