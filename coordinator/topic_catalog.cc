#include "coordinator/topic_catalog.h"

#include <charconv>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "coordinator/broker_registration.h"
#include "coordinator/partition_placement.h"
#include "engine/topic_config.h"

namespace strata::coordinator {
namespace {

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

// A topic record holds no states: each partition's is under its own key.
std::string encode(const TopicInfo& t) {
  nlohmann::json j = {{"name", t.name},
                      {"id", hex(t.id)},
                      {"number", t.number},
                      {"partitions", t.partitions},
                      {"replication_factor", t.replication_factor},
                      {"configs", t.configs},
                      {"internal", t.internal}};
  return j.dump();
}

// A topic record. Records written before partition states had keys carry
// them inline ("states"), or (older still) none: then `self` hosts every
// partition.
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

std::string partition_key(std::string_view topic, int32_t p) {
  return fmt::format("{}{}/{}", kPartitionPrefix, topic, p);
}

std::string partition_state_value(const PartitionState& s) {
  return encode_state(s).dump();
}

// "<topic>/<p>" of a partition key, or nullopt for a key of another shape.
std::optional<std::pair<std::string, int32_t>> parse_partition_key(std::string_view key) {
  auto rest = key.substr(kPartitionPrefix.size());
  auto slash = rest.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return std::nullopt;
  int32_t p = -1;
  auto digits = rest.substr(slash + 1);
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), p);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || p < 0) return std::nullopt;
  return std::make_pair(std::string(rest.substr(0, slash)), p);
}

// Every partition's state, for placement's balance.
std::vector<PartitionState> all_states(const ClusterSnapshot& snap) {
  std::vector<PartitionState> out;
  for (const auto& [name, t] : snap.topics)
    out.insert(out.end(), t->states.begin(), t->states.end());
  return out;
}

}  // namespace

Result<std::unique_ptr<TopicCatalog>> TopicCatalog::open(MetadataStore& store,
                                                         ControllerElection& election,
                                                         int32_t self_id) {
  std::unique_ptr<TopicCatalog> c(new TopicCatalog(store, election, self_id));
  // The first broker of a cluster names it; the others read the name.
  STRATA_ASSIGN_OR_RETURN(auto id, store.get(std::string(kClusterIdKey)));
  if (!id) {
    auto named =
        store.put(std::string(kClusterIdKey), id_to_string(random_id()), MetadataStore::kAbsent);
    if (!named && named.error().code() != Errc::kAlreadyExists) return std::move(named).error();
    if (named) spdlog::info("new cluster");
  }
  STRATA_TRY(c->refresh());
  return c;
}

Status TopicCatalog::refresh() {
  STRATA_ASSIGN_OR_RETURN(auto listing, store_.range(std::string(kRoot)));
  return apply(listing);
}

Status TopicCatalog::apply(const Listing& listing) {
  auto controller = election_.observe(listing.entries);
  if (listing.revision == read_revision_) return ok_status();

  auto next = std::make_shared<ClusterSnapshot>();
  std::map<std::string, TopicInfo, std::less<>> topics;
  std::map<std::string, std::map<int32_t, std::pair<PartitionState, int64_t>>, std::less<>> stored;
  std::map<std::string, Revisions, std::less<>> revisions;
  uint32_t next_number = 1;
  int64_t next_number_version = 0;
  for (const auto& e : listing.entries) {
    std::string_view key = e.key;
    if (key == kClusterIdKey) {
      next->cluster_id = e.value;
    } else if (key == kNextNumberKey) {
      next_number = static_cast<uint32_t>(std::stoul(e.value));
      next_number_version = e.version;
    } else if (key.starts_with(kBrokersPrefix)) {
      auto b = decode_broker(e.value);
      if (!b) {
        spdlog::warn("ignoring broker record {}: {}", e.key, b.error().to_string());
        continue;
      }
      next->brokers.push_back(std::move(b).value());
    } else if (key.starts_with(kTopicPrefix)) {
      STRATA_ASSIGN_OR_RETURN(TopicInfo t, decode(e.value, self_id_));
      revisions[t.name].topic = e.mod_revision;
      std::string name = t.name;
      topics.emplace(std::move(name), std::move(t));
    } else if (key.starts_with(kPartitionPrefix)) {
      auto where = parse_partition_key(key);
      if (!where) continue;
      try {
        stored[where->first][where->second] = {decode_state(nlohmann::json::parse(e.value)),
                                               e.mod_revision};
      } catch (const nlohmann::json::exception& ex) {
        return Error(Errc::kCorruption, fmt::format("{} is not valid: {}", e.key, ex.what()));
      }
    }
  }
  for (auto& [name, t] : topics) {
    next_number = std::max(next_number, t.number + 1);
    auto it = stored.find(name);
    if (it == stored.end()) continue;
    for (auto& [p, state_rev] : it->second) {
      if (p >= t.partitions) continue;  // left by a failed shrink: never read
      t.states[static_cast<size_t>(p)] = state_rev.first;
      revisions[name].partition[p] = state_rev.second;
    }
  }
  std::sort(next->brokers.begin(), next->brokers.end(),
            [](const BrokerInfo& a, const BrokerInfo& b) { return a.node_id < b.node_id; });
  next->controller_id = controller ? controller->node_id : -1;
  for (auto& [name, t] : topics)
    next->topics.emplace(name, std::make_shared<const TopicInfo>(std::move(t)));
  next->version = static_cast<uint64_t>(listing.revision);

  read_revision_ = listing.revision;
  next_number_ = next_number;
  next_number_version_ = next_number_version;
  revisions_ = std::move(revisions);
  std::atomic_store(&snapshot_, std::shared_ptr<const ClusterSnapshot>(std::move(next)));
  return ok_status();
}

