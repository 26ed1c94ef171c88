// The group APIs of the classic protocol and those both kinds of group
// share (offsets, listing, deleting). Each group lives on the shard that
// hosts its __consumer_offsets partition (abs(javaHash(group)) % 50);
// requests are forwarded there (group_route.h), run by that shard's
// GroupCoordinator, and answered back on the connection's shard.
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "coordinator/group/group_records.h"
#include "coordinator/txn/txn_records.h"
#include "server/handlers/coordinator_route.h"
#include "server/handlers/group_route.h"
#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"
#include "server/partition_route.h"
#include "server/shard_state.h"
#include "server/txn_verification.h"

namespace strata::server::handlers {
namespace {

using coordinator::GroupCoordinator;
using kafka::ErrorCode;

using kafka::code;

}  // namespace

void find_coordinator(const RequestContext& ctx, kafka::FindCoordinatorRequest req,
                      Responder<kafka::FindCoordinatorResponse> out) {
  auto services = ctx.services();
  std::vector<std::string> keys =
      out.version() >= 4 ? req.coordinator_keys : std::vector<std::string>{req.key};
  int8_t key_type = req.key_type;
  auto answer = [services, keys, key_type, out](Status st) {
    kafka::FindCoordinatorResponse resp;
    bool txn = key_type == 1;
    std::string_view topic = txn ? coordinator::kTransactionStateTopic : coordinator::kOffsetsTopic;
    for (const auto& key : keys) {
      kafka::FindCoordinatorResponse::Coordinator c;
      c.key = key;
      if (key_type != 0 && key_type != 1) {
        c.error_code = kafka::code(ErrorCode::kInvalidRequest);
        c.error_message = "unknown coordinator key type " + std::to_string(key_type);
      } else if (!st) {
        c.error_code = kafka::code(ErrorCode::kCoordinatorNotAvailable);
        c.error_message = st.error().message();
      } else if (key.empty()) {
        c.error_code = kafka::code(ErrorCode::kInvalidRequest);
        c.error_message = txn ? "empty transactional id" : "empty group id";
      } else if (auto where = coordinator_of(*services.cluster.snapshot(), topic,
                                             txn ? coordinator::txn_partition_for(key)
                                                 : coordinator::offsets_partition_for(key))) {
        c.node_id = where->node_id;
        c.host = where->host;
        c.port = where->port;
      } else {
        c.error_code = kafka::code(ErrorCode::kCoordinatorNotAvailable);
        c.error_message = fmt::format("the {} partition of '{}' has no live leader", topic, key);
      }
      if (c.error_code != 0) {
        c.node_id = -1;
        c.port = -1;
      }
      resp.coordinators.push_back(c);
    }
    if (out.version() < 4 && !resp.coordinators.empty()) {
      const auto& c = resp.coordinators.front();
      resp.error_code = c.error_code;
      resp.error_message = c.error_message;
      resp.node_id = c.node_id;
      resp.host = c.host;
      resp.port = c.port;
      resp.coordinators.clear();
    }
    out.send(resp);
  };
  if (key_type != 0 && key_type != 1) return answer(ok_status());
  services.controller.ensure_internal_topic(
      ctx.shard.id(),
      key_type == 1 ? coordinator::kTransactionStateTopic : coordinator::kOffsetsTopic, answer);
}

void join_group(const RequestContext& ctx, kafka::JoinGroupRequest req,
                Responder<kafka::JoinGroupResponse> out) {
  coordinator::JoinArgs args;
  args.group_id = req.group_id;
  args.member_id = req.member_id;
  args.instance_id = req.group_instance_id;
  args.client_id = ctx.header.client_id.value_or("");
  args.client_host = client_host(ctx);
  args.session_timeout_ms = req.session_timeout_ms;
  args.rebalance_timeout_ms =
      out.version() >= 1 ? req.rebalance_timeout_ms : req.session_timeout_ms;
  args.protocol_type = req.protocol_type;
  for (auto& p : req.protocols)
    args.protocols.push_back({p.name, std::move(p.metadata)});
  args.require_known_member_id = out.version() >= 4;
  using R = coordinator::JoinResult;
  auto reply = [out](R r) {
    kafka::JoinGroupResponse resp;
    resp.error_code = code(r.error);
    resp.generation_id = r.generation;
    resp.protocol_type = r.protocol_type.empty() ? std::nullopt : std::optional(r.protocol_type);
    resp.protocol_name = r.protocol;
    resp.leader = r.leader;
    resp.member_id = r.member_id;
    for (auto& m : r.members)
      resp.members.push_back({m.member_id, m.instance_id, std::move(m.metadata)});
    out.send(resp);
  };
  on_group_shard<R>(
      ctx.services(), ctx.shard.id(), args.group_id,
      [args](GroupCoordinator& gc, std::function<void(R)> done) { gc.join(args, std::move(done)); },
      reply,
      [member = args.member_id](Errc e) {
        R r;
        r.error = e;
        r.member_id = member;
        return r;
      });
}

void sync_group(const RequestContext& ctx, kafka::SyncGroupRequest req,
                Responder<kafka::SyncGroupResponse> out) {
  coordinator::SyncArgs args;
  args.group_id = req.group_id;
  args.generation = req.generation_id;
  args.member_id = req.member_id;
  args.instance_id = req.group_instance_id;
  args.protocol_type = req.protocol_type;
  args.protocol = req.protocol_name;
  for (auto& a : req.assignments)
    args.assignments.emplace_back(a.member_id, std::move(a.assignment));
  using R = coordinator::SyncResult;
  on_group_shard<R>(
      ctx.services(), ctx.shard.id(), args.group_id,
      [args](GroupCoordinator& gc, std::function<void(R)> done) { gc.sync(args, std::move(done)); },
      [out](R r) {
        kafka::SyncGroupResponse resp;
        resp.error_code = code(r.error);
        resp.protocol_type =
            r.protocol_type.empty() ? std::nullopt : std::optional(r.protocol_type);
        resp.protocol_name = r.protocol;
        resp.assignment = std::move(r.assignment);
        out.send(resp);
      },
      [](Errc e) {
        return R{e, {}, {}, {}};
      });
}

void heartbeat(const RequestContext& ctx, kafka::HeartbeatRequest req,
               Responder<kafka::HeartbeatResponse> out) {
  coordinator::HeartbeatArgs args{req.group_id, req.generation_id, req.member_id,
                                  req.group_instance_id};
  on_group_shard<Errc>(
      ctx.services(), ctx.shard.id(), args.group_id,
      [args](GroupCoordinator& gc, std::function<void(Errc)> done) { done(gc.heartbeat(args)); },
      [out](Errc e) {
        kafka::HeartbeatResponse resp;
        resp.error_code = code(e);
        out.send(resp);
      },
      [](Errc e) { return e; });
}

void leave_group(const RequestContext& ctx, kafka::LeaveGroupRequest req,
                 Responder<kafka::LeaveGroupResponse> out) {
  std::vector<coordinator::LeavingMember> members;
  if (out.version() >= 3) {
    for (const auto& m : req.members)
      members.push_back({m.member_id, m.group_instance_id});
  } else {
    members.push_back({req.member_id, std::nullopt});
  }
  using R = coordinator::LeaveResult;
  std::string group = req.group_id;
  on_group_shard<R>(
      ctx.services(), ctx.shard.id(), group,
      [group, members](GroupCoordinator& gc, std::function<void(R)> done) {
        done(gc.leave(group, members));
      },
      [out, members](R r) {
        kafka::LeaveGroupResponse resp;
        if (out.version() >= 3) {
          // Per-member answers; the top-level error only for group-wide failures.
          bool group_failure = r.members.size() != members.size();
          resp.error_code = group_failure ? code(r.error) : 0;
          for (size_t i = 0; i < members.size() && !group_failure; ++i) {
            resp.members.push_back(
                {members[i].member_id, members[i].instance_id, code(r.members[i])});
          }
        } else {
          resp.error_code = code(r.error);
        }
        out.send(resp);
      },
      [](Errc e) {
        return R{e, {}};
      });
}

namespace {

// OffsetCommit and TxnOffsetCommit: `args` (without partitions) for the
// partitions of `topics`, run by the group's coordinator; the answer lists
// every partition with its error.
template <typename Topic, typename Response>
void commit_offsets(const RequestContext& ctx, coordinator::CommitArgs args,
                    std::vector<Topic> request_topics, Responder<Response> out) {
  for (const auto& t : request_topics) {
    for (const auto& p : t.partitions) {
      args.partitions.push_back({t.name, p.partition_index, p.committed_offset,
                                 p.committed_leader_epoch, p.committed_metadata});
    }
  }
  auto topics = std::make_shared<std::vector<Topic>>(std::move(request_topics));
  size_t n = args.partitions.size();
  on_group_shard<std::vector<Errc>>(
      ctx.services(), ctx.shard.id(), args.group_id,
      [args](GroupCoordinator& gc, std::function<void(std::vector<Errc>)> done) {
        gc.commit(args, std::move(done));
      },
      [out, topics](std::vector<Errc> errors) {
        Response resp;
        size_t i = 0;
        for (const auto& t : *topics) {
          auto& rt = resp.topics.emplace_back();
          rt.name = t.name;
          for (const auto& p : t.partitions)
            rt.partitions.push_back({p.partition_index, code(errors[i++])});
        }
        out.send(resp);
      },
      [n](Errc e) { return std::vector<Errc>(n, e); });
}

}  // namespace

void offset_commit(const RequestContext& ctx, kafka::OffsetCommitRequest req,
                   Responder<kafka::OffsetCommitResponse> out) {
  coordinator::CommitArgs args;
  args.group_id = req.group_id;
  args.generation = out.version() >= 1 ? req.generation_id_or_member_epoch : -1;
  args.member_id = req.member_id;
  args.instance_id = req.group_instance_id;
  commit_offsets(ctx, std::move(args), std::move(req.topics), out);
}

// The offsets of a transaction: they take effect at its commit marker.
void txn_offset_commit(const RequestContext& ctx, kafka::TxnOffsetCommitRequest req,
                       Responder<kafka::TxnOffsetCommitResponse> out) {
  coordinator::CommitArgs args;
  args.group_id = req.group_id;
  args.generation = out.version() >= 3 ? req.generation_id : -1;
  args.member_id = req.member_id;
  args.instance_id = req.group_instance_id;
  args.txn = coordinator::CommitArgs::TxnProducer{req.producer_id, req.producer_epoch};
  // KIP-890 as for a produce: the group's offsets partition must be in the
  // producer's transaction (AddOffsetsToTxn), or a late commit could open a
  // transaction there that nothing ends. (A fenced epoch is refused again
  // where the records are appended.)
  coordinator::TxnPartition offsets{std::string(coordinator::kOffsetsTopic),
                                    coordinator::offsets_partition_for(req.group_id)};
  auto topics =
      std::make_shared<std::vector<kafka::TxnOffsetCommitRequest::Topic>>(std::move(req.topics));
  verify_txn_partition(ctx.services(), ctx.shard.id(), req.transactional_id, offsets,
                       req.producer_id, req.producer_epoch,
                       [ctx, args, topics, out](Status verified) mutable {
                         if (verified)
                           return commit_offsets(ctx, std::move(args), std::move(*topics), out);
                         auto code = verified.error().code() == Errc::kUnavailable
                                         ? ErrorCode::kCoordinatorNotAvailable
                                         : kafka::to_error_code(verified.error().code());
                         kafka::TxnOffsetCommitResponse resp;
                         for (const auto& t : *topics) {
                           auto& rt = resp.topics.emplace_back();
                           rt.name = t.name;
                           for (const auto& p : t.partitions)
                             rt.partitions.push_back({p.partition_index, kafka::code(code)});
                         }
                         out.send(resp);
                       });
}

void offset_fetch(const RequestContext& ctx, kafka::OffsetFetchRequest req,
                  Responder<kafka::OffsetFetchResponse> out) {
  std::optional<std::vector<coordinator::TopicPartitionRef>> wanted;
  // Each topic entry of the request is answered by an entry of its own,
  // however often a name repeats (as Kafka answers): its name and size.
  std::vector<std::pair<std::string, size_t>> entries;
  if (req.topics) {
    wanted.emplace();
    for (const auto& t : *req.topics) {
      for (int32_t p : t.partition_indexes)
        wanted->push_back({t.name, p});
      entries.emplace_back(t.name, t.partition_indexes.size());
    }
  }
  struct R {
    Errc error = Errc::kOk;
    std::vector<coordinator::FetchedOffset> offsets;
  };
  std::string group = req.group_id;
  bool stable = out.version() >= 7 && req.require_stable;
  on_group_shard<R>(
      ctx.services(), ctx.shard.id(), group,
      [group, wanted, stable](GroupCoordinator& gc, std::function<void(R)> done) {
        if (auto e = gc.routing_error(group)) return done(R{*e, {}});
        auto r = gc.fetch_offsets(group, wanted, stable);
        if (!r) {
          spdlog::error("offset fetch for group {}: {}", group, r.error().to_string());
          return done(R{Errc::kCoordinatorNotAvailable, {}});
        }
        done(R{Errc::kOk, std::move(*r)});
      },
      [out, wanted, entries](R r) {
        kafka::OffsetFetchResponse resp;
        resp.error_code = code(r.error);
        // Group-level errors: v0-1 carry them in every partition.
        if (r.error != Errc::kOk && wanted) {
          for (const auto& tp : *wanted) {
            r.offsets.push_back({tp.topic, tp.partition, r.error, {}});
          }
        }
        auto partition = [](const coordinator::FetchedOffset& f) {
          kafka::OffsetFetchResponse::Partition p;
          p.partition_index = f.partition;
          p.committed_offset = f.offset.offset;
          p.committed_leader_epoch = f.offset.leader_epoch;
          p.metadata = f.offset.offset >= 0 ? std::optional(f.offset.metadata) : std::string();
          p.error_code = code(f.error);
          return p;
        };
        if (wanted) {
          // One answer per wanted partition, in the request's order.
          size_t next = 0;
          for (const auto& [name, n] : entries) {
            auto& rt = resp.topics.emplace_back();
            rt.name = name;
            for (size_t i = 0; i < n && next < r.offsets.size(); ++i)
              rt.partitions.push_back(partition(r.offsets[next++]));
          }
        } else {
          std::map<std::string, size_t> index;
          for (const auto& f : r.offsets) {
            auto [it, added] = index.emplace(f.topic, resp.topics.size());
            if (added) resp.topics.push_back({f.topic, {}});
            resp.topics[it->second].partitions.push_back(partition(f));
          }
        }
        out.send(resp);
      },
      [](Errc e) {
        return R{e, {}};
      });
}

void list_groups(const RequestContext& ctx, kafka::ListGroupsRequest req,
                 Responder<kafka::ListGroupsResponse> out) {
  auto services = ctx.services();
  struct Gather {
    size_t left;
    std::vector<coordinator::GroupListing> groups;
  };
  auto gather = std::make_shared<Gather>(Gather{services.shards.shard_count(), {}});
  // Kafka matches both filters without regard to case.
  auto lower = [](std::string s) {
    for (auto& c : s)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  std::set<std::string> states, types;
  for (const auto& s : req.states_filter)
    states.insert(lower(s));
  for (const auto& t : req.types_filter)
    types.insert(lower(t));
  unsigned origin = ctx.shard.id();
  for (unsigned s = 0; s < services.shards.shard_count(); ++s) {
    services.shards.shard(s).post([services, s, origin, gather, states, types, lower, out] {
      auto listed = services.shards.state(s).groups().list();
      services.shards.shard(origin).post(
          [gather, listed = std::move(listed), states, types, lower, out]() mutable {
            for (auto& g : listed)
              gather->groups.push_back(std::move(g));
            if (--gather->left > 0) return;
            kafka::ListGroupsResponse resp;
            for (const auto& g : gather->groups) {
              std::string state(coordinator::state_name(g.state));
              std::string type(coordinator::type_name(g.type));
              if (!states.empty() && !states.count(lower(state))) continue;
              if (!types.empty() && !types.count(type)) continue;
              resp.groups.push_back({g.group_id, g.protocol_type, state, type});
            }
            out.send(resp);
          });
    });
  }
}

void describe_groups(const RequestContext& ctx, kafka::DescribeGroupsRequest req,
                     Responder<kafka::DescribeGroupsResponse> out) {
  using D = coordinator::DescribedGroup;
  bool with_ops = req.include_authorized_operations;
  for_each_group<D>(
      ctx, req.groups,
      [](GroupCoordinator& gc, const std::string& g, std::function<void(D)> cb) {
        cb(gc.describe(g));
      },
      [](const std::string& g, Errc e) {
        D d;
        d.group_id = g;
        d.error = e;
        return d;
      },
      [out, with_ops](std::vector<D> described) {
        kafka::DescribeGroupsResponse resp;
        for (auto& d : described) {
          kafka::DescribeGroupsResponse::Group g;
          g.error_code = code(d.error);
          g.group_id = d.group_id;
          g.group_state = std::string(coordinator::state_name(d.state));
          g.protocol_type = d.protocol_type;
          g.protocol_data = d.protocol;
          // READ, DELETE, DESCRIBE: what a group allows without an authorizer.
          g.authorized_operations = with_ops ? (1 << 3) | (1 << 6) | (1 << 8) : INT32_MIN;
          for (auto& m : d.members) {
            g.members.push_back({m.member_id, m.instance_id, m.client_id, m.client_host,
                                 std::move(m.metadata), std::move(m.assignment)});
          }
          resp.groups.push_back(std::move(g));
        }
        out.send(resp);
      });
}

void delete_groups(const RequestContext& ctx, kafka::DeleteGroupsRequest req,
                   Responder<kafka::DeleteGroupsResponse> out) {
  // A group named twice is deleted and answered once, as Kafka does.
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (auto& g : req.groups_names) {
    if (seen.insert(g).second) names.push_back(std::move(g));
  }
  using P = std::pair<std::string, Errc>;
  for_each_group<P>(
      ctx, names,
      [](GroupCoordinator& gc, const std::string& g, std::function<void(P)> cb) {
        gc.delete_group(g, [g, cb](Errc e) { cb(P{g, e}); });
      },
      [](const std::string& g, Errc e) {
        return P{g, e};
      },
      [out](std::vector<P> results) {
        kafka::DeleteGroupsResponse resp;
        for (const auto& [g, e] : results)
          resp.results.push_back({g, code(e)});
        out.send(resp);
      });
}

void offset_delete(const RequestContext& ctx, kafka::OffsetDeleteRequest req,
                   Responder<kafka::OffsetDeleteResponse> out) {
  // A partition of no topic of the cluster's is answered
  // UNKNOWN_TOPIC_OR_PARTITION and its offset (if any) kept, as Kafka does.
  std::vector<coordinator::TopicPartitionRef> parts;
  auto known = std::make_shared<std::vector<bool>>();
  {
    auto snap = ctx.cluster.snapshot();
    for (const auto& t : req.topics) {
      const auto* topic = snap->find(t.name);
      for (const auto& p : t.partitions) {
        known->push_back(topic != nullptr && topic->state(p.partition_index) != nullptr);
        if (known->back()) parts.push_back({t.name, p.partition_index});
      }
    }
  }
  using R = std::pair<Errc, std::vector<Errc>>;
  std::string group = req.group_id;
  auto topics =
      std::make_shared<std::vector<kafka::OffsetDeleteRequest::Topic>>(std::move(req.topics));
  on_group_shard<R>(
      ctx.services(), ctx.shard.id(), group,
      [group, parts](GroupCoordinator& gc, std::function<void(R)> done) {
        gc.delete_offsets(group, parts, [done](Errc e, std::vector<Errc> per) {
          done(R{e, std::move(per)});
        });
      },
      [out, topics, known](R r) {
        kafka::OffsetDeleteResponse resp;
        resp.error_code = code(r.first);
        if (r.first == Errc::kOk) {
          size_t asked = 0, done = 0;
          for (const auto& t : *topics) {
            auto& rt = resp.topics.emplace_back();
            rt.name = t.name;
            for (const auto& p : t.partitions) {
              int16_t error = (*known)[asked++]
                                  ? code(r.second[done++])
                                  : kafka::code(kafka::ErrorCode::kUnknownTopicOrPartition);
              rt.partitions.push_back({p.partition_index, error});
            }
          }
        }
        out.send(resp);
      },
      [](Errc e) {
        return R{e, {}};
      });
}

}  // namespace strata::server::handlers
