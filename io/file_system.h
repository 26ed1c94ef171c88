// File and FileSystem: the file layer every stored byte goes through.
//
// The engine never calls the OS directly; it is handed a FileSystem, so tests
// can substitute FaultFileSystem (drops unsynced data, fails the Nth call).
// Asynchronous operations complete on the thread of the shard that owns the
// file (through its io_uring Ring); blocking operations are for start-up,
// recovery and tools.
//
// Thread-safety: a File is used by one shard at a time. FileSystem methods
// that do not take a callback are thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <sys/uio.h>

#include "base/result.h"

namespace strata::io {

class File {
 public:
  using IoDone = std::function<void(Result<size_t>)>;
  using SyncDone = std::function<void(Status)>;

  virtual ~File() = default;

  // Asynchronous calls never run `done` inside the call itself. The File must
  // outlive its operations.

  // Writes the buffers back to back at `pos`. May complete with fewer bytes
  // than asked; the caller continues. `iov` and its buffers must stay valid
  // until `done` runs.
  virtual void write_at(uint64_t pos, std::span<const iovec> iov, IoDone done) = 0;
  // Reads up to buf.size() bytes at `pos`; fewer at end of file.
  virtual void read_at(uint64_t pos, std::span<std::byte> buf, IoDone done) = 0;
  // Completes when every write that completed before the call is durable.
  // For a directory handle: when its entries (creations, renames) are.
  virtual void sync(SyncDone done) = 0;
  // Reserves disk blocks for [pos, pos + len) without changing the file's
  // size (fallocate with FALLOC_FL_KEEP_SIZE), so later appends there do not
  // allocate blocks and each sync writes less metadata. A hint: a failure
  // changes nothing the file holds.
  virtual void allocate(uint64_t pos, uint64_t len, SyncDone done) = 0;
  // Drops the page cache's clean pages of [pos, pos + len)
  // (POSIX_FADV_DONTNEED): the bytes stay in the file, later reads of them
  // go to the disk. A hint: a failure changes nothing the file holds.
  virtual void drop_cache(uint64_t pos, uint64_t len, SyncDone done) = 0;
  // Writes the dirty pages of [pos, pos + len) to the disk and waits for
  // them (sync_file_range, wait before and after): no durability promise
  // (no metadata, no device cache flush), but the pages are clean after it,
  // so drop_cache() can evict them. A hint like drop_cache().
  virtual void write_back(uint64_t pos, uint64_t len, SyncDone done) = 0;

  // Blocking counterparts.
  virtual Result<size_t> pread(uint64_t pos, std::span<std::byte> buf) = 0;
  virtual Status pwrite(uint64_t pos, std::span<const std::byte> data) = 0;
  virtual Status sync_now() = 0;
  // Starts writing the dirty pages of [pos, pos + len) to the disk and
  // waits for those of the range that were being written already
  // (sync_file_range, wait before and write): spreads a long write's
  // write-out over its course, so its final sync has little left. A hint,
  // no durability promise; a file system without it does nothing.
  virtual Status write_back_now(uint64_t /*pos*/, uint64_t /*len*/) { return ok_status(); }
  virtual Status truncate(uint64_t size) = 0;
  virtual Result<uint64_t> size() = 0;

  virtual const std::filesystem::path& path() const = 0;
};

enum class OpenMode {
  kCreateNew,     // fail if it exists
  kOpenExisting,  // fail if it does not exist
  kOpenOrCreate,
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  virtual Result<std::unique_ptr<File>> open(const std::filesystem::path& path, OpenMode mode) = 0;
  // A handle on a directory, used to sync its entries.
  virtual Result<std::unique_ptr<File>> open_dir(const std::filesystem::path& path) = 0;
  virtual Status remove(const std::filesystem::path& path) = 0;
  virtual Status remove_all(const std::filesystem::path& path) = 0;
  virtual Status rename(const std::filesystem::path& from, const std::filesystem::path& to) = 0;
  // Creates the directory and its missing parents.
  virtual Status create_dirs(const std::filesystem::path& path) = 0;
  // The same, and a directory it creates has its own entry synced too, or a
  // power cut could take it (and every synced file in it) away.
  Status create_dirs_durably(const std::filesystem::path& path) {
    STRATA_ASSIGN_OR_RETURN(bool existed, exists(path));
    STRATA_TRY(create_dirs(path));
    if (existed) return ok_status();
    STRATA_ASSIGN_OR_RETURN(auto parent,
                            open_dir(path.parent_path().empty() ? "." : path.parent_path()));
    return parent->sync_now();
  }
  // Names of the entries of a directory, unsorted.
  virtual Result<std::vector<std::string>> list(const std::filesystem::path& dir) = 0;
  virtual Result<bool> exists(const std::filesystem::path& path) = 0;
};

}  // namespace strata::io
