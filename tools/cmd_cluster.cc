// strata cluster: brokers, the active controller, cluster id, and the API
// versions the bootstrap broker serves.
#include <fmt/format.h>

#include "server/kafka/messages/api_versions.h"
#include "server/kafka/messages/describe_cluster.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "tools/wire.h"

namespace strata::tools {
namespace {

// One request to the first bootstrap broker; its top-level error is a failure.
template <typename Request, typename Response>
Result<Response> ask_bootstrap(const Globals& g, std::string_view api) {
  std::string hostport = first_bootstrap(g);
  STRATA_ASSIGN_OR_RETURN(auto resp, (wire_call<Request, Response>(g, hostport, Request{}, 0)));
  if (resp.error_code != 0) {
    return Error(Errc::kIoError,
                 fmt::format("{} from {}: error {}", api, hostport, resp.error_code));
  }
  return resp;
}

// The API key ranges the bootstrap broker advertises (librdkafka keeps
// them to itself).
Result<std::vector<std::array<int16_t, 3>>> api_versions(const Globals& g) {
  STRATA_ASSIGN_OR_RETURN(
      auto resp,
      (ask_bootstrap<kafka::ApiVersionsRequest, kafka::ApiVersionsResponse>(g, "ApiVersions")));
  std::vector<std::array<int16_t, 3>> out;
  for (const auto& a : resp.api_keys)
    out.push_back({a.api_key, a.min_version, a.max_version});
  return out;
}

// The active controller, from DescribeCluster: Metadata names the broker
// that answers (any broker relays the controller's requests).
Result<int32_t> active_controller(const Globals& g) {
  STRATA_ASSIGN_OR_RETURN(
      auto resp, (ask_bootstrap<kafka::DescribeClusterRequest, kafka::DescribeClusterResponse>(
                     g, "DescribeCluster")));
  return resp.controller_id;
}

Status cluster(const Globals& g) {
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  STRATA_ASSIGN_OR_RETURN(auto md, k->metadata());
  STRATA_ASSIGN_OR_RETURN(auto apis, api_versions(g));
  STRATA_ASSIGN_OR_RETURN(md.controller, active_controller(g));
  if (g.json) {
    nlohmann::json brokers = nlohmann::json::array();
    for (const auto& b : md.brokers)
      brokers.push_back({{"id", b.id}, {"host", b.host}, {"port", b.port}});
    nlohmann::json versions = nlohmann::json::array();
    for (const auto& a : apis)
      versions.push_back({{"api_key", a[0]}, {"min", a[1]}, {"max", a[2]}});
    print_json({{"cluster_id", md.cluster_id},
                {"controller", md.controller},
                {"brokers", brokers},
                {"api_versions", versions},
                {"librdkafka", rd_kafka_version_str()}});
    return ok_status();
  }
  std::printf("cluster %s, controller %d\n\n", md.cluster_id.c_str(), md.controller);
  Table t({"BROKER", "HOST", "PORT"});
  for (const auto& b : md.brokers)
    t.add({std::to_string(b.id), b.host, std::to_string(b.port)});
  t.print();
  std::printf("\n");
  Table v({"API KEY", "MIN", "MAX"});
  for (const auto& a : apis)
    v.add({std::to_string(a[0]), std::to_string(a[1]), std::to_string(a[2])});
  v.print();
  return ok_status();
}

}  // namespace

void add_cluster_command(CLI::App& app, Globals& g, Action& action) {
  auto* c = app.add_subcommand("cluster", "Brokers, controller, cluster id and API versions");
  c->callback([&] { action = [&g] { return cluster(g); }; });
}

}  // namespace strata::tools
