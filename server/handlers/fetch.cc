// Fetch: reads every requested partition on its owning shard, and long-polls
// — waits for new data, woken by the partitions' high watermarks moving, or
// for max_wait_ms — when fewer than min_bytes came back. Each partition is
// read up to the smaller of its and the request's byte limit; the response
// then takes whole batches in request order while the partition stays within
// its limit and the whole response (records and the encoded fields around
// them) within the request's max_bytes, except that its first batch goes in
// whatever its size (KIP-74). Fetch v0-v3 get the batches down-converted to
// the message format they read (fetch_records.h).
#include <chrono>

#include <boost/asio/steady_timer.hpp>
#include <spdlog/spdlog.h>

#include "replication/fan_out.h"
#include "server/fetch_records.h"
#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"
#include "server/partition_route.h"
#include "server/shard_state.h"

namespace strata::server::handlers {

using replication::LongPoll;
using replication::Partition;
using replication::run_on_owners;
namespace {

using kafka::ErrorCode;

struct PartitionResult {
  Result<replication::ReadResult> read = Error(Errc::kInternal, "not read");
};

class FetchOp : public std::enable_shared_from_this<FetchOp> {
 public:
  FetchOp(const RequestContext& ctx, kafka::FetchRequest req, Responder<kafka::FetchResponse> out)
      : ctx_(ctx), req_(std::move(req)), out_(std::move(out)), poll_(ctx.shard.shard().io()) {}

  void start() {
    auto services = ctx_.services();
    auto snap = services.cluster.snapshot();
    int16_t v = out_.version();
    deadline_ =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(0, req_.max_wait_ms));
    max_bytes_ = std::min(req_.max_bytes > 0 ? req_.max_bytes : INT32_MAX,
                          services.configs.config().fetch_max_bytes);
    if (req_.session_id != 0 || req_.session_epoch > 0) {
      // Strata keeps no fetch sessions: every fetch is a full one.
      top_error_ = ErrorCode::kFetchSessionIdNotFound;
    }
    for (const auto& t : req_.topics) {
      auto& rt = resp_.responses.emplace_back();
      rt.topic = t.topic;
      rt.topic_id = t.topic_id;
      const coordinator::TopicInfo* topic = v >= 13 ? snap->find(t.topic_id) : snap->find(t.topic);
      for (const auto& p : t.partitions) {
        auto& rp = rt.partitions.emplace_back();
        rp.partition_index = p.partition;
        auto route = services.cluster.route(topic, p.partition, p.current_leader_epoch);
        if (topic == nullptr && v >= 13) {
          rp.error_code = kafka::code(ErrorCode::kUnknownTopicId);
        } else if (!route.ok()) {
          rp.error_code = kafka::code(route.error);
        } else {
          size_t limit = static_cast<size_t>(std::max(1, p.partition_max_bytes));
          targets_.push_back(Target{resp_.responses.size() - 1, rt.partitions.size() - 1, route.uid,
                                    Offset(p.fetch_offset), limit,
                                    std::min(limit, static_cast<size_t>(max_bytes_))});
        }
      }
    }
    auto isolation = replication::isolation_from(req_.isolation_level);
    if (isolation) {
      isolation_ = *isolation;
    } else {
      // Neither read_uncommitted nor read_committed: every partition says so
      // (versions before 7 have no top-level error).
      top_error_ = ErrorCode::kInvalidRequest;
      for (auto& rt : resp_.responses) {
        for (auto& rp : rt.partitions)
          rp.error_code = kafka::code(ErrorCode::kInvalidRequest);
      }
    }
    if (top_error_ != ErrorCode::kNone) return respond({});
    attempt();
  }

 private:
  struct Target {
    size_t topic;
    size_t partition;
    PartitionUid uid;
    Offset offset;
    size_t max_bytes;   // the partition's limit in the response
    size_t read_bytes;  // what to read: no more than the response may take
  };

  std::vector<PartitionUid> uids() const {
    std::vector<PartitionUid> out;
    for (const auto& t : targets_)
      out.push_back(t.uid);
    return out;
  }

  void attempt() {
    auto self = shared_from_this();
    auto targets = targets_;
    auto isolation = isolation_;
    run_on_owners<PartitionResult>(
        ctx_.shards, ctx_.shard.id(), uids(),
        [targets, isolation](Partition* p, size_t i, std::function<void(PartitionResult)> done) {
          if (p == nullptr) return done(PartitionResult{replication::not_hosted()});
          p->read(
              targets[i].offset, targets[i].read_bytes, isolation,
              [done](Result<replication::ReadResult> r) { done(PartitionResult{std::move(r)}); });
        },
        [self](std::vector<PartitionResult> results) { self->on_results(std::move(results)); });
  }

