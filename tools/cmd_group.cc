// strata group list|describe|lag|reset-offsets|delete
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "server/kafka/error_code.h"
#include "server/kafka/messages/consumer_group_describe.h"
#include "server/kafka/messages/list_groups.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "tools/time_spec.h"
#include "tools/wire.h"

namespace strata::tools {
namespace {

struct PartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* l) const {
    rd_kafka_topic_partition_list_destroy(l);
  }
};
using PartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDeleter>;

struct Committed {
  std::string topic;
  int32_t partition;
  int64_t offset;
};

Result<std::vector<Committed>> committed_offsets(Kafka& k, const std::string& group) {
  auto* req = rd_kafka_ListConsumerGroupOffsets_new(group.c_str(), nullptr);
  auto ev = k.admin(RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS, [&](auto* o, auto* q) {
    rd_kafka_ListConsumerGroupOffsets(k.rk(), &req, 1, o, q);
  });
  rd_kafka_ListConsumerGroupOffsets_destroy(req);
  if (!ev) return std::move(ev).error();
  size_t n = 0;
  const auto** groups = rd_kafka_ListConsumerGroupOffsets_result_groups(
      rd_kafka_event_ListConsumerGroupOffsets_result(ev->get()), &n);
  std::vector<Committed> out;
  if (n != 1) return out;
  if (const auto* e = rd_kafka_group_result_error(groups[0])) {
    return kafka_error(rd_kafka_error_code(e), "offsets of group " + group,
                       rd_kafka_error_string(e));
  }
  const auto* parts = rd_kafka_group_result_partitions(groups[0]);
  for (int i = 0; parts && i < parts->cnt; ++i) {
    if (parts->elems[i].offset < 0) continue;
    out.push_back({parts->elems[i].topic, parts->elems[i].partition, parts->elems[i].offset});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.topic != b.topic ? a.topic < b.topic : a.partition < b.partition;
  });
  return out;
}

struct Member {
  std::string id, client_id, host;
  std::optional<std::string> instance_id;
  std::optional<int32_t> epoch;  // consumer groups: the member epoch
  std::vector<std::pair<std::string, int32_t>> assignment;
};
struct Description {
  std::string type = "classic";  // or "consumer" (KIP-848)
  std::string state;
  std::string assignor;
  std::optional<int32_t> epoch;  // consumer groups: the group epoch
  std::vector<Member> members;
};

// A consumer group (KIP-848) as its coordinator describes it
// (ConsumerGroupDescribe); nullopt for a classic group or none. Asked again,
// the coordinator found again, while it moves or loads, until --timeout.
Result<std::optional<Description>> describe_consumer_group(const Globals& g,
                                                           const std::string& group) {
  using Found = std::optional<Description>;
  return at_coordinator<Found>(g, group, 0, [&](const std::string& where) -> Result<Found> {
    kafka::ConsumerGroupDescribeRequest req;
    req.group_ids = {group};
    auto resp =
        wire_call<kafka::ConsumerGroupDescribeRequest, kafka::ConsumerGroupDescribeResponse>(
            g, where, req, 0);
    // A broker without the API (before Kafka 3.7) has only classic groups.
    if (!resp) return Found();
    if (resp->groups.size() != 1) {
      return Error(Errc::kIoError, "ConsumerGroupDescribe: not one answer for one group");
    }
    auto& cg = resp->groups[0];
    if (cg.error_code == kafka::code(kafka::ErrorCode::kGroupIdNotFound)) return Found();
    if (cg.error_code != 0) {
      Error e = broker_error(cg.error_code, "group '" + group + "'");
      return coordinator_moving(cg.error_code) ? Error(Errc::kUnavailable, e.message()) : e;
    }
    Description d;
    d.type = "consumer";
    d.state = cg.group_state;
    d.assignor = cg.assignor_name;
    d.epoch = cg.group_epoch;
    for (auto& m : cg.members) {
      Member mem{m.member_id, m.client_id, m.client_host, m.instance_id, m.member_epoch, {}};
      for (const auto& tp : m.assignment.topic_partitions)
        for (int32_t p : tp.partitions)
          mem.assignment.emplace_back(tp.topic_name, p);
      std::sort(mem.assignment.begin(), mem.assignment.end());
      d.members.push_back(std::move(mem));
    }
    return Found(std::move(d));
  });
}

