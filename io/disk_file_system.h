// DiskFileSystem: the real file layer. Blocking calls use POSIX directly;
// asynchronous calls go through the owning shard's io_uring Ring.
//
//   DiskFileSystem fs(&shard.ring());
//   auto file = fs.open(dir / "00000000000000000000.log", OpenMode::kOpenOrCreate);
//
// A DiskFileSystem without a ring serves only the blocking calls (tools that
// read segments offline); an asynchronous call on it is a bug.
#pragma once

#include "io/file_system.h"
#include "io/ring.h"

namespace strata::io {

class DiskFileSystem final : public FileSystem {
 public:
  explicit DiskFileSystem(Ring* ring) : ring_(ring) {}

  Result<std::unique_ptr<File>> open(const std::filesystem::path& path, OpenMode mode) override;
  Result<std::unique_ptr<File>> open_dir(const std::filesystem::path& path) override;
  Status remove(const std::filesystem::path& path) override;
  Status remove_all(const std::filesystem::path& path) override;
  Status rename(const std::filesystem::path& from, const std::filesystem::path& to) override;
  Status create_dirs(const std::filesystem::path& path) override;
  Result<std::vector<std::string>> list(const std::filesystem::path& dir) override;
  Result<bool> exists(const std::filesystem::path& path) override;

 private:
  Ring* ring_;
};

}  // namespace strata::io
