#include "coordinator/broker_config_store.h"

#include <charconv>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace strata::coordinator {
namespace {

constexpr std::string_view kPrefix = "/strata/config/brokers/";
constexpr std::string_view kDefaultScope = "<default>";

std::string key_of(const BrokerScope& scope) {
  return std::string(kPrefix) +
         (scope.node_id ? std::to_string(*scope.node_id) : std::string(kDefaultScope));
}

std::string describe(const BrokerScope& scope) {
  return scope.node_id ? fmt::format("broker {}", *scope.node_id) : "the cluster default";
}

}  // namespace

const ConfigMap& DynamicBrokerConfigs::of(const BrokerScope& scope) const {
  static const ConfigMap kEmpty;
  if (!scope.node_id) return cluster_default;
  auto it = per_broker.find(*scope.node_id);
  return it == per_broker.end() ? kEmpty : it->second;
}

Result<std::unique_ptr<BrokerConfigStore>> BrokerConfigStore::open(MetadataStore& store) {
  std::unique_ptr<BrokerConfigStore> s(new BrokerConfigStore(store));
  STRATA_TRY(s->refresh());
  return s;
}

Status BrokerConfigStore::refresh() {
  STRATA_ASSIGN_OR_RETURN(auto entries, store_.list(std::string(kPrefix)));
  return apply(entries);
}

Status BrokerConfigStore::apply(const std::vector<Entry>& entries) {
  std::lock_guard lock(mu_);
  auto next = std::make_shared<DynamicBrokerConfigs>();
  for (const auto& e : entries) {
    if (!e.key.starts_with(kPrefix)) continue;
    std::string_view scope = std::string_view(e.key).substr(kPrefix.size());
    ConfigMap configs;
    try {
      configs = nlohmann::json::parse(e.value).get<ConfigMap>();
    } catch (const nlohmann::json::exception& ex) {
      return Error(Errc::kCorruption,
                   fmt::format("broker config record {} is not valid: {}", e.key, ex.what()));
    }
    if (scope == kDefaultScope) {
      next->cluster_default = std::move(configs);
      continue;
    }
    int32_t id = -1;
    auto [ptr, ec] = std::from_chars(scope.data(), scope.data() + scope.size(), id);
    if (ec != std::errc() || ptr != scope.data() + scope.size() || id < 0) {
      return Error(Errc::kCorruption,
                   fmt::format("broker config record {} names no broker", e.key));
    }
    next->per_broker[id] = std::move(configs);
  }
  std::atomic_store(&snapshot_, std::shared_ptr<const DynamicBrokerConfigs>(std::move(next)));
  return ok_status();
}

Status BrokerConfigStore::set(const BrokerScope& scope, const ConfigMap& configs) {
  std::lock_guard lock(mu_);
  std::string key = key_of(scope);
  if (configs.empty()) {
    auto st = store_.erase(key, MetadataStore::kAny);
    if (!st && st.error().code() != Errc::kNotFound) return st;
  } else {
    STRATA_TRY(store_.put(key, nlohmann::json(configs).dump(), MetadataStore::kAny));
  }
  auto next = std::make_shared<DynamicBrokerConfigs>(*snapshot());
  if (scope.node_id) {
    if (configs.empty()) {
      next->per_broker.erase(*scope.node_id);
    } else {
      next->per_broker[*scope.node_id] = configs;
    }
  } else {
    next->cluster_default = configs;
  }
  std::atomic_store(&snapshot_, std::shared_ptr<const DynamicBrokerConfigs>(std::move(next)));
  spdlog::info("dynamic configs of {} now: {}", describe(scope), nlohmann::json(configs).dump());
  return ok_status();
}

}  // namespace strata::coordinator
