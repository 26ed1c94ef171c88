// strata topic create|list|describe|alter|delete|elect-leaders
#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "server/kafka/error_code.h"
#include "server/kafka/messages/describe_log_dirs.h"
#include "server/kafka/messages/elect_leaders.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "tools/time_spec.h"
#include "tools/wire.h"

namespace strata::tools {
namespace {

Result<std::map<std::string, std::string>> parse_configs(const std::vector<std::string>& kvs) {
  std::map<std::string, std::string> out;
  for (const auto& kv : kvs) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Error(Errc::kInvalidArgument, fmt::format("--config expects key=value, got '{}'", kv));
    }
    out[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return out;
}

std::string join(const std::vector<int32_t>& v) {
  std::string s;
  for (auto x : v)
    s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

struct ConfigEntry {
  std::string name;
  std::string value;
  std::string source;
  bool is_default = false;
};

Result<std::vector<ConfigEntry>> describe_configs(Kafka& k, const std::string& topic) {
  rd_kafka_ConfigResource_t* res =
      rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str());
  STRATA_ASSIGN_OR_RETURN(
      auto ev, k.admin(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS,
                       [&](auto* o, auto* q) { rd_kafka_DescribeConfigs(k.rk(), &res, 1, o, q); }));
  rd_kafka_ConfigResource_destroy(res);
  size_t n = 0;
  const auto** results = rd_kafka_DescribeConfigs_result_resources(
      rd_kafka_event_DescribeConfigs_result(ev.get()), &n);
  if (n != 1) return Error(Errc::kInternal, "DescribeConfigs returned no resource");
  if (auto e = rd_kafka_ConfigResource_error(results[0])) {
    return kafka_error(e, "describe configs of " + topic,
                       rd_kafka_ConfigResource_error_string(results[0]));
  }
  size_t cnt = 0;
  const auto** entries = rd_kafka_ConfigResource_configs(results[0], &cnt);
  std::vector<ConfigEntry> out;
  for (size_t i = 0; i < cnt; ++i) {
    const char* v = rd_kafka_ConfigEntry_value(entries[i]);
    out.push_back({rd_kafka_ConfigEntry_name(entries[i]), v ? v : "",
                   rd_kafka_ConfigSource_name(rd_kafka_ConfigEntry_source(entries[i])),
                   rd_kafka_ConfigEntry_is_default(entries[i]) != 0});
  }
  return out;
}

// One replica of a partition as its broker's DescribeLogDirs gives it, or
// why it could not be asked.
struct ReplicaOnDisk {
  int32_t broker = -1;
  std::optional<kafka::DescribeLogDirsResponse::Partition> log;
  std::string error;
};

// Asks every broker holding a replica of `topic` for its replicas on disk;
// a broker that cannot be asked is reported, not fatal.
std::map<int32_t, std::vector<ReplicaOnDisk>> replicas_on_disk(const Globals& g,
                                                               const Kafka::Metadata& md,
                                                               const Kafka::Topic& topic) {
  std::map<int32_t, std::vector<ReplicaOnDisk>> out;
  kafka::DescribeLogDirsRequest req;
  auto& asked = req.topics.emplace().emplace_back();
  asked.topic = topic.name;
  for (const auto& p : topic.partitions)
    asked.partitions.push_back(p.id);
  for (const auto& b : md.brokers) {
    bool holds = false;
    for (const auto& p : topic.partitions)
      holds = holds || std::find(p.replicas.begin(), p.replicas.end(), b.id) != p.replicas.end();
    if (!holds) continue;
    auto resp = wire_call<kafka::DescribeLogDirsRequest, kafka::DescribeLogDirsResponse>(
        g, broker_address(b), req, 4);
    for (const auto& p : topic.partitions) {
      if (std::find(p.replicas.begin(), p.replicas.end(), b.id) == p.replicas.end()) continue;
      ReplicaOnDisk r{b.id, std::nullopt, ""};
      if (!resp) {
        r.error = resp.error().message();
      } else {
        for (const auto& dir : resp->results) {
          for (const auto& t : dir.topics) {
            if (t.name != topic.name) continue;
            for (const auto& rp : t.partitions)
              if (rp.partition_index == p.id) r.log = rp;
          }
        }
        if (!r.log) r.error = "not on disk there (yet)";
      }
      out[p.id].push_back(std::move(r));
    }
  }
  return out;
}

std::string human_bytes(int64_t n) {
  if (n < 1024) return fmt::format("{} B", n);
  if (n < (1 << 20)) return fmt::format("{:.1f} KiB", static_cast<double>(n) / 1024);
  if (n < (1 << 30)) return fmt::format("{:.1f} MiB", static_cast<double>(n) / (1 << 20));
  return fmt::format("{:.2f} GiB", static_cast<double>(n) / (1 << 30));
}

double dirty_ratio(const kafka::DescribeLogDirsResponse::Partition& p) {
  int64_t total = p.dirty_bytes + p.clean_bytes;
  return total <= 0 ? 0.0 : static_cast<double>(p.dirty_bytes) / static_cast<double>(total);
}

Status create(const Globals& g, const std::string& name, int partitions, int rf,
              const std::vector<std::string>& config_kvs) {
  STRATA_ASSIGN_OR_RETURN(auto configs, parse_configs(config_kvs));
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  STRATA_ASSIGN_OR_RETURN(auto results, k->create_topics({{name, partitions, rf, configs}}));
  STRATA_TRY(first_failure(results, "create topic"));
  if (g.json) {
    print_json({{"created", name},
                {"partitions", partitions},
                {"replication_factor", rf},
                {"configs", configs}});
  } else {
    std::printf("created topic %s with %d partition(s)\n", name.c_str(), partitions);
  }
  return ok_status();
}

Status list(const Globals& g, bool all) {
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  STRATA_ASSIGN_OR_RETURN(auto md, k->metadata());
  nlohmann::json j = nlohmann::json::array();
  Table t({"TOPIC", "PARTITIONS", "REPLICAS"});
  for (const auto& topic : md.topics) {
    if (!all && topic.name.starts_with("__")) continue;
    size_t rf = topic.partitions.empty() ? 0 : topic.partitions[0].replicas.size();
    j.push_back({{"topic", topic.name},
                 {"partitions", topic.partitions.size()},
                 {"replication_factor", rf}});
    t.add({topic.name, std::to_string(topic.partitions.size()), std::to_string(rf)});
  }
  if (g.json) {
    print_json(j);
  } else {
    t.print();
  }
  return ok_status();
}

Status describe_topic(const Globals& g, const std::string& name) {
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  // One metadata request: the topic's partitions and the brokers to ask.
  STRATA_ASSIGN_OR_RETURN(auto md, k->metadata(name));
  if (md.topics.empty()) return Error(Errc::kNotFound, fmt::format("unknown topic '{}'", name));
  const auto& topic = md.topics.front();
  STRATA_ASSIGN_OR_RETURN(auto configs, describe_configs(*k, name));
  auto on_disk = replicas_on_disk(g, md, topic);
  bool compacted = false;
  for (const auto& [p, rs] : on_disk)
    for (const auto& r : rs)
      compacted = compacted || (r.log && r.log->dirty_bytes >= 0);
  // Each replica's size and, on compacted topics, its cleaning.
  std::vector<std::string> disk_headers = {"PARTITION", "BROKER", "SIZE", "LAG"};
  if (compacted) {
    for (const char* h : {"DIRTY", "FAILURES", "LAST CLEANED", "LAST CLEANING"})
      disk_headers.push_back(h);
  }
  Table disk(disk_headers);
  auto disk_json = [&](int32_t partition) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : on_disk[partition]) {
      if (!r.log) {
        j.push_back({{"broker", r.broker}, {"error", r.error}});
        disk.add({std::to_string(partition), std::to_string(r.broker), "?", "?"});
        if (!g.json) {
          std::fprintf(stderr, "warning: partition %d on broker %d: %s\n", partition, r.broker,
                       r.error.c_str());
        }
        continue;
      }
      const auto& l = *r.log;
      nlohmann::json e = {
          {"broker", r.broker}, {"size_bytes", l.partition_size}, {"offset_lag", l.offset_lag}};
      std::vector<std::string> row = {std::to_string(partition), std::to_string(r.broker),
                                      human_bytes(l.partition_size), std::to_string(l.offset_lag)};
      if (l.dirty_bytes >= 0) {
        e["dirty_bytes"] = l.dirty_bytes;
        e["clean_bytes"] = l.clean_bytes;
        e["dirty_ratio"] = dirty_ratio(l);
        e["last_cleaned_ms"] = l.last_cleaned_ms;
        e["last_cleaning"] = l.last_cleaning;
        e["cleaning_failures"] = l.cleaning_failures;
        row.push_back(fmt::format("{:.0f}%", 100 * dirty_ratio(l)));
        row.push_back(std::to_string(l.cleaning_failures));
        row.push_back(l.last_cleaned_ms > 0 ? format_time(l.last_cleaned_ms) : "never");
        row.push_back(l.last_cleaning.empty() ? "-" : l.last_cleaning);
      }
      j.push_back(std::move(e));
      disk.add(std::move(row));
    }
    return j;
  };
  nlohmann::json parts = nlohmann::json::array();
  Table t({"PARTITION", "LEADER", "REPLICAS", "ISR", "START", "END"});
  for (const auto& p : topic.partitions) {
    if (p.leader < 0) {
      // Offline (its only replicas are down): no one can give its offsets.
      parts.push_back({{"partition", p.id},
                       {"leader", p.leader},
                       {"replicas", p.replicas},
                       {"isr", p.isrs},
                       {"offline", true},
                       {"replicas_on_disk", disk_json(p.id)}});
      t.add({std::to_string(p.id), "offline", join(p.replicas), join(p.isrs), "-", "-"});
      continue;
    }
    STRATA_ASSIGN_OR_RETURN(auto wm, k->watermarks(name, p.id));
    parts.push_back({{"partition", p.id},
                     {"leader", p.leader},
                     {"replicas", p.replicas},
                     {"isr", p.isrs},
                     {"start_offset", wm.first},
                     {"end_offset", wm.second},
                     {"replicas_on_disk", disk_json(p.id)}});
    t.add({std::to_string(p.id), std::to_string(p.leader), join(p.replicas), join(p.isrs),
           std::to_string(wm.first), std::to_string(wm.second)});
  }
  nlohmann::json cfg = nlohmann::json::object();
  Table c({"CONFIG", "VALUE", "SOURCE"});
  for (const auto& e : configs) {
    cfg[e.name] = {{"value", e.value}, {"source", e.source}, {"default", e.is_default}};
    c.add({e.name, e.value, e.source});
  }
  if (g.json) {
    print_json({{"topic", name}, {"partitions", parts}, {"configs", cfg}});
    return ok_status();
  }
  std::printf("topic %s: %zu partition(s)\n\n", name.c_str(), topic.partitions.size());
  t.print();
  std::printf("\n");
  disk.print();
  std::printf("\n");
  c.print();
  return ok_status();
}

