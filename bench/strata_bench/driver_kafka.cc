// The kafka driver: librdkafka against Strata (or any Kafka-protocol
// broker). This is how Strata is measured.
//
//   - Topics are created with the workload's partition count and
//     replication factor (the broker's default unless it names one); `-D topic.<config>=<value>`
//     adds topic configs (e.g. -D topic.durability=fsync). Every other -D key is a librdkafka
//     property for all clients.
//   - Producers: one librdkafka producer each, acks / linger.ms /
//     batch.size from the workload, delivery reports served on the
//     producer's thread by rd_kafka_poll. Partition -1 leaves the choice to
//     librdkafka's partitioner (sticky for null keys).
//   - `-D strata.txn.messages=N`: transactional producers (a
//     transactional.id each) committing a transaction every N messages;
//     acks are delivery reports as above, and a commit's wait is part of
//     the producer's loop, as in an application.
//   - Consumers: subscribe() in a real consumer group, reading from the
//     earliest offset, with auto-commit as applications run it; messages are
//     taken from the consumer queue in batches.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include <librdkafka/rdkafka.h>

#include "bench/strata_bench/driver.h"
#include "bench/strata_bench/message.h"
#include "tools/kafka.h"

namespace strata::bench {
namespace {

using tools::Kafka;

constexpr size_t kConsumeBatch = 4096;

class KafkaProducer final : public Producer {
 public:
  static Result<std::unique_ptr<Producer>> create(const tools::Globals& g, const Workload& w,
                                                  const std::string& topic, int index,
                                                  int64_t txn_messages, AckSink& sink) {
    auto p = std::unique_ptr<KafkaProducer>(new KafkaProducer(topic, sink));
    std::map<std::string, std::string> conf = {
        {"acks", w.acks == "all" ? "-1" : w.acks},
        {"linger.ms", std::to_string(w.linger_ms)},
        {"batch.size", std::to_string(w.batch_bytes)},
    };
    if (txn_messages > 0) {
      conf["transactional.id"] = "strata-bench-" + topic + "-" + std::to_string(index);
      p->txn_messages_ = txn_messages;
    }
    KafkaProducer* self = p.get();
    STRATA_ASSIGN_OR_RETURN(
        p->kafka_, Kafka::create(g, Kafka::Kind::kProducer, conf, [self](rd_kafka_conf_t* c) {
          rd_kafka_conf_set_dr_msg_cb(c, &on_delivery);
          rd_kafka_conf_set_opaque(c, self);
        }));
    p->topic_ = rd_kafka_topic_new(p->kafka_->rk(), topic.c_str(), nullptr);
    if (p->topic_ == nullptr) return Error(Errc::kInvalidArgument, "bad topic " + topic);
    if (txn_messages > 0) {
      STRATA_TRY(txn_status(rd_kafka_init_transactions(p->kafka_->rk(), kTxnTimeoutMs),
                            "init_transactions"));
    }
    return std::unique_ptr<Producer>(std::move(p));
  }
  ~KafkaProducer() override {
    if (topic_ != nullptr) rd_kafka_topic_destroy(topic_);
  }

  Status send(int partition, std::string_view key, std::string_view value) override {
    if (txn_messages_ > 0 && !in_txn_) {
      STRATA_TRY(txn_status(rd_kafka_begin_transaction(kafka_->rk()), "begin_transaction"));
      in_txn_ = true;
    }
    for (;;) {
      int rc = rd_kafka_produce(topic_, partition < 0 ? RD_KAFKA_PARTITION_UA : partition,
                                RD_KAFKA_MSG_F_COPY, const_cast<char*>(value.data()), value.size(),
                                key.empty() ? nullptr : key.data(), key.size(), nullptr);
      if (rc == 0) {
        if (txn_messages_ > 0 && ++sent_in_txn_ >= txn_messages_) return commit();
        return ok_status();
      }
      rd_kafka_resp_err_t err = rd_kafka_last_error();
      if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL)
        return Error(Errc::kInternal, std::string("produce: ") + rd_kafka_err2str(err));
      rd_kafka_poll(kafka_->rk(), 10);  // the local queue is full: serve reports
    }
  }

  void poll(std::chrono::milliseconds timeout) override {
    rd_kafka_poll(kafka_->rk(), static_cast<int>(timeout.count()));
  }

  Status flush(std::chrono::milliseconds timeout) override {
    if (in_txn_) STRATA_TRY(commit());
    rd_kafka_flush(kafka_->rk(), static_cast<int>(timeout.count()));
    int left = rd_kafka_outq_len(kafka_->rk());
    if (left > 0)
      return Error(Errc::kIoError, std::to_string(left) + " message(s) still unacknowledged");
    return ok_status();
  }

