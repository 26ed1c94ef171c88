// strata txn list|describe|abort and strata producers: the transactions of a cluster,
// through the Kafka transaction APIs (ListTransactions at every broker,
// DescribeTransactions at an id's coordinator, DescribeProducers at each
// partition's leader, and WriteTxnMarkers to abort a hanging transaction
// by hand, as kafka-transactions.sh abort does).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "server/kafka/error_code.h"
#include "server/kafka/messages/describe_producers.h"
#include "server/kafka/messages/describe_transactions.h"
#include "server/kafka/messages/list_transactions.h"
#include "server/kafka/messages/write_txn_markers.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "tools/wire.h"

namespace strata::tools {
namespace {

Status list(const Globals& g, const std::vector<std::string>& states) {
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  STRATA_ASSIGN_OR_RETURN(auto md, k->metadata());
  kafka::ListTransactionsRequest req;
  req.state_filters = states;
  std::vector<kafka::ListTransactionsResponse::TransactionState> all;
  for (const auto& b : md.brokers) {
    STRATA_ASSIGN_OR_RETURN(
        auto resp, (wire_call<kafka::ListTransactionsRequest, kafka::ListTransactionsResponse>(
                       g, broker_address(b), req, 0)));
    if (resp.error_code != 0) {
      return broker_error(resp.error_code, fmt::format("ListTransactions at broker {}", b.id));
    }
    for (auto& t : resp.transaction_states)
      all.push_back(std::move(t));
  }
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return a.transactional_id < b.transactional_id; });
  if (g.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& t : all) {
      j.push_back({{"transactional_id", t.transactional_id},
                   {"producer_id", t.producer_id},
                   {"state", t.transaction_state}});
    }
    print_json(j);
    return ok_status();
  }
  Table t({"TRANSACTIONAL ID", "PRODUCER ID", "STATE"});
  for (const auto& x : all)
    t.add({x.transactional_id, std::to_string(x.producer_id), x.transaction_state});
  t.print();
  return ok_status();
}

// `id`'s state from its coordinator (at_coordinator: asked again while it
// moves or loads).
Result<kafka::DescribeTransactionsResponse::TransactionState> describe_one(const Globals& g,
                                                                           const std::string& id) {
  using State = kafka::DescribeTransactionsResponse::TransactionState;
  return at_coordinator<State>(g, id, 1, [&](const std::string& where) -> Result<State> {
    kafka::DescribeTransactionsRequest req;
    req.transactional_ids = {id};
    STRATA_ASSIGN_OR_RETURN(
        auto resp,
        (wire_call<kafka::DescribeTransactionsRequest, kafka::DescribeTransactionsResponse>(
            g, where, req, 0)));
    if (resp.transaction_states.size() != 1) {
      return Error(Errc::kIoError, "DescribeTransactions: not one answer for one id");
    }
    auto& s = resp.transaction_states[0];
    if (s.error_code == kafka::code(kafka::ErrorCode::kTransactionalIdNotFound)) {
      return Error(Errc::kNotFound, "transactional id '" + id + "' does not exist");
    }
    if (s.error_code == 0) return std::move(s);
    Error e = broker_error(s.error_code, "transactional id '" + id + "'");
    return coordinator_moving(s.error_code) ? Error(Errc::kUnavailable, e.message()) : e;
  });
}

Status describe(const Globals& g, const std::vector<std::string>& ids) {
  std::vector<kafka::DescribeTransactionsResponse::TransactionState> found;
  for (const auto& id : ids) {
    STRATA_ASSIGN_OR_RETURN(auto s, describe_one(g, id));
    found.push_back(std::move(s));
  }
  auto partitions = [](const auto& s) {
    std::vector<std::string> out;
    for (const auto& t : s.topic_partitions)
      for (int32_t p : t.partition_indexes)
        out.push_back(fmt::format("{}-{}", t.name, p));
    return out;
  };
  if (g.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& s : found) {
      j.push_back({{"transactional_id", s.transactional_id},
                   {"state", s.transaction_state},
                   {"producer_id", s.producer_id},
                   {"producer_epoch", s.producer_epoch},
                   {"timeout_ms", s.transaction_timeout_ms},
                   {"start_time_ms", s.transaction_start_time_ms},
                   {"partitions", partitions(s)}});
    }
    print_json(j);
    return ok_status();
  }
  Table t({"TRANSACTIONAL ID", "STATE", "PRODUCER ID", "EPOCH", "TIMEOUT MS", "STARTED MS",
           "PARTITIONS"});
  for (const auto& s : found) {
    auto parts = partitions(s);
    t.add({s.transactional_id, s.transaction_state, std::to_string(s.producer_id),
           std::to_string(s.producer_epoch), std::to_string(s.transaction_timeout_ms),
           s.transaction_start_time_ms < 0 ? "-" : std::to_string(s.transaction_start_time_ms),
           parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, ","))});
  }
  t.print();
  return ok_status();
}

