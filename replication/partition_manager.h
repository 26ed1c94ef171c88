// PartitionManager: the replicas one shard hosts, opened and closed by the
// role the partition state gives this broker — leader, follower, or none
// (not a replica here: closed, its files deleted) — and the shard-wide work
// on them: flush.ms timers, retention, the leaders' look at their followers
// (and the ISR changes they propose), waking and closing them all.
//
//   PartitionManager replicas(logs, fs, shard.io());
//   replicas.reconcile({{uid, "orders", PartitionId(0), config, Role::kLeader, LeaderEpoch(0)}},
//                      {.opened = ..., .closing = ...}, [] { /* closes finished */ });
//   replicas.find(uid)->append(...);
//
// The manager knows nothing of the cluster metadata: its owner says what
// should be hosted; it makes it so.
//
// Thread-safety: the shard's own thread only.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "engine/log_manager.h"
#include "io/background_executor.h"
#include "io/file_system.h"
#include "replication/partition.h"

namespace strata::replication {

// One replica the shard should host, and how.
struct ReplicaSpec {
  PartitionUid uid;
  std::string topic;
  PartitionId partition;
  engine::TopicConfig config;
  Role role = Role::kLeader;
  LeaderEpoch leader_epoch{0};
  Assignment assignment;  // the replicas and ISR (none: this broker alone)
};

class PartitionManager {
 public:
  struct Hooks {
    std::function<void(Partition&)> opened;   // after a replica is opened
    std::function<void(Partition&)> closing;  // before a replica is closed for good
    std::function<void(Partition&)> changed;  // after a hosted replica took its spec's role
  };

  PartitionManager(engine::LogManager& logs, io::FileSystem& fs, boost::asio::io_context& io);
  ~PartitionManager();
  PartitionManager(const PartitionManager&) = delete;
  PartitionManager& operator=(const PartitionManager&) = delete;

  // The shard's open replica of `uid`, or nullptr; a caller that finds none
  // answers with not_hosted().
  Partition* find(PartitionUid uid);
  size_t size() const { return partitions_.size(); }

  // Hosts exactly `wanted`: opens the replicas missing, gives those present
  // their spec's config, role and epoch, and closes (and deletes the files
  // of) every other. A replica that fails to open is logged and left out.
  // `done` runs once every close finished.
  void reconcile(const std::vector<ReplicaSpec>& wanted, const Hooks& hooks,
                 std::function<void()> done);

  // Runs retention on every replica now and then every `interval`, and
  // the leaders' follower checks every second.
  void start_retention(std::chrono::milliseconds interval);

  // The log cleaner of compacted topics: every `backoff` the dirtiest log
  // here that is due (LogCompaction::plan below its partition's last stable
  // offset) is cleaned on `executor`, one log at a time per shard, and the
  // result installed back on this shard.
  struct CleanerOptions {
    std::shared_ptr<io::BackgroundExecutor> executor;
    // Runs the swaps' disk waits (apart from the cleanings).
    std::shared_ptr<io::BackgroundExecutor> swap_executor;
    std::chrono::milliseconds backoff{15000};
    double io_max_bytes_per_second = 0;  // 0: no limit
  };
  void start_cleaner(CleanerOptions options);

  // Hears, every second, the ISR changes the leaders here want the
  // controller to make (Partition::isr_proposal), and an expansion as soon
  // as the fetch that justifies it (Partition::set_isr_proposer).
  void set_isr_listener(std::function<void(std::vector<IsrProposal>)> listener) {
    isr_listener_ = std::move(listener);
  }

  // Fires every long-polling read (shutdown).
  void wake_all();

  // Stops the timers and closes every replica (flushing it); `done` runs
  // with the first error, if any.
  void close_all(std::function<void(Status)> done);

 private:
  void check_retention();
  void check_replicas();
  void check_cleaning();
  void run_cleaning(Partition& p, engine::CleaningPlan plan);
  // flush.ms of replicated topics: one timer for the earliest deadline.
  void schedule_flush(FlushPolicy::Clock::time_point at);
  void run_due_flushes();

  engine::LogManager& logs_;
  io::FileSystem& fs_;
  boost::asio::io_context& io_;
  std::unordered_map<PartitionUid, std::unique_ptr<Partition>> partitions_;
  boost::asio::steady_timer retention_timer_;
  boost::asio::steady_timer replica_timer_;
  std::chrono::milliseconds retention_interval_{0};
  boost::asio::steady_timer flush_timer_;
  std::optional<FlushPolicy::Clock::time_point> flush_timer_at_;
  std::function<void(std::vector<IsrProposal>)> isr_listener_;
  CleanerOptions cleaner_;
  boost::asio::steady_timer cleaner_timer_;
  bool cleaning_ = false;  // a cleaning of one of these logs is in flight
  // Logs whose last cleaning failed: when they may be tried again (the wait
  // doubles with LogCompaction::failures(), up to 64 times
  // log.cleaner.backoff.ms), so that one failing log does not keep the
  // others from being cleaned.
  std::unordered_map<PartitionUid, std::chrono::steady_clock::time_point> cleaning_retry_at_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace strata::replication
