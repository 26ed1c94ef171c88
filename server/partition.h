// Partition: one partition hosted on the shard that owns it — its Log, its
// high watermark, and the fetches long-polling for it.
//
// The high watermark is what consumers may read: with durability=fsync it is
// the durable offset (so nothing a consumer saw can vanish in a crash), with
// durability=replicated the log end. Every append to an fsync topic starts a
// (group-committed) flush so the watermark follows within about one
// fdatasync.
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
      : topic_(std::move(topic)), id_(id), log_(std::move(log)) {}

  const std::string& topic() const { return topic_; }
  PartitionId id() const { return id_; }
  engine::Log& log() { return *log_; }

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
  void after_append();
  void notify();

  struct Waiter {
    Offset seen;
    std::weak_ptr<void> alive;
    std::function<void()> fire;
  };

  std::string topic_;
  PartitionId id_;
  std::unique_ptr<engine::Log> log_;
  std::vector<Waiter> waiters_;
};

}  // namespace strata::server
