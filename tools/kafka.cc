#include "tools/kafka.h"

#include <fmt/format.h>

namespace strata::tools {

Error kafka_error(rd_kafka_resp_err_t err, std::string_view what, const char* detail) {
  std::string msg = fmt::format("{}: {}", what, rd_kafka_err2name(err));
  std::string text = detail != nullptr && *detail ? detail : rd_kafka_err2str(err);
  if (!text.empty()) msg += ": " + text;
  return Error(Errc::kIoError, msg);
}

Status first_failure(const std::vector<NameResult>& results, std::string_view what,
                     rd_kafka_resp_err_t tolerated) {
  for (const auto& r : results) {
    if (r.error != RD_KAFKA_RESP_ERR_NO_ERROR && r.error != tolerated) {
      auto e = kafka_error(r.error, fmt::format("{} {}", what, r.name), r.message.c_str());
      bool timed_out =
          r.error == RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT || r.error == RD_KAFKA_RESP_ERR__TIMED_OUT;
      if (timed_out && e.message().find("may still complete") == std::string::npos) {
        return Error(e.code(), e.message() + " (the operation may still complete)");
      }
      return e;
    }
  }
  return ok_status();
}

namespace {

std::vector<NameResult> topic_results(const rd_kafka_topic_result_t** res, size_t n) {
  std::vector<NameResult> out;
  for (size_t i = 0; i < n; ++i) {
    const char* text = rd_kafka_topic_result_error_string(res[i]);
    out.push_back({rd_kafka_topic_result_name(res[i]), rd_kafka_topic_result_error(res[i]),
                   text != nullptr ? text : ""});
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<Kafka>> Kafka::create(
    const Globals& g, Kind kind, const std::map<std::string, std::string>& extra,
    const std::function<void(rd_kafka_conf_t*)>& customize) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  auto set = [&](const std::string& k, const std::string& v) -> Status {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
      return Error(Errc::kInvalidArgument, fmt::format("setting {}={}: {}", k, v, err));
    }
    return ok_status();
  };
  auto fail = [&](Status st) -> Result<std::unique_ptr<Kafka>> {
    rd_kafka_conf_destroy(conf);
    return std::move(st).error();
  };
  if (auto st = set("bootstrap.servers", g.bootstrap); !st) return fail(st);
  // Quiet: errors are reported by the commands, once (-X log_level=7 to debug).
  if (auto st = set("log_level", "0"); !st) return fail(st);
  // Looking a topic up never creates it (librdkafka's producers ask the
  // broker to); `strata produce` asks for it, as Kafka's console producer.
  if (auto st = set("allow.auto.create.topics", "false"); !st) return fail(st);
  for (const auto& [k, v] : extra) {
    if (auto st = set(k, v); !st) return fail(st);
  }
  for (const auto& kv : g.settings) {
    auto eq = kv.find('=');
    if (eq == std::string::npos) {
      return fail(Error(Errc::kInvalidArgument, fmt::format("-X expects key=value, got '{}'", kv)));
    }
    if (auto st = set(kv.substr(0, eq), kv.substr(eq + 1)); !st) return fail(st);
  }
  if (customize) customize(conf);
  rd_kafka_t* rk = rd_kafka_new(kind == Kind::kProducer ? RD_KAFKA_PRODUCER : RD_KAFKA_CONSUMER,
                                conf, err, sizeof(err));
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);  // rd_kafka_new takes it only on success
    return Error(Errc::kInvalidArgument, err);
  }
  return std::unique_ptr<Kafka>(new Kafka(rk, g));
}

Kafka::~Kafka() {
  rd_kafka_destroy(rk_);
}

