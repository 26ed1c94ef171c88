#include "server/schema_registry.h"

#include <boost/asio/steady_timer.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "registry/http_client.h"
#include "registry/rest_api.h"
#include "registry/schema_records.h"
#include "server/shard_state.h"

namespace strata::server {
namespace {

constexpr int kRelayRetryMs = 100;
// How long a request may wait for a loaded leader of _schemas, relays
// included; one relay may take up to kForwardTimeout of it.
constexpr auto kMaxWait = std::chrono::seconds(10);
constexpr auto kForwardTimeout = std::chrono::seconds(5);

// Whether a relayed request's answer says the broker was not ready to
// serve it (not the leader of _schemas after all, or still loading).
bool not_ready(const registry::Reply& r) {
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  return j.is_object() && j.value("error_code", 0) == registry::error::kNotReady;
}

}  // namespace

SchemaRegistryService::SchemaRegistryService(Services services)
    : services_(services), empty_([](auto, auto done) {
        done(Error(Errc::kInternal, "the empty registry takes no writes"));
      }) {}

SchemaRegistryService::~SchemaRegistryService() {
  stop();
}

Result<std::unique_ptr<SchemaRegistryService>> SchemaRegistryService::start(Services services) {
  const auto& cfg = services.configs.config();
  if (!cfg.schema_registry_enable) return std::unique_ptr<SchemaRegistryService>();
  std::unique_ptr<SchemaRegistryService> s(new SchemaRegistryService(services));
  std::string host = cfg.schema_registry_host.empty() ? cfg.listen_host : cfg.schema_registry_host;
  registry::HttpServer::Options options;
  options.max_body_bytes = cfg.schema_registry_max_request_bytes;
  auto* raw = s.get();
  auto server = registry::HttpServer::start(host, cfg.schema_registry_port, options,
                                            [raw](registry::HttpRequest r, registry::Done reply) {
                                              raw->handle(std::move(r), std::move(reply), 0);
                                            });
  if (!server) {
    if (cfg.schema_registry_explicit) {
      return Error(server.error().code(), "schema.registry.listeners: " + server.error().message());
    }
    spdlog::warn(
        "schema registry not started: {} (set schema.registry.listeners to another "
        "port, or schema.registry.enable=false)",
        server.error().message());
    return std::unique_ptr<SchemaRegistryService>();
  }
  s->server_ = std::move(server).value();
  spdlog::info("schema registry listening on http://{}:{}", host, s->server_->port());
  return s;
}

void SchemaRegistryService::stop() {
  if (stopped_.exchange(true)) return;
  if (server_) server_->stop();
}

void SchemaRegistryService::retry(registry::HttpRequest request, registry::Done reply,
                                  int attempt) {
  if (std::chrono::steady_clock::now() - request.received >= kMaxWait || stopped_) {
    return reply(registry::error_reply(
        registry::error::kNotReady,
        fmt::format("The schema registry is not ready: {} has no loaded leader",
                    registry::kSchemasTopic)));
  }
  auto& io = services_.shards.shard(0).io();
  auto timer = std::make_shared<boost::asio::steady_timer>(io);
  timer->expires_after(std::chrono::milliseconds(kRelayRetryMs));
  timer->async_wait([this, timer, request = std::move(request), reply = std::move(reply),
                     attempt](const boost::system::error_code& ec) mutable {
    if (ec) return;
    handle(std::move(request), std::move(reply), attempt + 1);
  });
}

void SchemaRegistryService::handle(registry::HttpRequest request, registry::Done reply,
                                   int attempt) {
  if (!serving_) return retry(std::move(request), std::move(reply), attempt);
  auto snap = services_.cluster.snapshot();
  const auto* topic = snap->find(registry::kSchemasTopic);
  bool write = registry::is_write(request);
  if (topic == nullptr) {
    if (!write) return registry::serve_request(empty_, request, std::move(reply));
    // The first write creates the topic (asked on shard 0, whose thread
    // may talk to the controller; again each second while it is not
    // there); the request runs once it is led.
    if (attempt % 10 == 0) {
      services_.shards.shard(0).post([this] {
        services_.controller.ensure_internal_topic(0, registry::kSchemasTopic, [](Status st) {
          if (!st) spdlog::warn("creating {}: {}", registry::kSchemasTopic, st.error().to_string());
        });
      });
    }
    return retry(std::move(request), std::move(reply), attempt);
  }
  const auto* state = topic->state(0);
  if (state == nullptr || state->leader < 0) {
    return retry(std::move(request), std::move(reply), attempt);
  }
  if (state->leader == services_.cluster.node_id()) {
    if (!services_.cluster.may_serve(*state)) {
      return retry(std::move(request), std::move(reply), attempt);
    }
    unsigned shard = services_.shards.shard_for(topic->uid(PartitionId(0)));
    return on_leader_shard(shard, std::move(request), std::move(reply), attempt);
  }
  if (request.forwarded) {
    // Relayed here by a broker that took this one for the leader: not
    // relayed on (two stale views would pass it back and forth); the
    // relaying broker retries on this answer.
    return reply(registry::error_reply(registry::error::kNotReady,
                                       fmt::format("This broker does not lead {} (broker {} does)",
                                                   registry::kSchemasTopic, state->leader)));
  }
  // Another broker leads: relay the request to its registry.
  const coordinator::BrokerInfo* leader = nullptr;
  for (const auto& b : snap->brokers)
    if (b.node_id == state->leader) leader = &b;
  if (leader == nullptr || leader->registry_port < 0) {
    return retry(std::move(request), std::move(reply), attempt);
  }
  auto host = leader->host;
  auto port = static_cast<uint16_t>(leader->registry_port);
  services_.shards.shard(0).post([this, host, port, request = std::move(request),
                                  reply = std::move(reply), attempt]() mutable {
    registry::HttpRequest relayed = request;
    relayed.forwarded = true;
    registry::http_call(
        services_.shards.shard(0).io(), host, port, relayed, kForwardTimeout,
        [this, request, reply = std::move(reply), attempt](Result<registry::Reply> r) mutable {
          // The leader's answer — unless it was not the leader after all.
          bool moved = r && (*r).status == 500 && not_ready(*r);
          if (r && !moved) return reply(std::move(*r));
          if (moved) return retry(std::move(request), std::move(reply), attempt);
          spdlog::warn("schema registry: forwarding {} {} to the leader of {} failed: {}",
                       request.method, request.target, registry::kSchemasTopic,
                       r.error().to_string());
          retry(std::move(request), std::move(reply), attempt);
        });
  });
}

void SchemaRegistryService::on_leader_shard(unsigned shard, registry::HttpRequest request,
                                            registry::Done reply, int attempt) {
  services_.shards.shard(shard).post(
      [this, shard, request = std::move(request), reply = std::move(reply), attempt]() mutable {
        registry::Registry* r = services_.shards.state(shard).schema_registry();
        if (r == nullptr) return retry(std::move(request), std::move(reply), attempt);
        registry::serve_request(*r, request, std::move(reply));
      });
}

}  // namespace strata::server
