#include "io/sync_journal.h"

#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "base/check.h"

namespace strata::io {
namespace {

class JournaledFile final : public File {
 public:
  JournaledFile(std::unique_ptr<File> base, SyncJournal& journal, bool is_dir)
      : base_(std::move(base)), journal_(journal), is_dir_(is_dir) {}

  void write_at(uint64_t pos, std::span<const iovec> iov, IoDone done) override {
    base_->write_at(pos, iov, std::move(done));
  }
  void read_at(uint64_t pos, std::span<std::byte> buf, IoDone done) override {
    base_->read_at(pos, buf, std::move(done));
  }
  void allocate(uint64_t pos, uint64_t len, SyncDone done) override {
    base_->allocate(pos, len, std::move(done));
  }
  void drop_cache(uint64_t pos, uint64_t len, SyncDone done) override {
    base_->drop_cache(pos, len, std::move(done));
  }
  void write_back(uint64_t pos, uint64_t len, SyncDone done) override {
    base_->write_back(pos, len, std::move(done));
  }

  // A sync makes durable what was written before it was issued; the line is
  // written before `done` runs, so before anything the sync allows.
  void sync(SyncDone done) override {
    uint64_t covered = covered_now();
    base_->sync([this, covered, done = std::move(done)](Status st) {
      if (st.ok()) record_sync(covered);
      done(std::move(st));
    });
  }

  Status sync_now() override {
    uint64_t covered = covered_now();
    STRATA_TRY(base_->sync_now());
    record_sync(covered);
    return ok_status();
  }

  Status truncate(uint64_t size) override {
    STRATA_TRY(base_->truncate(size));
    journal_.record(fmt::format("truncate {} {}", path().string(), size));
    return ok_status();
  }

  Result<size_t> pread(uint64_t pos, std::span<std::byte> buf) override {
    return base_->pread(pos, buf);
  }
  Status pwrite(uint64_t pos, std::span<const std::byte> data) override {
    return base_->pwrite(pos, data);
  }
  Result<uint64_t> size() override { return base_->size(); }
  const std::filesystem::path& path() const override { return base_->path(); }

 private:
  uint64_t covered_now() {
    if (is_dir_) return 0;
    auto size = base_->size();
    return size.ok() ? *size : 0;
  }

  void record_sync(uint64_t covered) {
    journal_.record(is_dir_ ? fmt::format("dirsync {}", path().string())
                            : fmt::format("sync {} {}", path().string(), covered));
  }

  std::unique_ptr<File> base_;
  SyncJournal& journal_;
  bool is_dir_;
};

}  // namespace

Result<std::unique_ptr<SyncJournal>> SyncJournal::open(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Error::io(errno, "open sync journal " + path.string());
  return std::unique_ptr<SyncJournal>(new SyncJournal(fd));
}

SyncJournal::~SyncJournal() {
  ::close(fd_);
}

void SyncJournal::record(std::string_view line) {
  std::string buf;
  buf.reserve(line.size() + 1);
  buf.append(line);
  buf.push_back('\n');
  ssize_t n;
  do {
    n = ::write(fd_, buf.data(), buf.size());
  } while (n < 0 && errno == EINTR);
  STRATA_CHECK(n == static_cast<ssize_t>(buf.size()), "sync journal write failed: {}",
               n < 0 ? std::strerror(errno) : "short write");
}

Result<std::unique_ptr<File>> SyncJournalFileSystem::open(const std::filesystem::path& path,
                                                          OpenMode mode) {
  STRATA_ASSIGN_OR_RETURN(bool existed, base_.exists(path));
  STRATA_ASSIGN_OR_RETURN(auto file, base_.open(path, mode));
  if (existed) {
    STRATA_ASSIGN_OR_RETURN(uint64_t size, file->size());
    journal_.record(fmt::format("open {} {}", path.string(), size));
  } else {
    journal_.record(fmt::format("create {}", path.string()));
  }
  return std::unique_ptr<File>(new JournaledFile(std::move(file), journal_, false));
}

Result<std::unique_ptr<File>> SyncJournalFileSystem::open_dir(const std::filesystem::path& path) {
  STRATA_ASSIGN_OR_RETURN(auto dir, base_.open_dir(path));
  return std::unique_ptr<File>(new JournaledFile(std::move(dir), journal_, true));
}

Status SyncJournalFileSystem::remove(const std::filesystem::path& path) {
  STRATA_TRY(base_.remove(path));
  journal_.record(fmt::format("remove {}", path.string()));
  return ok_status();
}

Status SyncJournalFileSystem::remove_all(const std::filesystem::path& path) {
  STRATA_TRY(base_.remove_all(path));
  journal_.record(fmt::format("remove {}", path.string()));
  return ok_status();
}

Status SyncJournalFileSystem::rename(const std::filesystem::path& from,
                                     const std::filesystem::path& to) {
  STRATA_TRY(base_.rename(from, to));
  journal_.record(fmt::format("rename {} {}", from.string(), to.string()));
  return ok_status();
}

Status SyncJournalFileSystem::create_dirs(const std::filesystem::path& path) {
  return base_.create_dirs(path);
}

Result<std::vector<std::string>> SyncJournalFileSystem::list(const std::filesystem::path& dir) {
  return base_.list(dir);
}

Result<bool> SyncJournalFileSystem::exists(const std::filesystem::path& path) {
  return base_.exists(path);
}

}  // namespace strata::io
