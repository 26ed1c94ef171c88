// CreateTopics, DeleteTopics and CreatePartitions. Each request becomes one
// catalog change run on the control thread; the response is sent once every
// shard has opened (or deleted) the partitions, so a client can produce to a
// topic as soon as CreateTopics returned.
//
// A request's timeout_ms bounds the wait, as in Kafka: when the change has
// not completed by then, every topic is answered REQUEST_TIMED_OUT (the
// change still completes). A timeout of 0 or less waits for the change.
#include <set>

#include <boost/asio/steady_timer.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "coordinator/cluster_metadata.h"
#include "coordinator/internal_topics.h"
#include "server/controller_forward.h"
#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"
#include "server/shard_state.h"
#include "server/topic_defaults.h"

namespace strata::server::handlers {
namespace {

using kafka::ErrorCode;

struct Outcome {
  ErrorCode error = ErrorCode::kNone;
  std::optional<std::string> message;
};

Outcome outcome_of(const Status& st) {
  if (st.ok()) return {};
  return Outcome{kafka::to_error_code(st.error().code()), st.error().message()};
}

Outcome timed_out(int32_t timeout_ms) {
  return Outcome{ErrorCode::kRequestTimedOut,
                 fmt::format("the operation did not complete within the request's timeout of {} "
                             "ms; it goes on and may still complete",
                             timeout_ms)};
}

// Sends a handler's response once: when the change completes or, if
// `timeout_ms` > 0 passes first, the timed-out answer `on_timeout` gives. A
// change that completes after the deadline (the shard was busy opening
// partitions when the timer was due) is answered as timed out too: it did
// not complete within the request's timeout.
template <typename Response>
class AnswerOnce : public std::enable_shared_from_this<AnswerOnce<Response>> {
 public:
  AnswerOnce(const RequestContext& ctx, Responder<Response> out)
      : out_(std::move(out)), timer_(ctx.shard.shard().io()) {}

  void arm(int32_t timeout_ms, std::function<Response()> on_timeout) {
    if (timeout_ms <= 0) return;
    on_timeout_ = std::move(on_timeout);
    deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    timer_.expires_at(*deadline_);
    timer_.async_wait([self = this->shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->send(self->on_timeout_());
    });
  }

  void complete(const Response& r) {
    timer_.cancel();
    if (deadline_ && std::chrono::steady_clock::now() >= *deadline_) return send(on_timeout_());
    send(r);
  }

 private:
  void send(const Response& r) {
    if (sent_) return;
    sent_ = true;
    out_.send(r);
  }

