#include "coordinator/topic_catalog.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "coordinator/partition_placement.h"
#include "engine/topic_config.h"

namespace strata::coordinator {
namespace {

constexpr std::string_view kTopicPrefix = "/strata/topics/";
constexpr std::string_view kClusterIdKey = "/strata/cluster/id";
constexpr std::string_view kNextNumberKey = "/strata/cluster/next_topic_number";
constexpr int32_t kMaxPartitions = 100000;

std::string hex(const TopicId& id) {
  std::string s;
  for (uint8_t b : id)
    s += fmt::format("{:02x}", b);
  return s;
}

std::optional<TopicId> unhex(const std::string& s) {
  if (s.size() != 32) return std::nullopt;
  TopicId id{};
  for (size_t i = 0; i < 16; ++i) {
    unsigned v = 0;
    if (std::sscanf(s.c_str() + 2 * i, "%2x", &v) != 1) return std::nullopt;
    id[i] = static_cast<uint8_t>(v);
  }
  return id;
}

// The state of a partition placed on this broker alone.
PartitionState single_replica(int32_t self) {
  return PartitionState{{self}, self, 0, {self}, 0};
}

nlohmann::json encode_state(const PartitionState& s) {
  return {{"replicas", s.replicas},
          {"leader", s.leader},
          {"leader_epoch", s.leader_epoch},
          {"isr", s.isr},
          {"partition_epoch", s.partition_epoch}};
}

PartitionState decode_state(const nlohmann::json& j) {
  PartitionState s;
  s.replicas = j.at("replicas").get<std::vector<int32_t>>();
  s.leader = j.at("leader").get<int32_t>();
  s.leader_epoch = j.at("leader_epoch").get<int32_t>();
  s.isr = j.at("isr").get<std::vector<int32_t>>();
  s.partition_epoch = j.at("partition_epoch").get<int32_t>();
  return s;
}

std::string encode(const TopicInfo& t) {
  nlohmann::json states = nlohmann::json::array();
  for (const auto& s : t.states)
    states.push_back(encode_state(s));
  nlohmann::json j = {{"name", t.name},
                      {"id", hex(t.id)},
                      {"number", t.number},
                      {"partitions", t.partitions},
                      {"replication_factor", t.replication_factor},
                      {"configs", t.configs},
                      {"internal", t.internal},
                      {"states", std::move(states)}};
  return j.dump();
}

// `self`: the broker that hosts every partition of a record written before
// partition states were stored.
Result<TopicInfo> decode(const std::string& value, int32_t self) {
  try {
    auto j = nlohmann::json::parse(value);
    TopicInfo t;
    t.name = j.at("name").get<std::string>();
    auto id = unhex(j.at("id").get<std::string>());
    if (!id) return Error(Errc::kCorruption, "topic record with a bad id");
    t.id = *id;
    t.number = j.at("number").get<uint32_t>();
    t.partitions = j.at("partitions").get<int32_t>();
    t.replication_factor = j.at("replication_factor").get<int16_t>();
    t.configs = j.at("configs").get<std::map<std::string, std::string>>();
    t.internal = j.value("internal", false);
    if (auto it = j.find("states"); it != j.end()) {
      for (const auto& js : *it)
        t.states.push_back(decode_state(js));
    }
    if (t.states.size() > static_cast<size_t>(t.partitions)) {
      return Error(Errc::kCorruption, fmt::format("topic record of '{}' has {} partition states "
                                                  "for {} partitions",
                                                  t.name, t.states.size(), t.partitions));
    }
    while (t.states.size() < static_cast<size_t>(t.partitions))
      t.states.push_back(single_replica(self));
    return t;
  } catch (const nlohmann::json::exception& e) {
    return Error(Errc::kCorruption, fmt::format("topic record is not valid: {}", e.what()));
  }
}

// Every partition's state, for placement's balance.
std::vector<PartitionState> all_states(const ClusterSnapshot& snap) {
  std::vector<PartitionState> out;
  for (const auto& [name, t] : snap.topics)
    out.insert(out.end(), t->states.begin(), t->states.end());
  return out;
}

std::string random_cluster_id() {
  return id_to_string(random_id());
}

}  // namespace

Result<std::unique_ptr<TopicCatalog>> TopicCatalog::open(MetadataStore& store, BrokerInfo self) {
  std::unique_ptr<TopicCatalog> c(new TopicCatalog(store, std::move(self)));
  STRATA_TRY(c->load());
  return c;
}

Status TopicCatalog::load() {
  std::lock_guard lock(mu_);
  STRATA_ASSIGN_OR_RETURN(auto id, store_.get(std::string(kClusterIdKey)));
  if (id) {
    cluster_id_ = id->value;
  } else {
    cluster_id_ = random_cluster_id();
    STRATA_TRY(store_.put(std::string(kClusterIdKey), cluster_id_, MetadataStore::kAbsent));
    spdlog::info("new cluster {}", cluster_id_);
  }
  STRATA_ASSIGN_OR_RETURN(auto next, store_.get(std::string(kNextNumberKey)));
  if (next) next_number_ = static_cast<uint32_t>(std::stoul(next->value));
  std::map<std::string, std::shared_ptr<const TopicInfo>, std::less<>> topics;
  STRATA_ASSIGN_OR_RETURN(auto entries, store_.list(std::string(kTopicPrefix)));
  for (const auto& e : entries) {
    STRATA_ASSIGN_OR_RETURN(TopicInfo t, decode(e.value, self_.node_id));
    next_number_ = std::max(next_number_, t.number + 1);
    versions_[t.name] = e.version;
    std::string name = t.name;  // before t is moved from
    topics.emplace(std::move(name), std::make_shared<const TopicInfo>(std::move(t)));
  }
  publish(std::move(topics));
  return ok_status();
}

void TopicCatalog::publish(
    std::map<std::string, std::shared_ptr<const TopicInfo>, std::less<>> topics) {
  auto old = snapshot();
  auto next = std::make_shared<ClusterSnapshot>();
  next->cluster_id = cluster_id_;
  next->controller_id = self_.node_id;
  next->brokers = {self_};
  next->topics = std::move(topics);
  next->version = old->version + 1;
  std::atomic_store(&snapshot_, std::shared_ptr<const ClusterSnapshot>(std::move(next)));
}

Status TopicCatalog::store_topic(const TopicInfo& t, int64_t expected) {
  STRATA_ASSIGN_OR_RETURN(int64_t version,
                          store_.put(std::string(kTopicPrefix) + t.name, encode(t), expected));
  versions_[t.name] = version;
  return ok_status();
}

Result<std::shared_ptr<const TopicInfo>> TopicCatalog::find_locked(const std::string& name) const {
  auto snap = snapshot();
  auto it = snap->topics.find(name);
  if (it == snap->topics.end()) {
    return Error(Errc::kNotFound, fmt::format("topic '{}' does not exist", name));
  }
  return it->second;
}

Result<std::shared_ptr<const TopicInfo>> TopicCatalog::create_topic(
    const std::string& name, int32_t partitions, int16_t replication_factor,
    const std::map<std::string, std::string>& configs, bool validate_only, bool internal) {
  std::lock_guard lock(mu_);
  if (auto why = invalid_topic_name(name)) return Error(Errc::kInvalidTopic, *why);
  if (!internal && name.starts_with("__")) {
    return Error(Errc::kInvalidTopic,
                 fmt::format("topic names starting with '__' are reserved for internal topics"));
  }
  auto snap = snapshot();
  if (snap->find(name) != nullptr) {
    return Error(Errc::kAlreadyExists, fmt::format("topic '{}' already exists", name));
  }
  // Kafka refuses names that differ only in '.' versus '_': their metrics collide.
  auto normalized = [](std::string s) {
    std::replace(s.begin(), s.end(), '.', '_');
    return s;
  };
  for (const auto& [other, t] : snap->topics) {
    if (normalized(other) == normalized(name)) {
      return Error(Errc::kInvalidTopic,
                   fmt::format("topic '{}' collides with existing topic '{}'", name, other));
    }
  }
  if (partitions < 1 || partitions > kMaxPartitions) {
    return Error(Errc::kInvalidPartitions,
                 fmt::format("number of partitions must be between 1 and {}, not {}",
                             kMaxPartitions, partitions));
  }
  if (replication_factor < 1 || static_cast<size_t>(replication_factor) > snap->brokers.size()) {
    return Error(Errc::kInvalidReplicationFactor,
                 fmt::format("replication factor {} is not between 1 and the {} broker(s)",
                             replication_factor, snap->brokers.size()));
  }
  STRATA_TRY(engine::TopicConfig::from_map(configs));
  TopicInfo t;
  t.name = name;
  t.id = random_id();
  t.number = next_number_;
  t.partitions = partitions;
  t.replication_factor = replication_factor;
  t.configs = configs;
  t.internal = internal;
  STRATA_ASSIGN_OR_RETURN(
      t.states, place_partitions(snap->brokers, all_states(*snap), partitions, replication_factor));
  if (validate_only) return std::make_shared<const TopicInfo>(std::move(t));

  STRATA_TRY(store_.put(std::string(kNextNumberKey), std::to_string(next_number_ + 1),
                        MetadataStore::kAny));
  ++next_number_;
  STRATA_TRY(store_topic(t, MetadataStore::kAbsent));
  auto info = std::make_shared<const TopicInfo>(std::move(t));
  auto topics = snap->topics;
  topics.emplace(name, info);
  publish(std::move(topics));
  spdlog::info("created topic {} ({} partition(s), id {})", name, partitions,
               id_to_string(info->id));
  return info;
}

Status TopicCatalog::delete_topic(const std::string& name) {
  std::lock_guard lock(mu_);
  STRATA_TRY(find_locked(name));
  STRATA_TRY(store_.erase(std::string(kTopicPrefix) + name, versions_[name]));
  versions_.erase(name);
  auto topics = snapshot()->topics;
  topics.erase(name);
  publish(std::move(topics));
  spdlog::info("deleted topic {}", name);
  return ok_status();
}

Status TopicCatalog::add_partitions(const std::string& name, int32_t total, bool validate_only) {
  std::lock_guard lock(mu_);
  STRATA_ASSIGN_OR_RETURN(auto existing, find_locked(name));
  if (total <= existing->partitions) {
    return Error(
        Errc::kInvalidPartitions,
        fmt::format("topic '{}' has {} partition(s); the count can only grow, not become {}", name,
                    existing->partitions, total));
  }
  if (total > kMaxPartitions) {
    return Error(Errc::kInvalidPartitions,
                 fmt::format("number of partitions must be at most {}", kMaxPartitions));
  }
  auto snap = snapshot();
  STRATA_ASSIGN_OR_RETURN(
      auto added, place_partitions(snap->brokers, all_states(*snap), total - existing->partitions,
                                   existing->replication_factor));
  if (validate_only) return ok_status();
  TopicInfo t = *existing;
  t.states.insert(t.states.end(), added.begin(), added.end());
  t.partitions = total;
  STRATA_TRY(store_topic(t, versions_[name]));
  auto topics = snapshot()->topics;
  topics[name] = std::make_shared<const TopicInfo>(std::move(t));
  publish(std::move(topics));
  spdlog::info("topic {} now has {} partitions", name, total);
  return ok_status();
}

Status TopicCatalog::set_configs(const std::string& name,
                                 const std::map<std::string, std::string>& configs,
                                 bool validate_only) {
  std::lock_guard lock(mu_);
  STRATA_ASSIGN_OR_RETURN(auto existing, find_locked(name));
  STRATA_TRY(engine::TopicConfig::from_map(configs));
  if (validate_only) return ok_status();
  TopicInfo t = *existing;
  t.configs = configs;
  STRATA_TRY(store_topic(t, versions_[name]));
  auto topics = snapshot()->topics;
  topics[name] = std::make_shared<const TopicInfo>(std::move(t));
  publish(std::move(topics));
  spdlog::info("topic {} configs changed", name);
  return ok_status();
}

}  // namespace strata::coordinator
