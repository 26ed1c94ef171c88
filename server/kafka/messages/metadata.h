// Metadata (key 3).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct MetadataRequest {
  static constexpr int16_t kApiKey = 3;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 12, kFlexibleFrom = 9;
  struct Topic {
    Uuid topic_id{};
    std::optional<std::string> name;
    template <typename V>
    void visit(V& v) {
      v.field(topic_id, since(10));
      v.field(name, kAllVersions, since(10));
    }
    bool operator==(const Topic&) const = default;
  };
  // v0: empty = all topics. v1+: null = all topics, empty = none.
  std::optional<std::vector<Topic>> topics;
  bool allow_auto_topic_creation = true;
  bool include_cluster_authorized_operations = false;
  bool include_topic_authorized_operations = false;
  template <typename V>
  void visit(V& v) {
    v.field(topics, kAllVersions, since(1));
    v.field(allow_auto_topic_creation, since(4));
    v.field(include_cluster_authorized_operations, between(8, 10));
    v.field(include_topic_authorized_operations, since(8));
  }
  bool operator==(const MetadataRequest&) const = default;
};

struct MetadataResponse {
  static constexpr int16_t kApiKey = 3;
  struct Broker {
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;
    template <typename V>
    void visit(V& v) {
      v.field(node_id, kAllVersions);
      v.field(host, kAllVersions);
      v.field(port, kAllVersions);
      v.field(rack, since(1), since(1));
    }
    bool operator==(const Broker&) const = default;
  };
  struct Partition {
    int16_t error_code = 0;
    int32_t partition_index = 0;
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;
    std::vector<int32_t> replica_nodes;
    std::vector<int32_t> isr_nodes;
    std::vector<int32_t> offline_replicas;
    template <typename V>
    void visit(V& v) {
      v.field(error_code, kAllVersions);
      v.field(partition_index, kAllVersions);
      v.field(leader_id, kAllVersions);
      v.field(leader_epoch, since(7));
      v.field(replica_nodes, kAllVersions);
      v.field(isr_nodes, kAllVersions);
      v.field(offline_replicas, since(5));
    }
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    int16_t error_code = 0;
    std::optional<std::string> name;
    Uuid topic_id{};
    bool is_internal = false;
    std::vector<Partition> partitions;
    int32_t topic_authorized_operations = INT32_MIN;
    template <typename V>
    void visit(V& v) {
      v.field(error_code, kAllVersions);
      v.field(name, kAllVersions, since(12));
      v.field(topic_id, since(10));
      v.field(is_internal, since(1));
      v.field(partitions, kAllVersions);
      v.field(topic_authorized_operations, since(8));
    }
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Broker> brokers;
  std::optional<std::string> cluster_id;
  int32_t controller_id = -1;
  std::vector<Topic> topics;
  int32_t cluster_authorized_operations = INT32_MIN;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, since(3));
    v.field(brokers, kAllVersions);
    v.field(cluster_id, since(2), since(2));
    v.field(controller_id, since(1));
    v.field(topics, kAllVersions);
    v.field(cluster_authorized_operations, between(8, 10));
  }
  bool operator==(const MetadataResponse&) const = default;
};

}  // namespace strata::kafka