  void on_results(std::vector<PartitionResult> results) {
    size_t bytes = 0;
    bool errors = false;
    for (const auto& r : results) {
      if (r.read.ok()) {
        bytes += r.read->bytes;
      } else {
        errors = true;
      }
    }
    bool enough = static_cast<int64_t>(bytes) >= std::max(1, req_.min_bytes) || req_.min_bytes <= 0;
    if (enough || errors || targets_.empty() || ctx_.shards.stopping() ||
        std::chrono::steady_clock::now() >= deadline_) {
      return respond(std::move(results));
    }
    wait(results);
  }

  // Sleeps until a partition's high watermark moves or the deadline passes.
  void wait(const std::vector<PartitionResult>& results) {
    std::vector<Offset> seen;
    for (const auto& r : results)
      seen.push_back(r.read->high_watermark);
    auto self = shared_from_this();
    poll_.arm(ctx_.shards, ctx_.shard.id(), uids(), std::move(seen), /*log_end=*/false, deadline_,
              self, [weak = std::weak_ptr(self)] {
                if (auto op = weak.lock()) op->attempt();
              });
  }

  // What the response takes apart from record bytes: the frame's size and
  // header, and every topic and partition entry with empty records.
  size_t encoded_overhead() const {
    int16_t v = out_.version();
    bool flexible = v >= kafka::FetchRequest::kFlexibleFrom;
    kafka::Writer w(v, flexible);
    w.write_struct(resp_);
    size_t header = 4 + 4 + (flexible ? 1 : 0);
    // A compact records length grows from 1 byte (empty) to at most 5.
    size_t length_growth = flexible ? 4 * targets_.size() : 0;
    return header + w.size() + length_growth;
  }

  void respond(std::vector<PartitionResult> results) {
    resp_.error_code = kafka::code(top_error_);
    // The aborted-transactions lists are set before the overhead is measured
    // so the measured skeleton has the response's shape; the fields set
    // later have fixed sizes.
    for (size_t i = 0; i < results.size(); ++i) {
      const auto& t = targets_[i];
      auto& rp = resp_.responses[t.topic].partitions[t.partition];
      if (isolation_ == replication::Isolation::kReadCommitted && results[i].read.ok()) {
        auto& list = rp.aborted_transactions.emplace();
        for (const auto& a : results[i].read->aborted)
          list.push_back({a.producer_id, a.first_offset.value()});
      }
    }
    size_t overhead = encoded_overhead();
    FetchBudget budget{static_cast<size_t>(max_bytes_) - std::min<size_t>(overhead, max_bytes_)};
    int8_t magic = fetch_magic(out_.version());
    for (size_t i = 0; i < results.size(); ++i) {
      const auto& t = targets_[i];
      auto& rp = resp_.responses[t.topic].partitions[t.partition];
      auto& r = results[i].read;
      if (!r.ok()) {
        rp.error_code = kafka::code(r.error().code());
        continue;
      }
      rp.high_watermark = r->high_watermark.value();
      rp.last_stable_offset = r->last_stable_offset.value();
      rp.log_start_offset = r->log_start_offset.value();
      if (r->bytes == 0) continue;
      auto taken = take_records(r->slices, t.max_bytes, magic, t.offset, budget);
      if (taken.error) {
        rp.error_code = kafka::code(taken.error->code());
        spdlog::debug("fetch v{} of {}-{} from {}: {}", out_.version(),
                      resp_.responses[t.topic].topic, rp.partition_index, ctx_.peer(),
                      taken.error->to_string());
        continue;
      }
      rp.records = std::move(taken.records);
    }
    out_.send(resp_);
  }

  RequestContext ctx_;
  kafka::FetchRequest req_;
  Responder<kafka::FetchResponse> out_;
  kafka::FetchResponse resp_;
  std::vector<Target> targets_;
  ErrorCode top_error_ = ErrorCode::kNone;
  replication::Isolation isolation_ = replication::Isolation::kReadUncommitted;
  int32_t max_bytes_ = INT32_MAX;
  std::chrono::steady_clock::time_point deadline_;
  LongPoll poll_;
};

}  // namespace

void fetch(const RequestContext& ctx, kafka::FetchRequest req,
           Responder<kafka::FetchResponse> out) {
  std::make_shared<FetchOp>(ctx, std::move(req), std::move(out))->start();
}

}  // namespace strata::server::handlers