Status alter(const Globals& g, const std::string& name, int partitions,
             const std::vector<std::string>& set_kvs, const std::vector<std::string>& unset) {
  if (partitions <= 0 && set_kvs.empty() && unset.empty()) {
    return Error(Errc::kInvalidArgument,
                 "nothing to alter: give --partitions, --config or --delete-config");
  }
  STRATA_ASSIGN_OR_RETURN(auto changes, parse_configs(set_kvs));
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  STRATA_ASSIGN_OR_RETURN(auto topic, k->topic(name));
  if (partitions > 0) {
    char err[512];
    auto* np =
        rd_kafka_NewPartitions_new(name.c_str(), static_cast<size_t>(partitions), err, sizeof(err));
    if (np == nullptr) return Error(Errc::kInvalidArgument, err);
    auto ev = k->admin(RD_KAFKA_ADMIN_OP_CREATEPARTITIONS,
                       [&](auto* o, auto* q) { rd_kafka_CreatePartitions(k->rk(), &np, 1, o, q); });
    rd_kafka_NewPartitions_destroy(np);
    if (!ev) return std::move(ev).error();
    size_t n = 0;
    const auto** res = rd_kafka_CreatePartitions_result_topics(
        rd_kafka_event_CreatePartitions_result(ev->get()), &n);
    if (n == 1 && rd_kafka_topic_result_error(res[0])) {
      return kafka_error(rd_kafka_topic_result_error(res[0]), "add partitions to " + name,
                         rd_kafka_topic_result_error_string(res[0]));
    }
  }
  if (!changes.empty() || !unset.empty()) {
    // AlterConfigs replaces every override: start from the current ones.
    STRATA_ASSIGN_OR_RETURN(auto current, describe_configs(*k, name));
    std::map<std::string, std::string> overrides;
    for (const auto& e : current) {
      if (e.source == "DYNAMIC_TOPIC_CONFIG") overrides[e.name] = e.value;
    }
    for (const auto& u : unset)
      overrides.erase(u);
    for (const auto& [key, v] : changes)
      overrides[key] = v;
    auto* res = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, name.c_str());
    for (const auto& [key, v] : overrides)
      rd_kafka_ConfigResource_set_config(res, key.c_str(), v.c_str());
    auto ev = k->admin(RD_KAFKA_ADMIN_OP_ALTERCONFIGS,
                       [&](auto* o, auto* q) { rd_kafka_AlterConfigs(k->rk(), &res, 1, o, q); });
    rd_kafka_ConfigResource_destroy(res);
    if (!ev) return std::move(ev).error();
    size_t n = 0;
    const auto** out =
        rd_kafka_AlterConfigs_result_resources(rd_kafka_event_AlterConfigs_result(ev->get()), &n);
    if (n == 1 && rd_kafka_ConfigResource_error(out[0])) {
      return kafka_error(rd_kafka_ConfigResource_error(out[0]), "alter configs of " + name,
                         rd_kafka_ConfigResource_error_string(out[0]));
    }
  }
  if (g.json) {
    print_json({{"altered", name}});
  } else {
    std::printf("altered topic %s\n", name.c_str());
  }
  return ok_status();
}

