// libFuzzer target: the request decoder of every API and version.
//
// The input is a request frame without its size prefix. Whatever it holds,
// decoding must fail cleanly or succeed; a decoded request, encoded again and
// decoded again, must come back equal.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "server/kafka/header.h"
#include "server/kafka/messages/all.h"

namespace {

using namespace strata;
using namespace strata::kafka;

template <typename Request>
void check(const SharedBytes& frame, const DecodedHeader& h) {
  auto req = decode_body<Request>(frame, h, 8 * frame.size() + 65536);
  if (!req) return;
  auto again_frame = concat(encode_request(h.header, *req));
  auto body = again_frame.slice(4, again_frame.size() - 4);
  auto h2 = decode_request_header(body);
  if (!h2 || !h2->known) std::abort();
  auto again = decode_body<Request>(body, *h2, 8 * body.size() + 65536);
  if (!again || !(*again == *req)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto frame = SharedBytes::copy_of(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(data), size));
  auto h = decode_request_header(frame);
  if (!h || !h->known) return 0;
  switch (h->header.api_key) {
    case ProduceRequest::kApiKey: check<ProduceRequest>(frame, *h); break;
    case FetchRequest::kApiKey: check<FetchRequest>(frame, *h); break;
    case ListOffsetsRequest::kApiKey: check<ListOffsetsRequest>(frame, *h); break;
    case MetadataRequest::kApiKey: check<MetadataRequest>(frame, *h); break;
    case ApiVersionsRequest::kApiKey: check<ApiVersionsRequest>(frame, *h); break;
    case CreateTopicsRequest::kApiKey: check<CreateTopicsRequest>(frame, *h); break;
    case DeleteTopicsRequest::kApiKey: check<DeleteTopicsRequest>(frame, *h); break;
    case DeleteRecordsRequest::kApiKey: check<DeleteRecordsRequest>(frame, *h); break;
    case ElectLeadersRequest::kApiKey: check<ElectLeadersRequest>(frame, *h); break;
    case OffsetForLeaderEpochRequest::kApiKey: check<OffsetForLeaderEpochRequest>(frame, *h); break;
    case InitProducerIdRequest::kApiKey: check<InitProducerIdRequest>(frame, *h); break;
    case DescribeConfigsRequest::kApiKey: check<DescribeConfigsRequest>(frame, *h); break;
    case AlterConfigsRequest::kApiKey: check<AlterConfigsRequest>(frame, *h); break;
    case CreatePartitionsRequest::kApiKey: check<CreatePartitionsRequest>(frame, *h); break;
    case IncrementalAlterConfigsRequest::kApiKey:
      check<IncrementalAlterConfigsRequest>(frame, *h);
      break;
    case DescribeClusterRequest::kApiKey: check<DescribeClusterRequest>(frame, *h); break;
    case FindCoordinatorRequest::kApiKey: check<FindCoordinatorRequest>(frame, *h); break;
    case JoinGroupRequest::kApiKey: check<JoinGroupRequest>(frame, *h); break;
    case SyncGroupRequest::kApiKey: check<SyncGroupRequest>(frame, *h); break;
    case HeartbeatRequest::kApiKey: check<HeartbeatRequest>(frame, *h); break;
    case ConsumerGroupHeartbeatRequest::kApiKey:
      check<ConsumerGroupHeartbeatRequest>(frame, *h);
      break;
    case ConsumerGroupDescribeRequest::kApiKey:
      check<ConsumerGroupDescribeRequest>(frame, *h);
      break;
    case LeaveGroupRequest::kApiKey: check<LeaveGroupRequest>(frame, *h); break;
    case OffsetCommitRequest::kApiKey: check<OffsetCommitRequest>(frame, *h); break;
    case OffsetFetchRequest::kApiKey: check<OffsetFetchRequest>(frame, *h); break;
    case ListGroupsRequest::kApiKey: check<ListGroupsRequest>(frame, *h); break;
    case DescribeGroupsRequest::kApiKey: check<DescribeGroupsRequest>(frame, *h); break;
    case DeleteGroupsRequest::kApiKey: check<DeleteGroupsRequest>(frame, *h); break;
    case OffsetDeleteRequest::kApiKey: check<OffsetDeleteRequest>(frame, *h); break;
    case AddPartitionsToTxnRequest::kApiKey: check<AddPartitionsToTxnRequest>(frame, *h); break;
    case AddOffsetsToTxnRequest::kApiKey: check<AddOffsetsToTxnRequest>(frame, *h); break;
    case EndTxnRequest::kApiKey: check<EndTxnRequest>(frame, *h); break;
    case WriteTxnMarkersRequest::kApiKey: check<WriteTxnMarkersRequest>(frame, *h); break;
    case TxnOffsetCommitRequest::kApiKey: check<TxnOffsetCommitRequest>(frame, *h); break;
    case DescribeProducersRequest::kApiKey: check<DescribeProducersRequest>(frame, *h); break;
    case DescribeLogDirsRequest::kApiKey: check<DescribeLogDirsRequest>(frame, *h); break;
    case DescribeTransactionsRequest::kApiKey: check<DescribeTransactionsRequest>(frame, *h); break;
    case ListTransactionsRequest::kApiKey: check<ListTransactionsRequest>(frame, *h); break;
    default: std::abort();  // known but not checked: add it above
  }
  return 0;
}
