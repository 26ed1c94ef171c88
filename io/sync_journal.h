// SyncJournal and SyncJournalFileSystem: a test hook that lets a fault
// harness make a broker's disk look as it would after a power cut, although
// the broker was only SIGKILLed (which keeps everything in the page cache).
//
// SyncJournalFileSystem passes every call to another FileSystem and appends
// to a journal file, before the call's completion runs, the events a power
// cut depends on, one line each (paths as the broker named them):
//
//   open <path> <size>       an existing file was opened; as far as the
//                            journal knows all of it is durable
//   create <path>            a new file; its entry is durable once its
//                            directory is synced, its bytes once it is
//   sync <path> <size>       a sync of the file completed: the first <size>
//                            bytes (its size when the sync was issued) are
//                            durable
//   dirsync <dir>            a sync of the directory completed: the entries
//                            of the files created or renamed in it are durable
//   truncate <path> <size>   the file was cut to <size> (taken as durable at
//                            once, as FaultFileSystem does)
//   rename <from> <to>       a rename (its entry durable at the next dirsync)
//   remove <path>            a removal
//
// Replaying the journal gives FaultFileSystem's state (io/fault_file_system.h)
// for every file the broker touched; tests/fault/power_cut.py does that and
// cuts the files. Each line is one write(2) on an O_APPEND descriptor, so it
// survives a SIGKILL of the process as soon as the call returned, and lines
// of several shards never interleave.
//
// Off unless the broker is given strata.test.sync.journal: it costs a write
// per sync.
//
// Thread-safety: a SyncJournal may be shared by all shards.
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>

#include "io/file_system.h"

namespace strata::io {

class SyncJournal {
 public:
  // Opens (creating, appending to) the journal at `path`.
  static Result<std::unique_ptr<SyncJournal>> open(const std::filesystem::path& path);
  ~SyncJournal();
  SyncJournal(const SyncJournal&) = delete;
  SyncJournal& operator=(const SyncJournal&) = delete;

  // Appends `line` and a newline with one write. A failure to record is
  // fatal: a journal with a hole would make the harness cut acknowledged data.
  void record(std::string_view line);

 private:
  explicit SyncJournal(int fd) : fd_(fd) {}
  int fd_;
};

class SyncJournalFileSystem final : public FileSystem {
 public:
  SyncJournalFileSystem(FileSystem& base, SyncJournal& journal) : base_(base), journal_(journal) {}

  Result<std::unique_ptr<File>> open(const std::filesystem::path& path, OpenMode mode) override;
  Result<std::unique_ptr<File>> open_dir(const std::filesystem::path& path) override;
  Status remove(const std::filesystem::path& path) override;
  Status remove_all(const std::filesystem::path& path) override;
  Status rename(const std::filesystem::path& from, const std::filesystem::path& to) override;
  Status create_dirs(const std::filesystem::path& path) override;
  Result<std::vector<std::string>> list(const std::filesystem::path& dir) override;
  Result<bool> exists(const std::filesystem::path& path) override;

 private:
  FileSystem& base_;
  SyncJournal& journal_;
};

}  // namespace strata::io
