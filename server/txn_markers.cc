#include "server/txn_markers.h"

#include <map>

#include <spdlog/spdlog.h>

#include "replication/fan_out.h"
#include "server/controller_forward.h"
#include "server/kafka/codec.h"
#include "server/kafka/header.h"
#include "server/kafka/messages/write_txn_markers.h"
#include "server/kafka/response.h"
#include "server/partition_route.h"
#include "server/services.h"
#include "server/shard_state.h"

namespace strata::server {

using replication::Partition;
using replication::run_on_owners;
namespace {

using coordinator::MarkerOutcome;
using coordinator::TxnPartition;
using kafka::ErrorCode;
using Outcomes = std::vector<std::pair<TxnPartition, MarkerOutcome>>;

constexpr int16_t kMarkersVersion = 1;

// What a partition's answer means for the coordinator.
MarkerOutcome outcome_of(const TxnPartition& p, ErrorCode code) {
  switch (code) {
    case ErrorCode::kNone: return MarkerOutcome::kWritten;
    case ErrorCode::kUnknownTopicOrPartition:
      // Deleted: no transaction is left open there.
      return MarkerOutcome::kWritten;
    case ErrorCode::kInvalidProducerEpoch:
    case ErrorCode::kTransactionCoordinatorFenced:
      // A newer epoch or coordinator wrote there: this coordinator is stale.
      spdlog::warn("marker for {}-{}: {}", p.topic, p.partition, kafka::error_name(code));
      return MarkerOutcome::kFenced;
    default: return MarkerOutcome::kRetry;
  }
}

// Sends the markers of `partitions` (all led by `leader`) as WriteTxnMarkers.
void send_to(Services services, unsigned origin, int32_t leader, const coordinator::MarkerWrite& w,
             std::vector<TxnPartition> partitions, std::function<void(Outcomes)> done) {
  kafka::WriteTxnMarkersRequest req;
  auto& m = req.markers.emplace_back();
  m.producer_id = w.producer_id;
  m.producer_epoch = w.producer_epoch;
  m.transaction_result = w.commit;
  m.coordinator_epoch = w.coordinator_epoch;
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const auto& p : partitions)
    by_topic[p.topic].push_back(p.partition);
  for (auto& [name, ids] : by_topic)
    m.topics.push_back({name, std::move(ids)});
  kafka::RequestHeader h{kafka::WriteTxnMarkersRequest::kApiKey, kMarkersVersion, 1,
                         std::string(kForwardedClientId)};
  call_broker(
      services.cluster, services.shards.state(origin), leader, kafka::encode_request(h, req),
      [partitions, done = std::move(done), leader](Result<SharedBytes> r) {
        Outcomes out;
        std::map<TxnPartition, ErrorCode> codes;
        if (r) {
          auto resp = kafka::decode_response<kafka::WriteTxnMarkersResponse>(*r, kMarkersVersion);
          if (resp) {
            for (const auto& marker : resp->markers)
              for (const auto& t : marker.topics)
                for (const auto& p : t.partitions)
                  codes[{t.name, p.partition_index}] = static_cast<ErrorCode>(p.error_code);
          } else {
            spdlog::warn("broker {}: {}", leader, resp.error().to_string());
          }
        } else {
          spdlog::info("markers to broker {}: {}", leader, r.error().to_string());
        }
        for (const auto& p : partitions) {
          auto it = codes.find(p);
          out.emplace_back(p,
                           it == codes.end() ? MarkerOutcome::kRetry : outcome_of(p, it->second));
        }
        done(std::move(out));
      });
}

}  // namespace

void append_markers(Services services, unsigned origin, const engine::TxnMarker& marker,
                    const std::vector<TxnPartition>& partitions,
                    std::function<void(std::vector<ErrorCode>)> done) {
  auto snap = services.cluster.snapshot();
  std::vector<ErrorCode> codes(partitions.size(), ErrorCode::kNone);
  std::vector<PartitionUid> uids;
  std::vector<size_t> where;
  for (size_t i = 0; i < partitions.size(); ++i) {
    auto route = services.cluster.route(snap->find(partitions[i].topic), partitions[i].partition);
    if (!route.ok()) {
      codes[i] = route.error;
      continue;
    }
    uids.push_back(route.uid);
    where.push_back(i);
  }
  run_on_owners<Status>(
      services.shards, origin, uids,
      [services, marker](Partition* p, size_t, std::function<void(Status)> append_done) {
        if (p == nullptr) return append_done(replication::not_hosted());
        services.shards.state(services.shards.shard_for(p->uid()))
            .append_marker(*p, marker, std::move(append_done));
      },
      [codes = std::move(codes), where, done = std::move(done)](std::vector<Status> r) mutable {
        for (size_t j = 0; j < r.size(); ++j)
          if (!r[j]) codes[where[j]] = kafka::to_error_code(r[j].error().code());
        done(std::move(codes));
      });
}

void write_txn_markers(Services services, unsigned origin, coordinator::MarkerWrite w,
                       std::function<void(Outcomes)> done) {
  // Group the partitions by their leaders now.
  auto snap = services.cluster.snapshot();
  std::map<int32_t, std::vector<TxnPartition>> by_leader;
  Outcomes unknown;
  for (auto& p : w.partitions) {
    const auto* topic = snap->find(p.topic);
    const auto* state = topic == nullptr ? nullptr : topic->state(p.partition);
    if (state == nullptr) {
      unknown.emplace_back(p, MarkerOutcome::kWritten);  // deleted
    } else if (state->leader < 0) {
      unknown.emplace_back(p, MarkerOutcome::kRetry);  // no leader right now
    } else {
      by_leader[state->leader].push_back(p);
    }
  }
  struct Gather {
    Outcomes out;
    size_t left = 0;
    std::function<void(Outcomes)> done;
  };
  auto g = std::make_shared<Gather>();
  g->out = std::move(unknown);
  g->left = by_leader.size();
  g->done = std::move(done);
  if (g->left == 0) return g->done(std::move(g->out));
  auto add = [g](Outcomes o) {
    for (auto& x : o)
      g->out.push_back(std::move(x));
    if (--g->left == 0) g->done(std::move(g->out));
  };
  engine::TxnMarker marker{w.producer_id, w.producer_epoch, w.coordinator_epoch, w.commit};
  for (auto& [leader, partitions] : by_leader) {
    if (leader != services.cluster.node_id()) {
      send_to(services, origin, leader, w, std::move(partitions), add);
      continue;
    }
    append_markers(services, origin, marker, partitions,
                   [partitions, add](std::vector<ErrorCode> codes) {
                     Outcomes o;
                     for (size_t i = 0; i < partitions.size(); ++i)
                       o.emplace_back(partitions[i], outcome_of(partitions[i], codes[i]));
                     add(std::move(o));
                   });
  }
}

}  // namespace strata::server
