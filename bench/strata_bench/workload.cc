#include "bench/strata_bench/workload.h"

#include <cerrno>
#include <cstdio>
#include <functional>
#include <map>

#include <yaml-cpp/yaml.h>

#include "bench/strata_bench/message.h"

namespace strata::bench {

std::vector<std::string> Workload::topic_names() const {
  std::vector<std::string> names;
  for (int i = 0; i < topics; ++i)
    names.push_back(topic_prefix + "-" + std::to_string(i));
  return names;
}

std::vector<std::string> Workload::group_names() const {
  std::vector<std::string> names;
  for (int i = 0; i < groups; ++i)
    names.push_back(topic_prefix + "-g" + std::to_string(i));
  return names;
}

namespace {

Status range_error(std::string_view field, std::string_view want) {
  return Error(Errc::kInvalidArgument,
               "workload: " + std::string(field) + " must be " + std::string(want));
}

bool valid_prefix(const std::string& s) {
  if (s.empty() || s.size() > 200) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Status Workload::validate() const {
  if (!valid_prefix(topic_prefix))
    return range_error("topic_prefix", "1-200 characters of [A-Za-z0-9_-]");
  if (topics < 1 || topics > 1000) return range_error("topics", "in [1, 1000]");
  if (partitions < 1 || partitions > 10000) return range_error("partitions", "in [1, 10000]");
  if (replication_factor != -1 && (replication_factor < 1 || replication_factor > 100))
    return range_error("replication_factor", "in [1, 100], or -1 for the broker's default");
  if (message_size < kMinMessageSize || message_size > (16 << 20))
    return range_error("message_size",
                       "in [" + std::to_string(kMinMessageSize) + ", 16 MiB] bytes (the first " +
                           std::to_string(kMinMessageSize) + " carry the latency stamp)");
  if (keys != KeyDistribution::kNone && (key_count < 1 || key_count > 100'000'000))
    return range_error("key_count", "in [1, 100000000]");
  if (producers < 1 || producers > 1000) return range_error("producers", "in [1, 1000]");
  if (!(rate >= 0) || rate > 1e9)
    return range_error("rate", "a msg/s figure >= 0 (0: unthrottled)");
  if (acks != "0" && acks != "1" && acks != "all") return range_error("acks", "0, 1 or all");
  if (linger_ms < 0 || linger_ms > 60'000) return range_error("linger_ms", "in [0, 60000]");
  if (batch_bytes < 1024 || batch_bytes > (256 << 20))
    return range_error("batch_bytes", "in [1 KiB, 256 MiB]");
  if (groups < 0 || groups > 100) return range_error("groups", "in [0, 100]");
  if (consumers_per_group < 1 || consumers_per_group > 1000)
    return range_error("consumers_per_group", "in [1, 1000]");
  if (!(warmup_s >= 0) || warmup_s > 3600) return range_error("warmup_s", "in [0, 3600] seconds");
  if (!(duration_s > 0) || duration_s > 3600)
    return range_error("duration_s", "in (0, 3600] seconds");
  if (!(drain_timeout_s >= 0) || drain_timeout_s > 3600)
    return range_error("drain_timeout_s", "in [0, 3600] seconds");
  return ok_status();
}

std::string_view key_distribution_name(KeyDistribution k) {
  switch (k) {
    case KeyDistribution::kNone: return "none";
    case KeyDistribution::kUniform: return "uniform";
    case KeyDistribution::kSequential: return "sequential";
  }
  return "?";
}

Result<KeyDistribution> parse_key_distribution(std::string_view s) {
  if (s == "none") return KeyDistribution::kNone;
  if (s == "uniform") return KeyDistribution::kUniform;
  if (s == "sequential") return KeyDistribution::kSequential;
  return Error(Errc::kInvalidArgument,
               "workload: keys must be none, uniform or sequential, not '" + std::string(s) + "'");
}

Result<Workload> parse_workload_yaml(const std::string& text) {
  Workload w;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Error(Errc::kInvalidArgument, std::string("workload: not YAML: ") + e.what());
  }
  if (root.IsNull()) return w;
  if (!root.IsMap()) return Error(Errc::kInvalidArgument, "workload: expected a mapping of keys");

  // Each key reads into one field; a wrong type names the key.
  using Setter = std::function<Status(const YAML::Node&)>;
  auto as = [](auto& field) -> Setter {
    return [p = &field](const YAML::Node& n) -> Status {
      *p = n.as<std::remove_reference_t<decltype(*p)>>();
      return ok_status();
    };
  };
  std::map<std::string, Setter> setters = {
      {"name", as(w.name)},
      {"topic_prefix", as(w.topic_prefix)},
      {"topics", as(w.topics)},
      {"partitions", as(w.partitions)},
      {"replication_factor", as(w.replication_factor)},
      {"message_size", as(w.message_size)},
      {"keys",
       [&w](const YAML::Node& n) -> Status {
         STRATA_ASSIGN_OR_RETURN(w.keys, parse_key_distribution(n.as<std::string>()));
         return ok_status();
       }},
      {"key_count", as(w.key_count)},
      {"keep_topics", as(w.keep_topics)},
      {"producers", as(w.producers)},
      {"rate", as(w.rate)},
      {"acks", as(w.acks)},
      {"linger_ms", as(w.linger_ms)},
      {"batch_bytes", as(w.batch_bytes)},
      {"groups", as(w.groups)},
      {"consumers_per_group", as(w.consumers_per_group)},
      {"warmup_s", as(w.warmup_s)},
      {"duration_s", as(w.duration_s)},
      {"drain_timeout_s", as(w.drain_timeout_s)},
  };
  for (const auto& kv : root) {
    std::string key;
    try {
      key = kv.first.as<std::string>();
    } catch (const YAML::Exception&) {
      return Error(Errc::kInvalidArgument, "workload: keys must be strings");
    }
    auto it = setters.find(key);
    if (it == setters.end())
      return Error(Errc::kInvalidArgument, "workload: unknown key '" + key + "'");
    try {
      STRATA_TRY(it->second(kv.second));
    } catch (const YAML::Exception&) {
      return Error(Errc::kInvalidArgument, "workload: bad value for '" + key + "'");
    }
  }
  STRATA_TRY(w.validate());
  return w;
}

Result<Workload> load_workload_yaml(const std::string& path) {
  std::string text;
  {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return Error::io(errno, "workload: open " + path);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
      text.append(buf, n);
    bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) return Error(Errc::kIoError, "workload: read " + path);
  }
  auto w = parse_workload_yaml(text);
  if (!w) return Error(w.error().code(), path + ": " + w.error().message());
  return w;
}

}  // namespace strata::bench