Result<Kafka::Metadata> Kafka::metadata(const std::optional<std::string>& topic) {
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_topic_t* t = topic ? rd_kafka_topic_new(rk_, topic->c_str(), nullptr) : nullptr;
  auto err = rd_kafka_metadata(rk_, topic ? 0 : 1, t, &md, globals_.timeout_ms());
  if (t) rd_kafka_topic_destroy(t);
  if (err) {
    if (err == RD_KAFKA_RESP_ERR__TRANSPORT || err == RD_KAFKA_RESP_ERR__TIMED_OUT) {
      return Error(Errc::kIoError,
                   fmt::format("cannot reach a broker at {} within {} s ({})", globals_.bootstrap,
                               globals_.timeout_s, rd_kafka_err2name(err)));
    }
    return kafka_error(err, "metadata");
  }
  Metadata out;
  for (int i = 0; i < md->broker_cnt; ++i) {
    out.brokers.push_back({md->brokers[i].id, md->brokers[i].host, md->brokers[i].port});
  }
  for (int i = 0; i < md->topic_cnt; ++i) {
    const auto& mt = md->topics[i];
    if (mt.err) {
      std::string name = mt.topic;
      auto e = mt.err;
      rd_kafka_metadata_destroy(md);
      if (e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
        return Error(Errc::kNotFound, fmt::format("unknown topic '{}'", name));
      }
      return kafka_error(e, "topic " + name);
    }
    Topic tp;
    tp.name = mt.topic;
    for (int p = 0; p < mt.partition_cnt; ++p) {
      const auto& mp = mt.partitions[p];
      Partition part;
      part.id = mp.id;
      part.leader = mp.leader;
      part.error = mp.err;
      part.replicas.assign(mp.replicas, mp.replicas + mp.replica_cnt);
      part.isrs.assign(mp.isrs, mp.isrs + mp.isr_cnt);
      tp.partitions.push_back(std::move(part));
    }
    std::sort(tp.partitions.begin(), tp.partitions.end(),
              [](const auto& a, const auto& b) { return a.id < b.id; });
    out.topics.push_back(std::move(tp));
  }
  rd_kafka_metadata_destroy(md);
  std::sort(out.topics.begin(), out.topics.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  out.controller = rd_kafka_controllerid(rk_, globals_.timeout_ms());
  char* cid = rd_kafka_clusterid(rk_, globals_.timeout_ms());
  if (cid) {
    out.cluster_id = cid;
    rd_kafka_mem_free(rk_, cid);
  }
  return out;
}

Result<Kafka::Topic> Kafka::topic(const std::string& name) {
  STRATA_ASSIGN_OR_RETURN(auto md, metadata(name));
  if (md.topics.empty()) return Error(Errc::kNotFound, fmt::format("unknown topic '{}'", name));
  return md.topics.front();
}

Result<std::pair<int64_t, int64_t>> Kafka::watermarks(const std::string& topic, int32_t partition) {
  int64_t lo = -1, hi = -1;
  auto err = rd_kafka_query_watermark_offsets(rk_, topic.c_str(), partition, &lo, &hi,
                                              globals_.timeout_ms());
  if (err) return kafka_error(err, fmt::format("watermarks of {}[{}]", topic, partition));
  return std::make_pair(lo, hi);
}

Result<std::vector<int64_t>> Kafka::offsets_for_times(const std::string& topic,
                                                      const std::vector<int32_t>& partitions,
                                                      int64_t ts) {
  rd_kafka_topic_partition_list_t* list =
      rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size()));
  for (int32_t p : partitions)
    rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset = ts;
  auto err = rd_kafka_offsets_for_times(rk_, list, globals_.timeout_ms());
  std::vector<int64_t> out;
  if (!err) {
    for (int i = 0; i < list->cnt; ++i) {
      if (list->elems[i].err) {
        err = list->elems[i].err;
        break;
      }
      out.push_back(list->elems[i].offset);
    }
  }
  rd_kafka_topic_partition_list_destroy(list);
  if (err) return kafka_error(err, fmt::format("offsets for time {} in {}", ts, topic));
  return out;
}

Result<std::vector<NameResult>> Kafka::create_topics(const std::vector<NewTopic>& topics) {
  std::vector<rd_kafka_NewTopic_t*> specs;
  auto destroy = [&] { rd_kafka_NewTopic_destroy_array(specs.data(), specs.size()); };
  char err[512];
  for (const auto& t : topics) {
    rd_kafka_NewTopic_t* nt =
        rd_kafka_NewTopic_new(t.name.c_str(), t.partitions, t.replication_factor, err, sizeof(err));
    if (nt == nullptr) {
      destroy();
      return Error(Errc::kInvalidArgument, err);
    }
    for (const auto& [k, v] : t.configs)
      rd_kafka_NewTopic_set_config(nt, k.c_str(), v.c_str());
    specs.push_back(nt);
  }
  auto ev = admin(RD_KAFKA_ADMIN_OP_CREATETOPICS, [&](auto* o, auto* q) {
    rd_kafka_CreateTopics(rk_, specs.data(), specs.size(), o, q);
  });
  destroy();
  STRATA_TRY(ev);
  size_t n = 0;
  const auto** res =
      rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev->get()), &n);
  return topic_results(res, n);
}