// Either kind of group: a consumer group's own description, else the
// classic one (DescribeGroups).
Result<Description> describe_group(const Globals& g, Kafka& k, const std::string& group) {
  STRATA_ASSIGN_OR_RETURN(auto consumer, describe_consumer_group(g, group));
  if (consumer) return std::move(*consumer);
  const char* names[] = {group.c_str()};
  STRATA_ASSIGN_OR_RETURN(auto ev,
                          k.admin(RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS, [&](auto* o, auto* q) {
                            rd_kafka_DescribeConsumerGroups(k.rk(), names, 1, o, q);
                          }));
  size_t n = 0;
  const auto** groups = rd_kafka_DescribeConsumerGroups_result_groups(
      rd_kafka_event_DescribeConsumerGroups_result(ev.get()), &n);
  if (n != 1) return Error(Errc::kInternal, "no description returned");
  if (const auto* e = rd_kafka_ConsumerGroupDescription_error(groups[0])) {
    return kafka_error(rd_kafka_error_code(e), "describe group " + group, rd_kafka_error_string(e));
  }
  Description d;
  d.state = rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupDescription_state(groups[0]));
  const char* assignor = rd_kafka_ConsumerGroupDescription_partition_assignor(groups[0]);
  d.assignor = assignor ? assignor : "";
  for (size_t i = 0; i < rd_kafka_ConsumerGroupDescription_member_count(groups[0]); ++i) {
    const auto* m = rd_kafka_ConsumerGroupDescription_member(groups[0], i);
    Member mem;
    mem.id = rd_kafka_MemberDescription_consumer_id(m);
    mem.client_id = rd_kafka_MemberDescription_client_id(m);
    mem.host = rd_kafka_MemberDescription_host(m);
    if (const char* inst = rd_kafka_MemberDescription_group_instance_id(m)) mem.instance_id = inst;
    const auto* parts =
        rd_kafka_MemberAssignment_partitions(rd_kafka_MemberDescription_assignment(m));
    for (int p = 0; parts && p < parts->cnt; ++p)
      mem.assignment.emplace_back(parts->elems[p].topic, parts->elems[p].partition);
    d.members.push_back(std::move(mem));
  }
  return d;
}

// One partition of a topic the group reads: committed offset (nullopt where
// the group committed nothing), end offset, and lag from the committed one.
struct LagRow {
  std::string topic;
  int32_t partition;
  std::optional<int64_t> committed;
  int64_t end;
  std::optional<int64_t> lag;
  std::string owner;
};

// Every partition of every topic the group has committed offsets for or its
// members are assigned, as kafka-consumer-groups shows them.
Result<std::vector<LagRow>> lag_rows(Kafka& k, const std::string& group, const Description& d) {
  STRATA_ASSIGN_OR_RETURN(auto committed, committed_offsets(k, group));
  std::map<std::pair<std::string, int32_t>, std::string> owner;
  std::map<std::pair<std::string, int32_t>, int64_t> offsets;
  std::set<std::string> topics;
  for (const auto& m : d.members) {
    for (const auto& tp : m.assignment) {
      owner[tp] = m.client_id + " " + m.id;
      topics.insert(tp.first);
    }
  }
  for (const auto& c : committed) {
    offsets[{c.topic, c.partition}] = c.offset;
    topics.insert(c.topic);
  }
  std::vector<LagRow> rows;
  for (const auto& topic : topics) {
    auto t = k.topic(topic);
    if (!t) {
      // A deleted topic still holding commits: show what was committed.
      for (const auto& [tp, off] : offsets) {
        if (tp.first == topic) rows.push_back({topic, tp.second, off, -1, std::nullopt, ""});
      }
      continue;
    }
    for (const auto& p : t->partitions) {
      STRATA_ASSIGN_OR_RETURN(auto wm, k.watermarks(topic, p.id));
      LagRow r{topic, p.id, std::nullopt, wm.second, std::nullopt, ""};
      if (auto o = offsets.find({topic, p.id}); o != offsets.end()) {
        r.committed = o->second;
        r.lag = std::max<int64_t>(0, wm.second - o->second);
      }
      if (auto o = owner.find({topic, p.id}); o != owner.end()) r.owner = o->second;
      rows.push_back(std::move(r));
    }
  }
  std::sort(rows.begin(), rows.end(), [](const LagRow& a, const LagRow& b) {
    return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
  });
  return rows;
}

