// What a request handler may reach, each a narrow view the Broker
// implements: the shards (ShardAccess), the cluster as this broker sees it
// (ClusterView), the configs (ConfigView) and the controller's services
// (ControllerAccess). Handlers get them in their RequestContext
// (dispatch.h) and never the Broker itself, which keeps start-up, shutdown
// and wiring.
//
//   ctx.cluster.route(topic, partition, epoch)   // this broker leads it?
//   ctx.controller.change_topics(ctx.origin(), [](TopicChange& c) { ... }, done);
//
// Thread-safety: as each method says; all of them outlive every request.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "coordinator/broker_config_store.h"
#include "coordinator/cluster_metadata.h"
#include "coordinator/controller.h"
#include "coordinator/topic_catalog.h"
#include "engine/topic_config.h"
#include "replication/shard_seam.h"
#include "server/broker_config.h"
#include "server/partition_route.h"
#include "server/topic_defaults.h"

namespace strata::server {

class ShardState;

// The shards, and what each hosts beyond its replicas: its group and
// transaction coordinators, its schema registry, its links to other brokers.
class ShardAccess : public replication::ShardSeam {
 public:
  // Shard i's state. On shard i's thread only.
  virtual ShardState& state(unsigned i) = 0;

 protected:
  ~ShardAccess() = default;
};

// The cluster as this broker sees it. Any thread.
class ClusterView {
 public:
  // Brokers, controller, topics and partition states; hold the pointer while
  // using what it points into.
  virtual std::shared_ptr<const coordinator::ClusterSnapshot> snapshot() const = 0;
  virtual int32_t node_id() const = 0;
  // Its registration lease is current (self-fencing, see BrokerRegistration).
  virtual bool may_lead() const = 0;

  bool is_controller() const { return snapshot()->controller_id == node_id(); }
  // route_partition with this broker's id and lease.
  PartitionRoute route(const coordinator::TopicInfo* topic, int32_t partition,
                       int32_t current_leader_epoch = kNoLeaderEpoch) const {
    return route_partition(topic, partition, current_leader_epoch, node_id(), may_lead());
  }
  // This broker may act as the leader `state` names (may_serve_as_leader).
  bool may_serve(const coordinator::PartitionState& state) const {
    return may_serve_as_leader(state, node_id(), may_lead());
  }

 protected:
  ~ClusterView() = default;
};

// The broker's configuration. Any thread.
class ConfigView {
 public:
  // The static configuration, fixed once the broker serves.
  virtual const BrokerConfig& config() const = 0;
  // The topic defaults now: static properties under the dynamic broker
  // configs (topic_defaults.h).
  virtual std::shared_ptr<const engine::TopicConfig> topic_defaults() const = 0;
  virtual std::shared_ptr<const coordinator::DynamicBrokerConfigs> dynamic_configs() const = 0;

  // The configuration a topic's logs run with: the defaults + its overrides.
  engine::TopicConfig effective_config(const coordinator::TopicInfo& topic) const;
  // The layers the topic defaults come from, for DescribeConfigs.
  TopicDefaultLayers topic_default_layers() const;

 protected:
  ~ConfigView() = default;
};

// A topic a broker creates for its own needs (auto-creation, the offsets topic).
struct NewTopic {
  std::string name;
  int32_t partitions = 1;
  int16_t replication_factor = 1;
  std::map<std::string, std::string> configs;
};

// What a change of the catalog may do: only inside
// ControllerAccess::change_topics, on the control thread (the store's
// calls block).
class TopicChange {
 public:
  virtual coordinator::TopicCatalog& catalog() = 0;
  // Replaces the dynamic broker configs of `scope` (AlterConfigs on a
  // BROKER resource) after checking each may change at runtime and has a
  // valid value; nothing is stored with `validate_only`.
  virtual Status set_dynamic_configs(const coordinator::BrokerScope& scope,
                                     const coordinator::ConfigMap& configs, bool validate_only) = 0;

 protected:
  ~TopicChange() = default;
};

// The controller's services. Call on shard `origin`; every `done` runs on
// shard `origin` (ensure_internal_topic's at once when the topic exists).
class ControllerAccess {
 public:
  // Runs `mutation` on the control thread, brings every shard in line with
  // the new snapshot (opening or deleting partitions), then `done`.
  virtual void change_topics(unsigned origin, std::function<Status(TopicChange&)> mutation,
                             std::function<void(Status)> done) = 0;
  // Creates topics the broker itself needs: here if this broker is the
  // controller, else through it; `done` with the first failure other than
  // "already exists".
  virtual void create_topics(unsigned origin, std::vector<NewTopic> topics,
                             std::function<void(Status)> done) = 0;
  // Creates the internal topic `name` (__consumer_offsets, ...) if it does
  // not exist yet.
  virtual void ensure_internal_topic(unsigned origin, std::string_view name,
                                     std::function<void(Status)> done) = 0;
  // Leader elections (ElectLeaders).
  virtual void elect(
      unsigned origin, std::vector<coordinator::PartitionRef> partitions,
      coordinator::Election type,
      std::function<void(Result<std::vector<coordinator::ElectionOutcome>>)> done) = 0;
  // A producer id, unique in the cluster and never reused.
  virtual void allocate_producer_id(unsigned origin, std::function<void(Result<int64_t>)> done) = 0;

 protected:
  ~ControllerAccess() = default;
};

// The views together, for helpers that need several. Copied by value
// (references); the Broker behind them outlives every request.
struct Services {
  ShardAccess& shards;
  const ClusterView& cluster;
  const ConfigView& configs;
  ControllerAccess& controller;
  const Clock& clock;
};

}  // namespace strata::server