 private:
  KafkaProducer(std::string topic, AckSink& sink) : topic_name_(std::move(topic)), sink_(sink) {}

  static constexpr int kTxnTimeoutMs = 60000;

  static Status txn_status(rd_kafka_error_t* e, const char* what) {
    if (e == nullptr) return ok_status();
    Error out(Errc::kInternal, std::string(what) + ": " + rd_kafka_error_string(e));
    rd_kafka_error_destroy(e);
    return out;
  }

  Status commit() {
    in_txn_ = false;
    sent_in_txn_ = 0;
    return txn_status(rd_kafka_commit_transaction(kafka_->rk(), kTxnTimeoutMs),
                      "commit_transaction");
  }

  static void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    auto* self = static_cast<KafkaProducer*>(opaque);
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      self->sink_.failed(rd_kafka_err2str(m->err));
      return;
    }
    auto stamp = read_stamp({static_cast<const char*>(m->payload), m->len});
    self->sink_.acked(stamp ? stamp->send_ns : steady_now_ns());
  }

  std::string topic_name_;
  AckSink& sink_;
  std::unique_ptr<Kafka> kafka_;
  rd_kafka_topic_t* topic_ = nullptr;
  int64_t txn_messages_ = 0;  // 0: not transactional
  int64_t sent_in_txn_ = 0;
  bool in_txn_ = false;
};

class KafkaConsumer final : public Consumer {
 public:
  static Result<std::unique_ptr<Consumer>> create(const tools::Globals& g, const std::string& topic,
                                                  const std::string& group) {
    auto c = std::unique_ptr<KafkaConsumer>(new KafkaConsumer());
    std::map<std::string, std::string> conf = {
        {"group.id", group},
        {"auto.offset.reset", "earliest"},
        {"enable.auto.commit", "true"},
        {"enable.partition.eof", "false"},
    };
    STRATA_ASSIGN_OR_RETURN(c->kafka_, Kafka::create(g, Kafka::Kind::kConsumer, conf));
    rd_kafka_t* rk = c->kafka_->rk();
    rd_kafka_poll_set_consumer(rk);
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), RD_KAFKA_PARTITION_UA);
    rd_kafka_resp_err_t err = rd_kafka_subscribe(rk, list);
    rd_kafka_topic_partition_list_destroy(list);
    if (err) return tools::kafka_error(err, "subscribe to " + topic);
    return std::unique_ptr<Consumer>(std::move(c));
  }
  ~KafkaConsumer() override { (void)close(); }

  int assigned_partitions() override {
    if (!kafka_) return 0;
    rd_kafka_topic_partition_list_t* list = nullptr;
    if (rd_kafka_assignment(kafka_->rk(), &list) != RD_KAFKA_RESP_ERR_NO_ERROR) return 0;
    int n = list->cnt;
    rd_kafka_topic_partition_list_destroy(list);
    return n;
  }

  Result<size_t> poll(std::chrono::milliseconds timeout, MessageSink& sink) override {
    // Wait for the first message only, then take what is already queued
    // without waiting, so no message is held back for a fuller batch.
    if (!kafka_) return Error(Errc::kInvalidArgument, "poll of a closed consumer");
    rd_kafka_t* rk = kafka_->rk();
    size_t delivered = 0;
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, static_cast<int>(timeout.count()));
    for (size_t n = 1; m != nullptr; ++n) {
      rd_kafka_resp_err_t err = m->err;
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        sink.received({static_cast<const char*>(m->payload), m->len});
        ++delivered;
      }
      rd_kafka_message_destroy(m);
      // Other errors are transient consumer events (a broker reconnecting);
      // librdkafka recovers by itself.
      if (err == RD_KAFKA_RESP_ERR__FATAL) return tools::kafka_error(err, "consume");
      m = n < kConsumeBatch ? rd_kafka_consumer_poll(rk, 0) : nullptr;
    }
    return delivered;
  }

  // Leaves the group and destroys the client right away. A closed but
  // undestroyed librdkafka 2.0 consumer whose topic is then deleted (the
  // runner's cleanup) keeps references to its old partitions and never
  // finishes rd_kafka_destroy.
  Status close() override {
    if (!kafka_) return ok_status();
    rd_kafka_resp_err_t err = rd_kafka_consumer_close(kafka_->rk());
    kafka_.reset();
    if (err) return tools::kafka_error(err, "close");
    return ok_status();
  }

 private:
  std::unique_ptr<Kafka> kafka_;
};

class KafkaDriver final : public Driver {
 public:
  KafkaDriver(tools::Globals g, std::map<std::string, std::string> topic_configs,
              std::unique_ptr<Kafka> admin, int64_t txn_messages)
      : globals_(std::move(g)),
        topic_configs_(std::move(topic_configs)),
        admin_(std::move(admin)),
        txn_messages_(txn_messages) {}

