// FaultFileSystem: a FileSystem for tests that simulates power loss and I/O
// errors on top of another FileSystem (normally a DiskFileSystem in a
// temporary directory).
//
// It remembers, for every file opened through it, how many bytes were durable
// at its last completed sync, and whether the file's directory entry was made
// durable by a sync of its directory. drop_unsynced() then makes the disk
// look as it would after a power cut: files are cut back to their synced
// length, files whose creation was never synced disappear, and renames
// never synced are undone (a rename over an existing file loses that
// file: the model is harsher there than a disk).
//
// fail_nth(n) makes the n-th following call (any operation, counted from 1)
// fail with EIO instead of doing anything; fail_from(n) makes it and every
// later call fail. hold_writes(true) lets writes happen but keeps their
// completions until release_writes(), so a test can order a write's
// completion after later events.
//
//   FaultFileSystem fs(base);
//   ... run the engine, keep what it acknowledged as flushed ...
//   engine.reset();          // "crash": no clean close
//   fs.drop_unsynced();
//   ... reopen and check every flushed batch is there ...
//
// Thread-safety: one shard at a time, like the files themselves.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "io/file_system.h"

namespace strata::io {

class FaultFileSystem final : public FileSystem {
 public:
  // Injected failures of asynchronous calls complete through `io`, like
  // real completions, never inside the call.
  FaultFileSystem(FileSystem& base, boost::asio::io_context& io) : base_(base), io_(io) {}

  Result<std::unique_ptr<File>> open(const std::filesystem::path& path, OpenMode mode) override;
  Result<std::unique_ptr<File>> open_dir(const std::filesystem::path& path) override;
  Status remove(const std::filesystem::path& path) override;
  Status remove_all(const std::filesystem::path& path) override;
  Status rename(const std::filesystem::path& from, const std::filesystem::path& to) override;
  Status create_dirs(const std::filesystem::path& path) override;
  Result<std::vector<std::string>> list(const std::filesystem::path& dir) override;
  Result<bool> exists(const std::filesystem::path& path) override;

  // Cuts every tracked file back to its synced length and removes files whose
  // directory entry was never synced. Call only when no File from this
  // FileSystem is still open.
  Status drop_unsynced();

  void fail_nth(uint64_t n) { fail_at_ = calls_ + n, fail_sticky_ = false; }
  void fail_from(uint64_t n) { fail_at_ = calls_ + n, fail_sticky_ = true; }
  void clear_faults() { fail_at_ = 0; }
  void hold_writes(bool hold) { hold_writes_ = hold; }
  // Writes done but not yet completed to their callers (hold_writes).
  size_t held_writes() const { return held_.size(); }
  // Completes the held writes (through the io_context, in order).
  void release_writes();
  uint64_t calls() const { return calls_; }
  uint64_t injected_failures() const { return injected_; }

  // Bytes of `path` that a power cut would keep (for assertions).
  uint64_t synced_size(const std::filesystem::path& path) const;

  // A drop_cache() call on a file, with what was synced and what written
  // back (write_back) when it was made.
  struct CacheDrop {
    uint64_t pos = 0;
    uint64_t len = 0;
    uint64_t synced_size = 0;
    uint64_t written_back = 0;
  };
  std::vector<CacheDrop> cache_drops(const std::filesystem::path& path) const;

 private:
  friend class FaultFile;
  struct FileState {
    uint64_t synced_size = 0;
    bool entry_durable = false;  // creation or rename covered by a directory sync
    // A rename not yet covered by a directory sync, of a file whose entry
    // was durable under this name: a power cut puts it back there.
    std::optional<std::string> renamed_from;
    std::vector<CacheDrop> cache_drops;
    uint64_t written_back = 0;
  };

  // Counts one call; returns an error when this call is chosen to fail.
  Status tick(std::string_view what, const std::filesystem::path& path);
  void on_dir_synced(const std::filesystem::path& dir);

  FileSystem& base_;
  boost::asio::io_context& io_;
  std::map<std::string, FileState> files_;
  uint64_t calls_ = 0;
  uint64_t fail_at_ = 0;
  bool fail_sticky_ = false;
  bool hold_writes_ = false;
  std::vector<std::function<void()>> held_;
  uint64_t injected_ = 0;
};

}  // namespace strata::io
