// kafka_perf: a librdkafka load client for measuring one broker.
//
//   kafka_perf --bootstrap 127.0.0.1:9092 --topic perf --messages 1000000 --size 1024 --acks 1
//   kafka_perf ... --consume      # read the topic back from the beginning
//
// Produce mode reports throughput and publish latency (send to delivery
// report) percentiles; consume mode reports throughput. Output is one human
// line and one JSON line.
#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace {

using Clock = std::chrono::steady_clock;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

struct Options {
  std::string bootstrap = "127.0.0.1:9092";
  std::string topic = "perf";
  int64_t messages = 1000000;
  size_t size = 1024;
  std::string acks = "1";
  std::string compression = "none";
  int linger_ms = 5;
  int batch_bytes = 1 << 20;
  bool consume = false;
  int partitions = -1;  // consume: how many partitions to assign (default: from metadata)
};

struct Stats {
  std::vector<int64_t> latency_ns;
  int64_t delivered = 0;
  int64_t failed = 0;
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* stats = static_cast<Stats*>(opaque);
  if (m->err) {
    if (stats->failed++ < 5) std::fprintf(stderr, "delivery failed: %s\n", rd_kafka_err2str(m->err));
    return;
  }
  int64_t sent;
  std::memcpy(&sent, m->payload, sizeof(sent));
  stats->latency_ns.push_back(now_ns() - sent);
  ++stats->delivered;
}

rd_kafka_conf_t* base_conf(const Options& o) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  auto set = [&](const char* k, const std::string& v) {
    if (rd_kafka_conf_set(conf, k, v.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
      std::fprintf(stderr, "kafka_perf: %s\n", err);
      std::exit(2);
    }
  };
  set("bootstrap.servers", o.bootstrap);
  return conf;
}

double pct(std::vector<int64_t>& v, double q) {
  if (v.empty()) return 0;
  size_t i = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(i), v.end());
  return static_cast<double>(v[i]) / 1e6;
}

int produce(const Options& o) {
  rd_kafka_conf_t* conf = base_conf(o);
  char err[512];
  Stats stats;
  stats.latency_ns.reserve(static_cast<size_t>(o.messages));
  auto set = [&](const char* k, const std::string& v) {
    if (rd_kafka_conf_set(conf, k, v.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
      std::fprintf(stderr, "kafka_perf: %s\n", err);
      std::exit(2);
    }
  };
  set("acks", o.acks);
  set("linger.ms", std::to_string(o.linger_ms));
  set("batch.size", std::to_string(o.batch_bytes));
  set("compression.type", o.compression);
  set("queue.buffering.max.messages", "1000000");
  set("queue.buffering.max.kbytes", "1048576");
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  rd_kafka_conf_set_opaque(conf, &stats);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
  if (!rk) {
    std::fprintf(stderr, "kafka_perf: %s\n", err);
    return 2;
  }
  std::vector<char> payload(std::max<size_t>(o.size, 8), 'x');
  auto start = Clock::now();
  for (int64_t i = 0; i < o.messages; ++i) {
    int64_t t = now_ns();
    std::memcpy(payload.data(), &t, sizeof(t));
    while (true) {
      auto e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(o.topic.c_str()),
                                 RD_KAFKA_V_VALUE(payload.data(), payload.size()),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(rk, 10);
        continue;
      }
      if (e) {
        std::fprintf(stderr, "produce: %s\n", rd_kafka_err2str(e));
        return 1;
      }
      break;
    }
    if ((i & 1023) == 0) rd_kafka_poll(rk, 0);
  }
  while (rd_kafka_outq_len(rk) > 0) rd_kafka_poll(rk, 50);
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  rd_kafka_destroy(rk);
  double mps = static_cast<double>(stats.delivered) / secs;
  double mbs = mps * static_cast<double>(o.size) / 1e6;
  double p50 = pct(stats.latency_ns, 0.5), p99 = pct(stats.latency_ns, 0.99),
         p999 = pct(stats.latency_ns, 0.999), pmax = pct(stats.latency_ns, 1.0);
  std::printf("produce acks=%s: %lld msgs in %.2f s = %.0f msg/s, %.1f MB/s; publish latency ms "
              "p50 %.2f p99 %.2f p99.9 %.2f max %.2f; failed %lld\n",
              o.acks.c_str(), static_cast<long long>(stats.delivered), secs, mps, mbs, p50, p99,
              p999, pmax, static_cast<long long>(stats.failed));
  std::printf("{\"mode\":\"produce\",\"acks\":\"%s\",\"messages\":%lld,\"seconds\":%.3f,\"msgs_per_s\":%.0f,"
              "\"mb_per_s\":%.2f,\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"p999_ms\":%.3f,\"max_ms\":%.3f,"
              "\"failed\":%lld}\n",
              o.acks.c_str(), static_cast<long long>(stats.delivered), secs, mps, mbs, p50, p99,
              p999, pmax, static_cast<long long>(stats.failed));
  return stats.failed == 0 ? 0 : 1;
}

