#include "server/dispatch.h"

#include <array>

#include <spdlog/spdlog.h>

#include "server/controller_forward.h"
#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"
#include "server/shard_state.h"

namespace strata::server {

unsigned RequestContext::origin() const {
  return shard.id();
}
namespace {

// What one request may make the decoder allocate, beyond the frame itself.
size_t alloc_budget(const SharedBytes& frame) {
  return 8 * frame.size() + 65536;
}

// Decodes the request body and runs `fn(ctx, request, reply)`; a body that
// cannot be decoded closes the connection.
template <typename Request, typename Fn>
void decode_then(const RequestContext& ctx, const SharedBytes& frame, const kafka::DecodedHeader& h,
                 ReplyFn reply, Fn fn) {
  auto req = kafka::decode_body<Request>(frame, h, alloc_budget(frame));
  if (!req) {
    spdlog::warn("connection {}: closing: malformed {} v{} request: {}", ctx.peer(),
                 kafka::find_api(h.header.api_key)->name, h.header.api_version,
                 req.error().message());
    return reply(Reply{{}, true});
  }
  fn(ctx, std::move(req).value(), std::move(reply));
}

// ApiVersions at a version we do not know: answer in the v0 layout with
// UNSUPPORTED_VERSION and our ranges, so the client can retry lower.
void unsupported_api_versions(const RequestContext& ctx, const ReplyFn& reply) {
  kafka::ApiVersionsResponse resp;
  resp.error_code = kafka::code(kafka::ErrorCode::kUnsupportedVersion);
  for (const auto& api : kafka::supported_apis()) {
    resp.api_keys.push_back({api.key, api.min_version, api.max_version});
  }
  reply(Reply{kafka::encode_response(ctx.header.correlation_id, 18, 0, resp), false});
}

// Produce answers through the raw ReplyFn (acks=0 sends nothing).
void run_produce(const RequestContext& ctx, const SharedBytes& frame, const kafka::DecodedHeader& h,
                 ReplyFn reply) {
  decode_then<kafka::ProduceRequest>(ctx, frame, h, std::move(reply), handlers::produce);
}

// Whether a request goes to the controller, which alone changes topics and
// topic configs (a broker's own configs stay with that broker).
using ControllerRule = bool (*)(const SharedBytes&, const kafka::DecodedHeader&);

bool always(const SharedBytes&, const kafka::DecodedHeader&) {
  return true;
}

template <typename Request>
bool topic_configs(const SharedBytes& frame, const kafka::DecodedHeader& h) {
  auto req = kafka::decode_body<Request>(frame, h, alloc_budget(frame));
  if (!req) return false;  // malformed: answered (and closed) here
  for (const auto& r : req->resources)
    if (r.resource_type != kafka::kResourceTopic) return false;
  return !req->resources.empty();
}

// One row per Kafka API Strata serves: how its request is run and whether
// the controller serves it. Adding an API is its message header, its
// handler and a row here (kafka/header.cc lists its versions for
// ApiVersions).
struct Route {
  int16_t key;
  void (*run)(const RequestContext&, const SharedBytes&, const kafka::DecodedHeader&, ReplyFn);
  ControllerRule for_controller;
};

template <typename Request, typename Response, auto Handler>
void run(const RequestContext& ctx, const SharedBytes& frame, const kafka::DecodedHeader& h,
         ReplyFn reply) {
  decode_then<Request>(ctx, frame, h, std::move(reply),
                       [](const RequestContext& c, Request req, ReplyFn r) {
                         Handler(c, std::move(req), Responder<Response>{c, std::move(r)});
                       });
}

template <typename Request, typename Response, auto Handler>
constexpr Route route(ControllerRule for_controller = nullptr) {
  return Route{Request::kApiKey, &run<Request, Response, Handler>, for_controller};
}

using namespace kafka;
constexpr std::array kRoutes = {
    Route{ProduceRequest::kApiKey, run_produce, nullptr},
    route<FetchRequest, FetchResponse, handlers::fetch>(),
    route<ListOffsetsRequest, ListOffsetsResponse, handlers::list_offsets>(),
    route<MetadataRequest, MetadataResponse, handlers::metadata>(),
    route<ApiVersionsRequest, ApiVersionsResponse, handlers::api_versions>(),
    route<CreateTopicsRequest, CreateTopicsResponse, handlers::create_topics>(always),
    route<DeleteTopicsRequest, DeleteTopicsResponse, handlers::delete_topics>(always),
    route<DeleteRecordsRequest, DeleteRecordsResponse, handlers::delete_records>(),
    route<DescribeConfigsRequest, DescribeConfigsResponse, handlers::describe_configs>(),
    route<AlterConfigsRequest, AlterConfigsResponse, handlers::alter_configs>(
        topic_configs<AlterConfigsRequest>),
    route<CreatePartitionsRequest, CreatePartitionsResponse, handlers::create_partitions>(always),
    route<IncrementalAlterConfigsRequest, AlterConfigsResponse,
          handlers::incremental_alter_configs>(topic_configs<IncrementalAlterConfigsRequest>),
    route<FindCoordinatorRequest, FindCoordinatorResponse, handlers::find_coordinator>(),
    route<JoinGroupRequest, JoinGroupResponse, handlers::join_group>(),
    route<SyncGroupRequest, SyncGroupResponse, handlers::sync_group>(),
    route<HeartbeatRequest, HeartbeatResponse, handlers::heartbeat>(),
    route<LeaveGroupRequest, LeaveGroupResponse, handlers::leave_group>(),
    route<OffsetCommitRequest, OffsetCommitResponse, handlers::offset_commit>(),
    route<OffsetFetchRequest, OffsetFetchResponse, handlers::offset_fetch>(),
    route<ListGroupsRequest, ListGroupsResponse, handlers::list_groups>(),
    route<DescribeGroupsRequest, DescribeGroupsResponse, handlers::describe_groups>(),
    route<DeleteGroupsRequest, DeleteGroupsResponse, handlers::delete_groups>(),
    route<OffsetDeleteRequest, OffsetDeleteResponse, handlers::offset_delete>(),
    route<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse,
          handlers::consumer_group_heartbeat>(),
    route<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse,
          handlers::consumer_group_describe>(),
    route<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse,
          handlers::offset_for_leader_epoch>(),
    route<InitProducerIdRequest, InitProducerIdResponse, handlers::init_producer_id>(),
    route<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, handlers::add_partitions_to_txn>(),
    route<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, handlers::add_offsets_to_txn>(),
    route<EndTxnRequest, EndTxnResponse, handlers::end_txn>(),
    route<DescribeLogDirsRequest, DescribeLogDirsResponse, handlers::describe_log_dirs>(),
    route<DescribeProducersRequest, DescribeProducersResponse, handlers::describe_producers>(),
    route<TxnOffsetCommitRequest, TxnOffsetCommitResponse, handlers::txn_offset_commit>(),
    route<WriteTxnMarkersRequest, WriteTxnMarkersResponse, handlers::write_txn_markers>(),
    route<DescribeTransactionsRequest, DescribeTransactionsResponse,
          handlers::describe_transactions>(),
    route<ListTransactionsRequest, ListTransactionsResponse, handlers::list_transactions>(),
    route<ElectLeadersRequest, ElectLeadersResponse, handlers::elect_leaders>(always),
    route<DescribeClusterRequest, DescribeClusterResponse, handlers::describe_cluster>(),
};

const Route* find_route(int16_t key) {
  for (const auto& r : kRoutes) {
    if (r.key == key) return &r;
  }
  return nullptr;
}

// A request this broker cannot answer: ApiVersions gets the v0 answer, the
// rest close the connection.
void refuse(const RequestContext& ctx, const kafka::DecodedHeader& h, const ReplyFn& reply) {
  if (h.header.api_key == kafka::ApiVersionsRequest::kApiKey)
    return unsupported_api_versions(ctx, reply);
  const kafka::ApiInfo* api = kafka::find_api(h.header.api_key);
  if (api == nullptr) {
    spdlog::warn("connection {}: closing: unknown API key {}", ctx.peer(), h.header.api_key);
  } else {
    spdlog::warn("connection {}: closing: {} v{} is not supported (v{}-{} are)", ctx.peer(),
                 api->name, h.header.api_version, api->min_version, api->max_version);
  }
  reply(Reply{{}, true});
}

}  // namespace

bool has_route(int16_t api_key) {
  return find_route(api_key) != nullptr;
}

void dispatch(const RequestContext& ctx, const SharedBytes& frame, const kafka::DecodedHeader& h,
              ReplyFn reply) {
  const Route* r = h.known ? find_route(h.header.api_key) : nullptr;
  if (r == nullptr) return refuse(ctx, h, reply);
  if (r->for_controller != nullptr && r->for_controller(frame, h)) {
    auto here = [ctx, frame, h, reply, r] { r->run(ctx, frame, h, reply); };
    if (forward_to_controller(ctx, frame, reply, here)) return;
  }
  r->run(ctx, frame, h, std::move(reply));
}

}  // namespace strata::server
