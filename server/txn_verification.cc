#include "server/txn_verification.h"

#include <fmt/format.h>

#include "coordinator/txn/txn_records.h"
#include "server/controller_forward.h"
#include "server/kafka/codec.h"
#include "server/kafka/header.h"
#include "server/kafka/messages/add_partitions_to_txn.h"
#include "server/kafka/response.h"
#include "server/partition_route.h"
#include "server/services.h"
#include "server/shard_state.h"

namespace strata::server {
namespace {

constexpr int16_t kVerifyVersion = 4;

Status status_of(Errc e, const coordinator::TxnPartition& p, const std::string& id) {
  switch (e) {
    case Errc::kOk: return ok_status();
    case Errc::kProducerFenced:
    case Errc::kInvalidProducerEpoch:
      return Error(Errc::kInvalidProducerEpoch,
                   fmt::format("transactional id '{}': the producer's epoch is fenced", id));
    case Errc::kNotCoordinator:
    case Errc::kCoordinatorNotAvailable:
    case Errc::kCoordinatorLoadInProgress:
    case Errc::kConcurrentTransactions:
      return Error(Errc::kUnavailable,
                   fmt::format("transactional id '{}': its coordinator could not verify {}-{} "
                               "now ({})",
                               id, p.topic, p.partition, errc_name(e)));
    default:
      return Error(Errc::kInvalidTxnState,
                   fmt::format("{}-{} is not in transactional id '{}''s transaction", p.topic,
                               p.partition, id));
  }
}

}  // namespace

void verify_txn_partition(Services services, unsigned here, const std::string& id,
                          const coordinator::TxnPartition& partition, int64_t producer_id,
                          int16_t epoch, std::function<void(Status)> done) {
  auto snap = services.cluster.snapshot();
  const auto* topic = snap->find(coordinator::kTransactionStateTopic);
  int32_t txn_partition = coordinator::txn_partition_for(id);
  const auto* state = topic == nullptr ? nullptr : topic->state(txn_partition);
  if (state == nullptr || state->leader < 0) {
    return done(status_of(Errc::kCoordinatorNotAvailable, partition, id));
  }
  if (state->leader == services.cluster.node_id()) {
    unsigned target = services.shards.shard_for(topic->uid(PartitionId(txn_partition)));
    services.shards.shard(target).post([services, target, here, id, partition, producer_id, epoch,
                                        done = std::move(done)]() mutable {
      auto e = services.shards.state(target).txns().verify(id, producer_id, epoch, partition);
      services.shards.shard(here).post(
          [e, partition, id, done = std::move(done)] { done(status_of(e, partition, id)); });
    });
    return;
  }
  kafka::AddPartitionsToTxnRequest req;
  auto& t = req.transactions.emplace_back();
  t.transactional_id = id;
  t.producer_id = producer_id;
  t.producer_epoch = epoch;
  t.verify_only = true;
  t.topics.push_back({partition.topic, {partition.partition}});
  kafka::RequestHeader h{kafka::AddPartitionsToTxnRequest::kApiKey, kVerifyVersion, 1,
                         std::string(kForwardedClientId)};
  call_broker(services.cluster, services.shards.state(here), state->leader,
              kafka::encode_request(h, req),
              [id, partition, done = std::move(done)](Result<SharedBytes> r) {
                if (!r) return done(status_of(Errc::kCoordinatorNotAvailable, partition, id));
                auto decoded =
                    kafka::decode_response<kafka::AddPartitionsToTxnResponse>(*r, kVerifyVersion);
                if (!decoded) return done(decoded.error());
                const auto& resp = *decoded;
                auto e = kafka::to_errc(static_cast<kafka::ErrorCode>(resp.error_code));
                for (const auto& tr : resp.results_by_transaction)
                  for (const auto& topic : tr.topic_results)
                    for (const auto& p : topic.results_by_partition)
                      if (e == Errc::kOk)
                        e = kafka::to_errc(static_cast<kafka::ErrorCode>(p.partition_error_code));
                done(status_of(e, partition, id));
              });
}

}  // namespace strata::server