int consume(const Options& o) {
  rd_kafka_conf_t* conf = base_conf(o);
  char err[512];
  rd_kafka_conf_set(conf, "group.id", "kafka-perf", err, sizeof(err));
  rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof(err));
  rd_kafka_conf_set(conf, "fetch.max.bytes", "52428800", err, sizeof(err));
  rd_kafka_conf_set(conf, "max.partition.fetch.bytes", "4194304", err, sizeof(err));
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  if (!rk) {
    std::fprintf(stderr, "kafka_perf: %s\n", err);
    return 2;
  }
  int partitions = o.partitions;
  if (partitions < 0) {
    const rd_kafka_metadata_t* md = nullptr;
    rd_kafka_topic_t* t = rd_kafka_topic_new(rk, o.topic.c_str(), nullptr);
    if (rd_kafka_metadata(rk, 0, t, &md, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR || md->topic_cnt != 1) {
      std::fprintf(stderr, "kafka_perf: no metadata for %s\n", o.topic.c_str());
      return 1;
    }
    partitions = md->topics[0].partition_cnt;
    rd_kafka_metadata_destroy(md);
    rd_kafka_topic_destroy(t);
  }
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; ++p) {
    rd_kafka_topic_partition_list_add(list, o.topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  }
  rd_kafka_assign(rk, list);
  rd_kafka_topic_partition_list_destroy(list);
  int64_t got = 0, bytes = 0;
  auto start = Clock::now();
  auto deadline = start + std::chrono::seconds(300);
  while (got < o.messages && Clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 100);
    if (!m) continue;
    if (!m->err) {
      ++got;
      bytes += static_cast<int64_t>(m->len);
    }
    rd_kafka_message_destroy(m);
  }
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  double mps = static_cast<double>(got) / secs;
  std::printf("consume: %lld msgs in %.2f s = %.0f msg/s, %.1f MB/s\n", static_cast<long long>(got),
              secs, mps, static_cast<double>(bytes) / secs / 1e6);
  std::printf("{\"mode\":\"consume\",\"messages\":%lld,\"seconds\":%.3f,\"msgs_per_s\":%.0f,\"mb_per_s\":%.2f}\n",
              static_cast<long long>(got), secs, mps, static_cast<double>(bytes) / secs / 1e6);
  return got == o.messages ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"kafka_perf: produce or consume load against a Kafka-protocol broker"};
  app.add_option("--bootstrap", o.bootstrap, "host:port");
  app.add_option("--topic", o.topic, "topic");
  app.add_option("--messages", o.messages, "messages to send or read");
  app.add_option("--size", o.size, "message value size in bytes (>= 8)");
  app.add_option("--acks", o.acks, "0, 1 or all");
  app.add_option("--compression", o.compression, "none, gzip, snappy, lz4, zstd");
  app.add_option("--linger-ms", o.linger_ms, "producer linger.ms");
  app.add_option("--batch-bytes", o.batch_bytes, "producer batch.size");
  app.add_option("--partitions", o.partitions, "consume: partitions to assign");
  app.add_flag("--consume", o.consume, "consume instead of produce");
  CLI11_PARSE(app, argc, argv);
  return o.consume ? consume(o) : produce(o);
}
