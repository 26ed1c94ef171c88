// SchemaRegistryService: the broker's schema registry endpoint. It owns the
// HTTP listener (registry/http_server) and sends each request to where it
// can be answered:
//   - no `_schemas` topic yet: reads answer from an empty registry; a write
//     creates the topic and runs once its partition is led and loaded;
//   - this broker leads `_schemas`-0: on the shard hosting it, against the
//     Registry that shard serves (ShardState::schema_registry);
//   - another broker leads it: forwarded there over HTTP (its advertised
//     host and registry port) and its reply relayed.
// A partition without a leader, or still loading, is retried every 100 ms
// for up to 10 s, then answered 50003.
//
// Thread-safety: requests arrive on the listener's thread; the work runs on
// shards; start/stop from the broker's start/stop.
#pragma once

#include <atomic>
#include <memory>

#include "base/result.h"
#include "registry/http_server.h"
#include "registry/registry.h"
#include "server/services.h"

namespace strata::server {

class SchemaRegistryService {
 public:
  // Binds the listener (per schema.registry.listeners); requests wait for
  // set_serving(). nullptr when the registry is off, or its default port
  // is taken on this host (a warning).
  static Result<std::unique_ptr<SchemaRegistryService>> start(Services services);
  ~SchemaRegistryService();

  uint16_t port() const { return server_->port(); }
  void set_serving() { serving_ = true; }
  // Stops the listener; requests in flight get no answer.
  void stop();

 private:
  explicit SchemaRegistryService(Services services);
  void handle(registry::HttpRequest request, registry::Done reply, int attempt);
  void retry(registry::HttpRequest request, registry::Done reply, int attempt);
  void on_leader_shard(unsigned shard, registry::HttpRequest request, registry::Done reply,
                       int attempt);

  Services services_;
  std::unique_ptr<registry::HttpServer> server_;
  // Answers reads while there is no _schemas topic; never written to.
  registry::Registry empty_;
  std::atomic<bool> serving_{false};
  std::atomic<bool> stopped_{false};
};

}  // namespace strata::server
