// DescribeConfigs, AlterConfigs and IncrementalAlterConfigs for topics and
// for the BROKER resource (the cluster default, empty name, and this broker).
//
// A topic's configs come with the source of their value: its own override
// (DYNAMIC_TOPIC_CONFIG), a broker synonym set dynamically for this broker
// or the cluster (DYNAMIC_BROKER_CONFIG / DYNAMIC_DEFAULT_BROKER_CONFIG) or
// statically (STATIC_BROKER_CONFIG), or Kafka's default (DEFAULT_CONFIG).
// Altering a broker resource changes its dynamic configs, kept in the
// metadata store and applied to every topic that does not override them.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "server/dynamic_broker_key.h"
#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"
#include "server/kafka_broker_configs.h"
#include "server/shard_state.h"
#include "server/topic_defaults.h"

namespace strata::server::handlers {
namespace {

using kafka::ErrorCode;
using Described = kafka::DescribeConfigsResponse;

// DescribeConfigs config types.
int8_t config_type(std::string_view type) {
  if (type == "boolean") return 1;
  if (type == "string") return 2;
  if (type == "int") return 3;
  if (type == "long") return 5;
  if (type == "double") return 6;
  if (type == "list") return 7;
  if (type == "short") return 4;
  if (type == "class") return 8;
  if (type == "password") return 9;
  return 0;
}

int8_t source_of(ConfigLayer layer) {
  return kafka_config_source(layer);
}

std::optional<std::set<std::string>> wanted_keys(const kafka::DescribeConfigsRequest::Resource& r) {
  // No list and an empty list both ask for every config, as in Kafka.
  std::optional<std::set<std::string>> wanted;
  if (r.configuration_keys && !r.configuration_keys->empty())
    wanted.emplace(r.configuration_keys->begin(), r.configuration_keys->end());
  return wanted;
}

// A resource's answer before its configs are added.
Described::Result described(const kafka::DescribeConfigsRequest::Resource& r) {
  Described::Result out;
  out.resource_type = r.resource_type;
  out.resource_name = r.resource_name;
  out.error_message = "";  // Kafka's answer on success, not null
  return out;
}

Described::Result describe_topic(Services services,
                                 const kafka::DescribeConfigsRequest::Resource& r, bool synonyms,
                                 bool docs) {
  auto out = described(r);
  auto snap = services.cluster.snapshot();
  const auto* topic = snap->find(r.resource_name);
  if (topic == nullptr) {
    out.error_code = kafka::code(ErrorCode::kUnknownTopicOrPartition);
    out.error_message = fmt::format("topic '{}' does not exist", r.resource_name);
    return out;
  }
  auto effective = services.configs.effective_config(*topic).to_map();
  auto kafka_defaults = engine::TopicConfig{}.to_map();
  auto layers = services.configs.topic_default_layers();
  auto wanted = wanted_keys(r);
  for (const auto& def : engine::topic_config_definitions()) {
    std::string name(def.name);
    if (wanted && !wanted->count(name)) continue;
    Described::Config c;
    c.name = name;
    c.value = effective[name];
    auto override = topic->configs.find(name);
    auto set = set_synonyms(layers, name);
    c.config_source = topic_config_source(topic->configs, layers, name);
    c.is_default = c.config_source == kafka::kSourceDefaultConfig;
    c.config_type = config_type(def.type);
    if (docs) c.documentation = std::string(def.doc);
    if (synonyms) {
      if (override != topic->configs.end())
        c.synonyms.push_back({name, override->second, kafka::kSourceTopicConfig});
      for (const auto& s : set)
        c.synonyms.push_back({s.broker_key, s.value, source_of(s.layer)});
      // Kafka's default last, named as Kafka does: by the synonym that has
      // one (log.retention.hours=168 for retention.ms).
      auto names = synonyms_of(name);
      if (names.empty()) {
        c.synonyms.push_back({name, kafka_defaults[name], kafka::kSourceDefaultConfig});
      } else {
        const auto* last = names.back();
        c.synonyms.push_back(
            {std::string(last->broker_key),
             last->unset_value ? std::string(*last->unset_value) : kafka_defaults[name],
             kafka::kSourceDefaultConfig});
      }
    }
    out.configs.push_back(std::move(c));
  }
  return out;
}

// A broker key's own layers, highest first.
std::vector<SetSynonym> layers_of(const TopicDefaultLayers& layers, const std::string& key) {
  std::vector<SetSynonym> out;
  for (auto [map, layer] : {std::pair{&layers.per_broker, ConfigLayer::kDynamicBroker},
                            std::pair{&layers.cluster_default, ConfigLayer::kDynamicDefault},
                            std::pair{&layers.static_props, ConfigLayer::kStatic}}) {
    if (auto it = map->find(key); it != map->end()) out.push_back({key, it->second, layer});
  }
  return out;
}

std::string synonym_doc(const TopicDefaultSynonym& s) {
  const auto* def = engine::find_topic_config(s.topic_key);
  std::string unit = s.unit == 60000 ? " (in minutes)" : s.unit == 3600000 ? " (in hours)" : "";
  return fmt::format("default of the topic config {}{}: {}", s.topic_key, unit,
                     def ? def->doc : "");
}

Described::Result describe_broker(Services services,
                                  const kafka::DescribeConfigsRequest::Resource& r, bool synonyms,
                                  bool docs) {
  auto out = described(r);
  const auto& cfg = services.configs.config();
  auto wanted = wanted_keys(r);
  if (r.resource_name.empty()) {
    // The cluster default lists only what is set there, as Kafka does.
    auto dynamic = services.configs.dynamic_configs();  // held for the loop
    for (const auto& [name, value] : dynamic->cluster_default) {
      if (wanted && !wanted->count(name)) continue;
      Described::Config c;
      c.name = name;
      c.value = value;
      c.config_source = kafka::kSourceDynamicDefaultBrokerConfig;
      if (synonyms) c.synonyms.push_back({name, value, c.config_source});
      if (const auto* s = find_synonym(name)) {
        if (const auto* def = engine::find_topic_config(s->topic_key))
          c.config_type = config_type(def->type);
        if (docs) c.documentation = synonym_doc(*s);
      } else if (const auto* k = find_kafka_broker_config(name)) {
        c.config_type = config_type(k->type);
        if (docs) c.documentation = std::string(kNoEffectInStrata);
      }
      out.configs.push_back(std::move(c));
    }
    return out;
  }
  if (r.resource_name != std::to_string(cfg.node_id)) {
    out.error_code = kafka::code(ErrorCode::kInvalidRequest);
    out.error_message = fmt::format("this is broker {}, not {}", cfg.node_id, r.resource_name);
    return out;
  }
  const auto described = cfg.describe();
  for (const auto& [name, value] : described) {
    if (wanted && !wanted->count(name)) continue;
    Described::Config c;
    c.name = name;
    c.value = value;
    c.read_only = true;
    c.config_source = kafka::kSourceStaticBrokerConfig;
    if (synonyms) c.synonyms.push_back({name, value, c.config_source});
    if (docs) c.documentation = "set in the properties file or with a flag; needs a restart";
    out.configs.push_back(std::move(c));
  }
  auto layers = services.configs.topic_default_layers();
  auto defaults = services.configs.topic_defaults()->to_map();
  for (const auto& s : topic_default_synonyms()) {
    std::string name(s.broker_key);
    if (wanted && !wanted->count(name)) continue;
    Described::Config c;
    c.name = name;
    c.read_only = !s.dynamic;
    auto own = layers_of(layers, name);
    bool primary = synonyms_of(s.topic_key).front() == &s;
    if (primary) {
      // The value topics get, from whichever synonym decided it.
      auto set = set_synonyms(layers, s.topic_key);
      c.value = defaults[std::string(s.topic_key)];
      c.config_source = set.empty() ? kafka::kSourceDefaultConfig : source_of(set.front().layer);
    } else if (!own.empty()) {
      c.value = own.front().value;
      c.config_source = source_of(own.front().layer);
    } else {
      if (s.unset_value) c.value = std::string(*s.unset_value);
      c.config_source = kafka::kSourceDefaultConfig;
    }
    c.is_default = c.config_source == kafka::kSourceDefaultConfig;
    if (const auto* def = engine::find_topic_config(s.topic_key))
      c.config_type = config_type(s.unit == 1 ? def->type : "long");
    if (docs) c.documentation = synonym_doc(s);
    if (synonyms) {
      // A primary synonym's value may come from another one (log.retention.ms
      // from log.retention.hours): list the whole chain for it.
      for (const auto& o : primary ? set_synonyms(layers, s.topic_key) : own)
        c.synonyms.push_back({o.broker_key, o.value, source_of(o.layer)});
    }
    out.configs.push_back(std::move(c));
  }
  // Every other config Kafka documents: kept, without effect here.
  std::set<std::string> shown;
  for (const auto& c : out.configs)
    shown.insert(c.name);
  for (const auto& [name, value] : described)
    shown.insert(name);
  for (const auto& k : kafka_broker_configs()) {
    std::string name(k.name);
    if ((wanted && !wanted->count(name)) || shown.count(name) || BrokerConfig::is_static_key(name))
      continue;
    Described::Config c;
    c.name = name;
    c.read_only = k.mode == KafkaBrokerConfig::Mode::kReadOnly;
    c.config_type = config_type(k.type);
    c.is_sensitive = k.type == "password";
    auto own = layers_of(
        TopicDefaultLayers{layers.per_broker, layers.cluster_default, cfg.kafka_only_props}, name);
    if (!own.empty()) {
      c.value = own.front().value;
      c.config_source = source_of(own.front().layer);
    } else {
      if (k.default_value) c.value = std::string(*k.default_value);
      c.config_source = kafka::kSourceDefaultConfig;
    }
    c.is_default = c.config_source == kafka::kSourceDefaultConfig;
    if (docs) c.documentation = std::string(kNoEffectInStrata);
    if (synonyms) {
      for (const auto& o : own)
        c.synonyms.push_back({o.broker_key,
                              c.is_sensitive ? std::nullopt : std::optional<std::string>(o.value),
                              source_of(o.layer)});
    }
    if (c.is_sensitive) c.value = std::nullopt;
    out.configs.push_back(std::move(c));
  }
  return out;
}

// Where a BROKER resource's changes go: "" is the cluster default.
Result<coordinator::BrokerScope> broker_scope(Services services, const std::string& name) {
  if (name.empty()) return coordinator::BrokerScope::cluster_default();
  if (name != std::to_string(services.cluster.node_id())) {
    return Error(Errc::kInvalidArgument,
                 fmt::format("this is broker {}, not {}", services.cluster.node_id(), name));
  }
  return coordinator::BrokerScope::broker(services.cluster.node_id());
}

// What the caller of alter() gets to compute the new set of configs of one
// resource: its current dynamic configs (topic overrides or a broker
// scope's), the type of a config name (nullopt: unknown) and its effective
// value.
struct AlterTarget {
  coordinator::ConfigMap current;
  std::function<Result<std::string_view>(const std::string&)> type_of;
  std::function<std::string(const std::string&)> effective;
};

AlterTarget topic_target(Services services, const coordinator::TopicInfo& topic) {
  auto effective = std::make_shared<std::map<std::string, std::string>>(
      services.configs.effective_config(topic).to_map());
  return AlterTarget{
      topic.configs,
      [](const std::string& name) -> Result<std::string_view> {
        if (const auto* d = engine::find_topic_config(name)) return d->type;
        // Let the config table say why (unknown, or tiered storage).
        return engine::TopicConfig{}.set(name, "").error();
      },
      [effective](const std::string& name) { return (*effective)[name]; },
  };
}

AlterTarget broker_target(Services services, const coordinator::BrokerScope& scope) {
  auto defaults = std::make_shared<std::map<std::string, std::string>>(
      services.configs.topic_defaults()->to_map());
  return AlterTarget{
      services.configs.dynamic_configs()->of(scope),
      [](const std::string& name) -> Result<std::string_view> {
        STRATA_ASSIGN_OR_RETURN(auto k, dynamic_broker_key(name));
        return k.type();
      },
      [defaults, current = services.configs.dynamic_configs()->of(scope)](const std::string& name) {
        if (const auto* s = find_synonym(name)) return (*defaults)[std::string(s->topic_key)];
        // A Kafka config Strata keeps: its value here, else Kafka's default.
        if (auto it = current.find(name); it != current.end()) return it->second;
        const auto* k = find_kafka_broker_config(name);
        return k && k->default_value ? std::string(*k->default_value) : std::string();
      },
  };
}

// Runs one config change per resource on the control thread and answers
// with a result per resource, in request order. `next` computes the
// resource's new configs from its AlterTarget.
template <typename Resource, typename Next>
void alter(const RequestContext& ctx, std::vector<Resource> resources, bool validate_only,
           Responder<kafka::AlterConfigsResponse> out, Next next) {
  auto services = ctx.services();
  auto res = std::make_shared<std::vector<Resource>>(std::move(resources));
  auto results = std::make_shared<std::vector<kafka::AlterConfigsResponse::Result>>(res->size());
  // As at Kafka, a resource named twice, or naming a config twice, is
  // refused with INVALID_REQUEST and nothing of it changes; the others are
  // served.
  auto refused = std::make_shared<std::vector<std::optional<Error>>>(res->size());
  std::map<std::pair<int8_t, std::string>, int> named;
  for (const auto& r : *res)
    ++named[{r.resource_type, r.resource_name}];
  for (size_t i = 0; i < res->size(); ++i) {
    const auto& r = (*res)[i];
    std::set<std::string> keys;
    bool twice = false;
    for (const auto& c : r.configs)
      twice = !keys.insert(c.name).second || twice;
    if (named[{r.resource_type, r.resource_name}] > 1) {
      (*refused)[i] = Error(Errc::kInvalidArgument, "Each resource must appear at most once.");
    } else if (twice) {
      (*refused)[i] = Error(Errc::kInvalidArgument, "Error due to duplicate config keys");
    }
  }
  services.controller.change_topics(
      ctx.shard.id(),
      [services, res, results, refused, validate_only, next](TopicChange& change) {
        for (size_t i = 0; i < res->size(); ++i) {
          const auto& r = (*res)[i];
          auto& out = (*results)[i];
          out.resource_type = r.resource_type;
          out.resource_name = r.resource_name;
          Status st = ok_status();
          if ((*refused)[i]) {
            st = *(*refused)[i];
          } else if (r.resource_type == kafka::kResourceBroker) {
            auto scope = broker_scope(services, r.resource_name);
            if (!scope) {
              st = scope.error();
            } else {
              auto configs = next(r, broker_target(services, *scope));
              st = configs ? change.set_dynamic_configs(*scope, *configs, validate_only)
                           : Status(configs.error());
            }
          } else if (r.resource_type != kafka::kResourceTopic) {
            st = Error(Errc::kInvalidArgument,
                       fmt::format("resource type {} is not supported", r.resource_type));
          } else {
            auto snap = services.cluster.snapshot();
            const auto* topic = snap->find(r.resource_name);
            if (topic == nullptr) {
              st =
                  Error(Errc::kNotFound, fmt::format("topic '{}' does not exist", r.resource_name));
            } else {
              auto configs = next(r, topic_target(services, *topic));
              if (configs) {
                auto checked =
                    engine::TopicConfig::from_map(*configs, *services.configs.topic_defaults());
                st = checked ? change.catalog().set_configs(topic->name, *configs, validate_only)
                             : Status(checked.error());
              } else {
                st = configs.error();
              }
            }
          }
          if (!st) {
            out.error_code = kafka::code(st.error().code());
            out.error_message = st.error().message();
          }
        }
        return ok_status();
      },
      [results, out](Status) {
        kafka::AlterConfigsResponse resp;
        resp.responses = std::move(*results);
        out.send(resp);
      });
}

// A list config's items in their order, blanks dropped.
std::vector<std::string> list_items(const std::string& value) {
  std::vector<std::string> items;
  std::stringstream in(value);
  for (std::string item; std::getline(in, item, ',');) {
    auto b = item.find_first_not_of(' ');
    auto e = item.find_last_not_of(' ');
    if (b != std::string::npos) items.push_back(item.substr(b, e - b + 1));
  }
  return items;
}

}  // namespace

void describe_configs(const RequestContext& ctx, kafka::DescribeConfigsRequest req,
                      Responder<kafka::DescribeConfigsResponse> out) {
  kafka::DescribeConfigsResponse resp;
  for (const auto& r : req.resources) {
    if (r.resource_type == kafka::kResourceTopic) {
      resp.results.push_back(
          describe_topic(ctx.services(), r, req.include_synonyms, req.include_documentation));
    } else if (r.resource_type == kafka::kResourceBroker) {
      resp.results.push_back(
          describe_broker(ctx.services(), r, req.include_synonyms, req.include_documentation));
    } else {
      auto& e = resp.results.emplace_back();
      e.resource_type = r.resource_type;
      e.resource_name = r.resource_name;
      e.error_code = kafka::code(ErrorCode::kInvalidRequest);
      e.error_message = fmt::format("resource type {} is not supported", r.resource_type);
    }
  }
  out.send(resp);
}

void alter_configs(const RequestContext& ctx, kafka::AlterConfigsRequest req,
                   Responder<kafka::AlterConfigsResponse> out) {
  alter(ctx, std::move(req.resources), req.validate_only, std::move(out),
        [](const kafka::AlterConfigsRequest::Resource& r,
           const AlterTarget&) -> Result<coordinator::ConfigMap> {
          // AlterConfigs replaces the whole set of dynamic configs.
          coordinator::ConfigMap next;
          for (const auto& c : r.configs) {
            if (c.value) next[c.name] = *c.value;
          }
          return next;
        });
}

void incremental_alter_configs(const RequestContext& ctx, kafka::IncrementalAlterConfigsRequest req,
                               Responder<kafka::AlterConfigsResponse> out) {
  using Req = kafka::IncrementalAlterConfigsRequest;
  alter(ctx, std::move(req.resources), req.validate_only, std::move(out),
        [](const Req::Resource& r, const AlterTarget& target) -> Result<coordinator::ConfigMap> {
          auto next = target.current;
          for (const auto& c : r.configs) {
            STRATA_ASSIGN_OR_RETURN(std::string_view type, target.type_of(c.name));
            switch (c.config_operation) {
              case Req::kSet:
                if (!c.value)
                  return Error(Errc::kInvalidConfig, "SET of " + c.name + " needs a value");
                next[c.name] = *c.value;
                break;
              case Req::kDelete: next.erase(c.name); break;
              case Req::kAppend:
              case Req::kSubtract: {
                if (type != "list") {
                  return Error(
                      Errc::kInvalidConfig,
                      fmt::format("{} is not a list; APPEND and SUBTRACT need one", c.name));
                }
                auto it = next.find(c.name);
                auto items = list_items(it != next.end() ? it->second : target.effective(c.name));
                // As Kafka: APPEND adds the items not there yet at the end,
                // SUBTRACT removes every occurrence; the order stays.
                for (const auto& item : list_items(c.value.value_or(""))) {
                  auto at = std::find(items.begin(), items.end(), item);
                  if (c.config_operation == Req::kAppend) {
                    if (at == items.end()) items.push_back(item);
                  } else {
                    items.erase(std::remove(items.begin(), items.end(), item), items.end());
                  }
                }
                std::string joined;
                for (const auto& item : items)
                  joined += (joined.empty() ? "" : ",") + item;
                next[c.name] = joined;
                break;
              }
              default:
                return Error(Errc::kInvalidArgument,
                             fmt::format("unknown config operation {}", c.config_operation));
            }
          }
          return next;
        });
}

}  // namespace strata::server::handlers
