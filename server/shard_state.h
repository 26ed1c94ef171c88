// ShardState: what one shard owns — its replicas (a PartitionManager), its
// file layer, the group coordinator of the __consumer_offsets partitions it
// hosts — and the work that keeps them in line with the cluster metadata
// (which replicas this shard hosts, in which role).
//
// Thread-safety: the shard's own thread only, except where noted.
#pragma once

#include <functional>
#include <memory>
#include <unordered_map>

#include <boost/asio/steady_timer.hpp>

#include "coordinator/cluster_metadata.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/group/log_offsets_store.h"
#include "coordinator/txn/txn_coordinator.h"
#include "coordinator/txn/txn_records.h"
#include "coordinator/txn/txn_store.h"
#include "engine/control_record.h"
#include "io/asio_timers.h"
#include "io/disk_file_system.h"
#include "io/shard.h"
#include "io/sync_journal.h"
#include "registry/registry.h"
#include "registry/schemas_store.h"
#include "replication/partition_manager.h"
#include "server/broker_link.h"
#include "server/hosted_views.h"

namespace strata::server {

class Broker;

class ShardState {
 public:
  ShardState(Broker& broker, io::Shard& shard);
  ~ShardState();

  io::Shard& shard() { return shard_; }
  unsigned id() const { return shard_.id(); }
  replication::Partition* find(PartitionUid uid) { return replicas_.find(uid); }
  replication::PartitionManager& replicas() { return replicas_; }

  // Opens the partitions this shard owns that `snap` has and it does not,
  // closes (and deletes the files of) those `snap` no longer has, and applies
  // config changes. `done` runs on this shard when all of it finished.
  void reconcile(std::shared_ptr<const coordinator::ClusterSnapshot> snap,
                 std::function<void()> done);

  // The coordinator of the groups whose __consumer_offsets partitions this
  // shard hosts.
  coordinator::GroupCoordinator& groups() { return *groups_; }
  // The coordinator of the transactional ids whose __transaction_state
  // partitions this shard hosts.
  coordinator::TxnCoordinator& txns() { return *txns_; }

  // Appends a transaction marker to `partition` (this shard's, led here;
  // acks=all): the end of its producer's transaction there.
  void append_marker(replication::Partition& partition, const engine::TxnMarker& marker,
                     std::function<void(Status)> done);

  // The schema registry, where this shard leads the loaded _schemas
  // partition; nullptr elsewhere (or while it loads).
  registry::Registry* schema_registry() { return registry_.get(); }

  // Starts the periodic retention checks (log segments, group offsets).
  void start_retention();

  // Wakes every long-polling fetch (shutdown).
  void wake_all();

  // Closes every partition (flushing it); `done` runs on this shard.
  void close_all(std::function<void(Status)> done);

  // Connections of this shard register themselves so shutdown can drain them.
  // Counts a client connection while it lives. A connection may outlive
  // this state: a handler still queued on a stopped shard holds it until
  // the shard's io_context goes, after the states; the count it holds
  // lives as long as it does.
  class ConnectionCount {
   public:
    explicit ConnectionCount(std::shared_ptr<size_t> n) : n_(std::move(n)) { ++*n_; }
    ~ConnectionCount() { --*n_; }
    ConnectionCount(const ConnectionCount&) = delete;
    ConnectionCount& operator=(const ConnectionCount&) = delete;

   private:
    std::shared_ptr<size_t> n_;
  };
  size_t connection_count() const { return *connections_; }
  ConnectionCount count_connection() { return ConnectionCount(connections_); }

  // This shard's connection to broker `node_id`'s listener at host:port
  // (BrokerLink), opened again when the broker's address changed.
  BrokerLink& link_to(int32_t node_id, const std::string& host, int32_t port);

 private:
  void check_offsets_retention();
  // Hands a loaded __consumer_offsets partition's groups to the coordinator.
  void serve_groups(int32_t partition, coordinator::LogOffsetsStore& store);
  // Hands a loaded __transaction_state partition's ids to the coordinator.
  void serve_txns(int32_t partition, coordinator::TxnStateStore& store);
  // Starts the schema registry on a loaded _schemas partition.
  void serve_registry(registry::SchemasStore& store);

  Broker& broker_;
  io::Shard& shard_;
  io::DiskFileSystem fs_;
  // fs_ with its syncs journaled (strata.test.sync.journal), or null.
  std::unique_ptr<io::SyncJournalFileSystem> journaled_fs_;
  replication::PartitionManager replicas_;
  std::unique_ptr<boost::asio::steady_timer> offsets_retention_timer_;
  io::AsioTimers timers_;
  std::unique_ptr<coordinator::GroupCoordinator> groups_;
  // The __consumer_offsets partitions this shard hosts.
  HostedViews<coordinator::LogOffsetsStore> offsets_views_;
  std::unique_ptr<coordinator::TxnCoordinator> txns_;
  // The __transaction_state partitions this shard hosts.
  HostedViews<coordinator::TxnStateStore> txn_views_;
  // The _schemas partition, if this shard hosts it, and the registry
  // serving from it where it leads.
  HostedViews<registry::SchemasStore> schema_views_;
  std::unique_ptr<registry::Registry> registry_;
  std::shared_ptr<size_t> connections_ = std::make_shared<size_t>(0);
  std::unordered_map<int32_t, std::shared_ptr<BrokerLink>> links_;
};

}  // namespace strata::server
