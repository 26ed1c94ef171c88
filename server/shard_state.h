// ShardState: what one shard owns — the partitions assigned to it and its
// file layer — and the work that keeps them in line with the cluster
// metadata (opening new partitions, closing deleted ones, retention).
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
#include "io/asio_timers.h"
#include "io/disk_file_system.h"
#include "io/shard.h"
#include "server/partition.h"

namespace strata::server {

class Broker;

class ShardState {
 public:
  ShardState(Broker& broker, io::Shard& shard);
  ~ShardState();

  io::Shard& shard() { return shard_; }
  unsigned id() const { return shard_.id(); }
  Partition* find(PartitionUid uid);

  // Opens the partitions this shard owns that `snap` has and it does not,
  // closes (and deletes the files of) those `snap` no longer has, and applies
  // config changes. `done` runs on this shard when all of it finished.
  void reconcile(std::shared_ptr<const coordinator::ClusterSnapshot> snap,
                 std::function<void()> done);

  // The coordinator of the groups whose __consumer_offsets partitions this
  // shard hosts.
  coordinator::GroupCoordinator& groups() { return *groups_; }

  // Starts the periodic retention checks (log segments, group offsets).
  void start_retention();

  // Wakes every long-polling fetch (shutdown).
  void wake_all();

  // Closes every partition (flushing it); `done` runs on this shard.
  void close_all(std::function<void(Status)> done);

  // Connections of this shard register themselves so shutdown can drain them.
  size_t connection_count() const { return connections_; }
  void connection_opened() { ++connections_; }
  void connection_closed() { --connections_; }

 private:
  void check_retention();
  void check_offsets_retention();
  // flush.ms of replicated topics: one timer for the earliest deadline.
  void schedule_flush(FlushPolicy::Clock::time_point at);
  void run_due_flushes();
  // Loads the group state of a __consumer_offsets partition just opened.
  void host_offsets_partition(PartitionId p, Partition& partition);

  Broker& broker_;
  io::Shard& shard_;
  io::DiskFileSystem fs_;
  std::unordered_map<PartitionUid, std::unique_ptr<Partition>> partitions_;
  std::unique_ptr<boost::asio::steady_timer> retention_timer_;
  std::unique_ptr<boost::asio::steady_timer> offsets_retention_timer_;
  boost::asio::steady_timer flush_timer_;
  std::optional<FlushPolicy::Clock::time_point> flush_timer_at_;
  io::AsioTimers timers_;
  std::unique_ptr<coordinator::GroupCoordinator> groups_;
  std::unordered_map<int32_t, std::unique_ptr<coordinator::LogOffsetsStore>> offsets_stores_;
  size_t connections_ = 0;
};

}  // namespace strata::server