nlohmann::json lag_json(const std::vector<LagRow>& rows) {
  auto opt = [](const std::optional<int64_t>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  nlohmann::json j = nlohmann::json::array();
  for (const auto& r : rows) {
    j.push_back({{"topic", r.topic},
                 {"partition", r.partition},
                 {"committed", opt(r.committed)},
                 {"end", r.end},
                 {"lag", opt(r.lag)},
                 {"member", r.owner}});
  }
  return j;
}

void print_lag(const std::vector<LagRow>& rows) {
  auto text = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; };
  Table t({"TOPIC", "PARTITION", "COMMITTED", "END", "LAG", "MEMBER"});
  for (const auto& r : rows) {
    t.add({r.topic, std::to_string(r.partition), text(r.committed),
           r.end < 0 ? "-" : std::to_string(r.end), text(r.lag), r.owner});
  }
  t.print();
}

// Every group of every broker (ListGroups v5 at each: both kinds, with
// their type).
Status list(const Globals& g) {
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  STRATA_ASSIGN_OR_RETURN(auto md, k->metadata());
  std::vector<std::tuple<std::string, std::string, std::string>> rows;  // group, type, state
  for (const auto& b : md.brokers) {
    STRATA_ASSIGN_OR_RETURN(auto resp,
                            (wire_call<kafka::ListGroupsRequest, kafka::ListGroupsResponse>(
                                g, broker_address(b), kafka::ListGroupsRequest{}, 5)));
    if (resp.error_code != 0) {
      return broker_error(resp.error_code, fmt::format("ListGroups at broker {}", b.id));
    }
    for (auto& grp : resp.groups)
      rows.emplace_back(grp.group_id, grp.group_type, grp.group_state);
  }
  std::sort(rows.begin(), rows.end());
  if (g.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& [id, type, state] : rows)
      j.push_back({{"group", id}, {"type", type}, {"state", state}});
    print_json(j);
    return ok_status();
  }
  Table t({"GROUP", "TYPE", "STATE"});
  for (const auto& [id, type, state] : rows)
    t.add({id, type, state});
  t.print();
  return ok_status();
}

// Describe and lag refuse a group the coordinator does not know (Dead, no
// members, nothing committed), the way kafka-consumer-groups does.
Status require_exists(const std::string& group, const Description& d,
                      const std::vector<LagRow>& rows) {
  if (d.state == "Dead" && d.members.empty() && rows.empty())
    return Error(Errc::kNotFound, "consumer group '" + group + "' does not exist");
  return ok_status();
}

Status describe_group(const Globals& g, const std::string& group) {
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  STRATA_TRY(k->metadata());
  STRATA_ASSIGN_OR_RETURN(auto d, describe_group(g, *k, group));
  STRATA_ASSIGN_OR_RETURN(auto rows, lag_rows(*k, group, d));
  STRATA_TRY(require_exists(group, d, rows));
  if (g.json) {
    nlohmann::json members = nlohmann::json::array();
    for (const auto& m : d.members) {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& [t, p] : m.assignment)
        a.push_back({{"topic", t}, {"partition", p}});
      nlohmann::json member = {
          {"member_id", m.id},
          {"client_id", m.client_id},
          {"host", m.host},
          {"instance_id", m.instance_id ? nlohmann::json(*m.instance_id) : nlohmann::json(nullptr)},
          {"assignment", a}};
      if (m.epoch) member["epoch"] = *m.epoch;
      members.push_back(std::move(member));
    }
    nlohmann::json out = {{"group", group},     {"type", d.type},
                          {"state", d.state},   {"assignor", d.assignor},
                          {"members", members}, {"offsets", lag_json(rows)}};
    if (d.epoch) out["epoch"] = *d.epoch;
    print_json(out);
    return ok_status();
  }
  std::printf("group %s: %s group, %s, %zu member(s)%s%s\n\n", group.c_str(), d.type.c_str(),
              d.state.c_str(), d.members.size(),
              d.epoch ? fmt::format(", epoch {}", *d.epoch).c_str() : "",
              d.assignor.empty() ? "" : (", assignor " + d.assignor).c_str());
  if (!d.members.empty()) {
    Table t({"MEMBER", "CLIENT", "HOST", "EPOCH", "ASSIGNMENT"});
    for (const auto& m : d.members) {
      std::string a;
      for (const auto& [tp, p] : m.assignment)
        a += fmt::format("{}{}[{}]", a.empty() ? "" : ",", tp, p);
      t.add({m.id, m.client_id, m.host, m.epoch ? std::to_string(*m.epoch) : "-", a});
    }
    t.print();
    std::printf("\n");
  }
  print_lag(rows);
  return ok_status();
}

