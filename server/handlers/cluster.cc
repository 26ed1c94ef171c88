// ApiVersions, Metadata, DescribeCluster and ElectLeaders.
#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"
#include "server/shard_state.h"

namespace strata::server::handlers {
namespace {

// Kafka ACL operation bits (READ 3 .. DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11):
// with no authorizer every operation is allowed.
constexpr int32_t kTopicOperations =
    (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 10) | (1 << 11);
constexpr int32_t kClusterOperations =
    (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12);

// Each partition as its state says: leader (LEADER_NOT_AVAILABLE while it
// has none), leader epoch, replicas, ISR, and the replicas whose broker is
// not live.
kafka::MetadataResponse::Topic describe_topic(const coordinator::ClusterSnapshot& snap,
                                              const coordinator::TopicInfo& t, bool with_ops) {
  kafka::MetadataResponse::Topic out;
  out.name = t.name;
  out.topic_id = t.id;
  out.is_internal = t.internal;
  out.topic_authorized_operations = with_ops ? kTopicOperations : INT32_MIN;
  out.partitions.reserve(static_cast<size_t>(t.partitions));
  for (int32_t p = 0; p < t.partitions; ++p) {
    kafka::MetadataResponse::Partition mp;
    mp.partition_index = p;
    const auto* state = t.state(p);
    if (state == nullptr) continue;  // a catalog invariant: one state per partition
    mp.leader_id = state->leader;
    mp.leader_epoch = state->leader_epoch;
    mp.replica_nodes = state->replicas;
    mp.isr_nodes = state->isr;
    for (int32_t r : state->replicas) {
      bool live = std::any_of(snap.brokers.begin(), snap.brokers.end(),
                              [r](const coordinator::BrokerInfo& b) { return b.node_id == r; });
      if (!live) mp.offline_replicas.push_back(r);
    }
    if (state->leader < 0) mp.error_code = kafka::code(kafka::ErrorCode::kLeaderNotAvailable);
    out.partitions.push_back(std::move(mp));
  }
  return out;
}

// Metadata names the answering broker as the controller whenever it is a
// registered broker, as a KRaft Kafka broker names a live broker rather
// than its controller: every broker relays the controller's requests
// (controller_forward.h), and a client sent to a controller that just died
// would wait for it until its registration lapsed. DescribeCluster (and so
// `strata cluster`) names the active controller.
void fill_brokers(const coordinator::ClusterSnapshot& snap, int32_t self,
                  kafka::MetadataResponse& resp) {
  bool self_registered = false;
  for (const auto& b : snap.brokers) {
    resp.brokers.push_back({b.node_id, b.host, b.port, b.rack});
    self_registered |= b.node_id == self;
  }
  resp.cluster_id = snap.cluster_id;
  resp.controller_id = self_registered ? self : snap.controller_id;
}

}  // namespace

void api_versions(const RequestContext&, kafka::ApiVersionsRequest,
                  Responder<kafka::ApiVersionsResponse> out) {
  kafka::ApiVersionsResponse resp;
  for (const auto& api : kafka::supported_apis()) {
    resp.api_keys.push_back({api.key, api.min_version, api.max_version});
  }
  out.send(resp);
}

void metadata(const RequestContext& ctx, kafka::MetadataRequest req,
              Responder<kafka::MetadataResponse> out) {
  auto services = ctx.services();
  int16_t v = out.version();
  // Which topics: v0 empty = all; v1+ null = all.
  bool all = !req.topics.has_value() || (v == 0 && req.topics->empty());
  bool with_ops = req.include_topic_authorized_operations;
  auto finish = [services, all, with_ops, v, req, out]() {
    auto snap = services.cluster.snapshot();
    kafka::MetadataResponse resp;
    fill_brokers(*snap, services.cluster.node_id(), resp);
    if (req.include_cluster_authorized_operations)
      resp.cluster_authorized_operations = kClusterOperations;
    if (all) {
      for (const auto& [name, t] : snap->topics)
        resp.topics.push_back(describe_topic(*snap, *t, with_ops));
    } else {
      for (const auto& rt : *req.topics) {
        // v10+: a topic named by its id (Kafka's Java consumer resolves the
        // ids of a KIP-848 assignment so, with an empty or null name).
        bool by_id = v >= 10 && rt.topic_id != kafka::kZeroUuid;
        const coordinator::TopicInfo* t = nullptr;
        if (by_id) {
          t = snap->find(rt.topic_id);
        } else if (rt.name) {
          t = snap->find(*rt.name);
        }
        if (t != nullptr) {
          resp.topics.push_back(describe_topic(*snap, *t, with_ops));
          continue;
        }
        kafka::MetadataResponse::Topic missing;
        missing.name = rt.name;
        missing.topic_id = rt.topic_id;
        bool bad_name = !by_id && rt.name && coordinator::invalid_topic_name(*rt.name).has_value();
        missing.error_code =
            kafka::code(bad_name            ? kafka::ErrorCode::kInvalidTopicException
                        : by_id || !rt.name ? kafka::ErrorCode::kUnknownTopicId
                                            : kafka::ErrorCode::kUnknownTopicOrPartition);
        resp.topics.push_back(std::move(missing));
      }
    }
    out.send(resp);
  };
  // Auto-create the named topics that do not exist, as Kafka does.
  std::vector<std::string> to_create;
  if (!all && services.configs.config().auto_create_topics && req.allow_auto_topic_creation) {
    auto snap = services.cluster.snapshot();
    for (const auto& rt : *req.topics) {
      if (rt.name && snap->find(*rt.name) == nullptr &&
          !coordinator::invalid_topic_name(*rt.name) && !rt.name->starts_with("__")) {
        to_create.push_back(*rt.name);
      }
    }
  }
  if (to_create.empty()) return finish();
  std::vector<NewTopic> topics;
  for (const auto& name : to_create)
    topics.push_back({name,
                      services.configs.config().num_partitions,
                      services.configs.config().default_replication_factor,
                      {}});
  services.controller.create_topics(
      ctx.shard.id(), std::move(topics), [finish, to_create](Status st) {
        if (!st) spdlog::warn("auto-creating topic(s) failed: {}", st.error().to_string());
        finish();
      });
}

void describe_cluster(const RequestContext& ctx, kafka::DescribeClusterRequest req,
                      Responder<kafka::DescribeClusterResponse> out) {
  auto snap = ctx.cluster.snapshot();
  kafka::DescribeClusterResponse resp;
  if (req.endpoint_type != 1) {
    resp.error_code = kafka::code(kafka::ErrorCode::kUnsupportedVersion);
    resp.error_message = "only broker endpoints are served";
  }
  resp.endpoint_type = req.endpoint_type;
  resp.cluster_id = snap->cluster_id;
  resp.controller_id = snap->controller_id;
  for (const auto& b : snap->brokers)
    resp.brokers.push_back({b.node_id, b.host, b.port, b.rack});
  if (req.include_cluster_authorized_operations)
    resp.cluster_authorized_operations = kClusterOperations;
  out.send(resp);
}

void elect_leaders(const RequestContext& ctx, kafka::ElectLeadersRequest req,
                   Responder<kafka::ElectLeadersResponse> out) {
  using kafka::ErrorCode;
  using Answer = std::pair<std::string, kafka::ElectLeadersResponse::Partition>;
  // Named partitions are answered in the request's order, each topic entry
  // by an entry of its own (a repeated name too, as Kafka answers); all of
  // them (a null list), by topic.
  auto respond = [out, asked = req.topic_partitions](int16_t error, std::vector<Answer> answers) {
    kafka::ElectLeadersResponse resp;
    resp.error_code = error;
    if (asked) {
      size_t next = 0;
      for (const auto& t : *asked) {
        auto& rt = resp.results.emplace_back();
        rt.topic = t.topic;
        for (size_t i = 0; i < t.partitions.size() && next < answers.size(); ++i)
          rt.partitions.push_back(std::move(answers[next++].second));
      }
    } else {
      std::map<std::string, kafka::ElectLeadersResponse::Topic> by_topic;
      for (auto& [topic, p] : answers) {
        by_topic[topic].topic = topic;
        by_topic[topic].partitions.push_back(std::move(p));
      }
      for (auto& [name, t] : by_topic)
        resp.results.push_back(std::move(t));
    }
    out.send(resp);
  };
  std::vector<coordinator::PartitionRef> wanted;
  if (req.topic_partitions) {
    for (const auto& t : *req.topic_partitions)
      for (int32_t p : t.partitions)
        wanted.push_back({t.topic, p});
  }
  // An empty list names no partition, as at Kafka (null names them all).
  if (req.topic_partitions && wanted.empty()) return respond(0, {});
  bool preferred = req.election_type == kafka::ElectLeadersRequest::kPreferred;
  if (!preferred && req.election_type != kafka::ElectLeadersRequest::kUnclean) {
    auto message = fmt::format("unknown election type {} (0: preferred, 1: unclean)",
                               static_cast<int>(req.election_type));
    std::vector<Answer> answers;
    for (const auto& ref : wanted)
      answers.push_back(
          {ref.topic, {ref.partition, kafka::code(ErrorCode::kInvalidRequest), message}});
    return respond(kafka::code(ErrorCode::kInvalidRequest), std::move(answers));
  }
  ctx.controller.elect(
      ctx.shard.id(), wanted,
      preferred ? coordinator::Election::kPreferred : coordinator::Election::kUnclean,
      [out, respond, preferred](Result<std::vector<coordinator::ElectionOutcome>> r) {
        if (!r) {
          kafka::ElectLeadersResponse resp;  // no partition was looked at
          resp.error_code = kafka::code(r.error().code());
          return out.send(resp);
        }
        std::vector<Answer> answers;
        for (const auto& o : *r) {
          kafka::ElectLeadersResponse::Partition p;
          p.partition_id = o.partition.partition;
          if (!o.result) {
            auto code = o.result.code();
            auto none = preferred ? ErrorCode::kPreferredLeaderNotAvailable
                                  : ErrorCode::kEligibleLeadersNotAvailable;
            p.error_code =
                kafka::code(code == Errc::kInvalidArgument ? ErrorCode::kElectionNotNeeded
                            : code == Errc::kUnavailable   ? none
                                                           : kafka::to_error_code(code));
            p.error_message = o.result.error().message();
          }
          answers.emplace_back(o.partition.topic, std::move(p));
        }
        respond(0, std::move(answers));
      });
}

}  // namespace strata::server::handlers
