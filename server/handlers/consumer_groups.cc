// The consumer-group APIs of KIP-848: ConsumerGroupHeartbeat and
// ConsumerGroupDescribe. Partitions travel by topic id on the wire; the
// coordinator (coordinator/group/consumer_membership.cc) keeps them so too.
#include <fmt/format.h>

#include "server/handlers/group_route.h"
#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"

namespace strata::server::handlers {
namespace {

using coordinator::GroupCoordinator;
using kafka::code;

std::vector<kafka::ConsumerGroupTopicPartitions> to_wire(const coordinator::Assignment& a) {
  std::vector<kafka::ConsumerGroupTopicPartitions> out;
  for (const auto& [topic, parts] : a)
    out.push_back({topic, std::vector<int32_t>(parts.begin(), parts.end())});
  return out;
}

}  // namespace

void consumer_group_heartbeat(const RequestContext& ctx, kafka::ConsumerGroupHeartbeatRequest req,
                              Responder<kafka::ConsumerGroupHeartbeatResponse> out) {
  using R = coordinator::ConsumerHeartbeatResult;
  auto answer = [out](R r) {
    kafka::ConsumerGroupHeartbeatResponse resp;
    resp.error_code = code(r.error);
    if (!r.message.empty()) resp.error_message = r.message;
    if (r.error == Errc::kOk) {
      resp.member_id = r.member_id;
      resp.member_epoch = r.member_epoch;
      resp.heartbeat_interval_ms = r.heartbeat_interval_ms;
      if (r.assignment) resp.assignment.emplace().topic_partitions = to_wire(*r.assignment);
    } else {
      resp.member_epoch = r.member_epoch;
    }
    out.send(resp);
  };
  if (req.group_id.empty())
    return answer(R{Errc::kInvalidGroupId, "GroupId can't be empty", {}, 0, 0, {}});
  // v1 (KIP-1082): the client names itself, always.
  if (out.version() >= 1 && req.member_id.empty()) {
    return answer(
        R{Errc::kInvalidArgument, "MemberId can't be empty", {}, req.member_epoch, 0, {}});
  }
  coordinator::ConsumerHeartbeatArgs args;
  args.group_id = std::move(req.group_id);
  args.member_id = std::move(req.member_id);
  args.member_epoch = req.member_epoch;
  args.instance_id = std::move(req.instance_id);
  args.rack_id = std::move(req.rack_id);
  args.rebalance_timeout_ms = req.rebalance_timeout_ms;
  args.subscribed_topic_names = std::move(req.subscribed_topic_names);
  args.subscribed_topic_regex = std::move(req.subscribed_topic_regex);
  args.server_assignor = std::move(req.server_assignor);
  if (req.topic_partitions) {
    args.owned.emplace();
    for (const auto& t : *req.topic_partitions)
      (*args.owned)[t.topic_id].insert(t.partitions.begin(), t.partitions.end());
    // A topic with no partitions owns nothing.
    std::erase_if(*args.owned, [](const auto& kv) { return kv.second.empty(); });
  }
  args.client_id = ctx.header.client_id.value_or("");
  args.client_host = client_host(ctx);
  std::string group = args.group_id;
  on_group_shard<R>(
      ctx.services(), ctx.shard.id(), group,
      [args = std::move(args)](GroupCoordinator& gc, std::function<void(R)> done) {
        gc.consumer_heartbeat(args, std::move(done));
      },
      answer, [epoch = req.member_epoch](Errc e) { return R{e, {}, {}, epoch, 0, {}}; });
}

void consumer_group_describe(const RequestContext& ctx, kafka::ConsumerGroupDescribeRequest req,
                             Responder<kafka::ConsumerGroupDescribeResponse> out) {
  using D = coordinator::DescribedConsumerGroup;
  bool with_ops = req.include_authorized_operations;
  bool member_types = out.version() >= 1;
  auto services = ctx.services();
  for_each_group<D>(
      ctx, req.group_ids,
      [](GroupCoordinator& gc, const std::string& g, std::function<void(D)> cb) {
        cb(gc.describe_consumer(g));
      },
      [](const std::string& g, Errc e) {
        D d;
        d.group_id = g;
        d.error = e;
        return d;
      },
      [out, with_ops, member_types, services](std::vector<D> described) {
        auto snap = services.cluster.snapshot();
        auto assignment = [&](const coordinator::Assignment& a) {
          kafka::ConsumerGroupDescribeResponse::Assignment w;
          for (const auto& [id, parts] : a) {
            const auto* t = snap->find(id);
            w.topic_partitions.push_back({id, t != nullptr ? t->name : std::string(),
                                          std::vector<int32_t>(parts.begin(), parts.end())});
          }
          return w;
        };
        kafka::ConsumerGroupDescribeResponse resp;
        for (auto& d : described) {
          auto& g = resp.groups.emplace_back();
          g.error_code = code(d.error);
          if (!d.message.empty()) g.error_message = d.message;
          g.group_id = d.group_id;
          if (d.error != Errc::kOk) continue;
          g.group_state = std::string(coordinator::state_name(d.state));
          g.group_epoch = d.group_epoch;
          g.assignment_epoch = d.assignment_epoch;
          g.assignor_name = d.assignor;
          // READ, DELETE, DESCRIBE: what a group allows without an authorizer.
          g.authorized_operations = with_ops ? (1 << 3) | (1 << 6) | (1 << 8) : INT32_MIN;
          for (auto& m : d.members) {
            auto& wm = g.members.emplace_back();
            wm.member_id = m.member_id;
            wm.instance_id = m.instance_id;
            wm.rack_id = m.rack_id;
            wm.member_epoch = m.member_epoch;
            wm.client_id = m.client_id;
            wm.client_host = m.client_host;
            wm.subscribed_topic_names = m.subscribed_topic_names;
            wm.subscribed_topic_regex = m.subscribed_topic_regex;
            wm.assignment = assignment(m.assignment);
            wm.target_assignment = assignment(m.target);
            if (member_types) wm.member_type = 1;  // a member of the consumer protocol
          }
        }
        out.send(resp);
      });
}

}  // namespace strata::server::handlers