Status TopicCatalog::write(Txn txn, std::string_view what, bool refresh_after) {
  STRATA_ASSIGN_OR_RETURN(auto r, election_.guarded_txn(std::move(txn)));
  if (!r.succeeded) {
    (void)refresh();
    return Error(Errc::kUnavailable,
                 fmt::format("{}: the cluster metadata changed meanwhile; try again", what));
  }
  return refresh_after ? refresh() : ok_status();
}

// What one transaction may hold besides the controller guard's compare.
size_t TopicCatalog::txn_budget() const {
  return store_.max_txn_ops() - 1;
}

Result<size_t> TopicCatalog::write_states_ahead(const std::string& name,
                                                const std::vector<PartitionState>& states,
                                                size_t from, size_t keep, const Compare& guard) {
  // Partition states of a partition the topic record does not count yet are
  // never read (apply() skips them), so they can go ahead of the record.
  size_t p = from;
  while (states.size() - p > keep) {
    size_t n = std::min(txn_budget(), states.size() - p - keep);
    Txn txn;
    txn.compares = {guard};
    for (size_t i = p; i < p + n; ++i) {
      txn.success.push_back(TxnOp::put(partition_key(name, static_cast<int32_t>(i)),
                                       partition_state_value(states[i])));
    }
    STRATA_TRY(write(std::move(txn), fmt::format("writing partitions of '{}'", name), false));
    p += n;
  }
  return p;
}

Result<std::shared_ptr<const TopicInfo>> TopicCatalog::find(const std::string& name) const {
  auto snap = snapshot();
  auto it = snap->topics.find(name);
  if (it == snap->topics.end()) {
    return Error(Errc::kNotFound, fmt::format("topic '{}' does not exist", name));
  }
  return it->second;
}

