#include "engine/log_manager.h"

#include <cstdlib>

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
  STRATA_TRY(fs.create_dirs_durably(dir));

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
  m->remover_ = std::make_unique<io::BackgroundExecutor>(1, "log-remover");
  // Removals a crash or a stop cut short: their names carry their uids.
  STRATA_ASSIGN_OR_RETURN(auto names, fs.list(dir));
  for (const auto& name : names) {
    auto uid = removal_uid(name);
    if (!uid) continue;
    spdlog::info("finishing the removal of {}", name);
    m->post_removal(*uid, dir / name);
  }
  return m;
}

LogManager::~LogManager() {
  // Removals not started are dropped (the next open finishes them); the
  // running one ends before the index closes.
  if (remover_) remover_->stop();
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

std::optional<PartitionUid> LogManager::removal_uid(std::string_view name) {
  constexpr std::string_view kSuffix = "-delete";
  constexpr size_t kHexDigits = 16;
  if (name.size() < kSuffix.size() + kHexDigits + 1 || !name.ends_with(kSuffix)) {
    return std::nullopt;
  }
  auto hex = name.substr(name.size() - kSuffix.size() - kHexDigits, kHexDigits);
  if (name[name.size() - kSuffix.size() - kHexDigits - 1] != '.' ||
      hex.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
    return std::nullopt;
  }
  return PartitionUid(std::strtoull(std::string(hex).c_str(), nullptr, 16));
}

Status LogManager::remove_log(PartitionUid uid, const std::filesystem::path& dir) {
  auto retired = dir;
  retired += fmt::format(".{:016x}-delete", uid.value());
  STRATA_TRY(options_.fs->rename(dir, retired));
  post_removal(uid, std::move(retired));
  return ok_status();
}

void LogManager::post_removal(PartitionUid uid, std::filesystem::path retired) {
  {
    std::lock_guard lock(removals_mu_);
    ++removals_pending_;
  }
  remover_->post([this, uid, retired = std::move(retired)] {
    auto st = options_.fs->remove_all(retired);
    if (st) st = index_->drop_partition(uid);
    if (!st) spdlog::error("cannot remove {}: {}", retired.string(), st.error().to_string());
    std::lock_guard lock(removals_mu_);
    if (--removals_pending_ == 0) removals_cv_.notify_all();
  });
}

void LogManager::wait_for_removals() {
  std::unique_lock lock(removals_mu_);
  removals_cv_.wait(lock, [this] { return removals_pending_ == 0; });
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
