#include "base/error.h"

#include <cstring>

#include <fmt/format.h>

namespace strata {

std::string_view errc_name(Errc code) {
  switch (code) {
    case Errc::kOk: return "Ok";
    case Errc::kInvalidArgument: return "InvalidArgument";
    case Errc::kNotFound: return "NotFound";
    case Errc::kAlreadyExists: return "AlreadyExists";
    case Errc::kIoError: return "IoError";
    case Errc::kCorruption: return "Corruption";
    case Errc::kShutdown: return "Shutdown";
    case Errc::kInternal: return "Internal";
    case Errc::kCorruptMessage: return "CorruptMessage";
    case Errc::kInvalidRecord: return "InvalidRecord";
    case Errc::kUnsupportedMagic: return "UnsupportedMagic";
    case Errc::kMessageTooLarge: return "MessageTooLarge";
    case Errc::kTruncatedBatch: return "TruncatedBatch";
    case Errc::kControlBatchRejected: return "ControlBatchRejected";
    case Errc::kInvalidTimestamp: return "InvalidTimestamp";
    case Errc::kUnsupportedCompression: return "UnsupportedCompression";
    case Errc::kOffsetOutOfRange: return "OffsetOutOfRange";
    case Errc::kLogFailed: return "LogFailed";
    case Errc::kUnavailable: return "Unavailable";
    case Errc::kNotLeader: return "NotLeader";
    case Errc::kNotController: return "NotController";
    case Errc::kFencedLeaderEpoch: return "FencedLeaderEpoch";
    case Errc::kUnknownLeaderEpoch: return "UnknownLeaderEpoch";
    case Errc::kInvalidConfig: return "InvalidConfig";
    case Errc::kInvalidTopic: return "InvalidTopic";
    case Errc::kInvalidPartitions: return "InvalidPartitions";
    case Errc::kInvalidReplicationFactor: return "InvalidReplicationFactor";
    case Errc::kNotEnoughReplicas: return "NotEnoughReplicas";
    case Errc::kNotEnoughReplicasAfterAppend: return "NotEnoughReplicasAfterAppend";
    case Errc::kTimedOut: return "TimedOut";
    case Errc::kOutOfOrderSequence: return "OutOfOrderSequence";
    case Errc::kInvalidProducerEpoch: return "InvalidProducerEpoch";
    case Errc::kTransactionCoordinatorFenced: return "TransactionCoordinatorFenced";
    case Errc::kInvalidTxnState: return "InvalidTxnState";
    case Errc::kNotHosted: return "NotHosted";
    case Errc::kCoordinatorLoadInProgress: return "CoordinatorLoadInProgress";
    case Errc::kCoordinatorNotAvailable: return "CoordinatorNotAvailable";
    case Errc::kNotCoordinator: return "NotCoordinator";
    case Errc::kIllegalGeneration: return "IllegalGeneration";
    case Errc::kInconsistentGroupProtocol: return "InconsistentGroupProtocol";
    case Errc::kInvalidGroupId: return "InvalidGroupId";
    case Errc::kUnknownMemberId: return "UnknownMemberId";
    case Errc::kInvalidSessionTimeout: return "InvalidSessionTimeout";
    case Errc::kRebalanceInProgress: return "RebalanceInProgress";
    case Errc::kNonEmptyGroup: return "NonEmptyGroup";
    case Errc::kGroupIdNotFound: return "GroupIdNotFound";
    case Errc::kMemberIdRequired: return "MemberIdRequired";
    case Errc::kFencedInstanceId: return "FencedInstanceId";
    case Errc::kGroupSubscribedToTopic: return "GroupSubscribedToTopic";
    case Errc::kUnstableOffsetCommit: return "UnstableOffsetCommit";
    case Errc::kOffsetMetadataTooLarge: return "OffsetMetadataTooLarge";
    case Errc::kInvalidProducerIdMapping: return "InvalidProducerIdMapping";
    case Errc::kInvalidTransactionTimeout: return "InvalidTransactionTimeout";
    case Errc::kConcurrentTransactions: return "ConcurrentTransactions";
    case Errc::kProducerFenced: return "ProducerFenced";
    case Errc::kFencedMemberEpoch: return "FencedMemberEpoch";
    case Errc::kStaleMemberEpoch: return "StaleMemberEpoch";
    case Errc::kUnreleasedInstanceId: return "UnreleasedInstanceId";
    case Errc::kUnsupportedAssignor: return "UnsupportedAssignor";
    case Errc::kInvalidRegularExpression: return "InvalidRegularExpression";
    case Errc::kGroupMaxSizeReached: return "GroupMaxSizeReached";
  }
  return "Unknown";
}

std::string Error::to_string() const {
  return fmt::format("{}: {}", errc_name(code_), message_);
}

Error Error::io(int err, std::string_view what) {
  return Error(Errc::kIoError, fmt::format("{}: {}", what, std::strerror(err)));
}

}  // namespace strata
