#include "server/kafka/error_code.h"

namespace strata::kafka {

std::string_view error_name(ErrorCode e) {
  switch (e) {
    case ErrorCode::kUnknownServerError: return "UNKNOWN_SERVER_ERROR";
    case ErrorCode::kNone: return "NONE";
    case ErrorCode::kOffsetOutOfRange: return "OFFSET_OUT_OF_RANGE";
    case ErrorCode::kCorruptMessage: return "CORRUPT_MESSAGE";
    case ErrorCode::kUnknownTopicOrPartition: return "UNKNOWN_TOPIC_OR_PARTITION";
    case ErrorCode::kInvalidFetchSize: return "INVALID_FETCH_SIZE";
    case ErrorCode::kLeaderNotAvailable: return "LEADER_NOT_AVAILABLE";
    case ErrorCode::kPreferredLeaderNotAvailable: return "PREFERRED_LEADER_NOT_AVAILABLE";
    case ErrorCode::kEligibleLeadersNotAvailable: return "ELIGIBLE_LEADERS_NOT_AVAILABLE";
    case ErrorCode::kElectionNotNeeded: return "ELECTION_NOT_NEEDED";
    case ErrorCode::kNotLeaderOrFollower: return "NOT_LEADER_OR_FOLLOWER";
    case ErrorCode::kRequestTimedOut: return "REQUEST_TIMED_OUT";
    case ErrorCode::kMessageTooLarge: return "MESSAGE_TOO_LARGE";
    case ErrorCode::kCoordinatorLoadInProgress: return "COORDINATOR_LOAD_IN_PROGRESS";
    case ErrorCode::kCoordinatorNotAvailable: return "COORDINATOR_NOT_AVAILABLE";
    case ErrorCode::kNotCoordinator: return "NOT_COORDINATOR";
    case ErrorCode::kInvalidTopicException: return "INVALID_TOPIC_EXCEPTION";
    case ErrorCode::kRecordListTooLarge: return "RECORD_LIST_TOO_LARGE";
    case ErrorCode::kNotEnoughReplicas: return "NOT_ENOUGH_REPLICAS";
    case ErrorCode::kNotEnoughReplicasAfterAppend: return "NOT_ENOUGH_REPLICAS_AFTER_APPEND";
    case ErrorCode::kInvalidRequiredAcks: return "INVALID_REQUIRED_ACKS";
    case ErrorCode::kIllegalGeneration: return "ILLEGAL_GENERATION";
    case ErrorCode::kInconsistentGroupProtocol: return "INCONSISTENT_GROUP_PROTOCOL";
    case ErrorCode::kInvalidGroupId: return "INVALID_GROUP_ID";
    case ErrorCode::kUnknownMemberId: return "UNKNOWN_MEMBER_ID";
    case ErrorCode::kInvalidSessionTimeout: return "INVALID_SESSION_TIMEOUT";
    case ErrorCode::kRebalanceInProgress: return "REBALANCE_IN_PROGRESS";
    case ErrorCode::kInvalidCommitOffsetSize: return "INVALID_COMMIT_OFFSET_SIZE";
    case ErrorCode::kClusterAuthorizationFailed: return "CLUSTER_AUTHORIZATION_FAILED";
    case ErrorCode::kInvalidTimestamp: return "INVALID_TIMESTAMP";
    case ErrorCode::kUnsupportedVersion: return "UNSUPPORTED_VERSION";
    case ErrorCode::kTopicAlreadyExists: return "TOPIC_ALREADY_EXISTS";
    case ErrorCode::kInvalidPartitions: return "INVALID_PARTITIONS";
    case ErrorCode::kInvalidReplicationFactor: return "INVALID_REPLICATION_FACTOR";
    case ErrorCode::kInvalidReplicaAssignment: return "INVALID_REPLICA_ASSIGNMENT";
    case ErrorCode::kInvalidConfig: return "INVALID_CONFIG";
    case ErrorCode::kNotController: return "NOT_CONTROLLER";
    case ErrorCode::kInvalidRequest: return "INVALID_REQUEST";
    case ErrorCode::kUnsupportedForMessageFormat: return "UNSUPPORTED_FOR_MESSAGE_FORMAT";
    case ErrorCode::kPolicyViolation: return "POLICY_VIOLATION";
    case ErrorCode::kOutOfOrderSequenceNumber: return "OUT_OF_ORDER_SEQUENCE_NUMBER";
    case ErrorCode::kDuplicateSequenceNumber: return "DUPLICATE_SEQUENCE_NUMBER";
    case ErrorCode::kInvalidProducerEpoch: return "INVALID_PRODUCER_EPOCH";
    case ErrorCode::kInvalidTxnState: return "INVALID_TXN_STATE";
    case ErrorCode::kInvalidProducerIdMapping: return "INVALID_PRODUCER_ID_MAPPING";
    case ErrorCode::kInvalidTransactionTimeout: return "INVALID_TRANSACTION_TIMEOUT";
    case ErrorCode::kConcurrentTransactions: return "CONCURRENT_TRANSACTIONS";
    case ErrorCode::kTransactionCoordinatorFenced: return "TRANSACTION_COORDINATOR_FENCED";
    case ErrorCode::kOperationNotAttempted: return "OPERATION_NOT_ATTEMPTED";
    case ErrorCode::kKafkaStorageError: return "KAFKA_STORAGE_ERROR";
    case ErrorCode::kGroupIdNotFound: return "GROUP_ID_NOT_FOUND";
    case ErrorCode::kGroupMaxSizeReached: return "GROUP_MAX_SIZE_REACHED";
    case ErrorCode::kFencedMemberEpoch: return "FENCED_MEMBER_EPOCH";
    case ErrorCode::kUnreleasedInstanceId: return "UNRELEASED_INSTANCE_ID";
    case ErrorCode::kUnsupportedAssignor: return "UNSUPPORTED_ASSIGNOR";
    case ErrorCode::kStaleMemberEpoch: return "STALE_MEMBER_EPOCH";
    case ErrorCode::kInvalidRegularExpression: return "INVALID_REGULAR_EXPRESSION";
    case ErrorCode::kFetchSessionIdNotFound: return "FETCH_SESSION_ID_NOT_FOUND";
    case ErrorCode::kFencedLeaderEpoch: return "FENCED_LEADER_EPOCH";
    case ErrorCode::kUnknownLeaderEpoch: return "UNKNOWN_LEADER_EPOCH";
    case ErrorCode::kUnsupportedCompressionType: return "UNSUPPORTED_COMPRESSION_TYPE";
    case ErrorCode::kMemberIdRequired: return "MEMBER_ID_REQUIRED";
    case ErrorCode::kFencedInstanceId: return "FENCED_INSTANCE_ID";
    case ErrorCode::kInvalidRecord: return "INVALID_RECORD";
    case ErrorCode::kUnstableOffsetCommit: return "UNSTABLE_OFFSET_COMMIT";
    case ErrorCode::kGroupSubscribedToTopic: return "GROUP_SUBSCRIBED_TO_TOPIC";
    case ErrorCode::kNonEmptyGroup: return "NON_EMPTY_GROUP";
    case ErrorCode::kOffsetMetadataTooLarge: return "OFFSET_METADATA_TOO_LARGE";
    case ErrorCode::kProducerFenced: return "PRODUCER_FENCED";
    case ErrorCode::kTransactionalIdNotFound: return "TRANSACTIONAL_ID_NOT_FOUND";
    case ErrorCode::kUnknownTopicId: return "UNKNOWN_TOPIC_ID";
  }
  return "UNKNOWN";
}

ErrorCode to_error_code(Errc errc) {
  switch (errc) {
    case Errc::kOk: return ErrorCode::kNone;
    case Errc::kCorruptMessage:
    case Errc::kTruncatedBatch: return ErrorCode::kCorruptMessage;
    case Errc::kInvalidRecord:
    case Errc::kControlBatchRejected: return ErrorCode::kInvalidRecord;
    case Errc::kInvalidTimestamp: return ErrorCode::kInvalidTimestamp;
    case Errc::kUnsupportedMagic: return ErrorCode::kUnsupportedForMessageFormat;
    case Errc::kMessageTooLarge: return ErrorCode::kMessageTooLarge;
    case Errc::kUnsupportedCompression: return ErrorCode::kUnsupportedCompressionType;
    case Errc::kOffsetOutOfRange: return ErrorCode::kOffsetOutOfRange;
    case Errc::kInvalidConfig: return ErrorCode::kInvalidConfig;
    case Errc::kInvalidTopic: return ErrorCode::kInvalidTopicException;
    case Errc::kInvalidPartitions: return ErrorCode::kInvalidPartitions;
    case Errc::kInvalidReplicationFactor: return ErrorCode::kInvalidReplicationFactor;
    case Errc::kNotFound: return ErrorCode::kUnknownTopicOrPartition;
    case Errc::kAlreadyExists: return ErrorCode::kTopicAlreadyExists;
    case Errc::kInvalidArgument: return ErrorCode::kInvalidRequest;
    case Errc::kIoError:
    case Errc::kCorruption:
    case Errc::kLogFailed: return ErrorCode::kKafkaStorageError;
    case Errc::kUnavailable: return ErrorCode::kRequestTimedOut;
    case Errc::kNotLeader:
    case Errc::kNotHosted: return ErrorCode::kNotLeaderOrFollower;
    case Errc::kNotController: return ErrorCode::kNotController;
    case Errc::kNotEnoughReplicas: return ErrorCode::kNotEnoughReplicas;
    case Errc::kNotEnoughReplicasAfterAppend: return ErrorCode::kNotEnoughReplicasAfterAppend;
    case Errc::kTimedOut: return ErrorCode::kRequestTimedOut;
    case Errc::kOutOfOrderSequence: return ErrorCode::kOutOfOrderSequenceNumber;
    case Errc::kInvalidProducerEpoch: return ErrorCode::kInvalidProducerEpoch;
    case Errc::kTransactionCoordinatorFenced: return ErrorCode::kTransactionCoordinatorFenced;
    case Errc::kInvalidTxnState: return ErrorCode::kInvalidTxnState;
    case Errc::kFencedLeaderEpoch: return ErrorCode::kFencedLeaderEpoch;
    case Errc::kUnknownLeaderEpoch: return ErrorCode::kUnknownLeaderEpoch;
    case Errc::kShutdown: return ErrorCode::kNotLeaderOrFollower;
    case Errc::kInternal: return ErrorCode::kUnknownServerError;
    case Errc::kCoordinatorLoadInProgress: return ErrorCode::kCoordinatorLoadInProgress;
    case Errc::kCoordinatorNotAvailable: return ErrorCode::kCoordinatorNotAvailable;
    case Errc::kNotCoordinator: return ErrorCode::kNotCoordinator;
    case Errc::kIllegalGeneration: return ErrorCode::kIllegalGeneration;
    case Errc::kInconsistentGroupProtocol: return ErrorCode::kInconsistentGroupProtocol;
    case Errc::kInvalidGroupId: return ErrorCode::kInvalidGroupId;
    case Errc::kUnknownMemberId: return ErrorCode::kUnknownMemberId;
    case Errc::kInvalidSessionTimeout: return ErrorCode::kInvalidSessionTimeout;
    case Errc::kRebalanceInProgress: return ErrorCode::kRebalanceInProgress;
    case Errc::kNonEmptyGroup: return ErrorCode::kNonEmptyGroup;
    case Errc::kGroupIdNotFound: return ErrorCode::kGroupIdNotFound;
    case Errc::kMemberIdRequired: return ErrorCode::kMemberIdRequired;
    case Errc::kFencedInstanceId: return ErrorCode::kFencedInstanceId;
    case Errc::kGroupSubscribedToTopic: return ErrorCode::kGroupSubscribedToTopic;
    case Errc::kUnstableOffsetCommit: return ErrorCode::kUnstableOffsetCommit;
    case Errc::kOffsetMetadataTooLarge: return ErrorCode::kOffsetMetadataTooLarge;
    case Errc::kInvalidProducerIdMapping: return ErrorCode::kInvalidProducerIdMapping;
    case Errc::kInvalidTransactionTimeout: return ErrorCode::kInvalidTransactionTimeout;
    case Errc::kConcurrentTransactions: return ErrorCode::kConcurrentTransactions;
    case Errc::kProducerFenced: return ErrorCode::kProducerFenced;
    case Errc::kFencedMemberEpoch: return ErrorCode::kFencedMemberEpoch;
    case Errc::kStaleMemberEpoch: return ErrorCode::kStaleMemberEpoch;
    case Errc::kUnreleasedInstanceId: return ErrorCode::kUnreleasedInstanceId;
    case Errc::kUnsupportedAssignor: return ErrorCode::kUnsupportedAssignor;
    case Errc::kInvalidRegularExpression: return ErrorCode::kInvalidRegularExpression;
    case Errc::kGroupMaxSizeReached: return ErrorCode::kGroupMaxSizeReached;
  }
  return ErrorCode::kUnknownServerError;
}

Errc to_errc(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNone: return Errc::kOk;
    case ErrorCode::kUnknownTopicOrPartition: return Errc::kNotFound;
    case ErrorCode::kOffsetOutOfRange: return Errc::kOffsetOutOfRange;
    case ErrorCode::kNotLeaderOrFollower: return Errc::kNotLeader;
    case ErrorCode::kFencedLeaderEpoch: return Errc::kFencedLeaderEpoch;
    case ErrorCode::kUnknownLeaderEpoch: return Errc::kUnknownLeaderEpoch;
    case ErrorCode::kInvalidProducerEpoch: return Errc::kInvalidProducerEpoch;
    case ErrorCode::kInvalidTxnState: return Errc::kInvalidTxnState;
    case ErrorCode::kCoordinatorLoadInProgress: return Errc::kCoordinatorLoadInProgress;
    case ErrorCode::kCoordinatorNotAvailable: return Errc::kCoordinatorNotAvailable;
    case ErrorCode::kNotCoordinator: return Errc::kNotCoordinator;
    case ErrorCode::kIllegalGeneration: return Errc::kIllegalGeneration;
    case ErrorCode::kInconsistentGroupProtocol: return Errc::kInconsistentGroupProtocol;
    case ErrorCode::kInvalidGroupId: return Errc::kInvalidGroupId;
    case ErrorCode::kUnknownMemberId: return Errc::kUnknownMemberId;
    case ErrorCode::kInvalidSessionTimeout: return Errc::kInvalidSessionTimeout;
    case ErrorCode::kRebalanceInProgress: return Errc::kRebalanceInProgress;
    case ErrorCode::kNonEmptyGroup: return Errc::kNonEmptyGroup;
    case ErrorCode::kGroupIdNotFound: return Errc::kGroupIdNotFound;
    case ErrorCode::kMemberIdRequired: return Errc::kMemberIdRequired;
    case ErrorCode::kFencedInstanceId: return Errc::kFencedInstanceId;
    case ErrorCode::kGroupSubscribedToTopic: return Errc::kGroupSubscribedToTopic;
    case ErrorCode::kUnstableOffsetCommit: return Errc::kUnstableOffsetCommit;
    case ErrorCode::kOffsetMetadataTooLarge: return Errc::kOffsetMetadataTooLarge;
    case ErrorCode::kInvalidProducerIdMapping: return Errc::kInvalidProducerIdMapping;
    case ErrorCode::kInvalidTransactionTimeout: return Errc::kInvalidTransactionTimeout;
    case ErrorCode::kConcurrentTransactions: return Errc::kConcurrentTransactions;
    case ErrorCode::kProducerFenced: return Errc::kProducerFenced;
    case ErrorCode::kFencedMemberEpoch: return Errc::kFencedMemberEpoch;
    case ErrorCode::kStaleMemberEpoch: return Errc::kStaleMemberEpoch;
    case ErrorCode::kUnreleasedInstanceId: return Errc::kUnreleasedInstanceId;
    case ErrorCode::kUnsupportedAssignor: return Errc::kUnsupportedAssignor;
    case ErrorCode::kInvalidRegularExpression: return Errc::kInvalidRegularExpression;
    case ErrorCode::kGroupMaxSizeReached: return Errc::kGroupMaxSizeReached;
    default: return Errc::kInternal;
  }
}

}  // namespace strata::kafka