  Responder<Response> out_;
  boost::asio::steady_timer timer_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::function<Response()> on_timeout_;
  bool sent_ = false;
};

// Kafka answers a topic named more than once in one request once, with
// INVALID_REQUEST, and acts on none of its entries: clients match answers
// by name (librdkafka's admin client refuses an answer naming a topic
// twice). `answered` keeps the keys already in the response.
constexpr const char* kDuplicateTopic = "Duplicate topic name.";

template <typename Key>
bool answered_before(std::set<Key>& answered, const Key& key) {
  return !answered.insert(key).second;
}

std::set<int32_t> live_brokers(Services services) {
  std::set<int32_t> live;
  auto snap = services.cluster.snapshot();  // held for the loop
  for (const auto& b : snap->brokers)
    live.insert(b.node_id);
  return live;
}

// Whether an explicit assignment names `rf` distinct brokers, all live.
bool valid_replicas(const std::vector<int32_t>& replicas, size_t rf,
                    const std::set<int32_t>& live) {
  std::set<int32_t> distinct(replicas.begin(), replicas.end());
  return replicas.size() == rf && distinct.size() == rf &&
         std::includes(live.begin(), live.end(), distinct.begin(), distinct.end());
}

}  // namespace

void create_topics(const RequestContext& ctx, kafka::CreateTopicsRequest req,
                   Responder<kafka::CreateTopicsResponse> out) {
  auto services = ctx.services();
  const auto& cfg = services.configs.config();
  size_t n = req.topics.size();
  auto outcomes = std::make_shared<std::vector<Outcome>>(n);
  auto ids = std::make_shared<std::vector<coordinator::TopicId>>(n);
  // Names given twice are refused, both times (Kafka does the same).
  std::map<std::string, int> seen;
  for (const auto& t : req.topics)
    ++seen[t.name];
  auto topics =
      std::make_shared<std::vector<kafka::CreateTopicsRequest::Topic>>(std::move(req.topics));
  bool validate_only = req.validate_only;
  // A broker relaying its own need (the offsets topic on first use) may
  // create the internal topic; clients may not.
  bool from_broker = ctx.header.client_id == kForwardedClientId;
  auto answer = std::make_shared<AnswerOnce<kafka::CreateTopicsResponse>>(ctx, std::move(out));
  answer->arm(req.timeout_ms, [topics, timeout = req.timeout_ms] {
    kafka::CreateTopicsResponse resp;
    auto o = timed_out(timeout);
    std::set<std::string> answered;
    for (const auto& t : *topics) {
      if (answered_before(answered, t.name)) continue;
      auto& rt = resp.topics.emplace_back();
      rt.name = t.name;
      rt.error_code = kafka::code(o.error);
      rt.error_message = o.message;
    }
    return resp;
  });
  services.controller.change_topics(
      ctx.shard.id(),
      [services, topics, outcomes, ids, seen, validate_only, from_broker,
       &cfg](TopicChange& change) {
        for (size_t i = 0; i < topics->size(); ++i) {
          const auto& t = (*topics)[i];
          auto& o = (*outcomes)[i];
          if (seen.at(t.name) > 1) {
            o = Outcome{ErrorCode::kInvalidRequest, kDuplicateTopic};
            continue;
          }
          int32_t partitions = t.num_partitions == -1 ? cfg.num_partitions : t.num_partitions;
          int16_t rf =
              t.replication_factor == -1 ? cfg.default_replication_factor : t.replication_factor;
          std::vector<std::vector<int32_t>> assignments;
          if (!t.assignments.empty()) {
            if (t.num_partitions != -1 || t.replication_factor != -1) {
              o = Outcome{ErrorCode::kInvalidRequest,
                          "give either assignments or a partition count and replication factor"};
              continue;
            }
            partitions = static_cast<int32_t>(t.assignments.size());
            rf = static_cast<int16_t>(t.assignments.front().broker_ids.size());
            auto live = live_brokers(services);
            bool good = rf > 0;
            for (size_t p = 0; p < t.assignments.size(); ++p) {
              const auto& a = t.assignments[p];
              good &= a.partition_index == static_cast<int32_t>(p) &&
                      valid_replicas(a.broker_ids, static_cast<size_t>(rf), live);
              assignments.push_back(a.broker_ids);
            }
            if (!good) {
              o = Outcome{ErrorCode::kInvalidReplicaAssignment,
                          "assignments must list partitions 0..n-1, each on the same number of "
                          "distinct live brokers"};
              continue;
            }
          }
          std::map<std::string, std::string> configs;
          bool null_value = false;
          for (const auto& c : t.configs) {
            if (!c.value) {
              null_value = true;
              break;
            }
            configs[c.name] = *c.value;
          }
          if (null_value) {
            o = Outcome{ErrorCode::kInvalidConfig, "a config without a value"};
            continue;
          }
          // Checked over this broker's defaults too (min.compaction.lag.ms
          // against a broker-wide max.compaction.lag.ms, say).
          if (auto c = engine::TopicConfig::from_map(configs, *services.configs.topic_defaults());
              !c) {
            o = outcome_of(c.error());
            continue;
          }
          bool internal = from_broker && coordinator::is_internal_topic(t.name);
          auto r = change.catalog().create_topic(t.name, partitions, rf, configs, validate_only,
                                                 internal, assignments);
          if (r) {
            (*ids)[i] = (*r)->id;
          } else {
            o = outcome_of(r.error());
          }
        }
        return ok_status();
      },
      [services, topics, outcomes, ids, answer, validate_only](Status) {
        kafka::CreateTopicsResponse resp;
        auto snap = services.cluster.snapshot();
        auto layers = services.configs.topic_default_layers();
        std::set<std::string> answered;
        for (size_t i = 0; i < topics->size(); ++i) {
          const auto& t = (*topics)[i];
          const auto& o = (*outcomes)[i];
          if (answered_before(answered, t.name)) continue;
          auto& rt = resp.topics.emplace_back();
          rt.name = t.name;
          rt.error_code = kafka::code(o.error);
          rt.error_message = o.message;
          if (o.error != ErrorCode::kNone) continue;
          rt.topic_id = (*ids)[i];
          const auto* info = snap->find(t.name);
          if (info == nullptr && !validate_only) continue;
          rt.num_partitions =
              info ? info->partitions
                   : (t.num_partitions == -1 ? services.configs.config().num_partitions
                                             : t.num_partitions);
          rt.replication_factor = info ? info->replication_factor
                                       : (t.replication_factor == -1
                                              ? services.configs.config().default_replication_factor
                                              : t.replication_factor);
          coordinator::TopicInfo probe;
          if (info) probe = *info;
          auto effective = services.configs.effective_config(probe).to_map();
          std::vector<kafka::CreateTopicsResponse::Config> configs;
          for (const auto& [name, value] : effective) {
            configs.push_back(
                {name, value, false, topic_config_source(probe.configs, layers, name), false});
          }
          rt.configs = std::move(configs);
        }
        answer->complete(resp);
      });
}

void delete_topics(const RequestContext& ctx, kafka::DeleteTopicsRequest req,
                   Responder<kafka::DeleteTopicsResponse> out) {
  auto services = ctx.services();
  // Normalize v0-5 names and v6 (name or id) entries.
  struct Target {
    std::optional<std::string> name;
    coordinator::TopicId id{};
    bool by_id = false;
  };
  auto targets = std::make_shared<std::vector<Target>>();
  if (out.version() >= 6) {
    for (const auto& t : req.topics) {
      targets->push_back(Target{t.name, t.topic_id, !t.name.has_value()});
    }
  } else {
    for (const auto& name : req.topic_names)
      targets->push_back(Target{name, {}, false});
  }
  auto outcomes = std::make_shared<std::vector<Outcome>>(targets->size());
  // A name (or id) given twice: answered once, INVALID_REQUEST, not deleted.
  std::map<std::string, int> names;
  std::map<coordinator::TopicId, int> ids;
  for (const auto& t : *targets) {
    if (t.by_id) {
      ++ids[t.id];
    } else {
      ++names[*t.name];
    }
  }
  auto duplicated = std::make_shared<std::vector<bool>>();
  for (const auto& t : *targets)
    duplicated->push_back(t.by_id ? ids[t.id] > 1 : names[*t.name] > 1);
  auto answer = std::make_shared<AnswerOnce<kafka::DeleteTopicsResponse>>(ctx, std::move(out));
  // The names as given (the change fills in those of ids only later).
  auto given = std::make_shared<const std::vector<Target>>(*targets);
  answer->arm(req.timeout_ms, [given, timeout = req.timeout_ms] {
    kafka::DeleteTopicsResponse resp;
    auto o = timed_out(timeout);
    std::set<std::pair<std::string, coordinator::TopicId>> answered;
    for (const auto& t : *given) {
      if (answered_before(answered, {t.name.value_or(""), t.by_id ? t.id : coordinator::TopicId{}}))
        continue;
      auto& r = resp.responses.emplace_back();
      r.name = t.name;
      r.topic_id = t.id;
      r.error_code = kafka::code(o.error);
      r.error_message = o.message;
    }
    return resp;
  });
  services.controller.change_topics(
      ctx.shard.id(),
      [services, targets, outcomes, duplicated](TopicChange& change) {
        for (size_t i = 0; i < targets->size(); ++i) {
          auto& t = (*targets)[i];
          if ((*duplicated)[i]) {
            (*outcomes)[i] = Outcome{ErrorCode::kInvalidRequest,
                                     t.by_id ? "Duplicate topic id." : kDuplicateTopic};
            continue;
          }
          auto snap = services.cluster.snapshot();
          const coordinator::TopicInfo* info = t.by_id ? snap->find(t.id) : snap->find(*t.name);
          if (info == nullptr) {
            (*outcomes)[i] =
                Outcome{t.by_id ? ErrorCode::kUnknownTopicId : ErrorCode::kUnknownTopicOrPartition,
                        "no such topic"};
            continue;
          }
          t.name = info->name;
          t.id = info->id;
          if (info->internal) {
            (*outcomes)[i] = Outcome{ErrorCode::kInvalidRequest,
                                     "internal topic " + info->name + " cannot be deleted"};
            continue;
          }
          (*outcomes)[i] = outcome_of(change.catalog().delete_topic(info->name));
        }
        return ok_status();
      },
      [given, targets, outcomes, answer](Status) {
        kafka::DeleteTopicsResponse resp;
        std::set<std::pair<std::string, coordinator::TopicId>> answered;
        for (size_t i = 0; i < targets->size(); ++i) {
          const auto& g = (*given)[i];
          if (answered_before(answered,
                              {g.name.value_or(""), g.by_id ? g.id : coordinator::TopicId{}}))
            continue;
          auto& r = resp.responses.emplace_back();
          r.name = (*targets)[i].name;
          r.topic_id = (*targets)[i].id;
          r.error_code = kafka::code((*outcomes)[i].error);
          r.error_message = (*outcomes)[i].message;
        }
        answer->complete(resp);
      });
}

void create_partitions(const RequestContext& ctx, kafka::CreatePartitionsRequest req,
                       Responder<kafka::CreatePartitionsResponse> out) {
  auto services = ctx.services();
  auto topics =
      std::make_shared<std::vector<kafka::CreatePartitionsRequest::Topic>>(std::move(req.topics));
  auto outcomes = std::make_shared<std::vector<Outcome>>(topics->size());
  bool validate_only = req.validate_only;
  std::map<std::string, int> seen;
  for (const auto& t : *topics)
    ++seen[t.name];
  auto answer = std::make_shared<AnswerOnce<kafka::CreatePartitionsResponse>>(ctx, std::move(out));
  answer->arm(req.timeout_ms, [topics, timeout = req.timeout_ms] {
    kafka::CreatePartitionsResponse resp;
    auto o = timed_out(timeout);
    std::set<std::string> answered;
    for (const auto& t : *topics) {
      if (!answered_before(answered, t.name))
        resp.results.push_back({t.name, kafka::code(o.error), o.message});
    }
    return resp;
  });
  services.controller.change_topics(
      ctx.shard.id(),
      [services, topics, outcomes, validate_only, seen](TopicChange& change) {
        for (size_t i = 0; i < topics->size(); ++i) {
          const auto& t = (*topics)[i];
          if (seen.at(t.name) > 1) {
            (*outcomes)[i] = Outcome{ErrorCode::kInvalidRequest, kDuplicateTopic};
            continue;
          }
          auto snap = services.cluster.snapshot();
          const auto* info = snap->find(t.name);
          std::vector<std::vector<int32_t>> assignments;
          if (info != nullptr && t.assignments) {
            // Validated as Kafka does: one list per new partition, each with
            // the topic's replication factor of distinct live brokers.
            auto live = live_brokers(services);
            auto rf = static_cast<size_t>(info->replication_factor);
            bool good = static_cast<int32_t>(t.assignments->size()) == t.count - info->partitions;
            for (const auto& a : *t.assignments) {
              good &= valid_replicas(a.broker_ids, rf, live);
              assignments.push_back(a.broker_ids);
            }
            if (!good) {
              (*outcomes)[i] = Outcome{
                  ErrorCode::kInvalidReplicaAssignment,
                  fmt::format("give one assignment per new partition, each naming {} distinct "
                              "live broker(s) (the topic's replication factor)",
                              rf)};
              continue;
            }
          }
          (*outcomes)[i] = outcome_of(
              change.catalog().add_partitions(t.name, t.count, validate_only, assignments));
        }
        return ok_status();
      },
      [topics, outcomes, answer](Status) {
        kafka::CreatePartitionsResponse resp;
        std::set<std::string> answered;
        for (size_t i = 0; i < topics->size(); ++i) {
          if (answered_before(answered, (*topics)[i].name)) continue;
          resp.results.push_back(
              {(*topics)[i].name, kafka::code((*outcomes)[i].error), (*outcomes)[i].message});
        }
        answer->complete(resp);
      });
}

}  // namespace strata::server::handlers
