#include "server/dispatch.h"

#include <spdlog/spdlog.h>

#include "server/broker.h"
#include "server/controller_forward.h"
#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"

namespace strata::server {
namespace {

// What one request may make the decoder allocate, beyond the frame itself.
size_t alloc_budget(const SharedBytes& frame) {
  return 8 * frame.size() + 65536;
}

template <typename Request, typename Response, typename Handler>
void decode_and_run(const RequestContext& ctx, const SharedBytes& frame,
                    const kafka::DecodedHeader& h, ReplyFn reply, Handler handler) {
  auto req = kafka::decode_body<Request>(frame, h, alloc_budget(frame));
  if (!req) {
    spdlog::warn("connection {}: closing: malformed {} v{} request: {}", ctx.peer,
                 kafka::find_api(h.header.api_key)->name, h.header.api_version,
                 req.error().message());
    return reply(Reply{{}, true});
  }
  handler(ctx, std::move(req).value(), Responder<Response>{ctx, std::move(reply)});
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

void dispatch_here(const RequestContext& ctx, const SharedBytes& frame,
                   const kafka::DecodedHeader& h, ReplyFn reply);

// Whether the request changes what only the controller changes: topics,
// and topic configs (a broker's own configs stay with that broker).
bool for_the_controller(const SharedBytes& frame, const kafka::DecodedHeader& h) {
  using namespace kafka;
  auto topics_only = [&](const auto& req) {
    if (!req) return false;  // malformed: answered (and closed) here
    for (const auto& r : req->resources)
      if (r.resource_type != kResourceTopic) return false;
    return !req->resources.empty();
  };
  switch (h.header.api_key) {
    case CreateTopicsRequest::kApiKey:
    case DeleteTopicsRequest::kApiKey:
    case CreatePartitionsRequest::kApiKey:
    case ElectLeadersRequest::kApiKey: return true;
    case AlterConfigsRequest::kApiKey:
      return topics_only(decode_body<AlterConfigsRequest>(frame, h, alloc_budget(frame)));
    case IncrementalAlterConfigsRequest::kApiKey:
      return topics_only(
          decode_body<IncrementalAlterConfigsRequest>(frame, h, alloc_budget(frame)));
    default: return false;
  }
}

}  // namespace

void dispatch(const RequestContext& ctx, const SharedBytes& frame, const kafka::DecodedHeader& h,
              ReplyFn reply) {
  if (h.known && for_the_controller(frame, h)) {
    auto here = [ctx, frame, h, reply] { dispatch_here(ctx, frame, h, reply); };
    if (forward_to_controller(ctx, frame, reply, here)) return;
  }
  dispatch_here(ctx, frame, h, std::move(reply));
}

namespace {

void dispatch_here(const RequestContext& ctx, const SharedBytes& frame,
                   const kafka::DecodedHeader& h, ReplyFn reply) {
  using namespace kafka;
  if (!h.known) {
    if (h.header.api_key == ApiVersionsRequest::kApiKey)
      return unsupported_api_versions(ctx, reply);
    const ApiInfo* api = find_api(h.header.api_key);
    if (api == nullptr) {
      spdlog::warn("connection {}: closing: unknown API key {}", ctx.peer, h.header.api_key);
    } else {
      spdlog::warn("connection {}: closing: {} v{} is not supported (v{}-{} are)", ctx.peer,
                   api->name, h.header.api_version, api->min_version, api->max_version);
    }
    return reply(Reply{{}, true});
  }
  switch (h.header.api_key) {
    case ProduceRequest::kApiKey: {
      auto req = decode_body<ProduceRequest>(frame, h, alloc_budget(frame));
      if (!req) {
        spdlog::warn("connection {}: closing: malformed Produce v{} request: {}", ctx.peer,
                     h.header.api_version, req.error().message());
        return reply(Reply{{}, true});
      }
      return handlers::produce(ctx, std::move(req).value(), std::move(reply));
    }
    case FetchRequest::kApiKey:
      return decode_and_run<FetchRequest, FetchResponse>(ctx, frame, h, reply, handlers::fetch);
    case ListOffsetsRequest::kApiKey:
      return decode_and_run<ListOffsetsRequest, ListOffsetsResponse>(ctx, frame, h, reply,
                                                                     handlers::list_offsets);
    case MetadataRequest::kApiKey:
      return decode_and_run<MetadataRequest, MetadataResponse>(ctx, frame, h, reply,
                                                               handlers::metadata);
    case ApiVersionsRequest::kApiKey:
      return decode_and_run<ApiVersionsRequest, ApiVersionsResponse>(ctx, frame, h, reply,
                                                                     handlers::api_versions);
    case CreateTopicsRequest::kApiKey:
      return decode_and_run<CreateTopicsRequest, CreateTopicsResponse>(ctx, frame, h, reply,
                                                                       handlers::create_topics);
    case DeleteTopicsRequest::kApiKey:
      return decode_and_run<DeleteTopicsRequest, DeleteTopicsResponse>(ctx, frame, h, reply,
                                                                       handlers::delete_topics);
    case DeleteRecordsRequest::kApiKey:
      return decode_and_run<DeleteRecordsRequest, DeleteRecordsResponse>(ctx, frame, h, reply,
                                                                         handlers::delete_records);
    case DescribeConfigsRequest::kApiKey:
      return decode_and_run<DescribeConfigsRequest, DescribeConfigsResponse>(
          ctx, frame, h, reply, handlers::describe_configs);
    case AlterConfigsRequest::kApiKey:
      return decode_and_run<AlterConfigsRequest, AlterConfigsResponse>(ctx, frame, h, reply,
                                                                       handlers::alter_configs);
    case CreatePartitionsRequest::kApiKey:
      return decode_and_run<CreatePartitionsRequest, CreatePartitionsResponse>(
          ctx, frame, h, reply, handlers::create_partitions);
    case IncrementalAlterConfigsRequest::kApiKey:
      return decode_and_run<IncrementalAlterConfigsRequest, AlterConfigsResponse>(
          ctx, frame, h, reply, handlers::incremental_alter_configs);
    case FindCoordinatorRequest::kApiKey:
      return decode_and_run<FindCoordinatorRequest, FindCoordinatorResponse>(
          ctx, frame, h, reply, handlers::find_coordinator);
    case JoinGroupRequest::kApiKey:
      return decode_and_run<JoinGroupRequest, JoinGroupResponse>(ctx, frame, h, reply,
                                                                 handlers::join_group);
    case SyncGroupRequest::kApiKey:
      return decode_and_run<SyncGroupRequest, SyncGroupResponse>(ctx, frame, h, reply,
                                                                 handlers::sync_group);
    case HeartbeatRequest::kApiKey:
      return decode_and_run<HeartbeatRequest, HeartbeatResponse>(ctx, frame, h, reply,
                                                                 handlers::heartbeat);
    case LeaveGroupRequest::kApiKey:
      return decode_and_run<LeaveGroupRequest, LeaveGroupResponse>(ctx, frame, h, reply,
                                                                   handlers::leave_group);
    case OffsetCommitRequest::kApiKey:
      return decode_and_run<OffsetCommitRequest, OffsetCommitResponse>(ctx, frame, h, reply,
                                                                       handlers::offset_commit);
    case OffsetFetchRequest::kApiKey:
      return decode_and_run<OffsetFetchRequest, OffsetFetchResponse>(ctx, frame, h, reply,
                                                                     handlers::offset_fetch);
    case ListGroupsRequest::kApiKey:
      return decode_and_run<ListGroupsRequest, ListGroupsResponse>(ctx, frame, h, reply,
                                                                   handlers::list_groups);
    case DescribeGroupsRequest::kApiKey:
      return decode_and_run<DescribeGroupsRequest, DescribeGroupsResponse>(
          ctx, frame, h, reply, handlers::describe_groups);
    case DeleteGroupsRequest::kApiKey:
      return decode_and_run<DeleteGroupsRequest, DeleteGroupsResponse>(ctx, frame, h, reply,
                                                                       handlers::delete_groups);
    case OffsetDeleteRequest::kApiKey:
      return decode_and_run<OffsetDeleteRequest, OffsetDeleteResponse>(ctx, frame, h, reply,
                                                                       handlers::offset_delete);
    case OffsetForLeaderEpochRequest::kApiKey:
      return decode_and_run<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse>(
          ctx, frame, h, reply, handlers::offset_for_leader_epoch);
    case InitProducerIdRequest::kApiKey:
      return decode_and_run<InitProducerIdRequest, InitProducerIdResponse>(
          ctx, frame, h, reply, handlers::init_producer_id);
    case AddPartitionsToTxnRequest::kApiKey:
      return decode_and_run<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse>(
          ctx, frame, h, reply, handlers::add_partitions_to_txn);
    case AddOffsetsToTxnRequest::kApiKey:
      return decode_and_run<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse>(
          ctx, frame, h, reply, handlers::add_offsets_to_txn);
    case EndTxnRequest::kApiKey:
      return decode_and_run<EndTxnRequest, EndTxnResponse>(ctx, frame, h, reply, handlers::end_txn);
    case DescribeLogDirsRequest::kApiKey:
      return decode_and_run<DescribeLogDirsRequest, DescribeLogDirsResponse>(
          ctx, frame, h, reply, handlers::describe_log_dirs);
    case DescribeProducersRequest::kApiKey:
      return decode_and_run<DescribeProducersRequest, DescribeProducersResponse>(
          ctx, frame, h, reply, handlers::describe_producers);
    case TxnOffsetCommitRequest::kApiKey:
      return decode_and_run<TxnOffsetCommitRequest, TxnOffsetCommitResponse>(
          ctx, frame, h, reply, handlers::txn_offset_commit);
    case WriteTxnMarkersRequest::kApiKey:
      return decode_and_run<WriteTxnMarkersRequest, WriteTxnMarkersResponse>(
          ctx, frame, h, reply, handlers::write_txn_markers);
    case DescribeTransactionsRequest::kApiKey:
      return decode_and_run<DescribeTransactionsRequest, DescribeTransactionsResponse>(
          ctx, frame, h, reply, handlers::describe_transactions);
    case ListTransactionsRequest::kApiKey:
      return decode_and_run<ListTransactionsRequest, ListTransactionsResponse>(
          ctx, frame, h, reply, handlers::list_transactions);
    case ElectLeadersRequest::kApiKey:
      return decode_and_run<ElectLeadersRequest, ElectLeadersResponse>(ctx, frame, h, reply,
                                                                       handlers::elect_leaders);
    case DescribeClusterRequest::kApiKey:
      return decode_and_run<DescribeClusterRequest, DescribeClusterResponse>(
          ctx, frame, h, reply, handlers::describe_cluster);
  }
  STRATA_CHECK(false, "API {} is listed as supported but has no handler", h.header.api_key);
}

}  // namespace

}  // namespace strata::server
