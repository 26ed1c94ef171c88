// The transaction APIs. A transactional id lives on the broker and shard
// leading its __transaction_state partition (txn_partition_for); requests
// run there in its TxnCoordinator and are answered on the connection's
// shard. WriteTxnMarkers is the partition leaders' side: the coordinator
// (or an admin tool) asks for markers to be appended.
#include <map>

#include <spdlog/spdlog.h>

#include "coordinator/internal_topics.h"
#include "server/handlers/coordinator_route.h"
#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"
#include "server/shard_state.h"
#include "server/txn_markers.h"

namespace strata::server::handlers {
namespace {

using coordinator::TxnCoordinator;
using coordinator::TxnPartition;
using kafka::ErrorCode;

// The wire code of `e` for a request of `version`: PRODUCER_FENCED (KIP-588)
// only from `fenced_from` on, INVALID_PRODUCER_EPOCH before.
int16_t wire(Errc e, int16_t version, int16_t fenced_from) {
  if (e == Errc::kProducerFenced && version < fenced_from)
    return kafka::code(ErrorCode::kInvalidProducerEpoch);
  return kafka::code(e);
}

// Runs `fn` with the coordinator of `transactional_id` on its shard.
template <typename R>
void on_txn_shard(const RequestContext& ctx, const std::string& transactional_id,
                  std::function<void(TxnCoordinator&, std::function<void(R)>)> fn,
                  std::function<void(R)> reply, std::function<R(Errc)> unavailable) {
  on_coordinator_shard<R>(
      ctx.services(), ctx.shard.id(), coordinator::kTransactionStateTopic,
      coordinator::txn_partition_for(transactional_id),
      [fn = std::move(fn)](ShardState& s, std::function<void(R)> done) {
        fn(s.txns(), std::move(done));
      },
      std::move(reply),
      [unavailable = std::move(unavailable)](ErrorCode e) {
        return unavailable(kafka::to_errc(e));
      });
}

// The partitions of `topics` that do not exist, by (topic, partition).
template <typename Topics>
// `internal`: whether internal topics count (a broker verifying a
// transaction's __consumer_offsets partition for TxnOffsetCommit); a client
// cannot add them.
std::set<TxnPartition> missing_partitions(const coordinator::ClusterSnapshot& snap,
                                          const Topics& topics, bool internal) {
  std::set<TxnPartition> missing;
  for (const auto& t : topics) {
    const auto* topic = snap.find(t.name);
    for (int32_t p : t.partitions)
      if (topic == nullptr || (topic->internal && !internal) || p < 0 || p >= topic->partitions)
        missing.insert({t.name, p});
  }
  return missing;
}

}  // namespace

void init_transactional_producer(const RequestContext& ctx, kafka::InitProducerIdRequest req,
                                 Responder<kafka::InitProducerIdResponse> out) {
  std::optional<coordinator::ProducerIdEpoch> expected;
  if (out.version() >= 3 && req.producer_id >= 0) {
    expected = coordinator::ProducerIdEpoch{req.producer_id, req.producer_epoch};
  }
  using R = TxnCoordinator::InitResult;
  on_txn_shard<R>(
      ctx, *req.transactional_id,
      [id = *req.transactional_id, timeout = req.transaction_timeout_ms, expected](
          TxnCoordinator& tc, std::function<void(R)> done) {
        tc.init_producer(id, timeout, expected, std::move(done));
      },
      [out](R r) {
        kafka::InitProducerIdResponse resp;
        resp.error_code = wire(r.error, out.version(), 4);
        resp.producer_id = r.error == Errc::kOk ? r.producer_id : -1;
        resp.producer_epoch = r.error == Errc::kOk ? r.producer_epoch : -1;
        out.send(resp);
      },
      [](Errc e) { return R{e}; });
}

void add_partitions_to_txn(const RequestContext& ctx, kafka::AddPartitionsToTxnRequest req,
                           Responder<kafka::AddPartitionsToTxnResponse> out) {
  using Req = kafka::AddPartitionsToTxnRequest;
  using Resp = kafka::AddPartitionsToTxnResponse;
  // v0-3: one transaction at the top level; v4 (between brokers): several.
  std::vector<Req::Transaction> txns = std::move(req.transactions);
  bool v4 = out.version() >= 4;
  if (!v4) {
    txns.push_back({req.v3_and_below_transactional_id, req.v3_and_below_producer_id,
                    req.v3_and_below_producer_epoch, false, std::move(req.v3_and_below_topics)});
  }
  struct Gather {
    std::vector<Resp::TransactionResult> results;
    size_t left = 0;
  };
  auto g = std::make_shared<Gather>();
  g->results.resize(txns.size());
  g->left = txns.size();
  auto finish = [g, out, v4] {
    Resp resp;
    if (v4) {
      resp.results_by_transaction = std::move(g->results);
    } else if (!g->results.empty()) {
      resp.results_by_topic_v3_and_below = std::move(g->results.front().topic_results);
    }
    out.send(resp);
  };
  if (txns.empty()) return finish();
  auto snap = ctx.cluster.snapshot();
  for (size_t i = 0; i < txns.size(); ++i) {
    auto& t = txns[i];
    g->results[i].transactional_id = t.transactional_id;
    // Every partition gets the transaction's one answer, but those that do
    // not exist: UNKNOWN_TOPIC_OR_PARTITION, and the rest OPERATION_NOT_ATTEMPTED.
    auto missing = missing_partitions(*snap, t.topics, t.verify_only);
    std::vector<TxnPartition> partitions;
    for (const auto& topic : t.topics)
      for (int32_t p : topic.partitions)
        partitions.push_back({topic.name, p});
    auto answer = [g, i, partitions, missing, finish,
                   version = out.version()](std::vector<Errc> errors) {
      std::map<std::string, Resp::TopicResult> by_topic;
      for (size_t j = 0; j < partitions.size(); ++j) {
        const auto& p = partitions[j];
        auto& tr = by_topic[p.topic];
        tr.name = p.topic;
        int16_t code;
        if (missing.count(p) != 0) {
          code = kafka::code(ErrorCode::kUnknownTopicOrPartition);
        } else if (!missing.empty()) {
          code = kafka::code(ErrorCode::kOperationNotAttempted);
        } else {
          code = wire(errors.size() == 1 ? errors[0] : errors[j], version, 2);
        }
        tr.results_by_partition.push_back({p.partition, code});
      }
      for (auto& [name, tr] : by_topic)
        g->results[i].topic_results.push_back(std::move(tr));
      if (--g->left == 0) finish();
    };
    if (!missing.empty() || partitions.empty()) {
      answer({Errc::kOk});
      continue;
    }
    using R = std::vector<Errc>;
    on_txn_shard<R>(
        ctx, t.transactional_id,
        [id = t.transactional_id, pid = t.producer_id, epoch = t.producer_epoch,
         verify = t.verify_only, partitions](TxnCoordinator& tc, std::function<void(R)> done) {
          if (!verify) {
            return tc.add_partitions(id, pid, epoch, partitions, [done](Errc e) { done(R{e}); });
          }
          R errors;
          for (const auto& p : partitions)
            errors.push_back(tc.verify(id, pid, epoch, p));
          done(std::move(errors));
        },
        answer, [](Errc e) { return R{e}; });
  }
}

void add_offsets_to_txn(const RequestContext& ctx, kafka::AddOffsetsToTxnRequest req,
                        Responder<kafka::AddOffsetsToTxnResponse> out) {
  auto reply = [out](Errc e) {
    kafka::AddOffsetsToTxnResponse resp;
    resp.error_code = wire(e, out.version(), 2);
    out.send(resp);
  };
  if (req.group_id.empty()) {
    kafka::AddOffsetsToTxnResponse resp;
    resp.error_code = kafka::code(ErrorCode::kInvalidGroupId);
    return out.send(resp);
  }
  // The group's offsets partition joins the transaction: its commit marker
  // is what makes the transaction's offsets visible.
  TxnPartition offsets{std::string(coordinator::kOffsetsTopic),
                       coordinator::offsets_partition_for(req.group_id)};
  auto services = ctx.services();
  services.controller.ensure_internal_topic(
      ctx.shard.id(), coordinator::kOffsetsTopic,
      [ctx, req = std::move(req), offsets, reply](Status st) {
        if (!st) return reply(Errc::kCoordinatorNotAvailable);
        on_txn_shard<Errc>(
            ctx, req.transactional_id,
            [req, offsets](TxnCoordinator& tc, std::function<void(Errc)> done) {
              tc.add_partitions(req.transactional_id, req.producer_id, req.producer_epoch,
                                {offsets}, std::move(done));
            },
            reply, [](Errc e) { return e; });
      });
}

void end_txn(const RequestContext& ctx, kafka::EndTxnRequest req,
             Responder<kafka::EndTxnResponse> out) {
  on_txn_shard<Errc>(
      ctx, req.transactional_id,
      [req](TxnCoordinator& tc, std::function<void(Errc)> done) {
        tc.end_txn(req.transactional_id, req.producer_id, req.producer_epoch, req.committed,
                   std::move(done));
      },
      [out](Errc e) {
        kafka::EndTxnResponse resp;
        resp.error_code = wire(e, out.version(), 2);
        out.send(resp);
      },
      [](Errc e) { return e; });
}

void write_txn_markers(const RequestContext& ctx, kafka::WriteTxnMarkersRequest req,
                       Responder<kafka::WriteTxnMarkersResponse> out) {
  struct Gather {
    kafka::WriteTxnMarkersResponse resp;
    size_t left = 0;
  };
  auto g = std::make_shared<Gather>();
  g->left = req.markers.size();
  if (g->left == 0) return out.send(g->resp);
  g->resp.markers.resize(req.markers.size());
  for (size_t i = 0; i < req.markers.size(); ++i) {
    const auto& m = req.markers[i];
    g->resp.markers[i].producer_id = m.producer_id;
    std::vector<TxnPartition> partitions;
    for (const auto& t : m.topics)
      for (int32_t p : t.partition_indexes)
        partitions.push_back({t.name, p});
    engine::TxnMarker marker{m.producer_id, m.producer_epoch, m.coordinator_epoch,
                             m.transaction_result};
    append_markers(ctx.services(), ctx.shard.id(), marker, partitions,
                   [g, i, partitions, out](std::vector<ErrorCode> codes) {
                     std::map<std::string, kafka::WriteTxnMarkersResponse::Topic> by_topic;
                     for (size_t j = 0; j < partitions.size(); ++j) {
                       auto& t = by_topic[partitions[j].topic];
                       t.name = partitions[j].topic;
                       t.partitions.push_back({partitions[j].partition, kafka::code(codes[j])});
                     }
                     for (auto& [name, t] : by_topic)
                       g->resp.markers[i].topics.push_back(std::move(t));
                     if (--g->left == 0) out.send(g->resp);
                   });
  }
}

void describe_transactions(const RequestContext& ctx, kafka::DescribeTransactionsRequest req,
                           Responder<kafka::DescribeTransactionsResponse> out) {
  using State = kafka::DescribeTransactionsResponse::TransactionState;
  struct Gather {
    kafka::DescribeTransactionsResponse resp;
    size_t left = 0;
  };
  auto g = std::make_shared<Gather>();
  g->left = req.transactional_ids.size();
  if (g->left == 0) return out.send(g->resp);
  g->resp.transaction_states.resize(req.transactional_ids.size());
  for (size_t i = 0; i < req.transactional_ids.size(); ++i) {
    const auto& id = req.transactional_ids[i];
    on_txn_shard<State>(
        ctx, id,
        [id](TxnCoordinator& tc, std::function<void(State)> done) {
          State s;
          s.transactional_id = id;
          if (auto e = tc.routing_error(id)) {
            s.error_code = kafka::code(*e);
          } else if (auto m = tc.describe(id)) {
            s.transaction_state = std::string(coordinator::state_name(m->state));
            s.transaction_timeout_ms = m->timeout_ms;
            s.transaction_start_time_ms = m->start_ms;
            s.producer_id = m->producer_id;
            s.producer_epoch = m->producer_epoch;
            std::map<std::string, std::vector<int32_t>> by_topic;
            for (const auto& p : m->partitions)
              by_topic[p.topic].push_back(p.partition);
            for (auto& [name, ids] : by_topic)
              s.topic_partitions.push_back({name, std::move(ids)});
          } else {
            s.error_code = kafka::code(ErrorCode::kTransactionalIdNotFound);
          }
          done(std::move(s));
        },
        [g, i, out](State s) {
          g->resp.transaction_states[i] = std::move(s);
          if (--g->left == 0) out.send(g->resp);
        },
        [id](Errc e) {
          State s;
          s.transactional_id = id;
          s.error_code = kafka::code(e);
          return s;
        });
  }
}

void list_transactions(const RequestContext& ctx, kafka::ListTransactionsRequest req,
                       Responder<kafka::ListTransactionsResponse> out) {
  using State = kafka::ListTransactionsResponse::TransactionState;
  struct Gather {
    kafka::ListTransactionsResponse resp;
    size_t left = 0;
  };
  auto g = std::make_shared<Gather>();
  auto services = ctx.services();
  g->left = services.shards.shard_count();
  std::set<std::string> states(req.state_filters.begin(), req.state_filters.end());
  for (const auto& name : states) {
    bool known = false;
    for (int8_t s = 0; s <= static_cast<int8_t>(coordinator::TxnState::kPrepareEpochFence); ++s)
      known = known || coordinator::state_name(static_cast<coordinator::TxnState>(s)) == name;
    if (!known) g->resp.unknown_state_filters.push_back(name);
  }
  std::set<int64_t> pids(req.producer_id_filters.begin(), req.producer_id_filters.end());
  int64_t min_duration = out.version() >= 1 ? req.duration_filter : -1;
  unsigned origin = ctx.shard.id();
  for (unsigned s = 0; s < services.shards.shard_count(); ++s) {
    services.shards.shard(s).post([services, s, origin, g, out, states, pids, min_duration] {
      std::vector<State> found;
      int64_t now = services.clock.now_ms();
      for (const auto& [id, m] : services.shards.state(s).txns().list()) {
        auto name = std::string(coordinator::state_name(m.state));
        if (!states.empty() && states.count(name) == 0) continue;
        if (!pids.empty() && pids.count(m.producer_id) == 0) continue;
        if (min_duration >= 0 && (m.start_ms < 0 || now - m.start_ms <= min_duration)) continue;
        found.push_back({id, m.producer_id, name});
      }
      services.shards.shard(origin).post([g, out, found = std::move(found)] {
        for (const auto& f : found)
          g->resp.transaction_states.push_back(f);
        if (--g->left == 0) out.send(g->resp);
      });
    });
  }
}

}  // namespace strata::server::handlers
