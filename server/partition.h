// Partition: one partition hosted on the shard that owns it — its Log, its
// high watermark, and the fetches long-polling for it.
//
// The high watermark is what consumers may read: with durability=fsync it is
// the durable offset (so nothing a consumer saw can vanish in a crash), with
// durability=replicated the log end. Every append to an fsync topic starts a
// (group-committed) flush so the watermark follows within about one
// fdatasync; a replicated topic flushes as flush.messages and flush.ms say
// (see FlushPolicy; the shard's timer calls flush_if_due).
//
// Batches are stored in the topic's compression.type unless it is
// "producer": others are recompressed before they are appended.
//
// Thread-safety: the owning shard's thread only.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/ids.h"
#include "base/result.h"
#include "engine/log.h"
#include "server/flush_policy.h"
#include "server/kafka/types.h"

namespace strata::server {

struct ProduceResult {
  Offset base_offset;
  TimestampMs log_append_time = -1;
  Offset log_start_offset;
};

struct ProduceOptions {
  // acks=all: answer once the batches are durable (on fsync topics).
  bool wait_durable = false;
  // Produce v0-v2: a magic 0/1 message set is up-converted to one v2 batch.
  // Later versions may carry magic 2 batches only.
  bool legacy_formats = false;
};

struct FetchRead {
  kafka::Records records;
  Offset high_watermark;
  Offset last_stable_offset;
  Offset log_start_offset;
  size_t bytes = 0;
};

class Partition {
 public:
  Partition(std::string topic, PartitionId id, std::unique_ptr<engine::Log> log)
      : topic_(std::move(topic)), id_(id), log_(std::move(log)) {
    flush_policy_.configure(log_->config());
  }

  const std::string& topic() const { return topic_; }
  PartitionId id() const { return id_; }
  engine::Log& log() { return *log_; }
  // Applies a new topic configuration (the log's limits and the flush policy).
  void set_config(const engine::TopicConfig& config);

  // `listener` hears of every new flush.ms deadline (the shard arms its timer).
  void set_flush_listener(std::function<void(FlushPolicy::Clock::time_point)> listener) {
    flush_listener_ = std::move(listener);
  }
  // When flush.ms next asks for a flush; nullopt if it does not.
  std::optional<FlushPolicy::Clock::time_point> flush_deadline() const {
    return flush_policy_.deadline();
  }
  // Starts the flush that flush.ms asks for, if it is due at `now`.
  void flush_if_due(FlushPolicy::Clock::time_point now);

  Offset high_watermark() const;
  // Without transactions every offset below the high watermark is stable.
  Offset last_stable_offset() const { return high_watermark(); }

  // Appends a producer's record set (one or more batches; all are validated
  // before any is appended). With `wait_durable` (acks=all on an fsync
  // topic) `done` runs once the batches are durable.
  void produce(const kafka::Records& records, const ProduceOptions& options,
               std::function<void(Result<ProduceResult>)> done);

  // Whole batches from `offset` below the high watermark, up to `max_bytes`.
  void read(Offset offset, size_t max_bytes, std::function<void(Result<FetchRead>)> done);

  // Calls `fire` once, when the high watermark moves past `seen` (at once if
  // it already has). Waiters whose `alive` token expired are dropped.
  void wait(Offset seen, std::weak_ptr<void> alive, std::function<void()> fire);
  // Fires every waiter (shutdown).
  void wake_all();

  void close(std::function<void(Status)> done) { log_->close(std::move(done)); }

 private:
  void after_append(int64_t records);
  void notify();
  // Re-encodes `batches` in the topic's compression.type (unless "producer").
  Status apply_topic_compression(std::vector<SharedBytes>& batches) const;
  void start_policy_flush();

  struct Waiter {
    Offset seen;
    std::weak_ptr<void> alive;
    std::function<void()> fire;
  };

  std::string topic_;
  PartitionId id_;
  std::unique_ptr<engine::Log> log_;
  std::vector<Waiter> waiters_;
  FlushPolicy flush_policy_;
  std::function<void(FlushPolicy::Clock::time_point)> flush_listener_;
};

}  // namespace strata::server