Result<std::shared_ptr<const TopicInfo>> TopicCatalog::create_topic(
    const std::string& name, int32_t partitions, int16_t replication_factor,
    const std::map<std::string, std::string>& configs, bool validate_only, bool internal,
    const std::vector<std::vector<int32_t>>& assignments) {
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
                 fmt::format("replication factor {} is not between 1 and the {} live broker(s)",
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
  if (assignments.empty()) {
    STRATA_ASSIGN_OR_RETURN(t.states, place_partitions(snap->brokers, all_states(*snap), partitions,
                                                       replication_factor));
  } else {
    for (const auto& replicas : assignments)
      t.states.push_back(PartitionState{replicas, replicas.front(), 0, replicas, 0});
  }
  if (validate_only) return std::make_shared<const TopicInfo>(std::move(t));

  auto topic_key = std::string(kTopicPrefix) + name;
  auto absent = Compare::create_revision(topic_key, Compare::kEqual, 0);
  // More partitions than one transaction holds: their states go first, and
  // the topic exists once its record lands with the last of them.
  STRATA_ASSIGN_OR_RETURN(size_t first,
                          write_states_ahead(name, t.states, 0, txn_budget() - 2, absent));
  Txn txn;
  txn.compares = {
      absent, Compare::version(std::string(kNextNumberKey), Compare::kEqual, next_number_version_)};
  txn.success = {TxnOp::put(std::string(kNextNumberKey), std::to_string(t.number + 1)),
                 TxnOp::put(topic_key, encode(t))};
  for (size_t p = first; p < t.states.size(); ++p)
    txn.success.push_back(TxnOp::put(partition_key(name, static_cast<int32_t>(p)),
                                     partition_state_value(t.states[p])));
  STRATA_TRY(write(std::move(txn), fmt::format("creating topic '{}'", name)));
  spdlog::info("created topic {} ({} partition(s), id {})", name, partitions, id_to_string(t.id));
  return find(name);
}

Status TopicCatalog::delete_topic(const std::string& name) {
  STRATA_TRY(find(name));
  auto topic_key = std::string(kTopicPrefix) + name;
  Txn txn;
  txn.compares = {Compare::mod_revision(topic_key, Compare::kEqual, revisions_[name].topic)};
  txn.success = {TxnOp::erase(topic_key),
                 TxnOp::erase_prefix(fmt::format("{}{}/", kPartitionPrefix, name))};
  STRATA_TRY(write(std::move(txn), fmt::format("deleting topic '{}'", name)));
  spdlog::info("deleted topic {}", name);
  return ok_status();
}

Status TopicCatalog::add_partitions(const std::string& name, int32_t total, bool validate_only,
                                    const std::vector<std::vector<int32_t>>& assignments) {
  STRATA_ASSIGN_OR_RETURN(auto existing, find(name));
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
  std::vector<PartitionState> added;
  if (assignments.empty()) {
    STRATA_ASSIGN_OR_RETURN(
        added, place_partitions(snap->brokers, all_states(*snap), total - existing->partitions,
                                existing->replication_factor));
  } else {
    for (const auto& replicas : assignments)
      added.push_back(PartitionState{replicas, replicas.front(), 0, replicas, 0});
  }
  if (validate_only) return ok_status();
  TopicInfo t = *existing;
  t.partitions = total;
  auto topic_key = std::string(kTopicPrefix) + name;
  auto unchanged = Compare::mod_revision(topic_key, Compare::kEqual, revisions_[name].topic);
  std::vector<PartitionState> states = existing->states;
  states.insert(states.end(), added.begin(), added.end());
  STRATA_ASSIGN_OR_RETURN(
      size_t first, write_states_ahead(name, states, static_cast<size_t>(existing->partitions),
                                       txn_budget() - 1, unchanged));
  Txn txn;
  txn.compares = {unchanged};
  txn.success = {TxnOp::put(topic_key, encode(t))};
  for (size_t p = first; p < states.size(); ++p) {
    txn.success.push_back(
        TxnOp::put(partition_key(name, static_cast<int32_t>(p)), partition_state_value(states[p])));
  }
  STRATA_TRY(write(std::move(txn), fmt::format("adding partitions to '{}'", name)));
  spdlog::info("topic {} now has {} partitions", name, total);
  return ok_status();
}

Status TopicCatalog::set_configs(const std::string& name,
                                 const std::map<std::string, std::string>& configs,
                                 bool validate_only) {
  STRATA_ASSIGN_OR_RETURN(auto existing, find(name));
  STRATA_TRY(engine::TopicConfig::from_map(configs));
  if (validate_only) return ok_status();
  TopicInfo t = *existing;
  t.configs = configs;
  auto topic_key = std::string(kTopicPrefix) + name;
  Txn txn;
  txn.compares = {Compare::mod_revision(topic_key, Compare::kEqual, revisions_[name].topic)};
  txn.success = {TxnOp::put(topic_key, encode(t))};
  STRATA_TRY(write(std::move(txn), fmt::format("changing the configs of '{}'", name)));
  spdlog::info("topic {} configs changed", name);
  return ok_status();
}

Status TopicCatalog::update_states(const std::vector<StateChange>& changes) {
  if (changes.empty()) return ok_status();
  for (const auto& c : changes) {
    if (revisions_.count(c.topic) == 0) {
      return Error(Errc::kNotFound, fmt::format("topic '{}' does not exist", c.topic));
    }
  }
  // Every part compares with the revisions read before the first was
  // written: a state is written only over the one it was decided on. A
  // change larger than one transaction (a controlled shutdown of a broker
  // leading hundreds of partitions) goes in parts, each whole or not at all.
  const auto revisions = revisions_;
  Txn txn;
  std::set<std::string> topics_compared;
  for (const auto& c : changes) {
    const auto& topic = revisions.at(c.topic);
    bool new_topic = topics_compared.count(c.topic) == 0;
    if (txn.compares.size() + (new_topic ? 2 : 1) > txn_budget()) {
      STRATA_TRY(write(std::move(txn), "changing partition states", false));
      txn = Txn{};
      topics_compared.clear();
      new_topic = true;
    }
    auto key = partition_key(c.topic, c.partition);
    // The topic must still be the one the decision was made on, and the
    // partition's state the one it read (0: not stored yet).
    auto rev = topic.partition.find(c.partition);
    if (new_topic) {
      topics_compared.insert(c.topic);
      txn.compares.push_back(
          Compare::mod_revision(std::string(kTopicPrefix) + c.topic, Compare::kEqual, topic.topic));
    }
    txn.compares.push_back(Compare::mod_revision(key, Compare::kEqual,
                                                 rev == topic.partition.end() ? 0 : rev->second));
    txn.success.push_back(TxnOp::put(key, partition_state_value(c.next)));
  }
  return write(std::move(txn), "changing partition states");
}

std::vector<StateChange> TopicCatalog::unstored_states() const {
  std::vector<StateChange> out;
  auto snap = snapshot();
  for (const auto& [name, t] : snap->topics) {
    auto it = revisions_.find(name);
    for (int32_t p = 0; p < t->partitions; ++p) {
      bool stored = it != revisions_.end() && it->second.partition.count(p) != 0;
      if (!stored) out.push_back({name, p, t->states[static_cast<size_t>(p)]});
    }
  }
  return out;
}

}  // namespace strata::coordinator
