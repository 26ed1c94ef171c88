// strata produce: messages from stdin, one per line (or per --delimiter),
// optional keys (--key-separator), headers and a fixed partition. Keyed
// messages go where the Java client's partitioner would put them.
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "tools/commands.h"
#include "tools/murmur2.h"
#include "tools/output.h"

namespace strata::tools {
namespace {

struct ProduceOptions {
  std::string topic;
  std::string key_separator;
  std::string delimiter = "\\n";
  std::vector<std::string> headers;
  std::string acks = "all";
  int partition = -1;
  std::string compression = "none";
};

struct Tally {
  int64_t delivered = 0;
  int64_t failed = 0;
  std::map<int32_t, int64_t> per_partition;
  std::string first_error;
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void*) {
  auto* t = static_cast<Tally*>(m->_private);
  if (m->err) {
    if (t->failed++ == 0)
      t->first_error = fmt::format("{}: {}", rd_kafka_err2name(m->err), rd_kafka_err2str(m->err));
    return;
  }
  ++t->delivered;
  ++t->per_partition[m->partition];
}

Result<char> delimiter_char(const std::string& d) {
  if (d == "\\n") return '\n';
  if (d == "\\t") return '\t';
  if (d == "\\0") return '\0';
  if (d.size() == 1) return d[0];
  return Error(Errc::kInvalidArgument,
               fmt::format("--delimiter must be one character (or \\n, \\t, \\0), got '{}'", d));
}

Status run(const Globals& g, const ProduceOptions& o) {
  if (o.acks != "0" && o.acks != "1" && o.acks != "all" && o.acks != "-1") {
    return Error(Errc::kInvalidArgument,
                 fmt::format("--acks must be 0, 1 or all, not '{}'", o.acks));
  }
  STRATA_ASSIGN_OR_RETURN(char delim, delimiter_char(o.delimiter));
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& h : o.headers) {
    auto eq = h.find('=');
    if (eq == std::string::npos) {
      return Error(Errc::kInvalidArgument, fmt::format("--header expects key=value, got '{}'", h));
    }
    headers.emplace_back(h.substr(0, eq), h.substr(eq + 1));
  }
  Tally tally;
  std::map<std::string, std::string> conf = {{"acks", o.acks},
                                             {"compression.type", o.compression},
                                             {"partitioner", "murmur2_random"},
                                             {"linger.ms", "5"},
                                             {"allow.auto.create.topics", "true"}};
  STRATA_ASSIGN_OR_RETURN(auto k,
                          Kafka::create(g, Kafka::Kind::kProducer, conf, [](rd_kafka_conf_t* c) {
                            rd_kafka_conf_set_dr_msg_cb(c, on_delivery);
                          }));
  rd_kafka_t* rk = k->rk();
  STRATA_ASSIGN_OR_RETURN(auto topic, k->topic(o.topic));
  auto partitions = static_cast<int32_t>(topic.partitions.size());
  if (o.partition >= partitions) {
    return Error(Errc::kInvalidArgument,
                 fmt::format("topic {} has {} partition(s); there is no partition {}", o.topic,
                             partitions, o.partition));
  }
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, o.topic.c_str(), nullptr);
  std::string line;
  int64_t sent = 0;
  while (std::getline(std::cin, line, delim)) {
    std::optional<std::string> key;
    std::string value = line;
    if (!o.key_separator.empty()) {
      auto at = line.find(o.key_separator);
      if (at != std::string::npos) {
        key = line.substr(0, at);
        value = line.substr(at + o.key_separator.size());
      }
    }
    int32_t partition = o.partition;
    if (partition < 0 && key) {
      partition = java_partition(std::as_bytes(std::span(key->data(), key->size())), partitions);
    }
    rd_kafka_headers_t* hdrs = rd_kafka_headers_new(headers.size());
    for (const auto& [hk, hv] : headers) {
      rd_kafka_header_add(hdrs, hk.c_str(), static_cast<ssize_t>(hk.size()), hv.data(),
                          static_cast<ssize_t>(hv.size()));
    }
    while (true) {
      auto err = rd_kafka_producev(
          rk, RD_KAFKA_V_RKT(rkt),
          RD_KAFKA_V_PARTITION((partition < 0 ? RD_KAFKA_PARTITION_UA : partition)),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_VALUE(value.data(), value.size()),
          RD_KAFKA_V_KEY((key ? key->data() : nullptr), (key ? key->size() : 0)),
          RD_KAFKA_V_HEADERS(hdrs), RD_KAFKA_V_OPAQUE(&tally), RD_KAFKA_V_END);
      if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(rk, 50);
        continue;
      }
      if (err) {
        rd_kafka_headers_destroy(hdrs);
        rd_kafka_topic_destroy(rkt);
        return kafka_error(err, "produce");
      }
      break;
    }
    ++sent;
    rd_kafka_poll(rk, 0);
  }
  rd_kafka_topic_destroy(rkt);
  auto err = rd_kafka_flush(rk, g.timeout_ms() + static_cast<int>(sent / 1000));
  if (err)
    return kafka_error(err,
                       fmt::format("{} message(s) not delivered in time", rd_kafka_outq_len(rk)));
  if (g.json) {
    nlohmann::json per = nlohmann::json::object();
    for (const auto& [p, n] : tally.per_partition)
      per[std::to_string(p)] = n;
    print_json({{"topic", o.topic},
                {"delivered", tally.delivered},
                {"failed", tally.failed},
                {"partitions", per}});
  } else {
    std::string parts;
    for (const auto& [p, n] : tally.per_partition)
      parts += fmt::format("{}{}: {}", parts.empty() ? "" : ", ", p, n);
    std::fprintf(stderr, "wrote %lld message(s) to %s (%s)%s\n",
                 static_cast<long long>(tally.delivered), o.topic.c_str(),
                 parts.empty() ? "none" : ("partition " + parts).c_str(),
                 tally.failed ? fmt::format(", {} failed", tally.failed).c_str() : "");
  }
  if (tally.failed)
    return Error(Errc::kIoError,
                 fmt::format("{} message(s) failed: {}", tally.failed, tally.first_error));
  return ok_status();
}

}  // namespace

void add_produce_command(CLI::App& app, Globals& g, Action& action) {
  auto o = std::make_shared<ProduceOptions>();
  auto* p = app.add_subcommand("produce", "Produce messages read from stdin, one per line");
  p->add_option("-t,--topic", o->topic, "Topic")->required();
  p->add_option("-k,--key-separator", o->key_separator,
                "Split each line into key and value at the first occurrence of this string");
  p->add_option("-d,--delimiter", o->delimiter,
                "Message delimiter (default \\n; also \\t, \\0 or one character)");
  p->add_option("-H,--header", o->headers, "Header key=value added to every message (repeatable)");
  p->add_option("-a,--acks", o->acks, "0, 1 or all (default all)");
  p->add_option("-p,--partition", o->partition, "Write every message to this partition")
      ->check(CLI::NonNegativeNumber);
  p->add_option("-z,--compression", o->compression,
                "none, gzip, snappy, lz4 or zstd (default none)")
      ->check(CLI::IsMember({"none", "gzip", "snappy", "lz4", "zstd"}));
  p->callback([&, o] { action = [&g, o] { return run(g, *o); }; });
}

}  // namespace strata::tools
