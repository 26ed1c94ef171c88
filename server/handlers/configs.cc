// DescribeConfigs, AlterConfigs and IncrementalAlterConfigs for topics (and
// read-only descriptions of the broker's own configs).
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "server/broker.h"
#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"

namespace strata::server::handlers {
namespace {

using kafka::ErrorCode;

// DescribeConfigs config types.
int8_t config_type(std::string_view type) {
  if (type == "boolean") return 1;
  if (type == "string") return 2;
  if (type == "int") return 3;
  if (type == "long") return 5;
  if (type == "list") return 7;
  return 0;
}

const engine::ConfigDefinition* definition(const std::string& name) {
  for (const auto& d : engine::topic_config_definitions()) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

kafka::DescribeConfigsResponse::Result describe_topic(
    Broker& broker, const kafka::DescribeConfigsRequest::Resource& r, bool synonyms, bool docs) {
  kafka::DescribeConfigsResponse::Result out;
  out.resource_type = r.resource_type;
  out.resource_name = r.resource_name;
  auto snap = broker.snapshot();
  const auto* topic = snap->find(r.resource_name);
  if (topic == nullptr) {
    out.error_code = kafka::code(ErrorCode::kUnknownTopicOrPartition);
    out.error_message = fmt::format("topic '{}' does not exist", r.resource_name);
    return out;
  }
  auto effective = broker.effective_config(*topic).to_map();
  auto defaults = broker.config().topic_defaults.to_map();
  auto kafka_defaults = engine::TopicConfig{}.to_map();
  std::optional<std::set<std::string>> wanted;
  if (r.configuration_keys)
    wanted.emplace(r.configuration_keys->begin(), r.configuration_keys->end());
  for (const auto& [name, value] : effective) {
    if (wanted && !wanted->count(name)) continue;
    kafka::DescribeConfigsResponse::Config c;
    c.name = name;
    c.value = value;
    bool is_override = topic->configs.count(name) > 0;
    bool broker_set = defaults[name] != kafka_defaults[name];
    c.is_default = !is_override;
    c.config_source = is_override  ? kafka::kSourceTopicConfig
                      : broker_set ? kafka::kSourceStaticBrokerConfig
                                   : kafka::kSourceDefaultConfig;
    if (const auto* d = definition(name)) {
      c.config_type = config_type(d->type);
      if (docs) c.documentation = std::string(d->doc);
    }
    if (synonyms) {
      if (is_override)
        c.synonyms.push_back({name, topic->configs.at(name), kafka::kSourceTopicConfig});
      c.synonyms.push_back(
          {name, defaults[name],
           broker_set ? kafka::kSourceStaticBrokerConfig : kafka::kSourceDefaultConfig});
    }
    out.configs.push_back(std::move(c));
  }
  return out;
}

kafka::DescribeConfigsResponse::Result describe_broker(
    Broker& broker, const kafka::DescribeConfigsRequest::Resource& r) {
  kafka::DescribeConfigsResponse::Result out;
  out.resource_type = r.resource_type;
  out.resource_name = r.resource_name;
  if (!r.resource_name.empty() && r.resource_name != std::to_string(broker.config().node_id)) {
    out.error_code = kafka::code(ErrorCode::kInvalidRequest);
    out.error_message =
        fmt::format("this is broker {}, not {}", broker.config().node_id, r.resource_name);
    return out;
  }
  std::optional<std::set<std::string>> wanted;
  if (r.configuration_keys)
    wanted.emplace(r.configuration_keys->begin(), r.configuration_keys->end());
  for (const auto& [name, value] : broker.config().describe()) {
    if (wanted && !wanted->count(name)) continue;
    kafka::DescribeConfigsResponse::Config c;
    c.name = name;
    c.value = value;
    c.read_only = true;
    c.config_source = kafka::kSourceStaticBrokerConfig;
    out.configs.push_back(std::move(c));
  }
  return out;
}

// Runs one config change per topic resource on the control thread and
// answers with a result per resource, in request order.
template <typename Resource, typename Change>
void alter(const RequestContext& ctx, std::vector<Resource> resources, bool validate_only,
           Responder<kafka::AlterConfigsResponse> out, Change change) {
  auto& broker = ctx.broker;
  auto res = std::make_shared<std::vector<Resource>>(std::move(resources));
  auto results = std::make_shared<std::vector<kafka::AlterConfigsResponse::Result>>(res->size());
  broker.change_topics(
      ctx.shard.id(),
      [&broker, res, results, validate_only, change] {
        for (size_t i = 0; i < res->size(); ++i) {
          const auto& r = (*res)[i];
          auto& out = (*results)[i];
          out.resource_type = r.resource_type;
          out.resource_name = r.resource_name;
          Status st = ok_status();
          if (r.resource_type == kafka::kResourceBroker) {
            st =
                Error(Errc::kInvalidArgument, "broker configs are static; restart with new values");
          } else if (r.resource_type != kafka::kResourceTopic) {
            st = Error(Errc::kInvalidArgument,
                       fmt::format("resource type {} is not supported", r.resource_type));
          } else {
            auto snap = broker.snapshot();
            const auto* topic = snap->find(r.resource_name);
            if (topic == nullptr) {
              st =
                  Error(Errc::kNotFound, fmt::format("topic '{}' does not exist", r.resource_name));
            } else {
              auto next = change(r, *topic, broker);
              st = next ? broker.catalog().set_configs(topic->name, *next, validate_only)
                        : Status(next.error());
            }
          }
          if (!st) {
            out.error_code = kafka::code(kafka::to_error_code(st.error().code()));
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

}  // namespace

void describe_configs(const RequestContext& ctx, kafka::DescribeConfigsRequest req,
                      Responder<kafka::DescribeConfigsResponse> out) {
  kafka::DescribeConfigsResponse resp;
  for (const auto& r : req.resources) {
    if (r.resource_type == kafka::kResourceTopic) {
      resp.results.push_back(
          describe_topic(ctx.broker, r, req.include_synonyms, req.include_documentation));
    } else if (r.resource_type == kafka::kResourceBroker) {
      resp.results.push_back(describe_broker(ctx.broker, r));
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
        [](const kafka::AlterConfigsRequest::Resource& r, const coordinator::TopicInfo&,
           Broker&) -> Result<std::map<std::string, std::string>> {
          // AlterConfigs replaces the whole set of overrides.
          std::map<std::string, std::string> next;
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
        [](const Req::Resource& r, const coordinator::TopicInfo& topic,
           Broker& broker) -> Result<std::map<std::string, std::string>> {
          auto next = topic.configs;
          auto effective = broker.effective_config(topic).to_map();
          for (const auto& c : r.configs) {
            const auto* d = definition(c.name);
            if (d == nullptr) {
              return Error(Errc::kInvalidConfig, fmt::format("unknown topic config '{}'", c.name));
            }
            switch (c.config_operation) {
              case Req::kSet:
                if (!c.value)
                  return Error(Errc::kInvalidConfig, "SET of " + c.name + " needs a value");
                next[c.name] = *c.value;
                break;
              case Req::kDelete: next.erase(c.name); break;
              case Req::kAppend:
              case Req::kSubtract: {
                if (d->type != "list") {
                  return Error(
                      Errc::kInvalidConfig,
                      fmt::format("{} is not a list; APPEND and SUBTRACT need one", c.name));
                }
                std::set<std::string> items;
                std::stringstream cur(next.count(c.name) ? next[c.name] : effective[c.name]);
                for (std::string item; std::getline(cur, item, ',');) {
                  if (!item.empty()) items.insert(item);
                }
                std::stringstream change(c.value.value_or(""));
                for (std::string item; std::getline(change, item, ',');) {
                  if (c.config_operation == Req::kAppend) {
                    items.insert(item);
                  } else {
                    items.erase(item);
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
