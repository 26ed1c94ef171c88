// BrokerConfigStore: the dynamic broker configs — set at runtime through
// AlterConfigs / IncrementalAlterConfigs on the BROKER resource — kept in the
// MetadataStore (one record per scope: the cluster default and each broker)
// and published as an immutable DynamicBrokerConfigs.
//
//   auto store = BrokerConfigStore::open(metadata).value();
//   store->set(BrokerScope::cluster_default(), {{"log.retention.ms", "3600000"}}, false);
//   auto now = store->snapshot();   // any thread
//
// The store keeps names and values as given; what they may be is the
// broker's business (server/broker_synonyms.h), checked before set().
//
// Thread-safety: all methods may be called from any thread; set() is durable
// when it returns (the store may fsync: call it off the shard threads).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "base/result.h"
#include "coordinator/metadata_store.h"

namespace strata::coordinator {

using ConfigMap = std::map<std::string, std::string>;

// Which brokers a dynamic config applies to: every broker (the cluster
// default, Kafka's empty resource name) or one.
struct BrokerScope {
  std::optional<int32_t> node_id;
  static BrokerScope cluster_default() { return {}; }
  static BrokerScope broker(int32_t id) { return {id}; }
  bool operator==(const BrokerScope&) const = default;
};

struct DynamicBrokerConfigs {
  ConfigMap cluster_default;
  std::map<int32_t, ConfigMap> per_broker;

  const ConfigMap& of(const BrokerScope& scope) const;
};

class BrokerConfigStore {
 public:
  static Result<std::unique_ptr<BrokerConfigStore>> open(MetadataStore& store);

  std::shared_ptr<const DynamicBrokerConfigs> snapshot() const {
    return std::atomic_load(&snapshot_);
  }

  // Replaces every dynamic config of `scope` with `configs` (an empty map
  // removes the scope's record).
  Status set(const BrokerScope& scope, const ConfigMap& configs);

  // Reads every record again (another broker of the cluster changed one).
  Status refresh();
  // The same, from entries read elsewhere (other keys are skipped).
  Status apply(const std::vector<Entry>& entries);

 private:
  explicit BrokerConfigStore(MetadataStore& store) : store_(store) {}

  MetadataStore& store_;
  std::mutex mu_;  // serializes set()
  std::shared_ptr<const DynamicBrokerConfigs> snapshot_ =
      std::make_shared<const DynamicBrokerConfigs>();
};

}  // namespace strata::coordinator