// The leader of each of `partitions` of `topic` (all when empty).
Result<std::map<int32_t, std::string>> leaders(Kafka& k, const std::string& topic,
                                               const std::vector<int32_t>& partitions) {
  STRATA_ASSIGN_OR_RETURN(auto md, k.metadata(topic));
  std::map<int32_t, std::string> where;
  std::map<int32_t, std::string> brokers;
  for (const auto& b : md.brokers)
    brokers[b.id] = broker_address(b);
  for (const auto& t : md.topics) {
    for (const auto& p : t.partitions) {
      if (!partitions.empty() &&
          std::find(partitions.begin(), partitions.end(), p.id) == partitions.end()) {
        continue;
      }
      if (!brokers.count(p.leader)) {
        return Error(Errc::kUnavailable, fmt::format("{}-{} has no leader now", topic, p.id));
      }
      where[p.id] = brokers[p.leader];
    }
  }
  for (int32_t p : partitions) {
    if (!where.count(p)) {
      return Error(Errc::kInvalidArgument, fmt::format("topic {} has no partition {}", topic, p));
    }
  }
  return where;
}

Status producers(const Globals& g, const std::string& topic,
                 const std::vector<int32_t>& partitions) {
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  STRATA_ASSIGN_OR_RETURN(auto where, leaders(*k, topic, partitions));
  struct Row {
    int32_t partition;
    kafka::DescribeProducersResponse::Producer p;
  };
  std::vector<Row> rows;
  for (const auto& [p, broker] : where) {
    kafka::DescribeProducersRequest req;
    req.topics.push_back({topic, {p}});
    STRATA_ASSIGN_OR_RETURN(
        auto resp, (wire_call<kafka::DescribeProducersRequest, kafka::DescribeProducersResponse>(
                       g, broker, req, 0)));
    for (const auto& t : resp.topics) {
      for (const auto& rp : t.partitions) {
        if (rp.error_code != 0) {
          return broker_error(rp.error_code, fmt::format("DescribeProducers of {}-{}", topic, p));
        }
        for (const auto& prod : rp.active_producers)
          rows.push_back({rp.partition_index, prod});
      }
    }
  }
  if (g.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : rows) {
      j.push_back({{"partition", r.partition},
                   {"producer_id", r.p.producer_id},
                   {"producer_epoch", r.p.producer_epoch},
                   {"last_sequence", r.p.last_sequence},
                   {"last_timestamp", r.p.last_timestamp},
                   {"coordinator_epoch", r.p.coordinator_epoch},
                   {"current_txn_start_offset", r.p.current_txn_start_offset}});
    }
    print_json(j);
    return ok_status();
  }
  Table t({"PARTITION", "PRODUCER ID", "EPOCH", "LAST SEQUENCE", "LAST TIMESTAMP",
           "COORDINATOR EPOCH", "OPEN TXN FROM"});
  for (const auto& r : rows) {
    t.add({std::to_string(r.partition), std::to_string(r.p.producer_id),
           std::to_string(r.p.producer_epoch), std::to_string(r.p.last_sequence),
           std::to_string(r.p.last_timestamp), std::to_string(r.p.coordinator_epoch),
           r.p.current_txn_start_offset < 0 ? "-" : std::to_string(r.p.current_txn_start_offset)});
  }
  t.print();
  return ok_status();
}

struct AbortOptions {
  std::string topic;
  int32_t partition = -1;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t coordinator_epoch = -1;
};

