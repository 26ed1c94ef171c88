// ListOffsets and DeleteRecords: per-partition offset queries and log start
// moves, run on the shards that own the partitions.
#include <spdlog/spdlog.h>

#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"
#include "server/partition_ops.h"

namespace strata::server::handlers {
namespace {

using kafka::ErrorCode;

struct OffsetAnswer {
  ErrorCode error = ErrorCode::kNone;
  int64_t offset = -1;
  int64_t timestamp = -1;
};

// Resolves topic/partition names to uids; fills `error` for the ones that
// do not exist. Returns the positions (topic, partition) of the good ones.
template <typename Req, typename Resp, typename SetError>
std::vector<std::pair<size_t, size_t>> resolve(const coordinator::ClusterSnapshot& snap,
                                               const Req& topics, Resp& out_topics,
                                               std::vector<PartitionUid>& uids,
                                               SetError set_error) {
  std::vector<std::pair<size_t, size_t>> where;
  for (const auto& t : topics) {
    auto& rt = out_topics.emplace_back();
    rt.name = t.name;
    const auto* topic = snap.find(t.name);
    for (const auto& p : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition_index = p.partition_index;
      if (topic == nullptr || p.partition_index < 0 || p.partition_index >= topic->partitions) {
        set_error(rp, ErrorCode::kUnknownTopicOrPartition);
        continue;
      }
      uids.push_back(topic->uid(PartitionId(p.partition_index)));
      where.emplace_back(out_topics.size() - 1, rt.partitions.size() - 1);
    }
  }
  return where;
}

void lookup(Partition* p, int64_t ts, std::function<void(OffsetAnswer)> done) {
  if (p == nullptr) return done(OffsetAnswer{ErrorCode::kNotLeaderOrFollower});
  auto& log = p->log();
  Offset hw = p->high_watermark();
  using L = kafka::ListOffsetsRequest;
  if (ts == L::kEarliest)
    return done(OffsetAnswer{ErrorCode::kNone, log.log_start_offset().value()});
  if (ts == L::kLatest) return done(OffsetAnswer{ErrorCode::kNone, hw.value()});
  if (ts == L::kMaxTimestamp) {
    if (log.log_start_offset() == hw) return done(OffsetAnswer{});
    ts = log.max_timestamp();
  } else if (ts < 0) {
    return done(OffsetAnswer{ErrorCode::kInvalidRequest});
  }
  log.offset_for_timestamp(ts, [hw, done](Result<std::optional<engine::TimestampLookup>> r) {
    if (!r) return done(OffsetAnswer{kafka::to_error_code(r.error().code())});
    // Only what consumers may read counts.
    if (!r->has_value() || (*r)->offset >= hw) return done(OffsetAnswer{});
    done(OffsetAnswer{ErrorCode::kNone, (*r)->offset.value(), (*r)->timestamp});
  });
}

}  // namespace

void list_offsets(const RequestContext& ctx, kafka::ListOffsetsRequest req,
                  Responder<kafka::ListOffsetsResponse> out) {
  auto snap = ctx.broker.snapshot();
  auto resp = std::make_shared<kafka::ListOffsetsResponse>();
  std::vector<PartitionUid> uids;
  auto where = resolve(*snap, req.topics, resp->topics, uids,
                       [](auto& rp, ErrorCode e) { rp.error_code = kafka::code(e); });
  std::vector<int64_t> timestamps;
  std::vector<int32_t> epochs;
  for (const auto& t : req.topics) {
    const auto* topic = snap->find(t.name);
    for (const auto& p : t.partitions) {
      if (topic != nullptr && p.partition_index >= 0 && p.partition_index < topic->partitions) {
        timestamps.push_back(p.timestamp);
        epochs.push_back(p.current_leader_epoch);
      }
    }
  }
  int16_t v = out.version();
  run_on_owners<OffsetAnswer>(
      ctx.broker, ctx.shard.id(), uids,
      [timestamps, epochs](Partition* p, size_t i, std::function<void(OffsetAnswer)> done) {
        if (epochs[i] > 0) return done(OffsetAnswer{ErrorCode::kUnknownLeaderEpoch});
        lookup(p, timestamps[i], std::move(done));
      },
      [resp, where, out, v](std::vector<OffsetAnswer> answers) {
        for (size_t i = 0; i < answers.size(); ++i) {
          auto& rp = resp->topics[where[i].first].partitions[where[i].second];
          const auto& a = answers[i];
          rp.error_code = kafka::code(a.error);
          if (a.error != ErrorCode::kNone) continue;
          rp.offset = a.offset;
          rp.timestamp = a.timestamp;
          rp.leader_epoch = 0;
          if (v == 0 && a.offset >= 0) rp.old_style_offsets = {a.offset};
        }
        out.send(*resp);
      });
}

void delete_records(const RequestContext& ctx, kafka::DeleteRecordsRequest req,
                    Responder<kafka::DeleteRecordsResponse> out) {
  auto snap = ctx.broker.snapshot();
  auto resp = std::make_shared<kafka::DeleteRecordsResponse>();
  std::vector<PartitionUid> uids;
  auto where = resolve(*snap, req.topics, resp->topics, uids,
                       [](auto& rp, ErrorCode e) { rp.error_code = kafka::code(e); });
  std::vector<int64_t> targets;
  for (const auto& t : req.topics) {
    const auto* topic = snap->find(t.name);
    for (const auto& p : t.partitions) {
      if (topic != nullptr && p.partition_index >= 0 && p.partition_index < topic->partitions) {
        targets.push_back(p.offset);
      }
    }
  }
  run_on_owners<OffsetAnswer>(
      ctx.broker, ctx.shard.id(), uids,
      [targets](Partition* p, size_t i, std::function<void(OffsetAnswer)> done) {
        if (p == nullptr) return done(OffsetAnswer{ErrorCode::kNotLeaderOrFollower});
        Offset hw = p->high_watermark();
        // -1 means "up to the high watermark".
        int64_t target = targets[i] == -1 ? hw.value() : targets[i];
        if (target < 0 || Offset(target) > hw)
          return done(OffsetAnswer{ErrorCode::kOffsetOutOfRange});
        if (Offset(target) > p->log().log_start_offset()) {
          if (auto st = p->log().advance_start_offset(Offset(target)); !st) {
            spdlog::error("DeleteRecords on {}-{}: {}", p->topic(), p->id(),
                          st.error().to_string());
            return done(OffsetAnswer{kafka::to_error_code(st.error().code())});
          }
          spdlog::info("DeleteRecords: {}-{} now starts at {}", p->topic(), p->id(), target);
        }
        done(OffsetAnswer{ErrorCode::kNone, p->log().log_start_offset().value()});
      },
      [resp, where, out](std::vector<OffsetAnswer> answers) {
        for (size_t i = 0; i < answers.size(); ++i) {
          auto& rp = resp->topics[where[i].first].partitions[where[i].second];
          rp.error_code = kafka::code(answers[i].error);
          if (answers[i].error == ErrorCode::kNone) rp.low_watermark = answers[i].offset;
        }
        out.send(*resp);
      });
}

}  // namespace strata::server::handlers