Result<std::vector<NameResult>> Kafka::delete_topics(const std::vector<std::string>& names) {
  std::vector<rd_kafka_DeleteTopic_t*> dels;
  for (const auto& name : names)
    dels.push_back(rd_kafka_DeleteTopic_new(name.c_str()));
  auto ev = admin(RD_KAFKA_ADMIN_OP_DELETETOPICS, [&](auto* o, auto* q) {
    rd_kafka_DeleteTopics(rk_, dels.data(), dels.size(), o, q);
  });
  rd_kafka_DeleteTopic_destroy_array(dels.data(), dels.size());
  STRATA_TRY(ev);
  size_t n = 0;
  const auto** res =
      rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(ev->get()), &n);
  return topic_results(res, n);
}

Result<std::vector<NameResult>> Kafka::delete_groups(const std::vector<std::string>& names) {
  std::vector<rd_kafka_DeleteGroup_t*> dels;
  for (const auto& name : names)
    dels.push_back(rd_kafka_DeleteGroup_new(name.c_str()));
  auto ev = admin(RD_KAFKA_ADMIN_OP_DELETEGROUPS, [&](auto* o, auto* q) {
    rd_kafka_DeleteGroups(rk_, dels.data(), dels.size(), o, q);
  });
  rd_kafka_DeleteGroup_destroy_array(dels.data(), dels.size());
  STRATA_TRY(ev);
  size_t n = 0;
  const auto** res =
      rd_kafka_DeleteGroups_result_groups(rd_kafka_event_DeleteGroups_result(ev->get()), &n);
  std::vector<NameResult> out;
  for (size_t i = 0; i < n; ++i) {
    const rd_kafka_error_t* e = rd_kafka_group_result_error(res[i]);
    out.push_back({rd_kafka_group_result_name(res[i]),
                   e != nullptr ? rd_kafka_error_code(e) : RD_KAFKA_RESP_ERR_NO_ERROR,
                   e != nullptr ? rd_kafka_error_string(e) : ""});
  }
  return out;
}

Result<Event> Kafka::admin(
    rd_kafka_admin_op_t op,
    const std::function<void(rd_kafka_AdminOptions_t*, rd_kafka_queue_t*)>& start) {
  rd_kafka_AdminOptions_t* options = rd_kafka_AdminOptions_new(rk_, op);
  char err[512];
  // Topic changes can take long (thousands of partitions): --timeout is the
  // broker's operation timeout (it answers REQUEST_TIMED_OUT by then while
  // the change goes on), and the client waits a little longer for that answer.
  bool topic_change = op == RD_KAFKA_ADMIN_OP_CREATETOPICS ||
                      op == RD_KAFKA_ADMIN_OP_DELETETOPICS ||
                      op == RD_KAFKA_ADMIN_OP_CREATEPARTITIONS;
  int wait_ms = globals_.timeout_ms();
  if (topic_change) {
    constexpr int kAnswerMarginMs = 5000;
    if (rd_kafka_AdminOptions_set_operation_timeout(options, wait_ms, err, sizeof(err)) != 0) {
      rd_kafka_AdminOptions_destroy(options);
      return Error(Errc::kInvalidArgument,
                   fmt::format("--timeout {}: {}", globals_.timeout_s, err));
    }
    wait_ms += kAnswerMarginMs;
  }
  rd_kafka_AdminOptions_set_request_timeout(options, wait_ms, err, sizeof(err));
  rd_kafka_queue_t* queue = rd_kafka_queue_new(rk_);
  start(options, queue);
  Event ev(rd_kafka_queue_poll(queue, wait_ms + 1000));
  rd_kafka_queue_destroy(queue);
  rd_kafka_AdminOptions_destroy(options);
  std::string maybe = topic_change ? "; the operation may still complete on the broker" : "";
  if (!ev) {
    return Error(Errc::kIoError, fmt::format("no answer from {} within {} s{}", globals_.bootstrap,
                                             wait_ms / 1000.0, maybe));
  }
  if (auto e = rd_kafka_event_error(ev.get())) {
    auto error = kafka_error(e, "request", rd_kafka_event_error_string(ev.get()));
    if (e == RD_KAFKA_RESP_ERR__TIMED_OUT) return Error(error.code(), error.message() + maybe);
    return error;
  }
  return ev;
}

}  // namespace strata::tools
