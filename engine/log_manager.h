// LogManager: one data directory — its RocksDB index store, its lock, and the
// clean-shutdown marker — and the place partition logs are opened from.
//
//   auto logs = LogManager::open({.data_dir = "./data", .clock = &clock, .fs = &fs}).value();
//   auto log = logs->open_log(uid, logs->partition_dir("orders", PartitionId(0)), config,
//                             shard_fs, shard.io()).value();
//   ... close every log ...
//   logs->mark_clean_shutdown();
//
// The marker file is removed as soon as the directory is opened, so a crash
// after that is never mistaken for a clean stop; logs opened by this process
// skip their recovery scan only if the marker was there.
//
// A removed log's directory is renamed at once to
// <data>/<topic>-<partition>.<uid in hex>-delete (a name no partition
// has), and its files and index rows go on a background thread: unlinking
// gigabytes of segments and a synced index write took a shard's loop
// 200-400 ms per partition. Deletions a crash or a stop interrupted are
// finished by the next open().
//
// Thread-safety: open_log(), partition_dir() and remove_log() may be called
// from any thread; the Log open_log() returns belongs to the caller's shard.
#pragma once

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include <boost/asio/io_context.hpp>

#include "base/clock.h"
#include "engine/log.h"
#include "index/index_store.h"
#include "io/background_executor.h"
#include "io/file_system.h"

namespace strata::engine {

inline constexpr std::string_view kCleanShutdownFile = "clean_shutdown";
inline constexpr std::string_view kIndexDir = "index";
inline constexpr std::string_view kLockFile = ".lock";

class LogManager {
 public:
  struct Options {
    std::filesystem::path data_dir;
    const Clock* clock = nullptr;
    io::FileSystem* fs = nullptr;  // for the manager's own blocking file operations
    index::IndexStore::Options index;
    uint64_t cache_window_bytes = 0;                 // LogOptions::cache_window_bytes of every log
    int64_t producer_id_expiration_ms = 86'400'000;  // LogOptions' of every log
    // LogOptions::on_storage_error of every log; may run on any shard.
    std::function<void(const Error&)> on_storage_error;
  };

  // Creates the directory if needed and takes its lock: a second process on
  // the same directory fails here.
  static Result<std::unique_ptr<LogManager>> open(const Options& options);
  ~LogManager();

  bool clean_start() const { return clean_start_; }
  index::IndexStore& index() { return *index_; }
  const std::filesystem::path& data_dir() const { return options_.data_dir; }

  // <data>/<topic>-<partition>
  std::filesystem::path partition_dir(std::string_view topic, PartitionId partition) const;

  Result<std::unique_ptr<Log>> open_log(PartitionUid uid, const std::filesystem::path& dir,
                                        const TopicConfig& config, io::FileSystem& fs,
                                        boost::asio::io_context& io);

  // Removes a closed log: its directory leaves `dir` now (the name is free
  // for a new log at once), its files and index entries go in the
  // background.
  Status remove_log(PartitionUid uid, const std::filesystem::path& dir);
  // Blocks until every removal posted so far finished (tests; not while
  // the manager is being destroyed).
  void wait_for_removals();
  // The uid of a removal in progress named `name` (a data directory entry:
  // <topic>-<partition>.<16 hex digits>-delete); nullopt for any other name.
  static std::optional<PartitionUid> removal_uid(std::string_view name);

  // Call after every log was closed: persists the index and writes the marker.
  Status mark_clean_shutdown();

 private:
  explicit LogManager(const Options& options) : options_(options) {}
  // Deletes the files and index rows of a directory remove_log() renamed.
  void post_removal(PartitionUid uid, std::filesystem::path retired);

  Options options_;
  int lock_fd_ = -1;
  bool clean_start_ = false;
  std::unique_ptr<index::IndexStore> index_;
  std::mutex removals_mu_;
  std::condition_variable removals_cv_;
  size_t removals_pending_ = 0;
  // Declared last: stopped (in the destructor) before the index closes.
  std::unique_ptr<io::BackgroundExecutor> remover_;
};

}  // namespace strata::engine
