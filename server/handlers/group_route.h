// Routing a group request: a group lives on the shard leading its
// __consumer_offsets partition (abs(javaHash(group)) % 50). Shared by the
// classic group handlers (groups.cc) and the consumer-group ones
// (consumer_groups.cc).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/group/group_coordinator.h"
#include "coordinator/group/group_records.h"
#include "server/dispatch.h"
#include "server/handlers/coordinator_route.h"

namespace strata::server::handlers {

// Runs `fn` with the coordinator of `group` on its shard, `reply` on `origin`
// (on_coordinator_shard).
template <typename R>
void on_group_shard(Services services, unsigned origin, const std::string& group,
                    std::function<void(coordinator::GroupCoordinator&, std::function<void(R)>)> fn,
                    std::function<void(R)> reply, std::function<R(Errc)> unavailable) {
  on_coordinator_shard<R>(
      services, origin, coordinator::kOffsetsTopic, coordinator::offsets_partition_for(group),
      [fn = std::move(fn)](ShardState& s, std::function<void(R)> done) {
        fn(s.groups(), std::move(done));
      },
      std::move(reply),
      [unavailable = std::move(unavailable)](kafka::ErrorCode e) {
        return unavailable(kafka::to_errc(e));
      });
}

// Runs one per-group operation for each named group and answers when all did.
template <typename R>
void for_each_group(
    const RequestContext& ctx, const std::vector<std::string>& groups,
    std::function<void(coordinator::GroupCoordinator&, const std::string&, std::function<void(R)>)>
        fn,
    std::function<R(const std::string&, Errc)> unavailable,
    std::function<void(std::vector<R>)> done) {
  if (groups.empty()) return done({});
  auto results = std::make_shared<std::vector<std::optional<R>>>(groups.size());
  auto left = std::make_shared<size_t>(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) {
    std::string g = groups[i];
    on_group_shard<R>(
        ctx.services(), ctx.shard.id(), g,
        [fn, g](coordinator::GroupCoordinator& gc, std::function<void(R)> cb) {
          fn(gc, g, std::move(cb));
        },
        [results, left, i, done](R r) {
          (*results)[i] = std::move(r);
          if (--*left > 0) return;
          std::vector<R> out;
          for (auto& x : *results)
            out.push_back(std::move(*x));
          done(std::move(out));
        },
        [unavailable, g](Errc e) { return unavailable(g, e); });
  }
}

// The client's host as Kafka shows it in group descriptions ("/127.0.0.1").
inline std::string client_host(const RequestContext& ctx) {
  auto colon = ctx.peer().rfind(':');
  return "/" + (colon == std::string::npos ? ctx.peer() : ctx.peer().substr(0, colon));
}

}  // namespace strata::server::handlers
