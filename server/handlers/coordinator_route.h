// Routing a coordinator request: a group lives on the services, and the shard,
// that leads its __consumer_offsets partition, a transactional id on the
// one leading its __transaction_state partition. The request runs there
// and its answer comes back to the connection's shard.
//
//   on_coordinator_shard<R>(services, origin, kTransactionStateTopic, txn_partition_for(id),
//       [](ShardState& s, auto done) { s.txns().end_txn(..., done); },
//       reply, [](kafka::ErrorCode e) { return R{e}; });
#pragma once

#include <functional>
#include <optional>
#include <string_view>

#include "coordinator/cluster_metadata.h"
#include "server/kafka/error_code.h"
#include "server/partition_route.h"
#include "server/shard_state.h"

namespace strata::server::handlers {

// Runs `fn` on the shard leading partition `partition` of the internal
// topic `topic` and `reply` with its result on the shard `origin`. Without
// the topic (before any FindCoordinator) the answer is `unavailable`
// (COORDINATOR_NOT_AVAILABLE) and the topic is created for the retry;
// where another broker leads the partition, NOT_COORDINATOR.
template <typename R>
void on_coordinator_shard(Services services, unsigned origin, std::string_view topic_name,
                          int32_t partition,
                          std::function<void(ShardState&, std::function<void(R)>)> fn,
                          std::function<void(R)> reply,
                          std::function<R(kafka::ErrorCode)> unavailable) {
  auto snap = services.cluster.snapshot();
  const auto* topic = snap->find(topic_name);
  if (topic == nullptr) {
    services.controller.ensure_internal_topic(origin, topic_name, [reply, unavailable](Status) {
      reply(unavailable(kafka::ErrorCode::kCoordinatorNotAvailable));
    });
    return;
  }
  const auto* state = topic->state(partition);
  if (state == nullptr || !services.cluster.may_serve(*state)) {
    // Another broker coordinates (or none does right now): the client asks
    // FindCoordinator again.
    return reply(unavailable(kafka::ErrorCode::kNotCoordinator));
  }
  unsigned target = services.shards.shard_for(topic->uid(PartitionId(partition)));
  services.shards.shard(target).post(
      [services, target, origin, fn = std::move(fn), reply = std::move(reply)]() {
        fn(services.shards.state(target), [services, origin, reply](R r) {
          services.shards.shard(origin).post(
              [reply, r = std::move(r)]() mutable { reply(std::move(r)); });
        });
      });
}

// The broker leading partition `partition` of `topic_name`, if it is live.
inline std::optional<coordinator::BrokerInfo> coordinator_of(
    const coordinator::ClusterSnapshot& snap, std::string_view topic_name, int32_t partition) {
  const auto* topic = snap.find(topic_name);
  if (topic == nullptr) return std::nullopt;
  const auto* state = topic->state(partition);
  if (state == nullptr) return std::nullopt;
  for (const auto& b : snap.brokers)
    if (b.node_id == state->leader) return b;
  return std::nullopt;
}

}  // namespace strata::server::handlers
