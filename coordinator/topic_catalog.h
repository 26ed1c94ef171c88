// TopicCatalog: the cluster's topics — names, ids, partition counts, config
// overrides — kept in the MetadataStore and published as ClusterSnapshots.
//
//   auto topic = catalog.create_topic("orders", 6, 1, {{"retention.ms", "-1"}}, false);
//   auto snap = catalog.snapshot();          // any thread, lock-free for readers
//
// Thread-safety: all methods may be called from any thread; mutations are
// serialized and durable when they return (they write the store, which may
// fsync: call them off the shard threads).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/result.h"
#include "coordinator/cluster_metadata.h"
#include "coordinator/metadata_store.h"

namespace strata::coordinator {

class TopicCatalog {
 public:
  static Result<std::unique_ptr<TopicCatalog>> open(MetadataStore& store, BrokerInfo self);

  std::shared_ptr<const ClusterSnapshot> snapshot() const { return std::atomic_load(&snapshot_); }

  // Creates a topic. kAlreadyExists, kInvalidTopic, kInvalidPartitions,
  // kInvalidReplicationFactor or kInvalidConfig on bad input; with
  // `validate_only` nothing is stored.
  Result<std::shared_ptr<const TopicInfo>> create_topic(
      const std::string& name, int32_t partitions, int16_t replication_factor,
      const std::map<std::string, std::string>& configs, bool validate_only, bool internal = false);
  Status delete_topic(const std::string& name);
  // Raises the partition count to `total` (it can only grow).
  Status add_partitions(const std::string& name, int32_t total, bool validate_only);
  // Replaces the topic's config overrides with `configs`.
  Status set_configs(const std::string& name, const std::map<std::string, std::string>& configs,
                     bool validate_only);

 private:
  TopicCatalog(MetadataStore& store, BrokerInfo self) : store_(store), self_(std::move(self)) {}
  Status load();
  void publish(std::map<std::string, std::shared_ptr<const TopicInfo>, std::less<>> topics);
  Result<std::shared_ptr<const TopicInfo>> find_locked(const std::string& name) const;
  Status store_topic(const TopicInfo& t, int64_t expected);

  MetadataStore& store_;
  BrokerInfo self_;
  std::mutex mu_;  // serializes mutations
  std::string cluster_id_;
  uint32_t next_number_ = 1;
  std::map<std::string, int64_t> versions_;  // store version of each topic record
  std::shared_ptr<const ClusterSnapshot> snapshot_ = std::make_shared<ClusterSnapshot>();
};

}  // namespace strata::coordinator
