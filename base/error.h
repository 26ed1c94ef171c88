// Error: the one error value of Strata, carried by Result<T>.
//
// Expected failures (bad input, I/O errors, a missing key) travel as values;
// programmer errors are caught by STRATA_CHECK (see check.h) and abort. No
// exception crosses a module boundary. The server maps Errc to Kafka error
// codes in one place at its edge.
#pragma once

#include <string>
#include <string_view>

namespace strata {

enum class Errc {
  kOk = 0,
  // Generic.
  kInvalidArgument,  // a caller passed a value outside the allowed range
  kNotFound,
  kAlreadyExists,
  kIoError,     // the operating system refused an operation; message has errno text
  kCorruption,  // stored bytes failed a check
  kShutdown,    // the component is stopping and takes no more work
  kInternal,
  kUnavailable,  // a service the broker depends on (etcd) did not answer in time
  // Record batches (engine/record_batch.h).
  kCorruptMessage,          // CRC mismatch
  kInvalidRecord,           // counts, deltas or lengths inconsistent
  kUnsupportedMagic,        // magic other than 2 where only 2 is accepted
  kMessageTooLarge,         // batch over max.message.bytes
  kTruncatedBatch,          // fewer bytes than the header promises
  kControlBatchRejected,    // a client sent a control batch
  kUnsupportedCompression,  // a codec the format or the reader cannot take (zstd in magic 0/1)
  kInvalidTimestamp,        // a record timestamp outside message.timestamp.{before,after}.max.ms
  // Logs.
  kOffsetOutOfRange,
  kLogFailed,  // a write failed; the log rejects appends until it recovered
  // Replicas.
  kNotLeader,                     // this broker's replica of the partition does not lead it
  kNotHosted,                     // this broker holds no open replica of the partition
  kFencedLeaderEpoch,             // the caller's leader epoch is older than the replica's
  kUnknownLeaderEpoch,            // the caller's leader epoch is newer than the replica's
  kNotController,                 // a cluster change asked of a broker that is not the controller
  kNotEnoughReplicas,             // acks=all with fewer in-sync replicas than min.insync.replicas
  kNotEnoughReplicasAfterAppend,  // appended, but the ISR fell below min.insync.replicas
  kTimedOut,                      // a wait (acks=all) outlasted the request's timeout
  // Idempotent producers.
  kOutOfOrderSequence,            // a producer's batch does not follow its last one
  kInvalidProducerEpoch,          // a producer's batch from an epoch older than its current one
  kTransactionCoordinatorFenced,  // a transaction marker from an older coordinator
  kInvalidTxnState,  // a transactional write to a partition its transaction does not hold
  // Configuration and topic administration.
  kInvalidConfig,
  kInvalidTopic,              // a topic name Kafka would refuse
  kInvalidPartitions,         // a partition count that is not allowed
  kInvalidReplicationFactor,  // more replicas than brokers, or below 1
  // The group and transaction coordinators (each as Kafka names it).
  kCoordinatorLoadInProgress,  // the coordinator's partition is still being read
  kCoordinatorNotAvailable,
  kNotCoordinator,
  kIllegalGeneration,
  kInconsistentGroupProtocol,
  kInvalidGroupId,
  kUnknownMemberId,
  kInvalidSessionTimeout,
  kRebalanceInProgress,
  kNonEmptyGroup,
  kGroupIdNotFound,
  kMemberIdRequired,
  kFencedInstanceId,
  kGroupSubscribedToTopic,
  kUnstableOffsetCommit,
  kOffsetMetadataTooLarge,
  kInvalidProducerIdMapping,
  kInvalidTransactionTimeout,
  kConcurrentTransactions,
  kProducerFenced,
  kFencedMemberEpoch,         // a consumer-group member's epoch is not its current one
  kStaleMemberEpoch,          // an offset commit from a member epoch that is not current
  kUnreleasedInstanceId,      // a static member's instance id still held by a live member
  kUnsupportedAssignor,       // a server-side assignor the broker does not have
  kInvalidRegularExpression,  // a subscription regex that does not compile
  kGroupMaxSizeReached,
};

// Name of the error code, e.g. "OffsetOutOfRange".
std::string_view errc_name(Errc code);

class Error {
 public:
  Error(Errc code, std::string message) : code_(code), message_(std::move(message)) {}

  Errc code() const { return code_; }
  const std::string& message() const { return message_; }
  // "<Name>: <message>"
  std::string to_string() const;

  // An I/O error from errno value `err` while doing `what`.
  static Error io(int err, std::string_view what);

 private:
  Errc code_;
  std::string message_;
};

}  // namespace strata