Status remove_topics(const Globals& g, const std::vector<std::string>& names) {
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  STRATA_ASSIGN_OR_RETURN(auto results, k->delete_topics(names));
  if (!g.json) {
    for (const auto& r : results)
      if (r.error == RD_KAFKA_RESP_ERR_NO_ERROR) std::printf("deleted topic %s\n", r.name.c_str());
  }
  STRATA_TRY(first_failure(results, "delete topic"));
  if (g.json) print_json({{"deleted", names}});
  return ok_status();
}

// "topic" (each of its partitions) or "topic:partition", grouped by topic.
Result<std::vector<kafka::ElectLeadersRequest::Topic>> election_targets(
    Kafka& k, const std::vector<std::string>& targets) {
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const auto& target : targets) {
    auto colon = target.rfind(':');
    if (colon == std::string::npos) {
      STRATA_ASSIGN_OR_RETURN(auto t, k.topic(target));
      for (const auto& p : t.partitions)
        by_topic[target].push_back(p.id);
      continue;
    }
    std::string topic = target.substr(0, colon);
    std::string number = target.substr(colon + 1);
    int32_t partition = -1;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), partition);
    if (topic.empty() || ec != std::errc() || end != number.data() + number.size() ||
        partition < 0) {
      return Error(Errc::kInvalidArgument,
                   fmt::format("'{}': expected TOPIC or TOPIC:PARTITION", target));
    }
    by_topic[topic].push_back(partition);
  }
  std::vector<kafka::ElectLeadersRequest::Topic> out;
  for (auto& [topic, partitions] : by_topic) {
    std::sort(partitions.begin(), partitions.end());
    partitions.erase(std::unique(partitions.begin(), partitions.end()), partitions.end());
    out.push_back({topic, std::move(partitions)});
  }
  return out;
}

