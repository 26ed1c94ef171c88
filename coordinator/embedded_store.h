// EmbeddedStore: the MetadataStore of a single broker — an in-memory map
// persisted as one JSON file, replaced atomically (write a temporary file,
// fsync it, rename it over the old one, fsync the directory) on every change.
// Metadata changes are rare (topic creation, config changes), so rewriting
// the whole file keeps the format trivially crash-safe.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "coordinator/metadata_store.h"

namespace strata::coordinator {

class EmbeddedStore final : public MetadataStore {
 public:
  // Loads `path` if it exists (a missing file is an empty store; a corrupt
  // one is an error, never silently replaced).
  static Result<std::unique_ptr<EmbeddedStore>> open(const std::filesystem::path& path);

  Result<std::optional<Entry>> get(const std::string& key) override;
  Result<std::vector<Entry>> list(const std::string& prefix) override;
  Result<int64_t> put(const std::string& key, const std::string& value, int64_t expected) override;
  Status erase(const std::string& key, int64_t expected) override;
  void watch(const std::string& prefix, WatchCallback cb) override;

 private:
  explicit EmbeddedStore(std::filesystem::path path) : path_(std::move(path)) {}
  Status check_version(const std::string& key, int64_t expected) const;
  Status persist() const;
  void notify(const std::string& key, const std::optional<Entry>& entry);

  std::filesystem::path path_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
  std::vector<std::pair<std::string, WatchCallback>> watches_;
};

}  // namespace strata::coordinator