Status lag(const Globals& g, const std::string& group) {
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  STRATA_TRY(k->metadata());
  STRATA_ASSIGN_OR_RETURN(auto d, describe_group(g, *k, group));
  STRATA_ASSIGN_OR_RETURN(auto rows, lag_rows(*k, group, d));
  STRATA_TRY(require_exists(group, d, rows));
  int64_t total = 0;
  for (const auto& r : rows)
    total += r.lag.value_or(0);
  if (g.json) {
    print_json({{"group", group}, {"total_lag", total}, {"partitions", lag_json(rows)}});
  } else {
    print_lag(rows);
    std::printf("\ntotal lag %lld\n", static_cast<long long>(total));
  }
  return ok_status();
}

struct ResetOptions {
  std::string group;
  std::string topic;
  std::vector<int> partitions;
  bool to_earliest = false;
  bool to_latest = false;
  std::string to_time;
  int64_t to_offset = -1;
  bool execute = false;
};

Status reset(const Globals& g, const ResetOptions& o) {
  int targets = (o.to_earliest ? 1 : 0) + (o.to_latest ? 1 : 0) + (o.to_time.empty() ? 0 : 1) +
                (o.to_offset >= 0 ? 1 : 0);
  if (targets != 1) {
    return Error(Errc::kInvalidArgument,
                 "give exactly one of --to-earliest, --to-latest, --to-time, --to-offset");
  }
  std::optional<int64_t> at;
  if (!o.to_time.empty()) {
    STRATA_ASSIGN_OR_RETURN(int64_t t, parse_time(o.to_time));
    at = t;
  }
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  STRATA_ASSIGN_OR_RETURN(auto topic, k->topic(o.topic));
  STRATA_ASSIGN_OR_RETURN(auto d, describe_group(g, *k, o.group));
  if (!d.members.empty()) {
    return Error(Errc::kIoError,
                 fmt::format("group {} has {} active member(s) ({}); offsets can be reset only "
                             "while it is empty",
                             o.group, d.members.size(), d.state));
  }
  std::vector<int32_t> parts;
  if (o.partitions.empty()) {
    for (const auto& p : topic.partitions)
      parts.push_back(p.id);
  } else {
    for (int p : o.partitions) {
      if (p < 0 || p >= static_cast<int>(topic.partitions.size())) {
        return Error(Errc::kInvalidArgument,
                     fmt::format("topic {} has no partition {}", o.topic, p));
      }
      parts.push_back(p);
    }
  }
  std::vector<int64_t> for_time;
  if (at) {
    STRATA_ASSIGN_OR_RETURN(for_time, k->offsets_for_times(o.topic, parts, *at));
  }
  STRATA_ASSIGN_OR_RETURN(auto current, committed_offsets(*k, o.group));
  std::map<int32_t, int64_t> before;
  for (const auto& c : current) {
    if (c.topic == o.topic) before[c.partition] = c.offset;
  }
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(parts.size())));
  nlohmann::json plan = nlohmann::json::array();
  Table t({"TOPIC", "PARTITION", "CURRENT", "NEW"});
  for (size_t i = 0; i < parts.size(); ++i) {
    STRATA_ASSIGN_OR_RETURN(auto wm, k->watermarks(o.topic, parts[i]));
    int64_t target = o.to_earliest ? wm.first
                     : o.to_latest ? wm.second
                     : at          ? (for_time[i] < 0 ? wm.second : for_time[i])
                                   : std::clamp(o.to_offset, wm.first, wm.second);
    rd_kafka_topic_partition_list_add(list.get(), o.topic.c_str(), parts[i])->offset = target;
    int64_t cur = before.count(parts[i]) ? before[parts[i]] : -1;
    plan.push_back(
        {{"topic", o.topic}, {"partition", parts[i]}, {"current", cur}, {"new", target}});
    t.add({o.topic, std::to_string(parts[i]), cur < 0 ? "-" : std::to_string(cur),
           std::to_string(target)});
  }
  if (o.execute) {
    auto* req = rd_kafka_AlterConsumerGroupOffsets_new(o.group.c_str(), list.get());
    auto ev = k->admin(RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS, [&](auto* op, auto* q) {
      rd_kafka_AlterConsumerGroupOffsets(k->rk(), &req, 1, op, q);
    });
    rd_kafka_AlterConsumerGroupOffsets_destroy(req);
    if (!ev) return std::move(ev).error();
    size_t n = 0;
    const auto** groups = rd_kafka_AlterConsumerGroupOffsets_result_groups(
        rd_kafka_event_AlterConsumerGroupOffsets_result(ev->get()), &n);
    if (n == 1) {
      if (const auto* e = rd_kafka_group_result_error(groups[0])) {
        return kafka_error(rd_kafka_error_code(e), "reset offsets of " + o.group,
                           rd_kafka_error_string(e));
      }
      const auto* parts_out = rd_kafka_group_result_partitions(groups[0]);
      for (int i = 0; parts_out && i < parts_out->cnt; ++i) {
        if (parts_out->elems[i].err) {
          return kafka_error(parts_out->elems[i].err,
                             fmt::format("reset {}[{}]", parts_out->elems[i].topic,
                                         parts_out->elems[i].partition));
        }
      }
    }
  }
  if (g.json) {
    print_json({{"group", o.group}, {"executed", o.execute}, {"offsets", plan}});
  } else {
    t.print();
    std::printf("\n%s\n",
                o.execute ? "offsets reset" : "dry run: nothing changed (add --execute to apply)");
  }
  return ok_status();
}

