#include "server/kafka/header.h"

#include <array>

#include "server/kafka/messages/all.h"

namespace strata::kafka {
namespace {

template <typename Request>
constexpr ApiInfo info(std::string_view name) {
  return ApiInfo{Request::kApiKey, name, Request::kMinVersion, Request::kMaxVersion,
                 Request::kFlexibleFrom};
}

constexpr std::array kApis = {
    info<ProduceRequest>("Produce"),
    info<FetchRequest>("Fetch"),
    info<ListOffsetsRequest>("ListOffsets"),
    info<MetadataRequest>("Metadata"),
    info<OffsetCommitRequest>("OffsetCommit"),
    info<OffsetFetchRequest>("OffsetFetch"),
    info<FindCoordinatorRequest>("FindCoordinator"),
    info<JoinGroupRequest>("JoinGroup"),
    info<HeartbeatRequest>("Heartbeat"),
    info<LeaveGroupRequest>("LeaveGroup"),
    info<SyncGroupRequest>("SyncGroup"),
    info<DescribeGroupsRequest>("DescribeGroups"),
    info<ListGroupsRequest>("ListGroups"),
    info<ApiVersionsRequest>("ApiVersions"),
    info<CreateTopicsRequest>("CreateTopics"),
    info<DeleteTopicsRequest>("DeleteTopics"),
    info<DeleteRecordsRequest>("DeleteRecords"),
    info<InitProducerIdRequest>("InitProducerId"),
    info<OffsetForLeaderEpochRequest>("OffsetForLeaderEpoch"),
    info<AddPartitionsToTxnRequest>("AddPartitionsToTxn"),
    info<AddOffsetsToTxnRequest>("AddOffsetsToTxn"),
    info<EndTxnRequest>("EndTxn"),
    info<WriteTxnMarkersRequest>("WriteTxnMarkers"),
    info<TxnOffsetCommitRequest>("TxnOffsetCommit"),
    info<DescribeConfigsRequest>("DescribeConfigs"),
    info<AlterConfigsRequest>("AlterConfigs"),
    info<DescribeLogDirsRequest>("DescribeLogDirs"),
    info<CreatePartitionsRequest>("CreatePartitions"),
    info<DeleteGroupsRequest>("DeleteGroups"),
    info<ElectLeadersRequest>("ElectLeaders"),
    info<IncrementalAlterConfigsRequest>("IncrementalAlterConfigs"),
    info<OffsetDeleteRequest>("OffsetDelete"),
    info<DescribeClusterRequest>("DescribeCluster"),
    info<DescribeProducersRequest>("DescribeProducers"),
    info<DescribeTransactionsRequest>("DescribeTransactions"),
    info<ListTransactionsRequest>("ListTransactions"),
    info<ConsumerGroupHeartbeatRequest>("ConsumerGroupHeartbeat"),
    info<ConsumerGroupDescribeRequest>("ConsumerGroupDescribe"),
};

}  // namespace

std::span<const ApiInfo> supported_apis() {
  return kApis;
}

const ApiInfo* find_api(int16_t key) {
  for (const auto& a : kApis) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

Result<DecodedHeader> decode_request_header(const SharedBytes& frame) {
  DecodedHeader out;
  Reader r(frame, 0, 0, false, 0);
  out.header.api_key = r.fixed<int16_t>();
  out.header.api_version = r.fixed<int16_t>();
  out.header.correlation_id = r.fixed<int32_t>();
  if (!r.ok()) return Error(Errc::kInvalidArgument, "request header: " + r.error());
  int64_t n = r.length(false, false, "client id");
  if (!r.ok()) return Error(Errc::kInvalidArgument, "request header: " + r.error());
  if (n >= 0) {
    if (!r.need(static_cast<size_t>(n), "client id")) {
      return Error(Errc::kInvalidArgument, "request header: " + r.error());
    }
    out.header.client_id.emplace(reinterpret_cast<const char*>(r.position()),
                                 static_cast<size_t>(n));
  }
  size_t consumed = 8 + 2 + (n > 0 ? static_cast<size_t>(n) : 0);
  const ApiInfo* api = find_api(out.header.api_key);
  out.known = api != nullptr && out.header.api_version >= api->min_version &&
              out.header.api_version <= api->max_version;
  if (out.known && out.header.api_version >= api->flexible_from) {
    // Header v2: skip the header's tagged fields.
    Reader tags(frame, consumed, out.header.api_version, true, 0);
    uint32_t count = tags.uvarint();
    for (uint32_t i = 0; i < count && tags.ok(); ++i) {
      tags.uvarint();
      uint32_t size = tags.uvarint();
      if (tags.need(size, "header tagged field")) {
        for (uint32_t k = 0; k < size; ++k)
          tags.fixed<int8_t>();
      }
    }
    if (!tags.ok()) return Error(Errc::kInvalidArgument, "request header: " + tags.error());
    consumed = static_cast<size_t>(tags.position() - frame.data());
  }
  out.body_offset = consumed;
  return out;
}

SharedBytes concat(const std::vector<SharedBytes>& parts) {
  size_t n = 0;
  for (const auto& p : parts)
    n += p.size();
  auto out = SharedBytes::allocate(n);
  size_t pos = 0;
  for (const auto& p : parts) {
    if (p.size() > 0) std::memcpy(out.data() + pos, p.data(), p.size());
    pos += p.size();
  }
  return out;
}

}  // namespace strata::kafka
