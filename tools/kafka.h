// Kafka: the CLI's connection to a cluster — one librdkafka handle, with the
// metadata, watermark, offsets-for-times and admin calls the commands use,
// each bounded by --timeout and turned into a Result whose message names the
// broker's error.
//
//   auto k = Kafka::create(globals, Kafka::Kind::kProducer).value();
//   auto md = k->metadata();
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "base/result.h"

namespace strata::tools {

// Options every command takes.
struct Globals {
  std::string bootstrap = "127.0.0.1:9092";
  bool json = false;
  double timeout_s = 10;
  std::vector<std::string> settings;  // -X key=value, passed to librdkafka
  int timeout_ms() const { return static_cast<int>(timeout_s * 1000); }
};

// A failure whose text is the broker's (or librdkafka's) error name and message.
Error kafka_error(rd_kafka_resp_err_t err, std::string_view what, const char* detail = nullptr);

// The outcome, for one topic or group, of an admin call over several.
struct NameResult {
  std::string name;
  rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
  std::string message;  // the broker's text, when `error` is set
};

// The first result whose error is neither success nor `tolerated`, as an
// Error naming `what` and the topic or group; ok if there is none. A
// timed-out one says that the operation may still complete.
Status first_failure(const std::vector<NameResult>& results, std::string_view what,
                     rd_kafka_resp_err_t tolerated = RD_KAFKA_RESP_ERR_NO_ERROR);

struct EventDeleter {
  void operator()(rd_kafka_event_t* e) const { rd_kafka_event_destroy(e); }
};
using Event = std::unique_ptr<rd_kafka_event_t, EventDeleter>;

class Kafka {
 public:
  enum class Kind { kProducer, kConsumer };

  struct Partition {
    int32_t id = 0;
    int32_t leader = -1;
    std::vector<int32_t> replicas;
    std::vector<int32_t> isrs;
    rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  struct Broker {
    int32_t id = 0;
    std::string host;
    int port = 0;
  };
  struct Metadata {
    std::vector<Broker> brokers;
    std::vector<Topic> topics;
    int32_t controller = -1;
    std::string cluster_id;
  };

  // `customize` may register callbacks on the configuration.
  static Result<std::unique_ptr<Kafka>> create(
      const Globals& g, Kind kind, const std::map<std::string, std::string>& extra = {},
      const std::function<void(rd_kafka_conf_t*)>& customize = nullptr);
  ~Kafka();
  Kafka(const Kafka&) = delete;
  Kafka& operator=(const Kafka&) = delete;

  rd_kafka_t* rk() const { return rk_; }
  const Globals& globals() const { return globals_; }

  // Every topic, or just `topic` (which must exist).
  Result<Metadata> metadata(const std::optional<std::string>& topic = std::nullopt);
  Result<Topic> topic(const std::string& name);
  // (log start offset, high watermark)
  Result<std::pair<int64_t, int64_t>> watermarks(const std::string& topic, int32_t partition);
  // The first offset at or after `ts` in each partition; -1 where none.
  Result<std::vector<int64_t>> offsets_for_times(const std::string& topic,
                                                 const std::vector<int32_t>& partitions,
                                                 int64_t ts);

  struct NewTopic {
    std::string name;
    int partitions = 1;
    int replication_factor = -1;  // the broker's default
    std::map<std::string, std::string> configs;
  };
  // One request each; a result per topic or group (an Error only when the
  // request as a whole failed or a topic spec is invalid).
  Result<std::vector<NameResult>> create_topics(const std::vector<NewTopic>& topics);
  Result<std::vector<NameResult>> delete_topics(const std::vector<std::string>& names);
  Result<std::vector<NameResult>> delete_groups(const std::vector<std::string>& names);

  // Runs an admin operation: `start` issues it on the given options and
  // queue; the result event comes back (top-level errors already checked).
  // CreateTopics, DeleteTopics and CreatePartitions pass --timeout to the
  // broker as their operation timeout and wait a few seconds more for its
  // answer; when they time out, the error says they may still complete.
  Result<Event> admin(
      rd_kafka_admin_op_t op,
      const std::function<void(rd_kafka_AdminOptions_t*, rd_kafka_queue_t*)>& start);

 private:
  Kafka(rd_kafka_t* rk, const Globals& g) : rk_(rk), globals_(g) {}
  rd_kafka_t* rk_;
  Globals globals_;
};

}  // namespace strata::tools