// ElectLeaders through the bootstrap broker (any broker relays it to the
// controller). With no targets, every partition whose preferred replica
// does not lead.
Status elect_leaders(const Globals& g, const std::vector<std::string>& targets,
                     const std::string& type) {
  kafka::ElectLeadersRequest req;
  if (type == "preferred") {
    req.election_type = kafka::ElectLeadersRequest::kPreferred;
  } else if (type == "unclean") {
    req.election_type = kafka::ElectLeadersRequest::kUnclean;
  } else {
    return Error(Errc::kInvalidArgument,
                 fmt::format("--type {}: expected preferred or unclean", type));
  }
  if (!targets.empty()) {
    STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
    STRATA_ASSIGN_OR_RETURN(req.topic_partitions, election_targets(*k, targets));
  }
  req.timeout_ms = g.timeout_ms();
  std::string hostport = first_bootstrap(g);
  STRATA_ASSIGN_OR_RETURN(auto resp,
                          (wire_call<kafka::ElectLeadersRequest, kafka::ElectLeadersResponse>(
                              g, hostport, req, kafka::ElectLeadersRequest::kMaxVersion)));
  if (resp.error_code != 0) {
    return Error(Errc::kIoError,
                 fmt::format("elect leaders: {}",
                             kafka::error_name(static_cast<kafka::ErrorCode>(resp.error_code))));
  }
  // ELECTION_NOT_NEEDED is no failure: the replica asked for leads already.
  const int16_t not_needed = kafka::code(kafka::ErrorCode::kElectionNotNeeded);
  nlohmann::json rows = nlohmann::json::array();
  Table t({"TOPIC", "PARTITION", "RESULT"});
  std::string failed;
  size_t elected = 0;
  for (const auto& topic : resp.results) {
    for (const auto& p : topic.partitions) {
      std::string error =
          p.error_code == 0
              ? ""
              : std::string(kafka::error_name(static_cast<kafka::ErrorCode>(p.error_code)));
      std::string message = p.error_message.value_or("");
      std::string result = p.error_code == 0 ? "elected" : error + ": " + message;
      if (p.error_code == 0) ++elected;
      if (p.error_code != 0 && p.error_code != not_needed && failed.empty())
        failed = fmt::format("{}-{}: {}", topic.topic, p.partition_id, result);
      rows.push_back({{"topic", topic.topic},
                      {"partition", p.partition_id},
                      {"elected", p.error_code == 0},
                      {"error", error},
                      {"message", message}});
      t.add({topic.topic, std::to_string(p.partition_id), result});
    }
  }
  if (g.json) {
    print_json({{"partitions", rows}});
  } else if (rows.empty()) {
    std::printf("no election needed: every preferred replica leads or cannot lead\n");
  } else {
    t.print();
    std::printf("%zu leader(s) elected\n", elected);
  }
  if (!failed.empty()) return Error(Errc::kUnavailable, "elect leaders: " + failed);
  return ok_status();
}

}  // namespace

