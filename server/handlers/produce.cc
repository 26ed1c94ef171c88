// Produce: appends each partition's record set on the shard that owns it.
// acks=0 gets no response (an error closes the connection instead, as
// Kafka does), acks=1 is answered once the batches are written, acks=all
// once the high watermark passes them (every in-sync replica holds them,
// synced on fsync topics; replication::AppendOptions). Produce v0-v2 may carry magic 0/1
// message sets, up-converted to RecordBatch v2 (produce_batches.h).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "replication/fan_out.h"
#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"
#include "server/partition_route.h"
#include "server/produce_batches.h"
#include "server/shard_state.h"
#include "server/txn_verification.h"

namespace strata::server::handlers {

using replication::Partition;
using replication::run_on_owners;

void produce(const RequestContext& ctx, kafka::ProduceRequest req, ReplyFn reply) {
  using kafka::ErrorCode;
  auto services = ctx.services();
  auto snap = services.cluster.snapshot();
  int16_t acks = req.acks;
  bool acks_ok = acks == 0 || acks == 1 || acks == -1;

  kafka::ProduceResponse resp;
  std::vector<PartitionUid> uids;
  std::vector<std::pair<size_t, size_t>> where;  // (topic, partition) in resp
  bool legacy_formats = ctx.header.api_version <= 2;
  std::vector<Result<std::vector<SharedBytes>>> batches;
  for (auto& t : req.topics) {
    auto& rt = resp.responses.emplace_back();
    rt.name = t.name;
    const auto* topic = snap->find(t.name);
    for (auto& p : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.index = p.index;
      auto route = services.cluster.route(topic, p.index);
      if (!acks_ok) {
        rp.error_code = kafka::code(ErrorCode::kInvalidRequiredAcks);
      } else if (!route.ok()) {
        rp.error_code = kafka::code(route.error);
      } else if (topic->internal) {
        rp.error_code = kafka::code(ErrorCode::kInvalidTopicException);
        rp.error_message = "clients cannot write to internal topic " + t.name;
      } else {
        uids.push_back(route.uid);
        where.emplace_back(resp.responses.size() - 1, rt.partitions.size() - 1);
        batches.push_back(produce_batches(p.records, legacy_formats));
      }
    }
  }
  auto shared_batches =
      std::make_shared<std::vector<Result<std::vector<SharedBytes>>>>(std::move(batches));
  // Per partition, the records a compacted topic refused (each written by
  // the partition's shard before its result is delivered here).
  auto record_errors = std::make_shared<std::vector<std::vector<int32_t>>>(uids.size());
  auto finish = [ctx, acks, resp = std::move(resp), where, record_errors, reply = std::move(reply)](
                    std::vector<Result<replication::AppendResult>> results) mutable {
    bool any_error = false;
    for (size_t i = 0; i < results.size(); ++i) {
      auto& rp = resp.responses[where[i].first].partitions[where[i].second];
      for (int32_t index : (*record_errors)[i])
        rp.record_errors.push_back({index, "the record has no key"});
      if (results[i].ok()) {
        rp.base_offset = results[i]->base_offset.value();
        rp.log_append_time_ms = results[i]->log_append_time;
        rp.log_start_offset = results[i]->log_start_offset.value();
      } else {
        rp.error_code = kafka::code(results[i].error().code());
        rp.error_message = results[i].error().message();
        spdlog::debug("produce to {}-{} from {}: {}", resp.responses[where[i].first].name, rp.index,
                      ctx.peer(), results[i].error().to_string());
      }
    }
    for (const auto& t : resp.responses) {
      for (const auto& p : t.partitions)
        any_error |= p.error_code != 0;
    }
    if (acks == 0) {
      // Nothing is sent; a failure closes the connection so the client notices.
      return reply(Reply{{}, any_error});
    }
    reply(Reply{kafka::encode_response(ctx.header.correlation_id, ctx.header.api_key,
                                       ctx.header.api_version, resp),
                false});
  };
  replication::AppendOptions options{.acks_all = acks == -1, .timeout_ms = req.timeout_ms};
  std::optional<std::string> txn_id = req.transactional_id;
  run_on_owners<Result<replication::AppendResult>>(
      services.shards, ctx.shard.id(), uids,
      [services, shared_batches, record_errors, options, txn_id](
          Partition* p, size_t i, std::function<void(Result<replication::AppendResult>)> done) {
        auto& split = (*shared_batches)[i];
        if (!split) return done(split.error());
        if (p == nullptr) return done(replication::not_hosted());
        if (p->log().config().cleanup_compact) {
          auto keyless = records_without_key(*split);
          if (!keyless) return done(keyless.error());
          if (!keyless->empty()) {
            (*record_errors)[i] = *keyless;
            return done(Error(Errc::kInvalidRecord,
                              fmt::format("{}-{} is compacted and takes only records with a key; "
                                          "{} record(s) of the batch have none",
                                          p->topic(), p->id().value(), keyless->size())));
          }
        }
        auto opts = options;
        if (txn_id) {
          // A transaction's first write here is checked with its coordinator.
          opts.verify_txn = [services, here = services.shards.shard_for(p->uid()), id = *txn_id,
                             partition = coordinator::TxnPartition{p->topic(), p->id().value()}](
                                int64_t pid, int16_t epoch, std::function<void(Status)> verified) {
            verify_txn_partition(services, here, id, partition, pid, epoch, std::move(verified));
          };
        }
        p->append(std::move(*split), opts, std::move(done));
      },
      std::move(finish));
}

}  // namespace strata::server::handlers
