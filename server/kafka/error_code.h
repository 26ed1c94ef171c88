// Kafka protocol error codes that Strata returns, and the mapping from
// Strata's Errc at the server edge.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/error.h"

namespace strata::kafka {

enum class ErrorCode : int16_t {
  kUnknownServerError = -1,
  kNone = 0,
  kOffsetOutOfRange = 1,
  kCorruptMessage = 2,
  kUnknownTopicOrPartition = 3,
  kInvalidFetchSize = 4,
  kLeaderNotAvailable = 5,
  kNotLeaderOrFollower = 6,
  kRequestTimedOut = 7,
  kMessageTooLarge = 10,
  kOffsetMetadataTooLarge = 12,
  kCoordinatorLoadInProgress = 14,
  kCoordinatorNotAvailable = 15,
  kNotCoordinator = 16,
  kInvalidTopicException = 17,
  kRecordListTooLarge = 18,
  kNotEnoughReplicas = 19,
  kNotEnoughReplicasAfterAppend = 20,
  kInvalidRequiredAcks = 21,
  kIllegalGeneration = 22,
  kInconsistentGroupProtocol = 23,
  kInvalidGroupId = 24,
  kUnknownMemberId = 25,
  kInvalidSessionTimeout = 26,
  kRebalanceInProgress = 27,
  kInvalidCommitOffsetSize = 28,
  kClusterAuthorizationFailed = 31,
  kInvalidTimestamp = 32,
  kUnsupportedVersion = 35,
  kTopicAlreadyExists = 36,
  kInvalidPartitions = 37,
  kInvalidReplicationFactor = 38,
  kInvalidReplicaAssignment = 39,
  kInvalidConfig = 40,
  kNotController = 41,
  kInvalidRequest = 42,
  kUnsupportedForMessageFormat = 43,
  kPolicyViolation = 44,
  kOutOfOrderSequenceNumber = 45,
  kDuplicateSequenceNumber = 46,
  kInvalidProducerEpoch = 47,
  kInvalidTxnState = 48,
  kInvalidProducerIdMapping = 49,
  kInvalidTransactionTimeout = 50,
  kConcurrentTransactions = 51,
  kTransactionCoordinatorFenced = 52,
  kKafkaStorageError = 56,
  kOperationNotAttempted = 55,
  kNonEmptyGroup = 68,
  kGroupIdNotFound = 69,
  kFetchSessionIdNotFound = 70,
  kFencedLeaderEpoch = 74,
  kUnknownLeaderEpoch = 75,
  kUnsupportedCompressionType = 76,
  kMemberIdRequired = 79,
  kPreferredLeaderNotAvailable = 80,
  kFencedInstanceId = 82,
  kEligibleLeadersNotAvailable = 83,
  kElectionNotNeeded = 84,
  kGroupSubscribedToTopic = 86,
  kInvalidRecord = 87,
  kUnstableOffsetCommit = 88,
  kProducerFenced = 90,
  kTransactionalIdNotFound = 105,
  kUnknownTopicId = 100,
  kGroupMaxSizeReached = 81,
  kFencedMemberEpoch = 110,
  kUnreleasedInstanceId = 111,
  kUnsupportedAssignor = 112,
  kStaleMemberEpoch = 113,
  kInvalidRegularExpression = 128,
};

inline int16_t code(ErrorCode e) {
  return static_cast<int16_t>(e);
}

std::string_view error_name(ErrorCode e);

// The Kafka error a Strata error becomes on the wire.
ErrorCode to_error_code(Errc errc);
// The Strata error a Kafka error code stands for, where one does (another
// broker's answer, the coordinator routing's refusals); kInternal otherwise.
Errc to_errc(ErrorCode code);
// The wire code of a Strata error.
inline int16_t code(Errc errc) {
  return code(to_error_code(errc));
}

}  // namespace strata::kafka
