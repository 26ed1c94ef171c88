#include "io/disk_file_system.h"

#include <cerrno>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace strata::io {
namespace {

class DiskFile final : public File {
 public:
  DiskFile(int fd, std::filesystem::path path, Ring* ring, bool is_dir)
      : fd_(fd), path_(std::move(path)), ring_(ring), is_dir_(is_dir) {}
  ~DiskFile() override { ::close(fd_); }

  void write_at(uint64_t pos, std::span<const iovec> iov, IoDone done) override {
    STRATA_CHECK(ring_ != nullptr, "asynchronous write on {} without a ring", path_.string());
    ring_->writev(fd_, iov, pos, [this, done = std::move(done)](int res) {
      if (res < 0) return done(Error::io(-res, "write " + path_.string()));
      done(static_cast<size_t>(res));
    });
  }

  void read_at(uint64_t pos, std::span<std::byte> buf, IoDone done) override {
    STRATA_CHECK(ring_ != nullptr, "asynchronous read on {} without a ring", path_.string());
    ring_->read(fd_, buf, pos, [this, done = std::move(done)](int res) {
      if (res < 0) return done(Error::io(-res, "read " + path_.string()));
      done(static_cast<size_t>(res));
    });
  }

  void allocate(uint64_t pos, uint64_t len, SyncDone done) override {
    STRATA_CHECK(ring_ != nullptr, "asynchronous allocate on {} without a ring", path_.string());
    ring_->fallocate(fd_, FALLOC_FL_KEEP_SIZE, pos, len, [this, done = std::move(done)](int res) {
      if (res < 0) return done(Error::io(-res, "fallocate " + path_.string()));
      done(ok_status());
    });
  }

  void drop_cache(uint64_t pos, uint64_t len, SyncDone done) override {
    STRATA_CHECK(ring_ != nullptr, "asynchronous drop_cache on {} without a ring", path_.string());
    ring_->fadvise(fd_, pos, len, POSIX_FADV_DONTNEED, [this, done = std::move(done)](int res) {
      if (res < 0) return done(Error::io(-res, "fadvise " + path_.string()));
      done(ok_status());
    });
  }

  void write_back(uint64_t pos, uint64_t len, SyncDone done) override {
    STRATA_CHECK(ring_ != nullptr, "asynchronous write_back on {} without a ring", path_.string());
    unsigned flags =
        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
    ring_->sync_file_range(fd_, pos, len, flags, [this, done = std::move(done)](int res) {
      if (res < 0) return done(Error::io(-res, "sync_file_range " + path_.string()));
      done(ok_status());
    });
  }

  void sync(SyncDone done) override {
    STRATA_CHECK(ring_ != nullptr, "asynchronous sync on {} without a ring", path_.string());
    auto cb = [this, done = std::move(done)](int res) {
      if (res < 0) return done(Error::io(-res, "sync " + path_.string()));
      done(ok_status());
    };
    if (is_dir_) {
      ring_->fsync(fd_, std::move(cb));
    } else {
      ring_->fdatasync(fd_, std::move(cb));
    }
  }

  Result<size_t> pread(uint64_t pos, std::span<std::byte> buf) override {
    size_t done = 0;
    while (done < buf.size()) {
      ssize_t n =
          ::pread(fd_, buf.data() + done, buf.size() - done, static_cast<off_t>(pos + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return Error::io(errno, "pread " + path_.string());
      }
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    return done;
  }

  Status pwrite(uint64_t pos, std::span<const std::byte> data) override {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n =
          ::pwrite(fd_, data.data() + done, data.size() - done, static_cast<off_t>(pos + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return Error::io(errno, "pwrite " + path_.string());
      }
      done += static_cast<size_t>(n);
    }
    return ok_status();
  }

  Status write_back_now(uint64_t pos, uint64_t len) override {
    unsigned flags = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE;
    if (::sync_file_range(fd_, static_cast<off_t>(pos), static_cast<off_t>(len), flags) != 0) {
      return Error::io(errno, "sync_file_range " + path_.string());
    }
    return ok_status();
  }

  Status sync_now() override {
    int rc = is_dir_ ? ::fsync(fd_) : ::fdatasync(fd_);
    if (rc != 0) return Error::io(errno, "sync " + path_.string());
    return ok_status();
  }

  Status truncate(uint64_t size) override {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
      return Error::io(errno, "truncate " + path_.string());
    }
    return ok_status();
  }

  Result<uint64_t> size() override {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return Error::io(errno, "stat " + path_.string());
    return static_cast<uint64_t>(st.st_size);
  }

  const std::filesystem::path& path() const override { return path_; }

 private:
  int fd_;
  std::filesystem::path path_;
  Ring* ring_;
  bool is_dir_;
};

}  // namespace

Result<std::unique_ptr<File>> DiskFileSystem::open(const std::filesystem::path& path,
                                                   OpenMode mode) {
  int flags = O_RDWR | O_CLOEXEC;
  if (mode == OpenMode::kCreateNew) flags |= O_CREAT | O_EXCL;
  if (mode == OpenMode::kOpenOrCreate) flags |= O_CREAT;
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) return Error::io(errno, "open " + path.string());
  return std::unique_ptr<File>(new DiskFile(fd, path, ring_, false));
}

Result<std::unique_ptr<File>> DiskFileSystem::open_dir(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Error::io(errno, "open directory " + path.string());
  return std::unique_ptr<File>(new DiskFile(fd, path, ring_, true));
}

Status DiskFileSystem::remove(const std::filesystem::path& path) {
  if (::unlink(path.c_str()) != 0) return Error::io(errno, "remove " + path.string());
  return ok_status();
}

Status DiskFileSystem::remove_all(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec) return Error::io(ec.value(), "remove " + path.string());
  return ok_status();
}

Status DiskFileSystem::rename(const std::filesystem::path& from, const std::filesystem::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return Error::io(errno, "rename " + from.string() + " to " + to.string());
  }
  return ok_status();
}

Status DiskFileSystem::create_dirs(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return Error::io(ec.value(), "create directory " + path.string());
  return ok_status();
}

Result<std::vector<std::string>> DiskFileSystem::list(const std::filesystem::path& dir) {
  std::error_code ec;
  std::vector<std::string> names;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  if (ec) return Error::io(ec.value(), "list " + dir.string());
  return names;
}

Result<bool> DiskFileSystem::exists(const std::filesystem::path& path) {
  std::error_code ec;
  bool e = std::filesystem::exists(path, ec);
  if (ec) return Error::io(ec.value(), "stat " + path.string());
  return e;
}

}  // namespace strata::io
