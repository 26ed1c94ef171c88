// Writes a seed corpus for request_fuzz: one filled request per API and
// version, each a frame without its size prefix.
//
//   kafka_fuzz_seeds <dir>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "server/kafka/header.h"
#include "server/kafka/messages/all.h"
#include "server/kafka/testing/filler.h"

namespace {

using namespace strata;
using namespace strata::kafka;

template <typename Request>
void seeds(const std::filesystem::path& dir) {
  for (int16_t v = Request::kMinVersion; v <= Request::kMaxVersion; ++v) {
    Request req;
    testing::Filler filler(v);
    req.visit(filler);
    auto frame = concat(encode_request(RequestHeader{Request::kApiKey, v, 1, "seed"}, req));
    std::ofstream out(dir / ("api" + std::to_string(Request::kApiKey) + "_v" + std::to_string(v)),
                      std::ios::binary);
    out.write(reinterpret_cast<const char*>(frame.data() + 4), static_cast<long>(frame.size() - 4));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: kafka_fuzz_seeds <dir>\n");
    return 2;
  }
  std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  seeds<ProduceRequest>(dir);
  seeds<FetchRequest>(dir);
  seeds<ListOffsetsRequest>(dir);
  seeds<MetadataRequest>(dir);
  seeds<ApiVersionsRequest>(dir);
  seeds<CreateTopicsRequest>(dir);
  seeds<DeleteTopicsRequest>(dir);
  seeds<DeleteRecordsRequest>(dir);
  seeds<ElectLeadersRequest>(dir);
  seeds<OffsetForLeaderEpochRequest>(dir);
  seeds<InitProducerIdRequest>(dir);
  seeds<DescribeConfigsRequest>(dir);
  seeds<AlterConfigsRequest>(dir);
  seeds<CreatePartitionsRequest>(dir);
  seeds<IncrementalAlterConfigsRequest>(dir);
  seeds<DescribeClusterRequest>(dir);
  seeds<FindCoordinatorRequest>(dir);
  seeds<JoinGroupRequest>(dir);
  seeds<SyncGroupRequest>(dir);
  seeds<HeartbeatRequest>(dir);
  seeds<ConsumerGroupHeartbeatRequest>(dir);
  seeds<ConsumerGroupDescribeRequest>(dir);
  seeds<LeaveGroupRequest>(dir);
  seeds<OffsetCommitRequest>(dir);
  seeds<OffsetFetchRequest>(dir);
  seeds<ListGroupsRequest>(dir);
  seeds<DescribeGroupsRequest>(dir);
  seeds<DeleteGroupsRequest>(dir);
  seeds<OffsetDeleteRequest>(dir);
  seeds<AddPartitionsToTxnRequest>(dir);
  seeds<AddOffsetsToTxnRequest>(dir);
  seeds<EndTxnRequest>(dir);
  seeds<WriteTxnMarkersRequest>(dir);
  seeds<TxnOffsetCommitRequest>(dir);
  seeds<DescribeProducersRequest>(dir);
  seeds<DescribeLogDirsRequest>(dir);
  seeds<DescribeTransactionsRequest>(dir);
  seeds<ListTransactionsRequest>(dir);
  return 0;
}
