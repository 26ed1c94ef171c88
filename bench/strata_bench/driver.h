// Driver: how strata-bench talks to one messaging system.
//
// The runner owns threads, pacing, stamping, accounting and statistics; a
// driver only moves bytes, using its system the way that system's own docs
// recommend for throughput (batching, pipelining, async publish). Each
// Producer and Consumer is used by exactly one runner thread, so drivers need
// no locking between them beyond what their client library needs.
//
// Mapping of the workload onto systems without Kafka's model:
//   - partition p of topic T is whatever unit the system orders messages in
//     (a Redis stream "T-p", a NATS subject "T.p" of stream "T");
//   - a consumer group reads every message of its topic once, spread over
//     its members (`member` of `members`);
//   - acks: "0" = do not wait for the system, "1" = the system accepted it,
//     "all" = the strongest durability the system offers for one publish.
//     A driver documents in its file what each level means for its system.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "bench/strata_bench/workload.h"

namespace strata::bench {

// Where a producer reports the fate of each message. Drivers call it only
// from inside Producer::send, poll or flush, on the producer's thread.
class AckSink {
 public:
  virtual ~AckSink() = default;
  // The system acknowledged the message whose stamp carried `send_ns`
  // (drivers can read it back with read_stamp, or remember it).
  virtual void acked(int64_t send_ns) = 0;
  // The system refused the message, or it timed out.
  virtual void failed(std::string_view error) = 0;
};

// Where a consumer delivers what it read. Called from inside Consumer::poll.
class MessageSink {
 public:
  virtual ~MessageSink() = default;
  // `value` is the message value exactly as produced (stamp included); it
  // is only valid during the call.
  virtual void received(std::string_view value) = 0;
};

class Producer {
 public:
  virtual ~Producer() = default;
  // Publishes one message asynchronously; its acknowledgement reaches the
  // sink later. `partition` is -1 for "the system's choice" (Kafka's sticky
  // partitioner, round robin elsewhere), otherwise in [0, partitions).
  // While the driver's in-flight window is full this serves
  // acknowledgements until there is room. An error means the message was not
  // sent (it is counted as failed by the runner; the sink is not called).
  virtual Status send(int partition, std::string_view key, std::string_view value) = 0;
  // Serves acknowledgements, waiting up to `timeout` for one.
  virtual void poll(std::chrono::milliseconds timeout) = 0;
  // Waits until every sent message is acknowledged or failed, or `timeout`
  // passes (then an error saying how many are outstanding).
  virtual Status flush(std::chrono::milliseconds timeout) = 0;
};

class Consumer {
 public:
  virtual ~Consumer() = default;
  // Waits up to `timeout` for messages and hands each to the sink, doing
  // whatever the system needs to mark them consumed (commit, XACK, ack).
  // Returns how many were handed over; an error is a broken consumer.
  virtual Result<size_t> poll(std::chrono::milliseconds timeout, MessageSink& sink) = 0;
  // Leaves the group cleanly and releases the client; poll() after it fails.
  virtual Status close() = 0;
  // How many partitions the group has given this member so far, or -1 where
  // the system has no such assignment (a member reads as soon as it exists).
  // The runner starts producing only once every group's members together
  // hold every partition, so no run measures a group's initial join as
  // latency. May be called from another thread than poll().
  virtual int assigned_partitions() { return -1; }
};

struct DriverOptions {
  // Address of the system: host:port (kafka), redis://host:port,
  // nats://host:port. Empty = the system's default on 127.0.0.1.
  std::string url;
  // Extra driver settings from `-D key=value` (e.g. librdkafka properties for
  // kafka). A driver rejects keys it does not know.
  std::map<std::string, std::string> settings;
};

class Driver {
 public:
  virtual ~Driver() = default;
  virtual std::string_view name() const = 0;
  // Makes the workload's topics exist, empty, with its partition count:
  // deletes what an earlier run left under the same names first. Also
  // removes consumer-group state left under the group names.
  virtual Status prepare(const Workload& w) = 0;
  // A producer writing to `topic`; `index` numbers producers from 0.
  virtual Result<std::unique_ptr<Producer>> producer(const Workload& w, const std::string& topic,
                                                     int index, AckSink& sink) = 0;
  // Member `member` of `members` of `group`, reading every partition of
  // `topic` assigned to it, from the topic's beginning (so nothing produced
  // before it joined is missed).
  virtual Result<std::unique_ptr<Consumer>> consumer(const Workload& w, const std::string& topic,
                                                     const std::string& group, int member,
                                                     int members) = 0;
  // Deletes the workload's topics and groups (best effort, after a run).
  virtual Status cleanup(const Workload& w) = 0;
};

// "kafka", "redis-streams" or "nats-jetstream".
Result<std::unique_ptr<Driver>> make_driver(std::string_view name, const DriverOptions& options);

// One factory per driver, each defined in its driver_*.cc.
Result<std::unique_ptr<Driver>> make_kafka_driver(const DriverOptions& options);
Result<std::unique_ptr<Driver>> make_redis_driver(const DriverOptions& options);
Result<std::unique_ptr<Driver>> make_nats_driver(const DriverOptions& options);

}  // namespace strata::bench
