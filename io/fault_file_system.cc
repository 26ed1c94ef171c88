#include "io/fault_file_system.h"

#include <cerrno>

#include <boost/asio/post.hpp>
#include <fmt/format.h>

namespace strata::io {

class FaultFile final : public File {
 public:
  FaultFile(FaultFileSystem& fs, std::unique_ptr<File> base, bool is_dir)
      : fs_(fs), base_(std::move(base)), is_dir_(is_dir) {}

  void write_at(uint64_t pos, std::span<const iovec> iov, IoDone done) override {
    if (auto st = fs_.tick("write", path()); !st) return fail_later(std::move(done), st);
    if (!fs_.hold_writes_) return base_->write_at(pos, iov, std::move(done));
    base_->write_at(pos, iov, [this, done = std::move(done)](Result<size_t> r) mutable {
      fs_.held_.push_back(
          [done = std::move(done), r = std::move(r)]() mutable { done(std::move(r)); });
    });
  }

  void read_at(uint64_t pos, std::span<std::byte> buf, IoDone done) override {
    if (auto st = fs_.tick("read", path()); !st) return fail_later(std::move(done), st);
    base_->read_at(pos, buf, std::move(done));
  }

  void allocate(uint64_t pos, uint64_t len, SyncDone done) override {
    base_->allocate(pos, len, std::move(done));
  }

  void drop_cache(uint64_t pos, uint64_t len, SyncDone done) override {
    auto& state = fs_.files_[path().string()];
    state.cache_drops.push_back({pos, len, state.synced_size, state.written_back});
    base_->drop_cache(pos, len, std::move(done));
  }

  // Written back is not durable: a power cut still loses it.
  void write_back(uint64_t pos, uint64_t len, SyncDone done) override {
    if (auto st = fs_.tick("write_back", path()); !st) {
      boost::asio::post(fs_.io_, [done = std::move(done), st] { done(st); });
      return;
    }
    base_->write_back(pos, len, [this, end = pos + len, done = std::move(done)](Status st) {
      if (st) {
        auto& state = fs_.files_[path().string()];
        state.written_back = std::max(state.written_back, end);
      }
      done(std::move(st));
    });
  }

  void sync(SyncDone done) override {
    if (auto st = fs_.tick("sync", path()); !st) {
      boost::asio::post(fs_.io_, [done = std::move(done), st] { done(st); });
      return;
    }
    // A sync makes durable what was written before it was issued.
    uint64_t covered = is_dir_ ? 0 : base_->size().ok() ? *base_->size() : 0;
    base_->sync([this, covered, done = std::move(done)](Status st) {
      if (st.ok()) mark_synced(covered);
      done(std::move(st));
    });
  }

  Result<size_t> pread(uint64_t pos, std::span<std::byte> buf) override {
    STRATA_TRY(fs_.tick("pread", path()));
    return base_->pread(pos, buf);
  }

  Status pwrite(uint64_t pos, std::span<const std::byte> data) override {
    STRATA_TRY(fs_.tick("pwrite", path()));
    return base_->pwrite(pos, data);
  }

  Status sync_now() override {
    STRATA_TRY(fs_.tick("sync", path()));
    uint64_t covered = is_dir_ ? 0 : base_->size().ok() ? *base_->size() : 0;
    STRATA_TRY(base_->sync_now());
    mark_synced(covered);
    return ok_status();
  }

  Status truncate(uint64_t size) override {
    STRATA_TRY(fs_.tick("truncate", path()));
    STRATA_TRY(base_->truncate(size));
    // Shrinking is treated as durable at once: recovery truncates and then
    // syncs, and a lost shrink only brings back bytes recovery cuts again.
    auto& state = fs_.files_[path().string()];
    state.synced_size = std::min(state.synced_size, size);
    return ok_status();
  }

  Result<uint64_t> size() override { return base_->size(); }
  const std::filesystem::path& path() const override { return base_->path(); }

 private:
  void fail_later(IoDone done, Status st) {
    boost::asio::post(fs_.io_, [done = std::move(done), st] { done(st.error()); });
  }

  void mark_synced(uint64_t covered) {
    if (is_dir_) {
      fs_.on_dir_synced(path());
      return;
    }
    auto& state = fs_.files_[path().string()];
    state.synced_size = std::max(state.synced_size, covered);
  }

