// InitProducerId: ids for idempotent producers; a transactional id goes to
// its transaction coordinator (handlers/transactions.cc).
#include <algorithm>

#include <spdlog/spdlog.h>

#include "replication/fan_out.h"
#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"
#include "server/partition_route.h"
#include "server/shard_state.h"

namespace strata::server::handlers {

using replication::Partition;
using replication::run_on_owners;

void init_producer_id(const RequestContext& ctx, kafka::InitProducerIdRequest req,
                      Responder<kafka::InitProducerIdResponse> out) {
  using kafka::ErrorCode;
  if (req.transactional_id && !req.transactional_id->empty()) {
    return init_transactional_producer(ctx, std::move(req), out);
  }
  if (req.transactional_id) {
    // An empty transactional id is invalid, as in Kafka.
    kafka::InitProducerIdResponse resp;
    resp.error_code = kafka::code(ErrorCode::kInvalidRequest);
    resp.producer_epoch = -1;
    return out.send(resp);
  }
  // Without a transactional id Kafka always hands out a new id at epoch 0,
  // whatever id and epoch a v3+ request names.
  ctx.controller.allocate_producer_id(ctx.shard.id(), [out](Result<int64_t> id) {
    kafka::InitProducerIdResponse resp;
    if (!id) {
      resp.error_code = kafka::code(ErrorCode::kCoordinatorNotAvailable);  // retriable
      resp.producer_epoch = -1;
    } else {
      resp.producer_id = *id;
      resp.producer_epoch = 0;
    }
    out.send(resp);
  });
}

}  // namespace strata::server::handlers

namespace strata::server::handlers {

void describe_producers(const RequestContext& ctx, kafka::DescribeProducersRequest req,
                        Responder<kafka::DescribeProducersResponse> out) {
  using Resp = kafka::DescribeProducersResponse;
  auto services = ctx.services();
  auto snap = services.cluster.snapshot();
  auto resp = std::make_shared<Resp>();
  std::vector<PartitionUid> uids;
  std::vector<std::pair<size_t, size_t>> where;
  for (const auto& t : req.topics) {
    auto& rt = resp->topics.emplace_back();
    rt.name = t.name;
    const auto* topic = snap->find(t.name);
    for (int32_t p : t.partition_indexes) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition_index = p;
      auto route = services.cluster.route(topic, p);
      if (!route.ok()) {
        rp.error_code = kafka::code(route.error);
        continue;
      }
      uids.push_back(route.uid);
      where.emplace_back(resp->topics.size() - 1, rt.partitions.size() - 1);
    }
  }
  using Producers = Result<std::vector<Resp::Producer>>;
  run_on_owners<Producers>(
      services.shards, ctx.shard.id(), uids,
      [](Partition* p, size_t, std::function<void(Producers)> done) {
        if (p == nullptr) return done(replication::not_hosted());
        if (p->role() != replication::Role::kLeader) {
          return done(Error(Errc::kNotLeader, "this broker does not lead the partition"));
        }
        std::vector<Resp::Producer> found;
        for (const auto& [id, s] : p->log().producers().states().all()) {
          Resp::Producer r;
          r.producer_id = id;
          r.producer_epoch = s.epoch;
          r.last_sequence = s.batches.empty() ? -1 : s.batches.back().last_sequence;
          r.last_timestamp = s.last_write_ms;
          r.coordinator_epoch = s.coordinator_epoch;
          r.current_txn_start_offset = s.txn_first_offset ? s.txn_first_offset->value() : -1;
          found.push_back(r);
        }
        std::sort(found.begin(), found.end(),
                  [](const auto& a, const auto& b) { return a.producer_id < b.producer_id; });
        done(std::move(found));
      },
      [resp, where, out](std::vector<Producers> results) {
        for (size_t i = 0; i < results.size(); ++i) {
          auto& rp = resp->topics[where[i].first].partitions[where[i].second];
          if (results[i]) {
            rp.active_producers = std::move(*results[i]);
          } else {
            rp.error_code = kafka::code(results[i].error().code());
            rp.error_message = results[i].error().message();
          }
        }
        out.send(*resp);
      });
}

}  // namespace strata::server::handlers
