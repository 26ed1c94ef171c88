// MetadataStore: the cluster-metadata store behind one interface — keyed
// records with versions and compare-and-set, and watches — so the embedded
// single-broker store and the etcd store (clusters, a later issue) are
// interchangeable.
//
//   auto v = store.put("/strata/topics/orders", json, MetadataStore::kAbsent);
//   if (!v) ...  // kAlreadyExists when the key exists
//
// Thread-safety: every method may be called from any thread; watch
// callbacks run on the thread that made the change.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace strata::coordinator {

class MetadataStore {
 public:
  // Expected versions for compare-and-set.
  static constexpr int64_t kAny = -1;    // no condition
  static constexpr int64_t kAbsent = 0;  // the key must not exist

  struct Entry {
    std::string key;
    std::string value;
    int64_t version = 0;  // > 0; bumps on every change of the key
  };
  using WatchCallback = std::function<void(const std::string& key, const std::optional<Entry>&)>;

  virtual ~MetadataStore() = default;

  virtual Result<std::optional<Entry>> get(const std::string& key) = 0;
  // Every entry whose key starts with `prefix`, in key order.
  virtual Result<std::vector<Entry>> list(const std::string& prefix) = 0;
  // Writes `value` if the key's version is `expected` (see kAny, kAbsent).
  // Returns the new version; kAlreadyExists / kNotFound / kInvalidArgument
  // (version mismatch) otherwise. Durable when it returns.
  virtual Result<int64_t> put(const std::string& key, const std::string& value,
                              int64_t expected) = 0;
  virtual Status erase(const std::string& key, int64_t expected) = 0;
  // Calls `cb` after every change of a key under `prefix`.
  virtual void watch(const std::string& prefix, WatchCallback cb) = 0;
};

}  // namespace strata::coordinator
