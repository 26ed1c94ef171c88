// ClusterSnapshot: an immutable view of the cluster's metadata — brokers,
// topics, partitions, configs — shared by every shard. Changes publish a new
// snapshot; readers keep the one they loaded for as long as they need it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/ids.h"

namespace strata::coordinator {

using TopicId = std::array<uint8_t, 16>;

struct BrokerInfo {
  int32_t node_id = 0;
  std::string host;
  int32_t port = 0;
  std::optional<std::string> rack;
  int32_t rpc_port = -1;  // broker-to-broker RPC (replication); -1: not known
  // The schema registry's REST API, on the advertised host; -1: none.
  int32_t registry_port = -1;
};

// One partition's replication state. Only the controller changes it (with
// one broker, the catalog): every change bumps partition_epoch, every
// change of leader bumps leader_epoch too.
struct PartitionState {
  std::vector<int32_t> replicas;  // node ids, the preferred leader first
  int32_t leader = -1;            // -1: offline
  int32_t leader_epoch = 0;
  std::vector<int32_t> isr;  // in-sync replicas, the leader among them
  int32_t partition_epoch = 0;

  bool operator==(const PartitionState&) const = default;
};

struct TopicInfo {
  std::string name;
  TopicId id{};
  uint32_t number = 0;  // broker-local compact id, the high half of partition uids
  int32_t partitions = 0;
  int16_t replication_factor = 1;
  std::map<std::string, std::string> configs;  // overrides of the broker defaults
  bool internal = false;
  std::vector<PartitionState> states;  // one per partition, by index

  // The state of partition `p`, nullptr outside [0, partitions).
  const PartitionState* state(int32_t p) const {
    return p >= 0 && static_cast<size_t>(p) < states.size() ? &states[static_cast<size_t>(p)]
                                                            : nullptr;
  }

  PartitionUid uid(PartitionId p) const {
    return PartitionUid((uint64_t{number} << 32) | static_cast<uint32_t>(p.value()));
  }
};

struct ClusterSnapshot {
  std::string cluster_id;
  int32_t controller_id = -1;
  std::vector<BrokerInfo> brokers;
  std::map<std::string, std::shared_ptr<const TopicInfo>, std::less<>> topics;
  uint64_t version = 0;  // bumps with every published change

  const TopicInfo* find(std::string_view name) const {
    auto it = topics.find(name);
    return it == topics.end() ? nullptr : it->second.get();
  }
  const TopicInfo* find(const TopicId& id) const {
    for (const auto& [name, t] : topics) {
      if (t->id == id) return t.get();
    }
    return nullptr;
  }
};

// Kafka's topic name rules: 1..249 characters of [a-zA-Z0-9._-], not "." or "..".
std::optional<std::string> invalid_topic_name(std::string_view name);

// 22-character URL-safe base64 of an id, as Kafka prints ids.
std::string id_to_string(const TopicId& id);
TopicId random_id();

}  // namespace strata::coordinator