  FaultFileSystem& fs_;
  std::unique_ptr<File> base_;
  bool is_dir_;
};

Status FaultFileSystem::tick(std::string_view what, const std::filesystem::path& path) {
  ++calls_;
  bool fail = fail_at_ != 0 && (fail_sticky_ ? calls_ >= fail_at_ : calls_ == fail_at_);
  if (!fail) return ok_status();
  ++injected_;
  return Error::io(EIO, fmt::format("injected fault on {} {}", what, path.string()));
}

void FaultFileSystem::on_dir_synced(const std::filesystem::path& dir) {
  for (auto& [name, state] : files_) {
    if (std::filesystem::path(name).parent_path() == dir) {
      state.entry_durable = true;
      state.renamed_from.reset();
    }
  }
}

Result<std::unique_ptr<File>> FaultFileSystem::open(const std::filesystem::path& path,
                                                    OpenMode mode) {
  STRATA_TRY(tick("open", path));
  STRATA_ASSIGN_OR_RETURN(bool existed, base_.exists(path));
  STRATA_ASSIGN_OR_RETURN(auto file, base_.open(path, mode));
  auto [it, inserted] = files_.try_emplace(path.string());
  if (inserted && existed) {
    // A file from before this FileSystem was created counts as fully durable.
    STRATA_ASSIGN_OR_RETURN(it->second.synced_size, file->size());
    it->second.entry_durable = true;
  }
  return std::unique_ptr<File>(new FaultFile(*this, std::move(file), false));
}

Result<std::unique_ptr<File>> FaultFileSystem::open_dir(const std::filesystem::path& path) {
  STRATA_TRY(tick("open", path));
  STRATA_ASSIGN_OR_RETURN(auto dir, base_.open_dir(path));
  return std::unique_ptr<File>(new FaultFile(*this, std::move(dir), true));
}

Status FaultFileSystem::remove(const std::filesystem::path& path) {
  STRATA_TRY(tick("remove", path));
  files_.erase(path.string());
  return base_.remove(path);
}

Status FaultFileSystem::remove_all(const std::filesystem::path& path) {
  STRATA_TRY(tick("remove", path));
  std::string prefix = path.string() + "/";
  std::erase_if(files_, [&](const auto& kv) { return kv.first.starts_with(prefix); });
  return base_.remove_all(path);
}

Status FaultFileSystem::rename(const std::filesystem::path& from, const std::filesystem::path& to) {
  STRATA_TRY(tick("rename", from));
  STRATA_TRY(base_.rename(from, to));
  auto it = files_.find(from.string());
  if (it != files_.end()) {
    FileState state = it->second;
    if (state.entry_durable) state.renamed_from = from.string();
    state.entry_durable = false;  // until the directory is synced
    files_.erase(it);
    files_[to.string()] = state;
  }
  return ok_status();
}

Status FaultFileSystem::create_dirs(const std::filesystem::path& path) {
  STRATA_TRY(tick("mkdir", path));
  return base_.create_dirs(path);
}

Result<std::vector<std::string>> FaultFileSystem::list(const std::filesystem::path& dir) {
  STRATA_TRY(tick("list", dir));
  return base_.list(dir);
}

Result<bool> FaultFileSystem::exists(const std::filesystem::path& path) {
  return base_.exists(path);
}

void FaultFileSystem::release_writes() {
  auto held = std::move(held_);
  held_.clear();
  for (auto& complete : held)
    boost::asio::post(io_, std::move(complete));
}

uint64_t FaultFileSystem::synced_size(const std::filesystem::path& path) const {
  auto it = files_.find(path.string());
  return it == files_.end() ? 0 : it->second.synced_size;
}

std::vector<FaultFileSystem::CacheDrop> FaultFileSystem::cache_drops(
    const std::filesystem::path& path) const {
  auto it = files_.find(path.string());
  return it == files_.end() ? std::vector<CacheDrop>{} : it->second.cache_drops;
}

Status FaultFileSystem::drop_unsynced() {
  for (auto it = files_.begin(); it != files_.end();) {
    const auto& [name, state] = *it;
    if (!state.entry_durable && state.renamed_from) {
      // The rename is undone; the file is back under its durable name.
      STRATA_TRY(base_.rename(name, *state.renamed_from));
      FileState back = state;
      back.entry_durable = true;
      back.renamed_from.reset();
      std::string from = *state.renamed_from;
      it = files_.erase(it);
      files_[from] = back;
      continue;
    }
    if (!state.entry_durable) {
      STRATA_TRY(base_.remove(name));
      it = files_.erase(it);
      continue;
    }
    STRATA_ASSIGN_OR_RETURN(auto file, base_.open(name, OpenMode::kOpenExisting));
    STRATA_ASSIGN_OR_RETURN(uint64_t size, file->size());
    if (size > state.synced_size) STRATA_TRY(file->truncate(state.synced_size));
    ++it;
  }
  return ok_status();
}

}  // namespace strata::io
