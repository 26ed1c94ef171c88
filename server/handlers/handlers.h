// One function per API. Each takes the decoded request and answers through
// its Responder (Produce takes the raw ReplyFn: acks=0 sends nothing).
#pragma once

#include "server/dispatch.h"
#include "server/kafka/messages/all.h"

namespace strata::server::handlers {

void api_versions(const RequestContext& ctx, kafka::ApiVersionsRequest req,
                  Responder<kafka::ApiVersionsResponse> out);
void metadata(const RequestContext& ctx, kafka::MetadataRequest req,
              Responder<kafka::MetadataResponse> out);
void produce(const RequestContext& ctx, kafka::ProduceRequest req, ReplyFn reply);
void fetch(const RequestContext& ctx, kafka::FetchRequest req, Responder<kafka::FetchResponse> out);
void list_offsets(const RequestContext& ctx, kafka::ListOffsetsRequest req,
                  Responder<kafka::ListOffsetsResponse> out);
void create_topics(const RequestContext& ctx, kafka::CreateTopicsRequest req,
                   Responder<kafka::CreateTopicsResponse> out);
void delete_topics(const RequestContext& ctx, kafka::DeleteTopicsRequest req,
                   Responder<kafka::DeleteTopicsResponse> out);
void create_partitions(const RequestContext& ctx, kafka::CreatePartitionsRequest req,
                       Responder<kafka::CreatePartitionsResponse> out);
void describe_configs(const RequestContext& ctx, kafka::DescribeConfigsRequest req,
                      Responder<kafka::DescribeConfigsResponse> out);
void alter_configs(const RequestContext& ctx, kafka::AlterConfigsRequest req,
                   Responder<kafka::AlterConfigsResponse> out);
void incremental_alter_configs(const RequestContext& ctx, kafka::IncrementalAlterConfigsRequest req,
                               Responder<kafka::AlterConfigsResponse> out);
void delete_records(const RequestContext& ctx, kafka::DeleteRecordsRequest req,
                    Responder<kafka::DeleteRecordsResponse> out);
void offset_for_leader_epoch(const RequestContext& ctx, kafka::OffsetForLeaderEpochRequest req,
                             Responder<kafka::OffsetForLeaderEpochResponse> out);
void elect_leaders(const RequestContext& ctx, kafka::ElectLeadersRequest req,
                   Responder<kafka::ElectLeadersResponse> out);
void describe_cluster(const RequestContext& ctx, kafka::DescribeClusterRequest req,
                      Responder<kafka::DescribeClusterResponse> out);
void describe_log_dirs(const RequestContext& ctx, kafka::DescribeLogDirsRequest req,
                       Responder<kafka::DescribeLogDirsResponse> out);
// Idempotent producers (handlers/producers.cc).
void init_producer_id(const RequestContext& ctx, kafka::InitProducerIdRequest req,
                      Responder<kafka::InitProducerIdResponse> out);
void describe_producers(const RequestContext& ctx, kafka::DescribeProducersRequest req,
                        Responder<kafka::DescribeProducersResponse> out);
// Transactions (handlers/transactions.cc).
void init_transactional_producer(const RequestContext& ctx, kafka::InitProducerIdRequest req,
                                 Responder<kafka::InitProducerIdResponse> out);
void add_partitions_to_txn(const RequestContext& ctx, kafka::AddPartitionsToTxnRequest req,
                           Responder<kafka::AddPartitionsToTxnResponse> out);
void add_offsets_to_txn(const RequestContext& ctx, kafka::AddOffsetsToTxnRequest req,
                        Responder<kafka::AddOffsetsToTxnResponse> out);
void end_txn(const RequestContext& ctx, kafka::EndTxnRequest req,
             Responder<kafka::EndTxnResponse> out);
void txn_offset_commit(const RequestContext& ctx, kafka::TxnOffsetCommitRequest req,
                       Responder<kafka::TxnOffsetCommitResponse> out);
void write_txn_markers(const RequestContext& ctx, kafka::WriteTxnMarkersRequest req,
                       Responder<kafka::WriteTxnMarkersResponse> out);
void describe_transactions(const RequestContext& ctx, kafka::DescribeTransactionsRequest req,
                           Responder<kafka::DescribeTransactionsResponse> out);
void list_transactions(const RequestContext& ctx, kafka::ListTransactionsRequest req,
                       Responder<kafka::ListTransactionsResponse> out);

// Consumer groups (handlers/groups.cc).
void find_coordinator(const RequestContext& ctx, kafka::FindCoordinatorRequest req,
                      Responder<kafka::FindCoordinatorResponse> out);
void join_group(const RequestContext& ctx, kafka::JoinGroupRequest req,
                Responder<kafka::JoinGroupResponse> out);
void sync_group(const RequestContext& ctx, kafka::SyncGroupRequest req,
                Responder<kafka::SyncGroupResponse> out);
void heartbeat(const RequestContext& ctx, kafka::HeartbeatRequest req,
               Responder<kafka::HeartbeatResponse> out);
void leave_group(const RequestContext& ctx, kafka::LeaveGroupRequest req,
                 Responder<kafka::LeaveGroupResponse> out);
void offset_commit(const RequestContext& ctx, kafka::OffsetCommitRequest req,
                   Responder<kafka::OffsetCommitResponse> out);
void offset_fetch(const RequestContext& ctx, kafka::OffsetFetchRequest req,
                  Responder<kafka::OffsetFetchResponse> out);
void list_groups(const RequestContext& ctx, kafka::ListGroupsRequest req,
                 Responder<kafka::ListGroupsResponse> out);
void describe_groups(const RequestContext& ctx, kafka::DescribeGroupsRequest req,
                     Responder<kafka::DescribeGroupsResponse> out);
void delete_groups(const RequestContext& ctx, kafka::DeleteGroupsRequest req,
                   Responder<kafka::DeleteGroupsResponse> out);
void offset_delete(const RequestContext& ctx, kafka::OffsetDeleteRequest req,
                   Responder<kafka::OffsetDeleteResponse> out);

// Consumer groups of KIP-848's protocol (handlers/consumer_groups.cc).
void consumer_group_heartbeat(const RequestContext& ctx, kafka::ConsumerGroupHeartbeatRequest req,
                              Responder<kafka::ConsumerGroupHeartbeatResponse> out);
void consumer_group_describe(const RequestContext& ctx, kafka::ConsumerGroupDescribeRequest req,
                             Responder<kafka::ConsumerGroupDescribeResponse> out);

}  // namespace strata::server::handlers