void add_topic_commands(CLI::App& app, Globals& g, Action& action) {
  auto* topic = app.add_subcommand(
      "topic", "Create, list, describe, alter and delete topics; elect their leaders");
  topic->require_subcommand(1);

  auto* c = topic->add_subcommand("create", "Create a topic");
  auto name = std::make_shared<std::string>();
  auto partitions = std::make_shared<int>(1);
  auto rf = std::make_shared<int>(1);
  auto configs = std::make_shared<std::vector<std::string>>();
  c->add_option("name", *name, "Topic name")->required();
  c->add_option("-p,--partitions", *partitions, "Number of partitions (default 1)")
      ->check(CLI::PositiveNumber);
  c->add_option("-r,--replication-factor", *rf, "Replicas per partition (default 1)")
      ->check(CLI::PositiveNumber);
  c->add_option("-c,--config", *configs,
                "Topic config key=value, e.g. retention.ms=3600000 (repeatable)");
  c->callback([&, name, partitions, rf, configs] {
    action = [&g, name, partitions, rf, configs] {
      return create(g, *name, *partitions, *rf, *configs);
    };
  });

  auto* l = topic->add_subcommand("list", "List topics");
  auto all = std::make_shared<bool>(false);
  l->add_flag("-a,--all", *all, "Include internal topics");
  l->callback([&, all] { action = [&g, all] { return list(g, *all); }; });

  auto* d = topic->add_subcommand(
      "describe",
      "Partitions (leaders, replicas, ISR, start and end offsets), each replica's size on disk "
      "and compaction (dirty ratio, last cleaning), and configs");
  auto dname = std::make_shared<std::string>();
  d->add_option("name", *dname, "Topic name")->required();
  d->callback([&, dname] { action = [&g, dname] { return describe_topic(g, *dname); }; });

  auto* a = topic->add_subcommand("alter", "Add partitions, set or remove configs");
  auto aname = std::make_shared<std::string>();
  auto apart = std::make_shared<int>(0);
  auto aset = std::make_shared<std::vector<std::string>>();
  auto aunset = std::make_shared<std::vector<std::string>>();
  a->add_option("name", *aname, "Topic name")->required();
  a->add_option("-p,--partitions", *apart, "New total number of partitions")
      ->check(CLI::PositiveNumber);
  a->add_option("-c,--config", *aset, "Set a config key=value (repeatable)");
  a->add_option("--delete-config", *aunset, "Remove a config override (repeatable)");
  a->callback([&, aname, apart, aset, aunset] {
    action = [&g, aname, apart, aset, aunset] { return alter(g, *aname, *apart, *aset, *aunset); };
  });

  auto* r = topic->add_subcommand("delete", "Delete topics");
  auto rnames = std::make_shared<std::vector<std::string>>();
  r->add_option("names", *rnames, "Topic names")->required();
  r->callback([&, rnames] { action = [&g, rnames] { return remove_topics(g, *rnames); }; });

  auto* e = topic->add_subcommand(
      "elect-leaders",
      "Move leadership back to each partition's preferred replica (the first of its replicas), "
      "or with --type unclean to any live replica of a partition no in-sync replica can lead");
  auto etargets = std::make_shared<std::vector<std::string>>();
  auto etype = std::make_shared<std::string>("preferred");
  e->add_option("targets", *etargets,
                "TOPIC (each of its partitions) or TOPIC:PARTITION; none: every partition");
  e->add_option("--type", *etype, "preferred (default) or unclean");
  e->callback([&, etargets, etype] {
    action = [&g, etargets, etype] { return elect_leaders(g, *etargets, *etype); };
  });
}

}  // namespace strata::tools
