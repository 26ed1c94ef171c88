// ListOffsets and DeleteRecords: per-partition offset queries and log start
// moves, run on the shards that own the partitions.
#include <map>
#include <set>
#include <string>

#include <spdlog/spdlog.h>

#include "replication/fan_out.h"
#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"
#include "server/partition_route.h"
#include "server/shard_state.h"

namespace strata::server::handlers {

using replication::Partition;
using replication::run_on_owners;
namespace {

using kafka::ErrorCode;

struct OffsetAnswer {
  ErrorCode error = ErrorCode::kNone;
  int64_t offset = -1;
  int64_t timestamp = -1;
};

using PartitionKey = std::pair<std::string, int32_t>;

// Kafka answers each partition once however often a request names it: the
// entries of one topic become one entry, a topic with no partitions gets
// none, and of a partition named twice the last entry stands. Returns the
// partitions named more than once.
template <typename Topic>
std::set<PartitionKey> merge_entries(std::vector<Topic>& topics) {
  std::vector<Topic> merged;
  std::map<std::string, size_t> topic_at;
  std::map<PartitionKey, std::pair<size_t, size_t>> seen;
  std::set<PartitionKey> named_twice;
  for (auto& t : topics) {
    for (auto& p : t.partitions) {
      PartitionKey key{t.name, p.partition_index};
      if (auto it = seen.find(key); it != seen.end()) {
        named_twice.insert(key);
        merged[it->second.first].partitions[it->second.second] = std::move(p);
        continue;
      }
      auto [at, fresh] = topic_at.try_emplace(t.name, merged.size());
      if (fresh) merged.push_back(Topic{.name = t.name, .partitions = {}});
      auto& parts = merged[at->second].partitions;
      seen.emplace(key, std::pair{at->second, parts.size()});
      parts.push_back(std::move(p));
    }
  }
  topics = std::move(merged);
  return named_twice;
}

// Routes every requested partition (partition_route.h); sets the error
// code of the ones this broker does not serve, and INVALID_REQUEST on those
// in `refused`. Returns, for the good ones,
// their position (topic, partition) in the response, their request entry
// and the leader epoch of their state.
template <typename Req, typename Resp>
auto resolve(Services services, const Req& topics, Resp& out_topics,
             std::vector<PartitionUid>& uids, const std::set<PartitionKey>& refused = {}) {
  auto snap = services.cluster.snapshot();
  int32_t self = services.cluster.node_id();
  bool may_lead = services.cluster.may_lead();
  using Entry = std::remove_cvref_t<decltype(topics.front().partitions.front())>;
  struct Routed {
    size_t topic;
    size_t partition;
    const Entry* request;
    int32_t leader_epoch;  // the partition state's
  };
  std::vector<Routed> out;
  for (const auto& t : topics) {
    auto& rt = out_topics.emplace_back();
    rt.name = t.name;
    const auto* topic = snap->find(t.name);
    for (const auto& p : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition_index = p.partition_index;
      if (refused.contains(PartitionKey{t.name, p.partition_index})) {
        rp.error_code = kafka::code(ErrorCode::kInvalidRequest);
        continue;
      }
      int32_t epoch = kNoLeaderEpoch;
      if constexpr (requires { p.current_leader_epoch; }) epoch = p.current_leader_epoch;
      auto route = route_partition(topic, p.partition_index, epoch, self, may_lead);
      if (!route.ok()) {
        rp.error_code = kafka::code(route.error);
        continue;
      }
      uids.push_back(route.uid);
      out.push_back(
          Routed{out_topics.size() - 1, rt.partitions.size() - 1, &p, route.state->leader_epoch});
    }
  }
  return out;
}

void lookup(Partition* p, int64_t ts, replication::Isolation isolation,
            std::function<void(OffsetAnswer)> done) {
  if (p == nullptr) return done(OffsetAnswer{kafka::to_error_code(Errc::kNotHosted)});
  auto& log = p->log();
  // What a consumer at this isolation level may read (read_committed: the
  // last stable offset) bounds "latest" and the time lookups.
  Offset hw = p->visible_end(isolation);
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
  auto resp = std::make_shared<kafka::ListOffsetsResponse>();
  std::vector<PartitionUid> uids;
  // A partition named twice is answered once, with INVALID_REQUEST.
  auto named_twice = merge_entries(req.topics);
  auto where = resolve(ctx.services(), req.topics, resp->topics, uids, named_twice);
  std::vector<int64_t> timestamps;
  std::vector<int32_t> leader_epochs;
  std::vector<std::pair<size_t, size_t>> at;
  for (const auto& w : where) {
    timestamps.push_back(w.request->timestamp);
    leader_epochs.push_back(w.leader_epoch);
    at.emplace_back(w.topic, w.partition);
  }
  int16_t v = out.version();
  auto level = replication::isolation_from(req.isolation_level);
  if (!level) {
    for (auto& rt : resp->topics) {
      for (auto& rp : rt.partitions)
        rp.error_code = kafka::code(ErrorCode::kInvalidRequest);
    }
    return out.send(*resp);
  }
  auto isolation = *level;
  run_on_owners<OffsetAnswer>(
      ctx.shards, ctx.shard.id(), uids,
      [timestamps, isolation](Partition* p, size_t i, std::function<void(OffsetAnswer)> done) {
        lookup(p, timestamps[i], isolation, std::move(done));
      },
      [resp, at, leader_epochs, out, v](std::vector<OffsetAnswer> answers) {
        for (size_t i = 0; i < answers.size(); ++i) {
          auto& rp = resp->topics[at[i].first].partitions[at[i].second];
          const auto& a = answers[i];
          rp.error_code = kafka::code(a.error);
          if (a.error != ErrorCode::kNone) continue;
          rp.offset = a.offset;
          rp.timestamp = a.timestamp;
          rp.leader_epoch = leader_epochs[i];
          if (v == 0 && a.offset >= 0) rp.old_style_offsets = {a.offset};
        }
        out.send(*resp);
      });
}

void delete_records(const RequestContext& ctx, kafka::DeleteRecordsRequest req,
                    Responder<kafka::DeleteRecordsResponse> out) {
  auto resp = std::make_shared<kafka::DeleteRecordsResponse>();
  std::vector<PartitionUid> uids;
  merge_entries(req.topics);  // a partition named twice: its last offset
  auto where = resolve(ctx.services(), req.topics, resp->topics, uids);
  std::vector<int64_t> targets;
  std::vector<std::pair<size_t, size_t>> at;
  for (const auto& w : where) {
    targets.push_back(w.request->offset);
    at.emplace_back(w.topic, w.partition);
  }
  run_on_owners<OffsetAnswer>(
      ctx.shards, ctx.shard.id(), uids,
      [targets](Partition* p, size_t i, std::function<void(OffsetAnswer)> done) {
        if (p == nullptr) return done(OffsetAnswer{kafka::to_error_code(Errc::kNotHosted)});
        // -1 means "up to the high watermark".
        auto start = p->delete_records(targets[i] == -1 ? p->high_watermark() : Offset(targets[i]));
        if (!start) return done(OffsetAnswer{kafka::to_error_code(start.error().code())});
        done(OffsetAnswer{ErrorCode::kNone, start->value()});
      },
      [resp, at, out](std::vector<OffsetAnswer> answers) {
        for (size_t i = 0; i < answers.size(); ++i) {
          auto& rp = resp->topics[at[i].first].partitions[at[i].second];
          rp.error_code = kafka::code(answers[i].error);
          if (answers[i].error == ErrorCode::kNone) rp.low_watermark = answers[i].offset;
        }
        out.send(*resp);
      });
}

void offset_for_leader_epoch(const RequestContext& ctx, kafka::OffsetForLeaderEpochRequest req,
                             Responder<kafka::OffsetForLeaderEpochResponse> out) {
  auto resp = std::make_shared<kafka::OffsetForLeaderEpochResponse>();
  std::vector<PartitionUid> uids;
  auto where = resolve(ctx.services(), req.topics, resp->topics, uids);
  std::vector<int32_t> epochs;
  std::vector<std::pair<size_t, size_t>> at;
  for (const auto& w : where) {
    epochs.push_back(w.request->leader_epoch);
    at.emplace_back(w.topic, w.partition);
  }
  // A consumer learns nothing past the high watermark; a follower (a
  // replica id >= 0, with replication) reads the log end.
  bool consumer = req.replica_id < 0;
  struct Answer {
    ErrorCode error = ErrorCode::kNone;
    engine::EpochEnd end;
  };
  run_on_owners<Answer>(
      ctx.shards, ctx.shard.id(), uids,
      [epochs, consumer](Partition* p, size_t i, std::function<void(Answer)> done) {
        if (p == nullptr) return done(Answer{kafka::to_error_code(Errc::kNotHosted), {}});
        auto end = p->log().end_offset_for_epoch(LeaderEpoch(epochs[i]));
        if (consumer && end.end_offset > p->high_watermark()) end.end_offset = p->high_watermark();
        done(Answer{ErrorCode::kNone, end});
      },
      [resp, at, out](std::vector<Answer> answers) {
        for (size_t i = 0; i < answers.size(); ++i) {
          auto& rp = resp->topics[at[i].first].partitions[at[i].second];
          rp.error_code = kafka::code(answers[i].error);
          rp.leader_epoch = answers[i].end.epoch.value();
          rp.end_offset = answers[i].end.end_offset.value();
        }
        out.send(*resp);
      });
}

}  // namespace strata::server::handlers