  std::string_view name() const override { return "kafka"; }

  Status prepare(const Workload& w) override {
    if (w.keep_topics) {
      auto created = create_topics(w);
      if (created.ok() || created.error().code() == Errc::kAlreadyExists) return ok_status();
      return created;
    }
    STRATA_TRY(delete_topics(w));
    STRATA_TRY(delete_groups(w));
    // A topic just deleted may still be going away: retry creation while the
    // broker says it exists, for a bounded time.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
      auto created = create_topics(w);
      if (created.ok() || created.error().code() != Errc::kAlreadyExists) return created;
      if (std::chrono::steady_clock::now() > deadline) return created;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  Result<std::unique_ptr<Producer>> producer(const Workload& w, const std::string& topic, int index,
                                             AckSink& sink) override {
    return KafkaProducer::create(globals_, w, topic, index, txn_messages_, sink);
  }

  Result<std::unique_ptr<Consumer>> consumer(const Workload&, const std::string& topic,
                                             const std::string& group, int, int) override {
    return KafkaConsumer::create(globals_, topic, group);
  }

  Status cleanup(const Workload& w) override {
    Status topics = w.keep_topics ? ok_status() : delete_topics(w);
    Status groups = delete_groups(w);
    return topics.ok() ? groups : topics;
  }

 private:
  Status create_topics(const Workload& w) {
    std::vector<Kafka::NewTopic> topics;
    for (const auto& name : w.topic_names())
      topics.push_back({name, w.partitions, w.replication_factor, topic_configs_});
    STRATA_ASSIGN_OR_RETURN(auto results, admin_->create_topics(topics));
    for (const auto& r : results) {
      if (r.error == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
        return Error(Errc::kAlreadyExists, "topic " + r.name + " still exists");
    }
    return tools::first_failure(results, "create topic");
  }

  Status delete_topics(const Workload& w) {
    STRATA_ASSIGN_OR_RETURN(auto results, admin_->delete_topics(w.topic_names()));
    return tools::first_failure(results, "delete topic", RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART);
  }

  Status delete_groups(const Workload& w) {
    auto names = w.group_names();
    if (names.empty()) return ok_status();
    // A fresh Apache Kafka answers NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE
    // while it creates and loads __consumer_offsets (on three nodes the
    // admin call may time out meanwhile): retried, for a bounded time.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    for (;;) {
      STRATA_ASSIGN_OR_RETURN(auto results, admin_->delete_groups(names));
      bool retriable = std::any_of(results.begin(), results.end(), [](const auto& r) {
        return r.error == RD_KAFKA_RESP_ERR_NOT_COORDINATOR ||
               r.error == RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE ||
               r.error == RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS ||
               r.error == RD_KAFKA_RESP_ERR__TIMED_OUT;
      });
      if (!retriable || std::chrono::steady_clock::now() > deadline) {
        return tools::first_failure(results, "delete group", RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }

  tools::Globals globals_;
  std::map<std::string, std::string> topic_configs_;
  std::unique_ptr<Kafka> admin_;
  int64_t txn_messages_ = 0;  // strata.txn.messages; 0: plain producers
};

}  // namespace

Result<std::unique_ptr<Driver>> make_kafka_driver(const DriverOptions& options) {
  tools::Globals g;
  if (!options.url.empty()) g.bootstrap = options.url;
  g.timeout_s = 10;  // each admin call and the reachability check below
  std::map<std::string, std::string> topic_configs;
  int64_t txn_messages = 0;
  for (const auto& [k, v] : options.settings) {
    if (k == "strata.txn.messages") {
      char* end = nullptr;
      txn_messages = std::strtoll(v.c_str(), &end, 10);
      if (end == v.c_str() || *end != '\0' || txn_messages <= 0) {
        return Error(Errc::kInvalidArgument,
                     "strata.txn.messages must be a positive number, not '" + v + "'");
      }
    } else if (k.rfind("topic.", 0) == 0) {
      topic_configs[k.substr(6)] = v;
    } else {
      g.settings.push_back(k + "=" + v);
    }
  }
  // Creating the admin client checks every librdkafka property once.
  STRATA_ASSIGN_OR_RETURN(auto admin, Kafka::create(g, Kafka::Kind::kProducer));
  // And the broker must answer, so a wrong address fails here, not mid-run.
  if (auto md = admin->metadata(); !md) {
    return Error(md.error().code(),
                 "cannot reach a broker at " + g.bootstrap + ": " + md.error().message());
  }
  return std::unique_ptr<Driver>(
      new KafkaDriver(g, std::move(topic_configs), std::move(admin), txn_messages));
}

}  // namespace strata::bench
