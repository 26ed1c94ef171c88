// TopicCatalog: the cluster's metadata as this broker sees it — the live
// brokers, the controller, the topics (names, ids, partition counts, config
// overrides) and every partition's state — read from the MetadataStore and
// published as ClusterSnapshots; and the controller's writes to it.
//
//   TopicCatalog::open(store, election, self_id)   // reads everything once
//   catalog.refresh();                  // after a watch event: read again
//   auto snap = catalog.snapshot();     // any thread, lock-free for readers
//   catalog.create_topic("orders", 6, 1, {{"retention.ms", "-1"}}, false);
//
// Layout in the store:
//   /strata/cluster/id, /strata/cluster/next_topic_number
//   /strata/brokers/<id>            registrations (broker_registration.h)
//   /strata/controller/<id>         candidates (controller_election.h)
//   /strata/topics/<name>           a topic, without its partitions' states
//   /strata/partitions/<name>/<p>   one partition's PartitionState
//
// Every write is a transaction guarded by the controller epoch (through
// ControllerElection::guarded_txn) and compares the keys it changes against
// the revisions the last refresh read: a broker that is not the controller
// changes nothing (kNotController), and a write based on a stale view
// changes nothing either (kUnavailable: refresh and decide again). So only
// the controller writes the catalog, and never over a change it has not seen.
//
// Thread-safety: snapshot() from any thread; everything else from one
// control thread (the store calls block: never on a shard).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "coordinator/cluster_metadata.h"
#include "coordinator/controller_election.h"
#include "coordinator/metadata_store.h"

namespace strata::coordinator {

inline constexpr std::string_view kRoot = "/strata/";  // every key of the cluster's metadata
inline constexpr std::string_view kTopicPrefix = "/strata/topics/";
inline constexpr std::string_view kPartitionPrefix = "/strata/partitions/";

// A new state for one partition (the controller's decision).
struct StateChange {
  std::string topic;
  int32_t partition = 0;
  PartitionState next;
};

class TopicCatalog {
 public:
  // `self_id`: this broker, which holds every partition of a topic record
  // written before partition states were stored (single-broker data).
  static Result<std::unique_ptr<TopicCatalog>> open(MetadataStore& store,
                                                    ControllerElection& election, int32_t self_id);

  std::shared_ptr<const ClusterSnapshot> snapshot() const { return std::atomic_load(&snapshot_); }

  // Reads the whole catalog again and publishes it if the store changed.
  Status refresh();
  // The same, from a read of "/strata/" made elsewhere (the broker reads
  // once for the catalog and the dynamic broker configs).
  Status apply(const Listing& listing);

  // Creates a topic. kAlreadyExists, kInvalidTopic, kInvalidPartitions,
  // kInvalidReplicationFactor or kInvalidConfig on bad input; with
  // `validate_only` nothing is stored. `assignments` (one replica list per
  // partition, the preferred leader first) replaces placement; the caller
  // checked them.
  Result<std::shared_ptr<const TopicInfo>> create_topic(
      const std::string& name, int32_t partitions, int16_t replication_factor,
      const std::map<std::string, std::string>& configs, bool validate_only, bool internal = false,
      const std::vector<std::vector<int32_t>>& assignments = {});
  Status delete_topic(const std::string& name);
  // Raises the partition count to `total` (it can only grow). `assignments`
  // (one replica list per new partition, the preferred leader first)
  // replaces placement; the caller checked them.
  Status add_partitions(const std::string& name, int32_t total, bool validate_only,
                        const std::vector<std::vector<int32_t>>& assignments = {});
  // Replaces the topic's config overrides with `configs`.
  Status set_configs(const std::string& name, const std::map<std::string, std::string>& configs,
                     bool validate_only);
  // Writes new partition states at once (each compared with the state the
  // last refresh read). REQUIRES: each bumps the partition epoch.
  Status update_states(const std::vector<StateChange>& changes);

  // The partitions whose state is not stored under its own key yet (topic
  // records from before partition states had keys), with the state they
  // are assumed to have; the controller writes them.
  std::vector<StateChange> unstored_states() const;

 private:
  struct Revisions {
    int64_t topic = 0;                     // mod_revision of the topic record
    std::map<int32_t, int64_t> partition;  // mod_revision of each stored state
  };

  TopicCatalog(MetadataStore& store, ControllerElection& election, int32_t self_id)
      : store_(store), election_(election), self_id_(self_id) {}
  Result<std::shared_ptr<const TopicInfo>> find(const std::string& name) const;
  // Runs `txn` under the controller guard; a failed compare is a stale view.
  // Reads the catalog again afterwards unless `refresh_after` is false (a
  // part of a larger change whose last part refreshes).
  Status write(Txn txn, std::string_view what, bool refresh_after = true);
  size_t txn_budget() const;
  // Writes the states of partitions `from`..`states.size()-1` of topic
  // `name` in transactions of at most txn_budget() operations, each only while `guard`
  // holds, leaving the last `keep` states for the caller's own final
  // transaction; returns the index of the first state left.
  Result<size_t> write_states_ahead(const std::string& name,
                                    const std::vector<PartitionState>& states, size_t from,
                                    size_t keep, const Compare& guard);

  MetadataStore& store_;
  ControllerElection& election_;
  int32_t self_id_;
  int64_t read_revision_ = 0;
  uint32_t next_number_ = 1;
  int64_t next_number_version_ = 0;
  std::map<std::string, Revisions, std::less<>> revisions_;
  std::shared_ptr<const ClusterSnapshot> snapshot_ = std::make_shared<ClusterSnapshot>();
};

}  // namespace strata::coordinator
