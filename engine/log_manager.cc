#include "engine/log_manager.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <unistd.h>

namespace strata::engine {

Result<std::unique_ptr<LogManager>> LogManager::open(const Options& options) {
  STRATA_CHECK(options.clock && options.fs, "LogManager options lack a clock or a file system");
  std::unique_ptr<LogManager> m(new LogManager(options));
  auto& fs = *options.fs;
  const auto& dir = options.data_dir;
  STRATA_ASSIGN_OR_RETURN(bool existed, fs.exists(dir));
  STRATA_TRY(fs.create_dirs(dir));
  if (!existed) {
    // The new directory's own entry must be durable too, or a power cut
    // could take it (and every synced file in it) away.
    STRATA_ASSIGN_OR_RETURN(auto parent,
                            fs.open_dir(dir.parent_path().empty() ? "." : dir.parent_path()));
    STRATA_TRY(parent->sync_now());
  }

  m->lock_fd_ = ::open((dir / kLockFile).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m->lock_fd_ < 0) return Error::io(errno, "open " + (dir / kLockFile).string());
  if (::flock(m->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    return Error(Errc::kAlreadyExists,
                 fmt::format("data directory {} is in use by another process", dir.string()));
  }

  STRATA_ASSIGN_OR_RETURN(m->clean_start_, fs.exists(dir / kCleanShutdownFile));
  if (m->clean_start_) {
    STRATA_TRY(fs.remove(dir / kCleanShutdownFile));
    STRATA_ASSIGN_OR_RETURN(auto d, fs.open_dir(dir));
    STRATA_TRY(d->sync_now());
  }
  STRATA_ASSIGN_OR_RETURN(m->index_, index::IndexStore::open(dir / kIndexDir, options.index));
  spdlog::info("data directory {} opened after a {} shutdown", dir.string(),
               m->clean_start_ ? "clean" : "unclean (or first)");
  return m;
}

LogManager::~LogManager() {
  index_.reset();
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

std::filesystem::path LogManager::partition_dir(std::string_view topic,
                                                PartitionId partition) const {
  return options_.data_dir / fmt::format("{}-{}", topic, partition.value());
}

Result<std::unique_ptr<Log>> LogManager::open_log(PartitionUid uid,
                                                  const std::filesystem::path& dir,
                                                  const TopicConfig& config, io::FileSystem& fs,
                                                  boost::asio::io_context& io) {
  LogOptions lo;
  lo.uid = uid;
  lo.dir = dir;
  lo.config = config;
  lo.fs = &fs;
  lo.index = index_.get();
  lo.clock = options_.clock;
  lo.io = &io;
  lo.clean_start = clean_start_;
  lo.cache_window_bytes = options_.cache_window_bytes;
  lo.producer_id_expiration_ms = options_.producer_id_expiration_ms;
  lo.on_storage_error = options_.on_storage_error;
  return Log::open(lo);
}

Status LogManager::remove_log(PartitionUid uid, const std::filesystem::path& dir) {
  STRATA_TRY(options_.fs->remove_all(dir));
  return index_->drop_partition(uid);
}

Status LogManager::mark_clean_shutdown() {
  STRATA_TRY(index_->flush());
  auto& fs = *options_.fs;
  const auto& dir = options_.data_dir;
  STRATA_ASSIGN_OR_RETURN(auto marker,
                          fs.open(dir / kCleanShutdownFile, io::OpenMode::kOpenOrCreate));
  STRATA_TRY(marker->sync_now());
  STRATA_ASSIGN_OR_RETURN(auto d, fs.open_dir(dir));
  return d->sync_now();
}

}  // namespace strata::engine