// Ends a hanging transaction on one partition with an abort marker, as
// kafka-transactions.sh abort does: the producer's id and epoch, and a
// coordinator epoch at least the partition's last (DescribeProducers shows
// all three).
Status abort_txn(const Globals& g, const AbortOptions& o) {
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  STRATA_ASSIGN_OR_RETURN(auto where, leaders(*k, o.topic, {o.partition}));
  kafka::WriteTxnMarkersRequest req;
  auto& m = req.markers.emplace_back();
  m.producer_id = o.producer_id;
  m.producer_epoch = o.producer_epoch;
  m.transaction_result = false;
  m.coordinator_epoch = o.coordinator_epoch;
  m.topics.push_back({o.topic, {o.partition}});
  STRATA_ASSIGN_OR_RETURN(auto resp,
                          (wire_call<kafka::WriteTxnMarkersRequest, kafka::WriteTxnMarkersResponse>(
                              g, where.at(o.partition), req, 1)));
  for (const auto& marker : resp.markers) {
    for (const auto& t : marker.topics) {
      for (const auto& p : t.partitions) {
        if (p.error_code != 0) {
          return broker_error(p.error_code,
                              fmt::format("the abort marker for {}-{}", t.name, p.partition_index));
        }
      }
    }
  }
  if (g.json) {
    print_json({{"topic", o.topic},
                {"partition", o.partition},
                {"producer_id", o.producer_id},
                {"aborted", true}});
  } else {
    std::printf("aborted producer %lld's transaction on %s-%d\n",
                static_cast<long long>(o.producer_id), o.topic.c_str(), o.partition);
  }
  return ok_status();
}

}  // namespace

void add_txn_commands(CLI::App& app, Globals& g, Action& action) {
  auto* txn = app.add_subcommand("txn", "List, describe and abort transactions");
  txn->require_subcommand(1);

  auto states = std::make_shared<std::vector<std::string>>();
  auto* l = txn->add_subcommand("list", "Every transactional id of the cluster, with its state");
  l->add_option("--state", *states, "Only ids in this state (Ongoing, CompleteCommit, ...)");
  l->callback([&, states] { action = [&g, states] { return list(g, *states); }; });

  auto ids = std::make_shared<std::vector<std::string>>();
  auto* d = txn->add_subcommand("describe", "A transactional id's producer, state and partitions");
  d->add_option("ids", *ids, "Transactional ids")->required();
  d->callback([&, ids] { action = [&g, ids] { return describe(g, *ids); }; });

  auto topic = std::make_shared<std::string>();
  auto parts = std::make_shared<std::vector<int32_t>>();
  // As the issue and Kafka's kafka-transactions.sh name it: a command of
  // its own, not under txn (idempotent producers have no transaction).
  auto* p = app.add_subcommand("producers",
                               "The idempotent and transactional producers a partition knows");
  p->add_option("-t,--topic", *topic, "Topic")->required();
  p->add_option("-p,--partition", *parts, "Only these partitions (repeatable)")
      ->check(CLI::NonNegativeNumber);
  p->callback(
      [&, topic, parts] { action = [&g, topic, parts] { return producers(g, *topic, *parts); }; });

  auto o = std::make_shared<AbortOptions>();
  auto* a = txn->add_subcommand("abort",
                                "End a hanging transaction on one partition with an abort marker");
  a->add_option("-t,--topic", o->topic, "Topic")->required();
  a->add_option("-p,--partition", o->partition, "Partition")
      ->required()
      ->check(CLI::NonNegativeNumber);
  a->add_option("--producer-id", o->producer_id, "The producer's id")
      ->required()
      ->check(CLI::NonNegativeNumber);
  a->add_option("--producer-epoch", o->producer_epoch, "The producer's epoch")
      ->required()
      ->check(CLI::NonNegativeNumber);
  a->add_option("--coordinator-epoch", o->coordinator_epoch,
                "At least the partition's last coordinator epoch (strata producers shows it)")
      ->required()
      ->check(CLI::NonNegativeNumber);
  a->callback([&, o] { action = [&g, o] { return abort_txn(g, *o); }; });
}

}  // namespace strata::tools