Status remove_groups(const Globals& g, const std::vector<std::string>& groups) {
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  STRATA_TRY(k->metadata());
  STRATA_ASSIGN_OR_RETURN(auto results, k->delete_groups(groups));
  if (!g.json) {
    for (const auto& r : results)
      if (r.error == RD_KAFKA_RESP_ERR_NO_ERROR) std::printf("deleted group %s\n", r.name.c_str());
  }
  STRATA_TRY(first_failure(results, "delete group"));
  if (g.json) print_json({{"deleted", groups}});
  return ok_status();
}

}  // namespace

void add_group_commands(CLI::App& app, Globals& g, Action& action) {
  auto* grp =
      app.add_subcommand("group", "List, describe, show lag of, reset and delete consumer groups");
  grp->require_subcommand(1);
  grp->add_subcommand("list", "List groups")->callback([&] { action = [&g] { return list(g); }; });

  auto dname = std::make_shared<std::string>();
  auto* d = grp->add_subcommand("describe", "Members, assignments, committed offsets and lag");
  d->add_option("group", *dname, "Group id")->required();
  d->callback([&, dname] { action = [&g, dname] { return describe_group(g, *dname); }; });

  auto lname = std::make_shared<std::string>();
  auto* l = grp->add_subcommand("lag", "Committed offset, end offset and lag per partition");
  l->add_option("group", *lname, "Group id")->required();
  l->callback([&, lname] { action = [&g, lname] { return lag(g, *lname); }; });

  auto r = std::make_shared<ResetOptions>();
  auto* rs = grp->add_subcommand("reset-offsets",
                                 "Move a group's committed offsets (only while it has no members); "
                                 "a dry run unless --execute");
  rs->add_option("group", r->group, "Group id")->required();
  rs->add_option("-t,--topic", r->topic, "Topic")->required();
  rs->add_option("-p,--partition", r->partitions, "Only these partitions (repeatable)");
  rs->add_flag("--to-earliest", r->to_earliest, "To the log start");
  rs->add_flag("--to-latest", r->to_latest, "To the end");
  rs->add_option("--to-time", r->to_time,
                 "To the first offset at or after this time (RFC 3339 or epoch ms)");
  rs->add_option("--to-offset", r->to_offset, "To this offset (clamped to the log)")
      ->check(CLI::NonNegativeNumber);
  rs->add_flag("--execute", r->execute, "Apply the change (default: only show it)");
  rs->callback([&, r] { action = [&g, r] { return reset(g, *r); }; });

  auto names = std::make_shared<std::vector<std::string>>();
  auto* del = grp->add_subcommand("delete", "Delete groups (they must have no members)");
  del->add_option("groups", *names, "Group ids")->required();
  del->callback([&, names] { action = [&g, names] { return remove_groups(g, *names); }; });
}

}  // namespace strata::tools
